/*
 * test_fleet.c - the fleet client against a real redis-server
 *
 * The test starts its own redis-server (port 0: unix socket only, in a
 * temporary directory, no persistence, DEBUG allowed locally) and drives
 * the fleet client (lib/fleet.c, fleet_conn.c, fleet_update.c) on a
 * libevent loop.  A second, blocking hiredis connection
 * plays "another host": it writes between our read and our
 * compare-and-set to force conflicts.  No mock: redis-server is a test
 * dependency (contrib/install-deps.sh --test); if it is missing the test
 * fails.
 */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <event2/event.h>
#include <hiredis/hiredis.h>

#include "need.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_record.h"
#include "policy/fleet_facts.h"

#define PREFIX	"t:"

static char	 dir[64];
static char	 sock[128];
static pid_t	 redis_pid = -1;
static struct event_base *base;
static redisContext *other;		/* the "other host" */

static const unsigned char mackey[] = "test-fleet-key-0123456789abcdef";

static struct config_fleet_server server;
static struct config_fleet fcf;
static struct config_cache cc = { .negative_ttl = 300 };

/* redis_start - start redis-server on a unix socket in dir */
static void
redis_start(void)
{
	struct stat	 st;
	int		 i;

	if ((redis_pid = fork()) == 0) {
		execlp("redis-server", "redis-server", "--port", "0",
		    "--unixsocket", sock, "--save", "", "--appendonly", "no",
		    "--enable-debug-command", "local", "--dir", dir,
		    "--logfile", "redis.log", "--loglevel", "warning", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		if (stat(sock, &st) == 0)
			return;
		usleep(10000);
	}
	fail_msg("redis-server did not start (installed? "
	    "contrib/install-deps.sh --test)");
}

static void
redis_stop(void)
{
	int		 status;

	if (redis_pid > 0) {
		kill(redis_pid, SIGTERM);
		waitpid(redis_pid, &status, 0);
		redis_pid = -1;
	}
	unlink(sock);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_fleet.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return (-1);
	snprintf(sock, sizeof(sock), "%s/redis.sock", dir);
	redis_start();
	if ((other = redisConnectUnix(sock)) == NULL || other->err)
		return (-1);
	base = event_base_new();
	server.spec = sock;
	server.path = sock;
	fcf.enabled = 1;
	fcf.servers = &server;
	fcf.nservers = 1;
	fcf.mode = CONFIG_FLEET_READ_WRITE;
	fcf.prefix = PREFIX;
	fcf.timeout_ms = 300;
	fcf.connect_timeout_ms = 1000;
	fcf.lease = 10;
	fcf.lease_wait_ms = 1000;
	fcf.grace = 3600;
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	if (other != NULL)
		redisFree(other);
	redis_stop();
	event_base_free(base);
	{
		char	 log[160];

		snprintf(log, sizeof(log), "%s/redis.log", dir);
		unlink(log);
	}
	rmdir(dir);
	return (0);
}

/* -- driving the loop --------------------------------------------------- */

#include "evloop.inc"

/* connected - a client on fcf (or cf), up */
static struct fleet *
connected(const struct config_fleet *cf)
{
	struct fleet	*f = fleet_new(base, cf);
	int		 i;

	for (i = 0; i < 200 && !fleet_up(f); i++)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK),
		    usleep(5000);
	assert_true(fleet_up(f));
	return (f);
}

static enum fleet_status got_st;
static struct cache_record got_rec;

static void
get_cb(void *arg, enum fleet_status st, const struct cache_record *rec)
{
	(void)arg;
	got_st = st;
	if (rec != NULL)
		cache_record_copy(&got_rec, rec);
	done = 1;
}

static void
done_cb(void *arg, enum fleet_status st)
{
	(void)arg;
	got_st = st;
	done = 1;
}

/* get - fleet_get and wait */
static enum fleet_status
get(struct fleet *f, const char *key)
{
	done = 0;
	assert_int_equal(fleet_get(f, key, get_cb, NULL), 0);
	assert_int_equal(run(3000), 1);
	return (got_st);
}

/* -- records and the merge under test ----------------------------------- */

/* sts - an STS record; its one pattern lives in static storage, so the
 * record is only read, never decoded or copied into */
static struct cache_record
sts(const char *id, int mode, int64_t age)
{
	static char	 mx[] = "mx.example.com";
	struct cache_record r;
	int64_t		 now = (int64_t)time(NULL);

	memset(&r, 0, sizeof(r));
	r.kind = CACHE_KIND_STS;
	r.sts_mode = (uint8_t)mode;
	r.max_age = 86400;
	r.fetched_at = now - age;
	r.expires_at = r.fetched_at + 86400;
	r.next_refresh = r.fetched_at + 43200;
	snprintf(r.id, sizeof(r.id), "%s", id);
	r.nmx = 1;
	r.mx = mx;
	r.mxlen = r.mxcap = sizeof(mx);
	return (r);
}

/* put_other - the other host writes rec under key (signed with sign) */
static void
put_other(const char *key, const struct cache_record *rec, int sign)
{
	unsigned char	 v[FLEET_RECORD_MAX_LEN];
	size_t		 len;
	redisReply	*r;

	assert_int_equal(fleet_record_encode(key, strlen(key), rec,
	    sign ? mackey : NULL, sign ? sizeof(mackey) - 1 : 0, v,
	    sizeof(v), &len), 0);
	r = redisCommand(other, "SET " PREFIX "%s %b", key, v, len);
	assert_non_null(r);
	freeReplyObject(r);
}

struct merge_ctx {
	struct cache_record mine;
	int		 calls;
	int		 interfere;	/* the other host writes on call n <= */
	struct cache_record theirs;
	const char	*key;
};

/* merge - the daemon's merge: offer mine to the fleet's record through the
 * TOFU gate; the other host may write meanwhile */
static int
merge(void *arg, const struct cache_record *cur, struct cache_record *out)
{
	struct merge_ctx *m = arg;

	m->calls++;
	if (m->calls <= m->interfere) {
		m->theirs.fetched_at++;		/* a different value each time */
		m->theirs.expires_at++;
		put_other(m->key, &m->theirs, fcf.key != NULL);
	}
	return (fleet_facts_take(m->key, strlen(m->key), cur, &m->mine, &cc,
	    (int64_t)time(NULL), out, NULL));
}

static enum fleet_status
update(struct fleet *f, struct merge_ctx *m)
{
	done = 0;
	assert_int_equal(fleet_update(f, m->key, merge, done_cb, m), 0);
	assert_int_equal(run(3000), 1);
	return (got_st);
}

/* -- tests ------------------------------------------------------------- */

static void
read_write_round_trip(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "rt.example" };

	(void)state;
	assert_int_equal(get(f, "rt.example"), FLEET_MISS);
	m.mine = sts("id1", CACHE_STS_ENFORCE, 0);
	assert_int_equal(update(f, &m), FLEET_OK);
	assert_int_equal(m.calls, 1);
	assert_int_equal(get(f, "rt.example"), FLEET_HIT);
	assert_string_equal(got_rec.id, "id1");
	assert_int_equal(got_rec.sts_mode, CACHE_STS_ENFORCE);
	/* the same record again: nothing to write */
	m.calls = 0;
	assert_int_equal(update(f, &m), FLEET_UNCHANGED);
	assert_int_equal(fleet_counters(f)[FLEET_C_WRITE], 1);
	assert_int_equal(fleet_counters(f)[FLEET_C_GET_MISS], 1);
	assert_int_equal(fleet_counters(f)[FLEET_C_GET_HIT], 1);
	fleet_free(f);
}

static void
conflict_then_retry(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "race.example", .interfere = 1 };

	(void)state;
	/* the other host writes an older enforce policy between our read
	 * and our write: the script sees other bytes, we merge again */
	m.theirs = sts("old", CACHE_STS_ENFORCE, 500);
	m.mine = sts("new", CACHE_STS_TESTING, 0);
	assert_int_equal(update(f, &m), FLEET_OK);
	assert_int_equal(m.calls, 2);
	assert_int_equal(fleet_counters(f)[FLEET_C_CONFLICT], 1);
	assert_int_equal(get(f, "race.example"), FLEET_HIT);
	assert_string_equal(got_rec.id, "new");	/* a new id may weaken */
	fleet_free(f);
}

static void
conflict_then_refusal(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "refuse.example", .interfere = 1 };

	(void)state;
	/* meanwhile the other host stores a NEWER fetch of the same id:
	 * ours is staler, the merge keeps theirs */
	m.mine = sts("same", CACHE_STS_ENFORCE, 100);
	m.theirs = sts("same", CACHE_STS_ENFORCE, 10);
	assert_int_equal(update(f, &m), FLEET_UNCHANGED);
	assert_int_equal(m.calls, 2);
	assert_int_equal(get(f, "refuse.example"), FLEET_HIT);
	assert_int_equal(got_rec.fetched_at, m.theirs.fetched_at);
	fleet_free(f);
}

static void
downgrade_is_refused(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "down.example" };

	(void)state;
	/* the fleet knows enforce under id "a"; a newer fetch that serves
	 * testing under the same id is what a tampered HTTPS answer looks
	 * like: refused by facts_merge's rule, the fleet's record stays */
	m.theirs = sts("a", CACHE_STS_ENFORCE, 100);
	put_other("down.example", &m.theirs, 0);
	m.mine = sts("a", CACHE_STS_TESTING, 0);
	assert_int_equal(update(f, &m), FLEET_UNCHANGED);
	assert_int_equal(fleet_counters(f)[FLEET_C_WRITE_UNCHANGED], 1);
	assert_int_equal(get(f, "down.example"), FLEET_HIT);
	assert_int_equal(got_rec.sts_mode, CACHE_STS_ENFORCE);
	fleet_free(f);
}

static void
conflicts_exhaust_tries(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "busy.example", .interfere = 100 };

	(void)state;
	m.theirs = sts("x", CACHE_STS_ENFORCE, 1000);
	m.mine = sts("y", CACHE_STS_ENFORCE, 0);
	assert_int_equal(update(f, &m), FLEET_CONFLICT);
	assert_int_equal(m.calls, FLEET_CAS_TRIES);
	assert_int_equal(fleet_counters(f)[FLEET_C_CONFLICT],
	    FLEET_CAS_TRIES);
	fleet_free(f);
}

static void
mac_required(void **state)
{
	struct config_fleet kcf = fcf;
	struct fleet	*f;
	struct merge_ctx m = { .key = "mac.example" };
	struct cache_record forged = sts("evil", CACHE_STS_NONE, 0);

	(void)state;
	kcf.key = (unsigned char *)mackey;
	kcf.keylen = sizeof(mackey) - 1;
	f = connected(&kcf);
	/* written by hand, unsigned: ignored and counted */
	put_other("mac.example", &forged, 0);
	assert_int_equal(get(f, "mac.example"), FLEET_REFUSED);
	assert_int_equal(fleet_counters(f)[FLEET_C_UNSIGNED], 1);
	/* a signed write replaces it (it counts as absent) */
	m.mine = sts("good", CACHE_STS_ENFORCE, 0);
	assert_int_equal(update(f, &m), FLEET_OK);
	assert_int_equal(get(f, "mac.example"), FLEET_HIT);
	assert_string_equal(got_rec.id, "good");
	/* signed with another key */
	fcf.key = NULL;
	{
		unsigned char	 v[FLEET_RECORD_MAX_LEN];
		size_t		 len;
		redisReply	*r;

		assert_int_equal(fleet_record_encode("mac.example", 11,
		    &forged, (const unsigned char *)"another-key-0123456789", 22,
		    v, sizeof(v), &len), 0);
		r = redisCommand(other, "SET " PREFIX "mac.example %b", v,
		    len);
		freeReplyObject(r);
	}
	assert_int_equal(get(f, "mac.example"), FLEET_REFUSED);
	assert_int_equal(fleet_counters(f)[FLEET_C_BAD_MAC], 1);
	fleet_free(f);
}

static void
key_expires_with_record(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "ttl.example" };
	redisReply	*r;

	(void)state;
	m.mine = sts("t", CACHE_STS_ENFORCE, 86000);	/* 400 s left */
	assert_int_equal(update(f, &m), FLEET_OK);
	r = redisCommand(other, "TTL " PREFIX "ttl.example");
	assert_int_equal(r->type, REDIS_REPLY_INTEGER);
	/* 400 s of max_age + 3600 s of grace */
	assert_in_range(r->integer, 3990, 4000);
	freeReplyObject(r);
	fleet_free(f);
}

static void
full_server_is_counted(void **state)
{
	struct fleet	*f = connected(&fcf);
	struct merge_ctx m = { .key = "full.example" };
	redisReply	*r;

	(void)state;
	r = redisCommand(other, "CONFIG SET maxmemory 1");
	freeReplyObject(r);
	m.mine = sts("f", CACHE_STS_ENFORCE, 0);
	assert_int_equal(update(f, &m), FLEET_FULL);
	assert_int_equal(fleet_counters(f)[FLEET_C_FULL], 1);
	/* reads still work */
	assert_int_equal(get(f, "full.example"), FLEET_MISS);
	r = redisCommand(other, "CONFIG SET maxmemory 0");
	freeReplyObject(r);
	assert_int_equal(update(f, &m), FLEET_OK);
	fleet_free(f);
}

static void
lease_once(void **state)
{
	struct fleet	*a = connected(&fcf), *b = connected(&fcf);

	(void)state;
	done = 0;
	assert_int_equal(fleet_lease(a, "lease.example", 5000, done_cb,
	    NULL), 0);
	run(3000);
	assert_int_equal(got_st, FLEET_OK);
	done = 0;
	assert_int_equal(fleet_lease(b, "lease.example", 5000, done_cb,
	    NULL), 0);
	run(3000);
	assert_int_equal(got_st, FLEET_HELD);
	fleet_unlease(a, "lease.example");
	done = 0;
	run(100);		/* the release is sent without a callback */
	done = 0;
	assert_int_equal(fleet_lease(b, "lease.example", 5000, done_cb,
	    NULL), 0);
	run(3000);
	assert_int_equal(got_st, FLEET_OK);
	fleet_free(a);
	fleet_free(b);
}

static void
read_only_does_not_write(void **state)
{
	struct config_fleet ro = fcf;
	struct fleet	*f;
	struct merge_ctx m = { .key = "ro.example" };

	(void)state;
	ro.mode = CONFIG_FLEET_READ_ONLY;
	f = connected(&ro);
	m.mine = sts("r", CACHE_STS_ENFORCE, 0);
	assert_int_equal(fleet_update(f, m.key, merge, done_cb, &m), -1);
	assert_int_equal(fleet_lease(f, "ro.example", 1000, done_cb, NULL),
	    -1);
	assert_int_equal(get(f, "ro.example"), FLEET_MISS);
	fleet_free(f);
}

static void
slow_server_times_out(void **state)
{
	struct fleet	*f = connected(&fcf), *g = connected(&fcf);
	const char	*argv[3] = { "DEBUG", "SLEEP", "1" };
	struct timespec	 t0, t1;
	long		 ms;

	(void)state;
	/* another connection puts the server to sleep for a second */
	assert_int_equal(fleet_command(g, 3, argv, NULL, NULL), 0);
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	usleep(50000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(get(f, "slow.example"), FLEET_TIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) /
	    1000000;
	assert_in_range(ms, fcf.timeout_ms - 10, fcf.timeout_ms + 150);
	assert_int_equal(fleet_counters(f)[FLEET_C_TIMEOUT], 1);
	/* down now: refused at once, then reconnected by itself */
	assert_false(fleet_up(f));
	assert_int_equal(fleet_get(f, "slow.example", get_cb, NULL), -1);
	done = 0;
	while (!fleet_up(f) && run(100) != 1)
		done = 0;
	assert_true(fleet_up(f));
	/* the server sleeps on: wait until it answers again */
	usleep(1000000);
	done = 0;
	run(300);
	assert_true(fleet_up(f));
	assert_int_equal(get(f, "slow.example"), FLEET_MISS);
	fleet_free(f);
	fleet_free(g);
}

static void
server_down_and_back(void **state)
{
	struct fleet	*f = connected(&fcf);
	int		 i;

	(void)state;
	redisFree(other);
	other = NULL;
	redis_stop();
	for (i = 0; i < 100 && fleet_up(f); i++) {
		done = 0;
		run(20);
	}
	assert_false(fleet_up(f));
	assert_int_equal(fleet_get(f, "x.example", get_cb, NULL), -1);
	assert_true(fleet_counters(f)[FLEET_C_DOWN] >= 1);
	assert_int_equal(fleet_counters(f)[FLEET_C_DISCONNECT], 1);
	/* restarted empty: the client reconnects within the backoff */
	redis_start();
	other = redisConnectUnix(sock);
	for (i = 0; i < 100 && !fleet_up(f); i++) {
		done = 0;
		run(50);
	}
	assert_true(fleet_up(f));
	assert_int_equal(get(f, "rt.example"), FLEET_MISS);
	fleet_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_write_round_trip),
		cmocka_unit_test(conflict_then_retry),
		cmocka_unit_test(conflict_then_refusal),
		cmocka_unit_test(downgrade_is_refused),
		cmocka_unit_test(conflicts_exhaust_tries),
		cmocka_unit_test(mac_required),
		cmocka_unit_test(key_expires_with_record),
		cmocka_unit_test(full_server_is_counted),
		cmocka_unit_test(lease_once),
		cmocka_unit_test(read_only_does_not_write),
		cmocka_unit_test(slow_server_times_out),
		cmocka_unit_test(server_down_and_back),
	};

	TEST_NEED("redis-server", "redis-server");
	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests(tests, setup, teardown));
}
