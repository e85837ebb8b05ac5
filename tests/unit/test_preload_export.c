/*
 * test_preload_export.c - unit tests for the EFF list writer of
 * postsmtpsts-cache export --preload (tools/preload_export.c)
 *
 * What is written is read back by the strict parser
 * (policy/preload_list.c): the round trip must give every domain with its
 * own patterns ("*.x" out as ".x", back as "*.x"), enforce; shared mx sets
 * become aliases, numbered in domain order; a set of one is inline.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "policy/preload_list.h"
#include "tools/preload_export.h"

#define MX(s)	(s), (sizeof(s))

/* Sorted by domain, as the cache iterates. */
static const struct preload_export_entry entries[] = {
	{ "a.example", 2, MX("mx1.shared.example\0*.shared.example") },
	{ "b.example", 1, MX("mx.b.example") },
	{ "c.example", 2, MX("mx1.shared.example\0*.shared.example") },
	{ "d.example", 1, MX("*.google.example") },
	{ "e.example", 1, MX("*.google.example") },
};
#define NENTRIES	(sizeof(entries) / sizeof(entries[0]))

/* round_trip - written, parsed back: the same domains and patterns */
static void
round_trip(void **state)
{
	struct preload_list *l;
	const struct preload_entry *e;
	struct buf	 out;
	char		 why[512];
	size_t		 i;

	(void)state;
	buf_init(&out, PRELOAD_LIST_MAX);
	assert_int_equal(preload_export_json(entries, NENTRIES, 1796601600,
	    1796688000, "test \"author\"", &out), 0);
	l = preload_list_parse("export", out.data, out.len, why, sizeof(why));
	if (l == NULL)
		fail_msg("%s\n%.*s", why, (int)out.len, out.data);
	assert_int_equal(l->n, NENTRIES);
	assert_true(l->timestamp == 1796601600);
	assert_true(l->expires == 1796688000);
	assert_string_equal(l->author, "test ?author?");
	for (i = 0; i < NENTRIES; i++) {
		e = preload_list_find(l, entries[i].domain);
		assert_non_null(e);
		assert_int_equal(e->mode, PRELOAD_ENFORCE);
		assert_int_equal(e->nmx, entries[i].nmx);
		assert_int_equal(e->mxlen, entries[i].mxlen);
		assert_memory_equal(e->mx, entries[i].mx, e->mxlen);
	}
	preload_list_free(l);
	/* the shared sets as aliases, in domain order; b inline */
	assert_non_null(strstr(buf_cstr(&out), "\"mx1\": {\"mode\": \"enforce\", "
	    "\"mxs\": [\"mx1.shared.example\", \".shared.example\"]}"));
	assert_non_null(strstr(buf_cstr(&out), "\"mx2\": {\"mode\": \"enforce\", "
	    "\"mxs\": [\".google.example\"]}"));
	assert_null(strstr(buf_cstr(&out), "\"mx3\""));
	assert_non_null(strstr(buf_cstr(&out), "\"a.example\": {\"policy-alias\": "
	    "\"mx1\"}"));
	assert_non_null(strstr(buf_cstr(&out), "\"c.example\": {\"policy-alias\": "
	    "\"mx1\"}"));
	assert_non_null(strstr(buf_cstr(&out), "\"e.example\": {\"policy-alias\": "
	    "\"mx2\"}"));
	assert_non_null(strstr(buf_cstr(&out), "\"b.example\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.b.example\"]}"));
	assert_non_null(strstr(buf_cstr(&out), "\"timestamp\": "
	    "\"2026-12-07T00:00:00.000000+00:00\""));
	buf_free(&out);
}

/* empty - no policy: a valid, empty list */
static void
empty(void **state)
{
	struct preload_list *l;
	struct buf	 out;
	char		 why[512];

	(void)state;
	buf_init(&out, PRELOAD_LIST_MAX);
	assert_int_equal(preload_export_json(NULL, 0, 1, 2, "x", &out), 0);
	l = preload_list_parse("export", out.data, out.len, why, sizeof(why));
	if (l == NULL)
		fail_msg("%s", why);
	assert_int_equal(l->n, 0);
	preload_list_free(l);
	buf_free(&out);
}

/* too_small - an output limit that cannot hold the list: -1 */
static void
too_small(void **state)
{
	struct buf	 out;

	(void)state;
	buf_init(&out, 64);
	assert_int_equal(preload_export_json(entries, NENTRIES, 1, 2, "x",
	    &out), -1);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(empty),
		cmocka_unit_test(too_small),
	};

	return (cmocka_run_group_tests_name("preload_export", tests, NULL,
	    NULL));
}
