/*
 * test_check_verdict.c - unit tests for postsmtpsts-check's verdict rules
 * (check_verdict.h: RFC 8461 §4-5 for MTA-STS, RFC 7672 §2-3 for DANE)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/check_verdict.h"

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

/* what a case takes away from a host that passes everything */
#define NO_ADDR		0x001
#define NO_CONNECT	0x002
#define NO_SMTP		0x004
#define NO_STARTTLS	0x008
#define NO_TLS		0x010
#define NO_CERT		0x020
#define NO_PKIX		0x040
#define NO_NAME		0x080
#define NO_MXMATCH	0x100
#define EE_ONLY		0x200

struct host_case {
	const char	*name;
	enum check_verdict_require require;
	unsigned	 no;		/* NO_* flags, EE_ONLY */
	enum check_verdict_dane dane;
	long		 expiry_days;	/* 0 means 1000 */
	long		 warn_days;	/* -1 means 0, 0 means 14 */
	const char	*error;
	enum check_verdict_level want;
	const char	*reason;	/* a substring of the reason, or "" */
};

/* host_of - the facts a case describes */
static void
host_of(const struct host_case *c, struct check_verdict_host *h)
{
	memset(h, 0, sizeof(*h));
	h->require = c->require;
	h->have_addr = !(c->no & NO_ADDR);
	h->connected = !(c->no & NO_CONNECT);
	h->smtp_ok = !(c->no & NO_SMTP);
	h->starttls = !(c->no & NO_STARTTLS);
	h->tls = !(c->no & (NO_TLS | NO_STARTTLS));
	h->have_cert = !(c->no & (NO_CERT | NO_TLS | NO_STARTTLS));
	h->pkix_ok = !(c->no & NO_PKIX);
	h->name_ok = !(c->no & NO_NAME);
	h->mx_match = !(c->no & NO_MXMATCH);
	h->dane_ee_only = (c->no & EE_ONLY) != 0;
	h->dane = c->dane;
	h->expiry_days = c->expiry_days != 0 ? c->expiry_days : 1000;
	h->warn_days = c->warn_days == -1 ? 0 : c->warn_days != 0 ?
	    c->warn_days : 14;
	h->error = c->error;
}

static const struct host_case host_cases[] = {
	{ "enforce: all good is ok", CHECK_VERDICT_REQ_ENFORCE, 0, 0, 0, 0,
	    NULL, CHECK_VERDICT_OK, "" },
	{ "enforce: wrong name fails", CHECK_VERDICT_REQ_ENFORCE, NO_NAME, 0,
	    0, 0, NULL, CHECK_VERDICT_FAILURE, "does not name" },
	{ "enforce: PKIX invalid fails", CHECK_VERDICT_REQ_ENFORCE, NO_PKIX,
	    0, 0, 0, NULL, CHECK_VERDICT_FAILURE, "PKIX" },
	{ "enforce: expired fails", CHECK_VERDICT_REQ_ENFORCE, NO_PKIX, 0,
	    -1000, 0, NULL, CHECK_VERDICT_FAILURE, "expired 1000 days ago" },
	{ "enforce: no STARTTLS fails", CHECK_VERDICT_REQ_ENFORCE,
	    NO_STARTTLS, 0, 0, 0, NULL, CHECK_VERDICT_FAILURE,
	    "STARTTLS not offered" },
	{ "enforce: handshake failure fails", CHECK_VERDICT_REQ_ENFORCE,
	    NO_TLS, 0, 0, 0, "TLS handshake: boom", CHECK_VERDICT_FAILURE,
	    "boom" },
	{ "enforce: host outside the mx patterns fails",
	    CHECK_VERDICT_REQ_ENFORCE, NO_MXMATCH, 0, 0, 0, NULL,
	    CHECK_VERDICT_FAILURE, "mx pattern" },
	{ "enforce: expiring soon warns", CHECK_VERDICT_REQ_ENFORCE, 0, 0, 3,
	    0, NULL, CHECK_VERDICT_WARNING, "expires in 3 days" },
	{ "enforce: expiring exactly at warn_days is ok",
	    CHECK_VERDICT_REQ_ENFORCE, 0, 0, 14, 0, NULL, CHECK_VERDICT_OK,
	    "" },
	{ "enforce: warn_days 0 and one day left is ok",
	    CHECK_VERDICT_REQ_ENFORCE, 0, 0, 1, -1, NULL, CHECK_VERDICT_OK,
	    "" },
	{ "enforce: warn_days 100000 warns", CHECK_VERDICT_REQ_ENFORCE, 0, 0,
	    0, 100000, NULL, CHECK_VERDICT_WARNING, "expires in 1000 days" },
	{ "testing: wrong name warns", CHECK_VERDICT_REQ_TESTING, NO_NAME, 0,
	    0, 0, NULL, CHECK_VERDICT_WARNING, "does not name" },
	{ "testing: no STARTTLS warns", CHECK_VERDICT_REQ_TESTING,
	    NO_STARTTLS, 0, 0, 0, NULL, CHECK_VERDICT_WARNING, "STARTTLS" },
	{ "testing: outside the mx patterns warns", CHECK_VERDICT_REQ_TESTING,
	    NO_MXMATCH, 0, 0, 0, NULL, CHECK_VERDICT_WARNING,
	    "testing policy" },
	{ "none: no STARTTLS warns", CHECK_VERDICT_REQ_NONE,
	    NO_STARTTLS | NO_MXMATCH, 0, 0, 0, NULL, CHECK_VERDICT_WARNING,
	    "STARTTLS not offered" },
	{ "none: untrusted certificate is only a note", CHECK_VERDICT_REQ_NONE,
	    NO_PKIX | NO_MXMATCH, 0, 0, 0, NULL, CHECK_VERDICT_OK, "note:" },
	{ "none: expiring soon still warns", CHECK_VERDICT_REQ_NONE, 0, 0, 1,
	    0, NULL, CHECK_VERDICT_WARNING, "expires in 1 day " },
	/* TLSA records, none usable (RFC 7672 §2.2): TLS, unauthenticated */
	{ "tls: all good is ok", CHECK_VERDICT_REQ_TLS, NO_MXMATCH, 0, 0, 0,
	    NULL, CHECK_VERDICT_OK, "" },
	{ "tls: no STARTTLS fails", CHECK_VERDICT_REQ_TLS, NO_STARTTLS, 0,
	    0, 0, NULL, CHECK_VERDICT_FAILURE, "STARTTLS not offered" },
	{ "tls: handshake failure fails", CHECK_VERDICT_REQ_TLS, NO_TLS, 0,
	    0, 0, "TLS handshake: boom", CHECK_VERDICT_FAILURE, "boom" },
	{ "tls: untrusted certificate is only a note", CHECK_VERDICT_REQ_TLS,
	    NO_PKIX, 0, 0, 0, NULL, CHECK_VERDICT_OK, "not authenticated" },
	{ "tls: wrong name is only a note", CHECK_VERDICT_REQ_TLS, NO_NAME,
	    0, 0, 0, NULL, CHECK_VERDICT_OK, "not authenticated" },
	{ "tls: no certificate is only a note", CHECK_VERDICT_REQ_TLS,
	    NO_CERT, 0, 0, 0, NULL, CHECK_VERDICT_OK, "no server certificate" },
	{ "tls: expiring soon warns", CHECK_VERDICT_REQ_TLS, 0, 0, 2, 0,
	    NULL, CHECK_VERDICT_WARNING, "expires in 2 days" },
	{ "any: no address fails", CHECK_VERDICT_REQ_NONE, NO_ADDR, 0, 0, 0,
	    NULL, CHECK_VERDICT_FAILURE, "no address" },
	{ "any: connect failure fails with its reason",
	    CHECK_VERDICT_REQ_NONE, NO_CONNECT, 0, 0, 0,
	    "connect 192.0.2.1 port 25: Connection refused",
	    CHECK_VERDICT_FAILURE, "Connection refused" },
	{ "any: SMTP failure fails", CHECK_VERDICT_REQ_TESTING, NO_SMTP, 0, 0,
	    0, NULL, CHECK_VERDICT_FAILURE, "SMTP" },
	{ "dane: EE match is ok without PKIX and name", CHECK_VERDICT_REQ_DANE,
	    NO_PKIX | NO_NAME | EE_ONLY, CHECK_VERDICT_DANE_MATCH, 0, 0, NULL,
	    CHECK_VERDICT_OK, "" },
	{ "dane: EE match ignores expiry", CHECK_VERDICT_REQ_DANE, EE_ONLY,
	    CHECK_VERDICT_DANE_MATCH, -5, 0, NULL, CHECK_VERDICT_OK, "" },
	{ "dane: TA match warns on expiry", CHECK_VERDICT_REQ_DANE, 0,
	    CHECK_VERDICT_DANE_MATCH, 5, 0, NULL, CHECK_VERDICT_WARNING,
	    "expires" },
	{ "dane: TA match needs the name", CHECK_VERDICT_REQ_DANE, NO_NAME,
	    CHECK_VERDICT_DANE_MATCH, 0, 0, NULL, CHECK_VERDICT_FAILURE,
	    "DANE-TA" },
	{ "dane: mismatch fails even with PKIX valid", CHECK_VERDICT_REQ_DANE,
	    0, CHECK_VERDICT_DANE_MISMATCH, 0, 0, NULL, CHECK_VERDICT_FAILURE,
	    "TLSA" },
	{ "dane: no STARTTLS fails", CHECK_VERDICT_REQ_DANE, NO_STARTTLS,
	    CHECK_VERDICT_DANE_NA, 0, 0, NULL, CHECK_VERDICT_FAILURE,
	    "STARTTLS" },
	{ "dane: TLSA lookup failure fails under any policy",
	    CHECK_VERDICT_REQ_NONE, 0, CHECK_VERDICT_DANE_LOOKUP_FAILED, 0, 0,
	    NULL, CHECK_VERDICT_FAILURE, "TLSA lookup failed" },
};

/* test_host - one host_cases row */
static void
test_host(void **state)
{
	const struct host_case *c = *state;
	struct check_verdict_host h;
	char	 reason[CHECK_VERDICT_REASON_MAX];

	host_of(c, &h);
	assert_int_equal(check_verdict_host(&h, reason, sizeof(reason)),
	    c->want);
	if (c->reason[0] == '\0')
		assert_string_equal(reason, "");
	else if (strstr(reason, c->reason) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", reason, c->reason);
}

/* a tiny reason buffer truncates but stays a string */
static void
test_host_truncated_reason(void **state)
{
	static const struct host_case c = { "", CHECK_VERDICT_REQ_ENFORCE,
	    NO_PKIX | NO_NAME | NO_MXMATCH, 0, 0, 0, NULL, 0, "" };
	struct check_verdict_host h;
	char	 reason[8];

	(void)state;
	host_of(&c, &h);
	memset(reason, 'z', sizeof(reason));
	assert_int_equal(check_verdict_host(&h, reason, sizeof(reason)),
	    CHECK_VERDICT_FAILURE);
	assert_true(strlen(reason) < sizeof(reason));
}

struct domain_case {
	const char	*name;
	struct check_verdict_domain d;
	enum check_verdict_level want;
};

static const struct domain_case domain_cases[] = {
	{ "domain: hosts checked is ok", { .nhosts = 2 }, CHECK_VERDICT_OK },
	{ "domain: nothing checked fails", { .nhosts = 0 },
	    CHECK_VERDICT_FAILURE },
	{ "domain: MX lookup failure fails", { .mx_failed = 1 },
	    CHECK_VERDICT_FAILURE },
	{ "domain: STS policy unusable warns", { .nhosts = 1,
	    .sts_failed = 1 }, CHECK_VERDICT_WARNING },
};

/* test_domain - one domain_cases row */
static void
test_domain(void **state)
{
	const struct domain_case *c = *state;
	char	 reason[CHECK_VERDICT_REASON_MAX];

	assert_int_equal(check_verdict_domain(&c->d, reason, sizeof(reason)),
	    c->want);
	assert_int_equal(reason[0] == '\0', c->want == CHECK_VERDICT_OK);
}

/* the names used in the output and the man page */
static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(check_verdict_name(CHECK_VERDICT_OK), "ok");
	assert_string_equal(check_verdict_name(CHECK_VERDICT_WARNING),
	    "warning");
	assert_string_equal(check_verdict_name(CHECK_VERDICT_FAILURE),
	    "failure");
	assert_string_equal(check_verdict_require_name(
	    CHECK_VERDICT_REQ_ENFORCE), "sts-enforce");
	assert_string_equal(check_verdict_require_name(CHECK_VERDICT_REQ_TLS),
	    "tls");
	assert_string_equal(check_verdict_dane_name(
	    CHECK_VERDICT_DANE_MISMATCH), "mismatch");
}

int
main(void)
{
	struct CMUnitTest	*t;
	size_t			 n = 0, i;
	int			 rc;

	t = calloc(NCASES(host_cases) + NCASES(domain_cases) + 3,
	    sizeof(*t));
	if (t == NULL)
		return (1);
	for (i = 0; i < NCASES(host_cases); i++)
		t[n++] = (struct CMUnitTest){ host_cases[i].name, test_host,
		    NULL, NULL, (void *)&host_cases[i] };
	for (i = 0; i < NCASES(domain_cases); i++)
		t[n++] = (struct CMUnitTest){ domain_cases[i].name,
		    test_domain, NULL, NULL, (void *)&domain_cases[i] };
	t[n++] = (struct CMUnitTest)cmocka_unit_test(
	    test_host_truncated_reason);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_names);
	rc = _cmocka_run_group_tests("check_verdict", t, n, NULL, NULL);
	free(t);
	return (rc);
}
