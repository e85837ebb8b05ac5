/*
 * pins.c - pinned policies: grammar (pins_parse) and lookup (see pins.h)
 *
 * The grammar is Postfix's smtp_tls_policy_maps (postconf(5),
 * src/smtp/smtp_tls_policy.c):
 *	level		none may encrypt fingerprint dane dane-only verify
 *			secure (any case; written back in lower case)
 *	match		fingerprint: '|'-separated hex digests of 16, 20, 32,
 *			48 or 64 bytes, optionally ':'-separated pairs
 *			(upper-cased); verify, secure: ':'-separated host
 *			names, ".domain" suffixes and the keywords hostname,
 *			nexthop, dot-nexthop (lower-cased); other levels: none
 *	servername	dane, dane-only, verify, secure: "hostname" or a host
 *			name
 *	protocols, ciphers, exclude
 *			every level but none (Postfix ignores every attribute
 *			with TLS disabled, with a warning); the values'
 *			grammar is policy/tlsattr.c's.  At an authenticated
 *			level (fingerprint, dane-only, verify, secure) the
 *			map's floor (tls_protocols ...) fills in those the
 *			pin does not set: d->floor_attrs, applied by decide()
 * Host names go through domain_check() (lib/domain.c), as everywhere.
 * Limits: PINS_MAX_MATCH tokens, PINS_MAX_ANSWER bytes of reply.
 *
 * until (ours, not Postfix's: a timed exception) is a UTC date or instant
 * (pins_until_parse): "2026-12-31" holds through that day,
 * "2026-12-31T12:00:00Z" to that second.  Two fixed-width forms and no
 * offsets: what an operator types at 3 a.m. to let mail through to a
 * partner whose certificate expired or whose TLSA records went stale has
 * one reading.  From the end on, pins_decide_input() treats the section as
 * absent (one comparison with clock_wall(), the one clock tests fake).
 */
#include "autoconf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <time.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/decide.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "policy/tlsattr.h"

#define PINS_ESC_MAX	(LOG_ESCAPE_MAX + 8)

/* Postfix's policy table levels, in Postfix's order (weakest first). */
enum pins_level {
	PINS_LEVEL_NONE,
	PINS_LEVEL_MAY,
	PINS_LEVEL_ENCRYPT,
	PINS_LEVEL_FINGERPRINT,
	PINS_LEVEL_DANE,
	PINS_LEVEL_DANE_ONLY,
	PINS_LEVEL_VERIFY,
	PINS_LEVEL_SECURE,
	PINS_LEVEL_INVALID,
};

static const char *const pins_levels[] = {
	"none", "may", "encrypt", "fingerprint", "dane", "dane-only",
	"verify", "secure",
};

/* pins_errf - format one error and hand it to the caller's function */
static void __attribute__((format(printf, 4, 5)))
pins_errf(pins_err_fn *err, void *arg, const char *field, const char *fmt,
    ...)
{
	char	 msg[PINS_ERROR_MAX];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err(arg, field, msg);
}

/* pins_esc - a configured value, escaped and bounded for a message */
static const char *
pins_esc(char *out, const char *s)
{
	return (log_escape(out, PINS_ESC_MAX, s, strlen(s)));
}

/* Which levels accept which attribute (smtp_tls_policy.c). */
#define PINS_BIT(l)		(1U << (l))
#define PINS_MATCH_LEVELS	(PINS_BIT(PINS_LEVEL_FINGERPRINT) | \
				 PINS_BIT(PINS_LEVEL_VERIFY) | \
				 PINS_BIT(PINS_LEVEL_SECURE))
#define PINS_SERVERNAME_LEVELS	(PINS_BIT(PINS_LEVEL_DANE) | \
				 PINS_BIT(PINS_LEVEL_DANE_ONLY) | \
				 PINS_BIT(PINS_LEVEL_VERIFY) | \
				 PINS_BIT(PINS_LEVEL_SECURE))

/* The levels that authenticate the server, where the map's floor applies
 * (decide.h: the same four as decide()'s own authenticated answers). */
#define PINS_FLOOR_LEVELS	(PINS_BIT(PINS_LEVEL_FINGERPRINT) | \
				 PINS_BIT(PINS_LEVEL_DANE_ONLY) | \
				 PINS_BIT(PINS_LEVEL_VERIFY) | \
				 PINS_BIT(PINS_LEVEL_SECURE))

/* pins_allowed - 1 if field is valid at level (in mask), else report */
static int
pins_allowed(unsigned int mask, const char *field, const char *levels,
    const char *title, enum pins_level level, pins_err_fn *err, void *arg)
{
	if (mask & PINS_BIT(level))
		return (1);
	pins_errf(err, arg, field, "domain \"%s\": %s is not valid at level "
	    "%s (only %s)", title, field, pins_levels[level], levels);
	return (0);
}

/* pins_fingerprint_ok - hex digest, bytes optionally ':'-separated */
static int
pins_fingerprint_ok(const char *s)
{
	size_t	 len = strlen(s), bytes, i;
	int	 colons = strchr(s, ':') != NULL;

	if (colons) {
		/* "AB:CD:..": pairs and separators alternate */
		if ((len + 1) % 3 != 0)
			return (0);
		for (i = 0; i < len; i++)
			if (i % 3 == 2 ? s[i] != ':' :
			    !isxdigit((unsigned char)s[i]))
				return (0);
		bytes = (len + 1) / 3;
	} else {
		if (len % 2 != 0 || strspn(s, "0123456789abcdefABCDEF") != len)
			return (0);
		bytes = len / 2;
	}
	/* md5, sha1, sha256, sha384, sha512 (smtp_tls_fingerprint_digest) */
	return (bytes == 16 || bytes == 20 || bytes == 32 || bytes == 48 ||
	    bytes == 64);
}

/* pins_parse_level - a Postfix level name (any case) */
static enum pins_level
pins_parse_level(const char *s)
{
	size_t	 i;

	for (i = 0; i < sizeof(pins_levels) / sizeof(pins_levels[0]); i++)
		if (strcasecmp(s, pins_levels[i]) == 0)
			return ((enum pins_level)i);
	return (PINS_LEVEL_INVALID);
}

/*
 * pins_match - check and normalize a "match" value into b: fingerprint
 * takes '|'-separated digests (they contain ':'), verify and secure take
 * ':'-separated names, ".domain" suffixes and the keywords hostname,
 * nexthop, dot-nexthop, as Postfix's policy table splits them.
 */
static int
pins_match(const char *title, enum pins_level level, const char *val,
    struct buf *b, pins_err_fn *err, void *arg)
{
	char	 esc[PINS_ESC_MAX], name[DOMAIN_BUFSZ];
	const char *p = val, *end, *n0;
	char	 sep = level == PINS_LEVEL_FINGERPRINT ? '|' : ':';
	char	*tok;
	size_t	 n, i, ntok = 0;
	enum domain_check dc;
	int	 ok = 1;

	for (;;) {
		end = strchr(p, sep);
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		tok = xmemdup0(p, n);
		if (++ntok > PINS_MAX_MATCH) {
			pins_errf(err, arg, "match", "domain \"%s\": more "
			    "than %d match patterns", title, PINS_MAX_MATCH);
			free(tok);
			return (-1);
		}
		if (ntok > 1)
			buf_append_char(b, sep);
		if (level == PINS_LEVEL_FINGERPRINT) {
			if (!pins_fingerprint_ok(tok)) {
				pins_errf(err, arg, "match", "domain \"%s\": "
				    "\"%s\" is not a hex fingerprint", title,
				    pins_esc(esc, tok));
				ok = 0;
			}
			for (i = 0; i < n; i++)
				tok[i] = (char)toupper((unsigned char)tok[i]);
			buf_append_str(b, tok);
		} else if (strcasecmp(tok, "hostname") == 0 ||
		    strcasecmp(tok, "nexthop") == 0 ||
		    strcasecmp(tok, "dot-nexthop") == 0) {
			for (i = 0; i < n; i++)
				tok[i] = (char)domain_lower(
				    (unsigned char)tok[i]);
			buf_append_str(b, tok);
		} else {
			n0 = tok[0] == '.' ? tok + 1 : tok;
			dc = domain_check(n0, strlen(n0),
			    DOMAIN_NAME_UNDERSCORE, 1, name);
			if (dc != DOMAIN_CHECK_OK) {
				pins_errf(err, arg, "match", "domain \"%s\": "
				    "match pattern \"%s\" %s", title,
				    pins_esc(esc, tok), domain_check_why(dc));
				ok = 0;
			} else {
				if (tok[0] == '.')
					buf_append_char(b, '.');
				buf_append_str(b, name);
			}
		}
		free(tok);
		if (end == NULL)
			break;
		p = end + 1;
	}
	return (ok ? 0 : -1);
}

/* pins_digits - s[0..n) as a decimal number, or -1 unless all digits */
static int
pins_digits(const char *s, size_t n)
{
	size_t	 i;
	int	 v = 0;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		v = v * 10 + (s[i] - '0');
	}
	return (v);
}

/* pins_days - days from 1970-01-01 to y-m-d (proleptic Gregorian; y >=
 * 1970): the years' days with their leap days, then the months' */
static int64_t
pins_days(int y, int m, int d)
{
	static const int before[12] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
	};
	int64_t	 py = y - 1;
	int	 leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return ((int64_t)(y - 1970) * 365 + (py / 4 - 1969 / 4) -
	    (py / 100 - 1969 / 100) + (py / 400 - 1969 / 400) +
	    before[m - 1] + (m > 2 && leap) + d - 1);
}

int
pins_until_parse(const char *s, int64_t *end, char *why, size_t whysz)
{
	static const int mdays[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	int	 y, mo, d, h = 0, mi = 0, sec = 0, leap, dim;
	size_t	 len = strlen(s);

	if (len < 10 || s[4] != '-' || s[7] != '-' ||
	    (y = pins_digits(s, 4)) == -1 || (mo = pins_digits(s + 5, 2)) ==
	    -1 || (d = pins_digits(s + 8, 2)) == -1 || (len > 10 &&
	    ((s[10] != 'T' && s[10] != 't') || len < 19 || s[13] != ':' ||
	    s[16] != ':' || (h = pins_digits(s + 11, 2)) == -1 ||
	    (mi = pins_digits(s + 14, 2)) == -1 ||
	    (sec = pins_digits(s + 17, 2)) == -1))) {
		snprintf(why, whysz, "is neither a date YYYY-MM-DD nor a time "
		    "YYYY-MM-DDTHH:MM:SSZ (UTC)");
		return (-1);
	}
	if (len > 10) {
		if (len == 19) {
			snprintf(why, whysz, "has no Z: write the time in UTC, "
			    "ending in Z");
			return (-1);
		}
		if (s[19] == '+' || s[19] == '-') {
			snprintf(why, whysz, "has an offset from UTC: write "
			    "the time in UTC, ending in Z");
			return (-1);
		}
		if ((s[19] != 'Z' && s[19] != 'z') || len != 20) {
			snprintf(why, whysz, "is neither a date YYYY-MM-DD "
			    "nor a time YYYY-MM-DDTHH:MM:SSZ (UTC)");
			return (-1);
		}
	}
	if (y < PINS_UNTIL_MIN_YEAR || y > PINS_UNTIL_MAX_YEAR) {
		snprintf(why, whysz, "is not in the years %d to %d",
		    PINS_UNTIL_MIN_YEAR, PINS_UNTIL_MAX_YEAR);
		return (-1);
	}
	if (mo < 1 || mo > 12) {
		snprintf(why, whysz, "has no month %02d", mo);
		return (-1);
	}
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	dim = mdays[mo - 1] + (mo == 2 && leap);
	if (d < 1 || d > dim) {
		snprintf(why, whysz, "has no day %02d: month %02d of %d has %d "
		    "days", d, mo, y, dim);
		return (-1);
	}
	if (h > 23 || mi > 59 || sec > 59) {
		snprintf(why, whysz, "has no time %02d:%02d:%02d (00:00:00 to "
		    "23:59:59)", h, mi, sec);
		return (-1);
	}
	*end = pins_days(y, mo, d) * 86400;
	if (len == 10)
		*end += 86400;		/* through that day */
	else
		*end += (int64_t)h * 3600 + mi * 60 + sec;
	return (0);
}

const char *
pins_until_format(int64_t t, char *out)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL || strftime(out, PINS_UNTIL_BUFSZ,
	    "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, PINS_UNTIL_BUFSZ, "%lld", (long long)t);
	return (out);
}

const char *
pins_until_text(const struct config_domain *d, char *out)
{
	char	 t[PINS_UNTIL_BUFSZ];

	if (d->until == NULL)
		out[0] = '\0';
	else if (strlen(d->until) == 10)
		snprintf(out, PINS_UNTIL_TEXT_MAX, "%s (ends %s)", d->until,
		    pins_until_format(d->end, t));
	else
		snprintf(out, PINS_UNTIL_TEXT_MAX, "%s", d->until);
	return (out);
}

enum pins_state
pins_state_at(const struct config_domain *d, int64_t now)
{
	return (d->end != 0 && now >= d->end ? PINS_LAPSED : PINS_IN_FORCE);
}

void
pins_count(const struct config *cf, int64_t now, size_t *in_force,
    size_t *lapsed)
{
	size_t	 i;

	*in_force = *lapsed = 0;
	for (i = 0; cf != NULL && i < cf->ndomains; i++) {
		if (cf->domains[i].end == 0)
			continue;
		if (pins_state_at(&cf->domains[i], now) == PINS_LAPSED)
			(*lapsed)++;
		else
			(*in_force)++;
	}
}

/* pins_until - check until (not "") into d->until (T and Z upper-cased)
 * and d->end */
static int
pins_until(const char *esc, const char *us, struct config_domain *d,
    pins_err_fn *err, void *arg)
{
	char	 why[128], uesc[PINS_ESC_MAX];
	int64_t	 end;

	if (pins_until_parse(us, &end, why, sizeof(why)) == -1) {
		pins_errf(err, arg, "until", "domain \"%s\": until \"%s\" %s",
		    esc, pins_esc(uesc, us), why);
		return (-1);
	}
	d->until = xstrdup(us);
	if (strlen(us) == 20) {
		d->until[10] = 'T';
		d->until[19] = 'Z';
	}
	d->end = end;
	return (0);
}

/*
 * pins_tls - check the pin's protocols, ciphers and exclude (tls[k], ""
 * or NULL: absent) into d; 0, or -1 after reporting
 */
static int
pins_tls(const char *esc, enum pins_level level, const char *const *tls,
    struct config_domain *d, pins_err_fn *err, void *arg)
{
	char	 out[TLSATTR_MAX_VALUE + 1], why[TLSATTR_WHY_MAX];
	char	 vesc[PINS_ESC_MAX];
	char   **dst[TLSATTR_NKINDS];
	const char *v;
	int	 k, ok = 1;

	dst[TLSATTR_PROTOCOLS] = &d->protocols;
	dst[TLSATTR_CIPHERS] = &d->ciphers;
	dst[TLSATTR_EXCLUDE] = &d->exclude;
	for (k = 0; k < TLSATTR_NKINDS; k++) {
		if (tls == NULL || (v = tls[k]) == NULL || *v == '\0')
			continue;
		if (level == PINS_LEVEL_NONE) {
			/* smtp_tls_policy.c: "ignoring attribute ... with
			 * TLS disabled" */
			pins_errf(err, arg, tlsattr_name(k), "domain \"%s\": "
			    "%s is not valid at level none (Postfix ignores "
			    "every attribute with TLS disabled)", esc,
			    tlsattr_name(k));
			ok = 0;
		} else if (tlsattr_check(k, v, strlen(v), out, why,
		    sizeof(why)) == -1) {
			pins_errf(err, arg, tlsattr_name(k), "domain \"%s\": "
			    "%s \"%s\" %s", esc, tlsattr_name(k),
			    pins_esc(vesc, v), why);
			ok = 0;
		} else
			*dst[k] = xstrdup(out);
	}
	if (PINS_BIT(level) & PINS_FLOOR_LEVELS) {
		d->floor_attrs = 0;
		for (k = 0; k < TLSATTR_NKINDS; k++)
			if (*dst[k] == NULL)
				d->floor_attrs |= TLSATTR_BIT(k);
	}
	return (ok ? 0 : -1);
}

int
pins_parse(const char *title, const char *ls, const char *ms, const char *ss,
    const char *us, const char *const *tls, struct config_domain *d,
    pins_err_fn *err, void *arg)
{
	char	 esc[PINS_ESC_MAX], esc2[PINS_ESC_MAX], name[DOMAIN_BUFSZ];
	enum pins_level level;
	enum domain_check dc;
	struct buf b;
	int	 ok = 1;

	pins_esc(esc, title);
	if (*us != '\0' && pins_until(esc, us, d, err, arg) == -1)
		ok = 0;
	if (*ls == '\0') {
		pins_errf(err, arg, NULL, "domain \"%s\": level is missing",
		    esc);
		return (-1);
	}
	if ((level = pins_parse_level(ls)) == PINS_LEVEL_INVALID) {
		pins_errf(err, arg, "level", "domain \"%s\": level must be "
		    "one of none, may, encrypt, dane, dane-only, fingerprint, "
		    "verify, secure", esc);
		return (-1);
	}
	d->level = xstrdup(pins_levels[level]);

	buf_init(&b, PINS_MAX_ANSWER);
	if (*ms != '\0') {
		/* smtp_tls_policy.c: match is valid at these levels only */
		if (!pins_allowed(PINS_MATCH_LEVELS, "match", "fingerprint, "
		    "verify, secure", esc, level, err, arg))
			ok = 0;
		else if (pins_match(esc, level, ms, &b, err, arg) == 0 &&
		    !b.error)
			d->match = xmemdup0(b.data, b.len);
		else
			ok = 0;
	}
	if (*ss != '\0') {
		if (!pins_allowed(PINS_SERVERNAME_LEVELS, "servername",
		    "dane, dane-only, verify, secure", esc, level, err, arg))
			ok = 0;
		else if (strcasecmp(ss, "hostname") == 0)
			d->servername = xstrdup("hostname");
		else if ((dc = domain_check(ss, strlen(ss),
		    DOMAIN_NAME_UNDERSCORE, 1, name)) != DOMAIN_CHECK_OK) {
			pins_errf(err, arg, "servername", "domain \"%s\": "
			    "servername must be \"hostname\" or a host name; "
			    "\"%s\" %s", esc, pins_esc(esc2, ss),
			    domain_check_why(dc));
			ok = 0;
		} else
			d->servername = xstrdup(name);
	}
	if (pins_tls(esc, level, tls, d, err, arg) == -1)
		ok = 0;

	/* The reply data, as a line of Postfix's policy table reads. */
	buf_reset(&b);
	buf_append_str(&b, d->level);
	if (d->match != NULL)
		buf_appendf(&b, " match=%s", d->match);
	if (d->servername != NULL)
		buf_appendf(&b, " servername=%s", d->servername);
	if (d->protocols != NULL)
		buf_appendf(&b, " protocols=%s", d->protocols);
	if (d->ciphers != NULL)
		buf_appendf(&b, " ciphers=%s", d->ciphers);
	if (d->exclude != NULL)
		buf_appendf(&b, " exclude=%s", d->exclude);
	if (b.error) {
		pins_errf(err, arg, NULL, "domain \"%s\": policy longer "
		    "than %d bytes", esc, PINS_MAX_ANSWER);
		ok = 0;
	} else
		d->answer = xmemdup0(b.data, b.len);
	buf_free(&b);
	return (ok ? 0 : -1);
}

enum pins_state
pins_decide_input(const struct config *cf, const char *domain,
    const struct config_domain **dp, struct decide_pin *pin,
    struct decide_input *in)
{
	const struct config_domain *d;

	memset(in, 0, sizeof(*in));
	in->domain = domain;
	if (dp != NULL)
		*dp = NULL;
	if ((d = config_find_domain(cf, domain)) == NULL || d->answer == NULL)
		return (PINS_NONE);
	if (dp != NULL)
		*dp = d;
	/* the hot path's one extra step: a timed exception ends here */
	if (d->end != 0 && pins_state_at(d, clock_wall()) == PINS_LAPSED)
		return (PINS_LAPSED);
	memset(pin, 0, sizeof(*pin));
	pin->status = SOCKMAP_OK;
	pin->data = d->answer;
	pin->len = strlen(d->answer);
	pin->floor_attrs = d->floor_attrs;
	in->pin = pin;
	return (PINS_IN_FORCE);
}

enum pins_state
pins_answer(const struct config *cf, const struct config_map *map,
    const char *domain, struct buf *out, enum sockmap_status *status,
    const struct config_domain **dp)
{
	struct decide_input	 in;
	struct decide_options	 opt;
	struct decide_result	 res;
	struct decide_pin	 pin;
	enum pins_state		 ps;

	if ((ps = pins_decide_input(cf, domain, dp, &pin, &in)) !=
	    PINS_IN_FORCE)
		return (ps);
	facts_decide_options(map, &opt);
	if (decide(&in, &opt, out, &res) == -1) {
		buf_reset(out);
		buf_append_str(out, "pinned policy answer could not be "
		    "formed");
		*status = SOCKMAP_TEMP;
		return (PINS_IN_FORCE);
	}
	*status = res.status;
	return (PINS_IN_FORCE);
}
