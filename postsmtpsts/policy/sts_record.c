/*
 * sts_record.c - the MTA-STS TXT record (RFC 8461 §3.1)
 *
 * sts_record_txt_join() turns TXT RDATA wire format (RFC 1035 §3.3.14,
 * <length octet><bytes>...) into one string; sts_record_parse() checks it
 * against the RFC 8461 §3.1 ABNF and extracts the policy id;
 * sts_record_select() applies the §3.1 rule for several TXT records (discard
 * those not beginning with "v=STSv1;", use the remaining one if there is
 * exactly one).
 *
 * Limits: joined record <= STS_RECORD_MAX_LEN, id <= STS_RECORD_ID_MAX,
 * extension names <= 32 bytes (ABNF), at most STS_RECORD_MAX_TXT records.
 * Pure: no allocation, no globals, no I/O; inputs are (pointer, length).
 */
#include "autoconf.h"

#include <stddef.h>
#include <string.h>

#include "policy/sts_record.h"

#define STS_RECORD_VERSION	"v=STSv1;"
#define STS_RECORD_VERSION_LEN	(sizeof(STS_RECORD_VERSION) - 1)
#define STS_RECORD_EXT_NAME_MAX	32	/* (ALPHA / DIGIT) *31(...) */

int
sts_record_txt_join(const unsigned char *rdata, size_t len, char *out,
    size_t outsz, size_t *outlen)
{
	size_t	 pos, n, slen;

	/* RFC 1035 §3.3.14: TXT-DATA is one or more <character-string>. */
	if (len == 0 || outsz == 0)
		return (-1);
	pos = n = 0;
	while (pos < len) {
		slen = rdata[pos++];
		if (slen > len - pos)
			return (-1);
		/* Keep one byte for the NUL: check before copying. */
		if (slen >= outsz - n)
			return (-1);
		memcpy(out + n, rdata + pos, slen);
		n += slen;
		pos += slen;
	}
	out[n] = '\0';
	*outlen = n;
	return (0);
}

/* sts_record_alnum - ALPHA / DIGIT */
static int
sts_record_alnum(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'));
}

/* sts_record_wsp - RFC 5234 WSP */
static int
sts_record_wsp(unsigned char c)
{
	return (c == ' ' || c == '\t');
}

/* sts_record_ext_vchar - sts-ext-value: %x21-3A / %x3C / %x3E-7E */
static int
sts_record_ext_vchar(unsigned char c)
{
	return (c >= 0x21 && c <= 0x7e && c != ';' && c != '=');
}

/*
 * sts_record_field - parse one sts-field at p[*pos..len)
 *
 * Returns 1 for an id (copied to out), 0 for an extension, -1 if neither.
 */
static int
sts_record_field(const char *p, size_t len, size_t *pos,
    struct sts_record *out)
{
	size_t	 i, start;

	i = *pos;
	if (len - i >= 3 && memcmp(p + i, "id=", 3) == 0) {
		i += 3;
		start = i;
		while (i < len && sts_record_alnum((unsigned char)p[i])) {
			/* RFC 8461 §3.1: 1*32 characters, checked first. */
			if (i - start >= STS_RECORD_ID_MAX)
				return (-1);
			i++;
		}
		if (i == start)
			return (-1);
		memcpy(out->id, p + start, i - start);
		out->id[i - start] = '\0';
		out->idlen = i - start;
		*pos = i;
		return (1);
	}
	/* sts-ext-name: ALPHA / DIGIT, then up to 31 of those or "_-.". */
	start = i;
	if (i >= len || !sts_record_alnum((unsigned char)p[i]))
		return (-1);
	for (i++; i < len && (sts_record_alnum((unsigned char)p[i]) ||
	    p[i] == '_' || p[i] == '-' || p[i] == '.'); i++)
		if (i - start >= STS_RECORD_EXT_NAME_MAX)
			return (-1);
	if (i >= len || p[i] != '=')
		return (-1);
	i++;
	start = i;
	while (i < len && sts_record_ext_vchar((unsigned char)p[i]))
		i++;
	if (i == start)
		return (-1);
	*pos = i;
	return (0);
}

enum sts_record_status
sts_record_parse(const char *p, size_t len, struct sts_record *out)
{
	size_t	 pos;
	int	 have_id, r;

	/* RFC 8461 §3.1: records not beginning "v=STSv1;" are discarded. */
	if (len < STS_RECORD_VERSION_LEN ||
	    memcmp(p, STS_RECORD_VERSION, STS_RECORD_VERSION_LEN) != 0)
		return (STS_RECORD_NOT_STS);
	if (len > STS_RECORD_MAX_LEN)
		return (STS_RECORD_INVALID);
	out->id[0] = '\0';
	out->idlen = 0;
	have_id = 0;
	pos = STS_RECORD_VERSION_LEN;
	/* The ';' of the version consumed; *WSP then a field (1*(...)). */
	while (pos < len && sts_record_wsp((unsigned char)p[pos]))
		pos++;
	for (;;) {
		if ((r = sts_record_field(p, len, &pos, out)) == -1)
			return (STS_RECORD_INVALID);
		if (r == 1) {
			/* Two ids name two versions: refuse to guess. */
			if (have_id)
				return (STS_RECORD_INVALID);
			have_id = 1;
		}
		if (pos == len)
			break;
		/* sts-field-delim = *WSP ";" *WSP */
		while (pos < len && sts_record_wsp((unsigned char)p[pos]))
			pos++;
		if (pos == len || p[pos] != ';')
			return (STS_RECORD_INVALID);
		pos++;
		while (pos < len && sts_record_wsp((unsigned char)p[pos]))
			pos++;
		/* [sts-field-delim]: a trailing delimiter ends the record. */
		if (pos == len)
			break;
	}
	/* RFC 8461 §3.1: id is required. */
	if (!have_id)
		return (STS_RECORD_INVALID);
	return (STS_RECORD_OK);
}

enum sts_record_status
sts_record_select(const struct sts_record_txt *txts, size_t n,
    struct sts_record *out)
{
	size_t	 i, found;

	if (n > STS_RECORD_MAX_TXT)
		return (STS_RECORD_MULTIPLE);
	found = n;
	for (i = 0; i < n; i++) {
		if (txts[i].len < STS_RECORD_VERSION_LEN ||
		    memcmp(txts[i].p, STS_RECORD_VERSION,
		    STS_RECORD_VERSION_LEN) != 0)
			continue;
		/* RFC 8461 §3.1: the remaining records must number one. */
		if (found != n)
			return (STS_RECORD_MULTIPLE);
		found = i;
	}
	if (found == n)
		return (STS_RECORD_NOT_STS);
	return (sts_record_parse(txts[found].p, txts[found].len, out));
}

const char *
sts_record_status_name(enum sts_record_status st)
{
	switch (st) {
	case STS_RECORD_OK:
		return ("ok");
	case STS_RECORD_NOT_STS:
		return ("not-sts");
	case STS_RECORD_INVALID:
		return ("invalid");
	case STS_RECORD_MULTIPLE:
		return ("multiple");
	}
	return ("unknown");
}
