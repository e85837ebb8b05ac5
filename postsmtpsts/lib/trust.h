/*
 * trust.h - the WebPKI trust store for policy fetches, loaded once
 *
 * One struct trust per process (the resolver makes it in https_new(), so
 * a SIGHUP, which starts a new resolver, loads it again).  It holds every
 * anchor of the CA file (https.ca_file, or the system bundle) as DER,
 * indexed by raw subject name, and one shared gnutls trust list into which
 * an anchor is parsed the first time a peer's chain names it: verification
 * only ever looks anchors up by subject name, so the shared list answers
 * exactly as the whole store would, while holding (and costing) only the
 * few CAs that policy hosts actually use.
 *
 * trust_verify_session() checks the peer of a finished TLS handshake: the
 * chain against the anchors (dates, signatures, basic constraints, name
 * constraints, key purpose TLS WWW server) and host against the end-entity
 * certificate (RFC 6125 rules as implemented by GnuTLS: SAN dNSName,
 * wildcards in the left-most label only), under the GnuTLS verification
 * profile MEDIUM (key sizes, signature algorithms), with stapled OCSP
 * responses and must-staple honoured as gnutls_certificate_verify_peers()
 * honours them.  RFC 8461 §3.3.
 */
#ifndef TRUST_H
#define TRUST_H

#include <stddef.h>

#include <gnutls/gnutls.h>

#define TRUST_MAX_CHAIN		16	/* peer certificates: GnuTLS's own
					   verification depth */
#define TRUST_MAX_ANCHORS	4096	/* certificates in a CA file */
#define TRUST_SYSTEM_BUNDLE	"/etc/ssl/certs/ca-certificates.crt"

struct trust;

/*
 * trust_new - load ca_file (PEM), or the system store when NULL (the
 * Debian bundle TRUST_SYSTEM_BUNDLE when it exists, else GnuTLS's system
 * trust, parsed whole).  NULL with a message in err (size errsz) when the
 * file cannot be read or holds no certificate.
 */
struct trust	*trust_new(const char *ca_file, char *err, size_t errsz);

/* trust_free - release t; NULL: no-op */
void		 trust_free(struct trust *t);

/* trust_anchors - how many anchors the store holds; trust_parsed - how many
 * of them have been parsed into the shared list so far */
size_t		 trust_anchors(const struct trust *t);
size_t		 trust_parsed(const struct trust *t);

enum trust_verdict {
	TRUST_OK = 0,		/* a chain to an anchor, valid now, for host */
	TRUST_REJECTED,		/* verified and found bad (PKIX, profile,
				   name, OCSP staple or must-staple) */
	TRUST_UNVERIFIABLE,	/* cannot be verified at all: no X.509 chain,
				   more than TRUST_MAX_CHAIN certificates,
				   unparsable (as gnutls_certificate_verify_
				   peers would refuse it) */
};

/*
 * trust_verify_session - TRUST_OK if the peer of session s (handshake
 * complete) has a chain to an anchor valid now for host; otherwise a short
 * reason in why (size whysz).  A session without an X.509 peer chain (a
 * resumed session, raw keys, PSK) fails: nothing is ever taken on trust.
 */
enum trust_verdict trust_verify_session(struct trust *t, gnutls_session_t s,
		    const char *host, char *why, size_t whysz);

#endif
