/*
 * test_mime.c - unit tests for the report file and mail of
 * postsmtpsts-tlsrpt (tlsrpt/mime.c, RFC 8460 §5.1-5.3)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <zlib.h>

#include "lib/buf.h"
#include "tlsrpt/mime.h"

#define DAY	INT64_C(1796515200)	/* 2026-12-06T00:00:00Z */

/* gunzip - inflate a gzip stream into out (size *n); 0 or -1 */
static int
gunzip(const void *p, size_t len, unsigned char *out, size_t *n)
{
	z_stream z;
	int	 rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return (-1);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)*n;
	rc = inflate(&z, Z_FINISH);
	*n = z.total_out;
	inflateEnd(&z);
	return (rc == Z_STREAM_END ? 0 : -1);
}

/* gzip_round_trip - what mime_gzip makes gunzips to the input, and the
 * same input gives the same bytes (a retried report is the same) */
static void
gzip_round_trip(void **state)
{
	struct buf	 a, b;
	char		*in = malloc(200000);
	unsigned char	*out = malloc(200001);
	size_t		 n = 200001, i;

	(void)state;
	assert_non_null(in);
	assert_non_null(out);
	for (i = 0; i < 200000; i++)
		in[i] = "{\"policies\":[]}"[i % 15];
	buf_init(&a, 1 << 20);
	buf_init(&b, 1 << 20);
	assert_int_equal(mime_gzip(in, 200000, &a), 0);
	assert_true(a.len < 10000);
	assert_int_equal((unsigned char)a.data[0], 0x1f);	/* RFC 1952 */
	assert_int_equal((unsigned char)a.data[1], 0x8b);
	assert_int_equal(gunzip(a.data, a.len, out, &n), 0);
	assert_int_equal(n, 200000);
	assert_memory_equal(out, in, n);
	assert_int_equal(mime_gzip(in, 200000, &b), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	/* empty input, and a buffer too small: -1, never half */
	buf_reset(&a);
	assert_int_equal(mime_gzip("", 0, &a), 0);
	n = 10;
	assert_int_equal(gunzip(a.data, a.len, out, &n), 0);
	assert_int_equal(n, 0);
	buf_free(&b);
	buf_init(&b, 16);
	assert_int_equal(mime_gzip(in, 200000, &b), -1);
	buf_free(&a);
	buf_free(&b);
	free(in);
	free(out);
}

/* base64 - RFC 4648 §10 vectors, and lines of 76 */
static void
base64(void **state)
{
	static const struct { const char *in, *out; } v[] = {
		{ "", "" }, { "f", "Zg==\n" }, { "fo", "Zm8=\n" },
		{ "foo", "Zm9v\n" }, { "foob", "Zm9vYg==\n" },
		{ "fooba", "Zm9vYmE=\n" }, { "foobar", "Zm9vYmFy\n" },
	};
	struct buf	 b;
	char		 in[100];
	size_t		 i;

	(void)state;
	buf_init(&b, 4096);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		buf_reset(&b);
		mime_base64(v[i].in, strlen(v[i].in), &b);
		assert_non_null(buf_cstr(&b));
		assert_string_equal(b.data, v[i].out);
	}
	memset(in, 0, sizeof(in));
	buf_reset(&b);
	mime_base64(in, 57, &b);	/* 57 bytes: exactly one line */
	assert_int_equal(b.len, 77);
	buf_reset(&b);
	mime_base64(in, 58, &b);
	assert_int_equal(b.len, 77 + 5);
	assert_int_equal(b.data[76], '\n');
	buf_free(&b);
}

/* message - the §5.3 mail: headers, parts, the attachment's name */
static void
message(void **state)
{
	struct mime_report m;
	struct buf	 b;
	char		 file[MIME_FILENAME_LEN];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.from = "tlsrpt@mail.sender.example";
	m.to = "reports@d.example";
	m.domain = "d.example";
	m.submitter = "mail.sender.example";
	m.organization = "Sender, Inc.";
	m.report_id = "20261206.d.example@mail.sender.example";
	m.msgid = "<tlsrpt.20261206.0.d.example@mail.sender.example>";
	m.day = DAY;
	m.now = DAY + 86400 + 3600;
	m.gz = "\x1f\x8bxyz";
	m.gzlen = 5;
	buf_init(&b, 65536);
	assert_int_equal(mime_message(&m, &b), 0);
	assert_non_null(buf_cstr(&b));
	assert_non_null(strstr(b.data, "\nTo: <reports@d.example>\n"));
	assert_non_null(strstr(b.data, "Subject: Report Domain: d.example\n "
	    "Submitter: mail.sender.example\n Report-ID: "
	    "<20261206.d.example@mail.sender.example>\n"));
	assert_non_null(strstr(b.data, "\nDate: Mon, 07 Dec 2026 01:00:00 "
	    "+0000\n"));
	assert_non_null(strstr(b.data, "\nTLS-Report-Domain: d.example\n"));
	assert_non_null(strstr(b.data, "\nTLS-Report-Submitter: "
	    "mail.sender.example\n"));
	assert_non_null(strstr(b.data, "\nTLS-Required: No\n"));
	assert_non_null(strstr(b.data, "Content-Type: multipart/report; "
	    "report-type=\"tlsrpt\";\n boundary="));
	assert_non_null(strstr(b.data, "Content-Type: application/tlsrpt+gzip"
	    "\nContent-Transfer-Encoding: base64\n"));
	assert_non_null(strstr(b.data, "filename=\"mail.sender.example!"
	    "d.example!1796515200!1796601599.json.gz\""));
	assert_non_null(strstr(b.data, "\nH4t4eXo=\n"));
	assert_string_equal(mime_filename(file, "s.example", "d.example", DAY),
	    "s.example!d.example!1796515200!1796601599.json.gz");
	buf_free(&b);
}

/* injection - no value with a CR, LF or other control byte goes into a
 * header, nor a blank into an address */
static void
injection(void **state)
{
	struct mime_report m;
	struct buf	 b;
	const char	*bad[] = { "a@b.example\nBcc: c@d.example",
	    "a@b.example\r", "a b@c.example", "", NULL };
	size_t		 i;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.from = "tlsrpt@s.example";
	m.domain = "d.example";
	m.submitter = "s.example";
	m.organization = "Org";
	m.report_id = "x@s.example";
	m.msgid = "<x@s.example>";
	m.gz = "x";
	m.gzlen = 1;
	buf_init(&b, 65536);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.to = bad[i];
		buf_reset(&b);
		assert_int_equal(mime_message(&m, &b), -1);
	}
	m.to = "r@d.example";
	m.organization = "Org\nX-Evil: 1";
	assert_int_equal(mime_message(&m, &b), -1);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gzip_round_trip),
		cmocka_unit_test(base64),
		cmocka_unit_test(message),
		cmocka_unit_test(injection),
	};

	return (cmocka_run_group_tests_name("mime", tests, NULL, NULL));
}
