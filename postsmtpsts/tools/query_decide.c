/*
 * query_decide.c - postsmtpsts-query's path into decide() (see
 * query_decide.h)
 */
#include "autoconf.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/sockmap.h"
#include "policy/pins.h"
#include "tools/query_decide.h"

/* QUERY_DECIDE_DATA_MAX - decide()'s reply data: a socketmap reply */
#define QUERY_DECIDE_DATA_MAX	SOCKMAP_MAX_OK_DATA

/* query_decide_sts - decide()'s MTA-STS input from a discovery result */
static void
query_decide_sts(const struct discover_result *r, struct decide_input *in)
{
	if (r == NULL)
		return;
	switch (r->outcome) {
	case DISCOVER_POLICY:
		in->sts = DECIDE_STS_POLICY;
		in->policy = r->policy;
		break;
	case DISCOVER_NO_POLICY:
	case DISCOVER_UNCHANGED:	/* no cache here: nothing to apply */
		in->sts = DECIDE_STS_NONE;
		break;
	case DISCOVER_FAILURE:
		in->sts = DECIDE_STS_FAILED;
		switch (r->failure) {
		case DISCOVER_FAIL_TXT_INVALID:
			/* RFC 8461 §3.1: as if there were no record */
			in->sts = DECIDE_STS_NONE;
			break;
		case DISCOVER_FAIL_POLICY_INVALID:
			in->sts_error = DECIDE_STS_ERR_INVALID;
			break;
		case DISCOVER_FAIL_WEBPKI:
			in->sts_error = DECIDE_STS_ERR_WEBPKI;
			break;
		default:
			in->sts_error = DECIDE_STS_ERR_FETCH;
			break;
		}
		break;
	}
}

int
query_decide(const struct config *cf, const char *domain,
    enum decide_dane dane, const struct discover_result *r,
    const struct decide_preload *pre, const struct decide_options *opt,
    struct buf *out,
    struct decide_result *res, enum pins_state *ps,
    const struct config_domain **pd)
{
	struct decide_input	 in;
	struct decide_pin	 pin;
	struct buf		 data;
	enum pins_state		 st;

	st = pins_decide_input(cf, domain, pd, &pin, &in);
	if (ps != NULL)
		*ps = st;
	in.dane = dane;
	query_decide_sts(r, &in);
	/* as the worker: the list's entry only without a discovered policy
	 * (decide() holds to that too) */
	if (in.sts != DECIDE_STS_POLICY)
		in.preload = pre;
	buf_init(&data, QUERY_DECIDE_DATA_MAX);
	buf_reset(out);
	if (decide(&in, opt, &data, res) == -1) {
		buf_free(&data);
		buf_append_str(out, "TEMP internal error in decide()");
		return (-1);
	}
	if (res->status == SOCKMAP_NOTFOUND)
		buf_append_str(out, "NOTFOUND");
	else {
		buf_append_str(out, sockmap_status_name(res->status));
		buf_append_char(out, ' ');
		buf_append(out, data.data, data.len);
	}
	buf_free(&data);
	return (buf_cstr(out) == NULL ? -1 : 0);
}
