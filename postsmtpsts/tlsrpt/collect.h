/*
 * collect.h - the datagram socket Postfix's libtlsrpt sends to
 *
 * NAME
 *	collect - the reporter's second input: Postfix's own TLSRPT events
 * SYNOPSIS
 *	collect_open(path, group, err, errsz)
 *	collect_fd(c)
 *	collect_read(c, max, cb, arg)	deliver up to max datagrams
 *	collect_close(c)
 * DESCRIPTION
 *	A unix datagram socket at path (tlsrpt.socket: Postfix's
 *	smtp_tlsrpt_socket_name is relative to its queue directory, so
 *	/var/spool/postfix/run/tlsrpt/tlsrpt.sock is "run/tlsrpt/tlsrpt.sock"
 *	chrooted or not).  Only Postfix may write to it:
 *
 *	  - the socket is bound under umask 0177 (mode 0600: nobody can
 *	    send before the mode is set), then made 0620, group group
 *	    (tlsrpt.socket_group, "postfix": smtp(8) runs as Postfix's
 *	    mail_owner, a member).  Its directory is the operator's or the
 *	    unit's (postsmtpsts-tlsrpt --prepare-socket: owner the reporter's
 *	    user, group group, 2750): a directory anyone could write to is
 *	    refused.  A socket left at path by an earlier run is removed; any
 *	    other file there is an error;
 *	  - SO_PASSCRED: every datagram comes with its sender's pid, uid and
 *	    gid as the kernel knows them (SCM_CREDENTIALS), which the caller
 *	    checks (origin.h) per datagram.
 *
 *	collect_read() never blocks: it takes what the socket holds, at most
 *	max datagrams, each of at most DGRAM_MAX bytes (a longer one is
 *	delivered flagged too_long, with its first bytes, so the caller
 *	counts and refuses it; the kernel reports its real length).  One
 *	buffer of DGRAM_MAX + 1 bytes, whatever the rate: a flood costs CPU,
 *	never memory.  Datagrams the socket's queue cannot hold are refused
 *	by the kernel to the sender (libtlsrpt sends with MSG_DONTWAIT and
 *	Postfix logs the failure): the reader sees a full batch (backlog)
 *	and says so.
 */
#ifndef TLSRPT_COLLECT_H
#define TLSRPT_COLLECT_H

#include <sys/types.h>

#include <stddef.h>

struct collect;

struct collect_dgram {
	const char	*data;
	size_t		 len;		/* bytes delivered */
	int		 too_long;	/* the datagram had more */
	int		 has_cred;	/* the fields below are set */
	pid_t		 pid;
	uid_t		 uid;
	gid_t		 gid;
};

/* collect_cb - one datagram; valid during the call only */
typedef void	collect_cb(const struct collect_dgram *d, void *arg);

/* collect_open - bind the socket at path, group group (a name or id);
 * NULL with a message in err */
struct collect	*collect_open(const char *path, const char *group, char *err,
		    size_t errsz);

/* collect_fd - the socket, for the event loop (readable: datagrams) */
int		 collect_fd(const struct collect *c);

/* collect_read - up to max datagrams to cb: how many, 0 when none are
 * waiting, -1 on a socket error (logged) */
long		 collect_read(struct collect *c, size_t max, collect_cb *cb,
		    void *arg);

/* collect_path - the socket's path */
const char	*collect_path(const struct collect *c);

/* collect_close - close and remove the socket; NULL is a no-op */
void		 collect_close(struct collect *c);

/* collect_prepare - as root, before the reporter starts (the unit's
 * ExecStartPre=+): make the socket's directory, owner user, group group,
 * mode 2750; an existing one is set so: 0, or -1 with a message */
int		 collect_prepare(const char *path, const char *user,
		    const char *group, char *err, size_t errsz);

#endif
