/*
 * maillog.c - parse the lines of Postfix's mail log a TLS reporter reads
 *
 * Interface, formats and limits: maillog.h.  The message forms are
 * Postfix's own (3.7 to 3.10, smtp_tls_loglevel = 1):
 *	tls_client.c	"%s TLS connection %s to %s: %s with cipher ..."
 *			(trust, "established" or "reused", host[addr]:port)
 *	tls_verify.c	"%s certificate verification failed for %s: ..."
 *			and the same without the "server " prefix
 *	tls_client.c	"SSL_connect error to %s: ..."
 *	smtp(8)		"%s: to=<%s>, relay=%s, ..., status=%s (%s)"
 *	qmgr(8)		"%s: from=<%s>, size=%ld, nrcpt=%d ..."
 *	cleanup(8)	"%s: message-id=%s"
 * Pure: no allocation, no I/O; every read is bounded by the length given.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stddef.h>
#include <string.h>

#include "lib/domain.h"
#include "tlsrpt/maillog.h"

/* A read position in p[0..len). */
struct ml_cur {
	const char	*p;
	size_t		 len;
	size_t		 pos;
};

/* ml_left - bytes left at the cursor */
static size_t
ml_left(const struct ml_cur *c)
{
	return (c->len - c->pos);
}

/* ml_lit - consume the literal s if the cursor is at it */
static int
ml_lit(struct ml_cur *c, const char *s)
{
	size_t	 n = strlen(s);

	if (ml_left(c) < n || memcmp(c->p + c->pos, s, n) != 0)
		return (0);
	c->pos += n;
	return (1);
}

/* ml_find - offset of the first s in p[0..len), or -1 */
static long
ml_find(const char *p, size_t len, const char *s)
{
	size_t	 n = strlen(s), i;

	if (n == 0 || len < n)
		return (-1);
	for (i = 0; i + n <= len; i++)
		if (p[i] == s[0] && memcmp(p + i, s, n) == 0)
			return ((long)i);
	return (-1);
}

/* ml_digits - consume 1..maxd digits as a number; -1 if none */
static long
ml_digits(struct ml_cur *c, int maxd)
{
	long	 v = 0;
	int	 n = 0;

	while (n < maxd && ml_left(c) > 0 && c->p[c->pos] >= '0' &&
	    c->p[c->pos] <= '9') {
		v = v * 10 + (c->p[c->pos] - '0');
		c->pos++;
		n++;
	}
	return (n == 0 ? -1 : v);
}

/* ml_copy - p[0..len) into out[0..outsz) with a NUL; -1 if it does not
 * fit or holds a byte outside 0x21..0x7e */
static int
ml_copy(const char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i;

	if (len >= outsz)
		return (-1);
	for (i = 0; i < len; i++) {
		if ((unsigned char)p[i] < 0x21 || (unsigned char)p[i] > 0x7e)
			return (-1);
		out[i] = p[i];
	}
	out[len] = '\0';
	return (0);
}

/* ml_reason - the free text p[0..len) as failure-reason-code: printable
 * ASCII, anything else '?', cut to fit */
static void
ml_reason(const char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i;

	if (len > outsz - 1)
		len = outsz - 1;
	for (i = 0; i < len; i++)
		out[i] = (unsigned char)p[i] >= 0x20 &&
		    (unsigned char)p[i] <= 0x7e ? p[i] : '?';
	out[len] = '\0';
}

static const char *const ml_months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* ml_time_bsd - "Mmm dd hh:mm:ss " (dd space- or zero-padded) */
static int
ml_time_bsd(struct ml_cur *c, struct maillog_time *t)
{
	int	 m;
	long	 v;

	if (ml_left(c) < 16)
		return (-1);
	for (m = 0; m < 12; m++)
		if (memcmp(c->p + c->pos, ml_months[m], 3) == 0)
			break;
	if (m == 12 || c->p[c->pos + 3] != ' ')
		return (-1);
	c->pos += 4;
	if (c->p[c->pos] == ' ')
		c->pos++;
	if ((v = ml_digits(c, 2)) < 1 || v > 31)
		return (-1);
	t->mday = (int)v;
	if (!ml_lit(c, " ") || (v = ml_digits(c, 2)) < 0 || v > 23)
		return (-1);
	t->hour = (int)v;
	if (!ml_lit(c, ":") || (v = ml_digits(c, 2)) < 0 || v > 59)
		return (-1);
	t->min = (int)v;
	if (!ml_lit(c, ":") || (v = ml_digits(c, 2)) < 0 || v > 60)
		return (-1);
	t->sec = (int)v;
	if (!ml_lit(c, " "))
		return (-1);
	t->mon = m + 1;
	t->year = 0;
	t->set = 1;
	return (0);
}

/* ml_time_3339 - "YYYY-MM-DDThh:mm:ss[.frac](Z|+hh:mm|-hh:mm) " */
static int
ml_time_3339(struct ml_cur *c, struct maillog_time *t)
{
	long	 v, oh, om;
	int	 sign;

	if ((v = ml_digits(c, 4)) < 1970 || !ml_lit(c, "-"))
		return (-1);
	t->year = (int)v;
	if ((v = ml_digits(c, 2)) < 1 || v > 12 || !ml_lit(c, "-"))
		return (-1);
	t->mon = (int)v;
	if ((v = ml_digits(c, 2)) < 1 || v > 31 || !ml_lit(c, "T"))
		return (-1);
	t->mday = (int)v;
	if ((v = ml_digits(c, 2)) < 0 || v > 23 || !ml_lit(c, ":"))
		return (-1);
	t->hour = (int)v;
	if ((v = ml_digits(c, 2)) < 0 || v > 59 || !ml_lit(c, ":"))
		return (-1);
	t->min = (int)v;
	if ((v = ml_digits(c, 2)) < 0 || v > 60)
		return (-1);
	t->sec = (int)v;
	if (ml_lit(c, ".") && ml_digits(c, 9) < 0)
		return (-1);
	if (ml_lit(c, "Z"))
		t->offset_min = 0;
	else {
		if (ml_lit(c, "+"))
			sign = 1;
		else if (ml_lit(c, "-"))
			sign = -1;
		else
			return (-1);
		if ((oh = ml_digits(c, 2)) < 0 || oh > 23 || !ml_lit(c, ":") ||
		    (om = ml_digits(c, 2)) < 0 || om > 59)
			return (-1);
		t->offset_min = sign * (int)(oh * 60 + om);
	}
	if (!ml_lit(c, " "))
		return (-1);
	t->has_offset = 1;
	t->set = 1;
	return (0);
}

/* ml_endpoint - "HOST[ADDR]:PORT" or "HOST[ADDR]" (port 0) at the cursor,
 * ended by ':' followed by ' ' or the end, by ' ', ',' or the end */
static int
ml_endpoint(struct ml_cur *c, struct maillog_event *ev)
{
	const char	*p = c->p + c->pos;
	size_t		 left = ml_left(c), h, a;
	unsigned char	 bin[sizeof(struct in6_addr)];
	long		 port;
	char		 host[DOMAIN_BUFSZ];

	for (h = 0; h < left && p[h] != '['; h++)
		if (p[h] == ' ' || p[h] == ',' || p[h] == ']')
			return (-1);
	if (h == 0 || h == left || h >= sizeof(host))
		return (-1);
	for (a = h + 1; a < left && p[a] != ']'; a++)
		;
	if (a == left || a - h - 1 == 0 || a - h - 1 >= MAILLOG_ADDR_LEN)
		return (-1);
	if (ml_copy(p + h + 1, a - h - 1, ev->addr, sizeof(ev->addr)) == -1 ||
	    (inet_pton(AF_INET, ev->addr, bin) != 1 &&
	    inet_pton(AF_INET6, ev->addr, bin) != 1))
		return (-1);
	/* the host is a name, or the address itself ([addr] next hops) */
	if (h == a - h - 1 && memcmp(p, p + h + 1, h) == 0)
		memcpy(ev->host, ev->addr, h + 1);
	else if (domain_check(p, h, DOMAIN_NAME_UNDERSCORE | DOMAIN_NAME_DOT,
	    1, ev->host) != DOMAIN_CHECK_OK)
		return (-1);
	c->pos += a + 1;
	ev->port = 0;
	if (ml_left(c) >= 2 && c->p[c->pos] == ':' && c->p[c->pos + 1] >= '0' &&
	    c->p[c->pos + 1] <= '9') {
		c->pos++;
		if ((port = ml_digits(c, 5)) < 1 || port > 65535)
			return (-1);
		ev->port = (unsigned int)port;
	}
	return (0);
}

enum tlsrpt_result
maillog_verify_result(const char *p, size_t len)
{
	static const struct {
		const char		*text;
		enum tlsrpt_result	 result;
	} map[] = {
		/* OpenSSL X509_V_ERR_* as Postfix prints them: "num=N:" */
		{ "num=9:", TLSRPT_RESULT_EXPIRED },	/* not yet valid */
		{ "num=10:", TLSRPT_RESULT_EXPIRED },	/* has expired */
		{ "num=62:", TLSRPT_RESULT_HOST_MISMATCH }, /* hostname */
		{ "num=64:", TLSRPT_RESULT_HOST_MISMATCH }, /* IP address */
		/* DANE, no usable TLSA record matched: what Postfix's own
		 * TLSRPT events say (certificate-not-trusted); TLSA records
		 * none of which is usable are tlsa-invalid (verdict.c) */
		{ "num=65:", TLSRPT_RESULT_NOT_TRUSTED },
		{ "num=2:", TLSRPT_RESULT_NOT_TRUSTED },  /* issuer cert */
		{ "num=18:", TLSRPT_RESULT_NOT_TRUSTED }, /* self-signed */
		{ "num=19:", TLSRPT_RESULT_NOT_TRUSTED }, /* ... in chain */
		{ "num=20:", TLSRPT_RESULT_NOT_TRUSTED }, /* local issuer */
		{ "num=21:", TLSRPT_RESULT_NOT_TRUSTED }, /* first cert */
		{ "num=24:", TLSRPT_RESULT_NOT_TRUSTED }, /* invalid CA */
		{ "num=27:", TLSRPT_RESULT_NOT_TRUSTED }, /* untrusted */
		/* Postfix's own words (tls_verify.c, tls_client.c) */
		{ "certificate has expired", TLSRPT_RESULT_EXPIRED },
		{ "certificate not yet valid", TLSRPT_RESULT_EXPIRED },
		{ "hostname mismatch", TLSRPT_RESULT_HOST_MISMATCH },
		{ "does not match STS MX pattern",
		    TLSRPT_RESULT_HOST_MISMATCH },
		{ "no matching DANE TLSA records",
		    TLSRPT_RESULT_NOT_TRUSTED },
		{ "untrusted issuer", TLSRPT_RESULT_NOT_TRUSTED },
		{ "self-signed certificate", TLSRPT_RESULT_NOT_TRUSTED },
		{ "not trusted by local or TLSA policy",
		    TLSRPT_RESULT_NOT_TRUSTED },
		{ "certificate chain longer than limit",
		    TLSRPT_RESULT_NOT_TRUSTED },
	};
	size_t	 i, n;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		n = strlen(map[i].text);
		/* the num= forms only at the start: "num=20:unable to ..." */
		if (strncmp(map[i].text, "num=", 4) == 0) {
			if (len >= n && memcmp(p, map[i].text, n) == 0)
				return (map[i].result);
		} else if (ml_find(p, len, map[i].text) >= 0)
			return (map[i].result);
	}
	return (TLSRPT_RESULT_VALIDATION);
}

/* ml_established - "T TLS connection established to H[A]:P: ..." */
static enum maillog_kind
ml_established(struct ml_cur *c, struct maillog_event *ev)
{
	static const struct {
		const char		*word;
		enum maillog_trust	 trust;
	} trusts[] = {
		{ "Anonymous ", MAILLOG_TRUST_ANONYMOUS },
		{ "Untrusted ", MAILLOG_TRUST_UNTRUSTED },
		{ "Trusted ", MAILLOG_TRUST_TRUSTED },
		{ "Verified ", MAILLOG_TRUST_VERIFIED },
	};
	size_t	 i;

	for (i = 0; i < sizeof(trusts) / sizeof(trusts[0]); i++)
		if (ml_lit(c, trusts[i].word))
			break;
	if (i == sizeof(trusts) / sizeof(trusts[0]) ||
	    !ml_lit(c, "TLS connection "))
		return (MAILLOG_MALFORMED);
	if (ml_lit(c, "reused to "))
		return (MAILLOG_IGNORED);	/* no new handshake */
	if (!ml_lit(c, "established to ") || ml_endpoint(c, ev) == -1 ||
	    !ml_lit(c, ":"))
		return (MAILLOG_MALFORMED);
	ev->trust = trusts[i].trust;
	return (MAILLOG_TLS_ESTABLISHED);
}

/* ml_failed - "... failed for H[A]:P: WHY" or "... error to H[A]:P: WHY",
 * the cursor after "for " or "to " */
static enum maillog_kind
ml_failed(struct ml_cur *c, struct maillog_event *ev, enum maillog_kind kind)
{
	if (ml_endpoint(c, ev) == -1 || !ml_lit(c, ": ") || ml_left(c) == 0)
		return (MAILLOG_MALFORMED);
	ml_reason(c->p + c->pos, ml_left(c), ev->reason, sizeof(ev->reason));
	if (kind == MAILLOG_TLS_VERIFY_FAILED)
		ev->result = maillog_verify_result(c->p + c->pos, ml_left(c));
	else
		ev->result = TLSRPT_RESULT_VALIDATION;
	return (kind);
}

/* ml_qid - "QID: " at the cursor (Postfix queue ids: letters, digits) */
static int
ml_qid(struct ml_cur *c, struct maillog_event *ev)
{
	size_t	 n;

	for (n = 0; n < ml_left(c) && n < MAILLOG_QID_LEN; n++) {
		char	 ch = c->p[c->pos + n];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= 'a' && ch <= 'z')))
			break;
	}
	if (n < 5 || n >= MAILLOG_QID_LEN || ml_left(c) < n + 2 ||
	    c->p[c->pos + n] != ':' || c->p[c->pos + n + 1] != ' ')
		return (-1);
	memcpy(ev->qid, c->p + c->pos, n);
	ev->qid[n] = '\0';
	c->pos += n + 2;
	return (0);
}

/* ml_mailbox - "<ADDR>" followed by "," or the end: the address into
 * ev->mailbox (lower case), its domain normalized into ev->domain */
static int
ml_mailbox(struct ml_cur *c, struct maillog_event *ev)
{
	const char	*p = c->p + c->pos;
	size_t		 left = ml_left(c), end, at, i;
	long		 e;

	if (left == 0 || p[0] != '<')
		return (-1);
	/* the first ">," or a '>' that ends the message */
	if ((e = ml_find(p, left, ">,")) < 0) {
		if (p[left - 1] != '>')
			return (-1);
		e = (long)left - 1;
	}
	end = (size_t)e;
	if (end - 1 >= sizeof(ev->mailbox))
		return (-1);
	for (i = 1; i < end; i++) {
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] == 0x7f)
			return (-1);
		ev->mailbox[i - 1] = (char)domain_lower((unsigned char)p[i]);
	}
	ev->mailbox[end - 1] = '\0';
	ev->domain[0] = '\0';
	for (at = end; at > 1 && p[at - 1] != '@'; at--)
		;
	if (at > 1 && domain_normalize(p + at, end - at, ev->domain) !=
	    DOMAIN_OK)
		ev->domain[0] = '\0';
	c->pos += end + 1;
	return (0);
}

/* ml_field - the value of ", NAME=" in p[0..len): its offset and length
 * (up to the next ", " or the end) */
static int
ml_field(const char *p, size_t len, const char *name, size_t *off,
    size_t *vlen)
{
	long	 f = ml_find(p, len, name), e;
	size_t	 start;

	if (f < 0)
		return (-1);
	start = (size_t)f + strlen(name);
	e = ml_find(p + start, len - start, ", ");
	*off = start;
	*vlen = e < 0 ? len - start : (size_t)e;
	return (0);
}

/* ml_tls_text - a TLS failure named in a delivery's status text */
static void
ml_tls_text(const char *p, size_t len, struct maillog_event *ev)
{
	struct maillog_event	 tmp;
	struct ml_cur		 c;
	long			 f;

	if ((f = ml_find(p, len, "TLS is required, but was not offered by "
	    "host ")) >= 0) {
		c.p = p;
		c.len = len;
		c.pos = (size_t)f + strlen("TLS is required, but was not "
		    "offered by host ");
	} else if ((f = ml_find(p, len, "TLS is required, but host ")) >= 0) {
		c.p = p;
		c.len = len;
		c.pos = (size_t)f + strlen("TLS is required, but host ");
	} else {
		if (ml_find(p, len, "Cannot start TLS: handshake failure") >= 0) {
			ev->result = TLSRPT_RESULT_VALIDATION;
			ml_reason(p, len, ev->reason, sizeof(ev->reason));
		}
		return;
	}
	/* the host named in the text is the one that failed; the relay
	 * field names the same one */
	memset(&tmp, 0, sizeof(tmp));
	if (ml_endpoint(&c, &tmp) == 0 && strcmp(tmp.addr, ev->addr) == 0) {
		ev->result = TLSRPT_RESULT_STARTTLS;
		ml_reason(p + f, len - (size_t)f, ev->reason,
		    sizeof(ev->reason));
	}
}

/* ml_delivery - "QID: to=<A>, [orig_to=<B>, ]relay=R, ..., status=S (T)" */
static enum maillog_kind
ml_delivery(struct ml_cur *c, struct maillog_event *ev)
{
	static const struct {
		const char		*word;
		enum maillog_status	 status;
	} statuses[] = {
		{ "sent", MAILLOG_STATUS_SENT },
		{ "deferred", MAILLOG_STATUS_DEFERRED },
		{ "bounced", MAILLOG_STATUS_BOUNCED },
		{ "expired", MAILLOG_STATUS_EXPIRED },
	};
	struct ml_cur	 r;
	const char	*p;
	size_t		 left, off, vlen, i, st;
	long		 t;

	if (!ml_lit(c, "to=") || ml_mailbox(c, ev) == -1)
		return (MAILLOG_MALFORMED);
	p = c->p + c->pos;
	left = ml_left(c);
	if (ml_field(p, left, "relay=", &off, &vlen) == -1 ||
	    ml_field(p, left, "status=", &st, &i) == -1)
		return (MAILLOG_MALFORMED);
	if (vlen == 4 && memcmp(p + off, "none", 4) == 0)
		ev->relay_none = 1;
	else {
		r.p = p + off;
		r.len = vlen;
		r.pos = 0;
		/* local, virtual, a unix-domain LMTP peer: not a TLS peer */
		if (ml_endpoint(&r, ev) == -1 || ml_left(&r) != 0) {
			ev->host[0] = ev->addr[0] = '\0';
			ev->port = 0;
			ev->relay_none = 1;
		}
	}
	ev->status = MAILLOG_STATUS_OTHER;
	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		size_t	 n = strlen(statuses[i].word);

		if (left - st >= n && memcmp(p + st, statuses[i].word, n) == 0 &&
		    (left - st == n || p[st + n] == ' ')) {
			ev->status = statuses[i].status;
			break;
		}
	}
	/* the text in parentheses after the status word */
	if ((t = ml_find(p + st, left - st, " (")) >= 0 && p[left - 1] == ')' &&
	    !ev->relay_none) {
		off = st + (size_t)t + 2;
		if (off < left - 1)
			ml_tls_text(p + off, left - 1 - off, ev);
	}
	return (MAILLOG_DELIVERY);
}

/* ml_smtp - a message of the smtp(8) client */
static enum maillog_kind
ml_smtp(struct ml_cur *c, struct maillog_event *ev)
{
	size_t	 start = c->pos;

	/* warning:, error:, fatal:, panic: lines name no session outcome
	 * the reporter counts (a verification failure is never one) */
	if (ml_lit(c, "warning: ") || ml_lit(c, "error: ") ||
	    ml_lit(c, "fatal: ") || ml_lit(c, "panic: "))
		return (MAILLOG_IGNORED);
	if (ml_lit(c, "server certificate verification failed for ") ||
	    ml_lit(c, "certificate verification failed for "))
		return (ml_failed(c, ev, MAILLOG_TLS_VERIFY_FAILED));
	if (ml_lit(c, "SSL_connect error to "))
		return (ml_failed(c, ev, MAILLOG_TLS_HANDSHAKE_FAILED));
	if (ml_find(c->p + c->pos, ml_left(c),
	    " TLS connection established to ") >= 0 ||
	    ml_find(c->p + c->pos, ml_left(c),
	    " TLS connection reused to ") >= 0)
		return (ml_established(c, ev));
	c->pos = start;
	if (ml_qid(c, ev) == 0 && ml_left(c) >= 3 &&
	    memcmp(c->p + c->pos, "to=", 3) == 0)
		return (ml_delivery(c, ev));
	return (MAILLOG_IGNORED);
}

/* ml_queue - "QID: from=<A>, ..." (qmgr) or "QID: message-id=<I>" */
static enum maillog_kind
ml_queue(struct ml_cur *c, struct maillog_event *ev, int cleanup)
{
	size_t	 n;

	if (ml_qid(c, ev) == -1)
		return (MAILLOG_IGNORED);
	if (!cleanup) {
		if (!ml_lit(c, "from="))
			return (MAILLOG_IGNORED);
		return (ml_mailbox(c, ev) == 0 ? MAILLOG_QUEUE_FROM :
		    MAILLOG_MALFORMED);
	}
	if (!ml_lit(c, "message-id="))
		return (MAILLOG_IGNORED);
	/* the id as Postfix logs it, with its angle brackets if any */
	for (n = 0; n < ml_left(c) && c->p[c->pos + n] != ' '; n++)
		;
	if (n == 0 || ml_copy(c->p + c->pos, n, ev->msgid,
	    sizeof(ev->msgid)) == -1)
		return (MAILLOG_MALFORMED);
	return (MAILLOG_MESSAGE_ID);
}

/* ml_reset - an empty event */
static void
ml_reset(struct maillog_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = -1;
}

/* ml_message - parse msg[0..len) of program prog[0..proglen) */
static enum maillog_kind
ml_message(const char *prog, size_t proglen, long pid, const char *msg,
    size_t len, struct maillog_event *ev)
{
	struct ml_cur	 c;
	size_t		 s;

	ev->pid = pid;
	for (s = proglen; s > 0 && prog[s - 1] != '/'; s--)
		;
	if (ml_copy(prog + s, proglen - s, ev->service,
	    sizeof(ev->service)) == -1)
		return (ev->kind = MAILLOG_IGNORED);
	c.p = msg;
	c.len = len;
	c.pos = 0;
	if (strcmp(ev->service, "smtp") == 0)
		ev->kind = ml_smtp(&c, ev);
	else if (strcmp(ev->service, "qmgr") == 0)
		ev->kind = ml_queue(&c, ev, 0);
	else if (strcmp(ev->service, "cleanup") == 0)
		ev->kind = ml_queue(&c, ev, 1);
	else
		ev->kind = MAILLOG_IGNORED;
	return (ev->kind);
}

enum maillog_kind
maillog_message(const char *prog, size_t proglen, long pid, const char *msg,
    size_t msglen, struct maillog_event *ev)
{
	ml_reset(ev);
	if (msglen > MAILLOG_MAX_LINE)
		return (ev->kind = MAILLOG_MALFORMED);
	return (ml_message(prog, proglen, pid, msg, msglen, ev));
}

enum maillog_kind
maillog_line(const char *p, size_t len, struct maillog_event *ev)
{
	struct ml_cur	 c;
	struct maillog_time t;
	size_t		 h, tag, tagend;
	long		 pid = -1;

	ml_reset(ev);
	if (len > MAILLOG_MAX_LINE)
		return (ev->kind = MAILLOG_MALFORMED);
	c.p = p;
	c.len = len;
	c.pos = 0;
	memset(&t, 0, sizeof(t));
	if (ml_left(&c) > 0 && p[0] >= '0' && p[0] <= '9') {
		if (ml_time_3339(&c, &t) == -1)
			return (ev->kind = MAILLOG_IGNORED);
	} else if (ml_time_bsd(&c, &t) == -1)
		return (ev->kind = MAILLOG_IGNORED);
	/* HOST */
	for (h = c.pos; h < len && p[h] != ' '; h++)
		;
	if (h == c.pos || h == len)
		return (ev->kind = MAILLOG_MALFORMED);
	c.pos = h + 1;
	/* PROG[PID]: or PROG: */
	tag = c.pos;
	for (tagend = tag; tagend < len && p[tagend] != '[' &&
	    p[tagend] != ':' && p[tagend] != ' '; tagend++)
		;
	if (tagend == tag || tagend == len || p[tagend] == ' ')
		return (ev->kind = MAILLOG_MALFORMED);
	c.pos = tagend;
	if (p[tagend] == '[') {
		c.pos++;
		if ((pid = ml_digits(&c, 10)) < 0 || !ml_lit(&c, "]"))
			return (ev->kind = MAILLOG_MALFORMED);
	}
	if (!ml_lit(&c, ": "))
		return (ev->kind = MAILLOG_MALFORMED);
	ml_message(p + tag, tagend - tag, pid, p + c.pos, ml_left(&c), ev);
	ev->time = t;
	return (ev->kind);
}

const char *
maillog_kind_name(enum maillog_kind k)
{
	switch (k) {
	case MAILLOG_IGNORED:
		return ("ignored");
	case MAILLOG_MALFORMED:
		return ("malformed");
	case MAILLOG_TLS_ESTABLISHED:
		return ("tls-established");
	case MAILLOG_TLS_VERIFY_FAILED:
		return ("tls-verify-failed");
	case MAILLOG_TLS_HANDSHAKE_FAILED:
		return ("tls-handshake-failed");
	case MAILLOG_DELIVERY:
		return ("delivery");
	case MAILLOG_QUEUE_FROM:
		return ("queue-from");
	case MAILLOG_MESSAGE_ID:
		return ("message-id");
	}
	return ("?");
}

const char *
maillog_trust_name(enum maillog_trust t)
{
	switch (t) {
	case MAILLOG_TRUST_NONE:
		return ("none");
	case MAILLOG_TRUST_ANONYMOUS:
		return ("Anonymous");
	case MAILLOG_TRUST_UNTRUSTED:
		return ("Untrusted");
	case MAILLOG_TRUST_TRUSTED:
		return ("Trusted");
	case MAILLOG_TRUST_VERIFIED:
		return ("Verified");
	}
	return ("?");
}
