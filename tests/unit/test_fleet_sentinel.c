/*
 * test_fleet_sentinel.c - the fleet client finds the master through Redis
 * Sentinel, follows a failover, and leaves a replica that answers READONLY
 *
 * The test starts its own three redis-server processes on 127.0.0.1 (free
 * ports found by the kernel): a master, a replica of it and a sentinel
 * monitoring the master with quorum 1 and a 200 ms down-after, in a
 * temporary directory, no persistence.  No mock: redis-server (which
 * runs as a sentinel with --sentinel) is a test dependency
 * (contrib/install-deps.sh --test).  A failover takes a few seconds.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

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

#define PREFIX	"s:"
#define MASTER	"pstest"

enum { R_MASTER, R_REPLICA, R_SENTINEL, R_COUNT };

static char	 dir[64];
static int	 port[R_COUNT];
static pid_t	 pid[R_COUNT] = { -1, -1, -1 };
static struct event_base *base;
static struct config_cache cc = { .negative_ttl = 300 };

/* free_port - a TCP port on 127.0.0.1 nobody listens on (now) */
static int
free_port(void)
{
	struct sockaddr_in sin;
	socklen_t	 len = sizeof(sin);
	int		 s, p;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		fail_msg("cannot find a free port");
	p = ntohs(sin.sin_port);
	close(s);
	return (p);
}

/* command - one command on a fresh blocking connection to port; the
 * reply (caller frees) or NULL */
static redisReply *
command(int p, const char *fmt, ...)
{
	redisContext	*c;
	redisReply	*r;
	va_list		 ap;
	struct timeval	 tv = { 1, 0 };

	if ((c = redisConnectWithTimeout("127.0.0.1", p, tv)) == NULL ||
	    c->err) {
		if (c != NULL)
			redisFree(c);
		return (NULL);
	}
	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	return (r);
}

/* answers - p answers PING */
static int
answers(int p)
{
	redisReply	*r = command(p, "PING");
	int		 ok = r != NULL && r->type == REDIS_REPLY_STATUS;

	if (r != NULL)
		freeReplyObject(r);
	return (ok);
}

/* start - one redis-server, argv after the program name */
static void
start(int which, const char *conf, const char *replicaof)
{
	char	 p[16], logf[96], sub[96];

	snprintf(p, sizeof(p), "%d", port[which]);
	snprintf(sub, sizeof(sub), "%s/%d", dir, which);
	snprintf(logf, sizeof(logf), "%s/%d.log", dir, which);
	mkdir(sub, 0700);
	if ((pid[which] = fork()) == 0) {
		if (conf != NULL)
			execlp("redis-server", "redis-server", conf,
			    "--sentinel", "--port", p, "--bind", "127.0.0.1",
			    "--dir", sub, "--logfile", logf, (char *)NULL);
		else if (replicaof != NULL)
			execlp("redis-server", "redis-server", "--port", p,
			    "--bind", "127.0.0.1", "--save", "",
			    "--appendonly", "no", "--dir", sub, "--logfile",
			    logf, "--replicaof", "127.0.0.1", replicaof,
			    (char *)NULL);
		else
			execlp("redis-server", "redis-server", "--port", p,
			    "--bind", "127.0.0.1", "--save", "",
			    "--appendonly", "no", "--dir", sub, "--logfile",
			    logf, (char *)NULL);
		_exit(127);
	}
}

static void
stop(int which, int sig)
{
	int	 status;

	if (pid[which] > 0) {
		kill(pid[which], sig);
		waitpid(pid[which], &status, 0);
		pid[which] = -1;
	}
}

/* sentinel_ready - the sentinel knows the master and its replica */
static int
sentinel_ready(void)
{
	redisReply	*r = command(port[R_SENTINEL], "SENTINEL replicas %s",
	    MASTER);
	int		 ok = r != NULL && r->type == REDIS_REPLY_ARRAY &&
	    r->elements >= 1;

	if (r != NULL)
		freeReplyObject(r);
	return (ok);
}

static int
setup(void **state)
{
	char	 conf[96], mp[16];
	FILE	*fp;
	int	 i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_fleet_sentinel.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return (-1);
	for (i = 0; i < R_COUNT; i++)
		port[i] = free_port();
	snprintf(mp, sizeof(mp), "%d", port[R_MASTER]);
	snprintf(conf, sizeof(conf), "%s/sentinel.conf", dir);
	if ((fp = fopen(conf, "w")) == NULL)
		return (-1);
	fprintf(fp, "sentinel monitor %s 127.0.0.1 %d 1\n"
	    "sentinel down-after-milliseconds %s 200\n"
	    "sentinel failover-timeout %s 2000\n", MASTER, port[R_MASTER],
	    MASTER, MASTER);
	fclose(fp);
	start(R_MASTER, NULL, NULL);
	for (i = 0; i < 500 && !answers(port[R_MASTER]); i++)
		usleep(10000);
	start(R_REPLICA, NULL, mp);
	start(R_SENTINEL, conf, NULL);
	for (i = 0; i < 500 && !(answers(port[R_REPLICA]) &&
	    answers(port[R_SENTINEL])); i++)
		usleep(10000);
	/* the sentinel learns the replica from the master's INFO */
	for (i = 0; i < 300 && !sentinel_ready(); i++)
		usleep(50000);
	if (!sentinel_ready())
		fail_msg("redis-server --sentinel did not see the replica "
		    "(installed? contrib/install-deps.sh --test)");
	base = event_base_new();
	return (0);
}

static int
teardown(void **state)
{
	char	 cmd[128];
	int	 i;

	(void)state;
	for (i = 0; i < R_COUNT; i++)
		stop(i, SIGTERM);
	event_base_free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return (-1);
	return (0);
}

/* -- driving the loop --------------------------------------------------- */

#include "evloop.inc"

static enum fleet_status got_st;

/* up_within - loop until f is up or ms pass */
static int
up_within(struct fleet *f, int ms)
{
	int	 i;

	for (i = 0; i < ms / 50 && !fleet_up(f); i++) {
		done = 0;
		run(50);
	}
	return (fleet_up(f));
}

static void
done_cb(void *arg, enum fleet_status st)
{
	(void)arg;
	got_st = st;
	done = 1;
}

/* merge - write mine over whatever is there (the gate decides) */
static int
merge(void *arg, const struct cache_record *cur, struct cache_record *out)
{
	const struct cache_record *mine = arg;

	return (fleet_facts_take("sentinel.example", 16, cur, mine, &cc,
	    (int64_t)time(NULL), out, NULL));
}

/* put - a fresh enforce record for sentinel.example; the status */
static enum fleet_status
put(struct fleet *f, int64_t age)
{
	static char	 mx[] = "mx.sentinel.example";
	struct cache_record r;
	int64_t		 now = (int64_t)time(NULL);

	memset(&r, 0, sizeof(r));
	r.kind = CACHE_KIND_STS;
	r.sts_mode = CACHE_STS_ENFORCE;
	r.max_age = 86400;
	r.fetched_at = now - age;
	r.expires_at = r.fetched_at + 86400;
	r.next_refresh = r.fetched_at + 43200;
	snprintf(r.id, sizeof(r.id), "s%lld", (long long)age);
	r.nmx = 1;
	r.mx = mx;
	r.mxlen = r.mxcap = sizeof(mx);
	done = 0;
	if (fleet_update(f, "sentinel.example", merge, done_cb, &r) == -1)
		return (FLEET_DOWN);
	assert_int_equal(run(3000), 1);
	return (got_st);
}

/* stored_at - port holds the record (a GET on a blocking connection) */
static int
stored_at(int p)
{
	redisReply	*r = command(p, "EXISTS " PREFIX "sentinel.example");
	int		 ok = r != NULL && r->type == REDIS_REPLY_INTEGER &&
	    r->integer == 1;

	if (r != NULL)
		freeReplyObject(r);
	return (ok);
}

static void
fcf_init(struct config_fleet *fcf)
{
	memset(fcf, 0, sizeof(*fcf));
	fcf->enabled = 1;
	fcf->mode = CONFIG_FLEET_READ_WRITE;
	fcf->prefix = PREFIX;
	fcf->timeout_ms = 500;
	fcf->connect_timeout_ms = 1000;
	fcf->lease = 10;
	fcf->lease_wait_ms = 1000;
	fcf->grace = 3600;
}

/* spec - a config_fleet_server for 127.0.0.1:p (static storage, n of 2) */
static struct config_fleet_server *
spec(int n, int p)
{
	static char	 text[2][32];
	static char	 host[] = "127.0.0.1";
	static struct config_fleet_server sv[2];

	snprintf(text[n], sizeof(text[n]), "127.0.0.1:%d", p);
	sv[n].spec = text[n];
	sv[n].host = host;
	sv[n].port = p;
	return (&sv[n]);
}

/* -- tests ------------------------------------------------------------- */

/* a server list that starts with a replica: READONLY, then the master */
static void
replica_answering_readonly_is_left(void **state)
{
	struct config_fleet fcf;
	struct config_fleet_server sv[2];
	struct fleet	*f;
	char		 want[64];

	(void)state;
	fcf_init(&fcf);
	sv[0] = *spec(0, port[R_REPLICA]);
	sv[1] = *spec(1, port[R_MASTER]);
	fcf.servers = sv;
	fcf.nservers = 2;
	f = fleet_new(base, &fcf);
	assert_true(up_within(f, 3000));
	snprintf(want, sizeof(want), ":%d", port[R_REPLICA]);
	assert_non_null(strstr(fleet_server(f), want));
	/* the replica refuses the write: the client moves on */
	assert_int_equal(put(f, 30), FLEET_DOWN);
	assert_true(up_within(f, 3000));
	snprintf(want, sizeof(want), ":%d", port[R_MASTER]);
	assert_non_null(strstr(fleet_server(f), want));
	assert_int_equal(put(f, 30), FLEET_OK);
	assert_true(stored_at(port[R_MASTER]));
	fleet_free(f);
}

/*
 * a list naming only a replica: every write refused READONLY, every
 * reconnect taken.  The backoff must keep doubling (no reconnect loop
 * every 100 ms, 3 log lines each): over 3 s of writes, at most 6 connects
 * (100+200+400+800+1600 ms), not ~25
 */
static void
replica_only_backs_off(void **state)
{
	struct config_fleet fcf;
	struct config_fleet_server sv[1];
	struct fleet	*f;
	int		 i;
	uint64_t	 connects;

	(void)state;
	fcf_init(&fcf);
	sv[0] = *spec(0, port[R_REPLICA]);
	fcf.servers = sv;
	fcf.nservers = 1;
	f = fleet_new(base, &fcf);
	assert_true(up_within(f, 3000));
	for (i = 0; i < 60; i++) {
		if (fleet_up(f))
			(void)put(f, 30);
		done = 0;
		run(50);
	}
	connects = fleet_counters(f)[FLEET_C_CONNECT];
	print_message("# replica only: %llu connects in 3 s\n",
	    (unsigned long long)connects);
	assert_true(connects >= 2);
	assert_true(connects <= 6);
	fleet_free(f);
}

/* a sentinel that does not know the name: never up, said so */
static void
unknown_master_name(void **state)
{
	struct config_fleet fcf;
	struct fleet	*f;

	(void)state;
	fcf_init(&fcf);
	fcf.sentinels = spec(0, port[R_SENTINEL]);
	fcf.nsentinels = 1;
	fcf.master_name = "nosuch";
	f = fleet_new(base, &fcf);
	assert_false(up_within(f, 1000));
	assert_true(fleet_counters(f)[FLEET_C_CONNECT_FAIL] >= 1);
	assert_non_null(strstr(fleet_server(f), "sentinel 127.0.0.1:"));
	fleet_free(f);
}

/* the sentinel names the master; a failover is followed */
static void
master_through_sentinel_and_failover(void **state)
{
	struct config_fleet fcf;
	struct fleet	*f;
	char		 want[96];
	int		 i;

	(void)state;
	fcf_init(&fcf);
	fcf.sentinels = spec(0, port[R_SENTINEL]);
	fcf.nsentinels = 1;
	fcf.master_name = MASTER;
	f = fleet_new(base, &fcf);
	assert_true(up_within(f, 3000));
	snprintf(want, sizeof(want), "127.0.0.1:%d (master %s, from "
	    "sentinel 127.0.0.1:%d)", port[R_MASTER], MASTER,
	    port[R_SENTINEL]);
	assert_string_equal(fleet_server(f), want);
	assert_int_equal(put(f, 20), FLEET_OK);
	assert_true(stored_at(port[R_MASTER]));
	/* the master dies: the sentinel promotes the replica */
	stop(R_MASTER, SIGKILL);
	for (i = 0; i < 40 && fleet_up(f); i++) {
		done = 0;
		run(50);
	}
	assert_false(fleet_up(f));
	assert_true(up_within(f, 20000));
	snprintf(want, sizeof(want), "127.0.0.1:%d (master %s",
	    port[R_REPLICA], MASTER);
	assert_non_null(strstr(fleet_server(f), want));
	assert_int_equal(put(f, 10), FLEET_OK);
	assert_true(stored_at(port[R_REPLICA]));
	assert_true(fleet_counters(f)[FLEET_C_DISCONNECT] >= 1);
	fleet_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replica_answering_readonly_is_left),
		cmocka_unit_test(replica_only_backs_off),
		cmocka_unit_test(unknown_master_name),
		cmocka_unit_test(master_through_sentinel_and_failover),
	};

	TEST_NEED("redis-server", "redis-server");
	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests(tests, setup, teardown));
}
