/*
 * test_pins.c - pinned policies take one path into decide(): the worker's
 * pin branch (pins_answer) and postsmtpsts-query's decision (query_decide)
 * get the same inputs from one table and must give the same reply; the
 * precedence pin > DANE > MTA-STS holds for both.  Timed exceptions
 * (until): the grammar, and the lapse at its second on the fake clock,
 * the same in both paths.
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
#include "lib/clock.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/sockmap.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "policy/sts_policy.h"
#include "policy/tlsattr.h"
#include "tools/query_decide.h"

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))
#define ALL_TLS		(TLSATTR_BIT(TLSATTR_PROTOCOLS) | \
			 TLSATTR_BIT(TLSATTR_CIPHERS) | \
			 TLSATTR_BIT(TLSATTR_EXCLUDE))
#define ALL_BUT_P	(TLSATTR_BIT(TLSATTR_CIPHERS) | \
			 TLSATTR_BIT(TLSATTR_EXCLUDE))
#define TEST_ERRSZ	4096

static const char pins_conf[] =
    "domain \"d1.test\" { level = \"dane-only\" }\n"
    "domain \"Sec.Test.\" { level = \"SECURE\" match = \"MX1.sec.test:.Sec.Net\""
    " servername = \"hostname\" }\n"
    "domain \"none.test\" { level = \"none\" }\n"
    "domain \"instant.test\" { level = \"encrypt\"\n"
    "\tuntil = \"2030-06-15t12:00:00z\" }\n"
    "domain \"day.test\" { level = \"may\" until = \"2030-06-15\" }\n"
    "domain \"tv.test\" { level = verify protocols = \">=TLSv1.3\"\n"
    "\tciphers = \"Medium\" }\n"
    "domain \"tm.test\" { level = may exclude = \"3DES:aNULL\" }\n"
    "domain \"te.test\" { level = encrypt }\n"
    "map \"postfix\" { }\n"
    "map \"only\" { dane_some = dane-only tlsrpt = yes }\n"
    "map \"floor\" { tls_protocols = \">=TLSv1.2\" tls_ciphers = \"HIGH\"\n"
    "\ttls_exclude = \"RC4\" dane_some = dane-only }\n"
    "map \"pfloor\" { tls_protocols = \"!SSLv2:!SSLv3:!TLSv1:!TLSv1.1\" }\n";

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
	/* the map's TLS floor (issue 38) on every authenticated answer */
	{ "floor: pin dane-only", "d1.test", "floor", DECIDE_DANE_NONE, 0, 1,
	    "OK dane-only protocols=>=TLSv1.2 ciphers=high exclude=RC4" },
	{ "floor: pin secure", "sec.test", "floor", DECIDE_DANE_NONE, 0, 1,
	    "OK secure match=mx1.sec.test:.sec.net servername=hostname "
	    "protocols=>=TLSv1.2 ciphers=high exclude=RC4" },
	{ "floor: a pin's own protocols and ciphers replace the floor's",
	    "tv.test", "floor", DECIDE_DANE_NONE, 0, 1, "OK verify "
	    "protocols=>=TLSv1.3 ciphers=medium exclude=RC4" },
	{ "floor: pin may keeps its own, gets no floor", "tm.test", "floor",
	    DECIDE_DANE_ALL, 0, 1, "OK may exclude=3DES:aNULL" },
	{ "floor: pin encrypt gets no floor", "te.test", "floor",
	    DECIDE_DANE_ALL, 0, 1, "OK encrypt" },
	{ "floor: pin none gets no floor", "none.test", "floor",
	    DECIDE_DANE_NONE, 0, 1, "OK none" },
	{ "floor: DANE dane-only", "other.test", "floor", DECIDE_DANE_ALL, 1,
	    0, "OK dane-only protocols=>=TLSv1.2 ciphers=high exclude=RC4" },
	{ "floor: DANE on some MX, dane_some=dane-only", "other.test",
	    "floor", DECIDE_DANE_SOME, 0, 0,
	    "OK dane-only protocols=>=TLSv1.2 ciphers=high exclude=RC4" },
	{ "floor: DANE none usable: encrypt, no floor", "other.test", "floor",
	    DECIDE_DANE_TLS, 0, 0, "OK encrypt" },
	{ "floor: MTA-STS secure", "other.test", "floor", DECIDE_DANE_NONE, 1,
	    0, "OK secure match=mx.other.test servername=hostname "
	    "protocols=>=TLSv1.2 ciphers=high exclude=RC4" },
	{ "floor: nothing found: NOTFOUND", "other.test", "floor",
	    DECIDE_DANE_NONE, 0, 0, "NOTFOUND" },
	{ "floor: pre-3.6 exclusions as the floor", "other.test", "pfloor",
	    DECIDE_DANE_NONE, 1, 0, "OK secure match=mx.other.test "
	    "servername=hostname protocols=!SSLv2:!SSLv3:!TLSv1:!TLSv1.1" },
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
	pinned = pins_answer(cf, map, c->domain, &wout, &st, NULL) ==
	    PINS_IN_FORCE;
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
	assert_int_equal(query_decide(cf, c->domain, c->dane, &r, NULL, &opt,
	    &tout, &res, NULL, NULL), 0);
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
		    t[i].servername, "", NULL, &d, count_err, &n);
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

/* tls_grammar - tlsattr_check: every valid form, every typo refused with
 * its message (the phrase that follows the value in file:line messages) */
static void
tls_grammar(void **state)
{
	static const struct {
		enum tlsattr_kind k;
		const char	*in;
		const char	*out;	/* NULL: refused ... */
		const char	*why;	/* ... saying this */
	} t[] = {
		{ TLSATTR_PROTOCOLS, ">=TLSv1.2", ">=TLSv1.2", NULL },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.3", ">=TLSv1.3", NULL },
		{ TLSATTR_PROTOCOLS, ">=SSLv3:<=TLSv1.2", ">=SSLv3:<=TLSv1.2",
		    NULL },
		{ TLSATTR_PROTOCOLS, "<=TLSv1.2", "<=TLSv1.2", NULL },
		{ TLSATTR_PROTOCOLS, "!SSLv2:!SSLv3:!TLSv1:!TLSv1.1",
		    "!SSLv2:!SSLv3:!TLSv1:!TLSv1.1", NULL },
		{ TLSATTR_PROTOCOLS, "TLSv1.2:TLSv1.3", "TLSv1.2:TLSv1.3",
		    NULL },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.2:!TLSv1.3", ">=TLSv1.2:!TLSv1.3",
		    NULL },
		{ TLSATTR_CIPHERS, "high", "high", NULL },
		{ TLSATTR_CIPHERS, "MEDIUM", "medium", NULL },
		{ TLSATTR_EXCLUDE, "aNULL", "aNULL", NULL },
		{ TLSATTR_EXCLUDE, "3DES:RC4:ECDHE-RSA-AES128-SHA:kRSA+SHA1",
		    "3DES:RC4:ECDHE-RSA-AES128-SHA:kRSA+SHA1", NULL },

		{ TLSATTR_PROTOCOLS, "", NULL, "is empty" },
		{ TLSATTR_PROTOCOLS, "tlsv1.2", NULL, "has \"tlsv1.2\": "
		    "protocol names are case-sensitive, write TLSv1.2" },
		{ TLSATTR_PROTOCOLS, ">=tlsv1.3", NULL, "has \"tlsv1.3\": "
		    "protocol names are case-sensitive, write TLSv1.3" },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.4", NULL, "has \"TLSv1.4\", no "
		    "protocol (one of SSLv2 SSLv3 TLSv1 TLSv1.1 TLSv1.2 "
		    "TLSv1.3)" },
		{ TLSATTR_PROTOCOLS, "=>TLSv1.2", NULL, "has \"=>TLSv1.2\": a "
		    "bound is written >=NAME or <=NAME (Postfix 3.6 and "
		    "later)" },
		{ TLSATTR_PROTOCOLS, ">TLSv1.2", NULL, "has \">TLSv1.2\": a "
		    "bound is written >=NAME or <=NAME (Postfix 3.6 and "
		    "later)" },
		{ TLSATTR_PROTOCOLS, ">=SSLv2", NULL, "has \">=SSLv2\": a bound "
		    "names SSLv3 to TLSv1.3" },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.2:>=TLSv1.3", NULL,
		    "has two >= bounds" },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.3:<=TLSv1.2", NULL,
		    "allows no protocol at all" },
		{ TLSATTR_PROTOCOLS, "TLSv1.2:!TLSv1.2", NULL,
		    "allows no protocol at all" },
		{ TLSATTR_PROTOCOLS, ">=TLSv1.2,!TLSv1.3", NULL,
		    "has whitespace or ',': separate with ':' (a policy line "
		    "splits attributes at whitespace and ',')" },
		{ TLSATTR_PROTOCOLS, "!SSLv2 !SSLv3", NULL,
		    "has whitespace or ',': separate with ':' (a policy line "
		    "splits attributes at whitespace and ',')" },
		{ TLSATTR_PROTOCOLS, "!SSLv2::!SSLv3", NULL,
		    "has an empty protocol between ':'" },
		{ TLSATTR_PROTOCOLS, "!SSLv2:", NULL,
		    "has an empty protocol between ':'" },
		{ TLSATTR_PROTOCOLS, "!TLSv1.0", NULL, "has \"TLSv1.0\", no "
		    "protocol (one of SSLv2 SSLv3 TLSv1 TLSv1.1 TLSv1.2 "
		    "TLSv1.3)" },
		{ TLSATTR_CIPHERS, "low", NULL, "is read as medium by Postfix "
		    "3.6 and later: write medium (or high)" },
		{ TLSATTR_CIPHERS, "export", NULL, "is read as medium by "
		    "Postfix 3.6 and later: write medium (or high)" },
		{ TLSATTR_CIPHERS, "null", NULL, "is no encryption: write high "
		    "or medium" },
		{ TLSATTR_CIPHERS, "strong", NULL, "is no cipher grade: write "
		    "high or medium" },
		{ TLSATTR_CIPHERS, "high:medium", NULL, "is no cipher grade: "
		    "write high or medium" },
		{ TLSATTR_EXCLUDE, "!RC4", NULL, "has \"!RC4\": name the "
		    "ciphers to exclude without a leading '!', '+', '-' or '@' "
		    "(Postfix refuses them)" },
		{ TLSATTR_EXCLUDE, "RC4:@STRENGTH", NULL, "has \"@STRENGTH\": "
		    "name the ciphers to exclude without a leading '!', '+', "
		    "'-' or '@' (Postfix refuses them)" },
		{ TLSATTR_EXCLUDE, "RC4 3DES", NULL, "has whitespace or ',': "
		    "separate with ':' (a policy line splits attributes at "
		    "whitespace and ',')" },
		{ TLSATTR_EXCLUDE, "RC4:{x}", NULL, "has \"{x}\", no cipher "
		    "name (letters, digits and ._+=-, names separated by ':')" },
		{ TLSATTR_EXCLUDE, "RC4::3DES", NULL, "has an empty cipher "
		    "name between ':'" },
		{ TLSATTR_EXCLUDE, "RC4\x01", NULL, "has a control or "
		    "non-ASCII byte" },
	};
	char	 out[TLSATTR_MAX_VALUE + 1], why[TLSATTR_WHY_MAX], big[400];
	size_t	 i;
	int	 rc;

	(void)state;
	for (i = 0; i < NCASES(t); i++) {
		why[0] = '\0';
		rc = tlsattr_check(t[i].k, t[i].in, strlen(t[i].in), out, why,
		    sizeof(why));
		if (t[i].out != NULL) {
			if (rc != 0)
				fail_msg("row %zu \"%s\": refused: %s", i,
				    t[i].in, why);
			assert_string_equal(out, t[i].out);
		} else {
			if (rc != -1)
				fail_msg("row %zu \"%s\": taken", i, t[i].in);
			assert_string_equal(why, t[i].why);
		}
	}
	/* the limits: bytes, then tokens */
	memset(big, 'A', sizeof(big));
	assert_int_equal(tlsattr_check(TLSATTR_EXCLUDE, big,
	    TLSATTR_MAX_VALUE + 1, out, why, sizeof(why)), -1);
	assert_string_equal(why, "is longer than 256 bytes");
	assert_int_equal(tlsattr_check(TLSATTR_EXCLUDE, big,
	    TLSATTR_MAX_VALUE, out, why, sizeof(why)), 0);
	for (i = 1; i < 2 * (TLSATTR_MAX_TOKENS + 1); i += 2)
		big[i] = ':';
	assert_int_equal(tlsattr_check(TLSATTR_EXCLUDE, big,
	    2 * TLSATTR_MAX_TOKENS - 1, out, why, sizeof(why)), 0);
	assert_int_equal(tlsattr_check(TLSATTR_EXCLUDE, big,
	    2 * TLSATTR_MAX_TOKENS + 1, out, why, sizeof(why)), -1);
	assert_string_equal(why, "has more than 32 ':'-separated names");
}

/* tls_pins - pins_parse with protocols, ciphers, exclude: at every level
 * but none, composed into the answer in that order; floor_attrs at the
 * authenticated levels only */
static void
tls_pins(void **state)
{
	static const struct {
		const char	*level, *match, *p, *c, *e;
		int		 nerr;
		const char	*answer;	/* nerr == 0 */
		unsigned int	 floor;
	} t[] = {
		{ "secure", "", ">=TLSv1.2", "", "", 0,
		    "secure protocols=>=TLSv1.2", ALL_BUT_P },
		{ "verify", "nexthop", "", "HIGH", "RC4", 0,
		    "verify match=nexthop ciphers=high exclude=RC4",
		    TLSATTR_BIT(TLSATTR_PROTOCOLS) },
		{ "dane-only", "", "", "", "", 0, "dane-only", ALL_TLS },
		{ "fingerprint", "ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:"
		    "89", "TLSv1.3", "medium", "aNULL", 0, "fingerprint match=AB:"
		    "CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89 "
		    "protocols=TLSv1.3 ciphers=medium exclude=aNULL", 0 },
		{ "dane", "", ">=TLSv1.2", "", "", 0, "dane protocols=>=TLSv1.2",
		    0 },
		{ "encrypt", "", "", "high", "", 0, "encrypt ciphers=high", 0 },
		{ "may", "", "!SSLv3", "", "", 0, "may protocols=!SSLv3", 0 },
		{ "may", "", "", "", "", 0, "may", 0 },
		{ "none", "", ">=TLSv1.2", "high", "RC4", 3, NULL, 0 },
		{ "secure", "", "TLSv1.4", "low", "!RC4", 3, NULL, 0 },
		{ "secure", "a..b", "tlsv1.2", "", "", 2, NULL, 0 },
	};
	const char *tls[TLSATTR_NKINDS];
	struct config_domain d;
	size_t	 i;
	int	 n, rc;

	(void)state;
	for (i = 0; i < NCASES(t); i++) {
		memset(&d, 0, sizeof(d));
		n = 0;
		tls[TLSATTR_PROTOCOLS] = t[i].p;
		tls[TLSATTR_CIPHERS] = t[i].c;
		tls[TLSATTR_EXCLUDE] = t[i].e;
		rc = pins_parse("x.test", t[i].level, t[i].match, "", "", tls,
		    &d, count_err, &n);
		if (n != t[i].nerr || rc != (n > 0 ? -1 : 0))
			fail_msg("row %zu: %d errors (want %d), rc %d; last: "
			    "%s", i, n, t[i].nerr, rc, last_err);
		if (t[i].answer != NULL) {
			assert_string_equal(d.answer, t[i].answer);
			assert_int_equal(d.floor_attrs, t[i].floor);
		}
		free(d.level);
		free(d.match);
		free(d.servername);
		free(d.protocols);
		free(d.ciphers);
		free(d.exclude);
		free(d.answer);
	}
	/* the message names the domain, the option and the value */
	memset(&d, 0, sizeof(d));
	n = 0;
	tls[TLSATTR_PROTOCOLS] = "=>TLSv1.2";
	tls[TLSATTR_CIPHERS] = tls[TLSATTR_EXCLUDE] = NULL;
	assert_int_equal(pins_parse("x.test", "secure", "", "", "", tls, &d,
	    count_err, &n), -1);
	assert_string_equal(last_err, "domain \"x.test\": protocols "
	    "\"=>TLSv1.2\" has \"=>TLSv1.2\": a bound is written >=NAME or "
	    "<=NAME (Postfix 3.6 and later)");
	tls[TLSATTR_PROTOCOLS] = "TLSv1.2";
	free(d.level);
	free(d.answer);
	memset(&d, 0, sizeof(d));
	assert_int_equal(pins_parse("x.test", "none", "", "", "", tls, &d,
	    count_err, &n), -1);
	assert_string_equal(last_err, "domain \"x.test\": protocols is not "
	    "valid at level none (Postfix ignores every attribute with TLS "
	    "disabled)");
	free(d.level);
	free(d.answer);
}

/* until_grammar - pins_until_parse: the two forms, and why a value is
 * none (the phrase follows the value in the file:line message) */
static void
until_grammar(void **state)
{
	static const struct {
		const char	*name, *in;
		int64_t		 end;		/* 0: an error ... */
		const char	*why;		/* ... saying this */
	} t[] = {
		{ "instant", "2030-06-15T12:00:00Z", 1907755200, NULL },
		{ "instant, lower-case t and z", "2030-06-15t12:00:00z",
		    1907755200, NULL },
		{ "date: through that day", "2030-06-15", 1907798400, NULL },
		{ "first second of 2000", "2000-01-01T00:00:00Z", 946684800,
		    NULL },
		{ "leap day of 2000 (a 400th year)", "2000-02-29", 951868800,
		    NULL },
		{ "last second of a leap day", "2024-02-29T23:59:59Z",
		    1709251199, NULL },
		{ "last second accepted", "9999-12-31T23:59:59Z",
		    253402300799, NULL },
		{ "2100 is no leap year", "2100-02-29", 0,
		    "has no day 29: month 02 of 2100 has 28 days" },
		{ "2026 is no leap year", "2026-02-29", 0, "has no day 29" },
		{ "April 31", "2026-04-31", 0, "month 04 of 2026 has 30 days" },
		{ "day zero", "2026-01-00", 0, "has no day 00" },
		{ "month 13", "2026-13-01", 0, "has no month 13" },
		{ "month zero", "2026-00-10", 0, "has no month 00" },
		{ "hour 24", "2026-12-31T24:00:00Z", 0, "has no time 24:00:00" },
		{ "leap second", "2016-12-31T23:59:60Z", 0,
		    "has no time 23:59:60" },
		{ "minute 60", "2026-12-31T12:60:00Z", 0, "has no time" },
		{ "no Z", "2026-12-31T12:00:00", 0, "has no Z" },
		{ "an offset", "2026-12-31T12:00:00+01:00", 0,
		    "has an offset from UTC" },
		{ "a negative offset", "2026-12-31T12:00:00-05:00", 0,
		    "has an offset from UTC" },
		{ "fractions of a second", "2026-12-31T12:00:00.5Z", 0,
		    "is neither a date YYYY-MM-DD nor a time" },
		{ "no seconds", "2026-12-31T12:00Z", 0, "is neither" },
		{ "space for T", "2026-12-31 12:00:00Z", 0, "is neither" },
		{ "day first", "31-12-2026", 0, "is neither" },
		{ "slashes", "2026/12/31", 0, "is neither" },
		{ "one-digit month", "2026-1-31", 0, "is neither" },
		{ "two-digit year", "26-12-31", 0, "is neither" },
		{ "trailing space", "2026-12-31 ", 0, "is neither" },
		{ "leading space", " 2026-12-31", 0, "is neither" },
		{ "a sign", "+2026-12-31", 0, "is neither" },
		{ "a Unix time", "1907755200", 0, "is neither" },
		{ "a word", "tomorrow", 0, "is neither" },
		{ "before 2000", "1999-12-31", 0,
		    "is not in the years 2000 to 9999" },
		{ "epoch", "1970-01-01T00:00:00Z", 0, "is not in the years" },
	};
	char	 why[128];
	int64_t	 end;
	size_t	 i;
	int	 rc;

	(void)state;
	for (i = 0; i < NCASES(t); i++) {
		end = -1;
		why[0] = '\0';
		rc = pins_until_parse(t[i].in, &end, why, sizeof(why));
		if (t[i].why == NULL && (rc != 0 || end != t[i].end))
			fail_msg("%s: \"%s\": rc %d, end %lld (want %lld), %s",
			    t[i].name, t[i].in, rc, (long long)end,
			    (long long)t[i].end, why);
		if (t[i].why != NULL && (rc != -1 ||
		    strstr(why, t[i].why) == NULL))
			fail_msg("%s: \"%s\": rc %d, \"%s\" (want \"%s\")",
			    t[i].name, t[i].in, rc, why, t[i].why);
	}
}

/* until_formats - the end as messages show it */
static void
until_formats(void **state)
{
	const struct config_domain *d;
	char	 t[PINS_UNTIL_BUFSZ], text[PINS_UNTIL_TEXT_MAX];

	(void)state;
	assert_string_equal(pins_until_format(253402300799, t),
	    "9999-12-31T23:59:59Z");
	d = config_find_domain(cf, "instant.test");
	assert_non_null(d);
	/* written back with T and Z in upper case */
	assert_string_equal(d->until, "2030-06-15T12:00:00Z");
	assert_int_equal(d->end, 1907755200);
	assert_string_equal(pins_until_text(d, text), "2030-06-15T12:00:00Z");
	d = config_find_domain(cf, "day.test");
	assert_non_null(d);
	assert_string_equal(pins_until_text(d, text),
	    "2030-06-15 (ends 2030-06-16T00:00:00Z)");
	d = config_find_domain(cf, "d1.test");
	assert_non_null(d);
	assert_null(d->until);
	assert_int_equal(d->end, 0);
	assert_string_equal(pins_until_text(d, text), "");
}

/* both_paths - the worker's pin branch and postsmtpsts-query's decision
 * for domain at the clock's time: the state both see, and the reply of
 * the tool (an enforce policy was discovered) */
static enum pins_state
both_paths(const char *domain, const char *want)
{
	const struct config_domain *wd, *td;
	const struct config_map *map;
	struct discover_result r;
	struct decide_options opt;
	struct decide_result res;
	struct sts_policy *pol;
	struct buf	 wout, tout;
	enum sockmap_status st;
	enum pins_state	 ws, ts;

	map = config_find_map(cf, "postfix", 7);
	assert_non_null(map);
	facts_decide_options(map, &opt);
	buf_init(&wout, SOCKMAP_MAX_REPLY);
	ws = pins_answer(cf, map, domain, &wout, &st, &wd);
	if (ws != PINS_IN_FORCE)
		assert_int_equal(wout.len, 0);	/* out untouched */
	pol = calloc(1, sizeof(*pol));	/* large: its body */
	assert_non_null(pol);
	pol->mode = STS_MODE_ENFORCE;
	pol->max_age = 86400;
	assert_int_equal(sts_policy_mx_add(pol, "mx.example.net", 14), 0);
	memset(&r, 0, sizeof(r));
	r.domain = domain;
	r.outcome = DISCOVER_POLICY;
	r.policy = pol;
	buf_init(&tout, SOCKMAP_MAX_REPLY);
	assert_int_equal(query_decide(cf, domain, DECIDE_DANE_NONE, &r, NULL,
	    &opt, &tout, &res, &ts, &td), 0);
	assert_string_equal(buf_cstr(&tout), want);
	assert_int_equal(ws, ts);
	assert_ptr_equal(wd, td);
	assert_int_equal(res.source == DECIDE_SOURCE_PIN, ts ==
	    PINS_IN_FORCE);
	buf_free(&wout);
	buf_free(&tout);
	free(pol);
	return (ws);
}

#define TEST_DISCOVERED	"OK secure match=mx.example.net servername=hostname"

/* lapse_at_its_second - on the fake clock: a timed pin answers up to the
 * second before its end and not from its end on (discovery answers, as
 * if the section were absent); a date holds through that day, UTC */
static void
lapse_at_its_second(void **state)
{
	size_t	 in_force, lapsed;

	(void)state;
	clock_fake(1907755200 - 1, 0);	/* 2030-06-15T11:59:59Z */
	assert_int_equal(both_paths("instant.test", "OK encrypt"),
	    PINS_IN_FORCE);
	assert_int_equal(both_paths("d1.test", "OK dane-only"),
	    PINS_IN_FORCE);
	pins_count(cf, clock_wall(), &in_force, &lapsed);
	assert_int_equal(in_force, 2);
	assert_int_equal(lapsed, 0);
	clock_advance(1000);		/* 12:00:00Z: the end */
	assert_int_equal(both_paths("instant.test", TEST_DISCOVERED),
	    PINS_LAPSED);
	assert_int_equal(both_paths("day.test", "OK may"), PINS_IN_FORCE);
	pins_count(cf, clock_wall(), &in_force, &lapsed);
	assert_int_equal(in_force, 1);
	assert_int_equal(lapsed, 1);
	clock_advance(12 * 3600 * 1000 - 1000);	/* 23:59:59Z */
	assert_int_equal(both_paths("day.test", "OK may"), PINS_IN_FORCE);
	clock_advance(1000);		/* 2030-06-16T00:00:00Z */
	assert_int_equal(both_paths("day.test", TEST_DISCOVERED),
	    PINS_LAPSED);
	/* a pin without an end is untouched by time; an unpinned domain
	 * stays unpinned */
	assert_int_equal(both_paths("d1.test", "OK dane-only"),
	    PINS_IN_FORCE);
	assert_int_equal(both_paths("other.test", TEST_DISCOVERED),
	    PINS_NONE);
	pins_count(cf, clock_wall(), &in_force, &lapsed);
	assert_int_equal(in_force, 0);
	assert_int_equal(lapsed, 2);
	pins_count(NULL, clock_wall(), &in_force, &lapsed);
	assert_int_equal(in_force + lapsed, 0);
	clock_real();
}

int
main(void)
{
	struct CMUnitTest	 t[NCASES(cases) + 6];
	size_t			 i;

	for (i = 0; i < NCASES(cases); i++)
		t[i] = (struct CMUnitTest){ cases[i].name, same_answer, NULL,
		    NULL, (void *)&cases[i] };
	t[i++] = (struct CMUnitTest)cmocka_unit_test(bad_pins);
	t[i++] = (struct CMUnitTest)cmocka_unit_test(tls_grammar);
	t[i++] = (struct CMUnitTest)cmocka_unit_test(tls_pins);
	t[i++] = (struct CMUnitTest)cmocka_unit_test(until_grammar);
	t[i++] = (struct CMUnitTest)cmocka_unit_test(until_formats);
	t[i++] = (struct CMUnitTest)cmocka_unit_test(lapse_at_its_second);
	return (_cmocka_run_group_tests("pins", t, i, setup, teardown));
}
