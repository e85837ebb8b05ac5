/*
 * mime.h - a report as a file and as a mail (RFC 8460 §5.1-5.3)
 *
 * NAME
 *	mime - gzip, base64, the report's file name and its mail
 * SYNOPSIS
 *	mime_gzip(p, len, &out)
 *	mime_base64(p, len, &out)
 *	mime_filename(out, submitter, domain, day)
 *	mime_message(&m, &out)
 * DESCRIPTION
 *	§5.2: the report is gzip'd (zlib, RFC 1952; no file name and time 0
 *	in the gzip header, so the same report gives the same bytes).
 *	§5.1: its file name is "submitter!policy-domain!begin!end.json.gz",
 *	begin and end the day's first and last second (Unix time).
 *	§5.3: the mail is a multipart/report; report-type="tlsrpt" with a
 *	text/plain part for people and the report as application/
 *	tlsrpt+gzip (base64, RFC 2045 lines of 76), headers From, To,
 *	Subject ("Report Domain: D Submitter: S Report-ID: <ID>", folded),
 *	Date, Message-ID, MIME-Version, TLS-Report-Domain,
 *	TLS-Report-Submitter, and TLS-Required: No (RFC 8689 §5: Postfix
 *	3.10 then delivers the report even where the TLS policy of the
 *	receiving domain cannot be met, as §5.3 asks: "MUST deliver
 *	reports despite any TLS-related failures"; older Postfix ignores
 *	it).  Lines end with LF (sendmail(1) takes them so).
 *
 *	Every value that goes into a header is checked by the caller's
 *	source (rua.h for the recipient, config_tlsrpt.c for ours, A-labels
 *	for domains); mime_message() refuses, all the same, any value with
 *	a byte outside printable ASCII: no header can be injected.
 * LIMITS
 *	None of its own: the caller's buffers bound the output.
 */
#ifndef TLSRPT_MIME_H
#define TLSRPT_MIME_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define MIME_FILENAME_LEN	(2 * 254 + 2 * 21 + 16)

struct mime_report {
	const char	*from;		/* our sender address */
	const char	*to;		/* the rua mailbox */
	const char	*domain;	/* TLS-Report-Domain */
	const char	*submitter;	/* TLS-Report-Submitter */
	const char	*organization;	/* for the text part */
	const char	*report_id;	/* Report-ID: <report_id> */
	const char	*msgid;		/* Message-ID, with its brackets */
	int64_t		 day;		/* the report's UTC day */
	int64_t		 now;		/* Date: */
	const void	*gz;		/* the gzip'd report */
	size_t		 gzlen;
};

/* mime_gzip - the gzip of p[0..len) appended to out: 0, or -1 */
int	mime_gzip(const void *p, size_t len, struct buf *out);

/* mime_base64 - p[0..len) in base64, 76 characters and "\n" per line */
void	mime_base64(const void *p, size_t len, struct buf *out);

/* mime_filename - the §5.1 file name into out (MIME_FILENAME_LEN) */
const char *mime_filename(char *out, const char *submitter,
	    const char *domain, int64_t day);

/* mime_message - the whole mail appended to out: 0, or -1 (a value that
 * may not go into a header, or out overflowed) */
int	mime_message(const struct mime_report *m, struct buf *out);

#endif
