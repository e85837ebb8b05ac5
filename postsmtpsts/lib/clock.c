/*
 * clock.c - the one clock of postsmtpsts
 *
 * Interface (clock.h): clock_wall() for Unix seconds, clock_ms(),
 * clock_us() and clock_mono() for the monotonic clock; clock_fake(),
 * clock_advance() and clock_real() let a test own time.  The fake state is
 * a process global, as the clock is: a test that fakes it is
 * single-threaded.  CLOCK_MONOTONIC and CLOCK_REALTIME cannot fail on
 * Linux with a valid pointer, so their result is not checked.
 */
#include "autoconf.h"

#include <stdint.h>
#include <time.h>

#include "lib/clock.h"

#define CLOCK_US_PER_S	1000000
#define CLOCK_NS_PER_US	1000

static int	 clock_faked;
static int64_t	 clock_fake_wall_us;	/* Unix time, microseconds */
static int64_t	 clock_fake_mono_us;

int64_t
clock_wall(void)
{
	struct timespec	 ts;

	if (clock_faked)
		return (clock_fake_wall_us / CLOCK_US_PER_S);
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec);
}

int64_t
clock_us(void)
{
	struct timespec	 ts;

	if (clock_faked)
		return (clock_fake_mono_us);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * CLOCK_US_PER_S +
	    ts.tv_nsec / CLOCK_NS_PER_US);
}

int64_t
clock_ms(void)
{
	return (clock_us() / 1000);
}

struct timespec
clock_mono(void)
{
	struct timespec	 ts;
	int64_t		 us;

	if (!clock_faked) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (ts);
	}
	us = clock_fake_mono_us;
	ts.tv_sec = (time_t)(us / CLOCK_US_PER_S);
	ts.tv_nsec = (long)(us % CLOCK_US_PER_S) * CLOCK_NS_PER_US;
	return (ts);
}

void
clock_fake(int64_t wall, int64_t mono_us)
{
	clock_faked = 1;
	clock_fake_wall_us = wall * CLOCK_US_PER_S;
	clock_fake_mono_us = mono_us;
}

void
clock_advance(int64_t ms)
{
	clock_fake_wall_us += ms * 1000;
	clock_fake_mono_us += ms * 1000;
}

void
clock_step(int64_t seconds)
{
	clock_fake_wall_us += seconds * CLOCK_US_PER_S;
}

void
clock_real(void)
{
	clock_faked = 0;
}
