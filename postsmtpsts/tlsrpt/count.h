/*
 * count.h - from log lines to the day's counts, one batch at a time
 *
 * NAME
 *	count - the reporter's counting pipeline
 * SYNOPSIS
 *	count_open(&c, cf, store), count_close(&c)
 *	count_batch(&c, follow, max)
 * DESCRIPTION
 *	One batch is one write transaction of the reporter's database
 *	(store.h): up to max lines are read (follow.h), parsed (maillog.h),
 *	joined into sessions (session.h); each session's policy domain is
 *	looked up in the daemon's cache, read-only, and decided as the
 *	worker decides it (facts_decide(), pins first), named and judged
 *	(verdict.h) and added to the domain's counts of the session's UTC
 *	day (agg.h, key "c/DAY/DOMAIN").  Then the pending session lines,
 *	the log position and the counters are written, and the transaction
 *	is committed: all of it or nothing (store.h, crash safety).
 *
 *	Sessions that are not counted, each counted by why: the policy
 *	could not be named (nothing cached, a pinned domain, a TEMP
 *	answer: "unknown"), its type is not in tlsrpt.policy_types
 *	("excluded"), its day's report is made already ("late").
 *	The cleanup line of one of the reporter's own mails
 *	(rstate_msgid) marks its queue id (no report on reports) and
 *	confirms that destination (SENT).
 *
 *	With tlsrpt.input = socket the log gives no session at all (the
 *	datagrams do: count_dgrams), only those cleanup lines: the same
 *	delivery is never counted from both.  Journal entries that
 *	journald's trusted fields do not show as Postfix's (origin.h) are
 *	refused before anything is read from them, counted by why.
 *
 *	A line's time: the journal's; a file line's own (BSD syslog time:
 *	local time of this year, last year if that is more than a day
 *	ahead; RFC 3339: as written); the clock's if it has none.
 */
#ifndef TLSRPT_COUNT_H
#define TLSRPT_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/cache_record.h"
#include "tlsrpt/dgram.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/origin.h"

struct config;
struct config_map;
struct store;
struct follow;
struct collect;
struct cache;
struct session_table;
struct sts_policy;

/* What a batch did, added to the counters "m/..." when it commits. */
struct count_stats {
	uint64_t	 lines;
	uint64_t	 malformed;	/* of a needed form, unreadable */
	uint64_t	 sessions;	/* counted into a report */
	uint64_t	 success;
	uint64_t	 failure;
	uint64_t	 unknown;	/* policy not named: not counted */
	uint64_t	 excluded;	/* type not in policy_types */
	uint64_t	 late;		/* the day's report was made */
	uint64_t	 confirmed;	/* own mails seen in the queue */
	uint64_t	 refused_lines[ORIGIN_UNIT + 1]; /* journal entries not
					   Postfix's, by origin_verdict */
	uint64_t	 datagrams;	/* datagrams read */
	uint64_t	 refused_sender; /* datagrams not from a trusted user */
	uint64_t	 refused[DGRAM_STATUS_MAX + 1]; /* datagrams refused,
					   by dgram_status */
	uint64_t	 backlog;	/* batches that found more waiting */
};

/* A refusal's log line: at most one a minute per kind, with how many
 * were not logged since. */
struct count_ratelimit {
	int64_t		 last;
	uint64_t	 quiet;
};

struct count {
	const struct config *cf;
	const struct config_map *map;
	struct store	*store;
	struct cache	*cache;		/* the daemon's, read-only; NULL
					   until it opens */
	int64_t		 cache_retry;
	struct session_table *sessions;
	struct sts_policy *pol;
	struct buf	 reply;
	struct buf	 enc;
	struct buf	 mx;
	struct cache_record rec, dane;
	int64_t		 now;
	int64_t		 step_wall, step_mono; /* the clocks at the last batch:
					   a wall-clock step is their
					   difference moving (count_step) */
	int		 error;		/* a write of this batch failed */
	struct origin	 origin;	/* who may feed it */
	struct dgram	*dg;		/* input socket: the one being read */
	struct count_ratelimit rl_lines[ORIGIN_UNIT + 1]; /* by verdict: a
					   flood of one kind of forgery
					   hides no other kind */
	struct count_ratelimit rl_sender, rl_dgram, rl_lost;
	uint64_t	 lost_quiet;	/* datagrams lost since the last
					   "not committed" line */
	struct count_stats batch;
	struct count_stats total;	/* since start, committed batches */
};

/* count_open - set up for cf (tlsrpt.map must exist) on store; loads the
 * pending session lines: 0, or -1 (logged) */
int	count_open(struct count *c, const struct config *cf,
	    struct store *store);
void	count_close(struct count *c);

/*
 * count_batch - one batch of up to max lines from f, committed: returns
 * the number of lines (0: nothing new), or -1 if nothing was committed
 * (the caller re-opens f at the stored position and count_reload()s)
 */
long	count_batch(struct count *c, struct follow *f, size_t max);

/*
 * count_dgrams - one batch of up to max datagrams from the socket (input
 * socket), committed; each datagram's sender checked (origin.h), parsed
 * (dgram.h), each of its policies one session of its domain's day, as a
 * log session: returns the number read (0: none waiting), or -1 if
 * nothing was committed (those datagrams are lost: logged)
 */
long	count_dgrams(struct count *c, struct collect *in, size_t max);

/* count_reload - the pending session lines again from the store */
int	count_reload(struct count *c);

/* count_stored_pos - the committed log position into out (0: there is
 * one, 1: none yet, -1: error) */
int	count_stored_pos(struct store *s, struct buf *out);

/* count_line_time - the Unix time of a line's time t at now (see above) */
int64_t	count_line_time(const struct maillog_time *t, int64_t now);

#endif
