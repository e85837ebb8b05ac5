/*
 * fuzz_import_redis.c - libFuzzer target for postsmtpsts-cache import
 * redis's reply handling and URL (import_redis.h)
 *
 * The input after its first byte is what a hostile Redis server sends:
 * replies one after the other.  It goes to import_redis_resp_feed() in
 * chunks of 1 to 256 bytes (the first byte picks the size), as reads
 * would bring it, and every byte the check passes goes to a hiredis
 * reader, as cache_import_cmd() does.  Properties: the check uses what
 * it is given and no more; a reply it completes is exactly one hiredis
 * reply (or an error of hiredis, never a partial one), and that reply
 * keeps the bounds: no string over IMPORT_REDIS_MAX_BULK, no array over
 * IMPORT_REDIS_MAX_ELEMENTS, no nesting deeper than IMPORT_REDIS_MAX_DEPTH,
 * at most IMPORT_REDIS_MAX_ITEMS values.  The same bytes are also parsed
 * as a URL: a parse that succeeds gives NUL-free strings inside their
 * arrays, a port and a database in range.  Seeds:
 * tests/fuzz/corpus/import_redis/ (replies of a real redis-server to the
 * import's commands, and the hostile server's cases).
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_FLEET
#include <hiredis/hiredis.h>
#endif

#include "tests/fuzz/fuzz.h"
#include "tools/import_redis.h"

#ifdef HAVE_FLEET
/* fuzz_tree - the bounds on a reply hiredis built; its value count */
static size_t
fuzz_tree(const redisReply *r, size_t depth)
{
	size_t	 i, n = 1;

	if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
	    r->type == REDIS_REPLY_ERROR)
		FUZZ_CHECK(r->len <= IMPORT_REDIS_MAX_BULK ||
		    (r->type != REDIS_REPLY_STRING &&
		    r->len <= IMPORT_REDIS_MAX_LINE));
	if (r->type == REDIS_REPLY_ARRAY) {
		FUZZ_CHECK(depth < IMPORT_REDIS_MAX_DEPTH);
		FUZZ_CHECK(r->elements <= IMPORT_REDIS_MAX_ELEMENTS);
		for (i = 0; i < r->elements; i++)
			n += fuzz_tree(r->element[i], depth + 1);
	}
	return (n);
}
#endif

/* fuzz_url - the URL properties */
static void
fuzz_url(const uint8_t *data, size_t size)
{
	struct import_redis_url u;
	char		 why[160];

	if (import_redis_url((const char *)data, size, &u, why,
	    sizeof(why)) == -1) {
		FUZZ_CHECK(why[0] != '\0');
		return;
	}
	FUZZ_CHECK(memchr(u.host, '\0', sizeof(u.host)) != NULL);
	FUZZ_CHECK(u.host[0] != '\0');
	FUZZ_CHECK(memchr(u.user, '\0', sizeof(u.user)) != NULL);
	FUZZ_CHECK(memchr(u.pass, '\0', sizeof(u.pass)) != NULL);
	FUZZ_CHECK(u.port >= 1 && u.port <= 65535);
	FUZZ_CHECK(u.db >= 0 && u.db <= 65535);
	FUZZ_CHECK(u.has_pass || u.pass[0] == '\0');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_redis_resp s;
	enum import_redis_status st = IMPORT_REDIS_RESP_MORE;
	const char	*p;
	char		 why[160];
	size_t		 chunk, off = 0, n, used, replies = 0;
#ifdef HAVE_FLEET
	redisReader	*rd;
	void		*reply = NULL;
#endif

	if (size < 1)
		return (0);
	chunk = (size_t)data[0] + 1;
	p = (const char *)data + 1;
	size--;
	fuzz_url((const uint8_t *)p, size);
#ifdef HAVE_FLEET
	if ((rd = redisReaderCreate()) == NULL)
		return (0);
#endif
	import_redis_resp_init(&s);
	while (off < size && replies < 64) {
		n = size - off < chunk ? size - off : chunk;
		why[0] = '\0';
		st = import_redis_resp_feed(&s, p + off, n, &used, why,
		    sizeof(why));
		FUZZ_CHECK(used <= n);
		if (st == IMPORT_REDIS_RESP_BAD) {
			FUZZ_CHECK(why[0] != '\0');
			break;
		}
		if (st == IMPORT_REDIS_RESP_MORE)
			FUZZ_CHECK(used == n);
		FUZZ_CHECK(s.bytes <= IMPORT_REDIS_MAX_REPLY + chunk);
		FUZZ_CHECK(s.items <= IMPORT_REDIS_MAX_ITEMS);
#ifdef HAVE_FLEET
		if (redisReaderFeed(rd, p + off, used) != REDIS_OK)
			break;
		if (redisReaderGetReply(rd, &reply) != REDIS_OK)
			break;	/* hiredis refuses what passed: fine */
		if (st == IMPORT_REDIS_RESP_MORE)
			FUZZ_CHECK(reply == NULL);
		else {
			FUZZ_CHECK(reply != NULL);
			FUZZ_CHECK(fuzz_tree(reply, 0) <=
			    IMPORT_REDIS_MAX_ITEMS);
			freeReplyObject(reply);
			reply = NULL;
		}
#endif
		off += used;
		if (st == IMPORT_REDIS_RESP_DONE) {
			replies++;
			import_redis_resp_init(&s);
		}
	}
#ifdef HAVE_FLEET
	if (reply != NULL)
		freeReplyObject(reply);
	redisReaderFree(rd);
#endif
	return (0);
}
