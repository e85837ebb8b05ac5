/*
 * test_warm_list.c - unit tests for the domain lists of
 * postsmtpsts-cache warm (warm_list.c)
 *
 * Each table row is its own TAP test.  Lines are copied into heap blocks
 * of exactly their length (no NUL) and out is a heap block of exactly
 * DOMAIN_BUFSZ bytes, so ASan catches any access out of bounds.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/warm_list.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

struct warm_case {
	const char *name;
	const char *line;
	size_t	 len;
	enum warm_line want;
	const char *out;		/* on WARM_LINE_DOMAIN */
};

static const struct warm_case warm_cases[] = {
	{ "a bare domain", IN("example.com"), WARM_LINE_DOMAIN,
	    "example.com" },
	{ "upper case and a trailing dot", IN("Mail.Example.COM."),
	    WARM_LINE_DOMAIN, "mail.example.com" },
	{ "CRLF line end", IN("example.org\r"), WARM_LINE_DOMAIN,
	    "example.org" },
	{ "Postfix table line: first field, tab", IN("example.net\tsecure "
	    "match=mx.example.net"), WARM_LINE_DOMAIN, "example.net" },
	{ "Postfix table line: first field, spaces",
	    IN("example.net   dane-only"), WARM_LINE_DOMAIN, "example.net" },
	{ "a comment after the domain is a second field",
	    IN("example.com # ours"), WARM_LINE_DOMAIN, "example.com" },
	{ "U-label to A-label (IDNA2008)", IN("b\xc3\xbc" "cher.example"),
	    WARM_LINE_DOMAIN, "xn--bcher-kva.example" },
	{ "empty line", IN(""), WARM_LINE_EMPTY, NULL },
	{ "comment line", IN("# top recipient domains"), WARM_LINE_EMPTY,
	    NULL },
	{ "comment line without a blank", IN("#example.com"),
	    WARM_LINE_EMPTY, NULL },
	{ "continuation line (leading tab)", IN("\tmatch=.example.com"),
	    WARM_LINE_EMPTY, NULL },
	{ "continuation line (leading space)", IN(" example.com"),
	    WARM_LINE_EMPTY, NULL },
	{ "a lone CR", IN("\r"), WARM_LINE_EMPTY, NULL },
	{ "next hop in brackets", IN("[mx.example.com]"),
	    WARM_LINE_NOT_PLAIN, NULL },
	{ "next hop with a port", IN("[mx.example.com]:587\tencrypt"),
	    WARM_LINE_NOT_PLAIN, NULL },
	{ "parent-domain key", IN(".example.com"), WARM_LINE_NOT_PLAIN,
	    NULL },
	{ "IPv4 address", IN("192.0.2.1"), WARM_LINE_NOT_PLAIN, NULL },
	{ "single label", IN("localhost"), WARM_LINE_NOT_PLAIN, NULL },
	{ "not a host name", IN("exa_mple@com"), WARM_LINE_INVALID, NULL },
	{ "an address, not a domain", IN("user@example.com"),
	    WARM_LINE_INVALID, NULL },
	{ "empty label", IN("example..com"), WARM_LINE_INVALID, NULL },
	{ "NUL inside the field", "exa\0mple.com", 12, WARM_LINE_INVALID,
	    NULL },
	{ "cache key of a DANE entry", IN("dane:example.com"),
	    WARM_LINE_INVALID, NULL },
};

/* run_warm_case - one warm_cases row */
static void
run_warm_case(void **state)
{
	const struct warm_case *tc = *state;
	char	*line, *out;

	line = malloc(tc->len > 0 ? tc->len : 1);
	out = malloc(DOMAIN_BUFSZ);
	assert_non_null(line);
	assert_non_null(out);
	memcpy(line, tc->line, tc->len);
	memset(out, 'x', DOMAIN_BUFSZ);
	assert_int_equal(warm_list_line(line, tc->len, out), tc->want);
	assert_string_equal(out, tc->want == WARM_LINE_DOMAIN ? tc->out : "");
	free(line);
	free(out);
}

/* long_line - a field longer than DOMAIN_MAX_KEY is invalid, safely */
static void
long_line(void **state)
{
	size_t	 n = WARM_LIST_MAX_LINE;
	char	*line, *out;

	(void)state;
	line = malloc(n);
	out = malloc(DOMAIN_BUFSZ);
	assert_non_null(line);
	assert_non_null(out);
	memset(line, 'a', n);
	assert_int_equal(warm_list_line(line, n, out), WARM_LINE_INVALID);
	assert_string_equal(out, "");
	free(line);
	free(out);
}

/* line_names - the names used in messages */
static void
line_names(void **state)
{
	(void)state;
	assert_string_equal(warm_list_line_name(WARM_LINE_EMPTY), "empty");
	assert_string_equal(warm_list_line_name(WARM_LINE_DOMAIN), "domain");
	assert_string_equal(warm_list_line_name(WARM_LINE_NOT_PLAIN),
	    "not-plain");
	assert_string_equal(warm_list_line_name(WARM_LINE_INVALID),
	    "invalid");
	assert_string_equal(warm_list_line_name((enum warm_line)9), "?");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(long_line),
	cmocka_unit_test(line_names),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(warm_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(warm_cases); i++, n++) {
		tests[n].name = warm_cases[i].name;
		tests[n].test_func = run_warm_case;
		tests[n].initial_state = (void *)&warm_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("warm_list", tests, NULL, NULL));
}
