/*
 * bench_addr.c - parse "unix:/path" and "inet:host:port" socketmap addresses
 *
 * The syntax is Postfix's (socketmap_table(5)): the first ':' ends the
 * transport, the last ':' starts the port, and an IPv6 literal host may be
 * bracketed.  Limits: a unix path must fit sun_path with its NUL; a host
 * name is at most BENCH_ADDR_HOSTMAX bytes; a port is 1..5 digits.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdlib.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_addr.h"
#include "lib/buf.h"
#include "lib/log.h"

#define BENCH_ADDR_HOSTMAX	255
#define BENCH_ADDR_PORTMAX	5

/* bench_addr_parse_unix - "unix:" already stripped */
static int
bench_addr_parse_unix(const char *path, struct bench_addr *a, char *err,
    size_t errsz)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&a->ss;
	size_t		 len = strlen(path);

	if (len == 0 || len >= sizeof(sun->sun_path)) {
		snprintf(err, errsz, "unix socket path empty or longer than "
		    "%zu bytes", sizeof(sun->sun_path) - 1);
		return (-1);
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, len + 1);
	memcpy(a->path, path, len + 1);
	a->family = AF_UNIX;
	a->sslen = sizeof(*sun);
	return (0);
}

/* bench_addr_parse_inet - "inet:" already stripped: host:port */
static int
bench_addr_parse_inet(const char *hp, struct bench_addr *a, char *err,
    size_t errsz)
{
	struct addrinfo	 hints, *res;
	char		 host[BENCH_ADDR_HOSTMAX + 1];
	char		 port[BENCH_ADDR_PORTMAX + 1];
	const char	*colon, *h = hp;
	size_t		 hlen, plen, i;
	int		 error;

	if ((colon = strrchr(hp, ':')) == NULL) {
		snprintf(err, errsz, "inet address needs host:port");
		return (-1);
	}
	hlen = (size_t)(colon - hp);
	plen = strlen(colon + 1);
	if (hlen >= 2 && hp[0] == '[' && hp[hlen - 1] == ']') {
		h = hp + 1;
		hlen -= 2;
	}
	if (hlen == 0 || hlen > BENCH_ADDR_HOSTMAX) {
		snprintf(err, errsz, "inet host empty or too long");
		return (-1);
	}
	if (plen == 0 || plen > BENCH_ADDR_PORTMAX) {
		snprintf(err, errsz, "inet port must be 1 to %d digits",
		    BENCH_ADDR_PORTMAX);
		return (-1);
	}
	for (i = 0; i < plen; i++)
		if (colon[1 + i] < '0' || colon[1 + i] > '9') {
			snprintf(err, errsz, "inet port must be digits");
			return (-1);
		}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memcpy(port, colon + 1, plen + 1);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((error = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(err, errsz, "%s: %s", host, gai_strerror(error));
		return (-1);
	}
	if (res->ai_addrlen > sizeof(a->ss)) {
		freeaddrinfo(res);
		snprintf(err, errsz, "%s: address too long", host);
		return (-1);
	}
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->sslen = res->ai_addrlen;
	a->family = res->ai_family;
	freeaddrinfo(res);
	return (0);
}

int
bench_addr_parse(const char *spec, struct bench_addr *a, char *err,
    size_t errsz)
{
	memset(a, 0, sizeof(*a));
	if (strncmp(spec, "unix:", 5) == 0)
		return (bench_addr_parse_unix(spec + 5, a, err, errsz));
	if (strncmp(spec, "inet:", 5) == 0)
		return (bench_addr_parse_inet(spec + 5, a, err, errsz));
	snprintf(err, errsz, "address must be unix:/path or inet:host:port");
	return (-1);
}

int
bench_addr_connect(const struct bench_addr *a)
{
	int	 fd;

	if ((fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	if (connect(fd, (const struct sockaddr *)&a->ss, a->sslen) == -1) {
		int	 saved = errno;

		close(fd);
		errno = saved;
		return (-1);
	}
	return (fd);
}

unsigned long long
bench_number(const char *s, unsigned long long min, unsigned long long max,
    const char *what)
{
	unsigned long long v;
	char		*end;

	if (*s < '0' || *s > '9')
		fatalx("%s: not a number: %s", what, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		fatalx("%s must be a number from %llu to %llu", what, min, max);
	return (v);
}

int
bench_send(int fd, struct buf *out)
{
	ssize_t		 n;

	while (out->len > 0) {
		n = send(fd, out->data, out->len, MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return (0);
			return (-1);
		}
		buf_consume(out, (size_t)n);
	}
	return (0);
}
