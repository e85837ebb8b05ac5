/*
 * fake_dns.h - a scripted dns.h for tests, substituted at link time
 *
 * fake_dns.c defines every function of dns.h but the names (which stay in
 * lib/dns_names.c): a test program linking it never pulls lib/dns.o out
 * of libpostsmtpsts.a.  Queries are recorded (name, type, in order).  A
 * query whose name and type have a scripted answer (fake_dns_script) is
 * answered from the event loop, as dns.h's contract says: by a timer
 * armed on the base given to dns_new() (a virtual one when fake_event.c
 * is linked too), after the answer's delay; never from inside
 * dns_query().  Any other query stays pending until the test answers it
 * (fake_dns_reply), or forever.  A test without an event base (dns_new
 * never called: the discovery and DANE unit tests pass a NULL struct
 * dns) answers every query with fake_dns_reply().
 *
 * Answers carry what the real dns.c reports: status, RCODE, DNSSEC
 * status (and why_bogus), TTL, the final name after CNAMEs, RDATAs in wire
 * form (TXT: length-prefixed strings; A: 4 bytes; AAAA: 16; MX: preference
 * and an uncompressed wire name; TLSA: usage, selector, matching type,
 * data) and the response packet when a test needs its authority section.
 * Names match case-insensitively, with or without the trailing dot.
 */
#ifndef FAKE_DNS_H
#define FAKE_DNS_H

#include <stddef.h>

#include "lib/dns.h"

#define FAKE_DNS_MAX_RDATA	32
#define FAKE_DNS_DATA		4096	/* RDATA bytes of one answer */
#define FAKE_DNS_PACKET		1024

struct fake_dns_answer {
	enum dns_status	 status;
	int		 rcode;
	enum dns_security security;
	int		 ttl;
	char		 canonname[256];	/* "" : none */
	int		 delay_ms;	/* scripted: delivered this late */
	int		 hold;		/* scripted: stays pending */
	size_t		 count;
	size_t		 off[FAKE_DNS_MAX_RDATA];
	size_t		 len[FAKE_DNS_MAX_RDATA];
	size_t		 used;
	unsigned char	 data[FAKE_DNS_DATA];
	size_t		 packet_len;
	unsigned char	 packet[FAKE_DNS_PACKET];
};

/* fake_dns_reset - forget scripts and recorded queries (pending ones are
 * dropped without a callback) */
void	fake_dns_reset(void);

/* fake_dns_answer_init - status, RCODE and security; TTL 300, no data */
void	fake_dns_answer_init(struct fake_dns_answer *a, enum dns_status st,
	    int rcode, enum dns_security sec);

/* fake_dns_add_rdata - one more wire RDATA; -1 if it does not fit */
int	fake_dns_add_rdata(struct fake_dns_answer *a, const void *p,
	    size_t len);
/* ... in presentation form: TXT (one character-string per 255 bytes of
 * text), A, AAAA, MX ("10 mx.example.com"), TLSA ("3 1 1 hexdata");
 * -1 if it does not parse or fit */
int	fake_dns_add_text(struct fake_dns_answer *a, int rrtype,
	    const char *text);
/* fake_dns_set_packet - the response packet handed with the answer */
int	fake_dns_set_packet(struct fake_dns_answer *a, const void *p,
	    size_t len);

/* fake_dns_rrtype - "TXT", "A", ... to DNS_TYPE_*, or -1 */
int	fake_dns_rrtype(const char *name);

/* fake_dns_script - every later query for name/type gets a copy of a
 * (replacing an earlier script) */
void	fake_dns_script(const char *name, int rrtype,
	    const struct fake_dns_answer *a);
/* fake_dns_unscript - queries for name/type stay pending again */
void	fake_dns_unscript(const char *name, int rrtype);

/* fake_dns_reply - answer the oldest pending query for name/type now,
 * from the caller's stack; 0, or -1 if none is pending */
int	fake_dns_reply(const char *name, int rrtype,
	    const struct fake_dns_answer *a);

/* fake_dns_pending - queries for name/type asked and not yet answered
 * nor cancelled (rrtype 0: any type; name NULL: any name) */
int	fake_dns_pending(const char *name, int rrtype);
/* fake_dns_count - queries ever asked for name/type (same wildcards) */
int	fake_dns_count(const char *name, int rrtype);
/* fake_dns_query_name - the name of the i-th query asked, or NULL */
const char *fake_dns_query_name(int i);

#endif
