/*
 * fleet_conn.c - the fleet client's connection (interface: fleet_int.h)
 *
 * hiredis 0.14 has no connect timeout, so the connection carries its own
 * libevent timer (f->retry): the connect timeout while connecting, the
 * reconnect delay while down.
 *
 * States: DOWN (no context; a reconnect timer armed) -> (SENTINEL: asking
 * a sentinel for the master, when sentinels are configured) ->
 * CONNECTING -> (AUTH sent, when a password is configured) -> UP.  Any
 * timeout, connect failure, AUTH failure or lost connection goes back to
 * DOWN (fleet_conn_down): redisAsyncFree() calls every pending command's
 * callback with a NULL reply, which completes the operations not yet
 * completed with FLEET_DOWN (fleet.c).  The next try goes to the next
 * server (or sentinel: ask again, the master may have changed) after a
 * backoff that doubles, from FLEET_BACKOFF_MIN_MS to FLEET_BACKOFF_MAX_MS,
 * while all of them fail.  Each change between up and down is logged once.
 *
 * Wire: SENTINEL get-master-addr-by-name NAME; AUTH [user] pass.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

#include "lib/config.h"
#include "lib/fleet.h"
#include "lib/fleet_int.h"
#include "lib/log.h"

static void	fleet_connect(struct fleet *);

/* fleet_nservers - how many addresses are tried in turn */
static size_t
fleet_nservers(const struct fleet *f)
{
	size_t	 n;

	(void)config_fleet_list(f->cf, &n, NULL);
	return (n);
}

/* fleet_state_change - log once per change, tell the hook */
static void
fleet_state_change(struct fleet *f, int up, const char *why)
{
	const char *srv = f->spec;

	if (up) {
		log_info("fleet: connected to %s%s", srv, f->ever_up ?
		    " again: sharing resumes" : "");
		f->logged_down = 0;
		f->ever_up = 1;
	} else if (!f->logged_down) {
		log_warnx("fleet: %s %s: %s; answering and discovering "
		    "locally, reconnecting with backoff", f->ever_up ?
		    "lost" : "cannot reach", srv, why);
		f->logged_down = 1;
	}
	if (f->state_hook != NULL)
		f->state_hook(f->hook_arg, up);
}

/* fleet_retry_cb - the reconnect timer, or the connect timeout */
static void
fleet_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fleet	*f = arg;

	(void)fd;
	(void)what;
	if (f->state == FLEET_ST_DOWN)
		fleet_connect(f);
	else if (f->state != FLEET_ST_UP)
		fleet_conn_down(f, "connect timeout");
}

void
fleet_conn_down(struct fleet *f, const char *why)
{
	redisAsyncContext *ac = f->ac;
	struct timeval	 tv;
	int		 was_up = f->state == FLEET_ST_UP;

	f->ac = NULL;
	f->state = FLEET_ST_DOWN;
	if (ac != NULL) {
		ac->data = NULL;
		redisAsyncFree(ac);	/* deferred when inside a callback */
	}
	if (was_up)
		fleet_count(f, FLEET_C_DISCONNECT);
	else
		fleet_count(f, FLEET_C_CONNECT_FAIL);
	if (was_up || !f->logged_down)
		fleet_state_change(f, 0, why);
	/* the next server (or sentinel: ask again, the master may have
	 * changed), after a backoff that doubles while all fail */
	f->have_master = 0;
	f->server = (f->server + 1) % fleet_nservers(f);
	/* a server that took us and then refused the write (a replica:
	 * READONLY) is no success: its backoff keeps doubling, or a list
	 * naming only replicas reconnects every 100 ms, 3 log lines each */
	if (was_up && !f->readonly)
		f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	tv = fleet_ms(f->backoff_ms);
	evtimer_add(f->retry, &tv);
	if (f->server == 0 || fleet_nservers(f) == 1) {
		f->backoff_ms *= 2;
		if (f->backoff_ms > FLEET_BACKOFF_MAX_MS)
			f->backoff_ms = FLEET_BACKOFF_MAX_MS;
	}
}

/* fleet_auth_cb - AUTH answered: up, or down */
static void
fleet_auth_cb(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet	*f = priv;
	redisReply	*r = reply;
	char		 esc[LOG_ESCAPE_MAX + 8];

	if (r == NULL || ac->data == NULL || f->ac != ac)
		return;
	if (r->type != REDIS_REPLY_STATUS) {
		log_warnx("fleet: AUTH at %s refused: %s", f->spec,
		    r->type == REDIS_REPLY_ERROR ? log_escape(esc,
		    sizeof(esc), r->str, r->len) : "unexpected reply");
		f->logged_down = 1;
		fleet_conn_down(f, "AUTH refused");
		return;
	}
	evtimer_del(f->retry);
	f->state = FLEET_ST_UP;
	if (!f->readonly)
		f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	fleet_count(f, FLEET_C_CONNECT);
	fleet_state_change(f, 1, NULL);
}

/*
 * fleet_sentinel_cb - the sentinel named the master (an array of its
 * address and port): leave the sentinel, connect there.  Asked again on
 * every reconnect, so a failover is followed when the old master's
 * connection drops or it answers READONLY (fleet_op_error).
 */
static void
fleet_sentinel_cb(redisAsyncContext *ac, void *reply, void *priv)
{
	struct fleet	*f = priv;
	redisReply	*r = reply;
	char		*end;
	long		 port = 0;

	if (r == NULL || ac->data == NULL || f->ac != ac)
		return;
	if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    r->element[1]->type == REDIS_REPLY_STRING &&
	    r->element[0]->len > 0 && r->element[0]->len < FLEET_HOST_MAX &&
	    memchr(r->element[0]->str, '\0', r->element[0]->len) == NULL) {
		errno = 0;
		port = strtol(r->element[1]->str, &end, 10);
		if (errno != 0 || *end != '\0' || port < 1 || port > 65535)
			port = 0;
	}
	if (port == 0) {
		fleet_conn_down(f, r->type == REDIS_REPLY_NIL ? "the sentinel "
		    "knows no such master (master_name)" : "the sentinel "
		    "gave no master address");
		return;
	}
	memcpy(f->master_host, r->element[0]->str, r->element[0]->len);
	f->master_host[r->element[0]->len] = '\0';
	f->master_port = (int)port;
	f->have_master = 1;
	/* freed once this callback returns; its disconnect is ignored */
	f->ac = NULL;
	ac->data = NULL;
	redisAsyncFree(ac);
	evtimer_del(f->retry);
	fleet_connect(f);
}

/* fleet_connect_cb - TCP or unix connect finished */
static void
fleet_connect_cb(const redisAsyncContext *ac, int status)
{
	struct fleet	*f = ac->data;
	const char	*argv[3];
	size_t		 argl[3];
	int		 n = 0;

	if (f == NULL || f->ac != ac)
		return;
	if (status != REDIS_OK) {
		/* hiredis frees the context after this callback */
		f->ac = NULL;
		fleet_conn_down(f, ac->errstr[0] != '\0' ? ac->errstr :
		    "connect failed");
		return;
	}
	if (f->state == FLEET_ST_SENTINEL) {
		argv[0] = "SENTINEL";
		argv[1] = "get-master-addr-by-name";
		argv[2] = f->cf->master_name;
		for (n = 0; n < 3; n++)
			argl[n] = strlen(argv[n]);
		if (redisAsyncCommandArgv(f->ac, fleet_sentinel_cb, f, 3, argv,
		    argl) != REDIS_OK)
			fleet_conn_down(f, "cannot ask the sentinel");
		return;
	}
	if (f->cf->password == NULL) {
		fleet_auth_cb(f->ac, &(redisReply){ .type =
		    REDIS_REPLY_STATUS }, f);
		return;
	}
	f->state = FLEET_ST_AUTH;
	argv[n] = "AUTH";
	argl[n++] = 4;
	if (f->cf->user != NULL) {
		argv[n] = f->cf->user;
		argl[n++] = strlen(f->cf->user);
	}
	argv[n] = f->cf->password;
	argl[n++] = strlen(f->cf->password);
	if (redisAsyncCommandArgv(f->ac, fleet_auth_cb, f, n, argv, argl) !=
	    REDIS_OK)
		fleet_conn_down(f, "cannot send AUTH");
}

/* fleet_disconnect_cb - an established connection went away */
static void
fleet_disconnect_cb(const redisAsyncContext *ac, int status)
{
	struct fleet	*f = ac->data;

	(void)status;
	if (f == NULL || f->ac != ac)
		return;
	f->ac = NULL;		/* hiredis frees it */
	fleet_conn_down(f, ac->errstr[0] != '\0' ? ac->errstr : "disconnected");
}

/* fleet_connect - start connecting to the current server */
static void
fleet_connect(struct fleet *f)
{
	const struct config_fleet_server *sv;
	redisAsyncContext *ac;
	struct timeval	 tv;
	size_t		 n;
	int		 ask, v6;	/* ask a sentinel first; an IPv6
					   master address */

	sv = &config_fleet_list(f->cf, &n, NULL)[f->server];
	ask = f->cf->nsentinels > 0 && !f->have_master;
	if (ask || f->cf->nsentinels == 0) {
		snprintf(f->spec, sizeof(f->spec), "%s%s", ask ?
		    "sentinel " : "", sv->spec);
		ac = sv->path != NULL ? redisAsyncConnectUnix(sv->path) :
		    redisAsyncConnect(sv->host, sv->port);
	} else {
		v6 = strchr(f->master_host, ':') != NULL;
		snprintf(f->spec, sizeof(f->spec), "%s%s%s:%d (master %s, "
		    "from sentinel %s)", v6 ? "[" : "", f->master_host,
		    v6 ? "]" : "", f->master_port, f->cf->master_name,
		    sv->spec);
		ac = redisAsyncConnect(f->master_host, f->master_port);
	}
	if (ac == NULL || ac->err) {
		f->ac = NULL;
		if (ac != NULL) {
			log_debug(1, "fleet: connect %s: %s", f->spec,
			    ac->errstr);
			redisAsyncFree(ac);
		}
		fleet_conn_down(f, "connect failed");
		return;
	}
	ac->data = f;
	f->ac = ac;
	f->state = ask ? FLEET_ST_SENTINEL : FLEET_ST_CONNECTING;
	if (redisLibeventAttach(ac, f->base) != REDIS_OK ||
	    redisAsyncSetConnectCallback(ac, fleet_connect_cb) != REDIS_OK ||
	    redisAsyncSetDisconnectCallback(ac, fleet_disconnect_cb) !=
	    REDIS_OK) {
		fleet_conn_down(f, "cannot attach to the event loop");
		return;
	}
	tv = fleet_ms(f->cf->connect_timeout_ms);
	evtimer_add(f->retry, &tv);
}

void
fleet_conn_start(struct fleet *f)
{
	if ((f->retry = evtimer_new(f->base, fleet_retry_cb, f)) == NULL)
		fatalx("fleet: cannot create a timer");
	fleet_connect(f);
}

void
fleet_conn_stop(struct fleet *f)
{
	redisAsyncContext *ac;

	if ((ac = f->ac) != NULL) {
		f->ac = NULL;
		redisAsyncFree(ac);
	}
	event_free(f->retry);
}
