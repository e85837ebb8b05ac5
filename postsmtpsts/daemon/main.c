/*
 * main.c - postsmtpsts(8): command line, configuration check, start
 *
 * postsmtpsts [-f] [-t] [-v] [-c file] | -h | -V
 *   -f  foreground: stay attached and log to stderr
 *   -t  check the configuration and exit (0 valid, 1 errors shown as
 *       file:line: message); with -v also print the effective
 *       configuration.  Timed exceptions (domain sections with until) are
 *       listed on stderr: a warning for each that has lapsed (still exit
 *       0: a lapsed pin is inert), a note for each in force, with its end
 *   -v  more verbose logging (repeatable)
 *   -c  configuration file (default CONFIG_DEFAULT_FILE)
 *   -h, --help     the synopsis on stdout, exit 0
 *   -V, --version  the version on stdout, exit 0
 * (long forms: --foreground, --test, --verbose, --config)
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/config.h"
#include "conf/config_dump.h"
#include "conf/config_load.h"
#include "lib/log.h"
#include "daemon/master.h"
#include "daemon/resolver.h"
#include "policy/pins.h"

static const struct option main_longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "test", no_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* usage - print the synopsis; on stdout and exit 0 when asked (-h),
 * else on stderr and exit 2 */
static void __attribute__((noreturn))
usage(int asked)
{
	fprintf(asked ? stdout : stderr, "usage: postsmtpsts [-f] [-t] [-v] "
	    "[-c file] | -h | -V\n"
	    "  -f, --foreground  stay attached and log to stderr\n"
	    "  -t, --test        check the configuration and exit\n"
	    "  -v, --verbose     more verbose logging (repeatable)\n"
	    "  -c, --config FILE configuration file (default %s)\n"
	    "  -h, --help        this text\n"
	    "  -V, --version     the version\n", CONFIG_DEFAULT_FILE);
	exit(asked ? 0 : 2);
}

/* main_exceptions - -t: each timed exception of cf, lapsed (a warning:
 * take the section out) or in force (a note with its end), file:line */
static void
main_exceptions(const struct config *cf)
{
	const struct config_domain *d;
	char		 ut[PINS_UNTIL_TEXT_MAX], t[PINS_UNTIL_BUFSZ];
	int64_t		 now = clock_wall();
	size_t		 i;

	for (i = 0; i < cf->ndomains; i++) {
		d = &cf->domains[i];
		if (d->until == NULL)
			continue;
		if (pins_state_at(d, now) == PINS_LAPSED)
			fprintf(stderr, "%s:%d: warning: domain \"%s\": the "
			    "exception lapsed at %s (until %s): the pin no "
			    "longer applies, MTA-STS and DANE decide; remove "
			    "the section\n", cf->file, d->line, d->domain,
			    pins_until_format(d->end, t), d->until);
		else
			fprintf(stderr, "%s:%d: note: domain \"%s\": an "
			    "exception, pinned until %s\n", cf->file, d->line,
			    d->domain, pins_until_text(d, ut));
	}
}

int
main(int argc, char *argv[])
{
	struct config	*cf;
	const char	*file = CONFIG_DEFAULT_FILE;
	char		 err[8192];
	int		 ch, foreground = 0, check = 0, verbose = 0;

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
			printf("postsmtpsts %s\n", PACKAGE_VERSION);
			return (0);
		case 'h':
			usage(1);
		default:
			usage(0);
		}
	}
	if (optind != argc)
		usage(0);

	log_init("postsmtpsts", 1, LOG_MAIL);
	if ((cf = config_load(file, err, sizeof(err))) == NULL)
		fprintf(stderr, "%s", err);
	else if (resolver_check(cf, err, sizeof(err)) == -1) {
		/* the files the resolver reads: named now, not in a loop of
		 * resolver restarts */
		fprintf(stderr, "postsmtpsts: %s: %s\n", file, err);
		config_free(cf);
		cf = NULL;
	}
	if (cf == NULL) {
		if (check)
			fprintf(stderr, "postsmtpsts: %s: configuration has "
			    "errors\n", file);
		return (1);
	}
	if (check) {
		if (verbose)
			config_dump(cf, stdout);
		main_exceptions(cf);
		fprintf(stderr, "postsmtpsts: %s: configuration OK\n", file);
		config_free(cf);
		return (0);
	}
	if (verbose > cf->verbose)
		cf->verbose = verbose;
	return (master_main(cf, foreground));
}
