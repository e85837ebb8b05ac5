/*
 * check_parse.c - SMTP reply, EHLO keyword, MX and TLSA RDATA parsing for
 * postsmtpsts-check
 *
 * Interface: check_parse.h.  Pure functions over (p, len), never relying
 * on a NUL.  Implements RFC 5321 §4.2 (reply lines "ddd-text" / "ddd
 * text"), §4.1.1.1 (EHLO keywords after the first line), RFC 3207 §4
 * (STARTTLS keyword), RFC 1035 §3.3.9 (MX), RFC 6698 §2.1 (TLSA) and RFC
 * 7672 §3.1 (usable TLSA parameters for SMTP).  Limits: see the header.
 */
#include "autoconf.h"

#include <string.h>
#include <strings.h>

#include "tools/check_parse.h"

/* check_parse_digit - is c an ASCII digit */
static int
check_parse_digit(char c)
{
	return (c >= '0' && c <= '9');
}

/* check_parse_keyword - is text[0..len) the EHLO keyword kw, alone or
 * followed by parameters (RFC 5321 §4.1.1.1: ehlo-line) */
static int
check_parse_keyword(const char *text, size_t len, const char *kw)
{
	size_t	 n = strlen(kw);

	if (len < n || strncasecmp(text, kw, n) != 0)
		return (0);
	return (len == n || text[n] == ' ');
}

enum check_parse_status
check_parse_reply(const char *p, size_t len, struct check_parse_reply *r)
{
	size_t	 pos = 0, linelen, textlen;
	const char *line, *nl;
	int	 code;

	memset(r, 0, sizeof(*r));
	for (;;) {
		line = p + pos;
		nl = memchr(line, '\n', len - pos);
		if (nl == NULL) {
			if (len - pos >= CHECK_PARSE_LINE_MAX) {
				r->why = "reply line too long";
				return (CHECK_PARSE_BAD);
			}
			return (CHECK_PARSE_INCOMPLETE);
		}
		linelen = (size_t)(nl - line) + 1;
		if (linelen > CHECK_PARSE_LINE_MAX) {
			r->why = "reply line too long";
			return (CHECK_PARSE_BAD);
		}
		if (r->nlines == CHECK_PARSE_MAX_LINES) {
			r->why = "too many reply lines";
			return (CHECK_PARSE_BAD);
		}
		textlen = linelen - 1;
		if (textlen > 0 && line[textlen - 1] == '\r')
			textlen--;
		if (textlen < 3 || !check_parse_digit(line[0]) ||
		    !check_parse_digit(line[1]) ||
		    !check_parse_digit(line[2]) ||
		    (textlen > 3 && line[3] != ' ' && line[3] != '-')) {
			r->why = "reply line is not \"ddd text\"";
			return (CHECK_PARSE_BAD);
		}
		code = (line[0] - '0') * 100 + (line[1] - '0') * 10 +
		    (line[2] - '0');
		if (code < 100 || code > 599) {
			r->why = "reply code out of range";
			return (CHECK_PARSE_BAD);
		}
		if (r->nlines == 0) {
			r->code = code;
			r->first_off = pos;
			r->first_len = textlen;
		} else if (code != r->code) {
			r->why = "reply lines carry different codes";
			return (CHECK_PARSE_BAD);
		} else if (textlen > 4 &&
		    check_parse_keyword(line + 4, textlen - 4, "STARTTLS"))
			r->starttls = 1;
		r->nlines++;
		pos += linelen;
		if (textlen == 3 || line[3] == ' ') {
			r->used = pos;
			return (CHECK_PARSE_COMPLETE);
		}
		if (pos >= CHECK_PARSE_REPLY_MAX) {
			r->why = "reply too long";
			return (CHECK_PARSE_BAD);
		}
	}
}
