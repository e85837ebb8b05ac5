/*
 * scn_expect.c - "expect": every expectation goes through cmd_expect
 *
 * Here: the conditions "FIELD OP VALUE" on a cache record (the committed
 * one: expect cache; the records of a reply: expect reply, with "dane."
 * for the DANE record), the replies the IPC peers read (expect reply,
 * noreply), the counters by name (expect stat), the log lines since the
 * last mark (expect log, nolog, logcount), and the fakes' counts (expect
 * queries, pending, fetches, pending-fetches).  The expectations on the
 * Postfix clients and the worker's requests are scn_postfix.c's, on Redis
 * scn_fleet.c's; cmd_expect calls them.  This file calls scenario.c to
 * start the resolver whose cache it reads, and for the peers' names: why
 * the two call each other is in scenario_int.h.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/ipc.h"
#include "daemon/resolver.h"
#include "daemon/stats.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/https.h"
#include "lib/sockmap.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/history.h"
#include "fake_dns.h"
#include "fake_https.h"
#include "scenario_int.h"

/* ---- conditions on a record, a reply ---- */

/* scn_record_field - check one "field OP value" of rec; 1 if it holds */
static int
scn_record_field(const struct cache_record *rec, char *word,
    char *seen, size_t seensz)
{
	enum scn_op	 op;
	char		*f, *v, mx[4096];
	const char	*s = NULL, *p;
	long long	 a = 0, b = 0;
	size_t		 pos = 0, off = 0;
	int		 time = 0;

	if ((f = scn_split(word, &op, &v)) == NULL)
		scn_bail("not a FIELD=VALUE condition: \"%s\"", word);
	if (strcmp(f, "kind") == 0)
		s = cache_kind_name(rec->kind);
	else if (strcmp(f, "mode") == 0)
		s = rec->kind == CACHE_KIND_STS ?
		    cache_sts_mode_name(rec->sts_mode) : "-";
	else if (strcmp(f, "dnssec") == 0)
		s = cache_dnssec_name(rec->dnssec);
	else if (strcmp(f, "state") == 0)
		s = rec->kind == CACHE_KIND_DANE ?
		    dane_state_name((enum dane_state)rec->dane) : "-";
	else if (strcmp(f, "id") == 0)
		s = rec->id[0] != '\0' ? rec->id : "-";
	else if (strcmp(f, "mx") == 0) {
		mx[0] = '\0';
		while ((p = cache_record_mx_next(rec, &pos, NULL)) != NULL &&
		    off < sizeof(mx))
			off += (size_t)snprintf(mx + off, sizeof(mx) - off,
			    "%s%s", off > 0 ? "," : "", p);
		s = mx;
	} else if (strcmp(f, "last_error") == 0)
		s = rec->last_error == 0 ? "none" :
		    rec->kind == CACHE_KIND_DANE ? "failure" :
		    discover_failure_name(
		    (enum discover_failure)rec->last_error);
	else if (strcmp(f, "max_age") == 0)
		a = rec->max_age;
	else if (strcmp(f, "txt_ttl") == 0)
		a = rec->txt_ttl;
	else if (strcmp(f, "nmx") == 0)
		a = rec->nmx;
	else {
		time = 1;
		if (strcmp(f, "fetched_at") == 0)
			a = rec->fetched_at;
		else if (strcmp(f, "expires_at") == 0)
			a = rec->expires_at;
		else if (strcmp(f, "next_refresh") == 0)
			a = rec->next_refresh;
		else if (strcmp(f, "last_error_at") == 0)
			a = rec->last_error_at;
		else if (strcmp(f, "txt_checked_at") == 0)
			a = rec->txt_checked_at;
		else
			scn_bail("no record field \"%s\"", f);
	}
	if (s != NULL) {
		if (op != OP_EQ && op != OP_NE)
			scn_bail("%s: only = and != compare text", f);
		snprintf(seen, seensz, "%s=%s", f, s);
		return ((strcmp(s, v) == 0) == (op == OP_EQ));
	}
	b = time ? scn_time(v) : scn_num(v);
	if (time)
		scn_wtime(mx, sizeof(mx), a);
	else
		snprintf(mx, sizeof(mx), "%lld", a);
	snprintf(seen, seensz, "%s=%s", f, mx);
	return (scn_cmp(a, op, b));
}

/* scn_conds - check conditions t[i..n) against rec (dane: the words
 * prefixed "dane.", else the others); returns 1 if all hold */
static int
scn_conds(const char *what, const struct cache_record *rec, int n,
    char **t, int i, int dane, int report)
{
	char	 word[512], seen[4200], *w;
	int	 ok = 1;

	for (; i < n; i++) {
		if (strchr(t[i], '=') == NULL && strchr(t[i], '<') == NULL &&
		    strchr(t[i], '>') == NULL)
			continue;	/* a flag word, not a condition */
		if (strncmp(t[i], "n=", 2) == 0 ||
		    (strncmp(t[i], "dane.", 5) == 0) != dane)
			continue;
		snprintf(word, sizeof(word), "%s", t[i] + (dane ? 5 : 0));
		w = word;
		if (scn_record_field(rec, w, seen, sizeof(seen)))
			continue;
		ok = 0;
		if (report)
			scn_fail("%s: expected %s, seen %s", what, t[i], seen);
	}
	return (ok);
}

/* scn_reply_matches - reply r fits "STATUS [nosts] [nodane] cond..." */
static int
scn_reply_matches(const struct reply *r, int n, char **t, int report,
    const char *what)
{
	int	 i, ok = 1, st;

	st = strcmp(t[3], "OK") == 0 ? IPC_STATUS_OK :
	    strcmp(t[3], "TEMP") == 0 ? IPC_STATUS_TEMP : -1;
	if (st == -1)
		scn_bail("expect reply: status OK or TEMP, not \"%s\"", t[3]);
	if (r->status != st) {
		if (report)
			scn_fail("%s: expected status %s, seen %s", what,
			    t[3], r->status == IPC_STATUS_OK ? "OK" : "TEMP");
		return (0);
	}
	for (i = 4; i < n; i++) {
		if (strcmp(t[i], "nosts") == 0 && r->have_sts) {
			if (report)
				scn_fail("%s: expected no MTA-STS record, "
				    "seen kind=%s", what,
				    cache_kind_name(r->sts.kind));
			ok = 0;
		}
		if (strcmp(t[i], "nodane") == 0 && r->have_dane) {
			if (report)
				scn_fail("%s: expected no DANE record, seen "
				    "one", what);
			ok = 0;
		}
	}
	if (!ok)
		return (0);
	return (scn_conds(what, &r->sts, n, t, 4, 0, report) &
	    scn_conds(what, &r->dane, n, t, 4, 1, report));
}

/* ---- expectations ---- */

/* expect_reply - "expect reply WORKERS DOMAIN STATUS [n=N] conds...":
 * each worker has N (default 1) unchecked replies for DOMAIN, the
 * oldest first, all matching; they are checked off */
static void
expect_reply(int n, char **t)
{
	char		 what[512];
	long long	 want = 1, got;
	struct scn_peer	*w;
	int		 lo, hi, i, k;
	size_t		 j;

	if (n < 4)
		scn_bail("expect reply WORKERS DOMAIN STATUS ...");
	/* t[0] is "reply": the words are shifted by one */
	for (k = 4; k < n; k++)
		if (strncmp(t[k], "n=", 2) == 0)
			want = scn_num(t[k] + 2);
	scn_workers(t[1], &lo, &hi);
	for (i = lo; i < hi; i++) {
		w = &S.w[i];
		got = 0;
		for (j = 0; j < w->nreplies && got < want; j++) {
			if (w->replies[j].used ||
			    strcasecmp(w->replies[j].domain, t[2]) != 0)
				continue;
			w->replies[j].used = 1;
			got++;
			snprintf(what, sizeof(what), "%s reply %lld for %s",
			    scn_peer_name(i), got, t[2]);
			(void)scn_reply_matches(&w->replies[j], n, t, 1, what);
		}
		if (got < want)
			scn_fail("%s: expected %lld replies for %s, seen "
			    "%lld", scn_peer_name(i), want, t[2], got);
	}
}

/* expect_noreply - "expect noreply WORKERS [DOMAIN]": nothing unchecked */
static void
expect_noreply(int n, char **t)
{
	struct scn_peer	*w;
	const char	*first = NULL;
	int		 lo, hi, i, extra;
	size_t		 j;

	if (n < 2)
		scn_bail("expect noreply WORKERS [DOMAIN]");
	scn_workers(t[1], &lo, &hi);
	for (i = lo; i < hi; i++) {
		w = &S.w[i];
		extra = 0;
		for (j = 0; j < w->nreplies; j++)
			if (!w->replies[j].used && (n < 3 ||
			    strcasecmp(w->replies[j].domain, t[2]) == 0) &&
			    extra++ == 0)
				first = w->replies[j].domain;
		if (extra > 0)
			scn_fail("%s: expected no more replies%s%s, seen %d "
			    "(the first for %s)", scn_peer_name(i),
			    n < 3 ? "" : " for ", n < 3 ? "" : t[2], extra,
			    first);
	}
}

/* expect_cache - "expect cache KEY absent | conds...": what is committed
 * in the LMDB map (not the write-behind array) */
static void
expect_cache(int n, char **t)
{
	struct cache_record rec;
	struct cache	*c;
	char		 what[512];
	int		 st;

	if (n < 3)
		scn_bail("expect cache KEY absent | FIELD=VALUE ...");
	scn_start();
	if ((c = resolver_cache(S.r)) == NULL) {
		scn_fail("cache: the resolver has no cache");
		return;
	}
	cache_record_init(&rec);
	st = cache_get(c, t[1], strlen(t[1]), &rec);
	snprintf(what, sizeof(what), "cache %s", t[1]);
	if (n == 3 && strcmp(t[2], "absent") == 0) {
		if (st != CACHE_MISS)
			scn_fail("%s: expected absent, seen kind=%s", what,
			    st == CACHE_HIT ? cache_kind_name(rec.kind) :
			    "(error)");
	} else if (st != CACHE_HIT)
		scn_fail("%s: expected a record, seen %s", what,
		    cache_status_name(st));
	else
		(void)scn_conds(what, &rec, n, t, 2, 0, 1);
	cache_record_release(&rec);
}

/* scn_stat_id - a counter by name (README.md lists them), or -1 */
static int
scn_stat_id(const char *name)
{
	static const char *const dane[] = { "dane-only", "dane", "none",
	    "failure", "encrypt", "tls-some" };
	static const char *const dnserr[] = { "timeout", "servfail", "bogus",
	    "resolver" };
	static const struct {
		const char	*name;
		int		 id;
	} plain[] = {
		{ "refreshes", STATS_REFRESHES },
		{ "txt_checks", STATS_TXT_CHECKS },
		{ "cache_deleted", STATS_CACHE_DELETED },
		{ "cache_write_errors", STATS_CACHE_WRITE_ERRORS },
		{ "requests", STATS_REQUESTS },
	};
	static const char *const src[] = { "pinned", "cache", "resolver",
	    "deadline", "invalid" };
	static const char *const reads[] = { "hit", "stale", "miss",
	    "unavailable" };
	int		 a;
	char		 buf[128];
	int		 i;

	for (i = 0; i < (int)(sizeof(plain) / sizeof(plain[0])); i++)
		if (strcmp(name, plain[i].name) == 0)
			return (plain[i].id);
	for (i = 0; i < STATS_SRC_COUNT; i++)
		for (a = 0; a < STATS_ANSWER_COUNT; a++) {
			snprintf(buf, sizeof(buf), "lookups.%s.%s", src[i],
			    sockmap_status_name((enum sockmap_status)a));
			if (strcmp(name, buf) == 0)
				return (STATS_LOOKUPS + i * STATS_ANSWER_COUNT +
				    a);
		}
	for (i = 0; i < STATS_CACHE_COUNT; i++) {
		snprintf(buf, sizeof(buf), "cache_reads.%s", reads[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_CACHE_READS + i);
	}
	for (i = 0; i < STATS_DISCOVERY_OUTCOMES; i++) {
		snprintf(buf, sizeof(buf), "discoveries.request.%s",
		    discover_outcome_name((enum discover_outcome)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERIES + i);
		snprintf(buf, sizeof(buf), "discoveries.refresh.%s",
		    discover_outcome_name((enum discover_outcome)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERIES + STATS_DISCOVERY_OUTCOMES +
			    i);
	}
	for (i = 1; i <= STATS_DISCOVERY_FAILURES; i++) {
		snprintf(buf, sizeof(buf), "discovery_failures.%s",
		    discover_failure_name((enum discover_failure)i));
		if (strcmp(name, buf) == 0)
			return (STATS_DISCOVERY_FAIL + i - 1);
	}
	for (i = 1; i <= STATS_HTTPS_ERRORS; i++) {
		snprintf(buf, sizeof(buf), "https_errors.%s",
		    https_error_name((enum https_error)i));
		if (strcmp(name, buf) == 0)
			return (STATS_HTTPS_ERRORS_BASE + i - 1);
	}
	for (i = 0; i < REQUIRETLS_LEVEL_COUNT; i++) {
		snprintf(buf, sizeof(buf), "answers.%s",
		    requiretls_level_name((enum requiretls_level)i));
		if (strcmp(name, buf) == 0)
			return (STATS_ANSWERS + i);
	}
	for (i = 0; i < STATS_DANE_COUNT; i++) {
		snprintf(buf, sizeof(buf), "dane_lookups.%s", dane[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_DANE_LOOKUPS + i);
	}
	for (i = 0; i < STATS_DNS_COUNT; i++) {
		snprintf(buf, sizeof(buf), "dns_errors.%s", dnserr[i]);
		if (strcmp(name, buf) == 0)
			return (STATS_DNS_ERRORS + i);
	}
	for (i = 0; i < HISTORY_KIND_COUNT; i++) {
		snprintf(buf, sizeof(buf), "policy_events.%s",
		    history_kind_name((enum history_kind)i));
		if (strcmp(name, buf) == 0)
			return (STATS_POLICY_EVENTS + i);
	}
	return (-1);
}

/* scn_history_field - the value of an event's field for a condition,
 * in the file's spelling ("" for none) */
static const char *
scn_history_field(const struct history_event *ev, const char *f)
{
	static const char *const modes[] = { "none", "testing", "enforce" };

	if (strcmp(f, "source") == 0)
		return (history_source_name(ev->source));
	if (strcmp(f, "trigger") == 0)
		return (ev->trigger);
	if (strcmp(f, "old_id") == 0)
		return (ev->old_id);
	if (strcmp(f, "id") == 0)
		return (ev->id);
	if (strcmp(f, "sha256") == 0)
		return (ev->sha256);
	if (strcmp(f, "old_mode") == 0)
		return (ev->old_mode >= 0 ? modes[ev->old_mode] : "");
	if (strcmp(f, "mode") == 0)
		return (ev->mode >= 0 ? modes[ev->mode] : "");
	if (strcmp(f, "old_mx") == 0)
		return (ev->old_mx);
	if (strcmp(f, "mx") == 0)
		return (ev->mx);
	if (strcmp(f, "old_dane") == 0)
		return (ev->old_dane >= 0 ?
		    dane_state_name((enum dane_state)ev->old_dane) : "");
	if (strcmp(f, "dane") == 0)
		return (ev->dane >= 0 ?
		    dane_state_name((enum dane_state)ev->dane) : "");
	if (strcmp(f, "time") == 0) {
		static char t[32];

		snprintf(t, sizeof(t), "%lld", (long long)ev->time);
		return (t);
	}
	return (NULL);
}

/*
 * expect_history - "expect history DOMAIN KIND|* N [FIELD=VALUE...]": the
 * lines of the history file (cache.history_file) for DOMAIN and KIND
 * whose fields have those values (old_mx, mx comma-joined; "" for none:
 * FIELD=); a line history_parse() refuses fails the expectation
 */
static void
expect_history(int n, char **t)
{
	static struct history_event ev;
	enum scn_op	 op;
	long long	 want, seen = 0;
	const char	*why, *v;
	char		 line[HISTORY_LINE_MAX + 2], *eq;
	size_t		 len;
	FILE		*fp;
	int		 i, ok;

	if (n < 4)
		scn_bail("expect history DOMAIN KIND N [FIELD=VALUE...]");
	if (strcmp(t[2], "*") != 0 &&
	    history_kind_value(t[2], strlen(t[2])) == -1)
		scn_bail("no event kind \"%s\"", t[2]);
	want = scn_count_expect(t[3], &op);
	for (i = 4; i < n; i++)
		if ((eq = strchr(t[i], '=')) == NULL)
			scn_bail("expect history: \"%s\" is no FIELD=VALUE",
			    t[i]);
	if (S.cf == NULL || S.cf->cache.history_file == NULL)
		scn_bail("expect history: no history file");
	if ((fp = fopen(S.cf->cache.history_file, "r")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL) {
			len = strlen(line);
			if (len == 0 || line[len - 1] != '\n') {
				scn_fail("history: a line without its newline");
				break;
			}
			if (history_parse(line, len - 1, &ev, &why) == -1) {
				scn_fail("history: a bad line (%s): %s", why,
				    line);
				continue;
			}
			if (strcmp(ev.domain, t[1]) != 0 ||
			    (strcmp(t[2], "*") != 0 &&
			    strcmp(history_kind_name(ev.kind), t[2]) != 0))
				continue;
			for (ok = 1, i = 4; i < n && ok; i++) {
				eq = strchr(t[i], '=');
				*eq = '\0';
				v = scn_history_field(&ev, t[i]);
				if (v == NULL)
					scn_bail("expect history: no field "
					    "\"%s\"", t[i]);
				ok = strcmp(v, eq + 1) == 0;
				*eq = '=';
			}
			seen += ok;
		}
		fclose(fp);
	}
	if (!scn_cmp(seen, op, want))
		scn_fail("history %s %s: expected %s%lld events, seen %lld",
		    t[1], t[2], scn_op_names[op], want, seen);
}

/* scn_log_match - line holds every word of t[i..n) */
static int
scn_log_match(const char *line, int n, char **t, int i)
{
	for (; i < n; i++)
		if (strstr(line, t[i]) == NULL)
			return (0);
	return (1);
}

/* expect_log - "expect log TEXT...", "expect nolog TEXT...", "expect
 * logcount N TEXT...": lines since the last mark holding every TEXT */
static void
expect_log(int n, char **t)
{
	enum scn_op	 op = OP_GE;
	long long	 want = 1;
	size_t		 k;
	int		 first = 1, seen = 0, shown;

	if (strcmp(t[0], "logcount") == 0) {
		if (n < 3)
			scn_bail("expect logcount N TEXT ...");
		want = scn_count_expect(t[1], &op);
		first = 2;
	} else if (strcmp(t[0], "nolog") == 0) {
		op = OP_EQ;
		want = 0;
	}
	if (n <= first)
		scn_bail("expect %s: which text?", t[0]);
	for (k = S.logmark; k < S.nlog; k++)
		if (scn_log_match(S.log[k], n, t, first))
			seen++;
	if (!scn_cmp(seen, op, want)) {
		scn_fail("log: expected %s%lld lines holding \"%s\"%s, seen "
		    "%d", scn_op_names[op], want, t[first],
		    n > first + 1 ? " (and more)" : "", seen);
		shown = 0;
		for (k = S.logmark; k < S.nlog && shown < 5; k++)
			if (scn_log_match(S.log[k], n, t, first)) {
				printf("#   seen: %s\n", S.log[k]);
				shown++;
			}
	}
}

void
cmd_expect(int n, char **t)
{
	enum scn_op	 op;
	long long	 want, got;
	const char	*name;
	int		 rrtype = 0, id;

	if (n < 2)
		scn_bail("expect what?");
	n--;
	t++;
	if (strcmp(t[0], "reply") == 0)
		expect_reply(n, t);
	else if (strcmp(t[0], "answer") == 0)
		expect_answer(n, t);
	else if (strcmp(t[0], "noanswer") == 0)
		expect_noanswer(n, t);
	else if (strcmp(t[0], "asked") == 0)
		expect_asked(n, t);
#ifdef HAVE_FLEET
	else if (strcmp(t[0], "fleet") == 0)
		expect_fleet(n, t);
#endif
	else if (strcmp(t[0], "noreply") == 0)
		expect_noreply(n, t);
	else if (strcmp(t[0], "cache") == 0)
		expect_cache(n, t);
	else if (strcmp(t[0], "history") == 0)
		expect_history(n, t);
	else if (strcmp(t[0], "log") == 0 || strcmp(t[0], "nolog") == 0 ||
	    strcmp(t[0], "logcount") == 0)
		expect_log(n, t);
	else if (strcmp(t[0], "fetches") == 0 || strcmp(t[0],
	    "pending-fetches") == 0) {
		if (n != 3)
			scn_bail("expect %s HOST N", t[0]);
		want = scn_count_expect(t[2], &op);
		name = strcmp(t[1], "*") == 0 ? NULL : t[1];
		got = t[0][0] == 'f' ? fake_https_count(name) :
		    fake_https_pending(name);
		if (!scn_cmp(got, op, want))
			scn_fail("%s from %s: expected %s%lld, seen %lld",
			    t[0], t[1], scn_op_names[op], want, got);
	} else if (strcmp(t[0], "queries") == 0 ||
	    strcmp(t[0], "pending") == 0) {
		if (n != 4)
			scn_bail("expect %s NAME TYPE N", t[0]);
		if (strcmp(t[2], "*") != 0 &&
		    (rrtype = fake_dns_rrtype(t[2])) == -1)
			scn_bail("not a type: %s", t[2]);
		want = scn_count_expect(t[3], &op);
		name = strcmp(t[1], "*") == 0 ? NULL : t[1];
		got = t[0][0] == 'q' ? fake_dns_count(name, rrtype) :
		    fake_dns_pending(name, rrtype);
		if (!scn_cmp(got, op, want))
			scn_fail("%s %s %s: expected %s%lld, seen %lld",
			    t[0], t[1], t[2], scn_op_names[op], want, got);
	} else if (strcmp(t[0], "stat") == 0) {
		if (n != 3)
			scn_bail("expect stat NAME N");
		if ((id = scn_stat_id(t[1])) == -1)
			scn_bail("no counter \"%s\"", t[1]);
		want = scn_count_expect(t[2], &op);
		got = (long long)stats_slot[id];
		if (!scn_cmp(got, op, want))
			scn_fail("stat %s: expected %s%lld, seen %lld", t[1],
			    scn_op_names[op], want, got);
	} else
		scn_bail("expect: unknown \"%s\"", t[0]);
}
