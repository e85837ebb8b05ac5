/*
 * sts_policy.h - the MTA-STS policy file (RFC 8461 §3.2)
 *
 * https://mta-sts.<domain>/.well-known/mta-sts.txt holds lines such as
 *
 *	version: STSv1
 *	mode: enforce
 *	mx: mail.example.com
 *	mx: *.example.net
 *	max_age: 604800
 *
 * sts_policy_parse() checks a body against the RFC 8461 §3.2 ABNF, strictly,
 * and fills in a fixed-size struct sts_policy: no allocation, so a policy
 * can live in static storage or in one allocation (not on small stacks).  The
 * literal lines are kept too: TLSRPT (RFC 8460 §4.4 "policy-string") reports
 * them verbatim.  Pure functions: no allocation, no globals, no I/O.
 */
#ifndef STS_POLICY_H
#define STS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "policy/mxmatch.h"

#define STS_POLICY_MAX_BODY	65536	/* bytes (RFC 8461 §3.3); the only
					   size limit: any number of lines
					   or mx lines that fits is valid */
#define STS_POLICY_MX_BYTES	STS_POLICY_MAX_BODY /* room for the mx
					   patterns: each takes len + 1 bytes
					   here and >= len + 3 ("mx:") in the
					   body, so a valid body always fits */
#define STS_POLICY_MAX_AGE	31557600 /* RFC 8461 §3.2: one year */
#define STS_POLICY_AGE_DIGITS	10	/* RFC 8461 §3.2: 1*10(DIGIT) */

enum sts_mode {
	STS_MODE_NONE = 0,
	STS_MODE_TESTING,
	STS_MODE_ENFORCE,
};

/*
 * A parsed policy.  About 128 KiB of which only what the body needs is
 * written: allocate it (pages never touched cost no memory), keep it off
 * stacks.
 *
 * mx[0..mxlen) holds the nmx mx patterns in policy order, back to back,
 * each lower-cased, valid per mxmatch_pattern_check() and followed by a
 * NUL: read them with sts_policy_mx_next().  text[0..textlen) holds
 * the nlines literal lines of the body in order, each without its CRLF or
 * LF terminator and followed by one '\n': read them with sts_policy_line().
 */
struct sts_policy {
	enum sts_mode	 mode;
	uint32_t	 max_age;	/* seconds, <= STS_POLICY_MAX_AGE */
	size_t		 nmx;
	size_t		 mxlen;
	size_t		 nlines;
	size_t		 textlen;
	char		 text[STS_POLICY_MAX_BODY + 1];
	char		 mx[STS_POLICY_MX_BYTES];
};

/*
 * sts_policy_parse - parse a policy body p[0..len)
 *
 * RFC 8461 §3.2 ABNF (abridged):
 *	sts-policy-record = sts-policy-field *WSP
 *	                    *(sts-policy-term sts-policy-field *WSP)
 *	                    [sts-policy-term]
 *	sts-policy-term   = LF / CRLF
 *	sts-policy-field-delim = ":" *WSP
 *	sts-policy-ext-name  = (ALPHA / DIGIT)
 *	                       *31(ALPHA / DIGIT / "_" / "-" / ".")
 *	sts-policy-ext-value = sts-policy-vchar
 *	                       [*(%x20 / sts-policy-vchar) sts-policy-vchar]
 *	sts-policy-vchar  = %x21-7E / UTF8-2 / UTF8-3 / UTF8-4
 *
 * Rules, in the order they are checked:
 *  - len > STS_POLICY_MAX_BODY is invalid before anything is read;
 *  - lines end in LF or CRLF; the last may lack one; a lone CR is a
 *    control character, so invalid; an empty line is invalid (no ':');
 *  - each line is "name:" *WSP value *WSP with no space before the ':'; the
 *    name follows sts-policy-ext-name; the value is not empty and holds no
 *    control characters and only well-formed UTF-8 (RFC 3629);
 *  - field names and the values STSv1, enforce, testing, none are
 *    case-sensitive (%s in the ABNF);
 *  - "version: STSv1", "mode" and "max_age" are required, in any position;
 *    a repeated version, mode or max_age is ignored (the first one wins)
 *    once it is syntactically a field; unknown names are ignored;
 *  - max_age is 1..10 digits; values above STS_POLICY_MAX_AGE are capped
 *    to it rather than refused, because §3.2 bounds the value's meaning,
 *    not its syntax (1*10 DIGIT allows more), and a policy published with
 *    a longer lifetime is still the domain's stated policy; 0 is valid;
 *  - mx is required at least once unless mode is none, and may appear any
 *    number of times (RFC 8461 sets no limit; the body limit bounds it);
 *    each value must pass mxmatch_pattern_check()
 *    (no IP addresses, no whitespace, wildcard only as a leading "*.").
 *
 * Returns 0 with *out filled in, or -1 with *why set to a static reason
 * (for logs) and *out unspecified.  p need not be NUL-terminated.
 */
int	sts_policy_parse(const char *p, size_t len, struct sts_policy *out,
	    const char **why);

/*
 * sts_policy_line - iterate over the literal policy lines
 *
 * Start with *pos = 0.  Each call returns 1 and sets *line (not
 * NUL-terminated) and *len to the next line, or returns 0 at the end.
 */
int	sts_policy_line(const struct sts_policy *pol, size_t *pos,
	    const char **line, size_t *len);

/*
 * sts_policy_mx_next - iterate over the mx patterns
 *
 * Start with *pos = 0.  Returns the next NUL-terminated pattern (its length
 * in *len when len is not NULL), or NULL at the end.
 */
const char *sts_policy_mx_next(const struct sts_policy *pol, size_t *pos,
	    size_t *len);

/*
 * sts_policy_mx_add - append pattern p[0..len) to pol as the parser would
 *
 * For code that builds a policy from stored facts (facts.c) and for
 * tests: checks mxmatch_pattern_check(), lower-cases.  0, or -1 (pol
 * unchanged) if the pattern is invalid or there is no room.
 */
int	sts_policy_mx_add(struct sts_policy *pol, const char *p, size_t len);

/* sts_policy_mode_name - "none", "testing", "enforce" */
const char *sts_policy_mode_name(enum sts_mode mode);

#endif
