/*
 * send.h - make the day's reports and deliver them (RFC 8460 §3, §5)
 *
 * NAME
 *	send - from counts to reports at their destinations
 * SYNOPSIS
 *	send_new(cf, store, base, err, errsz), send_free(s)
 *	send_step(s, now, force_day, done, arg)
 *	send_dry_run(cf, day, domain, fp)
 * DESCRIPTION
 *	send_step() first closes every day that is over (its end plus
 *	tlsrpt.send_delay has passed; and force_day, if not -1): each
 *	domain's counts of it get a report state (rstate.h, PENDING), in one
 *	transaction, and from then on that day's counts do not change; days
 *	older than tlsrpt.keep_days are deleted.  Then it starts the
 *	reports due (at most SEND_MAX_JOBS at once; the rest when these are
 *	done), each a small state machine on the event loop:
 *
 *	  1. TXT _smtp._tls.DOMAIN (RFC 8460 §3) through lib/dns: DNSSEC-
 *	     validated where signed, a bogus answer or a failed lookup is
 *	     tried again later, never taken as "no record"; exactly one
 *	     v=TLSRPTv1 record (rua_select), its URIs checked (rua_parse:
 *	     refusals counted and logged); none usable: NO_RUA.  The URIs
 *	     are kept in the state: a retry does not look again.
 *	  2. for a DANE policy, TLSA _25._tcp.HOST of each MX host the
 *	     sessions went to, secure answers only: the policy-string.
 *	  3. the JSON (report.h), gzip'd (mime.h); over max_report_size it is
 *	     made again without failure-details; still over: FAILED.
 *	  4. each destination in turn: mailto: through sendmail(1)
 *	     (sendmail.h), the mail of mime.h; https: a POST of
 *	     application/tlsrpt+gzip (lib/https: the policy fetches'
 *	     certificate check) to the addresses lib/dns found, those
 *	     only that are global or in tlsrpt.report_allow_addresses
 *	     (addrclass.h; judged as curl connects: https_set_post_filter),
 *	     a host with none of them refused for good
 *	     (deliveries_refused_address).  INTENT is
 *	     committed before the hand-over (rstate.h).  A destination that
 *	     failed for now is tried again after 5 min, doubling to 4 h
 *	     (RFC 8460 §5.5: exponential backoff), until tlsrpt.retry_for
 *	     after the first try (§5.5: 24 hours); a refusal for good
 *	     (sendmail's permanent exit codes, an HTTP 4xx other than 408
 *	     and 429) fails it at once.  At most tlsrpt.rate_limit reports
 *	     an hour go to one destination (a mailbox, an https host):
 *	     more wait for the next hour.
 *
 *	done(arg), if given, runs once nothing is left running (--once).
 *	send_dry_run() prints the JSON of day's reports (steps 2 and 3, one
 *	line per domain; domain NULL: all) from a read-only database, and
 *	changes nothing.
 */
#ifndef TLSRPT_SEND_H
#define TLSRPT_SEND_H

#include <stdint.h>
#include <stdio.h>

struct config;
struct store;
struct event_base;
struct send;

#define SEND_MAX_JOBS		4
#define SEND_BACKOFF_MIN	300
#define SEND_BACKOFF_MAX	14400
#define SEND_RATE_WINDOW	3600

typedef void	send_done_fn(void *arg);

/* send_new - the sender on base (DNS and HTTPS from cf): NULL with err */
struct send	*send_new(const struct config *cf, struct store *store,
		    struct event_base *base, char *err, size_t errsz);
/* send_free - cancel what runs; NULL is a no-op */
void		 send_free(struct send *s);

/* send_step - close the days that are over, start the reports due: 0, or
 * -1 if the close was not committed (a full disk: nothing made, force_day
 * to be asked again) */
int		 send_step(struct send *s, int64_t now, int64_t force_day,
		    send_done_fn *done, void *arg);

/* send_set_fleet - with fa (fleetagg.h, not NULL): each report is the
 * fleet's, sent by the host the fleet elects (NULL: this host alone) */
struct fleetagg;
void		 send_set_fleet(struct send *s, struct fleetagg *fa);

/* send_dry_run - print day's report JSON: 0, or 1 */
int		 send_dry_run(const struct config *cf, int64_t day,
		    const char *domain, FILE *fp);

#endif
