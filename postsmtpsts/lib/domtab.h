/*
 * domtab.h - a chained hash table of domains (intrusive)
 *
 * The worker's in-flight lookups and the resolver's jobs are both "one
 * entry per domain, found by the domain, removed when done".  An entry
 * embeds a struct domtab_node (which holds the domain) and is found back
 * from it with DOMTAB_ENTRY().  The table owns neither the entries nor
 * their memory: it only links them.  Keys are normalized domains
 * (domain_normalize(): at most DOMAIN_MAX_LEN bytes); hash: FNV-1a (hash.h:
 * the keys come from our own MTA, and both tables are bounded).
 */
#ifndef DOMTAB_H
#define DOMTAB_H

#include <stddef.h>

#include "lib/domain.h"

struct domtab_node {
	struct domtab_node *next;	/* hash chain */
	size_t		 len;
	char		 domain[DOMAIN_BUFSZ];	/* NUL-terminated */
};

struct domtab {
	struct domtab_node **buckets;
	size_t		 mask;		/* nbuckets - 1 */
	size_t		 count;
};

/* DOMTAB_ENTRY - the entry of type that embeds node as member */
#define DOMTAB_ENTRY(node, type, member) \
	((type *)(void *)((char *)(node) - offsetof(type, member)))

/* domtab_init - an empty table of nbuckets (a power of two) buckets */
void	domtab_init(struct domtab *t, size_t nbuckets);
/* domtab_free - free the buckets; the entries are the caller's */
void	domtab_free(struct domtab *t);
/* domtab_find - the node for d[0..len), or NULL */
struct domtab_node *domtab_find(const struct domtab *t, const char *d,
	    size_t len);
/* domtab_insert - copy d[0..len) (len <= DOMAIN_MAX_LEN, not in the table)
 * into n and link it */
void	domtab_insert(struct domtab *t, struct domtab_node *n, const char *d,
	    size_t len);
/* domtab_remove - unlink n (a no-op if it is not linked) */
void	domtab_remove(struct domtab *t, struct domtab_node *n);
/* domtab_next - every node once: the first with prev NULL, then the one
 * after prev; NULL at the end.  The table must not change in between. */
struct domtab_node *domtab_next(const struct domtab *t,
	    const struct domtab_node *prev);

#endif
