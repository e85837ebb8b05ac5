/*
 * config.h - the validated configuration, as every other module sees it
 *
 * conf/config_load.c builds it from the file (config_load(): the only
 * reader of the file, and with conf/'s other files the only code that
 * includes confuse.h); on any error it reports "file:line: message" and
 * fails, leaving nothing half-applied.  The result is immutable: a reload
 * builds a new struct config and the old one is freed afterwards.  Times
 * are in seconds unless named _ms.
 */
#ifndef CONFIG_H_POSTSMTPSTS
#define CONFIG_H_POSTSMTPSTS

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "installdirs.h"	/* SYSCONFDIR, LOCALSTATEDIR, RUNSTATEDIR (make) */

#define CONFIG_DEFAULT_FILE	SYSCONFDIR "/postsmtpsts/postsmtpsts.conf"

/* Defaults of the options whose value is a path or a name. */
#define CONFIG_DEFAULT_USER		"_postsmtpsts"
#define CONFIG_DEFAULT_RUNTIME_DIR	RUNSTATEDIR "/postsmtpsts"
#define CONFIG_DEFAULT_PID_FILE	\
	CONFIG_DEFAULT_RUNTIME_DIR "/postsmtpsts.pid"
#define CONFIG_DEFAULT_CACHE_PATH	LOCALSTATEDIR "/lib/postsmtpsts/cache"
/* cache.history_file by default: this name in the cache's parent
 * directory (LOCALSTATEDIR/lib/postsmtpsts/history.log) */
#define CONFIG_HISTORY_NAME		"history.log"
#define CONFIG_DEFAULT_PRELOAD_PATH	LOCALSTATEDIR "/lib/postsmtpsts/preload"
#define CONFIG_DEFAULT_TRUST_ANCHOR	"/usr/share/dns/root.key"
#define CONFIG_DEFAULT_LISTEN		"inet:127.0.0.1:8461"
#define CONFIG_DEFAULT_MAP		"postfix"	/* Postfix < 3.10 */
#define CONFIG_DEFAULT_MAP_TLSRPT	"postfix310"	/* >= 3.10: tlsrpt */
#define CONFIG_DEFAULT_TLSRPT_DIR	LOCALSTATEDIR "/lib/postsmtpsts/tlsrpt"
/* tlsrpt: where Postfix's smtp_tlsrpt_socket_name = run/tlsrpt/tlsrpt.sock
 * (relative to its queue directory, so chrooted or not) finds the socket */
#define CONFIG_DEFAULT_TLSRPT_SOCKET	"/var/spool/postfix/run/tlsrpt/tlsrpt.sock"
/* tlsrpt: the journal's _COMM of the Postfix programs whose lines it reads
 * (smtp and lmtp: sessions and deliveries, tlsproxy: handshakes with
 * connection reuse, cleanup: message-id lines, qmgr: queue lines) */
#define CONFIG_DEFAULT_TLSRPT_COMMANDS \
	"{\"smtp\", \"lmtp\", \"tlsproxy\", \"cleanup\", \"qmgr\"}"
#define CONFIG_DEFAULT_SENDMAIL		"/usr/sbin/sendmail"

/*
 * Limits config_load() enforces (inclusive).  Times in seconds.
 */
#define CONFIG_MAX_FILE_SIZE	(16 * 1024 * 1024)	/* bytes */
#define CONFIG_MAX_WORKERS	256
#define CONFIG_MAX_RESOLVERS	16	/* resolver shards (ipc_shard) */
#define CONFIG_AUTO_RESOLVERS	8	/* resolvers = 0: cores, at most */
#define CONFIG_MAX_CONNECTIONS	1000000
#define CONFIG_MAX_INFLIGHT	4096	/* pending requests per connection */
#define CONFIG_MAX_RESOLUTIONS	4096	/* discoveries at once (resolver) */
#define CONFIG_MIN_POLICY_SIZE	256	/* bytes: a minimal policy fits */
#define CONFIG_MAX_POLICY_SIZE	65536	/* RFC 8461 §3.3: 64 KiB */
#define CONFIG_MAX_IDLE_TIMEOUT	86400
#define CONFIG_MIN_REQUEST_TIMEOUT_MS 1
#define CONFIG_MAX_REQUEST_TIMEOUT_MS 60000	/* well below Postfix's 100s */
#define CONFIG_MAX_VERBOSE	9
#define CONFIG_MAX_HTTPS_TIMEOUT 300
#define CONFIG_MIN_CACHE_SIZE	(1LL << 20)		/* 1 MiB */
#define CONFIG_MAX_CACHE_SIZE	(1LL << 40)		/* 1 TiB */
#define CONFIG_MAX_NEGATIVE_TTL	86400
#define CONFIG_MAX_REFRESH_BEFORE 31557600	/* RFC 8461 §3.2 max_age */
#define CONFIG_MAX_REFRESH_INTERVAL 3600	/* cache refresh tick */
#define CONFIG_MAX_MAP_NAME	64
#define CONFIG_MAX_MATCH	64	/* match tokens per pinned domain */
#define CONFIG_MAX_ANSWER	4096	/* composed pinned answer, bytes */
#define CONFIG_MAX_PATH		1023	/* any configured path, bytes */
#define CONFIG_MAX_RUNTIME_DIR	75	/* leaves room in sun_path (108) */
#define CONFIG_MAX_SUN_PATH	108	/* sun_path, the NUL included */
#define CONFIG_MAX_NAME		32	/* user and group names */
#define CONFIG_MAX_TLSRPT_TEXT	256	/* tlsrpt: organization, contact */
#define CONFIG_MIN_TLSRPT_REPORT 4096	/* tlsrpt: max_report_size, bytes */
#define CONFIG_MAX_TLSRPT_REPORT (10 * 1024 * 1024) /* RFC 8460 §5.3: a
					   "commonly observed" receiver limit */
#define CONFIG_MAX_TLSRPT_DELAY	86400	/* tlsrpt: send_delay, seconds */
#define CONFIG_MAX_TLSRPT_RETRY	(7 * 86400)	/* tlsrpt: retry_for */
#define CONFIG_MAX_TLSRPT_RATE	100000	/* tlsrpt: reports/destination/hour */
#define CONFIG_MAX_TLSRPT_KEEP	366	/* tlsrpt: keep_days */
#define CONFIG_MAX_TLSRPT_TIMEOUT 600	/* tlsrpt: one delivery, seconds */
#define CONFIG_MAX_TLSRPT_ALLOW	64	/* tlsrpt: report_allow_addresses */
#define CONFIG_MAX_ERRORS	50	/* reported per config_load() */
#define CONFIG_MAX_FLEET_SERVERS 8	/* fleet: servers tried in turn */
#define CONFIG_MAX_FLEET_PREFIX	64	/* fleet: key prefix, bytes */
#define CONFIG_MIN_FLEET_KEY	16	/* fleet: HMAC key bytes */
#define CONFIG_MAX_FLEET_KEY	1024
#define CONFIG_MAX_FLEET_SECRET	512	/* fleet: password bytes */
#define CONFIG_MAX_FLEET_TIMEOUT_MS 10000	/* fleet: one round trip */
#define CONFIG_MAX_FLEET_LEASE	600	/* fleet: discovery lease, s */
#define CONFIG_MAX_FLEET_GRACE	31557600	/* fleet: STS key grace, s */

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

/* Option dane_some: the answer when only some MX hosts have DANE. */
enum config_dane_some {
	CONFIG_DANE_SOME_DANE = 0,	/* "dane" (default) */
	CONFIG_DANE_SOME_DANE_ONLY,	/* "dane-only" */
	CONFIG_DANE_SOME_IGNORE,	/* as if no DANE: MTA-STS decides */
};

/* Option dane_lookup_failure. */
enum config_dane_failure {
	CONFIG_DANE_FAILURE_TEMP = 0,	/* "temp" (default): defer */
	CONFIG_DANE_FAILURE_IGNORE,	/* as if no DANE: MTA-STS decides */
};

/* A map name Postfix may use in requests ("socketmap:...:NAME"). */
struct config_map {
	char		*name;
	enum config_answer testing_answer;	/* NOTFOUND (default) or MAY */
	int		 tlsrpt;	/* emit Postfix >= 3.10 TLSRPT attrs */
	int		 dane;		/* look at DANE (default 1) */
	enum config_dane_some dane_some;
	enum config_dane_failure dane_lookup_failure;
	/* the floor of every authenticated answer (secure, dane-only,
	 * verify, fingerprint), policy/tlsattr.h's grammar; NULL: none */
	char		*tls_protocols;
	char		*tls_ciphers;
	char		*tls_exclude;
};

/*
 * An operator's pinned policy: answered without any network, first.  With
 * "until" it is a timed exception: from end on it no longer applies
 * (policy/pins.c, pins_decide_input), as if the section were absent.
 */
struct config_domain {
	char		*domain;	/* normalized (domain_normalize) */
	char		*level;		/* Postfix level: none may encrypt ... */
	char		*match;		/* "a:b:c" or NULL */
	char		*servername;	/* or NULL */
	char		*protocols;	/* policy/tlsattr.h; or NULL: the */
	char		*ciphers;	/* map's floor, if any, at an */
	char		*exclude;	/* authenticated level */
	unsigned int	 floor_attrs;	/* TLSATTR_BIT()s the map's floor
					   adds to answer: those it lacks at
					   an authenticated level, else 0 */
	char		*answer;	/* the composed reply data, e.g.
					   "secure match=a:b servername=..." */
	char		*until;		/* as written ("2026-12-31" or
					   "2026-12-31T12:00:00Z"), or NULL */
	int64_t		 end;		/* Unix time the pin lapses at (the
					   day after a date); 0: never */
	int		 line;		/* of the section's '{' (messages) */
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
	size_t		 max_policy_size;	/* body bytes, <= 64 KiB */
};

struct config_cache {
	char		*path;			/* LMDB environment directory */
	size_t		 max_size;		/* map size, bytes */
	int		 negative_ttl;
	int		 refresh_before;	/* 0 = half of max_age */
	int		 refresh_interval;	/* seconds between refresh
						   ticks (resolver) */
	int		 refresh_concurrency;	/* resolved: refreshes at once,
						   <= max_resolutions */
	int		 enabled;
	char		*history_file;		/* the policy events' file
						   (policy/history.h), NULL:
						   none */
};

enum config_fleet_mode {
	CONFIG_FLEET_READ_WRITE = 0,	/* "read-write" (default) */
	CONFIG_FLEET_READ_ONLY,		/* "read-only": edge hosts */
};

/* One Redis server of the fleet tier: a unix socket or host:port. */
struct config_fleet_server {
	char		*spec;		/* as written */
	char		*path;		/* unix socket path, or NULL */
	char		*host;		/* TCP address (no []), or NULL */
	int		 port;
};

/*
 * The fleet tier (fleet.h): a Redis/Valkey shared behind the local cache.
 * Disabled (enabled 0) unless servers are configured.  The secrets are
 * read from their files by config_load(), so a file the daemon cannot
 * read is a configuration error with its line.
 */
struct config_fleet {
	int		 enabled;
	struct config_fleet_server *servers;
	size_t		 nservers;
	struct config_fleet_server *sentinels;	/* instead of servers: ask
						   them for the master */
	size_t		 nsentinels;
	char		*master_name;		/* the sentinels' name */
	enum config_fleet_mode mode;
	char		*prefix;		/* key prefix, may be "" */
	int		 timeout_ms;		/* one round trip */
	int		 connect_timeout_ms;
	int		 lease;			/* discovery lease, seconds */
	int		 lease_wait_ms;		/* wait for another host's
						   discovery, then our own */
	int		 grace;			/* STS keys outlive max_age */
	char		*user;			/* AUTH user or NULL */
	char		*password;		/* AUTH password or NULL */
	char		*password_file;		/* for messages and dumps */
	unsigned char	*key;			/* HMAC key or NULL */
	size_t		 keylen;
	char		*key_file;		/* for messages */
};

/*
 * The TLSRPT reporter, postsmtpsts-tlsrpt(8) (RFC 8460): off unless
 * enable.  The daemon does not read this section; the reporter needs the
 * rest of the file too (the map, the cache, dns, https).  policy_types is
 * a set of bits 1 << (RFC 8460 policy type: 0 no-policy-found, 1 sts,
 * 2 tlsa, as tlsrpt/result.h numbers them).
 */
#define CONFIG_MAX_TLSRPT_TRUSTED 16	/* tlsrpt: trusted_* list entries */
#define CONFIG_MAX_TLSRPT_HOST_ID 64	/* tlsrpt.host_id: [A-Za-z0-9._-] */
#define CONFIG_TLSRPT_NONE	0x1	/* no-policy-found */
#define CONFIG_TLSRPT_STS	0x2	/* sts */
#define CONFIG_TLSRPT_TLSA	0x4	/* tlsa */
/*
 * tlsrpt.input: where the reporter counts sessions.  Never both for the
 * same deliveries: with "socket" the log (if set) is read only for the
 * reporter's own mails' Message-ID lines, never for a session.
 */
enum config_tlsrpt_input {
	CONFIG_TLSRPT_INPUT_LOG,	/* Postfix's log (file or journal) */
	CONFIG_TLSRPT_INPUT_SOCKET,	/* Postfix's libtlsrpt datagrams */
};

struct addrclass_net;

struct config_tlsrpt {
	int		 enable;
	char		*organization_name;	/* organization-name */
	char		*contact_info;		/* contact-info */
	char		*submitter;		/* the reporting domain:
						   TLS-Report-Submitter */
	char		*sender;		/* local@domain: envelope
						   sender and From: */
	char		*log;			/* "journal" or a file path;
						   NULL: none (input socket) */
	enum config_tlsrpt_input input;		/* where sessions come from */
	char		*socket;		/* input socket: its path */
	char		*socket_group;		/* its group */
	char	       **trusted_users;		/* datagram senders and journal
						   _UID: names or ids */
	size_t		 ntrusted_users;
	char	       **trusted_commands;	/* journal _COMM; none: any */
	size_t		 ntrusted_commands;
	char	       **trusted_units;		/* journal _SYSTEMD_UNIT
						   patterns; none: any */
	size_t		 ntrusted_units;
	char		*state_dir;		/* its LMDB environment */
	char		*map;			/* the map Postfix asks */
	unsigned int	 policy_types;		/* CONFIG_TLSRPT_* bits */
	char		*sendmail;		/* Postfix's sendmail(1) */
	int		 send_delay;		/* after the UTC day ends */
	int		 retry_for;		/* give a report up after */
	size_t		 max_report_size;	/* gzip'd bytes */
	int		 rate_limit;		/* reports per destination and
						   hour */
	char		*sending_mta_ip;	/* sending-mta-ip, or NULL */
	int		 keep_days;		/* counts kept after sending */
	char		*host_id;		/* this host in the fleet's
						   counts (fleetagg.h): the
						   host name unless set */
	int		 fleet_deadline;	/* a fleet report waits for
						   Redis this long after the
						   day's close, then each host
						   sends its own part */
	char		*metrics_file;		/* Prometheus text, or NULL */
	int		 timeout;		/* one delivery, seconds */
	struct addrclass_net *report_allow_addresses;	/* non-global
						   networks a report POST
						   may reach (addrclass.h) */
	size_t		 nreport_allow_addresses;
};

/*
 * Preload lists (issue 38; doc/DESIGN.md "Preload lists"): EFF-format
 * lists imported into a store of their own (lib/preload_store.h) by
 * postsmtpsts-cache preload and by the daemon on a schedule and at SIGHUP.
 */
#define CONFIG_MAX_PRELOAD_LISTS	16
#define CONFIG_MAX_PRELOAD_NAME		32	/* = PRELOAD_STORE_MAX_NAME */
#define CONFIG_MAX_PRELOAD_URL		512
/* issue 38: "fetch updates at least once every 48 hours" */
#define CONFIG_PRELOAD_MAX_REFRESH	(48 * 3600)
/* seconds one https:// list or signature may take, DNS included */
#define CONFIG_PRELOAD_DEFAULT_TIMEOUT	120
#define CONFIG_PRELOAD_MAX_TIMEOUT	3600

struct config_preload_list {
	char		*name;		/* the section title */
	char		*source;	/* an https:// URL or an absolute
					   path */
	char		*signature;	/* its detached signature (URL or
					   path): source + ".asc" unless set */
	char		*keyring;	/* NULL: preload.keyring */
	char		*fingerprint;	/* NULL: any key of the keyring */
	int		 trusted;	/* a local file read unsigned */
	int		 line;		/* of the section's '{' (messages) */
};

struct config_preload {
	char		*path;			/* the store (a directory) */
	char		*keyring;		/* gpgv keyring, NULL: none */
	int		 refresh_interval;	/* seconds */
	int		 timeout;		/* seconds a URL's fetch */
	struct config_preload_list *lists;
	size_t		 nlists;
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
	int		 resolvers;		/* resolved: 1..CONFIG_MAX_RESOLVERS */
	int		 max_connections;	/* per worker */
	int		 max_inflight;		/* pending requests per conn */
	int		 max_resolutions;	/* discoveries at once, per resolver */
	int		 idle_timeout;
	int		 request_timeout_ms;	/* per-request deadline */
	enum config_answer deadline_answer;	/* NOTFOUND or TEMP */
	int		 syslog_facility;	/* LOG_MAIL etc. */
	int		 dane;			/* some map has dane = yes:
						   the resolver looks DANE up */
	int		 verbose;
	struct config_listen *metrics;		/* NULL: no metrics listener */

	struct config_dns dns;
	struct config_https https;
	struct config_cache cache;
	struct config_fleet fleet;
	struct config_tlsrpt tlsrpt;
	struct config_preload preload;
};

/* config_dane_some_name - "dane", "dane-only" or "ignore" */
const char *config_dane_some_name(enum config_dane_some d);

/* config_answer_name - "notfound", "temp" or "may" */
const char *config_answer_name(enum config_answer a);

/* config_facility_name - "mail", "daemon" or "local0".."local7" for a
 * syslog facility (LOG_MAIL ...), NULL for any other */
const char *config_facility_name(int facility);

/* config_facility_value - the syslog facility of such a name (any case),
 * or -1 */
int	config_facility_value(const char *name);

/* config_fleet_list - the addresses the fleet client tries in turn: the
 * sentinels if any, else the servers; *n their number, *what (may be NULL)
 * "sentinels" or "servers" */
const struct config_fleet_server *config_fleet_list(
	    const struct config_fleet *fl, size_t *n, const char **what);

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
