/*
 * fleetagg.c - the fleet's TLSRPT counts and the one sender of each report
 *
 * NAME
 *	fleetagg - parts up, the election, the delivery state (fleetagg.h)
 * DESCRIPTION
 *	Every Redis command goes through the fleet client (lib/fleet.h:
 *	its connection, Sentinel, AUTH, timeouts, READONLY handling) as
 *	fleet_call() of one of the scripts below; every value is sealed (fleet_record_seal: version
 *	FLEET_RECORD_V_TLSRPT, the fleet's HMAC when fleet.key_file is set),
 *	and a value that does not open or decode is refused, counted
 *	("fleet_refused") and logged, never parsed further.
 *
 *	Wire: EVAL FLEETAGG_PUSH_SCRIPT 4 p q f s  host seq value final ttl
 *	  -> 1 stored, 0 had it (same or later batch), -1 closed
 *	EVAL FLEETAGG_ELECT_SCRIPT 5 l s p q f  host lease_ms first-state
 *	  ttl deadline_passed
 *	  -> {"held", holder} | {"wait"} | {"won"|"new", state|nil,
 *	     host, part, host, part, ...}
 *	EVAL FLEETAGG_PUBLISH_SCRIPT 2 s l  host state ttl lease_ms
 *	  -> 1 written (the lease renewed), 0 the lease is another's
 *	EVAL unlease (compare-and-delete) l host.
 * LIMITS
 *	FLEETAGG_PUSH_MAX pushes in flight, FLEETAGG_MAX_HOSTS parts merged.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_record.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/pack.h"
#include "tlsrpt/report.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/store.h"

#define FLEETAGG_KEY_MAX	(CONFIG_MAX_FLEET_PREFIX + 16 + 11 + \
				    DOMAIN_BUFSZ)
#define FLEETAGG_SEQ_KEY	"fseq"
#define FLEETAGG_LKEY_LEN	(RSTATE_KEY_LEN + 1)
#define FLEETAGG_VALUE_MAX	(1 << 20)	/* a part's payload */
#define FLEETAGG_REPUSH_MAX	1000000	/* parts marked again at once */
#define FLEETAGG_PUSH_INTERVAL	10	/* s between rounds of pushes */

/*
 * KEYS: 1 parts, 2 sequence numbers, 3 final flags, 4 state; ARGV: 1 host,
 * 2 sequence number, 3 sealed part, 4 final ("1"/"0"), 5 TTL.  A batch is
 * applied once: only a higher sequence number than the host's replaces
 * its part (the whole part, so nothing is added twice); nothing after the
 * state exists (the report is being made from the parts as they are).
 */
#define FLEETAGG_PUSH_SCRIPT \
	"if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end " \
	"local cur = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') " \
	"if cur >= tonumber(ARGV[2]) then return 0 end " \
	"redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) " \
	"redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) " \
	"if ARGV[4] == '1' then redis.call('HSET', KEYS[3], ARGV[1], '1') " \
	"end " \
	"for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[5]) end " \
	"return 1"

/*
 * KEYS: 1 lease, 2 state, 3 parts, 4 sequence numbers, 5 final flags;
 * ARGV: 1 host, 2 lease ms, 3 first state (sealed), 4 TTL, 5 "1" when
 * fleet_deadline has passed.  Held by another host: its id.  Ours now:
 * without a state, every host seen must be final (else the lease is
 * given back: wait), then the first state is written, closing the parts.
 */
#define FLEETAGG_ELECT_SCRIPT \
	"local h = redis.call('GET', KEYS[1]) " \
	"if h and h ~= ARGV[1] then return {'held', h} end " \
	"local st = redis.call('GET', KEYS[2]) " \
	"local kind = 'won' " \
	"if not st then " \
	" if ARGV[5] ~= '1' then " \
	"  for _, k in ipairs(redis.call('HKEYS', KEYS[4])) do " \
	"   if redis.call('HEXISTS', KEYS[5], k) == 0 then " \
	"    return {'wait'} end end end " \
	" redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4]) " \
	" kind = 'new' " \
	"end " \
	"redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) " \
	"local out = {kind, st or false} " \
	"for _, v in ipairs(redis.call('HGETALL', KEYS[3])) do " \
	" out[#out + 1] = v end " \
	"return out"

/*
 * KEYS: 1 state, 2 lease; ARGV: 1 host, 2 sealed state, 3 TTL, 4 lease ms.
 * Only the lease's holder writes the state, and each write renews the
 * lease (one delivery at a time is what the lease must outlast).
 */
#define FLEETAGG_PUBLISH_SCRIPT \
	"if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end " \
	"redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) " \
	"redis.call('PEXPIRE', KEYS[2], ARGV[4]) " \
	"return 1"

#define FLEETAGG_UNLEASE_SCRIPT \
	"if redis.call('GET', KEYS[1]) == ARGV[1] then " \
	"return redis.call('DEL', KEYS[1]) end return 0"

struct fleetagg {
	const struct config *cf;
	struct store	*store;
	struct fleet	*fleet;
	size_t		 inflight;
	int		 repush;	/* the connection came back: every
					   open part again */
	int		 backlog;	/* the last round was full */
	int64_t		 next_round;	/* clock_ms() */
	struct fleetagg_push *done[FLEETAGG_PUSH_MAX];	/* this round's
					   replies, committed together */
	size_t		 ndone;
	struct buf	 enc;
};

/* One push in flight. */
struct fleetagg_push {
	struct fleetagg	*fa;
	int64_t		 day;
	char		 domain[DOMAIN_BUFSZ];
	uint64_t	 seq;
	int		 marked;	/* from "fq/": unmark on the ack */
	int		 result;	/* the script's, -2: no answer */
};

/* One election in flight. */
struct fleetagg_job {
	struct fleetagg	*fa;
	int64_t		 day, now;
	char		 domain[DOMAIN_BUFSZ];
	struct rstate	*r;
	struct agg	*a;
	fleetagg_elect_cb *cb;
	void		*arg;
};

/* fleetagg_local_key - "fK/DAY/DOMAIN" (K: q to push, o refused) */
static char *
fleetagg_local_key(char *out, char kind, int64_t day, const char *domain)
{
	char	 key[RSTATE_KEY_LEN];

	snprintf(out, FLEETAGG_LKEY_LEN, "f%s", rstate_key(key, kind, day,
	    domain));
	return (out);
}

int
fleetagg_host_ok(const char *s, size_t len)
{
	size_t	 i;

	if (len == 0 || len >= FLEETAGG_HOST_LEN)
		return (0);
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return (0);
	return (1);
}

void
fleetagg_part_encode(const struct fleetagg_part *p, const struct agg *a,
    struct buf *b)
{
	pack_u8(b, FLEETAGG_PART_VERSION);
	pack_u8(b, p->final ? 1 : 0);
	pack_u64(b, p->seq);
	pack_cstr(b, p->host);
	pack_cstr(b, p->sip);
	agg_encode(a, b);
}

int
fleetagg_part_decode(const void *q, size_t len, struct fleetagg_part *p,
    struct agg *a)
{
	struct unpack	 u;
	unsigned char	 bin[sizeof(struct in6_addr)];
	unsigned int	 fl;

	memset(p, 0, sizeof(*p));
	unpack_init(&u, q, len);
	if (unpack_u8(&u) != FLEETAGG_PART_VERSION)
		return (-1);
	fl = unpack_u8(&u);
	p->seq = unpack_u64(&u);
	unpack_cstr(&u, p->host, sizeof(p->host));
	unpack_cstr(&u, p->sip, sizeof(p->sip));
	if (u.error || fl > 1 || !fleetagg_host_ok(p->host, strlen(p->host)) ||
	    (p->sip[0] != '\0' && inet_pton(AF_INET, p->sip, bin) != 1 &&
	    inet_pton(AF_INET6, p->sip, bin) != 1))
		return (-1);
	p->final = (int)fl;
	return (agg_decode(u.p + u.pos, u.len - u.pos, a));
}

int
fleetagg_mark(struct store *s, int64_t day, const char *domain)
{
	char		 fkey[FLEETAGG_LKEY_LEN];
	unsigned char	 b[8];
	const void	*v;
	size_t		 vlen, i;
	uint64_t	 seq = 0;
	int		 rc;

	if ((rc = store_get(s, FLEETAGG_SEQ_KEY, &v, &vlen)) == -1)
		return (-1);
	if (rc == 1 && vlen == 8)
		for (i = 0; i < 8; i++)
			seq = seq << 8 | ((const unsigned char *)v)[i];
	seq++;
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(seq >> (56 - 8 * i));
	if (store_put(s, FLEETAGG_SEQ_KEY, b, 8) == -1)
		return (-1);
	return (store_put(s, fleetagg_local_key(fkey, 'q', day, domain), b,
	    8));
}

int
fleetagg_pending(struct store *s, int64_t day, const char *domain)
{
	char		 fkey[FLEETAGG_LKEY_LEN];
	const void	*v;
	size_t		 vlen;

	if (store_get(s, fleetagg_local_key(fkey, 'q', day, domain), &v,
	    &vlen) == 1)
		return (1);
	return (store_get(s, fleetagg_local_key(fkey, 'o', day, domain), &v,
	    &vlen) == 1);
}

void
fleetagg_state_encode(const char *writer, const struct rstate *r,
    struct buf *b)
{
	pack_u8(b, FLEETAGG_PART_VERSION);
	pack_cstr(b, writer);
	rstate_encode(r, b);
}

int
fleetagg_state_decode(const void *q, size_t len, char *writer,
    struct rstate *r)
{
	struct unpack	 u;

	unpack_init(&u, q, len);
	if (unpack_u8(&u) != FLEETAGG_PART_VERSION)
		return (-1);
	unpack_cstr(&u, writer, FLEETAGG_HOST_LEN);
	if (u.error || !fleetagg_host_ok(writer, strlen(writer)))
		return (-1);
	return (rstate_decode(u.p + u.pos, u.len - u.pos, r));
}

#ifdef HAVE_FLEET
/* fleetagg_count - add n to local counter name, a transaction of its own */
static void
fleetagg_count(struct fleetagg *fa, const char *name, uint64_t n)
{
	if (store_begin(fa->store, 1) == -1)
		return;
	if (store_counter_add(fa->store, name, n) == -1) {
		store_abort(fa->store);
		return;
	}
	(void)store_commit(fa->store);
}

/* fleetagg_key - P + "tlsrpt:" + kind + ":" + DAY + ":" + DOMAIN */
static size_t
fleetagg_key(const struct fleetagg *fa, char *out, size_t outsz, char kind,
    int64_t day, const char *domain)
{
	char	 dn[REPORT_DAY_LEN];
	int	 n;

	n = snprintf(out, outsz, "%stlsrpt:%c:%s:%s", fa->cf->fleet.prefix !=
	    NULL ? fa->cf->fleet.prefix : "", kind, report_day_name(day, dn),
	    domain);
	return (n < 0 || (size_t)n >= outsz ? 0 : (size_t)n);
}

/* fleetagg_mac_key - what a sealed value is bound to: K/DOMAIN[/HOST] */
static size_t
fleetagg_mac_key(char *out, size_t outsz, char kind, int64_t day,
    const char *domain, const char *host)
{
	char	 dn[REPORT_DAY_LEN];
	int	 n;

	n = snprintf(out, outsz, "%c/%s/%s/%s", kind, report_day_name(day, dn),
	    domain, host != NULL ? host : "");
	return (n < 0 || (size_t)n >= outsz ? 0 : (size_t)n);
}

/* fleetagg_ttl - the fleet keys' lifetime: past the report's retry window */
static int64_t
fleetagg_ttl(const struct fleetagg *fa, int64_t day, int64_t now)
{
	const struct config_tlsrpt *t = &fa->cf->tlsrpt;
	int64_t	 until = day + 2 * 86400 + t->send_delay + t->fleet_deadline +
	    t->retry_for;

	return (until > now + 3600 ? until - now : 3600);
}

/* fleetagg_u64 - 8 bytes, network order */
static uint64_t
fleetagg_u64(const void *v, size_t len)
{
	uint64_t	 n = 0;
	size_t		 i;

	if (len != 8)
		return (0);
	for (i = 0; i < 8; i++)
		n = n << 8 | ((const unsigned char *)v)[i];
	return (n);
}

/*
 * fleetagg_acks - the round's replies, in one transaction: each part the
 * fleet acknowledged is unmarked (if not marked again meanwhile), a part
 * refused as closed is marked to go alone ("fo/", send.c: FLEETAGG_OWN)
 */
static void
fleetagg_acks(struct fleetagg *fa)
{
	struct fleetagg_push *p;
	char		 fkey[FLEETAGG_LKEY_LEN];
	const void	*sv;
	size_t		 i, slen;
	uint64_t	 nres[4];
	unsigned char	 b[8];

	memset(nres, 0, sizeof(nres));
	if (fa->ndone == 0 || store_begin(fa->store, 1) == -1)
		goto out;
	for (i = 0; i < fa->ndone; i++) {
		p = fa->done[i];
		nres[p->result + 2]++;
		if (p->result == -2)
			continue;
		fleetagg_local_key(fkey, 'q', p->day, p->domain);
		if (p->marked && store_get(fa->store, fkey, &sv, &slen) == 1 &&
		    fleetagg_u64(sv, slen) == p->seq &&
		    store_del(fa->store, fkey) == -1)
			goto fail;
		if (p->result != -1)
			continue;
		memset(b, 0, sizeof(b));
		if (store_put(fa->store, fleetagg_local_key(fkey, 'o', p->day,
		    p->domain), b, sizeof(b)) == -1)
			goto fail;
		log_warnx("tlsrpt: domain=%s day=%.10s fleet=closed: the "
		    "fleet's report was made before this host's part came; "
		    "it is reported on its own", p->domain, fkey + 3);
	}
	if ((nres[0] > 0 && store_counter_add(fa->store,
	    "fleet_push_failures", nres[0]) == -1) ||
	    (nres[1] > 0 && store_counter_add(fa->store, "fleet_push_closed",
	    nres[1]) == -1) ||
	    (nres[2] > 0 && store_counter_add(fa->store,
	    "fleet_pushes_repeated", nres[2]) == -1) ||
	    (nres[3] > 0 && store_counter_add(fa->store, "fleet_pushes",
	    nres[3]) == -1))
		goto fail;
	(void)store_commit(fa->store);	/* not committed: pushed again */
	goto out;
fail:
	store_abort(fa->store);
out:
	for (i = 0; i < fa->ndone; i++)
		free(fa->done[i]);
	fa->ndone = 0;
}

static void	fleetagg_round(struct fleetagg *, int);

/* fleetagg_push_cb - a push answered: kept for the round's transaction */
static void
fleetagg_push_cb(void *arg, enum fleet_status st, const struct fleet_value *v,
    size_t n)
{
	struct fleetagg_push *p = arg;
	struct fleetagg	*fa = p->fa;

	fa->inflight--;
	if (st != FLEET_OK || n != 1 || !v[0].is_int || v[0].integer < -1 ||
	    v[0].integer > 1) {
		log_debug(1, "tlsrpt: fleet push domain=%s: %s", p->domain,
		    fleet_status_name(st));
		p->result = -2;
	} else
		p->result = (int)v[0].integer;
	fa->done[fa->ndone++] = p;
	if (fa->inflight > 0)
		return;
	fleetagg_acks(fa);
	/* a round acknowledged: the next one now, not at the next tick (a
	 * busy day keeps FLEETAGG_PUSH_MAX in flight); after a failure, at
	 * the next tick */
	if (st == FLEET_OK)
		fleetagg_push(fa);
}

void
fleetagg_push(struct fleetagg *fa)
{
	fleetagg_round(fa, 0);
}

/*
 * fleetagg_lease_ms - the sender's lease: fleet.lease, and at least two
 * deliveries' timeouts and DNS (each state written renews it)
 */
static int64_t
fleetagg_lease_ms(const struct fleetagg *fa)
{
	int64_t	 lease = fa->cf->fleet.lease;

	if (lease < 2 * (int64_t)fa->cf->tlsrpt.timeout + 10)
		lease = 2 * (int64_t)fa->cf->tlsrpt.timeout + 10;
	return (lease * 1000);
}

/* fleetagg_seal - payload in[0..len) sealed for mac key mk into a new
 * buffer (*out, *outlen): 0 or -1 */
static int
fleetagg_seal(const struct fleetagg *fa, const char *mk, size_t mlen,
    const void *in, size_t len, unsigned char **out, size_t *outlen)
{
	const struct config_fleet *fl = &fa->cf->fleet;
	size_t	 sz = len + FLEET_RECORD_HEAD_LEN + FLEET_RECORD_MAC_LEN;

	*out = xmalloc(sz);
	if (fleet_record_seal(FLEET_RECORD_V_TLSRPT, mk, mlen, in, len,
	    fl->key, fl->keylen, *out, sz, outlen) == -1) {
		free(*out);
		*out = NULL;
		return (-1);
	}
	return (0);
}

/* fleetagg_open - a sealed value v[0..len) for mac key mk: its payload
 * (inside v), or NULL (refused: counted and logged) */
static const unsigned char *
fleetagg_open(struct fleetagg *fa, const char *mk, size_t mlen,
    const char *v, size_t len, size_t *pllen)
{
	const struct config_fleet *fl = &fa->cf->fleet;
	const unsigned char *pl;
	enum fleet_decode_status ds;

	ds = fleet_record_open(FLEET_RECORD_V_TLSRPT, mk, mlen,
	    (const unsigned char *)v, len, fl->key, fl->keylen, &pl, pllen);
	if (ds == FLEET_DECODE_OK)
		return (pl);
	log_warnx("tlsrpt: fleet value %.*s refused: %s", (int)mlen, mk,
	    fleet_decode_status_name(ds));
	fleetagg_count(fa, "fleet_refused", 1);
	return (NULL);
}

/* fleetagg_keys - the Redis keys of kinds[0..n) for day and domain into
 * k[], lengths into kl[]: 0 or -1 */
static int
fleetagg_keys(const struct fleetagg *fa, const char *kinds, size_t n,
    int64_t day, const char *domain, char k[][FLEETAGG_KEY_MAX], size_t *kl)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if ((kl[i] = fleetagg_key(fa, k[i], FLEETAGG_KEY_MAX, kinds[i],
		    day, domain)) == 0)
			return (-1);
	return (0);
}

/* fleetagg_eval_args - EVAL's head in argv/argl: the script, its n keys
 * k[0..n) (n < 10); returns the index of the first argument after them */
static size_t
fleetagg_eval_args(const char **argv, size_t *argl, const char *script,
    size_t slen, size_t n, char k[][FLEETAGG_KEY_MAX], const size_t *kl)
{
	static const char *const nkeys[] = { "0", "1", "2", "3", "4", "5",
	    "6", "7", "8", "9" };
	size_t	 i;

	argv[0] = "EVAL";
	argl[0] = 4;
	argv[1] = script;
	argl[1] = slen;
	argv[2] = nkeys[n];
	argl[2] = 1;
	for (i = 0; i < n; i++) {
		argv[3 + i] = k[i];
		argl[3 + i] = kl[i];
	}
	return (3 + n);
}

/* fleetagg_send_part - push the part of ckey ("c/DAY/DOMAIN", value v)
 * with sequence number seq, inside the caller's read transaction: 0 or
 * -1 */
static int
fleetagg_send_part(struct fleetagg *fa, const char *ckey, const void *v,
    size_t vlen, uint64_t seq, int marked)
{
	struct fleetagg_push *p;
	struct fleetagg_part part;
	struct agg	 a;
	char		 k[4][FLEETAGG_KEY_MAX], mk[FLEETAGG_KEY_MAX],
			 rkey[RSTATE_KEY_LEN], seqs[24], ttls[24];
	const char	*argv[12];
	size_t		 argl[12], kl[4], mlen, slen;
	unsigned char	*sealed = NULL;
	const void	*rv;
	int		 rc = -1;

	p = xcalloc(1, sizeof(*p));
	p->fa = fa;
	p->seq = seq;
	p->marked = marked;
	agg_init(&a);
	if (rstate_key_parse(ckey, &p->day, p->domain) == -1 ||
	    agg_decode(v, vlen, &a) == -1)
		goto out;
	memset(&part, 0, sizeof(part));
	part.seq = seq;
	part.final = store_get(fa->store, rstate_key(rkey, 'r', p->day,
	    p->domain), &rv, &slen) == 1;
	snprintf(part.host, sizeof(part.host), "%s", fleetagg_host(fa));
	if (fa->cf->tlsrpt.sending_mta_ip != NULL)
		snprintf(part.sip, sizeof(part.sip), "%s",
		    fa->cf->tlsrpt.sending_mta_ip);
	buf_reset(&fa->enc);
	fleetagg_part_encode(&part, &a, &fa->enc);
	mlen = fleetagg_mac_key(mk, sizeof(mk), 'p', p->day, p->domain,
	    part.host);
	if (fa->enc.error || mlen == 0 || fleetagg_seal(fa, mk, mlen,
	    fa->enc.data, fa->enc.len, &sealed, &slen) == -1 ||
	    fleetagg_keys(fa, "pqfs", 4, p->day, p->domain, k, kl) == -1)
		goto out;
	snprintf(seqs, sizeof(seqs), "%" PRIu64, seq);
	snprintf(ttls, sizeof(ttls), "%" PRId64, fleetagg_ttl(fa, p->day,
	    clock_wall()));
	(void)fleetagg_eval_args(argv, argl, FLEETAGG_PUSH_SCRIPT,
	    sizeof(FLEETAGG_PUSH_SCRIPT) - 1, 4, k, kl);
	argv[7] = part.host;
	argl[7] = strlen(part.host);
	argv[8] = seqs;
	argl[8] = strlen(seqs);
	argv[9] = (const char *)sealed;
	argl[9] = slen;
	argv[10] = part.final ? "1" : "0";
	argl[10] = 1;
	argv[11] = ttls;
	argl[11] = strlen(ttls);
	if ((rc = fleet_call(fa->fleet, 12, argv, argl, fleetagg_push_cb,
	    p)) == 0) {
		fa->inflight++;
		p = NULL;
	}
out:
	agg_free(&a);
	free(sealed);
	free(p);
	return (rc);
}

/* What a push walk collects: the marked parts' keys and numbers. */
struct fleetagg_walk {
	struct fleetagg	*fa;
	char		(*keys)[FLEETAGG_LKEY_LEN];
	uint64_t	*seqs;
	size_t		 n, cap;
};

/* fleetagg_walk_cb - one "fq/" (or, for a repush, "c/") key */
static int
fleetagg_walk_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct fleetagg_walk *w = arg;

	if (w->n == w->cap) {
		if (w->cap >= FLEETAGG_PUSH_MAX)
			return (1);
		w->cap = w->cap ? w->cap * 2 : 16;
		w->keys = xreallocarray(w->keys, w->cap, sizeof(*w->keys));
		w->seqs = xreallocarray(w->seqs, w->cap, sizeof(*w->seqs));
	}
	snprintf(w->keys[w->n], FLEETAGG_LKEY_LEN, "%s", key);
	w->seqs[w->n++] = fleetagg_u64(v, vlen);
	return (0);
}

/* fleetagg_repush_cb - after a reconnect: the "c/" keys whose report the
 * fleet may still make (no local state, or a pending one) */
static int
fleetagg_repush_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct fleetagg_walk *w = arg;
	struct fleetagg	*fa = w->fa;
	struct rstate	 r;
	char		 domain[DOMAIN_BUFSZ], rkey[RSTATE_KEY_LEN];
	const void	*rv;
	size_t		 rlen;
	int64_t		 day;

	(void)v;
	(void)vlen;
	if (rstate_key_parse(key, &day, domain) == -1)
		return (0);
	if (store_get(fa->store, rstate_key(rkey, 'r', day, domain), &rv,
	    &rlen) == 1 && (rstate_decode(rv, rlen, &r) == -1 ||
	    r.status != RSTATE_PENDING))
		return (0);
	if (w->n == w->cap) {
		if (w->cap >= FLEETAGG_REPUSH_MAX)
			return (1);
		w->cap = w->cap ? w->cap * 2 : 64;
		w->keys = xreallocarray(w->keys, w->cap, sizeof(*w->keys));
	}
	snprintf(w->keys[w->n++], FLEETAGG_LKEY_LEN, "%s", key);
	return (0);
}

/*
 * fleetagg_remark - the connection came back: mark every open part again
 * (one transaction), so that a Redis restarted empty gets them all, in
 * the push's rounds; a part it still has is written again, the same
 */
static void
fleetagg_remark(struct fleetagg *fa)
{
	struct fleetagg_walk w;
	char		 domain[DOMAIN_BUFSZ];
	size_t		 i;
	int64_t		 day;

	memset(&w, 0, sizeof(w));
	w.fa = fa;
	if (store_begin(fa->store, 1) == -1)
		return;
	(void)store_walk(fa->store, "c/", fleetagg_repush_cb, &w);
	for (i = 0; i < w.n; i++)
		if (rstate_key_parse(w.keys[i], &day, domain) == -1 ||
		    fleetagg_mark(fa->store, day, domain) == -1)
			break;
	if (i < w.n)
		store_abort(fa->store);
	else if (store_commit(fa->store) == 0) {
		fa->repush = 0;
		if (w.n > 0)
			log_info("tlsrpt: fleet reachable: %zu parts to push "
			    "again", w.n);
	}
	free(w.keys);
	free(w.seqs);
}

/* fleetagg_round - push the marked parts; urgent: now, whenever the last
 * round was */
static void
fleetagg_round(struct fleetagg *fa, int urgent)
{
	struct fleetagg_walk w;
	const void	*v;
	size_t		 i, vlen;

	if (fa == NULL || !fleet_up(fa->fleet) || fa->inflight > 0)
		return;
	/*
	 * A round at most every FLEETAGG_PUSH_INTERVAL: a busy domain's part
	 * goes up once a round, not once a batch (a backlog of more than a
	 * round's worth, and a report waiting for our part, go at once)
	 */
	if (!fa->backlog && !urgent && clock_ms() < fa->next_round)
		return;
	fa->next_round = clock_ms() + FLEETAGG_PUSH_INTERVAL * 1000;
	if (fa->repush)
		fleetagg_remark(fa);	/* cleared once committed */
	if (store_begin(fa->store, 0) == -1)
		return;
	memset(&w, 0, sizeof(w));
	(void)store_walk(fa->store, "fq/", fleetagg_walk_cb, &w);
	fa->backlog = w.n == FLEETAGG_PUSH_MAX;
	for (i = 0; i < w.n && fa->inflight < FLEETAGG_PUSH_MAX; i++) {
		w.keys[i][1] = 'c';	/* "fq/..." -> "c/..." at +1 */
		if (store_get(fa->store, w.keys[i] + 1, &v, &vlen) != 1)
			continue;
		if (fleetagg_send_part(fa, w.keys[i] + 1, v, vlen, w.seqs[i],
		    1) == -1)
			break;
	}
	store_abort(fa->store);
	free(w.keys);
	free(w.seqs);
}

/* One part of an election's reply, to be merged in host order. */
struct fleetagg_item {
	const char	*host;
	size_t		 hlen;
	const char	*v;
	size_t		 vlen;
};

/* fleetagg_item_cmp - by host id */
static int
fleetagg_item_cmp(const void *a, const void *b)
{
	const struct fleetagg_item *x = a, *y = b;
	size_t	 n = x->hlen < y->hlen ? x->hlen : y->hlen;
	int	 c = memcmp(x->host, y->host, n);

	return (c != 0 ? c : (x->hlen > y->hlen) - (x->hlen < y->hlen));
}

/* fleetagg_items - the (host, part) pairs v[0..n) into it[], sorted by
 * host (at most FLEETAGG_MAX_HOSTS; a pair that is not one is counted):
 * how many */
static size_t
fleetagg_items(struct fleetagg *fa, const struct fleet_value *v, size_t n,
    struct fleetagg_item *it)
{
	size_t	 i, ni = 0;

	for (i = 0; i + 1 < n && ni < FLEETAGG_MAX_HOSTS; i += 2) {
		if (v[i].p == NULL || v[i + 1].p == NULL ||
		    !fleetagg_host_ok(v[i].p, v[i].len)) {
			fleetagg_count(fa, "fleet_refused", 1);
			continue;
		}
		it[ni].host = v[i].p;
		it[ni].hlen = v[i].len;
		it[ni].v = v[i + 1].p;
		it[ni].vlen = v[i + 1].len;
		ni++;
	}
	if (ni > 1)
		qsort(it, ni, sizeof(it[0]), fleetagg_item_cmp);
	return (ni);
}

/* fleetagg_merge - the parts v[0..n) (host, part pairs) into j->a */
static void
fleetagg_merge(struct fleetagg_job *j, const struct fleet_value *v, size_t n)
{
	struct fleetagg	*fa = j->fa;
	struct fleetagg_item it[FLEETAGG_MAX_HOSTS];
	struct fleetagg_part part;
	struct agg	 sum, one;
	const unsigned char *pl;
	char		 mk[FLEETAGG_KEY_MAX], host[FLEETAGG_HOST_LEN];
	size_t		 i, ni, mlen, pllen;

	ni = fleetagg_items(fa, v, n, it);
	agg_init(&sum);
	for (i = 0; i < ni; i++) {
		memcpy(host, it[i].host, it[i].hlen);
		host[it[i].hlen] = '\0';
		mlen = fleetagg_mac_key(mk, sizeof(mk), 'p', j->day, j->domain,
		    host);
		if ((pl = fleetagg_open(fa, mk, mlen, it[i].v, it[i].vlen,
		    &pllen)) == NULL)
			continue;
		agg_init(&one);
		if (fleetagg_part_decode(pl, pllen, &part, &one) == -1 ||
		    strcmp(part.host, host) != 0) {
			log_warnx("tlsrpt: fleet part %s does not decode: "
			    "refused", mk);
			fleetagg_count(fa, "fleet_refused", 1);
			agg_free(&one);
			continue;
		}
		log_debug(1, "tlsrpt: domain=%s host=%s seq=%" PRIu64
		    " final=%d sessions=%" PRIu64 " merged", j->domain, host,
		    part.seq, part.final, agg_sessions(&one));
		agg_merge(&sum, &one, part.sip);
		agg_free(&one);
	}
	agg_free(j->a);
	*j->a = sum;
}

/* fleetagg_ignore_cb - a reply nobody waits for (SET, the unlease) */
static void
fleetagg_ignore_cb(void *arg, enum fleet_status st, const struct fleet_value *v,
    size_t n)
{
	(void)arg;
	(void)st;
	(void)v;
	(void)n;
}

/* fleetagg_elect_reply - the election answered */
static void
fleetagg_elect_reply(void *arg, enum fleet_status st,
    const struct fleet_value *v, size_t n)
{
	struct fleetagg_job *j = arg;
	struct fleetagg	*fa = j->fa;
	struct rstate	 fr;
	const unsigned char *pl;
	char		 mk[FLEETAGG_KEY_MAX], writer[FLEETAGG_HOST_LEN],
			 esc[FLEETAGG_HOST_LEN * 4 + 8];
	enum fleetagg_elect e = FLEETAGG_LATER;
	int64_t		 next = j->now + FLEETAGG_WAIT;
	size_t		 mlen, pllen;

	if (st != FLEET_OK || n < 1 || v[0].p == NULL) {
		log_debug(1, "tlsrpt: domain=%s fleet election: %s", j->domain,
		    fleet_status_name(st));
		goto done;
	}
	if (v[0].len == 4 && memcmp(v[0].p, "held", 4) == 0 && n == 2 &&
	    v[1].p != NULL) {
		log_debug(1, "tlsrpt: domain=%s sender=%s (elected)",
		    j->domain, log_escape(esc, sizeof(esc), v[1].p, v[1].len));
		fleetagg_count(fa, "fleet_elections_lost", 1);
		next = j->now + FLEETAGG_POLL;
		goto done;
	}
	if (v[0].len == 4 && memcmp(v[0].p, "wait", 4) == 0) {
		log_debug(1, "tlsrpt: domain=%s fleet: a host's part is not "
		    "final yet: waiting", j->domain);
		goto done;
	}
	if (n < 2 || v[0].len != 3 || (memcmp(v[0].p, "won", 3) != 0 &&
	    memcmp(v[0].p, "new", 3) != 0)) {
		fleetagg_count(fa, "fleet_refused", 1);
		goto done;
	}
	if (memcmp(v[0].p, "won", 3) == 0) {
		if (v[1].p == NULL)
			goto done;	/* expired meanwhile: next time */
		mlen = fleetagg_mac_key(mk, sizeof(mk), 's', j->day, j->domain,
		    NULL);
		if ((pl = fleetagg_open(fa, mk, mlen, v[1].p, v[1].len,
		    &pllen)) == NULL || fleetagg_state_decode(pl, pllen,
		    writer, &fr) == -1) {
			/* never send on a state that does not read: it may
			 * say "sent" */
			if (pl != NULL) {
				log_warnx("tlsrpt: domain=%s fleet state does "
				    "not decode: refused", j->domain);
				fleetagg_count(fa, "fleet_refused", 1);
			}
			fleetagg_release(fa, j->day, j->domain);
			goto done;
		}
		*j->r = fr;
		if (fr.status != RSTATE_PENDING) {
			fleetagg_release(fa, j->day, j->domain);
			e = FLEETAGG_DONE;
			goto done;
		}
		if (fr.next_try > j->now) {
			fleetagg_release(fa, j->day, j->domain);
			next = fr.next_try;
			goto done;
		}
		if (strcmp(writer, fleetagg_host(fa)) != 0) {
			log_info("tlsrpt: domain=%s day=%.10s fleet=takeover "
			    "from=%s", j->domain, mk + 2, writer);
			fleetagg_count(fa, "fleet_takeovers", 1);
		}
	}
	fleetagg_count(fa, "fleet_elections_won", 1);
	fleetagg_merge(j, v + 2, n - 2);
	e = FLEETAGG_SEND;
done:
	j->cb(j->arg, e, next);
	free(j);
}

void
fleetagg_elect(struct fleetagg *fa, int64_t day, const char *domain,
    int64_t now, struct rstate *r, struct agg *a, fleetagg_elect_cb *cb,
    void *arg)
{
	const struct config_tlsrpt *t = &fa->cf->tlsrpt;
	struct fleetagg_job *j;
	char		 k[5][FLEETAGG_KEY_MAX], mk[FLEETAGG_KEY_MAX],
			 lms[24], ttls[24];
	const char	*argv[13];
	size_t		 argl[13], kl[5], mlen, slen;
	unsigned char	*sealed = NULL;
	int64_t		 deadline;

	j = xcalloc(1, sizeof(*j));
	j->fa = fa;
	j->day = day;
	j->now = now;
	snprintf(j->domain, sizeof(j->domain), "%s", domain);
	j->r = r;
	j->a = a;
	j->cb = cb;
	j->arg = arg;
	/* from the day's close (its end and send_delay, or --send DAY) */
	deadline = (r->created > 0 ? r->created : day + 86400 +
	    t->send_delay) + t->fleet_deadline;
	if (!fleet_up(fa->fleet) || fleetagg_pending(fa->store, day, domain)) {
		/*
		 * Redis down, or our part not in it: wait, bounded; past the
		 * deadline our own part goes alone (DESIGN: degraded modes)
		 */
		cb(arg, now >= deadline ? FLEETAGG_OWN : FLEETAGG_LATER,
		    now + FLEETAGG_WAIT);
		free(j);
		fleetagg_round(fa, 1);
		return;
	}
	snprintf(lms, sizeof(lms), "%" PRId64, fleetagg_lease_ms(fa));
	snprintf(ttls, sizeof(ttls), "%" PRId64, fleetagg_ttl(fa, day, now));
	buf_reset(&fa->enc);
	fleetagg_state_encode(fleetagg_host(fa), r, &fa->enc);
	mlen = fleetagg_mac_key(mk, sizeof(mk), 's', day, domain, NULL);
	if (fa->enc.error || fleetagg_seal(fa, mk, mlen, fa->enc.data,
	    fa->enc.len, &sealed, &slen) == -1 ||
	    fleetagg_keys(fa, "lspqf", 5, day, domain, k, kl) == -1)
		goto fail;
	(void)fleetagg_eval_args(argv, argl, FLEETAGG_ELECT_SCRIPT,
	    sizeof(FLEETAGG_ELECT_SCRIPT) - 1, 5, k, kl);
	argv[8] = fleetagg_host(fa);
	argl[8] = strlen(argv[8]);
	argv[9] = lms;
	argl[9] = strlen(lms);
	argv[10] = (const char *)sealed;
	argl[10] = slen;
	argv[11] = ttls;
	argl[11] = strlen(ttls);
	argv[12] = now >= deadline ? "1" : "0";
	argl[12] = 1;
	if (fleet_call(fa->fleet, 13, argv, argl, fleetagg_elect_reply,
	    j) == -1)
		goto fail;
	free(sealed);
	return;
fail:
	free(sealed);
	free(j);
	cb(arg, FLEETAGG_LATER, now + FLEETAGG_WAIT);
}

/* fleetagg_publish_cb - the state written, or the lease was lost */
static void
fleetagg_publish_cb(void *arg, enum fleet_status st,
    const struct fleet_value *v, size_t n)
{
	struct fleetagg	*fa = arg;

	if (st != FLEET_OK || n != 1 || !v[0].is_int)
		fleetagg_count(fa, "fleet_state_failures", 1);
	else if (v[0].integer == 0) {
		/* another host took over (ours expired): its state stands */
		log_warnx("tlsrpt: fleet: the sender's lease was lost before "
		    "the delivery state was written: another host has it");
		fleetagg_count(fa, "fleet_state_failures", 1);
	}
}

void
fleetagg_publish(struct fleetagg *fa, int64_t day, const char *domain,
    const struct rstate *r, int64_t now)
{
	char		 k[2][FLEETAGG_KEY_MAX], mk[FLEETAGG_KEY_MAX],
			 ttls[24], lms[24];
	const char	*argv[9];
	size_t		 argl[9], kl[2], mlen, slen;
	unsigned char	*sealed;

	buf_reset(&fa->enc);
	fleetagg_state_encode(fleetagg_host(fa), r, &fa->enc);
	mlen = fleetagg_mac_key(mk, sizeof(mk), 's', day, domain, NULL);
	if (fleetagg_keys(fa, "sl", 2, day, domain, k, kl) == -1 ||
	    fa->enc.error || fleetagg_seal(fa, mk, mlen, fa->enc.data,
	    fa->enc.len, &sealed, &slen) == -1)
		return;
	snprintf(ttls, sizeof(ttls), "%" PRId64, fleetagg_ttl(fa, day, now));
	snprintf(lms, sizeof(lms), "%" PRId64, fleetagg_lease_ms(fa));
	(void)fleetagg_eval_args(argv, argl, FLEETAGG_PUBLISH_SCRIPT,
	    sizeof(FLEETAGG_PUBLISH_SCRIPT) - 1, 2, k, kl);
	argv[5] = fleetagg_host(fa);
	argl[5] = strlen(argv[5]);
	argv[6] = (const char *)sealed;
	argl[6] = slen;
	argv[7] = ttls;
	argl[7] = strlen(ttls);
	argv[8] = lms;
	argl[8] = strlen(lms);
	if (fleet_call(fa->fleet, 9, argv, argl, fleetagg_publish_cb, fa) == -1)
		fleetagg_count(fa, "fleet_state_failures", 1);
	free(sealed);
}

void
fleetagg_release(struct fleetagg *fa, int64_t day, const char *domain)
{
	char		 k[1][FLEETAGG_KEY_MAX];
	const char	*argv[5];
	size_t		 argl[5], kl[1];

	if ((kl[0] = fleetagg_key(fa, k[0], sizeof(k[0]), 'l', day,
	    domain)) == 0)
		return;
	(void)fleetagg_eval_args(argv, argl, FLEETAGG_UNLEASE_SCRIPT,
	    sizeof(FLEETAGG_UNLEASE_SCRIPT) - 1, 1, k, kl);
	argv[4] = fleetagg_host(fa);
	argl[4] = strlen(argv[4]);
	(void)fleet_call(fa->fleet, 5, argv, argl, fleetagg_ignore_cb, NULL);
}

#define FLEETAGG_STATS_SCRIPT \
	"local out = {redis.call('GET', KEYS[1]) or false, " \
	"redis.call('GET', KEYS[2]) or false} " \
	"for _, v in ipairs(redis.call('HGETALL', KEYS[3])) do " \
	" out[#out + 1] = v end " \
	"return out"
#define FLEETAGG_STATS_DAYS	2	/* today and yesterday */
#define FLEETAGG_STATS_WAIT	10	/* x 100 ms for the connection */

/* The fleet view of --stats. */
struct fleetagg_stats {
	struct fleetagg	 fa;
	struct event_base *base;
	struct event	*timer;
	int		 waited;
	char		(*keys)[RSTATE_KEY_LEN];
	size_t		 n, cap, i;
	int64_t		 since;
	FILE		*fp;
	int		 rc;
};

/* fleetagg_stats_key - a "c/" key of the days shown */
static int
fleetagg_stats_key(const char *key, const void *v, size_t vlen, void *arg)
{
	struct fleetagg_stats *st = arg;
	char		 domain[DOMAIN_BUFSZ];
	int64_t		 day;

	(void)v;
	(void)vlen;
	if (rstate_key_parse(key, &day, domain) == -1 || day < st->since)
		return (0);
	if (st->n == st->cap) {
		if (st->cap >= 100000)
			return (1);
		st->cap = st->cap ? 2 * st->cap : 64;
		st->keys = xreallocarray(st->keys, st->cap, sizeof(*st->keys));
	}
	snprintf(st->keys[st->n++], RSTATE_KEY_LEN, "%s", key);
	return (0);
}

static void	fleetagg_stats_next(struct fleetagg_stats *);

/* fleetagg_stats_reply - one domain's day: print it */
static void
fleetagg_stats_reply(void *arg, enum fleet_status fs,
    const struct fleet_value *v, size_t n)
{
	struct fleetagg_stats *st = arg;
	struct fleetagg_part part;
	struct rstate	 r;
	struct agg	 a;
	const unsigned char *pl;
	char		 domain[DOMAIN_BUFSZ], dn[REPORT_DAY_LEN],
			 mk[FLEETAGG_KEY_MAX], writer[FLEETAGG_HOST_LEN],
			 host[FLEETAGG_HOST_LEN], esc[FLEETAGG_HOST_LEN * 4 + 8];
	const char	*state = "counting", *sender = "-";
	struct fleetagg_item it[FLEETAGG_MAX_HOSTS];
	size_t		 i, ni, mlen, pllen, nfinal = 0, nparts = 0;
	int64_t		 day;

	(void)rstate_key_parse(st->keys[st->i], &day, domain);
	report_day_name(day, dn);
	if (fs != FLEET_OK || n < 2) {
		fprintf(st->fp, "# fleet day=%s domain=%s error=%s\n", dn,
		    domain, fleet_status_name(fs));
		st->rc = 1;
		goto next;
	}
	if (v[0].p != NULL)
		sender = log_escape(esc, sizeof(esc), v[0].p, v[0].len);
	if (v[1].p != NULL) {
		mlen = fleetagg_mac_key(mk, sizeof(mk), 's', day, domain, NULL);
		if ((pl = fleetagg_open(&st->fa, mk, mlen, v[1].p, v[1].len,
		    &pllen)) == NULL || fleetagg_state_decode(pl, pllen,
		    writer, &r) == -1)
			state = "refused";
		else {
			state = r.status == RSTATE_DONE ? "sent" :
			    r.status == RSTATE_FAILED ? "given-up" :
			    r.status == RSTATE_NO_RUA ? "no-rua" :
			    r.first_try == 0 ? "elected" : "retrying";
			if (v[0].p == NULL) {
				snprintf(esc, sizeof(esc), "%s", writer);
				sender = esc;
			}
		}
	}
	fprintf(st->fp, "# fleet day=%s domain=%s sender=%s state=%s hosts=",
	    dn, domain, sender, state);
	ni = fleetagg_items(&st->fa, v + 2, n - 2, it);
	for (i = 0; i < ni; i++) {
		memcpy(host, it[i].host, it[i].hlen);
		host[it[i].hlen] = '\0';
		mlen = fleetagg_mac_key(mk, sizeof(mk), 'p', day, domain, host);
		agg_init(&a);
		if ((pl = fleetagg_open(&st->fa, mk, mlen, it[i].v,
		    it[i].vlen, &pllen)) == NULL ||
		    fleetagg_part_decode(pl, pllen, &part, &a) == -1)
			fprintf(st->fp, "%s%s:refused", nparts++ ? "," : "",
			    host);
		else {
			fprintf(st->fp, "%s%s:%" PRIu64 "%s", nparts++ ? "," :
			    "", host, agg_sessions(&a), part.final ? "" :
			    "(open)");
			nfinal += part.final;
		}
		agg_free(&a);
	}
	fprintf(st->fp, "%s final=%zu/%zu\n", nparts ? "" : "-", nfinal,
	    nparts);
next:
	st->i++;
	fleetagg_stats_next(st);
}

/* fleetagg_stats_next - ask for the next domain's day, or stop */
static void
fleetagg_stats_next(struct fleetagg_stats *st)
{
	char		 k[3][FLEETAGG_KEY_MAX], domain[DOMAIN_BUFSZ];
	const char	*argv[6];
	size_t		 argl[6], kl[3];
	int64_t		 day;

	for (; st->i < st->n; st->i++) {
		if (rstate_key_parse(st->keys[st->i], &day, domain) == -1 ||
		    fleetagg_keys(&st->fa, "lsp", 3, day, domain, k, kl) == -1)
			continue;
		(void)fleetagg_eval_args(argv, argl, FLEETAGG_STATS_SCRIPT,
		    sizeof(FLEETAGG_STATS_SCRIPT) - 1, 3, k, kl);
		if (fleet_call(st->fa.fleet, 6, argv, argl,
		    fleetagg_stats_reply, st) == 0)
			return;
		st->rc = 1;
		break;
	}
	event_base_loopbreak(st->base);
}

/* fleetagg_stats_wait - until the connection is up (or it will not be) */
static void
fleetagg_stats_wait(evutil_socket_t fd, short what, void *arg)
{
	struct fleetagg_stats *st = arg;
	struct timeval	 tv = { 0, 100000 };

	(void)fd;
	(void)what;
	if (fleet_up(st->fa.fleet)) {
		fleetagg_stats_next(st);
		return;
	}
	if (++st->waited > FLEETAGG_STATS_WAIT) {
		fprintf(st->fp, "# fleet unreachable (%s)\n",
		    fleet_server(st->fa.fleet));
		st->rc = 1;
		event_base_loopbreak(st->base);
		return;
	}
	evtimer_add(st->timer, &tv);
}

int
fleetagg_stats(const struct config *cf, struct store *store, int64_t now,
    FILE *fp)
{
	struct fleetagg_stats st;
	struct timeval	 tv = { 0, 0 };

	if (!cf->fleet.enabled)
		return (0);
	if (cf->fleet.mode != CONFIG_FLEET_READ_WRITE) {
		fprintf(fp, "# fleet read-only: this host reports alone\n");
		return (0);
	}
	memset(&st, 0, sizeof(st));
	st.fa.cf = cf;
	st.fa.store = store;
	st.fp = fp;
	st.since = report_day(now) - (FLEETAGG_STATS_DAYS - 1) * 86400;
	if (store_begin(store, 0) == 0) {
		(void)store_walk(store, "c/", fleetagg_stats_key, &st);
		store_abort(store);
	}
	if ((st.base = event_base_new()) == NULL)
		fatalx("tlsrpt: cannot create an event base");
	st.fa.fleet = fleet_new(st.base, &cf->fleet);
	if ((st.timer = evtimer_new(st.base, fleetagg_stats_wait, &st)) ==
	    NULL)
		fatalx("tlsrpt: cannot create a timer");
	evtimer_add(st.timer, &tv);
	event_base_dispatch(st.base);
	event_free(st.timer);
	fleet_free(st.fa.fleet);
	event_base_free(st.base);
	free(st.keys);
	return (st.rc);
}

/* fleetagg_state_hook - the connection came up: every open part again */
static void
fleetagg_state_hook(void *arg, int up)
{
	struct fleetagg	*fa = arg;

	if (up)
		fa->repush = 1;
}

struct fleetagg *
fleetagg_new(const struct config *cf, struct store *store,
    struct event_base *base)
{
	struct fleetagg	*fa;

	if (!cf->fleet.enabled || cf->fleet.mode != CONFIG_FLEET_READ_WRITE)
		return (NULL);
	fa = xcalloc(1, sizeof(*fa));
	fa->cf = cf;
	fa->store = store;
	buf_init(&fa->enc, FLEETAGG_VALUE_MAX);
	fa->fleet = fleet_new(base, &cf->fleet);
	fleet_set_hooks(fa->fleet, NULL, fleetagg_state_hook, fa);
	return (fa);
}

void
fleetagg_free(struct fleetagg *fa)
{
	size_t	 i;

	if (fa == NULL)
		return;
	fleet_free(fa->fleet);		/* calls nothing more */
	for (i = 0; i < fa->ndone; i++)
		free(fa->done[i]);
	buf_free(&fa->enc);
	free(fa);
}

int
fleetagg_up(const struct fleetagg *fa)
{
	return (fa != NULL && fleet_up(fa->fleet));
}

const char *
fleetagg_host(const struct fleetagg *fa)
{
	return (fa->cf->tlsrpt.host_id != NULL ? fa->cf->tlsrpt.host_id :
	    "localhost");
}
#else /* !HAVE_FLEET: no Redis client; every host reports alone */
struct fleetagg *
fleetagg_new(const struct config *cf, struct store *store,
    struct event_base *base)
{
	(void)cf;
	(void)store;
	(void)base;
	return (NULL);
}

void
fleetagg_free(struct fleetagg *fa)
{
	(void)fa;
}

int
fleetagg_up(const struct fleetagg *fa)
{
	(void)fa;
	return (0);
}

void
fleetagg_push(struct fleetagg *fa)
{
	(void)fa;
}

void
fleetagg_elect(struct fleetagg *fa, int64_t day, const char *domain,
    int64_t now, struct rstate *r, struct agg *a, fleetagg_elect_cb *cb,
    void *arg)
{
	(void)fa;
	(void)day;
	(void)domain;
	(void)r;
	(void)a;
	cb(arg, FLEETAGG_OWN, now);
}

void
fleetagg_publish(struct fleetagg *fa, int64_t day, const char *domain,
    const struct rstate *r, int64_t now)
{
	(void)fa;
	(void)day;
	(void)domain;
	(void)r;
	(void)now;
}

void
fleetagg_release(struct fleetagg *fa, int64_t day, const char *domain)
{
	(void)fa;
	(void)day;
	(void)domain;
}

const char *
fleetagg_host(const struct fleetagg *fa)
{
	(void)fa;
	return ("localhost");
}

int
fleetagg_stats(const struct config *cf, struct store *store, int64_t now,
    FILE *fp)
{
	(void)cf;
	(void)store;
	(void)now;
	(void)fp;
	return (0);
}
#endif
