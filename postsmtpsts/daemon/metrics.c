/*
 * metrics.c - the metrics process: a minimal HTTP/1.x server for /metrics
 *
 * Interface: metrics.h.  Deliberately tiny (RFC 9112 subset):
 *  - one request per connection: the head (request line and headers,
 *    at most METRICS_MAX_REQUEST bytes, ended by an empty line) is read,
 *    one response with Content-Length and "Connection: close" is written,
 *    the connection is closed; request bodies are never read;
 *  - GET or HEAD METRICS_PATH (a query string is ignored) -> 200 with
 *    the Prometheus text (stats_render), GET of anything else -> 404,
 *    another method -> 405 with Allow, a head that is not "METHOD SP
 *    TARGET SP HTTP/1.0|1.1" or too long -> 400;
 *  - each connection has METRICS_TIMEOUT_SECS for the whole exchange (a
 *    client that trickles its head is cut off), at most METRICS_MAX_CONNS
 *    are open, more are accepted and closed at once.
 * Counters are summed from the stats mapping inherited from the master;
 * this process opens no file.  The timed exceptions' gauges come from its
 * configuration (a reload starts a new metrics process with the new one)
 * and the clock, at each scrape (pins_count).  It never touches the socketmap path.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/log.h"
#include "daemon/child.h"
#include "daemon/metrics.h"
#include "daemon/sandbox.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"
#include "policy/pins.h"

struct mconn {
	TAILQ_ENTRY(mconn) entry;
	struct metrics	*m;
	int		 fd;
	struct event	*ev_read;
	struct event	*ev_write;
	struct event	*ev_timer;
	struct evbuffer	*out;
	size_t		 len;
	char		 req[METRICS_MAX_REQUEST];
};

struct metrics {
	const struct config *cf;
	struct event_base *base;
	int		 fd;
	struct event	*ev_accept;
	TAILQ_HEAD(, mconn) conns;
	int		 nconns;
};

/* metrics_token - the length of a run of [A-Za-z] at p, up to end */
static size_t
metrics_token(const char *p, const char *end)
{
	const char	*q = p;

	while (q < end && ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' &&
	    *q <= 'z')))
		q++;
	return ((size_t)(q - p));
}

int
metrics_http_parse(const char *p, size_t len, int *head)
{
	const char	*eol, *q, *target, *tend;
	size_t		 i, mlen, plen = sizeof(METRICS_PATH) - 1;

	*head = 0;
	/* The head ends with an empty line: CRLF CRLF (or bare LFs). */
	for (i = 0; i < len; i++)
		if (p[i] == '\n' && ((i >= 1 && p[i - 1] == '\n') ||
		    (i >= 2 && p[i - 1] == '\r' && p[i - 2] == '\n')))
			break;
	if (i == len)
		return (0);
	if ((eol = memchr(p, '\n', len)) == NULL)
		return (400);
	if (eol > p && eol[-1] == '\r')
		eol--;
	/* request-line = method SP request-target SP HTTP-version */
	if ((mlen = metrics_token(p, eol)) == 0 || p + mlen == eol ||
	    p[mlen] != ' ')
		return (400);
	target = p + mlen + 1;
	if ((tend = memchr(target, ' ', (size_t)(eol - target))) == NULL ||
	    tend == target || *target != '/')
		return (400);
	q = tend + 1;
	if (eol - q != 8 || (memcmp(q, "HTTP/1.0", 8) != 0 &&
	    memcmp(q, "HTTP/1.1", 8) != 0))
		return (400);
	for (q = target; q < tend; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return (400);
	if (!(mlen == 3 && memcmp(p, "GET", 3) == 0) &&
	    !(mlen == 4 && memcmp(p, "HEAD", 4) == 0))
		return (405);
	*head = mlen == 4;
	if ((size_t)(tend - target) < plen ||
	    memcmp(target, METRICS_PATH, plen) != 0 ||
	    (target + plen != tend && target[plen] != '?'))
		return (404);
	return (200);
}

int
metrics_listen(const struct config_listen *l)
{
	struct addrinfo	 hints, *res;
	int		 fd, error, on = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	if ((error = getaddrinfo(l->host, l->port, &hints, &res)) != 0)
		fatalx("metrics %s: %s", l->spec, gai_strerror(error));
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, res->ai_protocol);
	if (fd == -1)
		fatal("metrics %s: socket", l->spec);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1)
		fatal("metrics %s: SO_REUSEADDR", l->spec);
	if (bind(fd, res->ai_addr, res->ai_addrlen) == -1)
		fatal("metrics %s: bind", l->spec);
	if (listen(fd, METRICS_BACKLOG) == -1)
		fatal("metrics %s: listen", l->spec);
	freeaddrinfo(res);
	log_info("metrics on %s", l->spec);
	return (fd);
}

/* mconn_free - close one connection */
static void
mconn_free(struct mconn *c)
{
	TAILQ_REMOVE(&c->m->conns, c, entry);
	c->m->nconns--;
	event_free(c->ev_read);
	event_free(c->ev_write);
	event_free(c->ev_timer);
	evbuffer_free(c->out);
	close(c->fd);
	free(c);
}

/* mconn_write_cb - push the response; close when it is all out */
static void
mconn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mconn	*c = arg;

	(void)what;
	if (evbuffer_write(c->out, fd) == -1 && errno != EAGAIN &&
	    errno != EINTR) {
		log_debug(1, "metrics: write: %s", strerror(errno));
		mconn_free(c);
		return;
	}
	if (evbuffer_get_length(c->out) > 0) {
		event_add(c->ev_write, NULL);
		return;
	}
	/* All sent: no lingering RST for unread request bytes. */
	shutdown(fd, SHUT_WR);
	mconn_free(c);
}

/* mconn_respond - queue the response for status code and write it */
static void
mconn_respond(struct mconn *c, int code, int head)
{
	struct stats_snapshot s;
	struct buf	 body;
	const char	*reason, *extra = "";
	size_t		 in_force, lapsed;
	int		 rv;

	buf_init(&body, STATS_MAX_OUTPUT);
	switch (code) {
	case 200:
		reason = "OK";
		rv = stats_snapshot_self(&s);
		if (rv == 0) {
			pins_count(c->m->cf, clock_wall(), &in_force, &lapsed);
			s.exceptions_known = 1;
			s.exceptions_in_force = in_force;
			s.exceptions_lapsed = lapsed;
			rv = stats_render(&s, &body);
		}
		if (rv == -1) {
			log_warnx("metrics: no counters to show");
			buf_reset(&body);
			buf_append_str(&body, "counters unavailable\n");
			code = 500;
			reason = "Internal Server Error";
		} else
			stats_http(STATS_HTTP_200);
		break;
	case 404:
		reason = "Not Found";
		buf_append_str(&body, "not found: try " METRICS_PATH "\n");
		stats_http(STATS_HTTP_404);
		break;
	case 405:
		reason = "Method Not Allowed";
		extra = "Allow: GET, HEAD\r\n";
		buf_append_str(&body, "method not allowed\n");
		stats_http(STATS_HTTP_405);
		break;
	default:
		code = 400;
		reason = "Bad Request";
		buf_append_str(&body, "bad request\n");
		stats_http(STATS_HTTP_400);
		break;
	}
	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\n%sConnection: close\r\n\r\n", code, reason,
	    code == 200 ? METRICS_CONTENT_TYPE : "text/plain; charset=utf-8",
	    body.len, extra);
	if (!head)
		evbuffer_add(c->out, body.data, body.len);
	buf_free(&body);
	event_del(c->ev_read);
	log_debug(1, "metrics: %d", code);
	mconn_write_cb(c->fd, EV_WRITE, c);
}

/* mconn_read_cb - more of the request head */
static void
mconn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mconn	*c = arg;
	ssize_t		 n;
	int		 code, head;

	(void)what;
	n = read(fd, c->req + c->len, sizeof(c->req) - c->len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		mconn_free(c);
		return;
	}
	c->len += (size_t)n;
	code = metrics_http_parse(c->req, c->len, &head);
	if (code == 0 && c->len < sizeof(c->req))
		return;
	mconn_respond(c, code == 0 ? 400 : code, head);
}

/* mconn_timer_cb - the exchange took too long */
static void
mconn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	log_debug(1, "metrics: connection timed out");
	mconn_free(arg);
}

/* metrics_accept_cb - a scraper connects */
static void
metrics_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct metrics	*m = arg;
	struct mconn	*c;
	struct timeval	 tv = { METRICS_TIMEOUT_SECS, 0 };
	int		 fd;

	(void)what;
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) ==
	    -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("metrics: accept");
		return;
	}
	if (m->nconns >= METRICS_MAX_CONNS) {
		log_warnx("metrics: %d connections open: refusing one",
		    m->nconns);
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->m = m;
	c->fd = fd;
	c->out = evbuffer_new();
	c->ev_read = event_new(m->base, fd, EV_READ | EV_PERSIST,
	    mconn_read_cb, c);
	c->ev_write = event_new(m->base, fd, EV_WRITE, mconn_write_cb, c);
	c->ev_timer = evtimer_new(m->base, mconn_timer_cb, c);
	if (c->out == NULL || c->ev_read == NULL || c->ev_write == NULL ||
	    c->ev_timer == NULL)
		fatalx("metrics: out of memory for a connection");
	TAILQ_INSERT_TAIL(&m->conns, c, entry);
	m->nconns++;
	event_add(c->ev_read, NULL);
	evtimer_add(c->ev_timer, &tv);
}

/* metrics_term_cb - SIGTERM/SIGINT: stop at once (nothing to drain) */
static void
metrics_term_cb(int sig, void *arg)
{
	struct metrics	*m = arg;

	log_debug(1, "metrics: signal %d: exiting", sig);
	event_base_loopexit(m->base, NULL);
}

int
metrics_main(const struct config *cf, int fd)
{
	struct metrics	*m;
	struct mconn	*c;

	m = xcalloc(1, sizeof(*m));
	m->cf = cf;
	m->fd = fd;
	TAILQ_INIT(&m->conns);
	m->base = child_base_new("metrics");
	evutil_make_socket_nonblocking(fd);
	m->ev_accept = event_new(m->base, fd, EV_READ | EV_PERSIST,
	    metrics_accept_cb, m);
	event_add(m->ev_accept, NULL);

	/* like a worker: its listener only, no outbound socket, no exec */
	child_run(m->base, "metrics", sandbox_worker, metrics_term_cb, m);

	while ((c = TAILQ_FIRST(&m->conns)) != NULL)
		/* mconn_free unlinks c first: the next TAILQ_FIRST is another
		 * connection (the analyzer does not follow TAILQ_REMOVE) */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		mconn_free(c);
	event_free(m->ev_accept);
	event_base_free(m->base);
	free(m);
	return (0);
}
