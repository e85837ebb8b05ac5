/*
 * send.c - make the day's reports and deliver them (RFC 8460 §3, §5)
 *
 * Interface, steps and rules: send.h.  A job is one report (a policy
 * domain and a day); its state is the "r/" value of the store, written
 * (one small transaction) whenever it changes, so a crash anywhere leaves
 * a state the next start resumes from (rstate.h).
 */
#include "autoconf.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "lib/addrclass.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/config.h"
#include "lib/dns.h"
#include "lib/https.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/fleetagg.h"
#include "tlsrpt/mime.h"
#include "tlsrpt/report.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/rua.h"
#include "tlsrpt/send.h"
#include "tlsrpt/sendmail.h"
#include "tlsrpt/store.h"

#define SEND_JSON_MAX		(32 * 1024 * 1024)	/* before gzip */
#define SEND_TLSA_MAX		8192	/* a policy's TLSA strings */
#define SEND_RATE_SLOTS		1024	/* destinations rate-limited */
#define SEND_MAX_CLOSE		100000	/* reports made per step */
#define SEND_REPORT_ID_LEN	(8 + 1 + DOMAIN_MAX_LEN + 1 + DOMAIN_MAX_LEN + 1)
#define SEND_DEST_LEN		RUA_MAILBOX_LEN	/* a rate-limit key */
#define SEND_ADDR_LEN		INET6_ADDRSTRLEN

enum send_phase {
	SEND_RUA,
	SEND_TLSA,
	SEND_DELIVER,
};

struct send_job;

/* One TLSA query of a job: which policy it is for. */
struct send_tq {
	struct send_job	*j;
	size_t		 idx;		/* in q[] */
	size_t		 policy;
};

struct send_job {
	TAILQ_ENTRY(send_job) entry;
	struct send	*s;
	char		 key[RSTATE_KEY_LEN];
	int64_t		 day;
	char		 domain[DOMAIN_BUFSZ];
	char		 report_id[SEND_REPORT_ID_LEN + FLEETAGG_HOST_LEN];
	int		 fleet;		/* elected: the state goes to the
					   fleet, the lease is ours */
	int		 own;		/* our part alone (fleetagg.h) */
	enum send_phase	 phase;
	struct rstate	 r;
	struct agg	 agg;
	struct rua_list	 rua;		/* parsed r.dest[] */
	struct dns_query *q[AGG_MAX_POLICIES * AGG_MAX_HOSTS];
	struct send_tq	 tq[AGG_MAX_POLICIES * AGG_MAX_HOSTS];
	size_t		 nq;		/* queries started (q[i] NULL once
					   answered) */
	size_t		 npending;	/* ... not answered yet */
	struct buf	 tlsa[AGG_MAX_POLICIES];
	struct buf	 json;
	struct buf	 gz;
	struct dns_query *qaddr;	/* https: the host's addresses */
	int		 aaaa;		/* qaddr asks AAAA */
	struct https_fetch *post;
	size_t		 cur;		/* destination delivered now */
	char		 addrs[HTTPS_MAX_ADDRS][SEND_ADDR_LEN];
	size_t		 naddrs;
};

TAILQ_HEAD(send_jobs, send_job);

struct send_rate {
	char		 dest[SEND_DEST_LEN];
	int64_t		 start;		/* of its hour */
	int		 n;		/* reports in it */
};

struct send {
	const struct config *cf;
	struct store	*store;
	struct event_base *base;
	struct dns	*dns;
	struct https	*https;
	struct send_jobs jobs;
	size_t		 njobs;
	int		 more;		/* due reports not started yet */
	int64_t		 now;
	send_done_fn	*done;
	void		*done_arg;
	struct event	*again;		/* start more, or say done */
	int		 dry;
	FILE		*dryfp;
	int		 dry_rc;
	size_t		 nrate;
	struct send_rate rate[SEND_RATE_SLOTS];
	struct fleetagg	*fa;		/* NULL: this host reports alone */
};

static void	send_job_next(struct send_job *);
static void	send_job_deliver(struct send_job *);
static void	send_job_finish(struct send_job *);
static void	send_job_run(struct send_job *);
static void	send_counter(struct send *, const char *, uint64_t);

/* send_backoff - seconds to wait after the n-th failure (n >= 1) */
static int64_t
send_backoff(uint32_t n)
{
	int64_t	 b = SEND_BACKOFF_MIN;

	while (n-- > 1 && b < SEND_BACKOFF_MAX)
		b *= 2;
	return (b < SEND_BACKOFF_MAX ? b : SEND_BACKOFF_MAX);
}

/* send_commit - write the job's state, and add 1 to counter (or NULL) */
static int
send_commit(struct send_job *j, const char *counter, const char *counter2)
{
	struct send	*s = j->s;
	struct buf	 b;

	if (s->dry)
		return (0);
	buf_init(&b, 1 << 16);
	rstate_encode(&j->r, &b);
	if (b.error || store_begin(s->store, 1) == -1) {
		buf_free(&b);
		return (-1);
	}
	if (store_put(s->store, j->key, b.data, b.len) == -1 ||
	    (counter != NULL && store_counter_add(s->store, counter, 1) ==
	    -1) || (counter2 != NULL && store_counter_add(s->store, counter2,
	    1) == -1)) {
		store_abort(s->store);
		buf_free(&b);
		return (-1);
	}
	buf_free(&b);
	if (store_commit(s->store) == -1)
		return (-1);
	if (j->fleet)
		fleetagg_publish(s->fa, j->day, j->domain, &j->r, s->now);
	return (0);
}

/* send_counter - add n to a counter, in a transaction of its own */
static void
send_counter(struct send *s, const char *name, uint64_t n)
{
	if (s->dry || n == 0 || store_begin(s->store, 1) == -1)
		return;
	if (store_counter_add(s->store, name, n) == -1)
		store_abort(s->store);
	else
		store_commit(s->store);
}

/* send_rate_dest - the rate limit's key of destination d */
static const char *
send_rate_dest(const struct rua_dest *d)
{
	return (d->scheme == RUA_MAILTO ? d->mailbox : d->host);
}

/* send_rate_take - may one more report go to dest now?  1 (counted) or 0
 * (*until: when it may) */
static int
send_rate_take(struct send *s, const char *dest, int64_t now, int64_t *until)
{
	struct send_rate *r = NULL;
	size_t	 i, old = 0;

	for (i = 0; i < s->nrate; i++) {
		if (strcmp(s->rate[i].dest, dest) == 0) {
			r = &s->rate[i];
			break;
		}
		if (s->rate[i].start < s->rate[old].start)
			old = i;
	}
	if (r == NULL) {
		r = s->nrate < SEND_RATE_SLOTS ? &s->rate[s->nrate++] :
		    &s->rate[old];
		snprintf(r->dest, sizeof(r->dest), "%s", dest);
		r->start = now;
		r->n = 0;
	}
	if (now >= r->start + SEND_RATE_WINDOW) {
		r->start = now;
		r->n = 0;
	}
	if (r->n >= s->cf->tlsrpt.rate_limit) {
		*until = r->start + SEND_RATE_WINDOW;
		return (0);
	}
	r->n++;
	return (1);
}

/* send_job_free - release a job that is on no list */
static void
send_job_free(struct send_job *j)
{
	size_t	 i;

	for (i = 0; i < j->nq; i++)
		dns_cancel(j->q[i]);	/* NULL (answered): a no-op */
	dns_cancel(j->qaddr);
	https_cancel(j->post);
	for (i = 0; i < AGG_MAX_POLICIES; i++)
		buf_free(&j->tlsa[i]);
	buf_free(&j->json);
	buf_free(&j->gz);
	agg_free(&j->agg);
	free(j);
}

/* send_again_cb - after a job ended: start more, or say done */
static void
send_again_cb(evutil_socket_t fd, short what, void *arg)
{
	struct send	*s = arg;
	send_done_fn	*done;

	(void)fd;
	(void)what;
	if (s->dry) {
		if (s->njobs == 0)
			event_base_loopbreak(s->base);
		return;
	}
	if (s->more) {
		(void)send_step(s, clock_wall(), -1, s->done, s->done_arg);
		return;
	}
	if (s->njobs == 0 && (done = s->done) != NULL) {
		s->done = NULL;
		done(s->done_arg);
	}
}

/* send_job_end - the job is over: off the list, freed */
static void
send_job_end(struct send_job *j)
{
	struct send	*s = j->s;

	TAILQ_REMOVE(&s->jobs, j, entry);
	s->njobs--;
	if (j->fleet)
		fleetagg_release(s->fa, j->day, j->domain);
	send_job_free(j);
	if (s->njobs == 0 || s->more)
		event_active(s->again, EV_TIMEOUT, 0);
}

/* send_dest_parse - dest i of r as a parsed URI (the state keeps only the
 * URIs, checked when they were taken) */
static int
send_dest_parse(struct send_job *j)
{
	struct rua_list	*one = xmalloc(sizeof(*one));
	char		 rec[RUA_MAX_URI + 32];
	size_t		 i;

	memset(&j->rua, 0, sizeof(j->rua));
	for (i = 0; i < j->r.ndest; i++) {
		snprintf(rec, sizeof(rec), "v=TLSRPTv1; rua=%s",
		    j->r.dest[i].uri);
		if (rua_parse(rec, strlen(rec), one) != RUA_OK) {
			free(one);
			return (-1);
		}
		j->rua.dest[i] = one->dest[0];
	}
	j->rua.n = j->r.ndest;
	free(one);
	return (0);
}

/* send_job_retry - the record lookup failed for now */
static void
send_job_retry(struct send_job *j, const char *why)
{
	struct send	*s = j->s;

	snprintf(j->r.why, sizeof(j->r.why), "%s", why);
	if (s->now >= j->r.first_try + s->cf->tlsrpt.retry_for) {
		j->r.status = RSTATE_FAILED;
		j->r.done_at = s->now;
		log_warnx("tlsrpt: domain=%s day=%s report=failed: %s; given "
		    "up after %d s", j->domain, j->key + 2, why,
		    s->cf->tlsrpt.retry_for);
		send_commit(j, "reports_failed", NULL);
	} else {
		j->r.next_try = s->now + send_backoff(j->r.attempts);
		log_info("tlsrpt: domain=%s day=%s report=retry in %" PRId64
		    " s: %s", j->domain, j->key + 2, j->r.next_try - s->now,
		    why);
		send_commit(j, NULL, NULL);
	}
	send_job_end(j);
}

/* send_txt_join - the character-strings of TXT rdata p[0..len) joined */
static void
send_txt_join(const unsigned char *p, size_t len, struct buf *out)
{
	size_t	 i = 0, n;

	while (i < len) {
		n = p[i++];
		if (n > len - i)
			n = len - i;
		buf_append(out, p + i, n);
		i += n;
	}
}

/* send_rua_cb - TXT _smtp._tls.DOMAIN */
static void
send_rua_cb(const struct dns_result *res, void *arg)
{
	struct send_job	*j = arg;
	struct send	*s = j->s;
	struct buf	 recs[16];
	const char	*txt[16];
	size_t		 lens[16], n, i, idx;
	char		 esc[LOG_ESCAPE_MAX + 8];
	enum rua_status	 st;
	int		 sel;

	j->q[0] = NULL;
	j->nq = 0;
	s->now = clock_wall();
	if (res->status != DNS_OK || res->rcode == DNS_RCODE_SERVFAIL) {
		send_job_retry(j, res->status != DNS_OK ? res->error :
		    "TLSRPT record lookup: SERVFAIL");
		return;
	}
	if (res->security == DNS_BOGUS) {
		/* RFC 8460 §3 and DNSSEC: a forged answer is no record */
		send_job_retry(j, "TLSRPT record lookup: DNSSEC bogus");
		return;
	}
	n = res->rdata_count < 16 ? res->rdata_count : 16;
	for (i = 0; i < n; i++) {
		buf_init(&recs[i], RUA_MAX_RECORD + 1);
		send_txt_join(res->rdata[i], res->rdata_len[i], &recs[i]);
		/* a record cut at RUA_MAX_RECORD + 1 is refused as too long */
		txt[i] = recs[i].data != NULL ? recs[i].data : "";
		lens[i] = recs[i].len;
	}
	sel = n > 0 ? rua_select(txt, lens, n, &idx) : -1;
	if (sel == 0) {
		st = rua_parse(txt[idx], lens[idx], &j->rua);
		if (j->rua.refused > 0) {
			log_warnx("tlsrpt: domain=%s rua refused=%zu: %s (the "
			    "record: \"%s\")", j->domain, j->rua.refused,
			    j->rua.why, log_escape(esc, sizeof(esc), txt[idx],
			    lens[idx]));
			send_counter(s, "rua_refused", j->rua.refused);
		}
	} else
		st = RUA_INVALID;
	for (i = 0; i < n; i++)
		buf_free(&recs[i]);
	if (sel != 0 || st != RUA_OK) {
		j->r.status = RSTATE_NO_RUA;
		j->r.done_at = s->now;
		snprintf(j->r.why, sizeof(j->r.why), "%s", res->nxdomain ?
		    "no TLSRPT record (NXDOMAIN)" : sel == -1 ?
		    "no v=TLSRPTv1 record" : sel == -2 ?
		    "more than one v=TLSRPTv1 record (RFC 8460 §3)" :
		    j->rua.why);
		log_info("tlsrpt: domain=%s day=%s report=not-sent: %s",
		    j->domain, j->key + 2, j->r.why);
		send_commit(j, "reports_no_rua", NULL);
		send_job_end(j);
		return;
	}
	for (i = 0; i < j->rua.n; i++) {
		memset(&j->r.dest[i], 0, sizeof(j->r.dest[i]));
		snprintf(j->r.dest[i].uri, sizeof(j->r.dest[i].uri), "%s",
		    j->rua.dest[i].uri);
		j->r.dest[i].state = RDEST_TODO;
	}
	j->r.ndest = j->rua.n;
	j->r.rua_known = 1;
	j->r.why[0] = '\0';
	send_commit(j, NULL, NULL);
	j->phase = SEND_TLSA;
	send_job_next(j);
}

/* send_tlsa_cb - TLSA _25._tcp.HOST of a DANE policy's MX host */
static void
send_tlsa_cb(const struct dns_result *res, void *arg)
{
	struct send_tq	*tq = arg;
	struct send_job	*j = tq->j;
	struct buf	*t = &j->tlsa[tq->policy];
	const unsigned char *p;
	char		 line[16 + 2 * 512];
	size_t		 i, k;
	int		 n;

	j->q[tq->idx] = NULL;
	/* only what DNSSEC vouches for is a DANE policy (RFC 7672) */
	if (res->status == DNS_OK && res->security == DNS_SECURE) {
		for (i = 0; i < res->rdata_count; i++) {
			p = res->rdata[i];
			if (res->rdata_len[i] < 4 || res->rdata_len[i] > 3 + 512)
				continue;
			n = snprintf(line, sizeof(line), "%u %u %u ", p[0], p[1],
			    p[2]);
			for (k = 3; k < res->rdata_len[i]; k++)
				n += snprintf(line + n, sizeof(line) - (size_t)n,
				    "%02X", p[k]);
			line[n++] = '\n';
			line[n] = '\0';
			if (t->len == 0 || memmem(t->data, t->len, line,
			    (size_t)n) == NULL)
				buf_append(t, line, (size_t)n);
		}
	}
	if (--j->npending == 0) {
		j->nq = 0;
		j->phase = SEND_DELIVER;
		send_job_next(j);
	}
}

/* send_build - the report's JSON and gzip: 0, or -1 (FAILED, ended) */
static int
send_build(struct send_job *j)
{
	struct send	*s = j->s;
	const struct config_tlsrpt *t = &s->cf->tlsrpt;
	struct report_meta m;
	const char	*tlsa[AGG_MAX_POLICIES];
	size_t		 i;
	int		 details;

	memset(&m, 0, sizeof(m));
	m.organization = t->organization_name != NULL ?
	    t->organization_name : "";
	m.contact = t->contact_info != NULL ? t->contact_info : "";
	m.report_id = j->report_id;
	m.domain = j->domain;
	m.sending_ip = t->sending_mta_ip;
	m.day = j->day;
	for (i = 0; i < AGG_MAX_POLICIES; i++)
		tlsa[i] = buf_cstr(&j->tlsa[i]) != NULL ? j->tlsa[i].data :
		    NULL;
	for (details = 1; details >= 0; details--) {
		buf_reset(&j->json);
		buf_reset(&j->gz);
		if (report_json(&m, &j->agg, tlsa, details, &j->json) == 0 &&
		    mime_gzip(j->json.data, j->json.len, &j->gz) == 0 &&
		    j->gz.len <= t->max_report_size)
			break;
		if (details && !s->dry)
			send_counter(s, "reports_too_large", 1);
		log_warnx("tlsrpt: domain=%s day=%s report of %zu bytes "
		    "(gzip'd) is over max_report_size (%zu)%s", j->domain,
		    j->key + 2, j->gz.len, t->max_report_size, details ?
		    ": sent without its failure details" : "");
	}
	if (details < 0) {
		j->r.status = RSTATE_FAILED;
		j->r.done_at = s->now;
		snprintf(j->r.why, sizeof(j->r.why), "larger than "
		    "max_report_size even without failure details");
		send_commit(j, "reports_failed", NULL);
		return (-1);
	}
	j->r.size = (uint32_t)j->gz.len;
	return (0);
}

/* send_dest_done - destination j->cur's attempt ended: ok, or why not
 * (temporary: to be tried again; counter: a failure's own counter, or
 * NULL) */
static void
send_dest_done(struct send_job *j, int ok, int temporary, const char *why,
    const char *counter)
{
	struct send	*s = j->s;
	struct rstate_dest *d = &j->r.dest[j->cur];

	s->now = clock_wall();
	if (ok) {
		d->state = RDEST_SENT;
		d->why[0] = '\0';
		log_info("tlsrpt: domain=%s day=%s dest=%s report=sent "
		    "bytes=%u", j->domain, j->key + 2, d->uri, j->r.size);
		send_commit(j, NULL, NULL);
	} else {
		snprintf(d->why, sizeof(d->why), "%s", why);
		if (!temporary) {
			d->state = RDEST_FAILED;
			log_warnx("tlsrpt: domain=%s day=%s dest=%s "
			    "report=refused: %s", j->domain, j->key + 2,
			    d->uri, why);
		} else {
			d->state = RDEST_TODO;
			d->next_try = s->now + send_backoff(d->attempts);
			log_warnx("tlsrpt: domain=%s day=%s dest=%s "
			    "report=deferred, again in %" PRId64 " s: %s",
			    j->domain, j->key + 2, d->uri, d->next_try -
			    s->now, why);
		}
		send_commit(j, "deliveries_failed", counter);
	}
	j->cur++;
	send_job_deliver(j);
}

/*
 * send_post_filter - may a report POST connect to addr (https.h's
 * https_addr_fn)?  A global address, or one in
 * tlsrpt.report_allow_addresses: the rua host is the domain owner's
 * choice, and must not make this host reach its own networks
 * (addrclass.h)
 */
static int
send_post_filter(const char *host, int family, const void *addr,
    const char *text, char *why, size_t whysz, void *arg)
{
	const struct config_tlsrpt *t = &((struct send *)arg)->cf->tlsrpt;
	char		 range[ADDRCLASS_WHY_MAX];

	(void)host;
	(void)text;
	if (addrclass_permit(t->report_allow_addresses,
	    t->nreport_allow_addresses, family, addr, range, sizeof(range)))
		return (1);
	snprintf(why, whysz, "not global (%s) and not in "
	    "report_allow_addresses", range);
	return (0);
}

/* send_post_cb - the POST of the report ended */
static void
send_post_cb(const struct https_result *res, void *arg)
{
	struct send_job	*j = arg;
	char		 why[RSTATE_WHY_LEN];
	int		 temporary;

	j->post = NULL;
	if (res->error == HTTPS_OK) {
		send_dest_done(j, 1, 0, NULL, NULL);
		return;
	}
	snprintf(why, sizeof(why), "%s: %s", https_error_name(res->error),
	    res->detail);
	/*
	 * Every address of the host refused (send_post_filter), no
	 * connection made: this destination fails for good, as a receiver's
	 * refusal does.  It is this configuration's decision, which a retry
	 * within retry_for would only repeat (and log again); the report's
	 * other destinations go on.  A collector moved into a private
	 * network on purpose is let in by report_allow_addresses.
	 */
	if (res->error == HTTPS_ERR_ADDRESS) {
		send_dest_done(j, 0, 0, why, "deliveries_refused_address");
		return;
	}
	/* RFC 8460 §5.3: other codes "may be retried as per local sender
	 * policy": a 4xx but 408 and 429 is the receiver's refusal */
	temporary = !(res->error == HTTPS_ERR_HTTP_STATUS &&
	    res->status >= 400 && res->status <= 499 && res->status != 408 &&
	    res->status != 429);
	send_dest_done(j, 0, temporary, why, NULL);
}

/* send_addr_cb - the https host's addresses (A, then AAAA if none) */
static void
send_addr_cb(const struct dns_result *res, void *arg)
{
	struct send_job	*j = arg;
	const struct rua_dest *d = &j->rua.dest[j->cur];
	const char	*addrs[HTTPS_MAX_ADDRS];
	size_t		 i;
	int		 af = j->aaaa ? AF_INET6 : AF_INET;
	size_t		 alen = j->aaaa ? 16 : 4;

	j->qaddr = NULL;
	if (res->status == DNS_OK && res->security != DNS_BOGUS)
		for (i = 0; i < res->rdata_count && j->naddrs < HTTPS_MAX_ADDRS;
		    i++)
			if (res->rdata_len[i] == alen && inet_ntop(af,
			    res->rdata[i], j->addrs[j->naddrs],
			    SEND_ADDR_LEN) != NULL)
				j->naddrs++;
	if (j->naddrs == 0 && !j->aaaa) {
		j->aaaa = 1;
		j->qaddr = dns_query(j->s->dns, d->host, DNS_TYPE_AAAA,
		    send_addr_cb, j);
		return;
	}
	if (j->naddrs == 0) {
		send_dest_done(j, 0, 1, res->security == DNS_BOGUS ?
		    "the host's address is DNSSEC bogus" :
		    "the host has no address", NULL);
		return;
	}
	for (i = 0; i < j->naddrs; i++)
		addrs[i] = j->addrs[i];
	j->post = https_post(j->s->https, d->host, d->port, d->path, addrs,
	    j->naddrs, "application/tlsrpt+gzip", j->gz.data, j->gz.len,
	    send_post_cb, j);
}

/* send_mail - one mailto destination, now (sendmail is quick) */
static void
send_mail(struct send_job *j)
{
	struct send	*s = j->s;
	const struct config_tlsrpt *t = &s->cf->tlsrpt;
	struct mime_report m;
	struct buf	 msg;
	char		 msgid[RSTATE_MSGID_LEN], why[RSTATE_WHY_LEN];
	int		 temporary, rc;

	memset(&m, 0, sizeof(m));
	m.from = t->sender;
	m.to = j->rua.dest[j->cur].mailbox;
	m.domain = j->domain;
	m.submitter = t->submitter;
	m.organization = t->organization_name;
	m.report_id = j->report_id;
	m.msgid = rstate_msgid(msgid, j->day, j->cur, j->domain, t->submitter);
	m.day = j->day;
	m.now = s->now;
	m.gz = j->gz.data;
	m.gzlen = j->gz.len;
	buf_init(&msg, t->max_report_size * 2 + 65536);
	if (mime_message(&m, &msg) == -1) {
		buf_free(&msg);
		send_dest_done(j, 0, 0, "the mail could not be made", NULL);
		return;
	}
	rc = sendmail_run(t->sendmail, t->sender, m.to, msg.data, msg.len,
	    t->timeout, &temporary, why, sizeof(why));
	buf_free(&msg);
	send_dest_done(j, rc == 0, temporary, why, NULL);
}

/* send_job_deliver - the next destination due, or the end */
static void
send_job_deliver(struct send_job *j)
{
	struct send	*s = j->s;
	struct rstate_dest *d;
	int64_t		 until;

	for (; j->cur < j->r.ndest; j->cur++) {
		d = &j->r.dest[j->cur];
		if (d->state == RDEST_SENT || d->state == RDEST_FAILED)
			continue;
		if (d->state == RDEST_TODO && d->next_try > s->now)
			continue;
		/* a mail handed over before a crash: sent if the log shows
		 * it in the queue (count.c) within RSTATE_CONFIRM */
		if (d->state == RDEST_INTENT &&
		    j->rua.dest[j->cur].scheme == RUA_MAILTO &&
		    d->intent_at + RSTATE_CONFIRM > s->now)
			continue;
		if (!send_rate_take(s, send_rate_dest(&j->rua.dest[j->cur]),
		    s->now, &until)) {
			d->next_try = until;
			log_info("tlsrpt: domain=%s day=%s dest=%s rate limit "
			    "(%d an hour): at %" PRId64, j->domain, j->key + 2,
			    d->uri, s->cf->tlsrpt.rate_limit, until);
			send_counter(s, "deliveries_rate_limited", 1);
			continue;
		}
		d->state = RDEST_INTENT;
		d->intent_at = s->now;
		d->attempts++;
		if (send_commit(j, "deliveries", NULL) == -1) {
			/* without INTENT on disk, no hand-over */
			d->state = RDEST_TODO;
			continue;
		}
		if (j->rua.dest[j->cur].scheme == RUA_MAILTO) {
			send_mail(j);
			return;	/* send_dest_done() goes on */
		}
		j->naddrs = 0;
		j->aaaa = 0;
		j->qaddr = dns_query(s->dns, j->rua.dest[j->cur].host,
		    DNS_TYPE_A, send_addr_cb, j);
		return;
	}
	send_job_finish(j);
}

/* send_job_finish - every destination had its turn: the report's status */
static void
send_job_finish(struct send_job *j)
{
	struct send	*s = j->s;
	struct rstate_dest *d;
	size_t		 i, sent = 0, open = 0;
	int64_t		 next = 0, t;
	enum rstate_status was = j->r.status;

	for (i = 0; i < j->r.ndest; i++) {
		d = &j->r.dest[i];
		if (d->state == RDEST_SENT)
			sent++;
		if (d->state != RDEST_TODO && d->state != RDEST_INTENT)
			continue;
		if (s->now >= j->r.first_try + s->cf->tlsrpt.retry_for) {
			d->state = RDEST_FAILED;
			snprintf(d->why, sizeof(d->why), "given up after %d s",
			    s->cf->tlsrpt.retry_for);
			continue;
		}
		open++;
		t = d->state == RDEST_TODO ? d->next_try : d->intent_at +
		    RSTATE_CONFIRM;
		if (next == 0 || t < next)
			next = t;
	}
	if (open > 0) {
		j->r.status = RSTATE_PENDING;
		j->r.next_try = next > s->now ? next : s->now + 1;
		send_commit(j, NULL, NULL);
	} else {
		j->r.status = sent > 0 ? RSTATE_DONE : RSTATE_FAILED;
		j->r.done_at = s->now;
		if (sent == 0)
			log_warnx("tlsrpt: domain=%s day=%s report=failed: no "
			    "destination took it", j->domain, j->key + 2);
		send_commit(j, was != j->r.status ? (sent > 0 ?
		    "reports_sent" : "reports_failed") : NULL, NULL);
	}
	send_job_end(j);
}

/* send_job_next - run the job's current phase */
static void
send_job_next(struct send_job *j)
{
	struct send	*s = j->s;
	char		 name[DOMAIN_BUFSZ + 16];
	size_t		 pi, k;

	switch (j->phase) {
	case SEND_RUA:
		snprintf(name, sizeof(name), "_smtp._tls.%s", j->domain);
		j->nq = 1;
		j->q[0] = dns_query(s->dns, name, DNS_TYPE_TXT, send_rua_cb, j);
		return;
	case SEND_TLSA:
		j->nq = j->npending = 0;
		for (pi = 0; pi < j->agg.npolicies; pi++) {
			if (j->agg.policies[pi].type != TLSRPT_POLICY_TLSA)
				continue;
			for (k = 0; k < j->agg.policies[pi].nhosts; k++) {
				snprintf(name, sizeof(name), "_25._tcp.%s",
				    j->agg.policies[pi].hosts[k]);
				j->npending++;
				j->tq[j->nq].j = j;
				j->tq[j->nq].idx = j->nq;
				j->tq[j->nq].policy = pi;
				j->q[j->nq] = dns_query(s->dns, name,
				    DNS_TYPE_TLSA, send_tlsa_cb, &j->tq[j->nq]);
				j->nq++;
			}
		}
		if (j->npending > 0)
			return;
		j->phase = SEND_DELIVER;
		/* FALLTHROUGH */
	case SEND_DELIVER:
		j->nq = 0;
		if (send_build(j) == -1) {
			send_job_end(j);
			return;
		}
		if (s->dry) {
			fwrite(j->json.data, 1, j->json.len, s->dryfp);
			send_job_end(j);
			return;
		}
		j->cur = 0;
		send_job_deliver(j);
		return;
	}
}

/*
 * send_report_id - the report-id: "YYYYMMDD.DOMAIN@SUBMITTER", the same on
 * every host of a fleet (one report, RFC 8460 4.1: unique per report);
 * with own (a part sent alone: a read-only edge, the fleet out of reach
 * past fleet_deadline) ".HOST" after the domain, so a receiver that
 * drops repeated report-ids (5.3) keeps every host's part
 */
static void
send_report_id(struct send_job *j, int own)
{
	const struct config_tlsrpt *t = &j->s->cf->tlsrpt;

	snprintf(j->report_id, sizeof(j->report_id), "%.4s%.2s%.2s.%s%s%s@%s",
	    j->key + 2, j->key + 7, j->key + 10, j->domain, own ? "." : "",
	    own ? (t->host_id != NULL ? t->host_id : "localhost") : "",
	    t->submitter != NULL ? t->submitter : "localhost");
}

/* send_elect_cb - the fleet's election for the job's report came out */
static void
send_elect_cb(void *arg, enum fleetagg_elect e, int64_t next)
{
	struct send_job	*j = arg;
	struct send	*s = j->s;

	switch (e) {
	case FLEETAGG_SEND:
		j->fleet = 1;
		send_job_run(j);
		return;
	case FLEETAGG_OWN:
		j->own = 1;
		send_report_id(j, 1);
		log_warnx("tlsrpt: domain=%s day=%.10s fleet=unreachable: "
		    "past fleet_deadline, this host's part is sent on its own "
		    "(report-id %s)", j->domain, j->key + 2, j->report_id);
		send_counter(s, "fleet_own_reports", 1);
		send_job_run(j);
		return;
	case FLEETAGG_DONE:
		log_info("tlsrpt: domain=%s day=%.10s report=%s by the fleet",
		    j->domain, j->key + 2, rstate_status_name(j->r.status));
		send_commit(j, "reports_fleet_other", NULL);
		send_job_end(j);
		return;
	case FLEETAGG_LATER:
		j->r.status = RSTATE_PENDING;
		j->r.next_try = next > s->now ? next : s->now + 1;
		send_commit(j, NULL, NULL);
		send_job_end(j);
		return;
	}
}

/* send_job_start - start the report of key (a "r/" key) */
static void
send_job_start(struct send *s, const char *key)
{
	struct send_job	*j;
	char		 ckey[RSTATE_KEY_LEN];
	const void	*v;
	size_t		 vlen, i;
	int		 rc;

	j = xcalloc(1, sizeof(*j));
	j->s = s;
	snprintf(j->key, sizeof(j->key), "%s", key);
	agg_init(&j->agg);
	for (i = 0; i < AGG_MAX_POLICIES; i++)
		buf_init(&j->tlsa[i], SEND_TLSA_MAX);
	buf_init(&j->json, SEND_JSON_MAX);
	buf_init(&j->gz, s->cf->tlsrpt.max_report_size + 1024);
	TAILQ_INSERT_TAIL(&s->jobs, j, entry);
	s->njobs++;
	if (rstate_key_parse(key, &j->day, j->domain) == -1 ||
	    store_begin(s->store, 0) == -1) {
		send_job_end(j);
		return;
	}
	rc = 0;
	if (!s->dry && (store_get(s->store, key, &v, &vlen) != 1 ||
	    rstate_decode(v, vlen, &j->r) == -1))
		rc = -1;
	rstate_key(ckey, 'c', j->day, j->domain);
	if (rc == 0 && (store_get(s->store, ckey, &v, &vlen) != 1 ||
	    agg_decode(v, vlen, &j->agg) == -1))
		rc = -2;
	store_abort(s->store);
	send_report_id(j, s->cf->fleet.enabled && s->fa == NULL);
	if (rc == -1) {
		log_warnx("tlsrpt: %s does not decode: left alone", key);
		send_job_end(j);
		return;
	}
	if (rc == -2) {
		j->r.status = RSTATE_FAILED;
		snprintf(j->r.why, sizeof(j->r.why), "its counts do not "
		    "decode");
		log_warnx("tlsrpt: %s: %s", key, j->r.why);
		send_commit(j, "reports_failed", NULL);
		send_job_end(j);
		return;
	}
	if (s->fa != NULL && !s->dry) {
		/* one sender for the fleet: send_elect_cb goes on */
		fleetagg_elect(s->fa, j->day, j->domain, s->now, &j->r,
		    &j->agg, send_elect_cb, j);
		return;
	}
	send_job_run(j);
}

/* send_job_run - the report is ours to send: its first phase */
static void
send_job_run(struct send_job *j)
{
	struct send	*s = j->s;

	if (j->r.first_try == 0)
		j->r.first_try = s->now;
	if (s->dry)
		j->phase = SEND_TLSA;
	else if (j->r.rua_known) {
		if (send_dest_parse(j) == -1) {
			/* never: they were checked when taken; looking the
			 * record up again could send twice */
			j->r.status = RSTATE_FAILED;
			snprintf(j->r.why, sizeof(j->r.why), "a kept rua URI "
			    "does not parse");
			send_commit(j, "reports_failed", NULL);
			send_job_end(j);
			return;
		}
		j->phase = SEND_TLSA;
	} else {
		j->phase = SEND_RUA;
		j->r.attempts++;
	}
	send_job_next(j);
}

/* send_running - a job for key runs */
static int
send_running(struct send *s, const char *key)
{
	struct send_job	*j;

	TAILQ_FOREACH(j, &s->jobs, entry)
		if (strcmp(j->key, key) == 0)
			return (1);
	return (0);
}

/* The keys a walk collects. */
struct send_keys {
	struct send	*s;
	int64_t		 force_day;
	char		(*keys)[RSTATE_KEY_LEN];
	size_t		 n, cap;
	int		 full;
};

/* send_keys_add - remember a key */
static void
send_keys_add(struct send_keys *k, const char *key)
{
	if (k->n == k->cap) {
		if (k->cap >= SEND_MAX_CLOSE) {
			k->full = 1;
			return;
		}
		k->cap = k->cap ? k->cap * 2 : 64;
		k->keys = xreallocarray(k->keys, k->cap, sizeof(*k->keys));
	}
	snprintf(k->keys[k->n++], RSTATE_KEY_LEN, "%s", key);
}

/* send_close_cb - a "c/" key: due for a report, or old */
static int
send_close_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct send_keys *k = arg;
	struct send	*s = k->s;
	char		 domain[DOMAIN_BUFSZ], rkey[RSTATE_KEY_LEN];
	const void	*rv;
	size_t		 rlen;
	int64_t		 day;

	(void)v;
	(void)vlen;
	if (rstate_key_parse(key, &day, domain) == -1)
		return (0);
	if (day + 86400 + s->cf->tlsrpt.send_delay > s->now &&
	    day != k->force_day)
		return (0);
	if (store_get(s->store, rstate_key(rkey, 'r', day, domain), &rv,
	    &rlen) != 0)
		return (0);	/* made already (or an error) */
	send_keys_add(k, key);
	return (k->full);
}

/* send_old_cb - "c/" and "r/" keys of days past keep_days whose report
 * is not still to be sent (rstate_deletable) */
static int
send_old_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct send_keys *k = arg;
	struct send	*s = k->s;
	char		 domain[DOMAIN_BUFSZ], rkey[RSTATE_KEY_LEN];
	const void	*rv;
	size_t		 rlen;
	struct rstate	 r;
	int64_t		 day;
	int		 rc, have;

	(void)v;
	(void)vlen;
	if (rstate_key_parse(key, &day, domain) == -1 ||
	    !rstate_deletable(NULL, day, s->cf->tlsrpt.keep_days, s->now))
		return (k->full);
	if ((rc = store_get(s->store, rstate_key(rkey, 'r', day, domain), &rv,
	    &rlen)) == -1)
		return (k->full);
	have = rc == 1 && rstate_decode(rv, rlen, &r) == 0;
	if (rstate_deletable(have ? &r : NULL, day, s->cf->tlsrpt.keep_days,
	    s->now))
		send_keys_add(k, key);
	return (k->full);
}

/* send_due_cb - an "r/" key: due now? */
static int
send_due_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct send_keys *k = arg;
	struct rstate	 r;

	if (rstate_decode(v, vlen, &r) == -1 || r.status != RSTATE_PENDING ||
	    r.next_try > k->s->now || send_running(k->s, key))
		return (0);
	send_keys_add(k, key);
	return (0);
}

/* send_mark_final - the part of rkey ("r/DAY/DOMAIN") to the fleet once
 * more, now that it is closed: 0 or -1 */
static int
send_mark_final(struct send *s, const char *rkey)
{
	char	 domain[DOMAIN_BUFSZ];
	int64_t	 day;

	if (rstate_key_parse(rkey, &day, domain) == -1)
		return (0);
	return (fleetagg_mark(s->store, day, domain));
}

/* send_del_fleet - with the counts of an old day ("c/..."), its fleet
 * marks ("fq/", "fo/": fleetagg.h): 0 or -1 */
static int
send_del_fleet(struct send *s, const char *key)
{
	char	 fkey[RSTATE_KEY_LEN + 2];

	if (key[0] != 'c')
		return (0);
	snprintf(fkey, sizeof(fkey), "fq%s", key + 1);
	if (store_del(s->store, fkey) == -1)
		return (-1);
	fkey[1] = 'o';
	return (store_del(s->store, fkey));
}

/* send_close - make the reports of the days that are over; delete old
 * days.  One transaction: 0, or -1 if it was not committed (nothing made:
 * tried again at the next step) */
static int
send_close(struct send *s, int64_t force_day)
{
	struct send_keys k, old;
	struct rstate	 r;
	struct buf	 b;
	size_t		 i;
	int		 rc = -1;

	memset(&k, 0, sizeof(k));
	k.s = s;
	k.force_day = force_day;
	memset(&old, 0, sizeof(old));
	old.s = s;
	if (store_begin(s->store, 1) == -1)
		return (-1);
	store_walk(s->store, "c/", send_close_cb, &k);
	buf_init(&b, 4096);
	for (i = 0; i < k.n; i++) {
		rstate_init(&r, s->now);
		buf_reset(&b);
		rstate_encode(&r, &b);
		k.keys[i][0] = 'r';
		if (store_put(s->store, k.keys[i], b.data, b.len) == -1)
			goto fail;
		/* the fleet gets the closed part: final (fleetagg.h) */
		if (s->fa != NULL && send_mark_final(s, k.keys[i]) == -1)
			goto fail;
	}
	if (k.n > 0 && store_counter_add(s->store, "reports_made", k.n) == -1)
		goto fail;
	store_walk(s->store, "c/", send_old_cb, &old);
	store_walk(s->store, "r/", send_old_cb, &old);
	for (i = 0; i < old.n; i++)
		if (store_del(s->store, old.keys[i]) == -1 ||
		    send_del_fleet(s, old.keys[i]) == -1)
			goto fail;
	if (store_commit(s->store) == -1)
		goto out;	/* logged, rate-limited (store.c) */
	/* made once committed: a full disk fails the commit, and the next
	 * step makes them */
	for (i = 0; i < k.n; i++)
		log_info("tlsrpt: report made: domain=%s day=%.10s",
		    k.keys[i] + 13, k.keys[i] + 2);
	if (old.n > 0)
		log_info("tlsrpt: %zu entries older than %d days deleted",
		    old.n, s->cf->tlsrpt.keep_days);
	rc = 0;
	goto out;
fail:
	store_abort(s->store);
out:
	buf_free(&b);
	free(k.keys);
	free(old.keys);
	return (rc);
}

void
send_set_fleet(struct send *s, struct fleetagg *fa)
{
	s->fa = fa;
}

int
send_step(struct send *s, int64_t now, int64_t force_day, send_done_fn *done,
    void *arg)
{
	struct send_keys k;
	size_t		 i;
	int		 closed;

	s->now = now;
	if (done != NULL) {
		s->done = done;
		s->done_arg = arg;
	}
	closed = send_close(s, force_day);
	memset(&k, 0, sizeof(k));
	k.s = s;
	if (store_begin(s->store, 0) == 0) {
		store_walk(s->store, "r/", send_due_cb, &k);
		store_abort(s->store);
	}
	s->more = 0;
	for (i = 0; i < k.n; i++) {
		if (s->njobs >= SEND_MAX_JOBS) {
			s->more = 1;
			break;
		}
		send_job_start(s, k.keys[i]);
	}
	free(k.keys);
	if (s->njobs == 0)
		event_active(s->again, EV_TIMEOUT, 0);
	return (closed);
}

struct send *
send_new(const struct config *cf, struct store *store, struct event_base *base,
    char *err, size_t errsz)
{
	struct send	*s = xcalloc(1, sizeof(*s));

	s->cf = cf;
	s->store = store;
	s->base = base;
	TAILQ_INIT(&s->jobs);
	if ((s->again = event_new(base, -1, 0, send_again_cb, s)) == NULL ||
	    (s->dns = dns_new(base, &cf->dns, err, errsz)) == NULL ||
	    (s->https = https_new(base, &cf->https, err, errsz)) == NULL) {
		send_free(s);
		return (NULL);
	}
	https_set_post_filter(s->https, send_post_filter, s);
	return (s);
}

void
send_free(struct send *s)
{
	struct send_job	*j;

	if (s == NULL)
		return;
	while ((j = TAILQ_FIRST(&s->jobs)) != NULL) {
		TAILQ_REMOVE(&s->jobs, j, entry);
		send_job_free(j);
	}
	https_free(s->https);
	dns_free(s->dns);
	if (s->again != NULL)
		event_free(s->again);
	free(s);
}

/* The days a dry run prints. */
struct send_dry {
	const char	*domain;
	int64_t		 day;
	struct send_keys *k;
};

/* send_dry_cb - a "c/DAY/..." key of the day asked */
static int
send_dry_cb(const char *key, const void *v, size_t vlen, void *arg)
{
	struct send_dry	*d = arg;
	char		 domain[DOMAIN_BUFSZ];
	int64_t		 day;

	(void)v;
	(void)vlen;
	if (rstate_key_parse(key, &day, domain) == 0 && day == d->day &&
	    (d->domain == NULL || strcmp(d->domain, domain) == 0))
		send_keys_add(d->k, key);
	return (0);
}

int
send_dry_run(const struct config *cf, int64_t day, const char *domain,
    FILE *fp)
{
	struct event_base *base;
	struct send	*s;
	struct send_keys k;
	struct send_dry	 d;
	char		 err[512], prefix[RSTATE_KEY_LEN];
	size_t		 i;

	if ((base = event_base_new()) == NULL)
		return (1);
	memset(&k, 0, sizeof(k));
	s = xcalloc(1, sizeof(*s));
	s->cf = cf;
	s->base = base;
	s->dry = 1;
	s->dryfp = fp;
	s->now = clock_wall();
	TAILQ_INIT(&s->jobs);
	if ((s->store = store_open(cf->tlsrpt.state_dir, 1, err,
	    sizeof(err))) == NULL || (s->again = event_new(base, -1, 0,
	    send_again_cb, s)) == NULL || (s->dns = dns_new(base, &cf->dns,
	    err, sizeof(err))) == NULL) {
		fprintf(stderr, "postsmtpsts-tlsrpt: %s\n", err);
		store_close(s->store);
		s->store = NULL;
		send_free(s);
		event_base_free(base);
		return (1);
	}
	k.s = s;
	d.domain = domain;
	d.day = day;
	d.k = &k;
	rstate_key(prefix, 'c', day, "");
	if (store_begin(s->store, 0) == 0) {
		store_walk(s->store, prefix, send_dry_cb, &d);
		store_abort(s->store);
	}
	/* one at a time: the lines come out in key order */
	for (i = 0; i < k.n; i++) {
		send_job_start(s, k.keys[i]);
		if (s->njobs > 0)
			event_base_dispatch(base);
	}
	free(k.keys);
	store_close(s->store);
	s->store = NULL;
	send_free(s);
	event_base_free(base);
	return (0);
}
