/*
 * test_https.c - https.c (every fetch through libcurl) and trust.c: the
 * media type check, transfers that must fail before any byte is sent, and
 * real transfers against "openssl s_server -WWW" on <net>.86.1 and .2
 * (port 443) with a CA made for the test: a body without Content-Length
 * that grows past HTTPS_MAX_BODY, the same under a lowered
 * https.max_policy_size, a good one, a wrong certificate name, an unknown
 * CA.  An eager server (openssl s_server fed a complete response on its
 * standard input, so it pushes it right after the handshake, and logging
 * what it receives) shows that a peer which fails verification never gets
 * the request and never gets a byte to the caller; fed other responses,
 * that a chunked body is decoded and a body cut short of its
 * Content-Length refused.  The connect path: a refusing address passes the
 * turn to the next, and a server that never speaks TLS is a timeout at
 * the connect timeout.
 *
 * Hostile hosts (issue 26), served by tests/world/hostile-tls (GnuTLS) on
 * <net>.86.4, host and behaviour chosen by SNI: warning alerts, and
 * separately HelloRequests, in large batches after the handshake (the
 * fetch fails by its timeout at the latest while a 100 ms timer on the same
 * event base keeps firing); an unframed body cut by a FIN without
 * close_notify (an error) and the same body ended by close_notify (a
 * policy); an RSA-768 leaf; a must-staple leaf without a staple, with a
 * good and with a revoked staple, and a revoked staple on a plain leaf; a
 * warning alert inside the handshake (a policy); a 1 MiB header section.
 * Everything listens on <net> = $WORLD_NET or 127.0 and skips only when
 * openssl, hostile-tls or port 443 (not root) is missing.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "lib/config.h"
#include "lib/https.h"

struct outcome {
	int		 calls;
	enum https_error error;
	char		 detail[256];
	struct event_base *base;
	long		 status;
	size_t		 body_len;
	char		 content_type[64];
};

/*
 * The servers' addresses are <net>.86.1 (serves 70000 bytes, no length) and
 * <net>.86.2 (serves a valid policy), <net> = $WORLD_NET or 127.0, so that
 * test runs with different test worlds (tests/world/README.md) can overlap.
 */
static char		 srv_big_addr[32], srv_small_addr[32];
#define SRV_BIG_ADDR	srv_big_addr
#define SRV_SMALL_ADDR	srv_small_addr
#define SRV_BIG_SIZE	70000

struct server {
	char	 dir[64];
	pid_t	 pid[2];
	int	 up;
	pid_t	 hostile_pid;		/* tests/world/hostile-tls */
	int	 hostile_up;
	char	 hostile_addr[32];	/* <net>.86.4 */
};

/* argv[0], to find hostile-tls beside this program's build directory */
static const char	*test_argv0;

static struct server	 srv;

static const char srv_script[] =
    "set -e; cd %s; "
    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
    "-keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca; "
    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
    "-keyout srv.key -out srv.csr -subj /CN=mta-sts.big.test; "
    "printf 'subjectAltName=DNS:mta-sts.big.test,DNS:mta-sts.small.test\\n'"
    " >ext; "
    "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
    "-CAcreateserial -out srv.pem -days 2 -extfile ext; "
    "mkdir -p big/.well-known small/.well-known; "
    "head -c %d /dev/zero | tr '\\0' a >big/.well-known/mta-sts.txt; "
    "printf 'version: STSv1\\nmode: testing\\nmx: mx.small.test\\n"
    "max_age: 600\\n' >small/.well-known/mta-sts.txt";

/*
 * The hostile hosts' certificates, OCSP responses and hostile-tls's
 * configuration (run in the test's directory, not a format string)
 */
static const char hostile_script[] =
    /* hostile-tls: a leaf for the misbehaving hosts */
    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
    "-keyout hostile.key -out hostile.csr -subj /CN=mta-sts.flood.test; "
    "printf 'subjectAltName=DNS:mta-sts.flood.test,DNS:mta-sts.hello.test,"
    "DNS:mta-sts.cut.test,DNS:mta-sts.bye.test,DNS:mta-sts.warn.test,"
    "DNS:mta-sts.hdr.test,DNS:mta-sts.revoked.test\\n' >ext; "
    "openssl x509 -req -in hostile.csr -CA ca.pem -CAkey ca.key "
    "-CAcreateserial -out hostile.pem -days 2 -extfile ext; "
    /* an RSA-768 leaf (below every GnuTLS verification profile) */
    "openssl req -newkey rsa:768 -nodes -keyout rsa768.key "
    "-out rsa768.csr -subj /CN=mta-sts.rsa768.test; "
    "printf 'subjectAltName=DNS:mta-sts.rsa768.test\\n' >ext; "
    "openssl x509 -req -in rsa768.csr -CA ca.pem -CAkey ca.key "
    "-CAcreateserial -out rsa768.pem -days 2 -extfile ext; "
    /* a must-staple leaf (RFC 7633), OCSP responses good and revoked for
     * it and a revoked one for hostile.pem, signed by the CA itself */
    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
    "-keyout staple.key -out staple.csr -subj /CN=mta-sts.staple.test; "
    "printf 'subjectAltName=DNS:mta-sts.staple.test,"
    "DNS:mta-sts.nostaple.test,DNS:mta-sts.staple-revoked.test\\n"
    "tlsfeature=status_request\\n' >ext; "
    "openssl x509 -req -in staple.csr -CA ca.pem -CAkey ca.key "
    "-CAcreateserial -out staple.pem -days 2 -extfile ext; "
    "s=$(openssl x509 -in staple.pem -noout -serial | cut -d= -f2); "
    "h=$(openssl x509 -in hostile.pem -noout -serial | cut -d= -f2); "
    "printf 'V\\t300101000000Z\\t\\t%s\\tunknown\\t/CN=s\\n' $s >good.idx; "
    "printf 'R\\t300101000000Z\\t240101000000Z\\t%s\\tunknown\\t/CN=s\\n"
    "R\\t300101000000Z\\t240101000000Z\\t%s\\tunknown\\t/CN=h\\n' $s $h "
    ">revoked.idx; "
    "openssl ocsp -index good.idx -rsigner ca.pem -rkey ca.key -CA ca.pem "
    "-issuer ca.pem -cert staple.pem -respout staple-good.der -ndays 2; "
    "openssl ocsp -index revoked.idx -rsigner ca.pem -rkey ca.key "
    "-CA ca.pem -issuer ca.pem -cert staple.pem "
    "-respout staple-revoked.der -ndays 2; "
    "openssl ocsp -index revoked.idx -rsigner ca.pem -rkey ca.key "
    "-CA ca.pem -issuer ca.pem -cert hostile.pem "
    "-respout hostile-revoked.der -ndays 2; "
    "printf 'version: STSv1\\nmode: enforce\\nmx: mx.hostile.test\\n"
    "max_age: 600\\n' >hostile.txt; "
    "for h in flood:alert-flood hello:hello-flood cut:unframed-cut "
    "bye:unframed-bye warn:hs-warning hdr:header-flood; do "
    "printf 'mta-sts.%s.test\\t%s\\thostile.pem\\thostile.key\\t"
    "hostile.txt\\t-\\n' ${h%%:*} ${h#*:}; done >hostile.conf; "
    "printf 'mta-sts.revoked.test\\tnormal\\thostile.pem\\thostile.key\\t"
    "hostile.txt\\thostile-revoked.der\\n"
    "mta-sts.rsa768.test\\tnormal\\trsa768.pem\\trsa768.key\\t"
    "hostile.txt\\t-\\n"
    "mta-sts.nostaple.test\\tnormal\\tstaple.pem\\tstaple.key\\t"
    "hostile.txt\\t-\\n"
    "mta-sts.staple.test\\tnormal\\tstaple.pem\\tstaple.key\\t"
    "hostile.txt\\tstaple-good.der\\n"
    "mta-sts.staple-revoked.test\\tnormal\\tstaple.pem\\tstaple.key\\t"
    "hostile.txt\\tstaple-revoked.der\\n' >>hostile.conf";

/* srv_spawn - openssl s_server -WWW in dir/sub on addr:443 */
static pid_t
srv_spawn(const char *sub, const char *addr)
{
	char	 accept[64], docroot[128];
	pid_t	 pid;

	snprintf(accept, sizeof(accept), "%s:443", addr);
	snprintf(docroot, sizeof(docroot), "%s/%s", srv.dir, sub);
	if ((pid = fork()) == -1)
		return (-1);
	if (pid == 0) {
		if (chdir(docroot) == -1 || freopen("/dev/null", "w",
		    stdout) == NULL || freopen("/dev/null", "w", stderr) ==
		    NULL)
			_exit(127);
		execlp("openssl", "openssl", "s_server", "-quiet", "-WWW",
		    "-accept", accept, "-cert", "../srv.pem", "-key",
		    "../srv.key", (char *)NULL);
		_exit(127);
	}
	return (pid);
}

/* srv_listening - wait up to 3 s until addr:443 accepts connections */
static int
srv_listening(const char *addr)
{
	struct sockaddr_in sin;
	int	 i, fd, ok;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(443);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	for (i = 0; i < 60; i++) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			return (0);
		ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
		close(fd);
		if (ok)
			return (1);
		usleep(50000);
	}
	return (0);
}

/*
 * hostile_spawn - tests/world/hostile-tls (built by make, found through
 * $top_builddir or beside this program) on <net>.86.4:443 with the
 * configuration hostile_script wrote; srv.hostile_up when it listens
 */
static void
hostile_spawn(const char *net)
{
	char		 bin[512], abs[PATH_MAX], pidfile[128], line[32];
	const char	*top, *slash;
	FILE		*fp;
	pid_t		 pid;
	int		 i;

	snprintf(srv.hostile_addr, sizeof(srv.hostile_addr), "%s.86.4", net);
	bin[0] = '\0';
	if ((top = getenv("top_builddir")) != NULL)
		snprintf(bin, sizeof(bin), "%s/tests/world/hostile-tls", top);
	if ((bin[0] == '\0' || access(bin, X_OK) == -1) &&
	    test_argv0 != NULL && (slash = strrchr(test_argv0, '/')) != NULL)
		snprintf(bin, sizeof(bin), "%.*s/../world/hostile-tls",
		    (int)(slash - test_argv0), test_argv0);
	if (bin[0] == '\0' || access(bin, X_OK) == -1 ||
	    realpath(bin, abs) == NULL)
		return;			/* not built: those tests skip */
	snprintf(pidfile, sizeof(pidfile), "%s/hostile.pid", srv.dir);
	if ((pid = fork()) == -1)
		return;
	if (pid == 0) {
		if (chdir(srv.dir) == -1 || freopen("hostile.err", "w",
		    stderr) == NULL || freopen("/dev/null", "w", stdout) ==
		    NULL)
			_exit(127);
		execl(abs, "hostile-tls", "hostile.conf", srv.hostile_addr,
		    "443", "hostile.pid", "hostile.log", "1000", (char *)NULL);
		_exit(127);
	}
	srv.hostile_pid = pid;
	/* it writes its pid file once it listens: no probe connection */
	for (i = 0; i < 60 && !srv.hostile_up; i++) {
		if ((fp = fopen(pidfile, "r")) != NULL) {
			srv.hostile_up = fgets(line, sizeof(line), fp) != NULL &&
			    atol(line) == (long)pid;
			fclose(fp);
		}
		if (!srv.hostile_up)
			usleep(50000);
	}
}

static int
srv_setup(void **state)
{
	char		 cmd[8192];
	const char	*net;

	(void)state;
	if ((net = getenv("WORLD_NET")) == NULL || strlen(net) > 8 ||
	    strncmp(net, "127.", 4) != 0)
		net = "127.0";
	snprintf(srv_big_addr, sizeof(srv_big_addr), "%s.86.1", net);
	snprintf(srv_small_addr, sizeof(srv_small_addr), "%s.86.2", net);
	memset(&srv, 0, sizeof(srv));
	snprintf(srv.dir, sizeof(srv.dir), "/tmp/test_https.XXXXXX");
	if (mkdtemp(srv.dir) == NULL)
		return (0);
	snprintf(cmd, sizeof(cmd), srv_script, srv.dir, SRV_BIG_SIZE);
	if (system(cmd) != 0)
		return (0);		/* no openssl: the tests skip */
	srv.pid[0] = srv_spawn("big", SRV_BIG_ADDR);
	srv.pid[1] = srv_spawn("small", SRV_SMALL_ADDR);
	srv.up = srv.pid[0] > 0 && srv.pid[1] > 0 &&
	    srv_listening(SRV_BIG_ADDR) && srv_listening(SRV_SMALL_ADDR);
	snprintf(cmd, sizeof(cmd), "set -e; cd %s; %s", srv.dir,
	    hostile_script);
	if (srv.up && system(cmd) == 0)
		hostile_spawn(net);
	return (0);
}

static int
srv_teardown(void **state)
{
	char	 cmd[128];
	int	 i;

	(void)state;
	for (i = 0; i < 2; i++)
		if (srv.pid[i] > 0) {
			kill(srv.pid[i], SIGTERM);
			waitpid(srv.pid[i], NULL, 0);
		}
	if (srv.hostile_pid > 0) {
		kill(srv.hostile_pid, SIGTERM);
		waitpid(srv.hostile_pid, NULL, 0);
	}
	if (srv.dir[0] != '\0' && strncmp(srv.dir, "/tmp/test_https.",
	    16) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", srv.dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", srv.dir);
	}
	return (0);
}

static void
media_types(void **state)
{
	static const struct {
		const char	*ct;
		int		 ok;
	} t[] = {
		{ "text/plain", 1 },
		{ "TEXT/Plain", 1 },
		{ "text/plain; charset=utf-8", 1 },
		{ "text/plain;charset=utf-8", 1 },
		{ " text/plain ", 1 },
		{ "text/plain\t; format=flowed", 1 },
		{ "text/html", 0 },
		{ "text/plainx", 0 },
		{ "text/plain-x", 0 },
		{ "text/plai", 0 },
		{ "application/octet-stream", 0 },
		{ "", 0 },
		{ "text / plain", 0 },
	};
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (https_media_type_ok(t[i].ct, strlen(t[i].ct)) != t[i].ok)
			fail_msg("\"%s\": expected %d", t[i].ct, t[i].ok);
	/* explicit length: bytes past len are not looked at */
	assert_true(https_media_type_ok("text/plainXYZ", 10));
}

static void
record(const struct https_result *res, void *arg)
{
	struct outcome	*o = arg;

	o->calls++;
	o->error = res->error;
	o->status = res->status;
	o->body_len = res->body_len;
	snprintf(o->detail, sizeof(o->detail), "%s", res->detail);
	snprintf(o->content_type, sizeof(o->content_type), "%s",
	    res->content_type != NULL ? res->content_type : "");
	event_base_loopbreak(o->base);
}

/* https.max_policy_size for the next run_fetch_ca(); 0 = the default */
static size_t		 fetch_max_body;

static void
run_fetch_ca(const char *host, const char *const *addrs, size_t n,
    const char *ca_file, struct outcome *o)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	char		 err[256];
	struct timeval	 tv = { 10, 0 };

	memset(&cf, 0, sizeof(cf));
	cf.ca_file = (char *)ca_file;
	cf.timeout = 8;
	cf.max_policy_size = fetch_max_body;
	memset(o, 0, sizeof(*o));
	o->base = base;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	https_fetch(h, host, addrs, n, record, o);
	assert_int_equal(o->calls, 0);		/* never from inside */
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	https_free(h);
	event_base_free(base);
}

static void
run_fetch(const char *host, const char *const *addrs, size_t n,
    struct outcome *o)
{
	run_fetch_ca(host, addrs, n, NULL, o);
}

static void
no_address_fails_without_resolving(void **state)
{
	const char	*addrs[] = { "mta-sts.example.com", "not-an-ip" };
	struct outcome	 o;

	(void)state;
	run_fetch("mta-sts.example.com", addrs, 2, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_CONNECT);
	assert_non_null(strstr(o.detail, "no usable address"));
}

static void
invalid_host_is_refused(void **state)
{
	const char	*addrs[] = { "127.0.0.1" };
	struct outcome	 o;

	(void)state;
	run_fetch("evil.example/@x", addrs, 1, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_OTHER);
}

/*
 * closed_port_hold - an address whose port 443 is known closed, whatever
 * else runs on the machine: a TCP socket bound to addr:443 that never
 * listens makes the kernel refuse every connection to it (RST), and no
 * other process can listen there while the socket is held.  Tries
 * <net>.86.9 .. <net>.86.40; without the privilege to bind port 443 (not
 * root), an address where a connection is refused right now.  Returns the
 * socket to close afterwards (-1 when only probed) and sets *found.
 */
static int
closed_port_hold(char *addr, size_t addrsz, int *found)
{
	struct sockaddr_in sin;
	const char	*net;
	int		 i, fd, refused;

	*found = 0;
	if ((net = getenv("WORLD_NET")) == NULL || strlen(net) > 8 ||
	    strncmp(net, "127.", 4) != 0)
		net = "127.0";
	for (i = 9; i <= 40; i++) {
		snprintf(addr, addrsz, "%s.86.%d", net, i);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(443);
		if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
			return (-1);
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			return (-1);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
			*found = 1;
			return (fd);
		}
		refused = errno == EACCES && connect(fd,
		    (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
		    errno == ECONNREFUSED;
		close(fd);
		if (refused) {
			*found = 1;
			return (-1);
		}
	}
	return (-1);
}

static void
closed_port_is_a_connect_error(void **state)
{
	char		 addr[32];
	const char	*addrs[] = { addr };
	struct outcome	 o;
	int		 fd, found;

	(void)state;
	fd = closed_port_hold(addr, sizeof(addr), &found);
	assert_true(found);
	run_fetch("mta-sts.example.com", addrs, 1, &o);
	if (fd != -1)
		close(fd);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_CONNECT);
}

static void
cancel_and_free_with_fetches_pending(void **state)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	struct https_fetch *f;
	struct outcome	 o;
	const char	*addrs[] = { "192.0.2.1" };	/* TEST-NET-1 */
	char		 err[256];

	(void)state;
	memset(&cf, 0, sizeof(cf));
	memset(&o, 0, sizeof(o));
	o.base = base;
	h = https_new(base, &cf, err, sizeof(err));
	f = https_fetch(h, "mta-sts.example.com", addrs, 1, record, &o);
	https_fetch(h, "mta-sts.example.net", addrs, 1, record, &o);
	https_cancel(f);
	https_free(h);			/* the second one, still in curl */
	event_base_free(base);
	assert_int_equal(o.calls, 0);
}

/* srv_ca - the test CA file, or skip when the server is not up */
static const char *
srv_ca(char *buf, size_t bufsz)
{
	if (!srv.up)
		skip();
	snprintf(buf, bufsz, "%s/ca.pem", srv.dir);
	return (buf);
}

static void
small_policy_is_fetched(void **state)
{
	const char	*addrs[] = { SRV_SMALL_ADDR };
	struct outcome	 o;
	char		 ca[128];

	(void)state;
	run_fetch_ca("mta-sts.small.test", addrs, 1, srv_ca(ca, sizeof(ca)),
	    &o);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("error %s: %s", https_error_name(o.error), o.detail);
	assert_int_equal(o.status, 200);
	assert_string_equal(o.content_type, "text/plain");
	assert_int_equal(o.body_len, 60);
}

static void
unbounded_body_is_cut_at_the_limit(void **state)
{
	const char	*addrs[] = { SRV_BIG_ADDR };
	struct outcome	 o;
	char		 ca[128];

	(void)state;
	/* HTTP/1.0 without Content-Length: only the write callback can
	 * stop it */
	run_fetch_ca("mta-sts.big.test", addrs, 1, srv_ca(ca, sizeof(ca)),
	    &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_TOO_LARGE);
	assert_true(o.body_len <= HTTPS_MAX_BODY);
}

/* run_get - https_get() of path from host at addr, body limit max */
static void
run_get(const char *host, const char *addr, const char *path, size_t max,
    struct outcome *o)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	const char	*addrs[] = { addr };
	char		 err[256], ca[128];
	struct timeval	 tv = { 10, 0 };

	memset(&cf, 0, sizeof(cf));
	cf.ca_file = (char *)srv_ca(ca, sizeof(ca));
	cf.timeout = 8;
	memset(o, 0, sizeof(*o));
	o->base = base;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	https_get(h, host, 443, path, addrs, 1, max, record, o);
	assert_int_equal(o->calls, 0);		/* never from inside */
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	https_free(h);
	event_base_free(base);
}

/* https_get: a file under a limit of the caller's (past the policy's
 * 64 KiB), and the same file over a smaller one, cut while it arrives */
static void
get_has_a_body_limit_of_its_own(void **state)
{
	struct outcome	 o;

	(void)state;
	run_get("mta-sts.big.test", SRV_BIG_ADDR, HTTPS_WELL_KNOWN_PATH,
	    SRV_BIG_SIZE + 1, &o);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("error %s: %s", https_error_name(o.error), o.detail);
	assert_int_equal(o.status, 200);
	assert_int_equal(o.body_len, SRV_BIG_SIZE);
	run_get("mta-sts.big.test", SRV_BIG_ADDR, HTTPS_WELL_KNOWN_PATH,
	    1000, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_TOO_LARGE);
	assert_true(o.body_len <= 1000);
	assert_non_null(strstr(o.detail, "exceeds 1000 bytes"));
	/* (a 404: openssl s_server -WWW answers 200 with a text;
	 * tests/e2e/preload-url.sh asks nginx) */
	/* a port or limit of 0: refused before any connection */
	run_get("mta-sts.big.test", SRV_BIG_ADDR, "/x", 0, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_OTHER);
}

static void
lowered_policy_size_is_enforced(void **state)
{
	const char	*addrs[] = { SRV_BIG_ADDR };
	const char	*small[] = { SRV_SMALL_ADDR };
	struct outcome	 o;
	char		 ca[128];

	(void)state;
	srv_ca(ca, sizeof(ca));
	/* https.max_policy_size = 1000: the unbounded body stops there */
	fetch_max_body = 1000;
	run_fetch_ca("mta-sts.big.test", addrs, 1, ca, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_TOO_LARGE);
	assert_true(o.body_len <= 1000);
	assert_non_null(strstr(o.detail, "exceeds 1000 bytes"));
	/* a 60-byte policy over a 59-byte limit fails, at 60 it passes */
	fetch_max_body = 59;
	run_fetch_ca("mta-sts.small.test", small, 1, ca, &o);
	assert_int_equal(o.error, HTTPS_ERR_TOO_LARGE);
	fetch_max_body = 60;
	run_fetch_ca("mta-sts.small.test", small, 1, ca, &o);
	assert_int_equal(o.error, HTTPS_OK);
	assert_int_equal(o.body_len, 60);
	/* above 64 KiB means 64 KiB (RFC 8461 §3.3) */
	fetch_max_body = 10 * HTTPS_MAX_BODY;
	run_fetch_ca("mta-sts.big.test", addrs, 1, ca, &o);
	assert_int_equal(o.error, HTTPS_ERR_TOO_LARGE);
	assert_true(o.body_len <= HTTPS_MAX_BODY);
	assert_non_null(strstr(o.detail, "exceeds 65536 bytes"));
	fetch_max_body = 0;
}

static void
wrong_certificate_name_is_webpki(void **state)
{
	const char	*addrs[] = { SRV_SMALL_ADDR };
	struct outcome	 o;
	char		 ca[128];

	(void)state;
	run_fetch_ca("mta-sts.other.test", addrs, 1, srv_ca(ca, sizeof(ca)),
	    &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_WEBPKI);
	assert_int_equal(o.status, 0);
}

static void
unknown_ca_is_webpki(void **state)
{
	const char	*addrs[] = { SRV_SMALL_ADDR };
	struct outcome	 o;
	char		 ca[128];

	(void)state;
	srv_ca(ca, sizeof(ca));
	run_fetch_ca("mta-sts.small.test", addrs, 1, NULL, &o);	/* system */
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_WEBPKI);
}

/*
 * eager_fetch - one fetch of host against a server on <net>.86.3 that
 * sends a whole 200 text/plain policy response as soon as the handshake is
 * done, whatever it receives; *got_request says whether the request ever
 * reached it (it logs what it reads).  Skips when it cannot run.
 */
static const char eager_resp[] = "HTTP/1.0 200 OK\r\n"
    "Content-Type: text/plain\r\nContent-Length: 60\r\n\r\n"
    "version: STSv1\nmode: enforce\nmx: mx.eager.test\nmax_age: 600\n";

/*
 * canned_fetch - eager_fetch with the response resp; keep_open 0: the
 * server closes the connection right after sending it
 */
static void
canned_fetch(const char *host, const char *ca_file, const char *resp,
    int keep_open, struct outcome *o, int *got_request)
{
	char		 addr[32], path[128], cmd[1024], line[256];
	const char	*addrs[] = { addr };
	const char	*net;
	FILE		*fp;
	pid_t		 pid;

	if (!srv.up)
		skip();
	if ((net = getenv("WORLD_NET")) == NULL || strlen(net) > 8 ||
	    strncmp(net, "127.", 4) != 0)
		net = "127.0";
	snprintf(addr, sizeof(addr), "%s.86.3", net);
	snprintf(path, sizeof(path), "%s/eager.resp", srv.dir);
	if ((fp = fopen(path, "w")) == NULL)
		skip();
	fputs(resp, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "cd %s && rm -f eager.log && "
	    "(cat eager.resp; %s) | exec openssl s_server -quiet "
	    "-naccept 1 -accept %s:443 -cert srv.pem -key srv.key "
	    ">eager.log 2>&1", srv.dir, keep_open ? "sleep 20" : "sleep 1",
	    addr);
	if ((pid = fork()) == -1)
		skip();
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	if (!srv_listening(addr)) {
		kill(-pid, SIGTERM);
		waitpid(pid, NULL, 0);
		skip();
	}
	/* srv_listening's probe took the one accept: start it again */
	kill(-pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if ((pid = fork()) == -1)
		skip();
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	usleep(300000);
	run_fetch_ca(host, addrs, 1, ca_file, o);
	usleep(200000);			/* let it log what it read */
	kill(-pid, SIGTERM);
	waitpid(pid, NULL, 0);
	*got_request = 0;
	snprintf(path, sizeof(path), "%s/eager.log", srv.dir);
	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("no server log %s", path);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, "GET /.well-known/mta-sts.txt", 28) == 0)
			*got_request = 1;
	fclose(fp);
}

static void
eager_fetch(const char *host, const char *ca_file, struct outcome *o,
    int *got_request)
{
	canned_fetch(host, ca_file, eager_resp, 1, o, got_request);
}

/* a chunked body (with a chunk extension and a trailer) is decoded */
static void
chunked_body_is_decoded(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "10;ext=1\r\nversion: STSv1\nm\r\n"
	    "2c\r\node: enforce\nmx: mx.eager.test\nmax_age: 600\n\r\n"
	    "0\r\nX-Trailer: yes\r\n\r\n";
	struct outcome	 o;
	char		 ca[128];
	int		 got;

	(void)state;
	srv_ca(ca, sizeof(ca));
	canned_fetch("mta-sts.small.test", ca, resp, 1, &o, &got);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	assert_int_equal(o.body_len, 60);	/* 16 + 44, no framing */
	assert_true(got);
}

/* a body cut short of its Content-Length is no policy */
static void
body_cut_short_is_an_error(void **state)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/plain\r\nContent-Length: 100\r\n\r\n"
	    "version: STSv1\nmode: enforce\nmx: mx.eager.test\n"
	    "max_age: 600\n";
	struct outcome	 o;
	char		 ca[128];
	int		 got;

	(void)state;
	srv_ca(ca, sizeof(ca));
	canned_fetch("mta-sts.small.test", ca, resp, 0, &o, &got);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_OTHER)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	/* curl's words: 60 of the 100 bytes came (7.88: "transfer closed
	 * with 40 bytes remaining to read", 8.x: "end of response with 40
	 * bytes missing") */
	if (strstr(o.detail, "40 bytes remaining") == NULL &&
	    strstr(o.detail, "40 bytes missing") == NULL)
		fail_msg("not curl's words for 40 bytes short: %s", o.detail);
}

/* an address that refuses passes the turn to the next one */
static void
refused_address_falls_back_to_the_next(void **state)
{
	char		 closed[32], ca[128];
	const char	*addrs[] = { closed, SRV_SMALL_ADDR };
	struct outcome	 o;
	int		 fd, found;

	(void)state;
	if (!srv.up)
		skip();
	fd = closed_port_hold(closed, sizeof(closed), &found);
	if (!found)
		skip();
	run_fetch_ca("mta-sts.small.test", addrs, 2, srv_ca(ca, sizeof(ca)),
	    &o);
	if (fd != -1)
		close(fd);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	assert_int_equal(o.body_len, 60);
}

/* The POST filter of the next run_post(): refuses refuse_addr ("*":
 * every address), counts what it was asked. */
static const char	*refuse_addr;
static int		 filter_calls;

static int
refuse_filter(const char *host, int family, const void *addr,
    const char *text, char *why, size_t whysz, void *arg)
{
	(void)host;
	(void)family;
	(void)addr;
	(void)arg;
	filter_calls++;
	if (strcmp(refuse_addr, "*") != 0 && strcmp(refuse_addr, text) != 0)
		return (1);
	snprintf(why, whysz, "refused by the test");
	return (0);
}

/* run_post - a POST (post 1) or a policy fetch (0) with refuse_filter */
static void
run_post(int post, const char *const *addrs, size_t n, struct outcome *o)
{
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	char		 err[256];
	struct timeval	 tv = { 10, 0 };

	memset(&cf, 0, sizeof(cf));
	cf.timeout = 8;
	memset(o, 0, sizeof(*o));
	o->base = base;
	filter_calls = 0;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	https_set_post_filter(h, refuse_filter, NULL);
	if (post)
		https_post(h, "collector.example", 443, "/r", addrs, n,
		    "application/tlsrpt+gzip", "x", 1, record, o);
	else
		https_fetch(h, "mta-sts.example", addrs, n, record, o);
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	https_free(h);
	event_base_free(base);
}

/* a POST whose every address the filter refuses opens no socket and
 * ends in HTTPS_ERR_ADDRESS, the first refusal as its detail */
static void
post_filter_refusing_every_address_is_address(void **state)
{
	const char	*addrs[] = { "127.0.0.1", "127.0.0.2" };
	struct outcome	 o;

	(void)state;
	refuse_addr = "*";
	run_post(1, addrs, 2, &o);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_ADDRESS);
	assert_int_equal(filter_calls, 2);	/* each address, once */
	assert_string_equal(o.detail, "127.0.0.1: refused by the test");
	assert_string_equal(https_error_name(o.error), "address");
}

/* a refused address passes the turn to the next: a connection refused
 * there is a connect error, not a refusal of ours */
static void
post_filter_passes_the_turn_to_the_next_address(void **state)
{
	char		 closed[32];
	const char	*addrs[] = { "127.0.0.1", closed };
	struct outcome	 o;
	int		 fd, found;

	(void)state;
	fd = closed_port_hold(closed, sizeof(closed), &found);
	if (!found)
		skip();
	refuse_addr = "127.0.0.1";
	run_post(1, addrs, 2, &o);
	if (fd != -1)
		close(fd);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_CONNECT);
	assert_int_equal(filter_calls, 2);
}

/* the policy fetches are never filtered */
static void
post_filter_leaves_fetches_alone(void **state)
{
	char		 closed[32];
	const char	*addrs[] = { closed };
	struct outcome	 o;
	int		 fd, found;

	(void)state;
	fd = closed_port_hold(closed, sizeof(closed), &found);
	if (!found)
		skip();
	refuse_addr = "*";
	run_post(0, addrs, 1, &o);
	if (fd != -1)
		close(fd);
	assert_int_equal(o.error, HTTPS_ERR_CONNECT);
	assert_int_equal(filter_calls, 0);
}

/* https.connect_timeout covers the TLS handshake: a server that accepts
 * TCP and never speaks TLS is a timeout (so discover.c tries IPv6) */
static void
silent_server_is_a_connect_timeout(void **state)
{
	struct sockaddr_in sin;
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	struct outcome	 o;
	struct timeval	 tv = { 10, 0 }, t0, t1;
	char		 addr[32], err[256];
	const char	*addrs[] = { addr };
	const char	*net;
	int		 fd;
	long		 ms;

	(void)state;
	/* a listener nobody accepts from, on <net>.86.41: the kernel
	 * completes the TCP handshake from the backlog, then nothing comes;
	 * fetches always connect to port 443, so bind that (skip if not
	 * allowed) */
	if ((net = getenv("WORLD_NET")) == NULL || strlen(net) > 8 ||
	    strncmp(net, "127.", 4) != 0)
		net = "127.0";
	snprintf(addr, sizeof(addr), "%s.86.41", net);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(443);
	inet_pton(AF_INET, addrs[0], &sin.sin_addr);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 8) == -1) {
		if (fd != -1)
			close(fd);
		event_base_free(base);
		skip();
	}
	memset(&cf, 0, sizeof(cf));
	cf.connect_timeout = 1;
	cf.timeout = 8;
	memset(&o, 0, sizeof(o));
	o.base = base;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	gettimeofday(&t0, NULL);
	https_fetch(h, "mta-sts.small.test", addrs, 1, record, &o);
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	gettimeofday(&t1, NULL);
	https_free(h);
	event_base_free(base);
	close(fd);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_usec - t0.tv_usec) / 1000;
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_TIMEOUT)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	/* curl's words for a TLS handshake that outlived the connect
	 * timeout: 7.88 "SSL connection timeout" (a TCP connect that does is
	 * "Connection timed out"), 8.14 (Debian 13) "Connection timed out
	 * after N milliseconds" for both; the kind and the time are what
	 * matter */
	if (strstr(o.detail, "SSL connection timeout") == NULL &&
	    strstr(o.detail, "Connection timed out after") == NULL)
		fail_msg("not curl's words for a TLS handshake timeout: %s",
		    o.detail);
	if (ms < 900 || ms > 3000)
		fail_msg("gave up after %ld ms, want about 1000", ms);
}

static void
unverified_peer_gets_no_request_and_gives_no_byte(void **state)
{
	struct outcome	 o;
	char		 ca[128];
	int		 got;

	(void)state;
	srv_ca(ca, sizeof(ca));
	/* the control: a verified peer gets the request, its answer is used */
	eager_fetch("mta-sts.small.test", ca, &o, &got);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("control: %s: %s", https_error_name(o.error),
		    o.detail);
	assert_int_equal(o.body_len, 60);
	assert_true(got);
	/* wrong name, then unknown CA: no request, no status, no byte */
	eager_fetch("mta-sts.other.test", ca, &o, &got);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_WEBPKI);
	assert_int_equal(o.status, 0);
	assert_int_equal(o.body_len, 0);
	assert_string_equal(o.content_type, "");
	assert_false(got);
	eager_fetch("mta-sts.small.test", NULL, &o, &got);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.error, HTTPS_ERR_WEBPKI);
	assert_int_equal(o.status, 0);
	assert_int_equal(o.body_len, 0);
	assert_false(got);
}

/*
 * A chain that verified is remembered (trust.c): the same chain again must
 * still be checked against the new host name, and the CA file is parsed
 * once for all fetches of one handle.
 */
static void
seen_chain_still_checks_the_name(void **state)
{
	static const struct {
		const char	*host;
		enum https_error want;
	} t[] = {
		{ "mta-sts.small.test", HTTPS_OK },	/* verified, remembered */
		{ "mta-sts.small.test", HTTPS_OK },	/* remembered */
		{ "mta-sts.big.test", HTTPS_OK },	/* same chain, its other
							   name */
		{ "mta-sts.other.test", HTTPS_ERR_WEBPKI }, /* same chain,
							   wrong name */
		{ "mta-sts.small.test", HTTPS_OK },
	};
	const char	*addrs[] = { SRV_SMALL_ADDR };
	struct event_base *base = event_base_new();
	struct config_https cf;
	struct https	*h;
	struct outcome	 o;
	char		 ca[128], err[256];
	struct timeval	 tv = { 10, 0 };
	size_t		 i;

	(void)state;
	memset(&cf, 0, sizeof(cf));
	cf.ca_file = (char *)srv_ca(ca, sizeof(ca));
	cf.timeout = 8;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.base = base;
		https_fetch(h, t[i].host, addrs, 1, record, &o);
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		assert_int_equal(o.calls, 1);
		if (o.error != t[i].want)
			fail_msg("fetch %zu (%s): %s, want %s: %s", i, t[i].host,
			    https_error_name(o.error),
			    https_error_name(t[i].want), o.detail);
		if (t[i].want != HTTPS_OK) {
			assert_int_equal(o.status, 0);
			assert_int_equal(o.body_len, 0);
		}
	}
	https_free(h);
	event_base_free(base);
}

/*
 * The hostile hosts of hostile-tls (issue 26): one fetch with a short
 * https.timeout beside a periodic timer on the same event base, standing
 * for every other lookup of the resolver's loop.
 */
#define HOSTILE_TIMEOUT		3	/* s, https.timeout of these fetches */
#define HOSTILE_TICK_MS		100	/* the timer beside the fetch */
#define HOSTILE_MAX_GAP_MS	500	/* longest the loop may be held */
#define HOSTILE_BODY_LEN	62	/* hostile_script's hostile.txt */

struct ticker {
	struct timeval	 last;
	long		 max_gap_ms;
	int		 fired;
};

/* tv_ms - b - a in milliseconds */
static long
tv_ms(const struct timeval *a, const struct timeval *b)
{
	return ((b->tv_sec - a->tv_sec) * 1000 +
	    (b->tv_usec - a->tv_usec) / 1000);
}

/* tick - the periodic timer: the largest gap between two firings */
static void
tick(evutil_socket_t fd, short what, void *arg)
{
	struct ticker	*t = arg;
	struct timeval	 now;
	long		 gap;

	(void)fd;
	(void)what;
	gettimeofday(&now, NULL);
	if ((gap = tv_ms(&t->last, &now)) > t->max_gap_ms)
		t->max_gap_ms = gap;
	t->last = now;
	t->fired++;
}

/*
 * hostile_fetch - fetch host from hostile-tls (skip when it does not run);
 * *ms: how long the fetch took, *gap_ms: the largest gap of a 100 ms
 * timer on the same event base (up to the end of the fetch)
 */
static void
hostile_fetch(const char *host, struct outcome *o, long *ms, long *gap_ms)
{
	struct event_base *base;
	struct config_https cf;
	struct https	*h;
	struct event	*ev;
	struct ticker	 t;
	struct timeval	 tv = { 4 * HOSTILE_TIMEOUT, 0 }, t0, t1;
	struct timeval	 every = { 0, HOSTILE_TICK_MS * 1000 };
	const char	*addrs[] = { srv.hostile_addr };
	char		 ca[128], err[256];

	if (!srv.hostile_up)
		skip();
	snprintf(ca, sizeof(ca), "%s/ca.pem", srv.dir);
	base = event_base_new();
	memset(&cf, 0, sizeof(cf));
	cf.ca_file = ca;
	cf.timeout = HOSTILE_TIMEOUT;
	memset(o, 0, sizeof(*o));
	o->base = base;
	h = https_new(base, &cf, err, sizeof(err));
	assert_non_null(h);
	memset(&t, 0, sizeof(t));
	ev = event_new(base, -1, EV_PERSIST, tick, &t);
	gettimeofday(&t0, NULL);
	t.last = t0;
	event_add(ev, &every);
	https_fetch(h, host, addrs, 1, record, o);
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	gettimeofday(&t1, NULL);
	tick(-1, 0, &t);		/* the gap up to the end */
	*ms = tv_ms(&t0, &t1);
	*gap_ms = t.max_gap_ms;
	print_message("# %s: %s %s (%ld ms, loop gap %ld ms)\n", host,
	    https_error_name(o->error), o->detail, *ms, *gap_ms);
	event_free(ev);
	https_free(h);
	event_base_free(base);
}

/* hostile_flood - a flood host: no policy, by the timeout at the latest,
 * and the event loop never held for long */
static void
hostile_flood(const char *host)
{
	struct outcome	 o;
	long		 ms, gap;

	hostile_fetch(host, &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error == HTTPS_OK)
		fail_msg("%s: a policy from a flooding host", host);
	if (ms > HOSTILE_TIMEOUT * 1000 + 1000)
		fail_msg("%s: the fetch took %ld ms, timeout %d s (%s: %s)",
		    host, ms, HOSTILE_TIMEOUT, https_error_name(o.error),
		    o.detail);
	if (gap > HOSTILE_MAX_GAP_MS)
		fail_msg("%s: the event loop was held %ld ms (%s: %s)", host,
		    gap, https_error_name(o.error), o.detail);
}

/* warning alerts in large batches after a valid handshake: the fetch
 * fails (curl: on the first one) and other events keep their turn */
static void
alert_flood_fails_without_stalling_the_loop(void **state)
{
	(void)state;
	hostile_flood("mta-sts.flood.test");
}

/* TLS 1.2 HelloRequests in large batches, then silence: no renegotiation
 * (curl 7.88 would renegotiate in a blocking loop), the loop runs on */
static void
hello_flood_fails_without_stalling_the_loop(void **state)
{
	(void)state;
	hostile_flood("mta-sts.hello.test");
}

/* a body without Content-Length or chunked coding ends with the
 * connection: cut by a FIN without TLS close_notify it may be a
 * truncation attack (RFC 8446 §6.1), so no policy */
static void
unframed_body_cut_without_close_notify_is_an_error(void **state)
{
	struct outcome	 o;
	long		 ms, gap;

	(void)state;
	hostile_fetch("mta-sts.cut.test", &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_OTHER)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
}

/* the same body ended by close_notify is whole: a policy */
static void
unframed_body_ended_by_close_notify_is_a_policy(void **state)
{
	struct outcome	 o;
	long		 ms, gap;

	(void)state;
	hostile_fetch("mta-sts.bye.test", &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	assert_int_equal(o.status, 200);
	assert_int_equal(o.body_len, HOSTILE_BODY_LEN);
}

/* hostile_refused - host's certificate must be refused before the request */
static void
hostile_refused(const char *host)
{
	struct outcome	 o;
	long		 ms, gap;

	hostile_fetch(host, &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_WEBPKI)
		fail_msg("%s: %s, want webpki: %s", host,
		    https_error_name(o.error), o.detail);
	assert_int_equal(o.status, 0);
	assert_int_equal(o.body_len, 0);
}

/* hostile_accepted - host's policy must be fetched */
static void
hostile_accepted(const char *host)
{
	struct outcome	 o;
	long		 ms, gap;

	hostile_fetch(host, &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_OK)
		fail_msg("%s: %s: %s", host, https_error_name(o.error),
		    o.detail);
	assert_int_equal(o.body_len, HOSTILE_BODY_LEN);
}

/* a leaf with an RSA-768 key from the trusted CA: below the verification
 * profile (GnuTLS's MEDIUM wants 2048 bits) */
static void
rsa768_leaf_is_webpki(void **state)
{
	(void)state;
	hostile_refused("mta-sts.rsa768.test");
}

/* RFC 7633: a certificate with the TLS feature status_request is valid
 * only with a stapled OCSP response; with a good one it is */
static void
must_staple_needs_a_good_staple(void **state)
{
	(void)state;
	hostile_refused("mta-sts.nostaple.test");
	hostile_accepted("mta-sts.staple.test");
}

/* a stapled OCSP response that says revoked (RFC 6960 §2.2), on a
 * must-staple leaf and on a plain one */
static void
revoked_staple_is_webpki(void **state)
{
	(void)state;
	hostile_refused("mta-sts.staple-revoked.test");
	hostile_refused("mta-sts.revoked.test");
}

/* a warning alert (unrecognized_name, RFC 6066 §3) inside a TLS 1.2
 * handshake: a client goes on, the policy is fetched */
static void
handshake_warning_alert_is_tolerated(void **state)
{
	(void)state;
	hostile_accepted("mta-sts.warn.test");
}

/* a 1 MiB header section: refused at 32 KiB of response head */
static void
header_section_of_1_mib_is_refused(void **state)
{
	struct outcome	 o;
	long		 ms, gap;

	(void)state;
	hostile_fetch("mta-sts.hdr.test", &o, &ms, &gap);
	assert_int_equal(o.calls, 1);
	if (o.error != HTTPS_ERR_OTHER)
		fail_msg("%s: %s", https_error_name(o.error), o.detail);
	assert_non_null(strstr(o.detail, "response head exceeds 32768 bytes"));
	assert_int_equal(o.body_len, 0);
}

/* https_check reads the trust store as https_new does, and drops it */
static void
check_reads_the_trust_store(void **state)
{
	struct config_https cf;
	char		 err[256], ca[512];

	(void)state;
	memset(&cf, 0, sizeof(cf));
	snprintf(ca, sizeof(ca), "%s/ca.pem", srv.dir);
	cf.ca_file = ca;
	assert_int_equal(https_check(&cf, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	cf.ca_file = "/nonexistent/ca.pem";
	assert_int_equal(https_check(&cf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/ca.pem"));
	/* a file that holds no certificate is no trust store either */
	cf.ca_file = "/dev/null";
	assert_int_equal(https_check(&cf, err, sizeof(err)), -1);
}

static void
error_names(void **state)
{
	(void)state;
	assert_string_equal(https_error_name(HTTPS_OK), "ok");
	assert_string_equal(https_error_name(HTTPS_ERR_WEBPKI), "webpki");
	assert_string_equal(https_error_name(HTTPS_ERR_TOO_LARGE),
	    "too-large");
	assert_string_equal(https_error_name(HTTPS_ERR_REDIRECT), "redirect");
	assert_string_equal(https_error_name(HTTPS_ERR_ADDRESS), "address");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(media_types),
		cmocka_unit_test(no_address_fails_without_resolving),
		cmocka_unit_test(invalid_host_is_refused),
		cmocka_unit_test(closed_port_is_a_connect_error),
		cmocka_unit_test(cancel_and_free_with_fetches_pending),
		cmocka_unit_test(error_names),
		cmocka_unit_test(check_reads_the_trust_store),
		cmocka_unit_test(small_policy_is_fetched),
		cmocka_unit_test(unbounded_body_is_cut_at_the_limit),
		cmocka_unit_test(lowered_policy_size_is_enforced),
		cmocka_unit_test(get_has_a_body_limit_of_its_own),
		cmocka_unit_test(wrong_certificate_name_is_webpki),
		cmocka_unit_test(unknown_ca_is_webpki),
		cmocka_unit_test(unverified_peer_gets_no_request_and_gives_no_byte),
		cmocka_unit_test(seen_chain_still_checks_the_name),
		cmocka_unit_test(chunked_body_is_decoded),
		cmocka_unit_test(body_cut_short_is_an_error),
		cmocka_unit_test(refused_address_falls_back_to_the_next),
		cmocka_unit_test(post_filter_refusing_every_address_is_address),
		cmocka_unit_test(post_filter_passes_the_turn_to_the_next_address),
		cmocka_unit_test(post_filter_leaves_fetches_alone),
		cmocka_unit_test(silent_server_is_a_connect_timeout),
		cmocka_unit_test(alert_flood_fails_without_stalling_the_loop),
		cmocka_unit_test(hello_flood_fails_without_stalling_the_loop),
		cmocka_unit_test(unframed_body_cut_without_close_notify_is_an_error),
		cmocka_unit_test(unframed_body_ended_by_close_notify_is_a_policy),
		cmocka_unit_test(rsa768_leaf_is_webpki),
		cmocka_unit_test(must_staple_needs_a_good_staple),
		cmocka_unit_test(revoked_staple_is_webpki),
		cmocka_unit_test(handshake_warning_alert_is_tolerated),
		cmocka_unit_test(header_section_of_1_mib_is_refused),
	};

	(void)argc;
	test_argv0 = argv[0];
	return (cmocka_run_group_tests(tests, srv_setup, srv_teardown));
}
