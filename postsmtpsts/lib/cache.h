/*
 * cache.h - the persistent policy cache: one LMDB environment, many readers
 *
 * The cache holds the FACTS learned about a domain (kind of policy, STS mode
 * and id, MX patterns, DNSSEC status, times), not a Postfix answer: the
 * answer depends on per-map options and is computed by the reader from a
 * struct cache_record.  The cache stores times and never reads a clock;
 * callers decide freshness with cache_record_fresh() and
 * cache_record_needs_refresh().
 *
 * Processes: the resolver is the only writer; front workers and
 * postsmtpsts-cache(8) open the same directory read-only (the tool also
 * writes for purge; LMDB serializes writers across processes).  Open the
 * cache in each process AFTER fork(), never before: an LMDB environment must
 * not cross a fork.  Each handle uses one reader slot; a handle is for one
 * thread of control (the event loop of its process).
 *
 * Keys are normalized domains (domain_normalize(): lower-case A-label, no
 * trailing dot), 1..DOMAIN_MAX_LEN bytes of [a-z0-9_.-], for the MTA-STS
 * facts (kinds none and sts), or such a domain behind the prefix "dane:"
 * for its DANE facts (kind dane, cache_dane_key()): the two have different
 * lifetimes (max_age and trust on first use, against DNS TTLs) and are
 * refreshed separately, so they are separate entries.  Values are
 * records encoded by cache_record_encode() (cache_record.h, format in
 * cache_record.c); an entry
 * that does not decode (damaged, or written by another format version) is a
 * miss, and the next cache_put() for that domain replaces it.
 *
 * Unless said otherwise, functions return enum cache_status values and log
 * once (log_warnx) where the cause is known - except CACHE_FULL, which they
 * do not log: a full map or disk fails every write, so the caller logs it
 * rate-limited.  Reads keep working when writes fail.
 */
#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"

enum cache_status {
	CACHE_OK = 0,		/* write done */
	CACHE_HIT,		/* cache_get: *out holds the record */
	CACHE_MISS,		/* no entry, or one that does not decode */
	CACHE_FULL,		/* write failed: map full (MDB_MAP_FULL) or
				   disk full (ENOSPC, EDQUOT, EFBIG; EIO:
				   LMDB's short write); not logged */
	CACHE_ERROR,		/* any other failure, logged */
};


struct cache_stats {
	size_t	 entries;
	size_t	 map_size;	/* bytes the map may grow to */
	size_t	 page_size;
	size_t	 pages_used;	/* high-water mark of the data file */
	size_t	 pages_max;	/* map_size / page_size */
	unsigned int depth;	/* B-tree depth */
	unsigned int readers_max;
	unsigned int readers_used;	/* slots ever taken, stale included */
	size_t	 last_txnid;
};

struct cache;

/*
 * cache_open - open (a writer also creates) the environment in directory path
 *
 * A writer (readonly 0) creates path with mode 0700 if it is missing (not
 * its parents), sets the map size to map_size bytes (0: keep the existing
 * environment's size, CACHE_DEFAULT_MAP_SIZE for a new one) and clears reader
 * slots left by killed processes.  A reader (readonly 1) needs an existing
 * environment and write access to its lock file; it takes the map size the
 * writer set (map_size is ignored).  Returns NULL with a message in err
 * (size errsz, always NUL-terminated) and logs nothing: the caller decides
 * how loud a missing cache is.  A damaged environment (see
 * cache_open_recover) is refused ("damaged" in err) and left where it is;
 * so is a reader's open during which the lock or data file was replaced.
 * cache_close() frees the handle.
 */
struct cache *cache_open(const char *path, size_t map_size, int readonly,
	    char *err, size_t errsz);

/*
 * cache_open_recover - the writer's cache_open(): a damaged environment
 * (not an LMDB file, a newer format, data.mdb shorter than its last page,
 * a damaged first or last page) is moved aside to "<path>.corrupt-<UTC
 * time>" (or, if path's parent is not writable, into
 * "<path>/corrupt-<time>/"), logged once with log_warnx, and a fresh one is
 * created.  aside[0..asidesz) gets where it went, "" if nothing was moved.
 * Only the resolver calls it: readers (workers, postsmtpsts-cache(8)) use
 * cache_open(), which fails on a damaged environment (and on one being
 * moved while it opens) and never moves files; they retry later and find
 * the fresh one.  Returns NULL with err set like cache_open().
 */
struct cache *cache_open_recover(const char *path, size_t map_size,
	    char *aside, size_t asidesz, char *err, size_t errsz);

/*
 * cache_open_cowriter - cache_open() as one more writer beside the one that
 * calls cache_open_recover(): each resolver but the first (DESIGN.md
 * "Resolver shards"; LMDB serializes their write transactions).  Like a
 * reader it never moves files and refuses an environment that is damaged
 * or was replaced while it opened; the caller retries and finds the fresh
 * one that the first resolver made.
 */
struct cache *cache_open_cowriter(const char *path, size_t map_size,
	    char *err, size_t errsz);

/*
 * cache_disk_full - 1 if the handle's last failed write was refused by the
 * filesystem (ENOSPC, EDQUOT, EFBIG, EIO: LMDB's short write), not by the
 * map (MDB_MAP_FULL): both are CACHE_FULL, but only a full map is helped
 * by eviction - on a full disk a deletion may fit in pages the file has
 * (its free list) and so lose committed entries for nothing.
 * cache_last_error - that failure's reason (mdb_strerror), "none" if no
 * write failed
 */
int	cache_disk_full(const struct cache *c);
const char *cache_last_error(const struct cache *c);

/* cache_set_writers - n processes write this cache (the resolvers): the
 * reserve below which eviction starts ahead of time is n times one
 * writer's, since each one's commits draw on it */
void	cache_set_writers(struct cache *c, int n);

/*
 * cache_version - the id of the last committed write transaction, of any
 * process: it changes with every commit, so an answer derived from the
 * snapshot with id v (cache_read_version) is still what a lookup would
 * find while cache_version() is v (the worker's answer memo,
 * worker_answer.c).  No transaction, no lock: LMDB's newer meta page,
 * which a commit writes before it lets new readers see the snapshot, so
 * it may run ahead of cache_read_version() for a moment, never behind.
 * 0 on error.
 */
uint64_t cache_version(struct cache *c);

/* cache_read_version - the snapshot (transaction id) the last cache_get
 * read; 0 if it read a batch's own writes, or none was made */
uint64_t cache_read_version(const struct cache *c);

/* cache_close - abort any open batch, release the handle; NULL is a no-op */
void	cache_close(struct cache *c);

/*
 * cache_get - look domain[0..len) up and decode it into *out
 *
 * The hot path: no allocation and no lock (a reset read transaction is
 * renewed and reset again around the lookup), the value decoded straight
 * from the map.  During a batch (cache_txn_begin) it reads the batch's own
 * writes.  CACHE_HIT, CACHE_MISS (absent or undecodable; *out is then
 * unspecified) or CACHE_ERROR.
 */
int	cache_get(struct cache *c, const char *domain, size_t len,
	    struct cache_record *out);

/*
 * cache_hold, cache_release - read one snapshot across several cache_get
 *
 * Between the two, cache_get reads the snapshot cache_hold took instead of
 * renewing and resetting the read transaction around each lookup: the
 * records of one domain (its MTA-STS and its DANE entry) are then read from
 * one commit, and the second read skips the renewal (the reader slot's
 * shared cache line and the meta page).  cache_hold returns CACHE_OK or
 * CACHE_ERROR (logged); during a batch it holds nothing (cache_get reads
 * the batch).  cache_release is a no-op without a hold.  Hold only for the
 * lookups of one request: a held snapshot pins its pages for the writer.
 */
int	cache_hold(struct cache *c);
void	cache_release(struct cache *c);

/*
 * cache_put - store rec under domain (NUL-terminated), replacing any entry
 *
 * Inside a batch the write becomes visible at cache_txn_commit(); otherwise
 * it is committed (and synced) before returning.  CACHE_OK, CACHE_FULL, or
 * CACHE_ERROR (also for an invalid key or record, or a read-only handle).
 */
int	cache_put(struct cache *c, const char *domain,
	    const struct cache_record *rec);

/* cache_del - remove domain's entry: CACHE_OK, CACHE_MISS (there was none),
 * CACHE_FULL or CACHE_ERROR; batched like cache_put */
int	cache_del(struct cache *c, const char *domain);

/* cache_purge_all - remove every entry (one transaction); batched like
 * cache_put */
int	cache_purge_all(struct cache *c);

/*
 * cache_txn_begin - start a batch: later puts and deletes share one write
 * transaction until cache_txn_commit() (one sync for many records: the
 * resolver's bulk writes, cache_fill).  It holds LMDB's writer lock, so keep
 * it short.  After a failed write inside the batch, the batch is already
 * rolled back: further writes return the same status without doing
 * anything, and cache_txn_commit() returns it too.
 * cache_txn_begin returns CACHE_OK or CACHE_ERROR (also if a batch is open).
 */
int	cache_txn_begin(struct cache *c);
/* cache_txn_commit - commit the batch: CACHE_OK, CACHE_FULL or CACHE_ERROR */
int	cache_txn_commit(struct cache *c);
/* cache_txn_abort - drop the batch, if any */
void	cache_txn_abort(struct cache *c);

/*
 * cache_iterate - call cb for every entry, in key order
 *
 * The walk reads one snapshot (the last commit; not an open batch) in its
 * own read transaction, so cb may call cache_get, cache_put and cache_del.
 * cb gets the domain NUL-terminated, its length, and the decoded record, or
 * NULL if the value does not decode; rec is valid during the call only.
 * A non-zero return from cb stops the walk.  Returns CACHE_OK (done or
 * stopped) or CACHE_ERROR.  A long walk pins its snapshot and blocks the
 * caller's event loop: walk a large cache in slices with
 * cache_iterate_from().
 */
int	cache_iterate(struct cache *c,
	    int (*cb)(const char *domain, size_t len,
		const struct cache_record *rec, void *arg), void *arg);
/* cache_iterate_from - the same, over keys strictly after after[0..len)
 * (NULL: from the first key) */
int	cache_iterate_from(struct cache *c, const char *after, size_t afterlen,
	    int (*cb)(const char *domain, size_t len,
		const struct cache_record *rec, void *arg), void *arg);

/*
 * Eviction classes, evicted in this order (cache_evict.c has the details):
 * no-policy entries first, a flood of random names cannot push out
 * unexpired enforce policies (evicted only when nothing else is left).
 */
enum cache_evict_class {
	CACHE_EVICT_NEGATIVE,	/* no policy, no DANE, undecodable */
	CACHE_EVICT_EXPIRED,	/* past expires_at */
	CACHE_EVICT_OTHER,	/* testing mode, DANE failures */
	CACHE_EVICT_KEEP,	/* unexpired enforce, usable DANE */
	CACHE_EVICT_CLASSES,
};
#define CACHE_EVICT_BATCH	256	/* most entries one pass deletes */

struct cache_evict_stats {
	size_t	 evicted[CACHE_EVICT_CLASSES];	/* by class */
};

/*
 * cache_evict - make room in a full map: one write transaction deleting up
 * to CACHE_EVICT_BATCH entries, in class order, least recently fetched
 * (fetched_at) first within a class; now decides what has expired.  Not
 * inside a batch.  *es gets the counts (all 0 on failure).  CACHE_OK,
 * CACHE_FULL (even deleting needs a page) or CACHE_ERROR.
 */
int	cache_evict(struct cache *c, int64_t now, struct cache_evict_stats *es);

/*
 * cache_put_room - cache_put(); if the map is full (and no batch is open):
 * one eviction pass, then the put once more.  *es gets what was evicted.
 * A batch that ended CACHE_FULL is the caller's to retry: cache_evict(),
 * then the batch again.
 */
int	cache_put_room(struct cache *c, const char *domain,
	    const struct cache_record *rec, int64_t now,
	    struct cache_evict_stats *es);

/*
 * cache_put_room_many - cache_put_room() for n records (keys[i] gets
 * recs[i]) in ONE write transaction, so one commit and one fdatasync, when
 * 2 <= n <= CACHE_PUT_MANY and no batch is open: eviction ahead of time
 * near every key first, then the puts, then the commit.  If the map is
 * full all the same, the transaction is aborted and every valid record is
 * written again by itself through cache_put_room() (eviction, one retry),
 * so a full map loses no more than cache_put_room() would.  st[i] gets
 * record i's status; *es the sum of what was evicted.  Returns CACHE_OK,
 * or the first record's failure.
 */
#define CACHE_PUT_MANY	32
int	cache_put_room_many(struct cache *c, const char *const *keys,
	    const struct cache_record *const *recs, size_t n, int64_t now,
	    struct cache_evict_stats *es, int *st);

/*
 * cache_unmap_pages - drop this process's mappings of the cache file's
 * pages (madvise MADV_DONTNEED on the read-only shared map): they stay in
 * the page cache, shared and bounded by max_size, and fault back in when
 * read.  For the resolver, which writes every domain and walks the whole
 * cache each refresh pass: without it its RSS counts every page of the
 * file it ever touched, and grows with the number of domains, not with
 * its own memory.  CACHE_OK or CACHE_ERROR (nothing changed).
 */
int	cache_unmap_pages(struct cache *c);

/* cache_stats - fill *st: CACHE_OK or CACHE_ERROR */
int	cache_stats(struct cache *c, struct cache_stats *st);

/*
 * cache_reader_check - clear reader slots of dead processes (a killed
 * worker's slot otherwise pins an old snapshot and the file grows); the
 * writer calls it at open, and should again after a worker died.  *dead
 * (may be NULL) gets the number cleared.  CACHE_OK or CACHE_ERROR.
 */
int	cache_reader_check(struct cache *c, int *dead);

/* "ok", "hit", "miss", "full", "error" */
const char *cache_status_name(int status);

#endif
