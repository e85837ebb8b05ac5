/*
 * main.c - postsmtpsts(8): command line, configuration check, start
 *
 * postsmtpsts [-f] [-t] [-v] [-c file]
 *   -f  foreground: stay attached and log to stderr
 *   -t  check the configuration and exit (0 valid, 1 errors shown as
 *       file:line: message); with -v also print the effective configuration
 *   -v  more verbose logging (repeatable)
 *   -c  configuration file (default CONFIG_DEFAULT_FILE)
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/log.h"
#include "daemon/master.h"

/* usage - print the synopsis and exit 2 */
static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: postsmtpsts [-f] [-t] [-v] [-c file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct config	*cf;
	const char	*file = CONFIG_DEFAULT_FILE;
	char		 err[8192];
	int		 ch, foreground = 0, check = 0, verbose = 0;

	while ((ch = getopt(argc, argv, "c:ftvV")) != -1) {
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
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	log_init("postsmtpsts", 1, LOG_MAIL);
	if ((cf = config_load(file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s", err);
		if (check)
			fprintf(stderr, "postsmtpsts: %s: configuration has "
			    "errors\n", file);
		return (1);
	}
	if (check) {
		if (verbose)
			config_dump(cf, stdout);
		fprintf(stderr, "postsmtpsts: %s: configuration OK\n", file);
		config_free(cf);
		return (0);
	}
	if (verbose > cf->verbose)
		cf->verbose = verbose;
	return (master_main(cf, foreground));
}
