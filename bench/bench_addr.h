/*
 * bench_addr.h - socketmap addresses for the benchmark tools
 *
 * The tools name their endpoint the way Postfix names a socketmap table's:
 * "unix:/path/to/socket" or "inet:host:port" ("inet:[v6addr]:port" for a
 * literal IPv6 address).  The host is resolved once, with getaddrinfo(3);
 * the first address is used.
 */
#ifndef BENCH_ADDR_H
#define BENCH_ADDR_H

#include <sys/socket.h>
#include <sys/un.h>

#include <stddef.h>

#define BENCH_ADDR_ERRSZ	256

struct bench_addr {
	struct sockaddr_storage ss;
	socklen_t	 sslen;
	int		 family;	/* AF_UNIX, AF_INET or AF_INET6 */
	char		 path[sizeof(((struct sockaddr_un *)0)->sun_path)];
					/* unix: the socket path, else "" */
};

/*
 * bench_addr_parse - fill a from spec ("unix:..." or "inet:host:port")
 *
 * Returns 0, or -1 with a NUL-terminated reason in err (size errsz).
 */
int	bench_addr_parse(const char *spec, struct bench_addr *a, char *err,
	    size_t errsz);

/*
 * bench_addr_connect - a new blocking stream socket connected to a
 *
 * Returns the descriptor (close-on-exec), or -1 with errno set.
 */
int	bench_addr_connect(const struct bench_addr *a);

struct buf;

/*
 * bench_send - send out's bytes until it is empty or the socket is full
 * (consumed from out); 0, or -1 with errno set on a real error.
 */
int	bench_send(int fd, struct buf *out);

/*
 * bench_number - a decimal command-line value in [min, max]; what names the
 * option in the error.  Exits (fatalx) on anything else.
 */
unsigned long long bench_number(const char *s, unsigned long long min,
	    unsigned long long max, const char *what);

#endif
