/*
 * cache_wb.h - write-behind: records held for one commit
 *
 *	struct cache_wb wb;
 *	cache_wb_init(&wb);
 *	n = cache_wb_put(&wb, key, rec);	(a copy is held)
 *	if (cache_wb_get(&wb, key, len, &rec))	(held: newer than the map's)
 *	st = cache_wb_read(&wb, cache, key, len, &rec);	(held, else the map)
 *	cache_wb_flush(&wb, cache, now, &es, done, arg);
 *	cache_wb_release(&wb);			(drops what is held)
 *
 * The resolver replies first and writes afterwards; each write transaction
 * costs an fdatasync, and one per cold domain was the largest single cost
 * left in the kernel.  So records are held here and written together, up
 * to CACHE_WB_MAX in one transaction (cache_put_room_many: eviction near
 * every key first, a full map falls back to one write per record).  When
 * to flush is the caller's.  Whoever reads the cache in that process must
 * read through cache_wb_read().  Not thread-safe; one per writer.
 */
#ifndef POSTSMTPSTS_CACHE_WB_H
#define POSTSMTPSTS_CACHE_WB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache.h"
#include "lib/cache_record.h"

#define CACHE_WB_MAX	CACHE_PUT_MANY

struct cache_wb_ent {
	char			 key[CACHE_KEY_MAX + 1];
	struct cache_record	 rec;
	int			 full;	/* refused by a full map once */
};

struct cache_wb {
	size_t			 n;
	struct cache_wb_ent	 ent[CACHE_WB_MAX];
};

/* cache_wb_init - nothing held */
void	cache_wb_init(struct cache_wb *wb);

/* cache_wb_release - drop what is held (not written) and free it */
void	cache_wb_release(struct cache_wb *wb);

/*
 * cache_wb_put - hold a copy of rec for key, in place of one held for the
 * same key.  Returns the number of records held afterwards, or 0 (nothing
 * held) if the key is longer than CACHE_KEY_MAX or CACHE_WB_MAX records
 * are held already: flush when the count reaches CACHE_WB_MAX.
 */
size_t	cache_wb_put(struct cache_wb *wb, const char *key,
	    const struct cache_record *rec);

/* cache_wb_get - 1 and a copy in *out (initialized by the caller) if a
 * record is held for the len bytes at key, else 0 */
int	cache_wb_get(const struct cache_wb *wb, const char *key, size_t len,
	    struct cache_record *out);

/* cache_wb_read - the newest record for key: the one held in wb (may be
 * NULL), else the map's (cache_get).  CACHE_HIT with a copy in *out, or
 * what cache_get returned */
int	cache_wb_read(const struct cache_wb *wb, struct cache *c,
	    const char *key, size_t len, struct cache_record *out);

/* cache_wb_count - the number of records held */
size_t	cache_wb_count(const struct cache_wb *wb);

/*
 * cache_wb_flush - write every held record (cache_put_room_many), call
 * done(arg, key, status) for each, then drop them all, written or not.
 * *es gets what eviction removed.  Returns CACHE_OK or the first failure.
 */
typedef void	cache_wb_done_fn(void *arg, const char *key, int status);
int	cache_wb_flush(struct cache_wb *wb, struct cache *c, int64_t now,
	    struct cache_evict_stats *es, cache_wb_done_fn *done, void *arg);

/*
 * cache_wb_flush_keep - cache_wb_flush(), but a record that a full map
 * refuses for the first time is held for the next flush instead (done is
 * not called for it): with several resolvers writing, the room one's
 * eviction made can go to another's commit, and readers pin freed pages
 * for a moment; a second refusal is final.  Returns as cache_wb_flush;
 * cache_wb_count() tells what is held.
 */
int	cache_wb_flush_keep(struct cache_wb *wb, struct cache *c, int64_t now,
	    struct cache_evict_stats *es, cache_wb_done_fn *done, void *arg);

#endif /* POSTSMTPSTS_CACHE_WB_H */
