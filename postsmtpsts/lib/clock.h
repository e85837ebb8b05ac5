/*
 * clock.h - the one clock of postsmtpsts
 *
 * Every part of the daemon and the tools asks this module for the time:
 * wall-clock seconds for what is stored or compared with stored times
 * (cache and fleet records, policy expiry, OCSP dates), monotonic time for
 * what is measured or waited for (timeouts, gaps, restart backoff).  No
 * other file calls time(), gettimeofday() or clock_gettime(), so a test
 * can fix the time, or move it, for everything at once (clock_fake,
 * clock_advance): unbound's "time_passes" for our state machines.
 * libevent's own timers still run on libevent's clock.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_wall - Unix time in seconds */
int64_t		 clock_wall(void);

/* clock_ms, clock_us - monotonic time in milliseconds, microseconds (an
 * arbitrary origin: only differences mean anything) */
int64_t		 clock_ms(void);
int64_t		 clock_us(void);

/* clock_mono - monotonic time as a timespec (same origin as clock_us) */
struct timespec	 clock_mono(void);

/*
 * Tests only.  clock_fake - from now on the clock reads wall (Unix
 * seconds) and mono_us (monotonic microseconds) and moves only through
 * clock_advance(ms), which moves both; clock_real - the system's clocks
 * again.
 */
void		 clock_fake(int64_t wall, int64_t mono_us);
void		 clock_advance(int64_t ms);
void		 clock_real(void);
/* clock_step - (tests only, faked clock) the wall clock steps by seconds,
 * forward or back, as settimeofday(2) or an NTP step would move
 * CLOCK_REALTIME; the monotonic clock does not move */
void		 clock_step(int64_t seconds);

#endif
