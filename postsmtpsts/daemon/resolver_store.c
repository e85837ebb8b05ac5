/*
 * resolver_store.c - the resolver's cache: reads, write-behind commits
 *
 * Interface (resolver_int.h): resolver_store_start() and _stop() open and
 * close the cache (resolver 0 opens it as the writer that repairs damage,
 * the other resolvers as more writers: lib/cache.h cache_open_cowriter); resolver_store_cached()
 * and _fresh() read a domain's MTA-STS or DANE record;
 * resolver_store_many() writes records; resolver_store_flush() commits
 * what is held; resolver_store_fleet() is the fleet's way in (rfleet.h).
 *
 * The records a job learned are written after its replies went out, several
 * jobs' in one commit (write-behind): they are held in a cache_wb array
 * (lib/cache_wb.h) and committed at once if the last commit is
 * RESOLVER_WB_GAP_MS old, else when the gap is over or the array is full;
 * also before each refresh walk (it reads the map) and at exit.  Every
 * read here looks at the array first, so nothing is learned twice
 * meanwhile; what a crash can lose is what was learned in the last gap.
 *
 * A failed write is counted and logged at most once a minute: answers are
 * still served, not stored.  Now and then (RESOLVER_UNMAP_WRITES writes,
 * and after each refresh pass) the resolver's mappings of the cache
 * file's pages are dropped, so that its RSS does not grow with the
 * domains ever written.  For the same reason, once RESOLVER_TRIM_IDLE_MS
 * pass without a job ending and none runs, the heap's free pages go back
 * to the system (xtrim: malloc_trim): a cold burst leaves most of a
 * resolver's heap free, in holes glibc does not return by itself.
 */
#include "autoconf.h"

#include <sys/time.h>

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/cache_wb.h"
#include "lib/config.h"
#include "lib/log.h"
#include "daemon/resolver_int.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"

#define RESOLVER_WB_GAP_MS	20	/* cache commits at most this often */
/* Resolvers other than 0: tries to open the cache resolver 0 repairs */
#define RESOLVER_COWRITER_TRIES	100
#define RESOLVER_COWRITER_PAUSE_MS 50
#define RESOLVER_TRIM_IDLE_MS	1000	/* no job ended for this long */
#define RESOLVER_UNMAP_WRITES	512	/* cache writes between two
					   cache_unmap_pages() */

int
resolver_store_cached(struct resolver *r, const char *domain, size_t len,
    int dane, struct cache_record *rec)
{
	char	 key[CACHE_KEY_MAX + 1];

	if (r->cache == NULL)
		return (0);
	if (dane) {
		len = cache_dane_key(domain, len, key);
		domain = key;
	}
	/* a record learned and not yet committed is the newest */
	if (cache_wb_read(&r->wb, r->cache, domain, len, rec) != CACHE_HIT)
		return (0);
	/* a record of the other part under a key is damage: ignore it */
	return (dane ? rec->kind == CACHE_KIND_DANE :
	    rec->kind != CACHE_KIND_DANE);
}

int
resolver_store_fresh(struct resolver *r, const char *domain, size_t len,
    int dane)
{
	return (resolver_store_cached(r, domain, len, dane, &r->scratch) &&
	    cache_record_fresh(&r->scratch, clock_wall()));
}

/*
 * resolver_wrote - n more cache writes: now and then, drop the resolver's
 * mappings of the cache file's pages (cache_unmap_pages): each write reads
 * its path of the B-tree through the map, so the resolver's RSS would
 * otherwise grow with the number of domains ever written (bench/peer -M:
 * +3.5 MiB of file pages from 1,000 to 10,000 domains), although those
 * pages are the shared page cache the workers read, not its own memory
 */
static void
resolver_wrote(struct resolver *r, int n)
{
	r->writes += n;
	if (r->writes < RESOLVER_UNMAP_WRITES)
		return;
	r->writes = 0;
	(void)cache_unmap_pages(r->cache);
}

/* resolver_evicted - count what a write's eviction removed */
static void
resolver_evicted(const struct cache_evict_stats *es)
{
	int	 i;

	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		stats_add((enum stats_id)(STATS_CACHE_EVICTED + i),
		    (uint64_t)es->evicted[i]);
}

/* resolver_stored - how the write of a key went (cache_wb_done_fn): log a
 * failed write at most once a minute */
static void
resolver_stored(void *arg, const char *key, int st)
{
	struct resolver	*r = arg;
	time_t		 now;

	if (st == CACHE_OK)
		return;
	stats_inc(STATS_CACHE_WRITE_ERRORS);
	now = clock_wall();
	if (now - r->last_write_error >= 60) {
		log_warnx("cache write for %s failed (%s%s): answers still "
		    "served, not stored; further errors suppressed for a "
		    "minute", key, cache_last_error(r->cache),
		    cache_disk_full(r->cache) ? ": the disk, nothing evicted" :
		    "");
		r->last_write_error = now;
	}
}

/*
 * resolver_flush - commit what the write-behind array holds; a record a
 * full map refuses for the first time is held and tried again after the
 * gap (cache_wb_flush_keep), unless last (at exit: every refusal is final)
 */
static void
resolver_flush(struct resolver *r, int last)
{
	struct cache_evict_stats es;
	struct timeval	 gap = { 0, RESOLVER_WB_GAP_MS * 1000 };
	size_t		 n;

	if (r->ev_wb != NULL)
		event_del(r->ev_wb);
	if (r->cache == NULL || (n = cache_wb_count(&r->wb)) == 0)
		return;
	if (last)
		(void)cache_wb_flush(&r->wb, r->cache, clock_wall(), &es,
		    resolver_stored, r);
	else
		(void)cache_wb_flush_keep(&r->wb, r->cache, clock_wall(), &es,
		    resolver_stored, r);
	resolver_evicted(&es);
	r->wb_last = clock_mono();
	resolver_wrote(r, (int)(n - cache_wb_count(&r->wb)));
	if (cache_wb_count(&r->wb) > 0 && r->ev_wb != NULL)
		evtimer_add(r->ev_wb, &gap);
}

void
resolver_store_flush(struct resolver *r)
{
	resolver_flush(r, 0);
}

/* resolver_trim_cb - no job ended for RESOLVER_TRIM_IDLE_MS */
static void
resolver_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolver	*r = arg;

	(void)fd;
	(void)what;
	if (r->running > 0 || r->nqueued > 0)
		return;		/* the next job's end arms it again */
	xtrim();
}

void
resolver_store_idle_trim(struct resolver *r)
{
	struct timeval	 tv = { RESOLVER_TRIM_IDLE_MS / 1000,
			    (RESOLVER_TRIM_IDLE_MS % 1000) * 1000 };

	if (r->ev_trim != NULL)
		event_add(r->ev_trim, &tv);	/* pushed back at each end */
}

/* resolver_wb_cb - the gap since the last commit is over */
static void
resolver_wb_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	resolver_store_flush(arg);
}

/*
 * resolver_store_many - write n records.  They are held in r->wb and
 * committed together: at once if the last commit is RESOLVER_WB_GAP_MS
 * old (a lone lookup is written as soon as it is answered), else when the
 * gap is over or CACHE_WB_MAX records are held.  Under load that is one
 * fdatasync per gap instead of one per domain; what a crash can lose is
 * what was learned in the last gap, and resolver_store_cached() reads
 * r->wb first, so nothing is learned twice meanwhile.
 */
void
resolver_store_many(struct resolver *r, const char *const *keys,
    const struct cache_record *const *recs, size_t n)
{
	struct timespec	 t;
	struct timeval	 tv;
	long		 ms;
	size_t		 i;

	if (r->cache == NULL || n == 0)
		return;
	/* the array is committed as soon as it is full, so it has room for
	 * every put: one fails only for a key over CACHE_KEY_MAX */
	for (i = 0; i < n; i++)
		if (cache_wb_put(&r->wb, keys[i], recs[i]) == 0)
			resolver_stored(r, keys[i], CACHE_ERROR);
		else if (cache_wb_count(&r->wb) == CACHE_WB_MAX)
			resolver_store_flush(r);
	if (cache_wb_count(&r->wb) == 0 || evtimer_pending(r->ev_wb, NULL))
		return;		/* nothing held, or the gap's commit is due */
	t = clock_mono();
	ms = (long)(t.tv_sec - r->wb_last.tv_sec) * 1000 +
	    (t.tv_nsec - r->wb_last.tv_nsec) / 1000000;
	if (ms < 0 || ms >= RESOLVER_WB_GAP_MS)
		resolver_store_flush(r);
	else {
		tv.tv_sec = 0;
		tv.tv_usec = (RESOLVER_WB_GAP_MS - ms) * 1000;
		evtimer_add(r->ev_wb, &tv);
	}
}

void
resolver_store_fleet(void *arg, const char *key,
    const struct cache_record *rec)
{
	resolver_store_many(arg, &key, &rec, 1);
}

void
resolver_store_unmap(struct resolver *r)
{
	r->writes = 0;
	(void)cache_unmap_pages(r->cache);
}

void
resolver_store_start(struct resolver *r)
{
	const struct config *cf = r->cf;
	char		 err[512], aside[512];

	struct timespec	 pause = { 0, RESOLVER_COWRITER_PAUSE_MS * 1000000L };
	int		 i;

	cache_wb_init(&r->wb);
	if (cf->cache.enabled && r->shard == 0) {
		r->cache = cache_open_recover(cf->cache.path,
		    cf->cache.max_size, aside, sizeof(aside), err,
		    sizeof(err));
		if (aside[0] != '\0')
			stats_inc(STATS_CACHE_CORRUPT);
		if (r->cache == NULL)
			log_warnx("resolver: cache disabled: %s", err);
	} else if (cf->cache.enabled) {
		/* Resolver 0 repairs a damaged cache; the others wait for
		 * it, a bounded while, before they serve without one. */
		for (i = 0; (r->cache = cache_open_cowriter(cf->cache.path,
		    cf->cache.max_size, err, sizeof(err))) == NULL &&
		    i < RESOLVER_COWRITER_TRIES; i++)
			(void)nanosleep(&pause, NULL);
		if (r->cache == NULL)
			log_warnx("resolver %d: cache disabled: %s", r->shard,
			    err);
	}
	cache_set_writers(r->cache, cf->resolvers);
	if ((r->ev_wb = evtimer_new(r->base, resolver_wb_cb, r)) == NULL ||
	    (r->ev_trim = evtimer_new(r->base, resolver_trim_cb, r)) == NULL)
		fatalx("resolver: out of memory for the cache timers");
}

void
resolver_store_stop(struct resolver *r, int keep)
{
	/* what the jobs learned last, the cancelled ones' too; a record a
	 * full map refused once gets its second try now */
	if (keep) {
		resolver_flush(r, 0);
		resolver_flush(r, 1);
	}
	cache_wb_release(&r->wb);

	event_free(r->ev_wb);
	event_free(r->ev_trim);
	r->ev_trim = NULL;

	if (r->cache != NULL)
		cache_close(r->cache);
}
