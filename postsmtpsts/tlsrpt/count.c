/*
 * count.c - from log lines to the day's counts, one batch at a time
 *
 * Interface and what is counted where: count.h.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/sockmap.h"
#include "lib/xmalloc.h"
#include "policy/decide.h"
#include "policy/facts.h"
#include "policy/pins.h"
#include "policy/sts_policy.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/collect.h"
#include "tlsrpt/count.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/dgram.h"
#include "tlsrpt/follow.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/report.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/session.h"
#include "tlsrpt/store.h"
#include "tlsrpt/verdict.h"

#define COUNT_ENC_MAX		(4 * 1024 * 1024)	/* one encoded value */
#define COUNT_CACHE_RETRY	10	/* seconds between cache opens */
#define COUNT_RL_SECONDS	60	/* one refusal line a minute a kind */
#define COUNT_STEP_MIN		10	/* seconds: a smaller gap between the
					   wall and the monotonic clock is a
					   slow batch, not a step */

/* count_rl - a refusal's log line, rate-limited (count_ratelimit) */
static void __attribute__((format(printf, 3, 4)))
count_rl(struct count *c, struct count_ratelimit *rl, const char *fmt, ...)
{
	char	 msg[1024];
	va_list	 ap;

	if (rl->last != 0 && c->now < rl->last + COUNT_RL_SECONDS) {
		rl->quiet++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rl->quiet > 0)
		log_warnx("%s (and %llu more refused in the last minute, not "
		    "logged)", msg, (unsigned long long)rl->quiet);
	else
		log_warnx("%s", msg);
	rl->last = c->now;
	rl->quiet = 0;
}

int64_t
count_line_time(const struct maillog_time *t, int64_t now)
{
	struct tm	 tm, nowtm;
	time_t		 n = (time_t)now, v;

	if (!t->set)
		return (now);
	memset(&tm, 0, sizeof(tm));
	tm.tm_mon = t->mon - 1;
	tm.tm_mday = t->mday;
	tm.tm_hour = t->hour;
	tm.tm_min = t->min;
	tm.tm_sec = t->sec > 59 ? 59 : t->sec;	/* a leap second */
	if (t->year != 0) {
		tm.tm_year = t->year - 1900;
		if ((v = timegm(&tm)) == (time_t)-1)
			return (now);
		return ((int64_t)v - (t->has_offset ? t->offset_min * 60 : 0));
	}
	/* BSD syslog: local time, no year */
	if (localtime_r(&n, &nowtm) == NULL)
		return (now);
	tm.tm_year = nowtm.tm_year;
	tm.tm_isdst = -1;
	if ((v = mktime(&tm)) == (time_t)-1)
		return (now);
	if ((int64_t)v > now + 86400) {
		/* December's lines read in January */
		tm.tm_year--;
		tm.tm_isdst = -1;
		if ((v = mktime(&tm)) == (time_t)-1)
			return (now);
	}
	return ((int64_t)v);
}

/* count_cache - the daemon's cache, opened on first need (it may not
 * exist before the daemon ran) */
static struct cache *
count_cache(struct count *c)
{
	char	 err[256];

	if (c->cache != NULL || c->now < c->cache_retry)
		return (c->cache);
	c->cache_retry = c->now + COUNT_CACHE_RETRY;
	if ((c->cache = cache_open(c->cf->cache.path, 0, 1, err,
	    sizeof(err))) == NULL)
		log_warnx("tlsrpt: the daemon's cache %s: %s: sessions are "
		    "not counted until it opens", c->cf->cache.path, err);
	return (c->cache);
}

/* count_mx - the policy's mx patterns, '\n' after each, into c->mx */
static void
count_mx(struct count *c)
{
	const char	*mx;
	size_t		 pos, len;

	buf_reset(&c->mx);
	for (pos = 0; (mx = sts_policy_mx_next(c->pol, &pos, &len)) != NULL; ) {
		buf_append(&c->mx, mx, len);
		buf_append_char(&c->mx, '\n');
	}
}

/* count_add - add one judged session to its domain's counts of the day */
static void
count_add(struct count *c, const char *domain, int64_t day,
    const struct agg_desc *desc, const char *host, const char *addr,
    enum tlsrpt_result result, const char *reason)
{
	char		 key[RSTATE_KEY_LEN];
	const void	*v;
	size_t		 vlen;
	struct agg	 a;
	int		 rc;

	if (rstate_deletable(NULL, day, c->cf->tlsrpt.keep_days, c->now)) {
		/* past keep_days its state may be gone: counted, it would
		 * make a second report of a day already reported */
		c->batch.late++;
		log_debug(1, "tlsrpt: domain=%s day=%s late: older than "
		    "keep_days", domain, rstate_key(key, 'c', day, domain) + 2);
		return;
	}
	if ((rc = store_get(c->store, rstate_key(key, 'r', day, domain), &v,
	    &vlen)) == 1) {
		c->batch.late++;
		log_debug(1, "tlsrpt: domain=%s day=%s late: its report was "
		    "made", domain, key + 2);
		return;
	}
	if (rc == -1) {
		c->error = 1;
		return;
	}
	agg_init(&a);
	rstate_key(key, 'c', day, domain);
	if ((rc = store_get(c->store, key, &v, &vlen)) == 1 &&
	    agg_decode(v, vlen, &a) == -1)
		log_warnx("tlsrpt: %s does not decode: counted anew", key);
	if (rc == -1) {
		c->error = 1;
		return;
	}
	agg_add(&a, desc, host, addr, result, reason);
	buf_reset(&c->enc);
	agg_encode(&a, &c->enc);
	agg_free(&a);
	if (c->enc.error || store_put(c->store, key, c->enc.data,
	    c->enc.len) == -1) {
		c->error = 1;
		return;
	}
	/* the fleet's copy follows the committed counts (fleetagg.h) */
	if (c->cf->fleet.enabled && c->cf->fleet.mode ==
	    CONFIG_FLEET_READ_WRITE && fleetagg_mark(c->store, day,
	    domain) == -1) {
		c->error = 1;
		return;
	}
	c->batch.sessions++;
	if (result == TLSRPT_RESULT_NONE)
		c->batch.success++;
	else
		c->batch.failure++;
}

/*
 * count_policy - the policy the worker decided for domain, named from the
 * daemon's cache (pins first, facts_decide(), verdict_policy()) into vp;
 * 0, or -1 when none can be named (no cache, a pin, nothing reported)
 */
static int
count_policy(struct count *c, const char *domain, struct verdict_policy *vp)
{
	struct cache	*cache;
	struct decide_input in;
	struct decide_pin pin;
	struct decide_result res;
	const struct cache_record *rec = NULL, *dane = NULL;
	char		 dkey[CACHE_KEY_MAX + 1];

	if ((cache = count_cache(c)) == NULL)
		return (-1);
	/* the worker's order: a pin in force answers first */
	if (pins_decide_input(c->cf, domain, NULL, &pin, &in) ==
	    PINS_IN_FORCE)
		return (-1);
	if (cache_get(cache, domain, strlen(domain), &c->rec) == CACHE_HIT)
		rec = &c->rec;
	cache_dane_key(domain, strlen(domain), dkey);
	if (cache_get(cache, dkey, strlen(dkey), &c->dane) == CACHE_HIT)
		dane = &c->dane;
	facts_decide(domain, rec, dane, NULL, c->map, 1, c->pol, &c->reply,
	    &res);
	verdict_policy(rec, dane, &res, vp);
	if (!vp->report) {
		log_debug(1, "tlsrpt: domain=%s answer=%s: not reported",
		    domain, res.answer);
		return (-1);
	}
	return (0);
}

/* count_outcome - a session: name its policy, judge it, count it */
static void
count_outcome(const struct session_outcome *o, void *arg)
{
	struct count	*c = arg;
	struct verdict_policy vp;
	struct agg_desc	 desc;
	enum tlsrpt_result result;

	if (count_policy(c, o->domain, &vp) == -1) {
		c->batch.unknown++;
		return;
	}
	if ((c->cf->tlsrpt.policy_types & (1u << vp.type)) == 0) {
		c->batch.excluded++;
		return;
	}
	result = verdict_session(&vp, o->trust, o->result);
	memset(&desc, 0, sizeof(desc));
	desc.type = vp.type;
	desc.strings = desc.mx = "";
	if (vp.type == TLSRPT_POLICY_STS && vp.failure == TLSRPT_RESULT_NONE &&
	    c->pol->textlen > 0) {
		count_mx(c);
		if (!c->mx.error) {
			desc.strings = c->pol->text;
			desc.slen = c->pol->textlen;
			desc.mx = c->mx.data != NULL ? c->mx.data : "";
			desc.mlen = c->mx.len;
		}
	}
	log_debug(1, "tlsrpt: domain=%s mx=%s addr=%s trust=%s logged=%s "
	    "policy=%s level=%s result=%s", o->domain, o->host, o->addr,
	    maillog_trust_name(o->trust), tlsrpt_result_name(o->result),
	    tlsrpt_policy_type_name(vp.type), verdict_level_name(vp.level),
	    tlsrpt_result_name(result));
	count_add(c, o->domain, report_day(o->when), &desc, o->host, o->addr,
	    result, o->reason);
}

/* count_confirm - the cleanup line of one of our mails: never a session,
 * and that destination took it */
static void
count_confirm(struct count *c, const struct maillog_event *ev, int64_t when)
{
	char		 domain[DOMAIN_BUFSZ], key[RSTATE_KEY_LEN];
	const void	*v;
	size_t		 vlen, dest;
	int64_t		 day;
	struct rstate	 r;

	if (c->cf->tlsrpt.submitter == NULL || rstate_msgid_parse(ev->msgid,
	    strlen(ev->msgid), c->cf->tlsrpt.submitter, &day, &dest,
	    domain) == -1)
		return;
	session_mark_report(c->sessions, ev->qid, when);
	c->batch.confirmed++;
	if (store_get(c->store, rstate_key(key, 'r', day, domain), &v,
	    &vlen) != 1 || rstate_decode(v, vlen, &r) == -1 ||
	    dest >= r.ndest || r.dest[dest].state != RDEST_INTENT)
		return;
	r.dest[dest].state = RDEST_SENT;
	log_info("tlsrpt: domain=%s day=%s dest=%s report=sent queue_id=%s "
	    "(confirmed by the log)", domain, key + 2, r.dest[dest].uri,
	    ev->qid);
	buf_reset(&c->enc);
	rstate_encode(&r, &c->enc);
	if (c->enc.error || store_put(c->store, key, c->enc.data,
	    c->enc.len) == -1)
		c->error = 1;
}

#define COUNT_FIELD_ESC	96	/* a trusted field in a log line */

/* count_esc - a trusted field for a log line: escaped, "-" if absent */
static const char *
count_esc(char *out, const char *v, size_t len)
{
	if (v == NULL)
		return ("-");
	return (log_escape(out, COUNT_FIELD_ESC, v, len));
}

/* count_line - one line of the log */
static void
count_line(const struct follow_line *l, void *arg)
{
	struct count	*c = arg;
	struct maillog_event ev;
	char		 esc[LOG_ESCAPE_MAX + 8], esc2[3][COUNT_FIELD_ESC];
	enum maillog_kind k;
	enum origin_verdict v;
	int64_t		 when;

	c->batch.lines++;
	if (l->too_long) {
		c->batch.malformed++;
		return;
	}
	if (l->journal) {
		k = maillog_message(l->prog, l->proglen, l->pid, l->text,
		    l->len, &ev);
		when = l->time != 0 ? l->time : c->now;
	} else {
		k = maillog_line(l->text, l->len, &ev);
		when = count_line_time(&ev.time, c->now);
	}
	if (k == MAILLOG_IGNORED)
		return;
	/* a line Postfix would have written: did Postfix write it? */
	if (l->journal && (v = origin_journal(&c->origin, l->uid, l->uidlen,
	    l->comm, l->commlen, l->unit, l->unitlen)) != ORIGIN_OK) {
		c->batch.refused_lines[v]++;
		count_rl(c, &c->rl_lines[v], "tlsrpt: a journal entry that is "
		    "not Postfix's (%s %s), refused: _UID=%s _COMM=%s "
		    "_SYSTEMD_UNIT=%s \"%s\"", origin_verdict_name(v),
		    v == ORIGIN_COMM ? "not in trusted_commands" : v ==
		    ORIGIN_UNIT ? "not in trusted_units" :
		    "not in trusted_users", count_esc(esc2[0], l->uid,
		    l->uidlen), count_esc(esc2[1], l->comm, l->commlen),
		    count_esc(esc2[2], l->unit, l->unitlen),
		    log_escape(esc, sizeof(esc), l->text, l->len));
		return;
	}
	/* input socket: the log only confirms the reporter's own mails */
	if (c->cf->tlsrpt.input == CONFIG_TLSRPT_INPUT_SOCKET &&
	    k != MAILLOG_MESSAGE_ID)
		return;
	switch (k) {
	case MAILLOG_IGNORED:
		return;
	case MAILLOG_MALFORMED:
		c->batch.malformed++;
		log_warnx("tlsrpt: a log line of a form the reporter reads "
		    "does not parse (a newer Postfix?), not counted: \"%s\"",
		    log_escape(esc, sizeof(esc), l->text, l->len));
		return;
	case MAILLOG_MESSAGE_ID:
		count_confirm(c, &ev, when);
		return;
	default:
		session_event(c->sessions, &ev, when, count_outcome, c);
		return;
	}
}

/*
 * count_dgram_policy - one policy of a datagram: one session of d's
 * domain, under the policy Postfix says it applied (the cache is asked
 * only when that is none: see below).  The result of a failed one is its first failure
 * detail's (one session, one row, as a log session gives); a failure
 * without details is a validation-failure.  A DANE policy's strings are
 * Postfix's TLSA records; an STS policy's are the policy lines our map
 * sent Postfix (policy_string), the lines the log input takes from the
 * cache: the same report either way.
 */
static void
count_dgram_policy(struct count *c, const struct dgram *d,
    const struct dgram_policy *p, int64_t day)
{
	struct agg_desc	 desc;
	struct verdict_policy vp;
	const struct dgram_detail *fd = p->ndetails > 0 ? &p->details[0] :
	    NULL;
	enum tlsrpt_result result = TLSRPT_RESULT_NONE;
	enum tlsrpt_policy_type type = p->type;

	memset(&desc, 0, sizeof(desc));
	desc.strings = p->strings.data != NULL ? p->strings.data : "";
	desc.slen = p->strings.len;
	desc.mx = p->mx.data != NULL ? p->mx.data : "";
	desc.mlen = p->mx.len;
	if (p->failed)
		result = fd != NULL ? fd->result : TLSRPT_RESULT_VALIDATION;
	/*
	 * Postfix enforced no policy, and says no-policy-found, also when an
	 * MTA-STS policy exists but could not be fetched (RFC 8461 §5: no
	 * policy then); it has no way to say so (its policy_failure
	 * attribute would fail the delivery).  The daemon's cache knows:
	 * such a session is an STS session with the fetch's result type
	 * (RFC 8460 §4.3.2.2), as the log input counts it.
	 */
	if (type == TLSRPT_POLICY_NONE && count_policy(c, d->domain, &vp) ==
	    0 && vp.type == TLSRPT_POLICY_STS &&
	    vp.failure != TLSRPT_RESULT_NONE) {
		type = TLSRPT_POLICY_STS;
		result = vp.failure;
		desc.strings = desc.mx = "";
		desc.slen = desc.mlen = 0;
	}
	if ((c->cf->tlsrpt.policy_types & (1u << type)) == 0) {
		c->batch.excluded++;
		return;
	}
	desc.type = type;
	log_debug(1, "tlsrpt: datagram domain=%s policy=%s mx=%s addr=%s "
	    "result=%s", d->domain, tlsrpt_policy_type_name(type),
	    fd != NULL && fd->host[0] != '\0' ? fd->host : "-",
	    fd != NULL && fd->addr[0] != '\0' ? fd->addr : "-",
	    tlsrpt_result_name(result));
	count_add(c, d->domain, day, &desc, fd != NULL && p->failed ?
	    fd->host : "", fd != NULL && p->failed ? fd->addr : "", result,
	    fd != NULL && p->failed ? fd->reason : "");
}

/* count_dgram - one datagram from the socket */
static void
count_dgram(const struct collect_dgram *in, void *arg)
{
	struct count	*c = arg;
	char		 why[256], esc[LOG_ESCAPE_MAX + 8];
	char		 esc2[LOG_ESCAPE_MAX + 8];
	enum dgram_status st;
	int64_t		 day;
	size_t		 i;

	c->batch.datagrams++;
	/* SCM_CREDENTIALS: the kernel's word for who sent it */
	if (!in->has_cred || !origin_uid_ok(&c->origin, in->uid)) {
		c->batch.refused_sender++;
		if (in->has_cred)
			count_rl(c, &c->rl_sender, "tlsrpt: a datagram from "
			    "uid %lu (pid %ld), not one of trusted_users: "
			    "refused", (unsigned long)in->uid, (long)in->pid);
		else
			count_rl(c, &c->rl_sender, "tlsrpt: a datagram "
			    "without its sender's credentials: refused");
		return;
	}
	if (in->too_long) {
		st = DGRAM_LIMIT;
		snprintf(why, sizeof(why), "more than %d bytes", DGRAM_MAX);
	} else
		st = dgram_parse(in->data, in->len, c->dg, why, sizeof(why));
	if (st != DGRAM_OK) {
		c->batch.refused[st]++;
		count_rl(c, &c->rl_dgram, "tlsrpt: a datagram from pid %ld "
		    "refused (%s): %s: \"%s\"", (long)in->pid,
		    dgram_status_name(st), log_escape(esc, sizeof(esc), why,
		    strlen(why)), log_escape(esc2, sizeof(esc2), in->data,
		    in->len));
		return;
	}
	day = report_day(c->now);
	for (i = 0; i < c->dg->npolicies; i++)
		count_dgram_policy(c, c->dg, &c->dg->policies[i], day);
}

int
count_stored_pos(struct store *s, struct buf *out)
{
	const void	*v;
	size_t		 vlen;
	int		 rc;

	if ((rc = store_get(s, "pos", &v, &vlen)) != 1)
		return (rc == 0 ? 1 : -1);
	buf_append(out, v, vlen);
	return (out->error ? -1 : 0);
}

int
count_reload(struct count *c)
{
	const void	*v;
	size_t		 vlen;
	int		 rc = 0;

	session_init(c->sessions, c->cf->tlsrpt.sender);
	if (store_begin(c->store, 0) == -1)
		return (-1);
	if (store_get(c->store, "sessions", &v, &vlen) == 1 &&
	    session_decode(v, vlen, c->sessions) == -1) {
		log_warnx("tlsrpt: the saved session lines do not decode: "
		    "their sessions are lost");
		rc = 0;
	}
	store_abort(c->store);
	return (rc);
}

int
count_open(struct count *c, const struct config *cf, struct store *store)
{
	char	 err[256];

	memset(c, 0, sizeof(*c));
	c->cf = cf;
	c->store = store;
	if (origin_init(&c->origin, &cf->tlsrpt, err, sizeof(err)) == -1) {
		log_warnx("tlsrpt: %s", err);
		return (-1);
	}
	if ((c->map = config_find_map(cf, cf->tlsrpt.map,
	    strlen(cf->tlsrpt.map))) == NULL) {
		log_warnx("tlsrpt: no map \"%s\"", cf->tlsrpt.map);
		return (-1);
	}
	c->sessions = xmalloc(sizeof(*c->sessions));
	c->pol = xmalloc(sizeof(*c->pol));
	buf_init(&c->reply, SOCKMAP_MAX_OK_DATA);
	buf_init(&c->enc, COUNT_ENC_MAX);
	buf_init(&c->mx, AGG_MAX_TEXT);
	cache_record_init(&c->rec);
	cache_record_init(&c->dane);
	if (cf->tlsrpt.input == CONFIG_TLSRPT_INPUT_SOCKET)
		c->dg = dgram_new();
	return (count_reload(c));
}

void
count_close(struct count *c)
{
	cache_close(c->cache);
	free(c->sessions);
	free(c->pol);
	buf_free(&c->reply);
	buf_free(&c->enc);
	buf_free(&c->mx);
	cache_record_release(&c->rec);
	cache_record_release(&c->dane);
	dgram_free(c->dg);
	memset(c, 0, sizeof(*c));
}

/* count_counters - the batch's counters into the store */
static int
count_counters(struct count *c)
{
	const struct count_stats *b = &c->batch;
	const struct { const char *name; uint64_t n; } m[] = {
		{ "lines", b->lines },
		{ "lines_malformed", b->malformed },
		{ "sessions", b->sessions },
		{ "sessions_success", b->success },
		{ "sessions_failure", b->failure },
		{ "sessions_unknown_policy", b->unknown },
		{ "sessions_excluded", b->excluded },
		{ "sessions_late", b->late },
		{ "reports_confirmed", b->confirmed },
		{ "lines_refused_no_uid", b->refused_lines[ORIGIN_NO_UID] },
		{ "lines_refused_uid", b->refused_lines[ORIGIN_UID] },
		{ "lines_refused_comm", b->refused_lines[ORIGIN_COMM] },
		{ "lines_refused_unit", b->refused_lines[ORIGIN_UNIT] },
		{ "datagrams", b->datagrams },
		{ "datagrams_refused_sender", b->refused_sender },
		{ "datagrams_backlog", b->backlog },
	};
	char	 name[64];
	size_t	 i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i].n > 0 && store_counter_add(c->store, m[i].name,
		    m[i].n) == -1)
			return (-1);
	for (i = 1; i <= DGRAM_STATUS_MAX; i++) {
		snprintf(name, sizeof(name), "datagrams_refused_%s",
		    dgram_status_name((int)i));
		if (b->refused[i] > 0 && store_counter_add(c->store, name,
		    b->refused[i]) == -1)
			return (-1);
	}
	return (0);
}

/*
 * count_step - since the last batch, has the wall clock moved more or less
 * than the monotonic one (settimeofday, an NTP step)?  Then the pending
 * lines' ages move with it: they are measured in the log's own times,
 * and a TLS line logged before a step forward of two hours is not two
 * hours old (session_expire would drop it before its delivery line came,
 * and the session would never be counted).
 */
static void
count_step(struct count *c)
{
	int64_t		 mono = clock_ms() / 1000, step;

	if (c->step_mono != 0) {
		step = (c->now - c->step_wall) - (mono - c->step_mono);
		if (step >= COUNT_STEP_MIN || step <= -COUNT_STEP_MIN) {
			log_info("tlsrpt: the wall clock stepped %s by %lld s: "
			    "%zu pending session lines kept as old as they "
			    "were", step > 0 ? "forward" : "back",
			    (long long)(step > 0 ? step : -step),
			    session_pending(c->sessions));
			session_shift(c->sessions, step);
		}
	}
	c->step_wall = c->now;
	c->step_mono = mono;
}

/* count_begin - a batch's transaction, its counters zero: 0 or -1 */
static int
count_begin(struct count *c)
{
	c->now = clock_wall();
	count_step(c);
	c->error = 0;
	memset(&c->batch, 0, sizeof(c->batch));
	return (store_begin(c->store, 1));
}

/* count_totals - a committed batch's counters into the totals */
static void
count_totals(struct count *c)
{
	c->total.lines += c->batch.lines;
	c->total.malformed += c->batch.malformed;
	c->total.sessions += c->batch.sessions;
	c->total.success += c->batch.success;
	c->total.failure += c->batch.failure;
	c->total.unknown += c->batch.unknown;
	c->total.excluded += c->batch.excluded;
	c->total.late += c->batch.late;
	c->total.confirmed += c->batch.confirmed;
}

long
count_batch(struct count *c, struct follow *f, size_t max)
{
	long	 n;

	if (count_begin(c) == -1)
		return (-1);
	if ((n = follow_read(f, max, count_line, c)) == -1)
		goto fail;
	session_expire(c->sessions, c->now);
	buf_reset(&c->enc);
	session_encode(c->sessions, &c->enc);
	if (c->error || c->enc.error || store_put(c->store, "sessions",
	    c->enc.data, c->enc.len) == -1)
		goto fail;
	buf_reset(&c->enc);
	follow_pos(f, &c->enc);
	if (c->enc.error || store_put(c->store, "pos", c->enc.data,
	    c->enc.len) == -1 || count_counters(c) == -1)
		goto fail;
	if (store_commit(c->store) == -1)
		return (-1);
	count_totals(c);
	return (n);
fail:
	store_abort(c->store);
	return (-1);
}

long
count_dgrams(struct count *c, struct collect *in, size_t max)
{
	long	 n;

	if (count_begin(c) == -1)
		return (-1);
	if ((n = collect_read(in, max, count_dgram, c)) == -1)
		goto fail;
	if (n == 0) {
		store_abort(c->store);
		return (0);
	}
	if ((size_t)n == max)
		c->batch.backlog++;
	if (c->error || count_counters(c) == -1)
		goto fail;
	if (store_commit(c->store) == -1)
		goto lost;
	count_totals(c);
	return (n);
fail:
	store_abort(c->store);
lost:
	/* a full disk fails every batch while datagrams keep coming: one
	 * line a minute with the sum since the last one (the store cannot
	 * count them: its write is what failed) */
	c->lost_quiet += (uint64_t)n;
	if (c->rl_lost.last == 0 || c->now < c->rl_lost.last ||
	    c->now >= c->rl_lost.last + COUNT_RL_SECONDS) {
		log_warnx("tlsrpt: %llu datagrams were read but not "
		    "committed: their sessions are lost (one line a minute "
		    "while it fails)", (unsigned long long)c->lost_quiet);
		c->rl_lost.last = c->now;
		c->lost_quiet = 0;
	}
	return (-1);
}
