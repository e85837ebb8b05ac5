/*
 * fuzz_fleetagg.c - libFuzzer target for what the reporter reads from the
 * fleet's Redis (tlsrpt/fleetagg.h, issue 39)
 *
 * Anyone with write access to Redis (or a damaged or foreign value, or a
 * newer reporter's) hands these decoders any bytes.  The first input byte
 * picks the reader (modulo 3), the rest is the value:
 *   0  a host's part payload (fleetagg_part_decode)
 *   1  a sealed value (fleet_record_open, with and without a MAC key),
 *      and a part inside it
 *   2  the delivery state payload (fleetagg_state_decode)
 * Checked besides "no crash": a refused part leaves the counts empty; a
 * decoded part has a valid host id, NUL-terminated strings, the agg
 * limits, and round-trips to the same bytes; a decoded state's writer is
 * a host id; a sealed value opens only under its own version, its payload
 * inside the input.
 * Seed corpus: tests/fuzz/corpus/fleetagg/ (tests/fuzz/seeds.py).
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/buf.h"
#include "lib/fleet_record.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/rstate.h"

#define FUZZ_FA_MAX	(4 * 1024 * 1024)

static struct buf b1;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	buf_init(&b1, FUZZ_FA_MAX);
	return (0);
}

/* fuzz_part - decode a part payload, check its promises */
static void
fuzz_part(const uint8_t *p, size_t len)
{
	struct fleetagg_part part, again;
	struct agg	 a, b;

	agg_init(&a);
	if (fleetagg_part_decode(p, len, &part, &a) == -1) {
		if (a.npolicies != 0)
			abort();
		return;
	}
	if (memchr(part.host, '\0', sizeof(part.host)) == NULL ||
	    memchr(part.sip, '\0', sizeof(part.sip)) == NULL ||
	    !fleetagg_host_ok(part.host, strlen(part.host)) ||
	    a.npolicies > AGG_MAX_POLICIES || part.final > 1)
		abort();
	buf_reset(&b1);
	fleetagg_part_encode(&part, &a, &b1);
	agg_init(&b);
	if (b1.error || fleetagg_part_decode(b1.data, b1.len, &again,
	    &b) == -1 || again.seq != part.seq ||
	    agg_sessions(&a) != agg_sessions(&b))
		abort();
	agg_free(&a);
	agg_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char key[32] = "fuzz-fleetagg-key-0123456789abc";
	const unsigned char *pl;
	struct rstate	 r;
	char		 writer[FLEETAGG_HOST_LEN];
	size_t		 plen;

	if (size < 1)
		return (0);
	switch (data[0] % 3) {
	case 0:
		fuzz_part(data + 1, size - 1);
		break;
	case 1:
		if (fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
		    data + 1, size - 1, key, sizeof(key), &pl, &plen) ==
		    FLEET_DECODE_OK && (pl < data + 1 || pl + plen > data + size))
			abort();
		if (fleet_record_open(FLEET_RECORD_V_TLSRPT, "p/k/h1", 6,
		    data + 1, size - 1, NULL, 0, &pl, &plen) == FLEET_DECODE_OK) {
			if (data[1] != FLEET_RECORD_V_TLSRPT ||
			    pl + plen > data + size)
				abort();
			fuzz_part(pl, plen);
		}
		break;
	case 2:
		if (fleetagg_state_decode(data + 1, size - 1, writer, &r) == 0 &&
		    (memchr(writer, '\0', sizeof(writer)) == NULL ||
		    !fleetagg_host_ok(writer, strlen(writer)) ||
		    r.ndest > RUA_MAX_DESTS))
			abort();
		break;
	}
	return (0);
}
