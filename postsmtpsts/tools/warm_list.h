/*
 * warm_list.h - the domain lists postsmtpsts-cache warm reads
 *
 * One domain a line; '#' at the start of a line makes it a comment; blank
 * lines are ignored.  Postfix table lines are accepted too: only the first
 * field (up to a blank) is used, and, as in Postfix tables, a line that
 * starts with a blank continues the previous one and is skipped.  A CR
 * before the newline is ignored.  The field is normalized as Postfix's
 * socketmap keys are (domain_normalize(): lower case, one trailing dot
 * dropped, IDNA U-labels to A-labels), so a warmed domain is the same
 * cache key a lookup uses.
 *
 * The lines may come from anywhere (a published hint list, say): the
 * parser takes (p, len), never relies on a NUL, and hands libidn2 at most
 * DOMAIN_MAX_KEY bytes (domain_normalize()).
 */
#ifndef WARM_LIST_H
#define WARM_LIST_H

#include <stddef.h>

#include "lib/domain.h"

/* Longest line read, newline included; longer lines are WARM_LINE_INVALID. */
#define WARM_LIST_MAX_LINE	(DOMAIN_MAX_KEY + 256)

enum warm_line {
	WARM_LINE_EMPTY = 0,	/* blank, comment or continuation line */
	WARM_LINE_DOMAIN,	/* out holds the lookup domain */
	WARM_LINE_NOT_PLAIN,	/* [host], host:port, .parent, an address:
				   no policy of its own (RFC 8461 §3.4) */
	WARM_LINE_INVALID,	/* the first field is not a host name */
};

/*
 * warm_list_line - the domain of one line p[0..len) (without its newline)
 *
 * out (DOMAIN_BUFSZ bytes) holds the normalized name on WARM_LINE_DOMAIN,
 * the empty string otherwise.
 */
enum warm_line	warm_list_line(const char *p, size_t len, char *out);

/* warm_list_line_name - "empty", "domain", "not-plain", "invalid" */
const char	*warm_list_line_name(enum warm_line st);

#endif
