/*
 * worker_int.h - what the front worker's files share (private: worker.h is
 * the public interface)
 *
 * One worker process is four files, one concern each:
 *   worker.c          the process: worker_main, the open-file limit, drain
 *   worker_conn.c     Postfix socketmap connections and their request slots
 *   worker_answer.c   the answer to a request: pin, cache, facts
 *   worker_rclient.c  the resolver client and the in-flight table
 * They share struct worker (one per process) and the structs below; each
 * function here is defined in the file its prefix names.
 *
 * Calls run downwards, but for one loop: worker.c calls worker_conn.c and
 * worker_rclient.c; both of those call worker_answer.c, which calls
 * neither (it returns a verdict that worker_conn.c acts on).  worker_conn.c
 * and worker_rclient.c call each other, because a waiting request's slot
 * belongs to both: the connection owns it (its place in the reply FIFO)
 * and hands it to the resolver client to wait in (worker_rclient_ask); the
 * resolver client holds it in its in-flight table and gives it back
 * answered (worker_conn_slot_complete, at the resolver's reply or the
 * deadline); a connection that closes takes its slots out of the table
 * (worker_rclient_detach).  Either direction through a function pointer
 * would keep the same loop, only out of sight.
 */
#ifndef WORKER_INT_H
#define WORKER_INT_H

#include <sys/queue.h>
#include <sys/time.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "lib/cache_record.h"
#include "lib/domain.h"
#include "lib/domtab.h"
#include "lib/ipc.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

struct buf;
struct cache;
struct preload_store;
struct config;
struct config_map;

/* Room for one formatted reply: the netstring prefix plus the payload. */
#define WORKER_REPLY_BUFSZ	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)
/* Give memory back (xtrim) once this many connections are gone since the
 * peak, or a connection that held a big output buffer closed; the trim
 * waits until the burst is over. */
#define WORKER_TRIM_CONNS	256
#define WORKER_TRIM_DELAY_MS	200
#define WORKER_DROPPED_MEMO	64	/* domains whose dropped TLSRPT is
					   logged (worker_tlsrpt_dropped) */
/* The answer memo (worker_answer.c): slots, and the longest key and reply
 * data it keeps (Postfix's keys and plain policies are far shorter; a
 * longer one is answered the full way every time). */
#define WORKER_MEMO_SLOTS	256
#define WORKER_MEMO_KEY		128
#define WORKER_MEMO_DATA	512

/* One remembered cache answer: valid while the cache's version and the
 * wall-clock second are those it was made at. */
struct worker_memo {
	const struct config_map *map;
	uint64_t	 version;	/* the snapshot its reads saw
					   (cache_read_version) */
	time_t		 second;	/* clock_wall() of the reads */
	uint16_t	 key_len;	/* 0: empty slot */
	uint16_t	 data_len;
	enum sockmap_status st;
	char		 key[WORKER_MEMO_KEY];	/* normalized domain */
	char		 data[WORKER_MEMO_DATA];
};

/*
 * accept(2) failing for want of resources (EMFILE, ENFILE, ENOBUFS,
 * ENOMEM) or for a reason we do not know pauses the listeners, for
 * WORKER_ACCEPT_PAUSE_MIN_MS doubling up to WORKER_ACCEPT_PAUSE_MAX_MS
 * while it keeps failing (back to the minimum at the next accepted
 * connection): a listener left on would wake the worker for the same
 * waiting connection at once, for ever.  Out of descriptors, the worker
 * first gives up its spare one (an open /dev/null) to take and close up to
 * WORKER_ACCEPT_SPARE_MAX waiting connections: their clients see EOF, as
 * over max_connections, instead of hanging in the backlog.
 */
/*
 * A draining worker (SIGTERM: a reload or a stop) keeps an idle
 * connection this long and answers a request that arrives meanwhile
 * before closing it: a connection accepted just before the drain, whose
 * client's request is on its way, is answered, not closed under it (that
 * close after the one of the client's previous connection would spend
 * Postfix's one retry: a failed lookup, tests/fault/reload-burst.sh).
 */
#define WORKER_DRAIN_LINGER_MS	250
#define WORKER_ACCEPT_PAUSE_MIN_MS	100
#define WORKER_ACCEPT_PAUSE_MAX_MS	1000
#define WORKER_ACCEPT_SPARE_MAX		64
/* Seconds between two lines of one rate-limited warning (the connection
 * limit, accept errors). */
#define WORKER_WARN_INTERVAL		60

/* A rate-limited warning: at most one line per WORKER_WARN_INTERVAL, which
 * counts the events not logged since the line before. */
struct worker_ratelog {
	time_t		 last;		/* clock_wall() of the last line */
	unsigned long long suppressed;	/* events since, not logged */
};

struct inflight;
struct worker;

/* The connection to one resolver (worker_rclient.c): each owns a shard of
 * the domains (lib/ipc.h ipc_shard), each has its own socket, its own
 * requests to send and its own reconnection. */
struct rlink {
	struct worker	*w;
	int		 shard;
	int		 fd;		/* -1: not connected */
	struct event	*ev_read;
	struct event	*ev_write;
	struct event	*ev_reconnect;
	const char	*lost;		/* why it was lost, until reconnected */
	int		 lost_errno;
	time_t		 txt_paused;	/* second of the last refused TXT
					   re-check: none asked in it */
	TAILQ_HEAD(, inflight) unsent;
};

/* One request whose reply must wait: for the resolver or for its turn. */
struct slot {
	TAILQ_ENTRY(slot) c_entry;	/* the connection's reply FIFO */
	TAILQ_ENTRY(slot) i_entry;	/* the inflight's waiters */
	struct conn	*conn;
	struct inflight	*inf;		/* non-NULL while waiting */
	const struct config_map *map;
	struct event	*deadline;
	int		 done;
	char		*reply;		/* formatted netstring, when done */
	size_t		 reply_len;
	uint64_t	 t0;		/* request decoded (stats_clock) */
};

/* A domain this worker has asked the resolver about. */
struct inflight {
	struct domtab_node node;	/* the domain, in w->inflight */
	TAILQ_ENTRY(inflight) u_entry;	/* its resolver's unsent list */
	struct rlink	*rl;		/* the resolver that owns the domain */
	TAILQ_HEAD(, slot) waiters;
	int		 unsent;
	int		 txtcheck;	/* a background TXT re-check marker */
	time_t		 asked;		/* txtcheck: when it was queued */
};

struct conn {
	TAILQ_ENTRY(conn) entry;
	struct worker	*w;
	int		 fd;
	struct event	*ev_read;
	struct event	*ev_write;
	struct event	*ev_idle;	/* idle_timeout after active_ms */
	int64_t		 active_ms;	/* clock_ms() of the last read */
	struct evbuffer	*in;
	struct evbuffer	*out;
	int		 reading;	/* ev_read armed */
	int		 writing;	/* ev_write armed */
	TAILQ_HEAD(, slot) fifo;	/* replies not yet written, in order */
	int		 nslots;
	int		 closing;	/* close once output is written */
	int		 reading_paused;
	int		 big;		/* output went over OUTPUT_HIGH */
};

struct worker {
	struct event_base *base;
	const struct config *cf;
	int		 id;
	struct evconnlistener **listeners;
	int		 nlisteners;
	TAILQ_HEAD(, conn) conns;
	int		 nconns;
	int		 max_conns;	/* max_connections, or what fds allow */
	int		 conns_peak;	/* since the last trim */
	struct event	*ev_trim;
	struct event	*ev_balance;	/* re-checks a paused accept */
	int		 accept_paused;	/* listeners off: too many connections
					   beside the other workers */
	int64_t		 paused_at_ms;	/* clock_ms() when paused */
	int		 accept_failed;	/* listeners off: accept(2) failed */
	int		 listening;	/* the listeners are enabled */
	int		 accept_pause_ms;	/* the last pause, 0 after an
						   accepted connection */
	struct event	*ev_accept;	/* ends an accept_failed pause */
	int		 spare_fd;	/* /dev/null, or -1 */

	unsigned long long refused;	/* connections over max_conns */
	unsigned long long accept_errors;
	struct worker_ratelog refuse_log;
	struct worker_ratelog accept_log;
	struct worker_ratelog spare_log;
	int		 draining;
	struct event	*ev_drain;
	struct event	*ev_linger;	/* WORKER_DRAIN_LINGER_MS: idle
					   connections closed */
	struct timeval	 deadline;

	/* the resolver connections, one a resolver (cf->resolvers) */
	struct rlink	*rl;
	int		 nrl;
	struct domtab	 inflight;	/* struct inflight by domain */

	/* the shared cache, read-only; opened once the resolver made it */
	struct cache	*cache;
	time_t		 cache_retry;

	/* the preload store (issue 38), read-only, read only for a domain
	 * without a discovered policy; opened once it exists */
	struct preload_store *preload;
	time_t		 preload_retry;
	int64_t		 preload_warned;	/* expires last warned of */

	struct timeval	 idle;
	uint64_t	 t0;		/* the request being answered */
	char		 reply[WORKER_REPLY_BUFSZ];	/* hot-path scratch */
	char		 rbuf[16384];			/* read(2) scratch */
	char		 data[SOCKMAP_MAX_OK_DATA];
	unsigned char	 msg[IPC_MAX_MSG];
	struct cache_record rec;
	struct cache_record drec;	/* DANE facts */
	struct {
		uint32_t h;		/* hash_fnv1a of the domain */
		int64_t	 fetched_at;	/* of the record logged */
	}		 dropped[WORKER_DROPPED_MEMO];	/* TLSRPT left out:
							   logged for these */
	unsigned char	*pin_lapsed;	/* per cf->domains[i]: its lapse is
					   logged (allocated at the first) */
	struct worker_memo *memo;	/* WORKER_MEMO_SLOTS, at the first
					   cache answer */
	struct sts_policy pol;
};

/* worker_conn.c */

/* worker_conn_accept_cb - evconnlistener callback: a new Postfix
 * connection (arg: the worker), or closed at once over max_conns */
void	worker_conn_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
	    struct sockaddr *sa, int salen, void *arg);

/* worker_conn_accept_error_cb - accept(2) failed (arg: the worker):
 * count, log (rate-limited) and, unless the error was a waiting
 * connection's own, pause the listeners (WORKER_ACCEPT_PAUSE_MIN_MS) */
void	worker_conn_accept_error_cb(struct evconnlistener *l, void *arg);

/* worker_conn_accept_resume_cb - ev_accept timer (arg: the worker): the
 * pause after a failed accept(2) is over, the listeners back on */
void	worker_conn_accept_resume_cb(evutil_socket_t fd, short what,
	    void *arg);

/* worker_conn_spare - open the spare descriptor (w->spare_fd) if it is
 * not; a failure is logged (once a WORKER_WARN_INTERVAL) and retried at the
 * end of the next pause */
void	worker_conn_spare(struct worker *w);

/* worker_conn_balance_cb - ev_balance timer (arg: the worker): a paused
 * accept is looked at again (worker_conn.c, "Balance") */
void	worker_conn_balance_cb(evutil_socket_t fd, short what, void *arg);

/* worker_conn_trim_cb - ev_trim timer (arg: the worker): the burst of

 * closed connections is over, give free memory back */
void	worker_conn_trim_cb(evutil_socket_t fd, short what, void *arg);

/* worker_conn_free - close and forget a connection and its pending
 * requests; ends the loop when the worker drains and it was the last */
void	worker_conn_free(struct conn *c);

/* worker_conn_close_after_write - stop reading; free once the output is
 * out (c may be freed on return) */
void	worker_conn_close_after_write(struct conn *c);

/*
 * worker_conn_reply - answer a request now, or park the answer behind
 * earlier requests of the connection that still wait (replies leave in
 * request order); data[0..len) is the payload after the status
 */
void	worker_conn_reply(struct conn *c, enum sockmap_status st,
	    const char *data, size_t len);

/*
 * worker_conn_slot_complete - a waiting request has its answer: the slot
 * stops waiting (worker_rclient_detach), keeps its formatted reply and,
 * when it heads the FIFO, the finished replies are written
 */
void	worker_conn_slot_complete(struct slot *sl, enum sockmap_status st,
	    const char *data, size_t len);

/* worker_answer.c */

/* What worker_answer() decided for one request. */
enum worker_answer_kind {
	WORKER_ANSWER_REPLY,	/* reply now: st, data[0..len) */
	WORKER_ANSWER_ASK,	/* ask the resolver about domain for map */
};

struct worker_answer_verdict {
	enum sockmap_status st;		/* REPLY: the status */
	const char	*data;		/* REPLY: the payload (in w->data, or
					   a constant), NULL when len is 0 */
	size_t		 len;
	int		 txtcheck;	/* REPLY from a cache record whose TXT
					   id check is due: after replying,
					   ask for a re-check of domain */
	time_t		 now;		/* txtcheck: the time of the read */
	uint64_t	 version;	/* cache answer: the snapshot its reads
					   saw (cache_read_version), 0 if
					   they saw two */
	int		 memo;		/* cache answer the memo may keep */
	const struct config_map *map;	/* the map, NULL if unknown */
	char		 domain[DOMAIN_BUFSZ];	/* normalized, when the key
						   is a plain domain */
	size_t		 domain_len;
};

/*
 * worker_answer - decide one well-formed request "name key" into *v: a
 * reply now (an unknown map, a key that is no plain domain, a pin, a fresh
 * cache entry) or ask the resolver; counts and logs the answers it gives.
 * Sets w->t0 (the request's start, for the latency of an answer later).
 * Calls nothing in worker_conn.c or worker_rclient.c.
 */
enum worker_answer_kind worker_answer(struct worker *w, const char *name,
	    size_t name_len, const char *key, size_t key_len,
	    struct worker_answer_verdict *v);

/*
 * worker_answer_facts - the reply to a lookup of domain for map from its
 * records (sts, dane: either NULL when not known), into data; warns once
 * when a tlsrpt map's attributes had to be left out (then *dropped, if
 * not NULL, is 1; else 0).  Returns the status.
 */
enum sockmap_status worker_answer_facts(struct worker *w, const char *domain,
	    const struct cache_record *sts, const struct cache_record *dane,
	    const struct config_map *map, struct buf *data, int *dropped);

/*
 * worker_answer_preload - nothing is known yet (the deadline passed, the
 * discovery still running): the domain's unexpired enforce preload entry
 * answers, into data and *stp (issue 38: a TXT answer an attacker delays
 * past request_timeout must not open the first contact the list
 * protects).  1 if it answered, 0 if there is none.
 */
int	worker_answer_preload(struct worker *w, const char *domain,
	    const struct config_map *map, struct buf *data,
	    enum sockmap_status *stp);

/* worker_answer_unknown - nothing is known: the deadline answer, into
 * data */
enum sockmap_status worker_answer_unknown(struct worker *w, struct buf *data);

/* worker_rclient.c */

/* worker_rclient_start - an empty in-flight table, connect to the
 * resolver (retried every WORKER_RECONNECT_MS until it listens) */
void	worker_rclient_start(struct worker *w);

/* worker_rclient_stop - close the resolver socket, free the in-flight
 * table (no slot waits any more: the connections are freed) */
void	worker_rclient_stop(struct worker *w);

/*
 * worker_rclient_ask - slot sl (new, with its map and t0) waits for the
 * resolver's facts about domain[0..len) or its deadline
 * (request_timeout); ask the resolver unless this worker already did
 */
void	worker_rclient_ask(struct slot *sl, const char *domain, size_t len);

/*
 * worker_rclient_txtcheck - the answer left from a record whose TXT id
 * check is due: ask the resolver to re-check it in the background, unless
 * this worker already asked or a request for the domain is out
 */
void	worker_rclient_txtcheck(struct worker *w, const char *domain,
	    size_t len, time_t now);

/* worker_rclient_detach - a slot stops waiting: it leaves its in-flight
 * entry (freed if nothing was asked for it yet) and its deadline */
void	worker_rclient_detach(struct slot *sl);

#endif
