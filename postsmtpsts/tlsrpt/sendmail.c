/*
 * sendmail.c - hand a mail to Postfix's sendmail(1)
 *
 * Interface: sendmail.h.  The child's stdin is a pipe the whole message
 * is written to (non-blocking, with poll(), so a sendmail that stops
 * reading cannot hang us past the timeout), stdout goes to /dev/null,
 * stderr to a pipe read for the log.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "tlsrpt/sendmail.h"

#define SENDMAIL_ERR_MAX	200	/* stderr bytes kept */

/* sendmail_child - in the child: stdin, stdout, stderr, exec */
static void __attribute__((noreturn))
sendmail_child(const char *sendmail, const char *from, const char *to,
    int in, int err)
{
	char	*argv[7];
	int	 null;

	if (dup2(in, STDIN_FILENO) == -1 || dup2(err, STDERR_FILENO) == -1)
		_exit(EX_OSERR);
	if ((null = open("/dev/null", O_WRONLY)) != -1)
		dup2(null, STDOUT_FILENO);
	argv[0] = (char *)(uintptr_t)sendmail;
	argv[1] = (char *)"-i";
	argv[2] = (char *)"-f";
	argv[3] = (char *)(uintptr_t)from;
	argv[4] = (char *)"--";
	argv[5] = (char *)(uintptr_t)to;
	argv[6] = NULL;
	execv(sendmail, argv);
	_exit(EX_OSERR);
}

int
sendmail_run(const char *sendmail, const char *from, const char *to,
    const void *msg, size_t len, int timeout, int *temporary, char *why,
    size_t whysz)
{
	struct pollfd	 pfd[2];
	char		 err[SENDMAIL_ERR_MAX + 1], c;
	int		 in[2] = { -1, -1 }, ep[2] = { -1, -1 }, status, n;
	size_t		 off = 0, elen = 0, i;
	ssize_t		 w;
	int64_t		 end = clock_ms() + (int64_t)timeout * 1000;
	pid_t		 pid, r;

	*temporary = 1;
	why[0] = '\0';
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(why, whysz, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((pid = fork()) == -1) {
		snprintf(why, whysz, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		sendmail_child(sendmail, from, to, in[0], ep[1]);
	close(in[0]);
	close(ep[1]);
	in[0] = ep[1] = -1;
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(ep[0], F_SETFL, O_NONBLOCK);
	while (in[1] != -1 || ep[0] != -1) {
		n = 0;
		if (in[1] != -1) {
			pfd[n].fd = in[1];
			pfd[n++].events = POLLOUT;
		}
		if (ep[0] != -1) {
			pfd[n].fd = ep[0];
			pfd[n++].events = POLLIN;
		}
		if (clock_ms() >= end ||
		    poll(pfd, (nfds_t)n, (int)(end - clock_ms())) == 0) {
			kill(pid, SIGKILL);
			snprintf(why, whysz, "timed out after %d s", timeout);
			break;
		}
		for (i = 0; i < (size_t)n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == in[1]) {
				w = write(in[1], (const char *)msg + off,
				    len - off);
				if (w > 0)
					off += (size_t)w;
				if ((w == -1 && errno != EAGAIN &&
				    errno != EINTR) || off == len) {
					close(in[1]);
					in[1] = -1;
				}
			} else {
				w = read(ep[0], &c, 1);
				if (w == 1 && elen < SENDMAIL_ERR_MAX)
					err[elen++] = c >= ' ' && c < 0x7f ?
					    c : ' ';
				else if (w == 0 || (w == -1 && errno != EAGAIN &&
				    errno != EINTR)) {
					close(ep[0]);
					ep[0] = -1;
				}
			}
		}
	}
	while ((r = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		;
	err[elen] = '\0';
	if (r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    off == len && why[0] == '\0')
		goto ok;
	if (why[0] == '\0') {
		if (r == pid && WIFEXITED(status)) {
			snprintf(why, whysz, "exit %d: %s", WEXITSTATUS(status),
			    err);
			switch (WEXITSTATUS(status)) {
			case EX_NOUSER:
			case EX_DATAERR:
			case EX_USAGE:
			case EX_NOHOST:
				*temporary = 0;
				break;
			default:
				break;
			}
		} else
			snprintf(why, whysz, "killed or lost: %s", err);
	}
fail:
	for (i = 0; i < 2; i++) {
		if (in[i] != -1)
			close(in[i]);
		if (ep[i] != -1)
			close(ep[i]);
	}
	return (-1);
ok:
	if (in[1] != -1)
		close(in[1]);
	if (ep[0] != -1)
		close(ep[0]);
	return (0);
}
