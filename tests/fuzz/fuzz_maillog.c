/*
 * fuzz_maillog.c - fuzz target for the Postfix log line parser of
 * postsmtpsts-tlsrpt (maillog_line, maillog_message)
 *
 * The input is split at newlines as the reporter splits a log file, each
 * line handed over in a heap block of exactly its length.  Every line is
 * also given to maillog_message() as a journal MESSAGE of "postfix/smtp".
 * Properties:
 *	- every string field of the event is NUL-terminated inside its
 *	  array (strnlen < sizeof), the reason printable ASCII;
 *	- a TLS event has a host, an address and a result or trust that
 *	  fits its kind; a delivery's domain is a normalized name or "";
 *	- the result is a known RFC 8460 result type.
 */
#include "autoconf.h"

#include <stdint.h>
#include <string.h>

#include "lib/domain.h"
#include "tlsrpt/maillog.h"
#include "fuzz.h"

/* fuzz_event - the properties of one parsed event */
static void
fuzz_event(const struct maillog_event *ev)
{
	char	 again[DOMAIN_BUFSZ];
	size_t	 i, n;

	FUZZ_CHECK(strnlen(ev->service, sizeof(ev->service)) <
	    sizeof(ev->service));
	FUZZ_CHECK(strnlen(ev->host, sizeof(ev->host)) < sizeof(ev->host));
	FUZZ_CHECK(strnlen(ev->addr, sizeof(ev->addr)) < sizeof(ev->addr));
	FUZZ_CHECK(strnlen(ev->qid, sizeof(ev->qid)) < sizeof(ev->qid));
	FUZZ_CHECK(strnlen(ev->mailbox, sizeof(ev->mailbox)) <
	    sizeof(ev->mailbox));
	FUZZ_CHECK(strnlen(ev->domain, sizeof(ev->domain)) <
	    sizeof(ev->domain));
	FUZZ_CHECK(strnlen(ev->msgid, sizeof(ev->msgid)) < sizeof(ev->msgid));
	n = strnlen(ev->reason, sizeof(ev->reason));
	FUZZ_CHECK(n < sizeof(ev->reason));
	for (i = 0; i < n; i++)
		FUZZ_CHECK(ev->reason[i] >= 0x20 && ev->reason[i] <= 0x7e);
	FUZZ_CHECK((int)ev->result >= 0 && ev->result <= TLSRPT_RESULT_MAX);
	switch (ev->kind) {
	case MAILLOG_TLS_ESTABLISHED:
		FUZZ_CHECK(ev->host[0] != '\0' && ev->addr[0] != '\0');
		FUZZ_CHECK(ev->trust != MAILLOG_TRUST_NONE);
		FUZZ_CHECK(ev->result == TLSRPT_RESULT_NONE);
		break;
	case MAILLOG_TLS_VERIFY_FAILED:
	case MAILLOG_TLS_HANDSHAKE_FAILED:
		FUZZ_CHECK(ev->host[0] != '\0' && ev->addr[0] != '\0');
		FUZZ_CHECK(ev->result != TLSRPT_RESULT_NONE);
		break;
	case MAILLOG_DELIVERY:
		FUZZ_CHECK(ev->qid[0] != '\0');
		FUZZ_CHECK(ev->relay_none || ev->addr[0] != '\0');
		if (ev->relay_none)
			FUZZ_CHECK(ev->result == TLSRPT_RESULT_NONE);
		if (ev->domain[0] != '\0') {
			FUZZ_CHECK(domain_normalize(ev->domain,
			    strlen(ev->domain), again) == DOMAIN_OK);
			FUZZ_CHECK(strcmp(again, ev->domain) == 0);
		}
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct maillog_event ev;
	const char *p = (const char *)data, *nl;
	size_t	 left = size, len;
	char	*line;

	while (left > 0) {
		nl = memchr(p, '\n', left);
		len = nl == NULL ? left : (size_t)(nl - p);
		line = malloc(len > 0 ? len : 1);
		FUZZ_CHECK(line != NULL);
		if (len > 0)
			memcpy(line, p, len);
		FUZZ_CHECK(maillog_line(line, len, &ev) == ev.kind);
		fuzz_event(&ev);
		FUZZ_CHECK(maillog_message("postfix/smtp", 12, 1, line, len,
		    &ev) == ev.kind);
		fuzz_event(&ev);
		free(line);
		if (nl == NULL)
			break;
		left -= len + 1;
		p = nl + 1;
	}
	return (0);
}
