/*
 * sockmap.h - Postfix socketmap protocol (socketmap_table(5)), payload level
 *
 * Request payload: "<name> <key>" (name = map name, no spaces; key = the
 * rest; Postfix never sends an empty key, so that is malformed).  Reply
 * payload: "OK <data>", "NOTFOUND ", "TEMP <reason>", "TIMEOUT <reason>",
 * "PERM <reason>", each wrapped in a netstring.
 * Limits are Postfix's own: requests over SOCKMAP_MAX_QUERY bytes and replies
 * over SOCKMAP_MAX_REPLY bytes are refused by dict_sockmap.c.
 */
#ifndef SOCKMAP_H
#define SOCKMAP_H

#include <stddef.h>

struct buf;

#define SOCKMAP_MAX_QUERY	10000	/* request payload bytes */
#define SOCKMAP_MAX_REPLY	100000	/* reply payload bytes */
#define SOCKMAP_MAX_OK_DATA	(SOCKMAP_MAX_REPLY - 3)	/* data after "OK " */
#define SOCKMAP_MAX_NAME	64	/* map name bytes */

enum sockmap_status {
	SOCKMAP_OK = 0,
	SOCKMAP_NOTFOUND,
	SOCKMAP_TEMP,
	SOCKMAP_TIMEOUT,
	SOCKMAP_PERM,
};

/*
 * sockmap_request_parse - split a request payload into map name and key
 *
 * On success returns 0 and sets name/key pointers into p with lengths.
 * Returns -1 (and *why, a static string for a PERM reply) when the payload
 * is longer than SOCKMAP_MAX_QUERY, there is no space, the name is empty or
 * longer than SOCKMAP_MAX_NAME or has bytes outside [A-Za-z0-9._-], or the
 * key is empty or contains NUL, CR or LF.  The key is everything after the
 * first space (it may itself contain spaces).  Out-parameters are set only
 * on success, *why only on failure; why may be NULL.
 */
int	sockmap_request_parse(const char *p, size_t len,
	    const char **name, size_t *name_len,
	    const char **key, size_t *key_len, const char **why);

/*
 * sockmap_reply_format - append one netstring-framed reply to out
 *
 * data may be NULL/0 (NOTFOUND takes none: its data is ignored, the payload
 * is always "NOTFOUND ").  For TEMP, TIMEOUT and PERM data is the reason and
 * may be empty.  An OK reply must carry data (older Postfix reads a bare
 * "OK" as not found): OK with len 0, data NULL with len > 0, or a status
 * outside the enum is a programming error and panics.  Returns 0 or -1 when
 * the payload would exceed SOCKMAP_MAX_REPLY or the framed reply would
 * exceed out's limit, or out's error bit is already set.  A refused reply
 * appends nothing and leaves out's error bit alone, so the caller can
 * format its TEMP answer into the same buf.
 */
int	sockmap_reply_format(struct buf *out, enum sockmap_status st,
	    const char *data, size_t len);

/* sockmap_status_name - "OK", "NOTFOUND", ...; "UNKNOWN" outside the enum */
const char *sockmap_status_name(enum sockmap_status st);

#endif
