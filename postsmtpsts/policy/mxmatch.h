/*
 * mxmatch.h - MTA-STS MX host patterns (RFC 8461 §3.2 "mx", §4.1)
 *
 * A pattern is a DNS host name ("mail.example.com") or "*." followed by
 * one ("*.example.com"): the wildcard stands for exactly one extra
 * leftmost label.  Pure functions: no allocation, no I/O.
 */
#ifndef MXMATCH_H
#define MXMATCH_H

#include <stddef.h>

#include "lib/domain.h"

struct buf;

/* Longest valid pattern: "*." + a DOMAIN_MAX_LEN name. */
#define MXMATCH_PATTERN_MAX	(DOMAIN_MAX_LEN + 2)
#define MXMATCH_PATTERN_BUFSZ	(MXMATCH_PATTERN_MAX + 1)

/*
 * mxmatch_pattern_check - is p[0..len) a valid RFC 8461 mx pattern?
 *
 * Valid: an optional "*." prefix, then a name of 1..DOMAIN_MAX_LEN bytes
 * whose labels are 1..DOMAIN_MAX_LABEL letters, digits and inner hyphens
 * (RFC 5321 Domain: no underscore, no leading or trailing hyphen), with no
 * trailing dot.  A name whose last label is all digits is refused: it is an
 * IPv4 address (or looks like one), never a host name.  Case is not
 * checked.  p need not be NUL-terminated.  Returns 1 if valid, else 0.
 */
int	mxmatch_pattern_check(const char *p, size_t len);

/*
 * mxmatch - does host name host match the mx pattern pattern?
 *
 * Both are NUL-terminated; comparison ignores ASCII case and one trailing
 * dot on either side.  "*.example.com" matches "a.example.com" but neither
 * "example.com" nor "a.b.example.com" (RFC 8461 §4.1).  A pattern with a
 * '*' anywhere else, an empty pattern or an empty host never matches.
 * Returns 1 on a match, else 0.
 */
int	mxmatch(const char *pattern, const char *host);

/*
 * mxmatch_postfix_pattern - append the Postfix "match=" token for pattern
 *
 * Postfix's "secure" level matches a certificate name against
 * ".example.com" as "any subdomain", so "*.example.com" becomes
 * ".example.com"; an exact name is appended unchanged.  pattern must pass
 * mxmatch_pattern_check().  Returns 0, or -1 when pattern is invalid or out
 * has no room (out's sticky error is set in the latter case).
 */
int	mxmatch_postfix_pattern(const char *pattern, struct buf *out);

#endif
