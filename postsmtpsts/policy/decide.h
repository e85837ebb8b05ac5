/*
 * decide.h - from the facts about a domain to one socketmap reply
 *
 * decide() is the whole policy of postsmtpsts in one pure function: it
 * takes what discovery found (static pin, DANE state, MTA-STS state) and
 * the map's options, and writes the reply Postfix gets from
 * smtp_tls_policy_maps.  Precedence, first match wins:
 *
 *  1. a static pin from the configuration: its status and data, verbatim;
 *  2. DANE (RFC 7672), which RFC 8461 §2 prefers to MTA-STS:
 *	all MX hosts DNSSEC-secure with usable TLSA	OK "dane-only"
 *	only some of them, dane_some = dane		OK "dane"
 *	only some of them, dane_some = dane-only	OK "dane-only"
 *	only some of them, dane_some = ignore		go on to 3.
 *	DNSSEC lookup bogus or failed, temp		TEMP "<reason>"
 *	DNSSEC lookup bogus or failed, ignore		go on to 3.
 *     (RFC 7672 §2.1.1: a failed or bogus lookup must not be taken for
 *     "no TLSA records"; deferring is the safe default.)
 *	TLSA on every MX, none usable, STS enforce	go on to 3.
 *	TLSA on every MX, none usable, otherwise	OK "encrypt"
 *	none usable, TLSA on some MX, STS enforce	go on to 3.
 *	none usable, TLSA on some MX, dane_some=ignore	go on to 3.
 *	none usable, TLSA on some MX, otherwise		OK "dane"
 *     (RFC 7672 §2.2: a secure TLSA RRset without a usable record means
 *     TLS, unauthenticated.  Postfix's "dane" level turns such a host into
 *     "encrypt", but only where Postfix itself validates DNSSEC: without
 *     smtp_dns_support_level = dnssec it drops "dane" to "may" with a
 *     warning (smtp_tls_policy.c, dane_init).  "encrypt" needs nothing of
 *     Postfix's resolver, so it is the answer when every host wants TLS.
 *     When only some do, one level cannot be right for all hosts, so
 *     Postfix's own per-host walk decides ("dane"; never "dane-only",
 *     which would refuse every host: none has a usable record).  An
 *     enforce policy's "secure" asks more than either (authenticated TLS
 *     on every host) and no DANE validation can fail where no record is
 *     usable, so RFC 8461 §2's preference for DANE does not apply.)
 *  3. MTA-STS (RFC 8461 §5):
 *	mode enforce	OK "secure match=P1:P2... servername=hostname"
 *			with each "*.name" pattern written ".name"
 *			(mxmatch_postfix_pattern), in policy order
 *	mode testing	NOTFOUND, or OK "may" if testing_answer = may
 *	mode none, no policy, discovery failed		NOTFOUND, or 4.
 *  4. a preload list's entry (issue 38), only where step 3 found no policy
 *     (no record, or its discovery failed: never over a discovered one,
 *     mode none included, which is how a domain retires its policy):
 *	mode enforce	OK "secure match=P1:P2... servername=hostname",
 *			never TLSRPT attributes (it is not an STS policy:
 *			Postfix would report it as one)
 *	mode testing	nothing changes (NOTFOUND)
 *     A failed discovery falls back to "no policy": with no cached policy,
 *     RFC 8461 §3.3 says senders MUST continue with delivery as though the
 *     domain had not implemented MTA-STS.  With a cached, unexpired policy
 *     the caller passes that policy instead (§3.3: apply the cached one).
 *
 * TLSRPT attributes (Postfix >= 3.10, option tlsrpt).  What Postfix
 * accepts, from smtp_tls_policy.c, smtp_tlsrpt.c and TLSRPT_README:
 *  - name=value attributes separated by spaces (commas also work);
 *    "{ policy_string = <text> }" keeps the whitespace of a policy line;
 *    Postfix strips whitespace inside the braces and normalizes runs of it;
 *  - policy_type is "sts" or "no-policy-found"; policy_domain must be a
 *    valid host name; mx_host_pattern and
 *    policy_string may repeat; policy_failure is one of
 *    sts-policy-fetch-error, sts-policy-invalid, sts-webpki-invalid,
 *    validation-failure;
 *  - any of these without policy_type makes the whole policy invalid
 *    ("built-in policy has unexpected attribute"), and TLSRPT_README says
 *    they are an error for a non-STS policy;
 *  - attributes after a level below "may" (none) are ignored with a
 *    warning, and NOTFOUND carries no attributes at all.
 * So only an STS answer at level "secure" or "may" carries them:
 *
 *	secure match=mx1.example.com:.example.net servername=hostname
 *	    policy_type=sts policy_domain=example.com
 *	    mx_host_pattern=mx1.example.com mx_host_pattern=*.example.net
 *	    { policy_string = version: STSv1 } { policy_string = mode: enforce }
 *	    { policy_string = mx: mx1.example.com } ...
 *
 * (one line; no policy_ttl: TLSRPT_README marks it deprecated and unused,
 * Postfix ignores it; patterns keep their "*."; every policy
 * line once, in order, except a line containing '{' or '}' — only an
 * unknown field can — which would break Postfix's brace quoting).
 *
 * Why decide() never answers "policy_type=no-policy-found" and never sends
 * policy_failure:
 *  - Postfix >= 3.10 reports "no-policy-found" by itself whenever the
 *    policy lookup gives no policy_type (smtp_tlsrpt_set_tls_policy calls
 *    smtp_tlsrpt_set_no_policy).  NOTFOUND is therefore already the right
 *    TLSRPT answer for "no policy", and it keeps the administrator's
 *    smtp_tls_security_level; "OK may policy_type=no-policy-found" would
 *    override a stricter global level (encrypt, dane) for every domain.
 *  - For policy_type=sts, Postfix's smtp_tlsrpt_set_ext_policy()
 *    dereferences the policy_string and mx_host_pattern lists without a
 *    null check: an sts answer without both crashes smtp(8) when the
 *    domain publishes a TLSRPT record.  After a failed discovery there are
 *    no policy lines to send.
 *  - policy_failure "forces MTA-STS policy enforcement to fail"
 *    (TLSRPT_README): mail would be deferred, which RFC 8461 §3.3 forbids
 *    for a domain whose policy could not be fetched.
 * The failure kind is still returned in decide_result for the log line.
 * mode none likewise gets NOTFOUND (no enforcement, no attributes).
 *
 * The TLS floor (issue 38; the map's tls_protocols, tls_ciphers,
 * tls_exclude: decide_options.floor).  Appended as protocols=, ciphers=,
 * exclude= to every authenticated answer, whatever its source:
 *	dane-only (DANE, either way)			floor
 *	secure (MTA-STS enforce, a preload entry)	floor, before any
 *							TLSRPT attribute
 *	a pin at fingerprint, dane-only, verify,	floor, for each attribute
 *	secure						the pin does not set
 *							(decide_pin.floor_attrs)
 *	dane, encrypt, may, none, NOTFOUND, TEMP	nothing
 * "dane" is not authenticated for every host: Postfix turns a host without
 * usable TLSA records into "may" or "encrypt" under the same attributes, so
 * a floor there would make opportunistic TLS mandatory TLS of that version
 * (or defer), which the DANE answer does not ask for.  NOTFOUND leaves
 * Postfix's own smtp_tls_mandatory_protocols in force, as it should.
 * A pin's own value replaces the floor's for that destination: the
 * operator wrote it for that domain (a partner stuck on TLSv1.1 is what
 * pins are for), and Postfix takes one protocols= per policy.
 *
 * If the full answer does not fit in out, decide() answers again without
 * the TLSRPT attributes (the policy itself still applies) and says so in
 * decide_result.tlsrpt_dropped.
 */
#ifndef DECIDE_H
#define DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sockmap.h"
#include "policy/tlsattr.h"

struct buf;
struct sts_policy;

/* What DANE discovery found for the domain's MX hosts (RFC 7672). */
enum decide_dane {
	DECIDE_DANE_NONE = 0,	/* not applicable: no DNSSEC, no TLSA, off */
	DECIDE_DANE_ALL,	/* every MX secure with usable TLSA records */
	DECIDE_DANE_SOME,	/* some MX hosts have usable TLSA records */
	DECIDE_DANE_FAILURE,	/* bogus answer or SERVFAIL on MX/TLSA */
	DECIDE_DANE_TLS,	/* every MX secure with TLSA records, none
				   usable: TLS required (RFC 7672 §2.2) */
	DECIDE_DANE_TLS_SOME,	/* none usable; some MX hosts have TLSA
				   records, others none or failed */
};

/* Option dane_some: answer when only some MX hosts have DANE. */
enum decide_dane_some {
	DECIDE_DANE_SOME_DANE = 0,	/* "dane": DANE where possible */
	DECIDE_DANE_SOME_DANE_ONLY,	/* "dane-only": insist on DANE */
	DECIDE_DANE_SOME_IGNORE,	/* as if no DANE: use MTA-STS */
};

/* Option dane_lookup_failure. */
enum decide_dane_failure {
	DECIDE_DANE_FAILURE_TEMP = 0,	/* defer the mail: TEMP */
	DECIDE_DANE_FAILURE_IGNORE,	/* as if no DANE: use MTA-STS */
};

/* What MTA-STS discovery found (RFC 8461 §3). */
enum decide_sts {
	DECIDE_STS_NONE = 0,	/* no (valid, single) _mta-sts record */
	DECIDE_STS_POLICY,	/* a valid policy: decide_input.policy */
	DECIDE_STS_FAILED,	/* record found, policy unusable */
};

/* Why discovery failed: RFC 8460 §4.3.2.2 result types. */
enum decide_sts_error {
	DECIDE_STS_ERR_FETCH = 0,	/* sts-policy-fetch-error */
	DECIDE_STS_ERR_INVALID,		/* sts-policy-invalid */
	DECIDE_STS_ERR_WEBPKI,		/* sts-webpki-invalid */
};

/* Option testing_answer: reply for mode testing. */
enum decide_testing {
	DECIDE_TESTING_NOTFOUND = 0,	/* leave the global level in force */
	DECIDE_TESTING_MAY,		/* OK "may" (with TLSRPT attributes) */
};

/* Where the answer came from, for the log line. */
enum decide_source {
	DECIDE_SOURCE_NONE = 0,	/* nothing applied: NOTFOUND */
	DECIDE_SOURCE_PIN,
	DECIDE_SOURCE_DANE,
	DECIDE_SOURCE_STS,
	DECIDE_SOURCE_PRELOAD,	/* a preload list's enforce entry */
};

/* A preload list's entry for the domain (preload_list.h), unexpired. */
struct decide_preload {
	int			 enforce;	/* else testing */
	size_t			 nmx;
	const char		*mx;		/* nmx MTA-STS patterns, NUL
						   after each */
	size_t			 mxlen;
};

/* A static per-domain answer from the configuration. */
struct decide_pin {
	enum sockmap_status	 status;
	const char		*data;	/* reply data; not for NOTFOUND */
	size_t			 len;
	unsigned int		 floor_attrs;	/* TLSATTR_BIT()s of the floor
						   to append (config_domain) */
};

/* The map's options (from the configuration, per socketmap name). */
struct decide_options {
	enum decide_dane_some	 dane_some;
	enum decide_dane_failure dane_lookup_failure;
	enum decide_testing	 testing_answer;
	int			 tlsrpt;	/* append TLSRPT attributes */
	const char		*floor[TLSATTR_NKINDS];	/* the map's
				   tls_protocols, tls_ciphers, tls_exclude
				   (checked values), NULL: none */
};

/* The facts about one domain; zero-initialized means "nothing known". */
struct decide_input {
	const char		*domain;	/* normalized, NUL-terminated */
	const struct decide_pin	*pin;		/* NULL: no pin */
	enum decide_dane	 dane;
	enum decide_sts		 sts;
	const struct sts_policy	*policy;	/* for DECIDE_STS_POLICY */
	enum decide_sts_error	 sts_error;	/* for DECIDE_STS_FAILED */
	const struct decide_preload *preload;	/* NULL: in no list */
};

struct decide_result {
	enum sockmap_status	 status;
	enum decide_source	 source;
	const char		*answer;	/* static: "dane-only", "dane",
						 * "encrypt", "secure", "may",
						 * "notfound", "temp", "pin" */
	int			 tlsrpt;	/* attributes were appended */
	int			 tlsrpt_dropped; /* omitted: out too small */
	int			 floor;		/* floor attributes appended */
	const char		*sts_failure;	/* RFC 8460 result type when
						 * MTA-STS discovery failed and
						 * was consulted, else NULL */
};

/*
 * decide - choose the reply for one domain
 *
 * Resets out, then writes the reply data (what follows "OK " or
 * "TEMP "; nothing for NOTFOUND) and fills in *res.  Returns 0, or -1 when
 * the input is unusable (domain not a plain host name of at most
 * DOMAIN_MAX_LEN bytes, DECIDE_STS_POLICY without a policy or with an mx
 * pattern mxmatch refuses, an OK pin without data) or out cannot hold even
 * the answer without TLSRPT attributes; the caller then answers TEMP and
 * logs.  out is unspecified after -1.
 */
int	decide(const struct decide_input *in, const struct decide_options *opt,
	    struct buf *out, struct decide_result *res);

/* decide_source_name - "none", "pin", "dane", "sts", "preload" */
const char *decide_source_name(enum decide_source src);

/* decide_sts_error_name - RFC 8460 result type: "sts-policy-invalid", ... */
const char *decide_sts_error_name(enum decide_sts_error err);

#endif
