/*
 * netstring.h - netstring framing (D. J. Bernstein), as Postfix's
 * socketmap_table(5) uses it: "<decimal length>:<bytes>,"
 *
 * Decoding is incremental over a byte stream: netstring_decode() looks at
 * the bytes received so far and says whether one complete netstring is
 * there, more bytes are needed, or the framing is broken (which no further
 * input can repair: the connection must be closed).
 */
#ifndef NETSTRING_H
#define NETSTRING_H

#include <stddef.h>

struct buf;

/* Longest length prefix we read: "100000" needs 6 digits; leading zeros are
 * accepted up to this many digits, more digits are a format error. */
#define NETSTRING_MAX_DIGITS	10

enum netstring_status {
	NETSTRING_OK = 0,	/* one complete netstring found */
	NETSTRING_INCOMPLETE,	/* valid so far, need more bytes */
	NETSTRING_ERR_FORMAT,	/* non-digit length, missing ':' or ',' */
	NETSTRING_ERR_TOOLONG,	/* declared length > max (or overflow) */
};

/*
 * netstring_decode - parse one netstring at the start of p[0..len)
 *
 * max is the largest payload accepted.  On NETSTRING_OK, *payload points
 * into p, *payload_len is its length and *consumed the total bytes used
 * (prefix, ':', payload, ','); the caller consumes them.  The out-parameters
 * are untouched otherwise.  Never reads past p[len-1]; needs no NUL.
 * NETSTRING_ERR_TOOLONG is reported as soon as the length prefix is known
 * (before the payload arrives), so a 1 MB claim costs no buffering.
 */
enum netstring_status netstring_decode(const char *p, size_t len, size_t max,
	    const char **payload, size_t *payload_len, size_t *consumed);

/*
 * netstring_encode - append "<len>:<p[0..len)>," to out
 *
 * Returns 0, or -1 when out's limit is reached (out's sticky error is set
 * and nothing is appended: out never holds a partial netstring).
 */
int	netstring_encode(struct buf *out, const char *p, size_t len);

/*
 * netstring_encoded_len - bytes netstring_encode() appends for a payload of
 * len bytes: digits, ':', payload, ','.  SIZE_MAX if that overflows.
 * Lets a caller check room before appending anything.
 */
size_t	netstring_encoded_len(size_t len);

/*
 * netstring_encode_begin, netstring_encode_end - frame a payload that the
 * caller appends in pieces: begin appends "<len>:", the caller appends
 * exactly len bytes, end appends ','.  Each returns 0 or -1 (out's sticky
 * error set).  To keep out free of a partial frame, check
 * netstring_encoded_len(len) against out's room first.
 */
int	netstring_encode_begin(struct buf *out, size_t len);
int	netstring_encode_end(struct buf *out);

/* netstring_strerror - short description of a decode status, for replies */
const char *netstring_strerror(enum netstring_status st);

#endif
