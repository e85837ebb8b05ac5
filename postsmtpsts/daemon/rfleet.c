/*
 * rfleet.c - the resolver's side of the fleet tier (interface: rfleet.h)
 *
 * Glue between the resolver's jobs, the local cache and lib/fleet.c.  The
 * rule for taking a record from elsewhere is fleet_facts_take() (policy/
 * fleet_facts.h), in both directions; this file only sequences reads,
 * leases, waits and writes.  Every wait is bounded: a GET or a write by
 * fleet.timeout (lib/fleet.c), a wait for another host's discovery by
 * fleet.lease_wait.
 */
#include "autoconf.h"

#include <sys/time.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/fleet.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/facts.h"
#include "policy/fleet_facts.h"
#include "daemon/rfleet.h"
#include "daemon/stats.h"

_Static_assert(FLEET_C_COUNT == STATS_FLEET_COUNT,
    "stats.h STATS_FLEET_COUNT must match enum fleet_counter");

struct rfleet {
	struct event_base *base;
	const struct config *cf;
	int		 shard;		/* the resolver's (resync walk) */
	struct cache	*cache;
	const struct cache_wb *wb;	/* the resolver's, read first */
	rfleet_store_fn	*store;
	void		*store_arg;
	struct fleet	*f;
	struct event	*resync_ev;
	int		 resync_active;
	int		 resync_inflight;
	size_t		 resync_offered;
	size_t		 resync_seen;	/* entries in this slice */
	int		 resync_stopped;	/* the slice ended early */
	char		 resync_after[CACHE_KEY_MAX + 1];
	size_t		 resync_afterlen;
};

struct rfleet_ticket {
	struct rfleet	*rf;
	rfleet_cb	*cb;
	void		*arg;
	char		 domain[DOMAIN_BUFSZ];
	enum rfleet_why	 why;
	int		 need_sts;	/* parts not yet satisfied */
	int		 need_dane;
	struct rfleet_result res;
	int		 gets;		/* GETs in flight */
	int		 refs;		/* fleet operations holding t */
	int		 lease_tried;
	int		 leased;
	int		 rechecked;	/* read again after the lease was won */
	int		 waiting;	/* another host holds the lease */
	int64_t		 wait_until;	/* monotonic ms */
	int		 delivered;
	int		 job_done;
	struct event	*timer;
};

struct rfleet_push {
	struct rfleet	*rf;
	struct rfleet_ticket *t;
	int		 resync;
	char		 key[CACHE_KEY_MAX + 1];
	struct cache_record rec;
};

static void	rfleet_step(struct rfleet_ticket *);

/* rfleet_count - lib/fleet.c's counters, into the shared stats */
static void
rfleet_count(enum fleet_counter c)
{
	stats_add((enum stats_id)(STATS_FLEET + (int)c), 1);
}

/* rfleet_ticket_release - drop one reference; free a finished ticket,
 * releasing its lease once nothing of the job is in flight */
static void
rfleet_ticket_release(struct rfleet_ticket *t)
{
	if (--t->refs > 0 || !t->job_done)
		return;
	if (t->leased)
		fleet_unlease(t->rf->f, t->domain);
	if (t->timer != NULL)
		event_free(t->timer);
	cache_record_release(&t->res.sts);
	cache_record_release(&t->res.dane);
	free(t);
}

/* rfleet_deliver - report to the job, once */
static void
rfleet_deliver(struct rfleet_ticket *t)
{
	if (t->delivered || t->job_done)
		return;
	t->delivered = 1;
	evtimer_del(t->timer);
	t->refs++;		/* the job may end inside cb */
	t->cb(t->arg, &t->res);
	rfleet_ticket_release(t);
}

/*
 * rfleet_offer - a record read from the fleet for key: take it into the
 * local cache if the gate lets it; 1 if it satisfies the job's part
 */
static int
rfleet_offer(struct rfleet_ticket *t, const char *key,
    const struct cache_record *rec, struct cache_record *out)
{
	struct rfleet	*rf = t->rf;
	struct cache_record have = { 0 };
	enum fleet_facts_why why;
	int64_t		 now = clock_wall();
	int		 held, taken;

	held = rf->cache != NULL && cache_wb_read(rf->wb, rf->cache, key,
	    strlen(key), &have) == CACHE_HIT;
	taken = fleet_facts_take(key, strlen(key), held ? &have : NULL, rec,
	    &rf->cf->cache, now, out, &why);
	cache_record_release(&have);
	if (!taken) {
		if (why == FLEET_FACTS_DOWNGRADE)
			log_warnx("fleet: key=%s refused: weaker than the "
			    "policy cached here (kind=%s mode=%s id=%s)", key,
			    cache_kind_name(rec->kind),
			    cache_sts_mode_name(rec->sts_mode), rec->id);
		else
			log_debug(1, "fleet: key=%s not taken: %s", key,
			    fleet_facts_why_name(why));
		return (0);
	}
	rf->store(rf->store_arg, key, out);
	log_debug(1, "fleet: key=%s taken kind=%s fetched_at=%lld", key,
	    cache_kind_name(out->kind), (long long)out->fetched_at);
	/* usable: fresh for a request, not due for a proactive refresh;
	 * for a TXT re-check, fresh and the check made (here or elsewhere) */
	switch (t->why) {
	case RFLEET_REFRESH:
		return (!cache_record_needs_refresh(out, now));
	case RFLEET_TXTCHECK:
		return (cache_record_fresh(out, now) &&
		    (out->kind != CACHE_KIND_STS || !facts_txt_due(out, now)));
	case RFLEET_REQUEST:
	default:
		return (cache_record_fresh(out, now));
	}
}

/* rfleet_get_done - one GET finished */
static void
rfleet_get_done(struct rfleet_ticket *t, int dane, enum fleet_status st,
    const struct cache_record *rec)
{
	char		 key[CACHE_KEY_MAX + 1];
	struct cache_record out = { 0 };

	t->gets--;
	if (!t->job_done && st == FLEET_HIT) {
		if (dane)
			cache_dane_key(t->domain, strlen(t->domain), key);
		else
			snprintf(key, sizeof(key), "%s", t->domain);
		if (rfleet_offer(t, key, rec, &out)) {
			if (dane) {
				t->need_dane = 0;
				t->res.have_dane = 1;
				cache_record_copy(&t->res.dane, &out);
			} else {
				t->need_sts = 0;
				t->res.have_sts = 1;
				cache_record_copy(&t->res.sts, &out);
			}
		}
	}
	cache_record_release(&out);
	if (!t->job_done && t->gets == 0)
		rfleet_step(t);
	/* this GET's reference kept t alive through rfleet_step */
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
	rfleet_ticket_release(t);
}

static void
rfleet_get_sts_cb(void *arg, enum fleet_status st,
    const struct cache_record *rec)
{
	rfleet_get_done(arg, 0, st, rec);
}

static void
rfleet_get_dane_cb(void *arg, enum fleet_status st,
    const struct cache_record *rec)
{
	rfleet_get_done(arg, 1, st, rec);
}

/* rfleet_read_parts - GET these parts; the number sent */
static int
rfleet_read_parts(struct rfleet_ticket *t, int sts, int dane)
{
	char		 key[CACHE_KEY_MAX + 1];
	int		 n = 0;

	if (sts && fleet_get(t->rf->f, t->domain, rfleet_get_sts_cb, t) == 0)
		n++;
	cache_dane_key(t->domain, strlen(t->domain), key);
	if (dane && fleet_get(t->rf->f, key, rfleet_get_dane_cb, t) == 0)
		n++;
	t->gets += n;
	t->refs += n;
	return (n);
}

/* rfleet_read - GET the parts still needed; the number sent */
static int
rfleet_read(struct rfleet_ticket *t)
{
	return (rfleet_read_parts(t, t->need_sts, t->need_dane));
}

/* rfleet_timer_cb - poll again while another host discovers */
static void
rfleet_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rfleet_ticket *t = arg;

	(void)fd;
	(void)what;
	if (rfleet_read(t) == 0)
		rfleet_deliver(t);	/* the fleet went down: our own */
}

/* rfleet_lease_cb - the lease answered */
static void
rfleet_lease_cb(void *arg, enum fleet_status st)
{
	struct rfleet_ticket *t = arg;

	if (!t->job_done) {
		if (st == FLEET_OK) {
			t->leased = 1;
			rfleet_step(t);		/* read again first */
		} else if (st == FLEET_HELD) {
			t->waiting = 1;
			t->wait_until = clock_ms() +
			    t->rf->cf->fleet.lease_wait_ms;
			log_debug(1, "domain=%s fleet: another host "
			    "discovers, waiting", t->domain);
			rfleet_step(t);
		} else
			rfleet_deliver(t);
	} else if (st == FLEET_OK)
		t->leased = 1;	/* released with the ticket */
	/* the lease's reference kept t alive through the calls above */
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
	rfleet_ticket_release(t);
}

enum rfleet_next
rfleet_next(const struct rfleet_state *s)
{
	if (!s->need)
		return (RFLEET_TAKEN);
	if (s->waiting)
		return (s->now_ms >= s->wait_until_ms ? RFLEET_GIVE_UP :
		    RFLEET_POLL);
	if (s->leased)
		return (s->rechecked ? RFLEET_DISCOVER : RFLEET_RECHECK);
	if (!s->lease_tried && s->writable)
		return (RFLEET_LEASE);
	return (RFLEET_DISCOVER);
}

const char *
rfleet_next_name(enum rfleet_next n)
{
	static const char *const names[RFLEET_NEXT_COUNT] = {
		"taken", "lease", "recheck", "discover", "poll", "give-up",
	};

	return ((unsigned)n < RFLEET_NEXT_COUNT ? names[n] : "?");
}

/* rfleet_step - after the reads: done, lease, read again, wait, or
 * discover here (the decision: rfleet_next) */
static void
rfleet_step(struct rfleet_ticket *t)
{
	struct timeval	 tv = { 0, RFLEET_POLL_MS * 1000 };
	struct rfleet_state s;

	memset(&s, 0, sizeof(s));
	s.need = t->need_sts || t->need_dane;
	s.writable = fleet_writable(t->rf->f);
	s.lease_tried = t->lease_tried;
	s.leased = t->leased;
	s.rechecked = t->rechecked;
	s.waiting = t->waiting;
	s.wait_until_ms = t->wait_until;
	s.now_ms = t->waiting ? clock_ms() : 0;
	switch (rfleet_next(&s)) {
	case RFLEET_TAKEN:
		if (t->rechecked)
			log_debug(1, "domain=%s fleet: written by another "
			    "host before our lease: taken", t->domain);
		rfleet_deliver(t);
		return;
	case RFLEET_POLL:
		evtimer_add(t->timer, &tv);
		return;
	case RFLEET_GIVE_UP:
		log_info("domain=%s fleet: no record after lease_wait: "
		    "discovering here", t->domain);
		rfleet_deliver(t);
		return;
	case RFLEET_RECHECK:
		/*
		 * Our read missed before the lease was ours: another host
		 * may have discovered, written and released its lease in
		 * between (it writes before it releases).  Read once more.
		 */
		t->rechecked = 1;
		if (rfleet_read(t) == 0)
			rfleet_deliver(t);	/* the fleet went down */
		return;
	case RFLEET_LEASE:
		t->lease_tried = 1;
		if (fleet_lease(t->rf->f, t->domain,
		    t->rf->cf->fleet.lease * 1000, rfleet_lease_cb, t) == 0) {
			t->refs++;
			return;
		}
		rfleet_deliver(t);
		return;
	case RFLEET_DISCOVER:
	default:
		rfleet_deliver(t);
		return;
	}
}

struct rfleet_ticket *
rfleet_lookup(struct rfleet *rf, const char *domain, int want_sts,
    int want_dane, enum rfleet_why why, rfleet_cb *cb, void *arg)
{
	struct rfleet_ticket *t;

	if (rf == NULL || !fleet_up(rf->f) || (!want_sts && !want_dane) ||
	    strlen(domain) >= DOMAIN_BUFSZ)
		return (NULL);
	t = xcalloc(1, sizeof(*t));
	t->rf = rf;
	t->cb = cb;
	t->arg = arg;
	snprintf(t->domain, sizeof(t->domain), "%s", domain);
	t->why = why;
	t->need_sts = want_sts;
	t->need_dane = want_dane;
	if ((t->timer = evtimer_new(rf->base, rfleet_timer_cb, t)) == NULL)
		fatalx("fleet: cannot create a timer");
	if (rfleet_read(t) == 0) {
		event_free(t->timer);
		free(t);
		return (NULL);
	}
	return (t);
}

int
rfleet_want(struct rfleet_ticket *t, int want_sts, int want_dane)
{
	if (t == NULL || t->job_done || !fleet_up(t->rf->f))
		return (-1);
	want_sts = want_sts && !t->need_sts;
	want_dane = want_dane && !t->need_dane;
	if (!t->delivered) {
		/*
		 * Still reading, leasing or waiting: the part joins the
		 * ticket's needs.  While GETs are out, read it now; a lease
		 * answer or a poll reads every need anyway.
		 */
		t->need_sts |= want_sts;
		t->need_dane |= want_dane;
		if (t->gets > 0)
			(void)rfleet_read_parts(t, want_sts, want_dane);
		return (0);
	}
	if (!want_sts && !want_dane)
		return (-1);
	/* reported already: a new round for these parts alone */
	t->delivered = 0;
	t->need_sts = want_sts;
	t->need_dane = want_dane;
	t->res.have_sts = t->res.have_dane = 0;
	t->waiting = 0;
	/* holding the lease: read once, then discover; else as new */
	t->rechecked = t->leased;
	if (!t->leased)
		t->lease_tried = 0;
	if (rfleet_read(t) == 0) {
		t->delivered = 1;
		return (-1);
	}
	log_debug(1, "domain=%s fleet: a part joined the job (%s%s): "
	    "reading the fleet first", t->domain, want_sts ? "sts" : "",
	    want_dane ? (want_sts ? ",dane" : "dane") : "");
	return (0);
}

void
rfleet_done(struct rfleet_ticket *t)
{
	if (t == NULL)
		return;
	t->job_done = 1;
	evtimer_del(t->timer);
	t->refs++;
	rfleet_ticket_release(t);
}

/* rfleet_push_merge - offer our record to the fleet's, through the gate */
static int
rfleet_push_merge(void *arg, const struct cache_record *cur,
    struct cache_record *out)
{
	struct rfleet_push *p = arg;

	return (fleet_facts_take(p->key, strlen(p->key), cur, &p->rec,
	    &p->rf->cf->cache, clock_wall(), out, NULL));
}

/* rfleet_push_done - the write finished (written or not) */
static void
rfleet_push_done(void *arg, enum fleet_status st)
{
	struct rfleet_push *p = arg;

	if (st != FLEET_OK && st != FLEET_UNCHANGED)
		log_debug(1, "fleet: key=%s write: %s", p->key,
		    fleet_status_name(st));
	if (p->resync)
		p->rf->resync_inflight--;
	if (p->t != NULL)
		rfleet_ticket_release(p->t);
	cache_record_release(&p->rec);
	free(p);
}

/* rfleet_push_one - start one write; 0 or -1 (not sent) */
static int
rfleet_push_one(struct rfleet *rf, struct rfleet_ticket *t, int resync,
    const char *key, const struct cache_record *rec)
{
	struct rfleet_push *p;

	if (rf == NULL || !fleet_writable(rf->f) || !fleet_up(rf->f) ||
	    strlen(key) > CACHE_KEY_MAX)
		return (-1);
	p = xcalloc(1, sizeof(*p));
	p->rf = rf;
	p->t = t;
	p->resync = resync;
	snprintf(p->key, sizeof(p->key), "%s", key);
	cache_record_copy(&p->rec, rec);
	if (fleet_update(rf->f, p->key, rfleet_push_merge, rfleet_push_done,
	    p) == -1) {
		cache_record_release(&p->rec);
		free(p);
		return (-1);
	}
	if (t != NULL)
		t->refs++;
	if (resync)
		rf->resync_inflight++;
	return (0);
}

void
rfleet_push(struct rfleet *rf, struct rfleet_ticket *t, const char *key,
    const struct cache_record *rec)
{
	(void)rfleet_push_one(rf, t, 0, key, rec);
}

/* rfleet_resync_entry - one local entry seen by the resync walk */
static int
rfleet_resync_entry(const char *key, size_t len,
    const struct cache_record *rec, void *arg)
{
	struct rfleet	*rf = arg;
	const char	*domain;
	size_t		 dlen;
	int		 dane;

	if (len > CACHE_KEY_MAX)
		return (0);
	memcpy(rf->resync_after, key, len);
	rf->resync_after[len] = '\0';
	rf->resync_afterlen = len;
	domain = cache_key_domain(key, len, &dlen, &dane);
	/* another resolver's domain: that resolver offers it */
	if (rec != NULL && ipc_shard(domain, dlen, rf->cf->resolvers) ==
	    rf->shard && cache_record_fresh(rec, clock_wall()) &&
	    rfleet_push_one(rf, NULL, 1, rf->resync_after, rec) == 0)
		rf->resync_offered++;
	if (++rf->resync_seen >= RFLEET_RESYNC_SLICE ||
	    rf->resync_inflight >= RFLEET_RESYNC_INFLIGHT) {
		rf->resync_stopped = 1;
		return (1);
	}
	return (0);
}

/* rfleet_resync_cb - push the next slice of the local cache */
static void
rfleet_resync_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rfleet	*rf = arg;
	struct timeval	 tv = { 0, 20000 };
	char		 after[CACHE_KEY_MAX + 1];
	size_t		 afterlen = rf->resync_afterlen;

	(void)fd;
	(void)what;
	if (!rf->resync_active || !fleet_up(rf->f))
		return;
	if (rf->resync_inflight < RFLEET_RESYNC_INFLIGHT) {
		memcpy(after, rf->resync_after, afterlen + 1);
		rf->resync_stopped = 0;
		rf->resync_seen = 0;
		if (cache_iterate_from(rf->cache, afterlen > 0 ? after : NULL,
		    afterlen, rfleet_resync_entry, rf) != CACHE_OK ||
		    !rf->resync_stopped) {
			log_info("fleet: resync done: %zu local records "
			    "offered to the fleet", rf->resync_offered);
			rf->resync_active = 0;
			return;
		}
	}
	evtimer_add(rf->resync_ev, &tv);
}

/* rfleet_state - the connection came up (resync) or went down */
static void
rfleet_state(void *arg, int up)
{
	struct rfleet	*rf = arg;
	struct timeval	 tv = { 0, 0 };

	if (!up || rf->cache == NULL || !fleet_writable(rf->f))
		return;
	rf->resync_active = 1;
	rf->resync_afterlen = 0;
	rf->resync_after[0] = '\0';
	rf->resync_offered = 0;
	evtimer_add(rf->resync_ev, &tv);
}

struct rfleet *
rfleet_new(struct event_base *base, const struct config *cf, int shard,
    struct cache *cache, const struct cache_wb *wb, rfleet_store_fn *store,
    void *store_arg)
{
	struct rfleet	*rf;
	const char	*what;
	size_t		 n;

	if (!cf->fleet.enabled)
		return (NULL);
	rf = xcalloc(1, sizeof(*rf));
	rf->base = base;
	rf->cf = cf;
	rf->shard = shard;
	rf->cache = cache;
	rf->wb = wb;
	rf->store = store;
	rf->store_arg = store_arg;
	if ((rf->resync_ev = evtimer_new(base, rfleet_resync_cb, rf)) == NULL)
		fatalx("fleet: cannot create a timer");
	rf->f = fleet_new(base, &cf->fleet);
	fleet_set_hooks(rf->f, rfleet_count, rfleet_state, rf);
	(void)config_fleet_list(&cf->fleet, &n, &what);
	log_info("fleet: %s=%zu, mode=%s, prefix=\"%s\", "
	    "timeout=%dms, records %s", what, n,
	    cf->fleet.mode == CONFIG_FLEET_READ_ONLY ? "read-only" :
	    "read-write", cf->fleet.prefix, cf->fleet.timeout_ms,
	    cf->fleet.key != NULL ? "signed (key_file)" : "unsigned");
	return (rf);
}

void
rfleet_free(struct rfleet *rf)
{
	if (rf == NULL)
		return;
	fleet_free(rf->f);
	event_free(rf->resync_ev);
	free(rf);
}
