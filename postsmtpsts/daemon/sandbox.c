/*
 * sandbox.c - restrict each process after its set-up (interface: sandbox.h)
 *
 * The privilege drop (master.c) already makes every process an ordinary,
 * unprivileged user.  This module narrows what such a process can do, so a
 * bug in a parser that an attacker drives (a worker reading Postfix's
 * requests, the resolver reading DNS and HTTPS answers) gains as little as
 * possible:
 *
 *   all (set by the master after the drop, inherited by every child)
 *     PR_SET_NO_NEW_PRIVS   exec of a set-uid/set-gid or file-capability
 *                           program can no longer raise privileges
 *     PR_SET_DUMPABLE 0     no ptrace, /proc/PID/mem or core by the same
 *                           user (the drop from root already implies it;
 *                           this covers a start as an ordinary user)
 *     RLIMIT_CORE 0         no core files (they would hold cache data)
 *   front workers
 *     RLIMIT_NPROC 0        no new process (fork fails with EAGAIN)
 *     RLIMIT_FSIZE 0        no file may grow: a worker writes no file (its
 *                           LMDB environment is read-only; the reader
 *                           table lives in an existing, sized lock file
 *                           written through mmap).  SIGXFSZ is ignored so
 *                           a refused write is an error, not a death.  Not
 *                           set when stderr is a regular file (-f with the
 *                           log redirected to a file), which it would
 *                           silence.
 *     seccomp (libseccomp)  socket() of any family but AF_UNIX fails with
 *                           EPERM, so no outbound connection can be made:
 *                           the only other sockets a worker holds are its
 *                           listeners (connect(2) on a listening socket
 *                           fails) and accepted connections.  AF_UNIX stays
 *                           for the resolver socket and syslog(3).
 *   resolver
 *     seccomp               the common denials below; it keeps the network
 *                           (DNS, HTTPS) and writes the cache directory.
 *
 * Common seccomp denials (workers and resolver): execve/execveat, fork,
 * vfork, clone without CLONE_THREAD (threads stay allowed: libcurl's
 * resolver uses them), clone3 (ENOSYS, so glibc falls back to
 * clone, which is checked), ptrace, process_vm_readv/writev, and the
 * kernel-administration calls no daemon of ours makes (mount, module
 * loading, bpf, perf_event_open, keyctl, unshare, setns, ...).
 *
 * The filter's default action is ALLOW with explicit EPERM denials, not a
 * strict allow-list: glibc, libevent, LMDB, libunbound, libcurl and GnuTLS
 * use system calls that change between library versions (openat2, clone3,
 * rseq, getrandom, futex_waitv, statx, ...), and an allow-list that misses
 * one kills the daemon on a distribution update - defers all mail - for no
 * gain against the attacks above.  A denial returns EPERM rather than
 * killing the process, so a library probing a call degrades gracefully and
 * the worker keeps serving.  System calls of another ABI (i386 int 0x80,
 * x32) match no architecture of the filter and kill the process
 * (libseccomp's default bad-architecture action), so they cannot bypass it.
 *
 * Without libseccomp (configure --without-seccomp or not installed), the
 * prctl and rlimit restrictions still apply and sandbox_seccomp() is 0.
 * There is no file-system restriction beyond Unix permissions: the daemon
 * user owns only the cache directory and the runtime directory (landlock
 * is not available through Debian 12's libraries).
 */
#include "autoconf.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "lib/log.h"
#include "daemon/sandbox.h"

/* sandbox_rlimit - set both limits of resource to value, or die */
static void
sandbox_rlimit(int resource, const char *name, rlim_t value)
{
	struct rlimit rl;

	rl.rlim_cur = value;
	rl.rlim_max = value;
	if (setrlimit(resource, &rl) == -1)
		fatal("sandbox: setrlimit %s %llu", name,
		    (unsigned long long)value);
}

/* sandbox_common - what every process gets (all idempotent) */
static void
sandbox_common(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("sandbox: prctl PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("sandbox: prctl PR_SET_DUMPABLE");
	sandbox_rlimit(RLIMIT_CORE, "RLIMIT_CORE", 0);
}

#ifdef HAVE_SECCOMP
/* Denied with EPERM in workers and the resolver (see the file comment). */
static const int sandbox_denied[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat),
	SCMP_SYS(fork), SCMP_SYS(vfork),
	SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
	SCMP_SYS(process_vm_writev),
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
	SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns),
	SCMP_SYS(init_module), SCMP_SYS(finit_module),
	SCMP_SYS(delete_module), SCMP_SYS(kexec_load),
	SCMP_SYS(kexec_file_load), SCMP_SYS(reboot),
	SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(acct),
	SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
	SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
	SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
	SCMP_SYS(quotactl), SCMP_SYS(syslog), SCMP_SYS(vhangup),
	SCMP_SYS(settimeofday), SCMP_SYS(clock_settime),
	SCMP_SYS(clock_adjtime), SCMP_SYS(adjtimex),
	SCMP_SYS(sethostname), SCMP_SYS(setdomainname),
	SCMP_SYS(fanotify_init), SCMP_SYS(lookup_dcookie),
};

/* sandbox_rule - add one rule or die; rc from seccomp_rule_add() */
static void
sandbox_rule(int rc, int sys)
{
	char	*name;

	if (rc == 0)
		return;
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, sys);
	errno = -rc;
	fatal("sandbox: seccomp rule for %s", name != NULL ? name : "?");
}

/* sandbox_filter - load the common denials, and with no_inet the socket
 * rule, as one more filter on this process */
static void
sandbox_filter(int no_inet)
{
	/* all four fields: SCMP_A0() leaves datum_b out (clang warns) */
#if !defined(__s390__) && !defined(__s390x__) && !defined(__CRIS__)
	const struct scmp_arg_cmp no_thread = { .arg = 0,
		.op = SCMP_CMP_MASKED_EQ, .datum_a = CLONE_THREAD,
		.datum_b = 0 };
#endif
	const struct scmp_arg_cmp not_unix = { .arg = 0, .op = SCMP_CMP_NE,
		.datum_a = AF_UNIX, .datum_b = 0 };
	scmp_filter_ctx ctx;
	size_t	 i;
	int	 rc;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		fatalx("sandbox: seccomp_init failed");
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	/* A binary tree of the rules: every allowed system call (a warm
	 * lookup's read and send among them) passes log2 of the ~45 rules
	 * instead of all of them.  Where libseccomp cannot, the linear
	 * filter it builds instead is as strict. */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#endif
	for (i = 0; i < sizeof(sandbox_denied) / sizeof(sandbox_denied[0]);
	    i++)
		sandbox_rule(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    sandbox_denied[i], 0), sandbox_denied[i]);
	/* glibc >= 2.34 falls back to clone(2) when clone3 is ENOSYS;
	 * clone3's flags are in memory, out of a filter's reach. */
	sandbox_rule(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0), SCMP_SYS(clone3));
#if !defined(__s390__) && !defined(__s390x__) && !defined(__CRIS__)
	/* clone's flags are its first argument except on s390 and CRIS. */
	sandbox_rule(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    SCMP_SYS(clone), 1, no_thread), SCMP_SYS(clone));
#endif
	if (no_inet)
		sandbox_rule(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(socket), 1, not_unix), SCMP_SYS(socket));
	if ((rc = seccomp_load(ctx)) != 0) {
		seccomp_release(ctx);
		errno = -rc;
		fatal("sandbox: seccomp_load");
	}
	seccomp_release(ctx);
}
#endif

void
sandbox_master(void)
{
	if (geteuid() == 0)
		log_warnx("running as root: set \"user\" so that no process "
		    "keeps root after start");
	sandbox_common();
}

void
sandbox_worker(void)
{
	struct stat st;

	sandbox_common();
	sandbox_rlimit(RLIMIT_NPROC, "RLIMIT_NPROC", 0);
	signal(SIGXFSZ, SIG_IGN);
	if (fstat(STDERR_FILENO, &st) == 0 && S_ISREG(st.st_mode))
		log_debug(1, "sandbox: stderr is a file: RLIMIT_FSIZE not set");
	else
		sandbox_rlimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", 0);
#ifdef HAVE_SECCOMP
	sandbox_filter(1);
#endif
}

void
sandbox_resolver(void)
{
	sandbox_common();
#ifdef HAVE_SECCOMP
	sandbox_filter(0);
#endif
}

int
sandbox_seccomp(void)
{
#ifdef HAVE_SECCOMP
	return (1);
#else
	return (0);
#endif
}
