/*
 * cache.c - the persistent policy cache on LMDB
 *
 * Interface in cache.h: cache_open/cache_close, the hot-path read cache_get,
 * writes (cache_put, cache_del, cache_purge_all, batches with
 * cache_txn_begin/commit/abort), cache_iterate, cache_stats, and the pure
 * record codec cache_record_encode/cache_record_decode.
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
 *
 * Value format, version 1.  Integers little-endian; strings length-prefixed
 * (never NUL-terminated); every length checked before it is used:
 *   off len
 *     0   1  magic CACHE_RECORD_MAGIC (0xca)
 *     1   1  version CACHE_RECORD_VERSION (1)
 *     2   1  kind: 1 none, 2 sts, 3 dane
 *     3   1  sts_mode: 0 none, 1 testing, 2 enforce
 *     4   1  dnssec: 0 unknown, 1 insecure, 2 secure, 3 bogus
 *     5   1  dane (opaque)
 *     6   1  last_error (opaque)
 *     7   4  max_age
 *    11   8  fetched_at      (signed 64-bit unix times)
 *    19   8  expires_at
 *    27   8  next_refresh
 *    35   8  last_error_at
 *    43   1  n = id length, 0..32, then n bytes of visible ASCII (0x21-0x7e:
 *            RFC 8461 §3.1 allows only 1*32(ALPHA / DIGIT); upstream checks)
 *     .   2  nmx, 0..CACHE_MAX_MX, then nmx times: 1 byte m = 1..255 and m
 *            bytes of pattern: an optional leading "*." then [A-Za-z0-9_.-]
 *            (RFC 8461 §3.2 / §4.1; so no ':' or blank can reach a Postfix
 *            match= list)
 * Nothing may follow.  A value is accepted whole or refused; any other
 * magic or version (an older or newer format) is a miss for cache_get and
 * is replaced by the resolver's next write.  The encoding is canonical, so
 * the fuzzer checks decode -> encode gives back the same bytes.  To change
 * the format, bump CACHE_RECORD_VERSION: old entries then refresh as misses.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "lib/cache.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/* Field offsets of the fixed part (see the format above). */
#define CACHE_OFF_KIND		2
#define CACHE_OFF_MODE		3
#define CACHE_OFF_DNSSEC	4
#define CACHE_OFF_DANE		5
#define CACHE_OFF_LASTERR	6
#define CACHE_OFF_MAXAGE	7
#define CACHE_OFF_FETCHED	11
#define CACHE_OFF_EXPIRES	19
#define CACHE_OFF_REFRESH	27
#define CACHE_OFF_ERRAT		35

#define CACHE_FILE_MODE		0600
#define CACHE_DIR_MODE		0700

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

/* cache_le16 - read a little-endian uint16 */
static uint16_t
cache_le16(const unsigned char *p)
{
	return ((uint16_t)(p[0] | (unsigned int)p[1] << 8));
}

/* cache_le32 - read a little-endian uint32 */
static uint32_t
cache_le32(const unsigned char *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

/* cache_le64 - read a little-endian int64 (two's complement) */
static int64_t
cache_le64(const unsigned char *p)
{
	uint64_t u = 0;
	int	 i;

	for (i = 7; i >= 0; i--)
		u = u << 8 | p[i];
	return ((int64_t)u);
}

/* cache_set_le - write the low n bytes of v little-endian */
static void
cache_set_le(unsigned char *p, uint64_t v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

/* cache_id_valid - an STS id the format can hold: visible ASCII */
static int
cache_id_valid(const unsigned char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return (0);
	return (1);
}

/* cache_mx_valid - an MX pattern the format can hold: ["*."] [A-Za-z0-9_.-]+ */
static int
cache_mx_valid(const unsigned char *s, size_t n)
{
	size_t	 i = 0;
	unsigned char ch;

	if (n >= 2 && s[0] == '*' && s[1] == '.')
		i = 2;
	if (i == n)
		return (0);
	for (; i < n; i++) {
		ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		    ch == '_'))
			return (0);
	}
	return (1);
}

size_t
cache_dane_key(const char *domain, size_t len, char *out)
{
	if (len > DOMAIN_MAX_LEN)
		len = DOMAIN_MAX_LEN;
	memcpy(out, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN);
	memcpy(out + CACHE_DANE_PREFIX_LEN, domain, len);
	out[CACHE_DANE_PREFIX_LEN + len] = '\0';
	return (CACHE_DANE_PREFIX_LEN + len);
}

const char *
cache_key_domain(const char *key, size_t len, size_t *dlen, int *dane)
{
	*dane = len > CACHE_DANE_PREFIX_LEN &&
	    memcmp(key, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN) == 0;
	if (*dane) {
		*dlen = len - CACHE_DANE_PREFIX_LEN;
		return (key + CACHE_DANE_PREFIX_LEN);
	}
	*dlen = len;
	return (key);
}

/* cache_enums_valid - kind, sts_mode and dnssec hold known values */
static int
cache_enums_valid(unsigned int kind, unsigned int mode, unsigned int dnssec)
{
	if (kind < CACHE_KIND_NONE || kind > CACHE_KIND_DANE)
		return (0);
	if (mode > CACHE_STS_ENFORCE)
		return (0);
	if (dnssec > CACHE_DNSSEC_BOGUS)
		return (0);
	return (1);
}

int
cache_key_valid(const char *k, size_t len)
{
	size_t	 i;
	char	 ch;

	if (len > CACHE_DANE_PREFIX_LEN &&
	    memcmp(k, CACHE_DANE_PREFIX, CACHE_DANE_PREFIX_LEN) == 0) {
		k += CACHE_DANE_PREFIX_LEN;
		len -= CACHE_DANE_PREFIX_LEN;
	}
	if (len == 0 || len > DOMAIN_MAX_LEN || k[0] == '.' ||
	    k[len - 1] == '.')
		return (0);
	for (i = 0; i < len; i++) {
		ch = k[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '.' || ch == '_'))
			return (0);
	}
	return (1);
}

int
cache_record_encode(const struct cache_record *rec, unsigned char *out,
    size_t outsz, size_t *outlen)
{
	size_t	 idlen, need, off, m, i;

	if (!cache_enums_valid(rec->kind, rec->sts_mode, rec->dnssec))
		return (-1);
	idlen = strnlen(rec->id, CACHE_ID_LEN);
	if (idlen == CACHE_ID_LEN ||
	    !cache_id_valid((const unsigned char *)rec->id, idlen))
		return (-1);
	if (rec->nmx > CACHE_MAX_MX)
		return (-1);
	need = CACHE_RECORD_FIXED_LEN + 1 + idlen + 2;
	for (i = 0; i < rec->nmx; i++) {
		m = strnlen(rec->mx[i], CACHE_MX_LEN);
		if (m == 0 || m == CACHE_MX_LEN ||
		    !cache_mx_valid((const unsigned char *)rec->mx[i], m))
			return (-1);
		need += 1 + m;
	}
	if (need > outsz)
		return (-1);

	out[0] = CACHE_RECORD_MAGIC;
	out[1] = CACHE_RECORD_VERSION;
	out[CACHE_OFF_KIND] = rec->kind;
	out[CACHE_OFF_MODE] = rec->sts_mode;
	out[CACHE_OFF_DNSSEC] = rec->dnssec;
	out[CACHE_OFF_DANE] = rec->dane;
	out[CACHE_OFF_LASTERR] = rec->last_error;
	cache_set_le(out + CACHE_OFF_MAXAGE, rec->max_age, 4);
	cache_set_le(out + CACHE_OFF_FETCHED, (uint64_t)rec->fetched_at, 8);
	cache_set_le(out + CACHE_OFF_EXPIRES, (uint64_t)rec->expires_at, 8);
	cache_set_le(out + CACHE_OFF_REFRESH, (uint64_t)rec->next_refresh, 8);
	cache_set_le(out + CACHE_OFF_ERRAT, (uint64_t)rec->last_error_at, 8);
	off = CACHE_RECORD_FIXED_LEN;
	out[off++] = (unsigned char)idlen;
	memcpy(out + off, rec->id, idlen);
	off += idlen;
	cache_set_le(out + off, rec->nmx, 2);
	off += 2;
	for (i = 0; i < rec->nmx; i++) {
		m = strlen(rec->mx[i]);
		out[off++] = (unsigned char)m;
		memcpy(out + off, rec->mx[i], m);
		off += m;
	}
	*outlen = off;
	return (0);
}

enum cache_decode_status
cache_record_decode(const unsigned char *p, size_t len,
    struct cache_record *out)
{
	size_t	 off, n, i;
	unsigned int nmx;

	if (len < 1)
		return (CACHE_DECODE_TRUNCATED);
	if (p[0] != CACHE_RECORD_MAGIC)
		return (CACHE_DECODE_MAGIC);
	if (len < 2)
		return (CACHE_DECODE_TRUNCATED);
	if (p[1] != CACHE_RECORD_VERSION)
		return (CACHE_DECODE_VERSION);
	if (len < CACHE_RECORD_FIXED_LEN + 1)
		return (CACHE_DECODE_TRUNCATED);
	if (!cache_enums_valid(p[CACHE_OFF_KIND], p[CACHE_OFF_MODE],
	    p[CACHE_OFF_DNSSEC]))
		return (CACHE_DECODE_RANGE);
	out->kind = p[CACHE_OFF_KIND];
	out->sts_mode = p[CACHE_OFF_MODE];
	out->dnssec = p[CACHE_OFF_DNSSEC];
	out->dane = p[CACHE_OFF_DANE];
	out->last_error = p[CACHE_OFF_LASTERR];
	out->max_age = cache_le32(p + CACHE_OFF_MAXAGE);
	out->fetched_at = cache_le64(p + CACHE_OFF_FETCHED);
	out->expires_at = cache_le64(p + CACHE_OFF_EXPIRES);
	out->next_refresh = cache_le64(p + CACHE_OFF_REFRESH);
	out->last_error_at = cache_le64(p + CACHE_OFF_ERRAT);

	off = CACHE_RECORD_FIXED_LEN;
	n = p[off++];
	if (n > CACHE_ID_LEN - 1)
		return (CACHE_DECODE_LENGTH);
	if (len - off < n)
		return (CACHE_DECODE_TRUNCATED);
	if (!cache_id_valid(p + off, n))
		return (CACHE_DECODE_CHAR);
	memcpy(out->id, p + off, n);
	out->id[n] = '\0';
	off += n;

	if (len - off < 2)
		return (CACHE_DECODE_TRUNCATED);
	nmx = cache_le16(p + off);
	off += 2;
	if (nmx > CACHE_MAX_MX)
		return (CACHE_DECODE_LENGTH);
	for (i = 0; i < nmx; i++) {
		if (len - off < 1)
			return (CACHE_DECODE_TRUNCATED);
		n = p[off++];
		/* a length byte caps n at 255 = CACHE_MX_LEN - 1 */
		if (n == 0)
			return (CACHE_DECODE_LENGTH);
		if (len - off < n)
			return (CACHE_DECODE_TRUNCATED);
		if (!cache_mx_valid(p + off, n))
			return (CACHE_DECODE_CHAR);
		memcpy(out->mx[i], p + off, n);
		out->mx[i][n] = '\0';
		off += n;
	}
	out->nmx = (uint16_t)nmx;
	if (off != len)
		return (CACHE_DECODE_TRAILING);
	return (CACHE_DECODE_OK);
}

int
cache_record_fresh(const struct cache_record *rec, int64_t now)
{
	return (now < rec->expires_at);
}

int
cache_record_needs_refresh(const struct cache_record *rec, int64_t now)
{
	return (now >= rec->next_refresh || !cache_record_fresh(rec, now));
}

const char *
cache_kind_name(int kind)
{
	switch (kind) {
	case CACHE_KIND_NONE:
		return ("none");
	case CACHE_KIND_STS:
		return ("sts");
	case CACHE_KIND_DANE:
		return ("dane");
	}
	return ("?");
}

const char *
cache_sts_mode_name(int mode)
{
	switch (mode) {
	case CACHE_STS_NONE:
		return ("none");
	case CACHE_STS_TESTING:
		return ("testing");
	case CACHE_STS_ENFORCE:
		return ("enforce");
	}
	return ("?");
}

const char *
cache_dnssec_name(int dnssec)
{
	switch (dnssec) {
	case CACHE_DNSSEC_UNKNOWN:
		return ("unknown");
	case CACHE_DNSSEC_INSECURE:
		return ("insecure");
	case CACHE_DNSSEC_SECURE:
		return ("secure");
	case CACHE_DNSSEC_BOGUS:
		return ("bogus");
	}
	return ("?");
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

const char *
cache_decode_status_name(enum cache_decode_status st)
{
	switch (st) {
	case CACHE_DECODE_OK:
		return ("ok");
	case CACHE_DECODE_MAGIC:
		return ("bad-magic");
	case CACHE_DECODE_VERSION:
		return ("bad-version");
	case CACHE_DECODE_TRUNCATED:
		return ("truncated");
	case CACHE_DECODE_TRAILING:
		return ("trailing-bytes");
	case CACHE_DECODE_RANGE:
		return ("bad-value");
	case CACHE_DECODE_LENGTH:
		return ("bad-length");
	case CACHE_DECODE_CHAR:
		return ("bad-char");
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

struct cache *
cache_open(const char *path, size_t map_size, int readonly, char *err,
    size_t errsz)
{
	struct cache	*c;
	struct stat	 st;
	MDB_envinfo	 info;
	MDB_txn		*txn;
	unsigned int	 flags;
	int		 rc, dead;

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
	if ((rc = cache_begin(c, MDB_RDONLY, &txn)) != 0)
		goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &c->dbi)) != 0) {
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
	cache_errf(err, errsz, "cache %s: %s", path, mdb_strerror(rc));
	cache_close(c);
	return (NULL);
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
	rec = xmalloc(sizeof(*rec));
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
