/*
 * sdnotify.h - systemd readiness notification and socket activation
 *
 * A thin wrapper over libsystemd's sd_notify(3) and sd_listen_fds(3), so
 * that master.c gains only a few calls and a build without libsystemd
 * (configure --without-systemd) compiles every call to a no-op, except
 * that a socket-activated start is then refused with a clear message.
 *
 * Readiness: the master sends READY=1 only once every listener is bound
 * and every child of the current generation (front workers and resolver)
 * has entered its event loop.  Children report that over a pipe the
 * master creates before forking (sdnotify_children_begin), one 4-byte pid
 * per child (an atomic pipe write), with sdnotify_child_ready().
 *
 * Socket activation (LISTEN_PID/LISTEN_FDS, sd_listen_fds(3)): the master
 * asks for a passed socket matching each configured listener
 * (sdnotify_take_unix/_inet); a listener that none matches is bound as
 * usual; a passed socket that matches no listener is a start-up error
 * (sdnotify_listen_done), because it would be a listener nobody serves.
 */
#ifndef SDNOTIFY_H
#define SDNOTIFY_H

#include <sys/types.h>
#include <sys/socket.h>

/*
 * sdnotify_init - called once by the master before it binds anything:
 * notices NOTIFY_SOCKET and the sockets passed by the service manager.
 * Fatal if sockets were passed but the build has no libsystemd.
 */
void	sdnotify_init(void);

/* sdnotify_enabled - 1 if readiness messages go anywhere (NOTIFY_SOCKET) */
int	sdnotify_enabled(void);

/*
 * sdnotify_send - send one sd_notify(3) state string such as "READY=1\n
 * STATUS=...", built from fmt.  No-op when not enabled.
 */
void	sdnotify_send(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/* sdnotify_activated - number of sockets the service manager passed */
int	sdnotify_activated(void);

/*
 * sdnotify_take_unix - the passed listening SOCK_STREAM socket bound to
 * path, now owned by the caller, or -1 if none.
 */
int	sdnotify_take_unix(const char *path);

/*
 * sdnotify_take_inet - the passed listening SOCK_STREAM socket bound to
 * exactly addr (family, address and port), or -1 if none.
 */
int	sdnotify_take_inet(const struct sockaddr *addr, socklen_t len);

/*
 * sdnotify_listen_done - after every listener has had its chance: fatal
 * if a passed socket was not taken, naming it.
 */
void	sdnotify_listen_done(void);

/*
 * sdnotify_children_begin - master, before forking a generation: open
 * the readiness pipe (once; kept open across reloads).  No-op when not
 * enabled.
 */
void	sdnotify_children_begin(void);

/*
 * sdnotify_child_ready - a child, once its event loop is about to run:
 * tell the master (first call only; closes the pipe in the child).
 */
void	sdnotify_child_ready(void);

/*
 * sdnotify_child_forked - a child, right after fork: keep only the write
 * end of the readiness pipe.
 */
void	sdnotify_child_forked(void);

/*
 * sdnotify_child_reported - master: read one readiness report without
 * blocking.  Returns 1 and sets *pid, or 0 when there is none.
 */
int	sdnotify_child_reported(pid_t *pid);

#endif
