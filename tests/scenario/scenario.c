/*
 * scenario.c - the resolver's and the worker's state machines in virtual
 * time, from scripts
 *
 * Usage: scenario FILE.scn ...  Each "scenario" block of each file is one
 * TAP test.  The language is in tests/scenario/README.md; in short: config
 * lines, DNS answers and fetch results scripted per name (tests/fake/),
 * requests sent by workers, time let pass, and expectations on the
 * replies, the queries and fetches made, the cache records committed, the
 * counters and the log lines.
 *
 * What runs is the daemon's own resolver (daemon/resolver*.c, through
 * resolver_new/resolver_free), in this process, on an event base of its
 * own: the real IPC codec over real SEQPACKET sockets (a listener in a
 * temporary directory; each worker is one connection, as a front
 * worker's resolver client is), the real LMDB cache in that directory,
 * the real discovery (policy/discover.c), DANE walk (policy/dane.c) and
 * merge rules (policy/facts.c).  Only dns.h and https.h are fakes
 * (link-time substitution), and time is virtual: lib/clock.h is faked
 * (clock_fake) and libevent's timers are kept by tests/fake/fake_event.c,
 * so "pass 1d" runs a day of refresh ticks in milliseconds.
 *
 * A "worker" of the send/expect reply commands is an IPC peer that sends
 * what a worker would send.  The front worker itself runs too once a
 * "postfix" command asks it something (scn_postfix.c); with "fleet", a
 * second host B and a redis-server of the scenario's (scn_fleet.c).
 *
 * This file: main, each line of a script to its command (scn_line), the
 * scenario blocks (scn_begin, scn_end), the configuration, the resolver
 * (and host B's) started and stopped, the IPC peers (send, the replies
 * they read), the loop run until idle (scn_idle, scn_busy).  The words
 * are scn_text.c's, the DNS and HTTPS scripting scn_fake.c's, the
 * expectations scn_expect.c's; which file calls which, and why:
 * scenario_int.h.
 *
 * Not here: the sandbox, signals, the master.
 *
 * A failed expectation prints "# FILE:LINE: what: expected ..., seen
 * ..." and fails its scenario; the others carry on.  A line that does not
 * parse stops the file (TAP "Bail out!").  Exit status 0 if every
 * scenario passed, 1 if one failed, 2 on a bail-out.
 */
#include "autoconf.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <linux/sockios.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/child.h"
#include "lib/ipc.h"
#include "daemon/resolver.h"
#include "daemon/stats.h"
#include "lib/cache_record.h"
#include "lib/clock.h"
#include "conf/config_load.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/preload_store.h"
#include "policy/preload_list.h"
#include "fake_dns.h"
#include "fake_event.h"
#include "fake_https.h"
#include "scenario_int.h"

struct scn	 S;

/* ---- the log lines ---- */

/* scn_log_hook - keep every log line of the scenario (log_set_hook) */
static void
scn_log_hook(int pri, const char *line, void *arg)
{
	(void)pri;
	(void)arg;
	if (S.nlog >= SCN_MAX_LOG) {
		S.dropped_log++;
		return;
	}
	if (S.nlog % 1024 == 0 &&
	    (S.log = realloc(S.log, (S.nlog + 1024) * sizeof(*S.log))) ==
	    NULL)
		abort();
	if ((S.log[S.nlog++] = strdup(line)) == NULL)
		abort();
}

/* ---- the world: the resolver, its loop, the workers ---- */

/* scn_rm - nftw callback: remove one entry */
static int
scn_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return (remove(path));
}

const char *
scn_peer_name(int i)
{
	static char	 buf[4][16];
	static int	 k;

	k = (k + 1) % 4;
	if (i == SCN_B)
		return ("b1");
	snprintf(buf[k], sizeof(buf[k]), "w%d", i + 1);
	return (buf[k]);
}

/* scn_worker_connect - worker i connects to the resolver's listener
 * (SCN_B: host B's) */
static void
scn_worker_connect(int i)
{
	struct sockaddr_un sun;
	int		 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (i == SCN_B)
		(void)ipc_resolver_addr(S.bdir, 0, &sun);
	else
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", S.sock);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		scn_bail("worker %s cannot connect: %s", scn_peer_name(i),
		    strerror(errno));
	S.w[i].fd = fd;
}

/*
 * cmd_preload - "preload NAME TEXT": an EFF-format list imported into
 * the scenario's preload store as postsmtpsts-cache preload does after
 * the signature (tests/e2e/preload.sh checks that part): parsed
 * strictly, refused when expired or older than the one held; a refusal
 * fails the scenario unless the line ends with "refused"
 */
static void
cmd_preload(int n, char **t)
{
	struct preload_store_list meta;
	struct preload_store_entry *e;
	struct preload_store *ps;
	struct preload_list *l;
	char		 why[1024], path[PATH_MAX];
	size_t		 i;
	int		 want_refused, rc = -1;

	want_refused = n == 4 && strcmp(t[3], "refused") == 0;
	if (n != 3 && !want_refused)
		scn_bail("preload NAME TEXT [refused]");
	l = preload_list_parse(t[1], t[2], strlen(t[2]), why, sizeof(why));
	if (l != NULL && l->expires <= clock_wall()) {
		snprintf(why, sizeof(why), "%s: expires: expired", t[1]);
		preload_list_free(l);
		l = NULL;
	}
	if (l != NULL) {
		snprintf(path, sizeof(path), "%s/preload", S.tmp);
		if ((ps = preload_store_open(path, 0, why, sizeof(why))) ==
		    NULL)
			scn_bail("%s", why);
		memset(&meta, 0, sizeof(meta));
		snprintf(meta.name, sizeof(meta.name), "%s", t[1]);
		meta.timestamp = l->timestamp;
		meta.expires = l->expires;
		meta.loaded_at = clock_wall();
		snprintf(meta.source, sizeof(meta.source), "scenario");
		e = calloc(l->n > 0 ? l->n : 1, sizeof(*e));
		if (e == NULL)
			abort();
		for (i = 0; i < l->n; i++) {
			e[i].domain = l->e[i].domain;
			e[i].mode = l->e[i].mode;
			e[i].nmx = l->e[i].nmx;
			e[i].mx = l->e[i].mx;
			e[i].mxlen = l->e[i].mxlen;
		}
		rc = preload_store_replace(ps, &meta, e, l->n, why,
		    sizeof(why));
		free(e);
		preload_store_close(ps);
		preload_list_free(l);
	}
	if (rc == 0 && want_refused)
		scn_fail("preload %s: imported, expected a refusal", t[1]);
	else if (rc != 0 && !want_refused)
		scn_fail("preload %s: refused: %s", t[1], why);
	else if (rc != 0)
		log_info("preload refused: %s", why);	/* for expect log */
}

/* scn_config_load - this scenario's configuration with runtime_dir and
 * cache dir; fleet: the fleet server (a relay's socket), or NULL */
static struct config *
scn_config_load(const char *runtime_dir, const char *cachedir,
    const char *fleet)
{
	struct config	*cf;
	char		 err[4096], *text;
	size_t		 len;

	len = S.conflen + 4 * PATH_MAX + 1024;
	if ((text = malloc(len)) == NULL)
		abort();
	/* one resolver: the runner runs one (two hosts' with fleet) */
	snprintf(text, len, "resolvers = 1\nruntime_dir = \"%s\"\n"
	    "cache {\n\tpath = \"%s\"\n}\n"
	    "preload {\n\tpath = \"%s/preload\"\n}\n%s%s%s%s%s%s",
	    runtime_dir, cachedir, S.tmp,
	    S.have_map ? "" : "map \"sts\" {\n\tdane = no\n}\n",
	    S.conf != NULL ? S.conf : "",
	    fleet != NULL ? "fleet {\n\tservers = { \"" : "",
	    fleet != NULL ? fleet : "", fleet != NULL ? "\" }\n" : "",
	    fleet != NULL ? S.fleet_line : "");
	cf = config_load_buffer(S.file, text, strlen(text), err, sizeof(err));
	free(text);
	if (cf == NULL)
		scn_bail("configuration refused:\n%s", err);
	return (cf);
}

/*
 * scn_config - load this scenario's configuration (once): the
 * resolver's, and the worker's, the same but for its runtime_dir, so
 * that the worker's resolver socket is the runner's relay (S.relay)
 */
static void
scn_config(void)
{
	if (S.cf != NULL)
		return;
	S.cf = scn_config_load(S.tmp, S.cachedir, S.fleet ?
	    S.frelay[0].sock : NULL);
	S.wcf = scn_config_load(S.wdir, S.cachedir, NULL);
	if (S.fleet)
		S.cfb = scn_config_load(S.bdir, S.bcachedir,
		    S.frelay[1].sock);
}

void
scn_start(void)
{
	struct sockaddr_un sun;
	int		 i;

	if (S.r != NULL)
		return;
	scn_config();
	if (S.lfd == -1) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", S.sock);
		if ((S.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
		    0)) == -1 ||
		    bind(S.lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
		    listen(S.lfd, SOMAXCONN) == -1)
			scn_bail("resolver socket %s: %s", S.sock,
			    strerror(errno));
	}
	S.r = resolver_new(S.cf, 0, S.lfd, S.base);
	if (S.nw == 0)
		S.nw = 1;
	for (i = 0; i < S.nw; i++)
		scn_worker_connect(i);
	if (!S.fleet)
		return;
	if (S.lfdb == -1) {
		if (mkdir(S.bdir, 0700) == -1 ||
		    ipc_resolver_addr(S.bdir, 0, &sun) == -1 ||
		    (S.lfdb = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
		    0)) == -1 ||
		    bind(S.lfdb, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
		    listen(S.lfdb, SOMAXCONN) == -1)
			scn_bail("host B's resolver socket: %s",
			    strerror(errno));
	}
	S.rb = resolver_new(S.cfb, 0, S.lfdb, S.base);
	scn_worker_connect(SCN_B);
}

/* scn_stop - the resolver stops (orderly, or as if killed) and the
 * workers lose their connections; the cache and the replies received
 * stay */
static void
scn_stop(int crash)
{
	int	 i;

	if (S.r == NULL)
		return;
	if (crash)
		resolver_crash(S.r);
	else
		resolver_free(S.r);
	S.r = NULL;
	for (i = 0; i < S.nw; i++) {
		close(S.w[i].fd);
		S.w[i].fd = -1;
	}
	if (S.rb == NULL)
		return;
	resolver_free(S.rb);
	S.rb = NULL;
	close(S.w[SCN_B].fd);
	S.w[SCN_B].fd = -1;
}

/* scn_read_replies - every reply waiting on the workers' sockets;
 * returns how many */
static int
scn_read_replies(void)
{
	static unsigned char msg[IPC_MAX_MSG];
	struct ipc_reply rep;
	struct scn_peer	*w;
	struct reply	*r;
	ssize_t		 n;
	int		 i, got = 0;

	for (i = 0; i <= SCN_B; i = i + 1 == S.nw ? SCN_B : i + 1) {
		w = &S.w[i];
		while (w->fd != -1 &&
		    (n = recv(w->fd, msg, sizeof(msg), MSG_DONTWAIT)) > 0) {
			got++;
			if (ipc_reply_decode(msg, (size_t)n, &rep) == -1) {
				scn_fail("%s: a reply that does not decode "
				    "(%zd bytes)", scn_peer_name(i), n);
				continue;
			}
			if (w->nreplies == w->cap) {
				w->cap = w->cap == 0 ? 64 : w->cap * 2;
				if ((w->replies = realloc(w->replies,
				    w->cap * sizeof(*w->replies))) == NULL)
					abort();
			}
			r = &w->replies[w->nreplies++];
			memset(r, 0, sizeof(*r));
			cache_record_init(&r->sts);
			cache_record_init(&r->dane);
			memcpy(r->domain, rep.domain, rep.domain_len);
			r->domain[rep.domain_len] = '\0';
			r->status = rep.status;
			if (rep.record_len > 0 && cache_record_decode(
			    rep.record, rep.record_len, &r->sts) !=
			    CACHE_DECODE_OK)
				scn_fail("%s: reply for %s: the MTA-STS "
				    "record does not decode", scn_peer_name(i),
				    r->domain);
			else
				r->have_sts = rep.record_len > 0;
			if (rep.dane_len > 0 && cache_record_decode(rep.dane,
			    rep.dane_len, &r->dane) != CACHE_DECODE_OK)
				scn_fail("%s: reply for %s: the DANE record "
				    "does not decode", scn_peer_name(i),
				    r->domain);
			else
				r->have_dane = rep.dane_len > 0;
		}
	}
	return (got);
}

/* scn_busy - work the resolver has not picked up yet: a connection
 * waiting on the listener, requests not read from a worker's socket */
static int
scn_busy(void)
{
	struct pollfd	 pfd;
	int		 i, outq;

	pfd.fd = S.lfd;
	pfd.events = POLLIN;
	if (S.r != NULL && poll(&pfd, 1, 0) > 0)
		return (1);
	for (i = 0; i < S.nw; i++)
		if (S.w[i].fd != -1 && S.r != NULL &&
		    ioctl(S.w[i].fd, SIOCOUTQ, &outq) == 0 && outq > 0)
			return (1);
	if (S.rb != NULL) {
		pfd.fd = S.lfdb;
		if (poll(&pfd, 1, 0) > 0 || (S.w[SCN_B].fd != -1 &&
		    ioctl(S.w[SCN_B].fd, SIOCOUTQ, &outq) == 0 && outq > 0))
			return (1);
	}
#ifdef HAVE_FLEET
	for (i = 0; i < 2 && S.fleet; i++) {
		pfd.fd = S.frelay[i].lfd;
		if (poll(&pfd, 1, 0) > 0)
			return (1);
	}
	if (scn_fleet_waiting()) {
		scn_fleet_wait();
		return (1);
	}
#endif
	if (S.wk == NULL)
		return (0);
	pfd.fd = S.wlfd;
	if (poll(&pfd, 1, 0) > 0)
		return (1);
	pfd.fd = S.relay_lfd;
	if (poll(&pfd, 1, 0) > 0)
		return (1);
	for (i = 0; i < S.nc; i++)
		if (S.c[i].fd != -1 &&
		    ioctl(S.c[i].fd, SIOCOUTQ, &outq) == 0 && outq > 0)
			return (1);
	/* relayed and not yet read, either way */
	if ((S.relay_r != -1 && ioctl(S.relay_r, SIOCOUTQ, &outq) == 0 &&
	    outq > 0) || (S.relay_w != -1 && ioctl(S.relay_w, SIOCOUTQ,
	    &outq) == 0 && outq > 0))
		return (1);
	return (0);
}

/*
 * scn_idle - run the loop until nothing is left to do at this virtual
 * time: no timer due, no request or connection unread, no reply arriving
 * (two quiet turns in a row; three with the in-process worker)
 */
static void
scn_idle(void *arg)
{
	int	 quiet = 0, rounds = 0, act;

	(void)arg;
	while (quiet < (S.wk != NULL ? 3 : 2)) {
		act = fake_event_turn(S.base);
		act += scn_read_replies();
		act += scn_read_answers();
		act += scn_relay();
#ifdef HAVE_FLEET
		act += scn_fleet_relay();
#endif
		act += scn_busy();
		quiet = act > 0 ? 0 : quiet + 1;
		if (++rounds > SCN_MAX_ROUNDS)
			scn_bail("the loop never went idle");
	}
}

/* ---- scenario blocks ---- */

/* scn_end - finish the scenario block: its TAP line; free its world */
static void
scn_end(void)
{
	int	 i;
	size_t	 k;

	if (!S.in)
		return;
	scn_worker_stop();
	scn_stop(0);
	if (S.lfd != -1)
		close(S.lfd);
	S.lfd = -1;
	if (S.lfdb != -1)
		close(S.lfdb);
	S.lfdb = -1;
	config_free(S.cfb);
	S.cfb = NULL;
	free(S.fleet_line);
	S.fleet_line = NULL;
#ifdef HAVE_FLEET
	scn_redis_stop();
#endif
	event_base_free(S.base);
	S.base = NULL;
	config_free(S.cf);
	S.cf = NULL;
	config_free(S.wcf);
	S.wcf = NULL;
	free(S.conf);
	S.conf = NULL;
	S.conflen = 0;
	fake_dns_reset();
	fake_https_reset();
	for (i = 0; i <= SCN_B; i++) {
		for (k = 0; k < S.w[i].nreplies; k++) {
			cache_record_release(&S.w[i].replies[k].sts);
			cache_record_release(&S.w[i].replies[k].dane);
		}
		free(S.w[i].replies);
		memset(&S.w[i], 0, sizeof(S.w[i]));
		S.w[i].fd = -1;
	}
	S.nw = 0;
	for (k = 0; k < S.nlog; k++)
		free(S.log[k]);
	free(S.log);
	S.log = NULL;
	S.nlog = S.logmark = 0;
	(void)nftw(S.tmp, scn_rm, 16, FTW_DEPTH | FTW_PHYS);
	S.ntests++;
	if (S.failed)
		S.nfailed++;
	printf("%sok %d - %s\n", S.failed ? "not " : "", S.ntests, S.name);
	fflush(stdout);
	S.in = 0;
}

/* scn_begin - a new scenario: a fresh world at the start time */
static void
scn_begin(const char *name)
{
	const char	*tmpdir;
	int		 i;

	scn_end();
	memset(S.name, 0, sizeof(S.name));
	snprintf(S.name, sizeof(S.name), "%s", name);
	S.in = 1;
	S.failed = 0;
	S.have_map = 0;
	S.lfd = -1;
	S.wlfd = S.relay_lfd = S.relay_w = S.relay_r = -1;
	for (i = 0; i <= SCN_B; i++)
		S.w[i].fd = -1;
	S.lfdb = -1;
	for (i = 0; i < 2; i++)
		S.frelay[i].lfd = S.frelay[i].c = S.frelay[i].s = -1;
	for (i = 0; i < SCN_MAX_CLIENTS; i++)
		S.c[i].fd = -1;
	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	if ((size_t)snprintf(S.tmp, sizeof(S.tmp), "%s/scenario.XXXXXX",
	    tmpdir) >= sizeof(S.tmp))
		scn_bail("TMPDIR %s too long for a socket path", tmpdir);
	if (mkdtemp(S.tmp) == NULL)
		scn_bail("mkdtemp %s: %s", S.tmp, strerror(errno));
	snprintf(S.cachedir, sizeof(S.cachedir), "%.79s/cache", S.tmp);
	snprintf(S.sock, sizeof(S.sock), "%.79s/resolver.sock", S.tmp);
	snprintf(S.wsock, sizeof(S.wsock), "%.79s/postfix.sock", S.tmp);
	snprintf(S.wdir, sizeof(S.wdir), "%.79s/w", S.tmp);
	snprintf(S.bdir, sizeof(S.bdir), "%.79s/b", S.tmp);
	snprintf(S.bcachedir, sizeof(S.bcachedir), "%.79s/b-cache", S.tmp);
	if (mkdir(S.wdir, 0700) == -1)
		scn_bail("mkdir %s: %s", S.wdir, strerror(errno));
	clock_fake(SCN_T0, SCN_MONO0);
	memset(stats_slot, 0, STATS_NCOUNTERS * sizeof(*stats_slot));
	log_set_verbose(1);
	S.base = child_base_new("scenario");
}

/* ---- commands ---- */

void
scn_workers(const char *s, int *lo, int *hi)
{
	char	*end;
	long	 a, b;

	if (strcmp(s, "all") == 0) {
		*lo = 0;
		*hi = S.nw;
		return;
	}
	if (strcmp(s, "b1") == 0) {
		if (!S.fleet)
			scn_bail("b1: host B runs only with \"fleet\"");
		*lo = SCN_B;
		*hi = SCN_B + 1;
		return;
	}
	if (s[0] != 'w' || s[1] < '0' || s[1] > '9')
		scn_bail("not a worker or range: \"%s\"", s);
	a = b = strtol(s + 1, &end, 10);
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			scn_bail("not a worker or range: \"%s\"", s);
		b = strtol(end + 1, &end, 10);
	}
	if (*end != '\0')
		scn_bail("not a worker or range: \"%s\"", s);
	if (a < 1 || b < a || b > S.nw)
		scn_bail("workers %s: there are w1..w%d", s, S.nw);
	*lo = (int)a - 1;
	*hi = (int)b;
}

/* cmd_config - one line of postsmtpsts.conf */
static void
cmd_config(int n, char **t, char *rest)
{
	size_t	 len;

	(void)t;
	if (n < 2)
		scn_bail("config: what?");
	if (S.cf != NULL)
		scn_bail("config after the resolver started");
	if (strncmp(rest, "map", 3) == 0)
		S.have_map = 1;
	len = strlen(rest);
	if ((S.conf = realloc(S.conf, S.conflen + len + 2)) == NULL)
		abort();
	memcpy(S.conf + S.conflen, rest, len);
	S.conflen += len;
	S.conf[S.conflen++] = '\n';
	S.conf[S.conflen] = '\0';
}

/* cmd_workers - K worker connections in all (more connect now) */
static void
cmd_workers(int n, char **t)
{
	long long	 k;
	int		 i;

	if (n != 2 || (k = scn_num(t[1])) < 1 || k > SCN_MAX_WORKERS)
		scn_bail("workers K (1..%d)", SCN_MAX_WORKERS);
	if (k < S.nw)
		scn_bail("workers: there are %d already", S.nw);
	if (S.r == NULL) {
		S.nw = (int)k;
		return;
	}
	for (i = S.nw; i < k; i++)
		scn_worker_connect(i);
	S.nw = (int)k;
}

/* scn_send - one request from worker i; waits for room */
static void
scn_send(int i, const char *domain, uint8_t flags)
{
	struct ipc_request req;
	unsigned char	 msg[IPC_MAX_MSG];
	long		 len;
	int		 tries = 0;

	memset(&req, 0, sizeof(req));
	req.flags = flags;
	req.domain_len = strlen(domain);
	if (req.domain_len >= sizeof(req.domain))
		scn_bail("send: domain too long");
	memcpy(req.domain, domain, req.domain_len);
	if ((len = ipc_request_encode(&req, msg, sizeof(msg))) == -1)
		scn_bail("send: cannot encode a request for %s", domain);
	while (send(S.w[i].fd, msg, (size_t)len, MSG_DONTWAIT |
	    MSG_NOSIGNAL) == -1) {
		if (errno != EAGAIN && errno != ENOBUFS)
			scn_bail("send from w%d: %s", i + 1, strerror(errno));
		if (++tries > SCN_MAX_ROUNDS)
			scn_bail("send from w%d: never room", i + 1);
		/* the socket is full: let the resolver read */
		(void)fake_event_turn(S.base);
		(void)scn_read_replies();
	}
}

/* cmd_send - "send WORKERS DOMAIN [xN] [txtcheck] [refresh]" */
static void
cmd_send(int n, char **t)
{
	long long	 times = 1, k;
	uint8_t		 flags = 0;
	int		 lo, hi, i, j;

	if (n < 3)
		scn_bail("send WORKERS DOMAIN [xN] [txtcheck] [refresh]");
	scn_start();
	scn_workers(t[1], &lo, &hi);
	for (i = 3; i < n; i++)
		if (t[i][0] == 'x')
			times = scn_num(t[i] + 1);
		else if (strcmp(t[i], "txtcheck") == 0)
			flags |= IPC_FLAG_TXTCHECK;
		else if (strcmp(t[i], "refresh") == 0)
			flags |= IPC_FLAG_REFRESH;
		else
			scn_bail("send: not a keyword: \"%s\"", t[i]);
	for (k = 0; k < times; k++)
		for (j = lo; j < hi; j++)
			scn_send(j, t[2], flags);
}

/* scn_line - one line of the script */
static void
scn_line(char *line)
{
	char	*t[SCN_MAX_TOKENS], *rest, copy[SCN_LINE_MAX];
	int	 n;

	snprintf(copy, sizeof(copy), "%s", line);
	if ((n = scn_tokens(line, t, SCN_MAX_TOKENS)) == 0)
		return;
	if (strcmp(t[0], "scenario") == 0) {
		if (n < 2)
			scn_bail("scenario NAME");
		rest = strstr(copy, "scenario") + 8;
		rest += strspn(rest, " \t");
		rest[strcspn(rest, "\r\n")] = '\0';
		scn_begin(rest);
		return;
	}
	if (!S.in)
		scn_bail("\"%s\" before the first scenario line", t[0]);
	if (strcmp(t[0], "config") == 0) {
		rest = strstr(copy, "config") + 6;
		rest += strspn(rest, " \t");
		rest[strcspn(rest, "\r\n")] = '\0';
		cmd_config(n, t, rest);
	} else if (strcmp(t[0], "start") == 0)
		scn_start();
	else if (strcmp(t[0], "restart") == 0 || strcmp(t[0], "crash") == 0) {
		/* the worker reads the cache through an LMDB environment of
		 * its own in this process; closing the resolver's would drop
		 * the worker's reader slot too (LMDB's per-process locks) */
		if (S.wk != NULL)
			scn_bail("%s: not with a postfix client", t[0]);
		if (S.fleet)
			scn_bail("%s: not with a fleet", t[0]);
		scn_start();
		scn_stop(t[0][0] == 'c');
		scn_start();
	} else if (strcmp(t[0], "workers") == 0)
		cmd_workers(n, t);
	else if (strcmp(t[0], "dns") == 0)
		cmd_dns(n, t, 0);
	else if (strcmp(t[0], "answer") == 0)
		cmd_dns(n, t, 1);
	else if (strcmp(t[0], "https") == 0)
		cmd_https(n, t, 0);
	else if (strcmp(t[0], "complete") == 0)
		cmd_https(n, t, 1);
	else if (strcmp(t[0], "send") == 0)
		cmd_send(n, t);
	else if (strcmp(t[0], "postfix") == 0)
		cmd_postfix(n, t);
#ifdef HAVE_FLEET
	else if (strcmp(t[0], "fleet") == 0)
		cmd_fleet(n, t);
#endif
	else if (strcmp(t[0], "run") == 0) {
		scn_start();
		scn_idle(NULL);
	} else if (strcmp(t[0], "pass") == 0) {
		if (n != 2)
			scn_bail("pass DURATION");
		scn_start();
		fake_time_passes(scn_duration(t[1]), scn_idle, NULL);
	} else if (strcmp(t[0], "clock") == 0) {
		/* a wall-clock step: no timer runs, none moves */
		if (n != 2 || (t[1][0] != '+' && t[1][0] != '-'))
			scn_bail("clock +DURATION|-DURATION");
		scn_start();
		clock_step((t[1][0] == '-' ? -1 : 1) *
		    scn_duration(t[1] + 1) / 1000);
	} else if (strcmp(t[0], "verbose") == 0 && n == 2)
		log_set_verbose((int)scn_num(t[1]));
	else if (strcmp(t[0], "mark") == 0)
		S.logmark = S.nlog;
	else if (strcmp(t[0], "preload") == 0)
		cmd_preload(n, t);
	else if (strcmp(t[0], "expect") == 0)
		cmd_expect(n, t);
	else
		scn_bail("unknown command \"%s\"", t[0]);
}

/* scn_file - run one script */
static void
scn_file(const char *path)
{
	char	 line[SCN_LINE_MAX];
	FILE	*fp;

	S.file = path;
	S.line = 0;
	if ((fp = fopen(path, "r")) == NULL)
		scn_bail("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp) != NULL) {
		S.line++;
		if (strchr(line, '\n') == NULL && !feof(fp))
			scn_bail("line longer than %d bytes", SCN_LINE_MAX - 2);
		scn_line(line);
	}
	fclose(fp);
	scn_end();
}

int
main(int argc, char **argv)
{
	int	 i;

	if (argc < 2) {
		fprintf(stderr, "usage: scenario FILE.scn ...\n");
		return (2);
	}
	log_init("scenario", 1, LOG_MAIL);
	log_set_hook(scn_log_hook, NULL);
	for (i = 1; i < argc; i++)
		scn_file(argv[i]);
	printf("1..%d\n", S.ntests);
	log_set_hook(NULL, NULL);
	return (S.nfailed > 0 ? 1 : 0);
}
