/*
 * test_harness.c - the test harness itself: how "make check" reports a
 * cmocka test that calls skip()
 *
 * cmocka prints a skipped test as "not ok N # SKIP name", which automake's
 * tap-driver.sh counts as a failure; tests/unit/tap-filter.sh (the unit
 * tests' LOG_COMPILER) makes it "ok N # SKIP name".  This program's one
 * test skips when TEST_HARNESS_SKIP=1 is in the environment and passes
 * otherwise, so that an ordinary "make check" has nothing skipped and
 * tests/ci/firsthour.sh can run
 *   TEST_HARNESS_SKIP=1 make check TESTS=tests/unit/test_harness
 * and require "SKIP: tests/unit/test_harness 1 ..." and no FAIL.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static void
skip_is_reported_as_skip(void **state)
{
	const char	*want = getenv("TEST_HARNESS_SKIP");

	(void)state;
	if (want != NULL && strcmp(want, "1") == 0)
		skip();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(skip_is_reported_as_skip),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
