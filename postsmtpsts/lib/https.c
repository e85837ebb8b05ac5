/*
 * https.c - MTA-STS policy fetches: the interface, and libcurl for fetches
 * through a proxy
 *
 * Interface (https.h): https_new() sets up one fetcher on the caller's
 * event base, https_fetch() starts one fetch, https_cancel() drops it;
 * https_post() is the same transfer as a POST to a URL of the caller's
 * (postsmtpsts-tlsrpt's reports, RFC 8460 §5.3): same addresses, same
 * certificate check, any 2xx for a success, the reply only logged.
 * https_error_name() and https_media_type_ok() are in https_names.c
 * (apart, for the link-time fake in tests/fake).
 * Every fetch, with or without https.proxy, is a transfer of libcurl's
 * multi interface; curl's socket and timer callbacks become libevent
 * events.  TLS records and alerts, HTTP/1.x framing (Content-Length,
 * chunked, a body ended by the connection, which curl accepts only with
 * TLS close_notify), header limits, the proxy's CONNECT and the timeouts
 * are curl's.  The certificate check is ours (below), on curl's GnuTLS
 * session.  A hand-written GnuTLS client was tried in issue 14 and taken
 * back in issue 26: 0.5 ms of CPU per new domain was not worth a second,
 * weaker TLS client (doc/DESIGN.md "HTTPS").
 *
 * RFC 8461 §3.3 as applied to each fetch:
 *  - https only, TLS >= 1.2, SNI, PKIX validation of the chain and the
 *    host name against the CA file or else the system store - never both -
 *    done by trust.c against one trust store parsed once per process, once
 *    the handshake is done and before the request is written;
 *  - no redirects: a 3xx is HTTPS_ERR_REDIRECT;
 *  - status 200 only, media type text/plain (parameters allowed);
 *  - the body is at most https.max_policy_size bytes (HTTPS_MAX_BODY, 64 KiB,
 *    by default and at most): a larger Content-Length is refused before
 *    the body, a chunked or unannounced body as soon as it would grow past
 *    the limit;
 *  - connect (TCP and TLS handshake) and total timeouts, and a low-speed
 *    limit against slow-drip servers.  No content coding is asked for, so
 *    limits count real bytes.
 *
 * Certificate verification: curl 7.88 with GnuTLS
 * re-parses CURLOPT_CAINFO for every connection and offers no CA cache, so
 * curl is told to load no CA at all (CAINFO and CAPATH NULL,
 * VERIFYPEER/VERIFYHOST off, TLS session resumption off) and the check is
 * ours: a CURLOPT_PREREQFUNCTION, which curl calls once the connection,
 * TLS handshake included, is up and before the request is sent, takes the
 * GnuTLS session (CURLINFO_TLS_SSL_PTR) and verifies it with
 * trust_verify_session() (PKIX with a key-strength profile, the host
 * name, OCSP staples and must-staple: trust.c).  Failure aborts the transfer before a single
 * byte of HTTP is written or read (HTTPS_ERR_WEBPKI); the header and write
 * callbacks refuse anything from a transfer that has not passed it.
 *
 * Limits: the response head is at most HTTPS_MAX_HEAD bytes (counted in
 * the header callback, before curl's own 100 KiB a line and, in Debian's
 * 7.88.1, 300 KiB in all), the body at most https.max_policy_size.
 *
 * Connections: a policy host is contacted once per refresh, so nothing is
 * kept: every connection is closed after its fetch (curl:
 * CURLOPT_FORBID_REUSE, and CURLMOPT_MAXCONNECTS bounds its cache anyway).
 * Memory follows the number of fetches in flight, not the hosts seen.
 *
 * DNS: the addresses come from dns.c (DNSSEC-aware); only those are ever
 * connected to.  curl gets them as CURLOPT_RESOLVE entries in a DNS cache
 * of the transfer's own (a curl share with CURL_LOCK_DATA_DNS), and an
 * opensocket callback refuses any other address.  With a proxy, curl
 * connects to the proxy instead and the proxy resolves the policy host.
 * A POST's filter (https_set_post_filter: what may be reached is the
 * caller's policy, not this file's) is asked in the same callback, so
 * the address judged is the one the socket would connect to.
 *
 * Completion: curl reports finished transfers through curl_multi_info_read
 * while we are inside curl_multi_socket_action.  They are first moved to a
 * "done" list and only then reported one by one, so a callback may start or
 * cancel any transfer without disturbing curl's message queue. *
 * Why one file of ~950 lines (of which ~75 are this comment): it is one
 * adapter, libcurl's multi interface on our event loop, and every function
 * in it is either a callback curl calls in the middle of a transfer (the
 * socket and timer glue, prereq, header, write, opensocket) or a step of
 * one transfer's life (setup, finish, report), all on struct https and
 * struct https_fetch.  The RFC 8461 section 3.3 checks are those
 * callbacks: they cannot move without the fetch's state.  The event glue
 * (~100 lines) alone could stand apart, but it drives the transfers
 * (curl_multi_socket_action, then the done list) while curl, inside the
 * transfers' calls, arms its timer and sockets, so the two files would
 * call each other.  What is apart already
 * is apart for a reason: the names in https_names.c (the link-time fake),
 * the certificate check in trust.c.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>
#include <event2/event.h>
#include <gnutls/gnutls.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/trust.h"
#include "lib/xmalloc.h"

#define HTTPS_MAX_CONNECTS	4	/* curl's connection cache, if ever used */
#define HTTPS_USER_AGENT	PACKAGE_NAME "/" PACKAGE_VERSION
#define HTTPS_MAX_HEAD		32768	/* bytes of response head (status line,
					   fields, interim heads, trailer) */
#define HTTPS_MAX_CTYPE		128	/* Content-Type kept (longer: cut) */
#define HTTPS_DETAIL_MAX	256
#define HTTPS_ADDR_MAX		INET6_ADDRSTRLEN
#define HTTPS_PORT		443
#define HTTPS_MS_PER_S		1000
#define HTTPS_MAX_URL		(HTTPS_MAX_HOST + 8 + 6 + HTTPS_MAX_PATH + 1)

struct https_fetch {
	TAILQ_ENTRY(https_fetch) entry;
	struct https	*h;
	char		*host;
	char		*url;
	unsigned int	 port;
	int		 post;		/* https_post(): a POST, any 2xx */
	int		 file;		/* https_get(): any media type */
	size_t		 max_body;	/* the body's limit (GET) */
	char		*postdata;	/* its body (a copy) */
	size_t		 postlen;
	struct curl_slist *headers;	/* its Content-Type */
	char		 addrs[HTTPS_MAX_ADDRS][HTTPS_ADDR_MAX];
	size_t		 naddrs;
	https_cb	*cb;
	void		*arg;
	struct buf	 body;
	size_t		 head_bytes;	/* response head bytes seen */
	int		 head_checked;	/* status/type/length looked at */
	int		 verified;	/* the peer passed trust_verify_session */
	enum https_error abort_kind;	/* why the transfer was stopped */
	int		 done;		/* on the done list */
	struct event	*early;		/* deferred set-up failure */
	enum https_error early_kind;
	char		 detail[HTTPS_DETAIL_MAX];
	char		 content_type[HTTPS_MAX_CTYPE];
	int		 have_content_type;
	long		 status;
	CURL		*easy;
	CURLSH		*share;		/* the transfer's own DNS cache */
	struct curl_slist *resolve;
	int		 in_multi;
	unsigned int	 nopen;		/* sockets curl asked for */
	unsigned int	 nrefused;	/* ... that the POST filter refused */
	char		 refused[HTTPS_DETAIL_MAX];	/* the first's reason */
	CURLcode	 rc;
	char		 errbuf[CURL_ERROR_SIZE];
};

TAILQ_HEAD(https_fetches, https_fetch);

struct https {
	struct event_base *base;
	CURLM		*multi;
	struct event	*timer;
	struct trust	*trust;		/* parsed once, shared by all fetches */
	char		*proxy;
	long		 connect_timeout_ms;
	long		 timeout_ms;
	size_t		 max_body;	/* https.max_policy_size */
	https_addr_fn	*post_filter;	/* https_set_post_filter() */
	void		*post_filter_arg;
	struct https_fetches fetches;	/* running */
	struct https_fetches done;	/* finished, callback pending */
	LIST_HEAD(, https_sock) socks;
};

struct https_sock {
	LIST_ENTRY(https_sock) entry;
	struct https	*h;
	curl_socket_t	 fd;
	struct event	*ev;
};

static void	https_check_multi(struct https *);
static void	https_report_done(struct https *);
static void	https_report(struct https_fetch *, enum https_error,
		    const char *);

/* https_ms - seconds from the configuration as ms, or the default */
static long
https_ms(int seconds, long dflt)
{
	if (seconds <= 0)
		return (dflt);
	if (seconds > 3600)
		seconds = 3600;
	return ((long)seconds * HTTPS_MS_PER_S);
}

/* https_timer_fired - curl's timeout elapsed */
static void
https_timer_fired(evutil_socket_t fd, short what, void *arg)
{
	struct https	*h = arg;
	int		 running;

	(void)fd;
	(void)what;
	curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	https_check_multi(h);
}

/* https_timer_cb - curl asks for a (new) timeout: -1 = none */
static int
https_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct https	*h = userp;
	struct timeval	 tv;

	(void)multi;
	if (timeout_ms < 0) {
		evtimer_del(h->timer);
		return (0);
	}
	tv.tv_sec = timeout_ms / HTTPS_MS_PER_S;
	tv.tv_usec = (timeout_ms % HTTPS_MS_PER_S) * 1000;
	evtimer_add(h->timer, &tv);
	return (0);
}

/* https_sock_event - a socket curl watches became ready */
static void
https_sock_event(evutil_socket_t fd, short what, void *arg)
{
	struct https_sock	*s = arg;
	struct https		*h = s->h;
	int			 flags = 0, running;

	if (what & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	/* s may be freed inside: use only h afterwards */
	curl_multi_socket_action(h->multi, fd, flags, &running);
	https_check_multi(h);
}

/* https_sock_cb - curl tells which events it wants on a socket */
static int
https_sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
	struct https		*h = userp;
	struct https_sock	*s = socketp;
	short			 ev = EV_PERSIST;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (s != NULL) {
			LIST_REMOVE(s, entry);
			event_free(s->ev);
			free(s);
			curl_multi_assign(h->multi, fd, NULL);
		}
		return (0);
	}
	if (what & CURL_POLL_IN)
		ev |= EV_READ;
	if (what & CURL_POLL_OUT)
		ev |= EV_WRITE;
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		s->h = h;
		s->fd = fd;
		if ((s->ev = event_new(h->base, fd, ev, https_sock_event,
		    s)) == NULL)
			fatalx("https: cannot create a socket event");
		LIST_INSERT_HEAD(&h->socks, s, entry);
		curl_multi_assign(h->multi, fd, s);
	} else {
		/* may run inside s's own callback: reassign, never free */
		event_del(s->ev);
		event_assign(s->ev, h->base, fd, ev, https_sock_event, s);
	}
	event_add(s->ev, NULL);
	return (0);
}

struct https *
https_new(struct event_base *base, const struct config_https *cf, char *err,
    size_t errsz)
{
	struct https	*h;
	CURLcode	 rc;

	if (errsz > 0)
		err[0] = '\0';
	if ((rc = curl_global_init(CURL_GLOBAL_DEFAULT)) != CURLE_OK) {
		snprintf(err, errsz, "curl_global_init: %s",
		    curl_easy_strerror(rc));
		return (NULL);
	}
	h = xcalloc(1, sizeof(*h));
	h->base = base;
	TAILQ_INIT(&h->fetches);
	TAILQ_INIT(&h->done);
	LIST_INIT(&h->socks);
	if ((h->trust = trust_new(cf->ca_file, err, errsz)) == NULL) {
		free(h);
		curl_global_cleanup();
		return (NULL);
	}
	log_debug(1, "https: trust store %s: %zu anchors",
	    cf->ca_file != NULL ? cf->ca_file : "(system)",
	    trust_anchors(h->trust));
	if (cf->proxy != NULL)
		h->proxy = xstrdup(cf->proxy);
	h->connect_timeout_ms = https_ms(cf->connect_timeout,
	    HTTPS_DEFAULT_CONNECT_TIMEOUT_MS);
	h->timeout_ms = https_ms(cf->timeout, HTTPS_DEFAULT_TIMEOUT_MS);
	h->max_body = cf->max_policy_size > 0 &&
	    cf->max_policy_size < HTTPS_MAX_BODY ? cf->max_policy_size :
	    HTTPS_MAX_BODY;
	if ((h->multi = curl_multi_init()) == NULL ||
	    (h->timer = evtimer_new(base, https_timer_fired, h)) == NULL) {
		snprintf(err, errsz, "cannot create the curl multi handle");
		if (h->multi != NULL)
			curl_multi_cleanup(h->multi);
		trust_free(h->trust);
		free(h->proxy);
		free(h);
		curl_global_cleanup();
		return (NULL);
	}
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, https_sock_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, https_timer_cb);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS,
	    (long)HTTPS_MAX_CONNECTS);
	return (h);
}

int
https_check(const struct config_https *cf, char *err, size_t errsz)
{
	struct trust	*t;

	if (errsz > 0)
		err[0] = '\0';
	if ((t = trust_new(cf->ca_file, err, errsz)) == NULL)
		return (-1);
	trust_free(t);
	return (0);
}

/* https_fetch_free - release a fetch that is in no list any more */
static void
https_fetch_free(struct https_fetch *f)
{
	if (f->easy != NULL)
		curl_easy_cleanup(f->easy);
	if (f->share != NULL)
		curl_share_cleanup(f->share);
	curl_slist_free_all(f->resolve);
	curl_slist_free_all(f->headers);
	free(f->postdata);
	if (f->early != NULL)
		event_free(f->early);
	buf_free(&f->body);
	free(f->host);
	free(f->url);
	free(f);
}

/* https_status_kind - the error a non-200 status is */
static enum https_error
https_status_kind(long status)
{
	if (status >= 300 && status <= 399)
		return (HTTPS_ERR_REDIRECT);
	return (HTTPS_ERR_HTTP_STATUS);
}

/*
 * https_judge_head - the response head (status, Content-Type or NULL,
 * Content-Length or -1) by RFC 8461 §3.3: 0 to go on, -1 with abort_kind
 * and detail set.  Called once, before any body byte is kept.
 */
static int
https_judge_head(struct https_fetch *f, long status, const char *ctype,
    long long clen)
{
	char		 esc[HTTPS_DETAIL_MAX - 56];

	f->head_checked = 1;
	f->status = status;
	if (ctype != NULL) {
		snprintf(f->content_type, sizeof(f->content_type), "%s", ctype);
		f->have_content_type = 1;
	}
	if (f->post) {
		/* RFC 8460 §5.3: "a 'successful' response ... typically a
		 * 200 or 201"; redirects are not followed */
		if (status >= 200 && status <= 299)
			return (0);
		f->abort_kind = https_status_kind(status);
		snprintf(f->detail, sizeof(f->detail), "HTTP status %ld%s",
		    status, f->abort_kind == HTTPS_ERR_REDIRECT ?
		    " (redirects are not followed)" : "");
		return (-1);
	}
	/* RFC 8461 §3.3: "only HTTP 200" - redirects are not followed */
	if (status != 200) {
		f->abort_kind = https_status_kind(status);
		snprintf(f->detail, sizeof(f->detail), "HTTP status %ld%s",
		    status, f->abort_kind == HTTPS_ERR_REDIRECT ?
		    " (redirects are not followed)" : "");
		return (-1);
	}
	/* RFC 8461 §3.2: media type "text/plain" (a policy; a file of
	 * https_get() is whatever its signature says it is) */
	if (!f->file && (ctype == NULL ||
	    !https_media_type_ok(ctype, strlen(ctype)))) {
		f->abort_kind = HTTPS_ERR_CONTENT_TYPE;
		log_escape(esc, sizeof(esc), ctype != NULL ? ctype : "(none)",
		    ctype != NULL ? strlen(ctype) : 6);
		snprintf(f->detail, sizeof(f->detail),
		    "media type \"%s\" is not text/plain", esc);
		return (-1);
	}
	if (clen > (long long)f->max_body) {
		f->abort_kind = HTTPS_ERR_TOO_LARGE;
		snprintf(f->detail, sizeof(f->detail),
		    "Content-Length %lld exceeds %zu bytes", clen,
		    f->max_body);
		return (-1);
	}
	return (0);
}

/* https_check_head - the curl transfer's head, once it is in */
static int
https_check_head(struct https_fetch *f)
{
	char		*ct = NULL;
	curl_off_t	 clen = -1;
	long		 status = 0;

	curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &status);
	if (curl_easy_getinfo(f->easy, CURLINFO_CONTENT_TYPE, &ct) !=
	    CURLE_OK)
		ct = NULL;
	if (curl_easy_getinfo(f->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
	    &clen) != CURLE_OK)
		clen = -1;
	return (https_judge_head(f, status, ct, (long long)clen));
}

/* https_unverified - a byte arrived on a transfer whose peer was never
 * verified: cannot happen while the pre-request check runs, refused */
static void
https_unverified(struct https_fetch *f)
{
	if (f->abort_kind == HTTPS_OK) {
		f->abort_kind = HTTPS_ERR_WEBPKI;
		snprintf(f->detail, sizeof(f->detail),
		    "response from an unverified peer");
	}
}

/*
 * https_no_renegotiation - a GnuTLS handshake hook, set once the peer is
 * verified: a TLS 1.2 server's HelloRequest makes curl 7.88 renegotiate in
 * a blocking loop (gtls.c, "BLOCKING call, this is bad") that would hold
 * the whole event loop for the rest of the fetch's timeout; a policy fetch
 * never needs a second handshake, so the renegotiation's ClientHello is
 * refused before it is sent and the transfer fails at once (RFC 8446 has
 * no renegotiation at all)
 */
static int
https_no_renegotiation(gnutls_session_t s, unsigned int htype,
    unsigned int when, unsigned int incoming, const gnutls_datum_t *msg)
{
	(void)s;
	(void)htype;
	(void)when;
	(void)incoming;
	(void)msg;
	return (GNUTLS_E_UNSAFE_RENEGOTIATION_DENIED);
}

/* https_prereq_cb - the connection (TLS handshake included) is up and the
 * request not yet sent: verify the peer now, RFC 8461 §3.3 */
static int
https_prereq_cb(void *clientp, char *conn_primary_ip, char *conn_local_ip,
    int conn_primary_port, int conn_local_port)
{
	struct https_fetch		*f = clientp;
	struct curl_tlssessioninfo	*ti = NULL;
	char				 why[HTTPS_DETAIL_MAX - 32];
	char				 esc[HTTPS_DETAIL_MAX - 32];

	(void)conn_primary_ip;
	(void)conn_local_ip;
	(void)conn_primary_port;
	(void)conn_local_port;
	f->verified = 0;
	if (curl_easy_getinfo(f->easy, CURLINFO_TLS_SSL_PTR, &ti) !=
	    CURLE_OK || ti == NULL || ti->backend != CURLSSLBACKEND_GNUTLS ||
	    ti->internals == NULL) {
		f->abort_kind = HTTPS_ERR_WEBPKI;
		snprintf(f->detail, sizeof(f->detail),
		    "no GnuTLS session to verify");
		return (CURL_PREREQFUNC_ABORT);
	}
	switch (trust_verify_session(f->h->trust,
	    (gnutls_session_t)ti->internals, f->host, why, sizeof(why))) {
	case TRUST_OK:
		break;
	case TRUST_REJECTED:
		f->abort_kind = HTTPS_ERR_WEBPKI;
		log_escape(esc, sizeof(esc), why, strlen(why));
		snprintf(f->detail, sizeof(f->detail),
		    "certificate rejected: %s", esc);
		return (CURL_PREREQFUNC_ABORT);
	case TRUST_UNVERIFIABLE:
		/* where curl's own check said "server cert verify failed" */
		f->abort_kind = HTTPS_ERR_TLS;
		log_escape(esc, sizeof(esc), why, strlen(why));
		snprintf(f->detail, sizeof(f->detail),
		    "server cert verify failed: %s", esc);
		return (CURL_PREREQFUNC_ABORT);
	}
	gnutls_handshake_set_hook_function((gnutls_session_t)ti->internals,
	    GNUTLS_HANDSHAKE_CLIENT_HELLO, GNUTLS_HOOK_PRE,
	    https_no_renegotiation);
	f->verified = 1;
	return (CURL_PREREQFUNC_OK);
}

/* https_header_cb - a response header line: only from a verified peer,
 * HTTPS_MAX_HEAD bytes in all (a policy host has no reason to send more) */
static size_t
https_header_cb(char *ptr, size_t size, size_t nitems, void *userdata)
{
	struct https_fetch	*f = userdata;
	size_t			 n = size * nitems;	/* size is always 1 */

	(void)ptr;
	if (!f->verified) {
		https_unverified(f);
		return (0);
	}
	if (n > HTTPS_MAX_HEAD - f->head_bytes) {
		if (f->abort_kind == HTTPS_OK) {
			f->abort_kind = HTTPS_ERR_OTHER;
			snprintf(f->detail, sizeof(f->detail),
			    "response head exceeds %d bytes", HTTPS_MAX_HEAD);
		}
		return (0);
	}
	f->head_bytes += n;
	return (n);
}

/* https_write_cb - body bytes arrive: check the head once, bound the size */
static size_t
https_write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct https_fetch	*f = userdata;
	size_t			 n = size * nmemb;	/* size is always 1 */

	if (!f->verified) {
		https_unverified(f);
		return (0);
	}
	if (!f->head_checked && https_check_head(f) == -1)
		return (0);
	if (f->post) {
		/* a POST's reply: kept for the log up to its bound, the rest
		 * read and dropped */
		if (f->body.len < HTTPS_POST_MAX_REPLY)
			buf_append(&f->body, ptr, n < HTTPS_POST_MAX_REPLY -
			    f->body.len ? n : HTTPS_POST_MAX_REPLY -
			    f->body.len);
		return (n);
	}
	if (n > f->max_body - f->body.len) {
		f->abort_kind = HTTPS_ERR_TOO_LARGE;
		snprintf(f->detail, sizeof(f->detail),
		    "body exceeds %zu bytes", f->max_body);
		return (0);
	}
	if (buf_append(&f->body, ptr, n) == -1)
		return (0);
	return (n);
}

/*
 * https_post_refuses - does the POST filter refuse addr (family, bytes;
 * text a) for f?  Logged, counted, the first reason kept
 */
static int
https_post_refuses(struct https_fetch *f, int family, const void *addr,
    const char *a)
{
	char	 why[HTTPS_DETAIL_MAX];

	if (!f->post || f->h->post_filter == NULL)
		return (0);
	why[0] = '\0';
	if (f->h->post_filter(f->host, family, addr, a, why, sizeof(why),
	    f->h->post_filter_arg))
		return (0);
	log_warnx("https: host=%s addr=%s refused=address why=\"%s\"",
	    f->host, a, why);
	if (f->nrefused++ == 0)
		snprintf(f->refused, sizeof(f->refused), "%s: %s", a, why);
	return (1);
}

/*
 * https_opensocket_cb - connect only to addresses DNS gave us, and for a
 * POST only to those its filter allows: here, where curl has the actual
 * address of this attempt in hand, before any socket exists
 */
static curl_socket_t
https_opensocket_cb(void *clientp, curlsocktype purpose,
    struct curl_sockaddr *sa)
{
	struct https_fetch	*f = clientp;
	char			 a[HTTPS_ADDR_MAX];
	const void		*p = NULL;
	size_t			 i;

	(void)purpose;
	f->nopen++;
	if (f->h->proxy == NULL) {
		if (sa->family == AF_INET)
			p = &((struct sockaddr_in *)(void *)
			    &sa->addr)->sin_addr;
		else if (sa->family == AF_INET6)
			p = &((struct sockaddr_in6 *)(void *)
			    &sa->addr)->sin6_addr;
		if (p == NULL || inet_ntop(sa->family, p, a, sizeof(a)) ==
		    NULL)
			return (CURL_SOCKET_BAD);
		for (i = 0; i < f->naddrs; i++)
			if (strcmp(a, f->addrs[i]) == 0)
				break;
		if (i == f->naddrs) {
			log_warnx("https: host=%s addr=%s refused=not-from-dns",
			    f->host, a);
			return (CURL_SOCKET_BAD);
		}
		if (https_post_refuses(f, sa->family, p, a))
			return (CURL_SOCKET_BAD);
	}
	return (socket(sa->family, sa->socktype, sa->protocol));
}

/* https_error_from_curl - map a transfer's CURLcode to our kinds */
static enum https_error
https_error_from_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		return (HTTPS_OK);
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return (HTTPS_ERR_CONNECT);
	case CURLE_OPERATION_TIMEDOUT:
		return (HTTPS_ERR_TIMEOUT);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_ISSUER_ERROR:
		return (HTTPS_ERR_WEBPKI);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_USE_SSL_FAILED:
		return (HTTPS_ERR_TLS);
	case CURLE_TOO_MANY_REDIRECTS:
		return (HTTPS_ERR_REDIRECT);
	case CURLE_FILESIZE_EXCEEDED:
		return (HTTPS_ERR_TOO_LARGE);
	default:
		return (HTTPS_ERR_OTHER);
	}
}

/* https_finish - report one transfer to its owner and free it */
static void
https_finish(struct https_fetch *f)
{
	char			*ip = NULL;
	char			 esc[HTTPS_DETAIL_MAX];
	const char		*why;
	enum https_error	 kind;

	if (f->easy != NULL)
		curl_easy_getinfo(f->easy, CURLINFO_PRIMARY_IP, &ip);
	if (f->easy != NULL && f->status == 0)
		curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &f->status);
	if (f->early != NULL)
		kind = f->early_kind;		/* detail set at set-up */
	else if (f->abort_kind != HTTPS_OK)
		kind = f->abort_kind;
	else if (f->rc == CURLE_FILESIZE_EXCEEDED) {
		/* curl saw the Content-Length before we saw any byte */
		if (!f->head_checked && https_check_head(f) == -1)
			kind = f->abort_kind;
		else {
			kind = HTTPS_ERR_TOO_LARGE;
			snprintf(f->detail, sizeof(f->detail),
			    "Content-Length exceeds %zu bytes",
			    f->max_body);
		}
	} else if (f->rc != CURLE_OK && f->nrefused > 0 &&
	    f->nrefused == f->nopen) {
		/* every socket curl wanted was refused: nothing was opened */
		kind = HTTPS_ERR_ADDRESS;
		snprintf(f->detail, sizeof(f->detail), "%s", f->refused);
	} else if (f->rc != CURLE_OK) {
		kind = https_error_from_curl(f->rc);
		why = f->errbuf[0] != '\0' ? f->errbuf :
		    curl_easy_strerror(f->rc);
		log_escape(esc, sizeof(esc), why, strlen(why));
		snprintf(f->detail, sizeof(f->detail), "%s", esc);
	} else if (!f->head_checked && https_check_head(f) == -1)
		kind = f->abort_kind;		/* e.g. an empty 404 */
	else
		kind = HTTPS_OK;
	https_report(f, kind, ip != NULL ? ip : "");
}

/* https_report - the fetch f ended with kind (detail set if not OK), over
 * a connection to addr (or ""): tell its owner and free it */
static void
https_report(struct https_fetch *f, enum https_error kind, const char *addr)
{
	struct https_result	 res;

	memset(&res, 0, sizeof(res));
	res.error = kind;
	res.host = f->host;
	res.url = f->url;
	res.connect_addr = addr;
	res.status = f->status;
	res.content_type = f->have_content_type ? f->content_type : NULL;
	/* NUL-terminated for convenience; body_len is what counts */
	res.body = buf_cstr(&f->body) != NULL ? f->body.data : "";
	res.body_len = f->body.len;
	res.detail = kind == HTTPS_OK ? "" : f->detail;
	log_debug(1, "https: host=%s addr=%s status=%ld result=%s "
	    "bytes=%zu detail=\"%s\"", f->host, res.connect_addr, f->status,
	    https_error_name(kind), f->body.len, res.detail);
	if (f->cb != NULL)
		f->cb(&res, f->arg);
	https_fetch_free(f);
}

/* https_check_multi - move finished transfers out of curl, report them */
static void
https_check_multi(struct https *h)
{
	CURLMsg			*msg;
	struct https_fetch	*f;
	int			 left;

	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		f = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &f);
		if (f == NULL)
			continue;
		f->rc = msg->data.result;
		curl_multi_remove_handle(h->multi, f->easy);
		f->in_multi = 0;
		TAILQ_REMOVE(&h->fetches, f, entry);
		TAILQ_INSERT_TAIL(&h->done, f, entry);
		f->done = 1;
	}
	https_report_done(h);
}

/* https_report_done - run the callbacks of the done list */
static void
https_report_done(struct https *h)
{
	struct https_fetch	*f;

	while ((f = TAILQ_FIRST(&h->done)) != NULL) {
		TAILQ_REMOVE(&h->done, f, entry);
		f->done = 0;
		https_finish(f);
	}
}

/* https_early_fired - a fetch that could not be set up fails here, from
 * the event loop, never from inside https_fetch() */
static void
https_early_fired(evutil_socket_t fd, short what, void *arg)
{
	struct https_fetch	*f = arg;

	(void)fd;
	(void)what;
	TAILQ_REMOVE(&f->h->fetches, f, entry);
	https_finish(f);
}

/* https_fail_early - schedule the failure of a fetch that never started */
static struct https_fetch *
https_fail_early(struct https_fetch *f, enum https_error kind,
    const char *why)
{
	struct timeval	 tv = { 0, 0 };

	f->early_kind = kind;
	if (why != f->detail)
		snprintf(f->detail, sizeof(f->detail), "%s", why);
	if ((f->early = evtimer_new(f->h->base, https_early_fired, f)) == NULL)
		fatalx("https: cannot create a timer");
	evtimer_add(f->early, &tv);
	return (f);
}

/* https_resolve_entry - "host:443:a1,[a6],..." for CURLOPT_RESOLVE */
static int
https_resolve_entry(struct https_fetch *f, struct buf *b)
{
	size_t	 i;

	buf_appendf(b, "%s:%u:", f->host, f->port);
	for (i = 0; i < f->naddrs; i++) {
		if (i > 0)
			buf_append_char(b, ',');
		if (strchr(f->addrs[i], ':') != NULL)
			buf_appendf(b, "[%s]", f->addrs[i]);
		else
			buf_append_str(b, f->addrs[i]);
	}
	return (buf_cstr(b) == NULL || b->error ? -1 : 0);
}

/* https_setup - configure the easy handle of f; -1 with detail set */
static int
https_setup(struct https_fetch *f)
{
	struct https	*h = f->h;
	struct buf	 rb;
	CURL		*e;
	int		 ok = 1;

	buf_init(&rb, HTTPS_MAX_HOST + 16 +
	    HTTPS_MAX_ADDRS * (HTTPS_ADDR_MAX + 3));
	if (https_resolve_entry(f, &rb) == -1) {
		buf_free(&rb);
		snprintf(f->detail, sizeof(f->detail),
		    "resolve entry too long");
		return (-1);
	}
	f->resolve = curl_slist_append(NULL, rb.data);
	buf_free(&rb);
	if (f->resolve == NULL)
		fatalx("https: out of memory");

	if ((f->share = curl_share_init()) == NULL ||
	    curl_share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) !=
	    CURLSHE_OK || (e = f->easy = curl_easy_init()) == NULL) {
		snprintf(f->detail, sizeof(f->detail),
		    "cannot create a curl handle");
		return (-1);
	}
#define HTTPS_SETOPT(opt, val) \
	do { if (curl_easy_setopt(e, opt, val) != CURLE_OK) ok = 0; } while (0)
	HTTPS_SETOPT(CURLOPT_PRIVATE, f);
	HTTPS_SETOPT(CURLOPT_URL, f->url);
	HTTPS_SETOPT(CURLOPT_SHARE, f->share);
	HTTPS_SETOPT(CURLOPT_RESOLVE, f->resolve);
	HTTPS_SETOPT(CURLOPT_OPENSOCKETFUNCTION, https_opensocket_cb);
	HTTPS_SETOPT(CURLOPT_OPENSOCKETDATA, f);
	HTTPS_SETOPT(CURLOPT_PROTOCOLS_STR, "https");
	HTTPS_SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	HTTPS_SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
	HTTPS_SETOPT(CURLOPT_MAXREDIRS, 0L);
	/* verification is https_prereq_cb's, against h->trust: curl loads
	 * no CA (CAINFO and CAPATH cleared, or it would parse its built-in
	 * bundle per connection) and resumes no TLS session, so every
	 * transfer has a full handshake and a peer chain to check */
	HTTPS_SETOPT(CURLOPT_SSL_VERIFYPEER, 0L);
	HTTPS_SETOPT(CURLOPT_SSL_VERIFYHOST, 0L);
	HTTPS_SETOPT(CURLOPT_CAINFO, (char *)NULL);
	HTTPS_SETOPT(CURLOPT_CAPATH, (char *)NULL);
	HTTPS_SETOPT(CURLOPT_SSL_SESSIONID_CACHE, 0L);
	HTTPS_SETOPT(CURLOPT_PREREQFUNCTION, https_prereq_cb);
	HTTPS_SETOPT(CURLOPT_PREREQDATA, f);
	HTTPS_SETOPT(CURLOPT_HEADERFUNCTION, https_header_cb);
	HTTPS_SETOPT(CURLOPT_HEADERDATA, f);
	HTTPS_SETOPT(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	/* one fetch per host and refresh: keep no idle connection */
	HTTPS_SETOPT(CURLOPT_FORBID_REUSE, 1L);
	if (h->proxy != NULL) {
		HTTPS_SETOPT(CURLOPT_PROXY, h->proxy);
		/* the proxy's CONNECT reply is not the peer's: keep it from
		 * https_header_cb, which refuses unverified headers */
		HTTPS_SETOPT(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
	}
	else
		HTTPS_SETOPT(CURLOPT_PROXY, "");	/* ignore *_proxy env */
	HTTPS_SETOPT(CURLOPT_CONNECTTIMEOUT_MS, h->connect_timeout_ms);
	HTTPS_SETOPT(CURLOPT_TIMEOUT_MS, h->timeout_ms);
	HTTPS_SETOPT(CURLOPT_LOW_SPEED_LIMIT, (long)HTTPS_LOW_SPEED_LIMIT);
	HTTPS_SETOPT(CURLOPT_LOW_SPEED_TIME, (long)HTTPS_LOW_SPEED_TIME);
	if (f->post) {
		HTTPS_SETOPT(CURLOPT_POST, 1L);
		HTTPS_SETOPT(CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)f->postlen);
		HTTPS_SETOPT(CURLOPT_POSTFIELDS, f->postdata);
		HTTPS_SETOPT(CURLOPT_HTTPHEADER, f->headers);
	} else
		HTTPS_SETOPT(CURLOPT_MAXFILESIZE_LARGE,
		    (curl_off_t)f->max_body);
	HTTPS_SETOPT(CURLOPT_USERAGENT, HTTPS_USER_AGENT);
	HTTPS_SETOPT(CURLOPT_NOSIGNAL, 1L);
	HTTPS_SETOPT(CURLOPT_WRITEFUNCTION, https_write_cb);
	HTTPS_SETOPT(CURLOPT_WRITEDATA, f);
	HTTPS_SETOPT(CURLOPT_ERRORBUFFER, f->errbuf);
#undef HTTPS_SETOPT
	if (!ok) {
		snprintf(f->detail, sizeof(f->detail),
		    "libcurl refused an option (too old?)");
		return (-1);
	}
	return (0);
}

/* https_path_ok - a POST path: '/' first, then URI characters only */
static int
https_path_ok(const char *path)
{
	size_t	 i, len = strlen(path);

	if (len == 0 || len > HTTPS_MAX_PATH || path[0] != '/')
		return (0);
	for (i = 0; i < len; i++)
		if ((unsigned char)path[i] <= ' ' ||
		    (unsigned char)path[i] >= 0x7f || path[i] == '#')
			return (0);
	return (1);
}

/*
 * https_post_prefilter - with a proxy, which resolves the host itself
 * and may connect to any of its addresses: -1 if the POST filter refuses
 * any of f's (the proxy's own rules keep it from the rest)
 */
static int
https_post_prefilter(struct https_fetch *f)
{
	unsigned char	 b[sizeof(struct in6_addr)];
	size_t		 i;
	int		 af;

	for (i = 0; i < f->naddrs; i++) {
		af = strchr(f->addrs[i], ':') != NULL ? AF_INET6 : AF_INET;
		if (inet_pton(af, f->addrs[i], b) != 1) {
			snprintf(f->refused, sizeof(f->refused), "%s: not an "
			    "address", f->addrs[i]);
			return (-1);
		}
		if (https_post_refuses(f, af, b, f->addrs[i]))
			return (-1);
	}
	return (0);
}

/*
 * https_start - the part of https_fetch() and https_post() after f is
 * made: the host, the URL (path NULL: the policy's), the addresses, the
 * curl handle
 */
static struct https_fetch *
https_start(struct https_fetch *f, const char *host, const char *path,
    const char *const *addrs, size_t naddrs)
{
	struct https		*h = f->h;
	struct in6_addr		 a6;
	struct in_addr		 a4;
	size_t			 i;
	CURLMcode		 mc;

	if (domain_check(host, strlen(host), DOMAIN_NAME_UNDERSCORE, 1,
	    NULL) != DOMAIN_CHECK_OK) {
		f->url = xstrdup("");
		return (https_fail_early(f, HTTPS_ERR_OTHER,
		    "invalid host name"));
	}
	if (path != NULL && !https_path_ok(path)) {
		f->url = xstrdup("");
		return (https_fail_early(f, HTTPS_ERR_OTHER, "invalid path"));
	}
	f->url = xmalloc(HTTPS_MAX_URL);
	if (path == NULL)
		snprintf(f->url, HTTPS_MAX_URL, "https://%s%s", host,
		    HTTPS_WELL_KNOWN_PATH);
	else if (f->port == HTTPS_PORT)
		snprintf(f->url, HTTPS_MAX_URL, "https://%s%s", host, path);
	else
		snprintf(f->url, HTTPS_MAX_URL, "https://%s:%u%s", host,
		    f->port, path);
	for (i = 0; i < naddrs && f->naddrs < HTTPS_MAX_ADDRS; i++) {
		/* only literals: a name here would reach the system resolver */
		if (inet_pton(AF_INET, addrs[i], &a4) == 1)
			inet_ntop(AF_INET, &a4, f->addrs[f->naddrs],
			    HTTPS_ADDR_MAX);
		else if (inet_pton(AF_INET6, addrs[i], &a6) == 1)
			inet_ntop(AF_INET6, &a6, f->addrs[f->naddrs],
			    HTTPS_ADDR_MAX);
		else
			continue;
		f->naddrs++;
	}
	if (f->naddrs == 0)
		return (https_fail_early(f, HTTPS_ERR_CONNECT,
		    "no usable address"));
	if (h->proxy != NULL && https_post_prefilter(f) == -1)
		return (https_fail_early(f, HTTPS_ERR_ADDRESS, f->refused));
	if (https_setup(f) == -1)
		return (https_fail_early(f, HTTPS_ERR_OTHER, f->detail));
	if ((mc = curl_multi_add_handle(h->multi, f->easy)) != CURLM_OK)
		return (https_fail_early(f, HTTPS_ERR_OTHER,
		    curl_multi_strerror(mc)));
	f->in_multi = 1;
	return (f);
}

/* https_new_fetch - a fetch of h for host, on the running list */
static struct https_fetch *
https_new_fetch(struct https *h, const char *host, size_t maxbody,
    https_cb *cb, void *arg)
{
	struct https_fetch	*f;

	f = xcalloc(1, sizeof(*f));
	f->h = h;
	f->cb = cb;
	f->arg = arg;
	f->host = xstrdup(host);
	f->port = HTTPS_PORT;
	f->max_body = maxbody;
	buf_init(&f->body, maxbody);
	TAILQ_INSERT_TAIL(&h->fetches, f, entry);
	return (f);
}

struct https_fetch *
https_fetch(struct https *h, const char *host, const char *const *addrs,
    size_t naddrs, https_cb *cb, void *arg)
{
	struct https_fetch	*f;

	f = https_new_fetch(h, host, h->max_body, cb, arg);
	return (https_start(f, host, NULL, addrs, naddrs));
}

struct https_fetch *
https_get(struct https *h, const char *host, unsigned int port,
    const char *path, const char *const *addrs, size_t naddrs,
    size_t maxbody, https_cb *cb, void *arg)
{
	struct https_fetch	*f;

	f = https_new_fetch(h, host, maxbody, cb, arg);
	f->file = 1;
	f->port = port;
	if (port == 0 || port > 65535 || maxbody == 0) {
		f->url = xstrdup("");
		return (https_fail_early(f, HTTPS_ERR_OTHER,
		    "invalid port or body limit"));
	}
	return (https_start(f, host, path, addrs, naddrs));
}

struct https_fetch *
https_post(struct https *h, const char *host, unsigned int port,
    const char *path, const char *const *addrs, size_t naddrs,
    const char *ctype, const void *body, size_t len, https_cb *cb, void *arg)
{
	struct https_fetch	*f;
	char			 hdr[HTTPS_MAX_CTYPE + 16];
	size_t			 i;

	f = https_new_fetch(h, host, HTTPS_POST_MAX_REPLY, cb, arg);
	f->post = 1;
	f->port = port;
	f->postdata = xmalloc(len > 0 ? len : 1);
	if (len > 0)
		memcpy(f->postdata, body, len);
	f->postlen = len;
	for (i = 0; ctype[i] != '\0'; i++)
		if ((unsigned char)ctype[i] < ' ' ||
		    (unsigned char)ctype[i] >= 0x7f)
			break;
	if (port == 0 || port > 65535 || ctype[i] != '\0' ||
	    (size_t)snprintf(hdr, sizeof(hdr), "Content-Type: %s", ctype) >=
	    sizeof(hdr)) {
		f->url = xstrdup("");
		return (https_fail_early(f, HTTPS_ERR_OTHER,
		    "invalid port or content type"));
	}
	/* "Expect:" off: no 100-continue round trip before the body */
	if ((f->headers = curl_slist_append(NULL, hdr)) == NULL ||
	    (f->headers = curl_slist_append(f->headers, "Expect:")) == NULL)
		fatalx("https: out of memory");
	return (https_start(f, host, path, addrs, naddrs));
}

void
https_set_post_filter(struct https *h, https_addr_fn *fn, void *arg)
{
	h->post_filter = fn;
	h->post_filter_arg = arg;
}

void
https_cancel(struct https_fetch *f)
{
	struct https	*h;

	if (f == NULL)
		return;
	h = f->h;
	if (f->done)
		TAILQ_REMOVE(&h->done, f, entry);
	else
		TAILQ_REMOVE(&h->fetches, f, entry);
	if (f->in_multi)
		curl_multi_remove_handle(h->multi, f->easy);
	https_fetch_free(f);
}

void
https_free(struct https *h)
{
	struct https_fetch	*f;
	struct https_sock	*s;

	if (h == NULL)
		return;
	while ((f = TAILQ_FIRST(&h->fetches)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		https_cancel(f);
	while ((f = TAILQ_FIRST(&h->done)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		https_cancel(f);
	curl_multi_cleanup(h->multi);
	while ((s = LIST_FIRST(&h->socks)) != NULL) {
		LIST_REMOVE(s, entry);
		event_free(s->ev);
		free(s);
	}
	event_free(h->timer);
	trust_free(h->trust);
	free(h->proxy);
	free(h);
	curl_global_cleanup();
}
