/*
 * fleet_record.h - the value of one fleet key: a cache record, versioned,
 * optionally authenticated
 *
 * NAME
 *	fleet_record - encode, decode and expire the records the fleet tier
 *	(fleet.h) keeps in Redis
 * SYNOPSIS
 *	fleet_record_encode(key, klen, rec, mackey, mlen, out, outsz, &outlen)
 *	fleet_record_decode(key, klen, p, len, mackey, mlen, &rec)
 *	fleet_record_ttl(rec, now, grace)
 * DESCRIPTION
 *	A fleet value is
 *
 *	    version (1 byte, FLEET_RECORD_VERSION: 2; 1 is still read)
 *	    flags   (1 byte: FLEET_RECORD_F_MAC, other bits 0)
 *	    record  (cache_record_encode() bytes, to the end or the MAC)
 *	    mac     (FLEET_RECORD_MAC_LEN bytes, when FLEET_RECORD_F_MAC)
 *
 *	The MAC is HMAC-SHA256 (GnuTLS) over FLEET_RECORD_MAC_LABEL
 *	("postsmtpsts-fleet-v2"), the cache key's length (2 bytes, network
 *	order) and bytes (the domain, or "dane:" + domain: not the Redis
 *	prefix), then version, flags and record.  Version 1, written until
 *	issue 37, has label "postsmtpsts-fleet-v1" and the key's length in
 *	ONE byte, although keys reach CACHE_KEY_MAX (258) bytes: a 256-byte key
 *	is MACed with length 0 (ambiguous in principle, not exploitable:
 *	the key's bytes follow and every key is a valid name).  Version 1
 *	values are still read and checked under their own rule, so a fleet
 *	keeps working while it is upgraded; every writer writes version 2.
 *	A reader older than version 2 refuses a version 2 value
 *	(FLEET_DECODE_VERSION: "bad-version", as for any unknown version:
 *	it never parses it) and treats the key as empty: it discovers on its
 *	own and may write a version 1 value over it, which the new readers
 *	take.  The key name binds a record to its domain, so a valid record
 *	cannot be copied to another domain.  With a MAC key configured, a
 *	value without a MAC or with a wrong one is refused
 *	(FLEET_DECODE_UNSIGNED, FLEET_DECODE_MAC): write access to Redis
 *	alone cannot inject a policy (it can replay a value signed earlier
 *	for the same key until that value's own expiry: SECURITY.md).
 *	Without a key, a MAC is skipped over, not checked.
 *	The record's kind must fit the key: "dane:" keys hold kind dane,
 *	domain keys kind none or sts.
 * LIMITS
 *	FLEET_RECORD_MAX_LEN bytes a value; anything longer is refused
 *	before any work.  Pure: no I/O, no clock, no allocation.
 */
#ifndef FLEET_RECORD_H
#define FLEET_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"

#define FLEET_RECORD_VERSION	2	/* written */
#define FLEET_RECORD_VERSION_V1	1	/* still read: 1-byte key length */
#define FLEET_RECORD_F_MAC	0x01
#define FLEET_RECORD_MAC_LEN	32	/* SHA-256 */
#define FLEET_RECORD_MAC_LABEL	"postsmtpsts-fleet-v2"
#define FLEET_RECORD_MAC_LABEL_V1 "postsmtpsts-fleet-v1"
#define FLEET_RECORD_HEAD_LEN	2
#define FLEET_RECORD_MAX_LEN	(FLEET_RECORD_HEAD_LEN + \
	    CACHE_RECORD_MAX_LEN + FLEET_RECORD_MAC_LEN)

enum fleet_decode_status {
	FLEET_DECODE_OK = 0,
	FLEET_DECODE_SHORT,	/* shorter than a header and a MAC */
	FLEET_DECODE_LONG,	/* over FLEET_RECORD_MAX_LEN */
	FLEET_DECODE_VERSION,	/* another version or unknown flags */
	FLEET_DECODE_UNSIGNED,	/* no MAC, but a key is configured */
	FLEET_DECODE_MAC,	/* the MAC does not match */
	FLEET_DECODE_RECORD,	/* the record does not decode */
	FLEET_DECODE_KIND,	/* the record's kind does not fit the key */
	FLEET_DECODE_COUNT,
};

/*
 * fleet_record_encode - the value for rec under cache key key[0..klen),
 * MACed with mackey[0..mlen) unless mackey is NULL
 *
 * Returns 0 with *outlen set, or -1 if rec does not encode (see
 * cache_record_encode), its kind does not fit the key, the key is not a
 * cache key, or outsz < the value (FLEET_RECORD_MAX_LEN always suffices).
 */
int	fleet_record_encode(const char *key, size_t klen,
	    const struct cache_record *rec, const unsigned char *mackey,
	    size_t mlen, unsigned char *out, size_t outsz, size_t *outlen);

/*
 * fleet_record_decode - check and parse the value p[0..len) of cache key
 * key[0..klen) into *out; mackey as for fleet_record_encode (NULL: MACs
 * are not checked).  *out is unspecified unless FLEET_DECODE_OK.
 */
enum fleet_decode_status fleet_record_decode(const char *key, size_t klen,
	    const unsigned char *p, size_t len, const unsigned char *mackey,
	    size_t mlen, struct cache_record *out);

/*
 * fleet_record_ttl - how long Redis keeps rec at now, in seconds (0: it
 * has expired, do not write it)
 *
 * An STS record lives until expires_at plus grace, so a host can still see
 * the id and the mode it must not be downgraded from after max_age ran
 * out; negative and DANE records live exactly until expires_at (their
 * lifetimes are the negative TTL and the DNS TTLs).
 */
int64_t	fleet_record_ttl(const struct cache_record *rec, int64_t now,
	    int64_t grace);

/*
 * Sealed values: the same envelope around bytes other than a cache record
 * (the reporter's fleet aggregate, tlsrpt/fleetagg.h), under a version of
 * their own so that neither kind is ever parsed as the other:
 *
 *	version (1 byte, the caller's: FLEET_RECORD_V_TLSRPT)
 *	flags   (1 byte: FLEET_RECORD_F_MAC, other bits 0)
 *	payload (to the end or the MAC)
 *	mac     (when FLEET_RECORD_F_MAC: HMAC-SHA256 over
 *	        FLEET_RECORD_SEAL_LABEL, the version, the key's length (2
 *	        bytes, network order) and bytes, then version, flags, payload)
 *
 * The key is the Redis key's name after the prefix (any bytes, at most
 * FLEET_RECORD_SEAL_KEY_MAX), so a value sealed for one domain, day and
 * host cannot be moved to another.
 */
#define FLEET_RECORD_V_TLSRPT	16	/* the reporter's parts and states */
#define FLEET_RECORD_SEAL_LABEL	"postsmtpsts-fleet-sealed"
#define FLEET_RECORD_SEAL_KEY_MAX 1024
#define FLEET_RECORD_SEAL_MAX	(1 << 20)	/* a sealed value's bytes */

/* fleet_record_seal - append the value of payload p[0..len) under key to
 * out (outsz bytes), version v: 0 with *outlen, or -1 (too long) */
int	fleet_record_seal(unsigned char v, const char *key, size_t klen,
	    const void *p, size_t len, const unsigned char *mackey,
	    size_t mlen, unsigned char *out, size_t outsz, size_t *outlen);

/*
 * fleet_record_open - check the sealed value p[0..len) of key, version v:
 * FLEET_DECODE_OK with the payload at *pl (inside p), *pllen bytes;
 * FLEET_DECODE_VERSION for any other version or flag (never parsed),
 * FLEET_DECODE_UNSIGNED / _MAC as for records, _SHORT / _LONG
 */
enum fleet_decode_status fleet_record_open(unsigned char v, const char *key,
	    size_t klen, const unsigned char *p, size_t len,
	    const unsigned char *mackey, size_t mlen, const unsigned char **pl,
	    size_t *pllen);

/* "ok", "short", "long", "bad-version", "unsigned", "bad-mac", ... */
const char *fleet_decode_status_name(enum fleet_decode_status st);

#endif
