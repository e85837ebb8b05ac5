/*
 * resolver.c - the resolver process
 *
 * Requests arrive from front workers as ipc requests (one domain each).
 * For each domain at most one discovery runs at a time (a "job"); every
 * worker connection that asks while it runs is added to its waiters and
 * gets the same reply.  At most RESOLVER_MAX_JOBS discoveries run at once;
 * the rest wait in FIFO order.
 *
 * A job:
 *   1. reads the cached record (a fresh one is answered at once: a worker
 *      may ask because it could not read the cache itself);
 *   2. runs discover_start() (TXT, A/AAAA, HTTPS, parse);
 *   3. merges the result with the cached record (facts_merge: no
 *      downgrade of an unexpired policy, RFC 8461 §10.2);
 *   4. writes the record (the only cache writer) and replies with it.
 * The reply carries facts, not an answer: each worker answers with its own
 * map's options.  One log line per discovery, key=value.
 *
 * Proactive refresh (RFC 8461 §5.1: "senders SHOULD ... proactively
 * refresh"): every cache.refresh_interval seconds a pass walks the whole
 * cache in slices of RESOLVER_REFRESH_SLICE entries, RESOLVER_REFRESH_PAUSE_MS
 * apart (a cursor remembers where the last slice stopped, so a million
 * entries never block the loop for long), and starts a job without waiters
 * for each STS entry past its next_refresh.
 * Such a job fetches without the known id, so a successful fetch extends
 * max_age; a failure keeps the policy and backs off (facts_merge).  At most
 * RESOLVER_REFRESH_JOBS refreshes run at once, leaving the other job slots
 * to requests; the walk stops at the limit and resumes there after
 * RESOLVER_REFRESH_BUSY_MS.
 * Entries expired for more than RESOLVER_EXPIRED_GRACE seconds are
 * deleted (negative entries included: they simply expire).
 *
 * SIGTERM: stop accepting, cancel discoveries, exit.  Workers reconnect to
 * the next resolver the master starts and ask again.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "cache.h"
#include "config.h"
#include "discover.h"
#include "dns.h"
#include "domain.h"
#include "facts.h"
#include "https.h"
#include "hash.h"
#include "ipc.h"
#include "log.h"
#include "resolver.h"
#include "sandbox.h"
#include "xmalloc.h"

#define RESOLVER_BUCKETS	1024	/* power of two */

struct job;
struct rconn;

struct waiter {
	TAILQ_ENTRY(waiter) j_entry;	/* the job's waiters */
	TAILQ_ENTRY(waiter) r_entry;	/* the connection's waiters */
	struct job	*job;
	struct rconn	*rc;
};

struct job {
	struct job	*next;		/* hash chain */
	TAILQ_ENTRY(job) q_entry;	/* queued, not yet started */
	TAILQ_HEAD(, waiter) waiters;
	struct resolver	*r;
	struct discover	*dv;
	int		 queued;
	int		 refresh;	/* proactive: fetch without known id */
	int		 have_old;
	struct cache_record old;
	char		 domain[DOMAIN_BUFSZ];
	size_t		 domain_len;
};

struct rconn {
	TAILQ_ENTRY(rconn) entry;
	TAILQ_HEAD(, waiter) waiters;
	struct resolver	*r;
	int		 fd;
	struct event	*ev;
};

struct resolver {
	struct event_base *base;
	const struct config *cf;
	struct dns	*dns;
	struct https	*https;
	struct cache	*cache;
	int		 lfd;
	struct event	*ev_accept;
	struct event	*ev_term;
	struct event	*ev_int;
	struct event	*ev_refresh;
	int		 refreshing;	/* refresh jobs not yet finished */
	char		 cursor[DOMAIN_BUFSZ];	/* last key walked */
	size_t		 cursor_len;	/* 0: start from the first key */
	int		 walked;	/* entries seen in this tick */
	int		 walk_full;	/* stopped at the refresh limit */
	size_t		 pass_entries;	/* this pass so far, for the log */
	size_t		 pass_started;
	struct timespec	 pass_t0;
	int		 ndead;
	char		 (*dead)[DOMAIN_BUFSZ];	/* to delete after the walk */
	TAILQ_HEAD(, rconn) rconns;
	int		 nrconns;
	struct job	*jobs[RESOLVER_BUCKETS];
	TAILQ_HEAD(, job) queue;
	int		 running;
	time_t		 last_write_error;
	unsigned char	 msg[IPC_MAX_MSG];
	unsigned char	 rec[IPC_MAX_RECORD];
};

static void	job_start(struct job *);

/* resolver_now - wall-clock seconds (cache times are absolute) */
static int64_t
resolver_now(void)
{
	return ((int64_t)time(NULL));
}

/* job_hash - FNV-1a bucket of a domain */
static size_t
job_hash(const char *d, size_t len)
{
	return (hash_fnv1a(d, len) & (RESOLVER_BUCKETS - 1));
}

/* job_find - the job for a domain, or NULL */
static struct job *
job_find(struct resolver *r, const char *d, size_t len)
{
	struct job	*j;

	for (j = r->jobs[job_hash(d, len)]; j != NULL; j = j->next)
		if (j->domain_len == len && memcmp(j->domain, d, len) == 0)
			return (j);
	return (NULL);
}

/* waiter_free - unlink a waiter from its job and its connection */
static void
waiter_free(struct waiter *wt)
{
	TAILQ_REMOVE(&wt->job->waiters, wt, j_entry);
	TAILQ_REMOVE(&wt->rc->waiters, wt, r_entry);
	free(wt);
}

/* resolver_send - one reply to one worker connection */
static void
resolver_send(struct rconn *rc, const char *domain, size_t len,
    int status, const unsigned char *rec, size_t rec_len)
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
	if ((n = ipc_reply_encode(&rep, r->msg, sizeof(r->msg))) == -1)
		panic("resolver_send: cannot encode reply for %s", domain);
	/* Blocking send: a worker that stopped reading is a bug, and the
	 * socket buffer holds thousands of replies. */
	if (send(rc->fd, r->msg, (size_t)n, MSG_NOSIGNAL) == -1)
		log_warn("send reply for %s to a worker", domain);
}

/* job_free - forget a finished or cancelled job */
static void
job_free(struct job *j)
{
	struct resolver	*r = j->r;
	struct job	**pp;
	struct waiter	*wt;

	while ((wt = TAILQ_FIRST(&j->waiters)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		waiter_free(wt);
	for (pp = &r->jobs[job_hash(j->domain, j->domain_len)]; *pp != NULL;
	    pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	if (j->queued)
		TAILQ_REMOVE(&r->queue, j, q_entry);
	if (j->refresh)
		r->refreshing--;
	if (j->dv != NULL) {
		discover_cancel(j->dv);
		r->running--;
	}
	free(j);
}

/* job_finish - reply to every waiter, free the job, start a queued one */
static void
job_finish(struct job *j, int status, const unsigned char *rec,
    size_t rec_len)
{
	struct resolver	*r = j->r;
	struct waiter	*wt;
	struct job	*next;

	TAILQ_FOREACH(wt, &j->waiters, j_entry)
		resolver_send(wt->rc, j->domain, j->domain_len, status, rec,
		    rec_len);
	job_free(j);
	while (r->running < RESOLVER_MAX_JOBS &&
	    (next = TAILQ_FIRST(&r->queue)) != NULL) {
		TAILQ_REMOVE(&r->queue, next, q_entry);
		next->queued = 0;
		job_start(next);
	}
}

/* resolver_store - write a record; log write failures at most per minute */
static void
resolver_store(struct resolver *r, const char *domain,
    const struct cache_record *rec)
{
	time_t		 now;

	if (r->cache == NULL)
		return;
	if (cache_put(r->cache, domain, rec) == 0)
		return;
	now = time(NULL);
	if (now - r->last_write_error >= 60) {
		log_warnx("cache write for %s failed (disk full?): answers "
		    "still served, not stored; further errors suppressed for "
		    "a minute", domain);
		r->last_write_error = now;
	}
}

/* job_discovered - the discovery finished: merge, store, reply */
static void
job_discovered(const struct discover_result *res, void *arg)
{
	struct job	*j = arg;
	struct resolver	*r = j->r;
	struct cache_record rec;
	size_t		 len;
	char		 esc[LOG_ESCAPE_MAX * 4 + 8];

	j->dv = NULL;
	r->running--;
	if (facts_merge(j->domain, j->have_old ? &j->old : NULL, res,
	    &r->cf->cache, resolver_now(), &rec) == 0)
		rec = j->old;
	log_info("domain=%s refresh=%s discovery=%s%s%s txt_dnssec=%s id=%s kind=%s "
	    "mode=%d max_age=%u kept_cached=%s tlsrpt=\"%s\" detail=\"%s\"",
	    j->domain, j->refresh ? "proactive" : "request",
	    discover_outcome_name(res->outcome),
	    res->outcome == DISCOVER_FAILURE ? " failure=" : "",
	    res->outcome == DISCOVER_FAILURE ?
	    discover_failure_name(res->failure) : "",
	    dns_security_name(res->txt_security),
	    res->id != NULL ? res->id : "-",
	    rec.kind == CACHE_KIND_STS ? "sts" : "none", rec.sts_mode,
	    (unsigned)rec.max_age,
	    j->have_old && rec.fetched_at == j->old.fetched_at &&
	    rec.kind == CACHE_KIND_STS ? "yes" : "no",
	    res->tlsrpt != NULL ? res->tlsrpt : "",
	    log_escape(esc, sizeof(esc), res->detail, strlen(res->detail)));
	resolver_store(r, j->domain, &rec);
	if (cache_record_encode(&rec, r->rec, sizeof(r->rec), &len) == -1) {
		log_warnx("domain=%s: cannot encode record", j->domain);
		job_finish(j, IPC_STATUS_TEMP, NULL, 0);
		return;
	}
	job_finish(j, IPC_STATUS_OK, r->rec, len);
}

/* job_start - run the discovery (known id: skip the fetch if unchanged) */
static void
job_start(struct job *j)
{
	struct resolver	*r = j->r;
	const char	*known = NULL;

	if (!j->refresh && j->have_old && j->old.kind == CACHE_KIND_STS &&
	    resolver_now() < j->old.expires_at && j->old.id[0] != '\0')
		known = j->old.id;
	r->running++;
	j->dv = discover_start(r->dns, r->https, j->domain, known,
	    job_discovered, j);
}

/* job_new - a job for domain, hashed, not started */
static struct job *
job_new(struct resolver *r, const char *domain, size_t len,
    const struct cache_record *old)
{
	struct job	*j;
	size_t		 h;

	j = xcalloc(1, sizeof(*j));
	j->r = r;
	TAILQ_INIT(&j->waiters);
	memcpy(j->domain, domain, len);
	j->domain_len = len;
	if (old != NULL) {
		j->old = *old;
		j->have_old = 1;
	}
	h = job_hash(j->domain, j->domain_len);
	j->next = r->jobs[h];
	r->jobs[h] = j;
	return (j);
}

/* resolver_walk_cb - one cache entry seen by the refresh walk */
static int
resolver_walk_cb(const char *domain, size_t len,
    const struct cache_record *rec, void *arg)
{
	struct resolver	*r = arg;
	struct job	*j;
	int64_t		 now = resolver_now();

	if (rec != NULL && rec->kind == CACHE_KIND_STS &&
	    now < rec->expires_at && now >= rec->next_refresh &&
	    job_find(r, domain, len) == NULL) {
		if (r->refreshing >= RESOLVER_REFRESH_JOBS ||
		    r->running >= RESOLVER_MAX_JOBS) {
			r->walk_full = 1;
			log_debug(1, "refresh walk: %d refreshes, %d jobs "
			    "running: resuming at %s later", r->refreshing,
			    r->running, domain);
			return (1);	/* resume here next tick */
		}
		j = job_new(r, domain, len, rec);
		j->refresh = 1;
		r->refreshing++;
		log_debug(1, "domain=%s refresh=start next_refresh=%lld "
		    "expires_at=%lld", domain, (long long)rec->next_refresh,
		    (long long)rec->expires_at);
		r->pass_started++;
		job_start(j);
	} else if (rec != NULL && now - rec->expires_at >
	    RESOLVER_EXPIRED_GRACE && job_find(r, domain, len) == NULL)
		memcpy(r->dead[r->ndead++], domain, len + 1);
	memcpy(r->cursor, domain, len);
	r->cursor_len = len;
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
	if (r->cursor_len == 0) {
		r->pass_entries = 0;
		r->pass_started = 0;
		clock_gettime(CLOCK_MONOTONIC, &r->pass_t0);
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
		log_info("cache_expired_deleted=%d grace=%d", ndel,
		    RESOLVER_EXPIRED_GRACE);
	}
	if (r->walk_full)
		resolver_refresh_arm(r, RESOLVER_REFRESH_BUSY_MS);
	else if (!done)
		resolver_refresh_arm(r, RESOLVER_REFRESH_PAUSE_MS);
	else {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		log_debug(1, "refresh pass: entries=%zu refreshes=%zu "
		    "elapsed_ms=%lld", r->pass_entries, r->pass_started,
		    (long long)(t1.tv_sec - r->pass_t0.tv_sec) * 1000 +
		    (t1.tv_nsec - r->pass_t0.tv_nsec) / 1000000);
		r->cursor_len = 0;
		resolver_refresh_arm(r, (long)r->cf->cache.refresh_interval *
		    1000);
	}
}

/* resolver_request - a worker asks about a domain */
static void
resolver_request(struct rconn *rc, const struct ipc_request *req)
{
	struct resolver	*r = rc->r;
	struct cache_record rec;
	struct waiter	*wt;
	struct job	*j;
	size_t		 len;
	int		 have = 0;

	if ((j = job_find(r, req->domain, req->domain_len)) == NULL) {
		if (r->cache != NULL && !(req->flags & IPC_FLAG_REFRESH) &&
		    cache_get(r->cache, req->domain, req->domain_len, &rec) ==
		    CACHE_HIT) {
			have = 1;
			if (cache_record_fresh(&rec, resolver_now()) &&
			    cache_record_encode(&rec, r->rec, sizeof(r->rec),
			    &len) == 0) {
				resolver_send(rc, req->domain, req->domain_len,
				    IPC_STATUS_OK, r->rec, len);
				return;
			}
		}
		j = job_new(r, req->domain, req->domain_len,
		    have ? &rec : NULL);
		if (r->running < RESOLVER_MAX_JOBS)
			job_start(j);
		else {
			j->queued = 1;
			TAILQ_INSERT_TAIL(&r->queue, j, q_entry);
		}
	}
	if (j->dv == NULL && !j->queued)
		return;		/* finished synchronously: already answered */
	TAILQ_FOREACH(wt, &j->waiters, j_entry)
		if (wt->rc == rc)
			return;		/* this worker already waits */
	wt = xcalloc(1, sizeof(*wt));
	wt->job = j;
	wt->rc = rc;
	TAILQ_INSERT_TAIL(&j->waiters, wt, j_entry);
	TAILQ_INSERT_TAIL(&rc->waiters, wt, r_entry);
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
	TAILQ_REMOVE(&r->rconns, rc, entry);
	r->nrconns--;
	event_free(rc->ev);
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
resolver_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct rconn	*rc;
	int		 fd;

	(void)what;
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
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
	rc->ev = event_new(r->base, fd, EV_READ | EV_PERSIST, rconn_read_cb,
	    rc);
	event_add(rc->ev, NULL);
	TAILQ_INSERT_TAIL(&r->rconns, rc, entry);
	r->nrconns++;
}

/* resolver_term_cb - SIGTERM/SIGINT */
static void
resolver_term_cb(evutil_socket_t sig, short what, void *arg)
{
	struct resolver	*r = arg;

	(void)what;
	log_debug(1, "resolver: signal %d: exiting", (int)sig);
	event_base_loopexit(r->base, NULL);
}

int
resolver_main(const struct config *cf, int lfd)
{
	struct resolver	*r;
	struct rconn	*rc;
	struct job	*j;
	char		 err[512];
	size_t		 b;

	r = xcalloc(1, sizeof(*r));
	r->cf = cf;
	r->lfd = lfd;
	TAILQ_INIT(&r->rconns);
	TAILQ_INIT(&r->queue);
	signal(SIGPIPE, SIG_IGN);
	if ((r->base = event_base_new()) == NULL)
		fatalx("resolver: event_base_new failed");
	if ((r->dns = dns_new(r->base, &cf->dns, err, sizeof(err))) == NULL)
		fatalx("resolver: %s", err);
	if ((r->https = https_new(r->base, &cf->https, err, sizeof(err))) ==
	    NULL)
		fatalx("resolver: %s", err);
	if (cf->cache.enabled) {
		r->cache = cache_open(cf->cache.path, cf->cache.max_size, 0,
		    err, sizeof(err));
		if (r->cache == NULL)
			log_warnx("resolver: cache disabled: %s", err);
	}
	evutil_make_socket_nonblocking(lfd);
	r->ev_accept = event_new(r->base, lfd, EV_READ | EV_PERSIST,
	    resolver_accept_cb, r);
	event_add(r->ev_accept, NULL);
	r->ev_term = evsignal_new(r->base, SIGTERM, resolver_term_cb, r);
	r->ev_int = evsignal_new(r->base, SIGINT, resolver_term_cb, r);
	evsignal_add(r->ev_term, NULL);
	evsignal_add(r->ev_int, NULL);
	if (r->cache != NULL) {
		r->dead = xcalloc(RESOLVER_REFRESH_SLICE, sizeof(*r->dead));
		r->ev_refresh = evtimer_new(r->base, resolver_refresh_cb, r);
		resolver_refresh_arm(r, (long)cf->cache.refresh_interval *
		    1000);
	}
	sandbox_resolver();
	log_debug(1, "resolver started");

	event_base_dispatch(r->base);

	for (b = 0; b < RESOLVER_BUCKETS; b++)
		while ((j = r->jobs[b]) != NULL)
			/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
			job_free(j);
	while ((rc = TAILQ_FIRST(&r->rconns)) != NULL)
		rconn_free(rc);
	event_free(r->ev_accept);
	event_free(r->ev_term);
	event_free(r->ev_int);
	if (r->ev_refresh != NULL)
		event_free(r->ev_refresh);
	free(r->dead);
	if (r->cache != NULL)
		cache_close(r->cache);
	https_free(r->https);
	dns_free(r->dns);
	event_base_free(r->base);
	free(r);
	return (0);
}
