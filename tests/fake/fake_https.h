/*
 * fake_https.h - a scripted https.h for tests, substituted at link time
 *
 * fake_https.c defines every function of https.h (https_post() as a
 * fetch of its host) but the names and the media type check
 * (lib/https_names.c), so a test program linking it never pulls
 * lib/https.o.  Each fetch is counted per host, with the
 * addresses it was given.  A host with a scripted result
 * (fake_https_script) has its fetches completed from the event loop, by a
 * timer on the base given to https_new() (virtual with fake_event.c),
 * after the result's delay; any other fetch stays pending until the test
 * completes it (fake_https_reply), or forever.  Results read as the real
 * https.c reports them: an error kind, the HTTP status (0 if none), the
 * content type, the body (HTTPS_OK: the whole policy), a detail.
 */
#ifndef FAKE_HTTPS_H
#define FAKE_HTTPS_H

#include <stddef.h>

#include "lib/https.h"

#define FAKE_HTTPS_MAX_ADDRS	HTTPS_MAX_ADDRS

struct fake_https_result {
	enum https_error error;
	long		 status;	/* 0: 200 for HTTPS_OK, else none */
	char		 content_type[128];	/* "": text/plain */
	const char	*body;		/* NUL-terminated, or NULL (copied
					   by the fake where kept) */
	int		 delay_ms;	/* scripted: completed this late */
	int		 hold;		/* scripted: stays pending */
};

/* fake_https_reset - forget scripts, counts and pending fetches (no
 * callbacks) */
void	fake_https_reset(void);

/* fake_https_script - later fetches of host complete with a copy of r
 * (and of its body) */
void	fake_https_script(const char *host, const struct fake_https_result *r);

/* fake_https_reply - complete the oldest pending fetch of host (NULL:
 * any) now, from the caller's stack: 0, or -1 if none */
int	fake_https_reply(const char *host, const struct fake_https_result *r);

/* fake_https_count - fetches ever started for host (NULL: any) */
int	fake_https_count(const char *host);
/* fake_https_pending - fetches started and not completed nor cancelled */
int	fake_https_pending(const char *host);

/*
 * fake_https_last - the last fetch started: its host and its addresses
 * (*naddrs of them, the first FAKE_HTTPS_MAX_ADDRS); NULL if none.  Valid
 * until the next fake_https_reset.
 */
const char *fake_https_last(const char *const **addrs, size_t *naddrs);

#endif
