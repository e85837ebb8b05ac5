/*
 * query_sm.c - a one-shot socketmap client for postsmtpsts-query (see
 * query_sm.h)
 *
 * Blocking, one connection, one request; the address is parsed here
 * (unix:/path, inet:HOST:PORT, inet:[v6]:PORT, as postsmtpsts.conf(5)'s
 * listen and Postfix's socketmap: tables write it) and resolved with
 * getaddrinfo (numeric or /etc/hosts names).  Every step has the same
 * deadline.  Limits: the request SOCKMAP_MAX_QUERY, the reply
 * SOCKMAP_MAX_REPLY bytes plus its netstring framing.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "lib/xmalloc.h"
#include "tools/query_sm.h"
#include "tools/tool.h"

#define QUERY_SM_HOST_MAX	256
#define QUERY_SM_REPLY_BUF	(SOCKMAP_MAX_REPLY + NETSTRING_MAX_DIGITS + 2)
#define QUERY_SM_ESC_MAX	(LOG_ESCAPE_MAX * 4 + 4)

/* query_sm_ready - tool_wait as 0, or -1 with errno (ETIMEDOUT) */
static int
query_sm_ready(int fd, short events, long long deadline)
{
	switch (tool_wait(fd, events, deadline)) {
	case 1:
		return (0);
	case 0:
		errno = ETIMEDOUT;
		return (-1);
	default:
		return (-1);
	}
}

/* query_sm_connect - a connected non-blocking socket, or -1 with why */
static int
query_sm_connect(const char *address, long long deadline, const char **why)
{
	struct sockaddr_un sun;
	struct addrinfo	 hints, *res = NULL, *ai;
	char		 host[QUERY_SM_HOST_MAX];
	const char	*h, *port, *end;
	socklen_t	 elen;
	size_t		 hlen;
	int		 fd = -1, err = 0, rc;

	*why = "address must be unix:/path or inet:host:port";
	if (strncmp(address, "unix:", 5) == 0) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		if (address[5] == '\0' ||
		    strlen(address + 5) >= sizeof(sun.sun_path))
			return (-1);
		memcpy(sun.sun_path, address + 5, strlen(address + 5) + 1);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
		    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
			*why = strerror(errno);
			if (fd != -1)
				close(fd);
			return (-1);
		}
		return (fd);
	}
	if (strncmp(address, "inet:", 5) != 0)
		return (-1);
	h = address + 5;
	if (*h == '[') {
		if ((end = strchr(h, ']')) == NULL || end[1] != ':')
			return (-1);
		h++;
		hlen = (size_t)(end - h);
		port = end + 2;
	} else {
		if ((end = strrchr(h, ':')) == NULL)
			return (-1);
		hlen = (size_t)(end - h);
		port = end + 1;
	}
	if (hlen == 0 || hlen >= sizeof(host) || *port == '\0')
		return (-1);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		*why = gai_strerror(rc);
		return (-1);
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK,
		    ai->ai_protocol);
		if (fd == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		err = errno;
		if (err == EINPROGRESS && tool_wait(fd, POLLOUT,
		    deadline) == 1) {
			elen = sizeof(err);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
			    &elen) == 0 && err == 0)
				break;
		} else if (err == EINPROGRESS)
			err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		*why = strerror(err != 0 ? err : ECONNREFUSED);
	return (fd);
}

/* query_sm_exchange - send the request, read one netstring reply into
 * rbuf (QUERY_SM_REPLY_BUF bytes); 0, or -1 with why */
static int
query_sm_exchange(int fd, const struct buf *req, char *rbuf,
    long long deadline, const char **payload, size_t *plen, const char **why)
{
	enum netstring_status st;
	size_t	 off = 0, used, rlen = 0;
	ssize_t	 n;

	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (off < req->len) {
		if (query_sm_ready(fd, POLLOUT, deadline) == -1)
			goto fail;
		n = send(fd, req->data + off, req->len - off, MSG_NOSIGNAL);
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			goto fail;
		if (n > 0)
			off += (size_t)n;
	}
	for (;;) {
		if (query_sm_ready(fd, POLLIN, deadline) == -1)
			goto fail;
		if (rlen == QUERY_SM_REPLY_BUF) {
			*why = "reply too long";
			return (-1);
		}
		n = recv(fd, rbuf + rlen, QUERY_SM_REPLY_BUF - rlen, 0);
		if (n == 0) {
			*why = "connection closed before a whole reply";
			return (-1);
		}
		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			goto fail;
		}
		rlen += (size_t)n;
		st = netstring_decode(rbuf, rlen, SOCKMAP_MAX_REPLY,
		    payload, plen, &used);
		if (st == NETSTRING_OK)
			return (0);
		if (st != NETSTRING_INCOMPLETE) {
			*why = netstring_strerror(st);
			return (-1);
		}
	}
fail:
	*why = strerror(errno);
	return (-1);
}

int
query_sm_run(const char *address, const char *key, const char *map,
    int timeout_ms)
{
	struct buf	 req;
	char		 esc[QUERY_SM_ESC_MAX], *rbuf;
	const char	*why = NULL, *payload = NULL;
	long long	 deadline = tool_now_ms() + timeout_ms;
	size_t		 plen = 0, klen = strlen(key), mlen = strlen(map);
	int		 fd, rc = 2;

	if (mlen == 0 || mlen > SOCKMAP_MAX_NAME || memchr(map, ' ', mlen) ||
	    klen == 0 || mlen + 1 + klen > SOCKMAP_MAX_QUERY) {
		fprintf(stderr, "postsmtpsts-query: --socketmap: bad map name "
		    "or key\n");
		return (2);
	}
	if ((fd = query_sm_connect(address, deadline, &why)) == -1) {
		fprintf(stderr, "postsmtpsts-query: %s: %s\n", log_escape(esc,
		    sizeof(esc), address, strlen(address)), why);
		return (2);
	}
	buf_init(&req, SOCKMAP_MAX_QUERY + NETSTRING_MAX_DIGITS + 2);
	rbuf = xmalloc(QUERY_SM_REPLY_BUF);
	if (netstring_encode_begin(&req, mlen + 1 + klen) == -1 ||
	    buf_append(&req, map, mlen) == -1 ||
	    buf_append_char(&req, ' ') == -1 ||
	    buf_append(&req, key, klen) == -1 ||
	    netstring_encode_end(&req) == -1) {
		fprintf(stderr, "postsmtpsts-query: request too long\n");
		goto out;
	}
	if (query_sm_exchange(fd, &req, rbuf, deadline, &payload, &plen,
	    &why) == -1) {
		fprintf(stderr, "postsmtpsts-query: %s: %s\n", log_escape(esc,
		    sizeof(esc), address, strlen(address)), why);
		goto out;
	}
	printf("reply: %s\n", log_escape(esc, sizeof(esc), payload, plen));
	if (plen >= 3 && memcmp(payload, "OK ", 3) == 0)
		rc = 0;
	else if (plen >= 8 && memcmp(payload, "NOTFOUND", 8) == 0)
		rc = 1;
out:
	close(fd);
	buf_free(&req);
	free(rbuf);
	return (rc);
}
