/*
 * test_stats.c - shared counters (stats.c), Prometheus text rendering,
 * and the metrics listener's request parser (metrics.c)
 */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "policy/discover.h"
#include "daemon/metrics.h"
#include "daemon/stats.h"

/* tmp_path - a fresh file name in a new temporary directory */
static char *
tmp_path(char *dir, size_t dirsz, char *path, size_t pathsz)
{
	snprintf(dir, dirsz, "/tmp/test_stats.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, pathsz, "%s/%s", dir, STATS_FILE);
	return (path);
}

/* tmp_clean - remove what tmp_path made */
static void
tmp_clean(const char *dir, const char *path)
{
	unlink(path);
	rmdir(dir);
}

static void
shared_across_fork_and_summed(void **state)
{
	struct stats_snapshot s;
	struct stat	 sb;
	char		 dir[64], path[128], err[256];
	pid_t		 pid;
	int		 status, i;

	(void)state;
	tmp_path(dir, sizeof(dir), path, sizeof(path));
	assert_int_equal(stats_create(path, 0, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal((size_t)sb.st_size, stats_file_size());

	/* before attach: a private dummy, not the file */
	stats_inc(STATS_REQUESTS);
	assert_int_equal(stats_read(path, &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[STATS_REQUESTS], 0);

	stats_attach(3);
	for (i = 0; i < 5; i++)
		stats_inc(STATS_REQUESTS);
	if ((pid = fork()) == 0) {
		/* another process, another slot, the same file */
		stats_attach(STATS_SLOT_RESOLVER);
		stats_add(STATS_REQUESTS, 7);
		stats_inc(STATS_REFRESHES);
		/* a restarted worker 3 keeps adding to slot 3 */
		stats_attach(3);
		stats_inc(STATS_REQUESTS);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);

	assert_int_equal(stats_read(path, &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[STATS_REQUESTS], 5 + 7 + 1);
	assert_int_equal(s.v[STATS_REFRESHES], 1);
	assert_int_equal(s.master_pid, getpid());
	assert_true(s.started > 0);
	/* the inherited mapping reads the same */
	memset(&s, 0, sizeof(s));
	assert_int_equal(stats_snapshot_self(&s), 0);
	assert_int_equal(s.v[STATS_REQUESTS], 13);

	stats_close();
	assert_int_equal(stats_snapshot_self(&s), -1);
	/* after close, counting goes to the dummy again, not the file */
	stats_inc(STATS_REQUESTS);
	assert_int_equal(stats_read(path, &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[STATS_REQUESTS], 13);
	tmp_clean(dir, path);
}

static void
read_refuses_other_layouts(void **state)
{
	struct stats_snapshot s;
	char		 dir[64], path[128], err[256];
	char		*buf;
	size_t		 len = stats_file_size();
	FILE		*fp;
	uint32_t	 v;

	(void)state;
	tmp_path(dir, sizeof(dir), path, sizeof(path));
	assert_int_equal(stats_read(path, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));

	/* a good file, then break each header field in turn */
	assert_int_equal(stats_create(path, 0, 0, 0, err, sizeof(err)), 0);
	stats_close();
	buf = malloc(len);
	assert_non_null(buf);
	assert_non_null(fp = fopen(path, "rb"));
	assert_int_equal(fread(buf, 1, len, fp), len);
	fclose(fp);
	assert_int_equal(stats_sum(buf, len, &s, err, sizeof(err)), 0);
	assert_int_equal(stats_sum(buf, len - 8, &s, err, sizeof(err)), -1);
	assert_int_equal(stats_sum(buf, 10, &s, err, sizeof(err)), -1);
	buf[0] = 'X';
	assert_int_equal(stats_sum(buf, len, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a postsmtpsts stats file"));
	buf[0] = 'P';
	memcpy(&v, buf + 8, 4);
	v++;
	memcpy(buf + 8, &v, 4);		/* version */
	assert_int_equal(stats_sum(buf, len, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "different builds"));
	v--;
	memcpy(buf + 8, &v, 4);
	memcpy(&v, buf + 16, 4);
	v++;
	memcpy(buf + 16, &v, 4);	/* counters per slot */
	assert_int_equal(stats_sum(buf, len, &s, err, sizeof(err)), -1);
	v--;
	memcpy(buf + 16, &v, 4);
	assert_int_equal(stats_sum(buf, len, &s, err, sizeof(err)), 0);

	/* a file of another size is refused before mapping */
	assert_non_null(fp = fopen(path, "ab"));
	fputc(0, fp);
	fclose(fp);
	assert_int_equal(stats_read(path, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a stats file of this build"));
	free(buf);
	tmp_clean(dir, path);
}

static void
latency_buckets(void **state)
{
	static const struct {
		uint64_t ns;
		int	 bucket;
	} cases[] = {
		{ 0, 0 }, { 1000, 0 }, { 100000, 0 }, { 100001, 1 },
		{ 250000, 1 }, { 499999, 2 }, { 1000000, 3 }, { 1000001, 4 },
		{ 999999999, 12 }, { 1000000000, 12 }, { 10000000000u, 15 },
		{ 10000000001u, 16 }, { UINT64_MAX, 16 },
	};
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(stats_latency_bucket(cases[i].ns),
		    cases[i].bucket);
}

static void
lookup_counts_source_answer_and_latency(void **state)
{
	uint64_t	 before[STATS_NCOUNTERS], t0;
	int		 i, n = 0;

	(void)state;
	stats_attach(-1);	/* the dummy */
	memcpy(before, stats_slot, sizeof(before));
	t0 = stats_clock();
	stats_lookup(STATS_SRC_CACHE, SOCKMAP_OK, "dane-only", 9, t0);
	stats_lookup(STATS_SRC_CACHE, SOCKMAP_OK, "secure match=.example.com",
	    25, t0);
	stats_lookup(STATS_SRC_DEADLINE, SOCKMAP_NOTFOUND, NULL, 0,
	    t0 - 3000000000u);
	stats_lookup(STATS_SRC_INVALID, (enum sockmap_status)99, NULL, 0, t0);
	assert_int_equal(stats_slot[STATS_LOOKUPS + STATS_SRC_CACHE *
	    STATS_ANSWER_COUNT + SOCKMAP_OK] - before[STATS_LOOKUPS +
	    STATS_SRC_CACHE * STATS_ANSWER_COUNT + SOCKMAP_OK], 2);
	assert_int_equal(stats_slot[STATS_LOOKUPS + STATS_SRC_DEADLINE *
	    STATS_ANSWER_COUNT + SOCKMAP_NOTFOUND] - before[STATS_LOOKUPS +
	    STATS_SRC_DEADLINE * STATS_ANSWER_COUNT + SOCKMAP_NOTFOUND], 1);
	/* an out-of-range status counts as perm, never out of the block */
	assert_int_equal(stats_slot[STATS_LOOKUPS + STATS_SRC_INVALID *
	    STATS_ANSWER_COUNT + SOCKMAP_PERM] - before[STATS_LOOKUPS +
	    STATS_SRC_INVALID * STATS_ANSWER_COUNT + SOCKMAP_PERM], 1);
	for (i = 0; i < STATS_LATENCY_BUCKETS; i++)
		n += (int)(stats_slot[STATS_LATENCY + i] -
		    before[STATS_LATENCY + i]);
	assert_int_equal(n, 4);
	/* and by the level of the answer: each lookup once */
#define A(l)	(stats_slot[STATS_ANSWERS + (l)] - before[STATS_ANSWERS + (l)])
	assert_int_equal(A(REQUIRETLS_LEVEL_DANE_ONLY), 1);
	assert_int_equal(A(REQUIRETLS_LEVEL_SECURE), 1);
	assert_int_equal(A(REQUIRETLS_LEVEL_NOTFOUND), 1);
	assert_int_equal(A(REQUIRETLS_LEVEL_OTHER), 1);
	n = 0;
	for (i = 0; i < REQUIRETLS_LEVEL_COUNT; i++)
		n += (int)A(i);
#undef A
	assert_int_equal(n, 4);
	/* the 3 s lookup is in the (2.5, 5] bucket */
	assert_int_equal(stats_slot[STATS_LATENCY + 14] -
	    before[STATS_LATENCY + 14], 1);
	assert_true(stats_slot[STATS_LATENCY_SUM_NS] -
	    before[STATS_LATENCY_SUM_NS] >= 3000000000u);
}

static void
discovery_counts_outcome_failure_dns_https(void **state)
{
	struct discover_result res;
	uint64_t	 b[STATS_NCOUNTERS];

	(void)state;
	stats_attach(-1);
	memcpy(b, stats_slot, sizeof(b));
	memset(&res, 0, sizeof(res));
	res.outcome = DISCOVER_FAILURE;
	res.failure = DISCOVER_FAIL_WEBPKI;
	res.txt_status = DNS_OK;
	res.txt_rcode = DNS_RCODE_NOERROR;
	res.tlsrpt_asked = 1;
	res.tlsrpt_status = DNS_ERR_TIMEOUT;
	res.fetched = 1;
	res.https_error = HTTPS_ERR_WEBPKI;
	stats_discovery(&res, 1);
#define D(id)	(stats_slot[id] - b[id])
	assert_int_equal(D(STATS_DISCOVERIES + STATS_DISCOVERY_OUTCOMES +
	    DISCOVER_FAILURE), 1);
	assert_int_equal(D(STATS_DISCOVERIES + DISCOVER_FAILURE), 0);
	assert_int_equal(D(STATS_DISCOVERY_FAIL + DISCOVER_FAIL_WEBPKI - 1),
	    1);
	assert_int_equal(D(STATS_DNS_ERRORS + STATS_DNS_TIMEOUT), 1);
	assert_int_equal(D(STATS_HTTPS_ERRORS_BASE + HTTPS_ERR_WEBPKI - 1), 1);

	/* the resolver's discoveries do not ask for TLSRPT: nothing counted
	 * for a lookup that did not happen */
	memcpy(b, stats_slot, sizeof(b));
	res.tlsrpt_asked = 0;
	stats_discovery(&res, 1);
	assert_int_equal(D(STATS_DNS_ERRORS + STATS_DNS_TIMEOUT), 0);

	memcpy(b, stats_slot, sizeof(b));
	memset(&res, 0, sizeof(res));
	res.outcome = DISCOVER_FAILURE;
	res.failure = DISCOVER_FAIL_DNS_SERVFAIL;
	res.txt_status = DNS_OK;
	res.txt_rcode = DNS_RCODE_SERVFAIL;
	res.tlsrpt_asked = 1;
	res.tlsrpt_status = DNS_OK;
	res.tlsrpt_security = DNS_BOGUS;
	res.addrs_checked = 1;
	res.aaaa_security = DNS_BOGUS;
	stats_discovery(&res, 0);
	assert_int_equal(D(STATS_DISCOVERIES + DISCOVER_FAILURE), 1);
	assert_int_equal(D(STATS_DNS_ERRORS + STATS_DNS_SERVFAIL), 1);
	assert_int_equal(D(STATS_DNS_ERRORS + STATS_DNS_BOGUS), 2);
	assert_int_equal(D(STATS_HTTPS_ERRORS_BASE + HTTPS_ERR_WEBPKI - 1), 0);

	memcpy(b, stats_slot, sizeof(b));
	memset(&res, 0, sizeof(res));
	res.outcome = DISCOVER_POLICY;
	res.txt_rcode = DNS_RCODE_NOERROR;
	res.tlsrpt_rcode = DNS_RCODE_NXDOMAIN;
	res.fetched = 1;
	stats_discovery(&res, 0);
	assert_int_equal(D(STATS_DISCOVERIES + DISCOVER_POLICY), 1);
	assert_int_equal(D(STATS_DNS_ERRORS + STATS_DNS_SERVFAIL) +
	    D(STATS_DNS_ERRORS + STATS_DNS_TIMEOUT) +
	    D(STATS_DNS_ERRORS + STATS_DNS_BOGUS) +
	    D(STATS_DNS_ERRORS + STATS_DNS_RESOLVER), 0);
#undef D
}

static void
escape_label_values(void **state)
{
	char	 out[64];

	(void)state;
	assert_int_equal(stats_escape_label("plain", out, sizeof(out)), 0);
	assert_string_equal(out, "plain");
	assert_int_equal(stats_escape_label("a\"b\\c\nd", out, sizeof(out)),
	    0);
	assert_string_equal(out, "a\\\"b\\\\c\\nd");
	assert_int_equal(stats_escape_label("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(stats_escape_label("abcd", out, 4), -1);
	assert_string_equal(out, "abc");
	assert_int_equal(stats_escape_label("ab\"", out, 4), -1);
	assert_int_equal(stats_escape_label("x", out, 0), -1);
}

/* find_line - the value of the sample line starting with "prefix " */
static int
find_value(const char *text, const char *prefix, unsigned long long *v)
{
	const char	*p = text;
	size_t		 n = strlen(prefix);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, n) == 0 && p[n] == ' ')
			return (sscanf(p + n + 1, "%llu", v) == 1 ? 0 : -1);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return (-1);
}

/* labels that come from other modules' *_name() functions name the right
 * counters: each counter i of the block holds i*3 (as above) */
static void
labels_from_module_names(void **state)
{
	static const struct {
		const char	*sample;
		int		 id;
	} want[] = {
		{ "postsmtpsts_discoveries_total{trigger=\"request\","
		    "outcome=\"policy\"}", STATS_DISCOVERIES },
		{ "postsmtpsts_discoveries_total{trigger=\"refresh\","
		    "outcome=\"failure\"}", STATS_DISCOVERIES +
		    STATS_DISCOVERY_OUTCOMES + 3 },
		{ "postsmtpsts_discovery_failures_total{kind=\"dns-servfail\"}",
		    STATS_DISCOVERY_FAIL },
		{ "postsmtpsts_discovery_failures_total{kind=\"policy-invalid\"}",
		    STATS_DISCOVERY_FAIL + STATS_DISCOVERY_FAILURES - 1 },
		{ "postsmtpsts_https_errors_total{kind=\"connect\"}",
		    STATS_HTTPS_ERRORS_BASE },
		{ "postsmtpsts_https_errors_total{kind=\"webpki\"}",
		    STATS_HTTPS_ERRORS_BASE + 2 },
		{ "postsmtpsts_https_errors_total{kind=\"other\"}",
		    STATS_HTTPS_ERRORS_BASE + STATS_HTTPS_ERRORS - 1 },
	};
	struct stats_snapshot s;
	struct buf	 out;
	unsigned long long v;
	char		*text;
	size_t		 i;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < STATS_NCOUNTERS; i++)
		s.v[i] = (uint64_t)i * 3;
	buf_init(&out, STATS_MAX_OUTPUT);
	assert_int_equal(stats_render(&s, &out), 0);
	assert_non_null(text = strndup(out.data, out.len));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (find_value(text, want[i].sample, &v) != 0)
			fail_msg("no sample %s", want[i].sample);
		assert_int_equal(v, (unsigned long long)want[i].id * 3);
	}
	/* the DANE failure classes, one per class and record type */
	assert_non_null(strstr(text, "class=\"bogus\",type=\"mx\"}"));
	assert_non_null(strstr(text, "class=\"timeout\",type=\"tlsa\"}"));
	assert_null(strstr(text, "kind=\"none\""));	/* no "no failure" */
	assert_null(strstr(text, "kind=\"ok\""));
	assert_null(strstr(text, "class=\"none\""));
	assert_null(strstr(text, "\"?\""));
	free(text);
	buf_free(&out);
}

static void
render_is_valid_prometheus_text(void **state)
{
	struct stats_snapshot s;
	struct buf	 out;
	regex_t		 help, type, sample;
	char		*text, *line, *save;
	char		 family[128] = "", typed[128] = "";
	unsigned long long v, prev = 0;
	int		 i, nsamples = 0, nbuckets = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < STATS_NCOUNTERS; i++)
		s.v[i] = (uint64_t)i * 3;
	s.v[STATS_LOOKUPS + STATS_SRC_CACHE * STATS_ANSWER_COUNT +
	    SOCKMAP_OK] = 42;
	s.v[STATS_LATENCY_SUM_NS] = 1500000001u;
	s.started = 1700000000;
	s.exceptions_known = 1;		/* the gauges are valid text too */
	s.exceptions_in_force = 2;
	s.exceptions_lapsed = 1;
	buf_init(&out, STATS_MAX_OUTPUT);
	assert_int_equal(stats_render(&s, &out), 0);
	assert_non_null(text = strndup(out.data, out.len));
	assert_true(out.len > 0 && text[out.len - 1] == '\n');

	assert_int_equal(find_value(text, "postsmtpsts_lookups_total{source="
	    "\"cache\",answer=\"ok\"}", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(find_value(text, "postsmtpsts_requests_total", &v),
	    0);
	assert_int_equal(v, STATS_REQUESTS * 3);
	assert_int_equal(find_value(text, "postsmtpsts_dane_lookups_total"
	    "{outcome=\"dane-only\"}", &v), 0);
	assert_int_equal(v, (STATS_DANE_LOOKUPS + STATS_DANE_ONLY) * 3);
	assert_int_equal(find_value(text, "postsmtpsts_answers_total"
	    "{level=\"dane-only\"}", &v), 0);
	assert_int_equal(v, (STATS_ANSWERS + REQUIRETLS_LEVEL_DANE_ONLY) * 3);
	assert_int_equal(find_value(text, "postsmtpsts_answers_total"
	    "{level=\"notfound\"}", &v), 0);
	assert_int_equal(v, (STATS_ANSWERS + REQUIRETLS_LEVEL_NOTFOUND) * 3);
	assert_int_equal(find_value(text, "postsmtpsts_cache_reads_total"
	    "{result=\"stale\"}", &v), 0);
	assert_int_equal(v, (STATS_CACHE_READS + STATS_CACHE_STALE) * 3);
	assert_int_equal(find_value(text, "postsmtpsts_start_time_seconds",
	    &v), 0);
	assert_int_equal(v, 1700000000);
	assert_non_null(strstr(text,
	    "\npostsmtpsts_lookup_duration_seconds_sum 1.500000001\n"));

	assert_int_equal(regcomp(&help, "^# HELP (postsmtpsts_[a-z_]+) "
	    "[^\n]+$", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&type, "^# TYPE (postsmtpsts_[a-z_]+) "
	    "(counter|gauge|histogram)$", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&sample, "^(postsmtpsts_[a-z_]+)"
	    "(\\{[a-z_]+=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
	    "(,[a-z_]+=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\")*\\})? "
	    "([0-9]+(\\.[0-9]+)?)$", REG_EXTENDED), 0);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		regmatch_t	 m[3];

		if (regexec(&help, line, 2, m, 0) == 0) {
			snprintf(family, sizeof(family), "%.*s",
			    (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
			continue;
		}
		if (regexec(&type, line, 2, m, 0) == 0) {
			/* TYPE follows the HELP of the same family */
			assert_int_equal(strncmp(line + m[1].rm_so, family,
			    strlen(family)), 0);
			snprintf(typed, sizeof(typed), "%s", family);
			continue;
		}
		if (regexec(&sample, line, 2, m, 0) != 0)
			fail_msg("not a valid sample line: %s", line);
		/* every sample belongs to the family announced last */
		assert_string_equal(typed, family);
		assert_int_equal(strncmp(line, family, strlen(family)), 0);
		nsamples++;
		if (strncmp(line, "postsmtpsts_lookup_duration_seconds_bucket",
		    42) == 0) {
			assert_int_equal(sscanf(strrchr(line, ' ') + 1, "%llu",
			    &v), 1);
			assert_true(v >= prev);	/* cumulative */
			prev = v;
			nbuckets++;
		}
	}
	assert_int_equal(nbuckets, STATS_LATENCY_BUCKETS);
	assert_true(nsamples > 60);
	/* +Inf == _count == the sum of the per-bucket counters */
	v = 0;
	for (i = 0; i < STATS_LATENCY_BUCKETS; i++)
		v += s.v[STATS_LATENCY + i];
	assert_int_equal(prev, v);
	regfree(&help);
	regfree(&type);
	regfree(&sample);
	free(text);

	/* the _count line, on a fresh rendering */
	buf_reset(&out);
	assert_int_equal(stats_render(&s, &out), 0);
	assert_non_null(text = strndup(out.data, out.len));
	assert_int_equal(find_value(text,
	    "postsmtpsts_lookup_duration_seconds_count", &v), 0);
	assert_int_equal(v, prev);
	assert_int_equal(find_value(text, "postsmtpsts_lookup_duration_"
	    "seconds_bucket{le=\"+Inf\"}", &v), 0);
	assert_int_equal(v, prev);
	assert_int_equal(find_value(text, "postsmtpsts_lookup_duration_"
	    "seconds_bucket{le=\"0.0001\"}", &v), 0);
	assert_int_equal(v, s.v[STATS_LATENCY]);
	free(text);

	/* too small an output buffer: an error, not a cut-off text */
	buf_free(&out);
	buf_init(&out, 1000);
	assert_int_equal(stats_render(&s, &out), -1);
	buf_free(&out);
}

/* exception_gauges - the timed exceptions, by state, only where the
 * renderer was told them (the metrics process: from its configuration) */
static void
exception_gauges(void **state)
{
	struct stats_snapshot s;
	struct buf	 out;
	unsigned long long v;

	(void)state;
	memset(&s, 0, sizeof(s));
	buf_init(&out, STATS_MAX_OUTPUT);
	assert_int_equal(stats_render(&s, &out), 0);
	assert_int_equal(buf_append_char(&out, '\0'), 0);
	assert_null(strstr(out.data, "postsmtpsts_pin_exceptions"));
	buf_reset(&out);
	s.exceptions_known = 1;
	s.exceptions_in_force = 3;
	s.exceptions_lapsed = 0;
	assert_int_equal(stats_render(&s, &out), 0);
	assert_int_equal(buf_append_char(&out, '\0'), 0);
	assert_non_null(strstr(out.data, "\n# TYPE postsmtpsts_pin_exceptions "
	    "gauge\n"));
	assert_int_equal(find_value(out.data, "postsmtpsts_pin_exceptions"
	    "{state=\"in-force\"}", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(find_value(out.data, "postsmtpsts_pin_exceptions"
	    "{state=\"lapsed\"}", &v), 0);
	assert_int_equal(v, 0);
	buf_free(&out);
}

static void
http_request_heads(void **state)
{
	static const struct {
		const char	*req;
		int		 code;
		int		 head;
	} cases[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, 0 },
		{ "GET /metrics HTTP/1.0\r\n\r\n", 200, 0 },
		{ "GET /metrics HTTP/1.0\n\n", 200, 0 },
		{ "HEAD /metrics HTTP/1.1\r\n\r\n", 200, 1 },
		{ "GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 200, 0 },
		{ "GET /metricsx HTTP/1.1\r\n\r\n", 404, 0 },
		{ "HEAD /other HTTP/1.1\r\n\r\n", 404, 1 },
		{ "GET / HTTP/1.1\r\n\r\n", 404, 0 },
		{ "GET /metric HTTP/1.1\r\n\r\n", 404, 0 },
		{ "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405,
		    0 },
		{ "DELETE /x HTTP/1.1\r\n\r\n", 405, 0 },
		{ "get /metrics HTTP/1.1\r\n\r\n", 405, 0 },
		{ "GET /metrics HTTP/2.0\r\n\r\n", 400, 0 },
		{ "GET /metrics\r\n\r\n", 400, 0 },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /met\trics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "\r\n\r\n", 400, 0 },
		{ "G3T /metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /metrics HTTP/1.1 \r\n\r\n", 400, 0 },
		/* incomplete heads: wait for more */
		{ "GET /metrics HTTP/1.1\r\n", 0, 0 },
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n", 0, 0 },
		{ "GET /metrics HTTP/1.1\r\n\r", 0, 0 },
		{ "", 0, 0 },
	};
	size_t	 i;
	int	 head, code;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		head = -1;
		code = metrics_http_parse(cases[i].req, strlen(cases[i].req),
		    &head);
		if (code != cases[i].code || head != cases[i].head)
			fail_msg("case %zu \"%s\": got %d head %d, want %d "
			    "head %d", i, cases[i].req, code, head,
			    cases[i].code, cases[i].head);
	}
	/* no NUL needed: a head that ends exactly at len */
	assert_int_equal(metrics_http_parse("GET /metrics HTTP/1.1\n\nXYZ",
	    23, &head), 200);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_across_fork_and_summed),
		cmocka_unit_test(read_refuses_other_layouts),
		cmocka_unit_test(latency_buckets),
		cmocka_unit_test(lookup_counts_source_answer_and_latency),
		cmocka_unit_test(discovery_counts_outcome_failure_dns_https),
		cmocka_unit_test(escape_label_values),
		cmocka_unit_test(labels_from_module_names),
		cmocka_unit_test(render_is_valid_prometheus_text),
		cmocka_unit_test(exception_gauges),
		cmocka_unit_test(http_request_heads),
	};

	return (cmocka_run_group_tests_name("stats", tests, NULL, NULL));
}
