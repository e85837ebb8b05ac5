/*
 * import_tlspol.h - the cache file of postfix-tlspol
 *
 * NAME
 *	import_tlspol_walk, import_tlspol_row - read postfix-tlspol's
 *	persisted cache and turn its MTA-STS entries into import rows
 * DESCRIPTION
 *	postfix-tlspol (Go) keeps its cache in memory and saves it to its
 *	cache-file (default /var/lib/postfix-tlspol/cache.db): gzip around
 *	one encoding/gob value, map[string]*CacheStruct keyed by domain.
 *	Its -export prints only "domain policy" lines, without any time, so
 *	no trust on first use can be rebuilt from it; the file has the
 *	times.  The fields read (by name, from the stream's own type
 *	definitions: gob is self-describing, so fields added or dropped by
 *	another version are skipped):
 *
 *	  1.9 and later (branches)          1.8 and earlier (legacy)
 *	  ------------------------------    ------------------------------
 *	  MtaSts.Policy  "secure match=     Policy   the selected answer:
 *	                 A:.B servername=            "secure match=..."
 *	                 hostname", or ""            (MTA-STS), or "dane",
 *	                 (no enforce policy)         "dane-only", ""
 *	  MtaSts.TTL     max_age, at most   TTL      the same, for MTA-STS
 *	                 30 days (its cap)
 *	  MtaSts.ExpiresAt  fetch + TTL     Expirable.ExpiresAt  fetch + TTL
 *	                                             + 0..19 s of jitter
 *
 *	postfix-tlspol keeps only enforce policies (testing and none give no
 *	answer) and no TXT id.  So an entry with an MTA-STS policy becomes
 *	the policy "mode: enforce", its match list as mx patterns (".x" is
 *	"*.x", which is where it came from), max_age TTL, fetched at
 *	ExpiresAt - TTL: it protects exactly as long as postfix-tlspol
 *	itself would have.  Its DANE results are not imported: they live as
 *	long as their DNS TTLs and are looked up again.
 *
 *	The gob reader is a parser of a file's bytes: (p, len), every count
 *	and length checked against what is left, at most IMPORT_TLSPOL_TYPES
 *	type definitions and IMPORT_TLSPOL_FIELDS fields a struct, values
 *	nested at most IMPORT_TLSPOL_DEPTH deep, interface values refused
 *	(the cache has none).  One allocation (the type table), no I/O
 *	(the caller gunzips).
 *	Fuzzed by tests/fuzz/fuzz_import_tlspol.c.
 */
#ifndef IMPORT_TLSPOL_H
#define IMPORT_TLSPOL_H

#include <stddef.h>
#include <stdint.h>

#include "tools/import_row.h"

#define IMPORT_TLSPOL_TYPES	64	/* user type definitions */
#define IMPORT_TLSPOL_FIELDS	32	/* fields of one struct type */
#define IMPORT_TLSPOL_NAME	64	/* longest type or field name kept */
#define IMPORT_TLSPOL_DEPTH	16	/* value nesting */
#define IMPORT_TLSPOL_MAX_FILE	((size_t)256 << 20)	/* decompressed */
#define IMPORT_TLSPOL_TEXT	(2 * 65536)	/* room for a policy text */

/* What one entry says about a domain's MTA-STS policy. */
struct import_tlspol_branch {
	const char	*policy;	/* not NUL-terminated; NULL if absent */
	size_t		 policylen;
	uint64_t	 ttl;
	int64_t		 expires_at;	/* Unix seconds, fraction dropped */
	int		 has_expires;
};

struct import_tlspol_entry {
	const char	*key;		/* the map key (domain), not
					   NUL-terminated */
	size_t		 keylen;
	size_t		 index;		/* 1, 2, ... in stream order */
	struct import_tlspol_branch legacy;	/* Policy, TTL, Expirable */
	struct import_tlspol_branch mtasts;	/* MtaSts */
};

/*
 * import_tlspol_walk - call cb for every entry of the gob stream
 * p[0..len) (the cache file, gunzipped)
 *
 * A non-zero return from cb stops the walk (returned as -1 without an
 * error message).  Returns 0 when the whole stream was read, -1 with a
 * reason in err[0..errsz) when it is not a postfix-tlspol cache or breaks
 * off (then every entry already given to cb must be dropped: the file is
 * damaged).
 */
int	import_tlspol_walk(const unsigned char *p, size_t len,
	    int (*cb)(const struct import_tlspol_entry *e, void *arg),
	    void *arg, char *err, size_t errsz);

enum import_tlspol_kind {
	IMPORT_TLSPOL_POLICY = 0,	/* *row is an MTA-STS policy */
	IMPORT_TLSPOL_NONE,		/* no MTA-STS policy (DANE, none) */
	IMPORT_TLSPOL_BAD,		/* why says what */
};

/*
 * import_tlspol_row - the import row of an entry
 *
 * text (IMPORT_TLSPOL_TEXT bytes) gets the policy text row->policy
 * points to; row->domain points into the entry's key.
 */
enum import_tlspol_kind import_tlspol_row(const struct import_tlspol_entry *e,
	    char *text, size_t textsz, struct import_row *row, char *why,
	    size_t whysz);

#endif
