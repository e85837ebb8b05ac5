/*
 * cache_put_room.c - the resolver's cache writes: room made first
 *
 * Interface in cache.h: cache_put_room (one record) and
 * cache_put_room_many (up to CACHE_PUT_MANY records in one commit, the
 * write-behind of cache_wb.c).  Each is cache_put() on top of the eviction
 * of cache_evict.c: ahead of time when the map runs low on pages (a delete
 * needs fresh pages too, so waiting for MDB_MAP_FULL leaves nothing to
 * evict with), and one pass of every class, then the put once more, when
 * it is full all the same.  Inside a write transaction nothing can be
 * evicted, so a batch that finds the map full is dropped and its records
 * are written again one by one: a full map loses no more than with one
 * commit per record.  With several resolvers writing, the room one
 * evicted can go to another's write first: eviction and put are tried
 * again, CACHE_PUT_ROOM_TRIES times at most.  A full disk (cache_disk_full)
 * is not a full map: nothing is evicted for it, the records are refused
 * (CACHE_FULL) and the entries committed stay.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lmdb.h>

#include "lib/cache.h"
#include "lib/cache_int.h"

#define CACHE_PUT_ROOM_TRIES	4	/* eviction + put, when full */

/* cache_es_add - add the counts of b to a */
static void
cache_es_add(struct cache_evict_stats *a, const struct cache_evict_stats *b)
{
	size_t	 i;

	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		a->evicted[i] += b->evicted[i];
}

int
cache_put_room(struct cache *c, const char *domain,
    const struct cache_record *rec, int64_t now, struct cache_evict_stats *es)
{
	struct cache_evict_stats more;
	MDB_val	 k;
	int	 st, try;

	memset(es, 0, sizeof(*es));
	k.mv_data = (void *)(uintptr_t)domain;
	k.mv_size = strlen(domain);
	cache_evict_early(c, &k, now, es);
	st = cache_put(c, domain, rec);
	/* Another resolver's write can take the room an eviction made
	 * before this put gets it (each is its own transaction): try again,
	 * a bounded number of times. */
	for (try = 0; st == CACHE_FULL && !c->batch && !cache_disk_full(c) &&
	    try < CACHE_PUT_ROOM_TRIES; try++) {
		if (cache_evict_key(c, now, &k, CACHE_EVICT_KEEP, &more) !=
		    CACHE_OK)
			return (CACHE_FULL);
		cache_es_add(es, &more);
		st = cache_put(c, domain, rec);
	}
	return (st);
}

int
cache_put_room_many(struct cache *c, const char *const *keys,
    const struct cache_record *const *recs, size_t n, int64_t now,
    struct cache_evict_stats *es, int *st)
{
	struct cache_evict_stats part;
	MDB_val	 k;
	size_t	 i;
	int	 ret;

	memset(es, 0, sizeof(*es));
	for (i = 0; i < n; i++)
		st[i] = CACHE_FULL;	/* not written yet */
	if (n > 1 && n <= CACHE_PUT_MANY && !c->batch && !c->readonly) {
		/* eviction ahead of time near every key, as cache_put_room
		 * does for one: inside the batch nothing can be evicted */
		for (i = 0; i < n; i++) {
			k.mv_data = (void *)(uintptr_t)keys[i];
			k.mv_size = strlen(keys[i]);
			memset(&part, 0, sizeof(part));
			cache_evict_early(c, &k, now, &part);
			cache_es_add(es, &part);
		}
		if (cache_txn_begin(c) == CACHE_OK) {
			for (i = 0; i < n; i++)
				if ((st[i] = cache_put(c, keys[i],
				    recs[i])) == CACHE_FULL)
					break;	/* the batch is over */
			ret = cache_txn_commit(c);
			/* a full map: every valid record again below, one
			 * by one; any other failure is every record's */
			for (i = 0; i < n; i++)
				if (ret == CACHE_FULL && st[i] != CACHE_ERROR)
					st[i] = CACHE_FULL;
				else if (ret != CACHE_OK && st[i] == CACHE_OK)
					st[i] = ret;
		}
	}
	/* one by one, each with cache_put_room's eviction: a single record,
	 * or what a full map refused (a full disk refuses them all alike) */
	for (i = 0; i < n; i++) {
		if (st[i] != CACHE_FULL || (n > 1 && cache_disk_full(c)))
			continue;
		st[i] = cache_put_room(c, keys[i], recs[i], now, &part);
		cache_es_add(es, &part);
	}
	ret = CACHE_OK;
	for (i = 0; i < n; i++)
		if (st[i] != CACHE_OK && ret == CACHE_OK)
			ret = st[i];
	return (ret);
}
