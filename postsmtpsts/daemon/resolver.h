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

struct cache;
struct config;
struct event_base;
struct resolver;

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
 * resolver_main - run resolver shard (0 .. cf->resolvers-1: the domains
 * lib/ipc's ipc_shard() gives it) until SIGTERM; lfd is its listening
 * SEQPACKET socket.  Returns the exit status.  It is resolver_new() on a child's
 * event base, child_run() (signals, sandbox, readiness, the loop), then
 * resolver_free().
 */
int	resolver_main(const struct config *cf, int shard, int lfd);

/*
 * resolver_new - resolver shard on base, accepting workers on lfd (a listening
 * SEQPACKET socket, made non-blocking here), reading cf (kept, not
 * copied: it must outlive the resolver): dns and https on base, the
 * cache opened (and repaired) as the writer, the refresh timer armed.
 * No fork, no signals, no sandbox: resolver_main() adds those, and a test
 * (tests/scenario) runs the resolver in its own loop.  Fatal on a
 * start-up failure, like every child's start.
 */
struct resolver *resolver_new(const struct config *cf, int shard, int lfd,
	    struct event_base *base);

/*
 * resolver_free - stop as on SIGTERM: cancel every discovery, close the
 * worker connections, commit what was learned and not yet written (the
 * write-behind array and the cancelled jobs' records), close the cache,
 * free r.  base and lfd stay the caller's.  NULL is a no-op.
 */
void	resolver_free(struct resolver *r);

/*
 * resolver_crash - tests only: free r as a kill -9 of the process would
 * leave the cache: what was learned and not yet committed is lost.
 */
void	resolver_crash(struct resolver *r);

/* resolver_cache - tests only: r's cache (NULL: none), to read what is
 * committed */
struct cache *resolver_cache(struct resolver *r);

#endif
