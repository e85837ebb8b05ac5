/*
 * fetch-cost.c - client CPU per MTA-STS policy fetch: libcurl against
 * GnuTLS used directly, in the loopback world
 *
 * fetch-cost [-n fetches] [-r rounds] [-b bulk] address ca-file
 *
 * Fetches https://mta-sts.bI.bulk.pstest/.well-known/mta-sts.txt (I = 1 ..
 * bulk, round robin) from the world's nginx at address, one at a time,
 * each on a new connection, four ways, in alternating order per round so
 * that the host's speed drifts equally over all of them:
 *   curl     libcurl (GnuTLS backend) set up as lib/https.c sets it up: no
 *            CA loaded into curl, peer verification off, a
 *            CURLOPT_PREREQFUNCTION that checks the chain and the host name
 *            against one shared gnutls_x509_trust_list_t (what trust.c
 *            does), no session cache, no reuse.  The easy interface: the
 *            daemon's multi interface on libevent costs a little more.
 *   curl-reuse  the same with one easy handle for all fetches
 *            (curl_easy_reset between them), connections still closed.
 *   normal   GnuTLS directly, shared credentials holding the CA, priority
 *            "NORMAL" (curl 7.88's: P-256 first), the same checks inside
 *            the handshake (gnutls_session_set_verify_cert), then the same
 *            GET with "Connection: close", read to the end.
 *   x25519   as normal, with X25519 as the first key exchange group.
 * Every fetch must get a verified "HTTP/1.1 200" with a body, else the
 * program stops with status 1.  Output: CPU (user + system, getrusage) per
 * fetch for each way, then the ratios to curl.  Not a test: figures only.
 */
#include "autoconf.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#define FC_HOST_MAX	128
#define FC_CHAIN_MAX	8
#define FC_WAYS		4
#define FC_PRIO_NORMAL	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define FC_PRIO_X25519	FC_PRIO_NORMAL ":-GROUP-ALL:+GROUP-X25519:" \
	"+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1"

static const char *const fc_way_name[FC_WAYS] = { "curl", "curl-reuse",
    "normal", "x25519" };

struct fc {
	struct sockaddr_in		 sa;
	char				 addr[64];
	gnutls_x509_trust_list_t	 tl;
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t		 prio[FC_WAYS];
	CURL				*easy;	/* curl-reuse's handle */
};

/* one curl transfer's state for its callbacks */
struct fc_curl {
	const struct fc	*fc;
	CURL		*easy;
	const char	*host;
	int		 verified;
	size_t		 body;
};

static double
fc_cpu(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

/* fc_prereq - trust.c's check, on the session curl made */
static int
fc_prereq(void *arg, char *a, char *b, int c, int d)
{
	struct fc_curl		*t = arg;
	struct curl_tlssessioninfo *ti;
	const gnutls_datum_t	*peers;
	gnutls_x509_crt_t	 crt[FC_CHAIN_MAX] = { NULL };
	gnutls_typed_vdata_st	 vd;
	unsigned int		 n = 0, i, status = 1;
	int			 ok = 1;

	(void)a;
	(void)b;
	(void)c;
	(void)d;
	if (curl_easy_getinfo(t->easy, CURLINFO_TLS_SSL_PTR, &ti) !=
	    CURLE_OK || ti->backend != CURLSSLBACKEND_GNUTLS)
		return (CURL_PREREQFUNC_ABORT);
	peers = gnutls_certificate_get_peers(ti->internals, &n);
	if (peers == NULL || n == 0 || n > FC_CHAIN_MAX)
		return (CURL_PREREQFUNC_ABORT);
	for (i = 0; i < n && ok; i++)
		ok = gnutls_x509_crt_init(&crt[i]) == 0 &&
		    gnutls_x509_crt_import(crt[i], &peers[i],
		    GNUTLS_X509_FMT_DER) == 0;
	memset(&vd, 0, sizeof(vd));
	vd.type = GNUTLS_DT_DNS_HOSTNAME;
	vd.data = (unsigned char *)(uintptr_t)t->host;
	if (!ok || gnutls_x509_trust_list_verify_crt2(t->fc->tl, crt, n,
	    &vd, 1, 0, &status, NULL) < 0)
		status = 1;
	for (i = 0; i < n; i++)
		if (crt[i] != NULL)
			gnutls_x509_crt_deinit(crt[i]);
	t->verified = status == 0;
	return (status == 0 ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT);
}

static size_t
fc_sink(char *p, size_t size, size_t n, void *arg)
{
	struct fc_curl	*t = arg;

	(void)p;
	t->body += size * n;
	return (size * n);
}

static int
fc_fetch_curl(struct fc *fc, const char *host, int reuse)
{
	struct fc_curl		 t;
	struct curl_slist	*res;
	char			 entry[FC_HOST_MAX + 80], url[FC_HOST_MAX + 40];
	long			 code = 0;
	CURLcode		 rc;

	memset(&t, 0, sizeof(t));
	t.fc = fc;
	t.host = host;
	snprintf(entry, sizeof(entry), "%s:443:%s", host, fc->addr);
	snprintf(url, sizeof(url), "https://%s/.well-known/mta-sts.txt",
	    host);
	if ((res = curl_slist_append(NULL, entry)) == NULL)
		return (-1);
	if (reuse && fc->easy != NULL) {
		curl_easy_reset(fc->easy);
		t.easy = fc->easy;
	} else if ((t.easy = curl_easy_init()) == NULL) {
		curl_slist_free_all(res);
		return (-1);
	}
	if (reuse)
		fc->easy = t.easy;
	curl_easy_setopt(t.easy, CURLOPT_URL, url);
	curl_easy_setopt(t.easy, CURLOPT_RESOLVE, res);
	curl_easy_setopt(t.easy, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(t.easy, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(t.easy, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(t.easy, CURLOPT_CAINFO, (char *)NULL);
	curl_easy_setopt(t.easy, CURLOPT_CAPATH, (char *)NULL);
	curl_easy_setopt(t.easy, CURLOPT_SSL_SESSIONID_CACHE, 0L);
	curl_easy_setopt(t.easy, CURLOPT_SSLVERSION,
	    (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(t.easy, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(t.easy, CURLOPT_PROXY, "");
	curl_easy_setopt(t.easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t.easy, CURLOPT_PREREQFUNCTION, fc_prereq);
	curl_easy_setopt(t.easy, CURLOPT_PREREQDATA, &t);
	curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, fc_sink);
	curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t);
	rc = curl_easy_perform(t.easy);
	curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
	if (!reuse)
		curl_easy_cleanup(t.easy);
	curl_slist_free_all(res);
	return (rc == CURLE_OK && code == 200 && t.verified && t.body > 0 ?
	    0 : -1);
}

static int
fc_fetch_gnutls(const struct fc *fc, gnutls_priority_t prio,
    const char *host)
{
	gnutls_session_t s = NULL;
	char		 req[FC_HOST_MAX + 128], buf[16384];
	size_t		 got = 0;
	ssize_t		 k;
	int		 fd, one = 1, rc = -1, n;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)&fc->sa,
	    sizeof(fc->sa)) == -1 ||
	    gnutls_init(&s, GNUTLS_CLIENT | GNUTLS_NO_TICKETS) < 0)
		goto out;
	if (gnutls_priority_set(s, prio) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, fc->cred) < 0 ||
	    gnutls_server_name_set(s, GNUTLS_NAME_DNS, host,
	    strlen(host)) < 0)
		goto out;
	gnutls_session_set_verify_cert(s, host, 0);
	gnutls_transport_set_int(s, fd);
	do
		rc = gnutls_handshake(s);
	while (rc < 0 && !gnutls_error_is_fatal(rc));
	if (rc < 0)
		goto out;
	rc = -1;
	n = snprintf(req, sizeof(req), "GET /.well-known/mta-sts.txt "
	    "HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
	if (n < 0 || (size_t)n >= sizeof(req) ||
	    gnutls_record_send(s, req, (size_t)n) != n)
		goto out;
	while (got < sizeof(buf) - 1) {
		k = gnutls_record_recv(s, buf + got, sizeof(buf) - 1 - got);
		if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
			continue;	/* a session ticket went by */
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	if (strncmp(buf, "HTTP/1.1 200 ", 13) == 0 &&
	    strstr(buf, "\r\n\r\nversion: STSv1") != NULL)
		rc = 0;
	(void)gnutls_bye(s, GNUTLS_SHUT_WR);
out:
	if (s != NULL)
		gnutls_deinit(s);
	close(fd);
	return (rc);
}

static void
usage(void)
{
	fprintf(stderr, "usage: fetch-cost [-n fetches] [-r rounds] "
	    "[-b bulk] address ca-file\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct fc	 fc;
	char		 host[FC_HOST_MAX];
	double		 t0, cpu[FC_WAYS] = { 0, 0, 0, 0 };
	long		 n = 100, rounds = 10, bulk = 2000, next = 0, i, r;
	int		 ch, w, k, way;

	while ((ch = getopt(argc, argv, "n:r:b:")) != -1)
		switch (ch) {
		case 'n':
			n = strtol(optarg, NULL, 10);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'b':
			bulk = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	if (argc - optind != 2 || n < 1 || rounds < 1 || bulk < 1)
		usage();
	memset(&fc, 0, sizeof(fc));
	fc.sa.sin_family = AF_INET;
	fc.sa.sin_port = htons(443);
	snprintf(fc.addr, sizeof(fc.addr), "%s", argv[optind]);
	if (inet_pton(AF_INET, fc.addr, &fc.sa.sin_addr) != 1)
		usage();
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    gnutls_x509_trust_list_init(&fc.tl, 0) < 0 ||
	    gnutls_x509_trust_list_add_trust_file(fc.tl, argv[optind + 1],
	    NULL, GNUTLS_X509_FMT_PEM, 0, 0) <= 0 ||
	    gnutls_certificate_allocate_credentials(&fc.cred) < 0 ||
	    gnutls_certificate_set_x509_trust_file(fc.cred, argv[optind + 1],
	    GNUTLS_X509_FMT_PEM) <= 0 ||
	    gnutls_priority_init(&fc.prio[2], FC_PRIO_NORMAL, NULL) < 0 ||
	    gnutls_priority_init(&fc.prio[3], FC_PRIO_X25519, NULL) < 0) {
		fprintf(stderr, "fetch-cost: cannot set up (CA file %s)\n",
		    argv[optind + 1]);
		return (1);
	}
	for (r = 0; r < rounds; r++)
		for (k = 0; k < FC_WAYS; k++) {
			way = (int)((k + r) % FC_WAYS);
			t0 = fc_cpu();
			for (i = 0; i < n; i++) {
				snprintf(host, sizeof(host),
				    "mta-sts.b%ld.bulk.pstest", 1 + next++ % bulk);
				if ((way < 2 ? fc_fetch_curl(&fc, host, way) :
				    fc_fetch_gnutls(&fc, fc.prio[way], host)) ==
				    -1) {
					fprintf(stderr, "fetch-cost: %s: %s "
					    "failed\n", fc_way_name[way], host);
					return (1);
				}
			}
			cpu[way] += fc_cpu() - t0;
		}
	for (w = 0; w < FC_WAYS; w++)
		printf("fetch-cost way=%s fetches=%ld cpu_ms_per_fetch=%.3f "
		    "ratio_to_curl=%.2f\n", fc_way_name[w], n * rounds,
		    cpu[w] * 1000 / (double)(n * rounds), cpu[w] / cpu[0]);
	gnutls_priority_deinit(fc.prio[2]);
	gnutls_priority_deinit(fc.prio[3]);
	if (fc.easy != NULL)
		curl_easy_cleanup(fc.easy);
	gnutls_certificate_free_credentials(fc.cred);
	gnutls_x509_trust_list_deinit(fc.tl, 1);
	curl_global_cleanup();
	return (0);
}
