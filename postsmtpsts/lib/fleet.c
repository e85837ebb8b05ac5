/*
 * fleet.c - asynchronous client of the fleet tier (interface: fleet.h)
 *
 * hiredis (async API, 0.14 in Debian 12) with its libevent adapter: the
 * protocol is hiredis's business, this file only sequences commands.
 * hiredis 0.14 has no connect or command timeouts, so each operation
 * carries its own libevent timer, and the connection its connect timer.
 *
 * States: DOWN (no context; a reconnect timer armed) -> CONNECTING ->
 * (AUTH sent, when a password is configured) -> UP.  Operations are taken
 * only when UP.  Any timeout, connect failure, AUTH failure or lost
 * connection goes back to DOWN: redisAsyncFree() calls every pending
 * command's callback with a NULL reply, which completes the operations
 * not yet completed with FLEET_DOWN (an operation that timed out was
 * completed already and is only freed there).
 *
 * Wire: GET key; EVAL of FLEET_CAS_SCRIPT (compare bytes, SET PX); SET
 * lease token NX PX ms; EVAL of FLEET_UNLEASE_SCRIPT; AUTH [user] pass.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/time.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

#include "lib/clock.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_record.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/*
 * KEYS[1] the record; ARGV[1] "1" if a value was read, "0" if none;
 * ARGV[2] the value read; ARGV[3] the new value; ARGV[4] its TTL in ms.
 * Returns 1 when written, else what is there now: 0 (nothing) or {value}.
 */
#define FLEET_CAS_SCRIPT \
	"local v = redis.call('GET', KEYS[1]) " \
	"if (ARGV[1] == '0' and v == false) or " \
	"(ARGV[1] == '1' and v == ARGV[2]) then " \
	"redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) return 1 end " \
	"if v == false then return 0 end return {v}"
/* KEYS[1] the lease, ARGV[1] our token: delete only our own lease */
#define FLEET_UNLEASE_SCRIPT \
	"if redis.call('GET', KEYS[1]) == ARGV[1] then " \
	"return redis.call('DEL', KEYS[1]) end return 0"

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
	int		 ever_up;
	size_t		 npending;
	TAILQ_HEAD(, fleet_op) pending;
	char		 token[FLEET_TOKEN_LEN];
	uint64_t	 counters[FLEET_C_COUNT];
	fleet_counter_hook *counter_hook;
	fleet_state_hook *state_hook;
	void		*hook_arg;
};

static unsigned int fleet_serial;	/* clients made by this process */

static void	fleet_connect(struct fleet *);
static void	fleet_sentinel_cb(redisAsyncContext *, void *, void *);
static void	fleet_down(struct fleet *, const char *);
static void	fleet_cas_merge(struct fleet_op *);

/* fleet_count - counter c += 1, and tell the hook */
static void
fleet_count(struct fleet *f, enum fleet_counter c)
{
	f->counters[c]++;
	if (f->counter_hook != NULL)
		f->counter_hook(c);
}

/* fleet_ms - a timeval of ms milliseconds */
static struct timeval
fleet_ms(long ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	return (tv);
}

/* fleet_op_free - unlink and free an operation */
static void
fleet_op_free(struct fleet_op *op)
{
	struct fleet	*f = op->f;

	TAILQ_REMOVE(&f->pending, op, entry);
	f->npending--;
	if (op->timer != NULL)
		event_free(op->timer);
	cache_record_release(&op->rec);
	free(op);
}

/* fleet_complete - call the operation's callback once with st */
static void
fleet_complete(struct fleet_op *op, enum fleet_status st,
    const struct cache_record *rec)
{
	if (op->done)
		return;
	op->done = 1;
	if (op->timer != NULL)
		evtimer_del(op->timer);
	switch (op->kind) {
	case FLEET_OP_GET:
		if (op->get_cb != NULL)
			op->get_cb(op->arg, st, rec);
		break;
	case FLEET_OP_COMMAND:
		if (op->reply_cb != NULL)
			op->reply_cb(op->arg, st, NULL, 0);
		break;
	case FLEET_OP_SCAN:
		if (op->scan_cb != NULL)
			op->scan_cb(op->arg, st, "0", NULL, 0);
		break;
	default:
		if (op->done_cb != NULL)
			op->done_cb(op->arg, st);
		break;
	}
}

/* fleet_nservers - how many addresses are tried in turn */
static size_t
fleet_nservers(const struct fleet *f)
{
	size_t	 n;

	(void)config_fleet_list(f->cf, &n, NULL);
	return (n);
}

/* fleet_state_change - log once per change, tell the hook */
static void
fleet_state_change(struct fleet *f, int up, const char *why)
{
	const char *srv = f->spec;

	if (up) {
		log_info("fleet: connected to %s%s", srv, f->ever_up ?
		    " again: sharing resumes" : "");
		f->logged_down = 0;
		f->ever_up = 1;
	} else if (!f->logged_down) {
		log_warnx("fleet: %s %s: %s; answering and discovering "
		    "locally, reconnecting with backoff", f->ever_up ?
		    "lost" : "cannot reach", srv, why);
		f->logged_down = 1;
	}
	if (f->state_hook != NULL)
		f->state_hook(f->hook_arg, up);
}

/* fleet_retry_cb - the reconnect timer, or the connect timeout */
static void
fleet_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fleet	*f = arg;

	(void)fd;
	(void)what;
	if (f->state == FLEET_ST_DOWN)
		fleet_connect(f);
	else if (f->state != FLEET_ST_UP)
		fleet_down(f, "connect timeout");
}

/*
 * fleet_down - drop the connection (completing what is pending with
 * FLEET_DOWN through hiredis's NULL replies), arm the reconnect
 */
static void
fleet_down(struct fleet *f, const char *why)
{
	redisAsyncContext *ac = f->ac;
	struct timeval	 tv;
	int		 was_up = f->state == FLEET_ST_UP;

	f->ac = NULL;
	f->state = FLEET_ST_DOWN;
	if (ac != NULL) {
		ac->data = NULL;
		redisAsyncFree(ac);	/* deferred when inside a callback */
	}
	if (was_up)
		fleet_count(f, FLEET_C_DISCONNECT);
	else
		fleet_count(f, FLEET_C_CONNECT_FAIL);
	if (was_up || !f->logged_down)
		fleet_state_change(f, 0, why);
	/* the next server (or sentinel: ask again, the master may have
	 * changed), after a backoff that doubles while all fail */
	f->have_master = 0;
	f->server = (f->server + 1) % fleet_nservers(f);
	if (was_up)
		f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	tv = fleet_ms(f->backoff_ms);
	evtimer_add(f->retry, &tv);
	if (f->server == 0 || fleet_nservers(f) == 1) {
		f->backoff_ms *= 2;
		if (f->backoff_ms > FLEET_BACKOFF_MAX_MS)
			f->backoff_ms = FLEET_BACKOFF_MAX_MS;
	}
}

/* fleet_auth_cb - AUTH answered: up, or down */
static void
fleet_auth_cb(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet	*f = priv;
	redisReply	*r = reply;
	char		 esc[LOG_ESCAPE_MAX + 8];

	if (r == NULL || ac->data == NULL || f->ac != ac)
		return;
	if (r->type != REDIS_REPLY_STATUS) {
		log_warnx("fleet: AUTH at %s refused: %s", f->spec,
		    r->type == REDIS_REPLY_ERROR ? log_escape(esc,
		    sizeof(esc), r->str, r->len) : "unexpected reply");
		f->logged_down = 1;
		fleet_down(f, "AUTH refused");
		return;
	}
	evtimer_del(f->retry);
	f->state = FLEET_ST_UP;
	f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	fleet_count(f, FLEET_C_CONNECT);
	fleet_state_change(f, 1, NULL);
}

/*
 * fleet_sentinel_cb - the sentinel named the master (an array of its
 * address and port): leave the sentinel, connect there.  Asked again on
 * every reconnect, so a failover is followed when the old master's
 * connection drops or it answers READONLY (fleet_error_reply).
 */
static void
fleet_sentinel_cb(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet	*f = priv;
	redisReply	*r = reply;
	char		*end;
	long		 port = 0;

	if (r == NULL || ac->data == NULL || f->ac != ac)
		return;
	if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    r->element[1]->type == REDIS_REPLY_STRING &&
	    r->element[0]->len > 0 && r->element[0]->len < FLEET_HOST_MAX &&
	    memchr(r->element[0]->str, '\0', r->element[0]->len) == NULL) {
		errno = 0;
		port = strtol(r->element[1]->str, &end, 10);
		if (errno != 0 || *end != '\0' || port < 1 || port > 65535)
			port = 0;
	}
	if (port == 0) {
		fleet_down(f, r->type == REDIS_REPLY_NIL ? "the sentinel "
		    "knows no such master (master_name)" : "the sentinel "
		    "gave no master address");
		return;
	}
	memcpy(f->master_host, r->element[0]->str, r->element[0]->len);
	f->master_host[r->element[0]->len] = '\0';
	f->master_port = (int)port;
	f->have_master = 1;
	/* freed once this callback returns; its disconnect is ignored */
	f->ac = NULL;
	ac->data = NULL;
	redisAsyncFree(ac);
	evtimer_del(f->retry);
	fleet_connect(f);
}

/* fleet_connect_cb - TCP or unix connect finished */
static void
fleet_connect_cb(const redisAsyncContext *ac, int status)
{
	struct fleet	*f = ac->data;
	const char	*argv[3];
	size_t		 argl[3];
	int		 n = 0;

	if (f == NULL || f->ac != ac)
		return;
	if (status != REDIS_OK) {
		/* hiredis frees the context after this callback */
		f->ac = NULL;
		fleet_down(f, ac->errstr[0] != '\0' ? ac->errstr :
		    "connect failed");
		return;
	}
	if (f->state == FLEET_ST_SENTINEL) {
		argv[0] = "SENTINEL";
		argv[1] = "get-master-addr-by-name";
		argv[2] = f->cf->master_name;
		for (n = 0; n < 3; n++)
			argl[n] = strlen(argv[n]);
		if (redisAsyncCommandArgv(f->ac, fleet_sentinel_cb, f, 3, argv,
		    argl) != REDIS_OK)
			fleet_down(f, "cannot ask the sentinel");
		return;
	}
	if (f->cf->password == NULL) {
		fleet_auth_cb(f->ac, &(redisReply){ .type =
		    REDIS_REPLY_STATUS }, f);
		return;
	}
	f->state = FLEET_ST_AUTH;
	argv[n] = "AUTH";
	argl[n++] = 4;
	if (f->cf->user != NULL) {
		argv[n] = f->cf->user;
		argl[n++] = strlen(f->cf->user);
	}
	argv[n] = f->cf->password;
	argl[n++] = strlen(f->cf->password);
	if (redisAsyncCommandArgv(f->ac, fleet_auth_cb, f, n, argv, argl) !=
	    REDIS_OK)
		fleet_down(f, "cannot send AUTH");
}

/* fleet_disconnect_cb - an established connection went away */
static void
fleet_disconnect_cb(const redisAsyncContext *ac, int status)
{
	struct fleet	*f = ac->data;

	(void)status;
	if (f == NULL || f->ac != ac)
		return;
	f->ac = NULL;		/* hiredis frees it */
	fleet_down(f, ac->errstr[0] != '\0' ? ac->errstr : "disconnected");
}

/* fleet_connect - start connecting to the current server */
static void
fleet_connect(struct fleet *f)
{
	const struct config_fleet_server *sv;
	redisAsyncContext *ac;
	struct timeval	 tv;
	size_t		 n;
	int		 ask, v6;	/* ask a sentinel first; an IPv6
					   master address */

	sv = &config_fleet_list(f->cf, &n, NULL)[f->server];
	ask = f->cf->nsentinels > 0 && !f->have_master;
	if (ask || f->cf->nsentinels == 0) {
		snprintf(f->spec, sizeof(f->spec), "%s%s", ask ?
		    "sentinel " : "", sv->spec);
		ac = sv->path != NULL ? redisAsyncConnectUnix(sv->path) :
		    redisAsyncConnect(sv->host, sv->port);
	} else {
		v6 = strchr(f->master_host, ':') != NULL;
		snprintf(f->spec, sizeof(f->spec), "%s%s%s:%d (master %s, "
		    "from sentinel %s)", v6 ? "[" : "", f->master_host,
		    v6 ? "]" : "", f->master_port, f->cf->master_name,
		    sv->spec);
		ac = redisAsyncConnect(f->master_host, f->master_port);
	}
	if (ac == NULL || ac->err) {
		f->ac = NULL;
		if (ac != NULL) {
			log_debug(1, "fleet: connect %s: %s", f->spec,
			    ac->errstr);
			redisAsyncFree(ac);
		}
		fleet_down(f, "connect failed");
		return;
	}
	ac->data = f;
	f->ac = ac;
	f->state = ask ? FLEET_ST_SENTINEL : FLEET_ST_CONNECTING;
	if (redisLibeventAttach(ac, f->base) != REDIS_OK ||
	    redisAsyncSetConnectCallback(ac, fleet_connect_cb) != REDIS_OK ||
	    redisAsyncSetDisconnectCallback(ac, fleet_disconnect_cb) !=
	    REDIS_OK) {
		fleet_down(f, "cannot attach to the event loop");
		return;
	}
	tv = fleet_ms(f->cf->connect_timeout_ms);
	evtimer_add(f->retry, &tv);
}

struct fleet *
fleet_new(struct event_base *base, const struct config_fleet *cf)
{
	struct fleet	*f;
	char		 host[64];

	f = xcalloc(1, sizeof(*f));
	f->base = base;
	f->cf = cf;
	TAILQ_INIT(&f->pending);
	f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	f->logged_down = 0;
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	/* unique per client: host, process, time, and a count */
	snprintf(f->token, sizeof(f->token), "%.40s/%ld/%lld/%u", host,
	    (long)getpid(), (long long)clock_wall(), ++fleet_serial);
	if ((f->retry = evtimer_new(base, fleet_retry_cb, f)) == NULL)
		fatalx("fleet: cannot create a timer");
	fleet_connect(f);
	return (f);
}

void
fleet_free(struct fleet *f)
{
	struct fleet_op	*op;
	redisAsyncContext *ac;

	if (f == NULL)
		return;
	/* nothing is completed any more: mark, then let hiredis free */
	TAILQ_FOREACH(op, &f->pending, entry)
		op->done = 1;
	if ((ac = f->ac) != NULL) {
		f->ac = NULL;
		redisAsyncFree(ac);
	}
	/* each op is unlinked before it is freed: a TAILQ false positive */
	while ((op = TAILQ_FIRST(&f->pending)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		fleet_op_free(op);
	event_free(f->retry);
	free(f);
}

void
fleet_set_hooks(struct fleet *f, fleet_counter_hook *counter,
    fleet_state_hook *state, void *arg)
{
	f->counter_hook = counter;
	f->state_hook = state;
	f->hook_arg = arg;
}

int
fleet_up(const struct fleet *f)
{
	return (f != NULL && f->state == FLEET_ST_UP);
}

int
fleet_writable(const struct fleet *f)
{
	return (f != NULL && f->cf->mode == CONFIG_FLEET_READ_WRITE);
}

const uint64_t *
fleet_counters(const struct fleet *f)
{
	return (f->counters);
}

const char *
fleet_server(const struct fleet *f)
{
	return (f->spec);
}

/* fleet_timeout_cb - an operation's reply is late: complete, go down */
static void
fleet_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fleet_op	*op = arg;
	struct fleet	*f = op->f;

	(void)fd;
	(void)what;
	fleet_count(f, FLEET_C_TIMEOUT);
	fleet_complete(op, FLEET_TIMEOUT, NULL);
	if (f->state != FLEET_ST_DOWN)
		fleet_down(f, "reply timeout");
}

/* fleet_op_new - an operation on cache key key, or NULL (counted) */
static struct fleet_op *
fleet_op_new(struct fleet *f, enum fleet_op_kind kind, const char *key,
    const char *infix)
{
	struct fleet_op	*op;
	size_t		 klen = key != NULL ? strlen(key) : 0;
	int		 n;

	if (f->state != FLEET_ST_UP) {
		fleet_count(f, FLEET_C_DOWN);
		return (NULL);
	}
	if (f->npending >= FLEET_MAX_PENDING) {
		fleet_count(f, FLEET_C_BUSY);
		return (NULL);
	}
	if (key != NULL && !cache_key_valid(key, klen))
		return (NULL);
	op = xcalloc(1, sizeof(*op));
	op->f = f;
	op->kind = kind;
	if (key != NULL) {
		memcpy(op->key, key, klen);
		op->klen = klen;
		n = snprintf(op->rkey, sizeof(op->rkey), "%s%s%s",
		    f->cf->prefix != NULL ? f->cf->prefix : "", infix, key);
		if (n < 0 || (size_t)n >= sizeof(op->rkey)) {
			free(op);
			return (NULL);
		}
		op->rklen = (size_t)n;
	}
	if ((op->timer = evtimer_new(f->base, fleet_timeout_cb, op)) == NULL)
		fatalx("fleet: cannot create a timer");
	TAILQ_INSERT_TAIL(&f->pending, op, entry);
	f->npending++;
	return (op);
}

static void fleet_reply(redisAsyncContext *, void *, void *);

/*
 * fleet_send - send argv for op, arm its timer; on_reply(op, reply) gets the
 * reply (fleet_reply has dealt with finished operations and lost
 * connections); -1 (op freed) on failure
 */
static int
fleet_send(struct fleet_op *op, void (*on_reply)(struct fleet_op *,
    redisReply *), int argc, const char **argv, const size_t *argl)
{
	struct fleet	*f = op->f;
	struct timeval	 tv;

	op->on_reply = on_reply;
	if (f->ac == NULL || redisAsyncCommandArgv(f->ac, fleet_reply, op, argc,
	    argv, argl) != REDIS_OK) {
		fleet_op_free(op);
		return (-1);
	}
	/*
	 * From now, not from the loop's cached time: a callback that ran
	 * long (or a process descheduled under load) must not shorten the
	 * timeout into a spurious "reply timeout" that drops the connection.
	 */
	event_base_update_cache_time(f->base);
	tv = fleet_ms(f->cf->timeout_ms);
	evtimer_add(op->timer, &tv);
	return (0);
}

/*
 * fleet_reply_op - common start of every reply callback: the operation,
 * or NULL when it is finished (completed before, or the connection was
 * dropped: then it is completed with FLEET_DOWN here) and freed
 */
static struct fleet_op *
fleet_reply_op(void *reply, void *priv)
{
	struct fleet_op	*op = priv;

	if (op->done) {
		fleet_op_free(op);
		return (NULL);
	}
	if (reply == NULL) {
		fleet_complete(op, FLEET_DOWN, NULL);
		fleet_op_free(op);
		return (NULL);
	}
	evtimer_del(op->timer);
	return (op);
}

/* fleet_reply - every reply: hand it to the operation that is still on */
static void
fleet_reply(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet_op	*op;

	(void)ac;
	if ((op = fleet_reply_op(reply, priv)) != NULL)
		op->on_reply(op, reply);
}

/* fleet_decode - decode a value read for op into op->rec: FLEET_HIT or
 * FLEET_REFUSED (counted) */
static enum fleet_status
fleet_decode(struct fleet_op *op, const unsigned char *p, size_t len)
{
	struct fleet	*f = op->f;
	enum fleet_decode_status ds;
	char		 esc[LOG_ESCAPE_MAX + 8];

	ds = fleet_record_decode(op->key, op->klen, p, len, f->cf->key,
	    f->cf->keylen, &op->rec);
	if (ds == FLEET_DECODE_OK)
		return (FLEET_HIT);
	fleet_count(f, ds == FLEET_DECODE_MAC ? FLEET_C_BAD_MAC :
	    ds == FLEET_DECODE_UNSIGNED ? FLEET_C_UNSIGNED :
	    FLEET_C_UNDECODABLE);
	log_warnx("fleet: key=%s ignored: %s", log_escape(esc, sizeof(esc),
	    op->key, op->klen), fleet_decode_status_name(ds));
	return (FLEET_REFUSED);
}

/* fleet_error_reply - count and classify an unexpected reply */
static enum fleet_status
fleet_error_reply(struct fleet_op *op, const redisReply *r)
{
	char		 esc[LOG_ESCAPE_MAX + 8];

	if (r->type == REDIS_REPLY_ERROR && r->len >= 3 &&
	    memcmp(r->str, "OOM", 3) == 0) {
		fleet_count(op->f, FLEET_C_FULL);
		return (FLEET_FULL);
	}
	if (r->type == REDIS_REPLY_ERROR && r->len >= 8 &&
	    memcmp(r->str, "READONLY", 8) == 0 &&
	    op->f->state == FLEET_ST_UP) {
		/* a replica now (a failover demoted it, or the list names
		 * one): the next server, or ask the sentinels again */
		fleet_count(op->f, FLEET_C_ERROR);
		log_warnx("fleet: %s answers READONLY (a replica): "
		    "reconnecting", op->f->spec);
		fleet_down(op->f, "READONLY");
		return (FLEET_DOWN);
	}
	fleet_count(op->f, FLEET_C_ERROR);
	log_debug(1, "fleet: key=%s unexpected reply type %d: %s", op->key,
	    r->type, r->type == REDIS_REPLY_ERROR ? log_escape(esc,
	    sizeof(esc), r->str, r->len) : "");
	return (FLEET_ERROR);
}

/* fleet_get_reply - GET answered */
static void
fleet_get_reply(struct fleet_op *op, redisReply *r)
{
	enum fleet_status st;

	if (r->type == REDIS_REPLY_NIL) {
		fleet_count(op->f, FLEET_C_GET_MISS);
		st = FLEET_MISS;
	} else if (r->type == REDIS_REPLY_STRING) {
		st = fleet_decode(op, (const unsigned char *)r->str, r->len);
		if (st == FLEET_HIT)
			fleet_count(op->f, FLEET_C_GET_HIT);
	} else
		st = fleet_error_reply(op, r);
	fleet_complete(op, st, st == FLEET_HIT ? &op->rec : NULL);
	fleet_op_free(op);
}

int
fleet_get(struct fleet *f, const char *key, fleet_get_cb *cb, void *arg)
{
	struct fleet_op	*op;
	const char	*argv[2];
	size_t		 argl[2];

	if ((op = fleet_op_new(f, FLEET_OP_GET, key, "")) == NULL)
		return (-1);
	op->get_cb = cb;
	op->arg = arg;
	argv[0] = "GET";
	argl[0] = 3;
	argv[1] = op->rkey;
	argl[1] = op->rklen;
	return (fleet_send(op, fleet_get_reply, 2, argv, argl));
}

/* fleet_cas_set_reply - the compare-and-set script answered */
static void
fleet_cas_set_reply(struct fleet_op *op, redisReply *r)
{
	redisReply	*v;

	if (r->type == REDIS_REPLY_INTEGER && r->integer == 1) {
		fleet_count(op->f, FLEET_C_WRITE);
		fleet_complete(op, FLEET_OK, NULL);
		fleet_op_free(op);
		return;
	}
	/* lost a race: what is there now is the new "current" */
	if (r->type == REDIS_REPLY_INTEGER && r->integer == 0)
		op->have_cur = 0;
	else if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
	    (v = r->element[0])->type == REDIS_REPLY_STRING &&
	    v->len <= sizeof(op->cur)) {
		memcpy(op->cur, v->str, v->len);
		op->curlen = v->len;
		op->have_cur = 1;
	} else {
		fleet_complete(op, fleet_error_reply(op, r), NULL);
		fleet_op_free(op);
		return;
	}
	fleet_count(op->f, FLEET_C_CONFLICT);
	if (++op->tries >= FLEET_CAS_TRIES) {
		fleet_complete(op, FLEET_CONFLICT, NULL);
		fleet_op_free(op);
		return;
	}
	fleet_cas_merge(op);	/* the script returned the value */
}

/*
 * fleet_cas_merge - op->cur holds the current value (or none): merge and
 * send the compare-and-set, or complete
 */
static void
fleet_cas_merge(struct fleet_op *op)
{
	struct fleet	*f = op->f;
	struct cache_record out = { 0 };
	const struct cache_record *cur = NULL;
	const char	*argv[8];
	size_t		 argl[8];
	char		 ttl[24];
	int64_t		 secs;
	int		 enc;
	struct timeval	 tv;

	if (op->have_cur && fleet_decode(op, op->cur, op->curlen) ==
	    FLEET_HIT)
		cur = &op->rec;
	if (op->merge(op->arg, cur, &out) == 0 ||
	    (secs = fleet_record_ttl(&out, clock_wall(),
	    f->cf->grace)) <= 0) {
		cache_record_release(&out);
		fleet_count(f, FLEET_C_WRITE_UNCHANGED);
		fleet_complete(op, FLEET_UNCHANGED, NULL);
		fleet_op_free(op);
		return;
	}
	enc = fleet_record_encode(op->key, op->klen, &out, f->cf->key,
	    f->cf->keylen, op->val, sizeof(op->val), &op->newlen);
	cache_record_release(&out);
	if (enc == -1) {
		fleet_count(f, FLEET_C_ERROR);
		fleet_complete(op, FLEET_ERROR, NULL);
		fleet_op_free(op);
		return;
	}
	snprintf(ttl, sizeof(ttl), "%lld", (long long)secs * 1000);
	op->kind = FLEET_OP_CAS_SET;
	argv[0] = "EVAL";
	argl[0] = 4;
	argv[1] = FLEET_CAS_SCRIPT;
	argl[1] = sizeof(FLEET_CAS_SCRIPT) - 1;
	argv[2] = "1";
	argl[2] = 1;
	argv[3] = op->rkey;
	argl[3] = op->rklen;
	argv[4] = op->have_cur ? "1" : "0";
	argl[4] = 1;
	argv[5] = (const char *)op->cur;
	argl[5] = op->have_cur ? op->curlen : 0;
	argv[6] = (const char *)op->val;
	argl[6] = op->newlen;
	argv[7] = ttl;
	argl[7] = strlen(ttl);
	op->on_reply = fleet_cas_set_reply;
	if (f->ac == NULL || redisAsyncCommandArgv(f->ac, fleet_reply, op, 8,
	    argv, argl) != REDIS_OK) {
		fleet_complete(op, FLEET_DOWN, NULL);
		fleet_op_free(op);
		return;
	}
	tv = fleet_ms(f->cf->timeout_ms);
	evtimer_add(op->timer, &tv);
}

/* fleet_cas_get_reply - the update's GET answered */
static void
fleet_cas_get_reply(struct fleet_op *op, redisReply *r)
{
	if (r->type == REDIS_REPLY_NIL)
		op->have_cur = 0;
	else if (r->type == REDIS_REPLY_STRING && r->len <= sizeof(op->cur)) {
		memcpy(op->cur, r->str, r->len);
		op->curlen = r->len;
		op->have_cur = 1;
	} else {
		fleet_complete(op, fleet_error_reply(op, r), NULL);
		fleet_op_free(op);
		return;
	}
	fleet_cas_merge(op);
}

int
fleet_update(struct fleet *f, const char *key, fleet_merge_fn *merge,
    fleet_done_cb *done, void *arg)
{
	struct fleet_op	*op;
	const char	*argv[2];
	size_t		 argl[2];

	if (!fleet_writable(f))
		return (-1);
	if ((op = fleet_op_new(f, FLEET_OP_CAS_GET, key, "")) == NULL)
		return (-1);
	op->merge = merge;
	op->done_cb = done;
	op->arg = arg;
	argv[0] = "GET";
	argl[0] = 3;
	argv[1] = op->rkey;
	argl[1] = op->rklen;
	return (fleet_send(op, fleet_cas_get_reply, 2, argv, argl));
}

/* fleet_lease_reply - SET NX answered */
static void
fleet_lease_reply(struct fleet_op *op, redisReply *r)
{
	enum fleet_status st;

	if (r->type == REDIS_REPLY_STATUS) {
		fleet_count(op->f, FLEET_C_LEASE_WON);
		st = FLEET_OK;
	} else if (r->type == REDIS_REPLY_NIL) {
		fleet_count(op->f, FLEET_C_LEASE_HELD);
		st = FLEET_HELD;
	} else
		st = fleet_error_reply(op, r);
	fleet_complete(op, st, NULL);
	fleet_op_free(op);
}

int
fleet_lease(struct fleet *f, const char *domain, int ms, fleet_done_cb *done,
    void *arg)
{
	struct fleet_op	*op;
	const char	*argv[6];
	size_t		 argl[6];
	char		 pxs[24];

	if (!fleet_writable(f))
		return (-1);
	if ((op = fleet_op_new(f, FLEET_OP_LEASE, domain,
	    FLEET_LEASE_PREFIX)) == NULL)
		return (-1);
	op->done_cb = done;
	op->arg = arg;
	snprintf(pxs, sizeof(pxs), "%d", ms > 0 ? ms : 1);
	argv[0] = "SET";
	argv[1] = op->rkey;
	argv[2] = f->token;
	argv[3] = "NX";
	argv[4] = "PX";
	argv[5] = pxs;
	argl[0] = 3;
	argl[1] = op->rklen;
	argl[2] = strlen(f->token);
	argl[3] = 2;
	argl[4] = 2;
	argl[5] = strlen(pxs);
	return (fleet_send(op, fleet_lease_reply, 6, argv, argl));
}

/* fleet_unlease_reply - the release answered: nothing to tell anyone */
static void
fleet_unlease_reply(struct fleet_op *op, redisReply *reply)
{
	(void)reply;
	fleet_complete(op, FLEET_OK, NULL);
	fleet_op_free(op);
}

void
fleet_unlease(struct fleet *f, const char *domain)
{
	struct fleet_op	*op;
	const char	*argv[5];
	size_t		 argl[5];

	if (!fleet_writable(f) || (op = fleet_op_new(f, FLEET_OP_UNLEASE,
	    domain, FLEET_LEASE_PREFIX)) == NULL)
		return;
	argv[0] = "EVAL";
	argv[1] = FLEET_UNLEASE_SCRIPT;
	argv[2] = "1";
	argv[3] = op->rkey;
	argv[4] = f->token;
	argl[0] = 4;
	argl[1] = sizeof(FLEET_UNLEASE_SCRIPT) - 1;
	argl[2] = 1;
	argl[3] = op->rklen;
	argl[4] = strlen(f->token);
	(void)fleet_send(op, fleet_unlease_reply, 5, argv, argl);
}

/* fleet_command_reply - any reply, as text */
static void
fleet_command_reply(struct fleet_op *op, redisReply *r)
{
	char		 num[24];

	op->done = 1;
	evtimer_del(op->timer);
	if (op->reply_cb != NULL) {
		if (r->type == REDIS_REPLY_INTEGER) {
			snprintf(num, sizeof(num), "%lld", r->integer);
			op->reply_cb(op->arg, FLEET_OK, num, strlen(num));
		} else if (r->type == REDIS_REPLY_STRING ||
		    r->type == REDIS_REPLY_STATUS)
			op->reply_cb(op->arg, FLEET_OK, r->str, r->len);
		else if (r->type == REDIS_REPLY_NIL)
			op->reply_cb(op->arg, FLEET_MISS, NULL, 0);
		else
			op->reply_cb(op->arg, FLEET_ERROR,
			    r->type == REDIS_REPLY_ERROR ? r->str : NULL,
			    r->type == REDIS_REPLY_ERROR ? r->len : 0);
	}
	fleet_op_free(op);
}

int
fleet_command(struct fleet *f, int argc, const char **argv,
    fleet_reply_cb *cb, void *arg)
{
	struct fleet_op	*op;
	size_t		 argl[16];
	int		 i;

	if (argc < 1 || argc > 16 ||
	    (op = fleet_op_new(f, FLEET_OP_COMMAND, NULL, "")) == NULL)
		return (-1);
	op->reply_cb = cb;
	op->arg = arg;
	for (i = 0; i < argc; i++)
		argl[i] = strlen(argv[i]);
	return (fleet_send(op, fleet_command_reply, argc, argv, argl));
}

/* fleet_scan_reply - SCAN answered: [cursor, [keys...]] */
static void
fleet_scan_reply(struct fleet_op *op, redisReply *r)
{
	redisReply	*k;
	const char	*keys[FLEET_SCAN_COUNT * 4];
	char		 cursor[32];
	size_t		 i, n = 0, plen;

	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[0]->type != REDIS_REPLY_STRING ||
	    r->element[0]->len >= sizeof(cursor) ||
	    r->element[1]->type != REDIS_REPLY_ARRAY) {
		fleet_complete(op, fleet_error_reply(op, r), NULL);
		fleet_op_free(op);
		return;
	}
	memcpy(cursor, r->element[0]->str, r->element[0]->len);
	cursor[r->element[0]->len] = '\0';
	plen = op->f->cf->prefix != NULL ? strlen(op->f->cf->prefix) : 0;
	for (i = 0; i < r->element[1]->elements && n < sizeof(keys) /
	    sizeof(keys[0]); i++) {
		k = r->element[1]->element[i];
		/* a cache key behind the prefix: NUL-free, valid, no lease */
		if (k->type != REDIS_REPLY_STRING || k->len <= plen ||
		    strlen(k->str) != k->len ||
		    !cache_key_valid(k->str + plen, k->len - plen))
			continue;
		keys[n++] = k->str + plen;
	}
	op->done = 1;
	evtimer_del(op->timer);
	if (op->scan_cb != NULL)
		op->scan_cb(op->arg, FLEET_OK, cursor, keys, n);
	fleet_op_free(op);
}

int
fleet_scan(struct fleet *f, const char *cursor, fleet_scan_cb *cb, void *arg)
{
	struct fleet_op	*op;
	const char	*argv[6];
	size_t		 argl[6];
	char		 match[CONFIG_MAX_FLEET_PREFIX * 2 + 2], count[16];
	size_t		 i, m = 0;
	const char	*p = f->cf->prefix != NULL ? f->cf->prefix : "";

	if ((op = fleet_op_new(f, FLEET_OP_SCAN, NULL, "")) == NULL)
		return (-1);
	op->scan_cb = cb;
	op->arg = arg;
	/* the prefix as a glob: its characters (:._-/ and alnum) need no
	 * escape but for safety every one but alnum is escaped */
	for (i = 0; p[i] != '\0' && m + 3 < sizeof(match); i++) {
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z') ||
		    (p[i] >= '0' && p[i] <= '9')))
			match[m++] = '\\';
		match[m++] = p[i];
	}
	match[m++] = '*';
	match[m] = '\0';
	snprintf(count, sizeof(count), "%d", FLEET_SCAN_COUNT);
	argv[0] = "SCAN";
	argv[1] = cursor;
	argv[2] = "MATCH";
	argv[3] = match;
	argv[4] = "COUNT";
	argv[5] = count;
	for (i = 0; i < 6; i++)
		argl[i] = strlen(argv[i]);
	return (fleet_send(op, fleet_scan_reply, 6, argv, argl));
}

const char *
fleet_status_name(enum fleet_status st)
{
	static const char *const names[FLEET_STATUS_COUNT] = {
		"ok", "hit", "miss", "refused", "unchanged", "held",
		"conflict", "full", "timeout", "down", "error",
	};

	return ((unsigned)st < FLEET_STATUS_COUNT ? names[st] : "?");
}

const char *
fleet_counter_name(enum fleet_counter c)
{
	static const char *const names[FLEET_C_COUNT] = {
		"get-hit", "get-miss", "bad-mac", "unsigned", "undecodable",
		"write", "write-unchanged", "conflict", "full", "error",
		"timeout", "down", "busy", "connect", "connect-fail",
		"disconnect", "lease-won", "lease-held",
	};

	return ((unsigned)c < FLEET_C_COUNT ? names[c] : "?");
}
