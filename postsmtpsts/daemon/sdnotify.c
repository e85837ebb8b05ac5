/*
 * sdnotify.c - systemd readiness notification and socket activation
 *
 * Interface: sdnotify.h.  With HAVE_SYSTEMD (configure found libsystemd)
 * this calls sd_notify(3), sd_listen_fds(3), sd_is_socket_unix(3) and
 * sd_is_socket_sockaddr(3); without it every notification is a no-op and
 * a start with LISTEN_FDS set is refused (we could not tell which passed
 * socket is which listener).
 *
 * The readiness pipe carries one pid_t per child (4 bytes, far below
 * PIPE_BUF, so each write is atomic and reports never interleave).  The
 * read end is non-blocking; the master drains it from its main loop.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "lib/log.h"
#include "daemon/sdnotify.h"

/* More passed sockets than listeners can exist is a unit mistake anyway. */
#define SDNOTIFY_MAX_FDS	64
#define SDNOTIFY_MAX_STATE	512	/* one notification, bytes */

static int	sdnotify_on;		/* NOTIFY_SOCKET set */
static int	sdnotify_nfds;		/* sockets passed */
#ifdef HAVE_SYSTEMD
static int	sdnotify_taken[SDNOTIFY_MAX_FDS];
#endif
static int	sdnotify_pipe[2] = { -1, -1 };
static int	sdnotify_reported;	/* this child already reported */

#ifdef HAVE_SYSTEMD
void
sdnotify_init(void)
{
	int		 n;

	sdnotify_on = getenv("NOTIFY_SOCKET") != NULL;
	/* 1: unset LISTEN_* so children and anything exec'd never reuse it */
	if ((n = sd_listen_fds(1)) < 0) {
		errno = -n;
		fatal("sd_listen_fds");
	}
	if (n > SDNOTIFY_MAX_FDS)
		fatalx("socket activation: %d sockets passed, at most %d",
		    n, SDNOTIFY_MAX_FDS);
	sdnotify_nfds = n;
	memset(sdnotify_taken, 0, sizeof(sdnotify_taken));
	if (n > 0)
		log_info("socket activation: %d socket%s passed", n,
		    n == 1 ? "" : "s");
}

void
sdnotify_send(const char *fmt, ...)
{
	char		 state[SDNOTIFY_MAX_STATE];
	va_list		 ap;
	int		 n, r;

	if (!sdnotify_on)
		return;
	va_start(ap, fmt);
	n = vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(state)) {
		log_warnx("sd_notify: state too long, not sent");
		return;
	}
	if ((r = sd_notify(0, state)) < 0) {
		errno = -r;
		log_warn("sd_notify");
	}
}

int
sdnotify_take_unix(const char *path)
{
	int		 i, fd;

	for (i = 0; i < sdnotify_nfds; i++) {
		fd = SD_LISTEN_FDS_START + i;
		if (!sdnotify_taken[i] &&
		    sd_is_socket_unix(fd, SOCK_STREAM, 1, path, 0) > 0) {
			sdnotify_taken[i] = 1;
			return (fd);
		}
	}
	return (-1);
}

int
sdnotify_take_inet(const struct sockaddr *addr, socklen_t len)
{
	int		 i, fd;

	for (i = 0; i < sdnotify_nfds; i++) {
		fd = SD_LISTEN_FDS_START + i;
		if (!sdnotify_taken[i] && sd_is_socket_sockaddr(fd,
		    SOCK_STREAM, addr, (unsigned)len, 1) > 0) {
			sdnotify_taken[i] = 1;
			return (fd);
		}
	}
	return (-1);
}

void
sdnotify_listen_done(void)
{
	int		 i, bad = 0;

	for (i = 0; i < sdnotify_nfds; i++) {
		if (sdnotify_taken[i])
			continue;
		log_warnx("socket activation: passed socket fd %d matches "
		    "no listen section (a listening stream socket with the "
		    "same path or address:port is needed)",
		    SD_LISTEN_FDS_START + i);
		bad++;
	}
	if (bad)
		fatalx("socket activation: %d passed socket%s without a "
		    "listener: make ListenStream= in the .socket unit and the "
		    "listen sections agree", bad, bad == 1 ? "" : "s");
}
#else /* !HAVE_SYSTEMD */
void
sdnotify_init(void)
{
	const char	*pid = getenv("LISTEN_PID");

	sdnotify_on = 0;
	sdnotify_nfds = 0;
	if (getenv("LISTEN_FDS") != NULL && pid != NULL &&
	    strtol(pid, NULL, 10) == (long)getpid())
		fatalx("sockets passed (LISTEN_FDS) but postsmtpsts was built "
		    "without libsystemd: rebuild with --with-systemd, or start "
		    "it without socket activation");
}

void
sdnotify_send(const char *fmt, ...)
{
	(void)fmt;
}

int
sdnotify_take_unix(const char *path)
{
	(void)path;
	return (-1);
}

int
sdnotify_take_inet(const struct sockaddr *addr, socklen_t len)
{
	(void)addr;
	(void)len;
	return (-1);
}

void
sdnotify_listen_done(void)
{
}
#endif /* HAVE_SYSTEMD */

int
sdnotify_enabled(void)
{
	return (sdnotify_on);
}

int
sdnotify_activated(void)
{
	return (sdnotify_nfds);
}

void
sdnotify_children_begin(void)
{
	if (!sdnotify_on || sdnotify_pipe[0] != -1)
		return;
	if (pipe2(sdnotify_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		fatal("pipe");
}

void
sdnotify_child_forked(void)
{
	if (sdnotify_pipe[0] != -1) {
		close(sdnotify_pipe[0]);
		sdnotify_pipe[0] = -1;
	}
	sdnotify_reported = 0;
}

void
sdnotify_child_ready(void)
{
	pid_t		 pid = getpid();
	ssize_t		 n;

	if (sdnotify_reported || sdnotify_pipe[1] == -1)
		return;
	sdnotify_reported = 1;
	/* Non-blocking, but 4 bytes into an empty-ish pipe never block. */
	do
		n = write(sdnotify_pipe[1], &pid, sizeof(pid));
	while (n == -1 && errno == EINTR);
	if (n != (ssize_t)sizeof(pid))
		log_warn("readiness report to the master");
	close(sdnotify_pipe[1]);
	sdnotify_pipe[1] = -1;
}

int
sdnotify_child_reported(pid_t *pid)
{
	ssize_t		 n;

	if (sdnotify_pipe[0] == -1)
		return (0);
	do
		n = read(sdnotify_pipe[0], pid, sizeof(*pid));
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof(*pid))
		return (1);
	if (n == -1 && errno != EAGAIN)
		log_warn("readiness pipe");
	else if (n > 0)
		log_warnx("readiness pipe: short read of %zd bytes", n);
	return (0);
}
