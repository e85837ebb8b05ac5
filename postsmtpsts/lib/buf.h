/*
 * buf.h - bounded byte buffer with a sticky error bit
 *
 * A buf holds len bytes of data in cap bytes of storage and never grows past
 * max.  An append that would exceed max appends nothing, sets the sticky
 * error bit and returns -1; later appends keep failing until buf_reset(), so
 * a sequence of appends needs one check at the end.  Storage is either owned
 * (grown with xreallocarray, freed by buf_free) or fixed (caller's array,
 * never grown: the hot path formats replies without allocating).
 * The data is not NUL-terminated unless buf_cstr() is called.
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;		/* bytes in use */
	size_t	 cap;		/* bytes allocated */
	size_t	 max;		/* hard limit on len */
	int	 error;		/* sticky: an append overflowed max */
	int	 fixed;		/* storage is the caller's */
};

/* buf_init - empty owned buffer that holds at most max bytes */
void	buf_init(struct buf *b, size_t max);
/* buf_init_fixed - buffer over the caller's storage[0..size) */
void	buf_init_fixed(struct buf *b, char *storage, size_t size);
/* buf_free - release owned storage; the buf can be re-initialized */
void	buf_free(struct buf *b);
/* buf_reset - forget the contents and the error bit, keep the storage */
void	buf_reset(struct buf *b);
/* buf_append - append p[0..len); 0 or -1 (sets error) */
int	buf_append(struct buf *b, const void *p, size_t len);
int	buf_append_str(struct buf *b, const char *s);
int	buf_append_char(struct buf *b, char c);
/* buf_appendf - printf-append; -1 (error set) if it would exceed max */
int	buf_appendf(struct buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* buf_consume - drop the first n (<= len) bytes */
void	buf_consume(struct buf *b, size_t n);
/* buf_cstr - NUL-terminate (needs one spare byte); NULL if no room */
const char *buf_cstr(struct buf *b);

/*
 * JSON output for the tools' --json (untrusted text from the network):
 * buf_json_str appends s[0..len) as a string literal, or null for NULL;
 * '"' and '\' are escaped, every control and non-ASCII byte becomes
 * \u00XX, so the output is valid JSON whatever bytes were sent.
 * buf_json_cstr does it for a NUL-terminated string (or NULL);
 * buf_json_key appends "key": after a ',' unless the buffer ends in '{'
 * or '['.  Errors are sticky in b->error, as for every append.
 */
void	buf_json_str(struct buf *b, const char *s, size_t len);
void	buf_json_cstr(struct buf *b, const char *s);
void	buf_json_key(struct buf *b, const char *key);

#endif
