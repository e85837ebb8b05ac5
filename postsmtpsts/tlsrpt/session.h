/*
 * session.h - TLS sessions out of Postfix's log lines
 *
 * NAME
 *	session - join each smtp(8) process's TLS lines with its delivery
 * SYNOPSIS
 *	session_init(&t, report_sender)
 *	session_event(&t, &ev, when, emit, arg)	one parsed log line
 *	session_expire(&t, now), session_shift(&t, step)
 *	session_encode(&t, &buf), session_decode(p, len, &t)
 * DESCRIPTION
 *	Postfix logs a session's TLS outcome (maillog.h) without its queue
 *	id, from the smtp(8) process that then logs the delivery attempt
 *	("QID: to=<rcpt>, relay=..., status=..."): one process delivers one
 *	request (one next hop) at a time.  So the TLS lines of a process
 *	are kept, per peer (host, address, port), until that process logs
 *	a delivery; then each becomes one outcome for the recipient's
 *	domain, the policy domain (RFC 8460 §3: the domain the policy and
 *	the report are for).  A session is:
 *	  - a handshake: "T TLS connection established" (with the trust T)
 *	    after any verification failure lines for that peer;
 *	  - a handshake that failed (SSL_connect error);
 *	  - a failure named only in the delivery's status text ("TLS is
 *	    required, but was not offered by host H[A]"): counted once per
 *	    delivery and peer, not once per recipient line, and not when
 *	    the same peer's handshake already made a session.
 *	A delivery with no TLS line is no session: Postfix logs nothing
 *	for a session it reused or one in plain text, and guessing would
 *	count wrong (DESIGN.md, "TLSRPT").  relay=none (no peer contacted)
 *	drops the process's pending lines.
 *
 *	Loop prevention (RFC 8460 §5.3: never report on the reports):
 *	qmgr's "from=<report_sender>" line marks its queue id, and so does
 *	session_mark_report() (the reporter finds its own reports by their
 *	Message-ID); the sessions of a marked queue id are dropped.
 * LIMITS
 *	SESSION_MAX_PROCS processes with pending lines (the oldest goes
 *	first), SESSION_MAX_PEERS peers per process, SESSION_MAX_MARKS
 *	marked queue ids; pending lines older than SESSION_MAX_AGE seconds
 *	are dropped by session_expire().  Every drop is counted.  The table
 *	is a fixed-size struct (allocate it): no allocation inside, no I/O,
 *	no clock (times come in).  session_encode() writes only what is in
 *	use, so the reporter can commit it with each batch (store.h).
 */
#ifndef TLSRPT_SESSION_H
#define TLSRPT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "tlsrpt/maillog.h"

#define SESSION_MAX_PROCS	256	/* smtp(8) processes (Postfix's
					   default_process_limit is 100) */
#define SESSION_MAX_PEERS	8	/* per delivery: smtp_mx_address_limit
					   is 5 */
#define SESSION_MAX_MARKS	256	/* report queue ids remembered */
#define SESSION_MAX_AGE		3600	/* pending lines kept, seconds */
#define SESSION_MARK_AGE	(2 * 86400) /* report queue ids kept */

/* One session's outcome, for the recipient domain of its delivery. */
struct session_outcome {
	const char	*domain;	/* normalized policy domain */
	const char	*qid;
	const char	*host;		/* receiving-mx-hostname */
	const char	*addr;		/* receiving-ip */
	enum maillog_trust trust;	/* NONE: no handshake completed */
	enum tlsrpt_result result;	/* a failure Postfix logged, or NONE */
	const char	*reason;	/* its text (failure-reason-code) */
	int64_t		 when;		/* of the handshake line */
};

typedef void	session_emit_fn(const struct session_outcome *o, void *arg);

struct session_peer {
	char		 host[DOMAIN_BUFSZ];
	char		 addr[MAILLOG_ADDR_LEN];
	unsigned int	 port;
	enum maillog_trust trust;
	enum tlsrpt_result result;
	char		 reason[MAILLOG_REASON_LEN];
	int		 done;		/* handshake ended (established or
					   failed): a new line for this peer
					   is a new session */
	int64_t		 when;
};

struct session_proc {
	long		 pid;
	int64_t		 last;		/* time of its last line */
	size_t		 npeers;
	struct session_peer peers[SESSION_MAX_PEERS];
	/* the last failure taken from a delivery's text, so that the other
	 * recipients' lines of the same delivery do not count it again */
	char		 text_qid[MAILLOG_QID_LEN];
	char		 text_addr[MAILLOG_ADDR_LEN];
};

struct session_mark {
	char		 qid[MAILLOG_QID_LEN];
	int64_t		 when;
};

struct session_stats {
	uint64_t	 sessions;	/* outcomes emitted */
	uint64_t	 report_sessions; /* dropped: a report's own delivery */
	uint64_t	 unattributed;	/* dropped: no domain, relay=none */
	uint64_t	 expired;	/* dropped: no delivery line came */
	uint64_t	 overflow;	/* dropped: a table was full */
};

struct session_table {
	char		 report_sender[MAILLOG_MAILBOX_LEN]; /* lower case */
	size_t		 nprocs;
	struct session_proc procs[SESSION_MAX_PROCS];
	size_t		 nmarks;
	struct session_mark marks[SESSION_MAX_MARKS];
	struct session_stats stats;
};

/* session_init - an empty table; report_sender (NULL: none) is the
 * envelope sender of the reporter's own mail */
void	session_init(struct session_table *t, const char *report_sender);

/*
 * session_event - take one parsed line at time when; emit(o, arg) is
 * called for every session the line completes (during the call only)
 */
void	session_event(struct session_table *t, const struct maillog_event *ev,
	    int64_t when, session_emit_fn *emit, void *arg);

/* session_mark_report - qid is one of the reporter's own messages */
void	session_mark_report(struct session_table *t, const char *qid,
	    int64_t when);

/* session_expire - drop pending lines older than SESSION_MAX_AGE and
 * marks older than SESSION_MARK_AGE at now */
void	session_expire(struct session_table *t, int64_t now);

/* session_shift - the wall clock stepped by step seconds (count.c saw
 * it against the monotonic clock): every pending line's and mark's time
 * moves with it, so that session_expire() measures their age in time
 * that passed */
void	session_shift(struct session_table *t, int64_t step);

/* session_pending - how many peers wait for a delivery line */
size_t	session_pending(const struct session_table *t);

/*
 * session_encode - append the table (report_sender excluded: it comes
 * from the configuration) to b; session_decode - read it back into t,
 * whose report_sender is kept.  Decode returns 0, or -1 (t is then
 * empty: a damaged value costs the pending lines, never a count)
 */
void	session_encode(const struct session_table *t, struct buf *b);
int	session_decode(const void *p, size_t len, struct session_table *t);

#endif
