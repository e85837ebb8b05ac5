/*
 * history.c - policy events: which ones a merge gives, one JSON line each
 *
 * NAME
 *	history - the record of every policy seen (issue 38)
 * DESCRIPTION
 *	The rules (the kinds, "another provider", the line format) are in
 *	history.h.  Everything here is pure: the resolver hands the records
 *	and the time in, and writes the lines (daemon/resolver_history.c);
 *	postsmtpsts-cache history reads them back with history_parse().
 *	JSON through json-c both ways: its writer escapes, its strict
 *	tokener (depth HISTORY_DEPTH, UTF-8 checked) reads.
 * LIMITS
 *	A line is at most HISTORY_LINE_MAX bytes with its newline; mx
 *	lists that would pass it are left out (mx_omitted).  Strings read
 *	back are checked against the limits they were written with.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <json-c/json.h>

#include "lib/cache_record.h"
#include "lib/domain.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/history.h"
#include "policy/sts_policy.h"

#define HISTORY_DEPTH	3	/* object, array, string */
#define HISTORY_MAX_MX	1000	/* patterns read back per list */

static const char *const history_kinds[HISTORY_KIND_COUNT] = {
	"first-seen", "id-changed", "mode-changed", "mode-downgraded",
	"mx-changed", "mx-provider-changed", "expired", "dane-appeared",
	"dane-disappeared", "downgrade-refused", "preload-overridden",
};

static const char *const history_sources[HISTORY_SOURCE_COUNT] = {
	"fetch", "dns", "preload",
};

static const char *const history_modes[] = { "none", "testing", "enforce" };

/* second-level labels under a country code that registries sell below */
static const char *const history_sld[] = {
	"co", "com", "net", "org", "edu", "gov", "ac", "ne", "or", "go",
	"ltd", "plc", "mil", "nom",
};

const char *
history_kind_name(enum history_kind k)
{
	if ((unsigned)k >= HISTORY_KIND_COUNT)
		return (NULL);
	return (history_kinds[k]);
}

int
history_kind_value(const char *name, size_t len)
{
	int	 i;

	for (i = 0; i < HISTORY_KIND_COUNT; i++)
		if (strlen(history_kinds[i]) == len &&
		    memcmp(history_kinds[i], name, len) == 0)
			return (i);
	return (-1);
}

const char *
history_source_name(enum history_source s)
{
	if ((unsigned)s >= HISTORY_SOURCE_COUNT)
		return ("fetch");
	return (history_sources[s]);
}

int
history_kind_alert(enum history_kind k)
{
	return (k == HISTORY_MODE_DOWNGRADED ||
	    k == HISTORY_MX_PROVIDER_CHANGED ||
	    k == HISTORY_DANE_DISAPPEARED || k == HISTORY_DOWNGRADE_REFUSED);
}

void
history_event_init(struct history_event *ev, enum history_kind kind,
    enum history_source source, const char *domain, int64_t now)
{
	ev->kind = kind;
	ev->source = source;
	ev->time = now;
	snprintf(ev->domain, sizeof(ev->domain), "%s", domain);
	ev->trigger[0] = ev->old_id[0] = ev->id[0] = ev->sha256[0] = '\0';
	ev->old_mode = ev->mode = -1;
	ev->has_mx = ev->mx_omitted = 0;
	ev->old_mx[0] = ev->mx[0] = '\0';
	ev->old_dane = ev->dane = -1;
	ev->expired_at = 0;
	ev->detail[0] = '\0';
}

size_t
history_mx_provider(const char *p, size_t len, size_t *keylen)
{
	size_t	 dots[3], ndots = 0, i, off, tld, sld, j;

	if (len >= 2 && p[0] == '*' && p[1] == '.') {
		p += 2;
		len -= 2;
		off = 2;
	} else
		off = 0;
	while (len > 0 && p[len - 1] == '.')
		len--;
	/* the last three dots, from the end */
	for (i = len; i > 0 && ndots < 3; i--)
		if (p[i - 1] == '.')
			dots[ndots++] = i - 1;
	if (ndots < 2) {
		*keylen = len;
		return (off);
	}
	tld = len - dots[0] - 1;
	sld = dots[0] - dots[1] - 1;
	if (tld == 2 && ndots >= 2) {
		for (j = 0; j < sizeof(history_sld) / sizeof(history_sld[0]);
		    j++)
			if (strlen(history_sld[j]) == sld &&
			    strncasecmp(history_sld[j], p + dots[1] + 1,
			    sld) == 0)
				break;
		if (j < sizeof(history_sld) / sizeof(history_sld[0])) {
			/* three labels, or the whole name if it has three */
			if (ndots == 2) {
				*keylen = len;
				return (off);
			}
			*keylen = len - dots[2] - 1;
			return (off + dots[2] + 1);
		}
	}
	*keylen = len - dots[1] - 1;
	return (off + dots[1] + 1);
}

/* history_has_key - 1 if some pattern of rec has provider key k[0..kl) */
static int
history_has_key(const struct cache_record *rec, const char *k, size_t kl)
{
	const char	*mx;
	size_t		 pos = 0, len, off, ml;

	while ((mx = cache_record_mx_next(rec, &pos, &len)) != NULL) {
		off = history_mx_provider(mx, len, &ml);
		if (ml == kl && strncasecmp(mx + off, k, kl) == 0)
			return (1);
	}
	return (0);
}

int
history_mx_moved(const struct cache_record *a, const struct cache_record *b)
{
	const char	*mx;
	size_t		 pos = 0, len, off, kl;

	if (a->nmx == 0 || b->nmx == 0)
		return (0);
	while ((mx = cache_record_mx_next(a, &pos, &len)) != NULL) {
		off = history_mx_provider(mx, len, &kl);
		if (history_has_key(b, mx + off, kl))
			return (0);
	}
	return (1);
}

/* history_mx_in - 1 if pattern p[0..len) is one of rec's */
static int
history_mx_in(const struct cache_record *rec, const char *p, size_t len)
{
	const char	*mx;
	size_t		 pos = 0, ml;

	while ((mx = cache_record_mx_next(rec, &pos, &ml)) != NULL)
		if (ml == len && strncasecmp(mx, p, len) == 0)
			return (1);
	return (0);
}

/* history_mx_sub - 1 if every pattern of a is one of b's */
static int
history_mx_sub(const struct cache_record *a, const struct cache_record *b)
{
	const char	*mx;
	size_t		 pos = 0, len;

	while ((mx = cache_record_mx_next(a, &pos, &len)) != NULL)
		if (!history_mx_in(b, mx, len))
			return (0);
	return (1);
}

int
history_mx_same(const struct cache_record *a, const struct cache_record *b)
{
	return (history_mx_sub(a, b) && history_mx_sub(b, a));
}

/* history_mx_join - rec's patterns comma-joined into out[outsz]; 0, or -1
 * (out then holds those that fitted) */
static int
history_mx_join(const struct cache_record *rec, char *out, size_t outsz)
{
	const char	*mx;
	size_t		 pos = 0, len, n = 0;

	out[0] = '\0';
	while ((mx = cache_record_mx_next(rec, &pos, &len)) != NULL) {
		if (n + (n > 0) + len + 1 > outsz)
			return (-1);
		if (n > 0)
			out[n++] = ',';
		memcpy(out + n, mx, len);
		n += len;
		out[n] = '\0';
	}
	return (0);
}

/* history_set_mx - the lists of old (may be NULL) and cur into ev */
static void
history_set_mx(struct history_event *ev, const struct cache_record *old,
    const struct cache_record *cur)
{
	ev->has_mx = 1;
	ev->old_mx[0] = '\0';
	if ((old != NULL && history_mx_join(old, ev->old_mx,
	    sizeof(ev->old_mx)) == -1) ||
	    history_mx_join(cur, ev->mx, sizeof(ev->mx)) == -1) {
		ev->has_mx = 0;
		ev->mx_omitted = 1;
	}
}

/* history_sha256 - the SHA-256 of the fetched body as hex into ev */
static void
history_sha256(struct history_event *ev, const struct discover_result *res)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char	 d[32];
	size_t		 i;

	ev->sha256[0] = '\0';
	if (res == NULL || res->policy_text == NULL ||
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, res->policy_text,
	    res->policy_len, d) != 0)
		return;
	for (i = 0; i < sizeof(d); i++) {
		ev->sha256[2 * i] = hex[d[i] >> 4];
		ev->sha256[2 * i + 1] = hex[d[i] & 15];
	}
	ev->sha256[HISTORY_SHA256_HEX] = '\0';
}

/* history_mode_rank - an enum sts_mode as an enum cache_sts_mode */
static int
history_mode_rank(enum sts_mode m)
{
	return (m == STS_MODE_ENFORCE ? CACHE_STS_ENFORCE :
	    m == STS_MODE_TESTING ? CACHE_STS_TESTING : CACHE_STS_NONE);
}

/* history_sts_base - ev for kind with what every STS event carries */
static void
history_sts_base(struct history_event *ev, enum history_kind kind,
    const char *domain, const struct cache_record *old,
    const struct discover_result *res, const char *trigger, int64_t now)
{
	history_event_init(ev, kind, HISTORY_SOURCE_FETCH, domain, now);
	snprintf(ev->trigger, sizeof(ev->trigger), "%s",
	    trigger != NULL ? trigger : "");
	if (old != NULL && old->kind == CACHE_KIND_STS) {
		snprintf(ev->old_id, sizeof(ev->old_id), "%s", old->id);
		ev->old_mode = old->sts_mode;
	}
	if (res != NULL && res->id != NULL)
		snprintf(ev->id, sizeof(ev->id), "%s", res->id);
	history_sha256(ev, res);
}

int
history_sts_events(const char *domain, const struct cache_record *old,
    const struct discover_result *res, const struct cache_record *stored,
    int refused, const char *trigger, int64_t now, struct history_event *ev,
    history_emit_fn *fn, void *arg)
{
	const struct cache_record *o;
	int		 n = 0, replaced;

	o = old != NULL && old->kind == CACHE_KIND_STS ? old : NULL;
	if (refused && o != NULL && res->outcome == DISCOVER_POLICY) {
		history_sts_base(ev, HISTORY_DOWNGRADE_REFUSED, domain, o, res,
		    trigger, now);
		ev->mode = history_mode_rank(res->policy->mode);
		fn(ev, arg);
		return (1);
	}
	/* a policy fetched now and stored: facts_merge() stamps it */
	replaced = res->outcome == DISCOVER_POLICY &&
	    stored->kind == CACHE_KIND_STS && stored->fetched_at == now;
	if (o != NULL && now >= o->expires_at &&
	    (replaced || stored->kind != CACHE_KIND_STS)) {
		history_sts_base(ev, HISTORY_EXPIRED, domain, o,
		    replaced ? res : NULL, trigger, now);
		if (!replaced)
			ev->id[0] = '\0';
		ev->expired_at = o->expires_at;
		fn(ev, arg);
		n++;
	}
	if (!replaced)
		return (n);
	if (o == NULL) {
		history_sts_base(ev, HISTORY_FIRST_SEEN, domain, NULL, res,
		    trigger, now);
		ev->mode = stored->sts_mode;
		history_set_mx(ev, NULL, stored);
		fn(ev, arg);
		return (n + 1);
	}
	if (strcmp(o->id, stored->id) != 0) {
		history_sts_base(ev, HISTORY_ID_CHANGED, domain, o, res,
		    trigger, now);
		ev->mode = stored->sts_mode;
		fn(ev, arg);
		n++;
	}
	if (o->sts_mode != stored->sts_mode) {
		history_sts_base(ev, o->sts_mode == CACHE_STS_ENFORCE ?
		    HISTORY_MODE_DOWNGRADED : HISTORY_MODE_CHANGED, domain, o,
		    res, trigger, now);
		ev->mode = stored->sts_mode;
		fn(ev, arg);
		n++;
	}
	if (!history_mx_same(o, stored)) {
		history_sts_base(ev, history_mx_moved(o, stored) ?
		    HISTORY_MX_PROVIDER_CHANGED : HISTORY_MX_CHANGED, domain,
		    o, res, trigger, now);
		ev->mode = stored->sts_mode;
		history_set_mx(ev, o, stored);
		fn(ev, arg);
		n++;
	}
	return (n);
}

/* history_dane_has - DANE records of a state: usable TLSA, or TLSA that
 * require TLS (RFC 7672 §2.2) */
static int
history_dane_has(int state)
{
	return (state == DANE_ALL || state == DANE_SOME || state == DANE_TLS ||
	    state == DANE_TLS_SOME);
}

int
history_dane_events(const char *domain, const struct cache_record *old,
    const struct cache_record *stored, const char *trigger, int64_t now,
    struct history_event *ev, history_emit_fn *fn, void *arg)
{
	int	 had, has, kind;

	if (stored->kind != CACHE_KIND_DANE || stored->fetched_at != now)
		return (0);	/* kept over a failure: nothing new */
	if (old != NULL && old->kind != CACHE_KIND_DANE)
		old = NULL;
	had = old != NULL && history_dane_has(old->dane);
	has = history_dane_has(stored->dane);
	if (has && !had)
		kind = HISTORY_DANE_APPEARED;
	else if (had && stored->dane == DANE_NONE)
		kind = HISTORY_DANE_DISAPPEARED;
	else
		return (0);
	history_event_init(ev, (enum history_kind)kind, HISTORY_SOURCE_DNS,
	    domain, now);
	snprintf(ev->trigger, sizeof(ev->trigger), "%s",
	    trigger != NULL ? trigger : "");
	ev->old_dane = old != NULL ? old->dane : -1;
	ev->dane = stored->dane;
	fn(ev, arg);
	return (1);
}

void
history_expired_event(struct history_event *ev, const char *domain,
    const struct cache_record *rec, const char *trigger, int64_t now)
{
	history_sts_base(ev, HISTORY_EXPIRED, domain, rec, NULL, trigger,
	    now);
	ev->expired_at = rec->expires_at;
}

void
history_preload_event(struct history_event *ev, const char *domain,
    const struct cache_record *pre, const struct cache_record *found,
    const struct discover_result *res, const char *trigger,
    const char *detail, int64_t now)
{
	size_t	 i;

	history_event_init(ev, HISTORY_PRELOAD_OVERRIDDEN,
	    HISTORY_SOURCE_PRELOAD, domain, now);
	snprintf(ev->trigger, sizeof(ev->trigger), "%s",
	    trigger != NULL ? trigger : "");
	if (pre != NULL && pre->kind == CACHE_KIND_STS)
		ev->old_mode = pre->sts_mode;	/* a list entry has no id */
	if (found != NULL && found->kind == CACHE_KIND_STS) {
		snprintf(ev->id, sizeof(ev->id), "%s", found->id);
		ev->mode = found->sts_mode;
	}
	if (pre != NULL && found != NULL)
		history_set_mx(ev, pre, found);
	history_sha256(ev, res);
	snprintf(ev->detail, sizeof(ev->detail), "%s",
	    detail != NULL ? detail : "");
	for (i = 0; ev->detail[i] != '\0'; i++)
		if ((unsigned char)ev->detail[i] < 0x20 ||
		    (unsigned char)ev->detail[i] > 0x7e)
			ev->detail[i] = '?';
}

int
history_event_alert(const struct history_event *ev)
{
	if (ev->kind == HISTORY_PRELOAD_OVERRIDDEN)
		return (ev->old_mode == CACHE_STS_ENFORCE && ev->mode >= 0 &&
		    ev->mode < CACHE_STS_ENFORCE);
	return (history_kind_alert(ev->kind));
}

/* history_str - s as a JSON string, or null when empty */
static struct json_object *
history_str(const char *s)
{
	return (s[0] != '\0' ? json_object_new_string(s) : NULL);
}

/* history_list - a comma-joined list as a JSON array */
static struct json_object *
history_list(const char *s)
{
	struct json_object *a = json_object_new_array();
	const char	*c;

	while (a != NULL && *s != '\0') {
		c = strchr(s, ',');
		json_object_array_add(a, json_object_new_string_len(s,
		    c != NULL ? (int)(c - s) : (int)strlen(s)));
		s = c != NULL ? c + 1 : s + strlen(s);
	}
	return (a);
}

/* history_render - ev (with or without its lists) as text into out */
static int
history_render(const struct history_event *ev, int with_mx, char *out,
    size_t outsz)
{
	struct json_object *o;
	const char	*s;
	char		 t[32];
	struct tm	 tm;
	time_t		 tt = (time_t)ev->time;
	size_t		 len;
	int		 rv = -1;

	if (ev->time < 0 || ev->time > HISTORY_TIME_MAX ||
	    gmtime_r(&tt, &tm) == NULL ||
	    strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return (-1);
	if ((o = json_object_new_object()) == NULL)
		return (-1);
	json_object_object_add(o, "time", json_object_new_string(t));
	json_object_object_add(o, "ts", json_object_new_int64(ev->time));
	json_object_object_add(o, "domain", json_object_new_string(ev->domain));
	json_object_object_add(o, "event",
	    json_object_new_string(history_kind_name(ev->kind)));
	json_object_object_add(o, "source",
	    json_object_new_string(history_source_name(ev->source)));
	if (ev->trigger[0] != '\0')
		json_object_object_add(o, "trigger",
		    json_object_new_string(ev->trigger));
	json_object_object_add(o, "old_id", history_str(ev->old_id));
	json_object_object_add(o, "id", history_str(ev->id));
	json_object_object_add(o, "sha256", history_str(ev->sha256));
	if (ev->old_mode >= 0 && ev->old_mode <= CACHE_STS_ENFORCE)
		json_object_object_add(o, "old_mode",
		    json_object_new_string(history_modes[ev->old_mode]));
	if (ev->mode >= 0 && ev->mode <= CACHE_STS_ENFORCE)
		json_object_object_add(o, "mode",
		    json_object_new_string(history_modes[ev->mode]));
	if (ev->has_mx && with_mx) {
		json_object_object_add(o, "old_mx", history_list(ev->old_mx));
		json_object_object_add(o, "mx", history_list(ev->mx));
	} else if (ev->has_mx || ev->mx_omitted)
		json_object_object_add(o, "mx_omitted",
		    json_object_new_boolean(1));
	if (ev->old_dane >= 0 && ev->old_dane <= DANE_STATE_MAX)
		json_object_object_add(o, "old_dane", json_object_new_string(
		    dane_state_name((enum dane_state)ev->old_dane)));
	if (ev->dane >= 0 && ev->dane <= DANE_STATE_MAX)
		json_object_object_add(o, "dane", json_object_new_string(
		    dane_state_name((enum dane_state)ev->dane)));
	if (ev->expired_at != 0)
		json_object_object_add(o, "expired_at",
		    json_object_new_int64(ev->expired_at));
	if (ev->detail[0] != '\0')
		json_object_object_add(o, "detail",
		    json_object_new_string(ev->detail));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s != NULL && (len = strlen(s)) + 1 < HISTORY_LINE_MAX &&
	    len + 2 <= outsz) {
		memcpy(out, s, len);
		out[len] = '\n';
		out[len + 1] = '\0';
		rv = (int)len + 1;
	}
	json_object_put(o);
	return (rv);
}

int
history_format(const struct history_event *ev, char *out, size_t outsz)
{
	int	 rv;

	if (history_kind_name(ev->kind) == NULL)
		return (-1);
	if ((rv = history_render(ev, 1, out, outsz)) == -1 && ev->has_mx)
		rv = history_render(ev, 0, out, outsz);
	return (rv);
}

/* history_get_str - optional string member key of o into out[outsz]
 * (printable ASCII, shorter than outsz; null: ""); -1 if bad */
static int
history_get_str(struct json_object *o, const char *key, char *out,
    size_t outsz, int required)
{
	struct json_object *v;
	const char	*s;
	size_t		 len, i;

	out[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return (required ? -1 : 0);	/* absent or null */
	if (!json_object_is_type(v, json_type_string))
		return (-1);
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len >= outsz)
		return (-1);
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return (-1);
	memcpy(out, s, len);
	out[len] = '\0';
	return (0);
}

/* history_get_enum - optional string member: its index in names[n]; -1 if
 * absent, -2 if bad */
static int
history_get_enum(struct json_object *o, const char *key,
    const char *(*name)(int), int n)
{
	char	 s[32];
	int	 i;

	if (history_get_str(o, key, s, sizeof(s), 0) == -1)
		return (-2);
	if (s[0] == '\0')
		return (-1);	/* absent or null */
	for (i = 0; i < n; i++)
		if (strcmp(name(i), s) == 0)
			return (i);
	return (-2);
}

static const char *
history_mode_label(int i)
{
	return (history_modes[i]);
}

static const char *
history_dane_label(int i)
{
	return (dane_state_name((enum dane_state)i));
}

static const char *
history_source_label(int i)
{
	return (history_sources[i]);
}

/* history_get_list - optional array of mx patterns key of o, comma-joined
 * into out[outsz]; 1 if present, 0 if absent, -1 if bad */
static int
history_get_list(struct json_object *o, const char *key, char *out,
    size_t outsz)
{
	struct json_object *a, *e;
	const char	*s;
	size_t		 n, i, len, pos = 0;

	out[0] = '\0';
	if (!json_object_object_get_ex(o, key, &a))
		return (0);
	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > HISTORY_MAX_MX)
		return (-1);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (e == NULL || !json_object_is_type(e, json_type_string))
			return (-1);
		s = json_object_get_string(e);
		len = (size_t)json_object_get_string_len(e);
		/* a pattern: "*." and a host name, nothing to split on */
		if (len == 0 || memchr(s, ',', len) != NULL ||
		    domain_check(len > 2 && s[0] == '*' && s[1] == '.' ?
		    s + 2 : s, len > 2 && s[0] == '*' && s[1] == '.' ?
		    len - 2 : len, DOMAIN_NAME_UNDERSCORE, 1, NULL) !=
		    DOMAIN_CHECK_OK)
			return (-1);
		if (pos + (pos > 0) + len + 1 > outsz)
			return (-1);
		if (pos > 0)
			out[pos++] = ',';
		memcpy(out + pos, s, len);
		pos += len;
		out[pos] = '\0';
	}
	return (1);
}

/* history_hex - s is HISTORY_SHA256_HEX lower-case hex digits */
static int
history_hex(const char *s)
{
	return (strlen(s) == HISTORY_SHA256_HEX &&
	    strspn(s, "0123456789abcdef") == HISTORY_SHA256_HEX);
}

/* history_id_ok - an RFC 8461 §3.1 id: 1..32 letters and digits */
static int
history_id_ok(const char *s)
{
	size_t	 len = strlen(s);

	return (len <= CACHE_ID_LEN - 1 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == len);
}

/* history_get_int - int64 member key of o into *v; 1 present, 0 absent,
 * -1 bad */
static int
history_get_int(struct json_object *o, const char *key, int64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x))
		return (0);
	if (x == NULL || !json_object_is_type(x, json_type_int))
		return (-1);
	*v = json_object_get_int64(x);
	return (1);
}

/* history_fields - the members of object o into ev */
static int
history_fields(struct json_object *o, struct history_event *ev,
    const char **why)
{
	char	 kind[32], dom[DOMAIN_BUFSZ];
	int	 k, a, b;

	history_event_init(ev, HISTORY_FIRST_SEEN, HISTORY_SOURCE_FETCH, "",
	    0);
	if (history_get_str(o, "event", kind, sizeof(kind), 1) == -1 ||
	    (k = history_kind_value(kind, strlen(kind))) == -1)
		return (*why = "no known \"event\"", -1);
	ev->kind = (enum history_kind)k;
	if (history_get_int(o, "ts", &ev->time) != 1 || ev->time < 0 ||
	    ev->time > HISTORY_TIME_MAX)
		return (*why = "no \"ts\" in range", -1);
	if (history_get_str(o, "domain", dom, sizeof(dom), 1) == -1 ||
	    domain_check(dom, strlen(dom), DOMAIN_NAME_UNDERSCORE, 1, NULL) !=
	    DOMAIN_CHECK_OK)
		return (*why = "no valid \"domain\"", -1);
	memcpy(ev->domain, dom, sizeof(ev->domain));
	if ((a = history_get_enum(o, "source", history_source_label,
	    HISTORY_SOURCE_COUNT)) < 0)
		return (*why = "no known \"source\"", -1);
	ev->source = (enum history_source)a;
	if (history_get_str(o, "trigger", ev->trigger, sizeof(ev->trigger),
	    0) == -1 || strspn(ev->trigger, "abcdefghijklmnopqrstuvwxyz-") !=
	    strlen(ev->trigger))
		return (*why = "bad \"trigger\"", -1);
	if (history_get_str(o, "old_id", ev->old_id, sizeof(ev->old_id), 0) ==
	    -1 || history_get_str(o, "id", ev->id, sizeof(ev->id), 0) == -1 ||
	    !history_id_ok(ev->old_id) || !history_id_ok(ev->id))
		return (*why = "bad id", -1);
	if (history_get_str(o, "sha256", ev->sha256, sizeof(ev->sha256),
	    0) == -1 || (ev->sha256[0] != '\0' && !history_hex(ev->sha256)))
		return (*why = "bad \"sha256\"", -1);
	if ((ev->old_mode = history_get_enum(o, "old_mode", history_mode_label,
	    3)) == -2 || (ev->mode = history_get_enum(o, "mode",
	    history_mode_label, 3)) == -2)
		return (*why = "bad mode", -1);
	if ((ev->old_dane = history_get_enum(o, "old_dane", history_dane_label,
	    DANE_STATE_MAX + 1)) == -2 || (ev->dane = history_get_enum(o,
	    "dane", history_dane_label, DANE_STATE_MAX + 1)) == -2)
		return (*why = "bad DANE state", -1);
	a = history_get_list(o, "old_mx", ev->old_mx, sizeof(ev->old_mx));
	b = history_get_list(o, "mx", ev->mx, sizeof(ev->mx));
	if (a == -1 || b == -1 || a != b)
		return (*why = "bad mx lists", -1);
	ev->has_mx = a;
	if (json_object_object_get_ex(o, "mx_omitted", NULL))
		ev->mx_omitted = 1;
	if (history_get_int(o, "expired_at", &ev->expired_at) == -1 ||
	    ev->expired_at < 0 || ev->expired_at > HISTORY_TIME_MAX)
		return (*why = "bad \"expired_at\"", -1);
	if (history_get_str(o, "detail", ev->detail, sizeof(ev->detail), 0) ==
	    -1)
		return (*why = "bad \"detail\"", -1);
	return (0);
}

int
history_parse(const char *p, size_t len, struct history_event *ev,
    const char **why)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t		 end;
	int		 rv;

	*why = "ok";
	if (len == 0 || len >= HISTORY_LINE_MAX)
		return (*why = len == 0 ? "empty line" : "line too long", -1);
	if ((tok = json_tokener_new_ex(HISTORY_DEPTH)) == NULL)
		return (*why = "out of memory", -1);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, p, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || jerr != json_tokener_success) {
		json_object_put(o);
		return (*why = "not JSON", -1);
	}
	if (end != len || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return (*why = "not one JSON object", -1);
	}
	rv = history_fields(o, ev, why);
	json_object_put(o);
	return (rv);
}
