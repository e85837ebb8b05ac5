/*
 * facts.c - cache records from discoveries, and answers from cache records
 *
 * The merge rules (trust on first use, RFC 8461 §5.1 and §10.2) are in
 * facts.h.  Everything here is pure: time comes in as an argument, so the
 * unit tests drive expiry and refresh without sleeping.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "policy/decide.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "lib/hash.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"
#include "policy/tlsattr.h"

/* facts_spread - a stable per-domain offset in [0, range] */
static int64_t
facts_spread(const char *domain, int64_t range)
{
	if (range <= 0)
		return (0);
	return ((int64_t)(hash_fnv1a(domain, strlen(domain)) %
	    ((uint64_t)range + 1)));
}

int64_t
facts_next_refresh(const char *domain, int64_t fetched_at, uint32_t max_age,
    int refresh_before)
{
	int64_t		 interval;

	if (refresh_before > 0 && (int64_t)max_age > refresh_before)
		interval = (int64_t)max_age - refresh_before;
	else
		interval = max_age / 2;
	if (interval > FACTS_MAX_REFRESH)
		interval = FACTS_MAX_REFRESH;
	if (interval < 1)
		interval = 1;
	return (fetched_at + interval - facts_spread(domain, interval / 10));
}

uint32_t
facts_txt_ttl(int ttl)
{
	if (ttl < FACTS_TXT_TTL_MIN)
		return (FACTS_TXT_TTL_MIN);
	if (ttl > FACTS_TXT_TTL_MAX)
		return (FACTS_TXT_TTL_MAX);
	return ((uint32_t)ttl);
}

int64_t
facts_txt_next(const struct cache_record *rec)
{
	int64_t		 next;

	next = rec->txt_checked_at + facts_txt_ttl((int)(rec->txt_ttl >
	    FACTS_TXT_TTL_MAX ? FACTS_TXT_TTL_MAX : rec->txt_ttl));
	/* a failed refresh backs off: its retry is the next check */
	if (rec->last_error_at != 0 && next < rec->next_refresh)
		next = rec->next_refresh;
	return (next);
}

int
facts_txt_due(const struct cache_record *rec, int64_t now)
{
	return (rec->kind == CACHE_KIND_STS && now < rec->expires_at &&
	    (now >= facts_txt_next(rec) ||
	    rec->txt_checked_at > now + CACHE_CLOCK_SLACK));
}

int
facts_refresh_due(const struct cache_record *rec, int64_t now)
{
	return (now < rec->expires_at && (now >= rec->next_refresh ||
	    rec->next_refresh > now + FACTS_MAX_REFRESH + CACHE_CLOCK_SLACK));
}

/* facts_negative - a short-lived "no usable policy" entry */
static void
facts_negative(const struct discover_result *res,
    const struct config_cache *cc, int64_t now, struct cache_record *out)
{
	cache_record_reset(out);
	out->kind = CACHE_KIND_NONE;
	out->dnssec = res->txt_security == DNS_SECURE ? CACHE_DNSSEC_SECURE :
	    res->txt_security == DNS_BOGUS ? CACHE_DNSSEC_BOGUS :
	    CACHE_DNSSEC_INSECURE;
	out->fetched_at = now;
	out->expires_at = now + cc->negative_ttl;
	out->next_refresh = out->expires_at;
	if (res->outcome == DISCOVER_FAILURE) {
		out->last_error = (uint8_t)res->failure;
		out->last_error_at = now;
	}
}

/* facts_mode_rank - a policy mode as an enum cache_sts_mode (ordered) */
static int
facts_mode_rank(enum sts_mode mode)
{
	return (mode == STS_MODE_ENFORCE ? CACHE_STS_ENFORCE :
	    mode == STS_MODE_TESTING ? CACHE_STS_TESTING : CACHE_STS_NONE);
}

int
facts_downgrade_refused(const struct cache_record *old,
    const struct discover_result *res, int64_t now)
{
	return (res->outcome == DISCOVER_POLICY && old != NULL &&
	    old->kind == CACHE_KIND_STS && now < old->expires_at &&
	    res->id != NULL && strcmp(res->id, old->id) == 0 &&
	    facts_mode_rank(res->policy->mode) < old->sts_mode);
}

int
facts_merge(const char *domain, const struct cache_record *old,
    const struct discover_result *res, const struct config_cache *cc,
    int64_t now, struct cache_record *out)
{
	const struct sts_policy *pol;
	int		 have_old;
	const char	*mx;
	size_t		 pos, mxl;

	have_old = old != NULL && old->kind == CACHE_KIND_STS &&
	    now < old->expires_at;

	switch (res->outcome) {
	case DISCOVER_POLICY:
		pol = res->policy;
		if (facts_downgrade_refused(old, res, now))
			break;	/* weaker policy under the same id: refused */
		cache_record_reset(out);
		out->kind = CACHE_KIND_STS;
		out->sts_mode = pol->mode == STS_MODE_ENFORCE ?
		    CACHE_STS_ENFORCE : pol->mode == STS_MODE_TESTING ?
		    CACHE_STS_TESTING : CACHE_STS_NONE;
		out->dnssec = res->txt_security == DNS_SECURE ?
		    CACHE_DNSSEC_SECURE : CACHE_DNSSEC_INSECURE;
		out->max_age = pol->max_age;
		out->txt_ttl = facts_txt_ttl(res->txt_ttl);
		out->txt_checked_at = now;
		out->fetched_at = now;
		out->expires_at = now + pol->max_age;
		out->next_refresh = facts_next_refresh(domain, now,
		    pol->max_age, cc->refresh_before);
		snprintf(out->id, sizeof(out->id), "%s",
		    res->id != NULL ? res->id : "");
		/* Every pattern fits: CACHE_MX_BYTES_MAX is the policy's own
		 * bound (STS_POLICY_MX_BYTES); so never a truncated list. */
		for (pos = 0; (mx = sts_policy_mx_next(pol, &pos, &mxl)) !=
		    NULL; )
			if (cache_record_mx_add(out, mx, mxl) == -1)
				break;
		if (mx == NULL)
			return (1);
		break;	/* cannot happen; as a failed discovery if it did */

	case DISCOVER_UNCHANGED:
		if (!have_old)
			break;		/* nothing to keep: treat as failure */
		cache_record_copy(out, old);
		out->last_error = 0;
		out->last_error_at = 0;
		out->txt_ttl = facts_txt_ttl(res->txt_ttl);
		out->txt_checked_at = now;
		/* fetched "in the future": the clock stepped back since,
		 * and a schedule from then would wait for the step */
		out->next_refresh = facts_next_refresh(domain,
		    old->fetched_at > now ? now : old->fetched_at,
		    old->max_age, cc->refresh_before);
		if (out->next_refresh <= now)
			out->next_refresh = now + FACTS_MIN_RETRY;
		return (1);

	case DISCOVER_NO_POLICY:
	case DISCOVER_FAILURE:
		break;
	}
	if (have_old) {
		/* §10.2: no downgrade before max_age runs out. */
		cache_record_copy(out, old);
		out->last_error = res->outcome == DISCOVER_FAILURE ?
		    (uint8_t)res->failure : 0;
		out->last_error_at = now;
		out->txt_checked_at = now;	/* next check: the retry */
		out->next_refresh = now + FACTS_MIN_RETRY +
		    facts_spread(domain, FACTS_MIN_RETRY / 5);
		if (out->next_refresh > out->expires_at)
			out->next_refresh = out->expires_at;
		return (1);
	}
	facts_negative(res, cc, now, out);
	return (1);
}

int
facts_dane_merge(const struct cache_record *old, const struct dane_result *res,
    int64_t now, struct cache_record *out)
{
	int	 ttl = res->ttl;

	/*
	 * A failure, or an MX lookup that failed without a DNSSEC verdict
	 * (SERVFAIL, timeout: dane.c calls that "no DANE" so that MTA-STS
	 * decides a domain it never saw), is no new fact about an unexpired
	 * record: taken as one, DNS blocked at the refresh would turn
	 * dane-only into Postfix's default until the failure TTL ran out.
	 * Keep what DNSSEC told us last, retry soon.
	 */
	if ((res->state == DANE_FAILURE || res->mx_fail != DANE_FAIL_NONE) &&
	    old != NULL && old->kind == CACHE_KIND_DANE &&
	    old->dane != DANE_FAILURE && now < old->expires_at) {
		cache_record_copy(out, old);
		out->last_error = 1;
		out->last_error_at = now;
		out->next_refresh = now + FACTS_DANE_RETRY;
		if (out->next_refresh > old->expires_at)
			out->next_refresh = old->expires_at;
		return (1);
	}
	cache_record_reset(out);
	out->kind = CACHE_KIND_DANE;
	out->dane = (uint8_t)res->state;
	out->dnssec = res->mx_security == DNS_SECURE ? CACHE_DNSSEC_SECURE :
	    res->mx_security == DNS_BOGUS ? CACHE_DNSSEC_BOGUS :
	    CACHE_DNSSEC_INSECURE;
	out->fetched_at = now;
	out->expires_at = now + ttl;
	if (res->state == DANE_ALL || res->state == DANE_SOME ||
	    res->state == DANE_TLS || res->state == DANE_TLS_SOME)
		out->next_refresh = now + (int64_t)ttl * 3 / 4;
	else
		out->next_refresh = out->expires_at;
	if (res->state == DANE_FAILURE) {
		out->last_error = 1;
		out->last_error_at = now;
	}
	return (1);
}

void
facts_decide_options(const struct config_map *map, struct decide_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->testing_answer = map->testing_answer == CONFIG_ANSWER_MAY ?
	    DECIDE_TESTING_MAY : DECIDE_TESTING_NOTFOUND;
	opt->tlsrpt = map->tlsrpt;
	opt->dane_some = map->dane_some == CONFIG_DANE_SOME_DANE_ONLY ?
	    DECIDE_DANE_SOME_DANE_ONLY : map->dane_some ==
	    CONFIG_DANE_SOME_IGNORE ? DECIDE_DANE_SOME_IGNORE :
	    DECIDE_DANE_SOME_DANE;
	opt->dane_lookup_failure = map->dane_lookup_failure ==
	    CONFIG_DANE_FAILURE_IGNORE ? DECIDE_DANE_FAILURE_IGNORE :
	    DECIDE_DANE_FAILURE_TEMP;
	opt->floor[TLSATTR_PROTOCOLS] = map->tls_protocols;
	opt->floor[TLSATTR_CIPHERS] = map->tls_ciphers;
	opt->floor[TLSATTR_EXCLUDE] = map->tls_exclude;
}

enum decide_dane
facts_decide_dane(int state)
{
	switch (state) {
	case DANE_ALL:
		return (DECIDE_DANE_ALL);
	case DANE_SOME:
		return (DECIDE_DANE_SOME);
	case DANE_FAILURE:
		return (DECIDE_DANE_FAILURE);
	case DANE_TLS:
		return (DECIDE_DANE_TLS);
	case DANE_TLS_SOME:
		return (DECIDE_DANE_TLS_SOME);
	default:
		/* DANE_NONE, and a value a newer daemon wrote (the record
		 * is shared through the cache and the fleet): the answer
		 * this daemon gave before that value existed */
		return (DECIDE_DANE_NONE);
	}
}

int
facts_answer(const char *domain, const struct cache_record *rec,
    const struct cache_record *dane, const struct decide_preload *pre,
    const struct config_map *map, struct sts_policy *pol, struct buf *out,
    int *tlsrpt_dropped)
{
	struct decide_result res;
	int		 st;

	st = facts_decide(domain, rec, dane, pre, map, map->tlsrpt, pol, out,
	    &res);
	if (tlsrpt_dropped != NULL)
		*tlsrpt_dropped = res.tlsrpt_dropped;
	return (st);
}

int
facts_decide(const char *domain, const struct cache_record *rec,
    const struct cache_record *dane, const struct decide_preload *pre,
    const struct config_map *map, int lines, struct sts_policy *pol,
    struct buf *out, struct decide_result *res)
{
	struct decide_input in;
	struct decide_options opt;
	struct buf	 text;
	const char	*mx;
	size_t		 pos;

	memset(&in, 0, sizeof(in));
	memset(res, 0, sizeof(*res));
	in.domain = domain;
	facts_decide_options(map, &opt);
	if (map->dane && dane != NULL && dane->kind == CACHE_KIND_DANE)
		in.dane = facts_decide_dane(dane->dane);

	if (rec != NULL && rec->kind == CACHE_KIND_STS) {
		pol->mode = rec->sts_mode == CACHE_STS_ENFORCE ?
		    STS_MODE_ENFORCE : rec->sts_mode == CACHE_STS_TESTING ?
		    STS_MODE_TESTING : STS_MODE_NONE;
		pol->max_age = rec->max_age;
		/* Same layout (NUL after each pattern), same bound: one copy
		 * of the bytes in use, no allocation on the hot path. */
		if (rec->mxlen > sizeof(pol->mx))
			return (SOCKMAP_TEMP);	/* not a decoded record */
		pol->nmx = rec->nmx;
		pol->mxlen = rec->mxlen;
		if (rec->mxlen > 0)
			memcpy(pol->mx, rec->mx, rec->mxlen);
		pol->textlen = 0;
		pol->nlines = 0;
		pol->text[0] = '\0';
		/* Canonical policy lines, only for TLSRPT policy_string: the
		 * hot path without tlsrpt formats nothing. */
		if (lines) {
			buf_init_fixed(&text, pol->text, sizeof(pol->text) - 1);
			buf_appendf(&text, "version: STSv1\nmode: %s\n",
			    sts_policy_mode_name(pol->mode));
			pos = 0;
			while ((mx = cache_record_mx_next(rec, &pos, NULL)) !=
			    NULL)
				buf_appendf(&text, "mx: %s\n", mx);
			buf_appendf(&text, "max_age: %u\n",
			    (unsigned)rec->max_age);
			/*
			 * These lines can pass 64 KiB ("mx: " where the
			 * policy wrote "mx:"): then they would not fit the
			 * reply either; decide() gets no lines and leaves
			 * the TLSRPT attributes out, never the policy.
			 */
			if (!text.error) {
				pol->textlen = text.len;
				pol->nlines = (size_t)rec->nmx + 3;
				pol->text[text.len] = '\0';
			}
		}
		in.sts = DECIDE_STS_POLICY;
		in.policy = pol;
	} else
		in.preload = pre;	/* no policy discovered: the list's */
	if (decide(&in, &opt, out, res) == -1) {
		buf_reset(out);
		buf_append_str(out, "policy answer could not be formed");
		res->status = SOCKMAP_TEMP;
		res->answer = "temp";
		return (SOCKMAP_TEMP);
	}
	return (res->status);
}
