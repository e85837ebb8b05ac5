/*
 * check.c - postsmtpsts-check: test a domain's MX hosts the way a sender
 * applying its MTA-STS policy and DANE records would
 *
 *	postsmtpsts-check [-v] [-c config] [--json] [--port N] [--timeout S]
 *	    [--warn-days N] [--helo NAME] [resolver/CA options] DOMAIN
 *
 * Runs, on one event base: the MTA-STS discovery of postsmtpsts-query
 * (discover.c: _mta-sts TXT, policy fetch, _smtp._tls TLSRPT TXT) and, in
 * parallel, the daemon's own DANE walk (dane.c, RFC 7672 §2.2: MX RRset,
 * addresses, TLSA at _PORT._tcp of the CNAME-expanded name first, then of
 * the MX name), asked to list the hosts behind an insecure MX RRset too
 * and to keep the whole TLSA records.  Then, one host after another,
 * check_probe_run() speaks SMTP and STARTTLS to the host's addresses and
 * checks its certificate (PKIX, names, DANE); the verdict rules are
 * check_verdict.c's.  Only the MX hosts of DOMAIN (at most DANE_MAX_HOSTS
 * of them, in preference order) are contacted, at most DANE_MAX_ADDRS
 * addresses each, and the first address that accepts the connection is
 * the one checked.
 *
 * DANE applies to a host exactly when dane.c says so (its state "all"):
 * then DANE decides and MTA-STS is not consulted for that host (RFC 8461
 * §2).  A host whose DANE state is "failure" is reported as a failed
 * lookup, as the daemon would defer its mail.
 *
 * Exit status: 0 every verdict ok, 1 a warning, 2 a failure or an error
 * (usage, configuration).  --json prints one JSON object; all text that
 * came from the network (greetings, certificate names, policy, TXT
 * records) is escaped in both forms (log_escape; JSON \u00XX).
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "policy/dane.h"
#include "tools/check_probe.h"
#include "tools/check_verdict.h"
#include "lib/config.h"
#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "lib/https.h"
#include "lib/log.h"
#include "policy/mxmatch.h"
#include "policy/sts_policy.h"
#include "lib/xmalloc.h"
#include "tools/tool.h"
#include "tools/tool_json.h"

#define CHECK_EXIT_ERROR	TOOL_EXIT_USAGE
#define CHECK_DEFAULT_TIMEOUT	10	/* seconds, per step */
#define CHECK_DEFAULT_WARN_DAYS	14
#define CHECK_MAX_WARN_DAYS	1000000
#define CHECK_JSON_MAX		(4 * 1024 * 1024)
#define CHECK_NOTE_MAX		256

struct check_host {
	struct dane_host d;	/* the DANE walk's facts (dane.c) */
	const char	*addrs[DANE_MAX_ADDRS];	/* into d.addr */
	size_t		 nusable;
	const unsigned char *tlsa[DANE_MAX_TLSA];	/* usable records */
	size_t		 tlsa_len[DANE_MAX_TLSA];
	unsigned char	*tlsa_copy[DANE_MAX_TLSA];	/* owned */
	char		 dane_note[CHECK_NOTE_MAX];
	/* the results */
	int		 probed;
	struct check_probe_result probe;
	int		 mx_match;
	enum check_verdict_require require;
	enum check_verdict_dane dane;
	enum check_verdict_level verdict;
	char		 reason[CHECK_VERDICT_REASON_MAX];
};

struct check {
	struct event_base *base;
	struct dns	*dns;
	const char	*domain;
	int		 port;
	int		 discover_done;
	/* the DANE walk: MX RRset and hosts (copied out of the callback) */
	int		 mx_done;
	enum dns_status	 mx_status;
	int		 mx_rcode;
	enum dns_security mx_sec;
	int		 implicit_mx;	/* no MX RRset: the domain */
	int		 null_mx;	/* RFC 7505 */
	int		 mx_failed;
	enum dane_state	 dane_state;	/* the domain's, as the daemon sees it */
	char		 mx_note[CHECK_NOTE_MAX];
	struct check_host hosts[DANE_MAX_HOSTS];
	size_t		 nhosts;
	/* MTA-STS discovery (copied out of the callback) */
	enum discover_outcome sts_outcome;
	enum discover_failure sts_failure;
	char		*sts_detail;
	char		*sts_id;
	enum dns_security sts_txt_sec;
	struct sts_policy *policy;	/* DISCOVER_POLICY only */
	char		*policy_why;
	char		*tlsrpt;
	char		*tlsrpt_note;
	enum dns_security tlsrpt_sec;
	/* domain verdict */
	enum check_verdict_level domain_verdict;
	char		 domain_reason[CHECK_VERDICT_REASON_MAX];
	enum check_verdict_level verdict;
};

/* postsmtpsts-check's own options (tool.h has the shared ones) */
struct check_own {
	int		 port;
	long		 warn_days;
	const char	*helo;		/* --helo, or NULL */
};

enum {
	CHECK_OPT_PORT = TOOL_OPT_OWN,
	CHECK_OPT_WARN_DAYS,
	CHECK_OPT_HELO,
};

static const struct option check_longopts[] = {
	{ "port", required_argument, NULL, CHECK_OPT_PORT },
	{ "warn-days", required_argument, NULL, CHECK_OPT_WARN_DAYS },
	{ "helo", required_argument, NULL, CHECK_OPT_HELO },
	{ NULL, 0, NULL, 0 },
};

static const struct tool check_tool = {
	"postsmtpsts-check",
	"usage: postsmtpsts-check [-v] [-c config] [--json] [--port N] "
	"[--timeout s]\n"
	"\t[--dns-timeout s] [--warn-days N] [--helo name] "
	"[--ca-file file]\n"
	"\t[--trust-anchor file] [--root-hints file] [--forwarder addr]\n"
	"\t[--resolv-conf] [--unbound-config file] "
	"[--unbound-option 'name: value']\n"
	"\t[--proxy url] DOMAIN\n"
	"       postsmtpsts-check -h | --help | -V | --version\n"
	"  --timeout s   each step: a DNS query, a connection, an SMTP reply, "
	"the TLS\n"
	"                handshake (default 10)\n",
	"",
	check_longopts,
	TOOL_WITH_RESOLVER,
};

/* check_dup - copy of a possibly NULL string */
static char *
check_dup(const char *s)
{
	return (s != NULL ? xstrdup(s) : NULL);
}

/* check_maybe_done - stop the loop when discovery and DANE are done */
static void
check_maybe_done(struct check *ck)
{
	if (ck->discover_done && ck->mx_done)
		event_base_loopbreak(ck->base);
}

/* check_discovered - keep what the STS discovery found */
static void
check_discovered(const struct discover_result *r, void *arg)
{
	struct check	*ck = arg;

	ck->sts_outcome = r->outcome;
	ck->sts_failure = r->failure;
	ck->sts_detail = check_dup(r->detail);
	ck->sts_id = check_dup(r->id);
	ck->sts_txt_sec = r->txt_security;
	if (r->outcome == DISCOVER_POLICY && r->policy != NULL) {
		ck->policy = xmalloc(sizeof(*ck->policy));
		memcpy(ck->policy, r->policy, sizeof(*ck->policy));
	}
	ck->policy_why = check_dup(r->policy_why);
	ck->tlsrpt = check_dup(r->tlsrpt);
	ck->tlsrpt_note = check_dup(r->tlsrpt_note);
	ck->tlsrpt_sec = r->tlsrpt_security;
	ck->discover_done = 1;
	check_maybe_done(ck);
}

/* check_host_keep - copy one host of the DANE walk, with its usable
 * TLSA records, and say whether DANE applies to it */
static void
check_host_keep(struct check_host *h, const struct dane_host *d)
{
	const struct dane_tlsa *t;
	size_t	 i;

	h->d = *d;
	for (i = 0; i < h->d.naddr_text; i++)
		h->addrs[i] = h->d.addr[i];
	for (i = 0; i < h->d.ntlsa; i++) {
		t = &h->d.tlsa[i];
		h->d.tlsa[i].rdata = NULL;	/* the walk's copy goes */
		if (!t->usable || d->tlsa[i].rdata == NULL)
			continue;
		h->tlsa_copy[h->nusable] = (unsigned char *)xmemdup0(
		    d->tlsa[i].rdata, d->tlsa[i].rdata_len);
		h->tlsa[h->nusable] = h->tlsa_copy[h->nusable];
		h->tlsa_len[h->nusable++] = d->tlsa[i].rdata_len;
	}
	if (d->state == DANE_FAILURE)
		h->dane = CHECK_VERDICT_DANE_LOOKUP_FAILED;
	if (d->state == DANE_ALL || d->state == DANE_TLS)
		snprintf(h->dane_note, sizeof(h->dane_note), "%zu usable of "
		    "%zu TLSA record%s%s", h->nusable, d->ntlsa,
		    d->ntlsa == 1 ? "" : "s", d->state == DANE_TLS ?
		    ": TLS required, not authenticated (RFC 7672 2.2)" : "");
	else
		snprintf(h->dane_note, sizeof(h->dane_note), "%s", d->why);
}

/* check_dane_done - the DANE walk (dane.c, the daemon's): MX hosts by
 * preference, their addresses, TLSA at the CNAME-expanded name first */
static void
check_dane_done(const struct dane_result *res, void *arg)
{
	struct check	*ck = arg;
	size_t		 i;

	ck->mx_done = 1;
	ck->mx_status = res->mx_status;
	ck->mx_rcode = res->mx_rcode;
	ck->mx_sec = res->mx_security;
	ck->implicit_mx = res->implicit_mx;
	ck->null_mx = res->null_mx;
	ck->dane_state = res->state;
	ck->mx_failed = res->mx_status != DNS_OK ||
	    res->mx_security == DNS_BOGUS || res->nxdomain ||
	    res->mx_rcode != DNS_RCODE_NOERROR;
	if (res->nxdomain)
		snprintf(ck->mx_note, sizeof(ck->mx_note), "the domain does "
		    "not exist (NXDOMAIN)");
	else if (res->implicit_mx)
		snprintf(ck->mx_note, sizeof(ck->mx_note), "no MX records: "
		    "the domain is its own MX (RFC 5321 section 5.1); %s",
		    res->detail);
	else if (res->nmx > res->nhosts && res->nhosts == DANE_MAX_HOSTS)
		snprintf(ck->mx_note, sizeof(ck->mx_note), "only the first "
		    "%d MX hosts are checked; %s", DANE_MAX_HOSTS,
		    res->detail);
	else
		snprintf(ck->mx_note, sizeof(ck->mx_note), "%s", res->detail);
	for (i = 0; i < res->nhosts && i < DANE_MAX_HOSTS; i++)
		check_host_keep(&ck->hosts[i], &res->hosts[i]);
	ck->nhosts = i;
	check_maybe_done(ck);
}

/* check_run_hosts - probe every host and give its verdict */
static void
check_run_hosts(struct check *ck, struct check_probe_tls *tls,
    int timeout_ms, long warn_days, const char *helo)
{
	struct check_probe_opts	 o;
	struct check_verdict_host vh;
	struct check_host	*h;
	const char		*mx;
	size_t			 i, j;
	int			 dane;

	for (i = 0; i < ck->nhosts; i++) {
		h = &ck->hosts[i];
		dane = h->d.state == DANE_ALL && h->nusable > 0;
		h->mx_match = 0;
		if (ck->policy != NULL)
			for (j = 0; (mx = sts_policy_mx_next(ck->policy, &j,
			    NULL)) != NULL; )
				if (mxmatch(mx, h->d.name))
					h->mx_match = 1;
		if (dane)
			h->require = CHECK_VERDICT_REQ_DANE;
		else if (ck->policy != NULL &&
		    ck->policy->mode == STS_MODE_ENFORCE)
			h->require = CHECK_VERDICT_REQ_ENFORCE;
		else if (h->d.state == DANE_TLS)
			/* RFC 7672 §2.2: TLSA records, none usable */
			h->require = CHECK_VERDICT_REQ_TLS;
		else if (ck->policy != NULL &&
		    ck->policy->mode == STS_MODE_TESTING)
			h->require = CHECK_VERDICT_REQ_TESTING;
		else
			h->require = CHECK_VERDICT_REQ_NONE;

		memset(&o, 0, sizeof(o));
		o.host = h->d.name;
		o.addrs = h->addrs;
		o.naddrs = h->d.naddr_text;	/* bogus answers added none */
		o.port = ck->port;
		o.timeout_ms = timeout_ms;
		o.helo = helo;
		if (dane) {
			o.tlsa = h->tlsa;
			o.tlsa_len = h->tlsa_len;
			o.ntlsa = h->nusable;
		}
		o.now = clock_wall();
		log_debug(1, "probing host=%s addrs=%zu port=%d", h->d.name,
		    o.naddrs, o.port);
		(void)check_probe_run(tls, &o, &h->probe);
		h->probed = 1;
		if (dane && h->probe.dane_checked)
			h->dane = h->probe.dane_ok ? CHECK_VERDICT_DANE_MATCH :
			    CHECK_VERDICT_DANE_MISMATCH;

		memset(&vh, 0, sizeof(vh));
		vh.require = h->require;
		vh.have_addr = o.naddrs > 0;
		vh.connected = h->probe.connected;
		vh.smtp_ok = h->probe.smtp_ok;
		vh.starttls = h->probe.starttls;
		vh.tls = h->probe.tls;
		vh.have_cert = h->probe.nchain > 0;
		vh.pkix_ok = h->probe.pkix_ok;
		vh.name_ok = h->probe.name_ok;
		vh.mx_match = h->mx_match;
		vh.dane = h->dane;
		vh.dane_ee_only = h->probe.dane_ee_only;
		vh.expiry_days = h->probe.expiry_days;
		vh.warn_days = warn_days;
		if (h->d.naddr_text == 0 && h->d.addr_failed)
			vh.error = "address lookup failed or DNSSEC-bogus";
		else if (h->probe.error[0] != '\0')
			vh.error = h->probe.error;
		h->verdict = check_verdict_host(&vh, h->reason,
		    sizeof(h->reason));
		log_debug(1, "host=%s require=%s verdict=%s", h->d.name,
		    check_verdict_require_name(h->require),
		    check_verdict_name(h->verdict));
	}
}

/* check_time - a UTC time as ISO 8601 into buf */
static const char *
check_time(time_t t, char *buf, size_t bufsz)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, bufsz, "%lld", (long long)t);
	return (buf);
}

/* check_esc - untrusted NUL-terminated text made printable */
static const char *
check_esc(char *out, const char *s)
{
	return (tool_esc(out, s, s != NULL ? strlen(s) : 0));
}

/* check_print_sts - the MTA-STS and TLSRPT lines */
static void
check_print_sts(const struct check *ck)
{
	char	 esc[TOOL_ESC_MAX];
	size_t	 i;
	const char *mx;

	printf("MTA-STS: %s", discover_outcome_name(ck->sts_outcome));
	if (ck->sts_outcome == DISCOVER_FAILURE)
		printf(" (%s)", discover_failure_name(ck->sts_failure));
	if (ck->policy != NULL) {
		printf(", mode %s, max_age %lu, id %s, mx",
		    sts_policy_mode_name(ck->policy->mode),
		    (unsigned long)ck->policy->max_age,
		    check_esc(esc, ck->sts_id));
		for (i = 0; (mx = sts_policy_mx_next(ck->policy, &i, NULL)) !=
		    NULL; )
			printf(" %s", mx);
	}
	printf("\n");
	if (ck->sts_detail != NULL && ck->sts_outcome != DISCOVER_POLICY)
		printf("  detail: %s\n", check_esc(esc, ck->sts_detail));
	if (ck->tlsrpt != NULL)
		printf("TLSRPT: \"%s\"\n", check_esc(esc, ck->tlsrpt));
	else
		printf("TLSRPT: none (%s)\n", check_esc(esc, ck->tlsrpt_note));
}

/* check_print_text - the human-readable report */
static void
check_print_text(const struct check *ck)
{
	const struct check_host *h;
	const struct check_probe_result *p;
	char	 esc[TOOL_ESC_MAX], t1[32];
	size_t	 i, j;

	printf("domain: %s\n", ck->domain);
	printf("MX: DNSSEC %s", dns_security_name(ck->mx_sec));
	if (ck->mx_note[0] != '\0')
		printf(", %s", ck->mx_note);
	printf("\n");
	for (i = 0; i < ck->nhosts; i++)
		printf("  %u %s\n", (unsigned)ck->hosts[i].d.preference,
		    ck->hosts[i].d.name);
	check_print_sts(ck);
	for (i = 0; i < ck->nhosts; i++) {
		h = &ck->hosts[i];
		p = &h->probe;
		printf("host %s\n", h->d.name);
		printf("  addresses:");
		for (j = 0; j < h->d.naddr_text; j++)
			printf(" %s", h->d.addr[j]);
		printf("%s (A DNSSEC %s, AAAA DNSSEC %s)\n",
		    h->d.naddr_text == 0 ? " none" : "",
		    dns_security_name(h->d.a_security),
		    dns_security_name(h->d.aaaa_security));
		if (h->d.tlsa_looked)
			printf("  TLSA %s: DNSSEC %s, %s\n", h->d.tlsa_name,
			    dns_security_name(h->d.tlsa_security),
			    h->dane_note);
		else
			printf("  TLSA: not looked up, %s\n", h->dane_note);
		printf("  requirement: %s\n",
		    check_verdict_require_name(h->require));
		if (ck->policy != NULL)
			printf("  policy mx match: %s\n", h->mx_match ? "yes" :
			    "no");
		if (p->connected)
			printf("  connected: %s port %d (probe took %ld ms)\n",
			    p->addr, ck->port, p->elapsed_ms);
		if (p->greeting[0] != '\0')
			printf("  greeting: %s\n", check_esc(esc,
			    p->greeting));
		if (p->smtp_ok)
			printf("  STARTTLS: %s\n", p->starttls ? "offered" :
			    "not offered");
		if (p->tls) {
			printf("  TLS: %s, %s\n", p->tls_version, p->cipher);
			for (j = 0; j < p->nchain; j++) {
				printf("  certificate %zu: subject %s\n", j,
				    check_esc(esc, p->chain[j].subject));
				printf("    issuer %s\n", check_esc(esc,
				    p->chain[j].issuer));
				printf("    notAfter %s\n", check_time(
				    p->chain[j].not_after, t1, sizeof(t1)));
			}
			printf("  PKIX: %s\n", check_esc(esc,
			    p->pkix_status));
			if (p->nchain > 0) {
				printf("  name match: %s\n", p->name_ok ?
				    "yes" : "no");
				printf("  expires in: %ld days\n",
				    p->expiry_days);
			}
		}
		printf("  DANE: %s", check_verdict_dane_name(h->dane));
		if (p->dane_checked)
			printf(" (%s)", check_esc(esc, p->dane_status));
		printf("\n");
		if (p->error[0] != '\0')
			printf("  error: %s\n", check_esc(esc, p->error));
		printf("  verdict: %s%s%s\n", check_verdict_name(h->verdict),
		    h->reason[0] != '\0' ? ": " : "",
		    check_esc(esc, h->reason));
	}
	if (ck->domain_reason[0] != '\0')
		printf("domain verdict: %s: %s\n",
		    check_verdict_name(ck->domain_verdict),
		    check_esc(esc, ck->domain_reason));
	printf("verdict: %s\n", check_verdict_name(ck->verdict));
}

/* check_json_host - one element of "hosts" */
static void
check_json_host(struct buf *b, const struct check *ck,
    const struct check_host *h)
{
	const struct check_probe_result *p = &h->probe;
	char	 t[32];
	size_t	 j;

	buf_append_char(b, '{');
	buf_json_key(b, "host");
	buf_json_cstr(b, h->d.name);
	buf_json_key(b, "preference");
	buf_appendf(b, "%u", (unsigned)h->d.preference);
	buf_json_key(b, "addresses");
	buf_append_char(b, '[');
	for (j = 0; j < h->d.naddr_text; j++) {
		if (j > 0)
			buf_append_char(b, ',');
		buf_json_cstr(b, h->d.addr[j]);
	}
	buf_append_char(b, ']');
	buf_json_key(b, "a_dnssec");
	buf_json_cstr(b, dns_security_name(h->d.a_security));
	buf_json_key(b, "aaaa_dnssec");
	buf_json_cstr(b, dns_security_name(h->d.aaaa_security));
	buf_json_key(b, "tlsa_name");
	buf_json_cstr(b, h->d.tlsa_looked ? h->d.tlsa_name : NULL);
	buf_json_key(b, "tlsa_dnssec");
	buf_json_cstr(b, h->d.tlsa_looked ?
	    dns_security_name(h->d.tlsa_security) : NULL);
	buf_json_key(b, "tlsa_records");
	buf_appendf(b, "%zu", h->d.ntlsa);
	buf_json_key(b, "tlsa_usable");
	buf_appendf(b, "%zu", h->nusable);
	buf_json_key(b, "requirement");
	buf_json_cstr(b, check_verdict_require_name(h->require));
	buf_json_key(b, "mx_match");
	if (ck->policy != NULL)
		buf_append_str(b, h->mx_match ? "true" : "false");
	else
		buf_append_str(b, "null");
	buf_json_key(b, "address");
	buf_json_cstr(b, p->addr[0] != '\0' ? p->addr : NULL);
	buf_json_key(b, "port");
	buf_appendf(b, "%d", ck->port);
	tool_json_bool(b, "connected", p->connected);
	buf_json_key(b, "greeting");
	buf_json_cstr(b, p->connected ? p->greeting : NULL);
	tool_json_bool(b, "smtp_ok", p->smtp_ok);
	tool_json_bool(b, "starttls", p->starttls);
	tool_json_bool(b, "tls", p->tls);
	buf_json_key(b, "tls_version");
	buf_json_cstr(b, p->tls ? p->tls_version : NULL);
	buf_json_key(b, "cipher");
	buf_json_cstr(b, p->tls ? p->cipher : NULL);
	buf_json_key(b, "chain");
	buf_append_char(b, '[');
	for (j = 0; j < p->nchain; j++) {
		if (j > 0)
			buf_append_char(b, ',');
		buf_append_char(b, '{');
		buf_json_key(b, "subject");
		buf_json_cstr(b, p->chain[j].subject);
		buf_json_key(b, "issuer");
		buf_json_cstr(b, p->chain[j].issuer);
		buf_json_key(b, "not_before");
		buf_json_cstr(b, check_time(p->chain[j].not_before, t,
		    sizeof(t)));
		buf_json_key(b, "not_after");
		buf_json_cstr(b, check_time(p->chain[j].not_after, t,
		    sizeof(t)));
		buf_append_char(b, '}');
	}
	buf_append_char(b, ']');
	buf_json_key(b, "pkix_valid");
	buf_append_str(b, !p->tls ? "null" : p->pkix_ok ? "true" : "false");
	buf_json_key(b, "pkix_status");
	buf_json_cstr(b, p->tls ? p->pkix_status : NULL);
	buf_json_key(b, "name_match");
	buf_append_str(b, p->nchain == 0 ? "null" : p->name_ok ? "true" :
	    "false");
	buf_json_key(b, "expiry_days");
	if (p->nchain > 0)
		buf_appendf(b, "%ld", p->expiry_days);
	else
		buf_append_str(b, "null");
	buf_json_key(b, "dane");
	buf_json_cstr(b, check_verdict_dane_name(h->dane));
	buf_json_key(b, "dane_note");
	buf_json_cstr(b, h->dane_note);
	buf_json_key(b, "dane_status");
	buf_json_cstr(b, p->dane_checked ? p->dane_status : NULL);
	buf_json_key(b, "error");
	buf_json_cstr(b, p->error[0] != '\0' ? p->error : NULL);
	buf_json_key(b, "elapsed_ms");
	buf_appendf(b, "%ld", p->elapsed_ms);
	buf_json_key(b, "verdict");
	buf_json_cstr(b, check_verdict_name(h->verdict));
	buf_json_key(b, "reason");
	buf_json_cstr(b, h->reason);
	buf_append_char(b, '}');
}

/* check_print_json - the same facts as one JSON object */
static void
check_print_json(const struct check *ck)
{
	struct buf	 b;
	char		 rc[16];
	size_t		 i;

	buf_init(&b, CHECK_JSON_MAX);
	buf_append_char(&b, '{');
	buf_json_key(&b, "domain");
	buf_json_cstr(&b, ck->domain);
	buf_json_key(&b, "mx");
	buf_append_char(&b, '{');
	buf_json_key(&b, "status");
	buf_json_cstr(&b, dns_status_name(ck->mx_status));
	buf_json_key(&b, "rcode");
	buf_json_cstr(&b, ck->mx_status == DNS_OK ?
	    dns_rcode_name(ck->mx_rcode, rc, sizeof(rc)) : NULL);
	buf_json_key(&b, "dnssec");
	buf_json_cstr(&b, dns_security_name(ck->mx_sec));
	tool_json_bool(&b, "implicit", ck->implicit_mx);
	tool_json_bool(&b, "null_mx", ck->null_mx);
	buf_json_key(&b, "note");
	buf_json_cstr(&b, ck->mx_note[0] != '\0' ? ck->mx_note : NULL);
	buf_append_char(&b, '}');
	buf_json_key(&b, "dane_state");	/* dane.c's, as the daemon's */
	buf_json_cstr(&b, dane_state_name(ck->dane_state));

	buf_json_key(&b, "sts");
	buf_append_char(&b, '{');
	tool_json_outcome(&b, ck->sts_outcome, ck->sts_failure);
	buf_json_key(&b, "detail");
	buf_json_cstr(&b, ck->sts_detail);
	buf_json_key(&b, "txt_dnssec");
	buf_json_cstr(&b, dns_security_name(ck->sts_txt_sec));
	buf_json_key(&b, "id");
	buf_json_cstr(&b, ck->sts_id);
	buf_json_key(&b, "mode");
	buf_json_cstr(&b, ck->policy != NULL ?
	    sts_policy_mode_name(ck->policy->mode) : NULL);
	buf_json_key(&b, "max_age");
	if (ck->policy != NULL)
		buf_appendf(&b, "%lu", (unsigned long)ck->policy->max_age);
	else
		buf_append_str(&b, "null");
	buf_json_key(&b, "mx");
	tool_json_mx(&b, ck->policy);
	buf_json_key(&b, "policy_error");
	buf_json_cstr(&b, ck->policy_why);
	buf_append_char(&b, '}');

	buf_json_key(&b, "tlsrpt");
	buf_append_char(&b, '{');
	buf_json_key(&b, "record");
	buf_json_cstr(&b, ck->tlsrpt);
	buf_json_key(&b, "note");
	buf_json_cstr(&b, ck->tlsrpt_note);
	buf_json_key(&b, "dnssec");
	buf_json_cstr(&b, dns_security_name(ck->tlsrpt_sec));
	buf_append_char(&b, '}');

	buf_json_key(&b, "hosts");
	buf_append_char(&b, '[');
	for (i = 0; i < ck->nhosts; i++) {
		if (i > 0)
			buf_append_char(&b, ',');
		check_json_host(&b, ck, &ck->hosts[i]);
	}
	buf_append_char(&b, ']');
	buf_json_key(&b, "domain_verdict");
	buf_json_cstr(&b, check_verdict_name(ck->domain_verdict));
	buf_json_key(&b, "domain_reason");
	buf_json_cstr(&b, ck->domain_reason);
	buf_json_key(&b, "verdict");
	buf_json_cstr(&b, check_verdict_name(ck->verdict));
	buf_json_key(&b, "exit");
	buf_appendf(&b, "%d", (int)ck->verdict);
	buf_append_char(&b, '}');
	(void)tool_json_print(&check_tool, &b);
}

/* check_helo_default - this host's name if it is a host name of two
 * labels or more (domain_check), else a name that says what we are */
static void
check_helo_default(char *out, size_t outsz)
{
	char	 name[DOMAIN_BUFSZ], canon[DOMAIN_BUFSZ];

	if (gethostname(name, sizeof(name)) == -1)
		name[0] = '\0';
	name[sizeof(name) - 1] = '\0';
	if (domain_check(name, strlen(name), 0, 2, canon) == DOMAIN_CHECK_OK)
		snprintf(out, outsz, "%s", canon);
	else
		snprintf(out, outsz, "postsmtpsts-check.invalid");
}

/* check_free - the copies kept in ck */
static void
check_free(struct check *ck)
{
	size_t	 i, j;

	for (i = 0; i < ck->nhosts; i++)
		for (j = 0; j < ck->hosts[i].nusable; j++)
			free(ck->hosts[i].tlsa_copy[j]);
	free(ck->sts_detail);
	free(ck->sts_id);
	free(ck->policy);
	free(ck->policy_why);
	free(ck->tlsrpt);
	free(ck->tlsrpt_note);
}

/* check_options - the command line; returns the first operand's index */
static int
check_options(int argc, char *argv[], struct tool_opts *to,
    struct check_own *own, char *helo, size_t helosz)
{
	int	 ch;

	memset(to, 0, sizeof(*to));
	memset(own, 0, sizeof(*own));
	own->port = 25;
	own->warn_days = CHECK_DEFAULT_WARN_DAYS;
	while ((ch = tool_getopt(&check_tool, argc, argv, to)) != -1) {
		switch (ch) {
		case CHECK_OPT_PORT:
			own->port = (int)tool_number(&check_tool, optarg,
			    "--port", 1, 65535);
			break;
		case CHECK_OPT_WARN_DAYS:
			own->warn_days = tool_number(&check_tool, optarg,
			    "--warn-days", 0, CHECK_MAX_WARN_DAYS);
			break;
		case CHECK_OPT_HELO:
			own->helo = optarg;
			break;
		default:
			tool_usage(&check_tool);
		}
	}
	if (to->timeout == 0)
		to->timeout = CHECK_DEFAULT_TIMEOUT;
	log_set_verbose(to->verbose);
	if (own->helo == NULL)
		check_helo_default(helo, helosz);
	else if (domain_normalize(own->helo, strlen(own->helo), helo) !=
	    DOMAIN_OK) {
		fprintf(stderr, "postsmtpsts-check: --helo: not a host name\n");
		exit(CHECK_EXIT_ERROR);
	}
	return (optind);
}

/* check_lookups - the MTA-STS discovery and the DANE walk, in parallel;
 * 0 when both are done, -1 after an error message */
static int
check_lookups(struct check *ck, const struct config_dns *dcf,
    const struct config_https *hcf, int dns_timeout, struct https **https)
{
	struct dane_opts dopt;
	struct discover	*dv;
	struct dane	*dn;
	char		 err[TOOL_ERR_MAX];

	if ((ck->base = event_base_new()) == NULL)
		fatalx("cannot create an event base");
	if ((ck->dns = dns_new(ck->base, dcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-check: dns: %s\n", err);
		return (-1);
	}
	dns_set_timeout(ck->dns, dns_timeout * 1000);
	if ((*https = https_new(ck->base, hcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-check: https: %s\n", err);
		return (-1);
	}
	dv = discover_start_flags(ck->dns, *https, ck->domain, NULL,
	    DISCOVER_TLSRPT | DISCOVER_ALL_ADDRESSES, check_discovered, ck);
	memset(&dopt, 0, sizeof(dopt));
	dopt.port = ck->port;
	dopt.all_hosts = 1;
	dopt.keep_rdata = 1;
	dopt.all_addresses = 1;	/* every address is probed */
	dn = dane_start_opts(ck->dns, ck->domain, &dopt, check_dane_done, ck);
	event_base_dispatch(ck->base);
	if (!ck->discover_done || !ck->mx_done) {
		fprintf(stderr, "postsmtpsts-check: event loop ended early\n");
		if (!ck->discover_done)
			discover_cancel(dv);
		if (!ck->mx_done)
			dane_cancel(dn);
		return (-1);
	}
	return (0);
}

/* check_verdicts - the domain's verdict and the overall one */
static void
check_verdicts(struct check *ck)
{
	struct check_verdict_domain vd;
	size_t	 i;

	memset(&vd, 0, sizeof(vd));
	vd.mx_failed = ck->mx_failed;
	vd.nhosts = ck->nhosts;
	vd.sts_failed = ck->sts_outcome == DISCOVER_FAILURE &&
	    ck->sts_failure != DISCOVER_FAIL_TXT_INVALID;
	ck->domain_verdict = check_verdict_domain(&vd, ck->domain_reason,
	    sizeof(ck->domain_reason));
	ck->verdict = ck->domain_verdict;
	for (i = 0; i < ck->nhosts; i++)
		if (ck->hosts[i].verdict > ck->verdict)
			ck->verdict = ck->hosts[i].verdict;
}

int
main(int argc, char *argv[])
{
	struct check		 ck;
	struct check_own	 own;
	struct tool_opts	 to;
	struct config_dns	 dcf;
	struct config_https	 hcf;
	struct config		*cf = NULL;
	struct check_probe_tls	*tls = NULL;
	struct https		*https = NULL;
	char			 err[TOOL_ERR_MAX], domain[DOMAIN_BUFSZ];
	char			 esc[TOOL_ESC_MAX], helo[DOMAIN_BUFSZ];
	char			**ubopt = NULL;
	enum domain_status	 ds;
	int			 i, rc = CHECK_EXIT_ERROR;

	memset(&ck, 0, sizeof(ck));
	log_init("postsmtpsts-check", 1, 0);
	/* a server that hangs up mid-write is an error to report, not a
	 * reason to die */
	signal(SIGPIPE, SIG_IGN);
	i = check_options(argc, argv, &to, &own, helo, sizeof(helo));
	if (argc - i != 1)
		tool_usage(&check_tool);
	if (tool_settings(&check_tool, &to, &cf, &dcf, &hcf, &ubopt) == -1)
		return (CHECK_EXIT_ERROR);
	hcf.connect_timeout = hcf.timeout = to.timeout;
	if ((ds = domain_normalize(argv[i], strlen(argv[i]), domain)) !=
	    DOMAIN_OK) {
		fprintf(stderr, "postsmtpsts-check: %s: %s: not a mail "
		    "domain\n", tool_esc(esc, argv[i], strlen(argv[i])),
		    domain_status_name(ds));
		goto out;
	}
	if ((tls = check_probe_tls_new(hcf.ca_file, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "postsmtpsts-check: %s\n", err);
		goto out;
	}
	ck.domain = domain;
	ck.port = own.port;
	if (check_lookups(&ck, &dcf, &hcf, to.dns_timeout > 0 ?
	    to.dns_timeout : to.timeout, &https) == -1)
		goto out;
	check_run_hosts(&ck, tls, to.timeout * 1000, own.warn_days, helo);
	check_verdicts(&ck);
	if (to.json)
		check_print_json(&ck);
	else
		check_print_text(&ck);
	rc = (int)ck.verdict;
out:
	https_free(https);
	dns_free(ck.dns);
	if (ck.base != NULL)
		event_base_free(ck.base);
	check_probe_tls_free(tls);
	check_free(&ck);
	free(ubopt);
	config_free(cf);
	return (rc);
}
