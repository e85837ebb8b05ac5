/*
 * resolver.c - the resolver process
 *
 * Interface (resolver.h): resolver_check() reads what a resolver needs
 * before the master starts one; resolver_main() runs one until SIGTERM;
 * resolver_new() and resolver_free() (and, for tests, resolver_crash()
 * and resolver_cache()) are its start and stop on an event base of the
 * caller's.  The work is in five files, one concern each, sharing
 * resolver_int.h: resolver_conn.c (worker connections and their
 * requests, the TXT id re-check), resolver_refresh.c (the proactive
 * refresh walk), resolver_job.c (jobs: single flight, the queue, the
 * MTA-STS and DANE parts, the fleet's part, the replies), resolver_reply.c
 * (the reply queue of each worker) and resolver_store.c (the cache: reads
 * and write-behind commits).  This file is the process around them: the
 * state, dns and https, the fleet (rfleet.h), the start and the stop.
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

#include <stdio.h>
#include <stdlib.h>

#include <event2/event.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "daemon/child.h"
#include "lib/dns.h"
#include "lib/domtab.h"
#include "lib/https.h"
#include "lib/log.h"
#include "daemon/resolver.h"
#include "daemon/resolver_int.h"
#include "daemon/rfleet.h"
#include "daemon/sandbox.h"
#include "lib/xmalloc.h"

#define RESOLVER_BUCKETS	1024	/* power of two */

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
resolver_new(const struct config *cf, int shard, int lfd,
    struct event_base *base)
{
	struct resolver	*r;
	char		 err[512];

	if (shard < 0 || shard >= cf->resolvers)
		fatalx("resolver %d: not one of %d", shard, cf->resolvers);
	r = xcalloc(1, sizeof(*r));
	r->cf = cf;
	r->shard = shard;
	r->lfd = lfd;
	TAILQ_INIT(&r->rconns);
	TAILQ_INIT(&r->queue);
	domtab_init(&r->jobs, RESOLVER_BUCKETS);
	r->base = base;
	if ((r->dns = dns_new(r->base, &cf->dns, err, sizeof(err))) == NULL)
		fatalx("resolver: %s", err);
	if ((r->https = https_new(r->base, &cf->https, err, sizeof(err))) ==
	    NULL)
		fatalx("resolver: %s", err);
	resolver_store_start(r);
	resolver_history_start(r);
	evutil_make_socket_nonblocking(lfd);
	r->ev_accept = event_new(r->base, lfd, EV_READ | EV_PERSIST,
	    resolver_conn_listen_cb, r);
	r->ev_accept_turn = evtimer_new(r->base, resolver_conn_accept_cb, r);
	if (r->ev_accept == NULL || r->ev_accept_turn == NULL)
		fatalx("resolver: out of memory for the listener");
	event_add(r->ev_accept, NULL);
	resolver_refresh_start(r);
	r->rfleet = rfleet_new(r->base, cf, shard, r->cache, &r->wb,
	    resolver_store_fleet, r);
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

	if (r == NULL)
		return;
	resolver_job_free_all(r, keep);
	domtab_free(&r->jobs);
	while ((rc = TAILQ_FIRST(&r->rconns)) != NULL)
		/* resolver_conn_free unlinks rc first (TAILQ_REMOVE, which
		 * the analyzer does not follow) */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		resolver_conn_free(rc);
	rfleet_free(r->rfleet);
	event_free(r->ev_accept);
	event_free(r->ev_accept_turn);
	resolver_refresh_stop(r);
	resolver_store_stop(r, keep);
	resolver_history_stop(r);
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
resolver_main(const struct config *cf, int shard, int lfd)
{
	struct event_base *base;
	struct resolver	*r;

	base = child_base_new("resolver");
	r = resolver_new(cf, shard, lfd, base);
	child_run(base, "resolver", sandbox_resolver, resolver_term_cb, r);
	resolver_free(r);
	event_base_free(base);
	return (0);
}
