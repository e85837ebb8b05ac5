/*
 * test_session.c - unit tests for the session join of postsmtpsts-tlsrpt
 * (tlsrpt/session.c): Postfix log lines in, TLS sessions out
 *
 * Each scenario feeds real log lines (Postfix 3.7 in the test world, or
 * its formats) through maillog_line() and session_event(), and compares
 * the sessions that come out: domain, peer, trust and logged failure.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/session.h"

#define MAXOUT	16

struct got {
	size_t	 n;
	struct {
		char	 domain[DOMAIN_BUFSZ];
		char	 host[DOMAIN_BUFSZ];
		char	 addr[MAILLOG_ADDR_LEN];
		enum maillog_trust trust;
		enum tlsrpt_result result;
		char	 qid[MAILLOG_QID_LEN];
	} o[MAXOUT];
};

/* collect - the emit callback */
static void
collect(const struct session_outcome *o, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < MAXOUT);
	snprintf(g->o[g->n].domain, DOMAIN_BUFSZ, "%s", o->domain);
	snprintf(g->o[g->n].host, DOMAIN_BUFSZ, "%s", o->host);
	snprintf(g->o[g->n].addr, MAILLOG_ADDR_LEN, "%s", o->addr);
	snprintf(g->o[g->n].qid, MAILLOG_QID_LEN, "%s", o->qid);
	g->o[g->n].trust = o->trust;
	g->o[g->n].result = o->result;
	g->n++;
}

/* feed - parse line and give it to the table at time when */
static void
feed(struct session_table *t, struct got *g, const char *line, int64_t when)
{
	struct maillog_event ev;

	assert_int_not_equal(maillog_line(line, strlen(line), &ev),
	    MAILLOG_MALFORMED);
	session_event(t, &ev, when, collect, g);
}

#define SMTP(pid)	"Dec 06 08:13:28 sender sender/smtp[" #pid "]: "
#define VERIFIED(pid, h, a) SMTP(pid) "Verified TLS connection established " \
	"to " h "[" a "]:25: TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 " \
	"(256/256 bits)"
#define UNTRUSTED(pid, h, a) SMTP(pid) "Untrusted TLS connection " \
	"established to " h "[" a "]:25: TLSv1.3 with cipher x"
#define MISMATCH(pid, h, a) SMTP(pid) "server certificate verification " \
	"failed for " h "[" a "]:25: num=62:hostname mismatch"
#define DELIVERY(pid, q, rcpt, h, a, st, text) SMTP(pid) q ": to=<" rcpt \
	">, relay=" h "[" a "]:25, delay=1, delays=1/0/0/0, dsn=2.0.0, " \
	"status=" st " (" text ")"

/* new_table - a heap table (it is large) */
static struct session_table *
new_table(const char *sender)
{
	struct session_table *t = malloc(sizeof(*t));

	assert_non_null(t);
	session_init(t, sender);
	return (t);
}

/* sts_ok - one Verified session, delivered */
static void
sts_ok(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, VERIFIED(100, "mx1.ok.example", "192.0.2.1"), 10);
	assert_int_equal(g.n, 0);
	assert_int_equal(session_pending(t), 1);
	feed(t, &g, DELIVERY(100, "4EC01A8C1C9", "user@ok.example",
	    "mx1.ok.example", "192.0.2.1", "sent", "250 2.0.0 Ok"), 11);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.o[0].domain, "ok.example");
	assert_string_equal(g.o[0].host, "mx1.ok.example");
	assert_string_equal(g.o[0].addr, "192.0.2.1");
	assert_string_equal(g.o[0].qid, "4EC01A8C1C9");
	assert_int_equal(g.o[0].trust, MAILLOG_TRUST_VERIFIED);
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_NONE);
	assert_int_equal(session_pending(t), 0);
	assert_int_equal(t->stats.sessions, 1);
	free(t);
}

/* bad_name - a verification failure and the Untrusted line: one session
 * with the failure */
static void
bad_name(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, MISMATCH(7, "mx1.bad.example", "192.0.2.2"), 10);
	feed(t, &g, UNTRUSTED(7, "mx1.bad.example", "192.0.2.2"), 10);
	feed(t, &g, DELIVERY(7, "5D5AFA8C1D2", "u@bad.example",
	    "mx1.bad.example", "192.0.2.2", "deferred",
	    "Server certificate not verified"), 10);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.o[0].trust, MAILLOG_TRUST_UNTRUSTED);
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_HOST_MISMATCH);
	free(t);
}

/* no_starttls - the failure is only in the status text, repeated on every
 * recipient's line: one session */
static void
no_starttls(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };
	const char *l1 = SMTP(9) "841ECA8C1E7: to=<a@nostarttls.example>, "
	    "relay=mx1.nostarttls.example[192.0.2.5]:25, delay=13, dsn=4.7.4, "
	    "status=deferred (TLS is required, but was not offered by host "
	    "mx1.nostarttls.example[192.0.2.5])";
	const char *l2 = SMTP(9) "841ECA8C1E7: to=<b@nostarttls.example>, "
	    "relay=mx1.nostarttls.example[192.0.2.5]:25, delay=13, dsn=4.7.4, "
	    "status=deferred (TLS is required, but was not offered by host "
	    "mx1.nostarttls.example[192.0.2.5])";
	const char *l3 = SMTP(9) "9A1ECA8C1E7: to=<c@nostarttls.example>, "
	    "relay=mx1.nostarttls.example[192.0.2.5]:25, delay=13, dsn=4.7.4, "
	    "status=deferred (TLS is required, but was not offered by host "
	    "mx1.nostarttls.example[192.0.2.5])";

	(void)state;
	feed(t, &g, l1, 10);
	feed(t, &g, l2, 10);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_STARTTLS);
	assert_int_equal(g.o[0].trust, MAILLOG_TRUST_NONE);
	assert_string_equal(g.o[0].host, "mx1.nostarttls.example");
	/* the next delivery (another queue id) is another session */
	feed(t, &g, l3, 20);
	assert_int_equal(g.n, 2);
	free(t);
}

/* two_mx - the first MX fails, the second takes the mail: two sessions,
 * both for the recipient's domain */
static void
two_mx(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, MISMATCH(5, "mx1.two.example", "192.0.2.1"), 10);
	feed(t, &g, UNTRUSTED(5, "mx1.two.example", "192.0.2.1"), 10);
	feed(t, &g, VERIFIED(5, "mx2.two.example", "192.0.2.2"), 11);
	feed(t, &g, DELIVERY(5, "ABCDE12345", "u@two.example",
	    "mx2.two.example", "192.0.2.2", "sent", "250 ok"), 11);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.o[0].host, "mx1.two.example");
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_HOST_MISMATCH);
	assert_string_equal(g.o[1].host, "mx2.two.example");
	assert_int_equal(g.o[1].trust, MAILLOG_TRUST_VERIFIED);
	assert_int_equal(g.o[1].result, TLSRPT_RESULT_NONE);
	assert_string_equal(g.o[1].domain, "two.example");
	free(t);
}

/* interleaved - two processes' lines mixed: each session to its own
 * delivery */
static void
interleaved(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, VERIFIED(1, "mx.a.example", "192.0.2.1"), 10);
	feed(t, &g, MISMATCH(2, "mx.b.example", "192.0.2.2"), 10);
	feed(t, &g, UNTRUSTED(2, "mx.b.example", "192.0.2.2"), 10);
	feed(t, &g, DELIVERY(2, "BBBBB22222", "u@b.example", "mx.b.example",
	    "192.0.2.2", "deferred", "Server certificate not verified"), 11);
	feed(t, &g, DELIVERY(1, "AAAAA11111", "u@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 12);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.o[0].domain, "b.example");
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_HOST_MISMATCH);
	assert_string_equal(g.o[1].domain, "a.example");
	assert_int_equal(g.o[1].trust, MAILLOG_TRUST_VERIFIED);
	free(t);
}

/* report_loop - the reporter's own mail is never a session (RFC 8460
 * §5.3): by its envelope sender, or marked by queue id */
static void
report_loop(void **state)
{
	struct session_table *t = new_table("TLSRPT@Sender.Example");
	struct got g = { 0 };

	(void)state;
	feed(t, &g, "Dec 06 08:13:15 sender sender/qmgr[3]: AAAAA11111: "
	    "from=<tlsrpt@sender.example>, size=452, nrcpt=1 (queue active)",
	    10);
	feed(t, &g, VERIFIED(1, "mx.a.example", "192.0.2.1"), 10);
	feed(t, &g, DELIVERY(1, "AAAAA11111", "r@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 11);
	assert_int_equal(g.n, 0);
	assert_int_equal(t->stats.report_sessions, 1);
	session_mark_report(t, "CCCCC33333", 12);
	feed(t, &g, VERIFIED(1, "mx.a.example", "192.0.2.1"), 12);
	feed(t, &g, DELIVERY(1, "CCCCC33333", "r@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 12);
	assert_int_equal(g.n, 0);
	assert_int_equal(t->stats.report_sessions, 2);
	/* another sender's mail counts */
	feed(t, &g, VERIFIED(1, "mx.a.example", "192.0.2.1"), 13);
	feed(t, &g, DELIVERY(1, "DDDDD44444", "r@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 13);
	assert_int_equal(g.n, 1);
	free(t);
}

/* relay_none - no peer: the pending lines are dropped, counted */
static void
relay_none(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, VERIFIED(4, "mx.a.example", "192.0.2.1"), 10);
	feed(t, &g, SMTP(4) "AAAAA11111: to=<u@a.example>, relay=none, "
	    "delay=0.06, dsn=4.7.5, status=deferred (client TLS configuration "
	    "problem)", 10);
	assert_int_equal(g.n, 0);
	assert_int_equal(t->stats.unattributed, 1);
	assert_int_equal(session_pending(t), 0);
	free(t);
}

/* handshake - an SSL_connect error and the "Cannot start TLS" text of the
 * same delivery: one session */
static void
handshake(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, SMTP(6) "SSL_connect error to mx.h.example[192.0.2.9]:25: "
	    "lost connection", 10);
	feed(t, &g, SMTP(6) "EEEEE55555: to=<u@h.example>, "
	    "relay=mx.h.example[192.0.2.9]:25, delay=1, dsn=4.7.5, "
	    "status=deferred (Cannot start TLS: handshake failure)", 10);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_VALIDATION);
	free(t);
}

/* expiry - lines that never see their delivery go after an hour */
static void
expiry(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, VERIFIED(8, "mx.a.example", "192.0.2.1"), 1000);
	session_mark_report(t, "FFFFF66666", 1000);
	session_expire(t, 1000 + SESSION_MAX_AGE);
	assert_int_equal(session_pending(t), 1);
	session_expire(t, 1000 + SESSION_MAX_AGE + 1);
	assert_int_equal(session_pending(t), 0);
	assert_int_equal(t->stats.expired, 1);
	assert_int_equal(t->nmarks, 1);
	session_expire(t, 1000 + SESSION_MARK_AGE + 1);
	assert_int_equal(t->nmarks, 0);
	feed(t, &g, DELIVERY(8, "AAAAA11111", "u@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 1000 + SESSION_MARK_AGE + 2);
	assert_int_equal(g.n, 0);
	free(t);
}

/* clock_step - the wall clock stepped forward two hours between a TLS
 * line and its delivery line: shifted, the pending line is as old as it
 * was and its session is counted; a step back shifts the other way */
static void
clock_step(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };

	(void)state;
	feed(t, &g, VERIFIED(8, "mx.a.example", "192.0.2.1"), 1000);
	session_mark_report(t, "FFFFF66666", 1000);
	session_shift(t, 7200);
	session_expire(t, 1000 + 7200 + 5);
	assert_int_equal(session_pending(t), 1);
	assert_int_equal(t->stats.expired, 0);
	feed(t, &g, DELIVERY(8, "AAAAA11111", "u@a.example", "mx.a.example",
	    "192.0.2.1", "sent", "250 ok"), 1000 + 7200 + 6);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.o[0].domain, "a.example");
	/* the mark moved too: kept SESSION_MARK_AGE after its shifted time */
	session_expire(t, 1000 + 7200 + SESSION_MARK_AGE);
	assert_int_equal(t->nmarks, 1);
	/* back: an hour-old line still goes an hour after it was logged */
	feed(t, &g, VERIFIED(9, "mx.b.example", "192.0.2.2"), 50000);
	session_shift(t, -3600);
	session_expire(t, 50000 - 3600 + SESSION_MAX_AGE);
	assert_int_equal(session_pending(t), 1);
	session_expire(t, 50000 - 3600 + SESSION_MAX_AGE + 1);
	assert_int_equal(session_pending(t), 0);
	free(t);
}

/* overflow - more processes than the table holds: the least recently
 * heard goes, counted */
static void
overflow(void **state)
{
	struct session_table *t = new_table(NULL);
	struct got g = { 0 };
	char	 line[256];
	int	 i;

	(void)state;
	for (i = 0; i <= SESSION_MAX_PROCS; i++) {
		snprintf(line, sizeof(line), "Dec 06 08:13:28 s postfix/smtp[%d]: "
		    "Verified TLS connection established to mx.a.example"
		    "[192.0.2.1]:25: x", 1000 + i);
		feed(t, &g, line, 10 + i);
	}
	assert_int_equal(t->nprocs, SESSION_MAX_PROCS);
	assert_int_equal(t->stats.overflow, 1);
	assert_int_equal(session_pending(t), SESSION_MAX_PROCS);
	free(t);
}

/* codec - pending lines survive an encode and decode (a restart), and a
 * damaged value is refused whole */
static void
codec(void **state)
{
	struct session_table *t = new_table("r@s.example"), *u;
	struct got g = { 0 };
	struct buf b;
	size_t	 i;

	(void)state;
	feed(t, &g, MISMATCH(5, "mx1.two.example", "192.0.2.1"), 10);
	feed(t, &g, UNTRUSTED(5, "mx1.two.example", "192.0.2.1"), 10);
	feed(t, &g, VERIFIED(6, "mx2.two.example", "192.0.2.2"), 11);
	session_mark_report(t, "RRRRR99999", 11);
	buf_init(&b, 1 << 20);
	session_encode(t, &b);
	assert_false(b.error);
	u = new_table("r@s.example");
	assert_int_equal(session_decode(b.data, b.len, u), 0);
	assert_int_equal(session_pending(u), 2);
	assert_int_equal(u->nmarks, 1);
	assert_string_equal(u->report_sender, "r@s.example");
	feed(u, &g, DELIVERY(5, "ABCDE12345", "u@two.example",
	    "mx1.two.example", "192.0.2.1", "deferred", "x"), 12);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.o[0].result, TLSRPT_RESULT_HOST_MISMATCH);
	assert_int_equal(g.o[0].trust, MAILLOG_TRUST_UNTRUSTED);
	/* every truncation, and trailing bytes, are refused */
	for (i = 0; i < b.len; i++)
		assert_int_equal(session_decode(b.data, i, u), -1);
	buf_append_char(&b, 0);
	assert_int_equal(session_decode(b.data, b.len, u), -1);
	assert_int_equal(u->nprocs, 0);
	assert_string_equal(u->report_sender, "r@s.example");
	buf_free(&b);
	free(t);
	free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sts_ok),
		cmocka_unit_test(bad_name),
		cmocka_unit_test(no_starttls),
		cmocka_unit_test(two_mx),
		cmocka_unit_test(interleaved),
		cmocka_unit_test(report_loop),
		cmocka_unit_test(relay_none),
		cmocka_unit_test(handshake),
		cmocka_unit_test(expiry),
		cmocka_unit_test(clock_step),
		cmocka_unit_test(overflow),
		cmocka_unit_test(codec),
	};

	return (cmocka_run_group_tests_name("session", tests, NULL, NULL));
}
