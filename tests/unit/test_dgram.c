/*
 * test_dgram.c - unit tests for the libtlsrpt datagram parser of
 * postsmtpsts-tlsrpt's socket input (tlsrpt/dgram.c)
 *
 * Each table row is its own TAP test: a datagram as libtlsrpt writes it
 * (0.5.0rc1 without "dpv", 0.5.0 with), or broken, hostile or oversize,
 * and what the parser must make of it: the status, the domain, the
 * policies' types, results and counts.  Datagrams are copied into heap
 * blocks of exactly their length (no NUL after them).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tlsrpt/dgram.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

#define STS_OK	"{\"dpv\": \"1\",\"d\": \"Example.COM\",\"pr\": \"v=TLSRPTv1; " \
	"rua=mailto:r@example.com\",\"policies\":[{\"policy-type\":2," \
	"\"policy-domain\": \"example.com\",\"policy-string\":[\"version: " \
	"STSv1\",\"mode: enforce\",\"mx: *.example.com\",\"max_age: " \
	"86400\"],\"mx-host\":[\"*.example.com\"],\"t\":0,\"f\":0}]}"

#define REFUSED NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL

struct dgram_case {
	const char	*name;
	const char	*text;
	enum dgram_status status;
	const char	*domain;	/* DGRAM_OK: d, normalized */
	int		 version;
	size_t		 npolicies;
	int		 type0;		/* policies[0] */
	int		 failed0;
	size_t		 ndetails0;
	int		 result0;	/* details[0] */
	const char	*host0;
	const char	*strings0;	/* policies[0].strings, or NULL */
	const char	*mx0;
};

static const struct dgram_case dgram_cases[] = {
	{ "libtlsrpt 0.5.0: sts success", STS_OK, DGRAM_OK, "example.com", 1,
	    1, TLSRPT_POLICY_STS, 0, 0, 0, NULL, "version: STSv1\nmode: "
	    "enforce\nmx: *.example.com\nmax_age: 86400\n",
	    "*.example.com\n" },
	{ "libtlsrpt 0.5.0rc1 (no dpv): tlsa failure, Postfix's example",
	    "{\"d\": \"dane.example\",\"pr\": \"v=TLSRPTv1; rua=mailto:r@dane."
	    "example\",\"policies\":[{\"policy-type\":1,\"policy-domain\": "
	    "\"dane.example\",\"policy-string\":[\"3 0 1 1F850A337E6DB9C609C5"
	    "22D136A475638CC43E1ED424F8EEC8513D747D1D085D\"],\"failure-detai"
	    "ls\":[{\"c\":204,\"s\": \"1.2.3.4\",\"n\": \"MailIn.Dane.Example\""
	    ",\"h\": \"tes-ehlo.example.com\",\"r\": \"11.22.33.55\",\"a\": \""
	    "This is additional information\",\"f\": \"999 TEST ERROR\"}],\"t"
	    "\":1,\"f\":1}]}", DGRAM_OK, "dane.example", 0, 1,
	    TLSRPT_POLICY_TLSA, 1, 1, TLSRPT_RESULT_EXPIRED,
	    "mailin.dane.example", "3 0 1 1F850A337E6DB9C609C522D136A475638CC"
	    "43E1ED424F8EEC8513D747D1D085D\n", "" },
	{ "no policy found, trailing dot, trailing newline",
	    "{\"dpv\":\"1\",\"d\":\"plain.example.\",\"pr\":\"\",\"policies\":"
	    "[{\"policy-type\":9,\"t\":0,\"f\":0}]}\n", DGRAM_OK,
	    "plain.example", 1, 1, TLSRPT_POLICY_NONE, 0, 0, 0, NULL, "", "" },
	{ "two policies: sts and tlsa",
	    "{\"dpv\":\"1\",\"d\":\"two.example\",\"pr\":\"x\",\"policies\":[{"
	    "\"policy-type\":2,\"t\":0,\"f\":0},{\"policy-type\":1,\"t\":0,"
	    "\"f\":0}]}", DGRAM_OK, "two.example", 1, 2, TLSRPT_POLICY_STS, 0,
	    0, 0, NULL, "", "" },
	{ "every result code maps: 301",
	    "{\"d\":\"f.example\",\"pr\":\"\",\"policies\":[{\"policy-type\":2,"
	    "\"failure-details\":[{\"c\":301}],\"t\":1,\"f\":1}]}", DGRAM_OK,
	    "f.example", 0, 1, TLSRPT_POLICY_STS, 1, 1,
	    TLSRPT_RESULT_STS_FETCH, "", NULL, NULL },
	{ "every result code maps: 306",
	    "{\"d\":\"f.example\",\"pr\":\"\",\"policies\":[{\"policy-type\":1,"
	    "\"failure-details\":[{\"c\":306,\"n\":\"\"}],\"t\":1,\"f\":1}]}",
	    DGRAM_OK, "f.example", 0, 1, TLSRPT_POLICY_TLSA, 1, 1,
	    TLSRPT_RESULT_DANE_REQUIRED, "", NULL, NULL },
	/* refused */
	{ "version 2 is not read", "{\"dpv\":\"2\",\"d\":\"x.example\",\"pr\":"
	    "\"\",\"policies\":[{\"policy-type\":9,\"t\":0,\"f\":0}]}",
	    DGRAM_VERSION, REFUSED },
	{ "version as a number is not the protocol's", "{\"dpv\":1,\"d\":"
	    "\"x.example\",\"pr\":\"\",\"policies\":[{\"policy-type\":9,\"t\":0,"
	    "\"f\":0}]}", DGRAM_FORM, REFUSED },
	{ "truncated", "{\"dpv\":\"1\",\"d\":\"x.example\",\"pr\":\"\",\"polic"
	    "ies\":[{\"policy-type\":9,\"t\":0,\"f\":0}", DGRAM_JSON, REFUSED },
	{ "empty", "", DGRAM_JSON, REFUSED },
	{ "not an object", "[1,2,3]", DGRAM_JSON, REFUSED },
	{ "two objects", "{\"d\":\"x.example\"}{\"d\":\"y.example\"}",
	    DGRAM_JSON, REFUSED },
	{ "invalid UTF-8 in a string", "{\"dpv\":\"1\",\"d\":\"x.example\","
	    "\"pr\":\"\\xff\\xfe\",\"policies\":[{\"policy-type\":9,\"t\":0,"
	    "\"f\":0}]}", DGRAM_JSON, REFUSED },
	{ "single quotes (not strict JSON)", "{'d':'x.example'}", DGRAM_JSON, REFUSED },
	{ "too deep", "{\"d\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}",
	    DGRAM_JSON, REFUSED },
	{ "no domain", "{\"dpv\":\"1\",\"pr\":\"\",\"policies\":[{\"policy-typ"
	    "e\":9,\"t\":0,\"f\":0}]}", DGRAM_FORM, REFUSED },
	{ "domain not a domain: an address", "{\"d\":\"192.0.2.1\",\"pr\":\"\","
	    "\"policies\":[{\"policy-type\":9,\"t\":0,\"f\":0}]}",
	    DGRAM_DOMAIN, REFUSED },
	{ "domain not a domain: a newline in it", "{\"d\":\"x.example\\nfake"
	    "\",\"pr\":\"\",\"policies\":[{\"policy-type\":9,\"t\":0,\"f\":0}]}",
	    DGRAM_DOMAIN, REFUSED },
	{ "domain not a domain: one label", "{\"d\":\"localhost\",\"pr\":\"\","
	    "\"policies\":[{\"policy-type\":9,\"t\":0,\"f\":0}]}",
	    DGRAM_DOMAIN, REFUSED },
	{ "no policies", "{\"d\":\"x.example\",\"pr\":\"\",\"policies\":[]}",
	    DGRAM_FORM, REFUSED },
	{ "unknown policy type 3", "{\"d\":\"x.example\",\"pr\":\"\",\"polici"
	    "es\":[{\"policy-type\":3,\"t\":0,\"f\":0}]}", DGRAM_CODE, REFUSED },
	{ "unknown result code 999", "{\"d\":\"x.example\",\"pr\":\"\",\"poli"
	    "cies\":[{\"policy-type\":2,\"failure-details\":[{\"c\":999}],\"t"
	    "\":1,\"f\":1}]}", DGRAM_CODE, REFUSED },
	{ "libtlsrpt's internal 901 is no RFC 8460 result",
	    "{\"d\":\"x.example\",\"pr\":\"\",\"policies\":[{\"policy-type\":2,"
	    "\"failure-details\":[{\"c\":901}],\"t\":1,\"f\":1}]}", DGRAM_CODE, REFUSED },
	{ "t is not the number of details", "{\"d\":\"x.example\",\"pr\":\"\","
	    "\"policies\":[{\"policy-type\":2,\"failure-details\":[{\"c\":202}"
	    "],\"t\":5,\"f\":1}]}", DGRAM_FORM, REFUSED },
	{ "f is not 0 or 1", "{\"d\":\"x.example\",\"pr\":\"\",\"policies\":[{"
	    "\"policy-type\":2,\"t\":0,\"f\":2}]}", DGRAM_FORM, REFUSED },
	{ "f missing", "{\"d\":\"x.example\",\"pr\":\"\",\"policies\":[{\"pol"
	    "icy-type\":2,\"t\":0}]}", DGRAM_FORM, REFUSED },
	{ "a policy string with a control byte", "{\"d\":\"x.example\",\"pr\":"
	    "\"\",\"policies\":[{\"policy-type\":2,\"policy-string\":[\"mode: "
	    "enforce\\r\\nmx: evil\"],\"t\":0,\"f\":0}]}", DGRAM_FORM, REFUSED },
	{ "a receiving address that is not one", "{\"d\":\"x.example\",\"pr\":"
	    "\"\",\"policies\":[{\"policy-type\":2,\"failure-details\":[{\"c\""
	    ":202,\"r\":\"999.1.1.1\"}],\"t\":1,\"f\":1}]}", DGRAM_FORM, REFUSED },
	{ "a receiving host that is not one", "{\"d\":\"x.example\",\"pr\":"
	    "\"\",\"policies\":[{\"policy-type\":2,\"failure-details\":[{\"c\""
	    ":202,\"n\":\"mx..x.example\"}],\"t\":1,\"f\":1}]}", DGRAM_DOMAIN, REFUSED },
	{ "five policies", "{\"d\":\"x.example\",\"pr\":\"\",\"policies\":["
	    "{\"policy-type\":9,\"t\":0,\"f\":0},{\"policy-type\":9,\"t\":0,"
	    "\"f\":0},{\"policy-type\":9,\"t\":0,\"f\":0},{\"policy-type\":9,"
	    "\"t\":0,\"f\":0},{\"policy-type\":9,\"t\":0,\"f\":0}]}",
	    DGRAM_LIMIT, REFUSED },
	{ "a policy is a string", "{\"d\":\"x.example\",\"pr\":\"\",\"polici"
	    "es\":[\"sts\"]}", DGRAM_FORM, REFUSED },
	{ "policy type as a string", "{\"d\":\"x.example\",\"pr\":\"\",\"poli"
	    "cies\":[{\"policy-type\":\"2\",\"t\":0,\"f\":0}]}", DGRAM_FORM, REFUSED },
};

/* run_dgram_case - one row */
static void
run_dgram_case(void **state)
{
	const struct dgram_case *c = *state;
	struct dgram	*d = dgram_new();
	size_t		 len = strlen(c->text);
	char		*copy = malloc(len > 0 ? len : 1), why[256];
	enum dgram_status st;

	assert_non_null(copy);
	memcpy(copy, c->text, len);
	st = dgram_parse(copy, len, d, why, sizeof(why));
	if (st != c->status)
		print_message("status %s, why: %s\n", dgram_status_name(st),
		    why);
	assert_int_equal(st, c->status);
	if (st != DGRAM_OK) {
		assert_int_equal(d->npolicies, 0);
		assert_true(why[0] != '\0');
		goto out;
	}
	assert_string_equal(d->domain, c->domain);
	assert_int_equal(d->version, c->version);
	assert_int_equal(d->npolicies, c->npolicies);
	assert_int_equal(d->policies[0].type, c->type0);
	assert_int_equal(d->policies[0].failed, c->failed0);
	assert_int_equal(d->policies[0].ndetails, c->ndetails0);
	if (c->ndetails0 > 0) {
		assert_int_equal(d->policies[0].details[0].result, c->result0);
		assert_string_equal(d->policies[0].details[0].host, c->host0);
	}
	if (c->strings0 != NULL) {
		assert_int_equal(d->policies[0].strings.len,
		    strlen(c->strings0));
		assert_memory_equal(d->policies[0].strings.data, c->strings0,
		    strlen(c->strings0));
		assert_int_equal(d->policies[0].mx.len, strlen(c->mx0));
		if (c->mx0[0] != '\0')
			assert_memory_equal(d->policies[0].mx.data, c->mx0,
			    strlen(c->mx0));
	}
out:
	free(copy);
	dgram_free(d);
}

/* dgram_reason_cut - a reason text over MAILLOG_REASON_LEN is cut, its
 * bytes made printable */
static void
dgram_reason_cut(void **state)
{
	struct dgram	*d = dgram_new();
	char		 text[4096], why[256];
	int		 n;

	(void)state;
	n = snprintf(text, sizeof(text), "{\"d\":\"x.example\",\"pr\":\"\","
	    "\"policies\":[{\"policy-type\":2,\"failure-details\":[{\"c\":203,"
	    "\"f\":\"\\u00e9%0600d\"}],\"t\":1,\"f\":1}]}", 7);
	assert_true(n > 0 && (size_t)n < sizeof(text));
	assert_int_equal(dgram_parse(text, (size_t)n, d, why, sizeof(why)),
	    DGRAM_OK);
	assert_int_equal(strlen(d->policies[0].details[0].reason),
	    MAILLOG_REASON_LEN - 1);
	assert_memory_equal(d->policies[0].details[0].reason, "??000", 5);
	dgram_free(d);
}

/* dgram_oversize - a datagram over DGRAM_MAX is refused unread */
static void
dgram_oversize(void **state)
{
	struct dgram	*d = dgram_new();
	char		*big = malloc(DGRAM_MAX + 1), why[256];

	(void)state;
	assert_non_null(big);
	memset(big, ' ', DGRAM_MAX + 1);
	assert_int_equal(dgram_parse(big, DGRAM_MAX + 1, d, why, sizeof(why)),
	    DGRAM_LIMIT);
	free(big);
	dgram_free(d);
}

/* dgram_embedded_nul - a NUL inside is refused (json-c would stop) */
static void
dgram_embedded_nul(void **state)
{
	struct dgram	*d = dgram_new();
	char		 text[] = STS_OK, why[256];
	size_t		 len = sizeof(text) - 1;

	(void)state;
	text[len - 2] = '\0';
	assert_int_equal(dgram_parse(text, len, d, why, sizeof(why)),
	    DGRAM_JSON);
	/* the same bytes whole parse: the NUL was the reason */
	memcpy(text, STS_OK, sizeof(text));
	assert_int_equal(dgram_parse(text, len, d, why, sizeof(why)),
	    DGRAM_OK);
	dgram_free(d);
}

/* dgram_reuse - one dgram parses many; a refusal after a success leaves
 * nothing of the first */
static void
dgram_reuse(void **state)
{
	struct dgram	*d = dgram_new();
	char		 why[256];

	(void)state;
	assert_int_equal(dgram_parse(STS_OK, strlen(STS_OK), d, why,
	    sizeof(why)), DGRAM_OK);
	assert_int_equal(d->npolicies, 1);
	assert_int_equal(dgram_parse("{}", 2, d, why, sizeof(why)),
	    DGRAM_FORM);
	assert_int_equal(d->npolicies, 0);
	assert_string_equal(d->domain, "");
	assert_string_equal(dgram_status_name(DGRAM_CODE), "code");
	assert_string_equal(dgram_status_name(99), "?");
	dgram_free(d);
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(dgram_reason_cut),
	cmocka_unit_test(dgram_oversize),
	cmocka_unit_test(dgram_embedded_nul),
	cmocka_unit_test(dgram_reuse),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(dgram_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(dgram_cases); i++, n++) {
		tests[n].name = dgram_cases[i].name;
		tests[n].test_func = run_dgram_case;
		tests[n].initial_state = (void *)&dgram_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("dgram", tests, NULL, NULL));
}
