/*
 * check_parse.h - pure parsers for postsmtpsts-check: SMTP replies (RFC
 * 5321 §4.2), EHLO keywords (RFC 3207 STARTTLS), MX and TLSA RDATA
 * (RFC 1035 §3.3.9, RFC 6698 §2.1) and RFC 7672 TLSA usability
 *
 * No allocation, no I/O: every function reads (p, len) and writes only
 * into its out-parameters, so the whole module is unit-tested with byte
 * strings (tests/unit/test_check_parse.c).
 */
#ifndef CHECK_PARSE_H
#define CHECK_PARSE_H

#include <stddef.h>

#include "lib/domain.h"

/*
 * Limits.  RFC 5321 §4.5.3.1.5 allows 512 octets per reply line with the
 * CRLF; real servers stay far below.  We accept up to CHECK_PARSE_LINE_MAX
 * and refuse a reply of more lines or bytes than below: a server that
 * talks more is broken or hostile, and the checker gives up on it.
 */
#define CHECK_PARSE_LINE_MAX	1000	/* one reply line, with CRLF */
#define CHECK_PARSE_MAX_LINES	100	/* lines of one reply */
#define CHECK_PARSE_REPLY_MAX	(CHECK_PARSE_LINE_MAX * 8) /* whole reply */

enum check_parse_status {
	CHECK_PARSE_INCOMPLETE = 0,	/* need more bytes */
	CHECK_PARSE_COMPLETE,		/* a whole reply: see the struct */
	CHECK_PARSE_BAD,		/* syntax or a limit: give up */
};

/* One (possibly multi-line) SMTP reply. */
struct check_parse_reply {
	int		 code;		/* 100..599 */
	size_t		 nlines;
	size_t		 used;		/* bytes of the reply, with CRLFs */
	/* the first line without its CRLF: p[first_off, +first_len) */
	size_t		 first_off;
	size_t		 first_len;
	int		 starttls;	/* a line after the first is the
					 * EHLO keyword STARTTLS */
	const char	*why;		/* CHECK_PARSE_BAD: the reason */
};

/*
 * check_parse_reply - parse the SMTP reply at the start of p[0..len)
 *
 * Each line is three digits, then '-' (more lines follow), ' ' or the
 * line end (last line), then text, ended by CRLF or a bare LF.  Every line
 * must carry the same code.  For an EHLO reply, r->starttls tells whether
 * one of the extension lines (all but the first, RFC 5321 §4.1.1.1) has
 * the keyword STARTTLS (any case, alone or followed by a space).  Bytes
 * after the reply are not looked at: r->used says where it ended.
 * Returns COMPLETE, INCOMPLETE (no complete last line yet, within the
 * limits) or BAD (with r->why).
 */
enum check_parse_status check_parse_reply(const char *p, size_t len,
	    struct check_parse_reply *r);

/*
 * check_parse_mx - MX RDATA (RFC 1035 §3.3.9): 16-bit preference and an
 * uncompressed wire-format name, as libunbound hands it over
 *
 * Writes the name in lower-case presentation form without the trailing
 * dot to name (DOMAIN_BUFSZ bytes) and the preference to *pref.  "" is
 * the root: the RFC 7505 null MX.  Returns 0, or -1 when the RDATA is
 * malformed or a label holds a byte that is not a letter, digit, '-' or
 * '_' (no host name could have it; printing it would need escaping).
 */
int	check_parse_mx(const unsigned char *p, size_t len, unsigned *pref,
	    char *name);

/* RFC 7672 §3.1: which TLSA records an SMTP client may use */
enum check_parse_tlsa {
	CHECK_PARSE_TLSA_USABLE = 0,	/* DANE-TA(2) or DANE-EE(3), selector
					 * 0/1, matching type 0/1/2 */
	CHECK_PARSE_TLSA_UNUSABLE,	/* PKIX-TA(0)/PKIX-EE(1) or an
					 * unknown parameter (§3.1.3) */
	CHECK_PARSE_TLSA_MALFORMED,	/* shorter than 4 bytes, or a digest
					 * of the wrong length */
};

/*
 * check_parse_tlsa - classify one TLSA RDATA (RFC 6698 §2.1: usage,
 * selector, matching type, association data) and write its first three
 * fields to *usage, *selector, *mtype (when at least 3 bytes).
 */
enum check_parse_tlsa check_parse_tlsa(const unsigned char *p, size_t len,
	    unsigned *usage, unsigned *selector, unsigned *mtype);

/* check_parse_tlsa_name - "usable", "unusable", "malformed" */
const char *check_parse_tlsa_name(enum check_parse_tlsa t);

#endif
