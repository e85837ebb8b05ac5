/*
 * cache_import.c - postsmtpsts-cache import: another policy server's cache
 *
 * What and why: cache_import.h.  This file is the I/O around the pure
 * parts: SQLite (libsqlite3, read-only, the peer's own locking), Redis
 * (hiredis, synchronous: a tool that waits for each answer), the gzip of
 * postfix-tlspol's file (zlib), the LMDB transaction.  The entries are
 * parsed by import_sts_resolver.c and import_tlspol.c, made records by
 * import_row.c and offered to the cache by fleet_facts_take().
 *
 * Limits: an entry's text fields as the parsers bound them; the records
 * held between the two steps grow with the source (one cache record
 * each); postfix-tlspol's file at most IMPORT_TLSPOL_MAX_FILE bytes
 * decompressed; a Redis key at most CACHE_IMPORT_KEY_MAX bytes; a Redis
 * reply within import_redis.h's bounds and CACHE_IMPORT_TIMEOUT seconds.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zlib.h>
#ifdef HAVE_FLEET
#include <hiredis/hiredis.h>
#endif

#include "lib/cache.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/fleet_facts.h"
#include "policy/sts_policy.h"
#include "tools/cache_import.h"
#include "tools/import_redis.h"
#include "tools/import_row.h"
#include "tools/import_sts_resolver.h"
#include "tools/import_tlspol.h"
#include "tools/tool.h"

#define CACHE_IMPORT_ROW_LEN	64	/* a row's name in messages */
#define CACHE_IMPORT_KEY_MAX	1024	/* longest Redis key looked at */
#define CACHE_IMPORT_TIMEOUT	10	/* seconds: SQLite busy, Redis */
#define CACHE_IMPORT_SCAN	"1000"	/* Redis SCAN COUNT */
#define CACHE_IMPORT_READ	65536	/* gzread chunk */
#define CACHE_IMPORT_CHUNK	16384	/* a Redis read */

/* A record read, waiting for the transaction. */
struct cache_import_ent {
	char		 key[DOMAIN_BUFSZ];
	struct cache_record rec;
};

/* One import. */
struct cache_import {
	const char	*source;	/* the file or URL, for messages */
	const struct config_cache *cc;
	int64_t		 now;
	struct sts_policy *pol;		/* scratch of import_row_record() */
	char		*text;		/* scratch: a policy's text */
	size_t		 textsz;
	struct cache_import_ent *ent;
	size_t		 n, cap;
	size_t		 read, expired, malformed, nopolicy, kept, imported;
};

/* cache_import_bad - a malformed entry: counted, "SOURCE:ROW: DOMAIN:
 * why" on stderr, the domain escaped (it is the peer's text) */
static void
cache_import_bad(struct cache_import *ci, const char *row, const char *dom,
    size_t domlen, const char *why)
{
	char	 esc[DOMAIN_MAX_LEN * 4 + 8];

	ci->malformed++;
	fprintf(stderr, "%s:%s: %s: %s\n", ci->source, row,
	    dom != NULL ? log_escape(esc, sizeof(esc), dom, domlen) : "-",
	    why);
}

/* cache_import_row - an entry the source read: made a record and held */
static void
cache_import_row(struct cache_import *ci, const char *rowname,
    const struct import_row *row)
{
	struct cache_import_ent *e;
	char		 why[IMPORT_ROW_WHY_LEN];

	if (ci->n == ci->cap) {
		ci->cap = ci->cap == 0 ? 64 : ci->cap * 2;
		ci->ent = xreallocarray(ci->ent, ci->cap, sizeof(*ci->ent));
		memset(ci->ent + ci->n, 0, (ci->cap - ci->n) *
		    sizeof(*ci->ent));
	}
	e = &ci->ent[ci->n];
	switch (import_row_record(row, ci->cc, ci->now, ci->pol, e->key,
	    &e->rec, why, sizeof(why))) {
	case IMPORT_ROW_OK:
		ci->n++;
		break;
	case IMPORT_ROW_EXPIRED:
		ci->expired++;
		break;
	case IMPORT_ROW_MALFORMED:
		cache_import_bad(ci, rowname, row->domain, row->domainlen, why);
		break;
	}
}

/* cache_import_sqlite - postfix-mta-sts-resolver's SQLite cache: 0, or
 * -1 if it could not be read to the end */
static int
cache_import_sqlite(struct cache_import *ci, const char *path)
{
	sqlite3		*db = NULL;
	sqlite3_stmt	*st = NULL;
	struct import_row row;
	char		 rowname[CACHE_IMPORT_ROW_LEN], why[IMPORT_ROW_WHY_LEN];
	size_t		 textlen;
	int		 rc, rv = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		log_warnx("%s: %s", path, db != NULL ? sqlite3_errmsg(db) :
		    "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db, CACHE_IMPORT_TIMEOUT * 1000);
	if (sqlite3_prepare_v2(db, "SELECT rowid, domain, ts, pol_id, "
	    "pol_body FROM sts_policy_cache ORDER BY rowid", -1, &st, NULL) !=
	    SQLITE_OK) {
		log_warnx("%s: not a postfix-mta-sts-resolver cache: %s", path,
		    sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ci->read++;
		memset(&row, 0, sizeof(row));
		snprintf(rowname, sizeof(rowname), "%lld",
		    (long long)sqlite3_column_int64(st, 0));
		if (sqlite3_column_type(st, 1) != SQLITE_TEXT) {
			cache_import_bad(ci, rowname, NULL, 0,
			    "domain is not text");
			continue;
		}
		row.domain = (const char *)sqlite3_column_text(st, 1);
		row.domainlen = (size_t)sqlite3_column_bytes(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_INTEGER &&
		    sqlite3_column_type(st, 2) != SQLITE_FLOAT) {
			cache_import_bad(ci, rowname, row.domain,
			    row.domainlen, "ts is not a number");
			continue;
		}
		row.fetched_at = sqlite3_column_int64(st, 2);
		if (sqlite3_column_type(st, 3) == SQLITE_TEXT) {
			row.id = (const char *)sqlite3_column_text(st, 3);
			row.idlen = (size_t)sqlite3_column_bytes(st, 3);
		} else if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			row.id = "";
		else {
			cache_import_bad(ci, rowname, row.domain,
			    row.domainlen, "pol_id is not text");
			continue;
		}
		if (sqlite3_column_type(st, 4) != SQLITE_TEXT) {
			cache_import_bad(ci, rowname, row.domain,
			    row.domainlen, "pol_body is not text");
			continue;
		}
		if (import_sts_resolver_body((const char *)
		    sqlite3_column_text(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), ci->text, ci->textsz,
		    &textlen, why, sizeof(why)) == -1) {
			cache_import_bad(ci, rowname, row.domain,
			    row.domainlen, why);
			continue;
		}
		row.policy = ci->text;
		row.policylen = textlen;
		cache_import_row(ci, rowname, &row);
	}
	if (rc != SQLITE_DONE) {
		log_warnx("%s: read stopped after %zu rows: %s", path, ci->read,
		    sqlite3_errmsg(db));
		goto out;
	}
	rv = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (rv);
}

#ifdef HAVE_FLEET
/*
 * cache_import_cmd - send one command, read its reply: the reply, or NULL
 * after a message
 *
 * hiredis writes the command; the reply is read here, CACHE_IMPORT_READ
 * bytes at a time, each chunk checked by import_redis_resp_feed() before
 * hiredis's reader sees it, so a reply over the import's bounds
 * (import_redis.h: a 600 MB bulk string, a huge array, garbage) is
 * refused at its first byte too many, and the whole reply must come
 * within CACHE_IMPORT_TIMEOUT seconds (a server dripping one byte a
 * second is cut off, not waited for).  Bytes after the reply are
 * refused: one command is out at a time.
 */
static redisReply *
cache_import_cmd(redisContext *rc, int argc, const char **argv,
    const size_t *argl, const char *what)
{
	struct import_redis_resp s;
	enum import_redis_status st = IMPORT_REDIS_RESP_MORE;
	char		 buf[CACHE_IMPORT_CHUNK], why[160];
	long long	 deadline;
	void		*reply = NULL;
	size_t		 used;
	ssize_t		 n;
	int		 done = 0, w;

	if (redisAppendCommandArgv(rc, argc, argv, argl) != REDIS_OK) {
		log_warnx("redis: %s: %s", what, rc->errstr);
		return (NULL);
	}
	while (!done)
		if (redisBufferWrite(rc, &done) != REDIS_OK) {
			log_warnx("redis: %s: %s", what, rc->errstr);
			return (NULL);
		}
	import_redis_resp_init(&s);
	deadline = tool_now_ms() + CACHE_IMPORT_TIMEOUT * 1000LL;
	while (st == IMPORT_REDIS_RESP_MORE) {
		if ((w = tool_wait(rc->fd, POLLIN, deadline)) <= 0) {
			if (w == 0)
				log_warnx("redis: %s: no whole reply within "
				    "%d s", what, CACHE_IMPORT_TIMEOUT);
			else
				log_warn("redis: %s: poll", what);
			return (NULL);
		}
		n = read(rc->fd, buf, sizeof(buf));
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n == 0)
				log_warnx("redis: %s: the server closed the "
				    "connection %s", what, s.bytes > 0 ?
				    "in the middle of the reply" :
				    "instead of replying");
			else
				log_warn("redis: %s: read", what);
			return (NULL);
		}
		st = import_redis_resp_feed(&s, buf, (size_t)n, &used, why,
		    sizeof(why));
		if (st == IMPORT_REDIS_RESP_BAD) {
			log_warnx("redis: %s: reply refused: %s", what, why);
			return (NULL);
		}
		if (st == IMPORT_REDIS_RESP_DONE && used != (size_t)n) {
			log_warnx("redis: %s: reply refused: %zu bytes after "
			    "it", what, (size_t)n - used);
			return (NULL);
		}
		if (redisReaderFeed(rc->reader, buf, (size_t)n) != REDIS_OK) {
			log_warnx("redis: %s: %s", what, rc->reader->errstr);
			return (NULL);
		}
	}
	if (redisGetReplyFromReader(rc, &reply) != REDIS_OK ||
	    reply == NULL) {
		/* the check passed what hiredis refuses, or less */
		log_warnx("redis: %s: %s", what, rc->errstr[0] != '\0' ?
		    rc->errstr : "no reply");
		if (reply != NULL)
			freeReplyObject(reply);
		return (NULL);
	}
	return (reply);
}

/* cache_import_cmdv - cache_import_cmd of up to four arguments */
static redisReply *
cache_import_cmdv(redisContext *rc, const char *what, int argc,
    const char *a0, size_t l0, const char *a1, size_t l1, const char *a2,
    size_t l2, const char *a3, size_t l3)
{
	const char	*argv[4] = { a0, a1, a2, a3 };
	size_t		 argl[4] = { l0, l1, l2, l3 };

	return (cache_import_cmd(rc, argc, argv, argl, what));
}

/*
 * cache_import_password - the password for AUTH into pass (passsz):
 * --password-file, else $REDISCLI_AUTH (redis-cli's), else the URL's
 * (a warning when the URL holds one, used or not: argv is public).
 * 1 a password, 0 none, -1 after a message.
 */
static int
cache_import_password(const char *file, const struct import_redis_url *u,
    char *pass, size_t passsz, size_t *passlen)
{
	struct stat	 st;
	const char	*env;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	if (u->has_pass)	/* whichever password is used */
		log_warnx("warning: the redis URL holds a password: every "
		    "local user can read it in ps(1); give it with "
		    "--password-file FILE or REDISCLI_AUTH");
	if (file != NULL) {
		if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) ==
		    -1) {
			log_warn("--password-file %s", file);
			return (-1);
		}
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    (st.st_mode & S_IRWXO) != 0) {
			log_warnx("--password-file %s: not a regular file, "
			    "or readable by others (chmod o-rwx)", file);
			close(fd);
			return (-1);
		}
		while (got < passsz) {
			n = read(fd, pass + got, passsz - got);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
		if (got > 0 && pass[got - 1] == '\n')
			got--;
		if (got > 0 && pass[got - 1] == '\r')
			got--;
		if (got == 0 || got >= passsz ||
		    memchr(pass, '\n', got) != NULL) {
			log_warnx("--password-file %s: not one line of 1 to "
			    "%zu bytes", file, passsz - 1);
			explicit_bzero(pass, passsz);
			return (-1);
		}
		*passlen = got;
		return (1);
	}
	if ((env = getenv("REDISCLI_AUTH")) != NULL && *env != '\0') {
		if ((*passlen = strlen(env)) >= passsz) {
			log_warnx("REDISCLI_AUTH: longer than %zu bytes",
			    passsz - 1);
			return (-1);
		}
		memcpy(pass, env, *passlen);
		return (1);
	}
	if (!u->has_pass)
		return (0);
	*passlen = strlen(u->pass);
	memcpy(pass, u->pass, *passlen);
	return (1);
}

/* cache_import_redis_key - one key of the SCAN: its sorted set's member
 * and score made a row */
static int
cache_import_redis_key(struct cache_import *ci, redisContext *rc,
    const char *key, size_t klen)
{
	redisReply	*r;
	struct import_row row;
	char		 rowname[CACHE_IMPORT_ROW_LEN];
	char		 id[STS_RECORD_ID_MAX + 1], why[IMPORT_ROW_WHY_LEN];
	size_t		 idlen, textlen;

	ci->read++;
	log_escape(rowname, sizeof(rowname), key, klen);
	if (klen > CACHE_IMPORT_KEY_MAX) {
		cache_import_bad(ci, rowname, NULL, 0, "key too long");
		return (0);
	}
	r = cache_import_cmd(rc, 5, (const char *[]){ "ZREVRANGE", key, "0",
	    "0", "WITHSCORES" }, (const size_t []){ 9, klen, 1, 1, 10 },
	    "ZREVRANGE");
	if (r == NULL)
		return (-1);
	memset(&row, 0, sizeof(row));
	row.domain = key;
	row.domainlen = klen;
	if (r->type == REDIS_REPLY_ERROR)
		cache_import_bad(ci, rowname, key, klen,
		    "not a sorted set (not an entry of the resolver)");
	else if (r->type != REDIS_REPLY_ARRAY || (r->elements != 0 &&
	    r->elements != 2))
		cache_import_bad(ci, rowname, key, klen, "unexpected reply");
	else if (r->elements == 0)
		ci->read--;		/* gone since the SCAN */
	else if (r->element[0]->type != REDIS_REPLY_STRING ||
	    r->element[1]->type != REDIS_REPLY_STRING ||
	    import_sts_resolver_score(r->element[1]->str,
	    r->element[1]->len, &row.fetched_at) == -1)
		cache_import_bad(ci, rowname, key, klen,
		    "score is not a time");
	else if (import_sts_resolver_member(r->element[0]->str,
	    r->element[0]->len, id, &idlen, ci->text, ci->textsz, &textlen,
	    why, sizeof(why)) == -1)
		cache_import_bad(ci, rowname, key, klen, why);
	else {
		row.id = id;
		row.idlen = idlen;
		row.policy = ci->text;
		row.policylen = textlen;
		cache_import_row(ci, rowname, &row);
	}
	freeReplyObject(r);
	return (0);
}

/* cache_import_ok - an AUTH or SELECT answered OK: 0, else -1 after a
 * message (and r freed) */
static int
cache_import_ok(redisReply *r, const char *what)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	int	 bad;

	if (r == NULL)
		return (-1);
	if ((bad = r->type != REDIS_REPLY_STATUS))
		log_warnx("redis: %s: %s", what, r->type == REDIS_REPLY_ERROR ?
		    log_escape(esc, sizeof(esc), r->str, r->len) :
		    "unexpected reply");
	freeReplyObject(r);
	return (bad ? -1 : 0);
}

/* cache_import_redis - postfix-mta-sts-resolver's Redis cache: every
 * key of the database but "_metadata" is a domain's sorted set */
static int
cache_import_redis(struct cache_import *ci, const char *url,
    const char *passfile)
{
	redisContext	*rc = NULL;
	redisReply	*r, *keys;
	struct timeval	 tv = { CACHE_IMPORT_TIMEOUT, 0 };
	struct import_redis_url u;
	char		 cursor[32] = "0", dbs[16], why[160];
	char		 esc[LOG_ESCAPE_MAX + 8];
	char		 pass[IMPORT_REDIS_PASS_MAX + 1];
	size_t		 i, passlen = 0;
	int		 rv = -1, havepass;

	if (import_redis_url(url, strlen(url), &u, why, sizeof(why)) == -1) {
		log_warnx("%s", why);
		return (-1);
	}
	if ((havepass = cache_import_password(passfile, &u, pass,
	    sizeof(pass), &passlen)) == -1)
		goto out;
	if (u.user[0] != '\0' && !havepass) {
		log_warnx("redis: a user name needs a password");
		goto out;
	}
	rc = u.unix_sock ? redisConnectUnixWithTimeout(u.host, tv) :
	    redisConnectWithTimeout(u.host, u.port, tv);
	if (rc == NULL || rc->err != 0) {
		log_warnx("redis: %s: %s", u.host, rc != NULL ? rc->errstr :
		    "cannot connect");
		goto out;
	}
	redisSetTimeout(rc, tv);
#if HIREDIS_MAJOR >= 1
	/* hiredis 1.x's own bound too (0.14 has none: import_redis.h) */
	rc->reader->maxelements = IMPORT_REDIS_MAX_ELEMENTS;
#endif
	if (havepass && cache_import_ok(u.user[0] != '\0' ?
	    cache_import_cmdv(rc, "AUTH", 3, "AUTH", 4, u.user,
	    strlen(u.user), pass, passlen, NULL, 0) :
	    cache_import_cmdv(rc, "AUTH", 2, "AUTH", 4, pass, passlen, NULL,
	    0, NULL, 0), "AUTH") == -1)
		goto out;
	if (u.db != 0) {
		snprintf(dbs, sizeof(dbs), "%ld", u.db);
		if (cache_import_ok(cache_import_cmdv(rc, "SELECT", 2,
		    "SELECT", 6, dbs, strlen(dbs), NULL, 0, NULL, 0),
		    "SELECT") == -1)
			goto out;
	}
	do {
		if ((r = cache_import_cmdv(rc, "SCAN", 4, "SCAN", 4, cursor,
		    strlen(cursor), "COUNT", 5, CACHE_IMPORT_SCAN,
		    sizeof(CACHE_IMPORT_SCAN) - 1)) == NULL)
			goto out;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		    r->element[0]->type != REDIS_REPLY_STRING ||
		    r->element[0]->len >= sizeof(cursor) ||
		    r->element[0]->len == 0 ||
		    strspn(r->element[0]->str, "0123456789") !=
		    r->element[0]->len ||
		    r->element[1]->type != REDIS_REPLY_ARRAY) {
			log_warnx("redis: SCAN: %s", r->type ==
			    REDIS_REPLY_ERROR ? log_escape(esc, sizeof(esc),
			    r->str, r->len) : "unexpected reply");
			freeReplyObject(r);
			goto out;
		}
		memcpy(cursor, r->element[0]->str, r->element[0]->len);
		cursor[r->element[0]->len] = '\0';
		keys = r->element[1];
		for (i = 0; i < keys->elements; i++) {
			if (keys->element[i]->type != REDIS_REPLY_STRING ||
			    (keys->element[i]->len == 9 &&
			    memcmp(keys->element[i]->str, "_metadata", 9) ==
			    0))
				continue;
			if (cache_import_redis_key(ci, rc,
			    keys->element[i]->str, keys->element[i]->len) ==
			    -1) {
				freeReplyObject(r);
				goto out;
			}
		}
		freeReplyObject(r);
	} while (strcmp(cursor, "0") != 0);
	rv = 0;
out:
	explicit_bzero(pass, sizeof(pass));
	explicit_bzero(&u, sizeof(u));
	if (rc != NULL)
		redisFree(rc);
	return (rv);
}
#endif /* HAVE_FLEET */

/* cache_import_tlspol_cb - one entry of postfix-tlspol's map */
static int
cache_import_tlspol_cb(const struct import_tlspol_entry *e, void *arg)
{
	struct cache_import *ci = arg;
	struct import_row row;
	char		 rowname[CACHE_IMPORT_ROW_LEN], why[IMPORT_ROW_WHY_LEN];

	ci->read++;
	snprintf(rowname, sizeof(rowname), "%zu", e->index);
	switch (import_tlspol_row(e, ci->text, ci->textsz, &row, why,
	    sizeof(why))) {
	case IMPORT_TLSPOL_POLICY:
		cache_import_row(ci, rowname, &row);
		break;
	case IMPORT_TLSPOL_NONE:
		ci->nopolicy++;
		break;
	case IMPORT_TLSPOL_BAD:
		cache_import_bad(ci, rowname, e->key, e->keylen, why);
		break;
	}
	return (0);
}

/* cache_import_tlspol - postfix-tlspol's cache file (gzip, or plain) */
static int
cache_import_tlspol(struct cache_import *ci, const char *path)
{
	gzFile		 gz;
	unsigned char	*buf = NULL;
	size_t		 len = 0, cap = 0;
	char		 err[256];
	int		 n, errnum, rv = -1;

	if ((gz = gzopen(path, "rb")) == NULL) {
		log_warn("%s", path);
		return (-1);
	}
	for (;;) {
		if (cap - len < CACHE_IMPORT_READ) {
			if (cap >= IMPORT_TLSPOL_MAX_FILE) {
				log_warnx("%s: more than %zu bytes "
				    "decompressed", path,
				    (size_t)IMPORT_TLSPOL_MAX_FILE);
				goto out;
			}
			cap = cap == 0 ? 4 * CACHE_IMPORT_READ : cap * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		n = gzread(gz, buf + len, CACHE_IMPORT_READ);
		if (n < 0) {
			log_warnx("%s: %s", path, gzerror(gz, &errnum));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (import_tlspol_walk(buf, len, cache_import_tlspol_cb, ci, err,
	    sizeof(err)) == -1) {
		log_warnx("%s: not a postfix-tlspol cache, or damaged: %s",
		    path, err);
		goto out;
	}
	rv = 0;
out:
	gzclose(gz);
	free(buf);
	return (rv);
}

/* cache_import_write - offer every record held, in one transaction */
static int
cache_import_write(struct cache_import *ci, struct cache *c, int dry)
{
	struct cache_record have = { 0 }, out = { 0 };
	enum fleet_facts_why why;
	size_t		 i;
	int		 st, rv = -1;

	if (cache_txn_begin(c) != CACHE_OK)
		return (-1);
	for (i = 0; i < ci->n; i++) {
		st = cache_get(c, ci->ent[i].key, strlen(ci->ent[i].key),
		    &have);
		if (st == CACHE_ERROR)
			goto abort;
		if (fleet_facts_take(ci->ent[i].key, strlen(ci->ent[i].key),
		    st == CACHE_HIT ? &have : NULL, &ci->ent[i].rec, ci->cc,
		    ci->now, &out, &why) == 0) {
			if (why == FLEET_FACTS_EXPIRED)
				ci->expired++;
			else
				ci->kept++;
			continue;
		}
		st = cache_put(c, ci->ent[i].key, &out);
		if (st != CACHE_OK) {
			if (st == CACHE_FULL)
				log_warnx("cache map or disk full after %zu "
				    "records: nothing imported (raise "
				    "cache.max_size)", ci->imported);
			goto abort;
		}
		ci->imported++;
	}
	if (dry) {
		cache_txn_abort(c);
		rv = 0;
		goto done;
	}
	st = cache_txn_commit(c);
	if (st == CACHE_FULL)
		log_warnx("cache map or disk full: nothing imported (raise "
		    "cache.max_size)");
	rv = st == CACHE_OK ? 0 : -1;
	goto done;
abort:
	cache_txn_abort(c);
done:
	cache_record_release(&have);
	cache_record_release(&out);
	return (rv);
}

int
cache_import_known(const char *kind)
{
	if (strcmp(kind, "sqlite") == 0 || strcmp(kind, "tlspol") == 0)
		return (1);
	if (strcmp(kind, "redis") == 0) {
#ifdef HAVE_FLEET
		return (1);
#else
		log_warnx("import redis: this build has no hiredis "
		    "(configure --with-fleet)");
		return (0);
#endif
	}
	log_warnx("import: unknown source %s: " CACHE_IMPORT_SOURCES, kind);
	return (0);
}

int
cache_import_run(struct cache *c, const struct config_cache *cc,
    const char *kind, const char *where, const char *passfile, int dry)
{
	static const struct config_cache defaults;	/* refresh_before 0 */
	struct cache_import ci;
	size_t		 i;
	int		 rv;

	memset(&ci, 0, sizeof(ci));
	ci.source = where;
	ci.cc = cc != NULL ? cc : &defaults;
	ci.now = clock_wall();
	ci.pol = xcalloc(1, sizeof(*ci.pol));
	ci.textsz = IMPORT_STS_RESOLVER_TEXT > IMPORT_TLSPOL_TEXT ?
	    IMPORT_STS_RESOLVER_TEXT : IMPORT_TLSPOL_TEXT;
	ci.text = xmalloc(ci.textsz);

	if (strcmp(kind, "sqlite") == 0)
		rv = cache_import_sqlite(&ci, where);
#ifdef HAVE_FLEET
	else if (strcmp(kind, "redis") == 0)
		rv = cache_import_redis(&ci, where, passfile);
#endif
	else
		rv = cache_import_tlspol(&ci, where);
	if (rv == -1)
		log_warnx("import: %s: nothing imported", where);
	else if ((rv = cache_import_write(&ci, c, dry)) == -1)
		log_warnx("import: %s: the write failed: nothing imported",
		    where);
	else
		printf("import %s %s: %zu entries read: %zu imported, "
		    "%zu expired, %zu malformed, %zu kept (the cache's own "
		    "is as new or stronger), %zu without an MTA-STS policy%s\n",
		    kind, where, ci.read, ci.imported, ci.expired,
		    ci.malformed, ci.kept, ci.nopolicy,
		    dry ? " (dry run: nothing written)" : "");
	for (i = 0; i < ci.cap; i++)
		cache_record_release(&ci.ent[i].rec);
	free(ci.ent);
	free(ci.text);
	free(ci.pol);
	return (rv == 0 ? 0 : 1);
}
