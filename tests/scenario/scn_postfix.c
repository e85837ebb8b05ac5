/*
 * scn_postfix.c - the in-process front worker, the relay of its resolver
 * connection, and its Postfix clients
 *
 * The front worker itself (daemon/worker*.c, through worker_new/worker_free)
 * runs once a "postfix" command asks it something: Postfix clients send
 * netstring requests "map domain" to its listener in the temporary
 * directory and read its socketmap replies (expect answer); its
 * connection to the resolver goes through a relay of this runner (the
 * worker has a configuration of its own whose runtime_dir holds the
 * relay's socket), which counts what the worker asks (expect asked).  It
 * reads the cache through an LMDB environment of its own, as in the
 * daemon, but in this process: LMDB's locks are per process, so the
 * second open re-initializes the lock table, harmless in one thread since
 * every read transaction ends before its call returns, and
 * "restart"/"crash" refuse to run with a worker (the resolver's close
 * would free the worker's reader slot).
 *
 * scenario.c's loop moves the relay (scn_relay) and reads the clients
 * (scn_read_answers); this file calls scenario.c to start the resolver
 * the worker asks (scn_start): why the two call each other is in
 * scenario_int.h.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/ipc.h"
#include "daemon/worker.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "fake_event.h"
#include "scenario_int.h"

/* ---- the worker, and the relay of its resolver connection ---- */

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

int
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

/* ---- the Postfix clients ---- */

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

int
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

void
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

void
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

void
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

void
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

void
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
