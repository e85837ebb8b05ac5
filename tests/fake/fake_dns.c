/*
 * fake_dns.c - a scripted dns.h for tests, substituted at link time
 *
 * Interface: fake_dns.h (the script and the record of queries) and
 * lib/dns.h (what the code under test calls: dns_new, dns_set_timeout,
 * dns_query, dns_cancel, dns_check, dns_free; the names stay in
 * lib/dns_names.c).  The callback contract of dns.h holds: a query is
 * answered exactly once, later, from the event loop (or from the test's
 * own fake_dns_reply), never from inside dns_query(), and not after
 * dns_cancel().  A scripted DNS_ERR_TIMEOUT without a delay comes after
 * the query's deadline (dns_set_timeout, DNS_DEFAULT_TIMEOUT_MS), as the
 * real one's does.
 *
 * Every query stays on a list until fake_dns_reset(), so a test can count
 * what was asked after the fact; a handle is dead for the caller once its
 * callback has started, as with the real thing.
 */
#include "autoconf.h"

#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/event.h>

#include "lib/dns.h"
#include "fake_dns.h"

struct dns {
	struct event_base *base;
	int		 timeout_ms;
};

struct dns_query {
	struct dns_query *next;		/* every query, newest first */
	struct dns	*dns;
	char		 name[300];
	int		 rrtype;
	dns_cb		*cb;
	void		*arg;
	int		 live;		/* the callback is still to run */
	struct event	*timer;		/* a scripted answer's delivery */
	struct fake_dns_answer *ans;	/* ... and the answer */
};

struct fake_script {
	struct fake_script *next;
	char		 name[300];
	int		 rrtype;
	struct fake_dns_answer ans;
};

static struct dns_query	*fake_queries;
static int		 fake_nqueries;
static struct fake_script *fake_scripts;

/* fake_match - q asks name/type (wildcards: NULL, 0) */
static int
fake_match(const struct dns_query *q, const char *name, int rrtype)
{
	return ((rrtype == 0 || q->rrtype == rrtype) &&
	    (name == NULL || dns_name_eq(q->name, name)));
}

/* fake_query_done - the query is answered or cancelled */
static void
fake_query_done(struct dns_query *q)
{
	q->live = 0;
	if (q->timer != NULL) {
		event_free(q->timer);
		q->timer = NULL;
	}
	free(q->ans);
	q->ans = NULL;
}

/* fake_deliver - call q back with a */
static void
fake_deliver(struct dns_query *q, const struct fake_dns_answer *a)
{
	struct dns_result res;
	const unsigned char *rd[FAKE_DNS_MAX_RDATA];
	size_t		 i;
	dns_cb		*cb = q->cb;
	void		*arg = q->arg;

	memset(&res, 0, sizeof(res));
	for (i = 0; i < a->count; i++)
		rd[i] = a->data + a->off[i];
	res.status = a->status;
	res.error = a->status == DNS_ERR_TIMEOUT ? "fake: timed out" :
	    a->status != DNS_OK ? "fake: resolver error" : NULL;
	res.qname = q->name;
	res.rrtype = q->rrtype;
	res.rcode = a->status == DNS_OK ? a->rcode : DNS_RCODE_SERVFAIL;
	res.havedata = a->status == DNS_OK && a->count > 0;
	res.nxdomain = a->status == DNS_OK && a->rcode == DNS_RCODE_NXDOMAIN;
	res.security = a->security;
	res.why_bogus = a->security == DNS_BOGUS ? "fake: signature expired" :
	    NULL;
	res.ttl = a->ttl;
	res.canonname = a->canonname[0] != '\0' ? a->canonname : NULL;
	res.rdata_count = a->status == DNS_OK ? a->count : 0;
	res.rdata = rd;
	res.rdata_len = a->len;
	res.packet = a->packet_len > 0 ? a->packet : NULL;
	res.packet_len = a->packet_len;
	fake_query_done(q);
	cb(&res, arg);
}

/* fake_timer_cb - a scripted answer's time has come */
static void
fake_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_query *q = arg;
	struct fake_dns_answer *a = q->ans;

	(void)fd;
	(void)what;
	q->ans = NULL;		/* fake_deliver frees nothing we still use */
	fake_deliver(q, a);
	free(a);
}

/* fake_script_find - the script for name/type, or NULL */
static struct fake_script *
fake_script_find(const char *name, int rrtype)
{
	struct fake_script *s;

	for (s = fake_scripts; s != NULL; s = s->next)
		if (s->rrtype == rrtype && dns_name_eq(s->name, name))
			return (s);
	return (NULL);
}

struct dns *
dns_new(struct event_base *base, const struct config_dns *cf, char *err,
    size_t errsz)
{
	struct dns	*d;

	(void)cf;
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		snprintf(err, errsz, "fake dns: out of memory");
		return (NULL);
	}
	d->base = base;
	d->timeout_ms = DNS_DEFAULT_TIMEOUT_MS;
	return (d);
}

void
dns_set_timeout(struct dns *d, int timeout_ms)
{
	if (timeout_ms < 1)
		timeout_ms = 1;
	if (timeout_ms > DNS_MAX_TIMEOUT_MS)
		timeout_ms = DNS_MAX_TIMEOUT_MS;
	d->timeout_ms = timeout_ms;
}

struct dns_query *
dns_query(struct dns *d, const char *name, int rrtype, dns_cb *cb, void *arg)
{
	struct dns_query *q;
	struct fake_script *s;
	struct timeval	 tv;
	int		 ms;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		abort();
	q->dns = d;
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->rrtype = rrtype;
	q->cb = cb;
	q->arg = arg;
	q->live = 1;
	q->next = fake_queries;
	fake_queries = q;
	fake_nqueries++;
	if (d == NULL || d->base == NULL ||
	    (s = fake_script_find(name, rrtype)) == NULL || s->ans.hold)
		return (q);	/* pending: fake_dns_reply, or never */
	if ((q->ans = malloc(sizeof(*q->ans))) == NULL)
		abort();
	*q->ans = s->ans;
	ms = s->ans.delay_ms;
	if (ms == 0 && s->ans.status == DNS_ERR_TIMEOUT)
		ms = d->timeout_ms;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	if ((q->timer = evtimer_new(d->base, fake_timer_cb, q)) == NULL ||
	    evtimer_add(q->timer, &tv) == -1)
		abort();
	return (q);
}

void
dns_cancel(struct dns_query *q)
{
	if (q != NULL && q->live)
		fake_query_done(q);
}

int
dns_check(const struct config_dns *cf, char *err, size_t errsz)
{
	(void)cf;
	(void)err;
	(void)errsz;
	return (0);
}

void
dns_free(struct dns *d)
{
	struct dns_query *q;

	if (d == NULL)
		return;
	for (q = fake_queries; q != NULL; q = q->next)
		if (q->dns == d) {
			if (q->live)
				fake_query_done(q);
			q->dns = NULL;
		}
	free(d);
}

void
fake_dns_reset(void)
{
	struct dns_query *q;
	struct fake_script *s;

	while ((q = fake_queries) != NULL) {
		fake_queries = q->next;
		fake_query_done(q);
		free(q);
	}
	fake_nqueries = 0;
	while ((s = fake_scripts) != NULL) {
		fake_scripts = s->next;
		free(s);
	}
}

void
fake_dns_answer_init(struct fake_dns_answer *a, enum dns_status st,
    int rcode, enum dns_security sec)
{
	memset(a, 0, sizeof(*a));
	a->status = st;
	a->rcode = rcode;
	a->security = sec;
	a->ttl = 300;
}

int
fake_dns_add_rdata(struct fake_dns_answer *a, const void *p, size_t len)
{
	if (a->count >= FAKE_DNS_MAX_RDATA || len > sizeof(a->data) - a->used)
		return (-1);
	memcpy(a->data + a->used, p, len);
	a->off[a->count] = a->used;
	a->len[a->count++] = len;
	a->used += len;
	return (0);
}

int
fake_dns_set_packet(struct fake_dns_answer *a, const void *p, size_t len)
{
	if (len > sizeof(a->packet))
		return (-1);
	memcpy(a->packet, p, len);
	a->packet_len = len;
	return (0);
}

/* fake_wire_name - "a.b" as wire labels into b (size bsz): length, or 0 */
static size_t
fake_wire_name(unsigned char *b, size_t bsz, const char *name)
{
	size_t		 n = 0, l;
	const char	*dot;

	while (*name != '\0') {
		dot = strchr(name, '.');
		l = dot != NULL ? (size_t)(dot - name) : strlen(name);
		if (l == 0 || l > 63 || n + l + 2 > bsz)
			return (0);
		b[n++] = (unsigned char)l;
		memcpy(b + n, name, l);
		n += l;
		name += l;
		if (*name == '.')
			name++;
	}
	if (n + 1 > bsz)
		return (0);
	b[n++] = 0;
	return (n);
}

/* fake_uint - a decimal number <= max at *p, and the blanks after it;
 * *p moves past them.  0, or -1 if there is none */
static int
fake_uint(const char **p, unsigned long max, unsigned long *out)
{
	char	*end;

	if (!isdigit((unsigned char)**p))
		return (-1);
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno != 0 || *out > max)
		return (-1);
	for (*p = end; **p == ' ' || **p == '\t'; (*p)++)
		;
	return (0);
}

/* fake_hex - the value of a hex digit */
static int
fake_hex(char c)
{
	return (isdigit((unsigned char)c) ? c - '0' :
	    tolower((unsigned char)c) - 'a' + 10);
}

int
fake_dns_add_text(struct fake_dns_answer *a, int rrtype, const char *text)
{
	unsigned char	 b[1024];
	size_t		 n = 0, l, tl;
	unsigned long	 u, s, m, pref;

	switch (rrtype) {
	case DNS_TYPE_TXT:
		tl = strlen(text);
		do {
			l = tl > 255 ? 255 : tl;
			if (n + l + 1 > sizeof(b))
				return (-1);
			b[n++] = (unsigned char)l;
			memcpy(b + n, text, l);
			n += l;
			text += l;
			tl -= l;
		} while (tl > 0);
		break;
	case DNS_TYPE_A:
		if (inet_pton(AF_INET, text, b) != 1)
			return (-1);
		n = 4;
		break;
	case DNS_TYPE_AAAA:
		if (inet_pton(AF_INET6, text, b) != 1)
			return (-1);
		n = 16;
		break;
	case DNS_TYPE_MX:
		if (fake_uint(&text, 65535, &pref) == -1)
			return (-1);
		b[0] = (unsigned char)(pref >> 8);
		b[1] = (unsigned char)pref;
		if ((n = fake_wire_name(b + 2, sizeof(b) - 2, text)) == 0)
			return (-1);
		n += 2;
		break;
	case DNS_TYPE_TLSA:
		if (fake_uint(&text, 255, &u) == -1 ||
		    fake_uint(&text, 255, &s) == -1 ||
		    fake_uint(&text, 255, &m) == -1)
			return (-1);
		b[n++] = (unsigned char)u;
		b[n++] = (unsigned char)s;
		b[n++] = (unsigned char)m;
		for (; text[0] != '\0'; text += 2) {
			if (!isxdigit((unsigned char)text[0]) ||
			    !isxdigit((unsigned char)text[1]) || n >= sizeof(b))
				return (-1);
			b[n++] = (unsigned char)(fake_hex(text[0]) << 4 |
			    fake_hex(text[1]));
		}
		break;
	default:
		return (-1);
	}
	return (fake_dns_add_rdata(a, b, n));
}

int
fake_dns_rrtype(const char *name)
{
	static const struct {
		const char	*name;
		int		 type;
	} t[] = {
		{ "A", DNS_TYPE_A }, { "MX", DNS_TYPE_MX },
		{ "TXT", DNS_TYPE_TXT }, { "AAAA", DNS_TYPE_AAAA },
		{ "TLSA", DNS_TYPE_TLSA },
	};
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcasecmp(name, t[i].name) == 0)
			return (t[i].type);
	return (-1);
}

void
fake_dns_script(const char *name, int rrtype, const struct fake_dns_answer *a)
{
	struct fake_script *s;

	if ((s = fake_script_find(name, rrtype)) == NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL)
			abort();
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->rrtype = rrtype;
		s->next = fake_scripts;
		fake_scripts = s;
	}
	s->ans = *a;
}

void
fake_dns_unscript(const char *name, int rrtype)
{
	struct fake_script **l, *s;

	for (l = &fake_scripts; (s = *l) != NULL; l = &s->next)
		if (s->rrtype == rrtype && dns_name_eq(s->name, name)) {
			*l = s->next;
			free(s);
			return;
		}
}

int
fake_dns_reply(const char *name, int rrtype, const struct fake_dns_answer *a)
{
	struct dns_query *q, *oldest = NULL;

	/* the list is newest first: the last match is the oldest */
	for (q = fake_queries; q != NULL; q = q->next)
		if (q->live && fake_match(q, name, rrtype))
			oldest = q;
	if (oldest == NULL)
		return (-1);
	fake_deliver(oldest, a);
	return (0);
}

int
fake_dns_pending(const char *name, int rrtype)
{
	struct dns_query *q;
	int		 n = 0;

	for (q = fake_queries; q != NULL; q = q->next)
		if (q->live && fake_match(q, name, rrtype))
			n++;
	return (n);
}

int
fake_dns_count(const char *name, int rrtype)
{
	struct dns_query *q;
	int		 n = 0;

	for (q = fake_queries; q != NULL; q = q->next)
		if (fake_match(q, name, rrtype))
			n++;
	return (n);
}

const char *
fake_dns_query_name(int i)
{
	struct dns_query *q;
	int		 k = fake_nqueries - 1;

	if (i < 0 || i >= fake_nqueries)
		return (NULL);
	for (q = fake_queries; q != NULL; q = q->next, k--)
		if (k == i)
			return (q->name);
	return (NULL);
}
