/*
 * test_decide.c - unit tests for the reply decision: every row of the
 * precedence table in decide.h, with and without TLSRPT attributes
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "policy/decide.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

#define P_ENFORCE "version: STSv1\nmode: enforce\nmx: mail.example.com\n" \
	"mx: *.example.net\nmax_age: 604800\n"
#define P_TESTING "version: STSv1\r\nmode: testing\r\nmx: *.example.com\r\n" \
	"max_age: 86400\r\n"
#define P_NONE	"version: STSv1\nmode: none\nmax_age: 86400\n"
#define P_BRACE	"version: STSv1\nmode: enforce\nmx: mail.example.com\n" \
	"ext: {x}\nmax_age: 60\n"
#define P_WILD	"version: STSv1\nmode: enforce\nmx: *.example.net\n" \
	"max_age: 604800\n"

#define SECURE	"secure match=mail.example.com:.example.net " \
	"servername=hostname"
#define SECURE_RPT SECURE " policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=mail.example.com " \
	"mx_host_pattern=*.example.net { policy_string = version: STSv1 } " \
	"{ policy_string = mode: enforce } " \
	"{ policy_string = mx: mail.example.com } " \
	"{ policy_string = mx: *.example.net } " \
	"{ policy_string = max_age: 604800 }"
#define MAY_RPT	"may policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=*.example.com " \
	"{ policy_string = version: STSv1 } " \
	"{ policy_string = mode: testing } " \
	"{ policy_string = mx: *.example.com } " \
	"{ policy_string = max_age: 86400 }"
#define WILD_RPT "secure match=.example.net servername=hostname " \
	"policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=*.example.net " \
	"{ policy_string = version: STSv1 } " \
	"{ policy_string = mode: enforce } " \
	"{ policy_string = mx: *.example.net } " \
	"{ policy_string = max_age: 604800 }"
#define DANE_TEMP "DNSSEC lookup of MX or TLSA records failed or was " \
	"bogus for example.com"

/* Option sets. */
/* Option sets (no TLS floor: decide_options.floor all NULL). */
#define NOFLOOR	{ NULL, NULL, NULL }
#define O_DEFAULT { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 0, NOFLOOR }
#define O_RPT	{ DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 1, NOFLOOR }
#define O_MAY	{ DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 0, NOFLOOR }
#define O_RPT_NF { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 1, NOFLOOR }
#define O_SOME_ONLY { DECIDE_DANE_SOME_DANE_ONLY, \
	DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 0, NOFLOOR }
#define O_IGNORE { DECIDE_DANE_SOME_IGNORE, DECIDE_DANE_FAILURE_IGNORE, \
	DECIDE_TESTING_NOTFOUND, 0, NOFLOOR }

/* The TLS floor (issue 38): every attribute, or only protocols. */
#define FLOOR	{ ">=TLSv1.2", "high", "aNULL:3DES" }
#define FLOOR_TXT " protocols=>=TLSv1.2 ciphers=high exclude=aNULL:3DES"
#define O_FLOOR	{ DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 0, FLOOR }
#define O_FLOOR_RPT { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_MAY, 1, FLOOR }
#define O_FLOOR_NF { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 1, FLOOR }
#define O_FLOOR_SOME_ONLY { DECIDE_DANE_SOME_DANE_ONLY, \
	DECIDE_DANE_FAILURE_TEMP, DECIDE_TESTING_NOTFOUND, 0, FLOOR }
#define O_FLOOR_PROTO { DECIDE_DANE_SOME_DANE, DECIDE_DANE_FAILURE_TEMP, \
	DECIDE_TESTING_NOTFOUND, 0, { ">=TLSv1.3", NULL, NULL } }

#define ALL_ATTRS (TLSATTR_BIT(TLSATTR_PROTOCOLS) | \
	TLSATTR_BIT(TLSATTR_CIPHERS) | TLSATTR_BIT(TLSATTR_EXCLUDE))

static const struct decide_pin pin_encrypt = { SOCKMAP_OK, "encrypt", 7,
	0 };
static const struct decide_pin pin_notfound = { SOCKMAP_NOTFOUND, NULL, 0,
	0 };
static const struct decide_pin pin_temp = { SOCKMAP_TEMP, "maintenance",
	11, 0 };
static const struct decide_pin pin_empty_ok = { SOCKMAP_OK, "", 0, 0 };
/* as pins_parse() makes them: floor_attrs at authenticated levels only */
static const struct decide_pin pin_secure = { SOCKMAP_OK,
	"secure match=mx.example.com", 27, ALL_ATTRS };
static const struct decide_pin pin_verify_own = { SOCKMAP_OK,
	"verify protocols=>=TLSv1.3", 26, TLSATTR_BIT(TLSATTR_CIPHERS) |
	TLSATTR_BIT(TLSATTR_EXCLUDE) };
static const struct decide_pin pin_fp_all_own = { SOCKMAP_OK,
	"fingerprint match=AB protocols=TLSv1.3 ciphers=medium exclude=RC4",
	65, 0 };
static const struct decide_pin pin_may_own = { SOCKMAP_OK,
	"may protocols=!SSLv3", 20, 0 };

struct decide_case {
	const char		*name;
	const char		*domain;
	const struct decide_pin	*pin;
	enum decide_dane	 dane;
	enum decide_sts		 sts;
	const char		*policy;	/* for DECIDE_STS_POLICY */
	enum decide_sts_error	 sts_error;
	struct decide_options	 opt;
	int			 rc;
	enum sockmap_status	 status;
	const char		*data;		/* "" for none */
	enum decide_source	 source;
	int			 tlsrpt;
	const char		*sts_failure;
};

/* Preload entries (issue 38): patterns as preload_list keeps them. */
#define PRE_MX	"mail.example.com\0*.example.net"
static const struct decide_preload pre_enforce = { 1, 2, PRE_MX,
	sizeof(PRE_MX) };
static const struct decide_preload pre_testing = { 0, 2, PRE_MX,
	sizeof(PRE_MX) };
static const struct decide_preload pre_broken = { 1, 2, "mail.example.com",
	sizeof("mail.example.com") };

static const struct decide_case cases[] = {
	/* 1. Static pin. */
	{ "pin wins over DANE and STS", "example.com", &pin_encrypt,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, "encrypt", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin NOTFOUND wins over DANE", "example.com", &pin_notfound,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin TEMP passes its reason", "example.com", &pin_temp,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_TEMP, "maintenance", DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin on a TLSRPT map: verbatim, no attributes", "example.com",
	    &pin_secure, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0,
	    O_RPT, 0, SOCKMAP_OK, "secure match=mx.example.com",
	    DECIDE_SOURCE_PIN, 0, NULL },
	{ "pin OK without data is refused", "example.com", &pin_empty_ok,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    -1, SOCKMAP_OK, "", DECIDE_SOURCE_PIN, 0, NULL },

	/* 2. DANE. */
	{ "DANE on all MX: dane-only", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on all MX wins over STS enforce", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE answer carries no TLSRPT attributes", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=dane", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, TLSRPT map: dane, no attributes", "example.com",
	    NULL, DECIDE_DANE_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE lookup failure, TLSRPT map: TEMP, no attributes",
	    "example.com", NULL, DECIDE_DANE_FAILURE, DECIDE_STS_POLICY,
	    P_ENFORCE, 0, O_RPT, 0, SOCKMAP_TEMP, DANE_TEMP,
	    DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=dane-only", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_NONE, NULL, 0, O_SOME_ONLY,
	    0, SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE on some MX, dane_some=ignore, STS enforce", "example.com",
	    NULL, DECIDE_DANE_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_IGNORE,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "DANE on some MX, dane_some=ignore, no STS", "example.com", NULL,
	    DECIDE_DANE_SOME, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "DANE lookup failure, temp", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_TEMP, DANE_TEMP, DECIDE_SOURCE_DANE, 0, NULL },
	{ "DANE lookup failure, temp, wins over STS enforce", "example.com",
	    NULL, DECIDE_DANE_FAILURE, DECIDE_STS_POLICY, P_ENFORCE, 0,
	    O_DEFAULT, 0, SOCKMAP_TEMP, DANE_TEMP, DECIDE_SOURCE_DANE, 0,
	    NULL },
	{ "DANE lookup failure, ignore, STS enforce", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_IGNORE,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "DANE lookup failure, ignore, no STS", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },

	/* 2b. TLSA records, none usable (RFC 7672 §2.2): TLS required. */
#define TLS_ROW(name, dane, sts, pol, err, opt, status, data, src, rpt) \
	{ name, "example.com", NULL, dane, sts, pol, err, opt, 0, status, \
	    data, src, rpt, NULL }
	TLS_ROW("TLSA on every MX, none usable, no STS: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, STS enforce: secure",
	    DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0),
	TLS_ROW("TLSA on every MX, none usable, STS enforce with TLSRPT",
	    DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    SOCKMAP_OK, SECURE_RPT, DECIDE_SOURCE_STS, 1),
	TLS_ROW("TLSA on every MX, none usable, STS testing: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_TESTING, 0, O_DEFAULT,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, STS testing, may: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, STS mode none: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_NONE, 0, O_DEFAULT,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, STS failed: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_FETCH,
	    O_DEFAULT, SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, dane_some=ignore: encrypt",
	    DECIDE_DANE_TLS, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on every MX, none usable, dane_some=dane-only: "
	    "encrypt", DECIDE_DANE_TLS, DECIDE_STS_NONE, NULL, 0,
	    O_SOME_ONLY, SOCKMAP_OK, "encrypt", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on some MX, none usable, no STS: dane",
	    DECIDE_DANE_TLS_SOME, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on some MX, none usable, dane_some=dane-only: dane, "
	    "never dane-only", DECIDE_DANE_TLS_SOME, DECIDE_STS_NONE, NULL,
	    0, O_SOME_ONLY, SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on some MX, none usable, STS enforce: secure",
	    DECIDE_DANE_TLS_SOME, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0),
	TLS_ROW("TLSA on some MX, none usable, STS testing: dane",
	    DECIDE_DANE_TLS_SOME, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT,
	    SOCKMAP_OK, "dane", DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on some MX, none usable, STS failed: dane",
	    DECIDE_DANE_TLS_SOME, DECIDE_STS_FAILED, NULL,
	    DECIDE_STS_ERR_WEBPKI, O_DEFAULT, SOCKMAP_OK, "dane",
	    DECIDE_SOURCE_DANE, 0),
	TLS_ROW("TLSA on some MX, none usable, dane_some=ignore, no STS",
	    DECIDE_DANE_TLS_SOME, DECIDE_STS_NONE, NULL, 0, O_IGNORE,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0),
	TLS_ROW("TLSA on some MX, none usable, dane_some=ignore, STS "
	    "testing", DECIDE_DANE_TLS_SOME, DECIDE_STS_POLICY, P_TESTING,
	    0, O_IGNORE, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0),
	TLS_ROW("TLSA on some MX, none usable, dane_some=ignore, STS "
	    "enforce", DECIDE_DANE_TLS_SOME, DECIDE_STS_POLICY, P_ENFORCE,
	    0, O_IGNORE, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0),
#undef TLS_ROW

	/* 3. MTA-STS. */
	{ "STS enforce: secure with Postfix patterns", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_DEFAULT,
	    0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_STS, 0, NULL },
	{ "STS enforce with TLSRPT attributes", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT,
	    0, SOCKMAP_OK, SECURE_RPT, DECIDE_SOURCE_STS, 1, NULL },
	{ "STS enforce, wildcard-only policy", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_WILD, 0, O_DEFAULT,
	    0, SOCKMAP_OK, "secure match=.example.net servername=hostname",
	    DECIDE_SOURCE_STS, 0, NULL },
	{ "STS enforce, wildcard-only policy with TLSRPT", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_WILD, 0, O_RPT,
	    0, SOCKMAP_OK, WILD_RPT, DECIDE_SOURCE_STS, 1, NULL },
	{ "STS enforce, TLSRPT skips a line with braces", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_BRACE, 0, O_RPT,
	    0, SOCKMAP_OK, "secure match=mail.example.com servername=hostname"
	    " policy_type=sts policy_domain=example.com"
	    " mx_host_pattern=mail.example.com"
	    " { policy_string = version: STSv1 }"
	    " { policy_string = mode: enforce }"
	    " { policy_string = mx: mail.example.com }"
	    " { policy_string = max_age: 60 }", DECIDE_SOURCE_STS, 1, NULL },
	{ "STS testing, testing_answer=notfound", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, testing_answer=notfound, TLSRPT on", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT_NF,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, testing_answer=may", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_MAY,
	    0, SOCKMAP_OK, "may", DECIDE_SOURCE_STS, 0, NULL },
	{ "STS testing, wildcard-only, may with TLSRPT, CRLF lines stripped",
	    "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_RPT,
	    0, SOCKMAP_OK, MAY_RPT, DECIDE_SOURCE_STS, 1, NULL },
	{ "STS mode none: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_NONE, 0, O_RPT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL },
	{ "no policy: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT,
	    0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "no policy with TLSRPT: NOTFOUND, Postfix reports no-policy-found",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "STS fetch error: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_FETCH,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-policy-fetch-error" },
	{ "STS invalid policy: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_INVALID,
	    O_DEFAULT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-policy-invalid" },
	{ "STS WebPKI failure: NOTFOUND (fail open)", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_WEBPKI,
	    O_RPT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-webpki-invalid" },

	/* Unusable input. */
	{ "NULL domain refused", NULL, NULL, DECIDE_DANE_NONE,
	    DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1, SOCKMAP_NOTFOUND, "",
	    DECIDE_SOURCE_NONE, 0, NULL },
	{ "empty domain refused", "", NULL, DECIDE_DANE_NONE,
	    DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1, SOCKMAP_NOTFOUND, "",
	    DECIDE_SOURCE_NONE, 0, NULL },
	{ "domain with a space refused", "exa mple.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "domain with a brace refused", "example.com}", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_RPT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "parent-domain key refused", ".example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	{ "STS policy state without a policy refused", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, NULL, 0, O_DEFAULT, -1,
	    SOCKMAP_OK, "", DECIDE_SOURCE_NONE, 0, NULL },
};

/*
 * assert_tlsrpt_whole - the invariant of a tlsrpt map's answers: an answer
 * that says policy_type=sts also carries at least one mx_host_pattern and
 * one policy_string (Postfix 3.10.0 to 3.10.4 dereference both lists
 * unchecked and crash without them), and no TLSRPT attribute comes without
 * policy_type (Postfix refuses it as a "built-in policy"); policy_type=sts
 * only after "secure" or "may"
 */
static void
assert_tlsrpt_whole(const struct buf *out)
{
	static const char *const attrs[] = { "policy_domain=",
	    "mx_host_pattern=", "{ policy_string = ", "policy_failure=",
	    "policy_ttl=" };
	int	 type;
	size_t	 i;

	type = memmem(out->data, out->len, " policy_type=", 13) != NULL;
	if (!type) {
		for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
			if (memmem(out->data, out->len, attrs[i],
			    strlen(attrs[i])) != NULL)
				fail_msg("%s without policy_type", attrs[i]);
		return;
	}
	assert_non_null(memmem(out->data, out->len, " policy_type=sts ", 17));
	assert_true((out->len > 7 && memcmp(out->data, "secure ", 7) == 0) ||
	    (out->len > 4 && memcmp(out->data, "may ", 4) == 0));
	assert_non_null(memmem(out->data, out->len, " policy_domain=", 15));
	assert_non_null(memmem(out->data, out->len, " mx_host_pattern=", 17));
	assert_non_null(memmem(out->data, out->len, " { policy_string = ",
	    19));
	/* no policy_failure: it would make Postfix fail the policy */
	assert_null(memmem(out->data, out->len, "policy_failure", 14));
}

/* 4. Preload lists (issue 38): each case with its list entry. */
struct decide_pcase {
	struct decide_case	 c;
	const struct decide_preload *preload;
};

static const struct decide_pcase pcases[] = {
	{ { "preload enforce, no policy: secure from the list",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0,
	    O_DEFAULT, 0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_PRELOAD, 0,
	    NULL }, &pre_enforce },
	{ { "preload enforce on a TLSRPT map: no policy_type attributes",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0,
	    O_RPT, 0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_PRELOAD, 0, NULL },
	    &pre_enforce },
	{ { "preload enforce, discovery failed: secure, the failure kept",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL,
	    DECIDE_STS_ERR_FETCH, O_RPT, 0, SOCKMAP_OK, SECURE,
	    DECIDE_SOURCE_PRELOAD, 0, "sts-policy-fetch-error" },
	    &pre_enforce },
	{ { "preload testing changes nothing", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_MAY, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	    &pre_testing },
	{ { "a discovered mode none wins over preload enforce",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_NONE,
	    0, O_DEFAULT, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    NULL }, &pre_enforce },
	{ { "a discovered testing policy wins over preload enforce",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY,
	    P_TESTING, 0, O_MAY, 0, SOCKMAP_OK, "may", DECIDE_SOURCE_STS, 0,
	    NULL }, &pre_enforce },
	{ { "a discovered enforce policy's own mx, not the list's",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_WILD,
	    0, O_DEFAULT, 0, SOCKMAP_OK, "secure match=.example.net "
	    "servername=hostname", DECIDE_SOURCE_STS, 0, NULL },
	    &pre_enforce },
	{ { "DANE on all MX wins over preload", "example.com", NULL,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, 0,
	    SOCKMAP_OK, "dane-only", DECIDE_SOURCE_DANE, 0, NULL },
	    &pre_enforce },
	{ { "TLSA without usable records: preload secure over encrypt",
	    "example.com", NULL, DECIDE_DANE_TLS, DECIDE_STS_NONE, NULL, 0,
	    O_DEFAULT, 0, SOCKMAP_OK, SECURE, DECIDE_SOURCE_PRELOAD, 0,
	    NULL }, &pre_enforce },
	{ { "a pin wins over preload", "example.com", &pin_notfound,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_DEFAULT, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_PIN, 0, NULL },
	    &pre_enforce },
	{ { "a preload entry whose patterns overrun is refused",
	    "example.com", NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0,
	    O_DEFAULT, -1, SOCKMAP_OK, "", DECIDE_SOURCE_PRELOAD, 0, NULL },
	    &pre_broken },
};

/*
 * 5. The TLS floor (issue 38): on every authenticated answer (dane-only,
 * secure from MTA-STS or a preload list, a pin at fingerprint, dane-only,
 * verify, secure), on none of the others, and a pin's own value over the
 * floor's.
 */
#define SECURE_FLOOR_RPT SECURE FLOOR_TXT SECURE_RPT_ATTRS
#define SECURE_RPT_ATTRS " policy_type=sts policy_domain=example.com " \
	"mx_host_pattern=mail.example.com " \
	"mx_host_pattern=*.example.net { policy_string = version: STSv1 } " \
	"{ policy_string = mode: enforce } " \
	"{ policy_string = mx: mail.example.com } " \
	"{ policy_string = mx: *.example.net } " \
	"{ policy_string = max_age: 604800 }"

static const struct decide_pcase fcases[] = {
	{ { "floor: DANE on all MX, dane-only with the floor", "example.com",
	    NULL, DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_OK, "dane-only" FLOOR_TXT, DECIDE_SOURCE_DANE, 0, NULL },
	    NULL },
	{ { "floor: DANE on some MX, dane_some=dane-only: the floor",
	    "example.com", NULL, DECIDE_DANE_SOME, DECIDE_STS_NONE, NULL, 0,
	    O_FLOOR_SOME_ONLY, 0, SOCKMAP_OK, "dane-only" FLOOR_TXT,
	    DECIDE_SOURCE_DANE, 0, NULL }, NULL },
	{ { "floor: DANE on some MX, dane: no floor (not every host "
	    "authenticated)", "example.com", NULL, DECIDE_DANE_SOME,
	    DECIDE_STS_POLICY, P_ENFORCE, 0, O_FLOOR, 0, SOCKMAP_OK, "dane",
	    DECIDE_SOURCE_DANE, 0, NULL }, NULL },
	{ { "floor: TLSA none usable, encrypt: no floor", "example.com", NULL,
	    DECIDE_DANE_TLS, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0, SOCKMAP_OK,
	    "encrypt", DECIDE_SOURCE_DANE, 0, NULL }, NULL },
	{ { "floor: DANE failure TEMP: no floor", "example.com", NULL,
	    DECIDE_DANE_FAILURE, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_TEMP, DANE_TEMP, DECIDE_SOURCE_DANE, 0, NULL }, NULL },
	{ { "floor: STS enforce, secure with the floor", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_ENFORCE, 0, O_FLOOR, 0,
	    SOCKMAP_OK, SECURE FLOOR_TXT, DECIDE_SOURCE_STS, 0, NULL }, NULL },
	{ { "floor: STS enforce on a TLSRPT map: floor before the TLSRPT "
	    "attributes", "example.com", NULL, DECIDE_DANE_NONE,
	    DECIDE_STS_POLICY, P_ENFORCE, 0, O_FLOOR_RPT, 0, SOCKMAP_OK,
	    SECURE_FLOOR_RPT, DECIDE_SOURCE_STS, 1, NULL }, NULL },
	{ { "floor: TLSA none usable beside STS enforce: secure, the floor",
	    "example.com", NULL, DECIDE_DANE_TLS, DECIDE_STS_POLICY, P_ENFORCE,
	    0, O_FLOOR, 0, SOCKMAP_OK, SECURE FLOOR_TXT, DECIDE_SOURCE_STS, 0,
	    NULL }, NULL },
	{ { "floor: STS testing, may: no floor", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_FLOOR, 0,
	    SOCKMAP_OK, "may", DECIDE_SOURCE_STS, 0, NULL }, NULL },
	{ { "floor: STS testing, NOTFOUND: nothing", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_TESTING, 0, O_FLOOR_NF, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL }, NULL },
	{ { "floor: STS mode none: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_POLICY, P_NONE, 0, O_FLOOR, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0, NULL }, NULL },
	{ { "floor: no policy: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL }, NULL },
	{ { "floor: discovery failed: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_FAILED, NULL, DECIDE_STS_ERR_FETCH,
	    O_FLOOR, 0, SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_STS, 0,
	    "sts-policy-fetch-error" }, NULL },
	{ { "floor: preload enforce, secure with the floor", "example.com",
	    NULL, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR_RPT, 0,
	    SOCKMAP_OK, SECURE FLOOR_TXT, DECIDE_SOURCE_PRELOAD, 0, NULL },
	    &pre_enforce },
	{ { "floor: preload testing: NOTFOUND", "example.com", NULL,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR_NF, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_NONE, 0, NULL },
	    &pre_testing },
	{ { "floor: pin secure, the floor appended", "example.com",
	    &pin_secure, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR,
	    0, SOCKMAP_OK, "secure match=mx.example.com" FLOOR_TXT,
	    DECIDE_SOURCE_PIN, 0, NULL }, NULL },
	{ { "floor: pin verify's own protocols replace the floor's",
	    "example.com", &pin_verify_own, DECIDE_DANE_NONE, DECIDE_STS_NONE,
	    NULL, 0, O_FLOOR, 0, SOCKMAP_OK, "verify protocols=>=TLSv1.3 "
	    "ciphers=high exclude=aNULL:3DES", DECIDE_SOURCE_PIN, 0, NULL },
	    NULL },
	{ { "floor: pin fingerprint with all three of its own: verbatim",
	    "example.com", &pin_fp_all_own, DECIDE_DANE_NONE, DECIDE_STS_NONE,
	    NULL, 0, O_FLOOR, 0, SOCKMAP_OK, "fingerprint match=AB "
	    "protocols=TLSv1.3 ciphers=medium exclude=RC4", DECIDE_SOURCE_PIN,
	    0, NULL }, NULL },
	{ { "floor: pin may: its own attribute, no floor", "example.com",
	    &pin_may_own, DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR,
	    0, SOCKMAP_OK, "may protocols=!SSLv3", DECIDE_SOURCE_PIN, 0, NULL },
	    NULL },
	{ { "floor: pin encrypt: no floor", "example.com", &pin_encrypt,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_OK, "encrypt", DECIDE_SOURCE_PIN, 0, NULL }, NULL },
	{ { "floor: pin TEMP: its reason only", "example.com", &pin_temp,
	    DECIDE_DANE_NONE, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_TEMP, "maintenance", DECIDE_SOURCE_PIN, 0, NULL }, NULL },
	{ { "floor: pin NOTFOUND: nothing", "example.com", &pin_notfound,
	    DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0, O_FLOOR, 0,
	    SOCKMAP_NOTFOUND, "", DECIDE_SOURCE_PIN, 0, NULL }, NULL },
	{ { "floor: only protocols set: only protocols appended",
	    "example.com", NULL, DECIDE_DANE_ALL, DECIDE_STS_NONE, NULL, 0,
	    O_FLOOR_PROTO, 0, SOCKMAP_OK, "dane-only protocols=>=TLSv1.3",
	    DECIDE_SOURCE_DANE, 0, NULL }, NULL },
};

/* run_decide - one case, with preload entry pre (NULL: none) */
static void
run_decide(const struct decide_case *c, const struct decide_preload *pre)
{
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol = NULL;
	struct buf		 out;
	const char		*why;
	int			 rc;

	memset(&in, 0, sizeof(in));
	in.domain = c->domain;
	in.pin = c->pin;
	in.dane = c->dane;
	in.sts = c->sts;
	in.sts_error = c->sts_error;
	in.preload = pre;
	if (c->policy != NULL) {
		pol = malloc(sizeof(*pol));
		assert_non_null(pol);
		if (sts_policy_parse(c->policy, strlen(c->policy), pol,
		    &why) != 0)
			fail_msg("test policy refused: %s", why);
		in.policy = pol;
	}
	buf_init(&out, SOCKMAP_MAX_REPLY);
	rc = decide(&in, &c->opt, &out, &res);
	assert_int_equal(rc, c->rc);
	if (rc == 0) {
		assert_int_equal(res.status, c->status);
		assert_int_equal(res.source, c->source);
		assert_int_equal(res.tlsrpt, c->tlsrpt);
		assert_false(res.tlsrpt_dropped);
		assert_non_null(buf_cstr(&out));
		assert_string_equal(out.data, c->data);
		assert_tlsrpt_whole(&out);
		assert_int_equal(res.tlsrpt, memmem(out.data, out.len,
		    "policy_type=", 12) != NULL);
		assert_non_null(res.answer);
		/* res.floor: the floor was appended (no pin of these
		 * cases has ciphers=high of its own) */
		assert_int_equal(res.floor, c->opt.floor[0] != NULL &&
		    strstr(c->data, c->opt.floor[1] != NULL ?
		    " ciphers=high" : c->opt.floor[0]) != NULL);
		if (c->sts_failure == NULL)
			assert_null(res.sts_failure);
		else
			assert_string_equal(res.sts_failure, c->sts_failure);
	}
	buf_free(&out);
	free(pol);
}

static void
test_decide(void **state)
{
	run_decide(*state, NULL);
}

static void
test_pdecide(void **state)
{
	const struct decide_pcase *pc = *state;

	run_decide(&pc->c, pc->preload);
}

/* parse_or_fail - parse a test policy into heap storage */
static struct sts_policy *
parse_or_fail(const char *text)
{
	struct sts_policy	*pol;
	const char		*why;

	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	if (sts_policy_parse(text, strlen(text), pol, &why) != 0)
		fail_msg("test policy refused: %s", why);
	return (pol);
}

static void
tlsrpt_dropped_when_reply_too_long(void **state)
{
	static const struct decide_options opt = O_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_ENFORCE);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, strlen(SECURE) + 10);
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_int_equal(res.status, SOCKMAP_OK);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_int_equal(out.len, strlen(SECURE));
	assert_memory_equal(out.data, SECURE, out.len);
	buf_free(&out);
	free(pol);
}

/* the floor stays when the TLSRPT attributes do not fit */
static void
floor_kept_when_tlsrpt_dropped(void **state)
{
	static const struct decide_options opt = O_FLOOR_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_ENFORCE);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, strlen(SECURE FLOOR_TXT) + 10);
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_true(res.floor);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, SECURE FLOOR_TXT);
	buf_free(&out);
	free(pol);
}

static void
refused_when_even_the_policy_does_not_fit(void **state)
{
	static const struct decide_options opt = O_DEFAULT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_ENFORCE);
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, strlen(SECURE) - 1);
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	buf_free(&out);
	free(pol);
}

static void
forged_policy_with_bad_pattern_refused(void **state)
{
	static const struct decide_options opt = O_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail(P_TESTING);
	/* A policy not from sts_policy_parse, e.g. a corrupt cache record. */
	memcpy(pol->mx, "bad pattern", 12);
	pol->mxlen = 12;
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, SOCKMAP_MAX_REPLY);
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	memset(pol->mx, 'a', pol->mxlen);	/* no NUL */
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	buf_free(&out);
	free(pol);
}

/*
 * tlsrpt_never_half - a policy not from sts_policy_parse (a corrupt cache
 * record, say) without usable policy lines or without mx patterns gets
 * its answer without any TLSRPT attribute: policy_type=sts never comes
 * without a policy_string and an mx_host_pattern
 */
static void
tlsrpt_never_half(void **state)
{
	static const struct decide_options opt = O_RPT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	buf_init(&out, SOCKMAP_MAX_REPLY);

	/* enforce, no policy lines at all */
	pol = parse_or_fail(P_ENFORCE);
	pol->textlen = 0;
	pol->nlines = 0;
	pol->text[0] = '\0';
	in.policy = pol;
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_int_equal(res.status, SOCKMAP_OK);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, SECURE);
	assert_tlsrpt_whole(&out);
	free(pol);

	/* enforce, every line with a brace (none can go in braces) */
	pol = parse_or_fail(P_ENFORCE);
	memset(pol->text, '{', pol->textlen);
	in.policy = pol;
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, SECURE);
	assert_tlsrpt_whole(&out);
	free(pol);

	/* testing, no mx patterns: "may" without attributes */
	pol = parse_or_fail(P_TESTING);
	pol->nmx = 0;
	pol->mxlen = 0;
	in.policy = pol;
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_int_equal(res.status, SOCKMAP_OK);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, "may");
	assert_tlsrpt_whole(&out);

	/* enforce, no mx patterns: refused (the caller answers TEMP) */
	pol->mode = STS_MODE_ENFORCE;
	assert_int_equal(decide(&in, &opt, &out, &res), -1);
	free(pol);
	buf_free(&out);
}

/*
 * big_policy - an enforce policy of nmx patterns "mxNNNN.big.example" (18
 * bytes: 2,700 of them make a policy of 62 KB, as in issue 13) and one
 * unknown line of pad 'y's, parsed (freed by the caller)
 */
static struct sts_policy *
big_policy(size_t nmx, size_t pad)
{
	struct sts_policy *pol;
	const char	*why;
	char		*b;
	size_t		 len = 0, i;
	int		 n;

	b = malloc(STS_POLICY_MAX_BODY + 1);
	assert_non_null(b);
	n = snprintf(b, STS_POLICY_MAX_BODY, "version: STSv1\nmode: enforce\n"
	    "max_age: 86400\n");
	len = (size_t)n;
	for (i = 0; i < nmx; i++) {
		n = snprintf(b + len, STS_POLICY_MAX_BODY - len,
		    "mx: mx%04zu.big.example\n", i);
		assert_true(n == 23 && (size_t)n < STS_POLICY_MAX_BODY - len);
		len += (size_t)n;
	}
	if (pad > 0) {
		assert_true(len + 3 + pad < STS_POLICY_MAX_BODY);
		memcpy(b + len, "x: ", 3);
		memset(b + len + 3, 'y', pad);
		len += 3 + pad;
	}
	pol = malloc(sizeof(*pol));
	assert_non_null(pol);
	if (sts_policy_parse(b, len, pol, &why) != 0)
		fail_msg("big policy refused: %s", why);
	free(b);
	return (pol);
}

/* big_decide - decide() for pol into a reply buffer as the worker's */
static void
big_decide(const struct sts_policy *pol, int tlsrpt, struct buf *out,
    struct decide_result *res)
{
	static const struct decide_options plain = O_DEFAULT;
	static const struct decide_options rpt = O_RPT;
	struct decide_input	 in;

	memset(&in, 0, sizeof(in));
	in.domain = "bigpolicy.example";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_reset(out);
	assert_int_equal(decide(&in, tlsrpt ? &rpt : &plain, out, res), 0);
	assert_int_equal(res->status, SOCKMAP_OK);
	assert_tlsrpt_whole(out);
}

/* big_match_complete - out is "secure match=" and all nmx patterns */
static void
big_match_complete(const struct buf *out, size_t nmx)
{
	char	 want[64];
	size_t	 off, i;

	assert_true(out->len > 13);
	assert_memory_equal(out->data, "secure match=", 13);
	off = 13;
	for (i = 0; i < nmx; i++) {
		snprintf(want, sizeof(want), "%smx%04zu.big.example",
		    i > 0 ? ":" : "", i);
		assert_true(off + strlen(want) <= out->len);
		assert_memory_equal(out->data + off, want, strlen(want));
		off += strlen(want);
	}
	assert_true(out->len - off >= 20);
	assert_memory_equal(out->data + off, " servername=hostname", 20);
}

/* issue 13: 2,700 mx lines, both maps, within Postfix's 100000 bytes */
static void
thousands_of_mx_fit_both_maps(void **state)
{
	struct sts_policy	*pol;
	struct decide_result	 res;
	struct buf		 out, framed;
	size_t			 plain_len;

	(void)state;
	pol = big_policy(2700, 0);
	buf_init(&out, SOCKMAP_MAX_OK_DATA);
	big_decide(pol, 0, &out, &res);
	big_match_complete(&out, 2700);
	assert_int_equal(out.len, 13 + 2700 * 19 - 1 + 20);
	assert_false(res.tlsrpt_dropped);
	plain_len = out.len;
	/* tlsrpt map: the attributes would be ~250 KB: all left out */
	big_decide(pol, 1, &out, &res);
	assert_true(res.tlsrpt_dropped);
	assert_false(res.tlsrpt);
	assert_int_equal(out.len, plain_len);
	big_match_complete(&out, 2700);
	assert_null(memmem(out.data, out.len, "policy_type", 11));
	/* and the framed reply passes Postfix's limit */
	buf_init(&framed, SOCKMAP_MAX_REPLY + 16);
	assert_int_equal(sockmap_reply_format(&framed, SOCKMAP_OK, out.data,
	    out.len), 0);
	buf_free(&framed);
	buf_free(&out);
	free(pol);
}

/*
 * the tlsrpt map at the limit: a reply of exactly SOCKMAP_MAX_OK_DATA bytes
 * ("OK " + it = 100000) keeps its attributes; one byte more drops them all
 * (policy_string is never dropped alone: Postfix needs it, decide.c)
 */
static void
tlsrpt_at_the_reply_limit(void **state)
{
	struct sts_policy	*pol;
	struct decide_result	 res;
	struct buf		 out, big, framed;
	size_t			 pad, len0;

	(void)state;
	buf_init(&big, 4 * SOCKMAP_MAX_REPLY);
	buf_init(&out, SOCKMAP_MAX_OK_DATA);
	/* measure with room to spare, then pad to the exact limit */
	pol = big_policy(600, 1000);
	big_decide(pol, 1, &big, &res);
	assert_true(res.tlsrpt);
	len0 = big.len;
	free(pol);
	assert_true(len0 < SOCKMAP_MAX_OK_DATA);
	pad = 1000 + (SOCKMAP_MAX_OK_DATA - len0);

	pol = big_policy(600, pad);
	big_decide(pol, 1, &out, &res);
	assert_true(res.tlsrpt);
	assert_false(res.tlsrpt_dropped);
	assert_int_equal(out.len, SOCKMAP_MAX_OK_DATA);
	assert_non_null(memmem(out.data, out.len, "policy_type=sts", 15));
	buf_init(&framed, SOCKMAP_MAX_REPLY + 16);
	assert_int_equal(sockmap_reply_format(&framed, SOCKMAP_OK, out.data,
	    out.len), 0);
	/* netstring "100000:OK ...," */
	assert_memory_equal(framed.data, "100000:OK secure match=", 23);
	free(pol);

	pol = big_policy(600, pad + 1);
	big_decide(pol, 1, &out, &res);
	assert_false(res.tlsrpt);
	assert_true(res.tlsrpt_dropped);
	big_match_complete(&out, 600);
	assert_null(memmem(out.data, out.len, "policy_string", 13));
	assert_null(memmem(out.data, out.len, "mx_host_pattern", 15));
	/* the plain map never carries them */
	big_decide(pol, 0, &out, &res);
	assert_false(res.tlsrpt_dropped);
	big_match_complete(&out, 600);
	free(pol);
	buf_free(&framed);
	buf_free(&out);
	buf_free(&big);
}

static void
many_patterns_keep_policy_order(void **state)
{
	static const struct decide_options opt = O_DEFAULT;
	struct decide_input	 in;
	struct decide_result	 res;
	struct sts_policy	*pol;
	struct buf		 out;

	(void)state;
	pol = parse_or_fail("version: STSv1\nmode: enforce\nmx: c.example\n"
	    "mx: *.a.example\nmx: b.example\nmx: *.b.example\nmax_age: 1\n");
	memset(&in, 0, sizeof(in));
	in.domain = "example";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init(&out, SOCKMAP_MAX_REPLY);
	assert_int_equal(decide(&in, &opt, &out, &res), 0);
	assert_non_null(buf_cstr(&out));
	assert_string_equal(out.data, "secure match=c.example:.a.example:"
	    "b.example:.b.example servername=hostname");
	buf_free(&out);
	free(pol);
}

static void
names(void **state)
{
	(void)state;
	assert_string_equal(decide_source_name(DECIDE_SOURCE_NONE), "none");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_PIN), "pin");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_DANE), "dane");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_PRELOAD),
	    "preload");
	assert_string_equal(decide_source_name(DECIDE_SOURCE_STS), "sts");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_FETCH),
	    "sts-policy-fetch-error");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_INVALID),
	    "sts-policy-invalid");
	assert_string_equal(decide_sts_error_name(DECIDE_STS_ERR_WEBPKI),
	    "sts-webpki-invalid");
}

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	static const struct CMUnitTest extra[] = {
		cmocka_unit_test(tlsrpt_dropped_when_reply_too_long),
		cmocka_unit_test(floor_kept_when_tlsrpt_dropped),
		cmocka_unit_test(thousands_of_mx_fit_both_maps),
		cmocka_unit_test(tlsrpt_at_the_reply_limit),
		cmocka_unit_test(refused_when_even_the_policy_does_not_fit),
		cmocka_unit_test(forged_policy_with_bad_pattern_refused),
		cmocka_unit_test(tlsrpt_never_half),
		cmocka_unit_test(many_patterns_keep_policy_order),
		cmocka_unit_test(names),
	};
	struct CMUnitTest	*t;
	size_t			 n, i;
	int			 rc;

	t = calloc(NCASES(cases) + NCASES(pcases) + NCASES(fcases) +
	    NCASES(extra), sizeof(*t));
	if (t == NULL)
		return (1);
	n = 0;
	for (i = 0; i < NCASES(cases); i++)
		t[n++] = (struct CMUnitTest){ cases[i].name, test_decide,
		    NULL, NULL, (void *)&cases[i] };
	for (i = 0; i < NCASES(pcases); i++)
		t[n++] = (struct CMUnitTest){ pcases[i].c.name, test_pdecide,
		    NULL, NULL, (void *)&pcases[i] };
	for (i = 0; i < NCASES(fcases); i++)
		t[n++] = (struct CMUnitTest){ fcases[i].c.name, test_pdecide,
		    NULL, NULL, (void *)&fcases[i] };
	for (i = 0; i < NCASES(extra); i++)
		t[n++] = extra[i];
	rc = _cmocka_run_group_tests("decide", t, n, NULL, NULL);
	free(t);
	return (rc);
}
