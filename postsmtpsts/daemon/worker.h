/*
 * worker.h - a front worker: Postfix socketmap connections on libevent
 *
 * A worker inherits the master's listening sockets and serves many
 * persistent connections at once, in one event loop.  Each request is a
 * netstring "name key"; replies go out in request order (pipelining).  The
 * worker never touches the network beyond its listeners: lookups it cannot
 * answer from the configuration or the cache go to the resolver process.
 * (The worker's files share worker_int.h, which is not part of this
 * interface.)
 */
#ifndef WORKER_H
#define WORKER_H

struct config;
struct event_base;
struct worker;

/* Per-connection output bounds; pending requests: max_inflight. */
#define WORKER_OUTPUT_HIGH	(256 * 1024)	/* stop reading above this */
#define WORKER_OUTPUT_LOW	(64 * 1024)	/* resume reading below this */

/* The fewest connections a worker must be able to serve within the open
 * file limit: below that the daemon does not start (worker_fd_check). */
#define WORKER_FD_MIN_CONNS	8

/*
 * worker_fd_reserve - the descriptors a worker with nlisteners listening
 * sockets keeps besides its Postfix connections: max_connections is what
 * the open file limit leaves over this (worker.c, WORKER_FD_OWN)
 */
int	worker_fd_reserve(const struct config *cf, int nlisteners);

/*
 * worker_fd_check - at the start: fatal, naming the minimum, if the hard
 * open file limit cannot fit a worker's reserve plus WORKER_FD_MIN_CONNS
 * connections (the workers raise their soft limit up to the hard one)
 */
void	worker_fd_check(const struct config *cf, int nlisteners);

/*
 * worker_main - run a worker until SIGTERM/SIGINT, then drain and return
 *
 * fds[0..nfds) are listening sockets (not closed on return).  id is the
 * worker slot, for logs.  Returns the process exit status.
 */
int	worker_main(const struct config *cf, const int *fds, int nfds, int id);

/*
 * worker_new - a worker on base, serving Postfix on the listening sockets
 * fds[0..nfds) (made non-blocking here, not closed by worker_free) and
 * connecting to the resolver at cf->runtime_dir (retried until it
 * listens); cf is kept, not copied.  No fork, no signals, no sandbox:
 * worker_main() adds those (it is worker_new() on a child's event base,
 * child_run(), then worker_free()), and a test (tests/scenario) runs the
 * worker in its own loop beside a resolver_new().  Fatal on a start-up
 * failure, like every child's start.
 */
struct worker *worker_new(const struct config *cf, const int *fds, int nfds,
	    int id, struct event_base *base);

/*
 * worker_free - close every connection (pending requests unanswered), the
 * resolver socket and the cache; free w.  base and the listening sockets
 * stay the caller's.  NULL is a no-op.
 */
void	worker_free(struct worker *w);

#endif
