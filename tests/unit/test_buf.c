/*
 * test_buf.c - unit tests for the bounded buffer
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"

static void
append_within_max(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 8);
	assert_int_equal(buf_append(&b, "abcd", 4), 0);
	assert_int_equal(buf_append_str(&b, "efgh"), 0);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, "abcdefgh", 8);
	assert_false(b.error);
	buf_free(&b);
}

static void
overflow_is_sticky(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 4);
	assert_int_equal(buf_append(&b, "abc", 3), 0);
	assert_int_equal(buf_append(&b, "de", 2), -1);
	assert_true(b.error);
	assert_int_equal(b.len, 3);
	/* still failing though one byte would fit */
	assert_int_equal(buf_append_char(&b, 'x'), -1);
	buf_reset(&b);
	assert_false(b.error);
	assert_int_equal(buf_append(&b, "wxyz", 4), 0);
	buf_free(&b);
}

static void
appendf_long_and_bounded(void **state)
{
	struct buf b;
	char	 big[2000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_init(&b, 4000);
	assert_int_equal(buf_appendf(&b, "%s-%d", big, 42), 0);
	assert_int_equal(b.len, 1999 + 3);
	assert_memory_equal(b.data + 1999, "-42", 3);
	assert_int_equal(buf_appendf(&b, "%s", big), -1);
	assert_int_equal(b.len, 2002);
	buf_free(&b);
}

static void
fixed_storage_never_grows(void **state)
{
	struct buf b;
	char	 store[5];

	(void)state;
	buf_init_fixed(&b, store, sizeof(store));
	assert_int_equal(buf_append(&b, "12345", 5), 0);
	assert_null(buf_cstr(&b));
	assert_int_equal(buf_append_char(&b, '6'), -1);
	buf_reset(&b);
	assert_int_equal(buf_append(&b, "12", 2), 0);
	assert_string_equal(buf_cstr(&b), "12");
	buf_free(&b);
}

static void
consume_moves_rest(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 100);
	buf_append_str(&b, "hello world");
	buf_consume(&b, 6);
	assert_int_equal(b.len, 5);
	assert_string_equal(buf_cstr(&b), "world");
	buf_consume(&b, 5);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

static void
json_escapes_everything_unsafe(void **state)
{
	struct buf	 b;
	const char	 raw[] = "a\"b\\c\n\x01\x7f\xc3\xa9";

	(void)state;
	buf_init(&b, 256);
	buf_append_char(&b, '{');
	buf_json_key(&b, "k");
	buf_json_str(&b, raw, sizeof(raw) - 1);
	buf_json_key(&b, "n");
	buf_json_cstr(&b, NULL);
	buf_json_key(&b, "l");
	buf_append_char(&b, '[');
	buf_json_cstr(&b, "x");
	buf_append_char(&b, ']');
	buf_append_char(&b, '}');
	assert_string_equal(buf_cstr(&b), "{\"k\":\"a\\\"b\\\\c\\u000a"
	    "\\u0001\\u007f\\u00c3\\u00a9\",\"n\":null,\"l\":[\"x\"]}");
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(append_within_max),
		cmocka_unit_test(overflow_is_sticky),
		cmocka_unit_test(appendf_long_and_bounded),
		cmocka_unit_test(fixed_storage_never_grows),
		cmocka_unit_test(consume_moves_rest),
		cmocka_unit_test(json_escapes_everything_unsafe),
	};

	return (cmocka_run_group_tests_name("buf", tests, NULL, NULL));
}
