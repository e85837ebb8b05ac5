/*
 * sm-baseline.c - the physical limit: a socketmap server that does nothing
 *
 * sm-baseline [-w workers] [-r reply] [-s status] [-x n] address
 *
 * It answers every request with the same reply, "OK <reply>" by default
 * (the daemon's answer for the bench's pinned domain, so both write the
 * same bytes), and does no other work: whatever the daemon measures
 * beyond this is the daemon's own cost.  For a fair comparison it has the
 * daemon's shape: the listening socket is bound before fork, and `workers`
 * processes (default: one per CPU) accept on it, each serving its
 * persistent connections from one event loop.  Requests are framed with
 * the project's netstring decoder (netstring.h), the same code the daemon
 * runs; the reply is encoded once at start-up.
 *
 * Why raw epoll and not libevent (which the daemon uses): this is the
 * floor, so it takes the cheapest path the kernel offers - one read(2),
 * decode in place, one write(2) per batch of requests.  The event
 * library's cost is thereby part of what the daemon/baseline ratio shows.
 *
 * Protocol behaviour, as the daemon's (socketmap_table(5)):
 *  - pipelined requests are answered in order, one reply each;
 *  - a broken or oversized frame (payload over SOCKMAP_MAX_QUERY) gets one
 *    PERM reply and the connection is closed after it is written;
 *  - when the client does not read, reading stops above
 *    SM_BASELINE_OUT_HIGH bytes of pending output.
 * The payload is not looked at: any "name key" is fine.
 *
 * Knobs for testing the load generator: -s answers with another status
 * word (NOTFOUND, TEMP, TIMEOUT, PERM; the reply text follows it), and
 * -x n closes each connection after n replies.
 *
 * SIGTERM/SIGINT stop the workers, remove the unix socket and exit 0.  A
 * worker that dies takes the others down (exit 1): its numbers would be
 * wrong.
 */
#include "autoconf.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_addr.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "lib/xmalloc.h"

#define SM_BASELINE_MAX_WORKERS	256
#define SM_BASELINE_BACKLOG	1024
#define SM_BASELINE_EVENTS	256
#define SM_BASELINE_READSZ	(64 * 1024)
/* Longest request frame: length digits, ':', payload, ','. */
#define SM_BASELINE_MAX_FRAME	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_QUERY)
/* Undecoded input: less than one frame, plus one read. */
#define SM_BASELINE_IN_MAX	(SM_BASELINE_MAX_FRAME + SM_BASELINE_READSZ)
/* Stop decoding (and reading) above this much unsent output. */
#define SM_BASELINE_OUT_HIGH	(256 * 1024)
#define SM_BASELINE_OUT_MAX	(SM_BASELINE_OUT_HIGH + \
				    NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)
/* "PERM <netstring_strerror()>" */
#define SM_BASELINE_PERMSZ	128
#define SM_BASELINE_DEF_REPLY	"secure match=mx.bench.example"

struct sm_baseline_conn {
	int		 fd;
	int		 closing;	/* close once the output is written */
	unsigned int	 events;	/* registered epoll events */
	unsigned long	 served;
	struct buf	 in;
	struct buf	 out;
};

struct sm_baseline {
	struct bench_addr addr;
	const char	*spec;
	int		 lfd;
	int		 ep;
	char		*reply;		/* the encoded constant reply */
	size_t		 reply_len;
	unsigned long	 close_after;	/* 0: never */
	char		 scratch[SM_BASELINE_READSZ];
};

static volatile sig_atomic_t sm_baseline_stop;
static volatile sig_atomic_t sm_baseline_child;

/* usage - print the synopsis and exit 2 */
static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sm-baseline [-w workers] [-r reply] "
	    "[-s status] [-x n] address\n"
	    "address: unix:/path | inet:host:port\n");
	exit(2);
}

/* sm_baseline_signal - flag-only handler */
static void
sm_baseline_signal(int sig)
{
	if (sig == SIGCHLD)
		sm_baseline_child = 1;
	else
		sm_baseline_stop = 1;
}

/* sm_baseline_listen - bind and listen before fork, like the daemon */
static void
sm_baseline_listen(struct sm_baseline *B)
{
	int	 on = 1;

	B->lfd = socket(B->addr.family, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0);
	if (B->lfd == -1)
		fatal("socket");
	if (B->addr.family == AF_UNIX) {
		if (unlink(B->addr.path) == -1 && errno != ENOENT)
			fatal("unlink %s", B->addr.path);
	} else if (setsockopt(B->lfd, SOL_SOCKET, SO_REUSEADDR, &on,
	    sizeof(on)) == -1)
		fatal("SO_REUSEADDR");
	if (bind(B->lfd, (struct sockaddr *)&B->addr.ss, B->addr.sslen) == -1)
		fatal("bind %s", B->spec);
	if (B->addr.family == AF_UNIX && chmod(B->addr.path, 0666) == -1)
		fatal("chmod %s", B->addr.path);
	if (listen(B->lfd, SM_BASELINE_BACKLOG) == -1)
		fatal("listen %s", B->spec);
}

/* sm_baseline_epoll - (re)register c for events */
static void
sm_baseline_epoll(struct sm_baseline *B, struct sm_baseline_conn *c, int op,
    unsigned int events)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = c;
	if (epoll_ctl(B->ep, op, c->fd, &ev) == -1)
		fatal("epoll_ctl");
	c->events = events;
}

/* sm_baseline_close - forget a connection */
static void
sm_baseline_close(struct sm_baseline_conn *c)
{
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	free(c);
}

/* sm_baseline_accept - take every pending connection */
static void
sm_baseline_accept(struct sm_baseline *B)
{
	struct sm_baseline_conn *c;
	int	 fd;

	for (;;) {
		fd = accept4(B->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			/* Another worker won the race, or the queue is dry. */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				log_warn("accept");
			return;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		buf_init(&c->in, SM_BASELINE_IN_MAX);
		buf_init(&c->out, SM_BASELINE_OUT_MAX);
		sm_baseline_epoll(B, c, EPOLL_CTL_ADD, EPOLLIN);
	}
}

/*
 * sm_baseline_decode - answer every complete request in c->in
 *
 * Stops early when the output is over SM_BASELINE_OUT_HIGH (the rest
 * waits in c->in) or the connection is to be closed.
 */
static void
sm_baseline_decode(struct sm_baseline *B, struct sm_baseline_conn *c)
{
	enum netstring_status st;
	struct buf	 perm;
	const char	*payload;
	char		 permbuf[SM_BASELINE_PERMSZ];
	size_t		 plen, used, off = 0;

	while (off < c->in.len && !c->closing &&
	    c->out.len < SM_BASELINE_OUT_HIGH) {
		st = netstring_decode(c->in.data + off, c->in.len - off,
		    SOCKMAP_MAX_QUERY, &payload, &plen, &used);
		if (st == NETSTRING_INCOMPLETE)
			break;
		if (st != NETSTRING_OK) {
			/* No way to find the next frame: PERM, then close. */
			buf_init_fixed(&perm, permbuf, sizeof(permbuf));
			buf_append_str(&perm, "PERM ");
			buf_append_str(&perm, netstring_strerror(st));
			if (perm.error)
				panic("sm_baseline_decode: PERM too long");
			netstring_encode(&c->out, perm.data, perm.len);
			c->closing = 1;
			off = c->in.len;
			break;
		}
		buf_append(&c->out, B->reply, B->reply_len);
		off += used;
		if (B->close_after > 0 && ++c->served >= B->close_after)
			c->closing = 1;
	}
	if (c->out.error)
		panic("sm_baseline_decode: output over its bound");
	buf_consume(&c->in, off);
}

/*
 * sm_baseline_flush - write pending output, then set the events c needs
 *
 * Returns -1 if c was closed.
 */
static int
sm_baseline_flush(struct sm_baseline *B, struct sm_baseline_conn *c)
{
	unsigned int	 want;

	if (bench_send(c->fd, &c->out) == -1) {
		sm_baseline_close(c);
		return (-1);
	}
	if (c->closing && c->out.len == 0) {
		sm_baseline_close(c);
		return (-1);
	}
	want = 0;
	if (c->out.len > 0)
		want |= EPOLLOUT;
	/* Back-pressure: a client that does not read is not read either. */
	if (!c->closing && c->out.len < SM_BASELINE_OUT_HIGH)
		want |= EPOLLIN;
	if (want != c->events)
		sm_baseline_epoll(B, c, EPOLL_CTL_MOD, want);
	return (0);
}

/* sm_baseline_read - new bytes from a client */
static void
sm_baseline_read(struct sm_baseline *B, struct sm_baseline_conn *c)
{
	ssize_t	 n;

	n = read(c->fd, B->scratch, sizeof(B->scratch));
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		sm_baseline_close(c);
		return;
	}
	if (n == 0) {
		/* EOF: every complete request has been answered. */
		sm_baseline_close(c);
		return;
	}
	/* c->in holds less than a frame while we read: this fits. */
	if (buf_append(&c->in, B->scratch, (size_t)n) == -1)
		panic("sm_baseline_read: input over its bound");
	sm_baseline_decode(B, c);
	sm_baseline_flush(B, c);
}

/* sm_baseline_worker - one worker's event loop, until SIGTERM */
static int
sm_baseline_worker(struct sm_baseline *B, const sigset_t *waitmask)
{
	struct epoll_event events[SM_BASELINE_EVENTS], lev;
	struct sm_baseline_conn *c;
	int		 i, n;

	if ((B->ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
	memset(&lev, 0, sizeof(lev));
	lev.events = EPOLLIN;
	lev.data.ptr = NULL;		/* NULL marks the listener */
	if (epoll_ctl(B->ep, EPOLL_CTL_ADD, B->lfd, &lev) == -1)
		fatal("epoll_ctl listener");
	while (!sm_baseline_stop) {
		n = epoll_pwait(B->ep, events, SM_BASELINE_EVENTS, -1,
		    waitmask);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait");
		}
		for (i = 0; i < n; i++) {
			if ((c = events[i].data.ptr) == NULL) {
				sm_baseline_accept(B);
				continue;
			}
			if (events[i].events & EPOLLOUT) {
				if (sm_baseline_flush(B, c) == -1)
					continue;
				/* Drained: serve what was held back. */
				if (c->in.len > 0 && !c->closing) {
					sm_baseline_decode(B, c);
					if (sm_baseline_flush(B, c) == -1)
						continue;
				}
			}
			if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				sm_baseline_read(B, c);
		}
	}
	/* Connections die with the process; nothing to drain in a bench. */
	return (0);
}

/* sm_baseline_reply - encode the constant reply "<status> <text>" */
static void
sm_baseline_reply(struct sm_baseline *B, const char *status,
    const char *text)
{
	struct buf	 payload, out;

	if (strcmp(status, "OK") != 0 && strcmp(status, "NOTFOUND") != 0 &&
	    strcmp(status, "TEMP") != 0 && strcmp(status, "TIMEOUT") != 0 &&
	    strcmp(status, "PERM") != 0)
		fatalx("-s: status must be OK, NOTFOUND, TEMP, TIMEOUT or "
		    "PERM");
	/* Older Postfix reads a bare "OK" as not found (STYLE.md 5). */
	if (strcmp(status, "OK") == 0 && *text == '\0')
		fatalx("-r: an OK reply needs data");
	buf_init(&payload, SOCKMAP_MAX_REPLY);
	buf_init(&out, NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY);
	buf_append_str(&payload, status);
	buf_append_char(&payload, ' ');
	if (strcmp(status, "NOTFOUND") != 0)
		buf_append_str(&payload, text);
	if (payload.error || netstring_encode(&out, payload.data,
	    payload.len) == -1)
		fatalx("-r: reply longer than %d bytes", SOCKMAP_MAX_REPLY);
	buf_free(&payload);
	B->reply = out.data;
	B->reply_len = out.len;
}

/* sm_baseline_kill - signal every live worker */
static void
sm_baseline_kill(const pid_t *pids, int n, int sig)
{
	int	 i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], sig);
}

int
main(int argc, char *argv[])
{
	struct sm_baseline B;
	struct sigaction sa;
	sigset_t	 block, waitmask;
	char		 err[BENCH_ADDR_ERRSZ];
	const char	*text = SM_BASELINE_DEF_REPLY, *status = "OK";
	pid_t		*pids, pid;
	long		 ncpu;
	int		 ch, i, alive, wstatus, failed = 0, nworkers;

	log_init("sm-baseline", 1, 0);
	memset(&B, 0, sizeof(B));
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	nworkers = ncpu < 1 ? 1 : ncpu > SM_BASELINE_MAX_WORKERS ?
	    SM_BASELINE_MAX_WORKERS : (int)ncpu;
	while ((ch = getopt(argc, argv, "r:s:w:x:")) != -1) {
		switch (ch) {
		case 'r':
			text = optarg;
			break;
		case 's':
			status = optarg;
			break;
		case 'w':
			nworkers = (int)bench_number(optarg, 1,
			    SM_BASELINE_MAX_WORKERS, "-w");
			break;
		case 'x':
			B.close_after = bench_number(optarg, 1,
			    ULONG_MAX, "-x");
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	B.spec = argv[optind];
	if (bench_addr_parse(B.spec, &B.addr, err, sizeof(err)) == -1)
		fatalx("%s: %s", B.spec, err);
	sm_baseline_reply(&B, status, text);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sm_baseline_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Signals are taken only in epoll_pwait/sigsuspend: none is lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGCHLD);

	sm_baseline_listen(&B);
	pids = xcalloc((size_t)nworkers, sizeof(*pids));
	for (i = 0; i < nworkers; i++) {
		if ((pid = fork()) == -1) {
			log_warn("fork");
			failed = 1;
			break;
		}
		if (pid == 0) {
			free(pids);
			sa.sa_handler = SIG_DFL;
			sigaction(SIGCHLD, &sa, NULL);
			_exit(sm_baseline_worker(&B, &waitmask));
		}
		pids[i] = pid;
	}
	log_info("listening on %s, %d workers, reply %zu bytes", B.spec,
	    nworkers, B.reply_len);

	alive = i;
	while (!failed && !sm_baseline_stop) {
		sigsuspend(&waitmask);
		if (sm_baseline_child) {
			sm_baseline_child = 0;
			while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
				for (i = 0; i < nworkers; i++)
					if (pids[i] == pid)
						pids[i] = 0;
				alive--;
				log_warnx("worker %ld died (status %d): "
				    "stopping", (long)pid, wstatus);
				failed = 1;
			}
		}
	}
	sm_baseline_kill(pids, nworkers, SIGTERM);
	while (alive > 0) {
		if ((pid = waitpid(-1, &wstatus, 0)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		alive--;
	}
	if (B.addr.family == AF_UNIX && unlink(B.addr.path) == -1 &&
	    errno != ENOENT)
		log_warn("unlink %s", B.addr.path);
	free(pids);
	free(B.reply);
	return (failed ? 1 : 0);
}
