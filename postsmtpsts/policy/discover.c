/*
 * discover.c - the RFC 8461 discovery pipeline for one domain
 *
 * Interface (discover.h): discover_start() / discover_cancel().  A
 * discovery is a small state machine over dns.c and https.c callbacks; it
 * reports when both its main line and the TLSRPT lookup are done.
 *
 * RFC 8461 as applied here:
 *  §3.1  TXT _mta-sts.D: the character-strings of each RDATA are joined,
 *        records not beginning with "v=STSv1;" are discarded, exactly one
 *        must remain and be valid (sts_record_select).  NXDOMAIN or no TXT
 *        at all is "no policy".  A SERVFAIL, a timeout or an answer that
 *        fails DNSSEC validation is a failure, never "no policy": a forged
 *        or blocked TXT answer must not strip a cached policy (§5, §10.2).
 *  §3.3  the id equal to the cached one: nothing to fetch.
 *  §3.3  mta-sts.D is resolved here (via libunbound: DNSSEC-aware), and
 *        only those addresses are handed to https.c.  A first: AAAA is
 *        asked when A gives no usable address, or when the fetch from the
 *        IPv4 addresses could not connect (or timed out), then the IPv6
 *        addresses are tried; most policy hosts answer over IPv4, and the
 *        AAAA lookup is one more DNSSEC-validated answer per discovery
 *        (its denial, mostly).  DISCOVER_ALL_ADDRESSES asks both at once
 *        (the tools, which show both).  Bogus address answers are not
 *        used.  The certificate is what
 *        authenticates the host (§3.3, §10.1); https.c enforces 200,
 *        text/plain, no redirects, the size limit and timeouts.
 *  §3.2  the body is parsed by sts_policy_parse.
 * RFC 8460 §3: TXT _smtp._tls.D is looked up alongside; the one record
 * beginning with "v=TLSRPTv1" is returned as text (for logs and for
 * Postfix's TLSRPT client), not parsed.
 *
 * Failure kinds map onto RFC 8460 §4.3 result types
 * (discover_tlsrpt_result_type).
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "lib/https.h"
#include "lib/log.h"
#include "policy/sts_policy.h"
#include "policy/sts_record.h"
#include "lib/xmalloc.h"

#define DISCOVER_DETAIL_MAX	512
#define DISCOVER_ADDR_MAX	INET6_ADDRSTRLEN
#define DISCOVER_TXT_BUFSZ	(STS_RECORD_MAX_LEN + 1)
#define DISCOVER_TLSRPT_PREFIX	"v=TLSRPTv1"	/* RFC 8460 §3 */

struct discover {
	struct dns	*dns;
	struct https	*https;
	char		*domain;
	char		*known_id;
	discover_cb	*cb;
	void		*arg;
	int		 reporting;	/* inside the callback: no cancel */

	char		 txt_name[DISCOVER_MAX_NAME];
	char		 host[DISCOVER_MAX_NAME];
	char		 tlsrpt_name[DISCOVER_MAX_NAME];

	struct dns_query *q_txt, *q_a, *q_aaaa, *q_tlsrpt;
	struct https_fetch *fetch;
	int		 main_done;
	int		 tlsrpt_done;
	int		 a_done, aaaa_done;
	int		 addrs_asked;	/* A (maybe AAAA) mta-sts.D sent */
	int		 aaaa_asked;	/* AAAA mta-sts.D sent */
	unsigned int	 flags;		/* DISCOVER_* */
	int		 v4_failed;	/* the IPv4 fetch failed (v4_error):
					 * AAAA asked for a second try */
	enum discover_failure v4_error;
	int		 fetch_wanted;	/* the TXT said: fetch */

	struct discover_result res;
	char		 detail[DISCOVER_DETAIL_MAX];

	char		**txt;		/* res.txt storage */
	size_t		 ntxt;
	char		*why_bogus;
	struct sts_record record;

	char		 addrs4[DISCOVER_MAX_ADDRS][DISCOVER_ADDR_MAX];
	char		 addrs6[DISCOVER_MAX_ADDRS][DISCOVER_ADDR_MAX];
	size_t		 n4, n6;
	const char	*addrv[2 * DISCOVER_MAX_ADDRS];
	char		 a_note[64], aaaa_note[64];

	char		*url;
	char		*connect_addr;
	char		*content_type;
	char		*body;
	size_t		 body_len;
	struct sts_policy *policy;

	char		*tlsrpt;
};

static void	discover_main_done(struct discover *);
static void	discover_fetch_start(struct discover *);
static void	discover_https_cb(const struct https_result *, void *);
static void	discover_aaaa_cb(const struct dns_result *, void *);
static void	discover_aaaa_ask(struct discover *);

/* discover_name - prefix + domain into out[DISCOVER_MAX_NAME] */
static int
discover_name(char *out, const char *prefix, const char *domain)
{
	int	 n;

	n = snprintf(out, DISCOVER_MAX_NAME, "%s%s", prefix, domain);
	return (n < 0 || n >= DISCOVER_MAX_NAME ? -1 : 0);
}

/* discover_set_detail - the human-readable reason of the outcome */
static void __attribute__((format(printf, 2, 3)))
discover_set_detail(struct discover *dv, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	if (vsnprintf(dv->detail, sizeof(dv->detail), fmt, ap) < 0)
		dv->detail[0] = '\0';
	va_end(ap);
}

/* discover_fail - end the main line with a failure */
static void
discover_fail(struct discover *dv, enum discover_failure f)
{
	dv->res.outcome = DISCOVER_FAILURE;
	dv->res.failure = f;
	discover_main_done(dv);
}

/* discover_free - release everything; handles must be gone already */
static void
discover_free(struct discover *dv)
{
	size_t	 i;

	for (i = 0; i < dv->ntxt; i++)
		free(dv->txt[i]);
	free(dv->txt);
	free(dv->why_bogus);
	free(dv->url);
	free(dv->connect_addr);
	free(dv->content_type);
	free(dv->body);
	free(dv->policy);
	free(dv->tlsrpt);
	free(dv->domain);
	free(dv->known_id);
	free(dv);
}

/* discover_report - both lines are done: one log line, the callback */
static void
discover_report(struct discover *dv)
{
	struct discover_result	*r = &dv->res;
	char			 esc[LOG_ESCAPE_MAX * 4 + 4];

	r->detail = dv->detail;
	r->txt = (const char *const *)dv->txt;
	r->ntxt = dv->ntxt;
	r->addrs = dv->addrv;
	r->tlsrpt = dv->tlsrpt;
	if (r->tlsrpt_note == NULL)
		r->tlsrpt_note = "";
	log_escape(esc, sizeof(esc), dv->detail, strlen(dv->detail));
	log_debug(1, "discover: domain=%s outcome=%s failure=%s "
	    "txt_security=%s id=%s mode=%s tlsrpt=%s detail=\"%s\"",
	    dv->domain, discover_outcome_name(r->outcome),
	    discover_failure_name(r->failure),
	    dns_security_name(r->txt_security), r->id != NULL ? r->id : "-",
	    r->policy != NULL ? sts_policy_mode_name(r->policy->mode) : "-",
	    r->tlsrpt != NULL ? "yes" : "no", esc);
	dv->reporting = 1;
	dv->cb(r, dv->arg);
	discover_free(dv);
}

/* discover_main_done - the STS line has its outcome */
static void
discover_main_done(struct discover *dv)
{
	/* addresses asked ahead (discover_start_flags) that are not needed */
	dns_cancel(dv->q_a);
	dns_cancel(dv->q_aaaa);
	dv->q_a = dv->q_aaaa = NULL;
	dv->main_done = 1;
	if (dv->tlsrpt_done)
		discover_report(dv);
}

/* discover_join_txt - join each TXT RDATA; invalid ones are skipped */
static size_t
discover_join_txt(const struct dns_result *res, char ***out)
{
	char	*buf, **v;
	size_t	 i, n = 0, len;

	if (res->rdata_count == 0) {
		*out = NULL;
		return (0);
	}
	buf = xmalloc(DISCOVER_TXT_BUFSZ);
	v = xcalloc(res->rdata_count, sizeof(*v));
	for (i = 0; i < res->rdata_count && n < STS_RECORD_MAX_TXT; i++) {
		if (sts_record_txt_join(res->rdata[i], res->rdata_len[i], buf,
		    DISCOVER_TXT_BUFSZ, &len) == -1)
			continue;
		v[n++] = xmemdup0(buf, len);
	}
	free(buf);
	*out = v;
	return (n);
}

/* discover_dns_failed - classify a TXT lookup that gave no usable answer;
 * returns 1 if it is a failure (detail set), 0 if it is "no such data" */
static int
discover_dns_failed(struct discover *dv, const struct dns_result *res,
    enum discover_failure *f)
{
	char	 rc[16], esc[LOG_ESCAPE_MAX * 4 + 4];

	if (res->status != DNS_OK) {
		*f = DISCOVER_FAIL_DNS_SERVFAIL;
		discover_set_detail(dv, "%s TXT: %s", res->qname,
		    res->error);
		return (1);
	}
	if (res->security == DNS_BOGUS) {
		*f = DISCOVER_FAIL_DNS_BOGUS;
		log_escape(esc, sizeof(esc), res->why_bogus != NULL ?
		    res->why_bogus : "", res->why_bogus != NULL ?
		    strlen(res->why_bogus) : 0);
		discover_set_detail(dv, "%s TXT: DNSSEC bogus: %s",
		    res->qname, esc);
		return (1);
	}
	if (res->rcode == DNS_RCODE_NOERROR ||
	    res->rcode == DNS_RCODE_NXDOMAIN)
		return (0);
	*f = DISCOVER_FAIL_DNS_SERVFAIL;
	discover_set_detail(dv, "%s TXT: %s", res->qname,
	    dns_rcode_name(res->rcode, rc, sizeof(rc)));
	return (1);
}

/* discover_txt_cb - the answer for _mta-sts.D (RFC 8461 §3.1) */
static void
discover_txt_cb(const struct dns_result *res, void *arg)
{
	struct discover		*dv = arg;
	struct sts_record_txt	*txts;
	enum discover_failure	 f;
	size_t			 i;

	dv->q_txt = NULL;
	dv->res.txt_status = res->status;
	dv->res.txt_rcode = res->rcode;
	dv->res.txt_security = res->security;
	dv->res.txt_ttl = res->status == DNS_OK ? res->ttl : 0;
	if (res->why_bogus != NULL) {
		dv->why_bogus = xstrdup(res->why_bogus);
		dv->res.txt_why_bogus = dv->why_bogus;
	}
	if (discover_dns_failed(dv, res, &f)) {
		discover_fail(dv, f);
		return;
	}
	dv->ntxt = discover_join_txt(res, &dv->txt);

	txts = xcalloc(dv->ntxt, sizeof(*txts));
	for (i = 0; i < dv->ntxt; i++) {
		txts[i].p = dv->txt[i];
		txts[i].len = strlen(dv->txt[i]);
	}
	dv->res.record_checked = 1;
	dv->res.record_status = sts_record_select(txts, dv->ntxt, &dv->record);
	free(txts);

	switch (dv->res.record_status) {
	case STS_RECORD_OK:
		break;
	case STS_RECORD_NOT_STS:
		dv->res.outcome = DISCOVER_NO_POLICY;
		discover_set_detail(dv, "%s: %s", dv->txt_name,
		    res->nxdomain ? "no such name" : dv->ntxt == 0 ?
		    "no TXT record" : "no v=STSv1 record");
		discover_main_done(dv);
		return;
	case STS_RECORD_INVALID:
		/* §3.1: "MUST assume ... does not have an available policy" */
		discover_set_detail(dv, "%s: the v=STSv1 record is invalid",
		    dv->txt_name);
		discover_fail(dv, DISCOVER_FAIL_TXT_INVALID);
		return;
	case STS_RECORD_MULTIPLE:
		discover_set_detail(dv, "%s: more than one v=STSv1 record",
		    dv->txt_name);
		discover_fail(dv, DISCOVER_FAIL_TXT_INVALID);
		return;
	}
	dv->res.id = dv->record.id;
	if (dv->known_id != NULL && strcmp(dv->known_id, dv->record.id) == 0) {
		/* §3.3: the cached policy is current, do not fetch */
		dv->res.outcome = DISCOVER_UNCHANGED;
		discover_set_detail(dv, "id %s unchanged", dv->record.id);
		discover_main_done(dv);
		return;
	}
	discover_fetch_start(dv);
}

/* discover_addr_collect - address literals out of an A/AAAA answer */
static void
discover_addr_collect(struct discover *dv, const struct dns_result *res,
    int af, char (*out)[DISCOVER_ADDR_MAX], size_t *n, char *note,
    size_t notesz)
{
	size_t	 i, want = af == AF_INET ? 4 : 16;
	char	 rc[16];

	*n = 0;
	if (res->status != DNS_OK) {
		snprintf(note, notesz, "%s", dns_status_name(res->status));
		return;
	}
	if (res->security == DNS_BOGUS) {
		/* a forged address must not be tried, even with WebPKI */
		snprintf(note, notesz, "bogus");
		return;
	}
	if (res->rdata_count == 0) {
		snprintf(note, notesz, "%s", res->rcode != DNS_RCODE_NOERROR ?
		    dns_rcode_name(res->rcode, rc, sizeof(rc)) : "no data");
		return;
	}
	for (i = 0; i < res->rdata_count && *n < DISCOVER_MAX_ADDRS; i++) {
		if (res->rdata_len[i] != want)
			continue;
		if (inet_ntop(af, res->rdata[i], out[*n], DISCOVER_ADDR_MAX) !=
		    NULL)
			(*n)++;
	}
	snprintf(note, notesz, "%zu address%s", *n, *n == 1 ? "" : "es");
	(void)dv;
}

/* discover_addrs_ready - the address lookups are in: fetch or fail */
static void
discover_addrs_ready(struct discover *dv)
{
	size_t	 i, n = 0;

	if (!dv->a_done || !dv->aaaa_done || !dv->fetch_wanted)
		return;
	dv->res.addrs_checked = 1;
	for (i = 0; i < dv->n4; i++)
		dv->addrv[n++] = dv->addrs4[i];
	for (i = 0; i < dv->n6; i++)
		dv->addrv[n++] = dv->addrs6[i];
	dv->res.naddrs = n;
	if (n == 0) {
		discover_set_detail(dv, "%s has no usable address (A: %s, "
		    "AAAA: %s)", dv->host, dv->a_note, dv->aaaa_note);
		discover_fail(dv, DISCOVER_FAIL_FETCH);
		return;
	}
	dv->fetch = https_fetch(dv->https, dv->host, dv->addrv, n,
	    discover_https_cb, dv);
}

/* discover_a_cb - A mta-sts.D */
static void
discover_a_cb(const struct dns_result *res, void *arg)
{
	struct discover	*dv = arg;

	dv->q_a = NULL;
	dv->a_done = 1;
	dv->res.a_security = res->security;
	discover_addr_collect(dv, res, AF_INET, dv->addrs4, &dv->n4,
	    dv->a_note, sizeof(dv->a_note));
	if (!dv->aaaa_asked) {
		if (dv->n4 == 0) {
			/* no usable IPv4 address: maybe IPv6 ones */
			discover_aaaa_ask(dv);
			return;
		}
		dv->aaaa_done = 1;	/* asked only if IPv4 fails */
	}
	discover_addrs_ready(dv);
}

/* discover_v6_retry - the IPv4 fetch failed and AAAA is in: fetch from
 * the IPv6 addresses, or end with the IPv4 failure */
static void
discover_v6_retry(struct discover *dv)
{
	size_t	 i, n = dv->n4;

	if (dv->n6 == 0) {
		discover_fail(dv, dv->v4_error);
		return;
	}
	for (i = 0; i < dv->n6; i++)
		dv->addrv[n++] = dv->addrs6[i];
	dv->res.naddrs = n;
	log_debug(1, "discover: %s: no policy over IPv4, trying %zu IPv6 "
	    "address%s", dv->host, dv->n6, dv->n6 == 1 ? "" : "es");
	dv->fetch = https_fetch(dv->https, dv->host, dv->addrv + dv->n4,
	    dv->n6, discover_https_cb, dv);
}

/* discover_aaaa_cb - AAAA mta-sts.D */
static void
discover_aaaa_cb(const struct dns_result *res, void *arg)
{
	struct discover	*dv = arg;

	dv->q_aaaa = NULL;
	dv->aaaa_done = 1;
	dv->res.aaaa_security = res->security;
	discover_addr_collect(dv, res, AF_INET6, dv->addrs6, &dv->n6,
	    dv->aaaa_note, sizeof(dv->aaaa_note));
	if (dv->v4_failed)
		discover_v6_retry(dv);
	else
		discover_addrs_ready(dv);
}

/* discover_aaaa_ask - AAAA mta-sts.D */
static void
discover_aaaa_ask(struct discover *dv)
{
	dv->aaaa_asked = 1;
	dv->res.aaaa_asked = 1;
	dv->q_aaaa = dns_query(dv->dns, dv->host, DNS_TYPE_AAAA,
	    discover_aaaa_cb, dv);
}

/* discover_addrs_ask - resolve mta-sts.D: A, and AAAA at once only with
 * DISCOVER_ALL_ADDRESSES (else see discover_a_cb) */
static void
discover_addrs_ask(struct discover *dv)
{
	if (dv->addrs_asked)
		return;
	dv->addrs_asked = 1;
	dv->q_a = dns_query(dv->dns, dv->host, DNS_TYPE_A, discover_a_cb, dv);
	if (dv->flags & DISCOVER_ALL_ADDRESSES)
		discover_aaaa_ask(dv);
}

/* discover_fetch_start - the TXT asks for a fetch: once the addresses are
 * in (maybe already, when they were asked ahead), fetch */
static void
discover_fetch_start(struct discover *dv)
{
	dv->fetch_wanted = 1;
	if (dv->addrs_asked)
		discover_addrs_ready(dv);
	else
		discover_addrs_ask(dv);
}

/* discover_https_cb - the policy body, or why there is none (§3.3) */
static void
discover_https_cb(const struct https_result *res, void *arg)
{
	struct discover	*dv = arg;
	const char	*why = NULL;

	dv->fetch = NULL;
	dv->res.fetched = 1;
	dv->res.https_error = res->error;
	free(dv->url);			/* a second try (discover_v6_retry) */
	free(dv->connect_addr);
	free(dv->content_type);
	dv->content_type = NULL;
	dv->res.content_type = NULL;
	dv->url = xstrdup(res->url);
	dv->res.url = dv->url;
	dv->connect_addr = xstrdup(res->connect_addr);
	dv->res.connect_addr = dv->connect_addr;
	dv->res.http_status = res->status;
	if (res->content_type != NULL) {
		dv->content_type = xstrdup(res->content_type);
		dv->res.content_type = dv->content_type;
	}
	if (res->error != HTTPS_OK) {
		discover_set_detail(dv, "%s: %s: %s", res->url,
		    https_error_name(res->error), res->detail);
		if (!dv->aaaa_asked && (res->error == HTTPS_ERR_CONNECT ||
		    res->error == HTTPS_ERR_TIMEOUT)) {
			/* no answer over IPv4: the IPv6 addresses, if any */
			dv->v4_failed = 1;
			dv->v4_error = DISCOVER_FAIL_FETCH;
			discover_aaaa_ask(dv);
			return;
		}
		discover_fail(dv, res->error == HTTPS_ERR_WEBPKI ?
		    DISCOVER_FAIL_WEBPKI : DISCOVER_FAIL_FETCH);
		return;
	}
	dv->body = xmemdup0(res->body, res->body_len);
	dv->body_len = res->body_len;
	dv->res.policy_text = dv->body;
	dv->res.policy_len = dv->body_len;

	dv->policy = xmalloc(sizeof(*dv->policy));
	if (sts_policy_parse(dv->body, dv->body_len, dv->policy, &why) == -1) {
		dv->res.policy_why = why;
		discover_set_detail(dv, "%s: invalid policy: %s", res->url,
		    why != NULL ? why : "?");
		discover_fail(dv, DISCOVER_FAIL_POLICY_INVALID);
		return;
	}
	dv->res.policy = dv->policy;
	dv->res.outcome = DISCOVER_POLICY;
	discover_set_detail(dv, "policy id %s mode %s max_age %lu",
	    dv->record.id, sts_policy_mode_name(dv->policy->mode),
	    (unsigned long)dv->policy->max_age);
	discover_main_done(dv);
}

/* discover_tlsrpt_cb - TXT _smtp._tls.D (RFC 8460 §3): keep the one
 * record beginning with "v=TLSRPTv1" followed by ';' or WSP */
static void
discover_tlsrpt_cb(const struct dns_result *res, void *arg)
{
	struct discover	*dv = arg;
	char		*buf;
	size_t		 i, len, plen = sizeof(DISCOVER_TLSRPT_PREFIX) - 1;
	int		 found = 0;

	dv->q_tlsrpt = NULL;
	dv->res.tlsrpt_asked = 1;
	dv->res.tlsrpt_status = res->status;
	dv->res.tlsrpt_rcode = res->rcode;
	dv->res.tlsrpt_security = res->security;
	if (res->status != DNS_OK)
		dv->res.tlsrpt_note = dns_status_name(res->status);
	else if (res->security == DNS_BOGUS)
		dv->res.tlsrpt_note = "bogus";
	else if (res->rdata_count == 0)
		dv->res.tlsrpt_note = "no record";
	else {
		buf = xmalloc(DISCOVER_TXT_BUFSZ);
		for (i = 0; i < res->rdata_count; i++) {
			if (sts_record_txt_join(res->rdata[i],
			    res->rdata_len[i], buf, DISCOVER_TXT_BUFSZ,
			    &len) == -1 || len < plen ||
			    memcmp(buf, DISCOVER_TLSRPT_PREFIX, plen) != 0 ||
			    (len > plen && buf[plen] != ';' &&
			    buf[plen] != ' ' && buf[plen] != '\t'))
				continue;
			if (found++ == 0)
				dv->tlsrpt = xmemdup0(buf, len);
		}
		free(buf);
		if (found > 1) {
			/* RFC 8460 §3: more than one is no record at all */
			free(dv->tlsrpt);
			dv->tlsrpt = NULL;
			dv->res.tlsrpt_note = "more than one v=TLSRPTv1 record";
		} else if (found == 0)
			dv->res.tlsrpt_note = "no v=TLSRPTv1 record";
	}
	dv->tlsrpt_done = 1;
	if (dv->main_done)
		discover_report(dv);
}

/* discover_tlsrpt_skip - TXT _smtp._tls.D is not wanted: that line is done */
static void
discover_tlsrpt_skip(struct discover *dv)
{
	dv->tlsrpt_done = 1;
	dv->res.tlsrpt_note = "not asked";
}

struct discover *
discover_start(struct dns *d, struct https *h, const char *domain,
    const char *known_id, discover_cb *cb, void *arg)
{
	return (discover_start_flags(d, h, domain, known_id, DISCOVER_TLSRPT,
	    cb, arg));
}

struct discover *
discover_start_flags(struct dns *d, struct https *h, const char *domain,
    const char *known_id, unsigned int flags, discover_cb *cb, void *arg)
{
	struct discover	*dv;

	dv = xcalloc(1, sizeof(*dv));
	dv->dns = d;
	dv->https = h;
	dv->cb = cb;
	dv->arg = arg;
	dv->flags = flags;
	dv->domain = xstrdup(domain);
	if (known_id != NULL)
		dv->known_id = xstrdup(known_id);
	dv->res.domain = dv->domain;
	dv->res.outcome = DISCOVER_FAILURE;
	dv->res.failure = DISCOVER_FAIL_NONE;
	dv->res.txt_name = dv->txt_name;
	dv->res.policy_host = dv->host;
	dv->res.txt_status = DNS_ERR_TIMEOUT;
	dv->res.tlsrpt_status = DNS_ERR_TIMEOUT;
	dv->res.addrs = dv->addrv;
	snprintf(dv->a_note, sizeof(dv->a_note), "not asked");
	snprintf(dv->aaaa_note, sizeof(dv->aaaa_note), "not asked");

	if (discover_name(dv->txt_name, "_mta-sts.", domain) == -1 ||
	    discover_name(dv->host, "mta-sts.", domain) == -1 ||
	    discover_name(dv->tlsrpt_name, "_smtp._tls.", domain) == -1) {
		/* cannot happen for a normalized domain: fail from the loop
		 * like any other lookup would */
		discover_set_detail(dv, "domain name too long");
		dv->txt_name[0] = dv->host[0] = dv->tlsrpt_name[0] = '\0';
		dv->q_txt = dns_query(d, "", DNS_TYPE_TXT, discover_txt_cb, dv);
		if (flags & DISCOVER_TLSRPT)
			dv->q_tlsrpt = dns_query(d, "", DNS_TYPE_TXT,
			    discover_tlsrpt_cb, dv);
		else
			discover_tlsrpt_skip(dv);
		return (dv);
	}
	dv->q_txt = dns_query(d, dv->txt_name, DNS_TYPE_TXT, discover_txt_cb,
	    dv);
	if (known_id == NULL)
		discover_addrs_ask(dv);
	if (flags & DISCOVER_TLSRPT)
		dv->q_tlsrpt = dns_query(d, dv->tlsrpt_name, DNS_TYPE_TXT,
		    discover_tlsrpt_cb, dv);
	else
		discover_tlsrpt_skip(dv);
	return (dv);
}

void
discover_cancel(struct discover *dv)
{
	if (dv == NULL || dv->reporting)
		return;
	dns_cancel(dv->q_txt);
	dns_cancel(dv->q_a);
	dns_cancel(dv->q_aaaa);
	dns_cancel(dv->q_tlsrpt);
	https_cancel(dv->fetch);
	discover_free(dv);
}

const char *
discover_outcome_name(enum discover_outcome o)
{
	switch (o) {
	case DISCOVER_POLICY:
		return ("policy");
	case DISCOVER_NO_POLICY:
		return ("no-policy");
	case DISCOVER_UNCHANGED:
		return ("unchanged");
	case DISCOVER_FAILURE:
		break;
	}
	return ("failure");
}

const char *
discover_failure_name(enum discover_failure f)
{
	switch (f) {
	case DISCOVER_FAIL_NONE:
		return ("none");
	case DISCOVER_FAIL_DNS_SERVFAIL:
		return ("dns-servfail");
	case DISCOVER_FAIL_DNS_BOGUS:
		return ("dns-bogus");
	case DISCOVER_FAIL_TXT_INVALID:
		return ("txt-invalid");
	case DISCOVER_FAIL_FETCH:
		return ("fetch-error");
	case DISCOVER_FAIL_WEBPKI:
		return ("webpki-invalid");
	case DISCOVER_FAIL_POLICY_INVALID:
		break;
	}
	return ("policy-invalid");
}

const char *
discover_tlsrpt_result_type(enum discover_failure f)
{
	switch (f) {
	case DISCOVER_FAIL_NONE:
		return (NULL);
	case DISCOVER_FAIL_DNS_BOGUS:
		return ("dnssec-invalid");
	case DISCOVER_FAIL_WEBPKI:
		return ("sts-webpki-invalid");
	case DISCOVER_FAIL_TXT_INVALID:
	case DISCOVER_FAIL_POLICY_INVALID:
		return ("sts-policy-invalid");
	case DISCOVER_FAIL_DNS_SERVFAIL:
	case DISCOVER_FAIL_FETCH:
		break;
	}
	return ("sts-policy-fetch-error");
}
