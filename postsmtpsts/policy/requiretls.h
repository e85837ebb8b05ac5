/*
 * requiretls.h - would a REQUIRETLS message go out with this answer?
 *
 * RFC 8689 §4.2: a message with REQUIRETLS goes only to an MX host whose
 * name was found securely and whose certificate was verified: DANE
 * (DNSSEC + TLSA) or MTA-STS.  Postfix 3.11 implements it
 * (REQUIRETLS_README, www.postfix.org): "every server certificate in the
 * forward path must be verified.  In practice, this involves DANE
 * (+DNSSEC) or MTA-STS", and a message is returned where "no trusted or
 * no matching server certificate" was found.  What Postfix checks is the
 * TLS security level our answer sets: a level that verifies the
 * certificate (Postfix's TLS_MUST_MATCH levels: fingerprint, verify,
 * secure, dane-only, and dane on a host with usable TLSA) can carry the
 * message; encrypt (TLS, no authentication) and may or none cannot.
 * The exact list is inferred from the README and Postfix's levels, not
 * read from 3.11's source.
 *
 * Both functions are pure: postsmtpsts-query prints the verdict, the
 * daemon counts its answers by level (stats.h, postsmtpsts_answers_total).
 */
#ifndef REQUIRETLS_H
#define REQUIRETLS_H

#include <stddef.h>

#include "lib/sockmap.h"

/* The level an answer sets, label level= of postsmtpsts_answers_total.
 * In the order of requiretls_level_name(). */
enum requiretls_level {
	REQUIRETLS_LEVEL_DANE_ONLY = 0,
	REQUIRETLS_LEVEL_DANE,
	REQUIRETLS_LEVEL_SECURE,
	REQUIRETLS_LEVEL_VERIFY,
	REQUIRETLS_LEVEL_FINGERPRINT,
	REQUIRETLS_LEVEL_ENCRYPT,
	REQUIRETLS_LEVEL_MAY,
	REQUIRETLS_LEVEL_NONE,		/* OK "none": TLS off */
	REQUIRETLS_LEVEL_NOTFOUND,	/* Postfix's default level applies */
	REQUIRETLS_LEVEL_TEMP,		/* TEMP or TIMEOUT: mail waits */
	REQUIRETLS_LEVEL_OTHER,		/* PERM, or an OK level unknown here */
	REQUIRETLS_LEVEL_COUNT,
};

enum requiretls_verdict {
	REQUIRETLS_YES,		/* delivered: every host authenticated */
	REQUIRETLS_NO,		/* returned (or, TEMP, not sent now) */
	REQUIRETLS_DEPENDS,	/* on the MX host Postfix connects to */
};

/*
 * requiretls_level_of - the level of a reply: st and its data (after
 * "OK ", len bytes, need not be NUL-terminated); the first word of an OK
 * reply, up to a blank or a comma, case-insensitive as in Postfix
 */
enum requiretls_level requiretls_level_of(enum sockmap_status st,
	    const char *data, size_t len);

/*
 * requiretls_level_of_reply - the same for a reply as text, "STATUS data"
 * or "NOTFOUND" alone (postsmtpsts-query's answer line)
 */
enum requiretls_level requiretls_level_of_reply(const char *reply,
	    size_t len);

/* requiretls_verdict - the verdict for a level, and why (static text) */
enum requiretls_verdict requiretls_verdict(enum requiretls_level level,
	    const char **reason);

/* requiretls_level_name - "dane-only", ..., "notfound", "temp", "other" */
const char *requiretls_level_name(enum requiretls_level level);

/* requiretls_verdict_name - "yes", "no", "depends" */
const char *requiretls_verdict_name(enum requiretls_verdict v);

#endif
