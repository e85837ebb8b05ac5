/*
 * report.c - the RFC 8460 §4 report of one policy domain and day, JSON
 *
 * Interface and format: report.h.  Pure.
 */
#include "autoconf.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/report.h"
#include "tlsrpt/result.h"

#define REPORT_DAY_SECONDS	86400

int64_t
report_day(int64_t t)
{
	int64_t	 d = t / REPORT_DAY_SECONDS * REPORT_DAY_SECONDS;

	return (d > t ? d - REPORT_DAY_SECONDS : d);
}

const char *
report_day_name(int64_t day, char *out)
{
	time_t		 t = (time_t)day;
	struct tm	 tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, REPORT_DAY_LEN, "%Y-%m-%d", &tm) == 0)
		snprintf(out, REPORT_DAY_LEN, "0000-00-00");
	return (out);
}

/* report_lines - a JSON array of the '\n'-ended lines p[0..len) */
static void
report_lines(struct buf *b, const char *p, size_t len)
{
	size_t	 s = 0, i;
	int	 first = 1;

	buf_append_char(b, '[');
	for (i = 0; i < len; i++) {
		if (p[i] != '\n')
			continue;
		if (!first)
			buf_append_char(b, ',');
		buf_json_str(b, p + s, i - s);
		first = 0;
		s = i + 1;
	}
	buf_append_char(b, ']');
}

/* report_u64 - ,"key":n */
static void
report_u64(struct buf *b, const char *key, uint64_t n)
{
	buf_json_key(b, key);
	buf_appendf(b, "%" PRIu64, n);
}

/* report_detail - one failure-details object */
static void
report_detail(struct buf *b, const struct report_meta *m,
    const struct agg_detail *d)
{
	buf_append_char(b, '{');
	buf_json_key(b, "result-type");
	buf_json_cstr(b, tlsrpt_result_name(d->result));
	if (d->sip[0] != '\0') {	/* a fleet report: the host's own */
		buf_json_key(b, "sending-mta-ip");
		buf_json_cstr(b, d->sip);
	} else if (m->sending_ip != NULL && m->sending_ip[0] != '\0') {
		buf_json_key(b, "sending-mta-ip");
		buf_json_cstr(b, m->sending_ip);
	}
	if (d->host[0] != '\0') {
		buf_json_key(b, "receiving-mx-hostname");
		buf_json_cstr(b, d->host);
	}
	if (d->addr[0] != '\0') {
		buf_json_key(b, "receiving-ip");
		buf_json_cstr(b, d->addr);
	}
	report_u64(b, "failed-session-count", d->count);
	if (d->reason[0] != '\0') {
		buf_json_key(b, "failure-reason-code");
		buf_json_cstr(b, d->reason);
	}
	buf_append_char(b, '}');
}

/* report_policy - one element of "policies" */
static void
report_policy(struct buf *b, const struct report_meta *m,
    const struct agg_policy *p, const char *tlsa, int details)
{
	size_t	 i;

	buf_append_str(b, "{\"policy\":{");
	buf_json_key(b, "policy-type");
	buf_json_cstr(b, tlsrpt_policy_type_name(p->type));
	if (p->type == TLSRPT_POLICY_TLSA) {
		if (tlsa != NULL && tlsa[0] != '\0') {
			buf_json_key(b, "policy-string");
			report_lines(b, tlsa, strlen(tlsa));
		}
	} else if (p->type == TLSRPT_POLICY_STS && p->strings.len > 0) {
		buf_json_key(b, "policy-string");
		report_lines(b, p->strings.data, p->strings.len);
	}
	buf_json_key(b, "policy-domain");
	buf_json_cstr(b, m->domain);
	if (p->type == TLSRPT_POLICY_STS && p->mx.len > 0) {
		buf_json_key(b, "mx-host");
		report_lines(b, p->mx.data, p->mx.len);
	} else if (p->type == TLSRPT_POLICY_TLSA && p->nhosts > 0) {
		buf_json_key(b, "mx-host");
		buf_append_char(b, '[');
		for (i = 0; i < p->nhosts; i++) {
			if (i > 0)
				buf_append_char(b, ',');
			buf_json_cstr(b, p->hosts[i]);
		}
		buf_append_char(b, ']');
	}
	buf_append_str(b, "},\"summary\":{");
	report_u64(b, "total-successful-session-count", p->success);
	report_u64(b, "total-failure-session-count", p->failure);
	buf_append_char(b, '}');
	if (details && p->ndetails > 0) {
		buf_json_key(b, "failure-details");
		buf_append_char(b, '[');
		for (i = 0; i < p->ndetails; i++) {
			if (i > 0)
				buf_append_char(b, ',');
			report_detail(b, m, &p->details[i]);
		}
		buf_append_char(b, ']');
	}
	buf_append_char(b, '}');
}

int
report_json(const struct report_meta *m, const struct agg *a,
    const char *const *tlsa, int details, struct buf *out)
{
	char	 day[REPORT_DAY_LEN];
	size_t	 i;

	report_day_name(m->day, day);
	buf_append_char(out, '{');
	buf_json_key(out, "organization-name");
	buf_json_cstr(out, m->organization);
	buf_json_key(out, "date-range");
	buf_appendf(out, "{\"start-datetime\":\"%sT00:00:00Z\","
	    "\"end-datetime\":\"%sT23:59:59Z\"}", day, day);
	buf_json_key(out, "contact-info");
	buf_json_cstr(out, m->contact);
	buf_json_key(out, "report-id");
	buf_json_cstr(out, m->report_id);
	buf_json_key(out, "policies");
	buf_append_char(out, '[');
	for (i = 0; i < a->npolicies; i++) {
		if (i > 0)
			buf_append_char(out, ',');
		report_policy(out, m, &a->policies[i],
		    tlsa != NULL ? tlsa[i] : NULL, details);
	}
	buf_append_str(out, "]}\n");
	return (out->error ? -1 : 0);
}
