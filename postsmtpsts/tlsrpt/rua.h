/*
 * rua.h - the TLSRPT policy record (RFC 8460 §3) and its report URIs
 *
 * NAME
 *	rua - parse "v=TLSRPTv1; rua=..." from TXT _smtp._tls.<domain>
 * SYNOPSIS
 *	rua_select(txt, lens, n, &i)	the one TLSRPT record of an RRset
 *	rua_parse(p, len, &list)	its destinations
 * DESCRIPTION
 *	RFC 8460 §3:
 *	  tlsrpt-record    = tlsrpt-version 1*(field-delim tlsrpt-field)
 *	                     [field-delim]
 *	  field-delim      = *WSP ";" *WSP
 *	  tlsrpt-field     = tlsrpt-rua / tlsrpt-extension
 *	  tlsrpt-version   = %s"v=TLSRPTv1"
 *	  tlsrpt-rua       = %s"rua=" tlsrpt-uri *(*WSP "," *WSP tlsrpt-uri)
 *	  tlsrpt-extension = tlsrpt-ext-name "=" tlsrpt-ext-value
 *	  tlsrpt-ext-name  = (ALPHA / DIGIT) *31(ALPHA / DIGIT / "_" /
 *	                     "-" / ".")
 *	  tlsrpt-ext-value = 1*(%x21-3A / %x3C / %x3E-7E)
 *	Exactly one record must begin with "v=TLSRPTv1" (rua_select);
 *	exactly one rua field is required; unknown extensions are ignored.
 *
 *	The URIs are published by whoever controls the domain's DNS and are
 *	handed to sendmail(1) and libcurl, so each is held to a strict
 *	subset of what the RFCs allow, and refused (counted, with a reason)
 *	otherwise:
 *	  mailto:LOCAL@DOMAIN  (RFC 6068) one address after %XX decoding,
 *	    LOCAL a dot-atom of at most 64 bytes, DOMAIN a host name of two
 *	    labels or more (domain_check): no address literal, no quotes,
 *	    no blank, no control byte, no '<' '>' '\' - nothing that could
 *	    break a header line or a command line; "?hfields" are ignored
 *	    (the report sets its own headers);
 *	  https://HOST[:PORT][/PATH][?QUERY]  HOST a host name (no IP
 *	    literal, no user@), PATH and QUERY of RFC 3986 characters, no
 *	    fragment;
 *	  any other scheme (http:, ftp:, file:, ...) is refused.
 * LIMITS
 *	A record of more than RUA_MAX_RECORD bytes is RUA_INVALID; a URI of
 *	more than RUA_MAX_URI bytes is refused; the first RUA_MAX_DESTS
 *	usable URIs are kept, the rest refused as "too many".  Pure: no
 *	allocation, no I/O, no NUL needed: fuzzed by tests/fuzz/fuzz_rua.c.
 */
#ifndef TLSRPT_RUA_H
#define TLSRPT_RUA_H

#include <stddef.h>

#include "lib/domain.h"

#define RUA_MAX_RECORD		4096	/* bytes of the joined TXT record */
#define RUA_MAX_URI		512	/* bytes of one URI, as published */
#define RUA_MAX_DESTS		4	/* destinations kept */
#define RUA_LOCAL_MAX		64	/* RFC 5321 §4.5.3.1.1 */
#define RUA_MAILBOX_LEN		(RUA_LOCAL_MAX + 1 + DOMAIN_MAX_LEN + 1)
#define RUA_WHY_LEN		128

enum rua_scheme {
	RUA_MAILTO = 1,
	RUA_HTTPS = 2,
};

struct rua_dest {
	enum rua_scheme	 scheme;
	char		 uri[RUA_MAX_URI + 1];	/* as published */
	char		 mailbox[RUA_MAILBOX_LEN]; /* mailto: local@domain */
	char		 host[DOMAIN_BUFSZ];	/* https: lower case */
	unsigned int	 port;			/* https: 443 if none */
	char		 path[RUA_MAX_URI + 1];	/* https: "/..." [?query] */
};

struct rua_list {
	size_t		 n;
	struct rua_dest	 dest[RUA_MAX_DESTS];
	size_t		 refused;	/* URIs not used */
	char		 why[RUA_WHY_LEN]; /* the first refusal, or "" */
};

enum rua_status {
	RUA_OK = 0,		/* a valid record, n >= 1 */
	RUA_NO_USABLE,		/* a valid record whose every URI was
				   refused (why says why) */
	RUA_INVALID,		/* not a valid TLSRPTv1 record (why) */
};

/*
 * rua_select - which of the n joined TXT records txt[i][0..lens[i]) is
 * the TLSRPT record: the one that begins with "v=TLSRPTv1" followed by a
 * field delimiter or its end (§3: others are discarded).  0 and *index
 * set if there is exactly one, -1 if none, -2 if several (§3: then the
 * domain does not implement TLSRPT).
 */
int		rua_select(const char *const *txt, const size_t *lens,
		    size_t n, size_t *index);

/*
 * rua_parse - the destinations of the record p[0..len)
 *
 * Fills *out (every field, also on failure) and returns RUA_OK,
 * RUA_NO_USABLE or RUA_INVALID.
 */
enum rua_status	rua_parse(const char *p, size_t len, struct rua_list *out);

/* rua_status_name - "ok", "no-usable-uri", "invalid" */
const char	*rua_status_name(enum rua_status st);

#endif
