/*
 * follow.c - read Postfix's log as it is written, from where we stopped
 *
 * Interface, position and rotation rules: follow.h.  A file is read in
 * FOLLOW_CHUNK-byte reads into a chunk buffer and cut into lines in a
 * line buffer of MAILLOG_MAX_LINE bytes; the journal through libsystemd's
 * sd_journal (when configure found it).
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

#include "lib/buf.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/follow.h"
#include "tlsrpt/maillog.h"
#include "tlsrpt/pack.h"

#define FOLLOW_POS_FILE		1
#define FOLLOW_ID_BYTES		256	/* a file's first bytes, hashed: its
					   identity beside the inode */
#define FOLLOW_POS_JOURNAL	2
#define FOLLOW_JOURNAL		"journal"
#define FOLLOW_MAIL_FACILITY	"SYSLOG_FACILITY=2"	/* LOG_MAIL >> 3 */
#define FOLLOW_DESC_LEN		(4096 + 64)
#define FOLLOW_TRUSTED_LEN	256	/* a trusted field's value */

struct follow {
	int		 journal;
	char		 desc[FOLLOW_DESC_LEN];
	/* file */
	char		*path;
	int		 fd;		/* -1: waiting for the file */
	dev_t		 dev;
	ino_t		 ino;
	uint64_t	 off;		/* bytes read from fd */
	uint64_t	 committed;	/* after the last delivered line */
	size_t		 cpos, clen;
	char		 chunk[FOLLOW_CHUNK];
	size_t		 llen;
	int		 lover;		/* the line passed MAILLOG_MAX_LINE */
	char		 line[MAILLOG_MAX_LINE];
#ifdef HAVE_SYSTEMD
	sd_journal	*j;
	char		*cursor;	/* of the last delivered entry */
	char		 jprog[FOLLOW_TRUSTED_LEN];	/* the entry's fields */
	char		 juid[32];
	char		 jcomm[FOLLOW_TRUSTED_LEN];
	char		 junit[FOLLOW_TRUSTED_LEN];
	int		 pending;	/* the current entry is not delivered */
#endif
};

/* follow_file_reset - forget what was read of the open file */
static void
follow_file_reset(struct follow *f, uint64_t off)
{
	f->off = f->committed = off;
	f->cpos = f->clen = 0;
	f->llen = 0;
	f->lover = 0;
}

/*
 * follow_ident - the hash of the first n bytes of fd (n <= what was read
 * of it): an inode number may be reused by a new file once the old one is
 * deleted, and the bytes a log begins with never change; -1 if the file
 * is shorter than n
 */
static int
follow_ident(int fd, uint32_t n, uint64_t *h)
{
	char	 b[FOLLOW_ID_BYTES];

	if (n > sizeof(b))
		n = sizeof(b);
	if (pread(fd, b, n, 0) != (ssize_t)n)
		return (-1);

	*h = hash_fnv1a(b, n);
	return (0);
}

/* follow_same - fd is the file of identity (n, h) */
static int
follow_same(int fd, uint32_t n, uint64_t h)
{
	uint64_t v;

	return (follow_ident(fd, n, &v) == 0 && v == h);
}

/* follow_file_at - open path at offset off (a file shorter than off was
 * truncated: from its start) */
static int
follow_file_at(struct follow *f, const char *path, uint64_t off,
    uint32_t idlen, uint64_t id)
{
	struct stat	 st;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1) {
		close(fd);
		return (-1);
	}
	if (off > 0 && !follow_same(fd, idlen, id)) {
		log_warnx("tlsrpt: %s does not begin as the file of the saved "
		    "position did (its inode was reused): read from its start",
		    path);
		off = 0;
	}
	if ((uint64_t)st.st_size < off) {
		log_warnx("tlsrpt: %s is shorter than the saved offset %"
		    PRIu64 ": truncated, read from its start", path, off);
		off = 0;
	}
	if (lseek(fd, (off_t)off, SEEK_SET) == -1) {
		close(fd);
		return (-1);
	}
	if (f->fd != -1)
		close(f->fd);
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	follow_file_reset(f, off);
	snprintf(f->desc, sizeof(f->desc), "file %s inode %ju", path,
	    (uintmax_t)st.st_ino);
	return (0);
}

/* follow_rotated - the rotated file that is (dev, ino), in the directory
 * of f->path and named after it; its path (malloc'd) or NULL */
static char *
follow_rotated(struct follow *f, uint64_t dev, uint64_t ino)
{
	char		*dcopy = xstrdup(f->path), *bcopy = xstrdup(f->path);
	const char	*dir = dirname(dcopy), *base = basename(bcopy);
	struct dirent	*de;
	struct stat	 st;
	char		 p[4096], *found = NULL;
	DIR		*d;

	if ((d = opendir(dir)) != NULL) {
		// cppcheck-suppress readdirCalled ; one thread, readdir_r is deprecated
		while ((de = readdir(d)) != NULL) {
			if (strncmp(de->d_name, base, strlen(base)) != 0 ||
			    strcmp(de->d_name, base) == 0)
				continue;
			if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >=
			    (int)sizeof(p) || stat(p, &st) == -1)
				continue;
			if ((uint64_t)st.st_dev == dev &&
			    (uint64_t)st.st_ino == ino) {
				found = xstrdup(p);
				break;
			}
		}
		closedir(d);
	}
	free(dcopy);
	free(bcopy);
	return (found);
}

/* follow_file_open - the file source at its saved position */
static int
follow_file_open(struct follow *f, struct unpack *u, int have, int from_start,
    char *err, size_t errsz)
{
	struct stat	 st;
	uint64_t	 dev = 0, ino = 0, off = 0, id = 0;
	uint32_t	 idlen = 0;
	char		*old;

	if (have) {
		dev = unpack_u64(u);
		ino = unpack_u64(u);
		off = unpack_u64(u);
		idlen = unpack_u32(u);
		id = unpack_u64(u);
		if (unpack_done(u) == -1)
			have = 0;
	}
	if (stat(f->path, &st) == 0 && have && (uint64_t)st.st_dev == dev &&
	    (uint64_t)st.st_ino == ino) {
		if (follow_file_at(f, f->path, off, idlen, id) == 0)
			return (0);
	} else if (have) {
		/* rotated while we were away: finish the old file first */
		if ((old = follow_rotated(f, dev, ino)) != NULL) {
			log_info("tlsrpt: %s was rotated to %s: reading it "
			    "from offset %" PRIu64 " first", f->path, old, off);
			if (follow_file_at(f, old, off, idlen, id) == 0) {
				free(old);
				return (0);
			}
			free(old);
		}
		log_warnx("tlsrpt: the file of the saved position (inode %"
		    PRIu64 ") is gone: its lines after offset %" PRIu64
		    " are lost; %s from its start", ino, off, f->path);
		if (follow_file_at(f, f->path, 0, 0, 0) == 0)
			return (0);
	} else if (follow_file_at(f, f->path, 0, 0, 0) == 0) {
		/* no position: from the start, or from the end */
		if (!from_start && fstat(f->fd, &st) == 0 &&
		    lseek(f->fd, st.st_size, SEEK_SET) != -1)
			follow_file_reset(f, (uint64_t)st.st_size);
		return (0);
	}
	if (errno == ENOENT) {
		/* not there yet: follow_read() opens it when it comes */
		snprintf(f->desc, sizeof(f->desc), "file %s (waiting)",
		    f->path);
		return (0);
	}
	snprintf(err, errsz, "%s: %s", f->path, strerror(errno));
	return (-1);
}

/* follow_file_switch - at the end of the open file: 1 if reading goes on
 * in another file (rotated, or truncated), else 0 */
static int
follow_file_switch(struct follow *f)
{
	struct stat	 st;

	if (stat(f->path, &st) == -1)
		return (0);		/* renamed, the new one not there */
	if (f->fd != -1 && st.st_dev == f->dev && st.st_ino == f->ino) {
		if ((uint64_t)st.st_size >= f->off)
			return (0);	/* nothing new */
		log_warnx("tlsrpt: %s was truncated: read from its start",
		    f->path);
		if (lseek(f->fd, 0, SEEK_SET) == -1)
			return (0);
		follow_file_reset(f, 0);
		return (1);
	}
	if (f->llen > 0)
		log_warnx("tlsrpt: %s: the last line of the rotated file was "
		    "never finished: dropped", f->path);
	if (follow_file_at(f, f->path, 0, 0, 0) == -1)
		return (0);
	log_info("tlsrpt: following %s", f->desc);
	return (1);
}

/* follow_file_read - file lines, up to max */
static long
follow_file_read(struct follow *f, size_t max, follow_cb *cb, void *arg)
{
	struct follow_line l;
	const char	*nl;
	size_t		 seg, room;
	ssize_t		 r;
	long		 n = 0;

	if (f->fd == -1 && follow_file_switch(f) == 0)
		return (0);
	while ((size_t)n < max) {
		if (f->cpos == f->clen) {
			r = read(f->fd, f->chunk, sizeof(f->chunk));
			if (r == -1 && errno == EINTR)
				continue;
			if (r == -1) {
				log_warn("tlsrpt: read %s", f->path);
				return (-1);
			}
			if (r == 0) {
				if (follow_file_switch(f))
					continue;
				break;
			}
			f->cpos = 0;
			f->clen = (size_t)r;
			f->off += (uint64_t)r;
		}
		nl = memchr(f->chunk + f->cpos, '\n', f->clen - f->cpos);
		seg = nl != NULL ? (size_t)(nl - (f->chunk + f->cpos)) :
		    f->clen - f->cpos;
		room = sizeof(f->line) - f->llen;
		if (seg > room)
			f->lover = 1;
		memcpy(f->line + f->llen, f->chunk + f->cpos,
		    seg < room ? seg : room);
		f->llen += seg < room ? seg : room;
		f->cpos += seg;
		if (nl == NULL)
			continue;
		f->cpos++;	/* the newline */
		f->committed = f->off - (f->clen - f->cpos);
		memset(&l, 0, sizeof(l));
		l.text = f->line;
		l.len = f->llen;
		l.too_long = f->lover;
		l.pid = -1;
		cb(&l, arg);
		f->llen = 0;
		f->lover = 0;
		n++;
	}
	return (n);
}

#ifdef HAVE_SYSTEMD
/* follow_journal_field - the value of field name of the current entry */
static const char *
follow_journal_field(sd_journal *j, const char *name, size_t *len)
{
	const void	*d;
	size_t		 l, nl = strlen(name);

	if (sd_journal_get_data(j, name, &d, &l) < 0 || l <= nl ||
	    memcmp(d, name, nl) != 0 || ((const char *)d)[nl] != '=')
		return (NULL);
	*len = l - nl - 1;
	return ((const char *)d + nl + 1);
}

/* follow_journal_open - the journal source at its saved cursor; dir:
 * a journal directory ("journal:DIR"), or NULL: the system's */
static int
follow_journal_open(struct follow *f, const char *dir, struct unpack *u,
    int have, int from_start, char *err, size_t errsz)
{
	char		 cursor[FOLLOW_POS_MAX];
	int		 rc;

	if (have) {
		unpack_cstr(u, cursor, sizeof(cursor));
		if (unpack_done(u) == -1)
			have = 0;
	}
	rc = dir != NULL ? sd_journal_open_directory(&f->j, dir, 0) :
	    sd_journal_open(&f->j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
	if (rc < 0) {
		snprintf(err, errsz, "journal%s%s: %s", dir ? " " : "",
		    dir ? dir : "", strerror(-rc));
		return (-1);
	}
	if ((rc = sd_journal_add_match(f->j, FOLLOW_MAIL_FACILITY, 0)) < 0) {
		snprintf(err, errsz, "journal: match: %s", strerror(-rc));
		return (-1);
	}
	if (have && sd_journal_seek_cursor(f->j, cursor) >= 0) {
		f->cursor = xstrdup(cursor);
		/* on the saved entry (read already), or, if it was rotated
		 * away, on the next one (not read yet) */
		if (sd_journal_next(f->j) > 0 &&
		    sd_journal_test_cursor(f->j, cursor) <= 0)
			f->pending = 1;
	} else if (from_start)
		sd_journal_seek_head(f->j);
	else {
		sd_journal_seek_tail(f->j);
		/* on the last entry: its cursor is where we are */
		if (sd_journal_previous(f->j) > 0 &&
		    sd_journal_get_cursor(f->j, &f->cursor) < 0)
			f->cursor = NULL;
	}
	snprintf(f->desc, sizeof(f->desc), "journal%s%s", dir ? " " : "",
	    dir ? dir : "");
	return (0);
}

/*
 * follow_journal_copy - field name of the current entry into out[outsz]
 * (NUL-terminated): its length, or -1 if absent or longer (cut to
 * outsz - 1 with *cut set, if cut is not NULL).  sd_journal_get_data's
 * memory may be reused by its next call (a compressed field is
 * decompressed into one buffer), so every field an entry gives is copied
 * before the next is asked for.
 */
static long
follow_journal_copy(sd_journal *j, const char *name, char *out, size_t outsz,
    int *cut)
{
	const char	*v;
	size_t		 len;

	if ((v = follow_journal_field(j, name, &len)) == NULL)
		return (-1);
	if (len >= outsz) {
		if (cut == NULL)
			return (-1);
		*cut = 1;
		len = outsz - 1;
	}
	memcpy(out, v, len);
	out[len] = '\0';
	return ((long)len);
}

/* follow_journal_read - journal entries, up to max */
static long
follow_journal_read(struct follow *f, size_t max, follow_cb *cb, void *arg)
{
	struct follow_line l;
	const char	*pid;
	char		*c, num[24];
	size_t		 plen;
	uint64_t	 usec;
	long		 n = 0, len, plen2;
	int		 rc;

	while ((size_t)n < max) {
		if (f->pending)
			f->pending = 0;
		else if ((rc = sd_journal_next(f->j)) == 0)
			break;
		else if (rc < 0) {
			log_warnx("tlsrpt: journal: %s", strerror(-rc));
			return (-1);
		}
		memset(&l, 0, sizeof(l));
		l.journal = 1;
		l.pid = -1;
		if ((len = follow_journal_copy(f->j, "MESSAGE", f->line,
		    sizeof(f->line), &l.too_long)) != -1 && (plen2 =
		    follow_journal_copy(f->j, "SYSLOG_IDENTIFIER", f->jprog,
		    sizeof(f->jprog), NULL)) != -1) {
			l.text = f->line;
			l.len = (size_t)len;
			l.prog = f->jprog;
			l.proglen = (size_t)plen2;
			if ((len = follow_journal_copy(f->j, "_UID", f->juid,
			    sizeof(f->juid), NULL)) != -1) {
				l.uid = f->juid;
				l.uidlen = (size_t)len;
			}
			if ((len = follow_journal_copy(f->j, "_COMM", f->jcomm,
			    sizeof(f->jcomm), NULL)) != -1) {
				l.comm = f->jcomm;
				l.commlen = (size_t)len;
			}
			if ((len = follow_journal_copy(f->j, "_SYSTEMD_UNIT",
			    f->junit, sizeof(f->junit), NULL)) != -1) {
				l.unit = f->junit;
				l.unitlen = (size_t)len;
			}
			if (((pid = follow_journal_field(f->j, "_PID",
			    &plen)) != NULL || (pid = follow_journal_field(f->j,
			    "SYSLOG_PID", &plen)) != NULL) && plen > 0 &&
			    plen < sizeof(num)) {
				memcpy(num, pid, plen);
				num[plen] = '\0';
				l.pid = strtol(num, NULL, 10);
			}
			if (sd_journal_get_realtime_usec(f->j, &usec) >= 0)
				l.time = (int64_t)(usec / 1000000);
			cb(&l, arg);
		}
		if (sd_journal_get_cursor(f->j, &c) >= 0) {
			free(f->cursor);
			f->cursor = c;
		}
		n++;
	}
	return (n);
}
#endif

struct follow *
follow_open(const char *log, const void *pos, size_t poslen, int from_start,
    char *err, size_t errsz)
{
	struct follow	*f = xcalloc(1, sizeof(*f));
	struct unpack	 u;
	unsigned int	 kind = 0;
	int		 rc;

	f->fd = -1;
	if (pos != NULL) {
		unpack_init(&u, pos, poslen);
		kind = unpack_u8(&u);
	}
	if (strcmp(log, FOLLOW_JOURNAL) == 0 ||
	    strncmp(log, FOLLOW_JOURNAL ":", sizeof(FOLLOW_JOURNAL)) == 0) {
		f->journal = 1;
#ifdef HAVE_SYSTEMD
		rc = follow_journal_open(f, log[sizeof(FOLLOW_JOURNAL) - 1] ==
		    ':' ? log + sizeof(FOLLOW_JOURNAL) : NULL, &u,
		    kind == FOLLOW_POS_JOURNAL, from_start, err, errsz);
#else
		(void)from_start;
		snprintf(err, errsz, "log = \"%s\": built without libsystemd",
		    log);
		rc = -1;
#endif
	} else {
		f->path = xstrdup(log);
		rc = follow_file_open(f, &u, kind == FOLLOW_POS_FILE,
		    from_start, err, errsz);
	}
	if (rc == -1) {
		follow_close(f);
		return (NULL);
	}
	return (f);
}

long
follow_read(struct follow *f, size_t max, follow_cb *cb, void *arg)
{
	if (f->journal) {
#ifdef HAVE_SYSTEMD
		return (follow_journal_read(f, max, cb, arg));
#else
		return (-1);
#endif
	}
	return (follow_file_read(f, max, cb, arg));
}

void
follow_pos(struct follow *f, struct buf *out)
{
	uint64_t	 id = 0;
	uint32_t	 n;

	if (f->journal) {
#ifdef HAVE_SYSTEMD
		pack_u8(out, FOLLOW_POS_JOURNAL);
		pack_cstr(out, f->cursor != NULL ? f->cursor : "");
#endif
		return;
	}
	n = f->committed < FOLLOW_ID_BYTES ? (uint32_t)f->committed :
	    FOLLOW_ID_BYTES;
	if (f->fd == -1 || follow_ident(f->fd, n, &id) == -1)
		n = 0;
	pack_u8(out, FOLLOW_POS_FILE);
	pack_u64(out, (uint64_t)f->dev);
	pack_u64(out, (uint64_t)f->ino);
	pack_u64(out, f->committed);
	pack_u32(out, n);
	pack_u64(out, id);
}

const char *
follow_describe(struct follow *f)
{
	return (f->desc);
}

void
follow_close(struct follow *f)
{
	if (f == NULL)
		return;
	if (f->fd != -1)
		close(f->fd);
#ifdef HAVE_SYSTEMD
	if (f->j != NULL)
		sd_journal_close(f->j);
	free(f->cursor);
#endif
	free(f->path);
	free(f);
}
