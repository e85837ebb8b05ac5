/*
 * import_sts_resolver.h - the cache entries of postfix-mta-sts-resolver
 *
 * NAME
 *	import_sts_resolver_body, import_sts_resolver_member,
 *	import_sts_resolver_score - parse what Debian's
 *	postfix-mta-sts-resolver (mta-sts-daemon, Python) keeps per domain
 * DESCRIPTION
 *	Its cache entry is (ts, pol_id, pol_body): ts the time of the last
 *	fetch, or of the last lookup that found the TXT id unchanged (it
 *	writes the entry again then, with the new ts: the lifetime it gives
 *	the policy, max_age + ts, starts there), pol_id the TXT id, pol_body
 *	the policy as its parser made it, a JSON object:
 *
 *	  {"mx": ["mx1.example.com", "*.example.net"], "version": "STSv1",
 *	   "mode": "enforce", "max_age": 86400, "other": "fields"}
 *
 *	("mx" is always there, a list, maybe empty for mode none; max_age a
 *	number; every other field of the policy a string).
 *
 *	  backend   where                       ts          pol_id, pol_body
 *	  -------   -------------------------   ---------   -----------------
 *	  sqlite    table sts_policy_cache      column ts   columns pol_id,
 *	            (domain, ts, pol_id,        (integer)   pol_body (JSON
 *	            pol_body)                               text)
 *	  redis     one sorted set per domain   the score   the member: 16
 *	            (key: the domain), one      (a float)   bytes of UUID,
 *	            member; "_metadata" is a                then JSON
 *	            hash of its own                         [pol_id, pol_body]
 *
 *	The policy is turned back into RFC 8461 §3.2 text from the four
 *	fields a policy needs (version, mode, mx, max_age; the others mean
 *	nothing to a sender), for import_row_record(), which checks it with
 *	the fetch's own parser.  A value holding a control character is
 *	refused here: it could not have come from a policy line, and would
 *	make a line of its own in the text.
 *
 *	Pure parsers of bytes from a file or a Redis server the operator
 *	names: (p, len), no NUL relied on, every length bounded, JSON nested
 *	at most IMPORT_STS_RESOLVER_DEPTH deep.  Fuzzed by
 *	tests/fuzz/fuzz_import_sts_resolver.c.
 */
#ifndef IMPORT_STS_RESOLVER_H
#define IMPORT_STS_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "policy/sts_policy.h"
#include "policy/sts_record.h"

#define IMPORT_STS_RESOLVER_DEPTH	16	/* JSON nesting we follow */
#define IMPORT_STS_RESOLVER_UUID	16	/* bytes before the JSON */
#define IMPORT_STS_RESOLVER_TEXT	(2 * (STS_POLICY_MAX_BODY + 1))
					/* room for the policy text: the
					   mx lines are gathered in its
					   second half */
#define IMPORT_STS_RESOLVER_MAX_JSON	(4 * STS_POLICY_MAX_BODY)
					/* longest body read: escapes take
					   up to 6 bytes a character */

/*
 * import_sts_resolver_body - the policy text of a pol_body p[0..len)
 *
 * text[0..textsz) (IMPORT_STS_RESOLVER_TEXT bytes suffice) gets the text,
 * NUL-terminated, its length in *textlen.  0, or -1 with a reason in
 * why[0..whysz).
 */
int	import_sts_resolver_body(const char *p, size_t len, char *text,
	    size_t textsz, size_t *textlen, char *why, size_t whysz);

/*
 * import_sts_resolver_member - a Redis member p[0..len): the UUID, then
 * JSON [pol_id, pol_body]
 *
 * id (STS_RECORD_ID_MAX + 1 bytes) gets pol_id NUL-terminated (checked by
 * import_row_record(); an id longer than that is refused here), text as
 * for import_sts_resolver_body().  0, or -1 with a reason in why.
 */
int	import_sts_resolver_member(const char *p, size_t len, char *id,
	    size_t *idlen, char *text, size_t textsz, size_t *textlen,
	    char *why, size_t whysz);

/*
 * import_sts_resolver_score - a Redis score p[0..len) (a decimal number,
 * Redis's form of a double) as whole Unix seconds, the fraction dropped,
 * into *ts.  0, or -1 if it is not a finite number of 1..2^62 seconds.
 */
int	import_sts_resolver_score(const char *p, size_t len, int64_t *ts);

#endif
