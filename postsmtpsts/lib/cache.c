/*
 * cache.c - the persistent policy cache on LMDB
 *
 * Interface in cache.h: cache_open/cache_close, the hot-path read cache_get,
 * writes (cache_put, cache_del, cache_purge_all, batches with
 * cache_txn_begin/commit/abort), cache_iterate, cache_stats; the writer's
 * cache_open_recover (a damaged environment moved aside) and cache_put_room
 * / cache_evict (room in a full map), both described near the end.  The
 * record codec and its value format: cache_record.c; the parser of
 * /proc/self/maps lines (cache_unmap_pages): procmaps.c.
 *
 * Environment.  One directory holding data.mdb and lock.mdb (MDB_NOSUBDIR
 * off), only LMDB's unnamed main database; key = normalized domain, value =
 * an encoded record.  Flags and limits, and why:
 *   MDB_NOTLS       a read transaction belongs to its MDB_txn, not to a
 *                   thread: workers run event loops, and a writer may read
 *                   (its reset read txn) while its batch write txn is open.
 *   CACHE_MAX_READERS  a handle holds ONE reader slot for its life (its
 *                   reset read txn, renewed per lookup; plus one during
 *                   cache_iterate), so it is processes that need slots, not
 *                   workers x connections.
 *   MDB_NOMETASYNC  (writer) one fsync per commit instead of two; see below.
 *   no MDB_WRITEMAP pages are written with pwrite(), so a full disk comes
 *                   back as ENOSPC from the commit (CACHE_FULL), never as a
 *                   SIGBUS on a store into a sparse map; reads go on.
 * The map size is the writer's (config cache.max_size); readers adopt it,
 * and re-adopt it when a writer grew it (MDB_MAP_RESIZED).
 *
 * Crash safety.  LMDB is copy-on-write: a write transaction never modifies a
 * page reachable from the last committed root; it writes new pages, then
 * commits by writing the newer of the two meta pages (root + txn id).  On
 * open LMDB takes the valid meta page with the higher txn id.  So kill -9 of
 * the writer at any instant before its meta page write loses exactly the
 * uncommitted transaction, and afterwards the commit is in the kernel and
 * stays.  The writer lock is a robust process-shared mutex: when its holder
 * is killed, the next writer gets EOWNERDEAD and LMDB recovers.  A killed
 * reader leaves a reader slot that pins an old snapshot (the file grows,
 * nothing breaks) until mdb_reader_check() - run when a writer opens and by
 * cache_reader_check() - clears it.  Power loss: data pages are fsynced at
 * commit, the meta page with the next commit (MDB_NOMETASYNC), so a system
 * crash may undo the last commit but never corrupts the file; losing a
 * cache entry only costs a new discovery.
 */
#include "autoconf.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lmdb.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/log.h"
#include "lib/procmaps.h"
#include "lib/xmalloc.h"

#define CACHE_FILE_MODE		0600
#define CACHE_DIR_MODE		0700
#define CACHE_PATH_MAX		4096	/* directory + "/" + file name */
#define CACHE_STAMP_MAX		32	/* "20261203T180000Z" + "-9" */
#define CACHE_ASIDE_TRIES	10	/* names tried for the damaged copy */
/* pseudo LMDB codes of cache_open_env (outside LMDB's and errno's range) */
#define CACHE_RC_TRUNCATED	(-30700)
#define CACHE_RC_MOVED		(-30701)

enum cache_op {
	CACHE_OP_PUT,
	CACHE_OP_DEL,
	CACHE_OP_DROP,
};

struct cache {
	MDB_env		*env;
	MDB_dbi		 dbi;
	MDB_txn		*rtxn;		/* reset read txn, or NULL */
	MDB_txn		*wtxn;		/* open batch; NULL: none, failed */
	int		 batch;		/* a batch is open */
	int		 batch_status;	/* CACHE_OK, or what ended it */
	int		 readonly;
	char		*path;
	unsigned char	 enc[CACHE_RECORD_MAX_LEN];	/* cache_put scratch */
	char		 evict_at[CACHE_KEY_MAX];	/* next eviction walk */
	size_t		 evict_len;
	size_t		 map_open;	/* map size before any eviction grew it */
	unsigned int	 evict_idle;	/* puts before the next early pass */
};

/* cache_errf - format an error message into err[0..errsz) (truncation is
 * acceptable: it is only a message) */
static void __attribute__((format(printf, 3, 4)))
cache_errf(char *err, size_t errsz, const char *fmt, ...)
{
	va_list	 ap;

	if (errsz == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

const char *
cache_status_name(int status)
{
	switch (status) {
	case CACHE_OK:
		return ("ok");
	case CACHE_HIT:
		return ("hit");
	case CACHE_MISS:
		return ("miss");
	case CACHE_FULL:
		return ("full");
	case CACHE_ERROR:
		return ("error");
	}
	return ("?");
}

/* cache_rc_status - the cache_status of a failed LMDB write */
static int
cache_rc_status(int rc)
{
	if (rc == MDB_MAP_FULL || rc == ENOSPC || rc == EDQUOT || rc == EFBIG)
		return (CACHE_FULL);
	return (CACHE_ERROR);
}

/* cache_begin - begin a transaction, adopting the map size once if another
 * process grew it (MDB_MAP_RESIZED) */
static int
cache_begin(struct cache *c, unsigned int flags, MDB_txn **txn)
{
	int	 rc;

	rc = mdb_txn_begin(c->env, NULL, flags, txn);
	if (rc == MDB_MAP_RESIZED && mdb_env_set_mapsize(c->env, 0) == 0)
		rc = mdb_txn_begin(c->env, NULL, flags, txn);
	return (rc);
}

/* cache_rtxn_renew - make the reset read txn current for one lookup */
static int
cache_rtxn_renew(struct cache *c)
{
	int	 rc;

	if (c->rtxn != NULL) {
		rc = mdb_txn_renew(c->rtxn);
		if (rc != MDB_MAP_RESIZED)
			return (rc);
		/* The writer grew the map past ours: re-map, no txn live. */
		mdb_txn_abort(c->rtxn);
		c->rtxn = NULL;
	}
	return (cache_begin(c, MDB_RDONLY, &c->rtxn));
}

/* cache_rc_corrupt - 1 if an open failed because the files are damaged
 * (not for a missing file, a permission or a resource problem) */
static int
cache_rc_corrupt(int rc)
{
	return (rc == MDB_INVALID || rc == MDB_CORRUPTED ||
	    rc == MDB_PAGE_NOTFOUND || rc == MDB_VERSION_MISMATCH ||
	    rc == CACHE_RC_TRUNCATED);
}

/* cache_strerror - LMDB's name for rc, with ours for the pseudo codes */
static const char *
cache_strerror(int rc)
{
	switch (rc) {
	case MDB_INVALID:
		return ("MDB_INVALID: not an LMDB file");
	case CACHE_RC_TRUNCATED:
		return ("data.mdb is shorter than its last page");
	case CACHE_RC_MOVED:
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

/* cache_same_files - 0 if the lock file at path is still lock0 (as seen
 * before the open) and the data file at path is the one c mapped; else
 * CACHE_RC_MOVED (the writer moved a damaged environment aside) */
static int
cache_same_files(struct cache *c, const char *path, const struct stat *lock0)
{
	struct stat	 a, b;
	int		 fd;

	if (lock0->st_ino != 0 && (cache_file_id(path, "lock.mdb", &a) ==
	    -1 || a.st_dev != lock0->st_dev || a.st_ino != lock0->st_ino))
		return (CACHE_RC_MOVED);
	if (mdb_env_get_fd(c->env, &fd) != 0 || fstat(fd, &a) == -1 ||
	    cache_file_id(path, "data.mdb", &b) == -1 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return (CACHE_RC_MOVED);
	return (0);
}

/* cache_check_size - CACHE_RC_TRUNCATED if data.mdb ends before the last
 * page its meta page names (reading there would be SIGBUS), else 0 */
static int
cache_check_size(struct cache *c, const char *path)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	struct stat	 st;
	int		 fd, rc;

	(void)path;
	if ((rc = mdb_env_info(c->env, &info)) != 0 ||
	    (rc = mdb_env_stat(c->env, &ms)) != 0)
		return (rc);
	if ((rc = mdb_env_get_fd(c->env, &fd)) != 0)
		return (rc);
	if (fstat(fd, &st) == -1)
		return (errno);
	if ((uint64_t)st.st_size <
	    ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize)
		return (CACHE_RC_TRUNCATED);
	return (0);
}

/* cache_probe - walk to the first and the last entry: a damaged root or
 * edge page shows at open, not at the first lookup; 0 or the LMDB error */
static int
cache_probe(MDB_txn *txn, MDB_dbi dbi)
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

/* cache_open_env - cache_open(); *rcp gets the LMDB error (or
 * CACHE_RC_TRUNCATED, CACHE_RC_MOVED) of a failure, 0 for others */
static struct cache *
cache_open_env(const char *path, size_t map_size, int readonly, char *err,
    size_t errsz, int *rcp)
{
	struct cache	*c;
	struct stat	 st, lock0;
	MDB_envinfo	 info;
	MDB_txn		*txn;
	unsigned int	 flags;
	int		 rc, dead;

	*rcp = 0;
	if (errsz > 0)
		err[0] = '\0';
	if (!readonly && mkdir(path, CACHE_DIR_MODE) == -1 && errno != EEXIST) {
		cache_errf(err, errsz, "cache %s: mkdir: %s", path,
		    strerror(errno));
		return (NULL);
	}
	if (stat(path, &st) == -1) {
		cache_errf(err, errsz, "cache %s: %s", path, strerror(errno));
		return (NULL);
	}
	if (!S_ISDIR(st.st_mode)) {
		cache_errf(err, errsz, "cache %s: not a directory", path);
		return (NULL);
	}

	c = xcalloc(1, sizeof(*c));
	c->readonly = readonly;
	c->path = xstrdup(path);
	if ((rc = mdb_env_create(&c->env)) != 0) {
		c->env = NULL;
		goto fail;
	}
	if ((rc = mdb_env_set_maxreaders(c->env, CACHE_MAX_READERS)) != 0)
		goto fail;
	if (!readonly && map_size > 0 &&
	    (rc = mdb_env_set_mapsize(c->env, map_size)) != 0)
		goto fail;
	flags = MDB_NOTLS | (readonly ? MDB_RDONLY : MDB_NOMETASYNC);
	if (cache_file_id(path, "lock.mdb", &lock0) == -1)
		memset(&lock0, 0, sizeof(lock0));
	if ((rc = mdb_env_open(c->env, path, flags, CACHE_FILE_MODE)) != 0) {
		if (readonly && rc == ENOENT) {
			cache_errf(err, errsz, "cache %s: no cache there yet "
			    "(the resolver creates it)", path);
			cache_close(c);
			return (NULL);
		}
		goto fail;
	}
	if (!readonly) {
		if ((rc = mdb_env_info(c->env, &info)) != 0)
			goto fail;
		/* A new environment without a configured size: LMDB's
		 * default (1 MiB) holds a few thousand domains only. */
		if (map_size == 0 && info.me_last_txnid == 0 &&
		    info.me_mapsize < CACHE_DEFAULT_MAP_SIZE &&
		    (rc = mdb_env_set_mapsize(c->env,
		    CACHE_DEFAULT_MAP_SIZE)) != 0)
			goto fail;
		/* Slots of killed workers would pin old snapshots. */
		if ((rc = mdb_reader_check(c->env, &dead)) != 0)
			goto fail;
	}
	/* The writer may be moving a damaged environment aside right now:
	 * a reader must not pair the old lock file with the new data file. */
	if (readonly && (rc = cache_same_files(c, path, &lock0)) != 0)
		goto fail;
	if ((rc = cache_check_size(c, path)) != 0)
		goto fail;
	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0)
		goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &c->dbi)) != 0 ||
	    (rc = cache_probe(txn, c->dbi)) != 0) {
		mdb_txn_abort(txn);
		goto fail;
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		goto fail;
	if ((rc = cache_begin(c, MDB_RDONLY, &c->rtxn)) != 0) {
		c->rtxn = NULL;
		goto fail;
	}
	mdb_txn_reset(c->rtxn);
	return (c);

fail:
	*rcp = rc;
	if (cache_rc_corrupt(rc))
		cache_errf(err, errsz, "cache %s: damaged (%s)%s", path,
		    cache_strerror(rc), readonly ? ": waiting for the "
		    "resolver to replace it" : "");
	else if (rc == CACHE_RC_MOVED)
		cache_errf(err, errsz, "cache %s: being replaced, retry",
		    path);
	else
		cache_errf(err, errsz, "cache %s: %s", path,
		    mdb_strerror(rc));
	cache_close(c);
	return (NULL);
}

struct cache *
cache_open(const char *path, size_t map_size, int readonly, char *err,
    size_t errsz)
{
	int	 rc;

	return (cache_open_env(path, map_size, readonly, err, errsz, &rc));
}

void
cache_close(struct cache *c)
{
	if (c == NULL)
		return;
	cache_txn_abort(c);
	if (c->rtxn != NULL)
		mdb_txn_abort(c->rtxn);
	if (c->env != NULL)
		mdb_env_close(c->env);
	free(c->path);
	free(c);
}

int
cache_get(struct cache *c, const char *domain, size_t len,
    struct cache_record *out)
{
	MDB_txn		*txn;
	MDB_val		 k, v;
	enum cache_decode_status ds;
	char		 esc[LOG_ESCAPE_MAX * 4 + 4];
	int		 rc, st;

	if (!cache_key_valid(domain, len)) {
		log_warnx("cache %s: lookup of an unnormalized key \"%s\"",
		    c->path, log_escape(esc, sizeof(esc), domain, len));
		return (CACHE_ERROR);
	}
	if (c->wtxn != NULL)
		txn = c->wtxn;
	else {
		if ((rc = cache_rtxn_renew(c)) != 0) {
			log_warnx("cache %s: read transaction: %s", c->path,
			    mdb_strerror(rc));
			return (CACHE_ERROR);
		}
		txn = c->rtxn;
	}
	k.mv_data = (void *)(uintptr_t)domain;
	k.mv_size = len;
	rc = mdb_get(txn, c->dbi, &k, &v);
	if (rc == 0) {
		ds = cache_record_decode(v.mv_data, v.mv_size, out);
		if (ds == CACHE_DECODE_OK)
			st = CACHE_HIT;
		else {
			/* after a format change every old entry lands here */
			log_debug(1, "domain=%.*s cache=undecodable reason=%s",
			    (int)len, domain, cache_decode_status_name(ds));
			st = CACHE_MISS;
		}
	} else if (rc == MDB_NOTFOUND)
		st = CACHE_MISS;
	else {
		log_warnx("cache %s: read domain=%.*s: %s", c->path, (int)len,
		    domain, mdb_strerror(rc));
		st = CACHE_ERROR;
	}
	if (txn == c->rtxn)
		mdb_txn_reset(c->rtxn);
	return (st);
}

/* cache_write_failed - map a failed LMDB write to a status, log it unless
 * it is CACHE_FULL, end a batch it happened in */
static int
cache_write_failed(struct cache *c, int rc, const char *what)
{
	int	 st;

	st = cache_rc_status(rc);
	if (st != CACHE_FULL)
		log_warnx("cache %s: %s: %s", c->path, what, mdb_strerror(rc));
	if (c->batch) {
		if (c->wtxn != NULL)
			mdb_txn_abort(c->wtxn);
		c->wtxn = NULL;
		c->batch_status = st;
	}
	return (st);
}

/* cache_write - run one write operation, in the batch or in its own txn */
static int
cache_write(struct cache *c, enum cache_op op, MDB_val *k, MDB_val *v,
    const char *what)
{
	MDB_txn	*txn;
	int	 rc, absent = 0;

	if (c->readonly) {
		log_warnx("cache %s: %s on a read-only handle", c->path, what);
		return (CACHE_ERROR);
	}
	if (c->batch) {
		if (c->wtxn == NULL)
			return (c->batch_status);
		txn = c->wtxn;
	} else if ((rc = cache_begin(c, 0, &txn)) != 0)
		return (cache_write_failed(c, rc, what));

	switch (op) {
	case CACHE_OP_PUT:
		rc = mdb_put(txn, c->dbi, k, v, 0);
		break;
	case CACHE_OP_DEL:
		rc = mdb_del(txn, c->dbi, k, NULL);
		if (rc == MDB_NOTFOUND) {
			/* leaves the txn usable */
			absent = 1;
			rc = 0;
		}
		break;
	case CACHE_OP_DROP:
		rc = mdb_drop(txn, c->dbi, 0);
		break;
	}
	if (rc != 0) {
		if (!c->batch)
			mdb_txn_abort(txn);
		return (cache_write_failed(c, rc, what));
	}
	if (!c->batch) {
		if (absent)
			mdb_txn_abort(txn);
		else if ((rc = mdb_txn_commit(txn)) != 0)
			return (cache_write_failed(c, rc, what));
	}
	return (absent ? CACHE_MISS : CACHE_OK);
}

int
cache_unmap_pages(struct cache *c)
{
	struct procmaps_entry e;
	struct stat	 st;
	FILE		*fp;
	char		*line = NULL;
	size_t		 cap = 0;
	ssize_t		 len;
	int		 fd, n = 0;

	/* LMDB does not tell where it mapped the file (me_mapaddr is only
	 * set for MDB_FIXEDMAP), and the map moves when it grows: find it by
	 * the file's device and inode */
	if (c == NULL || mdb_env_get_fd(c->env, &fd) != 0 ||
	    fstat(fd, &st) == -1)
		return (CACHE_ERROR);
	if ((fp = fopen("/proc/self/maps", "re")) == NULL)
		return (CACHE_ERROR);
	while ((len = getline(&line, &cap, fp)) != -1) {
		if (procmaps_parse(line, (size_t)len, &e) == -1 ||
		    e.inode != (unsigned long)st.st_ino ||
		    makedev(e.major, e.minor) != st.st_dev ||
		    e.end <= e.start || e.perms[1] == 'w')
			continue;
		/* a shared, read-only file mapping: the pages stay in the
		 * page cache and fault back in, unchanged, when read again */
		if (madvise((void *)(uintptr_t)e.start, e.end - e.start,
		    MADV_DONTNEED) == 0)
			n++;
	}
	free(line);
	(void)fclose(fp);
	return (n > 0 ? CACHE_OK : CACHE_ERROR);
}

int
cache_put(struct cache *c, const char *domain, const struct cache_record *rec)
{
	MDB_val	 k, v;
	size_t	 len, vlen;
	char	 esc[LOG_ESCAPE_MAX * 4 + 4];

	len = strnlen(domain, CACHE_KEY_MAX + 1);
	if (!cache_key_valid(domain, len)) {
		log_warnx("cache %s: not storing unnormalized key \"%s\"",
		    c->path, log_escape(esc, sizeof(esc), domain, len));
		return (CACHE_ERROR);
	}
	if (cache_record_encode(rec, c->enc, sizeof(c->enc), &vlen) == -1) {
		log_warnx("cache %s: domain=%s: invalid record not stored",
		    c->path, domain);
		return (CACHE_ERROR);
	}
	k.mv_data = (void *)(uintptr_t)domain;
	k.mv_size = len;
	v.mv_data = c->enc;
	v.mv_size = vlen;
	return (cache_write(c, CACHE_OP_PUT, &k, &v, "write"));
}

int
cache_del(struct cache *c, const char *domain)
{
	MDB_val	 k;
	size_t	 len;
	char	 esc[LOG_ESCAPE_MAX * 4 + 4];

	len = strnlen(domain, CACHE_KEY_MAX + 1);
	if (!cache_key_valid(domain, len)) {
		log_warnx("cache %s: not deleting unnormalized key \"%s\"",
		    c->path, log_escape(esc, sizeof(esc), domain, len));
		return (CACHE_ERROR);
	}
	k.mv_data = (void *)(uintptr_t)domain;
	k.mv_size = len;
	return (cache_write(c, CACHE_OP_DEL, &k, NULL, "delete"));
}

int
cache_purge_all(struct cache *c)
{
	return (cache_write(c, CACHE_OP_DROP, NULL, NULL, "purge"));
}

int
cache_txn_begin(struct cache *c)
{
	int	 rc;

	if (c->readonly) {
		log_warnx("cache %s: batch on a read-only handle", c->path);
		return (CACHE_ERROR);
	}
	if (c->batch) {
		log_warnx("cache %s: batch already open", c->path);
		return (CACHE_ERROR);
	}
	if ((rc = cache_begin(c, 0, &c->wtxn)) != 0) {
		c->wtxn = NULL;
		return (cache_write_failed(c, rc, "begin batch"));
	}
	c->batch = 1;
	c->batch_status = CACHE_OK;
	return (CACHE_OK);
}

int
cache_txn_commit(struct cache *c)
{
	MDB_txn	*txn;
	int	 rc;

	if (!c->batch) {
		log_warnx("cache %s: commit without a batch", c->path);
		return (CACHE_ERROR);
	}
	txn = c->wtxn;
	c->wtxn = NULL;
	c->batch = 0;
	if (txn == NULL)
		return (c->batch_status);
	if ((rc = mdb_txn_commit(txn)) != 0)
		return (cache_write_failed(c, rc, "commit batch"));
	return (CACHE_OK);
}

void
cache_txn_abort(struct cache *c)
{
	if (c->wtxn != NULL)
		mdb_txn_abort(c->wtxn);
	c->wtxn = NULL;
	c->batch = 0;
}

int
cache_iterate(struct cache *c, int (*cb)(const char *, size_t,
    const struct cache_record *, void *), void *arg)
{
	return (cache_iterate_from(c, NULL, 0, cb, arg));
}

int
cache_iterate_from(struct cache *c, const char *after, size_t afterlen,
    int (*cb)(const char *, size_t, const struct cache_record *, void *),
    void *arg)
{
	struct cache_record *rec;
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_val		 k, v;
	char		 key[CACHE_KEY_MAX + 1];
	int		 rc, st = CACHE_OK;

	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0) {
		log_warnx("cache %s: read transaction: %s", c->path,
		    mdb_strerror(rc));
		return (CACHE_ERROR);
	}
	if ((rc = mdb_cursor_open(txn, c->dbi, &cur)) != 0) {
		log_warnx("cache %s: cursor: %s", c->path, mdb_strerror(rc));
		mdb_txn_abort(txn);
		return (CACHE_ERROR);
	}
	rec = xcalloc(1, sizeof(*rec));
	if (after != NULL) {
		k.mv_data = (void *)(uintptr_t)after;
		k.mv_size = afterlen;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (rc == 0 && k.mv_size == afterlen &&
		    memcmp(k.mv_data, after, afterlen) == 0)
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
	} else
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (!cache_key_valid(k.mv_data, k.mv_size)) {
			/* not ours: nothing writes such keys */
			log_debug(1, "cache %s: skipping a key of %zu bytes "
			    "that is not a normalized domain", c->path,
			    k.mv_size);
			continue;
		}
		memcpy(key, k.mv_data, k.mv_size);
		key[k.mv_size] = '\0';
		if (cb(key, k.mv_size, cache_record_decode(v.mv_data,
		    v.mv_size, rec) == CACHE_DECODE_OK ? rec : NULL, arg) != 0)
			break;
	}
	if (rc != 0 && rc != MDB_NOTFOUND) {
		log_warnx("cache %s: walk: %s", c->path, mdb_strerror(rc));
		st = CACHE_ERROR;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	cache_record_release(rec);
	free(rec);
	return (st);
}

int
cache_stats(struct cache *c, struct cache_stats *st)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	int		 rc;

	memset(st, 0, sizeof(*st));
	if ((rc = mdb_env_info(c->env, &info)) != 0 ||
	    (rc = mdb_env_stat(c->env, &ms)) != 0) {
		log_warnx("cache %s: stat: %s", c->path, mdb_strerror(rc));
		return (CACHE_ERROR);
	}
	st->entries = ms.ms_entries;
	st->page_size = ms.ms_psize;
	st->depth = ms.ms_depth;
	st->map_size = info.me_mapsize;
	st->pages_used = info.me_last_pgno + 1;
	st->pages_max = ms.ms_psize ? info.me_mapsize / ms.ms_psize : 0;
	st->readers_max = info.me_maxreaders;
	st->readers_used = info.me_numreaders;
	st->last_txnid = info.me_last_txnid;
	return (CACHE_OK);
}

int
cache_reader_check(struct cache *c, int *dead)
{
	int	 rc, n = 0;

	if ((rc = mdb_reader_check(c->env, &n)) != 0) {
		log_warnx("cache %s: reader check: %s", c->path,
		    mdb_strerror(rc));
		return (CACHE_ERROR);
	}
	if (dead != NULL)
		*dead = n;
	return (CACHE_OK);
}

/*
 * Recovery from a damaged environment (cache_open_recover).  Only the
 * writer (the resolver) moves files: readers that meet a damaged
 * environment fail to open it and retry later, and cache_same_files()
 * stops a reader from pairing the old lock file with the new data file
 * while the move happens.  The damaged directory is renamed to
 * "<path>.corrupt-<UTC time>" next to it and a fresh one is created; if the
 * parent directory is not writable, its two files move into
 * "<path>/corrupt-<UTC time>/" instead.  Nothing is deleted: the copy is
 * for the operator to inspect or remove.
 */

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

/* cache_move_aside - move the environment in path out of the way; the new
 * place into aside[0..asidesz): 0, or -1 with err set */
static int
cache_move_aside(const char *path, char *aside, size_t asidesz, char *err,
    size_t errsz)
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
		cache_errf(err, errsz, "cache %s: path too long", path);
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
	cache_errf(err, errsz, "cache %s: damaged, and moving it aside failed: "
	    "%s", path, strerror(errno != 0 ? errno : saved));
	return (-1);
}

struct cache *
cache_open_recover(const char *path, size_t map_size, char *aside,
    size_t asidesz, char *err, size_t errsz)
{
	struct cache	*c;
	char		 why[CACHE_PATH_MAX / 4];
	int		 rc;

	if (asidesz > 0)
		aside[0] = '\0';
	c = cache_open_env(path, map_size, 0, err, errsz, &rc);
	if (c != NULL || !cache_rc_corrupt(rc))
		return (c);
	(void)snprintf(why, sizeof(why), "%s", cache_strerror(rc));
	if (cache_move_aside(path, aside, asidesz, err, errsz) == -1) {
		if (asidesz > 0)
			aside[0] = '\0';
		return (NULL);
	}
	log_warnx("cache %s was damaged (%s): moved aside to %s, starting "
	    "with an empty cache (policies are learned again; trust on "
	    "first use starts over)", path, why, aside);
	return (cache_open_env(path, map_size, 0, err, errsz, &rc));
}

/*
 * Eviction (cache_evict, cache_put_room).  A map at cache.max_size fails
 * every write (MDB_MAP_FULL, after which LMDB allows only an abort of the
 * transaction); LMDB never drops anything by itself.  One eviction pass
 * deletes up to CACHE_EVICT_BATCH entries in this order of classes:
 *   negative  no-policy entries (kind none, DANE entries whose state is 0 =
 *             DANE_NONE "no DANE") and values that do not decode: what a
 *             flood of lookups for random non-existent names creates;
 *   expired   any other entry past expires_at;
 *   other     unexpired testing-mode policies, cached DANE failures;
 *   keep      unexpired enforce policies and usable DANE: evicted only when
 *             a walk of the whole cache found nothing else (logged).
 * Negative and expired entries go as a run of neighbouring keys from a
 * rotating cursor: LMDB frees a page only when it empties (or merges below
 * a quarter full), so scattered deletions make no page free, a run does.
 * The others go least recently fetched first.  The walk examines
 * CACHE_EVICT_SCAN entries at least (all of them in a small cache) and
 * stops after such a window once it holds a full batch of non-"keep"
 * victims, so a pass costs about the same in a map of millions.
 *
 * Deleting needs pages too (copy-on-write of every page it touches), and a
 * map that just failed a put has hardly any: so cache_put_room() evicts
 * negative and expired entries AHEAD of time, when fewer than
 * CACHE_EVICT_RESERVE pages are left (beyond the last used page, or on
 * LMDB's free list), and the deletions run in small transactions of
 * CACHE_EVICT_CHUNK neighbouring keys (a page freed by commit N is reusable
 * from commit N + 2 on).  If not even one deletion fits, the map grows by
 * CACHE_EVICT_GROW_PAGES, at most 1/64 of its size (CACHE_EVICT_GROW_MAX
 * pages at least) over the size at open.  Pages freed by evictions are
 * reused by later write transactions within the same map size (the file
 * never shrinks; mdb_env_set_mapsize() cannot go below the last used page).
 */
#define CACHE_EVICT_SCAN	16384
#define CACHE_EVICT_NEAR	32	/* neighbours looked at on each side */
#define CACHE_EVICT_CHUNK	8	/* deletions per write transaction */
#define CACHE_EVICT_RESERVE	16	/* pages: evict ahead below this */
#define CACHE_EVICT_IDLE_PUTS	64	/* after an early pass found nothing */
#define CACHE_EVICT_GROW_PAGES	4	/* map growth when eviction is stuck */
#define CACHE_EVICT_GROW_MAX	16	/* pages; or 1/64 of the map */
#define CACHE_DANE_STATE_NONE	0	/* DANE_NONE in policy/dane.h */

struct cache_victim {
	int	 cls;
	int64_t	 when;
	size_t	 len;
	char	 key[CACHE_KEY_MAX];
};

/* cache_evict_class - the class of one entry (enum cache_evict_class) */
static int
cache_evict_class(const MDB_val *v, struct cache_record *rec, int64_t now)
{
	if (cache_record_decode(v->mv_data, v->mv_size, rec) !=
	    CACHE_DECODE_OK) {
		rec->fetched_at = INT64_MIN;	/* first of all */
		return (CACHE_EVICT_NEGATIVE);
	}
	if (rec->kind == CACHE_KIND_NONE ||
	    (rec->kind == CACHE_KIND_DANE &&
	    rec->dane == CACHE_DANE_STATE_NONE))
		return (CACHE_EVICT_NEGATIVE);
	if (!cache_record_fresh(rec, now))
		return (CACHE_EVICT_EXPIRED);
	if ((rec->kind == CACHE_KIND_STS &&
	    rec->sts_mode == CACHE_STS_ENFORCE) ||
	    rec->kind == CACHE_KIND_DANE)
		/* DANE: not none and not a failure (checked below) */
		return (rec->kind == CACHE_KIND_DANE &&
		    rec->dane > 2 ? CACHE_EVICT_OTHER : CACHE_EVICT_KEEP);
	return (CACHE_EVICT_OTHER);
}

/* cache_victim_worse - 1 if a should be evicted after b */
static int
cache_victim_worse(const struct cache_victim *a, const struct cache_victim *b)
{
	if (a->cls != b->cls)
		return (a->cls > b->cls);
	return (a->when > b->when);
}

/* cache_evict_offer - keep the entry if it is among the batch's best
 * victims so far; vic[0..*n) with *n <= max */
static void
cache_evict_offer(struct cache_victim *vic, size_t *n, size_t max, int cls,
    int64_t when, const MDB_val *k)
{
	struct cache_victim *slot;
	size_t		 i, worst;

	if (k->mv_size > CACHE_KEY_MAX)
		return;
	if (*n < max)
		slot = &vic[(*n)++];
	else {
		for (worst = 0, i = 1; i < *n; i++)
			if (cache_victim_worse(&vic[i], &vic[worst]))
				worst = i;
		slot = &vic[worst];
		if (cls > slot->cls || (cls == slot->cls && when >= slot->when))
			return;
	}
	slot->cls = cls;
	slot->when = when;
	slot->len = k->mv_size;
	memcpy(slot->key, k->mv_data, k->mv_size);
}

/* cache_evict_enough - 1 if vic holds a full batch of non-"keep" victims */
static int
cache_evict_enough(const struct cache_victim *vic, size_t n)
{
	size_t	 i;

	if (n < CACHE_EVICT_BATCH - 1)
		return (0);
	for (i = 0; i < n; i++)
		if (vic[i].cls == CACHE_EVICT_KEEP)
			return (0);
	return (1);
}

/* cache_victim_cmp - qsort: key order */
static int
cache_victim_cmp(const void *a, const void *b)
{
	const struct cache_victim *x = a, *y = b;
	int	 d;

	d = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);
	if (d != 0)
		return (d);
	return (x->len < y->len ? -1 : x->len > y->len);
}

/* cache_evict_walk - choose the victims in a read snapshot: the batch's
 * best into vic[0..*n); near (may be NULL): also the best non-"keep" entry
 * among the CACHE_EVICT_NEAR keys on either side of it, which is on (or
 * next to) the page the new key goes to */
static int
cache_evict_walk(struct cache *c, int64_t now, const MDB_val *near,
    int maxcls, struct cache_victim *vic, size_t *n, struct cache_record *rec)
{
	struct cache_victim best;
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_stat	 ms;
	MDB_val		 k, v;
	size_t		 scanned = 0, m;
	int		 rc, cls, i;

	*n = 0;
	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0)
		return (rc);
	if ((rc = mdb_stat(txn, c->dbi, &ms)) != 0 ||
	    (rc = mdb_cursor_open(txn, c->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		return (rc);
	}
	/* from where the last pass stopped, around the key space once */
	if (c->evict_len > 0) {
		k.mv_data = c->evict_at;
		k.mv_size = c->evict_len;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	} else
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	while (rc == 0 && scanned < ms.ms_entries) {
		cls = cache_evict_class(&v, rec, now);
		/* negative and expired entries: a run of neighbouring keys
		 * from the cursor on (it empties whole pages); the others:
		 * the least recently fetched first */
		if (cls <= maxcls)
			cache_evict_offer(vic, n, CACHE_EVICT_BATCH - 1, cls,
			    cls <= CACHE_EVICT_EXPIRED ? (int64_t)scanned :
			    rec->fetched_at, &k);
		scanned++;
		if (scanned % CACHE_EVICT_SCAN == 0 &&
		    (cache_evict_enough(vic, *n) ||
		    maxcls < CACHE_EVICT_KEEP))
			break;	/* enough, or ahead of time: one window */
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		if (rc == MDB_NOTFOUND)
			rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	}
	if (rc == 0 && k.mv_size <= sizeof(c->evict_at)) {
		memcpy(c->evict_at, k.mv_data, k.mv_size);
		c->evict_len = k.mv_size;
	}
	/* the next pass goes on after the last run */
	for (m = 0, i = -1; m < *n; m++)
		if (vic[m].cls <= CACHE_EVICT_EXPIRED &&
		    (i == -1 || vic[m].when > vic[i].when))
			i = (int)m;
	if (i != -1) {
		memcpy(c->evict_at, vic[i].key, vic[i].len);
		c->evict_len = vic[i].len;
	}
	if (rc == MDB_NOTFOUND)
		rc = 0;

	/* the neighbours of the new key */
	if (rc == 0 && near != NULL) {
		m = 0;
		for (i = 0; i < 2 && rc == 0; i++) {
			k = *near;
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
			for (scanned = 0; rc == 0 &&
			    scanned < CACHE_EVICT_NEAR; scanned++) {
				cls = cache_evict_class(&v, rec, now);
				if (cls != CACHE_EVICT_KEEP)
					cache_evict_offer(&best, &m, 1, cls,
					    rec->fetched_at, &k);
				rc = mdb_cursor_get(cur, &k, &v,
				    i == 0 ? MDB_NEXT : MDB_PREV);
			}
			if (rc == MDB_NOTFOUND)
				rc = 0;
		}
		if (m == 1) {
			for (i = 0; (size_t)i < *n; i++)
				if (vic[i].len == best.len && memcmp(
				    vic[i].key, best.key, best.len) == 0)
					break;
			if ((size_t)i == *n)
				vic[(*n)++] = best;
		}
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return (rc);
}

/* cache_evict_chunk - delete vic[0..n) in one write transaction; counts
 * into *es; 0 or the LMDB error (the txn is aborted) */
static int
cache_evict_chunk(struct cache *c, const struct cache_victim *vic, size_t n,
    struct cache_evict_stats *es)
{
	struct cache_evict_stats part;
	MDB_txn		*txn;
	MDB_val		 k;
	size_t		 i;
	int		 rc;

	memset(&part, 0, sizeof(part));
	if ((rc = cache_begin(c, 0, &txn)) != 0)
		return (rc);
	for (i = 0; i < n; i++) {
		k.mv_data = (void *)(uintptr_t)vic[i].key;
		k.mv_size = vic[i].len;
		rc = mdb_del(txn, c->dbi, &k, NULL);
		if (rc == MDB_NOTFOUND)
			continue;
		if (rc != 0) {
			/* after MDB_MAP_FULL the txn can only be aborted */
			mdb_txn_abort(txn);
			return (rc);
		}
		part.evicted[vic[i].cls]++;
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		return (rc);
	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		es->evicted[i] += part.evicted[i];
	return (0);
}

/* cache_evict_grow - when not even one deletion fits: grow the map by
 * CACHE_EVICT_GROW_PAGES, at most CACHE_EVICT_GROW_MAX (or 1/64 of the
 * map, if more) past the size the handle opened with; 0, or -1 (at the
 * limit, or LMDB refused) */
static int
cache_evict_grow(struct cache *c)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	size_t		 step, limit;

	if (mdb_env_info(c->env, &info) != 0 ||
	    mdb_env_stat(c->env, &ms) != 0)
		return (-1);
	if (c->map_open == 0)
		c->map_open = info.me_mapsize;
	step = (size_t)CACHE_EVICT_GROW_PAGES * ms.ms_psize;
	limit = c->map_open / 64;
	if (limit < (size_t)CACHE_EVICT_GROW_MAX * ms.ms_psize)
		limit = (size_t)CACHE_EVICT_GROW_MAX * ms.ms_psize;
	if (info.me_mapsize + step > c->map_open + limit)
		return (-1);
	if (mdb_env_set_mapsize(c->env, info.me_mapsize + step) != 0)
		return (-1);
	log_debug(1, "cache %s: map grown to %zu bytes so that eviction can "
	    "run", c->path, info.me_mapsize + step);
	return (0);
}

/* cache_room_low - 1 if fewer than CACHE_EVICT_RESERVE pages are left:
 * never used past the end of the data, or on LMDB's free list (some of
 * those wait for a reader or the next commit: an estimate) */
static int
cache_room_low(struct cache *c)
{
	MDB_envinfo	 info;
	MDB_stat	 ms;
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_val		 k, v;
	size_t		 pages_max, left, ids;
	int		 rc;

	if (mdb_env_info(c->env, &info) != 0 ||
	    mdb_env_stat(c->env, &ms) != 0 || ms.ms_psize == 0)
		return (0);
	pages_max = info.me_mapsize / ms.ms_psize;
	left = pages_max > info.me_last_pgno + 1 ?
	    pages_max - info.me_last_pgno - 1 : 0;
	if (left >= CACHE_EVICT_RESERVE)
		return (0);
	/* the free list (FREE_DBI = 0): values are page-number lists, the
	 * first word their count */
	if (cache_begin(c, MDB_RDONLY, &txn) != 0)
		return (0);
	if (mdb_cursor_open(txn, 0, &cur) != 0) {
		mdb_txn_abort(txn);
		return (0);
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	    rc == 0 && left < CACHE_EVICT_RESERVE;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (v.mv_size >= sizeof(ids)) {
			memcpy(&ids, v.mv_data, sizeof(ids));
			left += ids;
		}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	return (left < CACHE_EVICT_RESERVE);
}

/* cache_evict_key - cache_evict(), near: the key about to be written */
static int
cache_evict_key(struct cache *c, int64_t now, const MDB_val *near,
    int maxcls, struct cache_evict_stats *es)
{
	struct cache_victim *vic;
	struct cache_record *rec;
	size_t		 n, i, j, chunk, nkeep = 0;
	int		 rc, others = 0, st = CACHE_OK;

	memset(es, 0, sizeof(*es));
	if (c->readonly || c->batch) {
		log_warnx("cache %s: eviction on a read-only handle or inside "
		    "a batch", c->path);
		return (CACHE_ERROR);
	}
	vic = xcalloc(CACHE_EVICT_BATCH, sizeof(*vic));
	rec = xcalloc(1, sizeof(*rec));
	if ((rc = cache_evict_walk(c, now, near, maxcls, vic, &n,
	    rec)) != 0) {
		st = cache_write_failed(c, rc, "evict walk");
		goto done;
	}
	/* "keep" entries only if nothing else is left */
	for (i = 0; i < n; i++)
		if (vic[i].cls != CACHE_EVICT_KEEP)
			others = 1;
	for (i = j = 0; i < n; i++)
		if (!others || vic[i].cls != CACHE_EVICT_KEEP)
			vic[j++] = vic[i];
	n = j;
	/* Small transactions of neighbouring keys: a full map has few free
	 * pages, and each transaction copies every page it touches (the
	 * copies come back free two commits later).  One key at a time if
	 * even a small chunk does not fit. */
	qsort(vic, n, sizeof(*vic), cache_victim_cmp);
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < CACHE_EVICT_CHUNK ? n - i : CACHE_EVICT_CHUNK;
		rc = cache_evict_chunk(c, vic + i, chunk, es);
		if (rc == MDB_MAP_FULL && chunk > 1) {
			chunk = 1;
			rc = cache_evict_chunk(c, vic + i, chunk, es);
		}
		if (rc == MDB_MAP_FULL && cache_evict_grow(c) == 0)
			rc = cache_evict_chunk(c, vic + i, chunk, es);
		if (rc != 0) {
			st = cache_write_failed(c, rc, "evict");
			break;
		}
	}
	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		if (es->evicted[i] > 0 && st != CACHE_OK)
			st = CACHE_OK;	/* some room was made */
	nkeep = es->evicted[CACHE_EVICT_KEEP];
	if (nkeep > 0)
		log_warnx("cache %s: full of unexpired enforce and DANE "
		    "policies: evicted %zu of them (least recently fetched "
		    "first); raise cache.max_size", c->path, nkeep);
done:
	cache_record_release(rec);
	free(rec);
	free(vic);
	return (st);
}

int
cache_evict(struct cache *c, int64_t now, struct cache_evict_stats *es)
{
	return (cache_evict_key(c, now, NULL, CACHE_EVICT_KEEP, es));
}

/* cache_evict_early - ahead of time, while deleting still has pages to
 * work with: only what makes room for sure (runs of neighbouring keys
 * around k); *es gets what was evicted */
static void
cache_evict_early(struct cache *c, MDB_val *k, int64_t now,
    struct cache_evict_stats *es)
{
	if (c->evict_idle > 0)
		c->evict_idle--;
	else if (!c->batch && !c->readonly && cache_room_low(c)) {
		if (cache_evict_key(c, now, k, CACHE_EVICT_EXPIRED, es) !=
		    CACHE_OK)
			memset(es, 0, sizeof(*es));
		/* nothing negative or expired in reach: do not walk again
		 * for every put */
		if (es->evicted[CACHE_EVICT_NEGATIVE] +
		    es->evicted[CACHE_EVICT_EXPIRED] == 0)
			c->evict_idle = CACHE_EVICT_IDLE_PUTS;
	}
}

/* cache_es_add - add the counts of b to a */
static void
cache_es_add(struct cache_evict_stats *a, const struct cache_evict_stats *b)
{
	size_t	 i;

	for (i = 0; i < CACHE_EVICT_CLASSES; i++)
		a->evicted[i] += b->evicted[i];
}

int
cache_put_room(struct cache *c, const char *domain,
    const struct cache_record *rec, int64_t now, struct cache_evict_stats *es)
{
	struct cache_evict_stats more;
	MDB_val	 k;
	int	 st;

	memset(es, 0, sizeof(*es));
	k.mv_data = (void *)(uintptr_t)domain;
	k.mv_size = strlen(domain);
	cache_evict_early(c, &k, now, es);
	st = cache_put(c, domain, rec);
	if (st != CACHE_FULL || c->batch)
		return (st);
	if (cache_evict_key(c, now, &k, CACHE_EVICT_KEEP, &more) != CACHE_OK)
		return (CACHE_FULL);
	cache_es_add(es, &more);
	st = cache_put(c, domain, rec);
	return (st);
}

int
cache_put_room_many(struct cache *c, const char *const *keys,
    const struct cache_record *const *recs, size_t n, int64_t now,
    struct cache_evict_stats *es, int *st)
{
	struct cache_evict_stats part;
	MDB_val	 k;
	size_t	 i;
	int	 ret;

	memset(es, 0, sizeof(*es));
	for (i = 0; i < n; i++)
		st[i] = CACHE_FULL;	/* not written yet */
	if (n > 1 && n <= CACHE_PUT_MANY && !c->batch && !c->readonly) {
		/* eviction ahead of time near every key, as cache_put_room
		 * does for one: inside the batch nothing can be evicted */
		for (i = 0; i < n; i++) {
			k.mv_data = (void *)(uintptr_t)keys[i];
			k.mv_size = strlen(keys[i]);
			memset(&part, 0, sizeof(part));
			cache_evict_early(c, &k, now, &part);
			cache_es_add(es, &part);
		}
		if (cache_txn_begin(c) == CACHE_OK) {
			for (i = 0; i < n; i++)
				if ((st[i] = cache_put(c, keys[i],
				    recs[i])) == CACHE_FULL)
					break;	/* the batch is over */
			ret = cache_txn_commit(c);
			/* a full map: every valid record again below, one
			 * by one; any other failure is every record's */
			for (i = 0; i < n; i++)
				if (ret == CACHE_FULL && st[i] != CACHE_ERROR)
					st[i] = CACHE_FULL;
				else if (ret != CACHE_OK && st[i] == CACHE_OK)
					st[i] = ret;
		}
	}
	/* one by one, each with cache_put_room's eviction: a single record,
	 * or what a full map refused */
	for (i = 0; i < n; i++) {
		if (st[i] != CACHE_FULL)
			continue;
		st[i] = cache_put_room(c, keys[i], recs[i], now, &part);
		cache_es_add(es, &part);
	}
	ret = CACHE_OK;
	for (i = 0; i < n; i++)
		if (st[i] != CACHE_OK && ret == CACHE_OK)
			ret = st[i];
	return (ret);
}
