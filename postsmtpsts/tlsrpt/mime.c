/*
 * mime.c - a report as a file and as a mail (RFC 8460 §5.1-5.3)
 *
 * Interface and format: mime.h.  zlib does the compression (deflate with
 * a gzip wrapper, windowBits 15 + 16).  Pure but for zlib's allocations.
 */
#include "autoconf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "lib/buf.h"
#include "tlsrpt/mime.h"
#include "tlsrpt/report.h"

#define MIME_LINE	76	/* RFC 2045 §6.8 */

int
mime_gzip(const void *p, size_t len, struct buf *out)
{
	z_stream	 z;
	unsigned char	 chunk[16384];
	int		 rc, flush;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer (RFC 1952), default time 0 */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return (-1);
	z.next_in = (Bytef *)(uintptr_t)p;
	do {
		/* zlib counts in uInt: feed it in pieces */
		z.avail_in = len > 1u << 30 ? 1u << 30 : (uInt)len;
		len -= z.avail_in;
		flush = len == 0 ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			if ((rc = deflate(&z, flush)) == Z_STREAM_ERROR) {
				deflateEnd(&z);
				return (-1);
			}
			buf_append(out, chunk, sizeof(chunk) - z.avail_out);
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	return (rc == Z_STREAM_END && !out->error ? 0 : -1);
}

void
mime_base64(const void *p, size_t len, struct buf *out)
{
	static const char a[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = p;
	size_t		 i, col = 0;
	uint32_t	 v;
	char		 q[4];

	for (i = 0; i < len; i += 3) {
		v = (uint32_t)s[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < len)
			v |= s[i + 2];
		q[0] = a[v >> 18 & 63];
		q[1] = a[v >> 12 & 63];
		q[2] = i + 1 < len ? a[v >> 6 & 63] : '=';
		q[3] = i + 2 < len ? a[v & 63] : '=';
		buf_append(out, q, 4);
		if ((col += 4) == MIME_LINE) {
			buf_append_char(out, '\n');
			col = 0;
		}
	}
	if (col > 0)
		buf_append_char(out, '\n');
}

const char *
mime_filename(char *out, const char *submitter, const char *domain,
    int64_t day)
{
	snprintf(out, MIME_FILENAME_LEN, "%s!%s!%" PRId64 "!%" PRId64
	    ".json.gz", submitter, domain, day, day + 86399);
	return (out);
}

/* mime_ok - a value fit for a header: printable ASCII, no blank where
 * the header takes a token */
static int
mime_ok(const char *s, int blanks)
{
	if (s == NULL || *s == '\0')
		return (0);
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e ||
		    (!blanks && *s == ' '))
			return (0);
	return (1);
}

int
mime_message(const struct mime_report *m, struct buf *out)
{
	char		 date[64], day[REPORT_DAY_LEN];
	char		 file[MIME_FILENAME_LEN], boundary[96];
	time_t		 t = (time_t)m->now;
	struct tm	 tm;

	if (!mime_ok(m->from, 0) || !mime_ok(m->to, 0) ||
	    !mime_ok(m->domain, 0) || !mime_ok(m->submitter, 0) ||
	    !mime_ok(m->report_id, 0) || !mime_ok(m->msgid, 0) ||
	    !mime_ok(m->organization, 1) || gmtime_r(&t, &tm) == NULL ||
	    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000",
	    &tm) == 0)
		return (-1);
	report_day_name(m->day, day);
	mime_filename(file, m->submitter, m->domain, m->day);
	/* no base64 character is '-' or '_': the boundary cannot occur in
	 * the attachment, nor in the text we write */
	snprintf(boundary, sizeof(boundary), "----_tlsrpt_%" PRId64 "_%s",
	    m->day, m->submitter);
	buf_appendf(out, "From: <%s>\n", m->from);
	buf_appendf(out, "To: <%s>\n", m->to);
	buf_appendf(out, "Subject: Report Domain: %s\n Submitter: %s\n "
	    "Report-ID: <%s>\n", m->domain, m->submitter, m->report_id);
	buf_appendf(out, "Date: %s\n", date);
	buf_appendf(out, "Message-ID: %s\n", m->msgid);
	buf_append_str(out, "MIME-Version: 1.0\n");
	buf_appendf(out, "TLS-Report-Domain: %s\n", m->domain);
	buf_appendf(out, "TLS-Report-Submitter: %s\n", m->submitter);
	buf_append_str(out, "TLS-Required: No\n");
	buf_appendf(out, "Auto-Submitted: auto-generated\n");
	buf_appendf(out, "Content-Type: multipart/report; "
	    "report-type=\"tlsrpt\";\n boundary=\"%s\"\n\n", boundary);
	buf_append_str(out, "This is a multipart message in MIME format.\n\n");
	buf_appendf(out, "--%s\nContent-Type: text/plain; charset=us-ascii\n"
	    "Content-Transfer-Encoding: 7bit\n\n", boundary);
	buf_appendf(out, "This is an aggregate TLS report (RFC 8460) from %s\n"
	    "(%s) for the mail it sent to %s on %s (UTC).\n"
	    "The report is attached.\n\n", m->organization, m->submitter,
	    m->domain, day);
	buf_appendf(out, "--%s\nContent-Type: application/tlsrpt+gzip\n"
	    "Content-Transfer-Encoding: base64\n"
	    "Content-Disposition: attachment;\n filename=\"%s\"\n\n",
	    boundary, file);
	mime_base64(m->gz, m->gzlen, out);
	buf_appendf(out, "\n--%s--\n", boundary);
	return (out->error ? -1 : 0);
}
