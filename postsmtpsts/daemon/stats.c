/*
 * stats.c - shared counter file, its readers, Prometheus text rendering
 *
 * Interface: stats.h.  File layout (native byte order, one host):
 *
 *	offset 0   magic "PSTSSTAT" (8 bytes)
 *	       8   u32 version (STATS_VERSION)
 *	      12   u32 slots (STATS_SLOTS)
 *	      16   u32 counters per slot (STATS_NCOUNTERS)
 *	      20   u32 slot size in bytes (counters * 8, rounded up to 64)
 *	      24   i64 start time of the master (Unix seconds)
 *	      32   i64 pid of the master
 *	      64   slot 0, slot 1, ... (u64 counters)
 *
 * The writer never changes the header after creating the file; readers
 * refuse any other magic, version, slot count, counter count or size, so
 * a tool never sums counters of another build's layout.  Counters are
 * read with relaxed atomic loads: each value is exact, the set is not one
 * instant (a lookup may show in its source counter and not yet in the
 * histogram), which is what Prometheus expects of counters anyway.
 *
 * Output: the Prometheus text exposition format 0.0.4 ("# HELP", "# TYPE",
 * one sample per line, label values escaped: backslash, double quote,
 * newline).  Histogram buckets are kept per bucket and rendered
 * cumulatively, so _bucket{le="+Inf"} always equals _count.
 */
#include "autoconf.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "policy/dane.h"
#include "policy/discover.h"
#include "policy/history.h"
#include "policy/requiretls.h"
#include "lib/dns.h"
#include "lib/https.h"
#include "daemon/stats.h"

#define STATS_SLOT_SIZE	((STATS_NCOUNTERS * sizeof(uint64_t) + 63) & \
	~(size_t)63)

_Static_assert(CONFIG_MAX_WORKERS <= STATS_MAX_WORKERS,
    "a worker index has no stats slot");
_Static_assert(DISCOVER_FAILURE + 1 == STATS_DISCOVERY_OUTCOMES,
    "discover outcomes changed");
_Static_assert(DISCOVER_FAIL_POLICY_INVALID == STATS_DISCOVERY_FAILURES,
    "discover failures changed");
_Static_assert(HTTPS_ERR_OTHER == STATS_HTTPS_ERRORS, "https errors changed");
_Static_assert(DANE_FAIL_TIMEOUT == STATS_DANE_FAIL_CLASSES,
    "dane failures changed");

struct stats_header {
	char		 magic[8];
	uint32_t	 version;
	uint32_t	 slots;
	uint32_t	 counters;
	uint32_t	 slot_size;
	int64_t		 started;
	int64_t		 master_pid;
};

_Static_assert(sizeof(struct stats_header) <= STATS_HEADER_SIZE,
    "stats header too large");

static uint64_t	 stats_dummy[STATS_NCOUNTERS];
uint64_t	*stats_slot = stats_dummy;

static void	*stats_map;	/* the master's mapping, inherited */
static size_t	 stats_map_len;

static const double stats_bounds[STATS_LATENCY_FINITE] = STATS_LATENCY_BOUNDS;
static const uint64_t stats_bounds_ns[STATS_LATENCY_FINITE] = {
	100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
	25000000, 50000000, 100000000, 250000000, 500000000, 1000000000,
	2500000000u, 5000000000u, 10000000000u
};

static const char *const stats_source_names[STATS_SRC_COUNT] = {
	"pinned", "cache", "resolver", "deadline", "invalid"
};
static const char *const stats_answer_names[STATS_ANSWER_COUNT] = {
	"ok", "notfound", "temp", "timeout", "perm"
};
static const char *const stats_cache_names[STATS_CACHE_COUNT] = {
	"hit", "stale", "miss", "unavailable"
};
static const char *const stats_trigger_names[2] = { "request", "refresh" };
static const char *const stats_dns_names[STATS_DNS_COUNT] = {
	"timeout", "servfail", "bogus", "resolver-error"
};
static const char *const stats_dane_names[STATS_DANE_COUNT] = {
	"dane-only", "dane", "none", "failure", "encrypt", "tls-some"
};
static const char *const stats_evict_names[CACHE_EVICT_CLASSES] = {
	"negative", "expired", "other", "enforce"
};
static const char *const stats_rr_names[STATS_RR_COUNT] = {
	"mx", "a", "aaaa", "tlsa"
};
static const char *const stats_http_names[STATS_HTTP_COUNT] = {
	"200", "400", "404", "405"
};
/*
 * Labels that are another module's names come from that module's
 * *_name() function, so they cannot drift (the order is the enum's, which
 * the _Static_asserts above tie to the counter blocks).  The fleet's stay
 * here: lib/fleet.c is built only --with-fleet, and the metric is always
 * exported; in the order of enum fleet_counter (lib/fleet.h).
 */
static const char *
stats_outcome_label(int i)
{
	return (discover_outcome_name((enum discover_outcome)i));
}

static const char *
stats_failure_label(int i)
{
	/* DISCOVER_FAIL_NONE is no failure: the block starts after it */
	return (discover_failure_name((enum discover_failure)(i + 1)));
}

static const char *
stats_https_label(int i)
{
	/* HTTPS_OK is no error: the block starts after it */
	return (https_error_name((enum https_error)(i + 1)));
}

static const char *
stats_dane_fail_label(int i)
{
	/* DANE_FAIL_NONE is no failure: the block starts after it */
	return (dane_fail_name((enum dane_fail)(i + 1)));
}

static const char *
stats_event_label(int i)
{
	return (history_kind_name((enum history_kind)i));
}

static const char *
stats_level_label(int i)
{
	return (requiretls_level_name((enum requiretls_level)i));
}

static const char *const stats_fleet_names[STATS_FLEET_COUNT] = {
	"get-hit", "get-miss", "bad-mac", "unsigned", "undecodable", "write",
	"write-unchanged", "conflict", "full", "error", "timeout", "down",
	"busy", "connect", "connect-fail", "disconnect", "lease-won",
	"lease-held"
};
static const char *const stats_proto_names[2] = { "frame", "request" };
static const char *const stats_conn_names[3] = {
	"accepted", "refused", "closed"
};
static const char *const stats_accept_names[STATS_ACCEPT_COUNT] = {
	"emfile", "enfile", "enobufs", "enomem", "other"
};
static const char *const stats_preload_names[STATS_PRELOAD_COUNT] = {
	"answered", "expired"
};

/*
 * One metric family: a block of counters at base, with zero, one or two
 * labels (the first label varies slowest).
 */
/* field order follows the table's initializers (STATS_L); 20 static
 * entries, so the padding does not matter */
/* NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding) */
struct stats_family {
	const char	*name;
	const char	*help;
	enum stats_id	 base;
	const char	*l1;
	const char *const *v1;		/* the values, or NULL: ... */
	const char	*(*f1)(int);	/* ... this function's */
	int		 n1;
	const char	*l2;
	const char *const *v2;
	const char	*(*f2)(int);
	int		 n2;
};

#define STATS_L(name, v)	name, v, NULL, (int)(sizeof(v) / sizeof((v)[0]))
#define STATS_LF(name, f, n)	name, NULL, f, n
#define STATS_NOLABEL		NULL, NULL, NULL, 1

static const struct stats_family stats_families[] = {
	{ "postsmtpsts_lookups_total",
	    "Socketmap lookups answered, by where the answer came from and "
	    "the socketmap status.", STATS_LOOKUPS,
	    STATS_L("source", stats_source_names),
	    STATS_L("answer", stats_answer_names) },
	{ "postsmtpsts_requests_total",
	    "Well-framed socketmap requests read by the workers.",
	    STATS_REQUESTS, STATS_NOLABEL, STATS_NOLABEL },
	{ "postsmtpsts_protocol_errors_total",
	    "Malformed socketmap input: a broken netstring frame (connection "
	    "closed) or a request that is not \"name key\".",
	    STATS_PROTO_FRAME, STATS_L("kind", stats_proto_names),
	    STATS_NOLABEL },
	{ "postsmtpsts_connections_total",
	    "Postfix connections accepted, refused (limit or draining) and "
	    "closed by the workers.", STATS_CONN_ACCEPTED,
	    STATS_L("event", stats_conn_names), STATS_NOLABEL },
	{ "postsmtpsts_accept_errors_total",
	    "accept(2) failures on the workers' listeners, by error: emfile, "
	    "enfile (out of descriptors: the listeners pause, waiting "
	    "connections are closed), enobufs, enomem (the listeners pause), "
	    "other.", STATS_ACCEPT_ERRORS,
	    STATS_L("error", stats_accept_names), STATS_NOLABEL },
	{ "postsmtpsts_preload_total",
	    "Preload list entries met by the workers for domains without a "
	    "discovered policy: an enforce entry that answered, an entry of "
	    "an expired list that no longer does.", STATS_PRELOAD,
	    STATS_L("event", stats_preload_names), STATS_NOLABEL },
	{ "postsmtpsts_cache_reads_total",
	    "Cache reads by the workers, by result.", STATS_CACHE_READS,
	    STATS_L("result", stats_cache_names), STATS_NOLABEL },
	{ "postsmtpsts_discoveries_total",
	    "MTA-STS discoveries finished by the resolver, by trigger and "
	    "outcome.", STATS_DISCOVERIES,
	    STATS_L("trigger", stats_trigger_names),
	    STATS_LF("outcome", stats_outcome_label,
	    STATS_DISCOVERY_OUTCOMES) },
	{ "postsmtpsts_discovery_failures_total",
	    "Failed discoveries, by failure kind (RFC 8460 result types).",
	    STATS_DISCOVERY_FAIL, STATS_LF("kind", stats_failure_label,
	    STATS_DISCOVERY_FAILURES),
	    STATS_NOLABEL },
	{ "postsmtpsts_dns_errors_total",
	    "DNS errors met by discoveries (TXT lookups, bogus policy host "
	    "addresses), by kind.", STATS_DNS_ERRORS,
	    STATS_L("kind", stats_dns_names), STATS_NOLABEL },
	{ "postsmtpsts_https_errors_total",
	    "Policy fetches that failed, by kind.", STATS_HTTPS_ERRORS_BASE,
	    STATS_LF("kind", stats_https_label, STATS_HTTPS_ERRORS),
	    STATS_NOLABEL },
	{ "postsmtpsts_refreshes_started_total",
	    "Proactive refreshes started by the resolver's cache walk.",
	    STATS_REFRESHES, STATS_NOLABEL, STATS_NOLABEL },
	{ "postsmtpsts_cache_expired_deleted_total",
	    "Long-expired cache entries deleted by the resolver.",
	    STATS_CACHE_DELETED, STATS_NOLABEL, STATS_NOLABEL },
	{ "postsmtpsts_cache_write_errors_total",
	    "Cache writes that failed (map or disk full).",
	    STATS_CACHE_WRITE_ERRORS, STATS_NOLABEL, STATS_NOLABEL },
	{ "postsmtpsts_cache_corrupt_total",
	    "Damaged cache environments the resolver moved aside (and started "
	    "afresh).", STATS_CACHE_CORRUPT, STATS_NOLABEL, STATS_NOLABEL },
	{ "postsmtpsts_cache_evicted_total",
	    "Cache entries deleted to make room in a full map, by class.",
	    STATS_CACHE_EVICTED, STATS_L("class", stats_evict_names),
	    STATS_NOLABEL },
	{ "postsmtpsts_dane_lookups_total",
	    "DANE (RFC 7672) lookups, by outcome.", STATS_DANE_LOOKUPS,
	    STATS_L("outcome", stats_dane_names), STATS_NOLABEL },
	{ "postsmtpsts_metrics_requests_total",
	    "Requests to this metrics listener, by HTTP status.",
	    STATS_HTTP_REQUESTS, STATS_L("code", stats_http_names),
	    STATS_NOLABEL },
	{ "postsmtpsts_fleet_events_total",
	    "Fleet tier (Redis) events of the resolver: reads, refused "
	    "records, writes, conflicts, timeouts, connection changes, "
	    "leases.", STATS_FLEET, STATS_L("event", stats_fleet_names),
	    STATS_NOLABEL },
	{ "postsmtpsts_dane_dns_failures_total",
	    "DNS lookups that failed during DANE lookups, by class and record "
	    "type: the MX RRset, or an MX host's A, AAAA or TLSA records (that "
	    "host is left to Postfix).", STATS_DANE_DNS_FAIL,
	    STATS_LF("class", stats_dane_fail_label,
	    STATS_DANE_FAIL_CLASSES),
	    STATS_L("type", stats_rr_names) },
	{ "postsmtpsts_txt_checks_started_total",
	    "Background re-checks of a cached policy's TXT id, started when a "
	    "lookup found the TXT TTL passed.", STATS_TXT_CHECKS, STATS_NOLABEL,
	    STATS_NOLABEL },
	{ "postsmtpsts_answers_total",
	    "Socketmap lookups answered, by the TLS security level of the "
	    "answer (notfound: Postfix's default level; temp: deferred); "
	    "dane-only, secure, verify and fingerprint can carry REQUIRETLS "
	    "mail (RFC 8689), dane only to MX hosts with usable TLSA.",
	    STATS_ANSWERS, STATS_LF("level", stats_level_label,
	    REQUIRETLS_LEVEL_COUNT), STATS_NOLABEL },
	{ "postsmtpsts_policy_events_total",
	    "Policy events the resolver recorded (the history file), by kind; "
	    "mode-downgraded, mx-provider-changed, dane-disappeared and "
	    "downgrade-refused are also logged at notice level.",
	    STATS_POLICY_EVENTS, STATS_LF("kind", stats_event_label,
	    HISTORY_KIND_COUNT), STATS_NOLABEL },
};

int
stats_latency_bucket(uint64_t ns)
{
	int	 i;

	for (i = 0; i < STATS_LATENCY_FINITE; i++)
		if (ns <= stats_bounds_ns[i])
			return (i);
	return (STATS_LATENCY_FINITE);
}

/* stats_dns - count the DNS error, if any, of one lookup's result */
static void
stats_dns(enum dns_status st, int rcode, enum dns_security sec)
{
	if (st == DNS_ERR_TIMEOUT)
		stats_inc(STATS_DNS_ERRORS + STATS_DNS_TIMEOUT);
	else if (st != DNS_OK)
		stats_inc(STATS_DNS_ERRORS + STATS_DNS_RESOLVER);
	else if (sec == DNS_BOGUS)
		stats_inc(STATS_DNS_ERRORS + STATS_DNS_BOGUS);
	else if (rcode != DNS_RCODE_NOERROR && rcode != DNS_RCODE_NXDOMAIN)
		stats_inc(STATS_DNS_ERRORS + STATS_DNS_SERVFAIL);
}

void
stats_discovery(const struct discover_result *res, int refresh)
{
	int	 o = res->outcome;

	if (o < 0 || o >= STATS_DISCOVERY_OUTCOMES)
		o = DISCOVER_FAILURE;
	stats_inc((enum stats_id)(STATS_DISCOVERIES +
	    (refresh ? 1 : 0) * STATS_DISCOVERY_OUTCOMES + o));
	if (res->outcome == DISCOVER_FAILURE && res->failure > 0 &&
	    (int)res->failure <= STATS_DISCOVERY_FAILURES)
		stats_inc((enum stats_id)(STATS_DISCOVERY_FAIL +
		    res->failure - 1));
	stats_dns(res->txt_status, res->txt_rcode, res->txt_security);
	if (res->tlsrpt_asked)
		stats_dns(res->tlsrpt_status, res->tlsrpt_rcode,
		    res->tlsrpt_security);
	if (res->addrs_checked) {
		if (res->a_security == DNS_BOGUS)
			stats_inc(STATS_DNS_ERRORS + STATS_DNS_BOGUS);
		if (res->aaaa_security == DNS_BOGUS)
			stats_inc(STATS_DNS_ERRORS + STATS_DNS_BOGUS);
	}
	if (res->fetched && res->https_error > 0 &&
	    (int)res->https_error <= STATS_HTTPS_ERRORS)
		stats_inc((enum stats_id)(STATS_HTTPS_ERRORS_BASE +
		    res->https_error - 1));
}

/* stats_dane_fail - count one failed lookup of class f, type rr */
static void
stats_dane_fail(enum dane_fail f, enum stats_dane_rrtype rr)
{
	if (f < DANE_FAIL_BOGUS || f > DANE_FAIL_TIMEOUT)
		return;
	stats_inc((enum stats_id)(STATS_DANE_DNS_FAIL +
	    ((int)f - DANE_FAIL_BOGUS) * STATS_RR_COUNT + rr));
}

void
stats_dane_failures(const struct dane_result *res)
{
	size_t	 i;

	stats_dane_fail(res->mx_fail, STATS_RR_MX);
	for (i = 0; i < res->nhosts; i++)
		stats_dane_fail(res->hosts[i].fail,
		    res->hosts[i].fail_rrtype == DNS_TYPE_A ? STATS_RR_A :
		    res->hosts[i].fail_rrtype == DNS_TYPE_AAAA ? STATS_RR_AAAA :
		    STATS_RR_TLSA);
}

size_t
stats_file_size(void)
{
	return (STATS_HEADER_SIZE + (size_t)STATS_SLOTS * STATS_SLOT_SIZE);
}

int
stats_create(const char *path, int chown, uid_t uid, gid_t gid, char *err,
    size_t errsz)
{
	struct stats_header h;
	char		 tmp[CONFIG_MAX_PATH + 32];
	size_t		 len = stats_file_size();
	void		*map;
	int		 fd, n;

	n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		snprintf(err, errsz, "%s: path too long", path);
		return (-1);
	}
	/* Built under a temporary name and renamed: a reader never sees a
	 * file without its header. */
	(void)unlink(tmp);
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) ==
	    -1) {
		snprintf(err, errsz, "open %s: %s", tmp, strerror(errno));
		return (-1);
	}
	if ((chown && fchown(fd, uid, gid) == -1) ||
	    fchmod(fd, 0640) == -1 || ftruncate(fd, (off_t)len) == -1) {
		snprintf(err, errsz, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errsz, "mmap %s: %s", tmp, strerror(errno));
		goto fail;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, STATS_MAGIC, sizeof(h.magic));
	h.version = STATS_VERSION;
	h.slots = STATS_SLOTS;
	h.counters = STATS_NCOUNTERS;
	h.slot_size = (uint32_t)STATS_SLOT_SIZE;
	h.started = clock_wall();
	h.master_pid = (int64_t)getpid();
	memcpy(map, &h, sizeof(h));
	if (rename(tmp, path) == -1) {
		snprintf(err, errsz, "rename %s to %s: %s", tmp, path,
		    strerror(errno));
		munmap(map, len);
		goto fail;
	}
	close(fd);
	stats_close();
	stats_map = map;
	stats_map_len = len;
	return (0);
fail:
	close(fd);
	(void)unlink(tmp);
	return (-1);
}

void
stats_attach(int slot)
{
	if (stats_map == NULL || slot < 0 || slot >= STATS_SLOTS) {
		stats_slot = stats_dummy;
		return;
	}
	stats_slot = (uint64_t *)((char *)stats_map + STATS_HEADER_SIZE +
	    (size_t)slot * STATS_SLOT_SIZE);
}

uint64_t
stats_peek(int slot, enum stats_id id)
{
	const uint64_t	*p;

	if (stats_map == NULL || slot < 0 || slot >= STATS_SLOTS ||
	    (int)id < 0 || id >= STATS_NCOUNTERS)
		return (0);
	p = (const uint64_t *)((const char *)stats_map + STATS_HEADER_SIZE +
	    (size_t)slot * STATS_SLOT_SIZE);
	return (__atomic_load_n(&p[id], __ATOMIC_RELAXED));
}

void
stats_clear(int slot, enum stats_id id)
{
	uint64_t	*p;

	if (stats_map == NULL || slot < 0 || slot >= STATS_SLOTS ||
	    (int)id < 0 || id >= STATS_NCOUNTERS)
		return;
	p = (uint64_t *)((char *)stats_map + STATS_HEADER_SIZE +
	    (size_t)slot * STATS_SLOT_SIZE);
	__atomic_store_n(&p[id], 0, __ATOMIC_RELAXED);
}

void
stats_close(void)
{
	if (stats_map != NULL)
		munmap(stats_map, stats_map_len);
	stats_map = NULL;
	stats_map_len = 0;
	stats_slot = stats_dummy;
}

int
stats_sum(const void *map, size_t len, struct stats_snapshot *s, char *err,
    size_t errsz)
{
	struct stats_header h;
	const uint64_t	*slot;
	size_t		 i, j;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(h)) {
		snprintf(err, errsz, "too short for a stats file");
		return (-1);
	}
	memcpy(&h, map, sizeof(h));
	if (memcmp(h.magic, STATS_MAGIC, sizeof(h.magic)) != 0) {
		snprintf(err, errsz, "not a postsmtpsts stats file");
		return (-1);
	}
	if (h.version != STATS_VERSION || h.slots != STATS_SLOTS ||
	    h.counters != STATS_NCOUNTERS || h.slot_size != STATS_SLOT_SIZE ||
	    len != stats_file_size()) {
		snprintf(err, errsz, "stats layout version %u (%u slots of %u "
		    "counters), this program reads version %d (%d of %d): "
		    "daemon and tool are different builds", h.version, h.slots,
		    h.counters, STATS_VERSION, STATS_SLOTS, STATS_NCOUNTERS);
		return (-1);
	}
	s->started = h.started;
	s->master_pid = h.master_pid;
	for (i = 0; i < STATS_SLOTS; i++) {
		slot = (const uint64_t *)((const char *)map +
		    STATS_HEADER_SIZE + i * STATS_SLOT_SIZE);
		for (j = 0; j < STATS_NCOUNTERS; j++)
			s->v[j] += __atomic_load_n(&slot[j], __ATOMIC_RELAXED);
	}
	return (0);
}

int
stats_snapshot_self(struct stats_snapshot *s)
{
	char	 err[256];

	if (stats_map == NULL)
		return (-1);
	return (stats_sum(stats_map, stats_map_len, s, err, sizeof(err)));
}

int
stats_read(const char *path, struct stats_snapshot *s, char *err,
    size_t errsz)
{
	struct stat	 sb;
	void		*map;
	int		 fd, rv;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	if ((size_t)sb.st_size != stats_file_size()) {
		snprintf(err, errsz, "%s: %jd bytes, not a stats file of this "
		    "build (%zu bytes)", path, (intmax_t)sb.st_size,
		    stats_file_size());
		close(fd);
		return (-1);
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errsz, "mmap %s: %s", path, strerror(errno));
		return (-1);
	}
	rv = stats_sum(map, (size_t)sb.st_size, s, err, errsz);
	munmap(map, (size_t)sb.st_size);
	if (rv == -1) {
		/* prefix the path to the reason */
		char	 why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errsz, "%s: %s", path, why);
	}
	return (rv);
}

int
stats_escape_label(const char *in, char *out, size_t outsz)
{
	size_t	 o = 0;
	const char *rep;
	char	 one[2];

	if (outsz == 0)
		return (-1);
	for (; *in != '\0'; in++) {
		one[0] = *in;
		one[1] = '\0';
		rep = *in == '\\' ? "\\\\" : *in == '"' ? "\\\"" :
		    *in == '\n' ? "\\n" : one;
		if (o + strlen(rep) >= outsz) {
			out[o] = '\0';
			return (-1);
		}
		memcpy(out + o, rep, strlen(rep));
		o += strlen(rep);
	}
	out[o] = '\0';
	return (0);
}

/* stats_render_family - HELP, TYPE and every sample of one family */
static void
stats_render_family(const struct stats_family *f,
    const struct stats_snapshot *s, struct buf *out)
{
	char	 e1[128], e2[128];
	int	 i, j;

	buf_appendf(out, "# HELP %s %s\n# TYPE %s counter\n", f->name,
	    f->help, f->name);
	for (i = 0; i < f->n1; i++)
		for (j = 0; j < f->n2; j++) {
			uint64_t v = s->v[f->base + i * f->n2 + j];

			if (f->l1 == NULL) {
				buf_appendf(out, "%s %llu\n", f->name,
				    (unsigned long long)v);
				continue;
			}
			if (stats_escape_label(f->v1 != NULL ? f->v1[i] :
			    f->f1(i), e1, sizeof(e1)) == -1)
				out->error = 1;
			if (f->l2 == NULL) {
				buf_appendf(out, "%s{%s=\"%s\"} %llu\n",
				    f->name, f->l1, e1, (unsigned long long)v);
				continue;
			}
			if (stats_escape_label(f->v2 != NULL ? f->v2[j] :
			    f->f2(j), e2, sizeof(e2)) == -1)
				out->error = 1;
			buf_appendf(out, "%s{%s=\"%s\",%s=\"%s\"} %llu\n",
			    f->name, f->l1, e1, f->l2, e2,
			    (unsigned long long)v);
		}
}

int
stats_render(const struct stats_snapshot *s, struct buf *out)
{
	const char	*h = "postsmtpsts_lookup_duration_seconds";
	uint64_t	 cum = 0;
	size_t		 i;

	for (i = 0; i < sizeof(stats_families) / sizeof(stats_families[0]);
	    i++)
		stats_render_family(&stats_families[i], s, out);
	buf_appendf(out, "# HELP %s Time from a decoded socketmap request to "
	    "its answer, in the worker.\n# TYPE %s histogram\n", h, h);
	for (i = 0; i < STATS_LATENCY_BUCKETS; i++) {
		cum += s->v[STATS_LATENCY + i];
		if (i < STATS_LATENCY_FINITE)
			buf_appendf(out, "%s_bucket{le=\"%g\"} %llu\n", h,
			    stats_bounds[i], (unsigned long long)cum);
		else
			buf_appendf(out, "%s_bucket{le=\"+Inf\"} %llu\n", h,
			    (unsigned long long)cum);
	}
	buf_appendf(out, "%s_sum %llu.%09llu\n%s_count %llu\n", h,
	    (unsigned long long)(s->v[STATS_LATENCY_SUM_NS] / 1000000000u),
	    (unsigned long long)(s->v[STATS_LATENCY_SUM_NS] % 1000000000u),
	    h, (unsigned long long)cum);
	buf_appendf(out, "# HELP postsmtpsts_connections_open Postfix "
	    "connections the workers hold open now.\n# TYPE "
	    "postsmtpsts_connections_open gauge\npostsmtpsts_connections_open "
	    "%llu\n", (unsigned long long)s->v[STATS_CONN_OPEN]);
	buf_appendf(out, "# HELP postsmtpsts_start_time_seconds Start time "

	    "of the daemon (Unix time).\n# TYPE postsmtpsts_start_time_seconds "
	    "gauge\npostsmtpsts_start_time_seconds %lld\n",
	    (long long)s->started);
	if (s->exceptions_known)
		buf_appendf(out, "# HELP postsmtpsts_pin_exceptions Timed "
		    "exceptions (domain sections with until) of the running "
		    "configuration, by state: in force, or lapsed (the pin no "
		    "longer applies: remove the section).\n"
		    "# TYPE postsmtpsts_pin_exceptions gauge\n"
		    "postsmtpsts_pin_exceptions{state=\"in-force\"} %llu\n"
		    "postsmtpsts_pin_exceptions{state=\"lapsed\"} %llu\n",
		    (unsigned long long)s->exceptions_in_force,
		    (unsigned long long)s->exceptions_lapsed);
	return (out->error ? -1 : 0);
}
