/*
 * pins.h - an operator's pinned policies: their grammar, and the one way
 * a lookup consults them
 *
 * A pin is a "domain" section of postsmtpsts.conf(5): level, match,
 * servername, protocols, ciphers, exclude (policy/tlsattr.h), and
 * optionally until (a timed exception: the pin ends).
 * pins_parse() checks them against Postfix's
 * smtp_tls_policy_maps grammar (postconf(5); src/smtp/smtp_tls_policy.c:
 * which attribute each level accepts) and composes the exact reply data
 * Postfix reads, e.g. "secure match=mx1.example.com:.example.net
 * servername=hostname".  The configuration loader (conf/config_sections.c,
 * a layer above policy/) calls it for every "domain" section and keeps the
 * result in struct config_domain (the loader does the libconfuse plumbing
 * only).
 *
 * pins_decide_input() is the one place a lookup meets the pins: the worker
 * (daemon) and postsmtpsts-query both start their decide_input with it,
 * so decide() applies the precedence pin > DANE > MTA-STS for both.  A
 * pin whose end has passed (clock_wall() >= end: one comparison) lapses
 * there, for both: the lookup goes on as if the section were absent.
 */
#ifndef PINS_H
#define PINS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/config.h"
#include "policy/decide.h"

struct buf;

#define PINS_MAX_MATCH		CONFIG_MAX_MATCH	/* tokens per pin */
#define PINS_MAX_ANSWER		CONFIG_MAX_ANSWER	/* composed reply */
#define PINS_ERROR_MAX		512			/* one message */
#define PINS_UNTIL_BUFSZ	21	/* "YYYY-MM-DDTHH:MM:SSZ" and NUL */
#define PINS_UNTIL_TEXT_MAX	64	/* pins_until_text() */
#define PINS_UNTIL_MIN_YEAR	2000
#define PINS_UNTIL_MAX_YEAR	9999

/* What a lookup finds in the pins. */
enum pins_state {
	PINS_NONE = 0,		/* no domain section */
	PINS_IN_FORCE,		/* pinned: no end, or before it */
	PINS_LAPSED,		/* its until has passed: as if absent */
};

/* pins_err_fn - one error: field "level", "match", "servername", "until",
 * "protocols", "ciphers", "exclude" or NULL
 * (the section), msg a complete sentence without file:line */
typedef void	pins_err_fn(void *arg, const char *field, const char *msg);

/*
 * pins_parse - check one pin and fill d->level, d->match, d->servername,
 * d->protocols, d->ciphers, d->exclude, d->floor_attrs, d->answer and,
 * with an until, d->until and d->end (allocated; config_free frees them)
 *
 * title is the domain as written (for messages); level, match, servername
 * and until are the values as written ("" when absent); tls (NULL: none)
 * the values of protocols, ciphers and exclude, indexed by enum
 * tlsattr_kind ("" or NULL when absent).  Every error is
 * reported through err (all of them, not only the first).  Returns 0, or
 * -1 if any error was reported.  An end in the past is no error (-t warns).
 */
int	pins_parse(const char *title, const char *level, const char *match,
	    const char *servername, const char *until,
	    const char *const *tls, struct config_domain *d,
	    pins_err_fn *err, void *arg);

/*
 * pins_until_parse - an exception's end, in UTC, one of
 *	YYYY-MM-DD		the pin holds through that day: *end is the
 *				next day's 00:00:00Z
 *	YYYY-MM-DDTHH:MM:SSZ	the pin lapses at that second: *end
 * (T and Z in either case; no offsets, no fractions; years
 * PINS_UNTIL_MIN_YEAR to PINS_UNTIL_MAX_YEAR; real calendar dates).
 * Returns 0, or -1 with why it is no end in why[whysz] (a phrase that
 * follows the value: "has no month 13").
 */
int	pins_until_parse(const char *s, int64_t *end, char *why,
	    size_t whysz);

/* pins_until_format - t as "YYYY-MM-DDTHH:MM:SSZ" in out[PINS_UNTIL_BUFSZ] */
const char *pins_until_format(int64_t t, char *out);

/*
 * pins_until_text - d's end for messages, in out[PINS_UNTIL_TEXT_MAX]:
 * until as written, and for a date the instant it ends, e.g. "2026-12-31
 * (ends 2027-01-01T00:00:00Z)"; "" when d has no end
 */
const char *pins_until_text(const struct config_domain *d, char *out);

/* pins_state_at - d's state at now (Unix time): PINS_IN_FORCE, or
 * PINS_LAPSED from its end on */
enum pins_state pins_state_at(const struct config_domain *d, int64_t now);

/* pins_count - cf's timed pins (those with an end) at now: in force,
 * lapsed */
void	pins_count(const struct config *cf, int64_t now, size_t *in_force,
	    size_t *lapsed);

/*
 * pins_decide_input - start the decide() input for a lookup of domain
 * (normalized): zeroes *in, sets in->domain and, when cf pins the domain
 * and the pin is in force (its end, if any, not reached by clock_wall()),
 * in->pin = pin (filled from the pin; caller storage).  *dp (dp may be
 * NULL) is the domain section, in force or lapsed, else NULL.  Returns
 * PINS_IN_FORCE, PINS_LAPSED (in->pin unset: as if unpinned) or
 * PINS_NONE.  The caller adds what it knows of DANE and MTA-STS; decide()
 * lets the pin win.
 */
enum pins_state pins_decide_input(const struct config *cf,
	    const char *domain, const struct config_domain **dp,
	    struct decide_pin *pin, struct decide_input *in);

/*
 * pins_answer - the worker's pin branch: if a pin of cf is in force for
 * domain, decide() the reply with map's options into out and return
 * PINS_IN_FORCE with *status set (TEMP with a reason if decide()
 * refused); else PINS_NONE or PINS_LAPSED, out untouched.  *dp (dp may be
 * NULL) as pins_decide_input's.
 */
enum pins_state pins_answer(const struct config *cf,
	    const struct config_map *map, const char *domain, struct buf *out,
	    enum sockmap_status *status, const struct config_domain **dp);

#endif
