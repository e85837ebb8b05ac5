/*
 * fuzz_metrics_http.c - fuzz target for metrics_http_parse, the metrics
 * listener's judge of an untrusted HTTP request head
 *
 * The input is what a client sent so far (no NUL needed).  Properties:
 *	- the verdict is 0 (incomplete), 200, 400, 404 or 405, and HEAD is
 *	  reported only for a well-formed GET/HEAD line (200 or 404);
 *	- a verdict, once given, is final: bytes that follow the head (a
 *	  body, a pipelined request) never change it;
 *	- an incomplete head stays incomplete for every shorter prefix (the
 *	  listener reads on until the head ends or the buffer is full).
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/metrics.h"
#include "fuzz.h"

#define FUZZ_PREFIX_CHECK_MAX	64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data;
	char		*more;
	size_t		 i, step;
	int		 code, head, code2, head2;

	if (size > METRICS_MAX_REQUEST)
		return (0);	/* the listener never holds more */
	code = metrics_http_parse(p, size, &head);
	FUZZ_CHECK(code == 0 || code == 200 || code == 400 || code == 404 ||
	    code == 405);
	FUZZ_CHECK(head == 0 || (head == 1 && (code == 200 || code == 404)));
	if (code != 0) {
		more = malloc(size + 9);
		FUZZ_CHECK(more != NULL);
		memcpy(more, p, size);
		memcpy(more + size, "\r\nXYZ\n\n\r\n", 9);
		code2 = metrics_http_parse(more, size + 9, &head2);
		FUZZ_CHECK(code2 == code && head2 == head);
		free(more);
	} else {
		step = size / FUZZ_PREFIX_CHECK_MAX + 1;
		for (i = 0; i < size; i += step)
			FUZZ_CHECK(metrics_http_parse(p, i, &head2) == 0);
	}
	return (0);
}
