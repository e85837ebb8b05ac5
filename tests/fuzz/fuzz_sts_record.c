/*
 * fuzz_sts_record.c - libFuzzer target for the MTA-STS TXT record
 * (sts_record.c: RFC 8461 §3.1)
 *
 * The input is used three ways: as TXT RDATA in wire form (joined, then
 * parsed), as one joined record, and as several records separated by LF
 * for sts_record_select().  Every OK result is checked against the
 * grammar's promises; a broken promise aborts.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/sts_record.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_check - what an OK record guarantees */
static void
fuzz_check(const struct sts_record *rec)
{
	size_t	 i;

	if (rec->idlen == 0 || rec->idlen > STS_RECORD_ID_MAX ||
	    rec->id[rec->idlen] != '\0')
		abort();
	for (i = 0; i < rec->idlen; i++)
		if (!((rec->id[i] >= 'a' && rec->id[i] <= 'z') ||
		    (rec->id[i] >= 'A' && rec->id[i] <= 'Z') ||
		    (rec->id[i] >= '0' && rec->id[i] <= '9')))
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char		 joined[STS_RECORD_MAX_LEN + 1];
	struct sts_record_txt	 txts[STS_RECORD_MAX_TXT + 1];
	struct sts_record	 rec;
	const char		*p = (const char *)data, *nl;
	size_t			 len, n, pos;

	/* 1. TXT RDATA wire form. */
	if (sts_record_txt_join(data, size, joined, sizeof(joined), &len) == 0) {
		if (len >= size || joined[len] != '\0')
			abort();
		if (sts_record_parse(joined, len, &rec) == STS_RECORD_OK)
			fuzz_check(&rec);
	}

	/* 2. One joined record. */
	if (sts_record_parse(p, size, &rec) == STS_RECORD_OK) {
		fuzz_check(&rec);
		if (size < 8 || memcmp(p, "v=STSv1;", 8) != 0)
			abort();
	}

	/* 3. Records separated by LF. */
	n = 0;
	for (pos = 0; pos <= size && n < STS_RECORD_MAX_TXT + 1; n++) {
		nl = memchr(p + pos, '\n', size - pos);
		len = nl != NULL ? (size_t)(nl - (p + pos)) : size - pos;
		txts[n].p = p + pos;
		txts[n].len = len;
		pos += len + 1;
	}
	if (sts_record_select(txts, n, &rec) == STS_RECORD_OK)
		fuzz_check(&rec);
	return (0);
}
