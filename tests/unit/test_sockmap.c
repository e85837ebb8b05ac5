/*
 * test_sockmap.c - unit tests for socketmap request parsing and replies
 *
 * Replies are compared byte for byte with what Postfix's dict_sockmap.c
 * reads (socketmap_table(5)); each table row is its own TAP test.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

#define NAME64	"abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
		"0123456789._"

struct request_case {
	const char *name;
	const char *in;
	size_t	 inlen;
	int	 want;
	const char *map;		/* on success */
	size_t	 maplen;
	const char *key;
	size_t	 keylen;
	const char *why;		/* on failure */
};

static const struct request_case request_cases[] = {
	{ "request plain domain", IN("tlspolicy example.com"), 0,
	    IN("tlspolicy"), IN("example.com"), NULL },
	{ "request bracketed next hop with port",
	    IN("tlspolicy [mx.example.com]:587"), 0,
	    IN("tlspolicy"), IN("[mx.example.com]:587"), NULL },
	{ "request parent key", IN("tlspolicy .example.com"), 0,
	    IN("tlspolicy"), IN(".example.com"), NULL },
	{ "request key with spaces is the whole rest", IN("m a b  c"), 0,
	    IN("m"), IN("a b  c"), NULL },
	{ "request key starting with a space", IN("m  x"), 0,
	    IN("m"), IN(" x"), NULL },
	{ "request key of one space", IN("m  "), 0,
	    IN("m"), IN(" "), NULL },
	{ "request key with tab", IN("m a\tb"), 0,
	    IN("m"), IN("a\tb"), NULL },
	{ "request UTF-8 key", IN("m b\xc3\xbc" "cher.example"), 0,
	    IN("m"), IN("b\xc3\xbc" "cher.example"), NULL },
	{ "request name with dot, underscore, hyphen",
	    IN("my_map-1.v2 k"), 0, IN("my_map-1.v2"), IN("k"), NULL },
	{ "request 64-byte map name", IN(NAME64 " k"), 0,
	    IN(NAME64), IN("k"), NULL },
	{ "request 65-byte map name", IN(NAME64 "x k"), -1,
	    NULL, 0, NULL, 0, "map name too long" },
	{ "request empty payload", IN(""), -1,
	    NULL, 0, NULL, 0, "missing space after map name" },
	{ "request without space", IN("tlspolicy"), -1,
	    NULL, 0, NULL, 0, "missing space after map name" },
	{ "request tab instead of space", IN("tlspolicy\texample.com"), -1,
	    NULL, 0, NULL, 0, "missing space after map name" },
	{ "request empty map name", IN(" example.com"), -1,
	    NULL, 0, NULL, 0, "empty map name" },
	{ "request single space", IN(" "), -1,
	    NULL, 0, NULL, 0, "empty map name" },
	{ "request empty key", IN("tlspolicy "), -1,
	    NULL, 0, NULL, 0, "empty key" },
	{ "request '/' in map name", IN("tls/policy k"), -1,
	    NULL, 0, NULL, 0, "invalid character in map name" },
	{ "request ':' in map name", IN("tls:policy k"), -1,
	    NULL, 0, NULL, 0, "invalid character in map name" },
	{ "request NUL in map name", IN("tls\0policy k"), -1,
	    NULL, 0, NULL, 0, "invalid character in map name" },
	{ "request high-bit byte in map name", IN("t\xe9st k"), -1,
	    NULL, 0, NULL, 0, "invalid character in map name" },
	{ "request NUL in key", IN("m exa\0mple.com"), -1,
	    NULL, 0, NULL, 0, "invalid character in key" },
	{ "request CR in key", IN("m example.com\r"), -1,
	    NULL, 0, NULL, 0, "invalid character in key" },
	{ "request LF in key", IN("m example.com\nOK x"), -1,
	    NULL, 0, NULL, 0, "invalid character in key" },
};

/* run_request_case - one request_cases row, input in an exact heap copy */
static void
run_request_case(void **state)
{
	const struct request_case *tc = *state;
	const char *map = NULL, *key = NULL, *why = NULL;
	size_t	 maplen = 77, keylen = 88;
	char	*in;

	in = malloc(tc->inlen > 0 ? tc->inlen : 1);
	assert_non_null(in);
	if (tc->inlen > 0)
		memcpy(in, tc->in, tc->inlen);
	assert_int_equal(sockmap_request_parse(in, tc->inlen, &map, &maplen,
	    &key, &keylen, &why), tc->want);
	if (tc->want == 0) {
		assert_null(why);
		assert_int_equal(maplen, tc->maplen);
		assert_memory_equal(map, tc->map, maplen);
		assert_int_equal(keylen, tc->keylen);
		assert_memory_equal(key, tc->key, keylen);
		assert_true(key >= in && key + keylen == in + tc->inlen);
	} else {
		assert_non_null(why);
		assert_string_equal(why, tc->why);
		assert_null(map);
		assert_null(key);
		assert_int_equal(maplen, 77);
		assert_int_equal(keylen, 88);
	}
	free(in);
	/* why may be NULL */
	assert_int_equal(sockmap_request_parse(tc->in, tc->inlen, &map,
	    &maplen, &key, &keylen, NULL), tc->want);
}

/* request_length_limit - SOCKMAP_MAX_QUERY bytes pass, one more fails */
static void
request_length_limit(void **state)
{
	const char *map, *key, *why = NULL;
	size_t	 maplen, keylen;
	char	*in;

	(void)state;
	in = malloc(SOCKMAP_MAX_QUERY + 1);
	assert_non_null(in);
	memset(in, 'k', SOCKMAP_MAX_QUERY + 1);
	in[1] = ' ';
	assert_int_equal(sockmap_request_parse(in, SOCKMAP_MAX_QUERY, &map,
	    &maplen, &key, &keylen, &why), 0);
	assert_int_equal(keylen, SOCKMAP_MAX_QUERY - 2);
	assert_int_equal(sockmap_request_parse(in, SOCKMAP_MAX_QUERY + 1,
	    &map, &maplen, &key, &keylen, &why), -1);
	assert_string_equal(why, "request too long");
	free(in);
}

struct reply_case {
	const char *name;
	enum sockmap_status st;
	const char *data;
	size_t	 len;
	const char *want;
	size_t	 wantlen;
};

static const struct reply_case reply_cases[] = {
	{ "reply OK with policy", SOCKMAP_OK,
	    IN("secure match=mx.example.com"),
	    IN("30:OK secure match=mx.example.com,") },
	{ "reply OK with one byte", SOCKMAP_OK, IN("x"), IN("4:OK x,") },
	{ "reply OK with binary data", SOCKMAP_OK, IN("a\0,b"),
	    IN("7:OK a\0,b,") },
	{ "reply NOTFOUND has its trailing space", SOCKMAP_NOTFOUND,
	    NULL, 0, IN("9:NOTFOUND ,") },
	{ "reply NOTFOUND ignores data", SOCKMAP_NOTFOUND, IN("ignored"),
	    IN("9:NOTFOUND ,") },
	{ "reply TEMP with reason", SOCKMAP_TEMP, IN("dns lookup failed"),
	    IN("22:TEMP dns lookup failed,") },
	{ "reply TEMP without reason", SOCKMAP_TEMP, NULL, 0,
	    IN("5:TEMP ,") },
	{ "reply TIMEOUT with reason", SOCKMAP_TIMEOUT,
	    IN("policy fetch timed out"),
	    IN("30:TIMEOUT policy fetch timed out,") },
	{ "reply PERM with reason", SOCKMAP_PERM,
	    IN("missing space after map name"),
	    IN("33:PERM missing space after map name,") },
};

/* run_reply_case - one reply_cases row, byte-exact, and decodable */
static void
run_reply_case(void **state)
{
	const struct reply_case *tc = *state;
	const char *payload;
	size_t	 plen, used;
	struct buf b;

	buf_init(&b, 1000);
	assert_int_equal(sockmap_reply_format(&b, tc->st, tc->data, tc->len),
	    0);
	assert_int_equal(b.len, tc->wantlen);
	assert_memory_equal(b.data, tc->want, tc->wantlen);
	assert_int_equal(netstring_decode(b.data, b.len, SOCKMAP_MAX_REPLY,
	    &payload, &plen, &used), NETSTRING_OK);
	assert_int_equal(used, b.len);
	buf_free(&b);
}

/* reply_max_payload - exactly SOCKMAP_MAX_REPLY passes, one more fails */
static void
reply_max_payload(void **state)
{
	size_t	 dlen = SOCKMAP_MAX_REPLY - 3;	/* "OK " + data */
	struct buf b;
	char	*data;

	(void)state;
	data = malloc(dlen + 1);
	assert_non_null(data);
	memset(data, 'd', dlen + 1);
	buf_init(&b, 2 * SOCKMAP_MAX_REPLY);
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_OK, data, dlen), 0);
	assert_int_equal(b.len, 7 + SOCKMAP_MAX_REPLY + 1);
	assert_memory_equal(b.data, "100000:OK dd", 12);
	assert_int_equal(b.data[b.len - 1], ',');
	buf_reset(&b);
	/* one byte more: refused, nothing appended, buf still usable */
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_OK, data, dlen + 1),
	    -1);
	assert_int_equal(b.len, 0);
	assert_false(b.error);
	/* "TEMP " + reason over the limit is refused the same way */
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_TEMP, data,
	    SOCKMAP_MAX_REPLY - 4), -1);
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_TEMP, data,
	    SOCKMAP_MAX_REPLY - 5), 0);
	buf_free(&b);
	free(data);
}

/* reply_no_room_then_temp - out too small: nothing appended, TEMP fits */
static void
reply_no_room_then_temp(void **state)
{
	char	 store[16];
	struct buf b;

	(void)state;
	buf_init_fixed(&b, store, sizeof(store));
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_OK,
	    IN("secure match=mx.example.com")), -1);
	assert_int_equal(b.len, 0);
	assert_false(b.error);
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_TEMP, IN("big")),
	    0);
	assert_int_equal(b.len, 11);
	assert_memory_equal(b.data, "8:TEMP big,", 11);
	/* 5 bytes left, "4:OK x," needs 7 */
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_OK, IN("x")), -1);
	assert_int_equal(b.len, 11);
	assert_false(b.error);
	/* a buf already in error refuses too */
	buf_reset(&b);
	b.error = 1;
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_NOTFOUND, NULL, 0),
	    -1);
	assert_int_equal(b.len, 0);
}

/* reply_appends_after_existing - replies to pipelined requests queue up */
static void
reply_appends_after_existing(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 100);
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_NOTFOUND, NULL, 0),
	    0);
	assert_int_equal(sockmap_reply_format(&b, SOCKMAP_OK, IN("may")), 0);
	assert_int_equal(b.len, 12 + 9);
	assert_memory_equal(b.data, "9:NOTFOUND ,6:OK may,", 21);
	buf_free(&b);
}

/* dies_with_abort - run fn in a child; did it abort (panic)? */
static int
dies_with_abort(void (*fn)(void))
{
	pid_t	 pid;
	int	 status, fd;

	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		/* keep the panic message out of the TAP stream */
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, STDERR_FILENO);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

/* panic_ok_without_data - bare "OK" reads as not found in old Postfix */
static void
panic_ok_without_data(void)
{
	struct buf b;

	buf_init(&b, 100);
	(void)sockmap_reply_format(&b, SOCKMAP_OK, "", 0);
}

/* panic_null_data - NULL data with a length */
static void
panic_null_data(void)
{
	struct buf b;

	buf_init(&b, 100);
	(void)sockmap_reply_format(&b, SOCKMAP_TEMP, NULL, 3);
}

/* panic_bad_status - a status outside the enum */
static void
panic_bad_status(void)
{
	struct buf b;

	buf_init(&b, 100);
	(void)sockmap_reply_format(&b, (enum sockmap_status)42, "x", 1);
}

/* reply_programming_errors_panic - the three misuses abort */
static void
reply_programming_errors_panic(void **state)
{
	(void)state;
	assert_true(dies_with_abort(panic_ok_without_data));
	assert_true(dies_with_abort(panic_null_data));
	assert_true(dies_with_abort(panic_bad_status));
}

/* status_names - log names of every status */
static void
status_names(void **state)
{
	(void)state;
	assert_string_equal(sockmap_status_name(SOCKMAP_OK), "OK");
	assert_string_equal(sockmap_status_name(SOCKMAP_NOTFOUND), "NOTFOUND");
	assert_string_equal(sockmap_status_name(SOCKMAP_TEMP), "TEMP");
	assert_string_equal(sockmap_status_name(SOCKMAP_TIMEOUT), "TIMEOUT");
	assert_string_equal(sockmap_status_name(SOCKMAP_PERM), "PERM");
	assert_string_equal(sockmap_status_name((enum sockmap_status)-1),
	    "UNKNOWN");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(request_length_limit),
	cmocka_unit_test(reply_max_payload),
	cmocka_unit_test(reply_no_room_then_temp),
	cmocka_unit_test(reply_appends_after_existing),
	cmocka_unit_test(reply_programming_errors_panic),
	cmocka_unit_test(status_names),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(request_cases) + nitems(reply_cases) +
	    nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(request_cases); i++, n++) {
		tests[n].name = request_cases[i].name;
		tests[n].test_func = run_request_case;
		tests[n].initial_state = (void *)&request_cases[i];
	}
	for (i = 0; i < nitems(reply_cases); i++, n++) {
		tests[n].name = reply_cases[i].name;
		tests[n].test_func = run_reply_case;
		tests[n].initial_state = (void *)&reply_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("sockmap", tests, NULL, NULL));
}
