/*
 * child.c - the start-up every child process shares
 *
 * Interface: child.h.  Event base, stop signals, sandbox, readiness,
 * dispatch, in that order, for the worker, the resolver and metrics; the
 * master forks them (master.c) and waits for their readiness reports.
 */
#include "autoconf.h"

#include <signal.h>

#include <event2/event.h>

#include "daemon/child.h"
#include "daemon/sdnotify.h"
#include "lib/log.h"

/* The stop callback and its argument, for the libevent signal events. */
struct child_stop {
	void		(*stop)(int, void *);
	void		*arg;
};

/* child_signal_cb - SIGTERM/SIGINT: hand the signal to the child */
static void
child_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct child_stop *cs = arg;

	(void)what;
	cs->stop((int)sig, cs->arg);
}

struct event_base *
child_base_new(const char *name)
{
	struct event_base *base;

	signal(SIGPIPE, SIG_IGN);
	if ((base = event_base_new()) == NULL)
		fatalx("%s: event_base_new failed", name);
	if (event_base_priority_init(base, CHILD_PRIORITIES) == -1)
		fatalx("%s: event_base_priority_init failed", name);
	return (base);
}

int
child_run(struct event_base *base, const char *name, void (*sandbox)(void),
    void (*stop)(int, void *), void *arg)
{
	struct child_stop cs = { stop, arg };
	struct event	*ev_term, *ev_int;
	int		 rv;

	ev_term = evsignal_new(base, SIGTERM, child_signal_cb, &cs);
	ev_int = evsignal_new(base, SIGINT, child_signal_cb, &cs);
	if (ev_term == NULL || ev_int == NULL ||
	    event_priority_set(ev_term, CHILD_PRIO_SIGNAL) == -1 ||
	    event_priority_set(ev_int, CHILD_PRIO_SIGNAL) == -1 ||
	    evsignal_add(ev_term, NULL) == -1 ||
	    evsignal_add(ev_int, NULL) == -1)
		fatalx("%s: cannot watch SIGTERM/SIGINT", name);
	sandbox();
	log_debug(1, "%s started", name);
	sdnotify_child_ready();

	rv = event_base_dispatch(base);

	event_free(ev_term);
	event_free(ev_int);
	return (rv);
}
