/*
 * linelog.h - an append-only file of whole lines, reopened when rotated
 *
 * NAME
 *	linelog - append one line at a time to a file several processes share
 * SYNOPSIS
 *	linelog_new(), linelog_write(), linelog_free()
 * DESCRIPTION
 *	The file is opened O_WRONLY | O_APPEND | O_CREAT (mode 0640) at the
 *	first write.  Each line is one write(2) of at most LINELOG_LINE_MAX
 *	bytes: with O_APPEND the kernel moves to the end and writes under
 *	the inode's lock, so the lines of several processes (the resolver
 *	shards) never interleave; a short write (disk full) is an error,
 *	never completed by a second write another process's line could
 *	precede.
 *
 *	Rotation: before each write the path is stat(2)ed; when it no longer
 *	names the open file (renamed away by logrotate, or removed), the file
 *	is closed and the path opened (created) again.  No signal, no
 *	co-ordination between the writers: each notices on its next line.
 *	A writer that wrote nothing since the rename keeps nothing open
 *	there but its descriptor, which its next line closes; so logrotate
 *	needs neither copytruncate nor a postrotate command, and compressing
 *	the newest rotated file must wait a cycle (delaycompress): a writer
 *	may append one more line to it before its next check.
 */
#ifndef LINELOG_H
#define LINELOG_H

#include <stddef.h>

#define LINELOG_LINE_MAX	4096	/* PIPE_BUF on Linux */

struct linelog;

/* linelog_new - a log of path (copied); nothing is opened yet */
struct linelog	*linelog_new(const char *path);

/*
 * linelog_write - append line[0..len) (its newline included), reopening
 * the file first if it was rotated: 0, or -1 with errno set (ENAMETOOLONG
 * for a line over LINELOG_LINE_MAX, EIO for a short write)
 */
int		 linelog_write(struct linelog *ll, const char *line, size_t len);

/* linelog_path - the file's path */
const char	*linelog_path(const struct linelog *ll);

/* linelog_free - close and free; NULL is a no-op */
void		 linelog_free(struct linelog *ll);

#endif
