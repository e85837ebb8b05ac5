/*
 * test_rstate.c - unit tests for the report states, keys and Message-IDs
 * of postsmtpsts-tlsrpt (tlsrpt/rstate.c), and its database (store.c)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/store.h"

#define DAY	INT64_C(1796515200)	/* 2026-12-06T00:00:00Z */

/* codec - every field survives, damage is refused whole */
static void
codec(void **state)
{
	struct rstate	 r, s;
	struct buf	 b;
	size_t		 i;

	(void)state;
	rstate_init(&r, 1000);
	r.status = RSTATE_PENDING;
	r.first_try = 1001;
	r.attempts = 3;
	r.size = 812;
	r.rua_known = 1;
	r.ndest = 2;
	snprintf(r.dest[0].uri, sizeof(r.dest[0].uri), "mailto:a@d.example");
	r.dest[0].state = RDEST_SENT;
	snprintf(r.dest[1].uri, sizeof(r.dest[1].uri),
	    "https://c.d.example/tlsrpt");
	r.dest[1].state = RDEST_INTENT;
	r.dest[1].intent_at = 1002;
	r.dest[1].attempts = 2;
	snprintf(r.dest[1].why, sizeof(r.dest[1].why), "http-status: 503");
	buf_init(&b, 65536);
	rstate_encode(&r, &b);
	assert_int_equal(rstate_decode(b.data, b.len, &s), 0);
	assert_int_equal(s.status, RSTATE_PENDING);
	assert_int_equal(s.first_try, 1001);
	assert_int_equal(s.size, 812);
	assert_int_equal(s.ndest, 2);
	assert_int_equal(s.dest[1].state, RDEST_INTENT);
	assert_int_equal(s.dest[1].intent_at, 1002);
	assert_string_equal(s.dest[1].why, "http-status: 503");
	assert_string_equal(s.dest[1].uri, "https://c.d.example/tlsrpt");
	for (i = 0; i < b.len; i++)
		assert_int_equal(rstate_decode(b.data, i, &s), -1);
	b.data[1] = 9;		/* no such status */
	assert_int_equal(rstate_decode(b.data, b.len, &s), -1);
	assert_int_equal(s.ndest, 0);
	buf_free(&b);
	assert_string_equal(rstate_status_name(RSTATE_NO_RUA), "no-rua");
	assert_string_equal(rstate_dest_name(RDEST_INTENT), "intent");
}

/* keys - "K/YYYY-MM-DD/DOMAIN" both ways */
static void
keys(void **state)
{
	char	 k[RSTATE_KEY_LEN], d[DOMAIN_BUFSZ];
	int64_t	 day;

	(void)state;
	assert_string_equal(rstate_key(k, 'c', DAY, "d.example"),
	    "c/2026-12-06/d.example");
	assert_int_equal(rstate_key_parse(k, &day, d), 0);
	assert_true(day == DAY);
	assert_string_equal(d, "d.example");
	assert_int_equal(rstate_key_parse("c/2026-02-31/d.example", &day, d),
	    -1);
	assert_int_equal(rstate_key_parse("c/2026-12-06", &day, d), -1);
	assert_int_equal(rstate_key_parse("c/20x6-12-06/d.example", &day, d),
	    -1);
}

/* msgid_parse - rstate_msgid_parse of a string, submitter
 * mail.s.example */
static int
msgid_parse(const char *s)
{
	char	 d[DOMAIN_BUFSZ];
	int64_t	 day;
	size_t	 dest;

	return (rstate_msgid_parse(s, strlen(s), "mail.s.example", &day,
	    &dest, d));
}

/* msgid - our Message-IDs, and what is not one */
static void
msgid(void **state)
{
	char	 m[RSTATE_MSGID_LEN], d[DOMAIN_BUFSZ];
	int64_t	 day;
	size_t	 dest;

	(void)state;
	assert_string_equal(rstate_msgid(m, DAY, 1, "d.example",
	    "mail.s.example"), "<tlsrpt.20261206.1.d.example@mail.s.example>");
	assert_int_equal(rstate_msgid_parse(m, strlen(m), "mail.s.example",
	    &day, &dest, d), 0);
	assert_true(day == DAY);
	assert_int_equal(dest, 1);
	assert_string_equal(d, "d.example");
	/* another submitter's, someone else's, a forged one */
	assert_int_equal(rstate_msgid_parse(m, strlen(m), "s.example", &day,
	    &dest, d), -1);
	assert_int_equal(msgid_parse("<20261206.x@mail.s.example>"), -1);
	assert_int_equal(msgid_parse("<tlsrpt.20261306.1.d.example@"
	    "mail.s.example>"), -1);
	assert_int_equal(msgid_parse("<tlsrpt.20261206.1.d..example@"
	    "mail.s.example>"), -1);
	assert_int_equal(msgid_parse("<tlsrpt.20261206.1.@mail.s.example>"),
	    -1);
	assert_int_equal(msgid_parse("<tlsrpt.20261206.x.d.example@"
	    "mail.s.example>"), -1);
	assert_int_equal(msgid_parse("<tlsrpt.20261206.2.d.example@"
	    "mail.s.example>"), 0);
}

/* count_cb - store_walk's callback: counts keys */
static int
count_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	size_t	*n = arg;

	(void)key;
	(void)v;
	(void)vlen;
	(*n)++;
	return (0);
}

/* store - put, get, walk by prefix, counters; an aborted transaction
 * leaves nothing (a crash before the commit) */
static void
store(void **state)
{
	char		 dir[] = "/tmp/test_rstate.XXXXXX", err[256], path[256];
	struct store	*s;
	const void	*v;
	size_t		 vlen, n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/db", dir);
	assert_non_null(s = store_open(path, 0, err, sizeof(err)));
	assert_int_equal(store_begin(s, 1), 0);
	assert_int_equal(store_begin(s, 1), -1);	/* one at a time */
	assert_int_equal(store_put(s, "c/2026-12-06/a.example", "1", 1), 0);
	assert_int_equal(store_put(s, "c/2026-12-06/b.example", "2", 1), 0);
	assert_int_equal(store_put(s, "r/2026-12-06/a.example", "3", 1), 0);
	assert_int_equal(store_counter_add(s, "sessions", 5), 0);
	assert_int_equal(store_counter_add(s, "sessions", 2), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(store_begin(s, 1), 0);
	assert_int_equal(store_put(s, "c/2026-12-07/a.example", "4", 1), 0);
	assert_int_equal(store_counter_add(s, "sessions", 100), 0);
	store_abort(s);
	assert_int_equal(store_begin(s, 0), 0);
	assert_int_equal(store_walk(s, "c/", count_cb, &n), 0);
	assert_int_equal(n, 2);			/* not the aborted one */
	assert_int_equal(store_counter(s, "sessions"), 7);
	assert_int_equal(store_get(s, "r/2026-12-06/a.example", &v, &vlen), 1);
	assert_memory_equal(v, "3", 1);
	assert_int_equal(store_get(s, "nothing", &v, &vlen), 0);
	assert_int_equal(store_put(s, "x", "y", 1), -1);	/* read txn */
	store_abort(s);
	store_close(s);
	/* read-only handles read, never write */
	assert_non_null(s = store_open(path, 1, err, sizeof(err)));
	assert_int_equal(store_begin(s, 1), -1);
	assert_int_equal(store_begin(s, 0), 0);
	assert_int_equal(store_counter(s, "sessions"), 7);
	store_abort(s);
	store_close(s);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* deletable - a day's state goes after keep_days, but not while its
 * report is still to be sent (made and deleted in one step, it was never
 * sent: tests/fault/tlsrpt-clock.sh, a clock step of 9 days) */
static void
deletable(void **state)
{
	struct rstate	 r;
	const int64_t	 day = 1700006400, keep = 7;
	const int64_t	 edge = day + 86400 * (keep + 1);
	static const enum rstate_status done[] = { RSTATE_DONE,
	    RSTATE_NO_RUA, RSTATE_FAILED };
	size_t		 i;

	(void)state;
	assert_false(rstate_deletable(NULL, day, keep, edge));
	assert_true(rstate_deletable(NULL, day, keep, edge + 1));
	rstate_init(&r, day + 86400);
	r.status = RSTATE_PENDING;
	assert_false(rstate_deletable(&r, day, keep, edge + 1));
	assert_false(rstate_deletable(&r, day, keep, edge + 400 * 86400));
	for (i = 0; i < sizeof(done) / sizeof(done[0]); i++) {
		r.status = done[i];
		assert_false(rstate_deletable(&r, day, keep, edge));
		assert_true(rstate_deletable(&r, day, keep, edge + 1));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codec),
		cmocka_unit_test(keys),
		cmocka_unit_test(msgid),
		cmocka_unit_test(store),
		cmocka_unit_test(deletable),
	};

	return (cmocka_run_group_tests_name("rstate", tests, NULL, NULL));
}
