/*
 * rstate.c - where each report stands: the reporter's send state
 *
 * Interface and the states: rstate.h.  Pure.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/domain.h"
#include "tlsrpt/pack.h"
#include "tlsrpt/report.h"
#include "tlsrpt/rstate.h"

#define RSTATE_CODEC_VERSION	1

void
rstate_init(struct rstate *r, int64_t now)
{
	memset(r, 0, sizeof(*r));
	r->status = RSTATE_PENDING;
	r->created = now;
	r->next_try = now;
}

void
rstate_encode(const struct rstate *r, struct buf *b)
{
	const struct rstate_dest *d;
	size_t	 i;

	pack_u8(b, RSTATE_CODEC_VERSION);
	pack_u8(b, r->status);
	pack_u64(b, (uint64_t)r->created);
	pack_u64(b, (uint64_t)r->first_try);
	pack_u64(b, (uint64_t)r->next_try);
	pack_u64(b, (uint64_t)r->done_at);
	pack_u32(b, r->attempts);
	pack_u32(b, r->size);
	pack_u8(b, (unsigned int)r->rua_known);
	pack_cstr(b, r->why);
	pack_u8(b, (unsigned int)r->ndest);
	for (i = 0; i < r->ndest; i++) {
		d = &r->dest[i];
		pack_cstr(b, d->uri);
		pack_u8(b, d->state);
		pack_u32(b, d->attempts);
		pack_u64(b, (uint64_t)d->intent_at);
		pack_u64(b, (uint64_t)d->next_try);
		pack_cstr(b, d->why);
	}
}

int
rstate_decode(const void *p, size_t len, struct rstate *r)
{
	struct unpack	 u;
	struct rstate_dest *d;
	size_t		 i;
	unsigned int	 v;

	rstate_init(r, 0);
	unpack_init(&u, p, len);
	if (unpack_u8(&u) != RSTATE_CODEC_VERSION)
		goto bad;
	if ((v = unpack_u8(&u)) > RSTATE_FAILED)
		goto bad;
	r->status = (enum rstate_status)v;
	r->created = (int64_t)unpack_u64(&u);
	r->first_try = (int64_t)unpack_u64(&u);
	r->next_try = (int64_t)unpack_u64(&u);
	r->done_at = (int64_t)unpack_u64(&u);
	r->attempts = unpack_u32(&u);
	r->size = unpack_u32(&u);
	r->rua_known = unpack_u8(&u) != 0;
	unpack_cstr(&u, r->why, sizeof(r->why));
	if ((r->ndest = unpack_u8(&u)) > RUA_MAX_DESTS)
		goto bad;
	for (i = 0; i < r->ndest && !u.error; i++) {
		d = &r->dest[i];
		unpack_cstr(&u, d->uri, sizeof(d->uri));
		if ((v = unpack_u8(&u)) > RDEST_FAILED)
			goto bad;
		d->state = (enum rstate_dest_state)v;
		d->attempts = unpack_u32(&u);
		d->intent_at = (int64_t)unpack_u64(&u);
		d->next_try = (int64_t)unpack_u64(&u);
		unpack_cstr(&u, d->why, sizeof(d->why));
	}
	if (unpack_done(&u) == -1)
		goto bad;
	return (0);
bad:
	rstate_init(r, 0);
	return (-1);
}

int
rstate_deletable(const struct rstate *r, int64_t day, int keep_days,
    int64_t now)
{
	if (day + 86400 * (int64_t)(keep_days + 1) >= now)
		return (0);
	return (r == NULL || r->status != RSTATE_PENDING);
}

const char *
rstate_status_name(enum rstate_status s)
{
	switch (s) {
	case RSTATE_PENDING:
		return ("pending");
	case RSTATE_DONE:
		return ("done");
	case RSTATE_NO_RUA:
		return ("no-rua");
	case RSTATE_FAILED:
		return ("failed");
	}
	return ("?");
}

const char *
rstate_dest_name(enum rstate_dest_state s)
{
	switch (s) {
	case RDEST_TODO:
		return ("todo");
	case RDEST_INTENT:
		return ("intent");
	case RDEST_SENT:
		return ("sent");
	case RDEST_FAILED:
		return ("failed");
	}
	return ("?");
}

const char *
rstate_key(char *out, char kind, int64_t day, const char *domain)
{
	char	 d[REPORT_DAY_LEN];

	snprintf(out, RSTATE_KEY_LEN, "%c/%s/%s", kind, report_day_name(day, d),
	    domain);
	return (out);
}

/* rstate_day - the Unix time of year-mon-day 00:00:00Z, or -1 */
static int64_t
rstate_day(int year, int mon, int mday)
{
	struct tm	 tm;
	time_t		 t;

	if (year < 1970 || year > 9999 || mon < 1 || mon > 12 || mday < 1 ||
	    mday > 31)
		return (-1);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = mday;
	if ((t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != mday)
		return (-1);	/* February 31st is not a day */
	return ((int64_t)t);
}

/* rstate_digits - n digits at p as a number, or -1 */
static int
rstate_digits(const char *p, int n)
{
	int	 v = 0, i;

	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return (-1);
		v = v * 10 + (p[i] - '0');
	}
	return (v);
}

int
rstate_key_parse(const char *key, int64_t *day, char *domain)
{
	size_t	 len = strlen(key);

	/* K/YYYY-MM-DD/DOMAIN */
	if (len < 14 || key[1] != '/' || key[6] != '-' || key[9] != '-' ||
	    key[12] != '/' || len - 13 > DOMAIN_MAX_LEN)
		return (-1);
	if ((*day = rstate_day(rstate_digits(key + 2, 4),
	    rstate_digits(key + 7, 2), rstate_digits(key + 10, 2))) == -1)
		return (-1);
	memcpy(domain, key + 13, len - 13 + 1);
	return (0);
}

const char *
rstate_msgid(char *out, int64_t day, size_t dest, const char *domain,
    const char *submitter)
{
	char	 d[REPORT_DAY_LEN];

	report_day_name(day, d);
	snprintf(out, RSTATE_MSGID_LEN, "<tlsrpt.%.4s%.2s%.2s.%zu.%s@%s>", d,
	    d + 5, d + 8, dest, domain, submitter);
	return (out);
}

int
rstate_msgid_parse(const char *p, size_t len, const char *submitter,
    int64_t *day, size_t *dest, char *domain)
{
	size_t	 slen = strlen(submitter), i, at;

	/* <tlsrpt.YYYYMMDD.N.DOMAIN@SUBMITTER> */
	if (len < 20 + slen || memcmp(p, "<tlsrpt.", 8) != 0 ||
	    p[16] != '.' || p[len - 1] != '>' ||
	    memcmp(p + len - 1 - slen, submitter, slen) != 0 ||
	    p[len - 2 - slen] != '@')
		return (-1);
	if ((*day = rstate_day(rstate_digits(p + 8, 4),
	    rstate_digits(p + 12, 2), rstate_digits(p + 14, 2))) == -1)
		return (-1);
	if (p[17] < '0' || p[17] > '9' || p[18] != '.')
		return (-1);
	*dest = (size_t)(p[17] - '0');
	at = len - 2 - slen;
	if (at <= 19 || at - 19 > DOMAIN_MAX_LEN)
		return (-1);
	for (i = 19; i < at; i++)
		domain[i - 19] = p[i];
	domain[at - 19] = '\0';
	if (domain_check(domain, at - 19, DOMAIN_NAME_UNDERSCORE, 1, NULL) !=
	    DOMAIN_CHECK_OK)
		return (-1);
	return (0);
}
