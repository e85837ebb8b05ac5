/*
 * history.h - the record of every policy seen: events, their rules, the
 * line codec (issue 38)
 *
 * NAME
 *	history - what changed about a domain's policy, as events
 * SYNOPSIS
 *	history_sts_events(), history_dane_events(): the events of one merge
 *	history_preload_event(): the preload list overrode what was known
 *	history_mx_moved(): the "another provider" rule
 *	history_format(), history_parse(): one event as one JSON line
 * DESCRIPTION
 *	The resolver compares the record it held with the record a merge
 *	(facts.h) gives, and each difference worth keeping is an event:
 *
 *	kind                  when                                      level
 *	--------------------  ----------------------------------------  ------
 *	first-seen            an STS policy stored, none cached before   info
 *	                      (never seen, or deleted a day after its
 *	                      expiry: the refresh walk's grace)
 *	id-changed            an STS policy stored under another id      info
 *	mode-changed          ... in another mode, not a downgrade       info
 *	mode-downgraded       ... enforce before, testing or none now    notice
 *	mx-changed            ... another mx set (order, case aside)     info
 *	mx-provider-changed   ... another mx set that shares no provider notice
 *	                      with the old one (history_mx_moved)
 *	expired               a cached STS policy past its max_age and   info
 *	                      not renewed (the merge replaced it, or a
 *	                      fetch came only after the expiry, or the
 *	                      refresh walk deleted it after its grace:
 *	                      trigger "deletion")
 *	dane-appeared         usable or TLS-requiring TLSA records where info
 *	                      the cache knew none (or knew nothing)
 *	dane-disappeared      DNSSEC now proves no TLSA records where    notice
 *	                      the cache had some (a failed lookup is no
 *	                      proof: facts_dane_merge keeps the record)
 *	downgrade-refused     the same id served with a weaker mode:     notice
 *	                      refused by trust on first use (facts.h),
 *	                      recorded all the same
 *	preload-overridden    a discovered STS policy stored for a       info,
 *	                      domain a preload list names: it answers   notice
 *	                      now, not the list's entry (decide.h       when
 *	                      step 4).  Once: when no STS policy was    weaker
 *	                      held before, or the one held had another
 *	                      id or mode (a refresh of the same policy
 *	                      is nothing new).  old_mode/old_mx: the
 *	                      list's entry (no id), id/mode/mx/sha256:
 *	                      the discovered policy, detail: the list's
 *	                      name and timestamp.  Notice when weaker:
 *	                      an enforce entry overridden by testing or
 *	                      none (history_event_alert)
 *
 *	One discovery can give several (id-changed, mode-downgraded and
 *	mx-provider-changed for one new policy), in that order.
 *
 *	Another provider (history_mx_moved): each mx pattern (a leading
 *	"*." dropped) has a provider key, its last two labels, or three when
 *	the top-level label has two letters (a country code) and the one
 *	before it is a common second-level label (co com net org edu gov ac
 *	ne or go ltd plc mil nom): mx.google.com -> google.com,
 *	mx1.example.co.uk -> example.co.uk.  No public suffix list is on the
 *	system, so this is the approximation; it errs towards "same
 *	provider" under a public suffix it does not know (two customers of
 *	a shared second-level domain look alike), never towards a false
 *	alarm for a provider's own renaming.  The set moved when the old and
 *	the new set are both non-empty and no key of one is a key of the
 *	other.
 *
 * LINE FORMAT
 *	One JSON object a line, written by json-c (escaping is its job), at
 *	most HISTORY_LINE_MAX bytes with the newline, so that one write(2)
 *	with O_APPEND is one whole line among several writers:
 *	  {"time":"2026-12-07T11:00:00Z","ts":1796641200,
 *	   "domain":"example.com","event":"mode-downgraded",
 *	   "source":"fetch","trigger":"proactive",
 *	   "old_id":"1","id":"2","sha256":"<64 hex>",
 *	   "old_mode":"enforce","mode":"none",
 *	   "old_mx":["mx.example.com"],"mx":[], ...}
 *	always: time, ts, domain, event, source, old_id, id, sha256 (null
 *	when not known); as the event has them: trigger, old_mode, mode,
 *	old_mx, mx (both or neither; replaced by "mx_omitted":true when the
 *	line would pass HISTORY_LINE_MAX), old_dane, dane (dane_state_name),
 *	expired_at, detail.  sha256 is the SHA-256 of the policy body as
 *	fetched, lower-case hex (the policy of a fetch event, refused or
 *	not).  source: fetch (MTA-STS discovery), dns (the DANE lookup),
 *	preload.  trigger: request, proactive, txt-check, id-change,
 *	deletion (the refresh walk's, for expired).
 *
 *	history_parse() reads a line back (postsmtpsts-cache history): no
 *	I/O, untrusted input (the file is ours, but a tool should not trust
 *	a file it is pointed at): json-c's strict tokener, depth 3, UTF-8
 *	checked; each field checked as history_format() writes it.
 */
#ifndef HISTORY_H
#define HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"
#include "lib/domain.h"

struct discover_result;
struct dane_result;

#define HISTORY_LINE_MAX	4096	/* PIPE_BUF on Linux: one write(2) */
#define HISTORY_MX_MAX		HISTORY_LINE_MAX	/* joined list, NUL */
#define HISTORY_DETAIL_MAX	256	/* a free-text detail, NUL */
#define HISTORY_SHA256_HEX	64
#define HISTORY_TRIGGER_MAX	16
#define HISTORY_TIME_MAX	253402300799LL	/* 9999-12-31T23:59:59Z: the
						   last time ISO 8601's four
						   digits can write */

enum history_kind {
	HISTORY_FIRST_SEEN,
	HISTORY_ID_CHANGED,
	HISTORY_MODE_CHANGED,
	HISTORY_MODE_DOWNGRADED,
	HISTORY_MX_CHANGED,
	HISTORY_MX_PROVIDER_CHANGED,
	HISTORY_EXPIRED,
	HISTORY_DANE_APPEARED,
	HISTORY_DANE_DISAPPEARED,
	HISTORY_DOWNGRADE_REFUSED,
	HISTORY_PRELOAD_OVERRIDDEN,
	HISTORY_KIND_COUNT,
};

enum history_source {
	HISTORY_SOURCE_FETCH,
	HISTORY_SOURCE_DNS,
	HISTORY_SOURCE_PRELOAD,
	HISTORY_SOURCE_COUNT,
};

/* One event.  Strings are NUL-terminated, "" when not known; modes are
 * enum cache_sts_mode and DANE states enum dane_state, -1 when not
 * known.  Large (two mx lists): one per caller, reused. */
struct history_event {
	enum history_kind kind;
	enum history_source source;
	int64_t		 time;
	char		 domain[DOMAIN_BUFSZ];
	char		 trigger[HISTORY_TRIGGER_MAX];
	char		 old_id[CACHE_ID_LEN];
	char		 id[CACHE_ID_LEN];
	char		 sha256[HISTORY_SHA256_HEX + 1];
	int		 old_mode;
	int		 mode;
	int		 has_mx;	/* old_mx and mx are set */
	int		 mx_omitted;	/* the lists did not fit a line */
	char		 old_mx[HISTORY_MX_MAX];	/* comma-joined */
	char		 mx[HISTORY_MX_MAX];
	int		 old_dane;
	int		 dane;
	int64_t		 expired_at;	/* 0: not set */
	char		 detail[HISTORY_DETAIL_MAX];
};

/* history_emit_fn - one event found (ev is the caller's scratch, valid
 * during the call only) */
typedef void	history_emit_fn(const struct history_event *ev, void *arg);

/* history_kind_name - "first-seen", ...; NULL for no kind */
const char	*history_kind_name(enum history_kind k);

/* history_kind_value - the kind of a name, or -1 */
int		 history_kind_value(const char *name, size_t len);

/* history_source_name - "fetch", "dns", "preload" */
const char	*history_source_name(enum history_source s);

/* history_kind_alert - 1 for the kinds an operator wants to be told
 * about (logged at notice level): mode-downgraded, mx-provider-changed,
 * dane-disappeared, downgrade-refused */
int		 history_kind_alert(enum history_kind k);

/* history_event_alert - 1 if this event is logged at notice level: its
 * kind's rule, and for preload-overridden an enforce entry overridden by
 * a testing or none policy */
int		 history_event_alert(const struct history_event *ev);

/* history_event_init - ev emptied for kind, domain (normalized), source
 * and time */
void	history_event_init(struct history_event *ev, enum history_kind kind,
	    enum history_source source, const char *domain, int64_t now);

/*
 * history_mx_moved - 1 if the mx set of b shares no provider key (above)
 * with a's, both non-empty; 0 otherwise
 */
int	history_mx_moved(const struct cache_record *a,
	    const struct cache_record *b);

/* history_mx_same - 1 if a and b hold the same mx patterns as sets
 * (ASCII case aside) */
int	history_mx_same(const struct cache_record *a,
	    const struct cache_record *b);

/* history_mx_provider - the provider key of pattern p[0..len): its
 * offset in p; *keylen its length */
size_t	history_mx_provider(const char *p, size_t len, size_t *keylen);

/*
 * history_sts_events - the events of one MTA-STS merge, each handed to fn
 * in the table's order.  old: the record the cache held (any kind,
 * expired or not; NULL for none); res: the discovery; stored: the record
 * facts_merge() gave (or old, kept); refused: facts_merge() refused
 * res's policy as a downgrade (facts_downgrade_refused); trigger: why the
 * discovery ran (the decision log's refresh=).  ev is the caller's
 * scratch.  Returns the number of events.
 */
int	history_sts_events(const char *domain, const struct cache_record *old,
	    const struct discover_result *res,
	    const struct cache_record *stored, int refused,
	    const char *trigger, int64_t now, struct history_event *ev,
	    history_emit_fn *fn, void *arg);

/*
 * history_dane_events - the events of one DANE merge: old the DANE record
 * the cache held (NULL for none; expired ones count), stored what
 * facts_dane_merge() gave.  As history_sts_events().
 */
int	history_dane_events(const char *domain, const struct cache_record *old,
	    const struct cache_record *stored, const char *trigger,
	    int64_t now, struct history_event *ev, history_emit_fn *fn,
	    void *arg);

/*
 * history_expired_event - fill ev for an expired event of rec (an STS
 * record past its expires_at that no merge replaced), found by trigger
 * ("deletion": the refresh walk deletes it after its grace)
 */
void	history_expired_event(struct history_event *ev, const char *domain,
	    const struct cache_record *rec, const char *trigger, int64_t now);

/*
 * history_preload_event - fill ev for a preload-overridden event: pre the
 * list's entry as a record (kind STS, its mode and mx, no id), found the
 * discovered record stored over it, res the discovery (its body's
 * SHA-256; NULL: none), trigger as history_sts_events'; pre, found may be
 * NULL; detail: the list (free text, bounded and kept printable ASCII).
 * The resolver emits ev as the others (resolver_history_emit).
 */
void	history_preload_event(struct history_event *ev, const char *domain,
	    const struct cache_record *pre, const struct cache_record *found,
	    const struct discover_result *res, const char *trigger,
	    const char *detail, int64_t now);

/*
 * history_format - ev as one JSON line with its newline into out[outsz],
 * NUL-terminated: the length, or -1 if it cannot fit HISTORY_LINE_MAX
 * (not with the mx lists omitted either) or outsz.
 */
int	history_format(const struct history_event *ev, char *out,
	    size_t outsz);

/*
 * history_parse - one line p[0..len) (no newline) into *ev: 0, or -1
 * with why (static text) in *why.  Pure, no I/O.
 */
int	history_parse(const char *p, size_t len, struct history_event *ev,
	    const char **why);

#endif
