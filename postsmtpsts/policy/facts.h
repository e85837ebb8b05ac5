/*
 * facts.h - what the cache learns from one discovery (RFC 8461 §5.1, §10.2)
 *
 * Trust on first use: once a domain's enforce policy is cached, nothing an
 * attacker can do to DNS or HTTPS removes it before its max_age runs out.
 * facts_merge() is that rule, as a pure function from (cached record,
 * discovery result, now) to the record to store:
 *
 *   discovery                cached, unexpired STS     nothing usable cached
 *   ---------------------    ----------------------    ---------------------
 *   policy fetched           replaced (also mode none: the new policy
 *                            how a domain retires)     (fetched_at = now)
 *   policy fetched, same id, KEPT, retry after a      (as above)
 *   weaker mode              backoff: a domain changes
 *                            its policy by changing the
 *                            id (§3.1), so this is a
 *                            tampered HTTPS answer
 *   id unchanged             kept; refresh rescheduled  (cannot happen)
 *   no STS record            KEPT (a vanished TXT is    negative entry for
 *                            no proof: §10.2)           negative_ttl
 *   failure (DNS, HTTPS,     KEPT, error noted, retry   negative entry for
 *   PKIX, invalid policy)    after a backoff (§3.3)     negative_ttl
 *
 * max_age counts from the last successful fetch; a refresh that only finds
 * the same id does not extend it (only a fetch does), so the resolver's
 * proactive refresh fetches without a known id.
 *
 * TXT id freshness (RFC 8461 §3.1, §3.3: a new id means "fetch now"): an
 * STS record keeps the TTL of the _mta-sts TXT as DNS returned it (clamped
 * to FACTS_TXT_TTL_MIN..FACTS_TXT_TTL_MAX) and when the id was last seen.
 * Once that TTL has passed (facts_txt_due), the worker still answers from
 * the cache and asks the resolver for a re-check in the background, which
 * runs discover_start() with the cached id:
 *
 *   re-check finds           record written
 *   ---------------------    ----------------------------------------
 *   the same id              only txt_checked_at (and txt_ttl) move
 *   another id, policy ok    the new policy (any mode: also none, a
 *                            narrower or wider mx list)
 *   another id, fetch fails  KEPT, retry after the backoff above; no TXT
 *                            re-check before that retry (next_refresh)
 *   TXT gone, NXDOMAIN,      KEPT, like any failure (never a downgrade);
 *   SERVFAIL, bogus          the next re-check after the same backoff
 */
#ifndef FACTS_H
#define FACTS_H

#include <stdint.h>

#include "lib/cache.h"
#include "policy/decide.h"

struct config_cache;
struct discover_result;
struct dane_result;
struct decide_options;
struct decide_preload;
struct config_map;
struct sts_policy;
struct buf;

#define FACTS_MIN_RETRY		300	/* §3.3: 5 min between failed tries */
#define FACTS_MAX_REFRESH	86400	/* §10.2: re-check at least daily */
#define FACTS_TXT_TTL_MIN	30	/* TXT id re-check: at most this often */
#define FACTS_TXT_TTL_MAX	3600	/* ... and at least this often */

/* facts_txt_ttl - a TXT TTL from DNS clamped to the re-check bounds */
uint32_t facts_txt_ttl(int ttl);

/*
 * facts_txt_next - when the TXT id of rec is due for a re-check: the last
 * check plus its clamped TTL, but not before a failed refresh's retry
 * (next_refresh, while last_error_at is set).  Only meaningful for STS.
 */
int64_t	facts_txt_next(const struct cache_record *rec);

/*
 * facts_txt_due - 1 if a lookup answered from rec at now should ask for a
 * background TXT re-check: an unexpired STS record (any mode) whose
 * facts_txt_next() has come, or whose last check lies more than
 * CACHE_CLOCK_SLACK ahead of now (the wall clock stepped back: the check
 * is not put off for the length of the step).  Pure and cheap: the
 * worker's hot path.
 */
int	facts_txt_due(const struct cache_record *rec, int64_t now);

/*
 * facts_refresh_due - 1 if the proactive refresh walk should refresh rec
 * (STS or DANE) at now: unexpired, and next_refresh has come, or lies
 * further ahead than any schedule this file makes (FACTS_MAX_REFRESH, the
 * DANE TTL's bound, plus CACHE_CLOCK_SLACK): it was made before the wall
 * clock stepped back, and the refresh builds a schedule from now.
 */
int	facts_refresh_due(const struct cache_record *rec, int64_t now);

/*
 * facts_merge - the record to store after discovery res of domain
 *
 * old is the cached record or NULL (an expired one counts as NULL).  out
 * is an initialized record (cache_record.h); its mx block is reused.
 * Fills *out and returns 1 if it must be written, 0 if old stays as is.
 */
int	facts_merge(const char *domain, const struct cache_record *old,
	    const struct discover_result *res, const struct config_cache *cc,
	    int64_t now, struct cache_record *out);

/*
 * facts_downgrade_refused - 1 if facts_merge() refuses res's policy as a
 * downgrade: old is an unexpired STS policy and res a policy fetched
 * under the same id in a weaker mode (the table's second row).  The one
 * rule, also for the history (history.h: downgrade-refused).
 */
int	facts_downgrade_refused(const struct cache_record *old,
	    const struct discover_result *res, int64_t now);

/*
 * facts_next_refresh - when to re-check a policy fetched at fetched_at
 *
 * Before expiry: refresh_before seconds before it, or when half of max_age
 * is left (refresh_before 0), and at least every FACTS_MAX_REFRESH
 * seconds; minus a per-domain spread of up to a tenth of the interval, so
 * policies fetched together are not all refreshed together.
 */
int64_t	facts_next_refresh(const char *domain, int64_t fetched_at,
	    uint32_t max_age, int refresh_before);

/*
 * facts_dane_merge - the DANE record (kind dane, key cache_dane_key()) to
 * store after a DANE lookup (dane.h) of a domain
 *
 * DANE facts live as long as the DNS says: expires_at is now + res->ttl
 * (the smallest TTL of the RRsets used, clamped by dane.c).  A domain with
 * DANE or TLSA records (state all, some, tls-required, tls-some) is
 * refreshed proactively at three quarters of that; one without (none,
 * failure) simply expires and is looked up again
 * when next asked.  No trust on first use is needed: DNSSEC itself tells
 * an attacker's "no TLSA" (bogus) from a real one.  But a failed lookup
 * (timeout, SERVFAIL; of the MX RRset too, which dane.c reports as state
 * none with mx_fail set) does not replace an unexpired DANE record: old
 * (NULL if none or expired) is kept, and retried after FACTS_DANE_RETRY
 * seconds.
 * Fills *out and returns 1 if it must be written, 0 if old stays as is.
 */
#define FACTS_DANE_RETRY	60
int	facts_dane_merge(const struct cache_record *old,
	    const struct dane_result *res, int64_t now,
	    struct cache_record *out);

/* facts_decide_options - decide()'s options from a map's configuration */
void	facts_decide_options(const struct config_map *map,
	    struct decide_options *opt);

/* facts_decide_dane - decide()'s DANE input for a DANE state (enum
 * dane_state, as dane.c reports it and the cache keeps it); a value this
 * build does not know (a newer daemon's) is DECIDE_DANE_NONE */
enum decide_dane facts_decide_dane(int state);

/*
 * facts_answer - the Postfix reply for a domain's records, with a map's
 * options
 *
 * rec is the MTA-STS record (kind none or sts) and dane the DANE record
 * (kind dane); either may be NULL (nothing known: no policy, no DANE).
 * pre is the domain's unexpired preload entry or NULL (issue 38): it
 * counts only while rec holds no policy (decide.h step 4), so a
 * discovered policy, mode none included, always wins.
 * dane is ignored when the map has dane = no.  pol is caller scratch
 * (large: one per process, reused).  Writes the reply data into out and
 * returns the status (see decide.h).  *tlsrpt_dropped (may be NULL) is set
 * to 1 when the map wants TLSRPT attributes but they were left out because
 * the reply would pass out's limit (decide.h), else 0: the caller logs it.
 */
int	facts_answer(const char *domain, const struct cache_record *rec,
	    const struct cache_record *dane, const struct decide_preload *pre,
	    const struct config_map *map, struct sts_policy *pol,
	    struct buf *out, int *tlsrpt_dropped);

/*
 * facts_decide - facts_answer() with decide()'s whole result in *res
 * (source, answer, status; status TEMP and answer "temp" when no answer
 * could be formed), for a caller that needs to know which policy
 * answered and not only the reply: postsmtpsts-tlsrpt(8) reports on the
 * policy the worker applied, through this same function.  With lines
 * set, pol gets the canonical policy lines of an STS record ("version:
 * STSv1", "mode: ...", "mx: ..." each, "max_age: ...": RFC 8460 §4.4
 * policy-string) whether or not the map has tlsrpt; the reply carries
 * the TLSRPT attributes only if the map has tlsrpt.  Returns the status.
 */
int	facts_decide(const char *domain, const struct cache_record *rec,
	    const struct cache_record *dane, const struct decide_preload *pre,
	    const struct config_map *map, int lines, struct sts_policy *pol,
	    struct buf *out, struct decide_result *res);

#endif
