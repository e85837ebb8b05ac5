/*
 * test_gpgv.c - unit tests for the signature check (lib/gpgv.c,
 * lib/gpgv_status.c)
 *
 * The status parser is table-tested on lines as gpgv 2.2 writes them.
 * The check itself runs the real gpgv on what the test makes with gpg in
 * a fresh home: two keys (A in the keyring, B not), a list signed by A,
 * the same list changed by one byte, the list signed by B, a signature
 * that is not one; plus a "gpgv" that never answers (the deadline) and
 * one that does not exist.  Without gpg or gpgv the program is one skip
 * (need.h); CI installs both (contrib/install-deps.sh --test).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/gpgv.h"
#include "need.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

#define FPR	"0123456789ABCDEF0123456789ABCDEF01234567"
#define VALID	"[GNUPG:] VALIDSIG 89ABCDEF0123456789ABCDEF0123456789ABCDEF " \
		"2026-12-07 1796601600 0 4 0 22 10 00 " FPR "\n"

struct st_case {
	const char *name;
	const char *lines;
	int	 rc;
	const char *fpr_or_why;
};

static const struct st_case st_cases[] = {
	{ "good and valid: the primary key's fingerprint",
	    "[GNUPG:] NEWSIG\n[GNUPG:] KEY_CONSIDERED " FPR " 0\n"
	    "[GNUPG:] SIG_ID x 2026-12-07 1796601600\n"
	    "[GNUPG:] GOODSIG 0123456789ABCDEF Preload A <a@example.org>\n"
	    VALID, 0, FPR },
	{ "VALIDSIG without a primary key field: its first",
	    "[GNUPG:] GOODSIG 0123456789ABCDEF A\n[GNUPG:] VALIDSIG "
	    "89abcdef0123456789abcdef0123456789abcdef 2026-12-07\n", 0,
	    "89ABCDEF0123456789ABCDEF0123456789ABCDEF" },
	{ "CRLF lines, other lines ignored", "gpgv: Good signature\r\n"
	    "[GNUPG:] GOODSIG 0123456789ABCDEF A\r\n" VALID, 0, FPR },
	{ "a bad signature", "[GNUPG:] BADSIG 0123456789ABCDEF A\n", -1,
	    "gpgv says BADSIG" },
	{ "no public key", "[GNUPG:] ERRSIG 0123456789ABCDEF 22 10 00 "
	    "1796601600 9 -\n[GNUPG:] NO_PUBKEY 0123456789ABCDEF\n", -1,
	    "gpgv says ERRSIG" },
	{ "good but the key expired", "[GNUPG:] EXPKEYSIG 0123456789ABCDEF A\n"
	    VALID, -1, "gpgv says EXPKEYSIG" },
	{ "good but revoked", "[GNUPG:] GOODSIG 0123456789ABCDEF A\n"
	    "[GNUPG:] REVKEYSIG 0123456789ABCDEF A\n" VALID, -1,
	    "gpgv says REVKEYSIG" },
	{ "GOODSIG without VALIDSIG",
	    "[GNUPG:] GOODSIG 0123456789ABCDEF A\n", -1,
	    "no valid signature with a fingerprint" },
	{ "two good signatures", "[GNUPG:] GOODSIG 0123456789ABCDEF A\n"
	    VALID "[GNUPG:] GOODSIG 0123456789ABCDEF A\n" VALID, -1,
	    "more than one signature" },
	{ "a fingerprint that is not hex",
	    "[GNUPG:] GOODSIG 0123456789ABCDEF A\n[GNUPG:] VALIDSIG "
	    "XYZ 2026-12-07\n", -1, "no valid signature with a fingerprint" },
	{ "nothing", "", -1, "no good signature" },
	{ "not status lines", "GOODSIG x\nVALIDSIG " FPR "\n", -1,
	    "no good signature" },
};

/* run_st_case - one st_cases row, the lines in a block of their length */
static void
run_st_case(void **state)
{
	const struct st_case *tc = *state;
	struct gpgv_result r;
	size_t	 len = strlen(tc->lines);
	char	*p = malloc(len > 0 ? len : 1);

	assert_non_null(p);
	memcpy(p, tc->lines, len);
	assert_int_equal(gpgv_status_parse(p, len, &r), tc->rc);
	assert_int_equal(r.good, tc->rc == 0);
	assert_string_equal(tc->rc == 0 ? r.fpr : r.why, tc->fpr_or_why);
	free(p);
}

/* fpr_equal - blanks and case do not matter, emptiness never matches */
static void
fpr_equal(void **state)
{
	(void)state;
	assert_true(gpgv_fpr_equal(FPR, "0123 4567 89ab CDEF 0123 4567 89AB "
	    "CDEF 0123 4567"));
	assert_false(gpgv_fpr_equal(FPR, "0123456789ABCDEF"));
	assert_false(gpgv_fpr_equal("", ""));
}

/* The world the real checks share, made once by setup. */
static char home[64], fpr_a[GPGV_FPR_MAX + 1];
static char keyring[128], list[128], tampered[128], sig_a[128];
static char sig_b[128], junk[128], slow[128];

/* sh - run a shell command line for the set-up; 0 on success */
static int __attribute__((format(printf, 1, 2)))
sh(const char *fmt, ...)
{
	char	 cmd[2048];
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return (system(cmd));
}

/* setup - two keys, the keyring of A, the lists and their signatures */
static int
setup(void **state)
{
	const char	*g = "gpg --batch --quiet --pinentry-mode loopback "
	    "--passphrase ''";
	char		 cmd[512];
	FILE		*f;

	(void)state;
	(void)snprintf(home, sizeof(home), "/tmp/test_gpgv.XXXXXX");
	if (mkdtemp(home) == NULL)
		return (-1);
	(void)snprintf(keyring, sizeof(keyring), "%s/keyring.gpg", home);
	(void)snprintf(list, sizeof(list), "%s/policy.json", home);
	(void)snprintf(tampered, sizeof(tampered), "%s/tampered.json", home);
	(void)snprintf(sig_a, sizeof(sig_a), "%s/policy.json.asc", home);
	(void)snprintf(sig_b, sizeof(sig_b), "%s/policy.json.b.asc", home);
	(void)snprintf(junk, sizeof(junk), "%s/junk.asc", home);
	(void)snprintf(slow, sizeof(slow), "%s/slow-gpgv", home);
	if (sh("%s --homedir %s --quick-gen-key 'Preload A <a@example.org>' "
	    "ed25519 sign never 2>/dev/null", g, home) != 0 ||
	    sh("%s --homedir %s --quick-gen-key 'Preload B <b@example.org>' "
	    "ed25519 sign never 2>/dev/null", g, home) != 0 ||
	    sh("gpg --homedir %s --batch --export a@example.org > %s "
	    "2>/dev/null", home,
	    keyring) != 0 ||
	    sh("printf '{\"policies\": {}}\\n' > %s && sed 's/{}/[]/' %s > %s",
	    list, list, tampered) != 0 ||
	    sh("%s --homedir %s -u a@example.org --armor --detach-sign -o %s "
	    "%s 2>/dev/null", g, home, sig_a, list) != 0 ||
	    sh("%s --homedir %s -u b@example.org --armor --detach-sign -o %s "
	    "%s 2>/dev/null", g, home, sig_b, list) != 0 ||
	    sh("printf 'not a signature\\n' > %s", junk) != 0 ||
	    sh("printf '#!/bin/sh\\nexec sleep 30\\n' > %s && chmod +x %s",
	    slow, slow) != 0)
		return (-1);
	(void)snprintf(cmd, sizeof(cmd), "gpg --homedir %s --batch "
	    "--with-colons --list-keys a@example.org 2>/dev/null | "
	    "awk -F: '$1 == \"fpr\" { print $10; exit }'", home);
	if ((f = popen(cmd, "r")) == NULL ||
	    fgets(fpr_a, sizeof(fpr_a), f) == NULL) {
		if (f != NULL)
			(void)pclose(f);
		return (-1);
	}
	(void)pclose(f);
	fpr_a[strcspn(fpr_a, "\n")] = '\0';
	return (0);
}

/* teardown - the agent gpg started, the files */
static int
teardown(void **state)
{
	(void)state;
	(void)sh("gpgconf --homedir %s --kill gpg-agent 2>/dev/null", home);
	(void)sh("rm -rf %s", home);
	return (0);
}

/* signed_by_a - a list signed by the keyring's key is good, by A */
static void
signed_by_a(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify(NULL, keyring, sig_a, list,
	    GPGV_TIMEOUT_MS, &r), 0);
	assert_true(r.good);
	assert_true(strlen(fpr_a) == 40);
	assert_string_equal(r.fpr, fpr_a);
}

/* tampered - one byte changed: BADSIG, not good */
static void
tampered_list(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify(NULL, keyring, sig_a, tampered,
	    GPGV_TIMEOUT_MS, &r), 0);
	assert_false(r.good);
	assert_string_equal(r.fpr, "");
	assert_non_null(strstr(r.why, "BADSIG"));
}

/* signed_by_b - a key not in the keyring: not good */
static void
signed_by_b(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify(NULL, keyring, sig_b, list,
	    GPGV_TIMEOUT_MS, &r), 0);
	assert_false(r.good);
	assert_non_null(strstr(r.why, "ERRSIG"));
}

/* not_a_signature - garbage for a signature: not good */
static void
not_a_signature(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify(NULL, keyring, junk, list,
	    GPGV_TIMEOUT_MS, &r), 0);
	assert_false(r.good);
	assert_string_not_equal(r.why, "");
}

/* slow_gpgv - a verifier that never answers is killed at the deadline */
static void
slow_gpgv(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify(slow, keyring, sig_a, list, 300, &r),
	    -1);
	assert_false(r.good);
	assert_non_null(strstr(r.why, "no answer in 300 ms, killed"));
}

/* missing_gpgv - no such program: -1 and why */
static void
missing_gpgv(void **state)
{
	struct gpgv_result r;

	(void)state;
	assert_int_equal(gpgv_verify("/nonexistent/gpgv", keyring, sig_a,
	    list, 1000, &r), -1);
	assert_string_equal(r.why, "/nonexistent/gpgv: No such file or "
	    "directory");
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(fpr_equal),
};

static const struct CMUnitTest gpg_tests[] = {
	cmocka_unit_test(signed_by_a),
	cmocka_unit_test(tampered_list),
	cmocka_unit_test(signed_by_b),
	cmocka_unit_test(not_a_signature),
	cmocka_unit_test(slow_gpgv),
	cmocka_unit_test(missing_gpgv),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(st_cases) + nitems(fixed_tests) +
	    nitems(gpg_tests)];
	size_t	 i, n = 0;

	TEST_NEED("gpg", "gpg");
	TEST_NEED("gpgv", "gpgv");
	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(st_cases); i++, n++) {
		tests[n].name = st_cases[i].name;
		tests[n].test_func = run_st_case;
		tests[n].initial_state = (void *)&st_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	for (i = 0; i < nitems(gpg_tests); i++, n++)
		tests[n] = gpg_tests[i];
	/* one group (one TAP plan): the keys made once for all */
	return (cmocka_run_group_tests_name("gpgv", tests, setup, teardown));
}
