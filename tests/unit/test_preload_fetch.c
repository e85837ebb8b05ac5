/*
 * test_preload_fetch.c - unit tests for the URL splitter of preload's
 * https:// source (tools/preload_fetch.c)
 *
 * What a configured or given list URL may be: https, a host name (never
 * an address literal or user info), an optional port, a path of
 * printable ASCII without blank or fragment.  The fetch itself is proven
 * end to end (tests/e2e/preload-url.sh).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/preload_fetch.h"

/* urls_split - each URL accepted as its parts, or refused */
static void
urls_split(void **state)
{
	static const struct {
		const char	*url;
		int		 ok;
		const char	*host;
		unsigned int	 port;
		const char	*path;
	} t[] = {
		{ "https://dl.eff.org/starttls-everywhere/policy.json", 1,
		    "dl.eff.org", 443, "/starttls-everywhere/policy.json" },
		{ "https://Lists.Example.ORG", 1, "lists.example.org", 443,
		    "/" },
		{ "https://lists.example.org:8443/a?b=c", 1,
		    "lists.example.org", 8443, "/a?b=c" },
		{ "https://lists.example.org:65535/", 1, "lists.example.org",
		    65535, "/" },
		{ "http://lists.example.org/p.json", 0, NULL, 0, NULL },
		{ "https://", 0, NULL, 0, NULL },
		{ "https:///p.json", 0, NULL, 0, NULL },
		{ "https://127.0.0.1/p.json", 0, NULL, 0, NULL },
		{ "https://[::1]/p.json", 0, NULL, 0, NULL },
		{ "https://user@lists.example.org/p.json", 0, NULL, 0, NULL },
		{ "https://lists.example.org:0/p.json", 0, NULL, 0, NULL },
		{ "https://lists.example.org:65536/p.json", 0, NULL, 0, NULL },
		{ "https://lists.example.org:443x/p.json", 0, NULL, 0, NULL },
		{ "https://lists.example.org:/p.json", 0, NULL, 0, NULL },
		{ "https://lists.example.org/p json", 0, NULL, 0, NULL },
		{ "https://lists.example.org/p.json#x", 0, NULL, 0, NULL },
		{ "https://lists.example.org/p\x7f", 0, NULL, 0, NULL },
		{ "https://localhost/p.json", 0, NULL, 0, NULL },
	};
	struct preload_fetch_url u;
	size_t	 i;
	int	 rc;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		rc = preload_fetch_url_split(t[i].url, strlen(t[i].url), &u);
		if ((rc == 0) != t[i].ok)
			fail_msg("%s: %s", t[i].url, rc == 0 ? "accepted" :
			    "refused");
		if (!t[i].ok)
			continue;
		assert_string_equal(u.host, t[i].host);
		assert_int_equal(u.port, t[i].port);
		assert_string_equal(u.path, t[i].path);
	}
}

/* a path longer than PRELOAD_FETCH_MAX_PATH is refused; one of exactly
 * that length is kept whole; bytes past len are not looked at */
static void
long_paths_and_lengths(void **state)
{
	char	 url[8 + 20 + PRELOAD_FETCH_MAX_PATH + 2];
	struct preload_fetch_url u;
	size_t	 n;

	(void)state;
	n = (size_t)snprintf(url, sizeof(url), "https://lists.example.org");
	url[n] = '/';
	memset(url + n + 1, 'a', PRELOAD_FETCH_MAX_PATH - 1);
	url[n + PRELOAD_FETCH_MAX_PATH] = '\0';
	assert_int_equal(preload_fetch_url_split(url, strlen(url), &u), 0);
	assert_int_equal(strlen(u.path), PRELOAD_FETCH_MAX_PATH);
	url[n + PRELOAD_FETCH_MAX_PATH] = 'a';
	url[n + PRELOAD_FETCH_MAX_PATH + 1] = '\0';
	assert_int_equal(preload_fetch_url_split(url, strlen(url), &u), -1);
	assert_int_equal(preload_fetch_url_split("https://a.example/x y", 19,
	    &u), 0);
	assert_string_equal(u.path, "/x");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls_split),
		cmocka_unit_test(long_paths_and_lengths),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
