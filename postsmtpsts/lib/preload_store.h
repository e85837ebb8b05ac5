/*
 * preload_store.h - the preload lists' entries, held (LMDB)
 *
 * NAME
 *	preload_store - where imported preload entries live
 * SYNOPSIS
 *	s = preload_store_open(path, readonly, err, errsz);
 *	rc = preload_store_get(s, "example.com", &hit);
 *	rc = preload_store_replace(s, &meta, entries, n, err, errsz);
 *	preload_store_close(s);
 * DESCRIPTION
 *	An LMDB environment of its own (a directory, like the cache's, but
 *	apart from it: a damaged cache is moved aside whole, and what was
 *	preloaded must not go with it).  Keys: a normalized domain, its entry
 *	(value: version 1, mode, the list's name, timestamp and expires, the
 *	mx patterns); "!list:NAME" (no domain starts with '!'), a list's
 *	meta data.  One entry a domain: a domain two lists name keeps the
 *	one held, unless that is testing and the new one enforce.
 *
 *	The workers open it read-only when it exists: a lookup reads it only
 *	when no policy was discovered for the domain (decide), one B-tree
 *	miss for a domain no list names, nothing for the rest.
 * SEE ALSO
 *	policy/preload_list.h (the list format), doc/DESIGN.md "Preload
 *	lists".
 */
#ifndef PRELOAD_STORE_H
#define PRELOAD_STORE_H

#include <stddef.h>
#include <stdint.h>

#define PRELOAD_STORE_MAX_NAME	32	/* a list's name, bytes */
#define PRELOAD_STORE_MAX_SOURCE 512	/* where it came from */
#define PRELOAD_STORE_MAP_SIZE	((size_t)256 << 20)
#define PRELOAD_STORE_MAX_MX	(64 * 258)	/* 64 patterns of 255 + NUL */

/* An entry as the store keeps it (mode: 1 testing, 2 enforce, the values
 * of enum preload_mode). */
struct preload_store_entry {
	const char	*domain;
	int		 mode;
	size_t		 nmx;
	const char	*mx;		/* nmx patterns, NUL after each */
	size_t		 mxlen;
};

/* A list's meta data. */
struct preload_store_list {
	char		 name[PRELOAD_STORE_MAX_NAME + 1];
	int64_t		 timestamp;	/* the list's own */
	int64_t		 expires;
	int64_t		 loaded_at;	/* when it was imported */
	uint32_t	 n;		/* entries it holds */
	char		 source[PRELOAD_STORE_MAX_SOURCE + 1];
	char		 signer[65];	/* fingerprint, or "" (trusted) */
};

/* What a lookup finds; mx points into the store's own buffer, valid
 * until the next preload_store_get on the same handle. */
struct preload_store_hit {
	int		 mode;
	char		 list[PRELOAD_STORE_MAX_NAME + 1];
	int64_t		 timestamp;
	int64_t		 expires;
	size_t		 nmx;
	const char	*mx;
	size_t		 mxlen;
};

struct preload_store;

/*
 * preload_store_open - open (readonly 0: create) the environment at path
 *
 * A reader whose store does not exist yet gets NULL and err "...: no
 * preload store".  Returns the handle or NULL with err set.
 */
struct preload_store *preload_store_open(const char *path, int readonly,
	    char *err, size_t errsz);

/* preload_store_close - close; NULL is a no-op */
void	preload_store_close(struct preload_store *s);

/*
 * preload_store_get - the entry of a normalized domain
 *
 * Returns 1 and fills hit, 0 when no list names it, -1 on a read error
 * or a value that does not decode (logged).
 */
int	preload_store_get(struct preload_store *s, const char *domain,
	    struct preload_store_hit *hit);

/* preload_store_list_get - list name's meta data: 1, 0 (none), -1 */
int	preload_store_list_get(struct preload_store *s, const char *name,
	    struct preload_store_list *out);

/*
 * preload_store_replace - list meta->name becomes entries e[0..n)
 *
 * One write transaction: refused (-1, err "... older than the one held
 * ...") when a list of that name is held with a later timestamp; the
 * list's old entries are deleted, the new ones put (a domain another
 * list holds in enforce mode is left to it), the meta data written with
 * meta->n the entries put.  Returns 0 or -1 with err.
 */
int	preload_store_replace(struct preload_store *s,
	    struct preload_store_list *meta,
	    const struct preload_store_entry *e, size_t n, char *err,
	    size_t errsz);

/*
 * preload_store_lists - call fn for each list held, in name order
 * Returns 0, or -1 on a read error.
 */
int	preload_store_lists(struct preload_store *s,
	    void (*fn)(const struct preload_store_list *, void *), void *arg);

#endif
