/*
 * addrclass.c - is an IP address globally reachable?  Networks in CIDR
 *
 * Interface: addrclass.h.  The table below is IANA's IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890, as updated; "Globally
 * Reachable" False), with the additions addrclass.h names; each row is
 * "network/length", a name for the log, and what an address in it is.
 * The longest matching row decides; no row: global.  Rows are text,
 * parsed by addrclass_parse() at each use (some 45 rows, looked at once
 * per connection), so the table reads as the registry does and
 * tests/unit/test_addrclass.c proves every row parses.  A row that did
 * not would make every address not global: closed, not open.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <string.h>

#include "lib/addrclass.h"

#define ADDRCLASS_V4	4
#define ADDRCLASS_V6	16

enum addrclass_kind {
	ADDRCLASS_LOCAL,	/* not globally reachable */
	ADDRCLASS_REACHABLE,	/* reachable, inside a LOCAL row */
	ADDRCLASS_NAT64,	/* judged by the IPv4 address in its low 32 bits */
};

static const struct {
	const char		*net;
	const char		*name;
	enum addrclass_kind	 kind;
} addrclass_table[] = {
	/* IPv4 Special-Purpose Address Registry */
	{ "0.0.0.0/8", "this-network", ADDRCLASS_LOCAL },	/* RFC 791 */
	{ "10.0.0.0/8", "private-use", ADDRCLASS_LOCAL },	/* RFC 1918 */
	{ "100.64.0.0/10", "shared-address-space", ADDRCLASS_LOCAL },
								/* RFC 6598 */
	{ "127.0.0.0/8", "loopback", ADDRCLASS_LOCAL },	/* RFC 1122 */
	{ "169.254.0.0/16", "link-local", ADDRCLASS_LOCAL },	/* RFC 3927 */
	{ "172.16.0.0/12", "private-use", ADDRCLASS_LOCAL },	/* RFC 1918 */
	/* RFC 6890: with its anycast /32s (192.0.0.9 PCP, .10 TURN), which
	 * answer near the asker */
	{ "192.0.0.0/24", "ietf-protocol-assignments", ADDRCLASS_LOCAL },
	{ "192.0.2.0/24", "documentation", ADDRCLASS_LOCAL },	/* RFC 5737 */
	{ "192.168.0.0/16", "private-use", ADDRCLASS_LOCAL },	/* RFC 1918 */
	{ "198.18.0.0/15", "benchmarking", ADDRCLASS_LOCAL },	/* RFC 2544 */
	{ "198.51.100.0/24", "documentation", ADDRCLASS_LOCAL },
	{ "203.0.113.0/24", "documentation", ADDRCLASS_LOCAL },
	{ "224.0.0.0/4", "multicast", ADDRCLASS_LOCAL },	/* RFC 5771 */
	{ "240.0.0.0/4", "reserved", ADDRCLASS_LOCAL },	/* RFC 1112 */
	{ "255.255.255.255/32", "limited-broadcast", ADDRCLASS_LOCAL },

	/* IPv6 Address Space: only 2000::/3 is global unicast */
	{ "::/3", "reserved-by-ietf", ADDRCLASS_LOCAL },
	{ "4000::/2", "reserved-by-ietf", ADDRCLASS_LOCAL },
	{ "8000::/1", "reserved-by-ietf", ADDRCLASS_LOCAL },
	/* IPv6 Special-Purpose Address Registry */
	{ "::/128", "unspecified", ADDRCLASS_LOCAL },		/* RFC 4291 */
	{ "::1/128", "loopback", ADDRCLASS_LOCAL },		/* RFC 4291 */
	{ "::ffff:0:0/96", "ipv4-mapped", ADDRCLASS_LOCAL },	/* RFC 4291 */
	{ "64:ff9b::/96", "nat64", ADDRCLASS_NAT64 },		/* RFC 6052 */
	{ "64:ff9b:1::/48", "nat64-local-use", ADDRCLASS_LOCAL },
								/* RFC 8215 */
	{ "100::/64", "discard-only", ADDRCLASS_LOCAL },	/* RFC 6666 */
	{ "100:0:0:1::/64", "dummy-prefix", ADDRCLASS_LOCAL },	/* RFC 9780 */
	/* RFC 2928; TEREDO 2001::/32, ORCHID 2001:10::/28 and the anycast
	 * 2001:1::1-3 (PCP, TURN, SRP) stay inside it */
	{ "2001::/23", "ietf-protocol-assignments", ADDRCLASS_LOCAL },
	{ "2001:2::/48", "benchmarking", ADDRCLASS_LOCAL },	/* RFC 5180 */
	{ "2001:3::/32", "amt", ADDRCLASS_REACHABLE },		/* RFC 7450 */
	{ "2001:4:112::/48", "as112-v6", ADDRCLASS_REACHABLE },	/* RFC 7535 */
	{ "2001:20::/28", "orchidv2", ADDRCLASS_REACHABLE },	/* RFC 7343 */
	{ "2001:30::/28", "drone-remote-id", ADDRCLASS_REACHABLE },
								/* RFC 9374 */
	{ "2001:db8::/32", "documentation", ADDRCLASS_LOCAL },	/* RFC 3849 */
	{ "3fff::/20", "documentation", ADDRCLASS_LOCAL },	/* RFC 9637 */
	{ "5f00::/16", "srv6-sids", ADDRCLASS_LOCAL },		/* RFC 9602 */
	{ "fc00::/7", "unique-local", ADDRCLASS_LOCAL },	/* RFC 4193 */
	{ "fe80::/10", "link-local", ADDRCLASS_LOCAL },	/* RFC 4291 */
	{ "fec0::/10", "site-local", ADDRCLASS_LOCAL },	/* RFC 3879 */
	{ "ff00::/8", "multicast", ADDRCLASS_LOCAL },		/* RFC 4291 */
};

#define ADDRCLASS_NROWS	(sizeof(addrclass_table) / sizeof(addrclass_table[0]))

/* addrclass_bytes - the address length of family, 0 if neither */
static size_t
addrclass_bytes(int family)
{
	return (family == AF_INET ? ADDRCLASS_V4 : family == AF_INET6 ?
	    ADDRCLASS_V6 : 0);
}

int
addrclass_parse(const char *p, size_t len, struct addrclass_net *net,
    const char **why)
{
	char		 a[ADDRCLASS_NET_MAX];
	const char	*slash;
	size_t		 alen, i, n;
	unsigned int	 plen = 0;

	memset(net, 0, sizeof(*net));
	if (len == 0 || len >= sizeof(a) || memchr(p, '\0', len) != NULL) {
		*why = "not an address or network (address/length)";
		return (-1);
	}
	slash = memchr(p, '/', len);
	alen = slash != NULL ? (size_t)(slash - p) : len;
	memcpy(a, p, alen);
	a[alen] = '\0';
	if (inet_pton(AF_INET, a, net->addr) == 1)
		net->family = AF_INET;
	else if (inet_pton(AF_INET6, a, net->addr) == 1)
		net->family = AF_INET6;
	else {
		*why = "not an IPv4 or IPv6 address";
		return (-1);
	}
	n = addrclass_bytes(net->family) * 8;
	if (slash == NULL)
		plen = (unsigned int)n;
	else {
		/* 1 to 3 digits, no sign, no blank, no leading zero */
		if (len - alen < 2 || len - alen > 4 || (slash[1] == '0' &&
		    len - alen > 2)) {
			*why = "the prefix length is not a number";
			return (-1);
		}
		for (i = alen + 1; i < len; i++) {
			if (p[i] < '0' || p[i] > '9') {
				*why = "the prefix length is not a number";
				return (-1);
			}
			plen = plen * 10 + (unsigned int)(p[i] - '0');
		}
		if (plen > n) {
			*why = net->family == AF_INET ? "the prefix length is "
			    "over 32" : "the prefix length is over 128";
			return (-1);
		}
	}
	net->plen = plen;
	for (i = plen; i < n; i++)
		if (net->addr[i / 8] & (0x80 >> (i % 8))) {
			*why = "host bits are set (not a network address)";
			return (-1);
		}
	return (0);
}

int
addrclass_match(const struct addrclass_net *net, int family, const void *addr)
{
	const unsigned char	*a = addr;
	unsigned int		 full, rest;

	if (family != net->family || addrclass_bytes(family) == 0)
		return (0);
	full = net->plen / 8;
	rest = net->plen % 8;
	if (memcmp(a, net->addr, full) != 0)
		return (0);
	return (rest == 0 || ((a[full] ^ net->addr[full]) &
	    (0xff00 >> rest) & 0xff) == 0);
}

int
addrclass_global(int family, const void *addr, char *why, size_t whysz)
{
	struct addrclass_net	 net, best;
	char			 inner[ADDRCLASS_WHY_MAX];
	const char		*err;
	size_t			 i, found = ADDRCLASS_NROWS;

	if (whysz > 0)
		why[0] = '\0';
	if (addrclass_bytes(family) == 0) {
		if (whysz > 0)
			snprintf(why, whysz, "unknown address family");
		return (0);
	}
	memset(&best, 0, sizeof(best));
	for (i = 0; i < ADDRCLASS_NROWS; i++) {
		if (addrclass_parse(addrclass_table[i].net,
		    strlen(addrclass_table[i].net), &net, &err) == -1) {
			if (whysz > 0)
				snprintf(why, whysz, "address table row %zu "
				    "invalid", i);
			return (0);
		}
		if (addrclass_match(&net, family, addr) &&
		    (found == ADDRCLASS_NROWS || net.plen > best.plen)) {
			found = i;
			best = net;
		}
	}
	if (found == ADDRCLASS_NROWS)
		return (1);
	switch (addrclass_table[found].kind) {
	case ADDRCLASS_REACHABLE:
		return (1);
	case ADDRCLASS_NAT64:
		/* RFC 6052 §2.2: the /96 prefix, the IPv4 address last */
		if (addrclass_global(AF_INET, (const unsigned char *)addr + 12,
		    inner, sizeof(inner)))
			return (1);
		if (whysz > 0)
			snprintf(why, whysz, "%s %s of %s",
			    addrclass_table[found].net,
			    addrclass_table[found].name, inner);
		return (0);
	case ADDRCLASS_LOCAL:
		break;
	}
	if (whysz > 0)
		snprintf(why, whysz, "%s %s", addrclass_table[found].net,
		    addrclass_table[found].name);
	return (0);
}

int
addrclass_permit(const struct addrclass_net *allow, size_t nallow,
    int family, const void *addr, char *why, size_t whysz)
{
	size_t	 i;

	if (whysz > 0)
		why[0] = '\0';
	for (i = 0; i < nallow; i++)
		if (addrclass_match(&allow[i], family, addr))
			return (1);
	return (addrclass_global(family, addr, why, whysz));
}

char *
addrclass_format(const struct addrclass_net *net, char *out, size_t outsz)
{
	char	 a[INET6_ADDRSTRLEN];

	if (outsz == 0)
		return (out);
	if (inet_ntop(net->family, net->addr, a, sizeof(a)) == NULL)
		snprintf(out, outsz, "?");
	else
		snprintf(out, outsz, "%s/%u", a, net->plen);
	return (out);
}
