/*
 * check_parse.h - pure parser for postsmtpsts-check: SMTP replies (RFC
 * 5321 §4.2) and EHLO keywords (RFC 3207 STARTTLS)
 *
 * MX and TLSA RDATA and TLSA usability are dane.c's (dane_mx_parse,
 * dane_tlsa_parse): the checker walks MX hosts with the daemon's code.
 *
 * No allocation, no I/O: every function reads (p, len) and writes only
 * into its out-parameters, so the whole module is unit-tested with byte
 * strings (tests/unit/test_check_parse.c).
 */
#ifndef CHECK_PARSE_H
#define CHECK_PARSE_H

#include <stddef.h>

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

#endif
