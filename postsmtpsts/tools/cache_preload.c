/*
 * cache_preload.c - postsmtpsts-cache preload (cache_preload.h)
 *
 * The I/O around three pure or narrow parts: gpgv (lib/gpgv.c) checks
 * the signature, preload_list (policy/) parses, preload_store (lib/)
 * keeps.  The order matters: the list's bytes are read once, into
 * memory, and the file gpgv checks is a private copy of those bytes, so
 * a list replaced on disk between the check and the parse cannot slip
 * in.  A source (or signature) that is an https:// URL is fetched by
 * tools/preload_fetch.c into memory instead of read (PRELOAD_LIST_MAX
 * for a list, CACHE_PRELOAD_SIG_MAX for a signature, checked while it
 * arrives); the rest is the same.
 *
 * The private copies: a directory of mode 0700 (mkdtemp) beside the
 * store (in the directory holding preload.path: the state directory,
 * which the daemon's user may write, as the master's child runs as
 * that user under systemd's ProtectSystem=strict), or, when that
 * directory cannot be written (an operator's -n), in $TMPDIR or /tmp.
 */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include "conf/config_load.h"
#include "lib/buf.h"
#include "lib/cache.h"
#include "lib/cache_record.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/gpgv.h"
#include "lib/log.h"
#include "lib/preload_store.h"
#include "lib/xmalloc.h"
#include "policy/preload_list.h"
#include "tools/cache_preload.h"
#include "tools/preload_export.h"
#include "tools/preload_fetch.h"

#define CACHE_PRELOAD_SIG_MAX	65536	/* bytes of a detached signature */

/* One list to import, as configured or as given. */
struct cp_job {
	const struct config *cf;
	struct preload_fetch **pf;	/* the run's fetcher, made when needed */
	char		 name[CONFIG_MAX_PRELOAD_NAME + 1];
	const char	*source;
	char		 sig[PATH_MAX];
	const char	*keyring;
	const char	*fingerprint;
	int		 trusted;
};

/* cp_read - the whole file at path, at most max bytes; NULL with why */
static char *
cp_read(const char *path, size_t max, size_t *lenp, char *why, size_t whysz)
{
	struct stat	 st;
	char		*buf;
	size_t		 len = 0;
	ssize_t		 r;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		(void)snprintf(why, whysz, "%s", strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		(void)snprintf(why, whysz, "not a regular file");
		(void)close(fd);
		return (NULL);
	}
	/* the cap before a byte is read: a 100 MB list is refused by its
	 * size, not after filling memory with it */
	if ((uintmax_t)st.st_size > max) {
		(void)snprintf(why, whysz, "%jd bytes, more than %zu",
		    (intmax_t)st.st_size, max);
		(void)close(fd);
		return (NULL);
	}
	buf = xmalloc(max + 1);
	while (len <= max && (r = read(fd, buf + len, max + 1 - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			(void)snprintf(why, whysz, "%s", strerror(errno));
			free(buf);
			(void)close(fd);
			return (NULL);
		}
		len += (size_t)r;
	}
	(void)close(fd);
	if (len > max) {	/* it grew while read */
		(void)snprintf(why, whysz, "more than %zu bytes", max);
		free(buf);
		return (NULL);
	}
	*lenp = len;
	return (buf);
}

/* cp_is_url - an https:// source or signature */
static int
cp_is_url(const char *where)
{
	return (strncmp(where, "https://", 8) == 0);
}

/* cp_get - the bytes of where (a file, or an https:// URL), at most max;
 * NULL with why */
static char *
cp_get(const struct cp_job *j, const char *where, size_t max, size_t *lenp,
    char *why, size_t whysz)
{
	char	 err[512];

	if (!cp_is_url(where))
		return (cp_read(where, max, lenp, why, whysz));
	if (*j->pf == NULL && (*j->pf = preload_fetch_new(j->cf,
	    j->cf->preload.timeout, err, sizeof(err))) == NULL) {
		(void)snprintf(why, whysz, "cannot fetch: %s", err);
		return (NULL);
	}
	return (preload_fetch_get(*j->pf, where, max, lenp, why, whysz));
}

/* cp_tmpdir - a private directory for the copies gpgv reads, into dir
 * (at least PATH_MAX): beside the store, else in $TMPDIR or /tmp */
static int
cp_tmpdir(const struct config *cf, char *dir, size_t dirsz)
{
	const char	*slash = strrchr(cf->preload.path, '/');
	const char	*tmp = getenv("TMPDIR");

	if (slash != NULL && (size_t)snprintf(dir, dirsz,
	    "%.*s/.postsmtpsts-preload.XXXXXX",
	    (int)(slash - cf->preload.path), cf->preload.path) < dirsz &&
	    mkdtemp(dir) != NULL)
		return (0);
	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(dir, dirsz, "%s/postsmtpsts-preload.XXXXXX",
	    tmp) >= dirsz || mkdtemp(dir) == NULL)
		return (-1);
	return (0);
}

/* cp_write - p[0..len) into a new file path (mode 0600) */
static int
cp_write(const char *path, const char *p, size_t len)
{
	ssize_t	 w;
	size_t	 off = 0;
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return (-1);
	while (off < len) {
		if ((w = write(fd, p + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			(void)close(fd);
			return (-1);
		}
		off += (size_t)w;
	}
	return (close(fd));
}

/* cp_verify - the signature of p[0..len) (job's sig file), checked by
 * gpgv on private copies; 0 with signer set, or -1 (logged) */
static int
cp_verify(const struct cp_job *j, const char *p, size_t len, char *signer,
    size_t signersz)
{
	struct gpgv_result r;
	char	 dir[PATH_MAX];
	char	 data[PATH_MAX + 16], sigf[PATH_MAX + 16];
	char	*sig, why[512];
	size_t	 siglen;
	int	 rc = -1;

	if (j->keyring == NULL) {
		log_warnx("%s: signature: no keyring (preload.keyring or -k)",
		    j->source);
		return (-1);
	}
	if ((sig = cp_get(j, j->sig, CACHE_PRELOAD_SIG_MAX, &siglen, why,
	    sizeof(why))) == NULL) {
		log_warnx("%s: signature: %s: %s (an unsigned list is read "
		    "only when the configuration says trusted = true)",
		    j->source, j->sig, why);
		return (-1);
	}
	if (cp_tmpdir(j->cf, dir, sizeof(dir)) != 0) {
		log_warn("%s: a private directory for gpgv", j->source);
		free(sig);
		return (-1);
	}
	(void)snprintf(data, sizeof(data), "%s/list", dir);
	(void)snprintf(sigf, sizeof(sigf), "%s/list.asc", dir);
	if (cp_write(data, p, len) != 0 || cp_write(sigf, sig, siglen) != 0)
		log_warn("%s: a private copy in %s", j->source, dir);
	else if (gpgv_verify(NULL, j->keyring, sigf, data,
	    CACHE_PRELOAD_GPGV_MS, &r) != 0)
		log_warnx("%s: signature: %s", j->source, r.why);
	else if (!r.good)
		log_warnx("%s: signature: does not verify with %s: %s",
		    j->source, j->keyring, r.why);
	else if (j->fingerprint != NULL && !gpgv_fpr_equal(r.fpr,
	    j->fingerprint))
		log_warnx("%s: signature: by %s, not the configured %s",
		    j->source, r.fpr, j->fingerprint);
	else {
		(void)snprintf(signer, signersz, "%s", r.fpr);
		rc = 0;
	}
	(void)unlink(data);
	(void)unlink(sigf);
	(void)rmdir(dir);
	free(sig);
	return (rc);
}

/* cp_time - t as ISO 8601 UTC */
static const char *
cp_time(char *buf, size_t bufsz, int64_t t)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(buf, bufsz, "%lld", (long long)t);
	return (buf);
}

/* cp_import - one list: read, verify, parse, store; 0 or -1 */
static int
cp_import(const struct config *cf, const struct cp_job *j, int dry)
{
	struct preload_store_list meta;
	struct preload_store_entry *e;
	struct preload_list *l;
	struct preload_store *s;
	char	*buf, why[1024], signer[GPGV_FPR_MAX + 1] = "";
	char	 t1[32], t2[32];
	size_t	 len, i, nenf = 0;
	int64_t	 now = clock_wall();
	int	 rc;

	if ((buf = cp_get(j, j->source, PRELOAD_LIST_MAX, &len, why,
	    sizeof(why))) == NULL) {
		log_warnx("%s: list: %s", j->source, why);
		return (-1);
	}
	if (!j->trusted && cp_verify(j, buf, len, signer,
	    sizeof(signer)) != 0) {
		free(buf);
		return (-1);
	}
	l = preload_list_parse(j->source, buf, len, why, sizeof(why));
	free(buf);
	if (l == NULL) {
		log_warnx("%s", why);
		return (-1);
	}
	if (l->expires <= now) {
		log_warnx("%s: expires: the list expired at %s: not used",
		    j->source, cp_time(t1, sizeof(t1), l->expires));
		preload_list_free(l);
		return (-1);
	}
	memset(&meta, 0, sizeof(meta));
	(void)snprintf(meta.name, sizeof(meta.name), "%s", j->name);
	meta.timestamp = l->timestamp;
	meta.expires = l->expires;
	meta.loaded_at = now;
	(void)snprintf(meta.source, sizeof(meta.source), "%s", j->source);
	(void)snprintf(meta.signer, sizeof(meta.signer), "%s", signer);
	e = xcalloc(l->n > 0 ? l->n : 1, sizeof(*e));
	for (i = 0; i < l->n; i++) {
		e[i].domain = l->e[i].domain;
		e[i].mode = l->e[i].mode;
		e[i].nmx = l->e[i].nmx;
		e[i].mx = l->e[i].mx;
		e[i].mxlen = l->e[i].mxlen;
		nenf += l->e[i].mode == PRELOAD_ENFORCE;
	}
	rc = 0;
	if (!dry) {
		if ((s = preload_store_open(cf->preload.path, 0, why,
		    sizeof(why))) == NULL) {
			log_warnx("%s", why);
			rc = -1;
		} else {
			if (preload_store_replace(s, &meta, e, l->n, why,
			    sizeof(why)) != 0) {
				log_warnx("%s: %s", j->source, why);
				rc = -1;
			}
			preload_store_close(s);
		}
	}
	if (rc == 0)
		printf("preload %s: %s%zu domains (%zu enforce, %zu testing), "
		    "timestamp %s, expires %s, %s%s\n", j->name,
		    dry ? "checked, not written: " : "", l->n, nenf,
		    l->n - nenf, cp_time(t1, sizeof(t1), l->timestamp),
		    cp_time(t2, sizeof(t2), l->expires), signer[0] != '\0' ?
		    "signed by " : "trusted, unsigned", signer);
	free(e);
	preload_list_free(l);
	return (rc);
}

/* cp_job_conf - the job of configured list l */
static void
cp_job_conf(const struct config *cf, const struct config_preload_list *l,
    struct cp_job *j)
{
	memset(j, 0, sizeof(*j));
	j->cf = cf;
	(void)snprintf(j->name, sizeof(j->name), "%s", l->name);
	j->source = l->source;
	if (l->signature != NULL)
		(void)snprintf(j->sig, sizeof(j->sig), "%s", l->signature);
	else
		(void)snprintf(j->sig, sizeof(j->sig), "%s.asc", l->source);
	j->keyring = l->keyring != NULL ? l->keyring : cf->preload.keyring;
	j->fingerprint = l->fingerprint;
	j->trusted = l->trusted;
}

/* cp_job_file - the job of a file the configuration does not name as a
 * list: named by its base name, signed, the keyring -k's or the
 * configuration's */
static int
cp_job_file(const struct config *cf, const char *path, const char *keyring,
    struct cp_job *j)
{
	const char	*base = strrchr(path, '/');
	size_t		 i, n = 0;

	memset(j, 0, sizeof(*j));
	j->cf = cf;
	base = base != NULL ? base + 1 : path;
	for (i = 0; base[i] != '\0' && base[i] != '.' &&
	    n < CONFIG_MAX_PRELOAD_NAME; i++)
		j->name[n++] = strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", base[i]) != NULL ?
		    base[i] : '_';
	if (n == 0) {
		log_warnx("%s: no list name in the file's name", path);
		return (-1);
	}
	j->source = path;
	(void)snprintf(j->sig, sizeof(j->sig), "%s.asc", path);
	j->keyring = keyring != NULL ? keyring : cf->preload.keyring;
	return (0);
}

int
cache_preload_main(const char *conf, int dry, const char *keyring, int argc,
    char *argv[])
{
	struct preload_fetch *pf = NULL;
	struct config	*cf;
	struct cp_job	 j;
	char		 err[4096];
	size_t		 i;
	int		 rv = 0, found;

	argc--;
	argv++;
	if (argc > 1)
		return (2);
	if (conf != NULL || access(CONFIG_DEFAULT_FILE, F_OK) == 0)
		cf = config_load(conf != NULL ? conf : CONFIG_DEFAULT_FILE, err,
		    sizeof(err));
	else
		cf = config_load_buffer(NULL, "", 0, err, sizeof(err));
	if (cf == NULL) {
		log_warnx("%s", err);
		return (1);
	}
	if (keyring != NULL && keyring[0] != '/') {
		log_warnx("-k %s: the keyring must be an absolute path (gpgv "
		    "looks for a bare name in its home)", keyring);
		config_free(cf);
		return (2);
	}
	if (argc == 0) {
		if (cf->preload.nlists == 0)
			log_warnx("no preload list configured (preload { list "
			    "NAME { ... } }) and none given");
		for (i = 0; i < cf->preload.nlists; i++) {
			cp_job_conf(cf, &cf->preload.lists[i], &j);
			if (keyring != NULL)
				j.keyring = keyring;
			j.pf = &pf;
			if (cp_import(cf, &j, dry) != 0)
				rv = 1;
		}
		if (cf->preload.nlists == 0)
			rv = 1;
		preload_fetch_free(pf);
		config_free(cf);
		return (rv);
	}
	for (i = 0, found = 0; i < cf->preload.nlists && !found; i++)
		if (strcmp(cf->preload.lists[i].name, argv[0]) == 0 ||
		    strcmp(cf->preload.lists[i].source, argv[0]) == 0) {
			cp_job_conf(cf, &cf->preload.lists[i], &j);
			found = 1;
		}
	if (!found && cp_job_file(cf, argv[0], keyring, &j) != 0)
		rv = 1;
	else {
		if (found && keyring != NULL)
			j.keyring = keyring;
		j.pf = &pf;
		if (cp_import(cf, &j, dry) != 0)
			rv = 1;
	}
	preload_fetch_free(pf);
	config_free(cf);
	return (rv);
}

/* cp_list_print - one held list's line */
static void
cp_list_print(const struct preload_store_list *l, void *arg)
{
	char	 t1[32], t2[32], t3[32];
	int64_t	 now = *(const int64_t *)arg;

	printf("%s %u timestamp=%s expires=%s%s loaded=%s signer=%s "
	    "source=%s\n", l->name, (unsigned)l->n,
	    cp_time(t1, sizeof(t1), l->timestamp),
	    cp_time(t2, sizeof(t2), l->expires), l->expires <= now ?
	    "(expired)" : "", cp_time(t3, sizeof(t3), l->loaded_at),
	    l->signer[0] != '\0' ? l->signer : "-", l->source);
}

int
cache_preload_show(const char *conf, int argc, char *argv[])
{
	struct preload_store_hit hit;
	struct preload_store *s;
	struct config	*cf;
	char		 err[4096], t1[32], t2[32];
	const char	*p;
	int64_t		 now = clock_wall();
	size_t		 i;
	int		 rv = 0;

	if (argc > 2)
		return (2);
	if (conf != NULL || access(CONFIG_DEFAULT_FILE, F_OK) == 0)
		cf = config_load(conf != NULL ? conf : CONFIG_DEFAULT_FILE, err,
		    sizeof(err));
	else
		cf = config_load_buffer(NULL, "", 0, err, sizeof(err));
	if (cf == NULL) {
		log_warnx("%s", err);
		return (1);
	}
	if ((s = preload_store_open(cf->preload.path, 1, err,
	    sizeof(err))) == NULL) {
		log_warnx("%s", err);
		config_free(cf);
		return (1);
	}
	if (argc == 1)
		rv = preload_store_lists(s, cp_list_print, &now) == 0 ? 0 : 1;
	else {
		switch (preload_store_get(s, argv[1], &hit)) {
		case 1:
			printf("domain: %s\nlist: %s\nmode: %s\n"
			    "timestamp: %s\nexpires: %s%s\n", argv[1],
			    hit.list, hit.mode == PRELOAD_ENFORCE ? "enforce" :
			    "testing", cp_time(t1, sizeof(t1), hit.timestamp),
			    cp_time(t2, sizeof(t2), hit.expires),
			    hit.expires <= now ? " (expired)" : "");
			for (i = 0, p = hit.mx; i < hit.nmx; i++) {
				printf("mx: %s\n", p);
				p += strlen(p) + 1;
			}
			break;
		case 0:
			log_warnx("%s: in no preload list", argv[1]);
			rv = 1;
			break;
		default:
			rv = 1;
		}
	}
	preload_store_close(s);
	config_free(cf);
	return (rv);
}

/* The export's walk: the entries taken, their earliest expiry. */
struct cp_export {
	int64_t		 now;
	int64_t		 expires;
	struct preload_export_entry *e;
	size_t		 n, cap;
};

/* cp_export_cb - a fresh enforce policy valid long enough, copied */
static int
cp_export_cb(const char *domain, size_t len, const struct cache_record *rec,
    void *arg)
{
	struct cp_export *x = arg;
	struct preload_export_entry *e;

	if (rec == NULL || rec->kind != CACHE_KIND_STS ||
	    rec->sts_mode != CACHE_STS_ENFORCE || rec->nmx == 0 ||
	    rec->expires_at < x->now + CACHE_PRELOAD_EXPORT_MIN_LEFT)
		return (0);
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->e = xreallocarray(x->e, x->cap, sizeof(*x->e));
	}
	e = &x->e[x->n++];
	e->domain = xmemdup0(domain, len);
	e->nmx = rec->nmx;
	e->mxlen = rec->mxlen;
	e->mx = xmemdup0(rec->mx, rec->mxlen);
	if (x->expires == 0 || rec->expires_at < x->expires)
		x->expires = rec->expires_at;
	return (0);
}

/* cp_sign - gpg --detach-sign of file into file.asc: posix_spawn, a fixed
 * argv, the operator's environment (GNUPGHOME, the agent) */
static int
cp_sign(const char *keyid, const char *file)
{
	extern char	**environ;
	char		 asc[PATH_MAX];
	char		*argv[] = { (char *)"gpg", (char *)"--batch",
			    (char *)"--yes", (char *)"--armor",
			    (char *)"--detach-sign", (char *)"--local-user",
			    (char *)keyid, (char *)"--output", asc,
			    (char *)"--", (char *)file, NULL };
	pid_t		 pid;
	int		 st, rc;

	if ((size_t)snprintf(asc, sizeof(asc), "%s.asc", file) >=
	    sizeof(asc)) {
		log_warnx("%s: name too long", file);
		return (-1);
	}
	if ((rc = posix_spawn(&pid, GPG_PATH, NULL, NULL, argv,
	    environ)) != 0) {
		log_warnx("%s: %s", GPG_PATH, strerror(rc));
		return (-1);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			log_warn("waitpid");
			return (-1);
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		log_warnx("%s: gpg could not sign with %s (status %d)", file,
		    keyid, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return (-1);
	}
	return (0);
}

int
cache_preload_export(struct cache *c, const char *sign, const char *file)
{
	struct cp_export x;
	struct buf	 out;
	char		 tmp[PATH_MAX], author[128];
	size_t		 i;
	int		 rv = 1;

	if (sign != NULL && file == NULL) {
		log_warnx("export --preload --sign: needs a FILE (the "
		    "signature is FILE.asc)");
		return (2);
	}
	memset(&x, 0, sizeof(x));
	x.now = clock_wall();
	if (cache_iterate(c, cp_export_cb, &x) != CACHE_OK)
		goto out;
	if (x.n == 0)
		x.expires = x.now + CACHE_PRELOAD_EXPORT_MIN_LEFT;
	(void)snprintf(author, sizeof(author), "postsmtpsts-cache export "
	    "(%s)", PACKAGE_STRING);
	buf_init(&out, PRELOAD_LIST_MAX);
	if (preload_export_json(x.e, x.n, x.now, x.expires, author,
	    &out) != 0) {
		log_warnx("export --preload: more than %d bytes",
		    PRELOAD_LIST_MAX);
		buf_free(&out);
		goto out;
	}
	if (file == NULL) {
		if (fwrite(out.data, 1, out.len, stdout) == out.len)
			rv = 0;
	} else if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", file) >=
	    sizeof(tmp))
		log_warnx("%s: name too long", file);
	else {
		(void)unlink(tmp);
		if (cp_write(tmp, out.data, out.len) != 0 ||
		    rename(tmp, file) != 0) {
			log_warn("%s", file);
			(void)unlink(tmp);
		} else if (sign == NULL || cp_sign(sign, file) == 0) {
			rv = 0;
			log_info("export --preload: %zu policies into %s%s",
			    x.n, file, sign != NULL ? ", signed (.asc)" : "");
		}
	}
	buf_free(&out);
out:
	for (i = 0; i < x.n; i++) {
		free((char *)x.e[i].domain);
		free((char *)x.e[i].mx);
	}
	free(x.e);
	return (rv);
}
