/*
 * preload_list.c - strict parser of the EFF STARTTLS Everywhere list
 *
 * The format, its limits and what is refused: preload_list.h.  Two
 * passes over the bytes: pl_dupkeys() finds repeated keys (json-c keeps
 * the last value of a repeated key without a word, and a list that names
 * a domain twice says two things about it), then json-c's strict tokener
 * builds the tree that pl_top() walks.  The duplicate scan runs on text
 * json-c has not seen yet, so it only tracks strings and nesting and
 * gives up on nothing: anything it does not understand is left to json-c,
 * which refuses it.
 *
 * Interface: preload_list_parse(), preload_list_free(),
 * preload_list_find(), preload_list_time(), preload_mode_name().
 * Pure: no I/O, no globals.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/mxmatch.h"
#include "policy/preload_list.h"

/* A parse in progress: the first failure wins. */
struct pl {
	const char	*source;
	char		*why;
	size_t		 whysz;
	int		 failed;
};

/* pl_fail - record the first failure "source: entry: reason"; always -1 */
static int __attribute__((format(printf, 3, 4)))
pl_fail(struct pl *g, const char *entry, const char *fmt, ...)
{
	char	 reason[512];
	va_list	 ap;

	if (g->failed++)
		return (-1);
	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (g->whysz > 0)
		(void)snprintf(g->why, g->whysz, "%s: %s: %s", g->source,
		    entry, reason);
	return (-1);
}

/* pl_show - p[0..len) fit for a message: at most 64 bytes, printable
 * ASCII, anything else as '?' */
static void
pl_show(const char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i, n = 0;

	for (i = 0; i < len && n + 4 < outsz && i < 64; i++)
		out[n++] = (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"') ?
		    p[i] : '?';
	if (i < len && n + 4 <= outsz) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

/* -- pass 1: repeated keys ------------------------------------------- */

struct pl_span {
	size_t	 off, len;
};

/* pl_span_cmp - qsort order of two key spans of one text (set in
 * pl_span_text before each sort: qsort has no context argument) */
static const char *pl_span_text;

static int
pl_span_cmp(const void *a, const void *b)
{
	const struct pl_span *x = a, *y = b;
	size_t	 n = x->len < y->len ? x->len : y->len;
	int	 c = memcmp(pl_span_text + x->off, pl_span_text + y->off, n);

	if (c != 0)
		return (c);
	return (x->len < y->len ? -1 : x->len > y->len);
}

struct pl_frame {
	int	 object;	/* 1: {}, 0: [] */
	int	 want_key;	/* an object's next string is a key */
	size_t	 first;		/* its first key in the span array */
	struct pl_span parent;	/* the key it is the value of */
	int	 has_parent;
};

/* pl_dupkeys_close - sort one object's keys, fail on a repeated one */
static int
pl_dupkeys_close(struct pl *g, const char *p, struct pl_span *k, size_t n,
    const struct pl_frame *f, int depth)
{
	char	 name[80], in[80];
	size_t	 i;

	if (n < 2)
		return (0);
	pl_span_text = p;
	qsort(k, n, sizeof(*k), pl_span_cmp);
	for (i = 1; i < n; i++) {
		if (k[i].len != k[i - 1].len ||
		    memcmp(p + k[i].off, p + k[i - 1].off, k[i].len) != 0)
			continue;
		pl_show(p + k[i].off, k[i].len, name, sizeof(name));
		if (depth == 2 && f->has_parent && f->parent.len == 8 &&
		    memcmp(p + f->parent.off, "policies", 8) == 0)
			return (pl_fail(g, name, "duplicate domain"));
		if (depth == 2 && f->has_parent && f->parent.len == 14 &&
		    memcmp(p + f->parent.off, "policy-aliases", 14) == 0)
			return (pl_fail(g, name, "duplicate alias"));
		if (f->has_parent)
			pl_show(p + f->parent.off, f->parent.len, in,
			    sizeof(in));
		else
			(void)snprintf(in, sizeof(in), "top level");
		return (pl_fail(g, in, "duplicate key \"%s\"", name));
	}
	return (0);
}

/*
 * pl_dupkeys - fail if any object of p[0..len) repeats a key
 *
 * Keys are compared as written; a key with a backslash escape is refused
 * (no key of the format needs one, and "a\u0062" and "ab" would be one
 * key to json-c and two here).  Malformed text is left to json-c: the
 * scan stops without failing where it loses its way.
 */
static int
pl_dupkeys(struct pl *g, const char *p, size_t len)
{
	struct pl_frame	 st[PRELOAD_LIST_DEPTH + 1];
	struct pl_span	*k = NULL, last = { 0, 0 };
	size_t		 nk = 0, ak = 0, i, s;
	int		 depth = 0, have_last = 0, rc = 0, esc;

	for (i = 0; i < len && rc == 0; i++) {
		switch (p[i]) {
		case '"':
			s = ++i;
			esc = 0;
			while (i < len && p[i] != '"') {
				if (p[i] == '\\') {
					esc = 1;
					i++;
				}
				i++;
			}
			if (i >= len)
				goto out;
			if (depth > 0 && st[depth - 1].object &&
			    st[depth - 1].want_key) {
				if (esc) {
					rc = pl_fail(g, depth == 1 ?
					    "top level" : "key",
					    "a key with a backslash escape");
					break;
				}
				if (nk == ak) {
					ak = ak ? ak * 2 : 64;
					k = xreallocarray(k, ak, sizeof(*k));
				}
				k[nk].off = s;
				k[nk].len = i - s;
				last = k[nk++];
				have_last = 1;
				st[depth - 1].want_key = 0;
			}
			break;
		case '{':
		case '[':
			if (depth == PRELOAD_LIST_DEPTH)
				goto out;	/* json-c refuses the depth */
			st[depth].object = p[i] == '{';
			st[depth].want_key = p[i] == '{';
			st[depth].first = nk;
			st[depth].has_parent = depth > 0 &&
			    st[depth - 1].object && have_last;
			st[depth].parent = last;
			have_last = 0;
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0)
				goto out;
			depth--;
			/* k is NULL until the first key: no arithmetic on it */
			if (st[depth].object && nk - st[depth].first >= 2)
				rc = pl_dupkeys_close(g, p, k + st[depth].first,
				    nk - st[depth].first, &st[depth],
				    depth + 1);
			nk = st[depth].first;
			have_last = 0;
			break;
		case ',':
			if (depth > 0 && st[depth - 1].object)
				st[depth - 1].want_key = 1;
			have_last = 0;
			break;
		default:
			break;
		}
	}
out:
	free(k);
	return (rc);
}

/* -- times ----------------------------------------------------------- */

/* pl_digits - n decimal digits at p as a number, or -1 */
static int
pl_digits(const char *p, size_t n)
{
	int	 v = 0;
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return (-1);
		v = v * 10 + (p[i] - '0');
	}
	return (v);
}

/* pl_days - days from 1970-01-01 to y-m-d (proleptic Gregorian) */
static int64_t
pl_days(int64_t y, int m, int d)
{
	int64_t	 era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468);
}

int
preload_list_time(const char *p, size_t len, int64_t *out)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	int	 y, mo, d, h, mi, s, oh, om, sign;
	size_t	 i;

	/* RFC 3339 §5.6: full-date "T" partial-time time-offset */
	if (len < 20 || p[4] != '-' || p[7] != '-' || p[13] != ':' ||
	    p[16] != ':' || (p[10] != 'T' && p[10] != 't' && p[10] != ' '))
		return (-1);
	if ((y = pl_digits(p, 4)) < 0 || (mo = pl_digits(p + 5, 2)) < 1 ||
	    mo > 12 || (d = pl_digits(p + 8, 2)) < 1 || d > mdays[mo - 1] ||
	    (h = pl_digits(p + 11, 2)) < 0 || h > 23 ||
	    (mi = pl_digits(p + 14, 2)) < 0 || mi > 59 ||
	    (s = pl_digits(p + 17, 2)) < 0 || s > 60)
		return (-1);
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 ||
	    y % 400 == 0)))
		return (-1);
	i = 19;
	if (i < len && p[i] == '.') {
		/* time-secfrac: at least one digit; dropped */
		if (++i >= len || p[i] < '0' || p[i] > '9')
			return (-1);
		while (i < len && p[i] >= '0' && p[i] <= '9' && i < 40)
			i++;
	}
	if (i + 1 == len && (p[i] == 'Z' || p[i] == 'z'))
		oh = om = sign = 0;
	else if (i + 6 == len && (p[i] == '+' || p[i] == '-') &&
	    p[i + 3] == ':') {
		sign = p[i] == '-' ? -1 : 1;
		if ((oh = pl_digits(p + i + 1, 2)) < 0 || oh > 23 ||
		    (om = pl_digits(p + i + 4, 2)) < 0 || om > 59)
			return (-1);
	} else
		return (-1);
	if (s == 60)
		s = 59;		/* a leap second: the second before it */
	*out = pl_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s -
	    sign * (oh * 3600 + om * 60);
	return (0);
}

/* -- pass 2: the tree ------------------------------------------------ */

/* pl_time - a timestamp property: RFC 3339 string or integer epoch */
static int
pl_time(struct pl *g, struct json_object *v, const char *name, int64_t *out)
{
	const char	*s;
	char		 shown[80];

	if (json_object_is_type(v, json_type_int)) {
		errno = 0;
		*out = json_object_get_int64(v);
		if (errno != 0 || *out < 0 || *out > INT64_C(253402300799))
			return (pl_fail(g, name, "out of range"));
		return (0);
	}
	if (!json_object_is_type(v, json_type_string))
		return (pl_fail(g, name, "not a string or an integer"));
	s = json_object_get_string(v);
	if (preload_list_time(s, (size_t)json_object_get_string_len(v),
	    out) != 0) {
		pl_show(s, (size_t)json_object_get_string_len(v), shown,
		    sizeof(shown));
		return (pl_fail(g, name, "\"%s\" is not an RFC 3339 date-time "
		    "with an offset", shown));
	}
	return (0);
}

/* An entry as written: mode and mxs, or an alias name. */
struct pl_def {
	const char	*alias;		/* NULL: mode and mx */
	enum preload_mode mode;
	size_t		 nmx;
	char		*mx;
	size_t		 mxlen;
};

/* pl_mx - one mxs element: a host name or ".suffix", appended to d */
static int
pl_mx(struct pl *g, const char *entry, size_t idx, struct json_object *v,
    struct pl_def *d)
{
	char		 pat[MXMATCH_PATTERN_BUFSZ], lower[DOMAIN_BUFSZ];
	char		 shown[80], where[DOMAIN_BUFSZ + 80];
	const char	*s;
	size_t		 len, off = 0;
	enum domain_check c;

	(void)snprintf(where, sizeof(where), "%s: mxs[%zu]", entry, idx);
	if (!json_object_is_type(v, json_type_string))
		return (pl_fail(g, where, "not a string"));
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	pl_show(s, len, shown, sizeof(shown));
	if (memchr(s, '*', len) != NULL)
		return (pl_fail(g, where, "\"%s\": a wildcard is written as "
		    "one leading dot (\".example.com\")", shown));
	if (len > 0 && s[0] == '.')
		off = 1;
	c = domain_check(s + off, len - off, 0, 2, lower);
	if (c != DOMAIN_CHECK_OK)
		return (pl_fail(g, where, "\"%s\" is not a host name%s: %s",
		    shown, off ? " suffix" : "", domain_check_why(c)));
	(void)snprintf(pat, sizeof(pat), "%s%s", off ? "*." : "", lower);
	if (!mxmatch_pattern_check(pat, strlen(pat)))
		return (pl_fail(g, where, "\"%s\" is not an mx pattern",
		    shown));
	len = strlen(pat) + 1;
	d->mx = xreallocarray(d->mx, d->mxlen + len, 1);
	memcpy(d->mx + d->mxlen, pat, len);
	d->mxlen += len;
	d->nmx++;
	return (0);
}

/* pl_def - a policy or an alias definition: {mode, mxs} or
 * {policy-alias} and nothing else */
static int
pl_def(struct pl *g, const char *entry, struct json_object *o,
    struct pl_def *d)
{
	struct json_object *mode = NULL, *mxs = NULL, *alias = NULL, *e;
	const char	*s;
	size_t		 i, n;

	memset(d, 0, sizeof(*d));
	if (!json_object_is_type(o, json_type_object))
		return (pl_fail(g, entry, "not an object"));
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "mode") == 0)
			mode = val;
		else if (strcmp(key, "mxs") == 0)
			mxs = val;
		else if (strcmp(key, "policy-alias") == 0)
			alias = val;
		else {
			char	 shown[80];

			pl_show(key, strlen(key), shown, sizeof(shown));
			return (pl_fail(g, entry, "unknown property \"%s\"",
			    shown));
		}
	}
	if (alias != NULL) {
		if (mode != NULL || mxs != NULL)
			return (pl_fail(g, entry, "\"policy-alias\" with "
			    "\"%s\"", mode != NULL ? "mode" : "mxs"));
		if (!json_object_is_type(alias, json_type_string) ||
		    json_object_get_string_len(alias) == 0)
			return (pl_fail(g, entry, "policy-alias: not a "
			    "non-empty string"));
		d->alias = json_object_get_string(alias);
		return (0);
	}
	if (mode == NULL || mxs == NULL)
		return (pl_fail(g, entry, "no \"%s\"", mode == NULL ? "mode" :
		    "mxs"));
	if (!json_object_is_type(mode, json_type_string))
		return (pl_fail(g, entry, "mode: not a string"));
	s = json_object_get_string(mode);
	if (strcmp(s, "enforce") == 0)
		d->mode = PRELOAD_ENFORCE;
	else if (strcmp(s, "testing") == 0)
		d->mode = PRELOAD_TESTING;
	else {
		char	 shown[80];

		pl_show(s, (size_t)json_object_get_string_len(mode), shown,
		    sizeof(shown));
		return (pl_fail(g, entry, "mode: \"%s\" is neither \"testing\" "
		    "nor \"enforce\"", shown));
	}
	if (!json_object_is_type(mxs, json_type_array))
		return (pl_fail(g, entry, "mxs: not an array"));
	n = json_object_array_length(mxs);
	if (n == 0)
		return (pl_fail(g, entry, "mxs: empty"));
	if (n > PRELOAD_LIST_MAX_MXS)
		return (pl_fail(g, entry, "mxs: more than %d",
		    PRELOAD_LIST_MAX_MXS));
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(mxs, i);
		if (pl_mx(g, entry, i, e, d) != 0)
			return (-1);
	}
	return (0);
}

/* pl_alias_name - an alias name fit for keys and messages */
static int
pl_alias_name(struct pl *g, const char *entry, const char *name)
{
	size_t	 i, len = strlen(name);

	if (len == 0 || len > PRELOAD_LIST_MAX_NAME)
		return (pl_fail(g, entry, "alias name of %zu bytes (1..%d)",
		    len, PRELOAD_LIST_MAX_NAME));
	for (i = 0; i < len; i++)
		if (name[i] <= 0x20 || name[i] >= 0x7f)
			return (pl_fail(g, entry, "alias name with a blank, "
			    "control or non-ASCII byte"));
	return (0);
}

/* pl_resolve - follow d's aliases to a definition with mode and mxs */
static int
pl_resolve(struct pl *g, const char *entry, const struct pl_def *d,
    const struct pl_def *defs, const char **names, size_t nalias,
    const struct pl_def **out)
{
	const struct pl_def *cur = d;
	const char	*name;
	char		 shown[80];
	size_t		 hops, i;

	for (hops = 0; cur->alias != NULL; hops++) {
		name = cur->alias;
		pl_show(name, strlen(name), shown, sizeof(shown));
		if (hops == PRELOAD_LIST_ALIAS_HOPS)
			return (pl_fail(g, entry, "alias loop through \"%s\"",
			    shown));
		for (i = 0; i < nalias; i++)
			if (strcmp(names[i], name) == 0)
				break;
		if (i == nalias)
			return (pl_fail(g, entry, "policy-alias \"%s\" is not "
			    "defined", shown));
		cur = &defs[i];
	}
	*out = cur;
	return (0);
}

/* pl_entry_cmp - qsort/bsearch order of entries: by domain */
static int
pl_entry_cmp(const void *a, const void *b)
{
	const struct preload_entry *x = a, *y = b;

	return (strcmp(x->domain, y->domain));
}

/* pl_top - the top-level object into l */
static int
pl_top(struct pl *g, struct json_object *o, struct preload_list *l)
{
	struct json_object *ts = NULL, *ex = NULL, *ver = NULL, *au = NULL;
	struct json_object *al = NULL, *po = NULL;
	struct pl_def	*defs = NULL, d;
	const struct pl_def *r;
	const char	**names = NULL;
	char		 entry[DOMAIN_BUFSZ + 96], shown[80];
	size_t		 nalias = 0, i, n;
	int		 rc = -1;
	enum domain_check c;

	if (!json_object_is_type(o, json_type_object))
		return (pl_fail(g, "top level", "not an object"));
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "timestamp") == 0)
			ts = val;
		else if (strcmp(key, "expires") == 0)
			ex = val;
		else if (strcmp(key, "version") == 0)
			ver = val;
		else if (strcmp(key, "author") == 0)
			au = val;
		else if (strcmp(key, "policy-aliases") == 0)
			al = val;
		else if (strcmp(key, "policies") == 0)
			po = val;
		else {
			pl_show(key, strlen(key), shown, sizeof(shown));
			return (pl_fail(g, "top level", "unknown property "
			    "\"%s\"", shown));
		}
	}
	if (ts == NULL || ex == NULL || ver == NULL || po == NULL)
		return (pl_fail(g, "top level", "no \"%s\"", ts == NULL ?
		    "timestamp" : ex == NULL ? "expires" : ver == NULL ?
		    "version" : "policies"));
	if (!json_object_is_type(ver, json_type_string) ||
	    strcmp(json_object_get_string(ver), "0.1") != 0)
		return (pl_fail(g, "version", "not \"0.1\""));
	if (pl_time(g, ts, "timestamp", &l->timestamp) != 0 ||
	    pl_time(g, ex, "expires", &l->expires) != 0)
		return (-1);
	if (l->expires <= l->timestamp)
		return (pl_fail(g, "expires", "not after the timestamp"));
	if (au != NULL) {
		if (!json_object_is_type(au, json_type_string))
			return (pl_fail(g, "author", "not a string"));
		pl_show(json_object_get_string(au),
		    (size_t)json_object_get_string_len(au), l->author,
		    sizeof(l->author));
	}
	if (al != NULL) {
		if (!json_object_is_type(al, json_type_object))
			return (pl_fail(g, "policy-aliases", "not an object"));
		n = (size_t)json_object_object_length(al);
		if (n > PRELOAD_LIST_MAX_ALIASES)
			return (pl_fail(g, "policy-aliases", "more than %d",
			    PRELOAD_LIST_MAX_ALIASES));
		defs = xcalloc(n > 0 ? n : 1, sizeof(*defs));
		names = xcalloc(n > 0 ? n : 1, sizeof(*names));
		json_object_object_foreach(al, akey, aval) {
			pl_show(akey, strlen(akey), shown, sizeof(shown));
			(void)snprintf(entry, sizeof(entry), "alias %s", shown);
			if (pl_alias_name(g, entry, akey) != 0 ||
			    pl_def(g, entry, aval, &defs[nalias]) != 0) {
				nalias++;
				goto out;
			}
			names[nalias++] = akey;
		}
		/* every alias must lead somewhere: a loop among aliases no
		 * domain uses is an error in the list all the same */
		for (i = 0; i < nalias; i++) {
			pl_show(names[i], strlen(names[i]), shown,
			    sizeof(shown));
			(void)snprintf(entry, sizeof(entry), "alias %s", shown);
			if (pl_resolve(g, entry, &defs[i], defs, names,
			    nalias, &r) != 0)
				goto out;
		}
	}
	if (!json_object_is_type(po, json_type_object)) {
		pl_fail(g, "policies", "not an object");
		goto out;
	}
	n = (size_t)json_object_object_length(po);
	if (n > PRELOAD_LIST_MAX_ENTRIES) {
		pl_fail(g, "policies", "more than %d domains",
		    PRELOAD_LIST_MAX_ENTRIES);
		goto out;
	}
	l->e = xcalloc(n > 0 ? n : 1, sizeof(*l->e));
	json_object_object_foreach(po, dkey, dval) {
		struct preload_entry *e = &l->e[l->n];

		pl_show(dkey, strlen(dkey), shown, sizeof(shown));
		c = domain_check(dkey, strlen(dkey), 0, 2, e->domain);
		if (c != DOMAIN_CHECK_OK) {
			pl_fail(g, shown, "not a domain: %s",
			    domain_check_why(c));
			goto out;
		}
		if (pl_def(g, e->domain, dval, &d) != 0) {
			free(d.mx);
			goto out;
		}
		if (pl_resolve(g, e->domain, &d, defs, names, nalias,
		    &r) != 0) {
			free(d.mx);
			goto out;
		}
		e->mode = r->mode;
		e->nmx = r->nmx;
		e->mxlen = r->mxlen;
		e->mx = xmalloc(r->mxlen);
		memcpy(e->mx, r->mx, r->mxlen);
		free(d.mx);
		l->n++;
	}
	qsort(l->e, l->n, sizeof(*l->e), pl_entry_cmp);
	/* the keys differ as written; in lower case two may not */
	for (i = 1; i < l->n; i++)
		if (strcmp(l->e[i].domain, l->e[i - 1].domain) == 0) {
			pl_fail(g, l->e[i].domain, "duplicate domain (case)");
			goto out;
		}
	rc = 0;
out:
	for (i = 0; i < nalias; i++)
		free(defs[i].mx);
	free(defs);
	free(names);
	return (rc);
}

struct preload_list *
preload_list_parse(const char *source, const char *p, size_t len, char *why,
    size_t whysz)
{
	struct pl	 g = { source, why, whysz, 0 };
	struct preload_list *l;
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t		 end;

	if (whysz > 0)
		why[0] = '\0';
	if (len > PRELOAD_LIST_MAX) {
		pl_fail(&g, "list", "%zu bytes, more than %d", len,
		    PRELOAD_LIST_MAX);
		return (NULL);
	}
	/* json-c reads a NUL as the end of the text: none may hide there */
	if (len == 0 || memchr(p, '\0', len) != NULL) {
		pl_fail(&g, "list", len == 0 ? "empty" : "a NUL byte");
		return (NULL);
	}
	if (pl_dupkeys(&g, p, len) != 0)
		return (NULL);
	if ((tok = json_tokener_new_ex(PRELOAD_LIST_DEPTH)) == NULL)
		fatalx("preload: out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, p, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || jerr != json_tokener_success) {
		pl_fail(&g, "list", "not valid JSON: %s (at byte %zu)",
		    jerr == json_tokener_continue ? "truncated" :
		    json_tokener_error_desc(jerr), end);
		json_object_put(o);
		return (NULL);
	}
	while (end < len && strchr(" \t\r\n", p[end]) != NULL)
		end++;
	if (end != len) {
		pl_fail(&g, "list", "bytes after the JSON object");
		json_object_put(o);
		return (NULL);
	}
	l = xcalloc(1, sizeof(*l));
	if (pl_top(&g, o, l) != 0) {
		preload_list_free(l);
		l = NULL;
	}
	json_object_put(o);
	return (l);
}

void
preload_list_free(struct preload_list *l)
{
	size_t	 i;

	if (l == NULL)
		return;
	if (l->e != NULL)
		for (i = 0; i < l->n; i++)
			free(l->e[i].mx);
	free(l->e);
	free(l);
}

const struct preload_entry *
preload_list_find(const struct preload_list *l, const char *domain)
{
	struct preload_entry key;

	if (l == NULL || l->n == 0 || strlen(domain) > DOMAIN_MAX_LEN)
		return (NULL);
	memset(&key, 0, sizeof(key));
	(void)snprintf(key.domain, sizeof(key.domain), "%s", domain);
	return (bsearch(&key, l->e, l->n, sizeof(*l->e), pl_entry_cmp));
}

const char *
preload_mode_name(enum preload_mode m)
{
	return (m == PRELOAD_ENFORCE ? "enforce" : m == PRELOAD_TESTING ?
	    "testing" : "?");
}
