/*
 * worker.c - a front worker process: Postfix socketmap lookups on libevent
 *
 * Interface (worker.h): worker_main() runs one worker on the master's
 * listening sockets until SIGTERM/SIGINT; worker_new() and worker_free()
 * are its start and stop on an event base of the caller's (worker_main()
 * is the two around child_run(); the scenario runner, tests/scenario,
 * calls them in its own loop, as it does resolver_new()).  The work is in three files,
 * one concern each, sharing worker_int.h: worker_conn.c (Postfix
 * socketmap connections and their request slots), worker_answer.c (the
 * answer to a request: pin, cache, facts) and worker_rclient.c (the
 * resolver client and the in-flight table).  This file is the process
 * around them: the state, the listeners, the open-file limit, the stop.
 *
 * The soft open-file limit is raised to fit max_connections (or the limit
 * lowered to what fits): WORKER_FD_RESERVE descriptors are kept for the
 * listeners, the resolver socket, the cache, the event base and logging.
 *
 * On SIGTERM/SIGINT the worker stops accepting, closes idle connections,
 * lets in-flight requests finish and returns; after one request_timeout
 * plus two seconds it returns with connections still open.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/resource.h>

#include <stdio.h>
#include <stdlib.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "lib/cache.h"
#include "lib/config.h"
#include "daemon/child.h"
#include "lib/log.h"
#include "daemon/sandbox.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "daemon/worker_int.h"
#include "lib/xmalloc.h"

/* Descriptors a worker needs besides its connections: listeners, the
 * resolver socket, the cache, the event base, logging. */
#define WORKER_FD_RESERVE	64

/*
 * worker_fd_limit - make room for max_connections descriptors: raise the
 * soft RLIMIT_NOFILE up to the hard one if needed; if even that is too
 * low, serve fewer connections (an accept(2) failing with EMFILE would
 * leave the client hanging in the backlog instead of refused)
 */
static int
worker_fd_limit(const struct config *cf, int id)
{
	struct rlimit	 rl;
	rlim_t		 need = (rlim_t)cf->max_connections + WORKER_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("worker %d: getrlimit", id);
		return (cf->max_connections);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max >= need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("worker %d: setrlimit", id);
		if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
			return (cf->max_connections);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return (cf->max_connections);
	log_warnx("worker %d: open file limit %llu allows only %llu of "
	    "max_connections %d", id, (unsigned long long)rl.rlim_cur,
	    rl.rlim_cur > 2 * WORKER_FD_RESERVE ? (unsigned long long)
	    (rl.rlim_cur - WORKER_FD_RESERVE) : (unsigned long long)
	    WORKER_FD_RESERVE, cf->max_connections);
	return (rl.rlim_cur > 2 * WORKER_FD_RESERVE ?
	    (int)(rl.rlim_cur - WORKER_FD_RESERVE) : WORKER_FD_RESERVE);
}

/* worker_drain_cb - grace period over: exit even with open connections */
static void
worker_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	log_debug(1, "worker %d: drain timeout, %d connections left",
	    w->id, w->nconns);
	event_base_loopexit(w->base, NULL);
}

/*
 * worker_term_cb - SIGTERM/SIGINT: stop accepting, finish, exit
 *
 * Every connection stops reading and closes once its pending replies are
 * written; a pending lookup is answered by the resolver or its deadline,
 * so the grace period is one deadline plus a margin.
 */
static void
worker_term_cb(int sig, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c, *next;
	struct timeval	 grace;
	int		 i;

	if (w->draining)
		return;
	log_debug(1, "worker %d: signal %d: draining", w->id, sig);
	w->draining = 1;
	for (i = 0; i < w->nlisteners; i++) {
		evconnlistener_free(w->listeners[i]);
		w->listeners[i] = NULL;
	}
	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (!c->closing)
			worker_conn_close_after_write(c);
	}
	if (w->nconns == 0) {
		event_base_loopexit(w->base, NULL);
		return;
	}
	grace.tv_sec = w->cf->request_timeout_ms / 1000 + 2;
	grace.tv_usec = 0;
	w->ev_drain = evtimer_new(w->base, worker_drain_cb, w);
	evtimer_add(w->ev_drain, &grace);
}

struct worker *
worker_new(const struct config *cf, const int *fds, int nfds, int id,
    struct event_base *base)
{
	struct worker	*w;
	int		 i;

	w = xcalloc(1, sizeof(*w));
	w->cf = cf;
	w->id = id;
	w->deadline.tv_sec = cf->request_timeout_ms / 1000;
	w->deadline.tv_usec = (cf->request_timeout_ms % 1000) * 1000;
	w->idle.tv_sec = cf->idle_timeout;
	w->max_conns = worker_fd_limit(cf, id);
	TAILQ_INIT(&w->conns);
	w->base = base;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	w->listeners = xcalloc((size_t)nfds, sizeof(*w->listeners));
	w->nlisteners = nfds;
	for (i = 0; i < nfds; i++) {
		evutil_make_socket_nonblocking(fds[i]);
		w->listeners[i] = evconnlistener_new(w->base,
		    worker_conn_accept_cb, w, 0, -1, fds[i]);
		if (w->listeners[i] == NULL)
			fatalx("worker %d: evconnlistener_new failed", id);
		evconnlistener_set_error_cb(w->listeners[i],
		    worker_conn_accept_error_cb);
	}
	w->ev_trim = evtimer_new(w->base, worker_conn_trim_cb, w);
	w->ev_balance = evtimer_new(w->base, worker_conn_balance_cb, w);
	if (w->ev_trim == NULL || w->ev_balance == NULL)
		fatalx("worker %d: out of memory for its timers", id);
	/* running: the other workers balance their accepts against ours */
	stats_set(STATS_WORKER_UP, 1);
	worker_rclient_start(w);
	return (w);
}

void
worker_free(struct worker *w)
{
	struct conn	*c;
	int		 i;

	if (w == NULL)
		return;
	while ((c = TAILQ_FIRST(&w->conns)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		worker_conn_free(c);
	worker_rclient_stop(w);
	for (i = 0; i < w->nlisteners; i++)
		if (w->listeners[i] != NULL)
			evconnlistener_free(w->listeners[i]);
	free(w->listeners);
	event_free(w->ev_trim);
	w->ev_trim = NULL;
	event_free(w->ev_balance);
	w->ev_balance = NULL;

	if (w->cache != NULL)
		cache_close(w->cache);
	if (w->ev_drain != NULL)
		event_free(w->ev_drain);
	cache_record_release(&w->rec);
	cache_record_release(&w->drec);
	free(w->pin_lapsed);
	free(w->memo);
	free(w);
}

int
worker_main(const struct config *cf, const int *fds, int nfds, int id)
{
	struct event_base *base;
	struct worker	*w;
	char		 name[32];

	(void)snprintf(name, sizeof(name), "worker %d", id);
	base = child_base_new(name);
	w = worker_new(cf, fds, nfds, id, base);
	child_run(base, name, sandbox_worker, worker_term_cb, w);
	worker_free(w);
	event_base_free(base);
	log_debug(1, "worker %d exiting", id);
	return (0);
}
