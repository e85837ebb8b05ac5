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
 * what a worker would send.  The front worker itself (daemon/worker*.c,
 * through worker_new/worker_free) runs too once a "postfix" command asks
 * it something: Postfix clients send netstring requests "map domain" to
 * its listener in the temporary directory and read its socketmap replies
 * (expect answer); its connection to the resolver goes through a relay of
 * this runner (the worker has a configuration of its own whose
 * runtime_dir holds the relay's socket), which counts what the worker
 * asks (expect asked).  It reads the cache through an LMDB environment of
 * its own, as in the daemon, but in this process: LMDB's locks are per
 * process, so the second open re-initializes the lock table, harmless in
 * one thread since every read transaction ends before its call returns,
 * and "restart"/"crash" refuse to run with a worker (the resolver's close
 * would free the worker's reader slot).
 *
 * With "fleet", a scenario has a second host B (a second resolver in
 * this process and loop, its own cache and runtime_dir, IPC peer "b1")
 * and a real redis-server of its own (on a unix socket in the temporary
 * directory); each host's fleet client connects through a relay of this
 * runner that passes whole RESP values and counts them, so that the loop
 * is idle only once Redis has answered, and that can hold Redis's
 * replies to one host (fleet hold b): the lease race of
 * tests/e2e/fleet.sh, staged without gdb.  Without redis-server on PATH
 * such a file is skipped (TAP "1..0 # SKIP").
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/sockios.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include <event2/event.h>
#ifdef HAVE_FLEET
#include <hiredis/hiredis.h>
#endif

#include "daemon/child.h"
#include "lib/ipc.h"
#include "daemon/resolver.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/clock.h"
#include "conf/config_load.h"
#include "lib/config.h"
#include "lib/dns.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "fake_dns.h"
#include "fake_event.h"
#include "fake_https.h"

#define SCN_T0		1700000000	/* the virtual clock's start, Unix */
#define SCN_MONO0	((int64_t)1000000000)	/* and monotonic, us */
#define SCN_MAX_WORKERS	512
#define SCN_MAX_TOKENS	64
#define SCN_LINE_MAX	4096
#define SCN_MAX_ROUNDS	1000000	/* loop turns before "never idle" */
#define SCN_MAX_LOG	200000	/* log lines kept per scenario */
#define SCN_MAX_CLIENTS	64	/* Postfix clients of the worker */
#define SCN_REDIS_WAIT_MS 10000	/* real time: redis-server answers */
#define SCN_B		SCN_MAX_WORKERS	/* host B's one IPC peer, "b1" */
#define SCN_CLIENT_BUF	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)

struct reply {
	char		 domain[DOMAIN_BUFSZ];
	int		 status;
	int		 have_sts;
	int		 have_dane;
	struct cache_record sts;
	struct cache_record dane;
	int		 used;		/* matched by an expectation */
};

struct scn_peer {
	int		 fd;
	struct reply	*replies;
	size_t		 nreplies;
	size_t		 cap;
};

/* One socketmap reply a Postfix client read: "WORD data". */
struct answer {
	char		*text;
	size_t		 len;
	int		 used;		/* matched by an expectation */
};

/* A Postfix client of the in-process worker: one socketmap connection. */
struct scn_client {
	char		 name[32];
	int		 fd;		/* -1: not connected (or closed) */
	char		 in[SCN_CLIENT_BUF];
	size_t		 inlen;
	struct answer	*answers;
	size_t		 nanswers;
	size_t		 cap;
	int		 closed;	/* times the worker closed it */
};

/* Bytes read from one side of a fleet relay, not yet passed on. */
struct scn_fbuf {
	char		 data[1 << 20];
	size_t		 len;
};

/* A host's fleet connection, relayed to redis-server: what it asks and
 * what redis answers are counted (RESP values), its replies can be held */
struct scn_frelay {
	char		 sock[96];
	int		 lfd;		/* the host's fleet server address */
	int		 c;		/* the host's connection */
	int		 s;		/* ours to redis */
	int		 held;		/* replies to the host wait */
	long long	 requests;
	long long	 replies;
	struct scn_fbuf	 up;
	struct scn_fbuf	 down;
};

struct scn {
	const char	*file;
	int		 line;
	int		 ntests;
	int		 nfailed;
	int		 in;		/* inside a scenario block */
	int		 failed;	/* this scenario */
	char		 name[256];

	char		 tmp[80];	/* fits sun_path with the socket */
	char		 cachedir[96];
	char		 sock[96];
	char		*conf;		/* this scenario's config lines */
	size_t		 conflen;
	int		 have_map;
	struct config	*cf;
	struct config	*wcf;		/* the worker's: runtime_dir S.wdir */
	struct event_base *base;
	struct resolver	*r;
	int		 lfd;
	struct scn_peer	 w[SCN_MAX_WORKERS + 1];	/* and SCN_B */
	int		 nw;

	/* the fleet: redis-server, host B (its own cache, runtime_dir and
	 * resolver, one IPC peer "b1"), the relays of A's and B's fleet
	 * connections */
	int		 fleet;
	char		*fleet_line;	/* the fleet section, no servers */
	pid_t		 redis_pid;
	int		 redis_atexit;	/* scn_redis_atexit registered */
	char		 redis_sock[96];
	struct scn_frelay frelay[2];
	struct config	*cfb;
	struct resolver	*rb;
	int		 lfdb;
	char		 bdir[96];
	char		 bcachedir[96];

	/* the in-process front worker (worker_new) and its Postfix side */
	struct worker	*wk;
	int		 wlfd;		/* its listener */
	char		 wsock[96];
	char		 wdir[96];	/* its runtime_dir: the relay's
					   socket */
	int		 relay_lfd;	/* where the worker connects */
	int		 relay_w;	/* the worker's connection */
	int		 relay_r;	/* ours to the resolver */
	struct asked {
		char	 domain[DOMAIN_BUFSZ];
		int	 txtcheck;
	}		*asked;		/* the worker's requests, in order */
	size_t		 nasked;
	struct scn_client c[SCN_MAX_CLIENTS];
	int		 nc;

	char		**log;
	size_t		 nlog;
	size_t		 logmark;
	unsigned long long dropped_log;
};

static struct scn	 S;

/* ---- reporting ---- */

/* scn_fail - one failed expectation of this scenario */
static void __attribute__((format(printf, 1, 2)))
scn_fail(const char *fmt, ...)
{
	va_list	 ap;

	printf("# %s:%d: ", S.file, S.line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	S.failed = 1;
}

/* scn_bail - a script error: the file cannot be run */
static void __attribute__((format(printf, 1, 2), noreturn))
scn_bail(const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("Bail out! %s:%d: %s\n", S.file, S.line, msg);
	fflush(stdout);
	exit(2);
}

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

/* ---- parsing helpers ---- */

/* scn_tokens - split line into words; text in "..." (anywhere in a word:
 * body="a b") keeps its spaces, with \n \t \" \\ escapes; # outside
 * quotes ends the line.  Returns the count. */
static int
scn_tokens(char *line, char **tok, int max)
{
	char	*p = line, *o;
	int	 n = 0, quoted;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || *p == '#')
			return (n);
		if (n >= max)
			scn_bail("more than %d words", max);
		tok[n++] = o = p;
		quoted = 0;
		while (*p != '\0' && (quoted || (*p != ' ' && *p != '\t' &&
		    *p != '\r' && *p != '\n'))) {
			if (*p == '"') {
				quoted = !quoted;
				p++;
			} else if (quoted && *p == '\\' && p[1] != '\0') {
				p++;
				*o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
				p++;
			} else
				*o++ = *p++;
		}
		if (quoted)
			scn_bail("unterminated string");
		if (*p != '\0')
			p++;
		*o = '\0';
	}
}

/* scn_num - a decimal number, or bail */
static long long
scn_num(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		scn_bail("not a number: \"%s\"", s);
	return (v);
}

/*
 * scn_duration - "250ms", "20s", "5m", "2h", "3d", or a bare number of
 * seconds, in milliseconds
 */
static int64_t
scn_duration(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || v < 0)
		scn_bail("not a duration: \"%s\"", s);
	if (strcmp(end, "ms") == 0)
		return (v);
	if (*end == '\0' || strcmp(end, "s") == 0)
		return (v * 1000);
	if (strcmp(end, "m") == 0)
		return (v * 60000);
	if (strcmp(end, "h") == 0)
		return (v * 3600000);
	if (strcmp(end, "d") == 0)
		return (v * 86400000);
	scn_bail("not a duration: \"%s\"", s);
}

/*
 * scn_time - a Unix time: "@D" (the scenario's start plus duration D),
 * "now", "now+D", "now-D", or a bare number
 */
static int64_t
scn_time(const char *s)
{
	if (s[0] == '@')
		return (SCN_T0 + scn_duration(s + 1) / 1000);
	if (strncmp(s, "now", 3) == 0) {
		if (s[3] == '\0')
			return (clock_wall());
		if (s[3] == '+')
			return (clock_wall() + scn_duration(s + 4) / 1000);
		if (s[3] == '-')
			return (clock_wall() - scn_duration(s + 4) / 1000);
	}
	return (scn_num(s));
}

enum scn_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

static const char *const scn_op_names[] = { "=", "!=", "<", "<=", ">",
	">=" };

/* scn_split - "field OP value": the field (NUL-terminated in place), the
 * operator and the value; NULL if the word has no operator */
static char *
scn_split(char *w, enum scn_op *op, char **value)
{
	char	*p;

	for (p = w; *p != '\0'; p++) {
		if (p[0] == '!' && p[1] == '=') {
			*op = OP_NE;
			*p = '\0';
			*value = p + 2;
			return (w);
		}
		if (p[0] == '<' || p[0] == '>') {
			*op = p[1] == '=' ? (p[0] == '<' ? OP_LE : OP_GE) :
			    (p[0] == '<' ? OP_LT : OP_GT);
			*value = p + (p[1] == '=' ? 2 : 1);
			*p = '\0';
			return (w);
		}
		if (p[0] == '=') {
			*op = OP_EQ;
			*p = '\0';
			*value = p + 1;
			return (w);
		}
	}
	return (NULL);
}

/* scn_cmp - a OP b */
static int
scn_cmp(long long a, enum scn_op op, long long b)
{
	switch (op) {
	case OP_EQ:
		return (a == b);
	case OP_NE:
		return (a != b);
	case OP_LT:
		return (a < b);
	case OP_LE:
		return (a <= b);
	case OP_GT:
		return (a > b);
	case OP_GE:
		return (a >= b);
	}
	return (0);
}

/* scn_count_expect - "N" or "OPN" (">=1"): the operator and N */
static long long
scn_count_expect(const char *s, enum scn_op *op)
{
	char	 buf[64], *f, *v;

	if (s[0] >= '0' && s[0] <= '9') {
		*op = OP_EQ;
		return (scn_num(s));
	}
	snprintf(buf, sizeof(buf), "x%s", s);
	if ((f = scn_split(buf, op, &v)) == NULL || strcmp(f, "x") != 0)
		scn_bail("not a count: \"%s\"", s);
	return (scn_num(v));
}

/* scn_wtime - a Unix time for messages: as @offset from the start */
static void
scn_wtime(char *buf, size_t bufsz, long long t)
{
	if (t == 0)
		snprintf(buf, bufsz, "0");
	else
		snprintf(buf, bufsz, "%lld (@%llds)", t, t - SCN_T0);
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

/* scn_peer_name - "w3", or "b1" for host B's peer (static buffer) */
static const char *
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
	    "cache {\n\tpath = \"%s\"\n}\n%s%s%s%s%s%s", runtime_dir,
	    cachedir,
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

/* scn_start - a resolver on the scenario's cache, and its workers */
static void
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

/* ---- the in-process worker and its Postfix clients ---- */

/*
 * scn_relay_pass - move one message from fd "from" to fd "to" if "to"
 * has room (peeked first, so a full socket leaves it where it is);
 * requests from the worker are noted in S.asked.  1 if one moved.
 */
static int
scn_relay_pass(int from, int to, int request)
{
	static unsigned char msg[IPC_MAX_MSG];
	struct ipc_request req;
	ssize_t		 n;

	if ((n = recv(from, msg, sizeof(msg), MSG_DONTWAIT | MSG_PEEK)) == -1 &&
	    (errno == EAGAIN || errno == EINTR))
		return (0);
	if (n <= 0)
		return (-1);
	if (send(to, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) == -1) {
		if (errno == EAGAIN || errno == ENOBUFS)
			return (0);
		return (-1);
	}
	(void)recv(from, msg, sizeof(msg), MSG_DONTWAIT);
	if (!request)
		return (1);
	if (ipc_request_decode(msg, (size_t)n, &req) == -1) {
		scn_fail("relay: a request from the worker that does not "
		    "decode (%zd bytes)", n);
		return (1);
	}
	if (S.nasked % 64 == 0 && (S.asked = realloc(S.asked,
	    (S.nasked + 64) * sizeof(*S.asked))) == NULL)
		abort();
	memcpy(S.asked[S.nasked].domain, req.domain, req.domain_len);
	S.asked[S.nasked].domain[req.domain_len] = '\0';
	S.asked[S.nasked++].txtcheck = (req.flags & IPC_FLAG_TXTCHECK) != 0;
	return (1);
}

/* scn_relay_close - the worker's resolver connection ends (both sides) */
static void
scn_relay_close(void)
{
	if (S.relay_w != -1)
		close(S.relay_w);
	if (S.relay_r != -1)
		close(S.relay_r);
	S.relay_w = S.relay_r = -1;
}

/*
 * scn_relay - the worker's resolver connection, relayed: accept it and
 * connect on to the resolver; move what waits, both ways.  Returns how
 * many messages moved (and connections made).
 */
static int
scn_relay(void)
{
	struct sockaddr_un sun;
	int		 fd, got = 0, a, b;

	if (S.wk == NULL)
		return (0);
	if ((fd = accept4(S.relay_lfd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) != -1) {
		scn_relay_close();
		S.relay_w = fd;
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", S.sock);
		if ((S.relay_r = socket(AF_UNIX, SOCK_SEQPACKET |
		    SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1 ||
		    connect(S.relay_r, (struct sockaddr *)&sun,
		    sizeof(sun)) == -1)
			scn_bail("relay: cannot connect to the resolver: %s",
			    strerror(errno));
		got++;
	}
	if (S.relay_w == -1)
		return (got);
	do {
		a = scn_relay_pass(S.relay_w, S.relay_r, 1);
		b = a == -1 ? 0 : scn_relay_pass(S.relay_r, S.relay_w, 0);
		if (a == -1 || b == -1) {
			scn_relay_close();
			return (got + 1);
		}
		got += a + b;
	} while (a + b > 0);
	return (got);
}

/* scn_worker_start - a front worker (worker_new) on the scenario's loop,
 * listening for Postfix on S.wsock, connected to the resolver */
static void
scn_worker_start(void)
{
	struct sockaddr_un sun;

	if (S.wk != NULL)
		return;
	scn_start();
	if (ipc_resolver_addr(S.wdir, 0, &sun) == -1 ||
	    (S.relay_lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1 ||
	    bind(S.relay_lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(S.relay_lfd, SOMAXCONN) == -1)
		scn_bail("relay socket in %s: %s", S.wdir, strerror(errno));
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", S.wsock);
	if ((S.wlfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(S.wlfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(S.wlfd, SOMAXCONN) == -1)
		scn_bail("worker socket %s: %s", S.wsock, strerror(errno));
	S.wk = worker_new(S.wcf, &S.wlfd, 1, 1, S.base);
}

/* scn_client - the Postfix client called name, connected (again, if the
 * worker closed it: Postfix reconnects) */
static struct scn_client *
scn_client(const char *name)
{
	struct sockaddr_un sun;
	struct scn_client *c = NULL;
	int		 i;

	for (i = 0; i < S.nc; i++)
		if (strcmp(S.c[i].name, name) == 0)
			c = &S.c[i];
	if (c == NULL) {
		if (S.nc == SCN_MAX_CLIENTS)
			scn_bail("more than %d Postfix clients",
			    SCN_MAX_CLIENTS);
		if (strlen(name) >= sizeof(c->name))
			scn_bail("client name too long: \"%s\"", name);
		c = &S.c[S.nc++];
		snprintf(c->name, sizeof(c->name), "%s", name);
	}
	if (c->fd != -1)
		return (c);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", S.wsock);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1 ||
	    connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		scn_bail("client %s cannot connect: %s", name,
		    strerror(errno));
	c->inlen = 0;
	return (c);
}

/* scn_client_answers - the socketmap replies in c's input buffer */
static int
scn_client_answers(struct scn_client *c)
{
	enum netstring_status st;
	struct answer	*a;
	const char	*p;
	size_t		 plen, used;
	int		 got = 0;

	while ((st = netstring_decode(c->in, c->inlen, SOCKMAP_MAX_REPLY, &p,
	    &plen, &used)) == NETSTRING_OK) {
		if (c->nanswers == c->cap) {
			c->cap = c->cap == 0 ? 64 : c->cap * 2;
			if ((c->answers = realloc(c->answers,
			    c->cap * sizeof(*c->answers))) == NULL)
				abort();
		}
		a = &c->answers[c->nanswers++];
		memset(a, 0, sizeof(*a));
		if ((a->text = malloc(plen + 1)) == NULL)
			abort();
		memcpy(a->text, p, plen);
		a->text[plen] = '\0';
		a->len = plen;
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
		got++;
	}
	if (st != NETSTRING_INCOMPLETE)
		scn_fail("client %s: a reply that is no netstring (%s)",
		    c->name, netstring_strerror(st));
	return (got);
}

/* scn_read_answers - every reply waiting on the Postfix clients'
 * sockets; a client the worker closed is marked so.  Returns how many
 * replies and closes. */
static int
scn_read_answers(void)
{
	struct scn_client *c;
	ssize_t		 n;
	int		 i, got = 0;

	for (i = 0; i < S.nc; i++) {
		c = &S.c[i];
		while (c->fd != -1) {
			if (c->inlen == sizeof(c->in)) {
				scn_fail("client %s: a reply longer than %zu "
				    "bytes", c->name, sizeof(c->in));
				c->inlen = 0;
			}
			n = recv(c->fd, c->in + c->inlen,
			    sizeof(c->in) - c->inlen, MSG_DONTWAIT);
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n <= 0) {
				close(c->fd);
				c->fd = -1;
				c->closed++;
				got++;
				break;
			}
			c->inlen += (size_t)n;
			got += scn_client_answers(c);
		}
	}
	return (got);
}

/* scn_client_send - one socketmap request "map domain" from c */
static void
scn_client_send(struct scn_client *c, const char *map, const char *domain)
{
	char		 msg[SCN_LINE_MAX];
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 tries = 0;

	len = strlen(map) + 1 + strlen(domain);
	if ((size_t)snprintf(msg, sizeof(msg), "%zu:%s %s,", len, map,
	    domain) >= sizeof(msg))
		scn_bail("postfix: request too long");
	len = strlen(msg);
	while (off < len) {
		n = send(c->fd, msg + off, len - off, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
		if (n == -1 && errno != EAGAIN)
			scn_bail("client %s: send: %s", c->name,
			    strerror(errno));
		if (n > 0)
			off += (size_t)n;
		else if (++tries > SCN_MAX_ROUNDS)
			scn_bail("client %s: send: never room", c->name);
		else {
			(void)fake_event_turn(S.base);
			(void)scn_read_answers();
		}
	}
}

/* cmd_postfix - "postfix CLIENT ask MAP DOMAIN [xN]": requests from a
 * Postfix client to the in-process worker, all written before the loop
 * runs */
static void
cmd_postfix(int n, char **t)
{
	struct scn_client *c;
	long long	 times = 1, k;

	if (n < 5 || n > 6 || strcmp(t[2], "ask") != 0)
		scn_bail("postfix CLIENT ask MAP DOMAIN [xN]");
	if (n == 6) {
		if (t[5][0] != 'x')
			scn_bail("postfix: not a count: \"%s\"", t[5]);
		times = scn_num(t[5] + 1);
	}
	scn_worker_start();
	c = scn_client(t[1]);
	for (k = 0; k < times; k++)
		scn_client_send(c, t[3], t[4]);
}

/* scn_answer_matches - answer a fits TEXT: the same status word and, if
 * TEXT says more than the word, exactly that payload */
static int
scn_answer_matches(const struct answer *a, const char *text)
{
	size_t	 wl = strcspn(text, " ");

	if (strncmp(a->text, text, wl) != 0 ||
	    (a->text[wl] != ' ' && a->text[wl] != '\0'))
		return (0);
	if (text[wl] == '\0')
		return (1);
	return (a->text[wl] == ' ' && strcmp(a->text + wl + 1,
	    text + wl + 1) == 0);
}

/* expect_answer - "expect answer CLIENT TEXT [n=N]": the client's next N
 * (default 1) unchecked replies match TEXT; they are checked off */
static void
expect_answer(int n, char **t)
{
	struct scn_client *c = NULL;
	long long	 want = 1, got = 0;
	size_t		 j;
	int		 i;

	if (n < 3 || n > 4)
		scn_bail("expect answer CLIENT TEXT [n=N]");
	if (n == 4) {
		if (strncmp(t[3], "n=", 2) != 0)
			scn_bail("expect answer: not n=N: \"%s\"", t[3]);
		want = scn_num(t[3] + 2);
	}
	for (i = 0; i < S.nc; i++)
		if (strcmp(S.c[i].name, t[1]) == 0)
			c = &S.c[i];
	if (c == NULL)
		scn_bail("expect answer: no client \"%s\"", t[1]);
	for (j = 0; j < c->nanswers && got < want; j++) {
		if (c->answers[j].used)
			continue;
		c->answers[j].used = 1;
		got++;
		if (!scn_answer_matches(&c->answers[j], t[2]))
			scn_fail("client %s answer %lld: expected \"%s\", "
			    "seen \"%s\"", c->name, got, t[2],
			    c->answers[j].text);
	}
	if (got < want)
		scn_fail("client %s: expected %lld answers \"%s\", seen %lld",
		    c->name, want, t[2], got);
}

/* expect_asked - "expect asked DOMAIN|* [plain|txtcheck] N": requests
 * the worker sent the resolver */
static void
expect_asked(int n, char **t)
{
	enum scn_op	 op;
	long long	 want, got = 0;
	size_t		 k;
	int		 kind = -1;

	if (n == 4 && strcmp(t[2], "plain") == 0)
		kind = 0;
	else if (n == 4 && strcmp(t[2], "txtcheck") == 0)
		kind = 1;
	else if (n != 3)
		scn_bail("expect asked DOMAIN|* [plain|txtcheck] N");
	want = scn_count_expect(t[n - 1], &op);
	for (k = 0; k < S.nasked; k++)
		if ((strcmp(t[1], "*") == 0 ||
		    strcasecmp(S.asked[k].domain, t[1]) == 0) &&
		    (kind == -1 || S.asked[k].txtcheck == kind))
			got++;
	if (!scn_cmp(got, op, want))
		scn_fail("asked %s%s%s: expected %s%lld, seen %lld", t[1],
		    kind == -1 ? "" : " ", kind == -1 ? "" : t[2],
		    scn_op_names[op], want, got);
}

/* expect_noanswer - "expect noanswer CLIENT": nothing unchecked */
static void
expect_noanswer(int n, char **t)
{
	size_t	 j, extra = 0;
	int	 i;

	if (n != 2)
		scn_bail("expect noanswer CLIENT");
	for (i = 0; i < S.nc; i++) {
		if (strcmp(S.c[i].name, t[1]) != 0)
			continue;
		for (j = 0; j < S.c[i].nanswers; j++)
			if (!S.c[i].answers[j].used && extra++ == 0)
				scn_fail("client %s: expected no more "
				    "answers, seen \"%s\"", t[1],
				    S.c[i].answers[j].text);
		return;
	}
	scn_bail("expect noanswer: no client \"%s\"", t[1]);
}

/* scn_worker_stop - the worker stops (as worker_main() after its loop),
 * its clients are closed and their answers forgotten */
static void
scn_worker_stop(void)
{
	size_t	 k;
	int	 i;

	worker_free(S.wk);
	S.wk = NULL;
	scn_relay_close();
	if (S.relay_lfd != -1)
		close(S.relay_lfd);
	S.relay_lfd = -1;
	free(S.asked);
	S.asked = NULL;
	S.nasked = 0;
	for (i = 0; i < SCN_MAX_CLIENTS; i++) {
		if (S.c[i].fd != -1)
			close(S.c[i].fd);
		for (k = 0; k < S.c[i].nanswers; k++)
			free(S.c[i].answers[k].text);
		free(S.c[i].answers);
		memset(&S.c[i], 0, sizeof(S.c[i]));
		S.c[i].fd = -1;
	}
	S.nc = 0;
	if (S.wlfd != -1)
		close(S.wlfd);
	S.wlfd = -1;
}

/* ---- the fleet: redis-server, host B, the relays ---- */

#ifdef HAVE_FLEET
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

/* scn_fleet_relay - every relay: accept, connect on to redis, move what
 * waits both ways (replies to a held host stay).  Returns the moves. */
static int
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

/* scn_fleet_waiting - a request of a host not held is still with redis */
static int
scn_fleet_waiting(void)
{
	int	 h;

	for (h = 0; h < 2 && S.fleet; h++)
		if (S.frelay[h].c != -1 && !S.frelay[h].held &&
		    S.frelay[h].replies < S.frelay[h].requests)
			return (1);
	return (0);
}

/* scn_fleet_wait - block (real time) until redis answers a request of a
 * host not held; bail after SCN_REDIS_WAIT_MS */
static void
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

/* scn_redis_stop - the scenario's redis-server goes */
static void
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

/*
 * cmd_fleet - "fleet": a redis-server of this scenario (on a unix
 * socket), a fleet section for both hosts, and host B (started with A);
 * "fleet hold b" / "fleet release b": redis's replies to that host wait
 * in its relay, or go on
 */
static void
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

/* expect_fleet - "expect fleet KEY present|absent": in redis (with the
 * prefix "scn:"; KEY "lease:D" is a lease) */
static void
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
#endif /* HAVE_FLEET */

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

/* scn_workers - "w3", "w1-4", "all": the range [*lo, *hi) */
static void
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

/* scn_dns_answer - "dns NAME TYPE ..." words from t[3] into *a */
static void
scn_dns_answer(int n, char **t, int rrtype, struct fake_dns_answer *a)
{
	int	 i;

	fake_dns_answer_init(a, DNS_OK, DNS_RCODE_NOERROR, DNS_INSECURE);
	for (i = 3; i < n; i++) {
		if (strcmp(t[i], "secure") == 0)
			a->security = DNS_SECURE;
		else if (strcmp(t[i], "insecure") == 0)
			a->security = DNS_INSECURE;
		else if (strcmp(t[i], "bogus") == 0)
			a->security = DNS_BOGUS;
		else if (strcmp(t[i], "noerror") == 0 ||
		    strcmp(t[i], "nodata") == 0)
			a->rcode = DNS_RCODE_NOERROR;
		else if (strcmp(t[i], "nxdomain") == 0)
			a->rcode = DNS_RCODE_NXDOMAIN;
		else if (strcmp(t[i], "servfail") == 0)
			a->rcode = DNS_RCODE_SERVFAIL;
		else if (strncmp(t[i], "rcode=", 6) == 0)
			a->rcode = (int)scn_num(t[i] + 6);
		else if (strcmp(t[i], "timeout") == 0)
			a->status = DNS_ERR_TIMEOUT;
		else if (strcmp(t[i], "resolver-error") == 0)
			a->status = DNS_ERR_RESOLVER;
		else if (strncmp(t[i], "ttl=", 4) == 0)
			a->ttl = (int)scn_num(t[i] + 4);
		else if (strncmp(t[i], "delay=", 6) == 0)
			a->delay_ms = (int)scn_duration(t[i] + 6);
		else if (strcmp(t[i], "hold") == 0)
			a->hold = 1;
		else if (strncmp(t[i], "cname=", 6) == 0)
			snprintf(a->canonname, sizeof(a->canonname), "%s",
			    t[i] + 6);
		else if (fake_dns_add_text(a, rrtype, t[i]) == -1)
			scn_bail("dns: not a %s record nor a keyword: \"%s\"",
			    t[2], t[i]);
	}
}

/* cmd_dns - script the answer to NAME TYPE (answer: reply to a pending
 * query now) */
static void
cmd_dns(int n, char **t, int now)
{
	struct fake_dns_answer *a;
	int		 rrtype;

	if (n < 3 || (rrtype = fake_dns_rrtype(t[2])) == -1)
		scn_bail("%s NAME TYPE ...", t[0]);
	if (!now && n == 4 && strcmp(t[3], "forget") == 0) {
		fake_dns_unscript(t[1], rrtype);
		return;
	}
	if ((a = malloc(sizeof(*a))) == NULL)
		abort();
	scn_dns_answer(n, t, rrtype, a);
	if (!now)
		fake_dns_script(t[1], rrtype, a);
	else if (fake_dns_reply(t[1], rrtype, a) == -1)
		scn_fail("answer: no pending query for %s %s", t[1], t[2]);
	free(a);
}

/* scn_policy_body - "policy MODE MAX_AGE MX..." as a policy text */
static char *
scn_policy_body(int n, char **t, int i)
{
	char	*b;
	size_t	 len = 64, off;
	int	 k;

	if (n - i < 2)
		scn_bail("policy MODE MAX_AGE [MX ...]");
	for (k = i; k < n; k++)
		len += strlen(t[k]) + 8;
	if ((b = malloc(len)) == NULL)
		abort();
	off = (size_t)snprintf(b, len, "version: STSv1\nmode: %s\n", t[i]);
	for (k = i + 2; k < n; k++)
		off += (size_t)snprintf(b + off, len - off, "mx: %s\n", t[k]);
	snprintf(b + off, len - off, "max_age: %s\n", t[i + 1]);
	return (b);
}

/* cmd_https - script the result of fetches from HOST (complete: finish
 * a pending fetch now) */
static void
cmd_https(int n, char **t, int now)
{
	static const char *const kinds[] = { "ok", "connect", "tls", "webpki",
	    "timeout", "http-status", "redirect", "content-type",
	    "too-large", "other" };
	struct fake_https_result r;
	char		*body = NULL;
	size_t		 k;
	int		 i;

	if (n < 3)
		scn_bail("%s HOST RESULT ...", t[0]);
	memset(&r, 0, sizeof(r));
	for (i = 2; i < n; i++) {
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (strcmp(t[i], kinds[k]) == 0)
				break;
		if (k < sizeof(kinds) / sizeof(kinds[0]))
			r.error = (enum https_error)k;
		else if (strncmp(t[i], "status=", 7) == 0)
			r.status = (long)scn_num(t[i] + 7);
		else if (strncmp(t[i], "ctype=", 6) == 0)
			snprintf(r.content_type, sizeof(r.content_type), "%s",
			    t[i] + 6);
		else if (strncmp(t[i], "delay=", 6) == 0)
			r.delay_ms = (int)scn_duration(t[i] + 6);
		else if (strcmp(t[i], "hold") == 0)
			r.hold = 1;
		else if (strncmp(t[i], "body=", 5) == 0)
			r.body = t[i] + 5;
		else if (strcmp(t[i], "policy") == 0) {
			r.body = body = scn_policy_body(n, t, i + 1);
			break;
		} else
			scn_bail("https: not a keyword: \"%s\"", t[i]);
	}
	if (!now)
		fake_https_script(t[1], &r);
	else if (fake_https_reply(t[1], &r) == -1)
		scn_fail("complete: no pending fetch from %s", t[1]);
	free(body);
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

/* scn_record_field - check one "field OP value" of rec; 1 if it holds */
static int
scn_record_field(const struct cache_record *rec, char *word,
    char *seen, size_t seensz)
{
	enum scn_op	 op;
	char		*f, *v, mx[4096];
	const char	*s = NULL, *p;
	long long	 a = 0, b = 0;
	size_t		 pos = 0, off = 0;
	int		 time = 0;

	if ((f = scn_split(word, &op, &v)) == NULL)
		scn_bail("not a FIELD=VALUE condition: \"%s\"", word);
	if (strcmp(f, "kind") == 0)
		s = cache_kind_name(rec->kind);
	else if (strcmp(f, "mode") == 0)
		s = rec->kind == CACHE_KIND_STS ?
		    cache_sts_mode_name(rec->sts_mode) : "-";
	else if (strcmp(f, "dnssec") == 0)
		s = cache_dnssec_name(rec->dnssec);
	else if (strcmp(f, "state") == 0)
		s = rec->kind == CACHE_KIND_DANE ?
		    dane_state_name((enum dane_state)rec->dane) : "-";
	else if (strcmp(f, "id") == 0)
		s = rec->id[0] != '\0' ? rec->id : "-";
	else if (strcmp(f, "mx") == 0) {
		mx[0] = '\0';
		while ((p = cache_record_mx_next(rec, &pos, NULL)) != NULL &&
		    off < sizeof(mx))
			off += (size_t)snprintf(mx + off, sizeof(mx) - off,
			    "%s%s", off > 0 ? "," : "", p);
		s = mx;
	} else if (strcmp(f, "last_error") == 0)
		s = rec->last_error == 0 ? "none" :
		    rec->kind == CACHE_KIND_DANE ? "failure" :
		    discover_failure_name(
		    (enum discover_failure)rec->last_error);
	else if (strcmp(f, "max_age") == 0)
		a = rec->max_age;
	else if (strcmp(f, "txt_ttl") == 0)
		a = rec->txt_ttl;
	else if (strcmp(f, "nmx") == 0)
		a = rec->nmx;
	else {
		time = 1;
		if (strcmp(f, "fetched_at") == 0)
			a = rec->fetched_at;
		else if (strcmp(f, "expires_at") == 0)
			a = rec->expires_at;
		else if (strcmp(f, "next_refresh") == 0)
			a = rec->next_refresh;
		else if (strcmp(f, "last_error_at") == 0)
			a = rec->last_error_at;
		else if (strcmp(f, "txt_checked_at") == 0)
			a = rec->txt_checked_at;
		else
			scn_bail("no record field \"%s\"", f);
	}
	if (s != NULL) {
		if (op != OP_EQ && op != OP_NE)
			scn_bail("%s: only = and != compare text", f);
		snprintf(seen, seensz, "%s=%s", f, s);
		return ((strcmp(s, v) == 0) == (op == OP_EQ));
	}
	b = time ? scn_time(v) : scn_num(v);
	if (time)
		scn_wtime(mx, sizeof(mx), a);
	else
		snprintf(mx, sizeof(mx), "%lld", a);
	snprintf(seen, seensz, "%s=%s", f, mx);
	return (scn_cmp(a, op, b));
}

/* scn_conds - check conditions t[i..n) against rec (dane: the words
 * prefixed "dane.", else the others); returns 1 if all hold */
static int
scn_conds(const char *what, const struct cache_record *rec, int n,
    char **t, int i, int dane, int report)
{
	char	 word[512], seen[4200], *w;
	int	 ok = 1;

	for (; i < n; i++) {
		if (strchr(t[i], '=') == NULL && strchr(t[i], '<') == NULL &&
		    strchr(t[i], '>') == NULL)
			continue;	/* a flag word, not a condition */
		if (strncmp(t[i], "n=", 2) == 0 ||
		    (strncmp(t[i], "dane.", 5) == 0) != dane)
			continue;
		snprintf(word, sizeof(word), "%s", t[i] + (dane ? 5 : 0));
		w = word;
		if (scn_record_field(rec, w, seen, sizeof(seen)))
			continue;
		ok = 0;
		if (report)
			scn_fail("%s: expected %s, seen %s", what, t[i], seen);
	}
	return (ok);
}

/* scn_reply_matches - reply r fits "STATUS [nosts] [nodane] cond..." */
static int
scn_reply_matches(const struct reply *r, int n, char **t, int report,
    const char *what)
{
	int	 i, ok = 1, st;

	st = strcmp(t[3], "OK") == 0 ? IPC_STATUS_OK :
	    strcmp(t[3], "TEMP") == 0 ? IPC_STATUS_TEMP : -1;
	if (st == -1)
		scn_bail("expect reply: status OK or TEMP, not \"%s\"", t[3]);
	if (r->status != st) {
		if (report)
			scn_fail("%s: expected status %s, seen %s", what,
			    t[3], r->status == IPC_STATUS_OK ? "OK" : "TEMP");
		return (0);
	}
	for (i = 4; i < n; i++) {
		if (strcmp(t[i], "nosts") == 0 && r->have_sts) {
			if (report)
				scn_fail("%s: expected no MTA-STS record, "
				    "seen kind=%s", what,
				    cache_kind_name(r->sts.kind));
			ok = 0;
		}
		if (strcmp(t[i], "nodane") == 0 && r->have_dane) {
			if (report)
				scn_fail("%s: expected no DANE record, seen "
				    "one", what);
			ok = 0;
		}
	}
	if (!ok)
		return (0);
	return (scn_conds(what, &r->sts, n, t, 4, 0, report) &
	    scn_conds(what, &r->dane, n, t, 4, 1, report));
}

/* expect_reply - "expect reply WORKERS DOMAIN STATUS [n=N] conds...":
 * each worker has N (default 1) unchecked replies for DOMAIN, the
 * oldest first, all matching; they are checked off */
static void
expect_reply(int n, char **t)
{
	char		 what[512];
	long long	 want = 1, got;
	struct scn_peer	*w;
	int		 lo, hi, i, k;
	size_t		 j;

	if (n < 4)
		scn_bail("expect reply WORKERS DOMAIN STATUS ...");
	/* t[0] is "reply": the words are shifted by one */
	for (k = 4; k < n; k++)
		if (strncmp(t[k], "n=", 2) == 0)
			want = scn_num(t[k] + 2);
	scn_workers(t[1], &lo, &hi);
	for (i = lo; i < hi; i++) {
		w = &S.w[i];
		got = 0;
		for (j = 0; j < w->nreplies && got < want; j++) {
			if (w->replies[j].used ||
			    strcasecmp(w->replies[j].domain, t[2]) != 0)
				continue;
			w->replies[j].used = 1;
			got++;
			snprintf(what, sizeof(what), "%s reply %lld for %s",
			    scn_peer_name(i), got, t[2]);
			(void)scn_reply_matches(&w->replies[j], n, t, 1, what);
		}
		if (got < want)
			scn_fail("%s: expected %lld replies for %s, seen "
			    "%lld", scn_peer_name(i), want, t[2], got);
	}
}

/* expect_noreply - "expect noreply WORKERS [DOMAIN]": nothing unchecked */
static void
expect_noreply(int n, char **t)
{
	struct scn_peer	*w;
	const char	*first = NULL;
	int		 lo, hi, i, extra;
	size_t		 j;

	if (n < 2)
		scn_bail("expect noreply WORKERS [DOMAIN]");
	scn_workers(t[1], &lo, &hi);
	for (i = lo; i < hi; i++) {
		w = &S.w[i];
		extra = 0;
		for (j = 0; j < w->nreplies; j++)
			if (!w->replies[j].used && (n < 3 ||
			    strcasecmp(w->replies[j].domain, t[2]) == 0) &&
			    extra++ == 0)
				first = w->replies[j].domain;
		if (extra > 0)
			scn_fail("%s: expected no more replies%s%s, seen %d "
			    "(the first for %s)", scn_peer_name(i),
			    n < 3 ? "" : " for ", n < 3 ? "" : t[2], extra,
			    first);
	}
}

/* expect_cache - "expect cache KEY absent | conds...": what is committed
 * in the LMDB map (not the write-behind array) */
static void
expect_cache(int n, char **t)
{
	struct cache_record rec;
	struct cache	*c;
	char		 what[512];
	int		 st;

	if (n < 3)
		scn_bail("expect cache KEY absent | FIELD=VALUE ...");
	scn_start();
	if ((c = resolver_cache(S.r)) == NULL) {
		scn_fail("cache: the resolver has no cache");
		return;
	}
	cache_record_init(&rec);
	st = cache_get(c, t[1], strlen(t[1]), &rec);
	snprintf(what, sizeof(what), "cache %s", t[1]);
	if (n == 3 && strcmp(t[2], "absent") == 0) {
		if (st != CACHE_MISS)
			scn_fail("%s: expected absent, seen kind=%s", what,
			    st == CACHE_HIT ? cache_kind_name(rec.kind) :
			    "(error)");
	} else if (st != CACHE_HIT)
		scn_fail("%s: expected a record, seen %s", what,
		    cache_status_name(st));
	else
		(void)scn_conds(what, &rec, n, t, 2, 0, 1);
	cache_record_release(&rec);
}

/* scn_stat_id - a counter by name (README.md lists them), or -1 */
static int
scn_stat_id(const char *name)
{
	static const char *const dane[] = { "dane-only", "dane", "none",
	    "failure", "encrypt", "tls-some" };
	static const char *const dnserr[] = { "timeout", "servfail", "bogus",
	    "resolver" };
	static const struct {
		const char	*name;
		int		 id;
	} plain[] = {
		{ "refreshes", STATS_REFRESHES },
		{ "txt_checks", STATS_TXT_CHECKS },
		{ "cache_deleted", STATS_CACHE_DELETED },
		{ "cache_write_errors", STATS_CACHE_WRITE_ERRORS },
		{ "requests", STATS_REQUESTS },
	};
	static const char *const src[] = { "pinned", "cache", "resolver",
	    "deadline", "invalid" };
	static const char *const reads[] = { "hit", "stale", "miss",
	    "unavailable" };
	int		 a;
	char		 buf[128];
	int		 i;

	for (i = 0; i < (int)(sizeof(plain) / sizeof(plain[0])); i++)
		if (strcmp(name, plain[i].name) == 0)
			return (plain[i].id);
	for (i = 0; i < STATS_SRC_COUNT; i++)
		for (a = 0; a < STATS_ANSWER_COUNT; a++) {
			snprintf(buf, sizeof(buf), "lookups.%s.%s", src[i],
			    sockmap_status_name((enum sockmap_status)a));
			if (strcmp(name, buf) == 0)
				return (STATS_LOOKUPS + i * STATS_ANSWER_COUNT +
				    a);
		}
	for (i = 0; i < STATS_CACHE_COUNT; i++) {
		snprintf(buf, sizeof(buf), "cache_reads.%s", reads[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_CACHE_READS + i);
	}
	for (i = 0; i < STATS_DISCOVERY_OUTCOMES; i++) {
		snprintf(buf, sizeof(buf), "discoveries.request.%s",
		    discover_outcome_name((enum discover_outcome)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERIES + i);
		snprintf(buf, sizeof(buf), "discoveries.refresh.%s",
		    discover_outcome_name((enum discover_outcome)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERIES + STATS_DISCOVERY_OUTCOMES +
			    i);
	}
	for (i = 1; i <= STATS_DISCOVERY_FAILURES; i++) {
		snprintf(buf, sizeof(buf), "discovery_failures.%s",
		    discover_failure_name((enum discover_failure)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERY_FAIL + i - 1);
	}
	for (i = 1; i <= STATS_HTTPS_ERRORS; i++) {
		snprintf(buf, sizeof(buf), "https_errors.%s",
		    https_error_name((enum https_error)i));
		if (strcmp(name, buf) == 0)
			return (STATS_HTTPS_ERRORS_BASE + i - 1);
	}
	for (i = 0; i < REQUIRETLS_LEVEL_COUNT; i++) {
		snprintf(buf, sizeof(buf), "answers.%s",
		    requiretls_level_name((enum requiretls_level)i));
		if (strcmp(name, buf) == 0)
			return (STATS_ANSWERS + i);
	}
	for (i = 0; i < STATS_DANE_COUNT; i++) {
		snprintf(buf, sizeof(buf), "dane_lookups.%s", dane[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_DANE_LOOKUPS + i);
	}
	for (i = 0; i < STATS_DNS_COUNT; i++) {
		snprintf(buf, sizeof(buf), "dns_errors.%s", dnserr[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_DNS_ERRORS + i);
	}
	return (-1);
}

/* scn_log_match - line holds every word of t[i..n) */
static int
scn_log_match(const char *line, int n, char **t, int i)
{
	for (; i < n; i++)
		if (strstr(line, t[i]) == NULL)
			return (0);
	return (1);
}

/* expect_log - "expect log TEXT...", "expect nolog TEXT...", "expect
 * logcount N TEXT...": lines since the last mark holding every TEXT */
static void
expect_log(int n, char **t)
{
	enum scn_op	 op = OP_GE;
	long long	 want = 1;
	size_t		 k;
	int		 first = 1, seen = 0, shown;

	if (strcmp(t[0], "logcount") == 0) {
		if (n < 3)
			scn_bail("expect logcount N TEXT ...");
		want = scn_count_expect(t[1], &op);
		first = 2;
	} else if (strcmp(t[0], "nolog") == 0) {
		op = OP_EQ;
		want = 0;
	}
	if (n <= first)
		scn_bail("expect %s: which text?", t[0]);
	for (k = S.logmark; k < S.nlog; k++)
		if (scn_log_match(S.log[k], n, t, first))
			seen++;
	if (!scn_cmp(seen, op, want)) {
		scn_fail("log: expected %s%lld lines holding \"%s\"%s, seen "
		    "%d", scn_op_names[op], want, t[first],
		    n > first + 1 ? " (and more)" : "", seen);
		shown = 0;
		for (k = S.logmark; k < S.nlog && shown < 5; k++)
			if (scn_log_match(S.log[k], n, t, first)) {
				printf("#   seen: %s\n", S.log[k]);
				shown++;
			}
	}
}

/* cmd_expect - every expectation */
static void
cmd_expect(int n, char **t)
{
	enum scn_op	 op;
	long long	 want, got;
	const char	*name;
	int		 rrtype = 0, id;

	if (n < 2)
		scn_bail("expect what?");
	n--;
	t++;
	if (strcmp(t[0], "reply") == 0)
		expect_reply(n, t);
	else if (strcmp(t[0], "answer") == 0)
		expect_answer(n, t);
	else if (strcmp(t[0], "noanswer") == 0)
		expect_noanswer(n, t);
	else if (strcmp(t[0], "asked") == 0)
		expect_asked(n, t);
#ifdef HAVE_FLEET
	else if (strcmp(t[0], "fleet") == 0)
		expect_fleet(n, t);
#endif
	else if (strcmp(t[0], "noreply") == 0)
		expect_noreply(n, t);
	else if (strcmp(t[0], "cache") == 0)
		expect_cache(n, t);
	else if (strcmp(t[0], "log") == 0 || strcmp(t[0], "nolog") == 0 ||
	    strcmp(t[0], "logcount") == 0)
		expect_log(n, t);
	else if (strcmp(t[0], "fetches") == 0 || strcmp(t[0],
	    "pending-fetches") == 0) {
		if (n != 3)
			scn_bail("expect %s HOST N", t[0]);
		want = scn_count_expect(t[2], &op);
		name = strcmp(t[1], "*") == 0 ? NULL : t[1];
		got = t[0][0] == 'f' ? fake_https_count(name) :
		    fake_https_pending(name);
		if (!scn_cmp(got, op, want))
			scn_fail("%s from %s: expected %s%lld, seen %lld",
			    t[0], t[1], scn_op_names[op], want, got);
	} else if (strcmp(t[0], "queries") == 0 ||
	    strcmp(t[0], "pending") == 0) {
		if (n != 4)
			scn_bail("expect %s NAME TYPE N", t[0]);
		if (strcmp(t[2], "*") != 0 &&
		    (rrtype = fake_dns_rrtype(t[2])) == -1)
			scn_bail("not a type: %s", t[2]);
		want = scn_count_expect(t[3], &op);
		name = strcmp(t[1], "*") == 0 ? NULL : t[1];
		got = t[0][0] == 'q' ? fake_dns_count(name, rrtype) :
		    fake_dns_pending(name, rrtype);
		if (!scn_cmp(got, op, want))
			scn_fail("%s %s %s: expected %s%lld, seen %lld",
			    t[0], t[1], t[2], scn_op_names[op], want, got);
	} else if (strcmp(t[0], "stat") == 0) {
		if (n != 3)
			scn_bail("expect stat NAME N");
		if ((id = scn_stat_id(t[1])) == -1)
			scn_bail("no counter \"%s\"", t[1]);
		want = scn_count_expect(t[2], &op);
		got = (long long)stats_slot[id];
		if (!scn_cmp(got, op, want))
			scn_fail("stat %s: expected %s%lld, seen %lld", t[1],
			    scn_op_names[op], want, got);
	} else
		scn_bail("expect: unknown \"%s\"", t[0]);
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
	} else if (strcmp(t[0], "verbose") == 0 && n == 2)
		log_set_verbose((int)scn_num(t[1]));
	else if (strcmp(t[0], "mark") == 0)
		S.logmark = S.nlog;
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
