/*
 * discover.h - RFC 8461 policy discovery for one domain, asynchronously
 *
 * discover_start() runs, on a struct dns and a struct https sharing one
 * event loop:
 *
 *	TXT _mta-sts.DOMAIN          (RFC 8461 §3.1)  \
 *	  -> one "v=STSv1" record, its id            |  in parallel with
 *	  -> id == known_id: done, "unchanged" (§3.3) |  TXT _smtp._tls.DOMAIN
 *	A + AAAA mta-sts.DOMAIN, in parallel          |  (RFC 8460 §3, only
 *	  -> GET https://mta-sts.DOMAIN/.well-known/  |  returned as text,
 *	     mta-sts.txt                (§3.3)        |  with DISCOVER_TLSRPT)
 *	  -> sts_policy_parse           (§3.2)
 *
 * and reports once, through the callback, with every step's facts so that
 * a tool can print them and the resolver can cache and decide.  Many
 * discoveries may run at once; each can be cancelled.
 *
 * Without a known id (a first discovery or a proactive refresh, which
 * fetches whenever the record is valid) A and AAAA of mta-sts.DOMAIN are
 * asked together with the TXT record, not after it: the fetch then starts
 * one DNS round trip earlier; when the TXT says there is no policy the
 * address lookups are cancelled.  (A domain without MTA-STS costs two
 * more queries, answered NXDOMAIN, mostly by the same denial records the
 * TXT answer brought, which libunbound has validated already.)
 *
 * Callback contract as in dns.h: discover_start() always returns a handle,
 * the callback runs exactly once from the event loop unless
 * discover_cancel() came first, and the handle is dead once the callback
 * has started.  The result and all it points to (the policy too: copy it)
 * live only during the callback.
 */
#ifndef DISCOVER_H
#define DISCOVER_H

#include <stddef.h>

#include "lib/dns.h"
#include "lib/https.h"
#include "policy/sts_policy.h"
#include "policy/sts_record.h"

#define DISCOVER_MAX_ADDRS	HTTPS_MAX_ADDRS	/* per A/AAAA answer set */
#define DISCOVER_MAX_NAME	(DOMAIN_MAX_LEN + 16)	/* "_smtp._tls." + D */

enum discover_outcome {
	DISCOVER_POLICY,	/* a valid policy was fetched: see policy */
	DISCOVER_NO_POLICY,	/* the domain has no STS record */
	DISCOVER_UNCHANGED,	/* the record's id equals known_id */
	DISCOVER_FAILURE,	/* see failure: keep any cached policy */
};

/* Why a discovery failed; each maps onto an RFC 8460 §4.3 result type. */
enum discover_failure {
	DISCOVER_FAIL_NONE = 0,
	DISCOVER_FAIL_DNS_SERVFAIL,	/* TXT lookup failed or timed out */
	DISCOVER_FAIL_DNS_BOGUS,	/* TXT answer is DNSSEC-bogus */
	DISCOVER_FAIL_TXT_INVALID,	/* STS record invalid or not unique */
	DISCOVER_FAIL_FETCH,		/* no address, connect, HTTP, size... */
	DISCOVER_FAIL_WEBPKI,		/* the policy host's certificate */
	DISCOVER_FAIL_POLICY_INVALID,	/* the body is not a valid policy */
};

struct discover_result {
	const char	*domain;
	enum discover_outcome outcome;
	enum discover_failure failure;	/* DISCOVER_FAILURE only */
	const char	*detail;	/* short human text, never NULL */

	/* TXT _mta-sts.DOMAIN */
	const char	*txt_name;
	enum dns_status	 txt_status;
	int		 txt_rcode;
	enum dns_security txt_security;
	int		 txt_ttl;	/* TTL of the TXT answer (0 if none) */
	const char	*txt_why_bogus;	/* or NULL */
	size_t		 ntxt;
	const char *const *txt;		/* joined records, NUL-terminated */
	int		 record_checked;	/* record_status is set */
	enum sts_record_status record_status;
	const char	*id;		/* the valid record's id, or NULL */

	/* A/AAAA mta-sts.DOMAIN */
	const char	*policy_host;
	int		 addrs_checked;	/* the addresses were looked up */
	enum dns_security a_security;
	int		 aaaa_asked;	/* AAAA was asked (A first: only when
					 * A gave no usable address or the
					 * IPv4 fetch failed; always with
					 * DISCOVER_ALL_ADDRESSES) */
	enum dns_security aaaa_security;
	size_t		 naddrs;
	const char *const *addrs;	/* address literals, v4 first */

	/* the HTTPS fetch */
	int		 fetched;	/* a fetch was made: fields below */
	enum https_error https_error;
	const char	*url;
	const char	*connect_addr;
	long		 http_status;
	const char	*content_type;	/* or NULL */
	const char	*policy_text;	/* the body, or NULL */
	size_t		 policy_len;

	/* the parse */
	const struct sts_policy *policy;	/* DISCOVER_POLICY only */
	const char	*policy_why;	/* parse error, or NULL */

	/* TXT _smtp._tls.DOMAIN (RFC 8460 §3), for logs and TLSRPT */
	int		 tlsrpt_asked;	/* 0: no DISCOVER_TLSRPT, the
					 * next five say nothing */
	enum dns_status	 tlsrpt_status;
	int		 tlsrpt_rcode;
	enum dns_security tlsrpt_security;
	const char	*tlsrpt;	/* the one v=TLSRPTv1 record, or NULL */
	const char	*tlsrpt_note;	/* why tlsrpt is NULL, or "" */
};

typedef void	discover_cb(const struct discover_result *res, void *arg);

struct discover;

/*
 * discover_start - discover the policy of domain (normalized: lower-case
 * A-labels, no trailing dot; see domain_normalize).  known_id is the id of
 * the cached policy, or NULL.  Never NULL.
 */
struct discover	*discover_start(struct dns *d, struct https *h,
		    const char *domain, const char *known_id,
		    discover_cb *cb, void *arg);

/*
 * discover_start_flags - discover_start() with flags: DISCOVER_TLSRPT asks
 * TXT _smtp._tls.DOMAIN too (discover_start() always does).  Without it
 * the result's tlsrpt is NULL and tlsrpt_note "not asked": the resolver
 * keeps nothing of the TLSRPT record (Postfix looks it up itself), and the
 * lookup, a DNSSEC-validated NXDOMAIN for most domains, cost a quarter of
 * a cold discovery's signature checks (bench/README.md).
 */
#define DISCOVER_TLSRPT	0x01
/* DISCOVER_ALL_ADDRESSES: A and AAAA mta-sts.DOMAIN at once (the tools,
 * which show both), instead of A first */
#define DISCOVER_ALL_ADDRESSES	0x02
struct discover	*discover_start_flags(struct dns *d, struct https *h,
		    const char *domain, const char *known_id,
		    unsigned int flags, discover_cb *cb, void *arg);

/* discover_cancel - stop every lookup and fetch; no callback; NULL: no-op */
void		 discover_cancel(struct discover *dv);

/* discover_outcome_name - "policy", "no-policy", "unchanged", "failure" */
const char	*discover_outcome_name(enum discover_outcome o);

/* discover_failure_name - "none", "dns-servfail", "dns-bogus",
 * "txt-invalid", "fetch-error", "webpki-invalid", "policy-invalid" */
const char	*discover_failure_name(enum discover_failure f);

/* discover_tlsrpt_result_type - the RFC 8460 §4.3 result type for f:
 * "sts-policy-fetch-error", "sts-webpki-invalid", "sts-policy-invalid",
 * "dnssec-invalid"; NULL for DISCOVER_FAIL_NONE */
const char	*discover_tlsrpt_result_type(enum discover_failure f);

#endif
