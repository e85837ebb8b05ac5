/*
 * result.h - RFC 8460 result types and policy types, by number
 *
 * The reporter counts sessions by these enums and writes their names into
 * the report (§4.4 "policy-type", §4.3 "result-type"); the numbers are
 * also what its state database stores, so they never change meaning:
 * new ones go at the end.
 */
#ifndef TLSRPT_RESULT_H
#define TLSRPT_RESULT_H

/* RFC 8460 §4.3: the result type of a failed session (IANA "STARTTLS
 * Validation Result Types"); TLSRPT_RESULT_NONE is a success */
enum tlsrpt_result {
	TLSRPT_RESULT_NONE = 0,
	/* §4.3.1 negotiation failures */
	TLSRPT_RESULT_STARTTLS = 1,	/* starttls-not-supported */
	TLSRPT_RESULT_HOST_MISMATCH = 2, /* certificate-host-mismatch */
	TLSRPT_RESULT_EXPIRED = 3,	/* certificate-expired */
	TLSRPT_RESULT_NOT_TRUSTED = 4,	/* certificate-not-trusted */
	TLSRPT_RESULT_VALIDATION = 5,	/* validation-failure */
	/* §4.3.2 policy failures: DANE */
	TLSRPT_RESULT_TLSA_INVALID = 6,	/* tlsa-invalid */
	TLSRPT_RESULT_DNSSEC_INVALID = 7, /* dnssec-invalid */
	TLSRPT_RESULT_DANE_REQUIRED = 8, /* dane-required */
	/* §4.3.2 policy failures: MTA-STS */
	TLSRPT_RESULT_STS_FETCH = 9,	/* sts-policy-fetch-error */
	TLSRPT_RESULT_STS_INVALID = 10,	/* sts-policy-invalid */
	TLSRPT_RESULT_STS_WEBPKI = 11,	/* sts-webpki-invalid */
	TLSRPT_RESULT_MAX = 11,
};

/* RFC 8460 §4.4 "policy-type" */
enum tlsrpt_policy_type {
	TLSRPT_POLICY_NONE = 0,		/* no-policy-found */
	TLSRPT_POLICY_STS = 1,		/* sts */
	TLSRPT_POLICY_TLSA = 2,		/* tlsa */
	TLSRPT_POLICY_MAX = 2,
};

/* tlsrpt_result_name - the RFC 8460 name ("starttls-not-supported", ...),
 * "success" for TLSRPT_RESULT_NONE, "?" for a number out of range */
const char	*tlsrpt_result_name(int r);

/* tlsrpt_result_from_name - the number of an RFC 8460 name, or -1 */
int		 tlsrpt_result_from_name(const char *name);

/* tlsrpt_policy_type_name - "no-policy-found", "sts", "tlsa", or "?" */
const char	*tlsrpt_policy_type_name(int t);

/* tlsrpt_policy_type_from_name - the number of a policy-type name, or -1 */
int		 tlsrpt_policy_type_from_name(const char *name);

#endif
