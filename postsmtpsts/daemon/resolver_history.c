/*
 * resolver_history.c - the resolver's policy events: found, logged,
 * counted, appended to the history file (issue 38)
 *
 * Interface (resolver_int.h): resolver_history_start() and _stop() open
 * and close the file (cache.history_file; none without a cache: nothing
 * to compare with); resolver_history_sts() and _dane() take a job's merge
 * (the record the cache held, the one the merge gave) and hand each event
 * policy/history.c finds to resolver_history_emit().
 *
 * preload-overridden: when a merge stores an STS policy the cache did
 * not hold (none before, or another id or mode) for a domain with an
 * unexpired preload entry (lib/preload_store, opened read-only as the
 * workers do: tried at most once a second until it exists), the
 * discovered policy answers from now on instead of the entry (decide.h
 * step 4): one event, with the list's name and timestamp.  A refresh
 * that finds the same policy again is nothing new and records nothing,
 * so the event is written once per policy that overrides the entry.
 *
 * Each event is one log line, key=value (notice level for the events
 * history_event_alert() names, info for the rest), one increment of
 * postsmtpsts_policy_events_total{kind}, and one JSON line appended to
 * the file (lib/linelog: one O_APPEND write(2) of at most PIPE_BUF bytes,
 * so the shards, each writing its own domains' events, never tear each
 * other's lines; reopened when logrotate has renamed the file).  A file
 * that cannot be written is logged at most once a minute; the event is
 * still logged and counted.  Only events this host discovered are
 * recorded: a record taken from the fleet (rfleet) was recorded by the
 * host that fetched it.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/linelog.h"
#include "lib/log.h"
#include "lib/preload_store.h"
#include "policy/dane.h"
#include "policy/history.h"
#include "daemon/resolver_int.h"
#include "daemon/stats.h"
#include "lib/xmalloc.h"

#define RESOLVER_HISTORY_ERROR_GAP	60	/* seconds between warnings */

static const char *const resolver_history_modes[] = {
	"none", "testing", "enforce"
};

void
resolver_history_start(struct resolver *r)
{
	const struct config *cf = r->cf;

	r->history = NULL;
	if (cf->cache.enabled && cf->cache.history_file != NULL)
		r->history = linelog_new(cf->cache.history_file);
	r->hev = xcalloc(1, sizeof(*r->hev));
}

void
resolver_history_stop(struct resolver *r)
{
	linelog_free(r->history);
	r->history = NULL;
	free(r->hev);
	r->hev = NULL;
	cache_record_release(&r->hist_old);
	preload_store_close(r->preload);
	r->preload = NULL;
}

/* resolver_history_mode - a mode's name, "-" for none */
static const char *
resolver_history_mode(int m)
{
	return (m >= 0 && m <= CACHE_STS_ENFORCE ? resolver_history_modes[m] :
	    "-");
}

/* resolver_history_log - the event's decision-log line */
static void
resolver_history_log(const struct history_event *ev)
{
	char	 omx[LOG_ESCAPE_MAX * 4 + 8], mx[LOG_ESCAPE_MAX * 4 + 8];
	char	 extra[LOG_ESCAPE_MAX * 8 + 128];
	size_t	 n;

	extra[0] = '\0';
	if (ev->source == HISTORY_SOURCE_DNS)
		snprintf(extra, sizeof(extra), " old_dane=%s dane=%s",
		    ev->old_dane >= 0 ? dane_state_name((enum dane_state)
		    ev->old_dane) : "-", ev->dane >= 0 ?
		    dane_state_name((enum dane_state)ev->dane) : "-");
	else if (ev->has_mx && ev->kind != HISTORY_FIRST_SEEN)
		snprintf(extra, sizeof(extra), " old_mx=\"%s\" mx=\"%s\"",
		    log_escape(omx, sizeof(omx), ev->old_mx,
		    strlen(ev->old_mx)), log_escape(mx, sizeof(mx), ev->mx,
		    strlen(ev->mx)));
	else if (ev->expired_at != 0)
		snprintf(extra, sizeof(extra), " expired_at=%lld",
		    (long long)ev->expired_at);
	else if (ev->detail[0] != '\0')
		snprintf(extra, sizeof(extra), " detail=\"%s\"",
		    log_escape(mx, sizeof(mx), ev->detail,
		    strlen(ev->detail)));
	if (ev->source == HISTORY_SOURCE_PRELOAD && ev->has_mx &&
	    ev->detail[0] != '\0') {	/* the mx lists, then the list */
		n = strlen(extra);
		snprintf(extra + n, sizeof(extra) - n, " detail=\"%s\"",
		    log_escape(mx, sizeof(mx), ev->detail,
		    strlen(ev->detail)));
	}
	(history_event_alert(ev) ? log_notice : log_info)(
	    "domain=%s policy_event=%s source=%s trigger=%s old_id=%s id=%s "
	    "old_mode=%s mode=%s%s", ev->domain, history_kind_name(ev->kind),
	    history_source_name(ev->source),
	    ev->trigger[0] != '\0' ? ev->trigger : "-",
	    ev->old_id[0] != '\0' ? ev->old_id : "-",
	    ev->id[0] != '\0' ? ev->id : "-",
	    resolver_history_mode(ev->old_mode),
	    resolver_history_mode(ev->mode), extra);
}

void
resolver_history_emit(struct resolver *r, const struct history_event *ev)
{
	char	 line[HISTORY_LINE_MAX + 1];
	int	 n;
	time_t	 now;

	stats_policy_event(ev->kind);
	resolver_history_log(ev);
	if (r->history == NULL)
		return;
	if ((n = history_format(ev, line, sizeof(line))) == -1) {
		log_warnx("domain=%s policy_event=%s: no history line could be "
		    "formed", ev->domain, history_kind_name(ev->kind));
		return;
	}
	if (linelog_write(r->history, line, (size_t)n) == 0)
		return;
	now = clock_wall();
	if (now - r->last_history_error >= RESOLVER_HISTORY_ERROR_GAP) {
		log_warn("history file %s: event not recorded (logged and "
		    "counted only); further errors suppressed for a minute",
		    linelog_path(r->history));
		r->last_history_error = now;
	}
}

/* resolver_history_cb - history_emit_fn: arg is the resolver */
static void
resolver_history_cb(const struct history_event *ev, void *arg)
{
	resolver_history_emit(arg, ev);
}

/* resolver_history_old - the record the cache holds for the part (what the
 * job read, or, when it bypassed the cache, a read now), NULL for none */
static const struct cache_record *
resolver_history_old(struct job *j, int dane)
{
	if (dane ? j->have_old_dane : j->have_old)
		return (dane ? &j->old_dane : &j->old);
	if (resolver_store_cached(j->r, j->node.domain, j->node.len, dane,
	    &j->r->hist_old))
		return (&j->r->hist_old);
	return (NULL);
}

/*
 * resolver_history_preload - the preload-overridden event of a merge
 * that stored found over old (NULL: none held) for domain, if a preload
 * list names it and found is an STS policy the cache did not hold
 */
static void
resolver_history_preload(struct resolver *r, const char *domain,
    const struct cache_record *old, const struct cache_record *found,
    const struct discover_result *res, const char *trigger, int64_t now)
{
	struct preload_store_hit hit;
	struct cache_record pre;
	struct tm	 tm;
	time_t		 tt;
	char		 err[512], ts[32], detail[HISTORY_DETAIL_MAX];

	if (!r->cf->cache.enabled || found == NULL ||
	    found->kind != CACHE_KIND_STS)
		return;
	/* the same policy again: recorded when it first overrode the entry
	 * (or held before the list named the domain: see DESIGN) */
	if (old != NULL && old->kind == CACHE_KIND_STS &&
	    old->sts_mode == found->sts_mode && strcmp(old->id, found->id) == 0)
		return;
	if (r->preload == NULL) {
		if ((time_t)now == r->preload_retry)
			return;
		r->preload_retry = (time_t)now;
		if ((r->preload = preload_store_open(r->cf->preload.path, 1,
		    err, sizeof(err))) == NULL) {
			log_debug(3, "resolver: %s", err);
			return;
		}
	}
	/* an expired list's entries answer nothing: nothing is overridden */
	if (preload_store_get(r->preload, domain, &hit) != 1 ||
	    hit.expires <= now)
		return;
	memset(&pre, 0, sizeof(pre));
	pre.kind = CACHE_KIND_STS;
	pre.sts_mode = hit.mode == 2 ? CACHE_STS_ENFORCE : CACHE_STS_TESTING;
	pre.nmx = (uint16_t)hit.nmx;
	pre.mx = (char *)hit.mx;
	pre.mxlen = (uint32_t)hit.mxlen;
	tt = (time_t)hit.timestamp;
	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(ts, sizeof(ts), "%lld", (long long)hit.timestamp);
	snprintf(detail, sizeof(detail), "list=%s timestamp=%s", hit.list, ts);
	history_preload_event(r->hev, domain, &pre, found, res, trigger,
	    detail, now);
	resolver_history_emit(r, r->hev);
}

void
resolver_history_sts(struct job *j, const struct discover_result *res,
    const struct cache_record *stored, int refused, const char *trigger,
    int64_t now)
{
	const struct cache_record *old = resolver_history_old(j, 0);

	(void)history_sts_events(j->node.domain, old, res, stored, refused,
	    trigger, now, j->r->hev, resolver_history_cb, j->r);
	resolver_history_preload(j->r, j->node.domain, old, stored, res,
	    trigger, now);
}

void
resolver_history_deleted(struct resolver *r, const char *domain,
    const struct cache_record *rec)
{
	if (rec->kind != CACHE_KIND_STS)
		return;
	history_expired_event(r->hev, domain, rec, "deletion", clock_wall());
	resolver_history_emit(r, r->hev);
}

void
resolver_history_dane(struct job *j, const struct cache_record *stored,
    const char *trigger, int64_t now)
{
	(void)history_dane_events(j->node.domain, resolver_history_old(j, 1),
	    stored, trigger, now, j->r->hev, resolver_history_cb, j->r);
}
