/*
 * session.c - TLS sessions out of Postfix's log lines
 *
 * Interface, rules and limits: session.h.  Pure: no allocation, no I/O,
 * no clock.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/pack.h"
#include "tlsrpt/session.h"

#define SESSION_CODEC_VERSION	1

void
session_init(struct session_table *t, const char *report_sender)
{
	size_t	 i;

	memset(t, 0, sizeof(*t));
	if (report_sender == NULL)
		return;
	for (i = 0; i < sizeof(t->report_sender) - 1 &&
	    report_sender[i] != '\0'; i++)
		t->report_sender[i] = (char)domain_lower(
		    (unsigned char)report_sender[i]);
	t->report_sender[i] = '\0';
}

/* session_proc_find - the process pid, or NULL */
static struct session_proc *
session_proc_find(struct session_table *t, long pid)
{
	size_t	 i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return (&t->procs[i]);
	return (NULL);
}

/* session_proc_drop - forget process i (its pending peers are counted
 * into *counter) */
static void
session_proc_drop(struct session_table *t, size_t i, uint64_t *counter)
{
	*counter += t->procs[i].npeers;
	if (i != t->nprocs - 1)
		t->procs[i] = t->procs[t->nprocs - 1];
	t->nprocs--;
}

/* session_proc_get - the process pid, made if new (the least recently
 * heard one goes when the table is full) */
static struct session_proc *
session_proc_get(struct session_table *t, long pid, int64_t when)
{
	struct session_proc *p;
	size_t	 i, old;

	if ((p = session_proc_find(t, pid)) != NULL)
		return (p);
	if (t->nprocs == SESSION_MAX_PROCS) {
		for (old = 0, i = 1; i < t->nprocs; i++)
			if (t->procs[i].last < t->procs[old].last)
				old = i;
		session_proc_drop(t, old, &t->stats.overflow);
	}
	p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->last = when;
	return (p);
}

/* session_peer_get - the open session with this peer, made if none */
static struct session_peer *
session_peer_get(struct session_table *t, struct session_proc *p,
    const struct maillog_event *ev, int64_t when)
{
	struct session_peer *s;
	size_t	 i;

	for (i = 0; i < p->npeers; i++) {
		s = &p->peers[i];
		if (!s->done && s->port == ev->port &&
		    strcmp(s->addr, ev->addr) == 0 &&
		    strcmp(s->host, ev->host) == 0)
			return (s);
	}
	if (p->npeers == SESSION_MAX_PEERS) {
		/* the oldest goes: a delivery tried more peers than Postfix
		 * does by default */
		memmove(&p->peers[0], &p->peers[1],
		    (SESSION_MAX_PEERS - 1) * sizeof(p->peers[0]));
		p->npeers--;
		t->stats.overflow++;
	}
	s = &p->peers[p->npeers++];
	memset(s, 0, sizeof(*s));
	memcpy(s->host, ev->host, sizeof(s->host));
	memcpy(s->addr, ev->addr, sizeof(s->addr));
	s->port = ev->port;
	s->when = when;
	return (s);
}

/* session_marked - qid is one of the reporter's own messages */
static int
session_marked(const struct session_table *t, const char *qid)
{
	size_t	 i;

	for (i = 0; i < t->nmarks; i++)
		if (strcmp(t->marks[i].qid, qid) == 0)
			return (1);
	return (0);
}

void
session_mark_report(struct session_table *t, const char *qid, int64_t when)
{
	struct session_mark *m;

	if (qid[0] == '\0' || strlen(qid) >= MAILLOG_QID_LEN ||
	    session_marked(t, qid))
		return;
	if (t->nmarks == SESSION_MAX_MARKS) {
		/* the oldest goes: its delivery is long done */
		memmove(&t->marks[0], &t->marks[1],
		    (SESSION_MAX_MARKS - 1) * sizeof(t->marks[0]));
		t->nmarks--;
	}
	m = &t->marks[t->nmarks++];
	snprintf(m->qid, sizeof(m->qid), "%s", qid);
	m->when = when;
}

/* session_emit_peer - one pending peer becomes an outcome */
static void
session_emit_peer(struct session_table *t, const struct session_peer *s,
    const struct maillog_event *ev, session_emit_fn *emit, void *arg)
{
	struct session_outcome o;

	memset(&o, 0, sizeof(o));
	o.domain = ev->domain;
	o.qid = ev->qid;
	o.host = s->host;
	o.addr = s->addr;
	o.trust = s->trust;
	o.result = s->result;
	o.reason = s->reason;
	o.when = s->when;
	t->stats.sessions++;
	emit(&o, arg);
}

/* session_delivery - a delivery line: the process's sessions are done */
static void
session_delivery(struct session_table *t, const struct maillog_event *ev,
    int64_t when, session_emit_fn *emit, void *arg)
{
	struct session_proc *p = session_proc_find(t, ev->pid);
	struct session_outcome o;
	size_t	 i, n = 0;
	int	 seen = 0;

	if (p != NULL)
		n = p->npeers;
	if (session_marked(t, ev->qid)) {
		t->stats.report_sessions += n;
		goto done;
	}
	if (ev->domain[0] == '\0' || ev->relay_none) {
		t->stats.unattributed += n;
		goto done;
	}
	for (i = 0; i < n; i++) {
		session_emit_peer(t, &p->peers[i], ev, emit, arg);
		if (strcmp(p->peers[i].addr, ev->addr) == 0)
			seen = 1;
	}
	/*
	 * A failure named only in the status text: "TLS is required, but
	 * was not offered by host H[A]" (no STARTTLS), "Cannot start TLS:
	 * handshake failure" (the SSL_connect error line, if any, made the
	 * session already).  Every recipient's line repeats the text.
	 */
	if (ev->result != TLSRPT_RESULT_NONE && !seen &&
	    !(p != NULL && strcmp(p->text_qid, ev->qid) == 0 &&
	    strcmp(p->text_addr, ev->addr) == 0)) {
		memset(&o, 0, sizeof(o));
		o.domain = ev->domain;
		o.qid = ev->qid;
		o.host = ev->host;
		o.addr = ev->addr;
		o.trust = MAILLOG_TRUST_NONE;
		o.result = ev->result;
		o.reason = ev->reason;
		o.when = when;
		t->stats.sessions++;
		emit(&o, arg);
		if (p == NULL)
			p = session_proc_get(t, ev->pid, when);
		snprintf(p->text_qid, sizeof(p->text_qid), "%s", ev->qid);
		snprintf(p->text_addr, sizeof(p->text_addr), "%s", ev->addr);
	}
done:
	if (p != NULL) {
		p->npeers = 0;
		p->last = when;
	}
}

void
session_event(struct session_table *t, const struct maillog_event *ev,
    int64_t when, session_emit_fn *emit, void *arg)
{
	struct session_proc *p;
	struct session_peer *s;

	switch (ev->kind) {
	case MAILLOG_TLS_VERIFY_FAILED:
	case MAILLOG_TLS_HANDSHAKE_FAILED:
	case MAILLOG_TLS_ESTABLISHED:
		if (ev->pid < 0)
			return;
		p = session_proc_get(t, ev->pid, when);
		p->last = when;
		s = session_peer_get(t, p, ev, when);
		if (ev->kind == MAILLOG_TLS_ESTABLISHED) {
			s->trust = ev->trust;
			s->done = 1;
		} else {
			/* the first failure Postfix names is the cause */
			if (s->result == TLSRPT_RESULT_NONE) {
				s->result = ev->result;
				memcpy(s->reason, ev->reason,
				    sizeof(s->reason));
			}
			if (ev->kind == MAILLOG_TLS_HANDSHAKE_FAILED)
				s->done = 1;
		}
		return;
	case MAILLOG_DELIVERY:
		if (ev->pid >= 0)
			session_delivery(t, ev, when, emit, arg);
		return;
	case MAILLOG_QUEUE_FROM:
		if (t->report_sender[0] != '\0' &&
		    strcmp(ev->mailbox, t->report_sender) == 0)
			session_mark_report(t, ev->qid, when);
		return;
	default:
		return;
	}
}

void
session_shift(struct session_table *t, int64_t step)
{
	size_t	 i;

	for (i = 0; i < t->nprocs; i++)
		t->procs[i].last += step;
	for (i = 0; i < t->nmarks; i++)
		t->marks[i].when += step;
}

void
session_expire(struct session_table *t, int64_t now)
{
	size_t	 i, j;

	for (i = 0; i < t->nprocs; ) {
		if (t->procs[i].last + SESSION_MAX_AGE < now)
			session_proc_drop(t, i, &t->stats.expired);
		else
			i++;
	}
	for (i = j = 0; i < t->nmarks; i++)
		if (t->marks[i].when + SESSION_MARK_AGE >= now)
			t->marks[j++] = t->marks[i];
	t->nmarks = j;
}

size_t
session_pending(const struct session_table *t)
{
	size_t	 i, n = 0;

	for (i = 0; i < t->nprocs; i++)
		n += t->procs[i].npeers;
	return (n);
}

void
session_encode(const struct session_table *t, struct buf *b)
{
	const struct session_proc *p;
	const struct session_peer *s;
	size_t	 i, j;

	pack_u8(b, SESSION_CODEC_VERSION);
	pack_u64(b, t->stats.sessions);
	pack_u64(b, t->stats.report_sessions);
	pack_u64(b, t->stats.unattributed);
	pack_u64(b, t->stats.expired);
	pack_u64(b, t->stats.overflow);
	pack_u32(b, (uint32_t)t->nprocs);
	for (i = 0; i < t->nprocs; i++) {
		p = &t->procs[i];
		pack_u64(b, (uint64_t)p->pid);
		pack_u64(b, (uint64_t)p->last);
		pack_cstr(b, p->text_qid);
		pack_cstr(b, p->text_addr);
		pack_u8(b, (unsigned int)p->npeers);
		for (j = 0; j < p->npeers; j++) {
			s = &p->peers[j];
			pack_cstr(b, s->host);
			pack_cstr(b, s->addr);
			pack_u32(b, s->port);
			pack_u8(b, s->trust);
			pack_u8(b, s->result);
			pack_cstr(b, s->reason);
			pack_u8(b, (unsigned int)s->done);
			pack_u64(b, (uint64_t)s->when);
		}
	}
	pack_u32(b, (uint32_t)t->nmarks);
	for (i = 0; i < t->nmarks; i++) {
		pack_cstr(b, t->marks[i].qid);
		pack_u64(b, (uint64_t)t->marks[i].when);
	}
}

int
session_decode(const void *v, size_t len, struct session_table *t)
{
	struct unpack	 u;
	struct session_proc *p;
	struct session_peer *s;
	char		 sender[MAILLOG_MAILBOX_LEN];
	size_t		 i, j;
	uint32_t	 n;

	memcpy(sender, t->report_sender, sizeof(sender));
	memset(t, 0, sizeof(*t));
	memcpy(t->report_sender, sender, sizeof(sender));
	unpack_init(&u, v, len);
	if (unpack_u8(&u) != SESSION_CODEC_VERSION)
		goto bad;
	t->stats.sessions = unpack_u64(&u);
	t->stats.report_sessions = unpack_u64(&u);
	t->stats.unattributed = unpack_u64(&u);
	t->stats.expired = unpack_u64(&u);
	t->stats.overflow = unpack_u64(&u);
	if ((n = unpack_u32(&u)) > SESSION_MAX_PROCS)
		goto bad;
	for (i = 0; i < n && !u.error; i++) {
		p = &t->procs[i];
		p->pid = (long)unpack_u64(&u);
		p->last = (int64_t)unpack_u64(&u);
		unpack_cstr(&u, p->text_qid, sizeof(p->text_qid));
		unpack_cstr(&u, p->text_addr, sizeof(p->text_addr));
		if ((p->npeers = unpack_u8(&u)) > SESSION_MAX_PEERS)
			goto bad;
		for (j = 0; j < p->npeers && !u.error; j++) {
			s = &p->peers[j];
			unpack_cstr(&u, s->host, sizeof(s->host));
			unpack_cstr(&u, s->addr, sizeof(s->addr));
			s->port = unpack_u32(&u);
			s->trust = (enum maillog_trust)unpack_u8(&u);
			s->result = (enum tlsrpt_result)unpack_u8(&u);
			unpack_cstr(&u, s->reason, sizeof(s->reason));
			s->done = (int)unpack_u8(&u);
			s->when = (int64_t)unpack_u64(&u);
			if (s->trust > MAILLOG_TRUST_VERIFIED ||
			    s->result > TLSRPT_RESULT_MAX)
				goto bad;
		}
	}
	t->nprocs = n;
	if ((n = unpack_u32(&u)) > SESSION_MAX_MARKS)
		goto bad;
	for (i = 0; i < n && !u.error; i++) {
		unpack_cstr(&u, t->marks[i].qid, sizeof(t->marks[i].qid));
		t->marks[i].when = (int64_t)unpack_u64(&u);
	}
	t->nmarks = n;
	if (unpack_done(&u) == -1)
		goto bad;
	return (0);
bad:
	memset(t, 0, sizeof(*t));
	memcpy(t->report_sender, sender, sizeof(sender));
	return (-1);
}
