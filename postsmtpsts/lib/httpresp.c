/*
 * httpresp.c - the HTTP/1.x response of a policy fetch, on libhttp-parser
 *
 * Why libhttp-parser (Debian's libhttp-parser2.9, Node.js's old parser):
 * the response comes from a server on the Internet, so the code that splits
 * it is the part to take from a well-kept library, not to write; it is a
 * push parser with no allocation and no I/O, which suits data arriving in
 * TLS records, and it removes the chunked transfer coding.  What is ours is
 * small: which headers we keep, the limits, and the states the caller sees
 * (httpresp.h).
 *
 * Limits: a head is at most HTTPRESP_HEAD_MAX bytes (counted here, the
 * interim heads before it included, however the bytes are split; the
 * parser's own limit is 80 KiB), the body at most max_body bytes, counted
 * after the chunked coding is removed, so chunk framing never counts and
 * never lets more through.  Interim 1xx heads are skipped (their headers
 * forgotten, a body they announce not read: RFC 7230 §3.3.3); a 101 is
 * not followed but an error: we never ask to switch, and the parser would
 * stop in the middle of a piece.  The parser refuses what RFC 7230
 * refuses, e.g. two Content-Length headers or one with chunked; a status
 * of one or two digits, which it takes, is refused here.  Trailer fields
 * are not the head: they change nothing the caller judged.
 *
 * The parser is paused in two places: at the end of the final head, so the
 * caller can judge it before one body byte is taken, and at the end of the
 * message, so nothing after it is read.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/httpresp.h"

#define HTTPRESP_CTYPE	"content-type"

static int	httpresp_on_header_field(http_parser *, const char *, size_t);
static int	httpresp_on_header_value(http_parser *, const char *, size_t);
static int	httpresp_on_headers_complete(http_parser *);
static int	httpresp_on_body(http_parser *, const char *, size_t);
static int	httpresp_on_message_complete(http_parser *);

static const http_parser_settings httpresp_settings = {
	.on_header_field = httpresp_on_header_field,
	.on_header_value = httpresp_on_header_value,
	.on_headers_complete = httpresp_on_headers_complete,
	.on_body = httpresp_on_body,
	.on_message_complete = httpresp_on_message_complete,
};

/* httpresp_forget_head - an interim head is over: drop what it said */
static void
httpresp_forget_head(struct httpresp *r)
{
	r->ctype_len = 0;
	r->ctype[0] = '\0';
	r->have_ctype = 0;
	r->field_len = 0;
	r->in_value = 0;
	r->value_is_ctype = 0;
}

void
httpresp_init(struct httpresp *r, struct buf *body, size_t max_body)
{
	memset(r, 0, sizeof(*r));
	http_parser_init(&r->p, HTTP_RESPONSE);
	r->p.data = r;
	r->body = body;
	r->max_body = max_body;
	r->content_length = -1;
}

/* a header name, maybe in several pieces */
static int
httpresp_on_header_field(http_parser *p, const char *at, size_t len)
{
	struct httpresp	*r = p->data;

	if (r->head_done)		/* a chunked body's trailer */
		return (0);
	if (r->in_value) {		/* a new header starts */
		r->in_value = 0;
		r->field_len = 0;
	}
	if (r->field_len + len <= sizeof(r->field))
		memcpy(r->field + r->field_len, at, len);
	/* longer than any name we look at: remembered only as too long */
	r->field_len = r->field_len + len > sizeof(r->field) ?
	    sizeof(r->field) + 1 : r->field_len + len;
	return (0);
}

/* a header value, maybe in several pieces: only Content-Type is kept */
static int
httpresp_on_header_value(http_parser *p, const char *at, size_t len)
{
	struct httpresp	*r = p->data;
	size_t		 room;

	if (r->head_done)		/* a chunked body's trailer */
		return (0);
	if (!r->in_value) {		/* the first piece of this value */
		r->in_value = 1;
		r->value_is_ctype = r->field_len == sizeof(HTTPRESP_CTYPE) - 1 &&
		    strncasecmp(r->field, HTTPRESP_CTYPE, r->field_len) == 0;
		if (r->value_is_ctype) {	/* the last one counts */
			r->ctype_len = 0;
			r->have_ctype = 1;
		}
	}
	if (r->value_is_ctype) {
		room = sizeof(r->ctype) - 1 - r->ctype_len;
		if (len > room)
			len = room;
		memcpy(r->ctype + r->ctype_len, at, len);
		r->ctype_len += len;
		r->ctype[r->ctype_len] = '\0';
	}
	return (0);
}

static int
httpresp_on_headers_complete(http_parser *p)
{
	struct httpresp	*r = p->data;

	if (p->status_code < 100) {	/* the parser takes "HTTP/1.1 20" */
		snprintf(r->why, sizeof(r->why), "malformed HTTP response: "
		    "status %u", (unsigned int)p->status_code);
		return (-1);
	}
	if (p->status_code == 101) {
		snprintf(r->why, sizeof(r->why), "unrequested 101 Switching "
		    "Protocols");
		return (-1);
	}
	if (p->status_code <= 199)
		return (1);		/* interim: no body, whatever it says */
	r->status = (int)p->status_code;
	r->chunked = (p->flags & F_CHUNKED) != 0;
	if (p->flags & F_CONTENTLENGTH)
		r->content_length = p->content_length > (uint64_t)LLONG_MAX ?
		    LLONG_MAX : (long long)p->content_length;
	r->head_done = 1;
	http_parser_pause(p, 1);	/* the caller judges the head first */
	return (0);
}

static int
httpresp_on_body(http_parser *p, const char *at, size_t len)
{
	struct httpresp	*r = p->data;
	size_t		 have = r->body->len;

	if (len > r->max_body - have) {
		r->too_large = 1;
		snprintf(r->why, sizeof(r->why), "body exceeds %zu bytes",
		    r->max_body);
		return (1);
	}
	if (buf_append(r->body, at, len) == -1) {
		snprintf(r->why, sizeof(r->why), "body exceeds the buffer");
		return (1);
	}
	return (0);
}

static int
httpresp_on_message_complete(http_parser *p)
{
	struct httpresp	*r = p->data;

	if (!r->head_done) {		/* the end of an interim response */
		httpresp_forget_head(r);
		return (0);
	}
	r->done = 1;
	http_parser_pause(p, 1);	/* read nothing after it */
	return (0);
}

/* httpresp_error - the parser stopped on an error: remember why */
static enum httpresp_state
httpresp_error(struct httpresp *r)
{
	enum http_errno	 e = HTTP_PARSER_ERRNO(&r->p);

	r->failed = 1;
	if (r->why[0] == '\0')
		snprintf(r->why, sizeof(r->why), "malformed HTTP response: %s",
		    http_errno_description(e));
	return (HTTPRESP_ERROR);
}

enum httpresp_state
httpresp_feed(struct httpresp *r, const char *p, size_t n, size_t *used)
{
	size_t		 k;
	enum http_errno	 e;
	int		 in_head;

	if (used != NULL)
		*used = 0;
	if (r->failed)
		return (HTTPRESP_ERROR);
	if (r->done)
		return (HTTPRESP_DONE);
	if (n == 0)		/* for the parser, no bytes is the end */
		return (HTTPRESP_MORE);
	if (HTTP_PARSER_ERRNO(&r->p) == HPE_PAUSED)
		http_parser_pause(&r->p, 0);	/* the head was judged */
	in_head = !r->head_done;
	k = http_parser_execute(&r->p, &httpresp_settings, p, n);
	if (used != NULL)
		*used = k;
	if (in_head) {		/* the piece that ends the head counts too */
		r->head_len += k;
		if (r->head_len > HTTPRESP_HEAD_MAX) {
			snprintf(r->why, sizeof(r->why),
			    "response head longer than %d bytes",
			    HTTPRESP_HEAD_MAX);
			r->failed = 1;
			return (HTTPRESP_ERROR);
		}
	}
	e = HTTP_PARSER_ERRNO(&r->p);
	if (e != HPE_OK && e != HPE_PAUSED)
		return (httpresp_error(r));
	if (r->done)
		return (HTTPRESP_DONE);
	if (r->head_done && !r->head_reported) {
		r->head_reported = 1;
		return (HTTPRESP_HEAD);
	}
	return (HTTPRESP_MORE);
}

enum httpresp_state
httpresp_eof(struct httpresp *r)
{
	if (r->failed)
		return (HTTPRESP_ERROR);
	if (r->done)
		return (HTTPRESP_DONE);
	if (!r->head_done) {
		r->failed = 1;
		snprintf(r->why, sizeof(r->why), "%s", r->head_len == 0 ?
		    "connection closed without a response" :
		    "connection closed inside the response head");
		return (HTTPRESP_ERROR);
	}
	if (HTTP_PARSER_ERRNO(&r->p) == HPE_PAUSED)
		http_parser_pause(&r->p, 0);
	/* the parser completes a body that runs to the end of the
	 * connection, and refuses the end anywhere else */
	(void)http_parser_execute(&r->p, &httpresp_settings, NULL, 0);
	if (r->done)
		return (HTTPRESP_DONE);
	r->failed = 1;
	if (r->chunked)
		snprintf(r->why, sizeof(r->why), "connection closed before "
		    "the last chunk (%zu bytes)", r->body->len);
	else
		snprintf(r->why, sizeof(r->why), "connection closed after "
		    "%zu of %lld body bytes", r->body->len, r->content_length);
	return (HTTPRESP_ERROR);
}
