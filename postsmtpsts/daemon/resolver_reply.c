/*
 * resolver_reply.c - the resolver's replies to front workers, never
 * blocking
 *
 * Interface (resolver_int.h): resolver_reply_send() sends one reply (lib/ipc
 * encodes it) to one worker connection; resolver_reply_write_cb() flushes
 * the connection's queue when its socket has room; resolver_reply_clear()
 * forgets the queue.
 *
 * Replies to a worker are sent without blocking.  When the worker's
 * socket is full (the worker is not reading), replies wait in a
 * per-connection queue of at most RESOLVER_MAX_OUTQ messages and
 * RESOLVER_MAX_OUTQ_BYTES bytes, flushed when the socket has room; a
 * reply that does not fit is dropped and counted (logged at most once a
 * minute with the totals): the waiting requests get their deadline
 * answer, and the result is in the cache for the next one.  A worker
 * that stops reading never stalls the resolver nor grows it.
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/ipc.h"
#include "lib/log.h"
#include "daemon/resolver_int.h"
#include "lib/xmalloc.h"

#define RESOLVER_TRIM_OUTQ	256	/* a queue this long ran dry: xtrim */

/* A reply that did not fit into the worker's socket yet. */
struct rmsg {
	STAILQ_ENTRY(rmsg) entry;
	size_t		 len;
	unsigned char	 data[];
};

/*
 * rconn_enqueue - keep a reply until the worker's socket has room, or drop
 * it when the connection's queue is full
 */
static void
rconn_enqueue(struct rconn *rc, const char *domain, const unsigned char *msg,
    size_t len)
{
	struct resolver	*r = rc->r;
	struct rmsg	*m;
	time_t		 now;

	if (rc->noutq >= RESOLVER_MAX_OUTQ ||
	    len > RESOLVER_MAX_OUTQ_BYTES - rc->outq_bytes) {
		r->dropped++;
		now = clock_wall();
		if (now - r->last_drop_log >= 60) {
			log_warnx("worker not reading: reply for %s dropped "
			    "(queue %zu replies, %zu bytes; "
			    "replies_dropped=%llu)", domain, rc->noutq,
			    rc->outq_bytes, r->dropped);
			r->last_drop_log = now;
		}
		return;
	}
	m = xmalloc(sizeof(*m) + len);
	m->len = len;
	memcpy(m->data, msg, len);
	STAILQ_INSERT_TAIL(&rc->outq, m, entry);
	rc->noutq++;
	rc->outq_bytes += len;
	if (rc->noutq > rc->outq_peak)
		rc->outq_peak = rc->noutq;
	if (rc->noutq == 1)
		event_add(rc->ev_write, NULL);
}

/* rconn_outq_empty - the queue ran dry: after a big one, give the memory
 * back (xtrim) */
static void
rconn_outq_empty(struct rconn *rc)
{
	if (rc->outq_peak >= RESOLVER_TRIM_OUTQ)
		xtrim();
	rc->outq_peak = 0;
}

void
resolver_reply_clear(struct rconn *rc)
{
	struct rmsg	*m;

	while ((m = STAILQ_FIRST(&rc->outq)) != NULL) {
		STAILQ_REMOVE_HEAD(&rc->outq, entry);
		free(m);
	}
	rc->noutq = 0;
	rc->outq_bytes = 0;
	rconn_outq_empty(rc);
}

void
resolver_reply_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rconn	*rc = arg;
	struct rmsg	*m;

	(void)what;
	while ((m = STAILQ_FIRST(&rc->outq)) != NULL) {
		if (send(fd, m->data, m->len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
		    -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS || errno == EINTR) {
				event_add(rc->ev_write, NULL);
				return;
			}
			/* the worker is gone: its EOF frees the connection;
			 * until then, nothing queued can be delivered */
			log_warn("send queued reply to a worker");
			resolver_reply_clear(rc);
			return;
		}
		STAILQ_REMOVE_HEAD(&rc->outq, entry);
		rc->noutq--;
		rc->outq_bytes -= m->len;
		free(m);
	}
	rconn_outq_empty(rc);
}

void
resolver_reply_send(struct rconn *rc, const char *domain, size_t len,
    int status, const unsigned char *rec, size_t rec_len,
    const unsigned char *drec, size_t drec_len)
{
	struct resolver	*r = rc->r;
	struct ipc_reply rep;
	long		 n;

	memset(&rep, 0, sizeof(rep));
	rep.status = (uint8_t)status;
	memcpy(rep.domain, domain, len);
	rep.domain_len = len;
	rep.record = rec;
	rep.record_len = rec_len;
	rep.dane = drec;
	rep.dane_len = drec_len;
	if ((n = ipc_reply_encode(&rep, r->msg, sizeof(r->msg))) == -1)
		panic("resolver_reply_send: cannot encode reply for %s",
		    domain);
	if (STAILQ_EMPTY(&rc->outq)) {
		if (send(rc->fd, r->msg, (size_t)n, MSG_DONTWAIT |
		    MSG_NOSIGNAL) != -1)
			return;
		if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ENOBUFS && errno != EINTR) {
			/* the worker is gone: its EOF frees the connection */
			log_warn("send reply for %s to a worker", domain);
			return;
		}
	}
	rconn_enqueue(rc, domain, r->msg, (size_t)n);
}
