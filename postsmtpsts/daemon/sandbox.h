/*
 * sandbox.h - what each process may still do after its set-up
 *
 * One call per process kind, made once its set-up is done (listeners,
 * event base, resolver connection, libraries initialized) and before it
 * handles any untrusted input.  Each is idempotent in effect, never
 * undone, inherited by any child, and fails closed: if a restriction that
 * this build promises cannot be applied, the process exits (fatal) rather
 * than run without it.  What each one applies is listed in sandbox.c and
 * SECURITY.md.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

/* sandbox_master - after the privilege drop: no new privileges (so no
 * set-uid program or file capability can raise them again), not dumpable
 * (no ptrace or /proc/PID/mem by other processes of the same user), no
 * core files.  Inherited by the workers and the resolver. */
void	sandbox_master(void);

/* sandbox_worker - a front worker: sandbox_master()'s restrictions, no
 * new processes (RLIMIT_NPROC 0), no file growth (RLIMIT_FSIZE 0, unless
 * its log is a regular file) and, with seccomp, no sockets but AF_UNIX
 * ones, no exec, no fork, no ptrace and no kernel-administration calls. */
void	sandbox_worker(void);

/* sandbox_resolver - the resolver: sandbox_master()'s restrictions and,
 * with seccomp, no exec, no fork (threads are fine), no ptrace and no
 * kernel-administration calls; it keeps the network. */
void	sandbox_resolver(void);

/* sandbox_seccomp - 1 if this build applies seccomp filters, else 0 */
int	sandbox_seccomp(void);

#endif
