/*
 * cache_preload.h - postsmtpsts-cache preload: import preload lists
 *
 * NAME
 *	cache_preload - verify, parse and import EFF-format preload lists
 * SYNOPSIS
 *	postsmtpsts-cache [-c config] preload [-n] [-k keyring] [NAME|FILE]
 *	postsmtpsts-cache [-c config] preloaded [DOMAIN]
 * DESCRIPTION
 *	NAME: the configured list of that name (its source, signature,
 *	keyring, fingerprint, trust); FILE: a list the configuration does
 *	not name (signed: FILE.asc, checked against -k or preload.keyring;
 *	read unsigned only when a configured list with trusted = true has
 *	FILE as its source); nothing: every configured list, in order.
 *
 *	For each: the bytes are read (at most PRELOAD_LIST_MAX), copied with
 *	the signature into a private directory and the copy verified with
 *	gpgv (lib/gpgv.h), so the bytes checked are the bytes parsed; then
 *	parsed strictly (policy/preload_list.h), refused when expired, and
 *	put into the store (lib/preload_store.h) in one transaction, which
 *	refuses a timestamp older than the one held.  Any error: that list
 *	is left as it was held, a message "source: entry: reason".  -n:
 *	everything but the write.
 *
 *	A source or signature that is an https:// URL (configured, or given
 *	as FILE) is fetched (tools/preload_fetch.h: DNSSEC-aware addresses,
 *	the policy fetches' certificate check, CA file and proxy, no
 *	redirects, preload.timeout for each fetch, the list's cap counted
 *	while it arrives) instead of read; the rest is the same.
 *
 *	Exit status: 0 every list imported, 1 one failed, 2 usage.
 */
#ifndef CACHE_PRELOAD_H
#define CACHE_PRELOAD_H

/* Seconds gpgv may take over one signature. */
#define CACHE_PRELOAD_GPGV_MS	10000

/*
 * cache_preload_main - the preload command: argv[0] "preload", then at
 * most one NAME or FILE; conf the -c file or NULL (the default file if it
 * exists), dry -n, keyring -k or NULL.  Returns the exit status.
 */
int	cache_preload_main(const char *conf, int dry, const char *keyring,
	    int argc, char *argv[]);

/*
 * cache_preload_show - the preloaded command: argv[0] "preloaded", then
 * an optional normalized DOMAIN: without it one line a list held, with it
 * the domain's entry.  Returns the exit status (1: not found).
 */
int	cache_preload_show(const char *conf, int argc, char *argv[]);

struct cache;

/* Least time an exported entry's cache record must still be valid: the
 * list expires with its earliest entry, so no list lives under a day. */
#define CACHE_PRELOAD_EXPORT_MIN_LEFT	86400

/*
 * cache_preload_export - export --preload [--sign KEYID] [FILE]: the
 * cache's fresh enforce policies valid for at least
 * CACHE_PRELOAD_EXPORT_MIN_LEFT more seconds as an EFF-format list
 * (tools/preload_export.h), expiring with the earliest of them, on stdout
 * or into FILE (written whole, then renamed); with sign, FILE.asc is
 * written by gpg --detach-sign --armor --local-user KEYID (the
 * operator's own gpg home and agent).  Returns the exit status.
 */
int	cache_preload_export(struct cache *c, const char *sign,
	    const char *file);

#endif
