/*
 * fleet_int.h - what the fleet client's own files share: not an interface
 *
 * The fleet client (fleet.h) is one module in three files, each calling
 * only into the ones before it: fleet_conn.c, the connection's state
 * machine (sentinel, connect, AUTH, down and the reconnect backoff);
 * fleet.c, the client and the life of one operation (accepted, sent,
 * answered or timed out, completed once) with the reads, the lease and
 * the tools' commands; fleet_update.c, the compare-and-set update and its
 * Lua script.  This header is theirs alone: the client's and an
 * operation's layout, and what a later file calls in an earlier one.
 * Nothing else includes it.
 */
#ifndef FLEET_INT_H
#define FLEET_INT_H

#include <sys/queue.h>
#include <sys/time.h>

#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>
#include <hiredis/async.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_record.h"

struct event;
struct event_base;

#define FLEET_KEY_MAX	(CONFIG_MAX_FLEET_PREFIX + \
	    sizeof(FLEET_LEASE_PREFIX) + CACHE_KEY_MAX + 1)
#define FLEET_TOKEN_LEN	64
#define FLEET_HOST_MAX	256	/* a master's address from a sentinel */
#define FLEET_SPEC_MAX	(FLEET_HOST_MAX + 2 * CONFIG_MAX_FLEET_PREFIX + 320)

enum fleet_state {
	FLEET_ST_DOWN,
	FLEET_ST_SENTINEL,	/* asking a sentinel for the master */
	FLEET_ST_CONNECTING,
	FLEET_ST_AUTH,
	FLEET_ST_UP,
};

enum fleet_op_kind {
	FLEET_OP_GET,
	FLEET_OP_CAS_GET,	/* update: reading the current value */
	FLEET_OP_CAS_SET,	/* update: the compare-and-set script */
	FLEET_OP_LEASE,
	FLEET_OP_UNLEASE,
	FLEET_OP_COMMAND,
	FLEET_OP_SCAN,
	FLEET_OP_CALL,
};

struct fleet_op {
	TAILQ_ENTRY(fleet_op) entry;
	struct fleet	*f;
	enum fleet_op_kind kind;
	struct event	*timer;
	int		 done;		/* completed; freed by the reply */
	int		 tries;
	char		 key[CACHE_KEY_MAX + 1];
	size_t		 klen;
	char		 rkey[FLEET_KEY_MAX];
	size_t		 rklen;
	fleet_get_cb	*get_cb;
	fleet_merge_fn	*merge;
	fleet_done_cb	*done_cb;
	fleet_reply_cb	*reply_cb;
	fleet_scan_cb	*scan_cb;
	fleet_call_cb	*call_cb;
	void		(*on_reply)(struct fleet_op *, redisReply *);
					/* its reply, after fleet_reply */
	void		*arg;
	int		 have_cur;	/* cur holds the value read */
	size_t		 curlen;
	unsigned char	 cur[FLEET_RECORD_MAX_LEN];
	size_t		 newlen;
	unsigned char	 val[FLEET_RECORD_MAX_LEN];
	struct cache_record rec;
};

struct fleet {
	struct event_base *base;
	const struct config_fleet *cf;
	redisAsyncContext *ac;
	enum fleet_state state;
	struct event	*retry;		/* reconnect / connect timeout */
	long		 backoff_ms;
	size_t		 server;	/* index into cf->servers or, with
					   sentinels, cf->sentinels */
	char		 spec[FLEET_SPEC_MAX];	/* where we connect(ed) */
	char		 master_host[FLEET_HOST_MAX];	/* the sentinel's */
	int		 master_port;		/* answer, valid while */
	int		 have_master;		/* have_master is set */
	int		 logged_down;	/* the last state logged was down */
	int		 readonly;	/* left for READONLY, no write since:
					   the backoff keeps doubling */
	int		 ever_up;
	size_t		 npending;
	TAILQ_HEAD(, fleet_op) pending;
	char		 token[FLEET_TOKEN_LEN];
	uint64_t	 counters[FLEET_C_COUNT];
	fleet_counter_hook *counter_hook;
	fleet_state_hook *state_hook;
	void		*hook_arg;
};

/* fleet_count - counter c += 1, and tell the hook */
static inline void
fleet_count(struct fleet *f, enum fleet_counter c)
{
	f->counters[c]++;
	if (f->counter_hook != NULL)
		f->counter_hook(c);
}

/* fleet_ms - a timeval of ms milliseconds */
static inline struct timeval
fleet_ms(long ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	return (tv);
}

/* -- fleet_conn.c, for fleet.c: the connection */

/* fleet_conn_start - make the reconnect timer, start connecting to the
 * first server (or sentinel) */
void	fleet_conn_start(struct fleet *f);

/*
 * fleet_conn_down - drop the connection (completing what is pending with
 * FLEET_DOWN through hiredis's NULL replies: fleet_op_reply), count and
 * log it, arm the reconnect to the next server after the backoff
 */
void	fleet_conn_down(struct fleet *f, const char *why);

/* fleet_conn_stop - for fleet_free: free the connection without going
 * down (the caller marked its operations done, so the NULL replies
 * complete nothing) and the reconnect timer */
void	fleet_conn_stop(struct fleet *f);

/* -- fleet.c, for fleet_update.c: one operation's life */

/* fleet_op_new - an operation on cache key key (NULL: none) whose Redis
 * key is the prefix, infix and key; NULL when not up, busy (both
 * counted) or for an invalid key */
struct fleet_op *fleet_op_new(struct fleet *f, enum fleet_op_kind kind,
	    const char *key, const char *infix);

/*
 * fleet_op_send - send argv for op and arm its timer; on_reply(op, reply)
 * gets the reply (fleet_op_reply has dealt with finished operations and
 * lost connections).  0, or -1 (op freed, nothing called) on failure
 */
int	fleet_op_send(struct fleet_op *op, void (*on_reply)(struct fleet_op *,
	    redisReply *), int argc, const char **argv, const size_t *argl);

/* fleet_op_free - unlink and free an operation */
void	fleet_op_free(struct fleet_op *op);

/* fleet_op_complete - call the operation's callback once with st (rec:
 * the record of a FLEET_HIT, else NULL) and stop its timer */
void	fleet_op_complete(struct fleet_op *op, enum fleet_status st,
	    const struct cache_record *rec);

/*
 * fleet_op_reply - the hiredis callback of every command (priv: the
 * operation): frees an operation that is finished already, completes
 * with FLEET_DOWN on a lost connection, else hands the reply to
 * op->on_reply
 */
void	fleet_op_reply(redisAsyncContext *ac, void *reply, void *priv);

/* fleet_op_decode - decode a value read for op into op->rec: FLEET_HIT or
 * FLEET_REFUSED (counted and logged) */
enum fleet_status fleet_op_decode(struct fleet_op *op, const unsigned char *p,
	    size_t len);

/* fleet_op_error - count and classify an unexpected reply (an OOM error:
 * FLEET_FULL; READONLY: the server is a replica, reconnect) */
enum fleet_status fleet_op_error(struct fleet_op *op, const redisReply *r);

#endif
