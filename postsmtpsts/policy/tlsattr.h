/*
 * tlsattr.h - the TLS protocol and cipher attributes of a Postfix policy
 * line: protocols=, ciphers=, exclude=
 *
 * An operator writes them in a pin ("domain" section) and as a map's
 * floor (tls_protocols, tls_ciphers, tls_exclude); the configuration
 * loader checks each value here, once, so that a typo is a
 * "file:line: message" at load and not a deferred message at delivery
 * (Postfix marks a policy it cannot use invalid: "client TLS
 * configuration problem", 4.7.5).  The grammar is the subset of Postfix's
 * (postconf(5) smtp_tls_mandatory_protocols, smtp_tls_mandatory_ciphers,
 * smtp_tls_mandatory_exclude_ciphers; src/tls/tls_misc.c
 * tls_proto_mask_lims, tls_cipher_grade, tls_set_ciphers) that a policy
 * line can carry and that means what it says:
 *	protocols	':'-separated tokens NAME, !NAME, >=NAME, <=NAME;
 *			NAME SSLv2 SSLv3 TLSv1 TLSv1.1 TLSv1.2 TLSv1.3, case
 *			as written (Postfix matches them exactly); a bound
 *			(Postfix >= 3.6) names SSLv3 to TLSv1.3, at most one
 *			of each; the value must leave some protocol allowed
 *	ciphers		high or medium (any case; written in lower case):
 *			Postfix >= 3.6 reads low and export as medium, and
 *			null encrypts nothing
 *	exclude		':'-separated OpenSSL cipher names or aliases, each
 *			starting with a letter or digit (Postfix refuses a
 *			leading '!', '+', '-' or '@'), of [A-Za-z0-9._+=-]
 * No whitespace or ',' anywhere: they separate a policy line's attributes.
 * Limits: TLSATTR_MAX_VALUE bytes a value, TLSATTR_MAX_TOKENS tokens.
 * Pure: no allocation, no I/O.
 */
#ifndef TLSATTR_H
#define TLSATTR_H

#include <stddef.h>

#define TLSATTR_MAX_VALUE	256	/* bytes of one value */
#define TLSATTR_MAX_TOKENS	32	/* ':'-separated tokens of one value */
#define TLSATTR_WHY_MAX		192	/* tlsattr_check()'s why */

/* The three attributes, as bits (decide.h's pin carries which it set). */
enum tlsattr_kind {
	TLSATTR_PROTOCOLS = 0,
	TLSATTR_CIPHERS,
	TLSATTR_EXCLUDE,
	TLSATTR_NKINDS,
};
#define TLSATTR_BIT(k)		(1U << (k))

/* tlsattr_name - "protocols", "ciphers", "exclude" */
const char *tlsattr_name(enum tlsattr_kind k);

/*
 * tlsattr_check - check the value p[0..len) of attribute k and write it,
 * normalized (ciphers in lower case, the others as written), to
 * out[TLSATTR_MAX_VALUE + 1] (NUL-terminated).  Returns 0, or -1 with why
 * it is refused in why[whysz]: a phrase that follows the quoted value,
 * e.g. "is not a protocol: names are case-sensitive (TLSv1.2 ...)".
 */
int	tlsattr_check(enum tlsattr_kind k, const char *p, size_t len,
	    char *out, char *why, size_t whysz);

#endif
