/*
 * fuzz_import_tlspol.c - fuzz target for postfix-tlspol's cache file, the
 * gunzipped gob stream (import_tlspol.c), and each entry made a row and a
 * record (import_row.c)
 *
 * The input is in a heap block of exactly its length.  Properties:
 *	- the walk returns 0 or -1, and a -1 that is not the callback's
 *	  says why;
 *	- every key and policy an entry points to lies inside the input;
 *	- a row is an enforce policy text that ends in '\n'; a record made
 *	  of it expires max_age after its fetch time.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/cache_record.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "policy/sts_policy.h"
#include "tools/import_row.h"
#include "tools/import_tlspol.h"
#include "fuzz.h"

struct fuzz_in {
	const unsigned char *p;
	size_t		 len;
	char		*text;
	struct sts_policy *pol;
};

/* fuzz_inside - s[0..n) lies in the input */
static int
fuzz_inside(const struct fuzz_in *in, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	return (u >= in->p && n <= in->len && u - in->p <= (ptrdiff_t)
	    (in->len - n));
}

/* fuzz_entry - the properties of one entry */
static int
fuzz_entry(const struct import_tlspol_entry *e, void *arg)
{
	static const struct config_cache cc;
	struct fuzz_in	*in = arg;
	struct import_row row;
	struct cache_record rec = { 0 };
	char		 why[IMPORT_ROW_WHY_LEN], key[DOMAIN_BUFSZ];

	FUZZ_CHECK(fuzz_inside(in, e->key, e->keylen));
	if (e->legacy.policy != NULL)
		FUZZ_CHECK(fuzz_inside(in, e->legacy.policy,
		    e->legacy.policylen));
	if (e->mtasts.policy != NULL)
		FUZZ_CHECK(fuzz_inside(in, e->mtasts.policy,
		    e->mtasts.policylen));
	switch (import_tlspol_row(e, in->text, IMPORT_TLSPOL_TEXT, &row, why,
	    sizeof(why))) {
	case IMPORT_TLSPOL_POLICY:
		FUZZ_CHECK(row.policylen > 0 && row.policylen <
		    IMPORT_TLSPOL_TEXT && row.policy[row.policylen - 1] ==
		    '\n');
		FUZZ_CHECK(strncmp(row.policy, "version: STSv1\nmode: "
		    "enforce\n", 29) == 0);
		if (import_row_record(&row, &cc, 1796545000, in->pol, key,
		    &rec, why, sizeof(why)) != IMPORT_ROW_MALFORMED) {
			FUZZ_CHECK(rec.kind == CACHE_KIND_STS &&
			    rec.sts_mode == CACHE_STS_ENFORCE);
			FUZZ_CHECK(rec.expires_at == rec.fetched_at +
			    (int64_t)rec.max_age);
		}
		break;
	case IMPORT_TLSPOL_BAD:
		FUZZ_CHECK(why[0] != '\0');
		break;
	case IMPORT_TLSPOL_NONE:
		break;
	}
	cache_record_release(&rec);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in	 in;
	unsigned char	*p;
	char		 err[256];

	p = malloc(size > 0 ? size : 1);
	in.text = malloc(IMPORT_TLSPOL_TEXT);
	in.pol = calloc(1, sizeof(*in.pol));
	FUZZ_CHECK(p != NULL && in.text != NULL && in.pol != NULL);
	if (size > 0)
		memcpy(p, data, size);
	in.p = p;
	in.len = size;
	if (import_tlspol_walk(p, size, fuzz_entry, &in, err, sizeof(err)) ==
	    -1)
		FUZZ_CHECK(err[0] != '\0');
	free(p);
	free(in.text);
	free(in.pol);
	return (0);
}
