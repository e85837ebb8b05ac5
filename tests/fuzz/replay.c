/*
 * replay.c - run a fuzz target over corpus files without libFuzzer
 *
 * Usage: replay_<target> path...
 *
 * Each path is a file, or a directory whose regular files (not recursing,
 * dot files skipped) are fed in name order, one LLVMFuzzerTestOneInput()
 * call per file.  Every input is read into a heap block of exactly its
 * size, so a sanitizer build reports any read past its end.  A crash,
 * sanitizer report or FUZZ_CHECK failure aborts; an unreadable path, an
 * input over REPLAY_MAX_INPUT or no input at all exits 1; otherwise 0.
 *
 * Linked with any fuzz_<target>.c this makes the target an ordinary
 * program for make check (gcc or clang, with or without sanitizers).
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT	(16 * 1024 * 1024)	/* bytes per file */
#define REPLAY_MAX_PATH		4096

/* Targets need not define it; libFuzzer's own driver treats it the same. */
int	LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long replay_count;

/* replay_file - read one file whole and run the target on it */
static int
replay_file(const char *path)
{
	struct stat st;
	uint8_t	*data;
	size_t	 got = 0;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY)) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > REPLAY_MAX_INPUT) {
		fprintf(stderr, "replay: %s: not a regular file of at most "
		    "%d bytes\n", path, REPLAY_MAX_INPUT);
		close(fd);
		return (-1);
	}
	/* exactly st_size bytes: no slack for an overread to hide in */
	if ((data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1)) == NULL) {
		fprintf(stderr, "replay: out of memory\n");
		close(fd);
		return (-1);
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, data + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "replay: %s: short read\n", path);
			free(data);
			close(fd);
			return (-1);
		}
		got += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(data, got);
	free(data);
	replay_count++;
	return (0);
}

/* replay_name_cmp - qsort order of directory entries */
static int
replay_name_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* replay_dir - run every regular file of a directory, in name order */
static int
replay_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	char	**names = NULL, **grown, path[REPLAY_MAX_PATH];
	size_t	 n = 0, cap = 0, i;
	int	 rc = 0, len;
	DIR	*d;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return (-1);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((grown = realloc(names, cap * sizeof(*names))) ==
			    NULL) {
				fprintf(stderr, "replay: out of memory\n");
				rc = -1;
				break;
			}
			names = grown;
		}
		if ((names[n] = strdup(de->d_name)) == NULL) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), replay_name_cmp);
	for (i = 0; i < n; i++) {
		len = snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (len < 0 || (size_t)len >= sizeof(path)) {
			fprintf(stderr, "replay: %s/%s: path too long\n", dir,
			    names[i]);
			rc = -1;
		} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			;	/* libFuzzer corpora are flat */
		else if (replay_file(path) == -1)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return (rc);
}

int
main(int argc, char **argv)
{
	struct stat st;
	int	 i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s file-or-directory...\n", argv[0]);
		return (1);
	}
	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i]) == -1)
				rc = 1;
		} else if (replay_file(argv[i]) == -1)
			rc = 1;
	}
	if (replay_count == 0) {
		fprintf(stderr, "replay: no inputs\n");
		rc = 1;
	}
	fprintf(stderr, "replay: %lu inputs\n", replay_count);
	return (rc);
}
