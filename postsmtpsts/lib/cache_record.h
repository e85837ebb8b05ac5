/*
 * cache_record.h - the cache record: facts about a domain and their codec
 *
 * struct cache_record holds what the resolver learned about a domain (kind
 * of policy, STS mode and id, MX patterns, DNSSEC status, times).  Its
 * encoding is the value of an LMDB entry (cache.h) and the payload of the
 * resolver's replies to the workers (ipc.h).  Everything here is pure: no
 * I/O, no clock (callers pass now).  The decoder sees bytes from disk and
 * from another process: fuzzed by tests/fuzz/fuzz_cache_record.c.
 *
 * Keys: a normalized domain for the MTA-STS facts, "dane:" + domain for the
 * DANE facts (cache_dane_key()).
 */
#ifndef CACHE_RECORD_H
#define CACHE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "lib/domain.h"

#define CACHE_RECORD_VERSION	2
#define CACHE_RECORD_VERSION_V1	1	/* still decoded (no TXT check time):
					   the TXT check is then due at once */
#define CACHE_RECORD_MAGIC	0xca	/* first byte of every encoded value */
#define CACHE_MX_BYTES_MAX	65536	/* the mx patterns of a record, each
					   counted with one byte more (its
					   length byte / NUL): what a policy
					   of RFC 8461's 64 KiB can hold */
#define CACHE_MAX_MX		65535	/* nmx is 16 bits on the wire; the
					   byte limit binds first (13107) */
#define CACHE_MX_LEN		256	/* "*." + 253 + NUL */
#define CACHE_ID_LEN		33	/* 32 + NUL (RFC 8461 §3.1) */
#define CACHE_DANE_PREFIX	"dane:"
#define CACHE_DANE_PREFIX_LEN	5
#define CACHE_KEY_MAX		(CACHE_DANE_PREFIX_LEN + DOMAIN_MAX_LEN)

/* Encoded sizes: the fixed part, and the largest possible record. */
#define CACHE_RECORD_FIXED_LEN_V1 (2 + 5 + 4 + 4 * 8)
#define CACHE_RECORD_FIXED_LEN	(CACHE_RECORD_FIXED_LEN_V1 + 4 + 8)
#define CACHE_RECORD_MAX_LEN	(CACHE_RECORD_FIXED_LEN + \
	    1 + (CACHE_ID_LEN - 1) + 2 + CACHE_MX_BYTES_MAX)

#define CACHE_DEFAULT_MAP_SIZE	((size_t)1 << 30)  /* new env, map_size 0 */
#define CACHE_MAX_READERS	512	/* reader slots: one per open handle */

enum cache_kind {
	CACHE_KIND_NONE = 1,	/* no policy (negative entry) */
	CACHE_KIND_STS = 2,
	CACHE_KIND_DANE = 3,
};

enum cache_sts_mode {
	CACHE_STS_NONE = 0,
	CACHE_STS_TESTING = 1,
	CACHE_STS_ENFORCE = 2,
};

enum cache_dnssec {
	CACHE_DNSSEC_UNKNOWN = 0,
	CACHE_DNSSEC_INSECURE = 1,
	CACHE_DNSSEC_SECURE = 2,
	CACHE_DNSSEC_BOGUS = 3,
};

/*
 * What is known about one domain.  Strings are NUL-terminated.  The MX
 * patterns live in a heap block the record owns: mx[0..mxlen) holds nmx
 * patterns back to back, each followed by a NUL (read them with
 * cache_record_mx_next()).  A record therefore starts zeroed
 * (cache_record_init(), a static, or "= { 0 }"), is copied only with
 * cache_record_copy() (a struct assignment would share the block), and
 * ends with cache_record_release().  The block only grows, so a record
 * reused for every lookup (a worker's) allocates only when it meets a
 * larger policy than before.
 */
struct cache_record {
	uint8_t	 kind;		/* enum cache_kind */
	uint8_t	 sts_mode;	/* enum cache_sts_mode, kind STS */
	uint8_t	 dnssec;	/* DNSSEC status of the _mta-sts TXT (or MX
				   for DANE) */
	uint8_t	 dane;		/* kind DANE: enum dane_state (opaque to
				   the cache; any value decodes, see
				   cache_record.c) */
	uint8_t	 last_error;	/* failure kind of the last refresh attempt,
				   0 = none (opaque to the cache) */
	uint32_t max_age;	/* seconds, STS */
	int64_t	 fetched_at;	/* unix time of the last successful fetch */
	int64_t	 expires_at;	/* entry is not used after this */
	int64_t	 next_refresh;	/* resolver re-checks at/after this */
	int64_t	 last_error_at;	/* 0 if none */
	uint32_t txt_ttl;	/* STS: TTL of the _mta-sts TXT as DNS gave
				   it (clamped by facts.c); 0 = unknown */
	int64_t	 txt_checked_at; /* STS: unix time the TXT id was last
				   seen (fetch or id check); 0 = never */
	char	 id[CACHE_ID_LEN];	/* STS id from the TXT record */
	uint16_t nmx;		/* patterns at mx */
	uint32_t mxlen;		/* bytes of mx in use, NULs included:
				   <= CACHE_MX_BYTES_MAX */
	uint32_t mxcap;		/* bytes allocated at mx */
	char	*mx;		/* RFC 8461 patterns as published (keep
				   "*."); NULL when none was ever held */
};

/* Why cache_record_decode() refused a value. */
enum cache_decode_status {
	CACHE_DECODE_OK = 0,
	CACHE_DECODE_MAGIC,	/* first byte is not CACHE_RECORD_MAGIC */
	CACHE_DECODE_VERSION,	/* another format version */
	CACHE_DECODE_TRUNCATED,	/* ends inside a field */
	CACHE_DECODE_TRAILING,	/* bytes after the last field */
	CACHE_DECODE_RANGE,	/* unknown kind, mode or dnssec value */
	CACHE_DECODE_LENGTH,	/* string length or nmx over its limit */
	CACHE_DECODE_CHAR,	/* a byte a string may not hold */
};

/* cache_record_init - an empty record owning no memory (all zero) */
void	cache_record_init(struct cache_record *rec);
/* cache_record_release - free what rec owns; rec is left as after init */
void	cache_record_release(struct cache_record *rec);
/* cache_record_copy - make dst a deep copy of src (dst initialized; its
 * block is reused when large enough) */
void	cache_record_copy(struct cache_record *dst,
	    const struct cache_record *src);
/* cache_record_reset - every field zero, no pattern; the block is kept
 * (rec initialized) */
void	cache_record_reset(struct cache_record *rec);
/* cache_record_mx_clear - forget the patterns (the block is kept) */
void	cache_record_mx_clear(struct cache_record *rec);
/*
 * cache_record_mx_add - append pattern p[0..len) (no NUL needed)
 *
 * Returns -1, rec unchanged, if len is 0 or > CACHE_MX_LEN - 1, or the
 * record would pass CACHE_MAX_MX patterns or CACHE_MX_BYTES_MAX bytes.
 * The characters are checked by cache_record_encode(), not here.
 */
int	cache_record_mx_add(struct cache_record *rec, const char *p,
	    size_t len);
/*
 * cache_record_mx_next - iterate over the patterns
 *
 * Start with *pos = 0; returns the next NUL-terminated pattern (its length
 * in *len if len is not NULL), or NULL at the end.
 */
const char *cache_record_mx_next(const struct cache_record *rec, size_t *pos,
	    size_t *len);

/*
 * cache_record_encode - the on-disk form of rec, into out[0..outsz)
 *
 * Pure.  Sets *outlen and returns 0, or returns -1 if rec would not decode
 * (bad kind/mode/dnssec, unterminated or bad string, mxlen not matching
 * nmx patterns or over CACHE_MX_BYTES_MAX) or
 * outsz is too small; CACHE_RECORD_MAX_LEN bytes always suffice.  The
 * encoding is canonical: decoding a value and encoding the result gives
 * the same bytes.
 */
int	cache_record_encode(const struct cache_record *rec, unsigned char *out,
	    size_t outsz, size_t *outlen);

/*
 * cache_record_decode - parse p[0..len) into *out
 *
 * p need not be aligned or NUL-terminated.  *out must be initialized (see
 * struct cache_record): its mx block is grown (xrealloc) when the value
 * holds more pattern bytes than it has room for, and is otherwise reused;
 * no other allocation and no I/O.  CACHE_DECODE_OK, or why the value was
 * refused (then *out is unspecified but still releasable).  A version 1 value
 * (written before the TXT check time existed) decodes with txt_ttl and
 * txt_checked_at 0, so a cached policy survives an upgrade (no downgrade
 * through a format change) and its TXT id is re-checked on first use.
 */
enum cache_decode_status cache_record_decode(const unsigned char *p,
	    size_t len, struct cache_record *out);

/* cache_key_valid - 1 if key[0..len) is a key the cache takes: an optional
 * "dane:" prefix, then 1..DOMAIN_MAX_LEN bytes of [a-z0-9_.-], no dot at
 * either end (domain_normalize() output always is).  Pure. */
int	cache_key_valid(const char *key, size_t len);

/* cache_dane_key - "dane:" + domain[0..len) into out (CACHE_KEY_MAX + 1
 * bytes), NUL-terminated; returns its length */
size_t	cache_dane_key(const char *domain, size_t len, char *out);

/* cache_key_domain - the domain part of key[0..len): *dane is set to 1 for
 * a DANE key; returns a pointer into key and its length in *dlen */
const char *cache_key_domain(const char *key, size_t len, size_t *dlen,
	    int *dane);

/*
 * CACHE_CLOCK_SLACK - a stored time more than this ahead of the clock was
 * written before the wall clock stepped back (settimeofday, an NTP step):
 * the schedules built on it are not waited for (facts.h)
 */
#define CACHE_CLOCK_SLACK	60

/*
 * cache_record_fresh - 1 if rec may still be used at now: now < expires_at,
 * and for a negative entry (kind none) not fetched more than
 * CACHE_CLOCK_SLACK ahead of now (the clock stepped back: a "no policy"
 * of a few minutes must not hold for the length of the step)
 */
int	cache_record_fresh(const struct cache_record *rec, int64_t now);
/* cache_record_needs_refresh - 1 if the resolver should re-check rec at now:
 * now >= next_refresh, or rec is no longer fresh */
int	cache_record_needs_refresh(const struct cache_record *rec, int64_t now);

/* Names for logs and the tool: "none", "sts", "dane", "?" if unknown. */
const char *cache_kind_name(int kind);
/* "none", "testing", "enforce" */
const char *cache_sts_mode_name(int mode);
/* "unknown", "insecure", "secure", "bogus" */
const char *cache_dnssec_name(int dnssec);
/* "ok", "bad-magic", "bad-version", "truncated", "trailing-bytes", ... */
const char *cache_decode_status_name(enum cache_decode_status st);

#endif
