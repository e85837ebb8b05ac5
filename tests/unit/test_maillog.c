/*
 * test_maillog.c - unit tests for the Postfix log line parser of
 * postsmtpsts-tlsrpt (tlsrpt/maillog.c)
 *
 * Each table row is its own TAP test.  The lines are Postfix's own: the
 * first rows were logged by Postfix 3.7.11 (Debian 12) in the test world
 * (tests/world) with smtp_tls_loglevel = 1; the others follow the format
 * strings of Postfix 3.10 (tls_client.c, tls_verify.c, smtp(8)).  Every
 * line is copied into a heap block of exactly its length (no NUL), so
 * ASan catches a read past the end.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tlsrpt/maillog.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

struct ml_case {
	const char		*name;
	const char		*line;
	enum maillog_kind	 kind;
	const char		*service;	/* NULL: not checked */
	long			 pid;
	const char		*host;		/* NULL: not checked */
	const char		*addr;
	unsigned int		 port;
	enum maillog_trust	 trust;
	enum tlsrpt_result	 result;
	const char		*reason;	/* NULL: not checked */
	const char		*qid;		/* NULL: not checked */
	const char		*domain;	/* NULL: not checked */
	enum maillog_status	 status;
	int			 relay_none;
};

#define P37	"Dec 06 08:13:28 sender sender/smtp[17963]: "

static const struct ml_case ml_cases[] = {
	{ "3.7: Verified TLS connection established (STS enforce, ok)",
	    "Dec 06 08:13:28 sender sender/smtp[21726]: Verified TLS "
	    "connection established to mx1.deliver-ok.pstest[127.41.25.1]:25:"
	    " TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits) "
	    "key-exchange X25519 server-signature ECDSA (prime256v1) "
	    "server-digest SHA256",
	    MAILLOG_TLS_ESTABLISHED, "smtp", 21726, "mx1.deliver-ok.pstest",
	    "127.41.25.1", 25, MAILLOG_TRUST_VERIFIED, TLSRPT_RESULT_NONE,
	    NULL, NULL, NULL, 0, 0 },
	{ "3.7: hostname mismatch (num=62)",
	    P37 "server certificate verification failed for "
	    "mx1.deliver-badcert.pstest[127.41.25.2]:25: num=62:hostname "
	    "mismatch",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 17963,
	    "mx1.deliver-badcert.pstest", "127.41.25.2", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_HOST_MISMATCH,
	    "num=62:hostname mismatch", NULL, NULL, 0, 0 },
	{ "3.7: certificate has expired",
	    P37 "server certificate verification failed for "
	    "mx1.deliver-expired.pstest[127.41.25.3]:25: certificate has "
	    "expired",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 17963,
	    "mx1.deliver-expired.pstest", "127.41.25.3", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_EXPIRED,
	    "certificate has expired", NULL, NULL, 0, 0 },
	{ "3.7: DANE, no matching TLSA record (num=65)",
	    P37 "server certificate verification failed for "
	    "mx1.dane-mismatch.pstest[127.41.25.1]:25: num=65:no matching "
	    "DANE TLSA records",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 17963,
	    "mx1.dane-mismatch.pstest", "127.41.25.1", 25, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NOT_TRUSTED, NULL, NULL, NULL, 0, 0 },
	{ "3.7: untrusted issuer (no \"server\" prefix)",
	    P37 "certificate verification failed for "
	    "mx1.deliver-unknownca.pstest[127.41.25.4]:25: untrusted issuer "
	    "/CN=postsmtpsts world UNKNOWN CA",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 17963,
	    "mx1.deliver-unknownca.pstest", "127.41.25.4", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NOT_TRUSTED,
	    "untrusted issuer /CN=postsmtpsts world UNKNOWN CA", NULL, NULL, 0,
	    0 },
	{ "3.7: Untrusted TLS connection established",
	    P37 "Untrusted TLS connection established to "
	    "mx1.deliver-badcert.pstest[127.41.25.2]:25: TLSv1.3 with cipher "
	    "TLS_AES_256_GCM_SHA384 (256/256 bits)",
	    MAILLOG_TLS_ESTABLISHED, "smtp", 17963,
	    "mx1.deliver-badcert.pstest", "127.41.25.2", 25,
	    MAILLOG_TRUST_UNTRUSTED, TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0,
	    0 },
	{ "3.7: deferred, TLS required but not offered (no STARTTLS)",
	    "Dec 06 08:13:28 sender sender/smtp[17945]: 841ECA8C1E7: "
	    "to=<user@nostarttls.pstest>, relay=mx1.nostarttls.pstest"
	    "[127.41.25.5]:25, delay=13, delays=13/0/0/0, dsn=4.7.4, "
	    "status=deferred (TLS is required, but was not offered by host "
	    "mx1.nostarttls.pstest[127.41.25.5])",
	    MAILLOG_DELIVERY, "smtp", 17945, "mx1.nostarttls.pstest",
	    "127.41.25.5", 25, MAILLOG_TRUST_NONE, TLSRPT_RESULT_STARTTLS,
	    "TLS is required, but was not offered by host "
	    "mx1.nostarttls.pstest[127.41.25.5]", "841ECA8C1E7",
	    "nostarttls.pstest", MAILLOG_STATUS_DEFERRED, 0 },
	{ "3.7: sent",
	    "Dec 06 08:13:28 sender sender/smtp[21726]: 4EC01A8C1C9: "
	    "to=<user@deliver-ok.pstest>, relay=mx1.deliver-ok.pstest"
	    "[127.41.25.1]:25, delay=14, delays=14/0.01/0/0, dsn=2.0.0, "
	    "status=sent (250 2.0.0 Ok: queued as E19D0A8C1F4)",
	    MAILLOG_DELIVERY, "smtp", 21726, "mx1.deliver-ok.pstest",
	    "127.41.25.1", 25, MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL,
	    "4EC01A8C1C9", "deliver-ok.pstest", MAILLOG_STATUS_SENT, 0 },
	{ "3.7: deferred, certificate not verified (the failure was logged "
	    "before: no result of its own)",
	    "Dec 06 08:13:28 sender sender/smtp[17963]: 5D5AFA8C1D2: "
	    "to=<user@deliver-badcert.pstest>, relay=mx1.deliver-badcert."
	    "pstest[127.41.25.2]:25, delay=14, delays=14/0/0.01/0, "
	    "dsn=4.7.5, status=deferred (Server certificate not verified)",
	    MAILLOG_DELIVERY, "smtp", 17963, "mx1.deliver-badcert.pstest",
	    "127.41.25.2", 25, MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL,
	    "5D5AFA8C1D2", "deliver-badcert.pstest",
	    MAILLOG_STATUS_DEFERRED, 0 },
	{ "3.7: relay=none (policy lookup failed): no peer",
	    "Dec 06 08:13:15 sender sender/smtp[17945]: 4EC01A8C1C9: "
	    "to=<user@deliver-ok.pstest>, relay=none, delay=0.06, "
	    "delays=0.01/0.02/0.03/0, dsn=4.7.5, status=deferred (client "
	    "TLS configuration problem)",
	    MAILLOG_DELIVERY, "smtp", 17945, "", "", 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, "4EC01A8C1C9", "deliver-ok.pstest",
	    MAILLOG_STATUS_DEFERRED, 1 },
	{ "orig_to before relay, upper-case domain normalized",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@Example.COM>, orig_to=<alias@local>, "
	    "relay=mx.example.com[192.0.2.1]:25, delay=1, dsn=2.0.0, "
	    "status=sent (250 ok)",
	    MAILLOG_DELIVERY, "smtp", 5, "mx.example.com", "192.0.2.1", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, "4EC01A8C1C9",
	    "example.com", MAILLOG_STATUS_SENT, 0 },
	{ "IDN recipient domain becomes an A-label",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@b\xc3\xbc" "cher.example>, relay=mx.xn--bcher-kva.example"
	    "[192.0.2.1]:25, dsn=2.0.0, status=sent (250 ok)",
	    MAILLOG_DELIVERY, "smtp", 5, "mx.xn--bcher-kva.example",
	    "192.0.2.1", 25, MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL,
	    "4EC01A8C1C9", "xn--bcher-kva.example", MAILLOG_STATUS_SENT, 0 },
	{ "refused to start TLS",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@example.com>, relay=mx.example.com[192.0.2.1]:25, "
	    "dsn=4.7.4, status=deferred (TLS is required, but host "
	    "mx.example.com[192.0.2.1] refused to start TLS: 454 4.7.0 TLS "
	    "not available)",
	    MAILLOG_DELIVERY, "smtp", 5, "mx.example.com", "192.0.2.1", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_STARTTLS, NULL, "4EC01A8C1C9",
	    "example.com", MAILLOG_STATUS_DEFERRED, 0 },
	{ "TLS failure text naming another host is not this relay's",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@example.com>, relay=mx2.example.com[192.0.2.2]:25, "
	    "dsn=4.7.4, status=deferred (TLS is required, but was not "
	    "offered by host mx1.example.com[192.0.2.1])",
	    MAILLOG_DELIVERY, "smtp", 5, "mx2.example.com", "192.0.2.2", 25,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, NULL, NULL,
	    MAILLOG_STATUS_DEFERRED, 0 },
	{ "Cannot start TLS: handshake failure",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@example.com>, relay=mx.example.com[192.0.2.1]:25, "
	    "dsn=4.7.5, status=deferred (Cannot start TLS: handshake "
	    "failure)",
	    MAILLOG_DELIVERY, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_VALIDATION, "Cannot start TLS: handshake failure",
	    NULL, NULL, MAILLOG_STATUS_DEFERRED, 0 },
	{ "SSL_connect error",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: SSL_connect error to "
	    "mx.example.com[192.0.2.1]:25: lost connection",
	    MAILLOG_TLS_HANDSHAKE_FAILED, "smtp", 5, "mx.example.com",
	    "192.0.2.1", 25, MAILLOG_TRUST_NONE, TLSRPT_RESULT_VALIDATION,
	    "lost connection", NULL, NULL, 0, 0 },
	{ "RFC 3339 time, IPv6 peer, Trusted",
	    "2026-12-06T08:13:28.123456+01:00 mx postfix/smtp[77]: Trusted TLS "
	    "connection established to mx.example.com[2001:db8::25]:25: "
	    "TLSv1.2 with cipher ECDHE-ECDSA-AES256-GCM-SHA384 (256/256 bits)",
	    MAILLOG_TLS_ESTABLISHED, "smtp", 77, "mx.example.com",
	    "2001:db8::25", 25, MAILLOG_TRUST_TRUSTED, TLSRPT_RESULT_NONE, NULL,
	    NULL, NULL, 0, 0 },
	{ "an [address] next hop: the host is the address",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Anonymous TLS connection "
	    "established to 192.0.2.7[192.0.2.7]:25: TLSv1.3 with cipher x",
	    MAILLOG_TLS_ESTABLISHED, "smtp", 5, "192.0.2.7", "192.0.2.7", 25,
	    MAILLOG_TRUST_ANONYMOUS, TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0,
	    0 },
	{ "a second Postfix instance (syslog_name postfix-out)",
	    "Dec  6 08:13:28 mx postfix-out/smtp[9]: Verified TLS connection "
	    "established to mx.example.com[192.0.2.1]:25: TLSv1.3 with x",
	    MAILLOG_TLS_ESTABLISHED, "smtp", 9, "mx.example.com", "192.0.2.1",
	    25, MAILLOG_TRUST_VERIFIED, TLSRPT_RESULT_NONE, NULL, NULL, NULL,
	    0, 0 },
	{ "3.10: certificate not yet valid",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx.example.com[192.0.2.1]:25: "
	    "certificate not yet valid",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 5, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_EXPIRED, NULL, NULL, NULL, 0,
	    0 },
	{ "3.10: self-signed certificate",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: certificate verification "
	    "failed for mx.example.com[192.0.2.1]:25: self-signed certificate",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 5, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NOT_TRUSTED, NULL, NULL, NULL, 0,
	    0 },
	{ "3.10.5: MX name does not match the STS MX patterns",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx.example.com[192.0.2.1]:25: name "
	    "mx.example.com does not match STS MX pattern *.mail.example.com",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 5, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_HOST_MISMATCH, NULL, NULL, NULL,
	    0, 0 },
	{ "an unknown verification failure is validation-failure",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx.example.com[192.0.2.1]:25: "
	    "num=99:something new",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 5, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_VALIDATION, "num=99:something new",
	    NULL, NULL, 0, 0 },
	{ "control bytes in the reason are replaced",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx.example.com[192.0.2.1]:25: bad\x01"
	    "\"x\"",
	    MAILLOG_TLS_VERIFY_FAILED, "smtp", 5, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_VALIDATION, "bad?\"x\"", NULL,
	    NULL, 0, 0 },
	{ "qmgr: the envelope sender",
	    "Dec 06 08:13:15 sender sender/qmgr[17914]: 4EC01A8C1C9: "
	    "from=<TLSRPT@Sender.pstest>, size=452, nrcpt=1 (queue active)",
	    MAILLOG_QUEUE_FROM, "qmgr", 17914, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, "4EC01A8C1C9",
	    "sender.pstest", 0, 0 },
	{ "qmgr: the null sender",
	    "Dec 06 08:13:15 sender sender/qmgr[17914]: 4EC01A8C1C9: "
	    "from=<>, size=452, nrcpt=1 (queue active)",
	    MAILLOG_QUEUE_FROM, "qmgr", 17914, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, "4EC01A8C1C9", "", 0,
	    0 },
	{ "cleanup: message-id",
	    "Dec 06 08:13:15 sender sender/cleanup[17941]: 4EC01A8C1C9: "
	    "message-id=<20261206.x.pstest@sender.pstest>",
	    MAILLOG_MESSAGE_ID, "cleanup", 17941, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, "4EC01A8C1C9", NULL,
	    0, 0 },
	/* ignored and malformed */
	{ "an smtpd line is not a client session",
	    "Dec 06 08:13:15 sender sender/smtpd[17916]: connect from "
	    "localhost[127.0.0.1]",
	    MAILLOG_IGNORED, "smtpd", 17916, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "TLS connection reused: no new handshake",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Verified TLS connection reused "
	    "to mx.example.com[192.0.2.1]:25: TLSv1.3 with cipher x",
	    MAILLOG_IGNORED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a warning is not a session",
	    "Dec 06 08:13:15 sender sender/smtp[17945]: warning: TLS policy "
	    "lookup for deliver-ok.pstest/mx1.deliver-ok.pstest: client TLS "
	    "configuration problem",
	    MAILLOG_IGNORED, "smtp", 17945, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a loglevel 2 line naming a TLS connection",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: setting up TLS connection to "
	    "mx.example.com[192.0.2.1]:25",
	    MAILLOG_IGNORED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "not a syslog line", "hello world", MAILLOG_IGNORED, NULL, -1, NULL,
	    NULL, 0, MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, NULL, NULL,
	    0, 0 },
	{ "empty line", "", MAILLOG_IGNORED, NULL, -1, NULL, NULL, 0,
	    MAILLOG_TRUST_NONE, TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "an unknown trust word (a newer Postfix's?)",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Pinned TLS connection "
	    "established to mx.example.com[192.0.2.1]:25: TLSv1.3",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "established without an address",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Verified TLS connection "
	    "established to mx.example.com:25: TLSv1.3",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a bad address in brackets",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Verified TLS connection "
	    "established to mx.example.com[999.1.1.1]:25: TLSv1.3",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a port out of range",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: Verified TLS connection "
	    "established to mx.example.com[192.0.2.1]:99999: TLSv1.3",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a host name with a blank",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx example.com[192.0.2.1]:25: x",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a verification failure without a reason",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: server certificate "
	    "verification failed for mx.example.com[192.0.2.1]:25",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a delivery without status",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: "
	    "to=<u@example.com>, relay=mx.example.com[192.0.2.1]:25",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a delivery with an unterminated address",
	    "Dec  6 08:13:28 mx postfix/smtp[5]: 4EC01A8C1C9: to=<u@example.com",
	    MAILLOG_MALFORMED, "smtp", 5, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a pid that is not a number",
	    "Dec  6 08:13:28 mx postfix/smtp[x5]: Verified TLS connection",
	    MAILLOG_MALFORMED, NULL, -1, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
	{ "a time with a bad month is no syslog line",
	    "Foo  6 08:13:28 mx postfix/smtp[5]: Verified TLS connection",
	    MAILLOG_IGNORED, NULL, -1, NULL, NULL, 0, MAILLOG_TRUST_NONE,
	    TLSRPT_RESULT_NONE, NULL, NULL, NULL, 0, 0 },
};

/* ml_str - assert a string field unless want is NULL */
static void
ml_str(const char *what, const char *got, const char *want)
{
	if (want == NULL)
		return;
	if (strcmp(got, want) != 0)
		fail_msg("%s: got \"%s\", want \"%s\"", what, got, want);
}

/* run_ml_case - one ml_cases row */
static void
run_ml_case(void **state)
{
	const struct ml_case *tc = *state;
	struct maillog_event ev;
	size_t	 len = strlen(tc->line);
	char	*line = malloc(len > 0 ? len : 1);
	enum maillog_kind k;

	assert_non_null(line);
	memcpy(line, tc->line, len);
	k = maillog_line(line, len, &ev);
	free(line);
	if (k != tc->kind)
		fail_msg("kind %s, want %s", maillog_kind_name(k),
		    maillog_kind_name(tc->kind));
	assert_int_equal(ev.kind, k);
	ml_str("service", ev.service, tc->service);
	if (tc->service != NULL)
		assert_int_equal(ev.pid, tc->pid);
	if (k == MAILLOG_IGNORED || k == MAILLOG_MALFORMED)
		return;
	ml_str("host", ev.host, tc->host);
	ml_str("addr", ev.addr, tc->addr);
	if (tc->host != NULL)
		assert_int_equal(ev.port, tc->port);
	assert_int_equal(ev.trust, tc->trust);
	if (ev.result != tc->result)
		fail_msg("result %s, want %s", tlsrpt_result_name(ev.result),
		    tlsrpt_result_name(tc->result));
	ml_str("reason", ev.reason, tc->reason);
	ml_str("qid", ev.qid, tc->qid);
	ml_str("domain", ev.domain, tc->domain);
	if (k == MAILLOG_DELIVERY) {
		assert_int_equal(ev.status, tc->status);
		assert_int_equal(ev.relay_none, tc->relay_none);
	}
	assert_true(ev.time.set);
}

/* ml_time_forms - both time forms are read as written */
static void
ml_time_forms(void **state)
{
	struct maillog_event ev;
	const char *bsd = "Dec  6 08:13:28 mx postfix/qmgr[1]: 4EC01A8C1C9: "
	    "from=<a@b.example>, size=1";
	const char *pf = "Jan 09 23:59:60 mx postfix/qmgr[1]: 4EC01A8C1C9: "
	    "from=<a@b.example>, size=1";
	const char *rfc = "2026-12-06T23:13:28.5-05:30 mx postfix/qmgr[1]: "
	    "4EC01A8C1C9: from=<a@b.example>, size=1";

	(void)state;
	assert_int_equal(maillog_line(bsd, strlen(bsd), &ev),
	    MAILLOG_QUEUE_FROM);
	assert_int_equal(ev.time.year, 0);
	assert_int_equal(ev.time.mon, 12);
	assert_int_equal(ev.time.mday, 6);
	assert_int_equal(ev.time.hour, 8);
	assert_int_equal(ev.time.sec, 28);
	assert_false(ev.time.has_offset);
	assert_int_equal(maillog_line(pf, strlen(pf), &ev),
	    MAILLOG_QUEUE_FROM);
	assert_int_equal(ev.time.mon, 1);
	assert_int_equal(ev.time.mday, 9);
	assert_int_equal(ev.time.sec, 60);
	assert_int_equal(maillog_line(rfc, strlen(rfc), &ev),
	    MAILLOG_QUEUE_FROM);
	assert_int_equal(ev.time.year, 2026);
	assert_int_equal(ev.time.hour, 23);
	assert_true(ev.time.has_offset);
	assert_int_equal(ev.time.offset_min, -(5 * 60 + 30));
}

/* ml_journal_message - the journal's fields, without a prefix */
static void
ml_journal_message(void **state)
{
	struct maillog_event ev;
	const char *msg = "Verified TLS connection established to "
	    "mx.example.com[192.0.2.1]:25: TLSv1.3 with cipher x";

	(void)state;
	assert_int_equal(maillog_message("postfix/smtp", 12, 42, msg,
	    strlen(msg), &ev), MAILLOG_TLS_ESTABLISHED);
	assert_int_equal(ev.pid, 42);
	assert_string_equal(ev.host, "mx.example.com");
	assert_false(ev.time.set);
	assert_int_equal(maillog_message("postfix/smtpd", 13, 42, msg,
	    strlen(msg), &ev), MAILLOG_IGNORED);
}

/* ml_too_long - a line past MAILLOG_MAX_LINE is malformed, unread */
static void
ml_too_long(void **state)
{
	struct maillog_event ev;
	char	*line = malloc(MAILLOG_MAX_LINE + 1);

	(void)state;
	assert_non_null(line);
	memset(line, 'x', MAILLOG_MAX_LINE + 1);
	assert_int_equal(maillog_line(line, MAILLOG_MAX_LINE + 1, &ev),
	    MAILLOG_MALFORMED);
	free(line);
}

/* ml_long_reason - the reason is cut to fit, never overflows */
static void
ml_long_reason(void **state)
{
	struct maillog_event ev;
	char	 line[1024];
	int	 n;

	(void)state;
	n = snprintf(line, sizeof(line), "Dec  6 08:13:28 mx postfix/smtp[5]: "
	    "server certificate verification failed for "
	    "mx.example.com[192.0.2.1]:25: %0600d", 7);
	assert_int_equal(maillog_line(line, (size_t)n, &ev),
	    MAILLOG_TLS_VERIFY_FAILED);
	assert_int_equal(strlen(ev.reason), MAILLOG_REASON_LEN - 1);
}

/* ml_names - every enum value has a name */
static void
ml_names(void **state)
{
	int	 r;

	(void)state;
	for (r = 0; r <= TLSRPT_RESULT_MAX; r++) {
		assert_string_not_equal(tlsrpt_result_name(r), "?");
		assert_int_equal(tlsrpt_result_from_name(tlsrpt_result_name(r)),
		    r);
	}
	assert_string_equal(tlsrpt_result_name(TLSRPT_RESULT_MAX + 1), "?");
	assert_int_equal(tlsrpt_result_from_name("bogus"), -1);
	for (r = 0; r <= TLSRPT_POLICY_MAX; r++)
		assert_int_equal(tlsrpt_policy_type_from_name(
		    tlsrpt_policy_type_name(r)), r);
	assert_string_equal(tlsrpt_result_name(TLSRPT_RESULT_TLSA_INVALID),
	    "tlsa-invalid");
	assert_string_equal(tlsrpt_policy_type_name(TLSRPT_POLICY_NONE),
	    "no-policy-found");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(ml_time_forms),
	cmocka_unit_test(ml_journal_message),
	cmocka_unit_test(ml_too_long),
	cmocka_unit_test(ml_long_reason),
	cmocka_unit_test(ml_names),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(ml_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(ml_cases); i++, n++) {
		tests[n].name = ml_cases[i].name;
		tests[n].test_func = run_ml_case;
		tests[n].initial_state = (void *)&ml_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("maillog", tests, NULL, NULL));
}
