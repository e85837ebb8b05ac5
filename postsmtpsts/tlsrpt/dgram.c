/*
 * dgram.c - one datagram of Postfix's TLSRPT client library (libtlsrpt)
 *
 * The format, its versions and what is checked: dgram.h.  json-c builds
 * the tree (strict, UTF-8, depth DGRAM_DEPTH); every value is then read
 * through one of the dg_* getters below, which say what was wrong.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/dgram.h"

static const char *const dgram_status_names[] = {
	"ok", "version", "json", "form", "domain", "code", "limit",
};

const char *
dgram_status_name(int s)
{
	if (s < 0 || s > DGRAM_STATUS_MAX)
		return ("?");
	return (dgram_status_names[s]);
}

struct dgram *
dgram_new(void)
{
	struct dgram	*d = xcalloc(1, sizeof(*d));
	size_t		 i;

	for (i = 0; i < DGRAM_MAX_POLICIES; i++) {
		buf_init(&d->policies[i].strings, AGG_MAX_TEXT);
		buf_init(&d->policies[i].mx, AGG_MAX_TEXT);
	}
	return (d);
}

void
dgram_free(struct dgram *d)
{
	size_t	 i;

	if (d == NULL)
		return;
	for (i = 0; i < DGRAM_MAX_POLICIES; i++) {
		buf_free(&d->policies[i].strings);
		buf_free(&d->policies[i].mx);
	}
	free(d);
}

/* A parse in progress: the first failure wins. */
struct dg {
	enum dgram_status st;
	char		*why;
	size_t		 whysz;
};

/* dg_fail - record the first failure; always -1 */
static int __attribute__((format(printf, 3, 4)))
dg_fail(struct dg *g, enum dgram_status st, const char *fmt, ...)
{
	va_list	 ap;

	if (g->st != DGRAM_OK)
		return (-1);
	g->st = st;
	va_start(ap, fmt);
	vsnprintf(g->why, g->whysz, fmt, ap);
	va_end(ap);
	return (-1);
}

/* dg_get - member key of object o, of type t; NULL if absent (an error
 * unless optional) or of another type (always an error) */
static struct json_object *
dg_get(struct dg *g, struct json_object *o, const char *key,
    enum json_type t, int optional)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL) {
		if (!optional)
			dg_fail(g, DGRAM_FORM, "no \"%s\"", key);
		return (NULL);
	}
	if (!json_object_is_type(v, t)) {
		dg_fail(g, DGRAM_FORM, "\"%s\" is not %s", key,
		    json_type_to_name(t));
		return (NULL);
	}
	return (v);
}

/* dg_printable - s[0..len) holds printable ASCII only */
static int
dg_printable(const char *s, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return (0);
	return (1);
}

/* dg_lines - an optional array of strings key of o into b, '\n' after
 * each: printable ASCII, DGRAM_MAX_LINES of at most DGRAM_MAX_LINE */
static int
dg_lines(struct dg *g, struct json_object *o, const char *key,
    struct buf *b)
{
	struct json_object *a, *e;
	const char	*s;
	size_t		 i, n, len;

	buf_reset(b);
	if ((a = dg_get(g, o, key, json_type_array, 1)) == NULL)
		return (g->st == DGRAM_OK ? 0 : -1);
	if ((n = json_object_array_length(a)) > DGRAM_MAX_LINES)
		return (dg_fail(g, DGRAM_LIMIT, "\"%s\": more than %d entries",
		    key, DGRAM_MAX_LINES));
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (e == NULL || !json_object_is_type(e, json_type_string))
			return (dg_fail(g, DGRAM_FORM, "\"%s\"[%zu] is not a "
			    "string", key, i));
		s = json_object_get_string(e);
		len = (size_t)json_object_get_string_len(e);
		if (len > DGRAM_MAX_LINE)
			return (dg_fail(g, DGRAM_LIMIT, "\"%s\"[%zu]: more "
			    "than %d bytes", key, i, DGRAM_MAX_LINE));
		if (!dg_printable(s, len))
			return (dg_fail(g, DGRAM_FORM, "\"%s\"[%zu] is not "
			    "printable ASCII", key, i));
		buf_append(b, s, len);
		buf_append_char(b, '\n');
	}
	if (b->error)
		return (dg_fail(g, DGRAM_LIMIT, "\"%s\": more than %d bytes",
		    key, AGG_MAX_TEXT));
	return (0);
}

/* dg_domain - the string v, a host name (one trailing dot allowed), into
 * out in lower case */
static int
dg_domain(struct dg *g, struct json_object *v, const char *what, char *out)
{
	const char	*s = json_object_get_string(v);
	size_t		 len = (size_t)json_object_get_string_len(v);
	enum domain_check c;

	if ((c = domain_check(s, len, DOMAIN_NAME_DOT | DOMAIN_NAME_UNDERSCORE,
	    2, out)) != DOMAIN_CHECK_OK)
		return (dg_fail(g, DGRAM_DOMAIN, "%s %s", what,
		    domain_check_why(c)));
	return (0);
}

/* dg_result - libtlsrpt's failure code (tlsrpt.h, tlsrpt_failure_t): the
 * RFC 8460 §4.3 result type, or -1 */
static int
dg_result(int64_t c)
{
	switch (c) {
	case 201: return (TLSRPT_RESULT_STARTTLS);
	case 202: return (TLSRPT_RESULT_HOST_MISMATCH);
	case 203: return (TLSRPT_RESULT_NOT_TRUSTED);
	case 204: return (TLSRPT_RESULT_EXPIRED);
	case 205: return (TLSRPT_RESULT_VALIDATION);
	case 301: return (TLSRPT_RESULT_STS_FETCH);
	case 302: return (TLSRPT_RESULT_STS_INVALID);
	case 303: return (TLSRPT_RESULT_STS_WEBPKI);
	case 304: return (TLSRPT_RESULT_TLSA_INVALID);
	case 305: return (TLSRPT_RESULT_DNSSEC_INVALID);
	case 306: return (TLSRPT_RESULT_DANE_REQUIRED);
	default: return (-1);
	}
}

/* dg_reason - a free text into out: printable ASCII, others '?', cut */
static void
dg_reason(struct json_object *v, char *out, size_t outsz)
{
	const char	*s = json_object_get_string(v);
	size_t		 len = (size_t)json_object_get_string_len(v), i;

	for (i = 0; i < len && i + 1 < outsz; i++)
		out[i] = (unsigned char)s[i] < 0x20 ||
		    (unsigned char)s[i] > 0x7e ? '?' : s[i];
	out[i] = '\0';
}

/* dg_detail - one failure-details object */
static int
dg_detail(struct dg *g, struct json_object *o, struct dgram_detail *fd)
{
	unsigned char	 bin[sizeof(struct in6_addr)];
	struct json_object *v;
	const char	*s;
	int64_t		 c;
	int		 r;

	memset(fd, 0, sizeof(*fd));
	if ((v = dg_get(g, o, "c", json_type_int, 0)) == NULL)
		return (-1);
	c = json_object_get_int64(v);
	if ((r = dg_result(c)) == -1)
		return (dg_fail(g, DGRAM_CODE, "failure code %lld is not one "
		    "of RFC 8460's (201-205, 301-306)", (long long)c));
	fd->result = (enum tlsrpt_result)r;
	if ((v = dg_get(g, o, "n", json_type_string, 1)) != NULL &&
	    json_object_get_string_len(v) > 0 &&
	    dg_domain(g, v, "receiving MX host", fd->host) == -1)
		return (-1);
	if ((v = dg_get(g, o, "r", json_type_string, 1)) != NULL &&
	    json_object_get_string_len(v) > 0) {
		s = json_object_get_string(v);
		if ((size_t)json_object_get_string_len(v) >= sizeof(fd->addr) ||
		    (inet_pton(AF_INET, s, bin) != 1 &&
		    inet_pton(AF_INET6, s, bin) != 1))
			return (dg_fail(g, DGRAM_FORM, "receiving address is "
			    "not an IP address"));
		snprintf(fd->addr, sizeof(fd->addr), "%s", s);
	}
	if ((v = dg_get(g, o, "f", json_type_string, 1)) != NULL &&
	    json_object_get_string_len(v) > 0)
		dg_reason(v, fd->reason, sizeof(fd->reason));
	else if ((v = dg_get(g, o, "a", json_type_string, 1)) != NULL)
		dg_reason(v, fd->reason, sizeof(fd->reason));
	/* "s", "h": strings if present; not reported (sending_mta_ip is
	 * the configuration's, the HELO name is not kept) */
	dg_get(g, o, "s", json_type_string, 1);
	dg_get(g, o, "h", json_type_string, 1);
	return (g->st == DGRAM_OK ? 0 : -1);
}

/* dg_policy - one policies object */
static int
dg_policy(struct dg *g, struct json_object *o, struct dgram_policy *p)
{
	struct json_object *v, *a, *e;
	char		 dom[DOMAIN_BUFSZ];
	size_t		 i, n;
	int64_t		 t;

	if (!json_object_is_type(o, json_type_object))
		return (dg_fail(g, DGRAM_FORM, "a policy is not an object"));
	if ((v = dg_get(g, o, "policy-type", json_type_int, 0)) == NULL)
		return (-1);
	switch (json_object_get_int64(v)) {
	case 1:
		p->type = TLSRPT_POLICY_TLSA;
		break;
	case 2:
		p->type = TLSRPT_POLICY_STS;
		break;
	case 9:
		p->type = TLSRPT_POLICY_NONE;
		break;
	default:
		return (dg_fail(g, DGRAM_CODE, "policy-type %lld is not 1, 2 "
		    "or 9", (long long)json_object_get_int64(v)));
	}
	if ((v = dg_get(g, o, "policy-domain", json_type_string, 1)) != NULL &&
	    dg_domain(g, v, "policy-domain", dom) == -1)
		return (-1);
	if (g->st != DGRAM_OK || dg_lines(g, o, "policy-string",
	    &p->strings) == -1 || dg_lines(g, o, "mx-host", &p->mx) == -1)
		return (-1);
	if ((v = dg_get(g, o, "f", json_type_int, 0)) == NULL)
		return (-1);
	if (json_object_get_int64(v) != 0 && json_object_get_int64(v) != 1)
		return (dg_fail(g, DGRAM_FORM, "\"f\" is not 0 or 1"));
	p->failed = json_object_get_int64(v) == 1;
	if ((v = dg_get(g, o, "t", json_type_int, 0)) == NULL)
		return (-1);
	t = json_object_get_int64(v);
	p->ndetails = 0;
	if ((a = dg_get(g, o, "failure-details", json_type_array, 1)) ==
	    NULL) {
		if (g->st != DGRAM_OK)
			return (-1);
		n = 0;
	} else if ((n = json_object_array_length(a)) > DGRAM_MAX_DETAILS)
		return (dg_fail(g, DGRAM_LIMIT, "more than %d failure details",
		    DGRAM_MAX_DETAILS));
	/* libtlsrpt counts what it adds: "t" is the array's length */
	if (t < 0 || (uint64_t)t != n)
		return (dg_fail(g, DGRAM_FORM, "\"t\" %lld is not the number "
		    "of failure details (%zu)", (long long)t, n));
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (e == NULL || !json_object_is_type(e, json_type_object))
			return (dg_fail(g, DGRAM_FORM, "a failure detail is "
			    "not an object"));
		if (dg_detail(g, e, &p->details[p->ndetails]) == -1)
			return (-1);
		p->ndetails++;
	}
	return (0);
}

/* dg_top - the datagram's object */
static int
dg_top(struct dg *g, struct json_object *o, struct dgram *d)
{
	struct json_object *v, *a;
	const char	*s;
	size_t		 i, n;

	if (!json_object_is_type(o, json_type_object))
		return (dg_fail(g, DGRAM_JSON, "not a JSON object"));
	d->version = 0;
	if ((v = dg_get(g, o, "dpv", json_type_string, 1)) != NULL) {
		s = json_object_get_string(v);
		if (strcmp(s, "1") != 0 || json_object_get_string_len(v) != 1)
			return (dg_fail(g, DGRAM_VERSION, "protocol version "
			    "(dpv) is not \"1\""));
		d->version = 1;
	} else if (g->st != DGRAM_OK)
		return (-1);
	if ((v = dg_get(g, o, "d", json_type_string, 0)) == NULL ||
	    dg_domain(g, v, "policy domain", d->domain) == -1)
		return (-1);
	if ((v = dg_get(g, o, "pr", json_type_string, 0)) == NULL)
		return (-1);
	if (json_object_get_string_len(v) > DGRAM_MAX_RECORD)
		return (dg_fail(g, DGRAM_LIMIT, "the TLSRPT record is over %d "
		    "bytes", DGRAM_MAX_RECORD));
	if ((a = dg_get(g, o, "policies", json_type_array, 0)) == NULL)
		return (-1);
	if ((n = json_object_array_length(a)) == 0)
		return (dg_fail(g, DGRAM_FORM, "no policy"));
	if (n > DGRAM_MAX_POLICIES)
		return (dg_fail(g, DGRAM_LIMIT, "more than %d policies",
		    DGRAM_MAX_POLICIES));
	for (i = 0; i < n; i++) {
		if (dg_policy(g, json_object_array_get_idx(a, i),
		    &d->policies[i]) == -1)
			return (-1);
		d->npolicies++;
	}
	return (0);
}

enum dgram_status
dgram_parse(const char *p, size_t len, struct dgram *d, char *why,
    size_t whysz)
{
	struct dg	 g = { DGRAM_OK, why, whysz };
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t		 end;

	if (whysz > 0)
		why[0] = '\0';
	d->npolicies = 0;
	d->domain[0] = '\0';
	if (len > DGRAM_MAX) {
		dg_fail(&g, DGRAM_LIMIT, "more than %d bytes", DGRAM_MAX);
		return (g.st);
	}
	/* json-c reads a NUL as the end of the text: none may hide there */
	if (len == 0 || memchr(p, '\0', len) != NULL) {
		dg_fail(&g, DGRAM_JSON, len == 0 ? "empty" : "a NUL byte");
		return (g.st);
	}
	if ((tok = json_tokener_new_ex(DGRAM_DEPTH)) == NULL)
		fatalx("tlsrpt: out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, p, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || jerr != json_tokener_success) {
		dg_fail(&g, DGRAM_JSON, "%s", jerr == json_tokener_continue ?
		    "truncated JSON" : json_tokener_error_desc(jerr));
		json_object_put(o);
		return (g.st);
	}
	while (end < len && strchr(" \t\r\n", p[end]) != NULL)
		end++;
	if (end != len)
		dg_fail(&g, DGRAM_JSON, "bytes after the JSON object");
	else
		dg_top(&g, o, d);
	json_object_put(o);
	if (g.st != DGRAM_OK)
		d->npolicies = 0;
	return (g.st);
}
