/*
 * config_listen.c - the listeners: "listen" sections and "metrics"
 *
 * A listener is "unix:/path" (with mode, owner and group), "inet:HOST:PORT",
 * "inet:[IPv6]:PORT" or "inet:*:PORT"; addresses and ports are kept in
 * canonical form, so two specs that would bind the same socket are found
 * (a second socket on a port that "*" holds cannot bind).  Without listen
 * sections the one listener is CONFIG_DEFAULT_LISTEN.  The metrics listener
 * (Prometheus) is an IP address and port of its own ("" = off), never one
 * of the socketmap listeners'.  Interface: config_int.h.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#define CONFIG_UNIX_PATH_MAX	(sizeof(((struct sockaddr_un *)0)->sun_path))

/*
 * config_listen_parse - "unix:/path", "inet:HOST:PORT", "inet:[IPv6]:PORT"
 * or "inet:*:PORT" into l (host and port in canonical form); NULL or why
 */
static const char *
config_listen_parse(const char *spec, struct config_listen *l)
{
	struct in6_addr a6;
	struct in_addr a4;
	char	 host[INET6_ADDRSTRLEN], canon[INET6_ADDRSTRLEN], *hp;
	const char *h, *hend, *port;
	size_t	 hlen;
	long	 pn;

	if (strncmp(spec, "unix:", 5) == 0) {
		if (config_value_path_ok(spec + 5) != NULL)
			return ("needs an absolute socket path");
		if (strlen(spec + 5) >= CONFIG_UNIX_PATH_MAX)
			return ("has a socket path too long for sun_path");
		if (spec[strlen(spec) - 1] == '/')
			return ("has a socket path that names a directory");
		l->kind = CONFIG_LISTEN_UNIX;
		l->path = xstrdup(spec + 5);
		l->mode = 0666;
		return (NULL);
	}
	if (strncmp(spec, "inet:", 5) != 0)
		return ("is neither unix:/path nor inet:host:port");
	h = spec + 5;
	if (*h == '[') {
		if ((hend = strchr(h, ']')) == NULL)
			return ("has no ']' after the IPv6 address");
		h++;
		port = hend + 1;
	} else {
		if ((port = strrchr(h, ':')) == NULL)
			return ("has no port");
		hend = port;
		if (memchr(h, ':', (size_t)(hend - h)) != NULL)
			return ("has an IPv6 address not in [brackets]");
	}
	if (*port != ':' || port[1] == '\0')
		return ("has no port");
	port++;
	hlen = (size_t)(hend - h);
	if (hlen == 0 || hlen >= sizeof(host))
		return ("has no valid host");
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (strcmp(host, "*") == 0 && spec[5] != '[')
		hp = host;
	else if (spec[5] == '[' && inet_pton(AF_INET6, host, &a6) == 1)
		hp = (char *)inet_ntop(AF_INET6, &a6, canon, sizeof(canon));
	else if (spec[5] != '[' && inet_pton(AF_INET, host, &a4) == 1)
		hp = (char *)inet_ntop(AF_INET, &a4, canon, sizeof(canon));
	else
		return ("has a host that is neither an IP address nor *");
	if (hp == NULL)
		return ("has a host that is neither an IP address nor *");
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5)
		return ("has a port that is not a number 1..65535");
	pn = strtol(port, NULL, 10);
	if (pn < 1 || pn > CONFIG_MAX_PORT)
		return ("has a port that is not a number 1..65535");
	l->kind = CONFIG_LISTEN_INET;
	l->host = xstrdup(hp);
	snprintf(canon, sizeof(canon), "%ld", pn);
	l->port = xstrdup(canon);
	return (NULL);
}

/* config_listen_conflict - whether a and b cannot both be bound (a spec
 * that did not parse conflicts with none) */
static int
config_listen_conflict(const struct config_listen *a,
    const struct config_listen *b)
{
	if (a->kind != b->kind)
		return (0);
	if (a->kind == CONFIG_LISTEN_UNIX)
		return (a->path != NULL && b->path != NULL &&
		    strcmp(a->path, b->path) == 0);
	if (strcmp(a->port, b->port) != 0)
		return (0);
	/* "*" is every address: a second socket on its port cannot bind */
	return (strcmp(a->host, b->host) == 0 || strcmp(a->host, "*") == 0 ||
	    strcmp(b->host, "*") == 0);
}

/* config_listen_mode - an octal socket mode string, 3 or 4 digits, <= 0777 */
static int
config_listen_mode(const char *s, mode_t *mode)
{
	size_t	 len = strlen(s);
	long	 v;

	if (len < 3 || len > 4 || strspn(s, "01234567") != len)
		return (-1);
	v = strtol(s, NULL, 8);
	if (v > 0777)
		return (-1);
	*mode = (mode_t)v;
	return (0);
}

void
config_listen_build(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	static const char *const unix_only[] = { "mode", "owner", "group",
		NULL };
	char	 esc[LOG_ESCAPE_MAX + 8], what[LOG_ESCAPE_MAX + 32];
	struct config_listen *l;
	const char *spec, *why, *mode;
	const char *const *o;
	unsigned int i, n = cfg_size(cfg, "listen");
	cfg_t	*sec = NULL;
	size_t	 j;

	cf->listen = xcalloc(n > 0 ? n : 1, sizeof(*cf->listen));
	for (i = 0; i < n || (n == 0 && i == 0); i++) {
		if (n > 0) {
			sec = cfg_getnsec(cfg, "listen", i);
			spec = cfg_title(sec);
		} else
			spec = CONFIG_DEFAULT_LISTEN;
		l = &cf->listen[cf->nlisten];
		l->spec = xstrdup(spec);
		config_error_esc(esc, sizeof(esc), spec);
		snprintf(what, sizeof(what), "listen \"%s\"", esc);
		if ((why = config_listen_parse(spec, l)) != NULL) {
			config_error(ctx, sec, NULL, 0, "listen \"%s\" %s",
			    esc, why);
			cf->nlisten++;
			continue;
		}
		cf->nlisten++;
		if (sec == NULL)
			continue;
		if (l->kind == CONFIG_LISTEN_INET) {
			for (o = unix_only; *o != NULL; o++)
				if (cfg_getopt(sec, *o)->flags & CFGF_MODIFIED)
					config_error(ctx, sec, *o, 0,
					    "%s: %s applies to unix sockets "
					    "only", what, *o);
		} else {
			mode = config_value_str(sec, "mode");
			if (config_listen_mode(mode, &l->mode) == -1)
				config_error(ctx, sec, "mode", 0, "%s: mode "
				    "must be an octal string like \"0660\"",
				    what);
			l->owner = config_value_name(ctx, sec, what, "owner");
			l->group = config_value_name(ctx, sec, what, "group");
		}
		for (j = 0; j + 1 < cf->nlisten; j++) {
			if (cf->listen[j].kind == l->kind &&
			    (cf->listen[j].path != NULL ||
			    cf->listen[j].host != NULL) &&
			    config_listen_conflict(&cf->listen[j], l)) {
				config_error(ctx, sec, NULL, 0, "%s "
				    "duplicates listen \"%s\" at line %d", what,
				    config_error_esc(esc, sizeof(esc),
				    cf->listen[j].spec), config_error_sec_line(
				    cfg_getnsec(cfg, "listen", (unsigned)j)));
				break;
			}
		}
	}
}

void
config_listen_metrics(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *spec = config_value_str(cfg, "metrics"), *why;
	struct config_listen *l;
	size_t	 j;

	if (spec == NULL || *spec == '\0')
		return;
	config_error_esc(esc, sizeof(esc), spec);
	l = cf->metrics = xcalloc(1, sizeof(*cf->metrics));
	l->spec = xstrdup(spec);
	if ((why = config_listen_parse(spec, l)) != NULL) {
		config_error(ctx, cfg, "metrics", 0, "metrics \"%s\" %s",
		    esc, why);
		return;
	}
	if (l->kind != CONFIG_LISTEN_INET || strcmp(l->host, "*") == 0) {
		config_error(ctx, cfg, "metrics", 0, "metrics \"%s\" must "
		    "be inet:ADDRESS:PORT with an IP address (0.0.0.0 for all)",
		    esc);
		return;
	}
	for (j = 0; j < cf->nlisten; j++)
		if (cf->listen[j].host != NULL &&
		    config_listen_conflict(&cf->listen[j], l))
			config_error(ctx, cfg, "metrics", 0, "metrics "
			    "\"%s\" uses the address of a socketmap listener",
			    esc);
}
