/*
 * rfleet.h - the resolver's side of the fleet tier
 *
 * NAME
 *	rfleet - read-through, write-through and one discovery per domain
 *	fleet-wide, for the resolver process
 * SYNOPSIS
 *	rf = rfleet_new(base, cf, cache, wb, store, arg);
 *	t = rfleet_lookup(rf, domain, want_sts, want_dane, why, cb, arg);
 *	    (NULL: no fleet now, discover at once; else cb(arg, &res) later)
 *	if (rfleet_want(t, want_sts, want_dane) == 0)
 *	    a part added to the job: cb(arg, &res) again, later
 *	rfleet_push(rf, t, key, &rec);	after storing a discovered record
 *	rfleet_done(t);			the job is over (or cancelled)
 *	rfleet_free(rf);
 * DESCRIPTION
 *	Before a job discovers anything, rfleet_lookup() reads the fleet's
 *	records for the parts it wants (one GET each, bounded by
 *	fleet.timeout).  A record that passes the trust-on-first-use gate
 *	(fleet_facts_take: no downgrade, never staler than ours) is stored
 *	in the local cache; a part whose record is now fresh (for a
 *	proactive refresh: not due) needs no discovery.  For the parts left,
 *	the resolver takes the domain's lease (SET NX PX, fleet.lease): if
 *	another host holds it, rfleet polls the fleet's records every
 *	RFLEET_POLL_MS until they appear or fleet.lease_wait passes, then
 *	gives up into its own discovery.  A lease won is not yet a licence
 *	to discover: between our read and our SET NX another host may have
 *	discovered, written and released its lease (it writes before it
 *	releases), so the parts still missing are read once more, and only
 *	what that read does not give is discovered.  cb reports what was
 *	taken; the job discovers the rest.  The decision after each read is
 *	rfleet_next(), pure.  What makes a record taken usable depends on
 *	why the job runs: a request needs it fresh, a proactive refresh not
 *	due, a TXT id re-check fresh with its check not due (a re-check made
 *	by another host: fleet_facts.h, "rechecked").
 *
 *	A request may join a running job and need a part the job did not
 *	want (a proactive MTA-STS refresh meets a lookup whose DANE entry is
 *	stale, say).  rfleet_want() puts that part through the same steps
 *	before the job discovers it: read while the first reads are out, or,
 *	once the ticket has reported, read again (holding the lease: once,
 *	then discover; without it: read, lease or wait, as for a new ticket)
 *	and report again.  Otherwise a part joined late would be the one
 *	discovery per domain not shared with the fleet.
 *
 *	rfleet_push() writes a record the resolver stored back to the fleet
 *	(compare-and-set through the same gate).  The lease is released
 *	when the job is done and its pushes are written, so a host arriving
 *	in between finds the record, not a free lease.  When the connection
 *	comes (back) up, every fresh local record is pushed in slices
 *	(RFLEET_RESYNC_SLICE entries, at most RFLEET_RESYNC_INFLIGHT at
 *	once): what this host learned while Redis was down or empty reaches
 *	the fleet.  Read-only mode reads, never leases, pushes or resyncs.
 *
 *	Workers never see any of this: they read LMDB.
 */
#ifndef RFLEET_H
#define RFLEET_H

#include <stdint.h>

#include "lib/cache.h"
#include "lib/cache_wb.h"

struct event_base;
struct config;
struct cache;
struct rfleet;
struct rfleet_ticket;

#define RFLEET_POLL_MS		50	/* re-read while another host
					   holds the lease */
#define RFLEET_RESYNC_SLICE	128	/* entries per resync step */
#define RFLEET_RESYNC_INFLIGHT	64	/* resync pushes at once */

/* What the fleet gave a job: each part taken (stored locally, usable). */
struct rfleet_result {
	int		 have_sts;
	struct cache_record sts;
	int		 have_dane;
	struct cache_record dane;
};

typedef void	rfleet_cb(void *arg, const struct rfleet_result *res);

/* Why the job runs: what makes a record read from the fleet usable. */
enum rfleet_why {
	RFLEET_REQUEST = 0,	/* a lookup: fresh */
	RFLEET_REFRESH,		/* proactive: not due for refresh */
	RFLEET_TXTCHECK,	/* TXT id re-check: fresh, check not due */
};

/* What a ticket does after its reads (rfleet_next). */
enum rfleet_next {
	RFLEET_TAKEN = 0,	/* every part wanted came from the fleet */
	RFLEET_LEASE,		/* take the domain's lease (SET NX PX) */
	RFLEET_RECHECK,		/* lease won: read the missing parts again */
	RFLEET_DISCOVER,	/* discover what is missing here */
	RFLEET_POLL,		/* another host holds the lease: read again
				   in RFLEET_POLL_MS */
	RFLEET_GIVE_UP,		/* lease_wait passed: discover here */
	RFLEET_NEXT_COUNT,
};

/* What rfleet_next decides from. */
struct rfleet_state {
	int		 need;		/* a part wanted is still missing */
	int		 writable;	/* read-write: leases may be taken */
	int		 lease_tried;
	int		 leased;	/* the lease is ours */
	int		 rechecked;	/* read again since it became ours */
	int		 waiting;	/* another host holds it */
	int64_t		 now_ms;	/* monotonic, when waiting */
	int64_t		 wait_until_ms;
};
/* how a record taken from the fleet is written: the resolver's one store
 * path (room made in a full cache, failures counted and logged) */
typedef void	rfleet_store_fn(void *arg, const char *key,
		    const struct cache_record *rec);

#ifdef HAVE_FLEET
/* rfleet_new - NULL when cf has no fleet section; cache is read (and
 * walked for the resync: shard's domains only, ipc_shard), after wb (what the resolver learned and has not
 * committed yet; may be NULL), store(arg, ...) writes */
struct rfleet *rfleet_new(struct event_base *base, const struct config *cf,
	    int shard, struct cache *cache, const struct cache_wb *wb,
	    rfleet_store_fn *store, void *store_arg);
void	rfleet_free(struct rfleet *rf);
struct rfleet_ticket *rfleet_lookup(struct rfleet *rf, const char *domain,
	    int want_sts, int want_dane, enum rfleet_why why, rfleet_cb *cb,
	    void *arg);
/* rfleet_want - t's job wants more parts: 0 if t reports them (cb again
 * if it had reported already), -1 if the job is to discover them now */
int	rfleet_want(struct rfleet_ticket *t, int want_sts, int want_dane);
void	rfleet_push(struct rfleet *rf, struct rfleet_ticket *t,
	    const char *key, const struct cache_record *rec);
void	rfleet_done(struct rfleet_ticket *t);
/* rfleet_next - the next step of a ticket whose reads are done (pure) */
enum rfleet_next rfleet_next(const struct rfleet_state *s);
/* "taken", "lease", "recheck", "discover", "poll", "give-up" */
const char *rfleet_next_name(enum rfleet_next n);
#else
static inline struct rfleet *
rfleet_new(struct event_base *base, const struct config *cf, int shard,
    struct cache *cache, const struct cache_wb *wb, rfleet_store_fn *store,
    void *store_arg)
{
	(void)base;
	(void)cf;
	(void)shard;
	(void)cache;
	(void)wb;
	(void)store;
	(void)store_arg;
	return (NULL);
}
static inline void
rfleet_free(struct rfleet *rf)
{
	(void)rf;
}
static inline struct rfleet_ticket *
rfleet_lookup(struct rfleet *rf, const char *domain, int want_sts,
    int want_dane, enum rfleet_why why, rfleet_cb *cb, void *arg)
{
	(void)rf;
	(void)domain;
	(void)want_sts;
	(void)want_dane;
	(void)why;
	(void)cb;
	(void)arg;
	return (NULL);
}
static inline int
rfleet_want(struct rfleet_ticket *t, int want_sts, int want_dane)
{
	(void)t;
	(void)want_sts;
	(void)want_dane;
	return (-1);
}
static inline void
rfleet_push(struct rfleet *rf, struct rfleet_ticket *t, const char *key,
    const struct cache_record *rec)
{
	(void)rf;
	(void)t;
	(void)key;
	(void)rec;
}
static inline void
rfleet_done(struct rfleet_ticket *t)
{
	(void)t;
}
#endif

#endif
