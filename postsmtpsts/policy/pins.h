/*
 * pins.h - an operator's pinned policies: their grammar, and the one way
 * a lookup consults them
 *
 * A pin is a "domain" section of postsmtpsts.conf(5): level, match,
 * servername.  pins_parse() checks them against Postfix's
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
 * so decide() applies the precedence pin > DANE > MTA-STS for both.
 */
#ifndef PINS_H
#define PINS_H

#include <stddef.h>

#include "lib/config.h"
#include "policy/decide.h"

struct buf;

#define PINS_MAX_MATCH		CONFIG_MAX_MATCH	/* tokens per pin */
#define PINS_MAX_ANSWER		CONFIG_MAX_ANSWER	/* composed reply */
#define PINS_ERROR_MAX		512			/* one message */

/* pins_err_fn - one error: field "level", "match", "servername" or NULL
 * (the section), msg a complete sentence without file:line */
typedef void	pins_err_fn(void *arg, const char *field, const char *msg);

/*
 * pins_parse - check one pin and fill d->level, d->match, d->servername
 * and d->answer (allocated; config_free frees them)
 *
 * title is the domain as written (for messages); level, match and
 * servername are the values as written ("" when absent).  Every error is
 * reported through err (all of them, not only the first).  Returns 0, or
 * -1 if any error was reported.
 */
int	pins_parse(const char *title, const char *level, const char *match,
	    const char *servername, struct config_domain *d, pins_err_fn *err,
	    void *arg);

/*
 * pins_decide_input - start the decide() input for a lookup of domain
 * (normalized): zeroes *in, sets in->domain and, when cf pins the domain,
 * in->pin = pin (filled from the pin; caller storage).  Returns 1 if the
 * domain is pinned, else 0.  The caller adds what it knows of DANE and
 * MTA-STS; decide() lets the pin win.
 */
int	pins_decide_input(const struct config *cf, const char *domain,
	    struct decide_pin *pin, struct decide_input *in);

/*
 * pins_answer - the worker's pin branch: if cf pins domain, decide() the
 * reply with map's options into out and return 1 with *status set (TEMP
 * with a reason if decide() refused); 0 if the domain is not pinned.
 */
int	pins_answer(const struct config *cf, const struct config_map *map,
	    const char *domain, struct buf *out, enum sockmap_status *status);

#endif
