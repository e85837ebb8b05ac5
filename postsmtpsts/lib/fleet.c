/*
 * fleet.c - asynchronous client of the fleet tier (interface: fleet.h)
 *
 * hiredis (async API, 0.14 in Debian 12) with its libevent adapter: the
 * protocol is hiredis's business, the client only sequences commands.
 * This file is the client (fleet_new, fleet_free, its state as the
 * callers see it) and the life of one operation; the connection's state
 * machine is fleet_conn.c's, the compare-and-set update fleet_update.c's
 * (fleet_int.h: what the three share).
 *
 * An operation is taken only when the connection is UP and fewer than
 * FLEET_MAX_PENDING are pending.  hiredis 0.14 has no command timeouts, so
 * each operation carries its own libevent timer: a reply that is late
 * completes it with FLEET_TIMEOUT and drops the connection.  Each is
 * completed exactly once (fleet_op_complete) and freed when its reply, or
 * hiredis's NULL reply of a dropped connection, comes (fleet_op_reply): an
 * operation that timed out was completed already and is only freed there.
 *
 * Wire: GET key; SET lease token NX PX ms; EVAL of FLEET_UNLEASE_SCRIPT;
 * SCAN cursor MATCH prefix* COUNT n; any command of the tools
 * (fleet_command).
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/time.h>

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

#include "lib/clock.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_int.h"
#include "lib/fleet_record.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/* KEYS[1] the lease, ARGV[1] our token: delete only our own lease */
#define FLEET_UNLEASE_SCRIPT \
	"if redis.call('GET', KEYS[1]) == ARGV[1] then " \
	"return redis.call('DEL', KEYS[1]) end return 0"

static unsigned int fleet_serial;	/* clients made by this process */

void
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

void
fleet_op_complete(struct fleet_op *op, enum fleet_status st,
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
	case FLEET_OP_CALL:
		if (op->call_cb != NULL)
			op->call_cb(op->arg, st, NULL, 0);
		break;
	default:
		if (op->done_cb != NULL)
			op->done_cb(op->arg, st);
		break;
	}
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
	fleet_conn_start(f);
	return (f);
}

void
fleet_free(struct fleet *f)
{
	struct fleet_op	*op;

	if (f == NULL)
		return;
	/* nothing is completed any more: mark, then let hiredis free */
	TAILQ_FOREACH(op, &f->pending, entry)
		op->done = 1;
	fleet_conn_stop(f);
	/* each op is unlinked before it is freed: a TAILQ false positive */
	while ((op = TAILQ_FIRST(&f->pending)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		fleet_op_free(op);
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
	fleet_op_complete(op, FLEET_TIMEOUT, NULL);
	if (f->state != FLEET_ST_DOWN)
		fleet_conn_down(f, "reply timeout");
}

struct fleet_op *
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

int
fleet_op_send(struct fleet_op *op, void (*on_reply)(struct fleet_op *,
    redisReply *), int argc, const char **argv, const size_t *argl)
{
	struct fleet	*f = op->f;
	struct timeval	 tv;

	op->on_reply = on_reply;
	if (f->ac == NULL || redisAsyncCommandArgv(f->ac, fleet_op_reply, op,
	    argc, argv, argl) != REDIS_OK) {
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
 * fleet_op_live - common start of every reply callback: the operation,
 * or NULL when it is finished (completed before, or the connection was
 * dropped: then it is completed with FLEET_DOWN here) and freed
 */
static struct fleet_op *
fleet_op_live(void *reply, void *priv)
{
	struct fleet_op	*op = priv;

	if (op->done) {
		fleet_op_free(op);
		return (NULL);
	}
	if (reply == NULL) {
		fleet_op_complete(op, FLEET_DOWN, NULL);
		fleet_op_free(op);
		return (NULL);
	}
	evtimer_del(op->timer);
	return (op);
}

void
fleet_op_reply(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet_op	*op;

	(void)ac;
	if ((op = fleet_op_live(reply, priv)) != NULL)
		op->on_reply(op, reply);
}

enum fleet_status
fleet_op_decode(struct fleet_op *op, const unsigned char *p, size_t len)
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

enum fleet_status
fleet_op_error(struct fleet_op *op, const redisReply *r)
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
		op->f->readonly = 1;
		fleet_conn_down(op->f, "READONLY");
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
		st = fleet_op_decode(op, (const unsigned char *)r->str, r->len);
		if (st == FLEET_HIT)
			fleet_count(op->f, FLEET_C_GET_HIT);
	} else
		st = fleet_op_error(op, r);
	fleet_op_complete(op, st, st == FLEET_HIT ? &op->rec : NULL);
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
	return (fleet_op_send(op, fleet_get_reply, 2, argv, argl));
}

/* fleet_lease_reply - SET NX answered */
static void
fleet_lease_reply(struct fleet_op *op, redisReply *r)
{
	enum fleet_status st;

	if (r->type == REDIS_REPLY_STATUS) {
		op->f->readonly = 0;
		fleet_count(op->f, FLEET_C_LEASE_WON);
		st = FLEET_OK;
	} else if (r->type == REDIS_REPLY_NIL) {
		fleet_count(op->f, FLEET_C_LEASE_HELD);
		st = FLEET_HELD;
	} else
		st = fleet_op_error(op, r);
	fleet_op_complete(op, st, NULL);
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
	return (fleet_op_send(op, fleet_lease_reply, 6, argv, argl));
}

/* fleet_unlease_reply - the release answered: nothing to tell anyone */
static void
fleet_unlease_reply(struct fleet_op *op, redisReply *reply)
{
	(void)reply;
	fleet_op_complete(op, FLEET_OK, NULL);
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
	(void)fleet_op_send(op, fleet_unlease_reply, 5, argv, argl);
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
	return (fleet_op_send(op, fleet_command_reply, argc, argv, argl));
}

/* fleet_call_value - one scalar reply r as v: 0, or -1 (not a scalar) */
static int
fleet_call_value(const redisReply *r, struct fleet_value *v)
{
	memset(v, 0, sizeof(*v));
	switch (r->type) {
	case REDIS_REPLY_INTEGER:
		v->integer = r->integer;
		v->is_int = 1;
		return (0);
	case REDIS_REPLY_STRING:
	case REDIS_REPLY_STATUS:
		v->p = r->str;
		v->len = r->len;
		return (0);
	case REDIS_REPLY_NIL:
		return (0);
	default:
		return (-1);
	}
}

/* fleet_call_reply - a call answered: its values, flat */
static void
fleet_call_reply(struct fleet_op *op, redisReply *r)
{
	struct fleet_value *v = NULL, one;
	enum fleet_status st = FLEET_OK;
	size_t		 i, n = 0;

	if (r->type != REDIS_REPLY_ERROR)	/* every call writes */
		op->f->readonly = 0;
	if (r->type == REDIS_REPLY_NIL)
		st = FLEET_MISS;
	else if (r->type == REDIS_REPLY_ARRAY) {
		if (r->elements > FLEET_CALL_MAX_VALUES)
			st = FLEET_ERROR;
		else if (r->elements > 0) {
			v = xcalloc(r->elements, sizeof(*v));
			for (i = 0; i < r->elements && st == FLEET_OK; i++)
				if (fleet_call_value(r->element[i], &v[i]) == -1)
					st = FLEET_ERROR;
			n = r->elements;
		}
		if (st == FLEET_ERROR)
			fleet_count(op->f, FLEET_C_ERROR);
	} else if (fleet_call_value(r, &one) == 0) {
		v = &one;
		n = 1;
	} else
		st = fleet_op_error(op, r);
	op->done = 1;
	evtimer_del(op->timer);
	if (op->call_cb != NULL)
		op->call_cb(op->arg, st, st == FLEET_OK ? v : NULL,
		    st == FLEET_OK ? n : 0);
	if (v != &one)
		free(v);
	fleet_op_free(op);
}

int
fleet_call(struct fleet *f, int argc, const char **argv, const size_t *argl,
    fleet_call_cb *cb, void *arg)
{
	struct fleet_op	*op;

	if (argc < 1 || argc > FLEET_CALL_MAX_ARGS || !fleet_writable(f) ||
	    (op = fleet_op_new(f, FLEET_OP_CALL, NULL, "")) == NULL)
		return (-1);
	op->call_cb = cb;
	op->arg = arg;
	return (fleet_op_send(op, fleet_call_reply, argc, argv, argl));
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
		fleet_op_complete(op, fleet_op_error(op, r), NULL);
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
	return (fleet_op_send(op, fleet_scan_reply, 6, argv, argl));
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
