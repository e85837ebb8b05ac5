/*
 * preload_run.h - the daemon's preload lists, imported on a schedule
 *
 * NAME
 *	preload_run - run postsmtpsts-cache preload from the master
 * SYNOPSIS
 *	if (preload_run_find(tool, sizeof(tool)) == 0)
 *		pid = preload_run_start(tool, cf->file);
 * DESCRIPTION
 *	The master imports the configured lists (preload { list ... }) at
 *	start, after each SIGHUP that loaded a configuration, and every
 *	preload.refresh_interval (at most 48 hours, the EFF list's rule) by
 *	running "postsmtpsts-cache -c FILE preload" as the daemon's user:
 *	the one import path (signature, parse, timestamp and expiry checks,
 *	the store's transaction) for the daemon and the operator, in a
 *	process of its own, never in a worker or the resolver (their seccomp
 *	filters forbid execve, and a 8 MiB parse does not belong in an event
 *	loop).  The tool is the one installed beside the daemon (the
 *	directory of /proc/self/exe: sbindir when installed, the build tree
 *	in tests).  Its messages go to the daemon's stderr (the journal, or
 *	the foreground log); its exit status is logged by the master.
 * SEE ALSO
 *	tools/cache_preload.h, doc/DESIGN.md "Preload lists".
 */
#ifndef PRELOAD_RUN_H
#define PRELOAD_RUN_H

#include <stddef.h>
#include <sys/types.h>

#define PRELOAD_RUN_TOOL	"postsmtpsts-cache"

/* preload_run_find - the tool beside this program into out; 0 or -1 */
int	preload_run_find(char *out, size_t outsz);

/* preload_run_start - spawn "tool -c conf preload" (stdin and stdout
 * /dev/null); its pid, or -1 (logged) */
pid_t	preload_run_start(const char *tool, const char *conf);

#endif
