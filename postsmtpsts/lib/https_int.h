/*
 * https_int.h - what https.c (the interface, libcurl for fetches through a
 * proxy) and https_direct.c (GnuTLS directly, every other fetch) share.
 * Private to those two files and their unit test; callers use https.h.
 */
#ifndef HTTPS_INT_H
#define HTTPS_INT_H

#include <sys/queue.h>

#include <netinet/in.h>

#include <curl/curl.h>
#include <event2/event.h>
#include <gnutls/gnutls.h>

#include "lib/buf.h"
#include "lib/https.h"
#include "lib/httpresp.h"

#define HTTPS_USER_AGENT	PACKAGE_NAME "/" PACKAGE_VERSION
#define HTTPS_MAX_CTYPE		HTTPRESP_CTYPE_MAX
#define HTTPS_DETAIL_MAX	256
#define HTTPS_ADDR_MAX		INET6_ADDRSTRLEN
#define HTTPS_PORT		443
#define HTTPS_MS_PER_S		1000

struct https_sock;

/* the GnuTLS-direct state of one fetch (https_direct.c) */
enum https_direct_state {
	HTTPS_D_CONNECT,	/* TCP connect to addrs[ai] in progress */
	HTTPS_D_HANDSHAKE,
	HTTPS_D_SEND,		/* the request */
	HTTPS_D_RECV,		/* the response */
};

struct https_fetch {
	TAILQ_ENTRY(https_fetch) entry;
	struct https	*h;
	char		*host;
	char		*url;
	char		 addrs[HTTPS_MAX_ADDRS][HTTPS_ADDR_MAX];
	size_t		 naddrs;
	https_cb	*cb;
	void		*arg;
	struct buf	 body;
	int		 head_checked;	/* status/type/length looked at */
	int		 verified;	/* the peer passed trust_verify_session */
	enum https_error abort_kind;	/* why the transfer was stopped */
	int		 done;		/* on the done list */
	struct event	*early;		/* deferred set-up failure */
	enum https_error early_kind;
	char		 detail[HTTPS_DETAIL_MAX];
	char		 content_type[HTTPS_MAX_CTYPE];
	int		 have_content_type;
	long		 status;

	/* libcurl (https.proxy set) */
	CURL		*easy;
	CURLSH		*share;		/* the transfer's own DNS cache */
	struct curl_slist *resolve;
	int		 in_multi;
	CURLcode	 rc;
	char		 errbuf[CURL_ERROR_SIZE];

	/* GnuTLS directly (no proxy) */
	int		 direct;
	enum https_direct_state dstate;
	int		 fd;		/* -1: none */
	size_t		 ai;		/* the address tried or connected */
	int		 last_errno;	/* of the last failed connect */
	gnutls_session_t tls;
	struct event	*io;		/* on fd */
	struct event	*phase;		/* connect attempt / handshake end /
					   low-speed check */
	struct event	*deadline;	/* the whole fetch */
	long long	 connect_end;	/* connect and handshake by then (ms,
					   CLOCK_MONOTONIC) */
	size_t		 speed_mark;	/* bytes received at the last check */
	size_t		 received;	/* bytes received (decrypted) */
	struct httpresp	 resp;
	char		 req[HTTPS_MAX_HOST + 256];
	size_t		 reqlen, reqsent;
};

TAILQ_HEAD(https_fetches, https_fetch);

struct https {
	struct event_base *base;
	CURLM		*multi;
	struct event	*timer;
	struct trust	*trust;		/* parsed once, shared by all fetches */
	char		*proxy;
	long		 connect_timeout_ms;
	long		 timeout_ms;
	size_t		 max_body;	/* https.max_policy_size */
	gnutls_certificate_credentials_t cred;	/* shared, no anchors */
	gnutls_priority_t prio;
	struct https_fetches fetches;	/* running */
	struct https_fetches done;	/* finished, callback pending */
	LIST_HEAD(, https_sock) socks;
};

/* https.c */
int		 https_judge_head(struct https_fetch *f, long status,
		    const char *ctype, long long clen);
void		 https_report(struct https_fetch *f, enum https_error kind,
		    const char *addr);

/* https_direct.c */
int		 https_direct_new(struct https *h, char *err, size_t errsz);
void		 https_direct_free(struct https *h);
void		 https_direct_start(struct https_fetch *f);
void		 https_direct_release(struct https_fetch *f);

#endif
