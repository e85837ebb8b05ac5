/*
 * need.h - a unit test program that needs an outside program
 *
 * TEST_NEED(prog) at the top of main(): where prog is not on PATH (a
 * developer's machine without it), the whole program is one TAP skip with
 * the reason ("1..0 # SKIP ...", status 0: automake's TAP driver counts
 * it skipped, where a bare exit 77 would be an ERROR), as tests/e2e's
 * need() does.  CI installs every such program, so nothing skips there.
 */
#ifndef NEED_H
#define NEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* test_need_found - is prog an executable file in a directory of PATH? */
static inline int
test_need_found(const char *prog)
{
	const char	*path = getenv("PATH"), *p, *end;
	char		 file[4096];
	int		 n;

	for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		n = snprintf(file, sizeof(file), "%.*s/%s", (int)(end - p),
		    end > p ? p : ".", prog);
		if (n > 0 && (size_t)n < sizeof(file) &&
		    access(file, X_OK) == 0)
			return (1);
		if (*end == ':')
			end++;
	}
	return (0);
}

#define TEST_NEED(prog, pkg) do {					\
	if (!test_need_found(prog)) {					\
		printf("1..0 # SKIP %s not installed (apt-get install "	\
		    "%s)\n", prog, pkg);				\
		return (0);						\
	}								\
} while (0)

#endif
