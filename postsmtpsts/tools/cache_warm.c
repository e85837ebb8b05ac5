/*
 * cache_warm.c - postsmtpsts-cache warm: discover a list of domains through
 * the running daemon's resolver
 *
 * Interface, output and exit status: cache_warm.h.  Why the resolver's
 * internal socket and not the socketmap listener: doc/DESIGN.md, "Cache
 * warming".  In short: a socketmap lookup is answered at request_timeout
 * whether or not its discovery finished, and answers with a Postfix
 * policy, not with what was found; an ipc request is answered exactly
 * when the resolver's job for the domain is done (or at once when the
 * cache is fresh), with the facts, and joins a job already running for
 * the domain like any worker's request (single flight).
 *
 * Limits: lines of WARM_LIST_MAX_LINE bytes (longer ones are skipped),
 * CACHE_WARM_MAX_DOMAINS domains, jobs 1..CONFIG_MAX_RESOLUTIONS requests
 * outstanding, replies of IPC_MAX_MSG bytes decoded exactly
 * (ipc_reply_decode, cache_record_decode); a reply for a domain not asked
 * is counted as unexpected and ignored.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/cache.h"
#include "lib/config.h"
#include "conf/config_load.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/dane.h"
#include "lib/ipc.h"
#include "tools/cache_warm.h"
#include "tools/warm_list.h"

/* The list, and what came back. */
struct warm {
	char		**dom;		/* normalized domains, in list order */
	size_t		 ndom, capdom;
	size_t		 skipped;	/* lines with no domain of their own */
	size_t		 next;		/* next domain to send */
	size_t		 inflight;	/* sent, no reply yet */
	size_t		 done;		/* replies counted */
	size_t		 enforce, testing, dane, policies, without, failed;
	size_t		 unexpected;	/* replies beyond what was asked */
	int		 fd[CONFIG_MAX_RESOLVERS];	/* one a resolver */
	int		 nfd;
	int		 tty;
	double		 t0, last_reply, last_progress;
};

/* warm_now - monotonic seconds */
static double
warm_now(void)
{
	return ((double)clock_us() / 1e6);
}

/* warm_skip - count a line without a domain of its own, say why (bounded) */
static void
warm_skip(struct warm *w, const char *name, size_t lineno, const char *why)
{
	if (w->skipped++ < CACHE_WARM_MAX_LINE_WARNINGS)
		log_warnx("%s:%zu: %s: skipped", name, lineno, why);
	else if (w->skipped == CACHE_WARM_MAX_LINE_WARNINGS + 1)
		log_warnx("%s: more lines skipped (counted in the summary)",
		    name);
}

/*
 * warm_read - read the list from fp into w->dom.  Lines longer than
 * WARM_LIST_MAX_LINE are skipped whole.  0, or -1 after a message.
 */
static int
warm_read(struct warm *w, FILE *fp, const char *name)
{
	char	 line[WARM_LIST_MAX_LINE + 1], out[DOMAIN_BUFSZ];
	size_t	 len, lineno = 0;
	int	 toolong = 0;

	while (fgets(line, sizeof(line), fp) != NULL) {
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\n')
			len--;
		else if (!feof(fp)) {
			/* the rest of an overlong line: skip it whole */
			if (!toolong)
				warm_skip(w, name, lineno + 1,
				    "line too long");
			toolong = 1;
			continue;
		}
		lineno++;
		if (toolong) {
			toolong = 0;
			continue;
		}
		switch (warm_list_line(line, len, out)) {
		case WARM_LINE_EMPTY:
			continue;
		case WARM_LINE_NOT_PLAIN:
			warm_skip(w, name, lineno, "not a plain domain "
			    "([host], host:port, .parent, an address)");
			continue;
		case WARM_LINE_INVALID:
			warm_skip(w, name, lineno, "not a domain name");
			continue;
		case WARM_LINE_DOMAIN:
			break;
		}
		if (w->ndom >= CACHE_WARM_MAX_DOMAINS) {
			log_warnx("%s: more than %d domains: the rest is "
			    "ignored", name, CACHE_WARM_MAX_DOMAINS);
			break;
		}
		if (w->ndom == w->capdom) {
			w->capdom = w->capdom ? w->capdom * 2 : 1024;
			w->dom = xreallocarray(w->dom, w->capdom,
			    sizeof(*w->dom));
		}
		w->dom[w->ndom++] = xstrdup(out);
	}
	if (ferror(fp)) {
		log_warn("%s", name);
		return (-1);
	}
	return (0);
}

/*
 * warm_connect - connect to each resolver's socket in runtime_dir (the
 * configuration's "resolvers": each domain goes to the one that owns it,
 * lib/ipc.h ipc_shard, as the workers send it).  0, or -1 after a message.
 */
static int
warm_connect(struct warm *w, const struct config *cf)
{
	struct sockaddr_un sun;
	int		 i;

	for (i = 0; i < cf->resolvers; i++) {
		if (ipc_resolver_addr(cf->runtime_dir, i, &sun) == -1) {
			log_warnx("%s: runtime_dir too long for a socket "
			    "path", cf->file);
			return (-1);
		}
		if ((w->fd[i] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
		    0)) == -1) {
			log_warn("socket(AF_UNIX, SOCK_SEQPACKET)");
			return (-1);
		}
		w->nfd = i + 1;
		if (connect(w->fd[i], (struct sockaddr *)&sun, sizeof(sun)) ==
		    -1) {
			log_warn("cannot reach the daemon's resolver at %s (is "
			    "postsmtpsts running with runtime_dir = \"%s\" "
			    "and resolvers = %d? run as root or as its user)",
			    sun.sun_path, cf->runtime_dir, cf->resolvers);
			return (-1);
		}
	}
	return (0);
}

/* warm_send - one request for w->dom[w->next]; 0, or -1 after a message */
static int
warm_send(struct warm *w)
{
	static unsigned char msg[IPC_MAX_MSG];
	struct ipc_request req;
	const char *d = w->dom[w->next];
	long	 n;

	memset(&req, 0, sizeof(req));
	req.flags = 0;		/* fresh records are answered from the cache */
	req.domain_len = strlen(d);
	memcpy(req.domain, d, req.domain_len + 1);
	if ((n = ipc_request_encode(&req, msg, sizeof(msg))) == -1) {
		log_warnx("%s: cannot encode the request", d);
		return (-1);
	}
	if (send(w->fd[ipc_shard(d, req.domain_len, w->nfd)], msg, (size_t)n,
	    MSG_NOSIGNAL) != n) {
		log_warn("send to the resolver");
		return (-1);
	}
	w->next++;
	w->inflight++;
	return (0);
}

/* warm_count - what one reply says about its domain */
static void
warm_count(struct warm *w, const struct ipc_reply *rep)
{
	struct cache_record rec = { 0 };
	int	 sts = 0, dane = 0;

	if (rep->status != IPC_STATUS_OK) {
		w->failed++;
		return;
	}
	if (rep->record_len > 0 && cache_record_decode(rep->record,
	    rep->record_len, &rec) == CACHE_DECODE_OK &&
	    rec.kind == CACHE_KIND_STS) {
		if (rec.sts_mode == CACHE_STS_ENFORCE) {
			w->enforce++;
			sts = 1;
		} else if (rec.sts_mode == CACHE_STS_TESTING) {
			w->testing++;
			sts = 1;
		}
	}
	if (rep->dane_len > 0 && cache_record_decode(rep->dane,
	    rep->dane_len, &rec) == CACHE_DECODE_OK &&
	    rec.kind == CACHE_KIND_DANE &&
	    (rec.dane == DANE_ALL || rec.dane == DANE_SOME ||
	    rec.dane == DANE_TLS || rec.dane == DANE_TLS_SOME)) {
		/* TLSA records, usable or not: a policy (RFC 7672 §2.2) */
		w->dane++;
		dane = 1;
	}
	if (sts || dane)
		w->policies++;
	else
		w->without++;
	cache_record_release(&rec);
}

/*
 * warm_receive - read one reply.  1 counted, 0 nothing yet (EINTR,
 * EAGAIN), -1 the resolver went away or spoke garbage (a message).
 */
static int
warm_receive(struct warm *w, int fd)
{
	static unsigned char msg[IPC_MAX_MSG];
	struct ipc_reply rep;
	ssize_t	 n;

	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	if (n == -1 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		return (0);
	if (n == -1) {
		log_warn("receive from the resolver");
		return (-1);
	}
	if (n == 0) {
		log_warnx("the daemon's resolver closed the connection "
		    "(daemon stopped or restarted?)");
		return (-1);
	}
	if (ipc_reply_decode(msg, (size_t)n, &rep) == -1) {
		log_warnx("a reply of %zd bytes that does not decode (a "
		    "daemon of another version?)", n);
		return (-1);
	}
	if (w->inflight == 0) {
		w->unexpected++;
		return (0);
	}
	w->inflight--;
	w->done++;
	warm_count(w, &rep);
	return (1);
}

/* warm_hms - seconds as H:MM:SS or M:SS into buf */
static const char *
warm_hms(char *buf, size_t bufsz, double s)
{
	long	 t = s < 0 ? 0 : s > 359999 ? 359999 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, bufsz, "%ld:%02ld:%02ld", t / 3600,
		    (t / 60) % 60, t % 60);
	else
		snprintf(buf, bufsz, "%ld:%02ld", t / 60, t % 60);
	return (buf);
}

/* warm_progress - the terminal's progress line, rewritten in place */
static void
warm_progress(struct warm *w, double now, int force)
{
	char	 eta[32];
	double	 el = now - w->t0, rate;

	if (!w->tty || (!force &&
	    now - w->last_progress < 1.0 / CACHE_WARM_PROGRESS_HZ))
		return;
	w->last_progress = now;
	rate = el > 0 ? (double)w->done / el : 0;
	printf("\rwarm: %zu/%zu done, %.1f/s, ETA %s, %zu policies found, "
	    "%zu failed\033[K", w->done, w->ndom, rate,
	    rate > 0 ? warm_hms(eta, sizeof(eta),
	    (double)(w->ndom - w->done) / rate) : "-", w->policies,
	    w->failed);
	fflush(stdout);
}

/* warm_summary - the one-line summary */
static void
warm_summary(struct warm *w, double now)
{
	double	 el = now - w->t0;

	if (w->tty)
		printf("\r\033[K");
	printf("warm: %zu of %zu domains done in %.1f s (%.1f/s): %zu "
	    "policies found (%zu MTA-STS enforce, %zu testing, %zu DANE), "
	    "%zu without, %zu failed, %zu lines skipped\n", w->done, w->ndom,
	    el, el > 0 ? (double)w->done / el : 0.0, w->policies, w->enforce,
	    w->testing, w->dane, w->without, w->failed, w->skipped);
	fflush(stdout);
}

/*
 * warm_run - keep jobs requests outstanding until every domain has its
 * reply.  0, or -1 after a message (connection lost, stalled).
 */
static int
warm_run(struct warm *w, size_t jobs)
{
	struct pollfd pfd[CONFIG_MAX_RESOLVERS];
	double	 now;
	int	 i, n, rc;

	w->t0 = w->last_reply = warm_now();
	while (w->done < w->ndom) {
		while (w->inflight < jobs && w->next < w->ndom)
			if (warm_send(w) == -1)
				return (-1);
		for (i = 0; i < w->nfd; i++) {
			pfd[i].fd = w->fd[i];
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		n = poll(pfd, (nfds_t)w->nfd, 1000 / CACHE_WARM_PROGRESS_HZ);
		if (n == -1 && errno != EINTR) {
			log_warn("poll");
			return (-1);
		}
		now = warm_now();
		if (n > 0) {
			/* every reply waiting, then send more */
			for (i = 0; i < w->nfd; i++) {
				if (pfd[i].revents == 0)
					continue;
				while ((rc = warm_receive(w, w->fd[i])) == 1)
					w->last_reply = now;
				if (rc == -1)
					return (-1);
			}
		} else if (now - w->last_reply > CACHE_WARM_STALL_SECONDS) {
			log_warnx("no reply from the resolver for %d s with "
			    "%zu requests outstanding: giving up",
			    CACHE_WARM_STALL_SECONDS, w->inflight);
			return (-1);
		}
		warm_progress(w, now, 0);
	}
	return (0);
}

int
cache_warm_main(const char *conf, long jobs, int argc, char *argv[])
{
	struct warm	 w;
	struct config	*cf;
	const char	*name = "-";
	char		 err[1024];
	FILE		*fp = stdin;
	size_t		 i;
	int		 rv;

	if (argc > 2) {
		fprintf(stderr, "usage: postsmtpsts-cache [-c config] warm "
		    "[-j jobs] [FILE|-]\n");
		return (2);
	}
	if (argc == 2 && strcmp(argv[1], "-") != 0)
		name = argv[1];

	if (conf != NULL || access(CONFIG_DEFAULT_FILE, F_OK) == 0)
		cf = config_load(conf != NULL ? conf : CONFIG_DEFAULT_FILE,
		    err, sizeof(err));
	else	/* no file: the built-in defaults */
		cf = config_load_buffer(NULL, "", 0, err, sizeof(err));
	if (cf == NULL) {
		log_warnx("%s", err);
		return (1);
	}
	/* a quarter of each resolver's discovery slots */
	if (jobs == 0)
		jobs = (cf->max_resolutions >= 4 ? cf->max_resolutions / 4 :
		    1) * cf->resolvers;

	memset(&w, 0, sizeof(w));
	w.tty = isatty(STDOUT_FILENO);
	if (strcmp(name, "-") != 0 && (fp = fopen(name, "r")) == NULL) {
		log_warn("%s", name);
		config_free(cf);
		return (1);
	}
	rv = warm_read(&w, fp, name) == -1 ? 1 : 0;
	if (fp != stdin)
		fclose(fp);
	if (rv == 0 && warm_connect(&w, cf) == -1)
		rv = 1;
	if (rv == 0) {
		log_debug(1, "warm: %zu domains, %ld at once, %d resolver "
		    "sockets in %s", w.ndom, jobs, w.nfd, cf->runtime_dir);
		if (warm_run(&w, (size_t)jobs) == -1)
			rv = 1;
		warm_progress(&w, warm_now(), 1);
		warm_summary(&w, warm_now());
	}
	for (i = 0; i < (size_t)w.nfd; i++)
		close(w.fd[i]);
	for (i = 0; i < w.ndom; i++)
		free(w.dom[i]);
	free(w.dom);
	config_free(cf);
	return (rv);
}
