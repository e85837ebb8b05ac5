/*
 * cache_warm.h - postsmtpsts-cache warm: discover a list of domains through
 * the running daemon's resolver, so that a new relay starts with a warm
 * cache
 *
 *   postsmtpsts-cache [-c config] warm [-j jobs] [FILE|-]
 *
 * Reads the list (warm_list.h: one domain a line, '#' comments, Postfix
 * table lines) from FILE, or standard input for "-" or no FILE; connects
 * to the resolver's internal socket (<runtime_dir>/resolver.sock of the
 * configuration) exactly as a front worker does and sends one ipc request
 * (ipc.h) per domain, at most jobs (default max_resolutions / 4) at once.
 * The resolver runs its normal single-flight job per domain (or answers at
 * once from the cache when both the MTA-STS and the DANE record are fresh:
 * no DNS, no HTTPS), writes the cache as for any lookup, and replies when
 * the job is done, with the facts; the tool counts them.
 *
 * Output on standard output: on a terminal a progress line (done/total,
 * rate, ETA, policies found) rewritten in place, then the summary; off a
 * terminal only the one-line summary.  Exit status 0 when every domain
 * got its reply (a discovery that failed is counted, not an error), 1 when
 * the daemon could not be reached, went away, or stopped answering, or the
 * list could not be read.
 */
#ifndef CACHE_WARM_H
#define CACHE_WARM_H

/* Domains read from one list at most; the rest are ignored (a warning). */
#define CACHE_WARM_MAX_DOMAINS	1000000
/* Seconds without any reply, requests outstanding: the daemon is stuck
 * (or speaks another ipc version and drops our requests). */
#define CACHE_WARM_STALL_SECONDS	120
/* Progress line rewrites per second at most (terminal only). */
#define CACHE_WARM_PROGRESS_HZ	10
/* Messages about skipped lines, then only their count. */
#define CACHE_WARM_MAX_LINE_WARNINGS	10

/*
 * cache_warm_main - the warm command: argv[0] is "warm", argv[1] the list
 * (absent or "-": standard input); conf the -c file (NULL: the default
 * file if it exists, else the built-in defaults); jobs from -j (0: the
 * default, max_resolutions / 4, at least 1; the caller checks the range).
 * Returns the exit status (2: usage, after a message).
 */
int	cache_warm_main(const char *conf, long jobs, int argc, char *argv[]);

#endif
