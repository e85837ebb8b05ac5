/*
 * fleet.h - the fleet tier: a Redis/Valkey shared by many hosts, behind
 * the local LMDB cache
 *
 * NAME
 *	fleet - asynchronous client of the shared record store (hiredis +
 *	libevent)
 * SYNOPSIS
 *	f = fleet_new(base, &cf->fleet);
 *	fleet_get(f, key, cb, arg);		read one record
 *	fleet_update(f, key, merge, done, arg);	compare-and-set one record
 *	fleet_lease(f, key, ms, done, arg);	SET NX PX: one discovery
 *	fleet_unlease(f, key);			fleet-wide
 *	fleet_free(f);
 * DESCRIPTION
 *	Only the resolver process (and postsmtpsts-cache push/pull) talks to
 *	the fleet; workers answer from LMDB and never wait for Redis.  Keys
 *	are the configured prefix + the cache key (domain or "dane:" +
 *	domain); leases are prefix + "lease:" + domain.  Values are
 *	fleet_record.h values (cache record bytes, optional HMAC).
 *
 *	Every operation is bounded by fleet.timeout: a reply that does not
 *	come in time completes the operation with FLEET_TIMEOUT, drops the
 *	connection (a server that is that slow is treated as down) and
 *	reconnects with a backoff (FLEET_BACKOFF_MIN_MS doubling to
 *	FLEET_BACKOFF_MAX_MS, trying the configured servers in turn).  While
 *	the connection is not up, operations are refused at once (they
 *	return -1 and call nothing) so the caller goes on locally.  Each
 *	change of state (up, down) is logged once; every case is counted
 *	(fleet_counter, reported through the hook).
 *
 *	fleet_update() is a compare-and-set loop: GET the current value,
 *	decode it (a value that does not decode or fails its MAC counts as
 *	absent: a signed record replaces it), ask the caller's merge
 *	function for the record to store, then write it with a short Lua
 *	script that compares the value's bytes and sets it only if they did
 *	not change (EVAL; the merge rule stays in C, fleet_facts.h).  When
 *	another host wrote meanwhile, the script returns the new value and
 *	the loop merges again, up to FLEET_CAS_TRIES times.  The key expires
 *	with the record (fleet_record_ttl).
 *
 *	Callbacks run from the event loop, never from inside the call that
 *	started the operation, exactly once per accepted operation.  They
 *	must not call fleet_free().
 * LIMITS
 *	FLEET_MAX_PENDING operations in flight; more are refused (-1,
 *	counted as FLEET_C_BUSY).
 */
#ifndef FLEET_H
#define FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"

struct event_base;
struct config_fleet;
struct fleet;

#define FLEET_MAX_PENDING	4096
#define FLEET_CAS_TRIES		5
#define FLEET_BACKOFF_MIN_MS	100
#define FLEET_BACKOFF_MAX_MS	5000
#define FLEET_LEASE_PREFIX	"lease:"

/* How an operation ended. */
enum fleet_status {
	FLEET_OK = 0,		/* update written; lease acquired */
	FLEET_HIT,		/* get: *rec holds the fleet's record */
	FLEET_MISS,		/* get: no record */
	FLEET_REFUSED,		/* get: a value that did not decode or
				   failed its MAC (counted by kind) */
	FLEET_UNCHANGED,	/* update: merge said there is nothing to
				   write */
	FLEET_HELD,		/* lease: another host holds it */
	FLEET_CONFLICT,		/* update: FLEET_CAS_TRIES conflicts */
	FLEET_FULL,		/* update: Redis refused (OOM, maxmemory) */
	FLEET_TIMEOUT,		/* no reply within the timeout */
	FLEET_DOWN,		/* the connection went down meanwhile */
	FLEET_ERROR,		/* an error reply or a bad reply */
	FLEET_STATUS_COUNT,
};

/* Counters (reported one increment at a time to the hook). */
enum fleet_counter {
	FLEET_C_GET_HIT = 0,
	FLEET_C_GET_MISS,
	FLEET_C_BAD_MAC,	/* value with a wrong MAC */
	FLEET_C_UNSIGNED,	/* value without a MAC, key configured */
	FLEET_C_UNDECODABLE,	/* any other value that did not decode */
	FLEET_C_WRITE,		/* compare-and-set written */
	FLEET_C_WRITE_UNCHANGED,	/* merge kept the fleet's record */
	FLEET_C_CONFLICT,	/* one compare-and-set lost a race */
	FLEET_C_FULL,		/* write refused: OOM */
	FLEET_C_ERROR,		/* error or unexpected replies */
	FLEET_C_TIMEOUT,
	FLEET_C_DOWN,		/* refused: connection not up */
	FLEET_C_BUSY,		/* refused: FLEET_MAX_PENDING reached */
	FLEET_C_CONNECT,	/* connection (re)established */
	FLEET_C_CONNECT_FAIL,	/* connect or AUTH failed */
	FLEET_C_DISCONNECT,	/* an established connection lost */
	FLEET_C_LEASE_WON,
	FLEET_C_LEASE_HELD,
	FLEET_C_COUNT,
};

typedef void	fleet_get_cb(void *arg, enum fleet_status st,
		    const struct cache_record *rec);
/* merge: cur is the fleet's record (NULL if none or unusable); fill *out
 * and return 1 to write it, 0 to leave the fleet's record as it is */
typedef int	fleet_merge_fn(void *arg, const struct cache_record *cur,
		    struct cache_record *out);
typedef void	fleet_done_cb(void *arg, enum fleet_status st);
typedef void	fleet_counter_hook(enum fleet_counter c);
/* state: 1 when the connection came up, 0 when it went down */
typedef void	fleet_state_hook(void *arg, int up);

/*
 * fleet_new - a client for cf (enabled) on base; starts connecting at once
 * (a server that is down at start is no error: the client retries).
 * Never NULL.  writable: 0 forces read-only (tools' pull).
 */
struct fleet *fleet_new(struct event_base *base, const struct config_fleet *cf);
/* fleet_free - drop the connection, complete nothing more; NULL no-op */
void	fleet_free(struct fleet *f);

/* fleet_set_hooks - counter hook (NULL: none), state hook and its arg */
void	fleet_set_hooks(struct fleet *f, fleet_counter_hook *counter,
	    fleet_state_hook *state, void *arg);

/* fleet_up - 1 if operations are accepted now */
int	fleet_up(const struct fleet *f);
/* fleet_writable - 1 unless mode = read-only */
int	fleet_writable(const struct fleet *f);
/* fleet_counters - the counters since fleet_new, FLEET_C_COUNT of them */
const uint64_t *fleet_counters(const struct fleet *f);
/* fleet_server - the spec of the server in use or tried last */
const char *fleet_server(const struct fleet *f);

/*
 * fleet_get - read cache key key (NUL-terminated); cb gets FLEET_HIT with
 * the record, FLEET_MISS, FLEET_REFUSED, FLEET_TIMEOUT, FLEET_DOWN or
 * FLEET_ERROR.  0, or -1 (not up, busy, invalid key): cb is not called.
 */
int	fleet_get(struct fleet *f, const char *key, fleet_get_cb *cb,
	    void *arg);

/*
 * fleet_update - compare-and-set key with merge (see above); done (may be
 * NULL) gets FLEET_OK, FLEET_UNCHANGED, FLEET_CONFLICT, FLEET_FULL,
 * FLEET_TIMEOUT, FLEET_DOWN or FLEET_ERROR.  arg must stay valid until
 * done is called (merge may be called several times).  -1 as for
 * fleet_get, and in read-only mode.
 */
int	fleet_update(struct fleet *f, const char *key, fleet_merge_fn *merge,
	    fleet_done_cb *done, void *arg);

/*
 * fleet_lease - try to take domain's discovery lease for ms milliseconds
 * (SET NX PX); done gets FLEET_OK (ours), FLEET_HELD, or a failure.
 * -1 as for fleet_update.
 */
int	fleet_lease(struct fleet *f, const char *domain, int ms,
	    fleet_done_cb *done, void *arg);
/* fleet_unlease - release our lease on domain (only if still ours) */
void	fleet_unlease(struct fleet *f, const char *domain);

/*
 * fleet_command - send any command (argv), for postsmtpsts-cache: cb gets
 * the reply's type and string (integer as decimal) or NULL.  -1 if not up.
 */
typedef void	fleet_reply_cb(void *arg, enum fleet_status st,
		    const char *text, size_t len);
int	fleet_command(struct fleet *f, int argc, const char **argv,
	    fleet_reply_cb *cb, void *arg);

/*
 * fleet_call - send a command of binary-safe arguments (argv[i] of
 * argl[i] bytes, at most FLEET_CALL_MAX_ARGS), for the reporter's fleet
 * aggregate (tlsrpt/fleetagg.h: EVAL of its scripts).  cb gets FLEET_OK
 * and the reply as n values (a string, status or integer: n = 1; an
 * array of those: its elements, a nil element as len 0 with p NULL),
 * FLEET_MISS (nil), or a failure (an error reply: FLEET_ERROR, OOM:
 * FLEET_FULL, READONLY: FLEET_DOWN and the next server, as for updates).
 * Values are valid during cb only.  -1 if not up, busy, or read-only
 * (every call may write).
 */
#define FLEET_CALL_MAX_ARGS	16
#define FLEET_CALL_MAX_VALUES	4096	/* array elements; more: an error */
struct fleet_value {
	const char	*p;		/* NULL: nil */
	size_t		 len;
	long long	 integer;	/* an integer reply's value */
	int		 is_int;
};
typedef void	fleet_call_cb(void *arg, enum fleet_status st,
		    const struct fleet_value *v, size_t n);
int	fleet_call(struct fleet *f, int argc, const char **argv,
	    const size_t *argl, fleet_call_cb *cb, void *arg);

/*
 * fleet_scan - one SCAN step over this fleet's record keys (prefix + "*"),
 * for postsmtpsts-cache pull and fleet-stats: cb gets the next cursor
 * ("0" when the walk is over) and the cache keys of this step (the
 * prefix removed; leases and keys that are no cache key left out).
 * -1 if not up.
 */
#define FLEET_SCAN_COUNT	256
typedef void	fleet_scan_cb(void *arg, enum fleet_status st,
		    const char *cursor, const char *const *keys, size_t n);
int	fleet_scan(struct fleet *f, const char *cursor, fleet_scan_cb *cb,
	    void *arg);

/* "ok", "hit", "miss", "refused", ... */
const char *fleet_status_name(enum fleet_status st);
/* counter names for the tool: "get-hit", ... (stats.c: the same) */
const char *fleet_counter_name(enum fleet_counter c);

#endif
