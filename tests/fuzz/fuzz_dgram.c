/*
 * fuzz_dgram.c - fuzz target for the libtlsrpt datagram parser of
 * postsmtpsts-tlsrpt's socket input (dgram_parse)
 *
 * The whole input is one datagram, in a heap block of exactly its
 * length (json-c must not read past it).  Properties:
 *	- DGRAM_OK exactly when at least one policy was read, and then
 *	  npolicies <= DGRAM_MAX_POLICIES, every policy's ndetails <=
 *	  DGRAM_MAX_DETAILS, its type one of the three, its strings and
 *	  patterns '\n'-ended printable ASCII within their buffer;
 *	- the domain and every MX host passes domain_check, lower case;
 *	- every text is NUL-terminated inside its array, reasons printable;
 *	- a refusal leaves npolicies 0 and a printable message.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/domain.h"
#include "tlsrpt/dgram.h"
#include "fuzz.h"

/* fuzz_lines - b holds '\n'-ended printable lines */
static void
fuzz_lines(const struct buf *b)
{
	size_t	 i;

	FUZZ_CHECK(!b->error && b->len <= AGG_MAX_TEXT);
	FUZZ_CHECK(b->len == 0 || b->data[b->len - 1] == '\n');
	for (i = 0; i < b->len; i++)
		FUZZ_CHECK(b->data[i] == '\n' ||
		    (b->data[i] >= 0x20 && b->data[i] < 0x7f));
}

/* fuzz_text - s is a NUL-terminated printable string inside s[0..sz) */
static void
fuzz_text(const char *s, size_t sz)
{
	size_t	 i, n = strnlen(s, sz);

	FUZZ_CHECK(n < sz);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dgram *d;
	const struct dgram_policy *p;
	char	*copy = malloc(size > 0 ? size : 1), why[256];
	enum dgram_status st;
	size_t	 i, j;

	FUZZ_CHECK(copy != NULL);
	if (d == NULL)
		d = dgram_new();
	if (size > 0)
		memcpy(copy, data, size);
	st = dgram_parse(copy, size, d, why, sizeof(why));
	fuzz_text(why, sizeof(why));
	FUZZ_CHECK((st == DGRAM_OK) == (d->npolicies > 0));
	FUZZ_CHECK(d->npolicies <= DGRAM_MAX_POLICIES);
	if (st == DGRAM_OK) {
		FUZZ_CHECK(domain_check(d->domain, strlen(d->domain),
		    DOMAIN_NAME_UNDERSCORE, 2,
		    NULL) == DOMAIN_CHECK_OK);
		for (i = 0; i < strlen(d->domain); i++)
			FUZZ_CHECK(d->domain[i] < 'A' || d->domain[i] > 'Z');
		FUZZ_CHECK(d->version == 0 || d->version == 1);
	}
	for (i = 0; i < d->npolicies; i++) {
		p = &d->policies[i];
		FUZZ_CHECK(p->type <= TLSRPT_POLICY_MAX);
		FUZZ_CHECK(p->failed == 0 || p->failed == 1);
		FUZZ_CHECK(p->ndetails <= DGRAM_MAX_DETAILS);
		fuzz_lines(&p->strings);
		fuzz_lines(&p->mx);
		for (j = 0; j < p->ndetails; j++) {
			FUZZ_CHECK(p->details[j].result > TLSRPT_RESULT_NONE &&
			    p->details[j].result <= TLSRPT_RESULT_MAX);
			fuzz_text(p->details[j].host,
			    sizeof(p->details[j].host));
			if (p->details[j].host[0] != '\0')
				FUZZ_CHECK(domain_check(p->details[j].host,
				    strlen(p->details[j].host),
				    DOMAIN_NAME_UNDERSCORE, 2, NULL) ==
				    DOMAIN_CHECK_OK);
			fuzz_text(p->details[j].addr,
			    sizeof(p->details[j].addr));
			fuzz_text(p->details[j].reason,
			    sizeof(p->details[j].reason));
		}
	}
	free(copy);
	return (0);
}
