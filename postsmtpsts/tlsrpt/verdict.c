/*
 * verdict.c - which policy a session was held to, and how it fared
 *
 * Interface and the rules: verdict.h.  Pure.
 */
#include "autoconf.h"

#include <string.h>

#include "lib/cache_record.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/result.h"
#include "tlsrpt/verdict.h"

/* verdict_discovery - the result type of a failed discovery (the one
 * mapping, discover.c's) as a number */
static enum tlsrpt_result
verdict_discovery(int failure)
{
	const char	*name;
	int		 r;

	name = discover_tlsrpt_result_type((enum discover_failure)failure);
	if (name == NULL || (r = tlsrpt_result_from_name(name)) < 0)
		return (TLSRPT_RESULT_STS_FETCH);
	return ((enum tlsrpt_result)r);
}

void
verdict_policy(const struct cache_record *rec, const struct cache_record *dane,
    const struct decide_result *res, struct verdict_policy *vp)
{
	const char	*a = res->answer != NULL ? res->answer : "";

	(void)dane;
	memset(vp, 0, sizeof(*vp));
	switch (res->source) {
	case DECIDE_SOURCE_PIN:
		return;			/* the operator's, not published */
	case DECIDE_SOURCE_PRELOAD:
		return;			/* a list's, not the domain's */
	case DECIDE_SOURCE_DANE:
		vp->type = TLSRPT_POLICY_TLSA;
		if (strcmp(a, "dane-only") == 0)
			vp->level = VERDICT_LEVEL_DANE_ONLY;
		else if (strcmp(a, "dane") == 0)
			vp->level = VERDICT_LEVEL_DANE;
		else if (strcmp(a, "encrypt") == 0)
			vp->level = VERDICT_LEVEL_ENCRYPT;
		else
			return;		/* temp: Postfix made no session */
		vp->report = 1;
		return;
	case DECIDE_SOURCE_STS:
		if (rec == NULL || rec->kind != CACHE_KIND_STS)
			return;
		vp->type = TLSRPT_POLICY_STS;
		if (strcmp(a, "secure") == 0)
			vp->level = VERDICT_LEVEL_STS_ENFORCE;
		else if (rec->sts_mode == CACHE_STS_TESTING)
			vp->level = VERDICT_LEVEL_STS_TESTING;
		else {
			/* mode none: the domain retired its policy */
			vp->type = TLSRPT_POLICY_NONE;
			vp->level = VERDICT_LEVEL_NONE;
		}
		vp->report = 1;
		return;
	case DECIDE_SOURCE_NONE:
		if (res->status == SOCKMAP_TEMP)
			return;
		if (rec == NULL && dane == NULL)
			return;		/* nothing known: cannot say */
		vp->report = 1;
		vp->level = VERDICT_LEVEL_NONE;
		if (rec != NULL && rec->kind == CACHE_KIND_NONE &&
		    rec->last_error != 0) {
			/* the domain's MTA-STS policy could not be had */
			vp->type = TLSRPT_POLICY_STS;
			vp->failure = verdict_discovery(rec->last_error);
		} else
			vp->type = TLSRPT_POLICY_NONE;
		return;
	}
}

enum tlsrpt_result
verdict_session(const struct verdict_policy *vp, enum maillog_trust trust,
    enum tlsrpt_result logged)
{
	if (logged != TLSRPT_RESULT_NONE)
		return (logged);
	if (vp->failure != TLSRPT_RESULT_NONE)
		return (vp->failure);
	if (trust == MAILLOG_TRUST_NONE)
		return (TLSRPT_RESULT_VALIDATION);	/* no handshake */
	switch (vp->level) {
	case VERDICT_LEVEL_STS_ENFORCE:
		/* Postfix logs why before the Untrusted line; if it did
		 * not, the trust says what is missing */
		if (trust == MAILLOG_TRUST_VERIFIED)
			return (TLSRPT_RESULT_NONE);
		return (trust == MAILLOG_TRUST_TRUSTED ?
		    TLSRPT_RESULT_HOST_MISMATCH : TLSRPT_RESULT_NOT_TRUSTED);
	case VERDICT_LEVEL_DANE_ONLY:
		/* no TLSA record matched the chain: Postfix's own TLSRPT
		 * event says certificate-not-trusted */
		return (trust == MAILLOG_TRUST_VERIFIED ? TLSRPT_RESULT_NONE :
		    TLSRPT_RESULT_NOT_TRUSTED);
	case VERDICT_LEVEL_ENCRYPT:
		/* RFC 8460 §4.3.2.1: none of the TLSA records was usable */
		return (TLSRPT_RESULT_TLSA_INVALID);
	case VERDICT_LEVEL_STS_TESTING:
		return (trust == MAILLOG_TRUST_VERIFIED ||
		    trust == MAILLOG_TRUST_TRUSTED ? TLSRPT_RESULT_NONE :
		    TLSRPT_RESULT_NOT_TRUSTED);
	case VERDICT_LEVEL_DANE:
	case VERDICT_LEVEL_NONE:
		return (TLSRPT_RESULT_NONE);
	}
	return (TLSRPT_RESULT_VALIDATION);
}

const char *
verdict_level_name(enum verdict_level l)
{
	switch (l) {
	case VERDICT_LEVEL_NONE:
		return ("none");
	case VERDICT_LEVEL_STS_ENFORCE:
		return ("sts-enforce");
	case VERDICT_LEVEL_STS_TESTING:
		return ("sts-testing");
	case VERDICT_LEVEL_DANE_ONLY:
		return ("dane-only");
	case VERDICT_LEVEL_DANE:
		return ("dane");
	case VERDICT_LEVEL_ENCRYPT:
		return ("encrypt");
	}
	return ("?");
}
