/*
 * test_httpresp.c - unit tests for httpresp.c, the HTTP/1.x response of a
 * policy fetch read on libhttp-parser
 *
 * Most responses are fed by every split: whole, then in pieces of 1, 2,
 * ... n bytes, the way https_direct.c feeds TLS records (after HEAD, the
 * rest of the same piece), then httpresp_eof() if the bytes left it at
 * MORE.  Every split must give the same HEAD fields, final state and body.
 * The feeding helper itself checks the contract on every call: MORE takes
 * the whole piece, HEAD comes at most once and before any body byte, the
 * body never holds more than max_body bytes, and the head fields do not
 * change after HEAD.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/httpresp.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

#define TEST_MAX_BODY	65536		/* RFC 8461's 64 KiB */
#define TEST_BODY_MAX	1024		/* body bytes a result keeps */
#define TEST_WHOLE	0		/* step: the response in one piece */

/* what one feeding of a response came to */
struct result {
	enum httpresp_state fed;	/* the state the bytes left */
	enum httpresp_state end;	/* after httpresp_eof() if fed MORE */
	int		 heads;		/* HEADs returned */
	int		 status;	/* the fields at HEAD */
	int		 have_ctype;
	char		 ctype[HTTPRESP_CTYPE_MAX];
	size_t		 ctype_len;
	long long	 content_length;
	int		 chunked;
	char		 body[TEST_BODY_MAX];
	size_t		 body_len;
	int		 too_large;
	char		 why[HTTPRESP_WHY_MAX];
};

/* check_head_kept - the head fields are those HEAD reported */
static void
check_head_kept(const struct httpresp *r, const struct result *res)
{
	if (res->heads == 0)
		return;
	assert_int_equal(r->status, res->status);
	assert_int_equal(r->have_ctype, res->have_ctype);
	assert_int_equal(r->ctype_len, res->ctype_len);
	assert_string_equal(r->ctype, res->ctype);
	assert_true(r->content_length == res->content_length);
	assert_int_equal(r->chunked, res->chunked);
}

/* take_head - HEAD: remember its fields as a caller judges them */
static void
take_head(const struct httpresp *r, struct result *res)
{
	assert_int_equal(res->heads, 0);	/* HEAD comes once */
	res->heads++;
	assert_int_equal(r->body->len, 0);	/* before any body byte */
	res->status = r->status;
	res->have_ctype = r->have_ctype;
	assert_true(r->ctype_len < sizeof(r->ctype));
	assert_int_equal(strlen(r->ctype), r->ctype_len);
	memcpy(res->ctype, r->ctype, sizeof(res->ctype));
	res->ctype_len = r->ctype_len;
	res->content_length = r->content_length;
	res->chunked = r->chunked;
}

/*
 * run - feed p[0..n) in pieces of step bytes (TEST_WHOLE: one piece) into
 * a fresh httpresp with max_body; the body buf holds at most max_body
 */
static void
run(const char *p, size_t n, size_t step, size_t max_body,
    struct result *res)
{
	struct httpresp	 r;
	struct buf	 body;
	enum httpresp_state st = HTTPRESP_MORE;
	size_t		 off = 0, end, used;

	memset(res, 0, sizeof(*res));
	buf_init(&body, max_body);
	httpresp_init(&r, &body, max_body);
	while (off < n && (st == HTTPRESP_MORE || st == HTTPRESP_HEAD)) {
		end = step == TEST_WHOLE || n - off < step ? n : off + step;
		while (off < end) {
			used = SIZE_MAX;
			st = httpresp_feed(&r, p + off, end - off, &used);
			assert_true(used <= end - off);
			assert_true(body.len <= max_body);
			if (st == HTTPRESP_HEAD) {
				take_head(&r, res);
				off += used;
				continue;
			}
			if (st == HTTPRESP_MORE)
				assert_int_equal(used, end - off);
			off += used;
			if (st != HTTPRESP_MORE)
				break;
		}
	}
	res->fed = res->end = st;
	if (st == HTTPRESP_MORE)
		res->end = httpresp_eof(&r);
	assert_true(res->end == HTTPRESP_DONE || res->end == HTTPRESP_ERROR);
	/* the end is final: nothing more is taken, eof says the same */
	assert_int_equal(httpresp_feed(&r, "x", 1, &used), res->end);
	assert_int_equal(used, 0);
	assert_int_equal(httpresp_eof(&r), res->end);
	if (res->end == HTTPRESP_DONE) {
		assert_int_equal(res->heads, 1);
		assert_string_equal(r.why, "");
	} else
		assert_true(r.why[0] != '\0');
	assert_true(body.len <= max_body);
	check_head_kept(&r, res);
	assert_true(body.len <= sizeof(res->body));
	if (body.len > 0)
		memcpy(res->body, body.data, body.len);
	res->body_len = body.len;
	res->too_large = r.too_large;
	memcpy(res->why, r.why, sizeof(res->why));
	buf_free(&body);
}

/* same_result - two feedings came to the same */
static void
same_result(const struct result *a, const struct result *b)
{
	assert_int_equal(a->fed, b->fed);
	assert_int_equal(a->end, b->end);
	assert_int_equal(a->heads, b->heads);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->have_ctype, b->have_ctype);
	assert_string_equal(a->ctype, b->ctype);
	assert_true(a->content_length == b->content_length);
	assert_int_equal(a->chunked, b->chunked);
	assert_int_equal(a->too_large, b->too_large);
	if (a->end == HTTPRESP_DONE) {
		assert_int_equal(a->body_len, b->body_len);
		assert_memory_equal(a->body, b->body, a->body_len);
	}
}

/*
 * run_all - feed p[0..n) whole and by every split into *res (the whole
 * piece's result); every split must come to the same
 */
static void
run_all(const char *p, size_t n, size_t max_body, struct result *res)
{
	struct result	 split;
	size_t		 step;

	run(p, n, TEST_WHOLE, max_body, res);
	for (step = 1; step <= n; step++) {
		run(p, n, step, max_body, &split);
		same_result(res, &split);
	}
}

/* feed_one - one httpresp_feed() call that must take used bytes */
static void
feed_one(struct httpresp *r, const char *p, size_t n,
    enum httpresp_state want, size_t want_used)
{
	size_t		 used = SIZE_MAX;

	assert_int_equal(httpresp_feed(r, p, n, &used), want);
	assert_int_equal(used, want_used);
}

#define PLAIN_HEAD	"HTTP/1.1 200 OK\r\n" \
			"Server: test\r\n" \
			"Content-Type: text/plain\r\n" \
			"Content-Length: 33\r\n" \
			"\r\n"
#define PLAIN_BODY	"version: STSv1\r\nmode: enforce\r\n.."
#define PLAIN		PLAIN_HEAD PLAIN_BODY

/* a 200: HEAD with the fields, before any body byte; then DONE */
static void
plain_200(void **state)
{
	struct httpresp	 r;
	struct buf	 body;
	size_t		 used;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_feed(&r, IN(PLAIN), &used), HTTPRESP_HEAD);
	assert_int_equal(r.status, 200);
	assert_true(r.have_ctype);
	assert_string_equal(r.ctype, "text/plain");
	assert_int_equal(r.ctype_len, 10);
	assert_true(r.content_length == 33);
	assert_false(r.chunked);
	/* the head's bytes at most: no body byte was taken */
	assert_true(used <= sizeof(PLAIN_HEAD) - 1);
	assert_true(used >= sizeof(PLAIN_HEAD) - 2);
	assert_int_equal(body.len, 0);
	feed_one(&r, PLAIN + used, sizeof(PLAIN) - 1 - used, HTTPRESP_DONE,
	    sizeof(PLAIN) - 1 - used);
	assert_int_equal(body.len, sizeof(PLAIN_BODY) - 1);
	assert_memory_equal(body.data, PLAIN_BODY, body.len);
	assert_false(r.too_large);
	assert_int_equal(httpresp_eof(&r), HTTPRESP_DONE);
	buf_free(&body);
}

/* the same response by every split, one byte at a time included */
static void
plain_200_every_split(void **state)
{
	struct result	 res, one;

	(void)state;
	run_all(IN(PLAIN), TEST_MAX_BODY, &res);
	run(IN(PLAIN), 1, TEST_MAX_BODY, &one);
	same_result(&res, &one);
	assert_int_equal(one.fed, HTTPRESP_DONE);
	assert_int_equal(one.heads, 1);
	assert_int_equal(one.status, 200);
	assert_string_equal(one.ctype, "text/plain");
	assert_true(one.content_length == 33);
	assert_int_equal(one.body_len, sizeof(PLAIN_BODY) - 1);
	assert_memory_equal(one.body, PLAIN_BODY, one.body_len);
}

/* a header name and its value split across feeds */
static void
header_split_across_feeds(void **state)
{
	static const char *const pieces[] = {
		"HTTP/1.1 200 OK\r\nConte", "nt-Ty", "pe: te", "xt/pl",
		"ain; charset=utf-8\r\nContent-Len", "gth: 3", "\r\n\r", "\nab",
		"c",
	};
	struct httpresp	 r;
	struct buf	 body;
	enum httpresp_state st;
	size_t		 i, off, len, used;
	int		 heads = 0;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	st = HTTPRESP_MORE;
	for (i = 0; i < nitems(pieces); i++) {
		len = strlen(pieces[i]);
		for (off = 0; off < len; off += used) {
			st = httpresp_feed(&r, pieces[i] + off, len - off,
			    &used);
			if (st == HTTPRESP_HEAD) {
				heads++;
				assert_string_equal(r.ctype,
				    "text/plain; charset=utf-8");
				assert_true(r.content_length == 3);
				continue;
			}
			assert_int_equal(used, len - off);
			assert_int_equal(st, i < nitems(pieces) - 1 ?
			    HTTPRESP_MORE : HTTPRESP_DONE);
		}
	}
	assert_int_equal(heads, 1);
	assert_int_equal(st, HTTPRESP_DONE);
	assert_int_equal(body.len, 3);
	assert_memory_equal(body.data, "abc", 3);
	buf_free(&body);
}

#define CHUNKED_HEAD	"HTTP/1.1 200 OK\r\n" \
			"Content-Type: text/plain\r\n" \
			"Transfer-Encoding: chunked\r\n" \
			"\r\n"
#define CHUNKED		CHUNKED_HEAD \
			"10\r\nversion: STSv1\r\n\r\n" \
			"e;name=value\r\nmode: enforce\n\r\n" \
			"1;a;b=\"q s\"\r\nm\r\n" \
			"14\r\nx: mail.example.com\n\r\n" \
			"0\r\n" \
			"X-Trailer: t\r\n" \
			"\r\n"
#define CHUNKED_BODY	"version: STSv1\r\nmode: enforce\nmx: mail.example.com\n"

/* chunks, chunk extensions and a trailer: the body decoded exactly */
static void
chunked_body(void **state)
{
	struct result	 res;

	(void)state;
	run_all(IN(CHUNKED), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.status, 200);
	assert_true(res.chunked);
	assert_true(res.content_length == -1);
	assert_string_equal(res.ctype, "text/plain");
	assert_int_equal(res.body_len, sizeof(CHUNKED_BODY) - 1);
	assert_memory_equal(res.body, CHUNKED_BODY, res.body_len);
	/* the decoded size is the limit: exactly enough */
	run_all(IN(CHUNKED), sizeof(CHUNKED_BODY) - 1, &res);
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_int_equal(res.body_len, sizeof(CHUNKED_BODY) - 1);
}

/* a trailer is not the head: its Content-Type changes nothing */
static void
chunked_trailer_not_head(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n"
	    "\r\n"
	    "2\r\nok\r\n"
	    "0\r\n"
	    "Content-Type: text/plain\r\n"
	    "\r\n";
	struct httpresp	 r;
	struct buf	 body;
	size_t		 used;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_feed(&r, IN(resp), &used), HTTPRESP_HEAD);
	assert_false(r.have_ctype);
	feed_one(&r, resp + used, sizeof(resp) - 1 - used, HTTPRESP_DONE,
	    sizeof(resp) - 1 - used);
	assert_false(r.have_ctype);
	assert_string_equal(r.ctype, "");
	assert_int_equal(body.len, 2);
	buf_free(&body);
}

/* a chunked body over max_body: ERROR, too_large, never over the limit
 * (run() checks body.len <= max_body after every call) */
static void
chunked_too_large(void **state)
{
	struct result	 res;

	(void)state;
	run_all(IN(CHUNKED), 20, &res);
	assert_int_equal(res.heads, 1);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_true(res.too_large);
	assert_true(res.body_len <= 20);
	assert_string_equal(res.why, "body exceeds 20 bytes");
	/* one byte short of the decoded size */
	run_all(IN(CHUNKED), sizeof(CHUNKED_BODY) - 2, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_true(res.too_large);
	/* no body allowed at all */
	run_all(IN(CHUNKED), 0, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_true(res.too_large);
	assert_int_equal(res.body_len, 0);
}

/* a Content-Length over max_body: HEAD says it; going on is ERROR */
static void
length_too_large(void **state)
{
	struct result	 res;

	(void)state;
	run_all(IN(PLAIN), 32, &res);
	assert_int_equal(res.heads, 1);
	assert_true(res.content_length == 33);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_true(res.too_large);
	assert_string_equal(res.why, "body exceeds 32 bytes");
	run_all(IN(PLAIN), 33, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.body_len, 33);
}

/* a body buf smaller than max_body: ERROR, but not too_large */
static void
buffer_smaller_than_max_body(void **state)
{
	struct httpresp	 r;
	struct buf	 body;
	size_t		 used;

	(void)state;
	buf_init(&body, 10);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_feed(&r, IN(PLAIN), &used), HTTPRESP_HEAD);
	assert_int_equal(httpresp_feed(&r, PLAIN + used,
	    sizeof(PLAIN) - 1 - used, &used), HTTPRESP_ERROR);
	assert_false(r.too_large);
	assert_string_equal(r.why, "body exceeds the buffer");
	assert_int_equal(body.len, 0);
	buf_free(&body);
}

#define NOLEN_BODY	"version: STSv1\r\nmode: testing\r\n"

/* no Content-Length, not chunked: the body ends at eof only */
static void
body_to_eof(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain\r\n"
	    "\r\n"
	    NOLEN_BODY;
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_MORE);	/* not DONE before eof */
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_true(res.content_length == -1);
	assert_false(res.chunked);
	assert_int_equal(res.body_len, sizeof(NOLEN_BODY) - 1);
	assert_memory_equal(res.body, NOLEN_BODY, res.body_len);
	/* and over max_body it is an ERROR before eof */
	run_all(IN(resp), 5, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_true(res.too_large);
}

/* HTTP/1.0 without a length: ends at eof as well */
static void
http10_body_to_eof(void **state)
{
	static const char resp[] = "HTTP/1.0 200 OK\r\n"
	    "Content-Type: text/plain\r\n"
	    "\r\n"
	    NOLEN_BODY;
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_MORE);
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_int_equal(res.status, 200);
	assert_int_equal(res.body_len, sizeof(NOLEN_BODY) - 1);
	assert_memory_equal(res.body, NOLEN_BODY, res.body_len);
}

/* a Content-Length body cut short by eof */
static void
length_cut_short(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 10\r\n"
	    "\r\n"
	    "abc";
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_MORE);
	assert_int_equal(res.end, HTTPRESP_ERROR);
	assert_false(res.too_large);
	assert_int_equal(res.body_len, 3);
	assert_string_equal(res.why, "connection closed after 3 of 10 body "
	    "bytes");
	/* and with nothing of the body */
	run_all(resp, sizeof(resp) - 4, TEST_MAX_BODY, &res);
	assert_int_equal(res.end, HTTPRESP_ERROR);
	assert_string_equal(res.why, "connection closed after 0 of 10 body "
	    "bytes");
}

/* a chunked body cut short by eof */
static void
chunked_cut_short(void **state)
{
	struct result	 res;
	size_t		 n;

	(void)state;
	/* up to the last chunk's "0\r\n": still short */
	n = strstr(CHUNKED, "0\r\nX-") - CHUNKED + 3;
	run_all(CHUNKED, n, TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_MORE);
	assert_int_equal(res.end, HTTPRESP_ERROR);
	assert_int_equal(res.body_len, sizeof(CHUNKED_BODY) - 1);
	assert_non_null(strstr(res.why, "before the last chunk"));
	/* all but the final CR LF */
	run_all(CHUNKED, sizeof(CHUNKED) - 3, TEST_MAX_BODY, &res);
	assert_int_equal(res.end, HTTPRESP_ERROR);
}

/* eof before any byte, and inside the head */
static void
eof_early(void **state)
{
	struct httpresp	 r;
	struct buf	 body;
	struct result	 res;
	size_t		 n;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_eof(&r), HTTPRESP_ERROR);
	assert_string_equal(r.why, "connection closed without a response");
	buf_free(&body);

	/* every proper prefix of the head */
	for (n = 1; n < sizeof(PLAIN_HEAD) - 1; n++) {
		run(PLAIN_HEAD, n, TEST_WHOLE, TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_MORE);
		assert_int_equal(res.end, HTTPRESP_ERROR);
		assert_int_equal(res.heads, 0);
		assert_string_equal(res.why,
		    "connection closed inside the response head");
	}
}

/* no bytes is not the end; used may be NULL */
static void
empty_feed(void **state)
{
	struct httpresp	 r;
	struct buf	 body;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	feed_one(&r, "", 0, HTTPRESP_MORE, 0);
	assert_int_equal(httpresp_feed(&r, IN("HTTP/1.1 204 No Content\r\n"),
	    NULL), HTTPRESP_MORE);
	feed_one(&r, "", 0, HTTPRESP_MORE, 0);
	feed_one(&r, IN("\r\n"), HTTPRESP_HEAD, 1);	/* stops at the LF */
	assert_int_equal(r.status, 204);
	feed_one(&r, IN("\n"), HTTPRESP_DONE, 1);
	buf_free(&body);
}

/* interim 1xx heads are skipped and their headers forgotten */
static void
interim_continue(void **state)
{
	static const char resp[] = "HTTP/1.1 100 Continue\r\n"
	    "Content-Type: text/html\r\n"
	    "\r\n"
	    "HTTP/1.1 103 Early Hints\r\n"
	    "Link: </style.css>; rel=preload\r\n"
	    "\r\n"
	    "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ok";
	static const char bare[] = "HTTP/1.1 100 Continue\r\n\r\n"
	    PLAIN;
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.heads, 1);
	assert_int_equal(res.status, 200);
	assert_false(res.have_ctype);
	assert_string_equal(res.ctype, "");
	assert_true(res.content_length == 2);
	assert_int_equal(res.body_len, 2);
	assert_memory_equal(res.body, "ok", 2);

	run_all(IN(bare), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.status, 200);
	assert_string_equal(res.ctype, "text/plain");
	assert_int_equal(res.body_len, sizeof(PLAIN_BODY) - 1);
}

/* an interim head has no body whatever it says (RFC 7230 §3.3.3): none of
 * its bytes reach the body */
static void
interim_has_no_body(void **state)
{
	static const char len[] = "HTTP/1.1 100 Continue\r\n"
	    "Content-Length: 5\r\n"
	    "\r\n"
	    "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ok";
	static const char chunked[] = "HTTP/1.1 100 Continue\r\n"
	    "Transfer-Encoding: chunked\r\n"
	    "\r\n"
	    "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ok";
	/* bytes that would be the interim's body are not a response */
	static const char smuggled[] = "HTTP/1.1 103 Early Hints\r\n"
	    "Content-Length: 3\r\n"
	    "\r\n"
	    "abcHTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ok";
	struct result	 res;

	(void)state;
	run_all(IN(len), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.status, 200);
	assert_int_equal(res.body_len, 2);
	assert_memory_equal(res.body, "ok", 2);
	run_all(IN(chunked), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.body_len, 2);
	assert_memory_equal(res.body, "ok", 2);
	run_all(IN(smuggled), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_int_equal(res.heads, 0);
	assert_int_equal(res.body_len, 0);
}

/* a 101 is not followed: it is an ERROR, and no byte is left untaken */
static void
switching_protocols(void **state)
{
	static const char upgrade[] = "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: h2c\r\n"
	    "Connection: Upgrade\r\n"
	    "\r\n"
	    PLAIN;
	static const char bare[] = "HTTP/1.1 101 Switching Protocols\r\n"
	    "\r\n"
	    PLAIN;
	struct result	 res;

	(void)state;
	run_all(IN(upgrade), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_int_equal(res.heads, 0);
	assert_non_null(strstr(res.why, "101"));
	run_all(IN(bare), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_ERROR);
	assert_int_equal(res.heads, 0);
}

/* what RFC 7230 refuses the parser refuses: ERROR, malformed */
static void
malformed_framing(void **state)
{
	static const char two_lengths[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "Content-Length: 3\r\n"
	    "\r\n"
	    "abc";
	static const char same_twice[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ab";
	static const char length_chunked[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "Transfer-Encoding: chunked\r\n"
	    "\r\n"
	    "2\r\nab\r\n0\r\n\r\n";
	static const char chunked_length[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "2\r\nab\r\n0\r\n\r\n";
	static const char bad_length[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2x\r\n"
	    "\r\n"
	    "ab";
	static const char bad_chunk[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n"
	    "\r\n"
	    "zz\r\nab\r\n0\r\n\r\n";
	static const struct {
		const char	*p;
		size_t		 n;
	} cases[] = {
		{ IN(two_lengths) }, { IN(same_twice) },
		{ IN(length_chunked) }, { IN(chunked_length) },
		{ IN(bad_length) }, { IN(bad_chunk) },
	};
	struct result	 res;
	size_t		 i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		run_all(cases[i].p, cases[i].n, TEST_MAX_BODY, &res);
		assert_int_equal(res.end, HTTPRESP_ERROR);
		assert_false(res.too_large);
		assert_true(strncmp(res.why, "malformed HTTP response: ",
		    25) == 0);
		/* a framing error in the head is found before HEAD */
		if (i < 5)
			assert_int_equal(res.heads, 0);
	}
}

/* padded_head - a head with one X-Pad header, total bytes long (CR LF
 * included); the result is malloc'ed */
static char *
padded_head(size_t total)
{
	static const char first[] = "HTTP/1.1 200 OK\r\nX-Pad: ";
	static const char last[] = "\r\nContent-Length: 0\r\n\r\n";
	char		*p;

	assert_true(total > sizeof(first) + sizeof(last));
	p = malloc(total);
	assert_non_null(p);
	memcpy(p, first, sizeof(first) - 1);
	memset(p + sizeof(first) - 1, 'a', total - (sizeof(first) - 1) -
	    (sizeof(last) - 1));
	memcpy(p + total - (sizeof(last) - 1), last, sizeof(last) - 1);
	return (p);
}

/* a head over HTTPRESP_HEAD_MAX: ERROR however it arrives */
static void
head_too_long(void **state)
{
	static const size_t steps[] = { TEST_WHOLE, 1, 1000, 16384, 32767,
	    32768, 32769, 40000 };
	struct result	 res;
	char		*p;
	size_t		 i, n = HTTPRESP_HEAD_MAX + 1000;

	(void)state;
	p = padded_head(n);
	for (i = 0; i < nitems(steps); i++) {
		run(p, n, steps[i], TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_ERROR);
		assert_int_equal(res.heads, 0);
		assert_string_equal(res.why, "response head longer than 32768 "
		    "bytes");
	}
	free(p);
	/* HTTPRESP_HEAD_MAX bytes are fine */
	n = HTTPRESP_HEAD_MAX;
	p = padded_head(n);
	for (i = 0; i < nitems(steps); i++) {
		run(p, n, steps[i], TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_DONE);
		assert_int_equal(res.status, 200);
	}
	free(p);
}

/* interim heads count toward the limit: an endless stream of them ends */
static void
interim_heads_too_long(void **state)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	static const size_t steps[] = { TEST_WHOLE, 1, 7, 16384 };
	struct result	 res;
	char		*p;
	size_t		 i, k, n, count;

	(void)state;
	count = HTTPRESP_HEAD_MAX / (sizeof(cont) - 1) + 1;
	n = count * (sizeof(cont) - 1) + sizeof(PLAIN) - 1;
	p = malloc(n);
	assert_non_null(p);
	for (k = 0; k < count; k++)
		memcpy(p + k * (sizeof(cont) - 1), cont, sizeof(cont) - 1);
	memcpy(p + k * (sizeof(cont) - 1), PLAIN, sizeof(PLAIN) - 1);
	for (i = 0; i < nitems(steps); i++) {
		run(p, n, steps[i], TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_ERROR);
		assert_int_equal(res.heads, 0);
		assert_non_null(strstr(res.why, "longer than"));
	}
	free(p);
}

/* not HTTP at all */
static void
garbage(void **state)
{
	static const char *const cases[] = {
		"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n",
		"<html><head><title>It works</title></head></html>\n",
		"version: STSv1\r\nmode: enforce\r\n",
		"220 mail.example.com ESMTP\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 0 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBad Header\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
	};
	struct result	 res;
	size_t		 i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		run_all(cases[i], strlen(cases[i]), TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_ERROR);
		assert_int_equal(res.heads, 0);
		assert_true(strncmp(res.why, "malformed HTTP response: ",
		    25) == 0);
	}
}

/* a redirect: HEAD with its status, for the caller to refuse */
static void
redirect_301(void **state)
{
	static const char resp[] = "HTTP/1.1 301 Moved Permanently\r\n"
	    "Location: https://mta-sts.elsewhere.example/.well-known/"
	    "mta-sts.txt\r\n"
	    "Content-Type: text/html\r\n"
	    "Content-Length: 5\r\n"
	    "\r\n"
	    "moved";
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.heads, 1);
	assert_int_equal(res.status, 301);
	assert_string_equal(res.ctype, "text/html");
	assert_true(res.content_length == 5);
	assert_int_equal(res.end, HTTPRESP_DONE);
}

/* a status the parser reads but nobody registered: reported as is */
static void
odd_status(void **state)
{
	static const char resp[] = "HTTP/1.1 599 Whatever\r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	static const char no_reason[] = "HTTP/1.1 404\r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	struct result	 res;

	(void)state;
	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.status, 599);
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_int_equal(res.body_len, 0);
	run_all(IN(no_reason), TEST_MAX_BODY, &res);
	assert_int_equal(res.status, 404);
	assert_int_equal(res.end, HTTPRESP_DONE);
}

/* a Content-Type longer than HTTPRESP_CTYPE_MAX is cut, NUL-terminated */
static void
ctype_cut(void **state)
{
	char		 resp[1024];
	struct result	 res;
	size_t		 i;
	int		 n;

	(void)state;
	n = snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain; x=");
	for (i = 0; i < 300; i++)
		resp[n++] = "abcdefghijklmnopqrstuvwxyz"[i % 26];
	n += snprintf(resp + n, sizeof(resp) - n, "\r\n"
	    "Content-Length: 0\r\n\r\n");
	run_all(resp, n, TEST_MAX_BODY, &res);
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_true(res.have_ctype);
	assert_int_equal(res.ctype_len, HTTPRESP_CTYPE_MAX - 1);
	assert_int_equal(res.ctype[HTTPRESP_CTYPE_MAX - 1], '\0');
	assert_int_equal(strlen(res.ctype), HTTPRESP_CTYPE_MAX - 1);
	assert_memory_equal(res.ctype, "text/plain; x=abc", 17);
	assert_memory_equal(res.ctype + 14, resp + 17 + 14 + 14,
	    HTTPRESP_CTYPE_MAX - 1 - 14);
}

/* the last of several Content-Type headers counts */
static void
ctype_last_counts(void **state)
{
	static const char two[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain; charset=utf-8; format=flowed\r\n"
	    "Content-Length: 0\r\n"
	    "Content-Type: a/b\r\n"
	    "\r\n";
	static const char empty_last[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain\r\n"
	    "Content-Type:\r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	struct result	 res;

	(void)state;
	run_all(IN(two), TEST_MAX_BODY, &res);
	assert_true(res.have_ctype);
	assert_string_equal(res.ctype, "a/b");
	assert_int_equal(res.ctype_len, 3);
	run_all(IN(empty_last), TEST_MAX_BODY, &res);
	assert_true(res.have_ctype);
	assert_string_equal(res.ctype, "");
}

/* header names: any case; only Content-Type itself */
static void
ctype_name(void **state)
{
	static const char mixed[] = "HTTP/1.1 200 OK\r\n"
	    "content-TYPE: text/plain\r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	static const char lookalikes[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Types: a/a\r\n"
	    "Content-Typ: b/b\r\n"
	    "X-Content-Type: c/c\r\n"
	    "Content-Type-Content-Type-Content-Type-Content-Type: d/d\r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	/* an empty value does not glue two names together */
	static const char after_empty[] = "HTTP/1.1 200 OK\r\n"
	    "X-Empty:\r\n"
	    "Content-Type: text/plain\r\n"
	    "X-Empty-Too: \r\n"
	    "Content-Length: 0\r\n"
	    "\r\n";
	struct result	 res;

	(void)state;
	run_all(IN(mixed), TEST_MAX_BODY, &res);
	assert_true(res.have_ctype);
	assert_string_equal(res.ctype, "text/plain");
	run_all(IN(lookalikes), TEST_MAX_BODY, &res);
	assert_int_equal(res.end, HTTPRESP_DONE);
	assert_false(res.have_ctype);
	assert_string_equal(res.ctype, "");
	run_all(IN(after_empty), TEST_MAX_BODY, &res);
	assert_true(res.have_ctype);
	assert_string_equal(res.ctype, "text/plain");
}

/* after DONE nothing more is taken: a pipelined second response */
static void
nothing_after_done(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 2\r\n"
	    "\r\n"
	    "ok"
	    "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 3\r\n"
	    "\r\n"
	    "bad";
	struct httpresp	 r;
	struct buf	 body;
	struct result	 res;
	size_t		 used, off;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_feed(&r, IN(resp), &used), HTTPRESP_HEAD);
	off = used;
	assert_int_equal(httpresp_feed(&r, resp + off, sizeof(resp) - 1 - off,
	    &used), HTTPRESP_DONE);
	off += used;
	/* exactly the first response */
	assert_int_equal(off, strstr(resp, "ok") + 2 - resp);
	feed_one(&r, resp + off, sizeof(resp) - 1 - off, HTTPRESP_DONE, 0);
	feed_one(&r, IN("more"), HTTPRESP_DONE, 0);
	assert_int_equal(httpresp_eof(&r), HTTPRESP_DONE);
	assert_int_equal(body.len, 2);
	assert_memory_equal(body.data, "ok", 2);
	assert_int_equal(r.status, 200);
	assert_true(r.content_length == 2);
	buf_free(&body);

	run_all(IN(resp), TEST_MAX_BODY, &res);
	assert_int_equal(res.fed, HTTPRESP_DONE);
	assert_int_equal(res.body_len, 2);
	assert_memory_equal(res.body, "ok", 2);
}

/* after ERROR nothing more is taken either */
static void
nothing_after_error(void **state)
{
	struct httpresp	 r;
	struct buf	 body;

	(void)state;
	buf_init(&body, TEST_MAX_BODY);
	httpresp_init(&r, &body, TEST_MAX_BODY);
	assert_int_equal(httpresp_feed(&r, IN("SSH-2.0-x\r\n"), NULL),
	    HTTPRESP_ERROR);
	feed_one(&r, IN(PLAIN), HTTPRESP_ERROR, 0);
	assert_int_equal(httpresp_eof(&r), HTTPRESP_ERROR);
	assert_int_equal(r.status, 0);
	assert_int_equal(body.len, 0);
	buf_free(&body);
}

/* bodiless statuses end at the head */
static void
no_body_statuses(void **state)
{
	static const char *const cases[] = {
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	};
	struct result	 res;
	size_t		 i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		run_all(cases[i], strlen(cases[i]), TEST_MAX_BODY, &res);
		assert_int_equal(res.fed, HTTPRESP_DONE);
		assert_int_equal(res.body_len, 0);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(plain_200),
	cmocka_unit_test(plain_200_every_split),
	cmocka_unit_test(header_split_across_feeds),
	cmocka_unit_test(chunked_body),
	cmocka_unit_test(chunked_trailer_not_head),
	cmocka_unit_test(chunked_too_large),
	cmocka_unit_test(length_too_large),
	cmocka_unit_test(buffer_smaller_than_max_body),
	cmocka_unit_test(body_to_eof),
	cmocka_unit_test(http10_body_to_eof),
	cmocka_unit_test(length_cut_short),
	cmocka_unit_test(chunked_cut_short),
	cmocka_unit_test(eof_early),
	cmocka_unit_test(empty_feed),
	cmocka_unit_test(interim_continue),
	cmocka_unit_test(interim_has_no_body),
	cmocka_unit_test(switching_protocols),
	cmocka_unit_test(malformed_framing),
	cmocka_unit_test(head_too_long),
	cmocka_unit_test(interim_heads_too_long),
	cmocka_unit_test(garbage),
	cmocka_unit_test(redirect_301),
	cmocka_unit_test(odd_status),
	cmocka_unit_test(ctype_cut),
	cmocka_unit_test(ctype_last_counts),
	cmocka_unit_test(ctype_name),
	cmocka_unit_test(nothing_after_done),
	cmocka_unit_test(nothing_after_error),
	cmocka_unit_test(no_body_statuses),
};

int
main(void)
{
	return (cmocka_run_group_tests_name("httpresp", tests, NULL, NULL));
}
