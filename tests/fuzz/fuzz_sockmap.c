/*
 * fuzz_sockmap.c - fuzz target for socketmap request parsing and replies
 *
 * The input is treated the way the server treats a connection: if it
 * starts with a complete netstring (limit SOCKMAP_MAX_QUERY), its payload
 * is the request, otherwise the raw input is.  Properties:
 *	- a parsed request splits the payload exactly: name, ' ', key, with
 *	  the documented name and key rules holding;
 *	- every reply status formats the key (as data or reason) into a
 *	  netstring whose payload is "<WORD> <data>" ("NOTFOUND " alone), or
 *	  is refused leaving the buffer untouched and usable.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"
#include "fuzz.h"

#define FUZZ_SMALL_BUF	64	/* an output buf too small for most keys */

/* fuzz_check_reply - format one reply, check it decodes as it should */
static void
fuzz_check_reply(enum sockmap_status st, const char *data, size_t len,
    size_t bufmax)
{
	const char *word = sockmap_status_name(st), *payload;
	size_t	 wlen = strlen(word), plen, used;
	struct buf b;

	buf_init(&b, bufmax);
	if (sockmap_reply_format(&b, st, data, len) == -1) {
		FUZZ_CHECK(b.len == 0 && !b.error);
		buf_free(&b);
		return;
	}
	if (st == SOCKMAP_NOTFOUND)
		len = 0;
	FUZZ_CHECK(netstring_decode(b.data, b.len, SOCKMAP_MAX_REPLY,
	    &payload, &plen, &used) == NETSTRING_OK);
	FUZZ_CHECK(used == b.len && plen == wlen + 1 + len);
	FUZZ_CHECK(memcmp(payload, word, wlen) == 0 && payload[wlen] == ' ');
	FUZZ_CHECK(len == 0 || memcmp(payload + wlen + 1, data, len) == 0);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *req, *name, *key, *why;
	size_t	 len, used, nlen, klen, i;
	static const enum sockmap_status all[] = {
		SOCKMAP_OK, SOCKMAP_NOTFOUND, SOCKMAP_TEMP, SOCKMAP_TIMEOUT,
		SOCKMAP_PERM,
	};

	if (netstring_decode(p, size, SOCKMAP_MAX_QUERY, &req, &len,
	    &used) != NETSTRING_OK) {
		req = p;
		len = size;
	}
	why = NULL;
	if (sockmap_request_parse(req, len, &name, &nlen, &key, &klen,
	    &why) == -1) {
		FUZZ_CHECK(why != NULL && *why != '\0');
		return (0);
	}
	FUZZ_CHECK(len <= SOCKMAP_MAX_QUERY);
	FUZZ_CHECK(name == req && nlen >= 1 && nlen <= SOCKMAP_MAX_NAME);
	FUZZ_CHECK(name[nlen] == ' ' && key == name + nlen + 1);
	FUZZ_CHECK(klen >= 1 && nlen + 1 + klen == len);
	FUZZ_CHECK(memchr(name, ' ', nlen) == NULL);
	for (i = 0; i < klen; i++)
		FUZZ_CHECK(key[i] != '\0' && key[i] != '\r' && key[i] != '\n');
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		fuzz_check_reply(all[i], key, klen, SOCKMAP_MAX_REPLY + 16);
		fuzz_check_reply(all[i], key, klen, FUZZ_SMALL_BUF);
	}
	return (0);
}
