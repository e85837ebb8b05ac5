/*
 * store.h - postsmtpsts-tlsrpt's own database: one LMDB environment
 *
 * NAME
 *	store - the reporter's state: where it is in the log, the counts,
 *	what was sent
 * SYNOPSIS
 *	store_open(dir, readonly, err, errsz), store_close(s)
 *	store_begin(s, write) ... store_get/put/del/walk ... store_commit(s)
 * DESCRIPTION
 *	Keys (text, values: pack.h codecs):
 *	  "pos"                 where the follower is (follow.h)
 *	  "sessions"            the pending session lines (session.h)
 *	  "c/YYYY-MM-DD/DOMAIN" a domain's counts of a UTC day (agg.h)
 *	  "r/YYYY-MM-DD/DOMAIN" its report's delivery state (send.h)
 *	  "m/NAME"              a counter (metrics), 8 bytes
 *	  "fseq"                with a fleet: the last batch number given
 *	  "fq/YYYY-MM-DD/DOMAIN" its part to push, under that number
 *	  "fo/YYYY-MM-DD/DOMAIN" its part the fleet refused (closed):
 *	                        reported alone (fleetagg.h)
 *	Crash safety is LMDB's: a batch of log lines is one write
 *	transaction that moves "pos", "sessions" and the counts together,
 *	so a kill -9 before the commit loses the batch (it is read again
 *	from the old position) and after it loses nothing: no line is
 *	counted twice or not at all.  The environment is opened without
 *	MDB_NOSYNC: a commit is on disk when store_commit() returns.
 *	One transaction at a time per handle; values returned by
 *	store_get() and store_walk() are valid until the transaction ends.
 * LIMITS
 *	STORE_MAP_SIZE bytes (the reporter deletes days older than
 *	tlsrpt.keep_days); keys at most STORE_MAX_KEY bytes.
 */
#ifndef TLSRPT_STORE_H
#define TLSRPT_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_MAP_SIZE	((size_t)1 << 30)
#define STORE_MAX_KEY	511		/* LMDB's default key limit */

struct store;

/*
 * store_open - open (a writer also creates, mode 0700) the environment in
 * dir; NULL with a message in err
 */
struct store	*store_open(const char *dir, int readonly, char *err,
		    size_t errsz);
/* store_close - abort any transaction and close; NULL is a no-op */
void		 store_close(struct store *s);

/* store_begin - start a transaction (write: a write one): 0 or -1 */
int		 store_begin(struct store *s, int write);
/* store_commit - commit it: 0, or -1 (the transaction is gone either way) */
int		 store_commit(struct store *s);
/* store_abort - drop it; no-op without one */
void		 store_abort(struct store *s);

/* store_get - 1 and *val, *vlen if key is there, 0 if not, -1 on error */
int		 store_get(struct store *s, const char *key, const void **val,
		    size_t *vlen);
/* store_put - set key: 0 or -1 (the write transaction must be aborted) */
int		 store_put(struct store *s, const char *key, const void *val,
		    size_t vlen);
/* store_del - remove key: 0 (also if absent) or -1 */
int		 store_del(struct store *s, const char *key);

/*
 * store_walk - cb(key, val, vlen, arg) for every key that starts with
 * prefix, in key order (key NUL-terminated); a non-zero return stops the
 * walk.  cb may not write.  Returns 0 or -1.
 */
int		 store_walk(struct store *s, const char *prefix,
		    int (*cb)(const char *key, const void *val, size_t vlen,
			void *arg), void *arg);

/* store_counter_add - add n to counter "m/name" in the write transaction */
int		 store_counter_add(struct store *s, const char *name,
		    uint64_t n);
/* store_counter - the value of counter "m/name" (0 if none) */
uint64_t	 store_counter(struct store *s, const char *name);

/* store_write_errors - writes that failed in this process since it
 * started (begin, put, del, commit: a full disk, a full map); each is
 * logged, at most one line a minute */
uint64_t	 store_write_errors(void);

#endif
