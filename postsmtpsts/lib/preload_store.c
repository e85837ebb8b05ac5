/*
 * preload_store.c - the preload lists' entries on LMDB
 *
 * Layout and rules: preload_store.h.  Value of an entry (big-endian):
 *	1 byte version (1), 1 byte mode, 1 byte name length, the name,
 *	8 bytes timestamp, 8 bytes expires, 2 bytes nmx, 4 bytes mxlen,
 *	mxlen bytes of patterns (nmx NUL-terminated strings, exactly).
 * Value of a list's meta data: version (1), timestamp, expires,
 *	loaded_at (8 each), n (4), source length (2) and source, signer
 *	length (1) and signer.
 * Every length is checked against the value's size before it is used: a
 * value is what another process wrote to disk.
 *
 * Interface: preload_store.h.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "lib/log.h"
#include "lib/preload_store.h"
#include "lib/xmalloc.h"

#define PS_VERSION	1
#define PS_LIST_PREFIX	"!list:"
#define PS_MAX_READERS	126
#define PS_ENTRY_FIXED	(3 + 8 + 8 + 2 + 4)

struct preload_store {
	MDB_env		*env;
	MDB_dbi		 dbi;
	MDB_txn		*rtxn;		/* reset between lookups */
	char		*mx;		/* the last hit's patterns */
	size_t		 mxcap;
};

/* ps_errf - a message into err (truncation is fine: a message) */
static void __attribute__((format(printf, 3, 4)))
ps_errf(char *err, size_t errsz, const char *fmt, ...)
{
	va_list	 ap;

	if (errsz == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

/* ps_put64, ps_get64 - big-endian integers */
static void
ps_put64(unsigned char *p, int64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--, v = (int64_t)((uint64_t)v >> 8))
		p[i] = (unsigned char)((uint64_t)v & 0xff);
}

static int64_t
ps_get64(const unsigned char *p)
{
	uint64_t v = 0;
	int	 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return ((int64_t)v);
}

static uint32_t
ps_get32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3]);
}

struct preload_store *
preload_store_open(const char *path, int readonly, char *err, size_t errsz)
{
	struct preload_store *s = xcalloc(1, sizeof(*s));
	MDB_txn	*txn;
	int	 rc;

	if (!readonly && mkdir(path, 0700) != 0 && errno != EEXIST) {
		ps_errf(err, errsz, "preload store %s: %s", path,
		    strerror(errno));
		free(s);
		return (NULL);
	}
	if ((rc = mdb_env_create(&s->env)) != 0) {
		s->env = NULL;
		goto fail;
	}
	if ((rc = mdb_env_set_maxreaders(s->env, PS_MAX_READERS)) != 0 ||
	    (!readonly && (rc = mdb_env_set_mapsize(s->env,
	    PRELOAD_STORE_MAP_SIZE)) != 0))
		goto fail;
	if ((rc = mdb_env_open(s->env, path, MDB_NOTLS | (readonly ?
	    MDB_RDONLY : 0), 0600)) != 0) {
		if (readonly && rc == ENOENT) {
			ps_errf(err, errsz, "preload store %s: no preload "
			    "store", path);
			preload_store_close(s);
			return (NULL);
		}
		goto fail;
	}
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)) != 0)
		goto fail;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &s->dbi)) != 0) {
		mdb_txn_abort(txn);
		goto fail;
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		goto fail;
	return (s);
fail:
	ps_errf(err, errsz, "preload store %s: %s", path, mdb_strerror(rc));
	preload_store_close(s);
	return (NULL);
}

void
preload_store_close(struct preload_store *s)
{
	if (s == NULL)
		return;
	if (s->rtxn != NULL)
		mdb_txn_abort(s->rtxn);
	if (s->env != NULL)
		mdb_env_close(s->env);
	free(s->mx);
	free(s);
}

/* ps_read_begin - the handle's read transaction, renewed */
static int
ps_read_begin(struct preload_store *s, MDB_txn **txn)
{
	int	 rc;

	if (s->rtxn == NULL)
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
	else
		rc = mdb_txn_renew(s->rtxn);
	if (rc == MDB_MAP_RESIZED && mdb_env_set_mapsize(s->env, 0) == 0) {
		if (s->rtxn != NULL)
			mdb_txn_abort(s->rtxn);
		s->rtxn = NULL;
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
	}
	if (rc != 0) {
		if (s->rtxn != NULL)
			mdb_txn_abort(s->rtxn);
		s->rtxn = NULL;
		log_warnx("preload store: read: %s", mdb_strerror(rc));
		return (-1);
	}
	*txn = s->rtxn;
	return (0);
}

/* ps_entry_decode - an entry's value into hit; mx copied into *buf */
static int
ps_entry_decode(const unsigned char *p, size_t len,
    struct preload_store_hit *hit, char **buf, size_t *cap)
{
	size_t	 nl, nmx, mxlen, i, k;

	if (len < PS_ENTRY_FIXED || p[0] != PS_VERSION ||
	    (p[1] != 1 && p[1] != 2))
		return (-1);
	nl = p[2];
	if (nl == 0 || nl > PRELOAD_STORE_MAX_NAME ||
	    len < PS_ENTRY_FIXED + nl)
		return (-1);
	hit->mode = p[1];
	memcpy(hit->list, p + 3, nl);
	hit->list[nl] = '\0';
	p += 3 + nl;
	hit->timestamp = ps_get64(p);
	hit->expires = ps_get64(p + 8);
	nmx = (size_t)p[16] << 8 | p[17];
	mxlen = ps_get32(p + 18);
	p += 22;
	if (mxlen != len - PS_ENTRY_FIXED - nl || nmx == 0 ||
	    mxlen > PRELOAD_STORE_MAX_MX)
		return (-1);
	/* exactly nmx strings, each non-empty */
	for (i = 0, k = 0; i < mxlen; i++)
		if (p[i] == '\0') {
			if (i == 0 || p[i - 1] == '\0')
				return (-1);
			k++;
		}
	if (k != nmx || p[mxlen - 1] != '\0')
		return (-1);
	if (*cap < mxlen) {
		*buf = xreallocarray(*buf, mxlen, 1);
		*cap = mxlen;
	}
	memcpy(*buf, p, mxlen);
	hit->nmx = nmx;
	hit->mx = *buf;
	hit->mxlen = mxlen;
	return (0);
}

int
preload_store_get(struct preload_store *s, const char *domain,
    struct preload_store_hit *hit)
{
	MDB_txn	*txn;
	MDB_val	 k, v;
	int	 rc, found;

	if (ps_read_begin(s, &txn) != 0)
		return (-1);
	k.mv_data = (void *)domain;
	k.mv_size = strlen(domain);
	rc = mdb_get(txn, s->dbi, &k, &v);
	if (rc == MDB_NOTFOUND)
		found = 0;
	else if (rc != 0) {
		log_warnx("preload store: %s: %s", domain, mdb_strerror(rc));
		found = -1;
	} else if (ps_entry_decode(v.mv_data, v.mv_size, hit, &s->mx,
	    &s->mxcap) != 0) {
		log_warnx("preload store: %s: a value that does not decode",
		    domain);
		found = -1;
	} else
		found = 1;
	mdb_txn_reset(txn);
	return (found);
}

/* ps_list_decode - a list's meta value into out */
static int
ps_list_decode(const char *name, size_t namelen, const unsigned char *p,
    size_t len, struct preload_store_list *out)
{
	size_t	 sl, fl;

	if (namelen == 0 || namelen > PRELOAD_STORE_MAX_NAME ||
	    len < 1 + 24 + 4 + 2 || p[0] != PS_VERSION)
		return (-1);
	memset(out, 0, sizeof(*out));
	memcpy(out->name, name, namelen);
	out->timestamp = ps_get64(p + 1);
	out->expires = ps_get64(p + 9);
	out->loaded_at = ps_get64(p + 17);
	out->n = ps_get32(p + 25);
	sl = (size_t)p[29] << 8 | p[30];
	if (sl > PRELOAD_STORE_MAX_SOURCE || len < 31 + sl + 1)
		return (-1);
	memcpy(out->source, p + 31, sl);
	fl = p[31 + sl];
	if (fl > sizeof(out->signer) - 1 || len != 31 + sl + 1 + fl)
		return (-1);
	memcpy(out->signer, p + 32 + sl, fl);
	return (0);
}

/* ps_list_key - "!list:" + name into k (buf PS_LIST_KEYSZ) */
#define PS_LIST_KEYSZ	(sizeof(PS_LIST_PREFIX) + PRELOAD_STORE_MAX_NAME)
static int
ps_list_key(const char *name, char *buf, MDB_val *k)
{
	size_t	 nl = strlen(name);

	if (nl == 0 || nl > PRELOAD_STORE_MAX_NAME)
		return (-1);
	memcpy(buf, PS_LIST_PREFIX, sizeof(PS_LIST_PREFIX) - 1);
	memcpy(buf + sizeof(PS_LIST_PREFIX) - 1, name, nl + 1);	/* NUL */
	k->mv_data = buf;
	k->mv_size = sizeof(PS_LIST_PREFIX) - 1 + nl;
	return (0);
}

/* ps_list_get_txn - meta data of name within txn: 1, 0, -1 */
static int
ps_list_get_txn(struct preload_store *s, MDB_txn *txn, const char *name,
    struct preload_store_list *out)
{
	char	 kb[PS_LIST_KEYSZ];
	MDB_val	 k, v;
	int	 rc;

	if (ps_list_key(name, kb, &k) != 0)
		return (-1);
	if ((rc = mdb_get(txn, s->dbi, &k, &v)) == MDB_NOTFOUND)
		return (0);
	if (rc != 0 || ps_list_decode(name, strlen(name), v.mv_data,
	    v.mv_size, out) != 0)
		return (-1);
	return (1);
}

int
preload_store_list_get(struct preload_store *s, const char *name,
    struct preload_store_list *out)
{
	MDB_txn	*txn;
	int	 rc;

	if (ps_read_begin(s, &txn) != 0)
		return (-1);
	rc = ps_list_get_txn(s, txn, name, out);
	mdb_txn_reset(txn);
	return (rc);
}

/* ps_entry_encode - e of list name into a new value block (*len) */
static unsigned char *
ps_entry_encode(const struct preload_store_entry *e,
    const struct preload_store_list *meta, size_t *len)
{
	size_t	 nl = strlen(meta->name);
	unsigned char *p, *q;

	*len = PS_ENTRY_FIXED + nl + e->mxlen;
	p = q = xmalloc(*len);
	*q++ = PS_VERSION;
	*q++ = (unsigned char)e->mode;
	*q++ = (unsigned char)nl;
	memcpy(q, meta->name, nl);
	q += nl;
	ps_put64(q, meta->timestamp);
	ps_put64(q + 8, meta->expires);
	q[16] = (unsigned char)(e->nmx >> 8);
	q[17] = (unsigned char)e->nmx;
	q[18] = (unsigned char)(e->mxlen >> 24);
	q[19] = (unsigned char)(e->mxlen >> 16);
	q[20] = (unsigned char)(e->mxlen >> 8);
	q[21] = (unsigned char)e->mxlen;
	memcpy(q + 22, e->mx, e->mxlen);
	return (p);
}

/* ps_drop_list - delete the entries of list name within txn */
static int
ps_drop_list(struct preload_store *s, MDB_txn *txn, const char *name)
{
	struct preload_store_hit hit;
	MDB_cursor *cur;
	MDB_val	 k, v;
	char	*buf = NULL;
	size_t	 cap = 0;
	int	 rc;

	if ((rc = mdb_cursor_open(txn, s->dbi, &cur)) != 0)
		return (rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size > 0 && ((const char *)k.mv_data)[0] == '!')
			continue;
		if (ps_entry_decode(v.mv_data, v.mv_size, &hit, &buf,
		    &cap) != 0 || strcmp(hit.list, name) == 0)
			if ((rc = mdb_cursor_del(cur, 0)) != 0)
				break;
	}
	mdb_cursor_close(cur);
	free(buf);
	return (rc == MDB_NOTFOUND ? 0 : rc);
}

int
preload_store_replace(struct preload_store *s,
    struct preload_store_list *meta, const struct preload_store_entry *e,
    size_t n, char *err, size_t errsz)
{
	struct preload_store_list held;
	struct preload_store_hit hit;
	unsigned char *val, mv[31 + PRELOAD_STORE_MAX_SOURCE + 1 + 65];
	char	 kb[PS_LIST_KEYSZ], *buf = NULL;
	size_t	 i, len, cap = 0, sl, fl;
	MDB_txn	*txn;
	MDB_val	 k, v;
	uint32_t put = 0;
	int	 rc;

	if (ps_list_key(meta->name, kb, &k) != 0) {
		ps_errf(err, errsz, "preload list name \"%s\": 1..%d bytes",
		    meta->name, PRELOAD_STORE_MAX_NAME);
		return (-1);
	}
	if ((rc = mdb_txn_begin(s->env, NULL, 0, &txn)) != 0) {
		ps_errf(err, errsz, "preload store: %s", mdb_strerror(rc));
		return (-1);
	}
	switch (ps_list_get_txn(s, txn, meta->name, &held)) {
	case 1:
		/* issue 38: a list's timestamp must not go back (a replayed
		 * old list would undo what a newer one said) */
		if (meta->timestamp < held.timestamp) {
			mdb_txn_abort(txn);
			ps_errf(err, errsz, "preload list %s: timestamp %lld "
			    "is older than the one held (%lld): refused",
			    meta->name, (long long)meta->timestamp,
			    (long long)held.timestamp);
			return (-1);
		}
		break;
	case 0:
		break;
	default:
		mdb_txn_abort(txn);
		ps_errf(err, errsz, "preload store: list %s: unreadable meta "
		    "data", meta->name);
		return (-1);
	}
	if ((rc = ps_drop_list(s, txn, meta->name)) != 0)
		goto fail;
	for (i = 0; i < n; i++) {
		MDB_val	 dk = { strlen(e[i].domain), (void *)e[i].domain };

		if (e[i].mxlen > PRELOAD_STORE_MAX_MX || e[i].nmx > 0xffff ||
		    (e[i].mode != 1 && e[i].mode != 2))
			continue;
		rc = mdb_get(txn, s->dbi, &dk, &v);
		/* held by another list (this one's were dropped): an
		 * enforce entry there stays, a testing one gives way to
		 * enforce only */
		if (rc == 0 && ps_entry_decode(v.mv_data, v.mv_size, &hit,
		    &buf, &cap) == 0 && (hit.mode == 2 || e[i].mode != 2))
			continue;
		if (rc != 0 && rc != MDB_NOTFOUND)
			goto fail;
		val = ps_entry_encode(&e[i], meta, &len);
		v.mv_data = val;
		v.mv_size = len;
		rc = mdb_put(txn, s->dbi, &dk, &v, 0);
		free(val);
		if (rc != 0)
			goto fail;
		put++;
	}
	meta->n = put;
	sl = strlen(meta->source);
	fl = strlen(meta->signer);
	if (sl > PRELOAD_STORE_MAX_SOURCE)
		sl = PRELOAD_STORE_MAX_SOURCE;
	if (fl > 64)
		fl = 64;
	mv[0] = PS_VERSION;
	ps_put64(mv + 1, meta->timestamp);
	ps_put64(mv + 9, meta->expires);
	ps_put64(mv + 17, meta->loaded_at);
	mv[25] = (unsigned char)(put >> 24);
	mv[26] = (unsigned char)(put >> 16);
	mv[27] = (unsigned char)(put >> 8);
	mv[28] = (unsigned char)put;
	mv[29] = (unsigned char)(sl >> 8);
	mv[30] = (unsigned char)sl;
	memcpy(mv + 31, meta->source, sl);
	mv[31 + sl] = (unsigned char)fl;
	memcpy(mv + 32 + sl, meta->signer, fl);
	v.mv_data = mv;
	v.mv_size = 32 + sl + fl;
	if ((rc = mdb_put(txn, s->dbi, &k, &v, 0)) != 0)
		goto fail;
	free(buf);
	if ((rc = mdb_txn_commit(txn)) != 0) {
		ps_errf(err, errsz, "preload store: commit: %s",
		    mdb_strerror(rc));
		return (-1);
	}
	return (0);
fail:
	free(buf);
	mdb_txn_abort(txn);
	ps_errf(err, errsz, "preload store: %s", mdb_strerror(rc));
	return (-1);
}

int
preload_store_lists(struct preload_store *s,
    void (*fn)(const struct preload_store_list *, void *), void *arg)
{
	struct preload_store_list l;
	MDB_cursor *cur;
	MDB_txn	*txn;
	MDB_val	 k, v;
	size_t	 pl = sizeof(PS_LIST_PREFIX) - 1;
	int	 rc;

	if (ps_read_begin(s, &txn) != 0)
		return (-1);
	if (mdb_cursor_open(txn, s->dbi, &cur) != 0) {
		mdb_txn_reset(txn);
		return (-1);
	}
	k.mv_data = (void *)PS_LIST_PREFIX;
	k.mv_size = pl;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size <= pl || memcmp(k.mv_data, PS_LIST_PREFIX,
		    pl) != 0)
			break;
		if (ps_list_decode((const char *)k.mv_data + pl,
		    k.mv_size - pl, v.mv_data, v.mv_size, &l) == 0)
			fn(&l, arg);
	}
	mdb_cursor_close(cur);
	mdb_txn_reset(txn);
	return (rc == 0 || rc == MDB_NOTFOUND ? 0 : -1);
}
