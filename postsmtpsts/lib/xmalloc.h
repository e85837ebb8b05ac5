/*
 * xmalloc.h - allocation that never returns NULL
 *
 * Out of memory is a resource failure: the process logs and exits, and the
 * master restarts it.  Array sizes are overflow-checked.  xfree(NULL) is a
 * no-op like free(3).
 */
#ifndef XMALLOC_H
#define XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t size);
void	*xcalloc(size_t nmemb, size_t size);
void	*xreallocarray(void *ptr, size_t nmemb, size_t size);
char	*xstrdup(const char *s);
/* xmemdup0 - copy len bytes and NUL-terminate; the caller frees */
char	*xmemdup0(const void *p, size_t len);
/*
 * xtrim - give free heap memory back to the system after a burst (many
 * connections closed, big buffers freed), so a hostile peer's spike does
 * not stay in the RSS; glibc's malloc_trim(3), a no-op elsewhere
 */
void	 xtrim(void);

#endif
