/*
 * test_fleet_record.c - the fleet value codec: round trips, MAC checks,
 * refusals, key expiry; the MAC of version 2 (key length in two bytes)
 * against HMAC-SHA256 computed here, version 1 values still read
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "lib/cache_record.h"
#include "lib/fleet_record.h"

#define NOW	1700000000

static const unsigned char key1[] = "0123456789abcdef0123456789abcdef";
static const unsigned char key2[] = "fedcba9876543210fedcba9876543210";

/* rec_sts - an enforce record with two mx patterns; they live in static
 * storage, so the record is only read (encoded), never decoded into */
static struct cache_record
rec_sts(void)
{
	static char	 mx[] = "mx1.example.com\0*.example.net";
	struct cache_record r;

	memset(&r, 0, sizeof(r));
	r.kind = CACHE_KIND_STS;
	r.sts_mode = CACHE_STS_ENFORCE;
	r.dnssec = CACHE_DNSSEC_SECURE;
	r.max_age = 86400;
	r.fetched_at = NOW;
	r.expires_at = NOW + 86400;
	r.next_refresh = NOW + 43200;
	snprintf(r.id, sizeof(r.id), "20260101");
	r.nmx = 2;
	r.mx = mx;
	r.mxlen = r.mxcap = sizeof(mx);
	return (r);
}

static struct cache_record
rec_kind(int kind)
{
	struct cache_record r = rec_sts();

	if (kind != CACHE_KIND_STS) {
		memset(&r, 0, sizeof(r));
		r.kind = (uint8_t)kind;
		r.dane = kind == CACHE_KIND_DANE ? 1 : 0;
		r.fetched_at = NOW;
		r.expires_at = NOW + 300;
		r.next_refresh = NOW + 300;
	}
	return (r);
}

/* rt - encode under key with mackey, decode with dkey */
static enum fleet_decode_status
rt(const char *k, const struct cache_record *in, const unsigned char *ek,
    const unsigned char *dk, struct cache_record *out)
{
	unsigned char	 v[FLEET_RECORD_MAX_LEN];
	size_t		 len;

	assert_int_equal(fleet_record_encode(k, strlen(k), in, ek,
	    ek ? 32 : 0, v, sizeof(v), &len), 0);
	return (fleet_record_decode(k, strlen(k), v, len, dk, dk ? 32 : 0,
	    out));
}

static void
round_trips(void **state)
{
	static const struct {
		const char	*name;
		const char	*key;
		int		 kind;
		const unsigned char *ek, *dk;
		enum fleet_decode_status want;
	} t[] = {
		{ "sts unsigned, no key", "example.com", CACHE_KIND_STS,
		    NULL, NULL, FLEET_DECODE_OK },
		{ "sts signed, key", "example.com", CACHE_KIND_STS,
		    key1, key1, FLEET_DECODE_OK },
		{ "signed, reader has no key: MAC skipped", "example.com",
		    CACHE_KIND_STS, key1, NULL, FLEET_DECODE_OK },
		{ "unsigned, reader has a key", "example.com",
		    CACHE_KIND_STS, NULL, key1, FLEET_DECODE_UNSIGNED },
		{ "signed with another key", "example.com", CACHE_KIND_STS,
		    key2, key1, FLEET_DECODE_MAC },
		{ "negative entry", "example.org", CACHE_KIND_NONE, key1,
		    key1, FLEET_DECODE_OK },
		{ "dane entry", "dane:example.org", CACHE_KIND_DANE, key1,
		    key1, FLEET_DECODE_OK },
	};
	struct cache_record in, out = { 0 };
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		in = rec_kind(t[i].kind);
		cache_record_reset(&out);
		memset(out.id, 0x55, sizeof(out.id));
		print_message("# %s\n", t[i].name);
		assert_int_equal(rt(t[i].key, &in, t[i].ek, t[i].dk, &out),
		    t[i].want);
		if (t[i].want != FLEET_DECODE_OK)
			continue;
		assert_int_equal(out.kind, in.kind);
		assert_int_equal(out.sts_mode, in.sts_mode);
		assert_int_equal(out.expires_at, in.expires_at);
		assert_string_equal(out.id, in.id);
		assert_int_equal(out.nmx, in.nmx);
		assert_int_equal(out.mxlen, in.mxlen);
		if (in.mxlen > 0)
			assert_memory_equal(out.mx, in.mx, in.mxlen);
	}
	cache_record_release(&out);
}

static void
kind_must_fit_key(void **state)
{
	struct cache_record in = rec_kind(CACHE_KIND_DANE), out = { 0 };
	unsigned char	 v[FLEET_RECORD_MAX_LEN];
	size_t		 len;

	(void)state;
	/* the encoder refuses, */
	assert_int_equal(fleet_record_encode("example.com", 11, &in, NULL, 0,
	    v, sizeof(v), &len), -1);
	in = rec_kind(CACHE_KIND_STS);
	assert_int_equal(fleet_record_encode("dane:example.com", 16, &in,
	    NULL, 0, v, sizeof(v), &len), -1);
	/* and a value moved by hand to the other key is refused too */
	assert_int_equal(fleet_record_encode("example.com", 11, &in, NULL, 0,
	    v, sizeof(v), &len), 0);
	assert_int_equal(fleet_record_decode("dane:example.com", 16, v, len,
	    NULL, 0, &out), FLEET_DECODE_KIND);
	/* not a cache key */
	assert_int_equal(fleet_record_encode("Example.com", 11, &in, NULL, 0,
	    v, sizeof(v), &len), -1);
	cache_record_release(&out);
}

static void
mac_binds_key_name(void **state)
{
	struct cache_record in = rec_sts(), out = { 0 };
	unsigned char	 v[FLEET_RECORD_MAX_LEN];
	size_t		 len;

	(void)state;
	assert_int_equal(fleet_record_encode("good.example", 12, &in, key1,
	    32, v, sizeof(v), &len), 0);
	assert_int_equal(fleet_record_decode("good.example", 12, v, len,
	    key1, 32, &out), FLEET_DECODE_OK);
	/* copied to another domain: the MAC no longer matches */
	assert_int_equal(fleet_record_decode("evil.example", 12, v, len,
	    key1, 32, &out), FLEET_DECODE_MAC);
	cache_record_release(&out);
}

static void
damage_is_refused(void **state)
{
	struct cache_record in = rec_sts(), out = { 0 };
	unsigned char	 v[FLEET_RECORD_MAX_LEN], w[FLEET_RECORD_MAX_LEN + 2];
	size_t		 len, i;

	(void)state;
	assert_int_equal(fleet_record_encode("example.com", 11, &in, key1,
	    32, v, sizeof(v), &len), 0);
	/* every single flipped bit is caught by the MAC or the header */
	for (i = 0; i < len * 8; i++) {
		memcpy(w, v, len);
		w[i / 8] ^= (unsigned char)(1u << (i % 8));
		assert_int_not_equal(fleet_record_decode("example.com", 11, w,
		    len, key1, 32, &out), FLEET_DECODE_OK);
	}
	/* every truncation */
	for (i = 0; i < len; i++)
		assert_int_not_equal(fleet_record_decode("example.com", 11, v,
		    i, key1, 32, &out), FLEET_DECODE_OK);
	/* an unsigned value's damaged record part */
	assert_int_equal(fleet_record_encode("example.com", 11, &in, NULL, 0,
	    v, sizeof(v), &len), 0);
	v[2] ^= 0xff;		/* the cache record's magic */
	assert_int_equal(fleet_record_decode("example.com", 11, v, len, NULL,
	    0, &out), FLEET_DECODE_RECORD);
	v[2] ^= 0xff;
	v[0] = 3;	/* a version this reader does not know (as a reader
			   of version 1 sees version 2): refused, not parsed */
	assert_int_equal(fleet_record_decode("example.com", 11, v, len, NULL,
	    0, &out), FLEET_DECODE_VERSION);
	v[0] = FLEET_RECORD_VERSION;
	v[1] = 0x80;
	assert_int_equal(fleet_record_decode("example.com", 11, v, len, NULL,
	    0, &out), FLEET_DECODE_VERSION);
	assert_int_equal(fleet_record_decode("example.com", 11, v,
	    FLEET_RECORD_MAX_LEN + 1, NULL, 0, &out), FLEET_DECODE_LONG);
	/* too small an output buffer */
	assert_int_equal(fleet_record_encode("example.com", 11, &in, key1,
	    32, v, 20, &len), -1);
	cache_record_release(&out);
}

static void
key_expiry(void **state)
{
	static const struct {
		const char	*name;
		int		 kind;
		int64_t		 now, grace, want;
	} t[] = {
		{ "sts: max_age left plus grace", CACHE_KIND_STS, NOW, 3600,
		    86400 + 3600 },
		{ "sts expired, inside the grace", CACHE_KIND_STS,
		    NOW + 86400 + 100, 3600, 3500 },
		{ "sts past the grace", CACHE_KIND_STS, NOW + 90000, 3600,
		    0 },
		{ "negative: its own lifetime, no grace", CACHE_KIND_NONE,
		    NOW + 100, 3600, 200 },
		{ "dane: its TTL, no grace", CACHE_KIND_DANE, NOW, 3600,
		    300 },
		{ "dane expired", CACHE_KIND_DANE, NOW + 300, 3600, 0 },
	};
	struct cache_record r;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		print_message("# %s\n", t[i].name);
		r = rec_kind(t[i].kind);
		assert_int_equal(fleet_record_ttl(&r, t[i].now, t[i].grace),
		    t[i].want);
	}
}

/* long_key - a cache key of exactly n bytes (n >= 10): "dane:" and a
 * domain of labels of at most 63 letters */
static const char *
long_key(char *buf, size_t n)
{
	size_t	 i, lab = 0;

	memcpy(buf, "dane:", 5);
	for (i = 5; i < n; i++) {
		/* a dot every 64th byte, never first or last */
		if (lab == 63 && i + 1 < n) {
			buf[i] = '.';
			lab = 0;
		} else {
			buf[i] = (char)('a' + i % 26);
			lab++;
		}
	}
	buf[n] = '\0';
	assert_true(cache_key_valid(buf, n));
	return (buf);
}

/* mac_by_hand - HMAC-SHA256 of label, the length in lenbytes (1: the low
 * byte, 2: network order), key and v[0..vlen) with key1 */
static void
mac_by_hand(const char *label, size_t lenbytes, const char *k, size_t klen,
    const unsigned char *v, size_t vlen, unsigned char mac[32])
{
	unsigned char	 in[64 + 2 + CACHE_KEY_MAX + FLEET_RECORD_MAX_LEN];
	size_t		 n = 0;

	memcpy(in, label, strlen(label));
	n += strlen(label);
	if (lenbytes == 2)
		in[n++] = (unsigned char)(klen >> 8);
	in[n++] = (unsigned char)(klen & 0xff);
	memcpy(in + n, k, klen);
	n += klen;
	memcpy(in + n, v, vlen);
	n += vlen;
	assert_int_equal(gnutls_hmac_fast(GNUTLS_MAC_SHA256, key1, 32, in, n,
	    mac), 0);
}

/* v1_value - the version 1 value a reader before issue 37 wrote for rec
 * under k: the version 2 bytes with version 1 and the old MAC rule */
static size_t
v1_value(const char *k, const struct cache_record *rec, unsigned char *v)
{
	size_t	 len;

	assert_int_equal(fleet_record_encode(k, strlen(k), rec, NULL, 0, v,
	    FLEET_RECORD_MAX_LEN, &len), 0);
	v[0] = FLEET_RECORD_VERSION_V1;
	v[1] = FLEET_RECORD_F_MAC;
	mac_by_hand(FLEET_RECORD_MAC_LABEL_V1, 1, k, strlen(k), v, len,
	    v + len);
	return (len + FLEET_RECORD_MAC_LEN);
}

static void
mac_key_length_two_bytes(void **state)
{
	static const size_t lens[] = { 16, 255, 256, 257, 258 };
	struct cache_record in = rec_kind(CACHE_KIND_DANE), out = { 0 };
	unsigned char	 v[FLEET_RECORD_MAX_LEN], w[FLEET_RECORD_MAX_LEN];
	unsigned char	 mac[32];
	char		 k[CACHE_KEY_MAX + 1];
	size_t		 i, len, rlen, n;

	(void)state;
	assert_int_equal(CACHE_KEY_MAX, 258);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		n = lens[i];
		print_message("# key of %zu bytes\n", n);
		long_key(k, n);
		assert_int_equal(fleet_record_encode(k, n, &in, key1, 32, v,
		    sizeof(v), &len), 0);
		assert_int_equal(v[0], FLEET_RECORD_VERSION);
		assert_int_equal(v[0], 2);
		rlen = len - FLEET_RECORD_MAC_LEN;
		/* the MAC is the one of the new rule, computed here */
		mac_by_hand(FLEET_RECORD_MAC_LABEL, 2, k, n, v, rlen, mac);
		assert_memory_equal(v + rlen, mac, 32);
		assert_int_equal(fleet_record_decode(k, n, v, len, key1, 32,
		    &out), FLEET_DECODE_OK);
		/* a tampered length: the MAC over the length's low byte
		 * only (the old rule's wrap, under the new label) */
		memcpy(w, v, len);
		mac_by_hand(FLEET_RECORD_MAC_LABEL, 1, k, n, w, rlen,
		    w + rlen);
		assert_int_equal(fleet_record_decode(k, n, w, len, key1, 32,
		    &out), FLEET_DECODE_MAC);
		/* or the length of another key (one byte more or less) */
		mac_by_hand(FLEET_RECORD_MAC_LABEL, 2, k, n - 1, w, rlen,
		    w + rlen);
		assert_int_equal(fleet_record_decode(k, n, w, len, key1, 32,
		    &out), FLEET_DECODE_MAC);
		/* the same key one byte shorter does not verify */
		assert_int_not_equal(fleet_record_decode(k, n - 1, v, len,
		    key1, 32, &out), FLEET_DECODE_OK);
	}
	cache_record_release(&out);
}

static void
version1_still_read(void **state)
{
	static const size_t lens[] = { 16, 255, 256, 258 };
	struct cache_record in = rec_kind(CACHE_KIND_DANE), out = { 0 };
	unsigned char	 v[FLEET_RECORD_MAX_LEN], w[FLEET_RECORD_MAX_LEN];
	char		 k[CACHE_KEY_MAX + 1];
	size_t		 i, len, n;

	(void)state;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		n = lens[i];
		print_message("# version 1, key of %zu bytes\n", n);
		long_key(k, n);
		len = v1_value(k, &in, v);
		cache_record_reset(&out);
		assert_int_equal(fleet_record_decode(k, n, v, len, key1, 32,
		    &out), FLEET_DECODE_OK);
		assert_int_equal(out.kind, CACHE_KIND_DANE);
		assert_int_equal(out.expires_at, in.expires_at);
		/* and without a key (the MAC skipped) */
		assert_int_equal(fleet_record_decode(k, n, v, len, NULL, 0,
		    &out), FLEET_DECODE_OK);
		/* its MAC is no good for version 2, nor the other way:
		 * the version byte is under the MAC */
		memcpy(w, v, len);
		w[0] = FLEET_RECORD_VERSION;
		assert_int_equal(fleet_record_decode(k, n, w, len, key1, 32,
		    &out), FLEET_DECODE_MAC);
		assert_int_equal(fleet_record_encode(k, n, &in, key1, 32, w,
		    sizeof(w), &len), 0);
		w[0] = FLEET_RECORD_VERSION_V1;
		assert_int_equal(fleet_record_decode(k, n, w, len, key1, 32,
		    &out), FLEET_DECODE_MAC);
	}
	cache_record_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(kind_must_fit_key),
		cmocka_unit_test(mac_binds_key_name),
		cmocka_unit_test(damage_is_refused),
		cmocka_unit_test(key_expiry),
		cmocka_unit_test(mac_key_length_two_bytes),
		cmocka_unit_test(version1_still_read),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
