/*
 * test_pins.c - pinned policies take one path into decide(): the worker's
 * pin branch (pins_answer) and postsmtpsts-query's decision (query_decide)
 * get the same inputs from one table and must give the same reply; the
 * precedence pin > DANE > MTA-STS holds for both.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/sockmap.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "policy/sts_policy.h"
#include "tools/query_decide.h"

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))
#define TEST_ERRSZ	4096

static const char pins_conf[] =
    "domain \"d1.test\" { level = \"dane-only\" }\n"
    "domain \"Sec.Test.\" { level = \"SECURE\" match = \"MX1.sec.test:.Sec.Net\""
    " servername = \"hostname\" }\n"
    "domain \"none.test\" { level = \"none\" }\n"
    "map \"postfix\" { }\n"
    "map \"only\" { dane_some = dane-only tlsrpt = yes }\n";

struct pin_case {
	const char	*name;
	const char	*domain;
	const char	*map;
	enum decide_dane dane;		/* what DANE found */
	int		 sts;		/* 1: an enforce policy was found */
	int		 pinned;	/* the worker's pin branch answers */
	const char	*want;		/* "STATUS data" from both paths */
};

static const struct pin_case cases[] = {
	{ "pin beats an enforce policy", "d1.test", "postfix",
	    DECIDE_DANE_NONE, 1, 1, "OK dane-only" },
	{ "pin beats DANE failure", "d1.test", "postfix",
	    DECIDE_DANE_FAILURE, 0, 1, "OK dane-only" },
	{ "pin with match and servername, normalized", "sec.test", "postfix",
	    DECIDE_DANE_ALL, 1, 1,
	    "OK secure match=mx1.sec.test:.sec.net servername=hostname" },
	{ "pin level none beats DANE", "none.test", "only", DECIDE_DANE_SOME,
	    0, 1, "OK none" },
	{ "pin carries no TLSRPT attributes", "d1.test", "only",
	    DECIDE_DANE_NONE, 1, 1, "OK dane-only" },
	{ "unpinned: DANE", "other.test", "postfix", DECIDE_DANE_ALL, 1, 0,
	    "OK dane-only" },
	{ "unpinned: MTA-STS", "other.test", "postfix", DECIDE_DANE_NONE, 1,
	    0, "OK secure match=mx.other.test servername=hostname" },
	{ "unpinned: nothing", "other.test", "postfix", DECIDE_DANE_NONE, 0,
	    0, "NOTFOUND" },
};

static struct config *cf;
static char cf_path[] = "/tmp/test_pins.XXXXXX";

/* setup - load pins_conf from a temporary file */
static int
setup(void **state)
{
	char	 err[TEST_ERRSZ];
	int	 fd;

	(void)state;
	if ((fd = mkstemp(cf_path)) == -1)
		return (-1);
	if (write(fd, pins_conf, sizeof(pins_conf) - 1) !=
	    (ssize_t)(sizeof(pins_conf) - 1)) {
		close(fd);
		return (-1);
	}
	close(fd);
	if ((cf = config_load(cf_path, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s", err);
		return (-1);
	}
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	config_free(cf);
	unlink(cf_path);
	return (0);
}

/* same_answer - one row through the worker's and the tool's path */
static void
same_answer(void **state)
{
	const struct pin_case *c = *state;
	const struct config_map *map;
	struct discover_result r;
	struct decide_options opt;
	struct decide_result res;
	struct sts_policy *pol;
	struct buf	 wout, tout, wfull;
	enum sockmap_status st;
	int		 pinned;
	char		 mx[DOMAIN_BUFSZ + 4];

	map = config_find_map(cf, c->map, strlen(c->map));
	assert_non_null(map);
	facts_decide_options(map, &opt);

	/* the worker: pins_answer, then (unpinned) the cache path would go
	 * on; it must answer exactly the pinned rows */
	buf_init(&wout, SOCKMAP_MAX_REPLY);
	pinned = pins_answer(cf, map, c->domain, &wout, &st);
	assert_int_equal(pinned, c->pinned);

	/* the tool: query_decide with what discovery found */
	pol = calloc(1, sizeof(*pol));
	assert_non_null(pol);
	memset(&r, 0, sizeof(r));
	r.domain = c->domain;
	r.outcome = DISCOVER_NO_POLICY;
	if (c->sts) {
		pol->mode = STS_MODE_ENFORCE;
		pol->max_age = 86400;
		snprintf(mx, sizeof(mx), "mx.%s", c->domain);
		assert_int_equal(sts_policy_mx_add(pol, mx, strlen(mx)), 0);
		r.outcome = DISCOVER_POLICY;
		r.policy = pol;
	}
	buf_init(&tout, SOCKMAP_MAX_REPLY);
	assert_int_equal(query_decide(cf, c->domain, c->dane, &r, &opt, &tout,
	    &res), 0);
	assert_string_equal(buf_cstr(&tout), c->want);
	assert_int_equal(res.source == DECIDE_SOURCE_PIN, c->pinned);

	if (pinned) {
		buf_init(&wfull, SOCKMAP_MAX_REPLY);
		buf_append_str(&wfull, sockmap_status_name(st));
		buf_append_char(&wfull, ' ');
		buf_append(&wfull, wout.data, wout.len);
		assert_string_equal(buf_cstr(&wfull), buf_cstr(&tout));
		buf_free(&wfull);
	}
	buf_free(&wout);
	buf_free(&tout);
	free(pol);
}

/* count_err - pins_parse's error function: count, keep the last */
static char last_err[512];

static void
count_err(void *arg, const char *field, const char *msg)
{
	(void)field;
	(*(int *)arg)++;
	snprintf(last_err, sizeof(last_err), "%s", msg);
}

/* bad_pins - pins_parse reports every error of a section */
static void
bad_pins(void **state)
{
	static const struct {
		const char *level, *match, *servername;
		int	 nerr;
		const char *answer;	/* nerr == 0 */
	} t[] = {
		{ "", "", "", 1, NULL },
		{ "strict", "", "", 1, NULL },
		{ "may", "a.b", "", 1, NULL },
		{ "secure", "a..b:-x.y", "", 2, NULL },
		{ "secure", "a.b", "bad name!", 1, NULL },
		{ "encrypt", "", "hostname", 1, NULL },
		{ "fingerprint", "12:34", "", 1, NULL },
		{ "Secure", "HOSTNAME:nexthop:.OK.example", "Hostname", 0,
		    "secure match=hostname:nexthop:.ok.example "
		    "servername=hostname" },
		{ "fingerprint", "ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:"
		    "89", "", 0, "fingerprint match=AB:CD:EF:01:23:45:67:89:AB:"
		    "CD:EF:01:23:45:67:89" },
	};
	struct config_domain d;
	size_t	 i;
	int	 n, rc;

	(void)state;
	for (i = 0; i < NCASES(t); i++) {
		memset(&d, 0, sizeof(d));
		n = 0;
		rc = pins_parse("x.test", t[i].level, t[i].match,
		    t[i].servername, &d, count_err, &n);
		if (n != t[i].nerr || rc != (n > 0 ? -1 : 0))
			fail_msg("row %zu: %d errors (want %d), rc %d; last: "
			    "%s", i, n, t[i].nerr, rc, last_err);
		if (t[i].answer != NULL)
			assert_string_equal(d.answer, t[i].answer);
		free(d.level);
		free(d.match);
		free(d.servername);
		free(d.answer);
	}
}

int
main(void)
{
	struct CMUnitTest	 t[NCASES(cases) + 1];
	size_t			 i;

	for (i = 0; i < NCASES(cases); i++)
		t[i] = (struct CMUnitTest){ cases[i].name, same_answer, NULL,
		    NULL, (void *)&cases[i] };
	t[i] = (struct CMUnitTest)cmocka_unit_test(bad_pins);
	return (_cmocka_run_group_tests("pins", t, NCASES(cases) + 1, setup,
	    teardown));
}
