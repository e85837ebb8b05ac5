/*
 * agg.c - one policy domain's sessions of one UTC day
 *
 * Interface and limits: agg.h.  Pure but for the allocation of the
 * policy strings and the detail rows.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/xmalloc.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/pack.h"

#define AGG_CODEC_VERSION	1

/* agg_policy_init - an empty policy of type t */
static void
agg_policy_init(struct agg_policy *p, enum tlsrpt_policy_type t)
{
	memset(p, 0, sizeof(*p));
	p->type = t;
	buf_init(&p->strings, AGG_MAX_TEXT);
	buf_init(&p->mx, AGG_MAX_TEXT);
}

/* agg_policy_free - release what p owns */
static void
agg_policy_free(struct agg_policy *p)
{
	buf_free(&p->strings);
	buf_free(&p->mx);
	free(p->details);
	memset(p, 0, sizeof(*p));
}

void
agg_init(struct agg *a)
{
	memset(a, 0, sizeof(*a));
}

void
agg_free(struct agg *a)
{
	size_t	 i;

	for (i = 0; i < a->npolicies; i++)
		agg_policy_free(&a->policies[i]);
	memset(a, 0, sizeof(*a));
}

/* agg_same - p is the policy desc names */
static int
agg_same(const struct agg_policy *p, const struct agg_desc *d)
{
	return (p->type == d->type && p->strings.len == d->slen &&
	    p->mx.len == d->mlen &&
	    (d->slen == 0 || memcmp(p->strings.data, d->strings, d->slen) == 0) &&
	    (d->mlen == 0 || memcmp(p->mx.data, d->mx, d->mlen) == 0));
}

/* agg_policy - the policy desc names, made if new */
static struct agg_policy *
agg_policy(struct agg *a, const struct agg_desc *d)
{
	struct agg_policy *p;
	size_t	 i;

	for (i = 0; i < a->npolicies; i++)
		if (agg_same(&a->policies[i], d))
			return (&a->policies[i]);
	if (a->npolicies == AGG_MAX_POLICIES) {
		a->dropped++;
		return (&a->policies[AGG_MAX_POLICIES - 1]);
	}
	p = &a->policies[a->npolicies++];
	agg_policy_init(p, d->type);
	if (d->slen > 0)
		buf_append(&p->strings, d->strings, d->slen);
	if (d->mlen > 0)
		buf_append(&p->mx, d->mx, d->mlen);
	if (p->strings.error || p->mx.error) {
		/* over AGG_MAX_TEXT: the type alone */
		buf_reset(&p->strings);
		buf_reset(&p->mx);
	}
	return (p);
}

/* agg_host - remember a receiving MX host */
static void
agg_host(struct agg_policy *p, const char *host)
{
	size_t	 i;

	if (host[0] == '\0' || strlen(host) >= DOMAIN_BUFSZ)
		return;
	for (i = 0; i < p->nhosts; i++)
		if (strcmp(p->hosts[i], host) == 0)
			return;
	if (p->nhosts < AGG_MAX_HOSTS)
		snprintf(p->hosts[p->nhosts++], DOMAIN_BUFSZ, "%s", host);
}

void
agg_add(struct agg *a, const struct agg_desc *desc, const char *host,
    const char *addr, enum tlsrpt_result result, const char *reason)
{
	struct agg_policy *p = agg_policy(a, desc);
	struct agg_detail *d;
	size_t	 i;

	agg_host(p, host);
	if (result == TLSRPT_RESULT_NONE) {
		p->success++;
		return;
	}
	p->failure++;
	for (i = 0; i < p->ndetails; i++) {
		d = &p->details[i];
		if (d->result == result && strcmp(d->host, host) == 0 &&
		    strcmp(d->addr, addr) == 0 && strcmp(d->reason, reason) == 0) {
			d->count++;
			return;
		}
	}
	if (p->ndetails == AGG_MAX_DETAILS) {
		p->details_dropped++;
		return;
	}
	if (p->details == NULL)
		p->details = xcalloc(AGG_MAX_DETAILS, sizeof(*p->details));
	d = &p->details[p->ndetails++];
	d->result = result;
	snprintf(d->host, sizeof(d->host), "%s", host);
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
	d->count = 1;
}

/* agg_row - the row of p for (result, host, addr, reason, sip), made if
 * new; NULL when p has AGG_MAX_DETAILS rows already */
static struct agg_detail *
agg_row(struct agg_policy *p, enum tlsrpt_result result, const char *host,
    const char *addr, const char *reason, const char *sip)
{
	struct agg_detail *d;
	size_t	 i;

	for (i = 0; i < p->ndetails; i++) {
		d = &p->details[i];
		if (d->result == result && strcmp(d->host, host) == 0 &&
		    strcmp(d->addr, addr) == 0 &&
		    strcmp(d->reason, reason) == 0 && strcmp(d->sip, sip) == 0)
			return (d);
	}
	if (p->ndetails == AGG_MAX_DETAILS)
		return (NULL);
	if (p->details == NULL)
		p->details = xcalloc(AGG_MAX_DETAILS, sizeof(*p->details));
	d = &p->details[p->ndetails++];
	d->result = result;
	snprintf(d->host, sizeof(d->host), "%s", host);
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
	snprintf(d->sip, sizeof(d->sip), "%s", sip);
	return (d);
}

void
agg_merge(struct agg *a, const struct agg *src, const char *sip)
{
	const struct agg_policy *sp;
	struct agg_policy *p;
	struct agg_detail *d;
	struct agg_desc	 desc;
	size_t		 i, k;

	a->dropped += src->dropped;
	for (i = 0; i < src->npolicies; i++) {
		sp = &src->policies[i];
		memset(&desc, 0, sizeof(desc));
		desc.type = sp->type;
		desc.strings = sp->strings.data;
		desc.slen = sp->strings.len;
		desc.mx = sp->mx.data;
		desc.mlen = sp->mx.len;
		p = agg_policy(a, &desc);
		p->success += sp->success;
		p->failure += sp->failure;
		p->details_dropped += sp->details_dropped;
		for (k = 0; k < sp->nhosts; k++)
			agg_host(p, sp->hosts[k]);
		for (k = 0; k < sp->ndetails; k++) {
			d = agg_row(p, sp->details[k].result,
			    sp->details[k].host, sp->details[k].addr,
			    sp->details[k].reason, sip);
			if (d == NULL)
				p->details_dropped += sp->details[k].count;
			else
				d->count += sp->details[k].count;
		}
	}
}

uint64_t
agg_sessions(const struct agg *a)
{
	uint64_t n = 0;
	size_t	 i;

	for (i = 0; i < a->npolicies; i++)
		n += a->policies[i].success + a->policies[i].failure;
	return (n);
}

void
agg_encode(const struct agg *a, struct buf *b)
{
	const struct agg_policy *p;
	const struct agg_detail *d;
	size_t	 i, j;

	pack_u8(b, AGG_CODEC_VERSION);
	pack_u64(b, a->dropped);
	pack_u8(b, (unsigned int)a->npolicies);
	for (i = 0; i < a->npolicies; i++) {
		p = &a->policies[i];
		pack_u8(b, p->type);
		/* up to AGG_MAX_TEXT: two 16-bit strings' worth */
		pack_u32(b, (uint32_t)p->strings.len);
		buf_append(b, p->strings.data, p->strings.len);
		pack_u32(b, (uint32_t)p->mx.len);
		buf_append(b, p->mx.data, p->mx.len);
		pack_u64(b, p->success);
		pack_u64(b, p->failure);
		pack_u64(b, p->details_dropped);
		pack_u8(b, (unsigned int)p->nhosts);
		for (j = 0; j < p->nhosts; j++)
			pack_cstr(b, p->hosts[j]);
		pack_u8(b, (unsigned int)p->ndetails);
		for (j = 0; j < p->ndetails; j++) {
			d = &p->details[j];
			pack_u8(b, d->result);
			pack_cstr(b, d->host);
			pack_cstr(b, d->addr);
			pack_cstr(b, d->reason);
			pack_u64(b, d->count);
		}
	}
}

/* agg_text - a u32-length block into buf t (at most AGG_MAX_TEXT) */
static void
agg_text(struct unpack *u, struct buf *t)
{
	uint32_t n = unpack_u32(u);

	if (u->error || n > AGG_MAX_TEXT || u->len - u->pos < n) {
		u->error = 1;
		return;
	}
	buf_append(t, u->p + u->pos, n);
	u->pos += n;
}

int
agg_decode(const void *v, size_t len, struct agg *a)
{
	struct unpack	 u;
	struct agg_policy *p;
	struct agg_detail *d;
	size_t		 i, j, n;
	unsigned int	 type, r;

	agg_free(a);
	unpack_init(&u, v, len);
	if (unpack_u8(&u) != AGG_CODEC_VERSION)
		goto bad;
	a->dropped = unpack_u64(&u);
	if ((n = unpack_u8(&u)) > AGG_MAX_POLICIES)
		goto bad;
	for (i = 0; i < n && !u.error; i++) {
		if ((type = unpack_u8(&u)) > TLSRPT_POLICY_MAX)
			goto bad;
		p = &a->policies[a->npolicies++];
		agg_policy_init(p, (enum tlsrpt_policy_type)type);
		agg_text(&u, &p->strings);
		agg_text(&u, &p->mx);
		p->success = unpack_u64(&u);
		p->failure = unpack_u64(&u);
		p->details_dropped = unpack_u64(&u);
		if ((p->nhosts = unpack_u8(&u)) > AGG_MAX_HOSTS)
			goto bad;
		for (j = 0; j < p->nhosts; j++)
			unpack_cstr(&u, p->hosts[j], sizeof(p->hosts[j]));
		if ((p->ndetails = unpack_u8(&u)) > AGG_MAX_DETAILS)
			goto bad;
		if (p->ndetails > 0)
			p->details = xcalloc(AGG_MAX_DETAILS,
			    sizeof(*p->details));
		for (j = 0; j < p->ndetails && !u.error; j++) {
			d = &p->details[j];
			if ((r = unpack_u8(&u)) == TLSRPT_RESULT_NONE ||
			    r > TLSRPT_RESULT_MAX)
				goto bad;
			d->result = (enum tlsrpt_result)r;
			unpack_cstr(&u, d->host, sizeof(d->host));
			unpack_cstr(&u, d->addr, sizeof(d->addr));
			unpack_cstr(&u, d->reason, sizeof(d->reason));
			d->count = unpack_u64(&u);
		}
	}
	if (unpack_done(&u) == -1)
		goto bad;
	return (0);
bad:
	agg_free(a);
	return (-1);
}
