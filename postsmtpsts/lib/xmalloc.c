/*
 * xmalloc.c - allocation that never returns NULL
 *
 * On failure we call fatalx(): no request can be answered without memory,
 * and a restarted process is the cleanest recovery.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lib/log.h"
#include "lib/xmalloc.h"

void
xtrim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

void *
xmalloc(size_t size)
{
	void	*p;

	if ((p = malloc(size ? size : 1)) == NULL)
		fatalx("out of memory allocating %zu bytes", size);
	return (p);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if ((p = calloc(nmemb ? nmemb : 1, size ? size : 1)) == NULL)
		fatalx("out of memory allocating %zu*%zu bytes", nmemb, size);
	return (p);
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;
	size_t	 total;

	if (size != 0 && nmemb > SIZE_MAX / size)
		fatalx("allocation size overflow: %zu*%zu", nmemb, size);
	total = nmemb * size;
	if ((p = realloc(ptr, total != 0 ? total : 1)) == NULL)
		fatalx("out of memory allocating %zu*%zu bytes", nmemb, size);
	return (p);
}

char *
xstrdup(const char *s)
{
	return (xmemdup0(s, strlen(s)));
}

char *
xmemdup0(const void *p, size_t len)
{
	char	*s;

	if (len == SIZE_MAX)
		fatalx("allocation size overflow");
	s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	return (s);
}
