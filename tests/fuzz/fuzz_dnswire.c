/*
 * fuzz_dnswire.c - fuzz target for dnswire_parse
 *
 * The input is one selector byte (the asked type: data[0] modulo the
 * table below) and a DNS response packet.  Properties:
 *	- a failure has a reason and no RDATAs;
 *	- a success keeps at most DNSWIRE_MAX_RRS RDATAs, each inside the
 *	  packet or (types with names) readable in full, a TTL >= 0, a
 *	  4-bit rcode, a NUL-terminated final name when CNAMEs were followed;
 *	- parsing is deterministic: a second parse gives the same answer;
 *	- dnswire_owner_types() on the same packet, for a name the selector
 *	  picks, answers -1, 0 or 1 and sets only DNSWIRE_HAS_* bits, the
 *	  same twice (its NSEC/NSEC3 reading and hashing under ASan).
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/dnswire.h"
#include "fuzz.h"

static const int fuzz_types[] = { 1, 15, 16, 28, 52, 5, 6, 2 };
static const char *const fuzz_names[] = { "mx.example.com", "example",
    "a.b.c.d.e.f.example.net" };

#define FUZZ_HAS_ALL	(DNSWIRE_HAS_A | DNSWIRE_HAS_NS | \
			 DNSWIRE_HAS_CNAME | DNSWIRE_HAS_SOA | \
			 DNSWIRE_HAS_AAAA | DNSWIRE_HAS_DNAME)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dnswire_answer a, b;
	unsigned char	*pkt;
	size_t		 i, len, sum = 0;
	int		 qtype, r, o1, o2;
	unsigned int	 t1, t2;
	const char	*oname;

	if (size < 1)
		return (0);
	qtype = fuzz_types[data[0] % (sizeof(fuzz_types) /
	    sizeof(fuzz_types[0]))];
	/* a heap copy of exactly the packet's size: ASan sees overreads */
	len = size - 1;
	pkt = malloc(len > 0 ? len : 1);
	FUZZ_CHECK(pkt != NULL);
	if (len > 0)
		memcpy(pkt, data + 1, len);
	r = dnswire_parse(pkt, len, qtype, &a);
	if (r == -1) {
		FUZZ_CHECK(a.error != NULL && a.count == 0);
	} else {
		FUZZ_CHECK(r == 0 && a.error == NULL);
		FUZZ_CHECK(a.count <= DNSWIRE_MAX_RRS);
		FUZZ_CHECK(a.ttl >= 0);
		FUZZ_CHECK(a.rcode >= 0 && a.rcode <= 15);
		FUZZ_CHECK(a.nxdomain == (a.rcode == 3));
		if (a.cnamed)
			FUZZ_CHECK(memchr(a.canon, '\0', sizeof(a.canon)) !=
			    NULL && a.canon[0] != '\0');
		for (i = 0; i < a.count; i++) {
			if (a.arena == NULL)
				FUZZ_CHECK(a.rdata[i] >= pkt &&
				    a.rdata_len[i] <= len &&
				    (size_t)(a.rdata[i] - pkt) <= len -
				    a.rdata_len[i]);
			if (a.rdata_len[i] > 0)	/* every byte readable */
				sum += a.rdata[i][0] +
				    a.rdata[i][a.rdata_len[i] - 1];
		}
	}
	FUZZ_CHECK(dnswire_parse(pkt, len, qtype, &b) == r);
	FUZZ_CHECK(b.count == a.count && b.ttl == a.ttl &&
	    b.rcode == a.rcode && b.cnamed == a.cnamed);
	for (i = 0; i < a.count; i++)
		FUZZ_CHECK(a.rdata_len[i] == b.rdata_len[i] &&
		    memcmp(a.rdata[i], b.rdata[i], a.rdata_len[i]) == 0);
	if (a.cnamed)
		FUZZ_CHECK(strcmp(a.canon, b.canon) == 0);
	oname = fuzz_names[(data[0] >> 3) % (sizeof(fuzz_names) /
	    sizeof(fuzz_names[0]))];
	o1 = dnswire_owner_types(pkt, len, oname, &t1);
	o2 = dnswire_owner_types(pkt, len, oname, &t2);
	FUZZ_CHECK(o1 >= -1 && o1 <= 1 && o1 == o2 && t1 == t2);
	FUZZ_CHECK((t1 & ~(unsigned int)FUZZ_HAS_ALL) == 0);
	FUZZ_CHECK(o1 == 1 || t1 == 0);
	dnswire_answer_clear(&a);
	dnswire_answer_clear(&b);
	free(pkt);
	(void)sum;
	return (0);
}
