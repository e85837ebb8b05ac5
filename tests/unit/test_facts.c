/*
 * test_facts.c - trust on first use: merging discoveries into the cache,
 * refresh scheduling, and answers from cached facts
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

#define NOW	1700000000
#define DAY	86400

static struct config_cache cc = {
	.path = NULL, .max_size = 0, .negative_ttl = 300,
	.refresh_before = 0, .enabled = 1,
};

static struct sts_policy *
policy(enum sts_mode mode, uint32_t max_age, const char *mx1, const char *mx2)
{
	static struct sts_policy *p;

	if (p == NULL)
		p = calloc(1, sizeof(*p));
	memset(p, 0, offsetof(struct sts_policy, text));
	p->mode = mode;
	p->max_age = max_age;
	if (mx1 != NULL)
		assert_int_equal(sts_policy_mx_add(p, mx1, strlen(mx1)), 0);
	if (mx2 != NULL)
		assert_int_equal(sts_policy_mx_add(p, mx2, strlen(mx2)), 0);
	return (p);
}

static struct discover_result
result(enum discover_outcome o, enum discover_failure f,
    const struct sts_policy *p, const char *id)
{
	struct discover_result r;

	memset(&r, 0, sizeof(r));
	r.domain = "example.com";
	r.outcome = o;
	r.failure = f;
	r.detail = "";
	r.policy = p;
	r.id = id;
	r.txt_security = DNS_INSECURE;
	return (r);
}

/* cached_enforce - an enforce record fetched `age` seconds before NOW */
static struct cache_record
cached_enforce(int64_t age, uint32_t max_age)
{
	struct cache_record rec = { 0 };
	struct discover_result r;

	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_ENFORCE, max_age, "mx1.example.com",
	    "*.example.net"), "id1");
	assert_int_equal(facts_merge("example.com", NULL, &r, &cc, NOW - age,
	    &rec), 1);
	return (rec);	/* the caller releases it */
}

static void
fetched_policy_is_stored(void **state)
{
	struct cache_record rec = cached_enforce(0, 7 * DAY);

	(void)state;
	assert_int_equal(rec.kind, CACHE_KIND_STS);
	assert_int_equal(rec.sts_mode, CACHE_STS_ENFORCE);
	assert_string_equal(rec.id, "id1");
	assert_int_equal(rec.nmx, 2);
	assert_string_equal(rec.mx + strlen(rec.mx) + 1, "*.example.net");
	assert_int_equal(rec.fetched_at, NOW);
	assert_int_equal(rec.expires_at, NOW + 7 * DAY);
	/* §10.2: refreshed at least daily, before expiry */
	assert_true(rec.next_refresh <= NOW + DAY);
	assert_true(rec.next_refresh > NOW + DAY - DAY / 10 - 1);
	cache_record_release(&rec);
}

/* Every failure kind, and a vanished record, keep an unexpired policy. */
static void
no_downgrade_before_expiry(void **state)
{
	static const struct {
		const char		*name;
		enum discover_outcome	 o;
		enum discover_failure	 f;
	} cases[] = {
		{ "TXT removed", DISCOVER_NO_POLICY, DISCOVER_FAIL_NONE },
		{ "SERVFAIL", DISCOVER_FAILURE, DISCOVER_FAIL_DNS_SERVFAIL },
		{ "bogus", DISCOVER_FAILURE, DISCOVER_FAIL_DNS_BOGUS },
		{ "bad TXT", DISCOVER_FAILURE, DISCOVER_FAIL_TXT_INVALID },
		{ "HTTPS down", DISCOVER_FAILURE, DISCOVER_FAIL_FETCH },
		{ "bad cert", DISCOVER_FAILURE, DISCOVER_FAIL_WEBPKI },
		{ "bad policy", DISCOVER_FAILURE, DISCOVER_FAIL_POLICY_INVALID },
	};
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec = { 0 };
	struct discover_result r;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = result(cases[i].o, cases[i].f, NULL, NULL);
		assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW,
		    &rec), 1);
		if (rec.kind != CACHE_KIND_STS || rec.expires_at !=
		    old.expires_at || rec.nmx != 2)
			fail_msg("case \"%s\": cached policy not kept",
			    cases[i].name);
		assert_int_equal(rec.sts_mode, CACHE_STS_ENFORCE);
		assert_int_equal(rec.last_error, (uint8_t)cases[i].f);
		/* §3.3: retry no sooner than 5 minutes */
		assert_true(rec.next_refresh >= NOW + FACTS_MIN_RETRY);
		assert_true(rec.next_refresh <= old.expires_at);
	}
	cache_record_release(&old);
	cache_record_release(&rec);
}

static void
expired_policy_gives_way(void **state)
{
	struct cache_record old = cached_enforce(8 * DAY, 7 * DAY);
	struct cache_record rec = { 0 };
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_FAILURE, DISCOVER_FAIL_FETCH, NULL, NULL);
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_NONE);
	assert_int_equal(rec.expires_at, NOW + cc.negative_ttl);
	assert_int_equal(rec.last_error, DISCOVER_FAIL_FETCH);
	cache_record_release(&old);
	cache_record_release(&rec);
}

static void
negative_entry_without_cache(void **state)
{
	struct cache_record rec = { 0 };
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_NO_POLICY, DISCOVER_FAIL_NONE, NULL, NULL);
	assert_int_equal(facts_merge("example.com", NULL, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_NONE);
	assert_int_equal(rec.expires_at, NOW + 300);
	assert_int_equal(rec.last_error, 0);
	cache_record_release(&rec);
}

/* A new id with mode none is how a domain retires its policy. */
static void
new_policy_replaces_even_mode_none(void **state)
{
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec = { 0 };
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_NONE, DAY, NULL, NULL), "id2");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_STS);
	assert_int_equal(rec.sts_mode, CACHE_STS_NONE);
	assert_string_equal(rec.id, "id2");
	assert_int_equal(rec.expires_at, NOW + DAY);
	cache_record_release(&old);
	cache_record_release(&rec);
}

/* A weaker policy served under the same id (proactive refresh, which
 * fetches without the known id) is no retirement: §3.1 says a changed
 * policy gets a new id.  Kept, retried after the backoff. */
static void
weaker_policy_same_id_is_refused(void **state)
{
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec = { 0 };
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_NONE, DAY, NULL, NULL), "id1");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.sts_mode, CACHE_STS_ENFORCE);
	assert_int_equal(rec.fetched_at, old.fetched_at);
	assert_int_equal(rec.expires_at, old.expires_at);
	assert_true(rec.next_refresh >= NOW + FACTS_MIN_RETRY);
	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_TESTING, DAY, "mx1.example.com", NULL), "id1");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.sts_mode, CACHE_STS_ENFORCE);
	/* The same mode under the same id is a refresh: max_age extended. */
	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_ENFORCE, 7 * DAY, "mx1.example.com", NULL), "id1");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.fetched_at, NOW);
	assert_int_equal(rec.expires_at, NOW + 7 * DAY);
	cache_record_release(&old);
	cache_record_release(&rec);
}

/* Same id: keep the policy; max_age still counts from the last fetch. */
static void
unchanged_id_keeps_policy(void **state)
{
	struct cache_record old = cached_enforce(2 * DAY, 7 * DAY), rec = { 0 };
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_UNCHANGED, DISCOVER_FAIL_NONE, NULL, "id1");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_STS);
	assert_int_equal(rec.fetched_at, old.fetched_at);
	assert_int_equal(rec.expires_at, old.expires_at);
	assert_true(rec.next_refresh > NOW);
	cache_record_release(&old);
	cache_record_release(&rec);
}

/*
 * The wall clock stepped back (settimeofday, an NTP step): a record written
 * "in the future" is not waited for.  Its TXT check is due at once, its
 * refresh too when scheduled further ahead than any schedule goes, and a
 * refresh that finds the same id schedules the next one from now.
 */
static void
clock_stepped_back(void **state)
{
	struct cache_record rec = cached_enforce(0, 7 * DAY), out = { 0 };
	struct discover_result r;
	static const struct {
		const char	*name;
		int64_t		 step;	/* the clock now reads NOW - step */
		int		 txt_due, refresh_due;
	} cases[] = {
		{ "no step", 0, 0, 0 },
		{ "within the slack", CACHE_CLOCK_SLACK, 0, 0 },
		{ "a second past it", CACHE_CLOCK_SLACK + 1, 1, 0 },
		{ "an hour", 3600, 1, 0 },
		{ "the refresh a day + slack ahead", DAY / 2 + 1, 1, 1 },
		{ "two days", 2 * DAY, 1, 1 },
	};
	size_t		 i;
	int64_t		 now;

	(void)state;
	/* the next refresh at NOW + 3.5 d, capped at a day, less the spread */
	assert_true(rec.next_refresh <= NOW + DAY &&
	    rec.next_refresh > NOW + DAY / 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		now = NOW - cases[i].step;
		if (facts_txt_due(&rec, now) != cases[i].txt_due ||
		    facts_refresh_due(&rec, now) != (cases[i].refresh_due ||
		    rec.next_refresh > now + DAY + CACHE_CLOCK_SLACK))
			fail_msg("%s: txt_due %d refresh_due %d", cases[i].name,
			    facts_txt_due(&rec, now),
			    facts_refresh_due(&rec, now));
	}
	/* not after expiry, whatever the schedule */
	assert_false(facts_refresh_due(&rec, rec.expires_at));
	assert_true(facts_refresh_due(&rec, rec.next_refresh));
	assert_false(facts_refresh_due(&rec, rec.next_refresh - 1));
	/* the same id two days "earlier": scheduled from now, not from the
	 * fetch, and the TXT check made now */
	r = result(DISCOVER_UNCHANGED, DISCOVER_FAIL_NONE, NULL, "id1");
	now = NOW - 2 * DAY;
	assert_int_equal(facts_merge("example.com", &rec, &r, &cc, now, &out),
	    1);
	assert_int_equal(out.fetched_at, NOW);
	assert_true(out.next_refresh > now && out.next_refresh <= now + DAY);
	assert_false(facts_refresh_due(&out, now));
	assert_false(facts_txt_due(&out, now));
	cache_record_release(&rec);
	cache_record_release(&out);
}

static void
refresh_schedule(void **state)
{
	int64_t		 t;

	(void)state;
	/* half of max_age when it is under a day */
	t = facts_next_refresh("a.example", NOW, 3600, 0);
	assert_true(t <= NOW + 1800 && t >= NOW + 1800 - 180);
	/* refresh_before wins when set */
	t = facts_next_refresh("a.example", NOW, 3600, 600);
	assert_true(t <= NOW + 3000 && t >= NOW + 3000 - 300);
	/* never later than daily */
	t = facts_next_refresh("a.example", NOW, 31557600, 0);
	assert_true(t <= NOW + DAY);
	/* spread: different domains, different times (same for one) */
	assert_int_equal(facts_next_refresh("a.example", NOW, DAY, 0),
	    facts_next_refresh("a.example", NOW, DAY, 0));
	assert_true(facts_next_refresh("a.example", NOW, DAY, 0) !=
	    facts_next_refresh("b.example", NOW, DAY, 0) ||
	    facts_next_refresh("a.example", NOW, DAY, 0) !=
	    facts_next_refresh("c.example", NOW, DAY, 0));
}

static void
answers_from_records(void **state)
{
	static struct sts_policy scratch;
	struct config_map map = { .name = "postfix",
	    .testing_answer = CONFIG_ANSWER_NOTFOUND, .tlsrpt = 0 };
	struct cache_record rec = cached_enforce(0, DAY);
	struct buf	 out;
	char		 store[SOCKMAP_MAX_REPLY];

	(void)state;
	buf_init_fixed(&out, store, sizeof(store));
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_OK);
	assert_int_equal(out.len, strlen("secure match=mx1.example.com:"
	    ".example.net servername=hostname"));
	assert_memory_equal(out.data, "secure match=mx1.example.com:"
	    ".example.net servername=hostname", out.len);

	/* TLSRPT attributes carry the policy's lines, patterns as published */
	map.tlsrpt = 1;
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_OK);
	assert_non_null(buf_cstr(&out));
	assert_non_null(strstr(out.data, " policy_type=sts policy_domain="
	    "example.com mx_host_pattern=mx1.example.com "
	    "mx_host_pattern=*.example.net "));
	assert_non_null(strstr(out.data, "{ policy_string = mode: enforce }"));
	assert_non_null(strstr(out.data,
	    "{ policy_string = mx: *.example.net }"));
	assert_non_null(strstr(out.data, "{ policy_string = max_age: 86400 }"));
	map.tlsrpt = 0;

	rec.sts_mode = CACHE_STS_TESTING;
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_NOTFOUND);
	map.testing_answer = CONFIG_ANSWER_MAY;
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_OK);
	assert_memory_equal(out.data, "may", 3);

	rec.sts_mode = CACHE_STS_NONE;
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_NOTFOUND);
	rec.kind = CACHE_KIND_NONE;
	assert_int_equal(facts_answer("example.com", &rec, NULL, NULL, &map,
	    &scratch, &out, NULL), SOCKMAP_NOTFOUND);
	cache_record_release(&rec);
}

/*
 * TXT id freshness (facts.h): the clamped TXT TTL, when a re-check is due,
 * and what each re-check outcome leaves in the cache.  The clock is the
 * `now` argument: fetched at NOW, re-checked at NOW + at.
 */
static void
txt_freshness_table(void **state)
{
	static const struct {
		const char		*name;
		int			 dns_ttl;	/* TXT TTL at the fetch */
		uint32_t		 stored;	/* clamped */
		int64_t			 at;		/* re-check, after NOW */
		enum discover_outcome	 o;
		enum discover_failure	 f;
		const char		*id;		/* found by the re-check */
		enum sts_mode		 mode;
		int			 nmx;		/* new policy's mx lines */
		/* expected */
		const char		*keep_id;
		int			 mode_after;	/* enum cache_sts_mode */
		int			 nmx_after;
		int			 fetched;	/* fetched_at moved */
		int64_t			 next_min;	/* facts_txt_next - (NOW+at) */
		int64_t			 next_max;
	} cases[] = {
		{ "ttl 5: floor 30, same id", 5, 30, 30, DISCOVER_UNCHANGED,
		  DISCOVER_FAIL_NONE, "id1", 0, 0, "id1", CACHE_STS_ENFORCE,
		  2, 0, 30, 30 },
		{ "ttl 7200: ceiling 3600, same id", 7200, 3600, 3600,
		  DISCOVER_UNCHANGED, DISCOVER_FAIL_NONE, "id1", 0, 0, "id1",
		  CACHE_STS_ENFORCE, 2, 0, 3600, 3600 },
		{ "ttl 300 kept, same id", 300, 300, 300, DISCOVER_UNCHANGED,
		  DISCOVER_FAIL_NONE, "id1", 0, 0, "id1", CACHE_STS_ENFORCE,
		  2, 0, 300, 300 },
		{ "new id, mode none replaces", 30, 30, 31, DISCOVER_POLICY,
		  DISCOVER_FAIL_NONE, "id2", STS_MODE_NONE, 1, "id2",
		  CACHE_STS_NONE, 1, 1, 30, 30 },
		{ "new id, narrower mx", 30, 30, 30, DISCOVER_POLICY,
		  DISCOVER_FAIL_NONE, "id2", STS_MODE_ENFORCE, 1, "id2",
		  CACHE_STS_ENFORCE, 1, 1, 30, 30 },
		{ "new id, wider mx, testing", 60, 60, 90, DISCOVER_POLICY,
		  DISCOVER_FAIL_NONE, "id3", STS_MODE_TESTING, 3, "id3",
		  CACHE_STS_TESTING, 3, 1, 60, 60 },
		{ "new id, fetch fails: kept, backoff", 30, 30, 30,
		  DISCOVER_FAILURE, DISCOVER_FAIL_FETCH, NULL, 0, 0, "id1",
		  CACHE_STS_ENFORCE, 2, 0, FACTS_MIN_RETRY,
		  FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
		{ "new id, bad certificate: kept", 30, 30, 40,
		  DISCOVER_FAILURE, DISCOVER_FAIL_WEBPKI, NULL, 0, 0, "id1",
		  CACHE_STS_ENFORCE, 2, 0, FACTS_MIN_RETRY,
		  FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
		{ "TXT gone / NXDOMAIN: kept", 30, 30, 30, DISCOVER_NO_POLICY,
		  DISCOVER_FAIL_NONE, NULL, 0, 0, "id1", CACHE_STS_ENFORCE, 2,
		  0, FACTS_MIN_RETRY, FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
		{ "TXT SERVFAIL: kept", 30, 30, 30, DISCOVER_FAILURE,
		  DISCOVER_FAIL_DNS_SERVFAIL, NULL, 0, 0, "id1",
		  CACHE_STS_ENFORCE, 2, 0, FACTS_MIN_RETRY,
		  FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
		{ "TXT bogus: kept", 30, 30, 30, DISCOVER_FAILURE,
		  DISCOVER_FAIL_DNS_BOGUS, NULL, 0, 0, "id1",
		  CACHE_STS_ENFORCE, 2, 0, FACTS_MIN_RETRY,
		  FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
		{ "weaker mode under the same id: kept", 30, 30, 30,
		  DISCOVER_POLICY, DISCOVER_FAIL_NONE, "id1", STS_MODE_NONE,
		  1, "id1", CACHE_STS_ENFORCE, 2, 0, FACTS_MIN_RETRY,
		  FACTS_MIN_RETRY + FACTS_MIN_RETRY / 5 },
	};
	struct cache_record old = { 0 }, rec = { 0 };
	struct discover_result r;
	struct sts_policy *p;
	size_t		 i;
	int64_t		 t, next;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
		    policy(STS_MODE_ENFORCE, 7 * DAY, "mx1.example.com",
		    "*.example.net"), "id1");
		r.txt_ttl = cases[i].dns_ttl;
		assert_int_equal(facts_merge("example.com", NULL, &r, &cc, NOW,
		    &old), 1);
		assert_int_equal(old.txt_ttl, cases[i].stored);
		assert_int_equal(old.txt_checked_at, NOW);
		/* due exactly when the clamped TTL has passed, any mode */
		assert_false(facts_txt_due(&old, NOW + cases[i].stored - 1));
		assert_true(facts_txt_due(&old, NOW + cases[i].stored));
		t = NOW + cases[i].at;
		assert_true(facts_txt_due(&old, t));

		p = policy(cases[i].mode, 7 * DAY, "mx1.example.com",
		    cases[i].nmx >= 2 ? "mx2.example.com" : NULL);
		if (cases[i].nmx >= 3)
			assert_int_equal(sts_policy_mx_add(p, "*.example.org",
			    13), 0);
		r = result(cases[i].o, cases[i].f, cases[i].nmx > 0 ? p :
		    NULL, cases[i].id);
		r.txt_ttl = cases[i].dns_ttl;
		assert_int_equal(facts_merge("example.com", &old, &r, &cc, t,
		    &rec), 1);
		if (strcmp(rec.id, cases[i].keep_id) != 0 ||
		    rec.sts_mode != cases[i].mode_after ||
		    rec.nmx != cases[i].nmx_after)
			fail_msg("%s: id %s mode %d nmx %d", cases[i].name,
			    rec.id, rec.sts_mode, rec.nmx);
		assert_int_equal(rec.kind, CACHE_KIND_STS);
		assert_int_equal(rec.fetched_at, cases[i].fetched ? t : NOW);
		assert_int_equal(rec.txt_checked_at, t);
		next = facts_txt_next(&rec) - t;
		if (next < cases[i].next_min || next > cases[i].next_max)
			fail_msg("%s: next check in %lld s, want %lld..%lld",
			    cases[i].name, (long long)next,
			    (long long)cases[i].next_min,
			    (long long)cases[i].next_max);
		assert_false(facts_txt_due(&rec, t));
		assert_true(facts_txt_due(&rec, t + next));
	}
	cache_record_release(&old);
	cache_record_release(&rec);
}

/* After a failed re-check's backoff, the same id clears the error and the
 * TTL schedule resumes; records that are not unexpired STS are never due. */
static void
txt_due_edges(void **state)
{
	struct cache_record old = cached_enforce(0, 7 * DAY);
	struct cache_record rec = { 0 }, v1 = { 0 };
	struct discover_result r;
	int64_t		 t;

	(void)state;
	r = result(DISCOVER_FAILURE, DISCOVER_FAIL_FETCH, NULL, NULL);
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW + 30,
	    &rec), 1);
	t = facts_txt_next(&rec);
	assert_true(t >= NOW + 30 + FACTS_MIN_RETRY);
	r = result(DISCOVER_UNCHANGED, DISCOVER_FAIL_NONE, NULL, "id1");
	r.txt_ttl = 45;
	assert_int_equal(facts_merge("example.com", &rec, &r, &cc, t, &old), 1);
	assert_int_equal(old.last_error_at, 0);
	assert_int_equal(facts_txt_next(&old), t + 45);

	/* a version 1 record (never checked): due at once */
	cache_record_copy(&v1, &old);
	v1.txt_ttl = 0;
	v1.txt_checked_at = 0;
	assert_true(facts_txt_due(&v1, NOW));
	/* expired: the worker does not answer from it at all */
	assert_false(facts_txt_due(&v1, v1.expires_at));
	/* negative and DANE entries have no TXT id */
	v1.kind = CACHE_KIND_NONE;
	assert_false(facts_txt_due(&v1, NOW));
	v1.kind = CACHE_KIND_DANE;
	assert_false(facts_txt_due(&v1, NOW));
	cache_record_release(&old);
	cache_record_release(&rec);
	cache_record_release(&v1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fetched_policy_is_stored),
		cmocka_unit_test(no_downgrade_before_expiry),
		cmocka_unit_test(expired_policy_gives_way),
		cmocka_unit_test(negative_entry_without_cache),
		cmocka_unit_test(new_policy_replaces_even_mode_none),
		cmocka_unit_test(weaker_policy_same_id_is_refused),
		cmocka_unit_test(unchanged_id_keeps_policy),
		cmocka_unit_test(refresh_schedule),
		cmocka_unit_test(clock_stepped_back),
		cmocka_unit_test(answers_from_records),
		cmocka_unit_test(txt_freshness_table),
		cmocka_unit_test(txt_due_edges),
	};

	return (cmocka_run_group_tests_name("facts", tests, NULL, NULL));
}
