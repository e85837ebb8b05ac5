/*
 * cache_history.h - postsmtpsts-cache history: a domain's policy events
 *
 * Reads the history file (cache.history_file, policy/history.h) and its
 * rotated copies, oldest first: PATH.N ... PATH.1 then PATH, each plain or
 * gzip-compressed (PATH.N.gz; logrotate's numbered names, as the shipped
 * contrib/logrotate snippet makes them; dateext names are not read), and
 * prints the events of one domain: a line of text each, or with json the
 * file's own lines (each checked by history_parse()).
 */
#ifndef CACHE_HISTORY_H
#define CACHE_HISTORY_H

#define CACHE_HISTORY_ROTATED_MAX	1000	/* PATH.1 .. PATH.999 */

/*
 * cache_history_run - print the events of domain (a cache key) from path
 * and its rotated copies; json: the JSON lines as stored.  Lines that
 * are not history lines are skipped and counted on stderr.  0 if any
 * event was printed, 1 if none (or no file could be read).
 */
int	cache_history_run(const char *path, const char *domain, int json);

#endif
