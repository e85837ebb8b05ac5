/*
 * test_procmaps.c - unit tests for the /proc/<pid>/maps line parser
 *
 * Each table row is its own TAP test (named after the row).  Every input
 * is copied into a heap block of exactly its length, so a read past the
 * end is caught by ASan (--enable-sanitizers) and valgrind.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/procmaps.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define IN(s)		(s), (sizeof(s) - 1)

/* a shared read-only mapping of an LMDB data file, as the cache has it */
#define LMDB_LINE	"7f3a1c000000-7f3a5c000000 r--s 00000000 fd:01 " \
			    "1835017                    /var/lib/postsmtpsts/" \
			    "cache/data.mdb\n"
#define LMDB_FIRST	"7f3a1c000000-7f3a5c000000 r--s 00000000 fd:01 "

struct parse_case {
	const char *name;
	const char *in;
	size_t	 inlen;
	int	 want;			/* 0 or -1 */
	unsigned long start, end;	/* on 0 */
	const char *perms;
	unsigned long offset;
	unsigned int major, minor;
	unsigned long inode;
};

static const struct parse_case parse_cases[] = {
	{ "parse shared read-only file mapping with path", IN(LMDB_LINE), 0,
	    0x7f3a1c000000UL, 0x7f3a5c000000UL, "r--s", 0, 0xfd, 0x01,
	    1835017 },
	{ "parse private mapping with offset",
	    IN("00400000-00452000 r-xp 0001a000 08:02 173521      "
	    "/usr/bin/dbus-daemon\n"), 0,
	    0x400000, 0x452000, "r-xp", 0x1a000, 8, 2, 173521 },
	{ "parse anonymous mapping, trailing spaces",
	    IN("7ffd3c1e0000-7ffd3c201000 rw-p 00000000 00:00 0          "
	    "        \n"), 0,
	    0x7ffd3c1e0000UL, 0x7ffd3c201000UL, "rw-p", 0, 0, 0, 0 },
	{ "parse anonymous mapping, newline after inode",
	    IN("01e6a000-01e8b000 rw-p 00000000 00:00 0\n"), 0,
	    0x1e6a000, 0x1e8b000, "rw-p", 0, 0, 0, 0 },
	{ "parse pseudo path [heap]",
	    IN("01e6a000-01e8b000 rw-p 00000000 00:00 0      [heap]\n"), 0,
	    0x1e6a000, 0x1e8b000, "rw-p", 0, 0, 0, 0 },
	{ "parse line without newline, inode at end of input",
	    IN(LMDB_FIRST "1835017"), 0,
	    0x7f3a1c000000UL, 0x7f3a5c000000UL, "r--s", 0, 0xfd, 0x01,
	    1835017 },
#if ULONG_MAX > 0xffffffffUL
	{ "parse highest addresses ([vsyscall])",
	    IN("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0   "
	    "               [vsyscall]\n"), 0,
	    0xffffffffff600000UL, 0xffffffffff601000UL, "--xp", 0, 0, 0, 0 },
#endif
	{ "parse upper-case hex digits",
	    IN("7F3A1C000000-7F3A5C000000 r--s 0000000A FD:0A 12\n"), 0,
	    0x7f3a1c000000UL, 0x7f3a5c000000UL, "r--s", 0xa, 0xfd, 0x0a,
	    12 },
	{ "parse largest major and minor",
	    IN("1000-2000 r--s 00000000 fff:fffff 7\n"), 0,
	    0x1000, 0x2000, "r--s", 0, 0xfff, 0xfffff, 7 },
	{ "parse perms are taken as written",
	    IN("1000-2000 ???? 0 1:2 3\n"), 0,
	    0x1000, 0x2000, "????", 0, 1, 2, 3 },

	{ "refuse empty input", IN(""), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse newline only", IN("\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse major above 0xfff",
	    IN("1000-2000 r--s 00000000 1000:00 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse minor above 0xfffff",
	    IN("1000-2000 r--s 00000000 00:100000 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse missing '-' between start and end",
	    IN("1000 2000 r--s 00000000 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse empty start", IN("-2000 r--s 00000000 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse empty end", IN("1000- r--s 00000000 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse sign before a number",
	    IN("+1000-2000 r--s 00000000 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse 0x prefix", IN("0x1000-2000 r--s 00000000 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse leading space", IN(" 1000-2000 r--s 00000000 fd:01 7\n"),
	    -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse address wider than unsigned long",
	    IN("10000000000000000000000-2000 r--s 0 fd:01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse inode wider than unsigned long",
	    IN("1000-2000 r--s 0 fd:01 999999999999999999999999\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse three perms characters", IN("1000-2000 r-s 0 fd:01 7\n"),
	    -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse five perms characters",
	    IN("1000-2000 r--sp 0 fd:01 7\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse line ending in the perms", IN("1000-2000 r--s"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse line ending before the inode",
	    IN("1000-2000 r--s 00000000 fd:01 "), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse device without ':'", IN("1000-2000 r--s 0 fd01 7\n"), -1,
	    0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse hex digit in the decimal inode",
	    IN("1000-2000 r--s 0 fd:01 7a\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse tab after the inode",
	    IN("1000-2000 r--s 0 fd:01 7\t/x\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse NUL after the inode (no end of input)",
	    IN("1000-2000 r--s 0 fd:01 7\0/x\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
	{ "refuse two spaces between fields",
	    IN("1000-2000  r--s 0 fd:01 7\n"), -1, 0, 0, NULL, 0, 0, 0, 0 },
};

#include "copy_exact.inc"

/* run_parse_case - one parse_cases row */
static void
run_parse_case(void **state)
{
	const struct parse_case *tc = *state;
	struct procmaps_entry e;
	char	*in;

	memset(&e, 0xa5, sizeof(e));
	in = copy_exact(tc->in, tc->inlen);
	assert_int_equal(procmaps_parse(in, tc->inlen, &e), tc->want);
	if (tc->want == 0) {
		assert_true(e.start == tc->start);
		assert_true(e.end == tc->end);
		assert_string_equal(e.perms, tc->perms);
		assert_true(e.offset == tc->offset);
		assert_int_equal(e.major, tc->major);
		assert_int_equal(e.minor, tc->minor);
		assert_true(e.inode == tc->inode);
	} else {
		/* procmaps.h: *e untouched on failure */
		struct procmaps_entry fill;

		memset(&fill, 0xa5, sizeof(fill));
		assert_memory_equal(&e, &fill, sizeof(e));
	}
	free(in);
}

/* parse_every_cut_before_the_inode - each prefix of a line that ends
 * before the inode's first digit is refused */
static void
parse_every_cut_before_the_inode(void **state)
{
	struct procmaps_entry e;
	size_t	 len;
	char	*in;

	(void)state;
	for (len = 0; len <= sizeof(LMDB_FIRST) - 1; len++) {
		in = copy_exact(LMDB_FIRST, len);
		assert_int_equal(procmaps_parse(in, len, &e), -1);
		free(in);
	}
}

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(parse_every_cut_before_the_inode),
};

int
main(void)
{
	struct CMUnitTest tests[nitems(parse_cases) + nitems(fixed_tests)];
	size_t	 i, n = 0;

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < nitems(parse_cases); i++, n++) {
		tests[n].name = parse_cases[i].name;
		tests[n].test_func = run_parse_case;
		tests[n].initial_state = (void *)&parse_cases[i];
	}
	for (i = 0; i < nitems(fixed_tests); i++, n++)
		tests[n] = fixed_tests[i];
	return (cmocka_run_group_tests_name("procmaps", tests, NULL, NULL));
}
