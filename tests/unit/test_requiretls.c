/*
 * test_requiretls.c - unit tests for the REQUIRETLS verdict: every level
 * a socketmap reply can set, read from the reply and judged
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "policy/requiretls.h"

static const struct {
	const char		*name;
	const char		*reply;		/* "STATUS data" */
	enum requiretls_level	 level;
	enum requiretls_verdict	 verdict;
} cases[] = {
	{ "dane-only: every host authenticated", "OK dane-only",
	    REQUIRETLS_LEVEL_DANE_ONLY, REQUIRETLS_YES },
	{ "dane: per host", "OK dane", REQUIRETLS_LEVEL_DANE,
	    REQUIRETLS_DEPENDS },
	{ "STS enforce: secure with match", "OK secure match=mx.example.com "
	    "servername=hostname policy_type=sts", REQUIRETLS_LEVEL_SECURE,
	    REQUIRETLS_YES },
	{ "a pin: verify", "OK verify", REQUIRETLS_LEVEL_VERIFY,
	    REQUIRETLS_YES },
	{ "a pin: fingerprint", "OK fingerprint match=AB:CD",
	    REQUIRETLS_LEVEL_FINGERPRINT, REQUIRETLS_YES },
	{ "unusable TLSA: encrypt", "OK encrypt", REQUIRETLS_LEVEL_ENCRYPT,
	    REQUIRETLS_NO },
	{ "testing_answer = may", "OK may policy_type=sts",
	    REQUIRETLS_LEVEL_MAY, REQUIRETLS_NO },
	{ "a pin: none", "OK none", REQUIRETLS_LEVEL_NONE, REQUIRETLS_NO },
	{ "no policy: NOTFOUND", "NOTFOUND", REQUIRETLS_LEVEL_NOTFOUND,
	    REQUIRETLS_NO },
	{ "DANE failure: TEMP", "TEMP DNSSEC lookup failed",
	    REQUIRETLS_LEVEL_TEMP, REQUIRETLS_NO },
	{ "TIMEOUT counts as TEMP", "TIMEOUT x", REQUIRETLS_LEVEL_TEMP,
	    REQUIRETLS_NO },
	{ "PERM", "PERM unknown map name", REQUIRETLS_LEVEL_OTHER,
	    REQUIRETLS_NO },
	{ "level in capitals, comma", "OK Secure,match=a",
	    REQUIRETLS_LEVEL_SECURE, REQUIRETLS_YES },
	{ "a longer word is no level", "OK dane-onlyx",
	    REQUIRETLS_LEVEL_OTHER, REQUIRETLS_NO },
	{ "a prefix is no level", "OK dan", REQUIRETLS_LEVEL_OTHER,
	    REQUIRETLS_NO },
	{ "OK without data", "OK", REQUIRETLS_LEVEL_OTHER, REQUIRETLS_NO },
	{ "garbage", "NOTFOUNDX", REQUIRETLS_LEVEL_OTHER, REQUIRETLS_NO },
};

/* table - each reply's level and verdict, and a reason for each */
static void
table(void **state)
{
	const char	*why;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum requiretls_level l = requiretls_level_of_reply(
		    cases[i].reply, strlen(cases[i].reply));

		print_message("%s\n", cases[i].name);
		assert_int_equal(l, cases[i].level);
		why = NULL;
		assert_int_equal(requiretls_verdict(l, &why),
		    cases[i].verdict);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
	}
}

/* not_nul_terminated - the level word ends at len, not at a NUL */
static void
not_nul_terminated(void **state)
{
	(void)state;
	assert_int_equal(requiretls_level_of(SOCKMAP_OK, "dane-onlyXX", 4),
	    REQUIRETLS_LEVEL_DANE);
	assert_int_equal(requiretls_level_of(SOCKMAP_OK, "dane-onlyXX", 9),
	    REQUIRETLS_LEVEL_DANE_ONLY);
	assert_int_equal(requiretls_level_of(SOCKMAP_NOTFOUND, NULL, 0),
	    REQUIRETLS_LEVEL_NOTFOUND);
}

/* reasons_named - the texts postsmtpsts-query prints */
static void
reasons_named(void **state)
{
	const char	*why;

	(void)state;
	assert_int_equal(requiretls_verdict(REQUIRETLS_LEVEL_DANE, &why),
	    REQUIRETLS_DEPENDS);
	assert_non_null(strstr(why, "only MX hosts with usable TLSA"));
	assert_int_equal(requiretls_verdict(REQUIRETLS_LEVEL_NOTFOUND, &why),
	    REQUIRETLS_NO);
	assert_non_null(strstr(why, "Postfix's default level (usually may) "
	    "authenticates nothing"));
	assert_int_equal(requiretls_verdict((enum requiretls_level)99, &why),
	    REQUIRETLS_NO);
	assert_string_equal(requiretls_verdict_name(REQUIRETLS_YES), "yes");
	assert_string_equal(requiretls_verdict_name(REQUIRETLS_NO), "no");
	assert_string_equal(requiretls_verdict_name(REQUIRETLS_DEPENDS),
	    "depends");
	assert_string_equal(requiretls_level_name(REQUIRETLS_LEVEL_DANE_ONLY),
	    "dane-only");
	assert_string_equal(requiretls_level_name(REQUIRETLS_LEVEL_NOTFOUND),
	    "notfound");
	assert_string_equal(requiretls_level_name((enum requiretls_level)99),
	    "other");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(not_nul_terminated),
		cmocka_unit_test(reasons_named),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
