/*
 * test_discover.c - the discovery state machine with the link-time fakes
 * of dns.h and https.h (tests/fake/fake_dns.c, fake_https.c)
 *
 * Each test starts a discovery without an event base (a NULL struct dns
 * and struct https: every query and fetch stays pending), answers its
 * lookups and fetch in a chosen order with chosen facts through the
 * fakes, and checks the single report.  No event loop, no network.  (The
 * real thing runs in tests/e2e/query-world.sh.)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/https.h"
#include "fake_dns.h"
#include "fake_https.h"

/* ---- helpers ---- */

struct report {
	int		 calls;
	enum discover_outcome outcome;
	enum discover_failure failure;
	enum dns_security txt_security;
	char		 id[64];
	char		 detail[512];
	char		 tlsrpt[256];
	int		 have_tlsrpt;
	int		 have_policy;
	int		 mode;
	size_t		 nmx;
	size_t		 naddrs;
	char		 addr0[64];
};

static struct report	 rep;

static void
record(const struct discover_result *r, void *arg)
{
	(void)arg;
	rep.calls++;
	rep.outcome = r->outcome;
	rep.failure = r->failure;
	rep.txt_security = r->txt_security;
	snprintf(rep.id, sizeof(rep.id), "%s", r->id != NULL ? r->id : "");
	snprintf(rep.detail, sizeof(rep.detail), "%s", r->detail);
	rep.have_tlsrpt = r->tlsrpt != NULL;
	snprintf(rep.tlsrpt, sizeof(rep.tlsrpt), "%s",
	    r->tlsrpt != NULL ? r->tlsrpt : r->tlsrpt_note);
	rep.have_policy = r->policy != NULL;
	if (r->policy != NULL) {
		rep.mode = r->policy->mode;
		rep.nmx = r->policy->nmx;
	}
	rep.naddrs = r->naddrs;
	snprintf(rep.addr0, sizeof(rep.addr0), "%s",
	    r->naddrs > 0 ? r->addrs[0] : "");
}

static int
reset(void **state)
{
	(void)state;
	fake_dns_reset();
	fake_https_reset();
	memset(&rep, 0, sizeof(rep));
	return (0);
}

/* find - queries for name/type still pending */
static int
find(const char *name, int rrtype)
{
	return (fake_dns_pending(name, rrtype));
}

/* count - queries ever asked for name/type */
static int
count(const char *name, int rrtype)
{
	return (fake_dns_count(name, rrtype));
}

/* fetch_addr - address i of the last fetch started */
static const char *
fetch_addr(size_t i)
{
	const char *const *addrs;
	size_t		 n;

	assert_non_null(fake_https_last(&addrs, &n));
	assert_true(i < n);
	return (addrs[i]);
}

/* fetch_naddrs - the addresses the last fetch was given */
static size_t
fetch_naddrs(void)
{
	size_t	 n;

	assert_non_null(fake_https_last(NULL, &n));
	return (n);
}

/* answer - deliver a result with up to 4 RDATAs to the query name/type */
static void
answer(const char *name, int rrtype, enum dns_status st, int rcode,
    enum dns_security sec, const char *const *rd, const size_t *rdlen,
    size_t n)
{
	struct fake_dns_answer	 a;
	size_t			 i;

	fake_dns_answer_init(&a, st, rcode, sec);
	for (i = 0; i < n; i++)
		assert_int_equal(fake_dns_add_rdata(&a, rd[i], rdlen[i]), 0);
	if (fake_dns_reply(name, rrtype, &a) == -1)
		fail_msg("no live query for %s type %d", name, rrtype);
}

/* answer_txt - TXT answer with records given as "string|string" texts,
 * each record one character-string */
static void
answer_txt(const char *name, enum dns_security sec, const char *r1,
    const char *r2)
{
	char		 b[2][300];
	const char	*rd[2];
	size_t		 len[2], n = 0;
	const char	*r[2] = { r1, r2 };
	size_t		 i;

	for (i = 0; i < 2; i++) {
		if (r[i] == NULL)
			continue;
		len[n] = strlen(r[i]) + 1;
		b[n][0] = (char)strlen(r[i]);
		memcpy(b[n] + 1, r[i], strlen(r[i]));
		rd[n] = b[n];
		n++;
	}
	answer(name, DNS_TYPE_TXT, DNS_OK, DNS_RCODE_NOERROR, sec, rd, len, n);
}

static void
answer_none(const char *name, int rrtype, int rcode)
{
	answer(name, rrtype, DNS_OK, rcode, DNS_INSECURE, NULL, NULL, 0);
}

static void
answer_addr(const char *name, int rrtype, enum dns_security sec)
{
	static const char v4[] = { 127, 0, 44, 3 };
	static const char v6[] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 1 };
	const char	*rd[1];
	size_t		 len[1];

	rd[0] = rrtype == DNS_TYPE_A ? v4 : v6;
	len[0] = rrtype == DNS_TYPE_A ? sizeof(v4) : sizeof(v6);
	answer(name, rrtype, DNS_OK, DNS_RCODE_NOERROR, sec, rd, len, 1);
}

/* fetched - complete the live fetch */
static void
fetched(enum https_error e, const char *body)
{
	struct fake_https_result r;

	assert_int_equal(fake_https_pending(NULL), 1);
	memset(&r, 0, sizeof(r));
	r.error = e;
	r.body = body;
	assert_int_equal(fake_https_reply(NULL, &r), 0);
}

static const char good_policy[] =
    "version: STSv1\nmode: enforce\nmx: mx1.example.com\n"
    "mx: *.example.net\nmax_age: 86400\n";

/* ---- tests ---- */

static void
nxdomain_is_no_policy(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_mta-sts.example.com", DNS_TYPE_TXT, DNS_RCODE_NXDOMAIN);
	assert_int_equal(rep.calls, 0);		/* TLSRPT still pending */
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT,
	    DNS_RCODE_NXDOMAIN);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.outcome, DISCOVER_NO_POLICY);
	assert_int_equal(fake_https_count(NULL), 0);
	assert_false(rep.have_tlsrpt);
}

/* the resolver's discovery: no TXT _smtp._tls lookup at all, and the
 * report does not wait for one */
static void
without_tlsrpt_flag_only_the_sts_record_is_asked(void **state)
{
	(void)state;
	discover_start_flags(NULL, NULL, "example.com", "bulk1", 0, record,
	    NULL);
	assert_int_equal(fake_dns_count(NULL, 0), 1);
	assert_string_equal(fake_dns_query_name(0), "_mta-sts.example.com");
	answer_txt("_mta-sts.example.com", DNS_SECURE, "v=STSv1; id=bulk1;",
	    NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.outcome, DISCOVER_UNCHANGED);
	assert_false(rep.have_tlsrpt);
	assert_int_equal(fake_dns_count(NULL, 0), 1);
}

/* no known id: the policy host's addresses are asked with the TXT record;
 * when they are in first, the TXT answer starts the fetch at once */
static void
addresses_are_asked_ahead_without_known_id(void **state)
{
	struct discover	*dv;

	(void)state;
	dv = discover_start_flags(NULL, NULL, "example.com", NULL, 0, record,
	    NULL);
	assert_int_equal(fake_dns_count(NULL, 0), 2);
	assert_true(find("_mta-sts.example.com", DNS_TYPE_TXT));
	assert_true(find("mta-sts.example.com", DNS_TYPE_A));
	assert_false(find("mta-sts.example.com", DNS_TYPE_AAAA)); /* A first */
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_SECURE);
	assert_int_equal(fake_https_count(NULL), 0);		/* not before the TXT */
	answer_txt("_mta-sts.example.com", DNS_SECURE,
	    "v=STSv1; id=20240101;", NULL);
	assert_int_equal(fake_https_count(NULL), 1);
	assert_int_equal(fetch_naddrs(), 1);
	assert_string_equal(fetch_addr(0), "127.0.44.3");
	assert_int_equal(fake_dns_count(NULL, 0), 2);		/* nothing asked twice */
	discover_cancel(dv);
	assert_int_equal(fake_https_pending(NULL), 0);
}

/* ... and when the TXT says there is no policy, they are cancelled and
 * the report does not wait for them */
static void
addresses_asked_ahead_are_cancelled_without_policy(void **state)
{
	(void)state;
	discover_start_flags(NULL, NULL, "example.com", NULL, 0, record,
	    NULL);
	answer_none("_mta-sts.example.com", DNS_TYPE_TXT, DNS_RCODE_NXDOMAIN);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.outcome, DISCOVER_NO_POLICY);
	assert_false(find("mta-sts.example.com", DNS_TYPE_A));
	assert_false(find("mta-sts.example.com", DNS_TYPE_AAAA));
	assert_int_equal(fake_https_count(NULL), 0);
}

static void
full_discovery_yields_policy_and_tlsrpt(void **state)
{
	(void)state;
	discover_start_flags(NULL, NULL, "example.com", "older",
	    DISCOVER_TLSRPT | DISCOVER_ALL_ADDRESSES, record, NULL);
	answer_txt("_smtp._tls.example.com", DNS_SECURE,
	    "v=TLSRPTv1; rua=mailto:tlsrpt@example.com", "v=spf1 -all");
	answer_txt("_mta-sts.example.com", DNS_SECURE, "v=spf1 -all",
	    "v=STSv1; id=20240101;");
	/* AAAA first: v4 addresses are still listed first */
	answer_addr("mta-sts.example.com", DNS_TYPE_AAAA, DNS_SECURE);
	assert_int_equal(fake_https_count(NULL), 0);		/* waits for A too */
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_SECURE);
	assert_int_equal(fake_https_count(NULL), 1);
	assert_string_equal(fake_https_last(NULL, NULL), "mta-sts.example.com");
	assert_int_equal(fetch_naddrs(), 2);
	assert_string_equal(fetch_addr(0), "127.0.44.3");
	assert_string_equal(fetch_addr(1), "2001:db8::1");
	fetched(HTTPS_OK, good_policy);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.outcome, DISCOVER_POLICY);
	assert_string_equal(rep.id, "20240101");
	assert_int_equal(rep.txt_security, DNS_SECURE);
	assert_true(rep.have_policy);
	assert_int_equal(rep.mode, STS_MODE_ENFORCE);
	assert_int_equal(rep.nmx, 2);
	assert_true(rep.have_tlsrpt);
	assert_string_equal(rep.tlsrpt,
	    "v=TLSRPTv1; rua=mailto:tlsrpt@example.com");
}

static void
known_id_is_unchanged_without_fetch(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", "abc", record, NULL);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=abc",
	    NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.outcome, DISCOVER_UNCHANGED);
	assert_false(find("mta-sts.example.com", DNS_TYPE_A));
	assert_int_equal(fake_https_count(NULL), 0);
}

static void
servfail_and_timeout_are_failures(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_mta-sts.example.com", DNS_TYPE_TXT, DNS_RCODE_SERVFAIL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.outcome, DISCOVER_FAILURE);
	assert_int_equal(rep.failure, DISCOVER_FAIL_DNS_SERVFAIL);

	reset(NULL);
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer("_mta-sts.example.com", DNS_TYPE_TXT, DNS_ERR_TIMEOUT,
	    DNS_RCODE_SERVFAIL, DNS_INSECURE, NULL, NULL, 0);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.failure, DISCOVER_FAIL_DNS_SERVFAIL);
	assert_non_null(strstr(rep.detail, "fake: timed out"));
}

static void
bogus_txt_is_a_failure_not_no_policy(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	/* even a bogus NXDOMAIN must not read as "no record" */
	answer("_mta-sts.example.com", DNS_TYPE_TXT, DNS_OK,
	    DNS_RCODE_NXDOMAIN, DNS_BOGUS, NULL, NULL, 0);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.outcome, DISCOVER_FAILURE);
	assert_int_equal(rep.failure, DISCOVER_FAIL_DNS_BOGUS);
	assert_non_null(strstr(rep.detail, "signature expired"));
	assert_string_equal(discover_tlsrpt_result_type(rep.failure),
	    "dnssec-invalid");
}

static void
two_sts_records_are_txt_invalid(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    "v=STSv1; id=b;");
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.failure, DISCOVER_FAIL_TXT_INVALID);
	assert_int_equal(fake_https_count(NULL), 0);
}

static void
non_sts_records_only_is_no_policy(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv10; id=a;",
	    NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.outcome, DISCOVER_NO_POLICY);
}

static void
bogus_addresses_are_never_fetched(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_BOGUS);
	answer_none("mta-sts.example.com", DNS_TYPE_AAAA, 0);
	assert_int_equal(fake_https_count(NULL), 0);
	assert_int_equal(rep.failure, DISCOVER_FAIL_FETCH);
	assert_non_null(strstr(rep.detail, "bogus"));
}

static void
fetch_errors_map_to_failure_kinds(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_INSECURE);
	fetched(HTTPS_ERR_WEBPKI, NULL);
	assert_int_equal(rep.failure, DISCOVER_FAIL_WEBPKI);
	assert_string_equal(discover_tlsrpt_result_type(rep.failure),
	    "sts-webpki-invalid");

	reset(NULL);
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_INSECURE);
	fetched(HTTPS_ERR_REDIRECT, NULL);
	assert_int_equal(rep.failure, DISCOVER_FAIL_FETCH);
}

static void
invalid_policy_is_policy_invalid(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_none("_smtp._tls.example.com", DNS_TYPE_TXT, 0);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_INSECURE);
	fetched(HTTPS_OK, "version: STSv1\nmode: enforce\nmx: a.example\n");
	assert_int_equal(rep.outcome, DISCOVER_FAILURE);
	assert_int_equal(rep.failure, DISCOVER_FAIL_POLICY_INVALID);
}

/* start_with_a - a discovery of example.com whose policy host's A (one
 * secure address) and then its TXT record are answered: the fetch is next */
static void
start_with_a(void)
{
	discover_start_flags(NULL, NULL, "example.com", NULL, 0, record,
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_SECURE);
	answer_txt("_mta-sts.example.com", DNS_SECURE, "v=STSv1; id=a;",
	    NULL);
}

/* A first: an answer with addresses is fetched from, AAAA not asked */
static void
a_addresses_are_fetched_without_aaaa(void **state)
{
	(void)state;
	start_with_a();
	assert_int_equal(fake_https_count(NULL), 1);
	assert_int_equal(fetch_naddrs(), 1);
	fetched(HTTPS_OK, good_policy);
	assert_int_equal(rep.outcome, DISCOVER_POLICY);
	assert_int_equal(count("mta-sts.example.com", DNS_TYPE_AAAA), 0);
	assert_int_equal(rep.naddrs, 1);
}

/* no usable IPv4 address (none, bogus, failed): AAAA is asked next */
static void
no_usable_a_asks_aaaa(void **state)
{
	static const struct {
		enum dns_status	 st;
		int		 rcode;
		enum dns_security sec;
		int		 with_addr;
	} t[] = {
		{ DNS_OK, DNS_RCODE_NOERROR, DNS_SECURE, 0 },
		{ DNS_OK, DNS_RCODE_NOERROR, DNS_BOGUS, 1 },
		{ DNS_ERR_TIMEOUT, DNS_RCODE_SERVFAIL, DNS_INSECURE, 0 },
	};
	static const char v4[] = { 127, 0, 44, 3 };
	const char	*rd[1] = { v4 };
	size_t		 len[1] = { sizeof(v4) }, i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		(void)reset(state);
		discover_start_flags(NULL, NULL, "example.com", NULL, 0,
		    record, NULL);
		answer_txt("_mta-sts.example.com", DNS_SECURE,
		    "v=STSv1; id=a;", NULL);
		answer("mta-sts.example.com", DNS_TYPE_A, t[i].st, t[i].rcode,
		    t[i].sec, rd, len, t[i].with_addr ? 1 : 0);
		assert_int_equal(fake_https_count(NULL), 0);
		answer_addr("mta-sts.example.com", DNS_TYPE_AAAA, DNS_SECURE);
		assert_int_equal(fake_https_count(NULL), 1);
		assert_int_equal(fetch_naddrs(), 1);
		assert_string_equal(fetch_addr(0), "2001:db8::1");
		fetched(HTTPS_OK, good_policy);
		assert_int_equal(rep.outcome, DISCOVER_POLICY);
	}
}

/* the IPv4 fetch cannot connect or times out: the IPv6 addresses are
 * tried, and only they */
static void
ipv4_fetch_failure_tries_ipv6(void **state)
{
	static const enum https_error e[] = { HTTPS_ERR_CONNECT,
	    HTTPS_ERR_TIMEOUT };
	size_t	 i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		(void)reset(state);
		start_with_a();
		assert_false(find("mta-sts.example.com", DNS_TYPE_AAAA));
		fetched(e[i], NULL);
		assert_int_equal(rep.calls, 0);
		answer_addr("mta-sts.example.com", DNS_TYPE_AAAA, DNS_SECURE);
		assert_int_equal(fake_https_count(NULL), 2);
		assert_int_equal(fetch_naddrs(), 1);
		assert_string_equal(fetch_addr(0), "2001:db8::1");
		fetched(HTTPS_OK, good_policy);	/* ASan: first url freed */
		assert_int_equal(rep.calls, 1);
		assert_int_equal(rep.outcome, DISCOVER_POLICY);
		assert_int_equal(rep.naddrs, 2);
	}
}

/* ... with no IPv6 address the IPv4 failure is the report */
static void
ipv4_fetch_failure_without_ipv6_fails(void **state)
{
	(void)state;
	start_with_a();
	fetched(HTTPS_ERR_CONNECT, NULL);
	answer_none("mta-sts.example.com", DNS_TYPE_AAAA, 0);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(fake_https_count(NULL), 1);
	assert_int_equal(rep.outcome, DISCOVER_FAILURE);
	assert_int_equal(rep.failure, DISCOVER_FAIL_FETCH);
	assert_non_null(strstr(rep.detail, "fake: connect"));
}

/* other fetch failures are final: a certificate is not a matter of the
 * address family */
static void
other_fetch_failures_ask_no_aaaa(void **state)
{
	static const enum https_error e[] = { HTTPS_ERR_WEBPKI,
	    HTTPS_ERR_TLS, HTTPS_ERR_HTTP_STATUS, HTTPS_ERR_TOO_LARGE };
	size_t	 i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		(void)reset(state);
		start_with_a();
		fetched(e[i], NULL);
		assert_int_equal(rep.calls, 1);
		assert_int_equal(rep.outcome, DISCOVER_FAILURE);
		assert_int_equal(count("mta-sts.example.com", DNS_TYPE_AAAA),
		    0);
	}
}

/* the tools' discovery: both families at once */
static void
all_addresses_asks_both_at_once(void **state)
{
	struct discover	*dv;

	(void)state;
	dv = discover_start_flags(NULL, NULL, "example.com", NULL,
	    DISCOVER_ALL_ADDRESSES, record, NULL);
	assert_true(find("mta-sts.example.com", DNS_TYPE_A));
	assert_true(find("mta-sts.example.com", DNS_TYPE_AAAA));
	discover_cancel(dv);
}

static void
two_tlsrpt_records_count_as_none(void **state)
{
	(void)state;
	discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_txt("_smtp._tls.example.com", DNS_INSECURE,
	    "v=TLSRPTv1; rua=mailto:a@example.com",
	    "v=TLSRPTv1;rua=mailto:b@example.com");
	answer_none("_mta-sts.example.com", DNS_TYPE_TXT, 0);
	assert_int_equal(rep.calls, 1);
	assert_false(rep.have_tlsrpt);
	assert_non_null(strstr(rep.tlsrpt, "more than one"));
}

static void
cancel_stops_lookups_and_fetch(void **state)
{
	struct discover	*dv;

	(void)state;
	dv = discover_start(NULL, NULL, "example.com", NULL, record, NULL);
	answer_txt("_mta-sts.example.com", DNS_INSECURE, "v=STSv1; id=a;",
	    NULL);
	answer_addr("mta-sts.example.com", DNS_TYPE_A, DNS_INSECURE);
	assert_int_equal(fake_https_pending(NULL), 1);
	discover_cancel(dv);			/* ASan: all freed */
	assert_int_equal(fake_https_pending(NULL), 0);
	assert_false(find("_smtp._tls.example.com", DNS_TYPE_TXT));
	assert_int_equal(rep.calls, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nxdomain_is_no_policy, reset),
		cmocka_unit_test_setup(
		    without_tlsrpt_flag_only_the_sts_record_is_asked, reset),
		cmocka_unit_test_setup(
		    addresses_are_asked_ahead_without_known_id, reset),
		cmocka_unit_test_setup(
		    addresses_asked_ahead_are_cancelled_without_policy, reset),
		cmocka_unit_test_setup(full_discovery_yields_policy_and_tlsrpt,
		    reset),
		cmocka_unit_test_setup(known_id_is_unchanged_without_fetch,
		    reset),
		cmocka_unit_test_setup(servfail_and_timeout_are_failures,
		    reset),
		cmocka_unit_test_setup(bogus_txt_is_a_failure_not_no_policy,
		    reset),
		cmocka_unit_test_setup(two_sts_records_are_txt_invalid, reset),
		cmocka_unit_test_setup(non_sts_records_only_is_no_policy,
		    reset),
		cmocka_unit_test_setup(bogus_addresses_are_never_fetched,
		    reset),
		cmocka_unit_test_setup(fetch_errors_map_to_failure_kinds,
		    reset),
		cmocka_unit_test_setup(invalid_policy_is_policy_invalid, reset),
		cmocka_unit_test_setup(two_tlsrpt_records_count_as_none, reset),
		cmocka_unit_test_setup(a_addresses_are_fetched_without_aaaa,
		    reset),
		cmocka_unit_test_setup(no_usable_a_asks_aaaa, reset),
		cmocka_unit_test_setup(ipv4_fetch_failure_tries_ipv6, reset),
		cmocka_unit_test_setup(ipv4_fetch_failure_without_ipv6_fails,
		    reset),
		cmocka_unit_test_setup(other_fetch_failures_ask_no_aaaa,
		    reset),
		cmocka_unit_test_setup(all_addresses_asks_both_at_once, reset),
		cmocka_unit_test_setup(cancel_stops_lookups_and_fetch, reset),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
