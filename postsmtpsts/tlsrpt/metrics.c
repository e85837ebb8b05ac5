/*
 * metrics.c - the reporter's counters, in Prometheus' text format
 *
 * Interface: metrics.h.
 */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/config.h"
#include "lib/log.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/metrics.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/store.h"

/* The counters, with their help text: every name the reporter adds to. */
static const struct {
	const char	*name;
	const char	*help;
} metrics_counters[] = {
	{ "lines", "Log lines read" },
	{ "lines_malformed", "Log lines of a form read, that did not parse" },
	{ "sessions", "TLS sessions counted into reports" },
	{ "sessions_success", "Of those, successful" },
	{ "sessions_failure", "Of those, failed" },
	{ "sessions_unknown_policy", "Sessions not counted: no policy named "
	    "(nothing cached, a pin, a TEMP answer)" },
	{ "sessions_excluded", "Sessions not counted: policy type not in "
	    "tlsrpt.policy_types" },
	{ "sessions_late", "Sessions not counted: their day's report was "
	    "made" },
	{ "reports_confirmed", "Own report mails seen in Postfix's queue" },
	{ "reports_made", "Reports made (a policy domain and a day)" },
	{ "reports_sent", "Reports taken by a destination" },
	{ "reports_failed", "Reports given up" },
	{ "reports_no_rua", "Reports not sent: no usable TLSRPT record" },
	{ "reports_fleet_other", "Reports another host of the fleet sent (or "
	    "gave up): not sent here" },
	{ "fleet_pushes", "Parts of a day's counts written to the fleet "
	    "(a new batch number)" },
	{ "fleet_pushes_repeated", "Parts pushed again that the fleet had "
	    "(the same batch number: applied once)" },
	{ "fleet_push_closed", "Parts the fleet refused: its report was made "
	    "without them (reported on their own)" },
	{ "fleet_push_failures", "Pushes that failed (Redis down, a timeout): "
	    "kept locally, pushed again" },
	{ "fleet_refused", "Fleet values refused: bad MAC, unsigned, unknown "
	    "version, not decoding" },
	{ "fleet_elections_won", "Reports this host was elected to send" },
	{ "fleet_elections_lost", "Elections another host held" },
	{ "fleet_takeovers", "Reports taken over from a host that did not "
	    "finish them" },
	{ "fleet_own_reports", "Reports of this host's part alone: the fleet "
	    "out of reach past fleet_deadline" },
	{ "fleet_state_failures", "Delivery states not written to the fleet" },
	{ "reports_too_large", "Reports over max_report_size with their "
	    "failure details" },
	{ "rua_refused", "rua URIs refused (scheme, syntax, IP literal, too "
	    "many)" },
	{ "deliveries", "Delivery attempts (mail or HTTPS)" },
	{ "deliveries_failed", "Delivery attempts that failed" },
	{ "deliveries_rate_limited", "Deliveries put off by the rate limit" },
	{ "deliveries_refused_address", "HTTPS deliveries refused before "
	    "connecting: every address of the host not global and not in "
	    "report_allow_addresses" },
	{ "lines_refused_no_uid", "Journal entries refused: no _UID" },
	{ "lines_refused_uid", "Journal entries refused: _UID not in "
	    "trusted_users (a forged Postfix line)" },
	{ "lines_refused_comm", "Journal entries refused: _COMM not in "
	    "trusted_commands" },
	{ "lines_refused_unit", "Journal entries refused: _SYSTEMD_UNIT not "
	    "in trusted_units" },
	{ "datagrams", "Datagrams read from the TLSRPT socket" },
	{ "datagrams_refused_sender", "Datagrams refused: sender not in "
	    "trusted_users, or no credentials" },
	{ "datagrams_refused_version", "Datagrams refused: an unknown "
	    "protocol version (dpv)" },
	{ "datagrams_refused_json", "Datagrams refused: not one strict "
	    "UTF-8 JSON object (truncated, invalid)" },
	{ "datagrams_refused_form", "Datagrams refused: a field missing or "
	    "of the wrong type" },
	{ "datagrams_refused_domain", "Datagrams refused: a policy domain or "
	    "host that is not a domain name" },
	{ "datagrams_refused_code", "Datagrams refused: an unknown policy "
	    "type or result code" },
	{ "datagrams_refused_limit", "Datagrams refused: over a size or "
	    "count limit" },
	{ "datagrams_backlog", "Batches of datagrams that found more "
	    "waiting (the reporter fell behind)" },
};

/* metrics_states - count the reports by status */
static int
metrics_state(const char *key, const void *v, size_t vlen, void *arg)
{
	uint64_t	*n = arg;
	struct rstate	 r;

	(void)key;
	if (rstate_decode(v, vlen, &r) == 0 && r.status <= RSTATE_FAILED)
		n[r.status]++;
	return (0);
}

int
metrics_emit(struct store *s, FILE *fp)
{
	uint64_t	 st[RSTATE_FAILED + 1] = { 0 };
	size_t		 i;
	int		 k;

	if (store_begin(s, 0) == -1)
		return (-1);
	for (i = 0; i < sizeof(metrics_counters) /
	    sizeof(metrics_counters[0]); i++)
		fprintf(fp, "# HELP postsmtpsts_tlsrpt_%s_total %s\n"
		    "# TYPE postsmtpsts_tlsrpt_%s_total counter\n"
		    "postsmtpsts_tlsrpt_%s_total %" PRIu64 "\n",
		    metrics_counters[i].name, metrics_counters[i].help,
		    metrics_counters[i].name, metrics_counters[i].name,
		    store_counter(s, metrics_counters[i].name));
	store_walk(s, "r/", metrics_state, st);
	store_abort(s);
	fprintf(fp, "# HELP postsmtpsts_tlsrpt_reports Reports kept, by "
	    "status\n# TYPE postsmtpsts_tlsrpt_reports gauge\n");
	for (k = RSTATE_PENDING; k <= RSTATE_FAILED; k++)
		fprintf(fp, "postsmtpsts_tlsrpt_reports{status=\"%s\"} %"
		    PRIu64 "\n", rstate_status_name((enum rstate_status)k),
		    st[k]);
	return (ferror(fp) ? -1 : 0);
}

int
metrics_print(const struct config *cf, FILE *fp)
{
	struct store	*s;
	char		 err[512];
	int		 rc;

	if ((s = store_open(cf->tlsrpt.state_dir, 1, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "postsmtpsts-tlsrpt: state %s\n", err);
		return (1);
	}
	rc = metrics_emit(s, fp);
	/* the fleet's day after the counters, as comments: what a scraper
	 * reads is unchanged (an unreachable fleet is a line, not a failure
	 * of the counters) */
	if (rc == 0)
		(void)fleetagg_stats(cf, s, clock_wall(), fp);
	store_close(s);
	return (rc == 0 ? 0 : 1);
}

void
metrics_write(const struct config *cf, struct store *s, const struct count *c,
    const struct send *sd)
{
	char	 tmp[CONFIG_MAX_PATH + 16];
	FILE	*fp;
	int	 ok;

	static int64_t	 last_warn;
	int64_t		 now = clock_wall();

	(void)c;
	(void)sd;
	if (cf->tlsrpt.metrics_file == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", cf->tlsrpt.metrics_file);
	if ((fp = fopen(tmp, "w")) == NULL) {
		if (last_warn == 0 || now >= last_warn + 60 ||
		    now < last_warn) {
			log_warn("tlsrpt: %s (one line a minute)", tmp);
			last_warn = now;
		}
		return;
	}
	ok = metrics_emit(s, fp) == 0;
	/* this process' own: what its store refused since it started (no
	 * use keeping that count in the store that refuses writes) */
	fprintf(fp, "# HELP postsmtpsts_tlsrpt_store_write_errors_total "
	    "Writes to the reporter's store that failed (a full disk or map) "
	    "since the reporter started\n"
	    "# TYPE postsmtpsts_tlsrpt_store_write_errors_total counter\n"
	    "postsmtpsts_tlsrpt_store_write_errors_total %" PRIu64 "\n",
	    store_write_errors());
	if (ferror(fp))
		ok = 0;
	if (fclose(fp) != 0)
		ok = 0;
	if (!ok || rename(tmp, cf->tlsrpt.metrics_file) == -1) {
		if (last_warn == 0 || now >= last_warn + 60 ||
		    now < last_warn) {
			log_warn("tlsrpt: %s (one line a minute)",
			    cf->tlsrpt.metrics_file);
			last_warn = now;
		}
		unlink(tmp);
	}
}
