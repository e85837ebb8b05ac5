/*
 * dnswire.h - the answer of a DNS response packet (RFC 1035 §4.1), parsed
 *
 * dnswire_parse() reads a whole response packet (the bytes libunbound's
 * event API hands dns.c) and extracts what struct dns_result reports: the
 * header RCODE, the RDATAs of the answer RRset of the asked type after
 * following the CNAME chain from the question name, the final name when
 * CNAMEs were followed, and the TTL.  A pure function: no I/O, no state;
 * every read is bounds-checked against the packet length.
 */
#ifndef DNSWIRE_H
#define DNSWIRE_H

#include <stddef.h>
#include <stdint.h>

#define DNSWIRE_HEADER_LEN	12
#define DNSWIRE_NAME_MAX	255	/* wire bytes of a name (RFC 1035 §3.1) */
#define DNSWIRE_TEXT_MAX	1024	/* presentation form, \DDD escapes */
#define DNSWIRE_MAX_POINTERS	64	/* compression pointers in one name */
#define DNSWIRE_MAX_CNAMES	16	/* CNAME links followed */
#define DNSWIRE_MAX_RRS		256	/* answer RRs kept; more are counted */
#define DNSWIRE_MAX_SECTION_RRS	65535	/* an RR count is 16 bits */

struct dnswire_answer {
	int		 rcode;		/* header RCODE, 4 bits */
	int		 nxdomain;	/* rcode == NXDOMAIN */
	int		 ttl;		/* see dnswire_parse */
	int		 cnamed;	/* CNAMEs were followed: canon is set */
	char		 canon[DNSWIRE_TEXT_MAX]; /* final name, "a.b." */
	size_t		 count;		/* RDATAs kept */
	size_t		 dropped;	/* beyond DNSWIRE_MAX_RRS */
	const unsigned char *rdata[DNSWIRE_MAX_RRS];
	size_t		 rdata_len[DNSWIRE_MAX_RRS];
	unsigned char	*arena;		/* owns the RDATA copies */
	const char	*error;		/* parse failure: static reason */
};

/*
 * dnswire_parse - parse the response pkt[0..len) to a question of type
 * qtype (the packet's single question must ask that type)
 *
 * The answer RRset is found as libunbound's reply_find_answer_rrset does:
 * walking the answer section in order, an RR of class IN owned by the
 * current name is kept if its type is qtype, and a CNAME owned by it makes
 * its target the current name (at most DNSWIRE_MAX_CNAMES times).  RDATAs
 * are copied, with the domain names inside MX, CNAME, NS, PTR and SOA RDATA
 * decompressed (RFC 3597 §4), so they are self-contained.  ttl: the
 * smallest TTL of the kept RRs; without any, the smallest TTL of every RR
 * in the answer and authority sections (an authority SOA counts at most
 * its MINIMUM, RFC 2308 §5; the additional section, which libunbound does
 * not validate for us, never counts), 0 for an empty packet; TTLs with
 * the top bit set read as 0 (RFC 2181 §8).  Returns 0, or -1 with
 * ans->error set; either way release with dnswire_answer_clear().
 */
int	dnswire_parse(const unsigned char *pkt, size_t len, int qtype,
	    struct dnswire_answer *ans);

/* dnswire_answer_clear - free what dnswire_parse allocated */
void	dnswire_answer_clear(struct dnswire_answer *ans);

/* what the type bitmap of an NSEC or NSEC3 record lists (RFC 4034 §4.1.2) */
#define DNSWIRE_HAS_A		0x01
#define DNSWIRE_HAS_NS		0x02
#define DNSWIRE_HAS_CNAME	0x04
#define DNSWIRE_HAS_SOA		0x08
#define DNSWIRE_HAS_AAAA	0x10
#define DNSWIRE_HAS_DNAME	0x20
#define DNSWIRE_NSEC3_MAX_ITER	150	/* RFC 9276 §3.2; more: not read */

/*
 * dnswire_owner_types - the types that exist at name (presentation form,
 * letters, digits, '-' and '_' only, trailing dot optional), as an NSEC
 * or NSEC3 record in the authority section of the response pkt[0..len)
 * states them: an NSEC record owned by name (RFC 4034 §4), or an NSEC3
 * record whose owner is the hash of name (RFC 5155 §5: SHA-1, at most
 * DNSWIRE_NSEC3_MAX_ITER iterations) in a zone name lies in.  Returns 1
 * with *types set (DNSWIRE_HAS_*), 0 if no such record is there, -1 for a
 * malformed packet or name.  Says nothing of whether the records were
 * validated: that is the caller's (a secure answer from libunbound).
 */
int	dnswire_owner_types(const unsigned char *pkt, size_t len,
	    const char *name, unsigned int *types);

#endif
