/*
 * test_agg.c - unit tests for the daily counts of postsmtpsts-tlsrpt
 * (tlsrpt/agg.c) and the byte codec under them (tlsrpt/pack.c)
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
#include "tlsrpt/agg.h"
#include "tlsrpt/pack.h"

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

/* counts - successes, failures and detail rows */
static void
counts(void **state)
{
	struct agg	 a;
	struct agg_desc	 d = sts(), none = { TLSRPT_POLICY_NONE, "", 0, "",
	    0 };

	(void)state;
	agg_init(&a);
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1",
	    TLSRPT_RESULT_HOST_MISMATCH, "num=62:hostname mismatch");
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1",
	    TLSRPT_RESULT_HOST_MISMATCH, "num=62:hostname mismatch");
	agg_add(&a, &d, "mx2.d.example", "192.0.2.2", TLSRPT_RESULT_EXPIRED,
	    "certificate has expired");
	agg_add(&a, &none, "mx2.d.example", "192.0.2.2", TLSRPT_RESULT_NONE,
	    "");
	assert_int_equal(a.npolicies, 2);
	assert_int_equal(a.policies[0].success, 2);
	assert_int_equal(a.policies[0].failure, 3);
	assert_int_equal(a.policies[0].ndetails, 2);
	assert_int_equal(a.policies[0].details[0].count, 2);
	assert_int_equal(a.policies[0].details[1].result,
	    TLSRPT_RESULT_EXPIRED);
	assert_int_equal(a.policies[0].nhosts, 2);
	assert_int_equal(a.policies[1].type, TLSRPT_POLICY_NONE);
	assert_int_equal(agg_sessions(&a), 6);
	agg_free(&a);
	assert_int_equal(a.npolicies, 0);
}

/* bounds - rows, policies and hosts past their limits are still counted */
static void
bounds(void **state)
{
	struct agg	 a;
	struct agg_desc	 d = sts();
	char		 host[64], lines[64];
	int		 i;

	(void)state;
	agg_init(&a);
	for (i = 0; i < AGG_MAX_DETAILS + 5; i++) {
		snprintf(host, sizeof(host), "mx%d.d.example", i);
		agg_add(&a, &d, host, "192.0.2.1", TLSRPT_RESULT_NOT_TRUSTED,
		    "x");
	}
	assert_int_equal(a.policies[0].failure, AGG_MAX_DETAILS + 5);
	assert_int_equal(a.policies[0].ndetails, AGG_MAX_DETAILS);
	assert_int_equal(a.policies[0].details_dropped, 5);
	assert_int_equal(a.policies[0].nhosts, AGG_MAX_HOSTS);
	for (i = 0; i < AGG_MAX_POLICIES + 2; i++) {
		snprintf(lines, sizeof(lines), "version: STSv1\nmode: %d\n", i);
		d.strings = lines;
		d.slen = strlen(lines);
		agg_add(&a, &d, "", "", TLSRPT_RESULT_NONE, "");
	}
	assert_int_equal(a.npolicies, AGG_MAX_POLICIES);
	assert_int_equal(a.dropped, 3);
	assert_int_equal(agg_sessions(&a), AGG_MAX_DETAILS + 5 +
	    AGG_MAX_POLICIES + 2);
	agg_free(&a);
}

/* codec - encode, decode, encode gives the same bytes; every truncation
 * and a trailing byte are refused */
static void
codec(void **state)
{
	struct agg	 a, b;
	struct agg_desc	 d = sts();
	struct buf	 e1, e2;
	size_t		 i;

	(void)state;
	agg_init(&a);
	agg_init(&b);
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &d, "mx1.d.example", "2001:db8::1",
	    TLSRPT_RESULT_HOST_MISMATCH, "num=62:hostname mismatch");
	buf_init(&e1, 1 << 20);
	buf_init(&e2, 1 << 20);
	agg_encode(&a, &e1);
	assert_int_equal(agg_decode(e1.data, e1.len, &b), 0);
	agg_encode(&b, &e2);
	assert_int_equal(e1.len, e2.len);
	assert_memory_equal(e1.data, e2.data, e1.len);
	assert_string_equal(b.policies[0].details[0].reason,
	    "num=62:hostname mismatch");
	for (i = 0; i < e1.len; i++)
		assert_int_equal(agg_decode(e1.data, i, &b), -1);
	buf_append_char(&e1, 'x');
	assert_int_equal(agg_decode(e1.data, e1.len, &b), -1);
	assert_int_equal(b.npolicies, 0);
	/* a detail row with result "success" is no row */
	e1.len--;
	/* the last row: result, host, addr, reason (16-bit lengths), count */
	i = e1.len - 8 - (2 + 24) - (2 + 11) - (2 + 13) - 1;
	assert_int_equal(e1.data[i], TLSRPT_RESULT_HOST_MISMATCH);
	e1.data[i] = 0;
	assert_int_equal(agg_decode(e1.data, e1.len, &b), -1);
	buf_free(&e1);
	buf_free(&e2);
	agg_free(&a);
	agg_free(&b);
}

/* pack - integers, strings and the sticky error */
static void
pack(void **state)
{
	struct buf	 b;
	struct unpack	 u;
	char		 s[8];
	size_t		 n;
	const char	*p;

	(void)state;
	buf_init(&b, 1024);
	pack_u8(&b, 0x1ff);
	pack_u32(&b, 0xdeadbeef);
	pack_u64(&b, UINT64_C(0x0123456789abcdef));
	pack_cstr(&b, "abc");
	pack_str(&b, "x\0y", 3);
	unpack_init(&u, b.data, b.len);
	assert_int_equal(unpack_u8(&u), 0xff);
	assert_int_equal(unpack_u32(&u), 0xdeadbeef);
	assert_true(unpack_u64(&u) == UINT64_C(0x0123456789abcdef));
	unpack_cstr(&u, s, sizeof(s));
	assert_string_equal(s, "abc");
	assert_int_equal(unpack_done(&u), -1);	/* one string left */
	unpack_cstr(&u, s, sizeof(s));		/* holds a NUL */
	assert_true(u.error);
	assert_string_equal(s, "");
	unpack_init(&u, b.data, b.len);
	u.pos = 13;
	p = unpack_str(&u, &n);
	assert_non_null(p);
	assert_int_equal(n, 3);
	unpack_cstr(&u, s, 3);			/* 3 bytes need 4 */
	assert_true(u.error);
	assert_int_equal(unpack_u32(&u), 0);	/* sticky */
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(bounds),
		cmocka_unit_test(codec),
		cmocka_unit_test(pack),
	};

	return (cmocka_run_group_tests_name("agg", tests, NULL, NULL));
}
