/*
 * fuzz_domain.c - fuzz target for domain_normalize
 *
 * The input is one socketmap key.  Properties:
 *	- out is written within DOMAIN_BUFSZ (a heap block of exactly that
 *	  size) and is the empty string unless DOMAIN_OK;
 *	- a DOMAIN_OK name is 1..253 bytes of [a-z0-9._-], at least two
 *	  labels of 1..63, no label starting or ending with '-';
 *	- normalization is idempotent: the output normalizes to itself.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "fuzz.h"

/* fuzz_check_name - the DOMAIN_OK output rules of domain.h */
static void
fuzz_check_name(const char *name)
{
	size_t	 i, len = strlen(name), label = 0, nlabels = 1;
	char	 c;

	FUZZ_CHECK(len >= 3 && len <= DOMAIN_MAX_LEN);
	for (i = 0; i < len; i++) {
		c = name[i];
		if (c == '.') {
			FUZZ_CHECK(label >= 1 && name[i - 1] != '-');
			label = 0;
			nlabels++;
			continue;
		}
		FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-');
		FUZZ_CHECK(!(c == '-' && label == 0));
		FUZZ_CHECK(++label <= DOMAIN_MAX_LABEL);
	}
	FUZZ_CHECK(label >= 1 && name[len - 1] != '-');
	FUZZ_CHECK(nlabels >= 2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum domain_status st, st2;
	char	*out, *again;

	out = malloc(DOMAIN_BUFSZ);
	again = malloc(DOMAIN_BUFSZ);
	FUZZ_CHECK(out != NULL && again != NULL);
	st = domain_normalize((const char *)data, size, out);
	FUZZ_CHECK(st == DOMAIN_OK || st == DOMAIN_NOT_PLAIN ||
	    st == DOMAIN_INVALID);
	if (st == DOMAIN_OK) {
		fuzz_check_name(out);
		st2 = domain_normalize(out, strlen(out), again);
		FUZZ_CHECK(st2 == DOMAIN_OK && strcmp(out, again) == 0);
	} else
		FUZZ_CHECK(out[0] == '\0');
	free(out);
	free(again);
	return (0);
}
