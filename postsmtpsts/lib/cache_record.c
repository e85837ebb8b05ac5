/*
 * cache_record.c - the cache record codec (pure)
 *
 * Interface in cache_record.h: cache_record_encode/cache_record_decode, the
 * key helpers (cache_key_valid, cache_dane_key, cache_key_domain), the
 * freshness tests and the names for logs.  The LMDB store is cache.c; the
 * same encoding travels from the resolver to the workers (ipc.c).
 *
 * Value format, version 2.  Integers little-endian; strings length-prefixed
 * (never NUL-terminated); every length checked before it is used:
 *   off len
 *     0   1  magic CACHE_RECORD_MAGIC (0xca)
 *     1   1  version CACHE_RECORD_VERSION (2; 1 is still read, below)
 *     2   1  kind: 1 none, 2 sts, 3 dane
 *     3   1  sts_mode: 0 none, 1 testing, 2 enforce
 *     4   1  dnssec: 0 unknown, 1 insecure, 2 secure, 3 bogus
 *     5   1  dane (opaque here: enum dane_state, 0..5; see below)
 *     6   1  last_error (opaque)
 *     7   4  max_age
 *    11   8  fetched_at      (signed 64-bit unix times)
 *    19   8  expires_at
 *    27   8  next_refresh
 *    35   8  last_error_at
 *    43   4  txt_ttl         (version 2 only)
 *    47   8  txt_checked_at  (version 2 only)
 *    55   1  n = id length, 0..32, then n bytes of visible ASCII (0x21-0x7e:
 *            RFC 8461 §3.1 allows only 1*32(ALPHA / DIGIT); upstream checks)
 *     .   2  nmx, 0..CACHE_MAX_MX, then nmx times: 1 byte m = 1..255 and m
 *            bytes of pattern: an optional leading "*." then [A-Za-z0-9_.-]
 *            (RFC 8461 §3.2 / §4.1; so no ':' or blank can reach a Postfix
 *            match= list); the nmx (1 + m) add up to at most
 *            CACHE_MX_BYTES_MAX (64 KiB: every policy RFC 8461 §3.2 allows
 *            fits, since its mx lines take more bytes than that; issue 13)
 * Nothing may follow.  A value is accepted whole or refused; any other
 * magic or version (a newer format) is a miss for cache_get and is
 * replaced by the resolver's next write.  Version 1 (the same without the
 * two TXT fields, id at offset 43) is still decoded, with txt_ttl and
 * txt_checked_at 0: an upgrade must not forget a cached enforce policy
 * (that would be a downgrade, RFC 8461 §10.2), and a TXT check time of 0
 * makes the id check due on first use.  Writes are always version 2.  The
 * encoding of version 2 is canonical, so the fuzzer checks decode -> encode
 * gives back the same bytes for it.
 *
 * The dane byte is carried, not checked: its values are policy/dane.h's
 * (none 0, all 1, some 2, failure 3; tls-required 4 and tls-some 5 since
 * issue 29, with no format version change).  A new value needs none: a
 * daemon that predates it decodes the record as before and reads the
 * value as "no DANE" (facts_decide_dane's default), its answer before the
 * value existed, and its eviction ranks it with the failures.  A version
 * bump instead would make every record of the newer daemon a miss to the
 * older one (a package downgrade, a fleet of mixed versions), enforce
 * policies included: a downgrade of its own (RFC 8461 §10.2).
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cache_record.h"
#include "lib/xmalloc.h"

/* Field offsets of the fixed part (see the format above). */
#define CACHE_OFF_KIND		2
#define CACHE_OFF_MODE		3
#define CACHE_OFF_DNSSEC	4
#define CACHE_OFF_DANE		5
#define CACHE_OFF_LASTERR	6
#define CACHE_OFF_MAXAGE	7
#define CACHE_OFF_FETCHED	11
#define CACHE_OFF_EXPIRES	19
#define CACHE_OFF_REFRESH	27
#define CACHE_OFF_ERRAT		35
#define CACHE_OFF_TXTTTL	43
#define CACHE_OFF_TXTAT		47

/* cache_le16 - read a little-endian uint16 */
static uint16_t
cache_le16(const unsigned char *p)
{
	return ((uint16_t)(p[0] | (unsigned int)p[1] << 8));
}

/* cache_le32 - read a little-endian uint32 */
static uint32_t
cache_le32(const unsigned char *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

/* cache_le64 - read a little-endian int64 (two's complement) */
static int64_t
cache_le64(const unsigned char *p)
{
	uint64_t u = 0;
	int	 i;

	for (i = 7; i >= 0; i--)
		u = u << 8 | p[i];
	return ((int64_t)u);
}

/* cache_set_le - write the low n bytes of v little-endian */
static void
cache_set_le(unsigned char *p, uint64_t v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

/* cache_id_valid - an STS id the format can hold: visible ASCII */
static int
cache_id_valid(const unsigned char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return (0);
	return (1);
}

/* cache_mx_valid - an MX pattern the format can hold: ["*."] [A-Za-z0-9_.-]+ */
static int
cache_mx_valid(const unsigned char *s, size_t n)
{
	size_t	 i = 0;
	unsigned char ch;

	if (n >= 2 && s[0] == '*' && s[1] == '.')
		i = 2;
	if (i == n)
		return (0);
	for (; i < n; i++) {
		ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		    ch == '_'))
			return (0);
	}
	return (1);
}

void
cache_record_init(struct cache_record *rec)
{
	memset(rec, 0, sizeof(*rec));
}

void
cache_record_release(struct cache_record *rec)
{
	if (rec == NULL)
		return;
	free(rec->mx);
	cache_record_init(rec);
}

/* cache_record_mx_room - make rec->mx hold at least n bytes */
static void
cache_record_mx_room(struct cache_record *rec, size_t n)
{
	size_t	 cap;

	if (n <= rec->mxcap)
		return;
	/* Grow to a power of two from 256, capped at the limit + 1. */
	for (cap = rec->mxcap > 0 ? rec->mxcap : 256; cap < n; cap *= 2)
		;
	if (cap > CACHE_MX_BYTES_MAX)
		cap = CACHE_MX_BYTES_MAX;
	rec->mx = xreallocarray(rec->mx, cap, 1);
	rec->mxcap = (uint32_t)cap;
}

void
cache_record_copy(struct cache_record *dst, const struct cache_record *src)
{
	char		*mx = dst->mx;
	uint32_t	 cap = dst->mxcap;

	if (dst == src)
		return;
	memcpy(dst, src, sizeof(*dst));
	dst->mx = mx;
	dst->mxcap = cap;
	dst->mxlen = 0;
	if (src->mxlen > 0) {
		cache_record_mx_room(dst, src->mxlen);
		memcpy(dst->mx, src->mx, src->mxlen);
		dst->mxlen = src->mxlen;
	}
}

void
cache_record_reset(struct cache_record *rec)
{
	char		*mx = rec->mx;
	uint32_t	 cap = rec->mxcap;

	memset(rec, 0, sizeof(*rec));
	rec->mx = mx;
	rec->mxcap = cap;
}

void
cache_record_mx_clear(struct cache_record *rec)
{
	rec->nmx = 0;
	rec->mxlen = 0;
}

int
cache_record_mx_add(struct cache_record *rec, const char *p, size_t len)
{
	if (len == 0 || len > CACHE_MX_LEN - 1 || rec->nmx >= CACHE_MAX_MX ||
	    len + 1 > CACHE_MX_BYTES_MAX - rec->mxlen)
		return (-1);
	cache_record_mx_room(rec, rec->mxlen + len + 1);
	memcpy(rec->mx + rec->mxlen, p, len);
	rec->mx[rec->mxlen + len] = '\0';
	rec->mxlen += (uint32_t)(len + 1);
	rec->nmx++;
	return (0);
}

const char *
cache_record_mx_next(const struct cache_record *rec, size_t *pos,
    size_t *len)
{
	const char	*s, *nul;

	if (*pos >= rec->mxlen)
		return (NULL);
	s = rec->mx + *pos;
	nul = memchr(s, '\0', rec->mxlen - *pos);
	if (nul == NULL)	/* not a record cache_record_mx_add made */
		return (NULL);
	if (len != NULL)
		*len = (size_t)(nul - s);
	*pos += (size_t)(nul - s) + 1;
	return (s);
}

size_t
cache_dane_key(const char *domain, size_t len, char *out)
{
	if (len > DOMAIN_MAX_LEN)
		len = DOMAIN_MAX_LEN;
	memcpy(out, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN);
	memcpy(out + CACHE_DANE_PREFIX_LEN, domain, len);
	out[CACHE_DANE_PREFIX_LEN + len] = '\0';
	return (CACHE_DANE_PREFIX_LEN + len);
}

const char *
cache_key_domain(const char *key, size_t len, size_t *dlen, int *dane)
{
	*dane = len > CACHE_DANE_PREFIX_LEN &&
	    memcmp(key, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN) == 0;
	if (*dane) {
		*dlen = len - CACHE_DANE_PREFIX_LEN;
		return (key + CACHE_DANE_PREFIX_LEN);
	}
	*dlen = len;
	return (key);
}

/* cache_enums_valid - kind, sts_mode and dnssec hold known values */
static int
cache_enums_valid(unsigned int kind, unsigned int mode, unsigned int dnssec)
{
	if (kind < CACHE_KIND_NONE || kind > CACHE_KIND_DANE)
		return (0);
	if (mode > CACHE_STS_ENFORCE)
		return (0);
	if (dnssec > CACHE_DNSSEC_BOGUS)
		return (0);
	return (1);
}

int
cache_key_valid(const char *k, size_t len)
{
	size_t	 i;
	char	 ch;

	if (len > CACHE_DANE_PREFIX_LEN &&
	    memcmp(k, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN) == 0) {
		k += CACHE_DANE_PREFIX_LEN;
		len -= CACHE_DANE_PREFIX_LEN;
	}
	if (len == 0 || len > DOMAIN_MAX_LEN || k[0] == '.' ||
	    k[len - 1] == '.')
		return (0);
	for (i = 0; i < len; i++) {
		ch = k[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '.' || ch == '_'))
			return (0);
	}
	return (1);
}

int
cache_record_encode(const struct cache_record *rec, unsigned char *out,
    size_t outsz, size_t *outlen)
{
	const char	*mx;
	size_t		 idlen, need, off, m, i, pos;

	if (!cache_enums_valid(rec->kind, rec->sts_mode, rec->dnssec))
		return (-1);
	idlen = strnlen(rec->id, CACHE_ID_LEN);
	if (idlen == CACHE_ID_LEN ||
	    !cache_id_valid((const unsigned char *)rec->id, idlen))
		return (-1);
	if (rec->mxlen > CACHE_MX_BYTES_MAX ||
	    rec->mxlen > rec->mxcap)
		return (-1);
	/* Every pattern valid, and exactly nmx of them fill mxlen. */
	for (i = 0, pos = 0; i < rec->nmx; i++) {
		if ((mx = cache_record_mx_next(rec, &pos, &m)) == NULL ||
		    m == 0 || m > CACHE_MX_LEN - 1 ||
		    !cache_mx_valid((const unsigned char *)mx, m))
			return (-1);
	}
	if (pos != rec->mxlen)
		return (-1);
	/* Each pattern takes 1 + m bytes both here and at rec->mx. */
	need = CACHE_RECORD_FIXED_LEN + 1 + idlen + 2 + rec->mxlen;
	if (need > outsz)
		return (-1);

	out[0] = CACHE_RECORD_MAGIC;
	out[1] = CACHE_RECORD_VERSION;
	out[CACHE_OFF_KIND] = rec->kind;
	out[CACHE_OFF_MODE] = rec->sts_mode;
	out[CACHE_OFF_DNSSEC] = rec->dnssec;
	out[CACHE_OFF_DANE] = rec->dane;
	out[CACHE_OFF_LASTERR] = rec->last_error;
	cache_set_le(out + CACHE_OFF_MAXAGE, rec->max_age, 4);
	cache_set_le(out + CACHE_OFF_FETCHED, (uint64_t)rec->fetched_at, 8);
	cache_set_le(out + CACHE_OFF_EXPIRES, (uint64_t)rec->expires_at, 8);
	cache_set_le(out + CACHE_OFF_REFRESH, (uint64_t)rec->next_refresh, 8);
	cache_set_le(out + CACHE_OFF_ERRAT, (uint64_t)rec->last_error_at, 8);
	cache_set_le(out + CACHE_OFF_TXTTTL, rec->txt_ttl, 4);
	cache_set_le(out + CACHE_OFF_TXTAT, (uint64_t)rec->txt_checked_at, 8);
	off = CACHE_RECORD_FIXED_LEN;
	out[off++] = (unsigned char)idlen;
	memcpy(out + off, rec->id, idlen);
	off += idlen;
	cache_set_le(out + off, rec->nmx, 2);
	off += 2;
	pos = 0;
	while ((mx = cache_record_mx_next(rec, &pos, &m)) != NULL) {
		out[off++] = (unsigned char)m;
		memcpy(out + off, mx, m);
		off += m;
	}
	*outlen = off;
	return (0);
}

enum cache_decode_status
cache_record_decode(const unsigned char *p, size_t len,
    struct cache_record *out)
{
	size_t	 off, n, i, fixed, start, total;
	unsigned int nmx;

	if (len < 1)
		return (CACHE_DECODE_TRUNCATED);
	if (p[0] != CACHE_RECORD_MAGIC)
		return (CACHE_DECODE_MAGIC);
	if (len < 2)
		return (CACHE_DECODE_TRUNCATED);
	if (p[1] == CACHE_RECORD_VERSION)
		fixed = CACHE_RECORD_FIXED_LEN;
	else if (p[1] == CACHE_RECORD_VERSION_V1)
		fixed = CACHE_RECORD_FIXED_LEN_V1;
	else
		return (CACHE_DECODE_VERSION);
	if (len < fixed + 1)
		return (CACHE_DECODE_TRUNCATED);
	if (!cache_enums_valid(p[CACHE_OFF_KIND], p[CACHE_OFF_MODE],
	    p[CACHE_OFF_DNSSEC]))
		return (CACHE_DECODE_RANGE);
	out->kind = p[CACHE_OFF_KIND];
	out->sts_mode = p[CACHE_OFF_MODE];
	out->dnssec = p[CACHE_OFF_DNSSEC];
	out->dane = p[CACHE_OFF_DANE];
	out->last_error = p[CACHE_OFF_LASTERR];
	out->max_age = cache_le32(p + CACHE_OFF_MAXAGE);
	out->fetched_at = cache_le64(p + CACHE_OFF_FETCHED);
	out->expires_at = cache_le64(p + CACHE_OFF_EXPIRES);
	out->next_refresh = cache_le64(p + CACHE_OFF_REFRESH);
	out->last_error_at = cache_le64(p + CACHE_OFF_ERRAT);
	if (fixed == CACHE_RECORD_FIXED_LEN) {
		out->txt_ttl = cache_le32(p + CACHE_OFF_TXTTTL);
		out->txt_checked_at = cache_le64(p + CACHE_OFF_TXTAT);
	} else {
		out->txt_ttl = 0;
		out->txt_checked_at = 0;
	}

	off = fixed;
	n = p[off++];
	if (n > CACHE_ID_LEN - 1)
		return (CACHE_DECODE_LENGTH);
	if (len - off < n)
		return (CACHE_DECODE_TRUNCATED);
	if (!cache_id_valid(p + off, n))
		return (CACHE_DECODE_CHAR);
	memcpy(out->id, p + off, n);
	out->id[n] = '\0';
	off += n;

	if (len - off < 2)
		return (CACHE_DECODE_TRUNCATED);
	nmx = cache_le16(p + off);
	off += 2;
	out->nmx = 0;
	out->mxlen = 0;
	if (nmx > CACHE_MAX_MX)
		return (CACHE_DECODE_LENGTH);
	/* First pass: check every pattern, so the block grows once. */
	start = off;
	for (i = 0; i < nmx; i++) {
		if (len - off < 1)
			return (CACHE_DECODE_TRUNCATED);
		n = p[off++];
		/* a length byte caps n at 255 = CACHE_MX_LEN - 1 */
		if (n == 0)
			return (CACHE_DECODE_LENGTH);
		if (len - off < n)
			return (CACHE_DECODE_TRUNCATED);
		if (!cache_mx_valid(p + off, n))
			return (CACHE_DECODE_CHAR);
		off += n;
	}
	total = off - start;	/* = the sum of 1 + n = bytes at out->mx */
	if (total > CACHE_MX_BYTES_MAX)
		return (CACHE_DECODE_LENGTH);
	if (off != len)
		return (CACHE_DECODE_TRAILING);
	cache_record_mx_room(out, total);
	/* Second pass: copy, a NUL after each pattern. */
	for (i = 0, off = start; i < nmx; i++) {
		n = p[off++];
		memcpy(out->mx + out->mxlen, p + off, n);
		out->mx[out->mxlen + n] = '\0';
		out->mxlen += (uint32_t)(n + 1);
		off += n;
	}
	out->nmx = (uint16_t)nmx;
	return (CACHE_DECODE_OK);
}

int
cache_record_fresh(const struct cache_record *rec, int64_t now)
{
	if (rec->kind == CACHE_KIND_NONE &&
	    rec->fetched_at > now + CACHE_CLOCK_SLACK)
		return (0);
	return (now < rec->expires_at);
}

int
cache_record_needs_refresh(const struct cache_record *rec, int64_t now)
{
	return (now >= rec->next_refresh || !cache_record_fresh(rec, now));
}

const char *
cache_kind_name(int kind)
{
	switch (kind) {
	case CACHE_KIND_NONE:
		return ("none");
	case CACHE_KIND_STS:
		return ("sts");
	case CACHE_KIND_DANE:
		return ("dane");
	}
	return ("?");
}

const char *
cache_sts_mode_name(int mode)
{
	switch (mode) {
	case CACHE_STS_NONE:
		return ("none");
	case CACHE_STS_TESTING:
		return ("testing");
	case CACHE_STS_ENFORCE:
		return ("enforce");
	}
	return ("?");
}

const char *
cache_dnssec_name(int dnssec)
{
	switch (dnssec) {
	case CACHE_DNSSEC_UNKNOWN:
		return ("unknown");
	case CACHE_DNSSEC_INSECURE:
		return ("insecure");
	case CACHE_DNSSEC_SECURE:
		return ("secure");
	case CACHE_DNSSEC_BOGUS:
		return ("bogus");
	}
	return ("?");
}

const char *
cache_decode_status_name(enum cache_decode_status st)
{
	switch (st) {
	case CACHE_DECODE_OK:
		return ("ok");
	case CACHE_DECODE_MAGIC:
		return ("bad-magic");
	case CACHE_DECODE_VERSION:
		return ("bad-version");
	case CACHE_DECODE_TRUNCATED:
		return ("truncated");
	case CACHE_DECODE_TRAILING:
		return ("trailing-bytes");
	case CACHE_DECODE_RANGE:
		return ("bad-value");
	case CACHE_DECODE_LENGTH:
		return ("bad-length");
	case CACHE_DECODE_CHAR:
		return ("bad-char");
	}
	return ("?");
}
