/*
 * import_sts_resolver.c - the cache entries of postfix-mta-sts-resolver
 *
 * Formats and rules: import_sts_resolver.h.  The JSON reader is the small
 * part of RFC 8259 that Python's json.dumps writes (and any value it
 * might, skipped when not needed): objects, arrays, strings with every
 * escape (\uXXXX surrogate pairs to UTF-8), numbers, true, false, null.
 * Pure: no I/O, no allocation.
 */
#include "autoconf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/import_sts_resolver.h"

/* A JSON text being read: p[0..len), at pos. */
struct isr_json {
	const char	*p;
	size_t		 len;
	size_t		 pos;
	const char	*err;		/* first error, static text */
};

/* The four policy fields, as found. */
struct isr_policy {
	char		 version[64];
	char		 mode[64];
	int		 have_version, have_mode, have_mx, have_max_age;
	uint64_t	 max_age;
};

/* isr_fail - note the first error; returns -1 */
static int
isr_fail(struct isr_json *j, const char *err)
{
	if (j->err == NULL)
		j->err = err;
	return (-1);
}

/* isr_ws - skip JSON whitespace */
static void
isr_ws(struct isr_json *j)
{
	while (j->pos < j->len && (j->p[j->pos] == ' ' ||
	    j->p[j->pos] == '\t' || j->p[j->pos] == '\n' ||
	    j->p[j->pos] == '\r'))
		j->pos++;
}

/* isr_next - the next byte after whitespace, not consumed; -1 at the end */
static int
isr_next(struct isr_json *j)
{
	isr_ws(j);
	return (j->pos < j->len ? (unsigned char)j->p[j->pos] : -1);
}

/* isr_eat - consume c (after whitespace) or fail */
static int
isr_eat(struct isr_json *j, char c, const char *err)
{
	if (isr_next(j) != (unsigned char)c)
		return (isr_fail(j, err));
	j->pos++;
	return (0);
}

/* isr_hex4 - four hex digits at pos into *v */
static int
isr_hex4(struct isr_json *j, unsigned int *v)
{
	unsigned int	 d;
	size_t		 i;
	char		 c;

	*v = 0;
	if (j->len - j->pos < 4)
		return (isr_fail(j, "truncated \\u escape"));
	*v = 0;
	for (i = 0; i < 4; i++) {
		c = j->p[j->pos + i];
		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return (isr_fail(j, "bad \\u escape"));
		*v = *v << 4 | d;
	}
	j->pos += 4;
	return (0);
}

/* isr_put - append n bytes to out[0..outsz) at *olen, one byte kept for
 * the NUL; out may be NULL (the string is skipped) */
static int
isr_put(struct isr_json *j, char *out, size_t outsz, size_t *olen,
    const char *b, size_t n)
{
	if (out == NULL)
		return (0);
	if (n >= outsz - *olen)
		return (isr_fail(j, "string too long"));
	memcpy(out + *olen, b, n);
	*olen += n;
	return (0);
}

/* isr_utf8 - code point cp as UTF-8 into b; its length */
static size_t
isr_utf8(unsigned int cp, char *b)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return (1);
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		return (2);
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return (3);
	}
	b[0] = (char)(0xf0 | cp >> 18);
	b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return (4);
}

/*
 * isr_string - a JSON string at pos, decoded into out[0..outsz) and
 * NUL-terminated (out NULL: skipped), its length in *olen
 */
static int
isr_string(struct isr_json *j, char *out, size_t outsz, size_t *olen)
{
	unsigned int	 cp = 0, lo = 0;
	size_t		 n = 0;
	char		 b[4], c;

	if (isr_eat(j, '"', "a string was expected") == -1)
		return (-1);
	for (;;) {
		if (j->pos >= j->len)
			return (isr_fail(j, "unterminated string"));
		c = j->p[j->pos++];
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20)
			return (isr_fail(j, "control character in a string"));
		if (c != '\\') {
			if (isr_put(j, out, outsz, &n, &c, 1) == -1)
				return (-1);
			continue;
		}
		if (j->pos >= j->len)
			return (isr_fail(j, "unterminated string"));
		c = j->p[j->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			if (isr_hex4(j, &cp) == -1)
				return (-1);
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return (isr_fail(j, "lone low surrogate"));
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (j->len - j->pos < 2 ||
				    j->p[j->pos] != '\\' ||
				    j->p[j->pos + 1] != 'u')
					return (isr_fail(j,
					    "lone high surrogate"));
				j->pos += 2;
				if (isr_hex4(j, &lo) == -1)
					return (-1);
				if (lo < 0xdc00 || lo > 0xdfff)
					return (isr_fail(j,
					    "bad surrogate pair"));
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
			}
			if (isr_put(j, out, outsz, &n, b, isr_utf8(cp, b)) ==
			    -1)
				return (-1);
			continue;
		default:
			return (isr_fail(j, "bad escape"));
		}
		if (isr_put(j, out, outsz, &n, &c, 1) == -1)
			return (-1);
	}
	if (out != NULL)
		out[n] = '\0';
	if (olen != NULL)
		*olen = n;
	return (0);
}

/* isr_digits - skip a run of decimal digits at pos: how many there were */
static size_t
isr_digits(struct isr_json *j)
{
	size_t		 ds = j->pos;

	while (j->pos < j->len && j->p[j->pos] >= '0' && j->p[j->pos] <= '9')
		j->pos++;
	return (j->pos - ds);
}

/* isr_number - a JSON number at pos; *v gets it when it is a whole
 * number 0..UINT64_MAX written without sign, fraction or exponent, and
 * *whole says whether it was */
static int
isr_number(struct isr_json *j, uint64_t *v, int *whole)
{
	size_t		 ds, digits;

	isr_ws(j);
	*v = 0;
	*whole = 1;
	if (j->pos < j->len && j->p[j->pos] == '-') {
		*whole = 0;
		j->pos++;
	}
	ds = j->pos;
	while (j->pos < j->len && j->p[j->pos] >= '0' && j->p[j->pos] <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			*whole = 0;
		else
			*v = *v * 10 + (uint64_t)(j->p[j->pos] - '0');
		j->pos++;
	}
	digits = j->pos - ds;
	if (digits == 0 || (digits > 1 && j->p[ds] == '0'))
		return (isr_fail(j, "bad number"));
	if (j->pos < j->len && j->p[j->pos] == '.') {
		*whole = 0;
		j->pos++;
		if (isr_digits(j) == 0)
			return (isr_fail(j, "bad number"));
	}
	if (j->pos < j->len && (j->p[j->pos] == 'e' || j->p[j->pos] == 'E')) {
		*whole = 0;
		j->pos++;
		if (j->pos < j->len && (j->p[j->pos] == '+' ||
		    j->p[j->pos] == '-'))
			j->pos++;
		if (isr_digits(j) == 0)
			return (isr_fail(j, "bad number"));
	}
	return (0);
}

/* isr_word - the literal w at pos */
static int
isr_word(struct isr_json *j, const char *w)
{
	size_t	 n = strlen(w);

	if (j->len - j->pos < n || memcmp(j->p + j->pos, w, n) != 0)
		return (isr_fail(j, "bad value"));
	j->pos += n;
	return (0);
}

/* isr_skip - any JSON value at pos, nested at most depth deeper */
static int
isr_skip(struct isr_json *j, int depth)
{
	uint64_t	 v;
	int		 c, whole;
	char		 close;

	c = isr_next(j);
	switch (c) {
	case '"':
		return (isr_string(j, NULL, 0, NULL));
	case 't':
		return (isr_word(j, "true"));
	case 'f':
		return (isr_word(j, "false"));
	case 'n':
		return (isr_word(j, "null"));
	case '{':
	case '[':
		break;
	default:
		return (isr_number(j, &v, &whole));
	}
	if (depth <= 0)
		return (isr_fail(j, "nested too deep"));
	close = c == '{' ? '}' : ']';
	j->pos++;
	if (isr_next(j) == close) {
		j->pos++;
		return (0);
	}
	for (;;) {
		if (c == '{' && (isr_string(j, NULL, 0, NULL) == -1 ||
		    isr_eat(j, ':', "':' was expected") == -1))
			return (-1);
		if (isr_skip(j, depth - 1) == -1)
			return (-1);
		if (isr_next(j) == close) {
			j->pos++;
			return (0);
		}
		if (isr_eat(j, ',', "',' was expected") == -1)
			return (-1);
	}
}

/* isr_clean - 1 if s[0..len) holds no control character (a policy line
 * cannot, and one would split the text we write) */
static int
isr_clean(const char *s, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return (0);
	return (1);
}

/* isr_line - append "name: value\n" to text[0..textsz) at *tlen */
static int
isr_line(struct isr_json *j, char *text, size_t textsz, size_t *tlen,
    const char *name, const char *value, size_t vlen)
{
	size_t	 nlen = strlen(name);

	if (!isr_clean(value, vlen))
		return (isr_fail(j, "a value holds a control character"));
	if (nlen + 2 + vlen + 1 >= textsz - *tlen)
		return (isr_fail(j, "policy longer than 64 KiB"));
	memcpy(text + *tlen, name, nlen);
	memcpy(text + *tlen + nlen, ": ", 2);
	memcpy(text + *tlen + nlen + 2, value, vlen);
	text[*tlen + nlen + 2 + vlen] = '\n';
	*tlen += nlen + 2 + vlen + 1;
	text[*tlen] = '\0';
	return (0);
}

/* isr_field - a string field into buf (duplicate: refused) */
static int
isr_field(struct isr_json *j, char *buf, size_t bufsz, int *have,
    const char *dup)
{
	if (*have)
		return (isr_fail(j, dup));
	*have = 1;
	if (isr_next(j) != '"')
		return (isr_fail(j, "version and mode must be strings"));
	return (isr_string(j, buf, bufsz, NULL));
}

/* isr_mx - the "mx" list: each pattern a line of text */
static int
isr_mx(struct isr_json *j, struct isr_policy *pol, char *mxtext,
    size_t mxsz, size_t *mxlen)
{
	char	 pat[STS_POLICY_MAX_BODY];
	size_t	 plen;

	if (pol->have_mx)
		return (isr_fail(j, "mx given twice"));
	pol->have_mx = 1;
	if (isr_eat(j, '[', "mx must be a list") == -1)
		return (-1);
	if (isr_next(j) == ']') {
		j->pos++;
		return (0);
	}
	for (;;) {
		if (isr_next(j) != '"')
			return (isr_fail(j, "an mx pattern must be a string"));
		if (isr_string(j, pat, sizeof(pat), &plen) == -1 ||
		    isr_line(j, mxtext, mxsz, mxlen, "mx", pat, plen) == -1)
			return (-1);
		if (isr_next(j) == ']') {
			j->pos++;
			return (0);
		}
		if (isr_eat(j, ',', "',' was expected") == -1)
			return (-1);
	}
}

/* isr_name - a member name at pos into name[0..namesz); a longer one is
 * no field of ours: skipped, and name is "" */
static int
isr_name(struct isr_json *j, char *name, size_t namesz, size_t *nlen)
{
	size_t	 start = j->pos;

	if (isr_string(j, name, namesz, nlen) == 0)
		return (0);
	if (j->err == NULL || strcmp(j->err, "string too long") != 0)
		return (-1);
	j->err = NULL;
	j->pos = start;
	name[0] = '\0';
	*nlen = 0;
	return (isr_string(j, NULL, 0, NULL));
}

/* isr_body - the pol_body object at pos, as policy text */
static int
isr_body(struct isr_json *j, char *text, size_t textsz, size_t *textlen)
{
	struct isr_policy pol;
	char		 name[64], num[24];
	size_t		 tlen = 0, mxlen = 0, nlen;
	int		 whole;

	memset(&pol, 0, sizeof(pol));
	if (textsz < 2)
		return (isr_fail(j, "no room"));
	text[0] = '\0';
	if (isr_eat(j, '{', "the policy is not a JSON object") == -1)
		return (-1);
	/* mx lines go to the end of text, moved into place at the end */
	if (isr_next(j) == '}')
		j->pos++;
	else for (;;) {
		if (isr_name(j, name, sizeof(name), &nlen) == -1)
			return (-1);
		if (isr_eat(j, ':', "':' was expected") == -1)
			return (-1);
		if (nlen == strlen("version") && strcmp(name, "version") == 0) {
			if (isr_field(j, pol.version, sizeof(pol.version),
			    &pol.have_version, "version given twice") == -1)
				return (-1);
		} else if (nlen == strlen("mode") &&
		    strcmp(name, "mode") == 0) {
			if (isr_field(j, pol.mode, sizeof(pol.mode),
			    &pol.have_mode, "mode given twice") == -1)
				return (-1);
		} else if (nlen == strlen("mx") && strcmp(name, "mx") == 0) {
			/* the mx lines are written at the text's far end
			 * (half of it) and moved after the other lines */
			if (isr_mx(j, &pol, text + textsz / 2,
			    textsz - textsz / 2, &mxlen) == -1)
				return (-1);
		} else if (nlen == strlen("max_age") &&
		    strcmp(name, "max_age") == 0) {
			if (pol.have_max_age)
				return (isr_fail(j, "max_age given twice"));
			pol.have_max_age = 1;
			if (isr_next(j) == '"') {
				/* as the policy had it: digits, checked by
				 * the policy parser */
				if (isr_string(j, num, sizeof(num), NULL) ==
				    -1)
					return (-1);
				if (num[0] == '\0' || strspn(num,
				    "0123456789") != strlen(num))
					return (isr_fail(j,
					    "max_age is not a number"));
				pol.max_age = strtoull(num, NULL, 10);
			} else if (isr_number(j, &pol.max_age, &whole) ==
			    -1 || !whole)
				return (isr_fail(j, "max_age is not a whole "
				    "number of seconds"));
		} else if (isr_skip(j, IMPORT_STS_RESOLVER_DEPTH) == -1)
			return (-1);
		if (isr_next(j) == '}') {
			j->pos++;
			break;
		}
		if (isr_eat(j, ',', "',' was expected") == -1)
			return (-1);
	}
	if (pol.have_version && isr_line(j, text, textsz / 2, &tlen,
	    "version", pol.version, strlen(pol.version)) == -1)
		return (-1);
	if (pol.have_mode && isr_line(j, text, textsz / 2, &tlen, "mode",
	    pol.mode, strlen(pol.mode)) == -1)
		return (-1);
	if (pol.have_max_age) {
		snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)pol.max_age);
		if (isr_line(j, text, textsz / 2, &tlen, "max_age", num,
		    strlen(num)) == -1)
			return (-1);
	}
	/* the mx lines after the others: tlen < textsz / 2 */
	memmove(text + tlen, text + textsz / 2, mxlen);
	tlen += mxlen;
	text[tlen] = '\0';
	*textlen = tlen;
	return (0);
}

/* isr_end - nothing but whitespace left */
static int
isr_end(struct isr_json *j)
{
	if (isr_next(j) != -1)
		return (isr_fail(j, "bytes after the JSON value"));
	return (0);
}

/* isr_why - the reason of a failed parse */
static int
isr_why(const struct isr_json *j, char *why, size_t whysz)
{
	snprintf(why, whysz, "JSON at byte %zu: %s", j->pos,
	    j->err != NULL ? j->err : "invalid");
	return (-1);
}

int
import_sts_resolver_body(const char *p, size_t len, char *text,
    size_t textsz, size_t *textlen, char *why, size_t whysz)
{
	struct isr_json	 j = { p, len, 0, NULL };

	why[0] = '\0';
	if (len > IMPORT_STS_RESOLVER_MAX_JSON) {
		snprintf(why, whysz, "policy JSON of %zu bytes", len);
		return (-1);
	}
	if (isr_body(&j, text, textsz, textlen) == -1 || isr_end(&j) == -1)
		return (isr_why(&j, why, whysz));
	return (0);
}

int
import_sts_resolver_member(const char *p, size_t len, char *id,
    size_t *idlen, char *text, size_t textsz, size_t *textlen, char *why,
    size_t whysz)
{
	struct isr_json	 j;

	why[0] = '\0';
	if (len < IMPORT_STS_RESOLVER_UUID + 2 ||
	    len > IMPORT_STS_RESOLVER_UUID + IMPORT_STS_RESOLVER_MAX_JSON) {
		snprintf(why, whysz, "member of %zu bytes", len);
		return (-1);
	}
	j.p = p + IMPORT_STS_RESOLVER_UUID;
	j.len = len - IMPORT_STS_RESOLVER_UUID;
	j.pos = 0;
	j.err = NULL;
	if (isr_eat(&j, '[', "not a JSON list") == -1)
		return (isr_why(&j, why, whysz));
	if (isr_next(&j) == 'n') {
		/* an id of None: kept as none */
		if (isr_word(&j, "null") == -1)
			return (isr_why(&j, why, whysz));
		id[0] = '\0';
		*idlen = 0;
	} else if (isr_next(&j) != '"' ||
	    isr_string(&j, id, STS_RECORD_ID_MAX + 1, idlen) == -1) {
		isr_fail(&j, "the policy id is not a string of at most 32 "
		    "bytes");
		return (isr_why(&j, why, whysz));
	}
	if (isr_eat(&j, ',', "',' was expected") == -1 ||
	    isr_body(&j, text, textsz, textlen) == -1 ||
	    isr_eat(&j, ']', "']' was expected") == -1 || isr_end(&j) == -1)
		return (isr_why(&j, why, whysz));
	return (0);
}

int
import_sts_resolver_score(const char *p, size_t len, int64_t *ts)
{
	char	 buf[64], *end;
	double	 d;

	if (len == 0 || len >= sizeof(buf) || memchr(p, '\0', len) != NULL)
		return (-1);
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (strspn(buf, "0123456789.eE+") != len)
		return (-1);	/* no sign, no inf, no nan, no hex */
	d = strtod(buf, &end);
	if (end != buf + len || !isfinite(d) || d < 1 ||
	    d >= 4611686018427387904.0)	/* 2^62 */
		return (-1);
	*ts = (int64_t)d;	/* d >= 1: truncation is the floor */
	return (0);
}
