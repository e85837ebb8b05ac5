/*
 * fake_event.c - virtual time for libevent timers (tests only)
 *
 * Interface: fake_event.h.  This file defines four of libevent's own
 * functions -- event_add, event_del, event_pending, event_free -- and
 * event_base_free.  Linked into the test program, they are found before
 * libevent's in the dynamic symbol lookup (the executable comes first,
 * and ld exports a definition a shared library also has), so they see
 * every call, ours and libevent's own calls through its PLT.  A pure
 * timer (fd -1, no EV_READ/EV_WRITE/EV_SIGNAL) added with a timeout goes
 * into a virtual list keyed by clock_us() (lib/clock.h); anything else is
 * forwarded to the real function, looked up once with
 * dlsym(RTLD_NEXT, name).  The real libevent never sees a virtual timer,
 * so its loop never waits for one: a virtual timer runs only from
 * fake_event_run_due(), when the test has moved the clock past it.
 *
 * Under ASan and valgrind nothing changes: neither interposes these
 * names, RTLD_NEXT from the executable reaches libevent, and the events
 * are still created and freed by libevent (event_new/event_free), so a
 * leaked or doubly freed event is reported as usual.  A timer's entry
 * here is removed by event_del/event_free/event_base_free; the list is
 * small (a handful of timers per test) and scanned linearly.
 *
 * Single-threaded, like the clock it reads.
 */
#include "autoconf.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "fake_event.h"

struct fake_timer {
	struct fake_timer *next;
	struct event	*ev;
	int64_t		 due;		/* clock_us() */
	int64_t		 interval;	/* us: EV_PERSIST re-arms */
	uint64_t	 seq;		/* ties run in the order added */
};

static struct fake_timer *fake_timers;
static uint64_t		 fake_seq;

static int	(*real_event_add)(struct event *, const struct timeval *);
static int	(*real_event_del)(struct event *);
static int	(*real_event_pending)(const struct event *, short,
		    struct timeval *);
static void	(*real_event_free)(struct event *);
static void	(*real_event_base_free)(struct event_base *);

/* fake_real - the libevent function name, or abort */
static void *
fake_real(const char *name)
{
	void	*p;

	if ((p = dlsym(RTLD_NEXT, name)) == NULL) {
		fprintf(stderr, "fake_event: no real %s: %s\n", name,
		    dlerror());
		abort();
	}
	return (p);
}

/* fake_init - find the real functions once */
static void
fake_init(void)
{
	if (real_event_add != NULL)
		return;
	*(void **)&real_event_add = fake_real("event_add");
	*(void **)&real_event_del = fake_real("event_del");
	*(void **)&real_event_pending = fake_real("event_pending");
	*(void **)&real_event_free = fake_real("event_free");
	*(void **)&real_event_base_free = fake_real("event_base_free");
}

/* fake_is_timer - a pure timer: no fd, no signal */
static int
fake_is_timer(const struct event *ev)
{
	return (event_get_fd(ev) == -1 && (event_get_events(ev) &
	    (EV_READ | EV_WRITE | EV_SIGNAL)) == 0);
}

/* fake_find - the entry of ev, and the link pointing to it */
static struct fake_timer *
fake_find(const struct event *ev, struct fake_timer ***linkp)
{
	struct fake_timer **l, *t;

	for (l = &fake_timers; (t = *l) != NULL; l = &t->next)
		if (t->ev == ev) {
			if (linkp != NULL)
				*linkp = l;
			return (t);
		}
	return (NULL);
}

/* fake_remove - forget ev's entry: 1 if it had one */
static int
fake_remove(const struct event *ev)
{
	struct fake_timer **l, *t;

	if ((t = fake_find(ev, &l)) == NULL)
		return (0);
	*l = t->next;
	free(t);
	return (1);
}

int
event_add(struct event *ev, const struct timeval *tv)
{
	struct fake_timer *t;

	fake_init();
	if (!fake_is_timer(ev) || tv == NULL) {
		(void)fake_remove(ev);
		return (real_event_add(ev, tv));
	}
	if ((t = fake_find(ev, NULL)) == NULL) {
		if ((t = calloc(1, sizeof(*t))) == NULL)
			return (-1);
		t->ev = ev;
		t->next = fake_timers;
		fake_timers = t;
	}
	t->interval = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
	t->due = clock_us() + t->interval;
	t->seq = fake_seq++;
	return (0);
}

int
event_del(struct event *ev)
{
	fake_init();
	if (fake_remove(ev))
		return (0);
	return (real_event_del(ev));
}

int
event_pending(const struct event *ev, short what, struct timeval *tv)
{
	struct fake_timer *t;

	fake_init();
	if ((t = fake_find(ev, NULL)) == NULL)
		return (real_event_pending(ev, what, tv));
	if (!(what & EV_TIMEOUT))
		return (0);
	if (tv != NULL) {
		/* libevent gives the absolute time; ours is clock_us's */
		tv->tv_sec = (time_t)(t->due / 1000000);
		tv->tv_usec = (suseconds_t)(t->due % 1000000);
	}
	return (EV_TIMEOUT);
}

void
event_free(struct event *ev)
{
	fake_init();
	(void)fake_remove(ev);
	real_event_free(ev);
}

void
event_base_free(struct event_base *base)
{
	struct fake_timer **l, *t;

	fake_init();
	/* timers of a base that is gone never run */
	for (l = &fake_timers; (t = *l) != NULL; )
		if (event_get_base(t->ev) == base) {
			*l = t->next;
			free(t);
		} else
			l = &t->next;
	real_event_base_free(base);
}

/* fake_first - the earliest entry (ties: the first added), or NULL */
static struct fake_timer *
fake_first(void)
{
	struct fake_timer *t, *best = NULL;

	for (t = fake_timers; t != NULL; t = t->next)
		if (best == NULL || t->due < best->due ||
		    (t->due == best->due && t->seq < best->seq))
			best = t;
	return (best);
}

int64_t
fake_event_next_us(void)
{
	struct fake_timer *t = fake_first();

	return (t != NULL ? t->due : -1);
}

int
fake_event_armed(void)
{
	struct fake_timer *t;
	int	 n = 0;

	for (t = fake_timers; t != NULL; t = t->next)
		n++;
	return (n);
}

int
fake_event_run_due(void)
{
	struct fake_timer *t;
	struct event	*ev;
	event_callback_fn cb;
	void		*arg;
	int		 n = 0;

	while ((t = fake_first()) != NULL && t->due <= clock_us()) {
		ev = t->ev;
		cb = event_get_callback(ev);
		arg = event_get_callback_arg(ev);
		if (event_get_events(ev) & EV_PERSIST) {
			t->due = clock_us() + t->interval;
			t->seq = fake_seq++;
		} else
			(void)fake_remove(ev);
		/* the callback may free ev: nothing of it is used after */
		cb(-1, EV_TIMEOUT, arg);
		n++;
	}
	return (n);
}

int
fake_event_turn(struct event_base *base)
{
	(void)event_base_loop(base, EVLOOP_NONBLOCK);
	return (fake_event_run_due());
}

void
fake_time_passes(int64_t ms, void (*idle)(void *), void *arg)
{
	int64_t		 target = clock_us() + ms * 1000, next, now;

	for (;;) {
		if (idle != NULL)
			idle(arg);
		(void)fake_event_run_due();
		next = fake_event_next_us();
		if (next < 0 || next > target)
			break;
		now = clock_us();
		if (next > now)
			clock_advance((next - now + 999) / 1000);
	}
	now = clock_us();
	if (target > now)
		clock_advance((target - now + 999) / 1000);
	if (idle != NULL)
		idle(arg);
	(void)fake_event_run_due();
}
