/*
 * preload_export.h - an EFF-format preload list from observed policies
 *
 * NAME
 *	preload_export - the cache's enforce policies as an EFF list
 * SYNOPSIS
 *	rc = preload_export_json(e, n, timestamp, expires, author, &out);
 * DESCRIPTION
 *	Writes the list policy/preload_list.h reads (version "0.1"), so one
 *	operator's observed policies can protect another's first contact
 *	(postsmtpsts-cache export --preload, then preload on the other
 *	host).  Every entry is mode "enforce"; an MTA-STS pattern "*.x" is
 *	written ".x" (the list's wildcard: one label, as RFC 8461's).  An mx
 *	set that two or more domains share becomes one alias ("mx1", "mx2",
 *	... in the order of the first domain using it) that each names with
 *	"policy-alias"; a set of one domain is written inline.  Times are
 *	RFC 3339 UTC with microseconds and an offset, as EFF wrote them.
 *
 *	Pure: e[0..n) sorted by domain (the cache's key order), domains and
 *	patterns as the cache record decoder admits them (LDH, an optional
 *	leading "*."); out is a growing buffer.  Returns 0, or -1 if out
 *	overflowed its limit.
 * SEE ALSO
 *	tools/cache_preload.h, doc/DESIGN.md "Preload lists".
 */
#ifndef PRELOAD_EXPORT_H
#define PRELOAD_EXPORT_H

#include <stddef.h>
#include <stdint.h>

struct buf;

struct preload_export_entry {
	const char	*domain;
	size_t		 nmx;
	const char	*mx;		/* nmx patterns, NUL after each */
	size_t		 mxlen;
};

int	preload_export_json(const struct preload_export_entry *e, size_t n,
	    int64_t timestamp, int64_t expires, const char *author,
	    struct buf *out);

/* preload_export_time - t as "YYYY-MM-DDTHH:MM:SS.000000+00:00" into out
 * (at least 40 bytes) */
void	preload_export_time(int64_t t, char *out, size_t outsz);

#endif
