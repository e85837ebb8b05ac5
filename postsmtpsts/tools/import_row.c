/*
 * import_row.c - one policy another policy server learned, as our record
 *
 * Interface and rules: import_row.h.  Pure: every check is the one a
 * fetch goes through (domain_normalize, sts_record_parse,
 * sts_policy_parse) and the record is facts_merge()'s, so an imported
 * entry cannot mean more than a fetched one.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/sts_policy.h"
#include "policy/sts_record.h"
#include "tools/import_row.h"

/* "v=STSv1; id=" + the longest id we look at + NUL */
#define IMPORT_ROW_TXT_LEN	(12 + STS_RECORD_ID_MAX + 2)

/* import_row_id - is id[0..len) an RFC 8461 §3.1 id?  Asked of the TXT
 * record grammar itself, as the record it came from.  Empty: the peer
 * keeps none (postfix-tlspol), allowed. */
static int
import_row_id(const char *id, size_t len)
{
	struct sts_record rec;
	char	 txt[IMPORT_ROW_TXT_LEN];

	if (len == 0)
		return (1);
	if (len > STS_RECORD_ID_MAX || memchr(id, '\0', len) != NULL)
		return (0);
	snprintf(txt, sizeof(txt), "v=STSv1; id=%.*s", (int)len, id);
	return (sts_record_parse(txt, strlen(txt), &rec) == STS_RECORD_OK &&
	    rec.idlen == len && memcmp(rec.id, id, len) == 0);
}

enum import_row_status
import_row_record(const struct import_row *row, const struct config_cache *cc,
    int64_t now, struct sts_policy *pol, char *key, struct cache_record *out,
    char *why, size_t whysz)
{
	struct discover_result res;
	char		 id[STS_RECORD_ID_MAX + 1];
	const char	*pwhy = NULL;

	why[0] = '\0';
	key[0] = '\0';
	if (domain_normalize(row->domain, row->domainlen, key) != DOMAIN_OK) {
		snprintf(why, whysz, "not a domain name with a policy of its "
		    "own");
		return (IMPORT_ROW_MALFORMED);
	}
	if (row->fetched_at <= 0 || row->fetched_at > now + IMPORT_ROW_SKEW) {
		snprintf(why, whysz, "fetch time %lld is %s", (long long)
		    row->fetched_at, row->fetched_at <= 0 ? "not a time" :
		    "in the future");
		return (IMPORT_ROW_MALFORMED);
	}
	if (!import_row_id(row->id, row->idlen)) {
		snprintf(why, whysz, "policy id is not 1-32 letters and digits "
		    "(RFC 8461 section 3.1)");
		return (IMPORT_ROW_MALFORMED);
	}
	if (sts_policy_parse(row->policy, row->policylen, pol, &pwhy) == -1) {
		snprintf(why, whysz, "policy: %s", pwhy != NULL ? pwhy :
		    "invalid");
		return (IMPORT_ROW_MALFORMED);
	}
	memcpy(id, row->id, row->idlen);
	id[row->idlen] = '\0';

	/* the record a fetch at fetched_at would have written */
	memset(&res, 0, sizeof(res));
	res.domain = key;
	res.outcome = DISCOVER_POLICY;
	res.detail = "import";
	res.txt_security = DNS_INSECURE;
	res.txt_ttl = 0;
	res.id = id;
	res.policy = pol;
	if (facts_merge(key, NULL, &res, cc, row->fetched_at, out) != 1 ||
	    out->kind != CACHE_KIND_STS) {
		snprintf(why, whysz, "policy does not fit a cache record");
		return (IMPORT_ROW_MALFORMED);
	}
	out->dnssec = CACHE_DNSSEC_UNKNOWN;	/* not known: not asked by us */
	out->txt_ttl = 0;
	if (out->expires_at <= now)
		return (IMPORT_ROW_EXPIRED);
	return (IMPORT_ROW_OK);
}

const char *
import_row_status_name(enum import_row_status st)
{
	switch (st) {
	case IMPORT_ROW_OK:
		return ("ok");
	case IMPORT_ROW_EXPIRED:
		return ("expired");
	case IMPORT_ROW_MALFORMED:
		return ("malformed");
	}
	return ("?");
}
