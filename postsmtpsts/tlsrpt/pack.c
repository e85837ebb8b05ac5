/*
 * pack.c - the byte codec of the reporter's own database values
 *
 * Interface: pack.h.  Pure.
 */
#include "autoconf.h"

#include <string.h>

#include "lib/buf.h"
#include "tlsrpt/pack.h"

void
pack_u8(struct buf *b, unsigned int v)
{
	buf_append_char(b, (char)(v & 0xff));
}

void
pack_u32(struct buf *b, uint32_t v)
{
	unsigned char	 x[4];

	x[0] = (unsigned char)(v >> 24);
	x[1] = (unsigned char)(v >> 16);
	x[2] = (unsigned char)(v >> 8);
	x[3] = (unsigned char)v;
	buf_append(b, x, sizeof(x));
}

void
pack_u64(struct buf *b, uint64_t v)
{
	pack_u32(b, (uint32_t)(v >> 32));
	pack_u32(b, (uint32_t)v);
}

void
pack_str(struct buf *b, const char *s, size_t len)
{
	unsigned char	 x[2];

	if (len > PACK_STR_MAX) {
		b->error = 1;
		return;
	}
	x[0] = (unsigned char)(len >> 8);
	x[1] = (unsigned char)len;
	buf_append(b, x, sizeof(x));
	if (len > 0)
		buf_append(b, s, len);
}

void
pack_cstr(struct buf *b, const char *s)
{
	pack_str(b, s, strlen(s));
}

void
unpack_init(struct unpack *u, const void *p, size_t len)
{
	u->p = p;
	u->len = len;
	u->pos = 0;
	u->error = 0;
}

/* unpack_need - n more bytes are there */
static int
unpack_need(struct unpack *u, size_t n)
{
	if (u->error || u->len - u->pos < n) {
		u->error = 1;
		return (0);
	}
	return (1);
}

unsigned int
unpack_u8(struct unpack *u)
{
	if (!unpack_need(u, 1))
		return (0);
	return (u->p[u->pos++]);
}

uint32_t
unpack_u32(struct unpack *u)
{
	uint32_t	 v;

	if (!unpack_need(u, 4))
		return (0);
	v = (uint32_t)u->p[u->pos] << 24 | (uint32_t)u->p[u->pos + 1] << 16 |
	    (uint32_t)u->p[u->pos + 2] << 8 | (uint32_t)u->p[u->pos + 3];
	u->pos += 4;
	return (v);
}

uint64_t
unpack_u64(struct unpack *u)
{
	uint64_t	 hi = unpack_u32(u);

	return (hi << 32 | unpack_u32(u));
}

const char *
unpack_str(struct unpack *u, size_t *len)
{
	const char	*s;
	size_t		 n;

	*len = 0;
	if (!unpack_need(u, 2))
		return (NULL);
	n = (size_t)u->p[u->pos] << 8 | u->p[u->pos + 1];
	u->pos += 2;
	if (!unpack_need(u, n))
		return (NULL);
	s = (const char *)u->p + u->pos;
	u->pos += n;
	*len = n;
	return (s);
}

void
unpack_cstr(struct unpack *u, char *out, size_t outsz)
{
	const char	*s;
	size_t		 n;

	out[0] = '\0';
	if ((s = unpack_str(u, &n)) == NULL)
		return;
	if (n >= outsz || memchr(s, '\0', n) != NULL) {
		u->error = 1;
		return;
	}
	memcpy(out, s, n);
	out[n] = '\0';
}

int
unpack_done(const struct unpack *u)
{
	return (u->error || u->pos != u->len ? -1 : 0);
}
