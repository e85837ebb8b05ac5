/*
 * fuzz_warm_list.c - fuzz target for the domain-list lines of
 * postsmtpsts-cache warm (warm_list_line)
 *
 * The input is split at newlines like the tool splits its input, each
 * line given without its newline in a heap block of exactly its length.
 * Properties:
 *	- out is the empty string unless WARM_LINE_DOMAIN;
 *	- a WARM_LINE_DOMAIN name is what domain_normalize() makes of the
 *	  line's first field, and normalizes to itself (a cache key);
 *	- a line starting with a blank or '#' is WARM_LINE_EMPTY.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "tools/warm_list.h"
#include "fuzz.h"

/* fuzz_line - the properties for one line p[0..len) */
static void
fuzz_line(const char *p, size_t len)
{
	enum warm_line st;
	char	*line, *out, *again;

	line = malloc(len > 0 ? len : 1);
	out = malloc(DOMAIN_BUFSZ);
	again = malloc(DOMAIN_BUFSZ);
	FUZZ_CHECK(line != NULL && out != NULL && again != NULL);
	line[0] = '\0';
	if (len > 0)
		memcpy(line, p, len);
	st = warm_list_line(line, len, out);
	if (st != WARM_LINE_DOMAIN)
		FUZZ_CHECK(out[0] == '\0');
	else {
		FUZZ_CHECK(len > 0 && line[0] != ' ' && line[0] != '\t' &&
		    line[0] != '#');
		FUZZ_CHECK(strlen(out) <= DOMAIN_MAX_LEN);
		FUZZ_CHECK(domain_normalize(out, strlen(out), again) ==
		    DOMAIN_OK);
		FUZZ_CHECK(strcmp(out, again) == 0);
	}
	if (len > 0 && (line[0] == ' ' || line[0] == '\t' || line[0] == '#'))
		FUZZ_CHECK(st == WARM_LINE_EMPTY);
	free(line);
	free(out);
	free(again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl;
	size_t	 left = size;

	while (left > 0) {
		nl = memchr(p, '\n', left);
		if (nl == NULL) {
			fuzz_line(p, left);
			break;
		}
		fuzz_line(p, (size_t)(nl - p));
		left -= (size_t)(nl - p) + 1;
		p = nl + 1;
	}
	return (0);
}
