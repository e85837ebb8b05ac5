/*
 * test_rua.c - unit tests for the TLSRPT record parser of
 * postsmtpsts-tlsrpt (tlsrpt/rua.c, RFC 8460 §3)
 *
 * Each table row is its own TAP test: the record, the status, how many
 * destinations are kept and refused, and the first destination.  The
 * hostile rows are what a domain's DNS could publish to make the reporter
 * write to a header or a command line, reach an address it should not,
 * or spend without bound.  Records are copied into heap blocks of exactly
 * their length (no NUL).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tlsrpt/rua.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

struct rua_case {
	const char	*name;
	const char	*record;
	enum rua_status	 status;
	size_t		 n;		/* destinations kept */
	size_t		 refused;
	int		 scheme;	/* of dest[0], 0: none */
	const char	*first;		/* mailbox or host of dest[0] */
	unsigned int	 port;		/* https */
	const char	*path;		/* https */
};

static const struct rua_case rua_cases[] = {
	{ "RFC 8460 §3 example: mailto", "v=TLSRPTv1; rua=mailto:"
	    "reports@example.com", RUA_OK, 1, 0, RUA_MAILTO,
	    "reports@example.com", 0, NULL },
	{ "RFC 8460 §3 example: https", "v=TLSRPTv1; "
	    "rua=https://reporting.example.com/v1/tlsrpt", RUA_OK, 1, 0,
	    RUA_HTTPS, "reporting.example.com", 443, "/v1/tlsrpt" },
	{ "two URIs, blanks around the comma", "v=TLSRPTv1;rua=mailto:a@x.example"
	    " ,  https://c.example:8443/r?d=x.example ;", RUA_OK, 2, 0,
	    RUA_MAILTO, "a@x.example", 0, NULL },
	{ "an extension field is ignored", "v=TLSRPTv1; ext_1=abc; "
	    "rua=mailto:a@x.example", RUA_OK, 1, 0, RUA_MAILTO, "a@x.example",
	    0, NULL },
	{ "no blank after the version", "v=TLSRPTv1;rua=mailto:a@x.example",
	    RUA_OK, 1, 0, RUA_MAILTO, "a@x.example", 0, NULL },
	{ "scheme in upper case, domain lower-cased", "v=TLSRPTv1; "
	    "rua=MAILTO:Reports@Example.COM", RUA_OK, 1, 0, RUA_MAILTO,
	    "Reports@example.com", 0, NULL },
	{ "%-encoded @ in mailto", "v=TLSRPTv1; rua=mailto:a%40x.example",
	    RUA_OK, 1, 0, RUA_MAILTO, "a@x.example", 0, NULL },
	{ "mailto hfields are ignored", "v=TLSRPTv1; "
	    "rua=mailto:a@x.example?subject=hi", RUA_OK, 1, 0, RUA_MAILTO,
	    "a@x.example", 0, NULL },
	{ "https with a query only", "v=TLSRPTv1; rua=https://c.example?k=v",
	    RUA_OK, 1, 0, RUA_HTTPS, "c.example", 443, "/?k=v" },
	{ "https host only", "v=TLSRPTv1; rua=https://c.example", RUA_OK, 1,
	    0, RUA_HTTPS, "c.example", 443, "/" },
	{ "one bad URI does not cost the good one", "v=TLSRPTv1; "
	    "rua=http://c.example/r,mailto:a@x.example", RUA_OK, 1, 1,
	    RUA_MAILTO, "a@x.example", 0, NULL },
	/* hostile URIs */
	{ "http: is refused", "v=TLSRPTv1; rua=http://c.example/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "ftp: is refused", "v=TLSRPTv1; rua=ftp://c.example/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "file: is refused", "v=TLSRPTv1; rua=file:///etc/passwd",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https to an IPv4 literal", "v=TLSRPTv1; rua=https://192.0.2.1/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https to an IPv6 literal", "v=TLSRPTv1; rua=https://[::1]/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https with user information", "v=TLSRPTv1; "
	    "rua=https://user:pw@c.example/r", RUA_NO_USABLE, 0, 1, 0, NULL, 0,
	    NULL },
	{ "https with a fragment", "v=TLSRPTv1; rua=https://c.example/r#x",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https port 0", "v=TLSRPTv1; rua=https://c.example:0/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https port over 65535", "v=TLSRPTv1; rua=https://c.example:65536/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "https single-label host", "v=TLSRPTv1; rua=https://localhost/r",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "mailto to an address literal", "v=TLSRPTv1; "
	    "rua=mailto:a@[192.0.2.1]", RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "mailto to an IPv4 domain", "v=TLSRPTv1; rua=mailto:a@192.0.2.1",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "header injection: %0D%0A in mailto", "v=TLSRPTv1; "
	    "rua=mailto:a@x.example%0D%0ABcc:victim@y.example", RUA_NO_USABLE,
	    0, 1, 0, NULL, 0, NULL },
	{ "header injection: %0A in the local part", "v=TLSRPTv1; "
	    "rua=mailto:a%0Ab@x.example", RUA_NO_USABLE, 0, 1, 0, NULL, 0,
	    NULL },
	{ "a quote in the local part", "v=TLSRPTv1; "
	    "rua=mailto:%22a%20b%22@x.example", RUA_NO_USABLE, 0, 1, 0, NULL, 0,
	    NULL },
	{ "a command-line option as the address", "v=TLSRPTv1; "
	    "rua=mailto:-oQ/tmp/x", RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "two addresses in one mailto (%2C)", "v=TLSRPTv1; "
	    "rua=mailto:a@x.example%2Cb@y.example", RUA_NO_USABLE, 0, 1, 0,
	    NULL, 0, NULL },
	{ "two @ in one address", "v=TLSRPTv1; rua=mailto:a@b@x.example",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "a dot at the start of the local part", "v=TLSRPTv1; "
	    "rua=mailto:.a@x.example", RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "a local part of 65 bytes", "v=TLSRPTv1; rua=mailto:"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "@x.example", RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "a bad %-escape", "v=TLSRPTv1; rua=mailto:a%4@x.example",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "a non-ASCII byte", "v=TLSRPTv1; rua=mailto:\xc3\xa4@x.example",
	    RUA_NO_USABLE, 0, 1, 0, NULL, 0, NULL },
	{ "an empty rua", "v=TLSRPTv1; rua=", RUA_NO_USABLE, 0, 1, 0, NULL, 0,
	    NULL },
	{ "five URIs: four kept, one too many", "v=TLSRPTv1; "
	    "rua=mailto:a@x.example,mailto:b@x.example,mailto:c@x.example,"
	    "mailto:d@x.example,mailto:e@x.example", RUA_OK, 4, 1, RUA_MAILTO,
	    "a@x.example", 0, NULL },
	/* invalid records */
	{ "another version", "v=TLSRPTv2; rua=mailto:a@x.example", RUA_INVALID,
	    0, 0, 0, NULL, 0, NULL },
	{ "v=TLSRPTv10 is not v=TLSRPTv1", "v=TLSRPTv10; rua=mailto:a@x.example",
	    RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "the version not first", "rua=mailto:a@x.example; v=TLSRPTv1",
	    RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "no rua", "v=TLSRPTv1; ext=1", RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "only the version", "v=TLSRPTv1", RUA_INVALID, 0, 0, 0, NULL, 0,
	    NULL },
	{ "two rua fields", "v=TLSRPTv1; rua=mailto:a@x.example; "
	    "rua=mailto:b@x.example", RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "a field without =", "v=TLSRPTv1; rua", RUA_INVALID, 0, 0, 0, NULL, 0,
	    NULL },
	{ "a bad extension name", "v=TLSRPTv1; _x=1; rua=mailto:a@x.example",
	    RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "an extension with a blank in its value", "v=TLSRPTv1; x=a b; "
	    "rua=mailto:a@x.example", RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
	{ "empty", "", RUA_INVALID, 0, 0, 0, NULL, 0, NULL },
};

/* run_rua_case - one rua_cases row */
static void
run_rua_case(void **state)
{
	const struct rua_case *tc = *state;
	struct rua_list *l = malloc(sizeof(*l));
	size_t	 len = strlen(tc->record);
	char	*rec = malloc(len > 0 ? len : 1);
	enum rua_status st;

	assert_non_null(l);
	assert_non_null(rec);
	memcpy(rec, tc->record, len);
	st = rua_parse(rec, len, l);
	free(rec);
	if (st != tc->status)
		fail_msg("status %s (%s), want %s", rua_status_name(st), l->why,
		    rua_status_name(tc->status));
	assert_int_equal(l->n, tc->n);
	assert_int_equal(l->refused, tc->refused);
	if (st != RUA_OK)
		assert_string_not_equal(l->why, "");
	if (tc->scheme != 0) {
		assert_int_equal(l->dest[0].scheme, tc->scheme);
		if (tc->scheme == RUA_MAILTO)
			assert_string_equal(l->dest[0].mailbox, tc->first);
		else {
			assert_string_equal(l->dest[0].host, tc->first);
			assert_int_equal(l->dest[0].port, tc->port);
			assert_string_equal(l->dest[0].path, tc->path);
		}
	}
	free(l);
}

/* rua_select_cases - the one record among TXT records (§3) */
static void
rua_select_cases(void **state)
{
	const char *one[] = { "v=spf1 -all", "v=TLSRPTv1; rua=mailto:a@b.c" };
	const char *two[] = { "v=TLSRPTv1; rua=mailto:a@b.c",
	    "v=TLSRPTv1;rua=mailto:d@e.f" };
	const char *none[] = { "v=TLSRPTv10; rua=mailto:a@b.c", "x" };
	const char *bare[] = { "v=TLSRPTv1" };
	size_t	 lens[2], i, idx = 99;

	(void)state;
	for (i = 0; i < 2; i++)
		lens[i] = strlen(one[i]);
	assert_int_equal(rua_select(one, lens, 2, &idx), 0);
	assert_int_equal(idx, 1);
	for (i = 0; i < 2; i++)
		lens[i] = strlen(two[i]);
	assert_int_equal(rua_select(two, lens, 2, &idx), -2);
	for (i = 0; i < 2; i++)
		lens[i] = strlen(none[i]);
	assert_int_equal(rua_select(none, lens, 2, &idx), -1);
	lens[0] = strlen(bare[0]);
	assert_int_equal(rua_select(bare, lens, 1, &idx), 0);
	assert_int_equal(rua_select(NULL, NULL, 0, &idx), -1);
}

/* rua_huge - a record over RUA_MAX_RECORD, and a list of a thousand
 * URIs that fits: refused at once, or bounded */
static void
rua_huge(void **state)
{
	struct rua_list *l = malloc(sizeof(*l));
	char	*rec = malloc(RUA_MAX_RECORD + 64);
	size_t	 n;

	(void)state;
	assert_non_null(l);
	assert_non_null(rec);
	memset(rec, 'a', RUA_MAX_RECORD + 64);
	memcpy(rec, "v=TLSRPTv1; rua=", 16);
	assert_int_equal(rua_parse(rec, RUA_MAX_RECORD + 1, l), RUA_INVALID);
	/* "mailto:a@b.cc," is 14 bytes: ~290 of them fit */
	n = 16;
	while (n + 14 <= RUA_MAX_RECORD) {
		memcpy(rec + n, "mailto:a@b.cc,", 14);
		n += 14;
	}
	rec[n - 1] = 'c';	/* no trailing comma */
	assert_int_equal(rua_parse(rec, n, l), RUA_OK);
	assert_int_equal(l->n, RUA_MAX_DESTS);
	assert_int_equal(l->refused, (n - 16) / 14 - RUA_MAX_DESTS);
	/* one URI longer than RUA_MAX_URI */
	n = 16;
	memcpy(rec + n, "https://c.example/", 18);
	n += 18;
	memset(rec + n, 'p', RUA_MAX_URI);
	n += RUA_MAX_URI;
	assert_int_equal(rua_parse(rec, n, l), RUA_NO_USABLE);
	assert_string_equal(l->why, "URI too long");
	free(rec);
	free(l);
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(rua_select_cases),
	cmocka_unit_test(rua_huge),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(rua_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(rua_cases); i++, n++) {
		tests[n].name = rua_cases[i].name;
		tests[n].test_func = run_rua_case;
		tests[n].initial_state = (void *)&rua_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("rua", tests, NULL, NULL));
}
