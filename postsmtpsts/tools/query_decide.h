/*
 * query_decide.h - postsmtpsts-query's decision: the facts it discovered
 * (DANE state, MTA-STS discovery result) and the configuration's pins, fed
 * to decide() exactly as the daemon's worker feeds them
 *
 * The input starts with pins_decide_input() (policy/pins.h), as the
 * worker's pin branch (pins_answer) does, so a pinned domain gets the
 * pin's answer from both, and a timed exception lapses at the same second
 * in both; tests/unit/test_pins.c feeds both the same table.  A discovery that failed maps onto decide()'s STS failures (RFC
 * 8461 §3.3: no cache here, so the failure means "no policy"); an invalid
 * TXT record is no record (§3.1).
 */
#ifndef QUERY_DECIDE_H
#define QUERY_DECIDE_H

#include "lib/config.h"
#include "policy/decide.h"
#include "policy/discover.h"
#include "policy/pins.h"

struct buf;

/*
 * query_decide - the reply for domain: writes "STATUS data" ("NOTFOUND"
 * alone) into out (reset first) and fills *res; *ps and *pd (each may be
 * NULL) what pins_decide_input() found: the pin's state and its section.
 * cf may be NULL (no pins).  pre is the domain's unexpired preload entry
 * or NULL (issue 38): passed to decide() only when r found no policy, as
 * the worker does (facts_decide).  Returns 0, or -1 with "TEMP internal
 * error in decide()" in out.
 */
int	query_decide(const struct config *cf, const char *domain,
	    enum decide_dane dane, const struct discover_result *r,
	    const struct decide_preload *pre,
	    const struct decide_options *opt, struct buf *out,
	    struct decide_result *res, enum pins_state *ps,
	    const struct config_domain **pd);

#endif
