/*
 * fuzz_ipc.c - libFuzzer target for a raw frame on the worker/resolver IPC
 * socket
 *
 * A SOCK_SEQPACKET message is whatever a peer of the socket sent: the
 * resolver decodes each as a request (daemon/resolver_conn.c,
 * ipc_request_decode), a worker and postsmtpsts-cache warm each as a reply
 * (daemon/worker_rclient.c, tools/cache_warm.c: ipc_reply_decode, then
 * cache_record_decode of both records, as rclient_reply does).  Each input
 * is one frame, given to both decoders.  Checked besides "no crash":
 *   - a decoded request's domain is 1..DOMAIN_MAX_LEN printable bytes,
 *     NUL-terminated at domain_len, and it encodes to the same bytes
 *     (the decode is exact);
 *   - a decoded reply's status is OK or TEMP, its records lie inside the
 *     frame and end exactly at its end (NULL when empty), its domain as a
 *     request's, and it encodes to the same bytes;
 *   - each record is decoded as the worker does; one that decodes keeps
 *     cache_record.h's limits.
 * Seed corpus: tests/fuzz/corpus/ipc/ (requests and replies as the
 * daemon writes them, seeds.py).
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "lib/cache_record.h"
#include "lib/ipc.h"

static unsigned char out[IPC_MAX_MSG];

/* fuzz_ipc_domain_ok - the promises on a decoded domain */
static int
fuzz_ipc_domain_ok(const char *d, size_t len)
{
	size_t	 i;

	if (len == 0 || len > DOMAIN_MAX_LEN || d[len] != '\0')
		return (0);
	for (i = 0; i < len; i++)
		if ((unsigned char)d[i] <= 0x20 || (unsigned char)d[i] >= 0x7f)
			return (0);
	return (1);
}

/* fuzz_ipc_record - a record as rclient_reply decodes it */
static void
fuzz_ipc_record(const unsigned char *p, size_t len)
{
	static struct cache_record rec;

	if (len == 0 || cache_record_decode(p, len, &rec) != CACHE_DECODE_OK)
		return;
	FUZZ_CHECK(strnlen(rec.id, CACHE_ID_LEN) < CACHE_ID_LEN);
	FUZZ_CHECK(rec.mxlen <= CACHE_MX_BYTES_MAX && rec.mxlen <= rec.mxcap);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_request req;
	struct ipc_reply rep;
	long	 n;

	if (ipc_request_decode(data, size, &req) == 0) {
		FUZZ_CHECK(fuzz_ipc_domain_ok(req.domain, req.domain_len));
		n = ipc_request_encode(&req, out, sizeof(out));
		FUZZ_CHECK(n == (long)size && memcmp(out, data, size) == 0);
	}
	if (ipc_reply_decode(data, size, &rep) == 0) {
		FUZZ_CHECK(rep.status == IPC_STATUS_OK ||
		    rep.status == IPC_STATUS_TEMP);
		FUZZ_CHECK(fuzz_ipc_domain_ok(rep.domain, rep.domain_len));
		FUZZ_CHECK((rep.record == NULL) == (rep.record_len == 0));
		FUZZ_CHECK((rep.dane == NULL) == (rep.dane_len == 0));
		FUZZ_CHECK(rep.record_len <= IPC_MAX_RECORD &&
		    rep.dane_len <= IPC_MAX_RECORD);
		FUZZ_CHECK(12 + rep.domain_len + rep.record_len +
		    rep.dane_len == size);
		if (rep.record != NULL)
			FUZZ_CHECK(rep.record == data + 8 + rep.domain_len);
		if (rep.dane != NULL)
			FUZZ_CHECK(rep.dane + rep.dane_len == data + size);
		n = ipc_reply_encode(&rep, out, sizeof(out));
		FUZZ_CHECK(n == (long)size && memcmp(out, data, size) == 0);
		fuzz_ipc_record(rep.record, rep.record_len);
		fuzz_ipc_record(rep.dane, rep.dane_len);
	}
	return (0);
}
