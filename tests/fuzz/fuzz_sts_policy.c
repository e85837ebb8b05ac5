/*
 * fuzz_sts_policy.c - libFuzzer target for the MTA-STS policy parser and
 * what consumes its output (sts_policy.c, mxmatch.c, decide.c)
 *
 * The input is a policy body (RFC 8461 §3.2).  A policy that parses must
 * keep every promise of sts_policy.h; its mx patterns must be valid and
 * match a host built from them; decide() must turn it into a reply that
 * fits Postfix's limit, with and without TLSRPT attributes.  A broken
 * promise aborts.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "policy/decide.h"
#include "policy/mxmatch.h"
#include "lib/sockmap.h"
#include "policy/sts_policy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_check_policy - the promises of sts_policy_parse() */
static void
fuzz_check_policy(const struct sts_policy *pol)
{
	const char	*line, *mx;
	size_t		 i, j, len, pos, n;
	char		 host[MXMATCH_PATTERN_BUFSZ];

	if (pol->max_age > STS_POLICY_MAX_AGE)
		abort();
	if (pol->mode != STS_MODE_NONE && pol->nmx == 0)
		abort();
	/* no count limit: the body's 64 KiB bounds lines and patterns */
	if (pol->textlen > sizeof(pol->text) || pol->mxlen > sizeof(pol->mx) ||
	    pol->nlines > STS_POLICY_MAX_BODY / 2 + 1)
		abort();
	for (i = 0, pos = 0; (mx = sts_policy_mx_next(pol, &pos, &len)) !=
	    NULL; i++) {
		if (len != strlen(mx) || len >= sizeof(host) ||
		    !mxmatch_pattern_check(mx, len))
			abort();
		for (j = 0; j < len; j++)
			if (mx[j] >= 'A' && mx[j] <= 'Z')
				abort();
		/* RFC 8461 §4.1: "*.x" matches "a.x"; a name matches itself. */
		memcpy(host, mx, len + 1);
		if (host[0] == '*')
			host[0] = 'a';
		if (!mxmatch(mx, host))
			abort();
	}
	if (i != pol->nmx || pos != pol->mxlen)
		abort();
	n = 0;
	for (pos = 0; sts_policy_line(pol, &pos, &line, &len); n++)
		if (memchr(line, '\n', len) != NULL || len == 0)
			abort();
	if (n != pol->nlines)
		abort();
}

/* fuzz_decide - decide() on the policy must give a well-formed reply */
static void
fuzz_decide(const struct sts_policy *pol, int tlsrpt)
{
	static char		 store[SOCKMAP_MAX_OK_DATA];	/* a worker's */
	struct decide_options	 opt;
	struct decide_input	 in;
	struct decide_result	 res;
	struct buf		 out;

	memset(&opt, 0, sizeof(opt));
	memset(&in, 0, sizeof(in));
	opt.testing_answer = DECIDE_TESTING_MAY;
	opt.tlsrpt = tlsrpt;
	in.domain = "example.com";
	in.sts = DECIDE_STS_POLICY;
	in.policy = pol;
	buf_init_fixed(&out, store, sizeof(store));
	if (decide(&in, &opt, &out, &res) == -1)
		abort();
	switch (pol->mode) {
	case STS_MODE_ENFORCE:
		if (res.status != SOCKMAP_OK || out.len < 13 ||
		    memcmp(out.data, "secure match=", 13) != 0)
			abort();
		break;
	case STS_MODE_TESTING:
		if (res.status != SOCKMAP_OK || out.len < 3 ||
		    memcmp(out.data, "may", 3) != 0)
			abort();
		break;
	case STS_MODE_NONE:
		if (res.status != SOCKMAP_NOTFOUND || out.len != 0)
			abort();
		break;
	}
	/* Nothing in a reply may break the socketmap or Postfix's parser. */
	if (memchr(out.data, '\n', out.len) != NULL ||
	    memchr(out.data, '\0', out.len) != NULL)
		abort();
	if (res.tlsrpt && !tlsrpt)
		abort();
	/* attributes are dropped all at once, never the policy itself */
	if (res.tlsrpt_dropped && (!tlsrpt || res.tlsrpt ||
	    memmem(out.data, out.len, "policy_type", 11) != NULL))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sts_policy pol;
	const char	*why = NULL;

	if (sts_policy_parse((const char *)data, size, &pol, &why) != 0) {
		if (why == NULL)
			abort();
		return (0);
	}
	fuzz_check_policy(&pol);
	fuzz_decide(&pol, 0);
	fuzz_decide(&pol, 1);
	return (0);
}
