/*
 * domain.h - normalization of socketmap keys into lookup domains
 *
 * Postfix's smtp(8) queries smtp_tls_policy_maps with the next-hop
 * destination as it appears: "example.com", "Example.COM.", "[mx.host]",
 * "[mx.host]:587", "host:port", "[192.0.2.1]", and, with
 * parent_domain_matches_subdomains, ".example.com" parent keys.  Only a
 * plain domain name has an MTA-STS or DANE policy of its own; RFC 8461 §3.4
 * forbids using a parent domain's policy.
 */
#ifndef DOMAIN_H
#define DOMAIN_H

#include <stddef.h>

#define DOMAIN_MAX_LEN		253	/* presentation form, no trailing dot */
#define DOMAIN_MAX_LABEL	63
#define DOMAIN_BUFSZ		(DOMAIN_MAX_LEN + 1)
/*
 * Longest key examined, in bytes: a U-label name may be up to four times
 * its A-label form (one 4-byte UTF-8 character per Punycode digit), plus
 * brackets and a port.  Longer keys are DOMAIN_INVALID without further ado,
 * and nothing longer is ever handed to libidn2.
 */
#define DOMAIN_MAX_KEY		1024

/*
 * domain_lower - ASCII lower case, independent of the locale: DNS names
 * compare case-insensitively in ASCII only (RFC 4343), and a U-label is
 * never case-folded here (IDNA is libidn2's)
 */
static inline unsigned char
domain_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c);
}

/*
 * domain_host_char - a character of a host-name label as names are looked
 * up here: ASCII letters, digits, '-' and '_' (underscore labels such as
 * _mta-sts and _25._tcp are names we ask for)
 */
static inline int
domain_host_char(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_');
}

enum domain_status {
	DOMAIN_OK = 0,		/* out holds the normalized A-label name */
	DOMAIN_NOT_PLAIN,	/* [host], host:port, IP literal, .parent */
	DOMAIN_INVALID,		/* not a valid host name (syntax, IDNA, length) */
};

/*
 * domain_normalize - turn a socketmap key into a lookup domain
 *
 * key[0..len) need not be NUL-terminated.  On DOMAIN_OK, out (at least
 * DOMAIN_BUFSZ bytes) holds the name in lower case, without a trailing dot,
 * U-labels converted to A-labels (IDNA2008 via libidn2), every label 1..63
 * LDH characters (underscore allowed: it occurs in real names), at least two
 * labels, total <= 253.  One trailing dot is stripped; a name of only dots,
 * an empty label, or more than one trailing dot is DOMAIN_INVALID.  A name
 * whose last label is all digits (an IPv4 address) and a single-label
 * name are DOMAIN_NOT_PLAIN: neither can have a policy of its own.
 *
 * The other DOMAIN_NOT_PLAIN forms are checked too, and are DOMAIN_INVALID
 * when malformed: "[inner]" and "[inner]:port" (inner: a host name, an IPv4
 * address, an IPv6 address with or without an "ipv6:" prefix), "host:port",
 * a bare IPv6 address (two or more colons), ".parent" (one leading dot, then
 * a valid name).  A port is 1..65535 or a service name (RFC 6335 §5.1:
 * 1..15 characters).  A key longer than DOMAIN_MAX_KEY is DOMAIN_INVALID.
 * Unless DOMAIN_OK is returned, out holds the empty string.
 */
enum domain_status domain_normalize(const char *key, size_t len, char *out);

/*
 * domain_check - THE host-name syntax of postsmtpsts (config pins, decide,
 * https, the MX pattern parser all call it)
 *
 * p[0..len) need not be NUL-terminated.  A name is labels of 1..63
 * letters, digits and '-' (RFC 1123 §2.1; '_' too with
 * DOMAIN_NAME_UNDERSCORE, RFC 8552), no '-' at either end of a label,
 * joined by single dots, at most DOMAIN_MAX_LEN characters, the last label
 * not all digits (that is an IPv4 address), at least minlabels labels.
 * DOMAIN_NAME_DOT allows (and drops) one trailing dot.  If out is not
 * NULL (DOMAIN_BUFSZ bytes) it receives the name in lower case; it is
 * meaningful only on DOMAIN_CHECK_OK.  No IDNA: see domain_normalize.
 */
#define DOMAIN_NAME_UNDERSCORE	0x1
#define DOMAIN_NAME_DOT		0x2

enum domain_check {
	DOMAIN_CHECK_OK = 0,
	DOMAIN_CHECK_EMPTY,
	DOMAIN_CHECK_LONG,		/* more than DOMAIN_MAX_LEN */
	DOMAIN_CHECK_EMPTY_LABEL,
	DOMAIN_CHECK_LONG_LABEL,	/* more than DOMAIN_MAX_LABEL */
	DOMAIN_CHECK_HYPHEN,		/* a label starts or ends with '-' */
	DOMAIN_CHECK_CHAR,		/* a byte that no label may hold */
	DOMAIN_CHECK_NUMERIC,		/* last label all digits */
	DOMAIN_CHECK_FEW_LABELS,	/* fewer than minlabels */
};

enum domain_check domain_check(const char *p, size_t len, unsigned int flags,
	    int minlabels, char *out);

/* domain_check_why - "is empty", "has an empty label", ... for messages
 * of the form "NAME <why>" */
const char *domain_check_why(enum domain_check c);

/* domain_status_name - "ok", "not-plain", "invalid" for logs */
const char *domain_status_name(enum domain_status st);

#endif
