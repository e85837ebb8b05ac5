/*
 * test_clock.c - unit tests for the one clock: the real clocks move
 * forward, a faked clock reads what it was set to and moves only by
 * clock_advance(), the wall and the monotonic reading together
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "lib/clock.h"

static void
real_clocks_move_forward(void **state)
{
	int64_t		 w0, us0, us1;
	struct timespec	 ts;
	struct timespec	 pause = { 0, 2000000 };	/* 2 ms */

	(void)state;
	clock_real();
	w0 = clock_wall();
	us0 = clock_us();
	nanosleep(&pause, NULL);
	us1 = clock_us();
	assert_true(w0 > 1700000000);		/* after 2023 */
	assert_true(us1 - us0 >= 2000);
	assert_true(us1 - us0 < 10 * 1000000);
	ts = clock_mono();
	assert_true((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 >= us1);
	assert_true(clock_ms() >= us1 / 1000);
}

static void
fake_clock_stands_still_until_advanced(void **state)
{
	struct timespec	 ts;

	(void)state;
	clock_fake(2000000000, 5000000);
	assert_int_equal(clock_wall(), 2000000000);
	assert_int_equal(clock_us(), 5000000);
	assert_int_equal(clock_ms(), 5000);
	assert_int_equal(clock_wall(), 2000000000);	/* still */
	clock_advance(1500);
	assert_int_equal(clock_wall(), 2000000001);	/* 1.5 s later */
	assert_int_equal(clock_ms(), 6500);
	ts = clock_mono();
	assert_int_equal(ts.tv_sec, 6);
	assert_int_equal(ts.tv_nsec, 500000000);
	clock_advance(500);
	assert_int_equal(clock_wall(), 2000000002);	/* whole seconds */
	clock_advance(86400 * 1000LL);
	assert_int_equal(clock_wall(), 2000086402);
	clock_real();
	assert_true(clock_wall() < 2000000000);		/* real again */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_clocks_move_forward),
		cmocka_unit_test(fake_clock_stands_still_until_advanced),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
