/*
 * scn_fake.c - the commands that script the fakes of tests/fake/: "dns"
 * and "answer" (fake_dns.h), "https" and "complete" (fake_https.h)
 *
 * dns.h and https.h are fakes (link-time substitution): "dns" and "https"
 * script every later query for a name and type, or fetch from a host;
 * "answer" and "complete" finish the oldest pending one now.  Calls only
 * scn_text.c (scenario_int.h).
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dns.h"
#include "lib/https.h"
#include "fake_dns.h"
#include "fake_https.h"
#include "scenario_int.h"

/* scn_dns_answer - "dns NAME TYPE ..." words from t[3] into *a */
static void
scn_dns_answer(int n, char **t, int rrtype, struct fake_dns_answer *a)
{
	int	 i;

	fake_dns_answer_init(a, DNS_OK, DNS_RCODE_NOERROR, DNS_INSECURE);
	for (i = 3; i < n; i++) {
		if (strcmp(t[i], "secure") == 0)
			a->security = DNS_SECURE;
		else if (strcmp(t[i], "insecure") == 0)
			a->security = DNS_INSECURE;
		else if (strcmp(t[i], "bogus") == 0)
			a->security = DNS_BOGUS;
		else if (strcmp(t[i], "noerror") == 0 ||
		    strcmp(t[i], "nodata") == 0)
			a->rcode = DNS_RCODE_NOERROR;
		else if (strcmp(t[i], "nxdomain") == 0)
			a->rcode = DNS_RCODE_NXDOMAIN;
		else if (strcmp(t[i], "servfail") == 0)
			a->rcode = DNS_RCODE_SERVFAIL;
		else if (strncmp(t[i], "rcode=", 6) == 0)
			a->rcode = (int)scn_num(t[i] + 6);
		else if (strcmp(t[i], "timeout") == 0)
			a->status = DNS_ERR_TIMEOUT;
		else if (strcmp(t[i], "resolver-error") == 0)
			a->status = DNS_ERR_RESOLVER;
		else if (strncmp(t[i], "ttl=", 4) == 0)
			a->ttl = (int)scn_num(t[i] + 4);
		else if (strncmp(t[i], "delay=", 6) == 0)
			a->delay_ms = (int)scn_duration(t[i] + 6);
		else if (strcmp(t[i], "hold") == 0)
			a->hold = 1;
		else if (strncmp(t[i], "cname=", 6) == 0)
			snprintf(a->canonname, sizeof(a->canonname), "%s",
			    t[i] + 6);
		else if (fake_dns_add_text(a, rrtype, t[i]) == -1)
			scn_bail("dns: not a %s record nor a keyword: \"%s\"",
			    t[2], t[i]);
	}
}

void
cmd_dns(int n, char **t, int now)
{
	struct fake_dns_answer *a;
	int		 rrtype;

	if (n < 3 || (rrtype = fake_dns_rrtype(t[2])) == -1)
		scn_bail("%s NAME TYPE ...", t[0]);
	if (!now && n == 4 && strcmp(t[3], "forget") == 0) {
		fake_dns_unscript(t[1], rrtype);
		return;
	}
	if ((a = malloc(sizeof(*a))) == NULL)
		abort();
	scn_dns_answer(n, t, rrtype, a);
	if (!now)
		fake_dns_script(t[1], rrtype, a);
	else if (fake_dns_reply(t[1], rrtype, a) == -1)
		scn_fail("answer: no pending query for %s %s", t[1], t[2]);
	free(a);
}

/* scn_policy_body - "policy MODE MAX_AGE MX..." as a policy text */
static char *
scn_policy_body(int n, char **t, int i)
{
	char	*b;
	size_t	 len = 64, off;
	int	 k;

	if (n - i < 2)
		scn_bail("policy MODE MAX_AGE [MX ...]");
	for (k = i; k < n; k++)
		len += strlen(t[k]) + 8;
	if ((b = malloc(len)) == NULL)
		abort();
	off = (size_t)snprintf(b, len, "version: STSv1\nmode: %s\n", t[i]);
	for (k = i + 2; k < n; k++)
		off += (size_t)snprintf(b + off, len - off, "mx: %s\n", t[k]);
	snprintf(b + off, len - off, "max_age: %s\n", t[i + 1]);
	return (b);
}

void
cmd_https(int n, char **t, int now)
{
	static const char *const kinds[] = { "ok", "connect", "tls", "webpki",
	    "timeout", "http-status", "redirect", "content-type",
	    "too-large", "other" };
	struct fake_https_result r;
	char		*body = NULL;
	size_t		 k;
	int		 i;

	if (n < 3)
		scn_bail("%s HOST RESULT ...", t[0]);
	memset(&r, 0, sizeof(r));
	for (i = 2; i < n; i++) {
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (strcmp(t[i], kinds[k]) == 0)
				break;
		if (k < sizeof(kinds) / sizeof(kinds[0]))
			r.error = (enum https_error)k;
		else if (strncmp(t[i], "status=", 7) == 0)
			r.status = (long)scn_num(t[i] + 7);
		else if (strncmp(t[i], "ctype=", 6) == 0)
			snprintf(r.content_type, sizeof(r.content_type), "%s",
			    t[i] + 6);
		else if (strncmp(t[i], "delay=", 6) == 0)
			r.delay_ms = (int)scn_duration(t[i] + 6);
		else if (strcmp(t[i], "hold") == 0)
			r.hold = 1;
		else if (strncmp(t[i], "body=", 5) == 0)
			r.body = t[i] + 5;
		else if (strcmp(t[i], "policy") == 0) {
			r.body = body = scn_policy_body(n, t, i + 1);
			break;
		} else
			scn_bail("https: not a keyword: \"%s\"", t[i]);
	}
	if (!now)
		fake_https_script(t[1], &r);
	else if (fake_https_reply(t[1], &r) == -1)
		scn_fail("complete: no pending fetch from %s", t[1]);
	free(body);
}
