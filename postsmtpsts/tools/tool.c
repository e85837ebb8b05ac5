/*
 * tool.c - the shared front end of the operator programs (see tool.h)
 *
 * One option table for what every tool takes, the configuration merge
 * the daemon's users rely on (a tool given -c validates and resolves
 * exactly as the daemon would), and output helpers.  No tool parses its
 * own -h, -V, -c, -v or resolver options.
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tools/tool.h"

static const struct option tool_common_longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const struct option tool_resolver_longopts[] = {
	{ "json", no_argument, NULL, TOOL_OPT_JSON },
	{ "trust-anchor", required_argument, NULL, TOOL_OPT_TRUST_ANCHOR },
	{ "root-hints", required_argument, NULL, TOOL_OPT_ROOT_HINTS },
	{ "forwarder", required_argument, NULL, TOOL_OPT_FORWARDER },
	{ "resolv-conf", no_argument, NULL, TOOL_OPT_RESOLV_CONF },
	{ "unbound-config", required_argument, NULL, TOOL_OPT_UNBOUND_CONFIG },
	{ "unbound-option", required_argument, NULL, TOOL_OPT_UNBOUND_OPTION },
	{ "ca-file", required_argument, NULL, TOOL_OPT_CA_FILE },
	{ "proxy", required_argument, NULL, TOOL_OPT_PROXY },
	{ "dns-timeout", required_argument, NULL, TOOL_OPT_DNS_TIMEOUT },
	{ "timeout", required_argument, NULL, TOOL_OPT_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

/* tool_append_opts - copy a NULL-terminated table after *n entries */
static void
tool_append_opts(struct option *all, size_t *n, const struct option *o)
{
	for (; o != NULL && o->name != NULL; o++) {
		if (*n + 1 >= TOOL_MAX_LONGOPTS)
			panic("tool: too many long options");
		all[(*n)++] = *o;
	}
	memset(&all[*n], 0, sizeof(all[*n]));
}

void
tool_usage(const struct tool *t)
{
	fprintf(stderr, "%s", t->usage);
	exit(TOOL_EXIT_USAGE);
}

long
tool_number(const struct tool *t, const char *s, const char *what, long lo,
    long hi)
{
	char	*end;
	long	 v;

	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "%s: %s: not a number in %ld..%ld: %s\n",
		    t->name, what, lo, hi, s);
		exit(TOOL_EXIT_USAGE);
	}
	return (v);
}

int
tool_getopt(const struct tool *t, int argc, char *argv[], struct tool_opts *o)
{
	struct option	 all[TOOL_MAX_LONGOPTS];
	char		 shortopts[64];
	size_t		 n = 0;
	int		 ch;

	tool_append_opts(all, &n, tool_common_longopts);
	if (t->with & TOOL_WITH_RESOLVER)
		tool_append_opts(all, &n, tool_resolver_longopts);
	tool_append_opts(all, &n, t->longopts);
	snprintf(shortopts, sizeof(shortopts), "c:hvV%s",
	    t->shortopts != NULL ? t->shortopts : "");
	for (;;) {
		ch = getopt_long(argc, argv, shortopts, all, NULL);
		switch (ch) {
		case 'h':
			printf("%s", t->usage);
			exit(0);
		case 'V':
			printf("%s %s\n", t->name, PACKAGE_VERSION);
			exit(0);
		case 'c':
			o->config_file = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case TOOL_OPT_JSON:
			o->json = 1;
			break;
		case TOOL_OPT_TRUST_ANCHOR:
			o->trust_anchor = optarg;
			break;
		case TOOL_OPT_ROOT_HINTS:
			o->root_hints = optarg;
			break;
		case TOOL_OPT_FORWARDER:
			if (o->nfwd == TOOL_MAX_OPTIONS)
				tool_usage(t);
			o->fwd[o->nfwd++] = optarg;
			break;
		case TOOL_OPT_RESOLV_CONF:
			o->resolv_conf = 1;
			break;
		case TOOL_OPT_UNBOUND_CONFIG:
			o->unbound_config = optarg;
			break;
		case TOOL_OPT_UNBOUND_OPTION:
			if (o->nubopt == TOOL_MAX_OPTIONS)
				tool_usage(t);
			o->ubopt[o->nubopt++] = optarg;
			break;
		case TOOL_OPT_CA_FILE:
			o->ca_file = optarg;
			break;
		case TOOL_OPT_PROXY:
			o->proxy = optarg;
			break;
		case TOOL_OPT_DNS_TIMEOUT:
			o->dns_timeout = (int)tool_number(t, optarg,
			    "--dns-timeout", 1, TOOL_MAX_TIMEOUT);
			break;
		case TOOL_OPT_TIMEOUT:
			o->timeout = (int)tool_number(t, optarg, "--timeout", 1,
			    TOOL_MAX_TIMEOUT);
			break;
		case '?':
		case ':':
			tool_usage(t);
		default:
			return (ch);
		}
	}
}

int
tool_settings(const struct tool *t, const struct tool_opts *o,
    struct config **cfp, struct config_dns *dcf, struct config_https *hcf,
    char ***ubopt_out)
{
	struct config	*cf = NULL;
	char		 err[TOOL_ERR_MAX];
	char		**v, **fwd;
	size_t		 n = 0, i;

	*cfp = NULL;
	*ubopt_out = NULL;
	memset(dcf, 0, sizeof(*dcf));
	memset(hcf, 0, sizeof(*hcf));
	if (o->config_file != NULL) {
		if ((cf = config_load(o->config_file, err,
		    sizeof(err))) == NULL) {
			fprintf(stderr, "%s", err);
			return (-1);
		}
		*dcf = cf->dns;
		*hcf = cf->https;
	} else if (access(CONFIG_DEFAULT_TRUST_ANCHOR, R_OK) == 0)
		/* the daemon's default, so both validate alike */
		dcf->trust_anchor_file = CONFIG_DEFAULT_TRUST_ANCHOR;
	*cfp = cf;
	(void)t;

	if (o->trust_anchor != NULL)
		dcf->trust_anchor_file = o->trust_anchor[0] != '\0' ?
		    (char *)o->trust_anchor : NULL;
	if (o->root_hints != NULL)
		dcf->root_hints = (char *)o->root_hints;
	if (o->unbound_config != NULL)
		dcf->unbound_config = (char *)o->unbound_config;
	if (o->resolv_conf)
		dcf->use_resolv_conf = 1;
	/* the unbound options and forwarders: one allocation, both
	 * NULL-terminated: [file's ubopts, cmdline's, NULL, fwds, NULL] */
	for (v = dcf->unbound_options; v != NULL && *v != NULL; v++)
		n++;
	*ubopt_out = xcalloc(n + o->nubopt + 1 + o->nfwd + 1,
	    sizeof(**ubopt_out));
	for (i = 0; i < n; i++)
		(*ubopt_out)[i] = dcf->unbound_options[i];
	for (i = 0; i < o->nubopt; i++)
		(*ubopt_out)[n + i] = o->ubopt[i];
	dcf->unbound_options = *ubopt_out;
	if (o->nfwd > 0) {
		fwd = *ubopt_out + n + o->nubopt + 1;
		for (i = 0; i < o->nfwd; i++)
			fwd[i] = o->fwd[i];
		dcf->forwarders = fwd;
	}
	if (o->ca_file != NULL)
		hcf->ca_file = (char *)o->ca_file;
	if (o->proxy != NULL)
		hcf->proxy = (char *)o->proxy;
	return (0);
}

long long
tool_now_ms(void)
{
	return ((long long)clock_ms());
}

int
tool_wait(int fd, short events, long long deadline)
{
	struct pollfd pfd;
	long long left;
	int	 n;

	for (;;) {
		left = deadline - tool_now_ms();
		if (left <= 0)
			return (0);
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		n = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (n > 0)
			return (1);
		if (n < 0 && errno != EINTR)
			return (-1);
	}
}

const char *
tool_esc(char *out, const char *p, size_t len)
{
	if (p == NULL)
		p = "";
	return (log_escape(out, TOOL_ESC_MAX, p, len));
}
