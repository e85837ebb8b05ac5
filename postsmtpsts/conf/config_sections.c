/*
 * config_sections.c - the top-level options and the map, domain, dns,
 * https and cache sections
 *
 * Each builder checks its values (ranges, names, addresses, options that
 * exclude each other) and fills its part of the struct config, reporting
 * every error at the line of the value (config_error) and carrying on.
 * Interface: config_int.h.
 *
 * Pinned domains ("domain" sections): the name is checked here
 * (domain_check), the pin's grammar and the reply data it composes are
 * policy/pins.c's (pins_parse: the grammar is policy, the file syntax is
 * ours; conf/ stands above policy/ for this call).  They are sorted for
 * config_find_domain()'s binary search.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/pins.h"
#include "policy/tlsattr.h"

#define CONFIG_MAX_PROXY	1024	/* proxy URL, bytes */
#define CONFIG_MAX_UB_OPTION	1024	/* one unbound_options entry */

/* config_map_name_ok - [A-Za-z0-9._-]{1,64} */
static int
config_map_name_ok(const char *s)
{
	size_t	 len = strlen(s);

	return (len >= 1 && len <= CONFIG_MAX_MAP_NAME &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == len);
}

/*
 * config_map_floor - a map's tls_protocols, tls_ciphers, tls_exclude: the
 * floor of its authenticated answers, checked by policy/tlsattr.c as a
 * pin's values are ("" : none)
 */
static void
config_map_floor(struct config_ctx *ctx, cfg_t *sec, const char *esc,
    struct config_map *m)
{
	static const char *const opts[TLSATTR_NKINDS] = {
		"tls_protocols", "tls_ciphers", "tls_exclude",
	};
	char	 out[TLSATTR_MAX_VALUE + 1], why[TLSATTR_WHY_MAX];
	char	 vesc[LOG_ESCAPE_MAX + 8];
	char   **dst[TLSATTR_NKINDS];
	const char *v;
	int	 k;

	dst[TLSATTR_PROTOCOLS] = &m->tls_protocols;
	dst[TLSATTR_CIPHERS] = &m->tls_ciphers;
	dst[TLSATTR_EXCLUDE] = &m->tls_exclude;
	for (k = 0; k < TLSATTR_NKINDS; k++) {
		v = config_value_str(sec, opts[k]);
		if (*v == '\0')
			continue;
		if (tlsattr_check(k, v, strlen(v), out, why, sizeof(why)) ==
		    -1)
			config_error(ctx, sec, opts[k], 0, "map \"%s\": %s "
			    "\"%s\" %s", esc, opts[k], config_error_esc(vesc,
			    sizeof(vesc), v), why);
		else
			*dst[k] = xstrdup(out);
	}
}

void
config_sections_maps(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	struct config_map *m;
	const char *name, *ta;
	unsigned int i, n = cfg_size(cfg, "map");
	cfg_t	*sec;

	/*
	 * Without any map section, the two maps of the shipped file: the
	 * plain one for Postfix before 3.10 (which refuses the TLSRPT
	 * attributes) and the one with them for 3.10 and later (which needs
	 * them to enforce MTA-STS mx patterns exactly).
	 */
	cf->maps = xcalloc(n > 0 ? n : 2, sizeof(*cf->maps));
	if (n == 0) {
		for (i = 0; i < 2; i++) {
			m = &cf->maps[cf->nmaps++];
			m->name = xstrdup(i == 0 ? CONFIG_DEFAULT_MAP :
			    CONFIG_DEFAULT_MAP_TLSRPT);
			m->testing_answer = CONFIG_ANSWER_NOTFOUND;
			m->tlsrpt = i == 1;
			m->dane = 1;
			m->dane_some = CONFIG_DANE_SOME_DANE;
			m->dane_lookup_failure = CONFIG_DANE_FAILURE_TEMP;
		}
		cf->dane = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		sec = cfg_getnsec(cfg, "map", i);
		name = cfg_title(sec);
		m = &cf->maps[cf->nmaps++];
		m->name = xstrdup(name);
		config_error_esc(esc, sizeof(esc), name);
		if (!config_map_name_ok(name))
			config_error(ctx, sec, NULL, 0, "map \"%s\": a map "
			    "name is 1 to %d letters, digits, '.', '_' or '-'",
			    esc, CONFIG_MAX_MAP_NAME);
		ta = config_value_str(sec, "testing_answer");
		if (strcasecmp(ta, "notfound") == 0)
			m->testing_answer = CONFIG_ANSWER_NOTFOUND;
		else if (strcasecmp(ta, "may") == 0)
			m->testing_answer = CONFIG_ANSWER_MAY;
		else
			config_error(ctx, sec, "testing_answer", 0, "map "
			    "\"%s\": testing_answer must be notfound or may",
			    esc);
		m->tlsrpt = cfg_getbool(sec, "tlsrpt") ? 1 : 0;
		m->dane = cfg_getbool(sec, "dane") ? 1 : 0;
		if (m->dane)
			cf->dane = 1;
		ta = config_value_str(sec, "dane_some");
		if (strcasecmp(ta, "dane") == 0)
			m->dane_some = CONFIG_DANE_SOME_DANE;
		else if (strcasecmp(ta, "dane-only") == 0)
			m->dane_some = CONFIG_DANE_SOME_DANE_ONLY;
		else if (strcasecmp(ta, "ignore") == 0)
			m->dane_some = CONFIG_DANE_SOME_IGNORE;
		else
			config_error(ctx, sec, "dane_some", 0, "map \"%s\": "
			    "dane_some must be dane, dane-only or ignore", esc);
		ta = config_value_str(sec, "dane_lookup_failure");
		if (strcasecmp(ta, "temp") == 0)
			m->dane_lookup_failure = CONFIG_DANE_FAILURE_TEMP;
		else if (strcasecmp(ta, "ignore") == 0)
			m->dane_lookup_failure = CONFIG_DANE_FAILURE_IGNORE;
		else
			config_error(ctx, sec, "dane_lookup_failure", 0,
			    "map \"%s\": dane_lookup_failure must be temp or "
			    "ignore", esc);
		config_map_floor(ctx, sec, esc, m);
	}
}

/* config_pin_err - pins_parse's errors, at the option's line */
struct config_pin_err {
	struct config_ctx *ctx;
	cfg_t		*sec;
};

static void
config_pin_err(void *arg, const char *field, const char *msg)
{
	struct config_pin_err *pe = arg;

	config_error(pe->ctx, pe->sec, field, 0, "%s", msg);
}

/* config_sections_domain - one pinned domain: the name, then the pin's
 * grammar (policy/pins.c) */
static void
config_sections_domain(struct config_ctx *ctx, cfg_t *sec,
    struct config_domain *d)
{
	char	 esc[LOG_ESCAPE_MAX + 8], name[DOMAIN_BUFSZ];
	const char *title = cfg_title(sec);
	struct config_pin_err pe = { ctx, sec };
	const char *tls[TLSATTR_NKINDS];
	enum domain_check dc;

	dc = domain_check(title, strlen(title), DOMAIN_NAME_UNDERSCORE |
	    DOMAIN_NAME_DOT, 2, name);
	if (dc != DOMAIN_CHECK_OK) {
		config_error(ctx, sec, NULL, 0, "domain \"%s\" %s",
		    config_error_esc(esc, sizeof(esc), title),
		    domain_check_why(dc));
		d->domain = xstrdup(title);
	} else
		d->domain = xstrdup(name);
	d->line = config_error_sec_line(sec);
	tls[TLSATTR_PROTOCOLS] = config_value_str(sec, "protocols");
	tls[TLSATTR_CIPHERS] = config_value_str(sec, "ciphers");
	tls[TLSATTR_EXCLUDE] = config_value_str(sec, "exclude");
	(void)pins_parse(title, config_value_str(sec, "level"),
	    config_value_str(sec, "match"), config_value_str(sec, "servername"),
	    config_value_str(sec, "until"), tls, d, config_pin_err, &pe);
}

/* Sort key of a domain: its name, then its place in the file. */
struct config_domain_key {
	const char	*name;
	unsigned int	 idx;
};

/* config_domain_keycmp - qsort comparison of config_domain_key */
static int
config_domain_keycmp(const void *a, const void *b)
{
	const struct config_domain_key *ka = a, *kb = b;
	int	 c;

	if ((c = strcmp(ka->name, kb->name)) != 0)
		return (c);
	return (ka->idx < kb->idx ? -1 : ka->idx > kb->idx);
}

void
config_sections_domains(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8], esc2[LOG_ESCAPE_MAX + 8];
	struct config_domain_key *keys;
	struct config_domain *sorted;
	unsigned int i, n = cfg_size(cfg, "domain");
	cfg_t	*sec, *first;

	if (n == 0)
		return;
	cf->domains = xcalloc(n, sizeof(*cf->domains));
	for (i = 0; i < n; i++) {
		config_sections_domain(ctx, cfg_getnsec(cfg, "domain", i),
		    &cf->domains[i]);
		cf->ndomains++;
	}
	keys = xcalloc(n, sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].name = cf->domains[i].domain;
		keys[i].idx = i;
	}
	qsort(keys, n, sizeof(*keys), config_domain_keycmp);
	for (i = 1; i < n; i++) {
		if (strcmp(keys[i - 1].name, keys[i].name) != 0)
			continue;
		sec = cfg_getnsec(cfg, "domain", keys[i].idx);
		first = cfg_getnsec(cfg, "domain", keys[i - 1].idx);
		config_error(ctx, sec, NULL, 0, "domain \"%s\" duplicates "
		    "domain \"%s\" at line %d", config_error_esc(esc,
		    sizeof(esc), cfg_title(sec)), config_error_esc(esc2,
		    sizeof(esc2), cfg_title(first)),
		    config_error_sec_line(first));
	}
	sorted = xcalloc(n, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = cf->domains[keys[i].idx];
	free(cf->domains);
	cf->domains = sorted;
	free(keys);
}

void
config_sections_root(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s;
	double	 rt;
	long	 ncpu;

	cf->user = config_value_name(ctx, cfg, NULL, "user");
	cf->group = config_value_name(ctx, cfg, NULL, "group");
	cf->pid_file = config_value_path(ctx, cfg, NULL, "pid_file", 1);
	cf->runtime_dir = config_value_path(ctx, cfg, NULL, "runtime_dir", 0);
	if (cf->runtime_dir != NULL &&
	    strlen(cf->runtime_dir) > CONFIG_MAX_RUNTIME_DIR)
		config_error(ctx, cfg, "runtime_dir", 0, "runtime_dir is "
		    "longer than %d bytes (its sockets must fit in sun_path)",
		    CONFIG_MAX_RUNTIME_DIR);

	cf->workers = (int)config_value_int(ctx, cfg, NULL, "workers", 0,
	    CONFIG_MAX_WORKERS);
	/* Half the cores: Postfix, the client of every lookup, runs on the
	 * same machine, and a warm lookup is mostly the kernel's loopback
	 * work on both sides; one worker answers about 110,000 a second
	 * (bench/README.md "Warm lookups balanced": on 2 cores 1 worker
	 * beats 2 at 8 and 64 connections). */
	if (cf->workers == 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN) / 2;
		cf->workers = ncpu < 1 ? 1 : ncpu > CONFIG_MAX_WORKERS ?
		    CONFIG_MAX_WORKERS : (int)ncpu;
	}

	/* One resolver a core: a cold burst is DNSSEC validation and TLS
	 * handshakes, CPU work that one process does on one core (issue 28,
	 * DESIGN.md "Resolver shards"); beyond CONFIG_AUTO_RESOLVERS each
	 * more one costs its memory for little (postsmtpsts.conf(5)). */
	cf->resolvers = (int)config_value_int(ctx, cfg, NULL, "resolvers", 0,
	    CONFIG_MAX_RESOLVERS);
	if (cf->resolvers == 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cf->resolvers = ncpu < 1 ? 1 : ncpu > CONFIG_AUTO_RESOLVERS ?
		    CONFIG_AUTO_RESOLVERS : (int)ncpu;
	}
	cf->max_connections = (int)config_value_int(ctx, cfg, NULL,
	    "max_connections", 1, CONFIG_MAX_CONNECTIONS);
	cf->idle_timeout = (int)config_value_int(ctx, cfg, NULL, "idle_timeout",
	    1, CONFIG_MAX_IDLE_TIMEOUT);
	cf->max_inflight = (int)config_value_int(ctx, cfg, NULL, "max_inflight",
	    1, CONFIG_MAX_INFLIGHT);
	cf->max_resolutions = (int)config_value_int(ctx, cfg, NULL,
	    "max_resolutions", 1, CONFIG_MAX_RESOLUTIONS);

	rt = cfg_getfloat(cfg, "request_timeout") * 1000.0;
	if (!(rt >= CONFIG_MIN_REQUEST_TIMEOUT_MS &&
	    rt <= CONFIG_MAX_REQUEST_TIMEOUT_MS))
		config_error(ctx, cfg, "request_timeout", 0,
		    "request_timeout must be between %g and %g seconds, not %g",
		    CONFIG_MIN_REQUEST_TIMEOUT_MS / 1000.0,
		    CONFIG_MAX_REQUEST_TIMEOUT_MS / 1000.0, rt / 1000.0);
	else
		cf->request_timeout_ms = (int)(rt + 0.5);

	s = config_value_str(cfg, "deadline_answer");
	if (strcasecmp(s, "notfound") == 0)
		cf->deadline_answer = CONFIG_ANSWER_NOTFOUND;
	else if (strcasecmp(s, "temp") == 0)
		cf->deadline_answer = CONFIG_ANSWER_TEMP;
	else
		config_error(ctx, cfg, "deadline_answer", 0,
		    "deadline_answer must be notfound or temp, not \"%s\"",
		    config_error_esc(esc, sizeof(esc), s));

	s = config_value_str(cfg, "syslog_facility");
	if ((cf->syslog_facility = config_facility_value(s)) == -1) {
		cf->syslog_facility = LOG_MAIL;
		config_error(ctx, cfg, "syslog_facility", 0,
		    "syslog_facility must be mail, daemon or local0..local7, "
		    "not \"%s\"", config_error_esc(esc, sizeof(esc), s));
	}
	cf->verbose = (int)config_value_int(ctx, cfg, NULL, "verbose", 0,
	    CONFIG_MAX_VERBOSE);
}

/*
 * config_addr_ok - an unbound forwarder: an IP address, optionally
 * followed by "@port"
 */
static int
config_addr_ok(const char *s)
{
	unsigned char addr[sizeof(struct in6_addr)];
	char	 host[INET6_ADDRSTRLEN];
	const char *at = strchr(s, '@');
	size_t	 hlen = at != NULL ? (size_t)(at - s) : strlen(s);
	long	 port;

	if (hlen == 0 || hlen >= sizeof(host))
		return (0);
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, addr) != 1 &&
	    inet_pton(AF_INET6, host, addr) != 1)
		return (0);
	if (at == NULL)
		return (1);
	if (at[1] == '\0' || strlen(at + 1) > 5 ||
	    strspn(at + 1, "0123456789") != strlen(at + 1))
		return (0);
	port = strtol(at + 1, NULL, 10);
	return (port >= 1 && port <= CONFIG_MAX_PORT);
}

/* config_ub_option_ok - "name: value" as unbound.conf(5) spells it */
static int
config_ub_option_ok(const char *s)
{
	size_t	 n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");

	if (n == 0 || s[n] != ':' || strlen(s) > CONFIG_MAX_UB_OPTION)
		return (0);
	s += n + 1;
	s += strspn(s, " \t");
	return (*s != '\0');
}

void
config_sections_dns(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "dns");
	unsigned int i, j, n;
	const char *s;

	cf->dns.trust_anchor_file = config_value_path(ctx, sec, "dns",
	    "trust_anchor_file", 1);
	cf->dns.root_hints = config_value_path(ctx, sec, "dns", "root_hints",
	    1);
	cf->dns.unbound_config = config_value_path(ctx, sec, "dns",
	    "unbound_config", 1);
	cf->dns.use_resolv_conf = cfg_getbool(sec, "use_resolv_conf") ? 1 : 0;

	n = cfg_size(sec, "forwarders");
	cf->dns.forwarders = xcalloc((size_t)n + 1, sizeof(char *));
	for (i = j = 0; i < n; i++) {
		s = cfg_getnstr(sec, "forwarders", i);
		if (s == NULL || !config_addr_ok(s)) {
			config_error(ctx, sec, "forwarders", i, "dns: "
			    "forwarder \"%s\" is not an IP address (with "
			    "optional @port)",
			    config_error_esc(esc, sizeof(esc), s ? s : ""));
			continue;
		}
		cf->dns.forwarders[j++] = xstrdup(s);
	}
	if (n > 0 && cf->dns.use_resolv_conf)
		config_error(ctx, sec, "use_resolv_conf", 0, "dns: "
		    "forwarders and use_resolv_conf = true exclude each other");

	n = cfg_size(sec, "unbound_options");
	cf->dns.unbound_options = xcalloc((size_t)n + 1, sizeof(char *));
	for (i = j = 0; i < n; i++) {
		s = cfg_getnstr(sec, "unbound_options", i);
		if (s == NULL || !config_ub_option_ok(s)) {
			config_error(ctx, sec, "unbound_options", i, "dns: "
			    "unbound option \"%s\" is not \"name: value\"",
			    config_error_esc(esc, sizeof(esc), s ? s : ""));
			continue;
		}
		cf->dns.unbound_options[j++] = xstrdup(s);
	}
}

void
config_sections_https(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "https");
	const char *s;
	size_t	 i;

	cf->https.ca_file = config_value_path(ctx, sec, "https", "ca_file", 1);
	s = config_value_str(sec, "proxy");
	if (*s != '\0') {
		for (i = 0; s[i] != '\0'; i++)
			if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
				break;
		if (s[i] != '\0' || i > CONFIG_MAX_PROXY)
			config_error(ctx, sec, "proxy", 0, "https: proxy "
			    "\"%s\" is not a URL", config_error_esc(esc,
			    sizeof(esc), s));
		else
			cf->https.proxy = xstrdup(s);
	}
	cf->https.connect_timeout = (int)config_value_int(ctx, sec, "https",
	    "connect_timeout", 1, CONFIG_MAX_HTTPS_TIMEOUT);
	cf->https.timeout = (int)config_value_int(ctx, sec, "https", "timeout",
	    1, CONFIG_MAX_HTTPS_TIMEOUT);
	if (cf->https.connect_timeout > cf->https.timeout)
		config_error(ctx, sec, "connect_timeout", 0, "https: "
		    "connect_timeout (%d) is longer than timeout (%d)",
		    cf->https.connect_timeout, cf->https.timeout);
	/* RFC 8461 §3.3 lets a sender cap the policy size; the parser's
	 * limit (64 KiB) is the most it can take, so only lower is allowed */
	cf->https.max_policy_size = (size_t)config_value_int(ctx, sec, "https",
	    "max_policy_size", CONFIG_MIN_POLICY_SIZE, CONFIG_MAX_POLICY_SIZE);
}

/*
 * config_sections_history - cache.history_file: a path, "none" (no file:
 * the events are still logged and counted), or "" for CONFIG_HISTORY_NAME
 * in the directory that holds cache.path (the state directory, which the
 * daemon's user owns and systemd's unit lets it write)
 */
static void
config_sections_history(struct config_ctx *ctx, cfg_t *sec,
    struct config *cf)
{
	const char	*s = config_value_str(sec, "history_file"), *slash;
	char		 path[CONFIG_MAX_PATH + 1];
	int		 n;

	if (strcmp(s, "none") == 0)
		return;
	if (*s != '\0') {
		cf->cache.history_file = config_value_path(ctx, sec, "cache",
		    "history_file", 0);
		return;
	}
	if (cf->cache.path == NULL ||
	    (slash = strrchr(cf->cache.path, '/')) == NULL)
		return;		/* the path's own error was reported */
	n = snprintf(path, sizeof(path), "%.*s/%s",
	    (int)(slash - cf->cache.path), cf->cache.path, CONFIG_HISTORY_NAME);
	if (n < 0 || (size_t)n >= sizeof(path))
		config_error(ctx, sec, "path", 0, "cache: path is too long for "
		    "history_file beside it");
	else
		cf->cache.history_file = xstrdup(path);
}

void
config_sections_cache(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	cfg_t	*sec = cfg_getsec(cfg, "cache");
	long	 v;

	cf->cache.path = config_value_path(ctx, sec, "cache", "path", 0);
	v = config_value_int(ctx, sec, "cache", "max_size",
	    CONFIG_MIN_CACHE_SIZE, CONFIG_MAX_CACHE_SIZE);
	cf->cache.max_size = v > 0 ? (size_t)v : 0;
	cf->cache.negative_ttl = (int)config_value_int(ctx, sec, "cache",
	    "negative_ttl", 1, CONFIG_MAX_NEGATIVE_TTL);
	cf->cache.refresh_before = (int)config_value_int(ctx, sec, "cache",
	    "refresh_before", 0, CONFIG_MAX_REFRESH_BEFORE);
	cf->cache.refresh_interval = (int)config_value_int(ctx, sec, "cache",
	    "refresh_interval", 1, CONFIG_MAX_REFRESH_INTERVAL);
	/* 0: a quarter of the discovery slots, the rest left to requests */
	v = config_value_int(ctx, sec, "cache", "refresh_concurrency", 0,
	    CONFIG_MAX_RESOLUTIONS);
	if (v > cf->max_resolutions && cf->max_resolutions > 0)
		config_error(ctx, sec, "refresh_concurrency", 0, "cache: "
		    "refresh_concurrency (%ld) is more than max_resolutions "
		    "(%d)", v, cf->max_resolutions);
	else if (v == 0)
		v = cf->max_resolutions > 4 ? cf->max_resolutions / 4 : 1;
	cf->cache.refresh_concurrency = (int)v;
	cf->cache.enabled = cfg_getbool(sec, "enabled") ? 1 : 0;
	config_sections_history(ctx, sec, cf);
}
