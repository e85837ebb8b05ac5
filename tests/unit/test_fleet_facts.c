/*
 * test_fleet_facts.c - the gate between the local cache and the fleet:
 * downgrades refused (by facts_merge's own rule), staler and expired
 * records refused, newer ones taken with their own times; a later TXT id
 * check of the same policy taken as the check time alone
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cache.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/fleet_facts.h"

#define NOW	1700000000
#define DAY	86400

static struct config_cache cc = {
	.path = NULL, .max_size = 0, .negative_ttl = 300,
	.refresh_before = 0, .enabled = 1,
};

enum shape { NONE_HELD, STS_ENF, STS_TEST, STS_NONE, NEG, NEG_ERR, DANE_OK,
	DANE_FAIL };

/* rec - a record of shape, fetched `age` seconds ago, id */
static struct cache_record
rec(enum shape s, int64_t age, const char *id)
{
	static char	 mx[] = "mx.example.com";
	struct cache_record r;

	memset(&r, 0, sizeof(r));
	r.fetched_at = NOW - age;
	switch (s) {
	case STS_ENF:
	case STS_TEST:
	case STS_NONE:
		r.kind = CACHE_KIND_STS;
		r.sts_mode = s == STS_ENF ? CACHE_STS_ENFORCE : s == STS_TEST ?
		    CACHE_STS_TESTING : CACHE_STS_NONE;
		r.max_age = DAY;
		r.expires_at = r.fetched_at + DAY;
		r.next_refresh = r.fetched_at + DAY / 2;
		snprintf(r.id, sizeof(r.id), "%s", id);
		/* read only: the pattern lives in static storage */
		r.nmx = 1;
		r.mx = mx;
		r.mxlen = r.mxcap = sizeof(mx);
		break;
	case NEG:
	case NEG_ERR:
		r.kind = CACHE_KIND_NONE;
		r.expires_at = r.fetched_at + 300;
		r.next_refresh = r.expires_at;
		r.last_error = s == NEG_ERR ? 1 : 0;
		break;
	case DANE_OK:
	case DANE_FAIL:
		r.kind = CACHE_KIND_DANE;
		r.dane = s == DANE_OK ? DANE_ALL : DANE_FAILURE;
		r.dnssec = CACHE_DNSSEC_SECURE;
		r.expires_at = r.fetched_at + 3600;
		r.next_refresh = r.fetched_at + 2700;
		break;
	default:
		break;
	}
	return (r);
}

/*
 * take - offer off against have (NULL: nothing held) under key at NOW into
 * out; the reason must be want, and the record taken exactly when want
 * is TAKEN or RECHECKED; returns whether it was
 */
static int
take(const char *key, const struct cache_record *have,
    const struct cache_record *off, enum fleet_facts_why want,
    struct cache_record *out)
{
	enum fleet_facts_why why;
	int		 r;

	cache_record_reset(out);
	r = fleet_facts_take(key, strlen(key), have, off, &cc, NOW, out, &why);
	assert_string_equal(fleet_facts_why_name(why),
	    fleet_facts_why_name(want));
	assert_int_equal(r, want == FLEET_FACTS_TAKEN ||
	    want == FLEET_FACTS_RECHECKED);
	return (r);
}

static void
gate(void **state)
{
	static const struct {
		const char	*name;
		const char	*key;
		enum shape	 have;
		int64_t		 have_age;
		const char	*have_id;
		enum shape	 off;
		int64_t		 off_age;
		const char	*off_id;
		enum fleet_facts_why want;
	} t[] = {
		{ "nothing held: policy taken", "example.com", NONE_HELD, 0,
		    "", STS_ENF, 10, "a", FLEET_FACTS_TAKEN },
		{ "newer fetch of the same policy", "example.com", STS_ENF,
		    100, "a", STS_ENF, 10, "a", FLEET_FACTS_TAKEN },
		{ "new id, weaker mode: a real change", "example.com",
		    STS_ENF, 100, "a", STS_TEST, 10, "b", FLEET_FACTS_TAKEN },
		{ "new id, mode none: how a domain retires", "example.com",
		    STS_ENF, 100, "a", STS_NONE, 10, "b", FLEET_FACTS_TAKEN },
		{ "same id, weaker mode: refused", "example.com", STS_ENF,
		    100, "a", STS_TEST, 10, "a", FLEET_FACTS_DOWNGRADE },
		{ "same id, mode none: refused", "example.com", STS_ENF,
		    100, "a", STS_NONE, 10, "a", FLEET_FACTS_DOWNGRADE },
		{ "negative over an unexpired policy: refused",
		    "example.com", STS_ENF, 100, "a", NEG, 10, "",
		    FLEET_FACTS_DOWNGRADE },
		{ "failure over an unexpired policy: refused", "example.com",
		    STS_ENF, 100, "a", NEG_ERR, 10, "",
		    FLEET_FACTS_FAILURE },
		{ "a failure is never shared, even over nothing",
		    "example.com", NONE_HELD, 0, "", NEG_ERR, 10, "",
		    FLEET_FACTS_FAILURE },
		{ "negative over an expired policy", "example.com", STS_ENF,
		    DAY + 5, "a", NEG, 10, "", FLEET_FACTS_TAKEN },
		{ "staler policy: refused", "example.com", STS_ENF, 10, "a",
		    STS_ENF, 100, "a", FLEET_FACTS_STALE },
		{ "same fetch time: nothing new", "example.com", STS_ENF, 10,
		    "a", STS_ENF, 10, "a", FLEET_FACTS_STALE },
		{ "expired offer", "example.com", NONE_HELD, 0, "", STS_ENF,
		    DAY + 1, "a", FLEET_FACTS_EXPIRED },
		{ "newer negative over a negative", "example.com", NEG, 100,
		    "", NEG, 10, "", FLEET_FACTS_TAKEN },
		{ "dane record under a domain key", "example.com", NONE_HELD,
		    0, "", DANE_OK, 10, "", FLEET_FACTS_KIND },
		{ "sts record under a dane key", "dane:example.com",
		    NONE_HELD, 0, "", STS_ENF, 10, "a", FLEET_FACTS_KIND },
		{ "dane: newer state taken", "dane:example.com", DANE_OK,
		    100, "", DANE_OK, 10, "", FLEET_FACTS_TAKEN },
		{ "dane: failure over a known state: refused",
		    "dane:example.com", DANE_OK, 100, "", DANE_FAIL, 10, "",
		    FLEET_FACTS_FAILURE },
		{ "dane: failure, nothing known: stays local",
		    "dane:example.com", NONE_HELD, 0, "", DANE_FAIL, 10, "",
		    FLEET_FACTS_FAILURE },
	};
	struct cache_record have, off, out = { 0 };
	size_t		 i;
	int		 r;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("# %s\n", t[i].name);
		have = rec(t[i].have, t[i].have_age, t[i].have_id);
		off = rec(t[i].off, t[i].off_age, t[i].off_id);
		r = take(t[i].key, t[i].have == NONE_HELD ? NULL : &have,
		    &off, t[i].want, &out);
		if (r == 1) {
			/* taken as offered, with its own times */
			assert_int_equal(out.fetched_at, off.fetched_at);
			assert_int_equal(out.expires_at, off.expires_at);
			assert_int_equal(out.next_refresh, off.next_refresh);
			assert_int_equal(out.sts_mode, off.sts_mode);
			assert_string_equal(out.id, off.id);
			assert_int_equal(out.mxlen, off.mxlen);
		}
	}
	cache_record_release(&out);
}

/*
 * recheck - the same policy (same fetch, same id) with a later TXT check:
 * only the check time (and TTL) is taken, the policy stays have's; so an
 * offer that differs in anything else is judged by the rules above
 */
static void
recheck(void **state)
{
	static const struct {
		const char	*name;
		int64_t		 have_at;	/* have's txt_checked_at, ago */
		int64_t		 off_at;	/* offered's, ago (< 0: ahead) */
		int64_t		 off_age;	/* offered's fetch, ago */
		const char	*off_id;
		int		 off_weaker;	/* offered says testing */
		enum fleet_facts_why want;
	} t[] = {
		{ "later check of the same policy: taken", 600, 5, 100, "a", 0,
		    FLEET_FACTS_RECHECKED },
		{ "never checked here: taken", -1, 5, 100, "a", 0,
		    FLEET_FACTS_RECHECKED },
		{ "same check time: nothing new", 5, 5, 100, "a", 0,
		    FLEET_FACTS_STALE },
		{ "older check: nothing new", 5, 600, 100, "a", 0,
		    FLEET_FACTS_STALE },
		{ "check time far ahead of our clock: refused", 600,
		    -(FLEET_FACTS_SKEW + 10), 100, "a", 0, FLEET_FACTS_STALE },
		{ "check time a little ahead (clock skew): taken", 600, -30,
		    100, "a", 0, FLEET_FACTS_RECHECKED },
		{ "other id under the same fetch time: not a re-check", 600,
		    5, 100, "b", 0, FLEET_FACTS_STALE },
		{ "weaker mode, same id, later check: policy not taken", 600,
		    5, 100, "a", 1, FLEET_FACTS_RECHECKED },
		{ "newer fetch: a fetch, taken whole", 600, 5, 50, "a", 0,
		    FLEET_FACTS_TAKEN },
	};
	struct cache_record have, off, out = { 0 };
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("# %s\n", t[i].name);
		have = rec(STS_ENF, 100, "a");
		have.txt_ttl = 300;
		have.txt_checked_at = t[i].have_at < 0 ? 0 :
		    NOW - t[i].have_at;
		off = rec(t[i].off_weaker ? STS_TEST : STS_ENF, t[i].off_age,
		    t[i].off_id);
		off.txt_ttl = 60;
		off.txt_checked_at = NOW - t[i].off_at;
		(void)take("example.com", &have, &off, t[i].want, &out);
		if (t[i].want == FLEET_FACTS_RECHECKED) {
			/* have's policy, the offered check */
			assert_int_equal(out.fetched_at, have.fetched_at);
			assert_int_equal(out.sts_mode, CACHE_STS_ENFORCE);
			assert_string_equal(out.id, "a");
			assert_int_equal(out.mxlen, have.mxlen);
			assert_int_equal(out.txt_checked_at,
			    off.txt_checked_at);
			assert_int_equal(out.txt_ttl, 60);
		}
	}
	cache_record_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gate),
		cmocka_unit_test(recheck),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
