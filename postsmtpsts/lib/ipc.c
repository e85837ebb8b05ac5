/*
 * ipc.c - worker <-> resolver message codec (see ipc.h for the layout)
 *
 * Pure: no I/O, no allocation.  Every length is checked against what is
 * left before it is used, and a message must be consumed exactly.  Also
 * the resolver socket's address, built here for the master, the workers
 * and postsmtpsts-cache warm.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <stdio.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/ipc.h"

#define IPC_MAGIC_REQUEST	'Q'
#define IPC_MAGIC_REPLY		'R'

/* ipc_domain_ok - a domain field: 1..DOMAIN_MAX_LEN printable bytes */
static int
ipc_domain_ok(const char *d, size_t len)
{
	size_t	 i;

	if (len == 0 || len > DOMAIN_MAX_LEN)
		return (0);
	for (i = 0; i < len; i++)
		if ((unsigned char)d[i] <= 0x20 || (unsigned char)d[i] >= 0x7f)
			return (0);
	return (1);
}

int
ipc_resolver_addr(const char *runtime_dir, int shard, struct sockaddr_un *sun)
{
	int	 n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (shard == 0)
		n = snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%s",
		    runtime_dir, IPC_RESOLVER_SOCKET);
	else
		n = snprintf(sun->sun_path, sizeof(sun->sun_path),
		    "%s/resolver.%d.sock", runtime_dir, shard);
	if (shard < 0 || n < 0 || (size_t)n >= sizeof(sun->sun_path))
		return (-1);
	return (0);
}

int
ipc_shard(const char *domain, size_t len, int nshards)
{
	uint32_t	 h;

	if (nshards <= 1)
		return (0);
	/* FNV-1a's high bits are its well-mixed ones: take them by a
	 * multiply-shift rather than by h % nshards */
	h = hash_fnv1a(domain, len);
	return ((int)(((uint64_t)h * (uint64_t)nshards) >> 32));
}

long
ipc_request_encode(const struct ipc_request *req, unsigned char *out,
    size_t outsz)
{
	size_t	 n = 4 + req->domain_len;

	if (!ipc_domain_ok(req->domain, req->domain_len) || n > outsz)
		return (-1);
	out[0] = IPC_MAGIC_REQUEST;
	out[1] = IPC_VERSION;
	out[2] = req->flags;
	out[3] = (unsigned char)req->domain_len;
	memcpy(out + 4, req->domain, req->domain_len);
	return ((long)n);
}

int
ipc_request_decode(const unsigned char *p, size_t len,
    struct ipc_request *out)
{
	size_t	 dlen;

	if (len < 4 || p[0] != IPC_MAGIC_REQUEST || p[1] != IPC_VERSION)
		return (-1);
	dlen = p[3];
	if (len != 4 + dlen || !ipc_domain_ok((const char *)p + 4, dlen))
		return (-1);
	out->flags = p[2];
	memcpy(out->domain, p + 4, dlen);
	out->domain[dlen] = '\0';
	out->domain_len = dlen;
	return (0);
}

/* ipc_put32 - little-endian u32 */
static void
ipc_put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static uint32_t
ipc_get32(const unsigned char *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
	    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

long
ipc_reply_encode(const struct ipc_reply *rep, unsigned char *out,
    size_t outsz)
{
	size_t	 n, off;

	if (!ipc_domain_ok(rep->domain, rep->domain_len) ||
	    rep->record_len > IPC_MAX_RECORD ||
	    rep->dane_len > IPC_MAX_RECORD)
		return (-1);
	n = 4 + rep->domain_len + 4 + rep->record_len + 4 + rep->dane_len;
	if (n > outsz)
		return (-1);
	out[0] = IPC_MAGIC_REPLY;
	out[1] = IPC_VERSION;
	out[2] = rep->status;
	out[3] = (unsigned char)rep->domain_len;
	memcpy(out + 4, rep->domain, rep->domain_len);
	off = 4 + rep->domain_len;
	ipc_put32(out + off, (uint32_t)rep->record_len);
	if (rep->record_len > 0)
		memcpy(out + off + 4, rep->record, rep->record_len);
	off += 4 + rep->record_len;
	ipc_put32(out + off, (uint32_t)rep->dane_len);
	if (rep->dane_len > 0)
		memcpy(out + off + 4, rep->dane, rep->dane_len);
	return ((long)n);
}

int
ipc_reply_decode(const unsigned char *p, size_t len, struct ipc_reply *out)
{
	size_t	 dlen, off;
	uint32_t rl, dl;

	if (len < 12 || p[0] != IPC_MAGIC_REPLY || p[1] != IPC_VERSION)
		return (-1);
	if (p[2] != IPC_STATUS_OK && p[2] != IPC_STATUS_TEMP)
		return (-1);
	dlen = p[3];
	if (len < 4 + dlen + 8 || !ipc_domain_ok((const char *)p + 4, dlen))
		return (-1);
	off = 4 + dlen;
	rl = ipc_get32(p + off);
	if (rl > IPC_MAX_RECORD || len - (off + 4) < (size_t)rl + 4)
		return (-1);
	off += 4;
	dl = ipc_get32(p + off + rl);
	if (dl > IPC_MAX_RECORD || len - (off + rl + 4) != dl)
		return (-1);
	out->status = p[2];
	memcpy(out->domain, p + 4, dlen);
	out->domain[dlen] = '\0';
	out->domain_len = dlen;
	out->record = rl > 0 ? p + off : NULL;
	out->record_len = rl;
	out->dane = dl > 0 ? p + off + rl + 4 : NULL;
	out->dane_len = dl;
	return (0);
}
