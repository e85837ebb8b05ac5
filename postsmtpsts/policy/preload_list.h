/*
 * preload_list.h - the EFF STARTTLS Everywhere policy list (preload)
 *
 * NAME
 *	preload_list - strict parser of an EFF-format preload list
 * SYNOPSIS
 *	list = preload_list_parse(source, p, len, why, whysz);
 *	e = preload_list_find(list, "example.com");
 *	preload_list_free(list);
 * DESCRIPTION
 *	The one preload format that was in use (EFF STARTTLS Everywhere,
 *	policy.json, version "0.1"):
 *
 *	{ "timestamp": T, "expires": T, "version": "0.1", "author": "...",
 *	  "policy-aliases": { NAME: { "mode": M, "mxs": [ MX, ... ] }, ... },
 *	  "policies": { DOMAIN: { "mode": M, "mxs": [ MX, ... ] }
 *	                      | { "policy-alias": NAME }, ... } }
 *
 *	T is an RFC 3339 date-time string with an offset (fractions of a
 *	second allowed and dropped) or an integer count of seconds since the
 *	epoch; expires must lie after timestamp.  M is "testing" or
 *	"enforce".  MX is a host name or ".suffix", which matches exactly one
 *	more leftmost label as RFC 8461's "*." does (it is kept as "*.suffix",
 *	an MTA-STS pattern, so mxmatch and decide treat both alike).  An alias
 *	definition may itself be { "policy-alias": NAME }; a loop or a name
 *	that is not defined is an error.  "timestamp", "expires", "version"
 *	and "policies" are required, "author" and "policy-aliases" optional;
 *	no other property is allowed anywhere.
 *
 *	Strict, all or nothing: JSON that is not valid (json-c's strict mode,
 *	UTF-8 checked, nothing after the object), a NUL byte, an unknown
 *	property, a domain or mx that is not a host name, a '*' anywhere,
 *	a duplicate key in any object (json-c keeps the last value of a
 *	repeated key, so the text is scanned for them before json-c parses
 *	it), a dangling alias or an alias loop, more than the limits below:
 *	the whole list is refused and why holds one line
 *	"source: entry: reason" naming the first entry at fault.
 *
 *	Pure: no I/O; the input is (p, len) and need not be NUL-terminated.
 * SEE ALSO
 *	doc/DESIGN.md "Preload lists"; RFC 8461 §3.2, §4.1 (mx patterns).
 */
#ifndef PRELOAD_LIST_H
#define PRELOAD_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/domain.h"

/* Largest list accepted, checked before a byte is parsed (EFF's list was
 * some 100 KiB when it was retired). */
#define PRELOAD_LIST_MAX	(8 * 1024 * 1024)
#define PRELOAD_LIST_MAX_ENTRIES 200000	/* domains */
#define PRELOAD_LIST_MAX_ALIASES 10000
#define PRELOAD_LIST_MAX_MXS	64	/* mxs of one entry */
#define PRELOAD_LIST_MAX_NAME	128	/* an alias name, bytes */
#define PRELOAD_LIST_MAX_AUTHOR	256	/* bytes */
#define PRELOAD_LIST_DEPTH	8	/* JSON nesting */
#define PRELOAD_LIST_ALIAS_HOPS	16	/* alias of an alias of ... */

enum preload_mode {
	PRELOAD_TESTING = 1,
	PRELOAD_ENFORCE = 2,
};

/* One domain's entry, its alias resolved. */
struct preload_entry {
	char		 domain[DOMAIN_BUFSZ];	/* lower case A-labels */
	enum preload_mode mode;
	size_t		 nmx;
	char		*mx;		/* nmx MTA-STS patterns, NUL after
					   each ("*.suffix" for ".suffix") */
	size_t		 mxlen;		/* bytes of mx, NULs included */
};

struct preload_list {
	int64_t		 timestamp;	/* seconds since the epoch */
	int64_t		 expires;
	char		 author[PRELOAD_LIST_MAX_AUTHOR + 1];
	size_t		 n;
	struct preload_entry *e;	/* sorted by domain */
};

/*
 * preload_list_parse - parse an EFF-format list p[0..len)
 *
 * source names the list in messages ("policy.json", a URL).  Returns the
 * list (the caller frees it with preload_list_free()), or NULL with why
 * (whysz bytes, truncated to fit) holding "source: entry: reason".
 */
struct preload_list *preload_list_parse(const char *source, const char *p,
	    size_t len, char *why, size_t whysz);

/* preload_list_free - free a list; NULL is a no-op */
void	preload_list_free(struct preload_list *l);

/* preload_list_find - the entry of a normalized domain, or NULL */
const struct preload_entry *preload_list_find(const struct preload_list *l,
	    const char *domain);

/* preload_mode_name - "testing", "enforce" */
const char *preload_mode_name(enum preload_mode m);

/*
 * preload_list_time - an RFC 3339 date-time p[0..len) in seconds
 *
 * "YYYY-MM-DDTHH:MM:SS[.digits](Z|+HH:MM|-HH:MM)" ('t', 'z' and a blank
 * for 'T' accepted, RFC 3339 §5.6 note).  Returns 0 with *out set, or -1.
 */
int	preload_list_time(const char *p, size_t len, int64_t *out);

#endif
