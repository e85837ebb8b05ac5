/*
 * test_sandbox.c - the restrictions of sandbox.c, applied for real
 *
 * A sandbox cannot be lifted, so each case forks a child, applies one
 * sandbox_*() call there and probes it with the system calls it must
 * refuse or still allow; the child reports the first probe that went wrong
 * and exits 1 (0: all held), and the parent asserts on that.  stderr is
 * /dev/null in the children (a regular file would keep RLIMIT_FSIZE off).
 */
#include "autoconf.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/sandbox.h"

/* Under valgrind a refused execve() kills the whole run ("EXEC FAILED: I
 * can't recover"), so the exec probes are left out there. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND	RUNNING_ON_VALGRIND
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND	0
#endif

/* The test's stderr, kept open in the children for PROBE's message. */
static int report_fd = -1;

/* PROBE - in a child: say which probe failed and exit 1 unless cond */
#define PROBE(cond) do {						\
	if (!(cond)) {							\
		dprintf(report_fd, "# probe failed: line %d: %s "	\
		    "(errno %d)\n", __LINE__, #cond, errno);		\
		_exit(1);						\
	}								\
} while (0)

/* run_child - fork, run fn in the child, return its exit status */
static int
run_child(void (*fn)(void))
{
	pid_t	 pid;
	int	 status, fd;

	fflush(NULL);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		report_fd = dup(STDERR_FILENO);
		if ((fd = open("/dev/null", O_WRONLY)) != -1) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status)) {
		print_error("child killed by signal %d\n", WTERMSIG(status));
		return (-1);
	}
	return (WEXITSTATUS(status));
}

/* limit_is - the soft and hard limit of resource are both value */
static int
limit_is(int resource, rlim_t value)
{
	struct rlimit rl;

	return (getrlimit(resource, &rl) == 0 && rl.rlim_cur == value &&
	    rl.rlim_max == value);
}

/* socket_refused - socket(family) fails with EPERM */
static int
socket_refused(int family)
{
	int	 fd;

	errno = 0;
	fd = socket(family, SOCK_STREAM, 0);
	if (fd != -1) {
		close(fd);
		return (0);
	}
	return (errno == EPERM);
}

/* socket_allowed - socket(family) works */
static int
socket_allowed(int family, int type)
{
	int	 fd;

	if ((fd = socket(family, type, 0)) == -1)
		return (0);
	close(fd);
	return (1);
}

/* fork_refused - fork() fails (the child, should there be one, exits) */
static int
fork_refused(void)
{
	pid_t	 pid;

	if ((pid = fork()) == 0)
		_exit(0);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return (0);
	}
	return (1);
}

/* exec_refused - execve of a real program fails with EPERM */
static int
exec_refused(void)
{
	char	*argv[] = { (char *)"true", NULL };
	char	*envp[] = { NULL };

	if (UNDER_VALGRIND)
		return (1);
	errno = 0;
	execve("/bin/true", argv, envp);
	return (errno == EPERM);
}

static void *
thread_fn(void *arg)
{
	return (arg);
}

/* thread_allowed - a thread starts and joins */
static int
thread_allowed(void)
{
	pthread_t t;
	void	*ret = NULL;
	int	 x = 1;

	if (pthread_create(&t, NULL, thread_fn, &x) != 0)
		return (0);
	return (pthread_join(t, &ret) == 0 && ret == &x);
}

/* fork_expect_refused - the seccomp filter refuses fork, or RLIMIT_NPROC
 * 0 does, which the kernel does not enforce for root (CAP_SYS_RESOURCE) */
static int
fork_expect_refused(void)
{
	return (sandbox_seccomp() || geteuid() != 0);
}

/* common_held - what sandbox_master() promises */
static int
common_held(void)
{
	return (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 &&
	    prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 &&
	    limit_is(RLIMIT_CORE, 0));
}

static void
child_master(void)
{
	sandbox_master();
	PROBE(common_held());
	/* the master keeps fork and the network */
	PROBE(!fork_refused());
	PROBE(socket_allowed(AF_INET, SOCK_STREAM));
}

static void
child_worker(void)
{
	char	 path[] = "/tmp/test_sandbox.XXXXXX";
	int	 fd, s[2];
	ssize_t	 n;

	fd = mkstemp(path);
	PROBE(fd != -1);
	unlink(path);
	sandbox_worker();
	PROBE(common_held());
	PROBE(limit_is(RLIMIT_NPROC, 0));
	PROBE(limit_is(RLIMIT_FSIZE, 0));
	/* a write that grows a file fails (SIGXFSZ ignored, no death) */
	n = write(fd, "x", 1);
	PROBE(n == -1 && errno == EFBIG);
	close(fd);
	if (fork_expect_refused())
		PROBE(fork_refused());
	PROBE(socket_allowed(AF_UNIX, SOCK_SEQPACKET));
	PROBE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	close(s[0]);
	close(s[1]);
	if (sandbox_seccomp()) {
		PROBE(socket_refused(AF_INET));
		PROBE(socket_refused(AF_INET6));
		PROBE(socket_refused(AF_NETLINK));
		PROBE(socket_refused(AF_PACKET));
		PROBE(exec_refused());
	}
}

static void
child_resolver(void)
{
	sandbox_resolver();
	PROBE(common_held());
	/* the resolver keeps the network and its threads */
	PROBE(socket_allowed(AF_INET, SOCK_STREAM));
	PROBE(socket_allowed(AF_INET6, SOCK_DGRAM) || errno == EAFNOSUPPORT);
	PROBE(thread_allowed());
	PROBE(limit_is(RLIMIT_FSIZE, RLIM_INFINITY) ||
	    !limit_is(RLIMIT_FSIZE, 0));
	if (sandbox_seccomp()) {
		PROBE(exec_refused());
		PROBE(fork_refused());
	}
}

/* A worker's restrictions stack on the master's, as in the daemon. */
static void
child_master_then_worker(void)
{
	sandbox_master();
	sandbox_worker();
	PROBE(common_held());
	if (fork_expect_refused())
		PROBE(fork_refused());
	if (sandbox_seccomp())
		PROBE(socket_refused(AF_INET));
	PROBE(socket_allowed(AF_UNIX, SOCK_DGRAM));
}

static void
master_restrictions(void **state)
{
	(void)state;
	assert_int_equal(run_child(child_master), 0);
}

static void
worker_restrictions(void **state)
{
	(void)state;
	assert_int_equal(run_child(child_worker), 0);
}

static void
resolver_restrictions(void **state)
{
	(void)state;
	assert_int_equal(run_child(child_resolver), 0);
}

static void
master_then_worker(void **state)
{
	(void)state;
	assert_int_equal(run_child(child_master_then_worker), 0);
}

/* Without the sandbox the probes must see the opposite: they can fail. */
static void
unsandboxed_child_is_free(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);
	assert_true(socket_allowed(AF_INET, SOCK_STREAM));
	assert_false(socket_refused(AF_INET));
	assert_false(fork_refused());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unsandboxed_child_is_free),
		cmocka_unit_test(master_restrictions),
		cmocka_unit_test(worker_restrictions),
		cmocka_unit_test(resolver_restrictions),
		cmocka_unit_test(master_then_worker),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
