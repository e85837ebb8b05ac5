/*
 * gpgv.c - run gpgv(1) on a detached signature
 *
 * Why gpgv and not OpenPGP code of ours: a signature check is a parser of
 * hostile bytes and a cryptographic decision; gpgv is the one Debian's
 * apt has used for its archive since 2005 (configure.ac says more).  How
 * it runs (gpgv.h): posix_spawn, a fixed argv, no shell, a minimal
 * environment, stdin closed, a deadline; the status lines decide, not the
 * exit status alone.
 *
 * Interface: gpgv_verify() (gpgv.h).  The status lines are read by
 * gpgv_status_parse() (gpgv_status.c).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/gpgv.h"
#include "lib/xmalloc.h"

/* The status fd gpgv writes to: above stderr, fixed in its argv. */
#define GPGV_STATUS_FD	3

/* gpgv_read - read what fd has into b (at most cap bytes kept, the rest
 * read and dropped); 0 at EOF, 1 while open */
static int
gpgv_read(int fd, char *b, size_t *n, size_t cap)
{
	char	 tmp[4096];
	ssize_t	 r;
	size_t	 k;

	r = read(fd, tmp, sizeof(tmp));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return (1);
	if (r <= 0)
		return (0);
	k = (size_t)r;
	if (k > cap - *n)
		k = cap - *n;
	memcpy(b + *n, tmp, k);
	*n += k;
	return (1);
}

/* gpgv_stderr_line - the last line of gpgv's stderr (its verdict: "BAD
 * signature from ...", "Can't check signature: No public key"),
 * printable, into out (outsz > 0) */
static void
gpgv_stderr_line(const char *p, size_t len, char *out, size_t outsz)
{
	size_t	 i, n = 0, s;

	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\r'))
		len--;
	for (s = len; s > 0 && p[s - 1] != '\n'; s--)
		;
	for (i = s; i < len && n + 1 < outsz; i++)
		out[n++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	out[n] = '\0';
}

int
gpgv_verify(const char *gpgv, const char *keyring, const char *sigfile,
    const char *datafile, int timeout_ms, struct gpgv_result *res)
{
	posix_spawn_file_actions_t fa;
	struct pollfd	 pfd[2];
	char		*argv[12], *envp[] = { (char *)"LC_ALL=C", NULL };
	char		*status, err[GPGV_MAX_STDERR];
	size_t		 ns = 0, ne = 0;
	int		 sp[2] = { -1, -1 }, ep[2] = { -1, -1 }, rc = -1;
	int		 wst, open_s = 1, open_e = 1, n, killed = 0;
	int64_t		 deadline;
	pid_t		 pid, w;

	res->good = 0;
	res->fpr[0] = '\0';
	res->why[0] = '\0';
	if (gpgv == NULL)
		gpgv = GPGV_PATH;
	argv[0] = (char *)"gpgv";
	argv[1] = (char *)"--homedir";
	argv[2] = (char *)"/nonexistent";	/* nothing of a user's */
	argv[3] = (char *)"--status-fd";
	argv[4] = (char *)"3";
	argv[5] = (char *)"--keyring";
	argv[6] = (char *)keyring;
	argv[7] = (char *)"--";
	argv[8] = (char *)sigfile;
	argv[9] = (char *)datafile;
	argv[10] = NULL;
	/* posix_spawn reports a missing program only where the C library
	 * spawns with vfork semantics; elsewhere (valgrind) the child exits
	 * 127: ask first, for one message everywhere */
	if (access(gpgv, X_OK) != 0) {
		(void)snprintf(res->why, sizeof(res->why), "%s: %s", gpgv,
		    strerror(errno));
		goto out;
	}
	if (pipe2(sp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
		(void)snprintf(res->why, sizeof(res->why), "pipe: %s",
		    strerror(errno));
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto out;
	/* stdin and stdout /dev/null, stderr and fd 3 our pipes: dup2 clears
	 * close-on-exec on the copies, every other descriptor of ours has it
	 * or is closed by the child's exec (O_CLOEXEC everywhere here) */
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
	    0) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, ep[1], 2) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, sp[1], GPGV_STATUS_FD) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		(void)snprintf(res->why, sizeof(res->why), "posix_spawn "
		    "actions failed");
		goto out;
	}
	n = posix_spawn(&pid, gpgv, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (n != 0) {
		(void)snprintf(res->why, sizeof(res->why), "%s: %s", gpgv,
		    strerror(n));
		goto out;
	}
	(void)close(sp[1]);
	(void)close(ep[1]);
	sp[1] = ep[1] = -1;
	status = xmalloc(GPGV_MAX_STATUS);
	deadline = clock_ms() + timeout_ms;
	while ((open_s || open_e) && !killed) {
		int64_t	 left = deadline - clock_ms();

		if (left <= 0) {
			(void)kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		pfd[0].fd = open_s ? sp[0] : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = open_e ? ep[0] : -1;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, 2, (int)(left > 1000 ? 1000 : left)) < 0 &&
		    errno != EINTR)
			break;
		if (open_s && pfd[0].revents != 0)
			open_s = gpgv_read(sp[0], status, &ns,
			    GPGV_MAX_STATUS);
		if (open_e && pfd[1].revents != 0)
			open_e = gpgv_read(ep[0], err, &ne, sizeof(err));
	}
	if (!killed && (open_s || open_e)) {
		(void)kill(pid, SIGKILL);
		killed = 1;
	}
	while ((w = waitpid(pid, &wst, 0)) == -1 && errno == EINTR)
		;
	if (killed)
		(void)snprintf(res->why, sizeof(res->why), "%s: no answer in "
		    "%d ms, killed", gpgv, timeout_ms);
	else if (w != pid)
		(void)snprintf(res->why, sizeof(res->why), "waitpid: %s",
		    strerror(errno));
	else {
		rc = 0;
		if (gpgv_status_parse(status, ns, res) == 0 &&
		    (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)) {
			res->good = 0;
			res->fpr[0] = '\0';
			(void)snprintf(res->why, sizeof(res->why), "gpgv "
			    "exited with status %d", WIFEXITED(wst) ?
			    WEXITSTATUS(wst) : 128 + WTERMSIG(wst));
		}
		if (!res->good && ne > 0) {
			char	 said[sizeof(res->why)], line[80];

			memcpy(said, res->why, sizeof(said));
			gpgv_stderr_line(err, ne, line, sizeof(line));
			/* bounded parts: the whole always fits */
			(void)snprintf(res->why, sizeof(res->why),
			    "%.160s (%.79s)", said, line);
		}
	}
	free(status);
out:
	if (sp[0] != -1)
		(void)close(sp[0]);
	if (sp[1] != -1)
		(void)close(sp[1]);
	if (ep[0] != -1)
		(void)close(ep[0]);
	if (ep[1] != -1)
		(void)close(ep[1]);
	return (rc);
}
