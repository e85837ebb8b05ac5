/*
 * domain.c - normalization of socketmap keys into lookup domains
 *
 * Input: one smtp_tls_policy_maps key as Postfix's smtp(8) sends it (see
 * tls_policy_lookup() in smtp_tls_policy.c): the next-hop domain, the
 * same with ":port", "[host]" or "[host]:port" for explicit next hops, and
 * ".parent" keys while Postfix walks up the domain tree.  Output: the plain
 * domain name that MTA-STS (RFC 8461) and DANE (RFC 7672) policies are
 * looked up for, or why the key is not one.
 *
 *	RFC 1034 §3.1	one trailing dot marks an absolute name
 *	RFC 1035 §2.3.4	labels of 1..63 octets, names of 255 octets, i.e.
 *			253 characters in presentation form
 *	RFC 1123 §2.1	letters, digits, hyphen; a label may start with a
 *			digit but not start or end with a hyphen
 *	RFC 8552 §1.1	underscore labels (_mta-sts, _dmarc) exist
 *	RFC 5891 §5	U-labels become A-labels before lookup (libidn2,
 *			UTS #46 nontransitional: "ß" stays "ß")
 *	RFC 8461 §3.4	a parent domain's policy never applies, so
 *			".parent" keys are not plain
 *	RFC 6335 §5.1	service names are 1..15 characters
 *
 * Pure: no logging, no global state; nothing longer than DOMAIN_MAX_KEY is
 * examined or given to libidn2.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <string.h>

#include <idn2.h>

#include "lib/domain.h"

#define DOMAIN_MAX_PORT		65535
#define DOMAIN_MAX_PORT_DIGITS	5
#define DOMAIN_MAX_SERVICE	15		/* RFC 6335 §5.1 */
#define DOMAIN_IPV6_TAG		"ipv6:"		/* Postfix's [ipv6:addr] */
#define DOMAIN_IPV6_TAG_LEN	(sizeof(DOMAIN_IPV6_TAG) - 1)

/* domain_is_digit - ASCII decimal digit, locale-independent */
static int
domain_is_digit(char c)
{
	return (c >= '0' && c <= '9');
}

/* domain_is_alpha - ASCII letter, locale-independent */
static int
domain_is_alpha(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

enum domain_check
domain_check(const char *p, size_t len, unsigned int flags, int minlabels,
    char *out)
{
	size_t	 i, label = 0, start = 0;
	int	 nlabels = 0, all_digits = 1;
	char	 c;

	/* RFC 1034 §3.1: "example.com." is the same name; strip one dot. */
	if ((flags & DOMAIN_NAME_DOT) && len > 1 && p[len - 1] == '.')
		len--;
	if (len == 0)
		return (DOMAIN_CHECK_EMPTY);
	/* RFC 1035 §2.3.4: 255 octets on the wire, 253 in text. */
	if (len > DOMAIN_MAX_LEN)
		return (DOMAIN_CHECK_LONG);
	for (i = 0; i <= len; i++) {
		if (i == len || p[i] == '.') {
			/* RFC 1035 §2.3.1: empty labels only for the root. */
			if (label == 0)
				return (DOMAIN_CHECK_EMPTY_LABEL);
			/* RFC 1123 §2.1: no hyphen at either end of a label. */
			if (p[start] == '-' || p[i - 1] == '-')
				return (DOMAIN_CHECK_HYPHEN);
			nlabels++;
			if (i < len) {
				if (out != NULL)
					out[i] = '.';
				label = 0;
				start = i + 1;
				all_digits = 1;
			}
			continue;
		}
		c = (char)domain_lower((unsigned char)p[i]);
		/* RFC 1123 §2.1 LDH, plus '_' (RFC 8552) where allowed. */
		if (!(domain_is_alpha(c) || domain_is_digit(c) || c == '-' ||
		    (c == '_' && (flags & DOMAIN_NAME_UNDERSCORE))))
			return (DOMAIN_CHECK_CHAR);
		if (!domain_is_digit(c))
			all_digits = 0;
		/* RFC 1035 §2.3.4: 63 octets or less. */
		if (++label > DOMAIN_MAX_LABEL)
			return (DOMAIN_CHECK_LONG_LABEL);
		if (out != NULL)
			out[i] = c;
	}
	if (out != NULL)
		out[len] = '\0';
	/* No TLD is all digits (RFC 3696 §2): such a name is an address. */
	if (all_digits)
		return (DOMAIN_CHECK_NUMERIC);
	if (nlabels < minlabels)
		return (DOMAIN_CHECK_FEW_LABELS);
	return (DOMAIN_CHECK_OK);
}

const char *
domain_check_why(enum domain_check c)
{
	switch (c) {
	case DOMAIN_CHECK_OK:
		return ("is a host name");
	case DOMAIN_CHECK_EMPTY:
		return ("is empty");
	case DOMAIN_CHECK_LONG:
		return ("is longer than 253 characters");
	case DOMAIN_CHECK_EMPTY_LABEL:
		return ("has an empty label");
	case DOMAIN_CHECK_LONG_LABEL:
		return ("has a label longer than 63 characters");
	case DOMAIN_CHECK_HYPHEN:
		return ("has a label that starts or ends with '-'");
	case DOMAIN_CHECK_CHAR:
		return ("contains a character other than letters, digits, "
		    "'-', '_' and '.'");
	case DOMAIN_CHECK_NUMERIC:
		return ("is numeric (an address, not a name)");
	case DOMAIN_CHECK_FEW_LABELS:
		return ("has too few labels");
	}
	return ("is not a host name");
}

/*
 * domain_ascii - validate an ASCII name, lower-case it into out
 *
 * out must hold DOMAIN_BUFSZ bytes; it is meaningful only on DOMAIN_OK.
 * A single label or an all-digit name (an IPv4 address) is a valid name
 * with no policy of its own: DOMAIN_NOT_PLAIN.
 */
static enum domain_status
domain_ascii(const char *p, size_t len, char *out)
{
	/* "." alone is no name: strip the dot here, not in domain_check */
	if (len > 0 && p[len - 1] == '.')
		len--;
	switch (domain_check(p, len, DOMAIN_NAME_UNDERSCORE, 2, out)) {
	case DOMAIN_CHECK_OK:
		return (DOMAIN_OK);
	case DOMAIN_CHECK_NUMERIC:
	case DOMAIN_CHECK_FEW_LABELS:
		return (DOMAIN_NOT_PLAIN);
	default:
		return (DOMAIN_INVALID);
	}
}

/*
 * domain_name - validate a host name (A- or U-labels) into out
 *
 * len <= DOMAIN_MAX_KEY.  U-labels go through libidn2 (RFC 5891 §5.3-5.5,
 * UTS #46 nontransitional mapping, which also folds case and maps
 * ideographic full stops to '.'); its output is checked like any ASCII
 * name, so libidn2 never decides alone what we accept.
 */
static enum domain_status
domain_name(const char *p, size_t len, char *out)
{
	char	 in[DOMAIN_MAX_KEY + 1];
	uint8_t	*alabel = NULL;
	enum domain_status st;
	size_t	 i;
	int	 nonascii = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x80)
			nonascii = 1;
		else if (!(domain_host_char(c) || c == '.'))
			return (DOMAIN_INVALID);	/* also NUL */
	}
	if (!nonascii)
		return (domain_ascii(p, len, out));
	if (len > DOMAIN_MAX_KEY)
		return (DOMAIN_INVALID);
	memcpy(in, p, len);
	in[len] = '\0';
	if (idn2_lookup_u8((const uint8_t *)in, &alabel,
	    IDN2_NONTRANSITIONAL) != IDN2_OK)
		return (DOMAIN_INVALID);
	st = domain_ascii((const char *)alabel, strlen((char *)alabel), out);
	idn2_free(alabel);
	return (st);
}

/*
 * domain_port_ok - is p[0..len) a port: 1..65535 or a service name?
 */
static int
domain_port_ok(const char *p, size_t len)
{
	size_t	 i, value = 0;
	int	 digits = 1;

	if (len == 0 || len > DOMAIN_MAX_SERVICE)
		return (0);
	for (i = 0; i < len; i++) {
		if (domain_is_digit(p[i]))
			continue;
		digits = 0;
		/* RFC 6335 §5.1 letters, digits, hyphens; '_' is legacy. */
		if (!domain_is_alpha(p[i]) && p[i] != '-' && p[i] != '_')
			return (0);
	}
	if (!digits)
		return (1);
	if (len > DOMAIN_MAX_PORT_DIGITS)
		return (0);
	for (i = 0; i < len; i++)
		value = value * 10 + (size_t)(p[i] - '0');
	return (value >= 1 && value <= DOMAIN_MAX_PORT);
}

/* domain_ipv6_ok - is p[0..len) an IPv6 address in text form? */
static int
domain_ipv6_ok(const char *p, size_t len)
{
	char	 text[INET6_ADDRSTRLEN];
	struct in6_addr addr;

	/* inet_pton() wants a C string: refuse what a NUL would cut short. */
	if (len >= sizeof(text) || memchr(p, '\0', len) != NULL)
		return (0);
	memcpy(text, p, len);
	text[len] = '\0';
	return (inet_pton(AF_INET6, text, &addr) == 1);
}

/* domain_has_ipv6_tag - does p[0..len) start with "ipv6:", any case? */
static int
domain_has_ipv6_tag(const char *p, size_t len)
{
	size_t	 i;

	if (len < DOMAIN_IPV6_TAG_LEN)
		return (0);
	for (i = 0; i < DOMAIN_IPV6_TAG_LEN; i++)
		if (domain_lower((unsigned char)p[i]) !=
		    (unsigned char)DOMAIN_IPV6_TAG[i])
			return (0);
	return (1);
}

/*
 * domain_bracketed - classify "[inner]" or "[inner]:port"
 *
 * Postfix brackets a next hop to suppress MX lookups: the key names one
 * host, not a policy domain, so a well-formed one is DOMAIN_NOT_PLAIN.
 */
static enum domain_status
domain_bracketed(const char *key, size_t len)
{
	char	 scratch[DOMAIN_BUFSZ];
	const char *inner, *close, *tail;
	size_t	 ilen, tlen;

	inner = key + 1;
	if ((close = memchr(inner, ']', len - 1)) == NULL)
		return (DOMAIN_INVALID);
	ilen = (size_t)(close - inner);
	tail = close + 1;
	tlen = len - (size_t)(tail - key);
	if (ilen == 0)
		return (DOMAIN_INVALID);
	if (tlen > 0 && (tail[0] != ':' || !domain_port_ok(tail + 1, tlen - 1)))
		return (DOMAIN_INVALID);
	if (domain_has_ipv6_tag(inner, ilen))
		return (domain_ipv6_ok(inner + DOMAIN_IPV6_TAG_LEN,
		    ilen - DOMAIN_IPV6_TAG_LEN) ? DOMAIN_NOT_PLAIN :
		    DOMAIN_INVALID);
	if (memchr(inner, ':', ilen) != NULL)
		return (domain_ipv6_ok(inner, ilen) ? DOMAIN_NOT_PLAIN :
		    DOMAIN_INVALID);
	/* A host name or an IPv4 address (which passes as a name). */
	if (domain_name(inner, ilen, scratch) == DOMAIN_INVALID)
		return (DOMAIN_INVALID);
	return (DOMAIN_NOT_PLAIN);
}

/*
 * domain_classify - everything but a plain name: brackets, ports, IPv6,
 * parent keys.  Returns DOMAIN_OK when key is none of these, meaning
 * "a plain name candidate".
 */
static enum domain_status
domain_classify(const char *key, size_t len)
{
	char	 scratch[DOMAIN_BUFSZ];
	const char *colon;
	size_t	 hlen;

	if (key[0] == '[')
		return (domain_bracketed(key, len));
	if ((colon = memchr(key, ':', len)) != NULL) {
		hlen = (size_t)(colon - key);
		/* Two colons: an IPv6 address, which has no port here. */
		if (memchr(colon + 1, ':', len - hlen - 1) != NULL)
			return (domain_ipv6_ok(key, len) ? DOMAIN_NOT_PLAIN :
			    DOMAIN_INVALID);
		if (!domain_port_ok(colon + 1, len - hlen - 1) ||
		    domain_name(key, hlen, scratch) == DOMAIN_INVALID)
			return (DOMAIN_INVALID);
		return (DOMAIN_NOT_PLAIN);
	}
	if (key[0] == '.') {
		/* One leading dot; "." and "..x" are malformed. */
		if (len == 1 || key[1] == '.' ||
		    domain_name(key + 1, len - 1, scratch) == DOMAIN_INVALID)
			return (DOMAIN_INVALID);
		return (DOMAIN_NOT_PLAIN);
	}
	return (DOMAIN_OK);
}

enum domain_status
domain_normalize(const char *key, size_t len, char *out)
{
	enum domain_status st;

	out[0] = '\0';
	if (len == 0 || len > DOMAIN_MAX_KEY)
		return (DOMAIN_INVALID);
	if ((st = domain_classify(key, len)) != DOMAIN_OK)
		return (st);
	if ((st = domain_name(key, len, out)) != DOMAIN_OK)
		out[0] = '\0';
	return (st);
}

const char *
domain_status_name(enum domain_status st)
{
	switch (st) {
	case DOMAIN_OK:
		return ("ok");
	case DOMAIN_NOT_PLAIN:
		return ("not-plain");
	case DOMAIN_INVALID:
		return ("invalid");
	}
	return ("unknown");
}
