/*
 * resolver.h - the resolver process: discovery, cache writes, refresh
 *
 * One process, one libevent loop, running libunbound (dns.c) and libcurl
 * (https.c) asynchronously.  Front workers connect over the internal
 * SOCK_SEQPACKET socket (ipc.h) and ask about domains; concurrent requests
 * for one domain share one discovery (single flight, across workers).  The
 * resolver is the only writer of the cache.
 */
#ifndef RESOLVER_H
#define RESOLVER_H

#include <stddef.h>

struct config;

/* Discoveries at once: max_resolutions; proactive refreshes among them:
 * cache.refresh_concurrency (config.h). */
#define RESOLVER_QUEUE_PER_SLOT	16	/* discoveries waiting for a slot,
					   per max_resolutions; beyond, a
					   request gets TEMP */
#define RESOLVER_MAX_CONNS	1024	/* worker connections */
#define RESOLVER_MAX_OUTQ	4096	/* replies queued per worker when
					   its socket is full ... */
#define RESOLVER_MAX_OUTQ_BYTES	(4 * 1024 * 1024)	/* ... and bytes */
#define RESOLVER_REFRESH_SLICE	2000	/* cache entries walked per tick */
#define RESOLVER_REFRESH_PAUSE_MS 10	/* between slices of one pass */
#define RESOLVER_REFRESH_BUSY_MS 1000	/* retry when refresh slots are full */
#define RESOLVER_EXPIRED_GRACE	86400	/* delete entries expired longer */

/*
 * resolver_check - what the resolver reads at its start from cf, read once
 * and dropped: the libunbound configuration (unbound.conf file, options,
 * trust anchor, root hints) and the trust store for policy hosts.  0, or
 * -1 with "dns: ..." or "https: ..." in err (size errsz).  The master
 * calls it before it starts a resolver: a file that cannot be read stops
 * the start (or the reload) with its name, instead of a resolver that
 * dies and is restarted again and again.
 */
int	resolver_check(const struct config *cf, char *err, size_t errsz);

/*
 * resolver_main - run until SIGTERM; lfd is the listening SEQPACKET
 * socket.  Returns the exit status.
 */
int	resolver_main(const struct config *cf, int lfd);

#endif
