/*
 * fake_event.h - virtual time for libevent timers (tests only)
 *
 * Linked into a test program, fake_event.c defines event_add(),
 * event_del(), event_pending() and event_free(): the program's own
 * definitions come before libevent's in the dynamic symbol lookup, for
 * our calls and for libevent's calls into itself alike.  A pure timer (no
 * fd, no signal: evtimer_new) added with a timeout is not handed to
 * libevent: it waits in a virtual list, due at clock_us() plus its
 * timeout (lib/clock.h, which the test fakes with clock_fake), and runs
 * only when the test lets time pass.  Every other event (sockets,
 * signals, a timer added without a timeout) goes to the real libevent
 * (dlsym(RTLD_NEXT)), so the loop still does real I/O.  unbound's
 * testcode/fake_event.c plays the same trick with its whole event layer;
 * here only the timers are fake.
 *
 * The clock must be faked (clock_fake) before the first timer is added.
 */
#ifndef FAKE_EVENT_H
#define FAKE_EVENT_H

#include <stdint.h>

struct event_base;

/* fake_event_next_us - when the earliest virtual timer is due (clock_us
 * time), or -1 if none is armed */
int64_t	fake_event_next_us(void);

/* fake_event_armed - virtual timers armed now */
int	fake_event_armed(void);

/*
 * fake_event_run_due - run, in due order (ties: the order they were
 * added), every virtual timer due by now, including those the callbacks
 * arm for now; one EV_PERSIST timer is re-armed for its interval.
 * Returns how many ran.
 */
int	fake_event_run_due(void);

/*
 * fake_event_turn - one turn of base: its real events without waiting
 * (EVLOOP_NONBLOCK), then the virtual timers due.  Returns the number of
 * timers run (real events are not counted: libevent does not say).
 */
int	fake_event_turn(struct event_base *base);

/*
 * fake_time_passes - move the clock ms milliseconds forward, step by
 * step: to each virtual timer due within them, whose callback runs at its
 * time (calling idle(arg) before each step, which should run the loop
 * until nothing is left to do now; may be NULL), then to the end.
 */
void	fake_time_passes(int64_t ms, void (*idle)(void *), void *arg);

#endif
