/*
 * fleet_facts.h - whether a record learned elsewhere may replace ours
 *
 * NAME
 *	fleet_facts_take - the trust-on-first-use gate between two caches
 * SYNOPSIS
 *	if (fleet_facts_take(key, klen, have, offered, cc, now, &out) == 1)
 *		store out;
 * DESCRIPTION
 *	The fleet tier (lib/fleet.h) moves records between a host's LMDB
 *	cache and Redis in both directions: a record read from Redis is
 *	offered to the local cache, and a record a host discovered is
 *	offered to Redis (inside the compare-and-set loop).  Both directions
 *	use this one gate, and the gate asks facts_merge() and
 *	facts_dane_merge() (facts.h) - the very rule a local discovery goes
 *	through - by presenting the offered record as what a discovery would
 *	have reported:
 *
 *	  offered           as a discovery result          then
 *	  ---------------   ----------------------------   ----------------
 *	  sts, unexpired    DISCOVER_POLICY (its id, mode,  refused when
 *	                    mx, max_age)                    facts_merge keeps
 *	                                                    have: a weaker mode
 *	                                                    under the same id
 *	  none, unexpired   DISCOVER_NO_POLICY or FAILURE   refused when have is
 *	                                                    an unexpired policy
 *	  dane, unexpired   a dane_result of its state      refused when
 *	                    and remaining lifetime          facts_dane_merge
 *	                                                    keeps have
 *
 *	and rules around it: an expired record is never taken, a
 *	record never replaces a fresher one (have fetched at or after
 *	offered, same kind; but see "rechecked" below), and a failure is
 *	never shared (a negative entry
 *	with last_error set, a DANE record in state failure): it says what
 *	one host could not reach, not what the domain publishes, and would
 *	otherwise stop every host from trying for its lifetime.  What is stored is the offered record
 *	with its own times (fetched_at, expires_at, next_refresh), so a
 *	policy's max_age keeps counting from its fetch on whatever host.
 *
 *	Rechecked: a TXT id re-check that found the same id (issue 13) moves
 *	only txt_checked_at; the policy's fetch is the same.  Such an offer
 *	(same kind sts, same fetched_at and id, a later txt_checked_at, not
 *	in the future beyond FLEET_FACTS_SKEW) is taken as have with the
 *	offered check time and TTL - nothing of the policy itself comes from
 *	the offer, so even an unsigned writer can at most postpone one TXT
 *	check by its TTL (at most an hour) - and every host then skips the
 *	check another host made: a TXT re-check runs once per fleet, not once
 *	per host.
 *	Pure: facts_merge's inputs only.
 */
#ifndef FLEET_FACTS_H
#define FLEET_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"

struct config_cache;

#define FLEET_FACTS_SKEW	60	/* seconds a TXT check time may lie
					   ahead of our clock */

/* Why fleet_facts_take() refused (0) or took (1) a record. */
enum fleet_facts_why {
	FLEET_FACTS_TAKEN = 0,	/* nothing usable held, or offered newer */
	FLEET_FACTS_EXPIRED,	/* offered is past its expires_at */
	FLEET_FACTS_KIND,	/* offered's kind does not fit the key */
	FLEET_FACTS_STALE,	/* have is as fresh or fresher */
	FLEET_FACTS_DOWNGRADE,	/* facts_merge/facts_dane_merge kept have */
	FLEET_FACTS_FAILURE,	/* offered records a failure: stays local */
	FLEET_FACTS_RECHECKED,	/* taken: have, with the offered (later)
				   TXT check time */
	FLEET_FACTS_WHY_COUNT,
};

/*
 * fleet_facts_take - may offered replace have (NULL: nothing held) under
 * cache key key[0..klen) at now?
 *
 * Returns 1 with *out (an initialized record, cache_record.h) set to the
 * record to store (why TAKEN or RECHECKED), or 0 (have stays); *why (may
 * be NULL) gets the reason either way.
 */
int	fleet_facts_take(const char *key, size_t klen,
	    const struct cache_record *have, const struct cache_record *offered,
	    const struct config_cache *cc, int64_t now, struct cache_record *out,
	    enum fleet_facts_why *why);

/* "taken", "expired", "kind", "stale", "downgrade", "failure",
 * "rechecked" */
const char *fleet_facts_why_name(enum fleet_facts_why why);

#endif
