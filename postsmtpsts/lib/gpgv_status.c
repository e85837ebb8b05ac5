/*
 * gpgv_status.c - gpgv's --status-fd lines, read
 *
 * GnuPG doc/DETAILS, "Format of the status codes": each line is
 * "[GNUPG:] KEYWORD args...".  Of a verification we need GOODSIG (the
 * signature is good), VALIDSIG (and valid: not expired, its key not
 * revoked; its fields: fingerprint, date, timestamp, expire, version,
 * reserved, pubkey algo, hash algo, class, primary key fingerprint) and
 * the keywords that say otherwise.
 *
 * Interface: gpgv_status_parse(), gpgv_fpr_equal() (gpgv.h).  Pure.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "lib/gpgv.h"

#define GPGV_PREFIX	"[GNUPG:] "

/* Keywords that make a signature not good, whatever else is said. */
static const char *const gpgv_bad[] = {
	"BADSIG", "ERRSIG", "EXPSIG", "EXPKEYSIG", "REVKEYSIG", "NO_PUBKEY",
	"NODATA", "BADARMOR",
};

/* gpgv_word - the n-th blank-separated word of p[0..len) (0: the first),
 * its length in *wlen, or NULL */
static const char *
gpgv_word(const char *p, size_t len, int n, size_t *wlen)
{
	size_t	 i = 0, s;

	for (;;) {
		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			return (NULL);
		s = i;
		while (i < len && p[i] != ' ')
			i++;
		if (n-- == 0) {
			*wlen = i - s;
			return (p + s);
		}
	}
}

/* gpgv_hex - is p[0..len) 40..GPGV_FPR_MAX hex digits? */
static int
gpgv_hex(const char *p, size_t len)
{
	size_t	 i;

	if (len < 40 || len > GPGV_FPR_MAX)
		return (0);
	for (i = 0; i < len; i++)
		if (strchr("0123456789ABCDEFabcdef", p[i]) == NULL ||
		    p[i] == '\0')
			return (0);
	return (1);
}

int
gpgv_status_parse(const char *p, size_t len, struct gpgv_result *res)
{
	const char	*line, *nl, *w, *fpr = NULL;
	size_t		 left = len, ll, wl, fl = 0, i;
	int		 good = 0, valid = 0;

	res->good = 0;
	res->fpr[0] = '\0';
	res->why[0] = '\0';
	for (line = p; left > 0; line = nl + 1) {
		nl = memchr(line, '\n', left);
		ll = nl != NULL ? (size_t)(nl - line) : left;
		left -= ll + (nl != NULL);
		if (ll > 0 && line[ll - 1] == '\r')
			ll--;
		if (ll > sizeof(GPGV_PREFIX) - 1 &&
		    memcmp(line, GPGV_PREFIX, sizeof(GPGV_PREFIX) - 1) == 0) {
			line += sizeof(GPGV_PREFIX) - 1;
			ll -= sizeof(GPGV_PREFIX) - 1;
			if ((w = gpgv_word(line, ll, 0, &wl)) == NULL)
				goto next;
			for (i = 0; i < sizeof(gpgv_bad) / sizeof(gpgv_bad[0]);
			    i++)
				if (wl == strlen(gpgv_bad[i]) &&
				    memcmp(w, gpgv_bad[i], wl) == 0 &&
				    res->why[0] == '\0')
					(void)snprintf(res->why,
					    sizeof(res->why), "gpgv says %s",
					    gpgv_bad[i]);
			if (wl == 7 && memcmp(w, "GOODSIG", 7) == 0)
				good++;
			if (wl == 8 && memcmp(w, "VALIDSIG", 8) == 0) {
				valid++;
				if ((fpr = gpgv_word(line, ll, 10, &fl)) ==
				    NULL)
					fpr = gpgv_word(line, ll, 1, &fl);
				if (fpr != NULL && !gpgv_hex(fpr, fl))
					fpr = NULL;
			}
		}
next:
		if (nl == NULL)
			break;
	}
	if (res->why[0] != '\0')
		return (-1);
	if (good != 1 || valid != 1 || fpr == NULL) {
		(void)snprintf(res->why, sizeof(res->why), "%s",
		    good == 0 ? "no good signature" : good > 1 ?
		    "more than one signature" : "no valid signature with a "
		    "fingerprint");
		return (-1);
	}
	for (i = 0; i < fl; i++)
		res->fpr[i] = (fpr[i] >= 'a' && fpr[i] <= 'f') ?
		    (char)(fpr[i] - 'a' + 'A') : fpr[i];
	res->fpr[fl] = '\0';
	res->good = 1;
	return (0);
}

/* gpgv_fpr_next - the next hex digit of *p at or after *p, upper case,
 * or '\0' */
static char
gpgv_fpr_next(const char **p)
{
	char	 c;

	while (**p == ' ')
		(*p)++;
	if ((c = **p) == '\0')
		return ('\0');
	(*p)++;
	return (c >= 'a' && c <= 'f' ? (char)(c - 'a' + 'A') : c);
}

int
gpgv_fpr_equal(const char *a, const char *b)
{
	char	 x, y;
	int	 n = 0;

	for (;;) {
		x = gpgv_fpr_next(&a);
		y = gpgv_fpr_next(&b);
		if (x != y)
			return (0);
		if (x == '\0')
			return (n > 0);
		n++;
	}
}
