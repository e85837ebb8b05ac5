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
 * The soft open-file limit is raised to fit max_connections plus the
 * descriptors a worker keeps for itself (worker_fd_reserve: one a listener
 * and a resolver, WORKER_FD_OWN); where the hard limit is lower, the worker
 * serves fewer connections, so that max_connections refuses the rest
 * before accept(2) could fail with EMFILE.  The master refuses to start
 * where a worker could not serve WORKER_FD_MIN_CONNS (worker_fd_check).
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
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "lib/cache.h"
#include "lib/preload_store.h"
#include "lib/config.h"
#include "daemon/child.h"
#include "lib/log.h"
#include "daemon/sandbox.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "daemon/worker_int.h"
#include "lib/xmalloc.h"

/*
 * Descriptors a worker holds besides its connections, its listeners and
 * its resolver sockets (one each): stdin, stdout and stderr (3); the event
 * base's epoll and signal pipe (3); the cache's lock.mdb and data.mdb (2);
 * syslog's socket (1); the spare that closes connections accept(2) could
 * not take (1, worker_conn.c); and 6 for what a library opens on its own
 * (/dev/urandom, a resolver socket being reconnected).  Measured: 11 below
 * the limit after the start with two listeners and two resolvers.
 */
#define WORKER_FD_OWN		16

int
worker_fd_reserve(const struct config *cf, int nlisteners)
{
	return (WORKER_FD_OWN + nlisteners + cf->resolvers);
}

void
worker_fd_check(const struct config *cf, int nlisteners)
{
	struct rlimit	 rl;
	int		 reserve = worker_fd_reserve(cf, nlisteners);
	rlim_t		 min = (rlim_t)reserve + WORKER_FD_MIN_CONNS;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("getrlimit RLIMIT_NOFILE");
	/* the workers raise their soft limit up to the hard one */
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < min)
		fatalx("open file limit %llu is below the minimum %llu: a "
		    "worker keeps %d descriptors (listeners=%d resolvers=%d "
		    "own=%d) and serves at least %d connections; raise the "
		    "limit (ulimit -n, systemd LimitNOFILE=)",
		    (unsigned long long)rl.rlim_max, (unsigned long long)min,
		    reserve, nlisteners, cf->resolvers, WORKER_FD_OWN,
		    WORKER_FD_MIN_CONNS);
}

/*
 * worker_fd_limit - make room for max_connections descriptors beside the
 * reserve: raise the soft RLIMIT_NOFILE up to the hard one if needed; if
 * even that is too low, serve fewer connections (an accept(2) failing with
 * EMFILE would leave the client waiting instead of refused)
 */
static int
worker_fd_limit(const struct config *cf, int nlisteners, int id)
{
	struct rlimit	 rl;
	int		 reserve = worker_fd_reserve(cf, nlisteners);
	rlim_t		 need = (rlim_t)cf->max_connections + (rlim_t)reserve;
	int		 max;

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
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need) {
		log_debug(1, "worker %d: open file limit %llu: "
		    "max_connections %d (reserve=%d)", id,
		    rl.rlim_cur == RLIM_INFINITY ? 0ULL :
		    (unsigned long long)rl.rlim_cur, cf->max_connections,
		    reserve);
		return (cf->max_connections);
	}
	/* at least one: worker_fd_check() keeps the master from starting
	 * below WORKER_FD_MIN_CONNS, a test's own loop may not */
	max = rl.rlim_cur > (rlim_t)reserve + 1 ?
	    (int)(rl.rlim_cur - (rlim_t)reserve) : 1;
	log_warnx("worker %d: open file limit %llu allows only %d of "
	    "max_connections %d (reserve=%d listeners=%d resolvers=%d "
	    "own=%d)", id, (unsigned long long)rl.rlim_cur, max,
	    cf->max_connections, reserve, nlisteners, cf->resolvers,
	    WORKER_FD_OWN);
	return (max);
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

/* worker_linger_cb - the drain's linger is over: close the idle ones */
static void
worker_linger_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c, *next;

	(void)fd;
	(void)what;
	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (!c->closing)
			worker_conn_close_after_write(c);
	}
}

/*
 * worker_term_cb - SIGTERM/SIGINT: stop accepting, finish, exit
 *
 * A connection with lookups pending stops reading and closes once their
 * replies are written; an idle one is kept WORKER_DRAIN_LINGER_MS, and a
 * request arriving meanwhile is answered before it closes.  A pending
 * lookup is answered by the resolver or its deadline, so the grace period
 * is one deadline plus a margin.
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
		if (!c->closing && !TAILQ_EMPTY(&c->fifo))
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
	grace.tv_sec = WORKER_DRAIN_LINGER_MS / 1000;
	grace.tv_usec = (WORKER_DRAIN_LINGER_MS % 1000) * 1000;
	w->ev_linger = evtimer_new(w->base, worker_linger_cb, w);
	evtimer_add(w->ev_linger, &grace);
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
	w->max_conns = worker_fd_limit(cf, nfds, id);
	w->spare_fd = -1;
	worker_conn_spare(w);
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
	w->listening = 1;
	w->ev_trim = evtimer_new(w->base, worker_conn_trim_cb, w);
	w->ev_balance = evtimer_new(w->base, worker_conn_balance_cb, w);
	w->ev_accept = evtimer_new(w->base, worker_conn_accept_resume_cb, w);
	if (w->ev_trim == NULL || w->ev_balance == NULL || w->ev_accept == NULL)
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
	event_free(w->ev_accept);
	w->ev_accept = NULL;
	if (w->spare_fd != -1)
		(void)close(w->spare_fd);

	if (w->cache != NULL)
		cache_close(w->cache);
	preload_store_close(w->preload);
	if (w->ev_drain != NULL)
		event_free(w->ev_drain);
	if (w->ev_linger != NULL)
		event_free(w->ev_linger);
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
