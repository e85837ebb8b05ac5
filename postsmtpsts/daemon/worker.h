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

/* Per-connection output bounds; pending requests: max_inflight. */
#define WORKER_OUTPUT_HIGH	(256 * 1024)	/* stop reading above this */
#define WORKER_OUTPUT_LOW	(64 * 1024)	/* resume reading below this */

/*
 * worker_main - run a worker until SIGTERM/SIGINT, then drain and return
 *
 * fds[0..nfds) are listening sockets (not closed on return).  id is the
 * worker slot, for logs.  Returns the process exit status.
 */
int	worker_main(const struct config *cf, const int *fds, int nfds, int id);

#endif
