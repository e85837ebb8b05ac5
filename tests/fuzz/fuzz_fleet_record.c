/*
 * fuzz_fleet_record.c - libFuzzer target for the fleet value codec
 *
 * The first input byte picks the key name (bit 0: a domain or a "dane:"
 * key) and whether a MAC key is configured (bit 1); the rest is a value as
 * Redis would return it - written by anyone with write access to Redis.
 * fleet_record_decode() must refuse or decode it without reading outside
 * it; a value that decodes must encode back to the same bytes (with the
 * MAC key, or unsigned without one; a version 1 cache record inside, still
 * read, encodes as version 2).  A version 1 fleet value (still read, its
 * MAC by the old rule) is written as version 2: it must encode, and the
 * encoding decode to the same record bytes.  Seeds:
 * tests/fuzz/corpus/fleet_record/ (tests/fuzz/seeds.py fleet_record:
 * version 2 values, and version 1 ones as "unit-*-v1-*").
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cache_record.h"
#include "lib/fleet_record.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the key tests/fuzz/seeds.py signs its seeds with */
static const unsigned char fuzz_key[] = "postsmtpsts-fuzz-fleet-key-32byt";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cache_record rec;
	static unsigned char out[FLEET_RECORD_MAX_LEN];
	const char	*key;
	const unsigned char *mk;
	size_t		 outlen = 0, mlen;

	if (size < 1)
		return (0);
	key = (data[0] & 1) ? "dane:example.com" : "example.com";
	mk = (data[0] & 2) ? fuzz_key : NULL;
	mlen = mk != NULL ? sizeof(fuzz_key) - 1 : 0;
	data++;
	size--;
	if (fleet_record_decode(key, strlen(key), data, size, mk, mlen,
	    &rec) != FLEET_DECODE_OK)
		return (0);
	if ((data[1] & FLEET_RECORD_F_MAC) && mk == NULL)
		return (0);	/* a MAC we did not check: not canonical */
	if (data[0] == FLEET_RECORD_VERSION_V1) {
		/* read under the old rule, written under the new one */
		if (fleet_record_encode(key, strlen(key), &rec, mk, mlen, out,
		    sizeof(out), &outlen) != 0 || out[0] !=
		    FLEET_RECORD_VERSION || fleet_record_decode(key,
		    strlen(key), out, outlen, mk, mlen, &rec) !=
		    FLEET_DECODE_OK)
			abort();
		return (0);
	}
	if (size > FLEET_RECORD_HEAD_LEN + 1 &&
	    data[FLEET_RECORD_HEAD_LEN + 1] != CACHE_RECORD_VERSION) {
		/* a version 1 cache record (still read) is written as
		 * version 2: it must encode, not to the same bytes */
		if (fleet_record_encode(key, strlen(key), &rec, mk, mlen, out,
		    sizeof(out), &outlen) != 0)
			abort();
		return (0);
	}
	if (fleet_record_encode(key, strlen(key), &rec, mk, mlen, out,
	    sizeof(out), &outlen) != 0 || outlen != size ||
	    memcmp(out, data, size) != 0)
		abort();
	return (0);
}
