/*
 * test_history.c - policy events (policy/history.c): which events a merge
 * gives, the "another provider" rule, the JSON line and its parser
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cache.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/history.h"
#include "policy/sts_policy.h"

#define NOW	1700000000
#define DAY	86400

static struct config_cache cc = {
	.path = NULL, .max_size = 0, .negative_ttl = 300,
	.refresh_before = 0, .enabled = 1,
};

/* the events one call handed out, kinds and copies of the last */
struct seen {
	int		 n;
	int		 kinds[8];
	struct history_event last[8];
};

static void
collect(const struct history_event *ev, void *arg)
{
	struct seen	*s = arg;

	assert_true(s->n < 8);
	s->kinds[s->n] = (int)ev->kind;
	memcpy(&s->last[s->n], ev, sizeof(*ev));
	s->n++;
}

static struct sts_policy *
policy(enum sts_mode mode, const char *mx1, const char *mx2)
{
	static struct sts_policy *p;

	if (p == NULL)
		p = calloc(1, sizeof(*p));
	memset(p, 0, offsetof(struct sts_policy, text));
	p->mode = mode;
	p->max_age = DAY;
	if (mx1 != NULL)
		assert_int_equal(sts_policy_mx_add(p, mx1, strlen(mx1)), 0);
	if (mx2 != NULL)
		assert_int_equal(sts_policy_mx_add(p, mx2, strlen(mx2)), 0);
	return (p);
}

static struct discover_result
result(enum discover_outcome o, const struct sts_policy *p, const char *id)
{
	struct discover_result r;

	memset(&r, 0, sizeof(r));
	r.domain = "example.com";
	r.outcome = o;
	r.failure = o == DISCOVER_FAILURE ? DISCOVER_FAIL_FETCH :
	    DISCOVER_FAIL_NONE;
	r.detail = "";
	r.policy = p;
	r.id = id;
	r.policy_text = "version: STSv1\nmode: enforce\n";
	r.policy_len = strlen(r.policy_text);
	return (r);
}

/* record - a stored STS record as facts_merge makes it at t */
static void
record(struct cache_record *rec, enum sts_mode mode, const char *mx1,
    const char *mx2, const char *id, int64_t t)
{
	struct discover_result r = result(DISCOVER_POLICY,
	    policy(mode, mx1, mx2), id);

	assert_int_equal(facts_merge("example.com", NULL, &r, &cc, t, rec), 1);
}

/* merge - the events of merging res into old at now, as the resolver
 * does it */
static void
merge(const struct cache_record *old, const struct discover_result *res,
    int64_t now, struct seen *s)
{
	static struct history_event ev;
	struct cache_record out = { 0 };
	int		 refused, n;

	memset(s, 0, sizeof(*s));
	refused = facts_downgrade_refused(old, res, now);
	if (facts_merge("example.com", old, res, &cc, now, &out) == 0)
		cache_record_copy(&out, old);
	n = history_sts_events("example.com", old, res, &out, refused,
	    "request", now, &ev, collect, s);
	assert_int_equal(n, s->n);
	cache_record_release(&out);
}

static void
sts_event_table(void **state)
{
	struct cache_record enf = { 0 }, old_exp = { 0 };
	struct discover_result r;
	struct seen	 s;

	(void)state;
	record(&enf, STS_MODE_ENFORCE, "mx1.example.com", "mx2.example.com",
	    "id1", NOW - 100);

	/* nothing cached: first seen, with the mx list and the hash */
	r = result(DISCOVER_POLICY, policy(STS_MODE_ENFORCE,
	    "mx1.example.com", NULL), "id1");
	merge(NULL, &r, NOW, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.kinds[0], HISTORY_FIRST_SEEN);
	assert_string_equal(s.last[0].id, "id1");
	assert_string_equal(s.last[0].mx, "mx1.example.com");
	assert_int_equal((int)strlen(s.last[0].sha256), 64);

	/* enforce -> none under a new id: id changed, mode downgraded (and
	 * the list emptied: its own event, not a provider move) */
	r = result(DISCOVER_POLICY, policy(STS_MODE_NONE, NULL, NULL), "id2");
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.kinds[0], HISTORY_ID_CHANGED);
	assert_int_equal(s.kinds[1], HISTORY_MODE_DOWNGRADED);
	assert_int_equal(s.last[1].old_mode, CACHE_STS_ENFORCE);
	assert_int_equal(s.last[1].mode, CACHE_STS_NONE);
	assert_string_equal(s.last[1].old_id, "id1");
	assert_string_equal(s.last[1].id, "id2");
	assert_int_equal(s.kinds[2], HISTORY_MX_CHANGED);

	/* testing -> enforce: a mode change, no downgrade */
	{
		struct cache_record t = { 0 };

		record(&t, STS_MODE_TESTING, "mx1.example.com",
		    "mx2.example.com", "id1", NOW - 100);
		r = result(DISCOVER_POLICY, policy(STS_MODE_ENFORCE,
		    "mx2.example.com", "MX1.example.com"), "id2");
		merge(&t, &r, NOW, &s);
		assert_int_equal(s.n, 2);	/* id, mode; mx same as a set */
		assert_int_equal(s.kinds[1], HISTORY_MODE_CHANGED);
		cache_record_release(&t);
	}

	/* the same id, mode none: refused, recorded */
	r = result(DISCOVER_POLICY, policy(STS_MODE_NONE, NULL, NULL), "id1");
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.kinds[0], HISTORY_DOWNGRADE_REFUSED);
	assert_int_equal(s.last[0].mode, CACHE_STS_NONE);
	assert_string_equal(s.last[0].id, "id1");

	/* a new id, the mx set at another provider */
	r = result(DISCOVER_POLICY, policy(STS_MODE_ENFORCE,
	    "*.mail.protection.outlook.com", NULL), "id3");
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.kinds[1], HISTORY_MX_PROVIDER_CHANGED);
	assert_string_equal(s.last[1].old_mx, "mx1.example.com,"
	    "mx2.example.com");
	assert_string_equal(s.last[1].mx, "*.mail.protection.outlook.com");

	/* the same policy again (a refresh), a failure, no policy: none */
	r = result(DISCOVER_POLICY, policy(STS_MODE_ENFORCE,
	    "mx1.example.com", "mx2.example.com"), "id1");
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 0);
	r = result(DISCOVER_FAILURE, NULL, NULL);
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 0);
	r = result(DISCOVER_NO_POLICY, NULL, NULL);
	merge(&enf, &r, NOW, &s);
	assert_int_equal(s.n, 0);

	/* expired and not renewed: expired; the negative entry after it
	 * gives nothing more */
	record(&old_exp, STS_MODE_ENFORCE, "mx1.example.com", NULL, "id1",
	    NOW - 2 * DAY);
	r = result(DISCOVER_FAILURE, NULL, NULL);
	merge(&old_exp, &r, NOW, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.kinds[0], HISTORY_EXPIRED);
	assert_int_equal(s.last[0].expired_at, NOW - DAY);
	assert_string_equal(s.last[0].id, "");
	/* ... or renewed only after the expiry: expired, nothing else */
	r = result(DISCOVER_POLICY, policy(STS_MODE_ENFORCE,
	    "mx1.example.com", NULL), "id1");
	merge(&old_exp, &r, NOW, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.kinds[0], HISTORY_EXPIRED);
	/* an expired enforce record and a weaker mode under its id: no
	 * refusal (TOFU ends with max_age), a downgrade on record */
	r = result(DISCOVER_POLICY, policy(STS_MODE_TESTING,
	    "mx1.example.com", NULL), "id1");
	merge(&old_exp, &r, NOW, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.kinds[0], HISTORY_EXPIRED);
	assert_int_equal(s.kinds[1], HISTORY_MODE_DOWNGRADED);

	cache_record_release(&enf);
	cache_record_release(&old_exp);
}

static void
dane_event_table(void **state)
{
	static struct history_event ev;
	struct cache_record old = { 0 }, cur = { 0 };
	struct seen	 s;

	(void)state;
	old.kind = cur.kind = CACHE_KIND_DANE;
	cur.fetched_at = NOW;
	old.fetched_at = NOW - 100;

	memset(&s, 0, sizeof(s));
	old.dane = DANE_NONE;
	cur.dane = DANE_ALL;
	assert_int_equal(history_dane_events("example.com", &old, &cur,
	    "request", NOW, &ev, collect, &s), 1);
	assert_int_equal(s.kinds[0], HISTORY_DANE_APPEARED);
	assert_int_equal(s.last[0].old_dane, DANE_NONE);
	assert_int_equal(s.last[0].source, HISTORY_SOURCE_DNS);
	/* nothing known before: appeared */
	assert_int_equal(history_dane_events("example.com", NULL, &cur,
	    "request", NOW, &ev, collect, &s), 1);
	assert_int_equal(s.last[1].old_dane, -1);

	memset(&s, 0, sizeof(s));
	old.dane = DANE_SOME;
	cur.dane = DANE_NONE;
	assert_int_equal(history_dane_events("example.com", &old, &cur,
	    "proactive", NOW, &ev, collect, &s), 1);
	assert_int_equal(s.kinds[0], HISTORY_DANE_DISAPPEARED);
	assert_true(history_kind_alert(HISTORY_DANE_DISAPPEARED));
	/* a failure is no proof of absence */
	cur.dane = DANE_FAILURE;
	assert_int_equal(history_dane_events("example.com", &old, &cur,
	    "proactive", NOW, &ev, collect, &s), 0);
	/* kept over a failure (fetched_at unchanged): nothing */
	cur.dane = DANE_SOME;
	cur.fetched_at = old.fetched_at;
	old.dane = DANE_NONE;
	assert_int_equal(history_dane_events("example.com", &old, &cur,
	    "proactive", NOW, &ev, collect, &s), 0);
	/* tls-required to all: still DANE records, no event */
	cur.fetched_at = NOW;
	old.dane = DANE_TLS;
	cur.dane = DANE_ALL;
	assert_int_equal(history_dane_events("example.com", &old, &cur,
	    "proactive", NOW, &ev, collect, &s), 0);
}

/* mx - a record with the given patterns (NULL-terminated) */
static void
mx(struct cache_record *rec, ...)
{
	va_list	 ap;
	const char *p;

	cache_record_reset(rec);
	rec->kind = CACHE_KIND_STS;
	va_start(ap, rec);
	while ((p = va_arg(ap, const char *)) != NULL)
		assert_int_equal(cache_record_mx_add(rec, p, strlen(p)), 0);
	va_end(ap);
}

static void
provider_rule(void **state)
{
	static const struct {
		const char	*pattern, *key;
	} keys[] = {
		{ "mx1.example.com", "example.com" },
		{ "*.mail.protection.outlook.com", "outlook.com" },
		{ "aspmx.l.google.com", "google.com" },
		{ "mx.example.co.uk", "example.co.uk" },
		{ "*.example.co.uk", "example.co.uk" },
		{ "mx.example.de", "example.de" },
		{ "mx.sub.example.ac.jp", "example.ac.jp" },
		{ "example.co.uk", "example.co.uk" },
		{ "localhost", "localhost" },
		{ "mx.example.com.", "example.com" },
	};
	struct cache_record a = { 0 }, b = { 0 };
	size_t		 i, off, kl;

	(void)state;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		off = history_mx_provider(keys[i].pattern,
		    strlen(keys[i].pattern), &kl);
		if (strlen(keys[i].key) != kl || memcmp(keys[i].pattern + off,
		    keys[i].key, kl) != 0)
			fail_msg("%s: key %.*s, expected %s", keys[i].pattern,
			    (int)kl, keys[i].pattern + off, keys[i].key);
	}
	/* moved: no key in common */
	mx(&a, "mx1.example.com", "mx2.example.com", NULL);
	mx(&b, "*.mail.protection.outlook.com", NULL);
	assert_true(history_mx_moved(&a, &b));
	/* one shared key is enough to stay */
	mx(&b, "*.mail.protection.outlook.com", "MX3.EXAMPLE.COM", NULL);
	assert_false(history_mx_moved(&a, &b));
	/* a renamed host at the same provider */
	mx(&b, "mx9.example.com", NULL);
	assert_false(history_mx_moved(&a, &b));
	assert_false(history_mx_same(&a, &b));
	/* an empty set moved nowhere (mode none has no mx) */
	mx(&b, NULL);
	assert_false(history_mx_moved(&a, &b));
	/* co.uk customers are not one provider */
	mx(&a, "mx.one.co.uk", NULL);
	mx(&b, "mx.two.co.uk", NULL);
	assert_true(history_mx_moved(&a, &b));
	cache_record_release(&a);
	cache_record_release(&b);
}

static void
line_round_trip(void **state)
{
	static struct history_event ev, back;
	char		 line[HISTORY_LINE_MAX + 8];
	const char	*why;
	int		 n;

	(void)state;
	history_event_init(&ev, HISTORY_MX_PROVIDER_CHANGED,
	    HISTORY_SOURCE_FETCH, "example.com", NOW);
	strcpy(ev.trigger, "id-change");
	strcpy(ev.old_id, "1");
	strcpy(ev.id, "2");
	ev.old_mode = CACHE_STS_ENFORCE;
	ev.mode = CACHE_STS_ENFORCE;
	ev.has_mx = 1;
	strcpy(ev.old_mx, "mx1.example.com,mx2.example.com");
	strcpy(ev.mx, "*.mail.protection.outlook.com");
	memset(ev.sha256, 'a', 64);
	ev.sha256[64] = '\0';
	n = history_format(&ev, line, sizeof(line));
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(line));
	assert_int_equal(line[n - 1], '\n');
	assert_non_null(strstr(line, "\"time\":\"2023-11-14T22:13:20Z\""));
	assert_non_null(strstr(line, "\"event\":\"mx-provider-changed\""));
	assert_non_null(strstr(line, "\"old_mx\":[\"mx1.example.com\","
	    "\"mx2.example.com\"]"));
	assert_non_null(strstr(line, "\"mx\":[\"*.mail.protection.outlook."
	    "com\"]"));
	assert_int_equal(history_parse(line, (size_t)n - 1, &back, &why), 0);
	assert_int_equal(back.kind, ev.kind);
	assert_int_equal(back.time, NOW);
	assert_string_equal(back.domain, "example.com");
	assert_string_equal(back.trigger, "id-change");
	assert_string_equal(back.old_id, "1");
	assert_string_equal(back.id, "2");
	assert_string_equal(back.sha256, ev.sha256);
	assert_int_equal(back.old_mode, CACHE_STS_ENFORCE);
	assert_string_equal(back.old_mx, ev.old_mx);
	assert_string_equal(back.mx, ev.mx);
	assert_int_equal(back.old_dane, -1);

	/* unknown values are null, and read back as unknown */
	history_event_init(&ev, HISTORY_DANE_DISAPPEARED, HISTORY_SOURCE_DNS,
	    "example.org", NOW);
	ev.old_dane = DANE_ALL;
	ev.dane = DANE_NONE;
	n = history_format(&ev, line, sizeof(line));
	assert_non_null(strstr(line, "\"old_id\":null,\"id\":null,"
	    "\"sha256\":null"));
	assert_int_equal(history_parse(line, (size_t)n - 1, &back, &why), 0);
	assert_int_equal(back.old_dane, DANE_ALL);
	assert_int_equal(back.dane, DANE_NONE);
	assert_int_equal(back.mode, -1);

	/* a detail needing escapes: written escaped, read back whole */
	history_preload_event(&ev, "example.net", NULL, NULL, NULL, NULL,
	    "list \"a\\b\"\x01", NOW);
	n = history_format(&ev, line, sizeof(line));
	assert_non_null(strstr(line, "\"detail\":\"list \\\"a\\\\b\\\"?\""));
	assert_int_equal(history_parse(line, (size_t)n - 1, &back, &why), 0);
	assert_string_equal(back.detail, "list \"a\\b\"?");
	assert_int_equal(back.source, HISTORY_SOURCE_PRELOAD);
}

static void
long_lists_are_omitted(void **state)
{
	static struct history_event ev, back;
	char		 line[HISTORY_LINE_MAX + 8];
	const char	*why;
	size_t		 i;
	int		 n;

	(void)state;
	history_event_init(&ev, HISTORY_MX_CHANGED, HISTORY_SOURCE_FETCH,
	    "example.com", NOW);
	ev.has_mx = 1;
	for (i = 0; i + 17 < 3000; i += 17)
		memcpy(ev.old_mx + i, i ? ",mx00.example.com" :
		    "mx000.example.com", 17);
	ev.old_mx[i] = '\0';
	memcpy(ev.mx, ev.old_mx, i + 1);
	n = history_format(&ev, line, sizeof(line));
	assert_true(n > 0 && n <= HISTORY_LINE_MAX);
	assert_non_null(strstr(line, "\"mx_omitted\":true"));
	assert_null(strstr(line, "\"old_mx\""));
	assert_int_equal(history_parse(line, (size_t)n - 1, &back, &why), 0);
	assert_int_equal(back.mx_omitted, 1);
	assert_int_equal(back.has_mx, 0);
	/* no room in the caller's buffer: refused, not cut */
	assert_int_equal(history_format(&ev, line, 20), -1);
}

static void
parse_refuses(void **state)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[]",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\"} trailing",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"no-such\","
		    "\"source\":\"fetch\"}",
		"{\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\"}",
		"{\"ts\":\"1\",\"domain\":\"example.com\",\"event\":"
		    "\"first-seen\",\"source\":\"fetch\"}",
		/* found by fuzz_history: a time no ISO 8601 line can write */
		"{\"ts\":170000001700000000,\"domain\":\"example.com\","
		    "\"event\":\"first-seen\",\"source\":\"fetch\"}",
		"{\"ts\":-1,\"domain\":\"example.com\","
		    "\"event\":\"first-seen\",\"source\":\"fetch\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"expired\","
		    "\"source\":\"fetch\",\"expired_at\":253402300800}",
		"{\"ts\":1,\"domain\":\"exa mple.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"ftp\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"id\":\"a-b\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"sha256\":\"abc\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"mode\":\"strict\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"mx-changed\","
		    "\"source\":\"fetch\",\"mx\":[\"a,b.example\"],"
		    "\"old_mx\":[]}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"mx-changed\","
		    "\"source\":\"fetch\",\"mx\":[\"mx.example.com\"]}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"detail\":\"\\u0001\"}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"x\":[[[1]]]}",
		"{\"ts\":1,\"domain\":\"example.com\",\"event\":\"first-seen\","
		    "\"source\":\"fetch\",\"detail\":\"\xff\"}",
	};
	static struct history_event ev;
	const char	*why;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (history_parse(bad[i], strlen(bad[i]), &ev, &why) != -1)
			fail_msg("accepted: %s", bad[i]);
	/* the smallest good line */
	why = "{\"ts\":1,\"domain\":\"example.com\",\"event\":\"expired\","
	    "\"source\":\"fetch\"}";
	assert_int_equal(history_parse(why, strlen(why), &ev, &why), 0);
	assert_int_equal(ev.kind, HISTORY_EXPIRED);
}

/* preload-overridden: the list's entry as old (mode and mx, no id), the
 * discovered policy as new (id, mode, mx, the body's SHA-256), the list
 * in detail; notice only for an enforce entry under testing or none */
static void
preload_event_fields(void **state)
{
	static struct history_event ev, back;
	static const struct {
		int	 pre, found, alert;
	} t[] = {
		{ CACHE_STS_ENFORCE, CACHE_STS_TESTING, 1 },
		{ CACHE_STS_ENFORCE, CACHE_STS_NONE, 1 },
		{ CACHE_STS_ENFORCE, CACHE_STS_ENFORCE, 0 },
		{ CACHE_STS_TESTING, CACHE_STS_NONE, 0 },
		{ CACHE_STS_TESTING, CACHE_STS_ENFORCE, 0 },
	};
	struct cache_record pre = { 0 }, found = { 0 };
	struct discover_result r;
	char		 line[HISTORY_LINE_MAX + 8];
	const char	*why;
	size_t		 i;
	int		 n;

	(void)state;
	record(&found, STS_MODE_TESTING, "mx2.example.com", NULL, "7", NOW);
	pre.kind = CACHE_KIND_STS;
	pre.sts_mode = CACHE_STS_ENFORCE;
	pre.nmx = 1;
	pre.mx = (char *)"*.mx.example.net";
	pre.mxlen = sizeof("*.mx.example.net");
	r = result(DISCOVER_POLICY, policy(STS_MODE_TESTING, "mx2.example.com",
	    NULL), "7");
	history_preload_event(&ev, "example.com", &pre, &found, &r,
	    "proactive", "list=eff timestamp=2026-12-01T00:00:00Z", NOW);
	assert_int_equal(ev.kind, HISTORY_PRELOAD_OVERRIDDEN);
	assert_int_equal(ev.source, HISTORY_SOURCE_PRELOAD);
	assert_string_equal(ev.old_id, "");
	assert_string_equal(ev.id, "7");
	assert_int_equal(ev.old_mode, CACHE_STS_ENFORCE);
	assert_int_equal(ev.mode, CACHE_STS_TESTING);
	assert_string_equal(ev.old_mx, "*.mx.example.net");
	assert_string_equal(ev.mx, "mx2.example.com");
	assert_string_equal(ev.trigger, "proactive");
	assert_int_equal(strlen(ev.sha256), HISTORY_SHA256_HEX);
	assert_string_equal(ev.detail,
	    "list=eff timestamp=2026-12-01T00:00:00Z");
	n = history_format(&ev, line, sizeof(line));
	assert_true(n > 0);
	assert_non_null(strstr(line, "\"event\":\"preload-overridden\","
	    "\"source\":\"preload\",\"trigger\":\"proactive\","
	    "\"old_id\":null,\"id\":\"7\""));
	assert_int_equal(history_parse(line, (size_t)n - 1, &back, &why), 0);
	assert_int_equal(back.kind, HISTORY_PRELOAD_OVERRIDDEN);
	assert_int_equal(back.old_mode, CACHE_STS_ENFORCE);
	assert_string_equal(back.old_mx, "*.mx.example.net");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pre.sts_mode = (uint8_t)t[i].pre;
		found.sts_mode = (uint8_t)t[i].found;
		history_preload_event(&ev, "example.com", &pre, &found, NULL,
		    "request", "", NOW);
		if (history_event_alert(&ev) != t[i].alert)
			fail_msg("preload %d overridden by %d: alert %d", t[i].pre,
			    t[i].found, !t[i].alert);
	}
	/* the other kinds: as history_kind_alert */
	history_event_init(&ev, HISTORY_MODE_DOWNGRADED, HISTORY_SOURCE_FETCH,
	    "example.com", NOW);
	assert_true(history_event_alert(&ev));
	ev.kind = HISTORY_FIRST_SEEN;
	assert_false(history_event_alert(&ev));
	cache_record_release(&found);
}

static void
names(void **state)
{
	int	 i;

	(void)state;
	for (i = 0; i < HISTORY_KIND_COUNT; i++)
		assert_int_equal(history_kind_value(history_kind_name(
		    (enum history_kind)i), strlen(history_kind_name(
		    (enum history_kind)i))), i);
	assert_null(history_kind_name(HISTORY_KIND_COUNT));
	assert_int_equal(history_kind_value("first", 5), -1);
	assert_true(history_kind_alert(HISTORY_MODE_DOWNGRADED));
	assert_true(history_kind_alert(HISTORY_MX_PROVIDER_CHANGED));
	assert_true(history_kind_alert(HISTORY_DOWNGRADE_REFUSED));
	assert_false(history_kind_alert(HISTORY_MX_CHANGED));
	assert_false(history_kind_alert(HISTORY_FIRST_SEEN));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sts_event_table),
		cmocka_unit_test(dane_event_table),
		cmocka_unit_test(provider_rule),
		cmocka_unit_test(line_round_trip),
		cmocka_unit_test(long_lists_are_omitted),
		cmocka_unit_test(parse_refuses),
		cmocka_unit_test(preload_event_fields),
		cmocka_unit_test(names),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
