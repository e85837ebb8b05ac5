/*
 * addrclass.h - is an IP address globally reachable?  Networks in CIDR
 *
 * NAME
 *	addrclass - the special-purpose address ranges, and CIDR networks
 * SYNOPSIS
 *	addrclass_global(family, addr, why, whysz)
 *	addrclass_parse(p, len, net, why)
 *	addrclass_match(net, family, addr)
 *	addrclass_permit(allow, nallow, family, addr, why, whysz)
 *	addrclass_format(net, out, outsz)
 * DESCRIPTION
 *	A table of IANA's IPv4 and IPv6 Special-Purpose Address Registries
 *	(RFC 6890), the entries whose "Globally Reachable" is False, plus
 *	multicast (224.0.0.0/4, ff00::/8), deprecated site-local
 *	(fec0::/10, RFC 3879) and every IPv6 address outside 2000::/3 (IANA's
 *	IPv6 Address Space: the rest is reserved or special).  The most
 *	specific entry decides, so the reachable services inside 2001::/23
 *	are global.  64:ff9b::/96 (NAT64, RFC 6052) is judged by the IPv4
 *	address it embeds; ::ffff:0:0/96 (IPv4-mapped) is never global, as
 *	IANA lists it.  The anycast /32s and /128s IANA marks reachable in
 *	192.0.0.0/24 and 2001:1::/48 (PCP, TURN, SRP) answer near the
 *	asker, so they are not global here.
 *
 *	For postsmtpsts-tlsrpt(8): a report POST to an address of the
 *	domain owner's choosing must not reach the sender's own network
 *	(tlsrpt.report_allow_addresses lets a private collector in).  Pure:
 *	no I/O, no allocation, no state.
 */
#ifndef ADDRCLASS_H
#define ADDRCLASS_H

#include <stddef.h>

#define ADDRCLASS_WHY_MAX	128	/* a reason, NUL included */
#define ADDRCLASS_NET_MAX	(46 + 4)	/* "addr/len" text, NUL incl. */

/* A network: family AF_INET (4 bytes of addr used) or AF_INET6 (16). */
struct addrclass_net {
	int		 family;
	unsigned char	 addr[16];	/* the host bits are zero */
	unsigned int	 plen;		/* 0..32 or 0..128 */
};

/*
 * addrclass_global - 1 if addr (family AF_INET: 4 bytes, AF_INET6: 16) is
 * globally reachable; else 0, and why (size whysz, may be 0) names the
 * range: "127.0.0.0/8 loopback", "64:ff9b::/96 nat64 of 10.0.0.0/8
 * private-use".  Another family is not global ("unknown address family").
 */
int	addrclass_global(int family, const void *addr, char *why,
	    size_t whysz);

/*
 * addrclass_parse - "192.0.2.0/24", "2001:db8::/32", or an address alone
 * (/32, /128) from p[0..len) into *net: 0, or -1 with a static reason in
 * *why.  Host bits set ("10.0.0.1/8") are refused: a mistake, not a
 * network.
 */
int	addrclass_parse(const char *p, size_t len, struct addrclass_net *net,
	    const char **why);

/* addrclass_match - is addr (family: as addrclass_global) in net? */
int	addrclass_match(const struct addrclass_net *net, int family,
	    const void *addr);

/*
 * addrclass_permit - may a connection go to addr: 1 if it is in one of
 * allow[0..nallow) or global; else 0 with the range in why (size
 * whysz), as addrclass_global() names it.
 */
int	addrclass_permit(const struct addrclass_net *allow, size_t nallow,
	    int family, const void *addr, char *why, size_t whysz);

/* addrclass_format - net as "addr/len" into out (ADDRCLASS_NET_MAX) */
char	*addrclass_format(const struct addrclass_net *net, char *out,
	    size_t outsz);

#endif
