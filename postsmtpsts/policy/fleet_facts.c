/*
 * fleet_facts.c - the trust-on-first-use gate between the local cache and
 * the fleet tier (rules in fleet_facts.h)
 *
 * No second copy of the downgrade rule lives here: the offered record is
 * turned back into the discovery result it stands for and handed to
 * facts_merge() or facts_dane_merge(); whether that kept the held record
 * is the answer.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/dns.h"
#include "lib/xmalloc.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/fleet_facts.h"
#include "policy/sts_policy.h"

/* fleet_facts_sts - offered (kind sts or none) against have */
static int
fleet_facts_sts(const char *domain, const struct cache_record *have,
    const struct cache_record *offered, const struct config_cache *cc,
    int64_t now)
{
	struct discover_result res;
	struct cache_record merged = { 0 };
	struct sts_policy *pol = NULL;
	int		 taken;

	memset(&res, 0, sizeof(res));
	res.domain = domain;
	res.detail = "fleet";
	res.txt_security = offered->dnssec == CACHE_DNSSEC_SECURE ?
	    DNS_SECURE : offered->dnssec == CACHE_DNSSEC_BOGUS ? DNS_BOGUS :
	    DNS_INSECURE;
	if (offered->kind == CACHE_KIND_STS) {
		pol = xcalloc(1, sizeof(*pol));
		pol->mode = offered->sts_mode == CACHE_STS_ENFORCE ?
		    STS_MODE_ENFORCE : offered->sts_mode == CACHE_STS_TESTING ?
		    STS_MODE_TESTING : STS_MODE_NONE;
		pol->max_age = offered->max_age;
		/* the same layout and bound (cache_record.h, sts_policy.h) */
		if (offered->mxlen > sizeof(pol->mx)) {
			free(pol);
			return (0);
		}
		pol->nmx = offered->nmx;
		pol->mxlen = offered->mxlen;
		if (offered->mxlen > 0)
			memcpy(pol->mx, offered->mx, offered->mxlen);
		res.outcome = DISCOVER_POLICY;
		res.policy = pol;
		res.id = offered->id;
	} else if (offered->last_error != 0) {
		res.outcome = DISCOVER_FAILURE;
		res.failure = (enum discover_failure)offered->last_error;
	} else
		res.outcome = DISCOVER_NO_POLICY;
	if (facts_merge(domain, have, &res, cc, now, &merged) == 0)
		taken = 0;
	else
		/* taken when the merge produced the offered facts, not have's */
		taken = merged.kind == offered->kind &&
		    (offered->kind != CACHE_KIND_STS ||
		    (merged.sts_mode == offered->sts_mode &&
		    strcmp(merged.id, offered->id) == 0));
	free(pol);
	cache_record_release(&merged);
	return (taken);
}

/* fleet_facts_dane - offered (kind dane) against have */
static int
fleet_facts_dane(const struct cache_record *have,
    const struct cache_record *offered, int64_t now)
{
	struct dane_result res;
	struct cache_record merged = { 0 };
	int		 taken;

	memset(&res, 0, sizeof(res));
	res.detail = "fleet";
	res.state = (enum dane_state)offered->dane;
	res.mx_security = offered->dnssec == CACHE_DNSSEC_SECURE ?
	    DNS_SECURE : offered->dnssec == CACHE_DNSSEC_BOGUS ? DNS_BOGUS :
	    DNS_INSECURE;
	res.ttl = (int)(offered->expires_at - now);
	taken = facts_dane_merge(have, &res, now, &merged) != 0 &&
	    merged.dane == offered->dane;
	cache_record_release(&merged);
	return (taken);
}

/*
 * fleet_facts_rechecked - offered is have's policy (same fetch, same id)
 * whose TXT id was checked later, not too far in the future
 */
static int
fleet_facts_rechecked(const struct cache_record *have,
    const struct cache_record *offered, int64_t now)
{
	return (have->kind == CACHE_KIND_STS &&
	    offered->kind == CACHE_KIND_STS && now < have->expires_at &&
	    have->fetched_at == offered->fetched_at &&
	    strcmp(have->id, offered->id) == 0 &&
	    offered->txt_checked_at > have->txt_checked_at &&
	    offered->txt_checked_at <= now + FLEET_FACTS_SKEW);
}

int
fleet_facts_take(const char *key, size_t klen,
    const struct cache_record *have, const struct cache_record *offered,
    const struct config_cache *cc, int64_t now, struct cache_record *out,
    enum fleet_facts_why *why)
{
	enum fleet_facts_why w = FLEET_FACTS_TAKEN;
	char		 domain[DOMAIN_BUFSZ];
	const char	*d;
	size_t		 dlen;
	int		 dane = 0;

	d = cache_key_domain(key, klen, &dlen, &dane);
	if (dlen >= sizeof(domain) || (dane ?
	    offered->kind != CACHE_KIND_DANE :
	    offered->kind != CACHE_KIND_STS && offered->kind != CACHE_KIND_NONE))
		w = FLEET_FACTS_KIND;
	else if (now >= offered->expires_at)
		w = FLEET_FACTS_EXPIRED;
	else if ((offered->kind == CACHE_KIND_NONE &&
	    offered->last_error != 0) || (offered->kind == CACHE_KIND_DANE &&
	    offered->dane == DANE_FAILURE))
		w = FLEET_FACTS_FAILURE;
	else if (have != NULL && fleet_facts_rechecked(have, offered, now))
		w = FLEET_FACTS_RECHECKED;
	else if (have != NULL && now < have->expires_at &&
	    have->kind == offered->kind &&
	    have->fetched_at >= offered->fetched_at)
		w = FLEET_FACTS_STALE;
	else {
		memcpy(domain, d, dlen);
		domain[dlen] = '\0';
		if (have != NULL && now >= have->expires_at)
			have = NULL;	/* facts_merge: expired counts as none */
		if (!(dane ? fleet_facts_dane(have, offered, now) :
		    fleet_facts_sts(domain, have, offered, cc, now)))
			w = FLEET_FACTS_DOWNGRADE;
	}
	if (why != NULL)
		*why = w;
	if (w == FLEET_FACTS_RECHECKED) {
		/* the policy stays have's: only the check time moves */
		cache_record_copy(out, have);
		out->txt_checked_at = offered->txt_checked_at;
		out->txt_ttl = offered->txt_ttl;
		return (1);
	}
	if (w != FLEET_FACTS_TAKEN)
		return (0);
	cache_record_copy(out, offered);
	return (1);
}

const char *
fleet_facts_why_name(enum fleet_facts_why why)
{
	static const char *const names[FLEET_FACTS_WHY_COUNT] = {
		"taken", "expired", "kind", "stale", "downgrade", "failure",
		"rechecked",
	};

	return ((unsigned)why < FLEET_FACTS_WHY_COUNT ? names[why] : "?");
}
