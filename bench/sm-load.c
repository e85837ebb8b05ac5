/*
 * sm-load.c - socketmap load generator: how fast does a server answer?
 *
 * sm-load [-v] [-i] [-c conns] [-n requests] [-t seconds] [-m map]
 *         [-k key | -K file | -P prefix -N count [-S suffix]] address
 *
 * It opens conns persistent connections to address ("unix:/path" or
 * "inet:host:port") and on each sends one request at a time, exactly as
 * Postfix's dict_sockmap does (it writes a query and waits for its reply
 * before the next): a closed-loop load.  A request is the netstring
 * "<map> <key>" (socketmap_table(5)); the reply is one netstring.  The run
 * stops by itself after `requests` requests or `seconds` seconds, whichever
 * comes first (or at SIGINT/SIGTERM), then prints what it saw and a last
 * line for scripts:
 *
 *	RESULT conns=8 reqs=123456 rps=41152 p50_us=23.1 p99_us=55.0
 *	    errors=0 p90_us=30.2 p999_us=80.1 max_us=1203.4 ok=123456
 *	    notfound=0 unanswered=8 elapsed_s=3.000 mean_us=25.3
 *	    err_temp=0 ...
 *
 * (one line).  reqs counts replies received; rps is reqs per second of the
 * run; unanswered are the requests still in flight when time ran out (a
 * server that never answers shows up here, not as an error).  Latency is the time from just before the request is written to the
 * moment its whole reply has been read, for every reply; each one is kept
 * in an array preallocated (and touched) before the run, so percentiles are
 * exact (nearest rank) and the measuring costs no allocation or page
 * fault.  Closed-loop consistency (Little's law): conns is about
 * rps * mean latency; the shortfall is the generator's own time per
 * request.
 *
 * Errors, counted by type: temp, timeout, perm (replies with that status),
 * badstatus (any other status, including a bare "OK" without data, which
 * older Postfix reads as not found), proto (broken or oversized netstring,
 * or bytes nobody asked for), closed (the server closed or reset the
 * connection), io (any other socket error), connect (a lost connection
 * could not be re-opened).  After closed, proto and io the connection is
 * re-opened, as Postfix would, and the run goes on.  OK and NOTFOUND are
 * answers, not errors.
 *
 * Why raw epoll and not libevent: the generator shares the CPUs with the
 * server it measures, so every cycle it spends is taken from the server.
 * One level-triggered epoll loop, one send(2) and one read(2) per request
 * into a buffer that is already there, and no callbacks or buffer chains,
 * is the least it can cost.  Linux only, which is fine for a bench tool.
 *
 * -v prints each reply ("reply: PAYLOAD"); -i each reply with the number of
 * its request ("answer: I PAYLOAD", I from 0: with -K in one pass, the
 * key on line I of the file), so that a script can check that every key
 * got its own answer even where the answer does not name the domain.
 *
 * Keys: -k a fixed key (warm lookups); -K a file with one key a line
 * (empty lines and lines starting with '#' skipped); -P/-N the generated
 * sequence prefix0 .. prefix<count-1> (with -S suffix appended), used round
 * robin across all connections, e.g. for cold lookups of many domains.
 * Limits: map name SOCKMAP_MAX_NAME bytes, request payload SOCKMAP_MAX_QUERY
 * bytes, reply payload SOCKMAP_MAX_REPLY bytes (Postfix's own), at most
 * SM_LOAD_MAX_CONNS connections and SM_LOAD_MAX_REQUESTS requests, key
 * files up to SM_LOAD_MAX_KEYS keys and SM_LOAD_MAX_KEYFILE bytes.
 *
 * Exit status: 0 when at least one reply was measured (errors are
 * reported, not judged), 1 when nothing was (no connection, no reply, bad
 * arguments), 2 usage.
 */
#include "autoconf.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_addr.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "lib/xmalloc.h"

#define SM_LOAD_MAX_CONNS	4096
#define SM_LOAD_MAX_REQUESTS	100000000ULL	/* 800 MB of latencies */
#define SM_LOAD_MAX_SECONDS	86400.0
#define SM_LOAD_MAX_KEYS	10000000
#define SM_LOAD_MAX_KEYFILE	(256 * 1024 * 1024)
#define SM_LOAD_DEF_REQUESTS	1000000ULL
#define SM_LOAD_DEF_SECONDS	10.0
#define SM_LOAD_DEF_MAP		"postfix"
#define SM_LOAD_DEF_KEY		"bench.example"
/* One request on the wire: length digits, ':', payload, ','. */
#define SM_LOAD_REQ_BUFSZ	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_QUERY)
/* Undecoded reply bytes per connection: one whole reply at most, plus
 * one read's worth (anything past a whole reply is a protocol error). */
#define SM_LOAD_READSZ		(64 * 1024)
#define SM_LOAD_IN_MAX		(NETSTRING_MAX_DIGITS + 2 + \
				    SOCKMAP_MAX_REPLY + SM_LOAD_READSZ)
#define SM_LOAD_EVENTS		256
#define SM_LOAD_ESCSZ		(LOG_ESCAPE_MAX * 4 + 8)

enum sm_load_keymode {
	SM_LOAD_KEY_FIXED,
	SM_LOAD_KEY_FILE,
	SM_LOAD_KEY_SEQ,
};

enum sm_load_err {
	SM_LOAD_ERR_TEMP = 0,
	SM_LOAD_ERR_TIMEOUT,
	SM_LOAD_ERR_PERM,
	SM_LOAD_ERR_BADSTATUS,
	SM_LOAD_ERR_PROTO,
	SM_LOAD_ERR_CLOSED,
	SM_LOAD_ERR_IO,
	SM_LOAD_ERR_CONNECT,
	SM_LOAD_NERR
};

static const char *const sm_load_err_names[SM_LOAD_NERR] = {
	"temp", "timeout", "perm", "badstatus", "proto", "closed", "io",
	"connect",
};

struct sm_load_conn {
	int		 fd;		/* -1: lost for good */
	int		 busy;		/* a request awaits its reply */
	int		 pollout;	/* EPOLLOUT is registered */
	uint64_t	 sent_ns;	/* when the request was written */
	unsigned long long seq;	/* the request's number, from 0 */
	struct buf	 in;		/* reply bytes not yet decoded */
	struct buf	 out;		/* request bytes not yet written */
};

struct sm_load {
	const char	*spec;
	struct bench_addr addr;
	const char	*map;
	size_t		 map_len;
	enum sm_load_keymode keymode;
	const char	*key;		/* fixed key, or the sequence prefix */
	size_t		 key_len;
	const char	*suffix;	/* sequence suffix */
	size_t		 suffix_len;
	unsigned long long count;	/* sequence length */
	char		*keydata;	/* file: every key, back to back */
	size_t		*keyoff;	/* file: key i is [keyoff[i], [i+1]) */
	size_t		 nkeys;
	unsigned long long next_key;
	int		 verbose;
	int		 numbered;	/* -i: "answer: I PAYLOAD" lines */

	int		 ep;
	struct sm_load_conn *conns;
	int		 nconns;
	int		 live;		/* connections not lost */
	int		 inflight;	/* requests awaiting a reply */

	unsigned long long max_requests;
	unsigned long long sent;
	unsigned long long replies;
	unsigned long long ok;
	unsigned long long notfound;
	unsigned long long errors[SM_LOAD_NERR];
	uint64_t	*lat;		/* ns, one per reply, max_requests */
	size_t		 nlat;

	uint64_t	 start_ns;
	uint64_t	 deadline_ns;

	char		 payload[SOCKMAP_MAX_QUERY];
	char		 req[SM_LOAD_REQ_BUFSZ];
	char		 scratch[SM_LOAD_READSZ];
};

static volatile sig_atomic_t sm_load_stop;

static void	sm_load_send(struct sm_load *, struct sm_load_conn *);

/* usage - print the synopsis and exit 2 */
static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sm-load [-v] [-i] [-c conns] [-n requests] "
	    "[-t seconds] [-m map]\n"
	    "               [-k key | -K file | -P prefix -N count "
	    "[-S suffix]] address\n"
	    "address: unix:/path | inet:host:port\n");
	exit(2);
}

/* sm_load_signal - SIGINT/SIGTERM: finish the run early, still report */
static void
sm_load_signal(int sig)
{
	(void)sig;
	sm_load_stop = 1;
}

/* sm_load_now - monotonic time in nanoseconds */
static uint64_t
sm_load_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
}

/* sm_load_seconds - a duration option, fractions allowed */
static double
sm_load_seconds(const char *s)
{
	double		 v;
	char		*end;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0.001) ||
	    v > SM_LOAD_MAX_SECONDS)
		fatalx("-t must be from 0.001 to %.0f seconds",
		    SM_LOAD_MAX_SECONDS);
	return (v);
}

/* sm_load_key_ok - may p[0..len) be a key? (sockmap_request_parse rules) */
static int
sm_load_key_ok(const char *p, size_t len)
{
	size_t	 i;

	if (len == 0)
		return (0);
	for (i = 0; i < len; i++)
		if (p[i] == '\0' || p[i] == '\r' || p[i] == '\n')
			return (0);
	return (1);
}

/*
 * sm_load_read_keys - load a key file: one key a line
 *
 * Empty lines and '#' comments are skipped, a CR before the LF is dropped.
 * Every key must fit a request with the chosen map name.
 */
static void
sm_load_read_keys(struct sm_load *L, const char *file)
{
	struct buf	 data;
	FILE		*fp;
	char		*line = NULL;
	size_t		 linesz = 0, len, cap = 0, maxkey;
	ssize_t		 n;
	unsigned long	 lineno = 0;

	maxkey = SOCKMAP_MAX_QUERY - L->map_len - 1;
	if ((fp = fopen(file, "r")) == NULL)
		fatal("%s", file);
	buf_init(&data, SM_LOAD_MAX_KEYFILE);
	while ((n = getline(&line, &linesz, fp)) != -1) {
		lineno++;
		len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		if (!sm_load_key_ok(line, len) || len > maxkey)
			fatalx("%s:%lu: key empty, longer than %zu bytes or "
			    "with NUL/CR", file, lineno, maxkey);
		if (L->nkeys >= SM_LOAD_MAX_KEYS)
			fatalx("%s: more than %d keys", file, SM_LOAD_MAX_KEYS);
		if (L->nkeys + 2 > cap) {
			cap = cap ? cap * 2 : 1024;
			L->keyoff = xreallocarray(L->keyoff, cap,
			    sizeof(*L->keyoff));
		}
		L->keyoff[L->nkeys++] = data.len;
		if (buf_append(&data, line, len) == -1)
			fatalx("%s: more than %d bytes of keys", file,
			    SM_LOAD_MAX_KEYFILE);
	}
	if (ferror(fp))
		fatal("%s: read", file);
	fclose(fp);
	free(line);
	if (L->nkeys == 0)
		fatalx("%s: no keys", file);
	L->keyoff[L->nkeys] = data.len;
	/* Owned storage now belongs to L; data is not used again. */
	L->keydata = data.data;
}

/*
 * sm_load_next_request - format the next request into L->req
 *
 * Keys go round robin over all connections.  Returns the frame length.
 */
static size_t
sm_load_next_request(struct sm_load *L)
{
	struct buf	 payload, req;
	unsigned long long k;
	size_t		 i;

	buf_init_fixed(&payload, L->payload, sizeof(L->payload));
	buf_append(&payload, L->map, L->map_len);
	buf_append_char(&payload, ' ');
	switch (L->keymode) {
	case SM_LOAD_KEY_FIXED:
		buf_append(&payload, L->key, L->key_len);
		break;
	case SM_LOAD_KEY_FILE:
		i = (size_t)(L->next_key++ % L->nkeys);
		buf_append(&payload, L->keydata + L->keyoff[i],
		    L->keyoff[i + 1] - L->keyoff[i]);
		break;
	case SM_LOAD_KEY_SEQ:
		k = L->next_key++ % L->count;
		buf_append(&payload, L->key, L->key_len);
		buf_appendf(&payload, "%llu", k);
		buf_append(&payload, L->suffix, L->suffix_len);
		break;
	}
	buf_init_fixed(&req, L->req, sizeof(L->req));
	/* Lengths were checked against SOCKMAP_MAX_QUERY at start-up. */
	if (payload.error || netstring_encode(&req, payload.data,
	    payload.len) == -1)
		panic("sm_load_next_request: request does not fit");
	return (req.len);
}

/* sm_load_epoll - register fd for input, and output too if want_out */
static void
sm_load_epoll(struct sm_load *L, struct sm_load_conn *c, int op,
    int want_out)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0);
	ev.data.ptr = c;
	if (epoll_ctl(L->ep, op, c->fd, &ev) == -1)
		fatal("epoll_ctl");
	c->pollout = want_out;
}

/*
 * sm_load_open - connect c; 0 or -1 (errno set)
 *
 * With want_out, the first request goes out from the event loop when the
 * socket is writable, not from here: no recursion when a server keeps
 * dropping connections.
 */
static int
sm_load_open(struct sm_load *L, struct sm_load_conn *c, int want_out)
{
	int	 fd, flags;

	if ((fd = bench_addr_connect(&L->addr)) == -1)
		return (-1);
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		fatal("fcntl O_NONBLOCK");
	c->fd = fd;
	c->busy = 0;
	buf_reset(&c->in);
	buf_reset(&c->out);
	sm_load_epoll(L, c, EPOLL_CTL_ADD, want_out);
	return (0);
}

/*
 * sm_load_fail - count an error on c, drop the connection, re-open it
 *
 * A request in flight is lost (the error stands for it).  Postfix would
 * reconnect for its next lookup; so do we, unless the run is over.
 */
static void
sm_load_fail(struct sm_load *L, struct sm_load_conn *c, enum sm_load_err e)
{
	L->errors[e]++;
	if (c->busy) {
		c->busy = 0;
		L->inflight--;
	}
	close(c->fd);
	c->fd = -1;
	if (sm_load_stop || L->sent >= L->max_requests ||
	    sm_load_now() >= L->deadline_ns) {
		L->live--;
		return;
	}
	if (sm_load_open(L, c, 1) == -1) {
		log_warn("reconnect to %s", L->spec);
		L->errors[SM_LOAD_ERR_CONNECT]++;
		L->live--;
	}
}

/*
 * sm_load_flush - c is writable: write what is left of its request, or
 * start one on a fresh connection.  Returns -1 if c failed.
 */
static int
sm_load_flush(struct sm_load *L, struct sm_load_conn *c)
{
	if (!c->busy && c->out.len == 0) {
		sm_load_epoll(L, c, EPOLL_CTL_MOD, 0);
		sm_load_send(L, c);
		return (c->fd == -1 ? -1 : 0);
	}
	if (bench_send(c->fd, &c->out) == -1) {
		sm_load_fail(L, c, errno == EPIPE || errno == ECONNRESET ?
		    SM_LOAD_ERR_CLOSED : SM_LOAD_ERR_IO);
		return (-1);
	}
	if ((c->out.len > 0) != c->pollout)
		sm_load_epoll(L, c, EPOLL_CTL_MOD, c->out.len > 0);
	return (0);
}

/* sm_load_send - start c's next request, unless the run is over */
static void
sm_load_send(struct sm_load *L, struct sm_load_conn *c)
{
	size_t	 len;
	ssize_t	 n;

	if (sm_load_stop || L->sent >= L->max_requests)
		return;
	len = sm_load_next_request(L);
	c->seq = L->sent;
	L->sent++;
	L->inflight++;
	c->busy = 1;
	c->sent_ns = sm_load_now();
	/* Fast path: the whole request goes out now, nothing is copied. */
	n = send(c->fd, L->req, len, MSG_NOSIGNAL);
	if (n == (ssize_t)len)
		return;
	if (n == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			sm_load_fail(L, c, errno == EPIPE ||
			    errno == ECONNRESET ? SM_LOAD_ERR_CLOSED :
			    SM_LOAD_ERR_IO);
			return;
		}
		n = 0;
	}
	if (buf_append(&c->out, L->req + n, len - (size_t)n) == -1)
		panic("sm_load_send: request does not fit");
	sm_load_flush(L, c);
}

/* sm_load_classify - count one reply payload by its status word */
static void
sm_load_classify(struct sm_load *L, const char *p, size_t len)
{
	if (len > 3 && memcmp(p, "OK ", 3) == 0)
		L->ok++;
	else if (len >= 8 && memcmp(p, "NOTFOUND", 8) == 0 &&
	    (len == 8 || p[8] == ' '))
		L->notfound++;
	else if (len >= 4 && memcmp(p, "TEMP", 4) == 0 &&
	    (len == 4 || p[4] == ' '))
		L->errors[SM_LOAD_ERR_TEMP]++;
	else if (len >= 7 && memcmp(p, "TIMEOUT", 7) == 0 &&
	    (len == 7 || p[7] == ' '))
		L->errors[SM_LOAD_ERR_TIMEOUT]++;
	else if (len >= 4 && memcmp(p, "PERM", 4) == 0 &&
	    (len == 4 || p[4] == ' '))
		L->errors[SM_LOAD_ERR_PERM]++;
	else
		L->errors[SM_LOAD_ERR_BADSTATUS]++;
}

/* sm_load_read - bytes from the server: complete the reply, send again */
static void
sm_load_read(struct sm_load *L, struct sm_load_conn *c)
{
	enum netstring_status st;
	const char	*payload;
	char		 esc[SM_LOAD_ESCSZ];
	size_t		 plen, used;
	ssize_t		 n;
	uint64_t	 now;

	n = read(c->fd, L->scratch, sizeof(L->scratch));
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		sm_load_fail(L, c, errno == ECONNRESET ? SM_LOAD_ERR_CLOSED :
		    SM_LOAD_ERR_IO);
		return;
	}
	if (n == 0) {
		sm_load_fail(L, c, SM_LOAD_ERR_CLOSED);
		return;
	}
	now = sm_load_now();
	/* c->in holds less than one reply: this always fits. */
	if (buf_append(&c->in, L->scratch, (size_t)n) == -1)
		panic("sm_load_read: input buffer overflow");
	st = netstring_decode(c->in.data, c->in.len, SOCKMAP_MAX_REPLY,
	    &payload, &plen, &used);
	if (st == NETSTRING_INCOMPLETE)
		return;
	if (st != NETSTRING_OK) {
		if (L->verbose)
			log_warnx("reply: %s", netstring_strerror(st));
		sm_load_fail(L, c, SM_LOAD_ERR_PROTO);
		return;
	}
	if (!c->busy) {
		if (L->verbose)
			log_warnx("reply: nobody asked for it");
		sm_load_fail(L, c, SM_LOAD_ERR_PROTO);
		return;
	}
	if (L->nlat < L->max_requests)
		L->lat[L->nlat++] = now - c->sent_ns;
	L->replies++;
	sm_load_classify(L, payload, plen);
	if (L->verbose)
		printf("reply: %s\n", log_escape(esc, sizeof(esc), payload,
		    plen));
	if (L->numbered)
		printf("answer: %llu %s\n", c->seq, log_escape(esc,
		    sizeof(esc), payload, plen));
	c->busy = 0;
	L->inflight--;
	/* One request, one reply: more bytes are out of step. */
	if (used != c->in.len) {
		if (L->verbose)
			log_warnx("reply: bytes nobody asked for");
		sm_load_fail(L, c, SM_LOAD_ERR_PROTO);
		return;
	}
	buf_reset(&c->in);
	sm_load_send(L, c);
}

/* sm_load_cmp - qsort order for latencies */
static int
sm_load_cmp(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* sm_load_pct - nearest-rank percentile (permille) of sorted v[0..n) */
static uint64_t
sm_load_pct(const uint64_t *v, size_t n, unsigned permille)
{
	size_t	 rank;

	if (n == 0)
		return (0);
	/* rank = ceil(n * permille / 1000), at least 1 */
	rank = (size_t)(((unsigned long long)n * permille + 999) / 1000);
	if (rank == 0)
		rank = 1;
	return (v[rank - 1]);
}

/* sm_load_us - ns as microseconds with one decimal, into out */
static const char *
sm_load_us(char *out, size_t outsz, uint64_t ns)
{
	int	 n;

	n = snprintf(out, outsz, "%llu.%llu",
	    (unsigned long long)(ns / 1000),
	    (unsigned long long)(ns % 1000 / 100));
	if (n < 0 || (size_t)n >= outsz)
		panic("sm_load_us: buffer too small");
	return (out);
}

/* sm_load_report - the human summary, then the RESULT line */
static void
sm_load_report(struct sm_load *L, uint64_t elapsed_ns)
{
	char		 p50[32], p90[32], p99[32], p999[32], max[32];
	char		 mean[32];
	unsigned long long nerr = 0;
	uint64_t	 sum = 0;
	double		 secs, rps;
	size_t		 j;
	int		 i;

	for (i = 0; i < SM_LOAD_NERR; i++)
		nerr += L->errors[i];
	for (j = 0; j < L->nlat; j++)
		sum += L->lat[j];
	sm_load_us(mean, sizeof(mean), L->nlat ? sum / L->nlat : 0);
	secs = (double)elapsed_ns / 1e9;
	rps = secs > 0 ? (double)L->replies / secs : 0;
	qsort(L->lat, L->nlat, sizeof(*L->lat), sm_load_cmp);
	sm_load_us(p50, sizeof(p50), sm_load_pct(L->lat, L->nlat, 500));
	sm_load_us(p90, sizeof(p90), sm_load_pct(L->lat, L->nlat, 900));
	sm_load_us(p99, sizeof(p99), sm_load_pct(L->lat, L->nlat, 990));
	sm_load_us(p999, sizeof(p999), sm_load_pct(L->lat, L->nlat, 999));
	sm_load_us(max, sizeof(max), L->nlat ? L->lat[L->nlat - 1] : 0);

	printf("address    %s, %d connection%s, map \"%s\"\n", L->spec,
	    L->nconns, L->nconns == 1 ? "" : "s", L->map);
	printf("requests   %llu replies (ok %llu, notfound %llu), %llu sent, "
	    "%d unanswered at the end\n", L->replies, L->ok, L->notfound,
	    L->sent, L->inflight);
	printf("errors     %llu (", nerr);
	for (i = 0; i < SM_LOAD_NERR; i++)
		printf("%s%s %llu", i ? ", " : "", sm_load_err_names[i],
		    L->errors[i]);
	printf(")\n");
	printf("elapsed    %.3f s\n", secs);
	printf("rate       %.0f requests/s\n", rps);
	printf("latency    p50 %s us, p90 %s us, p99 %s us, p99.9 %s us, "
	    "max %s us, mean %s us\n", p50, p90, p99, p999, max, mean);
	printf("RESULT conns=%d reqs=%llu rps=%.0f p50_us=%s p99_us=%s "
	    "errors=%llu p90_us=%s p999_us=%s max_us=%s ok=%llu notfound=%llu"
	    " unanswered=%d elapsed_s=%.3f mean_us=%s", L->nconns, L->replies,
	    rps, p50, p99, nerr, p90, p999, max, L->ok, L->notfound,
	    L->inflight, secs, mean);
	for (i = 0; i < SM_LOAD_NERR; i++)
		printf(" err_%s=%llu", sm_load_err_names[i], L->errors[i]);
	printf("\n");
	fflush(stdout);
}

/* sm_load_run - the measured loop; returns the elapsed nanoseconds */
static uint64_t
sm_load_run(struct sm_load *L, const sigset_t *waitmask)
{
	struct epoll_event events[SM_LOAD_EVENTS];
	struct sm_load_conn *c;
	uint64_t	 now;
	long long	 ms;
	int		 i, n;

	L->start_ns = sm_load_now();
	L->deadline_ns += L->start_ns;
	for (i = 0; i < L->nconns; i++)
		sm_load_send(L, &L->conns[i]);
	for (;;) {
		now = sm_load_now();
		if (sm_load_stop || now >= L->deadline_ns || L->live == 0 ||
		    (L->sent >= L->max_requests && L->inflight == 0))
			break;
		/* Round up: waking early would only spin. */
		ms = (long long)((L->deadline_ns - now + 999999) / 1000000);
		n = epoll_pwait(L->ep, events, SM_LOAD_EVENTS,
		    ms > INT_MAX ? INT_MAX : (int)ms, waitmask);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait");
		}
		for (i = 0; i < n; i++) {
			c = events[i].data.ptr;
			/* An earlier event this round may have dropped it. */
			if (c->fd == -1)
				continue;
			if ((events[i].events & EPOLLOUT) &&
			    sm_load_flush(L, c) == -1)
				continue;
			if (c->fd != -1 && (events[i].events &
			    (EPOLLIN | EPOLLHUP | EPOLLERR)))
				sm_load_read(L, c);
		}
	}
	return (sm_load_now() - L->start_ns);
}

int
main(int argc, char *argv[])
{
	struct sm_load	*L;
	struct sigaction sa;
	sigset_t	 block, waitmask;
	char		 err[BENCH_ADDR_ERRSZ];
	const char	*keyfile = NULL;
	double		 seconds = SM_LOAD_DEF_SECONDS;
	size_t		 maxkey, digits;
	unsigned long long conns = 1, v;
	int		 ch, nmodes = 0, i, status;

	log_init("sm-load", 1, 0);
	L = xcalloc(1, sizeof(*L));
	L->map = SM_LOAD_DEF_MAP;
	L->key = SM_LOAD_DEF_KEY;
	L->suffix = "";
	L->max_requests = SM_LOAD_DEF_REQUESTS;
	L->keymode = SM_LOAD_KEY_FIXED;
	while ((ch = getopt(argc, argv, "c:ik:K:m:n:N:P:S:t:v")) != -1) {
		switch (ch) {
		case 'c':
			conns = bench_number(optarg, 1, SM_LOAD_MAX_CONNS,
			    "-c");
			break;
		case 'k':
			L->key = optarg;
			L->keymode = SM_LOAD_KEY_FIXED;
			nmodes++;
			break;
		case 'K':
			keyfile = optarg;
			L->keymode = SM_LOAD_KEY_FILE;
			nmodes++;
			break;
		case 'm':
			L->map = optarg;
			break;
		case 'n':
			L->max_requests = bench_number(optarg, 1,
			    SM_LOAD_MAX_REQUESTS, "-n");
			break;
		case 'N':
			L->count = bench_number(optarg, 1, ULLONG_MAX, "-N");
			break;
		case 'P':
			L->key = optarg;
			L->keymode = SM_LOAD_KEY_SEQ;
			nmodes++;
			break;
		case 'S':
			L->suffix = optarg;
			break;
		case 't':
			seconds = sm_load_seconds(optarg);
			break;
		case 'i':
			L->numbered = 1;
			break;
		case 'v':
			L->verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1 || nmodes > 1)
		usage();
	if ((L->keymode == SM_LOAD_KEY_SEQ) != (L->count > 0))
		fatalx("-P and -N go together");
	if (*L->suffix != '\0' && L->keymode != SM_LOAD_KEY_SEQ)
		fatalx("-S needs -P and -N");
	L->spec = argv[optind];
	if (bench_addr_parse(L->spec, &L->addr, err, sizeof(err)) == -1)
		fatalx("%s: %s", L->spec, err);

	/* Every request must fit what Postfix would send. */
	L->map_len = strlen(L->map);
	if (L->map_len == 0 || L->map_len > SOCKMAP_MAX_NAME ||
	    strcspn(L->map, " \r\n") != L->map_len)
		fatalx("-m: map name empty, longer than %d bytes or with "
		    "space/CR/LF", SOCKMAP_MAX_NAME);
	maxkey = SOCKMAP_MAX_QUERY - L->map_len - 1;
	L->key_len = strlen(L->key);
	L->suffix_len = strlen(L->suffix);
	switch (L->keymode) {
	case SM_LOAD_KEY_FIXED:
		if (!sm_load_key_ok(L->key, L->key_len) ||
		    L->key_len > maxkey)
			fatalx("-k: key empty, longer than %zu bytes or with "
			    "CR/LF", maxkey);
		break;
	case SM_LOAD_KEY_FILE:
		sm_load_read_keys(L, keyfile);
		break;
	case SM_LOAD_KEY_SEQ:
		for (digits = 1, v = L->count - 1; v >= 10; v /= 10)
			digits++;
		if (L->key_len > maxkey || L->suffix_len > maxkey ||
		    L->key_len + L->suffix_len + digits > maxkey ||
		    strcspn(L->key, "\r\n") != L->key_len ||
		    strcspn(L->suffix, "\r\n") != L->suffix_len)
			fatalx("-P/-S: keys would be longer than %zu bytes or "
			    "contain CR/LF", maxkey);
		break;
	}

	/* Touch every latency slot now: no page fault while measuring. */
	L->lat = xreallocarray(NULL, (size_t)L->max_requests,
	    sizeof(*L->lat));
	memset(L->lat, 0, (size_t)L->max_requests * sizeof(*L->lat));
	L->deadline_ns = (uint64_t)(seconds * 1e9);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sm_load_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Signals arrive only inside epoll_pwait: no lost wake-up. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);

	if ((L->ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
	L->nconns = (int)conns;
	L->conns = xcalloc(conns, sizeof(*L->conns));
	for (i = 0; i < L->nconns; i++) {
		buf_init(&L->conns[i].in, SM_LOAD_IN_MAX);
		buf_init(&L->conns[i].out, SM_LOAD_REQ_BUFSZ);
		if (sm_load_open(L, &L->conns[i], 0) == -1)
			fatal("connect %s (connection %d of %d)", L->spec,
			    i + 1, L->nconns);
		L->live++;
	}

	sm_load_report(L, sm_load_run(L, &waitmask));
	status = L->replies > 0 ? 0 : 1;

	for (i = 0; i < L->nconns; i++) {
		if (L->conns[i].fd != -1)
			close(L->conns[i].fd);
		buf_free(&L->conns[i].in);
		buf_free(&L->conns[i].out);
	}
	close(L->ep);
	free(L->conns);
	free(L->lat);
	free(L->keyoff);
	free(L->keydata);
	free(L);
	return (status);
}
