/*
 * test_origin.c - unit tests for who may feed postsmtpsts-tlsrpt
 * (tlsrpt/origin.c): the trusted users, commands and units
 *
 * A forged line is one whose trusted fields (set by journald or the
 * kernel) are not Postfix's: logger(1) run by a user (_UID the user's,
 * _COMM "logger"), a program named "smtp" run by a user (the _COMM fits,
 * the _UID does not), root's logger (the _UID fits, the _COMM does not).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/config.h"
#include "tlsrpt/origin.h"

static char	*users[] = { "root", "4242", "no-such-user-here", NULL };
static char	*comms[] = { "smtp", "cleanup", NULL };
static char	*units[] = { "postfix@*.service", "postfix.service", NULL };

/* origin_setup - a tlsrpt section with the lists above (units: n) */
static void
origin_setup(struct config_tlsrpt *t, struct origin *o, size_t nunits)
{
	char	 err[256];

	memset(t, 0, sizeof(*t));
	t->trusted_users = users;
	t->ntrusted_users = 3;
	t->trusted_commands = comms;
	t->ntrusted_commands = 2;
	t->trusted_units = units;
	t->ntrusted_units = nunits;
	assert_int_equal(origin_init(o, t, err, sizeof(err)), 0);
	/* root by name, 4242 by number; the missing user skipped */
	assert_int_equal(o->nuids, 2);
}

/* slen - strlen, 0 for NULL */
static size_t
slen(const char *s)
{
	return (s != NULL ? strlen(s) : 0);
}

#define J(o, u, c, n) origin_journal(o, u, slen(u), c, slen(c), n, slen(n))

static void
origin_journal_cases(void **state)
{
	struct config_tlsrpt t;
	struct origin	 o;

	(void)state;
	origin_setup(&t, &o, 0);
	assert_int_equal(J(&o, "0", "smtp", NULL), ORIGIN_OK);
	assert_int_equal(J(&o, "4242", "cleanup", NULL), ORIGIN_OK);
	/* logger run by a user */
	assert_int_equal(J(&o, "1000", "logger", NULL), ORIGIN_UID);
	/* a user's program named smtp */
	assert_int_equal(J(&o, "1000", "smtp", NULL), ORIGIN_UID);
	/* root's logger */
	assert_int_equal(J(&o, "0", "logger", NULL), ORIGIN_COMM);
	assert_int_equal(J(&o, "0", NULL, NULL), ORIGIN_COMM);
	/* no _UID, or not a number */
	assert_int_equal(J(&o, NULL, "smtp", NULL), ORIGIN_NO_UID);
	assert_int_equal(J(&o, "0x0", "smtp", NULL), ORIGIN_NO_UID);
	assert_int_equal(J(&o, "", "smtp", NULL), ORIGIN_NO_UID);
	assert_int_equal(J(&o, "42420000000", "smtp", NULL), ORIGIN_NO_UID);
	/* a prefix of a trusted command is not one */
	assert_int_equal(J(&o, "0", "smt", NULL), ORIGIN_COMM);
	assert_int_equal(J(&o, "0", "smtpd", NULL), ORIGIN_COMM);
	/* units not checked when none are set */
	assert_int_equal(J(&o, "0", "smtp", "user@1000.service"), ORIGIN_OK);

	origin_setup(&t, &o, 2);
	assert_int_equal(J(&o, "0", "smtp", "postfix@-.service"), ORIGIN_OK);
	assert_int_equal(J(&o, "0", "smtp", "postfix.service"), ORIGIN_OK);
	assert_int_equal(J(&o, "0", "smtp", "cron.service"), ORIGIN_UNIT);
	assert_int_equal(J(&o, "0", "smtp", NULL), ORIGIN_UNIT);
	assert_string_equal(origin_verdict_name(ORIGIN_UNIT), "unit");
}

static void
origin_uids(void **state)
{
	struct config_tlsrpt t;
	struct origin	 o;
	char		*none[] = { "no-such-user-here", NULL };
	char		 err[256];

	(void)state;
	origin_setup(&t, &o, 0);
	assert_true(origin_uid_ok(&o, 0));
	assert_true(origin_uid_ok(&o, 4242));
	assert_false(origin_uid_ok(&o, 1000));
	assert_false(origin_uid_ok(&o, (uid_t)-1));
	/* no user resolves: an error, never "anyone" */
	t.trusted_users = none;
	t.ntrusted_users = 1;
	assert_int_equal(origin_init(&o, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "trusted_users"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(origin_journal_cases),
		cmocka_unit_test(origin_uids),
	};

	return (cmocka_run_group_tests_name("origin", tests, NULL, NULL));
}
