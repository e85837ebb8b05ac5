/*
 * import_redis.c - the import's Redis URL and reply bounds (interface and
 * grammar: import_redis.h)
 *
 * The URL: RFC 3986 §3.2 (authority, userinfo, host, port) and §2.1
 * (percent-encoding).  The reply check: RESP2, one byte at a time through
 * a small state machine (a line, then a bulk's payload), a stack of the
 * values each open array still owes.  Pure.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/import_redis.h"

#define IMPORT_REDIS_BAD_URL	"not a redis URL: redis://[[USER]:PASSWORD@]" \
	"HOST[:PORT][/DB] or unix:PATH[?db=DB]"

enum {
	IMPORT_REDIS_PH_TYPE,	/* the type byte of a value */
	IMPORT_REDIS_PH_LINE,	/* its line, to CRLF */
	IMPORT_REDIS_PH_BULK,	/* a bulk's payload and CRLF */
	IMPORT_REDIS_PH_DONE,	/* a whole reply, or refused */
};

/* import_redis_hex - the value of hex digit c, or -1 */
static int
import_redis_hex(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/*
 * import_redis_decode - %-decode p[0..len) into out (outsz with the NUL):
 * 0, or -1 on a bad escape, "%00" or no room
 */
static int
import_redis_decode(const char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i, n = 0;
	int	 hi, lo;

	for (i = 0; i < len; i++) {
		if (n + 1 >= outsz)
			return (-1);
		if (p[i] != '%') {
			if (p[i] == '\0')
				return (-1);
			out[n++] = p[i];
			continue;
		}
		if (len - i < 3 || (hi = import_redis_hex(p[i + 1])) == -1 ||
		    (lo = import_redis_hex(p[i + 2])) == -1 ||
		    (hi == 0 && lo == 0))
			return (-1);
		out[n++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[n] = '\0';
	return (0);
}

/* import_redis_number - decimal p[0..len) in lo..hi: 0, or -1 */
static int
import_redis_number(const char *p, size_t len, long lo, long hi, long *v)
{
	char	 buf[16], *end;

	if (len == 0 || len >= sizeof(buf) || p[0] < '0' || p[0] > '9')
		return (-1);
	memcpy(buf, p, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return (-1);
	return (0);
}

/* import_redis_why - a message into why */
static int
import_redis_why(char *why, size_t whysz, const char *what)
{
	snprintf(why, whysz, "%s", what);
	return (-1);
}

int
import_redis_url(const char *url, size_t len, struct import_redis_url *u,
    char *why, size_t whysz)
{
	const char	*p, *end = url + len, *auth_end, *at, *colon, *q, *h;
	char		 dec[32];
	size_t		 hlen;
	long		 v;

	memset(u, 0, sizeof(*u));
	u->port = IMPORT_REDIS_PORT;
	if (memchr(url, '\0', len) != NULL)
		return (import_redis_why(why, whysz, IMPORT_REDIS_BAD_URL));
	if (len >= 5 && memcmp(url, "unix:", 5) == 0) {
		u->unix_sock = 1;
		p = url + 5;
		if (end - p >= 2 && memcmp(p, "//", 2) == 0)
			p += 2;
		q = memchr(p, '?', (size_t)(end - p));
		if (q == NULL)
			q = end;
		if (q == p || import_redis_decode(p, (size_t)(q - p),
		    u->host, sizeof(u->host)) == -1)
			return (import_redis_why(why, whysz,
			    "unix: no socket path, or a bad %-escape in it"));
		if (q == end)
			return (0);
		if (end - q < 4 || memcmp(q, "?db=", 4) != 0 ||
		    import_redis_decode(q + 4, (size_t)(end - q - 4), dec,
		    sizeof(dec)) == -1 || import_redis_number(dec,
		    strlen(dec), 0, 65535, &u->db) == -1)
			return (import_redis_why(why, whysz,
			    "unix: the query is not ?db=DB (0-65535)"));
		return (0);
	}
	if (len < 8 || memcmp(url, "redis://", 8) != 0)
		return (import_redis_why(why, whysz, IMPORT_REDIS_BAD_URL));
	p = url + 8;
	/* §3.2: the authority ends at "/", "?" or "#" */
	for (auth_end = p; auth_end < end && *auth_end != '/' &&
	    *auth_end != '?' && *auth_end != '#'; auth_end++)
		;
	if (auth_end < end && *auth_end != '/')
		return (import_redis_why(why, whysz, "a query or fragment "
		    "in a redis:// URL (give the database as /DB)"));
	/* §3.2.1: the userinfo, up to the last "@" of the authority */
	for (at = NULL, q = p; q < auth_end; q++)
		if (*q == '@')
			at = q;
	if (at != NULL) {
		colon = memchr(p, ':', (size_t)(at - p));
		if (import_redis_decode(p, (size_t)((colon != NULL ? colon :
		    at) - p), u->user, sizeof(u->user)) == -1)
			return (import_redis_why(why, whysz, "the user name: "
			    "a bad %-escape, or too long"));
		if (colon == NULL)
			return (import_redis_why(why, whysz, "a user name but "
			    "no :PASSWORD before \"@\""));
		if (import_redis_decode(colon + 1, (size_t)(at - colon - 1),
		    u->pass, sizeof(u->pass)) == -1)
			return (import_redis_why(why, whysz, "the password: "
			    "a bad %-escape, or too long"));
		u->has_pass = 1;
		p = at + 1;
	}
	/* host, [v6] or a name, then :PORT */
	h = p;
	if (p < auth_end && *p == '[') {
		if ((q = memchr(p, ']', (size_t)(auth_end - p))) == NULL)
			return (import_redis_why(why, whysz, "an IPv6 "
			    "address without \"]\""));
		h = p + 1;
		hlen = (size_t)(q - h);
		p = q + 1;
		if (p < auth_end && *p != ':')
			return (import_redis_why(why, whysz, "bytes after "
			    "\"]\" that are not :PORT"));
		colon = p < auth_end ? p : NULL;
	} else {
		colon = memchr(p, ':', (size_t)(auth_end - p));
		hlen = (size_t)((colon != NULL ? colon : auth_end) - h);
	}
	if (hlen == 0 || import_redis_decode(h, hlen, u->host,
	    sizeof(u->host)) == -1)
		return (import_redis_why(why, whysz, "no host, a bad "
		    "%-escape in it, or too long"));
	if (colon != NULL && import_redis_number(colon + 1,
	    (size_t)(auth_end - colon - 1), 1, 65535, &v) == -1)
		return (import_redis_why(why, whysz, "the port is not "
		    "1-65535"));
	if (colon != NULL)
		u->port = (int)v;
	/* §3.3: the path, "/DB" or "/" or none */
	if (auth_end < end && end - auth_end > 1) {
		if (import_redis_decode(auth_end + 1, (size_t)(end - auth_end -
		    1), dec, sizeof(dec)) == -1 || import_redis_number(dec,
		    strlen(dec), 0, 65535, &u->db) == -1)
			return (import_redis_why(why, whysz, "the database "
			    "(/DB) is not 0-65535"));
	}
	return (0);
}

void
import_redis_resp_init(struct import_redis_resp *s)
{
	memset(s, 0, sizeof(*s));
	s->phase = IMPORT_REDIS_PH_TYPE;
}

static enum import_redis_status import_redis_bad(struct import_redis_resp *,
	    char *, size_t, const char *, ...)
	    __attribute__((format(printf, 4, 5)));

/* import_redis_bad - refuse, why as fmt says: the state is spent */
static enum import_redis_status
import_redis_bad(struct import_redis_resp *s, char *why, size_t whysz,
    const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	s->phase = IMPORT_REDIS_PH_DONE;
	return (IMPORT_REDIS_RESP_BAD);
}

/*
 * import_redis_value_done - a value ended: count it against its array;
 * 1 if the whole reply ended
 */
static int
import_redis_value_done(struct import_redis_resp *s)
{
	while (s->depth > 0) {
		if (--s->left[s->depth - 1] > 0)
			return (0);
		s->depth--;	/* that array is complete: it is a value */
	}
	return (1);
}

/*
 * import_redis_line - a line ended (s->line holds the first bytes of a
 * length or integer): its value's bounds; 1 if the reply ended, 0 if it
 * goes on, -1 refused
 */
static int
import_redis_line(struct import_redis_resp *s, char *why, size_t whysz)
{
	const char	*p = s->line;
	size_t		 i, len = s->linelen, neg = 0;
	uint64_t	 v = 0;

	if (s->type == '+' || s->type == '-')
		return (import_redis_value_done(s));
	/* ':' '$' '*': [-]digits, at most 19 */
	if (len > 0 && p[0] == '-')
		neg = 1;
	if (len == neg || len - neg > 19) {
		(void)import_redis_bad(s, why, whysz, "a length or integer "
		    "that is not a decimal number (%zu bytes)", len);
		return (-1);
	}
	for (i = neg; i < len; i++) {
		if (p[i] < '0' || p[i] > '9') {
			(void)import_redis_bad(s, why, whysz, "a length or "
			    "integer that is not a decimal number");
			return (-1);
		}
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	if (s->type == ':')
		return (import_redis_value_done(s));
	if (neg) {
		if (v != 1) {
			(void)import_redis_bad(s, why, whysz, "a negative "
			    "length other than -1");
			return (-1);
		}
		return (import_redis_value_done(s));	/* nil */
	}
	if (s->type == '$') {
		if (v > IMPORT_REDIS_MAX_BULK) {
			(void)import_redis_bad(s, why, whysz, "a bulk string "
			    "of %llu bytes (at most %d)", (unsigned long long)v,
			    IMPORT_REDIS_MAX_BULK);
			return (-1);
		}
		s->bulk = v + 2;	/* and its CRLF */
		s->phase = IMPORT_REDIS_PH_BULK;
		return (0);
	}
	/* '*' */
	if (v > IMPORT_REDIS_MAX_ELEMENTS) {
		(void)import_redis_bad(s, why, whysz, "an array of %llu "
		    "elements (at most %d)", (unsigned long long)v,
		    IMPORT_REDIS_MAX_ELEMENTS);
		return (-1);
	}
	/* an empty array is an array too: the depth first */
	if (s->depth == IMPORT_REDIS_MAX_DEPTH) {
		(void)import_redis_bad(s, why, whysz, "arrays nested deeper "
		    "than %d", IMPORT_REDIS_MAX_DEPTH);
		return (-1);
	}
	if (v == 0)
		return (import_redis_value_done(s));
	s->left[s->depth++] = v;
	return (0);
}

enum import_redis_status
import_redis_resp_feed(struct import_redis_resp *s, const char *p,
    size_t len, size_t *used, char *why, size_t whysz)
{
	size_t	 i, n;
	int	 r;

	*used = 0;
	if (s->phase == IMPORT_REDIS_PH_DONE)
		return (import_redis_bad(s, why, whysz, "a reply after the "
		    "reply"));
	for (i = 0; i < len; ) {
		if (s->bytes >= IMPORT_REDIS_MAX_REPLY)
			return (import_redis_bad(s, why, whysz, "a reply of "
			    "more than %d bytes", IMPORT_REDIS_MAX_REPLY));
		switch (s->phase) {
		case IMPORT_REDIS_PH_TYPE:
			if (strchr("+-:$*", p[i]) == NULL || p[i] == '\0')
				return (import_redis_bad(s, why, whysz,
				    "not a RESP2 reply (type byte 0x%02x)",
				    (unsigned char)p[i]));
			if (++s->items > IMPORT_REDIS_MAX_ITEMS)
				return (import_redis_bad(s, why, whysz,
				    "a reply of more than %d values",
				    IMPORT_REDIS_MAX_ITEMS));
			s->type = (unsigned char)p[i];
			s->linelen = 0;
			s->phase = IMPORT_REDIS_PH_LINE;
			i++;
			s->bytes++;
			break;
		case IMPORT_REDIS_PH_LINE:
			if (p[i] == '\n') {
				if (s->linelen == 0 ||
				    s->line[(s->linelen - 1) %
				    sizeof(s->line)] != '\r')
					return (import_redis_bad(s, why,
					    whysz, "a line not ended by CRLF"));
				s->linelen--;	/* the CR */
				i++;
				s->bytes++;
				s->phase = IMPORT_REDIS_PH_TYPE;
				if ((s->type == ':' || s->type == '$' ||
				    s->type == '*') &&
				    s->linelen >= sizeof(s->line)) {
					(void)import_redis_bad(s, why, whysz,
					    "a length line of %zu bytes",
					    s->linelen);
					return (IMPORT_REDIS_RESP_BAD);
				}
				if ((r = import_redis_line(s, why, whysz)) ==
				    -1)
					return (IMPORT_REDIS_RESP_BAD);
				if (r == 1) {
					s->phase = IMPORT_REDIS_PH_DONE;
					*used = i;
					return (IMPORT_REDIS_RESP_DONE);
				}
				break;
			}
			if (++s->linelen > IMPORT_REDIS_MAX_LINE)
				return (import_redis_bad(s, why, whysz,
				    "a line of more than %d bytes",
				    IMPORT_REDIS_MAX_LINE));
			/* keep the last byte (the CR test), and a number's
			 * digits while they fit */
			s->line[(s->linelen - 1) % sizeof(s->line)] = p[i];
			i++;
			s->bytes++;
			break;
		case IMPORT_REDIS_PH_BULK:
			n = len - i;
			if (s->bulk > 2 && n > s->bulk - 2)
				n = (size_t)(s->bulk - 2);
			if (s->bulk > 2) {
				s->bulk -= n;
				s->bytes += n;
				i += n;
				break;
			}
			/* the CRLF after the payload */
			if (p[i] != (s->bulk == 2 ? '\r' : '\n'))
				return (import_redis_bad(s, why, whysz,
				    "a bulk string not followed by CRLF"));
			i++;
			s->bytes++;
			if (--s->bulk > 0)
				break;
			s->phase = IMPORT_REDIS_PH_TYPE;
			if (import_redis_value_done(s)) {
				s->phase = IMPORT_REDIS_PH_DONE;
				*used = i;
				return (IMPORT_REDIS_RESP_DONE);
			}
			break;
		}
	}
	*used = len;
	return (IMPORT_REDIS_RESP_MORE);
}
