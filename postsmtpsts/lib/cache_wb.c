/*
 * cache_wb.c - write-behind: records held for one commit (cache_wb.h)
 *
 * A small array searched linearly: at most CACHE_WB_MAX records, each
 * looked up by key, newest copy wins.  The records own their pattern
 * blocks (cache_record_copy), released when the array is flushed or
 * dropped, so memory follows what is held, not what was ever held.
 */
#include "autoconf.h"

#include <string.h>

#include "lib/cache_wb.h"

void
cache_wb_init(struct cache_wb *wb)
{
	size_t	 i;

	wb->n = 0;
	for (i = 0; i < CACHE_WB_MAX; i++) {
		wb->ent[i].key[0] = '\0';
		cache_record_init(&wb->ent[i].rec);
	}
}

void
cache_wb_release(struct cache_wb *wb)
{
	size_t	 i;

	for (i = 0; i < CACHE_WB_MAX; i++)
		cache_record_release(&wb->ent[i].rec);
	wb->n = 0;
}

/* cache_wb_find - the index held for key, or wb->n */
static size_t
cache_wb_find(const struct cache_wb *wb, const char *key, size_t len)
{
	size_t	 i;

	for (i = 0; i < wb->n; i++)
		if (strncmp(wb->ent[i].key, key, len) == 0 &&
		    wb->ent[i].key[len] == '\0')
			return (i);
	return (wb->n);
}

size_t
cache_wb_put(struct cache_wb *wb, const char *key,
    const struct cache_record *rec)
{
	size_t	 len, i;

	len = strnlen(key, CACHE_KEY_MAX + 1);
	if (len > CACHE_KEY_MAX)
		return (0);
	if ((i = cache_wb_find(wb, key, len)) == wb->n) {
		if (wb->n == CACHE_WB_MAX)
			return (0);
		memcpy(wb->ent[i].key, key, len + 1);
		wb->n++;
	}
	cache_record_copy(&wb->ent[i].rec, rec);
	wb->ent[i].full = 0;	/* a new record gets its own tries */
	return (wb->n);

}

int
cache_wb_get(const struct cache_wb *wb, const char *key, size_t len,
    struct cache_record *out)
{
	size_t	 i;

	if (len > CACHE_KEY_MAX || (i = cache_wb_find(wb, key, len)) ==
	    wb->n)
		return (0);
	cache_record_copy(out, &wb->ent[i].rec);
	return (1);
}

int
cache_wb_read(const struct cache_wb *wb, struct cache *c, const char *key,
    size_t len, struct cache_record *out)
{
	if (wb != NULL && cache_wb_get(wb, key, len, out))
		return (CACHE_HIT);
	return (cache_get(c, key, len, out));
}

size_t
cache_wb_count(const struct cache_wb *wb)
{
	return (wb->n);
}

/* cache_wb_flush_ent - write what is held; keep: hold the records a full
 * map refused for the first time (compacted to the front) */
static int
cache_wb_flush_ent(struct cache_wb *wb, struct cache *c, int64_t now,
    struct cache_evict_stats *es, cache_wb_done_fn *done, void *arg,
    int keep)
{
	const char	*keys[CACHE_WB_MAX];
	const struct cache_record *recs[CACHE_WB_MAX];
	int		 st[CACHE_WB_MAX], ret;
	size_t		 i, n = wb->n, kept = 0;

	memset(es, 0, sizeof(*es));
	if (n == 0)
		return (CACHE_OK);
	for (i = 0; i < n; i++) {
		keys[i] = wb->ent[i].key;
		recs[i] = &wb->ent[i].rec;
	}
	(void)cache_put_room_many(c, keys, recs, n, now, es, st);
	ret = CACHE_OK;		/* the first final failure, if any */
	for (i = 0; i < n; i++) {
		if (keep && st[i] == CACHE_FULL && !wb->ent[i].full) {
			if (kept != i) {
				/* move the entry down: key, record, flag */
				memcpy(wb->ent[kept].key, wb->ent[i].key,
				    sizeof(wb->ent[kept].key));
				cache_record_release(&wb->ent[kept].rec);
				wb->ent[kept].rec = wb->ent[i].rec;
				memset(&wb->ent[i].rec, 0,
				    sizeof(wb->ent[i].rec));
				wb->ent[i].key[0] = '\0';
			}
			wb->ent[kept].full = 1;
			kept++;
			continue;
		}
		if (st[i] != CACHE_OK && ret == CACHE_OK)
			ret = st[i];
		if (done != NULL)
			done(arg, wb->ent[i].key, st[i]);
		cache_record_release(&wb->ent[i].rec);
		wb->ent[i].key[0] = '\0';
		wb->ent[i].full = 0;
	}
	wb->n = kept;
	return (ret);

}

int
cache_wb_flush(struct cache_wb *wb, struct cache *c, int64_t now,
    struct cache_evict_stats *es, cache_wb_done_fn *done, void *arg)
{
	return (cache_wb_flush_ent(wb, c, now, es, done, arg, 0));
}

int
cache_wb_flush_keep(struct cache_wb *wb, struct cache *c, int64_t now,
    struct cache_evict_stats *es, cache_wb_done_fn *done, void *arg)
{
	return (cache_wb_flush_ent(wb, c, now, es, done, arg, 1));
}
