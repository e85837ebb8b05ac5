/*
 * mxmatch.c - MTA-STS MX host patterns
 *
 * Syntax check, matching and Postfix conversion of the "mx" patterns of an
 * MTA-STS policy.
 *
 * RFC 8461 §3.2: sts-policy-mx-value = ["*."] Domain, Domain per RFC 5321
 * §4.1.2 (labels of letters, digits and inner hyphens).  We also hold the
 * name to DNS limits (RFC 1035 §2.3.4: labels <= 63, name <= 253 in
 * presentation form) and refuse all-digit last labels (IPv4 literals).
 * RFC 8461 §4.1: a wildcard matches exactly one leftmost label; names
 * compare case-insensitively.
 *
 * Interface: mxmatch_pattern_check(), mxmatch(), mxmatch_postfix_pattern().
 * Pure: no allocation, no globals, no I/O.
 */
#include "autoconf.h"

#include <stddef.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "policy/mxmatch.h"

/* mxmatch_name_check - RFC 5321 Domain (LDH: no '_') within DNS
 * limits, not an IPv4 address: domain_check */
static int
mxmatch_name_check(const char *p, size_t len)
{
	return (domain_check(p, len, 0, 1, NULL) == DOMAIN_CHECK_OK);
}

int
mxmatch_pattern_check(const char *p, size_t len)
{
	if (len > MXMATCH_PATTERN_MAX)
		return (0);
	/* RFC 8461 §3.2: the wildcard is only the whole leftmost label. */
	if (len >= 2 && p[0] == '*' && p[1] == '.')
		return (mxmatch_name_check(p + 2, len - 2));
	return (mxmatch_name_check(p, len));
}

/* mxmatch_equal - compare two byte strings ignoring ASCII case */
static int
mxmatch_equal(const char *a, const char *b, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		if (domain_lower((unsigned char)a[i]) !=
		    domain_lower((unsigned char)b[i]))
			return (0);
	return (1);
}

/* mxmatch_trim_dot - length of s without one trailing dot */
static size_t
mxmatch_trim_dot(const char *s)
{
	size_t	 len;

	len = strlen(s);
	if (len > 0 && s[len - 1] == '.')
		len--;
	return (len);
}

int
mxmatch(const char *pattern, const char *host)
{
	const char	*suffix;
	size_t		 plen, hlen, slen, i;

	plen = mxmatch_trim_dot(pattern);
	hlen = mxmatch_trim_dot(host);
	if (plen == 0 || hlen == 0)
		return (0);
	if (plen >= 2 && pattern[0] == '*' && pattern[1] == '.') {
		/* RFC 8461 §4.1: "*" stands for exactly one label. */
		suffix = pattern + 1;		/* ".example.com" */
		slen = plen - 1;
		if (memchr(suffix, '*', slen) != NULL || slen < 2)
			return (0);
		if (hlen <= slen)
			return (0);
		if (!mxmatch_equal(host + hlen - slen, suffix, slen))
			return (0);
		/* The extra part is one non-empty label: no dot in it. */
		for (i = 0; i < hlen - slen; i++)
			if (host[i] == '.')
				return (0);
		return (1);
	}
	if (memchr(pattern, '*', plen) != NULL)
		return (0);
	return (plen == hlen && mxmatch_equal(pattern, host, plen));
}

int
mxmatch_postfix_pattern(const char *pattern, struct buf *out)
{
	size_t	 len;

	len = strnlen(pattern, MXMATCH_PATTERN_MAX + 1);
	if (!mxmatch_pattern_check(pattern, len))
		return (-1);
	/* Postfix reads a leading dot as "any subdomain of". */
	if (pattern[0] == '*')
		return (buf_append(out, pattern + 1, len - 1));
	return (buf_append(out, pattern, len));
}
