/*
 * cache_fleet.h - postsmtpsts-cache's fleet commands (postsmtpsts-cache(8))
 *
 *   fleet-stats   the fleet's connection, the number of records under the
 *                 prefix, and the daemon's fleet counters
 *   push          offer every fresh local record to the fleet
 *                 (compare-and-set through fleet_facts_take: never a
 *                 downgrade, never over a fresher record)
 *   pull          take the fleet's records into the local cache through
 *                 the same gate (e.g. to seed a new host before it starts)
 *
 * Each returns the tool's exit status (0 done, 1 error) and prints one
 * summary; cf must have a fleet section.  With a build without hiredis
 * they print why and return 1.
 */
#ifndef CACHE_FLEET_H
#define CACHE_FLEET_H

struct config;
struct cache;

#define CACHE_FLEET_INFLIGHT	64	/* operations at once */
#define CACHE_FLEET_CONNECT_MS	3000	/* wait for the connection */

int	cache_fleet_stats(const struct config *cf);
int	cache_fleet_push(const struct config *cf, struct cache *c);
int	cache_fleet_pull(const struct config *cf, struct cache *c);

#endif
