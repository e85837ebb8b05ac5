/*
 * test_netstring.c - unit tests for netstring framing
 *
 * Each decode table row is its own TAP test (named after the row).  Every
 * input is copied into a heap block of exactly its length, so a read past
 * the end is caught by ASan in --enable-sanitizers builds.
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
#include "lib/netstring.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

#define TEST_MAX	10		/* default max for table rows */
#define TEST_MB		100000		/* the limit a 1 MB claim must hit */

struct decode_case {
	const char *name;
	const char *in;
	size_t	 inlen;
	size_t	 max;
	enum netstring_status want;
	const char *payload;		/* on NETSTRING_OK */
	size_t	 payload_len;
	size_t	 consumed;
};

static const struct decode_case decode_cases[] = {
	{ "decode empty payload", IN("0:,"), TEST_MAX,
	    NETSTRING_OK, IN(""), 3 },
	{ "decode short payload", IN("5:hello,"), TEST_MAX,
	    NETSTRING_OK, IN("hello"), 8 },
	{ "decode payload holding ':' and ','", IN("7:a:b,c,d,"), TEST_MAX,
	    NETSTRING_OK, IN("a:b,c,d"), 10 },
	{ "decode payload holding NUL and CR LF", IN("5:a\0\r\nb,"),
	    TEST_MAX, NETSTRING_OK, IN("a\0\r\nb"), 8 },
	{ "decode leading zeros in length", IN("005:hello,"), TEST_MAX,
	    NETSTRING_OK, IN("hello"), 10 },
	{ "decode ten-digit zero-padded length", IN("0000000005:hello,"),
	    TEST_MAX, NETSTRING_OK, IN("hello"), 17 },
	{ "decode leaves trailing bytes unconsumed", IN("1:a,xyz"), TEST_MAX,
	    NETSTRING_OK, IN("a"), 4 },
	{ "decode exactly max", IN("10:0123456789,"), TEST_MAX,
	    NETSTRING_OK, IN("0123456789"), 14 },
	{ "decode max plus one", IN("11:0123456789a,"), TEST_MAX,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode max plus one before ':' arrives", IN("11"), TEST_MAX,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode max zero refuses one byte", IN("1:a,"), 0,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode max zero accepts empty", IN("0:,"), 0,
	    NETSTRING_OK, IN(""), 3 },
	{ "decode 1 MB length prefix", IN("1048576:"), TEST_MB,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode 1 MB length digits without ':'", IN("1048576"), TEST_MB,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode 20-digit length under a real max",
	    IN("99999999999999999999:"), TEST_MB,
	    NETSTRING_ERR_TOOLONG, NULL, 0, 0 },
	{ "decode 2^64 length with no limit never wraps",
	    IN("18446744073709551616:x,"), SIZE_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode eleven-digit length with no limit",
	    IN("00000000001:x,"), SIZE_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode eleven zero-padded digits", IN("00000000005:hello,"),
	    TEST_MAX, NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode empty input", IN(""), TEST_MAX,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode length digits only", IN("12"), 100,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode length and ':' only", IN("5:"), TEST_MAX,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode partial payload", IN("5:hel"), TEST_MAX,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode payload without ','", IN("5:hello"), TEST_MAX,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode payload shorter than declared", IN("6:hello,"), TEST_MAX,
	    NETSTRING_INCOMPLETE, NULL, 0, 0 },
	{ "decode empty length prefix", IN(":hello,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode missing ':'", IN("5hello,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode missing ',' after payload", IN("5:hello;"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode payload longer than declared", IN("3:hello,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode non-digit length", IN("x:abc,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode negative length", IN("-1:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode plus sign", IN("+1:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode space before length", IN(" 1:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode space after length", IN("1 :a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode hexadecimal length", IN("0x1:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode high-bit byte in length", IN("\xb5" "1:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode NUL in length", IN("1\0:a,"), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
	{ "decode bare ','", IN(","), TEST_MAX,
	    NETSTRING_ERR_FORMAT, NULL, 0, 0 },
};

#include "copy_exact.inc"

/* run_decode_case - one decode_cases row */
static void
run_decode_case(void **state)
{
	const struct decode_case *tc = *state;
	const char *payload = (const char *)&payload;	/* sentinel */
	size_t	 payload_len = 4242, consumed = 4343;
	char	*in;

	in = copy_exact(tc->in, tc->inlen);
	assert_int_equal(netstring_decode(in, tc->inlen, tc->max,
	    &payload, &payload_len, &consumed), tc->want);
	if (tc->want == NETSTRING_OK) {
		assert_int_equal(payload_len, tc->payload_len);
		assert_memory_equal(payload, tc->payload, tc->payload_len);
		assert_true(payload >= in && payload <= in + tc->inlen);
		assert_int_equal(consumed, tc->consumed);
	} else {
		/* netstring.h: out-parameters untouched unless OK */
		assert_ptr_equal(payload, (const char *)&payload);
		assert_int_equal(payload_len, 4242);
		assert_int_equal(consumed, 4343);
	}
	free(in);
}

/* decode_byte_by_byte - every proper prefix is INCOMPLETE, the whole OK */
static void
decode_byte_by_byte(void **state)
{
	static const struct {
		const char *in;
		size_t	 len;
	} inputs[] = {
		{ IN("0:,") },
		{ IN("5:hello,") },
		{ IN("0000000003:a,b,") },
		{ IN("15:example.com tls,") },
	};
	const char *payload;
	size_t	 i, k, plen, used;
	char	*in;

	(void)state;
	for (i = 0; i < nitems(inputs); i++) {
		for (k = 0; k < inputs[i].len; k++) {
			in = copy_exact(inputs[i].in, k);
			assert_int_equal(netstring_decode(in, k, 100, &payload,
			    &plen, &used), NETSTRING_INCOMPLETE);
			free(in);
		}
		in = copy_exact(inputs[i].in, k);
		assert_int_equal(netstring_decode(in, k, 100, &payload, &plen,
		    &used), NETSTRING_OK);
		assert_int_equal(used, inputs[i].len);
		free(in);
	}
}

/* decode_toolong_before_payload - a 1 MB claim fails at its 6th digit */
static void
decode_toolong_before_payload(void **state)
{
	static const char claim[] = "1048576:";
	const char *payload;
	size_t	 k, plen, used;

	(void)state;
	/* "10485" <= 100000 is still plausible; "104857" is not. */
	for (k = 0; k <= 5; k++)
		assert_int_equal(netstring_decode(claim, k, TEST_MB, &payload,
		    &plen, &used), NETSTRING_INCOMPLETE);
	for (k = 6; k < sizeof(claim); k++)
		assert_int_equal(netstring_decode(claim, k, TEST_MB, &payload,
		    &plen, &used), NETSTRING_ERR_TOOLONG);
}

/* decode_pipelined - two netstrings in one read are taken one by one */
static void
decode_pipelined(void **state)
{
	static const char two[] = "5:hello,11:example.com,3:ab";
	const char *p = two, *payload;
	size_t	 len = sizeof(two) - 1, plen, used;

	(void)state;
	assert_int_equal(netstring_decode(p, len, 100, &payload, &plen,
	    &used), NETSTRING_OK);
	assert_int_equal(used, 8);
	assert_memory_equal(payload, "hello", plen);
	p += used;
	len -= used;
	assert_int_equal(netstring_decode(p, len, 100, &payload, &plen,
	    &used), NETSTRING_OK);
	assert_int_equal(plen, 11);
	assert_memory_equal(payload, "example.com", plen);
	assert_int_equal(used, 15);
	p += used;
	len -= used;
	/* the third one is still arriving */
	assert_int_equal(netstring_decode(p, len, 100, &payload, &plen,
	    &used), NETSTRING_INCOMPLETE);
}

/* decode_sockmap_limits - exactly SOCKMAP-sized payloads and one more */
static void
decode_sockmap_limits(void **state)
{
	struct buf b;
	char	*big;
	const char *payload;
	size_t	 n, plen, used;

	(void)state;
	for (n = 9999; n <= 10001; n++) {
		big = malloc(n);
		assert_non_null(big);
		memset(big, 'k', n);
		buf_init(&b, n + 16);
		assert_int_equal(netstring_encode(&b, big, n), 0);
		assert_int_equal(netstring_decode(b.data, b.len, 10000,
		    &payload, &plen, &used), n <= 10000 ? NETSTRING_OK :
		    NETSTRING_ERR_TOOLONG);
		if (n <= 10000) {
			assert_int_equal(plen, n);
			assert_int_equal(used, b.len);
		}
		buf_free(&b);
		free(big);
	}
}

struct encode_case {
	const char *name;
	const char *in;
	size_t	 inlen;
	const char *want;
	size_t	 wantlen;
};

static const struct encode_case encode_cases[] = {
	{ "encode empty payload", IN(""), IN("0:,") },
	{ "encode short payload", IN("hello"), IN("5:hello,") },
	{ "encode nine bytes (one digit)", IN("123456789"),
	    IN("9:123456789,") },
	{ "encode ten bytes (two digits)", IN("0123456789"),
	    IN("10:0123456789,") },
	{ "encode payload with NUL", IN("a\0b"), IN("3:a\0b,") },
	{ "encode socketmap reply", IN("NOTFOUND "), IN("9:NOTFOUND ,") },
};

/* run_encode_case - one encode_cases row, and its round trip */
static void
run_encode_case(void **state)
{
	const struct encode_case *tc = *state;
	const char *payload;
	size_t	 plen, used;
	struct buf b;

	buf_init(&b, 64);
	assert_int_equal(netstring_encode(&b, tc->in, tc->inlen), 0);
	assert_int_equal(b.len, tc->wantlen);
	assert_memory_equal(b.data, tc->want, tc->wantlen);
	assert_int_equal(netstring_encoded_len(tc->inlen), tc->wantlen);
	assert_int_equal(netstring_decode(b.data, b.len, 64, &payload, &plen,
	    &used), NETSTRING_OK);
	assert_int_equal(plen, tc->inlen);
	assert_memory_equal(payload, tc->in, tc->inlen);
	assert_int_equal(used, b.len);
	buf_free(&b);
}

/* encode_no_room_appends_nothing - all or nothing, sticky error set */
static void
encode_no_room_appends_nothing(void **state)
{
	struct buf b;
	char	 store[10];

	(void)state;
	buf_init_fixed(&b, store, sizeof(store));
	assert_int_equal(buf_append(&b, "xx", 2), 0);
	/* "5:hello," is 8 bytes; 8 free would fit, 7 must not */
	assert_int_equal(buf_append_char(&b, 'y'), 0);
	assert_int_equal(netstring_encode(&b, "hello", 5), -1);
	assert_true(b.error);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "xxy", 3);
	/* sticky: even an empty netstring fails now */
	assert_int_equal(netstring_encode(&b, "", 0), -1);
	assert_int_equal(b.len, 3);
	buf_reset(&b);
	assert_int_equal(buf_append(&b, "xx", 2), 0);
	assert_int_equal(netstring_encode(&b, "hello", 5), 0);
	assert_int_equal(b.len, 10);
	assert_memory_equal(b.data, "xx5:hello,", 10);
}

/* encode_begin_end - a payload appended in pieces */
static void
encode_begin_end(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 100);
	assert_int_equal(netstring_encode_begin(&b, 16), 0);
	assert_int_equal(buf_append_str(&b, "OK "), 0);
	assert_int_equal(buf_append_str(&b, "policy=secure"), 0);
	assert_int_equal(netstring_encode_end(&b), 0);
	assert_int_equal(b.len, 20);
	assert_memory_equal(b.data, "16:OK policy=secure,", 20);
	buf_free(&b);
}

/* encoded_len_limits - digit counts and overflow */
static void
encoded_len_limits(void **state)
{
	(void)state;
	assert_int_equal(netstring_encoded_len(0), 3);
	assert_int_equal(netstring_encoded_len(9), 12);
	assert_int_equal(netstring_encoded_len(10), 14);
	assert_int_equal(netstring_encoded_len(100000), 100008);
	assert_true(netstring_encoded_len(SIZE_MAX) == SIZE_MAX);
	assert_true(netstring_encoded_len(SIZE_MAX - 10) == SIZE_MAX);
}

/* strerror_names - every status has its own text */
static void
strerror_names(void **state)
{
	(void)state;
	assert_string_equal(netstring_strerror(NETSTRING_OK), "ok");
	assert_string_equal(netstring_strerror(NETSTRING_ERR_FORMAT),
	    "netstring format error");
	assert_string_equal(netstring_strerror(NETSTRING_ERR_TOOLONG),
	    "netstring exceeds size limit");
	assert_string_equal(netstring_strerror(NETSTRING_INCOMPLETE),
	    "incomplete netstring");
	assert_string_equal(netstring_strerror((enum netstring_status)99),
	    "unknown netstring status");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(decode_byte_by_byte),
	cmocka_unit_test(decode_toolong_before_payload),
	cmocka_unit_test(decode_pipelined),
	cmocka_unit_test(decode_sockmap_limits),
	cmocka_unit_test(encode_no_room_appends_nothing),
	cmocka_unit_test(encode_begin_end),
	cmocka_unit_test(encoded_len_limits),
	cmocka_unit_test(strerror_names),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(decode_cases) + nitems(encode_cases) +
	    nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(decode_cases); i++, n++) {
		tests[n].name = decode_cases[i].name;
		tests[n].test_func = run_decode_case;
		tests[n].initial_state = (void *)&decode_cases[i];
	}
	for (i = 0; i < nitems(encode_cases); i++, n++) {
		tests[n].name = encode_cases[i].name;
		tests[n].test_func = run_encode_case;
		tests[n].initial_state = (void *)&encode_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("netstring", tests, NULL, NULL));
}
