/*
 * sts_policy.c - the MTA-STS policy file (RFC 8461 §3.2)
 *
 * sts_policy_parse() splits a policy body into LF- or CRLF-terminated lines
 * (RFC 8461 §3.2 sts-policy-term; erratum 6253), checks every line against
 * the generic field grammar (sts-policy-ext-name ":" *WSP
 * sts-policy-ext-value *WSP), then applies the rules of the four defined
 * fields: version, mode, max_age, mx (§3.2).  Unknown fields are ignored as
 * §3.2 requires; a repeated non-mx field keeps its first value.
 *
 * Limits, all checked before copying: body <= STS_POLICY_MAX_BODY bytes
 * (RFC 8461 §3.3), mx patterns of at most MXMATCH_PATTERN_MAX bytes,
 * max_age <= STS_POLICY_AGE_DIGITS digits.  The number of lines and of mx
 * lines is not limited (RFC 8461 sets none; a 64 KiB policy may list
 * thousands of hosts): the body limit bounds both, and the fixed buffers
 * are sized so that every valid body fits.
 * The literal lines are kept for TLSRPT policy-string (RFC 8460 §4.4).
 * Pure: no allocation, no globals, no I/O; input is (pointer, length).
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "policy/mxmatch.h"
#include "policy/sts_policy.h"

#define STS_POLICY_NAME_MAX	32	/* (ALPHA / DIGIT) *31(...) */

/* sts_policy_alnum - ALPHA / DIGIT */
static int
sts_policy_alnum(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'));
}

/* sts_policy_wsp - RFC 5234 WSP */
static int
sts_policy_wsp(unsigned char c)
{
	return (c == ' ' || c == '\t');
}

/* sts_policy_name_check - sts-policy-ext-name */
static int
sts_policy_name_check(const char *p, size_t len)
{
	size_t	 i;

	if (len == 0 || len > STS_POLICY_NAME_MAX)
		return (0);
	if (!sts_policy_alnum((unsigned char)p[0]))
		return (0);
	for (i = 1; i < len; i++)
		if (!sts_policy_alnum((unsigned char)p[i]) && p[i] != '_' &&
		    p[i] != '-' && p[i] != '.')
			return (0);
	return (1);
}

/*
 * sts_policy_utf8 - length of the well-formed UTF-8 sequence at p[0..len)
 *
 * RFC 3629 §4 UTF8-2 / UTF8-3 / UTF8-4 (no overlongs, no surrogates, nothing
 * above U+10FFFF).  Returns 0 if the bytes are not one.
 */
static size_t
sts_policy_utf8(const unsigned char *p, size_t len)
{
	unsigned char	 lo, hi;
	size_t		 n, i;

	lo = 0x80;
	hi = 0xbf;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return (0);
	if (len < n)
		return (0);
	if (p[1] < lo || p[1] > hi)
		return (0);
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return (0);
	return (n);
}

/*
 * sts_policy_value_check - sts-policy-ext-value
 *
 * p[0..len) has had its surrounding WSP removed already, so only the
 * inner characters are left to check: SP, VCHAR or UTF-8, never a CTL.
 */
static int
sts_policy_value_check(const char *p, size_t len)
{
	const unsigned char	*u = (const unsigned char *)p;
	size_t			 i, n;

	if (len == 0)
		return (0);
	for (i = 0; i < len; ) {
		if (u[i] >= 0x20 && u[i] <= 0x7e) {
			i++;
			continue;
		}
		if (u[i] < 0x80 || (n = sts_policy_utf8(u + i, len - i)) == 0)
			return (0);
		i += n;
	}
	return (1);
}

/* sts_policy_is - does p[0..len) equal the string s? */
static int
sts_policy_is(const char *p, size_t len, const char *s)
{
	return (strlen(s) == len && memcmp(p, s, len) == 0);
}

/*
 * sts_policy_max_age - 1*10(DIGIT), capped at STS_POLICY_MAX_AGE
 *
 * Ten digits fit in uint64_t; the multiply is still checked, so that the
 * function stays correct if the digit limit is ever raised.
 */
static int
sts_policy_max_age(const char *p, size_t len, uint32_t *out)
{
	uint64_t	 v;
	size_t		 i;
	unsigned int	 d;

	if (len == 0 || len > STS_POLICY_AGE_DIGITS)
		return (-1);
	v = 0;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return (-1);
		d = (unsigned int)(p[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return (-1);
		v = v * 10 + d;
	}
	/* RFC 8461 §3.2: "maximum value of 31557600"; see sts_policy.h. */
	*out = v > STS_POLICY_MAX_AGE ? STS_POLICY_MAX_AGE : (uint32_t)v;
	return (0);
}

int
sts_policy_mx_add(struct sts_policy *out, const char *p, size_t len)
{
	size_t	 i;
	char	*dst;

	/* RFC 8461 §3.2: ["*."] Domain; no IP address, no space. */
	if (!mxmatch_pattern_check(p, len))
		return (-1);
	/* Cannot fail for a parsed body (STS_POLICY_MX_BYTES); checked
	 * all the same. */
	if (len >= sizeof(out->mx) - out->mxlen)
		return (-1);
	dst = out->mx + out->mxlen;
	for (i = 0; i < len; i++)
		dst[i] = (char)domain_lower((unsigned char)p[i]);
	dst[len] = '\0';
	out->mxlen += len + 1;
	out->nmx++;
	return (0);
}

const char *
sts_policy_mx_next(const struct sts_policy *pol, size_t *pos, size_t *len)
{
	const char	*s, *nul;

	if (*pos >= pol->mxlen || pol->mxlen > sizeof(pol->mx))
		return (NULL);
	s = pol->mx + *pos;
	if ((nul = memchr(s, '\0', pol->mxlen - *pos)) == NULL)
		return (NULL);
	if (len != NULL)
		*len = (size_t)(nul - s);
	*pos += (size_t)(nul - s) + 1;
	return (s);
}

/* sts_policy_keep_line - append one literal line to out->text */
static int
sts_policy_keep_line(struct sts_policy *out, const char *p, size_t len)
{
	if (len >= sizeof(out->text) - out->textlen)
		return (-1);
	memcpy(out->text + out->textlen, p, len);
	out->text[out->textlen + len] = '\n';
	out->textlen += len + 1;
	out->nlines++;
	return (0);
}

int
sts_policy_parse(const char *p, size_t len, struct sts_policy *out,
    const char **why)
{
	const char	*line, *nl, *colon, *v;
	size_t		 pos, llen, vlen;
	int		 have_version, have_mode, have_age;

	/* Limit first: nothing of an oversized body is looked at. */
	if (len > STS_POLICY_MAX_BODY) {
		*why = "policy larger than 64 KiB";
		return (-1);
	}
	if (len == 0) {
		*why = "empty policy";
		return (-1);
	}
	out->mode = STS_MODE_NONE;
	out->max_age = 0;
	out->nmx = 0;
	out->mxlen = 0;
	out->nlines = 0;
	out->textlen = 0;
	have_version = have_mode = have_age = 0;

	for (pos = 0; pos < len; ) {
		/* RFC 8461 §3.2: sts-policy-term = LF / CRLF, last optional. */
		line = p + pos;
		if ((nl = memchr(line, '\n', len - pos)) != NULL) {
			llen = (size_t)(nl - line);
			pos += llen + 1;
			if (llen > 0 && line[llen - 1] == '\r')
				llen--;
		} else {
			llen = len - pos;
			pos = len;
		}
		/* sts-policy-field: name ":" *WSP value *WSP */
		if ((colon = memchr(line, ':', llen)) == NULL) {
			*why = "line without ':'";
			return (-1);
		}
		if (!sts_policy_name_check(line, (size_t)(colon - line))) {
			*why = "invalid field name";
			return (-1);
		}
		v = colon + 1;
		vlen = llen - (size_t)(v - line);
		while (vlen > 0 && sts_policy_wsp((unsigned char)v[0])) {
			v++;
			vlen--;
		}
		while (vlen > 0 && sts_policy_wsp((unsigned char)v[vlen - 1]))
			vlen--;
		if (!sts_policy_value_check(v, vlen)) {
			*why = vlen == 0 ? "empty field value" :
			    "control character or bad UTF-8 in value";
			return (-1);
		}
		if (sts_policy_keep_line(out, line, llen) == -1) {
			*why = "policy text too long";
			return (-1);
		}

		/* Field names and values are case-sensitive (%s). */
		switch (colon - line) {
		case 2:
			if (memcmp(line, "mx", 2) == 0 &&
			    sts_policy_mx_add(out, v, vlen) == -1) {
				*why = "invalid mx pattern";
				return (-1);
			}
			break;
		case 4:
			if (memcmp(line, "mode", 4) != 0 || have_mode)
				break;
			if (sts_policy_is(v, vlen, "enforce"))
				out->mode = STS_MODE_ENFORCE;
			else if (sts_policy_is(v, vlen, "testing"))
				out->mode = STS_MODE_TESTING;
			else if (sts_policy_is(v, vlen, "none"))
				out->mode = STS_MODE_NONE;
			else {
				*why = "invalid mode";
				return (-1);
			}
			have_mode = 1;
			break;
		case 7:
			if (memcmp(line, "version", 7) == 0 && !have_version) {
				if (!sts_policy_is(v, vlen, "STSv1")) {
					*why = "unsupported version";
					return (-1);
				}
				have_version = 1;
			} else if (memcmp(line, "max_age", 7) == 0 &&
			    !have_age) {
				if (sts_policy_max_age(v, vlen,
				    &out->max_age) == -1) {
					*why = "invalid max_age";
					return (-1);
				}
				have_age = 1;
			}
			break;
		default:
			/* RFC 8461 §3.2: unknown fields are ignored. */
			break;
		}
	}

	if (!have_version) {
		*why = "version missing";
		return (-1);
	}
	if (!have_mode) {
		*why = "mode missing";
		return (-1);
	}
	if (!have_age) {
		*why = "max_age missing";
		return (-1);
	}
	/* RFC 8461 §3.2: mx is required unless mode is none. */
	if (out->mode != STS_MODE_NONE && out->nmx == 0) {
		*why = "mx missing";
		return (-1);
	}
	return (0);
}

int
sts_policy_line(const struct sts_policy *pol, size_t *pos, const char **line,
    size_t *len)
{
	const char	*nl;

	if (*pos >= pol->textlen)
		return (0);
	*line = pol->text + *pos;
	nl = memchr(*line, '\n', pol->textlen - *pos);
	/* Every kept line ends in '\n' (sts_policy_keep_line). */
	*len = nl != NULL ? (size_t)(nl - *line) : pol->textlen - *pos;
	*pos += *len + 1;
	return (1);
}

const char *
sts_policy_mode_name(enum sts_mode mode)
{
	switch (mode) {
	case STS_MODE_NONE:
		return ("none");
	case STS_MODE_TESTING:
		return ("testing");
	case STS_MODE_ENFORCE:
		return ("enforce");
	}
	return ("unknown");
}
