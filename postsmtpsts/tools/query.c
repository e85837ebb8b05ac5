/*
 * query.c - postsmtpsts-query: DANE and MTA-STS discovery for one domain
 *
 *	postsmtpsts-query [-v] [-c config] [--json] [options] DOMAIN
 *
 * The same pipeline the resolver process runs (dane.c on dns.c, then
 * discover.c on dns.c and https.c, then decide.c), once, on an event base
 * of its own, without the daemon and without the cache.  The DANE part
 * prints every MX host, its address and TLSA records with their DNSSEC
 * status, and why DANE applies to it or not.  Every step is printed for a human (TXT
 * records and their DNSSEC status, the policy host's addresses, URL,
 * connect address, HTTP status and media type, the policy text, the parse
 * result, the TLSRPT record), then the exact Postfix answer.  --json prints
 * the same facts as one JSON object for scripts.
 *
 * Exit status: 0 a policy was found, 1 the domain has none, 2 an error
 * (discovery failed, bad usage or configuration).
 *
 * Settings come from -c FILE (config_load) or, without it, the daemon's
 * defaults.  The command-line options --trust-anchor, --root-hints,
 * --forwarder, --resolv-conf, --unbound-config, --unbound-option,
 * --ca-file, --proxy, the timeouts, --testing and --tlsrpt override them:
 * operators use them to test a resolver or CA set-up before putting it in
 * the file.
 *
 * RFC 8461 §3 (discovery), §5 (what the answer means), RFC 8460 §3
 * (TLSRPT record).  All text that came from the network is escaped before
 * it is printed (log_escape; JSON escaping for --json).
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "lib/dns.h"
#include "lib/domain.h"
#include "policy/facts.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"
#include "lib/xmalloc.h"

#define QUERY_EXIT_POLICY	0
#define QUERY_EXIT_NONE		1
#define QUERY_EXIT_ERROR	2
#define QUERY_MAX_OPTIONS	64	/* --unbound-option / --forwarder */
#define QUERY_ERR_MAX		4096
#define QUERY_ANSWER_MAX	100000	/* SOCKMAP reply limit */
#define QUERY_ESC_MAX		(LOG_ESCAPE_MAX * 4 + 4)
#define QUERY_MAX_TIMEOUT	300	/* seconds */

/* what the command line says; NULL/-1: keep the configuration's */
struct query_overrides {
	const char	*trust_anchor;
	const char	*root_hints;
	const char	*unbound_config;
	const char	*ca_file;
	const char	*proxy;
	const char	*map;
	int		 resolv_conf;
	int		 connect_timeout;
	int		 timeout;
	int		 testing;	/* -1, or enum decide_testing */
	int		 tlsrpt;	/* -1, 0 or 1 */
	char		*fwd[QUERY_MAX_OPTIONS + 1];
	size_t		 nfwd;
	char		*ubopt[QUERY_MAX_OPTIONS + 1];
	size_t		 nubopt;
};

struct query {
	int		 json;
	int		 exit_code;
	int		 done;
	struct event_base *base;
	struct decide_options dopt;
	int		 dane_on;	/* the map has dane = yes */
	struct dns	*dns;
	struct https	*https;
	const char	*domain;
	const char	*known_id;
	struct discover	*dv;
	/* the DANE result, copied: discovery runs after it */
	int		 dane_done;
	struct dane_result dres;
	struct dane_host dhosts[DANE_MAX_HOSTS];
	char		 ddetail[256];
};

enum {
	QUERY_OPT_JSON = 256,
	QUERY_OPT_TRUST_ANCHOR,
	QUERY_OPT_ROOT_HINTS,
	QUERY_OPT_FORWARDER,
	QUERY_OPT_RESOLV_CONF,
	QUERY_OPT_UNBOUND_CONFIG,
	QUERY_OPT_UNBOUND_OPTION,
	QUERY_OPT_CA_FILE,
	QUERY_OPT_PROXY,
	QUERY_OPT_DNS_TIMEOUT,
	QUERY_OPT_CONNECT_TIMEOUT,
	QUERY_OPT_TIMEOUT,
	QUERY_OPT_KNOWN_ID,
	QUERY_OPT_TESTING,
	QUERY_OPT_TLSRPT,
	QUERY_OPT_MAP,
};

static const struct option query_longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, QUERY_OPT_JSON },
	{ "trust-anchor", required_argument, NULL, QUERY_OPT_TRUST_ANCHOR },
	{ "root-hints", required_argument, NULL, QUERY_OPT_ROOT_HINTS },
	{ "forwarder", required_argument, NULL, QUERY_OPT_FORWARDER },
	{ "resolv-conf", no_argument, NULL, QUERY_OPT_RESOLV_CONF },
	{ "unbound-config", required_argument, NULL, QUERY_OPT_UNBOUND_CONFIG },
	{ "unbound-option", required_argument, NULL, QUERY_OPT_UNBOUND_OPTION },
	{ "ca-file", required_argument, NULL, QUERY_OPT_CA_FILE },
	{ "proxy", required_argument, NULL, QUERY_OPT_PROXY },
	{ "dns-timeout", required_argument, NULL, QUERY_OPT_DNS_TIMEOUT },
	{ "connect-timeout", required_argument, NULL,
	    QUERY_OPT_CONNECT_TIMEOUT },
	{ "timeout", required_argument, NULL, QUERY_OPT_TIMEOUT },
	{ "known-id", required_argument, NULL, QUERY_OPT_KNOWN_ID },
	{ "testing", required_argument, NULL, QUERY_OPT_TESTING },
	{ "tlsrpt", no_argument, NULL, QUERY_OPT_TLSRPT },
	{ "map", required_argument, NULL, QUERY_OPT_MAP },
	{ NULL, 0, NULL, 0 },
};

/* query_usage - print the synopsis and exit with the error status */
static void __attribute__((noreturn))
query_usage(void)
{
	fprintf(stderr,
	    "usage: postsmtpsts-query [-v] [-c config] [--map name] [--json] "
	    "[--known-id ID]\n"
	    "\t[--trust-anchor file] [--root-hints file] [--forwarder addr]\n"
	    "\t[--resolv-conf] [--unbound-config file] "
	    "[--unbound-option 'name: value']\n"
	    "\t[--ca-file file] [--proxy url] [--dns-timeout s] "
	    "[--connect-timeout s]\n"
	    "\t[--timeout s] [--testing notfound|may] [--tlsrpt] DOMAIN\n");
	exit(QUERY_EXIT_ERROR);
}

/* query_seconds - parse a timeout option, 1..QUERY_MAX_TIMEOUT */
static int
query_seconds(const char *s, const char *what)
{
	char	*end;
	long	 v;

	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 1 || v > QUERY_MAX_TIMEOUT) {
		fprintf(stderr, "postsmtpsts-query: %s: not a number of "
		    "seconds in 1..%d: %s\n", what, QUERY_MAX_TIMEOUT, s);
		exit(QUERY_EXIT_ERROR);
	}
	return ((int)v);
}

/* query_esc - untrusted text p[0..len) made printable (log_escape) */
static const char *
query_esc(char *out, const char *p, size_t len)
{
	return (log_escape(out, QUERY_ESC_MAX, p, len));
}

/* query_answer - the Postfix answer for the DANE and discovery results,
 * via decide */
static int
query_answer(const struct query *qy, const struct discover_result *r,
    struct buf *out)
{
	struct decide_input	 in;
	struct decide_result	 dres;
	struct buf		 data;

	memset(&in, 0, sizeof(in));
	in.domain = r->domain;
	in.dane = DECIDE_DANE_NONE;
	if (qy->dane_on && qy->dane_done)
		in.dane = facts_decide_dane(qy->dres.state);
	switch (r->outcome) {
	case DISCOVER_POLICY:
		in.sts = DECIDE_STS_POLICY;
		in.policy = r->policy;
		break;
	case DISCOVER_NO_POLICY:
	case DISCOVER_UNCHANGED:	/* no cache here: nothing to apply */
		in.sts = DECIDE_STS_NONE;
		break;
	case DISCOVER_FAILURE:
		in.sts = DECIDE_STS_FAILED;
		switch (r->failure) {
		case DISCOVER_FAIL_TXT_INVALID:
			/* RFC 8461 §3.1: as if there were no record */
			in.sts = DECIDE_STS_NONE;
			break;
		case DISCOVER_FAIL_POLICY_INVALID:
			in.sts_error = DECIDE_STS_ERR_INVALID;
			break;
		case DISCOVER_FAIL_WEBPKI:
			in.sts_error = DECIDE_STS_ERR_WEBPKI;
			break;
		default:
			in.sts_error = DECIDE_STS_ERR_FETCH;
			break;
		}
		break;
	}
	buf_init(&data, QUERY_ANSWER_MAX);
	buf_reset(out);
	if (decide(&in, &qy->dopt, &data, &dres) == -1) {
		buf_free(&data);
		buf_append_str(out, "TEMP internal error in decide()");
		return (-1);
	}
	if (dres.status == SOCKMAP_NOTFOUND)
		buf_append_str(out, "NOTFOUND");
	else {
		buf_append_str(out, sockmap_status_name(dres.status));
		buf_append_char(out, ' ');
		buf_append(out, data.data, data.len);
	}
	buf_free(&data);
	return (buf_cstr(out) == NULL ? -1 : 0);
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
			printf(", TLSA _25._tcp.%s: DNSSEC %s, %zu record%s",
			    h->base, dns_security_name(h->tlsa_security),
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
		printf("    DANE: %s (%s)\n", h->state == DANE_ALL ? "yes" :
		    h->state == DANE_FAILURE ? "unknown, lookup failed" : "no",
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
		if (h->tlsa_looked) {
			buf_append_str(b, "\"_25._tcp.");
			buf_append_str(b, h->base);
			buf_append_char(b, '"');
		} else
			buf_append_str(b, "null");
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
		buf_append_char(b, '}');
		if (i + 1 < d->nhosts)
			buf_append_char(b, ',');
	}
	buf_append_str(b, "]}");
}

/* query_print_text - the human-readable report */
static void
query_print_text(const struct query *qy, const struct discover_result *r,
    const char *answer)
{
	char		 esc[QUERY_ESC_MAX], rc[16];
	const char	*line, *nl;
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
		for (i = 0; i < r->policy->nmx; i++)
			printf(" %s", r->policy->mx[i]);
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
	printf("answer: %s\n", answer);
}

/* query_print_json - the same facts as one JSON object */
static void
query_print_json(const struct query *qy, const struct discover_result *r,
    const char *answer)
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
	buf_json_key(&b, "outcome");
	buf_json_cstr(&b, discover_outcome_name(r->outcome));
	buf_json_key(&b, "failure");
	buf_json_cstr(&b, r->outcome == DISCOVER_FAILURE ?
	    discover_failure_name(r->failure) : NULL);
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
		buf_append_char(&b, '[');
		for (i = 0; i < r->policy->nmx; i++) {
			if (i > 0)
				buf_append_char(&b, ',');
			buf_json_cstr(&b, r->policy->mx[i]);
		}
		buf_append_char(&b, ']');
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
	buf_json_key(&b, "answer");
	buf_json_cstr(&b, answer);
	buf_append_char(&b, '}');
	if (b.error || buf_cstr(&b) == NULL)
		fprintf(stderr, "postsmtpsts-query: JSON output too large\n");
	else
		printf("%s\n", b.data);
	buf_free(&b);
}

/* query_done - the discovery reported: print, set the exit status */
static void
query_done(const struct discover_result *r, void *arg)
{
	struct query	*qy = arg;
	struct buf	 answer;
	int		 bad;

	buf_init(&answer, QUERY_ANSWER_MAX);
	bad = query_answer(qy, r, &answer) == -1;
	if (qy->json)
		query_print_json(qy, r, answer.data);
	else
		query_print_text(qy, r, answer.data);
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
	/* DANE applies: a policy; a failed DANE lookup: an error */
	if (qy->dane_on && (qy->dres.state == DANE_ALL ||
	    qy->dres.state == DANE_SOME) && qy->exit_code == QUERY_EXIT_NONE)
		qy->exit_code = QUERY_EXIT_POLICY;
	if (qy->dane_on && qy->dres.state == DANE_FAILURE)
		qy->exit_code = QUERY_EXIT_ERROR;
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
	qy->dv = discover_start(qy->dns, qy->https, qy->domain, qy->known_id,
	    query_done, qy);
}

/*
 * query_settings - the DNS and HTTPS settings and map options: from the
 * configuration file if one was given (else the daemon's defaults), then
 * the command-line overrides.  Forwarders on the command line replace the
 * file's; unbound options are applied after the file's, so they win.
 * The strings stay owned by cf (or argv); *ubopt_out is allocated.
 */
static int
query_settings(const struct config *cf, struct query_overrides *ov,
    struct config_dns *dcf, struct config_https *hcf,
    struct decide_options *dopt, int *dane_on, char ***ubopt_out)
{
	const struct config_map	*map = NULL;
	char			**v;
	size_t			 n = 0, i;

	memset(dcf, 0, sizeof(*dcf));
	memset(hcf, 0, sizeof(*hcf));
	memset(dopt, 0, sizeof(*dopt));
	dopt->testing_answer = DECIDE_TESTING_NOTFOUND;
	*dane_on = 1;
	if (cf != NULL) {
		*dcf = cf->dns;
		*hcf = cf->https;
		if (ov->map != NULL) {
			map = config_find_map(cf, ov->map, strlen(ov->map));
			if (map == NULL) {
				fprintf(stderr, "postsmtpsts-query: %s: no map "
				    "named \"%s\"\n", cf->file, ov->map);
				return (-1);
			}
		} else if ((map = config_find_map(cf, CONFIG_DEFAULT_MAP,
		    strlen(CONFIG_DEFAULT_MAP))) == NULL && cf->nmaps > 0)
			map = &cf->maps[0];
		if (map != NULL) {
			facts_decide_options(map, dopt);
			*dane_on = map->dane;
		}
	} else if (ov->map != NULL) {
		fprintf(stderr, "postsmtpsts-query: --map needs -c\n");
		return (-1);
	} else if (access(CONFIG_DEFAULT_TRUST_ANCHOR, R_OK) == 0)
		/* the daemon's default, so both validate alike */
		dcf->trust_anchor_file = CONFIG_DEFAULT_TRUST_ANCHOR;

	if (ov->trust_anchor != NULL)
		dcf->trust_anchor_file = ov->trust_anchor[0] != '\0' ?
		    (char *)ov->trust_anchor : NULL;
	if (ov->root_hints != NULL)
		dcf->root_hints = (char *)ov->root_hints;
	if (ov->unbound_config != NULL)
		dcf->unbound_config = (char *)ov->unbound_config;
	if (ov->resolv_conf)
		dcf->use_resolv_conf = 1;
	if (ov->nfwd > 0) {
		ov->fwd[ov->nfwd] = NULL;
		dcf->forwarders = ov->fwd;
	}
	for (v = dcf->unbound_options; v != NULL && *v != NULL; v++)
		n++;
	*ubopt_out = xcalloc(n + ov->nubopt + 1, sizeof(**ubopt_out));
	for (i = 0; i < n; i++)
		(*ubopt_out)[i] = dcf->unbound_options[i];
	for (i = 0; i < ov->nubopt; i++)
		(*ubopt_out)[n + i] = ov->ubopt[i];
	dcf->unbound_options = *ubopt_out;

	if (ov->ca_file != NULL)
		hcf->ca_file = (char *)ov->ca_file;
	if (ov->proxy != NULL)
		hcf->proxy = (char *)ov->proxy;
	if (ov->connect_timeout > 0)
		hcf->connect_timeout = ov->connect_timeout;
	if (ov->timeout > 0)
		hcf->timeout = ov->timeout;
	if (ov->testing != -1)
		dopt->testing_answer = (enum decide_testing)ov->testing;
	if (ov->tlsrpt != -1)
		dopt->tlsrpt = ov->tlsrpt;
	return (0);
}

int
main(int argc, char *argv[])
{
	struct query		 qy;
	struct query_overrides	 ov;
	struct config_dns	 dcf;
	struct config_https	 hcf;
	struct config		*cf = NULL;
	char			 err[QUERY_ERR_MAX], domain[DOMAIN_BUFSZ];
	char			 esc[QUERY_ESC_MAX];
	char			**ubopt = NULL;
	const char		*config_file = NULL, *known_id = NULL;
	struct dns		*dns = NULL;
	struct https		*https = NULL;
	struct dane		*dn = NULL;
	enum domain_status	 ds;
	int			 ch, verbose = 0, dns_timeout = 0;

	memset(&qy, 0, sizeof(qy));
	memset(&ov, 0, sizeof(ov));
	ov.testing = -1;
	ov.tlsrpt = -1;
	log_init("postsmtpsts-query", 1, 0);

	while ((ch = getopt_long(argc, argv, "c:hv", query_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			config_file = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case QUERY_OPT_JSON:
			qy.json = 1;
			break;
		case QUERY_OPT_TRUST_ANCHOR:
			ov.trust_anchor = optarg;
			break;
		case QUERY_OPT_ROOT_HINTS:
			ov.root_hints = optarg;
			break;
		case QUERY_OPT_FORWARDER:
			if (ov.nfwd == QUERY_MAX_OPTIONS)
				query_usage();
			ov.fwd[ov.nfwd++] = optarg;
			break;
		case QUERY_OPT_RESOLV_CONF:
			ov.resolv_conf = 1;
			break;
		case QUERY_OPT_UNBOUND_CONFIG:
			ov.unbound_config = optarg;
			break;
		case QUERY_OPT_UNBOUND_OPTION:
			if (ov.nubopt == QUERY_MAX_OPTIONS)
				query_usage();
			ov.ubopt[ov.nubopt++] = optarg;
			break;
		case QUERY_OPT_CA_FILE:
			ov.ca_file = optarg;
			break;
		case QUERY_OPT_PROXY:
			ov.proxy = optarg;
			break;
		case QUERY_OPT_DNS_TIMEOUT:
			dns_timeout = query_seconds(optarg, "--dns-timeout");
			break;
		case QUERY_OPT_CONNECT_TIMEOUT:
			ov.connect_timeout = query_seconds(optarg,
			    "--connect-timeout");
			break;
		case QUERY_OPT_TIMEOUT:
			ov.timeout = query_seconds(optarg, "--timeout");
			break;
		case QUERY_OPT_KNOWN_ID:
			known_id = optarg;
			break;
		case QUERY_OPT_TESTING:
			if (strcmp(optarg, "may") == 0)
				ov.testing = DECIDE_TESTING_MAY;
			else if (strcmp(optarg, "notfound") == 0)
				ov.testing = DECIDE_TESTING_NOTFOUND;
			else
				query_usage();
			break;
		case QUERY_OPT_TLSRPT:
			ov.tlsrpt = 1;
			break;
		case QUERY_OPT_MAP:
			ov.map = optarg;
			break;
		default:
			query_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		query_usage();
	log_set_verbose(verbose);

	if (config_file != NULL &&
	    (cf = config_load(config_file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s", err);
		return (QUERY_EXIT_ERROR);
	}
	if (query_settings(cf, &ov, &dcf, &hcf, &qy.dopt, &qy.dane_on,
	    &ubopt) == -1)
		goto fail;

	ds = domain_normalize(argv[0], strlen(argv[0]), domain);
	if (ds != DOMAIN_OK) {
		fprintf(stderr, "postsmtpsts-query: %s: %s: no policy of its "
		    "own can exist\n", query_esc(esc, argv[0],
		    strlen(argv[0])), domain_status_name(ds));
		goto fail;
	}

	if ((qy.base = event_base_new()) == NULL)
		fatalx("cannot create an event base");
	if ((dns = dns_new(qy.base, &dcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-query: dns: %s\n", err);
		goto fail;
	}
	if (dns_timeout > 0)
		dns_set_timeout(dns, dns_timeout * 1000);
	if ((https = https_new(qy.base, &hcf, err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-query: https: %s\n", err);
		goto fail;
	}
	qy.exit_code = QUERY_EXIT_ERROR;
	qy.dns = dns;
	qy.https = https;
	qy.domain = domain;
	qy.known_id = known_id;
	if (qy.dane_on)
		dn = dane_start(dns, domain, query_dane_done, &qy);
	else
		qy.dv = discover_start(dns, https, domain, known_id,
		    query_done, &qy);
	event_base_dispatch(qy.base);
	if (!qy.done) {
		fprintf(stderr, "postsmtpsts-query: event loop ended early\n");
		if (!qy.dane_done)
			dane_cancel(dn);
		discover_cancel(qy.dv);
	}
	https_free(https);
	dns_free(dns);
	event_base_free(qy.base);
	free(ubopt);
	config_free(cf);
	return (qy.exit_code);
fail:
	https_free(https);
	dns_free(dns);
	if (qy.base != NULL)
		event_base_free(qy.base);
	free(ubopt);
	config_free(cf);
	return (QUERY_EXIT_ERROR);
}
