/*
 * requiretls.c - would a REQUIRETLS message go out with this answer?
 *
 * Interface (requiretls.h): requiretls_level_of() reads the TLS level of a
 * socketmap reply, requiretls_verdict() says whether Postfix 3.11 can
 * deliver a REQUIRETLS message (RFC 8689) at that level, and why.
 *
 * The rule, RFC 8689 §4.2 and Postfix's REQUIRETLS_README: the MX host
 * must be authenticated, by DANE or MTA-STS, i.e. the certificate
 * verified.  The reasons are for an operator reading
 * postsmtpsts-query's output.
 */
#include "autoconf.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "policy/requiretls.h"

static const char *const requiretls_level_names[REQUIRETLS_LEVEL_COUNT] = {
	"dane-only", "dane", "secure", "verify", "fingerprint", "encrypt",
	"may", "none", "notfound", "temp", "other",
};

/* The OK levels, in enum order (the first REQUIRETLS_LEVEL_NOTFOUND). */
#define REQUIRETLS_OK_LEVELS	REQUIRETLS_LEVEL_NOTFOUND

enum requiretls_level
requiretls_level_of(enum sockmap_status st, const char *data, size_t len)
{
	size_t		 n, i;

	switch (st) {
	case SOCKMAP_OK:
		break;
	case SOCKMAP_NOTFOUND:
		return (REQUIRETLS_LEVEL_NOTFOUND);
	case SOCKMAP_TEMP:
	case SOCKMAP_TIMEOUT:
		return (REQUIRETLS_LEVEL_TEMP);
	default:
		return (REQUIRETLS_LEVEL_OTHER);
	}
	/* Postfix splits a policy on blanks and commas (smtp_tls_policy.c) */
	for (n = 0; n < len && data[n] != ' ' && data[n] != '\t' &&
	    data[n] != ',' && data[n] != '\r' && data[n] != '\n'; n++)
		;
	for (i = 0; i < REQUIRETLS_OK_LEVELS; i++)
		if (strlen(requiretls_level_names[i]) == n &&
		    strncasecmp(data, requiretls_level_names[i], n) == 0)
			return ((enum requiretls_level)i);
	return (REQUIRETLS_LEVEL_OTHER);
}

enum requiretls_level
requiretls_level_of_reply(const char *reply, size_t len)
{
	static const struct {
		const char		*word;
		enum sockmap_status	 st;
	} st[] = {
		{ "OK", SOCKMAP_OK }, { "NOTFOUND", SOCKMAP_NOTFOUND },
		{ "TEMP", SOCKMAP_TEMP }, { "TIMEOUT", SOCKMAP_TIMEOUT },
		{ "PERM", SOCKMAP_PERM },
	};
	size_t		 i, n;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		n = strlen(st[i].word);
		if (len < n || strncmp(reply, st[i].word, n) != 0)
			continue;
		if (len == n)
			return (requiretls_level_of(st[i].st, "", 0));
		if (reply[n] == ' ')
			return (requiretls_level_of(st[i].st, reply + n + 1,
			    len - n - 1));
	}
	return (REQUIRETLS_LEVEL_OTHER);
}

enum requiretls_verdict
requiretls_verdict(enum requiretls_level level, const char **reason)
{
	static const struct {
		enum requiretls_verdict	 v;
		const char		*why;
	} tab[REQUIRETLS_LEVEL_COUNT] = {
		[REQUIRETLS_LEVEL_DANE_ONLY] = { REQUIRETLS_YES,
		    "every MX host is authenticated by DANE (usable TLSA)" },
		[REQUIRETLS_LEVEL_DANE] = { REQUIRETLS_DEPENDS,
		    "only MX hosts with usable TLSA: Postfix's own DANE walk "
		    "per host, the others get encrypt or may" },
		[REQUIRETLS_LEVEL_SECURE] = { REQUIRETLS_YES,
		    "the certificate is verified and matched to the MX name "
		    "(MTA-STS enforce, or a pin)" },
		[REQUIRETLS_LEVEL_VERIFY] = { REQUIRETLS_YES,
		    "the certificate is verified (a pin)" },
		[REQUIRETLS_LEVEL_FINGERPRINT] = { REQUIRETLS_YES,
		    "the certificate is pinned by fingerprint (a pin)" },
		[REQUIRETLS_LEVEL_ENCRYPT] = { REQUIRETLS_NO,
		    "encrypt is TLS without authentication" },
		[REQUIRETLS_LEVEL_MAY] = { REQUIRETLS_NO,
		    "may is opportunistic TLS, nothing authenticated" },
		[REQUIRETLS_LEVEL_NONE] = { REQUIRETLS_NO,
		    "none turns TLS off" },
		[REQUIRETLS_LEVEL_NOTFOUND] = { REQUIRETLS_NO,
		    "no DANE or MTA-STS policy: Postfix's default level "
		    "(usually may) authenticates nothing" },
		[REQUIRETLS_LEVEL_TEMP] = { REQUIRETLS_NO,
		    "the answer is TEMP: no mail goes out until it changes" },
		[REQUIRETLS_LEVEL_OTHER] = { REQUIRETLS_NO,
		    "no TLS level this tool knows" },
	};

	if ((unsigned)level >= REQUIRETLS_LEVEL_COUNT)
		level = REQUIRETLS_LEVEL_OTHER;
	if (reason != NULL)
		*reason = tab[level].why;
	return (tab[level].v);
}

const char *
requiretls_level_name(enum requiretls_level level)
{
	if ((unsigned)level >= REQUIRETLS_LEVEL_COUNT)
		level = REQUIRETLS_LEVEL_OTHER;
	return (requiretls_level_names[level]);
}

const char *
requiretls_verdict_name(enum requiretls_verdict v)
{
	switch (v) {
	case REQUIRETLS_YES:
		return ("yes");
	case REQUIRETLS_NO:
		return ("no");
	default:
		return ("depends");
	}
}
