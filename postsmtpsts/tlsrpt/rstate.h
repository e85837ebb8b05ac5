/*
 * rstate.h - where each report stands: the reporter's send state
 *
 * NAME
 *	rstate - the "r/DAY/DOMAIN" value, keys, and the Message-ID
 * SYNOPSIS
 *	rstate_encode(&r, &buf), rstate_decode(p, len, &r)
 *	rstate_key(out, 'c' | 'r', day, domain), rstate_key_parse()
 *	rstate_msgid(out, day, dest, domain, submitter), rstate_msgid_parse()
 * DESCRIPTION
 *	A report is made once for a policy domain and UTC day, when the
 *	day is over (and tlsrpt.send_delay has passed): the "r/" value is
 *	written, and from then on the day's counts ("c/") are closed (a
 *	session logged late is counted as late, never into a report already
 *	made: the report's bytes never change, so a retry sends the same
 *	report, with the same report-id).  Each destination (an rua URI) has
 *	its state:
 *
 *	  TODO     not tried yet, or to be tried again at next_try
 *	  INTENT   handed to sendmail(1) or POSTed, the outcome not yet
 *	           written: committed before the hand-over, so a crash
 *	           in between leaves INTENT, never TODO (no second copy
 *	           behind the operator's back: a mail in INTENT is SENT
 *	           as soon as the log shows its Message-ID in Postfix's
 *	           queue, and tried again only when it does not within
 *	           RSTATE_CONFIRM seconds; an https POST in INTENT is sent
 *	           again, with the same report-id, RFC 8460 §5.3's way for
 *	           a receiver to drop a duplicate)
 *	  SENT     taken (sendmail exit 0 or the queue's message-id line;
 *	           an HTTP 2xx)
 *	  FAILED   refused for good, or given up after tlsrpt.retry_for
 *
 *	and the report's status follows: PENDING while a destination is TODO
 *	or INTENT, DONE when one took it (RFC 8460 §3: one is enough) and
 *	none waits, FAILED when all failed, NO_RUA when the domain publishes
 *	no usable TLSRPT record (nothing to send; not an error).
 *
 *	Message-ID of the mail to destination i:
 *	"<tlsrpt.YYYYMMDD.i.DOMAIN@SUBMITTER>": the reporter finds its own
 *	mail in the log by it (loop prevention and confirmation).
 * LIMITS
 *	RUA_MAX_DESTS destinations.  Pure.
 */
#ifndef TLSRPT_RSTATE_H
#define TLSRPT_RSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "tlsrpt/rua.h"

#define RSTATE_WHY_LEN		160
#define RSTATE_CONFIRM		600	/* seconds a mail in INTENT waits for
					   its message-id line */
#define RSTATE_KEY_LEN		(2 + 10 + 1 + DOMAIN_MAX_LEN + 1)
#define RSTATE_MSGID_LEN	(8 + 8 + 1 + 4 + DOMAIN_MAX_LEN + 1 + \
				    DOMAIN_MAX_LEN + 2)

enum rstate_status {
	RSTATE_PENDING = 0,
	RSTATE_DONE,
	RSTATE_NO_RUA,
	RSTATE_FAILED,
};

enum rstate_dest_state {
	RDEST_TODO = 0,
	RDEST_INTENT,
	RDEST_SENT,
	RDEST_FAILED,
};

struct rstate_dest {
	char		 uri[RUA_MAX_URI + 1];
	enum rstate_dest_state state;
	uint32_t	 attempts;
	int64_t		 intent_at;	/* INTENT: when it was handed over */
	int64_t		 next_try;	/* TODO: not before */
	char		 why[RSTATE_WHY_LEN];	/* the last failure */
};

struct rstate {
	enum rstate_status status;
	int64_t		 created;	/* the day was closed */
	int64_t		 first_try;	/* 0: never tried */
	int64_t		 next_try;
	int64_t		 done_at;
	uint32_t	 attempts;	/* of the record lookup */
	uint32_t	 size;		/* gzip'd bytes of the report */
	int		 rua_known;	/* dest[] holds the record's URIs */
	size_t		 ndest;
	struct rstate_dest dest[RUA_MAX_DESTS];
	char		 why[RSTATE_WHY_LEN];
};

void	rstate_init(struct rstate *r, int64_t now);
void	rstate_encode(const struct rstate *r, struct buf *b);
/* rstate_decode - 0, or -1 (r is then as after rstate_init(r, 0)) */
int	rstate_decode(const void *p, size_t len, struct rstate *r);

/*
 * rstate_deletable - may the state of a domain's day (its "c/" counts and
 * its "r/" state r, NULL when none) be deleted at now: the day is more
 * than keep_days old, and its report is not still to be sent.  A pending
 * report keeps both (the report is made from the counts when it is sent)
 * until it is done or given up (retry_for): a day that passed keep_days
 * while it waited (the reporter down, the clock stepped forward) is sent,
 * not dropped.
 */
int	rstate_deletable(const struct rstate *r, int64_t day, int keep_days,
	    int64_t now);

/* rstate_status_name - "pending", "done", "no-rua", "failed";
 * rstate_dest_name - "todo", "intent", "sent", "failed" */
const char *rstate_status_name(enum rstate_status s);
const char *rstate_dest_name(enum rstate_dest_state s);

/* rstate_key - "K/YYYY-MM-DD/DOMAIN" into out (RSTATE_KEY_LEN) */
const char *rstate_key(char *out, char kind, int64_t day,
	    const char *domain);
/* rstate_key_parse - day and domain (DOMAIN_BUFSZ) of such a key: 0/-1 */
int	rstate_key_parse(const char *key, int64_t *day, char *domain);

/* rstate_msgid - the Message-ID of the mail to destination dest, into out
 * (RSTATE_MSGID_LEN), with its angle brackets */
const char *rstate_msgid(char *out, int64_t day, size_t dest,
	    const char *domain, const char *submitter);
/* rstate_msgid_parse - the day, destination and domain of one of our
 * Message-IDs p[0..len) (as Postfix logs it, with brackets) sent as
 * submitter: 0, or -1 if it is not one */
int	rstate_msgid_parse(const char *p, size_t len, const char *submitter,
	    int64_t *day, size_t *dest, char *domain);

#endif
