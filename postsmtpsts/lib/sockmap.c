/*
 * sockmap.c - Postfix socketmap protocol, payload level
 *
 * Protocol (Postfix socketmap_table(5), client side in dict_sockmap.c):
 * the client sends one netstring request, the server one netstring reply.
 *
 *	request payload	"<name> <key>"		name: the socketmap name
 *						from socketmap:...:name
 *	reply payload	"OK <data>"		found
 *			"NOTFOUND "		not found (note the space)
 *			"TEMP <reason>"		temporary error
 *			"TIMEOUT <reason>"	timeout
 *			"PERM <reason>"		table misconfigured
 *
 * dict_sockmap.c splits the reply at the first space and compares the word
 * before it, so "OK" without a space and data reads as not found: every OK
 * carries data.  Limits are the client's: Postfix refuses replies over
 * SOCKMAP_MAX_REPLY payload bytes; we refuse requests over
 * SOCKMAP_MAX_QUERY.  This module does no I/O: framing is netstring.c's,
 * the socket is the server's.
 */
#include "autoconf.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"

/* sockmap_word - the reply keyword of st, NULL outside the enum */
static const char *
sockmap_word(enum sockmap_status st)
{
	switch (st) {
	case SOCKMAP_OK:
		return ("OK");
	case SOCKMAP_NOTFOUND:
		return ("NOTFOUND");
	case SOCKMAP_TEMP:
		return ("TEMP");
	case SOCKMAP_TIMEOUT:
		return ("TIMEOUT");
	case SOCKMAP_PERM:
		return ("PERM");
	}
	return (NULL);
}

/* sockmap_name_char - may c appear in a map name? */
static int
sockmap_name_char(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
}

int
sockmap_request_parse(const char *p, size_t len,
    const char **name, size_t *name_len,
    const char **key, size_t *key_len, const char **why)
{
	const char *sp, *k;
	size_t	 i, nlen, klen;

#define SOCKMAP_FAIL(reason) do {					\
	if (why != NULL)						\
		*why = (reason);					\
	return (-1);							\
} while (0)

	if (len > SOCKMAP_MAX_QUERY)
		SOCKMAP_FAIL("request too long");
	/* The name ends at the first space; the key is all the rest. */
	if ((sp = memchr(p, ' ', len)) == NULL)
		SOCKMAP_FAIL("missing space after map name");
	nlen = (size_t)(sp - p);
	if (nlen == 0)
		SOCKMAP_FAIL("empty map name");
	if (nlen > SOCKMAP_MAX_NAME)
		SOCKMAP_FAIL("map name too long");
	for (i = 0; i < nlen; i++)
		if (!sockmap_name_char(p[i]))
			SOCKMAP_FAIL("invalid character in map name");
	k = sp + 1;
	klen = len - nlen - 1;
	/* sockmap.h: Postfix never sends an empty key; one is misuse. */
	if (klen == 0)
		SOCKMAP_FAIL("empty key");
	/*
	 * Postfix keys are C strings, so NUL means a foreign client; CR and
	 * LF occur in no next-hop and would forge lines in our logs.
	 */
	for (i = 0; i < klen; i++)
		if (k[i] == '\0' || k[i] == '\r' || k[i] == '\n')
			SOCKMAP_FAIL("invalid character in key");
#undef SOCKMAP_FAIL

	*name = p;
	*name_len = nlen;
	*key = k;
	*key_len = klen;
	return (0);
}

int
sockmap_reply_format(struct buf *out, enum sockmap_status st,
    const char *data, size_t len)
{
	const char *word;
	size_t	 wlen, plen;

	if ((word = sockmap_word(st)) == NULL)
		panic("sockmap_reply_format: bad status %d", (int)st);
	if (st == SOCKMAP_OK && len == 0)
		panic("sockmap_reply_format: OK reply without data");
	if (data == NULL && len > 0)
		panic("sockmap_reply_format: NULL data with length %zu", len);
	/* socketmap_table(5): "NOTFOUND <space>", nothing after it. */
	if (st == SOCKMAP_NOTFOUND)
		len = 0;

	wlen = strlen(word);
	if (len > SOCKMAP_MAX_REPLY - wlen - 1)
		return (-1);	/* dict_sockmap.c would refuse it */
	plen = wlen + 1 + len;
	if (out->error || netstring_encoded_len(plen) > out->max - out->len)
		return (-1);	/* leave out usable for a TEMP reply */

	if (netstring_encode_begin(out, plen) == -1 ||
	    buf_append(out, word, wlen) == -1 ||
	    buf_append_char(out, ' ') == -1 ||
	    (len > 0 && buf_append(out, data, len) == -1) ||
	    netstring_encode_end(out) == -1)
		panic("sockmap_reply_format: append failed after room check");
	return (0);
}

const char *
sockmap_status_name(enum sockmap_status st)
{
	const char *word;

	return ((word = sockmap_word(st)) != NULL ? word : "UNKNOWN");
}
