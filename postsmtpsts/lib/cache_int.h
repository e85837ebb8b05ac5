/*
 * cache_int.h - what the cache's own files share: not an interface
 *
 * The cache (cache.h) is one module in four files, each calling only into
 * the ones before it: cache_recover.c, what counts as damage at open and
 * moving a damaged environment aside (it knows no handle); cache.c, the
 * LMDB I/O; cache_evict.c, eviction; cache_put_room.c, the writes that
 * make room first.  This header is theirs alone: the handle's layout and
 * what a later file calls in an earlier one.  Nothing else includes it.
 */
#ifndef CACHE_INT_H
#define CACHE_INT_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>

#include "lib/cache_record.h"

struct cache_evict_stats;

#define CACHE_DIR_MODE		0700
#define CACHE_PATH_MAX		4096	/* directory + "/" + file name */

struct cache {
	MDB_env		*env;
	MDB_dbi		 dbi;
	MDB_txn		*rtxn;		/* reset read txn, or NULL */
	int		 held;		/* cache_hold: rtxn stays live across
					   cache_get until cache_release */
	uint64_t	 read_version;	/* snapshot of the last cache_get: its
					   txn id, 0 if it read a batch */
	MDB_txn		*wtxn;		/* open batch; NULL: none, failed */
	int		 batch;		/* a batch is open */
	int		 batch_status;	/* CACHE_OK, or what ended it */
	int		 readonly;
	char		*path;
	unsigned char	 enc[CACHE_RECORD_MAX_LEN];	/* cache_put scratch */
	char		 evict_at[CACHE_KEY_MAX];	/* next eviction walk */
	size_t		 evict_len;
	size_t		 map_open;	/* map size before any eviction grew it */
	unsigned int	 evict_idle;	/* puts before the next early pass */
	size_t		 writers;	/* processes writing (cache_set_writers) */
	int		 last_rc;	/* LMDB error of the last failed
					   write */
};

/* -- cache.c, for cache_evict.c */

/* cache_begin - begin a transaction, adopting the map size once if another
 * process grew it (MDB_MAP_RESIZED); 0 or the LMDB error */
int	cache_begin(struct cache *c, unsigned int flags, MDB_txn **txn);

/* cache_write_failed - map a failed LMDB write (rc) to a cache_status, log
 * it unless it is CACHE_FULL, end a batch it happened in */
int	cache_write_failed(struct cache *c, int rc, const char *what);

/* -- cache_recover.c, for cache.c: damage at open, and moving it aside */

/* pseudo LMDB codes of the checks at open (outside LMDB's and errno's
 * range) */
#define CACHE_RECOVER_TRUNCATED	(-30700)	/* data.mdb ends too soon */
#define CACHE_RECOVER_MOVED	(-30701)	/* replaced during the open */

/* cache_recover_damaged - 1 if an open failed (with rc) because the files
 * are damaged (not for a missing file, a permission or a resource
 * problem) */
int	cache_recover_damaged(int rc);

/* cache_recover_strerror - LMDB's name for rc, with ours for the pseudo
 * codes */
const char *cache_recover_strerror(int rc);

/* cache_recover_lock_id - the identity of path's lock file before an
 * open, for cache_recover_same_files(); all 0 if there is none */
void	cache_recover_lock_id(const char *path, struct stat *lock0);

/* cache_recover_same_files - 0 if the lock file at path is still lock0
 * and the data file at path is the one env mapped; else
 * CACHE_RECOVER_MOVED (the writer moved a damaged environment aside) */
int	cache_recover_same_files(MDB_env *env, const char *path,
	    const struct stat *lock0);

/* cache_recover_check_size - CACHE_RECOVER_TRUNCATED if data.mdb ends
 * before the last page its meta page names (reading there would be
 * SIGBUS), else 0 or the LMDB error */
int	cache_recover_check_size(MDB_env *env);

/* cache_recover_probe - walk to the first and the last entry: a damaged
 * root or edge page shows at open, not at the first lookup; 0 or the LMDB
 * error */
int	cache_recover_probe(MDB_txn *txn, MDB_dbi dbi);

/* cache_recover_move_aside - move the environment in path out of the way
 * (nothing is deleted); the new place into aside[0..asidesz): 0, or -1
 * with err set */
int	cache_recover_move_aside(const char *path, char *aside,
	    size_t asidesz, char *err, size_t errsz);

/* -- cache_evict.c, for cache_put_room.c */

/* cache_evict_key - cache_evict() of the classes up to maxcls; near (may
 * be NULL): the key about to be written, whose neighbours are offered
 * too */
int	cache_evict_key(struct cache *c, int64_t now, const MDB_val *near,
	    int maxcls, struct cache_evict_stats *es);

/* cache_evict_early - before a put of k, when fewer than
 * CACHE_EVICT_RESERVE pages are left: evict ahead of time, while deleting
 * still has pages to work with, only what makes room for sure (runs of
 * negative and expired neighbours around k); *es gets what was evicted */
void	cache_evict_early(struct cache *c, MDB_val *k, int64_t now,
	    struct cache_evict_stats *es);

#endif
