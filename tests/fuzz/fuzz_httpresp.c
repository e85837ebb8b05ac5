/*
 * fuzz_httpresp.c - fuzz target for httpresp.c, the HTTP/1.x response of a
 * policy fetch read on libhttp-parser
 *
 * The input is one selector byte and the bytes a server sent.  The
 * selector's low four bits pick the piece size (1..16 bytes, as TLS
 * records would split them), its high four bits max_body (0, 13, ... 182
 * bytes, or 65536).  The bytes are fed as https_direct.c feeds them: in
 * pieces, after HEAD the rest of the same piece, then httpresp_eof() if
 * the response is not over; each piece is a heap block of its exact size,
 * so ASan sees a read past it.  Properties:
 *	- MORE took the whole piece, no call took more than it was given;
 *	- HEAD comes at most once, before any body byte, with a status of
 *	  200..999 (interim 1xx heads are skipped, a 101 refused), a
 *	  NUL-terminated Content-Type shorter than HTTPRESP_CTYPE_MAX, a
 *	  Content-Length of -1 or more, and these fields do not change later
 *	  (the Content-Type may hold a NUL of its own: libhttp-parser 2.9.4
 *	  checks every byte of a header value but the first);
 *	- the body never holds more than max_body bytes; too_large only with
 *	  ERROR; DONE with a Content-Length has exactly that many body bytes;
 *	- DONE and ERROR are final: nothing more is taken, eof says the same;
 *	  DONE follows a HEAD, ERROR has a reason;
 *	- the split does not matter: the input in one piece comes to the same
 *	  state, HEAD fields, reason and (on DONE) body bytes.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/httpresp.h"
#include "fuzz.h"

#define FUZZ_WHOLE	0		/* step: the input in one piece */

/* what one feeding came to */
struct fuzz_outcome {
	enum httpresp_state end;
	int		 heads;
	int		 status;
	int		 have_ctype;
	char		 ctype[HTTPRESP_CTYPE_MAX];
	size_t		 ctype_len;
	long long	 content_length;
	int		 chunked;
	int		 too_large;
	char		 why[HTTPRESP_WHY_MAX];
	struct buf	 body;
};

/* fuzz_head - HEAD: check and remember its fields */
static void
fuzz_head(const struct httpresp *r, struct fuzz_outcome *o)
{
	FUZZ_CHECK(o->heads == 0);
	o->heads = 1;
	FUZZ_CHECK(o->body.len == 0);
	FUZZ_CHECK(r->status >= 200 && r->status <= 999);
	FUZZ_CHECK(r->ctype_len < HTTPRESP_CTYPE_MAX);
	FUZZ_CHECK(r->ctype[r->ctype_len] == '\0');
	FUZZ_CHECK(strlen(r->ctype) <= r->ctype_len);
	FUZZ_CHECK(r->have_ctype || r->ctype_len == 0);
	FUZZ_CHECK(r->content_length >= -1);
	o->status = r->status;
	o->have_ctype = r->have_ctype;
	memcpy(o->ctype, r->ctype, sizeof(o->ctype));
	o->ctype_len = r->ctype_len;
	o->content_length = r->content_length;
	o->chunked = r->chunked;
}

/* fuzz_head_kept - the head fields are still those HEAD reported */
static void
fuzz_head_kept(const struct httpresp *r, const struct fuzz_outcome *o)
{
	if (o->heads == 0)
		return;
	FUZZ_CHECK(r->status == o->status);
	FUZZ_CHECK(r->have_ctype == o->have_ctype);
	FUZZ_CHECK(r->ctype_len == o->ctype_len &&
	    memcmp(r->ctype, o->ctype, o->ctype_len + 1) == 0);
	FUZZ_CHECK(r->content_length == o->content_length);
	FUZZ_CHECK(r->chunked == o->chunked);
}

/* fuzz_feed - feed p[0..n) in pieces of step bytes into o (its body buf
 * is initialized here; the caller frees it) */
static void
fuzz_feed(const uint8_t *p, size_t n, size_t step, size_t max_body,
    struct fuzz_outcome *o)
{
	struct httpresp	 r;
	enum httpresp_state st = HTTPRESP_MORE;
	char		*piece;
	size_t		 off = 0, len, at, used;

	memset(o, 0, sizeof(*o));
	buf_init(&o->body, max_body);
	httpresp_init(&r, &o->body, max_body);
	while (off < n && (st == HTTPRESP_MORE || st == HTTPRESP_HEAD)) {
		len = step == FUZZ_WHOLE || n - off < step ? n - off : step;
		piece = malloc(len);
		FUZZ_CHECK(piece != NULL);
		memcpy(piece, p + off, len);
		for (at = 0; at < len; at += used) {
			used = SIZE_MAX;
			st = httpresp_feed(&r, piece + at, len - at, &used);
			FUZZ_CHECK(used <= len - at);
			FUZZ_CHECK(o->body.len <= max_body);
			fuzz_head_kept(&r, o);
			if (st == HTTPRESP_HEAD)
				fuzz_head(&r, o);
			else if (st == HTTPRESP_MORE)
				FUZZ_CHECK(used == len - at);
			else
				break;
		}
		free(piece);
		off += len;
	}
	if (st == HTTPRESP_MORE || st == HTTPRESP_HEAD)
		st = httpresp_eof(&r);
	FUZZ_CHECK(st == HTTPRESP_DONE || st == HTTPRESP_ERROR);
	FUZZ_CHECK(o->body.len <= max_body);
	fuzz_head_kept(&r, o);
	/* final: nothing more taken, eof says the same */
	FUZZ_CHECK(httpresp_feed(&r, "HTTP/1.1", 8, &used) == st && used == 0);
	FUZZ_CHECK(httpresp_eof(&r) == st);
	FUZZ_CHECK(memchr(r.why, '\0', sizeof(r.why)) != NULL);
	if (st == HTTPRESP_DONE) {
		FUZZ_CHECK(o->heads == 1 && r.why[0] == '\0' && !r.too_large);
		if (o->content_length >= 0 && !o->chunked)
			FUZZ_CHECK((long long)o->body.len == o->content_length);
	} else
		FUZZ_CHECK(r.why[0] != '\0');
	o->end = st;
	o->too_large = r.too_large;
	memcpy(o->why, r.why, sizeof(o->why));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_outcome split, whole;
	size_t		 step, max_body;

	if (size < 1)
		return (0);
	step = (data[0] & 0x0f) + 1;
	max_body = (data[0] >> 4) == 15 ? 65536 : (size_t)(data[0] >> 4) * 13;
	fuzz_feed(data + 1, size - 1, step, max_body, &split);
	fuzz_feed(data + 1, size - 1, FUZZ_WHOLE, max_body, &whole);

	FUZZ_CHECK(split.end == whole.end);
	FUZZ_CHECK(split.heads == whole.heads);
	FUZZ_CHECK(split.status == whole.status);
	FUZZ_CHECK(split.have_ctype == whole.have_ctype);
	FUZZ_CHECK(split.ctype_len == whole.ctype_len &&
	    memcmp(split.ctype, whole.ctype, split.ctype_len + 1) == 0);
	FUZZ_CHECK(split.content_length == whole.content_length);
	FUZZ_CHECK(split.chunked == whole.chunked);
	FUZZ_CHECK(split.too_large == whole.too_large);
	FUZZ_CHECK(strcmp(split.why, whole.why) == 0);
	if (split.end == HTTPRESP_DONE)
		FUZZ_CHECK(split.body.len == whole.body.len &&
		    (split.body.len == 0 || memcmp(split.body.data,
		    whole.body.data, split.body.len) == 0));
	buf_free(&split.body);
	buf_free(&whole.body);
	return (0);
}
