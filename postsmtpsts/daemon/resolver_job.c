/*
 * resolver_job.c - the resolver's jobs: one discovery per domain at a time
 *
 * Interface (resolver_int.h): resolver_job_new() and _find() make and find
 * the job of a domain; resolver_job_run() starts it or queues it;
 * resolver_job_add() widens it to a part a joining request lacks;
 * resolver_job_wait() adds a worker connection to its waiters, and
 * resolver_job_leave() takes one out of all; resolver_job_free_all() at
 * the stop.  Jobs read and write the cache through resolver_store.c and
 * reply through resolver_reply.c.
 *
 * For each domain at most one discovery runs at a time (a "job"); every
 * worker connection that asks while it runs is added to its waiters and
 * gets the same reply.  At most max_resolutions discoveries run at once;
 * the rest wait in FIFO order and start as running ones finish.
 *
 * A job has two parts, run at the same time, each only if its cached
 * record is missing or stale:
 *   - MTA-STS: discover_start() (TXT, A/AAAA, HTTPS, parse), then
 *     facts_merge() with the cached record (no downgrade of an unexpired
 *     policy, RFC 8461 §10.2), stored under the domain;
 *   - DANE (when a map has dane = yes): dane_start() (MX, A/AAAA, TLSA),
 *     then facts_dane_merge(), stored under "dane:" + domain.
 * With a fleet (rfleet.h), the parts ask the fleet's records first and
 * discover only what it does not know.  When both parts are done the job
 * writes nothing more (the resolver is the only cache writer) and replies
 * with both records: facts, not an answer, so each worker answers with
 * its own map's options.  One log line per discovery and per DANE lookup,
 * key=value.  The records are written after the replies, several jobs' in
 * one commit (write-behind: resolver_store_many, at most
 * RESOLVER_WB_GAP_MS late).
 */
#include "autoconf.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domtab.h"
#include "policy/facts.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "daemon/resolver_int.h"
#include "daemon/rfleet.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"

static void	job_start(struct job *);

struct job *
resolver_job_find(struct resolver *r, const char *d, size_t len)
{
	struct domtab_node *n;

	if ((n = domtab_find(&r->jobs, d, len)) == NULL)
		return (NULL);
	return (DOMTAB_ENTRY(n, struct job, node));
}

/* waiter_free - unlink a waiter from its job and its connection */
static void
waiter_free(struct waiter *wt)
{
	TAILQ_REMOVE(&wt->job->waiters, wt, j_entry);
	TAILQ_REMOVE(&wt->rc->waiters, wt, r_entry);
	free(wt);
}

/*
 * job_store - write what the job learned, its MTA-STS and DANE records,
 * after the replies went out (job_finish), so that no lookup waits for
 * the disk.  The records go to the write-behind array (resolver_store_many)
 * and from there into the map with other jobs' records in one commit;
 * resolver_store_cached() reads the array first, so a later request for
 * the domain finds them either way.
 */
static void
job_store(struct job *j)
{
	struct resolver	*r = j->r;
	char		 key[CACHE_KEY_MAX + 1];
	const char	*keys[2];
	const struct cache_record *recs[2];
	size_t		 n = 0;

	if (j->store_sts) {
		keys[n] = j->node.domain;
		recs[n++] = &j->sts;
	}
	if (j->store_dane) {
		cache_dane_key(j->node.domain, j->node.len, key);
		keys[n] = key;
		recs[n++] = &j->dane;
	}
	j->store_sts = j->store_dane = 0;
	resolver_store_many(r, keys, recs, n);
}

/* job_free - forget a finished or cancelled job */
static void
job_free(struct job *j)
{
	struct resolver	*r = j->r;
	struct waiter	*wt;

	job_store(j);
	while ((wt = TAILQ_FIRST(&j->waiters)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		waiter_free(wt);
	domtab_remove(&r->jobs, &j->node);
	if (j->queued) {
		TAILQ_REMOVE(&r->queue, j, q_entry);
		r->nqueued--;
	}
	if (j->refresh)
		r->refreshing--;
	if (j->txtcheck)
		r->txtchecking--;
	discover_cancel(j->dv);
	dane_cancel(j->dn);
	rfleet_done(j->fleet);
	if (j->started)
		r->running--;
	resolver_store_idle_trim(r);
	cache_record_release(&j->old);

	cache_record_release(&j->old_dane);
	cache_record_release(&j->sts);
	cache_record_release(&j->dane);
	free(j);
}

/*
 * job_finish - both parts are done: reply to every waiter with the facts
 * known (a part the job did not run: the cached record, if fresh), free
 * the job, start a queued one
 */
static void
job_finish(struct job *j)
{
	struct resolver	*r = j->r;
	struct waiter	*wt;
	struct job	*next;
	size_t		 len = 0, dlen = 0;
	int		 status = IPC_STATUS_OK;

	/* a part the job did not run: what the cache holds, if fresh */
	if (!j->want_sts && !j->have_sts &&
	    resolver_store_cached(r, j->node.domain, j->node.len, 0, &j->sts) &&
	    cache_record_fresh(&j->sts, clock_wall()))
		j->have_sts = 1;
	if (!j->want_dane && !j->have_dane && r->cf->dane &&
	    resolver_store_cached(r, j->node.domain, j->node.len, 1,
	    &j->dane) &&
	    cache_record_fresh(&j->dane, clock_wall()))
		j->have_dane = 1;
	if (j->have_sts && cache_record_encode(&j->sts, r->rec,
	    sizeof(r->rec), &len) == -1) {
		log_warnx("domain=%s: cannot encode record", j->node.domain);
		status = IPC_STATUS_TEMP;
		len = 0;
	}
	if (j->have_dane && cache_record_encode(&j->dane, r->drec,
	    sizeof(r->drec), &dlen) == -1) {
		log_warnx("domain=%s: cannot encode DANE record",
		    j->node.domain);
		status = IPC_STATUS_TEMP;
		dlen = 0;
	}
	if (!j->have_sts && !j->have_dane)
		status = IPC_STATUS_TEMP;
	TAILQ_FOREACH(wt, &j->waiters, j_entry)
		resolver_reply_send(wt->rc, j->node.domain, j->node.len, status,
		    len > 0 ? r->rec : NULL, len, dlen > 0 ? r->drec : NULL,
		    dlen);
	job_free(j);
	while (r->running < r->cf->max_resolutions &&
	    (next = TAILQ_FIRST(&r->queue)) != NULL) {
		TAILQ_REMOVE(&r->queue, next, q_entry);
		next->queued = 0;
		r->nqueued--;
		job_start(next);
	}
}

/* job_id_changed - 1 if the discovery found another valid id than the
 * cached, unexpired STS policy's */
static int
job_id_changed(const struct job *j, const struct discover_result *res)
{
	return (j->have_old && j->old.kind == CACHE_KIND_STS &&
	    j->old.id[0] != '\0' && res->id != NULL &&
	    clock_wall() < j->old.expires_at &&
	    strcmp(res->id, j->old.id) != 0);
}

/* job_refresh_name - why the discovery ran, for the decision log:
 * "id-change" (whatever started it), "proactive", "txt-check", "request" */
static const char *
job_refresh_name(const struct job *j, const struct discover_result *res)
{
	if (job_id_changed(j, res))
		return ("id-change");
	if (j->refresh)
		return ("proactive");
	if (j->txtcheck)
		return ("txt-check");
	return ("request");
}

/* job_discovered - the discovery finished: merge, store, reply */
static void
job_discovered(const struct discover_result *res, void *arg)
{
	struct job	*j = arg;
	struct resolver	*r = j->r;
	struct cache_record *rec = &j->sts;
	char		 esc[LOG_ESCAPE_MAX * 4 + 8];
	int64_t		 now = clock_wall();
	int		 refused;

	j->dv = NULL;
	stats_discovery(res, j->refresh || j->txtcheck);
	refused = facts_downgrade_refused(j->have_old ? &j->old : NULL, res,
	    now);
	if (facts_merge(j->node.domain, j->have_old ? &j->old : NULL, res,
	    &r->cf->cache, now, rec) == 0)
		cache_record_copy(rec, &j->old);
	resolver_history_sts(j, res, rec, refused, job_refresh_name(j, res),
	    now);
	log_info("domain=%s refresh=%s%s%s discovery=%s%s%s txt_dnssec=%s id=%s "
	    "kind=%s mode=%d max_age=%u kept_cached=%s detail=\"%s\"",
	    j->node.domain, job_refresh_name(j, res),
	    job_id_changed(j, res) ? " old_id=" : "",
	    job_id_changed(j, res) ? j->old.id : "",
	    discover_outcome_name(res->outcome),
	    res->outcome == DISCOVER_FAILURE ? " failure=" : "",
	    res->outcome == DISCOVER_FAILURE ?
	    discover_failure_name(res->failure) : "",
	    dns_security_name(res->txt_security),
	    res->id != NULL ? res->id : "-",
	    rec->kind == CACHE_KIND_STS ? "sts" : "none", rec->sts_mode,
	    (unsigned)rec->max_age,
	    j->have_old && rec->fetched_at == j->old.fetched_at &&
	    rec->kind == CACHE_KIND_STS ? "yes" : "no",
	    log_escape(esc, sizeof(esc), res->detail, strlen(res->detail)));
	rfleet_push(r->rfleet, j->fleet, j->node.domain, rec);
	j->have_sts = 1;
	j->store_sts = 1;	/* job_store, once the replies are out */
	if (j->dn == NULL && !j->fleet_wait)
		job_finish(j);
}

/* job_dane_done - the DANE lookup finished: merge, store, maybe reply */
static void
job_dane_done(const struct dane_result *res, void *arg)
{
	struct job	*j = arg;
	struct resolver	*r = j->r;
	struct cache_record *rec = &j->dane;
	char		 key[CACHE_KEY_MAX + 1], esc[LOG_ESCAPE_MAX * 4 + 8];
	size_t		 i, ndane = 0;
	int64_t		 now;

	j->dn = NULL;
	/* by the domain's state: all -> dane-only, some -> dane,
	 * tls-required -> encrypt */
	stats_dane(res->state == DANE_ALL ? STATS_DANE_ONLY :
	    res->state == DANE_SOME ? STATS_DANE_DANE :
	    res->state == DANE_FAILURE ? STATS_DANE_FAILURE :
	    res->state == DANE_TLS ? STATS_DANE_ENCRYPT :
	    res->state == DANE_TLS_SOME ? STATS_DANE_TLS_SOME :
	    STATS_DANE_NONE);
	stats_dane_failures(res);
	for (i = 0; i < res->nhosts; i++)
		if (res->hosts[i].state == DANE_ALL)
			ndane++;
	log_info("domain=%s refresh=%s dane=%s mx_dnssec=%s mx_hosts=%zu "
	    "dane_hosts=%zu implicit_mx=%s ttl=%d detail=\"%s\"",
	    j->node.domain,
	    j->refresh ? "proactive" : "request", dane_state_name(res->state),
	    dns_security_name(res->mx_security), res->nhosts, ndane,
	    res->implicit_mx ? "yes" : "no", res->ttl,
	    log_escape(esc, sizeof(esc), res->detail, strlen(res->detail)));
	for (i = 0; i < res->nhosts; i++)
		log_debug(1, "domain=%s dane_host=%s state=%s addr_dnssec=%s "
		    "tlsa=%zu failed=%s%s%s why=\"%s\"", j->node.domain,
		    res->hosts[i].name, dane_state_name(res->hosts[i].state),
		    dns_security_name(res->hosts[i].addr_security),
		    res->hosts[i].ntlsa, dane_fail_name(res->hosts[i].fail),
		    res->hosts[i].fail != DANE_FAIL_NONE ? "/" : "",
		    res->hosts[i].fail == DANE_FAIL_NONE ? "" :
		    res->hosts[i].fail_rrtype == DNS_TYPE_A ? "A" :
		    res->hosts[i].fail_rrtype == DNS_TYPE_AAAA ? "AAAA" : "TLSA",
		    res->hosts[i].why);
	now = clock_wall();
	if (facts_dane_merge(j->have_old_dane ? &j->old_dane : NULL, res,
	    now, rec) == 0)
		cache_record_copy(rec, &j->old_dane);
	resolver_history_dane(j, rec, j->refresh ? "proactive" : "request",
	    now);
	cache_dane_key(j->node.domain, j->node.len, key);
	rfleet_push(r->rfleet, j->fleet, key, rec);
	j->have_dane = 1;
	j->store_dane = 1;	/* job_store, once the replies are out */
	if (j->dv == NULL && !j->fleet_wait)
		job_finish(j);
}

/* job_start_sts - run the MTA-STS part (known id: skip the fetch if
 * unchanged) */
static void
job_start_sts(struct job *j)
{
	struct resolver	*r = j->r;
	const char	*known = NULL;

	if (!j->have_old && !j->bypass &&
	    resolver_store_cached(r, j->node.domain, j->node.len, 0, &j->old))
		j->have_old = 1;
	if (!j->refresh && j->have_old && j->old.kind == CACHE_KIND_STS &&
	    clock_wall() < j->old.expires_at && j->old.id[0] != '\0')
		known = j->old.id;
	j->want_sts = 1;
	j->have_sts = 0;
	/* no DISCOVER_TLSRPT: nothing of it is cached (Postfix asks for the
	 * TLSRPT record itself), and it is a validated lookup per domain */
	j->dv = discover_start_flags(r->dns, r->https, j->node.domain, known,
	    0, job_discovered, j);
}

/* job_start_dane - run the DANE part */
static void
job_start_dane(struct job *j)
{
	j->want_dane = 1;
	j->have_dane = 0;
	if (!j->have_old_dane && !j->bypass &&
	    resolver_store_cached(j->r, j->node.domain, j->node.len, 1,
	    &j->old_dane))
		j->have_old_dane = 1;
	j->dn = dane_start(j->r->dns, j->node.domain, job_dane_done, j);
}

/*
 * job_fleet_done - the fleet's records are in (rfleet.h): what it gave is
 * in the cache already; discover the rest, or reply
 */
static void
job_fleet_done(void *arg, const struct rfleet_result *res)
{
	struct job	*j = arg;

	j->fleet_wait = 0;
	/* the cache may hold the fleet's newer record now: a part about to
	 * start merges with it (a part running keeps what it started with:
	 * its discovery merges with that, and rfleet_want's second round
	 * comes while it runs) */
	if (j->dv == NULL)
		j->have_old = 0;
	if (j->dn == NULL)
		j->have_old_dane = 0;
	if (res->have_sts && j->dv == NULL) {
		cache_record_copy(&j->sts, &res->sts);
		j->have_sts = 1;
		j->want_sts = 0;
	}
	if (res->have_dane && j->dn == NULL) {
		cache_record_copy(&j->dane, &res->dane);
		j->have_dane = 1;
		j->want_dane = 0;
	}
	if (j->want_sts && j->dv == NULL && !j->have_sts)
		job_start_sts(j);
	if (j->want_dane && j->dn == NULL && !j->have_dane)
		job_start_dane(j);
	if (j->dv == NULL && j->dn == NULL)
		job_finish(j);
}

/*
 * job_fleet_read - ask the fleet for these parts before discovering them:
 * the job's ticket (rfleet_want: again, if it reported already) or a new
 * one.  1 if the fleet will report (job_fleet_done), 0 to discover now
 * (no fleet, or it is down, or the job bypasses caches)
 */
static int
job_fleet_read(struct job *j, int sts, int dane)
{
	if (j->bypass)
		return (0);
	if (j->fleet != NULL)
		return (rfleet_want(j->fleet, sts, dane) == 0);
	j->fleet = rfleet_lookup(j->r->rfleet, j->node.domain, sts, dane,
	    j->refresh ? RFLEET_REFRESH : j->txtcheck ? RFLEET_TXTCHECK :
	    RFLEET_REQUEST, job_fleet_done, j);
	return (j->fleet != NULL);
}

/* job_start - run the parts the job wants: the fleet's records first */
static void
job_start(struct job *j)
{
	struct resolver	*r = j->r;

	r->running++;
	j->started = 1;
	if (!j->want_sts && !j->want_dane)
		j->want_sts = 1;	/* never a job that does nothing */
	if (job_fleet_read(j, j->want_sts, j->want_dane)) {
		j->fleet_wait = 1;	/* job_fleet_done starts the rest */
		return;
	}
	if (j->want_sts)
		job_start_sts(j);
	if (j->want_dane)
		job_start_dane(j);
}

void
resolver_job_add(struct job *j, int sts, int dane)
{
	sts = sts && !j->want_sts;
	dane = dane && !j->want_dane;
	if (!sts && !dane)
		return;
	j->want_sts |= sts;
	j->want_dane |= dane;
	if (!j->started)
		return;		/* job_start asks the fleet for them all */
	if (job_fleet_read(j, sts, dane)) {
		j->fleet_wait = 1;	/* job_fleet_done starts what the
					   fleet lacks */
		return;
	}
	if (sts)
		job_start_sts(j);
	if (dane)
		job_start_dane(j);
}

struct job *
resolver_job_new(struct resolver *r, const char *domain, size_t len,
    const struct cache_record *old)
{
	struct job	*j;

	j = xcalloc(1, sizeof(*j));
	j->r = r;
	TAILQ_INIT(&j->waiters);
	if (old != NULL) {
		cache_record_copy(&j->old, old);
		j->have_old = 1;
	}
	domtab_insert(&r->jobs, &j->node, domain, len);
	return (j);
}

void
resolver_job_wait(struct rconn *rc, struct job *j)
{
	struct waiter	*wt;

	TAILQ_FOREACH(wt, &j->waiters, j_entry)
		if (wt->rc == rc)
			return;		/* this worker already waits */
	wt = xcalloc(1, sizeof(*wt));
	wt->job = j;
	wt->rc = rc;
	TAILQ_INSERT_TAIL(&j->waiters, wt, j_entry);
	TAILQ_INSERT_TAIL(&rc->waiters, wt, r_entry);
}

void
resolver_job_run(struct job *j)
{
	struct resolver	*r = j->r;

	if (r->running < r->cf->max_resolutions)
		job_start(j);
	else {
		j->queued = 1;
		r->nqueued++;
		TAILQ_INSERT_TAIL(&r->queue, j, q_entry);
	}
}

void
resolver_job_leave(struct rconn *rc)
{
	struct waiter	*wt;

	while ((wt = TAILQ_FIRST(&rc->waiters)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		waiter_free(wt);	/* the job runs on: it fills the cache */
}

void
resolver_job_free_all(struct resolver *r, int keep)
{
	struct domtab_node *dn;
	struct job	*j;

	while ((dn = domtab_next(&r->jobs, NULL)) != NULL) {
		j = DOMTAB_ENTRY(dn, struct job, node);
		if (!keep)
			j->store_sts = j->store_dane = 0;
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		job_free(j);
	}
}
