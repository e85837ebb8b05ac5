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
		strcpy(p->mx[p->nmx++], mx1);
	if (mx2 != NULL)
		strcpy(p->mx[p->nmx++], mx2);
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
	struct cache_record rec;
	struct discover_result r;

	r = result(DISCOVER_POLICY, DISCOVER_FAIL_NONE,
	    policy(STS_MODE_ENFORCE, max_age, "mx1.example.com",
	    "*.example.net"), "id1");
	assert_int_equal(facts_merge("example.com", NULL, &r, &cc, NOW - age,
	    &rec), 1);
	return (rec);
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
	assert_string_equal(rec.mx[1], "*.example.net");
	assert_int_equal(rec.fetched_at, NOW);
	assert_int_equal(rec.expires_at, NOW + 7 * DAY);
	/* §10.2: refreshed at least daily, before expiry */
	assert_true(rec.next_refresh <= NOW + DAY);
	assert_true(rec.next_refresh > NOW + DAY - DAY / 10 - 1);
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
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec;
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
}

static void
expired_policy_gives_way(void **state)
{
	struct cache_record old = cached_enforce(8 * DAY, 7 * DAY), rec;
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_FAILURE, DISCOVER_FAIL_FETCH, NULL, NULL);
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_NONE);
	assert_int_equal(rec.expires_at, NOW + cc.negative_ttl);
	assert_int_equal(rec.last_error, DISCOVER_FAIL_FETCH);
}

static void
negative_entry_without_cache(void **state)
{
	struct cache_record rec;
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_NO_POLICY, DISCOVER_FAIL_NONE, NULL, NULL);
	assert_int_equal(facts_merge("example.com", NULL, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_NONE);
	assert_int_equal(rec.expires_at, NOW + 300);
	assert_int_equal(rec.last_error, 0);
}

/* A new id with mode none is how a domain retires its policy. */
static void
new_policy_replaces_even_mode_none(void **state)
{
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec;
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
}

/* A weaker policy served under the same id (proactive refresh, which
 * fetches without the known id) is no retirement: §3.1 says a changed
 * policy gets a new id.  Kept, retried after the backoff. */
static void
weaker_policy_same_id_is_refused(void **state)
{
	struct cache_record old = cached_enforce(DAY, 7 * DAY), rec;
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
}

/* Same id: keep the policy; max_age still counts from the last fetch. */
static void
unchanged_id_keeps_policy(void **state)
{
	struct cache_record old = cached_enforce(2 * DAY, 7 * DAY), rec;
	struct discover_result r;

	(void)state;
	r = result(DISCOVER_UNCHANGED, DISCOVER_FAIL_NONE, NULL, "id1");
	assert_int_equal(facts_merge("example.com", &old, &r, &cc, NOW, &rec),
	    1);
	assert_int_equal(rec.kind, CACHE_KIND_STS);
	assert_int_equal(rec.fetched_at, old.fetched_at);
	assert_int_equal(rec.expires_at, old.expires_at);
	assert_true(rec.next_refresh > NOW);
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
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_OK);
	assert_int_equal(out.len, strlen("secure match=mx1.example.com:"
	    ".example.net servername=hostname"));
	assert_memory_equal(out.data, "secure match=mx1.example.com:"
	    ".example.net servername=hostname", out.len);

	/* TLSRPT attributes carry the policy's lines, patterns as published */
	map.tlsrpt = 1;
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_OK);
	assert_non_null(buf_cstr(&out));
	assert_non_null(strstr(out.data, " policy_type=sts policy_domain="
	    "example.com policy_ttl=86400 mx_host_pattern=mx1.example.com "
	    "mx_host_pattern=*.example.net "));
	assert_non_null(strstr(out.data, "{ policy_string = mode: enforce }"));
	assert_non_null(strstr(out.data,
	    "{ policy_string = mx: *.example.net }"));
	assert_non_null(strstr(out.data, "{ policy_string = max_age: 86400 }"));
	map.tlsrpt = 0;

	rec.sts_mode = CACHE_STS_TESTING;
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_NOTFOUND);
	map.testing_answer = CONFIG_ANSWER_MAY;
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_OK);
	assert_memory_equal(out.data, "may", 3);

	rec.sts_mode = CACHE_STS_NONE;
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_NOTFOUND);
	rec.kind = CACHE_KIND_NONE;
	assert_int_equal(facts_answer("example.com", &rec, NULL, &map, &scratch,
	    &out), SOCKMAP_NOTFOUND);
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
		cmocka_unit_test(answers_from_records),
	};

	return (cmocka_run_group_tests_name("facts", tests, NULL, NULL));
}
