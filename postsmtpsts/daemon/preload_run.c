/*
 * preload_run.c - postsmtpsts-cache preload, run by the master
 * (preload_run.h)
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/preload_run.h"
#include "lib/log.h"

int
preload_run_find(char *out, size_t outsz)
{
	char	 self[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return (-1);
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return (-1);
	*slash = '\0';
	if ((size_t)snprintf(out, outsz, "%s/%s", self, PRELOAD_RUN_TOOL) >=
	    outsz || access(out, X_OK) != 0)
		return (-1);
	return (0);
}

pid_t
preload_run_start(const char *tool, const char *conf)
{
	posix_spawn_file_actions_t fa;
	char		*argv[] = { (char *)PRELOAD_RUN_TOOL, (char *)"-c",
			    (char *)conf, (char *)"preload", NULL };
	char		*envp[] = { (char *)"LC_ALL=C",
			    (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
			    NULL };
	pid_t		 pid;
	int		 rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return (-1);
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0) != 0 || posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
	    O_WRONLY, 0) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return (-1);
	}
	rc = posix_spawn(&pid, tool, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		log_warnx("preload: %s: %s", tool, strerror(rc));
		return (-1);
	}
	log_info("preload: importing the configured lists (%s, pid %ld)",
	    tool, (long)pid);
	return (pid);
}
