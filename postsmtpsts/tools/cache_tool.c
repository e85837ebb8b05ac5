/*
 * cache_tool.c - postsmtpsts-cache(8): inspect and maintain the policy cache
 *
 * postsmtpsts-cache [-v] [-c config] [-d cachedir] command | -h | -V
 *   (the directory: -d, else cache.path of -c config or of the default
 *   configuration file if it exists, else the built-in default)
 *   list               one line per entry: domain kind mode id expires_at
 *                      next_refresh last_error (times in ISO 8601, UTC)
 *   show DOMAIN        every field of one entry
 *   purge DOMAIN       remove one entry (the next lookup rediscovers it)
 *   purge-all          remove every entry
 *   export --preload [--sign KEYID] [FILE]
 *                      the fresh enforce policies as an EFF-format preload
 *                      list, optionally signed by gpg (cache_preload.h)
 *   export [hash|texthash]
 *                      Postfix smtp_tls_policy_maps lines for the fresh
 *                      MTA-STS enforce entries: a static fallback table
 *   warm [-j jobs] [FILE|-]
 *                      discover the listed domains through the running
 *                      daemon's resolver (cache_warm.h); -j is read with
 *                      the other options, before or after "warm"
 *   stats              entry counts, map size and use, then the daemon's
 *                      counters (stats.h: <runtime_dir>/stats of the
 *                      configuration) in the Prometheus text format, the
 *                      same text as its metrics listener
 *   fleet-stats | push | pull
 *                      the fleet tier of the configuration (cache_fleet.h)
 *   import [-n] [--password-file FILE] sqlite|redis|tlspol FILE|URL
 *                      another policy server's cache, with its trust on
 *                      first use (cache_import.h); -n: check, write nothing;
 *                      --password-file: Redis's password (or REDISCLI_AUTH)
 *   history DOMAIN [json]
 *                      the domain's policy events from cache.history_file
 *                      and its rotated copies, oldest first
 *                      (cache_history.h); json: the file's JSON lines
 *   preload [-n] [-k keyring] [NAME|FILE]
 *                      EFF-format preload lists, signature checked by gpgv,
 *                      into the preload store (cache_preload.h)
 *   preloaded [DOMAIN] the lists held, or one domain's preloaded entry
 *
 * Safe while the daemon runs: list/show/export/stats read one LMDB snapshot
 * and never block the resolver's writes; purge is an ordinary write
 * transaction, serialized with the resolver's by LMDB's writer lock.  Run it
 * as the daemon's user: readers need write access to lock.mdb.
 *
 * Export: RFC 8461 §4.1 MX patterns become Postfix "secure" match lists;
 * "*.example.net" (exactly one extra label) is written ".example.net", which
 * Postfix matches at any depth - the usual, slightly looser, mapping.  The
 * cache's record decoder only admits patterns of [A-Za-z0-9_.-] with an
 * optional leading "*.", so no entry can inject ':' or blanks into a line.
 *
 * Exit status: 0 done, 1 error or domain not in the cache, 2 usage.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/cache.h"
#include "policy/dane.h"
#include "policy/facts.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/log.h"
#include "daemon/stats.h"
#include "tools/cache_fleet.h"
#include "tools/cache_history.h"
#include "tools/cache_import.h"
#include "tools/cache_preload.h"
#include "tools/cache_warm.h"
#include "tools/tool.h"

#define CACHE_TOOL_DEFAULT_DIR	LOCALSTATEDIR "/lib/postsmtpsts/cache"
#define CACHE_TOOL_TIME_LEN	32	/* "2024-01-02T03:04:05Z" or a number */
#define CACHE_TOOL_ERR_LEN	1024

/* Counters for stats. */
struct cache_tool_count {
	int64_t		 now;
	size_t		 kind[CACHE_KIND_DANE + 1];
	size_t		 mode[CACHE_STS_ENFORCE + 1];
	size_t		 fresh, expired, refresh_due, failing, undecodable;
};

/* State of an export walk. */
struct cache_tool_export {
	int64_t		 now;
	size_t		 n;
};

/* Long options of its own (import --password-file, export --preload). */
enum {
	CACHE_TOOL_OPT_PASSWORD_FILE = TOOL_OPT_OWN,
	CACHE_OPT_PRELOAD,
	CACHE_OPT_SIGN,
};

static const struct option cache_tool_longopts[] = {
	{ "password-file", required_argument, NULL,
	    CACHE_TOOL_OPT_PASSWORD_FILE },
	{ "preload", no_argument, NULL, CACHE_OPT_PRELOAD },
	{ "sign", required_argument, NULL, CACHE_OPT_SIGN },
	{ NULL, 0, NULL, 0 },
};

static const struct tool cache_tool = {
	"postsmtpsts-cache",
	"usage: postsmtpsts-cache [-v] [-c config] [-d cachedir] command\n"
	"       postsmtpsts-cache -h | --help | -V | --version\n"
	"commands: list | show DOMAIN | purge DOMAIN | purge-all |\n"
	"          export [hash|texthash] |\n"
	"          export --preload [--sign KEYID] [FILE] | stats |\n"
	"          fleet-stats | push | pull |\n"
	"          warm [-j jobs] [FILE|-] |\n"
	"          import [-n] [--password-file FILE] sqlite|redis|tlspol "
	"FILE|URL |\n"
	"          history DOMAIN [json] |\n"
	"          preload [-n] [-k keyring] [NAME|FILE] |\n"
	"          preloaded [DOMAIN]\n",
	"d:j:k:n",
	cache_tool_longopts,
	0,
};

/* cache_tool_usage - print the synopsis on stderr and exit 2 */
static void __attribute__((noreturn))
cache_tool_usage(void)
{
	tool_usage(&cache_tool);
}

/* cache_tool_time - t as ISO 8601 UTC into buf, "-" for 0 */
static const char *
cache_tool_time(char *buf, size_t bufsz, int64_t t)
{
	struct tm tm;
	time_t	 tt = (time_t)t;

	if (t == 0)
		snprintf(buf, bufsz, "-");
	else if ((int64_t)tt != t || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, bufsz, "@%" PRId64, t);
	return (buf);
}

/*
 * cache_tool_domain - the cache key for a command-line domain: lower-cased,
 * one trailing dot dropped (domain_normalize() without IDNA: give the
 * A-label).  0, or -1 after a message.
 */
static int
cache_tool_domain(const char *arg, char *out, size_t outsz)
{
	size_t	 len, i;

	len = strlen(arg);
	if (len > 0 && arg[len - 1] == '.')
		len--;
	if (len >= outsz) {
		log_warnx("domain name of %zu bytes: longer than %d", len,
		    CACHE_KEY_MAX);
		return (-1);
	}
	for (i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)arg[i]);
	out[len] = '\0';
	if (!cache_key_valid(out, len)) {
		log_warnx("not a domain name (give an IDN as its xn-- "
		    "A-label): %s", arg);
		return (-1);
	}
	return (0);
}

/* cache_tool_list_cb - one line per entry */
static int
cache_tool_list_cb(const char *domain, size_t len,
    const struct cache_record *rec, void *arg)
{
	char	 exp[CACHE_TOOL_TIME_LEN], ref[CACHE_TOOL_TIME_LEN];

	(void)len;
	(void)arg;
	if (rec == NULL) {
		printf("%s undecodable - - - - -\n", domain);
		return (0);
	}
	printf("%s %s %s %s %s %s %u\n", domain, cache_kind_name(rec->kind),
	    rec->kind == CACHE_KIND_STS ?
	    cache_sts_mode_name(rec->sts_mode) : "-",
	    rec->id[0] != '\0' ? rec->id : "-",
	    cache_tool_time(exp, sizeof(exp), rec->expires_at),
	    cache_tool_time(ref, sizeof(ref), rec->next_refresh),
	    rec->last_error);
	return (0);
}

/* cache_tool_show - print every field of rec */
static void
cache_tool_show(const char *domain, const struct cache_record *rec,
    int64_t now)
{
	char	 t[CACHE_TOOL_TIME_LEN];
	const char *mx;
	size_t	 pos;

	printf("domain: %s\n", domain);
	printf("kind: %s\n", cache_kind_name(rec->kind));
	printf("sts_mode: %s\n", cache_sts_mode_name(rec->sts_mode));
	printf("dnssec: %s\n", cache_dnssec_name(rec->dnssec));
	printf("dane: %s\n", rec->kind == CACHE_KIND_DANE ?
	    dane_state_name((enum dane_state)rec->dane) : "-");
	printf("id: %s\n", rec->id);
	printf("max_age: %" PRIu32 "\n", rec->max_age);
	printf("fetched_at: %s\n",
	    cache_tool_time(t, sizeof(t), rec->fetched_at));
	printf("expires_at: %s (%s)\n",
	    cache_tool_time(t, sizeof(t), rec->expires_at),
	    cache_record_fresh(rec, now) ? "fresh" : "expired");
	printf("next_refresh: %s (%s)\n",
	    cache_tool_time(t, sizeof(t), rec->next_refresh),
	    cache_record_needs_refresh(rec, now) ? "due" : "not due");
	printf("last_error: %u\n", rec->last_error);
	printf("last_error_at: %s\n",
	    cache_tool_time(t, sizeof(t), rec->last_error_at));
	if (rec->kind == CACHE_KIND_STS) {
		printf("txt_ttl: %" PRIu32 " (re-check every %" PRIu32
		    " s)\n", rec->txt_ttl, facts_txt_ttl((int)(rec->txt_ttl >
		    FACTS_TXT_TTL_MAX ? FACTS_TXT_TTL_MAX : rec->txt_ttl)));
		printf("txt_checked_at: %s\n",
		    cache_tool_time(t, sizeof(t), rec->txt_checked_at));
		if (rec->txt_checked_at == 0)
			printf("txt_next_check: - (never checked: due at the "
			    "next lookup)\n");
		else
			printf("txt_next_check: %s (%s)\n", cache_tool_time(t,
			    sizeof(t), facts_txt_next(rec)),
			    facts_txt_due(rec, now) ?
			    "due: at the next lookup" : "not due");
	}
	printf("nmx: %u\n", rec->nmx);
	for (pos = 0; (mx = cache_record_mx_next(rec, &pos, NULL)) != NULL; )
		printf("mx: %s\n", mx);
}

/* cache_tool_export_cb - a Postfix policy line for a fresh enforce entry */
static int
cache_tool_export_cb(const char *domain, size_t len,
    const struct cache_record *rec, void *arg)
{
	struct cache_tool_export *ex = arg;
	const char *mx;
	size_t	 pos;

	(void)len;
	if (rec == NULL || rec->kind != CACHE_KIND_STS ||
	    rec->sts_mode != CACHE_STS_ENFORCE || rec->nmx == 0 ||
	    !cache_record_fresh(rec, ex->now))
		return (0);
	printf("%s\tsecure match=", domain);
	for (pos = 0; (mx = cache_record_mx_next(rec, &pos, NULL)) != NULL; ) {
		printf("%s", mx != rec->mx ? ":" : "");
		/* RFC 8461 "*.x" -> Postfix ".x" (subdomains of x) */
		if (mx[0] == '*')
			mx++;
		printf("%s", mx);
	}
	printf(" servername=hostname\n");
	ex->n++;
	return (0);
}

/* cache_tool_count_cb - add an entry to the stats counters */
static int
cache_tool_count_cb(const char *domain, size_t len,
    const struct cache_record *rec, void *arg)
{
	struct cache_tool_count *n = arg;

	(void)domain;
	(void)len;
	if (rec == NULL) {
		n->undecodable++;
		return (0);
	}
	n->kind[rec->kind]++;
	if (rec->kind == CACHE_KIND_STS)
		n->mode[rec->sts_mode]++;
	if (cache_record_fresh(rec, n->now))
		n->fresh++;
	else
		n->expired++;
	if (cache_record_needs_refresh(rec, n->now))
		n->refresh_due++;
	if (rec->last_error != 0)
		n->failing++;
	return (0);
}

/* cache_tool_stats - print the environment's figures and entry counts */
static int
cache_tool_stats(struct cache *c, const char *dir)
{
	struct cache_stats st;
	struct cache_tool_count n;
	struct stat	 sb;
	char		 data[CACHE_TOOL_ERR_LEN];

	memset(&n, 0, sizeof(n));
	n.now = clock_wall();
	if (cache_stats(c, &st) != CACHE_OK ||
	    cache_iterate(c, cache_tool_count_cb, &n) != CACHE_OK)
		return (1);
	printf("path: %s\n", dir);
	printf("entries: %zu\n", st.entries);
	printf("map_size: %zu\n", st.map_size);
	printf("page_size: %zu\n", st.page_size);
	printf("pages_used: %zu of %zu (%.1f%%)\n", st.pages_used,
	    st.pages_max, st.pages_max ?
	    100.0 * (double)st.pages_used / (double)st.pages_max : 0.0);
	printf("bytes_used: %zu\n", st.pages_used * st.page_size);
	if (snprintf(data, sizeof(data), "%s/data.mdb", dir) <
	    (int)sizeof(data) && stat(data, &sb) == 0)
		printf("file_size: %jd\n", (intmax_t)sb.st_size);
	printf("btree_depth: %u\n", st.depth);
	printf("readers: %u of %u\n", st.readers_used, st.readers_max);
	printf("last_txnid: %zu\n", st.last_txnid);
	printf("sts: %zu (enforce %zu, testing %zu, none %zu)\n",
	    n.kind[CACHE_KIND_STS], n.mode[CACHE_STS_ENFORCE],
	    n.mode[CACHE_STS_TESTING], n.mode[CACHE_STS_NONE]);
	printf("dane: %zu\n", n.kind[CACHE_KIND_DANE]);
	printf("negative: %zu\n", n.kind[CACHE_KIND_NONE]);
	printf("fresh: %zu\n", n.fresh);
	printf("expired: %zu\n", n.expired);
	printf("refresh_due: %zu\n", n.refresh_due);
	printf("last_refresh_failed: %zu\n", n.failing);
	printf("undecodable: %zu\n", n.undecodable);
	return (0);
}

/* cache_tool_counters - the running daemon's counters, after "counters:
 * PATH"; none (a warning) if the daemon has no stats file */
static void
cache_tool_counters(const struct config *cf)
{
	struct stats_snapshot s;
	struct buf	 out;
	char		 path[CONFIG_MAX_PATH + 16], err[CACHE_TOOL_ERR_LEN];

	if (snprintf(path, sizeof(path), "%s/%s", cf != NULL &&
	    cf->runtime_dir != NULL ? cf->runtime_dir :
	    CONFIG_DEFAULT_RUNTIME_DIR, STATS_FILE) >= (int)sizeof(path))
		return;
	if (stats_read(path, &s, err, sizeof(err)) == -1) {
		log_warnx("no daemon counters: %s", err);
		return;
	}
	buf_init(&out, STATS_MAX_OUTPUT);
	if (stats_render(&s, &out) == 0) {
		printf("counters: %s\n", path);
		fwrite(out.data, 1, out.len, stdout);
	}
	buf_free(&out);
}

/* cache_tool_export - print the export header and lines */
static int
cache_tool_export(struct cache *c, const char *type)
{
	struct cache_tool_export ex;
	char	 t[CACHE_TOOL_TIME_LEN];

	memset(&ex, 0, sizeof(ex));
	ex.now = clock_wall();
	printf("# postsmtpsts-cache export, %s: the MTA-STS enforce policies\n"
	    "# fresh at that time.  Each is valid only until its cache entry "
	    "expires:\n# regenerate this file regularly.\n",
	    cache_tool_time(t, sizeof(t), ex.now));
	if (strcmp(type, "texthash") == 0)
		printf("# Postfix: smtp_tls_policy_maps = texthash:/path/to/"
		    "this/file\n");
	else
		printf("# Postfix: postmap hash:/path/to/this/file, then\n"
		    "#   smtp_tls_policy_maps = hash:/path/to/this/file\n");
	if (cache_iterate(c, cache_tool_export_cb, &ex) != CACHE_OK)
		return (1);
	printf("# %zu policies\n", ex.n);
	return (0);
}

/* cache_tool_open - open dir; a writer only if a cache is already there,
 * so a mistyped -d never creates one */
static struct cache *
cache_tool_open(const char *dir, int readonly)
{
	struct cache	*c;
	struct stat	 sb;
	char		 err[CACHE_TOOL_ERR_LEN];

	if (!readonly) {
		if (snprintf(err, sizeof(err), "%s/data.mdb", dir) >=
		    (int)sizeof(err)) {
			log_warnx("cache directory name too long: %s", dir);
			return (NULL);
		}
		if (stat(err, &sb) == -1) {
			log_warn("no cache in %s", dir);
			return (NULL);
		}
	}
	if ((c = cache_open(dir, 0, readonly, err, sizeof(err))) == NULL)
		log_warnx("%s", err);
	return (c);
}

/*
 * cache_tool_history - the history command: the file of the configuration
 * (cache.history_file), else history.log beside the cache directory (-d
 * or the default), as the daemon's default puts it
 */
static int
cache_tool_history(struct config *cf, const char *dir, const char *domain,
    int json)
{
	char	 path[4096];
	const char *slash;
	int	 rv;

	if (cf != NULL && cf->cache.history_file == NULL) {
		log_warnx("no history file: cache.history_file is \"none\" in "
		    "%s", cf->file);
		config_free(cf);
		return (1);
	}
	if (cf != NULL && strcmp(dir, cf->cache.path) == 0)
		snprintf(path, sizeof(path), "%s", cf->cache.history_file);
	else {
		slash = strrchr(dir, '/');
		snprintf(path, sizeof(path), "%.*s/%s", slash != NULL ?
		    (int)(slash - dir) : 1, slash != NULL ? dir : ".",
		    CONFIG_HISTORY_NAME);
	}
	rv = cache_history_run(path, domain, json);
	config_free(cf);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("standard output");
		rv = 1;
	}
	return (rv);
}

int
main(int argc, char *argv[])
{
	static struct cache_record rec;
	struct cache	*c;
	struct config	*cf = NULL;
	const char	*dir = NULL, *conf = NULL, *cmd, *type = "hash";
	const char	*passfile = NULL;
	const char	*keyring = NULL, *sign = NULL;
	int		 preload = 0;
	char		 key[CACHE_KEY_MAX + 1], err[1024];
	struct tool_opts to;
	long		 jobs = 0;
	int		 ch, readonly, rv = 0, st, fleet, dry = 0;

	log_init("postsmtpsts-cache", 1, LOG_MAIL);
	memset(&to, 0, sizeof(to));
	while ((ch = tool_getopt(&cache_tool, argc, argv, &to)) != -1) {
		if (ch == 'd')
			dir = optarg;
		else if (ch == 'j')
			jobs = tool_number(&cache_tool, optarg, "-j", 1,
			    CONFIG_MAX_RESOLUTIONS);
		else if (ch == 'n')
			dry = 1;
		else if (ch == CACHE_TOOL_OPT_PASSWORD_FILE)
			passfile = optarg;
		else if (ch == 'k')
			keyring = optarg;
		else if (ch == CACHE_OPT_PRELOAD)
			preload = 1;
		else if (ch == CACHE_OPT_SIGN)
			sign = optarg;
		else
			cache_tool_usage();
	}
	conf = to.config_file;
	log_set_verbose(to.verbose);
	argc -= optind;
	argv += optind;
	if (argc < 1)
		cache_tool_usage();
	cmd = argv[0];
	if (strcmp(cmd, "warm") == 0)		/* cache_warm.h */
		return (cache_warm_main(conf, jobs, argc, argv));
	if (jobs != 0)
		cache_tool_usage();	/* -j is for warm only */
	if (passfile != NULL && strcmp(cmd, "import") != 0)
		cache_tool_usage();	/* --password-file: import only */
	if (strcmp(cmd, "preload") == 0) {	/* cache_preload.h */
		if ((rv = cache_preload_main(conf, dry, keyring, argc,
		    argv)) == 2)
			cache_tool_usage();
		return (rv);
	}
	if (keyring != NULL)
		cache_tool_usage();	/* -k is for preload only */
	if ((preload || sign != NULL) && strcmp(cmd, "export") != 0)
		cache_tool_usage();	/* for export --preload only */
	if (sign != NULL && !preload)
		cache_tool_usage();
	if (strcmp(cmd, "preloaded") == 0 && !dry) {
		if (argc == 2 && cache_tool_domain(argv[1], key,
		    sizeof(key)) == -1)
			return (1);
		if (argc == 2)
			argv[1] = key;
		if ((rv = cache_preload_show(conf, argc, argv)) == 2)
			cache_tool_usage();
		return (rv);
	}
	if (dry && strcmp(cmd, "import") != 0)
		cache_tool_usage();	/* -n is for import only */
	fleet = strcmp(cmd, "fleet-stats") == 0 || strcmp(cmd, "push") == 0 ||
	    strcmp(cmd, "pull") == 0;
	if (strcmp(cmd, "list") == 0 || strcmp(cmd, "stats") == 0 ||
	    strcmp(cmd, "purge-all") == 0 || fleet) {
		if (argc != 1)
			cache_tool_usage();
	} else if (strcmp(cmd, "show") == 0 || strcmp(cmd, "purge") == 0) {
		if (argc != 2)
			cache_tool_usage();
		if (cache_tool_domain(argv[1], key, sizeof(key)) == -1)
			return (1);
	} else if (strcmp(cmd, "export") == 0 && preload) {
		if (argc > 2)
			cache_tool_usage();
	} else if (strcmp(cmd, "export") == 0) {
		type = argc > 1 ? argv[1] : "hash";
		if (argc > 2 || (strcmp(type, "hash") != 0 &&
		    strcmp(type, "texthash") != 0))
			cache_tool_usage();
	} else if (strcmp(cmd, "import") == 0) {
		if (argc != 3)
			cache_tool_usage();
		if (!cache_import_known(argv[1]))
			return (2);
		if (passfile != NULL && strcmp(argv[1], "redis") != 0)
			cache_tool_usage();	/* a redis password */
	} else if (strcmp(cmd, "history") == 0) {
		if (argc < 2 || argc > 3 || (argc == 3 &&
		    strcmp(argv[2], "json") != 0))
			cache_tool_usage();
		if (cache_tool_domain(argv[1], key, sizeof(key)) == -1)
			return (1);
	} else
		cache_tool_usage();

	if (dir == NULL || conf != NULL) {
		/* -d wins; else the configuration's cache.path (the
		 * default file if -c is not given, when it exists).
		 * -c is read even with -d: stats needs runtime_dir. */
		if (conf != NULL || access(CONFIG_DEFAULT_FILE, F_OK) == 0) {
			cf = config_load(conf != NULL ? conf :
			    CONFIG_DEFAULT_FILE, err, sizeof(err));
			if (cf == NULL) {
				log_warnx("%s", err);
				return (1);
			}
			if (dir == NULL)
				dir = cf->cache.path;
		} else
			dir = CACHE_TOOL_DEFAULT_DIR;
	}

	if (strcmp(cmd, "history") == 0)
		return (cache_tool_history(cf, dir, key, argc == 3));
	if (fleet && cf == NULL) {
		log_warnx("%s needs the configuration's fleet section (-c)",
		    cmd);
		return (1);
	}
	if (strcmp(cmd, "fleet-stats") == 0) {
		rv = cache_fleet_stats(cf);
		config_free(cf);
		return (rv);
	}
	readonly = strcmp(cmd, "purge") != 0 &&
	    strcmp(cmd, "purge-all") != 0 && strcmp(cmd, "pull") != 0 &&
	    strcmp(cmd, "import") != 0;
	if (strcmp(cmd, "pull") == 0 || strcmp(cmd, "import") == 0) {
		/* seeding a new host: the cache may not exist yet */
		if ((c = cache_open(dir, 0, 0, err, sizeof(err))) == NULL) {
			log_warnx("%s", err);
			config_free(cf);
			return (1);
		}
	} else if ((c = cache_tool_open(dir, readonly)) == NULL) {
		if (strcmp(cmd, "stats") == 0)
			cache_tool_counters(cf);	/* cache or not */
		config_free(cf);
		return (1);
	}
	if (strcmp(cmd, "list") == 0)
		rv = cache_iterate(c, cache_tool_list_cb, NULL) == CACHE_OK ?
		    0 : 1;
	else if (strcmp(cmd, "show") == 0) {
		st = cache_get(c, key, strlen(key), &rec);
		if (st == CACHE_HIT)
			cache_tool_show(key, &rec, clock_wall());
		else {
			if (st == CACHE_MISS)
				log_warnx("%s: not in the cache (or not "
				    "readable by this version)", key);
			rv = 1;
		}
	} else if (strcmp(cmd, "purge") == 0) {
		st = cache_del(c, key);
		if (st == CACHE_MISS)
			log_warnx("%s: not in the cache", key);
		else if (st == CACHE_FULL)
			log_warnx("%s: cache map or disk full", key);
		rv = st == CACHE_OK ? 0 : 1;
	} else if (strcmp(cmd, "purge-all") == 0) {
		st = cache_purge_all(c);
		if (st == CACHE_FULL)
			log_warnx("purge-all: cache map or disk full");
		rv = st == CACHE_OK ? 0 : 1;
	} else if (strcmp(cmd, "export") == 0 && preload) {
		if ((rv = cache_preload_export(c, sign, argc > 1 ? argv[1] :
		    NULL)) == 2)
			cache_tool_usage();
	} else if (strcmp(cmd, "export") == 0)
		rv = cache_tool_export(c, type);
	else if (strcmp(cmd, "push") == 0)
		rv = cache_fleet_push(cf, c);
	else if (strcmp(cmd, "pull") == 0)
		rv = cache_fleet_pull(cf, c);
	else if (strcmp(cmd, "import") == 0)
		rv = cache_import_run(c, cf != NULL ? &cf->cache : NULL,
		    argv[1], argv[2], passfile, dry);
	else {
		rv = cache_tool_stats(c, dir);
		cache_tool_counters(cf);
	}
	cache_close(c);
	config_free(cf);

	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("standard output");
		rv = 1;
	}
	return (rv);
}
