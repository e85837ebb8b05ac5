/*
 * fuzz_check_parse.c - fuzz target for the parsers postsmtpsts-check runs
 * on untrusted bytes: SMTP replies from any server (check_parse.c), MX and
 * TLSA RDATA (dane.c, the daemon's DANE walk, which the checker uses)
 *
 * The first input byte picks the parser (mod 3), the rest is its input.
 * Properties:
 *	- check_parse_reply: a COMPLETE reply lies inside the input, has a
 *	  code in 100..599, at least one line, its first line inside it;
 *	  every proper prefix of it is INCOMPLETE (the reader waits for more
 *	  bytes, never guesses); BAD always carries a reason;
 *	- dane_mx_parse: an accepted name is at most DOMAIN_MAX_LEN bytes
 *	  of [a-z0-9_-] labels joined by single dots, NUL-terminated;
 *	- dane_tlsa_parse: usable only for usage 2/3, selector 0/1,
 *	  matching type 0/1/2 with the right digest length; at most
 *	  DANE_MAX_DATA bytes of data kept.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "policy/dane.h"
#include "tools/check_parse.h"
#include "fuzz.h"

#define FUZZ_PREFIX_CHECK_MAX	64	/* prefixes checked per reply */

/* fuzz_reply - properties of check_parse_reply on p[0..len) */
static void
fuzz_reply(const char *p, size_t len)
{
	struct check_parse_reply r, r2;
	enum check_parse_status st;
	size_t	 k, step;

	st = check_parse_reply(p, len, &r);
	if (st == CHECK_PARSE_BAD) {
		FUZZ_CHECK(r.why != NULL);
		return;
	}
	if (st != CHECK_PARSE_COMPLETE)
		return;
	FUZZ_CHECK(r.used > 0 && r.used <= len);
	FUZZ_CHECK(r.code >= 100 && r.code <= 599);
	FUZZ_CHECK(r.nlines >= 1 && r.nlines <= CHECK_PARSE_MAX_LINES);
	FUZZ_CHECK(r.first_off == 0);
	FUZZ_CHECK(r.first_len >= 3 && r.first_len < r.used);
	FUZZ_CHECK(p[r.used - 1] == '\n');
	step = r.used / FUZZ_PREFIX_CHECK_MAX + 1;
	for (k = 0; k < r.used; k += step) {
		st = check_parse_reply(p, k, &r2);
		FUZZ_CHECK(st == CHECK_PARSE_INCOMPLETE);
	}
}

/* fuzz_mx - properties of dane_mx_parse */
static void
fuzz_mx(const unsigned char *p, size_t len)
{
	char	 name[DOMAIN_BUFSZ];
	uint16_t pref;
	size_t	 i, n;

	if (dane_mx_parse(p, len, &pref, name) == -1)
		return;
	n = strlen(name);
	FUZZ_CHECK(n <= DOMAIN_MAX_LEN);
	if (n == 0)
		return;
	FUZZ_CHECK(name[0] != '.' && name[n - 1] != '.');
	for (i = 0; i < n; i++) {
		char c = name[i];

		FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.');
		if (c == '.')
			FUZZ_CHECK(name[i + 1] != '.');
	}
}

/* fuzz_tlsa - properties of dane_tlsa_parse */
static void
fuzz_tlsa(const unsigned char *p, size_t len)
{
	struct dane_tlsa t;

	if (dane_tlsa_parse(p, len, &t) == -1) {
		FUZZ_CHECK(len < 4);
		return;
	}
	FUZZ_CHECK(t.len == len - 3);
	FUZZ_CHECK(t.rdata == NULL);
	if (!t.usable)
		return;
	FUZZ_CHECK(t.usage == 2 || t.usage == 3);
	FUZZ_CHECK(t.selector <= 1 && t.mtype <= 2);
	FUZZ_CHECK(t.mtype != 1 || len == 3 + 32);
	FUZZ_CHECK(t.mtype != 2 || len == 3 + 64);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return (0);
	switch (data[0] % 3) {
	case 0:
		fuzz_reply((const char *)data + 1, size - 1);
		break;
	case 1:
		fuzz_mx(data + 1, size - 1);
		break;
	default:
		fuzz_tlsa(data + 1, size - 1);
		break;
	}
	return (0);
}
