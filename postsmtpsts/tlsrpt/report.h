/*
 * report.h - the RFC 8460 §4 report of one policy domain and day, JSON
 *
 * NAME
 *	report - build the JSON of an aggregate report
 * SYNOPSIS
 *	report_json(&meta, &agg, tlsa, details, &buf)
 *	report_day_name(day, out)	"2026-12-06"
 * DESCRIPTION
 *	The report object of RFC 8460 §4 (field names and nesting as in
 *	§4.1 and its Figure 2, checked by tests/unit/tlsrpt-report.schema
 *	.json):
 *	  organization-name, date-range {start-datetime, end-datetime} (the
 *	  UTC day, RFC 3339, §4.1: 00:00:00Z to 23:59:59Z), contact-info,
 *	  report-id, policies [ {policy {policy-type, policy-string,
 *	  policy-domain, mx-host}, summary {total-successful-session-count,
 *	  total-failure-session-count}, failure-details [ {result-type,
 *	  sending-mta-ip, receiving-mx-hostname, receiving-ip,
 *	  failed-session-count, failure-reason-code} ]} ]
 *	policy-string is the policy's lines (sts) or the TLSA records
 *	(tlsa: passed in tlsa[i] for policy i, '\n'-separated, looked up at
 *	report time) and left out when there are none (no-policy-found, a
 *	policy that could not be fetched); mx-host is the policy's mx
 *	patterns (sts) or the MX hosts the sessions went to (tlsa);
 *	sending-mta-ip only when configured (Postfix does not log it).
 *	failure-details are left out with details = 0 (a report over the
 *	size cap is sent with its counts only).
 *
 *	Strings are written by buf_json_str(); every string that goes in
 *	is ASCII (domains are A-labels, reasons printable ASCII, the
 *	configured names are checked), so the JSON is plain UTF-8.  The
 *	output is deterministic: the same day and counts give the same
 *	bytes (a retried report is the same report).
 */
#ifndef TLSRPT_REPORT_H
#define TLSRPT_REPORT_H

#include <stdint.h>

#include "lib/buf.h"
#include "tlsrpt/agg.h"

#define REPORT_DAY_LEN	11	/* "YYYY-MM-DD" + NUL */

struct report_meta {
	const char	*organization;	/* organization-name */
	const char	*contact;	/* contact-info */
	const char	*report_id;	/* report-id */
	const char	*domain;	/* policy-domain */
	const char	*sending_ip;	/* sending-mta-ip, or NULL */
	int64_t		 day;		/* Unix time of 00:00:00Z */
};

/* report_json - append the report to out: 0, or -1 if out overflowed */
int	report_json(const struct report_meta *m, const struct agg *a,
	    const char *const *tlsa, int details, struct buf *out);

/* report_day_name - "YYYY-MM-DD" of the UTC day starting at day into out
 * (REPORT_DAY_LEN bytes); returns out */
const char *report_day_name(int64_t day, char *out);

/* report_day - the start (00:00:00Z) of the UTC day holding t */
int64_t	report_day(int64_t t);

#endif
