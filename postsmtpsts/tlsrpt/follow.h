/*
 * follow.h - read Postfix's log as it is written, from where we stopped
 *
 * NAME
 *	follow - the reporter's log source: a file, or the systemd journal
 * SYNOPSIS
 *	follow_open(log, pos, poslen, from_start, err, errsz)
 *	follow_read(f, max, cb, arg)	deliver up to max new lines
 *	follow_pos(f, &buf)		where the last delivered line ends
 *	follow_close(f)
 * DESCRIPTION
 *	A file (Postfix's maillog_file, or syslog's mail.log) is followed by
 *	device, inode and offset.  The position is that of the byte after
 *	the last complete line delivered; a line still being written waits.
 *	Rotation: when the path names another file than the one open, the
 *	open one is read to its end first, then the new one from its start
 *	(logrotate's rename and Postfix's "postfix logrotate").  At open,
 *	when the saved inode is no longer at the path, the directory is
 *	searched for it (mail.log.1, maillog.20261206-...) and read from the
 *	saved offset before the current file; a file shorter than the saved
 *	offset was truncated (copytruncate) and is read from its start.
 *	Lines lost that way (a rotated file compressed before we read it)
 *	are logged.
 *
 *	The journal (log = "journal", with libsystemd) is followed by its
 *	cursor, entries of the mail facility only; an entry gives its
 *	MESSAGE, SYSLOG_IDENTIFIER, _PID and its real time, and the trusted
 *	fields that say who wrote it (_UID, _COMM, _SYSTEMD_UNIT: the
 *	caller decides, origin.h).
 *
 *	Without a saved position the source is read from its end (only new
 *	lines), or with from_start from its beginning.
 *
 *	The position is what the caller commits with the counts of the
 *	lines before it (store.h): after a crash follow_open() with the
 *	committed position reads exactly the lines not yet counted.
 * LIMITS
 *	Lines longer than MAILLOG_MAX_LINE are delivered cut, flagged
 *	(too_long), so the caller counts them as malformed; FOLLOW_POS_MAX
 *	bytes of position.
 */
#ifndef TLSRPT_FOLLOW_H
#define TLSRPT_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define FOLLOW_POS_MAX	1024
#define FOLLOW_CHUNK	65536	/* bytes read at a time from a file */

struct follow_line {
	const char	*text;		/* file: the line; journal: MESSAGE */
	size_t		 len;
	int		 too_long;	/* longer than MAILLOG_MAX_LINE */
	int		 journal;	/* the fields below are set */
	const char	*prog;		/* SYSLOG_IDENTIFIER */
	size_t		 proglen;
	long		 pid;		/* _PID, -1 if none */
	int64_t		 time;		/* the entry's real time, seconds */
	/* the journal's trusted fields, set by journald, not by the
	 * sender (NULL: absent): who wrote the entry (origin.h) */
	const char	*uid;		/* _UID */
	size_t		 uidlen;
	const char	*comm;		/* _COMM */
	size_t		 commlen;
	const char	*unit;		/* _SYSTEMD_UNIT */
	size_t		 unitlen;
};

/* follow_cb - one line; valid during the call only */
typedef void	follow_cb(const struct follow_line *l, void *arg);

struct follow;

/*
 * follow_open - start following log ("journal" or a file path) at pos
 * (pos[0..poslen) as follow_pos() wrote it; NULL or a position of another
 * source: none); NULL with a message in err
 */
struct follow	*follow_open(const char *log, const void *pos, size_t poslen,
		    int from_start, char *err, size_t errsz);

/* follow_read - deliver up to max complete new lines to cb; returns how
 * many, 0 when there is nothing new, -1 on a read error (logged) */
long		 follow_read(struct follow *f, size_t max, follow_cb *cb,
		    void *arg);

/* follow_pos - append the position after the last delivered line to out */
void		 follow_pos(struct follow *f, struct buf *out);

/* follow_describe - "file /var/log/mail.log inode 1234 offset 5678" or
 * "journal" for logs */
const char	*follow_describe(struct follow *f);

/* follow_close - NULL is a no-op */
void		 follow_close(struct follow *f);

#endif
