/*
 * test_preload_list.c - unit tests for the EFF preload list parser
 * (policy/preload_list.c)
 *
 * Each table row is its own TAP test: a list text, copied into a heap
 * block of exactly its length (no NUL after it, so ASan sees any read
 * past the end), and either the entries it must give or the exact
 * "source: entry: reason" message it must fail with.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy/preload_list.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* The head every list shares: timestamp 2014-06-06T14:30:16Z. */
#define HEAD	"{\"timestamp\": \"2014-06-06T14:30:16.000000+00:00\", " \
		"\"expires\": 1433601016, \"version\": \"0.1\", "
#define POL(x)	HEAD "\"policies\": {" x "}}"

struct pl_case {
	const char *name;
	const char *text;
	const char *why;	/* NULL: parses */
	const char *domain;	/* on success: one entry to look at */
	int	 mode;
	const char *mx;		/* its patterns, ' ' between */
	size_t	 n;		/* number of entries */
};

static const struct pl_case pl_cases[] = {
	{ "an enforce entry, a suffix becomes *.", POL("\"example.com\": "
	    "{\"mode\": \"enforce\", \"mxs\": [\".mail.example.com\", "
	    "\"mx.example.net\"]}"), NULL, "example.com", PRELOAD_ENFORCE,
	    "*.mail.example.com mx.example.net", 1 },
	{ "a testing entry, upper case lowered", POL("\"Example.ORG\": "
	    "{\"mode\": \"testing\", \"mxs\": [\"MX.Example.org\"]}"), NULL,
	    "example.org", PRELOAD_TESTING, "mx.example.org", 1 },
	{ "an alias resolved, author and aliases", HEAD "\"author\": "
	    "\"Electronic Frontier Foundation\", \"policy-aliases\": "
	    "{\"google\": {\"mode\": \"enforce\", \"mxs\": [\".l.google.com\"]"
	    "}}, \"policies\": {\"gmail.com\": {\"policy-alias\": \"google\"},"
	    " \"a.example\": {\"mode\": \"testing\", \"mxs\": [\"mx.a.example\""
	    "]}}}", NULL, "gmail.com", PRELOAD_ENFORCE, "*.l.google.com", 2 },
	{ "an alias of an alias", HEAD "\"policy-aliases\": {\"a\": "
	    "{\"policy-alias\": \"b\"}, \"b\": {\"mode\": \"enforce\", "
	    "\"mxs\": [\"mx.example.com\"]}}, \"policies\": {\"example.com\": "
	    "{\"policy-alias\": \"a\"}}}", NULL, "example.com",
	    PRELOAD_ENFORCE, "mx.example.com", 1 },
	{ "integer epochs, no policies", "{\"timestamp\": 1, \"expires\": 2, "
	    "\"version\": \"0.1\", \"policies\": {}}", NULL, NULL, 0, NULL, 0 },
	{ "not JSON", "{\"timestamp\": ", "t: list: not valid JSON: "
	    "truncated (at byte 14)", NULL, 0, NULL, 0 },
	{ "bytes after the object", POL("") " x",
	    "t: list: not valid JSON: unexpected "
	    "character (at byte 107)", NULL, 0, NULL, 0 },
	{ "a trailing comma (strict JSON)", POL("\"a.example\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.a.example\"],}"), "t: list: not valid "
	    "JSON: unexpected character (at byte 161)", NULL, 0, NULL, 0 },
	{ "an unknown top-level property", HEAD "\"policies\": {}, "
	    "\"extra\": 1}", "t: top level: unknown property \"extra\"",
	    NULL, 0, NULL, 0 },
	{ "an unknown entry property", POL("\"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.example.com\"], \"x\": 1}"),
	    "t: example.com: unknown property \"x\"", NULL, 0, NULL, 0 },
	{ "no version", "{\"timestamp\": 1, \"expires\": 2, \"policies\": {}}",
	    "t: top level: no \"version\"", NULL, 0, NULL, 0 },
	{ "another version", "{\"timestamp\": 1, \"expires\": 2, \"version\": "
	    "\"0.2\", \"policies\": {}}", "t: version: not \"0.1\"", NULL, 0,
	    NULL, 0 },
	{ "a timestamp without an offset", "{\"timestamp\": "
	    "\"2014-06-06T14:30:16\", \"expires\": 2, \"version\": \"0.1\", "
	    "\"policies\": {}}", "t: timestamp: \"2014-06-06T14:30:16\" is not "
	    "an RFC 3339 date-time with an offset", NULL, 0, NULL, 0 },
	{ "expires before the timestamp", "{\"timestamp\": 5, \"expires\": 4, "
	    "\"version\": \"0.1\", \"policies\": {}}",
	    "t: expires: not after the timestamp", NULL, 0, NULL, 0 },
	{ "a domain that is not a domain", POL("\"exa_mple.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.example.com\"]}"),
	    "t: exa_mple.com: not a domain: contains a character "
	    "other than letters, digits, '-', '_' and '.'",
	    NULL, 0, NULL, 0 },
	{ "a U-label domain (A-labels only)", POL("\"b\xc3\xbc" "cher.de\": "
	    "{\"mode\": \"enforce\", \"mxs\": [\"mx.example.com\"]}"),
	    "t: b??cher.de: not a domain: contains a character "
	    "other than letters, digits, '-', '_' and '.'",
	    NULL, 0, NULL, 0 },
	{ "an mx that is not a domain", POL("\"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.example.com\", \"a..b\"]}"),
	    "t: example.com: mxs[1]: \"a..b\" is not a host name: has an empty "
	    "label", NULL, 0, NULL, 0 },
	{ "a wildcard written *.", POL("\"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"*.example.com\"]}"),
	    "t: example.com: mxs[0]: \"*.example.com\": a wildcard is written "
	    "as one leading dot (\".example.com\")", NULL, 0, NULL, 0 },
	{ "a wildcard inside", POL("\"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.*.example.com\"]}"),
	    "t: example.com: mxs[0]: \"mx.*.example.com\": a wildcard is "
	    "written as one leading dot (\".example.com\")", NULL, 0, NULL, 0 },
	{ "two leading dots", POL("\"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"..example.com\"]}"),
	    "t: example.com: mxs[0]: \"..example.com\" is not a host name "
	    "suffix: has an empty label", NULL, 0, NULL, 0 },
	{ "mode none", POL("\"example.com\": {\"mode\": \"none\", \"mxs\": "
	    "[\"mx.example.com\"]}"), "t: example.com: mode: \"none\" is "
	    "neither \"testing\" nor \"enforce\"", NULL, 0, NULL, 0 },
	{ "no mxs", POL("\"example.com\": {\"mode\": \"enforce\"}"),
	    "t: example.com: no \"mxs\"", NULL, 0, NULL, 0 },
	{ "empty mxs", POL("\"example.com\": {\"mode\": \"enforce\", \"mxs\": "
	    "[]}"), "t: example.com: mxs: empty", NULL, 0, NULL, 0 },
	{ "a duplicate domain", POL("\"example.com\": {\"mode\": \"testing\", "
	    "\"mxs\": [\"mx.example.com\"]}, \"example.com\": {\"mode\": "
	    "\"enforce\", \"mxs\": [\"mx.example.com\"]}"),
	    "t: example.com: duplicate domain", NULL, 0, NULL, 0 },
	{ "a duplicate domain by case", POL("\"example.com\": {\"mode\": "
	    "\"testing\", \"mxs\": [\"mx.example.com\"]}, \"EXAMPLE.com\": "
	    "{\"mode\": \"enforce\", \"mxs\": [\"mx.example.com\"]}"),
	    "t: example.com: duplicate domain (case)", NULL, 0, NULL, 0 },
	{ "a duplicate key inside an entry", POL("\"example.com\": {\"mode\": "
	    "\"testing\", \"mode\": \"enforce\", \"mxs\": [\"mx.example.com\"]"
	    "}"), "t: example.com: duplicate key \"mode\"", NULL, 0, NULL, 0 },
	{ "a duplicate top-level key", HEAD "\"policies\": {}, \"policies\": "
	    "{}}", "t: top level: duplicate key \"policies\"", NULL, 0, NULL,
	    0 },
	{ "a key with an escape", HEAD "\"policies\": {\"a\\u002eexample\": "
	    "{}}}", "t: key: a key with a backslash escape", NULL, 0, NULL, 0 },
	{ "a dangling alias", POL("\"example.com\": {\"policy-alias\": "
	    "\"nope\"}"), "t: example.com: policy-alias \"nope\" is not "
	    "defined", NULL, 0, NULL, 0 },
	{ "an alias loop", HEAD "\"policy-aliases\": {\"a\": {\"policy-alias\":"
	    " \"b\"}, \"b\": {\"policy-alias\": \"a\"}}, \"policies\": {}}",
	    "t: alias a: alias loop through \"b\"", NULL, 0, NULL, 0 },
	{ "an alias with mode too", POL("\"example.com\": {\"policy-alias\": "
	    "\"x\", \"mode\": \"enforce\"}"), "t: example.com: "
	    "\"policy-alias\" with \"mode\"", NULL, 0, NULL, 0 },
	{ "a NUL byte", "{\"timestamp\": 1\0}", "t: list: a NUL byte", NULL, 0,
	    NULL, 0 },
};

/* pl_mx_join - an entry's patterns, ' ' between */
static void
pl_mx_join(const struct preload_entry *e, char *out, size_t outsz)
{
	const char	*p = e->mx;
	size_t		 i, n = 0;

	out[0] = '\0';
	for (i = 0; i < e->nmx; i++) {
		n += (size_t)snprintf(out + n, outsz - n, "%s%s", i ? " " : "",
		    p);
		p += strlen(p) + 1;
	}
}

/* run_pl_case - one pl_cases row */
static void
run_pl_case(void **state)
{
	const struct pl_case *tc = *state;
	struct preload_list *l;
	const struct preload_entry *e;
	size_t	 len = strlen(tc->text);
	char	*text, why[512], mx[1024];

	if (strcmp(tc->name, "a NUL byte") == 0)
		len = 18;
	text = malloc(len);
	assert_non_null(text);
	memcpy(text, tc->text, len);
	l = preload_list_parse("t", text, len, why, sizeof(why));
	if (tc->why != NULL) {
		assert_null(l);
		assert_string_equal(why, tc->why);
	} else {
		assert_non_null(l);
		assert_string_equal(why, "");
		assert_int_equal(l->n, tc->n);
		assert_true(l->timestamp == 1402065016 || l->timestamp == 1);
		if (tc->domain != NULL) {
			e = preload_list_find(l, tc->domain);
			assert_non_null(e);
			assert_int_equal(e->mode, tc->mode);
			pl_mx_join(e, mx, sizeof(mx));
			assert_string_equal(mx, tc->mx);
		}
		assert_null(preload_list_find(l, "absent.example"));
	}
	preload_list_free(l);
	free(text);
}

/* too_big - a list over PRELOAD_LIST_MAX is refused before parsing */
static void
too_big(void **state)
{
	char	 why[256];

	(void)state;
	/* the length alone decides: the bytes are never read */
	assert_null(preload_list_parse("big.json", "{", 100 * 1024 * 1024,
	    why, sizeof(why)));
	assert_string_equal(why, "big.json: list: 104857600 bytes, more than "
	    "8388608");
}

/* times - RFC 3339 date-times, offsets, fractions and bad ones */
static void
times(void **state)
{
	int64_t	 t;

	(void)state;
	assert_int_equal(preload_list_time("1970-01-01T00:00:00Z", 20, &t), 0);
	assert_true(t == 0);
	assert_int_equal(preload_list_time("2014-06-06T14:30:16.000000+00:00",
	    32, &t), 0);
	assert_true(t == 1402065016);
	assert_int_equal(preload_list_time("2014-06-06T16:30:16.5+02:00", 27,
	    &t), 0);
	assert_true(t == 1402065016);
	assert_int_equal(preload_list_time("2000-02-29t00:00:00z", 20, &t), 0);
	assert_true(t == 951782400);
	assert_int_equal(preload_list_time("2001-02-29T00:00:00Z", 20, &t),
	    -1);
	assert_int_equal(preload_list_time("2014-13-06T14:30:16Z", 20, &t),
	    -1);
	assert_int_equal(preload_list_time("2014-06-06T14:30:16.Z", 21, &t),
	    -1);
	assert_int_equal(preload_list_time("2014-06-06T14:30:16+0000", 24, &t),
	    -1);
	assert_int_equal(preload_list_time("2014-06-06", 10, &t), -1);
}

/* many - a list of 5000 domains sorted and found */
static void
many(void **state)
{
	struct preload_list *l;
	size_t	 i, n = 0, cap = 5000 * 80 + 256;
	char	*text = malloc(cap), why[256], d[64];

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%s", HEAD "\"policies\": {");
	for (i = 0; i < 5000; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s\"d%zu.example\": "
		    "{\"mode\": \"enforce\", \"mxs\": [\"mx.example\"]}",
		    i ? ", " : "", (5000 - i) * 7919 % 100000);
	n += (size_t)snprintf(text + n, cap - n, "}}");
	l = preload_list_parse("t", text, n, why, sizeof(why));
	assert_non_null(l);
	assert_int_equal(l->n, 5000);
	for (i = 1; i < l->n; i++)
		assert_true(strcmp(l->e[i - 1].domain, l->e[i].domain) < 0);
	(void)snprintf(d, sizeof(d), "d%zu.example", (size_t)7919 % 100000);
	assert_non_null(preload_list_find(l, d));
	preload_list_free(l);
	free(text);
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(too_big),
	cmocka_unit_test(times),
	cmocka_unit_test(many),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(pl_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(pl_cases); i++, n++) {
		tests[n].name = pl_cases[i].name;
		tests[n].test_func = run_pl_case;
		tests[n].initial_state = (void *)&pl_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("preload_list", tests, NULL,
	    NULL));
}
