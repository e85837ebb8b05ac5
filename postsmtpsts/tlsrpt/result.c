/*
 * result.c - RFC 8460 result and policy type names
 *
 * Interface: result.h.  The names are those of RFC 8460 §4.3 and §4.4
 * (and the IANA registry of §6.6).  Pure.
 */
#include "autoconf.h"

#include <string.h>

#include "tlsrpt/result.h"

static const char *const tlsrpt_result_names[TLSRPT_RESULT_MAX + 1] = {
	[TLSRPT_RESULT_NONE] = "success",
	[TLSRPT_RESULT_STARTTLS] = "starttls-not-supported",
	[TLSRPT_RESULT_HOST_MISMATCH] = "certificate-host-mismatch",
	[TLSRPT_RESULT_EXPIRED] = "certificate-expired",
	[TLSRPT_RESULT_NOT_TRUSTED] = "certificate-not-trusted",
	[TLSRPT_RESULT_VALIDATION] = "validation-failure",
	[TLSRPT_RESULT_TLSA_INVALID] = "tlsa-invalid",
	[TLSRPT_RESULT_DNSSEC_INVALID] = "dnssec-invalid",
	[TLSRPT_RESULT_DANE_REQUIRED] = "dane-required",
	[TLSRPT_RESULT_STS_FETCH] = "sts-policy-fetch-error",
	[TLSRPT_RESULT_STS_INVALID] = "sts-policy-invalid",
	[TLSRPT_RESULT_STS_WEBPKI] = "sts-webpki-invalid",
};

static const char *const tlsrpt_policy_names[TLSRPT_POLICY_MAX + 1] = {
	[TLSRPT_POLICY_NONE] = "no-policy-found",
	[TLSRPT_POLICY_STS] = "sts",
	[TLSRPT_POLICY_TLSA] = "tlsa",
};

const char *
tlsrpt_result_name(int r)
{
	if (r < 0 || r > TLSRPT_RESULT_MAX)
		return ("?");
	return (tlsrpt_result_names[r]);
}

int
tlsrpt_result_from_name(const char *name)
{
	int	 r;

	for (r = 0; r <= TLSRPT_RESULT_MAX; r++)
		if (strcmp(name, tlsrpt_result_names[r]) == 0)
			return (r);
	return (-1);
}

const char *
tlsrpt_policy_type_name(int t)
{
	if (t < 0 || t > TLSRPT_POLICY_MAX)
		return ("?");
	return (tlsrpt_policy_names[t]);
}

int
tlsrpt_policy_type_from_name(const char *name)
{
	int	 t;

	for (t = 0; t <= TLSRPT_POLICY_MAX; t++)
		if (strcmp(name, tlsrpt_policy_names[t]) == 0)
			return (t);
	return (-1);
}
