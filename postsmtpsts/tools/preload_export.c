/*
 * preload_export.c - an EFF-format preload list from observed policies
 * (preload_export.h)
 *
 * Aliases: the entries' indexes are sorted by their mx bytes, so equal
 * sets sit together and each gets its count; an alias number is given in
 * domain order, at the first domain of a set of two or more.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/xmalloc.h"
#include "tools/preload_export.h"

/* pe_sort - qsort context: the entries (qsort has no argument) */
static const struct preload_export_entry *pe_sort;

/* pe_cmp - order of two indexes by their mx bytes */
static int
pe_cmp(const void *a, const void *b)
{
	const struct preload_export_entry *x = &pe_sort[*(const size_t *)a];
	const struct preload_export_entry *y = &pe_sort[*(const size_t *)b];
	int	 c;

	if (x->mxlen != y->mxlen)
		return (x->mxlen < y->mxlen ? -1 : 1);
	if ((c = memcmp(x->mx, y->mx, x->mxlen)) != 0)
		return (c);
	return (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

/* pe_mxs - "mxs": [...] of one entry, "*.x" as ".x" */
static void
pe_mxs(struct buf *out, const struct preload_export_entry *e)
{
	const char	*p = e->mx;
	size_t		 i;

	buf_append_str(out, "\"mxs\": [");
	for (i = 0; i < e->nmx; i++) {
		buf_append_str(out, i > 0 ? ", " : "");
		buf_json_cstr(out, p[0] == '*' ? p + 1 : p);
		p += strlen(p) + 1;
	}
	buf_append_char(out, ']');
}

void
preload_export_time(int64_t t, char *out, size_t outsz)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL || strftime(out, outsz,
	    "%Y-%m-%dT%H:%M:%S.000000+00:00", &tm) == 0)
		(void)snprintf(out, outsz, "1970-01-01T00:00:00.000000+00:00");
}

int
preload_export_json(const struct preload_export_entry *e, size_t n,
    int64_t timestamp, int64_t expires, const char *author, struct buf *out)
{
	size_t	*ix, *alias, *count, i, j, k, next = 0;
	char	 t[48];
	int	 first;

	ix = xcalloc(n > 0 ? n : 1, sizeof(*ix));
	alias = xcalloc(n > 0 ? n : 1, sizeof(*alias));	/* 0: inline */
	count = xcalloc(n > 0 ? n : 1, sizeof(*count));
	for (i = 0; i < n; i++)
		ix[i] = i;
	pe_sort = e;
	qsort(ix, n, sizeof(*ix), pe_cmp);
	/* each run of equal sets: its size, noted at every member */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && e[ix[j]].mxlen == e[ix[i]].mxlen &&
		    memcmp(e[ix[j]].mx, e[ix[i]].mx, e[ix[i]].mxlen) == 0;
		    j++)
			;
		for (k = i; k < j; k++)
			count[ix[k]] = j - i;
	}
	/* alias numbers in domain order: the first member names the set,
	 * the others find it by searching back (sets are few) */
	for (i = 0; i < n; i++) {
		if (count[i] < 2)
			continue;
		for (k = 0; k < i; k++)
			if (count[k] >= 2 && e[k].mxlen == e[i].mxlen &&
			    memcmp(e[k].mx, e[i].mx, e[i].mxlen) == 0)
				break;
		alias[i] = k < i ? alias[k] : ++next;
	}
	buf_append_str(out, "{\n  \"timestamp\": ");
	preload_export_time(timestamp, t, sizeof(t));
	buf_json_cstr(out, t);
	buf_append_str(out, ",\n  \"expires\": ");
	preload_export_time(expires, t, sizeof(t));
	buf_json_cstr(out, t);
	buf_append_str(out, ",\n  \"version\": \"0.1\",\n  \"author\": ");
	buf_json_cstr(out, author);
	buf_append_str(out, ",\n  \"policy-aliases\": {");
	for (i = 0, first = 1, k = 0; i < n; i++) {
		if (alias[i] == 0 || alias[i] <= k)
			continue;
		k = alias[i];	/* numbered in this order: each once */
		buf_appendf(out, "%s\n    \"mx%zu\": {\"mode\": \"enforce\", ",
		    first ? "" : ",", alias[i]);
		pe_mxs(out, &e[i]);
		buf_append_char(out, '}');
		first = 0;
	}
	buf_append_str(out, first ? "},\n" : "\n  },\n");
	buf_append_str(out, "  \"policies\": {");
	for (i = 0; i < n; i++) {
		buf_append_str(out, i > 0 ? ",\n    " : "\n    ");
		buf_json_cstr(out, e[i].domain);
		if (alias[i] != 0)
			buf_appendf(out, ": {\"policy-alias\": \"mx%zu\"}",
			    alias[i]);
		else {
			buf_append_str(out, ": {\"mode\": \"enforce\", ");
			pe_mxs(out, &e[i]);
			buf_append_char(out, '}');
		}
	}
	buf_append_str(out, n > 0 ? "\n  }\n}\n" : "}\n}\n");
	free(ix);
	free(alias);
	free(count);
	return (out->error ? -1 : 0);
}
