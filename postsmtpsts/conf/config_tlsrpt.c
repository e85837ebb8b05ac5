/*
 * config_tlsrpt.c - the tlsrpt section: postsmtpsts-tlsrpt(8)
 *
 * Interface: config_int.h (config_tlsrpt_build), the section's options:
 * config_load.c, their meaning: postsmtpsts.conf(5) and lib/config.h
 * (struct config_tlsrpt).  Every value is checked whether or not the
 * reporter is enabled, so "postsmtpsts -t" finds a mistake before the
 * switch is turned on; with enable = true the reporter's identity
 * (organization_name, contact_info, submitter, sender) must be set.
 * The text values go into report JSON, mail headers and a command line
 * (sender), so they are printable ASCII, and sender and submitter are
 * held to the host-name and address syntax.
 */
#include "autoconf.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>
#include <unistd.h>

#include "conf/config_int.h"
#include "lib/addrclass.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/xmalloc.h"

/* config_tlsrpt_text - a printable ASCII text option (may be empty) */
static char *
config_tlsrpt_text(struct config_ctx *ctx, cfg_t *sec, const char *name,
    int required)
{
	const char	*s = config_value_str(sec, name);
	size_t		 i;

	if (*s == '\0') {
		if (required)
			config_error(ctx, sec, name, 0, "tlsrpt: %s must be "
			    "set when enable is true", name);
		return (NULL);
	}
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			break;
	if (s[i] != '\0' || i > CONFIG_MAX_TLSRPT_TEXT) {
		config_error(ctx, sec, name, 0, "tlsrpt: %s must be printable "
		    "ASCII of at most %d bytes", name, CONFIG_MAX_TLSRPT_TEXT);
		return (NULL);
	}
	return (xstrdup(s));
}

/* config_tlsrpt_mailbox_ok - local@domain: a dot-atom local part (no
 * blank, quote, angle bracket or control byte: it goes on sendmail's
 * command line and into From:), a host name */
static int
config_tlsrpt_mailbox_ok(const char *s)
{
	const char	*at = strrchr(s, '@');
	size_t		 i;

	if (at == NULL || at == s || at - s > 64 || s[0] == '.' ||
	    s[0] == '-' || at[-1] == '.')
		return (0);
	for (i = 0; s + i < at; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789!#$%&'*+-/=?^_`{|}~.", s[i]) == NULL ||
		    (s[i] == '.' && s[i + 1] == '.'))
			return (0);
	return (domain_check(at + 1, strlen(at + 1), 0, 2, NULL) ==
	    DOMAIN_CHECK_OK);
}

/*
 * config_tlsrpt_list - a trusted_* list, NULL-terminated, each entry
 * checked by ok (NULL: why not); *n its length
 */
static char **
config_tlsrpt_list(struct config_ctx *ctx, cfg_t *sec, const char *name,
    const char *(*ok)(const char *), size_t *n)
{
	char		 esc[LOG_ESCAPE_MAX + 8];
	char	       **v;
	const char	*s, *why;
	unsigned int	 i, size = cfg_size(sec, name);

	*n = 0;
	if (size > CONFIG_MAX_TLSRPT_TRUSTED) {
		config_error(ctx, sec, name, 0, "tlsrpt: %s: at most %d "
		    "entries", name, CONFIG_MAX_TLSRPT_TRUSTED);
		size = CONFIG_MAX_TLSRPT_TRUSTED;
	}
	v = xcalloc((size_t)size + 1, sizeof(*v));
	for (i = 0; i < size; i++) {
		s = cfg_getnstr(sec, name, i);
		if ((why = ok(s)) != NULL) {
			config_error(ctx, sec, name, i, "tlsrpt: %s \"%s\": %s",
			    name, config_error_esc(esc, sizeof(esc), s), why);
			continue;
		}
		v[(*n)++] = xstrdup(s);
	}
	return (v);
}

/* config_tlsrpt_user_ok - a user name or a numeric id */
static const char *
config_tlsrpt_user_ok(const char *s)
{
	return (config_value_name_ok(s) ? NULL :
	    "not a user name or a numeric id");
}

/* config_tlsrpt_word_ok - a _COMM (at most 15 bytes, as the kernel keeps
 * it) or a unit pattern: printable, no blank */
static const char *
config_tlsrpt_word_ok(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] > 0x7e)
			return ("must be printable ASCII without blanks");
	if (i == 0 || i > 255)
		return ("must be 1 to 255 bytes");
	return (NULL);
}

/*
 * config_tlsrpt_allow - report_allow_addresses: CIDR networks, each
 * checked (addrclass_parse: no host bits set), at most
 * CONFIG_MAX_TLSRPT_ALLOW
 */
/*
 * config_tlsrpt_host_id - tlsrpt.host_id, this host's name in the fleet's
 * counts (fleetagg.h): [A-Za-z0-9._-], at most CONFIG_MAX_TLSRPT_HOST_ID
 * bytes; unset, the host name (cut at its first character outside them)
 */
static void
config_tlsrpt_host_id(struct config_ctx *ctx, cfg_t *sec,
    struct config_tlsrpt *t)
{
	char		 host[256], esc[128];
	const char	*s = config_value_str(sec, "host_id");
	size_t		 n;

	if (*s == '\0') {
		if (gethostname(host, sizeof(host)) == -1)
			host[0] = '\0';
		host[sizeof(host) - 1] = '\0';
		n = strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
		    "vwxyz0123456789._-");
		if (n > CONFIG_MAX_TLSRPT_HOST_ID)
			n = CONFIG_MAX_TLSRPT_HOST_ID;
		host[n] = '\0';
		t->host_id = xstrdup(n > 0 ? host : "localhost");
		return;
	}
	n = strlen(s);
	if (n > CONFIG_MAX_TLSRPT_HOST_ID || strspn(s, "ABCDEFGHIJKLMNOPQRSTU"
	    "VWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n) {
		config_error(ctx, sec, "host_id", 0, "tlsrpt: host_id \"%s\" "
		    "must be 1-%d of A-Z a-z 0-9 . _ -",
		    config_error_esc(esc, sizeof(esc), s),
		    CONFIG_MAX_TLSRPT_HOST_ID);
		return;
	}
	t->host_id = xstrdup(s);
}

static void
config_tlsrpt_allow(struct config_ctx *ctx, cfg_t *sec,
    struct config_tlsrpt *t)
{
	char		 esc[LOG_ESCAPE_MAX + 8];
	const char	*s, *why;
	unsigned int	 i, size = cfg_size(sec, "report_allow_addresses");

	if (size > CONFIG_MAX_TLSRPT_ALLOW) {
		config_error(ctx, sec, "report_allow_addresses", 0, "tlsrpt: "
		    "report_allow_addresses: at most %d networks",
		    CONFIG_MAX_TLSRPT_ALLOW);
		size = CONFIG_MAX_TLSRPT_ALLOW;
	}
	t->report_allow_addresses = xcalloc((size_t)size + 1,
	    sizeof(*t->report_allow_addresses));
	for (i = 0; i < size; i++) {
		s = cfg_getnstr(sec, "report_allow_addresses", i);
		if (addrclass_parse(s, strlen(s), &t->report_allow_addresses[
		    t->nreport_allow_addresses], &why) == -1) {
			config_error(ctx, sec, "report_allow_addresses", i,
			    "tlsrpt: report_allow_addresses \"%s\": %s",
			    config_error_esc(esc, sizeof(esc), s), why);
			continue;
		}
		t->nreport_allow_addresses++;
	}
}

void
config_tlsrpt_build(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	cfg_t		*sec = cfg_getsec(cfg, "tlsrpt");
	struct config_tlsrpt *t = &cf->tlsrpt;
	char		 esc[LOG_ESCAPE_MAX + 8];
	unsigned char	 bin[sizeof(struct in6_addr)];
	const char	*s;
	unsigned int	 i, n;
	int		 req;

	t->enable = cfg_getbool(sec, "enable") ? 1 : 0;
	req = t->enable;
	t->organization_name = config_tlsrpt_text(ctx, sec,
	    "organization_name", req);
	t->contact_info = config_tlsrpt_text(ctx, sec, "contact_info", req);
	if ((t->submitter = config_tlsrpt_text(ctx, sec, "submitter", req)) !=
	    NULL && domain_check(t->submitter, strlen(t->submitter), 0, 2,
	    NULL) != DOMAIN_CHECK_OK)
		config_error(ctx, sec, "submitter", 0, "tlsrpt: submitter "
		    "\"%s\" is not a domain name", config_error_esc(esc,
		    sizeof(esc), t->submitter));
	if ((t->sender = config_tlsrpt_text(ctx, sec, "sender", req)) != NULL &&
	    !config_tlsrpt_mailbox_ok(t->sender))
		config_error(ctx, sec, "sender", 0, "tlsrpt: sender \"%s\" is "
		    "not an address local@domain", config_error_esc(esc,
		    sizeof(esc), t->sender));
	s = config_value_str(sec, "input");
	if (strcmp(s, "log") == 0)
		t->input = CONFIG_TLSRPT_INPUT_LOG;
	else if (strcmp(s, "socket") == 0)
		t->input = CONFIG_TLSRPT_INPUT_SOCKET;
	else
		config_error(ctx, sec, "input", 0, "tlsrpt: input \"%s\" is "
		    "not log or socket", config_error_esc(esc, sizeof(esc), s));
	/*
	 * With input = socket the log is optional: read (if set) only for
	 * the reporter's own mails' Message-ID lines.
	 */
	s = config_value_str(sec, "log");
	if (strcmp(s, "journal") == 0 || (strncmp(s, "journal:", 8) == 0 &&
	    config_value_path_ok(s + 8) == NULL))
		t->log = xstrdup(s);	/* journal:DIR: follow.h */
	else
		t->log = config_value_path(ctx, sec, "tlsrpt", "log",
		    t->input == CONFIG_TLSRPT_INPUT_SOCKET);
	t->socket = config_value_path(ctx, sec, "tlsrpt", "socket", 0);
	if (t->socket != NULL && strlen(t->socket) >= CONFIG_MAX_SUN_PATH)
		config_error(ctx, sec, "socket", 0, "tlsrpt: socket: a unix "
		    "socket's path is at most %d bytes",
		    CONFIG_MAX_SUN_PATH - 1);
	t->socket_group = config_value_name(ctx, sec, "tlsrpt",
	    "socket_group");
	t->trusted_users = config_tlsrpt_list(ctx, sec, "trusted_users",
	    config_tlsrpt_user_ok, &t->ntrusted_users);
	if (t->ntrusted_users == 0)
		config_error(ctx, sec, "trusted_users", 0, "tlsrpt: "
		    "trusted_users: at least one user (Postfix's)");
	t->trusted_commands = config_tlsrpt_list(ctx, sec, "trusted_commands",
	    config_tlsrpt_word_ok, &t->ntrusted_commands);
	t->trusted_units = config_tlsrpt_list(ctx, sec, "trusted_units",
	    config_tlsrpt_word_ok, &t->ntrusted_units);
	t->state_dir = config_value_path(ctx, sec, "tlsrpt", "state_dir", 0);
	/*
	 * The map is looked for only when the reporter is on: a
	 * configuration whose maps have other names (the reporter off, as
	 * it is by default) loads as it did before the tlsrpt section.
	 */
	s = config_value_str(sec, "map");
	if (t->enable && config_find_map(cf, s, strlen(s)) == NULL)
		config_error(ctx, sec, "map", 0, "tlsrpt: no map \"%s\"",
		    config_error_esc(esc, sizeof(esc), s));
	t->map = xstrdup(s);
	n = cfg_size(sec, "policy_types");
	t->policy_types = 0;
	for (i = 0; i < n; i++) {
		s = cfg_getnstr(sec, "policy_types", i);
		if (strcmp(s, "no-policy-found") == 0)
			t->policy_types |= CONFIG_TLSRPT_NONE;
		else if (strcmp(s, "sts") == 0)
			t->policy_types |= CONFIG_TLSRPT_STS;
		else if (strcmp(s, "tlsa") == 0)
			t->policy_types |= CONFIG_TLSRPT_TLSA;
		else
			config_error(ctx, sec, "policy_types", i, "tlsrpt: "
			    "policy type \"%s\" is not sts, tlsa or "
			    "no-policy-found", config_error_esc(esc,
			    sizeof(esc), s));
	}
	t->sendmail = config_value_path(ctx, sec, "tlsrpt", "sendmail", 0);
	t->send_delay = (int)config_value_int(ctx, sec, "tlsrpt",
	    "send_delay", 0, CONFIG_MAX_TLSRPT_DELAY);
	t->retry_for = (int)config_value_int(ctx, sec, "tlsrpt", "retry_for",
	    0, CONFIG_MAX_TLSRPT_RETRY);
	t->max_report_size = (size_t)config_value_int(ctx, sec, "tlsrpt",
	    "max_report_size", CONFIG_MIN_TLSRPT_REPORT,
	    CONFIG_MAX_TLSRPT_REPORT);
	t->rate_limit = (int)config_value_int(ctx, sec, "tlsrpt", "rate_limit",
	    1, CONFIG_MAX_TLSRPT_RATE);
	s = config_value_str(sec, "sending_mta_ip");
	if (*s != '\0') {
		if (inet_pton(AF_INET, s, bin) != 1 &&
		    inet_pton(AF_INET6, s, bin) != 1)
			config_error(ctx, sec, "sending_mta_ip", 0, "tlsrpt: "
			    "sending_mta_ip \"%s\" is not an IP address",
			    config_error_esc(esc, sizeof(esc), s));
		else
			t->sending_mta_ip = xstrdup(s);
	}
	t->keep_days = (int)config_value_int(ctx, sec, "tlsrpt", "keep_days",
	    1, CONFIG_MAX_TLSRPT_KEEP);
	config_tlsrpt_host_id(ctx, sec, t);
	t->fleet_deadline = (int)config_value_int(ctx, sec, "tlsrpt",
	    "fleet_deadline", 0, CONFIG_MAX_TLSRPT_RETRY);
	t->metrics_file = config_value_path(ctx, sec, "tlsrpt",
	    "metrics_file", 1);
	t->timeout = (int)config_value_int(ctx, sec, "tlsrpt", "timeout", 1,
	    CONFIG_MAX_TLSRPT_TIMEOUT);
	config_tlsrpt_allow(ctx, sec, t);
}
