/*
 * fuzz_cache_record.c - libFuzzer target for the cache's record codec
 *
 * Feeds arbitrary bytes to cache_record_decode() - what a damaged, foreign
 * or hostile data.mdb value would be - and, when they decode, checks that
 * cache_record_encode() accepts the result and gives back exactly the same
 * bytes (the format is canonical), and that the decoded strings are within
 * their limits.  A version 1 value (still read) must encode as version 2
 * and decode again to the same fields.  Seed corpus: tests/fuzz/corpus/cache_record/.
 *
 * By hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -Ipostsmtpsts \
 *	tests/fuzz/fuzz_cache_record.c postsmtpsts/lib/cache_record.c \
 *	postsmtpsts/lib/log.c postsmtpsts/lib/xmalloc.c -o fuzz_cache_record
 *   ./fuzz_cache_record -max_total_time=60 tests/fuzz/corpus/cache_record
 * (-I. for the configured autoconf.h.)
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cache_record.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cache_record rec;
	static struct cache_record again;
	static unsigned char out[CACHE_RECORD_MAX_LEN];
	const char *mx;
	size_t	 outlen = 0, i, pos, len;

	/* rec and again are static: their mx blocks are reused across
	 * inputs, as a worker's record is across lookups */
	if (cache_record_decode(data, size, &rec) != CACHE_DECODE_OK)
		return (0);
	if (strnlen(rec.id, CACHE_ID_LEN) == CACHE_ID_LEN ||
	    rec.mxlen > CACHE_MX_BYTES_MAX || rec.mxlen > rec.mxcap)
		abort();
	for (i = 0, pos = 0; (mx = cache_record_mx_next(&rec, &pos, &len)) !=
	    NULL; i++)
		if (len == 0 || len >= CACHE_MX_LEN)
			abort();
	if (i != rec.nmx || pos != rec.mxlen)
		abort();
	if (cache_record_encode(&rec, out, sizeof(out), &outlen) != 0)
		abort();
	if (data[1] == CACHE_RECORD_VERSION) {
		if (outlen != size || memcmp(out, data, size) != 0)
			abort();
		return (0);
	}
	/* version 1: the same facts, written as version 2 */
	if (outlen != size + CACHE_RECORD_FIXED_LEN -
	    CACHE_RECORD_FIXED_LEN_V1 ||
	    cache_record_decode(out, outlen, &again) != CACHE_DECODE_OK ||
	    again.kind != rec.kind || again.nmx != rec.nmx ||
	    again.expires_at != rec.expires_at ||
	    strcmp(again.id, rec.id) != 0 || again.txt_checked_at != 0)
		abort();
	return (0);
}
