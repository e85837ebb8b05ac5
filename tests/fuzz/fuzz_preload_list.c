/*
 * fuzz_preload_list.c - fuzz target for the EFF preload list parser
 * (preload_list_parse)
 *
 * The input is the list, in a heap block of exactly its length.
 * Properties:
 *	- a failure has a message "fuzz: entry: reason" and no list;
 *	- a list's entries are sorted, unique, lower-case host names, each
 *	  found by preload_list_find();
 *	- each entry has 1..PRELOAD_LIST_MAX_MXS patterns that pass
 *	  mxmatch_pattern_check() and fill exactly mxlen bytes;
 *	- expires lies after the timestamp.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/domain.h"
#include "policy/mxmatch.h"
#include "policy/preload_list.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct preload_list *l;
	const struct preload_entry *e;
	const char	*p;
	char		*text, why[512];
	size_t		 i, j, used;

	text = malloc(size > 0 ? size : 1);
	FUZZ_CHECK(text != NULL);
	if (size > 0)
		memcpy(text, data, size);
	l = preload_list_parse("fuzz", text, size, why, sizeof(why));
	if (l == NULL) {
		FUZZ_CHECK(strncmp(why, "fuzz: ", 6) == 0);
		FUZZ_CHECK(strstr(why + 6, ": ") != NULL);
		free(text);
		return (0);
	}
	FUZZ_CHECK(why[0] == '\0');
	FUZZ_CHECK(l->expires > l->timestamp);
	for (i = 0; i < l->n; i++) {
		e = &l->e[i];
		FUZZ_CHECK(domain_check(e->domain, strlen(e->domain), 0, 2,
		    NULL) == DOMAIN_CHECK_OK);
		for (p = e->domain; *p != '\0'; p++)
			FUZZ_CHECK(*p < 'A' || *p > 'Z');
		if (i > 0)
			FUZZ_CHECK(strcmp(l->e[i - 1].domain, e->domain) < 0);
		FUZZ_CHECK(preload_list_find(l, e->domain) == e);
		FUZZ_CHECK(e->mode == PRELOAD_TESTING ||
		    e->mode == PRELOAD_ENFORCE);
		FUZZ_CHECK(e->nmx >= 1 && e->nmx <= PRELOAD_LIST_MAX_MXS);
		for (j = 0, used = 0, p = e->mx; j < e->nmx; j++) {
			FUZZ_CHECK(used < e->mxlen);
			FUZZ_CHECK(memchr(p, '\0', e->mxlen - used) != NULL);
			FUZZ_CHECK(mxmatch_pattern_check(p, strlen(p)));
			used += strlen(p) + 1;
			p = e->mx + used;
		}
		FUZZ_CHECK(used == e->mxlen);
	}
	preload_list_free(l);
	free(text);
	return (0);
}
