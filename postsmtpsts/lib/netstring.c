/*
 * netstring.c - netstring framing for the socketmap protocol
 *
 * Wire format (D. J. Bernstein, http://cr.yp.to/proto/netstrings.txt, as
 * used by Postfix's socketmap_table(5) and dict_sockmap.c):
 *
 *	<decimal length> ":" <length bytes> ","
 *
 * netstring_decode() is incremental: it inspects the bytes received so far
 * and reports one complete netstring, "need more", or a framing error that
 * no further input can repair.  It keeps no state between calls: a caller
 * re-offers the whole unconsumed input.  Limits, all checked before the
 * payload is waited for, so that a hostile length costs no buffering:
 *
 *	- the length prefix is 1..NETSTRING_MAX_DIGITS decimal digits
 *	  (leading zeros allowed, as Postfix allows them); no sign, no space;
 *	- the declared length is compared with the caller's max while the
 *	  digits arrive, with overflow-checked arithmetic;
 *	- the byte after the payload must be ','.
 *
 * netstring_encode() and the begin/end pair append to a struct buf; an
 * append that does not fit sets the buf's sticky error bit.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/netstring.h"

/* Room for the decimal digits of any size_t (20 for 64 bits). */
#define NETSTRING_SIZE_DIGITS	(3 * sizeof(size_t))

/*
 * netstring_format_len - write len in decimal at the end of digits[]
 *
 * Returns the number of digits; they start at digits + sizeof - n.
 */
static size_t
netstring_format_len(char digits[NETSTRING_SIZE_DIGITS], size_t len)
{
	size_t	 n = 0;

	do {
		digits[NETSTRING_SIZE_DIGITS - 1 - n] = (char)('0' + len % 10);
		len /= 10;
		n++;
	} while (len > 0);
	return (n);
}

enum netstring_status
netstring_decode(const char *p, size_t len, size_t max,
    const char **payload, size_t *payload_len, size_t *consumed)
{
	size_t	 i, value = 0, digit, avail;

	for (i = 0; i < len; i++) {
		if (p[i] == ':')
			break;
		if (p[i] < '0' || p[i] > '9')
			return (NETSTRING_ERR_FORMAT);
		digit = (size_t)(p[i] - '0');
		/* value * 10 + digit must neither wrap nor pass max. */
		if (value > (SIZE_MAX - digit) / 10)
			return (NETSTRING_ERR_TOOLONG);
		value = value * 10 + digit;
		/* More digits only make it larger: refuse now, not later. */
		if (value > max)
			return (NETSTRING_ERR_TOOLONG);
		if (i + 1 > NETSTRING_MAX_DIGITS)
			return (NETSTRING_ERR_FORMAT);
	}
	if (i == len)
		return (NETSTRING_INCOMPLETE);
	if (i == 0)
		return (NETSTRING_ERR_FORMAT);	/* ":" without a length */

	/* p[i] is ':'; the payload and ',' follow. */
	avail = len - i - 1;
	if (avail <= value)
		return (NETSTRING_INCOMPLETE);
	if (p[i + 1 + value] != ',')
		return (NETSTRING_ERR_FORMAT);
	*payload = p + i + 1;
	*payload_len = value;
	*consumed = i + 1 + value + 1;
	return (NETSTRING_OK);
}

size_t
netstring_encoded_len(size_t len)
{
	char	 digits[NETSTRING_SIZE_DIGITS];
	size_t	 n;

	n = netstring_format_len(digits, len);
	if (len > SIZE_MAX - n - 2)
		return (SIZE_MAX);
	return (n + 1 + len + 1);
}

int
netstring_encode_begin(struct buf *out, size_t len)
{
	char	 digits[NETSTRING_SIZE_DIGITS + 1];
	size_t	 n;

	n = netstring_format_len(digits, len);
	digits[NETSTRING_SIZE_DIGITS] = ':';
	return (buf_append(out, digits + NETSTRING_SIZE_DIGITS - n, n + 1));
}

int
netstring_encode_end(struct buf *out)
{
	return (buf_append_char(out, ','));
}

int
netstring_encode(struct buf *out, const char *p, size_t len)
{
	size_t	 need;

	if (out->error)
		return (-1);
	need = netstring_encoded_len(len);
	if (need > out->max - out->len) {
		/* All or nothing: a partial frame would desync the peer. */
		out->error = 1;
		return (-1);
	}
	if (netstring_encode_begin(out, len) == -1 ||
	    buf_append(out, p, len) == -1 ||
	    netstring_encode_end(out) == -1)
		return (-1);
	return (0);
}

const char *
netstring_strerror(enum netstring_status st)
{
	switch (st) {
	case NETSTRING_OK:
		return ("ok");
	case NETSTRING_INCOMPLETE:
		return ("incomplete netstring");
	case NETSTRING_ERR_FORMAT:
		return ("netstring format error");
	case NETSTRING_ERR_TOOLONG:
		return ("netstring exceeds size limit");
	}
	return ("unknown netstring status");
}
