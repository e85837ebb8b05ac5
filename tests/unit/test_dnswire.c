/*
 * test_dnswire.c - dnswire_parse() on DNS response packets
 *
 * A table of packets built byte by byte (answers as unbound encodes them:
 * compressed owner names, CNAME chains, negative answers with an SOA) and
 * of malformed ones (truncated, pointer loops, overlong names, reserved
 * label types); one packet captured from the test world's validating
 * unbound.  Each case states the expected rcode, RDATAs, TTL and final
 * name, or that the parse fails.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/dnswire.h"

#define PKT_MAX		70000

struct pkt {
	unsigned char	 b[PKT_MAX];
	size_t		 n;
};

static void
put(struct pkt *p, const void *v, size_t n)
{
	assert_true(p->n + n <= sizeof(p->b));
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static void
put8(struct pkt *p, unsigned int v)
{
	unsigned char	 c = (unsigned char)v;

	put(p, &c, 1);
}

static void
put16(struct pkt *p, unsigned int v)
{
	put8(p, v >> 8);
	put8(p, v & 0xff);
}

static void
put32(struct pkt *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

/* putname - "a.b.c" as uncompressed labels */
static void
putname(struct pkt *p, const char *name)
{
	const char	*dot;
	size_t		 l;

	while (*name != '\0') {
		dot = strchr(name, '.');
		l = dot != NULL ? (size_t)(dot - name) : strlen(name);
		put8(p, (unsigned int)l);
		put(p, name, l);
		name += l;
		if (*name == '.')
			name++;
	}
	put8(p, 0);
}

/* header: id 0, QR RD RA, rcode, counts */
static void
header(struct pkt *p, int rcode, int qd, int an, int ns, int ar)
{
	p->n = 0;
	put16(p, 0);
	put8(p, 0x81);
	put8(p, 0x80 | (unsigned int)rcode);
	put16(p, (unsigned int)qd);
	put16(p, (unsigned int)an);
	put16(p, (unsigned int)ns);
	put16(p, (unsigned int)ar);
}

static void
question(struct pkt *p, const char *name, int type)
{
	putname(p, name);
	put16(p, (unsigned int)type);
	put16(p, 1);
}

/* rrhead - owner as a pointer, type, IN, ttl, rdlength */
static void
rrhead(struct pkt *p, unsigned int ptr, int type, uint32_t ttl,
    unsigned int rdlen)
{
	put16(p, 0xc000 | ptr);
	put16(p, (unsigned int)type);
	put16(p, 1);
	put32(p, ttl);
	put16(p, rdlen);
}

/* the question name starts right after the 12-byte header */
#define QPTR	12

static void
build_a_two(struct pkt *p)
{
	header(p, 0, 1, 2, 0, 0);
	question(p, "mx.example.com", 1);
	rrhead(p, QPTR, 1, 300, 4);
	put32(p, 0xc0000201);
	rrhead(p, QPTR, 1, 200, 4);
	put32(p, 0xc0000202);
}

/* www CNAME a.example.net. CNAME b.example.net. A, plus an RRSIG and an
 * A of an unrelated name that must not count */
static void
build_cname_chain(struct pkt *p)
{
	size_t	 a_off, b_off;

	header(p, 0, 1, 5, 0, 0);
	question(p, "WWW.example.com", 1);
	rrhead(p, QPTR, 5, 600, 15);
	a_off = p->n;
	putname(p, "a.example.net");		/* 15 bytes */
	rrhead(p, (unsigned int)a_off, 5, 500, 4);
	b_off = p->n;
	put8(p, 1);
	put8(p, 'b');
	put16(p, 0xc000 | (unsigned int)(a_off + 2));	/* b + example.net */
	rrhead(p, QPTR, 1, 100, 4);			/* www A: not after */
	put32(p, 0x01020304);				/* the CNAME */
	rrhead(p, (unsigned int)b_off, 1, 90, 4);
	put32(p, 0xc0000203);
	rrhead(p, (unsigned int)b_off, 46, 30, 3);	/* RRSIG, ignored */
	put8(p, 0);
	put8(p, 0);
	put8(p, 0);
}

/* MX 10 mail.example.com with the exchange compressed to the qname */
static void
build_mx_compressed(struct pkt *p)
{
	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 15);
	rrhead(p, QPTR, 15, 3600, 9);
	put16(p, 10);
	put8(p, 4);
	put(p, "mail", 4);
	put16(p, 0xc000 | QPTR);
}

/* NXDOMAIN: SOA in authority, TTL 3600 but MINIMUM 60 */
static void
build_nxdomain(struct pkt *p)
{
	header(p, 3, 1, 0, 1, 0);
	question(p, "_mta-sts.nope.example.com", 16);
	rrhead(p, QPTR + 9 + 5, 6, 3600, 2 + 2 + 20);
	put16(p, 0xc000 | (QPTR + 9 + 5));
	put16(p, 0xc000 | (QPTR + 9 + 5));
	put32(p, 1);
	put32(p, 7200);
	put32(p, 3600);
	put32(p, 1209600);
	put32(p, 60);
}

/* NODATA: NOERROR, no answer, SOA and an OPT (ignored for the TTL) */
static void
build_nodata(struct pkt *p)
{
	header(p, 0, 1, 0, 1, 1);
	question(p, "_25._tcp.mx.example.com", 52);
	rrhead(p, QPTR + 4 + 5 + 3, 6, 120, 2 + 2 + 20);
	put16(p, 0xc000 | QPTR);
	put16(p, 0xc000 | QPTR);
	put32(p, 1);
	put32(p, 2);
	put32(p, 3);
	put32(p, 4);
	put32(p, 300);
	put8(p, 0);		/* OPT: root owner, TTL field is flags */
	put16(p, 41);
	put16(p, 1232);
	put32(p, 0x8000);
	put16(p, 0);
}

/* the NODATA above with an A record of TTL 5 in the additional section
 * (unvalidated there): the TTL is still the SOA's */
static void
build_nodata_additional(struct pkt *p)
{
	build_nodata(p);
	p->b[11] = 2;		/* ARCOUNT: the OPT and the A */
	rrhead(p, QPTR + 4 + 5, 1, 5, 4);
	put32(p, 0xc0000201);
}

/* a real answer: the world's unbound ($WORLD_RESOLVER_ADDR) to "dig TXT
 * _mta-sts.enforce.pstest" with DO, as sent on the wire (RRSIG kept) */
static const unsigned char world_txt[] = {
#include "dnswire_world.inc"
};

static void
build_world_txt(struct pkt *p)
{
	p->n = 0;
	put(p, world_txt, sizeof(world_txt));
}

static void
build_truncated(struct pkt *p)
{
	build_a_two(p);
	p->n -= 3;		/* in the last RDATA */
}

static void
build_truncated_header(struct pkt *p)
{
	build_a_two(p);
	p->n = 11;
}

static void
build_count_lies(struct pkt *p)
{
	build_a_two(p);
	p->b[7] = 3;		/* ANCOUNT 3, two present */
}

/* an owner name pointing at itself */
static void
build_pointer_loop(struct pkt *p)
{
	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 1);
	rrhead(p, (unsigned int)p->n, 1, 60, 4);
	put32(p, 0x7f000001);
}

/* two pointers pointing at each other, through a label */
static void
build_pointer_pingpong(struct pkt *p)
{
	size_t	 at;

	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 1);
	at = p->n;
	put8(p, 1);
	put8(p, 'x');
	put16(p, 0xc000 | (unsigned int)(at + 4));
	put16(p, 0xc000 | (unsigned int)at);
	put16(p, 1);
	put16(p, 1);
	put32(p, 60);
	put16(p, 4);
	put32(p, 0x7f000001);
}

static void
build_pointer_past_end(struct pkt *p)
{
	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 1);
	rrhead(p, 0x3fff, 1, 60, 4);
	put32(p, 0x7f000001);
}

/* 5 labels of 63: 320 bytes, over 255 */
static void
build_name_too_long(struct pkt *p)
{
	char	 label[64];
	int	 i;

	memset(label, 'a', 63);
	header(p, 0, 1, 0, 0, 0);
	for (i = 0; i < 5; i++) {
		put8(p, 63);
		put(p, label, 63);
	}
	put8(p, 0);
	put16(p, 1);
	put16(p, 1);
}

static void
build_label_type_01(struct pkt *p)
{
	header(p, 0, 1, 0, 0, 0);
	put8(p, 0x41);		/* extended label type, RFC 6891 §5 */
	put(p, "example", 7);
	put8(p, 0);
	put16(p, 1);
	put16(p, 1);
}

static void
build_other_type(struct pkt *p)
{
	header(p, 0, 1, 0, 0, 0);
	question(p, "example.com", 28);	/* AAAA, asked A */
}

static void
build_no_question(struct pkt *p)
{
	header(p, 2, 0, 0, 0, 0);
}

/* MX RDATA whose name runs past its RDLENGTH */
static void
build_mx_rdata_overrun(struct pkt *p)
{
	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 15);
	rrhead(p, QPTR, 15, 60, 4);
	put16(p, 10);
	put8(p, 4);
	put(p, "mail", 4);
	put16(p, 0xc000 | QPTR);
}

/* more A RRs than DNSWIRE_MAX_RRS */
static void
build_many(struct pkt *p)
{
	unsigned int	 i;

	header(p, 0, 1, DNSWIRE_MAX_RRS + 44, 0, 0);
	question(p, "big.example.com", 1);
	for (i = 0; i < DNSWIRE_MAX_RRS + 44; i++) {
		rrhead(p, QPTR, 1, 60, 4);
		put32(p, 0x0a000000 | i);
	}
}

/* a CNAME loop x -> y -> x ...: followed DNSWIRE_MAX_CNAMES times, then
 * no answer */
static void
build_cname_loop(struct pkt *p)
{
	size_t	 x = QPTR, y;
	int	 i;

	header(p, 0, 1, 2 * DNSWIRE_MAX_CNAMES + 2, 0, 0);
	question(p, "x.example", 1);
	rrhead(p, (unsigned int)x, 5, 60, 11);
	y = p->n;
	putname(p, "y.example");
	for (i = 0; i < DNSWIRE_MAX_CNAMES; i++) {
		rrhead(p, (unsigned int)y, 5, 60, 2);
		put16(p, 0xc000 | (unsigned int)x);
		rrhead(p, (unsigned int)x, 5, 60, 2);
		put16(p, 0xc000 | (unsigned int)y);
	}
	rrhead(p, (unsigned int)y, 1, 60, 4);
	put32(p, 0x7f000001);
}

/* a TTL with the top bit set reads as 0 (RFC 2181 §8) */
static void
build_ttl_top_bit(struct pkt *p)
{
	header(p, 0, 1, 1, 0, 0);
	question(p, "example.com", 1);
	rrhead(p, QPTR, 1, 0x80000010U, 4);
	put32(p, 0x7f000001);
}

static const unsigned char mx_rdata[] =
    "\x00\x0a\x04mail\x07" "example\x03" "com\x00";

struct parse_case {
	const char	*name;
	void		(*build)(struct pkt *);
	int		 qtype;
	int		 ret;
	int		 rcode;
	size_t		 count;
	size_t		 dropped;
	int		 ttl;
	const char	*canon;		/* NULL: no CNAME followed */
	const void	*rdata0;
	size_t		 rdata0_len;
};

static const struct parse_case parse_cases[] = {
	{ "two A records, TTL is the smaller", build_a_two, 1, 0, 0, 2,
	    0, 200, NULL, "\xc0\x00\x02\x01", 4 },
	{ "CNAME chain with compressed targets", build_cname_chain, 1, 0,
	    0, 1, 0, 90, "b.example.net.", "\xc0\x00\x02\x03", 4 },
	{ "MX exchange decompressed", build_mx_compressed, 15, 0, 0, 1, 0,
	    3600, NULL, mx_rdata, sizeof(mx_rdata) - 1 },
	{ "NXDOMAIN, TTL capped by SOA MINIMUM", build_nxdomain, 16, 0, 3,
	    0, 0, 60, NULL, NULL, 0 },
	{ "NODATA with SOA and OPT", build_nodata, 52, 0, 0, 0, 0, 120,
	    NULL, NULL, 0 },
	{ "NODATA: an additional TTL does not count", build_nodata_additional,
	    52, 0, 0, 0, 0, 120, NULL, NULL, 0 },
	{ "real TXT answer from the world", build_world_txt, 16, 0, 0, 1,
	    0, -1, NULL, NULL, 0 },
	{ "more RRs than kept", build_many, 1, 0, 0, DNSWIRE_MAX_RRS, 44,
	    60, NULL, "\x0a\x00\x00\x00", 4 },
	{ "CNAME loop ends", build_cname_loop, 1, 0, 0, 0, 0, 60,
	    "x.example.", NULL, 0 },
	{ "TTL with the top bit is 0", build_ttl_top_bit, 1, 0, 0, 1, 0, 0,
	    NULL, "\x7f\x00\x00\x01", 4 },
	{ "truncated in RDATA", build_truncated, 1, -1, 0, 0, 0, 0, NULL,
	    NULL, 0 },
	{ "truncated header", build_truncated_header, 1, -1, 0, 0, 0, 0,
	    NULL, NULL, 0 },
	{ "ANCOUNT larger than the packet", build_count_lies, 1, -1, 0, 0,
	    0, 0, NULL, NULL, 0 },
	{ "pointer to itself", build_pointer_loop, 1, -1, 0, 0, 0, 0, NULL,
	    NULL, 0 },
	{ "pointers to each other", build_pointer_pingpong, 1, -1, 0, 0, 0,
	    0, NULL, NULL, 0 },
	{ "pointer past the end", build_pointer_past_end, 1, -1, 0, 0, 0, 0,
	    NULL, NULL, 0 },
	{ "name over 255 bytes", build_name_too_long, 1, -1, 0, 0, 0, 0,
	    NULL, NULL, 0 },
	{ "extended label type", build_label_type_01, 1, -1, 0, 0, 0, 0,
	    NULL, NULL, 0 },
	{ "answer to another type", build_other_type, 1, -1, 0, 0, 0, 0,
	    NULL, NULL, 0 },
	{ "no question", build_no_question, 1, -1, 2, 0, 0, 0, NULL, NULL,
	    0 },
	{ "MX name past RDLENGTH", build_mx_rdata_overrun, 15, -1, 0, 0, 0,
	    0, NULL, NULL, 0 },
};

static void
parse_table(void **state)
{
	static struct pkt	 p;
	struct dnswire_answer	 ans;
	size_t			 i;
	int			 r;

	(void)state;
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];

		print_message("case: %s\n", c->name);
		c->build(&p);
		r = dnswire_parse(p.b, p.n, c->qtype, &ans);
		assert_int_equal(r, c->ret);
		if (r == -1) {
			assert_non_null(ans.error);
			assert_int_equal(ans.count, 0);
			dnswire_answer_clear(&ans);
			continue;
		}
		assert_null(ans.error);
		assert_int_equal(ans.rcode, c->rcode);
		assert_int_equal(ans.nxdomain, c->rcode == 3);
		assert_int_equal(ans.count, c->count);
		assert_int_equal(ans.dropped, c->dropped);
		if (c->ttl >= 0)
			assert_int_equal(ans.ttl, c->ttl);
		if (c->canon == NULL)
			assert_false(ans.cnamed);
		else {
			assert_true(ans.cnamed);
			assert_string_equal(ans.canon, c->canon);
		}
		if (c->rdata0 != NULL) {
			assert_int_equal(ans.rdata_len[0], c->rdata0_len);
			assert_memory_equal(ans.rdata[0], c->rdata0,
			    c->rdata0_len);
		}
		dnswire_answer_clear(&ans);
	}
}

/* the world's TXT record is the MTA-STS one, and its TTL is the zone's */
static void
world_packet_content(void **state)
{
	static struct pkt	 p;
	struct dnswire_answer	 ans;

	(void)state;
	build_world_txt(&p);
	assert_int_equal(dnswire_parse(p.b, p.n, 16, &ans), 0);
	assert_int_equal(ans.count, 1);
	assert_true(ans.rdata_len[0] > 8);
	assert_memory_equal(ans.rdata[0] + 1, "v=STSv1;", 8);
	assert_true(ans.ttl > 0 && ans.ttl <= 3600);
	dnswire_answer_clear(&ans);
}

/* every prefix of a valid packet parses or fails cleanly (ASan) */
static void
every_prefix(void **state)
{
	static struct pkt	 p;
	struct dnswire_answer	 ans;
	size_t			 n, full;

	(void)state;
	build_cname_chain(&p);
	full = p.n;
	for (n = 0; n < full; n++) {
		assert_int_equal(dnswire_parse(p.b, n, 1, &ans), -1);
		dnswire_answer_clear(&ans);
	}
	assert_int_equal(dnswire_parse(p.b, full, 1, &ans), 0);
	dnswire_answer_clear(&ans);
}

static void
canon_escapes(void **state)
{
	static struct pkt	 p;
	struct dnswire_answer	 ans;
	size_t			 t;

	(void)state;
	header(&p, 0, 1, 1, 0, 0);
	question(&p, "example.com", 1);
	rrhead(&p, QPTR, 5, 60, 8);
	t = p.n;
	put8(&p, 3);
	put(&p, "a.\x01", 3);
	put8(&p, 2);
	put(&p, "\\z", 2);
	put8(&p, 0);
	assert_int_equal(p.n - t, 8);
	assert_int_equal(dnswire_parse(p.b, p.n, 1, &ans), 0);
	assert_true(ans.cnamed);
	assert_string_equal(ans.canon, "a\\.\\001.\\\\z.");
	dnswire_answer_clear(&ans);
}

/* ---- dnswire_owner_types: the NSEC/NSEC3 record of a name ---- */

/* nsec_denial - NXDOMAIN for _25._tcp.NAME TLSA, authority: an SOA and
 * one NSEC owned by owner (uncompressed), next "z.example.com", with the
 * window-0 bitmap bm[0..bmlen) */
static void
nsec_denial(struct pkt *p, const char *owner, const unsigned char *bm,
    size_t bmlen)
{
	size_t	 rdl;

	header(p, 3, 1, 0, 2, 0);
	question(p, "_25._tcp.mx.example.com", 52);
	putname(p, "example.com");
	put16(p, 6);
	put16(p, 1);
	put32(p, 300);
	put16(p, 2 + 20);		/* root, root, five numbers */
	put8(p, 0);
	put8(p, 0);
	put32(p, 1);
	put32(p, 2);
	put32(p, 3);
	put32(p, 4);
	put32(p, 300);
	putname(p, owner);
	put16(p, 47);
	put16(p, 1);
	put32(p, 300);
	rdl = strlen("z.example.com") + 2 + 2 + bmlen;
	put16(p, (unsigned int)rdl);
	putname(p, "z.example.com");
	put8(p, 0);
	put8(p, (unsigned int)bmlen);
	put(p, bm, bmlen);
}

/* bitmaps: A NS SOA ... as RFC 4034 §4.1.2 lays them out (bit 0 = type 0) */
static const unsigned char bm_a_rrsig_nsec[] = { 0x40, 0, 0, 0, 0, 0x03 };
static const unsigned char bm_cname[] = { 0x04, 0, 0, 0, 0, 0x03 };
static const unsigned char bm_ns_a[] = { 0x60 };	/* A NS: a cut */
static const unsigned char bm_aaaa[] = { 0, 0, 0, 0x08 };	/* 28 */

static void
owner_types_nsec(void **state)
{
	static struct pkt	 p;
	unsigned int		 t;

	(void)state;
	nsec_denial(&p, "mx.example.com", bm_a_rrsig_nsec,
	    sizeof(bm_a_rrsig_nsec));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_A);
	/* case and a trailing dot do not matter (RFC 4343) */
	assert_int_equal(dnswire_owner_types(p.b, p.n, "MX.Example.COM.",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_A);
	/* another name: not stated here */
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx2.example.com",
	    &t), 0);
	assert_int_equal(dnswire_owner_types(p.b, p.n, "example.com", &t),
	    0);

	nsec_denial(&p, "mx.example.com", bm_cname, sizeof(bm_cname));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_CNAME);
	nsec_denial(&p, "mx.example.com", bm_ns_a, sizeof(bm_ns_a));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_A | DNSWIRE_HAS_NS);
	nsec_denial(&p, "mx.example.com", bm_aaaa, sizeof(bm_aaaa));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_AAAA);
}

/* malformed bitmaps and names are errors, never a reading past the RR */
static void
owner_types_malformed(void **state)
{
	static struct pkt	 p;
	static const unsigned char zero_len[] = { 0 };
	static struct dnswire_answer ans;
	unsigned int		 t;
	size_t			 n, full;

	(void)state;
	nsec_denial(&p, "mx.example.com", zero_len, 0);	/* length 0 */
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), -1);
	/* a window length past the RDATA: the RR says 1 byte less */
	nsec_denial(&p, "mx.example.com", bm_a_rrsig_nsec,
	    sizeof(bm_a_rrsig_nsec));
	p.b[p.n - sizeof(bm_a_rrsig_nsec) - 1] = 7;
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), -1);
	/* window 0 fine, then a window of length 0: an error, and no bit
	 * of the good window is left behind (found by fuzz_dnswire) */
	nsec_denial(&p, "mx.example.com", bm_a_rrsig_nsec,
	    sizeof(bm_a_rrsig_nsec));
	n = p.n - (sizeof(bm_a_rrsig_nsec) + 2 + 15) - 2;	/* RDLENGTH */
	put8(&p, 1);
	put8(&p, 0);
	p.b[n + 1] += 2;
	t = 99;
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), -1);
	assert_int_equal(t, 0);
	/* every prefix: an error or "not found", cleanly (ASan) */
	nsec_denial(&p, "mx.example.com", bm_a_rrsig_nsec,
	    sizeof(bm_a_rrsig_nsec));
	full = p.n;
	for (n = 0; n < full; n++)
		assert_int_equal(dnswire_owner_types(p.b, n,
		    "mx.example.com", &t), -1);
	assert_int_equal(dnswire_owner_types(p.b, full, "mx.example.com",
	    &t), 1);
	/* names we do not look up */
	assert_int_equal(dnswire_owner_types(p.b, full, "", &t), -1);
	assert_int_equal(dnswire_owner_types(p.b, full, ".", &t), -1);
	assert_int_equal(dnswire_owner_types(p.b, full, "a..b", &t), -1);
	assert_int_equal(dnswire_owner_types(p.b, full, "a b.c", &t), -1);
	assert_int_equal(dnswire_owner_types(NULL, 0, "mx.example.com",
	    &t), -1);
	/* the additional section is never read: an ARCOUNT of a record
	 * that is not there does not matter here, where dnswire_parse
	 * refuses the packet */
	p.b[11] = 1;
	assert_int_equal(dnswire_owner_types(p.b, full, "mx2.example.com",
	    &t), 0);
	assert_int_equal(dnswire_parse(p.b, full, 52, &ans), -1);
	assert_string_equal(ans.error, "bad owner name");
	dnswire_answer_clear(&ans);
}

/* nsec3_denial - authority: one NSEC3 (SHA-1, iter, salt) owned by
 * HASH.zone, bitmap bm */
static void
nsec3_denial(struct pkt *p, const char *hash, const char *zone,
    unsigned int alg, unsigned int iter, const unsigned char *salt,
    size_t slen, const unsigned char *bm, size_t bmlen)
{
	static const unsigned char next[20] = { 1 };
	char	 owner[300];

	snprintf(owner, sizeof(owner), "%s.%s", hash, zone);
	header(p, 3, 1, 0, 1, 0);
	question(p, "_25._tcp.mx.example.com", 52);
	putname(p, owner);
	put16(p, 50);
	put16(p, 1);
	put32(p, 300);
	put16(p, (unsigned int)(5 + slen + 1 + sizeof(next) + 2 + bmlen));
	put8(p, alg);
	put8(p, 0);
	put16(p, iter);
	put8(p, (unsigned int)slen);
	put(p, salt, slen);
	put8(p, sizeof(next));
	put(p, next, sizeof(next));
	put8(p, 0);
	put8(p, (unsigned int)bmlen);
	put(p, bm, bmlen);
}

static void
owner_types_nsec3(void **state)
{
	static struct pkt	 p;
	static const unsigned char salt[] = { 0xaa, 0xbb, 0xcc, 0xdd };
	unsigned int		 t;

	(void)state;
	/* RFC 5155 Appendix A: H(example) with salt aabbccdd, 12 extra
	 * iterations */
	nsec3_denial(&p, "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom", "example", 1, 12,
	    salt, sizeof(salt), bm_a_rrsig_nsec, sizeof(bm_a_rrsig_nsec));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "example", &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_A);
	/* the same hash is no other name's */
	assert_int_equal(dnswire_owner_types(p.b, p.n, "a.example", &t), 0);
	/* H(mx.example.com), the same parameters (computed with Python's
	 * hashlib and base64.b32hexencode), upper case as some signers
	 * write it */
	nsec3_denial(&p, "9B0VIF1B35DNB8R9PTLCPDV5KFMI0DLH", "example.com", 1,
	    12, salt, sizeof(salt), bm_cname, sizeof(bm_cname));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_CNAME);
	/* the name is not in the record's zone */
	nsec3_denial(&p, "9b0vif1b35dnb8r9ptlcpdv5kfmi0dlh", "example.net", 1,
	    12, salt, sizeof(salt), bm_cname, sizeof(bm_cname));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 0);
	/* no salt, no extra iteration (RFC 9276's advice) */
	nsec3_denial(&p, "prba91ldeqa4k2335fkj4ngpqk95imo8", "example.com", 1,
	    0, salt, 0, bm_aaaa, sizeof(bm_aaaa));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 1);
	assert_int_equal(t, DNSWIRE_HAS_AAAA);
	/* an unknown hash algorithm, or too many iterations: not read */
	nsec3_denial(&p, "prba91ldeqa4k2335fkj4ngpqk95imo8", "example.com", 2,
	    0, salt, 0, bm_aaaa, sizeof(bm_aaaa));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 0);
	nsec3_denial(&p, "prba91ldeqa4k2335fkj4ngpqk95imo8", "example.com", 1,
	    DNSWIRE_NSEC3_MAX_ITER + 1, salt, 0, bm_aaaa, sizeof(bm_aaaa));
	assert_int_equal(dnswire_owner_types(p.b, p.n, "mx.example.com",
	    &t), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_table),
		cmocka_unit_test(world_packet_content),
		cmocka_unit_test(every_prefix),
		cmocka_unit_test(canon_escapes),
		cmocka_unit_test(owner_types_nsec),
		cmocka_unit_test(owner_types_malformed),
		cmocka_unit_test(owner_types_nsec3),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
