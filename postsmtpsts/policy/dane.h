/*
 * dane.h - RFC 7672 DANE detection for one domain, asynchronously
 *
 * dane_start() answers one question for the resolver and the tools: does
 * this domain's mail go to MX hosts that DNSSEC says must be reached with
 * DANE-authenticated TLS?  On a struct dns (libunbound, validating) it runs
 *
 *	MX DOMAIN                                   (RFC 7672 §2.2.1)
 *	  insecure                     -> no DANE for the domain
 *	  bogus                        -> failure (state cannot be determined)
 *	  SERVFAIL, timeout            -> no DANE: such an error only hides
 *	                                  whether DNSSEC applies (and Postfix
 *	                                  cannot deliver without the MX), so
 *	                                  MTA-STS decides; asked again soon
 *	  secure NODATA                -> the domain itself is the implicit MX
 *	  secure null MX "."           -> no DANE (the domain takes no mail)
 *	then for every MX host (the first DANE_MAX_HOSTS by preference), all
 *	hosts at once, TLSA _25._tcp.NAME first: a secure denial whose
 *	NSEC/NSEC3 record at NAME lists A or AAAA and no CNAME decides the
 *	host, no DANE, without its addresses (dane.c, "TLSA first"); else,
 *	or from the start with dane_opts.addresses_first, A (and AAAA only
 *	if the A answer is secure and empty: A and AAAA share their zone, so
 *	the A answer decides all else; both in parallel with
 *	dane_opts.all_addresses), the TLSA answer kept for the step after:
 *	  insecure                     -> host: no DANE (§2.2.2)
 *	  bogus                        -> host: failure
 *	  SERVFAIL, timeout            -> host: failure (unusable, RFC 7672
 *	                                  §2.2: left to Postfix, which skips
 *	                                  it; not the domain's state)
 *	  secure                       -> TLSA _25._tcp.BASE, where BASE is the
 *	    CNAME-expanded name when the address chain is secure, then, if
 *	    that has no TLSA records, the MX host name itself (§2.2.2)
 *	    secure, some usable        -> host: DANE
 *	    secure, records but none   -> host: TLS required (RFC 7672
 *	    usable                        §2.2: mandatory, unauthenticated
 *	                                  TLS; Postfix's dane level makes
 *	                                  that host "encrypt")
 *	    secure, absent             -> host: no DANE
 *	    insecure                   -> host: no DANE
 *	    bogus, SERVFAIL, timeout   -> host: failure (§2.2: the TLSA state
 *	                                  cannot be determined)
 *
 * Usable TLSA records (RFC 7672 §3.1, RFC 7218 names): certificate usage
 * DANE-TA(2) or DANE-EE(3), selector Cert(0) or SPKI(1), matching type
 * Full(0), SHA2-256(1) or SHA2-512(2), with a digest of the right length.
 * PKIX-TA(0) and PKIX-EE(1) are unusable for SMTP (§3.1.3), and so is
 * anything unknown.
 *
 * A TLSA RRset counts as published when the secure answer holds any
 * record at all, also one too short to parse (RFC 7672 §2.2: "unusable",
 * not "absent").
 *
 * The domain's state (dane_aggregate) is computed over the hosts that
 * resolved; a host whose lookups failed is unusable (RFC 7672 §2.2) and
 * left to Postfix, which skips it itself.  With U hosts DANE, T hosts
 * "TLS required", N hosts no DANE and F failed, of n:
 *	F == n > 0			-> DANE_FAILURE (nothing is known)
 *	U > 0, U == n - F		-> DANE_ALL
 *	U > 0, otherwise		-> DANE_SOME
 *	U == 0, T > 0, N == 0, F == 0	-> DANE_TLS (every host: TLS)
 *	U == 0, T > 0, otherwise	-> DANE_TLS_SOME
 *	U == 0, T == 0			-> DANE_NONE
 * DANE_TLS ignores no host: "encrypt" for the whole domain would also
 * send to a host whose TLSA lookup failed (which may be one with usable
 * records an attacker hid), so a failed host makes it DANE_TLS_SOME, left
 * to Postfix's own per-host lookups ("dane").  A bogus MX RRset is
 * DANE_FAILURE.
 * ttl is the smallest TTL of the RRsets the state was derived from.
 *
 * postsmtpsts-check uses the same walk (dane_start_opts): its SMTP port for
 * the TLSA name, every host's addresses (also behind an insecure MX RRset:
 * all_hosts) and the whole TLSA records for the certificate check.
 *
 * Callback contract as in dns.h and discover.h: dane_start() never returns
 * NULL, the callback runs exactly once from the event loop unless
 * dane_cancel() came first, and the result lives only during the callback.
 */
#ifndef DANE_H
#define DANE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/dns.h"
#include "lib/domain.h"

#define DANE_MAX_HOSTS		16	/* MX hosts examined, by preference */
#define DANE_MAX_TLSA		32	/* TLSA records kept per host */
#define DANE_MAX_DATA		64	/* bytes of association data kept */
#define DANE_MIN_TTL		60	/* clamp of the result's ttl */
#define DANE_MAX_TTL		86400
#define DANE_FAILURE_TTL	60	/* a failure is retried this soon */
#define DANE_MAX_ADDRS		8	/* address literals kept per host */
#define DANE_ADDR_MAX		46	/* INET6_ADDRSTRLEN */
#define DANE_DEFAULT_PORT	25	/* TLSA _25._tcp (RFC 7672 §2.2.3) */

/*
 * The state of a domain or of one host; numbering is on disk (the cache
 * record's dane byte, also in the fleet): never renumber.  4 and 5 came
 * later (issue 29); a daemon that predates them reads them as DANE_NONE
 * (facts_decide_dane's default), its answer before the change.
 */
enum dane_state {
	DANE_NONE = 0,		/* no DANE: insecure, no TLSA records */
	DANE_ALL = 1,		/* domain: every MX host has usable TLSA;
				   host: usable TLSA records */
	DANE_SOME = 2,		/* domain only: some MX hosts have them */
	DANE_FAILURE = 3,	/* bogus, or lookup failed where it counts */
	DANE_TLS = 4,		/* host: secure TLSA records, none usable
				   (TLS required, RFC 7672 §2.2); domain:
				   every MX host so, none failed */
	DANE_TLS_SOME = 5,	/* domain only: none usable, some hosts
				   TLS required, others not or failed */
};
#define DANE_STATE_MAX	DANE_TLS_SOME

/* How a lookup failed (dane_fail_name), for logs, tools and metrics. */
enum dane_fail {
	DANE_FAIL_NONE = 0,
	DANE_FAIL_BOGUS,	/* DNSSEC validation failed */
	DANE_FAIL_SERVFAIL,	/* SERVFAIL (any RCODE but NOERROR/NXDOMAIN)
				   or the resolver failed the query */
	DANE_FAIL_TIMEOUT,	/* no answer before the deadline */
};

/* One TLSA record (RFC 6698 §2.1). */
struct dane_tlsa {
	uint8_t		 usage;
	uint8_t		 selector;
	uint8_t		 mtype;
	int		 usable;	/* dane_tlsa_usable() */
	size_t		 len;		/* data length on the wire */
	unsigned char	 data[DANE_MAX_DATA];	/* first bytes of it */
	/* the whole RDATA (usage, selector, mtype, data) when the lookup
	 * was started with dane_opts.keep_rdata, else NULL; owned by the
	 * struct dane, valid during the callback only */
	const unsigned char *rdata;
	size_t		 rdata_len;
};

struct dane_host {
	char		 name[DOMAIN_BUFSZ];	/* MX exchange */
	uint16_t	 preference;
	char		 base[DOMAIN_BUFSZ];	/* TLSA base name used */
	char		 tlsa_name[DOMAIN_BUFSZ + 16];	/* _PORT._tcp.BASE */
	enum dns_security addr_security;	/* worst of A and AAAA */
	enum dns_security a_security;		/* of the A answer */
	enum dns_security aaaa_security;	/* of the AAAA answer, if
						 * asked (see dane_opts) */
	int		 addr_failed;		/* an A/AAAA lookup failed or
						 * was bogus (bogus: none kept) */
	int		 addr_skipped;		/* A/AAAA not asked: a secure
						 * TLSA denial's NSEC(3) record
						 * showed them, and no CNAME
						 * (addr_security: secure) */
	size_t		 naddrs;		/* A and AAAA records seen */
	size_t		 naddr_text;		/* kept below, A first */
	char		 addr[DANE_MAX_ADDRS][DANE_ADDR_MAX];
	enum dns_security tlsa_security;
	int		 tlsa_looked;		/* a TLSA lookup was answered */
	size_t		 ntlsa;
	struct dane_tlsa tlsa[DANE_MAX_TLSA];
	enum dane_state	 state;
	const char	*why;			/* static text */
	enum dane_fail	 fail;			/* DANE_FAILURE: how (bogus
						   wins, then A, AAAA, TLSA) */
	int		 fail_rrtype;		/* ... of which record type:
						   DNS_TYPE_A, _AAAA, _TLSA */
};

struct dane_result {
	const char	*domain;
	enum dane_state	 state;
	const char	*detail;		/* short human text */
	enum dns_security mx_security;
	enum dns_status	 mx_status;
	int		 mx_rcode;
	enum dane_fail	 mx_fail;	/* the MX lookup failed: how */
	int		 nxdomain;		/* the domain does not exist */
	int		 implicit_mx;		/* no MX: the domain itself */
	int		 null_mx;		/* RFC 7505 "MX 0 ." */
	int		 ttl;			/* clamped, seconds */
	size_t		 nhosts;
	size_t		 nmx;			/* MX records seen (>= nhosts) */
	const struct dane_host *hosts;
};

typedef void	dane_cb(const struct dane_result *res, void *arg);

struct dane;

/*
 * What a caller other than the resolver (postsmtpsts-check) wants beyond
 * the DANE state; zero-initialized means dane_start()'s behaviour.  None
 * of these changes a host's or the domain's state.
 */
struct dane_opts {
	int		 port;		/* TLSA _PORT._tcp; 0: 25 */
	int		 all_hosts;	/* list the hosts (and look up their
					 * addresses) behind an insecure MX
					 * RRset too: state none, no TLSA */
	int		 keep_rdata;	/* dane_tlsa.rdata: whole records */
	int		 all_addresses;	/* A and AAAA in parallel, always (the
					 * default asks AAAA only after a
					 * secure, empty A answer) */
	int		 addresses_first; /* A (and TLSA ahead) at once, as
					 * all_addresses does, instead of
					 * TLSA first (see below) */
};

/* dane_start - look up domain (normalized, see domain_normalize) */
struct dane	*dane_start(struct dns *d, const char *domain, dane_cb *cb,
		    void *arg);

/* dane_start_opts - the same with o (NULL: defaults) */
struct dane	*dane_start_opts(struct dns *d, const char *domain,
		    const struct dane_opts *o, dane_cb *cb, void *arg);

/* dane_cancel - stop every lookup; no callback; NULL is a no-op */
void		 dane_cancel(struct dane *dn);

/* --- pure parts, unit-tested --- */

/* dane_tlsa_parse - decode TLSA rdata p[0..len); 0, or -1 if shorter than
 * 4 bytes (no data) */
int		 dane_tlsa_parse(const unsigned char *p, size_t len,
		    struct dane_tlsa *out);

/* dane_tlsa_usable - 1 if usable for SMTP (see above) */
int		 dane_tlsa_usable(const struct dane_tlsa *t);

/*
 * dane_mx_parse - decode MX rdata p[0..len): preference and exchange in
 * presentation form, lower case, no trailing dot ("" for the root, a null
 * MX) into name (DOMAIN_BUFSZ).  0, or -1 if malformed (compression
 * pointers are refused: libunbound hands out uncompressed rdata).
 */
int		 dane_mx_parse(const unsigned char *p, size_t len,
		    uint16_t *pref, char *name);

/* dane_fail_name - "none", "bogus", "servfail", "timeout" */
const char	*dane_fail_name(enum dane_fail f);

/* dane_aggregate - the domain's state from its hosts' states */
enum dane_state	 dane_aggregate(const enum dane_state *hosts, size_t n);

/* dane_state_name - "none", "all", "some", "failure", "tls-required",
 * "tls-some"; "unknown" for another value */
const char	*dane_state_name(enum dane_state st);

/* dane_usage_name - RFC 7218 "PKIX-TA" .. "DANE-EE", or "usage<n>" in buf */
const char	*dane_usage_name(unsigned int usage, char *buf, size_t bufsz);

#endif
