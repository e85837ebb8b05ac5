/*
 * check_probe.h - one SMTP/STARTTLS probe of an MX host with GnuTLS, for
 * postsmtpsts-check
 *
 * check_probe_run() connects to the host's addresses in order until one
 * accepts, reads the 220 greeting, sends EHLO, looks for STARTTLS, sends
 * STARTTLS, expects 220, runs the TLS handshake with SNI = the MX host
 * name, records the protocol, cipher suite and certificate chain, checks
 * the chain against the trust store (PKIX, RFC 5280), the leaf's names
 * against the MX host (RFC 6125 via gnutls_x509_crt_check_hostname2) and,
 * when TLSA records are given, against them with libgnutls-dane (RFC 6698,
 * RFC 7672 §3), then says QUIT.  Blocking, one host at a time; every step
 * (connect, each reply, the handshake, each write) has its own deadline of
 * timeout_ms.  Nothing is parsed here (check_parse.h does that).
 */
#ifndef CHECK_PROBE_H
#define CHECK_PROBE_H

#include <stddef.h>
#include <time.h>

#define CHECK_PROBE_MAX_CHAIN	10	/* certificates reported */
#define CHECK_PROBE_TEXT_MAX	512	/* subject, issuer, messages */
#define CHECK_PROBE_ADDR_MAX	64	/* an address literal */
#define CHECK_PROBE_MAX_TLSA	64	/* TLSA records handed to GnuTLS */

struct check_probe_tls;

/*
 * check_probe_tls_new - the GnuTLS credentials every probe uses: trust
 * anchors from ca_file (PEM), or the system store when ca_file is NULL.
 * Returns NULL with a message in err (errsz bytes) on failure.
 */
struct check_probe_tls *check_probe_tls_new(const char *ca_file, char *err,
	    size_t errsz);

/* check_probe_tls_free - NULL is a no-op */
void	check_probe_tls_free(struct check_probe_tls *t);

struct check_probe_cert {
	char		 subject[CHECK_PROBE_TEXT_MAX];	/* RFC 4514 DN */
	char		 issuer[CHECK_PROBE_TEXT_MAX];
	time_t		 not_before;
	time_t		 not_after;
};

struct check_probe_opts {
	const char	*host;		/* MX host name: SNI, name check */
	const char *const *addrs;	/* address literals, in order */
	size_t		 naddrs;
	int		 port;
	int		 timeout_ms;	/* per step */
	const char	*helo;		/* EHLO argument */
	/* usable TLSA RDATAs (RFC 7672 §3.1), or ntlsa == 0: no DANE */
	const unsigned char *const *tlsa;
	const size_t	*tlsa_len;
	size_t		 ntlsa;
	time_t		 now;		/* for expiry_days */
};

struct check_probe_result {
	char		 addr[CHECK_PROBE_ADDR_MAX];	/* last tried */
	int		 connected;
	int		 smtp_ok;	/* 220 greeting and 250 EHLO */
	char		 greeting[CHECK_PROBE_TEXT_MAX]; /* first line, raw */
	int		 starttls;	/* STARTTLS offered */
	int		 tls;		/* handshake completed */
	char		 error[CHECK_PROBE_TEXT_MAX];	/* "" or why/where */
	char		 tls_version[32];
	char		 cipher[128];
	size_t		 nchain;	/* certificates the server sent */
	struct check_probe_cert chain[CHECK_PROBE_MAX_CHAIN];
	int		 pkix_ok;
	char		 pkix_status[CHECK_PROBE_TEXT_MAX];
	int		 name_ok;
	int		 dane_checked;	/* ntlsa > 0 and a chain to check */
	int		 dane_ok;
	int		 dane_ee_only;	/* matched, but only by DANE-EE(3) */
	char		 dane_status[CHECK_PROBE_TEXT_MAX];
	long		 expiry_days;	/* leaf; valid when nchain > 0 */
	long		 elapsed_ms;
};

/*
 * check_probe_run - probe one host as described above; fills in *res
 * (zeroed first).  Returns 0 when the TLS handshake completed (the
 * verification results may still be negative), -1 otherwise, with
 * res->error saying which step failed.
 */
int	check_probe_run(struct check_probe_tls *t,
	    const struct check_probe_opts *o, struct check_probe_result *res);

#endif
