/*
 * worker.c - front worker: Postfix socketmap connections on libevent
 *
 * Wire format (Postfix socketmap_table(5)): the client sends netstrings
 * "<len>:<name> <key>," and reads one netstring reply per request, in order.
 * Postfix's dict_sockmap keeps one connection per smtp(8) process open for
 * many requests, so connections are persistent and many are open at once.
 *
 * Per connection:
 *  - input is decoded in place from the bufferevent's input buffer; a
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
 * listener stays responsive and Postfix retries.
 *
 * On SIGTERM/SIGINT the worker stops accepting, closes idle connections,
 * lets in-flight requests finish and returns.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "buf.h"
#include "config.h"
#include "domain.h"
#include "log.h"
#include "netstring.h"
#include "sockmap.h"
#include "worker.h"
#include "xmalloc.h"

/* Longest frame: digits, ':', payload, ','. */
#define WORKER_MAX_FRAME	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_QUERY)
/* Room for one formatted reply: the netstring prefix plus the payload. */
#define WORKER_REPLY_BUFSZ	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)

struct conn {
	TAILQ_ENTRY(conn) entry;
	struct worker	*w;
	struct bufferevent *bev;
	int		 closing;	/* close once output is written */
	int		 reading_paused;
};

struct worker {
	struct event_base *base;
	const struct config *cf;
	int		 id;
	struct evconnlistener **listeners;
	int		 nlisteners;
	TAILQ_HEAD(, conn) conns;
	int		 nconns;
	int		 draining;
	struct event	*ev_term;
	struct event	*ev_int;
	struct event	*ev_drain;
	char		 reply[WORKER_REPLY_BUFSZ];	/* hot-path scratch */
};

static void	conn_read_cb(struct bufferevent *, void *);
static void	conn_write_cb(struct bufferevent *, void *);
static void	conn_event_cb(struct bufferevent *, short, void *);

/* conn_free - close and forget a connection */
static void
conn_free(struct conn *c)
{
	struct worker	*w = c->w;

	TAILQ_REMOVE(&w->conns, c, entry);
	w->nconns--;
	bufferevent_free(c->bev);
	free(c);
	if (w->draining && w->nconns == 0)
		event_base_loopexit(w->base, NULL);
}

/* conn_reply - queue one reply; on a formatting failure answer TEMP */
static void
conn_reply(struct conn *c, enum sockmap_status st, const char *data,
    size_t len)
{
	struct worker	*w = c->w;
	struct buf	 out;

	buf_init_fixed(&out, w->reply, sizeof(w->reply));
	if (sockmap_reply_format(&out, st, data, len) == -1) {
		log_warnx("reply too long (%zu bytes): answering TEMP", len);
		buf_reset(&out);
		if (sockmap_reply_format(&out, SOCKMAP_TEMP,
		    "reply too long", 14) == -1)
			panic("conn_reply: cannot format TEMP");
	}
	if (evbuffer_add(bufferevent_get_output(c->bev), out.data,
	    out.len) == -1)
		log_warnx("evbuffer_add failed: reply dropped");
}

/*
 * worker_answer - the answer to one well-formed request
 *
 * Order of precedence: the map must exist (PERM otherwise: Postfix asked a
 * table we do not serve, a configuration error); a key that is not a plain
 * domain gets NOTFOUND (RFC 8461 §3.4: never a parent's policy); an
 * operator's pinned policy wins over anything discovered.
 */
static void
worker_answer(struct conn *c, const char *name, size_t name_len,
    const char *key, size_t key_len)
{
	struct worker	*w = c->w;
	const struct config_map *map;
	const struct config_domain *pin;
	char		 domain[DOMAIN_BUFSZ], esc[LOG_ESCAPE_MAX * 4 + 8];
	enum domain_status ds;

	if ((map = config_find_map(w->cf, name, name_len)) == NULL) {
		log_warnx("request for unknown map \"%s\"",
		    log_escape(esc, sizeof(esc), name, name_len));
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
		conn_reply(c, SOCKMAP_NOTFOUND, NULL, 0);
		return;
	}
	if ((pin = config_find_domain(w->cf, domain)) != NULL) {
		log_debug(1, "domain=%s map=%s source=static answer=\"%s\"",
		    domain, map->name, pin->answer);
		conn_reply(c, SOCKMAP_OK, pin->answer, strlen(pin->answer));
		return;
	}
	log_debug(1, "domain=%s map=%s source=none answer=NOTFOUND",
	    domain, map->name);
	conn_reply(c, SOCKMAP_NOTFOUND, NULL, 0);
}

/* conn_close_after_write - stop reading; free once the output is out */
static void
conn_close_after_write(struct conn *c)
{
	c->closing = 1;
	bufferevent_disable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_free(c);
}

/*
 * conn_process - decode and answer every complete request in the input
 *
 * Returns -1 if the connection was freed.
 */
static int
conn_process(struct conn *c)
{
	struct evbuffer	*in = bufferevent_get_input(c->bev);
	struct evbuffer	*out = bufferevent_get_output(c->bev);
	enum netstring_status st;
	const char	*payload, *name, *key, *why;
	size_t		 len, want, plen, used, name_len, key_len;
	unsigned char	*p;

	while ((len = evbuffer_get_length(in)) > 0 && !c->closing) {
		if (evbuffer_get_length(out) > WORKER_OUTPUT_HIGH) {
			/* The client is not reading: stop until it does. */
			bufferevent_disable(c->bev, EV_READ);
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
			conn_reply(c, SOCKMAP_PERM, netstring_strerror(st),
			    strlen(netstring_strerror(st)));
			evbuffer_drain(in, len);
			conn_close_after_write(c);
			return (-1);
		}
		if (sockmap_request_parse(payload, plen, &name, &name_len,
		    &key, &key_len, &why) == -1) {
			log_warnx("malformed request: %s", why);
			conn_reply(c, SOCKMAP_PERM, why, strlen(why));
		} else
			worker_answer(c, name, name_len, key, key_len);
		evbuffer_drain(in, used);
	}
	return (0);
}

/* conn_read_cb - new bytes from Postfix */
static void
conn_read_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg);
}

/* conn_write_cb - output drained to the low-water mark */
static void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn	*c = arg;
	struct evbuffer	*out = bufferevent_get_output(bev);

	if (c->closing) {
		if (evbuffer_get_length(out) == 0)
			conn_free(c);
		return;
	}
	if (c->reading_paused && evbuffer_get_length(out) < WORKER_OUTPUT_LOW) {
		c->reading_paused = 0;
		bufferevent_enable(bev, EV_READ);
		/* Requests may already be buffered: serve them now. */
		conn_process(c);
	}
}

/* conn_event_cb - EOF, error or timeout */
static void
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn	*c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT)
		log_debug(1, "connection idle for %d s: closing",
		    c->w->cf->idle_timeout);
	else if (what & BEV_EVENT_ERROR)
		log_debug(1, "connection error: %s",
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	/* EOF: every complete request was answered in the read callback. */
	conn_free(c);
}

/* worker_accept_cb - a new Postfix connection */
static void
worker_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c;
	struct timeval	 idle;

	(void)l;
	(void)sa;
	(void)salen;
	if (w->draining || w->nconns >= w->cf->max_connections) {
		log_warnx("connection limit %d reached: refusing connection",
		    w->cf->max_connections);
		evutil_closesocket(fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->w = w;
	c->bev = bufferevent_socket_new(w->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		log_warnx("bufferevent_socket_new failed: refusing connection");
		evutil_closesocket(fd);
		free(c);
		return;
	}
	TAILQ_INSERT_TAIL(&w->conns, c, entry);
	w->nconns++;
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, WORKER_OUTPUT_LOW, 0);
	idle.tv_sec = w->cf->idle_timeout;
	idle.tv_usec = 0;
	bufferevent_set_timeouts(c->bev, &idle, &idle);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
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
 * Connections with no request in flight are closed now; the others close
 * once their replies are written (every request here is answered before
 * its read callback returns, so that is the output still queued).
 */
static void
worker_term_cb(evutil_socket_t sig, short what, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c, *next;
	struct timeval	 grace;
	int		 i;

	(void)what;
	if (w->draining)
		return;
	log_debug(1, "worker %d: signal %d: draining", w->id, (int)sig);
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
	struct worker	 w;
	struct conn	*c;
	int		 i;

	memset(&w, 0, sizeof(w));
	w.cf = cf;
	w.id = id;
	TAILQ_INIT(&w.conns);
	signal(SIGPIPE, SIG_IGN);
	if ((w.base = event_base_new()) == NULL)
		fatalx("worker %d: event_base_new failed", id);
	w.listeners = xcalloc((size_t)nfds, sizeof(*w.listeners));
	w.nlisteners = nfds;
	for (i = 0; i < nfds; i++) {
		evutil_make_socket_nonblocking(fds[i]);
		w.listeners[i] = evconnlistener_new(w.base, worker_accept_cb,
		    &w, 0, -1, fds[i]);
		if (w.listeners[i] == NULL)
			fatalx("worker %d: evconnlistener_new failed", id);
		evconnlistener_set_error_cb(w.listeners[i],
		    worker_accept_error_cb);
	}
	w.ev_term = evsignal_new(w.base, SIGTERM, worker_term_cb, &w);
	w.ev_int = evsignal_new(w.base, SIGINT, worker_term_cb, &w);
	evsignal_add(w.ev_term, NULL);
	evsignal_add(w.ev_int, NULL);
	log_debug(1, "worker %d started", id);

	event_base_dispatch(w.base);

	while ((c = TAILQ_FIRST(&w.conns)) != NULL)
		conn_free(c);
	for (i = 0; i < w.nlisteners; i++)
		if (w.listeners[i] != NULL)
			evconnlistener_free(w.listeners[i]);
	free(w.listeners);
	if (w.ev_drain != NULL)
		event_free(w.ev_drain);
	event_free(w.ev_term);
	event_free(w.ev_int);
	event_base_free(w.base);
	log_debug(1, "worker %d exiting", id);
	return (0);
}
