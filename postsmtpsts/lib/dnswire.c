/*
 * dnswire.c - the answer of a DNS response packet, parsed (RFC 1035 §4.1)
 *
 * Interface (dnswire.h): dnswire_parse(pkt, len, qtype, &ans) fills ans
 * with the header RCODE, the answer RRset of qtype after CNAMEs, the final
 * name and the TTL; dnswire_answer_clear() frees it.
 *
 * Input: one DNS message as libunbound's ub_resolve_event() callback hands
 * it (built by unbound, but parsed as if hostile: a bug or a future change
 * there must not become a memory error here).  Every read checks the
 * packet length first; names are read with their compression pointers
 * (RFC 1035 §4.1.4) followed at most DNSWIRE_MAX_POINTERS times, so a
 * pointer loop ends as an error; a name longer than DNSWIRE_NAME_MAX, a
 * label type other than 00 and 11 (RFC 6891 §5 retired 01, 10 is
 * reserved), an RDATA running past the packet or a count of RRs the
 * packet does not hold are errors.  At most DNSWIRE_MAX_RRS RDATAs are
 * kept (the rest are counted in ans->dropped), DNSWIRE_MAX_CNAMES CNAME
 * links followed.
 *
 * Output: RDATAs of types without domain names (A, AAAA, TXT, TLSA, ...)
 * point into the packet; those whose names may be compressed (RFC 3597
 * §4: NS, MD, MF, CNAME, SOA, MB, MG, MR, PTR, MINFO, MX) are rebuilt
 * uncompressed in one allocation, ans->arena, as libunbound's ub_result
 * gave them.  So the answer is valid while the packet is.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "lib/dnswire.h"
#include "lib/domain.h"
#include "lib/xmalloc.h"

#define DNSWIRE_CLASS_IN	1
#define DNSWIRE_TYPE_CNAME	5
#define DNSWIRE_TYPE_SOA	6
#define DNSWIRE_TYPE_OPT	41
#define DNSWIRE_TYPE_NSEC	47
#define DNSWIRE_TYPE_NSEC3	50
#define DNSWIRE_NSEC3_SHA1	1	/* RFC 5155 §11: the only hash */
#define DNSWIRE_SHA1_LEN	20
#define DNSWIRE_B32_LEN		32	/* base32hex of 20 bytes */
#define DNSWIRE_RR_FIXED	10	/* type, class, TTL, RDLENGTH */
#define DNSWIRE_TTL_MAX		0x7fffffffU	/* RFC 2181 §8 */

/* where the domain names sit in an RDATA: fixed bytes before the first
 * name, the number of names, fixed bytes after them (RFC 1035 §3.3) */
struct dnswire_rdnames {
	uint16_t	type;
	uint8_t		before;
	uint8_t		names;
	uint8_t		after;
};

static const struct dnswire_rdnames dnswire_rdnames[] = {
	{ 2, 0, 1, 0 },		/* NS */
	{ 3, 0, 1, 0 },		/* MD */
	{ 4, 0, 1, 0 },		/* MF */
	{ 5, 0, 1, 0 },		/* CNAME */
	{ 6, 0, 2, 20 },	/* SOA: MNAME RNAME + 5 x 32 bits */
	{ 7, 0, 1, 0 },		/* MB */
	{ 8, 0, 1, 0 },		/* MG */
	{ 9, 0, 1, 0 },		/* MR */
	{ 12, 0, 1, 0 },	/* PTR */
	{ 14, 0, 2, 0 },	/* MINFO */
	{ 15, 2, 1, 0 },	/* MX: PREFERENCE EXCHANGE */
};

/* dnswire_u16 - big-endian 16 bits at p */
static uint16_t
dnswire_u16(const unsigned char *p)
{
	return ((uint16_t)((p[0] << 8) | p[1]));
}

/* dnswire_u32 - big-endian 32 bits at p */
static uint32_t
dnswire_u32(const unsigned char *p)
{
	return (((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	    ((uint32_t)p[2] << 8) | (uint32_t)p[3]);
}

/*
 * dnswire_name - read the name at *pos into out (uncompressed wire form,
 * at most DNSWIRE_NAME_MAX bytes), *pos moves past the name where it
 * stands (past its first pointer); -1 on any malformation
 */
static int
dnswire_name(const unsigned char *pkt, size_t len, size_t *pos,
    unsigned char *out, size_t *outlen)
{
	size_t		 p = *pos, o = 0, end = 0;
	unsigned int	 c, ptrs = 0;

	for (;;) {
		if (p >= len)
			return (-1);
		c = pkt[p];
		if ((c & 0xc0) == 0xc0) {
			/* RFC 1035 §4.1.4: 14-bit offset from the start */
			if (p + 1 >= len || ++ptrs > DNSWIRE_MAX_POINTERS)
				return (-1);
			if (ptrs == 1)
				end = p + 2;
			p = ((size_t)(c & 0x3f) << 8) | pkt[p + 1];
			continue;
		}
		if ((c & 0xc0) != 0)
			return (-1);
		/* c + 1 label bytes, and the root label still to come */
		if (c + 1 > len - p || o + c + 2 > DNSWIRE_NAME_MAX)
			return (-1);
		memcpy(out + o, pkt + p, c + 1);
		o += c + 1;
		p += c + 1;
		if (c == 0)
			break;
	}
	*pos = ptrs > 0 ? end : p;
	*outlen = o;
	return (0);
}

/* dnswire_name_eq - the same name, ASCII case-insensitively (RFC 4343) */
static int
dnswire_name_eq(const unsigned char *a, size_t alen, const unsigned char *b,
    size_t blen)
{
	size_t		 i;

	if (alen != blen)
		return (0);
	for (i = 0; i < alen; i++)
		if (domain_lower(a[i]) != domain_lower(b[i]))
			return (0);
	return (1);
}

/*
 * dnswire_name_text - wire name -> presentation form "a.b." in out, with
 * '.', ';', '(', ')', '\\' escaped and other non-graphic bytes as \DDD,
 * as libunbound writes ub_result.canonname; -1 if out is too small
 */
static int
dnswire_name_text(const unsigned char *name, size_t nlen, char *out,
    size_t outsz)
{
	size_t		 i = 0, o = 0, l, k;
	unsigned char	 c;
	int		 n;

	if (outsz < 2)
		return (-1);
	if (nlen == 0 || name[0] == 0) {
		out[0] = '.';
		out[1] = '\0';
		return (0);
	}
	while (i < nlen && name[i] != 0) {
		l = name[i++];
		for (k = 0; k < l && i < nlen; k++, i++) {
			c = name[i];
			if (c == '.' || c == ';' || c == '(' || c == ')' ||
			    c == '\\') {
				if (o + 2 >= outsz)
					return (-1);
				out[o++] = '\\';
				out[o++] = (char)c;
			} else if (c > 0x20 && c < 0x7f) {
				if (o + 1 >= outsz)
					return (-1);
				out[o++] = (char)c;
			} else {
				n = snprintf(out + o, outsz - o, "\\%03u", c);
				if (n < 0 || (size_t)n >= outsz - o)
					return (-1);
				o += (size_t)n;
			}
		}
		if (o + 1 >= outsz)
			return (-1);
		out[o++] = '.';
	}
	out[o] = '\0';
	return (0);
}

/* dnswire_rdnames_find - the name layout of type, or NULL */
static const struct dnswire_rdnames *
dnswire_rdnames_find(unsigned int type)
{
	size_t	 i;

	for (i = 0; i < sizeof(dnswire_rdnames) / sizeof(dnswire_rdnames[0]);
	    i++)
		if (dnswire_rdnames[i].type == type)
			return (&dnswire_rdnames[i]);
	return (NULL);
}

/*
 * dnswire_rdata_expand - RDATA pkt[rd..rd+rdlen) of layout lay, its names
 * decompressed, appended to out (room for rdlen + names *
 * DNSWIRE_NAME_MAX bytes); the names must end inside the RDATA and the
 * fixed parts fill it exactly
 */
static int
dnswire_rdata_expand(const unsigned char *pkt, size_t len, size_t rd,
    size_t rdlen, const struct dnswire_rdnames *lay, unsigned char *out,
    size_t *outlen)
{
	size_t	 pos = rd, end = rd + rdlen, o = 0, nlen;
	int	 i;

	if (lay->before > rdlen)
		return (-1);
	memcpy(out, pkt + pos, lay->before);
	o += lay->before;
	pos += lay->before;
	for (i = 0; i < lay->names; i++) {
		/* the name's own bytes lie in the RDATA; a pointer may
		 * point anywhere in the packet */
		if (dnswire_name(pkt, len, &pos, out + o, &nlen) == -1 ||
		    pos > end)
			return (-1);
		o += nlen;
	}
	if (end - pos != lay->after)
		return (-1);
	memcpy(out + o, pkt + pos, lay->after);
	o += lay->after;
	*outlen = o;
	return (0);
}

/* dnswire_ttl - an RR's TTL as a non-negative int (RFC 2181 §8) */
static uint32_t
dnswire_ttl(uint32_t ttl)
{
	return (ttl > DNSWIRE_TTL_MAX ? 0 : ttl);
}

/*
 * One walk over a packet's records, for dnswire_parse and
 * dnswire_owner_find: dnswire_walk_start checks the header and reads the
 * question, dnswire_walk_next reads one resource record after another
 * through the first nsec sections (answer, authority, additional).
 */
struct dnswire_walk {
	const unsigned char *pkt;
	size_t		 len;
	size_t		 pos;		/* of the next RR */
	size_t		 counts[3];	/* ANCOUNT, NSCOUNT, ARCOUNT */
	size_t		 nsec;		/* sections to read */
	size_t		 sec;		/* of the next RR */
	size_t		 i;		/* its index there */
};

/* one resource record; rdpos and rdlen place its RDATA in the packet */
struct dnswire_rr {
	size_t		 sec;		/* 0 answer, 1 authority, 2 additional */
	unsigned char	 owner[DNSWIRE_NAME_MAX];
	size_t		 olen;
	unsigned int	 type;
	unsigned int	 class;
	uint32_t	 ttl;		/* as sent: dnswire_ttl() reads it */
	size_t		 rdpos;
	size_t		 rdlen;
};

/*
 * dnswire_walk_start - check the header of pkt[0..len) (one question) and
 * read the question into qname/qlen and qtype; NULL, or why not
 */
static const char *
dnswire_walk_start(struct dnswire_walk *w, const unsigned char *pkt,
    size_t len, size_t nsec, unsigned char *qname, size_t *qlen,
    unsigned int *qtype)
{
	if (pkt == NULL || len < DNSWIRE_HEADER_LEN)
		return ("shorter than a DNS header");
	if (dnswire_u16(pkt + 4) != 1)
		return ("not one question");
	w->pkt = pkt;
	w->len = len;
	w->counts[0] = dnswire_u16(pkt + 6);
	w->counts[1] = dnswire_u16(pkt + 8);
	w->counts[2] = dnswire_u16(pkt + 10);
	w->nsec = nsec;
	w->sec = 0;
	w->i = 0;
	w->pos = DNSWIRE_HEADER_LEN;
	if (dnswire_name(pkt, len, &w->pos, qname, qlen) == -1)
		return ("bad question name");
	if (len - w->pos < 4)
		return ("truncated question");
	*qtype = dnswire_u16(pkt + w->pos);
	w->pos += 4;
	return (NULL);
}

/*
 * dnswire_walk_next - read the next record into rr: 1, 0 past the last
 * one of the walk's sections, -1 with *why set
 */
static int
dnswire_walk_next(struct dnswire_walk *w, struct dnswire_rr *rr,
    const char **why)
{
	const unsigned char *p;

	while (w->sec < w->nsec && w->i == w->counts[w->sec]) {
		w->sec++;
		w->i = 0;
	}
	if (w->sec == w->nsec)
		return (0);
	rr->sec = w->sec;
	w->i++;
	if (dnswire_name(w->pkt, w->len, &w->pos, rr->owner,
	    &rr->olen) == -1) {
		*why = "bad owner name";
		return (-1);
	}
	if (w->len - w->pos < DNSWIRE_RR_FIXED) {
		*why = "truncated RR";
		return (-1);
	}
	p = w->pkt + w->pos;
	rr->type = dnswire_u16(p);
	rr->class = dnswire_u16(p + 2);
	rr->ttl = dnswire_u32(p + 4);
	rr->rdlen = dnswire_u16(p + 8);
	rr->rdpos = w->pos + DNSWIRE_RR_FIXED;
	if (rr->rdlen > w->len - rr->rdpos) {
		*why = "truncated RDATA";
		return (-1);
	}
	w->pos = rr->rdpos + rr->rdlen;
	return (1);
}

/* dnswire_fail - record why, return -1 */
static int
dnswire_fail(struct dnswire_answer *ans, const char *why)
{
	ans->error = why;
	ans->count = 0;
	return (-1);
}

int
dnswire_parse(const unsigned char *pkt, size_t len, int qtype,
    struct dnswire_answer *ans)
{
	unsigned char	 qname[DNSWIRE_NAME_MAX], sname[DNSWIRE_NAME_MAX];
	struct dnswire_walk w;
	struct dnswire_rr rr;
	const struct dnswire_rdnames *lay;
	const char	*why = NULL;
	size_t		 qlen, slen, rdend, rdlen, cpos, need, o;
	size_t		 i, cnames = 0, any = 0;
	uint32_t	 ttl, minttl_ans = DNSWIRE_TTL_MAX;
	uint32_t	 minttl_all = DNSWIRE_TTL_MAX;
	unsigned int	 qt;
	int		 r;
	/* zeroed: clang-analyzer cannot tie the kept entries to count */
	size_t		 rdpos_kept[DNSWIRE_MAX_RRS] = { 0 };

	ans->rcode = 0;
	ans->nxdomain = 0;
	ans->ttl = 0;
	ans->cnamed = 0;
	ans->canon[0] = '\0';
	ans->count = 0;
	ans->dropped = 0;
	ans->arena = NULL;
	ans->error = NULL;

	if (pkt != NULL && len >= DNSWIRE_HEADER_LEN) {
		ans->rcode = pkt[3] & 0x0f;	/* RFC 1035 §4.1.1 */
		ans->nxdomain = ans->rcode == 3;
	}
	if ((why = dnswire_walk_start(&w, pkt, len, 3, qname, &qlen,
	    &qt)) != NULL)
		return (dnswire_fail(ans, why));
	if (qt != (unsigned int)qtype)
		return (dnswire_fail(ans, "answer to another type"));
	memcpy(sname, qname, qlen);
	slen = qlen;

	while ((r = dnswire_walk_next(&w, &rr, &why)) == 1) {
		/* the additional section (OPT's, never validated: see
		 * dns.c) sets no TTL and holds no answer */
		if (rr.type == DNSWIRE_TYPE_OPT || rr.sec == 2)
			continue;
		ttl = dnswire_ttl(rr.ttl);
		rdend = rr.rdpos + rr.rdlen;
		/* RFC 2308 §5: a negative answer lives as long as the SOA's
		 * MINIMUM at most */
		if (rr.sec == 1 && rr.type == DNSWIRE_TYPE_SOA &&
		    rr.rdlen >= 4 && dnswire_ttl(dnswire_u32(pkt + rdend -
		    4)) < ttl)
			ttl = dnswire_ttl(dnswire_u32(pkt + rdend - 4));
		any++;
		if (ttl < minttl_all)
			minttl_all = ttl;
		if (rr.sec != 0 || rr.class != DNSWIRE_CLASS_IN ||
		    !dnswire_name_eq(rr.owner, rr.olen, sname, slen))
			continue;
		if (rr.type == (unsigned int)qtype) {
			if (ans->count == DNSWIRE_MAX_RRS) {
				ans->dropped++;
				continue;
			}
			rdpos_kept[ans->count] = rr.rdpos;
			ans->rdata_len[ans->count++] = rr.rdlen;
			if (ttl < minttl_ans)
				minttl_ans = ttl;
		} else if (rr.type == DNSWIRE_TYPE_CNAME &&
		    cnames < DNSWIRE_MAX_CNAMES) {
			/* RFC 1034 §3.6.2: go on at the target */
			cpos = rr.rdpos;
			if (dnswire_name(pkt, len, &cpos, sname, &slen) == -1 ||
			    cpos != rdend)
				return (dnswire_fail(ans, "bad CNAME target"));
			cnames++;
			ans->cnamed = 1;
		}
	}
	if (r == -1)
		return (dnswire_fail(ans, why));
	if (ans->cnamed && dnswire_name_text(sname, slen, ans->canon,
	    sizeof(ans->canon)) == -1)
		return (dnswire_fail(ans, "unprintable CNAME target"));
	if (ans->count > 0)
		ans->ttl = (int)minttl_ans;
	else if (any > 0)
		ans->ttl = (int)minttl_all;

	if ((lay = dnswire_rdnames_find((unsigned int)qtype)) == NULL) {
		for (i = 0; i < ans->count; i++)
			ans->rdata[i] = pkt + rdpos_kept[i];
		return (0);
	}
	/* RDATAs with names: uncompressed copies in one arena; each grows
	 * by at most its names' full length */
	need = 0;
	for (i = 0; i < ans->count; i++)
		need += ans->rdata_len[i] + (size_t)lay->names *
		    DNSWIRE_NAME_MAX;
	if (need == 0)
		return (0);
	ans->arena = xmalloc(need);
	o = 0;
	for (i = 0; i < ans->count; i++) {
		if (dnswire_rdata_expand(pkt, len, rdpos_kept[i],
		    ans->rdata_len[i], lay, ans->arena + o, &rdlen) == -1) {
			dnswire_answer_clear(ans);
			return (dnswire_fail(ans, "bad name in RDATA"));
		}
		ans->rdata[i] = ans->arena + o;
		ans->rdata_len[i] = rdlen;
		o += rdlen;
	}
	return (0);
}

void
dnswire_answer_clear(struct dnswire_answer *ans)
{
	if (ans == NULL)
		return;
	free(ans->arena);
	ans->arena = NULL;
	ans->count = 0;
}

/* dnswire_text_wire - "a.b" or "a.b." (letters, digits, '-', '_') to
 * lower-case wire form; -1 for anything else */
static int
dnswire_text_wire(const char *text, unsigned char *out, size_t *outlen)
{
	size_t		 o = 1, lab = 0, cur = 0;	/* out[lab]: length */
	unsigned char	 c;

	if (*text == '\0' || *text == '.')
		return (-1);
	for (; *text != '\0'; text++) {
		c = (unsigned char)*text;
		if (c == '.') {
			if (cur == 0 || o + 1 > DNSWIRE_NAME_MAX)
				return (-1);	/* empty label, too long */
			out[lab] = (unsigned char)cur;
			lab = o++;
			cur = 0;
			continue;
		}
		c = domain_lower(c);
		if (!domain_host_char(c) || cur == 63 ||
		    o + 2 > DNSWIRE_NAME_MAX)
			return (-1);
		out[o++] = c;
		cur++;
	}
	if (cur > 0) {
		out[lab] = (unsigned char)cur;
		out[o++] = 0;
	} else
		out[lab] = 0;	/* the trailing dot's byte: the root */
	*outlen = o;
	return (0);
}

/* dnswire_bitmap - the DNSWIRE_HAS_* of the type bitmap p[0..n) (RFC 4034
 * §4.1.2: window, length 1..32, bits); -1 if malformed */
static int
dnswire_bitmap(const unsigned char *p, size_t n, unsigned int *types)
{
	static const struct {
		unsigned int	 type, flag;
	} want[] = {
		{ 1, DNSWIRE_HAS_A }, { 2, DNSWIRE_HAS_NS },
		{ 5, DNSWIRE_HAS_CNAME }, { 6, DNSWIRE_HAS_SOA },
		{ 28, DNSWIRE_HAS_AAAA }, { 39, DNSWIRE_HAS_DNAME },
	};
	size_t		 i = 0, blen, k;
	int		 last = -1;

	*types = 0;
	while (i < n) {
		if (n - i < 2)
			return (-1);
		blen = p[i + 1];
		if (blen < 1 || blen > 32 || blen > n - i - 2 ||
		    (int)p[i] <= last)
			return (-1);
		last = p[i];
		if (p[i] == 0)
			for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
				if (want[k].type / 8 < blen &&
				    (p[i + 2 + want[k].type / 8] &
				    (0x80 >> (want[k].type % 8))) != 0)
					*types |= want[k].flag;
		i += 2 + blen;
	}
	return (0);
}

/* dnswire_nsec3_hash - RFC 5155 §5: IH(salt, name, iterations) */
static int
dnswire_nsec3_hash(const unsigned char *name, size_t nlen,
    const unsigned char *salt, size_t slen, unsigned int iter,
    unsigned char out[DNSWIRE_SHA1_LEN])
{
	unsigned char	 buf[DNSWIRE_NAME_MAX + 255];
	unsigned int	 k;

	memcpy(buf, name, nlen);
	memcpy(buf + nlen, salt, slen);
	if (gnutls_hash_fast(GNUTLS_DIG_SHA1, buf, nlen + slen, out) != 0)
		return (-1);
	for (k = 0; k < iter; k++) {
		memcpy(buf, out, DNSWIRE_SHA1_LEN);
		memcpy(buf + DNSWIRE_SHA1_LEN, salt, slen);
		if (gnutls_hash_fast(GNUTLS_DIG_SHA1, buf,
		    DNSWIRE_SHA1_LEN + slen, out) != 0)
			return (-1);
	}
	return (0);
}

/* dnswire_b32hex_eq - is label[0..32) the base32hex (RFC 4648 §7) of the
 * 20 bytes h, ignoring case? */
static int
dnswire_b32hex_eq(const unsigned char *label, const unsigned char *h)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	size_t		 i;
	unsigned int	 bit, v, b;

	for (i = 0; i < DNSWIRE_B32_LEN; i++) {
		v = 0;
		for (b = 0; b < 5; b++) {
			bit = (unsigned int)(i * 5 + b);
			v = (v << 1) | ((h[bit / 8] >> (7 - bit % 8)) & 1);
		}
		if (domain_lower(label[i]) != (unsigned char)digits[v])
			return (0);
	}
	return (1);
}

/* dnswire_in_zone - the offset in name (wire, lower case) where zone
 * (wire) starts as a whole-label suffix, or -1 */
static long
dnswire_in_zone(const unsigned char *name, size_t nlen,
    const unsigned char *zone, size_t zlen)
{
	size_t	 k = 0;

	while (k < nlen) {
		if (nlen - k == zlen && dnswire_name_eq(name + k, nlen - k,
		    zone, zlen))
			return ((long)k);
		if (name[k] == 0)
			break;
		k += (size_t)name[k] + 1;
	}
	return (-1);
}

/* dnswire_nsec3_match - does the NSEC3 RR owner/rdata state the types of
 * name?  1 with *types, 0 not this name, -1 malformed */
static int
dnswire_nsec3_match(const unsigned char *owner, size_t olen,
    const unsigned char *rd, size_t rdlen, const unsigned char *name,
    size_t nlen, unsigned int *types)
{
	unsigned char	 h[DNSWIRE_SHA1_LEN];
	size_t		 slen, hlen, p;
	unsigned int	 iter;

	/* hash alg, flags, iterations, salt length, salt, hash length,
	 * next hashed owner, type bitmaps (RFC 5155 §3.2) */
	if (rdlen < 5)
		return (-1);
	iter = dnswire_u16(rd + 2);
	slen = rd[4];
	if (rdlen < 5 + slen + 1)
		return (-1);
	hlen = rd[5 + slen];
	p = 6 + slen + hlen;
	if (p > rdlen)
		return (-1);
	if (rd[0] != DNSWIRE_NSEC3_SHA1 || iter > DNSWIRE_NSEC3_MAX_ITER ||
	    owner[0] != DNSWIRE_B32_LEN ||
	    dnswire_in_zone(name, nlen, owner + 1 + DNSWIRE_B32_LEN,
	    olen - 1 - DNSWIRE_B32_LEN) < 0)
		return (0);
	if (dnswire_nsec3_hash(name, nlen, rd + 5, slen, iter, h) == -1 ||
	    !dnswire_b32hex_eq(owner + 1, h))
		return (0);
	return (dnswire_bitmap(rd + p, rdlen - p, types) == -1 ? -1 : 1);
}

/* dnswire_owner_find - dnswire_owner_types, *types undefined unless 1 */
static int
dnswire_owner_find(const unsigned char *pkt, size_t len, const char *name,
    unsigned int *types)
{
	unsigned char	 want[DNSWIRE_NAME_MAX], qname[DNSWIRE_NAME_MAX];
	unsigned char	 next[DNSWIRE_NAME_MAX];
	struct dnswire_walk w;
	struct dnswire_rr rr;
	const char	*why;
	size_t		 wlen, qlen, nlen, npos, rdend;
	unsigned int	 qt;
	int		 r;

	*types = 0;
	if (dnswire_text_wire(name, want, &wlen) == -1)
		return (-1);
	/* answer and authority: the additional section is never read */
	if (dnswire_walk_start(&w, pkt, len, 2, qname, &qlen, &qt) != NULL)
		return (-1);
	while ((r = dnswire_walk_next(&w, &rr, &why)) == 1) {
		if (rr.sec != 1 || rr.class != DNSWIRE_CLASS_IN)
			continue;
		rdend = rr.rdpos + rr.rdlen;
		if (rr.type == DNSWIRE_TYPE_NSEC &&
		    dnswire_name_eq(rr.owner, rr.olen, want, wlen)) {
			/* next domain name, then the bitmap */
			npos = rr.rdpos;
			if (dnswire_name(pkt, len, &npos, next, &nlen) == -1 ||
			    npos > rdend || dnswire_bitmap(pkt + npos,
			    rdend - npos, types) == -1)
				return (-1);
			return (1);
		}
		if (rr.type == DNSWIRE_TYPE_NSEC3 &&
		    rr.olen > 1 + DNSWIRE_B32_LEN && (r = dnswire_nsec3_match(
		    rr.owner, rr.olen, pkt + rr.rdpos, rr.rdlen, want, wlen,
		    types)) != 0)
			return (r);
	}
	return (r);
}

int
dnswire_owner_types(const unsigned char *pkt, size_t len, const char *name,
    unsigned int *types)
{
	int	 r;

	/* a bitmap that turns out malformed half-way leaves bits behind */
	if ((r = dnswire_owner_find(pkt, len, name, types)) != 1)
		*types = 0;
	return (r);
}
