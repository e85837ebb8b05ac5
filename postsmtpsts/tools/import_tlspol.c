/*
 * import_tlspol.c - the cache file of postfix-tlspol
 *
 * Interface and mapping: import_tlspol.h.  The reader covers the part of
 * Go's encoding/gob wire format (its package documentation) that a
 * map[string]*struct{...} with strings, integers, nested structs and
 * time.Time uses, and skips any other value a newer version might add:
 *
 *	stream   = *message
 *	message  = uint(length) int(type id) body
 *	           (id < 0: the definition of type -id, a wireType struct;
 *	           id > 0: a value of type id; a value of a type other than
 *	           a struct is preceded by uint(0), its "singleton" field)
 *	uint     = one byte < 0x80, or the byte -n (0x81..0xf8) and n bytes
 *	           big-endian; int = uint, low bit the sign (1: ^(u >> 1))
 *	struct   = *(uint(field delta) value) uint(0); absent fields are
 *	           zero; a pointer is its target
 *	map      = uint(count) count*(key value); slice, array = uint(count)
 *	           count*value; string, []byte = uint(length) bytes;
 *	           GobEncoder (time.Time) = uint(length) bytes
 *	time.Time's bytes (MarshalBinary) = version 1 or 2, int64 seconds
 *	           since January 1 of year 1, int32 nanoseconds, int16 zone
 *	           offset in minutes (version 2: one more byte of seconds)
 *
 * Built-in type ids: 1 bool, 2 int, 3 uint, 4 float, 5 []byte, 6
 * string, 7 complex, 8 interface; user types from 64 on (the
 * definitions tell).
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xmalloc.h"
#include "tools/import_row.h"
#include "tools/import_tlspol.h"

#define ITG_BOOL	1
#define ITG_INT		2
#define ITG_UINT	3
#define ITG_FLOAT	4
#define ITG_BYTES	5
#define ITG_STRING	6
#define ITG_COMPLEX	7
#define ITG_INTERFACE	8
#define ITG_FIRST_USER	64
#define ITG_UNIX_EPOCH	62135596800LL	/* seconds, year 1 to 1970 */
#define ITG_MATCH	"secure match="

enum itg_kind {
	ITG_UNDEFINED = 0,
	ITG_STRUCT,
	ITG_MAP,
	ITG_SLICE,
	ITG_ARRAY,
	ITG_ENCODER,		/* GobEncoder, BinaryMarshaler, TextMarshaler */
};

struct itg_field {
	char		 name[IMPORT_TLSPOL_NAME];
	int64_t		 id;
};

struct itg_type {
	enum itg_kind	 kind;
	int64_t		 key, elem;	/* map; elem for slice and array */
	size_t		 nfields;
	struct itg_field field[IMPORT_TLSPOL_FIELDS];
};

/* The stream: p[0..len), the message being read ends at end. */
struct itg {
	const unsigned char *p;
	size_t		 len, pos, end;
	const char	*err;		/* first error, static text */
	struct itg_type	 type[IMPORT_TLSPOL_TYPES];	/* id - 64 */
};

/* itg_fail - note the first error; -1 */
static int
itg_fail(struct itg *g, const char *err)
{
	if (g->err == NULL)
		g->err = err;
	return (-1);
}

/* itg_uint - an unsigned integer of the current message */
static int
itg_uint(struct itg *g, uint64_t *v)
{
	unsigned int	 n;
	unsigned char	 b;

	*v = 0;
	if (g->pos >= g->end)
		return (itg_fail(g, "truncated"));
	b = g->p[g->pos++];
	if (b < 0x80) {
		*v = b;
		return (0);
	}
	n = 256u - b;
	if (n > 8 || n > g->end - g->pos)
		return (itg_fail(g, "bad integer"));
	for (; n > 0; n--)
		*v = *v << 8 | g->p[g->pos++];
	return (0);
}

/* itg_int - a signed integer */
static int
itg_int(struct itg *g, int64_t *v)
{
	uint64_t	 u = 0;

	if (itg_uint(g, &u) == -1)
		return (-1);
	*v = (u & 1) ? (int64_t)~(u >> 1) : (int64_t)(u >> 1);
	return (0);
}

/* itg_bytes - a length-prefixed byte string: *s points into the stream */
static int
itg_bytes(struct itg *g, const unsigned char **s, size_t *n)
{
	uint64_t	 u = 0;

	*s = NULL;
	*n = 0;
	if (itg_uint(g, &u) == -1)
		return (-1);
	if (u > g->end - g->pos)
		return (itg_fail(g, "string runs past its message"));
	*s = g->p + g->pos;
	*n = (size_t)u;
	g->pos += (size_t)u;
	return (0);
}

/* itg_type_of - the definition of user type id, or NULL */
static struct itg_type *
itg_type_of(struct itg *g, int64_t id)
{
	if (id < ITG_FIRST_USER || id >= ITG_FIRST_USER + IMPORT_TLSPOL_TYPES)
		return (NULL);
	return (&g->type[id - ITG_FIRST_USER]);
}

/* itg_name - a string into name[0..IMPORT_TLSPOL_NAME) (longer: cut,
 * it then matches none of ours) */
static int
itg_name(struct itg *g, char *name)
{
	const unsigned char *s;
	size_t		 n;

	if (itg_bytes(g, &s, &n) == -1)
		return (-1);
	if (n >= IMPORT_TLSPOL_NAME)
		n = IMPORT_TLSPOL_NAME - 1;
	if (n > 0)
		memcpy(name, s, n);
	name[n] = '\0';
	return (0);
}

/* itg_common - a CommonType struct {Name string; Id int}: skipped, the
 * message's own id names the type */
static int
itg_common(struct itg *g)
{
	uint64_t	 d;
	int64_t		 f = -1, id;
	char		 name[IMPORT_TLSPOL_NAME];

	for (;;) {
		if (itg_uint(g, &d) == -1)
			return (-1);
		if (d == 0)
			return (0);
		if (d > 2 || (f += (int64_t)d) > 1)
			return (itg_fail(g, "bad type definition"));
		if ((f == 0 ? itg_name(g, name) : itg_int(g, &id)) == -1)
			return (-1);
	}
}

/* itg_fields - structType's []*fieldType {Name string; Id int} */
static int
itg_fields(struct itg *g, struct itg_type *t)
{
	struct itg_field *fl;
	uint64_t	 n, d;
	int64_t		 f;

	if (itg_uint(g, &n) == -1)
		return (-1);
	if (n > IMPORT_TLSPOL_FIELDS)
		return (itg_fail(g, "struct with too many fields"));
	for (t->nfields = 0; t->nfields < n; t->nfields++) {
		fl = &t->field[t->nfields];
		for (f = -1;;) {
			if (itg_uint(g, &d) == -1)
				return (-1);
			if (d == 0)
				break;
			if (d > 2 || (f += (int64_t)d) > 1)
				return (itg_fail(g, "bad field definition"));
			if ((f == 0 ? itg_name(g, fl->name) :
			    itg_int(g, &fl->id)) == -1)
				return (-1);
		}
	}
	return (0);
}

/* itg_define - the wireType of type id (a definition message) */
static int
itg_define(struct itg *g, int64_t id)
{
	struct itg_type	*t;
	uint64_t	 d;
	int64_t		 w = -1, f, v;
	int		 done = 0;

	if ((t = itg_type_of(g, id)) == NULL)
		return (itg_fail(g, "type id out of range"));
	if (t->kind != ITG_UNDEFINED)
		return (itg_fail(g, "type defined twice"));
	for (;;) {
		if (itg_uint(g, &d) == -1)
			return (-1);
		if (d == 0)
			break;
		if (d > 7 || (w += (int64_t)d) > 6 || done)
			return (itg_fail(g, "bad type definition"));
		done = 1;
		t->kind = w == 0 ? ITG_ARRAY : w == 1 ? ITG_SLICE :
		    w == 2 ? ITG_STRUCT : w == 3 ? ITG_MAP : ITG_ENCODER;
		/* the *Type struct: field 0 CommonType, then per kind */
		for (f = -1;;) {
			if (itg_uint(g, &d) == -1)
				return (-1);
			if (d == 0)
				break;
			if (d > 3 || (f += (int64_t)d) > 2)
				return (itg_fail(g, "bad type definition"));
			if (f == 0) {
				if (itg_common(g) == -1)
					return (-1);
			} else if (t->kind == ITG_STRUCT && f == 1) {
				if (itg_fields(g, t) == -1)
					return (-1);
			} else if (t->kind == ITG_MAP) {
				if (itg_int(g, f == 1 ? &t->key : &t->elem) ==
				    -1)
					return (-1);
			} else if ((t->kind == ITG_SLICE ||
			    t->kind == ITG_ARRAY) && f == 1) {
				if (itg_int(g, &t->elem) == -1)
					return (-1);
			} else if (t->kind == ITG_ARRAY && f == 2) {
				if (itg_int(g, &v) == -1)
					return (-1);	/* the length */
			} else
				return (itg_fail(g, "bad type definition"));
		}
	}
	if (!done)
		return (itg_fail(g, "empty type definition"));
	return (0);
}

/* itg_skip - a value of type id, nested at most depth deeper */
static int
itg_skip(struct itg *g, int64_t id, int depth)
{
	const struct itg_type *t;
	const unsigned char *s;
	uint64_t	 u, n, i, d;
	int64_t		 f;
	size_t		 len;

	switch (id) {
	case ITG_BOOL:
	case ITG_INT:
	case ITG_UINT:
	case ITG_FLOAT:
		return (itg_uint(g, &u));
	case ITG_COMPLEX:
		return (itg_uint(g, &u) == -1 ? -1 : itg_uint(g, &u));
	case ITG_BYTES:
	case ITG_STRING:
		return (itg_bytes(g, &s, &len));
	case ITG_INTERFACE:
		return (itg_fail(g, "interface values are not read"));
	}
	if ((t = itg_type_of(g, id)) == NULL || t->kind == ITG_UNDEFINED)
		return (itg_fail(g, "value of an undefined type"));
	if (depth <= 0)
		return (itg_fail(g, "values nested too deep"));
	switch (t->kind) {
	case ITG_ENCODER:
		return (itg_bytes(g, &s, &len));
	case ITG_STRUCT:
		for (f = -1;;) {
			if (itg_uint(g, &d) == -1)
				return (-1);
			if (d == 0)
				return (0);
			if (d > t->nfields || (f += (int64_t)d) >=
			    (int64_t)t->nfields)
				return (itg_fail(g, "bad field number"));
			if (itg_skip(g, t->field[f].id, depth - 1) == -1)
				return (-1);
		}
	case ITG_MAP:
	case ITG_SLICE:
	case ITG_ARRAY:
		if (itg_uint(g, &n) == -1)
			return (-1);
		if (n > g->end - g->pos)	/* each takes a byte or more */
			return (itg_fail(g, "count runs past its message"));
		for (i = 0; i < n; i++) {
			if (t->kind == ITG_MAP &&
			    itg_skip(g, t->key, depth - 1) == -1)
				return (-1);
			if (itg_skip(g, t->elem, depth - 1) == -1)
				return (-1);
		}
		return (0);
	default:
		return (itg_fail(g, "value of an undefined type"));
	}
}

/* itg_time - a time.Time (GobEncoder bytes) as Unix seconds */
static int
itg_time(struct itg *g, int64_t *unix_s)
{
	const unsigned char *s;
	size_t		 n, i;
	uint64_t	 u = 0;

	if (itg_bytes(g, &s, &n) == -1)
		return (-1);
	if (!((n == 15 && s[0] == 1) || (n == 16 && s[0] == 2)))
		return (itg_fail(g, "not a time.Time"));
	for (i = 1; i <= 8; i++)
		u = u << 8 | s[i];
	if (__builtin_sub_overflow((int64_t)u, ITG_UNIX_EPOCH, unix_s))
		return (itg_fail(g, "time out of range"));
	return (0);
}

/* itg_next_field - the next field of a struct value of type t: 1 and its
 * index in *f (start at -1) and *fl, 0 at the struct's end, -1 on error */
static int
itg_next_field(struct itg *g, const struct itg_type *t, int64_t *f,
    const struct itg_field **fl)
{
	uint64_t	 d;

	if (itg_uint(g, &d) == -1)
		return (-1);
	if (d == 0)
		return (0);
	if (d > t->nfields || (*f += (int64_t)d) >= (int64_t)t->nfields) {
		(void)itg_fail(g, "bad field number");
		return (-1);
	}
	*fl = &t->field[*f];
	return (1);
}

/* itg_policy_field - a Policy (string) or TTL (uint) field fl into *b:
 * 1 if fl is one of them, 0 if not, -1 on error */
static int
itg_policy_field(struct itg *g, const struct itg_field *fl,
    struct import_tlspol_branch *b)
{
	if (strcmp(fl->name, "Policy") == 0 && fl->id == ITG_STRING)
		return (itg_bytes(g, (const unsigned char **)&b->policy,
		    &b->policylen) == -1 ? -1 : 1);
	if (strcmp(fl->name, "TTL") == 0 && fl->id == ITG_UINT)
		return (itg_uint(g, &b->ttl) == -1 ? -1 : 1);
	return (0);
}

/* itg_branch - the struct value of type id holding ExpiresAt, Policy and
 * TTL (PolicyBranch, or Expirable with ExpiresAt alone) into *b */
static int
itg_branch(struct itg *g, int64_t id, struct import_tlspol_branch *b,
    int depth)
{
	const struct itg_type *t;
	const struct itg_type *ft;
	const struct itg_field *fl;
	int64_t		 f;
	int		 r;

	t = itg_type_of(g, id);
	if (t == NULL || t->kind != ITG_STRUCT)
		return (itg_skip(g, id, depth));
	for (f = -1; (r = itg_next_field(g, t, &f, &fl)) == 1;) {
		ft = itg_type_of(g, fl->id);
		if (strcmp(fl->name, "ExpiresAt") == 0 && ft != NULL &&
		    ft->kind == ITG_ENCODER) {
			if (itg_time(g, &b->expires_at) == -1)
				return (-1);
			b->has_expires = 1;
		} else if ((r = itg_policy_field(g, fl, b)) != 0) {
			if (r == -1)
				return (-1);
		} else if (itg_skip(g, fl->id, depth - 1) == -1)
			return (-1);
	}
	return (r);
}

/* itg_entry - a CacheStruct value of type id into *e (the policy and TTL
 * of the oldest layout are fields of its own: into e->legacy) */
static int
itg_entry(struct itg *g, int64_t id, struct import_tlspol_entry *e)
{
	const struct itg_type *t;
	const struct itg_field *fl;
	int64_t		 f;
	int		 depth = IMPORT_TLSPOL_DEPTH - 1, r;

	t = itg_type_of(g, id);
	for (f = -1; (r = itg_next_field(g, t, &f, &fl)) == 1;) {
		if (strcmp(fl->name, "Expirable") == 0) {
			if (itg_branch(g, fl->id, &e->legacy, depth) == -1)
				return (-1);
		} else if (strcmp(fl->name, "MtaSts") == 0) {
			if (itg_branch(g, fl->id, &e->mtasts, depth) == -1)
				return (-1);
		} else if ((r = itg_policy_field(g, fl, &e->legacy)) != 0) {
			if (r == -1)
				return (-1);
		} else if (itg_skip(g, fl->id, depth) == -1)
			return (-1);
	}
	return (r);
}

/* itg_value - the one value message: map[string]*CacheStruct */
static int
itg_value(struct itg *g, int64_t id,
    int (*cb)(const struct import_tlspol_entry *e, void *arg), void *arg)
{
	struct import_tlspol_entry e;
	const struct itg_type *t, *et;
	const unsigned char *key;
	uint64_t	 n, i, u;
	size_t		 klen;

	t = itg_type_of(g, id);
	if (t == NULL || t->kind != ITG_MAP || t->key != ITG_STRING ||
	    (et = itg_type_of(g, t->elem)) == NULL || et->kind != ITG_STRUCT)
		return (itg_fail(g, "not a map of domains to entries"));
	if (itg_uint(g, &u) == -1)
		return (-1);
	if (u != 0)
		return (itg_fail(g, "bad value message"));
	if (itg_uint(g, &n) == -1)
		return (-1);
	if (n > g->end - g->pos)
		return (itg_fail(g, "count runs past its message"));
	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof(e));
		if (itg_bytes(g, &key, &klen) == -1 ||
		    itg_entry(g, t->elem, &e) == -1)
			return (-1);
		e.key = (const char *)key;
		e.keylen = klen;
		e.index = (size_t)i + 1;
		if (cb(&e, arg) != 0)
			return (-1);
	}
	return (0);
}

int
import_tlspol_walk(const unsigned char *p, size_t len,
    int (*cb)(const struct import_tlspol_entry *e, void *arg), void *arg,
    char *err, size_t errsz)
{
	struct itg	*g;
	uint64_t	 mlen;
	int64_t		 id;
	int		 values = 0, rv = -1;

	err[0] = '\0';
	g = xcalloc(1, sizeof(*g));
	g->p = p;
	g->len = len;
	while (g->pos < g->len) {
		g->end = g->len;
		if (itg_uint(g, &mlen) == -1)
			break;
		if (mlen == 0 || mlen > g->len - g->pos) {
			itg_fail(g, "message runs past the end");
			break;
		}
		g->end = g->pos + (size_t)mlen;
		if (itg_int(g, &id) == -1)
			break;
		if (id < 0) {
			if (id == INT64_MIN || itg_define(g, -id) == -1)
				break;
		} else if (values++ > 0) {
			itg_fail(g, "more than one value");
			break;
		} else if (itg_value(g, id, cb, arg) == -1)
			break;
		if (g->pos != g->end) {
			itg_fail(g, "bytes after a message's value");
			break;
		}
	}
	if (g->pos >= g->len && g->err == NULL) {
		if (values == 0)
			itg_fail(g, "no value in the stream");
		else
			rv = 0;
	}
	if (rv == -1 && g->err != NULL)
		snprintf(err, errsz, "gob stream, byte %zu: %s", g->pos, g->err);
	free(g);
	return (rv);
}

/* itg_text - append s[0..n) to text[0..textsz) at *tlen */
static int
itg_text(char *text, size_t textsz, size_t *tlen, const char *s, size_t n)
{
	if (n >= textsz - *tlen)
		return (-1);
	memcpy(text + *tlen, s, n);
	*tlen += n;
	text[*tlen] = '\0';
	return (0);
}

enum import_tlspol_kind
import_tlspol_row(const struct import_tlspol_entry *e, char *text,
    size_t textsz, struct import_row *row, char *why, size_t whysz)
{
	const struct import_tlspol_branch *b;
	const char	*m, *end, *colon;
	char		 num[24];
	size_t		 tlen = 0, n;
	int		 branches;

	why[0] = '\0';
	memset(row, 0, sizeof(*row));
	row->domain = e->key;
	row->domainlen = e->keylen;
	row->id = "";
	text[0] = '\0';
	/* 1.9 and later: the MtaSts branch once it holds anything (Go's
	 * PolicyBranch.HasData); before, the one selected answer */
	branches = e->mtasts.ttl != 0 || e->mtasts.has_expires ||
	    e->mtasts.policy != NULL;
	b = branches ? &e->mtasts : &e->legacy;
	if (b->policy == NULL || b->policylen == 0)
		return (IMPORT_TLSPOL_NONE);
	if (b->policylen < strlen(ITG_MATCH) ||
	    memcmp(b->policy, ITG_MATCH, strlen(ITG_MATCH)) != 0) {
		if (!branches)
			return (IMPORT_TLSPOL_NONE);	/* DANE, TEMP */
		snprintf(why, whysz, "MTA-STS answer is not \"secure "
		    "match=...\"");
		return (IMPORT_TLSPOL_BAD);
	}
	if (!b->has_expires || b->ttl == 0 || b->ttl > UINT32_MAX) {
		snprintf(why, whysz, "no expiry time or lifetime (TTL %llu)",
		    (unsigned long long)b->ttl);
		return (IMPORT_TLSPOL_BAD);
	}
	if (itg_text(text, textsz, &tlen, "version: STSv1\nmode: enforce\n",
	    29) == -1)
		return (IMPORT_TLSPOL_BAD);
	m = b->policy + strlen(ITG_MATCH);
	end = memchr(m, ' ', b->policylen - strlen(ITG_MATCH));
	if (end == NULL)
		end = b->policy + b->policylen;
	while (m < end) {
		colon = memchr(m, ':', (size_t)(end - m));
		n = (size_t)((colon != NULL ? colon : end) - m);
		/* Postfix's ".x" was RFC 8461's "*.x" */
		if (itg_text(text, textsz, &tlen, "mx: ", 4) == -1 ||
		    (n > 0 && m[0] == '.' &&
		    itg_text(text, textsz, &tlen, "*", 1) == -1) ||
		    itg_text(text, textsz, &tlen, m, n) == -1 ||
		    itg_text(text, textsz, &tlen, "\n", 1) == -1) {
			snprintf(why, whysz, "match list too long");
			return (IMPORT_TLSPOL_BAD);
		}
		m += n + (colon != NULL ? 1 : 0);
		if (colon != NULL && m == end) {
			snprintf(why, whysz, "empty name in the match list");
			return (IMPORT_TLSPOL_BAD);
		}
	}
	snprintf(num, sizeof(num), "max_age: %llu\n",
	    (unsigned long long)b->ttl);
	if (itg_text(text, textsz, &tlen, num, strlen(num)) == -1) {
		snprintf(why, whysz, "match list too long");
		return (IMPORT_TLSPOL_BAD);
	}
	if (__builtin_sub_overflow(b->expires_at, (int64_t)b->ttl,
	    &row->fetched_at)) {
		snprintf(why, whysz, "expiry time out of range");
		return (IMPORT_TLSPOL_BAD);
	}
	row->policy = text;
	row->policylen = tlen;
	return (IMPORT_TLSPOL_POLICY);
}
