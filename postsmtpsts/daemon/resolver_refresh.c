/*
 * resolver_refresh.c - the resolver's proactive refresh walk
 *
 * Interface (resolver_int.h): resolver_refresh_start() arms the walk when
 * the resolver has a cache; resolver_refresh_stop() frees it.  The walk
 * starts jobs (resolver_job.c) and deletes from the cache between commits
 * (resolver_store.c).
 *
 * Proactive refresh (RFC 8461 §5.1: "senders SHOULD ... proactively
 * refresh"): every cache.refresh_interval seconds a pass walks the whole
 * cache in slices of RESOLVER_REFRESH_SLICE entries, RESOLVER_REFRESH_PAUSE_MS
 * apart (a cursor remembers where the last slice stopped, so a million
 * entries never block the loop for long), and starts a job without waiters
 * for each STS entry past its next_refresh (a DANE entry: a DANE-only job).
 * Such a job fetches without the known id, so a successful fetch extends
 * max_age; a failure keeps the policy and backs off (facts_merge).  At most
 * cache.refresh_concurrency refreshes run at once, leaving the other job slots
 * to requests; the walk stops at the limit and resumes there after
 * RESOLVER_REFRESH_BUSY_MS.
 * Entries expired for more than RESOLVER_EXPIRED_GRACE seconds are
 * deleted (negative entries included: they simply expire).  Each resolver
 * walks the whole cache and acts only on its own shard's domains
 * (ipc_shard), so no domain is refreshed twice however many resolvers run;
 * a walk reads the other shards' keys (cheap, in the map) to skip them.
 */
#include "autoconf.h"

#include <sys/time.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "policy/facts.h"
#include "daemon/resolver_int.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"

/* resolver_walk_cb - one cache entry seen by the refresh walk */
static int
resolver_walk_cb(const char *key, size_t klen,
    const struct cache_record *rec, void *arg)
{
	struct resolver	*r = arg;
	struct job	*j;
	const char	*domain;
	size_t		 len;
	int64_t		 now = clock_wall();
	int		 dane, due;

	domain = cache_key_domain(key, klen, &len, &dane);
	if (ipc_shard(domain, len, r->cf->resolvers) != r->shard) {
		/* another resolver's domain: it refreshes and deletes it */
		memcpy(r->cursor, key, klen);
		r->cursor_len = klen;
		return (++r->walked >= RESOLVER_REFRESH_SLICE);
	}
	due = rec != NULL && (dane ? rec->kind == CACHE_KIND_DANE &&
	    r->cf->dane : rec->kind == CACHE_KIND_STS) &&
	    facts_refresh_due(rec, now);
	if (due && len > 0 && len <= DOMAIN_MAX_LEN &&
	    resolver_job_find(r, domain, len) == NULL) {
		if (r->refreshing >= r->cf->cache.refresh_concurrency ||
		    r->running >= r->cf->max_resolutions) {
			r->walk_full = 1;
			log_debug(1, "refresh walk: %d refreshes, %d jobs "
			    "running: resuming at %s later", r->refreshing,
			    r->running, key);
			return (1);	/* resume here next tick */
		}
		if (dane) {
			j = resolver_job_new(r, domain, len, NULL);
			cache_record_copy(&j->old_dane, rec);
			j->have_old_dane = 1;
			j->want_dane = 1;
		} else {
			j = resolver_job_new(r, domain, len, rec);
			j->want_sts = 1;
		}
		j->refresh = 1;
		r->refreshing++;
		log_debug(1, "key=%s refresh=start next_refresh=%lld "
		    "expires_at=%lld", key, (long long)rec->next_refresh,
		    (long long)rec->expires_at);
		r->pass_started++;
		stats_inc(STATS_REFRESHES);
		resolver_job_run(j);	/* a slot is free: it starts */
	} else if (rec != NULL && now - rec->expires_at >
	    RESOLVER_EXPIRED_GRACE && resolver_job_find(r, domain, len) ==
	    NULL) {
		memcpy(r->dead[r->ndead++], key, klen + 1);
		/* an STS policy nobody asked for since its expiry: its
		 * expired event (again, should the deletion fail) */
		if (!dane)
			resolver_history_deleted(r, r->dead[r->ndead - 1], rec);
	}
	memcpy(r->cursor, key, klen);
	r->cursor_len = klen;
	return (++r->walked >= RESOLVER_REFRESH_SLICE);
}

/* resolver_refresh_arm - schedule the next slice in ms milliseconds */
static void
resolver_refresh_arm(struct resolver *r, long ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	event_add(r->ev_refresh, &tv);
}

/* resolver_refresh_cb - walk the next slice of the cache */
static void
resolver_refresh_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct timespec	 t1;
	int		 i, ndel = 0, done = 0;

	(void)fd;
	(void)what;
	/* the walk and its deletions see the map: commit what is held */
	resolver_store_flush(r);
	if (r->cursor_len == 0) {
		r->pass_entries = 0;
		r->pass_started = 0;
		r->pass_t0 = clock_mono();
	}
	r->walked = 0;
	r->walk_full = 0;
	r->ndead = 0;
	if (cache_iterate_from(r->cache, r->cursor_len > 0 ? r->cursor : NULL,
	    r->cursor_len, resolver_walk_cb, r) != CACHE_OK ||
	    (!r->walk_full && r->walked < RESOLVER_REFRESH_SLICE))
		done = 1;	/* reached the end (or failed): pass over */
	r->pass_entries += (size_t)r->walked;
	if (r->ndead > 0 && cache_txn_begin(r->cache) == CACHE_OK) {
		for (i = 0; i < r->ndead; i++)
			if (cache_del(r->cache, r->dead[i]) == CACHE_OK)
				ndel++;
		if (cache_txn_commit(r->cache) != CACHE_OK)
			ndel = 0;
		stats_add(STATS_CACHE_DELETED, (uint64_t)ndel);
		log_info("cache_expired_deleted=%d grace=%d", ndel,
		    RESOLVER_EXPIRED_GRACE);
	}
	if (r->walk_full)
		resolver_refresh_arm(r, RESOLVER_REFRESH_BUSY_MS);
	else if (!done)
		resolver_refresh_arm(r, RESOLVER_REFRESH_PAUSE_MS);
	else {
		t1 = clock_mono();
		log_debug(1, "refresh pass: entries=%zu refreshes=%zu "
		    "elapsed_ms=%lld", r->pass_entries, r->pass_started,
		    (long long)(t1.tv_sec - r->pass_t0.tv_sec) * 1000 +
		    (t1.tv_nsec - r->pass_t0.tv_nsec) / 1000000);
		r->cursor_len = 0;
		/* the pass read every page of the cache through the map */
		resolver_store_unmap(r);
		resolver_refresh_arm(r, (long)r->cf->cache.refresh_interval *
		    1000);
	}
}

void
resolver_refresh_start(struct resolver *r)
{
	if (r->cache == NULL)
		return;
	r->dead = xcalloc(RESOLVER_REFRESH_SLICE, sizeof(*r->dead));
	r->ev_refresh = evtimer_new(r->base, resolver_refresh_cb, r);
	resolver_refresh_arm(r, (long)r->cf->cache.refresh_interval * 1000);
}

void
resolver_refresh_stop(struct resolver *r)
{
	if (r->ev_refresh != NULL)
		event_free(r->ev_refresh);
	free(r->dead);
}
