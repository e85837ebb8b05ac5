/*
 * test_domain.c - unit tests for socketmap key normalization
 *
 * Each table row is its own TAP test.  Keys are copied into heap blocks of
 * exactly their length and out is a heap block of exactly DOMAIN_BUFSZ
 * bytes, so ASan catches any read or write out of bounds.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/domain.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

#define L10	"abcdefghij"
#define L60	L10 L10 L10 L10 L10 L10
#define L61	L60 "k"
#define L62	L60 "kl"
#define L63	L60 "klm"
#define L64	L60 "klmn"
#define N253	L63 "." L63 "." L63 "." L61	/* 63*3 + 61 + 3 dots */
#define N254	L63 "." L63 "." L63 "." L62
/* "ü" (U+00FC) in UTF-8, spelled out so the source stays ASCII */
#define UE	"\xc3\xbc"

struct domain_case {
	const char *name;
	const char *key;
	size_t	 len;
	enum domain_status want;
	const char *out;		/* on DOMAIN_OK */
};

static const struct domain_case domain_cases[] = {
	/* plain names */
	{ "plain two-label name", IN("example.com"), DOMAIN_OK,
	    "example.com" },
	{ "plain four-label name", IN("mail.example.co.uk"), DOMAIN_OK,
	    "mail.example.co.uk" },
	{ "upper case folded", IN("MX.Example.COM"), DOMAIN_OK,
	    "mx.example.com" },
	{ "one trailing dot stripped", IN("example.com."), DOMAIN_OK,
	    "example.com" },
	{ "hyphen inside a label", IN("my-host.example"), DOMAIN_OK,
	    "my-host.example" },
	{ "double hyphen inside a label", IN("ab--cd.example"), DOMAIN_OK,
	    "ab--cd.example" },
	{ "label starting with a digit", IN("3com.example"), DOMAIN_OK,
	    "3com.example" },
	{ "all-digit label before the TLD", IN("123.example.com"),
	    DOMAIN_OK, "123.example.com" },
	{ "underscore label", IN("_mta-sts.Example.com"), DOMAIN_OK,
	    "_mta-sts.example.com" },
	{ "underscore inside a label", IN("a_b.example"), DOMAIN_OK,
	    "a_b.example" },
	{ "single-character labels", IN("a.b"), DOMAIN_OK, "a.b" },
	{ "A-label passes unchanged", IN("xn--bcher-kva.example"),
	    DOMAIN_OK, "xn--bcher-kva.example" },
	{ "A-label in upper case folded", IN("XN--BCHER-KVA.EXAMPLE"),
	    DOMAIN_OK, "xn--bcher-kva.example" },
	{ "63-character label", IN(L63 ".example"), DOMAIN_OK,
	    L63 ".example" },
	{ "253-character name", IN(N253), DOMAIN_OK, N253 },
	{ "253-character name with trailing dot", IN(N253 "."), DOMAIN_OK,
	    N253 },
	/* U-labels */
	{ "U-label to A-label", IN("b" UE "cher.example"), DOMAIN_OK,
	    "xn--bcher-kva.example" },
	{ "U-label in upper case", IN("B\xc3\x9c" "CHER.Example"),
	    DOMAIN_OK, "xn--bcher-kva.example" },
	{ "U-label with trailing dot", IN("b" UE "cher.example."),
	    DOMAIN_OK, "xn--bcher-kva.example" },
	{ "U-label sharp s is nontransitional", IN("stra\xc3\x9f" "e.de"),
	    DOMAIN_OK, "xn--strae-oqa.de" },
	{ "U-labels with ideographic full stop",
	    IN("\xe4\xbe\x8b\xe5\xad\x90\xe3\x80\x82\xe6\xb5\x8b\xe8\xaf\x95"),
	    DOMAIN_OK, "xn--fsqu00a.xn--0zwm56d" },
	{ "U-label next to underscore label", IN("_dmarc.b" UE "cher.de"),
	    DOMAIN_OK, "_dmarc.xn--bcher-kva.de" },
	{ "soft hyphen mapped away (UTS 46)", IN("a\xc2\xad" "b.de"),
	    DOMAIN_OK, "ab.de" },
	/* not plain: no policy of their own */
	{ "single label", IN("localhost"), DOMAIN_NOT_PLAIN, NULL },
	{ "single label with trailing dot", IN("com."), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "single U-label", IN(UE), DOMAIN_NOT_PLAIN, NULL },
	{ "IPv4 address", IN("192.0.2.1"), DOMAIN_NOT_PLAIN, NULL },
	{ "IPv4 address with trailing dot", IN("192.0.2.1."),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "all-digit TLD", IN("example.123"), DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed host", IN("[mx.example.com]"), DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed host with port", IN("[mx.example.com]:587"),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed host with service name", IN("[mx.example.com]:submission"),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed single label", IN("[relay]"), DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed U-label", IN("[b" UE "cher.example]"), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "host with port", IN("example.com:25"), DOMAIN_NOT_PLAIN, NULL },
	{ "host with port 65535", IN("example.com:65535"), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "host with service name", IN("example.com:smtp"),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed IPv4", IN("[192.0.2.1]"), DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed IPv4 with port", IN("[192.0.2.1]:25"), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "bracketed ipv6: literal", IN("[ipv6:2001:db8::1]"),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed IPv6: literal with port", IN("[IPv6:2001:db8::1]:25"),
	    DOMAIN_NOT_PLAIN, NULL },
	{ "bracketed bare IPv6", IN("[2001:db8::1]"), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "bare IPv6", IN("2001:db8::1"), DOMAIN_NOT_PLAIN, NULL },
	{ "bare IPv6 loopback", IN("::1"), DOMAIN_NOT_PLAIN, NULL },
	{ "bare IPv4-mapped IPv6", IN("::ffff:192.0.2.1"), DOMAIN_NOT_PLAIN,
	    NULL },
	{ "parent key", IN(".example.com"), DOMAIN_NOT_PLAIN, NULL },
	{ "parent key of a TLD", IN(".com"), DOMAIN_NOT_PLAIN, NULL },
	{ "parent key with U-label", IN(".b" UE "cher.example"),
	    DOMAIN_NOT_PLAIN, NULL },
	/* invalid */
	{ "empty key", IN(""), DOMAIN_INVALID, NULL },
	{ "only a dot", IN("."), DOMAIN_INVALID, NULL },
	{ "only dots", IN("..."), DOMAIN_INVALID, NULL },
	{ "two trailing dots", IN("example.com.."), DOMAIN_INVALID, NULL },
	{ "U-label with two trailing dots", IN("b" UE "cher.example.."),
	    DOMAIN_INVALID, NULL },
	{ "empty label inside", IN("a..example.com"), DOMAIN_INVALID, NULL },
	{ "parent key with two dots", IN("..example.com"), DOMAIN_INVALID,
	    NULL },
	{ "parent key of nothing", IN(".."), DOMAIN_INVALID, NULL },
	{ "label starting with hyphen", IN("-a.example.com"), DOMAIN_INVALID,
	    NULL },
	{ "label ending with hyphen", IN("a-.example.com"), DOMAIN_INVALID,
	    NULL },
	{ "TLD ending with hyphen", IN("example.com-"), DOMAIN_INVALID, NULL },
	{ "hyphen-only label", IN("-.example"), DOMAIN_INVALID, NULL },
	{ "U-label starting with hyphen", IN("-" UE ".de"), DOMAIN_INVALID,
	    NULL },
	{ "64-character label", IN(L64 ".example"), DOMAIN_INVALID, NULL },
	{ "254-character name", IN(N254), DOMAIN_INVALID, NULL },
	{ "254-character name with trailing dot", IN(N254 "."),
	    DOMAIN_INVALID, NULL },
	{ "space in name", IN("exa mple.com"), DOMAIN_INVALID, NULL },
	{ "NUL in name", IN("exa\0mple.com"), DOMAIN_INVALID, NULL },
	{ "NUL after name", IN("example.com\0"), DOMAIN_INVALID, NULL },
	{ "at sign", IN("user@example.com"), DOMAIN_INVALID, NULL },
	{ "wildcard", IN("*.example.com"), DOMAIN_INVALID, NULL },
	{ "UNIX-domain socket path", IN("/var/run/relay"), DOMAIN_INVALID,
	    NULL },
	{ "invalid UTF-8", IN("\xff.example"), DOMAIN_INVALID, NULL },
	{ "truncated UTF-8", IN("b\xc3" ".example"), DOMAIN_INVALID, NULL },
	{ "disallowed code point (snowman)", IN("\xe2\x98\x83.example"),
	    DOMAIN_INVALID, NULL },
	{ "bad Punycode A-label input", IN(UE ".xn--"), DOMAIN_INVALID,
	    NULL },
	{ "unclosed bracket", IN("[mx.example.com"), DOMAIN_INVALID, NULL },
	{ "closing bracket only", IN("mx.example.com]"), DOMAIN_INVALID,
	    NULL },
	{ "empty brackets", IN("[]"), DOMAIN_INVALID, NULL },
	{ "bracket then junk", IN("[mx.example.com]x"), DOMAIN_INVALID,
	    NULL },
	{ "bracket with empty port", IN("[mx.example.com]:"), DOMAIN_INVALID,
	    NULL },
	{ "bracket with port 0", IN("[mx.example.com]:0"), DOMAIN_INVALID,
	    NULL },
	{ "bracket with port 65536", IN("[mx.example.com]:65536"),
	    DOMAIN_INVALID, NULL },
	{ "bracket with 16-character service", IN("[mx]:abcdefghijklmnop"),
	    DOMAIN_INVALID, NULL },
	{ "bracketed invalid host", IN("[mx..example]"), DOMAIN_INVALID,
	    NULL },
	{ "nested brackets", IN("[[mx.example]]"), DOMAIN_INVALID, NULL },
	{ "bracketed bad IPv6", IN("[ipv6:2001:db8:::1]"), DOMAIN_INVALID,
	    NULL },
	{ "ipv6: tag around IPv4", IN("[ipv6:192.0.2.1]"), DOMAIN_INVALID,
	    NULL },
	{ "empty ipv6: literal", IN("[ipv6:]"), DOMAIN_INVALID, NULL },
	{ "host with empty port", IN("example.com:"), DOMAIN_INVALID, NULL },
	{ "host with six-digit port", IN("example.com:100000"),
	    DOMAIN_INVALID, NULL },
	{ "port without host", IN(":25"), DOMAIN_INVALID, NULL },
	{ "invalid host with port", IN("-x.example:25"), DOMAIN_INVALID,
	    NULL },
	{ "bad bare IPv6", IN("2001:db8:::1"), DOMAIN_INVALID, NULL },
	{ "IPv6 with zone", IN("fe80::1%eth0"), DOMAIN_INVALID, NULL },
};

/* run_domain_case - one domain_cases row */
static void
run_domain_case(void **state)
{
	const struct domain_case *tc = *state;
	char	*key, *out;

	key = malloc(tc->len > 0 ? tc->len : 1);
	out = malloc(DOMAIN_BUFSZ);
	assert_non_null(key);
	assert_non_null(out);
	if (tc->len > 0)
		memcpy(key, tc->key, tc->len);
	memset(out, 'X', DOMAIN_BUFSZ);
	assert_int_equal(domain_normalize(key, tc->len, out), tc->want);
	if (tc->want == DOMAIN_OK)
		assert_string_equal(out, tc->out);
	else
		assert_string_equal(out, "");
	free(key);
	free(out);
}

/* long_keys_bounded - nothing past DOMAIN_MAX_KEY is looked at */
static void
long_keys_bounded(void **state)
{
	char	 out[DOMAIN_BUFSZ];
	char	*key;
	size_t	 i;

	(void)state;
	key = malloc(DOMAIN_MAX_KEY + 1);
	assert_non_null(key);
	/* one huge ASCII label: too long, whatever its size */
	memset(key, 'a', DOMAIN_MAX_KEY + 1);
	assert_int_equal(domain_normalize(key, DOMAIN_MAX_KEY, out),
	    DOMAIN_INVALID);
	assert_int_equal(domain_normalize(key, DOMAIN_MAX_KEY + 1, out),
	    DOMAIN_INVALID);
	/* 341 U-labels "\xc3\xbc." and an "a": libidn2 gets all 1024 bytes */
	for (i = 0; i + 3 <= DOMAIN_MAX_KEY; i += 3) {
		memcpy(key + i, UE, 2);
		key[i + 2] = '.';
	}
	key[DOMAIN_MAX_KEY - 1] = 'a';
	assert_int_equal(domain_normalize(key, DOMAIN_MAX_KEY, out),
	    DOMAIN_INVALID);
	/* the same with a bracket: still bounded, still invalid */
	key[0] = '[';
	assert_int_equal(domain_normalize(key, DOMAIN_MAX_KEY + 1, out),
	    DOMAIN_INVALID);
	free(key);
}

/* long_ulabels_that_fit - a long U-label name shrinking under 253 */
static void
long_ulabels_that_fit(void **state)
{
	char	 out[DOMAIN_BUFSZ];
	char	 key[4 * 20 + 16];
	size_t	 i, n = 0;

	(void)state;
	/* 20 x U+1F600 (4 bytes each) in one label: 80 bytes of UTF-8 */
	for (i = 0; i < 20; i++) {
		memcpy(key + n, "\xf0\x9f\x98\x80", 4);
		n += 4;
	}
	memcpy(key + n, ".example", 8);
	n += 8;
	/* emoji are DISALLOWED in IDNA2008: invalid, but safely so */
	assert_int_equal(domain_normalize(key, n, out), DOMAIN_INVALID);
	/* 40 x U+00E4: 80 bytes of UTF-8, a 49-byte A-label */
	n = 0;
	for (i = 0; i < 40; i++) {
		memcpy(key + n, "\xc3\xa4", 2);
		n += 2;
	}
	memcpy(key + n, ".example", 8);
	n += 8;
	assert_int_equal(domain_normalize(key, n, out), DOMAIN_OK);
	assert_true(strncmp(out, "xn--", 4) == 0);
	assert_true(strlen(out) < n);
}

/* status_names - log names of every status */
static void
status_names(void **state)
{
	(void)state;
	assert_string_equal(domain_status_name(DOMAIN_OK), "ok");
	assert_string_equal(domain_status_name(DOMAIN_NOT_PLAIN), "not-plain");
	assert_string_equal(domain_status_name(DOMAIN_INVALID), "invalid");
	assert_string_equal(domain_status_name((enum domain_status)7),
	    "unknown");
}

/* domain_check: the one host-name syntax (config pins, decide, https,
 * mxmatch, domain_normalize) */
struct check_case {
	const char	*name;
	const char	*in;
	unsigned int	 flags;
	int		 minlabels;
	enum domain_check want;
	const char	*out;		/* DOMAIN_CHECK_OK */
};

static const struct check_case check_cases[] = {
	{ "check: plain name, lower-cased", "MX1.Example.COM", 0, 1,
	    DOMAIN_CHECK_OK, "mx1.example.com" },
	{ "check: single label with minlabels 1", "localhost", 0, 1,
	    DOMAIN_CHECK_OK, "localhost" },
	{ "check: single label with minlabels 2", "localhost", 0, 2,
	    DOMAIN_CHECK_FEW_LABELS, NULL },
	{ "check: underscore only when allowed", "_mta-sts.example", 0, 1,
	    DOMAIN_CHECK_CHAR, NULL },
	{ "check: underscore allowed", "_mta-sts.example",
	    DOMAIN_NAME_UNDERSCORE, 1, DOMAIN_CHECK_OK, "_mta-sts.example" },
	{ "check: trailing dot only when allowed", "a.example.", 0, 1,
	    DOMAIN_CHECK_EMPTY_LABEL, NULL },
	{ "check: trailing dot dropped", "a.example.", DOMAIN_NAME_DOT, 1,
	    DOMAIN_CHECK_OK, "a.example" },
	{ "check: two trailing dots", "a.example..", DOMAIN_NAME_DOT, 1,
	    DOMAIN_CHECK_EMPTY_LABEL, NULL },
	{ "check: empty", "", DOMAIN_NAME_DOT, 1, DOMAIN_CHECK_EMPTY, NULL },
	{ "check: empty label", "a..b", 0, 1, DOMAIN_CHECK_EMPTY_LABEL,
	    NULL },
	{ "check: leading hyphen", "-a.b", 0, 1, DOMAIN_CHECK_HYPHEN, NULL },
	{ "check: trailing hyphen", "a-.b", 0, 1, DOMAIN_CHECK_HYPHEN, NULL },
	{ "check: inner hyphen", "a-b.c", 0, 1, DOMAIN_CHECK_OK, "a-b.c" },
	{ "check: space", "a b.c", 0, 1, DOMAIN_CHECK_CHAR, NULL },
	{ "check: IPv4 address", "192.0.2.1", 0, 1, DOMAIN_CHECK_NUMERIC,
	    NULL },
	{ "check: digits but a name", "1.2.example", 0, 1, DOMAIN_CHECK_OK,
	    "1.2.example" },
	{ "check: label of 64", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaa.b", 0, 1, DOMAIN_CHECK_LONG_LABEL, NULL },
};

/* run_check_case - one check_cases row, also through domain_check_why */
static void
run_check_case(void **state)
{
	const struct check_case *c = *state;
	char	 out[DOMAIN_BUFSZ];

	assert_int_equal(domain_check(c->in, strlen(c->in), c->flags,
	    c->minlabels, out), c->want);
	if (c->want == DOMAIN_CHECK_OK)
		assert_string_equal(out, c->out);
	assert_non_null(domain_check_why(c->want));
	/* out may be NULL */
	assert_int_equal(domain_check(c->in, strlen(c->in), c->flags,
	    c->minlabels, NULL), c->want);
}

/* check_too_long - 254 characters: DOMAIN_CHECK_LONG, before any label */
static void
check_too_long(void **state)
{
	char	 name[300];

	(void)state;
	memset(name, 'a', sizeof(name));
	name[1] = '.';
	assert_int_equal(domain_check(name, DOMAIN_MAX_LEN + 1, 0, 1, NULL),
	    DOMAIN_CHECK_LONG);
	assert_int_equal(domain_check(name, DOMAIN_MAX_LEN, 0, 1, NULL),
	    DOMAIN_CHECK_LONG_LABEL);
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(long_keys_bounded),
	cmocka_unit_test(long_ulabels_that_fit),
	cmocka_unit_test(status_names),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(domain_cases) + nitems(check_cases) +
	    nitems(fixed_tests) + 1];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(domain_cases); i++, n++) {
		tests[n].name = domain_cases[i].name;
		tests[n].test_func = run_domain_case;
		tests[n].initial_state = (void *)&domain_cases[i];
	}
	for (i = 0; i < nitems(check_cases); i++, n++) {
		tests[n].name = check_cases[i].name;
		tests[n].test_func = run_check_case;
		tests[n].initial_state = (void *)&check_cases[i];
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(check_too_long);
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("domain", tests, NULL, NULL));
}
