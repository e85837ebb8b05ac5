/*
 * gpgv.h - a detached OpenPGP signature checked by Debian's gpgv
 *
 * NAME
 *	gpgv - verify a detached signature with gpgv(1), no OpenPGP of ours
 * SYNOPSIS
 *	rc = gpgv_verify(gpgv, keyring, sigfile, datafile, timeout_ms, &res);
 *	rc = gpgv_status_parse(p, len, &res);
 * DESCRIPTION
 *	gpgv_verify() runs gpgv (GPGV_PATH unless given) with posix_spawn(3):
 *	a fixed argv "gpgv --homedir DIR --status-fd 3 --keyring KEYRING --
 *	SIG DATA", no shell, an environment of "LC_ALL=C" alone, stdin and
 *	stdout /dev/null, its status lines read from fd 3, the first
 *	GPGV_MAX_STDERR bytes of stderr kept (its last line goes into the
 *	message), killed after timeout_ms.  The signature is good only when
 *	gpgv exits 0 AND its status lines say so (gpgv_status_parse()), as
 *	apt reads them too.
 *
 *	gpgv_status_parse() (gpgv_status.c, pure) reads the status lines
 *	(GnuPG doc/DETAILS "Format of the status codes"): good means exactly
 *	one GOODSIG and one VALIDSIG, and none of BADSIG, ERRSIG, EXPSIG,
 *	EXPKEYSIG, REVKEYSIG, NO_PUBKEY; the fingerprint is VALIDSIG's primary
 *	key fingerprint (its 10th field, else its first).
 * SEE ALSO
 *	gpgv(1), GnuPG doc/DETAILS; doc/DESIGN.md "Preload lists".
 */
#ifndef GPGV_H
#define GPGV_H

#include <stddef.h>

#define GPGV_MAX_STATUS		65536	/* status bytes read */
#define GPGV_MAX_STDERR		1024	/* stderr bytes kept */
#define GPGV_FPR_MAX		64	/* v5 fingerprints: 64 hex digits */
#define GPGV_TIMEOUT_MS		10000

struct gpgv_result {
	int	 good;			/* a good, valid signature */
	char	 fpr[GPGV_FPR_MAX + 1];	/* its primary key, upper-case hex */
	char	 why[256];		/* when not good: what gpgv said */
};

/*
 * gpgv_verify - is sigfile a good signature of datafile by a key of
 * keyring?
 *
 * gpgv NULL: GPGV_PATH.  keyring, sigfile and datafile are paths (gpgv
 * looks for a keyring without a '/' in its home: pass an absolute or
 * ./ path).  Returns 0 when gpgv ran (res says whether the signature is
 * good), -1 when it could not be run or timed out (res->why says why).
 */
int	gpgv_verify(const char *gpgv, const char *keyring, const char *sigfile,
	    const char *datafile, int timeout_ms, struct gpgv_result *res);

/*
 * gpgv_status_parse - gpgv's status lines p[0..len) into res
 *
 * Lines that do not start "[GNUPG:] " are ignored.  Returns 0 when the
 * lines say the signature is good and res->fpr is set, else -1 with
 * res->why saying what they said instead.
 */
int	gpgv_status_parse(const char *p, size_t len, struct gpgv_result *res);

/*
 * gpgv_fpr_equal - do two fingerprints name the same key?  Blanks are
 * ignored and hex digits compare in either case; an empty one never
 * matches.
 */
int	gpgv_fpr_equal(const char *a, const char *b);

#endif
