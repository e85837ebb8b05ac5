/*
 * dns.c - DNSSEC-validating asynchronous lookups with libunbound on libevent
 *
 * Interface (dns.h): dns_new() builds a libunbound context from struct
 * config_dns, dns_query() starts a lookup whose callback runs from the
 * event loop, dns_cancel() and dns_free() stop them.  The names of its
 * enums are in dns_names.c (apart, for the link-time fake in tests/fake).
 *
 * In the caller's event loop: ub_ctx_create_event(base) and
 * ub_resolve_event() (<unbound-event.h>).  libunbound's sockets and timers
 * are events on our own event base: no background thread or process, no
 * pipe, no copy of each query and answer through it (an strace of a cold
 * lookup counted 36 % of the resolver's system calls in that pipe traffic).
 * This only works when libunbound uses the same libevent as we do, since
 * it casts our struct event_base: Debian 12's libunbound8 (1.17.1) links
 * libevent-2.1.so.7, as we do (check: ldd on both).  Nothing forks (an
 * async libunbound's default would fork a child inheriting our sockets,
 * LMDB environment and curl's connections).
 *
 * Answers come as DNS wire packets with libunbound's rcode and a security
 * verdict; dnswire.c turns them into the struct dns_result that the thread
 * API's ub_result gave (answer RRset of the asked type after CNAMEs, final
 * name, TTL of that RRset, header RCODE), see dnswire.h.  An answer
 * libunbound has at hand (local data, its cache) comes back from inside
 * ub_resolve_event(): it is copied and delivered by a zero timer, so the
 * callback never runs from inside dns_query() (nor dns_cancel()).
 *
 * Deadlines: libunbound never times out a query by itself (it retries
 * and backs off for minutes), so each query carries a libevent timer.  When
 * it fires the caller gets DNS_ERR_TIMEOUT and the query is cancelled in
 * libunbound (ub_cancel in event mode marks it: its work goes on inside
 * the mesh but its callback never comes); if libunbound could not forget
 * it, the query is kept as a zombie without a callback until its late
 * answer arrives or dns_free().  dns_free() cancels every query first,
 * since ub_ctx_delete() would call the others back with SERVFAIL.
 *
 * The local-zone fix: unbound carries built-in local zones answering
 * NXDOMAIN for the RFC 6761 special-use zones (test., invalid., onion.,
 * home.arpa.), and the "local-zone: test. nodefault" form is reported to be
 * silently ignored through ub_ctx_set_option() in unbound 1.17.  So (1) a
 * "local-zone: Z nodefault" in unbound_options is applied as
 * "Z transparent" (which means: resolve normally), and (2) whenever the DNS
 * view is not the public one built into libunbound (root_hints, forwarders
 * or resolv.conf configured: a private root or a lab resolver may well
 * serve those zones), every special-use zone the options do not mention is
 * made transparent.  With the built-in root hints the RFC 6761 behaviour
 * stays.  (Debian 12's libunbound 1.17.1 resolved a forwarded or
 * root-hinted test. name even without (2) in our tests; the fix guards
 * builds where the defaults bite, and tests/unit/test_dns.c checks that
 * such names reach the configured server.)
 *
 * Cache sizes: libunbound's message and RRset caches default to 4 MiB
 * each, and a policy resolver fills them with the leaf records of domains
 * it asks about once per refresh (days apart): the resolver's memory then
 * grew with every new domain until both were full.  DNS_MSG_CACHE and
 * DNS_RRSET_CACHE keep them small; the records that are asked again (the
 * zones' NS, DS and DNSKEY sets, in the key cache) stay by LRU.  Set first,
 * so unbound_config and unbound_options can still change them.
 *
 * The additional section goes unvalidated ("val-clean-additional: no",
 * set first with the cache sizes, and as overridable).  libunbound's
 * default validates every signed RRset of a secure answer's additional
 * section, to strip what does not verify for users who read that
 * section: an MX answer comes with the MX hosts' A and AAAA records, and
 * validating them was two of the nine ECDSA P-256 verifications of a cold
 * lookup (bench/README.md, issue 40; ~70 % of a cold lookup's CPU is that
 * arithmetic).  Nothing here reads the additional section: dnswire_parse
 * takes the answer section (and, for a negative answer's life, the
 * authority section's TTLs), dnswire_owner_types the authority section,
 * and an address the DANE walk needs is asked for and validated as an
 * answer of its own.  Unvalidated additional records stay in libunbound's
 * RRset cache as "unchecked" at additional trust, which no answer is
 * built from without validation.
 *
 * DNSSEC status (RFC 4035 §4.3): the callback's sec 2 -> DNS_SECURE,
 * 1 -> DNS_BOGUS with why_bogus (the rcode may still read NOERROR, so
 * callers test security before rcode), else DNS_INSECURE.  A SERVFAIL
 * (or other non-zero rcode) from libunbound comes without a usable packet:
 * rcode only, no data.  Without a trust anchor nothing is secure.
 */
#include "autoconf.h"

#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/event.h>
#include <unbound.h>
#include <unbound-event.h>

#include "lib/config.h"
#include "lib/dns.h"
#include "lib/dnswire.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#define DNS_TA_PROBE_MAX	65536	/* bytes of a trust anchor file read
					   to tell RFC 5011 state files apart */
#define DNS_OPTION_MAX		1024	/* one "name: value" option string */
#define DNS_ERROR_MAX		128
#define DNS_MSG_CACHE		"256k"	/* libunbound's defaults: 4m */
#define DNS_RRSET_CACHE		"512k"

/* zones unbound 1.17 answers locally by default (RFC 6761, RFC 7686,
 * RFC 8375) that a private DNS view may serve */
static const char *const dns_special_zones[] = {
	"test.", "invalid.", "onion.", "home.arpa.",
};

enum dns_qstate {
	DNS_Q_PENDING,		/* callback still to run */
	DNS_Q_CALLING,		/* callback running: cancel is a no-op */
	DNS_Q_ZOMBIE,		/* answered/cancelled for the caller, but
				   libunbound may still deliver */
};

struct dns_query {
	TAILQ_ENTRY(dns_query) entry;
	struct dns	*dns;
	char		*name;
	int		 rrtype;
	dns_cb		*cb;
	void		*arg;
	int		 async_id;
	int		 ub_pending;	/* libunbound holds our pointer */
	enum dns_qstate	 state;
	enum dns_status	 early;		/* != DNS_OK: fail from the timer */
	char		 error[DNS_ERROR_MAX];
	struct event	*timer;
	/* an answer given inside ub_resolve_event(), kept for the timer */
	int		 deferred;
	int		 ub_rcode;
	int		 sec;
	unsigned char	*pkt;
	size_t		 pkt_len;
	char		*why_bogus;
};

TAILQ_HEAD(dns_queries, dns_query);

struct dns {
	struct event_base *base;
	struct ub_ctx	*ctx;
	int		 timeout_ms;
	int		 submitting;	/* inside ub_resolve_event() */
	int		 closing;	/* inside dns_free() */
	struct dns_queries queries;
};

static void	dns_query_free(struct dns_query *);

/* dns_err - format a configuration error into err */
static void __attribute__((format(printf, 3, 4)))
dns_err(char *err, size_t errsz, const char *fmt, ...)
{
	va_list	 ap;

	if (errsz == 0)
		return;
	va_start(ap, fmt);
	if (vsnprintf(err, errsz, fmt, ap) < 0)
		err[0] = '\0';
	va_end(ap);
}

/* dns_is_autr_file - does the trust anchor file hold RFC 5011 state? */
static int
dns_is_autr_file(const char *path, int *is_autr)
{
	FILE	*fp;
	char	*text;
	size_t	 n;

	if ((fp = fopen(path, "r")) == NULL)
		return (-1);
	text = xmalloc(DNS_TA_PROBE_MAX);
	n = fread(text, 1, DNS_TA_PROBE_MAX, fp);
	*is_autr = memmem(text, n, ";;id:", 5) != NULL;
	free(text);
	if (ferror(fp)) {
		fclose(fp);
		return (-1);
	}
	fclose(fp);
	return (0);
}

/* dns_option_split - "name: value" -> "name:" and "value" in out buffers */
static int
dns_option_split(const char *opt, char *name, size_t namesz, char *value,
    size_t valuesz)
{
	const char	*colon, *v;
	size_t		 nlen, vlen;

	if ((colon = strchr(opt, ':')) == NULL || colon == opt)
		return (-1);
	nlen = (size_t)(colon - opt) + 1;	/* keep the colon */
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	vlen = strlen(v);
	while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	if (nlen >= namesz || vlen >= valuesz)
		return (-1);
	memcpy(name, opt, nlen);
	name[nlen] = '\0';
	memcpy(value, v, vlen);
	value[vlen] = '\0';
	return (0);
}

/* dns_zone_mentioned - does any local-zone option name zone? */
static int
dns_zone_mentioned(char *const *opts, const char *zone)
{
	char	 name[DNS_OPTION_MAX], value[DNS_OPTION_MAX];
	size_t	 zlen = strlen(zone);

	for (; opts != NULL && *opts != NULL; opts++) {
		if (dns_option_split(*opts, name, sizeof(name), value,
		    sizeof(value)) == -1 || strcmp(name, "local-zone:") != 0)
			continue;
		/* "test. transparent" or "test transparent" */
		if (strncasecmp(value, zone, zlen - 1) == 0 &&
		    (value[zlen - 1] == ' ' || value[zlen - 1] == '\t' ||
		    (value[zlen - 1] == '.' && (value[zlen] == ' ' ||
		    value[zlen] == '\t'))))
			return (1);
	}
	return (0);
}

/* dns_set_option - apply one "name: value" string, nodefault -> transparent */
static int
dns_set_option(struct ub_ctx *ctx, const char *opt, char *err, size_t errsz)
{
	char	 name[DNS_OPTION_MAX], value[DNS_OPTION_MAX];
	char	*sp;
	int	 r;

	if (dns_option_split(opt, name, sizeof(name), value,
	    sizeof(value)) == -1) {
		dns_err(err, errsz, "unbound option \"%.64s\": expected "
		    "\"name: value\"", opt);
		return (-1);
	}
	if (strcmp(name, "local-zone:") == 0 &&
	    (sp = strpbrk(value, " \t")) != NULL &&
	    strcasecmp(sp + strspn(sp, " \t"), "nodefault") == 0) {
		/* ignored by set_option in 1.17: say what we mean instead */
		*sp = '\0';
		log_debug(1, "dns: option=local-zone zone=%s type=nodefault "
		    "applied_as=transparent", value);
		if (snprintf(sp, sizeof(value) - (size_t)(sp - value),
		    " transparent") >= (int)(sizeof(value) -
		    (size_t)(sp - value))) {
			dns_err(err, errsz, "unbound option too long");
			return (-1);
		}
	}
	if ((r = ub_ctx_set_option(ctx, name, value)) != 0) {
		dns_err(err, errsz, "unbound option \"%.64s\": %s", opt,
		    ub_strerror(r));
		return (-1);
	}
	return (0);
}

/* dns_readable - 0 if path opens for reading, else -1 with errno set */
static int
dns_readable(const char *path)
{
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	(void)close(fd);
	return (0);
}

/*
 * dns_configure - apply the whole struct config_dns to ctx.  libunbound
 * reads the root hints only at its first query, so they are opened here
 * once: a missing file is an error now, not a resolver that never answers;
 * so is the unbound.conf file, whose absence libunbound reports as a
 * syntax error.  warn: log what is legal but weakens the results.
 */
static int
dns_configure(struct ub_ctx *ctx, const struct config_dns *cf, int warn,
    char *err, size_t errsz)
{
	char *const	*p;
	char		 value[DNS_OPTION_MAX];
	size_t		 i;
	int		 r, autr, private_view = 0;

	if (dns_set_option(ctx, "msg-cache-size: " DNS_MSG_CACHE, err,
	    errsz) == -1 || dns_set_option(ctx, "rrset-cache-size: "
	    DNS_RRSET_CACHE, err, errsz) == -1 || dns_set_option(ctx,
	    "val-clean-additional: no", err, errsz) == -1)
		return (-1);
	if (cf->unbound_config != NULL) {
		/* libunbound calls a missing file a syntax error */
		if (dns_readable(cf->unbound_config) == -1) {
			dns_err(err, errsz, "unbound config %s: %s",
			    cf->unbound_config, strerror(errno));
			return (-1);
		}
		if ((r = ub_ctx_config(ctx, cf->unbound_config)) != 0) {
			dns_err(err, errsz, "unbound config %s: %s",
			    cf->unbound_config, r == UB_READFILE ?
			    strerror(errno) : ub_strerror(r));
			return (-1);
		}
	}
	if (cf->root_hints != NULL) {
		if (dns_readable(cf->root_hints) == -1) {
			dns_err(err, errsz, "root hints %s: %s", cf->root_hints,
			    strerror(errno));
			return (-1);
		}
		if ((r = ub_ctx_set_option(ctx, "root-hints:",
		    cf->root_hints)) != 0) {
			dns_err(err, errsz, "root hints %s: %s", cf->root_hints,
			    ub_strerror(r));
			return (-1);
		}
		private_view = 1;
	}
	for (p = cf->forwarders; p != NULL && *p != NULL; p++) {
		if ((r = ub_ctx_set_fwd(ctx, *p)) != 0) {
			dns_err(err, errsz, "forwarder %s: %s", *p,
			    ub_strerror(r));
			return (-1);
		}
		private_view = 1;
	}
	if (cf->use_resolv_conf) {
		if ((r = ub_ctx_resolvconf(ctx, NULL)) != 0) {
			dns_err(err, errsz, "/etc/resolv.conf: %s",
			    r == UB_READFILE ? strerror(errno) :
			    ub_strerror(r));
			return (-1);
		}
		private_view = 1;
	}
	if (cf->trust_anchor_file != NULL) {
		if (dns_is_autr_file(cf->trust_anchor_file, &autr) == -1) {
			dns_err(err, errsz, "trust anchor %s: %s",
			    cf->trust_anchor_file, strerror(errno));
			return (-1);
		}
		r = autr ? ub_ctx_add_ta_autr(ctx, cf->trust_anchor_file) :
		    ub_ctx_add_ta_file(ctx, cf->trust_anchor_file);
		if (r != 0) {
			dns_err(err, errsz, "trust anchor %s: %s",
			    cf->trust_anchor_file, ub_strerror(r));
			return (-1);
		}
	} else if (cf->unbound_config == NULL && warn)
		log_warnx("dns: no trust anchor configured: no answer will "
		    "be DNSSEC-secure");
	for (p = cf->unbound_options; p != NULL && *p != NULL; p++)
		if (dns_set_option(ctx, *p, err, errsz) == -1)
			return (-1);
	if (!private_view)
		return (0);
	for (i = 0; i < sizeof(dns_special_zones) /
	    sizeof(dns_special_zones[0]); i++) {
		if (dns_zone_mentioned(cf->unbound_options,
		    dns_special_zones[i]))
			continue;
		snprintf(value, sizeof(value), "%s transparent",
		    dns_special_zones[i]);
		if ((r = ub_ctx_set_option(ctx, "local-zone:", value)) != 0) {
			dns_err(err, errsz, "local-zone %s: %s",
			    dns_special_zones[i], ub_strerror(r));
			return (-1);
		}
	}
	return (0);
}

struct dns *
dns_new(struct event_base *base, const struct config_dns *cf, char *err,
    size_t errsz)
{
	struct dns	*d;

	if (errsz > 0)
		err[0] = '\0';
	d = xcalloc(1, sizeof(*d));
	d->base = base;
	d->timeout_ms = DNS_DEFAULT_TIMEOUT_MS;
	TAILQ_INIT(&d->queries);
	/* libunbound's own libevent must be ours: see the file header */
	if ((d->ctx = ub_ctx_create_event(base)) == NULL) {
		dns_err(err, errsz, "cannot create libunbound context");
		free(d);
		return (NULL);
	}
	if (dns_configure(d->ctx, cf, 1, err, errsz) == -1) {
		ub_ctx_delete(d->ctx);
		free(d);
		return (NULL);
	}
	return (d);
}

int
dns_check(const struct config_dns *cf, char *err, size_t errsz)
{
	struct ub_ctx	*ctx;
	int		 r;

	if (errsz > 0)
		err[0] = '\0';
	if ((ctx = ub_ctx_create()) == NULL) {
		dns_err(err, errsz, "cannot create libunbound context");
		return (-1);
	}
	r = dns_configure(ctx, cf, 0, err, errsz);
	ub_ctx_delete(ctx);
	return (r);
}

int
dns_option(struct dns *d, const char *name, char *out, size_t outsz)
{
	char	*v = NULL;
	size_t	 n;
	int	 r = -1;

	if (ub_ctx_get_option(d->ctx, name, &v) == 0 && v != NULL) {
		/* ub_ctx_get_option ends a value with a newline */
		n = strcspn(v, "\n");
		if (n < outsz) {
			memcpy(out, v, n);
			out[n] = '\0';
			r = 0;
		}
	}
	free(v);
	return (r);
}

void
dns_set_timeout(struct dns *d, int timeout_ms)
{
	if (timeout_ms < 1)
		timeout_ms = 1;
	if (timeout_ms > DNS_MAX_TIMEOUT_MS)
		timeout_ms = DNS_MAX_TIMEOUT_MS;
	d->timeout_ms = timeout_ms;
}

/* dns_query_free - unlink and release one query */
static void
dns_query_free(struct dns_query *q)
{
	TAILQ_REMOVE(&q->dns->queries, q, entry);
	event_free(q->timer);
	free(q->pkt);
	free(q->why_bogus);
	free(q->name);
	free(q);
}

/* dns_query_retire - the caller is done with q: free it, or keep it as a
 * zombie while libunbound may still hand us its answer */
static void
dns_query_retire(struct dns_query *q)
{
	int	 r;

	event_del(q->timer);
	q->cb = NULL;
	if (q->ub_pending) {
		/* in event mode a cancelled query's mesh state runs on
		 * inside libunbound, but its callback is never called
		 * (libworker_event_done_cb tests ctx_query.cancelled) */
		if ((r = ub_cancel(q->dns->ctx, q->async_id)) == 0 ||
		    r == UB_NOID)
			q->ub_pending = 0;
		else
			log_debug(2, "dns: name=%s cancel=%s", q->name,
			    ub_strerror(r));
	}
	if (q->ub_pending)
		q->state = DNS_Q_ZOMBIE;
	else
		dns_query_free(q);
}

/* dns_fail - run the callback of q with an error status, then retire q */
static void
dns_fail(struct dns_query *q, enum dns_status st, const char *why)
{
	struct dns_result	 res;
	dns_cb			*cb = q->cb;

	memset(&res, 0, sizeof(res));
	res.status = st;
	res.error = why;
	res.qname = q->name;
	res.rrtype = q->rrtype;
	res.rcode = DNS_RCODE_SERVFAIL;
	res.security = DNS_INSECURE;
	/* the callback may start queries or cancel others, not this one */
	q->state = DNS_Q_CALLING;
	q->cb = NULL;
	event_del(q->timer);
	log_debug(2, "dns: name=%s type=%d status=%s error=\"%s\"", q->name,
	    q->rrtype, dns_status_name(st), why);
	if (cb != NULL)
		cb(&res, q->arg);
	dns_query_retire(q);
}

/*
 * dns_deliver - hand the answer (libunbound's rcode, packet, sec and
 * why_bogus as its event callback gives them) to the caller, free q
 */
static void
dns_deliver(struct dns_query *q, int rcode, const unsigned char *pkt,
    size_t len, int sec, const char *why_bogus)
{
	struct dns_result	 res;
	struct dnswire_answer	 ans;
	dns_cb			*cb;

	memset(&res, 0, sizeof(res));
	res.status = DNS_OK;
	res.qname = q->name;
	res.rrtype = q->rrtype;
	if (rcode != 0) {
		/* "do not inspect [the packet] if rcode != 0"
		 * (unbound-event.h); the thread API reported the same */
		res.rcode = rcode;
		res.nxdomain = rcode == DNS_RCODE_NXDOMAIN;
		ans.arena = NULL;
	} else if (dnswire_parse(pkt, len, q->rrtype, &ans) == -1) {
		log_warnx("dns: name=%s type=%d: answer from libunbound "
		    "unparsable: %s", q->name, q->rrtype, ans.error);
		snprintf(q->error, sizeof(q->error), "unparsable answer: %s",
		    ans.error);
		dnswire_answer_clear(&ans);
		dns_fail(q, DNS_ERR_RESOLVER, q->error);
		return;
	} else {
		res.rcode = ans.rcode;
		res.nxdomain = ans.nxdomain;
		res.ttl = ans.ttl;
		res.canonname = ans.cnamed ? ans.canon : NULL;
		res.rdata_count = ans.count;
		res.havedata = ans.count > 0;
		res.rdata = ans.rdata;
		res.rdata_len = ans.rdata_len;
		res.packet = pkt;
		res.packet_len = len;
		if (ans.dropped > 0)
			log_warnx("dns: name=%s type=%d: %zu RRs beyond the "
			    "first %d ignored", q->name, q->rrtype,
			    ans.dropped, DNSWIRE_MAX_RRS);
	}
	/* sec as unbound-event.h defines it: 2 secure, 1 bogus */
	if (sec == 1) {
		res.security = DNS_BOGUS;
		res.why_bogus = why_bogus;
	} else if (sec == 2)
		res.security = DNS_SECURE;
	else
		res.security = DNS_INSECURE;
	log_debug(2, "dns: name=%s type=%d rcode=%d rrs=%zu security=%s",
	    q->name, q->rrtype, res.rcode, res.rdata_count,
	    dns_security_name(res.security));

	cb = q->cb;
	q->cb = NULL;
	q->state = DNS_Q_CALLING;
	event_del(q->timer);
	cb(&res, q->arg);
	dnswire_answer_clear(&ans);
	dns_query_free(q);
}

/* dns_timer - the deadline of a query passed, an answer was deferred, or
 * an early failure */
static void
dns_timer(evutil_socket_t fd, short what, void *arg)
{
	struct dns_query	*q = arg;

	(void)fd;
	(void)what;
	if (q->state != DNS_Q_PENDING)
		return;
	if (q->deferred)
		dns_deliver(q, q->ub_rcode, q->pkt, q->pkt_len, q->sec,
		    q->why_bogus);
	else if (q->early != DNS_OK)
		dns_fail(q, q->early, q->error);
	else
		dns_fail(q, DNS_ERR_TIMEOUT, "no answer before the deadline");
}

/*
 * dns_answer - libunbound's callback (ub_event_callback_type), from the
 * event loop, or from inside ub_resolve_event() for answers it has at
 * hand (local data, and the cache): those are copied and delivered by a
 * zero timer, so no callback runs from inside dns_query()
 */
static void
dns_answer(void *mydata, int rcode, void *packet, int packet_len, int sec,
    char *why_bogus, int was_ratelimited)
{
	struct dns_query	*q = mydata;
	struct dns		*d = q->dns;
	struct timeval		 zero = { 0, 0 };

	(void)was_ratelimited;
	q->ub_pending = 0;
	if (d->closing)
		return;		/* dns_free() releases q */
	if (q->state == DNS_Q_CALLING)
		return;		/* from a query its own callback started:
				   dns_query_retire() frees q afterwards */
	if (q->state == DNS_Q_ZOMBIE || q->cb == NULL) {
		/* late answer after a deadline or cancel: drop it */
		log_debug(2, "dns: name=%s late answer dropped", q->name);
		dns_query_free(q);
		return;
	}
	if (packet_len < 0 || (packet_len > 0 && packet == NULL))
		packet_len = 0;
	if (d->submitting) {
		q->deferred = 1;
		q->ub_rcode = rcode;
		q->sec = sec;
		q->pkt_len = (size_t)packet_len;
		if (packet_len > 0) {
			q->pkt = xmalloc((size_t)packet_len);
			memcpy(q->pkt, packet, (size_t)packet_len);
		}
		if (why_bogus != NULL)
			q->why_bogus = xstrdup(why_bogus);
		event_del(q->timer);
		evtimer_add(q->timer, &zero);
		return;
	}
	dns_deliver(q, rcode, packet, (size_t)packet_len, sec, why_bogus);
}

struct dns_query *
dns_query(struct dns *d, const char *name, int rrtype, dns_cb *cb, void *arg)
{
	struct dns_query	*q;
	struct timeval		 tv;
	int			 r;

	q = xcalloc(1, sizeof(*q));
	q->dns = d;
	q->name = xstrdup(name);
	q->rrtype = rrtype;
	q->cb = cb;
	q->arg = arg;
	q->state = DNS_Q_PENDING;
	q->early = DNS_OK;
	if ((q->timer = evtimer_new(d->base, dns_timer, q)) == NULL)
		fatalx("dns: cannot create a timer");
	TAILQ_INSERT_TAIL(&d->queries, q, entry);

	q->ub_pending = 1;	/* until dns_answer, maybe from inside */
	d->submitting = 1;
	r = ub_resolve_event(d->ctx, q->name, rrtype, 1 /* IN */, q,
	    dns_answer, &q->async_id);
	d->submitting = 0;
	if (q->deferred)
		return (q);	/* answered at once: its zero timer runs */
	if (r != 0) {
		/* report from the event loop, never from inside dns_query */
		q->ub_pending = 0;
		q->early = DNS_ERR_RESOLVER;
		snprintf(q->error, sizeof(q->error), "%s", ub_strerror(r));
		tv.tv_sec = 0;
		tv.tv_usec = 0;
	} else {
		tv.tv_sec = d->timeout_ms / 1000;
		tv.tv_usec = (d->timeout_ms % 1000) * 1000;
	}
	evtimer_add(q->timer, &tv);
	return (q);
}

void
dns_cancel(struct dns_query *q)
{
	if (q == NULL || q->state != DNS_Q_PENDING)
		return;
	dns_query_retire(q);
}

void
dns_free(struct dns *d)
{
	struct dns_query	*q;

	if (d == NULL)
		return;
	/* ub_ctx_delete() calls back every query still in libunbound's
	 * mesh with SERVFAIL unless it was cancelled: cancel them, and
	 * let dns_answer ignore whatever comes anyway */
	d->closing = 1;
	TAILQ_FOREACH(q, &d->queries, entry)
		if (q->ub_pending)
			(void)ub_cancel(d->ctx, q->async_id);
	ub_ctx_delete(d->ctx);
	while ((q = TAILQ_FIRST(&d->queries)) != NULL)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		dns_query_free(q);
	free(d);
}
