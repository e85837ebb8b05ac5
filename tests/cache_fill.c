/*
 * cache_fill.c - fill a policy cache with synthetic records, fast
 *
 * cache_fill [-d] [-x] [-m MiB] [-t now] DIR N
 *
 * Writes N records through cache.h into the cache in DIR (created if
 * missing), CACHE_FILL_BATCH records per write transaction, so a million
 * take about a hundred commits.  For the e2e test of postsmtpsts-cache(8)
 * and for benchmarks.  Record i has the domain "d%07u.fill.example" and,
 * so that every kind shows up, a shape chosen by i % 10:
 *   0-5  MTA-STS enforce, fresh; mx "mx1.d<i>.fill.example",
 *        "*.d<i>.fill.example"
 *   6    MTA-STS enforce, expired an hour before now
 *   7    MTA-STS testing
 *   8    DANE (DNSSEC secure, no mx patterns)
 *   9    negative entry (no policy)
 * With -d, every record of shape 0-7 also gets its DANE entry ("dane:" +
 * the domain: kind DANE, state 0 = no DANE, DNSSEC insecure, as fresh as
 * the record), which a map with dane = yes (the default) needs for an
 * answer from the cache: without it such a lookup is a miss and waits for
 * the network.  Records 8 and 9 get none (shape 8 is a DANE record under
 * the plain key, shape 9 a negative entry).
 * MTA-STS records carry no TXT check time (txt_checked_at 0), so their id
 * re-check (issue 13) is due at first use; with -x every record of kind
 * sts was checked at now with a TXT TTL of an hour: not due (bench/run's
 * scenario cached against txt_due).
 * Times are relative to -t now (default: the current time).  -m sets the
 * map size in MiB (default: CACHE_DEFAULT_MAP_SIZE, more for big N).
 * Prints the count and the time taken.  Exit 0, or 1 on any error.
 */
#include "autoconf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cache.h"
#include "lib/log.h"

#define CACHE_FILL_BATCH	10000
#define CACHE_FILL_BYTES_EACH	1024	/* map size per record, generous */
#define CACHE_FILL_MAX		100000000u

/* cache_fill_usage - print the synopsis and exit 2 */
static void __attribute__((noreturn))
cache_fill_usage(void)
{
	fprintf(stderr, "usage: cache_fill [-d] [-x] [-m MiB] [-t now] DIR N\n");
	exit(2);
}

/* cache_fill_number - parse a decimal number up to max, or exit 2 */
static unsigned long long
cache_fill_number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char	*end;

	if (*s < '0' || *s > '9')
		cache_fill_usage();
	v = strtoull(s, &end, 10);
	if (*end != '\0' || v > max)
		cache_fill_usage();
	return (v);
}

/* cache_fill_dane - the DANE entry of record i (-d): no DANE, fresh */
static void
cache_fill_dane(struct cache_record *r, int64_t now)
{
	cache_record_reset(r);
	r->kind = CACHE_KIND_DANE;
	r->dnssec = CACHE_DNSSEC_INSECURE;
	r->fetched_at = now - 60;
	r->expires_at = now + 3600;
	r->next_refresh = now + 3600;
}

/* cache_fill_record - the synthetic record i, see the table above */
static void
cache_fill_record(struct cache_record *r, unsigned int i, int64_t now)
{
	char	 mx[64];

	cache_record_reset(r);
	r->fetched_at = now - 60;
	r->max_age = 86400;
	r->expires_at = now + 86400;
	r->next_refresh = now + 43200;
	r->dnssec = CACHE_DNSSEC_INSECURE;
	switch (i % 10) {
	case 8:
		r->kind = CACHE_KIND_DANE;
		r->dnssec = CACHE_DNSSEC_SECURE;
		r->dane = 1;
		r->max_age = 0;
		return;
	case 9:
		r->kind = CACHE_KIND_NONE;
		r->max_age = 0;
		r->expires_at = now + 3600;
		r->next_refresh = now + 3600;
		return;
	case 7:
		r->sts_mode = CACHE_STS_TESTING;
		break;
	case 6:
		r->sts_mode = CACHE_STS_ENFORCE;
		r->fetched_at = now - 90000;
		r->expires_at = now - 3600;
		r->next_refresh = now - 46800;
		r->last_error = 2;
		r->last_error_at = now - 600;
		break;
	default:
		r->sts_mode = CACHE_STS_ENFORCE;
		break;
	}
	r->kind = CACHE_KIND_STS;
	snprintf(r->id, sizeof(r->id), "fill%u", i);
	cache_record_mx_clear(r);
	snprintf(mx, sizeof(mx), "mx1.d%07u.fill.example", i);
	cache_record_mx_add(r, mx, strlen(mx));
	snprintf(mx, sizeof(mx), "*.d%07u.fill.example", i);
	cache_record_mx_add(r, mx, strlen(mx));
}

int
main(int argc, char *argv[])
{
	static struct cache_record rec, drec;
	struct cache	*c;
	struct timespec	 t0, t1;
	char		 err[1024], name[CACHE_KEY_MAX + 1];
	char		 dkey[CACHE_KEY_MAX + 1];
	int		 dane = 0, checked = 0;
	size_t		 map_size = 0;
	int64_t		 now = time(NULL);
	unsigned int	 n, i;
	double		 secs;
	int		 ch, st = CACHE_OK;

	log_init("cache_fill", 1, 0);
	while ((ch = getopt(argc, argv, "dxm:t:")) != -1) {
		switch (ch) {
		case 'x':
			checked = 1;
			break;
		case 'd':
			dane = 1;
			break;
		case 'm':
			map_size = (size_t)cache_fill_number(optarg,
			    SIZE_MAX >> 20) << 20;
			break;
		case 't':
			now = (int64_t)cache_fill_number(optarg, INT32_MAX);
			break;
		default:
			cache_fill_usage();
		}
	}
	if (argc - optind != 2)
		cache_fill_usage();
	n = (unsigned int)cache_fill_number(argv[optind + 1],
	    CACHE_FILL_MAX);
	if (map_size == 0 &&
	    (size_t)n * CACHE_FILL_BYTES_EACH > CACHE_DEFAULT_MAP_SIZE)
		map_size = (size_t)n * CACHE_FILL_BYTES_EACH;

	if ((c = cache_open(argv[optind], map_size, 0, err,
	    sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return (1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n && st == CACHE_OK; i++) {
		if (i % CACHE_FILL_BATCH == 0 &&
		    (st = cache_txn_begin(c)) != CACHE_OK)
			break;
		snprintf(name, sizeof(name), "d%07u.fill.example", i);
		cache_fill_record(&rec, i, now);
		if (checked && rec.kind == CACHE_KIND_STS) {
			rec.txt_checked_at = now;
			rec.txt_ttl = 3600;
		}
		if ((st = cache_put(c, name, &rec)) != CACHE_OK)
			break;
		if (dane && i % 10 < 8) {
			cache_fill_dane(&drec, now);
			(void)cache_dane_key(name, strlen(name), dkey);
			if ((st = cache_put(c, dkey, &drec)) != CACHE_OK)
				break;
		}
		if ((i + 1) % CACHE_FILL_BATCH == 0 || i + 1 == n)
			st = cache_txn_commit(c);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cache_close(c);
	if (st != CACHE_OK) {
		log_warnx("record %u: %s", i, cache_status_name(st));
		return (1);
	}
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("cache_fill: %u records in %.3f s (%.0f records/s)\n", n, secs,
	    secs > 0 ? n / secs : 0.0);
	return (0);
}
