/*
 * collect.c - the datagram socket Postfix's libtlsrpt sends to
 *
 * Interface, modes and limits: collect.h.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/collect.h"
#include "tlsrpt/dgram.h"

#define COLLECT_MODE		0620	/* the reporter reads, the group
					   writes */
#define COLLECT_DIR_MODE	02750
#define COLLECT_RCVBUF		(4 * 1024 * 1024) /* a burst's room */

struct collect {
	int		 fd;
	char		*path;
	char		 buf[DGRAM_MAX + 1];
};

/* collect_gid - group (a name or a decimal id) into *gid */
static int
collect_gid(const char *group, gid_t *gid, char *err, size_t errsz)
{
	struct group	*gr;
	char		*end;
	unsigned long	 v;

	errno = 0;
	v = strtoul(group, &end, 10);
	if (*group != '\0' && *end == '\0' && errno == 0 && v < UINT32_MAX) {
		*gid = (gid_t)v;
		return (0);
	}
	if ((gr = getgrnam(group)) == NULL) {
		snprintf(err, errsz, "socket_group: no group \"%s\"", group);
		return (-1);
	}
	*gid = gr->gr_gid;
	return (0);
}

/* collect_dir_ok - the socket's directory exists and only its owner
 * (and the group, for setgid) write to it */
static int
collect_dir_ok(const char *path, char *err, size_t errsz)
{
	char		*copy = xstrdup(path), *dir;
	struct stat	 st;
	int		 rc = 0;

	dir = dirname(copy);
	if (stat(dir, &st) == -1) {
		snprintf(err, errsz, "%s: %s (postsmtpsts-tlsrpt "
		    "--prepare-socket, as root, makes it)", dir,
		    strerror(errno));
		rc = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "%s: not a directory", dir);
		rc = -1;
	} else if ((st.st_mode & S_IWOTH) != 0) {
		snprintf(err, errsz, "%s: anyone can write to it: the "
		    "socket's directory must be the reporter's (mode 2750)",
		    dir);
		rc = -1;
	}
	free(copy);
	return (rc);
}

struct collect *
collect_open(const char *path, const char *group, char *err, size_t errsz)
{
	struct collect	*c;
	struct sockaddr_un sun;
	struct stat	 st;
	mode_t		 old;
	gid_t		 gid;
	int		 on = 1, rcv = COLLECT_RCVBUF;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errsz, "%s: too long for a unix socket", path);
		return (NULL);
	}
	if (collect_gid(group, &gid, err, errsz) == -1 ||
	    collect_dir_ok(path, err, errsz) == -1)
		return (NULL);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errsz, "%s: exists and is not a socket",
			    path);
			return (NULL);
		}
		if (unlink(path) == -1) {
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
			return (NULL);
		}
	}
	c = xcalloc(1, sizeof(*c));
	c->path = xstrdup(path);
	if ((c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		goto fail;
	}
	if (setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ==
	    -1) {
		snprintf(err, errsz, "SO_PASSCRED: %s", strerror(errno));
		goto fail;
	}
	/* more room than the default's few hundred KB; not fatal */
	(void)setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	old = umask(0177);
	if (bind(c->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		umask(old);
		snprintf(err, errsz, "bind %s: %s", path, strerror(errno));
		goto fail;
	}
	umask(old);
	if (lstat(path, &st) == -1 || (st.st_gid != gid && chown(path,
	    (uid_t)-1, gid) == -1) || chmod(path, COLLECT_MODE) == -1) {
		snprintf(err, errsz, "%s: group %s, mode %o: %s (the "
		    "reporter's user must be in that group, or the directory "
		    "setgid to it)", path, group, COLLECT_MODE,
		    strerror(errno));
		unlink(path);
		goto fail;
	}
	return (c);
fail:
	if (c->fd != -1)
		close(c->fd);
	free(c->path);
	free(c);
	return (NULL);
}

int
collect_fd(const struct collect *c)
{
	return (c->fd);
}

const char *
collect_path(const struct collect *c)
{
	return (c->path);
}

long
collect_read(struct collect *c, size_t max, collect_cb *cb, void *arg)
{
	union {
		struct cmsghdr	 h;
		char		 b[CMSG_SPACE(sizeof(struct ucred))];
	}		 ctl;
	struct collect_dgram d;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	struct ucred	 uc;
	ssize_t		 n;
	long		 got = 0;

	while ((size_t)got < max) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = c->buf;
		iov.iov_len = sizeof(c->buf);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.b;
		msg.msg_controllen = sizeof(ctl.b);
		/* MSG_TRUNC: the real length of a longer datagram */
		if ((n = recvmsg(c->fd, &msg, MSG_TRUNC | MSG_DONTWAIT |
		    MSG_CMSG_CLOEXEC)) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			log_warn("tlsrpt: socket %s: recvmsg", c->path);
			return (-1);
		}
		memset(&d, 0, sizeof(d));
		d.data = c->buf;
		d.len = (size_t)n;
		if ((size_t)n > DGRAM_MAX || (msg.msg_flags & MSG_TRUNC)) {
			d.too_long = 1;
			d.len = (size_t)n < DGRAM_MAX ? (size_t)n : DGRAM_MAX;
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL;
		    cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_CREDENTIALS &&
			    cm->cmsg_len == CMSG_LEN(sizeof(uc))) {
				memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
				d.has_cred = 1;
				d.pid = uc.pid;
				d.uid = uc.uid;
				d.gid = uc.gid;
			} else if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS) {
				/* descriptors sent along: never ours */
				int	*fds = (int *)(void *)CMSG_DATA(cm);
				size_t	 i, nfd = (cm->cmsg_len -
				    CMSG_LEN(0)) / sizeof(int);

				for (i = 0; i < nfd; i++)
					close(fds[i]);
			}
		}
		if (msg.msg_flags & MSG_CTRUNC)
			d.has_cred = 0;	/* refused: who sent it is unknown */
		cb(&d, arg);
		got++;
	}
	return (got);
}

void
collect_close(struct collect *c)
{
	if (c == NULL)
		return;
	if (c->fd != -1)
		close(c->fd);
	(void)unlink(c->path);
	free(c->path);
	free(c);
}

/* collect_parent - make dir's parent, root's, 0755, if it is missing */
static void
collect_parent(const char *dir)
{
	char	*copy = xstrdup(dir), *parent;

	parent = dirname(copy);
	if (mkdir(parent, 0755) == -1 && errno != EEXIST)
		log_warn("tlsrpt: mkdir %s", parent);
	free(copy);
}

int
collect_prepare(const char *path, const char *user, const char *group,
    char *err, size_t errsz)
{
	struct passwd	*pw;
	char		*copy, *dir;
	gid_t		 gid;
	int		 rc = -1;

	if (collect_gid(group, &gid, err, errsz) == -1)
		return (-1);
	if ((pw = getpwnam(user)) == NULL) {
		snprintf(err, errsz, "no user \"%s\"", user);
		return (-1);
	}
	copy = xstrdup(path);
	dir = dirname(copy);
	/* its parent (Postfix's queue directory's run/) is root's */
	collect_parent(dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		snprintf(err, errsz, "mkdir %s: %s", dir, strerror(errno));
	else if (chown(dir, pw->pw_uid, gid) == -1 ||
	    chmod(dir, COLLECT_DIR_MODE) == -1)
		snprintf(err, errsz, "%s: owner %s, group %s: %s", dir, user,
		    group, strerror(errno));
	else
		rc = 0;
	free(copy);
	return (rc);
}
