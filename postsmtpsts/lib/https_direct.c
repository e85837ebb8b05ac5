/*
 * https_direct.c - a policy fetch on GnuTLS directly (no proxy)
 *
 * One fetch is a small state machine on the caller's event base:
 *
 *   CONNECT    a non-blocking TCP connect to addrs[ai], the addresses dns.c
 *              found (and only those), in order; an address that refuses
 *              or does not answer in its share of the connect time passes
 *              the turn to the next
 *   HANDSHAKE  TLS on the connected socket: SNI, TLS 1.2 or 1.3, the
 *              shared credentials (no anchors: the check is ours, below)
 *   SEND       the request, once trust_verify_session() has found the
 *              peer's chain and name good: not one byte of HTTP is written
 *              to, or read from, a peer that failed it
 *   RECV       the response, through httpresp.c (libhttp-parser), the head
 *              judged by https_judge_head() before any body byte is kept
 *
 * Timers, as curl applied them: the connect timeout covers TCP and the TLS
 * handshake (each address gets an equal share of what is left, the last
 * one all of it); from the request on, a transfer that moves fewer than
 * HTTPS_LOW_SPEED_LIMIT bytes a second over a HTTPS_LOW_SPEED_TIME window
 * is cut; the total timeout bounds the whole fetch.  Errors are reported
 * with the same kinds as the curl path: no TCP connection anywhere is
 * HTTPS_ERR_CONNECT and a connect that never completes HTTPS_ERR_TIMEOUT
 * (discover.c then tries the IPv6 addresses), a failed handshake
 * HTTPS_ERR_TLS, a refused certificate HTTPS_ERR_WEBPKI.
 *
 * TLS: one gnutls_certificate_credentials_t and one priority cache per
 * fetcher.  The priority is GnuTLS's NORMAL less TLS 1.0/1.1, with X25519
 * first and one key share in the ClientHello (GNUTLS_KEY_SHARE_TOP): the
 * cheapest exchange a server accepts, and no second key generated for
 * nothing.  No session tickets, no resumption: every fetch has a full
 * handshake and a peer chain to check.  The connection is closed after
 * the response (Connection: close is sent).
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <gnutls/gnutls.h>

#include "lib/buf.h"
#include "lib/https.h"
#include "lib/https_int.h"
#include "lib/httpresp.h"
#include "lib/log.h"
#include "lib/trust.h"

/* TLS 1.2 and 1.3 only (RFC 8461 §3.3); X25519 first, then the NIST
 * curves, then finite-field groups for TLS 1.2 DHE servers */
#define HTTPS_PRIORITY	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:" \
	"-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:" \
	"+GROUP-SECP521R1:+GROUP-X448:+GROUP-FFDHE2048:+GROUP-FFDHE3072:" \
	"+GROUP-FFDHE4096"
#define HTTPS_RECV_CHUNK	16384	/* one TLS record */

static void	direct_attempt(struct https_fetch *);
static void	direct_io(evutil_socket_t, short, void *);
static void	direct_step(struct https_fetch *);

/* direct_now - CLOCK_MONOTONIC in ms */
static long long
direct_now(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * HTTPS_MS_PER_S + ts.tv_nsec / 1000000);
}

/* direct_arm - (re)start ev to fire in ms */
static void
direct_arm(struct event *ev, long long ms)
{
	struct timeval	 tv;

	if (ms < 0)
		ms = 0;
	tv.tv_sec = (time_t)(ms / HTTPS_MS_PER_S);
	tv.tv_usec = (suseconds_t)(ms % HTTPS_MS_PER_S) * 1000;
	evtimer_add(ev, &tv);
}

int
https_direct_new(struct https *h, char *err, size_t errsz)
{
	const char	*where = NULL;
	int		 rc;

	if ((rc = gnutls_certificate_allocate_credentials(&h->cred)) < 0) {
		h->cred = NULL;
		snprintf(err, errsz, "GnuTLS credentials: %s",
		    gnutls_strerror(rc));
		return (-1);
	}
	if ((rc = gnutls_priority_init(&h->prio, HTTPS_PRIORITY, &where)) <
	    0) {
		h->prio = NULL;
		snprintf(err, errsz, "GnuTLS priority \"%s\": %s",
		    where != NULL ? where : HTTPS_PRIORITY,
		    gnutls_strerror(rc));
		return (-1);
	}
	return (0);
}

void
https_direct_free(struct https *h)
{
	if (h->prio != NULL)
		gnutls_priority_deinit(h->prio);
	if (h->cred != NULL)
		gnutls_certificate_free_credentials(h->cred);
	h->prio = NULL;
	h->cred = NULL;
}

/* direct_close - drop the connection of f (TLS, socket event, socket) */
static void
direct_close(struct https_fetch *f)
{
	if (f->io != NULL) {
		event_free(f->io);
		f->io = NULL;
	}
	if (f->tls != NULL) {
		gnutls_deinit(f->tls);
		f->tls = NULL;
	}
	if (f->fd != -1) {
		close(f->fd);
		f->fd = -1;
	}
}

void
https_direct_release(struct https_fetch *f)
{
	direct_close(f);
	if (f->phase != NULL)
		event_free(f->phase);
	if (f->deadline != NULL)
		event_free(f->deadline);
	f->phase = f->deadline = NULL;
}

/* direct_addr - the address f connected to, or tried last */
static const char *
direct_addr(const struct https_fetch *f)
{
	if (f->naddrs == 0)
		return ("");
	return (f->addrs[f->ai < f->naddrs ? f->ai : f->naddrs - 1]);
}

/* direct_end - f is over with kind (detail set unless OK): report it */
static void
direct_end(struct https_fetch *f, enum https_error kind)
{
	TAILQ_REMOVE(&f->h->fetches, f, entry);
	https_report(f, kind, direct_addr(f));
}

static void __attribute__((format(printf, 3, 4)))
direct_fail(struct https_fetch *f, enum https_error kind, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	direct_end(f, kind);
}

/* direct_wait - wait for fd to be ready for what */
static void
direct_wait(struct https_fetch *f, short what)
{
	event_del(f->io);
	event_assign(f->io, f->h->base, f->fd, what, direct_io, f);
	event_add(f->io, NULL);
}

/* direct_wait_tls - wait for what GnuTLS was doing when it said AGAIN */
static void
direct_wait_tls(struct https_fetch *f)
{
	direct_wait(f, gnutls_record_get_direction(f->tls) ? EV_WRITE :
	    EV_READ);
}

/* direct_tls_start - TCP is up: set up the TLS session, handshake */
static void
direct_tls_start(struct https_fetch *f)
{
	struct https	*h = f->h;
	int		 rc;

	f->dstate = HTTPS_D_HANDSHAKE;
	if ((rc = gnutls_init(&f->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK |
	    GNUTLS_NO_TICKETS | GNUTLS_KEY_SHARE_TOP)) < 0) {
		f->tls = NULL;
		direct_fail(f, HTTPS_ERR_TLS, "TLS set-up: %s",
		    gnutls_strerror(rc));
		return;
	}
	if ((rc = gnutls_priority_set(f->tls, h->prio)) < 0 ||
	    (rc = gnutls_credentials_set(f->tls, GNUTLS_CRD_CERTIFICATE,
	    h->cred)) < 0 || (rc = gnutls_server_name_set(f->tls,
	    GNUTLS_NAME_DNS, f->host, strlen(f->host))) < 0) {
		direct_fail(f, HTTPS_ERR_TLS, "TLS set-up: %s",
		    gnutls_strerror(rc));
		return;
	}
	gnutls_transport_set_int(f->tls, f->fd);
	/* the handshake must end within the connect timeout */
	direct_arm(f->phase, f->connect_end - direct_now());
	direct_step(f);
}

/* direct_io - the socket is ready */
static void
direct_io(evutil_socket_t fd, short what, void *arg)
{
	struct https_fetch	*f = arg;
	int			 err = 0;
	socklen_t		 len = sizeof(err);

	(void)fd;
	(void)what;
	if (f->dstate != HTTPS_D_CONNECT) {
		direct_step(f);
		return;
	}
	if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err != 0) {
		f->last_errno = err;
		log_debug(2, "https: host=%s addr=%s connect: %s", f->host,
		    f->addrs[f->ai], strerror(err));
		direct_close(f);
		f->ai++;
		direct_attempt(f);
		return;
	}
	direct_tls_start(f);
}

/* direct_sockaddr - addrs[i] as a socket address for port 443 */
static socklen_t
direct_sockaddr(const struct https_fetch *f, size_t i,
    struct sockaddr_storage *ss)
{
	struct sockaddr_in	*s4 = (struct sockaddr_in *)(void *)ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)(void *)ss;

	memset(ss, 0, sizeof(*ss));
	/* https_fetch() keeps only what inet_pton() read */
	if (inet_pton(AF_INET, f->addrs[i], &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(HTTPS_PORT);
		return (sizeof(*s4));
	}
	(void)inet_pton(AF_INET6, f->addrs[i], &s6->sin6_addr);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(HTTPS_PORT);
	return (sizeof(*s6));
}

/* direct_attempt - connect to addrs[ai], or the next that takes it; the
 * fetch fails once none is left */
static void
direct_attempt(struct https_fetch *f)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl;
	long long		 left;
	int			 one = 1;

	for (; f->ai < f->naddrs; f->ai++) {
		if ((left = f->connect_end - direct_now()) <= 0)
			break;
		sl = direct_sockaddr(f, f->ai, &ss);
		if ((f->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0)) == -1) {
			f->last_errno = errno;
			continue;
		}
		(void)setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if (connect(f->fd, (struct sockaddr *)&ss, sl) == 0 ||
		    errno == EINPROGRESS) {
			f->dstate = HTTPS_D_CONNECT;
			if ((f->io = event_new(f->h->base, f->fd, EV_WRITE,
			    direct_io, f)) == NULL)
				fatalx("https: cannot create a socket event");
			event_add(f->io, NULL);
			/* an equal share of the time left, the last all */
			direct_arm(f->phase, left /
			    (long long)(f->naddrs - f->ai));
			return;
		}
		f->last_errno = errno;
		log_debug(2, "https: host=%s addr=%s connect: %s", f->host,
		    f->addrs[f->ai], strerror(errno));
		close(f->fd);
		f->fd = -1;
	}
	if (f->ai < f->naddrs || f->last_errno == ETIMEDOUT ||
	    f->last_errno == 0)
		direct_fail(f, HTTPS_ERR_TIMEOUT, "connect timed out after "
		    "%ld ms", f->h->connect_timeout_ms);
	else
		direct_fail(f, HTTPS_ERR_CONNECT, "cannot connect to %s port "
		    "%d: %s", f->naddrs == 1 ? f->addrs[0] : "any address",
		    HTTPS_PORT, strerror(f->last_errno));
}

/* direct_phase - the phase timer: start, a connect attempt or the
 * handshake ran out of time, or the low-speed check is due */
static void
direct_phase(evutil_socket_t fd, short what, void *arg)
{
	struct https_fetch	*f = arg;
	size_t			 moved;

	(void)fd;
	(void)what;
	switch (f->dstate) {
	case HTTPS_D_CONNECT:
		if (f->fd == -1) {		/* the start */
			direct_attempt(f);
			return;
		}
		log_debug(2, "https: host=%s addr=%s connect: no answer",
		    f->host, f->addrs[f->ai]);
		f->last_errno = ETIMEDOUT;
		direct_close(f);
		f->ai++;
		direct_attempt(f);
		return;
	case HTTPS_D_HANDSHAKE:
		direct_fail(f, HTTPS_ERR_TIMEOUT, "TLS handshake not done "
		    "within the connect timeout (%ld ms)",
		    f->h->connect_timeout_ms);
		return;
	case HTTPS_D_SEND:
	case HTTPS_D_RECV:
		moved = f->received - f->speed_mark;
		if (moved < (size_t)HTTPS_LOW_SPEED_LIMIT *
		    HTTPS_LOW_SPEED_TIME) {
			direct_fail(f, HTTPS_ERR_TIMEOUT, "transfer slower than "
			    "%d bytes/s for %d s (%zu bytes)",
			    HTTPS_LOW_SPEED_LIMIT, HTTPS_LOW_SPEED_TIME, moved);
			return;
		}
		f->speed_mark = f->received;
		direct_arm(f->phase, (long long)HTTPS_LOW_SPEED_TIME *
		    HTTPS_MS_PER_S);
		return;
	}
}

/* direct_deadline - the total timeout */
static void
direct_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct https_fetch	*f = arg;
	static const char *const what_names[] = {
		[HTTPS_D_CONNECT] = "connecting",
		[HTTPS_D_HANDSHAKE] = "in the TLS handshake",
		[HTTPS_D_SEND] = "sending the request",
		[HTTPS_D_RECV] = "reading the response",
	};

	(void)fd;
	(void)what;
	direct_fail(f, HTTPS_ERR_TIMEOUT, "timed out after %ld ms %s (%zu "
	    "body bytes)", f->h->timeout_ms, what_names[f->dstate],
	    f->body.len);
}

/* direct_verified - the handshake is done: check the peer (RFC 8461 §3.3)
 * and, if it passes, queue the request; -1 after the fetch failed */
static int
direct_verified(struct https_fetch *f)
{
	char	 why[HTTPS_DETAIL_MAX - 32], esc[HTTPS_DETAIL_MAX - 32];
	int	 n;

	switch (trust_verify_session(f->h->trust, f->tls, f->host, why,
	    sizeof(why))) {
	case TRUST_OK:
		break;
	case TRUST_REJECTED:
		log_escape(esc, sizeof(esc), why, strlen(why));
		direct_fail(f, HTTPS_ERR_WEBPKI, "certificate rejected: %s",
		    esc);
		return (-1);
	case TRUST_UNVERIFIABLE:
		/* the words curl's own check used */
		log_escape(esc, sizeof(esc), why, strlen(why));
		direct_fail(f, HTTPS_ERR_TLS, "server cert verify failed: %s",
		    esc);
		return (-1);
	}
	f->verified = 1;
	/* the host name passed domain_check(): no CR, LF or space in it */
	n = snprintf(f->req, sizeof(f->req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "User-Agent: %s\r\nAccept: */*\r\nConnection: close\r\n\r\n",
	    HTTPS_WELL_KNOWN_PATH, f->host, HTTPS_USER_AGENT);
	if (n < 0 || (size_t)n >= sizeof(f->req)) {
		direct_fail(f, HTTPS_ERR_OTHER, "request too long");
		return (-1);
	}
	f->reqlen = (size_t)n;
	f->reqsent = 0;
	f->dstate = HTTPS_D_SEND;
	f->speed_mark = f->received = 0;
	direct_arm(f->phase, (long long)HTTPS_LOW_SPEED_TIME * HTTPS_MS_PER_S);
	return (0);
}

/* direct_resp_end - the response is complete (DONE: httpresp reports the
 * head, judged in direct_take, before that) or failed (ERROR) */
static void
direct_resp_end(struct https_fetch *f, enum httpresp_state st)
{
	if (st == HTTPRESP_DONE)
		direct_end(f, HTTPS_OK);
	else
		direct_fail(f, f->resp.too_large ? HTTPS_ERR_TOO_LARGE :
		    HTTPS_ERR_OTHER, "%s", f->resp.why);
}

/* direct_take - n response bytes: through the parser; -1 once the fetch
 * is over (reported) */
static int
direct_take(struct https_fetch *f, const char *p, size_t n)
{
	struct httpresp		*r = &f->resp;
	enum httpresp_state	 st;
	size_t			 off = 0, used;

	while (off < n) {
		switch ((st = httpresp_feed(r, p + off, n - off, &used))) {
		case HTTPRESP_MORE:
			return (0);
		case HTTPRESP_HEAD:
			off += used;
			if (https_judge_head(f, r->status, r->have_ctype ?
			    r->ctype : NULL, r->content_length) == -1) {
				direct_end(f, f->abort_kind);
				return (-1);
			}
			break;
		case HTTPRESP_DONE:
		case HTTPRESP_ERROR:
			direct_resp_end(f, st);
			return (-1);
		}
	}
	return (0);
}

/* direct_step - run the TLS state machine until it has to wait */
static void
direct_step(struct https_fetch *f)
{
	char		 in[HTTPS_RECV_CHUNK];
	ssize_t		 k;
	int		 rc;

	for (;;) {
		switch (f->dstate) {
		case HTTPS_D_CONNECT:
			return;
		case HTTPS_D_HANDSHAKE:
			rc = gnutls_handshake(f->tls);
			if (rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED) {
				direct_wait_tls(f);
				return;
			}
			if (rc < 0) {
				direct_fail(f, HTTPS_ERR_TLS, "TLS handshake "
				    "failed: %s", gnutls_strerror(rc));
				return;
			}
			if (direct_verified(f) == -1)
				return;
			break;
		case HTTPS_D_SEND:
			k = gnutls_record_send(f->tls, f->req + f->reqsent,
			    f->reqlen - f->reqsent);
			if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED) {
				direct_wait_tls(f);
				return;
			}
			if (k < 0) {
				direct_fail(f, HTTPS_ERR_OTHER, "sending the "
				    "request: %s", gnutls_strerror((int)k));
				return;
			}
			if ((f->reqsent += (size_t)k) == f->reqlen)
				f->dstate = HTTPS_D_RECV;
			break;
		case HTTPS_D_RECV:
			k = gnutls_record_recv(f->tls, in, sizeof(in));
			if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED) {
				direct_wait_tls(f);
				return;
			}
			if (k < 0 && !gnutls_error_is_fatal((int)k))
				break;	/* a warning alert, a renegotiation
					   request (refused by not answering) */
			if (k == 0 || k == GNUTLS_E_PREMATURE_TERMINATION) {
				/* with or without close_notify, as curl: a
				 * body cut short is caught by its length */
				direct_resp_end(f, httpresp_eof(&f->resp));
				return;
			}
			if (k < 0) {
				direct_fail(f, HTTPS_ERR_OTHER, "reading the "
				    "response: %s", gnutls_strerror((int)k));
				return;
			}
			f->received += (size_t)k;
			if (direct_take(f, in, (size_t)k) == -1)
				return;
			break;
		}
	}
}

void
https_direct_start(struct https_fetch *f)
{
	struct https	*h = f->h;

	f->direct = 1;
	f->fd = -1;
	f->dstate = HTTPS_D_CONNECT;
	httpresp_init(&f->resp, &f->body, h->max_body);
	f->connect_end = direct_now() + h->connect_timeout_ms;
	if ((f->deadline = evtimer_new(h->base, direct_deadline, f)) == NULL ||
	    (f->phase = evtimer_new(h->base, direct_phase, f)) == NULL)
		fatalx("https: cannot create a timer");
	direct_arm(f->deadline, h->timeout_ms);
	/* the first connect from the event loop: the callback never runs
	 * inside https_fetch() */
	direct_arm(f->phase, 0);
}
