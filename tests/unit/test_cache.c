/*
 * test_cache.c - unit tests for the LMDB policy cache
 *
 * The record codec is tested as the pure function it is: round trips, a
 * golden encoding, and every rejection (each truncation point, each bad
 * field).  The store is tested in a fresh mkdtemp directory per test:
 * put/get/del/iterate, batches, damaged values written behind the cache's
 * back, a full map, reopening, and the multi-process cases that are the
 * reason for LMDB: a reader process while another writes, a writer killed
 * with SIGKILL in the middle of its commits, a reader that must follow a
 * map the writer grew, and reader slots of killed processes.
 */
#include "autoconf.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <lmdb.h>

#include "lib/cache.h"
#include "lib/cache_wb.h"
#include "lib/log.h"

#define TEST_MAP_SIZE	((size_t)64 << 20)
#define TEST_NAME_MAX	64

static struct cache_record rec_a, rec_b;
static unsigned char enc_a[CACHE_RECORD_MAX_LEN + 16];
static unsigned char enc_b[CACHE_RECORD_MAX_LEN + 16];

/* test_name - the synthetic domain of record i */
static void
test_name(char *out, size_t outsz, unsigned int i)
{
	int	 n;

	n = snprintf(out, outsz, "d%05u.example", i);
	assert_true(n > 0 && (size_t)n < outsz);
}

/* test_add_mx - append a pattern made from a format */
static void __attribute__((format(printf, 2, 3)))
test_add_mx(struct cache_record *r, const char *fmt, ...)
{
	char	 mx[CACHE_MX_LEN + 8];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(mx, sizeof(mx), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(mx));
	assert_int_equal(cache_record_mx_add(r, mx, (size_t)n), 0);
}

/* test_garble - every field but the mx block set to junk (a decode must
 * overwrite them all) */
static void
test_garble(struct cache_record *r)
{
	char		*mx = r->mx;
	uint32_t	 cap = r->mxcap;

	memset(r, 0x55, sizeof(*r));
	r->mx = mx;
	r->mxcap = cap;
}

/* test_record - a synthetic enforce STS record, its fields derived from i */
static void
test_record(struct cache_record *r, unsigned int i)
{
	cache_record_reset(r);
	r->kind = CACHE_KIND_STS;
	r->sts_mode = CACHE_STS_ENFORCE;
	r->dnssec = CACHE_DNSSEC_INSECURE;
	r->max_age = i;
	r->fetched_at = 1700000000 + (int64_t)i;
	r->expires_at = r->fetched_at + 86400;
	r->next_refresh = r->fetched_at + 43200;
	snprintf(r->id, sizeof(r->id), "id%u", i);
	test_add_mx(r, "mx1.d%05u.example", i);
	test_add_mx(r, "*.d%05u.example", i);
}

/* test_record_equal - the meaningful fields of a and b are equal */
static void
test_record_equal(const struct cache_record *a, const struct cache_record *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->sts_mode, b->sts_mode);
	assert_int_equal(a->dnssec, b->dnssec);
	assert_int_equal(a->dane, b->dane);
	assert_int_equal(a->last_error, b->last_error);
	assert_int_equal(a->max_age, b->max_age);
	assert_true(a->fetched_at == b->fetched_at);
	assert_true(a->expires_at == b->expires_at);
	assert_true(a->next_refresh == b->next_refresh);
	assert_true(a->last_error_at == b->last_error_at);
	assert_string_equal(a->id, b->id);
	assert_int_equal(a->nmx, b->nmx);
	assert_int_equal(a->mxlen, b->mxlen);
	if (a->mxlen > 0)
		assert_memory_equal(a->mx, b->mx, a->mxlen);
}

/* test_encode - encode r into buf, return its length */
static size_t
test_encode(const struct cache_record *r, unsigned char *buf, size_t bufsz)
{
	size_t	 len = 0;

	assert_int_equal(cache_record_encode(r, buf, bufsz, &len), 0);
	assert_true(len >= CACHE_RECORD_FIXED_LEN + 3 && len <= bufsz);
	return (len);
}

/* ---- the record codec ---------------------------------------------- */

static void
record_round_trip_sts(void **state)
{
	size_t	 len;

	(void)state;
	test_record(&rec_a, 7);
	rec_a.dane = 5;
	rec_a.last_error = 9;
	rec_a.last_error_at = -1;		/* signed times survive */
	rec_a.fetched_at = INT64_MIN;
	rec_a.expires_at = INT64_MAX;
	rec_a.max_age = UINT32_MAX;
	test_add_mx(&rec_a, "MX-3_x.Example.NET");
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	test_garble(&rec_b);
	assert_int_equal(cache_record_decode(enc_a, len, &rec_b),
	    CACHE_DECODE_OK);
	test_record_equal(&rec_a, &rec_b);
	/* canonical: re-encoding gives the same bytes */
	assert_int_equal(test_encode(&rec_b, enc_b, sizeof(enc_b)), len);
	assert_memory_equal(enc_a, enc_b, len);
}

static void
record_round_trip_negative_entry(void **state)
{
	size_t	 len;

	(void)state;
	cache_record_reset(&rec_a);
	rec_a.kind = CACHE_KIND_NONE;
	rec_a.expires_at = 42;
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	assert_int_equal(len, CACHE_RECORD_FIXED_LEN + 1 + 2);
	assert_int_equal(cache_record_decode(enc_a, len, &rec_b),
	    CACHE_DECODE_OK);
	test_record_equal(&rec_a, &rec_b);
	assert_string_equal(rec_b.id, "");
}

static void
record_round_trip_largest(void **state)
{
	char	 mx[CACHE_MX_LEN];
	size_t	 len, n;
	unsigned int i;

	(void)state;
	cache_record_reset(&rec_a);
	rec_a.kind = CACHE_KIND_DANE;
	rec_a.dnssec = CACHE_DNSSEC_SECURE;
	memset(rec_a.id, 'Z', CACHE_ID_LEN - 1);
	/* 256 patterns of 255 bytes: exactly CACHE_MX_BYTES_MAX */
	for (i = 0; i < CACHE_MX_BYTES_MAX / CACHE_MX_LEN; i++) {
		memset(mx, 'a' + i % 26, CACHE_MX_LEN - 1);
		mx[0] = '*';
		mx[1] = '.';
		assert_int_equal(cache_record_mx_add(&rec_a, mx,
		    CACHE_MX_LEN - 1), 0);
	}
	assert_int_equal(rec_a.mxlen, CACHE_MX_BYTES_MAX);
	/* one more byte of patterns is refused */
	assert_int_equal(cache_record_mx_add(&rec_a, "a", 1), -1);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	assert_int_equal(len, CACHE_RECORD_MAX_LEN);
	assert_int_equal(cache_record_decode(enc_a, len, &rec_b),
	    CACHE_DECODE_OK);
	test_record_equal(&rec_a, &rec_b);
	/* exactly enough room works, one byte less does not */
	assert_int_equal(cache_record_encode(&rec_a, enc_b, len, &n), 0);
	assert_int_equal(cache_record_encode(&rec_a, enc_b, len - 1, &n),
	    -1);
	/* a value with one more pattern ("a") passes the limit */
	memcpy(enc_b, enc_a, len);
	n = CACHE_RECORD_FIXED_LEN + 1 + (CACHE_ID_LEN - 1);
	enc_b[n] = (unsigned char)((CACHE_MX_BYTES_MAX / CACHE_MX_LEN + 1) &
	    0xff);
	enc_b[n + 1] = (unsigned char)((CACHE_MX_BYTES_MAX / CACHE_MX_LEN +
	    1) >> 8);
	enc_b[len] = 1;
	enc_b[len + 1] = 'a';
	assert_int_equal(cache_record_decode(enc_b, len + 2, &rec_b),
	    CACHE_DECODE_LENGTH);
}

static void
record_round_trip_thousands_of_mx(void **state)
{
	size_t	 len, pos, mlen;
	const char *mx;
	unsigned int i;

	(void)state;
	/* issue 13: 2,700 mx lines of a 64 KiB policy */
	test_record(&rec_a, 3);
	cache_record_mx_clear(&rec_a);
	for (i = 0; i < 2700; i++)
		test_add_mx(&rec_a, "mx%04u.big.example", i);
	assert_int_equal(rec_a.nmx, 2700);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	assert_true(len > 2700 * 19);
	test_garble(&rec_b);
	assert_int_equal(cache_record_decode(enc_a, len, &rec_b),
	    CACHE_DECODE_OK);
	test_record_equal(&rec_a, &rec_b);
	for (i = 0, pos = 0; (mx = cache_record_mx_next(&rec_b, &pos,
	    &mlen)) != NULL; i++)
		assert_int_equal(mlen, strlen(mx));
	assert_int_equal(i, 2700);
	assert_string_equal(rec_b.mx + rec_b.mxlen - 19,
	    "mx2699.big.example");
	/* a deep copy, then a smaller record into the same block */
	cache_record_copy(&rec_b, &rec_a);
	test_record_equal(&rec_a, &rec_b);
	test_record(&rec_a, 4);
	cache_record_copy(&rec_b, &rec_a);
	test_record_equal(&rec_a, &rec_b);
	assert_true(rec_b.mxcap >= 2700 * 19);	/* kept, not reallocated */
}

/* Version 1 bytes (before the TXT check fields), still decoded. */
static const unsigned char golden_v1[] = {
	0xca, 0x01,			/* magic, version 1 */
	0x02, 0x02, 0x02, 0x00, 0x03,	/* sts enforce secure, dane,
					   last_error */
	0x80, 0x51, 0x01, 0x00,		/* max_age 86400 */
	0x00, 0xf1, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, /* 1700000000 */
	0x80, 0x42, 0x55, 0x65, 0x00, 0x00, 0x00, 0x00, /* +86400 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0 */
	0x02, 'i', 'd',
	0x02, 0x00,
	0x05, 'm', 'x', '.', 'e', 'x',
	0x04, '*', '.', 'e', 'x',
};

static void
record_golden_encoding(void **state)
{
	static const unsigned char want[] = {
		0xca, 0x02,			/* magic, version */
		0x02, 0x02, 0x02, 0x00, 0x03,	/* sts enforce secure, dane,
						   last_error */
		0x80, 0x51, 0x01, 0x00,		/* max_age 86400 */
		0x00, 0xf1, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, /* 1700000000 */
		0x80, 0x42, 0x55, 0x65, 0x00, 0x00, 0x00, 0x00, /* +86400 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0 */
		0x1e, 0x00, 0x00, 0x00,		/* txt_ttl 30 */
		0x0a, 0xf1, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, /* +10 */
		0x02, 'i', 'd',
		0x02, 0x00,
		0x05, 'm', 'x', '.', 'e', 'x',
		0x04, '*', '.', 'e', 'x',
	};
	size_t	 len;

	(void)state;
	cache_record_reset(&rec_a);
	rec_a.kind = CACHE_KIND_STS;
	rec_a.sts_mode = CACHE_STS_ENFORCE;
	rec_a.dnssec = CACHE_DNSSEC_SECURE;
	rec_a.last_error = 3;
	rec_a.max_age = 86400;
	rec_a.fetched_at = 1700000000;
	rec_a.expires_at = 1700086400;
	rec_a.next_refresh = -1;
	rec_a.txt_ttl = 30;
	rec_a.txt_checked_at = 1700000010;
	memcpy(rec_a.id, "id", 3);
	assert_int_equal(cache_record_mx_add(&rec_a, "mx.ex", 5), 0);
	assert_int_equal(cache_record_mx_add(&rec_a, "*.ex", 4), 0);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(enc_a, want, sizeof(want));

	/* version 1: the same facts, TXT never checked; written as v2 */
	test_garble(&rec_b);
	assert_int_equal(cache_record_decode(golden_v1, sizeof(golden_v1),
	    &rec_b), CACHE_DECODE_OK);
	assert_int_equal(rec_b.txt_ttl, 0);
	assert_int_equal(rec_b.txt_checked_at, 0);
	assert_int_equal(rec_b.expires_at, 1700086400);
	assert_int_equal(rec_b.next_refresh, -1);
	assert_string_equal(rec_b.id, "id");
	assert_int_equal(rec_b.nmx, 2);
	assert_memory_equal(rec_b.mx, "mx.ex\0*.ex\0", 11);
	rec_b.txt_ttl = 30;
	rec_b.txt_checked_at = 1700000010;
	len = test_encode(&rec_b, enc_b, sizeof(enc_b));
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(enc_b, want, sizeof(want));
	/* every truncation of a v1 value is refused too */
	for (len = 0; len < sizeof(golden_v1); len++)
		assert_int_equal(cache_record_decode(golden_v1, len, &rec_b),
		    CACHE_DECODE_TRUNCATED);
}

static void
decode_rejects_every_truncation(void **state)
{
	size_t	 len, cut;

	(void)state;
	test_record(&rec_a, 12345);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	for (cut = 0; cut < len; cut++) {
		if (cache_record_decode(enc_a, cut, &rec_b) !=
		    CACHE_DECODE_TRUNCATED)
			fail_msg("prefix of %zu/%zu bytes not truncated", cut,
			    len);
	}
	assert_int_equal(cache_record_decode(enc_a, len, &rec_b),
	    CACHE_DECODE_OK);
}

/* One bad value: a valid encoding with one change. */
struct decode_case {
	const char	*name;
	size_t		 off;		/* byte to change (SIZE_MAX: none) */
	unsigned char	 byte;
	int		 append;	/* add one byte at the end */
	enum cache_decode_status want;
};

/*
 * Offsets into the encoding of test_record(&r, 1): id "id1" at 56..58,
 * nmx at 59..60, mx[0] length at 61, "mx1.d00001.example" at 62..79,
 * mx[1] length at 80, "*.d00001.example" at 81..96.
 */
static const struct decode_case decode_cases[] = {
	{ "wrong magic", 0, 0xcb, 0, CACHE_DECODE_MAGIC },
	{ "zero magic", 0, 0x00, 0, CACHE_DECODE_MAGIC },
	{ "older version 0", 1, 0x00, 0, CACHE_DECODE_VERSION },
	{ "newer version 3", 1, 0x03, 0, CACHE_DECODE_VERSION },
	{ "trailing byte", SIZE_MAX, 0, 1, CACHE_DECODE_TRAILING },
	{ "kind 0", 2, 0, 0, CACHE_DECODE_RANGE },
	{ "kind 4 unknown", 2, 4, 0, CACHE_DECODE_RANGE },
	{ "kind 255", 2, 255, 0, CACHE_DECODE_RANGE },
	{ "sts mode 3", 3, 3, 0, CACHE_DECODE_RANGE },
	{ "dnssec 4", 4, 4, 0, CACHE_DECODE_RANGE },
	{ "id length 33", 55, 33, 0, CACHE_DECODE_LENGTH },
	{ "id length 255", 55, 255, 0, CACHE_DECODE_LENGTH },
	{ "id with NUL", 57, 0x00, 0, CACHE_DECODE_CHAR },
	{ "id with space", 57, ' ', 0, CACHE_DECODE_CHAR },
	{ "id with control byte", 57, 0x1b, 0, CACHE_DECODE_CHAR },
	{ "id with DEL", 57, 0x7f, 0, CACHE_DECODE_CHAR },
	{ "id with 8-bit byte", 57, 0xc3, 0, CACHE_DECODE_CHAR },
	{ "nmx 65 but two patterns", 59, 65, 0, CACHE_DECODE_TRUNCATED },
	{ "nmx 514 (high byte)", 60, 2, 0, CACHE_DECODE_TRUNCATED },
	{ "nmx 3 but two patterns", 59, 3, 0, CACHE_DECODE_TRUNCATED },
	{ "nmx 1 but two patterns", 59, 1, 0, CACHE_DECODE_TRAILING },
	{ "mx length 0", 61, 0, 0, CACHE_DECODE_LENGTH },
	{ "mx length past the end", 80, 200, 0, CACHE_DECODE_TRUNCATED },
	{ "mx with NUL", 64, 0x00, 0, CACHE_DECODE_CHAR },
	{ "mx with colon", 64, ':', 0, CACHE_DECODE_CHAR },
	{ "mx with space", 64, ' ', 0, CACHE_DECODE_CHAR },
	{ "mx with newline", 64, '\n', 0, CACHE_DECODE_CHAR },
	{ "mx with inner star", 64, '*', 0, CACHE_DECODE_CHAR },
	{ "mx star without dot", 82, 'x', 0, CACHE_DECODE_CHAR },
	{ "mx only a wildcard", 80, 2, 0, CACHE_DECODE_CHAR },
};

static void
decode_rejects_bad_fields(void **state)
{
	const struct decode_case *dc;
	size_t	 len, n, i;

	(void)state;
	test_record(&rec_a, 1);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	assert_int_equal(len, 97);
	assert_memory_equal(enc_a + 56, "id1", 3);
	assert_memory_equal(enc_a + 81, "*.d00001.example", 16);
	for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
		dc = &decode_cases[i];
		memcpy(enc_b, enc_a, len);
		n = len;
		if (dc->off != SIZE_MAX)
			enc_b[dc->off] = dc->byte;
		if (dc->append)
			enc_b[n++] = 'x';
		if (cache_record_decode(enc_b, n, &rec_b) != dc->want)
			fail_msg("%s: got %s, want %s", dc->name,
			    cache_decode_status_name(cache_record_decode(enc_b,
			    n, &rec_b)), cache_decode_status_name(dc->want));
	}
}

static void
encode_rejects_lone_wildcard(void **state)
{
	(void)state;
	cache_record_reset(&rec_a);
	rec_a.kind = CACHE_KIND_STS;
	assert_int_equal(cache_record_mx_add(&rec_a, "*.", 2), 0);
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &(size_t){ 0 }), -1);
}

static void
encode_rejects_invalid_records(void **state)
{
	size_t	 len;

	(void)state;
	test_record(&rec_a, 1);
	rec_a.kind = 0;
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.kind = 4;
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.sts_mode = 3;
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	memset(rec_a.id, 'a', CACHE_ID_LEN);	/* unterminated */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.nmx = 3;				/* more than mx holds */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.nmx = 1;				/* fewer than mx holds */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.mx[strlen(rec_a.mx) + 1] = '\0';	/* empty pattern */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.mx[rec_a.mxlen - 1] = 'a';	/* unterminated */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.mxlen = rec_a.mxcap + 1;		/* past the block */
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	rec_a.mx[3] = ':';
	assert_int_equal(cache_record_encode(&rec_a, enc_a, sizeof(enc_a),
	    &len), -1);
	test_record(&rec_a, 1);
	for (len = 0; len < 85; len++)
		assert_int_equal(cache_record_encode(&rec_a, enc_a, len,
		    &(size_t){ 0 }), -1);
}

static void
freshness_helpers(void **state)
{
	(void)state;
	cache_record_reset(&rec_a);
	rec_a.expires_at = 1000;
	rec_a.next_refresh = 500;
	assert_true(cache_record_fresh(&rec_a, 0));
	assert_true(cache_record_fresh(&rec_a, 999));
	assert_false(cache_record_fresh(&rec_a, 1000));
	assert_false(cache_record_fresh(&rec_a, 5000));
	/* a negative entry written more than CACHE_CLOCK_SLACK "in the
	 * future" (the clock stepped back) is not fresh; a policy is (its TXT
	 * check and refresh see to it: facts.h) */
	rec_a.kind = CACHE_KIND_NONE;
	rec_a.fetched_at = 700;
	assert_true(cache_record_fresh(&rec_a, 700 - CACHE_CLOCK_SLACK));
	assert_false(cache_record_fresh(&rec_a, 700 - CACHE_CLOCK_SLACK - 1));
	rec_a.kind = CACHE_KIND_STS;
	assert_true(cache_record_fresh(&rec_a, 700 - CACHE_CLOCK_SLACK - 1));
	rec_a.kind = CACHE_KIND_NONE;
	rec_a.fetched_at = 0;
	assert_false(cache_record_needs_refresh(&rec_a, 499));
	assert_true(cache_record_needs_refresh(&rec_a, 500));
	assert_true(cache_record_needs_refresh(&rec_a, 999));
	/* a refresh time past expiry does not keep a dead entry */
	rec_a.next_refresh = 2000;
	assert_true(cache_record_needs_refresh(&rec_a, 1000));
}

static void
names_for_logs(void **state)
{
	(void)state;
	assert_string_equal(cache_kind_name(CACHE_KIND_STS), "sts");
	assert_string_equal(cache_kind_name(9), "?");
	assert_string_equal(cache_sts_mode_name(CACHE_STS_TESTING), "testing");
	assert_string_equal(cache_dnssec_name(CACHE_DNSSEC_BOGUS), "bogus");
	assert_string_equal(cache_status_name(CACHE_FULL), "full");
	assert_string_equal(cache_decode_status_name(CACHE_DECODE_VERSION),
	    "bad-version");
}

/* ---- the store ------------------------------------------------------ */

struct tdir {
	char	 path[PATH_MAX];	/* the test's temp directory */
	char	 env[PATH_MAX];		/* its cache directory */
};

/* test_rmtree - remove dir and the files in it (one level of subdirs) */
static void
test_rmtree(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		 p[PATH_MAX];
	struct stat	 st;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			test_rmtree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static int
tdir_setup(void **state)
{
	struct tdir *t;
	int	 n;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return (-1);
	snprintf(t->path, sizeof(t->path), "%s/test_cache.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(t->path) == NULL) {
		free(t);
		return (-1);
	}
	n = snprintf(t->env, sizeof(t->env), "%s/cache", t->path);
	if (n < 0 || (size_t)n >= sizeof(t->env)) {
		rmdir(t->path);
		free(t);
		return (-1);
	}
	*state = t;
	return (0);
}

static int
tdir_teardown(void **state)
{
	struct tdir *t = *state;

	test_rmtree(t->path);
	free(t);
	return (0);
}

/* test_open - open t's cache or fail the test with the message */
static struct cache *
test_open(const struct tdir *t, size_t map_size, int readonly)
{
	struct cache *c;
	char	 err[512];

	c = cache_open(t->env, map_size, readonly, err, sizeof(err));
	if (c == NULL)
		fail_msg("cache_open: %s", err);
	return (c);
}

/* test_fill - put records first..first+n-1, in one batch if batch */
static void
test_fill(struct cache *c, unsigned int first, unsigned int n, int batch)
{
	char	 name[TEST_NAME_MAX];
	unsigned int i;

	if (batch)
		assert_int_equal(cache_txn_begin(c), CACHE_OK);
	for (i = first; i < first + n; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		assert_int_equal(cache_put(c, name, &rec_a), CACHE_OK);
	}
	if (batch)
		assert_int_equal(cache_txn_commit(c), CACHE_OK);
}

/* test_get - cache_get on a NUL-terminated name */
static int
test_get(struct cache *c, const char *name, struct cache_record *out)
{
	return (cache_get(c, name, strlen(name), out));
}

/* rss_file_kb - this process's RssFile, from /proc/self/status */
static long
rss_file_kb(void)
{
	FILE	*fp = fopen("/proc/self/status", "r");
	char	 line[256];
	long	 kb = -1;

	if (fp == NULL)
		return (-1);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "RssFile: %ld kB", &kb) == 1)
			break;
	fclose(fp);
	return (kb);
}

/* cache_unmap_pages: the pages a walk mapped leave the RSS, and every
 * record reads back the same afterwards */
static void
unmap_pages_drops_file_pages_not_data(void **state)
{
	struct tdir	*t = *state;
	struct cache	*c;
	char		 name[TEST_NAME_MAX];
	unsigned int	 i;
	long		 before, mapped, after;

	c = test_open(t, 64 << 20, 0);
	test_fill(c, 0, 4000, 1);
	before = rss_file_kb();
	for (i = 0; i < 4000; i++) {	/* map every page */
		test_name(name, sizeof(name), i);
		assert_int_equal(test_get(c, name, &rec_b), CACHE_HIT);
	}
	mapped = rss_file_kb();
	assert_int_equal(cache_unmap_pages(c), CACHE_OK);
	after = rss_file_kb();
	if (before < 0)
		skip();		/* no /proc: nothing to measure */
	/* 4000 records of ~100 bytes: several hundred KiB of pages */
	assert_true(mapped - after >= 256);
	for (i = 0; i < 4000; i++) {
		test_name(name, sizeof(name), i);
		assert_int_equal(test_get(c, name, &rec_b), CACHE_HIT);
		test_record(&rec_a, i);
		assert_int_equal(rec_b.max_age, rec_a.max_age);
		assert_string_equal(rec_b.id, rec_a.id);
	}
	cache_close(c);
}

static void
open_creates_private_directory(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct stat st;
	char	 err[512], p[PATH_MAX + 16];

	/* a reader does not create anything */
	assert_null(cache_open(t->env, 0, 1, err, sizeof(err)));
	assert_non_null(strstr(err, t->env));
	assert_int_equal(stat(t->env, &st), -1);

	c = test_open(t, 0, 0);
	assert_int_equal(stat(t->env, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(p, sizeof(p), "%s/data.mdb", t->env);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0077, 0);
	cache_close(c);

	/* a plain file is not a cache directory; no parents are made */
	snprintf(p, sizeof(p), "%s/data.mdb", t->env);
	assert_null(cache_open(p, 0, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "not a directory"));
	snprintf(p, sizeof(p), "%s/no/such", t->path);
	assert_null(cache_open(p, 0, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "mkdir"));
	cache_close(NULL);
}

static void
put_get_del(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;

	c = test_open(t, TEST_MAP_SIZE, 0);
	assert_int_equal(test_get(c, "d00001.example", &got), CACHE_MISS);
	test_fill(c, 1, 3, 0);
	assert_int_equal(test_get(c, "d00002.example", &got), CACHE_HIT);
	test_record(&rec_a, 2);
	test_record_equal(&got, &rec_a);
	/* the key is domain[0..len), not a C string */
	assert_int_equal(cache_get(c, "d00003.example.trailing", 14, &got),
	    CACHE_HIT);
	assert_int_equal(got.max_age, 3);
	/* replacing */
	test_record(&rec_a, 99);
	assert_int_equal(cache_put(c, "d00002.example", &rec_a), CACHE_OK);
	assert_int_equal(test_get(c, "d00002.example", &got), CACHE_HIT);
	assert_int_equal(got.max_age, 99);
	/* deleting */
	assert_int_equal(cache_del(c, "d00002.example"), CACHE_OK);
	assert_int_equal(test_get(c, "d00002.example", &got), CACHE_MISS);
	assert_int_equal(cache_del(c, "d00002.example"), CACHE_MISS);
	assert_int_equal(test_get(c, "d00001.example", &got), CACHE_HIT);
	/* many lookups on the one reset read transaction */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(test_get(c, "d00003.example", &got),
		    CACHE_HIT);
	assert_int_equal(cache_purge_all(c), CACHE_OK);
	assert_int_equal(test_get(c, "d00001.example", &got), CACHE_MISS);
	cache_close(c);
}

/* cache_version: every commit of the writer moves it, as a reader handle
 * on the same files sees it; reads, aborted batches and failed writes
 * do not (the worker's answer memo trusts an unchanged version) */
static void
version_moves_with_each_commit(void **state)
{
	struct tdir *t = *state;
	struct cache *w, *r;
	static struct cache_record got;
	uint64_t	 v0, v1, v2;

	w = test_open(t, TEST_MAP_SIZE, 0);
	r = test_open(t, 0, 1);
	assert_int_equal(cache_version(NULL), 0);
	v0 = cache_version(r);
	assert_true(v0 == cache_version(w));
	assert_int_equal(cache_read_version(r), 0);
	test_fill(w, 1, 1, 0);
	v1 = cache_version(r);
	assert_true(v1 > v0);
	/* reads move nothing, and read the snapshot cache_version names */
	for (int i = 0; i < 10; i++)
		assert_int_equal(test_get(r, "d00001.example", &got),
		    CACHE_HIT);
	assert_true(cache_version(r) == v1);
	assert_true(cache_read_version(r) == v1);
	/* a miss is a read of the snapshot too */
	assert_int_equal(test_get(r, "d09999.example", &got), CACHE_MISS);
	assert_true(cache_read_version(r) == v1);
	/* an aborted batch moves nothing; a committed one moves it once */
	assert_int_equal(cache_txn_begin(w), CACHE_OK);
	test_record(&rec_a, 7);
	assert_int_equal(cache_put(w, "d00007.example", &rec_a), CACHE_OK);
	/* a read of the batch's own writes is no snapshot */
	assert_int_equal(test_get(w, "d00007.example", &got), CACHE_HIT);
	assert_int_equal(cache_read_version(w), 0);
	cache_txn_abort(w);
	assert_true(cache_version(r) == v1);
	test_fill(w, 2, 5, 1);
	v2 = cache_version(r);
	assert_true(v2 == v1 + 1);
	assert_int_equal(test_get(r, "d00006.example", &got), CACHE_HIT);
	assert_true(cache_read_version(r) == v2);
	/* a deletion is a commit too */
	assert_int_equal(cache_del(w, "d00002.example"), CACHE_OK);
	assert_true(cache_version(r) > v2);
	cache_close(r);
	cache_close(w);
}

/* cache_hold: the reads between hold and release see the snapshot of the
 * hold, whatever the writer commits meanwhile (the worker reads a domain's
 * MTA-STS and DANE entries so); after release a read sees the new commit;
 * a release without a hold, and a hold during a batch, change nothing */
static void
hold_reads_one_snapshot(void **state)
{
	struct tdir *t = *state;
	struct cache *w, *r;
	static struct cache_record got;
	uint64_t	 v1;

	w = test_open(t, TEST_MAP_SIZE, 0);
	r = test_open(t, 0, 1);
	test_fill(w, 1, 1, 0);
	v1 = cache_version(r);
	cache_release(r);
	assert_int_equal(cache_hold(r), CACHE_OK);
	assert_int_equal(cache_hold(r), CACHE_OK);	/* held already */
	assert_int_equal(test_get(r, "d00001.example", &got), CACHE_HIT);
	/* the writer commits a new entry and deletes the old one */
	test_fill(w, 2, 1, 0);
	assert_int_equal(cache_del(w, "d00001.example"), CACHE_OK);
	assert_true(cache_version(r) > v1);
	assert_int_equal(test_get(r, "d00002.example", &got), CACHE_MISS);
	assert_int_equal(test_get(r, "d00001.example", &got), CACHE_HIT);
	assert_true(cache_read_version(r) == v1);
	cache_release(r);
	assert_int_equal(test_get(r, "d00002.example", &got), CACHE_HIT);
	assert_int_equal(test_get(r, "d00001.example", &got), CACHE_MISS);
	assert_true(cache_read_version(r) == cache_version(r));
	cache_release(r);
	assert_int_equal(test_get(r, "d00002.example", &got), CACHE_HIT);
	/* in a batch a hold holds nothing: the batch's own writes are read */
	assert_int_equal(cache_txn_begin(w), CACHE_OK);
	assert_int_equal(cache_hold(w), CACHE_OK);
	test_record(&rec_a, 7);
	assert_int_equal(cache_put(w, "d00007.example", &rec_a), CACHE_OK);
	assert_int_equal(test_get(w, "d00007.example", &got), CACHE_HIT);
	cache_release(w);
	cache_txn_abort(w);
	assert_int_equal(test_get(w, "d00007.example", &got), CACHE_MISS);
	cache_close(r);
	cache_close(w);
}

static void
keys_must_be_normalized(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	char	 long_name[300];

	c = test_open(t, TEST_MAP_SIZE, 0);
	test_record(&rec_a, 1);
	assert_int_equal(cache_put(c, "Example.COM", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "example.com.", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "exa mple.com", &rec_a), CACHE_ERROR);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(cache_put(c, long_name, &rec_a), CACHE_ERROR);
	long_name[DOMAIN_MAX_LEN + 1] = '\0';
	assert_int_equal(cache_put(c, long_name, &rec_a), CACHE_ERROR);
	long_name[DOMAIN_MAX_LEN] = '\0';
	assert_int_equal(cache_put(c, long_name, &rec_a), CACHE_OK);
	assert_int_equal(test_get(c, long_name, &got), CACHE_HIT);
	/* the DANE key of a domain: "dane:" + the domain, nothing else */
	memcpy(long_name, "dane:", 5);
	assert_int_equal(cache_put(c, long_name, &rec_a), CACHE_OK);
	assert_int_equal(cache_put(c, "dane:", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "dane:.x.example", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "dane:dane:x.example", &rec_a),
	    CACHE_ERROR);
	assert_int_equal(cache_put(c, "x:x.example", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_put(c, "dane:x.example", &rec_a), CACHE_OK);
	assert_int_equal(test_get(c, "dane:x.example", &got), CACHE_HIT);
	assert_int_equal(test_get(c, "x.example", &got), CACHE_MISS);
	assert_int_equal(cache_get(c, "a\0b.example", 11, &got), CACHE_ERROR);
	assert_int_equal(cache_get(c, "x.example", 0, &got), CACHE_ERROR);
	assert_int_equal(cache_del(c, "X.example"), CACHE_ERROR);
	/* an invalid record is refused, not stored */
	rec_a.kind = 77;
	assert_int_equal(cache_put(c, "bad.example", &rec_a), CACHE_ERROR);
	assert_int_equal(test_get(c, "bad.example", &got), CACHE_MISS);
	cache_close(c);
}

/* test_raw_put - store key -> val[0..len) with LMDB directly, bypassing
 * the cache's encoder (no cache handle may be open in this process) */
static void
test_raw_put(const char *dir, const char *key, const void *val, size_t len)
{
	MDB_env	*env;
	MDB_txn	*txn;
	MDB_dbi	 dbi;
	MDB_val	 k, v;

	assert_int_equal(mdb_env_create(&env), 0);
	assert_int_equal(mdb_env_set_mapsize(env, TEST_MAP_SIZE), 0);
	assert_int_equal(mdb_env_open(env, dir, 0, 0600), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
	k.mv_data = (void *)(uintptr_t)key;
	k.mv_size = strlen(key);
	v.mv_data = (void *)(uintptr_t)val;
	v.mv_size = len;
	assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

struct walk {
	unsigned int	 n;		/* entries seen */
	unsigned int	 undecodable;	/* of which rec == NULL */
	unsigned int	 stop_after;	/* 0: never stop */
	struct cache	*del;		/* delete each entry through this */
	char		 last[CACHE_KEY_MAX + 1];
	int		 ordered;	/* keys came in ascending order */
	int		 max_age_is_index; /* rec->max_age matched the key */
};

/* walk_cb - cache_iterate callback that records what it saw */
static int
walk_cb(const char *domain, size_t len, const struct cache_record *rec,
    void *arg)
{
	struct walk *w = arg;
	unsigned int idx;

	assert_int_equal(strlen(domain), len);
	if (w->n > 0 && strcmp(w->last, domain) >= 0)
		w->ordered = 0;
	memcpy(w->last, domain, len + 1);
	if (rec == NULL)
		w->undecodable++;
	else if (sscanf(domain, "d%u.example", &idx) == 1 &&
	    rec->max_age != idx)
		w->max_age_is_index = 0;
	if (w->del != NULL)
		assert_int_equal(cache_del(w->del, domain), CACHE_OK);
	w->n++;
	return (w->stop_after != 0 && w->n >= w->stop_after);
}

/* walk_init - reset a walk */
static void
walk_init(struct walk *w)
{
	memset(w, 0, sizeof(*w));
	w->ordered = 1;
	w->max_age_is_index = 1;
}

static void
damaged_values_are_misses(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	struct walk w;
	size_t	 len;

	assert_int_equal(mkdir(t->env, 0700), 0);
	test_record(&rec_a, 1);
	len = test_encode(&rec_a, enc_a, sizeof(enc_a));
	memcpy(enc_b, enc_a, len);
	enc_b[1] = CACHE_RECORD_VERSION + 1;
	test_raw_put(t->env, "newer.example", enc_b, len);
	enc_b[1] = CACHE_RECORD_VERSION - 1;
	test_raw_put(t->env, "older.example", enc_b, len);
	test_raw_put(t->env, "truncated.example", enc_a, len - 1);
	test_raw_put(t->env, "empty.example", "", 0);
	test_raw_put(t->env, "raw-struct.example", &rec_a, 64);
	test_raw_put(t->env, "good.example", enc_a, len);
	test_raw_put(t->env, "Not.Normalized", enc_a, len);

	c = test_open(t, 0, 1);
	assert_int_equal(test_get(c, "newer.example", &got), CACHE_MISS);
	assert_int_equal(test_get(c, "older.example", &got), CACHE_MISS);
	assert_int_equal(test_get(c, "truncated.example", &got), CACHE_MISS);
	assert_int_equal(test_get(c, "empty.example", &got), CACHE_MISS);
	assert_int_equal(test_get(c, "raw-struct.example", &got), CACHE_MISS);
	assert_int_equal(test_get(c, "good.example", &got), CACHE_HIT);
	/* the walk hands out bad values as NULL, skips foreign keys */
	walk_init(&w);
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 6);
	assert_int_equal(w.undecodable, 5);
	cache_close(c);

	/* the next write replaces a value of another version */
	c = test_open(t, 0, 0);
	assert_int_equal(cache_put(c, "newer.example", &rec_a), CACHE_OK);
	assert_int_equal(test_get(c, "newer.example", &got), CACHE_HIT);
	test_record_equal(&got, &rec_a);
	cache_close(c);
}

static void
iterate_in_order_and_in_slices(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	struct walk w;
	unsigned int total = 0;

	c = test_open(t, TEST_MAP_SIZE, 0);
	walk_init(&w);
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 0);
	test_fill(c, 0, 250, 1);
	walk_init(&w);
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 250);
	assert_true(w.ordered);
	assert_true(w.max_age_is_index);
	assert_int_equal(w.undecodable, 0);
	assert_string_equal(w.last, "d00249.example");

	/* slices of 100: resume strictly after the last key seen */
	walk_init(&w);
	w.stop_after = 100;
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	total += w.n;
	while (w.n == 100) {
		char	 after[CACHE_KEY_MAX + 1];

		memcpy(after, w.last, sizeof(after));
		walk_init(&w);
		w.stop_after = 100;
		assert_int_equal(cache_iterate_from(c, after, strlen(after),
		    walk_cb, &w), CACHE_OK);
		total += w.n;
	}
	assert_int_equal(total, 250);
	/* "after" need not be a key */
	walk_init(&w);
	assert_int_equal(cache_iterate_from(c, "d00199.example.", 15, walk_cb,
	    &w), CACHE_OK);
	assert_int_equal(w.n, 50);

	/* the callback may write: delete everything while walking */
	walk_init(&w);
	w.del = c;
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 250);
	assert_int_equal(test_get(c, "d00000.example", &got), CACHE_MISS);
	walk_init(&w);
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 0);
	cache_close(c);
}

static void
batch_commit_and_abort(void **state)
{
	struct tdir *t = *state;
	struct cache *c, *r;
	static struct cache_record got;
	struct walk w;

	c = test_open(t, TEST_MAP_SIZE, 0);
	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	assert_int_equal(cache_txn_begin(c), CACHE_ERROR);
	test_fill(c, 0, 10, 0);
	/* the batch reads its own writes; a walk sees the last commit */
	assert_int_equal(test_get(c, "d00003.example", &got), CACHE_HIT);
	walk_init(&w);
	assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
	assert_int_equal(w.n, 0);
	cache_txn_abort(c);
	assert_int_equal(test_get(c, "d00003.example", &got), CACHE_MISS);
	assert_int_equal(cache_txn_commit(c), CACHE_ERROR);

	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	test_fill(c, 0, 10, 0);
	assert_int_equal(cache_del(c, "d00009.example"), CACHE_OK);
	assert_int_equal(cache_del(c, "d00009.example"), CACHE_MISS);
	assert_int_equal(cache_txn_commit(c), CACHE_OK);
	assert_int_equal(test_get(c, "d00003.example", &got), CACHE_HIT);
	assert_int_equal(test_get(c, "d00009.example", &got), CACHE_MISS);
	/* close with a batch open: it is dropped */
	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	assert_int_equal(cache_del(c, "d00003.example"), CACHE_OK);
	cache_close(c);

	r = test_open(t, 0, 1);
	assert_int_equal(test_get(r, "d00003.example", &got), CACHE_HIT);
	/* a reader cannot write */
	test_record(&rec_a, 1);
	assert_int_equal(cache_put(r, "d00001.example", &rec_a), CACHE_ERROR);
	assert_int_equal(cache_del(r, "d00001.example"), CACHE_ERROR);
	assert_int_equal(cache_purge_all(r), CACHE_ERROR);
	assert_int_equal(cache_txn_begin(r), CACHE_ERROR);
	cache_close(r);
}

static void
reopen_keeps_data(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	struct cache_stats st;

	c = test_open(t, TEST_MAP_SIZE, 0);
	test_fill(c, 0, 500, 1);
	cache_close(c);

	c = test_open(t, 0, 1);
	assert_int_equal(test_get(c, "d00499.example", &got), CACHE_HIT);
	test_record(&rec_a, 499);
	test_record_equal(&got, &rec_a);
	assert_int_equal(cache_stats(c, &st), CACHE_OK);
	assert_int_equal(st.entries, 500);
	assert_true(st.map_size == TEST_MAP_SIZE);
	assert_true(st.page_size >= 512);
	assert_true(st.pages_used > 2 && st.pages_used < st.pages_max);
	assert_true(st.pages_max == TEST_MAP_SIZE / st.page_size);
	assert_int_equal(st.readers_max, CACHE_MAX_READERS);
	assert_true(st.depth >= 1);
	cache_close(c);

	/* a writer that gives no size keeps the existing one */
	c = test_open(t, 0, 0);
	assert_int_equal(cache_stats(c, &st), CACHE_OK);
	assert_true(st.map_size == TEST_MAP_SIZE);
	assert_int_equal(st.entries, 500);
	cache_close(c);
}

static void
new_env_gets_default_map_size(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_stats st;

	c = test_open(t, 0, 0);
	assert_int_equal(cache_stats(c, &st), CACHE_OK);
	assert_true(st.map_size == CACHE_DEFAULT_MAP_SIZE);
	assert_int_equal(st.entries, 0);
	cache_close(c);
}

static void
full_map_fails_writes_not_reads(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	char	 name[TEST_NAME_MAX];
	unsigned int i;
	int	 st = CACHE_OK;

	c = test_open(t, (size_t)256 << 10, 0);
	for (i = 0; i < 100000; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		if ((st = cache_put(c, name, &rec_a)) != CACHE_OK)
			break;
	}
	assert_int_equal(st, CACHE_FULL);
	assert_true(i > 100);
	/* reads keep working, the failed write left nothing */
	assert_int_equal(test_get(c, "d00000.example", &got), CACHE_HIT);
	assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	assert_int_equal(cache_put(c, name, &rec_a), CACHE_FULL);

	/* in a batch: the failure ends the batch, later writes and the
	 * commit report it, nothing of the batch lands */
	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	assert_int_equal(cache_del(c, "d00000.example"), CACHE_OK);
	for (i = 200000; i < 300000; i++) {
		test_name(name, sizeof(name), i);
		if ((st = cache_put(c, name, &rec_a)) != CACHE_OK)
			break;
	}
	assert_int_equal(st, CACHE_FULL);
	assert_int_equal(cache_put(c, "x.example", &rec_a), CACHE_FULL);
	assert_int_equal(cache_txn_commit(c), CACHE_FULL);
	assert_int_equal(test_get(c, "d00000.example", &got), CACHE_HIT);
	assert_int_equal(test_get(c, "d200000.example", &got), CACHE_MISS);
	cache_close(c);
}

/* test_wait_child - reap pid, return its exit status (-1 if it did not
 * exit normally) */
static int
test_wait_child(pid_t pid)
{
	int	 status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return (-1);
	if (WIFEXITED(status))
		return (WEXITSTATUS(status));
	return (-1);
}

/* test_create - create an empty environment and close it, so that a
 * reader process can open it */
static void
test_create(const struct tdir *t, size_t map_size)
{
	cache_close(test_open(t, map_size, 0));
}

/* disk_full_child - with the file size capped (pwrite fails with EFBIG,
 * as it would with ENOSPC), writes must fail as CACHE_FULL and reads go on */
static int
disk_full_child(const struct tdir *t)
{
	static struct cache_record got;
	struct cache *c;
	struct rlimit rl;
	struct stat st;
	char	 err[512], name[TEST_NAME_MAX], data[PATH_MAX + 16];
	unsigned int i;
	int	 rc = CACHE_OK;

	if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
		return (10);
	if ((c = cache_open(t->env, 0, 0, err, sizeof(err))) == NULL)
		return (11);
	snprintf(data, sizeof(data), "%s/data.mdb", t->env);
	if (stat(data, &st) == -1)
		return (12);
	rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size + 64 * 1024;
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		return (13);
	for (i = 1000; i < 100000; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		if ((rc = cache_put(c, name, &rec_a)) != CACHE_OK)
			break;
	}
	if (rc != CACHE_FULL)
		return (14);
	if (test_get(c, name, &got) != CACHE_MISS)
		return (15);
	if (test_get(c, "d00000.example", &got) != CACHE_HIT ||
	    test_get(c, "d00999.example", &got) != CACHE_HIT)
		return (16);
	cache_close(c);
	return (0);
}

static void
full_disk_fails_writes_not_reads(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	pid_t	 pid;

	c = test_open(t, TEST_MAP_SIZE, 0);
	test_fill(c, 0, 1000, 1);
	cache_close(c);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0)
		_exit(disk_full_child(t));
	assert_int_equal(test_wait_child(pid), 0);
	/* nothing broke: the file opens, old data is there, writes work */
	c = test_open(t, 0, 0);
	assert_int_equal(test_get(c, "d00500.example", &got), CACHE_HIT);
	test_record(&rec_a, 1);
	assert_int_equal(cache_put(c, "after.full.example", &rec_a), CACHE_OK);
	cache_close(c);
}

#define READER_WRITES	1000

/* reader_child - open read-only, tell the parent, then read until the last
 * record appears: every hit must be a whole, consistent record */
static int
reader_child(const struct tdir *t, int ready_fd)
{
	static struct cache_record got;
	struct cache *c;
	char	 err[512], name[TEST_NAME_MAX];
	unsigned int i, hits = 0;
	time_t	 deadline;
	int	 st;

	if ((c = cache_open(t->env, 0, 1, err, sizeof(err))) == NULL)
		return (10);
	if (write(ready_fd, "r", 1) != 1)
		return (11);
	close(ready_fd);
	deadline = time(NULL) + 60;
	for (;;) {
		for (i = 0; i < READER_WRITES; i += 37) {
			test_name(name, sizeof(name), i);
			st = test_get(c, name, &got);
			if (st == CACHE_HIT) {
				hits++;
				if (got.max_age != i ||
				    got.nmx != 2 || got.kind != CACHE_KIND_STS)
					return (12);
			} else if (st != CACHE_MISS)
				return (13);
		}
		test_name(name, sizeof(name), READER_WRITES - 1);
		if (test_get(c, name, &got) == CACHE_HIT)
			break;
		if (time(NULL) > deadline)
			return (14);
	}
	cache_close(c);
	return (hits > 0 ? 0 : 15);
}

static void
reader_process_while_writing(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	int	 fds[2];
	char	 ch;
	pid_t	 pid;

	test_create(t, TEST_MAP_SIZE);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(fds[0]);
		_exit(reader_child(t, fds[1]));
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &ch, 1), 1);
	close(fds[0]);
	c = test_open(t, 0, 0);
	test_fill(c, 0, READER_WRITES, 0);	/* one commit per record */
	cache_close(c);
	assert_int_equal(test_wait_child(pid), 0);
}

#define KILL_RECORDS	1000

/* writer_child - write KILL_RECORDS records, one commit each, reporting
 * the count after each commit; the parent kills it on the way */
static int
writer_child(const struct tdir *t, int progress_fd)
{
	struct cache *c;
	char	 err[512], name[TEST_NAME_MAX];
	unsigned int i;

	if ((c = cache_open(t->env, 0, 0, err, sizeof(err))) == NULL)
		return (10);
	for (i = 0; i < KILL_RECORDS; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		/* bigger values: more pages per commit to be killed in */
		for (unsigned int j = 2; j < 40; j++)
			test_add_mx(&rec_a,
			    "mx%u.padding-padding-padding.d%05u.example", j, i);
		if (cache_put(c, name, &rec_a) != CACHE_OK)
			return (11);
		if (write(progress_fd, &i, sizeof(i)) != sizeof(i))
			return (12);
	}
	cache_close(c);
	return (0);
}

static void
writer_killed_mid_way(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	struct walk w;
	char	 name[TEST_NAME_MAX];
	unsigned int done, round, kill_at;
	int	 fds[2], status;
	pid_t	 pid;

	test_create(t, TEST_MAP_SIZE);
	for (round = 0; round < 4; round++) {
		kill_at = 50 + round * 150;
		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid != -1);
		if (pid == 0) {
			close(fds[0]);
			_exit(writer_child(t, fds[1]));
		}
		close(fds[1]);
		done = 0;
		while (read(fds[0], &done, sizeof(done)) == sizeof(done) &&
		    done < kill_at)
			;
		/* it is committing the next records as this lands */
		assert_int_equal(kill(pid, SIGKILL), 0);
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));

		/* reopen: no error, every entry decodes, the committed
		 * records are all there, in one unbroken run from 0 */
		c = test_open(t, 0, 0);
		walk_init(&w);
		assert_int_equal(cache_iterate(c, walk_cb, &w), CACHE_OK);
		assert_int_equal(w.undecodable, 0);
		assert_true(w.ordered);
		assert_true(w.max_age_is_index);
		assert_true(w.n >= done + 1 && w.n < KILL_RECORDS);
		test_name(name, sizeof(name), w.n - 1);
		assert_string_equal(w.last, name);
		assert_int_equal(test_get(c, name, &got), CACHE_HIT);
		assert_int_equal(got.nmx, 40);
		/* and the writer lock was recovered: we can write */
		test_record(&rec_a, 424242);
		assert_int_equal(cache_put(c, "after.kill.example", &rec_a),
		    CACHE_OK);
		assert_int_equal(cache_del(c, "after.kill.example"), CACHE_OK);
		assert_int_equal(cache_purge_all(c), CACHE_OK);
		cache_close(c);
	}
}

/* grown_map_child - a reader opened on the small map: wait until the
 * parent wrote past it, then look the last record up */
static int
grown_map_child(const struct tdir *t, int ready_fd, int go_fd)
{
	static struct cache_record got;
	struct cache *c;
	struct cache_stats st;
	char	 err[512], ch;

	if ((c = cache_open(t->env, 0, 1, err, sizeof(err))) == NULL)
		return (10);
	if (test_get(c, "d00000.example", &got) != CACHE_MISS)
		return (11);
	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &ch, 1) != 1)
		return (12);
	if (test_get(c, "d01999.example", &got) != CACHE_HIT ||
	    got.max_age != 1999)
		return (13);
	if (cache_stats(c, &st) != CACHE_OK || st.map_size != TEST_MAP_SIZE)
		return (14);
	cache_close(c);
	return (0);
}

static void
reader_follows_grown_map(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_stats st;
	int	 ready[2], go[2];
	pid_t	 pid;
	char	 ch;

	test_create(t, (size_t)1 << 20);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(grown_map_child(t, ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &ch, 1), 1);
	/* a writer restarted with a bigger max_size */
	c = test_open(t, TEST_MAP_SIZE, 0);
	test_fill(c, 0, 2000, 1);
	test_fill(c, 2000, 18000, 1);
	assert_int_equal(cache_stats(c, &st), CACHE_OK);
	assert_true(st.pages_used * st.page_size > ((size_t)1 << 20));
	cache_close(c);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(test_wait_child(pid), 0);
	close(ready[0]);
	close(go[1]);
}

static void
dead_reader_slots_cleared(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_record got;
	int	 fds[2], dead = -1, status;
	pid_t	 pid;
	char	 ch;

	test_create(t, TEST_MAP_SIZE);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		struct cache *r;
		char	 err[512];

		close(fds[0]);
		if ((r = cache_open(t->env, 0, 1, err, sizeof(err))) == NULL)
			_exit(10);
		(void)test_get(r, "x.example", &got);
		if (write(fds[1], "r", 1) != 1)
			_exit(11);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &ch, 1), 1);
	close(fds[0]);
	c = test_open(t, 0, 0);
	assert_int_equal(cache_reader_check(c, &dead), CACHE_OK);
	assert_int_equal(dead, 0);		/* the reader is alive */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(cache_reader_check(c, &dead), CACHE_OK);
	assert_int_equal(dead, 1);
	assert_int_equal(cache_reader_check(c, NULL), CACHE_OK);
	cache_close(c);
}

/*
 * Damaged environments (cache_open_recover).  Each case damages a closed
 * environment of TEST_DAMAGE_RECORDS records, then checks: a reader's
 * cache_open (and a writer's plain cache_open: postsmtpsts-cache) moves
 * nothing; the resolver's cache_open_recover moves a damaged one aside
 * (the damaged bytes kept as they were) and starts empty and writable, and
 * leaves an undamaged one (the old data readable) where it is.
 */
#define TEST_DAMAGE_RECORDS	2000
#define TEST_GARBAGE_LEN	65536

enum test_damage {
	DAMAGE_GARBAGE_DATA,	/* data.mdb overwritten with random bytes */
	DAMAGE_TRUNCATED_DATA,	/* data.mdb cut after its meta pages */
	DAMAGE_EMPTY_DATA,	/* data.mdb of length 0 */
	DAMAGE_GARBAGE_LOCK,	/* lock.mdb overwritten, nobody has it open */
	DAMAGE_GARBAGE_META,	/* both meta pages overwritten, rest intact */
};

static const struct damage_case {
	const char	*name;
	enum test_damage damage;
	int		 reader_opens;	/* a reader's cache_open succeeds */
	int		 moved;		/* cache_open_recover moves it aside */
	int		 data_kept;	/* the old records are still there */
} damage_cases[] = {
	{ "garbage data.mdb", DAMAGE_GARBAGE_DATA, 0, 1, 0 },
	{ "truncated data.mdb", DAMAGE_TRUNCATED_DATA, 0, 1, 0 },
	/* LMDB takes an empty file for a new environment: nothing to move,
	 * the writer starts it afresh (the reader waits for that) */
	{ "zero-length data.mdb", DAMAGE_EMPTY_DATA, 0, 0, 0 },
	/* the first opener re-initializes the lock file: nothing lost */
	{ "garbage lock.mdb", DAMAGE_GARBAGE_LOCK, 1, 0, 1 },
	{ "garbage meta pages", DAMAGE_GARBAGE_META, 0, 1, 0 },
};

/* test_damage_file - apply damage to the files in dir */
static void
test_damage_file(const char *dir, enum test_damage damage)
{
	static unsigned char junk[TEST_GARBAGE_LEN];
	char	 p[PATH_MAX];
	size_t	 i, len = sizeof(junk);
	int	 fd, n, flags = O_WRONLY;
	off_t	 trunc = -1;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 2654435761u >> 13);
	n = snprintf(p, sizeof(p), "%s/%s", dir,
	    damage == DAMAGE_GARBAGE_LOCK ? "lock.mdb" : "data.mdb");
	assert_true(n > 0 && (size_t)n < sizeof(p));
	switch (damage) {
	case DAMAGE_GARBAGE_DATA:
	case DAMAGE_GARBAGE_LOCK:
		flags |= O_TRUNC;
		break;
	case DAMAGE_TRUNCATED_DATA:
		trunc = 3 * 4096;
		len = 0;
		break;
	case DAMAGE_EMPTY_DATA:
		trunc = 0;
		len = 0;
		break;
	case DAMAGE_GARBAGE_META:
		len = 2 * 4096;
		break;
	}
	fd = open(p, flags);
	assert_true(fd != -1);
	if (len > 0)
		assert_int_equal(write(fd, junk, len), (ssize_t)len);
	if (trunc >= 0)
		assert_int_equal(ftruncate(fd, trunc), 0);
	assert_int_equal(close(fd), 0);
}

/* test_file_size - size of dir/name, -1 if missing */
static off_t
test_file_size(const char *dir, const char *name)
{
	char	 p[PATH_MAX];
	struct stat st;
	int	 n;

	n = snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_true(n > 0 && (size_t)n < sizeof(p));
	return (stat(p, &st) == 0 ? st.st_size : -1);
}

/* test_find_aside - the "<env>.corrupt-*" directory next to t's env into
 * out; number of them */
static int
test_find_aside(const struct tdir *t, char *out, size_t outsz)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0, len;

	assert_non_null(d = opendir(t->path));
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "cache.corrupt-", 14) == 0) {
			len = snprintf(out, outsz, "%s/%s", t->path,
			    de->d_name);
			assert_true(len > 0 && (size_t)len < outsz);
			n++;
		}
	closedir(d);
	return (n);
}

static void
damaged_env_is_moved_aside(void **state)
{
	struct tdir *t = *state;
	const struct damage_case *dc;
	struct cache *c;
	static struct cache_record got;
	struct cache_stats cs;
	char	 err[512], aside[PATH_MAX], found[PATH_MAX];
	off_t	 size;
	size_t	 i;

	for (i = 0; i < sizeof(damage_cases) / sizeof(damage_cases[0]); i++) {
		dc = &damage_cases[i];
		print_message("case: %s\n", dc->name);
		test_rmtree(t->env);
		c = test_open(t, TEST_MAP_SIZE, 0);
		test_fill(c, 0, TEST_DAMAGE_RECORDS, 1);
		cache_close(c);
		test_damage_file(t->env, dc->damage);
		size = test_file_size(t->env, "data.mdb");

		/* readers never move anything */
		c = cache_open(t->env, 0, 1, err, sizeof(err));
		assert_int_equal(c != NULL, dc->reader_opens);
		cache_close(c);
		if (dc->moved) {
			assert_null(cache_open(t->env, 0, 0, err,
			    sizeof(err)));
			assert_non_null(strstr(err, "damaged"));
		}
		assert_int_equal(test_file_size(t->env, "data.mdb"), size);
		assert_int_equal(test_find_aside(t, found, sizeof(found)), 0);

		c = cache_open_recover(t->env, TEST_MAP_SIZE, aside,
		    sizeof(aside), err, sizeof(err));
		if (c == NULL)
			fail_msg("%s: cache_open_recover: %s", dc->name, err);
		assert_int_equal(aside[0] != '\0', dc->moved);
		assert_int_equal(test_find_aside(t, found, sizeof(found)),
		    dc->moved);
		if (dc->moved) {
			assert_string_equal(found, aside);
			/* the damaged bytes, kept as they were */
			assert_int_equal(test_file_size(aside, "data.mdb"),
			    size);
			assert_true(test_file_size(aside, "lock.mdb") >= 0);
		}
		assert_int_equal(test_get(c, "d00007.example", &got),
		    dc->data_kept ? CACHE_HIT : CACHE_MISS);
		assert_int_equal(cache_stats(c, &cs), CACHE_OK);
		assert_int_equal(cs.entries,
		    dc->data_kept ? TEST_DAMAGE_RECORDS : 0);
		/* the fresh environment learns again, and readers see it */
		test_record(&rec_a, 1);
		assert_int_equal(cache_put(c, "after.damage.example", &rec_a),
		    CACHE_OK);
		cache_close(c);
		c = test_open(t, 0, 1);
		assert_int_equal(test_get(c, "after.damage.example", &got),
		    CACHE_HIT);
		cache_close(c);
		/* a second open finds nothing to move */
		c = cache_open_recover(t->env, TEST_MAP_SIZE, aside,
		    sizeof(aside), err, sizeof(err));
		assert_non_null(c);
		assert_string_equal(aside, "");
		cache_close(c);
		if (dc->moved)
			test_rmtree(found);
	}
}

/*
 * Eviction.  A map of TEST_EVICT_MAP bytes fills after a few thousand
 * entries; the records' times are around TEST_NOW.
 */
#define TEST_EVICT_MAP		((size_t)256 << 10)
#define TEST_NOW		((int64_t)1700000000 + 1000)
#define TEST_FLOOD		20000
#define TEST_KEEP		200

/* test_evict_record - record i of class cls (enum cache_evict_class) */
static void
test_evict_record(struct cache_record *r, unsigned int i, int cls)
{
	test_record(r, i);
	switch (cls) {
	case CACHE_EVICT_NEGATIVE:
		cache_record_reset(r);
		r->kind = CACHE_KIND_NONE;
		r->fetched_at = TEST_NOW - 10 + (int64_t)(i % 10);
		r->expires_at = TEST_NOW + 3600;
		r->next_refresh = r->expires_at;
		break;
	case CACHE_EVICT_EXPIRED:
		r->expires_at = TEST_NOW - 1;
		break;
	case CACHE_EVICT_OTHER:
		r->sts_mode = CACHE_STS_TESTING;
		break;
	default:
		break;
	}
}

/* test_class_name - "k<cls>-<i>.example" */
static void
test_class_name(char *out, size_t outsz, int cls, unsigned int i)
{
	snprintf(out, outsz, "k%d-%06u.example", cls, i);
}

/* test_fill_class - put entries k<cls>-0, -1, ... of class cls: max of
 * them, or until the map is full if max is 0; the number stored */
static unsigned int
test_fill_class(struct cache *c, int cls, unsigned int max)
{
	char	 name[TEST_NAME_MAX];
	unsigned int n;
	int	 st;

	for (n = 0; max == 0 || n < max; n++) {
		test_class_name(name, sizeof(name), cls, n);
		test_evict_record(&rec_a, n, cls);
		if ((st = cache_put(c, name, &rec_a)) != CACHE_OK) {
			assert_int_equal(st, CACHE_FULL);
			assert_int_equal(max, 0);
			break;
		}
	}
	return (n);
}

/* test_class_held - entries k<cls>-0 .. n-1 are all in the map */
static void
test_class_held(struct cache *c, int cls, unsigned int n)
{
	static struct cache_record got;
	char	 name[TEST_NAME_MAX];
	unsigned int i;

	for (i = 0; i < n; i++) {
		test_class_name(name, sizeof(name), cls, i);
		assert_int_equal(test_get(c, name, &got), CACHE_HIT);
	}
}

/* disk_full_evict_child - the file capped at its size (pwrite past it
 * fails with EFBIG, as with ENOSPC) over a cache of evictable negative
 * entries: cache_put_room() refuses new records (CACHE_FULL) and evicts
 * nothing - deletions would fit in the file's free pages and lose
 * committed entries for no room a full disk could use */
static int
disk_full_evict_child(const struct tdir *t, unsigned int held)
{
	static struct cache_record got;
	struct cache_evict_stats es;
	struct cache *c;
	struct rlimit rl;
	struct stat st;
	char	 err[512], name[TEST_NAME_MAX], data[PATH_MAX + 16];
	unsigned int i, k;
	int	 rc = CACHE_OK;

	if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
		return (10);
	if ((c = cache_open(t->env, 0, 0, err, sizeof(err))) == NULL)
		return (11);
	snprintf(data, sizeof(data), "%s/data.mdb", t->env);
	if (stat(data, &st) == -1)
		return (12);
	rl.rlim_cur = rl.rlim_max = (rlim_t)st.st_size;
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		return (13);
	for (i = 0; i < 100000; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		rc = cache_put_room(c, name, &rec_a, TEST_NOW, &es);
		for (k = 0; k < CACHE_EVICT_CLASSES; k++)
			if (es.evicted[k] != 0)
				return (14);
		if (rc != CACHE_OK)
			break;
	}
	if (rc != CACHE_FULL || !cache_disk_full(c))
		return (15);
	for (i = 0; i < held; i++) {
		test_class_name(name, sizeof(name), CACHE_EVICT_NEGATIVE, i);
		if (test_get(c, name, &got) != CACHE_HIT)
			return (16);
	}
	cache_close(c);
	return (0);
}

static void
full_disk_evicts_nothing(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	unsigned int n;
	pid_t	 pid;

	c = test_open(t, TEST_MAP_SIZE, 0);
	/* one commit each: the file's free list has pages for deletions */
	n = test_fill_class(c, CACHE_EVICT_NEGATIVE, 2000);
	cache_close(c);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0)
		_exit(disk_full_evict_child(t, n));
	assert_int_equal(test_wait_child(pid), 0);
}

static void
full_map_evicts_in_class_order(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	struct cache_stats cs;
	char	 name[TEST_NAME_MAX];
	unsigned int i, n[CACHE_EVICT_CLASSES] = { 0 };
	int	 cls, st = CACHE_OK, last = -1, lo, hi, passes;

	c = test_open(t, TEST_EVICT_MAP, 0);
	/* fill to the brim, the four classes interleaved */
	for (i = 0; st == CACHE_OK; i++) {
		cls = (int)(i % CACHE_EVICT_CLASSES);
		test_class_name(name, sizeof(name), cls, i);
		test_evict_record(&rec_a, i, cls);
		if ((st = cache_put(c, name, &rec_a)) == CACHE_OK)
			n[cls]++;
	}
	assert_int_equal(st, CACHE_FULL);
	assert_true(n[CACHE_EVICT_NEGATIVE] > CACHE_EVICT_BATCH);
	print_message("full after %u entries\n", i - 1);

	/* pass after pass, the classes go in order: a pass never deletes a
	 * lower class than the one before it did */
	for (passes = 0; passes < 1000; passes++) {
		assert_int_equal(cache_evict(c, TEST_NOW, &es), CACHE_OK);
		lo = hi = -1;
		for (cls = 0; cls < CACHE_EVICT_CLASSES; cls++)
			if (es.evicted[cls] > 0) {
				if (lo == -1)
					lo = cls;
				hi = cls;
			}
		if (lo == -1)
			break;		/* empty */
		assert_true(lo >= last);
		/* "keep" entries only once nothing else is left */
		if (hi == CACHE_EVICT_KEEP)
			assert_int_equal(lo, CACHE_EVICT_KEEP);
		last = hi;
	}
	assert_int_equal(last, CACHE_EVICT_KEEP);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.entries, 0);
	cache_close(c);
}

static void
flood_of_negatives_keeps_enforce_policies(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	struct cache_stats cs;
	static struct cache_record got;
	char	 name[TEST_NAME_MAX];
	size_t	 evicted[CACHE_EVICT_CLASSES] = { 0 };
	unsigned int i, full = 0;
	int	 cls, st;

	c = test_open(t, TEST_EVICT_MAP, 0);
	assert_int_equal(test_fill_class(c, CACHE_EVICT_KEEP, TEST_KEEP),
	    TEST_KEEP);
	/* random-looking non-existent names, far more than the map holds;
	 * every one of them is stored */
	for (i = 0; i < TEST_FLOOD; i++) {
		snprintf(name, sizeof(name), "x%08x.flood.example",
		    i * 2654435761u);
		test_evict_record(&rec_a, i, CACHE_EVICT_NEGATIVE);
		rec_a.fetched_at = TEST_NOW - TEST_FLOOD + i;
		st = cache_put_room(c, name, &rec_a, TEST_NOW, &es);
		if (st != CACHE_OK)
			fail_msg("flood entry %u: %s", i,
			    cache_status_name(st));
		for (cls = 0; cls < CACHE_EVICT_CLASSES; cls++)
			evicted[cls] += es.evicted[cls];
		if (es.evicted[CACHE_EVICT_NEGATIVE] > 0)
			full++;
	}
	print_message("%u eviction passes, %zu negative entries evicted\n",
	    full, evicted[CACHE_EVICT_NEGATIVE]);
	assert_true(full > 0);
	assert_true(evicted[CACHE_EVICT_NEGATIVE] > TEST_FLOOD / 2);
	assert_int_equal(evicted[CACHE_EVICT_KEEP], 0);
	/* every enforce policy is still there */
	test_class_held(c, CACHE_EVICT_KEEP, TEST_KEEP);
	/* the map did not grow past the eviction reserve */
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	print_message("map %zu bytes, %zu entries\n", cs.map_size,
	    cs.entries);
	assert_true(cs.map_size <= TEST_EVICT_MAP + ((size_t)64 << 10));
	/* the newest flood entry is there, the first one is long gone */
	snprintf(name, sizeof(name), "x%08x.flood.example",
	    (TEST_FLOOD - 1) * 2654435761u);
	assert_int_equal(test_get(c, name, &got), CACHE_HIT);
	snprintf(name, sizeof(name), "x%08x.flood.example", 0u);
	assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	/* and a new enforce policy is still learned */
	test_evict_record(&rec_a, 7, CACHE_EVICT_KEEP);
	assert_int_equal(cache_put_room(c, "new-enforce.example", &rec_a,
	    TEST_NOW, &es), CACHE_OK);
	assert_int_equal(test_get(c, "new-enforce.example", &got), CACHE_HIT);
	cache_close(c);
}

static void
full_of_enforce_evicts_least_recently_fetched(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	static struct cache_record got;
	char	 name[TEST_NAME_MAX];
	unsigned int i, n;

	c = test_open(t, TEST_EVICT_MAP, 0);
	n = test_fill_class(c, CACHE_EVICT_KEEP, 0);
	/* nothing but enforce policies: the oldest of them make room */
	test_evict_record(&rec_a, n + 1, CACHE_EVICT_KEEP);
	assert_int_equal(cache_put_room(c, "one-more.example", &rec_a,
	    TEST_NOW, &es), CACHE_OK);
	assert_true(es.evicted[CACHE_EVICT_KEEP] > 0);
	assert_int_equal(es.evicted[CACHE_EVICT_NEGATIVE] +
	    es.evicted[CACHE_EVICT_EXPIRED] + es.evicted[CACHE_EVICT_OTHER], 0);
	test_class_name(name, sizeof(name), CACHE_EVICT_KEEP, 0);
	assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	test_class_name(name, sizeof(name), CACHE_EVICT_KEEP, n - 1);
	assert_int_equal(test_get(c, name, &got), CACHE_HIT);
	for (i = 0; i < es.evicted[CACHE_EVICT_KEEP]; i++) {
		test_class_name(name, sizeof(name), CACHE_EVICT_KEEP, i);
		assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	}
	/* eviction is the writer's, outside batches */
	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	assert_int_equal(cache_evict(c, TEST_NOW, &es), CACHE_ERROR);
	cache_txn_abort(c);
	cache_close(c);
}

/* cache_put_room_many: a job's records in one commit; each record its own
 * status; an invalid one does not keep the others out */
static void
put_room_many_one_commit(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	struct cache_stats cs;
	static struct cache_record got, b;
	const char *keys[3] = { "one.example", "Not..Normal", "two.example" };
	const struct cache_record *recs[3] = { &rec_a, &b, &b };
	size_t	 txn;
	int	 st[3];

	c = test_open(t, TEST_EVICT_MAP, 0);
	test_record(&rec_a, 1);
	test_record(&b, 2);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	txn = cs.last_txnid;
	assert_int_equal(cache_put_room_many(c, keys, recs, 3, TEST_NOW, &es,
	    st), CACHE_ERROR);
	assert_int_equal(st[0], CACHE_OK);
	assert_int_equal(st[1], CACHE_ERROR);
	assert_int_equal(st[2], CACHE_OK);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.last_txnid, txn + 1);	/* one commit */
	assert_int_equal(cs.entries, 2);
	assert_int_equal(test_get(c, "one.example", &got), CACHE_HIT);
	test_record_equal(&got, &rec_a);
	assert_int_equal(test_get(c, "two.example", &got), CACHE_HIT);
	test_record_equal(&got, &b);
	/* two valid records: CACHE_OK, one more commit */
	keys[1] = "three.example";
	assert_int_equal(cache_put_room_many(c, keys, recs, 3, TEST_NOW, &es,
	    st), CACHE_OK);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.last_txnid, txn + 2);
	assert_int_equal(cs.entries, 3);
	/* inside a batch: the batch's, committed by its owner */
	assert_int_equal(cache_txn_begin(c), CACHE_OK);
	keys[0] = "four.example";
	keys[2] = "five.example";
	assert_int_equal(cache_put_room_many(c, keys, recs, 3, TEST_NOW, &es,
	    st), CACHE_OK);
	assert_int_equal(cache_txn_commit(c), CACHE_OK);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.last_txnid, txn + 3);
	assert_int_equal(cs.entries, 5);
	cache_close(c);
}

/* cache_put_room_many on a map full of negative entries: both records of
 * every pair are stored (eviction, or the one-by-one fallback), enforce
 * policies stay, and the map stays within the eviction reserve */
static void
put_room_many_full_map_loses_nothing(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	struct cache_stats cs;
	static struct cache_record got, b;
	char	 name[TEST_NAME_MAX], name2[CACHE_KEY_MAX + 1];
	const char *keys[2] = { name, name2 };
	const struct cache_record *recs[2] = { &rec_a, &b };
	size_t	 negs = 0;
	unsigned int i;
	int	 st[2];

	c = test_open(t, TEST_EVICT_MAP, 0);
	assert_int_equal(test_fill_class(c, CACHE_EVICT_KEEP, TEST_KEEP),
	    TEST_KEEP);
	assert_true(test_fill_class(c, CACHE_EVICT_NEGATIVE, 0) > 0);
	/* pairs of negative entries, as a flood of non-existent domains
	 * makes (the MTA-STS and DANE record of each) */
	for (i = 0; i < TEST_FLOOD / 2; i++) {
		snprintf(name, sizeof(name), "x%08x.flood.example",
		    i * 2654435761u);
		(void)cache_dane_key(name, strlen(name), name2);
		test_evict_record(&rec_a, i, CACHE_EVICT_NEGATIVE);
		test_evict_record(&b, i, CACHE_EVICT_NEGATIVE);
		if (cache_put_room_many(c, keys, recs, 2, TEST_NOW, &es, st) !=
		    CACHE_OK)
			fail_msg("pair %u: %s %s", i, cache_status_name(st[0]),
			    cache_status_name(st[1]));
		assert_int_equal(es.evicted[CACHE_EVICT_KEEP], 0);
		negs += es.evicted[CACHE_EVICT_NEGATIVE];
		assert_int_equal(test_get(c, name, &got), CACHE_HIT);
		assert_int_equal(test_get(c, name2, &got), CACHE_HIT);
	}
	print_message("%zu negative entries evicted\n", negs);
	assert_true(negs > TEST_FLOOD / 4);
	test_class_held(c, CACHE_EVICT_KEEP, TEST_KEEP);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	print_message("map %zu bytes, %zu entries\n", cs.map_size,
	    cs.entries);
	assert_true(cs.map_size <= TEST_EVICT_MAP + ((size_t)64 << 10));
	cache_close(c);
}

/* cache_put_room_many on a map full of enforce policies: nothing to
 * evict ahead of time, so the one transaction fails full and each record
 * is written by itself, the least recently fetched policies making room */
static void
put_room_many_full_of_enforce_falls_back(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	struct cache_evict_stats es;
	static struct cache_record got, b;
	char	 name[TEST_NAME_MAX], name2[CACHE_KEY_MAX + 1];
	const char *keys[2] = { "new.example", name2 };
	const struct cache_record *recs[2] = { &rec_a, &b };
	unsigned int n;
	int	 st[2];

	c = test_open(t, TEST_EVICT_MAP, 0);
	n = test_fill_class(c, CACHE_EVICT_KEEP, 0);
	test_evict_record(&rec_a, n + 1, CACHE_EVICT_KEEP);
	test_evict_record(&b, n + 2, CACHE_EVICT_KEEP);
	(void)cache_dane_key("new.example", strlen("new.example"), name2);
	assert_int_equal(cache_put_room_many(c, keys, recs, 2, TEST_NOW, &es,
	    st), CACHE_OK);
	assert_int_equal(st[0], CACHE_OK);
	assert_int_equal(st[1], CACHE_OK);
	assert_true(es.evicted[CACHE_EVICT_KEEP] > 0);
	assert_int_equal(test_get(c, "new.example", &got), CACHE_HIT);
	test_record_equal(&got, &rec_a);
	assert_int_equal(test_get(c, name2, &got), CACHE_HIT);
	test_record_equal(&got, &b);
	test_class_name(name, sizeof(name), CACHE_EVICT_KEEP, 0);
	assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	cache_close(c);
}

/* cache_wb: held records are found by key, the newest copy wins, at most
 * CACHE_WB_MAX are held */
static void
wb_holds_newest_copy(void **state)
{
	static struct cache_wb wb;
	static struct cache_record got, b;
	char	 name[TEST_NAME_MAX];
	unsigned int i;

	(void)state;
	cache_wb_init(&wb);
	test_record(&rec_a, 1);
	test_record(&b, 2);
	assert_int_equal(cache_wb_put(&wb, "a.example", &rec_a), 1);
	assert_int_equal(cache_wb_put(&wb, "b.example", &b), 2);
	assert_int_equal(cache_wb_get(&wb, "a.example", 9, &got), 1);
	test_record_equal(&got, &rec_a);
	/* a prefix of a held key is another key */
	assert_int_equal(cache_wb_get(&wb, "a.example", 5, &got), 0);
	assert_int_equal(cache_wb_get(&wb, "c.example", 9, &got), 0);
	/* the same key again: replaced, not added */
	assert_int_equal(cache_wb_put(&wb, "a.example", &b), 2);
	assert_int_equal(cache_wb_get(&wb, "a.example", 9, &got), 1);
	test_record_equal(&got, &b);
	for (i = 2; i < CACHE_WB_MAX; i++) {
		test_name(name, sizeof(name), i);
		assert_int_equal(cache_wb_put(&wb, name, &rec_a), i + 1);
	}
	/* full: a new key is refused, a held one still replaced */
	assert_int_equal(cache_wb_put(&wb, "one-more.example", &rec_a), 0);
	assert_int_equal(cache_wb_get(&wb, "one-more.example", 16, &got), 0);
	assert_int_equal(cache_wb_put(&wb, "b.example", &rec_a),
	    CACHE_WB_MAX);
	assert_int_equal(cache_wb_count(&wb), CACHE_WB_MAX);
	cache_wb_release(&wb);
	assert_int_equal(cache_wb_count(&wb), 0);
	assert_int_equal(cache_wb_get(&wb, "a.example", 9, &got), 0);
	cache_record_release(&got);
	cache_record_release(&b);
}

struct wb_seen {
	unsigned int	 n, ok;
};

static void
wb_done(void *arg, const char *key, int st)
{
	struct wb_seen	*seen = arg;

	(void)key;
	seen->n++;
	if (st == CACHE_OK)
		seen->ok++;
}

/* cache_wb_flush: everything held in one commit, each reported, then
 * nothing held */
static void
wb_flush_is_one_commit(void **state)
{
	struct tdir *t = *state;
	struct cache *c;
	static struct cache_wb wb;
	static struct cache_record got;
	struct cache_evict_stats es;
	struct cache_stats cs;
	struct wb_seen seen = { 0, 0 };
	char	 name[TEST_NAME_MAX];
	size_t	 txn;
	unsigned int i;

	c = test_open(t, TEST_EVICT_MAP, 0);
	cache_wb_init(&wb);
	for (i = 0; i < 5; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		assert_int_equal(cache_wb_put(&wb, name, &rec_a), i + 1);
	}
	/* held, not in the map yet: read through the array, it is there */
	test_name(name, sizeof(name), 0);
	assert_int_equal(test_get(c, name, &got), CACHE_MISS);
	assert_int_equal(cache_wb_read(&wb, c, name, strlen(name), &got),
	    CACHE_HIT);
	test_record(&rec_a, 0);
	test_record_equal(&got, &rec_a);
	assert_int_equal(cache_wb_read(NULL, c, name, strlen(name), &got),
	    CACHE_MISS);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	txn = cs.last_txnid;
	assert_int_equal(cache_wb_flush(&wb, c, TEST_NOW, &es, wb_done,
	    &seen), CACHE_OK);
	assert_int_equal(seen.n, 5);
	assert_int_equal(seen.ok, 5);
	assert_int_equal(cache_wb_count(&wb), 0);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.last_txnid, txn + 1);
	assert_int_equal(cs.entries, 5);
	for (i = 0; i < 5; i++) {
		test_name(name, sizeof(name), i);
		test_record(&rec_a, i);
		assert_int_equal(test_get(c, name, &got), CACHE_HIT);
		test_record_equal(&got, &rec_a);
		assert_int_equal(cache_wb_get(&wb, name, strlen(name), &got),
		    0);
		/* nothing held: the map's */
		assert_int_equal(cache_wb_read(&wb, c, name, strlen(name),
		    &got), CACHE_HIT);
		test_record_equal(&got, &rec_a);
	}
	/* nothing held: nothing written */
	assert_int_equal(cache_wb_flush(&wb, c, TEST_NOW, &es, wb_done,
	    &seen), CACHE_OK);
	assert_int_equal(seen.n, 5);
	assert_int_equal(cache_stats(c, &cs), CACHE_OK);
	assert_int_equal(cs.last_txnid, txn + 1);
	cache_wb_release(&wb);
	cache_close(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(record_round_trip_sts),
		cmocka_unit_test(record_round_trip_negative_entry),
		cmocka_unit_test(record_round_trip_largest),
		cmocka_unit_test(record_round_trip_thousands_of_mx),
		cmocka_unit_test(record_golden_encoding),
		cmocka_unit_test(decode_rejects_every_truncation),
		cmocka_unit_test(decode_rejects_bad_fields),
		cmocka_unit_test(encode_rejects_lone_wildcard),
		cmocka_unit_test(encode_rejects_invalid_records),
		cmocka_unit_test(freshness_helpers),
		cmocka_unit_test(names_for_logs),
		cmocka_unit_test_setup_teardown(
		    unmap_pages_drops_file_pages_not_data, tdir_setup,
		    tdir_teardown),
		cmocka_unit_test_setup_teardown(open_creates_private_directory,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(put_get_del,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(hold_reads_one_snapshot,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(version_moves_with_each_commit,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(keys_must_be_normalized,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(damaged_values_are_misses,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(iterate_in_order_and_in_slices,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(batch_commit_and_abort,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(reopen_keeps_data,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(new_env_gets_default_map_size,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(full_map_fails_writes_not_reads,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(full_disk_fails_writes_not_reads,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(full_disk_evicts_nothing,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(reader_process_while_writing,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(writer_killed_mid_way,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(reader_follows_grown_map,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(dead_reader_slots_cleared,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(damaged_env_is_moved_aside,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(full_map_evicts_in_class_order,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(
		    flood_of_negatives_keeps_enforce_policies,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(
		    full_of_enforce_evicts_least_recently_fetched,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(put_room_many_one_commit,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(
		    put_room_many_full_map_loses_nothing,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test_setup_teardown(
		    put_room_many_full_of_enforce_falls_back,
		    tdir_setup, tdir_teardown),
		cmocka_unit_test(wb_holds_newest_copy),
		cmocka_unit_test_setup_teardown(wb_flush_is_one_commit,
		    tdir_setup, tdir_teardown),
	};

	log_init("test_cache", 1, 0);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
