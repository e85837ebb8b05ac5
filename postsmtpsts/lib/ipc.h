/*
 * ipc.h - messages between front workers and the resolver process
 *
 * Transport: a SOCK_SEQPACKET unix socket (message boundaries and order
 * kept by the kernel, a peer's death seen as EOF), one a resolver, in the
 * runtime directory: IPC_RESOLVER_SOCKET for resolver 0, "resolver.<i>.sock"
 * for resolver i > 0 (ipc_resolver_addr: the one place an address is
 * built).  Each resolver owns the domains ipc_shard() gives it: every
 * worker (and postsmtpsts-cache warm) connects to each resolver and asks
 * the one that owns the domain, so one domain is only ever discovered,
 * refreshed and written by one process (DESIGN.md "Resolver shards").  The
 * master binds the sockets before dropping privileges; each resolver
 * accepts on its own.  Messages are explicit little-endian encodings,
 * checked field by field on receipt (OpenSMTPD's mproc discipline): a
 * message that does not decode exactly is dropped and logged.
 *
 *   request  (worker -> resolver):  'Q' ver flags domain_len domain
 *   reply    (resolver -> worker):  'R' ver status domain_len domain
 *                                   record_len(u32) record
 *                                   dane_len(u32) dane
 * record and dane are cache record encodings (cache.h): the MTA-STS facts
 * (kind none or sts) and the DANE facts (kind dane) about the domain, each
 * empty when unknown; the worker turns facts into a Postfix answer with its
 * own map's options, exactly as it does for a cache hit.
 */
#ifndef IPC_H
#define IPC_H

#include <sys/un.h>

#include <stddef.h>
#include <stdint.h>

#include "lib/cache_record.h"
#include "lib/domain.h"

#define IPC_RESOLVER_SOCKET	"resolver.sock"	/* in runtime_dir */
#define IPC_VERSION		2
#define IPC_MAX_RECORD		CACHE_RECORD_MAX_LEN	/* a policy of 64 KiB
					   with thousands of mx lines fits */
#define IPC_MAX_MSG		(12 + DOMAIN_MAX_LEN + 2 * IPC_MAX_RECORD)

#define IPC_FLAG_REFRESH	0x01	/* bypass cached facts */
#define IPC_FLAG_TXTCHECK	0x02	/* background re-check of the cached
					   TXT id (facts_txt_due); the reply
					   only ends the worker's marker */

enum ipc_status {
	IPC_STATUS_OK = 0,	/* record holds the facts */
	IPC_STATUS_TEMP = 1,	/* resolver could not decide (no record) */
};

struct ipc_request {
	uint8_t		 flags;
	char		 domain[DOMAIN_BUFSZ];
	size_t		 domain_len;
};

struct ipc_reply {
	uint8_t		 status;
	char		 domain[DOMAIN_BUFSZ];
	size_t		 domain_len;
	const unsigned char *record;	/* points into the decoded message */
	size_t		 record_len;
	const unsigned char *dane;	/* likewise; NULL/0: none */
	size_t		 dane_len;
};

/*
 * ipc_resolver_addr - the address of resolver shard's socket in runtime_dir
 * into *sun (zeroed first): 0, or -1 when the path does not fit
 */
int	ipc_resolver_addr(const char *runtime_dir, int shard,
	    struct sockaddr_un *sun);

/*
 * ipc_shard - the resolver (0 .. nshards-1) that owns domain[0..len): a
 * function of the (normalized) name and nshards only, so the workers, the
 * resolvers' refresh walks and postsmtpsts-cache warm agree on it
 */
int	ipc_shard(const char *domain, size_t len, int nshards);

/* ipc_request_encode - encode into out[outsz]; length or -1 */
long	ipc_request_encode(const struct ipc_request *req, unsigned char *out,
	    size_t outsz);
/* ipc_request_decode - exact decode of p[0..len); 0 or -1 */
int	ipc_request_decode(const unsigned char *p, size_t len,
	    struct ipc_request *out);
/* ipc_reply_encode - encode into out[outsz]; length or -1 */
long	ipc_reply_encode(const struct ipc_reply *rep, unsigned char *out,
	    size_t outsz);
/* ipc_reply_decode - exact decode; out->record points into p */
int	ipc_reply_decode(const unsigned char *p, size_t len,
	    struct ipc_reply *out);

#endif
