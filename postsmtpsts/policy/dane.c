/*
 * dane.c - RFC 7672 DANE detection for one domain (see dane.h)
 *
 * One struct dane per domain: the MX query, then for every host up to
 * three queries at a time (A, AAAA, then TLSA, maybe a second TLSA at the
 * original name).  Every host runs independently; the domain's callback
 * runs when the last host is decided.
 *
 * TLSA ahead: RFC 7672 §2.2.2 orders the lookups (the TLSA records count
 * only for a host whose addresses are secure, and they are asked at the
 * CNAME-expanded name first), but it does not forbid asking early.  When
 * the MX RRset is secure, the TLSA query at the MX name goes out before
 * (the daemon) or with (dane_opts.addresses_first, all_addresses: the
 * tools) the addresses, and its answer is kept (dane_ahead_keep) until
 * the addresses have decided: used exactly as if it had been asked then,
 * or dropped (insecure or failed addresses, no addresses, a CNAME: then
 * the expanded name is asked as before).
 *
 * TLSA first (the daemon's walk): most MX hosts in signed zones have no
 * TLSA records, and their denial usually settles the host by itself.  A
 * secure NXDOMAIN for _25._tcp.NAME carries the NSEC (or NSEC3) record of
 * NAME itself when NAME is the closest encloser, validated with the
 * answer; if its type bitmap lists A or AAAA and no CNAME (nor DNAME, nor
 * a zone cut), NAME is no alias, so there is no expanded name to ask, and
 * with no TLSA records at NAME the host is "no DANE" whatever its address
 * answers would say (dane_denial_decides).  Then A is never asked: one
 * query and one DNSSEC signature check less per such host, the largest
 * single share of a cold lookup's CPU (bench/README.md).  Anything else
 * (records, an insecure or failed answer, no such proof) asks A after all,
 * one round trip later than with the addresses first; the answer is the
 * same as the ordered walk's except for a host with a bogus A RRset and a
 * valid denial at the same name, now "no DANE" rather than "failure"
 * (the difference is whether dane_aggregate counts the host; Postfix skips
 * a host with bogus addresses either way).
 *
 * Nothing here blocks and nothing is bigger than DANE_MAX_HOSTS hosts of
 * DANE_MAX_TLSA records each, whatever the answers say: the rest is
 * counted, not kept. *
 * Why one file of ~1,000 lines: it is one state machine, the walk of one
 * domain.  The MX callback starts the hosts; each host's callbacks (its
 * addresses, its TLSA at the expanded name, the TLSA asked ahead or first
 * at the MX name) decide the next query or the host, and the last host
 * decides the domain (dane_finish).  Those ~700 lines share struct dane
 * and struct dane_hq and call one another in both directions: a query
 * starter's answer comes back to a callback that starts the next query,
 * so cutting the walk in two would make two files that call each other.
 * The pure record rules at the top (dane_tlsa_parse, dane_tlsa_usable,
 * dane_mx_parse, dane_aggregate, the names: ~130 lines, table-tested in
 * test_dane) are the walk's own vocabulary, exported for the tools'
 * report; they could stand apart, but the walk would still be ~850 lines
 * and one concern would be in two places.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/dane.h"
#include "lib/dns.h"
#include "lib/dnswire.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/* lib/cache_evict.c ranks DANE records by these numbers (CACHE_DANE_*) */
_Static_assert(DANE_FAILURE == 3 && DANE_STATE_MAX == 5,
    "update CACHE_DANE_STATE_* in lib/cache_evict.c");

/* "_65535._tcp." + a name */
#define DANE_QNAME_SZ	(DOMAIN_BUFSZ + 16)

struct dane;

struct dane_hq {
	struct dane	*dn;
	size_t		 idx;
	struct dns_query *aq;		/* A */
	struct dns_query *aaaaq;	/* AAAA */
	struct dns_query *tq;		/* TLSA */
	int		 addr_pending;	/* A/AAAA answers still to come */
	int		 aaaa_asked;	/* AAAA asked (else A decided) */
	int		 addr_failed;	/* an address lookup failed */
	const char	*addr_why;
	enum dns_security a_sec, aaaa_sec;
	int		 tried_name;	/* TLSA at the MX name itself done */
	int		 tlsa_first;	/* only the TLSA at the MX name asked */
	struct dns_query *atq;		/* TLSA at the MX name, asked ahead */
	int		 ahead_wait;	/* the addresses want its answer */
	int		 ahave;		/* its answer, kept: */
	struct dns_result ares;		/*  (rdata copies below) */
	unsigned char	**ard;
	size_t		*alen;
	char		 canon[DOMAIN_BUFSZ];	/* CNAME-expanded, or "" */
	int		 done;
	unsigned char	*rdata[DANE_MAX_TLSA];	/* keep_rdata copies */
};

struct dane {
	struct dns	*dns;
	dane_cb		*cb;
	void		*arg;
	char		 domain[DOMAIN_BUFSZ];
	struct dane_opts o;
	int		 insecure_mx;	/* all_hosts behind an insecure MX */
	struct dns_query *mxq;
	struct dane_result res;
	struct dane_host hosts[DANE_MAX_HOSTS];
	struct dane_hq	 hq[DANE_MAX_HOSTS];
	size_t		 pending;	/* hosts not yet decided */
	int		 ttl;		/* smallest seen, -1 none yet */
	char		 detail[256];
};

static void	dane_host_addr_cb(const struct dns_result *, void *);
static void	dane_host_tlsa_cb(const struct dns_result *, void *);
static void	dane_host_tlsa_ahead_cb(const struct dns_result *, void *);
static void	dane_host_done(struct dane_hq *, enum dane_state, const char *);
static const char *dane_lookup_failed(const struct dns_result *);

/* --- pure parts ------------------------------------------------------ */

int
dane_tlsa_parse(const unsigned char *p, size_t len, struct dane_tlsa *out)
{
	size_t	 n;

	memset(out, 0, sizeof(*out));
	if (len < 4)		/* RFC 6698 §2.1: at least one data byte */
		return (-1);
	out->usage = p[0];
	out->selector = p[1];
	out->mtype = p[2];
	out->len = len - 3;
	n = out->len < DANE_MAX_DATA ? out->len : DANE_MAX_DATA;
	memcpy(out->data, p + 3, n);
	out->usable = dane_tlsa_usable(out);
	return (0);
}

int
dane_tlsa_usable(const struct dane_tlsa *t)
{
	/* RFC 7672 §3.1.3: PKIX-TA(0)/PKIX-EE(1) are not for SMTP. */
	if (t->usage != 2 && t->usage != 3)
		return (0);
	if (t->selector > 1)
		return (0);
	switch (t->mtype) {
	case 0:
		return (t->len > 0);
	case 1:
		return (t->len == 32);
	case 2:
		return (t->len == 64);
	default:
		return (0);
	}
}

int
dane_mx_parse(const unsigned char *p, size_t len, uint16_t *pref, char *name)
{
	size_t	 i, o = 0, lab;
	unsigned char c;

	name[0] = '\0';
	if (len < 3)
		return (-1);
	*pref = (uint16_t)(p[0] << 8 | p[1]);
	i = 2;
	for (;;) {
		if (i >= len)
			return (-1);
		lab = p[i++];
		if (lab == 0)
			break;
		if (lab > DOMAIN_MAX_LABEL || i + lab > len)
			return (-1);	/* also refuses compression (0xc0) */
		if (o != 0)
			name[o++] = '.';
		if (o + lab > DOMAIN_MAX_LEN)
			return (-1);
		for (; lab > 0; lab--) {
			c = domain_lower(p[i++]);
			/* only host name characters: a name we could not
			 * look up safely is malformed here */
			if (!domain_host_char(c))
				return (-1);
			name[o++] = (char)c;
		}
	}
	name[o] = '\0';
	return (i == len ? 0 : -1);
}

enum dane_state
dane_aggregate(const enum dane_state *hosts, size_t n)
{
	size_t	 i, ndane = 0, ntls = 0, nfailed = 0;

	/* RFC 7672 §2.2: a host whose records cannot be obtained is
	 * unusable, not the domain; Postfix skips it itself */
	for (i = 0; i < n; i++) {
		if (hosts[i] == DANE_FAILURE)
			nfailed++;
		else if (hosts[i] == DANE_ALL)
			ndane++;
		else if (hosts[i] == DANE_TLS)
			ntls++;
	}
	if (n > 0 && nfailed == n)
		return (DANE_FAILURE);	/* nothing is known */
	if (ndane > 0)
		return (ndane == n - nfailed ? DANE_ALL : DANE_SOME);
	if (ntls == 0)
		return (DANE_NONE);
	/* §2.2: TLS on every host only if every host is known to want it;
	 * a failed host may be one whose usable records were hidden */
	return (ntls == n ? DANE_TLS : DANE_TLS_SOME);
}

const char *
dane_state_name(enum dane_state st)
{
	switch (st) {
	case DANE_NONE:
		return ("none");
	case DANE_ALL:
		return ("all");
	case DANE_SOME:
		return ("some");
	case DANE_FAILURE:
		return ("failure");
	case DANE_TLS:
		return ("tls-required");
	case DANE_TLS_SOME:
		return ("tls-some");
	}
	return ("unknown");
}

const char *
dane_usage_name(unsigned int usage, char *buf, size_t bufsz)
{
	static const char *const names[] = {
		"PKIX-TA", "PKIX-EE", "DANE-TA", "DANE-EE"
	};

	if (usage < 4)
		return (names[usage]);
	snprintf(buf, bufsz, "usage%u", usage);
	return (buf);
}

/* --- the lookups ----------------------------------------------------- */

static void
dane_ttl(struct dane *dn, int ttl)
{
	if (ttl >= 0 && (dn->ttl < 0 || ttl < dn->ttl))
		dn->ttl = ttl;
}

/* dane_finish - every host is decided: aggregate and report */
static void
dane_finish(struct dane *dn)
{
	enum dane_state	 st[DANE_MAX_HOSTS];
	size_t		 i;

	for (i = 0; i < dn->res.nhosts; i++)
		st[i] = dn->hosts[i].state;
	if (dn->res.nhosts > 0) {
		dn->res.state = dane_aggregate(st, dn->res.nhosts);
		snprintf(dn->detail, sizeof(dn->detail), "%s%zu MX host%s, "
		    "DANE state %s", dn->insecure_mx ? "MX records not DNSSEC "
		    "secure: no DANE (RFC 7672 2.2.1); " : "", dn->res.nhosts,
		    dn->res.nhosts == 1 ? "" : "s",
		    dane_state_name(dn->res.state));
	}
	dn->res.detail = dn->detail;
	if (dn->ttl < 0)
		dn->ttl = DANE_MIN_TTL;
	if (dn->res.state == DANE_FAILURE && dn->ttl > DANE_FAILURE_TTL)
		dn->ttl = DANE_FAILURE_TTL;
	if (dn->ttl < DANE_MIN_TTL)
		dn->ttl = DANE_MIN_TTL;
	if (dn->ttl > DANE_MAX_TTL)
		dn->ttl = DANE_MAX_TTL;
	dn->res.ttl = dn->ttl;
	dn->res.hosts = dn->hosts;
	dn->cb(&dn->res, dn->arg);
	dane_cancel(dn);
}

/* dane_ahead_free - forget the kept ahead answer (not the query) */
static void
dane_ahead_free(struct dane_hq *hq)
{
	size_t	 i;

	if (hq->ahave)
		for (i = 0; i < hq->ares.rdata_count; i++)
			free(hq->ard[i]);
	free(hq->ard);
	free(hq->alen);
	hq->ard = NULL;
	hq->alen = NULL;
	hq->ahave = 0;
}

/* dane_ahead_drop - the TLSA answer asked ahead is not wanted */
static void
dane_ahead_drop(struct dane_hq *hq)
{
	struct dane_host *h = &hq->dn->hosts[hq->idx];

	if (hq->atq == NULL && !hq->ahave)
		return;
	dns_cancel(hq->atq);
	hq->atq = NULL;
	hq->ahead_wait = 0;
	dane_ahead_free(hq);
	if (hq->tq == NULL)	/* no TLSA lookup of the ordered kind */
		h->base[0] = h->tlsa_name[0] = '\0';
}

/* dane_ahead_keep - keep a copy of res until the addresses decide */
static void
dane_ahead_keep(struct dane_hq *hq, const struct dns_result *res)
{
	size_t	 i, n = res->rdata_count;

	hq->ares = *res;
	hq->ares.packet = NULL;		/* the caller's, gone after this */
	hq->ares.packet_len = 0;
	hq->ares.error = NULL;
	hq->ares.qname = NULL;
	hq->ares.why_bogus = NULL;
	hq->ares.canonname = NULL;
	hq->ard = xcalloc(n > 0 ? n : 1, sizeof(*hq->ard));
	hq->alen = xcalloc(n > 0 ? n : 1, sizeof(*hq->alen));
	for (i = 0; i < n; i++) {
		hq->ard[i] = (unsigned char *)xmemdup0(res->rdata[i],
		    res->rdata_len[i]);
		hq->alen[i] = res->rdata_len[i];
	}
	hq->ares.rdata = (const unsigned char *const *)hq->ard;
	hq->ares.rdata_len = hq->alen;
	hq->ahave = 1;
}

/* dane_ahead_use - the addresses want the TLSA answer at the MX name: the
 * kept one now, or the pending one when it comes */
static void
dane_ahead_use(struct dane_hq *hq)
{
	struct dns_result res;
	unsigned char	**ard = hq->ard;
	size_t		*alen = hq->alen, i, n;

	if (!hq->ahave) {
		hq->ahead_wait = 1;
		return;
	}
	/* dane_host_tlsa_cb may finish the domain and free dn (and hq):
	 * the copies are ours from here */
	res = hq->ares;
	n = res.rdata_count;
	hq->ard = NULL;
	hq->alen = NULL;
	hq->ahave = 0;
	res.qname = hq->dn->hosts[hq->idx].tlsa_name;
	dane_host_tlsa_cb(&res, hq);
	for (i = 0; i < n; i++)
		free(ard[i]);
	free(ard);
	free(alen);
}

/*
 * dane_denial_decides - TLSA asked first: does this answer decide the host
 * without its addresses?  Yes only for a secure answer with no TLSA
 * records and no CNAME on the way whose authority section holds the MX
 * name's own NSEC or NSEC3 record (validated with the answer) listing A
 * or AAAA and neither CNAME nor DNAME, and not a delegation point: then
 * the name is no alias (so no CNAME-expanded TLSA name, RFC 7672 §2.2.2),
 * its addresses are in a signed zone, and with no TLSA records at the
 * name the host is "no DANE" whatever the address answers would say.
 * Anything else is left to the ordered walk.
 */
static int
dane_denial_decides(const struct dane_host *h, const struct dns_result *res)
{
	unsigned int	 t;

	if (dane_lookup_failed(res) != NULL || res->security != DNS_SECURE ||
	    res->rdata_count != 0 || res->canonname != NULL ||
	    dnswire_owner_types(res->packet, res->packet_len, h->name, &t) !=
	    1)
		return (0);
	return ((t & (DNSWIRE_HAS_A | DNSWIRE_HAS_AAAA)) != 0 &&
	    (t & (DNSWIRE_HAS_CNAME | DNSWIRE_HAS_DNAME)) == 0 &&
	    ((t & DNSWIRE_HAS_NS) == 0 || (t & DNSWIRE_HAS_SOA) != 0));
}

/* dane_tlsa_first_cb - the answer of the TLSA query asked first: decides
 * the host, or is kept while the addresses are asked after all */
static void
dane_tlsa_first_cb(struct dane_hq *hq, const struct dns_result *res)
{
	struct dane	 *dn = hq->dn;
	struct dane_host *h = &dn->hosts[hq->idx];

	hq->tlsa_first = 0;
	if (dane_denial_decides(h, res)) {
		h->tlsa_looked = 1;
		h->tlsa_security = DNS_SECURE;
		h->addr_skipped = 1;
		h->addr_security = h->a_security = h->aaaa_security =
		    DNS_SECURE;
		hq->tried_name = 1;
		dane_ttl(dn, res->ttl);
		dane_host_done(hq, DANE_NONE, "no TLSA records (the MX name's "
		    "NSEC/NSEC3 record shows addresses and no CNAME: "
		    "addresses not looked up)");
		return;
	}
	dane_ahead_keep(hq, res);
	hq->addr_pending = 1;
	hq->aq = dns_query(dn->dns, h->name, DNS_TYPE_A, dane_host_addr_cb,
	    hq);
}

/* dane_host_tlsa_ahead_cb - the answer of the TLSA query asked ahead */
static void
dane_host_tlsa_ahead_cb(const struct dns_result *res, void *arg)
{
	struct dane_hq	*hq = arg;

	hq->atq = NULL;
	if (hq->tlsa_first) {
		dane_tlsa_first_cb(hq, res);
		return;
	}
	if (hq->ahead_wait) {
		hq->ahead_wait = 0;
		dane_host_tlsa_cb(res, hq);
	} else
		dane_ahead_keep(hq, res);
}

/* dane_host_done - host idx is decided */
static void
dane_host_done(struct dane_hq *hq, enum dane_state st, const char *why)
{
	struct dane	*dn = hq->dn;

	if (hq->done)
		return;
	hq->done = 1;
	dane_ahead_drop(hq);
	dn->hosts[hq->idx].state = st;
	dn->hosts[hq->idx].why = why;
	log_debug(2, "dane: domain=%s host=%s state=%s why=\"%s\"", dn->domain,
	    dn->hosts[hq->idx].name, dane_state_name(st), why);
	if (--dn->pending == 0)
		dane_finish(dn);
}

/* dane_fail_of - how a lookup failed (DANE_FAIL_NONE: it did not) */
static enum dane_fail
dane_fail_of(const struct dns_result *res)
{
	if (res->status == DNS_ERR_TIMEOUT)
		return (DANE_FAIL_TIMEOUT);
	if (res->status != DNS_OK)
		return (DANE_FAIL_SERVFAIL);
	if (res->security == DNS_BOGUS)
		return (DANE_FAIL_BOGUS);
	if (res->rcode != DNS_RCODE_NOERROR &&
	    res->rcode != DNS_RCODE_NXDOMAIN)
		return (DANE_FAIL_SERVFAIL);
	return (DANE_FAIL_NONE);
}

/* dane_rrtype_rank - A before AAAA before TLSA */
static int
dane_rrtype_rank(int rrtype)
{
	return (rrtype == DNS_TYPE_A ? 0 : rrtype == DNS_TYPE_AAAA ? 1 : 2);
}

/* dane_host_failed - note a failed lookup of a host: a bogus answer wins
 * over the others, then A over AAAA over TLSA (not the first to arrive:
 * the answers of one host come in any order) */
static void
dane_host_failed(struct dane_host *h, const struct dns_result *res)
{
	enum dane_fail	 f = dane_fail_of(res);

	if (f == DANE_FAIL_NONE)
		return;
	if (h->fail == DANE_FAIL_NONE ||
	    (f == DANE_FAIL_BOGUS && h->fail != DANE_FAIL_BOGUS) ||
	    (f == h->fail && dane_rrtype_rank(res->rrtype) <
	    dane_rrtype_rank(h->fail_rrtype))) {
		h->fail = f;
		h->fail_rrtype = res->rrtype;
	}
}

const char *
dane_fail_name(enum dane_fail f)
{
	switch (f) {
	case DANE_FAIL_NONE:
		return ("none");
	case DANE_FAIL_BOGUS:
		return ("bogus");
	case DANE_FAIL_SERVFAIL:
		return ("servfail");
	case DANE_FAIL_TIMEOUT:
		return ("timeout");
	}
	return ("?");
}

/* dane_lookup_failed - an answer that is not an answer: why, or NULL */
static const char *
dane_lookup_failed(const struct dns_result *res)
{
	if (res->status != DNS_OK)
		return (res->status == DNS_ERR_TIMEOUT ? "timeout" :
		    "resolver error");
	if (res->security == DNS_BOGUS)
		return ("DNSSEC bogus");
	if (res->rcode != DNS_RCODE_NOERROR &&
	    res->rcode != DNS_RCODE_NXDOMAIN)
		return ("SERVFAIL or other error");
	return (NULL);
}

/* dane_tlsa_query - ask for _PORT._tcp.base (port 25 unless told) */
static void
dane_tlsa_query(struct dane_hq *hq, const char *base)
{
	struct dane_host *h = &hq->dn->hosts[hq->idx];

	snprintf(h->base, sizeof(h->base), "%s", base);
	snprintf(h->tlsa_name, sizeof(h->tlsa_name), "_%d._tcp.%s",
	    hq->dn->o.port, base);
	hq->tq = dns_query(hq->dn->dns, h->tlsa_name, DNS_TYPE_TLSA,
	    dane_host_tlsa_cb, hq);
}

/* dane_tlsa_ahead - ask _PORT._tcp.NAME now, with the addresses */
static void
dane_tlsa_ahead(struct dane_hq *hq)
{
	struct dane_host *h = &hq->dn->hosts[hq->idx];
	char		 qn[sizeof(h->tlsa_name)];
	size_t		 n = strnlen(h->name, sizeof(h->name) - 1);

	/* through qn and memcpy: gcc's -Wrestrict cannot tell the members
	 * of *h apart once this is inlined */
	(void)snprintf(qn, sizeof(qn), "_%d._tcp.%s", hq->dn->o.port,
	    h->name);
	memcpy(h->tlsa_name, qn, sizeof(qn));
	memcpy(h->base, h->name, n);
	h->base[n] = '\0';
	hq->atq = dns_query(hq->dn->dns, h->tlsa_name, DNS_TYPE_TLSA,
	    dane_host_tlsa_ahead_cb, hq);
}

/* dane_keep_addrs - the address literals of an A or AAAA answer */
static void
dane_keep_addrs(struct dane_host *h, const struct dns_result *res)
{
	size_t	 i, want = res->rrtype == DNS_TYPE_A ? 4 : 16;
	int	 af = res->rrtype == DNS_TYPE_A ? AF_INET : AF_INET6;

	for (i = 0; i < res->rdata_count; i++) {
		if (res->rdata_len[i] != want ||
		    h->naddr_text == DANE_MAX_ADDRS)
			continue;
		if (inet_ntop(af, res->rdata[i], h->addr[h->naddr_text],
		    DANE_ADDR_MAX) != NULL)
			h->naddr_text++;
	}
}

/*
 * dane_aaaa_needed - after the A answer of a host, 1 if the AAAA answer
 * can still change the host's state.  A and AAAA live at the same name in
 * the same zone, so they share their chain of trust and any CNAME: an
 * insecure A means insecure addresses, a bogus or failed A already makes
 * the host unusable (RFC 7672 §2.2), an NXDOMAIN is one for AAAA too, and
 * secure addresses are enough to look at TLSA (§2.2.2).  Only a secure,
 * empty A answer (an IPv6-only host) leaves the question open.  What is not
 * asked is one DNSSEC signature check and one query per MX host; a bogus
 * AAAA beside secure A records no longer marks the host unusable, as
 * Postfix, which uses the addresses it can, would not either.
 */
static int
dane_aaaa_needed(const struct dns_result *res)
{
	return (dane_lookup_failed(res) == NULL && res->security ==
	    DNS_SECURE && !res->nxdomain && res->rdata_count == 0);
}

static void
dane_host_addr_cb(const struct dns_result *res, void *arg)
{
	struct dane_hq	*hq = arg;
	struct dane	*dn = hq->dn;
	struct dane_host *h = &dn->hosts[hq->idx];
	size_t		 n;

	if (res->rrtype == DNS_TYPE_A) {
		hq->aq = NULL;
		hq->a_sec = res->security;
		h->a_security = res->security;
	} else {
		hq->aaaaq = NULL;
		hq->aaaa_sec = res->security;
		h->aaaa_security = res->security;
	}
	if (dane_lookup_failed(res) != NULL) {
		h->addr_failed = 1;
		dane_host_failed(h, res);
		/* RFC 7672 §2.2: the host is unusable (its DANE state is
		 * unknown); Postfix skips it by itself, the domain's state
		 * is computed over the other hosts (dane_aggregate) */
		if (res->security == DNS_BOGUS) {
			hq->addr_failed = 1;
			hq->addr_why = "address records DNSSEC bogus: host "
			    "left to Postfix";
		} else if (!hq->addr_failed) {
			hq->addr_failed = 2;
			hq->addr_why = "address lookup failed (timeout or "
			    "SERVFAIL): host left to Postfix";
		}
		dane_ttl(dn, DANE_FAILURE_TTL);
	} else {
		h->naddrs += res->rdata_count;
		dane_keep_addrs(h, res);
		dane_ttl(dn, res->ttl);
		if (res->canonname != NULL && res->havedata &&
		    !dns_name_eq(res->canonname, h->name) &&
		    strlen(res->canonname) < sizeof(hq->canon)) {
			snprintf(hq->canon, sizeof(hq->canon), "%s",
			    res->canonname);
			n = strlen(hq->canon);
			if (n > 0 && hq->canon[n - 1] == '.')
				hq->canon[n - 1] = '\0';
		}
	}
	if (res->rrtype == DNS_TYPE_A && hq->aaaaq == NULL &&
	    !hq->aaaa_asked) {
		if (dane_aaaa_needed(res)) {
			/* secure and empty: the host may have IPv6
			 * addresses only */
			hq->aaaa_asked = 1;
			hq->aaaaq = dns_query(dn->dns, h->name,
			    DNS_TYPE_AAAA, dane_host_addr_cb, hq);
			return;
		}
		/* the A answer decided: AAAA counts as the same */
		hq->aaaa_sec = hq->a_sec;
	}
	if (--hq->addr_pending > 0)
		return;

	/* both answers are in, or the A answer decided */
	if (hq->a_sec == DNS_BOGUS || hq->aaaa_sec == DNS_BOGUS)
		h->addr_security = DNS_BOGUS;
	else if (hq->a_sec == DNS_SECURE && hq->aaaa_sec == DNS_SECURE)
		h->addr_security = DNS_SECURE;
	else
		h->addr_security = DNS_INSECURE;
	if (dn->insecure_mx) {
		/* all_hosts: listed for the caller, DANE never applies */
		dane_host_done(hq, DANE_NONE, "MX records not DNSSEC secure "
		    "(RFC 7672 2.2.1)");
		return;
	}
	if (hq->addr_failed == 1) {
		/* RFC 7672 §2.2: the host's DANE state is unknown */
		dane_host_done(hq, DANE_FAILURE, hq->addr_why);
		return;
	}
	if (hq->addr_failed == 2) {
		dane_host_done(hq, DANE_FAILURE, hq->addr_why);
		return;
	}
	if (h->addr_security != DNS_SECURE) {
		/* §2.2.2: no TLSA lookup for an insecure address */
		dane_host_done(hq, DANE_NONE, "address records not DNSSEC "
		    "secure");
		return;
	}
	if (h->naddrs == 0) {
		dane_host_done(hq, DANE_NONE, "no address records");
		return;
	}
	/* §2.2.2: the CNAME-expanded name first, then the MX name */
	if (hq->canon[0] != '\0') {
		dane_ahead_drop(hq);
		dane_tlsa_query(hq, hq->canon);
	} else if (hq->atq != NULL || hq->ahave) {
		hq->tried_name = 1;
		dane_ahead_use(hq);
	} else {
		hq->tried_name = 1;
		dane_tlsa_query(hq, h->name);
	}
}

static void
dane_host_tlsa_cb(const struct dns_result *res, void *arg)
{
	struct dane_hq	*hq = arg;
	struct dane	*dn = hq->dn;
	struct dane_host *h = &dn->hosts[hq->idx];
	struct dane_tlsa t;
	size_t		 i, usable = 0;

	hq->tq = NULL;
	h->tlsa_looked = 1;
	h->tlsa_security = res->security;
	if (dane_lookup_failed(res) != NULL) {
		/* §2.2: the MX and address records are secure, so the
		 * TLSA state must be known before the host is used: it is
		 * unusable, left to Postfix (which skips it) */
		dane_host_failed(h, res);
		dane_host_done(hq, DANE_FAILURE, res->security == DNS_BOGUS ?
		    "TLSA records DNSSEC bogus: host left to Postfix" :
		    "TLSA lookup failed (timeout or SERVFAIL): host left to "
		    "Postfix");
		return;
	}
	if (res->security != DNS_SECURE) {
		dane_host_done(hq, DANE_NONE, "TLSA records not DNSSEC "
		    "secure");
		return;
	}
	dane_ttl(dn, res->ttl);
	if (res->rdata_count == 0) {
		if (!hq->tried_name) {
			hq->tried_name = 1;
			dane_tlsa_query(hq, h->name);
			return;
		}
		dane_host_done(hq, DANE_NONE, "no TLSA records");
		return;
	}
	h->ntlsa = 0;
	for (i = 0; i < res->rdata_count; i++) {
		if (dane_tlsa_parse(res->rdata[i], res->rdata_len[i], &t) ==
		    -1)
			continue;	/* published all the same (below) */
		if (t.usable)
			usable++;
		if (h->ntlsa == DANE_MAX_TLSA)
			continue;
		if (dn->o.keep_rdata) {
			hq->rdata[h->ntlsa] = (unsigned char *)xmemdup0(
			    res->rdata[i],
			    res->rdata_len[i]);
			t.rdata = hq->rdata[h->ntlsa];
			t.rdata_len = res->rdata_len[i];
		}
		h->tlsa[h->ntlsa++] = t;
	}
	/*
	 * §2.2: a secure TLSA RRset with no usable record (PKIX-TA/PKIX-EE,
	 * unknown selector or matching type, a digest of the wrong length,
	 * a record too short to parse) still says the server does TLS: TLS
	 * is mandatory, authentication is not (§3.1.3).
	 */
	if (usable == 0)
		dane_host_done(hq, DANE_TLS, "TLSA records, none usable "
		    "(RFC 7672 3.1.3): TLS required, not authenticated "
		    "(RFC 7672 2.2)");
	else
		dane_host_done(hq, DANE_ALL, "usable TLSA records");
}

/* dane_add_host - examine one more host; 0, or -1 if it was a duplicate */
static int
dane_add_host(struct dane *dn, const char *name, uint16_t pref)
{
	struct dane_host *h;
	size_t		 i;

	for (i = 0; i < dn->res.nhosts; i++)
		if (strcmp(dn->hosts[i].name, name) == 0)
			return (-1);
	h = &dn->hosts[dn->res.nhosts];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->preference = pref;
	h->state = DANE_NONE;
	h->why = "";
	dn->hq[dn->res.nhosts].dn = dn;
	dn->hq[dn->res.nhosts].idx = dn->res.nhosts;
	dn->res.nhosts++;
	return (0);
}

/* dane_start_hosts - run every host's lookups */
static void
dane_start_hosts(struct dane *dn)
{
	size_t		 i, n = dn->res.nhosts;

	dn->pending = n;
	/* all queries first, then callbacks: never called from here */
	for (i = 0; i < n; i++) {
		if (!dn->insecure_mx && !dn->o.all_addresses &&
		    !dn->o.addresses_first) {
			/* TLSA first, addresses if it does not decide */
			dn->hq[i].tlsa_first = 1;
			dane_tlsa_ahead(&dn->hq[i]);
			continue;
		}
		dn->hq[i].addr_pending = 1;
		dn->hq[i].aq = dns_query(dn->dns, dn->hosts[i].name,
		    DNS_TYPE_A, dane_host_addr_cb, &dn->hq[i]);
		if (dn->o.all_addresses) {
			dn->hq[i].addr_pending = 2;
			dn->hq[i].aaaa_asked = 1;
			dn->hq[i].aaaaq = dns_query(dn->dns,
			    dn->hosts[i].name, DNS_TYPE_AAAA,
			    dane_host_addr_cb, &dn->hq[i]);
		}
		if (!dn->insecure_mx)
			dane_tlsa_ahead(&dn->hq[i]);
	}
}

/* dane_mx_cmp - by preference (then name, for a stable order) */
static int
dane_mx_cmp(const void *a, const void *b)
{
	const struct dane_host *x = a, *y = b;

	if (x->preference != y->preference)
		return (x->preference < y->preference ? -1 : 1);
	return (strcmp(x->name, y->name));
}

static void
dane_mx_cb(const struct dns_result *res, void *arg)
{
	struct dane	*dn = arg;
	struct dane_host *all;
	const char	*why;
	size_t		 i, n = 0;

	dn->mxq = NULL;
	dn->res.mx_security = res->security;
	dn->res.mx_status = res->status;
	dn->res.mx_rcode = res->rcode;
	dn->res.nxdomain = res->status == DNS_OK && res->nxdomain;
	dn->res.mx_fail = dane_fail_of(res);
	if ((why = dane_lookup_failed(res)) != NULL) {
		/* A bogus MX RRset: DANE may apply and cannot be known.  Any
		 * other error (timeout, SERVFAIL) only hides whether DNSSEC
		 * applies at all: not a DANE failure (Postfix, which needs
		 * the MX records to deliver, defers by itself); MTA-STS
		 * decides, and we ask again soon. */
		dn->res.state = res->security == DNS_BOGUS ? DANE_FAILURE :
		    DANE_NONE;
		dane_ttl(dn, DANE_FAILURE_TTL);
		snprintf(dn->detail, sizeof(dn->detail), "MX lookup: %s%s",
		    why, res->security == DNS_BOGUS ? "" :
		    ": DNSSEC status unknown, DANE not applied");
		dane_finish(dn);
		return;
	}
	dane_ttl(dn, res->ttl);
	if (res->nxdomain && (res->security == DNS_SECURE ||
	    dn->o.all_hosts)) {
		dn->res.state = DANE_NONE;
		snprintf(dn->detail, sizeof(dn->detail), "the domain does "
		    "not exist (%sNXDOMAIN)", res->security == DNS_SECURE ?
		    "secure " : "");
		dane_finish(dn);
		return;
	}
	if (res->security != DNS_SECURE && dn->o.all_hosts)
		dn->insecure_mx = 1;
	else if (res->security != DNS_SECURE) {
		dn->res.state = DANE_NONE;
		snprintf(dn->detail, sizeof(dn->detail), "MX records not "
		    "DNSSEC secure: no DANE (RFC 7672 2.2.1)");
		dane_finish(dn);
		return;
	}
	if (res->rdata_count == 0) {
		/* RFC 5321 §5.1: the domain is its own implicit MX */
		dn->res.implicit_mx = 1;
		dane_add_host(dn, dn->domain, 0);
		dane_start_hosts(dn);
		return;
	}
	all = xcalloc(res->rdata_count, sizeof(*all));
	for (i = 0; i < res->rdata_count; i++) {
		if (dane_mx_parse(res->rdata[i], res->rdata_len[i],
		    &all[n].preference, all[n].name) == -1) {
			log_debug(1, "dane: domain=%s: malformed MX record "
			    "ignored", dn->domain);
			continue;
		}
		n++;
	}
	dn->res.nmx = n;
	if (n == 1 && all[0].name[0] == '\0') {
		/* RFC 7505 null MX: no mail at all */
		free(all);
		dn->res.null_mx = 1;
		dn->res.state = DANE_NONE;
		snprintf(dn->detail, sizeof(dn->detail), "null MX (RFC 7505): "
		    "the domain accepts no mail");
		dane_finish(dn);
		return;
	}
	qsort(all, n, sizeof(*all), dane_mx_cmp);
	for (i = 0; i < n && dn->res.nhosts < DANE_MAX_HOSTS; i++)
		if (all[i].name[0] != '\0')
			dane_add_host(dn, all[i].name, all[i].preference);
	free(all);
	if (dn->res.nhosts == 0) {
		dn->res.state = DANE_NONE;
		snprintf(dn->detail, sizeof(dn->detail), "no usable MX "
		    "record");
		dane_finish(dn);
		return;
	}
	dane_start_hosts(dn);
}

struct dane *
dane_start(struct dns *d, const char *domain, dane_cb *cb, void *arg)
{
	return (dane_start_opts(d, domain, NULL, cb, arg));
}

struct dane *
dane_start_opts(struct dns *d, const char *domain, const struct dane_opts *o,
    dane_cb *cb, void *arg)
{
	struct dane	*dn;

	dn = xcalloc(1, sizeof(*dn));
	if (o != NULL)
		dn->o = *o;
	if (dn->o.port <= 0 || dn->o.port > 65535)
		dn->o.port = DANE_DEFAULT_PORT;
	dn->dns = d;
	dn->cb = cb;
	dn->arg = arg;
	dn->ttl = -1;
	snprintf(dn->domain, sizeof(dn->domain), "%s", domain);
	dn->res.domain = dn->domain;
	dn->res.state = DANE_NONE;
	dn->res.detail = "";
	dn->mxq = dns_query(d, domain, DNS_TYPE_MX, dane_mx_cb, dn);
	return (dn);
}

void
dane_cancel(struct dane *dn)
{
	size_t	 i, j;

	if (dn == NULL)
		return;
	dns_cancel(dn->mxq);
	for (i = 0; i < dn->res.nhosts; i++) {
		dns_cancel(dn->hq[i].aq);
		dns_cancel(dn->hq[i].aaaaq);
		dns_cancel(dn->hq[i].tq);
		dns_cancel(dn->hq[i].atq);
		dane_ahead_free(&dn->hq[i]);
		for (j = 0; j < DANE_MAX_TLSA; j++)
			free(dn->hq[i].rdata[j]);
	}
	free(dn);
}
