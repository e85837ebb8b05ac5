/*
 * fuzz_netstring.c - fuzz target for netstring_decode/netstring_encode
 *
 * The first input byte picks the size limit (the socketmap query and reply
 * limits, tiny ones, none), the rest is a byte stream decoded netstring by
 * netstring, as the server does with pipelined requests.  Properties:
 *	- OK results lie inside the input, within the limit, and re-encode
 *	  to a netstring that decodes to the same payload;
 *	- every proper prefix of a complete netstring is INCOMPLETE (the
 *	  decoder is incremental and never guesses);
 *	- encode output is exactly netstring_encoded_len() bytes.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "fuzz.h"

#define FUZZ_PREFIX_CHECK_MAX	64	/* prefixes checked per netstring */

static const size_t fuzz_limits[] = {
	SOCKMAP_MAX_QUERY, SOCKMAP_MAX_REPLY, 0, 1, 9, 10, 99, SIZE_MAX,
};

/* fuzz_roundtrip - encode a decoded payload, decode it again */
static void
fuzz_roundtrip(const char *payload, size_t plen, size_t max)
{
	const char *p2;
	size_t	 plen2, used2, need;
	struct buf b;

	need = netstring_encoded_len(plen);
	buf_init(&b, need);
	FUZZ_CHECK(netstring_encode(&b, payload, plen) == 0);
	FUZZ_CHECK(b.len == need);
	FUZZ_CHECK(netstring_decode(b.data, b.len, max, &p2, &plen2,
	    &used2) == NETSTRING_OK);
	FUZZ_CHECK(used2 == b.len && plen2 == plen);
	FUZZ_CHECK(plen == 0 || memcmp(p2, payload, plen) == 0);
	/* one byte short of room: refused whole, error set */
	buf_reset(&b);
	b.max = need - 1;
	FUZZ_CHECK(netstring_encode(&b, payload, plen) == -1);
	FUZZ_CHECK(b.len == 0 && b.error);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *payload;
	size_t	 len = size, max, plen, used, k, u2, l2;
	const char *p2;
	enum netstring_status st;

	if (size == 0)
		return (0);
	max = fuzz_limits[p[0] % (sizeof(fuzz_limits) /
	    sizeof(fuzz_limits[0]))];
	p++;
	len--;
	for (;;) {
		st = netstring_decode(p, len, max, &payload, &plen, &used);
		if (st != NETSTRING_OK)
			break;
		FUZZ_CHECK(used >= 3 && used <= len);
		FUZZ_CHECK(plen <= max && plen <= used - 3);
		FUZZ_CHECK(payload > p && payload + plen < p + used);
		FUZZ_CHECK(p[used - 1] == ',');
		for (k = 0; k < used && k < FUZZ_PREFIX_CHECK_MAX; k++)
			FUZZ_CHECK(netstring_decode(p, k, max, &p2, &l2,
			    &u2) == NETSTRING_INCOMPLETE);
		fuzz_roundtrip(payload, plen, max);
		p += used;
		len -= used;
	}
	FUZZ_CHECK(st == NETSTRING_INCOMPLETE || st == NETSTRING_ERR_FORMAT ||
	    st == NETSTRING_ERR_TOOLONG);
	if (st == NETSTRING_INCOMPLETE)
		FUZZ_CHECK(len < NETSTRING_MAX_DIGITS + 2 ||
		    memchr(p, ':', NETSTRING_MAX_DIGITS + 1) != NULL);
	return (0);
}
