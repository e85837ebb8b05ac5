/*
 * dns_names.c - the names of dns.h's enums and DNS RCODEs, for logs, JSON
 * and counters
 *
 * Interface (dns.h): dns_security_name(), dns_status_name(),
 * dns_rcode_name(), and dns_name_eq() (what a name compares equal to).
 * Pure, no I/O.  They live apart from dns.c so that a test which links
 * tests/fake/fake_dns.c instead of dns.c (link-time substitution of the
 * I/O: the linker must never need dns.o) still logs the real names and
 * matches names as the DANE walk does: a fake that restates them would
 * drift from them.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/dns.h"

const char *
dns_security_name(enum dns_security sec)
{
	switch (sec) {
	case DNS_SECURE:
		return ("secure");
	case DNS_BOGUS:
		return ("bogus");
	case DNS_INSECURE:
		break;
	}
	return ("insecure");
}

const char *
dns_status_name(enum dns_status st)
{
	switch (st) {
	case DNS_OK:
		return ("ok");
	case DNS_ERR_TIMEOUT:
		return ("timeout");
	case DNS_ERR_RESOLVER:
		break;
	}
	return ("resolver-error");
}

const char *
dns_rcode_name(int rcode, char *buf, size_t bufsz)
{
	static const char *const names[] = {
		"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP",
		"REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH",
		"NOTZONE",
	};

	if (rcode >= 0 && (size_t)rcode < sizeof(names) / sizeof(names[0]))
		return (names[rcode]);
	snprintf(buf, bufsz, "RCODE%d", rcode);
	return (buf);
}

int
dns_name_eq(const char *a, const char *b)
{
	size_t	 la = strlen(a), lb = strlen(b);

	if (la > 0 && a[la - 1] == '.')
		la--;
	if (lb > 0 && b[lb - 1] == '.')
		lb--;
	return (la == lb && strncasecmp(a, b, la) == 0);
}
