/*
 * test_import.c - unit tests for postsmtpsts-cache import's pure parts:
 * an entry made a record (import_row.c), postfix-mta-sts-resolver's JSON
 * (import_sts_resolver.c), postfix-tlspol's gob cache (import_tlspol.c),
 * the Redis URL (%-decoding) and the bounds on a Redis reply
 * (import_redis.c)
 *
 * The JSON bodies in the tables are what the peer's own code writes
 * (json.dumps of utils.parse_mta_sts_policy with max_age made an int, as
 * its resolver does); the two tlspol files under tests/unit/data were
 * written by postfix-tlspol 1.13.0 (branches) and 1.8.18 (legacy) against
 * the loopback world on 2026-12-06 at about 08:14:42Z and 08:15:10Z, so
 * the tests that read them fix "now" near that time.  Inputs are copied
 * into heap blocks of exactly their length (no NUL), so ASan catches any
 * access out of bounds.  Each table row is its own TAP test.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "policy/facts.h"
#include "policy/sts_policy.h"
#include "tools/import_redis.h"
#include "tools/import_row.h"
#include "tools/import_sts_resolver.h"
#include "tools/import_tlspol.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)
#define NOW		1796545000	/* 2026-12-06T08:16:40Z */
#define DAY		86400

static const struct config_cache test_cc;	/* refresh_before 0 */

/* heap_copy - s[0..len) in a heap block of exactly len bytes */
static char *
heap_copy(const char *s, size_t len)
{
	char	*p = malloc(len > 0 ? len : 1);

	assert_non_null(p);
	if (len > 0)
		memcpy(p, s, len);
	return (p);
}

/* ---- import_row_record ------------------------------------------------ */

struct row_case {
	const char	*name;
	const char	*domain;
	int64_t		 fetched_at;
	const char	*id;
	const char	*policy;
	enum import_row_status want;
	const char	*key;		/* OK and EXPIRED */
	int		 mode;		/* OK: enum cache_sts_mode */
	uint32_t	 max_age;	/* OK */
	const char	*mx;		/* OK: the patterns, " "-joined */
};

#define ENF(mx, age)	"version: STSv1\nmode: enforce\nmx: " mx \
			"\nmax_age: " age "\n"

static const struct row_case row_cases[] = {
	{ "enforce, fetched an hour ago", "example.com", NOW - 3600, "id1",
	    ENF("mx1.example.com", "86400"), IMPORT_ROW_OK, "example.com",
	    CACHE_STS_ENFORCE, DAY, "mx1.example.com" },
	{ "testing, two patterns, one a wildcard", "example.org", NOW - 60,
	    "20240101T000000",
	    "version: STSv1\nmode: testing\nmx: mx.example.org\n"
	    "mx: *.example.org\nmax_age: 604800\n", IMPORT_ROW_OK,
	    "example.org", CACHE_STS_TESTING, 604800,
	    "mx.example.org *.example.org" },
	{ "mode none without mx (a domain retiring its policy)",
	    "retired.example", NOW - 60, "gone",
	    "version: STSv1\nmode: none\nmax_age: 86400\n", IMPORT_ROW_OK,
	    "retired.example", CACHE_STS_NONE, DAY, "" },
	{ "the key is normalized: case, trailing dot", "Mail.Example.COM.",
	    NOW - 60, "a", ENF("mx.example.com", "86400"), IMPORT_ROW_OK,
	    "mail.example.com", CACHE_STS_ENFORCE, DAY, "mx.example.com" },
	{ "no id (postfix-tlspol keeps none)", "example.net", NOW - 60, "",
	    ENF("mx.example.net", "3600"), IMPORT_ROW_OK, "example.net",
	    CACHE_STS_ENFORCE, 3600, "mx.example.net" },
	{ "an id of 32 letters and digits", "example.net", NOW - 60,
	    "0123456789abcdefABCDEF0123456789", ENF("mx.example.net", "3600"),
	    IMPORT_ROW_OK, "example.net", CACHE_STS_ENFORCE, 3600,
	    "mx.example.net" },
	{ "max_age above a year is capped, as a fetch caps it",
	    "example.com", NOW - 60, "big", ENF("mx.example.com", "99999999"),
	    IMPORT_ROW_OK, "example.com", CACHE_STS_ENFORCE, 31557600,
	    "mx.example.com" },
	{ "one second of life left", "example.com", NOW - DAY + 1, "x",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_OK, "example.com",
	    CACHE_STS_ENFORCE, DAY, "mx.example.com" },
	{ "a fetch time a little ahead of our clock (skew)", "example.com",
	    NOW + IMPORT_ROW_SKEW, "x", ENF("mx.example.com", "86400"),
	    IMPORT_ROW_OK, "example.com", CACHE_STS_ENFORCE, DAY,
	    "mx.example.com" },
	{ "expired exactly now (fetched_at + max_age == now)", "example.com",
	    NOW - DAY, "x", ENF("mx.example.com", "86400"), IMPORT_ROW_EXPIRED,
	    "example.com", 0, 0, NULL },
	{ "expired long ago", "example.com", NOW - 30 * DAY, "x",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_EXPIRED, "example.com",
	    0, 0, NULL },
	{ "max_age 0 is expired at once", "example.com", NOW - 1, "x",
	    ENF("mx.example.com", "0"), IMPORT_ROW_EXPIRED, "example.com", 0,
	    0, NULL },
	{ "fetched in the future", "example.com", NOW + IMPORT_ROW_SKEW + 1,
	    "x", ENF("mx.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL,
	    0, 0, NULL },
	{ "fetch time 0", "example.com", 0, "x", ENF("mx.example.com",
	    "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "a next hop, not a domain", "[192.0.2.1]", NOW - 60, "x",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "a parent-domain key", ".example.com", NOW - 60, "x",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "a DANE cache key", "dane:example.com", NOW - 60, "x",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "an empty domain", "", NOW - 60, "x", ENF("mx.example.com",
	    "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "an id with punctuation", "example.com", NOW - 60, "2024-01-01",
	    ENF("mx.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "an id of 33 characters", "example.com", NOW - 60,
	    "0123456789abcdefABCDEF0123456789x", ENF("mx.example.com",
	    "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "an id with a semicolon (an injected TXT field)", "example.com",
	    NOW - 60, "a;id=b", ENF("mx.example.com", "86400"),
	    IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "enforce without mx", "example.com", NOW - 60, "x",
	    "version: STSv1\nmode: enforce\nmax_age: 86400\n",
	    IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "an IP address as mx pattern", "example.com", NOW - 60, "x",
	    ENF("192.0.2.25", "86400"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "a wildcard inside a pattern", "example.com", NOW - 60, "x",
	    ENF("mx.*.example.com", "86400"), IMPORT_ROW_MALFORMED, NULL, 0,
	    0, NULL },
	{ "no max_age", "example.com", NOW - 60, "x",
	    "version: STSv1\nmode: enforce\nmx: mx.example.com\n",
	    IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "max_age not a number", "example.com", NOW - 60, "x",
	    ENF("mx.example.com", "-1"), IMPORT_ROW_MALFORMED, NULL, 0, 0,
	    NULL },
	{ "version STSv2", "example.com", NOW - 60, "x",
	    "version: STSv2\nmode: enforce\nmx: mx.example.com\n"
	    "max_age: 86400\n", IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
	{ "unknown mode", "example.com", NOW - 60, "x",
	    "version: STSv1\nmode: strict\nmx: mx.example.com\n"
	    "max_age: 86400\n", IMPORT_ROW_MALFORMED, NULL, 0, 0, NULL },
};

/* mx_joined - rec's patterns joined by " " into buf */
static const char *
mx_joined(const struct cache_record *rec, char *buf, size_t bufsz)
{
	const char	*mx;
	size_t		 pos, n = 0;

	buf[0] = '\0';
	for (pos = 0; (mx = cache_record_mx_next(rec, &pos, NULL)) != NULL; )
		n += (size_t)snprintf(buf + n, bufsz - n, "%s%s",
		    n > 0 ? " " : "", mx);
	return (buf);
}

/* run_row_case - one row_cases row */
static void
run_row_case(void **state)
{
	const struct row_case *tc = *state;
	struct import_row row;
	struct cache_record rec = { 0 };
	struct sts_policy *pol;
	char		 key[DOMAIN_BUFSZ], why[IMPORT_ROW_WHY_LEN], mx[512];
	enum import_row_status st;

	pol = calloc(1, sizeof(*pol));
	assert_non_null(pol);
	memset(&row, 0, sizeof(row));
	row.domainlen = strlen(tc->domain);
	row.domain = heap_copy(tc->domain, row.domainlen);
	row.fetched_at = tc->fetched_at;
	row.idlen = strlen(tc->id);
	row.id = heap_copy(tc->id, row.idlen);
	row.policylen = strlen(tc->policy);
	row.policy = heap_copy(tc->policy, row.policylen);
	st = import_row_record(&row, &test_cc, NOW, pol, key, &rec, why,
	    sizeof(why));
	if (st != tc->want)
		print_message("# status %s, why: %s\n",
		    import_row_status_name(st), why);
	assert_int_equal(st, tc->want);
	if (st == IMPORT_ROW_MALFORMED)
		assert_true(why[0] != '\0');
	else
		assert_string_equal(key, tc->key);
	if (st == IMPORT_ROW_OK) {
		/* exactly what a fetch at fetched_at would have stored */
		assert_int_equal(rec.kind, CACHE_KIND_STS);
		assert_int_equal(rec.sts_mode, tc->mode);
		assert_int_equal(rec.max_age, tc->max_age);
		assert_int_equal(rec.fetched_at, tc->fetched_at);
		assert_int_equal(rec.expires_at, tc->fetched_at +
		    (int64_t)tc->max_age);
		assert_int_equal(rec.next_refresh, facts_next_refresh(key,
		    tc->fetched_at, tc->max_age, 0));
		assert_int_equal(rec.txt_checked_at, tc->fetched_at);
		assert_int_equal(rec.txt_ttl, 0);
		assert_int_equal(rec.dnssec, CACHE_DNSSEC_UNKNOWN);
		assert_int_equal(rec.last_error, 0);
		assert_string_equal(rec.id, tc->id);
		assert_string_equal(mx_joined(&rec, mx, sizeof(mx)), tc->mx);
		assert_true(cache_record_fresh(&rec, NOW));
	}
	free((void *)row.domain);
	free((void *)row.id);
	free((void *)row.policy);
	free(pol);
	cache_record_release(&rec);
}

/* ---- postfix-mta-sts-resolver's JSON ----------------------------------- */

struct body_case {
	const char	*name;
	const char	*json;
	size_t		 len;
	int		 ok;
	const char	*text;		/* ok: the policy text */
};

static const struct body_case body_cases[] = {
	{ "enforce, as the peer writes it", IN("{\"mx\": [\"mx1.example.com\", "
	    "\"*.example.net\"], \"version\": \"STSv1\", \"mode\": "
	    "\"enforce\", \"max_age\": 86400}"), 1,
	    "version: STSv1\nmode: enforce\nmax_age: 86400\n"
	    "mx: mx1.example.com\nmx: *.example.net\n" },
	{ "testing with an extension field (escapes, skipped)",
	    IN("{\"mx\": [\"mx.example.org\"], \"version\": \"STSv1\", "
	    "\"mode\": \"testing\", \"max_age\": 604800, \"x-note\": "
	    "\"caf\\u00e9 \\\"quoted\\\"\"}"), 1,
	    "version: STSv1\nmode: testing\nmax_age: 604800\n"
	    "mx: mx.example.org\n" },
	{ "mode none, empty mx list", IN("{\"mx\": [], \"version\": "
	    "\"STSv1\", \"mode\": \"none\", \"max_age\": 86400}"), 1,
	    "version: STSv1\nmode: none\nmax_age: 86400\n" },
	{ "no whitespace, fields in any order", IN("{\"max_age\":5,\"mode\":"
	    "\"enforce\",\"version\":\"STSv1\",\"mx\":[\"a.example\"]}"), 1,
	    "version: STSv1\nmode: enforce\nmax_age: 5\nmx: a.example\n" },
	{ "max_age as digits in a string", IN("{\"mode\": \"enforce\", "
	    "\"max_age\": \"86400\", \"version\": \"STSv1\", \"mx\": "
	    "[\"a.example\"]}"), 1,
	    "version: STSv1\nmode: enforce\nmax_age: 86400\nmx: a.example\n" },
	{ "nested extension values are skipped", IN("{\"x\": {\"a\": [1, "
	    "2.5e3, true, false, null, {}]}, \"mode\": \"testing\", "
	    "\"version\": \"STSv1\", \"max_age\": 1, \"mx\": [\"a.example\"]}"),
	    1, "version: STSv1\nmode: testing\nmax_age: 1\nmx: a.example\n" },
	{ "a surrogate pair in an extension value", IN("{\"x\": "
	    "\"\\ud83d\\ude00\", \"mode\": \"none\", \"version\": \"STSv1\", "
	    "\"max_age\": 1, \"mx\": []}"), 1,
	    "version: STSv1\nmode: none\nmax_age: 1\n" },
	{ "missing fields are left to the policy parser", IN("{\"mx\": []}"),
	    1, "" },
	{ "a mode holding a newline (an injected line)", IN("{\"mode\": "
	    "\"enforce\\nmx: evil.example\", \"version\": \"STSv1\", "
	    "\"max_age\": 1, \"mx\": [\"a.example\"]}"), 0, NULL },
	{ "an mx pattern holding a CR", IN("{\"mode\": \"enforce\", "
	    "\"version\": \"STSv1\", \"max_age\": 1, \"mx\": [\"a.example\\r\"]}"),
	    0, NULL },
	{ "max_age with a fraction", IN("{\"mode\": \"enforce\", \"version\": "
	    "\"STSv1\", \"max_age\": 86400.5, \"mx\": [\"a.example\"]}"), 0,
	    NULL },
	{ "max_age negative", IN("{\"mode\": \"enforce\", \"version\": "
	    "\"STSv1\", \"max_age\": -1, \"mx\": [\"a.example\"]}"), 0, NULL },
	{ "mx not a list", IN("{\"mode\": \"enforce\", \"version\": \"STSv1\", "
	    "\"max_age\": 1, \"mx\": \"a.example\"}"), 0, NULL },
	{ "mode twice", IN("{\"mode\": \"enforce\", \"mode\": \"none\"}"), 0,
	    NULL },
	{ "not an object", IN("[\"enforce\"]"), 0, NULL },
	{ "truncated", IN("{\"mx\": [\"a.example\""), 0, NULL },
	{ "bytes after the object", IN("{\"mx\": []} x"), 0, NULL },
	{ "an unescaped control character", IN("{\"mode\": \"en\tforce\"}"),
	    0, NULL },
	{ "a lone high surrogate", IN("{\"x\": \"\\ud83d\"}"), 0, NULL },
	{ "a number with a leading zero", IN("{\"x\": 01}"), 0, NULL },
	{ "nested too deep", IN("{\"x\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"),
	    0, NULL },
	{ "empty input", IN(""), 0, NULL },
};

/* run_body_case - one body_cases row */
static void
run_body_case(void **state)
{
	const struct body_case *tc = *state;
	char		*json, *text, why[IMPORT_ROW_WHY_LEN];
	size_t		 textlen = 0;
	int		 rv;

	json = heap_copy(tc->json, tc->len);
	text = malloc(IMPORT_STS_RESOLVER_TEXT);
	assert_non_null(text);
	rv = import_sts_resolver_body(json, tc->len, text,
	    IMPORT_STS_RESOLVER_TEXT, &textlen, why, sizeof(why));
	if (rv != (tc->ok ? 0 : -1))
		print_message("# why: %s\n", why);
	assert_int_equal(rv, tc->ok ? 0 : -1);
	if (tc->ok) {
		assert_string_equal(text, tc->text);
		assert_int_equal(textlen, strlen(tc->text));
	} else
		assert_true(why[0] != '\0');
	free(json);
	free(text);
}

/* member - a Redis member as the peer packs it: UUID bytes, then JSON */
static void
member(void **state)
{
	static const char good[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"
	    "\x0b\x0c\x0d\x0e\x0f\x00" "[\"abc123\", {\"mx\": [\"mx.example\"], "
	    "\"version\": \"STSv1\", \"mode\": \"enforce\", \"max_age\": 60}]";
	static const char noid[] = "0123456789abcdef[null, {\"mx\": [], "
	    "\"version\": \"STSv1\", \"mode\": \"none\", \"max_age\": 60}]";
	static const char *const bad[] = {
	    "0123456789abcdef{\"mx\": []}",
	    "0123456789abcdef[\"abc\"]",
	    "0123456789abcdef[1, {}]",
	    "0123456789abcdef[\"0123456789abcdef0123456789abcdefX\", {}]",
	    "0123456789abcdef[\"a\", {}, 3]",
	    "0123456789abcdef",
	    "short",
	};
	char		*p, *text, id[STS_RECORD_ID_MAX + 1];
	char		 why[IMPORT_ROW_WHY_LEN];
	size_t		 idlen, textlen, i;

	(void)state;
	text = malloc(IMPORT_STS_RESOLVER_TEXT);
	assert_non_null(text);
	p = heap_copy(good, sizeof(good) - 1);
	assert_int_equal(import_sts_resolver_member(p, sizeof(good) - 1, id,
	    &idlen, text, IMPORT_STS_RESOLVER_TEXT, &textlen, why,
	    sizeof(why)), 0);
	assert_string_equal(id, "abc123");
	assert_int_equal(idlen, 6);
	assert_string_equal(text, "version: STSv1\nmode: enforce\n"
	    "max_age: 60\nmx: mx.example\n");
	free(p);
	p = heap_copy(noid, sizeof(noid) - 1);
	assert_int_equal(import_sts_resolver_member(p, sizeof(noid) - 1, id,
	    &idlen, text, IMPORT_STS_RESOLVER_TEXT, &textlen, why,
	    sizeof(why)), 0);
	assert_int_equal(idlen, 0);
	free(p);
	for (i = 0; i < nitems(bad); i++) {
		p = heap_copy(bad[i], strlen(bad[i]));
		assert_int_equal(import_sts_resolver_member(p, strlen(bad[i]),
		    id, &idlen, text, IMPORT_STS_RESOLVER_TEXT, &textlen, why,
		    sizeof(why)), -1);
		assert_true(why[0] != '\0');
		free(p);
	}
	free(text);
}

/* score - Redis scores (Python's time.time()) as whole seconds */
static void
score(void **state)
{
	static const struct {
		const char	*s;
		int		 rv;
		int64_t		 ts;
	} cases[] = {
		{ "1796544882.6543210", 0, 1796544882 },
		{ "1796544882", 0, 1796544882 },
		{ "1.796544882e9", 0, 1796544882 },
		{ "0", -1, 0 }, { "-1796544882", -1, 0 }, { "inf", -1, 0 },
		{ "nan", -1, 0 }, { "0x10", -1, 0 }, { "", -1, 0 },
		{ "1e300", -1, 0 }, { "12 ", -1, 0 },
	};
	char	*p;
	int64_t	 ts;
	size_t	 i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		p = heap_copy(cases[i].s, strlen(cases[i].s));
		ts = 0;
		assert_int_equal(import_sts_resolver_score(p,
		    strlen(cases[i].s), &ts), cases[i].rv);
		if (cases[i].rv == 0)
			assert_int_equal(ts, cases[i].ts);
		free(p);
	}
}

/* ---- postfix-tlspol's cache file -------------------------------------- */

/* What a walk over a file found. */
struct tlspol_found {
	size_t		 entries, policy, none, bad;
	int64_t		 now;
	struct {
		char		 key[DOMAIN_BUFSZ];
		enum import_row_status st;
		int64_t		 fetched_at, expires_at;
		uint32_t	 max_age;
		int		 mode;
		char		 mx[256];
	} got[16];
	size_t		 ngot;
};

/* tlspol_cb - each entry made a row and a record, as the tool does */
static int
tlspol_cb(const struct import_tlspol_entry *e, void *arg)
{
	struct tlspol_found *f = arg;
	struct import_row row;
	struct cache_record rec = { 0 };
	struct sts_policy *pol;
	char		*text, key[DOMAIN_BUFSZ], why[IMPORT_ROW_WHY_LEN];

	f->entries++;
	text = malloc(IMPORT_TLSPOL_TEXT);
	pol = calloc(1, sizeof(*pol));
	assert_non_null(text);
	assert_non_null(pol);
	switch (import_tlspol_row(e, text, IMPORT_TLSPOL_TEXT, &row, why,
	    sizeof(why))) {
	case IMPORT_TLSPOL_POLICY:
		f->policy++;
		assert_true(f->ngot < nitems(f->got));
		f->got[f->ngot].st = import_row_record(&row, &test_cc, f->now,
		    pol, key, &rec, why, sizeof(why));
		snprintf(f->got[f->ngot].key, sizeof(f->got[0].key), "%s",
		    key);
		f->got[f->ngot].fetched_at = rec.fetched_at;
		f->got[f->ngot].expires_at = rec.expires_at;
		f->got[f->ngot].max_age = rec.max_age;
		f->got[f->ngot].mode = rec.sts_mode;
		mx_joined(&rec, f->got[f->ngot].mx, sizeof(f->got[0].mx));
		f->ngot++;
		break;
	case IMPORT_TLSPOL_NONE:
		f->none++;
		break;
	case IMPORT_TLSPOL_BAD:
		print_message("# bad entry: %s\n", why);
		f->bad++;
		break;
	}
	cache_record_release(&rec);
	free(text);
	free(pol);
	return (0);
}

/* tlspol_file - a fixture file gunzipped into a heap block of exactly its
 * length */
static unsigned char *
tlspol_file(const char *name, size_t *len)
{
	char		 path[4096];
	const char	*top = getenv("top_srcdir");
	unsigned char	 buf[65536], *p;
	gzFile		 gz;
	int		 n;

	snprintf(path, sizeof(path), "%s/tests/unit/data/%s",
	    top != NULL ? top : ".", name);
	gz = gzopen(path, "rb");
	if (gz == NULL)
		fail_msg("cannot open %s (set top_srcdir)", path);
	n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	assert_true(n > 0 && n < (int)sizeof(buf));
	*len = (size_t)n;
	p = malloc(*len);
	assert_non_null(p);
	memcpy(p, buf, *len);
	return (p);
}

/* tlspol_got - the record found for key, or fail */
static size_t
tlspol_got(const struct tlspol_found *f, const char *key)
{
	size_t	 i;

	for (i = 0; i < f->ngot; i++)
		if (strcmp(f->got[i].key, key) == 0)
			return (i);
	fail_msg("no record for %s", key);
	return (0);
}

/* tlspol_branches - a file of postfix-tlspol 1.13.0 (MtaSts branch) */
static void
tlspol_branches(void **state)
{
	struct tlspol_found f;
	unsigned char	*p;
	char		 err[256];
	size_t		 len, i;

	(void)state;
	p = tlspol_file("tlspol-1.13.0.cache.db", &len);
	memset(&f, 0, sizeof(f));
	f.now = NOW;
	assert_int_equal(import_tlspol_walk(p, len, tlspol_cb, &f, err,
	    sizeof(err)), 0);
	/* enforce, enforce-wild, multi-mx, max-age-huge, unknown-keys,
	 * id-32, crlf; testing, none (no enforce policy) and dane-ok
	 * (DANE only) are not MTA-STS policies of postfix-tlspol's */
	assert_int_equal(f.entries, 10);
	assert_int_equal(f.policy, 7);
	assert_int_equal(f.none, 3);
	assert_int_equal(f.bad, 0);
	for (i = 0; i < f.ngot; i++) {
		assert_int_equal(f.got[i].st, IMPORT_ROW_OK);
		assert_int_equal(f.got[i].mode, CACHE_STS_ENFORCE);
	}
	/* MtaSts.ExpiresAt 2026-12-07T08:14:42.458Z, TTL 86400 */
	i = tlspol_got(&f, "enforce.pstest");
	assert_int_equal(f.got[i].expires_at, 1796631282);
	assert_int_equal(f.got[i].fetched_at, 1796631282 - DAY);
	assert_int_equal(f.got[i].max_age, DAY);
	assert_string_equal(f.got[i].mx, "mx1.enforce.pstest");
	/* ".backup.multi-mx.pstest" was "*.backup.multi-mx.pstest" */
	i = tlspol_got(&f, "multi-mx.pstest");
	assert_int_equal(f.got[i].max_age, 604800);
	assert_int_equal(f.got[i].expires_at, 1797149682);
	assert_string_equal(f.got[i].mx, "mx2.multi-mx.pstest "
	    "*.backup.multi-mx.pstest mx1.multi-mx.pstest");
	/* max_age 99999999: postfix-tlspol caps it at 30 days */
	i = tlspol_got(&f, "max-age-huge.pstest");
	assert_int_equal(f.got[i].max_age, 2592000);
	assert_int_equal(f.got[i].expires_at, 1799136883);
	i = tlspol_got(&f, "enforce-wild.pstest");
	assert_string_equal(f.got[i].mx, "mx1.enforce-wild.pstest "
	    "*.mail.enforce-wild.pstest");

	/* a day later the one-day policies have expired, the others not */
	memset(&f, 0, sizeof(f));
	f.now = 1796631282;
	assert_int_equal(import_tlspol_walk(p, len, tlspol_cb, &f, err,
	    sizeof(err)), 0);
	assert_int_equal(f.got[tlspol_got(&f, "enforce.pstest")].st,
	    IMPORT_ROW_EXPIRED);
	assert_int_equal(f.got[tlspol_got(&f, "multi-mx.pstest")].st,
	    IMPORT_ROW_OK);
	free(p);
}

/* tlspol_legacy - a file of postfix-tlspol 1.8.18 (one answer a domain) */
static void
tlspol_legacy(void **state)
{
	struct tlspol_found f;
	unsigned char	*p;
	char		 err[256];
	size_t		 len, i;

	(void)state;
	p = tlspol_file("tlspol-1.8.18.cache.db", &len);
	memset(&f, 0, sizeof(f));
	f.now = NOW;
	assert_int_equal(import_tlspol_walk(p, len, tlspol_cb, &f, err,
	    sizeof(err)), 0);
	assert_int_equal(f.entries, 7);
	assert_int_equal(f.policy, 4);	/* dane-only, testing, none: not */
	assert_int_equal(f.none, 3);
	assert_int_equal(f.bad, 0);
	/* Expirable.ExpiresAt 2026-12-07T08:15:29.978Z: fetch + TTL +
	 * 0..19 s of postfix-tlspol's jitter */
	i = tlspol_got(&f, "enforce.pstest");
	assert_int_equal(f.got[i].st, IMPORT_ROW_OK);
	assert_int_equal(f.got[i].expires_at, 1796631329);
	assert_int_equal(f.got[i].fetched_at, 1796631329 - DAY);
	i = tlspol_got(&f, "multi-mx.pstest");
	assert_string_equal(f.got[i].mx, "mx2.multi-mx.pstest "
	    "*.backup.multi-mx.pstest mx1.multi-mx.pstest");
	free(p);
}

/* count_cb - count entries */
static int
count_cb(const struct import_tlspol_entry *e, void *arg)
{
	(void)e;
	(*(size_t *)arg)++;
	return (0);
}

/* tlspol_damaged - every truncation and a byte flipped anywhere: the
 * walk fails or reads a whole stream, never out of bounds (ASan) */
static void
tlspol_damaged(void **state)
{
	unsigned char	*p, *q;
	char		 err[256];
	size_t		 len, cut, n, i;

	(void)state;
	p = tlspol_file("tlspol-1.13.0.cache.db", &len);
	for (cut = 0; cut < len; cut++) {
		q = malloc(cut > 0 ? cut : 1);
		assert_non_null(q);
		memcpy(q, p, cut);
		n = 0;
		assert_int_equal(import_tlspol_walk(q, cut, count_cb, &n, err,
		    sizeof(err)), -1);
		assert_true(err[0] != '\0');
		free(q);
	}
	q = malloc(len);
	assert_non_null(q);
	for (i = 0; i < len; i++) {
		memcpy(q, p, len);
		q[i] ^= 0x5a;
		n = 0;
		(void)import_tlspol_walk(q, len, count_cb, &n, err,
		    sizeof(err));
	}
	free(q);
	free(p);
}

/* tlspol_rows - entries as postfix-tlspol holds them, made rows */
static void
tlspol_rows(void **state)
{
	struct import_tlspol_entry e;
	struct import_row row;
	char		*text, why[IMPORT_ROW_WHY_LEN];

	(void)state;
	text = malloc(IMPORT_TLSPOL_TEXT);
	assert_non_null(text);
	memset(&e, 0, sizeof(e));
	e.key = "example.com";
	e.keylen = 11;
	/* legacy DANE answer: no MTA-STS policy */
	e.legacy.policy = "dane-only";
	e.legacy.policylen = 9;
	e.legacy.ttl = 180;
	e.legacy.expires_at = NOW;
	e.legacy.has_expires = 1;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_NONE);
	/* a branch of its own wins over the legacy answer */
	e.mtasts.policy = "secure match=a.example.com:.b.example.com "
	    "servername=hostname";
	e.mtasts.policylen = strlen(e.mtasts.policy);
	e.mtasts.ttl = 3600;
	e.mtasts.expires_at = NOW + 600;
	e.mtasts.has_expires = 1;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_POLICY);
	assert_string_equal(text, "version: STSv1\nmode: enforce\n"
	    "mx: a.example.com\nmx: *.b.example.com\nmax_age: 3600\n");
	assert_int_equal(row.fetched_at, NOW + 600 - 3600);
	assert_int_equal(row.idlen, 0);
	/* an empty MtaSts answer: no enforce policy */
	e.mtasts.policylen = 0;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_NONE);
	/* an MtaSts answer that is not "secure match=" */
	e.mtasts.policy = "encrypt";
	e.mtasts.policylen = 7;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_BAD);
	/* no expiry */
	e.mtasts.policy = "secure match=a.example.com";
	e.mtasts.policylen = strlen(e.mtasts.policy);
	e.mtasts.has_expires = 0;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_BAD);
	/* a trailing ':' in the match list */
	e.mtasts.policy = "secure match=a.example.com:";
	e.mtasts.policylen = strlen(e.mtasts.policy);
	e.mtasts.has_expires = 1;
	assert_int_equal(import_tlspol_row(&e, text, IMPORT_TLSPOL_TEXT, &row,
	    why, sizeof(why)), IMPORT_TLSPOL_BAD);
	free(text);
}

static void
redis_url(void **state)
{
	static const struct {
		const char	*name, *url;
		int		 ok;
		const char	*host, *user, *pass;
		int		 has_pass, unix_sock, port;
		long		 db;
	} t[] = {
		{ "host only", "redis://10.0.0.1", 1, "10.0.0.1", "", "", 0,
		    0, 6379, 0 },
		{ "port and db", "redis://h:6380/3", 1, "h", "", "", 0, 0,
		    6380, 3 },
		{ "password", "redis://:secret@h/2", 1, "h", "", "secret", 1,
		    0, 6379, 2 },
		{ "password with @ / : % encoded",
		    "redis://:p%40ss%2Fw%3Ard%25x@h:1/0", 1, "h", "",
		    "p@ss/w:rd%x", 1, 0, 1, 0 },
		{ "a raw @ in the password: the last @ ends the userinfo",
		    "redis://:a@b@h", 1, "h", "", "a@b", 1, 0, 6379, 0 },
		{ "user and password", "redis://al%69ce:pw@h", 1, "h",
		    "alice", "pw", 1, 0, 6379, 0 },
		{ "empty password", "redis://:@h", 1, "h", "", "", 1, 0,
		    6379, 0 },
		{ "ipv6", "redis://[::1]:7000/1", 1, "::1", "", "", 0, 0,
		    7000, 1 },
		{ "host %-encoded", "redis://%68ost", 1, "host", "", "", 0, 0,
		    6379, 0 },
		{ "db %-encoded", "redis://h/%31%32", 1, "h", "", "", 0, 0,
		    6379, 12 },
		{ "trailing slash", "redis://h/", 1, "h", "", "", 0, 0, 6379,
		    0 },
		{ "unix socket", "unix:/run/r.sock?db=4", 1, "/run/r.sock",
		    "", "", 0, 1, 6379, 4 },
		{ "unix, //, encoded path", "unix:///run/r%20s", 1,
		    "/run/r s", "", "", 0, 1, 6379, 0 },
		{ "a raw / in the password ends the authority",
		    "redis://:a/b@h", 0, NULL, NULL, NULL, 0, 0, 0, 0 },
		{ "user without password", "redis://user@h", 0, NULL, NULL,
		    NULL, 0, 0, 0, 0 },
		{ "bad escape", "redis://:%4@h", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "bad hex", "redis://:%zz@h", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "%00", "redis://:a%00b@h", 0, NULL, NULL, NULL, 0, 0, 0, 0 },
		{ "no host", "redis://:pw@", 0, NULL, NULL, NULL, 0, 0, 0, 0 },
		{ "port 0", "redis://h:0", 0, NULL, NULL, NULL, 0, 0, 0, 0 },
		{ "port 65536", "redis://h:65536", 0, NULL, NULL, NULL, 0, 0,
		    0, 0 },
		{ "port not a number", "redis://h:x", 0, NULL, NULL, NULL, 0,
		    0, 0, 0 },
		{ "db 65536", "redis://h/65536", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "db negative", "redis://h/-1", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "a query", "redis://h?db=1", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "another scheme", "rediss://h", 0, NULL, NULL, NULL, 0, 0, 0,
		    0 },
		{ "unix without a path", "unix:?db=1", 0, NULL, NULL, NULL, 0,
		    0, 0, 0 },
		{ "unix, another query", "unix:/s?x=1", 0, NULL, NULL, NULL,
		    0, 0, 0, 0 },
		{ "ipv6 without ]", "redis://[::1:7000", 0, NULL, NULL, NULL,
		    0, 0, 0, 0 },
	};
	struct import_redis_url u;
	char		 why[160], *in;
	size_t		 i;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		print_message("# %s\n", t[i].name);
		in = heap_copy(t[i].url, strlen(t[i].url));
		why[0] = '\0';
		assert_int_equal(import_redis_url(in, strlen(t[i].url), &u,
		    why, sizeof(why)), t[i].ok ? 0 : -1);
		free(in);
		if (!t[i].ok) {
			assert_true(why[0] != '\0');
			/* no password in a message */
			assert_null(strstr(why, "secret"));
			continue;
		}
		assert_string_equal(u.host, t[i].host);
		assert_string_equal(u.user, t[i].user);
		assert_string_equal(u.pass, t[i].pass);
		assert_int_equal(u.has_pass, t[i].has_pass);
		assert_int_equal(u.unix_sock, t[i].unix_sock);
		assert_int_equal(u.port, t[i].port);
		assert_int_equal(u.db, t[i].db);
	}
}

/* resp - feed p[0..len) in chunks of chunk bytes: the status, the bytes
 * used in total */
static enum import_redis_status
resp(const char *p, size_t len, size_t chunk, size_t *total, char *why,
    size_t whysz)
{
	struct import_redis_resp s;
	enum import_redis_status st = IMPORT_REDIS_RESP_MORE;
	size_t		 off = 0, n, used;

	import_redis_resp_init(&s);
	*total = 0;
	while (off < len && st == IMPORT_REDIS_RESP_MORE) {
		n = len - off < chunk ? len - off : chunk;
		st = import_redis_resp_feed(&s, p + off, n, &used, why, whysz);
		off += used;
	}
	*total = off;
	return (st);
}

static void
redis_reply_bounds(void **state)
{
	static const struct {
		const char	*name, *in;
		size_t		 len;	/* 0: strlen */
		enum import_redis_status want;
		size_t		 used;	/* for DONE */
		const char	*why;	/* for BAD */
	} t[] = {
		{ "status", "+OK\r\n", 0, IMPORT_REDIS_RESP_DONE, 5, NULL },
		{ "error", "-ERR no\r\n", 0, IMPORT_REDIS_RESP_DONE, 9, NULL },
		{ "integer", ":-42\r\n", 0, IMPORT_REDIS_RESP_DONE, 6, NULL },
		{ "nil bulk", "$-1\r\n", 0, IMPORT_REDIS_RESP_DONE, 5, NULL },
		{ "nil array", "*-1\r\n", 0, IMPORT_REDIS_RESP_DONE, 5, NULL },
		{ "empty bulk", "$0\r\n\r\n", 0, IMPORT_REDIS_RESP_DONE, 6,
		    NULL },
		{ "SCAN reply", "*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$2\r\nbc"
		    "\r\n", 0, IMPORT_REDIS_RESP_DONE, 30, NULL },
		{ "empty array", "*0\r\n", 0, IMPORT_REDIS_RESP_DONE, 4,
		    NULL },
		{ "a reply and the next", "+OK\r\n+OK\r\n", 0,
		    IMPORT_REDIS_RESP_DONE, 5, NULL },
		{ "a bulk of its bytes, CRLF inside", "$4\r\n\r\n\r\n\r\n", 0,
		    IMPORT_REDIS_RESP_DONE, 10, NULL },
		{ "incomplete", "*2\r\n$1\r\n0\r\n", 0,
		    IMPORT_REDIS_RESP_MORE, 0, NULL },
		{ "600 MB bulk", "$600000000\r\n", 0, IMPORT_REDIS_RESP_BAD,
		    0, "a bulk string of 600000000 bytes (at most 524288)" },
		{ "the largest bulk: announced, waited for", "$524288\r\n", 0,
		    IMPORT_REDIS_RESP_MORE, 0, NULL },
		{ "one byte over", "$524289\r\n", 0, IMPORT_REDIS_RESP_BAD, 0,
		    "a bulk string of 524289 bytes (at most 524288)" },
		{ "huge array", "*2000000000\r\n", 0, IMPORT_REDIS_RESP_BAD,
		    0, "an array of 2000000000 elements (at most 65536)" },
		{ "the widest array", "*65536\r\n", 0, IMPORT_REDIS_RESP_MORE,
		    0, NULL },
		{ "19 digits", "*9999999999999999999\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "an array of" },
		{ "20 digits", "$18446744073709551616\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "not a decimal number" },
		{ "deep", "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "arrays nested deeper than 4" },
		{ "deep, an empty array innermost (found by the fuzzer)",
		    "*1\r\n*1\r\n*1\r\n*1\r\n*0\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "arrays nested deeper than 4" },
		{ "four deep", "*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", 0,
		    IMPORT_REDIS_RESP_DONE, 20, NULL },
		{ "type byte", "HTTP/1.1 200 OK\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "not a RESP2 reply (type byte "
		    "0x48)" },
		{ "RESP3 map", "%1\r\n", 0, IMPORT_REDIS_RESP_BAD, 0,
		    "not a RESP2 reply" },
		{ "NUL type", "\0", 1, IMPORT_REDIS_RESP_BAD, 0,
		    "type byte 0x00" },
		{ "LF alone", "+OK\n", 0, IMPORT_REDIS_RESP_BAD, 0,
		    "a line not ended by CRLF" },
		{ "bulk without CRLF", "$1\r\nab\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "not followed by CRLF" },
		{ "length with letters", "$12abc\r\n", 0,
		    IMPORT_REDIS_RESP_BAD, 0, "not a decimal number" },
		{ "empty length", "*\r\n", 0, IMPORT_REDIS_RESP_BAD, 0,
		    "not a decimal number" },
		{ "negative length", "$-2\r\n", 0, IMPORT_REDIS_RESP_BAD, 0,
		    "a negative length other than -1" },
		{ "long length line", "$0000000000000000000000000000000001"
		    "\r\n", 0, IMPORT_REDIS_RESP_BAD, 0, "a length line" },
	};
	char		 why[160];
	size_t		 i, used, chunk, len;
	enum import_redis_status st;

	(void)state;
	for (i = 0; i < nitems(t); i++) {
		len = t[i].len != 0 ? t[i].len : strlen(t[i].in);
		/* whole, and one byte at a time: the same answer */
		for (chunk = 1; chunk <= len; chunk = chunk == 1 && len > 1 ?
		    len : len + 1) {
			print_message("# %s (chunks of %zu)\n", t[i].name,
			    chunk);
			why[0] = '\0';
			st = resp(t[i].in, len, chunk, &used, why,
			    sizeof(why));
			assert_int_equal(st, t[i].want);
			if (st == IMPORT_REDIS_RESP_DONE)
				assert_int_equal(used, t[i].used);
			if (st == IMPORT_REDIS_RESP_BAD)
				assert_non_null(strstr(why, t[i].why));
		}
	}
}

static void
redis_reply_totals(void **state)
{
	struct import_redis_resp s;
	char		*line, why[160];
	size_t		 used, i;

	(void)state;
	/* a line may be long, not endless */
	line = malloc(IMPORT_REDIS_MAX_LINE + 2);
	assert_non_null(line);
	line[0] = '+';
	memset(line + 1, 'a', IMPORT_REDIS_MAX_LINE + 1);
	import_redis_resp_init(&s);
	assert_int_equal(import_redis_resp_feed(&s, line,
	    IMPORT_REDIS_MAX_LINE + 1, &used, why, sizeof(why)),
	    IMPORT_REDIS_RESP_MORE);
	assert_int_equal(import_redis_resp_feed(&s, line + 1, 1, &used, why,
	    sizeof(why)), IMPORT_REDIS_RESP_BAD);
	assert_string_equal(why, "a line of more than 4096 bytes");
	/* and after a refusal, nothing more */
	assert_int_equal(import_redis_resp_feed(&s, "+OK\r\n", 5, &used,
	    why, sizeof(why)), IMPORT_REDIS_RESP_BAD);
	free(line);
	/* arrays within bounds that hold too many values in all */
	import_redis_resp_init(&s);
	assert_int_equal(import_redis_resp_feed(&s, "*3\r\n", 4, &used, why,
	    sizeof(why)), IMPORT_REDIS_RESP_MORE);
	for (i = 0; i < 2; i++)
		assert_int_equal(import_redis_resp_feed(&s, "*65536\r\n", 8,
		    &used, why, sizeof(why)), IMPORT_REDIS_RESP_MORE);
	for (i = 0; i < 2 * 65536; i++)
		if (import_redis_resp_feed(&s, ":1\r\n", 4, &used, why,
		    sizeof(why)) != IMPORT_REDIS_RESP_MORE)
			break;
	assert_int_equal(i, IMPORT_REDIS_MAX_ITEMS - 3);
	assert_string_equal(why, "a reply of more than 65552 values");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(member),
	cmocka_unit_test(redis_url),
	cmocka_unit_test(redis_reply_bounds),
	cmocka_unit_test(redis_reply_totals),
	cmocka_unit_test(score),
	cmocka_unit_test(tlspol_branches),
	cmocka_unit_test(tlspol_legacy),
	cmocka_unit_test(tlspol_damaged),
	cmocka_unit_test(tlspol_rows),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(row_cases) + nitems(body_cases) +
	    nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(row_cases); i++, n++) {
		tests[n].name = row_cases[i].name;
		tests[n].test_func = run_row_case;
		tests[n].initial_state = (void *)&row_cases[i];
	}
	for (i = 0; i < nitems(body_cases); i++, n++) {
		tests[n].name = body_cases[i].name;
		tests[n].test_func = run_body_case;
		tests[n].initial_state = (void *)&body_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("import", tests, NULL, NULL));
}
