/*
 * cache_evict.c - room in a full cache map
 *
 * Interface: cache_evict (cache.h); for cache_put_room.c (cache_int.h),
 * cache_evict_early (ahead of time, before a put) and cache_evict_key (a
 * pass around the key about to be written).
 *
 * A map at cache.max_size fails every write (MDB_MAP_FULL, after which
 * LMDB allows only an abort of the transaction); LMDB never drops anything
 * by itself.  One eviction pass
 * deletes up to CACHE_EVICT_BATCH entries in this order of classes:
 *   negative  no-policy entries (kind none, DANE entries whose state is 0 =
 *             DANE_NONE "no DANE") and values that do not decode: what a
 *             flood of lookups for random non-existent names creates;
 *   expired   any other entry past expires_at;
 *   other     unexpired testing-mode policies, cached DANE failures (and
 *             a DANE state this build does not know);
 *   keep      unexpired enforce policies, usable DANE and TLSA records
 *             that require TLS (states 1, 2, 4, 5): evicted only when
 *             a walk of the whole cache found nothing else (logged).
 * Negative and expired entries go as a run of neighbouring keys from a
 * rotating cursor: LMDB frees a page only when it empties (or merges below
 * a quarter full), so scattered deletions make no page free, a run does.
 * The others go least recently fetched first.  The walk examines
 * CACHE_EVICT_SCAN entries at least (all of them in a small cache) and
 * stops after such a window once it holds a full batch of non-"keep"
 * victims, so a pass costs about the same in a map of millions.
 *
 * Deleting needs pages too (copy-on-write of every page it touches), and a
 * map that just failed a put has hardly any: so cache_put_room() evicts
 * negative and expired entries AHEAD of time, when fewer than
 * CACHE_EVICT_RESERVE pages are left (beyond the last used page, or on
 * LMDB's free list), and the deletions run in small transactions of
 * CACHE_EVICT_CHUNK neighbouring keys (a page freed by commit N is reusable
 * from commit N + 2 on).  If not even one deletion fits, the map grows by
 * CACHE_EVICT_GROW_PAGES, at most 1/64 of its size (CACHE_EVICT_GROW_MAX
 * pages at least) over the size at open.  Pages freed by evictions are
 * reused by later write transactions within the same map size (the file
 * never shrinks; mdb_env_set_mapsize() cannot go below the last used page).
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "lib/cache.h"
#include "lib/cache_int.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#define CACHE_EVICT_SCAN	16384
#define CACHE_EVICT_NEAR	32	/* neighbours looked at on each side */
#define CACHE_EVICT_CHUNK	8	/* deletions per write transaction */
#define CACHE_EVICT_RESERVE	16	/* pages: evict ahead below this */
#define CACHE_EVICT_IDLE_PUTS	64	/* after an early pass found nothing */
#define CACHE_EVICT_GROW_PAGES	4	/* map growth when eviction is stuck */
#define CACHE_EVICT_GROW_MAX	16	/* pages; or 1/64 of the map */
#define CACHE_DANE_STATE_NONE	0	/* DANE_NONE in policy/dane.h */
#define CACHE_DANE_STATE_FAILURE 3	/* DANE_FAILURE */
#define CACHE_DANE_STATE_MAX	5	/* DANE_STATE_MAX */

struct cache_victim {
	int	 cls;
	int64_t	 when;
	size_t	 len;
	char	 key[CACHE_KEY_MAX];
};

/* cache_evict_class - the class of one entry (enum cache_evict_class) */
static int
cache_evict_class(const MDB_val *v, struct cache_record *rec, int64_t now)
{
	if (cache_record_decode(v->mv_data, v->mv_size, rec) !=
	    CACHE_DECODE_OK) {
		rec->fetched_at = INT64_MIN;	/* first of all */
		return (CACHE_EVICT_NEGATIVE);
	}
	if (rec->kind == CACHE_KIND_NONE ||
	    (rec->kind == CACHE_KIND_DANE &&
	    rec->dane == CACHE_DANE_STATE_NONE))
		return (CACHE_EVICT_NEGATIVE);
	if (!cache_record_fresh(rec, now))
		return (CACHE_EVICT_EXPIRED);
	if ((rec->kind == CACHE_KIND_STS &&
	    rec->sts_mode == CACHE_STS_ENFORCE) ||
	    rec->kind == CACHE_KIND_DANE)
		/* DANE: not none (above), not a failure, a known state */
		return (rec->kind == CACHE_KIND_DANE &&
		    (rec->dane == CACHE_DANE_STATE_FAILURE ||
		    rec->dane > CACHE_DANE_STATE_MAX) ? CACHE_EVICT_OTHER :
		    CACHE_EVICT_KEEP);
	return (CACHE_EVICT_OTHER);
}

/* cache_victim_worse - 1 if a should be evicted after b */
static int
cache_victim_worse(const struct cache_victim *a, const struct cache_victim *b)
{
	if (a->cls != b->cls)
		return (a->cls > b->cls);
	return (a->when > b->when);
}

/* cache_evict_offer - keep the entry if it is among the batch's best
 * victims so far; vic[0..*n) with *n <= max */
static void
cache_evict_offer(struct cache_victim *vic, size_t *n, size_t max, int cls,
    int64_t when, const MDB_val *k)
{
	struct cache_victim *slot;
	size_t		 i, worst;

	if (k->mv_size > CACHE_KEY_MAX)
		return;
	if (*n < max)
		slot = &vic[(*n)++];
	else {
		for (worst = 0, i = 1; i < *n; i++)
			if (cache_victim_worse(&vic[i], &vic[worst]))
				worst = i;
		slot = &vic[worst];
		if (cls > slot->cls || (cls == slot->cls && when >= slot->when))
			return;
	}
	slot->cls = cls;
	slot->when = when;
	slot->len = k->mv_size;
	memcpy(slot->key, k->mv_data, k->mv_size);
}

/* cache_evict_enough - 1 if vic holds a full batch of non-"keep" victims */
static int
cache_evict_enough(const struct cache_victim *vic, size_t n)
{
	size_t	 i;

	if (n < CACHE_EVICT_BATCH - 1)
		return (0);
	for (i = 0; i < n; i++)
		if (vic[i].cls == CACHE_EVICT_KEEP)
			return (0);
	return (1);
}

/* cache_victim_cmp - qsort: key order */
static int
cache_victim_cmp(const void *a, const void *b)
{
	const struct cache_victim *x = a, *y = b;
	int	 d;

	d = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);
	if (d != 0)
		return (d);
	return (x->len < y->len ? -1 : x->len > y->len);
}

/* cache_evict_walk - choose the victims in a read snapshot: the batch's
 * best into vic[0..*n); near (may be NULL): also the best non-"keep" entry
 * among the CACHE_EVICT_NEAR keys on either side of it, which is on (or
 * next to) the page the new key goes to */
static int
cache_evict_walk(struct cache *c, int64_t now, const MDB_val *near,
    int maxcls, struct cache_victim *vic, size_t *n, struct cache_record *rec)
{
	struct cache_victim best;
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_stat	 ms;
	MDB_val		 k, v;
	size_t		 scanned = 0, m;
	int		 rc, cls, i;

	*n = 0;
	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0)
		return (rc);
	if ((rc = mdb_stat(txn, c->dbi, &ms)) != 0 ||
	    (rc = mdb_cursor_open(txn, c->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		return (rc);
	}
	/* from where the last pass stopped, around the key space once */
	if (c->evict_len > 0) {
		k.mv_data = c->evict_at;
		k.mv_size = c->evict_len;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	} else
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	while (rc == 0 && scanned < ms.ms_entries) {
		cls = cache_evict_class(&v, rec, now);
		/* negative and expired entries: a run of neighbouring keys
		 * from the cursor on (it empties whole pages); the others:
		 * the least recently fetched first */
		if (cls <= maxcls)
			cache_evict_offer(vic, n, CACHE_EVICT_BATCH - 1, cls,
			    cls <= CACHE_EVICT_EXPIRED ? (int64_t)scanned :
			    rec->fetched_at, &k);
		scanned++;
		if (scanned % CACHE_EVICT_SCAN == 0 &&
		    (cache_evict_enough(vic, *n) ||
		    maxcls < CACHE_EVICT_KEEP))
			break;	/* enough, or ahead of time: one window */
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		if (rc == MDB_NOTFOUND)
			rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	}
	if (rc == 0 && k.mv_size <= sizeof(c->evict_at)) {
		memcpy(c->evict_at, k.mv_data, k.mv_size);
		c->evict_len = k.mv_size;
	}
	/* the next pass goes on after the last run */
	for (m = 0, i = -1; m < *n; m++)
		if (vic[m].cls <= CACHE_EVICT_EXPIRED &&
		    (i == -1 || vic[m].when > vic[i].when))
			i = (int)m;
	if (i != -1) {
		memcpy(c->evict_at, vic[i].key, vic[i].len);
		c->evict_len = vic[i].len;
	}
	if (rc == MDB_NOTFOUND)
		rc = 0;

	/* the neighbours of the new key */
	if (rc == 0 && near != NULL) {
		m = 0;
		for (i = 0; i < 2 && rc == 0; i++) {
			k = *near;
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
			for (scanned = 0; rc == 0 &&
			    scanned < CACHE_EVICT_NEAR; scanned++) {
				cls = cache_evict_class(&v, rec, now);
				if (cls != CACHE_EVICT_KEEP)
					cache_evict_offer(&best, &m, 1, cls,
					    rec->fetched_at, &k);
				rc = mdb_cursor_get(cur, &k, &v,
				    i == 0 ? MDB_NEXT : MDB_PREV);
			}
			if (rc == MDB_NOTFOUND)
				rc = 0;
		}
		if (m == 1) {
			for (i = 0; (size_t)i < *n; i++)
				if (vic[i].len == best.len && memcmp(
				    vic[i].key, best.key, best.len) == 0)
					break;
			if ((size_t)i == *n)
				vic[(*n)++] = best;
		}
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return (rc);
}

/* cache_evict_chunk - delete vic[0..n) in one write transaction; counts
 * into *es; 0 or the LMDB error (the txn is aborted) */
static int
cache_evict_chunk(struct cache *c, const struct cache_victim *vic, size_t n,
    struct cache_evict_stats *es)
{
	struct cache_evict_stats part;
	MDB_txn		*txn;
	MDB_val		 k;
	size_t		 i;
	int		 rc;

	memset(&part, 0, sizeof(part));
	if ((rc = cache_begin(c, 0, &txn)) != 0)
		return (rc);
	for (i = 0; i < n; i++) {
		k.mv_data = (void *)(uintptr_t)vic[i].key;
		k.mv_size = vic[i].len;
		rc = mdb_del(txn, c->dbi, &k, NULL);
		if (rc == MDB_NOTFOUND)
			continue;
		if (rc != 0) {
			/* after MDB_MAP_FULL the txn can only be aborted */
			mdb_txn_abort(txn);
			return (rc);
		}
		part.evicted[vic[i].cls]++;
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		return (rc);
	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		es->evicted[i] += part.evicted[i];
	return (0);
}

/* cache_evict_grow - when not even one deletion fits: grow the map by
 * CACHE_EVICT_GROW_PAGES, at most CACHE_EVICT_GROW_MAX (or 1/64 of the
 * map, if more) for each writer (cache_set_writers) past the size the
 * handle opened with (the configured max_size, the same for every
 * resolver, so their growths do not add up beyond it); 0, or -1 (at the
 * limit, or LMDB refused) */
static int
cache_evict_grow(struct cache *c)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	size_t		 step, limit;

	if (mdb_env_info(c->env, &info) != 0 ||
	    mdb_env_stat(c->env, &ms) != 0)
		return (-1);
	step = (size_t)CACHE_EVICT_GROW_PAGES * ms.ms_psize;
	limit = c->map_open / 64;
	if (limit < (size_t)CACHE_EVICT_GROW_MAX * ms.ms_psize)
		limit = (size_t)CACHE_EVICT_GROW_MAX * ms.ms_psize;
	/* each writer's commits need their own pages to delete with */
	limit *= c->writers;
	if (info.me_mapsize + step > c->map_open + limit)
		return (-1);
	if (mdb_env_set_mapsize(c->env, info.me_mapsize + step) != 0)
		return (-1);
	log_debug(1, "cache %s: map grown to %zu bytes so that eviction can "
	    "run", c->path, info.me_mapsize + step);
	return (0);
}

/* cache_room_low - 1 if fewer than CACHE_EVICT_RESERVE pages a writer
 * (cache_set_writers: each resolver's commits draw on it) are left:
 * never used past the end of the data, or on LMDB's free list (some of
 * those wait for a reader or the next commit: an estimate) */
static int
cache_room_low(struct cache *c)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_val		 k, v;
	size_t		 pages_max, left, ids;
	int		 rc;

	if (mdb_env_info(c->env, &info) != 0 ||
	    mdb_env_stat(c->env, &ms) != 0 || ms.ms_psize == 0)
		return (0);
	pages_max = info.me_mapsize / ms.ms_psize;
	left = pages_max > info.me_last_pgno + 1 ?
	    pages_max - info.me_last_pgno - 1 : 0;
	if (left >= CACHE_EVICT_RESERVE * c->writers)
		return (0);
	/* the free list (FREE_DBI = 0): values are page-number lists, the
	 * first word their count */
	if (cache_begin(c, MDB_RDONLY, &txn) != 0)
		return (0);
	if (mdb_cursor_open(txn, 0, &cur) != 0) {
		mdb_txn_abort(txn);
		return (0);
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	    rc == 0 && left < CACHE_EVICT_RESERVE * c->writers;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (v.mv_size >= sizeof(ids)) {
			memcpy(&ids, v.mv_data, sizeof(ids));
			left += ids;
		}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return (left < CACHE_EVICT_RESERVE * c->writers);
}

int
cache_evict_key(struct cache *c, int64_t now, const MDB_val *near,
    int maxcls, struct cache_evict_stats *es)
{
	struct cache_victim *vic;
	struct cache_record *rec;
	size_t		 n, i, j, chunk, nkeep = 0;
	int		 rc, others = 0, st = CACHE_OK;

	memset(es, 0, sizeof(*es));
	if (c->readonly || c->batch) {
		log_warnx("cache %s: eviction on a read-only handle or inside "
		    "a batch", c->path);
		return (CACHE_ERROR);
	}
	vic = xcalloc(CACHE_EVICT_BATCH, sizeof(*vic));
	rec = xcalloc(1, sizeof(*rec));
	if ((rc = cache_evict_walk(c, now, near, maxcls, vic, &n,
	    rec)) != 0) {
		st = cache_write_failed(c, rc, "evict walk");
		goto done;
	}
	/* "keep" entries only if nothing else is left */
	for (i = 0; i < n; i++)
		if (vic[i].cls != CACHE_EVICT_KEEP)
			others = 1;
	for (i = j = 0; i < n; i++)
		if (!others || vic[i].cls != CACHE_EVICT_KEEP)
			vic[j++] = vic[i];
	n = j;
	/* Small transactions of neighbouring keys: a full map has few free
	 * pages, and each transaction copies every page it touches (the
	 * copies come back free two commits later).  One key at a time if
	 * even a small chunk does not fit. */
	qsort(vic, n, sizeof(*vic), cache_victim_cmp);
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < CACHE_EVICT_CHUNK ? n - i : CACHE_EVICT_CHUNK;
		rc = cache_evict_chunk(c, vic + i, chunk, es);
		if (rc == MDB_MAP_FULL && chunk > 1) {
			chunk = 1;
			rc = cache_evict_chunk(c, vic + i, chunk, es);
		}
		if (rc == MDB_MAP_FULL && cache_evict_grow(c) == 0)
			rc = cache_evict_chunk(c, vic + i, chunk, es);
		if (rc != 0) {
			st = cache_write_failed(c, rc, "evict");
			break;
		}
	}
	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		if (es->evicted[i] > 0 && st != CACHE_OK)
			st = CACHE_OK;	/* some room was made */
	nkeep = es->evicted[CACHE_EVICT_KEEP];
	if (nkeep > 0)
		log_warnx("cache %s: full of unexpired enforce and DANE "
		    "policies: evicted %zu of them (least recently fetched "
		    "first); raise cache.max_size", c->path, nkeep);
done:
	cache_record_release(rec);
	free(rec);
	free(vic);
	return (st);
}

int
cache_evict(struct cache *c, int64_t now, struct cache_evict_stats *es)
{
	return (cache_evict_key(c, now, NULL, CACHE_EVICT_KEEP, es));
}

void
cache_evict_early(struct cache *c, MDB_val *k, int64_t now,
    struct cache_evict_stats *es)
{
	if (c->evict_idle > 0)
		c->evict_idle--;
	else if (!c->batch && !c->readonly && cache_room_low(c)) {
		if (cache_evict_key(c, now, k, CACHE_EVICT_EXPIRED, es) !=
		    CACHE_OK)
			memset(es, 0, sizeof(*es));
		/* nothing negative or expired in reach: do not walk again
		 * for every put */
		if (es->evicted[CACHE_EVICT_NEGATIVE] +
		    es->evicted[CACHE_EVICT_EXPIRED] == 0)
			c->evict_idle = CACHE_EVICT_IDLE_PUTS;
	}
}
