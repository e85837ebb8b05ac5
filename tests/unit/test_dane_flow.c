/*
 * test_dane_flow.c - the DANE walk of dane.c with the link-time fake of
 * dns.h (tests/fake/fake_dns.c)
 *
 * Walks start without an event base (a NULL struct dns), so every query
 * stays pending until the test answers it through the fake.  Each test
 * starts a walk, answers its lookups in a chosen
 * order with chosen facts and checks the single report: above all the
 * TLSA query asked ahead with the addresses (kept until the addresses
 * decide, used, or dropped) and which failed lookup a host reports.  The
 * real thing runs in tests/e2e/dane.sh.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/dane.h"
#include "lib/dns.h"
#include "fake_dns.h"

/* ---- the report ---- */

static struct {
	int		 calls;
	enum dane_state	 state;
	size_t		 nhosts;
	enum dane_state	 host_state;
	enum dane_fail	 host_fail;
	int		 host_fail_rrtype;
	int		 tlsa_looked;
	int		 addr_skipped;
	size_t		 ntlsa;
	char		 tlsa_name[300];
	char		 why[200];
} rep;

static void
report(const struct dane_result *r, void *arg)
{
	(void)arg;
	rep.calls++;
	rep.state = r->state;
	rep.nhosts = r->nhosts;
	if (r->nhosts > 0) {
		rep.host_state = r->hosts[0].state;
		rep.host_fail = r->hosts[0].fail;
		rep.host_fail_rrtype = r->hosts[0].fail_rrtype;
		rep.tlsa_looked = r->hosts[0].tlsa_looked;
		rep.addr_skipped = r->hosts[0].addr_skipped;
		rep.ntlsa = r->hosts[0].ntlsa;
		snprintf(rep.tlsa_name, sizeof(rep.tlsa_name), "%s",
		    r->hosts[0].tlsa_name);
		snprintf(rep.why, sizeof(rep.why), "%s", r->hosts[0].why);
	}
}

/* the walk under test: cancelled if it never reported (no leak) */
static struct dane	*walk;

static int
teardown(void **state)
{
	(void)state;
	if (walk != NULL && rep.calls == 0)
		dane_cancel(walk);
	walk = NULL;
	return (0);
}

static int
reset(void **state)
{
	teardown(state);
	fake_dns_reset();
	memset(&rep, 0, sizeof(rep));
	return (0);
}

/* ---- answering ---- */

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

/* wire_name - "a.b" as labels at b; returns the bytes written */
static size_t
wire_name(unsigned char *b, const char *name)
{
	size_t		 n = 0, l;
	const char	*dot;

	while (*name != '\0') {
		dot = strchr(name, '.');
		l = dot != NULL ? (size_t)(dot - name) : strlen(name);
		b[n++] = (unsigned char)l;
		memcpy(b + n, name, l);
		n += l;
		name += l;
		if (*name == '.')
			name++;
	}
	b[n++] = 0;
	return (n);
}

static void
answer_pkt(const char *name, int rrtype, enum dns_status st, int rcode,
    enum dns_security sec, const unsigned char *rd, size_t rdlen,
    const char *canon, const unsigned char *pkt, size_t pktlen)
{
	struct fake_dns_answer	 a;

	fake_dns_answer_init(&a, st, rcode, sec);
	if (rd != NULL)
		assert_int_equal(fake_dns_add_rdata(&a, rd, rdlen), 0);
	if (canon != NULL)
		snprintf(a.canonname, sizeof(a.canonname), "%s", canon);
	if (pkt != NULL)
		assert_int_equal(fake_dns_set_packet(&a, pkt, pktlen), 0);
	if (fake_dns_reply(name, rrtype, &a) == -1)
		fail_msg("no live query for %s type %d", name, rrtype);
}

static void
answer(const char *name, int rrtype, enum dns_status st, int rcode,
    enum dns_security sec, const unsigned char *rd, size_t rdlen,
    const char *canon)
{
	answer_pkt(name, rrtype, st, rcode, sec, rd, rdlen, canon, NULL, 0);
}

/*
 * nsec_packet - the NXDOMAIN answer to TLSA_NAME whose authority section
 * holds one NSEC record owned by owner with the window-0 type bitmap
 * bm[0..bmlen), as libunbound hands it (only what dnswire reads)
 */
static size_t
nsec_packet(unsigned char *b, size_t bsz, const char *owner,
    const unsigned char *bm, size_t bmlen)
{
	static const unsigned char head[] = { 0, 0, 0x81, 0x83, 0, 1, 0, 0,
	    0, 1, 0, 0 };
	static const unsigned char next[] = { 1, 'z', 0 };
	size_t		 n = 0, rdl;

	assert_true(bsz >= 512);
	memcpy(b, head, sizeof(head));
	n = sizeof(head);
	n += wire_name(b + n, "_25._tcp.mx.example.com");
	b[n++] = 0;
	b[n++] = 52;		/* TLSA */
	b[n++] = 0;
	b[n++] = 1;
	n += wire_name(b + n, owner);
	b[n++] = 0;
	b[n++] = 47;		/* NSEC */
	b[n++] = 0;
	b[n++] = 1;
	memset(b + n, 0, 3);
	b[n + 3] = 60;		/* TTL */
	n += 4;
	rdl = sizeof(next) + 2 + bmlen;
	b[n++] = 0;
	b[n++] = (unsigned char)rdl;
	memcpy(b + n, next, sizeof(next));
	n += sizeof(next);
	b[n++] = 0;		/* window 0 */
	b[n++] = (unsigned char)bmlen;
	memcpy(b + n, bm, bmlen);
	return (n + bmlen);
}

static const unsigned char addr4[4] = { 192, 0, 2, 25 };
/* 3 1 1 <32 bytes>: DANE-EE, SPKI, SHA2-256: usable */
static const unsigned char tlsa311[35] = { 3, 1, 1, 0xab };

static const unsigned char mx_rdata[] = { 0, 10, 2, 'm', 'x', 7, 'e', 'x',
    'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0 };

/* one MX host, mx.example.com, secure; the daemon's walk: TLSA first */
static void
start_one_mx_first(void)
{
	walk = dane_start(NULL, "example.com", report, NULL);
	answer("example.com", DNS_TYPE_MX, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, mx_rdata, sizeof(mx_rdata), NULL);
}

/* the same with dane_opts.addresses_first (postsmtpsts-query): A and
 * the TLSA query ahead at once, the order the tests below take apart */
static void
start_one_mx(void)
{
	struct dane_opts o;

	memset(&o, 0, sizeof(o));
	o.addresses_first = 1;
	walk = dane_start_opts(NULL, "example.com", &o, report, NULL);
	answer("example.com", DNS_TYPE_MX, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, mx_rdata, sizeof(mx_rdata), NULL);
}

#define TLSA_NAME	"_25._tcp.mx.example.com"

/* addresses - answer A with one address; AAAA too if it was asked */
static void
addresses(enum dns_security a, enum dns_security aaaa, const char *canon)
{
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR, a,
	    addr4, sizeof(addr4), canon);
	if (find("mx.example.com", DNS_TYPE_AAAA))
		answer("mx.example.com", DNS_TYPE_AAAA, DNS_OK,
		    DNS_RCODE_NOERROR, aaaa, NULL, 0, canon);
}

/* start_one_mx_all - the same with dane_opts.all_addresses (the check
 * tool): A and AAAA asked together */
static void
start_one_mx_all(void)
{
	struct dane_opts o;

	memset(&o, 0, sizeof(o));
	o.all_addresses = 1;
	walk = dane_start_opts(NULL, "example.com", &o, report, NULL);
	answer("example.com", DNS_TYPE_MX, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, mx_rdata, sizeof(mx_rdata), NULL);
}

/* ---- tests ---- */

/* the TLSA query goes out with A and AAAA; its answer, in first, waits
 * for the addresses and is then used as if asked after them */
static void
tlsa_ahead_answered_first_is_kept(void **state)
{
	(void)state;
	start_one_mx();
	assert_true(find("mx.example.com", DNS_TYPE_A));
	assert_false(find("mx.example.com", DNS_TYPE_AAAA));
	assert_true(find(TLSA_NAME, DNS_TYPE_TLSA));
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 0);
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
	assert_int_equal(rep.host_state, DANE_ALL);
	assert_int_equal(rep.tlsa_looked, 1);
	assert_int_equal(rep.ntlsa, 1);
	assert_string_equal(rep.tlsa_name, TLSA_NAME);
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 1);
}

/* addresses in first: the pending TLSA answer is waited for, not asked
 * again */
static void
tlsa_ahead_pending_is_waited_for(void **state)
{
	(void)state;
	start_one_mx();
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 0);
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 1);
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NXDOMAIN,
	    DNS_SECURE, NULL, 0, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
	assert_int_equal(rep.host_state, DANE_NONE);
	assert_string_equal(rep.why, "no TLSA records");
}

/* insecure addresses: RFC 7672 2.2.2, the TLSA records do not count; the
 * query asked ahead is cancelled and nothing of it is reported */
static void
insecure_addresses_drop_the_tlsa_ahead(void **state)
{
	(void)state;
	start_one_mx();
	addresses(DNS_INSECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.host_state, DANE_NONE);
	assert_string_equal(rep.why, "address records not DNSSEC secure");
	assert_false(find(TLSA_NAME, DNS_TYPE_TLSA));	/* cancelled */
	assert_int_equal(rep.tlsa_looked, 0);
	assert_string_equal(rep.tlsa_name, "");
}

/* ... also when its answer (usable records, even) was already in; with
 * both families asked, the worse of A and AAAA counts */
static void
insecure_addresses_ignore_a_kept_answer(void **state)
{
	(void)state;
	start_one_mx_all();
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	addresses(DNS_SECURE, DNS_INSECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
	assert_int_equal(rep.ntlsa, 0);
	assert_int_equal(rep.tlsa_looked, 0);
}

/* a CNAME'd host: the expanded name is asked first (2.2.2), then the MX
 * name again; the answer asked ahead is not used */
static void
cname_asks_the_expanded_name(void **state)
{
	(void)state;
	start_one_mx();
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	addresses(DNS_SECURE, DNS_SECURE, "real.example.net.");
	assert_int_equal(rep.calls, 0);
	answer("_25._tcp.real.example.net", DNS_TYPE_TLSA, DNS_OK,
	    DNS_RCODE_NXDOMAIN, DNS_SECURE, NULL, 0, NULL);
	assert_int_equal(rep.calls, 0);
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 2);
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
}

/* host_failed - one report: the host failed, this way, on this lookup */
static void
host_failed(enum dane_fail fail, int rrtype)
{
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.host_state, DANE_FAILURE);
	assert_int_equal(rep.host_fail, fail);
	assert_int_equal(rep.host_fail_rrtype, rrtype);
}

/* a failed TLSA lookup asked ahead counts once the addresses are secure:
 * the host is left to Postfix */
static void
tlsa_ahead_failure_counts_for_a_secure_host(void **state)
{
	(void)state;
	start_one_mx();
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_ERR_TIMEOUT, DNS_RCODE_SERVFAIL,
	    DNS_INSECURE, NULL, 0, NULL);
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	host_failed(DANE_FAIL_TIMEOUT, DNS_TYPE_TLSA);
}

/* both address lookups bogus: the host reports A, whichever came first */
static void
failed_lookup_reported_is_a_before_aaaa(void **state)
{
	(void)state;
	start_one_mx_all();
	answer("mx.example.com", DNS_TYPE_AAAA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_BOGUS, NULL, 0, NULL);
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_BOGUS, NULL, 0, NULL);
	host_failed(DANE_FAIL_BOGUS, DNS_TYPE_A);
	assert_false(find(TLSA_NAME, DNS_TYPE_TLSA));
}

/* secure A records decide: no AAAA query, the TLSA records count */
static void
secure_a_asks_no_aaaa(void **state)
{
	(void)state;
	start_one_mx();
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, addr4, sizeof(addr4), NULL);
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
	assert_int_equal(count("mx.example.com", DNS_TYPE_AAAA), 0);
}

/* insecure, bogus, failed or NXDOMAIN A answers decide too */
static void
deciding_a_answers_ask_no_aaaa(void **state)
{
	static const struct {
		enum dns_status	 st;
		int		 rcode;
		enum dns_security sec;
		enum dane_state	 host_state;
	} t[] = {
		{ DNS_OK, DNS_RCODE_NOERROR, DNS_INSECURE, DANE_NONE },
		{ DNS_OK, DNS_RCODE_NOERROR, DNS_BOGUS, DANE_FAILURE },
		{ DNS_ERR_TIMEOUT, DNS_RCODE_SERVFAIL, DNS_INSECURE,
		    DANE_FAILURE },
		{ DNS_OK, DNS_RCODE_SERVFAIL, DNS_INSECURE, DANE_FAILURE },
		{ DNS_OK, DNS_RCODE_NXDOMAIN, DNS_SECURE, DANE_NONE },
	};
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		(void)reset(state);
		start_one_mx();
		answer("mx.example.com", DNS_TYPE_A, t[i].st, t[i].rcode,
		    t[i].sec, NULL, 0, NULL);
		if (rep.calls == 0)	/* the TLSA asked ahead, if waited */
			answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK,
			    DNS_RCODE_NXDOMAIN, DNS_SECURE, NULL, 0, NULL);
		assert_int_equal(rep.calls, 1);
		assert_int_equal(rep.host_state, t[i].host_state);
		assert_int_equal(count("mx.example.com", DNS_TYPE_AAAA), 0);
	}
}

/* a secure, empty A answer: an IPv6-only host, AAAA asked next */
static void
empty_a_asks_aaaa(void **state)
{
	static const unsigned char addr6[16] = { 0x20, 0x01, 0x0d, 0xb8,
	    [15] = 25 };

	(void)state;
	start_one_mx();
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, NULL, 0, NULL);
	assert_int_equal(rep.calls, 0);
	assert_true(find("mx.example.com", DNS_TYPE_AAAA));
	answer("mx.example.com", DNS_TYPE_AAAA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, addr6, sizeof(addr6), NULL);
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
	assert_int_equal(count("mx.example.com", DNS_TYPE_AAAA), 1);
}

/* ... whose AAAA answer is bogus: the host is unusable, AAAA reported */
static void
empty_a_then_bogus_aaaa_fails(void **state)
{
	(void)state;
	start_one_mx();
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, NULL, 0, NULL);
	answer("mx.example.com", DNS_TYPE_AAAA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_BOGUS, NULL, 0, NULL);
	host_failed(DANE_FAIL_BOGUS, DNS_TYPE_AAAA);
	assert_false(find(TLSA_NAME, DNS_TYPE_TLSA));
}

/* ... and a secure, empty AAAA too: no addresses, no DANE */
static void
empty_a_and_aaaa_no_addresses(void **state)
{
	(void)state;
	start_one_mx();
	answer("mx.example.com", DNS_TYPE_A, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, NULL, 0, NULL);
	answer("mx.example.com", DNS_TYPE_AAAA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, NULL, 0, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.host_state, DANE_NONE);
	assert_string_equal(rep.why, "no address records");
}

/* the check tool's walk: both families at once */
static void
all_addresses_asks_both_at_once(void **state)
{
	(void)state;
	start_one_mx_all();
	assert_true(find("mx.example.com", DNS_TYPE_A));
	assert_true(find("mx.example.com", DNS_TYPE_AAAA));
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(count("mx.example.com", DNS_TYPE_AAAA), 1);
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
}

/* an insecure MX RRset: no DANE, nothing asked ahead */
static void
insecure_mx_asks_nothing_ahead(void **state)
{
	(void)state;
	walk = dane_start(NULL, "example.com", report, NULL);
	answer("example.com", DNS_TYPE_MX, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_INSECURE, mx_rdata, sizeof(mx_rdata), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 0);
}

/* ---- the daemon's walk: TLSA at the MX name first ---- */

static const unsigned char bm_a[] = { 0x40, 0, 0, 0, 0, 0x03 };
/* CNAME, and A beside it (no zone may have both; a hostile one might) */
static const unsigned char bm_cname[] = { 0x44, 0, 0, 0, 0, 0x03 };
static const unsigned char bm_cut[] = { 0x60 };	/* A NS: a delegation */

/* denial - the TLSA query's answer: secure or not NXDOMAIN with the NSEC
 * record of owner (bitmap bm) in its authority section */
static void
denial(const char *owner, const unsigned char *bm, size_t bmlen,
    enum dns_security sec)
{
	unsigned char	 pkt[512];
	size_t		 n;

	n = nsec_packet(pkt, sizeof(pkt), owner, bm, bmlen);
	answer_pkt(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NXDOMAIN, sec,
	    NULL, 0, NULL, pkt, n);
}

/* tlsa - the TLSA query's answer without a packet: usable records or none */
static void
tlsa(enum dns_security sec, int records)
{
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, records ? DNS_RCODE_NOERROR :
	    DNS_RCODE_NXDOMAIN, sec, records ? tlsa311 : NULL,
	    records ? sizeof(tlsa311) : 0, NULL);
}

/* only the TLSA query goes out */
static void
tlsa_first_asks_tlsa_alone(void **state)
{
	(void)state;
	start_one_mx_first();
	assert_true(find(TLSA_NAME, DNS_TYPE_TLSA));
	assert_int_equal(count("mx.example.com", DNS_TYPE_A), 0);
	assert_int_equal(count("mx.example.com", DNS_TYPE_AAAA), 0);
	assert_int_equal(rep.calls, 0);
}

/* a secure denial whose NSEC record at the MX name shows A and no
 * CNAME decides: no DANE, the addresses never asked */
static void
tlsa_first_nsec_denial_decides(void **state)
{
	(void)state;
	start_one_mx_first();
	denial("mx.example.com", bm_a, sizeof(bm_a), DNS_SECURE);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
	assert_int_equal(rep.host_state, DANE_NONE);
	assert_int_equal(rep.addr_skipped, 1);
	assert_int_equal(rep.tlsa_looked, 1);
	assert_string_equal(rep.tlsa_name, TLSA_NAME);
	assert_non_null(strstr(rep.why, "addresses not looked up"));
	assert_int_equal(count("mx.example.com", DNS_TYPE_A), 0);
}

/* the MX name is an alias: its addresses are asked, and the TLSA records
 * at the expanded name count (RFC 7672 2.2.2) */
static void
tlsa_first_cname_asks_addresses(void **state)
{
	(void)state;
	start_one_mx_first();
	denial("mx.example.com", bm_cname, sizeof(bm_cname), DNS_SECURE);
	assert_int_equal(rep.calls, 0);
	assert_true(find("mx.example.com", DNS_TYPE_A));
	addresses(DNS_SECURE, DNS_SECURE, "real.example.net.");
	answer("_25._tcp.real.example.net", DNS_TYPE_TLSA, DNS_OK,
	    DNS_RCODE_NOERROR, DNS_SECURE, tlsa311, sizeof(tlsa311), NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
	assert_int_equal(rep.addr_skipped, 0);
	assert_string_equal(rep.tlsa_name, "_25._tcp.real.example.net");
}

/* what does not prove the name's types leaves it to the addresses: the
 * NSEC record of another name, an insecure answer, no packet */
static void
tlsa_first_no_proof_asks_addresses(void **state)
{
	(void)state;
	start_one_mx_first();
	denial("mx0.example.com", bm_a, sizeof(bm_a), DNS_SECURE);
	assert_int_equal(rep.calls, 0);
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.host_state, DANE_NONE);
	assert_string_equal(rep.why, "no TLSA records");
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 1);	/* kept */

	reset(NULL);
	start_one_mx_first();
	denial("mx.example.com", bm_a, sizeof(bm_a), DNS_INSECURE);
	assert_int_equal(rep.calls, 0);
	addresses(DNS_INSECURE, DNS_INSECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_string_equal(rep.why, "address records not DNSSEC secure");
	assert_int_equal(rep.tlsa_looked, 0);

	reset(NULL);
	start_one_mx_first();
	tlsa(DNS_SECURE, 0);
	assert_int_equal(rep.calls, 0);
	assert_true(find("mx.example.com", DNS_TYPE_A));

	/* the parent's record at a zone cut says nothing of the child */
	reset(NULL);
	start_one_mx_first();
	denial("mx.example.com", bm_cut, sizeof(bm_cut), DNS_SECURE);
	assert_int_equal(rep.calls, 0);
	assert_true(find("mx.example.com", DNS_TYPE_A));
}

/* usable records: the addresses must be secure for them to count, and
 * the answer is kept, not asked again */
static void
tlsa_first_records_need_secure_addresses(void **state)
{
	(void)state;
	start_one_mx_first();
	tlsa(DNS_SECURE, 1);
	assert_int_equal(rep.calls, 0);
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_ALL);
	assert_int_equal(rep.ntlsa, 1);
	assert_int_equal(count(TLSA_NAME, DNS_TYPE_TLSA), 1);

	reset(NULL);
	start_one_mx_first();
	tlsa(DNS_SECURE, 1);
	addresses(DNS_INSECURE, DNS_INSECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
	assert_int_equal(rep.ntlsa, 0);
}

/* a bogus TLSA answer fails a host with secure addresses, as in the
 * ordered walk */
static void
tlsa_first_bogus_fails_a_secure_host(void **state)
{
	(void)state;
	start_one_mx_first();
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_BOGUS, NULL, 0, NULL);
	assert_int_equal(rep.calls, 0);
	addresses(DNS_SECURE, DNS_SECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_FAILURE);
	assert_int_equal(rep.host_fail, DANE_FAIL_BOGUS);
	assert_int_equal(rep.host_fail_rrtype, DNS_TYPE_TLSA);
}

/*
 * RFC 7672 §2.2: a secure TLSA RRset with no usable record still means
 * TLS (unauthenticated): the host is DANE_TLS, so is a one-host domain.
 * Every way a record can be unusable (§3.1.3), and a record too short to
 * parse, which is published all the same; beside a usable one, DANE.
 */
static void
unusable_tlsa_requires_tls(void **state)
{
	static const struct {
		const char	*name;
		unsigned char	 rd[2][70];
		size_t		 len[2];	/* 0: no second record */
		enum dns_security sec;
		enum dane_state	 want;
	} t[] = {
		{ "PKIX-EE(1) only", { { 1, 1, 1, 0xab } }, { 35, 0 },
		  DNS_SECURE, DANE_TLS },
		{ "PKIX-TA(0) only", { { 0, 0, 1, 0xab } }, { 35, 0 },
		  DNS_SECURE, DANE_TLS },
		{ "SHA2-256 digest one byte short", { { 3, 1, 1, 0xab } },
		  { 34, 0 }, DNS_SECURE, DANE_TLS },
		{ "SHA2-512 digest of 32 bytes", { { 3, 1, 2, 0xab } },
		  { 35, 0 }, DNS_SECURE, DANE_TLS },
		{ "unknown selector", { { 3, 2, 1, 0xab } }, { 35, 0 },
		  DNS_SECURE, DANE_TLS },
		{ "unknown matching type", { { 2, 1, 3, 0xab } }, { 35, 0 },
		  DNS_SECURE, DANE_TLS },
		{ "no association data (too short to parse)", { { 3, 1, 1 } },
		  { 3, 0 }, DNS_SECURE, DANE_TLS },
		{ "PKIX-EE and a malformed DANE-EE", { { 1, 1, 1, 0xab },
		  { 3, 1, 1, 0xab } }, { 35, 20 }, DNS_SECURE, DANE_TLS },
		{ "PKIX-EE beside a usable DANE-EE", { { 1, 1, 1, 0xab },
		  { 3, 1, 1, 0xab } }, { 35, 35 }, DNS_SECURE, DANE_ALL },
		{ "PKIX-EE, insecure: no DANE", { { 1, 1, 1, 0xab } },
		  { 35, 0 }, DNS_INSECURE, DANE_NONE },
	};
	struct fake_dns_answer a;
	size_t		 i, k;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		reset(NULL);
		start_one_mx_first();
		fake_dns_answer_init(&a, DNS_OK, DNS_RCODE_NOERROR, t[i].sec);
		for (k = 0; k < 2 && t[i].len[k] > 0; k++)
			assert_int_equal(fake_dns_add_rdata(&a, t[i].rd[k],
			    t[i].len[k]), 0);
		assert_int_equal(fake_dns_reply(TLSA_NAME, DNS_TYPE_TLSA, &a),
		    0);
		assert_int_equal(rep.calls, 0);	/* addresses first */
		addresses(DNS_SECURE, DNS_SECURE, NULL);
		if (rep.calls != 1 || rep.host_state != t[i].want ||
		    rep.state != t[i].want)
			fail_msg("%s: %d calls, host %s, domain %s, want %s",
			    t[i].name, rep.calls,
			    dane_state_name(rep.host_state),
			    dane_state_name(rep.state),
			    dane_state_name(t[i].want));
		if (t[i].want == DANE_TLS && strstr(rep.why, "TLS required") ==
		    NULL)
			fail_msg("%s: why \"%s\"", t[i].name, rep.why);
	}
	/* insecure addresses: the TLSA records do not count (§2.2.2) */
	reset(NULL);
	start_one_mx_first();
	answer(TLSA_NAME, DNS_TYPE_TLSA, DNS_OK, DNS_RCODE_NOERROR,
	    DNS_SECURE, t[0].rd[0], t[0].len[0], NULL);
	addresses(DNS_INSECURE, DNS_INSECURE, NULL);
	assert_int_equal(rep.calls, 1);
	assert_int_equal(rep.state, DANE_NONE);
}

#define T(f)	cmocka_unit_test_setup_teardown(f, reset, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(tlsa_ahead_answered_first_is_kept),
		T(tlsa_ahead_pending_is_waited_for),
		T(insecure_addresses_drop_the_tlsa_ahead),
		T(insecure_addresses_ignore_a_kept_answer),
		T(cname_asks_the_expanded_name),
		T(tlsa_ahead_failure_counts_for_a_secure_host),
		T(failed_lookup_reported_is_a_before_aaaa),
		T(insecure_mx_asks_nothing_ahead),
		T(secure_a_asks_no_aaaa),
		T(deciding_a_answers_ask_no_aaaa),
		T(empty_a_asks_aaaa),
		T(empty_a_then_bogus_aaaa_fails),
		T(empty_a_and_aaaa_no_addresses),
		T(all_addresses_asks_both_at_once),
		T(tlsa_first_asks_tlsa_alone),
		T(tlsa_first_nsec_denial_decides),
		T(tlsa_first_cname_asks_addresses),
		T(tlsa_first_no_proof_asks_addresses),
		T(tlsa_first_records_need_secure_addresses),
		T(tlsa_first_bogus_fails_a_secure_host),
		T(unusable_tlsa_requires_tls),
	};

	return (cmocka_run_group_tests_name("dane_flow", tests, NULL, NULL));
}
