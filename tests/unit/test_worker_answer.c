/*
 * test_worker_answer.c - worker_answer's verdicts: what a front worker
 * does with one socketmap request before any connection or resolver is
 * involved
 *
 * worker_answer() calls into neither the connections nor the resolver
 * client: it returns a verdict (reply now, or ask the resolver; and
 * whether a TXT id re-check is due after the reply).  The test gives it a
 * configuration (a map, pinned domains, timed exceptions), a real LMDB
 * cache in a temporary directory written beforehand, and the fake clock,
 * and checks the verdict for each kind of request, and the moment a timed
 * exception lapses.
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
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/sockmap.h"
#include "conf/config_load.h"
#include "daemon/worker_int.h"

#define T0	1700000000	/* the fake clock's wall time */

static char		 dir[64];
static struct config	*cf;
static struct worker	 w;	/* large: its scratch buffers */

/* put_sts - a fresh enforce STS record for domain, its TXT id checked at
 * checked (due once FACTS_TXT_TTL_MAX has passed since) */
static void
put_sts(struct cache *c, const char *domain, int64_t expires,
    int64_t checked)
{
	struct cache_record r = { 0 };

	r.kind = CACHE_KIND_STS;
	r.sts_mode = CACHE_STS_ENFORCE;
	r.dnssec = CACHE_DNSSEC_INSECURE;
	r.max_age = 86400;
	r.fetched_at = T0 - 100;
	r.expires_at = expires;
	r.next_refresh = T0 + 43200;
	r.txt_ttl = 300;
	r.txt_checked_at = checked;
	snprintf(r.id, sizeof(r.id), "id1");
	assert_int_equal(cache_record_mx_add(&r, "mx.example.net", 14), 0);
	assert_int_equal(cache_put(c, domain, &r), CACHE_OK);
	cache_record_release(&r);
}

/* setup - the configuration, and the cache the resolver would have
 * written */
static int
setup(void **state)
{
	char		 text[2048], err[4096];
	struct cache	*c;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_worker_answer.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return (-1);
	snprintf(text, sizeof(text), "runtime_dir = \"%s\"\n"
	    "cache {\n\tpath = \"%s/cache\"\n}\n"
	    "map \"sts\" {\n\tdane = no\n}\n"
	    "domain \"pinned.example\" { level = \"encrypt\" }\n"
	    "domain \"lapsed.example\" { level = \"may\"\n"
	    "\tuntil = \"2023-11-13\" }\n"
	    /* T0 is 2023-11-14T22:13:20Z: one second left */
	    "domain \"timed.example\" { level = \"may\"\n"
	    "\tuntil = \"2023-11-14T22:13:21Z\" }\n", dir, dir);
	if ((cf = config_load_buffer("test.conf", text, strlen(text), err,
	    sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return (-1);
	}
	clock_fake(T0, 0);
	snprintf(text, sizeof(text), "%s/cache", dir);
	if ((c = cache_open(text, 0, 0, err, sizeof(err))) == NULL) {
		fprintf(stderr, "cache_open: %s\n", err);
		return (-1);
	}
	put_sts(c, "fresh.example", T0 + 86400, T0 - 10);
	put_sts(c, "due.example", T0 + 86400, T0 - 2 * 3600);
	put_sts(c, "stale.example", T0 - 1, T0 - 10);
	put_sts(c, "lapsed.example", T0 + 86400, T0 - 10);
	put_sts(c, "timed.example", T0 + 86400, T0 - 10);
	cache_close(c);
	w.cf = cf;
	return (0);
}

static int
teardown(void **state)
{
	char		 cmd[128];

	(void)state;
	cache_close(w.cache);
	cache_record_release(&w.rec);
	cache_record_release(&w.drec);
	free(w.pin_lapsed);
	config_free(cf);
	clock_real();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return (system(cmd) == 0 ? 0 : -1);
}

/* answer - worker_answer() of "map key" */
static enum worker_answer_kind
answer(const char *map, const char *key, struct worker_answer_verdict *v)
{
	return (worker_answer(&w, map, strlen(map), key, strlen(key), v));
}

static void
verdicts(void **state)
{
	static const struct {
		const char	*name;
		const char	*map, *key;
		enum worker_answer_kind kind;
		enum sockmap_status st;		/* REPLY */
		const char	*data;		/* REPLY: starts so */
		int		 txtcheck;
		const char	*domain;	/* ASK, txtcheck */
	} t[] = {
		{ "unknown map: PERM (a table we do not serve)",
		    "nosuch", "example.com", WORKER_ANSWER_REPLY,
		    SOCKMAP_PERM, "unknown map name", 0, NULL },
		{ "key no plain domain: NOTFOUND (RFC 8461 3.4)",
		    "sts", "[192.0.2.1]", WORKER_ANSWER_REPLY,
		    SOCKMAP_NOTFOUND, "", 0, NULL },
		{ "invalid domain name: NOTFOUND",
		    "sts", "a..example", WORKER_ANSWER_REPLY,
		    SOCKMAP_NOTFOUND, "", 0, NULL },
		{ "pinned: the pin's answer, before the cache",
		    "sts", "Pinned.Example.", WORKER_ANSWER_REPLY,
		    SOCKMAP_OK, "encrypt", 0, NULL },
		{ "timed exception in force: the pin's answer",
		    "sts", "timed.example", WORKER_ANSWER_REPLY,
		    SOCKMAP_OK, "may", 0, NULL },
		{ "timed exception lapsed: the cache's answer, as unpinned",
		    "sts", "lapsed.example", WORKER_ANSWER_REPLY,
		    SOCKMAP_OK, "secure", 0, NULL },
		{ "fresh cache entry: its answer, TXT check not due",
		    "sts", "fresh.example", WORKER_ANSWER_REPLY,
		    SOCKMAP_OK, "secure", 0, NULL },
		{ "fresh entry, TXT check due: answer, then a re-check",
		    "sts", "DUE.example", WORKER_ANSWER_REPLY,
		    SOCKMAP_OK, "secure", 1, "due.example" },
		{ "expired entry: ask the resolver",
		    "sts", "stale.example", WORKER_ANSWER_ASK,
		    SOCKMAP_OK, NULL, 0, "stale.example" },
		{ "cache miss: ask the resolver, the key normalized",
		    "sts", "Miss.Example.", WORKER_ANSWER_ASK,
		    SOCKMAP_OK, NULL, 0, "miss.example" },
	};
	struct worker_answer_verdict v;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("# %s\n", t[i].name);
		assert_int_equal(answer(t[i].map, t[i].key, &v), t[i].kind);
		if (t[i].kind == WORKER_ANSWER_REPLY) {
			assert_int_equal(v.st, t[i].st);
			assert_true(v.len >= strlen(t[i].data));
			if (v.len > 0)
				assert_memory_equal(v.data, t[i].data,
				    strlen(t[i].data));
		} else {
			assert_non_null(v.map);
			assert_string_equal(v.map->name, t[i].map);
		}
		assert_int_equal(v.txtcheck, t[i].txtcheck);
		if (t[i].domain != NULL) {
			assert_string_equal(v.domain, t[i].domain);
			assert_int_equal(v.domain_len, strlen(t[i].domain));
		}
		if (t[i].txtcheck)
			assert_int_equal(v.now, T0);
	}
}

/* exception_lapses - on the fake clock: the pin answers up to its last
 * second, the cache from its end on; each lapse is noted (logged) once in
 * the worker process */
static void
exception_lapses(void **state)
{
	const struct config_domain *d;
	struct worker_answer_verdict v;

	(void)state;
	clock_fake(T0, 0);
	assert_int_equal(answer("sts", "timed.example", &v),
	    WORKER_ANSWER_REPLY);
	assert_memory_equal(v.data, "may", 3);
	assert_int_equal(v.len, 3);
	clock_advance(1000);		/* the end: 22:13:21Z */
	assert_int_equal(answer("sts", "timed.example", &v),
	    WORKER_ANSWER_REPLY);
	assert_true(v.len >= 6);
	assert_memory_equal(v.data, "secure", 6);
	assert_non_null(w.pin_lapsed);
	d = config_find_domain(cf, "timed.example");
	assert_int_equal(w.pin_lapsed[d - cf->domains], 1);
	d = config_find_domain(cf, "lapsed.example");
	assert_int_equal(w.pin_lapsed[d - cf->domains], 1);
	d = config_find_domain(cf, "pinned.example");
	assert_int_equal(w.pin_lapsed[d - cf->domains], 0);
	/* the pin without an end answers still */
	assert_int_equal(answer("sts", "pinned.example", &v),
	    WORKER_ANSWER_REPLY);
	assert_memory_equal(v.data, "encrypt", 7);
	clock_fake(T0, 0);
}

/* unknown_fails_open - what a waiter gets when nothing is known: NOTFOUND
 * by default (RFC 8461 5: fail open) */
static void
unknown_fails_open(void **state)
{
	char		 buf[64];
	struct buf	 data;

	(void)state;
	buf_init_fixed(&data, buf, sizeof(buf));
	assert_int_equal(worker_answer_unknown(&w, &data), SOCKMAP_NOTFOUND);
	assert_int_equal(data.len, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(unknown_fails_open),
		cmocka_unit_test(exception_lapses),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
