/*
 * worker_rclient.c - the worker's client of the resolver process, and its
 * in-flight table
 *
 * Interface (worker_int.h): worker_rclient_start() and _stop() around the
 * worker's loop; worker_rclient_ask() parks a connection's request slot
 * until the resolver answers or its deadline passes, then gives it back
 * answered (worker_conn_slot_complete); worker_rclient_txtcheck() asks
 * for a TXT id re-check in the background; worker_rclient_detach() takes
 * a slot out of the table.  The messages are lib/ipc's; the reply to a
 * waiting request is worker_answer_facts() of the records the resolver
 * sends.  This file and worker_conn.c call each other over the slots:
 * worker_int.h says why.
 *
 * Lookups the worker cannot answer at once (no pin, no fresh cache entry)
 * go to the resolver process over a SOCK_SEQPACKET socket.  Requests for
 * one domain are coalesced per worker (one "inflight" entry with a list of
 * waiting request slots); the resolver coalesces across workers.  Each slot
 * has its own deadline (request_timeout): a lookup still running then is
 * answered with deadline_answer (RFC 8461 §5: fail open by default) while
 * the resolver carries on, so the next request finds the result.  Replies
 * leave a connection strictly in request order (worker_conn.c): an answer
 * that is ready while an earlier request still waits is parked in its slot.
 *
 * A cache answer from an STS record whose TXT id check is due
 * (facts_txt_due: the TXT TTL has passed) is sent at once, and then the
 * resolver is asked, once, to re-check the id in the background
 * (IPC_FLAG_TXTCHECK): the in-flight table holds a marker entry without
 * waiters until the resolver replies, so further lookups of the domain do
 * not ask again (nor allocate); a marker whose reply never came is sent
 * again after WORKER_TXTCHECK_RESEND seconds.  A re-check the resolver
 * refuses (TEMP: it runs at most cache.refresh_concurrency) pauses the
 * re-checks of that resolver for the rest of the second (rlink's
 * txt_paused): a big cache of due ids costs a message a second, not one
 * refused message per answer.
 *
 * With several resolvers (cf->resolvers), the worker holds a connection
 * to each (struct rlink) and asks the one that owns the domain (lib/ipc.h
 * ipc_shard): single flight per domain stays one process's business.
 * A lost resolver connection is retried every WORKER_RECONNECT_MS; what
 * the old resolver was asked is asked again, and until it answers the
 * waiters get their deadline answers; the other resolvers' domains are
 * not affected.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/buf.h"
#include "lib/cache_record.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/domtab.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "lib/sockmap.h"
#include "daemon/stats.h"
#include "daemon/worker_int.h"
#include "lib/xmalloc.h"

#define WORKER_INFLIGHT_BUCKETS	4096	/* power of two */
#define WORKER_RECONNECT_MS	500
/* A TXT re-check marker whose reply did not come (a reply the resolver
 * had to drop) is sent again after this many seconds. */
#define WORKER_TXTCHECK_RESEND	120

static void	rclient_connect(struct rlink *);
static void	rclient_lost(struct rlink *, const char *, int);
static void	rclient_close(struct rlink *);
static void	rclient_flush(struct rlink *);

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
		TAILQ_REMOVE(&inf->rl->unsent, inf, u_entry);
	free(inf);
}

/* inflight_new - a new entry for domain, owned by its resolver's link */
static struct inflight *
inflight_new(struct worker *w, const char *domain, size_t len)
{
	struct inflight	*inf;

	inf = xcalloc(1, sizeof(*inf));
	TAILQ_INIT(&inf->waiters);
	domtab_insert(&w->inflight, &inf->node, domain, len);
	inf->rl = &w->rl[ipc_shard(domain, len, w->nrl)];
	return (inf);
}

/* inflight_queue - inf is to be sent (again) */
static void
inflight_queue(struct inflight *inf)
{
	if (inf->unsent)
		return;
	inf->unsent = 1;
	TAILQ_INSERT_TAIL(&inf->rl->unsent, inf, u_entry);
}

void
worker_rclient_detach(struct slot *sl)
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

/* slot_deadline_cb - the lookup is still running: answer per config */
static void
slot_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct slot	*sl = arg;
	struct worker	*w = sl->conn->w;
	struct buf	 data;
	enum sockmap_status st;

	(void)fd;
	(void)what;
	buf_init_fixed(&data, w->data, sizeof(w->data));
	if (sl->inf != NULL && worker_answer_preload(w, sl->inf->node.domain,
	    sl->map, &data, &st)) {
		log_info("domain=%s answer=%s reason=deadline source=preload",
		    sl->inf->node.domain, sockmap_status_name(st));
		stats_lookup(STATS_SRC_DEADLINE, st, data.data, data.len,
		    sl->t0);
		worker_conn_slot_complete(sl, st, data.data, data.len);
		return;
	}
	log_info("domain=%s answer=%s reason=deadline",
	    sl->inf != NULL ? sl->inf->node.domain : "?",
	    sl->conn->w->cf->deadline_answer == CONFIG_ANSWER_TEMP ?
	    "TEMP" : "NOTFOUND");
	stats_lookup(STATS_SRC_DEADLINE, sl->conn->w->cf->deadline_answer ==
	    CONFIG_ANSWER_TEMP ? SOCKMAP_TEMP : SOCKMAP_NOTFOUND, NULL, 0,
	    sl->t0);
	if (sl->conn->w->cf->deadline_answer == CONFIG_ANSWER_TEMP)
		worker_conn_slot_complete(sl, SOCKMAP_TEMP,
		    "policy lookup in progress", 25);
	else
		worker_conn_slot_complete(sl, SOCKMAP_NOTFOUND, NULL, 0);
}

void
worker_rclient_txtcheck(struct worker *w, const char *domain, size_t len,
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
		if (w->rl[ipc_shard(domain, len, w->nrl)].txt_paused == now)
			return;
		inf = inflight_new(w, domain, len);
		inf->txtcheck = 1;
		log_debug(1, "domain=%s: TXT check due: re-check asked",
		    domain);
	}
	inf->asked = now;
	inflight_queue(inf);
	rclient_flush(inf->rl);
}

void
worker_rclient_ask(struct slot *sl, const char *domain, size_t len)
{
	struct worker	*w = sl->conn->w;
	struct inflight	*inf;

	if ((inf = inflight_find(w, domain, len)) == NULL) {
		inf = inflight_new(w, domain, len);
		inflight_queue(inf);
	} else if (inf->txtcheck) {
		/* a re-check marker: this request needs a full answer (the
		 * DANE part too), so ask plainly; the resolver joins both */
		inf->txtcheck = 0;
		inflight_queue(inf);
	}
	TAILQ_INSERT_TAIL(&inf->waiters, sl, i_entry);
	sl->inf = inf;
	sl->deadline = evtimer_new(w->base, slot_deadline_cb, sl);
	evtimer_add(sl->deadline, &w->deadline);
	rclient_flush(inf->rl);
}

/* rclient_reply - facts arrived for a domain: answer its waiters */
static void
rclient_reply(struct worker *w, const struct ipc_reply *rep)
{
	struct inflight	*inf;
	struct slot	*sl;
	struct buf	 data;
	enum sockmap_status st;
	int		 ok, have_sts, have_dane;

	if ((inf = inflight_find(w, rep->domain, rep->domain_len)) == NULL)
		return;		/* every waiter hit its deadline already */
	if (inf->unsent && !inf->txtcheck)
		/*
		 * The reply to a TXT re-check that a lookup joined before its
		 * own plain request could leave (the socket was full): that
		 * request is still to be sent and its waiters need its full
		 * answer (the DANE part too), so they wait for it.  Answering
		 * them here would also let the last waiter's detach free inf
		 * (nobody waits, nothing sent) under this loop.
		 */
		return;
	have_sts = rep->record_len > 0 &&
	    cache_record_decode(rep->record, rep->record_len, &w->rec) == 0 &&
	    w->rec.kind != CACHE_KIND_DANE;
	have_dane = rep->dane_len > 0 &&
	    cache_record_decode(rep->dane, rep->dane_len, &w->drec) == 0 &&
	    w->drec.kind == CACHE_KIND_DANE;
	ok = rep->status == IPC_STATUS_OK && (have_sts || have_dane);
	if (!ok && rep->status == IPC_STATUS_TEMP && inf->txtcheck &&
	    TAILQ_EMPTY(&inf->waiters)) {
		/* a refused re-check (its resolver runs as many as it takes):
		 * no more asked of it in this second, else a cache of many
		 * due ids sends it one refused message per answer */
		inf->rl->txt_paused = clock_wall();
		log_debug(1, "domain=%s: TXT re-check deferred by the "
		    "resolver", rep->domain);
		inflight_remove(w, inf);
		return;
	}
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
		if (ok)
			st = worker_answer_facts(w, rep->domain, have_sts ?
			    &w->rec : NULL, have_dane ? &w->drec : NULL,
			    sl->map, &data, NULL);
		else
			st = worker_answer_unknown(w, &data);
		log_debug(1, "domain=%s map=%s source=resolver answer=%s",
		    rep->domain, sl->map->name, sockmap_status_name(st));
		stats_lookup(STATS_SRC_RESOLVER, st, data.data, data.len,
		    sl->t0);
		worker_conn_slot_complete(sl, st, data.data, data.len);
	}
	inflight_remove(w, inf);
}

/* rclient_read_cb - messages from a resolver */
static void
rclient_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rlink	*rl = arg;
	struct worker	*w = rl->w;
	struct ipc_reply rep;
	ssize_t		 n;

	(void)what;
	for (;;) {
		n = recv(fd, w->msg, sizeof(w->msg), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			rclient_lost(rl, "resolver connection lost",
			    n == -1 ? errno : 0);
			return;
		}
		if (ipc_reply_decode(w->msg, (size_t)n, &rep) == -1) {
			log_warnx("worker %d: malformed message from resolver "
			    "%d (%zd bytes) dropped", w->id, rl->shard, n);
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

/* rclient_flush - send every unsent request of a resolver's */
static void
rclient_flush(struct rlink *rl)
{
	struct inflight	*inf;
	struct ipc_request req;
	unsigned char	 msg[8 + DOMAIN_BUFSZ];
	long		 n;

	if (rl->fd == -1)
		return;
	while ((inf = TAILQ_FIRST(&rl->unsent)) != NULL) {
		memset(&req, 0, sizeof(req));
		if (inf->txtcheck)
			req.flags = IPC_FLAG_TXTCHECK;
		memcpy(req.domain, inf->node.domain, inf->node.len);
		req.domain_len = inf->node.len;
		if ((n = ipc_request_encode(&req, msg, sizeof(msg))) == -1)
			panic("rclient_flush: cannot encode %s",
			    inf->node.domain);
		if (send(rl->fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL)
		    == -1) {
			if (errno == EAGAIN || errno == ENOBUFS) {
				event_add(rl->ev_write, NULL);
				return;
			}
			rclient_lost(rl, "send to resolver", errno);
			return;
		}
		TAILQ_REMOVE(&rl->unsent, inf, u_entry);
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
	struct rlink	*rl = arg;
	struct worker	*w = rl->w;

	(void)fd;
	(void)what;
	if (rl->lost != NULL) {
		if (w->draining)
			log_debug(1, "worker %d: resolver %d: %s while "
			    "stopping%s%s", w->id, rl->shard, rl->lost,
			    rl->lost_errno != 0 ? ": " : "",
			    rl->lost_errno != 0 ? strerror(rl->lost_errno) :
			    "");
		else
			log_warnx("worker %d: resolver %d: %s%s%s", w->id,
			    rl->shard, rl->lost, rl->lost_errno != 0 ? ": " :
			    "", rl->lost_errno != 0 ?
			    strerror(rl->lost_errno) : "");
		rl->lost = NULL;
	}
	rclient_connect(rl);
}

/*
 * rclient_lost - the resolver connection broke: reconnect on the next loop
 * turn, where a stop signal that came with the EOF has been handled (the
 * master signals the workers before the resolver, and signals run at a
 * higher priority: child.h), so the log can tell a stop from a failure
 */
static void
rclient_lost(struct rlink *rl, const char *what, int err)
{
	struct timeval	 now = { 0, 0 };

	rclient_close(rl);
	rl->lost = what;
	rl->lost_errno = err;
	evtimer_add(rl->ev_reconnect, &now);
}

/* rclient_close - close a resolver socket, if open */
static void
rclient_close(struct rlink *rl)
{
	if (rl->fd == -1)
		return;
	event_del(rl->ev_read);
	event_del(rl->ev_write);
	event_free(rl->ev_read);
	event_free(rl->ev_write);
	close(rl->fd);
	rl->fd = -1;
}

/*
 * rclient_connect - (re)connect to the resolver
 *
 * Every inflight domain is marked unsent: what the old resolver was asked
 * is asked again.  Until the resolver answers, waiters are answered by
 * their deadlines, so a dead resolver delays mail by one deadline at most.
 */
static void
rclient_connect(struct rlink *rl)
{
	struct worker	*w = rl->w;
	struct sockaddr_un sun;
	struct timeval	 tv = { 0, WORKER_RECONNECT_MS * 1000 };
	struct domtab_node *dn;
	struct inflight	*inf;

	rclient_close(rl);
	for (dn = domtab_next(&w->inflight, NULL); dn != NULL;
	    dn = domtab_next(&w->inflight, dn)) {
		inf = DOMTAB_ENTRY(dn, struct inflight, node);
		if (inf->rl == rl)
			inflight_queue(inf);
	}
	if (ipc_resolver_addr(w->cf->runtime_dir, rl->shard, &sun) == -1)
		fatalx("runtime_dir too long for a socket path");
	rl->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0);
	if (rl->fd == -1 || connect(rl->fd, (struct sockaddr *)&sun,
	    sizeof(sun)) == -1) {
		log_debug(1, "worker %d: connect %s: %s", w->id, sun.sun_path,
		    strerror(errno));
		if (rl->fd != -1)
			close(rl->fd);
		rl->fd = -1;
		evtimer_add(rl->ev_reconnect, &tv);
		return;
	}
	rl->ev_read = event_new(w->base, rl->fd, EV_READ | EV_PERSIST,
	    rclient_read_cb, rl);
	rl->ev_write = event_new(w->base, rl->fd, EV_WRITE, rclient_write_cb,
	    rl);
	event_add(rl->ev_read, NULL);
	rclient_flush(rl);
}

void
worker_rclient_start(struct worker *w)
{
	struct rlink	*rl;
	int		 i;

	domtab_init(&w->inflight, WORKER_INFLIGHT_BUCKETS);
	w->nrl = w->cf->resolvers;
	w->rl = xcalloc((size_t)w->nrl, sizeof(*w->rl));
	for (i = 0; i < w->nrl; i++) {
		rl = &w->rl[i];
		rl->w = w;
		rl->shard = i;
		rl->fd = -1;
		TAILQ_INIT(&rl->unsent);
		rl->ev_reconnect = evtimer_new(w->base, rclient_reconnect_cb,
		    rl);
		rclient_connect(rl);
	}
}

void
worker_rclient_stop(struct worker *w)
{
	struct domtab_node *dn;
	int		 i;

	while ((dn = domtab_next(&w->inflight, NULL)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		inflight_remove(w, DOMTAB_ENTRY(dn, struct inflight, node));
	domtab_free(&w->inflight);
	for (i = 0; i < w->nrl; i++) {
		rclient_close(&w->rl[i]);
		event_free(w->rl[i].ev_reconnect);
	}
	free(w->rl);
	w->rl = NULL;
	w->nrl = 0;
}
