/*
 * fuzz_import_sts_resolver.c - fuzz target for postfix-mta-sts-resolver's
 * cache entries (import_sts_resolver.c): the JSON policy body of its
 * SQLite rows, the UUID + JSON member of its Redis sorted sets, the score
 *
 * The input, in a heap block of exactly its length, is given to all
 * three.  Properties:
 *	- a body or member that parses gives a NUL-terminated text of the
 *	  length reported, shorter than the text buffer, in which every
 *	  line ends in '\n' and holds no other control character (no
 *	  field can make a line of its own);
 *	- a member's id is at most 32 bytes, NUL-terminated;
 *	- a failure always says why.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "tools/import_row.h"
#include "tools/import_sts_resolver.h"
#include "fuzz.h"

/* fuzz_text - the properties of a policy text */
static void
fuzz_text(const char *text, size_t len)
{
	size_t	 i;

	FUZZ_CHECK(len < IMPORT_STS_RESOLVER_TEXT);
	FUZZ_CHECK(strlen(text) == len);
	FUZZ_CHECK(len == 0 || text[len - 1] == '\n');
	for (i = 0; i < len; i++)
		FUZZ_CHECK(text[i] == '\n' || ((unsigned char)text[i] >=
		    0x20 && text[i] != 0x7f));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*in, *text, id[STS_RECORD_ID_MAX + 1];
	char	 why[IMPORT_ROW_WHY_LEN];
	size_t	 textlen, idlen;
	int64_t	 ts;

	in = malloc(size > 0 ? size : 1);
	text = malloc(IMPORT_STS_RESOLVER_TEXT);
	FUZZ_CHECK(in != NULL && text != NULL);
	if (size > 0)
		memcpy(in, data, size);
	if (import_sts_resolver_body(in, size, text, IMPORT_STS_RESOLVER_TEXT,
	    &textlen, why, sizeof(why)) == 0)
		fuzz_text(text, textlen);
	else
		FUZZ_CHECK(why[0] != '\0');
	if (import_sts_resolver_member(in, size, id, &idlen, text,
	    IMPORT_STS_RESOLVER_TEXT, &textlen, why, sizeof(why)) == 0) {
		fuzz_text(text, textlen);
		FUZZ_CHECK(idlen <= STS_RECORD_ID_MAX && strlen(id) <= idlen);
	} else
		FUZZ_CHECK(why[0] != '\0');
	if (import_sts_resolver_score(in, size, &ts) == 0)
		FUZZ_CHECK(ts >= 1);
	free(in);
	free(text);
	return (0);
}
