/*
 * test_mxmatch.c - unit tests for MX pattern syntax, matching and the
 * Postfix match= form (RFC 8461 §3.2, §4.1)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "policy/mxmatch.h"

#define L26	"abcdefghijklmnopqrstuvwxyz"
#define L63	L26 L26 "abcdefghijk"
/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 bytes */
#define N253	L63 "." L63 "." L63 "." L26 L26 "abcdefghi"

struct match_case {
	const char	*name;
	const char	*pattern;
	const char	*host;
	int		 want;
};

static const struct match_case match_cases[] = {
	{ "match: exact name", "mail.example.com", "mail.example.com", 1 },
	{ "match: exact name ignores case", "Mail.Example.COM",
	    "mAIL.example.com", 1 },
	{ "match: host with trailing dot", "mail.example.com",
	    "mail.example.com.", 1 },
	{ "match: pattern with trailing dot", "mail.example.com.",
	    "mail.example.com", 1 },
	{ "match: exact, other host", "mail.example.com", "mx.example.com", 0 },
	{ "match: exact, host is a subdomain", "example.com",
	    "mail.example.com", 0 },
	{ "match: exact, host is the parent", "mail.example.com",
	    "example.com", 0 },
	{ "match: exact, host has two trailing dots", "mail.example.com",
	    "mail.example.com..", 0 },
	{ "match: wildcard, one extra label", "*.example.com",
	    "a.example.com", 1 },
	{ "match: wildcard ignores case", "*.EXAMPLE.com", "MX1.example.COM",
	    1 },
	{ "match: wildcard, host with trailing dot", "*.example.com",
	    "a.example.com.", 1 },
	{ "match: wildcard does not match the bare domain", "*.example.com",
	    "example.com", 0 },
	{ "match: wildcard does not match two labels", "*.example.com",
	    "a.b.example.com", 0 },
	{ "match: wildcard needs a non-empty label", "*.example.com",
	    ".example.com", 0 },
	{ "match: wildcard, other domain", "*.example.com", "a.example.org",
	    0 },
	{ "match: wildcard is label-aligned", "*.example.com",
	    "a.badexample.com", 0 },
	{ "match: star in the middle never matches", "mail.*.com",
	    "mail.x.com", 0 },
	{ "match: star alone never matches", "*", "x", 0 },
	{ "match: double star never matches", "**.example.com",
	    "a.example.com", 0 },
	{ "match: partial-label star never matches", "*mail.example.com",
	    "xmail.example.com", 0 },
	{ "match: star-dot alone never matches", "*.", "a.", 0 },
	{ "match: empty pattern", "", "mail.example.com", 0 },
	{ "match: empty host", "mail.example.com", "", 0 },
	{ "match: host is only a dot", "*.example.com", ".", 0 },
};

struct check_case {
	const char	*name;
	const char	*pattern;
	size_t		 len;		/* 0: strlen(pattern) */
	int		 want;
};

static const struct check_case check_cases[] = {
	{ "check: plain name", "mail.example.com", 0, 1 },
	{ "check: wildcard", "*.example.com", 0, 1 },
	{ "check: uppercase is syntax-valid", "MX1.Example.COM", 0, 1 },
	{ "check: single label", "localhost", 0, 1 },
	{ "check: inner hyphen", "mx-1.example.com", 0, 1 },
	{ "check: A-label", "xn--bcher-kva.example", 0, 1 },
	{ "check: digits in labels", "mx1.123.example.com", 0, 1 },
	{ "check: 63-byte label", L63 ".example.com", 0, 1 },
	{ "check: 253-byte name", N253, 0, 1 },
	{ "check: wildcard of a 253-byte name", "*." N253, 0, 1 },
	{ "check: empty", "", 0, 0 },
	{ "check: star alone", "*", 0, 0 },
	{ "check: star-dot alone", "*.", 0, 0 },
	{ "check: double star", "**.example.com", 0, 0 },
	{ "check: star in the middle", "mail.*.example.com", 0, 0 },
	{ "check: star inside a label", "*mail.example.com", 0, 0 },
	{ "check: two wildcards", "*.*.example.com", 0, 0 },
	{ "check: IPv4 address", "192.0.2.1", 0, 0 },
	{ "check: IPv4 address literal", "[192.0.2.1]", 0, 0 },
	{ "check: IPv6 address", "2001:db8::1", 0, 0 },
	{ "check: wildcard over an IPv4 address", "*.192.0.2.1", 0, 0 },
	{ "check: all-digit top label", "mail.example.123", 0, 0 },
	{ "check: trailing dot", "mail.example.com.", 0, 0 },
	{ "check: leading dot", ".example.com", 0, 0 },
	{ "check: empty label", "mail..example.com", 0, 0 },
	{ "check: leading hyphen", "-mail.example.com", 0, 0 },
	{ "check: trailing hyphen", "mail-.example.com", 0, 0 },
	{ "check: underscore", "mail_1.example.com", 0, 0 },
	{ "check: inner space", "mail example.com", 0, 0 },
	{ "check: trailing space", "mail.example.com ", 0, 0 },
	{ "check: tab", "mail.example.com\t", 0, 0 },
	{ "check: 64-byte label", L63 "x.example.com", 0, 0 },
	{ "check: 254-byte name", N253 "x", 0, 0 },
	{ "check: embedded NUL", "mail\0x.example.com", 18, 0 },
	{ "check: UTF-8 U-label", "b\xc3\xbc" "cher.example", 0, 0 },
	{ "check: length stops before the bad part", "example.com!!", 11,
	    1 },
};

struct postfix_case {
	const char	*name;
	const char	*pattern;
	const char	*want;		/* NULL: -1 expected */
};

static const struct postfix_case postfix_cases[] = {
	{ "postfix: wildcard becomes leading dot", "*.example.com",
	    ".example.com" },
	{ "postfix: exact name unchanged", "mail.example.com",
	    "mail.example.com" },
	{ "postfix: star alone refused", "*", NULL },
	{ "postfix: star in the middle refused", "mail.*.example.com", NULL },
	{ "postfix: IP address refused", "192.0.2.1", NULL },
};

static void
test_match(void **state)
{
	const struct match_case *c = *state;

	assert_int_equal(mxmatch(c->pattern, c->host), c->want);
}

static void
test_check(void **state)
{
	const struct check_case *c = *state;
	size_t	 len;

	len = c->len ? c->len : strlen(c->pattern);
	assert_int_equal(mxmatch_pattern_check(c->pattern, len), c->want);
}

static void
test_postfix(void **state)
{
	const struct postfix_case *c = *state;
	struct buf b;

	buf_init(&b, 1000);
	buf_append_str(&b, "match=");
	if (c->want == NULL) {
		assert_int_equal(mxmatch_postfix_pattern(c->pattern, &b), -1);
		assert_int_equal(b.len, 6);
	} else {
		assert_int_equal(mxmatch_postfix_pattern(c->pattern, &b), 0);
		assert_int_equal(b.len, 6 + strlen(c->want));
		assert_memory_equal(b.data + 6, c->want, strlen(c->want));
	}
	buf_free(&b);
}

static void
postfix_no_room_sets_error(void **state)
{
	struct buf b;
	char	 store[8];

	(void)state;
	buf_init_fixed(&b, store, sizeof(store));
	assert_int_equal(mxmatch_postfix_pattern("*.example.com", &b), -1);
	assert_true(b.error);
	assert_int_equal(b.len, 0);
}

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	struct CMUnitTest	*t;
	size_t			 n, i;
	int			 rc;

	t = calloc(NCASES(match_cases) + NCASES(check_cases) +
	    NCASES(postfix_cases) + 1, sizeof(*t));
	if (t == NULL)
		return (1);
	n = 0;
	for (i = 0; i < NCASES(match_cases); i++)
		t[n++] = (struct CMUnitTest){ match_cases[i].name, test_match,
		    NULL, NULL, (void *)&match_cases[i] };
	for (i = 0; i < NCASES(check_cases); i++)
		t[n++] = (struct CMUnitTest){ check_cases[i].name, test_check,
		    NULL, NULL, (void *)&check_cases[i] };
	for (i = 0; i < NCASES(postfix_cases); i++)
		t[n++] = (struct CMUnitTest){ postfix_cases[i].name,
		    test_postfix, NULL, NULL, (void *)&postfix_cases[i] };
	t[n++] = (struct CMUnitTest)
	    cmocka_unit_test(postfix_no_room_sets_error);
	rc = _cmocka_run_group_tests("mxmatch", t, n, NULL, NULL);
	free(t);
	return (rc);
}
