/*
 * cache.c - the persistent policy cache on LMDB
 *
 * Interface in cache.h: cache_open/cache_close, the hot-path read cache_get,
 * cache_hold/cache_release (one snapshot for several reads),
 * writes (cache_put, cache_del, cache_purge_all, batches with
 * cache_txn_begin/commit/abort), cache_iterate, cache_stats,
 * cache_reader_check, cache_unmap_pages, and the writer's
 * cache_open_recover (a damaged environment moved aside).  The cache's
 * other files share cache_int.h: below this one cache_recover.c (what
 * counts as damage at open, and the move aside; it knows no handle), above
 * it cache_evict.c (eviction: cache_evict) and on top cache_put_room.c
 * (cache_put_room, cache_put_room_many: writes that make room first).  The
 * record codec and its value format: cache_record.c; the parser of
 * /proc/self/maps: procmaps.c.
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

#include <lmdb.h>

#include "lib/cache.h"
#include "lib/cache_int.h"
#include "lib/log.h"
#include "lib/procmaps.h"
#include "lib/xmalloc.h"

#define CACHE_FILE_MODE		0600

enum cache_op {
	CACHE_OP_PUT,
	CACHE_OP_DEL,
	CACHE_OP_DROP,
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

/* cache_rc_status - the cache_status of a failed LMDB write.  EIO too:
 * LMDB turns a short write (the filesystem filled up in the middle of a
 * commit's pages) into EIO, and a failing disk fails every write as a full
 * one does, so it is the caller's to log rate-limited as well */
static int
cache_rc_status(int rc)
{
	if (rc == MDB_MAP_FULL || rc == ENOSPC || rc == EDQUOT ||
	    rc == EFBIG || rc == EIO)
		return (CACHE_FULL);
	return (CACHE_ERROR);
}

int
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

/* How cache_open_env opens: the writer that repairs (resolver 0), another
 * writer (the other resolvers: never moves files, checks like a reader that
 * the files were not replaced while it opened), a reader. */
#define CACHE_MODE_WRITER	0
#define CACHE_MODE_READER	1
#define CACHE_MODE_COWRITER	2

/* cache_open_env - cache_open(); *rcp gets the LMDB error (or
 * CACHE_RECOVER_TRUNCATED, CACHE_RECOVER_MOVED) of a failure, 0 for
 * others */
static struct cache *
cache_open_env(const char *path, size_t map_size, int mode, char *err,
    size_t errsz, int *rcp)
{
	int		 readonly = mode == CACHE_MODE_READER;
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
	c->writers = 1;
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
	cache_recover_lock_id(path, &lock0);
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
		/* What eviction may grow the map past (cache_evict_grow):
		 * the configured size, the same for every resolver, so that
		 * several writers' growths do not add up. */
		c->map_open = map_size > 0 ? map_size : info.me_mapsize;
		/* A new environment without a configured size: LMDB's
		 * default (1 MiB) holds a few thousand domains only. */
		if (map_size == 0 && info.me_last_txnid == 0 &&
		    info.me_mapsize < CACHE_DEFAULT_MAP_SIZE) {
			if ((rc = mdb_env_set_mapsize(c->env,
			    CACHE_DEFAULT_MAP_SIZE)) != 0)
				goto fail;
			c->map_open = CACHE_DEFAULT_MAP_SIZE;
		}

		/* Slots of killed workers would pin old snapshots. */
		if ((rc = mdb_reader_check(c->env, &dead)) != 0)
			goto fail;
	}
	/* The writer may be moving a damaged environment aside right now:
	 * a reader must not pair the old lock file with the new data file. */
	if (mode != CACHE_MODE_WRITER &&
	    (rc = cache_recover_same_files(c->env, path, &lock0)) != 0)
		goto fail;
	if ((rc = cache_recover_check_size(c->env)) != 0)
		goto fail;
	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0)
		goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &c->dbi)) != 0 ||
	    (rc = cache_recover_probe(txn, c->dbi)) != 0) {
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
	if (cache_recover_damaged(rc))
		cache_errf(err, errsz, "cache %s: damaged (%s)%s", path,
		    cache_recover_strerror(rc), mode != CACHE_MODE_WRITER ?
		    ": waiting for the resolver to replace it" : "");
	else if (rc == CACHE_RECOVER_MOVED)
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

	return (cache_open_env(path, map_size, readonly ? CACHE_MODE_READER :
	    CACHE_MODE_WRITER, err, errsz, &rc));
}

struct cache *
cache_open_cowriter(const char *path, size_t map_size, char *err,
    size_t errsz)
{
	int	 rc;

	return (cache_open_env(path, map_size, CACHE_MODE_COWRITER, err, errsz,
	    &rc));
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
	c = cache_open_env(path, map_size, CACHE_MODE_WRITER, err, errsz, &rc);
	if (c != NULL || !cache_recover_damaged(rc))
		return (c);
	(void)snprintf(why, sizeof(why), "%s", cache_recover_strerror(rc));
	if (cache_recover_move_aside(path, aside, asidesz, err, errsz) == -1) {
		if (asidesz > 0)
			aside[0] = '\0';
		return (NULL);
	}
	log_warnx("cache %s was damaged (%s): moved aside to %s, starting "
	    "with an empty cache (policies are learned again; trust on "
	    "first use starts over)", path, why, aside);
	return (cache_open_env(path, map_size, CACHE_MODE_WRITER, err, errsz,
	    &rc));
}

int
cache_disk_full(const struct cache *c)
{
	return (c != NULL && c->last_rc != 0 && c->last_rc != MDB_MAP_FULL &&
	    cache_rc_status(c->last_rc) == CACHE_FULL);
}

const char *
cache_last_error(const struct cache *c)
{
	return (c == NULL || c->last_rc == 0 ? "none" :
	    mdb_strerror(c->last_rc));
}

void
cache_set_writers(struct cache *c, int n)
{
	if (c != NULL)
		c->writers = n < 1 ? 1 : (size_t)n;
}

uint64_t
cache_read_version(const struct cache *c)
{
	return (c == NULL ? 0 : c->read_version);
}

uint64_t
cache_version(struct cache *c)
{
	MDB_envinfo	 info;

	if (c == NULL || c->env == NULL || mdb_env_info(c->env, &info) != 0)
		return (0);
	return ((uint64_t)info.me_last_txnid);
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
	else if (c->held)
		txn = c->rtxn;
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
	c->read_version = txn == c->rtxn ? (uint64_t)mdb_txn_id(txn) : 0;
	if (txn == c->rtxn && !c->held)
		mdb_txn_reset(c->rtxn);
	return (st);
}

int
cache_hold(struct cache *c)
{
	int	 rc;

	if (c->held || c->wtxn != NULL)
		return (CACHE_OK);
	if ((rc = cache_rtxn_renew(c)) != 0) {
		log_warnx("cache %s: read transaction: %s", c->path,
		    mdb_strerror(rc));
		return (CACHE_ERROR);
	}
	c->held = 1;
	return (CACHE_OK);
}

void
cache_release(struct cache *c)
{
	if (c == NULL || !c->held)
		return;
	c->held = 0;
	if (c->rtxn != NULL)
		mdb_txn_reset(c->rtxn);
}

int
cache_write_failed(struct cache *c, int rc, const char *what)
{
	int	 st;

	st = cache_rc_status(rc);
	c->last_rc = rc;
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
