/*
 * hash.h - FNV-1a, for the small in-memory tables keyed by domain
 *
 * Not for anything an attacker could exploit by collisions at scale: the
 * keys are normalized domains from Postfix (our own MTA's next hops), and
 * every table is bounded (inflight requests, resolver jobs).
 */
#ifndef HASH_H
#define HASH_H

#include <stddef.h>
#include <stdint.h>

/* hash_fnv1a - 32-bit FNV-1a of p[0..len) */
static inline uint32_t
hash_fnv1a(const char *p, size_t len)
{
	uint32_t	 h = 2166136261u;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 16777619u;
	}
	return (h);
}

#endif
