/*
 * test_https.c - https.c without a server: the media type check, and
 * transfers that must fail before any byte is sent
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "config.h"
#include "https.h"

struct outcome {
	int		 calls;
	enum https_error error;
	char		 detail[256];
	struct event_base *base;
};

static void
media_types(void **state)
{
	static const struct {
		const char	*ct;
		int		 ok;
	} t[] = {
		{ "text/plain", 1 },
		{ "TEXT/Plain", 1 },
		{ "text/plain; charset=utf-8", 1 },
		{ "text/plain;charset=utf-8", 1 },
		{ " text/plain ", 1 },
		{ "text/plain\t; format=flowed", 1 },
		{ "text/html", 0 },
		{ "text/plainx", 0 },
		{ "text/plain-x", 0 },
		{ "text/plai", 0 },
		{ "application/octet-stream", 0 },
		{ "", 0 },
		{ "text / plain", 0 },
	};
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (https_media_type_ok(t[i].ct, strlen(t[i].ct)) != t[i].ok)
			fail_msg("\"%s\": expected %d", t[i].ct, t[i].ok);
	/* explicit length: bytes past len are not looked at */
	assert_true(https_media_type_ok("text/plainXYZ", 10));
}

static void
record(const struct https_result *res, void *arg)
{
	struct outcome	*o = arg;

	o->calls++;
	o->error = res->error;
	strncat(o->detail, res->detail, sizeof(o->detail) - 1);
	event_base_loopbreak(o->base);
}

static void
run_fetch(const char *host, const char *const *addrs, size_t n,
    struct outcome *o)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	char		 err[256];
	struct timeval	 tv = { 5, 0 };

	memset(&cf, 0, sizeof(cf));
	memset(o, 0, sizeof(*o));
	o->base = base;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	https_fetch(h, host, addrs, n, record, o);
	assert_int_equal(o->calls, 0);		/* never from inside */
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	https_free(h);
	event_base_free(base);
}

static void
no_address_fails_without_resolving(void **state)
{
	const char	*addrs[] = { "mta-sts.example.com", "not-an-ip" };
	struct outcome	 o;

	(void)state;
	run_fetch("mta-sts.example.com", addrs, 2, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_CONNECT);
	assert_non_null(strstr(o.detail, "no usable address"));
}

static void
invalid_host_is_refused(void **state)
{
	const char	*addrs[] = { "127.0.0.1" };
	struct outcome	 o;

	(void)state;
	run_fetch("evil.example/@x", addrs, 1, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_OTHER);
}

static void
closed_port_is_a_connect_error(void **state)
{
	/* 127.0.0.1:443 is assumed closed on a test machine: skip if not */
	const char	*addrs[] = { "127.0.0.1" };
	struct outcome	 o;

	(void)state;
	run_fetch("mta-sts.example.com", addrs, 1, &o);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_CONNECT)
		skip();
}

static void
cancel_and_free_with_fetches_pending(void **state)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	struct https_fetch *f;
	struct outcome	 o;
	const char	*addrs[] = { "192.0.2.1" };	/* TEST-NET-1 */
	char		 err[256];

	(void)state;
	memset(&cf, 0, sizeof(cf));
	memset(&o, 0, sizeof(o));
	o.base = base;
	h = https_new(base, &cf, err, sizeof(err));
	f = https_fetch(h, "mta-sts.example.com", addrs, 1, record, &o);
	https_fetch(h, "mta-sts.example.net", addrs, 1, record, &o);
	https_cancel(f);
	https_free(h);			/* the second one, still in curl */
	event_base_free(base);
	assert_int_equal(o.calls, 0);
}

static void
error_names(void **state)
{
	(void)state;
	assert_string_equal(https_error_name(HTTPS_OK), "ok");
	assert_string_equal(https_error_name(HTTPS_ERR_WEBPKI), "webpki");
	assert_string_equal(https_error_name(HTTPS_ERR_TOO_LARGE),
	    "too-large");
	assert_string_equal(https_error_name(HTTPS_ERR_REDIRECT), "redirect");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(media_types),
		cmocka_unit_test(no_address_fails_without_resolving),
		cmocka_unit_test(invalid_host_is_refused),
		cmocka_unit_test(closed_port_is_a_connect_error),
		cmocka_unit_test(cancel_and_free_with_fetches_pending),
		cmocka_unit_test(error_names),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
