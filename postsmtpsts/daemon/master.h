/*
 * master.h - the supervising process
 *
 * The master binds every listener while it still has the privileges to,
 * writes the pid file, drops privileges, then forks the front workers and
 * supervises them until told to stop.  It never serves a request itself.
 */
#ifndef MASTER_H
#define MASTER_H

struct config;

/* Restart backoff for a worker that keeps dying young. */
#define MASTER_BACKOFF_MIN_MS	100
#define MASTER_BACKOFF_MAX_MS	30000
#define MASTER_STABLE_SECS	10	/* lived this long: reset backoff */
#define MASTER_STOP_GRACE_SECS	10	/* then SIGKILL what is left */

/*
 * master_main - run the daemon with configuration cf (loaded from
 * cf->file).  foreground: stay attached, log to stderr.  Takes ownership
 * of cf.  Returns the exit status.
 */
int	master_main(struct config *cf, int foreground);

#endif
