/*
 * hostile-tls - a misbehaving MTA-STS policy server on GnuTLS
 *
 * SYNOPSIS
 *	hostile-tls CONF ADDR PORT PIDFILE LOGFILE [MAXCONN]
 *
 * DESCRIPTION
 *	Serves TLS on ADDR:PORT and misbehaves at the TLS layer, where
 *	Python's ssl module (tests/world/hostile-https) cannot: alerts and
 *	HelloRequests after the handshake, a body cut by a TCP FIN without
 *	close_notify, a warning alert inside the handshake, OCSP staples.
 *	The host is chosen by the SNI of the ClientHello, from CONF (written
 *	by tests/world/start, or by tests/unit/test_https.c), one line per
 *	policy host, tab separated:
 *
 *	    servername  behaviour  certfile  keyfile  bodyfile  ocspfile
 *
 *	certfile may hold a chain (leaf first); ocspfile is a DER OCSP
 *	response stapled when the client asks for one, "-" for none.  An
 *	unknown SNI gets the first line's certificate and 404.  Behaviours,
 *	after the request head (GET /.well-known/mta-sts.txt; anything else
 *	is a 404):
 *
 *	    normal        200 text/plain, Content-Length, the body
 *	    alert-flood   (TLS 1.2) warning alerts (user_canceled) in
 *	                  batches of ~64 KiB at full speed for FLOOD_MAX s
 *	                  or until the client leaves
 *	    hello-flood   (TLS 1.2) HelloRequests in batches of ~64 KiB for
 *	                  HELLO_FLOOD_MS ms, then silence (never answers a
 *	                  renegotiation) until the client leaves
 *	    unframed-cut  200 text/plain without Content-Length, not
 *	                  chunked, the body, then a TCP FIN without TLS
 *	                  close_notify
 *	    unframed-bye  the same body ended by close_notify, then a FIN
 *	    hs-warning    (TLS 1.2) a warning alert unrecognized_name after
 *	                  the ClientHello, before the ServerHello; then normal
 *	    header-flood  200 text/plain, HEADER_FLOOD bytes of header
 *	                  fields, then Content-Length and the body
 *
 *	Bounded: at most MAX_LIVE connections at once (more are closed at
 *	once), each in its own process that dies after CONN_MAX seconds
 *	(alarm), and the server exits after MAXCONN connections (default
 *	DEFAULT_MAXCONN) or on SIGTERM (its connections are ended too).  One
 *	log line per connection, appended to LOGFILE:
 *
 *	    2026-12-03T10:52:51Z sni=NAME behaviour=KIND status=S bytes=N
 *
 *	(status "-" when no request was read; bytes: body bytes, alerts or
 *	HelloRequests, or header bytes sent).  PIDFILE is written once
 *	listening.  Built by tests/world/start with cc and pkg-config gnutls;
 *	by make for tests/unit/test_https.
 *
 * SEE ALSO
 *	tests/world/README.md ("Hostile peers"), RFC 5246 §7.2 and §7.4.1.1
 *	(alerts, HelloRequest), RFC 7633 (must-staple), RFC 6066 §8 (OCSP
 *	status request).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#define MAX_HOSTS	256		/* lines of CONF */
#define MAX_LIVE	64		/* connections at once */
#define DEFAULT_MAXCONN	100000		/* connections before exiting */
#define CONN_MAX	60		/* seconds a connection may last */
#define IO_TIMEOUT	10		/* seconds a single read/write may wait */
#define FLOOD_MAX	10		/* seconds of an alert flood */
#define HELLO_FLOOD_MS	1000		/* milliseconds of HelloRequests */
#define BATCH		65536		/* bytes per flood write */
#define HEAD_MAX	8192		/* request head bytes */
#define BODY_MAX	65536		/* body file bytes */
#define HEADER_FLOOD	(1024 * 1024)	/* header-flood: field bytes */
#define NAME_MAX_LEN	253
#define LINE_MAX_LEN	4096
#define PRIO_ANY	"NORMAL"
#define PRIO_TLS12	"NORMAL:-VERS-TLS1.3"
#define POLICY_PATH	"/.well-known/mta-sts.txt"
#define PAD_LINE	"x-padding: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"

enum behaviour {
	B_NORMAL, B_ALERT_FLOOD, B_HELLO_FLOOD, B_UNFRAMED_CUT,
	B_UNFRAMED_BYE, B_HS_WARNING, B_HEADER_FLOOD
};

static const struct {
	const char	*name;
	enum behaviour	 b;
	int		 tls12;		/* TLS 1.2 only */
} behaviours[] = {
	{ "normal", B_NORMAL, 0 },
	{ "alert-flood", B_ALERT_FLOOD, 1 },
	{ "hello-flood", B_HELLO_FLOOD, 1 },
	{ "unframed-cut", B_UNFRAMED_CUT, 0 },
	{ "unframed-bye", B_UNFRAMED_BYE, 0 },
	{ "hs-warning", B_HS_WARNING, 1 },
	{ "header-flood", B_HEADER_FLOOD, 0 },
};

struct host {
	char		 name[NAME_MAX_LEN + 1];
	const char	*bname;
	enum behaviour	 b;
	int		 tls12;
	gnutls_certificate_credentials_t cred;
	char		*body;
	size_t		 bodylen;
	char		*ocsp;		/* DER OCSP response, or NULL */
	size_t		 ocsplen;
};

/* one connection, in its own process */
struct conn {
	int		 fd;
	gnutls_session_t s;
	struct host	*host;		/* NULL: unknown SNI */
	char		 sni[NAME_MAX_LEN + 1];
	int		 buffering;	/* push into buf instead of the socket */
	char		 buf[BATCH];
	size_t		 buflen;
	int		 failed;	/* a write failed: the client left */
};

static struct host	 hosts[MAX_HOSTS];
static size_t		 nhosts;
static gnutls_priority_t prio_any, prio_tls12;
static int		 logfd = -1;
static volatile sig_atomic_t stopping;

/* die - print a message and exit (start-up errors only) */
static void
die(const char *what, const char *why)
{
	fprintf(stderr, "hostile-tls: %s: %s\n", what, why);
	exit(1);
}

/* read_file - the whole file path, at most max bytes; NULL on error */
static char *
read_file(const char *path, size_t max, size_t *len)
{
	FILE	*fp;
	char	*p;
	size_t	 n;

	if ((fp = fopen(path, "rb")) == NULL)
		return (NULL);
	if ((p = malloc(max + 1)) == NULL)
		die(path, "out of memory");
	n = fread(p, 1, max + 1, fp);
	fclose(fp);
	if (n > max) {
		free(p);
		return (NULL);
	}
	*len = n;
	return (p);
}

/* staple - the host's OCSP response, as it is: GnuTLS's own loader
 * (gnutls_certificate_set_ocsp_status_request_file) refuses a response
 * that says revoked, and a hostile server staples it all the same */
static int
staple(gnutls_session_t s, void *ptr, gnutls_datum_t *resp)
{
	struct host	*h = ptr;

	(void)s;
	if ((resp->data = gnutls_malloc(h->ocsplen)) == NULL)
		return (GNUTLS_E_MEMORY_ERROR);
	memcpy(resp->data, h->ocsp, h->ocsplen);
	resp->size = (unsigned int)h->ocsplen;
	return (0);
}

/* load_conf - the hosts of CONF: servername behaviour cert key body ocsp */
static void
load_conf(const char *path)
{
	FILE		*fp;
	char		 line[LINE_MAX_LEN], *f[6], *p, *save;
	struct host	*h;
	size_t		 i, k;
	int		 rc;

	if ((fp = fopen(path, "r")) == NULL)
		die(path, strerror(errno));
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (nhosts == MAX_HOSTS)
			die(path, "too many hosts");
		k = 0;
		for (p = strtok_r(line, "\t", &save); p != NULL && k < 6;
		    p = strtok_r(NULL, "\t", &save))
			f[k++] = p;
		if (k != 6 || strlen(f[0]) > NAME_MAX_LEN)
			die(path, "want 6 tab-separated fields a line");
		h = &hosts[nhosts];
		snprintf(h->name, sizeof(h->name), "%s", f[0]);
		for (i = 0; i < sizeof(behaviours) / sizeof(behaviours[0]); i++)
			if (strcmp(f[1], behaviours[i].name) == 0)
				break;
		if (i == sizeof(behaviours) / sizeof(behaviours[0]))
			die(f[1], "unknown behaviour");
		h->bname = behaviours[i].name;
		h->b = behaviours[i].b;
		h->tls12 = behaviours[i].tls12;
		if (gnutls_certificate_allocate_credentials(&h->cred) < 0)
			die(path, "gnutls_certificate_allocate_credentials");
		if ((rc = gnutls_certificate_set_x509_key_file(h->cred, f[2],
		    f[3], GNUTLS_X509_FMT_PEM)) < 0)
			die(f[2], gnutls_strerror(rc));
		if (strcmp(f[5], "-") != 0) {
			if ((h->ocsp = read_file(f[5], BODY_MAX,
			    &h->ocsplen)) == NULL)
				die(f[5], "unreadable or too large");
			gnutls_certificate_set_ocsp_status_request_function2(
			    h->cred, 0, staple, h);
		}
		if ((h->body = read_file(f[4], BODY_MAX, &h->bodylen)) == NULL)
			die(f[4], "unreadable or too large");
		nhosts++;
	}
	fclose(fp);
	if (nhosts == 0)
		die(path, "no hosts");
}

/* log_conn - one line per connection, one write(2) (O_APPEND) */
static void
log_conn(const struct conn *c, const char *status, size_t n)
{
	char		 line[512], ts[32];
	time_t		 now = time(NULL);
	struct tm	 tm;
	int		 len;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	len = snprintf(line, sizeof(line), "%s sni=%s behaviour=%s status=%s "
	    "bytes=%zu\n", ts, c->sni[0] != '\0' ? c->sni : "-",
	    c->host != NULL ? c->host->bname : "unknown-sni", status, n);
	if (len > 0 && (size_t)len < sizeof(line) &&
	    write(logfd, line, (size_t)len) != len)
		return;		/* nothing to do about a lost log line */
}

/* send_all - write len bytes to the socket */
static int
send_all(int fd, const char *p, size_t len)
{
	ssize_t	 k;

	while (len > 0) {
		if ((k = send(fd, p, len, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		p += k;
		len -= (size_t)k;
	}
	return (0);
}

/* flush - write out the flood buffer */
static void
flush(struct conn *c)
{
	if (c->buflen > 0 && !c->failed &&
	    send_all(c->fd, c->buf, c->buflen) == -1)
		c->failed = 1;
	c->buflen = 0;
}

/* push - GnuTLS's push function: straight to the socket, or into the
 * flood buffer so that thousands of tiny records go out in one write */
static ssize_t
push(gnutls_transport_ptr_t ptr, const void *data, size_t len)
{
	struct conn	*c = ptr;

	if (c->failed) {
		errno = EPIPE;
		return (-1);
	}
	if (!c->buffering) {
		if (send_all(c->fd, data, len) == -1) {
			c->failed = 1;
			return (-1);
		}
		return ((ssize_t)len);
	}
	if (len > sizeof(c->buf) - c->buflen)
		flush(c);
	if (len > sizeof(c->buf)) {
		if (send_all(c->fd, data, len) == -1)
			c->failed = 1;
	} else {
		memcpy(c->buf + c->buflen, data, len);
		c->buflen += len;
	}
	if (c->failed) {
		errno = EPIPE;
		return (-1);
	}
	return ((ssize_t)len);
}

/* pull - GnuTLS's pull function */
static ssize_t
pull(gnutls_transport_ptr_t ptr, void *data, size_t len)
{
	struct conn	*c = ptr;
	ssize_t		 k;

	while ((k = recv(c->fd, data, len, 0)) == -1 && errno == EINTR)
		continue;
	return (k);
}

/* sni_of - the host name of the server_name extension of a ClientHello
 * body (RFC 8446 §4.1.2, RFC 6066 §3) into out; 0, or -1 when absent */
static int
sni_of(const unsigned char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i = 2 + 32, n, end, type, elen, nlen;

	if (len < i + 1)
		return (-1);
	i += 1 + p[i];				/* session id */
	if (len < i + 2)
		return (-1);
	i += 2 + ((size_t)p[i] << 8 | p[i + 1]);	/* cipher suites */
	if (len < i + 1)
		return (-1);
	i += 1 + p[i];				/* compression methods */
	if (len < i + 2)
		return (-1);
	end = i + 2 + ((size_t)p[i] << 8 | p[i + 1]);
	i += 2;
	if (end > len)
		return (-1);
	while (i + 4 <= end) {
		type = (size_t)p[i] << 8 | p[i + 1];
		elen = (size_t)p[i + 2] << 8 | p[i + 3];
		i += 4;
		if (i + elen > end)
			return (-1);
		if (type == 0 && elen >= 5 && p[i + 2] == 0) {
			nlen = (size_t)p[i + 3] << 8 | p[i + 4];
			if (nlen + 5 > elen || nlen >= outsz)
				return (-1);
			for (n = 0; n < nlen; n++) {
				out[n] = (char)p[i + 5 + n];
				if (p[i + 5 + n] <= 0x20 || p[i + 5 + n] >= 0x7f)
					out[n] = '?';	/* one log token */
			}
			out[nlen] = '\0';
			return (0);
		}
		i += elen;
	}
	return (-1);
}

/* hello_hook - before GnuTLS reads the ClientHello: pick the host by SNI,
 * and its credentials and protocol versions (the post-client-hello
 * function is too late to take TLS 1.3 away) */
static int
hello_hook(gnutls_session_t s, unsigned int htype, unsigned int when,
    unsigned int incoming, const gnutls_datum_t *msg)
{
	struct conn	*c = gnutls_session_get_ptr(s);
	size_t		 i;

	if (htype != GNUTLS_HANDSHAKE_CLIENT_HELLO || when != GNUTLS_HOOK_PRE ||
	    !incoming || c->sni[0] != '\0')
		return (0);
	if (sni_of(msg->data, msg->size, c->sni, sizeof(c->sni)) == -1)
		return (0);
	for (i = 0; i < nhosts; i++)
		if (strcasecmp(hosts[i].name, c->sni) == 0)
			break;
	if (i == nhosts)
		return (0);
	c->host = &hosts[i];
	if (gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE,
	    c->host->cred) < 0 || gnutls_priority_set(s, c->host->tls12 ?
	    prio_tls12 : prio_any) < 0)
		return (GNUTLS_E_INTERNAL_ERROR);
	return (0);
}

/* post_hello - after the ClientHello, before the ServerHello: the
 * hs-warning host sends a warning alert there (RFC 6066 §3 allows a
 * warning unrecognized_name; a client must go on) */
static int
post_hello(gnutls_session_t s)
{
	struct conn	*c = gnutls_session_get_ptr(s);

	if (c->host != NULL && c->host->b == B_HS_WARNING)
		(void)gnutls_alert_send(s, GNUTLS_AL_WARNING,
		    GNUTLS_A_UNRECOGNIZED_NAME);
	return (0);
}

/* tls_send - send len bytes as records; 0 or -1 */
static int
tls_send(struct conn *c, const char *p, size_t len)
{
	ssize_t	 k;

	while (len > 0) {
		k = gnutls_record_send(c->s, p, len);
		if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
			continue;
		if (k < 0)
			return (-1);
		p += k;
		len -= (size_t)k;
	}
	return (0);
}

/* read_head - the request head; 1 for GET of the policy, 0 other, -1 none */
static int
read_head(struct conn *c)
{
	char	 head[HEAD_MAX + 1];
	size_t	 n = 0;
	ssize_t	 k;

	while (n < HEAD_MAX) {
		k = gnutls_record_recv(c->s, head + n, HEAD_MAX - n);
		if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
			continue;
		if (k <= 0)
			return (-1);
		n += (size_t)k;
		head[n] = '\0';
		if (strstr(head, "\r\n\r\n") != NULL)
			return (strncmp(head, "GET " POLICY_PATH " ",
			    sizeof("GET " POLICY_PATH " ") - 1) == 0);
	}
	return (-1);
}

/* ms_since - milliseconds since t0 */
static long
ms_since(const struct timespec *t0)
{
	struct timespec	 t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ((t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/* flood - alerts or HelloRequests in batches for ms milliseconds, or until
 * the client leaves; the number sent */
static size_t
flood(struct conn *c, enum behaviour b, long ms)
{
	struct timespec	 t0;
	size_t		 n = 0;
	int		 rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	c->buffering = 1;
	while (!c->failed && ms_since(&t0) < ms) {
		if (b == B_ALERT_FLOOD)
			rc = gnutls_alert_send(c->s, GNUTLS_AL_WARNING,
			    GNUTLS_A_USER_CANCELED);
		else
			rc = gnutls_rehandshake(c->s);
		if (rc < 0)
			break;
		if (++n % 1024 == 0)
			flush(c);
	}
	flush(c);
	c->buffering = 0;
	return (n);
}

/* drain - read and drop raw bytes (no TLS: a renegotiation is never
 * answered) until the client leaves; the alarm bounds it */
static void
drain(int fd)
{
	char	 buf[4096];
	ssize_t	 k;

	do {
		k = recv(fd, buf, sizeof(buf), 0);
	} while (k > 0 || (k == -1 && (errno == EINTR || errno == EAGAIN)));
}

/* send_rest - a valid response from its status line (status_line 1) or
 * from its Content-Type on, then close_notify; 0 or -1 */
static int
send_rest(struct conn *c, int status_line)
{
	char	 head[256];

	snprintf(head, sizeof(head), "%sContent-Type: text/plain\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	    status_line ? "HTTP/1.1 200 OK\r\n" : "", c->host->bodylen);
	if (tls_send(c, head, strlen(head)) == -1 ||
	    tls_send(c, c->host->body, c->host->bodylen) == -1)
		return (-1);
	(void)gnutls_bye(c->s, GNUTLS_SHUT_WR);
	return (0);
}

/* serve - one connection: handshake, request, behaviour, log */
static void
serve(int fd)
{
	static struct conn c;
	struct timeval	 tv = { IO_TIMEOUT, 0 };
	char		 head[256];
	const char	*status = "-";
	size_t		 n = 0, sent;
	int		 rc, get;

	alarm(CONN_MAX);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	memset(&c, 0, sizeof(c));
	c.fd = fd;
	if (gnutls_init(&c.s, GNUTLS_SERVER) < 0)
		_exit(1);
	gnutls_session_set_ptr(c.s, &c);
	gnutls_priority_set(c.s, prio_any);
	gnutls_credentials_set(c.s, GNUTLS_CRD_CERTIFICATE, hosts[0].cred);
	gnutls_transport_set_ptr(c.s, &c);
	gnutls_transport_set_push_function(c.s, push);
	gnutls_transport_set_pull_function(c.s, pull);
	gnutls_handshake_set_hook_function(c.s, GNUTLS_HANDSHAKE_CLIENT_HELLO,
	    GNUTLS_HOOK_PRE, hello_hook);
	gnutls_handshake_set_post_client_hello_function(c.s, post_hello);
	do {
		rc = gnutls_handshake(c.s);
	} while (rc < 0 && !gnutls_error_is_fatal(rc));
	if (rc < 0) {
		log_conn(&c, "handshake-failed", 0);
		_exit(0);
	}
	if ((get = read_head(&c)) == -1) {
		log_conn(&c, "-", 0);
		_exit(0);
	}
	if (!get || c.host == NULL) {
		snprintf(head, sizeof(head), "HTTP/1.1 404 Not Found\r\n"
		    "Content-Length: 0\r\nConnection: close\r\n\r\n");
		(void)tls_send(&c, head, strlen(head));
		(void)gnutls_bye(c.s, GNUTLS_SHUT_WR);
		log_conn(&c, "404", 0);
		_exit(0);
	}
	status = "200";
	switch (c.host->b) {
	case B_ALERT_FLOOD:
		n = flood(&c, B_ALERT_FLOOD, FLOOD_MAX * 1000L);
		break;
	case B_HELLO_FLOOD:
		n = flood(&c, B_HELLO_FLOOD, HELLO_FLOOD_MS);
		drain(fd);
		break;
	case B_UNFRAMED_CUT:
	case B_UNFRAMED_BYE:
		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n"
		    "Content-Type: text/plain\r\nConnection: close\r\n\r\n");
		if (tls_send(&c, head, strlen(head)) == -1 ||
		    tls_send(&c, c.host->body, c.host->bodylen) == -1)
			break;
		n = c.host->bodylen;
		if (c.host->b == B_UNFRAMED_BYE)
			(void)gnutls_bye(c.s, GNUTLS_SHUT_WR);
		/* a FIN, then the client's close: never an RST */
		shutdown(fd, SHUT_WR);
		drain(fd);
		break;
	case B_HEADER_FLOOD:
		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n"
		    "Content-Type: text/plain\r\n");
		if (tls_send(&c, head, strlen(head)) == -1)
			break;
		for (sent = 0; sent < HEADER_FLOOD; sent += sizeof(PAD_LINE) - 1)
			if (tls_send(&c, PAD_LINE, sizeof(PAD_LINE) - 1) == -1)
				break;
		n = sent;
		if (sent == HEADER_FLOOD)
			(void)send_rest(&c, 0);
		break;
	case B_NORMAL:
	case B_HS_WARNING:
		if (send_rest(&c, 1) == 0)
			n = c.host->bodylen;
		break;
	}
	log_conn(&c, status, n);
	_exit(0);
}

/* on_term - SIGTERM: stop accepting */
static void
on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* reap - collect ended connections; the number still live */
static size_t
reap(pid_t *live, size_t nlive)
{
	size_t	 i;

	for (i = 0; i < nlive;) {
		if (waitpid(live[i], NULL, WNOHANG) == live[i])
			live[i] = live[--nlive];
		else
			i++;
	}
	return (nlive);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	struct sigaction sa;
	struct pollfd	 pfd;
	pid_t		 live[MAX_LIVE], pid;
	size_t		 nlive = 0, i;
	long		 maxconn = DEFAULT_MAXCONN, served;
	char		 tmp[4096];
	FILE		*fp;
	int		 ls, fd, one = 1;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: hostile-tls CONF ADDR PORT PIDFILE "
		    "LOGFILE [MAXCONN]\n");
		return (2);
	}
	if (argc == 7 && ((maxconn = atol(argv[6])) < 1 ||
	    maxconn > DEFAULT_MAXCONN))
		die(argv[6], "MAXCONN must be 1..100000");
	if (gnutls_global_init() < 0 ||
	    gnutls_priority_init(&prio_any, PRIO_ANY, NULL) < 0 ||
	    gnutls_priority_init(&prio_tls12, PRIO_TLS12, NULL) < 0)
		die("gnutls", "cannot initialize");
	load_conf(argv[1]);
	if ((logfd = open(argv[5], O_WRONLY | O_CREAT | O_APPEND, 0644)) == -1)
		die(argv[5], strerror(errno));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
		die(argv[2], "not an IPv4 address");
	if ((ls = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(ls, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(ls, 128) == -1)
		die(argv[2], strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;	/* no SA_RESTART: poll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[4]);
	if ((fp = fopen(tmp, "w")) == NULL)
		die(tmp, strerror(errno));
	fprintf(fp, "%ld\n", (long)getpid());
	if (fclose(fp) != 0 || rename(tmp, argv[4]) == -1)
		die(argv[4], strerror(errno));
	pfd.fd = ls;
	pfd.events = POLLIN;
	for (served = 0; served < maxconn && !stopping;) {
		nlive = reap(live, nlive);
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		if ((fd = accept(ls, NULL, NULL)) == -1)
			continue;
		served++;
		if (nlive == MAX_LIVE ||
		    (nlive = reap(live, nlive)) == MAX_LIVE) {
			close(fd);
			continue;
		}
		if ((pid = fork()) == 0) {
			close(ls);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			serve(fd);
		}
		close(fd);
		if (pid > 0)
			live[nlive++] = pid;
	}
	close(ls);
	/* ended by SIGTERM or MAXCONN: connections end now or by their alarm */
	for (i = 0; i < nlive; i++)
		if (stopping)
			kill(live[i], SIGTERM);
	for (i = 0; i < nlive; i++)
		waitpid(live[i], NULL, 0);
	return (0);
}
