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

int
check_parse_mx(const unsigned char *p, size_t len, unsigned *pref,
    char *name)
{
	size_t	 pos = 2, out = 0, i, lab;
	unsigned char c;

	name[0] = '\0';
	if (len < 3)
		return (-1);
	*pref = ((unsigned)p[0] << 8) | p[1];
	for (;;) {
		if (pos >= len)
			return (-1);
		lab = p[pos++];
		if (lab == 0)
			break;
		/* no compression pointers in RDATA handed out by the
		 * resolver; 0x40/0x80 label types are refused alike */
		if (lab > DOMAIN_MAX_LABEL || lab > len - pos)
			return (-1);
		if (out + (out > 0) + lab > DOMAIN_MAX_LEN)
			return (-1);
		if (out > 0)
			name[out++] = '.';
		for (i = 0; i < lab; i++) {
			c = p[pos + i];
			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') ||
			    (c >= '0' && c <= '9') || c == '-' || c == '_'))
				return (-1);
			name[out++] = (char)c;
		}
		pos += lab;
	}
	if (pos != len)
		return (-1);
	name[out] = '\0';
	return (0);
}

enum check_parse_tlsa
check_parse_tlsa(const unsigned char *p, size_t len, unsigned *usage,
    unsigned *selector, unsigned *mtype)
{
	size_t	 dlen;

	if (len < 3)
		return (CHECK_PARSE_TLSA_MALFORMED);
	*usage = p[0];
	*selector = p[1];
	*mtype = p[2];
	if (len < 4)
		return (CHECK_PARSE_TLSA_MALFORMED);
	dlen = len - 3;
	/* RFC 6698 §2.1.3: 1 = SHA-256, 2 = SHA-512 digests */
	if ((*mtype == 1 && dlen != 32) || (*mtype == 2 && dlen != 64))
		return (CHECK_PARSE_TLSA_MALFORMED);
	/* RFC 7672 §3.1.3: usages 0 and 1 are unusable for SMTP */
	if (*usage != 2 && *usage != 3)
		return (CHECK_PARSE_TLSA_UNUSABLE);
	if (*selector > 1 || *mtype > 2)
		return (CHECK_PARSE_TLSA_UNUSABLE);
	return (CHECK_PARSE_TLSA_USABLE);
}

const char *
check_parse_tlsa_name(enum check_parse_tlsa t)
{
	switch (t) {
	case CHECK_PARSE_TLSA_USABLE:
		return ("usable");
	case CHECK_PARSE_TLSA_UNUSABLE:
		return ("unusable");
	case CHECK_PARSE_TLSA_MALFORMED:
		return ("malformed");
	}
	return ("unknown");
}
