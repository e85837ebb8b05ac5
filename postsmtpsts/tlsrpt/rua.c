/*
 * rua.c - the TLSRPT policy record (RFC 8460 §3) and its report URIs
 *
 * Interface, grammar and limits: rua.h.  The record is read field by
 * field (';'-separated); the rua field's URIs are split at ',' (§3: a
 * comma or semicolon inside a URI must be %-encoded, so neither ends one
 * early) and each is checked on its own: one bad URI does not cost the
 * others.  Pure: no allocation, no I/O.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/domain.h"
#include "tlsrpt/rua.h"

#define RUA_VERSION	"v=TLSRPTv1"

/* rua_wsp - RFC 5234 WSP */
static int
rua_wsp(char c)
{
	return (c == ' ' || c == '\t');
}

/* rua_alnum - RFC 5234 ALPHA / DIGIT */
static int
rua_alnum(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'));
}

/* rua_hex - the value of a hex digit, or -1 */
static int
rua_hex(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* rua_refuse - note why a URI was not used (the first reason is kept) */
static void
rua_refuse(struct rua_list *out, const char *why)
{
	out->refused++;
	if (out->why[0] == '\0')
		snprintf(out->why, sizeof(out->why), "%s", why);
}

/* rua_atext - RFC 5322 atext */
static int
rua_atext(char c)
{
	return (rua_alnum(c) || (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~",
	    c) != NULL));
}

/*
 * rua_mailto - "mailto:" is consumed; u[0..len) is the rest.  One
 * address, %XX decoded, LOCAL a dot-atom, DOMAIN a host name.
 */
static const char *
rua_mailto(const char *u, size_t len, struct rua_dest *d)
{
	char	 addr[RUA_MAILBOX_LEN + 1];
	size_t	 i, n = 0, at = 0, nat = 0;
	int	 h1, h2;
	char	 c;

	/* hfields (RFC 6068 §2) are not used: the report sets its own */
	for (i = 0; i < len && u[i] != '?'; i++) {
		c = u[i];
		if (c == '%') {
			if (i + 2 >= len || (h1 = rua_hex(u[i + 1])) < 0 ||
			    (h2 = rua_hex(u[i + 2])) < 0)
				return ("bad %-escape");
			c = (char)(h1 * 16 + h2);
			i += 2;
		}
		if (n >= sizeof(addr) - 1)
			return ("address too long");
		if (c == ',')
			return ("more than one address in a mailto URI");
		if (c == '@') {
			at = n;
			nat++;
		} else if (!rua_atext(c) && c != '.')
			return ("a byte no address may hold (quote, blank, "
			    "control, bracket)");
		addr[n++] = c;
	}
	if (nat != 1)
		return ("not one local@domain address");
	if (at == 0 || at > RUA_LOCAL_MAX)
		return ("local part empty or longer than 64 bytes");
	if (addr[0] == '.' || addr[at - 1] == '.')
		return ("local part starts or ends with a dot");
	for (i = 1; i < at; i++)
		if (addr[i] == '.' && addr[i - 1] == '.')
			return ("local part has two dots in a row");
	if (n - at - 1 > 0 && addr[at + 1] == '[')
		return ("address literal domain");
	if (domain_check(addr + at + 1, n - at - 1, 0, 2, NULL) !=
	    DOMAIN_CHECK_OK)
		return ("domain is not a host name");
	memcpy(d->mailbox, addr, n);
	d->mailbox[n] = '\0';
	/* the domain in lower case: it is a DNS name */
	for (i = at + 1; i < n; i++)
		d->mailbox[i] = (char)domain_lower((unsigned char)addr[i]);
	d->scheme = RUA_MAILTO;
	return (NULL);
}

/* rua_pchar - RFC 3986 pchar and '/' '?' (path and query), without
 * the ',' and ';' that end a tlsrpt-uri; '%' is checked by the caller */
static int
rua_pchar(char c)
{
	return (rua_alnum(c) || (c != '\0' && strchr("-._~!$&'()*+=:@/?%",
	    c) != NULL));
}

/* rua_https - "https://" is consumed; u[0..len) is the rest */
static const char *
rua_https(const char *u, size_t len, struct rua_dest *d)
{
	size_t	 h, i;
	long	 port = 443;

	for (h = 0; h < len && u[h] != '/' && u[h] != ':' && u[h] != '?';
	    h++) {
		if (u[h] == '@')
			return ("user information in an https URI");
		if (u[h] == '[')
			return ("IP literal host");
		if (u[h] == '#')
			return ("fragment in an https URI");
	}
	if (domain_check(u, h, 0, 2, d->host) != DOMAIN_CHECK_OK)
		return ("host is not a host name (IP literal, bad syntax)");
	i = h;
	if (i < len && u[i] == ':') {
		port = 0;
		for (i++; i < len && u[i] >= '0' && u[i] <= '9'; i++) {
			port = port * 10 + (u[i] - '0');
			if (port > 65535)
				return ("port out of range");
		}
		if (port == 0)
			return ("port missing or 0");
	}
	if (i < len && u[i] != '/' && u[i] != '?')
		return ("bad authority");
	for (h = i; h < len; h++) {
		if (u[h] == '#')
			return ("fragment in an https URI");
		if (!rua_pchar(u[h]))
			return ("a byte no URI path may hold");
		if (u[h] == '%' && (h + 2 >= len || rua_hex(u[h + 1]) < 0 ||
		    rua_hex(u[h + 2]) < 0))
			return ("bad %-escape");
	}
	d->path[0] = '/';
	d->path[1] = '\0';
	if (i < len) {
		if (u[i] == '?') {
			/* "https://host?q": the path is "/" */
			memcpy(d->path + 1, u + i, len - i);
			d->path[len - i + 1] = '\0';
		} else {
			memcpy(d->path, u + i, len - i);
			d->path[len - i] = '\0';
		}
	}
	d->port = (unsigned int)port;
	d->scheme = RUA_HTTPS;
	return (NULL);
}

/* rua_uri - check one URI u[0..len) and keep it if usable */
static void
rua_uri(const char *u, size_t len, struct rua_list *out)
{
	struct rua_dest	 d;
	const char	*why;
	size_t		 i;

	memset(&d, 0, sizeof(d));
	if (len == 0) {
		rua_refuse(out, "empty URI");
		return;
	}
	if (len > RUA_MAX_URI) {
		rua_refuse(out, "URI too long");
		return;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)u[i] <= 0x20 || (unsigned char)u[i] >= 0x7f) {
			rua_refuse(out, "a control, blank or non-ASCII byte");
			return;
		}
	/* schemes are case-insensitive (RFC 3986 §3.1) */
	if (len > 7 && strncasecmp(u, "mailto:", 7) == 0)
		why = rua_mailto(u + 7, len - 7, &d);
	else if (len > 8 && strncasecmp(u, "https://", 8) == 0)
		why = rua_https(u + 8, len - 8, &d);
	else
		why = "not a mailto: or https: URI";
	if (why != NULL) {
		rua_refuse(out, why);
		return;
	}
	if (out->n == RUA_MAX_DESTS) {
		rua_refuse(out, "too many URIs");
		return;
	}
	memcpy(d.uri, u, len);
	d.uri[len] = '\0';
	out->dest[out->n++] = d;
}

/* rua_list - the URIs of a rua field's value v[0..len) */
static void
rua_list(const char *v, size_t len, struct rua_list *out)
{
	size_t	 i = 0, s, e;

	while (i <= len) {
		while (i < len && rua_wsp(v[i]))
			i++;
		for (s = i; i < len && v[i] != ','; i++)
			;
		for (e = i; e > s && rua_wsp(v[e - 1]); e--)
			;
		rua_uri(v + s, e - s, out);
		i++;	/* past the comma (or the end) */
	}
}

/* rua_ext_name - RFC 8460 §3 tlsrpt-ext-name */
static int
rua_ext_name(const char *p, size_t len)
{
	size_t	 i;

	if (len == 0 || len > 32 || !rua_alnum(p[0]))
		return (0);
	for (i = 1; i < len; i++)
		if (!rua_alnum(p[i]) && p[i] != '_' && p[i] != '-' &&
		    p[i] != '.')
			return (0);
	return (1);
}

/* rua_ext_value - RFC 8460 §3 tlsrpt-ext-value */
static int
rua_ext_value(const char *p, size_t len)
{
	size_t	 i;
	unsigned char c;

	if (len == 0)
		return (0);
	for (i = 0; i < len; i++) {
		c = (unsigned char)p[i];
		if (c < 0x21 || c > 0x7e || c == '=' || c == ';')
			return (0);
	}
	return (1);
}

/* rua_invalid - a record that is not RFC 8460 §3 */
static enum rua_status
rua_invalid(struct rua_list *out, const char *why)
{
	out->n = 0;
	snprintf(out->why, sizeof(out->why), "%s", why);
	return (RUA_INVALID);
}

enum rua_status
rua_parse(const char *p, size_t len, struct rua_list *out)
{
	size_t	 i, s, e, eq, nrua = 0, nfields = 0;

	memset(out, 0, sizeof(*out));
	if (len > RUA_MAX_RECORD)
		return (rua_invalid(out, "record too long"));
	if (len < sizeof(RUA_VERSION) - 1 ||
	    memcmp(p, RUA_VERSION, sizeof(RUA_VERSION) - 1) != 0)
		return (rua_invalid(out, "does not begin with v=TLSRPTv1"));
	i = sizeof(RUA_VERSION) - 1;
	for (;;) {
		/* field-delim = *WSP ";" *WSP */
		while (i < len && rua_wsp(p[i]))
			i++;
		if (i == len)
			break;
		if (p[i] != ';')
			return (rua_invalid(out, "a field not separated by "
			    "';'"));
		i++;
		while (i < len && rua_wsp(p[i]))
			i++;
		if (i == len)
			break;		/* [field-delim] at the end */
		for (s = i; i < len && p[i] != ';'; i++)
			;
		for (e = i; e > s && rua_wsp(p[e - 1]); e--)
			;
		for (eq = s; eq < e && p[eq] != '='; eq++)
			;
		if (eq == e)
			return (rua_invalid(out, "a field without '='"));
		nfields++;
		if (eq - s == 3 && memcmp(p + s, "rua", 3) == 0) {
			if (++nrua > 1)
				return (rua_invalid(out, "more than one rua "
				    "field"));
			rua_list(p + eq + 1, e - eq - 1, out);
		} else if (!rua_ext_name(p + s, eq - s) ||
		    !rua_ext_value(p + eq + 1, e - eq - 1))
			return (rua_invalid(out, "malformed extension field"));
		/* unknown extensions are ignored (§3) */
	}
	if (nfields == 0 || nrua == 0)
		return (rua_invalid(out, "no rua field"));
	return (out->n > 0 ? RUA_OK : RUA_NO_USABLE);
}

int
rua_select(const char *const *txt, const size_t *lens, size_t n,
    size_t *index)
{
	size_t	 i, v = sizeof(RUA_VERSION) - 1, found = 0;
	char	 c;

	for (i = 0; i < n; i++) {
		if (lens[i] < v || memcmp(txt[i], RUA_VERSION, v) != 0)
			continue;
		c = lens[i] > v ? txt[i][v] : ';';
		if (c != ';' && !rua_wsp(c))
			continue;	/* "v=TLSRPTv10": another version */
		if (found++ == 0)
			*index = i;
	}
	if (found == 0)
		return (-1);
	return (found == 1 ? 0 : -2);
}

const char *
rua_status_name(enum rua_status st)
{
	switch (st) {
	case RUA_OK:
		return ("ok");
	case RUA_NO_USABLE:
		return ("no-usable-uri");
	case RUA_INVALID:
		return ("invalid");
	}
	return ("?");
}
