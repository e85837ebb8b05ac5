/*
 * https.h - MTA-STS policy fetches (RFC 8461 §3.3) with libcurl on libevent
 *
 * One struct https owns a curl multi handle driven by the caller's event
 * base (curl's socket and timer callbacks become libevent events), so any
 * number of fetches run concurrently in one thread; bounding them is the
 * caller's business.
 *
 * https_fetch() GETs https://HOST/.well-known/mta-sts.txt connecting only
 * to the addresses given (found by dns.c with DNSSEC validation): curl is
 * handed them with CURLOPT_RESOLVE and never calls the system resolver.
 *
 * Callback contract: https_fetch() always returns a handle and the callback
 * runs exactly once, later, from the event loop, unless https_cancel() was
 * called first.  The handle is dead once the callback has started.  The
 * result and everything it points to are valid only during the callback.
 * A callback may start and cancel other fetches, but not call https_free().
 */
#ifndef HTTPS_H
#define HTTPS_H

#include <stddef.h>

struct event_base;
struct config_https;

#define HTTPS_WELL_KNOWN_PATH	"/.well-known/mta-sts.txt"	/* §3.3 */
#define HTTPS_MAX_BODY		65536	/* RFC 8461 §3.3: 64 KiB policy */
#define HTTPS_MAX_ADDRS		32	/* addresses per fetch */
#define HTTPS_MAX_HOST		253
#define HTTPS_MAX_PATH		1024	/* https_post(): path and query */
#define HTTPS_POST_MAX_REPLY	4096	/* https_post(): reply bytes kept */
#define HTTPS_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define HTTPS_DEFAULT_TIMEOUT_MS 60000
#define HTTPS_LOW_SPEED_LIMIT	64	/* bytes/s below which ... */
#define HTTPS_LOW_SPEED_TIME	15	/* ... for this many seconds aborts */

enum https_error {
	HTTPS_OK = 0,
	HTTPS_ERR_CONNECT,	/* no TCP connection to any address */
	HTTPS_ERR_TLS,		/* TLS handshake failed (not the cert) */
	HTTPS_ERR_WEBPKI,	/* certificate invalid: chain, name, dates */
	HTTPS_ERR_TIMEOUT,	/* connect/total timeout or too slow */
	HTTPS_ERR_HTTP_STATUS,	/* a status other than 200 (and not 3xx) */
	HTTPS_ERR_REDIRECT,	/* a 3xx: §3.3 forbids following it */
	HTTPS_ERR_CONTENT_TYPE,	/* not text/plain */
	HTTPS_ERR_TOO_LARGE,	/* body or Content-Length > HTTPS_MAX_BODY */
	HTTPS_ERR_OTHER,
	/* after OTHER: the daemon's counters stop at OTHER (its fetches have
	 * no filter) */
	HTTPS_ERR_ADDRESS,	/* POST: every address refused by the filter
				   (https_set_post_filter), none connected */
};

struct https_result {
	enum https_error error;
	const char	*host;
	const char	*url;
	const char	*connect_addr;	/* address connected to, or "" */
	long		 status;	/* HTTP status, 0 if none */
	const char	*content_type;	/* as received, or NULL */
	const char	*body;		/* HTTPS_OK: the whole body; else what
					   arrived before the error */
	size_t		 body_len;
	const char	*detail;	/* short text for humans, "" if OK */
};

typedef void	https_cb(const struct https_result *res, void *arg);

struct https;
struct https_fetch;

/*
 * https_new - a fetcher on base configured from cf (CA file or the system
 * store, optional proxy, timeouts in seconds; 0 = default; body limit
 * max_policy_size, 0 or over HTTPS_MAX_BODY = HTTPS_MAX_BODY).  Returns NULL
 * with a message in err (size errsz) on failure.
 */
struct https	*https_new(struct event_base *base,
		    const struct config_https *cf, char *err, size_t errsz);

/*
 * https_fetch - fetch the policy of host (the "mta-sts.DOMAIN" name, used
 * for the URL, SNI and certificate check) from one of addrs[0..naddrs)
 * (IPv4 or IPv6 literals, at most HTTPS_MAX_ADDRS are used).  cb(res, arg)
 * runs later exactly once.  Never NULL.
 */
struct https_fetch *https_fetch(struct https *h, const char *host,
		    const char *const *addrs, size_t naddrs, https_cb *cb,
		    void *arg);

/*
 * https_get - GET https://host:port/path (path starts with '/', as for
 * https_post) for a file that is not a policy: postsmtpsts-cache
 * preload's lists and their signatures.  The same addresses, certificate
 * check (trust.c), TLS version, timeouts and no redirects (a 3xx is
 * HTTPS_ERR_REDIRECT) as https_fetch(); status 200 only, any media type
 * (what the file is, its signature says), and a body limit of its own:
 * a Content-Length over maxbody is refused before the body, a body as
 * soon as it would grow past it (HTTPS_ERR_TOO_LARGE, never after
 * reading more).  The body is held in memory (up to maxbody).  Never
 * NULL.
 */
struct https_fetch *https_get(struct https *h, const char *host,
		    unsigned int port, const char *path,
		    const char *const *addrs, size_t naddrs, size_t maxbody,
		    https_cb *cb, void *arg);

/*
 * https_post - POST body[0..len) as Content-Type ctype to
 * https://host:port/path (path starts with '/': RFC 3986 path and query,
 * no blank, control byte or fragment), connecting only to addrs as
 * https_fetch() does, with the same certificate check (trust.c), TLS
 * version, timeouts and no redirects (a 3xx is HTTPS_ERR_REDIRECT).  Any
 * 2xx is HTTPS_OK (RFC 8460 §5.3: TLSRPT reports to an https: rua);
 * another status HTTPS_ERR_HTTP_STATUS.  The reply body is kept, for a
 * log line, up to HTTPS_POST_MAX_REPLY bytes; body is copied.  For
 * postsmtpsts-tlsrpt(8).  Never NULL.
 */
struct https_fetch *https_post(struct https *h, const char *host,
		    unsigned int port, const char *path,
		    const char *const *addrs, size_t naddrs, const char *ctype,
		    const void *body, size_t len, https_cb *cb, void *arg);

/*
 * https_addr_fn - may a POST to host connect to addr (family AF_INET: 4
 * bytes, AF_INET6: 16; text: its presentation form)?  1 yes; 0 no, with
 * the reason in why (size whysz) for the log and the result's detail.
 */
typedef int	https_addr_fn(const char *host, int family, const void *addr,
		    const char *text, char *why, size_t whysz, void *arg);

/*
 * https_set_post_filter - every https_post() of h from now on asks
 * fn(..., arg) about each address curl is about to open a socket to (in
 * curl's opensocket callback: the actual address of each attempt, so a
 * name that resolves again differently and every address of a host are
 * judged); a refused one gets no socket, curl goes on to the next.  If
 * every address was refused, the POST ends in HTTPS_ERR_ADDRESS with the
 * first reason as its detail.  With https.proxy, curl's socket is the
 * proxy's, which resolves the host itself: addrs are judged before the
 * transfer starts instead.  Policy fetches (https_fetch) are never
 * filtered.  fn NULL: no filter (the default).
 */
void		 https_set_post_filter(struct https *h, https_addr_fn *fn,
		    void *arg);

/*
 * https_check - read the trust store cf names (ca_file, or the system's) as
 * https_new() would, and drop it: 0, or -1 with the reason in err (size
 * errsz).  For the master, before it starts a resolver with cf.
 */
int		 https_check(const struct config_https *cf, char *err,
		    size_t errsz);

/* https_cancel - abort the fetch, the callback will not run; NULL: no-op */
void		 https_cancel(struct https_fetch *f);

/* https_free - abort every fetch (no callbacks) and release h; NULL: no-op */
void		 https_free(struct https *h);

/* https_error_name - "ok", "connect", "tls", "webpki", "timeout",
 * "http-status", "redirect", "content-type", "too-large", "other",
 * "address" */
const char	*https_error_name(enum https_error e);

/*
 * https_media_type_ok - is the Content-Type value p[0..len) text/plain?
 * The type is case-insensitive (RFC 7231 §3.1.1.1), parameters such as
 * "; charset=utf-8" are allowed.
 */
int		 https_media_type_ok(const char *p, size_t len);

#endif
