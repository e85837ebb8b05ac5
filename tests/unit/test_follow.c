/*
 * test_follow.c - unit tests for the log follower of postsmtpsts-tlsrpt
 * (tlsrpt/follow.c), file source: whole lines only, the position after
 * the last one delivered, a restart at it, rotation (renamed, gone while
 * we were away), truncation, over-long lines
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "tlsrpt/follow.h"
#include "tlsrpt/maillog.h"

/* Lines delivered, joined with '|', and the over-long ones. */
struct got {
	char	 text[8192];
	size_t	 n;
	size_t	 too_long;
};

static char	 dir[64], logpath[128];

/* collect - follow_read's callback */
static void
collect(const struct follow_line *l, void *arg)
{
	struct got *g = arg;
	size_t	 len = strlen(g->text);

	if (l->too_long) {
		g->too_long++;
		assert_int_equal(l->len, MAILLOG_MAX_LINE);
	} else
		snprintf(g->text + len, sizeof(g->text) - len, "%s%.*s",
		    len ? "|" : "", (int)l->len, l->text);
	g->n++;
}

/* put - append s to the file path */
static void
put(const char *path, const char *s)
{
	FILE	*f = fopen(path, "a");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

/* readall - read until nothing is new; the lines in g */
static void
readall(struct follow *f, struct got *g)
{
	memset(g, 0, sizeof(*g));
	while (follow_read(f, 2, collect, g) > 0)
		;
}

/* pos - the follower's position */
static void
pos(struct follow *f, struct buf *b)
{
	buf_reset(b);
	follow_pos(f, b);
	assert_false(b->error);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_follow.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(logpath, sizeof(logpath), "%s/maillog", dir);
	return (0);
}

static int
teardown(void **state)
{
	char	 cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd));
}

/* partial_lines - a line still being written waits; the position never
 * points inside a line; a restart at it goes on exactly there */
static void
partial_lines(void **state)
{
	struct follow	*f;
	struct got	 g;
	struct buf	 b;
	char		 err[256];

	(void)state;
	put(logpath, "one\ntwo\nthr");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "one|two");
	buf_init(&b, FOLLOW_POS_MAX);
	pos(f, &b);
	put(logpath, "ee\nfour\n");
	readall(f, &g);
	assert_string_equal(g.text, "three|four");
	follow_close(f);
	/* a restart at the position after "two": three and four again */
	assert_non_null(f = follow_open(logpath, b.data, b.len, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "three|four");
	follow_close(f);
	/* without a position and from_start unset: only what comes next */
	assert_non_null(f = follow_open(logpath, NULL, 0, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_int_equal(g.n, 0);
	put(logpath, "five\n");
	readall(f, &g);
	assert_string_equal(g.text, "five");
	follow_close(f);
	buf_free(&b);
}

/* rotation - the file renamed under a running follower: the old one is
 * read to its end, then the new one from its start */
static void
rotation(void **state)
{
	struct follow	*f;
	struct got	 g;
	char		 err[256], old[160];

	(void)state;
	put(logpath, "a\n");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "a");
	put(logpath, "b\n");
	snprintf(old, sizeof(old), "%s.1", logpath);
	assert_int_equal(rename(logpath, old), 0);
	put(old, "c\n");	/* the writer has not reopened yet */
	put(logpath, "d\n");
	readall(f, &g);
	assert_string_equal(g.text, "b|c|d");
	follow_close(f);
}

/* rotated_away - rotated while the follower was stopped: found by its
 * inode among the rotated files, read from the saved offset, then the new
 * file; gone altogether: the new file from its start */
static void
rotated_away(void **state)
{
	struct follow	*f;
	struct got	 g;
	struct buf	 b;
	char		 err[256], old[160];

	(void)state;
	put(logpath, "a\nb\n");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	buf_init(&b, FOLLOW_POS_MAX);
	pos(f, &b);
	follow_close(f);
	put(logpath, "c\n");
	snprintf(old, sizeof(old), "%s.20261206-101010", logpath);
	assert_int_equal(rename(logpath, old), 0);
	put(logpath, "d\n");
	assert_non_null(f = follow_open(logpath, b.data, b.len, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "c|d");
	pos(f, &b);
	follow_close(f);
	/* rotated and deleted (compressed) while away */
	put(logpath, "e\n");
	assert_int_equal(rename(logpath, old), 0);
	assert_int_equal(unlink(old), 0);
	put(logpath, "f\n");
	assert_non_null(f = follow_open(logpath, b.data, b.len, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "f");	/* "e" is lost, and logged */
	follow_close(f);
	buf_free(&b);
}

/* reused_inode - a saved position whose inode now holds another file
 * (the old one deleted, the number reused): the first bytes differ, so the
 * file is read from its start, not from the old offset */
static void
reused_inode(void **state)
{
	struct follow	*f;
	struct got	 g;
	struct buf	 b;
	char		 err[256];
	FILE		*fp;

	(void)state;
	put(logpath, "old1\nold2\n");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	buf_init(&b, FOLLOW_POS_MAX);
	pos(f, &b);
	follow_close(f);
	/* the same inode, new contents, longer than the saved offset */
	assert_non_null(fp = fopen(logpath, "w"));
	fputs("new1\nnew2\nnew3\n", fp);
	fclose(fp);
	assert_non_null(f = follow_open(logpath, b.data, b.len, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "new1|new2|new3");
	follow_close(f);
	/* and an unchanged file goes on at the offset */
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	pos(f, &b);
	follow_close(f);
	put(logpath, "new4\n");
	assert_non_null(f = follow_open(logpath, b.data, b.len, 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_string_equal(g.text, "new4");
	follow_close(f);
	buf_free(&b);
}

/* truncation - copytruncate: the file is read again from its start */
static void
truncation(void **state)
{
	struct follow	*f;
	struct got	 g;
	char		 err[256];

	(void)state;
	put(logpath, "aaaaaaaa\nbbbbbbbb\n");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(truncate(logpath, 0), 0);
	put(logpath, "c\n");
	readall(f, &g);
	assert_string_equal(g.text, "c");
	follow_close(f);
}

/* too_long - a line over MAILLOG_MAX_LINE is delivered cut, flagged, and
 * the next line is whole */
static void
too_long(void **state)
{
	struct follow	*f;
	struct got	 g;
	char		 err[256], *big = malloc(3 * MAILLOG_MAX_LINE + 2);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', 3 * MAILLOG_MAX_LINE);
	big[3 * MAILLOG_MAX_LINE] = '\n';
	big[3 * MAILLOG_MAX_LINE + 1] = '\0';
	put(logpath, big);
	put(logpath, "next\n");
	assert_non_null(f = follow_open(logpath, NULL, 0, 1, err,
	    sizeof(err)));
	readall(f, &g);
	assert_int_equal(g.too_long, 1);
	assert_string_equal(g.text, "next");
	follow_close(f);
	free(big);
}

/* waiting - a log that does not exist yet is followed once it comes; a
 * position of another kind (a journal's) is no position */
static void
waiting(void **state)
{
	struct follow	*f;
	struct got	 g;
	char		 err[256];
	unsigned char	 jpos[] = { 2, 0, 1, 'x' };

	(void)state;
	assert_non_null(f = follow_open(logpath, jpos, sizeof(jpos), 0, err,
	    sizeof(err)));
	readall(f, &g);
	assert_int_equal(g.n, 0);
	put(logpath, "first\n");
	readall(f, &g);
	assert_string_equal(g.text, "first");
	follow_close(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(partial_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation, setup, teardown),
		cmocka_unit_test_setup_teardown(rotated_away, setup, teardown),
		cmocka_unit_test_setup_teardown(reused_inode, setup, teardown),
		cmocka_unit_test_setup_teardown(truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(waiting, setup, teardown),
	};

	return (cmocka_run_group_tests_name("follow", tests, NULL, NULL));
}
