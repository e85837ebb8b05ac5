/*
 * resolver_conn.c - the resolver's worker connections and their requests
 *
 * Interface (resolver_int.h): resolver_conn_listen_cb() and
 * resolver_conn_accept_cb() take a front worker's connection;
 * resolver_conn_free() closes one.  Each request (lib/ipc, one domain) is
 * answered from the cache, joined to the domain's job, given a new one
 * (resolver_job.c) or refused; replies go out through resolver_reply.c.
 *
 * Requests arrive from front workers as ipc requests (one domain each).
 * Fresh records are answered at once (a worker may ask because it could
 * not read the cache itself).  Otherwise the request waits for the
 * domain's job, single flight across workers: it joins the one running
 * (and a request that joins a job whose missing part is not running, a
 * proactive DANE refresh, say, starts that part), or a new one starts or
 * queues.  At most RESOLVER_QUEUE_PER_SLOT times max_resolutions jobs
 * wait for a slot: a request beyond that is answered IPC_STATUS_TEMP at
 * once (the worker answers it like a deadline: deadline_answer), so a
 * flood of distinct names costs bounded memory and every queued name is
 * reached within a bounded time.
 *
 * TXT id re-check (facts.h): a worker that answered from a cached STS
 * record whose TXT check is due sends IPC_FLAG_TXTCHECK (once per domain
 * while it waits).  resolver_txtcheck() starts an MTA-STS job with the
 * cached id (single flight: joins a running job), so the same id only
 * moves the check time and a new id fetches; facts_merge() decides what
 * is kept.  The decision log then says refresh=txt-check, or
 * refresh=id-change with old_id and id when the id changed.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "policy/facts.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "daemon/resolver_int.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"

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
	resolver_reply_send(rc, req->domain, req->domain_len, IPC_STATUS_TEMP,
	    NULL, 0, NULL, 0);
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

	if ((j = resolver_job_find(r, req->domain, req->domain_len)) != NULL) {
		/* a job runs: its MTA-STS part checks the id anyway */
		resolver_job_add(j, 1, 0);
		resolver_job_wait(rc, j);
		return (0);
	}
	if (!resolver_store_cached(r, req->domain, req->domain_len, 0, rec) ||
	    !facts_txt_due(rec, clock_wall()))
		return (-1);
	/* Background work, like the proactive refresh: at most
	 * cache.refresh_concurrency re-checks at once, never queued, so that
	 * a cache full of due ids (a big cache after a long stop; a DNS
	 * server that does not answer, each check waiting for its
	 * timeout) cannot fill the job slots and the queue that lookups
	 * need.  The answer was sent already; the record stays due, and a
	 * later lookup asks again (the worker pauses its re-checks for a
	 * second after this TEMP: worker_rclient.c). */
	if (r->txtchecking >= r->cf->cache.refresh_concurrency ||
	    r->running >= r->cf->max_resolutions) {
		log_debug(1, "domain=%s refresh=txt-check deferred: %d "
		    "re-checks, %d discoveries running", req->domain,
		    r->txtchecking, r->running);
		resolver_reply_send(rc, req->domain, req->domain_len,
		    IPC_STATUS_TEMP, NULL, 0, NULL, 0);
		return (0);
	}
	j = resolver_job_new(r, req->domain, req->domain_len, rec);
	j->txtcheck = 1;
	r->txtchecking++;
	j->want_sts = 1;
	log_debug(1, "domain=%s refresh=txt-check id=%s checked_at=%lld "
	    "txt_ttl=%u", req->domain, rec->id,
	    (long long)rec->txt_checked_at, (unsigned)rec->txt_ttl);
	stats_inc(STATS_TXT_CHECKS);
	resolver_job_run(j);
	if (j->dv == NULL && j->dn == NULL && !j->queued)
		return (0);	/* finished synchronously: already answered */
	resolver_job_wait(rc, j);
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
	if ((j = resolver_job_find(r, req->domain, req->domain_len)) == NULL) {
		if (!(req->flags & IPC_FLAG_REFRESH)) {
			have = resolver_store_cached(r, req->domain,
			    req->domain_len, 0, rec);
			sts_fresh = have && cache_record_fresh(rec, now);
			if (r->cf->dane) {
				have_d = resolver_store_cached(r, req->domain,
				    req->domain_len, 1, drec);
				dane_fresh = have_d &&
				    cache_record_fresh(drec, now);
			}
		}
		if (sts_fresh && dane_fresh &&
		    cache_record_encode(rec, r->rec, sizeof(r->rec),
		    &len) == 0 && (!have_d || cache_record_encode(drec,
		    r->drec, sizeof(r->drec), &dlen) == 0)) {
			resolver_reply_send(rc, req->domain, req->domain_len,
			    IPC_STATUS_OK, r->rec, len, dlen > 0 ? r->drec :
			    NULL, dlen);
			return;
		}
		if (r->running >= r->cf->max_resolutions && r->nqueued >=
		    RESOLVER_QUEUE_PER_SLOT * r->cf->max_resolutions) {
			resolver_refuse(rc, req);
			return;
		}
		j = resolver_job_new(r, req->domain, req->domain_len,
		    have ? rec : NULL);
		if (have_d) {
			cache_record_copy(&j->old_dane, drec);
			j->have_old_dane = 1;
		}
		j->bypass = (req->flags & IPC_FLAG_REFRESH) != 0;
		j->want_sts = !sts_fresh;
		j->want_dane = r->cf->dane && !dane_fresh;
		resolver_job_run(j);
	} else {
		/* joining a job (a proactive refresh of one part, say):
		 * make it cover what this request lacks */
		resolver_job_add(j, !j->want_sts &&
		    !resolver_store_fresh(r, req->domain, req->domain_len, 0),
		    r->cf->dane && !j->want_dane &&
		    !resolver_store_fresh(r, req->domain, req->domain_len, 1));
	}
	if (j->dv == NULL && j->dn == NULL && !j->queued && !j->fleet_wait)
		return;		/* finished synchronously: already answered */
	resolver_job_wait(rc, j);
}

void
resolver_conn_free(struct rconn *rc)
{
	struct resolver	*r = rc->r;

	resolver_job_leave(rc);
	resolver_reply_clear(rc);
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
			resolver_conn_free(rc);
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

void
resolver_conn_accept_cb(evutil_socket_t fd_unused, short what, void *arg)
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
	rc->ev_write = event_new(r->base, fd, EV_WRITE, resolver_reply_write_cb,
	    rc);
	if (rc->ev == NULL || rc->ev_write == NULL)
		fatalx("resolver: out of memory for a worker connection");
	event_add(rc->ev, NULL);
	TAILQ_INSERT_TAIL(&r->rconns, rc, entry);
	r->nrconns++;
}

/*
 * resolver_conn_listen_cb - a worker waits to connect: accept on the next
 * loop turn.  On a reload the master signals this resolver before it forks
 * the next generation, whose workers connect at once; when this process is
 * woken late, epoll may report their connection without the signal, whose
 * handler runs just after.  One turn later the stop signal (priority 0,
 * child.h) is seen first, and the connection is left to the next resolver.
 */
void
resolver_conn_listen_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct resolver	*r = arg;
	struct timeval	 now = { 0, 0 };

	(void)lfd;
	(void)what;
	event_del(r->ev_accept);
	evtimer_add(r->ev_accept_turn, &now);
}
