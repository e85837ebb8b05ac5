/*
 * maillog.h - the lines of Postfix's mail log a TLS reporter reads
 *
 * NAME
 *	maillog - parse one line of Postfix's log (smtp_tls_loglevel = 1)
 * SYNOPSIS
 *	maillog_line(line, len, &ev)		a syslog or maillog_file line
 *	maillog_message(prog, plen, pid, msg, mlen, &ev)
 *						a journal entry's fields
 * DESCRIPTION
 *	A line is "TIME HOST PROG[PID]: MESSAGE", TIME in the BSD syslog
 *	form ("Dec  6 08:13:15", Postfix's own maillog_file writes
 *	"Dec 06 08:13:15") or RFC 3339 ("2026-12-06T08:13:15.123+01:00",
 *	rsyslog's high-precision format).  PROG is Postfix's syslog_name
 *	and the service ("postfix/smtp", "postfix-out/smtp"); only its last
 *	component counts.  The messages read, by service:
 *
 *	smtp	"T TLS connection established to H[A]:P: ..." (T: Anonymous,
 *		Untrusted, Trusted, Verified): a TLS session; "... reused
 *		to ..." is no new handshake and is ignored
 *		"[server ]certificate verification failed for H[A]:P: WHY"
 *		"SSL_connect error to H[A]:P: WHY": a failed handshake
 *		"QID: to=<ADDR>, ..., relay=R, ..., status=S (TEXT)": a
 *		delivery attempt; TEXT may say why TLS failed ("TLS is
 *		required, but was not offered by host H[A]")
 *	qmgr	"QID: from=<ADDR>, size=...": the envelope sender
 *	cleanup	"QID: message-id=<ID>"
 *
 *	Everything else is MAILLOG_IGNORED; a line of those forms that does
 *	not parse (an unknown Postfix version's wording, a damaged line) is
 *	MAILLOG_MALFORMED.  The caller counts and logs those.
 *
 *	WHY is classified into an RFC 8460 §4.3 result type
 *	(maillog_verify_result) and kept, printable ASCII only, as the
 *	failure-reason-code.
 * LIMITS
 *	Lines longer than MAILLOG_MAX_LINE are MAILLOG_MALFORMED.  Every
 *	field is copied into a fixed array of the event, bounded; a field
 *	that does not fit makes the line malformed (or, for the reason
 *	text, is cut).  No allocation, no I/O, no NUL needed in the input:
 *	fuzzed by tests/fuzz/fuzz_maillog.c.
 */
#ifndef TLSRPT_MAILLOG_H
#define TLSRPT_MAILLOG_H

#include <stddef.h>

#include "lib/domain.h"
#include "tlsrpt/result.h"

#define MAILLOG_MAX_LINE	8192	/* bytes of one line */
#define MAILLOG_SERVICE_LEN	32	/* "smtp", "qmgr", "cleanup" + NUL */
#define MAILLOG_QID_LEN		32	/* long queue ids are ~17 */
#define MAILLOG_ADDR_LEN	46	/* INET6_ADDRSTRLEN */
#define MAILLOG_REASON_LEN	160	/* failure-reason-code, cut */
#define MAILLOG_MAILBOX_LEN	320	/* RFC 5321: 64 + '@' + 255 */
#define MAILLOG_MSGID_LEN	256

enum maillog_kind {
	MAILLOG_IGNORED = 0,		/* not a line the reporter needs */
	MAILLOG_MALFORMED,		/* of a needed form, but unreadable */
	MAILLOG_TLS_ESTABLISHED,	/* smtp: a handshake done: trust */
	MAILLOG_TLS_VERIFY_FAILED,	/* smtp: the certificate refused */
	MAILLOG_TLS_HANDSHAKE_FAILED,	/* smtp: SSL_connect error */
	MAILLOG_DELIVERY,		/* smtp: QID: to=<...> status=... */
	MAILLOG_QUEUE_FROM,		/* qmgr: QID: from=<...> */
	MAILLOG_MESSAGE_ID,		/* cleanup: QID: message-id=<...> */
};

/* How Postfix rated the peer of an established session (tls_client.c) */
enum maillog_trust {
	MAILLOG_TRUST_NONE = 0,
	MAILLOG_TRUST_ANONYMOUS,	/* no certificate */
	MAILLOG_TRUST_UNTRUSTED,	/* chain not verified */
	MAILLOG_TRUST_TRUSTED,		/* chain verified, name not checked */
	MAILLOG_TRUST_VERIFIED,		/* chain and name (or DANE) verified */
};

enum maillog_status {
	MAILLOG_STATUS_OTHER = 0,
	MAILLOG_STATUS_SENT,
	MAILLOG_STATUS_DEFERRED,
	MAILLOG_STATUS_BOUNCED,
	MAILLOG_STATUS_EXPIRED,
};

/* The time written in the line, as written (no time zone applied). */
struct maillog_time {
	int	 set;		/* the line had a readable time */
	int	 year;		/* 0 in the BSD form, which has none */
	int	 mon;		/* 1..12 */
	int	 mday, hour, min, sec;
	int	 has_offset;	/* RFC 3339: the UTC offset is known */
	int	 offset_min;	/* minutes east of UTC */
};

struct maillog_event {
	enum maillog_kind kind;
	struct maillog_time time;
	char	 service[MAILLOG_SERVICE_LEN];	/* "smtp", ... */
	long	 pid;				/* -1: none in the line */

	/* TLS events; for MAILLOG_DELIVERY the relay (host[addr]:port) */
	char	 host[DOMAIN_BUFSZ];		/* lower case */
	char	 addr[MAILLOG_ADDR_LEN];
	unsigned int port;
	enum maillog_trust trust;		/* MAILLOG_TLS_ESTABLISHED */
	enum tlsrpt_result result;		/* why TLS failed: verify and
						   handshake lines, and a
						   delivery whose text says */
	char	 reason[MAILLOG_REASON_LEN];	/* printable ASCII */

	/* queue lines */
	char	 qid[MAILLOG_QID_LEN];
	char	 mailbox[MAILLOG_MAILBOX_LEN];	/* to= / from= address */
	char	 domain[DOMAIN_BUFSZ];		/* its domain, normalized
						   (domain_normalize), or ""
						   if not a plain domain */
	int	 relay_none;			/* delivery: relay=none */
	enum maillog_status status;		/* delivery */
	char	 msgid[MAILLOG_MSGID_LEN];	/* MAILLOG_MESSAGE_ID */
};

/*
 * maillog_line - parse one log line p[0..len) (no newline) into *ev
 *
 * Returns ev->kind.  ev->time is set from the line's prefix; a line
 * without the "TIME HOST PROG[PID]: " prefix is MAILLOG_IGNORED (not
 * Postfix's), except that a prefix found unreadable after a plausible
 * time is MAILLOG_MALFORMED.
 */
enum maillog_kind maillog_line(const char *p, size_t len,
	    struct maillog_event *ev);

/*
 * maillog_message - parse the message of a log entry whose program name
 * (syslog identifier) is prog[0..proglen) and pid is pid (-1: unknown),
 * as the journal gives them; ev->time is left unset (the caller has the
 * entry's real time).  Returns ev->kind.
 */
enum maillog_kind maillog_message(const char *prog, size_t proglen, long pid,
	    const char *msg, size_t msglen, struct maillog_event *ev);

/*
 * maillog_verify_result - the RFC 8460 result type of a certificate
 * verification failure's WHY text p[0..len) (what Postfix and OpenSSL
 * print: "certificate has expired", "num=62:hostname mismatch",
 * "num=65:no matching DANE TLSA records", "untrusted issuer ...");
 * TLSRPT_RESULT_VALIDATION when the text is not recognized
 */
enum tlsrpt_result maillog_verify_result(const char *p, size_t len);

/* maillog_kind_name - "ignored", "malformed", "tls-established", ... */
const char	*maillog_kind_name(enum maillog_kind k);

/* maillog_trust_name - "none", "Anonymous", "Untrusted", "Trusted",
 * "Verified" */
const char	*maillog_trust_name(enum maillog_trust t);

#endif
