/*
 * cache_recover.c - a damaged cache environment: found at open, moved aside
 *
 * Interface (cache_int.h, for cache.c): the checks that cache_open() runs
 * on what it opens - cache_recover_check_size, cache_recover_probe, and
 * for a reader cache_recover_lock_id with cache_recover_same_files - and
 * cache_recover_damaged, which says which failures are damage;
 * cache_recover_move_aside, which the writer's cache_open_recover() calls
 * before it creates a fresh environment.  It works on LMDB's environment
 * and the files, never on a cache handle.
 *
 * Damage is: MDB_INVALID (not an LMDB file), MDB_VERSION_MISMATCH (a newer
 * format), MDB_CORRUPTED or MDB_PAGE_NOTFOUND on the walk to the first and
 * the last key, and a data.mdb shorter than the last page its meta page
 * names (reading there would be SIGBUS).  An empty data.mdb is a new
 * environment to LMDB, and a garbage lock.mdb is re-initialized by the
 * first process that opens it: neither is damage.  Damage deep inside the
 * tree is not looked for at open (that would be a walk of the whole file);
 * LMDB returns MDB_CORRUPTED for the lookups that meet it.
 *
 * Recovery.  Only the writer (the resolver) moves files: readers that meet
 * a damaged environment fail to open it and retry later, and
 * cache_recover_same_files() stops a reader from pairing the old lock file
 * with the new data file while the move happens.  The damaged directory is
 * renamed to "<path>.corrupt-<UTC time>" next to it and a fresh one is
 * created; if the parent directory is not writable, its two files move
 * into "<path>/corrupt-<UTC time>/" instead.  Nothing is deleted: the copy
 * is for the operator to inspect or remove.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <lmdb.h>

#include "lib/cache_int.h"
#include "lib/clock.h"

#define CACHE_STAMP_MAX		32	/* "20261203T180000Z" + "-9" */
#define CACHE_ASIDE_TRIES	10	/* names tried for the damaged copy */

int
cache_recover_damaged(int rc)
{
	return (rc == MDB_INVALID || rc == MDB_CORRUPTED ||
	    rc == MDB_PAGE_NOTFOUND || rc == MDB_VERSION_MISMATCH ||
	    rc == CACHE_RECOVER_TRUNCATED);
}

const char *
cache_recover_strerror(int rc)
{
	switch (rc) {
	case MDB_INVALID:
		return ("MDB_INVALID: not an LMDB file");
	case CACHE_RECOVER_TRUNCATED:
		return ("data.mdb is shorter than its last page");
	case CACHE_RECOVER_MOVED:
		return ("moved while opening");
	}
	return (mdb_strerror(rc));
}

/* cache_file_id - stat path/name into *st: 0, or -1 */
static int
cache_file_id(const char *path, const char *name, struct stat *st)
{
	char	 file[CACHE_PATH_MAX];
	int	 n;

	n = snprintf(file, sizeof(file), "%s/%s", path, name);
	if (n < 0 || (size_t)n >= sizeof(file))
		return (-1);
	return (stat(file, st));
}

void
cache_recover_lock_id(const char *path, struct stat *lock0)
{
	if (cache_file_id(path, "lock.mdb", lock0) == -1)
		memset(lock0, 0, sizeof(*lock0));
}

int
cache_recover_same_files(MDB_env *env, const char *path,
    const struct stat *lock0)
{
	struct stat	 a, b;
	int		 fd;

	if (lock0->st_ino != 0 && (cache_file_id(path, "lock.mdb", &a) ==
	    -1 || a.st_dev != lock0->st_dev || a.st_ino != lock0->st_ino))
		return (CACHE_RECOVER_MOVED);
	if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &a) == -1 ||
	    cache_file_id(path, "data.mdb", &b) == -1 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return (CACHE_RECOVER_MOVED);
	return (0);
}

int
cache_recover_check_size(MDB_env *env)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	struct stat	 st;
	int		 fd, rc;

	if ((rc = mdb_env_info(env, &info)) != 0 ||
	    (rc = mdb_env_stat(env, &ms)) != 0)
		return (rc);
	if ((rc = mdb_env_get_fd(env, &fd)) != 0)
		return (rc);
	if (fstat(fd, &st) == -1)
		return (errno);
	if ((uint64_t)st.st_size <
	    ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize)
		return (CACHE_RECOVER_TRUNCATED);
	return (0);
}

int
cache_recover_probe(MDB_txn *txn, MDB_dbi dbi)
{
	MDB_cursor	*cur;
	MDB_val		 k, v;
	int		 rc;

	if ((rc = mdb_cursor_open(txn, dbi, &cur)) != 0)
		return (rc);
	rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	if (rc == 0)
		rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	mdb_cursor_close(cur);
	return (rc == MDB_NOTFOUND ? 0 : rc);
}

/* cache_stamp - "YYYYMMDDTHHMMSSZ" of now (a name only, not a freshness
 * decision), "-N" appended for try N > 0 */
static void
cache_stamp(char *out, size_t outsz, int try)
{
	struct tm	 tm;
	time_t		 now = clock_wall();
	size_t		 n;

	if (gmtime_r(&now, &tm) == NULL ||
	    (n = strftime(out, outsz, "%Y%m%dT%H%M%SZ", &tm)) == 0) {
		(void)snprintf(out, outsz, "%lld", (long long)now);
		n = strlen(out);
	}
	if (try > 0)
		(void)snprintf(out + n, outsz - n, "-%d", try);
}

int
cache_recover_move_aside(const char *path, char *aside, size_t asidesz,
    char *err, size_t errsz)
{
	static const char *const files[] = { "data.mdb", "lock.mdb" };
	struct stat	 st;
	char		 dir[CACHE_PATH_MAX], stamp[CACHE_STAMP_MAX];
	char		 from[CACHE_PATH_MAX], to[CACHE_PATH_MAX];
	size_t		 len, i;
	int		 n, try, saved;

	len = strnlen(path, sizeof(dir));
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof(dir)) {
		(void)snprintf(err, errsz, "cache %s: path too long", path);
		return (-1);
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	saved = 0;
	for (try = 0; try < CACHE_ASIDE_TRIES; try++) {
		cache_stamp(stamp, sizeof(stamp), try);
		n = snprintf(aside, asidesz, "%s.corrupt-%s", dir, stamp);
		if (n < 0 || (size_t)n >= asidesz)
			break;
		if (lstat(aside, &st) == 0)
			continue;
		if (rename(dir, aside) == 0)
			return (0);
		saved = errno;
		break;
	}
	/* The parent is not ours (or a mount point): move the files into a
	 * subdirectory instead. */
	for (try = 0; try < CACHE_ASIDE_TRIES; try++) {
		cache_stamp(stamp, sizeof(stamp), try);
		n = snprintf(aside, asidesz, "%s/corrupt-%s", dir, stamp);
		if (n < 0 || (size_t)n >= asidesz)
			break;
		if (mkdir(aside, CACHE_DIR_MODE) == -1) {
			if (errno == EEXIST)
				continue;
			break;
		}
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			if (snprintf(from, sizeof(from), "%s/%s", dir,
			    files[i]) >= (int)sizeof(from) ||
			    snprintf(to, sizeof(to), "%s/%s", aside,
			    files[i]) >= (int)sizeof(to))
				goto fail;
			if (rename(from, to) == -1 && errno != ENOENT)
				goto fail;
		}
		return (0);
	}
fail:
	(void)snprintf(err, errsz, "cache %s: damaged, and moving it aside "
	    "failed: %s", path, strerror(errno != 0 ? errno : saved));
	return (-1);
}
