/*
 * test_report.c - unit tests for the JSON of postsmtpsts-tlsrpt's reports
 * (tlsrpt/report.c, RFC 8460 §4)
 *
 * Each case builds a day's counts and compares the JSON byte for byte.
 * With TLSRPT_SAMPLE_DIR set (tests/unit/tlsrpt-schema.sh), every JSON
 * is also written there as <case>.json, and the script checks them
 * against the RFC 8460 schema (tlsrpt-report.schema.json).
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
#include "tlsrpt/agg.h"
#include "tlsrpt/report.h"

#define DAY	INT64_C(1796515200)	/* 2026-12-06T00:00:00Z */

/* check - the JSON of a for meta m is want; saved as name.json */
static void
check(const char *name, const struct report_meta *m, const struct agg *a,
    const char *const *tlsa, int details, const char *want)
{
	const char	*dir = getenv("TLSRPT_SAMPLE_DIR");
	struct buf	 b;
	char		 path[4096];
	FILE		*f;

	buf_init(&b, 1 << 20);
	assert_int_equal(report_json(m, a, tlsa, details, &b), 0);
	assert_non_null(buf_cstr(&b));
	if (dir != NULL) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, name);
		assert_non_null(f = fopen(path, "w"));
		fwrite(b.data, 1, b.len, f);
		fclose(f);
	}
	if (strcmp(b.data, want) != 0)
		fail_msg("got  %s\nwant %s", b.data, want);
	buf_free(&b);
}

static const struct report_meta meta = {
	"Example Sender", "mailto:tlsrpt@sender.example",
	"20261206.d.example@mail.sender.example", "d.example", NULL, DAY
};

/* sts - an enforce policy: successes and two kinds of failure */
static void
sts(void **state)
{
	static const char lines[] = "version: STSv1\nmode: enforce\n"
	    "mx: mx1.d.example\nmx: *.m.d.example\nmax_age: 86400\n";
	static const char mx[] = "mx1.d.example\n*.m.d.example\n";
	struct agg_desc d = { TLSRPT_POLICY_STS, lines, sizeof(lines) - 1, mx,
	    sizeof(mx) - 1 };
	struct agg	 a;

	(void)state;
	agg_init(&a);
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &d, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &d, "a.m.d.example", "192.0.2.2",
	    TLSRPT_RESULT_HOST_MISMATCH, "num=62:hostname mismatch");
	agg_add(&a, &d, "a.m.d.example", "192.0.2.2", TLSRPT_RESULT_STARTTLS,
	    "TLS is required, but was not offered by host "
	    "a.m.d.example[192.0.2.2]");
	check("sts", &meta, &a, NULL, 1, "{\"organization-name\":\"Example "
	    "Sender\",\"date-range\":{\"start-datetime\":\"2026-12-06T00:00:00Z"
	    "\",\"end-datetime\":\"2026-12-06T23:59:59Z\"},\"contact-info\":"
	    "\"mailto:tlsrpt@sender.example\",\"report-id\":\"20261206."
	    "d.example@mail.sender.example\",\"policies\":[{\"policy\":{"
	    "\"policy-type\":\"sts\",\"policy-string\":[\"version: STSv1\","
	    "\"mode: enforce\",\"mx: mx1.d.example\",\"mx: *.m.d.example\","
	    "\"max_age: 86400\"],\"policy-domain\":\"d.example\",\"mx-host\":"
	    "[\"mx1.d.example\",\"*.m.d.example\"]},\"summary\":{"
	    "\"total-successful-session-count\":2,"
	    "\"total-failure-session-count\":2},\"failure-details\":[{"
	    "\"result-type\":\"certificate-host-mismatch\","
	    "\"receiving-mx-hostname\":\"a.m.d.example\",\"receiving-ip\":"
	    "\"192.0.2.2\",\"failed-session-count\":1,\"failure-reason-code\":"
	    "\"num=62:hostname mismatch\"},{\"result-type\":"
	    "\"starttls-not-supported\",\"receiving-mx-hostname\":"
	    "\"a.m.d.example\",\"receiving-ip\":\"192.0.2.2\","
	    "\"failed-session-count\":1,\"failure-reason-code\":\"TLS is "
	    "required, but was not offered by host a.m.d.example[192.0.2.2]\"}"
	    "]}]}\n");
	/* over the size cap: the counts alone */
	check("sts-counts-only", &meta, &a, NULL, 0, "{\"organization-name\":"
	    "\"Example Sender\",\"date-range\":{\"start-datetime\":"
	    "\"2026-12-06T00:00:00Z\",\"end-datetime\":\"2026-12-06T23:59:59Z\""
	    "},\"contact-info\":\"mailto:tlsrpt@sender.example\",\"report-id\":"
	    "\"20261206.d.example@mail.sender.example\",\"policies\":[{"
	    "\"policy\":{\"policy-type\":\"sts\",\"policy-string\":[\"version: "
	    "STSv1\",\"mode: enforce\",\"mx: mx1.d.example\",\"mx: "
	    "*.m.d.example\",\"max_age: 86400\"],\"policy-domain\":"
	    "\"d.example\",\"mx-host\":[\"mx1.d.example\",\"*.m.d.example\"]},"
	    "\"summary\":{\"total-successful-session-count\":2,"
	    "\"total-failure-session-count\":2}}]}\n");
	agg_free(&a);
}

/* tlsa_and_none - a DANE policy with its TLSA records, a policy that
 * could not be fetched, no policy: three policies in one report */
static void
tlsa_and_none(void **state)
{
	struct agg_desc	 dt = { TLSRPT_POLICY_TLSA, "", 0, "", 0 };
	struct agg_desc	 df = { TLSRPT_POLICY_STS, "", 0, "", 0 };
	struct agg_desc	 dn = { TLSRPT_POLICY_NONE, "", 0, "", 0 };
	const char	*tlsa[] = { "3 1 1 abcd\n2 0 1 ef01\n", NULL, NULL };
	struct report_meta m = meta;
	struct agg	 a;

	(void)state;
	m.sending_ip = "192.0.2.99";
	agg_init(&a);
	agg_add(&a, &dt, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	agg_add(&a, &dt, "mx1.d.example", "192.0.2.1",
	    TLSRPT_RESULT_TLSA_INVALID, "num=65:no matching DANE TLSA records");
	agg_add(&a, &df, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_STS_FETCH,
	    "");
	agg_add(&a, &dn, "mx1.d.example", "192.0.2.1", TLSRPT_RESULT_NONE, "");
	check("tlsa-and-none", &m, &a, tlsa, 1, "{\"organization-name\":"
	    "\"Example Sender\",\"date-range\":{\"start-datetime\":"
	    "\"2026-12-06T00:00:00Z\",\"end-datetime\":\"2026-12-06T23:59:59Z\""
	    "},\"contact-info\":\"mailto:tlsrpt@sender.example\",\"report-id\":"
	    "\"20261206.d.example@mail.sender.example\",\"policies\":[{"
	    "\"policy\":{\"policy-type\":\"tlsa\",\"policy-string\":[\"3 1 1 "
	    "abcd\",\"2 0 1 ef01\"],\"policy-domain\":\"d.example\","
	    "\"mx-host\":[\"mx1.d.example\"]},\"summary\":{"
	    "\"total-successful-session-count\":1,"
	    "\"total-failure-session-count\":1},\"failure-details\":[{"
	    "\"result-type\":\"tlsa-invalid\",\"sending-mta-ip\":\"192.0.2.99\","
	    "\"receiving-mx-hostname\":\"mx1.d.example\",\"receiving-ip\":"
	    "\"192.0.2.1\",\"failed-session-count\":1,\"failure-reason-code\":"
	    "\"num=65:no matching DANE TLSA records\"}]},{\"policy\":{"
	    "\"policy-type\":\"sts\",\"policy-domain\":\"d.example\"},"
	    "\"summary\":{\"total-successful-session-count\":0,"
	    "\"total-failure-session-count\":1},\"failure-details\":[{"
	    "\"result-type\":\"sts-policy-fetch-error\",\"sending-mta-ip\":"
	    "\"192.0.2.99\",\"receiving-mx-hostname\":\"mx1.d.example\","
	    "\"receiving-ip\":\"192.0.2.1\",\"failed-session-count\":1}]},{"
	    "\"policy\":{\"policy-type\":\"no-policy-found\",\"policy-domain\":"
	    "\"d.example\"},\"summary\":{\"total-successful-session-count\":1,"
	    "\"total-failure-session-count\":0}}]}\n");
	agg_free(&a);
}

/* escaping - quotes, backslashes and control bytes in a reason */
static void
escaping(void **state)
{
	struct agg_desc	 dn = { TLSRPT_POLICY_NONE, "", 0, "", 0 };
	struct report_meta m = meta;
	struct agg	 a;
	struct buf	 b;

	(void)state;
	m.organization = "A \"B\" \\ C";
	agg_init(&a);
	agg_add(&a, &dn, "", "", TLSRPT_RESULT_VALIDATION, "x\"y\\z\t");
	buf_init(&b, 4096);
	assert_int_equal(report_json(&m, &a, NULL, 1, &b), 0);
	assert_non_null(buf_cstr(&b));
	assert_non_null(strstr(b.data, "\"A \\\"B\\\" \\\\ C\""));
	assert_non_null(strstr(b.data, "\"x\\\"y\\\\z\\u0009\""));
	assert_null(strstr(b.data, "receiving-ip"));
	buf_free(&b);
	/* a buffer too small is an error, never a cut report */
	buf_init(&b, 100);
	assert_int_equal(report_json(&m, &a, NULL, 1, &b), -1);
	buf_free(&b);
	agg_free(&a);
}

/* days - UTC day boundaries and names */
static void
days(void **state)
{
	char	 n[REPORT_DAY_LEN];

	(void)state;
	assert_true(report_day(DAY) == DAY);
	assert_true(report_day(DAY + 86399) == DAY);
	assert_true(report_day(DAY + 86400) == DAY + 86400);
	assert_true(report_day(DAY - 1) == DAY - 86400);
	assert_string_equal(report_day_name(DAY, n), "2026-12-06");
	assert_string_equal(report_day_name(0, n), "1970-01-01");
	assert_true(report_day(-1) == -86400);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sts),
		cmocka_unit_test(tlsa_and_none),
		cmocka_unit_test(escaping),
		cmocka_unit_test(days),
	};

	return (cmocka_run_group_tests_name("report", tests, NULL, NULL));
}
