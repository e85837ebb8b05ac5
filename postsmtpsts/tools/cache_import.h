/*
 * cache_import.h - postsmtpsts-cache import: another policy server's cache
 *
 * NAME
 *	cache_import_run - read a peer's cache, write its policies into ours
 * SYNOPSIS
 *	postsmtpsts-cache [-n] import sqlite FILE
 *	postsmtpsts-cache [-n] [--password-file FILE] import redis URL
 *	postsmtpsts-cache [-n] import tlspol FILE
 * DESCRIPTION
 *	The sources: Debian's postfix-mta-sts-resolver with its sqlite
 *	cache (FILE, its cache.options.filename) or its redis cache (URL,
 *	its cache.options.url: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
 *	or unix:PATH[?db=DB], %-decoded (import_redis.h); needs a build with
 *	the fleet tier's hiredis), and postfix-tlspol's cache file
 *	(import_tlspol.h).  Redis's password: the file given (one line, not
 *	readable by others), else $REDISCLI_AUTH (as redis-cli reads it),
 *	else the URL's, with a warning (argv is visible in ps).  Each reply
 *	is held to import_redis.h's bounds and must come whole within
 *	CACHE_IMPORT_TIMEOUT seconds, or the import ends (nothing written).
 *
 *	In two steps.  First the whole source is read and every entry made
 *	into the record a fetch would have written (import_row.h): an entry
 *	already expired is skipped, a malformed one too, with a line
 *	"SOURCE:ROW: DOMAIN: reason" on stderr (ROW: the SQLite rowid, the
 *	Redis key, the position in postfix-tlspol's map).  A source that
 *	cannot be read to its end (an I/O error, a damaged file, a lost
 *	connection) ends the import before anything is written.  Then ONE
 *	LMDB write transaction offers each record to the cache through the
 *	fleet tier's gate (fleet_facts_take(), fleet_facts.h), the rule by
 *	which a record learned elsewhere may replace ours: an entry of ours
 *	fetched at the same time or later, or a stronger mode under the same
 *	policy id, is kept; a negative or expired entry is replaced.  The
 *	transaction commits all records or, on any failure (a full map),
 *	none.  With -n it is aborted: nothing is written.  A summary line
 *	goes to stdout.
 *
 *	The cache directory is created when missing (seeding a new host, as
 *	pull does): run it as the daemon's user.  Safe while the daemon
 *	runs (LMDB serializes the writers).
 *
 *	Returns the exit status: 0 done (rows may have been skipped), 1 the
 *	source could not be read or the write failed (nothing written),
 *	2 usage.
 */
#ifndef CACHE_IMPORT_H
#define CACHE_IMPORT_H

struct cache;
struct config_cache;

/* The sources, as named on the command line. */
#define CACHE_IMPORT_SOURCES	"sqlite, redis or tlspol"

/* cache_import_known - 1 if kind is a source this build can read (redis
 * needs hiredis), else 0 after a message */
int	cache_import_known(const char *kind);

/*
 * cache_import_run - import source kind at where into c
 *
 * cc: the configuration's cache section (refresh_before), NULL for the
 * defaults.  passfile: redis's password file (--password-file), or NULL.
 * dry: read and check everything, write nothing.
 */
int	cache_import_run(struct cache *c, const struct config_cache *cc,
	    const char *kind, const char *where, const char *passfile,
	    int dry);

#endif
