/*
 * verdict.h - which policy a session was held to, and how it fared
 *
 * NAME
 *	verdict - RFC 8460 policy type and result of one TLS session
 * SYNOPSIS
 *	verdict_policy(rec, dane, &decision, &vp)
 *	verdict_session(&vp, trust, logged)
 * DESCRIPTION
 *	The policy is the one the daemon answered Postfix with: the caller
 *	reads the domain's two cache records (MTA-STS and DANE) and runs
 *	them through facts_decide() with the map's options, as the worker
 *	does (one truth: the reporter never re-derives the answer), then
 *	verdict_policy() names it for the report:
 *
 *	  answer                  policy-type      level
 *	  dane-only, dane         tlsa             DANE_ONLY, DANE
 *	  encrypt (TLSA records,  tlsa             ENCRYPT: every session
 *	   none usable)                            fails tlsa-invalid, as
 *	                                           Postfix's own TLSRPT does
 *	  secure (STS enforce)    sts              STS_ENFORCE
 *	  may / notfound for an   sts              STS_TESTING
 *	   STS testing policy
 *	  notfound, discovery     sts              NONE, failure = the
 *	   failed (negative                        discovery's result type
 *	   entry with an error)                    (discover_tlsrpt_result_
 *	                                           type): sts-policy-fetch-
 *	                                           error, -invalid, ...
 *	  notfound otherwise      no-policy-found  NONE
 *	  temp, pin               (not reported)
 *
 *	verdict_session() judges one session under it.  A failure Postfix
 *	logged (a certificate it refused, no STARTTLS, a failed handshake)
 *	is the result; else the policy's failure, if any; else the trust
 *	Postfix logged against what the level demands: enforce and
 *	dane-only want Verified; testing fails only a chain that is not
 *	trusted (Postfix at "may" checks no name); no policy and dane's
 *	hosts without TLSA take any TLS session.  Pure.
 */
#ifndef TLSRPT_VERDICT_H
#define TLSRPT_VERDICT_H

#include "lib/cache_record.h"
#include "policy/decide.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/result.h"

enum verdict_level {
	VERDICT_LEVEL_NONE = 0,		/* no certificate requirement */
	VERDICT_LEVEL_STS_ENFORCE,
	VERDICT_LEVEL_STS_TESTING,
	VERDICT_LEVEL_DANE_ONLY,
	VERDICT_LEVEL_DANE,
	VERDICT_LEVEL_ENCRYPT,
};

struct verdict_policy {
	int		 report;	/* 0: not reported (temp, pin, nothing
					   cached) */
	enum tlsrpt_policy_type type;
	enum verdict_level level;
	enum tlsrpt_result failure;	/* the policy itself failed */
};

/*
 * verdict_policy - name the policy decided from rec (the domain's MTA-STS
 * record, or NULL) and dane (its DANE record, or NULL) as res says
 * (facts_decide() of the same records)
 */
void	verdict_policy(const struct cache_record *rec,
	    const struct cache_record *dane, const struct decide_result *res,
	    struct verdict_policy *vp);

/*
 * verdict_session - the result of a session under vp: TLSRPT_RESULT_NONE
 * for a success, else the RFC 8460 result type of the failure.  trust is
 * what Postfix logged for the handshake (NONE if none completed), logged
 * the failure it logged (NONE if none).
 */
enum tlsrpt_result verdict_session(const struct verdict_policy *vp,
	    enum maillog_trust trust, enum tlsrpt_result logged);

/* verdict_level_name - "none", "sts-enforce", ... for logs */
const char	*verdict_level_name(enum verdict_level l);

#endif
