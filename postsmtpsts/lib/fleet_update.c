/*
 * fleet_update.c - the fleet client's compare-and-set update (interface:
 * fleet.h, fleet_update)
 *
 * A loop of at most FLEET_CAS_TRIES rounds: GET the current value, decode
 * it (a value that does not decode or fails its MAC counts as absent: a
 * signed record replaces it), ask the caller's merge function for the
 * record to store, then EVAL FLEET_CAS_SCRIPT, which compares the value's
 * bytes and sets it (SET PX: the key expires with the record,
 * fleet_record_ttl) only if they did not change.  When another host wrote
 * meanwhile, the script returns what is there now and the loop merges
 * again without another GET.  The merge rule stays in C (fleet_facts.h);
 * the script only compares bytes.
 *
 * Wire: GET key; EVAL FLEET_CAS_SCRIPT 1 key have cur new ttl-ms.
 */
#include "autoconf.h"

#include <sys/time.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

#include "lib/cache_record.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_int.h"
#include "lib/fleet_record.h"

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

static void	fleet_cas_merge(struct fleet_op *);

/* fleet_cas_set_reply - the compare-and-set script answered */
static void
fleet_cas_set_reply(struct fleet_op *op, redisReply *r)
{
	redisReply	*v;

	if (r->type == REDIS_REPLY_INTEGER && r->integer == 1) {
		op->f->readonly = 0;
		fleet_count(op->f, FLEET_C_WRITE);
		fleet_op_complete(op, FLEET_OK, NULL);
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
		fleet_op_complete(op, fleet_op_error(op, r), NULL);
		fleet_op_free(op);
		return;
	}
	fleet_count(op->f, FLEET_C_CONFLICT);
	if (++op->tries >= FLEET_CAS_TRIES) {
		fleet_op_complete(op, FLEET_CONFLICT, NULL);
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

	if (op->have_cur && fleet_op_decode(op, op->cur, op->curlen) ==
	    FLEET_HIT)
		cur = &op->rec;
	if (op->merge(op->arg, cur, &out) == 0 ||
	    (secs = fleet_record_ttl(&out, clock_wall(),
	    f->cf->grace)) <= 0) {
		cache_record_release(&out);
		fleet_count(f, FLEET_C_WRITE_UNCHANGED);
		fleet_op_complete(op, FLEET_UNCHANGED, NULL);
		fleet_op_free(op);
		return;
	}
	enc = fleet_record_encode(op->key, op->klen, &out, f->cf->key,
	    f->cf->keylen, op->val, sizeof(op->val), &op->newlen);
	cache_record_release(&out);
	if (enc == -1) {
		fleet_count(f, FLEET_C_ERROR);
		fleet_op_complete(op, FLEET_ERROR, NULL);
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
	if (f->ac == NULL || redisAsyncCommandArgv(f->ac, fleet_op_reply, op, 8,
	    argv, argl) != REDIS_OK) {
		fleet_op_complete(op, FLEET_DOWN, NULL);
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
		fleet_op_complete(op, fleet_op_error(op, r), NULL);
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
	return (fleet_op_send(op, fleet_cas_get_reply, 2, argv, argl));
}
