/*
 * buf.c - bounded byte buffer with a sticky error bit
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

void
buf_init(struct buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void
buf_init_fixed(struct buf *b, char *storage, size_t size)
{
	memset(b, 0, sizeof(*b));
	b->data = storage;
	b->cap = size;
	b->max = size;
	b->fixed = 1;
}

void
buf_free(struct buf *b)
{
	if (!b->fixed)
		free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->error = 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	b->error = 0;
}

/* buf_reserve - make room for n more bytes, within max */
static int
buf_reserve(struct buf *b, size_t n)
{
	size_t	 want, ncap;

	if (b->error)
		return (-1);
	if (n > b->max - b->len) {
		b->error = 1;
		return (-1);
	}
	want = b->len + n;
	if (want <= b->cap)
		return (0);
	if (b->fixed)
		panic("buf_reserve: fixed buffer with cap < max");
	ncap = b->cap ? b->cap : 256;
	while (ncap < want)
		ncap = ncap > b->max / 2 ? b->max : ncap * 2;
	b->data = xreallocarray(b->data, ncap, 1);
	b->cap = ncap;
	return (0);
}

int
buf_append(struct buf *b, const void *p, size_t len)
{
	if (buf_reserve(b, len) == -1)
		return (-1);
	if (len > 0)
		memcpy(b->data + b->len, p, len);
	b->len += len;
	return (0);
}

int
buf_append_str(struct buf *b, const char *s)
{
	return (buf_append(b, s, strlen(s)));
}

int
buf_append_char(struct buf *b, char c)
{
	return (buf_append(b, &c, 1));
}

int
buf_appendf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	 small[512];
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->error = 1;
		return (-1);
	}
	if ((size_t)n < sizeof(small))
		return (buf_append(b, small, (size_t)n));
	/* Long output: format into a temporary, then append (bounded). */
	{
		char	*tmp;
		int	 rc;

		if ((size_t)n > b->max - b->len) {
			b->error = 1;
			return (-1);
		}
		tmp = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(tmp, (size_t)n + 1, fmt, ap);
		va_end(ap);
		rc = buf_append(b, tmp, (size_t)n);
		free(tmp);
		return (rc);
	}
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n > b->len)
		panic("buf_consume: %zu > %zu", n, b->len);
	if (n < b->len)
		memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

const char *
buf_cstr(struct buf *b)
{
	/* The NUL is not data: it may use the byte past max in owned storage. */
	if (b->len >= b->cap) {
		if (b->fixed)
			return (NULL);
		b->data = xreallocarray(b->data, b->len + 1, 1);
		b->cap = b->len + 1;
	}
	b->data[b->len] = '\0';
	return (b->data);
}

void
buf_json_str(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i;
	unsigned char c;

	if (s == NULL) {
		buf_append_str(b, "null");
		return;
	}
	buf_append_char(b, '"');
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			buf_append_char(b, '\\');
			buf_append_char(b, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			buf_append_str(b, "\\u00");
			buf_append_char(b, hex[c >> 4]);
			buf_append_char(b, hex[c & 15]);
		} else
			buf_append_char(b, (char)c);
	}
	buf_append_char(b, '"');
}

void
buf_json_cstr(struct buf *b, const char *s)
{
	buf_json_str(b, s, s != NULL ? strlen(s) : 0);
}

void
buf_json_key(struct buf *b, const char *key)
{
	if (b->len > 0 && b->data[b->len - 1] != '{' &&
	    b->data[b->len - 1] != '[')
		buf_append_char(b, ',');
	buf_json_cstr(b, key);
	buf_append_char(b, ':');
}
