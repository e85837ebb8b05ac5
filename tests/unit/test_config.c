/*
 * test_config.c - unit tests for the configuration loader
 *
 * Every case writes its text to a mkstemp(3) file in $TMPDIR and loads it.
 * Valid files are checked field by field; each invalid file must fail with
 * its first error line starting with exactly "FILE:LINE: " and naming the
 * problem.  The shipped example is read from $top_srcdir/contrib.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/config.h"
#include "conf/config_dump.h"
#include "lib/addrclass.h"
#include "conf/config_load.h"

#define TEST_ERRSZ	8192

/* write_temp - text[0..len) into a new temporary file; the caller unlinks */
static char *
write_temp(const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char	*path;
	size_t	 sz;
	FILE	*fp;
	int	 fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	sz = strlen(dir) + sizeof("/test_config.XXXXXX");
	path = malloc(sz);
	assert_non_null(path);
	snprintf(path, sz, "%s/test_config.XXXXXX", dir);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	return (path);
}

/* load_text - load text as a file; errbuf gets the errors, path its name */
static struct config *
load_text(const char *text, char *errbuf, char **pathp)
{
	struct config *cf;
	char	*path;

	path = write_temp(text, strlen(text));
	cf = config_load(path, errbuf, TEST_ERRSZ);
	if (pathp != NULL)
		*pathp = path;
	else {
		unlink(path);
		free(path);
	}
	return (cf);
}

/* load_ok - text must load without errors */
static struct config *
load_ok(const char *text)
{
	char	 err[TEST_ERRSZ];
	struct config *cf;

	cf = load_text(text, err, NULL);
	if (cf == NULL)
		fail_msg("unexpected errors:\n%s", err);
	assert_string_equal(err, "");
	return (cf);
}

/* -- valid files ---------------------------------------------------- */

static void
empty_file_gives_defaults(void **state)
{
	struct config *cf;

	(void)state;
	cf = load_ok("");
	assert_string_equal(cf->user, "_postsmtpsts");
	assert_null(cf->group);
	assert_string_equal(cf->pid_file, RUNSTATEDIR
	    "/postsmtpsts/postsmtpsts.pid");
	assert_string_equal(cf->runtime_dir, RUNSTATEDIR "/postsmtpsts");
	assert_true(cf->workers >= 1 && cf->workers <= CONFIG_MAX_WORKERS);
	assert_int_equal(cf->max_connections, 4096);
	assert_int_equal(cf->idle_timeout, 300);
	assert_int_equal(cf->max_inflight, 64);
	assert_int_equal(cf->max_resolutions, 256);
	assert_int_equal(cf->request_timeout_ms, 5000);
	assert_int_equal(cf->deadline_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->syslog_facility, LOG_MAIL);
	assert_int_equal(cf->verbose, 0);
	assert_null(cf->metrics);	/* off by default */

	assert_int_equal(cf->nlisten, 1);
	assert_int_equal(cf->listen[0].kind, CONFIG_LISTEN_INET);
	assert_string_equal(cf->listen[0].spec, "inet:127.0.0.1:8461");
	assert_string_equal(cf->listen[0].host, "127.0.0.1");
	assert_string_equal(cf->listen[0].port, "8461");
	/* the plain map (Postfix < 3.10) and the TLSRPT one (>= 3.10) */
	assert_int_equal(cf->nmaps, 2);
	assert_string_equal(cf->maps[0].name, "postfix");
	assert_int_equal(cf->maps[0].testing_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->maps[0].tlsrpt, 0);
	assert_int_equal(cf->maps[0].dane, 1);
	assert_string_equal(cf->maps[1].name, CONFIG_DEFAULT_MAP_TLSRPT);
	assert_int_equal(cf->maps[1].testing_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->maps[1].tlsrpt, 1);
	assert_int_equal(cf->maps[1].dane, 1);
	assert_int_equal(cf->maps[1].dane_some, CONFIG_DANE_SOME_DANE);
	assert_int_equal(cf->maps[1].dane_lookup_failure,
	    CONFIG_DANE_FAILURE_TEMP);
	assert_non_null(config_find_map(cf, "postfix310", 10));
	assert_int_equal(cf->ndomains, 0);
	assert_null(config_find_domain(cf, "example.com"));

	assert_string_equal(cf->dns.trust_anchor_file,
	    "/usr/share/dns/root.key");
	assert_null(cf->dns.root_hints);
	assert_non_null(cf->dns.forwarders);
	assert_null(cf->dns.forwarders[0]);
	assert_int_equal(cf->dns.use_resolv_conf, 0);
	assert_null(cf->dns.unbound_config);
	assert_non_null(cf->dns.unbound_options);
	assert_null(cf->dns.unbound_options[0]);
	assert_null(cf->https.ca_file);
	assert_null(cf->https.proxy);
	assert_int_equal(cf->https.connect_timeout, 5);
	assert_int_equal(cf->https.timeout, 10);
	assert_int_equal(cf->https.max_policy_size, 65536);
	assert_string_equal(cf->cache.path, LOCALSTATEDIR
	    "/lib/postsmtpsts/cache");
	assert_int_equal(cf->cache.max_size, 1073741824);
	assert_int_equal(cf->cache.negative_ttl, 300);
	assert_int_equal(cf->cache.refresh_before, 0);
	assert_int_equal(cf->cache.refresh_interval, 60);
	assert_int_equal(cf->cache.refresh_concurrency, 64);
	assert_int_equal(cf->cache.enabled, 1);
	assert_string_equal(cf->cache.history_file, LOCALSTATEDIR
	    "/lib/postsmtpsts/history.log");
	config_free(cf);
}

/* workers = 0: half the online cores, at least one; resolvers = 0: every
 * core, at most CONFIG_AUTO_RESOLVERS */
static void
workers_zero_is_online_cpus(void **state)
{
	struct config *cf;
	long	 n = sysconf(_SC_NPROCESSORS_ONLN) / 2;
	long	 r = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	cf = load_ok("workers = 0\nresolvers = 0\n");
	if (n < 1)
		n = 1;
	if (n > CONFIG_MAX_WORKERS)
		n = CONFIG_MAX_WORKERS;
	if (r < 1)
		r = 1;
	if (r > CONFIG_AUTO_RESOLVERS)
		r = CONFIG_AUTO_RESOLVERS;
	assert_int_equal(cf->workers, n);
	assert_int_equal(cf->resolvers, r);
	config_free(cf);
	cf = load_ok("resolvers = 16\n");
	assert_int_equal(cf->resolvers, 16);
	config_free(cf);
}


static const char full_text[] =
	"# every option, none at its default\n"
	"user = \"mtasts\"\n"
	"group = \"mail\"\n"
	"pid_file = \"\"\n"
	"runtime_dir = \"/var/run/pss\"\n"
	"workers = 3\n"
	"max_connections = 100\n"
	"idle_timeout = 60\n"
	"max_inflight = 8\n"
	"max_resolutions = 20\n"
	"request_timeout = 0.5\n"
	"deadline_answer = \"temp\"\n"
	"syslog_facility = \"local3\"\n"
	"verbose = 2\n"
	"metrics = \"inet:[::1]:9462\"\n"
	"listen \"unix:/var/spool/postfix/private/sts\" {\n"
	"\tmode = \"0660\"  owner = \"postfix\"  group = \"postdrop\"\n"
	"}\n"
	"listen \"inet:[::1]:8461\" { }\n"
	"listen \"inet:*:9461\" { }\n"
	"map \"postfix\" { testing_answer = \"may\"  tlsrpt = true }\n"
	"map \"strict\" { }\n"
	"domain \"Example.COM.\" {\n"
	"\tlevel = \"secure\"\n"
	"\tmatch = \"mx1.example.com:.Example.NET:nexthop\"\n"
	"\tservername = \"hostname\"\n"
	"}\n"
	"domain \"b.example\" { level = \"DANE-only\"\n"
	"\tuntil = \"2030-06-15t12:00:00z\" }\n"
	"domain \"a.example\" { level = \"fingerprint\"  until = 2030-06-15\n"
	"\tmatch = \"ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89|"
	"0123456789abcdef0123456789abcdef01234567\" }\n"
	"dns {\n"
	"\ttrust_anchor_file = \"/var/lib/unbound/root.key\"\n"
	"\troot_hints = \"/usr/share/dns/root.hints\"\n"
	"\tforwarders = { \"192.0.2.53\",  # a comment inside a list\n"
	"\t    \"2001:db8::53@5353\" }\n"
	"\tuse_resolv_conf = false\n"
	"\tunbound_config = \"/etc/postsmtpsts/unbound.conf\"\n"
	"\tunbound_options = { \"edns-buffer-size: 1232\",\n"
	"\t    \"so-rcvbuf: 1m\" }\n"
	"}\n"
	"https { ca_file = \"/etc/ssl/certs/ca-certificates.crt\"\n"
	"\tproxy = \"http://proxy.example:3128\"\n"
	"\tconnect_timeout = 3  timeout = 20  max_policy_size = 4096 }\n"
	"cache { path = \"/srv/sts\"  max_size = 2097152  negative_ttl = 60\n"
	"\trefresh_before = 3600  refresh_interval = 5  enabled = no\n"
	"\trefresh_concurrency = 20 }\n";

static void
full_file_sets_every_field(void **state)
{
	const struct config_domain *d;
	const struct config_listen *l;
	struct config *cf;

	(void)state;
	cf = load_ok(full_text);
	assert_string_equal(cf->user, "mtasts");
	assert_string_equal(cf->group, "mail");
	assert_null(cf->pid_file);
	assert_string_equal(cf->runtime_dir, "/var/run/pss");
	assert_int_equal(cf->workers, 3);
	assert_int_equal(cf->max_connections, 100);
	assert_int_equal(cf->idle_timeout, 60);
	assert_int_equal(cf->max_inflight, 8);
	assert_int_equal(cf->max_resolutions, 20);
	assert_int_equal(cf->request_timeout_ms, 500);
	assert_int_equal(cf->deadline_answer, CONFIG_ANSWER_TEMP);
	assert_int_equal(cf->syslog_facility, LOG_LOCAL3);
	assert_int_equal(cf->verbose, 2);
	assert_non_null(cf->metrics);
	assert_string_equal(cf->metrics->host, "::1");
	assert_string_equal(cf->metrics->port, "9462");

	assert_int_equal(cf->nlisten, 3);
	l = &cf->listen[0];
	assert_int_equal(l->kind, CONFIG_LISTEN_UNIX);
	assert_string_equal(l->path, "/var/spool/postfix/private/sts");
	assert_int_equal(l->mode, 0660);
	assert_string_equal(l->owner, "postfix");
	assert_string_equal(l->group, "postdrop");
	l = &cf->listen[1];
	assert_int_equal(l->kind, CONFIG_LISTEN_INET);
	assert_string_equal(l->spec, "inet:[::1]:8461");
	assert_string_equal(l->host, "::1");
	assert_string_equal(l->port, "8461");
	assert_string_equal(cf->listen[2].host, "*");

	assert_int_equal(cf->nmaps, 2);
	assert_non_null(config_find_map(cf, "postfix", 7));
	assert_int_equal(config_find_map(cf, "postfix", 7)->testing_answer,
	    CONFIG_ANSWER_MAY);
	assert_int_equal(config_find_map(cf, "postfix", 7)->tlsrpt, 1);
	/* name[0..len) need not be NUL-terminated */
	assert_non_null(config_find_map(cf, "strict-and-more", 6));
	assert_null(config_find_map(cf, "stric", 5));
	assert_null(config_find_map(cf, "postfixx", 8));

	assert_int_equal(cf->ndomains, 3);
	assert_string_equal(cf->domains[0].domain, "a.example");
	assert_string_equal(cf->domains[1].domain, "b.example");
	assert_string_equal(cf->domains[2].domain, "example.com");
	d = config_find_domain(cf, "example.com");
	assert_non_null(d);
	assert_string_equal(d->level, "secure");
	assert_string_equal(d->match, "mx1.example.com:.example.net:nexthop");
	assert_string_equal(d->servername, "hostname");
	assert_string_equal(d->answer, "secure match=mx1.example.com:"
	    ".example.net:nexthop servername=hostname");
	assert_null(d->until);
	assert_int_equal(d->end, 0);
	assert_int_equal(d->line, 23);	/* its "{" */
	d = config_find_domain(cf, "b.example");
	assert_non_null(d);
	assert_string_equal(d->answer, "dane-only");
	assert_null(d->match);
	assert_null(d->servername);
	assert_string_equal(d->until, "2030-06-15T12:00:00Z");
	assert_int_equal(d->end, 1907755200);
	d = config_find_domain(cf, "a.example");
	assert_non_null(d);
	assert_string_equal(d->until, "2030-06-15");
	assert_int_equal(d->end, 1907798400);	/* through that day */
	assert_string_equal(d->answer, "fingerprint match="
	    "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89|"
	    "0123456789ABCDEF0123456789ABCDEF01234567");
	assert_null(config_find_domain(cf, "Example.COM"));
	assert_null(config_find_domain(cf, "c.example"));

	assert_string_equal(cf->dns.trust_anchor_file,
	    "/var/lib/unbound/root.key");
	assert_string_equal(cf->dns.root_hints, "/usr/share/dns/root.hints");
	assert_string_equal(cf->dns.forwarders[0], "192.0.2.53");
	assert_string_equal(cf->dns.forwarders[1], "2001:db8::53@5353");
	assert_null(cf->dns.forwarders[2]);
	assert_string_equal(cf->dns.unbound_config,
	    "/etc/postsmtpsts/unbound.conf");
	assert_string_equal(cf->dns.unbound_options[1], "so-rcvbuf: 1m");
	assert_null(cf->dns.unbound_options[2]);
	assert_string_equal(cf->https.ca_file,
	    "/etc/ssl/certs/ca-certificates.crt");
	assert_string_equal(cf->https.proxy, "http://proxy.example:3128");
	assert_int_equal(cf->https.connect_timeout, 3);
	assert_int_equal(cf->https.timeout, 20);
	assert_int_equal(cf->https.max_policy_size, 4096);
	assert_string_equal(cf->cache.path, "/srv/sts");
	assert_int_equal(cf->cache.max_size, 2097152);
	assert_int_equal(cf->cache.negative_ttl, 60);
	assert_int_equal(cf->cache.refresh_before, 3600);
	assert_int_equal(cf->cache.refresh_interval, 5);
	assert_int_equal(cf->cache.refresh_concurrency, 20);
	assert_int_equal(cf->cache.enabled, 0);
	assert_string_equal(cf->cache.history_file, "/srv/history.log");
	config_free(cf);
}

static void
refresh_concurrency_follows_max_resolutions(void **state)
{
	struct config *cf;

	(void)state;
	cf = load_ok("max_resolutions = 100\n");
	assert_int_equal(cf->cache.refresh_concurrency, 25);
	config_free(cf);
	cf = load_ok("max_resolutions = 3\n");
	assert_int_equal(cf->cache.refresh_concurrency, 1);
	config_free(cf);
	cf = load_ok("max_resolutions = 3\n"
	    "cache { refresh_concurrency = 3 }\n");
	assert_int_equal(cf->cache.refresh_concurrency, 3);
	config_free(cf);
}

static void
example_file_loads(void **state)
{
	const char *top = getenv("top_srcdir");
	char	 path[PATH_MAX], err[TEST_ERRSZ];
	struct config *cf;

	(void)state;
	if (top == NULL || *top == '\0')
		skip();
	snprintf(path, sizeof(path), "%s/contrib/postsmtpsts.conf", top);
	cf = config_load(path, err, sizeof(err));
	if (cf == NULL)
		fail_msg("%s", err);
	/* the example keeps every default */
	assert_int_equal(cf->nlisten, 1);
	assert_string_equal(cf->listen[0].spec, CONFIG_DEFAULT_LISTEN);
	/* the same two maps as without any map section */
	assert_int_equal(cf->nmaps, 2);
	assert_string_equal(cf->maps[0].name, "postfix");
	assert_int_equal(cf->maps[0].testing_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->maps[0].tlsrpt, 0);
	assert_string_equal(cf->maps[1].name, CONFIG_DEFAULT_MAP_TLSRPT);
	assert_int_equal(cf->maps[1].testing_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->maps[1].tlsrpt, 1);
	assert_int_equal(cf->maps[1].dane, cf->maps[0].dane);
	assert_int_equal(cf->maps[1].dane_some, cf->maps[0].dane_some);
	assert_int_equal(cf->maps[1].dane_lookup_failure,
	    cf->maps[0].dane_lookup_failure);
	assert_string_equal(cf->user, "_postsmtpsts");
	assert_int_equal(cf->request_timeout_ms, 5000);
	assert_int_equal(cf->deadline_answer, CONFIG_ANSWER_NOTFOUND);
	assert_int_equal(cf->ndomains, 0);
	assert_int_equal(cf->cache.max_size, 1073741824);
	config_free(cf);
}

/* Answer composition: one pinned domain each. */
static const struct answer_case {
	const char	*name;
	const char	*body;
	const char	*answer;
} answer_cases[] = {
	{ "none", "level = none", "none" },
	{ "may", "level = may", "may" },
	{ "encrypt", "level = encrypt", "encrypt" },
	{ "dane", "level = dane", "dane" },
	{ "dane servername", "level = dane servername = mx.Example.org",
	    "dane servername=mx.example.org" },
	{ "dane-only", "level = dane-only", "dane-only" },
	{ "fingerprint without match", "level = fingerprint", "fingerprint" },
	{ "fingerprint sha256 no colons", "level = fingerprint match = "
	    "\"00112233445566778899aabbccddeeff"
	    "00112233445566778899aabbccddeeff\"",
	    "fingerprint match=00112233445566778899AABBCCDDEEFF"
	    "00112233445566778899AABBCCDDEEFF" },
	{ "verify keywords", "level = verify match = "
	    "\"hostname:dot-nexthop:NEXTHOP\"",
	    "verify match=hostname:dot-nexthop:nexthop" },
	{ "verify single-label name", "level = verify match = localhost",
	    "verify match=localhost" },
	{ "secure servername only", "level = secure servername = HostName",
	    "secure servername=hostname" },
	{ "level case folded", "level = SeCuRe", "secure" },
	/* issue 38: TLS versions and ciphers, after match and servername */
	{ "secure with a protocols floor", "level = secure protocols = "
	    "\">=TLSv1.2\" match = nexthop", "secure match=nexthop "
	    "protocols=>=TLSv1.2" },
	{ "dane-only with all three", "level = dane-only exclude = "
	    "\"3DES:aNULL\" ciphers = High protocols = \"!SSLv2:!SSLv3\"",
	    "dane-only protocols=!SSLv2:!SSLv3 ciphers=high "
	    "exclude=3DES:aNULL" },
	{ "may with ciphers", "level = may ciphers = medium",
	    "may ciphers=medium" },
	{ "encrypt with a ceiling", "level = encrypt protocols = "
	    "\"<=TLSv1.2\"", "encrypt protocols=<=TLSv1.2" },
};

static void
answers_are_composed(void **state)
{
	const struct config_domain *d;
	struct config *cf;
	char	 text[1024];
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(answer_cases) / sizeof(answer_cases[0]); i++) {
		snprintf(text, sizeof(text), "domain \"pin.example\" { %s }\n",
		    answer_cases[i].body);
		cf = load_ok(text);
		d = config_find_domain(cf, "pin.example");
		assert_non_null(d);
		if (strcmp(d->answer, answer_cases[i].answer) != 0)
			fail_msg("%s: \"%s\" != \"%s\"", answer_cases[i].name,
			    d->answer, answer_cases[i].answer);
		config_free(cf);
	}
}

static void
many_domains_bsearch(void **state)
{
	char	*text, name[64];
	size_t	 cap = 1 << 20, len = 0, i;
	struct config *cf;
	const struct config_domain *d;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);
	/* written in descending order: config_load sorts */
	for (i = 2000; i > 0; i--)
		len += (size_t)snprintf(text + len, cap - len,
		    "domain \"d%zu.example\" { level = %s }\n", i,
		    i % 2 ? "secure" : "dane");
	cf = load_ok(text);
	free(text);
	assert_int_equal(cf->ndomains, 2000);
	for (i = 1; i < cf->ndomains; i++)
		assert_true(strcmp(cf->domains[i - 1].domain,
		    cf->domains[i].domain) < 0);
	for (i = 1; i <= 2000; i += 37) {
		snprintf(name, sizeof(name), "d%zu.example", i);
		d = config_find_domain(cf, name);
		assert_non_null(d);
		assert_string_equal(d->domain, name);
		assert_string_equal(d->level, i % 2 ? "secure" : "dane");
	}
	assert_null(config_find_domain(cf, "d0.example"));
	assert_null(config_find_domain(cf, "d2001.example"));
	config_free(cf);
}

/* dump_text - config_dump of cf, without its first (header) line */
static char *
dump_text(const struct config *cf)
{
	char	*buf = NULL, *nl;
	size_t	 len = 0;
	FILE	*fp;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	config_dump(cf, fp);
	assert_int_equal(fclose(fp), 0);
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	memmove(buf, nl + 1, strlen(nl + 1) + 1);
	return (buf);
}

/* dump_round_trip - the dump of cf, which must load back and dump the
 * same again; the caller frees it */
static char *
dump_round_trip(const struct config *cf)
{
	struct config *cf2;
	char	*d1, *d2;

	d1 = dump_text(cf);
	cf2 = load_ok(d1);
	d2 = dump_text(cf2);
	assert_string_equal(d1, d2);
	free(d2);
	config_free(cf2);
	return (d1);
}

static void
history_file_values(void **state)
{
	struct config *cf;
	char	*d;

	(void)state;
	cf = load_ok("cache { history_file = none }\n");
	assert_null(cf->cache.history_file);
	d = dump_round_trip(cf);
	assert_non_null(strstr(d, "\thistory_file = \"none\"\n"));
	free(d);
	config_free(cf);
	cf = load_ok("cache {\n\tpath = \"/cache\"\n}\n");
	assert_string_equal(cf->cache.history_file, "/history.log");
	config_free(cf);
	cf = load_ok("cache { history_file = \"/var/log/sts-history\" }\n");
	assert_string_equal(cf->cache.history_file, "/var/log/sts-history");
	d = dump_round_trip(cf);
	assert_non_null(strstr(d, "\thistory_file = "
	    "\"/var/log/sts-history\"\n"));
	free(d);
	config_free(cf);
}

/* tls_floor_loads - a map's floor, checked and normalized; none by default
 * (the two default maps too) */
static void
tls_floor_loads(void **state)
{
	struct config *cf;
	char	*d;

	(void)state;
	cf = load_ok("map \"postfix\" { tls_protocols = \">=TLSv1.2\"\n"
	    "\ttls_ciphers = HIGH tls_exclude = \"3DES:aNULL\" }\n"
	    "map \"other\" { }\n");
	assert_string_equal(cf->maps[0].tls_protocols, ">=TLSv1.2");
	assert_string_equal(cf->maps[0].tls_ciphers, "high");
	assert_string_equal(cf->maps[0].tls_exclude, "3DES:aNULL");
	assert_null(cf->maps[1].tls_protocols);
	assert_null(cf->maps[1].tls_ciphers);
	assert_null(cf->maps[1].tls_exclude);
	d = dump_text(cf);
	assert_non_null(strstr(d, "\ttls_protocols = \">=TLSv1.2\"\n"
	    "\ttls_ciphers = \"high\"\n\ttls_exclude = \"3DES:aNULL\"\n"));
	free(d);
	config_free(cf);
	cf = load_ok("");
	assert_int_equal(cf->nmaps, 2);
	assert_null(cf->maps[0].tls_protocols);
	assert_null(cf->maps[1].tls_protocols);
	config_free(cf);
}

static void
dump_loads_back_identically(void **state)
{
	struct config *cf, *cf2;
	char	*d1, *d2;
	const char *texts[] = {
		"",
		full_text,
		"user = \"\"\nrequest_timeout = 0.125\n"
		"listen \"unix:/tmp/a \\\"quoted\\\" $HOME\" {\n"
		"\tmode = \"600\"\n}\n"
		"dns { trust_anchor_file = \"\" }\n",
		"map \"postfix\" { tls_protocols = \">=TLSv1.2:!TLSv1.3\"\n"
		"\ttls_exclude = \"RC4\" }\n"
		"domain \"p.example\" { level = secure protocols = TLSv1.3\n"
		"\tciphers = MEDIUM exclude = aNULL }\n",
	};
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cf = load_ok(texts[i]);
		d1 = dump_text(cf);
		cf2 = load_ok(d1);
		d2 = dump_text(cf2);
		assert_string_equal(d1, d2);
		assert_int_equal(cf->request_timeout_ms,
		    cf2->request_timeout_ms);
		assert_string_equal(cf->listen[0].spec, cf2->listen[0].spec);
		free(d1);
		free(d2);
		config_free(cf);
		config_free(cf2);
	}
}

static void
comments_keep_line_numbers(void **state)
{
	char	 err[TEST_ERRSZ], want[PATH_MAX + 16];
	struct config *cf;
	char	*path;

	(void)state;
	/* libconfuse 3.3 alone counts 3 lines per '#' or '//' comment */
	cf = load_text("# one\n// two\n/* three\n four */\n"
	    "pid_file = \"/run/x#y.pid\" # five\nworkers = 999\n", err,
	    &path);
	assert_null(cf);
	snprintf(want, sizeof(want), "%s:6: workers", path);
	assert_memory_equal(err, want, strlen(want));
	unlink(path);
	free(path);
}

static void
url_with_slashes_is_not_a_comment(void **state)
{
	struct config *cf;

	(void)state;
	cf = load_ok("https { proxy = http://proxy.example:3128/x//y }\n");
	assert_string_equal(cf->https.proxy, "http://proxy.example:3128/x//y");
	config_free(cf);
}

/* -- invalid files -------------------------------------------------- */

static const struct error_case {
	const char	*name;
	const char	*text;
	int		 line;		/* of the first error */
	const char	*msg;		/* part of the first error message */
} error_cases[] = {
	/* libconfuse's own errors, through the error function hook */
	{ "unknown option", "\n\nfoo = 1\n", 3, "no such option 'foo'" },
	{ "unknown section", "bogus \"x\" {\n}\n", 1, "no such option" },
	{ "unknown option in section", "cache {\n\tsize = 1\n}\n", 2,
	    "no such option 'size'" },
	{ "int not a number", "#\nworkers = many\n", 2,
	    "invalid integer value for option 'workers'" },
	{ "int with a fraction", "workers = 1.5\n", 1,
	    "invalid integer value" },
	{ "int in hex", "workers = 0x10\n", 1, "invalid integer value" },
	{ "int out of range", "workers = 99999999999999999999\n", 1,
	    "out of range" },
	{ "float not a number", "request_timeout = 1e3\n", 1,
	    "invalid number for option 'request_timeout'" },
	{ "bool not a bool", "map \"m\" {\n\ttlsrpt = maybe\n}\n", 2,
	    "invalid boolean value for option 'tlsrpt'" },
	{ "section without title", "\nlisten { }\n", 2, "missing title" },
	{ "section without brace", "dns = 1\n", 1, "missing opening brace" },
	{ "hidden line section unreachable", "listen \"inet:*:1\" {\n"
	    "\t\"line|\" { }\n}\n", 2, "'line'" },
	{ "multi-line token in a message", "\"x\ny\" = 1\n", 2,
	    "no such option 'x?y'" },
	{ "unterminated string", "#\nuser = \"abc\n\n", 2,
	    "unterminated string" },
	{ "unterminated single-quoted string", "user = 'abc\\'\n", 1,
	    "unterminated string" },
	{ "premature end of file", "#\nworkers =\n", 2,
	    "premature end of file" },
	{ "duplicate map", "map \"a\" { }\n\nmap \"a\" { }\n", 3,
	    "duplicate title 'a'" },
	{ "duplicate listener exact", "listen \"inet:*:1\" { }\n"
	    "listen \"inet:*:1\" { }\n", 2, "duplicate title" },
	/* ours: reading the file */
	{ "unterminated comment", "#\nworkers = 1\n/* abc\n\n", 3,
	    "unterminated comment" },
	/* top level */
	{ "metrics not inet", "\nmetrics = \"unix:/tmp/m\"\n", 2,
	    "must be inet:ADDRESS:PORT" },
	{ "metrics on any address", "metrics = \"inet:*:9461\"\n", 1,
	    "must be inet:ADDRESS:PORT" },
	{ "metrics without port", "metrics = \"inet:127.0.0.1\"\n", 1,
	    "metrics \"inet:127.0.0.1\" has no port" },
	{ "metrics on a socketmap listener", "listen \"inet:*:9461\" { }\n"
	    "metrics = \"inet:127.0.0.1:9461\"\n", 2,
	    "uses the address of a socketmap listener" },
	{ "workers too many", "workers = 257\n", 1,
	    "workers must be between 0 and 256" },
	{ "workers negative", "workers = -1\n", 1,
	    "workers must be between 0 and 256, not -1" },
	{ "resolvers too many", "resolvers = 17\n", 1,
	    "resolvers must be between 0 and 16" },

	{ "max_connections zero", "max_connections = 0\n", 1,
	    "max_connections must be between 1 and 1000000" },
	{ "max_connections too many", "max_connections = 1000001\n", 1,
	    "max_connections must be between 1 and 1000000" },
	{ "idle_timeout zero", "idle_timeout = 0\n", 1,
	    "idle_timeout must be between 1 and 86400" },
	{ "idle_timeout too long", "idle_timeout = 86401\n", 1,
	    "idle_timeout must be between" },
	{ "request_timeout zero", "request_timeout = 0\n", 1,
	    "request_timeout must be between 0.001 and 60 seconds" },
	{ "request_timeout below a millisecond", "request_timeout = 0.0004\n",
	    1, "request_timeout must be between" },
	{ "request_timeout too long", "request_timeout = 60.5\n", 1,
	    "request_timeout must be between" },
	{ "deadline_answer not enumerated", "deadline_answer = may\n", 1,
	    "deadline_answer must be notfound or temp" },
	{ "syslog_facility unknown", "syslog_facility = local8\n", 1,
	    "syslog_facility must be mail, daemon or local0..local7" },
	{ "verbose too high", "verbose = 10\n", 1,
	    "verbose must be between 0 and 9" },
	{ "user name invalid", "user = \"post fix\"\n", 1,
	    "user \"post fix\" is not a valid user or group name" },
	{ "user name too long", "user = abcdefghijklmnopqrstuvwxyz0123456\n",
	    1, "is not a valid user or group name" },
	{ "group name invalid", "group = -wheel\n", 1,
	    "group \"-wheel\" is not a valid user or group name" },
	{ "pid_file relative", "pid_file = run/x.pid\n", 1,
	    "pid_file \"run/x.pid\" is not an absolute path" },
	{ "runtime_dir empty", "runtime_dir = \"\"\n", 1,
	    "runtime_dir must not be empty" },
	{ "runtime_dir too long", "runtime_dir = /aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 1,
	    "runtime_dir is longer than 75 bytes" },
	/* listen */
	{ "listen scheme unknown", "\nlisten \"tcp:1.2.3.4:5\" { }\n", 2,
	    "is neither unix:/path nor inet:host:port" },
	{ "listen unix relative", "listen \"unix:sock\" { }\n", 1,
	    "needs an absolute socket path" },
	{ "listen unix too long", "listen \"unix:/aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaa\" { }\n", 1, "too long for sun_path" },
	{ "listen unix directory", "listen \"unix:/run/\" { }\n", 1,
	    "names a directory" },
	{ "listen port zero", "listen \"inet:127.0.0.1:0\" { }\n", 1,
	    "port that is not a number 1..65535" },
	{ "listen port too big", "listen \"inet:127.0.0.1:65536\" { }\n", 1,
	    "port that is not a number 1..65535" },
	{ "listen port not digits", "listen \"inet:127.0.0.1:smtp\" { }\n", 1,
	    "port that is not a number" },
	{ "listen no port", "listen \"inet:127.0.0.1\" { }\n", 1,
	    "has no port" },
	{ "listen empty port", "listen \"inet:127.0.0.1:\" { }\n", 1,
	    "has no port" },
	{ "listen host name", "listen \"inet:localhost:25\" { }\n", 1,
	    "neither an IP address nor *" },
	{ "listen bad IPv4", "listen \"inet:256.1.1.1:25\" { }\n", 1,
	    "neither an IP address nor *" },
	{ "listen IPv6 without brackets", "listen \"inet:::1:25\" { }\n", 1,
	    "IPv6 address not in [brackets]" },
	{ "listen IPv6 unclosed bracket", "listen \"inet:[::1:25\" { }\n", 1,
	    "no ']'" },
	{ "listen IPv6 garbage after bracket", "listen \"inet:[::1]x25\" { }\n",
	    1, "has no port" },
	{ "listen IPv4 in brackets", "listen \"inet:[127.0.0.1]:25\" { }\n", 1,
	    "neither an IP address nor *" },
	{ "listen duplicate canonical", "listen \"inet:[::1]:25\" { }\n\n"
	    "listen \"inet:[0::1]:025\" { }\n", 3,
	    "duplicates listen \"inet:[::1]:25\" at line 1" },
	{ "listen star overlaps", "listen \"inet:127.0.0.1:25\" { }\n"
	    "listen \"inet:*:25\" { }\n", 2, "duplicates listen" },
	{ "listen duplicate unix", "listen \"unix:/a\" { }\n"
	    "listen \"unix:/b\" { }\nlisten 'unix:/a' {\n}\n", 3,
	    "duplicate title" },
	{ "listen mode on inet", "listen \"inet:127.0.0.1:25\" {\n"
	    "\tmode = \"0600\"\n}\n", 2, "mode applies to unix sockets only" },
	{ "listen owner on inet", "listen \"inet:127.0.0.1:25\" {\n\n"
	    "\towner = postfix\n}\n", 3, "owner applies to unix sockets only" },
	{ "listen group on inet",
	    "listen \"inet:127.0.0.1:25\" { group = x }\n", 1,
	    "group applies to unix sockets only" },
	{ "listen mode not octal",
	    "listen \"unix:/s\" {\n\tmode = \"0668\"\n}\n", 2,
	    "mode must be an octal string" },
	{ "listen mode too big", "listen \"unix:/s\" { mode = \"4755\" }\n", 1,
	    "mode must be an octal string" },
	{ "listen mode short", "listen \"unix:/s\" { mode = \"66\" }\n", 1,
	    "mode must be an octal string" },
	{ "listen owner invalid",
	    "listen \"unix:/s\" {\n\towner = \"a:b\"\n}\n", 2,
	    "listen \"unix:/s\": owner \"a:b\" is not a valid" },
	/* map */
	{ "map name invalid", "\nmap \"post fix\" { }\n", 2,
	    "map \"post fix\": a map name is 1 to 64" },
	{ "map name too long", "map \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaa\" { }\n", 1, "a map name is 1 to 64" },
	{ "map name empty", "map \"\" { }\n", 1, "a map name is 1 to 64" },
	{ "map testing_answer not enumerated", "map \"m\" {\n"
	    "\ttesting_answer = temp\n}\n", 2,
	    "testing_answer must be notfound or may" },
	/* domain */
	{ "domain name with bad character", "domain \"exa mple.com\" "
	    "{ level = may }\n", 1, "contains a character other than" },
	{ "domain single label", "domain \"com\" { level = may }\n", 1,
	    "has too few labels" },
	{ "domain numeric", "domain \"192.0.2.1\" { level = may }\n", 1,
	    "is numeric" },
	{ "domain empty label", "domain \"a..b\" { level = may }\n", 1,
	    "has an empty label" },
	{ "domain two trailing dots", "domain \"a.b..\" { level = may }\n", 1,
	    "has an empty label" },
	{ "domain hyphen at label start", "domain \"-a.b\" { level = may }\n",
	    1, "starts or ends with '-'" },
	{ "domain label too long", "domain \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.b\" { level = may }\n", 1,
	    "label longer than 63" },
	{ "domain parent key", "domain \".example.com\" { level = may }\n", 1,
	    "has an empty label" },
	{ "domain duplicate exact", "domain \"a.example\" { level = may }\n"
	    "domain \"a.example\" { level = may }\n", 2, "duplicate title" },
	{ "domain duplicate after normalization", "#\n"
	    "domain \"A.Example.\" { level = may }\n\n"
	    "domain \"a.example\" { level = none }\n", 4,
	    "domain \"a.example\" duplicates domain \"A.Example.\" at line 2" },
	{ "domain level missing", "domain \"a.example\" {\n"
	    "\tmatch = \"x.example\"\n}\n", 1, "level is missing" },
	{ "domain level unknown", "domain \"a.example\" {\n"
	    "\tlevel = half-dane\n}\n", 2, "level must be one of" },
	{ "match at may", "domain \"a.example\" { level = may\n"
	    "\tmatch = \"x.example\" }\n", 2,
	    "match is not valid at level may" },
	{ "match at dane-only", "domain \"a.example\" { level = dane-only "
	    "match = nexthop }\n", 1, "match is not valid at level dane-only" },
	{ "match at dane", "domain \"a.example\" { level = dane "
	    "match = nexthop }\n", 1, "match is not valid at level dane" },
	{ "match empty token", "domain \"a.example\" { level = secure\n"
	    "\tmatch = \"a.example::b.example\" }\n", 2,
	    "match pattern \"\" is empty" },
	{ "match wildcard", "domain \"a.example\" { level = verify "
	    "match = \"*.a.example\" }\n", 1,
	    "match pattern \"*.a.example\" contains a character" },
	{ "match with space", "domain \"a.example\" { level = secure "
	    "match = \"a.example b.example\" }\n", 1, "contains a character" },
	{ "match too many", "domain \"a.example\" { level = secure match = "
	    "\"a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:"
	    "a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:a:"
	    "a\" }\n", 1, "more than 64 match patterns" },
	{ "fingerprint not hex", "domain \"a.example\" { level = fingerprint "
	    "match = \"zz:zz\" }\n", 1, "\"zz:zz\" is not a hex fingerprint" },
	{ "fingerprint wrong length", "domain \"a.example\" { level = "
	    "fingerprint match = \"ab:cd:ef\" }\n", 1,
	    "is not a hex fingerprint" },
	{ "fingerprint colon-separated list", "domain \"a.example\" { level = "
	    "fingerprint match = \"00112233445566778899aabbccddeeff:"
	    "00112233445566778899aabbccddeeff\" }\n", 1,
	    "is not a hex fingerprint" },
	{ "servername at encrypt", "domain \"a.example\" { level = encrypt\n"
	    "\tservername = hostname }\n", 2,
	    "servername is not valid at level encrypt" },
	{ "servername at fingerprint", "domain \"a.example\" { level = "
	    "fingerprint servername = hostname }\n", 1,
	    "servername is not valid at level fingerprint" },
	{ "servername invalid", "domain \"a.example\" { level = secure "
	    "servername = \"mx_.example!\" }\n", 1,
	    "servername must be \"hostname\" or a host name" },
	{ "servername address", "domain \"a.example\" { level = dane "
	    "servername = 192.0.2.1 }\n", 1, "is numeric" },
	{ "until day first", "domain \"a.example\" {\n\tlevel = may\n"
	    "\tuntil = \"31.12.2026\"\n}\n", 3, "domain \"a.example\": "
	    "until \"31.12.2026\" is neither a date YYYY-MM-DD nor a time "
	    "YYYY-MM-DDTHH:MM:SSZ (UTC)" },
	{ "until with an offset", "domain \"a.example\" { level = may\n"
	    "\tuntil = \"2026-12-31T12:00:00+02:00\" }\n", 2,
	    "has an offset from UTC: write the time in UTC, ending in Z" },
	{ "until without Z", "domain \"a.example\" { level = may\n"
	    "\tuntil = \"2026-12-31T12:00:00\" }\n", 2, "has no Z" },
	{ "until no such day", "domain \"a.example\" { level = may\n"
	    "\tuntil = 2026-02-29 }\n", 2,
	    "until \"2026-02-29\" has no day 29: month 02 of 2026 has 28 days" },
	{ "until a Unix time", "domain \"a.example\" { level = may "
	    "until = 1798761600 }\n", 1, "is neither a date" },
	{ "until before level missing", "domain \"a.example\" {\n"
	    "\tuntil = \"next week\"\n}\n", 2, "is neither a date" },
	/* dns */
	{ "trust_anchor_file relative", "dns {\n\ttrust_anchor_file = "
	    "root.key\n}\n", 2, "dns: trust_anchor_file \"root.key\" is not "
	    "an absolute path" },
	{ "root_hints relative", "dns { root_hints = hints }\n", 1,
	    "dns: root_hints \"hints\" is not an absolute path" },
	{ "unbound_config relative", "dns { unbound_config = u.conf }\n", 1,
	    "dns: unbound_config" },
	{ "forwarder not an address", "dns {\n\tforwarders = { 192.0.2.1,\n"
	    "\t\tns.example }\n}\n", 3,
	    "forwarder \"ns.example\" is not an IP address" },
	{ "forwarder bad port", "dns { forwarders = { \"192.0.2.1@0\" } }\n", 1,
	    "is not an IP address (with optional @port)" },
	{ "forwarders with resolv.conf", "dns {\n\tforwarders = { 192.0.2.1 }\n"
	    "\tuse_resolv_conf = true\n}\n", 3, "exclude each other" },
	{ "unbound option malformed", "dns { unbound_options = { "
	    "\"edns-buffer-size 1232\" } }\n", 1,
	    "is not \"name: value\"" },
	{ "unbound option without value", "dns { unbound_options = { "
	    "\"verbosity:\" } }\n", 1, "is not \"name: value\"" },
	/* https */
	{ "ca_file relative", "https { ca_file = ca.pem }\n", 1,
	    "https: ca_file \"ca.pem\" is not an absolute path" },
	{ "proxy with space", "https { proxy = \"http://a b\" }\n", 1,
	    "https: proxy \"http://a b\" is not a URL" },
	{ "connect_timeout zero", "https { connect_timeout = 0 }\n", 1,
	    "https: connect_timeout must be between 1 and 300" },
	{ "timeout too long", "https {\n\ttimeout = 301\n}\n", 2,
	    "https: timeout must be between 1 and 300" },
	{ "connect_timeout above timeout", "https {\n\tconnect_timeout = 9\n"
	    "\ttimeout = 8\n}\n", 2, "connect_timeout (9) is longer than" },
	/* cache */
	{ "cache path empty", "cache {\n\tpath = \"\"\n}\n", 2,
	    "cache: path must not be empty" },
	{ "cache path relative", "cache { path = cache }\n", 1,
	    "cache: path \"cache\" is not an absolute path" },
	{ "history_file relative", "cache {\n\tpath = \"/srv/c\"\n"
	    "\thistory_file = h.log\n}\n", 3,
	    "cache: history_file \"h.log\" is not an absolute path" },
	{ "history_file control character", "cache { history_file = "
	    "\"/srv/h\\tlog\" }\n", 1,
	    "cache: history_file \"/srv/h\\x09log\" contains a control" },
	{ "cache max_size too small", "cache { max_size = 1048575 }\n", 1,
	    "cache: max_size must be between 1048576 and 1099511627776" },
	{ "cache max_size too big", "cache { max_size = 1099511627777 }\n", 1,
	    "cache: max_size must be between" },
	{ "negative_ttl zero", "cache { negative_ttl = 0 }\n", 1,
	    "cache: negative_ttl must be between 1 and 86400" },
	{ "refresh_before negative", "cache { refresh_before = -1 }\n", 1,
	    "cache: refresh_before must be between 0 and 31557600" },
	{ "refresh_interval zero", "cache { refresh_interval = 0 }\n", 1,
	    "cache: refresh_interval must be between 1 and 3600" },
	{ "refresh_concurrency negative",
	    "cache { refresh_concurrency = -1 }\n", 1,
	    "cache: refresh_concurrency must be between 0 and 4096" },
	{ "refresh_concurrency above max_resolutions", "max_resolutions = 8\n"
	    "cache {\n\trefresh_concurrency = 9\n}\n", 3,
	    "cache: refresh_concurrency (9) is more than max_resolutions (8)" },
	/* resource limits */
	{ "max_inflight zero", "\nmax_inflight = 0\n", 2,
	    "max_inflight must be between 1 and 4096, not 0" },
	{ "max_inflight too many", "max_inflight = 4097\n", 1,
	    "max_inflight must be between 1 and 4096" },
	{ "max_resolutions zero", "max_resolutions = 0\n", 1,
	    "max_resolutions must be between 1 and 4096, not 0" },
	{ "max_resolutions too many", "#\n#\nmax_resolutions = 5000\n", 3,
	    "max_resolutions must be between 1 and 4096" },
	{ "max_policy_size over 64 KiB",
	    "https {\n\tmax_policy_size = 65537\n}\n", 2,
	    "https: max_policy_size must be between 256 and 65536, not 65537" },
	{ "max_policy_size too small", "https { max_policy_size = 255 }\n",
	    1, "https: max_policy_size must be between 256 and 65536" },
	/* issue 38: the map's TLS floor and a pin's own values */
	{ "tls_protocols typo", "map \"postfix\" {\n\ttls_protocols = "
	    "\"=>TLSv1.2\"\n}\n", 2, "map \"postfix\": tls_protocols "
	    "\"=>TLSv1.2\" has \"=>TLSv1.2\": a bound is written >=NAME or "
	    "<=NAME (Postfix 3.6 and later)" },
	{ "tls_protocols wrong case", "map \"postfix\" {\n\n\ttls_protocols "
	    "= \">=tlsv1.2\"\n}\n", 3, "map \"postfix\": tls_protocols "
	    "\">=tlsv1.2\" has \"tlsv1.2\": protocol names are "
	    "case-sensitive, write TLSv1.2" },
	{ "tls_protocols unknown version", "map \"m\" { tls_protocols = "
	    "\">=TLSv1.4\" }\n", 1, "has \"TLSv1.4\", no protocol" },
	{ "tls_protocols nothing left", "map \"m\" {\n\ttls_protocols = "
	    "\">=TLSv1.3:<=TLSv1.2\" }\n", 2, "allows no protocol at all" },
	{ "tls_protocols with spaces", "map \"m\" { tls_protocols = "
	    "\"!SSLv2 !SSLv3\" }\n", 1, "has whitespace or ','" },
	{ "tls_ciphers low", "map \"m\" {\n\ttls_ciphers = low\n}\n", 2,
	    "map \"m\": tls_ciphers \"low\" is read as medium by Postfix "
	    "3.6 and later" },
	{ "tls_ciphers unknown", "map \"m\" { tls_ciphers = strong }\n", 1,
	    "tls_ciphers \"strong\" is no cipher grade: write high or "
	    "medium" },
	{ "tls_exclude with a bang", "map \"m\" {\n\ttls_exclude = "
	    "\"!RC4\"\n}\n", 2, "tls_exclude \"!RC4\" has \"!RC4\": name "
	    "the ciphers to exclude without a leading '!'" },
	{ "pin protocols at level none", "domain \"x.example\" {\n\tlevel = "
	    "none\n\tprotocols = \">=TLSv1.2\"\n}\n", 3, "domain "
	    "\"x.example\": protocols is not valid at level none" },
	{ "pin protocols typo", "domain \"x.example\" {\n\tlevel = secure\n"
	    "\tprotocols = \"TLSv1,2\"\n}\n", 3, "domain \"x.example\": "
	    "protocols \"TLSv1,2\" has whitespace or ','" },
	{ "pin ciphers null", "domain \"x.example\" { level = verify\n"
	    "\tciphers = null }\n", 2, "domain \"x.example\": ciphers "
	    "\"null\" is no encryption" },
	{ "pin exclude empty name", "domain \"x.example\" { level = verify\n"
	    "\n\texclude = \"RC4::3DES\" }\n", 3, "domain \"x.example\": "
	    "exclude \"RC4::3DES\" has an empty cipher name between ':'" },
};

static void
errors_name_file_and_line(void **state)
{
	char	 err[TEST_ERRSZ], want[PATH_MAX + 32];
	const struct error_case *c;
	struct config *cf;
	char	*path;
	size_t	 i, n;

	(void)state;
	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		c = &error_cases[i];
		cf = load_text(c->text, err, &path);
		if (cf != NULL)
			fail_msg("%s: loaded", c->name);
		n = (size_t)snprintf(want, sizeof(want), "%s:%d: ", path,
		    c->line);
		if (strncmp(err, want, n) != 0 ||
		    strstr(err, c->msg) == NULL ||
		    strchr(err, '\n') == NULL ||
		    strstr(err, c->msg) > strchr(err, '\n'))
			fail_msg("%s: want \"%s%s\" first, got:\n%s", c->name,
			    want, c->msg, err);
		unlink(path);
		free(path);
	}
}

static void
all_errors_are_reported(void **state)
{
	char	 err[TEST_ERRSZ];
	struct config *cf;
	char	*path, *p;
	int	 lines = 0;

	(void)state;
	cf = load_text("workers = 999\nverbose = 99\n"
	    "listen \"inet:1.2.3.4:0\" { }\ndomain \"x\" { level = may }\n",
	    err, &path);
	assert_null(cf);
	for (p = err; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	assert_int_equal(lines, 4);
	assert_non_null(strstr(err, ":1: workers"));
	assert_non_null(strstr(err, ":2: verbose"));
	assert_non_null(strstr(err, ":3: listen"));
	assert_non_null(strstr(err, ":4: domain"));
	unlink(path);
	free(path);
}

static void
small_errbuf_is_terminated(void **state)
{
	char	 err[16];
	struct config *cf;
	char	*path;

	(void)state;
	path = write_temp("workers = 999\n", 14);
	memset(err, 'x', sizeof(err));
	cf = config_load(path, err, sizeof(err));
	assert_null(cf);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_memory_equal(err, path, sizeof(err) - 1);
	/* errsz 0: nothing written, still fails */
	assert_null(config_load(path, err, 0));
	unlink(path);
	free(path);
}

static void
unreadable_files(void **state)
{
	char	 err[TEST_ERRSZ], want[PATH_MAX + 64];
	const char *dir = getenv("TMPDIR");
	struct config *cf;
	char	*path;

	(void)state;
	path = write_temp("", 0);
	unlink(path);
	cf = config_load(path, err, sizeof(err));
	assert_null(cf);
	snprintf(want, sizeof(want), "%s: cannot open: ", path);
	assert_memory_equal(err, want, strlen(want));
	free(path);

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	cf = config_load(dir, err, sizeof(err));
	assert_null(cf);
	assert_non_null(strstr(err, ": not a regular file"));

	path = write_temp("user = a\0b\n", 11);
	cf = config_load(path, err, sizeof(err));
	assert_null(cf);
	snprintf(want, sizeof(want), "%s:1: NUL byte in file", path);
	assert_memory_equal(err, want, strlen(want));
	unlink(path);
	free(path);
}

static void
free_null_and_find_on_null(void **state)
{
	(void)state;
	config_free(NULL);
	assert_null(config_find_map(NULL, "postfix", 7));
	assert_null(config_find_domain(NULL, "example.com"));
	assert_string_equal(config_answer_name(CONFIG_ANSWER_NOTFOUND),
	    "notfound");
	assert_string_equal(config_answer_name(CONFIG_ANSWER_TEMP), "temp");
	assert_string_equal(config_answer_name(CONFIG_ANSWER_MAY), "may");
}

/* -- the tlsrpt section (postsmtpsts-tlsrpt(8)) ------------------------ */

static void
tlsrpt_section_loads(void **state)
{
	struct config *cf;
	char	*d1;

	(void)state;
	cf = load_ok("");
	assert_false(cf->tlsrpt.enable);	/* off by default */
	assert_string_equal(cf->tlsrpt.log, "journal");
	assert_string_equal(cf->tlsrpt.map, "postfix");
	assert_string_equal(cf->tlsrpt.state_dir, LOCALSTATEDIR
	    "/lib/postsmtpsts/tlsrpt");
	assert_int_equal(cf->tlsrpt.policy_types, CONFIG_TLSRPT_STS |
	    CONFIG_TLSRPT_TLSA | CONFIG_TLSRPT_NONE);
	assert_int_equal(cf->tlsrpt.max_report_size, 1048576);
	assert_null(cf->tlsrpt.sender);
	/* issue 36: the log is the input; who may feed it */
	assert_int_equal(cf->tlsrpt.input, CONFIG_TLSRPT_INPUT_LOG);
	assert_string_equal(cf->tlsrpt.socket,
	    "/var/spool/postfix/run/tlsrpt/tlsrpt.sock");
	assert_string_equal(cf->tlsrpt.socket_group, "postfix");
	assert_int_equal(cf->tlsrpt.ntrusted_users, 2);
	assert_string_equal(cf->tlsrpt.trusted_users[0], "postfix");
	assert_string_equal(cf->tlsrpt.trusted_users[1], "root");
	assert_null(cf->tlsrpt.trusted_users[2]);
	assert_int_equal(cf->tlsrpt.ntrusted_commands, 5);
	assert_string_equal(cf->tlsrpt.trusted_commands[0], "smtp");
	assert_int_equal(cf->tlsrpt.ntrusted_units, 0);
	config_free(cf);
	/* input = socket: the log is optional (only the own mails' lines) */
	cf = load_ok("tlsrpt {\n\tinput = \"socket\"\n\tlog = \"\"\n"
	    "\tsocket = \"/run/x/tlsrpt.sock\"\n\tsocket_group = \"mail\"\n"
	    "\ttrusted_users = { \"105\" }\n\ttrusted_commands = {}\n"
	    "\ttrusted_units = { \"postfix@*.service\" }\n}\n");
	assert_int_equal(cf->tlsrpt.input, CONFIG_TLSRPT_INPUT_SOCKET);
	assert_null(cf->tlsrpt.log);
	assert_string_equal(cf->tlsrpt.socket, "/run/x/tlsrpt.sock");
	assert_int_equal(cf->tlsrpt.ntrusted_commands, 0);
	assert_string_equal(cf->tlsrpt.trusted_units[0], "postfix@*.service");
	d1 = dump_round_trip(cf);
	assert_non_null(strstr(d1, "\tinput = \"socket\"\n"));
	assert_non_null(strstr(d1, "\ttrusted_users = { \"105\" }\n"));
	free(d1);
	config_free(cf);
	cf = load_ok("tlsrpt {\n\tenable = true\n"
	    "\torganization_name = \"Example Sender, Inc.\"\n"
	    "\tcontact_info = \"mailto:tls@sender.example\"\n"
	    "\tsubmitter = \"mail.sender.example\"\n"
	    "\tsender = \"tlsrpt-noreply@sender.example\"\n"
	    "\tlog = \"/var/log/mail.log\"\n"
	    "\tpolicy_types = { \"sts\" }\n"
	    "\tsending_mta_ip = \"2001:db8::25\"\n"
	    "\thost_id = \"mta-1.example\"\n"
	    "\tfleet_deadline = 0\n"
	    "\tsend_delay = 0\n}\n");
	assert_true(cf->tlsrpt.enable);
	assert_string_equal(cf->tlsrpt.submitter, "mail.sender.example");
	assert_string_equal(cf->tlsrpt.log, "/var/log/mail.log");
	assert_int_equal(cf->tlsrpt.policy_types, CONFIG_TLSRPT_STS);
	assert_string_equal(cf->tlsrpt.sending_mta_ip, "2001:db8::25");
	assert_int_equal(cf->tlsrpt.send_delay, 0);
	assert_string_equal(cf->tlsrpt.host_id, "mta-1.example");
	assert_int_equal(cf->tlsrpt.fleet_deadline, 0);
	d1 = dump_round_trip(cf);
	assert_non_null(strstr(d1, "\tpolicy_types = { \"sts\" }\n"));
	assert_non_null(strstr(d1, "\thost_id = \"mta-1.example\"\n"));
	assert_non_null(strstr(d1, "\tfleet_deadline = 0\n"));
	free(d1);
	config_free(cf);
}

/* fleet_host_id_ok - s is 1-64 of [A-Za-z0-9._-] */
static int
fleet_host_id_ok(const char *s)
{
	size_t	 n = strlen(s);

	return (n >= 1 && n <= CONFIG_MAX_TLSRPT_HOST_ID && strspn(s,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	    "._-") == n);
}

static void
tlsrpt_errors(void **state)
{
	char	 err[TEST_ERRSZ];
	struct config *cf;

	(void)state;
	cf = load_text("tlsrpt {\n\tenable = true\n"
	    "\tsender = \"a\\nb@c.example\"\n"
	    "\tsubmitter = \"192.0.2.1\"\n"
	    "\tpolicy_types = { \"sts\", \"dane\" }\n"
	    "\tmap = \"nope\"\n"
	    "\tmax_report_size = 100\n}\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, "organization_name must be set"));
	assert_non_null(strstr(err, "contact_info must be set"));
	assert_non_null(strstr(err, ":3: tlsrpt: sender must be printable"));
	assert_non_null(strstr(err, ":4: tlsrpt: submitter \"192.0.2.1\" is "
	    "not a domain name"));
	assert_non_null(strstr(err, ":5: tlsrpt: policy type \"dane\""));
	assert_non_null(strstr(err, ":6: tlsrpt: no map \"nope\""));
	assert_non_null(strstr(err, ":7: tlsrpt: max_report_size must be"));
	/* issue 36: the input and who may feed it */
	cf = load_text("tlsrpt {\n\tinput = \"pipe\"\n"
	    "\tsocket = \"relative.sock\"\n"
	    "\tsocket_group = \"a b\"\n"
	    "\ttrusted_users = { \"post fix\" }\n"
	    "\ttrusted_commands = { \"smtp\", \"\" }\n"
	    "\ttrusted_units = { \"a\tb\" }\n}\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, ":2: tlsrpt: input \"pipe\" is not log or "
	    "socket"));
	assert_non_null(strstr(err, ":3: "));
	assert_non_null(strstr(err, ":4: tlsrpt: socket_group \"a b\" is not "
	    "a valid user or group name"));
	assert_non_null(strstr(err, ":5: tlsrpt: trusted_users \"post fix\": "
	    "not a user name"));
	assert_non_null(strstr(err, ":5: tlsrpt: trusted_users: at least one"));
	assert_non_null(strstr(err, ":6: tlsrpt: trusted_commands \"\": must "
	    "be 1 to 255 bytes"));
	assert_non_null(strstr(err, ":7: tlsrpt: trusted_units \"a\\x09b\": "
	    "must be printable"));
	/* issue 39: the host's name in the fleet, the fleet's deadline */
	cf = load_text("tlsrpt {\n\thost_id = \"mta 1\"\n"
	    "\tfleet_deadline = -1\n}\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, ":2: tlsrpt: host_id \"mta 1\" must be "
	    "1-64 of A-Z a-z 0-9 . _ -"));
	assert_non_null(strstr(err, ":3: "));
	/* unset: the host name, cut to what a host id may hold */
	cf = load_ok("tlsrpt { }\n");
	assert_non_null(cf->tlsrpt.host_id);
	assert_true(fleet_host_id_ok(cf->tlsrpt.host_id));
	assert_int_equal(cf->tlsrpt.fleet_deadline, 21600);
	config_free(cf);
	/* a log is required with input = log */
	cf = load_text("tlsrpt { log = \"\" }\n", err, NULL);
	assert_null(cf);
	/* a socket path longer than sun_path */
	cf = load_text("tlsrpt { input = \"socket\" socket = \"/"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock"
	    "\" }\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, "a unix socket's path is at most 107"));
	/* checked even while off: -t finds it before the switch is on */
	cf = load_text("tlsrpt { sender = \"-oQ@x.example\" }\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, "is not an address local@domain"));
	/*
	 * ... but not the map: while off, a configuration whose maps have
	 * other names loads as it did before the tlsrpt section
	 */
	cf = load_ok("map \"sts\" {\n\tdane = no\n}\n");
	assert_null(config_find_map(cf, "postfix", 7));
	assert_false(cf->tlsrpt.enable);
	config_free(cf);
}

/* tlsrpt.report_allow_addresses: empty by default, CIDR networks
 * normalized in the dump, each mistake at its own line */
static void
tlsrpt_report_allow_addresses(void **state)
{
	char		 err[TEST_ERRSZ], a[ADDRCLASS_NET_MAX];
	struct config	*cf;
	char		*d1;

	(void)state;
	cf = load_ok("");
	assert_int_equal(cf->tlsrpt.nreport_allow_addresses, 0);
	d1 = dump_round_trip(cf);
	assert_non_null(strstr(d1, "\treport_allow_addresses = {}\n"));
	free(d1);
	config_free(cf);
	cf = load_ok("tlsrpt {\n\treport_allow_addresses = { \"10.0.0.0/8\", "
	    "\"127.0.0.1\", \"FD00::/8\" }\n}\n");
	assert_int_equal(cf->tlsrpt.nreport_allow_addresses, 3);
	assert_string_equal(addrclass_format(&cf->tlsrpt.report_allow_addresses[
	    0], a, sizeof(a)), "10.0.0.0/8");
	assert_string_equal(addrclass_format(&cf->tlsrpt.report_allow_addresses[
	    1], a, sizeof(a)), "127.0.0.1/32");
	d1 = dump_round_trip(cf);
	assert_non_null(strstr(d1, "\treport_allow_addresses = { \"10.0.0.0/8\", "
	    "\"127.0.0.1/32\", \"fd00::/8\" }\n"));
	free(d1);
	config_free(cf);
	cf = load_text("tlsrpt {\n\treport_allow_addresses = {\n"
	    "\t\t\"10.0.0.1/8\",\n"
	    "\t\t\"collector.example\",\n"
	    "\t\t\"::/129\"\n\t}\n}\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, ":3: tlsrpt: report_allow_addresses "
	    "\"10.0.0.1/8\": host bits are set"));
	assert_non_null(strstr(err, ":4: tlsrpt: report_allow_addresses "
	    "\"collector.example\": not an IPv4 or IPv6 address"));
	assert_non_null(strstr(err, ":5: tlsrpt: report_allow_addresses "
	    "\"::/129\": the prefix length is over 128"));
}

/* -- the fleet section (fleet.h) ---------------------------------------- */

/* secret_file - a 0600 file holding text; the caller unlinks and frees */
static char *
secret_file(const char *text)
{
	return (write_temp(text, strlen(text)));
}

static void
fleet_section_loads(void **state)
{
	char	*key = secret_file("0123456789abcdef0123456789abcdef\n");
	char	*pw = secret_file("s3cret\n");
	char	 text[1024], *d1;
	struct config *cf;

	(void)state;
	cf = load_ok("");
	assert_false(cf->fleet.enabled);	/* no servers: off */
	config_free(cf);
	snprintf(text, sizeof(text), "fleet {\n"
	    "\tservers = { \"127.0.0.1:6379\", \"[::1]:6380\", "
	    "\"/run/redis/redis.sock\" }\n"
	    "\tmode = read-only\n\tprefix = \"mta:\"\n"
	    "\ttimeout = 0.05\n\tlease = 20\n\tgrace = 600\n"
	    "\tuser = postsmtpsts\n\tpassword_file = \"%s\"\n"
	    "\tkey_file = \"%s\"\n}\n", pw, key);
#ifndef HAVE_FLEET
	/* a build without hiredis refuses the section, at its line */
	{
		char	 err[TEST_ERRSZ];

		assert_null(load_text(text, err, NULL));
		assert_non_null(strstr(err, ":2: fleet: this postsmtpsts "
		    "was built without the fleet tier"));
	}
	unlink(key);
	unlink(pw);
	free(key);
	free(pw);
	return;
#endif
	cf = load_ok(text);
	assert_true(cf->fleet.enabled);
	assert_int_equal(cf->fleet.nservers, 3);
	assert_string_equal(cf->fleet.servers[0].host, "127.0.0.1");
	assert_int_equal(cf->fleet.servers[0].port, 6379);
	assert_string_equal(cf->fleet.servers[1].host, "::1");
	assert_int_equal(cf->fleet.servers[1].port, 6380);
	assert_string_equal(cf->fleet.servers[2].path,
	    "/run/redis/redis.sock");
	assert_int_equal(cf->fleet.mode, CONFIG_FLEET_READ_ONLY);
	assert_string_equal(cf->fleet.prefix, "mta:");
	assert_int_equal(cf->fleet.timeout_ms, 50);
	assert_int_equal(cf->fleet.lease, 20);
	assert_int_equal(cf->fleet.grace, 600);
	assert_string_equal(cf->fleet.user, "postsmtpsts");
	assert_string_equal(cf->fleet.password, "s3cret");	/* no \n */
	assert_int_equal(cf->fleet.keylen, 32);
	assert_memory_equal(cf->fleet.key, "0123456789abcdef", 16);
	/* the dump names the files, never the secrets, and loads back */
	d1 = dump_round_trip(cf);
	assert_null(strstr(d1, "s3cret"));
	assert_null(strstr(d1, "0123456789abcdef0123"));
	free(d1);
	config_free(cf);
	unlink(key);
	unlink(pw);
	free(key);
	free(pw);
}

/* sentinels name the master: parsed, dumped and loaded back */
static void
fleet_sentinels_load(void **state)
{
	struct config *cf;
	char	*d1;

	(void)state;
#ifndef HAVE_FLEET
	return;
#endif
	cf = load_ok("fleet {\n\tsentinels = { \"127.0.0.1:26379\", "
	    "\"[::1]:26380\" }\n\tmaster_name = \"mta-fleet\"\n}\n");
	assert_true(cf->fleet.enabled);
	assert_int_equal(cf->fleet.nservers, 0);
	assert_int_equal(cf->fleet.nsentinels, 2);
	assert_string_equal(cf->fleet.sentinels[0].host, "127.0.0.1");
	assert_int_equal(cf->fleet.sentinels[0].port, 26379);
	assert_string_equal(cf->fleet.sentinels[1].host, "::1");
	assert_string_equal(cf->fleet.master_name, "mta-fleet");
	d1 = dump_round_trip(cf);
	assert_non_null(strstr(d1, "sentinels = {\"127.0.0.1:26379\", "
	    "\"[::1]:26380\"}"));
	free(d1);
	config_free(cf);
}

static void
fleet_errors_name_file_and_line(void **state)
{
	char	*shortkey = secret_file("tooshort");
	char	*open_pw = secret_file("pw");
	char	 err[TEST_ERRSZ], want[PATH_MAX + 32], text[1024];
	struct config *cf;
	char	*path;
	size_t	 i, n;
	const struct {
		const char	*name;
		const char	*fmt;	/* %s: the file used */
		const char	*file;
		int		 line;
		const char	*msg;
	} t[] = {
		{ "server without port", "\nfleet {\n servers = "
		    "{\"127.0.0.1\"}\n}\n", NULL, 3,
		    "fleet: server \"127.0.0.1\" is neither /path nor host:port" },
		{ "server name, not address", "fleet {\n servers = "
		    "{\"redis.example:6379\"}\n}\n", NULL, 2,
		    "has no IPv4 or IPv6 address" },
		{ "port out of range", "fleet {\n\n servers = "
		    "{\"127.0.0.1:70000\"}\n}\n", NULL, 3,
		    "has no valid port" },
		{ "relative socket", "fleet {\n servers = {\"redis.sock:1\"}"
		    "\n}\n", NULL, 2, "address" },
		{ "bad mode", "fleet {\n servers = {\"127.0.0.1:1\"}\n"
		    " mode = write-only\n}\n", NULL, 3,
		    "fleet: mode \"write-only\" is not read-write or "
		    "read-only" },
		{ "bad prefix", "fleet {\n servers = {\"127.0.0.1:1\"}\n"
		    " prefix = \"a b\"\n}\n", NULL, 3, "fleet: prefix" },
		{ "zero timeout", "fleet {\n timeout = 0\n}\n", NULL, 2,
		    "fleet: timeout must be between" },
		{ "lease_wait over lease", "fleet {\n lease = 2\n"
		    " lease_wait = 5\n}\n", NULL, 3,
		    "fleet: lease_wait is longer than the lease" },
		{ "missing key file", "fleet {\n key_file = "
		    "\"/nonexistent/fleet.key\"\n}\n", NULL, 2,
		    "fleet: key_file /nonexistent/fleet.key: No such file" },
		{ "short key", "fleet {\n\n key_file = \"%s\"\n}\n",
		    "shortkey", 3, "is too short" },
		{ "password readable by others", "fleet {\n password_file = "
		    "\"%s\"\n}\n", "open_pw", 2, "readable by others" },
		{ "user without password", "fleet {\n user = mta\n}\n",
		    NULL, 2, "fleet: user needs a password_file" },
		{ "servers and sentinels", "fleet {\n servers = "
		    "{\"127.0.0.1:1\"}\n\n sentinels = {\"127.0.0.1:2\"}\n"
		    " master_name = m\n}\n", NULL, 4,
		    "fleet: servers and sentinels exclude each other" },
		{ "sentinels without master_name", "fleet {\n sentinels = "
		    "{\"127.0.0.1:26379\"}\n}\n", NULL, 2,
		    "fleet: sentinels need master_name" },
		{ "master_name without sentinels", "fleet {\n\n"
		    " master_name = m\n}\n", NULL, 3,
		    "fleet: master_name without sentinels" },
		{ "bad master_name", "fleet {\n sentinels = "
		    "{\"127.0.0.1:26379\"}\n master_name = \"a b\"\n}\n",
		    NULL, 3, "fleet: master_name \"a b\" may hold" },
		{ "sentinel without port", "fleet {\n sentinels = "
		    "{\"127.0.0.1\"}\n master_name = m\n}\n", NULL, 2,
		    "fleet: sentinel \"127.0.0.1\" is neither" },
	};

	(void)state;
	chmod(open_pw, 0644);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* the one "%s" in fmt: the file, if any */
		const char *pct = strstr(t[i].fmt, "%s");
		const char *file = t[i].file == NULL ? "" :
		    strcmp(t[i].file, "shortkey") == 0 ? shortkey : open_pw;

		if (pct == NULL)
			snprintf(text, sizeof(text), "%s", t[i].fmt);
		else
			snprintf(text, sizeof(text), "%.*s%s%s",
			    (int)(pct - t[i].fmt), t[i].fmt, file, pct + 2);
		cf = load_text(text, err, &path);
		if (cf != NULL)
			fail_msg("%s: loaded", t[i].name);
		n = (size_t)snprintf(want, sizeof(want), "%s:%d: ", path,
		    t[i].line);
		if (strncmp(err, want, n) != 0 || strstr(err, t[i].msg) == NULL)
			fail_msg("%s: want \"%s...%s\", got:\n%s", t[i].name,
			    want, t[i].msg, err);
		unlink(path);
		free(path);
	}
	unlink(shortkey);
	unlink(open_pw);
	free(shortkey);
	free(open_pw);
}

/* -- the preload section (issue 38) ----------------------------------- */

static const char preload_text[] =
    "preload {\n"
    "\tkeyring = \"/etc/postsmtpsts/preload.gpg\"\n"
    "\trefresh_interval = 43200\n"
    "\ttimeout = 30\n"
    "\tlist \"eff\" {\n"
    "\t\tsource = \"https://dl.eff.org/starttls-everywhere/policy.json\"\n"
    "\t\tfingerprint = \"b693 f33f 2aa1 3e5b 1d97 5a24 4af5 fc82 5a3e 0c2a\"\n"
    "\t}\n"
    "\tlist \"ours\" {\n"
    "\t\tsource = \"/etc/postsmtpsts/ours.json\"\n"
    "\t\ttrusted = true\n"
    "\t}\n"
    "}\n";

static void
preload_section_loads(void **state)
{
	struct config *cf;
	char	*d1, *d2;

	(void)state;
	cf = load_ok("");
	assert_string_equal(cf->preload.path, LOCALSTATEDIR
	    "/lib/postsmtpsts/preload");
	assert_null(cf->preload.keyring);
	assert_int_equal(cf->preload.refresh_interval, 86400);
	assert_int_equal(cf->preload.timeout, CONFIG_PRELOAD_DEFAULT_TIMEOUT);
	assert_int_equal(cf->preload.nlists, 0);
	config_free(cf);
	cf = load_ok(preload_text);
	assert_string_equal(cf->preload.keyring,
	    "/etc/postsmtpsts/preload.gpg");
	assert_int_equal(cf->preload.refresh_interval, 43200);
	assert_int_equal(cf->preload.timeout, 30);
	assert_int_equal(cf->preload.nlists, 2);
	assert_string_equal(cf->preload.lists[0].name, "eff");
	assert_string_equal(cf->preload.lists[0].source,
	    "https://dl.eff.org/starttls-everywhere/policy.json");
	assert_null(cf->preload.lists[0].signature);
	assert_null(cf->preload.lists[0].keyring);
	assert_string_equal(cf->preload.lists[0].fingerprint,
	    "B693F33F2AA13E5B1D975A244AF5FC825A3E0C2A");
	assert_false(cf->preload.lists[0].trusted);
	assert_int_equal(cf->preload.lists[0].line, 5);
	assert_string_equal(cf->preload.lists[1].source,
	    "/etc/postsmtpsts/ours.json");
	assert_true(cf->preload.lists[1].trusted);
	d1 = dump_text(cf);
	assert_non_null(strstr(d1, "\tlist \"ours\" {\n\t\tsource = "
	    "\"/etc/postsmtpsts/ours.json\"\n"));
	config_free(cf);
	cf = load_ok(d1);
	d2 = dump_text(cf);
	assert_string_equal(d1, d2);
	free(d1);
	free(d2);
	config_free(cf);
}

static void
preload_errors(void **state)
{
	char	 err[TEST_ERRSZ];
	struct config *cf;

	(void)state;
	cf = load_text("preload {\n"
	    "\trefresh_interval = 172801\n"
	    "\ttimeout = 0\n"
	    "\tlist \"a b\" {\n\t\tsource = \"/x.json\"\n"
	    "\t\ttrusted = true\n\t}\n"
	    "\tlist \"url\" {\n"
	    "\t\tsource = \"https://example.org/p.json\"\n"
	    "\t\ttrusted = true\n\t}\n"
	    "\tlist \"rel\" {\n\t\tsource = \"p.json\"\n"
	    "\t\tfingerprint = \"abc\"\n\t}\n"
	    "\tlist \"none\" {\n\t}\n"
	    "}\n", err, NULL);
	assert_null(cf);
	assert_non_null(strstr(err, ":2: preload: refresh_interval"));
	assert_non_null(strstr(err, ":3: preload: timeout"));
	assert_non_null(strstr(err, ":4: preload list \"a b\": a list name "
	    "is 1 to 32"));
	assert_non_null(strstr(err, ":10: preload list \"url\": trusted is "
	    "for a local file"));
	assert_non_null(strstr(err, ":13: preload list \"rel\": source "
	    "\"p.json\": neither an https:// URL nor"));
	assert_non_null(strstr(err, ":14: preload list \"rel\": fingerprint: "
	    "40 or 64 hex digits"));
	assert_non_null(strstr(err, ":12: preload list \"rel\": no keyring"));
	assert_non_null(strstr(err, ":16: preload list \"none\": no source"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_file_gives_defaults),
		cmocka_unit_test(workers_zero_is_online_cpus),
		cmocka_unit_test(full_file_sets_every_field),
		cmocka_unit_test(refresh_concurrency_follows_max_resolutions),
		cmocka_unit_test(example_file_loads),
		cmocka_unit_test(answers_are_composed),
		cmocka_unit_test(many_domains_bsearch),
		cmocka_unit_test(dump_loads_back_identically),
		cmocka_unit_test(tls_floor_loads),
		cmocka_unit_test(history_file_values),
		cmocka_unit_test(comments_keep_line_numbers),
		cmocka_unit_test(url_with_slashes_is_not_a_comment),
		cmocka_unit_test(errors_name_file_and_line),
		cmocka_unit_test(all_errors_are_reported),
		cmocka_unit_test(small_errbuf_is_terminated),
		cmocka_unit_test(unreadable_files),
		cmocka_unit_test(free_null_and_find_on_null),
		cmocka_unit_test(tlsrpt_section_loads),
		cmocka_unit_test(tlsrpt_errors),
		cmocka_unit_test(tlsrpt_report_allow_addresses),
		cmocka_unit_test(fleet_section_loads),
		cmocka_unit_test(fleet_errors_name_file_and_line),
		cmocka_unit_test(fleet_sentinels_load),
		cmocka_unit_test(preload_section_loads),
		cmocka_unit_test(preload_errors),
	};

	return (cmocka_run_group_tests_name("config", tests, NULL, NULL));
}
