/*
 * test_decide.c - unit tests for the reply decision: every row of the
 * precedence table in decide.h, with and without TLSRPT attributes
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "policy/decide.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

#define P_ENFORCE "version: STSv1\nmode: enforce\nmx: mail.example.com\n" \
	"mx: *.example.net\nmax_age: 604800\n"
#define P_TESTING "version: STSv1\r\nmode: testing\r\nmx: *.example.com\r\n" \
	"max_age: 86400\r\n"
#define P_NONE	"version: STSv1\nmode: none\nmax_age: 86400\n"
#define P_BRACE	"version: STSv1\nmode: enforce\nmx: mail.example.com\n" \
	"ext: {x}\nmax_age: 60\n"

#define SECURE	"secure match=mail.example.com:.example.net " \
	"servername=hostname"
#define SECURE_RPT SECURE " policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=mail.example.com " \
	"mx_host_pattern=*.example.net { policy_string = version: STSv1 } " \
	"{ policy_string = mode: enforce } " \
	"{ policy_string = mx: mail.example.com } " \
	"{ policy_string = mx: *.example.net } " \
	"{ policy_string = max_age: 604800 }"
#define MAY_RPT	"may policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=*.example.com " \
	"{ policy_string = version: STSv1 } " \
	"{ policy_string = mode: testing } " \
	"{ policy_string = mx: *.example.com } " \
	"{ policy_string = max_age: 86400 }"
#define DANE_TEMP "DNSSEC lookup of MX or TLSA records failed or was " \
	"bogus for example.com"

/* Option sets. */
#define O_DEFAULT { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 0 }
#define O_RPT	{ DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 1 }
#define O_MAY	{ DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 0 }
#define O_RPT_NF { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 1 }
#define O_SOME_ONLY { DECIDE_DANE_SOME_DANE_ONLY, \
	DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 0 }
#define O_IGNORE { DECIDE_DANE_SOME_IGNORE, DECIDE_DANE_FAILURE_IGNORE, \
	DECIDE_TESTING_NOTFOUND, 0 }

static const struct decide_pin pin_encrypt = { SOCKMAP_OK, "encrypt", 7 };
static const struct decide_pin pin_notfound = { SOCKMAP_NOTFOUND, NULL, 0 };
static const struct decide_pin pin_temp = { SOCKMAP_TEMP, "maintenance",
	11 };
static const struct decide_pin pin_empty_ok = { SOCKMAP_OK, "", 0 };

struct decide_case {
	const char		*name;
	const char		*domain;
	const struct decide_pin	*pin;
	enum decide_dane	 dane;
	enum decide_sts		 sts;
	const char		*policy;	/* for DECIDE_STS_POLICY */
	enum decide_sts_error	 sts_error;
	struct decide_options	 opt;
	int			 rc;
	enum sockmap_status	 status;
	const char		*data;		/* "" for none */
	enum decide_source	 source;
	int			 tlsrpt;
	const char		*sts_failure;
};

static const struct decide_case cases[] = {
	/* 1. Static pin. */
	{ "pin wins over DANE and STS", "example.com", &pin_encrypt,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, "encrypt", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin NOTFOUND wins over DANE", "example.com", &pin_notfound,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin TEMP passes its reason", "example.com", &pin_temp,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_TEMP, "maintenance", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin OK without data is refused", "example.com", &pin_empty_ok,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    -1, SOCKMAP_OK, "", DECIDE_SOURCE_PIN, 0, NULL },

	/* 2. DANE. */
	{ "DANE on all MX: dane-only", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on all MX wins over STS enforce", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE answer carries no TLSRPT attributes", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=dane", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=dane-only", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_NONE, NULL, 0, O_SOME_ONLY,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=ignore, STS enforce", "example.com",
	    NULL, DECIDE_DANE_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_IGNORE,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "DANE on some MX, dane_some=ignore, no STS", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "DANE lookup failure, temp", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_TEMP, DANE_TEMP, DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE lookup failure, temp, wins over STS enforce", "example.com",
	    NULL, DECIDE_DANE_FAILURE, DECIDE_STS_POLICY, P_ENFORCE, 0,
	    O_DEFAULT, 0, SOCKMAP_TEMP, DANE_TEMP, DECIDE_SOURCE_DANE, 0,
	    NULL },
	{ "DANE lookup failure, ignore, STS enforce", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_IGNORE,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "DANE lookup failure, ignore, no STS", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },

	/* 3. MTA-STS. */
	{ "STS enforce: secure with Postfix patterns", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "STS enforce with TLSRPT attributes", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, SECURE_RPT, DECIDE_SOURCE_STS, 1, NULL },
	{ "STS enforce, TLSRPT skips a line with braces", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_BRACE, 0, O_RPT,
	    0, SOCKMAP_OK, "secure match=mail.example.com servername=hostname"
	    " policy_type=sts policy_domain=example.com"
	    " mx_host_pattern=mail.example.com"
	    " { policy_string = version: STSv1 }"
	    " { policy_string = mode: enforce }"
	    " { policy_string = mx: mail.example.com }"
	    " { policy_string = max_age: 60 }", DECIDE_SOURCE_STS, 1, NULL },
	{ "STS testing, testing_answer=notfound", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, testing_answer=notfound, TLSRPT on", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT_NF,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, testing_answer=may", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_MAY,
	    0, SOCKMAP_OK, "may", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, may with TLSRPT, CRLF lines stripped", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT,
	    0, SOCKMAP_OK, MAY_RPT, DECIDE_SOURCE_STS, 1, NULL },
	{ "STS mode none: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_NONE, 0, O_RPT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "no policy: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "no policy with TLSRPT: NOTFOUND, Postfix reports no-policy-found",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "STS fetch error: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_FETCH,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-policy-fetch-error" },
	{ "STS invalid policy: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_INVALID,
	    O_DEFAULT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-policy-invalid" },
	{ "STS WebPKI failure: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_WEBPKI,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-webpki-invalid" },

	/* Unusable input. */
	{ "NULL domain refused", NULL, NULL, DECIDE_DANE_NONE,
	    DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1, SOCKMAP_NOTFOUND, "",
	    DECIDE_SOURCE_NONE, 0, NULL },
	{ "empty domain refused", "", NULL, DECIDE_DANE_NONE,
	    DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1, SOCKMAP_NOTFOUND, "",
	    DECIDE_SOURCE_NONE, 0, NULL },
	{ "domain with a space refused", "exa mple.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "domain with a brace refused", "example.com}", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "parent-domain key refused", ".example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "STS policy state without a policy refused", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_OK, "", DECIDE_SOURCE_NONE, 0, NULL },
};

static void
test_decide(void **state)
{
	const struct decide_case *c = *state;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol = NULL;
	struct buf		 out;
	const char		*why;
	int			 rc;

	memset(&in, 0, sizeof(in));
	in.domain = c->domain;
	in.pin = c->pin;
	in.dane = c->dane;
	in.sts = c->sts;
	in.sts_error = c->sts_error;
	if (c->policy != NULL) {
		pol = malloc(sizeof(*pol));
		assert_non_null(pol);
		if (sts_policy_parse(c->policy, strlen(c->policy), pol,
		    &why) != 0)
			fail_msg("test policy refused: %s", why);
		in.policy = pol;
	}
	buf_init(&out, SOCKMAP_MAX_REPLY);
	rc = decide(&in, &c->opt, &out, &res);
	assert_int_equal(rc, c->rc);
	if (rc == 0) {
		assert_int_equal(res.status, c->status);
		assert_int_equal(res.source, c->source);
		assert_int_equal(res.tlsrpt, c->tlsrpt);
		assert_false(res.tlsrpt_dropped);
		assert_non_null(buf_cstr(&out));
		assert_string_equal(out.data, c->data);
		assert_non_null(res.answer);
		if (c->sts_failure == NULL)
			assert_null(res.sts_failure);
		else
			assert_string_equal(res.sts_failure, c->sts_failure);
	}
	buf_free(&out);
	free(pol);
}

/* parse_or_fail - parse a test policy into heap storage */
static struct sts_policy *
parse_or_fail(const char *text)
{
	struct sts_policy	*pol;
	const char		*why;

	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	if (sts_policy_parse(text, strlen(text), pol, &why) != 0)
		fail_msg("test policy refused: %s", why);
	return (pol);
}

static void
tlsrpt_dropped_when_reply_too_long(void **state)
{
	static const struct decide_options opt = O_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_ENFORCE);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, strlen(SECURE) + 10);
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_int_equal(res.status, SOCKMAP_OK);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_int_equal(out.len, strlen(SECURE));
	assert_memory_equal(out.data, SECURE, out.len);
	buf_free(&out);
	free(pol);
}

static void
refused_when_even_the_policy_does_not_fit(void **state)
{
	static const struct decide_options opt = O_DEFAULT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_ENFORCE);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, strlen(SECURE) - 1);
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	buf_free(&out);
	free(pol);
}

static void
forged_policy_with_bad_pattern_refused(void **state)
{
	static const struct decide_options opt = O_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_TESTING);
	/* A policy not from sts_policy_parse, e.g. a corrupt cache record. */
	memcpy(pol->mx[0], "bad pattern", 12);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, SOCKMAP_MAX_REPLY);
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	pol->mx[0][0] = 'x';
	memset(pol->mx[0], 'a', sizeof(pol->mx[0]));	/* no NUL */
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	buf_free(&out);
	free(pol);
}

static void
many_patterns_keep_policy_order(void **state)
{
	static const struct decide_options opt = O_DEFAULT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail("version: STSv1\nmode: enforce\nmx: c.example\n"
	    "mx: *.a.example\nmx: b.example\nmx: *.b.example\nmax_age: 1\n");
	memset(&in, 0, sizeof(in));
	in.domain = "example";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, SOCKMAP_MAX_REPLY);
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, "secure match=c.example:.a.example:"
	    "b.example:.b.example servername=hostname");
	buf_free(&out);
	free(pol);
}

static void
names(void **state)
{
	(void)state;
	assert_string_equal(decide_source_name(DECIDE_SOURCE_NONE), "none");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_PIN), "pin");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_DANE), "dane");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_STS), "sts");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_FETCH),
	    "sts-policy-fetch-error");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_INVALID),
	    "sts-policy-invalid");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_WEBPKI),
	    "sts-webpki-invalid");
}

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	static const struct CMUnitTest extra[] = {
		cmocka_unit_test(tlsrpt_dropped_when_reply_too_long),
		cmocka_unit_test(refused_when_even_the_policy_does_not_fit),
		cmocka_unit_test(forged_policy_with_bad_pattern_refused),
		cmocka_unit_test(many_patterns_keep_policy_order),
		cmocka_unit_test(names),
	};
	struct CMUnitTest	*t;
	size_t			 n, i;
	int			 rc;

	t = calloc(NCASES(cases) + NCASES(extra), sizeof(*t));
	if (t == NULL)
		return (1);
	n = 0;
	for (i = 0; i < NCASES(cases); i++)
		t[n++] = (struct CMUnitTest){ cases[i].name, test_decide,
		    NULL, NULL, (void *)&cases[i] };
	for (i = 0; i < NCASES(extra); i++)
		t[n++] = extra[i];
	rc = _cmocka_run_group_tests("decide", t, n, NULL, NULL);
	free(t);
	return (rc);
}
