/*
 * procmaps.c - the parser of one line of /proc/<pid>/maps
 *
 * Interface and line format in procmaps.h; the cache (cache_unmap_pages)
 * reads /proc/self/maps and hands each line here to find where LMDB
 * mapped its file.  Pure: no I/O, no allocation, input by length.  The
 * text comes from the kernel, not from a peer, so a table of unit tests
 * (test_procmaps) covers it and no fuzz target does.
 */
#include "autoconf.h"

#include <limits.h>
#include <string.h>

#include "lib/procmaps.h"

/* procmaps_digit - the value of c as a digit in base 10 or 16, or -1 */
static int
procmaps_digit(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (base == 16 && c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (base == 16 && c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* procmaps_num - a number in base at p[*pos..len), at least one digit,
 * without overflow, ended by one of the characters of stop (or by the end
 * of the input, if end_ok); *pos goes past it and its end */
static int
procmaps_num(const char *p, size_t len, size_t *pos, unsigned int base,
    const char *stop, int end_ok, unsigned long *out)
{
	unsigned long	 v = 0;
	size_t		 i;
	int		 d;

	for (i = *pos; i < len && (d = procmaps_digit(p[i], base)) != -1;
	    i++) {
		if (v > (ULONG_MAX - (unsigned long)d) / base)
			return (-1);
		v = v * base + (unsigned long)d;
	}
	if (i == *pos)
		return (-1);
	if (i == len) {
		if (!end_ok)
			return (-1);
	} else {
		/* a NUL in p is no stop: strchr() would find stop's own */
		if (p[i] == '\0' || strchr(stop, p[i]) == NULL)
			return (-1);
		i++;
	}
	*pos = i;
	*out = v;
	return (0);
}

int
procmaps_parse(const char *p, size_t len, struct procmaps_entry *e)
{
	struct procmaps_entry m;
	unsigned long	 major, minor;
	size_t		 pos = 0;

	memset(&m, 0, sizeof(m));
	if (procmaps_num(p, len, &pos, 16, "-", 0, &m.start) == -1 ||
	    procmaps_num(p, len, &pos, 16, " ", 0, &m.end) == -1 ||
	    len - pos < 5 || p[pos + 4] != ' ')
		return (-1);
	memcpy(m.perms, p + pos, 4);
	m.perms[4] = '\0';
	pos += 5;
	if (procmaps_num(p, len, &pos, 16, " ", 0, &m.offset) == -1 ||
	    procmaps_num(p, len, &pos, 16, ":", 0, &major) == -1 ||
	    procmaps_num(p, len, &pos, 16, " ", 0, &minor) == -1 ||
	    procmaps_num(p, len, &pos, 10, " \n", 1, &m.inode) == -1 ||
	    major > PROCMAPS_MAJOR_MAX || minor > PROCMAPS_MINOR_MAX)
		return (-1);
	m.major = (unsigned int)major;
	m.minor = (unsigned int)minor;
	*e = m;
	return (0);
}
