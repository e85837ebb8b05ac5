/*
 * fleetagg.h - the fleet's TLSRPT counts: every host's part of a domain's
 * day in Redis/Valkey, and one sender per report (issue 39)
 *
 * NAME
 *	fleetagg - a fleet aggregate beside the local store (store.h)
 * SYNOPSIS
 *	fa = fleetagg_new(cf, store, base)	NULL: no fleet section
 *	fleetagg_mark(store, day, domain)	in a batch's transaction
 *	fleetagg_push(fa)			the marked parts, up
 *	fleetagg_elect(fa, day, domain, now, &r, cb, arg)
 *	fleetagg_publish(fa, day, domain, &r)	the delivery state, up
 *	fleetagg_release(fa, day, domain)
 *	fleetagg_part_encode(&p, agg, &buf), fleetagg_part_decode(...)
 * DESCRIPTION
 *	The local store stays the source of truth: a batch that changes a
 *	domain's counts of a day also writes "fq/DAY/DOMAIN" = a sequence
 *	number ("fseq", one more each time) in the same transaction.  The
 *	push walks "fq/" and sends each part - this host's whole count of
 *	that domain and day, not a delta - with its sequence number to a
 *	Lua script that stores it only if the number is higher than the one
 *	stored for this host (the batch id: host id + sequence), so a push
 *	repeated after a kill -9, a timeout or a failover changes nothing;
 *	the "fq/" key is deleted once Redis acknowledged that sequence
 *	number.  Redis keys (P the fleet prefix, K = DAY:DOMAIN):
 *
 *	  P tlsrpt:p:K   hash  host -> sealed part (fleet_record_seal)
 *	  P tlsrpt:q:K   hash  host -> sequence number applied
 *	  P tlsrpt:f:K   hash  host -> "1" once its day is closed (final)
 *	  P tlsrpt:s:K   string  the sealed delivery state (rstate.h);
 *	                 its existence closes the parts: no push is taken
 *	                 after it (the script answers -1: "closed")
 *	  P tlsrpt:l:K   string  the sender's lease: its host id
 *
 *	all with a TTL past the report's retry window.  The election: a Lua
 *	script takes the lease (or finds another host's), and, holding it,
 *	returns the state and every part; without a state it first waits
 *	for every host seen to be final (until tlsrpt.fleet_deadline), then
 *	writes the first state, in the same script, so the parts a report
 *	is made of are fixed before it is built.  The parts are merged in C
 *	(agg_merge, sorted by host: the same bytes on every host).
 * LIMITS
 *	FLEETAGG_PUSH_MAX parts in flight; FLEETAGG_MAX_HOSTS hosts a report.
 */
#ifndef TLSRPT_FLEETAGG_H
#define TLSRPT_FLEETAGG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/buf.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/rstate.h"

struct config;
struct store;
struct event_base;
struct fleetagg;

#define FLEETAGG_PUSH_MAX	256	/* parts in flight at once */
#define FLEETAGG_MAX_HOSTS	64	/* parts merged into one report */
#define FLEETAGG_PART_VERSION	1	/* the payload's own version */
#define FLEETAGG_POLL		30	/* s: a host that lost the election
					   looks again */
#define FLEETAGG_WAIT		10	/* s: Redis down, our part not up,
					   a part not final: the report waits
					   (the send step runs every 30 s) */
#define FLEETAGG_HOST_LEN	65	/* CONFIG_MAX_TLSRPT_HOST_ID + NUL */

/* One host's part of a domain's day, as the fleet keeps it. */
struct fleetagg_part {
	uint64_t	 seq;		/* the batch that made it */
	int		 final;		/* the host closed the day */
	char		 host[FLEETAGG_HOST_LEN];
	char		 sip[MAILLOG_ADDR_LEN];	/* its sending-mta-ip */
};

/* The outcome of an election, for the send job. */
enum fleetagg_elect {
	FLEETAGG_SEND,		/* ours: *r and the merged counts in *a */
	FLEETAGG_DONE,		/* the fleet's report is done: *r */
	FLEETAGG_LATER,		/* held by another host, not final, not
				   due: try at *next */
	FLEETAGG_OWN,		/* past fleet_deadline without the fleet
				   (or our part refused): send our part */
};

typedef void	fleetagg_elect_cb(void *arg, enum fleetagg_elect e,
		    int64_t next);

/* fleetagg_new - the fleet aggregate for cf (fleet enabled and writable;
 * else NULL: a read-only edge counts and reports its own) */
struct fleetagg	*fleetagg_new(const struct config *cf, struct store *store,
		    struct event_base *base);
void		 fleetagg_free(struct fleetagg *fa);

/* fleetagg_up - Redis is reachable now */
int		 fleetagg_up(const struct fleetagg *fa);

/*
 * fleetagg_mark - in the caller's write transaction: the part of domain's
 * day is to be pushed ("fq/"), with the next sequence number: 0 or -1
 */
int		 fleetagg_mark(struct store *s, int64_t day, const char *domain);

/* fleetagg_pending - 1 if domain's day has a part not acknowledged yet
 * ("fq/"), or one the fleet refused ("fo/": closed before it came) */
int		 fleetagg_pending(struct store *s, int64_t day,
		    const char *domain);

/* fleetagg_push - send the marked parts (at most FLEETAGG_PUSH_MAX at
 * once); acknowledged ones are unmarked as their replies come */
void		 fleetagg_push(struct fleetagg *fa);

/*
 * fleetagg_elect - the sender of domain's day at now: cb(arg, outcome,
 * next) once, from the loop.  r: the local state, replaced by the fleet's
 * (FLEETAGG_SEND, FLEETAGG_DONE); a: replaced by the fleet's merged
 * counts (FLEETAGG_SEND).  Both must stay valid until cb.
 */
void		 fleetagg_elect(struct fleetagg *fa, int64_t day,
		    const char *domain, int64_t now, struct rstate *r,
		    struct agg *a, fleetagg_elect_cb *cb, void *arg);

/* fleetagg_publish - the delivery state r of domain's day, to the fleet
 * (an elected sender, after each local commit) */
void		 fleetagg_publish(struct fleetagg *fa, int64_t day,
		    const char *domain, const struct rstate *r, int64_t now);

/* fleetagg_release - give the sender's lease up (only if ours) */
void		 fleetagg_release(struct fleetagg *fa, int64_t day,
		    const char *domain);

/*
 * fleetagg_stats - --stats' view of the fleet's day, as comment lines
 * after the counters: for each domain this host counted today or
 * yesterday, "# fleet day=D domain=X sender=H state=S hosts=H:N,...
 * final=F/P" (S: counting, elected, retrying, sent, no-rua, given-up;
 * N each host's sessions, "(open)" before its day closed).  store: open,
 * read-only.  0, or 1 (Redis unreachable, an error): printed either way
 */
int		 fleetagg_stats(const struct config *cf, struct store *store,
		    int64_t now, FILE *fp);

/* fleetagg_host - this host's id (tlsrpt.host_id) */
const char	*fleetagg_host(const struct fleetagg *fa);

/*
 * fleetagg_part_encode - the payload of a part: p's header, then the
 * counts a (agg_encode); fleetagg_part_decode - check and parse payload
 * q[0..len) into *p and a (initialized): 0, or -1 (a left empty): another
 * FLEETAGG_PART_VERSION, a host id or address that is not one, counts
 * that do not decode, trailing bytes
 */
void		 fleetagg_part_encode(const struct fleetagg_part *p,
		    const struct agg *a, struct buf *b);
int		 fleetagg_part_decode(const void *q, size_t len,
		    struct fleetagg_part *p, struct agg *a);

/*
 * fleetagg_state_encode - the payload of the fleet's delivery state: a
 * version, the host that wrote it (writer), the rstate (rstate.h);
 * fleetagg_state_decode - check and parse one (writer: FLEETAGG_HOST_LEN
 * bytes): 0, or -1
 */
void		 fleetagg_state_encode(const char *writer,
		    const struct rstate *r, struct buf *b);
int		 fleetagg_state_decode(const void *q, size_t len, char *writer,
		    struct rstate *r);

/* fleetagg_host_ok - s[0..len) is a host id ([A-Za-z0-9._-], 1-64) */
int		 fleetagg_host_ok(const char *s, size_t len);

#endif
