/*
 * dns.h - asynchronous DNSSEC-validating lookups (libunbound) on libevent
 *
 * One struct dns owns one libunbound context configured from struct
 * config_dns and running inside the caller's event base (libunbound's
 * event API: no thread, no pipe).  Every query has its own deadline,
 * enforced with a libevent timer because libunbound's API has none.
 *
 * Callback contract: dns_query() always returns a handle, and the callback
 * runs exactly once, later, from the event loop (never from inside
 * dns_query), unless dns_cancel() was called first.  The handle is dead once
 * the callback has started: forget it there.  The result and everything it
 * points to are valid only during the callback.  From a callback one may
 * start new queries and cancel other ones, but not call dns_free().
 */
#ifndef DNS_H
#define DNS_H

#include <stddef.h>

struct event_base;
struct config_dns;

/* RR types the discovery and DANE code ask for (RFC 1035, 3596, 6698) */
#define DNS_TYPE_A		1
#define DNS_TYPE_MX		15
#define DNS_TYPE_TXT		16
#define DNS_TYPE_AAAA		28
#define DNS_TYPE_TLSA		52

/* DNS RCODEs (RFC 1035 §4.1.1) the callers test */
#define DNS_RCODE_NOERROR	0
#define DNS_RCODE_SERVFAIL	2
#define DNS_RCODE_NXDOMAIN	3

#define DNS_DEFAULT_TIMEOUT_MS	10000	/* per query, until dns_set_timeout */
#define DNS_MAX_TIMEOUT_MS	300000

enum dns_status {
	DNS_OK = 0,		/* the resolver answered: see rcode etc. */
	DNS_ERR_TIMEOUT,	/* no answer before the query's deadline */
	DNS_ERR_RESOLVER,	/* libunbound refused or failed the query */
};

/* DNSSEC status of an answer, RFC 4035 §4.3 */
enum dns_security {
	DNS_INSECURE = 0,	/* no chain of trust (or no trust anchor) */
	DNS_SECURE,		/* validated from the trust anchor */
	DNS_BOGUS,		/* should have validated and did not */
};

struct dns_result {
	enum dns_status	 status;
	const char	*error;		/* status != DNS_OK: short reason */
	const char	*qname;		/* as asked */
	int		 rrtype;
	int		 rcode;		/* DNS RCODE (SERVFAIL if not DNS_OK) */
	int		 havedata;	/* rdata_count > 0 */
	int		 nxdomain;	/* the name does not exist */
	enum dns_security security;
	const char	*why_bogus;	/* DNS_BOGUS: the reason, or NULL */
	int		 ttl;		/* seconds, of the answer RRset */
	const char	*canonname;	/* after CNAMEs, or NULL */
	size_t		 rdata_count;
	const unsigned char *const *rdata;	/* rdata_count wire RDATAs */
	const size_t	*rdata_len;
	const unsigned char *packet;	/* the whole response (authority
					   section: dnswire_owner_types), or
					   NULL; during the callback only */
	size_t		 packet_len;
};

typedef void	dns_cb(const struct dns_result *res, void *arg);

struct dns;
struct dns_query;

/*
 * dns_new - a resolver on base, configured from cf
 *
 * Applies, in this order: unbound_config (ub_ctx_config), root_hints,
 * forwarders, use_resolv_conf, trust_anchor_file (a plain DS/DNSKEY file, or
 * an RFC 5011 managed file as unbound-anchor writes it, told apart by its
 * ";;id:" lines), then each unbound_options "name: value" string, then the
 * local-zone fix (see dns.c).  Returns NULL with a message in err (size
 * errsz) on any configuration error.
 */
struct dns	*dns_new(struct event_base *base, const struct config_dns *cf,
		    char *err, size_t errsz);

/* dns_option - libunbound's value of option name (as unbound.conf names
 * it, without the colon: "val-clean-additional") in out; 0, or -1 if it
 * has none or it does not fit in outsz */
int		 dns_option(struct dns *d, const char *name, char *out,
		    size_t outsz);

/* dns_set_timeout - deadline of queries started from now on, in ms
 * (clamped to 1..DNS_MAX_TIMEOUT_MS) */
void		 dns_set_timeout(struct dns *d, int timeout_ms);

/*
 * dns_query - look up name (presentation form, trailing dot optional) and
 * rrtype in class IN; cb(res, arg) runs later exactly once.  Never NULL.
 */
struct dns_query *dns_query(struct dns *d, const char *name, int rrtype,
		    dns_cb *cb, void *arg);

/* dns_cancel - the callback will not run; NULL is a no-op */
void		 dns_cancel(struct dns_query *q);

/*
 * dns_check - build and drop a libunbound context from cf as dns_new()
 * would, without an event base or a query: the unbound.conf file, options,
 * forwarders, trust anchor and root hints are read now.  0, or -1 with the
 * reason in err (size errsz).  For the master, before it starts a resolver
 * with cf (at start, for -t and on reload).
 */
int		 dns_check(const struct config_dns *cf, char *err, size_t errsz);

/* dns_free - cancel every pending query (no callbacks) and release the
 * context; NULL is a no-op */
void		 dns_free(struct dns *d);

/* dns_security_name - "secure", "insecure", "bogus" */
const char	*dns_security_name(enum dns_security sec);

/* dns_status_name - "ok", "timeout", "resolver-error" */
const char	*dns_status_name(enum dns_status st);

/* dns_rcode_name - "NOERROR", "SERVFAIL", ... or "RCODE<n>" in buf */
const char	*dns_rcode_name(int rcode, char *buf, size_t bufsz);

/* dns_name_eq - 1 if a and b (presentation form, NUL-terminated) are the
 * same DNS name: ASCII case and one final dot aside (no escapes) */
int		 dns_name_eq(const char *a, const char *b);

#endif
