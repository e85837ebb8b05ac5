/*
 * domtab.c - a chained hash table of domains (intrusive)
 *
 * Interface: domtab.h.  Buckets are singly linked chains, the bucket array
 * is allocated once (its size is fixed: both users bound their entries).
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "lib/domtab.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/* domtab_bucket - the chain head a domain hashes to */
static struct domtab_node **
domtab_bucket(const struct domtab *t, const char *d, size_t len)
{
	return (&t->buckets[hash_fnv1a(d, len) & t->mask]);
}

void
domtab_init(struct domtab *t, size_t nbuckets)
{
	if (nbuckets == 0 || (nbuckets & (nbuckets - 1)) != 0)
		panic("domtab_init: %zu buckets is not a power of two",
		    nbuckets);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	t->buckets = xcalloc(nbuckets, sizeof(*t->buckets));
	t->mask = nbuckets - 1;
	t->count = 0;
}

void
domtab_free(struct domtab *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->count = 0;
}

struct domtab_node *
domtab_find(const struct domtab *t, const char *d, size_t len)
{
	struct domtab_node *n;

	for (n = *domtab_bucket(t, d, len); n != NULL; n = n->next)
		if (n->len == len && memcmp(n->domain, d, len) == 0)
			return (n);
	return (NULL);
}

void
domtab_insert(struct domtab *t, struct domtab_node *n, const char *d,
    size_t len)
{
	struct domtab_node **head;

	if (len > DOMAIN_MAX_LEN)
		panic("domtab_insert: domain of %zu bytes", len);
	memcpy(n->domain, d, len);
	n->domain[len] = '\0';
	n->len = len;
	head = domtab_bucket(t, d, len);
	n->next = *head;
	*head = n;
	t->count++;
}

void
domtab_remove(struct domtab *t, struct domtab_node *n)
{
	struct domtab_node **pp;

	for (pp = domtab_bucket(t, n->domain, n->len); *pp != NULL;
	    pp = &(*pp)->next)
		if (*pp == n) {
			*pp = n->next;
			n->next = NULL;
			t->count--;
			return;
		}
}

struct domtab_node *
domtab_next(const struct domtab *t, const struct domtab_node *prev)
{
	size_t		 b = 0;

	if (prev != NULL) {
		if (prev->next != NULL)
			return (prev->next);
		b = (hash_fnv1a(prev->domain, prev->len) & t->mask) + 1;
	}
	for (; b <= t->mask; b++)
		if (t->buckets[b] != NULL)
			return (t->buckets[b]);
	return (NULL);
}
