/*
 * stats.h - the daemon's counters: shared, lock-free, Prometheus output
 *
 * The master creates one file, <runtime_dir>/stats (STATS_FILE), before it
 * forks, and maps it shared; every child inherits the mapping.  The file
 * is a header and STATS_SLOTS slots of STATS_NCOUNTERS 64-bit counters,
 * one slot per process role: front worker i uses slot i, the resolver
 * STATS_SLOT_RESOLVER, the metrics server STATS_SLOT_METRICS.  A slot
 * outlives its process, so counters survive restarts and reloads; a
 * reader sums every slot.  Updates are relaxed atomic additions (no lock,
 * no system call): during a reload the draining worker and its successor
 * share a slot for a moment, and neither loses an increment.  Slots are
 * cache-line aligned so workers on different cores do not share lines.
 *
 * A reader (the metrics server, postsmtpsts-cache stats) checks the
 * header's magic, version and sizes and refuses any other layout.
 *
 * Compiled with -DSTATS_DISABLED every update is a no-op (to measure the
 * counters' cost on the hot path; the output then shows zeros).
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "lib/cache.h"
#include "lib/sockmap.h"
#include "policy/history.h"
#include "policy/requiretls.h"

struct buf;
struct discover_result;

#define STATS_FILE		"stats"	/* inside runtime_dir */
#define STATS_MAGIC		"PSTSSTAT"	/* 8 bytes, no NUL */
#define STATS_VERSION		5	/* 2: the worker gauges, 3: accept
					   errors, 4: policy events, 5: preload */
#define STATS_MAX_WORKERS	256		/* >= CONFIG_MAX_WORKERS */
#define STATS_SLOT_RESOLVER	STATS_MAX_WORKERS
#define STATS_SLOT_METRICS	(STATS_MAX_WORKERS + 1)
#define STATS_SLOTS		(STATS_MAX_WORKERS + 2)
#define STATS_HEADER_SIZE	64
#define STATS_MAX_OUTPUT	(256 * 1024)	/* rendered text, bytes */

/* Where a lookup's answer came from (label source=). */
enum stats_source {
	STATS_SRC_PINNED,	/* a domain pinned in the configuration */
	STATS_SRC_CACHE,	/* a fresh cache entry, read by the worker */
	STATS_SRC_RESOLVER,	/* the resolver's reply */
	STATS_SRC_DEADLINE,	/* request_timeout passed: deadline_answer */
	STATS_SRC_INVALID,	/* unknown map or a key that is no domain */
	STATS_SRC_COUNT,
};

#define STATS_ANSWER_COUNT	(SOCKMAP_PERM + 1)	/* label answer= */

/* The worker's cache read (label result=). */
enum stats_cache {
	STATS_CACHE_HIT,	/* a fresh entry: answered */
	STATS_CACHE_STALE,	/* an entry past expires_at */
	STATS_CACHE_MISS,	/* no entry */
	STATS_CACHE_UNAVAILABLE,	/* not created yet or unreadable */
	STATS_CACHE_COUNT,
};

/* DANE lookups by outcome (label outcome=), for dane.c. */
enum stats_dane {
	STATS_DANE_ONLY,	/* "dane-only" answered */
	STATS_DANE_DANE,	/* "dane" answered */
	STATS_DANE_NONE,	/* no usable TLSA: not a DANE domain */
	STATS_DANE_FAILURE,	/* lookup failed (bogus, SERVFAIL, ...) */
	STATS_DANE_ENCRYPT,	/* "encrypt": TLSA on every MX host, none
				   usable (RFC 7672 §2.2) */
	STATS_DANE_TLS_SOME,	/* none usable, TLSA on some MX hosts
				   ("dane" by default) */
	STATS_DANE_COUNT,
};

/* DNS errors seen by discoveries (label kind=). */
enum stats_dns_error {
	STATS_DNS_TIMEOUT,
	STATS_DNS_SERVFAIL,	/* an RCODE other than NOERROR/NXDOMAIN */
	STATS_DNS_BOGUS,	/* DNSSEC validation failed */
	STATS_DNS_RESOLVER,	/* libunbound failed the query */
	STATS_DNS_COUNT,
};

/* DANE lookups that failed (labels class=, type=), for dane.c results:
 * class = enum dane_fail minus NONE, type below. */
#define STATS_DANE_FAIL_CLASSES	3	/* bogus, servfail, timeout */
enum stats_dane_rrtype {
	STATS_RR_MX,
	STATS_RR_A,
	STATS_RR_AAAA,
	STATS_RR_TLSA,
	STATS_RR_COUNT,
};

/* accept(2) failures of the workers' listeners (label error=). */
enum stats_accept {
	STATS_ACCEPT_EMFILE,	/* the process's descriptors are used up */
	STATS_ACCEPT_ENFILE,	/* the system's */
	STATS_ACCEPT_ENOBUFS,
	STATS_ACCEPT_ENOMEM,
	STATS_ACCEPT_OTHER,
	STATS_ACCEPT_COUNT,
};

/* Preload list entries met by the workers (label event=, issue 38). */
enum stats_preload {
	STATS_PRELOAD_ANSWERED,	/* an enforce entry answered secure */
	STATS_PRELOAD_EXPIRED,	/* an entry of an expired list: unused */
	STATS_PRELOAD_COUNT,
};

/* Metrics server replies (label code=). */
enum stats_http {
	STATS_HTTP_200,
	STATS_HTTP_400,
	STATS_HTTP_404,
	STATS_HTTP_405,
	STATS_HTTP_COUNT,
};

/* Lookup latency buckets, upper bounds in seconds (+Inf is the last). */
#define STATS_LATENCY_BOUNDS	{ 0.0001, 0.00025, 0.0005, 0.001, \
	0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, \
	10.0 }
#define STATS_LATENCY_FINITE	16
#define STATS_LATENCY_BUCKETS	(STATS_LATENCY_FINITE + 1)

#define STATS_DISCOVERY_OUTCOMES 4	/* enum discover_outcome */
#define STATS_DISCOVERY_FAILURES 6	/* enum discover_failure, not NONE */
#define STATS_HTTPS_ERRORS	9	/* enum https_error, not OK */

#define STATS_FLEET_COUNT	18	/* enum fleet_counter, FLEET_C_COUNT */

/* Counter indexes in a slot; a labelled family is a block of them. */
enum stats_id {
	STATS_LOOKUPS = 0,	/* [source][answer] */
	STATS_LATENCY = STATS_LOOKUPS + STATS_SRC_COUNT * STATS_ANSWER_COUNT,
	STATS_LATENCY_SUM_NS = STATS_LATENCY + STATS_LATENCY_BUCKETS,
	STATS_REQUESTS,		/* well-framed socketmap requests */
	STATS_PROTO_FRAME,	/* broken netstring: connection closed */
	STATS_PROTO_REQUEST,	/* a frame that is no "name key" */
	STATS_CONN_ACCEPTED,
	STATS_CONN_REFUSED,	/* over max_connections or draining */
	STATS_CONN_CLOSED,
	STATS_CACHE_READS,	/* [enum stats_cache] */
	STATS_DISCOVERIES = STATS_CACHE_READS + STATS_CACHE_COUNT,
				/* [request, refresh][outcome] */
	STATS_DISCOVERY_FAIL = STATS_DISCOVERIES + 2 * STATS_DISCOVERY_OUTCOMES,
	STATS_DNS_ERRORS = STATS_DISCOVERY_FAIL + STATS_DISCOVERY_FAILURES,
	STATS_HTTPS_ERRORS_BASE = STATS_DNS_ERRORS + STATS_DNS_COUNT,
	STATS_REFRESHES = STATS_HTTPS_ERRORS_BASE + STATS_HTTPS_ERRORS,
	STATS_CACHE_DELETED,	/* expired entries the resolver removed */
	STATS_CACHE_WRITE_ERRORS,
	STATS_CACHE_CORRUPT,	/* damaged environments moved aside */
	STATS_CACHE_EVICTED,	/* [enum cache_evict_class] */
	STATS_DANE_LOOKUPS = STATS_CACHE_EVICTED + CACHE_EVICT_CLASSES,
				/* [enum stats_dane] */
	STATS_HTTP_REQUESTS = STATS_DANE_LOOKUPS + STATS_DANE_COUNT,
	STATS_FLEET = STATS_HTTP_REQUESTS + STATS_HTTP_COUNT,
				/* [enum fleet_counter] (lib/fleet.h) */
	STATS_TXT_CHECKS = STATS_FLEET + STATS_FLEET_COUNT,
				/* TXT id re-checks started (facts_txt_due) */
	STATS_DANE_DNS_FAIL,	/* [class][enum stats_dane_rrtype] */
	STATS_ANSWERS = STATS_DANE_DNS_FAIL +
	    STATS_DANE_FAIL_CLASSES * STATS_RR_COUNT,
				/* [enum requiretls_level]: lookups by the
				   TLS level of their answer */
	/* Gauges of a worker slot (not counters: never summed as such but
	 * for postsmtpsts_connections_open): the Postfix connections the
	 * slot's worker holds open, and 1 while it runs.  The worker keeps
	 * them (stats_add, stats_sub), the master clears them when it reaps
	 * it; the other workers read them to balance accepts (worker.h). */
	STATS_ACCEPT_ERRORS = STATS_ANSWERS + REQUIRETLS_LEVEL_COUNT,
				/* [enum stats_accept] */
	STATS_POLICY_EVENTS = STATS_ACCEPT_ERRORS + STATS_ACCEPT_COUNT,
				/* [enum history_kind]: the resolver's
				   policy events (policy/history.h) */
	STATS_PRELOAD = STATS_POLICY_EVENTS + HISTORY_KIND_COUNT,
				/* [enum stats_preload] */
	STATS_CONN_OPEN = STATS_PRELOAD + STATS_PRELOAD_COUNT,
	STATS_WORKER_UP,
	STATS_NCOUNTERS,
};

/*
 * Every slot summed, and the header's facts.  The exception gauges are no
 * counters of the file: the metrics process sets them from its own
 * configuration at each scrape (pins_count: the configuration a reload
 * brought, the clock's time), a reader of the file alone leaves them out.
 */
struct stats_snapshot {
	uint64_t	 v[STATS_NCOUNTERS];
	int64_t		 started;	/* master start, Unix time */
	int64_t		 master_pid;
	int		 exceptions_known;	/* the two below are set */
	uint64_t	 exceptions_in_force;	/* timed pins before their end */
	uint64_t	 exceptions_lapsed;	/* timed pins past their end */
};

/* This process's counters: a private dummy until stats_attach(). */
extern uint64_t	*stats_slot;

#ifndef STATS_DISABLED
/* stats_add - counter id += n (relaxed atomic: exact, never a lock) */
static inline void
stats_add(enum stats_id id, uint64_t n)
{
	__atomic_fetch_add(&stats_slot[id], n, __ATOMIC_RELAXED);
}

/* stats_sub - gauge id -= n (relaxed atomic) */
static inline void
stats_sub(enum stats_id id, uint64_t n)
{
	__atomic_fetch_sub(&stats_slot[id], n, __ATOMIC_RELAXED);
}

/* stats_set - gauge id = n (relaxed atomic) */
static inline void
stats_set(enum stats_id id, uint64_t n)
{
	__atomic_store_n(&stats_slot[id], n, __ATOMIC_RELAXED);
}

/* stats_clock - monotonic nanoseconds (vDSO clock_gettime: no syscall) */

static inline uint64_t
stats_clock(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}
#else
static inline void
stats_add(enum stats_id id, uint64_t n)
{
	(void)id;
	(void)n;
}

static inline void
stats_sub(enum stats_id id, uint64_t n)
{
	(void)id;
	(void)n;
}

static inline void
stats_set(enum stats_id id, uint64_t n)
{
	(void)id;
	(void)n;
}


static inline uint64_t
stats_clock(void)
{
	return (0);
}
#endif

/* stats_inc - counter id += 1 */
static inline void
stats_inc(enum stats_id id)
{
	stats_add(id, 1);
}

/* stats_latency_bucket - the bucket index of a duration in ns */
int	stats_latency_bucket(uint64_t ns);

/*
 * stats_lookup - one answered lookup: counts it by source and answer, and
 * by the TLS level the reply (st, its data of len bytes after "OK ";
 * NULL, 0 for none) sets (requiretls_level_of: what share of answers
 * could carry REQUIRETLS mail), and adds now - t0 (from stats_clock()
 * when the request was decoded) to the latency histogram.
 */
static inline void
stats_lookup(enum stats_source src, enum sockmap_status st, const char *data,
    size_t len, uint64_t t0)
{
#ifndef STATS_DISABLED
	uint64_t	 ns = stats_clock() - t0;

	if ((unsigned)st >= STATS_ANSWER_COUNT)
		st = SOCKMAP_PERM;
	stats_inc((enum stats_id)(STATS_LOOKUPS + src * STATS_ANSWER_COUNT +
	    st));
	stats_inc((enum stats_id)(STATS_ANSWERS + requiretls_level_of(st,
	    data, len)));
	stats_inc((enum stats_id)(STATS_LATENCY + stats_latency_bucket(ns)));
	stats_add(STATS_LATENCY_SUM_NS, ns);
#else
	(void)src;
	(void)st;
	(void)data;
	(void)len;
	(void)t0;
#endif
}

/* stats_cache_read - one worker cache read, by result */
static inline void
stats_cache_read(enum stats_cache r)
{
	stats_inc((enum stats_id)(STATS_CACHE_READS + r));
}

/* stats_preload - a preload entry met by a worker, by event */
static inline void
stats_preload(enum stats_preload e)
{
	stats_inc((enum stats_id)(STATS_PRELOAD + e));
}

/* stats_dane - one DANE lookup, by outcome (for dane.c) */
static inline void
stats_dane(enum stats_dane outcome)
{
	stats_inc((enum stats_id)(STATS_DANE_LOOKUPS + outcome));
}

/* stats_policy_event - one policy event (policy/history.h), by kind */
static inline void
stats_policy_event(enum history_kind k)
{
	if ((unsigned)k < HISTORY_KIND_COUNT)
		stats_inc((enum stats_id)(STATS_POLICY_EVENTS + k));
}

/* stats_http - one metrics server reply, by status class */
static inline void
stats_http(enum stats_http code)
{
	stats_inc((enum stats_id)(STATS_HTTP_REQUESTS + code));
}

/*
 * stats_discovery - one finished discovery (resolver): its outcome by
 * trigger (refresh: proactive), its failure kind, the DNS errors of its
 * _mta-sts and _smtp._tls TXT lookups (and bogus policy host addresses)
 * and the HTTPS error of its fetch.
 */
void	stats_discovery(const struct discover_result *res, int refresh);

/*
 * stats_dane_failures - the failed lookups of one DANE lookup (resolver),
 * by class (bogus, servfail, timeout) and record type (the MX RRset, or a
 * host's A, AAAA or TLSA: each failed host counted once, left to Postfix)
 */
struct dane_result;
void	stats_dane_failures(const struct dane_result *res);

/*
 * stats_create - master, before forking: create path (mode 0640, owned by
 * uid:gid when chown is set), size and map it, write the header; the
 * mapping is inherited by every child.  Replaces an older file.  0, or -1
 * with a message in err (the daemon then runs without shared counters).
 */
int	stats_create(const char *path, int chown, uid_t uid, gid_t gid,
	    char *err, size_t errsz);

/* stats_attach - a child: count into slot (0 .. STATS_SLOTS-1) of the
 * inherited mapping; without one, into a private dummy */
void	stats_attach(int slot);

/* stats_peek - counter id of another slot of the inherited mapping (0
 * without one) */
uint64_t stats_peek(int slot, enum stats_id id);

/* stats_clear - the master: zero counter id of slot (a reaped worker's
 * gauges) */
void	stats_clear(int slot, enum stats_id id);


/* stats_snapshot_self - sum the inherited mapping; -1 if there is none */
int	stats_snapshot_self(struct stats_snapshot *s);

/*
 * stats_read - open path read-only, check its layout, sum every slot into
 * s.  0, or -1 with a message in err (no file, another layout).
 */
int	stats_read(const char *path, struct stats_snapshot *s, char *err,
	    size_t errsz);

/* stats_sum - sum the slots of a mapped file of len bytes into s; -1 with
 * a message if the header does not match this build's layout */
int	stats_sum(const void *map, size_t len, struct stats_snapshot *s,
	    char *err, size_t errsz);

/* stats_file_size - bytes of a stats file in this build's layout */
size_t	stats_file_size(void);

/*
 * stats_render - append s in the Prometheus text exposition format
 * (version 0.0.4) to out: every family with # HELP and # TYPE, every
 * label combination (zeros too), names postsmtpsts_*; the exception
 * gauges when s->exceptions_known.  0, or -1 if out overflowed.
 */
int	stats_render(const struct stats_snapshot *s, struct buf *out);

/* stats_escape_label - a label value escaped per the text format (\\ \"
 * \n) into out[outsz], always NUL-terminated; -1 if it did not fit */
int	stats_escape_label(const char *in, char *out, size_t outsz);

/* stats_close - unmap (master at exit, before removing the file) */
void	stats_close(void);

#endif
