/*
 * resolver_int.h - what the resolver's files share (private: resolver.h is
 * the public interface)
 *
 * One resolver process is six files, one concern each, each calling only
 * into the ones listed after it (the requests flow down, the replies go
 * out at the bottom):
 *   resolver.c          the process: resolver_new/_free/_main, the stop
 *   resolver_conn.c     worker connections and their requests: answered
 *                       from the cache, joined to a job, queued or refused,
 *                       the TXT id re-check
 *   resolver_refresh.c  the proactive refresh walk and expired deletion
 *   resolver_job.c      jobs: single flight, the queue, the two parts
 *                       (MTA-STS, DANE) and the fleet's, the replies
 *   resolver_reply.c    replies to a worker, never blocking: its queue
 *   resolver_store.c    the cache: reads, write-behind commits
 *   resolver_history.c  the policy events of each merge: logged, counted,
 *                       appended to the history file (called by the jobs;
 *                       it reads through resolver_store.c)
 * They share struct resolver (one per process) and the structs below; each
 * function here is defined in the file its prefix names.
 */
#ifndef RESOLVER_INT_H
#define RESOLVER_INT_H

#include <sys/queue.h>
#include <sys/time.h>

#include <stddef.h>
#include <time.h>

#include <event2/event.h>

#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/cache_wb.h"
#include "lib/domtab.h"
#include "lib/ipc.h"

struct config;
struct dane;
struct discover_result;
struct history_event;
struct preload_store;
struct linelog;
struct discover;
struct dns;
struct https;
struct rfleet;
struct rfleet_ticket;
struct rmsg;

struct job;
struct rconn;

/* The resolver's limits (doc/DESIGN.md, "Resource limits"). */
/* Discoveries at once: max_resolutions; proactive refreshes among them:
 * cache.refresh_concurrency (config.h). */
#define RESOLVER_QUEUE_PER_SLOT	16	/* discoveries waiting for a slot,
					   per max_resolutions; beyond, a
					   request gets TEMP */
#define RESOLVER_MAX_CONNS	1024	/* worker connections */
#define RESOLVER_MAX_OUTQ	4096	/* replies queued per worker when
					   its socket is full ... */
#define RESOLVER_MAX_OUTQ_BYTES	(4 * 1024 * 1024)	/* ... and bytes */
#define RESOLVER_REFRESH_SLICE	2000	/* cache entries walked per tick */
#define RESOLVER_REFRESH_PAUSE_MS 10	/* between slices of one pass */
#define RESOLVER_REFRESH_BUSY_MS 1000	/* retry when refresh slots are full */
#define RESOLVER_EXPIRED_GRACE	86400	/* delete entries expired longer */

/* A worker connection waiting for a job's reply. */
struct waiter {
	TAILQ_ENTRY(waiter) j_entry;	/* the job's waiters */
	TAILQ_ENTRY(waiter) r_entry;	/* the connection's waiters */
	struct job	*job;
	struct rconn	*rc;
};

/* One discovery of a domain, shared by every request for it. */
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

/* A front worker's connection. */
struct rconn {
	TAILQ_ENTRY(rconn) entry;
	TAILQ_HEAD(, waiter) waiters;
	struct resolver	*r;
	int		 fd;
	struct event	*ev;
	struct event	*ev_write;	/* armed while outq is not empty */
	STAILQ_HEAD(, rmsg) outq;	/* replies the socket had no room
					   for (resolver_reply.c) */
	size_t		 noutq;
	size_t		 outq_bytes;
	size_t		 outq_peak;	/* replies queued at most since empty */
};

struct resolver {
	struct event_base *base;
	const struct config *cf;
	struct dns	*dns;
	struct https	*https;
	struct rfleet	*rfleet;	/* NULL: no fleet configured */
	int		 shard;		/* ours: the domains ipc_shard() gives
					   it, of cf->resolvers */

	/* the listener and the workers (resolver_conn.c) */
	int		 lfd;
	struct event	*ev_accept;	/* the listener is readable */
	struct event	*ev_accept_turn;	/* accept on the next turn */
	TAILQ_HEAD(, rconn) rconns;
	int		 nrconns;
	unsigned long long refused;	/* requests over the queue bound */
	time_t		 last_refuse_log;

	/* the jobs (resolver_job.c) */
	struct domtab	 jobs;		/* struct job by domain */
	TAILQ_HEAD(, job) queue;
	int		 nqueued;
	int		 running;
	int		 refreshing;	/* refresh jobs not yet finished */
	int		 txtchecking;	/* TXT re-check jobs not yet finished */

	/* the replies (resolver_reply.c) */
	unsigned long long dropped;	/* replies a full worker lost */
	time_t		 last_drop_log;

	/* the refresh walk (resolver_refresh.c) */
	struct event	*ev_refresh;
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

	/* the cache (resolver_store.c) */
	struct cache	*cache;
	time_t		 last_write_error;
	int		 writes;	/* since the last cache_unmap_pages */
	struct cache_wb	 wb;		/* learned, not yet committed */
	struct event	*ev_wb;		/* commits what wb holds */
	struct event	*ev_trim;	/* malloc_trim once idle */

	struct timespec	 wb_last;	/* the last commit (monotonic) */

	/* the policy events (resolver_history.c) */
	struct linelog	*history;	/* NULL: no history file */
	time_t		 last_history_error;
	struct history_event *hev;	/* scratch: one event */
	struct cache_record hist_old;	/* the cached record, when the job
					   did not read it */
	struct preload_store *preload;	/* read-only, NULL until it opens */
	time_t		 preload_retry;	/* the last open tried */

	/* scratch */
	unsigned char	 msg[IPC_MAX_MSG];
	unsigned char	 rec[IPC_MAX_RECORD];
	unsigned char	 drec[IPC_MAX_RECORD];
	struct cache_record scratch;	/* a cache read looked at and left */
	struct cache_record scratch_d;	/* its DANE part */
};

/* resolver_conn.c */

/* resolver_conn_listen_cb - ev_accept (arg: the resolver): a worker waits
 * to connect: accept it on the next loop turn (resolver_conn_accept_cb) */
void	resolver_conn_listen_cb(evutil_socket_t lfd, short what, void *arg);

/* resolver_conn_accept_cb - ev_accept_turn (arg: the resolver): accept a
 * worker's connection, or refuse it over RESOLVER_MAX_CONNS */
void	resolver_conn_accept_cb(evutil_socket_t fd, short what, void *arg);

/* resolver_conn_free - a worker went away, or the resolver stops: its
 * waits end (the jobs run on), its queued replies are dropped, rc freed */
void	resolver_conn_free(struct rconn *rc);

/* resolver_refresh.c */

/* resolver_refresh_start - with a cache: arm the walk's timer, the first
 * pass a cache.refresh_interval from now */
void	resolver_refresh_start(struct resolver *r);

/* resolver_refresh_stop - free what resolver_refresh_start made */
void	resolver_refresh_stop(struct resolver *r);

/* resolver_job.c */

/* resolver_job_find - the job for a domain, or NULL */
struct job *resolver_job_find(struct resolver *r, const char *d, size_t len);

/* resolver_job_new - a job for domain, hashed, not started; old: the
 * cached MTA-STS record (copied), or NULL */
struct job *resolver_job_new(struct resolver *r, const char *domain,
	    size_t len, const struct cache_record *old);

/* resolver_job_run - start j if a discovery slot is free, else queue it
 * (the caller checked the queue bound) */
void	resolver_job_run(struct job *j);

/*
 * resolver_job_add - a queued or running job must also cover these parts
 * (a request joined it).  A part added to a running job goes through the
 * fleet first, as the job's own parts did (rfleet_want): otherwise it
 * would be discovered here although another host knows it.
 */
void	resolver_job_add(struct job *j, int sts, int dane);

/* resolver_job_wait - rc waits for job j's reply (once per connection) */
void	resolver_job_wait(struct rconn *rc, struct job *j);

/* resolver_job_leave - rc waits for no job any more (it went away: the
 * jobs run on, they fill the cache) */
void	resolver_job_leave(struct rconn *rc);

/* resolver_job_free_all - cancel every job; keep: what they learned goes
 * to the write-behind array, else it is forgotten */
void	resolver_job_free_all(struct resolver *r, int keep);

/* resolver_reply.c */

/*
 * resolver_reply_send - one reply to one worker connection, never
 * blocking: sent now, or queued while the socket is full, or dropped
 * (counted) when the connection's queue is full.  rec, drec: the encoded
 * MTA-STS and DANE records (NULL when not known).
 */
void	resolver_reply_send(struct rconn *rc, const char *domain, size_t len,
	    int status, const unsigned char *rec, size_t rec_len,
	    const unsigned char *drec, size_t drec_len);

/* resolver_reply_write_cb - rc->ev_write (arg: the connection): the
 * worker's socket has room: send what is queued */
void	resolver_reply_write_cb(evutil_socket_t fd, short what, void *arg);

/* resolver_reply_clear - forget every reply queued for rc */
void	resolver_reply_clear(struct rconn *rc);

/* resolver_store.c */

/* resolver_store_start - the write-behind array and its timer; with
 * cache.enabled, the cache opened (and repaired) as the writer (NULL if
 * it cannot be: the resolver runs without) */
void	resolver_store_start(struct resolver *r);

/* resolver_store_stop - keep: commit what the array holds; then release
 * it and close the cache */
void	resolver_store_stop(struct resolver *r, int keep);

/* resolver_store_cached - the cached MTA-STS (dane 0) or DANE (dane 1)
 * record of a domain into *rec, the write-behind array first: 1 if there
 * is one, 0 if not */
int	resolver_store_cached(struct resolver *r, const char *domain,
	    size_t len, int dane, struct cache_record *rec);

/* resolver_store_fresh - 1 if the cached record of that part may be used
 * now */
int	resolver_store_fresh(struct resolver *r, const char *domain, size_t len,
	    int dane);

/*
 * resolver_store_many - write n records (keys[i], recs[i], copied): into
 * the write-behind array, committed with others at most
 * RESOLVER_WB_GAP_MS later
 */
void	resolver_store_many(struct resolver *r, const char *const *keys,
	    const struct cache_record *const *recs, size_t n);

/* resolver_store_fleet - a record taken from the fleet (rfleet_store_fn;
 * arg: the resolver): written as one of our own */
void	resolver_store_fleet(void *arg, const char *key,
	    const struct cache_record *rec);

/* resolver_store_flush - commit what the write-behind array holds now, in
 * one transaction */
void	resolver_store_flush(struct resolver *r);

/* resolver_store_unmap - every page of the cache was read through the
 * map (a refresh pass): drop the mappings now (cache_unmap_pages) */
void	resolver_store_unmap(struct resolver *r);

/* resolver_store_idle_trim - a job ended: once no job has ended for
 * RESOLVER_TRIM_IDLE_MS and none runs, give the heap's free pages back
 * (malloc_trim) */
void	resolver_store_idle_trim(struct resolver *r);

/* resolver_history.c */

/* resolver_history_start - the history file (cache.history_file, with a
 * cache), opened at its first line; resolver_history_stop closes it */
void	resolver_history_start(struct resolver *r);
void	resolver_history_stop(struct resolver *r);

/*
 * resolver_history_sts - the events of job j's MTA-STS merge: res the
 * discovery, stored what facts_merge() gave (or the cached record kept),
 * refused its facts_downgrade_refused(), trigger the decision log's
 * refresh=, now the merge's time; and, for a domain a preload list
 * names, preload-overridden when stored is an STS policy that the cache
 * did not hold before (none, or another id or mode)
 */
void	resolver_history_sts(struct job *j, const struct discover_result *res,
	    const struct cache_record *stored, int refused,
	    const char *trigger, int64_t now);

/* resolver_history_dane - the events of job j's DANE merge */
void	resolver_history_dane(struct job *j, const struct cache_record *stored,
	    const char *trigger, int64_t now);

/* resolver_history_deleted - the refresh walk deletes rec, the record of
 * domain, long expired: an STS policy no merge replaced is an expired
 * event (trigger "deletion") */
void	resolver_history_deleted(struct resolver *r, const char *domain,
	    const struct cache_record *rec);

/* resolver_history_emit - one event (policy/history.h): logged (notice
 * for history_event_alert()), counted, appended to the file */
void	resolver_history_emit(struct resolver *r,
	    const struct history_event *ev);

#endif
