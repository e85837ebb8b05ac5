/*
 * resolver.c - the resolver process
 *
 * Requests arrive from front workers as ipc requests (one domain each).
 * For each domain at most one discovery runs at a time (a "job"); every
 * worker connection that asks while it runs is added to its waiters and
 * gets the same reply.  At most max_resolutions discoveries run at once;
 * the rest wait in FIFO order, at most RESOLVER_QUEUE_PER_SLOT times
 * max_resolutions of them: a
 * request beyond that is answered IPC_STATUS_TEMP at once (the worker
 * answers it like a deadline: deadline_answer), so a flood of distinct
 * names costs bounded memory and every queued name is reached within a
 * bounded time.
 *
 * Replies to a worker are sent without blocking.  When the worker's
 * socket is full (the worker is not reading), replies wait in a
 * per-connection queue of at most RESOLVER_MAX_OUTQ messages and
 * RESOLVER_MAX_OUTQ_BYTES bytes, flushed when the socket has room; a
 * reply that does not fit is dropped and counted (logged at most once a
 * minute with the totals): the waiting requests get their deadline
 * answer, and the result is in the cache for the next one.  A worker
 * that stops reading never stalls the resolver nor grows it.
 *
 * A job has two parts, run at the same time, each only if its cached
 * record is missing or stale:
 *   - MTA-STS: discover_start() (TXT, A/AAAA, HTTPS, parse), then
 *     facts_merge() with the cached record (no downgrade of an unexpired
 *     policy, RFC 8461 §10.2), stored under the domain;
 *   - DANE (when a map has dane = yes): dane_start() (MX, A/AAAA, TLSA),
 *     then facts_dane_merge(), stored under "dane:" + domain.
 * Fresh records are answered at once (a worker may ask because it could
 * not read the cache itself).  A request that joins a running job whose
 * missing part is not running (a proactive DANE refresh, say) starts that
 * part.  When both parts are done the job writes nothing more (the
 * resolver is the only cache writer) and replies with both records: facts,
 * not an answer, so each worker answers with its own map's options.  One
 * log line per discovery and per DANE lookup, key=value.  The records are
 * written after the replies, several jobs' in one commit (write-behind:
 * resolver_store_many, at most RESOLVER_WB_GAP_MS late).
 *
 * Proactive refresh (RFC 8461 §5.1: "senders SHOULD ... proactively
 * refresh"): every cache.refresh_interval seconds a pass walks the whole
 * cache in slices of RESOLVER_REFRESH_SLICE entries, RESOLVER_REFRESH_PAUSE_MS
 * apart (a cursor remembers where the last slice stopped, so a million
 * entries never block the loop for long), and starts a job without waiters
 * for each STS entry past its next_refresh (a DANE entry: a DANE-only job).
 * Such a job fetches without the known id, so a successful fetch extends
 * max_age; a failure keeps the policy and backs off (facts_merge).  At most
 * cache.refresh_concurrency refreshes run at once, leaving the other job slots
 * to requests; the walk stops at the limit and resumes there after
 * RESOLVER_REFRESH_BUSY_MS.
 * Entries expired for more than RESOLVER_EXPIRED_GRACE seconds are
 * deleted (negative entries included: they simply expire).
 *
 * TXT id re-check (facts.h): a worker that answered from a cached STS
 * record whose TXT check is due sends IPC_FLAG_TXTCHECK (once per domain
 * while it waits).  resolver_txtcheck() starts an MTA-STS job with the
 * cached id (single flight: joins a running job), so the same id only
 * moves the check time and a new id fetches; facts_merge() decides what
 * is kept.  The decision log then says refresh=txt-check, or
 * refresh=id-change with old_id and id when the id changed.
 *
 * SIGTERM: stop accepting, cancel discoveries, exit.  Workers reconnect to
 * the next resolver the master starts and ask again.
 *
 * resolver_main() is resolver_new() + child_run() + resolver_free(); the
 * scenario runner (tests/scenario) calls the first and the last on an
 * event base of its own, with dns.h, https.h and time faked.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/cache_wb.h"
#include "lib/config.h"
#include "daemon/child.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "lib/domtab.h"
#include "policy/facts.h"
#include "lib/https.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "daemon/resolver.h"
#include "daemon/rfleet.h"
#include "daemon/stats.h"
#include "daemon/sandbox.h"
#include "lib/xmalloc.h"

#define RESOLVER_BUCKETS	1024	/* power of two */
#define RESOLVER_TRIM_OUTQ	256	/* a queue this long ran dry: xtrim */
#define RESOLVER_WB_GAP_MS	20	/* cache commits at most this often */
#define RESOLVER_UNMAP_WRITES	512	/* cache writes between two
					   cache_unmap_pages() */

struct job;
struct rconn;

struct waiter {
	TAILQ_ENTRY(waiter) j_entry;	/* the job's waiters */
	TAILQ_ENTRY(waiter) r_entry;	/* the connection's waiters */
	struct job	*job;
	struct rconn	*rc;
};

struct job {
	struct domtab_node node;	/* the domain, in r->jobs */
	TAILQ_ENTRY(job) q_entry;	/* queued, not yet started */
	TAILQ_HEAD(, waiter) waiters;
	struct resolver	*r;
	struct discover	*dv;		/* the MTA-STS part, while it runs */
	struct dane	*dn;		/* the DANE part, while it runs */
	int		 queued;
	int		 started;	/* counted in r->running */
	int		 refresh;	/* proactive: fetch without known id */
	int		 txtcheck;	/* background TXT id re-check */
	int		 bypass;	/* IPC_FLAG_REFRESH: ignore the cache */
	int		 want_sts;	/* run the MTA-STS part */
	int		 want_dane;	/* run the DANE part */
	int		 have_old;
	struct cache_record old;
	int		 have_old_dane;
	struct cache_record old_dane;
	int		 have_sts;	/* sts holds the facts to reply */
	struct cache_record sts;
	int		 have_dane;	/* dane likewise */
	struct cache_record dane;
	int		 store_sts;	/* sts/dane still to be written */
	int		 store_dane;	/* (job_store) */
	struct rfleet_ticket *fleet;	/* the fleet's part (rfleet.h) */
	int		 fleet_wait;	/* waiting for the fleet's records */
};

/* A reply that did not fit into the worker's socket yet. */
struct rmsg {
	STAILQ_ENTRY(rmsg) entry;
	size_t		 len;
	unsigned char	 data[];
};

struct rconn {
	TAILQ_ENTRY(rconn) entry;
	TAILQ_HEAD(, waiter) waiters;
	struct resolver	*r;
	int		 fd;
	struct event	*ev;
	struct event	*ev_write;	/* armed while outq is not empty */
	STAILQ_HEAD(, rmsg) outq;
	size_t		 noutq;
	size_t		 outq_bytes;
	size_t		 outq_peak;	/* replies queued at most since empty */
};

struct resolver {
	struct event_base *base;
	const struct config *cf;
	struct dns	*dns;
	struct https	*https;
	struct cache	*cache;
	struct rfleet	*rfleet;	/* NULL: no fleet configured */
	int		 lfd;
	struct event	*ev_accept;	/* the listener is readable */
	struct event	*ev_accept_turn;	/* accept on the next turn */
	struct event	*ev_refresh;
	int		 refreshing;	/* refresh jobs not yet finished */
	char		 cursor[CACHE_KEY_MAX + 1];	/* last key walked */
	size_t		 cursor_len;	/* 0: start from the first key */
	int		 walked;	/* entries seen in this tick */
	int		 walk_full;	/* stopped at the refresh limit */
	size_t		 pass_entries;	/* this pass so far, for the log */
	size_t		 pass_started;
	struct timespec	 pass_t0;
	int		 ndead;
	char		 (*dead)[CACHE_KEY_MAX + 1];	/* to delete after the
							   walk */
	TAILQ_HEAD(, rconn) rconns;
	int		 nrconns;
	struct domtab	 jobs;		/* struct job by domain */
	TAILQ_HEAD(, job) queue;
	int		 nqueued;
	int		 running;
	time_t		 last_write_error;
	int		 writes;	/* since the last cache_unmap_pages */
	struct cache_wb	 wb;		/* learned, not yet committed */
	struct event	*ev_wb;		/* commits what wb holds */
	struct timespec	 wb_last;	/* the last commit (monotonic) */
	unsigned long long dropped;	/* replies a full worker lost */
	unsigned long long refused;	/* requests over the queue bound */
	time_t		 last_drop_log;
	time_t		 last_refuse_log;
	unsigned char	 msg[IPC_MAX_MSG];
	unsigned char	 rec[IPC_MAX_RECORD];
	unsigned char	 drec[IPC_MAX_RECORD];
	struct cache_record scratch;	/* a cache read looked at and left */
	struct cache_record scratch_d;	/* its DANE part */
};

static void	job_start(struct job *);
static void	resolver_store(struct resolver *, const char *,
		    const struct cache_record *);
static void	resolver_store_many(struct resolver *, const char *const *,
		    const struct cache_record *const *, size_t);
static void	resolver_stored(void *, const char *, int);
static void	resolver_wb_flush(struct resolver *);

/* resolver_cached - the cached MTA-STS (dane 0) or DANE (dane 1) record of
 * a domain into *rec: 1 if there is one, 0 if not */
static int
resolver_cached(struct resolver *r, const char *domain, size_t len,
    int dane, struct cache_record *rec)
{
	char	 key[CACHE_KEY_MAX + 1];

	if (r->cache == NULL)
		return (0);
	if (dane) {
		len = cache_dane_key(domain, len, key);
		domain = key;
	}
	/* a record learned and not yet committed is the newest */
	if (cache_wb_read(&r->wb, r->cache, domain, len, rec) != CACHE_HIT)
		return (0);
	/* a record of the other part under a key is damage: ignore it */
	return (dane ? rec->kind == CACHE_KIND_DANE :
	    rec->kind != CACHE_KIND_DANE);
}

/* resolver_fresh - 1 if the cached record of that part may be used now */
static int
resolver_fresh(struct resolver *r, const char *domain, size_t len, int dane)
{
	return (resolver_cached(r, domain, len, dane, &r->scratch) &&
	    cache_record_fresh(&r->scratch, clock_wall()));
}

/* job_find - the job for a domain, or NULL */
static struct job *
job_find(struct resolver *r, const char *d, size_t len)
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
 * rconn_enqueue - keep a reply until the worker's socket has room, or drop
 * it when the connection's queue is full
 */
static void
rconn_enqueue(struct rconn *rc, const char *domain, const unsigned char *msg,
    size_t len)
{
	struct resolver	*r = rc->r;
	struct rmsg	*m;
	time_t		 now;

	if (rc->noutq >= RESOLVER_MAX_OUTQ ||
	    len > RESOLVER_MAX_OUTQ_BYTES - rc->outq_bytes) {
		r->dropped++;
		now = clock_wall();
		if (now - r->last_drop_log >= 60) {
			log_warnx("worker not reading: reply for %s dropped "
			    "(queue %zu replies, %zu bytes; "
			    "replies_dropped=%llu)", domain, rc->noutq,
			    rc->outq_bytes, r->dropped);
			r->last_drop_log = now;
		}
		return;
	}
	m = xmalloc(sizeof(*m) + len);
	m->len = len;
	memcpy(m->data, msg, len);
	STAILQ_INSERT_TAIL(&rc->outq, m, entry);
	rc->noutq++;
	rc->outq_bytes += len;
	if (rc->noutq > rc->outq_peak)
		rc->outq_peak = rc->noutq;
	if (rc->noutq == 1)
		event_add(rc->ev_write, NULL);
}

/* rconn_outq_empty - the queue ran dry: after a big one, give the memory
 * back (xtrim) */
static void
rconn_outq_empty(struct rconn *rc)
{
	if (rc->outq_peak >= RESOLVER_TRIM_OUTQ)
		xtrim();
	rc->outq_peak = 0;
}

/* rconn_outq_clear - forget every queued reply */
static void
rconn_outq_clear(struct rconn *rc)
{
	struct rmsg	*m;

	while ((m = STAILQ_FIRST(&rc->outq)) != NULL) {
		STAILQ_REMOVE_HEAD(&rc->outq, entry);
		free(m);
	}
	rc->noutq = 0;
	rc->outq_bytes = 0;
	rconn_outq_empty(rc);
}

/* rconn_write_cb - the worker's socket has room: send what is queued */
static void
rconn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rconn	*rc = arg;
	struct rmsg	*m;

	(void)what;
	while ((m = STAILQ_FIRST(&rc->outq)) != NULL) {
		if (send(fd, m->data, m->len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
		    -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS || errno == EINTR) {
				event_add(rc->ev_write, NULL);
				return;
			}
			/* the worker is gone: its EOF frees the connection;
			 * until then, nothing queued can be delivered */
			log_warn("send queued reply to a worker");
			rconn_outq_clear(rc);
			return;
		}
		STAILQ_REMOVE_HEAD(&rc->outq, entry);
		rc->noutq--;
		rc->outq_bytes -= m->len;
		free(m);
	}
	rconn_outq_empty(rc);
}

/* resolver_send - one reply to one worker connection, never blocking */
static void
resolver_send(struct rconn *rc, const char *domain, size_t len,
    int status, const unsigned char *rec, size_t rec_len,
    const unsigned char *drec, size_t drec_len)
{
	struct resolver	*r = rc->r;
	struct ipc_reply rep;
	long		 n;

	memset(&rep, 0, sizeof(rep));
	rep.status = (uint8_t)status;
	memcpy(rep.domain, domain, len);
	rep.domain_len = len;
	rep.record = rec;
	rep.record_len = rec_len;
	rep.dane = drec;
	rep.dane_len = drec_len;
	if ((n = ipc_reply_encode(&rep, r->msg, sizeof(r->msg))) == -1)
		panic("resolver_send: cannot encode reply for %s", domain);
	if (STAILQ_EMPTY(&rc->outq)) {
		if (send(rc->fd, r->msg, (size_t)n, MSG_DONTWAIT |
		    MSG_NOSIGNAL) != -1)
			return;
		if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ENOBUFS && errno != EINTR) {
			/* the worker is gone: its EOF frees the connection */
			log_warn("send reply for %s to a worker", domain);
			return;
		}
	}
	rconn_enqueue(rc, domain, r->msg, (size_t)n);
}

/*
 * resolver_wrote - n more cache writes: now and then, drop the resolver's
 * mappings of the cache file's pages (cache_unmap_pages): each write reads
 * its path of the B-tree through the map, so the resolver's RSS would
 * otherwise grow with the number of domains ever written (bench/peer -M:
 * +3.5 MiB of file pages from 1,000 to 10,000 domains), although those
 * pages are the shared page cache the workers read, not its own memory
 */
static void
resolver_wrote(struct resolver *r, int n)
{
	r->writes += n;
	if (r->writes < RESOLVER_UNMAP_WRITES)
		return;
	r->writes = 0;
	(void)cache_unmap_pages(r->cache);
}

/*
 * job_store - write what the job learned, its MTA-STS and DANE records,
 * after the replies went out (job_finish), so that no lookup waits for
 * the disk.  The records go to the write-behind array (resolver_store_many)
 * and from there into the map with other jobs' records in one commit;
 * resolver_cached() reads the array first, so a later request for the
 * domain finds them either way.
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
	discover_cancel(j->dv);
	dane_cancel(j->dn);
	rfleet_done(j->fleet);
	if (j->started)
		r->running--;
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
	    resolver_cached(r, j->node.domain, j->node.len, 0, &j->sts) &&
	    cache_record_fresh(&j->sts, clock_wall()))
		j->have_sts = 1;
	if (!j->want_dane && !j->have_dane && r->cf->dane &&
	    resolver_cached(r, j->node.domain, j->node.len, 1, &j->dane) &&
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
		resolver_send(wt->rc, j->node.domain, j->node.len, status,
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

/* resolver_evicted - count what a write's eviction removed */
static void
resolver_evicted(const struct cache_evict_stats *es)
{
	int	 i;

	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		stats_add((enum stats_id)(STATS_CACHE_EVICTED + i),
		    (uint64_t)es->evicted[i]);
}

/* resolver_stored - how the write of a key went (cache_wb_done_fn): log a
 * failed write at most once a minute */
static void
resolver_stored(void *arg, const char *key, int st)
{
	struct resolver	*r = arg;
	time_t		 now;

	if (st == CACHE_OK)
		return;
	stats_inc(STATS_CACHE_WRITE_ERRORS);
	now = clock_wall();
	if (now - r->last_write_error >= 60) {
		log_warnx("cache write for %s failed (disk full?): answers "
		    "still served, not stored; further errors suppressed for "
		    "a minute", key);
		r->last_write_error = now;
	}
}

/* resolver_wb_flush - commit what r->wb holds, in one transaction */
static void
resolver_wb_flush(struct resolver *r)
{
	struct cache_evict_stats es;
	size_t		 n;

	if (r->ev_wb != NULL)
		event_del(r->ev_wb);
	if (r->cache == NULL || (n = cache_wb_count(&r->wb)) == 0)
		return;
	(void)cache_wb_flush(&r->wb, r->cache, clock_wall(), &es,
	    resolver_stored, r);
	resolver_evicted(&es);
	r->wb_last = clock_mono();
	resolver_wrote(r, (int)n);
}

/* resolver_wb_cb - the gap since the last commit is over */
static void
resolver_wb_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	resolver_wb_flush(arg);
}

/*
 * resolver_store_many - write n records.  They are held in r->wb and
 * committed together: at once if the last commit is RESOLVER_WB_GAP_MS
 * old (a lone lookup is written as soon as it is answered), else when the
 * gap is over or CACHE_WB_MAX records are held.  Under load that is one
 * fdatasync per gap instead of one per domain; what a crash can lose is
 * what was learned in the last gap, and resolver_cached() reads r->wb
 * first, so nothing is learned twice meanwhile.
 */
static void
resolver_store_many(struct resolver *r, const char *const *keys,
    const struct cache_record *const *recs, size_t n)
{
	struct timespec	 t;
	struct timeval	 tv;
	long		 ms;
	size_t		 i;

	if (r->cache == NULL || n == 0)
		return;
	/* the array is committed as soon as it is full, so it has room for
	 * every put: one fails only for a key over CACHE_KEY_MAX */
	for (i = 0; i < n; i++)
		if (cache_wb_put(&r->wb, keys[i], recs[i]) == 0)
			resolver_stored(r, keys[i], CACHE_ERROR);
		else if (cache_wb_count(&r->wb) == CACHE_WB_MAX)
			resolver_wb_flush(r);
	if (cache_wb_count(&r->wb) == 0 || evtimer_pending(r->ev_wb, NULL))
		return;		/* nothing held, or the gap's commit is due */
	t = clock_mono();
	ms = (long)(t.tv_sec - r->wb_last.tv_sec) * 1000 +
	    (t.tv_nsec - r->wb_last.tv_nsec) / 1000000;
	if (ms < 0 || ms >= RESOLVER_WB_GAP_MS)
		resolver_wb_flush(r);
	else {
		tv.tv_sec = 0;
		tv.tv_usec = (RESOLVER_WB_GAP_MS - ms) * 1000;
		evtimer_add(r->ev_wb, &tv);
	}
}

/* resolver_store - write one record */
static void
resolver_store(struct resolver *r, const char *domain,
    const struct cache_record *rec)
{
	resolver_store_many(r, &domain, &rec, 1);
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

/* resolver_fleet_store - a record taken from the fleet (rfleet.h) */
static void
resolver_fleet_store(void *arg, const char *key,
    const struct cache_record *rec)
{
	resolver_store(arg, key, rec);
}

/* job_discovered - the discovery finished: merge, store, reply */
static void
job_discovered(const struct discover_result *res, void *arg)
{
	struct job	*j = arg;
	struct resolver	*r = j->r;
	struct cache_record *rec = &j->sts;
	char		 esc[LOG_ESCAPE_MAX * 4 + 8];

	j->dv = NULL;
	stats_discovery(res, j->refresh || j->txtcheck);
	if (facts_merge(j->node.domain, j->have_old ? &j->old : NULL, res,
	    &r->cf->cache, clock_wall(), rec) == 0)
		cache_record_copy(rec, &j->old);
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
	if (facts_dane_merge(j->have_old_dane ? &j->old_dane : NULL, res,
	    clock_wall(), rec) == 0)
		cache_record_copy(rec, &j->old_dane);
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
	    resolver_cached(r, j->node.domain, j->node.len, 0, &j->old))
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
	    resolver_cached(j->r, j->node.domain, j->node.len, 1, &j->old_dane))
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

/*
 * job_add - a queued or running job must also cover these parts (a
 * request joined it).  A part added to a running job goes through the
 * fleet first, as the job's own parts did (rfleet_want): otherwise it
 * would be discovered here although another host knows it.
 */
static void
job_add(struct job *j, int sts, int dane)
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

/* job_new - a job for domain, hashed, not started */
static struct job *
job_new(struct resolver *r, const char *domain, size_t len,
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

/* resolver_walk_cb - one cache entry seen by the refresh walk */
static int
resolver_walk_cb(const char *key, size_t klen,
    const struct cache_record *rec, void *arg)
{
	struct resolver	*r = arg;
	struct job	*j;
	const char	*domain;
	size_t		 len;
	int64_t		 now = clock_wall();
	int		 dane, due;

	domain = cache_key_domain(key, klen, &len, &dane);
	due = rec != NULL && (dane ? rec->kind == CACHE_KIND_DANE &&
	    r->cf->dane : rec->kind == CACHE_KIND_STS) &&
	    now < rec->expires_at && now >= rec->next_refresh;
	if (due && len > 0 && len <= DOMAIN_MAX_LEN &&
	    job_find(r, domain, len) == NULL) {
		if (r->refreshing >= r->cf->cache.refresh_concurrency ||
		    r->running >= r->cf->max_resolutions) {
			r->walk_full = 1;
			log_debug(1, "refresh walk: %d refreshes, %d jobs "
			    "running: resuming at %s later", r->refreshing,
			    r->running, key);
			return (1);	/* resume here next tick */
		}
		if (dane) {
			j = job_new(r, domain, len, NULL);
			cache_record_copy(&j->old_dane, rec);
			j->have_old_dane = 1;
			j->want_dane = 1;
		} else {
			j = job_new(r, domain, len, rec);
			j->want_sts = 1;
		}
		j->refresh = 1;
		r->refreshing++;
		log_debug(1, "key=%s refresh=start next_refresh=%lld "
		    "expires_at=%lld", key, (long long)rec->next_refresh,
		    (long long)rec->expires_at);
		r->pass_started++;
		stats_inc(STATS_REFRESHES);
		job_start(j);
	} else if (rec != NULL && now - rec->expires_at >
	    RESOLVER_EXPIRED_GRACE && job_find(r, domain, len) == NULL)
		memcpy(r->dead[r->ndead++], key, klen + 1);
	memcpy(r->cursor, key, klen);
	r->cursor_len = klen;
	return (++r->walked >= RESOLVER_REFRESH_SLICE);
}

/* resolver_refresh_arm - schedule the next slice in ms milliseconds */
static void
resolver_refresh_arm(struct resolver *r, long ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	event_add(r->ev_refresh, &tv);
}

/* resolver_refresh_cb - walk the next slice of the cache */
static void
resolver_refresh_cb(evutil_socket_t fd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct timespec	 t1;
	int		 i, ndel = 0, done = 0;

	(void)fd;
	(void)what;
	/* the walk and its deletions see the map: commit what is held */
	resolver_wb_flush(r);
	if (r->cursor_len == 0) {
		r->pass_entries = 0;
		r->pass_started = 0;
		r->pass_t0 = clock_mono();
	}
	r->walked = 0;
	r->walk_full = 0;
	r->ndead = 0;
	if (cache_iterate_from(r->cache, r->cursor_len > 0 ? r->cursor : NULL,
	    r->cursor_len, resolver_walk_cb, r) != CACHE_OK ||
	    (!r->walk_full && r->walked < RESOLVER_REFRESH_SLICE))
		done = 1;	/* reached the end (or failed): pass over */
	r->pass_entries += (size_t)r->walked;
	if (r->ndead > 0 && cache_txn_begin(r->cache) == CACHE_OK) {
		for (i = 0; i < r->ndead; i++)
			if (cache_del(r->cache, r->dead[i]) == CACHE_OK)
				ndel++;
		if (cache_txn_commit(r->cache) != CACHE_OK)
			ndel = 0;
		stats_add(STATS_CACHE_DELETED, (uint64_t)ndel);
		log_info("cache_expired_deleted=%d grace=%d", ndel,
		    RESOLVER_EXPIRED_GRACE);
	}
	if (r->walk_full)
		resolver_refresh_arm(r, RESOLVER_REFRESH_BUSY_MS);
	else if (!done)
		resolver_refresh_arm(r, RESOLVER_REFRESH_PAUSE_MS);
	else {
		t1 = clock_mono();
		log_debug(1, "refresh pass: entries=%zu refreshes=%zu "
		    "elapsed_ms=%lld", r->pass_entries, r->pass_started,
		    (long long)(t1.tv_sec - r->pass_t0.tv_sec) * 1000 +
		    (t1.tv_nsec - r->pass_t0.tv_nsec) / 1000000);
		r->cursor_len = 0;
		/* the pass read every page of the cache through the map */
		r->writes = 0;
		(void)cache_unmap_pages(r->cache);
		resolver_refresh_arm(r, (long)r->cf->cache.refresh_interval *
		    1000);
	}
}

/*
 * resolver_refuse - every discovery slot is busy and the queue is full:
 * answer TEMP now (the worker answers deadline_answer) rather than queue
 * without bound
 */
static void
resolver_refuse(struct rconn *rc, const struct ipc_request *req)
{
	struct resolver	*r = rc->r;
	time_t		 now = clock_wall();

	r->refused++;
	if (now - r->last_refuse_log >= 60) {
		log_warnx("domain=%s: %d discoveries running, %d queued: "
		    "answered TEMP (requests_refused=%llu)", req->domain,
		    r->running, r->nqueued, r->refused);
		r->last_refuse_log = now;
	}
	resolver_send(rc, req->domain, req->domain_len, IPC_STATUS_TEMP, NULL,
	    0, NULL, 0);
}

/* resolver_wait - rc waits for job j's reply (once per connection) */
static void
resolver_wait(struct rconn *rc, struct job *j)
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

/*
 * resolver_txtcheck - a worker answered from a cached STS record whose TXT
 * id check is due: re-check it in the background, single flight.  Returns
 * 0 if handled, -1 if the request is to be treated as a plain one (the
 * check is no longer due, another worker's re-check already wrote).
 */
static int
resolver_txtcheck(struct rconn *rc, const struct ipc_request *req)
{
	struct resolver	*r = rc->r;
	struct cache_record *rec = &r->scratch;
	struct job	*j;

	if ((j = job_find(r, req->domain, req->domain_len)) != NULL) {
		/* a job runs: its MTA-STS part checks the id anyway */
		job_add(j, 1, 0);
		resolver_wait(rc, j);
		return (0);
	}
	if (!resolver_cached(r, req->domain, req->domain_len, 0, rec) ||
	    !facts_txt_due(rec, clock_wall()))
		return (-1);
	if (r->running >= r->cf->max_resolutions && r->nqueued >=
	    RESOLVER_QUEUE_PER_SLOT * r->cf->max_resolutions) {
		resolver_refuse(rc, req);
		return (0);
	}
	j = job_new(r, req->domain, req->domain_len, rec);
	j->txtcheck = 1;
	j->want_sts = 1;
	log_debug(1, "domain=%s refresh=txt-check id=%s checked_at=%lld "
	    "txt_ttl=%u", req->domain, rec->id,
	    (long long)rec->txt_checked_at, (unsigned)rec->txt_ttl);
	stats_inc(STATS_TXT_CHECKS);
	if (r->running < r->cf->max_resolutions)
		job_start(j);
	else {
		j->queued = 1;
		r->nqueued++;
		TAILQ_INSERT_TAIL(&r->queue, j, q_entry);
	}
	if (j->dv == NULL && j->dn == NULL && !j->queued)
		return (0);	/* finished synchronously: already answered */
	resolver_wait(rc, j);
	return (0);
}

/* resolver_request - a worker asks about a domain */
static void
resolver_request(struct rconn *rc, const struct ipc_request *req)
{
	struct resolver	*r = rc->r;
	struct cache_record *rec = &r->scratch, *drec = &r->scratch_d;
	struct job	*j;
	size_t		 len = 0, dlen = 0;
	int		 have = 0, have_d = 0, sts_fresh = 0;
	int		 dane_fresh = !r->cf->dane;
	int64_t		 now = clock_wall();

	if ((req->flags & IPC_FLAG_TXTCHECK) && resolver_txtcheck(rc, req) == 0)
		return;
	if ((j = job_find(r, req->domain, req->domain_len)) == NULL) {
		if (!(req->flags & IPC_FLAG_REFRESH)) {
			have = resolver_cached(r, req->domain, req->domain_len,
			    0, rec);
			sts_fresh = have && cache_record_fresh(rec, now);
			if (r->cf->dane) {
				have_d = resolver_cached(r, req->domain,
				    req->domain_len, 1, drec);
				dane_fresh = have_d &&
				    cache_record_fresh(drec, now);
			}
		}
		if (sts_fresh && dane_fresh &&
		    cache_record_encode(rec, r->rec, sizeof(r->rec),
		    &len) == 0 && (!have_d || cache_record_encode(drec,
		    r->drec, sizeof(r->drec), &dlen) == 0)) {
			resolver_send(rc, req->domain, req->domain_len,
			    IPC_STATUS_OK, r->rec, len, dlen > 0 ? r->drec :
			    NULL, dlen);
			return;
		}
		if (r->running >= r->cf->max_resolutions && r->nqueued >=
		    RESOLVER_QUEUE_PER_SLOT * r->cf->max_resolutions) {
			resolver_refuse(rc, req);
			return;
		}
		j = job_new(r, req->domain, req->domain_len,
		    have ? rec : NULL);
		if (have_d) {
			cache_record_copy(&j->old_dane, drec);
			j->have_old_dane = 1;
		}
		j->bypass = (req->flags & IPC_FLAG_REFRESH) != 0;
		j->want_sts = !sts_fresh;
		j->want_dane = r->cf->dane && !dane_fresh;
		if (r->running < r->cf->max_resolutions)
			job_start(j);
		else {
			j->queued = 1;
			r->nqueued++;
			TAILQ_INSERT_TAIL(&r->queue, j, q_entry);
		}
	} else {
		/* joining a job (a proactive refresh of one part, say):
		 * make it cover what this request lacks */
		job_add(j, !j->want_sts && !resolver_fresh(r, req->domain,
		    req->domain_len, 0), r->cf->dane && !j->want_dane &&
		    !resolver_fresh(r, req->domain, req->domain_len, 1));
	}
	if (j->dv == NULL && j->dn == NULL && !j->queued && !j->fleet_wait)
		return;		/* finished synchronously: already answered */
	resolver_wait(rc, j);
}

/* rconn_free - a worker went away */
static void
rconn_free(struct rconn *rc)
{
	struct resolver	*r = rc->r;
	struct waiter	*wt;

	while ((wt = TAILQ_FIRST(&rc->waiters)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		waiter_free(wt);	/* the job runs on: it fills the cache */
	rconn_outq_clear(rc);
	TAILQ_REMOVE(&r->rconns, rc, entry);
	r->nrconns--;
	event_free(rc->ev);
	event_free(rc->ev_write);
	close(rc->fd);
	free(rc);
}

/* rconn_read_cb - requests from one worker */
static void
rconn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rconn	*rc = arg;
	struct resolver	*r = rc->r;
	struct ipc_request req;
	ssize_t		 n;

	(void)what;
	for (;;) {
		n = recv(fd, r->msg, sizeof(r->msg), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			rconn_free(rc);
			return;
		}
		if (ipc_request_decode(r->msg, (size_t)n, &req) == -1) {
			log_warnx("malformed request from a worker (%zd bytes) "
			    "dropped", n);
			continue;
		}
		resolver_request(rc, &req);
	}
}

/* resolver_accept_cb - a worker connects */
static void
resolver_accept_cb(evutil_socket_t fd_unused, short what, void *arg)
{
	struct resolver	*r = arg;
	struct rconn	*rc;
	int		 fd, lfd = r->lfd;

	(void)fd_unused;
	(void)what;
	event_add(r->ev_accept, NULL);
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) ==
	    -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("accept on the resolver socket");
		return;
	}
	if (r->nrconns >= RESOLVER_MAX_CONNS) {
		log_warnx("too many worker connections: refused");
		close(fd);
		return;
	}
	rc = xcalloc(1, sizeof(*rc));
	rc->r = r;
	rc->fd = fd;
	TAILQ_INIT(&rc->waiters);
	STAILQ_INIT(&rc->outq);
	rc->ev = event_new(r->base, fd, EV_READ | EV_PERSIST, rconn_read_cb,
	    rc);
	rc->ev_write = event_new(r->base, fd, EV_WRITE, rconn_write_cb, rc);
	if (rc->ev == NULL || rc->ev_write == NULL)
		fatalx("resolver: out of memory for a worker connection");
	event_add(rc->ev, NULL);
	TAILQ_INSERT_TAIL(&r->rconns, rc, entry);
	r->nrconns++;
}

/*
 * resolver_listen_cb - a worker waits to connect: accept on the next loop
 * turn.  On a reload the master signals this resolver before it forks the
 * next generation, whose workers connect at once; when this process is
 * woken late, epoll may report their connection without the signal, whose
 * handler runs just after.  One turn later the stop signal (priority 0,
 * child.h) is seen first, and the connection is left to the next resolver.
 */
static void
resolver_listen_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct timeval	 now = { 0, 0 };

	(void)lfd;
	(void)what;
	event_del(r->ev_accept);
	evtimer_add(r->ev_accept_turn, &now);
}

/* resolver_term_cb - SIGTERM/SIGINT: stop accepting, exit at once */
static void
resolver_term_cb(int sig, void *arg)
{
	struct resolver	*r = arg;

	log_debug(1, "resolver: signal %d: exiting", sig);
	/* Break now, not after this turn's callbacks (loopexit): a worker of
	 * the next generation may already wait in the shared listener's
	 * backlog, and must be accepted by the next resolver, not by this
	 * one on its way out. */
	event_del(r->ev_accept);
	event_del(r->ev_accept_turn);
	event_base_loopbreak(r->base);
}

int
resolver_check(const struct config *cf, char *err, size_t errsz)
{
	char	 why[512];

	if (dns_check(&cf->dns, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "dns: %s", why);
		return (-1);
	}
	if (https_check(&cf->https, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "https: %s", why);
		return (-1);
	}
	return (0);
}

struct resolver *
resolver_new(const struct config *cf, int lfd, struct event_base *base)
{
	struct resolver	*r;
	char		 err[512], aside[512];

	r = xcalloc(1, sizeof(*r));
	r->cf = cf;
	r->lfd = lfd;
	TAILQ_INIT(&r->rconns);
	TAILQ_INIT(&r->queue);
	domtab_init(&r->jobs, RESOLVER_BUCKETS);
	cache_wb_init(&r->wb);
	r->base = base;
	if ((r->dns = dns_new(r->base, &cf->dns, err, sizeof(err))) == NULL)
		fatalx("resolver: %s", err);
	if ((r->https = https_new(r->base, &cf->https, err, sizeof(err))) ==
	    NULL)
		fatalx("resolver: %s", err);
	if (cf->cache.enabled) {
		r->cache = cache_open_recover(cf->cache.path,
		    cf->cache.max_size, aside, sizeof(aside), err,
		    sizeof(err));
		if (aside[0] != '\0')
			stats_inc(STATS_CACHE_CORRUPT);
		if (r->cache == NULL)
			log_warnx("resolver: cache disabled: %s", err);
	}
	evutil_make_socket_nonblocking(lfd);
	r->ev_accept = event_new(r->base, lfd, EV_READ | EV_PERSIST,
	    resolver_listen_cb, r);
	r->ev_accept_turn = evtimer_new(r->base, resolver_accept_cb, r);
	if (r->ev_accept == NULL || r->ev_accept_turn == NULL)
		fatalx("resolver: out of memory for the listener");
	event_add(r->ev_accept, NULL);
	if ((r->ev_wb = evtimer_new(r->base, resolver_wb_cb, r)) == NULL)
		fatalx("resolver: out of memory for the cache timer");
	if (r->cache != NULL) {
		r->dead = xcalloc(RESOLVER_REFRESH_SLICE, sizeof(*r->dead));
		r->ev_refresh = evtimer_new(r->base, resolver_refresh_cb, r);
		resolver_refresh_arm(r, (long)cf->cache.refresh_interval *
		    1000);
	}
	r->rfleet = rfleet_new(r->base, cf, r->cache, &r->wb,
	    resolver_fleet_store, r);
	return (r);
}

/*
 * resolver_teardown - free r; keep: commit what the jobs learned (theirs
 * and the write-behind array's) first, as on SIGTERM; else forget it, as
 * a kill -9 would
 */
static void
resolver_teardown(struct resolver *r, int keep)
{
	struct rconn	*rc;
	struct domtab_node *dn;
	struct job	*j;

	if (r == NULL)
		return;
	while ((dn = domtab_next(&r->jobs, NULL)) != NULL) {
		j = DOMTAB_ENTRY(dn, struct job, node);
		if (!keep)
			j->store_sts = j->store_dane = 0;
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		job_free(j);
	}
	domtab_free(&r->jobs);
	while ((rc = TAILQ_FIRST(&r->rconns)) != NULL)
		/* rconn_free unlinks rc first (TAILQ_REMOVE, which the
		 * analyzer does not follow) */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		rconn_free(rc);
	rfleet_free(r->rfleet);
	/* what the jobs learned last, the cancelled ones' too */
	if (keep)
		resolver_wb_flush(r);
	cache_wb_release(&r->wb);
	event_free(r->ev_wb);
	event_free(r->ev_accept);
	event_free(r->ev_accept_turn);
	if (r->ev_refresh != NULL)
		event_free(r->ev_refresh);
	free(r->dead);
	if (r->cache != NULL)
		cache_close(r->cache);
	https_free(r->https);
	dns_free(r->dns);
	cache_record_release(&r->scratch);
	cache_record_release(&r->scratch_d);
	free(r);
}

void
resolver_free(struct resolver *r)
{
	resolver_teardown(r, 1);
}

void
resolver_crash(struct resolver *r)
{
	resolver_teardown(r, 0);
}

struct cache *
resolver_cache(struct resolver *r)
{
	return (r->cache);
}

int
resolver_main(const struct config *cf, int lfd)
{
	struct event_base *base;
	struct resolver	*r;

	base = child_base_new("resolver");
	r = resolver_new(cf, lfd, base);
	child_run(base, "resolver", sandbox_resolver, resolver_term_cb, r);
	resolver_free(r);
	event_base_free(base);
	return (0);
}
