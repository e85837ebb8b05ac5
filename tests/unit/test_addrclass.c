/*
 * test_addrclass.c - unit tests for the address classifier and the CIDR
 * networks of lib/addrclass.c
 *
 * Each row of the tables is its own TAP test.  The ranges: the first and
 * the last address of every range, and the addresses just outside it;
 * the mapped and NAT64 forms of IPv4 addresses; the reachable services
 * inside 2001::/23.  The networks: what tlsrpt.report_allow_addresses
 * takes and refuses, matching at the prefix's edge, the allow list.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/addrclass.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

struct class_case {
	const char	*addr;
	int		 global;
	const char	*why;		/* the reason when not global */
};

#define G(a)		{ a, 1, NULL }
#define L(a, w)		{ a, 0, w }

static const struct class_case class_cases[] = {
	/* 0.0.0.0/8 */
	L("0.0.0.0", "0.0.0.0/8 this-network"),
	L("0.255.255.255", "0.0.0.0/8 this-network"),
	G("1.0.0.0"),
	/* 10.0.0.0/8 */
	G("9.255.255.255"),
	L("10.0.0.0", "10.0.0.0/8 private-use"),
	L("10.255.255.255", "10.0.0.0/8 private-use"),
	G("11.0.0.0"),
	/* 100.64.0.0/10 */
	G("100.63.255.255"),
	L("100.64.0.0", "100.64.0.0/10 shared-address-space"),
	L("100.127.255.255", "100.64.0.0/10 shared-address-space"),
	G("100.128.0.0"),
	/* 127.0.0.0/8 */
	G("126.255.255.255"),
	L("127.0.0.0", "127.0.0.0/8 loopback"),
	L("127.0.0.1", "127.0.0.0/8 loopback"),
	L("127.255.255.255", "127.0.0.0/8 loopback"),
	G("128.0.0.0"),
	/* 169.254.0.0/16 */
	G("169.253.255.255"),
	L("169.254.0.0", "169.254.0.0/16 link-local"),
	L("169.254.169.254", "169.254.0.0/16 link-local"),
	L("169.254.255.255", "169.254.0.0/16 link-local"),
	G("169.255.0.0"),
	/* 172.16.0.0/12 */
	G("172.15.255.255"),
	L("172.16.0.0", "172.16.0.0/12 private-use"),
	L("172.31.255.255", "172.16.0.0/12 private-use"),
	G("172.32.0.0"),
	/* 192.0.0.0/24, its anycast /32s included */
	G("191.255.255.255"),
	L("192.0.0.0", "192.0.0.0/24 ietf-protocol-assignments"),
	L("192.0.0.9", "192.0.0.0/24 ietf-protocol-assignments"),
	L("192.0.0.10", "192.0.0.0/24 ietf-protocol-assignments"),
	L("192.0.0.255", "192.0.0.0/24 ietf-protocol-assignments"),
	G("192.0.1.0"),
	/* 192.0.2.0/24 */
	G("192.0.1.255"),
	L("192.0.2.0", "192.0.2.0/24 documentation"),
	L("192.0.2.255", "192.0.2.0/24 documentation"),
	G("192.0.3.0"),
	/* 192.88.99.0/24: deprecated 6to4 relays, not in the list */
	G("192.88.99.1"),
	/* 192.168.0.0/16 */
	G("192.167.255.255"),
	L("192.168.0.0", "192.168.0.0/16 private-use"),
	L("192.168.255.255", "192.168.0.0/16 private-use"),
	G("192.169.0.0"),
	/* 198.18.0.0/15 */
	G("198.17.255.255"),
	L("198.18.0.0", "198.18.0.0/15 benchmarking"),
	L("198.19.255.255", "198.18.0.0/15 benchmarking"),
	G("198.20.0.0"),
	/* 198.51.100.0/24 */
	G("198.51.99.255"),
	L("198.51.100.0", "198.51.100.0/24 documentation"),
	L("198.51.100.255", "198.51.100.0/24 documentation"),
	G("198.51.101.0"),
	/* 203.0.113.0/24 */
	G("203.0.112.255"),
	L("203.0.113.0", "203.0.113.0/24 documentation"),
	L("203.0.113.255", "203.0.113.0/24 documentation"),
	G("203.0.114.0"),
	/* 224.0.0.0/4, 240.0.0.0/4, 255.255.255.255 */
	G("223.255.255.255"),
	L("224.0.0.0", "224.0.0.0/4 multicast"),
	L("239.255.255.255", "224.0.0.0/4 multicast"),
	L("240.0.0.0", "240.0.0.0/4 reserved"),
	L("255.255.255.254", "240.0.0.0/4 reserved"),
	L("255.255.255.255", "255.255.255.255/32 limited-broadcast"),
	G("8.8.8.8"),

	/* ::, ::1 and the rest of ::/3 */
	L("::", "::/128 unspecified"),
	L("::1", "::1/128 loopback"),
	L("::2", "::/3 reserved-by-ietf"),
	L("::8.8.8.8", "::/3 reserved-by-ietf"),	/* IPv4-compatible */
	/* ::ffff:0:0/96, whatever it maps */
	L("::ffff:0.0.0.0", "::ffff:0:0/96 ipv4-mapped"),
	L("::ffff:127.0.0.1", "::ffff:0:0/96 ipv4-mapped"),
	L("::ffff:10.0.0.1", "::ffff:0:0/96 ipv4-mapped"),
	L("::ffff:8.8.8.8", "::ffff:0:0/96 ipv4-mapped"),
	L("::fffe:ffff:ffff", "::/3 reserved-by-ietf"),
	/* 64:ff9b::/96: the IPv4 address it embeds decides */
	G("64:ff9b::8.8.8.8"),
	L("64:ff9b::127.0.0.1", "64:ff9b::/96 nat64 of 127.0.0.0/8 loopback"),
	L("64:ff9b::10.0.0.1", "64:ff9b::/96 nat64 of 10.0.0.0/8 private-use"),
	L("64:ff9b::169.254.169.254",
	    "64:ff9b::/96 nat64 of 169.254.0.0/16 link-local"),
	L("64:ff9b::0.0.0.0", "64:ff9b::/96 nat64 of 0.0.0.0/8 this-network"),
	L("64:ff9b::255.255.255.255",
	    "64:ff9b::/96 nat64 of 255.255.255.255/32 limited-broadcast"),
	L("64:ff9b::1:0:0", "::/3 reserved-by-ietf"),	/* past the /96 */
	L("64:ff9b:1::", "64:ff9b:1::/48 nat64-local-use"),
	L("64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
	    "64:ff9b:1::/48 nat64-local-use"),
	/* 100::/64, 100:0:0:1::/64 */
	L("100::", "100::/64 discard-only"),
	L("100::ffff:ffff:ffff:ffff", "100::/64 discard-only"),
	L("100:0:0:1::", "100:0:0:1::/64 dummy-prefix"),
	L("100:0:0:2::", "::/3 reserved-by-ietf"),
	/* 2000::/3 starts */
	L("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::/3 reserved-by-ietf"),
	G("2000::"),
	G("2606:4700:4700::1111"),
	G("2002:808:808::1"),				/* 6to4 */
	/* 2001::/23, the special ones as IANA lists them */
	G("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	L("2001::", "2001::/23 ietf-protocol-assignments"),	/* TEREDO */
	L("2001:0:4136:e378:8000:63bf:3fff:fdd2",
	    "2001::/23 ietf-protocol-assignments"),
	L("2001:1::1", "2001::/23 ietf-protocol-assignments"),	/* PCP */
	L("2001:1::2", "2001::/23 ietf-protocol-assignments"),	/* TURN */
	L("2001:1::3", "2001::/23 ietf-protocol-assignments"),	/* SRP */
	L("2001:2::", "2001:2::/48 benchmarking"),
	L("2001:2:0:ffff:ffff:ffff:ffff:ffff", "2001:2::/48 benchmarking"),
	L("2001:2:1::", "2001::/23 ietf-protocol-assignments"),
	L("2001:2:ffff:ffff:ffff:ffff:ffff:ffff",
	    "2001::/23 ietf-protocol-assignments"),
	G("2001:3::"),					/* AMT */
	G("2001:3:ffff:ffff:ffff:ffff:ffff:ffff"),
	L("2001:4::", "2001::/23 ietf-protocol-assignments"),
	L("2001:4:111:ffff:ffff:ffff:ffff:ffff",
	    "2001::/23 ietf-protocol-assignments"),
	G("2001:4:112::"),				/* AS112 */
	G("2001:4:112:ffff:ffff:ffff:ffff:ffff"),
	L("2001:4:113::", "2001::/23 ietf-protocol-assignments"),
	L("2001:10::1", "2001::/23 ietf-protocol-assignments"),	/* ORCHID */
	L("2001:1f:ffff:ffff:ffff:ffff:ffff:ffff",
	    "2001::/23 ietf-protocol-assignments"),
	G("2001:20::"),					/* ORCHIDv2 */
	G("2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"),
	G("2001:30::"),					/* DETs */
	G("2001:3f:ffff:ffff:ffff:ffff:ffff:ffff"),
	L("2001:40::", "2001::/23 ietf-protocol-assignments"),
	L("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
	    "2001::/23 ietf-protocol-assignments"),
	G("2001:200::"),
	/* 2001:db8::/32 */
	G("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff"),
	L("2001:db8::", "2001:db8::/32 documentation"),
	L("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
	    "2001:db8::/32 documentation"),
	G("2001:db9::"),
	/* 3fff::/20 */
	G("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	L("3fff::", "3fff::/20 documentation"),
	L("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff::/20 documentation"),
	G("3fff:1000::"),
	G("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	/* 4000::/2, 5f00::/16, 8000::/1 */
	L("4000::", "4000::/2 reserved-by-ietf"),
	L("5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::/2 reserved-by-ietf"),
	L("5f00::1", "5f00::/16 srv6-sids"),
	L("5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "5f00::/16 srv6-sids"),
	L("7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::/2 reserved-by-ietf"),
	L("8000::", "8000::/1 reserved-by-ietf"),
	/* fc00::/7 */
	L("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "8000::/1 reserved-by-ietf"),
	L("fc00::", "fc00::/7 unique-local"),
	L("fd12:3456:789a::1", "fc00::/7 unique-local"),
	L("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::/7 unique-local"),
	L("fe00::", "8000::/1 reserved-by-ietf"),
	/* fe80::/10, fec0::/10 */
	L("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "8000::/1 reserved-by-ietf"),
	L("fe80::", "fe80::/10 link-local"),
	L("fe80::1", "fe80::/10 link-local"),
	L("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::/10 link-local"),
	L("fec0::1", "fec0::/10 site-local"),
	L("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::/10 site-local"),
	/* ff00::/8 */
	L("ff00::", "ff00::/8 multicast"),
	L("ff02::1", "ff00::/8 multicast"),
	L("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ff00::/8 multicast"),
};

/* run_class_case - one address: global or not, and the reason */
static void
run_class_case(void **state)
{
	const struct class_case *c = *state;
	unsigned char	 a[16];
	char		 why[ADDRCLASS_WHY_MAX];
	int		 af = strchr(c->addr, ':') != NULL ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(af, c->addr, a), 1);
	memset(why, 'x', sizeof(why));
	assert_int_equal(addrclass_global(af, a, why, sizeof(why)), c->global);
	assert_string_equal(why, c->global ? "" : c->why);
	/* no room for a reason: the answer alone */
	assert_int_equal(addrclass_global(af, a, NULL, 0), c->global);
}

struct parse_case {
	const char	*name;
	const char	*text;
	size_t		 len;		/* 0: strlen(text) */
	int		 ok;
	const char	*canon;		/* addrclass_format, or the reason */
};

static const struct parse_case parse_cases[] = {
	{ "parse: an IPv4 network", "10.0.0.0/8", 0, 1, "10.0.0.0/8" },
	{ "parse: one IPv4 host", "127.0.0.1/32", 0, 1, "127.0.0.1/32" },
	{ "parse: an address alone is /32", "192.0.2.7", 0, 1,
	    "192.0.2.7/32" },
	{ "parse: every IPv4 address", "0.0.0.0/0", 0, 1, "0.0.0.0/0" },
	{ "parse: an IPv6 network", "2001:DB8::/32", 0, 1, "2001:db8::/32" },
	{ "parse: an IPv6 address alone is /128", "::1", 0, 1, "::1/128" },
	{ "parse: every IPv6 address", "::/0", 0, 1, "::/0" },
	{ "parse: a /31", "10.0.0.2/31", 0, 1, "10.0.0.2/31" },
	{ "parse: an IPv6 /127", "fd00::2/127", 0, 1, "fd00::2/127" },
	{ "parse: empty", "", 0, 0, "not an address or network "
	    "(address/length)" },
	{ "parse: host bits set", "10.0.0.1/8", 0, 0, "host bits are set "
	    "(not a network address)" },
	{ "parse: IPv6 host bits set", "fd00::1/8", 0, 0, "host bits are set "
	    "(not a network address)" },
	{ "parse: the last host bit of a /31", "10.0.0.3/31", 0, 0, "host "
	    "bits are set (not a network address)" },
	{ "parse: /33", "10.0.0.0/33", 0, 0, "the prefix length is over 32" },
	{ "parse: /129", "::/129", 0, 0, "the prefix length is over 128" },
	{ "parse: no length after /", "10.0.0.0/", 0, 0, "the prefix length "
	    "is not a number" },
	{ "parse: a leading zero in the length", "10.0.0.0/08", 0, 0, "the "
	    "prefix length is not a number" },
	{ "parse: a sign", "10.0.0.0/+8", 0, 0, "the prefix length is not a "
	    "number" },
	{ "parse: a blank after the length", "10.0.0.0/8 ", 0, 0, "the prefix "
	    "length is not a number" },
	{ "parse: four digits", "10.0.0.0/1000", 0, 0, "the prefix length is "
	    "not a number" },
	{ "parse: a host name", "collector.example", 0, 0, "not an IPv4 or "
	    "IPv6 address" },
	{ "parse: three octets", "10.0.0/8", 0, 0, "not an IPv4 or IPv6 "
	    "address" },
	{ "parse: a leading zero in an octet", "010.0.0.0/8", 0, 0, "not an "
	    "IPv4 or IPv6 address" },
	{ "parse: a blank before", " 10.0.0.0/8", 0, 0, "not an IPv4 or IPv6 "
	    "address" },
	{ "parse: two slashes", "10.0.0.0/8/8", 0, 0, "the prefix length is "
	    "not a number" },
	{ "parse: a NUL inside", "10.0.0.0\0/8", 10, 0, "not an address or "
	    "network (address/length)" },
	{ "parse: only the length given counts", "10.0.0.0/8junk", 10, 1,
	    "10.0.0.0/8" },
	{ "parse: too long", "0000:0000:0000:0000:0000:0000:0000:0000:"
	    "0000:0000:0000/128", 0, 0, "not an address or network "
	    "(address/length)" },
};

/* run_parse_case - one network text: taken (and how it reads back) or
 * refused (and why) */
static void
run_parse_case(void **state)
{
	const struct parse_case *c = *state;
	struct addrclass_net n;
	char		 out[ADDRCLASS_NET_MAX];
	const char	*why = NULL;
	int		 rc;

	rc = addrclass_parse(c->text, c->len ? c->len : strlen(c->text), &n,
	    &why);
	assert_int_equal(rc, c->ok ? 0 : -1);
	if (c->ok)
		assert_string_equal(addrclass_format(&n, out, sizeof(out)),
		    c->canon);
	else
		assert_string_equal(why, c->canon);
}

struct match_case {
	const char	*name;
	const char	*net;
	const char	*addr;
	int		 match;
};

static const struct match_case match_cases[] = {
	{ "match: inside a /8", "10.0.0.0/8", "10.1.2.3", 1 },
	{ "match: the last of a /8", "10.0.0.0/8", "10.255.255.255", 1 },
	{ "match: past a /8", "10.0.0.0/8", "11.0.0.0", 0 },
	{ "match: a /9's edge", "10.128.0.0/9", "10.127.255.255", 0 },
	{ "match: a /9's first", "10.128.0.0/9", "10.128.0.0", 1 },
	{ "match: one host", "127.0.0.1/32", "127.0.0.1", 1 },
	{ "match: its neighbour", "127.0.0.1/32", "127.0.0.2", 0 },
	{ "match: /0 is every IPv4 address", "0.0.0.0/0", "203.0.113.9", 1 },
	{ "match: an IPv4 net is no IPv6 address", "0.0.0.0/0", "::1", 0 },
	{ "match: an IPv6 net is no IPv4 address", "::/0", "127.0.0.1", 0 },
	{ "match: an IPv4 net is not its mapped form", "127.0.0.1/32",
	    "::ffff:127.0.0.1", 0 },
	{ "match: inside an IPv6 /8", "fd00::/8", "fd12::1", 1 },
	{ "match: past an IPv6 /8", "fd00::/8", "fe00::", 0 },
	{ "match: an IPv6 /127", "fd00::2/127", "fd00::3", 1 },
	{ "match: past an IPv6 /127", "fd00::2/127", "fd00::4", 0 },
	{ "match: an IPv6 host", "::1", "::1", 1 },
};

/* run_match_case - is the address in the network? */
static void
run_match_case(void **state)
{
	const struct match_case *c = *state;
	struct addrclass_net n;
	unsigned char	 a[16];
	const char	*why;
	int		 af = strchr(c->addr, ':') != NULL ? AF_INET6 : AF_INET;

	assert_int_equal(addrclass_parse(c->net, strlen(c->net), &n, &why), 0);
	assert_int_equal(inet_pton(af, c->addr, a), 1);
	assert_int_equal(addrclass_match(&n, af, a), c->match);
}

/* addrclass_permit_list - the allow list first, then the ranges */
static void
addrclass_permit_list(void **state)
{
	struct addrclass_net allow[2];
	unsigned char	 a[16];
	char		 why[ADDRCLASS_WHY_MAX];
	const char	*err;

	(void)state;
	assert_int_equal(addrclass_parse("127.0.0.1/32", 12, &allow[0], &err),
	    0);
	assert_int_equal(addrclass_parse("fd00::/8", 8, &allow[1], &err), 0);
	inet_pton(AF_INET, "127.0.0.1", a);
	assert_int_equal(addrclass_permit(allow, 2, AF_INET, a, why,
	    sizeof(why)), 1);
	assert_string_equal(why, "");
	assert_int_equal(addrclass_permit(NULL, 0, AF_INET, a, why,
	    sizeof(why)), 0);
	assert_string_equal(why, "127.0.0.0/8 loopback");
	inet_pton(AF_INET, "127.0.0.2", a);
	assert_int_equal(addrclass_permit(allow, 2, AF_INET, a, why,
	    sizeof(why)), 0);
	assert_string_equal(why, "127.0.0.0/8 loopback");
	inet_pton(AF_INET, "192.0.2.1", a);
	assert_int_equal(addrclass_permit(allow, 2, AF_INET, a, why,
	    sizeof(why)), 0);
	inet_pton(AF_INET6, "fd99::1", a);
	assert_int_equal(addrclass_permit(allow, 2, AF_INET6, a, why,
	    sizeof(why)), 1);
	inet_pton(AF_INET6, "fe80::1", a);
	assert_int_equal(addrclass_permit(allow, 2, AF_INET6, a, why,
	    sizeof(why)), 0);
	assert_string_equal(why, "fe80::/10 link-local");
	inet_pton(AF_INET, "8.8.8.8", a);
	assert_int_equal(addrclass_permit(NULL, 0, AF_INET, a, why,
	    sizeof(why)), 1);
	/* a short buffer: cut, still terminated */
	inet_pton(AF_INET, "10.1.1.1", a);
	assert_int_equal(addrclass_permit(NULL, 0, AF_INET, a, why, 8), 0);
	assert_string_equal(why, "10.0.0.");
}

/* addrclass_other_family - neither IPv4 nor IPv6: not global */
static void
addrclass_other_family(void **state)
{
	unsigned char	 a[16] = { 8, 8, 8, 8 };
	char		 why[ADDRCLASS_WHY_MAX];
	struct addrclass_net n;
	const char	*err;

	(void)state;
	assert_int_equal(addrclass_global(AF_UNIX, a, why, sizeof(why)), 0);
	assert_string_equal(why, "unknown address family");
	assert_int_equal(addrclass_parse("0.0.0.0/0", 9, &n, &err), 0);
	assert_int_equal(addrclass_match(&n, AF_UNIX, a), 0);
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(addrclass_permit_list),
	cmocka_unit_test(addrclass_other_family),
};

int
main(void)
{
	static char	 names[nitems(class_cases)][80];
	struct CMUnitTest tests[nitems(class_cases) + nitems(parse_cases) +
	    nitems(match_cases) + nitems(fixed_tests)];
	size_t		 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(class_cases); i++, n++) {
		snprintf(names[i], sizeof(names[i]), "%s %s",
		    class_cases[i].addr, class_cases[i].global ? "global" :
		    "not global");
		tests[n].name = names[i];
		tests[n].test_func = run_class_case;
		tests[n].initial_state = (void *)&class_cases[i];
	}
	for (i = 0; i < nitems(parse_cases); i++, n++) {
		tests[n].name = parse_cases[i].name;
		tests[n].test_func = run_parse_case;
		tests[n].initial_state = (void *)&parse_cases[i];
	}
	for (i = 0; i < nitems(match_cases); i++, n++) {
		tests[n].name = match_cases[i].name;
		tests[n].test_func = run_match_case;
		tests[n].initial_state = (void *)&match_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("addrclass", tests, NULL, NULL));
}
