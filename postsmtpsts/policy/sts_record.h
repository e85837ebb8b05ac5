/*
 * sts_record.h - the MTA-STS TXT record at _mta-sts.<domain> (RFC 8461 §3.1)
 *
 *	_mta-sts.example.com. IN TXT "v=STSv1; id=20160831085700Z;"
 *
 * A record tells that the domain has a policy and names its version (the
 * "id").  Parsing is strict ABNF; whoever calls this treats anything but
 * STS_RECORD_OK as "no MTA-STS policy available" (RFC 8461 §3.1, §5).
 * Pure functions: no allocation, no I/O.
 */
#ifndef STS_RECORD_H
#define STS_RECORD_H

#include <stddef.h>

#define STS_RECORD_ID_MAX	32	/* RFC 8461 §3.1: 1*32(ALPHA / DIGIT) */
#define STS_RECORD_MAX_LEN	65535	/* longest joined TXT RDATA we parse */
#define STS_RECORD_MAX_TXT	64	/* TXT records of one name we look at */

enum sts_record_status {
	STS_RECORD_OK = 0,	/* one valid STS record */
	STS_RECORD_NOT_STS,	/* no record begins with "v=STSv1;" */
	STS_RECORD_INVALID,	/* begins with "v=STSv1;" but breaks the ABNF */
	STS_RECORD_MULTIPLE,	/* more than one begins with "v=STSv1;" */
};

struct sts_record {
	char	 id[STS_RECORD_ID_MAX + 1];	/* NUL-terminated */
	size_t	 idlen;
};

/* One joined TXT record (see sts_record_txt_join), not NUL-terminated. */
struct sts_record_txt {
	const char	*p;
	size_t		 len;
};

/*
 * sts_record_txt_join - join the character-strings of one TXT RDATA
 *
 * rdata[0..len) is TXT RDATA in wire form (RFC 1035 §3.3.14): one or more
 * <length octet><length bytes>.  The strings are concatenated without any
 * separator (RFC 7208 §3.3 convention, which RFC 8461 §3.1 relies on for
 * records split into several strings), NUL-terminated, into out[0..outsz).
 * Returns 0 and sets *outlen (excluding the NUL), or -1 when the RDATA is
 * empty, a length octet runs past len, or the result plus its NUL does not
 * fit in outsz.  out is unspecified after -1.
 */
int	sts_record_txt_join(const unsigned char *rdata, size_t len,
	    char *out, size_t outsz, size_t *outlen);

/*
 * sts_record_parse - parse one joined TXT record p[0..len)
 *
 * RFC 8461 §3.1 ABNF:
 *	sts-text-record = sts-version 1*(sts-field-delim sts-field)
 *	                  [sts-field-delim]
 *	sts-field-delim = *WSP ";" *WSP
 *	sts-version     = %s"v=STSv1"
 *	sts-id          = %s"id=" 1*32(ALPHA / DIGIT)
 *	sts-extension   = sts-ext-name "=" sts-ext-value
 *	sts-ext-name    = (ALPHA / DIGIT) *31(ALPHA / DIGIT / "_" / "-" / ".")
 *	sts-ext-value   = 1*(%x21-3A / %x3C / %x3E-7E)
 *
 * Returns STS_RECORD_NOT_STS unless p starts with exactly "v=STSv1;" (the
 * text's discard rule, so "v=STSv10;" and "v=STSv1 ;" are not STS
 * records); STS_RECORD_INVALID when the rest breaks the ABNF (whitespace
 * only around ';', nothing after the last field but an optional delimiter),
 * when id is missing, or when id appears twice (ambiguous: which version?);
 * STS_RECORD_OK with out filled in otherwise.  Extension fields are checked
 * and ignored.  p need not be NUL-terminated; out is unspecified unless OK.
 */
enum sts_record_status sts_record_parse(const char *p, size_t len,
	    struct sts_record *out);

/*
 * sts_record_select - pick the record of a domain from its TXT records
 *
 * txts[0..n) are all TXT records of _mta-sts.<domain>, each joined.  Per
 * RFC 8461 §3.1, records that do not begin with "v=STSv1;" are discarded;
 * if exactly one remains, its parse result is returned (OK or INVALID);
 * none remaining is STS_RECORD_NOT_STS and more than one is
 * STS_RECORD_MULTIPLE, both meaning "no policy".  n > STS_RECORD_MAX_TXT is
 * STS_RECORD_MULTIPLE without looking further.  out is filled in on OK only.
 */
enum sts_record_status sts_record_select(const struct sts_record_txt *txts,
	    size_t n, struct sts_record *out);

/* sts_record_status_name - "ok", "not-sts", "invalid", "multiple" */
const char *sts_record_status_name(enum sts_record_status st);

#endif
