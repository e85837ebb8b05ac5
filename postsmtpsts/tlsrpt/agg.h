/*
 * agg.h - one policy domain's sessions of one UTC day
 *
 * NAME
 *	agg - the counts a report is made of (RFC 8460 §4)
 * SYNOPSIS
 *	agg_init(&a), agg_free(&a)
 *	agg_add(&a, &desc, host, addr, result, reason)
 *	agg_encode(&a, &buf), agg_decode(p, len, &a)
 * DESCRIPTION
 *	A report's "policies" (§4.1): for each policy the domain was held
 *	to that day - its type, policy strings and mx-host patterns, the
 *	identity of a policy - the successful and failed session counts
 *	(§4.2) and the failure-details rows (§4.3), one row per result
 *	type, receiving MX host, receiving address and reason, with its
 *	failed-session-count.  The receiving MX hosts of every session are
 *	kept too (a DANE policy's report names them, and its TLSA records
 *	are looked up at report time).
 * LIMITS
 *	AGG_MAX_POLICIES policies (a new one is made when the policy
 *	changes during the day), AGG_MAX_DETAILS rows and AGG_MAX_HOSTS
 *	hosts per policy: sessions beyond them are still counted, in the
 *	summary (and in "dropped" counters), never lost.  Policy strings
 *	and patterns at most AGG_MAX_TEXT bytes each (an RFC 8461 policy
 *	is at most 64 KiB).  The codec checks every length: a value that
 *	does not decode is refused whole.
 */
#ifndef TLSRPT_AGG_H
#define TLSRPT_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/result.h"

#define AGG_MAX_POLICIES	4
#define AGG_MAX_DETAILS		32
#define AGG_MAX_HOSTS		16
#define AGG_MAX_TEXT		(65536 + 4096)	/* policy lines, patterns */

struct agg_detail {
	enum tlsrpt_result result;
	char		 host[DOMAIN_BUFSZ];
	char		 addr[MAILLOG_ADDR_LEN];
	char		 reason[MAILLOG_REASON_LEN];
	char		 sip[MAILLOG_ADDR_LEN];	/* sending-mta-ip of a fleet
					   part's row (agg_merge), "" for
					   one host's: not encoded */
	uint64_t	 count;
};

struct agg_policy {
	enum tlsrpt_policy_type type;
	struct buf	 strings;	/* policy-string: lines, '\n' after
					   each */
	struct buf	 mx;		/* mx-host: patterns, '\n' after each */
	uint64_t	 success;
	uint64_t	 failure;
	size_t		 ndetails;
	struct agg_detail *details;	/* AGG_MAX_DETAILS, made on need */
	uint64_t	 details_dropped; /* failures without a row */
	size_t		 nhosts;
	char		 hosts[AGG_MAX_HOSTS][DOMAIN_BUFSZ];
};

struct agg {
	size_t		 npolicies;
	struct agg_policy policies[AGG_MAX_POLICIES];
	uint64_t	 dropped;	/* sessions of a policy beyond
					   AGG_MAX_POLICIES: counted in the
					   last policy instead */
};

/* What identifies a policy: strings and mx hold '\n'-ended lines. */
struct agg_desc {
	enum tlsrpt_policy_type type;
	const char	*strings;
	size_t		 slen;
	const char	*mx;
	size_t		 mlen;
};

/* agg_init - empty; agg_free - release, leaving it empty */
void	agg_init(struct agg *a);
void	agg_free(struct agg *a);

/*
 * agg_add - count one session held to the policy desc, with the peer
 * host and addr (either may be ""), as result (TLSRPT_RESULT_NONE: a
 * success) with reason (failure-reason-code, may be "")
 */
void	agg_add(struct agg *a, const struct agg_desc *desc, const char *host,
	    const char *addr, enum tlsrpt_result result, const char *reason);

/*
 * agg_merge - add another host's counts src to a (a fleet report,
 * fleetagg.h): each policy's counts into the same policy of a (made if
 * new), its hosts, and each failure-details row into the row of the same
 * result, receiving host, address, reason and sending address sip (the
 * part's sending-mta-ip, "" when none: rows of hosts without one merge
 * into one row), summed.  Limits as agg_add's: what does not fit is
 * counted in the summary and the dropped counters.
 */
void	agg_merge(struct agg *a, const struct agg *src, const char *sip);

/* agg_sessions - every session counted (successes and failures) */
uint64_t agg_sessions(const struct agg *a);

/* agg_encode - append a to b; agg_decode - a (initialized; its contents
 * are replaced) from p[0..len): 0, or -1 (a is then empty) */
void	agg_encode(const struct agg *a, struct buf *b);
int	agg_decode(const void *p, size_t len, struct agg *a);

#endif
