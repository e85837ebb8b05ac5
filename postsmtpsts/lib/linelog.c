/*
 * linelog.c - an append-only file of whole lines, reopened when rotated
 *
 * Interface and the rotation rule: linelog.h.  One stat(2) a line: the
 * lines are rare (policy events, not lookups), and the check is what
 * lets logrotate rename the file under several writers without a signal.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/linelog.h"
#include "lib/xmalloc.h"

struct linelog {
	char	*path;
	int	 fd;		/* -1: not open */
	dev_t	 dev;		/* what fd is */
	ino_t	 ino;
};

struct linelog *
linelog_new(const char *path)
{
	struct linelog	*ll;

	ll = xcalloc(1, sizeof(*ll));
	ll->path = xstrdup(path);
	ll->fd = -1;
	return (ll);
}

const char *
linelog_path(const struct linelog *ll)
{
	return (ll->path);
}

/* linelog_close - forget the open file */
static void
linelog_close(struct linelog *ll)
{
	if (ll->fd != -1)
		(void)close(ll->fd);
	ll->fd = -1;
}

/* linelog_open - the path opened for appending (created if need be) */
static int
linelog_open(struct linelog *ll)
{
	struct stat	 st;

	int		 saved;

	/* O_NONBLOCK: a fifo put there must not block the process */
	ll->fd = open(ll->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOCTTY | O_NONBLOCK, 0640);
	if (ll->fd == -1)
		return (-1);
	if (fstat(ll->fd, &st) == -1) {
		saved = errno;
		linelog_close(ll);
		errno = saved;
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		linelog_close(ll);
		errno = EINVAL;		/* a fifo, a device: refused */
		return (-1);
	}
	ll->dev = st.st_dev;
	ll->ino = st.st_ino;
	return (0);
}

int
linelog_write(struct linelog *ll, const char *line, size_t len)
{
	struct stat	 st;
	ssize_t		 n;

	if (len > LINELOG_LINE_MAX) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	/* rotated (renamed or removed) since the last line: reopen */
	if (ll->fd != -1 && (stat(ll->path, &st) == -1 ||
	    st.st_dev != ll->dev || st.st_ino != ll->ino))
		linelog_close(ll);
	if (ll->fd == -1 && linelog_open(ll) == -1)
		return (-1);
	do
		n = write(ll->fd, line, len);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return (-1);
	if ((size_t)n != len) {
		errno = EIO;	/* a part written: the rest would not join it */
		return (-1);
	}
	return (0);
}

void
linelog_free(struct linelog *ll)
{
	if (ll == NULL)
		return;
	linelog_close(ll);
	free(ll->path);
	free(ll);
}
