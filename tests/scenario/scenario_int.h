/*
 * scenario_int.h - what the scenario runner's files share (private: the
 * runner is one program, tests/scenario/scenario; its language is in
 * tests/scenario/README.md)
 *
 * The runner is six files, one concern each:
 *   scenario.c     main: a script read line by line, each line to its
 *                  command; the scenario blocks (a fresh world each); the
 *                  resolver (and host B's) started and stopped on the
 *                  scenario's configuration; the IPC peers w1..wK and b1
 *                  (send, and the replies they read); the loop run until
 *                  idle (scn_idle, scn_busy)
 *   scn_text.c     the little language: words, numbers, durations,
 *                  times, comparisons, counts; and the two ways a line
 *                  goes wrong, both at FILE:LINE: scn_bail (the script)
 *                  and scn_fail (an expectation)
 *   scn_fake.c     the commands that script tests/fake/: dns, answer,
 *                  https, complete
 *   scn_postfix.c  the in-process front worker, the relay of its resolver
 *                  connection, its Postfix clients, and the expectations
 *                  on them (answer, noanswer, asked)
 *   scn_fleet.c    (HAVE_FLEET, built only then: mk/fake.am) redis-server,
 *                  the relays of both hosts' fleet connections, "fleet"
 *                  and "expect fleet"
 *   scn_expect.c   "expect": the conditions on a cache record and on a
 *                  reply, expect reply, noreply, cache, stat, log,
 *                  queries, fetches; the other files' expectations
 *                  dispatched
 * They share the one struct scn S (defined in scenario.c) and the structs
 * below; each function here is defined in the file whose heading it
 * stands under, and the rest of each file is static.
 *
 * Calls: scn_text.c calls none of the others; scn_fake.c and scn_fleet.c
 * call only scn_text.c.  scenario.c calls all of them: a line goes to its
 * command, a block's end stops the worker and redis-server, and the loop
 * moves the worker's and the fleet's relays and reads the Postfix
 * clients, since idle means idle for everything on it.  Two files call
 * back into scenario.c, each for one reason, so each of them and
 * scenario.c call each other: scn_postfix.c starts the resolver the
 * worker asks (scn_start, from the first "postfix" line); scn_expect.c
 * starts it for "expect cache" (the records are read through the
 * resolver's cache), and names the IPC peers of "expect reply" as "send"
 * does (scn_workers, scn_peer_name).  scn_expect.c calls scn_postfix.c's
 * and scn_fleet.c's expectations (every "expect" line goes through
 * cmd_expect), never the other way.
 */
#ifndef SCENARIO_INT_H
#define SCENARIO_INT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"
#include "lib/domain.h"
#include "lib/netstring.h"
#include "lib/sockmap.h"

struct config;
struct event_base;
struct resolver;
struct worker;

#include "fake_https.h"

#define SCN_T0		1700000000	/* the virtual clock's start, Unix */
#define SCN_MONO0	((int64_t)1000000000)	/* and monotonic, us */
#define SCN_MAX_WORKERS	512
#define SCN_MAX_TOKENS	64
#define SCN_LINE_MAX	4096
#define SCN_MAX_ROUNDS	1000000	/* loop turns before "never idle" */
#define SCN_MAX_LOG	200000	/* log lines kept per scenario */
#define SCN_MAX_CLIENTS	64	/* Postfix clients of the worker */
#define SCN_REDIS_WAIT_MS 10000	/* real time: redis-server answers */
#define SCN_B		SCN_MAX_WORKERS	/* host B's one IPC peer, "b1" */
#define SCN_CLIENT_BUF	(NETSTRING_MAX_DIGITS + 2 + SOCKMAP_MAX_REPLY)

struct reply {
	char		 domain[DOMAIN_BUFSZ];
	int		 status;
	int		 have_sts;
	int		 have_dane;
	struct cache_record sts;
	struct cache_record dane;
	int		 used;		/* matched by an expectation */
};

struct scn_peer {
	int		 fd;
	struct reply	*replies;
	size_t		 nreplies;
	size_t		 cap;
};

/* One socketmap reply a Postfix client read: "WORD data". */
struct answer {
	char		*text;
	size_t		 len;
	int		 used;		/* matched by an expectation */
};

/* A Postfix client of the in-process worker: one socketmap connection. */
struct scn_client {
	char		 name[32];
	int		 fd;		/* -1: not connected (or closed) */
	char		 in[SCN_CLIENT_BUF];
	size_t		 inlen;
	struct answer	*answers;
	size_t		 nanswers;
	size_t		 cap;
	int		 closed;	/* times the worker closed it */
};

/* Bytes read from one side of a fleet relay, not yet passed on. */
struct scn_fbuf {
	char		 data[1 << 20];
	size_t		 len;
};

/* A host's fleet connection, relayed to redis-server: what it asks and
 * what redis answers are counted (RESP values), its replies can be held */
struct scn_frelay {
	char		 sock[96];
	int		 lfd;		/* the host's fleet server address */
	int		 c;		/* the host's connection */
	int		 s;		/* ours to redis */
	int		 held;		/* replies to the host wait */
	long long	 requests;
	long long	 replies;
	struct scn_fbuf	 up;
	struct scn_fbuf	 down;
};

struct scn {
	const char	*file;
	int		 line;
	int		 ntests;
	int		 nfailed;
	int		 in;		/* inside a scenario block */
	int		 failed;	/* this scenario */
	char		 name[256];

	char		 tmp[80];	/* fits sun_path with the socket */
	char		 cachedir[96];
	char		 sock[96];
	char		*conf;		/* this scenario's config lines */
	size_t		 conflen;
	int		 have_map;
	struct config	*cf;
	struct config	*wcf;		/* the worker's: runtime_dir S.wdir */
	struct event_base *base;
	struct resolver	*r;
	int		 lfd;
	struct scn_peer	 w[SCN_MAX_WORKERS + 1];	/* and SCN_B */
	int		 nw;

	/* the fleet: redis-server, host B (its own cache, runtime_dir and
	 * resolver, one IPC peer "b1"), the relays of A's and B's fleet
	 * connections */
	int		 fleet;
	char		*fleet_line;	/* the fleet section, no servers */
	pid_t		 redis_pid;
	int		 redis_atexit;	/* scn_redis_atexit registered */
	char		 redis_sock[96];
	struct scn_frelay frelay[2];
	struct config	*cfb;
	struct resolver	*rb;
	int		 lfdb;
	char		 bdir[96];
	char		 bcachedir[96];

	/* the in-process front worker (worker_new) and its Postfix side */
	struct worker	*wk;
	int		 wlfd;		/* its listener */
	char		 wsock[96];
	char		 wdir[96];	/* its runtime_dir: the relay's
					   socket */
	int		 relay_lfd;	/* where the worker connects */
	int		 relay_w;	/* the worker's connection */
	int		 relay_r;	/* ours to the resolver */
	struct asked {
		char	 domain[DOMAIN_BUFSZ];
		int	 txtcheck;
	}		*asked;		/* the worker's requests, in order */
	size_t		 nasked;
	struct scn_client c[SCN_MAX_CLIENTS];
	int		 nc;

	char		**log;
	size_t		 nlog;
	size_t		 logmark;
	unsigned long long dropped_log;
};

/* The runner's state: one scenario block's world, and the file's counts. */
extern struct scn S;

/* A comparison of a condition or a count (scn_split, scn_count_expect). */
enum scn_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

/* The operators' names, for messages, in enum scn_op's order. */
extern const char *const scn_op_names[];

/* scenario.c */

/* scn_peer_name - "w3", or "b1" for host B's peer (static buffer) */
const char *scn_peer_name(int i);

/* scn_start - a resolver on the scenario's cache, and its workers */
void	scn_start(void);

/* scn_workers - "w3", "w1-4", "all": the range [*lo, *hi) */
void	scn_workers(const char *s, int *lo, int *hi);

/* scn_text.c */

/* scn_fail - one failed expectation of this scenario */
void	scn_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* scn_bail - a script error: the file cannot be run */
void	scn_bail(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/* scn_tokens - split line into words; text in "..." (anywhere in a word:
 * body="a b") keeps its spaces, with \n \t \" \\ escapes; # outside
 * quotes ends the line.  Returns the count. */
int	scn_tokens(char *line, char **tok, int max);

/* scn_num - a decimal number, or bail */
long long	scn_num(const char *s);

/*
 * scn_duration - "250ms", "20s", "5m", "2h", "3d", or a bare number of
 * seconds, in milliseconds
 */
int64_t	scn_duration(const char *s);

/*
 * scn_time - a Unix time: "@D" (the scenario's start plus duration D),
 * "now", "now+D", "now-D", or a bare number
 */
int64_t	scn_time(const char *s);

/* scn_split - "field OP value": the field (NUL-terminated in place), the
 * operator and the value; NULL if the word has no operator */
char   *scn_split(char *w, enum scn_op *op, char **value);

/* scn_cmp - a OP b */
int	scn_cmp(long long a, enum scn_op op, long long b);

/* scn_count_expect - "N" or "OPN" (">=1"): the operator and N */
long long	scn_count_expect(const char *s, enum scn_op *op);

/* scn_wtime - a Unix time for messages: as @offset from the start */
void	scn_wtime(char *buf, size_t bufsz, long long t);

/* scn_fake.c */

/* cmd_dns - script the answer to NAME TYPE (answer: reply to a pending
 * query now) */
void	cmd_dns(int n, char **t, int now);

/* cmd_https - script the result of fetches from HOST (complete: finish
 * a pending fetch now) */
void	cmd_https(int n, char **t, int now);

/* scn_postfix.c */

/*
 * scn_relay - the worker's resolver connection, relayed: accept it and
 * connect on to the resolver; move what waits, both ways.  Returns how
 * many messages moved (and connections made).
 */
int	scn_relay(void);

/* scn_read_answers - every reply waiting on the Postfix clients'
 * sockets; a client the worker closed is marked so.  Returns how many
 * replies and closes. */
int	scn_read_answers(void);

/* cmd_postfix - "postfix CLIENT ask MAP DOMAIN [xN]": requests from a
 * Postfix client to the in-process worker, all written before the loop
 * runs */
void	cmd_postfix(int n, char **t);

/* expect_answer - "expect answer CLIENT TEXT [n=N]": the client's next N
 * (default 1) unchecked replies match TEXT; they are checked off */
void	expect_answer(int n, char **t);

/* expect_asked - "expect asked DOMAIN|* [plain|txtcheck] N": requests
 * the worker sent the resolver */
void	expect_asked(int n, char **t);

/* expect_noanswer - "expect noanswer CLIENT": nothing unchecked */
void	expect_noanswer(int n, char **t);

/* scn_worker_stop - the worker stops (as worker_main() after its loop),
 * its clients are closed and their answers forgotten */
void	scn_worker_stop(void);

/* scn_fleet.c (built only with the fleet tier) */

#ifdef HAVE_FLEET
/* scn_fleet_relay - every relay: accept, connect on to redis, move what
 * waits both ways (replies to a held host stay).  Returns the moves. */
int	scn_fleet_relay(void);

/* scn_fleet_waiting - a request of a host not held is still with redis */
int	scn_fleet_waiting(void);

/* scn_fleet_wait - block (real time) until redis answers a request of a
 * host not held; bail after SCN_REDIS_WAIT_MS */
void	scn_fleet_wait(void);

/* scn_redis_stop - the scenario's redis-server goes */
void	scn_redis_stop(void);

/*
 * cmd_fleet - "fleet": a redis-server of this scenario (on a unix
 * socket), a fleet section for both hosts, and host B (started with A);
 * "fleet hold b" / "fleet release b": redis's replies to that host wait
 * in its relay, or go on
 */
void	cmd_fleet(int n, char **t);

/* expect_fleet - "expect fleet KEY present|absent": in redis (with the
 * prefix "scn:"; KEY "lease:D" is a lease) */
void	expect_fleet(int n, char **t);
#endif /* HAVE_FLEET */

/* scn_expect.c */

/* cmd_expect - every expectation */
void	cmd_expect(int n, char **t);

#endif /* SCENARIO_INT_H */
