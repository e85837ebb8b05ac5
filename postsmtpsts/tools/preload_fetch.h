/*
 * preload_fetch.h - a preload list (or its signature) from an https:// URL
 *
 * NAME
 *	preload_fetch - the https source of postsmtpsts-cache preload
 * SYNOPSIS
 *	pf = preload_fetch_new(cf, timeout_s, err, errsz);
 *	body = preload_fetch_get(pf, url, max, &len, why, whysz);
 *	preload_fetch_free(pf);
 *	rc = preload_fetch_url_split(url, len, &u);
 * DESCRIPTION
 *	A preload source beside the file read (tools/cache_preload.c): the
 *	host's addresses from lib/dns (DNSSEC-validating: a bogus answer
 *	is no address), the file by lib/https's https_get() (the policy
 *	fetches' certificate check against https.ca_file or the system
 *	store, https.proxy, TLS >= 1.2, no redirects, status 200) with a
 *	body limit of the caller's, checked while the body arrives, and a
 *	deadline for the whole fetch (DNS included).  The bytes are held in
 *	memory: the caller writes the private copy gpgv checks (the bytes
 *	checked are the bytes parsed).
 *
 *	URLs (preload_fetch_url_split): https://HOST[:PORT][/PATH], HOST a
 *	DNS name (no address literal, no user info), PORT 1..65535, PATH
 *	printable ASCII without blank or '#' (default "/").  Pure.
 * SEE ALSO
 *	lib/https.h, doc/DESIGN.md "Preload lists".
 */
#ifndef PRELOAD_FETCH_H
#define PRELOAD_FETCH_H

#include <stddef.h>

#include "lib/domain.h"

#define PRELOAD_FETCH_MAX_PATH		1024	/* = HTTPS_MAX_PATH */
#define PRELOAD_FETCH_DEFAULT_TIMEOUT	120	/* s, one fetch, DNS included */

struct config;

/* An https URL in parts. */
struct preload_fetch_url {
	char		 host[DOMAIN_BUFSZ];
	unsigned int	 port;
	char		 path[PRELOAD_FETCH_MAX_PATH + 1];
};

/*
 * preload_fetch_url_split - p[0..len) into *u: 0, or -1 (not an https URL
 * of the form above)
 */
int	preload_fetch_url_split(const char *p, size_t len,
	    struct preload_fetch_url *u);

struct preload_fetch;

/*
 * preload_fetch_new - a fetcher with cf's dns and https settings and a
 * deadline of timeout_s seconds a fetch (0: PRELOAD_FETCH_DEFAULT_TIMEOUT);
 * NULL with err set
 */
struct preload_fetch *preload_fetch_new(const struct config *cf,
	    int timeout_s, char *err, size_t errsz);

/*
 * preload_fetch_get - the body of url, at most max bytes: a malloc'd
 * buffer (NUL after the body; the caller frees) and *lenp, or NULL with
 * the reason in why ("https-error-name: detail", or the DNS failure)
 */
char	*preload_fetch_get(struct preload_fetch *pf, const char *url,
	    size_t max, size_t *lenp, char *why, size_t whysz);

/* preload_fetch_free - release; NULL is a no-op */
void	 preload_fetch_free(struct preload_fetch *pf);

#endif
