/*
 * pack.h - the byte codec of the reporter's own database values
 *
 * The reporter stores its counts, its session state and its send state in
 * an LMDB file of its own (store.h).  Values are written with pack_*()
 * onto a struct buf (big-endian integers, strings as a 16-bit length and
 * the bytes, no NUL) and read back with unpack_*(), which never read past
 * the value: a short or damaged value sets the sticky error bit, and the
 * caller drops the value (the codecs above say what that costs).  Pure.
 */
#ifndef TLSRPT_PACK_H
#define TLSRPT_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define PACK_STR_MAX	65535	/* a string's length is 16 bits */

struct unpack {
	const unsigned char *p;
	size_t		 len;
	size_t		 pos;
	int		 error;		/* sticky: a read went past len, or a
					   string did not fit its array */
};

void	pack_u8(struct buf *b, unsigned int v);
void	pack_u32(struct buf *b, uint32_t v);
void	pack_u64(struct buf *b, uint64_t v);
/* pack_str - s[0..len), len <= PACK_STR_MAX (else the buffer's error) */
void	pack_str(struct buf *b, const char *s, size_t len);
void	pack_cstr(struct buf *b, const char *s);

/* unpack_init - read p[0..len) */
void	unpack_init(struct unpack *u, const void *p, size_t len);
unsigned int unpack_u8(struct unpack *u);
uint32_t unpack_u32(struct unpack *u);
uint64_t unpack_u64(struct unpack *u);
/* unpack_cstr - a string into out[0..outsz) with a NUL; one that does
 * not fit, or holds a NUL, sets the error and leaves out "" */
void	unpack_cstr(struct unpack *u, char *out, size_t outsz);
/* unpack_str - a string in place: *len bytes at the returned pointer
 * (inside the value, not NUL-terminated), NULL on error */
const char *unpack_str(struct unpack *u, size_t *len);
/* unpack_done - 0 if every byte was read without error, else -1 */
int	unpack_done(const struct unpack *u);

#endif
