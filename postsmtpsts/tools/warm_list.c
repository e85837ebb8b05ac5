/*
 * warm_list.c - the domain lists postsmtpsts-cache warm reads
 *
 * Interface and format: warm_list.h.  Pure: no I/O, no allocation.
 */
#include "autoconf.h"

#include <stddef.h>

#include "tools/warm_list.h"

/* warm_list_blank - space, tab or CR (a CRLF file's line end) */
static int
warm_list_blank(char c)
{
	return (c == ' ' || c == '\t' || c == '\r');
}

enum warm_line
warm_list_line(const char *p, size_t len, char *out)
{
	size_t	 flen;

	out[0] = '\0';
	/* Postfix tables: a line starting with a blank continues the
	 * previous logical line, '#' in the first column is a comment */
	if (len == 0 || warm_list_blank(p[0]) || p[0] == '#')
		return (WARM_LINE_EMPTY);
	for (flen = 0; flen < len && !warm_list_blank(p[flen]); flen++)
		;
	switch (domain_normalize(p, flen, out)) {
	case DOMAIN_OK:
		return (WARM_LINE_DOMAIN);
	case DOMAIN_NOT_PLAIN:
		return (WARM_LINE_NOT_PLAIN);
	case DOMAIN_INVALID:
	default:
		out[0] = '\0';
		return (WARM_LINE_INVALID);
	}
}

const char *
warm_list_line_name(enum warm_line st)
{
	switch (st) {
	case WARM_LINE_EMPTY:
		return ("empty");
	case WARM_LINE_DOMAIN:
		return ("domain");
	case WARM_LINE_NOT_PLAIN:
		return ("not-plain");
	case WARM_LINE_INVALID:
		return ("invalid");
	}
	return ("?");
}
