/*
 * tool.h - the front end every operator program shares: option tables
 * (-h/--help, -V/--version, -v, -c and the resolver/HTTPS overrides), the
 * configuration with the command line's overrides merged in, number
 * parsing, escaping and JSON output
 *
 * A tool declares a struct tool (its name, synopsis, option letters and
 * long options of its own), runs tool_getopt() in its loop and handles
 * only the options tool_getopt() does not (it returns them).  Then
 * tool_settings() gives the struct config_dns and config_https to build
 * dns.c and https.c with: the file's settings (-c; else the daemon's
 * defaults), then the command line's (forwarders on the command line
 * replace the file's; unbound options are applied after the file's).
 */
#ifndef TOOL_H
#define TOOL_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/config.h"
#include "lib/log.h"

struct buf;

#define TOOL_EXIT_USAGE		2	/* also: configuration errors */
#define TOOL_MAX_OPTIONS	64	/* --forwarder / --unbound-option */
#define TOOL_MAX_TIMEOUT	300	/* seconds */
#define TOOL_MAX_LONGOPTS	48	/* common + a tool's own */
#define TOOL_ERR_MAX		4096	/* an error message */
#define TOOL_ESC_MAX		(LOG_ESCAPE_MAX * 4 + 4)	/* tool_esc */

/* Long-only options shared by the tools (getopt_long values). */
enum tool_opt {
	TOOL_OPT_JSON = 256,
	TOOL_OPT_TRUST_ANCHOR,
	TOOL_OPT_ROOT_HINTS,
	TOOL_OPT_FORWARDER,
	TOOL_OPT_RESOLV_CONF,
	TOOL_OPT_UNBOUND_CONFIG,
	TOOL_OPT_UNBOUND_OPTION,
	TOOL_OPT_CA_FILE,
	TOOL_OPT_PROXY,
	TOOL_OPT_DNS_TIMEOUT,
	TOOL_OPT_TIMEOUT,
	TOOL_OPT_OWN = 512,	/* a tool's own options start here */
};

/* Which groups of shared options a tool takes. */
#define TOOL_WITH_RESOLVER	0x1	/* --trust-anchor ... --proxy,
					 * --dns-timeout, --timeout, --json */

struct tool {
	const char	*name;		/* "postsmtpsts-query" */
	const char	*usage;		/* synopsis and options, for -h */
	const char	*shortopts;	/* own letters ("c:hvV" are shared) */
	const struct option *longopts;	/* own, NULL-terminated, or NULL */
	unsigned int	 with;		/* TOOL_WITH_* */
};

/* What the shared options said; zeroed by tool_getopt's first call. */
struct tool_opts {
	const char	*config_file;	/* -c */
	int		 verbose;	/* -v, repeatable */
	int		 json;		/* --json */
	const char	*trust_anchor;	/* "" means none */
	const char	*root_hints;
	const char	*unbound_config;
	const char	*ca_file;
	const char	*proxy;
	int		 resolv_conf;
	char		*fwd[TOOL_MAX_OPTIONS + 1];
	size_t		 nfwd;
	char		*ubopt[TOOL_MAX_OPTIONS + 1];
	size_t		 nubopt;
	int		 dns_timeout;	/* seconds, 0: not given */
	int		 timeout;	/* seconds, 0: not given */
};

/*
 * tool_getopt - getopt_long over the shared and t's own options
 *
 * Handles -h/--help (usage on stdout, exit 0), -V/--version (exit 0), -c,
 * -v and, with TOOL_WITH_RESOLVER, the resolver/HTTPS options into *o;
 * an unknown option prints the usage on stderr and exits TOOL_EXIT_USAGE.
 * Returns the tool's own option (its letter or value, optarg set), or -1
 * at the end of the options.
 */
int	tool_getopt(const struct tool *t, int argc, char *argv[],
	    struct tool_opts *o);

/* tool_usage - the synopsis on stderr, exit TOOL_EXIT_USAGE */
void	tool_usage(const struct tool *t) __attribute__((noreturn));

/* tool_number - decimal s in lo..hi, or a message and TOOL_EXIT_USAGE */
long	tool_number(const struct tool *t, const char *s, const char *what,
	    long lo, long hi);

/*
 * tool_settings - load o->config_file (if any) into *cfp and merge the
 * command line into *dcf and *hcf (see above); *ubopt_out is allocated
 * (free it after dns_new's user is gone), the rest stays owned by *cfp or
 * argv.  Returns 0, or -1 after printing the error.
 */
int	tool_settings(const struct tool *t, const struct tool_opts *o,
	    struct config **cfp, struct config_dns *dcf,
	    struct config_https *hcf, char ***ubopt_out);

/* tool_now_ms - a monotonic clock in milliseconds */
long long tool_now_ms(void);

/* tool_wait - poll fd for events until deadline (tool_now_ms): 1 ready,
 * 0 timed out, -1 error (errno) */
int	tool_wait(int fd, short events, long long deadline);

/* tool_esc - untrusted p[0..len) made printable into out (TOOL_ESC_MAX) */
const char *tool_esc(char *out, const char *p, size_t len);

#endif
