/*
 * test_preload_store.c - unit tests for the preload store
 * (lib/preload_store.c) on a real LMDB environment in a temporary
 * directory: a list replaced in one transaction, its timestamp that must
 * not go back, one entry a domain across lists (enforce kept), the lists'
 * meta data, a reader that sees a writer's commit, a store that does not
 * exist yet.
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

#include "lib/preload_store.h"

#define MX(s)	(s), sizeof(s)

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	(void)snprintf(dir, sizeof(dir), "/tmp/test_preload_store.XXXXXX");
	return (mkdtemp(dir) == NULL ? -1 : 0);
}

static int
teardown(void **state)
{
	char	 cmd[128];

	(void)state;
	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd) == 0 ? 0 : -1);
}

/* meta - a list's meta data */
static struct preload_store_list
meta(const char *name, int64_t ts, int64_t exp)
{
	struct preload_store_list m;

	memset(&m, 0, sizeof(m));
	(void)snprintf(m.name, sizeof(m.name), "%s", name);
	m.timestamp = ts;
	m.expires = exp;
	m.loaded_at = ts + 1;
	(void)snprintf(m.source, sizeof(m.source), "/x/%s.json", name);
	(void)snprintf(m.signer, sizeof(m.signer), "ABCD");
	return (m);
}

/* count_cb - preload_store_lists: the names, into a 128-byte buffer */
static void
count_cb(const struct preload_store_list *l, void *arg)
{
	char	*names = arg;
	size_t	 n = strlen(names);

	(void)snprintf(names + n, 128 - n, "%s ", l->name);
}

static void
store_rules(void **state)
{
	static const struct preload_store_entry eff1[] = {
		{ "a.example", 2, 2, MX("mx.a.example\0*.a.example") },
		{ "t.example", 1, 1, MX("mx.t.example") },
	};
	static const struct preload_store_entry eff2[] = {
		{ "b.example", 2, 1, MX("mx.b.example") },
	};
	static const struct preload_store_entry ours[] = {
		{ "a.example", 1, 1, MX("other.example") },
		{ "t.example", 2, 1, MX("ours.t.example") },
	};
	struct preload_store *w, *r;
	struct preload_store_list m, held;
	struct preload_store_hit hit;
	char	 err[512], names[128] = "";

	(void)state;
	/* a reader before the store exists */
	assert_null(preload_store_open(dir, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "no preload store"));
	w = preload_store_open(dir, 0, err, sizeof(err));
	assert_non_null(w);
	r = preload_store_open(dir, 1, err, sizeof(err));
	assert_non_null(r);

	m = meta("eff", 1000, 9000);
	assert_int_equal(preload_store_replace(w, &m, eff1, 2, err,
	    sizeof(err)), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(preload_store_get(r, "a.example", &hit), 1);
	assert_int_equal(hit.mode, 2);
	assert_string_equal(hit.list, "eff");
	assert_true(hit.timestamp == 1000 && hit.expires == 9000);
	assert_int_equal(hit.nmx, 2);
	assert_memory_equal(hit.mx, "mx.a.example\0*.a.example",
	    sizeof("mx.a.example\0*.a.example"));
	assert_int_equal(preload_store_get(r, "absent.example", &hit), 0);

	/* older: refused, nothing changed */
	m = meta("eff", 999, 9000);
	assert_int_equal(preload_store_replace(w, &m, eff2, 1, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "preload list eff: timestamp 999 is older "
	    "than the one held (1000): refused");
	assert_int_equal(preload_store_get(r, "a.example", &hit), 1);
	assert_int_equal(preload_store_get(r, "b.example", &hit), 0);

	/* another list: its testing entry does not replace eff's enforce,
	 * its enforce entry replaces eff's testing one */
	m = meta("ours", 500, 9000);
	assert_int_equal(preload_store_replace(w, &m, ours, 2, err,
	    sizeof(err)), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(preload_store_get(r, "a.example", &hit), 1);
	assert_string_equal(hit.list, "eff");
	assert_int_equal(preload_store_get(r, "t.example", &hit), 1);
	assert_string_equal(hit.list, "ours");
	assert_int_equal(hit.mode, 2);

	/* newer eff: its old entries go (a.example), ours' stay */
	m = meta("eff", 2000, 9000);
	assert_int_equal(preload_store_replace(w, &m, eff2, 1, err,
	    sizeof(err)), 0);
	assert_int_equal(preload_store_get(r, "a.example", &hit), 0);
	assert_int_equal(preload_store_get(r, "b.example", &hit), 1);
	assert_int_equal(preload_store_get(r, "t.example", &hit), 1);
	assert_string_equal(hit.list, "ours");

	assert_int_equal(preload_store_list_get(r, "eff", &held), 1);
	assert_true(held.timestamp == 2000 && held.n == 1);
	assert_string_equal(held.source, "/x/eff.json");
	assert_string_equal(held.signer, "ABCD");
	assert_int_equal(preload_store_list_get(r, "none", &held), 0);
	assert_int_equal(preload_store_lists(r, count_cb, names), 0);
	assert_string_equal(names, "eff ours ");

	/* a name the store cannot key */
	m = meta("", 1, 2);
	assert_int_equal(preload_store_replace(w, &m, eff2, 1, err,
	    sizeof(err)), -1);
	preload_store_close(r);
	preload_store_close(w);
	preload_store_close(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(store_rules),
	};

	return (cmocka_run_group_tests_name("preload_store", tests, setup,
	    teardown));
}
