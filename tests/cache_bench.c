/*
 * cache_bench.c - cache_get latency on a cache made by cache_fill
 *
 * cache_bench DIR N LOOKUPS
 *
 * Opens DIR read-only, as a front worker does, and times LOOKUPS lookups
 * of names drawn at random from the N that cache_fill wrote (hits), then
 * LOOKUPS lookups of names that are not there but sort among them, so a
 * miss walks to a random leaf too (misses), after one untimed warm-up
 * pass.  Names are formatted before the clock starts, so the
 * figure is cache_get alone: renew the read txn, B-tree search, decode,
 * reset.  Prints ns per lookup.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cache.h"
#include "lib/log.h"

#define CACHE_BENCH_NAME	24	/* "d0000000.fill.example" + NUL */
#define CACHE_BENCH_MAX		100000000ul

/* cache_bench_rand - xorshift64: cheap, and the same run every time */
static uint64_t
cache_bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (*s);
}

/* cache_bench_run - time cache_get over names[0..count); ns per lookup */
static double
cache_bench_run(struct cache *c, const char *names, size_t count,
    struct cache_record *rec, int want, size_t *bad)
{
	struct timespec t0, t1;
	const char *p;
	size_t	 i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		p = names + i * CACHE_BENCH_NAME;
		if (cache_get(c, p, strlen(p), rec) != want)
			(*bad)++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
	    (double)(t1.tv_nsec - t0.tv_nsec)) / (double)count);
}

int
main(int argc, char *argv[])
{
	static struct cache_record rec;
	struct cache	*c;
	char		 err[1024], *hits, *misses;
	unsigned long	 n, count, i;
	uint64_t	 seed = 0x9e3779b97f4a7c15ull;
	size_t		 bad = 0;
	double		 hit_ns, miss_ns;

	log_init("cache_bench", 1, 0);
	if (argc != 4 || (n = strtoul(argv[2], NULL, 10)) == 0 ||
	    n > CACHE_BENCH_MAX ||
	    (count = strtoul(argv[3], NULL, 10)) == 0 ||
	    count > CACHE_BENCH_MAX) {
		fprintf(stderr, "usage: cache_bench DIR N LOOKUPS\n");
		return (2);
	}
	if ((c = cache_open(argv[1], 0, 1, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return (1);
	}
	hits = calloc(count, CACHE_BENCH_NAME);
	misses = calloc(count, CACHE_BENCH_NAME);
	if (hits == NULL || misses == NULL) {
		log_warn("calloc");
		return (1);
	}
	for (i = 0; i < count; i++) {
		snprintf(hits + i * CACHE_BENCH_NAME, CACHE_BENCH_NAME,
		    "d%07lu.fill.example",
		    (unsigned long)(cache_bench_rand(&seed) % n));
		snprintf(misses + i * CACHE_BENCH_NAME, CACHE_BENCH_NAME,
		    "d%07lu.miss.example",
		    (unsigned long)(cache_bench_rand(&seed) % n));
	}
	(void)cache_bench_run(c, hits, count, &rec, CACHE_HIT, &bad);
	hit_ns = cache_bench_run(c, hits, count, &rec, CACHE_HIT, &bad);
	miss_ns = cache_bench_run(c, misses, count, &rec, CACHE_MISS, &bad);
	printf("cache_bench: %lu entries, %lu lookups: hit %.0f ns, "
	    "miss %.0f ns per lookup\n", n, count, hit_ns, miss_ns);
	cache_close(c);
	free(hits);
	free(misses);
	if (bad > 0) {
		log_warnx("%zu lookups gave the wrong answer", bad);
		return (1);
	}
	return (0);
}
