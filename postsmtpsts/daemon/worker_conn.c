/*
 * worker_conn.c - the worker's Postfix socketmap connections and their
 * request slots
 *
 * Interface (worker_int.h): worker_conn_accept_cb() takes a connection,
 * worker_conn_reply() answers its request in order,
 * worker_conn_slot_complete() finishes a request that waited (for the
 * resolver: worker_rclient.c); worker_conn_free(),
 * worker_conn_close_after_write() end a connection.  Each complete
 * request goes to worker_answer() (worker_answer.c), and this file acts
 * on its verdict: the reply, then a TXT re-check if one is due
 * (worker_rclient_txtcheck); or a new slot in the reply FIFO that waits
 * for the resolver (worker_rclient_ask).  The resolver client gives the
 * slot back answered: why the two files call each other is in
 * worker_int.h.
 *
 * Wire format (Postfix socketmap_table(5)): the client sends netstrings
 * "<len>:<name> <key>," and reads one netstring reply per request, in order.
 * Postfix's dict_sockmap keeps one connection per smtp(8) process open for
 * many requests, so connections are persistent and many are open at once.
 *
 * Per connection:
 *  - input is decoded in place: from the worker's read buffer when the
 *    connection holds nothing (whole requests, the usual case), else from
 *    the connection's input evbuffer, which keeps only a partial frame or
 *    what a pause left; a request longer than SOCKMAP_MAX_QUERY is refused
 *    as soon as its length prefix is read, so a 1 MB claim is never
 *    buffered;
 *  - a broken frame gets one PERM reply and the connection is closed after
 *    it is written (nothing after a broken frame can be re-synchronized);
 *  - a malformed request inside a good frame gets PERM and the connection
 *    keeps going;
 *  - replies are written in request order; when the client does not read,
 *    we stop reading above WORKER_OUTPUT_HIGH bytes of pending output, so
 *    memory per connection stays bounded;
 *  - an idle connection (or one stalled mid-request) is closed after
 *    idle_timeout seconds (one timer a connection, not moved at each
 *    read: when it fires it waits for the rest since the last read).
 * Connections over max_connections are accepted and closed at once: the
 * listener stays responsive and Postfix retries (worker.c derives
 * max_connections from the open file limit so that it binds first).  If
 * accept(2) fails all the same, the listeners pause with a backoff and,
 * out of descriptors, a spare one closes the waiting connections
 * (worker_int.h, WORKER_ACCEPT_PAUSE_MIN_MS).  Both warnings are one line
 * a minute with the count of those not logged.  At most max_inflight
 * requests per connection wait for an answer; above that the connection
 * is not read until answers have left.  A reply that waits (its request
 * is behind one that still waits) is parked, formatted, in its slot.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "daemon/worker_int.h"
#include "lib/xmalloc.h"

/* Longest frame: digits, ':', payload, ','. */
#define WORKER_MAX_FRAME	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_QUERY)

static void	conn_kick(struct conn *);
static int	conn_process(struct conn *);
static struct slot *slot_new(struct conn *);

/* worker_trim_soon - trim once nothing more was freed for a moment */
static void
worker_trim_soon(struct worker *w)
{
	struct timeval	 tv = { 0, WORKER_TRIM_DELAY_MS * 1000 };

	if (w->ev_trim != NULL && !w->draining)
		evtimer_add(w->ev_trim, &tv);
}

void
worker_conn_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	xtrim();
	w->conns_peak = w->nconns;
}

/*
 * Balance.  Every worker accepts on the same listening sockets, and the
 * kernel wakes all of them for a new connection: the first to call
 * accept() takes it, so a worker that is idle more often takes more, and
 * Postfix's long-lived connections pile up on one worker (bench: 48 of 66
 * at 64 connections) while another core idles.  So each worker counts its
 * open connections in its slot of the shared counters (STATS_CONN_OPEN,
 * STATS_WORKER_UP: stats.h), and one holding more than the least loaded
 * running worker plus a slack (1 + 1/16) stops accepting (its listeners
 * off) until a connection of its own closes or the others caught up; it
 * looks again every WORKER_BALANCE_MS and accepts anyway after
 * WORKER_BALANCE_MAX_MS, so a worker that is alive but not accepting (busy
 * in a long callback, stopped) delays new connections by that much at
 * most.  A dead worker's gauges are cleared by the master when it reaps
 * it.  This works for unix and inet listeners alike, where SO_REUSEPORT
 * (inet only) would hash connections to a socket per worker, leave a dead
 * worker's queue waiting for its restart, and still split 64 connections
 * unevenly by chance (DESIGN.md "Warm lookups balanced").
 */
#define WORKER_BALANCE_MS	5
#define WORKER_BALANCE_MAX_MS	50

/* balance_min_other - the fewest connections of another running worker of
 * this generation's count, or -1 if none runs */
static int64_t
balance_min_other(const struct worker *w)
{
	int64_t		 min = -1, v;
	int		 j;

	for (j = 0; j < w->cf->workers && j < STATS_MAX_WORKERS; j++) {
		if (j == w->id || stats_peek(j, STATS_WORKER_UP) == 0)
			continue;
		/* a slot shared with a draining worker of the previous
		 * generation, cleared under it, can dip below 0 */
		v = (int64_t)stats_peek(j, STATS_CONN_OPEN);
		if (v < 0)
			v = 0;
		if (min == -1 || v < min)
			min = v;
	}
	return (min);
}

/* balance_over - this worker holds more than its share */
static int
balance_over(const struct worker *w)
{
	int64_t		 min = balance_min_other(w);

	return (min >= 0 && (int64_t)w->nconns > min + 1 + min / 16);
}

/* listen_sync - listeners on unless a pause holds them: the balance's or
 * a failed accept's */
static void
listen_sync(struct worker *w)
{
	int		 i, on;

	on = !w->accept_paused && !w->accept_failed && !w->draining;
	if (on == w->listening)
		return;
	for (i = 0; i < w->nlisteners; i++)
		if (w->listeners[i] != NULL) {
			if (on)
				evconnlistener_enable(w->listeners[i]);
			else
				evconnlistener_disable(w->listeners[i]);
		}
	w->listening = on;
}

/* balance_listen - the balance's pause on or off */
static void
balance_listen(struct worker *w, int on)
{
	if (w->accept_paused == !on)
		return;
	w->accept_paused = !on;
	if (!on)
		w->paused_at_ms = clock_ms();
	listen_sync(w);
}

/* ratelog_due - one more event of a rate-limited warning: 1 if its line is
 * due (then *suppressed is the count of those not logged since the line
 * before), 0 if it is counted instead */
static int
ratelog_due(struct worker_ratelog *rl, unsigned long long *suppressed)
{
	time_t		 now = clock_wall();

	if (rl->last != 0 && now - rl->last < WORKER_WARN_INTERVAL) {
		rl->suppressed++;
		return (0);
	}
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	rl->last = now;
	return (1);
}

/* worker_balance - after an accept or a close: pause or resume accepting */
static void
worker_balance(struct worker *w)
{
	struct timeval	 tv = { 0, WORKER_BALANCE_MS * 1000 };

	if (w->ev_balance == NULL || w->draining || w->cf->workers < 2)
		return;
	if (balance_over(w)) {
		if (!w->accept_paused) {
			balance_listen(w, 0);
			evtimer_add(w->ev_balance, &tv);
		}
	} else if (w->accept_paused) {
		balance_listen(w, 1);
		event_del(w->ev_balance);
	}
}

void
worker_conn_balance_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;
	struct timeval	 tv = { 0, WORKER_BALANCE_MS * 1000 };

	(void)fd;
	(void)what;
	if (!w->accept_paused || w->draining)
		return;
	if (!balance_over(w) ||
	    clock_ms() - w->paused_at_ms >= WORKER_BALANCE_MAX_MS)

		balance_listen(w, 1);
	else
		evtimer_add(w->ev_balance, &tv);
}

/* slot_free - release a slot (already out of its connection's FIFO) */
static void
slot_free(struct slot *sl)
{
	worker_rclient_detach(sl);
	free(sl->reply);
	free(sl);
}

void
worker_conn_free(struct conn *c)
{
	struct worker	*w = c->w;
	struct slot	*sl;

	while ((sl = TAILQ_FIRST(&c->fifo)) != NULL) {
		TAILQ_REMOVE(&c->fifo, sl, c_entry);
		slot_free(sl);
	}
	TAILQ_REMOVE(&w->conns, c, entry);
	w->nconns--;
	stats_sub(STATS_CONN_OPEN, 1);
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
	else
		worker_balance(w);
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
 * what keeps a warm lookup at two system calls and a share of one
 * epoll_wait (read, send).
 * Frees the connection (returns -1) when it is closing and done.
 */
/*
 * conn_send - write c->out until it is empty or the socket is full: -1 on
 * a write error (errno), else 0
 *
 * A warm reply is one evbuffer chain: one send(2), which costs the kernel
 * less than the writev(2) evbuffer_write() makes of it; several chains (a
 * client that reads slowly) go out in one writev(2) as before.
 */
static int
conn_send(struct conn *c)
{
	struct evbuffer_iovec v[2];
	ssize_t		 n;
	int		 nv;

	while (evbuffer_get_length(c->out) > 0 &&
	    (nv = evbuffer_peek(c->out, -1, NULL, v, 2)) > 0) {
		if (nv > 1 || v[0].iov_len == 0)
			return (evbuffer_write(c->out, c->fd) == -1 ? -1 : 0);
		n = send(c->fd, v[0].iov_base, v[0].iov_len, MSG_NOSIGNAL);
		if (n == -1)
			return (-1);
		evbuffer_drain(c->out, (size_t)n);
		if ((size_t)n < v[0].iov_len)
			break;
	}
	return (0);
}

static int
conn_output(struct conn *c)
{
	if (evbuffer_get_length(c->out) > 0 && conn_send(c) == -1 &&
	    errno != EAGAIN && errno != EINTR) {
		log_debug(1, "connection write error: %s", strerror(errno));
		worker_conn_free(c);
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
		worker_conn_free(c);
		return (-1);
	}
	return (0);
}

void
worker_conn_close_after_write(struct conn *c)
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

/* slot_new - a slot at the tail of the connection's reply FIFO, not done;
 * the caller fills in what it waits for */
static struct slot *
slot_new(struct conn *c)
{
	struct slot	*sl;

	sl = xcalloc(1, sizeof(*sl));
	sl->conn = c;
	TAILQ_INSERT_TAIL(&c->fifo, sl, c_entry);
	c->nslots++;
	return (sl);
}

void
worker_conn_slot_complete(struct slot *sl, enum sockmap_status st,
    const char *data, size_t len)
{
	struct conn	*c = sl->conn;
	struct buf	 out;

	worker_rclient_detach(sl);
	out = worker_format(c->w, st, data, len);
	sl->reply = xmemdup0(out.data, out.len);
	sl->reply_len = out.len;
	sl->done = 1;
	if (sl == TAILQ_FIRST(&c->fifo)) {
		conn_flush(c);
		conn_kick(c);
	}
}

void
worker_conn_reply(struct conn *c, enum sockmap_status st, const char *data,
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
	sl = slot_new(c);
	worker_conn_slot_complete(sl, st, data, len);
}

/*
 * conn_answer - answer a well-formed request as worker_answer() decides:
 * now (and then a TXT re-check in the background, if due), or once the
 * resolver replies or the deadline passes (a slot that waits)
 */
static void
conn_answer(struct conn *c, const char *name, size_t name_len,
    const char *key, size_t key_len)
{
	struct worker	*w = c->w;
	struct worker_answer_verdict v;
	struct slot	*sl;

	if (worker_answer(w, name, name_len, key, key_len, &v) ==
	    WORKER_ANSWER_ASK) {
		sl = slot_new(c);
		sl->map = v.map;
		sl->t0 = w->t0;
		worker_rclient_ask(sl, v.domain, v.domain_len);
		return;
	}
	worker_conn_reply(c, v.st, v.data, v.len);
	if (v.txtcheck)
		worker_rclient_txtcheck(w, v.domain, v.domain_len, v.now);
}

/*
 * conn_decode - decode and answer every complete request in p[0..len)
 *
 * *used gets the bytes consumed: a partial frame at the end, or what is
 * left when the connection pauses (its output over WORKER_OUTPUT_HIGH, or
 * max_inflight lookups waiting), is the caller's to keep.  Returns -1 if
 * the connection was freed or is closing after a broken frame (then
 * everything counts as used).
 */
static int
conn_decode(struct conn *c, const char *p, size_t len, size_t *used)
{
	struct evbuffer	*out = c->out;
	enum netstring_status st;
	const char	*payload, *name, *key, *why;
	size_t		 off = 0, plen, n, name_len, key_len;

	*used = 0;
	while (off < len && !c->closing) {
		if (evbuffer_get_length(out) > WORKER_OUTPUT_HIGH ||
		    c->nslots >= c->w->cf->max_inflight) {
			/* The client is not reading, or has too many
			 * lookups running: stop until that changes. */
			if (evbuffer_get_length(out) > WORKER_OUTPUT_HIGH)
				c->big = 1;
			conn_read_enable(c, 0);
			c->reading_paused = 1;
			break;
		}
		st = netstring_decode(p + off, len - off, SOCKMAP_MAX_QUERY,
		    &payload, &plen, &n);
		if (st == NETSTRING_INCOMPLETE)
			break;
		if (st != NETSTRING_OK) {
			log_warnx("malformed request: %s: closing connection",
			    netstring_strerror(st));
			stats_inc(STATS_PROTO_FRAME);
			worker_conn_reply(c, SOCKMAP_PERM,
			    netstring_strerror(st),
			    strlen(netstring_strerror(st)));
			*used = len;
			worker_conn_close_after_write(c);
			return (-1);
		}
		stats_inc(STATS_REQUESTS);
		if (sockmap_request_parse(payload, plen, &name, &name_len,
		    &key, &key_len, &why) == -1) {
			stats_inc(STATS_PROTO_REQUEST);
			log_warnx("malformed request: %s", why);
			worker_conn_reply(c, SOCKMAP_PERM, why, strlen(why));
		} else
			conn_answer(c, name, name_len, key, key_len);
		off += n;
	}
	*used = off;
	return (0);
}

/*
 * conn_process - decode and answer every complete request kept in c->in
 *
 * c->in holds less than one frame plus one read (conn_read_cb), so it is
 * made contiguous whole.  Returns -1 if the connection was freed.
 */
static int
conn_process(struct conn *c)
{
	struct evbuffer	*in = c->in;
	size_t		 len, used;
	unsigned char	*p;
	int		 r;

	if (c->closing || (len = evbuffer_get_length(in)) == 0)
		return (0);
	if ((p = evbuffer_pullup(in, (ev_ssize_t)len)) == NULL) {
		log_warnx("evbuffer_pullup failed: closing");
		worker_conn_free(c);
		return (-1);
	}
	r = conn_decode(c, (const char *)p, len, &used);
	/* a broken frame: c may be gone, and its input with it */
	if (r == -1)
		return (-1);
	evbuffer_drain(in, used);
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
	size_t		 used;

	(void)what;
	n = read(fd, w->rbuf, sizeof(w->rbuf));
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_debug(1, "connection read error: %s", strerror(errno));
		worker_conn_free(c);
		return;
	}
	if (n == 0) {
		/* EOF.  A half-closed client may still read its answers. */
		worker_conn_close_after_write(c);
		return;
	}
	/* the idle timer is not moved at every read (a heap operation per
	 * request): conn_idle_cb looks at this and waits for the rest */
	c->active_ms = clock_ms();
	/* The usual case, whole requests: answered from rbuf in place; only
	 * a partial frame, or what a pause left, is kept in c->in (and
	 * looked at again there, which for those two stops at once). */
	used = 0;
	if (evbuffer_get_length(c->in) == 0 &&
	    conn_decode(c, w->rbuf, (size_t)n, &used) == -1)
		return;
	if (used < (size_t)n) {
		if (evbuffer_add(c->in, w->rbuf + used, (size_t)n - used) ==
		    -1) {
			log_warnx("evbuffer_add failed: closing connection");
			worker_conn_free(c);
			return;
		}
		if (conn_process(c) == -1)
			return;
	}
	if (w->draining && !c->closing) {
		/* read during the drain's linger: answered, then closed */
		worker_conn_close_after_write(c);
		return;
	}
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
		worker_conn_free(c);
		return;
	}
	conn_kick(c);
}

/* conn_idle_cb - the idle timer: no request for idle_timeout seconds, or
 * wait for the rest of it since the last read */
static void
conn_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn	*c = arg;
	struct timeval	 tv;
	int64_t		 idle_ms, since;

	(void)fd;
	(void)what;
	idle_ms = (int64_t)c->w->idle.tv_sec * 1000 + c->w->idle.tv_usec / 1000;
	since = clock_ms() - c->active_ms;
	if (since >= 0 && since < idle_ms) {
		tv.tv_sec = (time_t)((idle_ms - since) / 1000);
		tv.tv_usec = (suseconds_t)((idle_ms - since) % 1000 * 1000);
		evtimer_add(c->ev_idle, &tv);
		return;
	}
	/* Idle means idle: a connection waiting for a lookup is not. */
	if (!TAILQ_EMPTY(&c->fifo)) {
		c->active_ms = clock_ms();
		evtimer_add(c->ev_idle, &c->w->idle);
		return;
	}
	log_debug(1, "connection idle for %d s: closing",
	    c->w->cf->idle_timeout);
	worker_conn_free(c);
}

void
worker_conn_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct worker	*w = arg;
	struct conn	*c;
	unsigned long long suppressed;

	(void)l;
	(void)sa;
	(void)salen;
	w->accept_pause_ms = 0;
	if (w->draining || w->nconns >= w->max_conns) {
		/* Closed at once: the client sees EOF and retries, the
		 * connections we serve carry on.  One log line a minute. */
		w->refused++;
		if (!w->draining && ratelog_due(&w->refuse_log, &suppressed))
			log_warnx("worker %d: connection limit %d reached: "
			    "refusing connections (connections_refused=%llu "
			    "suppressed=%llu)", w->id, w->max_conns,
			    w->refused, suppressed);
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
	stats_add(STATS_CONN_OPEN, 1);
	if (w->nconns > w->conns_peak)
		w->conns_peak = w->nconns;
	stats_inc(STATS_CONN_ACCEPTED);
	conn_read_enable(c, 1);
	c->active_ms = clock_ms();
	evtimer_add(c->ev_idle, &w->idle);
	worker_balance(w);
}


void
worker_conn_spare(struct worker *w)
{
	unsigned long long suppressed;

	if (w->spare_fd != -1)
		return;
	w->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (w->spare_fd == -1 && ratelog_due(&w->spare_log, &suppressed))
		log_warn("worker %d: no spare descriptor (suppressed=%llu): "
		    "open /dev/null", w->id, suppressed);
}

/*
 * accept_spare - accept(2) failed for want of a descriptor: give up the
 * spare one to take each waiting connection (up to
 * WORKER_ACCEPT_SPARE_MAX) and close it, as over max_connections, then take
 * the spare back.  Returns the connections closed.
 */
static int
accept_spare(struct worker *w, evutil_socket_t lfd)
{
	int		 fd, n;

	if (w->spare_fd == -1)
		return (0);
	(void)close(w->spare_fd);
	w->spare_fd = -1;
	for (n = 0; n < WORKER_ACCEPT_SPARE_MAX; n++) {
		/* EAGAIN: none waits any more; EMFILE: ENFILE's slot went to
		 * another process */
		if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			break;
		(void)close(fd);
	}
	w->refused += (unsigned long long)n;
	stats_add(STATS_CONN_REFUSED, (uint64_t)n);
	worker_conn_spare(w);
	return (n);
}

/* accept_pause - listeners off after a failed accept(2), for twice the
 * last pause (WORKER_ACCEPT_PAUSE_MIN_MS .. _MAX_MS); returns its ms */
static int
accept_pause(struct worker *w)
{
	struct timeval	 tv;
	int		 ms;

	if (w->accept_failed)
		return (w->accept_pause_ms);
	ms = w->accept_pause_ms == 0 ? WORKER_ACCEPT_PAUSE_MIN_MS :
	    2 * w->accept_pause_ms;
	if (ms > WORKER_ACCEPT_PAUSE_MAX_MS)
		ms = WORKER_ACCEPT_PAUSE_MAX_MS;
	w->accept_pause_ms = ms;
	w->accept_failed = 1;
	listen_sync(w);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(w->ev_accept, &tv);
	return (ms);
}

/* accept_errno_kind - the counter and name of an accept(2) errno */
static enum stats_accept
accept_errno_kind(int err, const char **name)
{
	switch (err) {
	case EMFILE:
		*name = "EMFILE";
		return (STATS_ACCEPT_EMFILE);
	case ENFILE:
		*name = "ENFILE";
		return (STATS_ACCEPT_ENFILE);
	case ENOBUFS:
		*name = "ENOBUFS";
		return (STATS_ACCEPT_ENOBUFS);
	case ENOMEM:
		*name = "ENOMEM";
		return (STATS_ACCEPT_ENOMEM);
	default:
		*name = NULL;
		return (STATS_ACCEPT_OTHER);
	}
}

void
worker_conn_accept_error_cb(struct evconnlistener *l, void *arg)
{
	struct worker	*w = arg;
	int		 err = EVUTIL_SOCKET_ERROR();
	int		 closed = 0, pause_ms = 0;
	const char	*name;
	char		 num[16];
	unsigned long long suppressed;

	w->accept_errors++;
	stats_inc((enum stats_id)(STATS_ACCEPT_ERRORS +
	    accept_errno_kind(err, &name)));
	switch (err) {
	case EMFILE:
	case ENFILE:
		closed = accept_spare(w, evconnlistener_get_fd(l));
		pause_ms = accept_pause(w);
		break;
	/* A waiting connection's own network error (accept(2) on Linux,
	 * NOTES): that connection is gone, the next one may be taken. */
	case ENETDOWN:
	case EPROTO:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case EOPNOTSUPP:
	case ENETUNREACH:
		break;
	default:
		/* ENOBUFS, ENOMEM, or an error that may not go away */
		pause_ms = accept_pause(w);
		break;
	}
	if (!ratelog_due(&w->accept_log, &suppressed))
		return;
	if (name == NULL) {
		(void)snprintf(num, sizeof(num), "%d", err);
		name = num;
	}
	log_warnx("worker %d: accept failed: errno=%s error=\"%s\" "
	    "action=%s pause_ms=%d closed=%d accept_errors=%llu "
	    "suppressed=%llu", w->id, name,
	    evutil_socket_error_to_string(err),
	    pause_ms > 0 ? "pause" : "retry", pause_ms, closed,
	    w->accept_errors, suppressed);
}

void
worker_conn_accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker	*w = arg;

	(void)fd;
	(void)what;
	w->accept_failed = 0;
	worker_conn_spare(w);
	listen_sync(w);
}
