/*
 * check_probe.c - SMTP, STARTTLS and GnuTLS for one MX host
 * (postsmtpsts-check); interface and steps: check_probe.h
 *
 * The SMTP dialogue (RFC 5321 §3.1-3.2, §4.1.1.1, RFC 3207 §4-5): read the
 * 220 greeting, "EHLO name", read the 250 reply, "STARTTLS", read 220,
 * then the TLS handshake on the same socket, then "QUIT" inside TLS.
 * Replies are parsed by check_parse_reply() from a bounded buffer of
 * CHECK_PARSE_REPLY_MAX bytes.  Bytes after the 220 to STARTTLS are an
 * error (the plaintext injection of CVE-2011-0411: RFC 3207 §5 has the
 * client discard them; a checker reports them).
 *
 * Sockets are non-blocking; every wait is a poll() bounded by the current
 * step's deadline (CLOCK_MONOTONIC), so no server can hold the checker
 * longer than timeout_ms per step.  GnuTLS runs non-blocking too and
 * waits the same way (gnutls_record_get_direction).
 *
 * Verification happens after the handshake, never inside it, so that a
 * bad certificate is reported rather than aborting the connection:
 * gnutls_certificate_verify_peers2 (PKIX against the credentials' trust
 * list, no name), gnutls_x509_crt_check_hostname2 (names), and for DANE
 * dane_verify_crt_raw once per usable TLSA record: a host passes when any
 * one record matches (RFC 7672 §2.2; libgnutls-dane's own multi-record
 * check wants every record to match).
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/dane.h>

#include "lib/domain.h"
#include "tools/check_parse.h"
#include "tools/check_probe.h"
#include "tools/tool.h"
#include "lib/xmalloc.h"

#define CHECK_PROBE_QUIT_MS	2000	/* at most, for the QUIT reply */
#define CHECK_PROBE_CMD_MAX	(DOMAIN_MAX_LEN + 16)

struct check_probe_tls {
	gnutls_certificate_credentials_t cred;
	dane_state_t	 dane;
};

/* one connection: the socket, the TLS session once there is one, and the
 * bytes received but not yet parsed */
struct check_probe_conn {
	int		 fd;
	gnutls_session_t session;	/* NULL before STARTTLS */
	char		 in[CHECK_PARSE_REPLY_MAX];
	size_t		 inlen;
};

struct check_probe_tls *
check_probe_tls_new(const char *ca_file, char *err, size_t errsz)
{
	struct check_probe_tls *t;
	int	 ret;

	t = xcalloc(1, sizeof(*t));
	if ((ret = gnutls_certificate_allocate_credentials(&t->cred)) < 0) {
		snprintf(err, errsz, "gnutls: %s", gnutls_strerror(ret));
		free(t);
		return (NULL);
	}
	if (ca_file != NULL)
		ret = gnutls_certificate_set_x509_trust_file(t->cred, ca_file,
		    GNUTLS_X509_FMT_PEM);
	else
		ret = gnutls_certificate_set_x509_system_trust(t->cred);
	if (ret <= 0) {
		snprintf(err, errsz, "%s: no trust anchors loaded%s%s",
		    ca_file != NULL ? ca_file : "system trust store",
		    ret < 0 ? ": " : "", ret < 0 ? gnutls_strerror(ret) : "");
		check_probe_tls_free(t);
		return (NULL);
	}
	/* TLSA data comes from our own DNSSEC lookups: libgnutls-dane
	 * needs neither its resolver nor a root key */
	if ((ret = dane_state_init(&t->dane, DANE_F_IGNORE_LOCAL_RESOLVER |
	    DANE_F_IGNORE_DNSSEC)) < 0) {
		snprintf(err, errsz, "gnutls-dane: %s", dane_strerror(ret));
		t->dane = NULL;
		check_probe_tls_free(t);
		return (NULL);
	}
	return (t);
}

void
check_probe_tls_free(struct check_probe_tls *t)
{
	if (t == NULL)
		return;
	if (t->dane != NULL)
		dane_state_deinit(t->dane);
	if (t->cred != NULL)
		gnutls_certificate_free_credentials(t->cred);
	free(t);
}

/* check_probe_connect - a TCP connection to addr:port within timeout_ms;
 * the socket, or -1 with the reason in err */
static int
check_probe_connect(const char *addr, int port, int timeout_ms, char *err,
    size_t errsz)
{
	struct addrinfo hints, *ai = NULL;
	char	 portstr[8];
	int	 fd, ret, soerr = 0;
	socklen_t sl = sizeof(soerr);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%d", port);
	if ((ret = getaddrinfo(addr, portstr, &hints, &ai)) != 0) {
		snprintf(err, errsz, "connect %s: %s", addr,
		    gai_strerror(ret));
		return (-1);
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		freeaddrinfo(ai);
		return (-1);
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1 &&
	    errno != EINPROGRESS) {
		snprintf(err, errsz, "connect %s port %d: %s", addr, port,
		    strerror(errno));
		goto fail;
	}
	ret = tool_wait(fd, POLLOUT, tool_now_ms() + timeout_ms);
	if (ret == 0) {
		snprintf(err, errsz, "connect %s port %d: timed out after "
		    "%d ms", addr, port, timeout_ms);
		goto fail;
	}
	if (ret < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == -1)
		soerr = errno;
	if (soerr != 0) {
		snprintf(err, errsz, "connect %s port %d: %s", addr, port,
		    strerror(soerr));
		goto fail;
	}
	freeaddrinfo(ai);
	return (fd);
fail:
	close(fd);
	freeaddrinfo(ai);
	return (-1);
}

/* check_probe_write - send all of p[0..len) before deadline; 0 or -1 */
static int
check_probe_write(struct check_probe_conn *c, const char *p, size_t len,
    long long deadline)
{
	ssize_t	 n;

	while (len > 0) {
		if (c->session != NULL) {
			n = gnutls_record_send(c->session, p, len);
			if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
				n = -2;
			else if (n < 0)
				return (-1);
		} else {
			n = send(c->fd, p, len, MSG_NOSIGNAL);
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				n = -2;
			else if (n == -1)
				return (-1);
		}
		if (n == -2) {
			if (tool_wait(c->fd, POLLOUT, deadline) <= 0)
				return (-1);
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

/*
 * check_probe_reply - read one SMTP reply before deadline into *r (its
 * bytes stay at the start of c->in until check_probe_consume).  Returns
 * 0, or -1 with the reason in err.
 */
static int
check_probe_reply(struct check_probe_conn *c, struct check_parse_reply *r,
    long long deadline, const char *what, char *err, size_t errsz)
{
	enum check_parse_status st;
	ssize_t	 n;
	int	 w;

	for (;;) {
		st = check_parse_reply(c->in, c->inlen, r);
		if (st == CHECK_PARSE_COMPLETE)
			return (0);
		if (st == CHECK_PARSE_BAD) {
			snprintf(err, errsz, "%s: %s", what, r->why);
			return (-1);
		}
		if (c->inlen == sizeof(c->in)) {
			snprintf(err, errsz, "%s: reply too long", what);
			return (-1);
		}
		if (c->session != NULL) {
			n = gnutls_record_recv(c->session, c->in + c->inlen,
			    sizeof(c->in) - c->inlen);
			if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
				n = -2;
			else if (n < 0) {
				snprintf(err, errsz, "%s: %s", what,
				    gnutls_strerror((int)n));
				return (-1);
			}
		} else {
			n = recv(c->fd, c->in + c->inlen,
			    sizeof(c->in) - c->inlen, 0);
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				n = -2;
			else if (n == -1) {
				snprintf(err, errsz, "%s: %s", what,
				    strerror(errno));
				return (-1);
			}
		}
		if (n == 0) {
			snprintf(err, errsz, "%s: connection closed by the "
			    "server", what);
			return (-1);
		}
		if (n == -2) {
			w = tool_wait(c->fd, POLLIN, deadline);
			if (w == 0) {
				snprintf(err, errsz, "%s: no reply within the "
				    "timeout", what);
				return (-1);
			}
			if (w < 0) {
				snprintf(err, errsz, "%s: %s", what,
				    strerror(errno));
				return (-1);
			}
			continue;
		}
		c->inlen += (size_t)n;
	}
}

/* check_probe_consume - drop the parsed reply r from c->in */
static void
check_probe_consume(struct check_probe_conn *c,
    const struct check_parse_reply *r)
{
	memmove(c->in, c->in + r->used, c->inlen - r->used);
	c->inlen -= r->used;
}

/* check_probe_command - send line (CRLF added) and read the reply */
static int
check_probe_command(struct check_probe_conn *c, const char *line,
    struct check_parse_reply *r, int timeout_ms, char *err, size_t errsz)
{
	char	 buf[CHECK_PROBE_CMD_MAX];
	int	 n;

	n = snprintf(buf, sizeof(buf), "%s\r\n", line);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		snprintf(err, errsz, "command too long");
		return (-1);
	}
	if (check_probe_write(c, buf, (size_t)n, tool_now_ms() +
	    timeout_ms) == -1) {
		snprintf(err, errsz, "%s: cannot send", line);
		return (-1);
	}
	return (check_probe_reply(c, r, tool_now_ms() + timeout_ms,
	    line, err, errsz));
}

/* check_probe_copy - copy p[0..len) into a text buffer, truncating */
static void
check_probe_copy(char *out, size_t outsz, const void *p, size_t len)
{
	if (len >= outsz)
		len = outsz - 1;
	memcpy(out, p, len);
	out[len] = '\0';
}

/* check_probe_trim - drop trailing blanks (GnuTLS status texts end so) */
static void
check_probe_trim(char *s)
{
	size_t	 len = strlen(s);

	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\n'))
		s[--len] = '\0';
}

/* check_probe_days - whole days from now to t, rounded towards -inf */
static long
check_probe_days(time_t t, time_t now)
{
	long long d = (long long)t - (long long)now;

	if (d >= 0)
		return ((long)(d / 86400));
	return ((long)-((-d + 86399) / 86400));
}

/* check_probe_handshake - the TLS handshake with SNI host, non-blocking,
 * before deadline; 0 or -1 with err */
static int
check_probe_handshake(struct check_probe_tls *t, struct check_probe_conn *c,
    const char *host, int timeout_ms, char *err, size_t errsz)
{
	long long deadline = tool_now_ms() + timeout_ms;
	int	 ret, w;

	/* GNUTLS_NO_SIGNAL: send with MSG_NOSIGNAL, no SIGPIPE */
	if ((ret = gnutls_init(&c->session, GNUTLS_CLIENT |
	    GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL)) < 0) {
		c->session = NULL;
		snprintf(err, errsz, "gnutls_init: %s", gnutls_strerror(ret));
		return (-1);
	}
	if ((ret = gnutls_set_default_priority(c->session)) < 0 ||
	    (ret = gnutls_credentials_set(c->session,
	    GNUTLS_CRD_CERTIFICATE, t->cred)) < 0 ||
	    (ret = gnutls_server_name_set(c->session, GNUTLS_NAME_DNS, host,
	    strlen(host))) < 0) {
		snprintf(err, errsz, "TLS set-up: %s", gnutls_strerror(ret));
		return (-1);
	}
	gnutls_transport_set_int(c->session, c->fd);
	for (;;) {
		ret = gnutls_handshake(c->session);
		if (ret == 0)
			return (0);
		if (ret != GNUTLS_E_AGAIN && ret != GNUTLS_E_INTERRUPTED &&
		    gnutls_error_is_fatal(ret)) {
			snprintf(err, errsz, "TLS handshake: %s",
			    gnutls_strerror(ret));
			return (-1);
		}
		w = tool_wait(c->fd,
		    gnutls_record_get_direction(c->session) ? POLLOUT : POLLIN,
		    deadline);
		if (w <= 0) {
			snprintf(err, errsz, "TLS handshake: %s", w == 0 ?
			    "timed out" : strerror(errno));
			return (-1);
		}
	}
}

/* check_probe_chain - record the peer chain, PKIX, name and expiry */
static void
check_probe_chain(struct check_probe_conn *c, const struct check_probe_opts *o,
    struct check_probe_result *res, const gnutls_datum_t *peers,
    unsigned npeers)
{
	gnutls_x509_crt_t crt;
	gnutls_datum_t	 d;
	unsigned	 i, status = 0;
	int		 ret;

	for (i = 0; i < npeers && i < CHECK_PROBE_MAX_CHAIN; i++) {
		struct check_probe_cert *pc = &res->chain[i];

		if (gnutls_x509_crt_init(&crt) < 0)
			break;
		if (gnutls_x509_crt_import(crt, &peers[i],
		    GNUTLS_X509_FMT_DER) < 0) {
			check_probe_copy(pc->subject, sizeof(pc->subject),
			    "(unparsable certificate)", 24);
			gnutls_x509_crt_deinit(crt);
			res->nchain = i + 1;
			continue;
		}
		if (gnutls_x509_crt_get_dn3(crt, &d, 0) >= 0) {
			check_probe_copy(pc->subject, sizeof(pc->subject),
			    d.data, d.size);
			gnutls_free(d.data);
		}
		if (gnutls_x509_crt_get_issuer_dn3(crt, &d, 0) >= 0) {
			check_probe_copy(pc->issuer, sizeof(pc->issuer),
			    d.data, d.size);
			gnutls_free(d.data);
		}
		pc->not_before = gnutls_x509_crt_get_activation_time(crt);
		pc->not_after = gnutls_x509_crt_get_expiration_time(crt);
		if (i == 0) {
			res->name_ok = gnutls_x509_crt_check_hostname2(crt,
			    o->host, 0) != 0;
			res->expiry_days = check_probe_days(pc->not_after,
			    o->now);
		}
		gnutls_x509_crt_deinit(crt);
		res->nchain = i + 1;
	}

	ret = gnutls_certificate_verify_peers2(c->session, &status);
	if (ret < 0) {
		snprintf(res->pkix_status, sizeof(res->pkix_status),
		    "verification error: %s", gnutls_strerror(ret));
		return;
	}
	res->pkix_ok = status == 0;
	if (res->pkix_ok)
		snprintf(res->pkix_status, sizeof(res->pkix_status),
		    "valid");
	else if (gnutls_certificate_verification_status_print(status,
	    GNUTLS_CRT_X509, &d, 0) >= 0) {
		check_probe_copy(res->pkix_status, sizeof(res->pkix_status),
		    d.data, d.size);
		check_probe_trim(res->pkix_status);
		gnutls_free(d.data);
	} else
		snprintf(res->pkix_status, sizeof(res->pkix_status),
		    "invalid (status 0x%x)", status);
}

/* check_probe_dane - match the chain against each usable TLSA record */
static void
check_probe_dane(struct check_probe_tls *t, const struct check_probe_opts *o,
    struct check_probe_result *res, const gnutls_datum_t *peers,
    unsigned npeers)
{
	dane_query_t	 q;
	gnutls_datum_t	 d;
	char		*data[2];
	int		 len[2], ret, ee = 0, ta = 0;
	unsigned	 verify, last = 0;
	size_t		 i, n;

	res->dane_checked = 1;
	n = o->ntlsa < CHECK_PROBE_MAX_TLSA ? o->ntlsa : CHECK_PROBE_MAX_TLSA;
	for (i = 0; i < n; i++) {
		data[0] = (char *)o->tlsa[i];	/* not modified */
		data[1] = NULL;
		len[0] = (int)o->tlsa_len[i];
		len[1] = 0;
		if (dane_raw_tlsa(t->dane, &q, data, len, 1, 0) < 0)
			continue;
		verify = 0;
		ret = dane_verify_crt_raw(t->dane, peers, npeers,
		    GNUTLS_CRT_X509, q, 0, DANE_VFLAG_FAIL_IF_NOT_CHECKED,
		    &verify);
		dane_query_deinit(q);
		if (ret == 0 && verify == 0) {
			if (o->tlsa[i][0] == 3)
				ee = 1;
			else
				ta = 1;
		} else if (ret == 0)
			last = verify;
	}
	res->dane_ok = ee || ta;
	res->dane_ee_only = ee && !ta;
	if (res->dane_ok)
		snprintf(res->dane_status, sizeof(res->dane_status),
		    "matched by %s%s%s", ee ? "DANE-EE(3)" : "",
		    ee && ta ? " and " : "", ta ? "DANE-TA(2)" : "");
	else if (last != 0 && dane_verification_status_print(last, &d,
	    0) >= 0) {
		check_probe_copy(res->dane_status, sizeof(res->dane_status),
		    d.data, d.size);
		check_probe_trim(res->dane_status);
		gnutls_free(d.data);
	} else
		snprintf(res->dane_status, sizeof(res->dane_status),
		    "no usable TLSA record matches the certificate chain");
}

/* check_probe_tls_info - protocol, cipher suite, chain and checks */
static void
check_probe_tls_info(struct check_probe_tls *t, struct check_probe_conn *c,
    const struct check_probe_opts *o, struct check_probe_result *res)
{
	const gnutls_datum_t *peers;
	const char	*s;
	unsigned	 npeers = 0;

	s = gnutls_protocol_get_name(gnutls_protocol_get_version(c->session));
	snprintf(res->tls_version, sizeof(res->tls_version), "%s",
	    s != NULL ? s : "unknown");
	s = gnutls_ciphersuite_get(c->session);
	snprintf(res->cipher, sizeof(res->cipher), "%s",
	    s != NULL ? s : "unknown");
	peers = gnutls_certificate_get_peers(c->session, &npeers);
	if (peers == NULL || npeers == 0) {
		snprintf(res->pkix_status, sizeof(res->pkix_status),
		    "no certificate");
		return;
	}
	check_probe_chain(c, o, res, peers, npeers);
	if (o->ntlsa > 0)
		check_probe_dane(t, o, res, peers, npeers);
}

/* check_probe_quit - say QUIT and wait briefly for 221; errors ignored */
static void
check_probe_quit(struct check_probe_conn *c, int timeout_ms)
{
	struct check_parse_reply r;
	char	 err[64];

	if (timeout_ms > CHECK_PROBE_QUIT_MS)
		timeout_ms = CHECK_PROBE_QUIT_MS;
	c->inlen = 0;
	(void)check_probe_command(c, "QUIT", &r, timeout_ms, err,
	    sizeof(err));
	if (c->session != NULL)
		(void)gnutls_bye(c->session, GNUTLS_SHUT_WR);
}

int
check_probe_run(struct check_probe_tls *t, const struct check_probe_opts *o,
    struct check_probe_result *res)
{
	struct check_probe_conn *c;
	struct check_parse_reply r;
	char	 cmd[CHECK_PROBE_CMD_MAX];
	long long started = tool_now_ms();
	size_t	 i;
	int	 rc = -1;

	memset(res, 0, sizeof(*res));
	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	if (o->naddrs == 0)
		snprintf(res->error, sizeof(res->error), "no address");
	for (i = 0; i < o->naddrs && c->fd == -1; i++) {
		snprintf(res->addr, sizeof(res->addr), "%s", o->addrs[i]);
		c->fd = check_probe_connect(o->addrs[i], o->port,
		    o->timeout_ms, res->error, sizeof(res->error));
	}
	if (c->fd == -1)
		goto out;
	res->connected = 1;
	res->error[0] = '\0';

	/* RFC 5321 §3.1: the greeting, then EHLO */
	if (check_probe_reply(c, &r, tool_now_ms() + o->timeout_ms,
	    "greeting", res->error, sizeof(res->error)) == -1)
		goto out;
	check_probe_copy(res->greeting, sizeof(res->greeting),
	    c->in + r.first_off, r.first_len);
	if (r.code != 220) {
		snprintf(res->error, sizeof(res->error), "greeting: code %d, "
		    "not 220", r.code);
		goto quit;
	}
	check_probe_consume(c, &r);
	snprintf(cmd, sizeof(cmd), "EHLO %s", o->helo);
	if (check_probe_command(c, cmd, &r, o->timeout_ms, res->error,
	    sizeof(res->error)) == -1)
		goto out;
	if (r.code != 250) {
		snprintf(res->error, sizeof(res->error), "EHLO: code %d, not "
		    "250", r.code);
		goto quit;
	}
	res->smtp_ok = 1;
	res->starttls = r.starttls;
	check_probe_consume(c, &r);
	if (!res->starttls) {
		snprintf(res->error, sizeof(res->error), "STARTTLS not "
		    "offered in the EHLO reply");
		goto quit;
	}

	/* RFC 3207 §4: STARTTLS, 220, handshake */
	if (check_probe_command(c, "STARTTLS", &r, o->timeout_ms, res->error,
	    sizeof(res->error)) == -1)
		goto out;
	if (r.code != 220) {
		snprintf(res->error, sizeof(res->error), "STARTTLS: code %d, "
		    "not 220", r.code);
		goto quit;
	}
	if (r.used != c->inlen) {
		snprintf(res->error, sizeof(res->error), "STARTTLS: the "
		    "server sent data after its 220 (plaintext injection)");
		goto out;
	}
	c->inlen = 0;
	if (check_probe_handshake(t, c, o->host, o->timeout_ms, res->error,
	    sizeof(res->error)) == -1)
		goto out;
	res->tls = 1;
	rc = 0;
	check_probe_tls_info(t, c, o, res);
quit:
	check_probe_quit(c, o->timeout_ms);
out:
	if (c->session != NULL)
		gnutls_deinit(c->session);
	if (c->fd != -1)
		close(c->fd);
	free(c);
	res->elapsed_ms = (long)(tool_now_ms() - started);
	return (rc);
}
