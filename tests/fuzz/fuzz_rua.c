/*
 * fuzz_rua.c - fuzz target for the TLSRPT record parser of
 * postsmtpsts-tlsrpt (rua_parse, rua_select)
 *
 * The whole input is one joined TXT record, in a heap block of exactly
 * its length; split at newlines it is also an RRset for rua_select().
 * Properties:
 *	- n <= RUA_MAX_DESTS, and RUA_OK exactly when n > 0;
 *	- every kept destination is safe to hand on: a mailto mailbox has
 *	  one '@', no byte outside 0x21..0x7e, none of < > " \ , and does
 *	  not start with '-' followed by nothing usable (it always has '@');
 *	  an https host is a host name, the path starts with '/' and has
 *	  no blank, control byte or '#';
 *	- every string is NUL-terminated inside its array.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "tlsrpt/rua.h"
#include "fuzz.h"

/* fuzz_dest - the properties of one kept destination */
static void
fuzz_dest(const struct rua_dest *d)
{
	size_t	 i, n, at = 0;

	FUZZ_CHECK(strnlen(d->uri, sizeof(d->uri)) < sizeof(d->uri));
	if (d->scheme == RUA_MAILTO) {
		n = strnlen(d->mailbox, sizeof(d->mailbox));
		FUZZ_CHECK(n < sizeof(d->mailbox) && n > 2);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(d->mailbox[i] > 0x20 && d->mailbox[i] < 0x7f);
			FUZZ_CHECK(strchr("<>\"\\,", d->mailbox[i]) == NULL);
			if (d->mailbox[i] == '@')
				at++;
		}
		FUZZ_CHECK(at == 1);
	} else {
		FUZZ_CHECK(d->scheme == RUA_HTTPS);
		FUZZ_CHECK(domain_check(d->host, strlen(d->host), 0, 2, NULL) ==
		    DOMAIN_CHECK_OK);
		FUZZ_CHECK(d->port >= 1 && d->port <= 65535);
		n = strnlen(d->path, sizeof(d->path));
		FUZZ_CHECK(n < sizeof(d->path) && d->path[0] == '/');
		for (i = 0; i < n; i++)
			FUZZ_CHECK(d->path[i] > 0x20 && d->path[i] < 0x7f &&
			    d->path[i] != '#');
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rua_list *l = malloc(sizeof(*l));
	const char *txt[16];
	size_t	 lens[16], n = 0, i, idx;
	char	*rec = malloc(size > 0 ? size : 1);
	const char *p, *nl;
	enum rua_status st;

	FUZZ_CHECK(l != NULL && rec != NULL);
	if (size > 0)
		memcpy(rec, data, size);
	st = rua_parse(rec, size, l);
	FUZZ_CHECK(l->n <= RUA_MAX_DESTS);
	FUZZ_CHECK((st == RUA_OK) == (l->n > 0));
	FUZZ_CHECK(strnlen(l->why, sizeof(l->why)) < sizeof(l->why));
	for (i = 0; i < l->n; i++)
		fuzz_dest(&l->dest[i]);
	for (p = rec; n < 16 && p < rec + size; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(rec + size - p));
		if (nl == NULL)
			nl = rec + size;
		txt[n] = p;
		lens[n++] = (size_t)(nl - p);
	}
	idx = n;
	if (rua_select(txt, lens, n, &idx) == 0)
		FUZZ_CHECK(idx < n && lens[idx] >= 10);
	free(rec);
	free(l);
	return (0);
}
