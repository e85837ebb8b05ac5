/*
 * fuzz_history.c - fuzz target for the history file's lines
 * (policy/history.c: history_parse, as postsmtpsts-cache history reads
 * them, and history_format, as the resolver writes them)
 *
 * The input is split at newlines like the tool splits a file, each line
 * given without its newline in a heap block of exactly its length.
 * Properties of a line that parses:
 *	- the domain passes domain_check, the kind has a name, ts >= 0;
 *	- every string is NUL-terminated inside its array, printable ASCII;
 *	- modes and DANE states are -1 or known values;
 *	- history_format() writes it as one line of at most
 *	  HISTORY_LINE_MAX bytes ending in its only newline, and that line
 *	  parses back to the same fields (the mx lists too, unless the
 *	  writer had to omit them).
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "policy/dane.h"
#include "policy/history.h"
#include "fuzz.h"

/* fuzz_printable - s is NUL-terminated within n bytes, printable ASCII */
static void
fuzz_printable(const char *s, size_t n)
{
	size_t	 i;

	FUZZ_CHECK(memchr(s, '\0', n) != NULL);
	for (i = 0; s[i] != '\0'; i++)
		FUZZ_CHECK((unsigned char)s[i] >= 0x20 &&
		    (unsigned char)s[i] <= 0x7e);
}

/* fuzz_line - the properties for one line p[0..len) */
static void
fuzz_line(const char *p, size_t len)
{
	static struct history_event ev, back;
	static char	 out[HISTORY_LINE_MAX + 8];
	const char	*why;
	char		*line;
	int		 n;

	line = malloc(len > 0 ? len : 1);
	FUZZ_CHECK(line != NULL);
	if (len > 0)
		memcpy(line, p, len);
	if (history_parse(line, len, &ev, &why) == -1) {
		FUZZ_CHECK(why != NULL && why[0] != '\0');
		free(line);
		return;
	}
	free(line);
	FUZZ_CHECK(history_kind_name(ev.kind) != NULL);
	FUZZ_CHECK(ev.time >= 0);
	FUZZ_CHECK(domain_check(ev.domain, strlen(ev.domain),
	    DOMAIN_NAME_UNDERSCORE, 1, NULL) == DOMAIN_CHECK_OK);
	fuzz_printable(ev.trigger, sizeof(ev.trigger));
	fuzz_printable(ev.old_id, sizeof(ev.old_id));
	fuzz_printable(ev.id, sizeof(ev.id));
	fuzz_printable(ev.sha256, sizeof(ev.sha256));
	fuzz_printable(ev.old_mx, sizeof(ev.old_mx));
	fuzz_printable(ev.mx, sizeof(ev.mx));
	fuzz_printable(ev.detail, sizeof(ev.detail));
	FUZZ_CHECK(ev.old_mode >= -1 && ev.old_mode <= CACHE_STS_ENFORCE);
	FUZZ_CHECK(ev.mode >= -1 && ev.mode <= CACHE_STS_ENFORCE);
	FUZZ_CHECK(ev.old_dane >= -1 && ev.old_dane <= DANE_STATE_MAX);
	FUZZ_CHECK(ev.dane >= -1 && ev.dane <= DANE_STATE_MAX);

	n = history_format(&ev, out, sizeof(out));
	FUZZ_CHECK(n > 0 && n <= HISTORY_LINE_MAX);
	FUZZ_CHECK((size_t)n == strlen(out));
	FUZZ_CHECK(memchr(out, '\n', (size_t)n) == out + n - 1);
	FUZZ_CHECK(history_parse(out, (size_t)n - 1, &back, &why) == 0);
	FUZZ_CHECK(back.kind == ev.kind && back.source == ev.source &&
	    back.time == ev.time);
	FUZZ_CHECK(strcmp(back.domain, ev.domain) == 0);
	FUZZ_CHECK(strcmp(back.trigger, ev.trigger) == 0);
	FUZZ_CHECK(strcmp(back.old_id, ev.old_id) == 0);
	FUZZ_CHECK(strcmp(back.id, ev.id) == 0);
	FUZZ_CHECK(strcmp(back.sha256, ev.sha256) == 0);
	FUZZ_CHECK(strcmp(back.detail, ev.detail) == 0);
	FUZZ_CHECK(back.old_mode == ev.old_mode && back.mode == ev.mode);
	FUZZ_CHECK(back.old_dane == ev.old_dane && back.dane == ev.dane);
	FUZZ_CHECK(back.expired_at == ev.expired_at);
	if (back.has_mx) {
		FUZZ_CHECK(ev.has_mx);
		FUZZ_CHECK(strcmp(back.old_mx, ev.old_mx) == 0);
		FUZZ_CHECK(strcmp(back.mx, ev.mx) == 0);
	} else
		FUZZ_CHECK(!ev.has_mx || back.mx_omitted);
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
