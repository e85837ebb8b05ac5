/*
 * test_sts_policy.c - unit tests for the MTA-STS policy grammar
 * (RFC 8461 §3.2)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy/sts_policy.h"

#define HEAD	"version: STSv1\nmode: enforce\n"
#define MX	"mx: mail.example.com\n"
#define AGE	"max_age: 604800\n"
/* The expected values of a policy that must not parse. */
#define BAD	STS_MODE_NONE, 0, 0, { NULL }, 0

struct policy_case {
	const char	*name;
	const char	*body;
	size_t		 len;		/* 0: strlen(body) */
	const char	*why;		/* NULL: must parse */
	enum sts_mode	 mode;
	uint32_t	 max_age;
	size_t		 nmx;
	const char	*mx[3];
	size_t		 nlines;
};

static const struct policy_case cases[] = {
	/* Line endings (RFC 8461 §3.2 sts-policy-term, erratum 6253). */
	{ "LF line endings",
	    "version: STSv1\nmode: enforce\nmx: mail.example.com\n"
	    "mx: *.example.net\nmax_age: 604800\n", 0, NULL,
	    STS_MODE_ENFORCE, 604800, 2,
	    { "mail.example.com", "*.example.net" }, 5 },
	{ "CRLF line endings",
	    "version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\n"
	    "mx: *.example.net\r\nmax_age: 604800\r\n", 0, NULL,
	    STS_MODE_ENFORCE, 604800, 2,
	    { "mail.example.com", "*.example.net" }, 5 },
	{ "mixed LF and CRLF line endings",
	    "version: STSv1\r\nmode: enforce\nmx: mail.example.com\r\n"
	    "max_age: 604800\n", 0, NULL, STS_MODE_ENFORCE, 604800, 1,
	    { "mail.example.com" }, 4 },
	{ "last line without terminator",
	    "version: STSv1\nmode: enforce\nmx: mail.example.com\n"
	    "max_age: 604800", 0, NULL, STS_MODE_ENFORCE, 604800, 1,
	    { "mail.example.com" }, 4 },
	{ "last line without terminator after CRLF lines",
	    "version: STSv1\r\nmode: testing\r\nmx: mail.example.com\r\n"
	    "max_age: 86400", 0, NULL, STS_MODE_TESTING, 86400, 1,
	    { "mail.example.com" }, 4 },
	/* Field order and repetition. */
	{ "version at the end",
	    "mode: enforce\nmx: mail.example.com\nmax_age: 604800\n"
	    "version: STSv1\n", 0, NULL, STS_MODE_ENFORCE, 604800, 1,
	    { "mail.example.com" }, 4 },
	{ "unknown keys are ignored",
	    HEAD "foo: bar\n" MX "x-y.z_1: a value with spaces\n"
	    "note: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa7\n" AGE, 0, NULL,
	    STS_MODE_ENFORCE, 604800, 1, { "mail.example.com" }, 7 },
	{ "unknown key with braces is still valid",
	    HEAD MX "ext: {weird}\n" AGE, 0, NULL, STS_MODE_ENFORCE, 604800,
	    1, { "mail.example.com" }, 5 },
	{ "duplicate mode: the first wins",
	    "version: STSv1\nmode: testing\nmode: enforce\n" MX AGE, 0, NULL,
	    STS_MODE_TESTING, 604800, 1, { "mail.example.com" }, 5 },
	{ "duplicate invalid mode after a valid one is ignored",
	    HEAD "mode: bogus\n" MX AGE, 0, NULL, STS_MODE_ENFORCE, 604800, 1,
	    { "mail.example.com" }, 5 },
	{ "duplicate max_age: the first wins",
	    HEAD MX "max_age: 100\nmax_age: 200\n", 0, NULL,
	    STS_MODE_ENFORCE, 100, 1, { "mail.example.com" }, 5 },
	{ "duplicate version STSv2 after STSv1 is ignored",
	    HEAD "version: STSv2\n" MX AGE, 0, NULL, STS_MODE_ENFORCE,
	    604800, 1, { "mail.example.com" }, 5 },
	{ "duplicate mx lines are all kept",
	    HEAD MX MX AGE, 0, NULL, STS_MODE_ENFORCE, 604800, 2,
	    { "mail.example.com", "mail.example.com" }, 5 },
	/* Whitespace (ABNF: ":" *WSP value *WSP). */
	{ "uppercase mx is lower-cased",
	    HEAD "mx: MAIL.Example.COM\nmx: *.EXAMPLE.net\n" AGE, 0, NULL,
	    STS_MODE_ENFORCE, 604800, 2,
	    { "mail.example.com", "*.example.net" }, 5 },
	{ "trailing whitespace on lines",
	    "version: STSv1 \nmode: enforce\t \r\nmx: mail.example.com  \n"
	    "max_age: 604800\t\n", 0, NULL, STS_MODE_ENFORCE, 604800, 1,
	    { "mail.example.com" }, 4 },
	{ "no whitespace after the colon",
	    "version:STSv1\nmode:enforce\nmx:mail.example.com\nmax_age:60\n",
	    0, NULL, STS_MODE_ENFORCE, 60, 1, { "mail.example.com" }, 4 },
	{ "tabs after the colon",
	    "version:\tSTSv1\nmode:\t\tenforce\nmx:\tmail.example.com\n"
	    "max_age:\t60\n", 0, NULL, STS_MODE_ENFORCE, 60, 1,
	    { "mail.example.com" }, 4 },
	/* Modes. */
	{ "mode none without mx",
	    "version: STSv1\nmode: none\nmax_age: 86400\n", 0, NULL,
	    STS_MODE_NONE, 86400, 0, { NULL }, 3 },
	{ "mode none with mx",
	    "version: STSv1\nmode: none\n" MX "max_age: 86400\n", 0, NULL,
	    STS_MODE_NONE, 86400, 1, { "mail.example.com" }, 4 },
	{ "mode testing",
	    "version: STSv1\nmode: testing\n" MX AGE, 0, NULL,
	    STS_MODE_TESTING, 604800, 1, { "mail.example.com" }, 4 },
	/* max_age (RFC 8461 §3.2: 1*10 DIGIT, meaning <= 31557600). */
	{ "max_age 0", HEAD MX "max_age: 0\n", 0, NULL, STS_MODE_ENFORCE, 0,
	    1, { "mail.example.com" }, 4 },
	{ "max_age 31557600 kept", HEAD MX "max_age: 31557600\n", 0, NULL,
	    STS_MODE_ENFORCE, 31557600, 1, { "mail.example.com" }, 4 },
	{ "max_age 31557601 capped", HEAD MX "max_age: 31557601\n", 0, NULL,
	    STS_MODE_ENFORCE, 31557600, 1, { "mail.example.com" }, 4 },
	{ "max_age 9999999999 (10 digits) capped",
	    HEAD MX "max_age: 9999999999\n", 0, NULL, STS_MODE_ENFORCE,
	    31557600, 1, { "mail.example.com" }, 4 },
	{ "max_age with leading zeros", HEAD MX "max_age: 0000086400\n", 0,
	    NULL, STS_MODE_ENFORCE, 86400, 1, { "mail.example.com" }, 4 },

	/* Invalid policies. */
	{ "empty body", "", 0, "empty policy", BAD },
	{ "missing version", "mode: enforce\n" MX AGE, 0, "version missing",
	    BAD },
	{ "missing mode", "version: STSv1\n" MX AGE, 0, "mode missing", BAD },
	{ "missing max_age", HEAD MX, 0, "max_age missing", BAD },
	{ "missing mx with mode enforce", HEAD AGE, 0, "mx missing", BAD },
	{ "missing mx with mode testing",
	    "version: STSv1\nmode: testing\n" AGE, 0, "mx missing", BAD },
	{ "version STSv2", "version: STSv2\nmode: enforce\n" MX AGE, 0,
	    "unsupported version", BAD },
	{ "version in lower case", "version: stsv1\nmode: enforce\n" MX AGE,
	    0, "unsupported version", BAD },
	{ "uppercase key Mode is an unknown field",
	    "version: STSv1\nMode: enforce\n" MX AGE, 0, "mode missing", BAD },
	{ "mode value in upper case", "version: STSv1\nmode: Enforce\n" MX AGE,
	    0, "invalid mode", BAD },
	{ "mode value unknown", "version: STSv1\nmode: report\n" MX AGE, 0,
	    "invalid mode", BAD },
	{ "max_age empty", HEAD MX "max_age:\n", 0, "empty field value", BAD },
	{ "max_age 99999999999 (11 digits)", HEAD MX "max_age: 99999999999\n",
	    0, "invalid max_age", BAD },
	{ "max_age negative", HEAD MX "max_age: -1\n", 0, "invalid max_age",
	    BAD },
	{ "max_age with plus sign", HEAD MX "max_age: +1\n", 0,
	    "invalid max_age", BAD },
	{ "max_age fractional", HEAD MX "max_age: 1.5\n", 0,
	    "invalid max_age", BAD },
	{ "max_age with inner space", HEAD MX "max_age: 86 400\n", 0,
	    "invalid max_age", BAD },
	{ "IPv4 address in mx", HEAD "mx: 192.0.2.25\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "IPv4 literal in mx", HEAD "mx: [192.0.2.25]\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "IPv6 address in mx", HEAD "mx: 2001:db8::25\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "wildcard in the middle of mx", HEAD "mx: mail.*.example.com\n" AGE,
	    0, "invalid mx pattern", BAD },
	{ "wildcard alone as mx", HEAD "mx: *\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "double star mx", HEAD "mx: **.example.com\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "mx with inner space", HEAD "mx: mail example.com\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "empty mx", HEAD "mx:\n" AGE, 0, "empty field value", BAD },
	{ "mx of only whitespace", HEAD "mx:   \n" AGE, 0,
	    "empty field value", BAD },
	{ "mx with trailing dot", HEAD "mx: mail.example.com.\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "mx with underscore", HEAD "mx: mail_1.example.com\n" AGE, 0,
	    "invalid mx pattern", BAD },
	{ "line without a colon", HEAD MX "max_age 604800\n", 0,
	    "line without ':'", BAD },
	{ "empty line in the middle", HEAD "\n" MX AGE, 0,
	    "line without ':'", BAD },
	{ "blank line at the end", HEAD MX AGE "\n", 0, "line without ':'",
	    BAD },
	{ "CRLF blank line at the end", HEAD MX AGE "\r\n", 0,
	    "line without ':'", BAD },
	{ "leading whitespace before a key", HEAD " mx: mail.example.com\n"
	    AGE, 0, "invalid field name", BAD },
	{ "space before the colon", "version : STSv1\nmode: enforce\n" MX AGE,
	    0, "invalid field name", BAD },
	{ "empty key", HEAD ": value\n" MX AGE, 0, "invalid field name", BAD },
	{ "33-byte key", HEAD "abcdefghijklmnopqrstuvwxyz0123456: x\n" MX AGE,
	    0, "invalid field name", BAD },
	{ "lone CR inside a value", HEAD "mx: mail.exa\rmple.com\n" AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "lone CR as a line terminator",
	    "version: STSv1\rmode: enforce\n" MX AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "NUL byte in a value", HEAD "foo: a\0b\n" MX AGE, 75,
	    "control character or bad UTF-8 in value", BAD },
	{ "tab inside an unknown value", HEAD "foo: a\tb\n" MX AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "DEL in an unknown value", HEAD "foo: a\x7f" "b\n" MX AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "invalid UTF-8 in an unknown value", HEAD "foo: \xc3\x28\n" MX AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "overlong UTF-8 in an unknown value", HEAD "foo: \xc0\xaf\n" MX AGE,
	    0, "control character or bad UTF-8 in value", BAD },
	{ "UTF-8 surrogate in an unknown value",
	    HEAD "foo: \xed\xa0\x80\n" MX AGE, 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "truncated UTF-8 at the end of the body",
	    HEAD MX AGE "foo: \xe2\x82", 0,
	    "control character or bad UTF-8 in value", BAD },
	{ "code point above U+10FFFF", HEAD "foo: \xf4\x90\x80\x80\n" MX AGE,
	    0, "control character or bad UTF-8 in value", BAD },
};

static void
test_policy(void **state)
{
	const struct policy_case *c = *state;
	struct sts_policy	*pol;
	const char		*why = NULL, *mx;
	size_t			 len, i, pos;
	int			 rc;

	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	len = c->len ? c->len : strlen(c->body);
	rc = sts_policy_parse(c->body, len, pol, &why);
	if (c->why != NULL) {
		assert_int_equal(rc, -1);
		assert_non_null(why);
		assert_string_equal(why, c->why);
		free(pol);
		return;
	}
	if (rc != 0)
		fail_msg("parse failed: %s", why);
	assert_int_equal(pol->mode, c->mode);
	assert_int_equal(pol->max_age, c->max_age);
	assert_int_equal(pol->nmx, c->nmx);
	for (i = 0, pos = 0; i < c->nmx; i++) {
		mx = sts_policy_mx_next(pol, &pos, NULL);
		assert_non_null(mx);
		assert_string_equal(mx, c->mx[i]);
	}
	assert_null(sts_policy_mx_next(pol, &pos, NULL));
	assert_int_equal(pol->nlines, c->nlines);
	free(pol);
}

/* policy_lines_literal - lines come back verbatim, without terminators */
static void
policy_lines_literal(void **state)
{
	static const char body[] = "version: STSv1\r\nmode:  enforce \t\n"
	    "mx: MAIL.example.com\r\nmax_age: 60";
	static const char *want[] = {
		"version: STSv1", "mode:  enforce \t", "mx: MAIL.example.com",
		"max_age: 60",
	};
	struct sts_policy	*pol;
	const char		*why, *line;
	size_t			 pos, len, n;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	assert_int_equal(sts_policy_parse(body, sizeof(body) - 1, pol, &why),
	    0);
	n = 0;
	for (pos = 0; sts_policy_line(pol, &pos, &line, &len); n++) {
		assert_true(n < 4);
		assert_int_equal(len, strlen(want[n]));
		assert_memory_equal(line, want[n], len);
	}
	assert_int_equal(n, 4);
	assert_int_equal(pol->nlines, 4);
	free(pol);
}

/* build - a valid policy padded with unknown lines to exactly size bytes */
static char *
build(size_t size, size_t nmx)
{
	char	*b, line[64];
	size_t	 len, i, n;

	b = malloc(size + 1);
	assert_non_null(b);
	len = (size_t)snprintf(b, size + 1, "version: STSv1\nmode: enforce\n"
	    "max_age: 86400\n");
	for (i = 0; i < nmx; i++) {
		n = (size_t)snprintf(line, sizeof(line),
		    "mx: mx%zu.example.com\n", i);
		assert_true(len + n <= size);
		memcpy(b + len, line, n);
		len += n;
	}
	/* Pad with "x: yyy...\n" lines of 5..1000 bytes. */
	assert_true(size - len == 0 || size - len >= 5);
	while (len < size) {
		n = size - len > 1000 ? 1000 : size - len;
		if (size - len - n > 0 && size - len - n < 5)
			n -= 5;
		memcpy(b + len, "x: ", 3);
		memset(b + len + 3, 'y', n - 4);
		b[len + n - 1] = '\n';
		len += n;
	}
	assert_int_equal(len, size);
	b[size] = '\0';
	return (b);
}

static void
body_of_64_kib_is_valid(void **state)
{
	struct sts_policy	*pol;
	const char		*why = NULL;
	char			*b;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = build(STS_POLICY_MAX_BODY, 1);
	if (sts_policy_parse(b, STS_POLICY_MAX_BODY, pol, &why) != 0)
		fail_msg("64 KiB body refused: %s", why);
	assert_int_equal(pol->textlen, STS_POLICY_MAX_BODY);
	free(b);
	free(pol);
}

static void
body_of_64_kib_plus_1_is_refused(void **state)
{
	struct sts_policy	*pol;
	const char		*why = NULL;
	char			*b;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = build(STS_POLICY_MAX_BODY + 1, 1);
	assert_int_equal(sts_policy_parse(b, STS_POLICY_MAX_BODY + 1, pol,
	    &why), -1);
	assert_string_equal(why, "policy larger than 64 KiB");
	free(b);
	free(pol);
}

static void
body_without_final_newline_fills_text(void **state)
{
	struct sts_policy	*pol;
	const char		*why = NULL;
	char			*b;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = build(STS_POLICY_MAX_BODY, 1);
	/* The last line loses its LF: the kept text gains one byte. */
	b[STS_POLICY_MAX_BODY - 1] = 'y';
	if (sts_policy_parse(b, STS_POLICY_MAX_BODY, pol, &why) != 0)
		fail_msg("refused: %s", why);
	assert_int_equal(pol->textlen, STS_POLICY_MAX_BODY + 1);
	free(b);
	free(pol);
}

/* issue 13: the 2,700 mx lines of a policy of exactly 64 KiB are valid */
static void
mx_lines_thousands(void **state)
{
	struct sts_policy	*pol;
	const char		*why = NULL, *mx;
	char			*b, want[32];
	size_t			 pos, len, i;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = build(STS_POLICY_MAX_BODY, 2700);
	if (sts_policy_parse(b, STS_POLICY_MAX_BODY, pol, &why) != 0)
		fail_msg("2700 mx refused: %s", why);
	assert_int_equal(pol->nmx, 2700);
	for (i = 0, pos = 0; (mx = sts_policy_mx_next(pol, &pos, &len)) !=
	    NULL; i++) {
		snprintf(want, sizeof(want), "mx%zu.example.com", i);
		assert_string_equal(mx, want);
		assert_int_equal(len, strlen(want));
	}
	assert_int_equal(i, 2700);
	/* one byte more is refused for its size, not for its mx lines */
	free(b);
	b = build(STS_POLICY_MAX_BODY + 1, 2700);
	assert_int_equal(sts_policy_parse(b, STS_POLICY_MAX_BODY + 1, pol,
	    &why), -1);
	assert_string_equal(why, "policy larger than 64 KiB");
	free(b);
	free(pol);
}

/* the most mx lines 64 KiB can hold ("mx:x") all fit the pattern buffer */
static void
mx_lines_most(void **state)
{
	static const char head[] = "version:STSv1\nmode:enforce\nmax_age:1\n";
	struct sts_policy	*pol;
	const char		*why = NULL, *mx;
	char			*b;
	size_t			 len, k, pos, i;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = malloc(STS_POLICY_MAX_BODY + 1);
	assert_non_null(b);
	memcpy(b, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	for (k = 0; STS_POLICY_MAX_BODY - len > 8; k++) {
		memcpy(b + len, "mx:x\n", 5);
		len += 5;
	}
	/* 4..8 bytes left: one unknown line "x:yyy\n" fills them */
	memcpy(b + len, "x:", 2);
	memset(b + len + 2, 'y', STS_POLICY_MAX_BODY - len - 3);
	b[STS_POLICY_MAX_BODY - 1] = '\n';
	if (sts_policy_parse(b, STS_POLICY_MAX_BODY, pol, &why) != 0)
		fail_msg("%zu mx refused: %s", k, why);
	assert_true(k > 13000);
	assert_int_equal(pol->nmx, k);
	assert_int_equal(pol->nlines, k + 4);
	assert_int_equal(pol->mxlen, 2 * k);
	for (i = 0, pos = 0; (mx = sts_policy_mx_next(pol, &pos, NULL)) !=
	    NULL; i++)
		assert_string_equal(mx, "x");
	assert_int_equal(i, k);
	/* the same with one more byte: refused whole */
	b[STS_POLICY_MAX_BODY] = '\n';
	assert_int_equal(sts_policy_parse(b, STS_POLICY_MAX_BODY + 1, pol,
	    &why), -1);
	free(b);
	free(pol);
}

/* lines of any kind are limited by the body size only */
static void
many_lines(void **state)
{
	static const char head[] = "version:STSv1\nmode:none\nmax_age:1\n";
	struct sts_policy	*pol;
	const char		*why = NULL;
	char			*b;
	size_t			 len;

	(void)state;
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	b = malloc(STS_POLICY_MAX_BODY);
	assert_non_null(b);
	memcpy(b, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	while (STS_POLICY_MAX_BODY - len >= 4) {
		memcpy(b + len, "x:y\n", 4);
		len += 4;
	}
	if (sts_policy_parse(b, len, pol, &why) != 0)
		fail_msg("%zu bytes of short lines refused: %s", len, why);
	assert_int_equal(pol->nlines, 3 + (len - (sizeof(head) - 1)) / 4);
	assert_true(pol->nlines > 16000);
	free(b);
	free(pol);
}

static void
mode_names(void **state)
{
	(void)state;
	assert_string_equal(sts_policy_mode_name(STS_MODE_NONE), "none");
	assert_string_equal(sts_policy_mode_name(STS_MODE_TESTING),
	    "testing");
	assert_string_equal(sts_policy_mode_name(STS_MODE_ENFORCE),
	    "enforce");
}

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	static const struct CMUnitTest extra[] = {
		cmocka_unit_test(policy_lines_literal),
		cmocka_unit_test(body_of_64_kib_is_valid),
		cmocka_unit_test(body_of_64_kib_plus_1_is_refused),
		cmocka_unit_test(body_without_final_newline_fills_text),
		cmocka_unit_test(mx_lines_thousands),
		cmocka_unit_test(mx_lines_most),
		cmocka_unit_test(many_lines),
		cmocka_unit_test(mode_names),
	};
	struct CMUnitTest	*t;
	size_t			 n, i;
	int			 rc;

	t = calloc(NCASES(cases) + NCASES(extra), sizeof(*t));
	if (t == NULL)
		return (1);
	n = 0;
	for (i = 0; i < NCASES(cases); i++)
		t[n++] = (struct CMUnitTest){ cases[i].name, test_policy,
		    NULL, NULL, (void *)&cases[i] };
	for (i = 0; i < NCASES(extra); i++)
		t[n++] = extra[i];
	rc = _cmocka_run_group_tests("sts_policy", t, n, NULL, NULL);
	free(t);
	return (rc);
}
