/*
 * test_fleetagg.c - unit tests for the fleet's TLSRPT counts (issue 39):
 * agg_merge (tlsrpt/agg.c: three hosts' parts into one report), the part
 * and state codecs (tlsrpt/fleetagg.c) and the sealed envelope around
 * them (lib/fleet_record.c: fleet_record_seal/open)
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

#include "lib/buf.h"
#include "lib/fleet_record.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/rstate.h"

static const char sts_lines[] = "version: STSv1\nmode: enforce\n"
    "mx: mx1.d.example\nmax_age: 86400\n";
static const char sts_mx[] = "mx1.d.example\n";

/* sts - the STS policy descriptor of the tests */
static struct agg_desc
sts(void)
{
	struct agg_desc d = { TLSRPT_POLICY_STS, sts_lines,
	    sizeof(sts_lines) - 1, sts_mx, sizeof(sts_mx) - 1 };

	return (d);
}

/* host_part - ok successes and bad host-mismatch failures at mx1 */
static void
host_part(struct agg *a, int ok, int bad)
{
	struct agg_desc	 d = sts();
	int		 i;

	agg_init(a);
	for (i = 0; i < ok; i++)
		agg_add(a, &d, "mx1.d.example", "192.0.2.1",
		    TLSRPT_RESULT_NONE, "");
	for (i = 0; i < bad; i++)
		agg_add(a, &d, "mx1.d.example", "192.0.2.1",
		    TLSRPT_RESULT_HOST_MISMATCH, "num=62");
}

/* merge_sums - three hosts' parts: one policy, summed; the same row of
 * hosts without a sending address is one row, with addresses one each */
static void
merge_sums(void **state)
{
	struct agg	 h[3], sum, sum2;
	struct agg_desc	 none = { TLSRPT_POLICY_NONE, "", 0, "", 0 };
	int		 i;

	(void)state;
	host_part(&h[0], 3, 2);
	host_part(&h[1], 5, 1);
	host_part(&h[2], 7, 3);
	agg_add(&h[2], &none, "mx2.d.example", "", TLSRPT_RESULT_NONE, "");
	agg_init(&sum);
	agg_init(&sum2);
	for (i = 0; i < 3; i++) {
		agg_merge(&sum, &h[i], "");
		agg_merge(&sum2, &h[i], i == 0 ? "198.51.100.1" :
		    i == 1 ? "198.51.100.2" : "198.51.100.3");
	}
	assert_int_equal(sum.npolicies, 2);
	assert_int_equal(sum.policies[0].success, 15);
	assert_int_equal(sum.policies[0].failure, 6);
	assert_int_equal(sum.policies[0].ndetails, 1);
	assert_int_equal(sum.policies[0].details[0].count, 6);
	assert_string_equal(sum.policies[0].details[0].sip, "");
	assert_int_equal(sum.policies[0].nhosts, 1);
	assert_int_equal(sum.policies[1].success, 1);
	assert_int_equal(agg_sessions(&sum), 22);
	/* with each host's address: a row per host, counts kept */
	assert_int_equal(sum2.policies[0].ndetails, 3);
	assert_int_equal(sum2.policies[0].details[0].count, 2);
	assert_string_equal(sum2.policies[0].details[0].sip, "198.51.100.1");
	assert_int_equal(sum2.policies[0].details[2].count, 3);
	assert_string_equal(sum2.policies[0].details[2].sip, "198.51.100.3");
	for (i = 0; i < 3; i++)
		agg_free(&h[i]);
	agg_free(&sum);
	agg_free(&sum2);
}

/* merge_limits - rows beyond AGG_MAX_DETAILS are counted, not lost */
static void
merge_limits(void **state)
{
	struct agg	 a, sum;
	struct agg_desc	 d = sts();
	char		 host[32];
	int		 i;

	(void)state;
	agg_init(&a);
	for (i = 0; i < AGG_MAX_DETAILS; i++) {
		snprintf(host, sizeof(host), "mx%d.d.example", i);
		agg_add(&a, &d, host, "", TLSRPT_RESULT_EXPIRED, "");
	}
	agg_init(&sum);
	agg_merge(&sum, &a, "198.51.100.1");
	agg_merge(&sum, &a, "198.51.100.2");	/* 32 more rows: no room */
	assert_int_equal(sum.policies[0].ndetails, AGG_MAX_DETAILS);
	assert_int_equal(sum.policies[0].failure, 2 * AGG_MAX_DETAILS);
	assert_int_equal(sum.policies[0].details_dropped, AGG_MAX_DETAILS);
	agg_free(&a);
	agg_free(&sum);
}

/* part_codec - a part's round trip, and what is refused */
static void
part_codec(void **state)
{
	struct fleetagg_part p, q;
	struct agg	 a, b;
	struct buf	 enc;
	unsigned char	*bad;

	(void)state;
	host_part(&a, 2, 1);
	memset(&p, 0, sizeof(p));
	p.seq = 42;
	p.final = 1;
	snprintf(p.host, sizeof(p.host), "mta-1.example");
	snprintf(p.sip, sizeof(p.sip), "2001:db8::25");
	buf_init(&enc, 1 << 20);
	fleetagg_part_encode(&p, &a, &enc);
	agg_init(&b);
	assert_int_equal(fleetagg_part_decode(enc.data, enc.len, &q, &b), 0);
	assert_true(q.seq == 42);
	assert_int_equal(q.final, 1);
	assert_string_equal(q.host, "mta-1.example");
	assert_string_equal(q.sip, "2001:db8::25");
	assert_int_equal(agg_sessions(&b), 3);
	agg_free(&b);
	/* another version, a truncated one, trailing bytes */
	bad = malloc(enc.len + 1);
	memcpy(bad, enc.data, enc.len);
	bad[0] = FLEETAGG_PART_VERSION + 1;
	assert_int_equal(fleetagg_part_decode(bad, enc.len, &q, &b), -1);
	bad[0] = FLEETAGG_PART_VERSION;
	assert_int_equal(fleetagg_part_decode(bad, enc.len - 1, &q, &b), -1);
	bad[enc.len] = 0;
	assert_int_equal(fleetagg_part_decode(bad, enc.len + 1, &q, &b), -1);
	bad[1] = 2;				/* unknown flags */
	assert_int_equal(fleetagg_part_decode(bad, enc.len, &q, &b), -1);
	assert_int_equal(agg_sessions(&b), 0);
	free(bad);
	/* a host id that is not one, an address that is not one */
	snprintf(p.host, sizeof(p.host), "a b");
	buf_reset(&enc);
	fleetagg_part_encode(&p, &a, &enc);
	assert_int_equal(fleetagg_part_decode(enc.data, enc.len, &q, &b), -1);
	snprintf(p.host, sizeof(p.host), "h1");
	snprintf(p.sip, sizeof(p.sip), "mx1.example");
	buf_reset(&enc);
	fleetagg_part_encode(&p, &a, &enc);
	assert_int_equal(fleetagg_part_decode(enc.data, enc.len, &q, &b), -1);
	assert_true(fleetagg_host_ok("h-1_x.y", 7));
	assert_false(fleetagg_host_ok("", 0));
	assert_false(fleetagg_host_ok("h/1", 3));
	buf_free(&enc);
	agg_free(&a);
	agg_free(&b);
}

/* state_codec - the fleet's delivery state */
static void
state_codec(void **state)
{
	struct rstate	 r, s;
	struct buf	 enc;
	char		 writer[FLEETAGG_HOST_LEN];

	(void)state;
	rstate_init(&r, 1000);
	r.status = RSTATE_DONE;
	r.ndest = 1;
	r.rua_known = 1;
	snprintf(r.dest[0].uri, sizeof(r.dest[0].uri), "https://c.example/r");
	r.dest[0].state = RDEST_SENT;
	buf_init(&enc, 1 << 16);
	fleetagg_state_encode("h2", &r, &enc);
	assert_int_equal(fleetagg_state_decode(enc.data, enc.len, writer, &s),
	    0);
	assert_string_equal(writer, "h2");
	assert_int_equal(s.status, RSTATE_DONE);
	assert_int_equal(s.dest[0].state, RDEST_SENT);
	enc.data[0] ^= 0xff;
	assert_int_equal(fleetagg_state_decode(enc.data, enc.len, writer, &s),
	    -1);
	buf_free(&enc);
}

/* seal - the envelope: MAC bound to the key, version, refusals */
static void
seal(void **state)
{
	static const unsigned char key[32] = "0123456789abcdef0123456789abcde";
	static const char pl[] = "payload bytes";
	unsigned char	 out[256], cr[256];
	const unsigned char *p;
	size_t		 n, plen;

	(void)state;
	assert_int_equal(fleet_record_seal(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    pl, sizeof(pl), key, sizeof(key), out, sizeof(out), &n), 0);
	assert_int_equal(n, FLEET_RECORD_HEAD_LEN + sizeof(pl) +
	    FLEET_RECORD_MAC_LEN);
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    out, n, key, sizeof(key), &p, &plen), FLEET_DECODE_OK);
	assert_int_equal(plen, sizeof(pl));
	assert_memory_equal(p, pl, plen);
	/* another key name (a part moved to another host): bad MAC */
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h2", 6,
	    out, n, key, sizeof(key), &p, &plen), FLEET_DECODE_MAC);
	/* a flipped byte */
	out[5] ^= 1;
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    out, n, key, sizeof(key), &p, &plen), FLEET_DECODE_MAC);
	out[5] ^= 1;
	/* a cache record's version is not a sealed value's, nor the
	 * reverse: never parsed as the other */
	memcpy(cr, out, n);
	cr[0] = FLEET_RECORD_VERSION;
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    cr, n, key, sizeof(key), &p, &plen), FLEET_DECODE_VERSION);
	/* unsigned, with a key configured */
	assert_int_equal(fleet_record_seal(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    pl, sizeof(pl), NULL, 0, out, sizeof(out), &n), 0);
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    out, n, key, sizeof(key), &p, &plen), FLEET_DECODE_UNSIGNED);
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    out, n, NULL, 0, &p, &plen), FLEET_DECODE_OK);
	assert_int_equal(fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    out, 1, NULL, 0, &p, &plen), FLEET_DECODE_SHORT);
	/* no room */
	assert_int_equal(fleet_record_seal(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
	    pl, sizeof(pl), key, sizeof(key), out, 20, &n), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_sums),
		cmocka_unit_test(merge_limits),
		cmocka_unit_test(part_codec),
		cmocka_unit_test(state_codec),
		cmocka_unit_test(seal),
	};

	return (cmocka_run_group_tests_name("fleetagg", tests, NULL, NULL));
}
