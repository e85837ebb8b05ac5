/*
 * preload_fetch.c - a preload list or its signature by https (issue 38)
 *
 * Interface: preload_fetch.h.  One event base, one lib/dns and one
 * lib/https for a run of postsmtpsts-cache preload; each fetch is the
 * host's A (then AAAA when A gives no address: the IPv6 addresses are
 * tried only then, as discover.c does for policy hosts), then one
 * https_get(), the loop run until it reports or the deadline passes.
 *
 * Limits: the body at most the caller's max (PRELOAD_LIST_MAX for a
 * list), counted while it arrives (https.c's write callback), a larger
 * Content-Length refused before the body; the whole fetch, DNS
 * included, within the deadline (https.timeout is set to it, and a
 * timer of ours ends the loop at the same time should DNS hang); the
 * URL is checked here (https only, a host name, a port, a path of
 * printable ASCII), and lib/https refuses a 3xx: a list is fetched from
 * where the configuration says, not from where a server points.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "lib/config.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tools/preload_fetch.h"

#define PRELOAD_FETCH_ADDR_LEN	INET6_ADDRSTRLEN
#define PRELOAD_FETCH_MAX_TIMEOUT 3600	/* s */
#define PRELOAD_FETCH_PREFIX	"https://"

struct preload_fetch {
	struct event_base *base;
	struct dns	*dns;
	struct https	*https;
	struct event	*deadline;
	int		 timeout_s;
	/* the fetch under way */
	struct preload_fetch_url u;
	size_t		 max;
	int		 aaaa;
	char		 addrs[HTTPS_MAX_ADDRS][PRELOAD_FETCH_ADDR_LEN];
	size_t		 naddrs;
	struct dns_query *q;
	struct https_fetch *f;
	int		 done;
	char		*body;
	size_t		 len;
	char		*why;
	size_t		 whysz;
};

int
preload_fetch_url_split(const char *p, size_t len,
    struct preload_fetch_url *u)
{
	size_t		 i, h, hl, plen = sizeof(PRELOAD_FETCH_PREFIX) - 1;
	unsigned long	 port = 0;

	memset(u, 0, sizeof(*u));
	if (len <= plen || strncmp(p, PRELOAD_FETCH_PREFIX, plen) != 0)
		return (-1);
	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f ||
		    p[i] == '#')
			return (-1);
	h = plen;
	for (i = h; i < len && p[i] != ':' && p[i] != '/'; i++)
		;
	hl = i - h;
	/* a host name (no '@', '[', address literal: domain_check) */
	if (hl == 0 || domain_check(p + h, hl, 0, 2, u->host) !=
	    DOMAIN_CHECK_OK)
		return (-1);
	u->port = 443;
	if (i < len && p[i] == ':') {
		for (i++; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
			port = port * 10 + (unsigned long)(p[i] - '0');
			if (port > 65535)
				return (-1);
		}
		if (port == 0 || (i < len && p[i] != '/'))
			return (-1);
		u->port = (unsigned int)port;
	}
	if (i == len) {
		u->path[0] = '/';
		return (0);
	}
	if (len - i > PRELOAD_FETCH_MAX_PATH)
		return (-1);
	memcpy(u->path, p + i, len - i);
	return (0);
}

/* preload_fetch_end - the fetch is over: the loop may stop */
static void
preload_fetch_end(struct preload_fetch *pf)
{
	pf->done = 1;
	event_base_loopbreak(pf->base);
}

/* preload_fetch_deadline - the whole fetch's time is up (a DNS query
 * that hangs: https.timeout bounds the transfer itself) */
static void
preload_fetch_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct preload_fetch *pf = arg;

	(void)fd;
	(void)what;
	dns_cancel(pf->q);
	pf->q = NULL;
	https_cancel(pf->f);
	pf->f = NULL;
	(void)snprintf(pf->why, pf->whysz, "timeout: no answer within %d s",
	    pf->timeout_s);
	preload_fetch_end(pf);
}

/* preload_fetch_got - https_get() reported */
static void
preload_fetch_got(const struct https_result *res, void *arg)
{
	struct preload_fetch *pf = arg;

	pf->f = NULL;
	if (res->error != HTTPS_OK)
		(void)snprintf(pf->why, pf->whysz, "%s: %s",
		    https_error_name(res->error), res->detail);
	else {
		pf->body = xmalloc(res->body_len + 1);
		memcpy(pf->body, res->body, res->body_len);
		pf->body[res->body_len] = '\0';
		pf->len = res->body_len;
	}
	preload_fetch_end(pf);
}

/* preload_fetch_addr - the host's A (then AAAA) answer */
static void
preload_fetch_addr(const struct dns_result *res, void *arg)
{
	struct preload_fetch *pf = arg;
	const char	*addrs[HTTPS_MAX_ADDRS];
	int		 af = pf->aaaa ? AF_INET6 : AF_INET;
	size_t		 i, alen = pf->aaaa ? 16 : 4;

	pf->q = NULL;
	if (res->status == DNS_OK && res->security != DNS_BOGUS)
		for (i = 0; i < res->rdata_count &&
		    pf->naddrs < HTTPS_MAX_ADDRS; i++)
			if (res->rdata_len[i] == alen && inet_ntop(af,
			    res->rdata[i], pf->addrs[pf->naddrs],
			    PRELOAD_FETCH_ADDR_LEN) != NULL)
				pf->naddrs++;
	if (res->security == DNS_BOGUS) {
		(void)snprintf(pf->why, pf->whysz, "dns: %s: the address is "
		    "DNSSEC bogus", pf->u.host);
		preload_fetch_end(pf);
		return;
	}
	if (pf->naddrs == 0 && !pf->aaaa) {
		pf->aaaa = 1;
		pf->q = dns_query(pf->dns, pf->u.host, DNS_TYPE_AAAA,
		    preload_fetch_addr, pf);
		return;
	}
	if (pf->naddrs == 0) {
		(void)snprintf(pf->why, pf->whysz, "dns: %s: no address (%s)",
		    pf->u.host, res->status != DNS_OK ? res->error :
		    res->nxdomain ? "no such name" : "no A or AAAA record");
		preload_fetch_end(pf);
		return;
	}
	for (i = 0; i < pf->naddrs; i++)
		addrs[i] = pf->addrs[i];
	pf->f = https_get(pf->https, pf->u.host, pf->u.port, pf->u.path,
	    addrs, pf->naddrs, pf->max, preload_fetch_got, pf);
}

struct preload_fetch *
preload_fetch_new(const struct config *cf, int timeout_s, char *err,
    size_t errsz)
{
	struct preload_fetch *pf;
	struct config_https hcf;

	pf = xcalloc(1, sizeof(*pf));
	pf->timeout_s = timeout_s > 0 && timeout_s <= PRELOAD_FETCH_MAX_TIMEOUT ?
	    timeout_s : PRELOAD_FETCH_DEFAULT_TIMEOUT;
	/* the policy fetches' CA file and proxy; the list's own deadline */
	hcf = cf->https;
	hcf.timeout = pf->timeout_s;
	if (hcf.connect_timeout <= 0 || hcf.connect_timeout > pf->timeout_s)
		hcf.connect_timeout = pf->timeout_s;
	if ((pf->base = event_base_new()) == NULL) {
		(void)snprintf(err, errsz, "event_base_new failed");
		free(pf);
		return (NULL);
	}
	if ((pf->dns = dns_new(pf->base, &cf->dns, err, errsz)) == NULL ||
	    (pf->https = https_new(pf->base, &hcf, err, errsz)) == NULL ||
	    (pf->deadline = evtimer_new(pf->base, preload_fetch_deadline,
	    pf)) == NULL) {
		if (pf->deadline == NULL && err[0] == '\0')
			(void)snprintf(err, errsz, "evtimer_new failed");
		preload_fetch_free(pf);
		return (NULL);
	}
	dns_set_timeout(pf->dns, pf->timeout_s * 1000);
	return (pf);
}

char *
preload_fetch_get(struct preload_fetch *pf, const char *url, size_t max,
    size_t *lenp, char *why, size_t whysz)
{
	struct timeval	 tv;

	why[0] = '\0';
	if (preload_fetch_url_split(url, strlen(url), &pf->u) != 0) {
		(void)snprintf(why, whysz, "not an https://HOST[:PORT]/PATH "
		    "URL of a host name");
		return (NULL);
	}
	pf->max = max;
	pf->aaaa = 0;
	pf->naddrs = 0;
	pf->done = 0;
	pf->body = NULL;
	pf->len = 0;
	pf->why = why;
	pf->whysz = whysz;
	tv.tv_sec = pf->timeout_s;
	tv.tv_usec = 0;
	evtimer_add(pf->deadline, &tv);
	pf->q = dns_query(pf->dns, pf->u.host, DNS_TYPE_A, preload_fetch_addr,
	    pf);
	while (!pf->done)
		if (event_base_dispatch(pf->base) == -1) {
			(void)snprintf(why, whysz, "the event loop failed");
			dns_cancel(pf->q);
			https_cancel(pf->f);
			pf->q = NULL;
			pf->f = NULL;
			break;
		}
	evtimer_del(pf->deadline);
	if (pf->body == NULL && why[0] == '\0')
		(void)snprintf(why, whysz, "no answer");
	*lenp = pf->len;
	return (pf->body);
}

void
preload_fetch_free(struct preload_fetch *pf)
{
	if (pf == NULL)
		return;
	https_free(pf->https);
	dns_free(pf->dns);
	if (pf->deadline != NULL)
		event_free(pf->deadline);
	if (pf->base != NULL)
		event_base_free(pf->base);
	free(pf);
}
