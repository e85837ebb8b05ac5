/*
 * test_dns.c - dns.c against a fake DNS server on a loopback UDP socket
 *
 * The fake server lives in the test's own event loop: it answers TXT
 * queries with a canned record, NXDOMAIN, nothing at all, too late, or an
 * MX through a CNAME with compressed names, so the deadline, cancel,
 * late-answer, cache and local-data paths run for real through libunbound
 * in the same event loop.  No network beyond 127.0.0.1.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "lib/config.h"
#include "lib/dns.h"

#define FAKE_BUFSZ	1500
#define FAKE_TTL	300
#define LATE_MS		400

enum fake_mode {
	FAKE_TXT,		/* one TXT record in two character-strings */
	FAKE_NXDOMAIN,
	FAKE_SILENT,		/* never answer */
	FAKE_LATE,		/* answer LATE_MS after the question */
	FAKE_CNAME_MX,		/* CNAME to mx2.example.org. and its MX */
};

struct fake {
	struct event_base *base;
	int		 fd;
	struct event	*ev;
	struct event	*late;
	enum fake_mode	 mode;
	int		 queries;
	unsigned char	 reply[FAKE_BUFSZ];
	size_t		 replylen;
	struct sockaddr_in peer;
	char		 fwd[64];
};

struct outcome {
	int		 calls;
	int		 want;		/* break the loop after this many */
	struct event_base *base;
	enum dns_status	 status;
	int		 rcode;
	int		 nxdomain;
	int		 havedata;
	enum dns_security security;
	int		 ttl;
	size_t		 count;
	unsigned char	 rdata[256];
	size_t		 rdlen;
	char		 canon[256];
	int		 inside;	/* set while dns_query() runs */
	int		 called_inside;
};

static const unsigned char fake_txt[] = "\x08v=STSv1;\x07 id=abc";

static const unsigned char fake_target[] = "\x03mx2\x07" "example\x03org";

/* fake_build_cname_mx - owner CNAME mx2.example.org., whose MX is
 * "10 mail.example.org." compressed against the CNAME target, or that MX
 * alone when mx2.example.org is asked */
static int
fake_build_cname_mx(struct fake *f, const unsigned char *q, size_t qend)
{
	unsigned char	*r = f->reply;
	size_t		 i = qend, tgt = 12;

	if (qend - 12 - 4 != sizeof(fake_target) ||
	    memcmp(q + 12, fake_target, sizeof(fake_target)) != 0) {
		r[7]++;
		r[i++] = 0xc0; r[i++] = 12;
		r[i++] = 0; r[i++] = 5;		/* CNAME */
		r[i++] = 0; r[i++] = 1;
		r[i++] = 0; r[i++] = 0; r[i++] = FAKE_TTL >> 8;
		r[i++] = FAKE_TTL & 255;
		r[i++] = 0; r[i++] = sizeof(fake_target);
		tgt = i;
		memcpy(r + i, fake_target, sizeof(fake_target));
		i += sizeof(fake_target);
	}
	r[7]++;
	r[i++] = 0xc0 | (unsigned char)(tgt >> 8); r[i++] = tgt & 255;
	r[i++] = 0; r[i++] = 15;		/* MX */
	r[i++] = 0; r[i++] = 1;
	r[i++] = 0; r[i++] = 0; r[i++] = FAKE_TTL >> 8; r[i++] = FAKE_TTL & 255;
	r[i++] = 0; r[i++] = 2 + 5 + 2;
	r[i++] = 0; r[i++] = 10;
	r[i++] = 4; memcpy(r + i, "mail", 4); i += 4;
	r[i++] = 0xc0 | (unsigned char)((tgt + 4) >> 8);
	r[i++] = (tgt + 4) & 255;		/* example.org */
	f->replylen = i;
	return (0);
}

/* fake_build - the reply to query q[0..n) in f->reply */
static int
fake_build(struct fake *f, const unsigned char *q, size_t n)
{
	size_t	 i = 12, qend;
	unsigned char *r = f->reply;

	if (n < 12)
		return (-1);
	while (i < n && q[i] != 0)
		i += (size_t)q[i] + 1;
	qend = i + 1 + 4;
	if (qend > n)
		return (-1);
	memcpy(r, q, qend);
	r[2] = 0x80 | (q[2] & 0x01);		/* QR, RD copied */
	r[3] = 0x80;				/* RA, NOERROR */
	r[4] = 0; r[5] = 1;			/* QDCOUNT */
	r[6] = 0; r[7] = 0;			/* ANCOUNT */
	memset(r + 8, 0, 4);			/* NSCOUNT, ARCOUNT */
	f->replylen = qend;
	if (f->mode == FAKE_NXDOMAIN) {
		r[3] |= 3;
		return (0);
	}
	if (f->mode == FAKE_CNAME_MX)
		return (fake_build_cname_mx(f, q, qend));
	r[7] = 1;
	i = qend;
	r[i++] = 0xc0; r[i++] = 12;		/* name: the question's */
	r[i++] = 0; r[i++] = 16;		/* TXT */
	r[i++] = 0; r[i++] = 1;			/* IN */
	r[i++] = 0; r[i++] = 0; r[i++] = FAKE_TTL >> 8; r[i++] = FAKE_TTL & 255;
	r[i++] = 0; r[i++] = sizeof(fake_txt) - 1;
	memcpy(r + i, fake_txt, sizeof(fake_txt) - 1);
	f->replylen = i + sizeof(fake_txt) - 1;
	return (0);
}

/* fake_send - send the prepared reply */
static void
fake_send(evutil_socket_t fd, short what, void *arg)
{
	struct fake	*f = arg;

	(void)fd;
	(void)what;
	(void)sendto(f->fd, f->reply, f->replylen, 0,
	    (struct sockaddr *)&f->peer, sizeof(f->peer));
}

/* fake_read - one question arrived */
static void
fake_read(evutil_socket_t fd, short what, void *arg)
{
	struct fake	*f = arg;
	unsigned char	 q[FAKE_BUFSZ];
	socklen_t	 plen = sizeof(f->peer);
	ssize_t		 n;
	struct timeval	 tv = { 0, LATE_MS * 1000 };

	(void)what;
	n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&f->peer, &plen);
	if (n <= 0)
		return;
	f->queries++;
	if (f->mode == FAKE_SILENT || fake_build(f, q, (size_t)n) == -1)
		return;
	if (f->mode == FAKE_LATE)
		evtimer_add(f->late, &tv);
	else
		fake_send(-1, 0, f);
}

/* fake_start - bind 127.0.0.1:0 and watch it */
static void
fake_start(struct fake *f, struct event_base *base, enum fake_mode mode)
{
	struct sockaddr_in sin;
	socklen_t	 len = sizeof(sin);

	memset(f, 0, sizeof(*f));
	f->base = base;
	f->mode = mode;
	f->fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(f->fd >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(f->fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(f->fd, (struct sockaddr *)&sin, &len), 0);
	snprintf(f->fwd, sizeof(f->fwd), "127.0.0.1@%d", ntohs(sin.sin_port));
	f->ev = event_new(base, f->fd, EV_READ | EV_PERSIST, fake_read, f);
	f->late = evtimer_new(base, fake_send, f);
	event_add(f->ev, NULL);
}

static void
fake_stop(struct fake *f)
{
	event_free(f->ev);
	event_free(f->late);
	close(f->fd);
}

/* record - the test's dns callback */
static void
record(const struct dns_result *res, void *arg)
{
	struct outcome	*o = arg;

	o->calls++;
	if (o->inside)
		o->called_inside++;
	o->status = res->status;
	o->rcode = res->rcode;
	o->nxdomain = res->nxdomain;
	o->havedata = res->havedata;
	o->security = res->security;
	o->ttl = res->ttl;
	o->count = res->rdata_count;
	if (res->rdata_count > 0 && res->rdata_len[0] <= sizeof(o->rdata)) {
		memcpy(o->rdata, res->rdata[0], res->rdata_len[0]);
		o->rdlen = res->rdata_len[0];
	}
	snprintf(o->canon, sizeof(o->canon), "%s", res->canonname != NULL ?
	    res->canonname : "");
	if (o->calls >= o->want)
		event_base_loopbreak(o->base);
}

/* run - the event loop for at most ms */
static void
run(struct event_base *base, int ms)
{
	struct timeval	 tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* setup - event base, fake server, resolver forwarding to it */
static struct dns *
setup(struct event_base **base, struct fake *f, enum fake_mode mode,
    char **options)
{
	struct config_dns cf;
	char		*fwd[2];
	char		 err[256];
	struct dns	*d;

	*base = event_base_new();
	assert_non_null(*base);
	fake_start(f, *base, mode);
	fwd[0] = f->fwd;
	fwd[1] = NULL;
	memset(&cf, 0, sizeof(cf));
	cf.forwarders = fwd;
	cf.unbound_options = options;
	d = dns_new(*base, &cf, err, sizeof(err));
	if (d == NULL)
		fail_msg("dns_new: %s", err);
	return (d);
}

static void
teardown(struct event_base *base, struct fake *f, struct dns *d)
{
	dns_free(d);
	fake_stop(f);
	event_base_free(base);
}

static void
txt_answer_has_rdata_and_ttl(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_TXT, NULL);
	o.base = base;
	dns_query(d, "_mta-sts.example.com", DNS_TYPE_TXT, record, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.status, DNS_OK);
	assert_int_equal(o.rcode, DNS_RCODE_NOERROR);
	assert_true(o.havedata);
	assert_int_equal(o.count, 1);
	assert_int_equal(o.rdlen, sizeof(fake_txt) - 1);
	assert_memory_equal(o.rdata, fake_txt, sizeof(fake_txt) - 1);
	assert_int_equal(o.security, DNS_INSECURE);	/* no trust anchor */
	assert_int_equal(o.ttl, FAKE_TTL);
	teardown(base, &f, d);
}

static void
nxdomain_is_reported(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_NXDOMAIN, NULL);
	o.base = base;
	dns_query(d, "_mta-sts.example.com.", DNS_TYPE_TXT, record, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.status, DNS_OK);
	assert_int_equal(o.rcode, DNS_RCODE_NXDOMAIN);
	assert_true(o.nxdomain);
	assert_false(o.havedata);
	assert_int_equal(o.count, 0);
	teardown(base, &f, d);
}

static void
silent_server_times_out(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_SILENT, NULL);
	o.base = base;
	dns_set_timeout(d, 200);
	dns_query(d, "_mta-sts.example.com", DNS_TYPE_TXT, record, &o);
	run(base, 3000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.status, DNS_ERR_TIMEOUT);
	assert_int_equal(o.rcode, DNS_RCODE_SERVFAIL);
	assert_true(f.queries >= 1);
	teardown(base, &f, d);
}

static void
late_answer_after_deadline_is_dropped(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_LATE, NULL);
	o.base = base;
	dns_set_timeout(d, 100);
	dns_query(d, "_mta-sts.example.com", DNS_TYPE_TXT, record, &o);
	run(base, 3000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.status, DNS_ERR_TIMEOUT);
	/* the answer arrives later and must reach nobody */
	o.want = 2;
	run(base, 2 * LATE_MS);
	assert_int_equal(o.calls, 1);
	teardown(base, &f, d);
}

static void
cancelled_query_never_calls_back(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 }, o2 = { .want = 1 };
	struct dns	*d;
	struct dns_query *q;

	(void)state;
	d = setup(&base, &f, FAKE_TXT, NULL);
	o.base = o2.base = base;
	q = dns_query(d, "_mta-sts.example.com", DNS_TYPE_TXT, record, &o);
	dns_cancel(q);
	/* a second query shows the loop ran long enough for an answer */
	dns_query(d, "_mta-sts.example.net", DNS_TYPE_TXT, record, &o2);
	run(base, 5000);
	assert_int_equal(o2.calls, 1);
	run(base, 200);
	assert_int_equal(o.calls, 0);
	teardown(base, &f, d);
}

static void
free_with_queries_pending(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_SILENT, NULL);
	o.base = base;
	dns_query(d, "a.example.com", DNS_TYPE_A, record, &o);
	dns_query(d, "b.example.com", DNS_TYPE_AAAA, record, &o);
	run(base, 100);
	teardown(base, &f, d);		/* ASan: nothing leaks */
	assert_int_equal(o.calls, 0);
}

static void
special_use_zone_reaches_the_forwarder(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	/* libunbound would answer NXDOMAIN for test. by itself */
	d = setup(&base, &f, FAKE_TXT, NULL);
	o.base = base;
	dns_query(d, "_mta-sts.x.test", DNS_TYPE_TXT, record, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.rcode, DNS_RCODE_NOERROR);
	assert_int_equal(o.count, 1);
	teardown(base, &f, d);
}

static void
nodefault_option_is_applied(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;
	char		*opts[] = { "local-zone: invalid. nodefault", NULL };

	(void)state;
	d = setup(&base, &f, FAKE_TXT, opts);
	o.base = base;
	dns_query(d, "_mta-sts.x.invalid", DNS_TYPE_TXT, record, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.count, 1);
	teardown(base, &f, d);
}

/* query - dns_query(), noting a callback from inside it */
static struct dns_query *
query(struct dns *d, const char *name, int rrtype, struct outcome *o)
{
	struct dns_query *q;

	o->inside = 1;
	q = dns_query(d, name, rrtype, record, o);
	o->inside = 0;
	return (q);
}

static void
cached_answer_is_deferred(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_TXT, NULL);
	o.base = base;
	query(d, "_mta-sts.example.com", DNS_TYPE_TXT, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(f.queries, 1);
	/* libunbound answers this one from its cache inside
	 * ub_resolve_event(): the callback must still come later */
	o.want = 2;
	memset(o.rdata, 0, sizeof(o.rdata));
	query(d, "_mta-sts.example.com", DNS_TYPE_TXT, &o);
	assert_int_equal(o.calls, 1);
	run(base, 5000);
	assert_int_equal(o.calls, 2);
	assert_int_equal(o.called_inside, 0);
	assert_int_equal(f.queries, 1);		/* from the cache */
	assert_int_equal(o.status, DNS_OK);
	assert_int_equal(o.count, 1);
	assert_memory_equal(o.rdata, fake_txt, sizeof(fake_txt) - 1);
	assert_true(o.ttl > 0 && o.ttl <= FAKE_TTL);
	teardown(base, &f, d);
}

static void
cancelled_cached_answer_never_calls_back(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 }, o2 = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_TXT, NULL);
	o.base = o2.base = base;
	query(d, "_mta-sts.example.com", DNS_TYPE_TXT, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	/* answered inside dns_query, cancelled before the loop runs */
	dns_cancel(query(d, "_mta-sts.example.com", DNS_TYPE_TXT, &o2));
	/* and one left pending in the deferred state for dns_free */
	query(d, "_mta-sts.example.com", DNS_TYPE_TXT, &o2);
	assert_int_equal(o2.calls, 0);
	teardown(base, &f, d);		/* ASan: the copies are freed */
	assert_int_equal(o2.calls, 0);
}

static void
local_data_is_answered_later(void **state)
{
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;
	char		*opts[] = {
		"local-data: ld.example. 60 IN TXT hi", NULL };

	(void)state;
	d = setup(&base, &f, FAKE_SILENT, opts);
	o.base = base;
	query(d, "ld.example", DNS_TYPE_TXT, &o);
	assert_int_equal(o.calls, 0);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.called_inside, 0);
	assert_int_equal(f.queries, 0);
	assert_int_equal(o.status, DNS_OK);
	assert_int_equal(o.count, 1);
	assert_int_equal(o.rdlen, 3);
	assert_memory_equal(o.rdata, "\x02hi", 3);
	assert_int_equal(o.ttl, 60);
	teardown(base, &f, d);
}

static void
cname_is_followed_and_mx_decompressed(void **state)
{
	static const unsigned char mx[] =
	    "\x00\x0a\x04mail\x07" "example\x03org";
	struct event_base *base;
	struct fake	 f;
	struct outcome	 o = { .want = 1 };
	struct dns	*d;

	(void)state;
	d = setup(&base, &f, FAKE_CNAME_MX, NULL);
	o.base = base;
	query(d, "example.com", DNS_TYPE_MX, &o);
	run(base, 5000);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.status, DNS_OK);
	assert_int_equal(o.rcode, DNS_RCODE_NOERROR);
	assert_int_equal(o.count, 1);
	assert_int_equal(o.rdlen, sizeof(mx));
	assert_memory_equal(o.rdata, mx, sizeof(mx));
	assert_string_equal(o.canon, "mx2.example.org.");
	assert_true(o.ttl > 0 && o.ttl <= FAKE_TTL);
	teardown(base, &f, d);
}

static void
bad_options_are_refused(void **state)
{
	struct event_base *base;
	struct config_dns cf;
	char		 err[256];
	char		*opts1[] = { "no-such-option: 1", NULL };
	char		*opts2[] = { "missing colon", NULL };
	char		*fwd[] = { "not an address", NULL };

	(void)state;
	base = event_base_new();
	memset(&cf, 0, sizeof(cf));
	cf.unbound_options = opts1;
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_non_null(strstr(err, "no-such-option"));
	cf.unbound_options = opts2;
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_non_null(strstr(err, "name: value"));
	cf.unbound_options = NULL;
	cf.forwarders = fwd;
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_non_null(strstr(err, "forwarder"));
	cf.forwarders = NULL;
	cf.trust_anchor_file = "/nonexistent/root.key";
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_non_null(strstr(err, "trust anchor"));
	/* files libunbound would read only later, or call a syntax error */
	cf.trust_anchor_file = NULL;
	cf.root_hints = "/nonexistent/root.hints";
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_string_equal(err,
	    "root hints /nonexistent/root.hints: No such file or directory");
	cf.root_hints = NULL;
	cf.unbound_config = "/nonexistent/unbound.conf";
	assert_null(dns_new(base, &cf, err, sizeof(err)));
	assert_string_equal(err, "unbound config /nonexistent/unbound.conf: "
	    "No such file or directory");
	event_base_free(base);
}

/* dns_check refuses what dns_new refuses, with the same words, and takes
 * what it takes, without an event base */
static void
check_is_dns_new_without_a_base(void **state)
{
	struct config_dns cf;
	char		 err[256], err2[256];
	char		*opts[] = { "no-such-option: 1", NULL };
	char		*good[] = { "do-not-query-localhost: no", NULL };
	struct event_base *base;
	struct dns	*d;

	(void)state;
	memset(&cf, 0, sizeof(cf));
	cf.unbound_options = good;
	assert_int_equal(dns_check(&cf, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	cf.unbound_options = opts;
	assert_int_equal(dns_check(&cf, err, sizeof(err)), -1);
	base = event_base_new();
	assert_null(dns_new(base, &cf, err2, sizeof(err2)));
	assert_string_equal(err, err2);
	cf.unbound_options = NULL;
	cf.root_hints = "/nonexistent/root.hints";
	assert_int_equal(dns_check(&cf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "root hints"));
	cf.root_hints = NULL;
	cf.trust_anchor_file = "/nonexistent/root.key";
	assert_int_equal(dns_check(&cf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "trust anchor"));
	cf.trust_anchor_file = NULL;
	assert_non_null(d = dns_new(base, &cf, err, sizeof(err)));
	dns_free(d);
	event_base_free(base);
}

/* the additional section goes unvalidated unless the options say
 * otherwise (dns.c: two ECDSA verifications of a cold lookup's nine) */
static void
additional_section_is_not_validated(void **state)
{
	struct event_base *base;
	struct config_dns cf;
	struct dns	*d;
	char		 err[256], v[32];
	char		*opts[] = { "val-clean-additional: yes", NULL };

	(void)state;
	assert_non_null(base = event_base_new());
	memset(&cf, 0, sizeof(cf));
	assert_non_null(d = dns_new(base, &cf, err, sizeof(err)));
	assert_int_equal(dns_option(d, "val-clean-additional", v, sizeof(v)),
	    0);
	assert_string_equal(v, "no");
	/* the caches' sizes are set the same way */
	assert_int_equal(dns_option(d, "msg-cache-size", v, sizeof(v)), 0);
	assert_string_equal(v, "262144");
	assert_int_equal(dns_option(d, "msg-cache-size", v, 3), -1);
	assert_int_equal(dns_option(d, "no-such-option", v, sizeof(v)), -1);
	dns_free(d);
	cf.unbound_options = opts;
	assert_non_null(d = dns_new(base, &cf, err, sizeof(err)));
	assert_int_equal(dns_option(d, "val-clean-additional", v, sizeof(v)),
	    0);
	assert_string_equal(v, "yes");
	dns_free(d);
	event_base_free(base);
}

static void
names_for_logs(void **state)
{
	char	 buf[16];

	(void)state;
	assert_string_equal(dns_security_name(DNS_SECURE), "secure");
	assert_string_equal(dns_security_name(DNS_BOGUS), "bogus");
	assert_string_equal(dns_security_name(DNS_INSECURE), "insecure");
	assert_string_equal(dns_status_name(DNS_ERR_TIMEOUT), "timeout");
	assert_string_equal(dns_rcode_name(2, buf, sizeof(buf)), "SERVFAIL");
	assert_string_equal(dns_rcode_name(23, buf, sizeof(buf)), "RCODE23");
}

/* dns_name_eq: the DANE walk's (and the fake DNS's) name comparison */
static void
name_equality(void **state)
{
	(void)state;
	assert_true(dns_name_eq("mx.example.com", "MX.Example.COM"));
	assert_true(dns_name_eq("mx.example.com.", "mx.example.com"));
	assert_true(dns_name_eq("mx.example.com", "mx.example.com."));
	assert_true(dns_name_eq("", "."));
	assert_false(dns_name_eq("mx.example.com..", "mx.example.com"));
	assert_false(dns_name_eq("mx.example.co", "mx.example.com"));
	assert_false(dns_name_eq("mx1.example.com", "mx.example.com"));
	assert_false(dns_name_eq("mx.example.com", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_equality),
		cmocka_unit_test(txt_answer_has_rdata_and_ttl),
		cmocka_unit_test(nxdomain_is_reported),
		cmocka_unit_test(silent_server_times_out),
		cmocka_unit_test(late_answer_after_deadline_is_dropped),
		cmocka_unit_test(cancelled_query_never_calls_back),
		cmocka_unit_test(free_with_queries_pending),
		cmocka_unit_test(special_use_zone_reaches_the_forwarder),
		cmocka_unit_test(nodefault_option_is_applied),
		cmocka_unit_test(cached_answer_is_deferred),
		cmocka_unit_test(cancelled_cached_answer_never_calls_back),
		cmocka_unit_test(local_data_is_answered_later),
		cmocka_unit_test(cname_is_followed_and_mx_decompressed),
		cmocka_unit_test(bad_options_are_refused),
		cmocka_unit_test(check_is_dns_new_without_a_base),
		cmocka_unit_test(additional_section_is_not_validated),
		cmocka_unit_test(names_for_logs),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
