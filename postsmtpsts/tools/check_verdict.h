/*
 * check_verdict.h - the verdict rules of postsmtpsts-check, as pure
 * functions
 *
 * What a host must do depends on what the domain publishes (RFC 8461 §2:
 * DANE, where it applies, takes precedence over MTA-STS):
 *
 *	DANE	the host's TLSA records are usable and DNSSEC-secure
 *		(RFC 7672 §2.2): STARTTLS, a TLS handshake and a chain that
 *		matches one TLSA record are required (a DANE-TA(2) match
 *		also needs the MX host name in the certificate, §3.2.2);
 *		failure otherwise.  PKIX is not consulted.
 *	TLS	no usable TLSA record, but a DNSSEC-secure TLSA RRset (only
 *		PKIX-TA/PKIX-EE, unknown parameters, malformed digests) and
 *		no enforce policy: RFC 7672 §2.2 requires TLS, not
 *		authentication (§3.1.3), so STARTTLS and a handshake are
 *		required (failure otherwise) and certificate problems are only
 *		noted.  An enforce policy asks more and takes its place, as
 *		decide() answers "secure" there.
 *	ENFORCE	STS policy mode enforce: the host must match a policy mx
 *		pattern (RFC 8461 §4.1), offer STARTTLS, and present a
 *		certificate that PKIX-validates and names the host (§4.2);
 *		failure otherwise.
 *	TESTING	STS mode testing: the same checks, but a miss is a warning
 *		(senders deliver anyway, RFC 8461 §5).
 *	NONE	no policy, mode none, or discovery failed: opportunistic TLS
 *		(RFC 3207).  No STARTTLS or a failed handshake is a warning;
 *		certificate problems are only noted (senders do not check).
 *
 * Whatever the requirement, a host that cannot be reached (no address,
 * connect, greeting or EHLO failed) is a failure, and so is a DNSSEC
 * failure of the host's TLSA lookup (RFC 7672 §2.2: mail must wait).  A
 * certificate that expires within warn_days (or has expired) is at least
 * a warning, except where only DANE-EE(3) authenticated it (RFC 7672
 * §3.1.1: its dates do not matter).
 *
 * Domain level: an MX lookup that failed, or no host to check, is a
 * failure; a published STS record whose policy could not be fetched or
 * parsed is a warning.  The exit status is the worst of all verdicts:
 * 0 ok, 1 warning, 2 failure.
 */
#ifndef CHECK_VERDICT_H
#define CHECK_VERDICT_H

#include <stddef.h>

#define CHECK_VERDICT_REASON_MAX 512	/* reasons, "; "-joined */

enum check_verdict_level {
	CHECK_VERDICT_OK = 0,
	CHECK_VERDICT_WARNING = 1,
	CHECK_VERDICT_FAILURE = 2,
};

/* What the domain requires of one host; see above. */
enum check_verdict_require {
	CHECK_VERDICT_REQ_NONE = 0,
	CHECK_VERDICT_REQ_TESTING,
	CHECK_VERDICT_REQ_ENFORCE,
	CHECK_VERDICT_REQ_DANE,
	CHECK_VERDICT_REQ_TLS,		/* TLSA records, none usable */
};

/* DANE state of one host. */
enum check_verdict_dane {
	CHECK_VERDICT_DANE_NA = 0,	/* not applicable */
	CHECK_VERDICT_DANE_LOOKUP_FAILED, /* TLSA bogus / SERVFAIL / timeout */
	CHECK_VERDICT_DANE_MATCH,	/* the chain matches a usable TLSA */
	CHECK_VERDICT_DANE_MISMATCH,	/* usable TLSA, nothing matched */
};

/* The facts about one host; zero means "no" / "not reached". */
struct check_verdict_host {
	enum check_verdict_require require;
	int		 have_addr;	/* an address to connect to */
	int		 connected;
	int		 smtp_ok;	/* 220 greeting and 250 to EHLO */
	int		 starttls;	/* offered in the EHLO reply */
	int		 tls;		/* STARTTLS accepted, handshake done */
	int		 have_cert;	/* the server sent a certificate */
	int		 pkix_ok;
	int		 name_ok;	/* the leaf names the MX host */
	int		 mx_match;	/* matches a policy mx pattern */
	enum check_verdict_dane dane;
	int		 dane_ee_only;	/* DANE_MATCH through DANE-EE(3) only */
	long		 expiry_days;	/* leaf notAfter - now, in days */
	long		 warn_days;
	const char	*error;		/* the failed step's reason, or NULL */
};

/* The facts about the domain. */
struct check_verdict_domain {
	int		 mx_failed;	/* MX lookup failed, bogus or NXDOMAIN */
	size_t		 nhosts;	/* hosts that were checked */
	int		 sts_failed;	/* STS record, but no usable policy */
};

/*
 * check_verdict_host - the verdict for one host by the rules above; the
 * reasons (why not ok, and notes) go to reason, reasonsz bytes, always
 * NUL-terminated (truncated if need be).
 */
enum check_verdict_level check_verdict_host(const struct check_verdict_host *h,
	    char *reason, size_t reasonsz);

/* check_verdict_domain - the domain-level verdict, reasons as above */
enum check_verdict_level check_verdict_domain(
	    const struct check_verdict_domain *d, char *reason,
	    size_t reasonsz);

/* check_verdict_name - "ok", "warning", "failure" */
const char	*check_verdict_name(enum check_verdict_level l);

/* check_verdict_require_name - "none", "sts-testing", "sts-enforce",
 * "dane", "tls" */
const char	*check_verdict_require_name(enum check_verdict_require r);

/* check_verdict_dane_name - "not-applicable", "lookup-failed", "match",
 * "mismatch" */
const char	*check_verdict_dane_name(enum check_verdict_dane d);

#endif
