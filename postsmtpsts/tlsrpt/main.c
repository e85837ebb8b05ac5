/*
 * main.c - postsmtpsts-tlsrpt(8): the TLSRPT (RFC 8460) reporter
 *
 * NAME
 *	postsmtpsts-tlsrpt - report what MTA-STS and DANE did to the mail
 *	Postfix sent, to the domains that ask for it
 * SYNOPSIS
 *	postsmtpsts-tlsrpt [-fv] [-c file] [--from-start] [--once]
 *	postsmtpsts-tlsrpt [-c file] --dry-run DAY [--domain DOMAIN]
 *	postsmtpsts-tlsrpt [-c file] --send DAY
 *	postsmtpsts-tlsrpt [-c file] --stats | -t | --help | --version
 *	postsmtpsts-tlsrpt [-c file] --prepare-socket USER
 * DESCRIPTION
 *	The program runs as a service: it follows Postfix's log and counts
 *	(count.h), or with tlsrpt.input = socket reads Postfix's own TLSRPT
 *	datagrams (collect.h, as soon as the socket is readable, in batches
 *	of TLSRPT_DGRAM_BATCH, each one transaction), and once a UTC day is
 *	over it sends that day's reports (send.h).  Its loop, on libevent: every TLSRPT_TICK_MS the new log
 *	lines are counted in batches of TLSRPT_BATCH lines, each one
 *	transaction; every TLSRPT_SEND_TICK seconds the send step looks for
 *	reports due.  SIGTERM and SIGINT stop it between two batches.
 *	--once counts what the log holds, sends what is due, and exits (a
 *	timer's or a test's way); --send DAY closes DAY now, before its end
 *	(the reports are made as if it were over: later sessions of DAY
 *	are late); --dry-run prints the report JSON of DAY from the counts
 *	without sending or changing anything; --prepare-socket, as root
 *	(the unit's ExecStartPre=+), makes the socket's directory USER's.
 *	Every option: the man page.
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf/config_load.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/collect.h"
#include "tlsrpt/count.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/follow.h"
#include "tlsrpt/metrics.h"
#include "tlsrpt/report.h"
#include "tlsrpt/send.h"
#include "tlsrpt/store.h"

#define TLSRPT_TICK_MS		1000	/* the log is read this often */
#define TLSRPT_BATCH		1000	/* lines per transaction */
#define TLSRPT_SEND_TICK	30	/* seconds between send steps */
#define TLSRPT_DGRAM_BATCH	1000	/* datagrams per transaction */
#define TLSRPT_DGRAM_ROUNDS	16	/* batches per wake-up, then the
					   loop's other events */
#define TLSRPT_WARN_SECONDS	60	/* a failing batch: one line a minute */
#define TLSRPT_CLOSE_RETRY	5	/* seconds: --send DAY's close again */

enum {
	OPT_DRY_RUN = 256,
	OPT_DOMAIN,
	OPT_ONCE,
	OPT_SEND,
	OPT_STATS,
	OPT_FROM_START,
	OPT_PREPARE_SOCKET,
};

static const struct option main_longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "check", no_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "dry-run", required_argument, NULL, OPT_DRY_RUN },
	{ "domain", required_argument, NULL, OPT_DOMAIN },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "send", required_argument, NULL, OPT_SEND },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "from-start", no_argument, NULL, OPT_FROM_START },
	{ "prepare-socket", required_argument, NULL, OPT_PREPARE_SOCKET },
	{ NULL, 0, NULL, 0 },
};

/* The running reporter: one per process. */
struct tlsrpt {
	struct config	*cf;
	struct store	*store;
	struct count	 count;
	struct follow	*follow;		/* NULL: no log (input
						   socket, log = "") */
	struct collect	*collect;		/* input socket */
	struct send	*send;
	struct fleetagg	*fa;			/* NULL: no fleet, or a
						   read-only edge */
	struct event_base *base;
	struct event	*tick, *sigterm, *sigint, *dgev;
	int		 from_start;
	int		 once;
	int64_t		 force_day;	/* --send DAY, -1: none */
	int64_t		 next_send;
	int		 stopping;
	int		 rc;
	int64_t		 uncommitted_warn;	/* last "not committed" line */
};

/* usage - the synopsis; on stdout and exit 0 when asked (-h) */
static void __attribute__((noreturn))
usage(int asked)
{
	fprintf(asked ? stdout : stderr, "usage: postsmtpsts-tlsrpt [-ftv] "
	    "[-c file] [--from-start] [--once]\n"
	    "       postsmtpsts-tlsrpt [-c file] --dry-run DAY "
	    "[--domain DOMAIN]\n"
	    "       postsmtpsts-tlsrpt [-c file] --send DAY\n"
	    "       postsmtpsts-tlsrpt [-c file] --stats\n"
	    "       postsmtpsts-tlsrpt [-c file] --prepare-socket USER\n"
	    "  -c, --config FILE   configuration file (default %s)\n"
	    "  -f, --foreground    log to stderr, not syslog\n"
	    "  -t, --check         check the configuration and exit\n"
	    "  -v, --verbose       more log lines (repeat for more)\n"
	    "  --from-start        without a saved position, read the log "
	    "from its start\n"
	    "  --once              count the log to its end, send what is "
	    "due, exit\n"
	    "  --send DAY          make and send DAY's reports now (DAY: "
	    "YYYY-MM-DD,\n"
	    "                      today, yesterday), then go on\n"
	    "  --dry-run DAY       print DAY's report JSON, one line per "
	    "domain; send nothing\n"
	    "  --domain DOMAIN     with --dry-run: only this domain\n"
	    "  --stats             print the counters (Prometheus text) and "
	    "exit\n"
	    "  --prepare-socket USER  as root: make the socket's directory "
	    "(input socket)\n"
	    "                      USER's, group socket_group, mode 2750\n"
	    "  -h, --help          this text\n"
	    "  -V, --version       the version\n", CONFIG_DEFAULT_FILE);
	exit(asked ? 0 : 2);
}

/* main_day - DAY of --dry-run and --send: the Unix time of its 00:00Z */
static int64_t
main_day(const char *s)
{
	struct tm	 tm;
	char		*end;
	time_t		 t;
	int64_t		 now = clock_wall();

	if (strcmp(s, "today") == 0)
		return (report_day(now));
	if (strcmp(s, "yesterday") == 0)
		return (report_day(now) - 86400);
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%d", &tm)) == NULL || *end != '\0' ||
	    (t = timegm(&tm)) == (time_t)-1) {
		fprintf(stderr, "postsmtpsts-tlsrpt: %s: not a day "
		    "(YYYY-MM-DD, today, yesterday)\n", s);
		exit(2);
	}
	return ((int64_t)t);
}

/* main_follow - (re)open the log at the committed position; quiet: a
 * re-open after a failed batch (logged at debug level: a full disk fails
 * one a second) */
static int
main_follow(struct tlsrpt *r, int quiet)
{
	struct buf	 pos;
	char		 err[512];
	int		 have;

	follow_close(r->follow);
	r->follow = NULL;
	if (r->cf->tlsrpt.log == NULL)		/* input socket, no log */
		return (0);
	buf_init(&pos, FOLLOW_POS_MAX);
	if (store_begin(r->store, 0) == -1) {
		buf_free(&pos);
		return (-1);
	}
	have = count_stored_pos(r->store, &pos);
	store_abort(r->store);
	if (have == -1) {
		buf_free(&pos);
		return (-1);
	}
	r->follow = follow_open(r->cf->tlsrpt.log, have == 0 ? pos.data : NULL,
	    have == 0 ? pos.len : 0, r->from_start, err, sizeof(err));
	buf_free(&pos);
	if (r->follow == NULL) {
		log_warnx("tlsrpt: log %s: %s", r->cf->tlsrpt.log, err);
		return (-1);
	}
	if (quiet)
		log_debug(1, "tlsrpt: following %s",
		    follow_describe(r->follow));
	else
		log_info("tlsrpt: following %s", follow_describe(r->follow));
	return (0);
}

/* main_count - count the new lines, batch by batch: how many, -1 on a
 * failed batch (the log is re-opened at the committed position) */
static long
main_count(struct tlsrpt *r)
{
	int64_t	 now;
	long	 n, total = 0;

	if (r->follow == NULL)
		return (0);
	do {
		if ((n = count_batch(&r->count, r->follow, TLSRPT_BATCH)) ==
		    -1) {
			/* a full disk fails every batch: one line a minute */
			now = clock_wall();
			if (r->uncommitted_warn == 0 ||
			    now < r->uncommitted_warn ||
			    now >= r->uncommitted_warn + TLSRPT_WARN_SECONDS) {
				log_warnx("tlsrpt: a batch was not committed: "
				    "reading again from the committed position "
				    "(one line a minute while it fails)");
				r->uncommitted_warn = now;
			}
			if (main_follow(r, 1) == -1 ||
			    count_reload(&r->count) == -1)
				return (-1);
			return (-1);
		}
		total += n;
	} while (n == TLSRPT_BATCH && !r->stopping);
	return (total);
}

/* main_drain - read the socket's datagrams, a batch at a time, at most
 * rounds batches: how many were read, -1 on a failed batch */
static long
main_drain(struct tlsrpt *r, int rounds)
{
	long	 n, total = 0;
	int	 i;

	if (r->collect == NULL)
		return (0);
	for (i = 0; i < rounds && !r->stopping; i++) {
		if ((n = count_dgrams(&r->count, r->collect,
		    TLSRPT_DGRAM_BATCH)) == -1)
			return (-1);
		total += n;
		if (n < TLSRPT_DGRAM_BATCH)
			break;
	}
	return (total);
}

/* main_dgram - the socket is readable */
static void
main_dgram(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)main_drain(arg, TLSRPT_DGRAM_ROUNDS);
}

/* main_stop - a stop signal: leave the loop after this batch */
static void
main_stop(evutil_socket_t sig, short what, void *arg)
{
	struct tlsrpt	*r = arg;

	(void)what;
	log_info("tlsrpt: signal %d: stopping", (int)sig);
	r->stopping = 1;
	event_base_loopbreak(r->base);
}

/* main_sent - the send step is done (--once: the end) */
static void
main_sent(void *arg)
{
	struct tlsrpt	*r = arg;

	if (r->once)
		event_base_loopbreak(r->base);
}

/* main_tick - count the new lines; now and then, the send step */
static void
main_tick(evutil_socket_t fd, short what, void *arg)
{
	struct tlsrpt	*r = arg;
	struct timeval	 tv = { TLSRPT_TICK_MS / 1000,
	    (TLSRPT_TICK_MS % 1000) * 1000 };
	int64_t		 now;
	long		 n;

	(void)fd;
	(void)what;
	n = main_count(r);
	if (r->once && n != -1) {
		/* --once: the datagrams waiting count too */
		long	 d = main_drain(r, INT32_MAX);

		n = d == -1 ? -1 : n + d;
	}
	if (n == -1 && r->once) {
		r->rc = 1;
		event_base_loopbreak(r->base);
		return;
	}
	fleetagg_push(r->fa);	/* the batches' parts, to the fleet */
	now = clock_wall();
	metrics_write(r->cf, r->store, &r->count, r->send);
	if (r->once) {
		if (n > 0) {		/* the log is not at its end yet */
			tv.tv_sec = tv.tv_usec = 0;
			evtimer_add(r->tick, &tv);
			return;
		}
		/* a close that did not commit (a full disk): exit 1 */
		if (send_step(r->send, now, r->force_day, main_sent, r) == -1)
			r->rc = 1;
		return;
	}
	if (now >= r->next_send) {
		/* --send DAY stays asked for until its close is committed
		 * (a full disk), tried again every TLSRPT_CLOSE_RETRY */
		if (send_step(r->send, now, r->force_day, NULL, NULL) == 0 ||
		    r->force_day < 0) {
			r->force_day = -1;
			r->next_send = now + TLSRPT_SEND_TICK;
		} else
			r->next_send = now + TLSRPT_CLOSE_RETRY;
	}
	evtimer_add(r->tick, &tv);
}

/* main_run - the service (or --once) */
static int
main_run(struct config *cf, int from_start, int once, int64_t force_day)
{
	struct timeval	 now0 = { 0, 0 };
	struct tlsrpt	 r;
	char		 err[512];

	memset(&r, 0, sizeof(r));
	r.cf = cf;
	r.from_start = from_start;
	r.once = once;
	r.force_day = force_day;
	if ((r.store = store_open(cf->tlsrpt.state_dir, 0, err,
	    sizeof(err))) == NULL) {
		log_warnx("tlsrpt: state %s", err);
		return (1);
	}
	if (count_open(&r.count, cf, r.store) == -1 ||
	    main_follow(&r, 0) == -1) {
		count_close(&r.count);
		follow_close(r.follow);
		store_close(r.store);
		return (1);
	}
	if ((r.base = event_base_new()) == NULL)
		fatalx("tlsrpt: cannot create an event base");
	if (cf->tlsrpt.input == CONFIG_TLSRPT_INPUT_SOCKET) {
		if ((r.collect = collect_open(cf->tlsrpt.socket,
		    cf->tlsrpt.socket_group, err, sizeof(err))) == NULL) {
			log_warnx("tlsrpt: socket %s", err);
			r.rc = 1;
			goto out;
		}
		if ((r.dgev = event_new(r.base, collect_fd(r.collect),
		    EV_READ | EV_PERSIST, main_dgram, &r)) == NULL ||
		    event_add(r.dgev, NULL) == -1)
			fatalx("tlsrpt: cannot create events");
		log_info("tlsrpt: reading Postfix's TLSRPT datagrams on %s "
		    "(smtp_tlsrpt_socket_name)", cf->tlsrpt.socket);
	}
	if ((r.send = send_new(cf, r.store, r.base, err, sizeof(err))) ==
	    NULL) {
		log_warnx("tlsrpt: %s", err);
		r.rc = 1;
		goto out;
	}
	if ((r.fa = fleetagg_new(cf, r.store, r.base)) != NULL) {
		send_set_fleet(r.send, r.fa);
		log_info("tlsrpt: counting into the fleet as host %s, one "
		    "report per domain and day", fleetagg_host(r.fa));
	} else if (cf->fleet.enabled)
		log_info("tlsrpt: fleet read-only: this host counts and "
		    "reports its own sessions");
	r.tick = evtimer_new(r.base, main_tick, &r);
	r.sigterm = evsignal_new(r.base, SIGTERM, main_stop, &r);
	r.sigint = evsignal_new(r.base, SIGINT, main_stop, &r);
	if (r.tick == NULL || r.sigterm == NULL || r.sigint == NULL)
		fatalx("tlsrpt: cannot create events");
	evsignal_add(r.sigterm, NULL);
	evsignal_add(r.sigint, NULL);
	signal(SIGPIPE, SIG_IGN);
	evtimer_add(r.tick, &now0);
	log_info("tlsrpt: started: state %s, map %s, reporting as %s",
	    cf->tlsrpt.state_dir, cf->tlsrpt.map, cf->tlsrpt.submitter);
	event_base_dispatch(r.base);
	if (r.stopping) {
		main_count(&r);		/* what came before the signal */
		r.stopping = 0;
		main_drain(&r, INT32_MAX);
	}
	metrics_write(cf, r.store, &r.count, r.send);
out:
	fleetagg_free(r.fa);	/* first: no reply reaches a freed job */
	send_free(r.send);
	if (r.dgev != NULL)
		event_free(r.dgev);
	collect_close(r.collect);
	if (r.tick != NULL)
		event_free(r.tick);
	if (r.sigterm != NULL)
		event_free(r.sigterm);
	if (r.sigint != NULL)
		event_free(r.sigint);
	count_close(&r.count);
	follow_close(r.follow);
	store_close(r.store);
	if (r.base != NULL)
		event_base_free(r.base);
	log_info("tlsrpt: stopped");
	return (r.rc);
}

int
main(int argc, char *argv[])
{
	struct config	*cf;
	const char	*file = CONFIG_DEFAULT_FILE, *dry = NULL, *domain = NULL;
	const char	*sendday = NULL, *prepare = NULL;
	char		 err[8192];
	int		 ch, foreground = 0, check = 0, verbose = 0, once = 0;
	int		 stats = 0, from_start = 0, rc;

	while ((ch = getopt_long(argc, argv, "c:fhtvV", main_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			file = optarg;
			break;
		case 'f':
			foreground = 1;
			break;
		case 't':
			check = 1;
			break;
		case 'v':
			verbose++;
			break;
		case 'V':
			printf("postsmtpsts-tlsrpt %s\n", PACKAGE_VERSION);
			return (0);
		case 'h':
			usage(1);
		case OPT_DRY_RUN:
			dry = optarg;
			break;
		case OPT_DOMAIN:
			domain = optarg;
			break;
		case OPT_ONCE:
			once = 1;
			break;
		case OPT_SEND:
			sendday = optarg;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_FROM_START:
			from_start = 1;
			break;
		case OPT_PREPARE_SOCKET:
			prepare = optarg;
			break;
		default:
			usage(0);
		}
	}
	if (optind != argc || (domain != NULL && dry == NULL) ||
	    (dry != NULL && (stats || once || sendday != NULL)))
		usage(0);

	log_init("postsmtpsts-tlsrpt", foreground || check || dry != NULL ||
	    stats || isatty(STDERR_FILENO), LOG_MAIL);
	if ((cf = config_load(file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s", err);
		if (check)
			fprintf(stderr, "postsmtpsts-tlsrpt: %s: configuration "
			    "has errors\n", file);
		return (1);
	}
	if (verbose > cf->verbose)
		cf->verbose = verbose;
	log_set_verbose(cf->verbose);
	if (check) {
		fprintf(stderr, "postsmtpsts-tlsrpt: %s: configuration OK%s\n",
		    file, cf->tlsrpt.enable ? "" : " (tlsrpt is off: "
		    "enable = false)");
		config_free(cf);
		return (0);
	}
	if (prepare != NULL) {
		rc = 0;
		if (cf->tlsrpt.enable &&
		    cf->tlsrpt.input == CONFIG_TLSRPT_INPUT_SOCKET &&
		    collect_prepare(cf->tlsrpt.socket, prepare,
		    cf->tlsrpt.socket_group, err, sizeof(err)) == -1) {
			fprintf(stderr, "postsmtpsts-tlsrpt: --prepare-socket: "
			    "%s\n", err);
			rc = 1;
		}
	} else if (stats)
		rc = metrics_print(cf, stdout);
	else if (dry != NULL)
		rc = send_dry_run(cf, main_day(dry), domain, stdout);
	else if (!cf->tlsrpt.enable) {
		/* not an error: the unit may be enabled before the option */
		log_info("tlsrpt: off in %s (tlsrpt { enable = true } turns "
		    "it on): nothing to do", file);
		rc = 0;
	} else
		rc = main_run(cf, from_start, once, sendday != NULL ?
		    main_day(sendday) : -1);
	config_free(cf);
	return (rc);
}
