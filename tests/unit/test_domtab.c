/*
 * test_domtab.c - unit tests for the domain hash table
 *
 * Each case runs once with one bucket (every domain collides: the chains
 * are what is tested) and once with many.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "lib/domtab.h"

/* An entry as the worker and the resolver have: the node not first. */
struct entry {
	int		 value;
	struct domtab_node node;
};

static const char *const domains[] = {
	"example.com", "example.org", "a.example.com", "b", "exampl",
	"example.co", "mx.example.net", "xn--bcher-kva.example",
};
#define NDOMAINS (sizeof(domains) / sizeof(domains[0]))

static const size_t bucket_counts[] = { 1, 2, 1024 };

/* find_after_insert - every inserted domain is found, with its entry; a
 * prefix or extension of one is not */
static void
find_after_insert(void **state)
{
	struct entry	 e[NDOMAINS];
	struct domtab	 t;
	struct domtab_node *n;
	size_t		 b, i;

	(void)state;
	for (b = 0; b < sizeof(bucket_counts) / sizeof(bucket_counts[0]); b++) {
		domtab_init(&t, bucket_counts[b]);
		for (i = 0; i < NDOMAINS; i++) {
			e[i].value = (int)i;
			domtab_insert(&t, &e[i].node, domains[i],
			    strlen(domains[i]));
		}
		assert_int_equal(t.count, NDOMAINS);
		for (i = 0; i < NDOMAINS; i++) {
			n = domtab_find(&t, domains[i], strlen(domains[i]));
			assert_non_null(n);
			assert_int_equal(DOMTAB_ENTRY(n, struct entry,
			    node)->value, (int)i);
			assert_string_equal(n->domain, domains[i]);
		}
		assert_null(domtab_find(&t, "example.c", 9));
		assert_null(domtab_find(&t, "example.comm", 12));
		assert_null(domtab_find(&t, "EXAMPLE.COM", 11));
		/* a length, not a NUL, ends the key */
		assert_non_null(domtab_find(&t, "example.comX", 11));
		domtab_free(&t);
	}
}

/* remove_each - removing one leaves the others findable; removing twice
 * is harmless */
static void
remove_each(void **state)
{
	struct entry	 e[NDOMAINS];
	struct domtab	 t;
	size_t		 b, i, j;

	(void)state;
	for (b = 0; b < sizeof(bucket_counts) / sizeof(bucket_counts[0]); b++) {
		domtab_init(&t, bucket_counts[b]);
		for (i = 0; i < NDOMAINS; i++)
			domtab_insert(&t, &e[i].node, domains[i],
			    strlen(domains[i]));
		for (i = 0; i < NDOMAINS; i++) {
			domtab_remove(&t, &e[i].node);
			domtab_remove(&t, &e[i].node);
			assert_int_equal(t.count, NDOMAINS - i - 1);
			for (j = 0; j < NDOMAINS; j++)
				if (j <= i)
					assert_null(domtab_find(&t, domains[j],
					    strlen(domains[j])));
				else
					assert_ptr_equal(domtab_find(&t,
					    domains[j], strlen(domains[j])),
					    &e[j].node);
		}
		domtab_free(&t);
	}
}

/* next_visits_all_once - domtab_next walks every node exactly once */
static void
next_visits_all_once(void **state)
{
	struct entry	 e[NDOMAINS];
	struct domtab	 t;
	struct domtab_node *n;
	int		 seen[NDOMAINS];
	size_t		 b, i, visits;

	(void)state;
	for (b = 0; b < sizeof(bucket_counts) / sizeof(bucket_counts[0]); b++) {
		domtab_init(&t, bucket_counts[b]);
		assert_null(domtab_next(&t, NULL));
		for (i = 0; i < NDOMAINS; i++) {
			e[i].value = (int)i;
			domtab_insert(&t, &e[i].node, domains[i],
			    strlen(domains[i]));
		}
		memset(seen, 0, sizeof(seen));
		visits = 0;
		for (n = domtab_next(&t, NULL); n != NULL;
		    n = domtab_next(&t, n)) {
			seen[DOMTAB_ENTRY(n, struct entry, node)->value]++;
			visits++;
		}
		assert_int_equal(visits, NDOMAINS);
		for (i = 0; i < NDOMAINS; i++)
			assert_int_equal(seen[i], 1);
		domtab_free(&t);
	}
}

/* longest_domain - a DOMAIN_MAX_LEN key fits and is NUL-terminated */
static void
longest_domain(void **state)
{
	char		 d[DOMAIN_MAX_LEN];
	struct entry	 e;
	struct domtab	 t;

	(void)state;
	memset(d, 'a', sizeof(d));
	domtab_init(&t, 16);
	domtab_insert(&t, &e.node, d, sizeof(d));
	assert_ptr_equal(domtab_find(&t, d, sizeof(d)), &e.node);
	assert_int_equal(strlen(e.node.domain), DOMAIN_MAX_LEN);
	domtab_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_after_insert),
		cmocka_unit_test(remove_each),
		cmocka_unit_test(next_visits_all_once),
		cmocka_unit_test(longest_domain),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
