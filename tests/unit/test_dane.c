/*
 * test_dane.c - the pure parts of DANE (RFC 7672): TLSA usability, MX rdata,
 * the domain's state from its hosts' states, the cached DANE facts
 * (facts_dane_merge) and the answers they give with each map option
 * (facts_answer), and the map options in the configuration file
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "policy/dane.h"
#include "policy/facts.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

#define NOW	1700000000

/* --- TLSA ----------------------------------------------------------- */

static void
tlsa_usability_table(void **state)
{
	static const struct {
		unsigned char	 u, s, m;
		size_t		 len;
		int		 usable;
		const char	*why;
	} t[] = {
		{ 3, 1, 1, 32, 1, "DANE-EE SPKI SHA2-256" },
		{ 3, 0, 1, 32, 1, "DANE-EE Cert SHA2-256" },
		{ 2, 1, 1, 32, 1, "DANE-TA SPKI SHA2-256" },
		{ 2, 0, 2, 64, 1, "DANE-TA Cert SHA2-512" },
		{ 3, 1, 0, 91, 1, "DANE-EE SPKI Full" },
		{ 0, 1, 1, 32, 0, "PKIX-TA: not for SMTP (7672 3.1.3)" },
		{ 1, 1, 1, 32, 0, "PKIX-EE: not for SMTP" },
		{ 4, 1, 1, 32, 0, "unknown usage" },
		{ 3, 2, 1, 32, 0, "unknown selector" },
		{ 3, 1, 3, 32, 0, "unknown matching type" },
		{ 3, 1, 1, 31, 0, "SHA2-256 digest one byte short" },
		{ 3, 1, 1, 33, 0, "SHA2-256 digest one byte long" },
		{ 3, 1, 2, 32, 0, "SHA2-512 with a 32-byte digest" },
		{ 2, 1, 1, 20, 0, "DANE-TA, a SHA-1-sized digest" },
		{ 3, 1, 2, 63, 0, "SHA2-512 digest one byte short" },
		{ 3, 255, 1, 32, 0, "selector 255" },
		{ 255, 1, 1, 32, 0, "usage 255 (PrivCert)" },
		{ 3, 1, 255, 32, 0, "matching type 255 (PrivMatch)" },
	};
	unsigned char	 rd[3 + 128];
	struct dane_tlsa tl;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(rd, 0xab, sizeof(rd));
		rd[0] = t[i].u;
		rd[1] = t[i].s;
		rd[2] = t[i].m;
		assert_int_equal(dane_tlsa_parse(rd, 3 + t[i].len, &tl), 0);
		if (tl.usable != t[i].usable)
			fail_msg("%s: usable %d, want %d", t[i].why, tl.usable,
			    t[i].usable);
		assert_int_equal(tl.len, t[i].len);
		assert_int_equal(tl.usage, t[i].u);
	}
	/* no association data at all: malformed */
	assert_int_equal(dane_tlsa_parse(rd, 3, &tl), -1);
	assert_int_equal(dane_tlsa_parse(rd, 0, &tl), -1);
	/* long data: only DANE_MAX_DATA bytes kept, length known */
	rd[0] = 3; rd[1] = 0; rd[2] = 0;
	assert_int_equal(dane_tlsa_parse(rd, 3 + 128, &tl), 0);
	assert_int_equal(tl.len, 128);
	assert_int_equal(tl.usable, 1);
}

/* --- MX rdata -------------------------------------------------------- */

static void
mx_rdata(void **state)
{
	static const unsigned char ok[] = { 0, 10, 3, 'M', 'x', '1', 7, 'e',
	    'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0 };
	static const unsigned char null_mx[] = { 0, 0, 0 };
	static const unsigned char ptr[] = { 0, 10, 0xc0, 12 };
	static const unsigned char trailing[] = { 0, 5, 1, 'a', 0, 0 };
	static const unsigned char bad_char[] = { 0, 5, 2, 'a', '/', 0 };
	static const unsigned char cut[] = { 0, 5, 4, 'a', 'b' };
	char		 name[DOMAIN_BUFSZ];
	uint16_t	 pref;
	unsigned char	 big[2 + 5 * 64 + 1];
	size_t		 i, o = 2;

	(void)state;
	assert_int_equal(dane_mx_parse(ok, sizeof(ok), &pref, name), 0);
	assert_int_equal(pref, 10);
	assert_string_equal(name, "mx1.example.com");
	assert_int_equal(dane_mx_parse(null_mx, sizeof(null_mx), &pref, name),
	    0);
	assert_string_equal(name, "");
	assert_int_equal(pref, 0);
	assert_int_equal(dane_mx_parse(ptr, sizeof(ptr), &pref, name), -1);
	assert_int_equal(dane_mx_parse(trailing, sizeof(trailing), &pref,
	    name), -1);
	assert_int_equal(dane_mx_parse(bad_char, sizeof(bad_char), &pref,
	    name), -1);
	assert_int_equal(dane_mx_parse(cut, sizeof(cut), &pref, name), -1);
	assert_int_equal(dane_mx_parse(ok, 2, &pref, name), -1);
	/* five 63-byte labels: 319 > 253 bytes, refused, no overflow */
	big[0] = 0;
	big[1] = 1;
	for (i = 0; i < 5; i++) {
		big[o++] = 63;
		memset(big + o, 'a', 63);
		o += 63;
	}
	big[o++] = 0;
	assert_int_equal(dane_mx_parse(big, o, &pref, name), -1);
}

/* --- the domain's state ---------------------------------------------- */

/*
 * The domain's state over the hosts that resolved (a failed host is left
 * to Postfix), the DANE record facts_dane_merge() keeps at an injected
 * clock, and the answer an STS enforce domain (or a domain without
 * MTA-STS) gets with the default map options (dane_some = dane,
 * dane_lookup_failure = temp).
 */
/* the one MX pattern of the records below (read only) */
static char sts_mx[] = "mx.example.com";

static const char *answer(const struct cache_record *, int,
    const struct config_map *);

static void
aggregate_table(void **state)
{
#define A	DANE_ALL
#define N	DANE_NONE
#define F	DANE_FAILURE
#define T	DANE_TLS
#define END	-1
#define SEC	"OK secure match=mx.example.com servername=hostname"
	static const struct {
		const char	*name;
		int		 hosts[5];	/* END-terminated */
		enum dane_state	 want;
		const char	*sts_answer;	/* with an enforce policy */
		const char	*plain_answer;	/* without MTA-STS */
	} t[] = {
		{ "every host DANE", { A, A, END }, DANE_ALL,
		  "OK dane-only", "OK dane-only" },
		{ "one DANE, one without", { A, N, END }, DANE_SOME,
		  "OK dane", "OK dane" },
		{ "no DANE", { N, N, END }, DANE_NONE,
		  "OK secure match=mx.example.com servername=hostname",
		  "NOTFOUND" },
		{ "one DANE host, one failed: left to Postfix", { A, F, END },
		  DANE_ALL, "OK dane-only", "OK dane-only" },
		{ "no TLSA, third host failed", { N, N, F, END }, DANE_NONE,
		  "OK secure match=mx.example.com servername=hostname",
		  "NOTFOUND" },
		{ "DANE, none, failed", { N, F, A, END }, DANE_SOME,
		  "OK dane", "OK dane" },
		{ "every host failed: nothing known", { F, F, END },
		  DANE_FAILURE, "TEMP DNSSEC lookup of MX or TLSA", NULL },
		{ "the only host failed", { F, END }, DANE_FAILURE,
		  "TEMP DNSSEC lookup of MX or TLSA", NULL },
		{ "no hosts", { END }, DANE_NONE,
		  "OK secure match=mx.example.com servername=hostname",
		  "NOTFOUND" },
		/* RFC 7672 §2.2: TLSA records, none usable: TLS required */
		{ "every host TLSA, none usable", { T, T, END }, DANE_TLS,
		  SEC, "OK encrypt" },
		{ "the only host TLSA, none usable", { T, END }, DANE_TLS,
		  SEC, "OK encrypt" },
		{ "TLSA none usable, one host without", { T, N, END },
		  DANE_TLS_SOME, SEC, "OK dane" },
		{ "TLSA none usable, one host failed: not encrypt",
		  { T, F, END },
		  DANE_TLS_SOME, SEC, "OK dane" },
		{ "TLSA none usable, without, failed", { N, F, T, END },
		  DANE_TLS_SOME, SEC, "OK dane" },
		{ "one DANE, one TLSA none usable", { T, A, END }, DANE_SOME,
		  "OK dane", "OK dane" },
		{ "DANE, TLSA none usable, failed", { A, T, F, END },
		  DANE_SOME, "OK dane", "OK dane" },
		{ "DANE, DANE, TLSA none usable, none", { A, A, T, N, END },
		  DANE_SOME, "OK dane", "OK dane" },
	};
#undef A
#undef N
#undef F
#undef T
#undef END
#undef SEC
	enum dane_state	 hosts[5];
	struct dane_result res;
	struct cache_record sts, rec;
	struct config_map map;
	const char	*got;
	size_t		 i, n;

	(void)state;
	memset(&sts, 0, sizeof(sts));
	sts.kind = CACHE_KIND_STS;
	sts.sts_mode = CACHE_STS_ENFORCE;
	sts.max_age = 86400;
	sts.expires_at = NOW + 86400;
	sts.nmx = 1;			/* read only: static storage */
	sts.mx = sts_mx;
	sts.mxlen = sts.mxcap = sizeof(sts_mx);
	memset(&map, 0, sizeof(map));
	map.name = "postfix";
	map.dane = 1;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (n = 0; t[i].hosts[n] != -1; n++)
			hosts[n] = (enum dane_state)t[i].hosts[n];
		if (dane_aggregate(hosts, n) != t[i].want)
			fail_msg("%s: state %s, want %s", t[i].name,
			    dane_state_name(dane_aggregate(hosts, n)),
			    dane_state_name(t[i].want));
		/* what the cache keeps at the injected clock */
		memset(&res, 0, sizeof(res));
		res.state = t[i].want;
		res.ttl = 3600;
		res.mx_security = DNS_SECURE;
		assert_int_equal(facts_dane_merge(NULL, &res, NOW, &rec), 1);
		assert_int_equal(rec.dane, t[i].want);
		assert_true(rec.expires_at > NOW);
		got = answer(&sts, rec.dane, &map);
		if (strncmp(got, t[i].sts_answer, strlen(t[i].sts_answer)) != 0)
			fail_msg("%s (STS enforce): \"%s\", want \"%s\"",
			    t[i].name, got, t[i].sts_answer);
		if (t[i].plain_answer != NULL &&
		    strcmp(answer(NULL, rec.dane, &map), t[i].plain_answer) != 0)
			fail_msg("%s (no MTA-STS): \"%s\", want \"%s\"",
			    t[i].name, answer(NULL, rec.dane, &map),
			    t[i].plain_answer);
	}
	assert_string_equal(dane_state_name(DANE_SOME), "some");
	assert_string_equal(dane_state_name(DANE_TLS), "tls-required");
	assert_string_equal(dane_state_name(DANE_TLS_SOME), "tls-some");
	assert_string_equal(dane_state_name((enum dane_state)6), "unknown");
}

/* --- cached DANE facts ------------------------------------------------ */

static void
merge_lifetimes(void **state)
{
	struct dane_result res;
	struct cache_record out, old;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.state = DANE_ALL;
	res.ttl = 3600;
	res.mx_security = DNS_SECURE;
	assert_int_equal(facts_dane_merge(NULL, &res, NOW, &out), 1);
	assert_int_equal(out.kind, CACHE_KIND_DANE);
	assert_int_equal(out.dane, DANE_ALL);
	assert_int_equal(out.dnssec, CACHE_DNSSEC_SECURE);
	assert_int_equal(out.expires_at, NOW + 3600);
	assert_int_equal(out.next_refresh, NOW + 2700);	/* proactive */

	res.state = DANE_NONE;
	res.mx_security = DNS_INSECURE;
	assert_int_equal(facts_dane_merge(NULL, &res, NOW, &out), 1);
	assert_int_equal(out.dane, DANE_NONE);
	assert_int_equal(out.next_refresh, out.expires_at);	/* expires */

	/* a failure keeps an unexpired DANE record, retried soon */
	res.state = DANE_ALL;
	res.mx_security = DNS_SECURE;
	facts_dane_merge(NULL, &res, NOW, &old);
	res.state = DANE_FAILURE;
	res.ttl = 60;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 3000, &out), 1);
	assert_int_equal(out.dane, DANE_ALL);
	assert_int_equal(out.expires_at, NOW + 3600);
	assert_int_equal(out.next_refresh, NOW + 3000 + FACTS_DANE_RETRY);
	assert_int_not_equal(out.last_error, 0);
	/* ... but not an expired one: then the failure is the fact */
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 3600, &out), 1);
	assert_int_equal(out.dane, DANE_FAILURE);
	assert_int_equal(out.expires_at, NOW + 3600 + 60);
	/* a new answer replaces the old one: TLSA removed by its owner */
	res.state = DANE_NONE;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 10, &out), 1);
	assert_int_equal(out.dane, DANE_NONE);
	/* ... but an MX lookup that failed without a DNSSEC verdict (dane.c
	 * says "none" then) is no answer: the unexpired record stays */
	res.mx_fail = DANE_FAIL_SERVFAIL;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 10, &out), 1);
	assert_int_equal(out.dane, DANE_ALL);
	assert_int_equal(out.next_refresh, NOW + 10 + FACTS_DANE_RETRY);
	res.mx_fail = DANE_FAIL_TIMEOUT;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 10, &out), 1);
	assert_int_equal(out.dane, DANE_ALL);
	/* with nothing cached it is "no DANE", MTA-STS decides */
	assert_int_equal(facts_dane_merge(NULL, &res, NOW + 10, &out), 1);
	assert_int_equal(out.dane, DANE_NONE);

	/* TLS required (RFC 7672 §2.2): refreshed ahead like DANE, and
	 * kept over a failure like DANE */
	memset(&res, 0, sizeof(res));
	res.ttl = 3600;
	res.mx_security = DNS_SECURE;
	res.state = DANE_TLS;
	assert_int_equal(facts_dane_merge(NULL, &res, NOW, &old), 1);
	assert_int_equal(old.dane, DANE_TLS);
	assert_int_equal(old.next_refresh, NOW + 2700);
	res.state = DANE_TLS_SOME;
	assert_int_equal(facts_dane_merge(NULL, &res, NOW, &out), 1);
	assert_int_equal(out.next_refresh, NOW + 2700);
	res.state = DANE_FAILURE;
	res.ttl = 60;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 100, &out), 1);
	assert_int_equal(out.dane, DANE_TLS);
	assert_int_equal(out.next_refresh, NOW + 100 + FACTS_DANE_RETRY);
	/* the records became usable: the new state replaces it */
	res.state = DANE_ALL;
	res.ttl = 3600;
	assert_int_equal(facts_dane_merge(&old, &res, NOW + 100, &out), 1);
	assert_int_equal(out.dane, DANE_ALL);
}

/* answer - facts_answer's reply "STATUS data" for sts and dane records */
static const char *
answer(const struct cache_record *sts, int dane_state,
    const struct config_map *map)
{
	static char	 out[512];
	static struct sts_policy *pol;
	struct cache_record dane;
	struct buf	 b;
	char		 data[256];
	int		 st;

	if (pol == NULL)
		pol = calloc(1, sizeof(*pol));
	memset(&dane, 0, sizeof(dane));
	dane.kind = CACHE_KIND_DANE;
	dane.dane = (uint8_t)dane_state;
	buf_init_fixed(&b, data, sizeof(data) - 1);
	st = facts_answer("example.com", sts, dane_state < 0 ? NULL : &dane,
	    NULL, map, pol, &b, NULL);
	data[b.len] = '\0';
	snprintf(out, sizeof(out), "%s%s%s", sockmap_status_name(st),
	    b.len > 0 ? " " : "", data);
	return (out);
}

static void
answers_with_map_options(void **state)
{
	struct cache_record sts;
	struct config_map map;

	(void)state;
	memset(&sts, 0, sizeof(sts));
	sts.kind = CACHE_KIND_STS;
	sts.sts_mode = CACHE_STS_ENFORCE;
	sts.max_age = 86400;
	sts.nmx = 1;			/* read only: static storage */
	sts.mx = sts_mx;
	sts.mxlen = sts.mxcap = sizeof(sts_mx);
	memset(&map, 0, sizeof(map));
	map.name = "postfix";
	map.dane = 1;

	/* DANE wins over STS enforce (RFC 8461 §2) */
	assert_string_equal(answer(&sts, DANE_ALL, &map), "OK dane-only");
	assert_string_equal(answer(NULL, DANE_ALL, &map), "OK dane-only");
	assert_string_equal(answer(&sts, DANE_NONE, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(&sts, -1, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(NULL, DANE_NONE, &map), "NOTFOUND");
	/* dane_some */
	assert_string_equal(answer(&sts, DANE_SOME, &map), "OK dane");
	map.dane_some = CONFIG_DANE_SOME_DANE_ONLY;
	assert_string_equal(answer(&sts, DANE_SOME, &map), "OK dane-only");
	map.dane_some = CONFIG_DANE_SOME_IGNORE;
	assert_string_equal(answer(&sts, DANE_SOME, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(NULL, DANE_SOME, &map), "NOTFOUND");
	/* dane_lookup_failure: temp wins over STS, ignore falls through */
	assert_string_equal(answer(&sts, DANE_FAILURE, &map),
	    "TEMP DNSSEC lookup of MX or TLSA records failed or was bogus "
	    "for example.com");
	map.dane_lookup_failure = CONFIG_DANE_FAILURE_IGNORE;
	assert_string_equal(answer(&sts, DANE_FAILURE, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(NULL, DANE_FAILURE, &map), "NOTFOUND");
	/* TLSA records, none usable (RFC 7672 §2.2): encrypt, or "dane"
	 * where only some hosts have them; an enforce policy's "secure"
	 * asks more; dane_some = ignore leaves only the partial case to
	 * MTA-STS */
	map.dane_lookup_failure = CONFIG_DANE_FAILURE_TEMP;
	map.dane_some = CONFIG_DANE_SOME_DANE;
	assert_string_equal(answer(NULL, DANE_TLS, &map), "OK encrypt");
	assert_string_equal(answer(&sts, DANE_TLS, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(NULL, DANE_TLS_SOME, &map), "OK dane");
	assert_string_equal(answer(&sts, DANE_TLS_SOME, &map),
	    "OK secure match=mx.example.com servername=hostname");
	map.dane_some = CONFIG_DANE_SOME_DANE_ONLY;
	assert_string_equal(answer(NULL, DANE_TLS, &map), "OK encrypt");
	assert_string_equal(answer(NULL, DANE_TLS_SOME, &map), "OK dane");
	map.dane_some = CONFIG_DANE_SOME_IGNORE;
	assert_string_equal(answer(NULL, DANE_TLS, &map), "OK encrypt");
	assert_string_equal(answer(NULL, DANE_TLS_SOME, &map), "NOTFOUND");
	assert_string_equal(answer(&sts, DANE_TLS_SOME, &map),
	    "OK secure match=mx.example.com servername=hostname");
	map.dane_some = CONFIG_DANE_SOME_DANE;
	/* a state a newer daemon wrote: this daemon's answer for none */
	assert_string_equal(answer(NULL, 6, &map), "NOTFOUND");
	assert_string_equal(answer(NULL, 255, &map), "NOTFOUND");
	assert_string_equal(answer(&sts, 6, &map),
	    "OK secure match=mx.example.com servername=hostname");
	/* dane = no: the DANE facts are not looked at */
	map.dane = 0;
	assert_string_equal(answer(&sts, DANE_ALL, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(&sts, DANE_FAILURE, &map),
	    "OK secure match=mx.example.com servername=hostname");
	assert_string_equal(answer(NULL, DANE_TLS, &map), "NOTFOUND");
	assert_string_equal(answer(NULL, DANE_TLS_SOME, &map), "NOTFOUND");
}

/*
 * The new states in the cache record (issue 29): the dane byte is opaque
 * to the codec, so 4 and 5 round-trip in the same format version, and
 * any value decodes (what an older daemon does with them: its default).
 */
static void
tls_states_in_the_cache_record(void **state)
{
	static const uint8_t states[] = { DANE_NONE, DANE_ALL, DANE_SOME,
	    DANE_FAILURE, DANE_TLS, DANE_TLS_SOME, 6, 255 };
	unsigned char	 enc[CACHE_RECORD_MAX_LEN];
	unsigned char	 enc2[CACHE_RECORD_MAX_LEN];
	struct cache_record rec, got;
	size_t		 i, len, len2;

	(void)state;
	cache_record_init(&rec);
	cache_record_init(&got);
	for (i = 0; i < sizeof(states); i++) {
		cache_record_reset(&rec);
		rec.kind = CACHE_KIND_DANE;
		rec.dnssec = CACHE_DNSSEC_SECURE;
		rec.dane = states[i];
		rec.fetched_at = NOW;
		rec.expires_at = NOW + 3600;
		rec.next_refresh = NOW + 2700;
		assert_int_equal(cache_record_encode(&rec, enc, sizeof(enc),
		    &len), 0);
		assert_int_equal(enc[1], CACHE_RECORD_VERSION);
		assert_int_equal(cache_record_decode(enc, len, &got),
		    CACHE_DECODE_OK);
		assert_int_equal(got.dane, states[i]);
		assert_int_equal(cache_record_encode(&got, enc2, sizeof(enc2),
		    &len2), 0);
		assert_int_equal(len2, len);
		assert_memory_equal(enc, enc2, len);
	}
	assert_int_equal(facts_decide_dane(DANE_TLS), DECIDE_DANE_TLS);
	assert_int_equal(facts_decide_dane(DANE_TLS_SOME),
	    DECIDE_DANE_TLS_SOME);
	assert_int_equal(facts_decide_dane(6), DECIDE_DANE_NONE);
	cache_record_release(&rec);
	cache_record_release(&got);
}

/* --- configuration ---------------------------------------------------- */

/* load - config_load() of text, errors in err */
static struct config *
load(const char *text, char *err, size_t errsz)
{
	char		 path[] = "/tmp/test_dane.XXXXXX";
	struct config	*cf;
	int		 fd;

	if ((fd = mkstemp(path)) == -1)
		fail_msg("mkstemp");
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail_msg("write");
	close(fd);
	cf = config_load(path, err, errsz);
	unlink(path);
	return (cf);
}

static void
config_map_options(void **state)
{
	struct config	*cf;
	char		 err[2048];

	(void)state;
	cf = load("", err, sizeof(err));
	assert_non_null(cf);
	assert_int_equal(cf->maps[0].dane, 1);
	assert_int_equal(cf->maps[0].dane_some, CONFIG_DANE_SOME_DANE);
	assert_int_equal(cf->maps[0].dane_lookup_failure,
	    CONFIG_DANE_FAILURE_TEMP);
	assert_int_equal(cf->dane, 1);
	config_free(cf);

	cf = load("map postfix {\n  dane_some = dane-only\n"
	    "  dane_lookup_failure = ignore\n}\n"
	    "map nodane { dane = no }\n", err, sizeof(err));
	assert_non_null(cf);
	assert_int_equal(cf->maps[0].dane_some, CONFIG_DANE_SOME_DANE_ONLY);
	assert_int_equal(cf->maps[0].dane_lookup_failure,
	    CONFIG_DANE_FAILURE_IGNORE);
	assert_int_equal(cf->maps[1].dane, 0);
	assert_int_equal(cf->dane, 1);
	config_free(cf);

	cf = load("map a { dane = no }\n", err, sizeof(err));
	assert_non_null(cf);
	assert_int_equal(cf->dane, 0);	/* the resolver skips DANE */
	config_free(cf);

	cf = load("map postfix {\n  dane_some = sometimes\n}\n", err,
	    sizeof(err));
	assert_null(cf);
	if (strstr(err, ":2: ") == NULL || strstr(err, "dane_some") == NULL)
		fail_msg("error without file:line: %s", err);
	cf = load("map postfix {\n\n  dane_lookup_failure = defer\n}\n", err,
	    sizeof(err));
	assert_null(cf);
	if (strstr(err, ":3: ") == NULL ||
	    strstr(err, "dane_lookup_failure") == NULL)
		fail_msg("error without file:line: %s", err);
}

struct mx_case {
	const char	*name;
	const char	*rdata;
	size_t		 len;
	int		 ret;
	unsigned	 pref;		/* ret 0 */
	const char	*host;		/* ret 0 */
};

static const struct mx_case mx_cases[] = {
	{ "mx: two labels", "\x00\x0a\x02mx\x07""example\x00", 14, 0, 10,
	    "mx.example" },
	{ "mx: upper case folded", "\x01\x00\x02MX\x03""COM\x00", 10, 0, 256,
	    "mx.com" },
	{ "mx: null MX is the root", "\x00\x00\x00", 3, 0, 0, "" },
	{ "mx: underscore and hyphen allowed", "\x00\x01\x04_a-b\x00", 8, 0,
	    1, "_a-b" },
	{ "mx: truncated name", "\x00\x0a\x05mx", 5, -1, 0, NULL },
	{ "mx: label longer than the rest", "\x00\x0a\x09mx\x00", 6, -1, 0, NULL },
	{ "mx: compression pointer refused", "\x00\x0a\xc0\x0c", 4, -1, 0, NULL },
	{ "mx: trailing garbage", "\x00\x0a\x02mx\x00x", 7, -1, 0, NULL },
	{ "mx: space in a label", "\x00\x0a\x03m x\x00", 7, -1, 0, NULL },
	{ "mx: dot in a label", "\x00\x0a\x03m.x\x00", 7, -1, 0, NULL },
	{ "mx: too short", "\x00\x0a", 2, -1, 0, NULL },
};

/* mx_rdata_table - the cases postsmtpsts-check had for its own MX
 * parser before it used dane.c's */
static void
mx_rdata_table(void **state)
{
	char	 name[DOMAIN_BUFSZ];
	uint16_t pref;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(mx_cases) / sizeof(mx_cases[0]); i++) {
		const struct mx_case *c = &mx_cases[i];

		pref = 9999;
		if (dane_mx_parse((const unsigned char *)c->rdata, c->len,
		    &pref, name) != c->ret)
			fail_msg("%s: want %d", c->name, c->ret);
		if (c->ret == 0 && (pref != c->pref ||
		    strcmp(name, c->host) != 0))
			fail_msg("%s: got %u %s", c->name, pref, name);
	}
}

/* a name of more than DOMAIN_MAX_LEN characters is refused */
static void
mx_too_long(void **state)
{
	unsigned char rd[2 + 5 * 64 + 1];
	char	 name[DOMAIN_BUFSZ];
	uint16_t pref;
	size_t	 i, pos = 2;

	(void)state;
	rd[0] = 0;
	rd[1] = 10;
	for (i = 0; i < 5; i++) {	/* 5 labels of 50: 254 characters */
		rd[pos++] = 50;
		memset(rd + pos, 'a', 50);
		pos += 50;
	}
	rd[pos++] = 0;
	assert_int_equal(dane_mx_parse(rd, pos, &pref, name), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tlsa_usability_table),
		cmocka_unit_test(mx_rdata),
		cmocka_unit_test(mx_rdata_table),
		cmocka_unit_test(mx_too_long),
		cmocka_unit_test(aggregate_table),
		cmocka_unit_test(merge_lifetimes),
		cmocka_unit_test(answers_with_map_options),
		cmocka_unit_test(tls_states_in_the_cache_record),
		cmocka_unit_test(config_map_options),
	};

	return (cmocka_run_group_tests_name("dane", tests, NULL, NULL));
}
