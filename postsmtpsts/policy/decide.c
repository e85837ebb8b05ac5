/*
 * decide.c - from the facts about a domain to one socketmap reply
 *
 * decide() applies the precedence documented in decide.h: static pin,
 * then DANE (RFC 7672; RFC 8461 §2 prefers it to MTA-STS; TLSA records
 * none of which is usable require TLS, RFC 7672 §2.2), then MTA-STS
 * (RFC 8461 §5: enforce -> "secure", testing -> "may" or NOTFOUND), else
 * NOTFOUND (RFC 8461 §3.3: no usable policy means deliver as without
 * MTA-STS).  With the tlsrpt option, STS answers carry the TLSRPT
 * attributes Postfix >= 3.10 accepts in smtp_tls_policy_maps (RFC 8460
 * §4.4 policy-type, policy-string, policy-domain, mx-host).  Every
 * authenticated answer carries the map's TLS floor (decide.h).
 *
 * The reply data goes into a caller's struct buf; Postfix's reply limit
 * (SOCKMAP_MAX_OK_DATA) is the caller's buffer limit.  An STS answer that
 * does not fit with its attributes is written again without any of them;
 * the match= list itself always fits (at most 64 KiB of patterns).
 * Pure: no allocation of its own, no globals, no I/O.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "policy/decide.h"
#include "lib/domain.h"
#include "policy/mxmatch.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"
#include "policy/tlsattr.h"

/* decide_domain_ok - a plain host name safe to put in a reply
 * (domain_check: the one host-name syntax) */
static int
decide_domain_ok(const char *domain)
{
	if (domain == NULL)
		return (0);
	/* strnlen: at most DOMAIN_MAX_LEN + 1 bytes are ever read */
	return (domain_check(domain, strnlen(domain, DOMAIN_MAX_LEN + 1),
	    DOMAIN_NAME_UNDERSCORE, 1, NULL) == DOMAIN_CHECK_OK);
}

/* decide_set - record the outcome in *res */
static void
decide_set(struct decide_result *res, enum sockmap_status st,
    enum decide_source src, const char *answer)
{
	res->status = st;
	res->source = src;
	res->answer = answer;
}

/* The floor's attributes, appended in this order. */
#define DECIDE_FLOOR_ALL	(TLSATTR_BIT(TLSATTR_PROTOCOLS) | \
				 TLSATTR_BIT(TLSATTR_CIPHERS) | \
				 TLSATTR_BIT(TLSATTR_EXCLUDE))

/*
 * decide_floor - append the map's floor (the attributes of mask that it
 * sets) to an authenticated answer: " protocols=... ciphers=...
 * exclude=..."
 */
static int
decide_floor(const struct decide_options *opt, unsigned int mask,
    struct buf *out, struct decide_result *res)
{
	int	 k;

	for (k = 0; k < TLSATTR_NKINDS; k++) {
		if (!(mask & TLSATTR_BIT(k)) || opt->floor[k] == NULL)
			continue;
		buf_appendf(out, " %s=%s", tlsattr_name(k), opt->floor[k]);
		res->floor = 1;
	}
	return (out->error ? -1 : 0);
}

/* decide_sts_base - the Postfix policy for an enforce or testing policy */
static int
decide_sts_base(const struct sts_policy *pol, struct buf *out)
{
	const char	*mx;
	size_t		 pos;

	if (pol->mode == STS_MODE_TESTING)
		return (buf_append_str(out, "may"));
	/*
	 * RFC 8461 §4.1 via Postfix: the MX name must match a pattern.  The
	 * list is never shortened: at most STS_POLICY_MX_BYTES, far below
	 * SOCKMAP_MAX_REPLY, so it always fits a reply.
	 */
	buf_append_str(out, "secure match=");
	for (pos = 0; (mx = sts_policy_mx_next(pol, &pos, NULL)) != NULL; ) {
		if (mx != pol->mx)
			buf_append_char(out, ':');
		if (mxmatch_postfix_pattern(mx, out) == -1)
			return (-1);
	}
	buf_append_str(out, " servername=hostname");
	return (out->error ? -1 : 0);
}

/*
 * decide_line_ok - can this policy line go inside { policy_string = ... }?
 *
 * A brace would end Postfix's quoting early; a control character other
 * than TAB has no place in a reply (sts_policy_parse never keeps one, but
 * a policy may come from elsewhere, such as a cache record).
 */
static int
decide_line_ok(const char *line, size_t len)
{
	size_t	 i;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)line[i];
		if (c == '{' || c == '}' || (c < 0x20 && c != '\t') ||
		    c == 0x7f)
			return (0);
	}
	return (1);
}

/* decide_policy_ok - is a policy struct safe to format from? */
static int
decide_policy_ok(const struct sts_policy *pol)
{
	const char	*mx;
	size_t		 n, pos, len;

	if (pol->mxlen > sizeof(pol->mx) || pol->textlen > sizeof(pol->text))
		return (0);
	n = 0;
	for (pos = 0; (mx = sts_policy_mx_next(pol, &pos, &len)) != NULL; n++)
		if (!mxmatch_pattern_check(mx, len))
			return (0);
	/* every byte used, by exactly nmx patterns */
	return (pos == pol->mxlen && n == pol->nmx);
}

/* decide_tlsrpt - append the TLSRPT attributes for an STS answer */
static int
decide_tlsrpt(const char *domain, const struct sts_policy *pol,
    struct buf *out)
{
	const char	*line, *mx;
	size_t		 pos, len, nstr;

	/* no policy_ttl: TLSRPT_README marks it deprecated and unused */
	buf_appendf(out, " policy_type=sts policy_domain=%s", domain);
	for (pos = 0; (mx = sts_policy_mx_next(pol, &pos, NULL)) != NULL; ) {
		buf_append_str(out, " mx_host_pattern=");
		buf_append_str(out, mx);
	}
	nstr = 0;
	for (pos = 0; sts_policy_line(pol, &pos, &line, &len); ) {
		if (!decide_line_ok(line, len))
			continue;
		buf_append_str(out, " { policy_string = ");
		buf_append(out, line, len);
		buf_append_str(out, " }");
		nstr++;
	}
	/*
	 * Postfix dereferences both lists for policy_type=sts: never send an
	 * sts policy without a policy_string and an mx_host_pattern.
	 */
	if (nstr == 0 || pol->nmx == 0)
		return (-1);
	return (out->error ? -1 : 0);
}

/* decide_sts - the answer for a valid MTA-STS policy */
static int
decide_sts(const struct decide_input *in, const struct decide_options *opt,
    struct buf *out, struct decide_result *res)
{
	const struct sts_policy *pol = in->policy;

	if (pol == NULL || !decide_policy_ok(pol))
		return (-1);
	switch (pol->mode) {
	case STS_MODE_NONE:
		/* RFC 8461 §5: mode none, no enforcement. */
		decide_set(res, SOCKMAP_NOTFOUND, DECIDE_SOURCE_STS,
		    "notfound");
		return (0);
	case STS_MODE_TESTING:
		if (opt->testing_answer != DECIDE_TESTING_MAY) {
			decide_set(res, SOCKMAP_NOTFOUND, DECIDE_SOURCE_STS,
			    "notfound");
			return (0);
		}
		decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_STS, "may");
		break;
	case STS_MODE_ENFORCE:
		/* sts_policy_parse() guarantees mx; a forged policy may not. */
		if (pol->nmx == 0)
			return (-1);
		decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_STS, "secure");
		break;
	default:
		return (-1);
	}
	if (decide_sts_base(pol, out) == -1 || (pol->mode ==
	    STS_MODE_ENFORCE && decide_floor(opt, DECIDE_FLOOR_ALL, out,
	    res) == -1))
		return (-1);
	if (!opt->tlsrpt)
		return (0);
	if (decide_tlsrpt(in->domain, pol, out) == 0) {
		res->tlsrpt = 1;
		return (0);
	}
	/*
	 * Too long with the attributes (a policy of thousands of mx lines:
	 * policy_string repeats every line, mx_host_pattern every pattern):
	 * the policy matters more.  All TLSRPT attributes go at once, not
	 * policy_string alone: for policy_type=sts Postfix needs both lists
	 * (smtp_tlsrpt_set_ext_policy() dereferences them unchecked, see
	 * decide.h), so an answer without policy_string would crash smtp(8)
	 * for a domain that publishes TLSRPT.  Without any attribute Postfix
	 * reports nothing for this delivery, which is safe.
	 */
	buf_reset(out);
	res->tlsrpt_dropped = 1;
	if (decide_sts_base(pol, out) == -1)
		return (-1);
	return (pol->mode == STS_MODE_ENFORCE ? decide_floor(opt,
	    DECIDE_FLOOR_ALL, out, res) : 0);
}

/* decide_preload_enforce - will step 4 answer "secure"? */
static int
decide_preload_enforce(const struct decide_input *in)
{
	return (in->sts != DECIDE_STS_POLICY && in->preload != NULL &&
	    in->preload->enforce && in->preload->nmx > 0);
}

/* decide_sts_enforce - will step 3 or 4 answer "secure"? */
static int
decide_sts_enforce(const struct decide_input *in)
{
	return ((in->sts == DECIDE_STS_POLICY && in->policy != NULL &&
	    in->policy->mode == STS_MODE_ENFORCE) ||
	    decide_preload_enforce(in));
}

/*
 * decide_preload - step 4: a preload list's enforce entry, the answer an
 * enforce policy with its mx patterns would get, without TLSRPT
 * attributes (issue 38: "never policy_type=sts attributes since it is not
 * an STS policy")
 */
static int
decide_preload(const struct decide_input *in,
    const struct decide_options *opt, struct buf *out,
    struct decide_result *res)
{
	const struct decide_preload *p = in->preload;
	const char	*mx = p->mx, *end = p->mx + p->mxlen;
	size_t		 i, len;

	decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_PRELOAD, "secure");
	buf_append_str(out, "secure match=");
	for (i = 0; i < p->nmx; i++) {
		if (mx >= end || (len = strnlen(mx, (size_t)(end - mx))) ==
		    (size_t)(end - mx) || !mxmatch_pattern_check(mx, len))
			return (-1);	/* not what the parser gives */
		if (i > 0)
			buf_append_char(out, ':');
		if (mxmatch_postfix_pattern(mx, out) == -1)
			return (-1);
		mx += len + 1;
	}
	buf_append_str(out, " servername=hostname");
	if (out->error)
		return (-1);
	return (decide_floor(opt, DECIDE_FLOOR_ALL, out, res));
}

int
decide(const struct decide_input *in, const struct decide_options *opt,
    struct buf *out, struct decide_result *res)
{
	const struct decide_pin *pin = in->pin;

	memset(res, 0, sizeof(*res));
	decide_set(res, SOCKMAP_NOTFOUND, DECIDE_SOURCE_NONE, "notfound");
	buf_reset(out);
	if (!decide_domain_ok(in->domain))
		return (-1);

	/* 1. A static pin is the administrator's word: it wins. */
	if (pin != NULL) {
		decide_set(res, pin->status, DECIDE_SOURCE_PIN, "pin");
		if (pin->status == SOCKMAP_NOTFOUND)
			return (0);
		/* An OK reply always carries data (STYLE: never bare "OK"). */
		if (pin->data == NULL || (pin->status == SOCKMAP_OK &&
		    pin->len == 0))
			return (-1);
		if (buf_append(out, pin->data, pin->len) == -1)
			return (-1);
		/* floor_attrs is 0 below the authenticated levels */
		return (pin->status == SOCKMAP_OK ? decide_floor(opt,
		    pin->floor_attrs, out, res) : 0);
	}

	/* 2. DANE before MTA-STS (RFC 8461 §2). */
	switch (in->dane) {
	case DECIDE_DANE_ALL:
		decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_DANE, "dane-only");
		if (buf_append_str(out, "dane-only") == -1)
			return (-1);
		return (decide_floor(opt, DECIDE_FLOOR_ALL, out, res));
	case DECIDE_DANE_SOME:
		if (opt->dane_some == DECIDE_DANE_SOME_DANE) {
			decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_DANE, "dane");
			return (buf_append_str(out, "dane"));
		}
		if (opt->dane_some == DECIDE_DANE_SOME_DANE_ONLY) {
			decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_DANE,
			    "dane-only");
			if (buf_append_str(out, "dane-only") == -1)
				return (-1);
			return (decide_floor(opt, DECIDE_FLOOR_ALL, out,
			    res));
		}
		break;
	case DECIDE_DANE_FAILURE:
		/* RFC 7672 §2.1.1: bogus or failed is not "no TLSA". */
		if (opt->dane_lookup_failure == DECIDE_DANE_FAILURE_TEMP) {
			decide_set(res, SOCKMAP_TEMP, DECIDE_SOURCE_DANE,
			    "temp");
			return (buf_appendf(out, "DNSSEC lookup of MX or TLSA "
			    "records failed or was bogus for %s", in->domain));
		}
		break;
	case DECIDE_DANE_TLS:
	case DECIDE_DANE_TLS_SOME:
		/* RFC 7672 §2.2: TLS, unauthenticated; "secure" is more */
		if (decide_sts_enforce(in))
			break;
		if (in->dane == DECIDE_DANE_TLS) {
			decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_DANE,
			    "encrypt");
			return (buf_append_str(out, "encrypt"));
		}
		if (opt->dane_some != DECIDE_DANE_SOME_IGNORE) {
			decide_set(res, SOCKMAP_OK, DECIDE_SOURCE_DANE, "dane");
			return (buf_append_str(out, "dane"));
		}
		break;
	case DECIDE_DANE_NONE:
		break;
	default:
		return (-1);
	}

	/* 3. MTA-STS. */
	switch (in->sts) {
	case DECIDE_STS_POLICY:
		return (decide_sts(in, opt, out, res));
	case DECIDE_STS_FAILED:
		/* RFC 8461 §3.3: deliver as if there were no MTA-STS. */
		res->sts_failure = decide_sts_error_name(in->sts_error);
		if (decide_preload_enforce(in))
			return (decide_preload(in, opt, out, res));
		decide_set(res, SOCKMAP_NOTFOUND, DECIDE_SOURCE_STS,
		    "notfound");
		return (0);
	case DECIDE_STS_NONE:
		/* 4. a preload entry protects the first contact */
		if (decide_preload_enforce(in))
			return (decide_preload(in, opt, out, res));
		return (0);
	default:
		return (-1);
	}
}

const char *
decide_source_name(enum decide_source src)
{
	switch (src) {
	case DECIDE_SOURCE_NONE:
		return ("none");
	case DECIDE_SOURCE_PIN:
		return ("pin");
	case DECIDE_SOURCE_DANE:
		return ("dane");
	case DECIDE_SOURCE_STS:
		return ("sts");
	case DECIDE_SOURCE_PRELOAD:
		return ("preload");
	}
	return ("unknown");
}

const char *
decide_sts_error_name(enum decide_sts_error err)
{
	switch (err) {
	case DECIDE_STS_ERR_FETCH:
		return ("sts-policy-fetch-error");
	case DECIDE_STS_ERR_INVALID:
		return ("sts-policy-invalid");
	case DECIDE_STS_ERR_WEBPKI:
		return ("sts-webpki-invalid");
	}
	return ("unknown");
}
