/*
 * child.h - the start-up every child process shares
 *
 * The worker, the resolver and the metrics process each run one libevent
 * loop with the same frame: an event base (SIGPIPE ignored), SIGTERM and
 * SIGINT as events, the child's sandbox, the readiness report to the
 * master (sdnotify_child_ready), dispatch.  child_base_new() and
 * child_run() are that frame; the child fills in its own events between
 * the two and frees its own state after child_run() returns.
 *
 * The base has two priorities: the stop signals run at priority 0, every
 * other event at the default 1.  A stop signal that arrived together with
 * other events (a peer closing because it is stopping too, say) is seen
 * first, so the child can tell an orderly stop from a failure.
 */
#ifndef CHILD_H
#define CHILD_H

#include <event2/event.h>

/* CHILD_PRIO_SIGNAL - priority of the stop signals; others get 1 */
#define CHILD_PRIO_SIGNAL	0
#define CHILD_PRIORITIES	2

/*
 * child_base_new - ignore SIGPIPE and make the child's event base (two
 * priorities); fatal on failure.  name appears in the fatal message.  The
 * caller frees the base with event_base_free() once child_run() returned
 * and its events are freed.
 */
struct event_base *child_base_new(const char *name);

/*
 * child_run - add SIGTERM/SIGINT (stop(sig, arg) is called for each, at
 * priority CHILD_PRIO_SIGNAL), enter the sandbox, log "<name> started" at
 * debug level 1, report readiness, dispatch until the loop exits, then
 * free the signal events.  Returns event_base_dispatch()'s result.
 */
int	child_run(struct event_base *base, const char *name,
	    void (*sandbox)(void), void (*stop)(int sig, void *arg),
	    void *arg);

#endif
