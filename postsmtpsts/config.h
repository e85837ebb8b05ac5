/*
 * config.h - the validated configuration, as every other module sees it
 *
 * config.c is the only file that includes confuse.h.  config_load() parses
 * and validates the whole file; on any error it reports "file:line: message"
 * and fails, leaving nothing half-applied.  The result is immutable: a
 * reload builds a new struct config and the old one is freed afterwards.
 * Times are in seconds unless named _ms.
 */
#ifndef CONFIG_H_POSTSMTPSTS
#define CONFIG_H_POSTSMTPSTS

#include <stddef.h>
#include <sys/types.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR	"/etc"
#endif
#ifndef LOCALSTATEDIR
#define LOCALSTATEDIR	"/var"
#endif
#ifndef RUNSTATEDIR
#define RUNSTATEDIR	"/run"
#endif

#define CONFIG_DEFAULT_FILE	SYSCONFDIR "/postsmtpsts/postsmtpsts.conf"

enum config_listen_kind {
	CONFIG_LISTEN_UNIX,
	CONFIG_LISTEN_INET,
};

struct config_listen {
	enum config_listen_kind kind;
	char		*spec;		/* as written: "unix:/p" / "inet:h:p" */
	char		*path;		/* unix: socket path */
	char		*host;		/* inet: address ("*" = any), no [] */
	char		*port;		/* inet: port (digits) */
	mode_t		 mode;		/* unix: socket mode (default 0666) */
	char		*owner;		/* unix: owner user name or NULL */
	char		*group;		/* unix: group name or NULL */
};

enum config_answer {
	CONFIG_ANSWER_NOTFOUND,
	CONFIG_ANSWER_TEMP,
	CONFIG_ANSWER_MAY,
};

/* A map name Postfix may use in requests ("socketmap:...:NAME"). */
struct config_map {
	char		*name;
	enum config_answer testing_answer;	/* NOTFOUND (default) or MAY */
	int		 tlsrpt;	/* emit Postfix >= 3.10 TLSRPT attrs */
};

/* An operator's pinned policy: answered without any network, first. */
struct config_domain {
	char		*domain;	/* normalized (domain_normalize) */
	char		*level;		/* Postfix level: none may encrypt ... */
	char		*match;		/* "a:b:c" or NULL */
	char		*servername;	/* or NULL */
	char		*answer;	/* the composed reply data, e.g.
					   "secure match=a:b servername=..." */
};

struct config_dns {
	char		*trust_anchor_file;	/* NULL = none (insecure!) */
	char		*root_hints;		/* NULL = built-in */
	char	       **forwarders;		/* addresses, NULL-terminated */
	int		 use_resolv_conf;	/* forward per /etc/resolv.conf */
	char		*unbound_config;	/* extra unbound.conf or NULL */
	char	       **unbound_options;	/* "name: value", NULL-term. */
};

struct config_https {
	char		*ca_file;		/* NULL = system store */
	char		*proxy;			/* NULL = none */
	int		 connect_timeout;
	int		 timeout;
};

struct config_cache {
	char		*path;			/* LMDB environment directory */
	size_t		 max_size;		/* map size, bytes */
	int		 negative_ttl;
	int		 refresh_before;	/* 0 = half of max_age */
	int		 enabled;
};

struct config {
	char		*file;			/* the file it came from */
	struct config_listen *listen;
	size_t		 nlisten;
	struct config_map *maps;
	size_t		 nmaps;
	struct config_domain *domains;		/* sorted by domain */
	size_t		 ndomains;

	char		*user;			/* NULL: do not change user */
	char		*group;			/* NULL: user's primary group */
	char		*pid_file;		/* NULL: no pid file */
	char		*runtime_dir;		/* internal sockets */
	int		 workers;		/* resolved: >= 1 */
	int		 max_connections;	/* per worker */
	int		 idle_timeout;
	int		 request_timeout_ms;	/* per-request deadline */
	enum config_answer deadline_answer;	/* NOTFOUND or TEMP */
	int		 syslog_facility;	/* LOG_MAIL etc. */
	int		 verbose;

	struct config_dns dns;
	struct config_https https;
	struct config_cache cache;
};

/*
 * config_load - read and validate path
 *
 * Returns a new config, or NULL after writing "file:line: message" lines to
 * errbuf (size errsz, always NUL-terminated) for the caller to print.
 */
struct config *config_load(const char *path, char *errbuf, size_t errsz);

/* config_free - release everything; NULL is a no-op */
void	config_free(struct config *cf);

/* config_find_map - the map named name[0..len), or NULL */
const struct config_map *config_find_map(const struct config *cf,
	    const char *name, size_t len);

/* config_find_domain - the pinned policy for a normalized domain, or NULL
 * (binary search: O(log n) for thousands of pins) */
const struct config_domain *config_find_domain(const struct config *cf,
	    const char *domain);

#endif
