/*
 * tlsattr.c - protocols=, ciphers=, exclude= of a Postfix policy line
 * (grammar and limits: tlsattr.h)
 *
 * Postfix checks these only when it opens a TLS session: a bad protocols
 * value makes the policy invalid (4.7.5, the mail deferred), a bad grade
 * or exclusion fails the session.  So every value is checked at load,
 * and refused where Postfix would refuse it or would read it otherwise
 * than it is written (low and export are medium since Postfix 3.6).
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "policy/tlsattr.h"

/* Postfix's protocol names (tls_misc.c protocol_table), oldest first. */
static const char *const tlsattr_protocols[] = {
	"SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3",
};
#define TLSATTR_NPROTO	(sizeof(tlsattr_protocols) / \
			 sizeof(tlsattr_protocols[0]))
#define TLSATTR_ALL	((1U << TLSATTR_NPROTO) - 1)
#define TLSATTR_NAMES	"SSLv2 SSLv3 TLSv1 TLSv1.1 TLSv1.2 TLSv1.3"

const char *
tlsattr_name(enum tlsattr_kind k)
{
	switch (k) {
	case TLSATTR_PROTOCOLS:
		return ("protocols");
	case TLSATTR_CIPHERS:
		return ("ciphers");
	case TLSATTR_EXCLUDE:
		return ("exclude");
	case TLSATTR_NKINDS:
		break;
	}
	return ("?");
}

/* tlsattr_proto - index of the protocol named p[0..n), exactly; -1 */
static int
tlsattr_proto(const char *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < TLSATTR_NPROTO; i++)
		if (strlen(tlsattr_protocols[i]) == n &&
		    memcmp(p, tlsattr_protocols[i], n) == 0)
			return ((int)i);
	return (-1);
}

/* tlsattr_proto_anycase - the same, in any case (for the message) */
static int
tlsattr_proto_anycase(const char *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < TLSATTR_NPROTO; i++)
		if (strlen(tlsattr_protocols[i]) == n &&
		    strncasecmp(p, tlsattr_protocols[i], n) == 0)
			return ((int)i);
	return (-1);
}

/* tlsattr_bad_name - why p[0..n) is no protocol name */
static int
tlsattr_bad_name(const char *p, size_t n, char *why, size_t whysz)
{
	int	 i;

	if ((i = tlsattr_proto_anycase(p, n)) != -1)
		snprintf(why, whysz, "has \"%.*s\": protocol names are "
		    "case-sensitive, write %s", (int)n, p, tlsattr_protocols[i]);
	else
		snprintf(why, whysz, "has \"%.*s\", no protocol (one of "
		    TLSATTR_NAMES ")", (int)n, p);
	return (-1);
}

/* tlsattr_protocols_check - the protocols grammar of tlsattr.h */
static int
tlsattr_protocols_check(const char *p, size_t len, char *why, size_t whysz)
{
	const char	*tok, *end = p + len, *sep;
	unsigned int	 include = 0, exclude = 0, allowed, i;
	int		 floor = -1, ceiling = -1, v, *bound;
	size_t		 n;

	for (tok = p;; tok = sep + 1) {
		if ((sep = memchr(tok, ':', (size_t)(end - tok))) == NULL)
			sep = end;
		n = (size_t)(sep - tok);
		if (n == 0) {
			snprintf(why, whysz, "has an empty protocol between "
			    "':'");
			return (-1);
		}
		if (n >= 2 && (memcmp(tok, ">=", 2) == 0 ||
		    memcmp(tok, "<=", 2) == 0)) {
			bound = tok[0] == '>' ? &floor : &ceiling;
			if (*bound != -1) {
				snprintf(why, whysz, "has two %.2s bounds", tok);
				return (-1);
			}
			if ((v = tlsattr_proto(tok + 2, n - 2)) == -1)
				return (tlsattr_bad_name(tok + 2, n - 2, why,
				    whysz));
			if (v == 0) {
				/* tls_misc.c tls_version_table: no SSLv2 */
				snprintf(why, whysz, "has \"%.*s\": a bound "
				    "names SSLv3 to TLSv1.3", (int)n, tok);
				return (-1);
			}
			*bound = v;
		} else if (tok[0] == '>' || tok[0] == '<' || tok[0] == '=') {
			snprintf(why, whysz, "has \"%.*s\": a bound is written "
			    ">=NAME or <=NAME (Postfix 3.6 and later)", (int)n,
			    tok);
			return (-1);
		} else if (tok[0] == '!') {
			if ((v = tlsattr_proto(tok + 1, n - 1)) == -1)
				return (tlsattr_bad_name(tok + 1, n - 1, why,
				    whysz));
			exclude |= 1U << v;
		} else {
			if ((v = tlsattr_proto(tok, n)) == -1)
				return (tlsattr_bad_name(tok, n, why, whysz));
			include |= 1U << v;
		}
		if (sep == end)
			break;
	}
	/* tls_proto_mask_lims: with names listed, only those; then the
	 * exclusions; then the bounds (OpenSSL's min and max version) */
	allowed = (include != 0 ? include : TLSATTR_ALL) & ~exclude;
	for (i = 0; i < TLSATTR_NPROTO; i++)
		if ((floor != -1 && (int)i < floor) ||
		    (ceiling != -1 && (int)i > ceiling))
			allowed &= ~(1U << i);
	if (allowed == 0) {
		snprintf(why, whysz, "allows no protocol at all");
		return (-1);
	}
	return (0);
}

/* tlsattr_ciphers_check - a grade Postfix applies as written */
static int
tlsattr_ciphers_check(const char *p, size_t len, char *why, size_t whysz)
{
	if ((len == 4 && strncasecmp(p, "high", 4) == 0) ||
	    (len == 6 && strncasecmp(p, "medium", 6) == 0))
		return (0);
	if ((len == 3 && strncasecmp(p, "low", 3) == 0) ||
	    (len == 6 && strncasecmp(p, "export", 6) == 0))
		snprintf(why, whysz, "is read as medium by Postfix 3.6 and "
		    "later: write medium (or high)");
	else if (len == 4 && strncasecmp(p, "null", 4) == 0)
		snprintf(why, whysz, "is no encryption: write high or medium");
	else
		snprintf(why, whysz, "is no cipher grade: write high or "
		    "medium");
	return (-1);
}

/* tlsattr_exclude_check - cipher names, as tls_set_ciphers takes them */
static int
tlsattr_exclude_check(const char *p, size_t len, char *why, size_t whysz)
{
	const char	*tok, *end = p + len, *sep;
	size_t		 n, i;
	unsigned char	 c;

	for (tok = p;; tok = sep + 1) {
		if ((sep = memchr(tok, ':', (size_t)(end - tok))) == NULL)
			sep = end;
		n = (size_t)(sep - tok);
		if (n == 0) {
			snprintf(why, whysz, "has an empty cipher name "
			    "between ':'");
			return (-1);
		}
		if (strchr("!+-@", tok[0]) != NULL) {
			snprintf(why, whysz, "has \"%.*s\": name the ciphers "
			    "to exclude without a leading '!', '+', '-' or "
			    "'@' (Postfix refuses them)", (int)n, tok);
			return (-1);
		}
		for (i = 0; i < n; i++) {
			c = (unsigned char)tok[i];
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') ||
			    (i > 0 && strchr("._+=-", c) != NULL))
				continue;
			snprintf(why, whysz, "has \"%.*s\", no cipher name "
			    "(letters, digits and ._+=-, names separated by "
			    "':')", (int)n, tok);
			return (-1);
		}
		if (sep == end)
			break;
	}
	return (0);
}

int
tlsattr_check(enum tlsattr_kind k, const char *p, size_t len, char *out,
    char *why, size_t whysz)
{
	size_t	 i, ntok = 1;
	int	 rc;

	out[0] = '\0';
	if (len == 0) {
		snprintf(why, whysz, "is empty");
		return (-1);
	}
	if (len > TLSATTR_MAX_VALUE) {
		snprintf(why, whysz, "is longer than %d bytes",
		    TLSATTR_MAX_VALUE);
		return (-1);
	}
	for (i = 0; i < len; i++) {
		if (p[i] == ' ' || p[i] == '\t' || p[i] == ',') {
			snprintf(why, whysz, "has whitespace or ',': separate "
			    "with ':' (a policy line splits attributes at "
			    "whitespace and ',')");
			return (-1);
		}
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7f) {
			snprintf(why, whysz, "has a control or non-ASCII "
			    "byte");
			return (-1);
		}
		if (p[i] == ':' && ++ntok > TLSATTR_MAX_TOKENS) {
			snprintf(why, whysz, "has more than %d ':'-separated "
			    "names", TLSATTR_MAX_TOKENS);
			return (-1);
		}
	}
	switch (k) {
	case TLSATTR_PROTOCOLS:
		rc = tlsattr_protocols_check(p, len, why, whysz);
		break;
	case TLSATTR_CIPHERS:
		rc = tlsattr_ciphers_check(p, len, why, whysz);
		break;
	case TLSATTR_EXCLUDE:
		rc = tlsattr_exclude_check(p, len, why, whysz);
		break;
	default:
		snprintf(why, whysz, "is no TLS attribute");
		return (-1);
	}
	if (rc == -1)
		return (-1);
	for (i = 0; i < len; i++)
		out[i] = k == TLSATTR_CIPHERS && p[i] >= 'A' && p[i] <= 'Z' ?
		    (char)(p[i] - 'A' + 'a') : p[i];
	out[len] = '\0';
	return (0);
}
