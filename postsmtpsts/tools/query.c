/*
 * query.c - postsmtpsts-query: DANE and MTA-STS discovery for one domain
 *
 *	postsmtpsts-query [-v] [-c config] [--json] [options] DOMAIN
 *	postsmtpsts-query --socketmap ADDRESS DOMAIN [MAPNAME]
 *
 * The same pipeline the resolver process runs (dane.c on dns.c, then
 * discover.c on dns.c and https.c, then decide.c), once, on an event base
 * of its own, without the daemon and without the cache.  The DANE part
 * prints every MX host, its address and TLSA records with their DNSSEC
 * status, and why DANE applies to it or not.  Every step is printed for a human (TXT
 * records and their DNSSEC status, the policy host's addresses, URL,
 * connect address, HTTP status and media type, the policy text, the parse
 * result, the TLSRPT record), then the exact Postfix answer and whether
 * Postfix 3.11 would deliver a REQUIRETLS message (RFC 8689) with it
 * (policy/requiretls.c: yes, no, or depends on the MX host, and why).
 * --json prints the same facts as one JSON object for scripts.
 *
 * Exit status: 0 a policy was found (or the domain is pinned), 1 the
 * domain has none, 2 an error (discovery failed or did not finish within
 * --timeout, bad usage or configuration).
 *
 * Settings come from -c FILE (config_load) or, without it, the daemon's
 * defaults; with -c, a pinned domain ("domain" section) gets the pin's
 * answer, as from the daemon (both start decide()'s input with
 * pins_decide_input), and a timed exception is shown with its end, or as
 * lapsed once the end has passed (then discovery answers, as in the
 * daemon).  The command-line options (tool.c: --trust-anchor,
 * --root-hints, --forwarder, --resolv-conf, --unbound-config,
 * --unbound-option, --ca-file, --proxy; here --testing, --tlsrpt) override
 * the file: operators use them to test a resolver or CA set-up before
 * putting it in the file.  --timeout bounds the whole discovery (DNS and
 * HTTPS together); --dns-timeout and --https-timeout (--connect-timeout)
 * bound single DNS queries and HTTPS fetches and default to --timeout.
 *
 * --socketmap asks a running daemon instead (query_sm.c): the reply it
 * gives Postfix, printed as "reply: ...".
 *
 * RFC 8461 §3 (discovery), §5 (what the answer means), RFC 8460 §3
 * (TLSRPT record).  All text that came from the network is escaped before
 * it is printed (log_escape; JSON escaping for --json).
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "policy/facts.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/preload_store.h"
#include "lib/sockmap.h"
#include "policy/pins.h"
#include "policy/requiretls.h"
#include "policy/sts_policy.h"
#include "lib/xmalloc.h"
#include "tools/query_decide.h"
#include "tools/query_sm.h"
#include "tools/tool.h"
#include "tools/tool_json.h"

#define QUERY_EXIT_POLICY	0
#define QUERY_EXIT_NONE		1
#define QUERY_EXIT_ERROR	TOOL_EXIT_USAGE
#define QUERY_ANSWER_MAX	100000	/* SOCKMAP reply limit */
#define QUERY_ESC_MAX		TOOL_ESC_MAX
#define QUERY_DEFAULT_TIMEOUT	10	/* seconds, the whole discovery */

struct query {
	int		 json;
	int		 exit_code;
	int		 done;
	struct event_base *base;
	const struct config *cf;	/* pins; NULL without -c */
	struct decide_options dopt;
	int		 dane_on;	/* the map has dane = yes */
	struct dns	*dns;
	struct https	*https;
	const char	*domain;
	const char	*known_id;
	struct dane	*dn;
	struct discover	*dv;
	/* the DANE result, copied: discovery runs after it */
	int		 dane_done;
	struct dane_result dres;
	struct dane_host dhosts[DANE_MAX_HOSTS];
	char		 ddetail[256];
	/* the domain's entry in the preload store (issue 38), if any */
	int		 have_preload;
	struct preload_store_hit phit;
	char		 pmx[PRELOAD_STORE_MAX_MX];
};

/* postsmtpsts-query's own options (tool.h has the shared ones) */
struct query_own {
	const char	*map;
	const char	*known_id;
	const char	*socketmap;	/* --socketmap ADDRESS */
	int		 https_timeout;
	int		 connect_timeout;
	int		 testing;	/* -1, or enum decide_testing */
	int		 tlsrpt;	/* -1, 0 or 1 */
};

enum {
	QUERY_OPT_CONNECT_TIMEOUT = TOOL_OPT_OWN,
	QUERY_OPT_HTTPS_TIMEOUT,
	QUERY_OPT_KNOWN_ID,
	QUERY_OPT_TESTING,
	QUERY_OPT_TLSRPT,
	QUERY_OPT_MAP,
	QUERY_OPT_SOCKETMAP,
};

static const struct option query_longopts[] = {
	{ "connect-timeout", required_argument, NULL,
	    QUERY_OPT_CONNECT_TIMEOUT },
	{ "https-timeout", required_argument, NULL, QUERY_OPT_HTTPS_TIMEOUT },
	{ "known-id", required_argument, NULL, QUERY_OPT_KNOWN_ID },
	{ "testing", required_argument, NULL, QUERY_OPT_TESTING },
	{ "tlsrpt", no_argument, NULL, QUERY_OPT_TLSRPT },
	{ "map", required_argument, NULL, QUERY_OPT_MAP },
	{ "socketmap", required_argument, NULL, QUERY_OPT_SOCKETMAP },
	{ NULL, 0, NULL, 0 },
};

static const struct tool query_tool = {
	"postsmtpsts-query",
	"usage: postsmtpsts-query [-v] [-c config] [--map name] [--json] "
	"[--known-id ID]\n"
	"\t[--trust-anchor file] [--root-hints file] [--forwarder addr]\n"
	"\t[--resolv-conf] [--unbound-config file] "
	"[--unbound-option 'name: value']\n"
	"\t[--ca-file file] [--proxy url] [--timeout s] [--dns-timeout s]\n"
	"\t[--https-timeout s] [--connect-timeout s] "
	"[--testing notfound|may] [--tlsrpt]\n"
	"\tDOMAIN\n"
	"       postsmtpsts-query [--timeout s] --socketmap ADDRESS DOMAIN "
	"[MAPNAME]\n"
	"       postsmtpsts-query -h | --help | -V | --version\n"
	"  --timeout s      bound the whole discovery, DNS and HTTPS "
	"(default 10)\n"
	"  --socketmap A    ask the daemon listening at A (unix:/path or "
	"inet:host:port)\n"
	"                   what it answers Postfix for DOMAIN (map "
	"MAPNAME, default postfix)\n",
	"",
	query_longopts,
	TOOL_WITH_RESOLVER,
};

/* query_esc - untrusted text p[0..len) made printable (log_escape) */
static const char *
query_esc(char *out, const char *p, size_t len)
{
	return (tool_esc(out, p, len));
}

/* query_tlsa_hex - the first bytes of a TLSA record's data, in hex */
static const char *
query_tlsa_hex(const struct dane_tlsa *t, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, n = t->len < DANE_MAX_DATA ? t->len : DANE_MAX_DATA;

	if (outsz < 2 * DANE_MAX_DATA + 4)
		return ("");
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[t->data[i] >> 4];
		out[2 * i + 1] = hex[t->data[i] & 0xf];
	}
	out[2 * n] = '\0';
	if (n < t->len)
		memcpy(out + 2 * n, "...", 4);
	return (out);
}

/* query_rrtype_name - "A", "AAAA", "TLSA" for a failed host lookup */
static const char *
query_rrtype_name(int rrtype)
{
	return (rrtype == DNS_TYPE_A ? "A" : rrtype == DNS_TYPE_AAAA ? "AAAA" :
	    "TLSA");
}

/* query_print_dane - the DANE part of the human-readable report */
static void
query_print_dane(const struct query *qy)
{
	const struct dane_result *d = &qy->dres;
	const struct dane_host *h;
	const struct dane_tlsa *t;
	char		 hex[2 * DANE_MAX_DATA + 4], ub[16], esc[QUERY_ESC_MAX];
	size_t		 i, k;

	if (!qy->dane_on) {
		printf("DANE: not looked up (the map has dane = no)\n");
		return;
	}
	printf("MX %s: DNSSEC %s, %zu record%s%s%s\n", d->domain,
	    dns_security_name(d->mx_security), d->nmx, d->nmx == 1 ? "" :
	    "s", d->implicit_mx ? " (none: the domain is its own implicit "
	    "MX)" : "", d->null_mx ? " (null MX)" : "");
	for (i = 0; i < d->nhosts; i++) {
		h = &d->hosts[i];
		printf("  MX %u %s: address DNSSEC %s (%zu address%s)",
		    (unsigned)h->preference, h->name,
		    dns_security_name(h->addr_security), h->naddrs,
		    h->naddrs == 1 ? "" : "es");
		if (h->tlsa_looked)
			printf(", TLSA %s: DNSSEC %s, %zu record%s",
			    h->tlsa_name, dns_security_name(h->tlsa_security),
			    h->ntlsa, h->ntlsa == 1 ? "" : "s");
		printf("\n");
		for (k = 0; k < h->ntlsa; k++) {
			t = &h->tlsa[k];
			printf("    TLSA %u %u %u %s (%s%s)\n", t->usage,
			    t->selector, t->mtype, query_tlsa_hex(t, hex,
			    sizeof(hex)), dane_usage_name(t->usage, ub,
			    sizeof(ub)), t->usable ? ", usable" :
			    ", unusable for SMTP");
		}
		if (h->state == DANE_FAILURE && h->fail != DANE_FAIL_NONE)
			printf("    DANE: unknown, %s lookup failed: %s; host "
			    "left to Postfix, which skips it (%s)\n",
			    query_rrtype_name(h->fail_rrtype),
			    dane_fail_name(h->fail), h->why);
		else
			printf("    DANE: %s (%s)\n", h->state == DANE_ALL ?
			    "yes" : h->state == DANE_TLS ?
			    "no, but TLS required" : h->state ==
			    DANE_FAILURE ? "unknown, lookup failed" : "no",
			    h->why);
	}
	printf("DANE: %s, ttl %d (%s)\n", dane_state_name(d->state), d->ttl,
	    query_esc(esc, d->detail, strlen(d->detail)));
}

/* query_json_dane - the DANE part as a JSON object value */
static void
query_json_dane(struct buf *b, const struct query *qy)
{
	const struct dane_result *d = &qy->dres;
	const struct dane_host *h;
	const struct dane_tlsa *t;
	char		 hex[2 * DANE_MAX_DATA + 4], ub[16];
	size_t		 i, k;

	if (!qy->dane_on) {
		buf_append_str(b, "null");
		return;
	}
	buf_append_char(b, '{');
	buf_json_key(b, "state");
	buf_json_cstr(b, dane_state_name(d->state));
	buf_json_key(b, "detail");
	buf_json_cstr(b, d->detail);
	buf_json_key(b, "ttl");
	buf_appendf(b, "%d", d->ttl);
	buf_json_key(b, "mx_dnssec");
	buf_json_cstr(b, dns_security_name(d->mx_security));
	buf_json_key(b, "implicit_mx");
	buf_append_str(b, d->implicit_mx ? "true" : "false");
	buf_json_key(b, "null_mx");
	buf_append_str(b, d->null_mx ? "true" : "false");
	buf_json_key(b, "hosts");
	buf_append_char(b, '[');
	for (i = 0; i < d->nhosts; i++) {
		h = &d->hosts[i];
		buf_append_char(b, '{');
		buf_json_key(b, "name");
		buf_json_cstr(b, h->name);
		buf_json_key(b, "preference");
		buf_appendf(b, "%u", (unsigned)h->preference);
		buf_json_key(b, "address_dnssec");
		buf_json_cstr(b, dns_security_name(h->addr_security));
		buf_json_key(b, "addresses");
		buf_appendf(b, "%zu", h->naddrs);
		buf_json_key(b, "tlsa_name");
		buf_json_cstr(b, h->tlsa_looked ? h->tlsa_name : NULL);
		buf_json_key(b, "tlsa_dnssec");
		buf_json_cstr(b, h->tlsa_looked ?
		    dns_security_name(h->tlsa_security) : NULL);
		buf_json_key(b, "tlsa");
		buf_append_char(b, '[');
		for (k = 0; k < h->ntlsa; k++) {
			t = &h->tlsa[k];
			if (k > 0)
				buf_append_char(b, ',');
			buf_appendf(b, "{\"usage\":%u,\"selector\":%u,"
			    "\"mtype\":%u,\"usage_name\":\"%s\","
			    "\"data\":\"%s\",\"usable\":%s}", t->usage,
			    t->selector, t->mtype, dane_usage_name(t->usage,
			    ub, sizeof(ub)), query_tlsa_hex(t, hex,
			    sizeof(hex)), t->usable ? "true" : "false");
		}
		buf_append_char(b, ']');
		buf_json_key(b, "dane");
		buf_json_cstr(b, dane_state_name(h->state));
		buf_json_key(b, "why");
		buf_json_cstr(b, h->why);
		buf_json_key(b, "failure");
		buf_json_cstr(b, h->fail == DANE_FAIL_NONE ? NULL :
		    dane_fail_name(h->fail));
		buf_json_key(b, "failed_type");
		buf_json_cstr(b, h->fail == DANE_FAIL_NONE ? NULL :
		    query_rrtype_name(h->fail_rrtype));
		buf_json_key(b, "left_to_postfix");
		buf_append_str(b, h->state == DANE_FAILURE ? "true" : "false");
		buf_append_char(b, '}');
		if (i + 1 < d->nhosts)
			buf_append_char(b, ',');
	}
	buf_append_str(b, "]}");
}

/* query_print_pin - the pin line of the report: in force (with its
 * end, for an exception) or lapsed */
static void
query_print_pin(const struct config *cf, enum pins_state ps,
    const struct config_domain *d)
{
	char		 ut[PINS_UNTIL_TEXT_MAX], t[PINS_UNTIL_BUFSZ];

	if (ps == PINS_IN_FORCE && d->until == NULL)
		printf("pinned: the configuration's domain section decides\n");
	else if (ps == PINS_IN_FORCE)
		printf("pinned: the configuration's domain section decides, "
		    "an exception until %s\n", pins_until_text(d, ut));
	else if (ps == PINS_LAPSED)
		printf("pin: lapsed at %s (until %s, %s:%d): discovery "
		    "decides; remove the domain section\n",
		    pins_until_format(d->end, t), d->until, cf->file, d->line);
}

/* query_print_requiretls - the REQUIRETLS line of the report: would
 * Postfix 3.11 deliver a REQUIRETLS message (RFC 8689) with answer */
static void
query_print_requiretls(const char *answer)
{
	enum requiretls_verdict v;
	const char	*why;

	v = requiretls_verdict(requiretls_level_of_reply(answer,
	    strlen(answer)), &why);
	printf("requiretls: %s (%s)\n", requiretls_verdict_name(v), why);
}

/* query_time - t as ISO 8601 UTC, in a static buffer (one per call
 * site's argument list: two per printf at most) */
static const char *
query_time(int64_t t)
{
	static char	 buf[2][32];
	static int	 k;
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	k ^= 1;
	if (gmtime_r(&tt, &tm) == NULL || strftime(buf[k], sizeof(buf[k]),
	    "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf[k], sizeof(buf[k]), "%lld", (long long)t);
	return (buf[k]);
}

/*
 * query_preload - the domain's preload entry (issue 38), as the worker
 * reads it: from the configuration's preload store, unexpired; kept in
 * qy for the report whether or not it is used.  NULL if none.
 */
static const struct decide_preload *
query_preload(struct query *qy, struct decide_preload *p)
{
	struct preload_store *ps;
	char		 err[512];
	const char	*path = qy->cf != NULL ? qy->cf->preload.path :
			    CONFIG_DEFAULT_PRELOAD_PATH;

	if ((ps = preload_store_open(path, 1, err, sizeof(err))) == NULL)
		return (NULL);
	if (preload_store_get(ps, qy->domain, &qy->phit) == 1 &&
	    qy->phit.mxlen <= sizeof(qy->pmx)) {
		memcpy(qy->pmx, qy->phit.mx, qy->phit.mxlen);
		qy->phit.mx = qy->pmx;
		qy->have_preload = 1;
	}
	preload_store_close(ps);
	if (!qy->have_preload || qy->phit.expires <= clock_wall())
		return (NULL);
	p->enforce = qy->phit.mode == 2;
	p->nmx = qy->phit.nmx;
	p->mx = qy->pmx;
	p->mxlen = qy->phit.mxlen;
	return (p);
}

/* query_print_preload - the preload line of the text report */
static void
query_print_preload(const struct query *qy)
{
	if (!qy->have_preload)
		return;
	printf("preload: list %s, timestamp %s, ", qy->phit.list,
	    query_time(qy->phit.timestamp));
	printf("expires %s%s, mode %s\n", query_time(qy->phit.expires),
	    qy->phit.expires <= clock_wall() ? " (expired: not used)" : "",
	    qy->phit.mode == 2 ? "enforce" : "testing");
}

/* query_print_text - the human-readable report */
static void
query_print_text(const struct query *qy, const struct discover_result *r,
    enum pins_state ps, const struct config_domain *pd,
    const struct decide_result *res, const char *answer)
{
	char		 esc[QUERY_ESC_MAX], rc[16];
	const char	*line, *nl, *mx;
	size_t		 i, pos, len;

	printf("domain: %s\n", r->domain);
	query_print_dane(qy);
	printf("TXT %s: ", r->txt_name);
	if (r->txt_status != DNS_OK)
		printf("%s", dns_status_name(r->txt_status));
	else
		printf("%s", dns_rcode_name(r->txt_rcode, rc, sizeof(rc)));
	printf(", DNSSEC %s", dns_security_name(r->txt_security));
	if (r->txt_why_bogus != NULL)
		printf(" (%s)", query_esc(esc, r->txt_why_bogus,
		    strlen(r->txt_why_bogus)));
	printf(", %zu record%s\n", r->ntxt, r->ntxt == 1 ? "" : "s");
	for (i = 0; i < r->ntxt; i++)
		printf("  \"%s\"\n", query_esc(esc, r->txt[i],
		    strlen(r->txt[i])));
	if (r->record_checked)
		printf("STS record: %s%s%s\n",
		    sts_record_status_name(r->record_status),
		    r->id != NULL ? ", id " : "", r->id != NULL ? r->id : "");
	if (r->addrs_checked) {
		printf("policy host: %s (A: DNSSEC %s, AAAA: DNSSEC %s)\n",
		    r->policy_host, dns_security_name(r->a_security),
		    dns_security_name(r->aaaa_security));
		for (i = 0; i < r->naddrs; i++)
			printf("  address %s\n", r->addrs[i]);
	}
	if (r->fetched) {
		printf("URL: %s\n", r->url);
		printf("connected to: %s\n", r->connect_addr[0] != '\0' ?
		    r->connect_addr : "(none)");
		printf("HTTP status: %ld, media type: %s\n", r->http_status,
		    r->content_type != NULL ? query_esc(esc, r->content_type,
		    strlen(r->content_type)) : "(none)");
		printf("fetch: %s\n", https_error_name(r->https_error));
	}
	if (r->policy_text != NULL) {
		printf("policy text (%zu bytes):\n", r->policy_len);
		for (pos = 0; pos < r->policy_len; pos += len + 1) {
			line = r->policy_text + pos;
			nl = memchr(line, '\n', r->policy_len - pos);
			len = nl != NULL ? (size_t)(nl - line) :
			    r->policy_len - pos;
			printf("  %s\n", query_esc(esc, line, len));
		}
	}
	if (r->policy != NULL) {
		printf("policy: valid, mode %s, max_age %lu, mx",
		    sts_policy_mode_name(r->policy->mode),
		    (unsigned long)r->policy->max_age);
		for (i = 0; (mx = sts_policy_mx_next(r->policy, &i, NULL)) !=
		    NULL; )
			printf(" %s", mx);
		printf("\n");
	} else if (r->policy_why != NULL)
		printf("policy: invalid: %s\n", r->policy_why);
	printf("TLSRPT %s%s: ", "_smtp._tls.", r->domain);
	if (r->tlsrpt != NULL)
		printf("\"%s\"\n", query_esc(esc, r->tlsrpt,
		    strlen(r->tlsrpt)));
	else
		printf("none (%s)\n", r->tlsrpt_note);
	printf("outcome: %s", discover_outcome_name(r->outcome));
	if (r->outcome == DISCOVER_FAILURE)
		printf(", failure %s (TLSRPT %s)",
		    discover_failure_name(r->failure),
		    discover_tlsrpt_result_type(r->failure));
	printf("\n");
	printf("detail: %s\n", query_esc(esc, r->detail, strlen(r->detail)));
	query_print_pin(qy->cf, ps, pd);
	query_print_preload(qy);
	printf("source: %s", decide_source_name(res->source));
	if (res->source == DECIDE_SOURCE_PRELOAD)
		printf(" %s %s", qy->phit.list, query_time(qy->phit.timestamp));
	printf("\n");
	printf("answer: %s\n", answer);
	query_print_requiretls(answer);
}

/* query_print_json - the same facts as one JSON object */
static void
query_print_json(const struct query *qy, const struct discover_result *r,
    enum pins_state ps, const struct config_domain *pd,
    const struct decide_result *res, const char *answer)
{
	struct buf	 b;
	char		 rc[16];
	size_t		 i, pos, len;
	const char	*line;

	buf_init(&b, 4 * QUERY_ANSWER_MAX + 16 * HTTPS_MAX_BODY);
	buf_append_char(&b, '{');
	buf_json_key(&b, "domain");
	buf_json_cstr(&b, r->domain);
	buf_json_key(&b, "dane");
	query_json_dane(&b, qy);
	tool_json_outcome(&b, r->outcome, r->failure);
	buf_json_key(&b, "tlsrpt_result_type");
	buf_json_cstr(&b, r->outcome == DISCOVER_FAILURE ?
	    discover_tlsrpt_result_type(r->failure) : NULL);
	buf_json_key(&b, "detail");
	buf_json_cstr(&b, r->detail);

	buf_json_key(&b, "txt");
	buf_append_char(&b, '{');
	buf_json_key(&b, "name");
	buf_json_cstr(&b, r->txt_name);
	buf_json_key(&b, "status");
	buf_json_cstr(&b, dns_status_name(r->txt_status));
	buf_json_key(&b, "rcode");
	buf_json_cstr(&b, r->txt_status == DNS_OK ?
	    dns_rcode_name(r->txt_rcode, rc, sizeof(rc)) : NULL);
	buf_json_key(&b, "dnssec");
	buf_json_cstr(&b, dns_security_name(r->txt_security));
	buf_json_key(&b, "why_bogus");
	buf_json_cstr(&b, r->txt_why_bogus);
	buf_json_key(&b, "records");
	buf_append_char(&b, '[');
	for (i = 0; i < r->ntxt; i++) {
		if (i > 0)
			buf_append_char(&b, ',');
		buf_json_cstr(&b, r->txt[i]);
	}
	buf_append_char(&b, ']');
	buf_json_key(&b, "record_status");
	buf_json_cstr(&b, r->record_checked ?
	    sts_record_status_name(r->record_status) : NULL);
	buf_json_key(&b, "id");
	buf_json_cstr(&b, r->id);
	buf_append_char(&b, '}');

	buf_json_key(&b, "policy_host");
	buf_append_char(&b, '{');
	buf_json_key(&b, "name");
	buf_json_cstr(&b, r->policy_host);
	buf_json_key(&b, "a_dnssec");
	buf_json_cstr(&b, r->addrs_checked ?
	    dns_security_name(r->a_security) : NULL);
	buf_json_key(&b, "aaaa_dnssec");
	buf_json_cstr(&b, r->addrs_checked ?
	    dns_security_name(r->aaaa_security) : NULL);
	buf_json_key(&b, "addresses");
	buf_append_char(&b, '[');
	for (i = 0; i < r->naddrs; i++) {
		if (i > 0)
			buf_append_char(&b, ',');
		buf_json_cstr(&b, r->addrs[i]);
	}
	buf_append_str(&b, "]}");

	buf_json_key(&b, "fetch");
	if (r->fetched) {
		buf_append_char(&b, '{');
		buf_json_key(&b, "url");
		buf_json_cstr(&b, r->url);
		buf_json_key(&b, "connect_addr");
		buf_json_cstr(&b, r->connect_addr);
		buf_json_key(&b, "http_status");
		buf_appendf(&b, "%ld", r->http_status);
		buf_json_key(&b, "media_type");
		buf_json_cstr(&b, r->content_type);
		buf_json_key(&b, "result");
		buf_json_cstr(&b, https_error_name(r->https_error));
		buf_append_char(&b, '}');
	} else
		buf_append_str(&b, "null");
	buf_json_key(&b, "policy_text");
	buf_json_str(&b, r->policy_text, r->policy_len);
	buf_json_key(&b, "policy");
	if (r->policy != NULL) {
		buf_append_char(&b, '{');
		buf_json_key(&b, "mode");
		buf_json_cstr(&b, sts_policy_mode_name(r->policy->mode));
		buf_json_key(&b, "max_age");
		buf_appendf(&b, "%lu", (unsigned long)r->policy->max_age);
		buf_json_key(&b, "mx");
		tool_json_mx(&b, r->policy);
		buf_json_key(&b, "lines");
		buf_append_char(&b, '[');
		pos = 0;
		i = 0;
		while (sts_policy_line(r->policy, &pos, &line, &len)) {
			if (i++ > 0)
				buf_append_char(&b, ',');
			buf_json_str(&b, line, len);
		}
		buf_append_str(&b, "]}");
	} else
		buf_append_str(&b, "null");
	buf_json_key(&b, "policy_error");
	buf_json_cstr(&b, r->policy_why);
	buf_json_key(&b, "tlsrpt");
	buf_append_char(&b, '{');
	buf_json_key(&b, "record");
	buf_json_cstr(&b, r->tlsrpt);
	buf_json_key(&b, "note");
	buf_json_cstr(&b, r->tlsrpt_note);
	buf_json_key(&b, "dnssec");
	buf_json_cstr(&b, dns_security_name(r->tlsrpt_security));
	buf_append_char(&b, '}');
	tool_json_bool(&b, "pinned", ps == PINS_IN_FORCE);
	tool_json_pin(&b, ps, pd);
	buf_json_key(&b, "preload");
	if (!qy->have_preload)
		buf_json_cstr(&b, NULL);
	else {
		buf_append_char(&b, '{');
		buf_json_key(&b, "list");
		buf_json_cstr(&b, qy->phit.list);
		buf_json_key(&b, "timestamp");
		buf_json_cstr(&b, query_time(qy->phit.timestamp));
		buf_json_key(&b, "expires");
		buf_json_cstr(&b, query_time(qy->phit.expires));
		buf_json_key(&b, "mode");
		buf_json_cstr(&b, qy->phit.mode == 2 ? "enforce" : "testing");
		tool_json_bool(&b, "expired", qy->phit.expires <= clock_wall());
		buf_append_char(&b, '}');
	}
	buf_json_key(&b, "source");
	buf_json_cstr(&b, decide_source_name(res->source));
	buf_json_key(&b, "answer");
	buf_json_cstr(&b, answer);
	tool_json_requiretls(&b, answer);
	buf_append_char(&b, '}');
	(void)tool_json_print(&query_tool, &b);
}

/* query_done - the discovery reported: decide, print, set the exit
 * status */
static void
query_done(const struct discover_result *r, void *arg)
{
	struct query	*qy = arg;
	struct decide_result res;
	struct decide_preload pre;
	struct buf	 answer;
	enum decide_dane dane = DECIDE_DANE_NONE;
	enum pins_state	 ps;
	const struct config_domain *pd;
	int		 bad;

	qy->dv = NULL;
	if (qy->dane_on && qy->dane_done)
		dane = facts_decide_dane(qy->dres.state);
	buf_init(&answer, QUERY_ANSWER_MAX);
	memset(&res, 0, sizeof(res));
	bad = query_decide(qy->cf, qy->domain, dane, r, query_preload(qy, &pre),
	    &qy->dopt, &answer, &res, &ps, &pd) == -1;
	if (qy->json)
		query_print_json(qy, r, ps, pd, &res, answer.data);
	else
		query_print_text(qy, r, ps, pd, &res, answer.data);
	buf_free(&answer);

	switch (r->outcome) {
	case DISCOVER_POLICY:
	case DISCOVER_UNCHANGED:
		qy->exit_code = QUERY_EXIT_POLICY;
		break;
	case DISCOVER_NO_POLICY:
		qy->exit_code = QUERY_EXIT_NONE;
		break;
	case DISCOVER_FAILURE:
		qy->exit_code = QUERY_EXIT_ERROR;
		break;
	}
	/* DANE applies (TLSA records, usable or not: RFC 7672 §2.2): a
	 * policy; a failed DANE lookup: an error */
	if (qy->dane_on && (qy->dres.state == DANE_ALL ||
	    qy->dres.state == DANE_SOME || qy->dres.state == DANE_TLS ||
	    qy->dres.state == DANE_TLS_SOME) &&
	    qy->exit_code == QUERY_EXIT_NONE)
		qy->exit_code = QUERY_EXIT_POLICY;
	if (qy->dane_on && qy->dres.state == DANE_FAILURE)
		qy->exit_code = QUERY_EXIT_ERROR;
	if (res.source == DECIDE_SOURCE_PIN)
		qy->exit_code = QUERY_EXIT_POLICY;
	if (bad)
		qy->exit_code = QUERY_EXIT_ERROR;
	qy->done = 1;
	event_base_loopbreak(qy->base);
}

/* query_dane_done - DANE is known: keep a copy, then run the discovery */
static void
query_dane_done(const struct dane_result *res, void *arg)
{
	struct query	*qy = arg;
	size_t		 n = res->nhosts < DANE_MAX_HOSTS ? res->nhosts :
			    DANE_MAX_HOSTS;

	qy->dres = *res;
	memcpy(qy->dhosts, res->hosts, n * sizeof(qy->dhosts[0]));
	qy->dres.nhosts = n;
	qy->dres.hosts = qy->dhosts;
	snprintf(qy->ddetail, sizeof(qy->ddetail), "%s", res->detail);
	qy->dres.detail = qy->ddetail;
	qy->dres.domain = qy->domain;
	qy->dane_done = 1;
	qy->dn = NULL;
	qy->dv = discover_start_flags(qy->dns, qy->https, qy->domain,
	    qy->known_id, DISCOVER_TLSRPT | DISCOVER_ALL_ADDRESSES,
	    query_done, qy);
}

/* query_options - the command line: shared options into *to, the
 * tool's own into *own; returns the index of the first operand */
static int
query_options(int argc, char *argv[], struct query *qy,
    struct tool_opts *to, struct query_own *own)
{
	int	 ch;

	memset(to, 0, sizeof(*to));
	memset(own, 0, sizeof(*own));
	own->testing = -1;
	own->tlsrpt = -1;
	while ((ch = tool_getopt(&query_tool, argc, argv, to)) != -1) {
		switch (ch) {
		case QUERY_OPT_CONNECT_TIMEOUT:
			own->connect_timeout = (int)tool_number(&query_tool,
			    optarg, "--connect-timeout", 1, TOOL_MAX_TIMEOUT);
			break;
		case QUERY_OPT_HTTPS_TIMEOUT:
			own->https_timeout = (int)tool_number(&query_tool,
			    optarg, "--https-timeout", 1, TOOL_MAX_TIMEOUT);
			break;
		case QUERY_OPT_KNOWN_ID:
			own->known_id = optarg;
			break;
		case QUERY_OPT_TESTING:
			if (strcmp(optarg, "may") == 0)
				own->testing = DECIDE_TESTING_MAY;
			else if (strcmp(optarg, "notfound") == 0)
				own->testing = DECIDE_TESTING_NOTFOUND;
			else
				tool_usage(&query_tool);
			break;
		case QUERY_OPT_TLSRPT:
			own->tlsrpt = 1;
			break;
		case QUERY_OPT_MAP:
			own->map = optarg;
			break;
		case QUERY_OPT_SOCKETMAP:
			own->socketmap = optarg;
			break;
		default:
			tool_usage(&query_tool);
		}
	}
	qy->json = to->json;
	log_set_verbose(to->verbose);
	return (optind);
}

/*
 * query_map - the map's decide() options (the named map, else "postfix",
 * else the first), then --testing and --tlsrpt; the timeouts: a single
 * DNS query or HTTPS fetch never outlives --timeout
 */
static int
query_map(struct query *qy, const struct query_own *own,
    const struct tool_opts *to, struct config_https *hcf, int *dns_ms)
{
	const struct config	*cf = qy->cf;
	const struct config_map	*map = NULL;
	int			 https_s, timeout = to->timeout > 0 ?
				    to->timeout : QUERY_DEFAULT_TIMEOUT;

	memset(&qy->dopt, 0, sizeof(qy->dopt));
	qy->dopt.testing_answer = DECIDE_TESTING_NOTFOUND;
	qy->dane_on = 1;
	if (own->map != NULL && cf == NULL) {
		fprintf(stderr, "postsmtpsts-query: --map needs -c\n");
		return (-1);
	}
	if (cf != NULL && own->map != NULL) {
		map = config_find_map(cf, own->map, strlen(own->map));
		if (map == NULL) {
			fprintf(stderr, "postsmtpsts-query: %s: no map named "
			    "\"%s\"\n", cf->file, own->map);
			return (-1);
		}
	} else if (cf != NULL && (map = config_find_map(cf,
	    CONFIG_DEFAULT_MAP, strlen(CONFIG_DEFAULT_MAP))) == NULL &&
	    cf->nmaps > 0)
		map = &cf->maps[0];
	if (map != NULL) {
		facts_decide_options(map, &qy->dopt);
		qy->dane_on = map->dane;
	}
	if (own->testing != -1)
		qy->dopt.testing_answer = (enum decide_testing)own->testing;
	if (own->tlsrpt != -1)
		qy->dopt.tlsrpt = own->tlsrpt;

	*dns_ms = (to->dns_timeout > 0 ? to->dns_timeout : timeout) * 1000;
	https_s = own->https_timeout > 0 ? own->https_timeout : timeout;
	if (hcf->timeout <= 0 || hcf->timeout > https_s ||
	    own->https_timeout > 0)
		hcf->timeout = https_s;
	if (own->connect_timeout > 0)
		hcf->connect_timeout = own->connect_timeout;
	if (hcf->connect_timeout <= 0 || hcf->connect_timeout > https_s)
		hcf->connect_timeout = https_s;
	return (0);
}

/* query_deadline - --timeout passed with DNS or HTTPS unanswered */
static void
query_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct query	*qy = arg;

	(void)fd;
	(void)what;
	fprintf(stderr, "postsmtpsts-query: %s: no answer within the "
	    "--timeout (%s still running)\n", qy->domain,
	    qy->dane_done ? "MTA-STS discovery" : "DANE lookup");
	event_base_loopbreak(qy->base);
}

/* query_run - DANE, then discovery, on an event base; at most timeout s */
static int
query_run(struct query *qy, const struct config_dns *dcf,
    const struct config_https *hcf, int dns_ms, int timeout)
{
	struct timeval	 tv = { timeout, 0 };
	struct event	*deadline = NULL;
	struct dane_opts dopt;
	char		 err[TOOL_ERR_MAX];

	qy->exit_code = QUERY_EXIT_ERROR;
	if ((qy->base = event_base_new()) == NULL)
		fatalx("cannot create an event base");
	if ((qy->dns = dns_new(qy->base, dcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-query: dns: %s\n", err);
		goto out;
	}
	dns_set_timeout(qy->dns, dns_ms);
	if ((qy->https = https_new(qy->base, hcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-query: https: %s\n", err);
		goto out;
	}
	if ((deadline = evtimer_new(qy->base, query_deadline, qy)) == NULL)
		fatalx("cannot create a timer");
	evtimer_add(deadline, &tv);
	if (qy->dane_on) {
		/* every host's addresses for the report, as with
		 * DISCOVER_ALL_ADDRESSES below: the same verdict */
		memset(&dopt, 0, sizeof(dopt));
		dopt.addresses_first = 1;
		qy->dn = dane_start_opts(qy->dns, qy->domain, &dopt,
		    query_dane_done, qy);
	}
	else
		qy->dv = discover_start_flags(qy->dns, qy->https,
		    qy->domain, qy->known_id, DISCOVER_TLSRPT |
		    DISCOVER_ALL_ADDRESSES, query_done, qy);
	event_base_dispatch(qy->base);
	if (!qy->done) {
		dane_cancel(qy->dn);
		discover_cancel(qy->dv);
		qy->exit_code = QUERY_EXIT_ERROR;
	}
out:
	if (deadline != NULL)
		event_free(deadline);
	https_free(qy->https);
	dns_free(qy->dns);
	event_base_free(qy->base);
	return (qy->exit_code);
}

int
main(int argc, char *argv[])
{
	struct query		 qy;
	struct query_own	 own;
	struct tool_opts	 to;
	struct config_dns	 dcf;
	struct config_https	 hcf;
	struct config		*cf = NULL;
	char			 domain[DOMAIN_BUFSZ], esc[QUERY_ESC_MAX];
	char			**ubopt = NULL;
	enum domain_status	 ds;
	int			 dns_ms, rc = QUERY_EXIT_ERROR, i;

	memset(&qy, 0, sizeof(qy));
	log_init("postsmtpsts-query", 1, 0);
	i = query_options(argc, argv, &qy, &to, &own);
	if (own.socketmap != NULL) {
		if (argc - i < 1 || argc - i > 2)
			tool_usage(&query_tool);
		return (query_sm_run(own.socketmap, argv[i], argc - i == 2 ?
		    argv[i + 1] : QUERY_SM_DEFAULT_MAP, (to.timeout > 0 ?
		    to.timeout : QUERY_DEFAULT_TIMEOUT) * 1000));
	}
	if (argc - i != 1)
		tool_usage(&query_tool);
	if (tool_settings(&query_tool, &to, &cf, &dcf, &hcf, &ubopt) == -1)
		return (QUERY_EXIT_ERROR);
	qy.cf = cf;
	if (query_map(&qy, &own, &to, &hcf, &dns_ms) == -1)
		goto out;
	ds = domain_normalize(argv[i], strlen(argv[i]), domain);
	if (ds != DOMAIN_OK) {
		fprintf(stderr, "postsmtpsts-query: %s: %s: no policy of its "
		    "own can exist\n", query_esc(esc, argv[i],
		    strlen(argv[i])), domain_status_name(ds));
		goto out;
	}
	qy.domain = domain;
	qy.known_id = own.known_id;
	rc = query_run(&qy, &dcf, &hcf, dns_ms, to.timeout > 0 ? to.timeout :
	    QUERY_DEFAULT_TIMEOUT);
out:
	free(ubopt);
	config_free(cf);
	return (rc);
}
