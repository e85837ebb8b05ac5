/*
 * httpresp.h - read the HTTP/1.x response to a policy fetch, on Debian's
 * libhttp-parser
 *
 * The response arrives in pieces of any size (TLS records); each piece goes
 * to httpresp_feed(), which says how far the response has come:
 *
 *   HTTPRESP_MORE   the piece was taken whole; more is needed
 *   HTTPRESP_HEAD   the final head is complete: status, Content-Type and
 *                   Content-Length are set.  *used bytes were taken; the
 *                   caller judges the head (RFC 8461 §3.3: 200, text/plain,
 *                   the size) and, to go on, feeds the rest of the piece.
 *                   Returned once; interim 1xx heads are skipped.
 *   HTTPRESP_DONE   the body is complete (anything after it is ignored)
 *   HTTPRESP_ERROR  malformed (a 101 too: it is never asked for), a head
 *                   over HTTPRESP_HEAD_MAX bytes, or a body over max_body
 *                   bytes (too_large set); why says which
 *
 * httpresp_eof() tells that the peer closed the connection: DONE when that
 * ends a body sent without Content-Length or chunked encoding (or the body
 * was already complete), ERROR when the response is cut short.
 *
 * The body, chunked transfer coding removed, is appended to the caller's
 * buf; it never holds more than max_body bytes.  No content coding is asked
 * for or undone: the request sends no Accept-Encoding.
 */
#ifndef HTTPRESP_H
#define HTTPRESP_H

#include <stddef.h>

#include <http_parser.h>

#define HTTPRESP_HEAD_MAX	32768	/* bytes of the head, interim
					   1xx heads before it included */
#define HTTPRESP_CTYPE_MAX	128	/* Content-Type kept (longer: cut) */
#define HTTPRESP_FIELD_MAX	32	/* header names looked at are shorter */
#define HTTPRESP_WHY_MAX	128

struct buf;

enum httpresp_state {
	HTTPRESP_MORE,
	HTTPRESP_HEAD,
	HTTPRESP_DONE,
	HTTPRESP_ERROR,
};

struct httpresp {
	http_parser	 p;
	struct buf	*body;
	size_t		 max_body;
	size_t		 head_len;	/* head bytes so far (interim too) */
	int		 status;	/* of the final head */
	long long	 content_length; /* -1: no Content-Length */
	int		 chunked;
	char		 ctype[HTTPRESP_CTYPE_MAX];
	size_t		 ctype_len;
	int		 have_ctype;
	char		 field[HTTPRESP_FIELD_MAX];
	size_t		 field_len;	/* > sizeof(field): a longer name */
	int		 in_value;	/* the last callback was a value's */
	int		 value_is_ctype;
	int		 head_done;
	int		 head_reported;
	int		 done;
	int		 too_large;
	int		 failed;
	char		 why[HTTPRESP_WHY_MAX];
};

/* httpresp_init - ready r for one response; the body goes to body (at most
 * max_body bytes; the caller owns and frees it) */
void		 httpresp_init(struct httpresp *r, struct buf *body,
		    size_t max_body);

/* httpresp_feed - take p[0..n): see above; *used (may be NULL) is how many
 * bytes were taken.  After HEAD, feed the rest; after DONE or ERROR,
 * nothing more is taken.  n == 0 is not the end: see httpresp_eof(). */
enum httpresp_state httpresp_feed(struct httpresp *r, const char *p,
		    size_t n, size_t *used);

/* httpresp_eof - the peer closed the connection: DONE or ERROR */
enum httpresp_state httpresp_eof(struct httpresp *r);

#endif
