/*
 * fleet_record.c - the value of one fleet key (format: fleet_record.h)
 *
 * Wraps cache_record_encode()/cache_record_decode(): the fleet keeps the
 * very bytes the local cache keeps, behind a version byte, a flags byte
 * and an optional HMAC-SHA256 (gnutls_hmac).  Pure; the MAC is compared in
 * constant time.  Two MAC rules, chosen by the version byte: version 2
 * (written) puts the key's length in two bytes, version 1 (read only) in
 * one; their labels differ, so no input of one rule is an input of the
 * other.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "lib/cache_record.h"
#include "lib/fleet_record.h"

/* fleet_record_kind_ok - rec's kind fits key (dane: prefix or not) */
static int
fleet_record_kind_ok(const char *key, size_t klen, int kind)
{
	size_t	 dlen;
	int	 dane = 0;

	(void)cache_key_domain(key, klen, &dlen, &dane);
	return (dane ? kind == CACHE_KIND_DANE :
	    kind == CACHE_KIND_NONE || kind == CACHE_KIND_STS);
}

/*
 * fleet_record_mac - HMAC-SHA256 of the label, key and v[0..vlen) into
 * mac, by the rule of version (v[0]): 0, or -1
 */
static int
fleet_record_mac(unsigned char version, const char *key, size_t klen,
    const unsigned char *v, size_t vlen, const unsigned char *mackey,
    size_t mlen, unsigned char mac[FLEET_RECORD_MAC_LEN])
{
	gnutls_hmac_hd_t h;
	unsigned char	 kl[2];
	const char	*label;
	size_t		 labellen, kllen;

	if (klen > CACHE_KEY_MAX)
		return (-1);
	if (version == FLEET_RECORD_VERSION_V1) {
		/* the old rule: one byte, 256..258 wrap (fleet_record.h) */
		label = FLEET_RECORD_MAC_LABEL_V1;
		labellen = sizeof(FLEET_RECORD_MAC_LABEL_V1) - 1;
		kl[0] = (unsigned char)(klen & 0xff);
		kllen = 1;
	} else {
		label = FLEET_RECORD_MAC_LABEL;
		labellen = sizeof(FLEET_RECORD_MAC_LABEL) - 1;
		kl[0] = (unsigned char)(klen >> 8);
		kl[1] = (unsigned char)(klen & 0xff);
		kllen = 2;
	}
	if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, mackey, mlen) < 0)
		return (-1);
	if (gnutls_hmac(h, label, labellen) < 0 ||
	    gnutls_hmac(h, kl, kllen) < 0 || gnutls_hmac(h, key, klen) < 0 ||
	    gnutls_hmac(h, v, vlen) < 0) {
		gnutls_hmac_deinit(h, NULL);
		return (-1);
	}
	gnutls_hmac_deinit(h, mac);
	return (0);
}

/* fleet_record_mac_equal - constant-time comparison of two MACs */
static int
fleet_record_mac_equal(const unsigned char *a, const unsigned char *b)
{
	unsigned char	 d = 0;
	size_t		 i;

	for (i = 0; i < FLEET_RECORD_MAC_LEN; i++)
		d |= a[i] ^ b[i];
	return (d == 0);
}

int
fleet_record_encode(const char *key, size_t klen,
    const struct cache_record *rec, const unsigned char *mackey, size_t mlen,
    unsigned char *out, size_t outsz, size_t *outlen)
{
	size_t	 rlen;

	if (!cache_key_valid(key, klen) ||
	    !fleet_record_kind_ok(key, klen, rec->kind) ||
	    outsz < FLEET_RECORD_HEAD_LEN)
		return (-1);
	out[0] = FLEET_RECORD_VERSION;
	out[1] = mackey != NULL ? FLEET_RECORD_F_MAC : 0;
	if (cache_record_encode(rec, out + FLEET_RECORD_HEAD_LEN,
	    outsz - FLEET_RECORD_HEAD_LEN, &rlen) == -1)
		return (-1);
	rlen += FLEET_RECORD_HEAD_LEN;
	if (mackey != NULL) {
		if (outsz - rlen < FLEET_RECORD_MAC_LEN ||
		    fleet_record_mac(FLEET_RECORD_VERSION, key, klen, out,
		    rlen, mackey, mlen, out + rlen) == -1)
			return (-1);
		rlen += FLEET_RECORD_MAC_LEN;
	}
	*outlen = rlen;
	return (0);
}

enum fleet_decode_status
fleet_record_decode(const char *key, size_t klen, const unsigned char *p,
    size_t len, const unsigned char *mackey, size_t mlen,
    struct cache_record *out)
{
	unsigned char	 mac[FLEET_RECORD_MAC_LEN];
	size_t		 rlen;
	int		 has_mac;

	if (len > FLEET_RECORD_MAX_LEN)
		return (FLEET_DECODE_LONG);
	if (len < FLEET_RECORD_HEAD_LEN)
		return (FLEET_DECODE_SHORT);
	if ((p[0] != FLEET_RECORD_VERSION &&
	    p[0] != FLEET_RECORD_VERSION_V1) ||
	    (p[1] & ~FLEET_RECORD_F_MAC) != 0)
		return (FLEET_DECODE_VERSION);
	has_mac = (p[1] & FLEET_RECORD_F_MAC) != 0;
	if (has_mac && len < FLEET_RECORD_HEAD_LEN + FLEET_RECORD_MAC_LEN)
		return (FLEET_DECODE_SHORT);
	rlen = has_mac ? len - FLEET_RECORD_MAC_LEN : len;
	if (mackey != NULL) {
		if (!has_mac)
			return (FLEET_DECODE_UNSIGNED);
		if (fleet_record_mac(p[0], key, klen, p, rlen, mackey,
		    mlen, mac) == -1 || !fleet_record_mac_equal(mac, p + rlen))
			return (FLEET_DECODE_MAC);
	}
	if (cache_record_decode(p + FLEET_RECORD_HEAD_LEN,
	    rlen - FLEET_RECORD_HEAD_LEN, out) != CACHE_DECODE_OK)
		return (FLEET_DECODE_RECORD);
	if (!fleet_record_kind_ok(key, klen, out->kind))
		return (FLEET_DECODE_KIND);
	return (FLEET_DECODE_OK);
}

/* fleet_record_seal_mac - the MAC of a sealed value (fleet_record.h) */
static int
fleet_record_seal_mac(const char *key, size_t klen, const unsigned char *v,
    size_t vlen, const unsigned char *mackey, size_t mlen,
    unsigned char mac[FLEET_RECORD_MAC_LEN])
{
	gnutls_hmac_hd_t h;
	unsigned char	 kl[3];

	if (klen > FLEET_RECORD_SEAL_KEY_MAX || vlen < 1)
		return (-1);
	kl[0] = v[0];
	kl[1] = (unsigned char)(klen >> 8);
	kl[2] = (unsigned char)(klen & 0xff);
	if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, mackey, mlen) < 0)
		return (-1);
	if (gnutls_hmac(h, FLEET_RECORD_SEAL_LABEL,
	    sizeof(FLEET_RECORD_SEAL_LABEL) - 1) < 0 ||
	    gnutls_hmac(h, kl, sizeof(kl)) < 0 ||
	    gnutls_hmac(h, key, klen) < 0 || gnutls_hmac(h, v, vlen) < 0) {
		gnutls_hmac_deinit(h, NULL);
		return (-1);
	}
	gnutls_hmac_deinit(h, mac);
	return (0);
}

int
fleet_record_seal(unsigned char v, const char *key, size_t klen,
    const void *p, size_t len, const unsigned char *mackey, size_t mlen,
    unsigned char *out, size_t outsz, size_t *outlen)
{
	size_t	 n = FLEET_RECORD_HEAD_LEN + len;

	if (klen > FLEET_RECORD_SEAL_KEY_MAX || len > FLEET_RECORD_SEAL_MAX ||
	    n + FLEET_RECORD_MAC_LEN > outsz)
		return (-1);
	out[0] = v;
	out[1] = mackey != NULL ? FLEET_RECORD_F_MAC : 0;
	if (len > 0)
		memcpy(out + FLEET_RECORD_HEAD_LEN, p, len);
	if (mackey != NULL) {
		if (fleet_record_seal_mac(key, klen, out, n, mackey, mlen,
		    out + n) == -1)
			return (-1);
		n += FLEET_RECORD_MAC_LEN;
	}
	*outlen = n;
	return (0);
}

enum fleet_decode_status
fleet_record_open(unsigned char v, const char *key, size_t klen,
    const unsigned char *p, size_t len, const unsigned char *mackey,
    size_t mlen, const unsigned char **pl, size_t *pllen)
{
	unsigned char	 mac[FLEET_RECORD_MAC_LEN];
	size_t		 rlen;
	int		 has_mac;

	if (len > FLEET_RECORD_SEAL_MAX + FLEET_RECORD_HEAD_LEN +
	    FLEET_RECORD_MAC_LEN || klen > FLEET_RECORD_SEAL_KEY_MAX)
		return (FLEET_DECODE_LONG);
	if (len < FLEET_RECORD_HEAD_LEN)
		return (FLEET_DECODE_SHORT);
	if (p[0] != v || (p[1] & ~FLEET_RECORD_F_MAC) != 0)
		return (FLEET_DECODE_VERSION);
	has_mac = (p[1] & FLEET_RECORD_F_MAC) != 0;
	if (has_mac && len < FLEET_RECORD_HEAD_LEN + FLEET_RECORD_MAC_LEN)
		return (FLEET_DECODE_SHORT);
	rlen = has_mac ? len - FLEET_RECORD_MAC_LEN : len;
	if (mackey != NULL) {
		if (!has_mac)
			return (FLEET_DECODE_UNSIGNED);
		if (fleet_record_seal_mac(key, klen, p, rlen, mackey, mlen,
		    mac) == -1 || !fleet_record_mac_equal(mac, p + rlen))
			return (FLEET_DECODE_MAC);
	}
	*pl = p + FLEET_RECORD_HEAD_LEN;
	*pllen = rlen - FLEET_RECORD_HEAD_LEN;
	return (FLEET_DECODE_OK);
}

int64_t
fleet_record_ttl(const struct cache_record *rec, int64_t now, int64_t grace)
{
	int64_t	 until = rec->expires_at;

	if (rec->kind == CACHE_KIND_STS && grace > 0)
		until += grace;
	return (until > now ? until - now : 0);
}

const char *
fleet_decode_status_name(enum fleet_decode_status st)
{
	static const char *const names[FLEET_DECODE_COUNT] = {
		"ok", "short", "long", "bad-version", "unsigned", "bad-mac",
		"bad-record", "wrong-kind",
	};

	return ((unsigned)st < FLEET_DECODE_COUNT ? names[st] : "?");
}
