/*
 * worker_answer.c - the worker's answer to one socketmap request
 *
 * Interface (worker_int.h): worker_answer() decides a well-formed request
 * "name key": a reply now, or ask the resolver, and whether a TXT
 * re-check is due; the connection (worker_conn.c) acts on the verdict.
 * worker_answer_facts() turns a domain's records (MTA-STS and DANE facts,
 * from the cache or the resolver) into the reply for a map;
 * worker_answer_unknown() is the reply when nothing is known.  This file
 * calls into neither worker_conn.c nor worker_rclient.c: both call it.
 *
 * Order of precedence: the map must exist (PERM otherwise: Postfix asked a
 * table we do not serve, a configuration error); a key that is not a plain
 * domain gets NOTFOUND (RFC 8461 §3.4: never a parent's policy); an
 * operator's pinned policy wins over anything discovered, unless it was a
 * timed exception whose end has passed (pins_answer says PINS_LAPSED: the
 * lookup goes on as if unpinned, and the lapse is logged once per domain
 * section in this worker process, w->pin_lapsed); then a fresh
 * cache entry, the hot path (LMDB reads: no lock, no allocation; the DANE
 * facts of RFC 7672 are a second entry, read only for a map with
 * dane = yes); then the resolver (WORKER_ANSWER_ASK: worker_rclient.c),
 * whose deadline answer (RFC 8461 §5: fail open by default) is also the
 * answer when the resolver knows nothing.  A cache answer given within
 * the same second and cache version is repeated from the answer memo
 * before any of this (below, "The answer memo": it holds only what the
 * cache answered, so the order above is kept).
 *
 * A cache answer from an STS record whose TXT id check is due
 * (facts_txt_due: the TXT TTL has passed) is sent at once, and then the
 * resolver is asked to re-check the id in the background (the verdict's
 * txtcheck: worker_rclient_txtcheck).
 *
 * TLSRPT (RFC 8460): a tlsrpt map's answer carries the policy's
 * attributes for Postfix's reports unless they would pass Postfix's
 * SOCKMAP_MAX_REPLY bytes; then the policy goes without them, with one
 * warning per domain and fetched record (a memo of WORKER_DROPPED_MEMO
 * domains in struct worker).
 */
#include "autoconf.h"

#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "lib/preload_store.h"
#include "lib/sockmap.h"
#include "lib/xmalloc.h"
#include "daemon/stats.h"
#include "daemon/worker_int.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "policy/decide.h"

/*
 * worker_tlsrpt_dropped - a tlsrpt map's answer went without its TLSRPT
 * attributes (the policy is too large for them within Postfix's 100000
 * bytes): warn once per domain and fetched record in this worker, not at
 * every lookup (a small memo by domain hash; a collision only repeats a
 * warning)
 */
static void
worker_tlsrpt_dropped(struct worker *w, const char *domain,
    const struct cache_record *rec, const struct config_map *map)
{
	uint32_t	 h = hash_fnv1a(domain, strlen(domain));
	size_t		 i = h % WORKER_DROPPED_MEMO;

	if (w->dropped[i].h == h && w->dropped[i].fetched_at ==
	    rec->fetched_at) {
		log_debug(1, "domain=%s map=%s tlsrpt=dropped", domain,
		    map->name);
		return;
	}
	w->dropped[i].h = h;
	w->dropped[i].fetched_at = rec->fetched_at;
	log_warnx("domain=%s map=%s tlsrpt=dropped nmx=%u: the TLSRPT "
	    "attributes of this policy would not fit Postfix's %d-byte "
	    "socketmap reply: answering the policy without them (no TLSRPT "
	    "report for this domain)", domain, map->name, (unsigned)rec->nmx,
	    SOCKMAP_MAX_REPLY);
}

/*
 * worker_preload - the unexpired preload entry of a domain without a
 * discovered policy (issue 38), into *p; NULL if none
 *
 * One read of the preload store (a B-tree miss for a domain no list
 * names); the store is opened read-only when it exists, tried at most
 * once a second until then.  An expired list's entries answer nothing:
 * warned once per list expiry in this worker, counted.
 */
static const struct decide_preload *
worker_preload(struct worker *w, const char *domain,
    struct decide_preload *p)
{
	struct preload_store_hit hit;
	char		 err[512];
	time_t		 now = clock_wall();

	if (w->preload == NULL) {
		if (now == w->preload_retry)
			return (NULL);
		w->preload_retry = now;
		if ((w->preload = preload_store_open(w->cf->preload.path, 1,
		    err, sizeof(err))) == NULL) {
			log_debug(3, "worker %d: %s", w->id, err);
			return (NULL);
		}
	}
	if (preload_store_get(w->preload, domain, &hit) != 1)
		return (NULL);
	if (hit.expires <= (int64_t)now) {
		stats_preload(STATS_PRELOAD_EXPIRED);
		if (w->preload_warned != hit.expires) {
			w->preload_warned = hit.expires;
			log_warnx("preload list %s (timestamp %lld) expired at "
			    "%lld: its entries no longer answer, discovery "
			    "alone does (domain=%s)", hit.list,
			    (long long)hit.timestamp, (long long)hit.expires,
			    domain);
		}
		return (NULL);
	}
	p->enforce = hit.mode == 2;
	p->nmx = hit.nmx;
	p->mx = hit.mx;
	p->mxlen = hit.mxlen;
	log_debug(1, "domain=%s preload=%s timestamp=%lld mode=%s", domain,
	    hit.list, (long long)hit.timestamp, p->enforce ? "enforce" :
	    "testing");
	return (p);
}

enum sockmap_status
worker_answer_facts(struct worker *w, const char *domain,
    const struct cache_record *sts, const struct cache_record *dane,
    const struct config_map *map, struct buf *data, int *droppedp)
{
	struct decide_preload pbuf;
	const struct decide_preload *pre = NULL;
	enum sockmap_status st;
	int		 dropped;

	/* a discovered policy (mode none included) always wins: the store
	 * is not even read for it */
	if (sts == NULL || sts->kind != CACHE_KIND_STS)
		pre = worker_preload(w, domain, &pbuf);
	st = facts_answer(domain, sts, dane, pre, map, &w->pol, data,
	    &dropped);
	if (pre != NULL && pre->enforce)
		stats_preload(STATS_PRELOAD_ANSWERED);
	if (dropped)
		worker_tlsrpt_dropped(w, domain, sts, map);
	if (droppedp != NULL)
		*droppedp = dropped;
	return (st);
}

int
worker_answer_preload(struct worker *w, const char *domain,
    const struct config_map *map, struct buf *data,
    enum sockmap_status *stp)
{
	struct decide_preload pbuf;
	const struct decide_preload *pre;

	/* a policy discovered before, even past its expiry, is the
	 * domain's word: the list does not speak over it (the cache's
	 * record, read into the worker's scratch: nothing else uses it
	 * between two events) */
	if (w->cache != NULL && cache_get(w->cache, domain, strlen(domain),
	    &w->rec) == CACHE_HIT && w->rec.kind == CACHE_KIND_STS)
		return (0);
	if ((pre = worker_preload(w, domain, &pbuf)) == NULL || !pre->enforce)
		return (0);
	*stp = facts_answer(domain, NULL, NULL, pre, map, &w->pol, data,
	    NULL);
	stats_preload(STATS_PRELOAD_ANSWERED);
	return (1);
}

enum sockmap_status
worker_answer_unknown(struct worker *w, struct buf *data)
{
	if (w->cf->deadline_answer == CONFIG_ANSWER_TEMP) {
		buf_append_str(data, "policy lookup failed");
		return (SOCKMAP_TEMP);
	}
	return (SOCKMAP_NOTFOUND);
}

/*
 * worker_cache_read - read domain[0..len)'s fresh records for map into
 * w->rec (MTA-STS) and, for a map with dane = yes, w->drec ("dane:" +
 * domain), with the snapshot they came from in *versionp; the
 * STATS_CACHE_* outcome (STATS_CACHE_HIT: both there and fresh)
 */
static enum stats_cache
worker_cache_read(struct worker *w, const char *domain, size_t len,
    const struct config_map *map, time_t now, uint64_t *versionp)
{
	char		 key[CACHE_KEY_MAX + 1];
	size_t		 klen;

	if (cache_get(w->cache, domain, len, &w->rec) != CACHE_HIT ||
	    w->rec.kind == CACHE_KIND_DANE)
		return (STATS_CACHE_MISS);
	if (!cache_record_fresh(&w->rec, (int64_t)now))
		return (STATS_CACHE_STALE);
	*versionp = cache_read_version(w->cache);
	if (!map->dane)
		return (STATS_CACHE_HIT);
	/* the DANE facts are a second entry ("dane:" + domain), read in
	 * the same held snapshot: the memo's version is both reads' */
	klen = cache_dane_key(domain, len, key);
	if (cache_get(w->cache, key, klen, &w->drec) != CACHE_HIT ||
	    w->drec.kind != CACHE_KIND_DANE)
		return (STATS_CACHE_MISS);
	if (!cache_record_fresh(&w->drec, (int64_t)now))
		return (STATS_CACHE_STALE);
	if (cache_read_version(w->cache) != *versionp)
		*versionp = 0;
	return (STATS_CACHE_HIT);
}

/*
 * worker_cache_answer - the reply from a fresh cache entry of v->domain
 * for v->map, into v; 0 if answered
 *
 * The hot path: one LMDB read (no lock, no allocation) and decide().  The
 * environment is opened read-only on first use; until the resolver has
 * created it, we retry at most once a second.
 */
static int
worker_cache_answer(struct worker *w, struct worker_answer_verdict *v)
{
	const struct config_map *map = v->map;
	const char	*domain = v->domain;
	size_t		 len = v->domain_len;
	struct buf	 data;
	enum sockmap_status st;
	enum stats_cache cs;
	char		 err[256];
	uint64_t	 version = 0;
	time_t		 now;
	int		 due, dropped;

	if (!w->cf->cache.enabled)
		return (-1);
	now = clock_wall();
	if (w->cache == NULL) {
		if (now == w->cache_retry) {
			stats_cache_read(STATS_CACHE_UNAVAILABLE);
			return (-1);
		}
		w->cache_retry = now;
		w->cache = cache_open(w->cf->cache.path, w->cf->cache.max_size,
		    1, err, sizeof(err));
		if (w->cache == NULL) {
			log_debug(2, "worker %d: cache not open yet: %s",
			    w->id, err);
			stats_cache_read(STATS_CACHE_UNAVAILABLE);
			return (-1);
		}
	}
	/* both records from one snapshot (the memo's version), renewed
	 * once */
	if (cache_hold(w->cache) != CACHE_OK) {
		stats_cache_read(STATS_CACHE_MISS);
		return (-1);
	}
	cs = worker_cache_read(w, domain, len, map, now, &version);
	cache_release(w->cache);
	if (cs != STATS_CACHE_HIT) {
		stats_cache_read(cs);
		return (-1);
	}
	stats_cache_read(STATS_CACHE_HIT);
	due = facts_txt_due(&w->rec, (int64_t)now);
	buf_init_fixed(&data, w->data, sizeof(w->data));
	st = worker_answer_facts(w, domain, &w->rec, map->dane ? &w->drec :
	    NULL, map, &data, &dropped);
	stats_lookup(STATS_SRC_CACHE, st, data.data, data.len, w->t0);
	log_debug(1, "domain=%s map=%s source=cache answer=%s", domain,
	    map->name, sockmap_status_name(st));
	v->st = st;
	v->data = data.data;
	v->len = data.len;
	v->txtcheck = due;
	v->now = now;
	v->version = version;
	/* a due TXT re-check and a dropped-attributes warning are not
	 * repeated by the memo: such answers go the full way every time */
	v->memo = !due && !dropped && version != 0;
	return (0);
}

/*
 * The answer memo.  A warm lookup's full path (normalize the key, two
 * LMDB reads, decode and validate both records, decide, format) costs
 * more user time than the constant-answer server's whole request; at
 * Postfix's rates the same few domains come again and again.  So the
 * worker keeps its last cache answers in a small direct-mapped table
 * keyed by map and key, and answers again from it while nothing it was
 * made from can have changed:
 *  - the cache: cache_version() (LMDB's last committed transaction id, of
 *    any process) is the id of the snapshot both reads saw
 *    (cache_read_version); every resolver commit (a new policy, a
 *    refresh, a deletion, an eviction) changes it.  Not cache_version()
 *    before the reads: LMDB writes the meta page before new readers see
 *    the snapshot, so that would be a moment ahead of what was read;
 *  - the time: freshness and the TXT re-check are decided in whole
 *    seconds of clock_wall(), so the answer stands for the rest of the
 *    second it was made in;
 *  - the configuration: a worker process has one for its life (a reload
 *    starts new workers); a pin that is in force answers before the
 *    cache, so the memo holds only unpinned keys, and a pin's "until"
 *    can only lapse.
 * The key is kept only when it is already the normalized domain (Postfix
 * folds table keys to lower case), so a hit skips domain_normalize() too;
 * a hit is counted and logged as the cache answer it repeats.  Answers
 * that ask for a TXT re-check or warn about dropped TLSRPT attributes are
 * never kept (their side effects must happen), nor keys or replies over
 * WORKER_MEMO_KEY / WORKER_MEMO_DATA bytes.  A hit's debug line says
 * "memo=hit".  Measured in bench/README.md
 * ("Measured 2026-12-06: the warm path").
 */

/* worker_memo_slot - the memo slot of map and key[0..len) */
static struct worker_memo *
worker_memo_slot(struct worker *w, const struct config_map *map,
    const char *key, size_t len)
{
	uint32_t	 h = hash_fnv1a(key, len);

	h ^= (uint32_t)(map - w->cf->maps) * 0x9e3779b1u;
	return (&w->memo[h % WORKER_MEMO_SLOTS]);
}

/* worker_memo_answer - v's answer from the memo (v->map set); 0 if hit */
static int
worker_memo_answer(struct worker *w, const char *key, size_t key_len,
    struct worker_answer_verdict *v)
{
	const struct worker_memo *m;

	if (w->memo == NULL || key_len == 0 || key_len > WORKER_MEMO_KEY)
		return (-1);
	m = worker_memo_slot(w, v->map, key, key_len);
	if (m->map != v->map || m->key_len != key_len ||
	    memcmp(m->key, key, key_len) != 0 ||
	    m->second != clock_wall() ||
	    m->version != cache_version(w->cache))
		return (-1);
	stats_cache_read(STATS_CACHE_HIT);
	stats_lookup(STATS_SRC_CACHE, m->st, m->data, m->data_len, w->t0);
	log_debug(1, "domain=%.*s map=%s source=cache answer=%s memo=hit",
	    (int)key_len, key, v->map->name, sockmap_status_name(m->st));
	v->st = m->st;
	v->data = m->data_len > 0 ? m->data : NULL;
	v->len = m->data_len;
	return (0);
}

/* worker_memo_keep - remember v's cache answer to key[0..key_len) */
static void
worker_memo_keep(struct worker *w, const char *key, size_t key_len,
    const struct worker_answer_verdict *v)
{
	struct worker_memo *m;

	if (!v->memo || key_len == 0 || key_len > WORKER_MEMO_KEY ||
	    v->len > WORKER_MEMO_DATA || key_len != v->domain_len ||
	    memcmp(key, v->domain, key_len) != 0)
		return;
	if (w->memo == NULL)
		w->memo = xcalloc(WORKER_MEMO_SLOTS, sizeof(*w->memo));
	m = worker_memo_slot(w, v->map, key, key_len);
	m->map = v->map;
	m->version = v->version;
	m->second = v->now;
	m->key_len = (uint16_t)key_len;
	memcpy(m->key, key, key_len);
	m->data_len = (uint16_t)v->len;
	if (v->len > 0)
		memcpy(m->data, v->data, v->len);
	m->st = v->st;
}

/*
 * worker_pin_lapsed - d's end has passed: say so once in this worker
 * process (at its first lookup since), then only at debug level
 */
static void
worker_pin_lapsed(struct worker *w, const struct config_domain *d)
{
	size_t		 i = (size_t)(d - w->cf->domains);

	if (w->pin_lapsed == NULL)
		w->pin_lapsed = xcalloc(w->cf->ndomains, 1);
	if (w->pin_lapsed[i]) {
		log_debug(1, "domain=%s pin=lapsed until=%s", d->domain,
		    d->until);
		return;
	}
	w->pin_lapsed[i] = 1;
	log_warnx("domain=%s pin=lapsed until=%s: the exception of %s:%d is "
	    "over, MTA-STS and DANE decide again: remove the domain section",
	    d->domain, d->until, w->cf->file, d->line);
}

/*
 * worker_pin_answer - the reply from the operator's pinned policy for
 * v->domain (config "domain" blocks), into v; 0 if answered, -1 if none
 * is pinned or the pin has lapsed
 */
static int
worker_pin_answer(struct worker *w, struct worker_answer_verdict *v)
{
	const struct config_domain *d;
	struct buf	 data;
	enum sockmap_status st;
	enum pins_state	 ps;

	/* pins.c: the same decide_input as postsmtpsts-query's */
	buf_init_fixed(&data, w->data, sizeof(w->data));
	ps = pins_answer(w->cf, v->map, v->domain, &data, &st, &d);
	if (ps == PINS_LAPSED)
		worker_pin_lapsed(w, d);
	if (ps != PINS_IN_FORCE)
		return (-1);
	log_debug(1, "domain=%s map=%s source=static answer=\"%.*s\"",
	    v->domain, v->map->name, (int)data.len, data.data);
	stats_lookup(STATS_SRC_PINNED, st, data.data, data.len, w->t0);
	v->st = st;
	v->data = data.data;
	v->len = data.len;
	return (0);
}

enum worker_answer_kind
worker_answer(struct worker *w, const char *name, size_t name_len,
    const char *key, size_t key_len, struct worker_answer_verdict *v)
{
	char		 esc[LOG_ESCAPE_MAX * 4 + 8];
	enum domain_status ds;

	memset(v, 0, sizeof(*v));
	w->t0 = stats_clock();
	if ((v->map = config_find_map(w->cf, name, name_len)) == NULL) {
		log_warnx("request for unknown map \"%s\"",
		    log_escape(esc, sizeof(esc), name, name_len));
		stats_lookup(STATS_SRC_INVALID, SOCKMAP_PERM, NULL, 0, w->t0);
		v->st = SOCKMAP_PERM;
		v->data = "unknown map name";
		v->len = 16;
		return (WORKER_ANSWER_REPLY);
	}
	if (worker_memo_answer(w, key, key_len, v) == 0)
		return (WORKER_ANSWER_REPLY);
	ds = domain_normalize(key, key_len, v->domain);
	if (ds != DOMAIN_OK) {
		if (ds == DOMAIN_INVALID)
			log_info("key=\"%s\" invalid domain name: NOTFOUND",
			    log_escape(esc, sizeof(esc), key, key_len));
		else
			log_debug(1, "key=\"%s\" not a plain domain: NOTFOUND",
			    log_escape(esc, sizeof(esc), key, key_len));
		stats_lookup(STATS_SRC_INVALID, SOCKMAP_NOTFOUND, NULL, 0,
		    w->t0);
		v->st = SOCKMAP_NOTFOUND;
		return (WORKER_ANSWER_REPLY);
	}
	v->domain_len = strlen(v->domain);
	if (worker_pin_answer(w, v) == 0)
		return (WORKER_ANSWER_REPLY);
	if (worker_cache_answer(w, v) == 0) {
		worker_memo_keep(w, key, key_len, v);
		return (WORKER_ANSWER_REPLY);
	}
	return (WORKER_ANSWER_ASK);
}
