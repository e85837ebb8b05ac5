/*
 * worker.c - front worker: Postfix socketmap connections on libevent
 *
 * Wire format (Postfix socketmap_table(5)): the client sends netstrings
 * "<len>:<name> <key>," and reads one netstring reply per request, in order.
 * Postfix's dict_sockmap keeps one connection per smtp(8) process open for
 * many requests, so connections are persistent and many are open at once.
 *
 * Per connection:
 *  - input is decoded in place from the connection's input evbuffer; a
 *    request longer than SOCKMAP_MAX_QUERY is refused as soon as its length
 *    prefix is read, so a 1 MB claim is never buffered;
 *  - a broken frame gets one PERM reply and the connection is closed after
 *    it is written (nothing after a broken frame can be re-synchronized);
 *  - a malformed request inside a good frame gets PERM and the connection
 *    keeps going;
 *  - replies are written in request order; when the client does not read,
 *    we stop reading above WORKER_OUTPUT_HIGH bytes of pending output, so
 *    memory per connection stays bounded;
 *  - an idle connection (or one stalled mid-request) is closed after
 *    idle_timeout seconds.
 * Connections over max_connections are accepted and closed at once: the
 * listener stays responsive and Postfix retries.  The soft open-file limit
 * is raised to fit max_connections (or the limit lowered to what fits).
 * At most max_inflight requests per connection wait for an answer; above
 * that the connection is not read until answers have left.
 *
 * Lookups the worker cannot answer at once (no pin, no fresh cache entry)
 * go to the resolver process over a SOCK_SEQPACKET socket.  Requests for
 * one domain are coalesced per worker (one "inflight" entry with a list of
 * waiting request slots); the resolver coalesces across workers.  Each slot
 * has its own deadline (request_timeout): a lookup still running then is
 * answered with deadline_answer (RFC 8461 §5: fail open by default) while
 * the resolver carries on, so the next request finds the result.  Replies
 * leave a connection strictly in request order: an answer that is ready
 * while an earlier request still waits is parked in its slot.
 *
 * A cache answer from an STS record whose TXT id check is due
 * (facts_txt_due: the TXT TTL has passed) is sent at once, and then the
 * resolver is asked, once, to re-check the id in the background
 * (IPC_FLAG_TXTCHECK): the in-flight table holds a marker entry without
 * waiters until the resolver replies, so further lookups of the domain do
 * not ask again (nor allocate); a marker whose reply never came is sent
 * again after WORKER_TXTCHECK_RESEND seconds.
 *
 * On SIGTERM/SIGINT the worker stops accepting, closes idle connections,
 * lets in-flight requests finish and returns.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "daemon/child.h"
#include "lib/domain.h"
#include "lib/domtab.h"
#include "lib/hash.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "daemon/sandbox.h"
#include "lib/sockmap.h"
#include "daemon/stats.h"
#include "policy/sts_policy.h"
#include "daemon/worker.h"
#include "lib/xmalloc.h"

/* Longest frame: digits, ':', payload, ','. */
#define WORKER_MAX_FRAME	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_QUERY)
/* Room for one formatted reply: the netstring prefix plus the payload. */
#define WORKER_REPLY_BUFSZ	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)
#define WORKER_INFLIGHT_BUCKETS	4096	/* power of two */
#define WORKER_RECONNECT_MS	500
/* Descriptors a worker needs besides its connections: listeners, the
 * resolver socket, the cache, the event base, logging. */
#define WORKER_FD_RESERVE	64
/* Give memory back (xtrim) once this many connections are gone since the
 * peak, or a connection that held a big output buffer closed; the trim
 * waits until the burst is over. */
#define WORKER_TRIM_CONNS	256
#define WORKER_TRIM_DELAY_MS	200

/* A TXT re-check marker whose reply did not come (a reply the resolver
 * had to drop) is sent again after this many seconds. */
#define WORKER_TXTCHECK_RESEND	120
#define WORKER_DROPPED_MEMO	64	/* domains whose dropped TLSRPT is
					   logged (worker_tlsrpt_dropped) */

struct inflight;

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
	TAILQ_ENTRY(inflight) u_entry;	/* unsent list */
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
	struct event	*ev_idle;
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
	unsigned long long refused;	/* connections over max_conns */
	time_t		 last_refuse_log;
	int		 draining;
	struct event	*ev_drain;
	struct timeval	 deadline;

	/* the resolver connection */
	int		 rfd;
	struct event	*ev_rread;
	struct event	*ev_rwrite;
	struct event	*ev_reconnect;
	const char	*rlost;		/* why it was lost, until reconnected */
	int		 rlost_errno;
	struct domtab	 inflight;	/* struct inflight by domain */
	TAILQ_HEAD(, inflight) unsent;

	/* the shared cache, read-only; opened once the resolver made it */
	struct cache	*cache;
	time_t		 cache_retry;

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
	struct sts_policy pol;
};

static void	conn_kick(struct conn *);

/*
 * worker_tlsrpt_dropped - a tlsrpt map's answer went without its TLSRPT
 * attributes (the policy is too large for them within Postfix's 100000
 * bytes): warn once per domain and fetched record in this worker, not at
 * every lookup (a small memo by domain hash; a collision only repeats a
 * warning)
 */
static void
worker_tlsrpt_dropped(struct worker *w, const char *domain,
    const struct cache_record *rec, const struct config_map *map)
{
	uint32_t	 h = hash_fnv1a(domain, strlen(domain));
	size_t		 i = h % WORKER_DROPPED_MEMO;

	if (w->dropped[i].h == h && w->dropped[i].fetched_at ==
	    rec->fetched_at) {
		log_debug(1, "domain=%s map=%s tlsrpt=dropped", domain,
		    map->name);
		return;
	}
	w->dropped[i].h = h;
	w->dropped[i].fetched_at = rec->fetched_at;
	log_warnx("domain=%s map=%s tlsrpt=dropped nmx=%u: the TLSRPT "
	    "attributes of this policy would not fit Postfix's %d-byte "
	    "socketmap reply: answering the policy without them (no TLSRPT "
	    "report for this domain)", domain, map->name, (unsigned)rec->nmx,
	    SOCKMAP_MAX_REPLY);
}
static int	conn_process(struct conn *);
static void	rclient_connect(struct worker *);
static void	rclient_lost(struct worker *, const char *, int);
static void	rclient_close(struct worker *);
static void	rclient_flush(struct worker *);
static void	rclient_txtcheck(struct worker *, const char *, size_t, time_t);

/* inflight_find - the entry for a domain, or NULL */
static struct inflight *
inflight_find(struct worker *w, const char *d, size_t len)
{
	struct domtab_node *n;

	if ((n = domtab_find(&w->inflight, d, len)) == NULL)
		return (NULL);
	return (DOMTAB_ENTRY(n, struct inflight, node));
}

/* inflight_remove - unlink and free an entry (its waiters are gone) */
static void
inflight_remove(struct worker *w, struct inflight *inf)
{
	domtab_remove(&w->inflight, &inf->node);
	if (inf->unsent)
		TAILQ_REMOVE(&w->unsent, inf, u_entry);
	free(inf);
}

/* slot_detach - stop waiting: leave the inflight, cancel the deadline */
static void
slot_detach(struct slot *sl)
{
	struct inflight	*inf = sl->inf;

	if (inf != NULL) {
		TAILQ_REMOVE(&inf->waiters, sl, i_entry);
		sl->inf = NULL;
		/* Nobody waits and nothing was asked yet: forget it. */
		if (TAILQ_EMPTY(&inf->waiters) && inf->unsent)
			inflight_remove(sl->conn->w, inf);
	}
	if (sl->deadline != NULL) {
		event_free(sl->deadline);
		sl->deadline = NULL;
	}
}

/* slot_free - release a slot (already out of its connection's FIFO) */
static void
slot_free(struct slot *sl)
{
	slot_detach(sl);
	free(sl->reply);
	free(sl);
}

/* worker_trim_cb - the burst is over: give free memory back */
static void
worker_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	xtrim();
	w->conns_peak = w->nconns;
}

/* worker_trim_soon - trim once nothing more was freed for a moment */
static void
worker_trim_soon(struct worker *w)
{
	struct timeval	 tv = { 0, WORKER_TRIM_DELAY_MS * 1000 };

	if (w->ev_trim != NULL && !w->draining)
		evtimer_add(w->ev_trim, &tv);
}

/* conn_free - close and forget a connection and its pending requests */
static void
conn_free(struct conn *c)
{
	struct worker	*w = c->w;
	struct slot	*sl;

	while ((sl = TAILQ_FIRST(&c->fifo)) != NULL) {
		TAILQ_REMOVE(&c->fifo, sl, c_entry);
		slot_free(sl);
	}
	TAILQ_REMOVE(&w->conns, c, entry);
	w->nconns--;
	if (c->big || w->conns_peak - w->nconns >= WORKER_TRIM_CONNS)
		worker_trim_soon(w);
	stats_inc(STATS_CONN_CLOSED);
	event_free(c->ev_read);
	event_free(c->ev_write);
	event_free(c->ev_idle);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	close(c->fd);
	free(c);
	if (w->draining && w->nconns == 0)
		event_base_loopexit(w->base, NULL);
}

/* conn_read_enable - arm or disarm the read event */
static void
conn_read_enable(struct conn *c, int on)
{
	if (on && !c->reading)
		event_add(c->ev_read, NULL);
	else if (!on && c->reading)
		event_del(c->ev_read);
	c->reading = on;
}

/*
 * conn_output - write what is pending now; wait for EV_WRITE for the rest
 *
 * Writing at once, and arming EV_WRITE only when the socket is full, is
 * what keeps a warm lookup at three system calls (read, write, epoll_wait).
 * Frees the connection (returns -1) when it is closing and done.
 */
static int
conn_output(struct conn *c)
{
	if (evbuffer_get_length(c->out) > 0 &&
	    evbuffer_write(c->out, c->fd) == -1 &&
	    errno != EAGAIN && errno != EINTR) {
		log_debug(1, "connection write error: %s", strerror(errno));
		conn_free(c);
		return (-1);
	}
	if (evbuffer_get_length(c->out) > 0) {
		if (!c->writing) {
			/* A client that reads nothing for idle_timeout goes. */
			event_add(c->ev_write, &c->w->idle);
			c->writing = 1;
		}
		return (0);
	}
	if (c->writing) {
		event_del(c->ev_write);
		c->writing = 0;
	}
	if (c->closing && TAILQ_EMPTY(&c->fifo)) {
		conn_free(c);
		return (-1);
	}
	return (0);
}

/* conn_close_after_write - stop reading; free once the output is out */
static void
conn_close_after_write(struct conn *c)
{
	c->closing = 1;
	conn_read_enable(c, 0);
	conn_output(c);
}

/*
 * worker_format - format one reply into the worker's scratch buffer
 *
 * A reply that does not fit Postfix's limit becomes TEMP: deferring is
 * safer than answering something else.
 */
static struct buf
worker_format(struct worker *w, enum sockmap_status st, const char *data,
    size_t len)
{
	struct buf	 out;

	buf_init_fixed(&out, w->reply, sizeof(w->reply));
	if (sockmap_reply_format(&out, st, data, len) == -1) {
		log_warnx("reply too long (%zu bytes): answering TEMP", len);
		buf_reset(&out);
		if (sockmap_reply_format(&out, SOCKMAP_TEMP,
		    "reply too long", 14) == -1)
			panic("worker_format: cannot format TEMP");
	}
	return (out);
}

/* conn_flush - write every finished reply at the head of the FIFO */
static void
conn_flush(struct conn *c)
{
	struct evbuffer	*out = c->out;
	struct slot	*sl;

	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
	while ((sl = TAILQ_FIRST(&c->fifo)) != NULL && sl->done) {
		TAILQ_REMOVE(&c->fifo, sl, c_entry);
		c->nslots--;
		if (evbuffer_add(out, sl->reply, sl->reply_len) == -1)
			log_warnx("evbuffer_add failed: reply dropped");
		slot_free(sl);
	}
}

/* slot_complete - a waiting request has its answer; flush in order */
static void
slot_complete(struct slot *sl, enum sockmap_status st, const char *data,
    size_t len)
{
	struct conn	*c = sl->conn;
	struct buf	 out;

	slot_detach(sl);
	out = worker_format(c->w, st, data, len);
	sl->reply = xmemdup0(out.data, out.len);
	sl->reply_len = out.len;
	sl->done = 1;
	if (sl == TAILQ_FIRST(&c->fifo)) {
		conn_flush(c);
		conn_kick(c);
	}
}

/* conn_reply - answer now, or park behind earlier requests */
static void
conn_reply(struct conn *c, enum sockmap_status st, const char *data,
    size_t len)
{
	struct slot	*sl;
	struct buf	 out;

	if (TAILQ_EMPTY(&c->fifo)) {
		out = worker_format(c->w, st, data, len);
		if (evbuffer_add(c->out, out.data, out.len) == -1)
			log_warnx("evbuffer_add failed: reply dropped");
		return;
	}
	sl = xcalloc(1, sizeof(*sl));
	sl->conn = c;
	TAILQ_INSERT_TAIL(&c->fifo, sl, c_entry);
	c->nslots++;
	slot_complete(sl, st, data, len);
}

/* slot_deadline_cb - the lookup is still running: answer per config */
static void
slot_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct slot	*sl = arg;

	(void)fd;
	(void)what;
	log_info("domain=%s answer=%s reason=deadline",
	    sl->inf != NULL ? sl->inf->node.domain : "?",
	    sl->conn->w->cf->deadline_answer == CONFIG_ANSWER_TEMP ?
	    "TEMP" : "NOTFOUND");
	stats_lookup(STATS_SRC_DEADLINE, sl->conn->w->cf->deadline_answer ==
	    CONFIG_ANSWER_TEMP ? SOCKMAP_TEMP : SOCKMAP_NOTFOUND, sl->t0);
	if (sl->conn->w->cf->deadline_answer == CONFIG_ANSWER_TEMP)
		slot_complete(sl, SOCKMAP_TEMP, "policy lookup in progress",
		    25);
	else
		slot_complete(sl, SOCKMAP_NOTFOUND, NULL, 0);
}

/* worker_unknown_answer - nothing is known: the deadline answer */
static enum sockmap_status
worker_unknown_answer(struct worker *w, struct buf *data)
{
	if (w->cf->deadline_answer == CONFIG_ANSWER_TEMP) {
		buf_append_str(data, "policy lookup failed");
		return (SOCKMAP_TEMP);
	}
	return (SOCKMAP_NOTFOUND);
}

/*
 * worker_cache_answer - answer from a fresh cache entry; 0 if answered
 *
 * The hot path: one LMDB read (no lock, no allocation) and decide().  The
 * environment is opened read-only on first use; until the resolver has
 * created it, we retry at most once a second.
 */
static int
worker_cache_answer(struct conn *c, const struct config_map *map,
    const char *domain, size_t len)
{
	struct worker	*w = c->w;
	struct buf	 data;
	enum sockmap_status st;
	char		 err[256], key[CACHE_KEY_MAX + 1];
	size_t		 klen;
	time_t		 now;
	int		 due, dropped;

	if (!w->cf->cache.enabled)
		return (-1);
	now = clock_wall();
	if (w->cache == NULL) {
		if (now == w->cache_retry) {
			stats_cache_read(STATS_CACHE_UNAVAILABLE);
			return (-1);
		}
		w->cache_retry = now;
		w->cache = cache_open(w->cf->cache.path, w->cf->cache.max_size,
		    1, err, sizeof(err));
		if (w->cache == NULL) {
			log_debug(2, "worker %d: cache not open yet: %s",
			    w->id, err);
			stats_cache_read(STATS_CACHE_UNAVAILABLE);
			return (-1);
		}
	}
	if (cache_get(w->cache, domain, len, &w->rec) != CACHE_HIT ||
	    w->rec.kind == CACHE_KIND_DANE) {
		stats_cache_read(STATS_CACHE_MISS);
		return (-1);
	}
	if (!cache_record_fresh(&w->rec, (int64_t)now)) {
		stats_cache_read(STATS_CACHE_STALE);
		return (-1);
	}
	if (map->dane) {
		/* the DANE facts are a second entry ("dane:" + domain) */
		klen = cache_dane_key(domain, len, key);
		if (cache_get(w->cache, key, klen, &w->drec) != CACHE_HIT ||
		    w->drec.kind != CACHE_KIND_DANE) {
			stats_cache_read(STATS_CACHE_MISS);
			return (-1);
		}
		if (!cache_record_fresh(&w->drec, (int64_t)now)) {
			stats_cache_read(STATS_CACHE_STALE);
			return (-1);
		}
	}
	stats_cache_read(STATS_CACHE_HIT);
	due = facts_txt_due(&w->rec, (int64_t)now);
	buf_init_fixed(&data, w->data, sizeof(w->data));
	st = facts_answer(domain, &w->rec, map->dane ? &w->drec : NULL, map,
	    &w->pol, &data, &dropped);
	if (dropped)
		worker_tlsrpt_dropped(w, domain, &w->rec, map);
	stats_lookup(STATS_SRC_CACHE, st, w->t0);
	log_debug(1, "domain=%s map=%s source=cache answer=%s", domain,
	    map->name, sockmap_status_name(st));
	conn_reply(c, st, data.data, data.len);
	if (due)
		rclient_txtcheck(w, domain, len, now);
	return (0);
}

/*
 * rclient_txtcheck - the answer left from a record whose TXT id check is
 * due: ask the resolver to re-check it, unless this worker already asked
 * (a marker in the in-flight table) or a request for the domain is out
 */
static void
rclient_txtcheck(struct worker *w, const char *domain, size_t len,
    time_t now)
{
	struct inflight	*inf;

	if ((inf = inflight_find(w, domain, len)) != NULL) {
		if (!inf->txtcheck || inf->unsent ||
		    now - inf->asked < WORKER_TXTCHECK_RESEND)
			return;
		log_debug(1, "domain=%s: TXT re-check unanswered for %ds: "
		    "asking again", domain, WORKER_TXTCHECK_RESEND);
	} else {
		inf = xcalloc(1, sizeof(*inf));
		TAILQ_INIT(&inf->waiters);
		domtab_insert(&w->inflight, &inf->node, domain, len);
		inf->txtcheck = 1;
		log_debug(1, "domain=%s: TXT check due: re-check asked",
		    domain);
	}
	inf->asked = now;
	inf->unsent = 1;
	TAILQ_INSERT_TAIL(&w->unsent, inf, u_entry);
	rclient_flush(w);
}

/* rclient_ask - park the request and ask about the domain */
static void
rclient_ask(struct conn *c, const struct config_map *map,
    const char *domain, size_t len)
{
	struct worker	*w = c->w;
	struct inflight	*inf;
	struct slot	*sl;

	sl = xcalloc(1, sizeof(*sl));
	sl->conn = c;
	sl->map = map;
	sl->t0 = w->t0;
	TAILQ_INSERT_TAIL(&c->fifo, sl, c_entry);
	c->nslots++;
	if ((inf = inflight_find(w, domain, len)) == NULL) {
		inf = xcalloc(1, sizeof(*inf));
		TAILQ_INIT(&inf->waiters);
		domtab_insert(&w->inflight, &inf->node, domain, len);
		inf->unsent = 1;
		TAILQ_INSERT_TAIL(&w->unsent, inf, u_entry);
	} else if (inf->txtcheck) {
		/* a re-check marker: this request needs a full answer (the
		 * DANE part too), so ask plainly; the resolver joins both */
		inf->txtcheck = 0;
		if (!inf->unsent) {
			inf->unsent = 1;
			TAILQ_INSERT_TAIL(&w->unsent, inf, u_entry);
		}
	}
	TAILQ_INSERT_TAIL(&inf->waiters, sl, i_entry);
	sl->inf = inf;
	sl->deadline = evtimer_new(w->base, slot_deadline_cb, sl);
	evtimer_add(sl->deadline, &w->deadline);
	rclient_flush(w);
}

/*
 * worker_pin_answer - answer from the operator's pinned policy for the
 * domain (config "domain" blocks); 0 if answered, -1 if none is pinned
 */
static int
worker_pin_answer(struct conn *c, const struct config_map *map,
    const char *domain)
{
	struct worker	*w = c->w;
	struct buf	 data;
	enum sockmap_status st;

	/* pins.c: the same decide_input as postsmtpsts-query's */
	buf_init_fixed(&data, w->data, sizeof(w->data));
	if (!pins_answer(w->cf, map, domain, &data, &st))
		return (-1);
	log_debug(1, "domain=%s map=%s source=static answer=\"%.*s\"",
	    domain, map->name, (int)data.len, data.data);
	stats_lookup(STATS_SRC_PINNED, st, w->t0);
	conn_reply(c, st, data.data, data.len);
	return (0);
}

/*
 * worker_answer - the answer to one well-formed request
 *
 * Order of precedence: the map must exist (PERM otherwise: Postfix asked a
 * table we do not serve, a configuration error); a key that is not a plain
 * domain gets NOTFOUND (RFC 8461 §3.4: never a parent's policy); an
 * operator's pinned policy wins over anything discovered; then the cache;
 * then the resolver.
 */
static void
worker_answer(struct conn *c, const char *name, size_t name_len,
    const char *key, size_t key_len)
{
	struct worker	*w = c->w;
	const struct config_map *map;
	char		 domain[DOMAIN_BUFSZ], esc[LOG_ESCAPE_MAX * 4 + 8];
	enum domain_status ds;

	w->t0 = stats_clock();
	if ((map = config_find_map(w->cf, name, name_len)) == NULL) {
		log_warnx("request for unknown map \"%s\"",
		    log_escape(esc, sizeof(esc), name, name_len));
		stats_lookup(STATS_SRC_INVALID, SOCKMAP_PERM, w->t0);
		conn_reply(c, SOCKMAP_PERM, "unknown map name", 16);
		return;
	}
	ds = domain_normalize(key, key_len, domain);
	if (ds != DOMAIN_OK) {
		if (ds == DOMAIN_INVALID)
			log_info("key=\"%s\" invalid domain name: NOTFOUND",
			    log_escape(esc, sizeof(esc), key, key_len));
		else
			log_debug(1, "key=\"%s\" not a plain domain: NOTFOUND",
			    log_escape(esc, sizeof(esc), key, key_len));
		stats_lookup(STATS_SRC_INVALID, SOCKMAP_NOTFOUND, w->t0);
		conn_reply(c, SOCKMAP_NOTFOUND, NULL, 0);
		return;
	}
	if (worker_pin_answer(c, map, domain) == 0)
		return;
	if (worker_cache_answer(c, map, domain, strlen(domain)) == 0)
		return;
	rclient_ask(c, map, domain, strlen(domain));
}

/*
 * conn_process - decode and answer every complete request in the input
 *
 * Returns -1 if the connection was freed.
 */
static int
conn_process(struct conn *c)
{
	struct evbuffer	*in = c->in;
	struct evbuffer	*out = c->out;
	enum netstring_status st;
	const char	*payload, *name, *key, *why;
	size_t		 len, want, plen, used, name_len, key_len;
	unsigned char	*p;

	while ((len = evbuffer_get_length(in)) > 0 && !c->closing) {
		if (evbuffer_get_length(out) > WORKER_OUTPUT_HIGH ||
		    c->nslots >= c->w->cf->max_inflight) {
			/* The client is not reading, or has too many
			 * lookups running: stop until that changes. */
			if (evbuffer_get_length(out) > WORKER_OUTPUT_HIGH)
				c->big = 1;
			conn_read_enable(c, 0);
			c->reading_paused = 1;
			return (0);
		}
		want = len < WORKER_MAX_FRAME ? len : WORKER_MAX_FRAME;
		if ((p = evbuffer_pullup(in, (ev_ssize_t)want)) == NULL) {
			log_warnx("evbuffer_pullup failed: closing");
			conn_free(c);
			return (-1);
		}
		st = netstring_decode((const char *)p, want, SOCKMAP_MAX_QUERY,
		    &payload, &plen, &used);
		if (st == NETSTRING_INCOMPLETE)
			return (0);
		if (st != NETSTRING_OK) {
			log_warnx("malformed request: %s: closing connection",
			    netstring_strerror(st));
			stats_inc(STATS_PROTO_FRAME);
			conn_reply(c, SOCKMAP_PERM, netstring_strerror(st),
			    strlen(netstring_strerror(st)));
			evbuffer_drain(in, len);
			conn_close_after_write(c);
			return (-1);
		}
		stats_inc(STATS_REQUESTS);
		if (sockmap_request_parse(payload, plen, &name, &name_len,
		    &key, &key_len, &why) == -1) {
			stats_inc(STATS_PROTO_REQUEST);
			log_warnx("malformed request: %s", why);
			conn_reply(c, SOCKMAP_PERM, why, strlen(why));
		} else
			worker_answer(c, name, name_len, key, key_len);
		evbuffer_drain(in, used);
	}
	return (0);
}

/*
 * conn_kick - push output; resume reading a paused connection once its
 * client has caught up (output below WORKER_OUTPUT_LOW, lookups below
 * max_inflight), serving what is already buffered
 */
static void
conn_kick(struct conn *c)
{
	for (;;) {
		if (conn_output(c) == -1)
			return;
		if (!c->reading_paused || c->closing ||
		    evbuffer_get_length(c->out) >= WORKER_OUTPUT_LOW ||
		    c->nslots >= c->w->cf->max_inflight)
			return;
		c->reading_paused = 0;
		conn_read_enable(c, 1);
		if (conn_process(c) == -1)
			return;
	}
}

/* conn_read_cb - new bytes from Postfix, or EOF */
static void
conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn	*c = arg;
	struct worker	*w = c->w;
	ssize_t		 n;

	(void)what;
	n = read(fd, w->rbuf, sizeof(w->rbuf));
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_debug(1, "connection read error: %s", strerror(errno));
		conn_free(c);
		return;
	}
	if (n == 0) {
		/* EOF.  A half-closed client may still read its answers. */
		conn_close_after_write(c);
		return;
	}
	evtimer_add(c->ev_idle, &w->idle);
	if (evbuffer_add(c->in, w->rbuf, (size_t)n) == -1) {
		log_warnx("evbuffer_add failed: closing connection");
		conn_free(c);
		return;
	}
	if (conn_process(c) == -1)
		return;
	conn_kick(c);
}

/* conn_write_cb - room in the socket again, or the client stopped reading */
static void
conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn	*c = arg;

	(void)fd;
	c->writing = 0;
	if (what & EV_TIMEOUT) {
		log_debug(1, "client read nothing for %d s: closing",
		    c->w->cf->idle_timeout);
		conn_free(c);
		return;
	}
	conn_kick(c);
}

/* conn_idle_cb - no request for idle_timeout seconds */
static void
conn_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn	*c = arg;

	(void)fd;
	(void)what;
	/* Idle means idle: a connection waiting for a lookup is not. */
	if (!TAILQ_EMPTY(&c->fifo)) {
		evtimer_add(c->ev_idle, &c->w->idle);
		return;
	}
	log_debug(1, "connection idle for %d s: closing",
	    c->w->cf->idle_timeout);
	conn_free(c);
}

/* worker_accept_cb - a new Postfix connection */
static void
worker_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c;

	(void)l;
	(void)sa;
	(void)salen;
	if (w->draining || w->nconns >= w->max_conns) {
		/* Closed at once: the client sees EOF and retries, the
		 * connections we serve carry on.  One log line a minute. */
		w->refused++;
		if (!w->draining && clock_wall() - w->last_refuse_log >= 60) {
			log_warnx("worker %d: connection limit %d reached: "
			    "refusing connections (connections_refused=%llu)",
			    w->id, w->max_conns, w->refused);
			w->last_refuse_log = clock_wall();
		}
		stats_inc(STATS_CONN_REFUSED);
		evutil_closesocket(fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->w = w;
	TAILQ_INIT(&c->fifo);
	c->fd = fd;
	c->in = evbuffer_new();
	c->out = evbuffer_new();
	c->ev_read = event_new(w->base, fd, EV_READ | EV_PERSIST, conn_read_cb,
	    c);
	c->ev_write = event_new(w->base, fd, EV_WRITE, conn_write_cb, c);
	c->ev_idle = evtimer_new(w->base, conn_idle_cb, c);
	if (c->in == NULL || c->out == NULL || c->ev_read == NULL ||
	    c->ev_write == NULL || c->ev_idle == NULL)
		fatalx("worker %d: out of memory for a connection", w->id);
	TAILQ_INSERT_TAIL(&w->conns, c, entry);
	w->nconns++;
	if (w->nconns > w->conns_peak)
		w->conns_peak = w->nconns;
	stats_inc(STATS_CONN_ACCEPTED);
	conn_read_enable(c, 1);
	evtimer_add(c->ev_idle, &w->idle);
}

/* worker_accept_error_cb - accept(2) failed: log, keep listening */
static void
worker_accept_error_cb(struct evconnlistener *l, void *arg)
{
	(void)l;
	(void)arg;
	log_warnx("accept: %s",
	    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

/* rclient_reply - facts arrived for a domain: answer its waiters */
static void
rclient_reply(struct worker *w, const struct ipc_reply *rep)
{
	struct inflight	*inf;
	struct slot	*sl;
	struct buf	 data;
	enum sockmap_status st;
	int		 ok, have_sts, have_dane, dropped = 0;

	if ((inf = inflight_find(w, rep->domain, rep->domain_len)) == NULL)
		return;		/* every waiter hit its deadline already */
	have_sts = rep->record_len > 0 &&
	    cache_record_decode(rep->record, rep->record_len, &w->rec) == 0 &&
	    w->rec.kind != CACHE_KIND_DANE;
	have_dane = rep->dane_len > 0 &&
	    cache_record_decode(rep->dane, rep->dane_len, &w->drec) == 0 &&
	    w->drec.kind == CACHE_KIND_DANE;
	ok = rep->status == IPC_STATUS_OK && (have_sts || have_dane);
	/* TEMP: the resolver said why (and counts it); a bad record is ours */
	if (!ok && rep->status == IPC_STATUS_TEMP)
		log_debug(1, "domain=%s: resolver answered TEMP",
		    rep->domain);
	else if (!ok)
		log_warnx("domain=%s: resolver gave no usable record",
		    rep->domain);
	buf_init_fixed(&data, w->data, sizeof(w->data));
	while ((sl = TAILQ_FIRST(&inf->waiters)) != NULL) {
		buf_reset(&data);
		if (ok) {
			st = facts_answer(rep->domain, have_sts ? &w->rec :
			    NULL, have_dane ? &w->drec : NULL, sl->map,
			    &w->pol, &data, &dropped);
			if (dropped)
				worker_tlsrpt_dropped(w, rep->domain, &w->rec,
				    sl->map);
		} else
			st = worker_unknown_answer(w, &data);
		log_debug(1, "domain=%s map=%s source=resolver answer=%s",
		    rep->domain, sl->map->name, sockmap_status_name(st));
		stats_lookup(STATS_SRC_RESOLVER, st, sl->t0);
		slot_complete(sl, st, data.data, data.len);
	}
	inflight_remove(w, inf);
}

/* rclient_read_cb - messages from the resolver */
static void
rclient_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;
	struct ipc_reply rep;
	ssize_t		 n;

	(void)what;
	for (;;) {
		n = recv(fd, w->msg, sizeof(w->msg), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			rclient_lost(w, "resolver connection lost",
			    n == -1 ? errno : 0);
			return;
		}
		if (ipc_reply_decode(w->msg, (size_t)n, &rep) == -1) {
			log_warnx("worker %d: malformed message from resolver "
			    "(%zd bytes) dropped", w->id, n);
			continue;
		}
		rclient_reply(w, &rep);
	}
}

/* rclient_write_cb - the socket has room again */
static void
rclient_write_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	rclient_flush(arg);
}

/* rclient_flush - send every unsent request */
static void
rclient_flush(struct worker *w)
{
	struct inflight	*inf;
	struct ipc_request req;
	unsigned char	 msg[8 + DOMAIN_BUFSZ];
	long		 n;

	if (w->rfd == -1)
		return;
	while ((inf = TAILQ_FIRST(&w->unsent)) != NULL) {
		memset(&req, 0, sizeof(req));
		if (inf->txtcheck)
			req.flags = IPC_FLAG_TXTCHECK;
		memcpy(req.domain, inf->node.domain, inf->node.len);
		req.domain_len = inf->node.len;
		if ((n = ipc_request_encode(&req, msg, sizeof(msg))) == -1)
			panic("rclient_flush: cannot encode %s",
			    inf->node.domain);
		if (send(w->rfd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL)
		    == -1) {
			if (errno == EAGAIN || errno == ENOBUFS) {
				event_add(w->ev_rwrite, NULL);
				return;
			}
			rclient_lost(w, "send to resolver", errno);
			return;
		}
		TAILQ_REMOVE(&w->unsent, inf, u_entry);
		inf->unsent = 0;
	}
}

/*
 * rclient_reconnect_cb - try the resolver socket again; first say why it
 * was lost: a warning, unless the worker is stopping (then the resolver
 * stops too, and losing it is expected)
 */
static void
rclient_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	if (w->rlost != NULL) {
		if (w->draining)
			log_debug(1, "worker %d: %s while stopping%s%s", w->id,
			    w->rlost, w->rlost_errno != 0 ? ": " : "",
			    w->rlost_errno != 0 ? strerror(w->rlost_errno) :
			    "");
		else
			log_warnx("worker %d: %s%s%s", w->id, w->rlost,
			    w->rlost_errno != 0 ? ": " : "",
			    w->rlost_errno != 0 ? strerror(w->rlost_errno) :
			    "");
		w->rlost = NULL;
	}
	rclient_connect(w);
}

/*
 * rclient_lost - the resolver connection broke: reconnect on the next loop
 * turn, where a stop signal that came with the EOF has been handled (the
 * master signals the workers before the resolver, and signals run at a
 * higher priority: child.h), so the log can tell a stop from a failure
 */
static void
rclient_lost(struct worker *w, const char *what, int err)
{
	struct timeval	 now = { 0, 0 };

	rclient_close(w);
	w->rlost = what;
	w->rlost_errno = err;
	evtimer_add(w->ev_reconnect, &now);
}

/* rclient_close - close the resolver socket, if open */
static void
rclient_close(struct worker *w)
{
	if (w->rfd == -1)
		return;
	event_del(w->ev_rread);
	event_del(w->ev_rwrite);
	event_free(w->ev_rread);
	event_free(w->ev_rwrite);
	close(w->rfd);
	w->rfd = -1;
}

/*
 * rclient_connect - (re)connect to the resolver
 *
 * Every inflight domain is marked unsent: what the old resolver was asked
 * is asked again.  Until the resolver answers, waiters are answered by
 * their deadlines, so a dead resolver delays mail by one deadline at most.
 */
static void
rclient_connect(struct worker *w)
{
	struct sockaddr_un sun;
	struct timeval	 tv = { 0, WORKER_RECONNECT_MS * 1000 };
	struct domtab_node *dn;
	struct inflight	*inf;

	rclient_close(w);
	for (dn = domtab_next(&w->inflight, NULL); dn != NULL;
	    dn = domtab_next(&w->inflight, dn)) {
		inf = DOMTAB_ENTRY(dn, struct inflight, node);
		if (!inf->unsent) {
			inf->unsent = 1;
			TAILQ_INSERT_TAIL(&w->unsent, inf, u_entry);
		}
	}
	if (ipc_resolver_addr(w->cf->runtime_dir, &sun) == -1)
		fatalx("runtime_dir too long for a socket path");
	w->rfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0);
	if (w->rfd == -1 || connect(w->rfd, (struct sockaddr *)&sun,
	    sizeof(sun)) == -1) {
		log_debug(1, "worker %d: connect %s: %s", w->id, sun.sun_path,
		    strerror(errno));
		if (w->rfd != -1)
			close(w->rfd);
		w->rfd = -1;
		evtimer_add(w->ev_reconnect, &tv);
		return;
	}
	w->ev_rread = event_new(w->base, w->rfd, EV_READ | EV_PERSIST,
	    rclient_read_cb, w);
	w->ev_rwrite = event_new(w->base, w->rfd, EV_WRITE, rclient_write_cb,
	    w);
	event_add(w->ev_rread, NULL);
	rclient_flush(w);
}

/*
 * worker_fd_limit - make room for max_connections descriptors: raise the
 * soft RLIMIT_NOFILE up to the hard one if needed; if even that is too
 * low, serve fewer connections (an accept(2) failing with EMFILE would
 * leave the client hanging in the backlog instead of refused)
 */
static int
worker_fd_limit(const struct config *cf, int id)
{
	struct rlimit	 rl;
	rlim_t		 need = (rlim_t)cf->max_connections + WORKER_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("worker %d: getrlimit", id);
		return (cf->max_connections);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max >= need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("worker %d: setrlimit", id);
		if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
			return (cf->max_connections);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return (cf->max_connections);
	log_warnx("worker %d: open file limit %llu allows only %llu of "
	    "max_connections %d", id, (unsigned long long)rl.rlim_cur,
	    rl.rlim_cur > 2 * WORKER_FD_RESERVE ? (unsigned long long)
	    (rl.rlim_cur - WORKER_FD_RESERVE) : (unsigned long long)
	    WORKER_FD_RESERVE, cf->max_connections);
	return (rl.rlim_cur > 2 * WORKER_FD_RESERVE ?
	    (int)(rl.rlim_cur - WORKER_FD_RESERVE) : WORKER_FD_RESERVE);
}

/* worker_drain_cb - grace period over: exit even with open connections */
static void
worker_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	log_debug(1, "worker %d: drain timeout, %d connections left",
	    w->id, w->nconns);
	event_base_loopexit(w->base, NULL);
}

/*
 * worker_term_cb - SIGTERM/SIGINT: stop accepting, finish, exit
 *
 * Every connection stops reading and closes once its pending replies are
 * written; a pending lookup is answered by the resolver or its deadline,
 * so the grace period is one deadline plus a margin.
 */
static void
worker_term_cb(int sig, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c, *next;
	struct timeval	 grace;
	int		 i;

	if (w->draining)
		return;
	log_debug(1, "worker %d: signal %d: draining", w->id, sig);
	w->draining = 1;
	for (i = 0; i < w->nlisteners; i++) {
		evconnlistener_free(w->listeners[i]);
		w->listeners[i] = NULL;
	}
	for (c = TAILQ_FIRST(&w->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (!c->closing)
			conn_close_after_write(c);
	}
	if (w->nconns == 0) {
		event_base_loopexit(w->base, NULL);
		return;
	}
	grace.tv_sec = w->cf->request_timeout_ms / 1000 + 2;
	grace.tv_usec = 0;
	w->ev_drain = evtimer_new(w->base, worker_drain_cb, w);
	evtimer_add(w->ev_drain, &grace);
}

int
worker_main(const struct config *cf, const int *fds, int nfds, int id)
{
	struct worker	*w;
	struct conn	*c;
	struct domtab_node *dn;
	char		 name[32];
	int		 i;

	w = xcalloc(1, sizeof(*w));
	w->cf = cf;
	w->id = id;
	w->rfd = -1;
	w->deadline.tv_sec = cf->request_timeout_ms / 1000;
	w->deadline.tv_usec = (cf->request_timeout_ms % 1000) * 1000;
	w->idle.tv_sec = cf->idle_timeout;
	w->max_conns = worker_fd_limit(cf, id);
	TAILQ_INIT(&w->conns);
	TAILQ_INIT(&w->unsent);
	domtab_init(&w->inflight, WORKER_INFLIGHT_BUCKETS);
	(void)snprintf(name, sizeof(name), "worker %d", id);
	w->base = child_base_new(name);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	w->listeners = xcalloc((size_t)nfds, sizeof(*w->listeners));
	w->nlisteners = nfds;
	for (i = 0; i < nfds; i++) {
		evutil_make_socket_nonblocking(fds[i]);
		w->listeners[i] = evconnlistener_new(w->base, worker_accept_cb,
		    w, 0, -1, fds[i]);
		if (w->listeners[i] == NULL)
			fatalx("worker %d: evconnlistener_new failed", id);
		evconnlistener_set_error_cb(w->listeners[i],
		    worker_accept_error_cb);
	}
	w->ev_reconnect = evtimer_new(w->base, rclient_reconnect_cb, w);
	w->ev_trim = evtimer_new(w->base, worker_trim_cb, w);
	rclient_connect(w);

	child_run(w->base, name, sandbox_worker, worker_term_cb, w);

	while ((c = TAILQ_FIRST(&w->conns)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		conn_free(c);
	while ((dn = domtab_next(&w->inflight, NULL)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		inflight_remove(w, DOMTAB_ENTRY(dn, struct inflight, node));
	domtab_free(&w->inflight);
	for (i = 0; i < w->nlisteners; i++)
		if (w->listeners[i] != NULL)
			evconnlistener_free(w->listeners[i]);
	free(w->listeners);
	if (w->rfd != -1) {
		event_free(w->ev_rread);
		event_free(w->ev_rwrite);
		close(w->rfd);
	}
	event_free(w->ev_reconnect);
	event_free(w->ev_trim);
	w->ev_trim = NULL;
	if (w->cache != NULL)
		cache_close(w->cache);
	if (w->ev_drain != NULL)
		event_free(w->ev_drain);
	event_base_free(w->base);
	cache_record_release(&w->rec);
	cache_record_release(&w->drec);
	free(w);
	log_debug(1, "worker %d exiting", id);
	return (0);
}
