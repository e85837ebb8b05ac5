/*
 * import_row.h - one policy another policy server learned, as our record
 *
 * NAME
 *	import_row_record - the cache record an imported policy stands for
 * SYNOPSIS
 *	st = import_row_record(&row, cc, now, pol, key, &rec, why, whysz);
 * DESCRIPTION
 *	postsmtpsts-cache import (cache_import.h) reads the caches of
 *	Debian's postfix-mta-sts-resolver (import_sts_resolver.h) and of
 *	postfix-tlspol (import_tlspol.h).  Each reader turns an entry into a
 *	struct import_row: the domain as the peer keyed it, when the policy
 *	was fetched, its TXT id (empty when the peer keeps none) and the
 *	policy as RFC 8461 §3.2 text.  This module makes of it exactly the
 *	record a fetch at that time would have written:
 *
 *	  the domain      domain_normalize() (the socketmap key's rule)
 *	  the id          sts_record_parse() of "v=STSv1; id=ID" (§3.1)
 *	  the policy      sts_policy_parse() (§3.2), the fetch's own parser
 *	  the record      facts_merge() of that policy with now = fetched_at
 *	                  and nothing cached: fetched_at, expires_at =
 *	                  fetched_at + max_age (trust on first use, §5.1),
 *	                  next_refresh, the TXT check time
 *
 *	so an imported policy protects until its peer's fetch time plus
 *	max_age and no longer, and the daemon's refresh takes over from
 *	there (a next_refresh already past is due at once).  What differs
 *	from a fetch: the DNSSEC status of the TXT record is unknown, and
 *	the TXT TTL too (0: the id is re-checked at the first lookup, RFC
 *	8461 §3.3, which for a peer that kept no id means a fetch).
 *
 *	A row fetched more than IMPORT_ROW_SKEW seconds after now is
 *	malformed (a clock or a file from the future would stretch trust on
 *	first use); one whose fetch time plus max_age is not after now is
 *	expired.  Pure: no I/O, no clock.
 */
#ifndef IMPORT_ROW_H
#define IMPORT_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"

struct config_cache;
struct sts_policy;

#define IMPORT_ROW_SKEW		300	/* seconds a fetch time may lie
					   ahead of our clock */
#define IMPORT_ROW_WHY_LEN	160	/* room for a reason */

/* An entry of another server's cache, as its reader hands it over. */
struct import_row {
	const char	*domain;	/* as the peer keyed it, not normalized */
	size_t		 domainlen;
	int64_t		 fetched_at;	/* Unix time of the policy fetch */
	const char	*id;		/* TXT id; may be empty (idlen 0) */
	size_t		 idlen;
	const char	*policy;	/* RFC 8461 §3.2 policy text */
	size_t		 policylen;
};

enum import_row_status {
	IMPORT_ROW_OK = 0,	/* *out and key hold the record to offer */
	IMPORT_ROW_EXPIRED,	/* fetched_at + max_age <= now */
	IMPORT_ROW_MALFORMED,	/* why says what */
};

/*
 * import_row_record - the record for row at now
 *
 * cc gives refresh_before (facts_next_refresh); pol is caller scratch
 * (large: allocate one); key (DOMAIN_BUFSZ bytes) gets the normalized
 * domain; out is an initialized record (cache_record.h).  On
 * IMPORT_ROW_MALFORMED why[0..whysz) gets a reason; on IMPORT_ROW_EXPIRED
 * key and *out are filled too (for the summary).
 */
enum import_row_status import_row_record(const struct import_row *row,
	    const struct config_cache *cc, int64_t now, struct sts_policy *pol,
	    char *key, struct cache_record *out, char *why, size_t whysz);

/* "ok", "expired", "malformed" */
const char *import_row_status_name(enum import_row_status st);

#endif
