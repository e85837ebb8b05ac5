/*
 * import_redis.h - postsmtpsts-cache import redis: the URL, and the bounds
 * of a reply from the peer's Redis
 *
 * NAME
 *	import_redis_url - split a redis:// or unix: URL, %-decoded
 *	import_redis_resp_init, import_redis_resp_feed - check a reply's
 *	bytes against the import's bounds before hiredis reads them
 * SYNOPSIS
 *	import_redis_url(url, len, &u, why, whysz)
 *	import_redis_resp_init(&s)
 *	import_redis_resp_feed(&s, p, len, &used, why, whysz)
 * DESCRIPTION
 *	The URL is postfix-mta-sts-resolver's cache.options.url:
 *
 *	    redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
 *	    unix:[//]PATH[?db=DB]
 *
 *	USER, PASSWORD, HOST, PATH and DB are %-decoded (RFC 3986 §2.1:
 *	"%40" is "@", "%2F" is "/"); a bad escape or "%00" is refused.  The
 *	authority ends at the first "/" (§3.2), the userinfo at the last
 *	"@" before it, the user at the first ":" of the userinfo (§3.2.1).
 *	HOST may be an IPv6 address in brackets.  A password in a URL is
 *	visible to every local user in ps(1): the caller warns.
 *
 *	The reply check is RESP2 as the import asks for it (no HELLO 3): a
 *	simple string, an error, an integer, a bulk string or an array;
 *	any other type byte, a length that is not a decimal number, a line
 *	not ended by CRLF, a bulk not followed by CRLF is refused, and so is
 *	a reply over the bounds below.  hiredis 0.14 (Debian 12) buffers a
 *	bulk string of any announced length until it is complete and has no
 *	bound on an array's length (1.x has maxelements; maxbuf is in both
 *	only the size above which an idle buffer is freed, not a bound), so
 *	a hostile server could make it hold 512 MB and more: the import
 *	feeds hiredis only bytes this check has passed, and stops at the
 *	first byte that breaks a bound, before anything is allocated for it.
 * LIMITS
 *	IMPORT_REDIS_MAX_BULK bytes a bulk string (the resolver's largest
 *	member is a UUID and IMPORT_STS_RESOLVER_MAX_JSON bytes of JSON),
 *	IMPORT_REDIS_MAX_ELEMENTS an array, IMPORT_REDIS_MAX_ITEMS values and
 *	IMPORT_REDIS_MAX_REPLY bytes a reply, IMPORT_REDIS_MAX_DEPTH nested
 *	arrays (the import's replies nest two), IMPORT_REDIS_MAX_LINE bytes
 *	a line.  Pure: no I/O, no allocation.
 */
#ifndef IMPORT_REDIS_H
#define IMPORT_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include "tools/import_sts_resolver.h"

#define IMPORT_REDIS_MAX_BULK	(2 * IMPORT_STS_RESOLVER_MAX_JSON)
#define IMPORT_REDIS_MAX_ELEMENTS 65536	/* SCAN COUNT 1000, with room */
#define IMPORT_REDIS_MAX_ITEMS	(IMPORT_REDIS_MAX_ELEMENTS + 16)
#define IMPORT_REDIS_MAX_REPLY	(8 * 1024 * 1024)
#define IMPORT_REDIS_MAX_DEPTH	4
#define IMPORT_REDIS_MAX_LINE	4096	/* "+..." "-..." ":" "$" "*" */
#define IMPORT_REDIS_HOST_MAX	1023	/* a host name or a socket path */
#define IMPORT_REDIS_USER_MAX	255
#define IMPORT_REDIS_PASS_MAX	511
#define IMPORT_REDIS_PORT	6379

/* A URL, split and decoded; the strings NUL-terminated (none holds one). */
struct import_redis_url {
	char		 host[IMPORT_REDIS_HOST_MAX + 1];  /* or the path */
	char		 user[IMPORT_REDIS_USER_MAX + 1];  /* "": none */
	char		 pass[IMPORT_REDIS_PASS_MAX + 1];
	int		 has_pass;	/* a password in the URL (maybe "") */
	int		 unix_sock;	/* host is a unix socket's path */
	int		 port;
	long		 db;		/* 0..65535 */
};

/*
 * import_redis_url - parse url[0..len) into *u: 0, or -1 with why set
 * (never the password)
 */
int	import_redis_url(const char *url, size_t len,
	    struct import_redis_url *u, char *why, size_t whysz);

enum import_redis_status {
	IMPORT_REDIS_RESP_MORE,	/* all used: the reply goes on */
	IMPORT_REDIS_RESP_DONE,	/* one whole reply in the first *used */
	IMPORT_REDIS_RESP_BAD,	/* refused: why */
};

/* The state of the check of one reply; import_redis_resp_init first. */
struct import_redis_resp {
	int		 phase;		/* private: */
	char		 line[32];	/* a length or integer line */
	size_t		 linelen;	/* bytes of the current line */
	int		 type;		/* of the current line */
	uint64_t	 bulk;		/* payload bytes + CRLF still due */
	size_t		 depth;
	uint64_t	 left[IMPORT_REDIS_MAX_DEPTH];	/* values due */
	uint64_t	 bytes, items;	/* of the reply so far */
};

/* import_redis_resp_init - ready to check a new reply */
void	import_redis_resp_init(struct import_redis_resp *s);

/*
 * import_redis_resp_feed - the next bytes p[0..len) of the reply
 *
 * MORE: all len bytes belong to the reply, which is not complete.  DONE:
 * the reply ends after the first *used bytes (the rest is the next
 * reply's).  BAD: refused, why says which bound or rule (the state is
 * then spent: init again).
 */
enum import_redis_status import_redis_resp_feed(struct import_redis_resp *s,
	    const char *p, size_t len, size_t *used, char *why, size_t whysz);

#endif
