/*
 * master.c - listeners, privilege drop, prefork supervision, signals
 *
 * Start-up order matters for safety:
 *   1. bind every listener (unix sockets are created under a temporary name
 *      with mode 0 and renamed into place after chown/chmod, so no client
 *      ever sees a socket with the wrong owner or mode);
 *   2. create the runtime directory and write the pid file;
 *   3. drop privileges (setgroups, setgid, setuid) - no process keeps root;
 *   4. fork the workers, each with the listening sockets, and the
 *      resolvers (cf->resolvers shards, lib/ipc.h), each with the internal
 *      SOCK_SEQPACKET socket the workers reach it by.
 *
 * Supervision uses no event library: signals are blocked and taken
 * synchronously with sigtimedwait(2), in the spirit of NSD's main loop.  A
 * worker that dies is restarted after a backoff that doubles while it keeps
 * dying within MASTER_STABLE_SECS of its start.
 *
 * SIGHUP: re-read the configuration; if it is valid, fork a new generation
 * of workers with it and tell the old generation to finish (SIGTERM); the
 * listening sockets stay open throughout, so no connection is refused.
 * Listener changes need a restart (we no longer have the privileges to bind).
 * SIGTERM/SIGINT: tell every worker to finish in-flight requests, wait (at
 * most MASTER_STOP_GRACE_SECS, then SIGKILL), remove the pid file and unix
 * sockets, exit 0.
 *
 * Under systemd (sdnotify.h): READY=1 once the listeners are bound and every
 * child of the generation has reported that its event loop runs;
 * RELOADING=1 ... READY=1 around a SIGHUP; STOPPING=1 on SIGTERM.  Sockets
 * passed by socket activation replace the listeners they match (and are
 * never unlinked by us); the others are bound as above.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/log.h"
#include "daemon/master.h"
#include "daemon/metrics.h"
#include "daemon/preload_run.h"
#include "daemon/resolver.h"
#include "daemon/stats.h"
#include "daemon/sdnotify.h"
#include "daemon/sandbox.h"
#include "lib/ipc.h"
#include "daemon/worker.h"
#include "lib/xmalloc.h"

#define MASTER_BACKLOG	1024

enum child_kind {
	CHILD_WORKER,
	CHILD_RESOLVER,
	CHILD_METRICS,
};

struct child {
	pid_t		 pid;		/* 0: slot empty */
	enum child_kind	 kind;
	int		 slot;
	int		 shard;		/* a resolver's: 0 .. nrfds-1 */
	unsigned	 generation;
	struct timespec	 started;
	unsigned	 backoff_ms;	/* next restart delay */
	struct timespec	 restart_at;	/* valid when pid == 0 && pending */
	int		 pending;	/* restart scheduled */
	int		 ready;		/* reported its event loop running */
};

struct master {
	struct config	*cf;
	int		 foreground;
	int		*fds;
	int		 nfds;
	int		*rfds;		/* each resolver's SEQPACKET listener */
	char	       **rpaths;	/* and its path */
	int		 nrfds;		/* cf->resolvers at the start: reloads
					   keep it (the sockets are bound) */
	int		 mfd;		/* the metrics listener, or -1 */
	char		*spath;		/* the stats file */
	struct child	*children;	/* current generation: cf->workers
					   front workers, then the resolvers,
					   then the metrics server */
	int		 nchildren;
	pid_t		*old;		/* previous generations, draining */
	int		 nold;
	unsigned	 generation;
	int		 stopping;
	uid_t		 uid;
	gid_t		 gid;
	int		 drop;
	int		*inherited;	/* per cf->listen[]: socket activated */
	int		 notify;	/* READY=1 owed once children are up */
	/* preload lists (preload_run.h): the import running, the next */
	char		 ptool[PATH_MAX];	/* "": none found */
	pid_t		 ppid;
	struct timespec	 pnext;
	int		 pdue;		/* a run is owed at pnext */
	int		 pwarned;	/* "no tool" said once */
};

/* master_ms_between - b - a in milliseconds */
static long long
master_ms_between(struct timespec a, struct timespec b)
{
	return ((long long)(b.tv_sec - a.tv_sec) * 1000 +
	    (b.tv_nsec - a.tv_nsec) / 1000000);
}

/* master_lookup_ids - resolve the configured user and group */
static void
master_lookup_ids(struct master *m)
{
	struct passwd	*pw;
	struct group	*gr;

	m->drop = 0;
	if (m->cf->user == NULL || *m->cf->user == '\0')
		return;
	if (geteuid() != 0) {
		log_info("not started as root: running as uid %ld, "
		    "user \"%s\" ignored", (long)geteuid(), m->cf->user);
		return;
	}
	if ((pw = getpwnam(m->cf->user)) == NULL)
		fatalx("%s: user \"%s\" does not exist (create it, e.g. "
		    "useradd --system %s, or set user = \"\")", m->cf->file,
		    m->cf->user, m->cf->user);
	if (pw->pw_uid == 0)
		fatalx("%s: user \"%s\" is root: refusing to run as root",
		    m->cf->file, m->cf->user);
	m->uid = pw->pw_uid;
	m->gid = pw->pw_gid;
	if (m->cf->group != NULL && *m->cf->group != '\0') {
		if ((gr = getgrnam(m->cf->group)) == NULL)
			fatalx("%s: group \"%s\" does not exist", m->cf->file,
			    m->cf->group);
		m->gid = gr->gr_gid;
	}
	m->drop = 1;
}

/* master_drop_privileges - become the configured user for good */
static void
master_drop_privileges(struct master *m)
{
	if (!m->drop)
		return;
	if (setgroups(1, &m->gid) == -1)
		fatal("setgroups");
	if (setresgid(m->gid, m->gid, m->gid) == -1)
		fatal("setresgid %ld", (long)m->gid);
	if (setresuid(m->uid, m->uid, m->uid) == -1)
		fatal("setresuid %ld", (long)m->uid);
	if (setuid(0) != -1)
		panic("privileges could be regained after the drop");
	log_debug(1, "running as uid %ld gid %ld", (long)m->uid, (long)m->gid);
}

/* master_bind_unix - create a unix listener atomically with its mode */
static int
master_bind_unix(const struct config_listen *l, uid_t uid, gid_t gid)
{
	struct sockaddr_un sun;
	struct passwd	*pw;
	struct group	*gr;
	char		 tmp[sizeof(sun.sun_path)];
	mode_t		 oldmask;
	int		 fd, n;

	n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", l->path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		fatalx("%s: unix socket path too long", l->path);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, tmp, (size_t)n + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket(AF_UNIX)");
	(void)unlink(tmp);
	/* Mode 0 until chown and chmod are done: no window for others. */
	oldmask = umask(0777);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		umask(oldmask);
		fatal("bind %s", tmp);
	}
	umask(oldmask);
	if (l->owner != NULL && *l->owner != '\0') {
		if ((pw = getpwnam(l->owner)) == NULL)
			fatalx("listen %s: owner \"%s\" does not exist",
			    l->spec, l->owner);
		uid = pw->pw_uid;
	}
	if (l->group != NULL && *l->group != '\0') {
		if ((gr = getgrnam(l->group)) == NULL)
			fatalx("listen %s: group \"%s\" does not exist",
			    l->spec, l->group);
		gid = gr->gr_gid;
	}
	if (geteuid() == 0 && chown(tmp, uid, gid) == -1)
		fatal("chown %s", tmp);
	if (chmod(tmp, l->mode) == -1)
		fatal("chmod %s", tmp);
	if (listen(fd, MASTER_BACKLOG) == -1)
		fatal("listen %s", l->path);
	if (rename(tmp, l->path) == -1)
		fatal("rename %s to %s", tmp, l->path);
	return (fd);
}

/* master_bind_inet - bind every address of host:port; returns count */
static int
master_bind_inet(const struct config_listen *l, int **fds, int *nfds)
{
	struct addrinfo	 hints, *res, *ai;
	int		 fd, error, on = 1, count = 0;
	const char	*host;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	host = strcmp(l->host, "*") == 0 ? NULL : l->host;
	if ((error = getaddrinfo(host, l->port, &hints, &res)) != 0)
		fatalx("listen %s: %s", l->spec, gai_strerror(error));
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = sdnotify_take_inet(ai->ai_addr,
		    ai->ai_addrlen)) != -1) {
			log_info("listen %s: socket from the service manager",
			    l->spec);
			*fds = xreallocarray(*fds, (size_t)*nfds + 1,
			    sizeof(**fds));
			(*fds)[(*nfds)++] = fd;
			count++;
			continue;
		}
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1)
			fatal("listen %s: socket", l->spec);
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == -1)
			fatal("listen %s: SO_REUSEADDR", l->spec);
		/* Let "*" bind IPv4 and IPv6 separately. */
		if (ai->ai_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
		    IPV6_V6ONLY, &on, sizeof(on)) == -1)
			fatal("listen %s: IPV6_V6ONLY", l->spec);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == -1)
			fatal("listen %s: bind", l->spec);
		if (listen(fd, MASTER_BACKLOG) == -1)
			fatal("listen %s", l->spec);
		*fds = xreallocarray(*fds, (size_t)*nfds + 1, sizeof(**fds));
		(*fds)[(*nfds)++] = fd;
		count++;
	}
	freeaddrinfo(res);
	return (count);
}

/* master_bind_all - open every configured listener */
static void
master_bind_all(struct master *m)
{
	size_t		 i;
	int		 fd;

	m->inherited = xcalloc(m->cf->nlisten + 1, sizeof(*m->inherited));
	for (i = 0; i < m->cf->nlisten; i++) {
		const struct config_listen *l = &m->cf->listen[i];

		if (l->kind == CONFIG_LISTEN_UNIX) {
			/* Its mode and owner are the .socket unit's then. */
			if ((fd = sdnotify_take_unix(l->path)) != -1) {
				m->inherited[i] = 1;
				log_info("listen %s: socket from the service "
				    "manager", l->spec);
			} else
				fd = master_bind_unix(l, m->drop ? m->uid :
				    getuid(), m->drop ? m->gid : getgid());
			m->fds = xreallocarray(m->fds, (size_t)m->nfds + 1,
			    sizeof(*m->fds));
			m->fds[m->nfds++] = fd;
		} else
			master_bind_inet(l, &m->fds, &m->nfds);
		log_info("listening on %s", l->spec);
	}
	sdnotify_listen_done();
}

/*
 * master_bind_resolvers - the internal sockets workers reach the resolvers
 * by, one a resolver
 *
 * SOCK_SEQPACKET keeps message boundaries; each socket file is created with
 * mode 0 and opened to the daemon's user only (0600), so no other local
 * user can talk to a resolver.  The count is the starting configuration's:
 * a reload that changes "resolvers" needs a restart (as listeners do), since
 * the workers route by it (ipc_shard) and only root could bind more.
 */
static void
master_bind_resolvers(struct master *m)
{
	struct sockaddr_un sun;
	mode_t		 oldmask;
	int		 i, fd;

	m->nrfds = m->cf->resolvers;
	m->rfds = xcalloc((size_t)m->nrfds, sizeof(*m->rfds));
	m->rpaths = xcalloc((size_t)m->nrfds, sizeof(*m->rpaths));
	for (i = 0; i < m->nrfds; i++) {
		if (ipc_resolver_addr(m->cf->runtime_dir, i, &sun) == -1)
			fatalx("%s: runtime_dir too long for a socket path",
			    m->cf->file);
		m->rpaths[i] = xstrdup(sun.sun_path);
		if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) ==
		    -1)
			fatal("socket(AF_UNIX, SOCK_SEQPACKET)");
		m->rfds[i] = fd;
		(void)unlink(sun.sun_path);
		oldmask = umask(0777);
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
			umask(oldmask);
			fatal("bind %s", sun.sun_path);
		}
		umask(oldmask);
		if (m->drop && chown(sun.sun_path, m->uid, m->gid) == -1)
			fatal("chown %s", sun.sun_path);
		if (chmod(sun.sun_path, 0600) == -1)
			fatal("chmod %s", sun.sun_path);
		if (listen(fd, MASTER_BACKLOG) == -1)
			fatal("listen %s", sun.sun_path);
	}
}

/* master_close_resolvers - a child: close the resolver listeners but keep */
static void
master_close_resolvers(struct master *m, int keep)
{
	int		 i;

	for (i = 0; i < m->nrfds; i++)
		if (i != keep)
			close(m->rfds[i]);
}

/* master_runtime_dir - create the runtime directory owned by the user */
static void
master_runtime_dir(struct master *m)
{
	const char	*dir = m->cf->runtime_dir;

	if (dir == NULL || *dir == '\0')
		return;
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		fatal("mkdir %s", dir);
	if (m->drop && chown(dir, m->uid, m->gid) == -1)
		fatal("chown %s", dir);
}

/* master_stats_file - the shared counters (stats.h), before any fork */
static void
master_stats_file(struct master *m)
{
	char		 path[CONFIG_MAX_PATH + 16], err[512];
	int		 n;

	n = snprintf(path, sizeof(path), "%s/%s", m->cf->runtime_dir,
	    STATS_FILE);
	if (n < 0 || (size_t)n >= sizeof(path))
		fatalx("%s: runtime_dir too long", m->cf->file);
	if (stats_create(path, m->drop, m->uid, m->gid, err, sizeof(err)) ==
	    -1) {
		log_warnx("no shared counters: %s", err);
		return;
	}
	m->spath = xstrdup(path);
}

/* master_write_pid - write the pid file (after daemonizing) */
static void
master_write_pid(struct master *m)
{
	char		 line[32];
	int		 fd, n;

	if (m->cf->pid_file == NULL || *m->cf->pid_file == '\0')
		return;
	fd = open(m->cf->pid_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (fd == -1)
		fatal("open %s", m->cf->pid_file);
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (write(fd, line, (size_t)n) != n)
		fatal("write %s", m->cf->pid_file);
	if (m->drop && fchown(fd, m->uid, m->gid) == -1)
		fatal("chown %s", m->cf->pid_file);
	close(fd);
}

/* master_cleanup - remove what we created in the file system */
static void
master_cleanup(struct master *m)
{
	size_t		 i;

	if (m->cf->pid_file != NULL && *m->cf->pid_file != '\0' &&
	    unlink(m->cf->pid_file) == -1 && errno != ENOENT)
		log_warn("unlink %s", m->cf->pid_file);
	for (i = 0; i < m->cf->nlisten; i++)
		if (m->cf->listen[i].kind == CONFIG_LISTEN_UNIX &&
		    !m->inherited[i] && unlink(m->cf->listen[i].path) == -1 &&
		    errno != ENOENT)
			log_warn("unlink %s", m->cf->listen[i].path);
	for (i = 0; i < (size_t)m->nrfds; i++)
		if (m->rpaths[i] != NULL && unlink(m->rpaths[i]) == -1 &&
		    errno != ENOENT)
			log_warn("unlink %s", m->rpaths[i]);
	stats_close();
	if (m->spath != NULL && unlink(m->spath) == -1 && errno != ENOENT)
		log_warn("unlink %s", m->spath);
}

/* master_kind - a child's kind, for logs */
static const char *
master_kind(const struct child *ch)
{
	return (ch->kind == CHILD_RESOLVER ? "resolver" :
	    ch->kind == CHILD_METRICS ? "metrics" : "worker");
}

/* master_num - a child's number for logs: a resolver's shard, else its
 * slot */
static int
master_num(const struct child *ch)
{
	return (ch->kind == CHILD_RESOLVER ? ch->shard : ch->slot);
}

/* master_fork_worker - start the process for one slot */
static void
master_fork_worker(struct master *m, struct child *ch)
{
	sigset_t	 none;
	pid_t		 pid;
	int		 status, i;

	if ((pid = fork()) == -1) {
		log_warn("fork worker %d", ch->slot);
		ch->pending = 1;
		ch->restart_at = clock_mono();
		ch->restart_at.tv_sec += 1;
		return;
	}
	if (pid == 0) {
		sdnotify_child_forked();
		sigemptyset(&none);
		signal(SIGHUP, SIG_IGN);	/* the master rolls workers */
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (ch->kind != CHILD_METRICS && m->mfd != -1)
			close(m->mfd);
		if (ch->kind == CHILD_METRICS) {
			for (i = 0; i < m->nfds; i++)
				close(m->fds[i]);
			master_close_resolvers(m, -1);
			stats_attach(STATS_SLOT_METRICS);
			log_set_ident("postsmtpsts/metrics");
			status = metrics_main(m->cf, m->mfd);
		} else if (ch->kind == CHILD_RESOLVER) {
			/* The resolver never serves Postfix directly. */
			for (i = 0; i < m->nfds; i++)
				close(m->fds[i]);
			master_close_resolvers(m, ch->shard);
			/* the resolvers share a slot: relaxed atomic adds */
			stats_attach(STATS_SLOT_RESOLVER);
			log_set_ident("postsmtpsts/resolver");
			status = resolver_main(m->cf, ch->shard,
			    m->rfds[ch->shard]);
		} else {
			master_close_resolvers(m, -1);
			stats_attach(ch->slot);
			log_set_ident("postsmtpsts/worker");
			status = worker_main(m->cf, m->fds, m->nfds, ch->slot);
		}
		_exit(status);
	}
	ch->pid = pid;
	ch->pending = 0;
	ch->ready = 0;
	ch->generation = m->generation;
	ch->started = clock_mono();
	log_debug(1, "%s %d started, pid %ld", master_kind(ch), master_num(ch),
	    (long)pid);
}

/* master_start_generation - fork cf->workers workers and the resolvers */
static void
master_start_generation(struct master *m)
{
	int		 i, w = m->cf->workers;

	m->generation++;
	sdnotify_children_begin();
	m->nchildren = w + m->nrfds + (m->mfd != -1);
	m->children = xcalloc((size_t)m->nchildren, sizeof(*m->children));
	for (i = 0; i < m->nchildren; i++) {
		m->children[i].slot = i;
		m->children[i].kind = i < w ? CHILD_WORKER :
		    i < w + m->nrfds ? CHILD_RESOLVER : CHILD_METRICS;
		m->children[i].shard = i < w ? 0 : i - w;
		m->children[i].backoff_ms = MASTER_BACKOFF_MIN_MS;
		master_fork_worker(m, &m->children[i]);
	}
}

/* master_keep_path - on reload, keep the running value of a path option */
static void
master_keep_path(char **newp, char **runp, const char *name)
{
	char		*tmp;

	if ((*newp == NULL) != (*runp == NULL) ||
	    (*newp != NULL && strcmp(*newp, *runp) != 0))
		log_warnx("reload: %s changes need a restart", name);
	tmp = *newp;
	*newp = *runp;
	*runp = tmp;
}

/* master_reload - SIGHUP: new config, new workers, old ones drain; -1: kept */
static int
master_reload(struct master *m)
{
	struct config	*ncf;
	char		 err[4096];
	size_t		 i;
	int		 j;

	if ((ncf = config_load(m->cf->file, err, sizeof(err))) == NULL) {
		log_warnx("reload failed, keeping the running configuration:"
		    "\n%s", err);
		return (-1);
	}
	if (resolver_check(ncf, err, sizeof(err)) == -1) {
		log_warnx("reload failed, keeping the running configuration: "
		    "%s: %s", ncf->file, err);
		config_free(ncf);
		return (-1);
	}
	if (ncf->nlisten != m->cf->nlisten)
		log_warnx("reload: listener changes need a restart");
	else
		for (i = 0; i < ncf->nlisten; i++)
			if (strcmp(ncf->listen[i].spec,
			    m->cf->listen[i].spec) != 0)
				log_warnx("reload: listener changes need a "
				    "restart");
	if ((ncf->metrics == NULL) != (m->cf->metrics == NULL) ||
	    (ncf->metrics != NULL && strcmp(ncf->metrics->spec,
	    m->cf->metrics->spec) != 0))
		log_warnx("reload: metrics listener changes need a restart");
	/* Keep the listeners (and their cleanup) of the running config. */
	for (j = 0; j < m->nchildren; j++) {
		struct child *ch = &m->children[j];

		if (ch->pid > 0) {
			kill(ch->pid, SIGTERM);
			m->old = xreallocarray(m->old, (size_t)m->nold + 1,
			    sizeof(*m->old));
			m->old[m->nold++] = ch->pid;
		}
	}
	free(m->children);
	m->children = NULL;
	/* The new config adopts the old listeners: swap them in. */
	{
		struct config_listen *l = ncf->listen;
		size_t		 n = ncf->nlisten;
		struct config_listen *ml = ncf->metrics;

		ncf->listen = m->cf->listen;
		ncf->nlisten = m->cf->nlisten;
		m->cf->listen = l;
		m->cf->nlisten = n;
		ncf->metrics = m->cf->metrics;
		m->cf->metrics = ml;
	}
	/* So are the pid file and the resolver's socket directory. */
	master_keep_path(&ncf->pid_file, &m->cf->pid_file, "pid_file");
	master_keep_path(&ncf->runtime_dir, &m->cf->runtime_dir,
	    "runtime_dir");
	if (ncf->resolvers != m->nrfds)
		log_warnx("reload: resolvers changes need a restart: keeping "
		    "%d", m->nrfds);
	ncf->resolvers = m->nrfds;
	config_free(m->cf);
	m->cf = ncf;
	log_set_verbose(ncf->verbose);
	master_start_generation(m);
	log_info("reloaded %s: %d workers", m->cf->file, m->cf->workers);
	return (0);
}

/* master_reap - collect exited children; schedule restarts */
static void
master_reap(struct master *m)
{
	struct timespec	 now;
	pid_t		 pid;
	int		 status, i;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < m->nold; i++)
			if (m->old[i] == pid) {
				m->old[i] = m->old[--m->nold];
				pid = 0;
				break;
			}
		if (pid == 0)
			continue;
		if (pid == m->ppid) {
			m->ppid = 0;	/* the next: refresh_interval on, or
					   now if a SIGHUP asked meanwhile */
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				log_info("preload: the configured lists "
				    "imported");
			else
				log_warnx("preload: import exited with status "
				    "%d (see its messages): lists held keep "
				    "answering until they expire",
				    WIFEXITED(status) ? WEXITSTATUS(status) :
				    128 + WTERMSIG(status));
			continue;
		}
		for (i = 0; i < m->nchildren; i++)
			if (m->children[i].pid == pid)
				break;
		if (i == m->nchildren)
			continue;
		struct child *ch = &m->children[i];

		ch->pid = 0;
		if (ch->kind == CHILD_WORKER) {
			/* its connections went with it: the others must not
			 * wait for it to take its share (worker_conn.c) */
			stats_clear(ch->slot, STATS_WORKER_UP);
			stats_clear(ch->slot, STATS_CONN_OPEN);
		}
		if (m->stopping)
			continue;

		if (WIFSIGNALED(status))
			log_warnx("%s %d (pid %ld) killed by signal %d",
			    master_kind(ch), master_num(ch), (long)pid,
			    WTERMSIG(status));
		else
			log_warnx("%s %d (pid %ld) exited with status %d",
			    master_kind(ch), master_num(ch), (long)pid,
			    WEXITSTATUS(status));
		now = clock_mono();
		if (master_ms_between(ch->started, now) >
		    MASTER_STABLE_SECS * 1000)
			ch->backoff_ms = MASTER_BACKOFF_MIN_MS;
		ch->pending = 1;
		ch->restart_at = now;
		ch->restart_at.tv_sec += ch->backoff_ms / 1000;
		ch->restart_at.tv_nsec += (long)(ch->backoff_ms % 1000) *
		    1000000;
		if (ch->restart_at.tv_nsec >= 1000000000) {
			ch->restart_at.tv_sec++;
			ch->restart_at.tv_nsec -= 1000000000;
		}
		log_info("restarting %s %d in %u ms", master_kind(ch),
		    master_num(ch), ch->backoff_ms);
		ch->backoff_ms = ch->backoff_ms * 2 > MASTER_BACKOFF_MAX_MS ?
		    MASTER_BACKOFF_MAX_MS : ch->backoff_ms * 2;
	}
}

/* master_restart_due - fork pending workers; ms until the next one due */
static long long
master_restart_due(struct master *m)
{
	struct timespec	 now = clock_mono();
	long long	 next = -1, d;
	int		 i;

	for (i = 0; i < m->nchildren; i++) {
		struct child *ch = &m->children[i];

		if (!ch->pending)
			continue;
		d = master_ms_between(now, ch->restart_at);
		if (d <= 0) {
			master_fork_worker(m, ch);
			continue;
		}
		if (next == -1 || d < next)
			next = d;
	}
	return (next);
}

/* master_live - children still running, all generations */
static int
master_live(struct master *m)
{
	int		 i, n = m->nold;

	for (i = 0; i < m->nchildren; i++)
		if (m->children[i].pid > 0)
			n++;
	return (n);
}

/* master_signal_all - send sig to every live child */
static void
master_signal_all(struct master *m, int sig)
{
	int		 i;

	for (i = 0; i < m->nchildren; i++)
		if (m->children[i].pid > 0)
			kill(m->children[i].pid, sig);
	for (i = 0; i < m->nold; i++)
		kill(m->old[i], sig);
}

/*
 * master_check_ready - collect children's readiness reports; once every
 * child of the current generation runs its event loop, send READY=1
 */
static void
master_check_ready(struct master *m)
{
	pid_t		 pid;
	int		 i;

	while (sdnotify_child_reported(&pid))
		for (i = 0; i < m->nchildren; i++)
			if (m->children[i].pid == pid)
				m->children[i].ready = 1;
	if (!m->notify)
		return;
	for (i = 0; i < m->nchildren; i++)
		if (m->children[i].pid <= 0 || !m->children[i].ready)
			return;
	m->notify = 0;
	sdnotify_send("READY=1\nSTATUS=serving: %d workers and %d "
	    "resolvers, config %s, generation %u", m->cf->workers, m->nrfds,
	    m->cf->file, m->generation);
	log_debug(1, "ready: generation %u", m->generation);
}

/* master_daemonize - detach from the terminal */
static void
master_daemonize(void)
{
	int		 fd;

	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		fatal("setsid");
	if (chdir("/") == -1)
		fatal("chdir /");
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

/* master_preload_due - start the preload import when it is due; ms
 * until it is, -1 if none is owed */
static long long
master_preload_due(struct master *m)
{
	struct timespec	 now = clock_mono();
	long long	 d;

	if (m->cf->preload.nlists == 0 || m->stopping)
		return (-1);
	/* looked for when lists are first configured (at start or by a
	 * reload), warned of once */
	if (m->ptool[0] == '\0' && preload_run_find(m->ptool,
	    sizeof(m->ptool)) != 0) {
		m->ptool[0] = '\0';
		if (!m->pwarned)
			log_warnx("preload: no %s beside this program: the "
			    "configured lists are not imported by the daemon",
			    PRELOAD_RUN_TOOL);
		m->pwarned = 1;
		return (-1);
	}
	if (m->ppid != 0)
		return (-1);		/* the reap schedules the next */
	if (!m->pdue) {
		m->pnext = now;
		m->pnext.tv_sec += m->cf->preload.refresh_interval;
		m->pdue = 1;
	}
	if ((d = master_ms_between(now, m->pnext)) > 0)
		return (d);
	m->pdue = 0;
	if ((m->ppid = preload_run_start(m->ptool, m->cf->file)) == -1)
		m->ppid = 0;
	return (master_preload_due(m));
}

int
master_main(struct config *cf, int foreground)
{
	struct master	 m;
	struct timespec	 ts, deadline = { 0, 0 };
	sigset_t	 set;
	siginfo_t	 info;
	long long	 wait_ms, pwait;
	int		 sig;

	memset(&m, 0, sizeof(m));
	m.cf = cf;
	m.foreground = foreground;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	log_init("postsmtpsts", foreground, cf->syslog_facility);
	log_set_verbose(cf->verbose);
	master_lookup_ids(&m);
	sdnotify_init();
	master_bind_all(&m);
	m.mfd = cf->metrics != NULL ? metrics_listen(cf->metrics) : -1;
	master_runtime_dir(&m);
	master_bind_resolvers(&m);
	/* before any child: a worker must fit its reserve and some
	 * connections in the open file limit */
	worker_fd_check(cf, m.nfds);
	if (!foreground)
		master_daemonize();
	master_write_pid(&m);
	master_stats_file(&m);
	master_drop_privileges(&m);
	sandbox_master();
	log_info("started: config=%s workers=%d resolvers=%d pid_file=%s "
	    "cache=%s", cf->file, cf->workers, cf->resolvers,
	    cf->pid_file ? cf->pid_file : "(none)",
	    cf->cache.path ? cf->cache.path : "(none)");
	m.notify = sdnotify_enabled();
	sdnotify_send("STATUS=starting %d workers and %d resolvers",
	    cf->workers, cf->resolvers);
	master_start_generation(&m);
	/* the configured preload lists: imported now, then on schedule */
	m.pnext = clock_mono();
	m.pdue = 1;

	for (;;) {
		wait_ms = master_restart_due(&m);
		if ((pwait = master_preload_due(&m)) >= 0 &&
		    (wait_ms < 0 || pwait < wait_ms))
			wait_ms = pwait;
		if (sdnotify_enabled() && !m.stopping) {
			/* Reports arrive on a pipe: drain it always, and
			 * look again soon while READY=1 is owed. */
			master_check_ready(&m);
			if (m.notify && (wait_ms < 0 || wait_ms > 20))
				wait_ms = 20;
		}
		if (m.stopping) {
			if (master_live(&m) == 0)
				break;
			wait_ms = master_ms_between(clock_mono(), deadline);
			if (wait_ms <= 0) {
				log_warnx("workers still running after %d s: "
				    "killing them", MASTER_STOP_GRACE_SECS);
				master_signal_all(&m, SIGKILL);
				wait_ms = 1000;
				deadline = clock_mono();
				deadline.tv_sec += 1;
			}
		}
		if (wait_ms < 0)
			sig = sigwaitinfo(&set, &info);
		else {
			ts.tv_sec = wait_ms / 1000;
			ts.tv_nsec = (wait_ms % 1000) * 1000000;
			sig = sigtimedwait(&set, &info, &ts);
		}
		if (sig == -1) {
			if (errno != EAGAIN && errno != EINTR)
				fatal("sigtimedwait");
			continue;
		}
		switch (sig) {
		case SIGCHLD:
			master_reap(&m);
			break;
		case SIGHUP:
			if (!m.stopping) {
				log_info("SIGHUP: reloading %s", m.cf->file);
				sdnotify_send("RELOADING=1\nSTATUS=reloading %s",
				    m.cf->file);
				if (master_reload(&m) == 0) {
					m.notify = sdnotify_enabled();
					/* the lists again, now (issue 38) */
					m.pnext = clock_mono();
					m.pdue = 1;
				}
				else
					sdnotify_send("READY=1\nSTATUS=reload "
					    "failed (see the log), serving the "
					    "previous configuration");
			}
			break;
		case SIGTERM:
		case SIGINT:
			if (m.stopping)
				break;
			log_info("signal %d: stopping", sig);
			sdnotify_send("STOPPING=1\nSTATUS=stopping on signal "
			    "%d", sig);
			m.stopping = 1;
			deadline = clock_mono();
			deadline.tv_sec += MASTER_STOP_GRACE_SECS;
			master_signal_all(&m, SIGTERM);
			break;
		}
	}
	master_cleanup(&m);
	log_info("stopped");
	free(m.children);
	free(m.old);
	free(m.fds);
	free(m.inherited);
	for (sig = 0; sig < m.nrfds; sig++) {
		free(m.rpaths[sig]);
		close(m.rfds[sig]);
	}
	free(m.rpaths);
	free(m.rfds);
	free(m.spath);
	if (m.mfd != -1)
		close(m.mfd);
	config_free(m.cf);
	return (0);
}
