/*
 * tool_json.h - the JSON the operator programs print
 *
 * postsmtpsts-query --json and postsmtpsts-check --json describe the same
 * things (a discovery's outcome, a policy's MX patterns): the pieces they
 * share are written here, once, on the bounded buffer's JSON primitives
 * (buf_json_key, buf_json_cstr, buf_json_str in lib/buf.h), so the two
 * tools cannot spell one fact two ways.
 */
#ifndef TOOL_JSON_H
#define TOOL_JSON_H

#include "lib/buf.h"
#include "lib/config.h"
#include "policy/discover.h"
#include "policy/pins.h"
#include "policy/sts_policy.h"

struct tool;

/* tool_json_print - print the JSON object in b and a newline, or an error
 * if it overflowed; frees b.  Returns 0 or -1. */
int	tool_json_print(const struct tool *t, struct buf *b);

/* tool_json_bool - append ,"key":true|false */
void	tool_json_bool(struct buf *b, const char *key, int v);

/* tool_json_outcome - append "outcome" and "failure" (null unless the
 * outcome is DISCOVER_FAILURE), as discover.c names them */
void	tool_json_outcome(struct buf *b, enum discover_outcome o,
	    enum discover_failure f);

/*
 * tool_json_pin - append "pin": null when ps is PINS_NONE, else the
 * domain section d as {"state": "in-force"|"lapsed", "answer", "until"
 * (as written, or null), "ends" (the instant it lapses, UTC, or null)}
 */
void	tool_json_pin(struct buf *b, enum pins_state ps,
	    const struct config_domain *d);

/* tool_json_mx - append the policy's mx patterns as an array, in policy
 * order, or null when p is NULL */
void	tool_json_mx(struct buf *b, const struct sts_policy *p);

/*
 * tool_json_requiretls - append "requiretls": {"deliverable": "yes"|"no"|
 * "depends", "level": the TLS level of reply ("STATUS data", as
 * requiretls_level_name), "reason"}: would Postfix 3.11 deliver a
 * REQUIRETLS message (RFC 8689) with this answer (policy/requiretls.h)
 */
void	tool_json_requiretls(struct buf *b, const char *reply);

#endif
