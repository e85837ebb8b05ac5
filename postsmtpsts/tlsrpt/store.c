/*
 * store.c - postsmtpsts-tlsrpt's own database: one LMDB environment
 *
 * Interface, keys and crash safety: store.h.  Errors are logged here,
 * once, with LMDB's reason; a failed write (a full disk fails every
 * commit, one a second) at most once a minute, with how many were not
 * logged, and counted for the metrics (store_write_errors).
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/pack.h"
#include "tlsrpt/store.h"

#define STORE_RL_SECONDS	60	/* one failed-write line a minute */

struct store {
	MDB_env		*env;
	MDB_dbi		 dbi;
	MDB_txn		*txn;
	int		 readonly;
};

/* The process' failed writes: counted, logged rate-limited. */
static uint64_t	 store_werrors;
static int64_t	 store_wlast;
static uint64_t	 store_wquiet;

/* store_wfail - a failed write: counted; logged unless one was logged in
 * the last STORE_RL_SECONDS */
static void __attribute__((format(printf, 1, 2)))
store_wfail(const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;
	int64_t	 now = clock_wall();

	store_werrors++;
	if (store_wlast != 0 && now < store_wlast + STORE_RL_SECONDS &&
	    now >= store_wlast) {
		store_wquiet++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (store_wquiet > 0)
		log_warnx("%s (and %llu more failed writes in the last minute, "
		    "not logged)", msg, (unsigned long long)store_wquiet);
	else
		log_warnx("%s (further failed writes: one line a minute)", msg);
	store_wlast = now;
	store_wquiet = 0;
}

uint64_t
store_write_errors(void)
{
	return (store_werrors);
}

struct store *
store_open(const char *dir, int readonly, char *err, size_t errsz)
{
	struct store	*s;
	MDB_txn		*txn;
	int		 rc;

	if (!readonly && mkdir(dir, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errsz, "mkdir %s: %s", dir, strerror(errno));
		return (NULL);
	}
	s = xcalloc(1, sizeof(*s));
	s->readonly = readonly;
	if ((rc = mdb_env_create(&s->env)) != 0 ||
	    (rc = mdb_env_set_mapsize(s->env, STORE_MAP_SIZE)) != 0 ||
	    (rc = mdb_env_open(s->env, dir, MDB_NOTLS |
	    (readonly ? MDB_RDONLY : 0), 0600)) != 0) {
		snprintf(err, errsz, "%s: %s", dir, mdb_strerror(rc));
		if (s->env != NULL)
			mdb_env_close(s->env);
		free(s);
		return (NULL);
	}
	if ((rc = mdb_txn_begin(s->env, NULL, readonly ? MDB_RDONLY : 0,
	    &txn)) != 0 || (rc = mdb_dbi_open(txn, NULL, 0, &s->dbi)) != 0 ||
	    (rc = mdb_txn_commit(txn)) != 0) {
		snprintf(err, errsz, "%s: %s", dir, mdb_strerror(rc));
		mdb_env_close(s->env);
		free(s);
		return (NULL);
	}
	if (!readonly) {
		int dead = 0;

		mdb_reader_check(s->env, &dead);
	}
	return (s);
}

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	store_abort(s);
	mdb_env_close(s->env);
	free(s);
}

int
store_begin(struct store *s, int write)
{
	int	 rc;

	if (s->txn != NULL) {
		log_warnx("store: a transaction is already open");
		return (-1);
	}
	if (write && s->readonly) {
		log_warnx("store: read-only");
		return (-1);
	}
	if ((rc = mdb_txn_begin(s->env, NULL, write ? 0 : MDB_RDONLY,
	    &s->txn)) != 0) {
		if (write)
			store_wfail("store: begin: %s", mdb_strerror(rc));
		else
			log_warnx("store: begin: %s", mdb_strerror(rc));
		s->txn = NULL;
		return (-1);
	}
	return (0);
}

int
store_commit(struct store *s)
{
	int	 rc;

	if (s->txn == NULL)
		return (-1);
	rc = mdb_txn_commit(s->txn);
	s->txn = NULL;
	if (rc != 0) {
		store_wfail("store: commit: %s", mdb_strerror(rc));
		return (-1);
	}
	return (0);
}

void
store_abort(struct store *s)
{
	if (s->txn != NULL)
		mdb_txn_abort(s->txn);
	s->txn = NULL;
}

/* store_key - an MDB_val of a key, checked */
static int
store_key(const char *key, MDB_val *k)
{
	k->mv_size = strlen(key);
	k->mv_data = (void *)(uintptr_t)key;
	if (k->mv_size == 0 || k->mv_size > STORE_MAX_KEY) {
		log_warnx("store: bad key length %zu", k->mv_size);
		return (-1);
	}
	return (0);
}

int
store_get(struct store *s, const char *key, const void **val, size_t *vlen)
{
	MDB_val	 k, v;
	int	 rc;

	if (s->txn == NULL || store_key(key, &k) == -1)
		return (-1);
	if ((rc = mdb_get(s->txn, s->dbi, &k, &v)) == MDB_NOTFOUND)
		return (0);
	if (rc != 0) {
		log_warnx("store: get %s: %s", key, mdb_strerror(rc));
		return (-1);
	}
	*val = v.mv_data;
	*vlen = v.mv_size;
	return (1);
}

int
store_put(struct store *s, const char *key, const void *val, size_t vlen)
{
	MDB_val	 k, v;
	int	 rc;

	if (s->txn == NULL || store_key(key, &k) == -1)
		return (-1);
	v.mv_size = vlen;
	v.mv_data = (void *)(uintptr_t)val;
	if ((rc = mdb_put(s->txn, s->dbi, &k, &v, 0)) != 0) {
		store_wfail("store: put %s: %s", key, mdb_strerror(rc));
		return (-1);
	}
	return (0);
}

int
store_del(struct store *s, const char *key)
{
	MDB_val	 k;
	int	 rc;

	if (s->txn == NULL || store_key(key, &k) == -1)
		return (-1);
	if ((rc = mdb_del(s->txn, s->dbi, &k, NULL)) != 0 &&
	    rc != MDB_NOTFOUND) {
		store_wfail("store: del %s: %s", key, mdb_strerror(rc));
		return (-1);
	}
	return (0);
}

int
store_walk(struct store *s, const char *prefix,
    int (*cb)(const char *key, const void *val, size_t vlen, void *arg),
    void *arg)
{
	MDB_cursor	*c;
	MDB_val		 k, v;
	size_t		 plen = strlen(prefix);
	char		 key[STORE_MAX_KEY + 1];
	int		 rc, op = MDB_SET_RANGE;

	if (s->txn == NULL || mdb_cursor_open(s->txn, s->dbi, &c) != 0)
		return (-1);
	k.mv_size = plen;
	k.mv_data = (void *)(uintptr_t)prefix;
	if (plen == 0)
		op = MDB_FIRST;
	for (;;) {
		if ((rc = mdb_cursor_get(c, &k, &v, op)) != 0)
			break;
		op = MDB_NEXT;
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0 ||
		    k.mv_size > STORE_MAX_KEY)
			break;
		memcpy(key, k.mv_data, k.mv_size);
		key[k.mv_size] = '\0';
		if (cb(key, v.mv_data, v.mv_size, arg) != 0)
			break;
	}
	mdb_cursor_close(c);
	if (rc != 0 && rc != MDB_NOTFOUND) {
		log_warnx("store: walk %s: %s", prefix, mdb_strerror(rc));
		return (-1);
	}
	return (0);
}

int
store_counter_add(struct store *s, const char *name, uint64_t n)
{
	char		 key[64];
	const void	*v;
	size_t		 vlen;
	struct unpack	 u;
	struct buf	 b;
	char		 out[8];
	uint64_t	 cur = 0;

	snprintf(key, sizeof(key), "m/%s", name);
	if (store_get(s, key, &v, &vlen) == 1) {
		unpack_init(&u, v, vlen);
		cur = unpack_u64(&u);
		if (unpack_done(&u) == -1)
			cur = 0;
	}
	buf_init_fixed(&b, out, sizeof(out));
	pack_u64(&b, cur + n);
	return (store_put(s, key, out, sizeof(out)));
}

uint64_t
store_counter(struct store *s, const char *name)
{
	char		 key[64];
	const void	*v;
	size_t		 vlen;
	struct unpack	 u;
	uint64_t	 cur;

	snprintf(key, sizeof(key), "m/%s", name);
	if (store_get(s, key, &v, &vlen) != 1)
		return (0);
	unpack_init(&u, v, vlen);
	cur = unpack_u64(&u);
	return (unpack_done(&u) == 0 ? cur : 0);
}
