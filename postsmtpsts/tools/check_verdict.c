/*
 * check_verdict.c - verdict rules of postsmtpsts-check (see check_verdict.h
 * for the rules and their RFC grounds: RFC 8461 §4-5, RFC 7672 §2-3)
 *
 * Pure: no I/O, no allocation; reasons are written into the caller's
 * bounded buffer.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "tools/check_verdict.h"

/* check_verdict_note - append "; "-separated text to reason (truncating) */
static void
check_verdict_note(char *reason, size_t reasonsz, const char *text)
{
	size_t	 len = strlen(reason);
	int	 n;

	if (len + 1 >= reasonsz)
		return;
	n = snprintf(reason + len, reasonsz - len, "%s%s",
	    len > 0 ? "; " : "", text);
	if (n < 0 || (size_t)n >= reasonsz - len)
		reason[reasonsz - 1] = '\0';	/* truncated, terminated */
}

/* check_verdict_miss - a requirement missed: its level for require r
 * (failure when enforced, warning when only tested or opportunistic) */
static enum check_verdict_level
check_verdict_miss(enum check_verdict_require r)
{
	switch (r) {
	case CHECK_VERDICT_REQ_DANE:
	case CHECK_VERDICT_REQ_ENFORCE:
	case CHECK_VERDICT_REQ_TLS:
		return (CHECK_VERDICT_FAILURE);
	case CHECK_VERDICT_REQ_TESTING:
	case CHECK_VERDICT_REQ_NONE:
		break;
	}
	return (CHECK_VERDICT_WARNING);
}

/* check_verdict_max - the worse of two levels */
static enum check_verdict_level
check_verdict_max(enum check_verdict_level a, enum check_verdict_level b)
{
	return (a > b ? a : b);
}

enum check_verdict_level
check_verdict_host(const struct check_verdict_host *h, char *reason,
    size_t reasonsz)
{
	enum check_verdict_level lvl = CHECK_VERDICT_OK;
	char	 text[128];
	int	 pkix_applies;

	reason[0] = '\0';
	if (!h->have_addr || !h->connected || !h->smtp_ok) {
		/* nobody can deliver to this host, whatever the policy */
		check_verdict_note(reason, reasonsz, h->error != NULL ?
		    h->error : !h->have_addr ? "no address" :
		    !h->connected ? "cannot connect" : "SMTP dialogue failed");
		return (CHECK_VERDICT_FAILURE);
	}
	if (h->dane == CHECK_VERDICT_DANE_LOOKUP_FAILED) {
		/* RFC 7672 §2.2: not the same as "no TLSA": mail waits */
		check_verdict_note(reason, reasonsz,
		    "TLSA lookup failed (DNSSEC): senders defer mail");
		lvl = CHECK_VERDICT_FAILURE;
	}
	if (h->require == CHECK_VERDICT_REQ_ENFORCE && !h->mx_match) {
		check_verdict_note(reason, reasonsz,
		    "host matches no mx pattern of the enforce policy");
		lvl = CHECK_VERDICT_FAILURE;
	} else if (h->require == CHECK_VERDICT_REQ_TESTING && !h->mx_match) {
		check_verdict_note(reason, reasonsz,
		    "host matches no mx pattern of the testing policy");
		lvl = check_verdict_max(lvl, CHECK_VERDICT_WARNING);
	}
	if (!h->starttls || !h->tls) {
		check_verdict_note(reason, reasonsz, !h->starttls ?
		    "STARTTLS not offered" : h->error != NULL ? h->error :
		    "TLS handshake failed");
		return (check_verdict_max(lvl, check_verdict_miss(h->require)));
	}
	if (!h->have_cert) {
		check_verdict_note(reason, reasonsz, "no server certificate");
		/* RFC 7672 §3.1.3: TLS without authentication is enough */
		return (h->require == CHECK_VERDICT_REQ_TLS ? lvl :
		    check_verdict_max(lvl, check_verdict_miss(h->require)));
	}

	if (h->require == CHECK_VERDICT_REQ_DANE) {
		if (h->dane != CHECK_VERDICT_DANE_MATCH) {
			check_verdict_note(reason, reasonsz,
			    "certificate chain matches no TLSA record");
			lvl = CHECK_VERDICT_FAILURE;
		} else if (!h->dane_ee_only && !h->name_ok) {
			/* RFC 7672 §3.2.2: DANE-TA(2) checks the name */
			check_verdict_note(reason, reasonsz, "DANE-TA: "
			    "certificate does not name the MX host");
			lvl = CHECK_VERDICT_FAILURE;
		}
		pkix_applies = 0;
	} else
		pkix_applies = 1;

	if (pkix_applies && (!h->pkix_ok || !h->name_ok)) {
		if (h->require == CHECK_VERDICT_REQ_TLS) {
			check_verdict_note(reason, reasonsz, !h->pkix_ok ?
			    "note: certificate does not PKIX-validate "
			    "(TLS required, not authenticated: RFC 7672 "
			    "section 2.2)" : "note: certificate does not "
			    "name the host (TLS required, not "
			    "authenticated: RFC 7672 section 2.2)");
		} else if (h->require == CHECK_VERDICT_REQ_NONE) {
			check_verdict_note(reason, reasonsz, !h->pkix_ok ?
			    "note: certificate does not PKIX-validate "
			    "(opportunistic TLS: senders do not check)" :
			    "note: certificate does not name the host "
			    "(opportunistic TLS: senders do not check)");
		} else {
			if (!h->pkix_ok)
				check_verdict_note(reason, reasonsz,
				    "certificate does not PKIX-validate");
			if (!h->name_ok)
				check_verdict_note(reason, reasonsz,
				    "certificate does not name the MX host");
			lvl = check_verdict_max(lvl,
			    check_verdict_miss(h->require));
		}
	}

	/* expiry: a warning ahead of time, unless only DANE-EE(3) vouched
	 * for the certificate (RFC 7672 §3.1.1 ignores its dates) */
	if (!(h->require == CHECK_VERDICT_REQ_DANE && h->dane_ee_only) &&
	    h->expiry_days < h->warn_days) {
		if (h->expiry_days < 0)
			snprintf(text, sizeof(text), "certificate expired %ld "
			    "day%s ago", -h->expiry_days,
			    h->expiry_days == -1 ? "" : "s");
		else
			snprintf(text, sizeof(text), "certificate expires in "
			    "%ld day%s (warning at %ld)", h->expiry_days,
			    h->expiry_days == 1 ? "" : "s", h->warn_days);
		check_verdict_note(reason, reasonsz, text);
		lvl = check_verdict_max(lvl, CHECK_VERDICT_WARNING);
	}
	return (lvl);
}

enum check_verdict_level
check_verdict_domain(const struct check_verdict_domain *d, char *reason,
    size_t reasonsz)
{
	enum check_verdict_level lvl = CHECK_VERDICT_OK;

	reason[0] = '\0';
	if (d->mx_failed) {
		check_verdict_note(reason, reasonsz, "MX lookup failed");
		lvl = CHECK_VERDICT_FAILURE;
	}
	if (d->nhosts == 0) {
		check_verdict_note(reason, reasonsz,
		    "nothing could be checked");
		lvl = CHECK_VERDICT_FAILURE;
	}
	if (d->sts_failed) {
		check_verdict_note(reason, reasonsz, "an MTA-STS record is "
		    "published but no valid policy could be fetched");
		lvl = check_verdict_max(lvl, CHECK_VERDICT_WARNING);
	}
	return (lvl);
}

const char *
check_verdict_name(enum check_verdict_level l)
{
	switch (l) {
	case CHECK_VERDICT_OK:
		return ("ok");
	case CHECK_VERDICT_WARNING:
		return ("warning");
	case CHECK_VERDICT_FAILURE:
		return ("failure");
	}
	return ("unknown");
}

const char *
check_verdict_require_name(enum check_verdict_require r)
{
	switch (r) {
	case CHECK_VERDICT_REQ_NONE:
		return ("none");
	case CHECK_VERDICT_REQ_TESTING:
		return ("sts-testing");
	case CHECK_VERDICT_REQ_ENFORCE:
		return ("sts-enforce");
	case CHECK_VERDICT_REQ_DANE:
		return ("dane");
	case CHECK_VERDICT_REQ_TLS:
		return ("tls");
	}
	return ("unknown");
}

const char *
check_verdict_dane_name(enum check_verdict_dane d)
{
	switch (d) {
	case CHECK_VERDICT_DANE_NA:
		return ("not-applicable");
	case CHECK_VERDICT_DANE_LOOKUP_FAILED:
		return ("lookup-failed");
	case CHECK_VERDICT_DANE_MATCH:
		return ("match");
	case CHECK_VERDICT_DANE_MISMATCH:
		return ("mismatch");
	}
	return ("unknown");
}
