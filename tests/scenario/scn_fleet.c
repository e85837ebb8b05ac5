/*
 * scn_fleet.c - the fleet: the scenario's redis-server, the relays of both
 * hosts' fleet connections, "fleet" and "expect fleet" (built only with
 * the fleet tier, HAVE_FLEET: mk/fake.am)
 *
 * With "fleet", a scenario has a second host B (a second resolver in
 * this process and loop, its own cache and runtime_dir, IPC peer "b1":
 * scenario.c starts it with A) and a real redis-server of its own (on a
 * unix socket in the temporary directory); each host's fleet client
 * connects through a relay of this runner that passes whole RESP values
 * and counts them, so that the loop is idle only once Redis has answered
 * (scn_fleet_waiting, scn_fleet_wait), and that can hold Redis's replies
 * to one host (fleet hold b): the lease race of tests/e2e/fleet.sh,
 * staged without gdb.  Without redis-server on PATH such a file is
 * skipped (TAP "1..0 # SKIP").  Calls only scn_text.c (scenario_int.h).
 */
#include "autoconf.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "scenario_int.h"

/*
 * scn_resp_len - the length of the complete RESP value at p[0..n), 0 if
 * it is not complete yet, -1 if it is no RESP (hiredis speaks RESP2;
 * RESP3's types are read too)
 */
static long
scn_resp_len(const char *p, size_t n)
{
	const char	*nl;
	long long	 v, k;
	long		 len, sub;
	char		*end;

	if (n == 0)
		return (0);
	if ((nl = memchr(p, '\n', n)) == NULL)
		return (0);
	len = (long)(nl - p) + 1;
	switch (p[0]) {
	case '+': case '-': case ':': case '_': case ',': case '#': case '(':
		return (len);
	case '$': case '=': case '!':
		v = strtoll(p + 1, &end, 10);
		if (v < 0)
			return (len);
		return ((size_t)len + (size_t)v + 2 <= n ? len + (long)v + 2 :
		    0);
	case '*': case '~': case '>': case '%':
		v = strtoll(p + 1, &end, 10);
		if (p[0] == '%')
			v *= 2;
		for (k = 0; k < v; k++) {
			if ((sub = scn_resp_len(p + len, n - (size_t)len)) <= 0)
				return (sub);
			len += sub;
		}
		return (len);
	default:
		return (-1);
	}
}

/* scn_fleet_name - "a" or "b": the host of relay h */
static const char *
scn_fleet_name(int h)
{
	return (h == 0 ? "a" : "b");
}

/*
 * scn_fleet_move - move the complete RESP values read on fd "from" into
 * buffer b, and from b to fd "to" unless held; *count counts the values
 * moved.  Returns the values moved, -1 if a side closed.
 */
static int
scn_fleet_move(int from, int to, struct scn_fbuf *b, int held,
    long long *count)
{
	ssize_t		 n;
	long		 one;
	size_t		 off = 0, done = 0;
	int		 moved = 0;

	while (b->len < sizeof(b->data)) {
		n = recv(from, b->data + b->len, sizeof(b->data) - b->len,
		    MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0)
			return (-1);
		b->len += (size_t)n;
	}
	if (held)
		return (0);
	while ((one = scn_resp_len(b->data + off, b->len - off)) > 0) {
		off += (size_t)one;
		moved++;
	}
	if (one == -1)
		scn_bail("fleet relay: no RESP from %s", from == -1 ? "?" :
		    "a peer");
	while (done < off) {
		n = send(to, b->data + done, off - done, MSG_NOSIGNAL);
		if (n <= 0)
			return (-1);
		done += (size_t)n;
	}
	memmove(b->data, b->data + off, b->len - off);
	b->len -= off;
	*count += moved;
	return (moved);
}

int
scn_fleet_relay(void)
{
	struct sockaddr_un sun;
	struct scn_frelay *fr;
	int		 h, fd, got = 0, a, b;

	for (h = 0; h < 2 && S.fleet; h++) {
		fr = &S.frelay[h];
		if (fr->lfd != -1 && (fd = accept4(fr->lfd, NULL, NULL,
		    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
			if (fr->c != -1)
				close(fr->c);
			if (fr->s != -1)
				close(fr->s);
			fr->c = fd;
			fr->up.len = fr->down.len = 0;
			fr->requests = fr->replies = 0;
			memset(&sun, 0, sizeof(sun));
			sun.sun_family = AF_UNIX;
			snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
			    S.redis_sock);
			if ((fr->s = socket(AF_UNIX, SOCK_STREAM |
			    SOCK_CLOEXEC, 0)) == -1 ||
			    connect(fr->s, (struct sockaddr *)&sun,
			    sizeof(sun)) == -1)
				scn_bail("fleet relay: redis %s: %s",
				    S.redis_sock, strerror(errno));
			got++;
		}
		if (fr->c == -1)
			continue;
		a = scn_fleet_move(fr->c, fr->s, &fr->up, 0, &fr->requests);
		b = a == -1 ? -1 : scn_fleet_move(fr->s, fr->c, &fr->down,
		    fr->held, &fr->replies);
		if (a == -1 || b == -1) {
			close(fr->c);
			close(fr->s);
			fr->c = fr->s = -1;
			got++;
			continue;
		}
		got += a + b;
	}
	return (got);
}

int
scn_fleet_waiting(void)
{
	int	 h;

	for (h = 0; h < 2 && S.fleet; h++)
		if (S.frelay[h].c != -1 && !S.frelay[h].held &&
		    S.frelay[h].replies < S.frelay[h].requests)
			return (1);
	return (0);
}

void
scn_fleet_wait(void)
{
	struct pollfd	 pfd[2];
	int		 h, n = 0;

	for (h = 0; h < 2; h++)
		if (S.frelay[h].c != -1 && !S.frelay[h].held &&
		    S.frelay[h].replies < S.frelay[h].requests) {
			pfd[n].fd = S.frelay[h].s;
			pfd[n++].events = POLLIN;
		}
	if (n > 0 && poll(pfd, (nfds_t)n, SCN_REDIS_WAIT_MS) == 0)
		scn_bail("redis-server did not answer within %d ms",
		    SCN_REDIS_WAIT_MS);
}

void
scn_redis_stop(void)
{
	int	 h;

	for (h = 0; h < 2; h++) {
		if (S.frelay[h].c != -1)
			close(S.frelay[h].c);
		if (S.frelay[h].s != -1)
			close(S.frelay[h].s);
		if (S.frelay[h].lfd != -1)
			close(S.frelay[h].lfd);
		memset(&S.frelay[h], 0, sizeof(S.frelay[h]));
		S.frelay[h].lfd = S.frelay[h].c = S.frelay[h].s = -1;
	}
	if (S.redis_pid > 0) {
		kill(S.redis_pid, SIGTERM);
		(void)waitpid(S.redis_pid, NULL, 0);
	}
	S.redis_pid = 0;
	S.fleet = 0;
}

/* scn_redis_atexit - a bail-out (exit) stops redis-server too */
static void
scn_redis_atexit(void)
{
	if (S.redis_pid > 0)
		kill(S.redis_pid, SIGTERM);
}

/* scn_have_redis - redis-server is on PATH */
static int
scn_have_redis(void)
{
	const char	*path = getenv("PATH");
	char		 buf[PATH_MAX], *dirs, *d, *save = NULL;
	int		 found = 0;

	if (path == NULL || (dirs = strdup(path)) == NULL)
		return (0);
	for (d = strtok_r(dirs, ":", &save); d != NULL && !found;
	    d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/redis-server", d);
		found = access(buf, X_OK) == 0;
	}
	free(dirs);
	return (found);
}

void
cmd_fleet(int n, char **t)
{
	struct sockaddr_un sun;
	struct stat	 st;
	char		 path[PATH_MAX], line[PATH_MAX + 256];
	FILE		*fp;
	int		 h, i;

	if (n == 3 && (strcmp(t[1], "hold") == 0 ||
	    strcmp(t[1], "release") == 0)) {
		if (!S.fleet)
			scn_bail("fleet %s: no fleet", t[1]);
		if (strcmp(t[2], "a") != 0 && strcmp(t[2], "b") != 0)
			scn_bail("fleet %s a|b", t[1]);
		S.frelay[t[2][0] == 'a' ? 0 : 1].held = t[1][0] == 'h';
		return;
	}
	if (n != 1)
		scn_bail("fleet | fleet hold|release a|b");
	if (S.cf != NULL || S.fleet)
		scn_bail("fleet: before the resolver starts, once");
	if (!scn_have_redis()) {
		if (S.ntests > 0)
			scn_bail("redis-server not installed");
		printf("1..0 # SKIP redis-server not installed\n");
		exit(0);
	}
	snprintf(S.redis_sock, sizeof(S.redis_sock), "%.79s/redis.sock",
	    S.tmp);
	if (!S.redis_atexit) {
		(void)atexit(scn_redis_atexit);
		S.redis_atexit = 1;
	}
	if ((S.redis_pid = fork()) == 0) {
		/* no redis-server outlives the runner, even a crashed one */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		execlp("redis-server", "redis-server", "--port", "0",
		    "--unixsocket", S.redis_sock, "--save", "", "--appendonly",
		    "no", "--dir", S.tmp, "--logfile", "redis.log",
		    "--loglevel", "warning", (char *)NULL);
		_exit(127);
	}
	if (S.redis_pid == -1)
		scn_bail("fork: %s", strerror(errno));
	for (i = 0; i < 500 && stat(S.redis_sock, &st) == -1; i++)
		usleep(10000);
	if (i == 500)
		scn_bail("redis-server did not start");
	S.fleet = 1;
	snprintf(path, sizeof(path), "%.79s/fleet.key", S.tmp);
	if ((fp = fopen(path, "w")) == NULL || fchmod(fileno(fp), 0600) ==
	    -1 || fputs("scenario-fleet-key-0123456789abcdef\n", fp) < 0 ||
	    fclose(fp) != 0)
		scn_bail("%s: %s", path, strerror(errno));
	for (h = 0; h < 2; h++) {
		snprintf(S.frelay[h].sock, sizeof(S.frelay[h].sock),
		    "%.79s/fleet-%s.sock", S.tmp, scn_fleet_name(h));
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		    S.frelay[h].sock);
		if ((S.frelay[h].lfd = socket(AF_UNIX, SOCK_STREAM |
		    SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1 ||
		    bind(S.frelay[h].lfd, (struct sockaddr *)&sun,
		    sizeof(sun)) == -1 || listen(S.frelay[h].lfd, 16) == -1)
			scn_bail("fleet relay %s: %s", S.frelay[h].sock,
			    strerror(errno));
	}
	snprintf(line, sizeof(line), "\tkey_file = \"%s\"\n\tprefix = "
	    "\"scn:\"\n\ttimeout = 1\n\tlease = 20\n\tlease_wait = 3\n}\n",
	    path);
	if ((S.fleet_line = strdup(line)) == NULL)
		abort();
}

void
expect_fleet(int n, char **t)
{
	redisContext	*rc;
	redisReply	*rep;
	long long	 got;

	if (n != 3 || (strcmp(t[2], "present") != 0 &&
	    strcmp(t[2], "absent") != 0))
		scn_bail("expect fleet KEY present|absent");
	if (!S.fleet)
		scn_bail("expect fleet: no fleet");
	if ((rc = redisConnectUnix(S.redis_sock)) == NULL || rc->err)
		scn_bail("expect fleet: cannot connect to redis");
	rep = redisCommand(rc, "EXISTS scn:%s", t[1]);
	if (rep == NULL || rep->type != REDIS_REPLY_INTEGER)
		scn_bail("expect fleet: EXISTS failed");
	got = rep->integer;
	freeReplyObject(rep);
	redisFree(rc);
	if ((got != 0) != (t[2][0] == 'p'))
		scn_fail("fleet %s: expected %s, seen %s", t[1], t[2],
		    got != 0 ? "present" : "absent");
}
