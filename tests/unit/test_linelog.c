/*
 * test_linelog.c - the append-only line file (lib/linelog.c): lines
 * appended, the file reopened after a rename or a removal, whole lines
 * from several processes at once, limits
 */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/linelog.h"

#define WRITERS		4
#define LINES		300
#define LINE_LEN	3000	/* most of LINELOG_LINE_MAX: a torn write
				   would show */

static char	 dir[] = "/tmp/test_linelog.XXXXXX";
static char	 path[128], moved[128];

/* slurp - the file's text (caller frees), NULL if absent */
static char *
slurp(const char *p, size_t *len)
{
	FILE	*fp = fopen(p, "r");
	char	*buf;
	long	 n;

	if (fp == NULL)
		return (NULL);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return (buf);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL)
		return (-1);
	snprintf(path, sizeof(path), "%s/history.log", dir);
	snprintf(moved, sizeof(moved), "%s/history.log.1", dir);
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(moved);
	rmdir(dir);
	return (0);
}

static void
append_and_reopen(void **state)
{
	struct linelog	*ll;
	struct stat	 st;
	char		*t;
	size_t		 len;

	(void)state;
	unlink(path);
	ll = linelog_new(path);
	assert_string_equal(linelog_path(ll), path);
	assert_int_equal(linelog_write(ll, "one\n", 4), 0);
	assert_int_equal(linelog_write(ll, "two\n", 4), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640 & ~(mode_t)0);
	/* logrotate renames: the next line goes to a new file */
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(linelog_write(ll, "three\n", 6), 0);
	t = slurp(moved, &len);
	assert_string_equal(t, "one\ntwo\n");
	free(t);
	t = slurp(path, &len);
	assert_string_equal(t, "three\n");
	free(t);
	/* removed: created again */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(linelog_write(ll, "four\n", 5), 0);
	t = slurp(path, &len);
	assert_string_equal(t, "four\n");
	free(t);
	linelog_free(ll);
	linelog_free(NULL);
	unlink(moved);
}

static void
limits_and_errors(void **state)
{
	struct linelog	*ll;
	static char	 big[LINELOG_LINE_MAX + 1];
	char		 bad[160];

	(void)state;
	ll = linelog_new(path);
	memset(big, 'x', sizeof(big));
	errno = 0;
	assert_int_equal(linelog_write(ll, big, sizeof(big)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	big[LINELOG_LINE_MAX - 1] = '\n';
	assert_int_equal(linelog_write(ll, big, LINELOG_LINE_MAX), 0);
	linelog_free(ll);
	/* a directory that is not there: an error, and no crash later */
	snprintf(bad, sizeof(bad), "%s/no/such/dir", dir);
	ll = linelog_new(bad);
	assert_int_equal(linelog_write(ll, "x\n", 2), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(linelog_write(ll, "x\n", 2), -1);
	linelog_free(ll);
	/* a directory is no log */
	ll = linelog_new(dir);
	assert_int_equal(linelog_write(ll, "x\n", 2), -1);
	linelog_free(ll);
	unlink(path);
}

/* writer - child k: LINES lines of LINE_LEN bytes, all its own letter */
static void
writer(int k)
{
	struct linelog	*ll = linelog_new(path);
	char		 line[LINE_LEN];
	int		 i;

	memset(line, 'a' + k, sizeof(line));
	line[LINE_LEN - 1] = '\n';
	for (i = 0; i < LINES; i++)
		if (linelog_write(ll, line, sizeof(line)) == -1)
			_exit(1);
	linelog_free(ll);
	_exit(0);
}

static void
writers_never_interleave(void **state)
{
	pid_t		 pid[WRITERS];
	int		 k, status, count[WRITERS] = { 0 };
	char		*t, *p, *nl;
	size_t		 len, i;

	(void)state;
	unlink(path);
	for (k = 0; k < WRITERS; k++) {
		pid[k] = fork();
		assert_true(pid[k] != -1);
		if (pid[k] == 0)
			writer(k);
	}
	for (k = 0; k < WRITERS; k++) {
		assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	t = slurp(path, &len);
	assert_int_equal(len, (size_t)WRITERS * LINES * LINE_LEN);
	for (p = t; p < t + len; p = nl + 1) {
		nl = memchr(p, '\n', len - (size_t)(p - t));
		assert_non_null(nl);
		assert_int_equal(nl - p, LINE_LEN - 1);
		for (i = 1; i < LINE_LEN - 1; i++)
			if (p[i] != p[0])
				fail_msg("a torn line at offset %zu",
				    (size_t)(p - t));
		count[p[0] - 'a']++;
	}
	for (k = 0; k < WRITERS; k++)
		assert_int_equal(count[k], LINES);
	free(t);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(append_and_reopen),
		cmocka_unit_test(limits_and_errors),
		cmocka_unit_test(writers_never_interleave),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
