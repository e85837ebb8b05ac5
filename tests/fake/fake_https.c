/*
 * fake_https.c - a scripted https.h for tests, substituted at link time
 *
 * Interface: fake_https.h (the script and the record of fetches) and
 * lib/https.h (what the code under test calls: https_new, https_fetch,
 * https_check, https_cancel, https_free; https_error_name and
 * https_media_type_ok stay in lib/https_names.c).  The callback contract
 * of https.h holds: one completion, later, from the event loop (or from
 * the test's fake_https_reply), never from inside https_fetch(), and none
 * after https_cancel().  Fetches stay on a list until fake_https_reset().
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/event.h>

#include "lib/https.h"
#include "fake_https.h"

struct https {
	struct event_base *base;
};

/* A result the fake keeps, with its own copy of the body. */
struct fake_result {
	struct fake_https_result r;
	char		*body;
};

struct https_fetch {
	struct https_fetch *next;	/* every fetch, newest first */
	struct https	*h;
	char		 host[HTTPS_MAX_HOST + 1];
	char		 url[HTTPS_MAX_HOST + 64];
	char		 addrs[FAKE_HTTPS_MAX_ADDRS][64];
	const char	*addrv[FAKE_HTTPS_MAX_ADDRS];
	size_t		 naddrs;
	https_cb	*cb;
	void		*arg;
	int		 live;
	struct event	*timer;
	struct fake_result *res;	/* scripted, while the timer runs */
};

struct fake_script {
	struct fake_script *next;
	char		 host[HTTPS_MAX_HOST + 1];
	struct fake_result res;
};

static struct https_fetch *fake_fetches;
static struct fake_script *fake_scripts;

/* fake_result_set - *k becomes a copy of r, body included */
static void
fake_result_set(struct fake_result *k, const struct fake_https_result *r)
{
	free(k->body);
	k->r = *r;
	k->body = NULL;
	if (r->body != NULL && (k->body = strdup(r->body)) == NULL)
		abort();
	k->r.body = k->body;
}

/* fake_result_free - a kept result */
static void
fake_result_free(struct fake_result *k)
{
	if (k != NULL)
		free(k->body);
	free(k);
}

/* fake_fetch_done - completed or cancelled */
static void
fake_fetch_done(struct https_fetch *f)
{
	f->live = 0;
	if (f->timer != NULL) {
		event_free(f->timer);
		f->timer = NULL;
	}
	fake_result_free(f->res);
	f->res = NULL;
}

/* fake_complete - call f back with r */
static void
fake_complete(struct https_fetch *f, const struct fake_https_result *r)
{
	struct https_result res;
	char		 detail[128];
	https_cb	*cb = f->cb;
	void		*arg = f->arg;

	memset(&res, 0, sizeof(res));
	res.error = r->error;
	res.host = f->host;
	res.url = f->url;
	res.connect_addr = r->error == HTTPS_ERR_CONNECT ||
	    r->error == HTTPS_ERR_TIMEOUT || f->naddrs == 0 ? "" :
	    f->addrs[0];
	res.status = r->status != 0 ? r->status : r->error == HTTPS_OK ?
	    200 : 0;
	res.content_type = r->content_type[0] != '\0' ? r->content_type :
	    res.status != 0 ? "text/plain" : NULL;
	res.body = r->body != NULL ? r->body : "";
	res.body_len = r->body != NULL ? strlen(r->body) : 0;
	if (r->error == HTTPS_OK)
		detail[0] = '\0';
	else if (r->error == HTTPS_ERR_HTTP_STATUS)
		snprintf(detail, sizeof(detail), "HTTP status %ld", res.status);
	else
		snprintf(detail, sizeof(detail), "fake: %s",
		    https_error_name(r->error));
	res.detail = detail;
	fake_fetch_done(f);
	cb(&res, arg);
}

/* fake_timer_cb - a scripted completion's time has come */
static void
fake_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct https_fetch *f = arg;
	struct fake_result *k = f->res;

	(void)fd;
	(void)what;
	f->res = NULL;
	fake_complete(f, &k->r);
	fake_result_free(k);
}

/* fake_script_find - the script of host, or NULL */
static struct fake_script *
fake_script_find(const char *host)
{
	struct fake_script *s;

	for (s = fake_scripts; s != NULL; s = s->next)
		if (strcasecmp(s->host, host) == 0)
			return (s);
	return (NULL);
}

struct https *
https_new(struct event_base *base, const struct config_https *cf, char *err,
    size_t errsz)
{
	struct https	*h;

	(void)cf;
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		snprintf(err, errsz, "fake https: out of memory");
		return (NULL);
	}
	h->base = base;
	return (h);
}

struct https_fetch *
https_fetch(struct https *h, const char *host, const char *const *addrs,
    size_t naddrs, https_cb *cb, void *arg)
{
	struct https_fetch *f;
	struct fake_script *s;
	struct timeval	 tv;
	size_t		 i;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		abort();
	f->h = h;
	snprintf(f->host, sizeof(f->host), "%s", host);
	snprintf(f->url, sizeof(f->url), "https://%s%s", host,
	    HTTPS_WELL_KNOWN_PATH);
	for (i = 0; i < naddrs && i < FAKE_HTTPS_MAX_ADDRS; i++) {
		snprintf(f->addrs[i], sizeof(f->addrs[i]), "%s", addrs[i]);
		f->addrv[i] = f->addrs[i];
	}
	f->naddrs = naddrs;
	f->cb = cb;
	f->arg = arg;
	f->live = 1;
	f->next = fake_fetches;
	fake_fetches = f;
	if (h == NULL || h->base == NULL ||
	    (s = fake_script_find(host)) == NULL || s->res.r.hold)
		return (f);	/* pending: fake_https_reply, or never */
	if ((f->res = calloc(1, sizeof(*f->res))) == NULL)
		abort();
	fake_result_set(f->res, &s->res.r);
	tv.tv_sec = s->res.r.delay_ms / 1000;
	tv.tv_usec = (s->res.r.delay_ms % 1000) * 1000;
	if ((f->timer = evtimer_new(h->base, fake_timer_cb, f)) == NULL ||
	    evtimer_add(f->timer, &tv) == -1)
		abort();
	return (f);
}

/* https_post - a fetch of host as any other: scripted or pending (the
 * body, port and path are not kept: no test of the fakes posts) */
struct https_fetch *
https_post(struct https *h, const char *host, unsigned int port,
    const char *path, const char *const *addrs, size_t naddrs,
    const char *ctype, const void *body, size_t len, https_cb *cb, void *arg)
{
	(void)port;
	(void)path;
	(void)ctype;
	(void)body;
	(void)len;
	return (https_fetch(h, host, addrs, naddrs, cb, arg));
}

/* https_set_post_filter - kept nowhere: no test of the fakes posts */
void
https_set_post_filter(struct https *h, https_addr_fn *fn, void *arg)
{
	(void)h;
	(void)fn;
	(void)arg;
}

int
https_check(const struct config_https *cf, char *err, size_t errsz)
{
	(void)cf;
	(void)err;
	(void)errsz;
	return (0);
}

void
https_cancel(struct https_fetch *f)
{
	if (f != NULL && f->live)
		fake_fetch_done(f);
}

void
https_free(struct https *h)
{
	struct https_fetch *f;

	if (h == NULL)
		return;
	for (f = fake_fetches; f != NULL; f = f->next)
		if (f->h == h) {
			if (f->live)
				fake_fetch_done(f);
			f->h = NULL;
		}
	free(h);
}

void
fake_https_reset(void)
{
	struct https_fetch *f;
	struct fake_script *s;

	while ((f = fake_fetches) != NULL) {
		fake_fetches = f->next;
		fake_fetch_done(f);
		free(f);
	}
	while ((s = fake_scripts) != NULL) {
		fake_scripts = s->next;
		free(s->res.body);
		free(s);
	}
}

void
fake_https_script(const char *host, const struct fake_https_result *r)
{
	struct fake_script *s;

	if ((s = fake_script_find(host)) == NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL)
			abort();
		snprintf(s->host, sizeof(s->host), "%s", host);
		s->next = fake_scripts;
		fake_scripts = s;
	}
	fake_result_set(&s->res, r);
}

int
fake_https_reply(const char *host, const struct fake_https_result *r)
{
	struct https_fetch *f, *oldest = NULL;

	/* the list is newest first: the last match is the oldest */
	for (f = fake_fetches; f != NULL; f = f->next)
		if (f->live && (host == NULL || strcasecmp(f->host, host) == 0))
			oldest = f;
	if (oldest == NULL)
		return (-1);
	fake_complete(oldest, r);
	return (0);
}

int
fake_https_count(const char *host)
{
	struct https_fetch *f;
	int		 n = 0;

	for (f = fake_fetches; f != NULL; f = f->next)
		if (host == NULL || strcasecmp(f->host, host) == 0)
			n++;
	return (n);
}

int
fake_https_pending(const char *host)
{
	struct https_fetch *f;
	int		 n = 0;

	for (f = fake_fetches; f != NULL; f = f->next)
		if (f->live && (host == NULL || strcasecmp(f->host, host) == 0))
			n++;
	return (n);
}

const char *
fake_https_last(const char *const **addrs, size_t *naddrs)
{
	struct https_fetch *f = fake_fetches;

	if (f == NULL)
		return (NULL);
	if (addrs != NULL)
		*addrs = f->addrv;
	if (naddrs != NULL)
		*naddrs = f->naddrs;
	return (f->host);
}
