/*
 * config_fleet.c - the fleet section (lib/fleet.h): Redis servers or
 * sentinels, timeouts, the lease, and the secret files
 *
 * A server is "/path" (a unix socket) or "ADDRESS:PORT", "[IPv6]:PORT": an
 * address, never a name (the resolver resolves nothing at its start).
 * The password and HMAC key are read from their files here, so a file
 * the daemon cannot read, or one others may read, is a configuration
 * error with its line; config_free() wipes both.  Interface: config_int.h.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/*
 * config_fleet_ms - a fleet time option in seconds (fraction allowed) as
 * milliseconds in [1, CONFIG_MAX_FLEET_TIMEOUT_MS]
 */
static int
config_fleet_ms(struct config_ctx *ctx, cfg_t *sec, const char *name)
{
	double	 v = cfg_getfloat(sec, name) * 1000.0;

	if (v < 1.0 || v > (double)CONFIG_MAX_FLEET_TIMEOUT_MS) {
		config_error(ctx, sec, name, 0, "fleet: %s must be between "
		    "0.001 and %d seconds", name,
		    CONFIG_MAX_FLEET_TIMEOUT_MS / 1000);
		return (1);
	}
	return ((int)(v + 0.5));
}

/*
 * config_fleet_server - parse "/path" (unix socket) or "host:port",
 * "[v6]:port" into *sv; NULL or why not
 */
static const char *
config_fleet_server(const char *spec, struct config_fleet_server *sv)
{
	const char *colon, *host;
	size_t	 hlen;
	long	 port;
	char	*end;
	unsigned char a[sizeof(struct in6_addr)];
	char	 hbuf[INET6_ADDRSTRLEN + 1];

	memset(sv, 0, sizeof(*sv));
	if (spec[0] == '/') {
		if (strlen(spec) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return ("is too long for a unix socket path");
		if (config_value_path_ok(spec) != NULL)
			return ("is not a usable path");
		sv->path = xstrdup(spec);
		sv->spec = xstrdup(spec);
		return (NULL);
	}
	if ((colon = strrchr(spec, ':')) == NULL)
		return ("is neither /path nor host:port");
	host = spec;
	hlen = (size_t)(colon - spec);
	if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(hbuf))
		return ("has no usable address");
	memcpy(hbuf, host, hlen);
	hbuf[hlen] = '\0';
	/* an address, not a name: the resolver resolves nothing in its
	 * start-up path, and a name would hide which server is meant */
	if (inet_pton(AF_INET, hbuf, a) != 1 &&
	    inet_pton(AF_INET6, hbuf, a) != 1)
		return ("has no IPv4 or IPv6 address before the port");
	if (!isdigit((unsigned char)colon[1]))
		return ("has no port");
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port < 1 || port > 65535)
		return ("has no valid port (1-65535)");
	sv->host = xstrdup(hbuf);
	sv->port = (int)port;
	sv->spec = xstrdup(spec);
	return (NULL);
}

/*
 * config_fleet_secret - read a secret file (password or key) into a new
 * buffer of *len bytes (NUL-terminated too), one trailing newline removed;
 * NULL with *why set
 */
static unsigned char *
config_fleet_secret(const char *path, size_t min, size_t max, size_t *len,
    const char **why)
{
	unsigned char *out;
	struct stat st;
	ssize_t	 n;
	size_t	 got = 0;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		*why = strerror(errno);
		return (NULL);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return (NULL);
	}
	if ((st.st_mode & (S_IRWXO)) != 0) {
		*why = "readable by others (chmod o-rwx)";
		close(fd);
		return (NULL);
	}
	out = xmalloc(max + 2);
	while (got < max + 1) {
		n = read(fd, out + got, max + 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got > 0 && out[got - 1] == '\n')
		got--;
	if (got > 0 && out[got - 1] == '\r')
		got--;
	if (got > max || got < min) {
		*why = got > max ? "is too long" : "is too short";
		explicit_bzero(out, max + 2);
		free(out);
		return (NULL);
	}
	out[got] = '\0';
	*len = got;
	return (out);
}

/* config_fleet_servers - the specs of list name (servers or sentinels):
 * an array (NULL if none) with *np of them valid, errors reported */
static struct config_fleet_server *
config_fleet_servers(struct config_ctx *ctx, cfg_t *sec, const char *name,
    size_t *np)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	struct config_fleet_server *v;
	const char *s, *why;
	unsigned int i, n = sec != NULL ? cfg_size(sec, name) : 0;

	*np = 0;
	if (n > CONFIG_MAX_FLEET_SERVERS) {
		config_error(ctx, sec, name, 0, "fleet: more than %d %s",
		    CONFIG_MAX_FLEET_SERVERS, name);
		return (NULL);
	}
	v = n ? xcalloc(n, sizeof(*v)) : NULL;
	for (i = 0; i < n; i++) {
		s = cfg_getnstr(sec, name, i);
		if ((why = config_fleet_server(s != NULL ? s : "",
		    &v[*np])) != NULL)
			config_error(ctx, sec, name, i, "fleet: %s \"%s\" "
			    "%s", strcmp(name, "servers") == 0 ? "server" :
			    "sentinel", config_error_esc(esc, sizeof(esc),
			    s != NULL ? s : ""), why);
		else
			(*np)++;
	}
	return (v);
}

void
config_fleet_build(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "fleet");
	struct config_fleet *fl = &cf->fleet;
	const char *s, *why;
	size_t	 len;
	char	*path;

	s = config_value_str(sec, "mode");
	if (strcmp(s, "read-write") == 0)
		fl->mode = CONFIG_FLEET_READ_WRITE;
	else if (strcmp(s, "read-only") == 0)
		fl->mode = CONFIG_FLEET_READ_ONLY;
	else
		config_error(ctx, sec, "mode", 0, "fleet: mode \"%s\" is "
		    "not read-write or read-only", config_error_esc(esc,
		    sizeof(esc), s));
	s = config_value_str(sec, "prefix");
	if (strlen(s) > CONFIG_MAX_FLEET_PREFIX)
		config_error(ctx, sec, "prefix", 0, "fleet: prefix is "
		    "longer than %d bytes", CONFIG_MAX_FLEET_PREFIX);
	else if (strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-/") != strlen(s))
		config_error(ctx, sec, "prefix", 0, "fleet: prefix \"%s\" "
		    "may hold letters, digits and :._-/ only",
		    config_error_esc(esc, sizeof(esc), s));
	else
		fl->prefix = xstrdup(s);
	fl->timeout_ms = config_fleet_ms(ctx, sec, "timeout");
	fl->connect_timeout_ms = config_fleet_ms(ctx, sec, "connect_timeout");
	fl->lease_wait_ms = config_fleet_ms(ctx, sec, "lease_wait");
	fl->lease = (int)config_value_int(ctx, sec, "fleet", "lease", 1,
	    CONFIG_MAX_FLEET_LEASE);
	fl->grace = (int)config_value_int(ctx, sec, "fleet", "grace", 0,
	    CONFIG_MAX_FLEET_GRACE);
	if (fl->lease_wait_ms > fl->lease * 1000)
		config_error(ctx, sec, "lease_wait", 0, "fleet: lease_wait "
		    "is longer than the lease (%d s)", fl->lease);
	s = config_value_str(sec, "user");
	if (*s != '\0') {
		if (!config_value_name_ok(s))
			config_error(ctx, sec, "user", 0, "fleet: user "
			    "\"%s\" is not a valid user name",
			    config_error_esc(esc, sizeof(esc), s));
		else
			fl->user = xstrdup(s);
	}
	if ((path = config_value_path(ctx, sec, "fleet", "password_file", 1)) !=
	    NULL) {
		fl->password_file = xstrdup(path);
		fl->password = (char *)config_fleet_secret(path, 1,
		    CONFIG_MAX_FLEET_SECRET, &len, &why);
		if (fl->password == NULL)
			config_error(ctx, sec, "password_file", 0, "fleet: "
			    "password_file %s: %s", config_error_esc(esc,
			    sizeof(esc), path), why);
		else if (strlen(fl->password) != len ||
		    strchr(fl->password, '\n') != NULL)
			config_error(ctx, sec, "password_file", 0, "fleet: "
			    "password_file %s holds more than one line",
			    config_error_esc(esc, sizeof(esc), path));
		free(path);
	}
	if (fl->user != NULL && fl->password == NULL)
		config_error(ctx, sec, "user", 0, "fleet: user needs a "
		    "password_file");
	fl->key_file = config_value_path(ctx, sec, "fleet", "key_file", 1);
	if (fl->key_file != NULL) {
		fl->key = config_fleet_secret(fl->key_file,
		    CONFIG_MIN_FLEET_KEY, CONFIG_MAX_FLEET_KEY, &fl->keylen,
		    &why);
		if (fl->key == NULL)
			config_error(ctx, sec, "key_file", 0, "fleet: "
			    "key_file %s: %s (%d to %d bytes)",
			    config_error_esc(esc, sizeof(esc), fl->key_file),
			    why, CONFIG_MIN_FLEET_KEY, CONFIG_MAX_FLEET_KEY);
	}
	fl->servers = config_fleet_servers(ctx, sec, "servers",
	    &fl->nservers);
	fl->sentinels = config_fleet_servers(ctx, sec, "sentinels",
	    &fl->nsentinels);
	s = config_value_str(sec, "master_name");
	if (fl->nsentinels > 0 && fl->nservers > 0)
		config_error(ctx, sec, "sentinels", 0, "fleet: servers and "
		    "sentinels exclude each other (the sentinels name the "
		    "server)");
	else if (fl->nsentinels > 0 && *s == '\0')
		config_error(ctx, sec, "sentinels", 0, "fleet: sentinels "
		    "need master_name (the name in their \"sentinel monitor\" "
		    "line)");
	else if (*s != '\0' && fl->nsentinels == 0)
		config_error(ctx, sec, "master_name", 0, "fleet: "
		    "master_name without sentinels");
	else if (strlen(s) > CONFIG_MAX_FLEET_PREFIX || strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") != strlen(s))
		config_error(ctx, sec, "master_name", 0, "fleet: "
		    "master_name \"%s\" may hold up to %d letters, digits and "
		    "._- only", config_error_esc(esc, sizeof(esc), s),
		    CONFIG_MAX_FLEET_PREFIX);
	else if (*s != '\0')
		fl->master_name = xstrdup(s);
	fl->enabled = fl->nservers > 0 || fl->master_name != NULL;
#ifndef HAVE_FLEET
	if (fl->enabled)
		config_error(ctx, sec, "servers", 0, "fleet: this "
		    "postsmtpsts was built without the fleet tier (configure "
		    "--with-fleet, libhiredis-dev)");
#endif
}
