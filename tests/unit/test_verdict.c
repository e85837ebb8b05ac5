/*
 * test_verdict.c - unit tests for the policy and result of a session in
 * postsmtpsts-tlsrpt (tlsrpt/verdict.c, through policy/facts.c)
 *
 * Table 1: cached records (MTA-STS, DANE) and a map's options go through
 * facts_decide() - the worker's own decision - and verdict_policy(): the
 * RFC 8460 policy type, the level and a policy failure.  Table 2: a
 * session's logged trust and failure under each level: the result type.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/sockmap.h"
#include "policy/dane.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/sts_policy.h"
#include "tlsrpt/verdict.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

enum { STS_NONE_CACHED, STS_ENFORCE, STS_TESTING, STS_RETIRED, NEGATIVE,
    NEGATIVE_FETCH, NEGATIVE_WEBPKI, NEGATIVE_INVALID, NEGATIVE_BOGUS };

struct pol_case {
	const char	*name;
	int		 sts;		/* the enum above */
	int		 dane;		/* -1: no DANE record, else state */
	int		 testing_may;	/* map testing_answer = may */
	int		 report;
	enum tlsrpt_policy_type type;
	enum verdict_level level;
	enum tlsrpt_result failure;
	const char	*answer;	/* decide()'s, as a cross-check */
};

static const struct pol_case pol_cases[] = {
	{ "STS enforce: sts, enforce", STS_ENFORCE, -1, 0, 1,
	    TLSRPT_POLICY_STS, VERDICT_LEVEL_STS_ENFORCE, TLSRPT_RESULT_NONE,
	    "secure" },
	{ "STS testing, notfound answer: sts, testing", STS_TESTING, -1, 0,
	    1, TLSRPT_POLICY_STS, VERDICT_LEVEL_STS_TESTING,
	    TLSRPT_RESULT_NONE, "notfound" },
	{ "STS testing, may answer: sts, testing", STS_TESTING, -1, 1, 1,
	    TLSRPT_POLICY_STS, VERDICT_LEVEL_STS_TESTING, TLSRPT_RESULT_NONE,
	    "may" },
	{ "STS mode none: no-policy-found", STS_RETIRED, -1, 0, 1,
	    TLSRPT_POLICY_NONE, VERDICT_LEVEL_NONE, TLSRPT_RESULT_NONE,
	    "notfound" },
	{ "no STS record (negative entry): no-policy-found", NEGATIVE,
	    DANE_NONE, 0, 1, TLSRPT_POLICY_NONE, VERDICT_LEVEL_NONE,
	    TLSRPT_RESULT_NONE, "notfound" },
	{ "policy host failing: sts, sts-policy-fetch-error", NEGATIVE_FETCH,
	    DANE_NONE, 0, 1, TLSRPT_POLICY_STS, VERDICT_LEVEL_NONE,
	    TLSRPT_RESULT_STS_FETCH, "notfound" },
	{ "policy host certificate: sts, sts-webpki-invalid", NEGATIVE_WEBPKI,
	    -1, 0, 1, TLSRPT_POLICY_STS, VERDICT_LEVEL_NONE,
	    TLSRPT_RESULT_STS_WEBPKI, "notfound" },
	{ "invalid policy: sts, sts-policy-invalid", NEGATIVE_INVALID, -1, 0,
	    1, TLSRPT_POLICY_STS, VERDICT_LEVEL_NONE,
	    TLSRPT_RESULT_STS_INVALID, "notfound" },
	{ "bogus TXT: sts, dnssec-invalid", NEGATIVE_BOGUS, -1, 0, 1,
	    TLSRPT_POLICY_STS, VERDICT_LEVEL_NONE, TLSRPT_RESULT_DNSSEC_INVALID,
	    "notfound" },
	{ "DANE all: tlsa, dane-only", NEGATIVE, DANE_ALL, 0, 1,
	    TLSRPT_POLICY_TLSA, VERDICT_LEVEL_DANE_ONLY, TLSRPT_RESULT_NONE,
	    "dane-only" },
	{ "DANE wins over STS enforce (RFC 8461 §2)", STS_ENFORCE, DANE_ALL, 0,
	    1, TLSRPT_POLICY_TLSA, VERDICT_LEVEL_DANE_ONLY, TLSRPT_RESULT_NONE,
	    "dane-only" },
	{ "DANE some: tlsa, dane", NEGATIVE, DANE_SOME, 0, 1,
	    TLSRPT_POLICY_TLSA, VERDICT_LEVEL_DANE, TLSRPT_RESULT_NONE,
	    "dane" },
	{ "TLSA records none usable: tlsa, encrypt", NEGATIVE, DANE_TLS, 0, 1,
	    TLSRPT_POLICY_TLSA, VERDICT_LEVEL_ENCRYPT, TLSRPT_RESULT_NONE,
	    "encrypt" },
	{ "unusable TLSA under STS enforce: STS answers", STS_ENFORCE,
	    DANE_TLS, 0, 1, TLSRPT_POLICY_STS, VERDICT_LEVEL_STS_ENFORCE,
	    TLSRPT_RESULT_NONE, "secure" },
	{ "DANE failure: temp, not reported", NEGATIVE, DANE_FAILURE, 0, 0,
	    TLSRPT_POLICY_NONE, VERDICT_LEVEL_NONE, TLSRPT_RESULT_NONE,
	    "temp" },
	{ "nothing cached: not reported", STS_NONE_CACHED, -1, 0, 0,
	    TLSRPT_POLICY_NONE, VERDICT_LEVEL_NONE, TLSRPT_RESULT_NONE,
	    "notfound" },
};

/* make_sts - the MTA-STS record of kind k */
static int
make_sts(int k, struct cache_record *r)
{
	cache_record_init(r);
	switch (k) {
	case STS_NONE_CACHED:
		return (0);
	case STS_ENFORCE:
	case STS_TESTING:
	case STS_RETIRED:
		r->kind = CACHE_KIND_STS;
		r->sts_mode = k == STS_ENFORCE ? CACHE_STS_ENFORCE :
		    k == STS_TESTING ? CACHE_STS_TESTING : CACHE_STS_NONE;
		r->max_age = 86400;
		assert_int_equal(cache_record_mx_add(r, "mx1.d.example", 13), 0);
		assert_int_equal(cache_record_mx_add(r, "*.m.d.example", 13), 0);
		return (1);
	default:
		r->kind = CACHE_KIND_NONE;
		r->last_error = k == NEGATIVE_FETCH ? DISCOVER_FAIL_FETCH :
		    k == NEGATIVE_WEBPKI ? DISCOVER_FAIL_WEBPKI :
		    k == NEGATIVE_INVALID ? DISCOVER_FAIL_POLICY_INVALID :
		    k == NEGATIVE_BOGUS ? DISCOVER_FAIL_DNS_BOGUS : 0;
		return (1);
	}
}

/* run_pol_case - one pol_cases row */
static void
run_pol_case(void **state)
{
	const struct pol_case *tc = *state;
	struct cache_record rec, dane;
	struct config_map map;
	struct sts_policy *pol = malloc(sizeof(*pol));
	struct decide_result res;
	struct verdict_policy vp;
	struct buf out;
	int	 have_rec;

	assert_non_null(pol);
	memset(&map, 0, sizeof(map));
	map.name = "postfix";
	map.dane = 1;
	map.testing_answer = tc->testing_may ? CONFIG_ANSWER_MAY :
	    CONFIG_ANSWER_NOTFOUND;
	have_rec = make_sts(tc->sts, &rec);
	cache_record_init(&dane);
	if (tc->dane >= 0) {
		dane.kind = CACHE_KIND_DANE;
		dane.dane = (uint8_t)tc->dane;
	}
	buf_init(&out, 100000);
	facts_decide("d.example", have_rec ? &rec : NULL,
	    tc->dane >= 0 ? &dane : NULL, NULL, &map, 1, pol, &out, &res);
	assert_string_equal(res.answer, tc->answer);
	verdict_policy(have_rec ? &rec : NULL, tc->dane >= 0 ? &dane : NULL,
	    &res, &vp);
	assert_int_equal(vp.report, tc->report);
	if (tc->report) {
		if (vp.type != tc->type)
			fail_msg("type %s, want %s",
			    tlsrpt_policy_type_name(vp.type),
			    tlsrpt_policy_type_name(tc->type));
		assert_int_equal(vp.level, tc->level);
		if (vp.failure != tc->failure)
			fail_msg("failure %s, want %s",
			    tlsrpt_result_name(vp.failure),
			    tlsrpt_result_name(tc->failure));
	}
	/* the canonical policy lines, map without tlsrpt: RFC 8460 §4.4 */
	if (tc->sts == STS_ENFORCE && tc->dane < 0) {
		assert_int_equal(pol->nlines, 5);
		assert_memory_equal(pol->text, "version: STSv1\nmode: enforce\n"
		    "mx: mx1.d.example\nmx: *.m.d.example\nmax_age: 86400\n",
		    pol->textlen);
		/* ... and no TLSRPT attribute in the reply */
		assert_null(memmem(out.data, out.len, "policy_type", 11));
	}
	buf_free(&out);
	cache_record_release(&rec);
	cache_record_release(&dane);
	free(pol);
}

struct ses_case {
	const char	*name;
	enum verdict_level level;
	enum tlsrpt_result failure;	/* of the policy */
	enum maillog_trust trust;
	enum tlsrpt_result logged;
	enum tlsrpt_result want;
};

static const struct ses_case ses_cases[] = {
	{ "enforce, Verified: success", VERDICT_LEVEL_STS_ENFORCE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_VERIFIED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NONE },
	{ "enforce, hostname mismatch logged", VERDICT_LEVEL_STS_ENFORCE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_UNTRUSTED,
	    TLSRPT_RESULT_HOST_MISMATCH, TLSRPT_RESULT_HOST_MISMATCH },
	{ "enforce, expired logged", VERDICT_LEVEL_STS_ENFORCE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_UNTRUSTED,
	    TLSRPT_RESULT_EXPIRED, TLSRPT_RESULT_EXPIRED },
	{ "enforce, no STARTTLS", VERDICT_LEVEL_STS_ENFORCE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_NONE, TLSRPT_RESULT_STARTTLS,
	    TLSRPT_RESULT_STARTTLS },
	{ "enforce, Trusted without a logged reason: host mismatch",
	    VERDICT_LEVEL_STS_ENFORCE, TLSRPT_RESULT_NONE,
	    MAILLOG_TRUST_TRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_HOST_MISMATCH },
	{ "enforce, Untrusted without a logged reason: not trusted",
	    VERDICT_LEVEL_STS_ENFORCE, TLSRPT_RESULT_NONE,
	    MAILLOG_TRUST_UNTRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NOT_TRUSTED },
	{ "testing, Trusted: success (Postfix checks no name at may)",
	    VERDICT_LEVEL_STS_TESTING, TLSRPT_RESULT_NONE,
	    MAILLOG_TRUST_TRUSTED, TLSRPT_RESULT_NONE, TLSRPT_RESULT_NONE },
	{ "testing, Untrusted: not trusted", VERDICT_LEVEL_STS_TESTING,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_UNTRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NOT_TRUSTED },
	{ "no policy, Anonymous: success", VERDICT_LEVEL_NONE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_ANONYMOUS, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NONE },
	{ "policy fetch failed, Trusted: sts-policy-fetch-error",
	    VERDICT_LEVEL_NONE, TLSRPT_RESULT_STS_FETCH,
	    MAILLOG_TRUST_TRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_STS_FETCH },
	{ "policy fetch failed, no STARTTLS: the logged failure",
	    VERDICT_LEVEL_NONE, TLSRPT_RESULT_STS_FETCH, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_STARTTLS, TLSRPT_RESULT_STARTTLS },
	{ "dane-only, Verified: success", VERDICT_LEVEL_DANE_ONLY,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_VERIFIED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NONE },
	{ "dane-only, no matching TLSA logged: certificate-not-trusted, as "
	    "Postfix's own TLSRPT event", VERDICT_LEVEL_DANE_ONLY,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_UNTRUSTED,
	    TLSRPT_RESULT_NOT_TRUSTED, TLSRPT_RESULT_NOT_TRUSTED },
	{ "dane-only, Untrusted, nothing logged: certificate-not-trusted",
	    VERDICT_LEVEL_DANE_ONLY, TLSRPT_RESULT_NONE,
	    MAILLOG_TRUST_UNTRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NOT_TRUSTED },
	{ "dane, a host without TLSA (Trusted): success", VERDICT_LEVEL_DANE,
	    TLSRPT_RESULT_NONE, MAILLOG_TRUST_TRUSTED, TLSRPT_RESULT_NONE,
	    TLSRPT_RESULT_NONE },
	{ "encrypt (TLSA none usable), Trusted: tlsa-invalid",
	    VERDICT_LEVEL_ENCRYPT, TLSRPT_RESULT_NONE, MAILLOG_TRUST_TRUSTED,
	    TLSRPT_RESULT_NONE, TLSRPT_RESULT_TLSA_INVALID },
};

/* run_ses_case - one ses_cases row */
static void
run_ses_case(void **state)
{
	const struct ses_case *tc = *state;
	struct verdict_policy vp;
	enum tlsrpt_result r;

	memset(&vp, 0, sizeof(vp));
	vp.report = 1;
	vp.level = tc->level;
	vp.failure = tc->failure;
	r = verdict_session(&vp, tc->trust, tc->logged);
	if (r != tc->want)
		fail_msg("%s, want %s", tlsrpt_result_name(r),
		    tlsrpt_result_name(tc->want));
}

/* pinned - a pinned domain is the operator's policy: not reported */
static void
pinned(void **state)
{
	struct decide_result res;
	struct verdict_policy vp;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.source = DECIDE_SOURCE_PIN;
	res.answer = "pin";
	verdict_policy(NULL, NULL, &res, &vp);
	assert_false(vp.report);
	assert_string_equal(verdict_level_name(VERDICT_LEVEL_ENCRYPT),
	    "encrypt");
}

/*
 * preload_answered - a domain the worker answered from a preload list's
 * enforce entry (no TXT record, or a discovery that failed): the
 * reporter decides as count.c does, without the list (RFC 8460 reports
 * what the recipient domain published, and a list's entry is not that):
 * no-policy-found, or the failed discovery's sts result type with no
 * policy-string - never an sts policy; a decision that names the list
 * (DECIDE_SOURCE_PRELOAD) is not reported at all, as a pin
 */
static void
preload_answered(void **state)
{
	static const char mx[] = "*.mx.d.example";
	const struct decide_preload pre = { 1, 1, mx, sizeof(mx) };
	struct cache_record rec;
	struct config_map map;
	struct sts_policy *pol = malloc(sizeof(*pol));
	struct decide_result res;
	struct verdict_policy vp;
	struct buf out;

	(void)state;
	assert_non_null(pol);
	memset(&map, 0, sizeof(map));
	map.name = "postfix";
	buf_init(&out, 100000);
	/* the worker: the list answers */
	make_sts(NEGATIVE, &rec);
	facts_decide("d.example", &rec, NULL, &pre, &map, 1, pol, &out, &res);
	assert_int_equal(res.source, DECIDE_SOURCE_PRELOAD);
	assert_string_equal(res.answer, "secure");
	verdict_policy(&rec, NULL, &res, &vp);
	assert_false(vp.report);
	/* the reporter (count_policy: no list): no-policy-found */
	buf_reset(&out);
	facts_decide("d.example", &rec, NULL, NULL, &map, 1, pol, &out, &res);
	verdict_policy(&rec, NULL, &res, &vp);
	assert_true(vp.report);
	assert_int_equal(vp.type, TLSRPT_POLICY_NONE);
	cache_record_release(&rec);
	/* a failed discovery: its result type, no policy-string */
	make_sts(NEGATIVE_FETCH, &rec);
	buf_reset(&out);
	facts_decide("d.example", &rec, NULL, NULL, &map, 1, pol, &out, &res);
	verdict_policy(&rec, NULL, &res, &vp);
	assert_true(vp.report);
	assert_int_equal(vp.type, TLSRPT_POLICY_STS);
	/* a failure: count.c gives no policy-string (only a policy that
	 * applied has one) */
	assert_int_equal(vp.failure, TLSRPT_RESULT_STS_FETCH);
	cache_record_release(&rec);
	buf_free(&out);
	free(pol);
}

int
main(void)
{
	struct CMUnitTest tests[nitems(pol_cases) + nitems(ses_cases) + 2];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(pol_cases); i++, n++) {
		tests[n].name = pol_cases[i].name;
		tests[n].test_func = run_pol_case;
		tests[n].initial_state = (void *)&pol_cases[i];
	}
	for (i = 0; i < nitems(ses_cases); i++, n++) {
		tests[n].name = ses_cases[i].name;
		tests[n].test_func = run_ses_case;
		tests[n].initial_state = (void *)&ses_cases[i];
	}
	tests[n].name = "pinned";
	tests[n].test_func = pinned;
	n++;
	tests[n].name = "preload_answered";
	tests[n].test_func = preload_answered;
	return (cmocka_run_group_tests_name("verdict", tests, NULL, NULL));
}
