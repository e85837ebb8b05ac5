/*
 * test_fleet_step.c - rfleet_next, what the resolver does after each read
 * of the fleet's records: taken, lease, read again once the lease is won,
 * wait for the holder, give up after lease_wait, or discover here
 *
 * Issue 15's double fetch: a host whose read missed, then won the lease
 * after another host had discovered, written and released, discovered a
 * second time.  A lease won now means "read again" (RFLEET_RECHECK), and
 * only a miss after that read means "discover".
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/rfleet.h"

#define T0	1000000		/* monotonic ms */

static void
next(void **state)
{
	static const struct {
		const char	*name;
		struct rfleet_state s;
		enum rfleet_next want;
	} t[] = {
		/* need, writable, lease_tried, leased, rechecked, waiting,
		 * now_ms, wait_until_ms */
		{ "first read gave everything",
		    { 0, 1, 0, 0, 0, 0, 0, 0 }, RFLEET_TAKEN },
		{ "first read missed: take the lease",
		    { 1, 1, 0, 0, 0, 0, 0, 0 }, RFLEET_LEASE },
		{ "read-only: never a lease, discover",
		    { 1, 0, 0, 0, 0, 0, 0, 0 }, RFLEET_DISCOVER },
		{ "lease won: read again before discovering",
		    { 1, 1, 1, 1, 0, 0, 0, 0 }, RFLEET_RECHECK },
		{ "lease won, the read again found it (written meanwhile)",
		    { 0, 1, 1, 1, 1, 0, 0, 0 }, RFLEET_TAKEN },
		{ "lease won, still missing after reading again: discover",
		    { 1, 1, 1, 1, 1, 0, 0, 0 }, RFLEET_DISCOVER },
		{ "lease failed (timeout, error): discover",
		    { 1, 1, 1, 0, 0, 0, 0, 0 }, RFLEET_DISCOVER },
		{ "held by another host: poll",
		    { 1, 1, 1, 0, 0, 1, T0, T0 + 10000 }, RFLEET_POLL },
		{ "held, a part still missing (DANE written, STS not yet)",
		    { 1, 1, 1, 0, 0, 1, T0 + 9999, T0 + 10000 }, RFLEET_POLL },
		{ "held, the holder's write arrived",
		    { 0, 1, 1, 0, 0, 1, T0 + 300, T0 + 10000 }, RFLEET_TAKEN },
		{ "held, arrived on the last poll",
		    { 0, 1, 1, 0, 0, 1, T0 + 10000, T0 + 10000 },
		    RFLEET_TAKEN },
		{ "held past lease_wait: give up into our own discovery",
		    { 1, 1, 1, 0, 0, 1, T0 + 10000, T0 + 10000 },
		    RFLEET_GIVE_UP },
	};
	size_t		 i;
	enum rfleet_next got;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		got = rfleet_next(&t[i].s);
		print_message("# %s: %s\n", t[i].name, rfleet_next_name(got));
		assert_string_equal(rfleet_next_name(got),
		    rfleet_next_name(t[i].want));
	}
}

/*
 * A ticket's whole walk, as rfleet.c drives it: the state after each step
 * feeds the next.  However the reads go, the walk ends (no loop without a
 * read or a wait in between) and discovers only when the last read since
 * the lease was won missed.
 */
static void
walk(void **state)
{
	static const struct {
		const char	*name;
		int		 writable;
		int		 reads[4];	/* need after each read */
		int		 lease;		/* 1 won, 0 held, -1 failed */
		enum rfleet_next end;
		int		 nreads;	/* reads done */
	} t[] = {
		{ "hit at once", 1, { 0 }, 1, RFLEET_TAKEN, 1 },
		{ "miss, lease, miss again: one discovery here", 1,
		    { 1, 1 }, 1, RFLEET_DISCOVER, 2 },
		{ "miss, lease, written meanwhile: no discovery", 1,
		    { 1, 0 }, 1, RFLEET_TAKEN, 2 },
		{ "miss, held, the holder writes on the third poll", 1,
		    { 1, 1, 1, 0 }, 0, RFLEET_TAKEN, 4 },
		{ "miss, lease failed: discover", 1, { 1 }, -1,
		    RFLEET_DISCOVER, 1 },
		{ "read-only miss: discover", 0, { 1 }, 1, RFLEET_DISCOVER,
		    1 },
	};
	struct rfleet_state s;
	enum rfleet_next n;
	size_t		 i;
	int		 r, steps;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("# %s\n", t[i].name);
		memset(&s, 0, sizeof(s));
		s.writable = t[i].writable;
		s.wait_until_ms = T0 + 10000;
		s.now_ms = T0;
		r = 0;
		s.need = t[i].reads[r++];
		for (steps = 0; steps < 16; steps++) {
			n = rfleet_next(&s);
			if (n == RFLEET_LEASE) {
				s.lease_tried = 1;
				s.leased = t[i].lease == 1;
				s.waiting = t[i].lease == 0;
				continue;
			}
			if (n == RFLEET_RECHECK) {
				s.rechecked = 1;
				s.need = t[i].reads[r++];
				continue;
			}
			if (n == RFLEET_POLL) {
				s.now_ms += 50;
				s.need = t[i].reads[r++];
				continue;
			}
			break;
		}
		assert_true(steps < 16);
		assert_string_equal(rfleet_next_name(n),
		    rfleet_next_name(t[i].end));
		assert_int_equal(r, t[i].nreads);
	}
}

static void
names(void **state)
{
	(void)state;
	assert_string_equal(rfleet_next_name(RFLEET_RECHECK), "recheck");
	assert_string_equal(rfleet_next_name(RFLEET_NEXT_COUNT), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(next),
		cmocka_unit_test(walk),
		cmocka_unit_test(names),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
