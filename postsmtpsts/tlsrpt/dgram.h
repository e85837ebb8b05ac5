/*
 * dgram.h - one datagram of Postfix's TLSRPT client library (libtlsrpt)
 *
 * NAME
 *	dgram - the collector protocol of libtlsrpt, parsed
 * SYNOPSIS
 *	d = dgram_new(), dgram_free(d)
 *	dgram_parse(p, len, d, why, whysz)
 *	dgram_status_name(status)
 * DESCRIPTION
 *	Postfix 3.10 built with libtlsrpt (Debian 13's) sends one datagram
 *	per TLS delivery request to smtp_tlsrpt_socket_name: a JSON object
 *	(libtlsrpt.c, tlsrpt_finish_delivery_request) of
 *
 *	    "dpv"	 the datagram protocol version, the string "1"
 *			 (libtlsrpt 0.5.0; 0.5.0rc1, which Debian 13
 *			 ships, sends none: read as version 0, the same
 *			 fields)
 *	    "d"		 the policy domain (the report's domain)
 *	    "pr"	 the domain's TLSRPT record, as Postfix found it
 *	    "policies"	 an array of objects, each
 *		"policy-type"	 1 tlsa, 2 sts, 9 no-policy-found
 *		"policy-domain"	 optional
 *		"policy-string"	 optional array of strings (the policy lines)
 *		"mx-host"	 optional array of strings (STS mx patterns)
 *		"failure-details" optional array of objects: "c" the result
 *				 code (201..205 negotiation, 301..303 sts,
 *				 304..306 dane: RFC 8460 §4.3), "s" sending
 *				 address, "n" receiving MX host, "h" its
 *				 HELO, "r" receiving address,
 *				 "a" additional information, "f" failure
 *				 reason code; all but "c" optional
 *		"t"		 the number of failure details
 *		"f"		 the final result: 0 success, 1 failure
 *
 *	Each policy object is one session (RFC 8460 §4.2: a successful or
 *	failed session under that policy), as libtlsrpt's own collector
 *	counts it.  The datagram comes from any local process that can
 *	write to the socket (its sender's credentials are checked by
 *	collect.h, not here): every field is checked, and a datagram that
 *	fails any check is refused whole - nothing of it is counted.
 *
 *	Pure: no I/O.  The JSON is read by json-c (configure.ac) in strict
 *	mode with UTF-8 validation and a depth limit; the values are then
 *	held to their grammar: the domain and MX host names to domain_check
 *	(lower case out), the addresses to inet_pton, the texts to
 *	printable ASCII (reason texts are cut at MAILLOG_REASON_LEN, other
 *	bytes replaced by '?').
 * LIMITS
 *	DGRAM_MAX bytes; DGRAM_MAX_POLICIES policies, DGRAM_MAX_DETAILS
 *	failure details per policy (more: the datagram is refused),
 *	DGRAM_MAX_LINES policy strings and mx patterns per policy, each at
 *	most DGRAM_MAX_LINE bytes, AGG_MAX_TEXT bytes in all; a record "pr"
 *	of at most DGRAM_MAX_RECORD bytes.
 */
#ifndef TLSRPT_DGRAM_H
#define TLSRPT_DGRAM_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/result.h"

#define DGRAM_MAX		(256 * 1024)	/* bytes of one datagram */
#define DGRAM_MAX_POLICIES	AGG_MAX_POLICIES
#define DGRAM_MAX_DETAILS	AGG_MAX_DETAILS
#define DGRAM_MAX_LINES		1024	/* strings, patterns per policy */
#define DGRAM_MAX_LINE		8192	/* bytes of one */
#define DGRAM_MAX_RECORD	4096	/* the TLSRPT record, as rua.h */
#define DGRAM_DEPTH		8	/* JSON nesting: 4 are used */

enum dgram_status {
	DGRAM_OK = 0,
	DGRAM_VERSION,		/* a "dpv" other than "1" */
	DGRAM_JSON,		/* not one JSON object, strict, UTF-8 */
	DGRAM_FORM,		/* a field missing or of the wrong type */
	DGRAM_DOMAIN,		/* "d" (or a host name) is not a domain */
	DGRAM_CODE,		/* an unknown policy type or result code */
	DGRAM_LIMIT,		/* past a limit above */
	DGRAM_STATUS_MAX = DGRAM_LIMIT,
};

struct dgram_detail {
	enum tlsrpt_result result;
	char		 host[DOMAIN_BUFSZ];	/* "n", lower case; or "" */
	char		 addr[MAILLOG_ADDR_LEN];	/* "r"; or "" */
	char		 reason[MAILLOG_REASON_LEN];	/* "f", else "a" */
};

struct dgram_policy {
	enum tlsrpt_policy_type type;
	int		 failed;		/* "f" */
	struct buf	 strings;		/* policy-string, '\n' after
						   each (agg.h) */
	struct buf	 mx;			/* mx-host, '\n' after each */
	size_t		 ndetails;
	struct dgram_detail details[DGRAM_MAX_DETAILS];
};

struct dgram {
	int		 version;		/* 0: no "dpv", 1 */
	char		 domain[DOMAIN_BUFSZ];	/* "d", lower case */
	size_t		 npolicies;
	struct dgram_policy policies[DGRAM_MAX_POLICIES];
};

/* dgram_new - an empty datagram (large: allocate once, parse many) */
struct dgram	*dgram_new(void);

/* dgram_free - NULL is a no-op */
void		 dgram_free(struct dgram *d);

/*
 * dgram_parse - parse p[0..len) (need not be NUL-terminated) into d;
 * DGRAM_OK, or why not with a message in why[0..whysz) (static text and
 * the field at fault, printable)
 */
enum dgram_status dgram_parse(const char *p, size_t len, struct dgram *d,
		    char *why, size_t whysz);

/* dgram_status_name - "ok", "version", "json", "form", "domain", "code",
 * "limit": the reason label of the refusal counters */
const char	*dgram_status_name(int s);

#endif
