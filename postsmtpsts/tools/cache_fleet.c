/*
 * cache_fleet.c - postsmtpsts-cache fleet-stats, push and pull
 * (interface: cache_fleet.h)
 *
 * A short-lived client of the fleet tier on its own event loop: connect
 * (at most CACHE_FLEET_CONNECT_MS), run the walk with at most
 * CACHE_FLEET_INFLIGHT operations in flight, print a summary.  Records
 * move only through fleet_facts_take(), the rule the resolver uses, so a
 * push or pull can never downgrade a policy on either side.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/fleet_facts.h"
#include "daemon/stats.h"
#include "tools/cache_fleet.h"

#ifdef HAVE_FLEET
#include <event2/event.h>

#include "lib/fleet.h"

struct cache_fleet {
	const struct config *cf;
	struct event_base *base;
	struct fleet	*f;
	struct cache	*cache;
	int		 inflight;
	size_t		 n_ok, n_unchanged, n_failed, n_taken, n_refused,
			 n_skipped, n_seen;
	char		 cursor[32];
	int		 scan_done;
	int		 scan_pending;
	char		 after[CACHE_KEY_MAX + 1];
	size_t		 afterlen;
	int		 walk_stopped;
};

struct cache_fleet_item {
	struct cache_fleet *cfl;
	char		 key[CACHE_KEY_MAX + 1];
	struct cache_record rec;
};

/* cache_fleet_open - a connected client, or NULL (printed) */
static int
cache_fleet_open(struct cache_fleet *cfl, const struct config *cf)
{
	struct timespec	 t0, t;
	long		 ms;

	memset(cfl, 0, sizeof(*cfl));
	cfl->cf = cf;
	if (!cf->fleet.enabled) {
		log_warnx("the configuration %s has no fleet section with "
		    "servers", cf->file != NULL ? cf->file : "");
		return (-1);
	}
	if ((cfl->base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	cfl->f = fleet_new(cfl->base, &cf->fleet);
	t0 = clock_mono();
	for (;;) {
		if (fleet_up(cfl->f))
			return (0);
		t = clock_mono();
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) /
		    1000000;
		if (ms > CACHE_FLEET_CONNECT_MS)
			break;
		event_base_loop(cfl->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	log_warnx("fleet: no connection to %s", fleet_server(cfl->f));
	return (-1);
}

/* cache_fleet_close - free the client */
static void
cache_fleet_close(struct cache_fleet *cfl)
{
	fleet_free(cfl->f);
	if (cfl->base != NULL)
		event_base_free(cfl->base);
}

/* cache_fleet_drain - run the loop until at most `left` are in flight */
static void
cache_fleet_drain(struct cache_fleet *cfl, int left)
{
	while (cfl->inflight > left || cfl->scan_pending)
		event_base_loop(cfl->base, EVLOOP_ONCE);
}

/* -- push -------------------------------------------------------------- */

static int
cache_fleet_push_merge(void *arg, const struct cache_record *cur,
    struct cache_record *out)
{
	struct cache_fleet_item *it = arg;

	return (fleet_facts_take(it->key, strlen(it->key), cur, &it->rec,
	    &it->cfl->cf->cache, clock_wall(), out, NULL));
}

static void
cache_fleet_push_done(void *arg, enum fleet_status st)
{
	struct cache_fleet_item *it = arg;
	struct cache_fleet *cfl = it->cfl;

	if (st == FLEET_OK)
		cfl->n_ok++;
	else if (st == FLEET_UNCHANGED)
		cfl->n_unchanged++;
	else {
		cfl->n_failed++;
		log_debug(1, "push %s: %s", it->key, fleet_status_name(st));
	}
	cfl->inflight--;
	cache_record_release(&it->rec);
	free(it);
}

/* cache_fleet_push_cb - one local entry */
static int
cache_fleet_push_cb(const char *key, size_t len,
    const struct cache_record *rec, void *arg)
{
	struct cache_fleet *cfl = arg;
	struct cache_fleet_item *it;

	if (len > CACHE_KEY_MAX)
		return (0);
	memcpy(cfl->after, key, len);
	cfl->after[len] = '\0';
	cfl->afterlen = len;
	cfl->n_seen++;
	if (rec == NULL || !cache_record_fresh(rec, clock_wall())) {
		cfl->n_skipped++;
		return (0);
	}
	it = xcalloc(1, sizeof(*it));
	it->cfl = cfl;
	memcpy(it->key, key, len);
	cache_record_copy(&it->rec, rec);
	if (fleet_update(cfl->f, it->key, cache_fleet_push_merge,
	    cache_fleet_push_done, it) == -1) {
		cfl->n_failed++;
		cache_record_release(&it->rec);
		free(it);
		return (0);
	}
	cfl->inflight++;
	if (cfl->inflight >= CACHE_FLEET_INFLIGHT) {
		cfl->walk_stopped = 1;
		return (1);
	}
	return (0);
}

int
cache_fleet_push(const struct config *cf, struct cache *c)
{
	struct cache_fleet cfl;
	char		 after[CACHE_KEY_MAX + 1];
	size_t		 afterlen;
	int		 rc;

	if (cache_fleet_open(&cfl, cf) == -1) {
		cache_fleet_close(&cfl);
		return (1);
	}
	if (!fleet_writable(cfl.f)) {
		log_warnx("fleet: mode is read-only: nothing is pushed");
		cache_fleet_close(&cfl);
		return (1);
	}
	do {
		cfl.walk_stopped = 0;
		afterlen = cfl.afterlen;
		memcpy(after, cfl.after, afterlen + 1);
		rc = cache_iterate_from(c, afterlen > 0 ? after : NULL,
		    afterlen, cache_fleet_push_cb, &cfl);
		cache_fleet_drain(&cfl, CACHE_FLEET_INFLIGHT / 2);
	} while (rc == CACHE_OK && cfl.walk_stopped);
	cache_fleet_drain(&cfl, 0);
	printf("push: %zu entries, %zu written, %zu unchanged (the fleet's "
	    "is as fresh or the rule kept it), %zu not fresh, %zu failed\n",
	    cfl.n_seen, cfl.n_ok, cfl.n_unchanged, cfl.n_skipped,
	    cfl.n_failed);
	cache_fleet_close(&cfl);
	return (rc == CACHE_OK && cfl.n_failed == 0 ? 0 : 1);
}

/* -- pull -------------------------------------------------------------- */

static void
cache_fleet_pull_got(void *arg, enum fleet_status st,
    const struct cache_record *rec)
{
	struct cache_fleet_item *it = arg;
	struct cache_fleet *cfl = it->cfl;
	struct cache_record have = { 0 }, out = { 0 };
	enum fleet_facts_why why;
	int		 held;

	cfl->inflight--;
	if (st == FLEET_HIT) {
		held = cache_get(cfl->cache, it->key, strlen(it->key),
		    &have) == CACHE_HIT;
		if (fleet_facts_take(it->key, strlen(it->key),
		    held ? &have : NULL, rec, &cfl->cf->cache,
		    clock_wall(), &out, &why)) {
			if (cache_put(cfl->cache, it->key, &out) == CACHE_OK)
				cfl->n_taken++;
			else
				cfl->n_failed++;
		} else {
			cfl->n_unchanged++;
			log_debug(1, "pull %s: %s", it->key,
			    fleet_facts_why_name(why));
		}
	} else if (st == FLEET_REFUSED)
		cfl->n_refused++;
	else if (st != FLEET_MISS)
		cfl->n_failed++;
	cache_record_release(&have);
	cache_record_release(&out);
	cache_record_release(&it->rec);
	free(it);
}

static void
cache_fleet_scan_cb(void *arg, enum fleet_status st, const char *cursor,
    const char *const *keys, size_t n)
{
	struct cache_fleet *cfl = arg;
	struct cache_fleet_item *it;
	size_t		 i;

	cfl->scan_pending = 0;
	if (st != FLEET_OK) {
		cfl->n_failed++;
		cfl->scan_done = 1;
		return;
	}
	snprintf(cfl->cursor, sizeof(cfl->cursor), "%s", cursor);
	cfl->scan_done = strcmp(cursor, "0") == 0;
	for (i = 0; i < n; i++) {
		cfl->n_seen++;
		if (cfl->cache == NULL)
			continue;	/* fleet-stats: count only */
		it = xcalloc(1, sizeof(*it));
		it->cfl = cfl;
		snprintf(it->key, sizeof(it->key), "%s", keys[i]);
		if (fleet_get(cfl->f, it->key, cache_fleet_pull_got, it) ==
		    -1) {
			cfl->n_failed++;
			cache_record_release(&it->rec);
			free(it);
			continue;
		}
		cfl->inflight++;
	}
}

/* cache_fleet_walk - SCAN the whole prefix, pulling when cfl->cache */
static int
cache_fleet_walk(struct cache_fleet *cfl)
{
	snprintf(cfl->cursor, sizeof(cfl->cursor), "0");
	do {
		if (fleet_scan(cfl->f, cfl->cursor, cache_fleet_scan_cb,
		    cfl) == -1)
			return (-1);
		cfl->scan_pending = 1;
		cache_fleet_drain(cfl, CACHE_FLEET_INFLIGHT);
	} while (!cfl->scan_done);
	cache_fleet_drain(cfl, 0);
	return (0);
}

int
cache_fleet_pull(const struct config *cf, struct cache *c)
{
	struct cache_fleet cfl;
	int		 rc;

	if (cache_fleet_open(&cfl, cf) == -1) {
		cache_fleet_close(&cfl);
		return (1);
	}
	cfl.cache = c;
	rc = cache_fleet_walk(&cfl);
	printf("pull: %zu fleet records, %zu taken, %zu kept local (ours "
	    "as fresh, or the rule refused), %zu refused (MAC, format), "
	    "%zu failed\n", cfl.n_seen, cfl.n_taken, cfl.n_unchanged,
	    cfl.n_refused, cfl.n_failed);
	cache_fleet_close(&cfl);
	return (rc == 0 && cfl.n_failed == 0 ? 0 : 1);
}

/* -- fleet-stats ------------------------------------------------------- */

static void
cache_fleet_ping_cb(void *arg, enum fleet_status st, const char *text,
    size_t len)
{
	int		*done = arg;

	(void)st;
	(void)text;
	(void)len;
	*done = 1;
}

int
cache_fleet_stats(const struct config *cf)
{
	struct cache_fleet cfl;
	struct stats_snapshot s;
	struct buf	 out;
	struct timespec	 t0, t1;
	const struct config_fleet_server *sv;
	const char	*ping[1] = { "PING" }, *what;
	char		 path[CONFIG_MAX_PATH + 16], err[512], *line, *nl;
	int		 done = 0, rc = 0;
	size_t		 i, n;

	sv = config_fleet_list(&cf->fleet, &n, &what);
	printf("%s:", what);
	for (i = 0; i < n; i++)
		printf(" %s", sv[i].spec);
	if (cf->fleet.master_name != NULL)
		printf("\nmaster_name: %s", cf->fleet.master_name);
	printf("\nmode: %s\nprefix: %s\nrecords: %s\n",
	    cf->fleet.mode == CONFIG_FLEET_READ_ONLY ? "read-only" :
	    "read-write", cf->fleet.prefix != NULL ? cf->fleet.prefix : "",
	    cf->fleet.key != NULL ? "signed (key_file)" : "unsigned");
	if (cache_fleet_open(&cfl, cf) == 0) {
		t0 = clock_mono();
		if (fleet_command(cfl.f, 1, ping, cache_fleet_ping_cb,
		    &done) == 0)
			while (!done)
				event_base_loop(cfl.base, EVLOOP_ONCE);
		t1 = clock_mono();
		printf("connected: %s, round trip %.3f ms\n",
		    fleet_server(cfl.f), (double)(t1.tv_sec - t0.tv_sec) *
		    1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		if (cache_fleet_walk(&cfl) == 0)
			printf("fleet records: %zu\n", cfl.n_seen);
		else
			rc = 1;
	} else
		rc = 1;
	cache_fleet_close(&cfl);
	/* this host's view: the daemon's counters, fleet family only */
	if (snprintf(path, sizeof(path), "%s/%s", cf->runtime_dir != NULL ?
	    cf->runtime_dir : CONFIG_DEFAULT_RUNTIME_DIR, STATS_FILE) >=
	    (int)sizeof(path) || stats_read(path, &s, err, sizeof(err)) ==
	    -1) {
		printf("daemon counters: none (%s)\n", path);
		return (rc);
	}
	buf_init(&out, STATS_MAX_OUTPUT);
	if (stats_render(&s, &out) == 0 && buf_append_char(&out, '\0') == 0) {
		printf("daemon counters: %s\n", path);
		for (line = (char *)out.data; line != NULL && *line != '\0';
		    line = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (strncmp(line, "postsmtpsts_fleet_", 18) == 0)
				printf("%.*s\n", nl != NULL ?
				    (int)(nl - line) : (int)strlen(line), line);
		}
	}
	buf_free(&out);
	return (rc);
}

#else /* !HAVE_FLEET */

static int
cache_fleet_none(void)
{
	log_warnx("built without the fleet tier (configure --with-fleet, "
	    "libhiredis-dev)");
	return (1);
}

int
cache_fleet_stats(const struct config *cf)
{
	(void)cf;
	return (cache_fleet_none());
}

int
cache_fleet_push(const struct config *cf, struct cache *c)
{
	(void)cf;
	(void)c;
	return (cache_fleet_none());
}

int
cache_fleet_pull(const struct config *cf, struct cache *c)
{
	(void)cf;
	(void)c;
	return (cache_fleet_none());
}
#endif
