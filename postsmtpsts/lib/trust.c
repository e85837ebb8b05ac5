/*
 * trust.c - the WebPKI trust store for policy fetches, loaded once
 *
 * Interface (trust.h): trust_new() reads the CA file once, trust_verify_
 * session() checks one TLS peer, trust_free().
 *
 * Why an index and a lazily filled list: libcurl 7.88's GnuTLS backend
 * parses CURLOPT_CAINFO into fresh credentials for every connection (no CA
 * cache, no CURLOPT_SSL_CTX_FUNCTION, CAINFO_BLOB parsed per connection
 * too), and a parsed GnuTLS trust list of Debian's 144-certificate bundle
 * costs about 4 MiB and 70 ms of libtasn1 work.  Here the file is parsed
 * once: each anchor is kept as DER (about 1.4 KiB) under its raw subject
 * name, then released.  GnuTLS finds anchors only by subject name (the
 * issuer name of a chain certificate, or the chain certificate's own name
 * when the peer sends a trusted certificate), so before each verification
 * the anchors whose subject equals the subject or issuer name of any chain
 * certificate are parsed into the one shared gnutls_x509_trust_list_t, if
 * they are not there yet.  The outcome is the one the full store would
 * give; the list only ever holds the CAs that were needed.
 *
 * Chains seen: policy hosts of one operator often share one certificate
 * (one multi-name certificate for many mta-sts.<domain> names), so the
 * last TRUST_SEEN_SLOTS chains that verified are remembered by the SHA-256
 * of their DER, with the parsed end-entity certificate.  The PKIX verdict
 * (signatures, anchors, constraints, key purpose) depends on the chain and
 * the time only, not on the host name: a chain seen again within
 * TRUST_SEEN_SECS, and before any of its certificates expires, needs only
 * the host name check against the remembered certificate.  Failures are
 * never remembered.
 *
 * As strict as gnutls_certificate_verify_peers(), which curl would call:
 *  - the chain is verified under a key-strength and signature profile,
 *    TRUST_PROFILE (GNUTLS_PROFILE_MEDIUM: RSA/DSA keys of at least 2048
 *    bits, ECC of at least 224, no SHA-1 signatures), which a remembered
 *    chain has passed too, since only chains that verified are remembered;
 *  - stapled OCSP responses (RFC 6066, and RFC 8446 §4.4.2.1 for every
 *    certificate of a TLS 1.3 chain) are checked as GnuTLS checks them
 *    (trust_ocsp_one): for that certificate, signed by its issuer or a
 *    responder the trust store or chain vouches for, not superseded; a
 *    "revoked" status refuses the peer, and so does any staple that fails
 *    those checks;
 *  - a certificate whose TLS feature extension demands status_request
 *    (RFC 7633, "must-staple") refuses a peer that stapled nothing.  GnuTLS
 *    asks for that only when the client requested a staple; GnuTLS clients
 *    (curl's included) always send status_request, which the must-staple
 *    test with a good staple proves (tests/unit/test_https.c).
 * The OCSP part is about the session, not the chain: it runs for every
 * session, the chain memory keeps whether the chain demands a staple, and
 * a session that stapled anything takes the full path.
 *
 * Limits: TRUST_MAX_ANCHORS certificates per CA file, TRUST_MAX_CHAIN peer
 * certificates (a longer chain is refused unverified, as GnuTLS's own
 * gnutls_certificate_verify_peers() does).
 * The CA file is configuration, not untrusted input; peer certificates are
 * parsed only by GnuTLS.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/ocsp.h>
#include <gnutls/x509.h>

#include "lib/clock.h"
#include "lib/trust.h"
#include "lib/xmalloc.h"

struct trust_anchor {
	unsigned char	*dn;		/* raw subject name (DER) */
	size_t		 dnlen;
	unsigned char	*der;		/* the certificate; NULL once parsed */
	size_t		 derlen;
};

#define TRUST_SEEN_SLOTS	16	/* verified chains remembered */
#define TRUST_SEEN_SECS		60	/* for at most this long */
#define TRUST_DIGEST_LEN	32	/* SHA-256 */
#define TRUST_PROFILE		GNUTLS_PROFILE_MEDIUM
#define TRUST_VFLAGS		GNUTLS_PROFILE_TO_VFLAGS(TRUST_PROFILE)
#define TRUST_TLSFEATURE_STATUS_REQUEST 5	/* RFC 6066 status_request */
#define TRUST_OCSP_MAX_AGE	(15 * 24 * 3600)	/* a staple without
					   nextUpdate is old after this
					   (GnuTLS's MAX_OCSP_VALIDITY_SECS) */

struct trust_seen {
	unsigned char	 digest[TRUST_DIGEST_LEN];	/* of the chain */
	gnutls_x509_crt_t leaf;		/* NULL: free slot */
	int		 must_staple;	/* a certificate demands a staple */
	time_t		 until;		/* verdict valid before this */
	unsigned long	 used;		/* LRU tick */
};

struct trust {
	gnutls_x509_trust_list_t tl;	/* the shared list */
	struct trust_seen seen[TRUST_SEEN_SLOTS];
	unsigned long	 tick;
	struct trust_anchor *a;		/* sorted by (dnlen, dn) */
	size_t		 na;
	size_t		 nparsed;
	int		 whole;		/* tl holds the whole store already */
};

/* trust_anchor_cmp - order anchors by subject length, then bytes */
static int
trust_anchor_cmp(const void *x, const void *y)
{
	const struct trust_anchor *a = x, *b = y;

	if (a->dnlen != b->dnlen)
		return (a->dnlen < b->dnlen ? -1 : 1);
	return (memcmp(a->dn, b->dn, a->dnlen));
}

/* trust_dup - our own copy of a GnuTLS datum, which is then freed */
static unsigned char *
trust_dup(gnutls_datum_t *d, size_t *len)
{
	unsigned char	*p;

	p = xmalloc(d->size > 0 ? d->size : 1);
	memcpy(p, d->data, d->size);
	*len = d->size;
	gnutls_free(d->data);
	d->data = NULL;
	return (p);
}

/* trust_index - parse the PEM file once into the DER index; -1 with err */
static int
trust_index(struct trust *t, const char *path, char *err, size_t errsz)
{
	gnutls_datum_t	 file = { NULL, 0 }, dn, der;
	gnutls_x509_crt_t *crts = NULL;
	unsigned int	 n = 0, i;
	int		 ret;

	if ((ret = gnutls_load_file(path, &file)) < 0) {
		snprintf(err, errsz, "%s: cannot read: %s", path,
		    gnutls_strerror(ret));
		return (-1);
	}
	ret = gnutls_x509_crt_list_import2(&crts, &n, &file,
	    GNUTLS_X509_FMT_PEM, 0);
	gnutls_free(file.data);
	if (ret < 0 || n == 0) {
		snprintf(err, errsz, "%s: no certificate loaded%s%s", path,
		    ret < 0 ? ": " : "", ret < 0 ? gnutls_strerror(ret) : "");
		return (-1);
	}
	if (n > TRUST_MAX_ANCHORS) {
		snprintf(err, errsz, "%s: more than %d certificates", path,
		    TRUST_MAX_ANCHORS);
		ret = -1;
	} else {
		t->a = xcalloc(n, sizeof(*t->a));
		for (i = 0; i < n; i++) {
			if ((ret = gnutls_x509_crt_get_raw_dn(crts[i],
			    &dn)) < 0)
				break;
			if ((ret = gnutls_x509_crt_export2(crts[i],
			    GNUTLS_X509_FMT_DER, &der)) < 0) {
				gnutls_free(dn.data);
				break;
			}
			t->a[t->na].dn = trust_dup(&dn, &t->a[t->na].dnlen);
			t->a[t->na].der = trust_dup(&der, &t->a[t->na].derlen);
			t->na++;
		}
		if (ret < 0)
			snprintf(err, errsz, "%s: certificate %u: %s", path,
			    i + 1, gnutls_strerror(ret));
	}
	for (i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
#ifdef __GLIBC__
	/* the parsed store was several MiB of small blocks: give it back */
	malloc_trim(0);
#endif
	if (ret < 0)
		return (-1);
	qsort(t->a, t->na, sizeof(*t->a), trust_anchor_cmp);
	return (0);
}

struct trust *
trust_new(const char *ca_file, char *err, size_t errsz)
{
	struct trust	*t;
	int		 ret;

	if (errsz > 0)
		err[0] = '\0';
	t = xcalloc(1, sizeof(*t));
	if ((ret = gnutls_x509_trust_list_init(&t->tl, 0)) < 0) {
		snprintf(err, errsz, "gnutls: %s", gnutls_strerror(ret));
		free(t);
		return (NULL);
	}
	if (ca_file == NULL && access(TRUST_SYSTEM_BUNDLE, R_OK) != 0) {
		/* no bundle file: whatever GnuTLS's system store is, whole */
		ret = gnutls_x509_trust_list_add_system_trust(t->tl, 0, 0);
		if (ret <= 0) {
			snprintf(err, errsz, "system trust store: no "
			    "certificate loaded%s%s", ret < 0 ? ": " : "",
			    ret < 0 ? gnutls_strerror(ret) : "");
			trust_free(t);
			return (NULL);
		}
		t->whole = 1;
		t->na = t->nparsed = (size_t)ret;
		return (t);
	}
	if (trust_index(t, ca_file != NULL ? ca_file : TRUST_SYSTEM_BUNDLE,
	    err, errsz) == -1) {
		trust_free(t);
		return (NULL);
	}
	return (t);
}

void
trust_free(struct trust *t)
{
	size_t	 i;

	if (t == NULL)
		return;
	for (i = 0; i < TRUST_SEEN_SLOTS; i++)
		if (t->seen[i].leaf != NULL)
			gnutls_x509_crt_deinit(t->seen[i].leaf);
	/* the list owns (and frees) the certificates parsed into it */
	gnutls_x509_trust_list_deinit(t->tl, 1);
	for (i = 0; i < t->na && t->a != NULL; i++) {
		free(t->a[i].dn);
		free(t->a[i].der);
	}
	free(t->a);
	free(t);
}

size_t
trust_anchors(const struct trust *t)
{
	return (t->na);
}

size_t
trust_parsed(const struct trust *t)
{
	return (t->nparsed);
}

/* trust_need - parse the anchors named dn into the shared list */
static void
trust_need(struct trust *t, const gnutls_datum_t *dn)
{
	struct trust_anchor	 key, *hit;
	gnutls_x509_crt_t	 crt;
	gnutls_datum_t		 der;
	size_t			 lo, hi;

	if (t->whole || t->na == 0)
		return;
	memset(&key, 0, sizeof(key));
	key.dn = dn->data;
	key.dnlen = dn->size;
	hit = bsearch(&key, t->a, t->na, sizeof(*t->a), trust_anchor_cmp);
	if (hit == NULL)
		return;
	/* several anchors may share a name (re-keyed or cross-signed roots) */
	lo = hi = (size_t)(hit - t->a);
	while (lo > 0 && trust_anchor_cmp(&t->a[lo - 1], &key) == 0)
		lo--;
	while (hi + 1 < t->na && trust_anchor_cmp(&t->a[hi + 1], &key) == 0)
		hi++;
	for (; lo <= hi; lo++) {
		if (t->a[lo].der == NULL)
			continue;		/* parsed already */
		der.data = t->a[lo].der;
		der.size = (unsigned int)t->a[lo].derlen;
		if (gnutls_x509_crt_init(&crt) < 0)
			continue;
		if (gnutls_x509_crt_import(crt, &der, GNUTLS_X509_FMT_DER) <
		    0 || gnutls_x509_trust_list_add_cas(t->tl, &crt, 1, 0) !=
		    1) {
			gnutls_x509_crt_deinit(crt);
			continue;		/* as GnuTLS would skip it */
		}
		free(t->a[lo].der);
		t->a[lo].der = NULL;
		t->nparsed++;
	}
}

/* trust_chain_digest - SHA-256 over the chain (each DER with its length);
 * -1 if hashing failed */
static int
trust_chain_digest(const gnutls_datum_t *peers, unsigned int n,
    unsigned char *out)
{
	gnutls_hash_hd_t h;
	unsigned char	 len[4];
	unsigned int	 i;

	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		return (-1);
	for (i = 0; i < n; i++) {
		len[0] = (unsigned char)(peers[i].size >> 24);
		len[1] = (unsigned char)(peers[i].size >> 16);
		len[2] = (unsigned char)(peers[i].size >> 8);
		len[3] = (unsigned char)peers[i].size;
		if (gnutls_hash(h, len, sizeof(len)) < 0 ||
		    gnutls_hash(h, peers[i].data, peers[i].size) < 0) {
			gnutls_hash_deinit(h, NULL);
			return (-1);
		}
	}
	gnutls_hash_deinit(h, out);
	return (0);
}

/* trust_seen_find - the remembered, still valid entry for digest, or NULL */
static struct trust_seen *
trust_seen_find(struct trust *t, const unsigned char *digest, time_t now)
{
	size_t	 i;

	for (i = 0; i < TRUST_SEEN_SLOTS; i++)
		if (t->seen[i].leaf != NULL && now < t->seen[i].until &&
		    memcmp(t->seen[i].digest, digest, TRUST_DIGEST_LEN) == 0) {
			t->seen[i].used = ++t->tick;
			return (&t->seen[i]);
		}
	return (NULL);
}

/* trust_seen_add - remember a verified chain; takes ownership of leaf */
static void
trust_seen_add(struct trust *t, const unsigned char *digest,
    gnutls_x509_crt_t leaf, int must_staple, time_t until)
{
	struct trust_seen *e = &t->seen[0];
	size_t		 i;

	for (i = 0; i < TRUST_SEEN_SLOTS; i++) {
		if (t->seen[i].leaf == NULL) {
			e = &t->seen[i];
			break;
		}
		if (t->seen[i].used < e->used)
			e = &t->seen[i];
	}
	if (e->leaf != NULL)
		gnutls_x509_crt_deinit(e->leaf);
	memcpy(e->digest, digest, TRUST_DIGEST_LEN);
	e->leaf = leaf;
	e->must_staple = must_staple;
	e->until = until;
	e->used = ++t->tick;
}

/* trust_must_staple - does crt's TLS feature extension list
 * status_request (RFC 7633)?  An unreadable extension counts as yes */
static int
trust_must_staple(gnutls_x509_crt_t crt)
{
	gnutls_x509_tlsfeatures_t f;
	unsigned int	 i, feature;
	int		 ret, yes = 0;

	if (gnutls_x509_tlsfeatures_init(&f) < 0)
		return (1);
	ret = gnutls_x509_crt_get_tlsfeatures(crt, f, 0, NULL);
	if (ret == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) {
		gnutls_x509_tlsfeatures_deinit(f);
		return (0);
	}
	if (ret < 0)
		yes = 1;
	for (i = 0; !yes; i++) {
		ret = gnutls_x509_tlsfeatures_get(f, i, &feature);
		if (ret == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
		if (ret < 0 || feature == TRUST_TLSFEATURE_STATUS_REQUEST)
			yes = 1;
	}
	gnutls_x509_tlsfeatures_deinit(f);
	return (yes);
}

/* trust_stapled - did session s staple an OCSP response for any of its n
 * peer certificates? */
static int
trust_stapled(gnutls_session_t s, unsigned int n)
{
	gnutls_datum_t	 d;
	unsigned int	 i;

	for (i = 0; i < n; i++)
		if (gnutls_ocsp_status_request_get2(s, i, &d) == 0)
			return (1);
	return (0);
}

/*
 * trust_ocsp_one - the stapled response d for chain[i], checked as
 * gnutls_certificate_verify_peers() does: 0 if it may be used, -1 with a
 * reason.  An unsuccessful response status counts as no staple.
 */
static int
trust_ocsp_one(struct trust *t, gnutls_x509_crt_t *chain, unsigned int n,
    unsigned int i, const gnutls_datum_t *d, time_t now, int *none,
    char *why, size_t whysz)
{
	gnutls_ocsp_resp_t resp;
	unsigned int	 vst = 0, cst, k, idx;
	time_t		 vtime, ntime, rtime;
	int		 ret, rc = -1;

	*none = 0;
	if (gnutls_ocsp_resp_init(&resp) < 0) {
		snprintf(why, whysz, "stapled OCSP response: out of memory");
		return (-1);
	}
	if ((ret = gnutls_ocsp_resp_import(resp, d)) < 0) {
		snprintf(why, whysz, "stapled OCSP response cannot be parsed: "
		    "%s", gnutls_strerror(ret));
		goto out;
	}
	if (gnutls_ocsp_resp_get_status(resp) != GNUTLS_OCSP_RESP_SUCCESSFUL) {
		*none = 1;
		rc = 0;
		goto out;
	}
	for (idx = 0;; idx++) {
		ret = gnutls_ocsp_resp_check_crt(resp, idx, chain[i]);
		if (ret == 0 || ret == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
	}
	if (ret < 0) {
		snprintf(why, whysz, "stapled OCSP response is for another "
		    "certificate");
		goto out;
	}
	/* signed by a responder the store vouches for, else by the issuer
	 * (or a CA) the peer sent */
	ret = gnutls_ocsp_resp_verify(resp, t->tl, &vst, TRUST_VFLAGS);
	for (k = i + 1; (ret < 0 || vst != 0) && k < n; k++)
		ret = gnutls_ocsp_resp_verify_direct(resp, chain[k], &vst,
		    TRUST_VFLAGS);
	if (ret < 0 || vst != 0) {
		snprintf(why, whysz, "stapled OCSP response is not signed by "
		    "the issuer or a trusted responder");
		goto out;
	}
	if (gnutls_ocsp_resp_get_single(resp, idx, NULL, NULL, NULL, NULL,
	    &cst, &vtime, &ntime, &rtime, NULL) < 0) {
		snprintf(why, whysz, "stapled OCSP response has no status");
		goto out;
	}
	if (cst == GNUTLS_OCSP_CERT_REVOKED) {
		snprintf(why, whysz, "certificate %u is revoked (stapled OCSP "
		    "response)", i + 1);
		goto out;
	}
	if ((ntime == (time_t)-1 && now - vtime > TRUST_OCSP_MAX_AGE) ||
	    (ntime != (time_t)-1 && ntime < now)) {
		snprintf(why, whysz, "stapled OCSP response is out of date");
		goto out;
	}
	rc = 0;
out:
	gnutls_ocsp_resp_deinit(resp);
	return (rc);
}

/*
 * trust_ocsp - the session's staples for chain[0..n): 0, or -1 with a
 * reason (a revoked or unusable staple, or none where a certificate
 * demands one); *must_staple: whether any certificate demands one
 */
static int
trust_ocsp(struct trust *t, gnutls_session_t s, gnutls_x509_crt_t *chain,
    unsigned int n, int *must_staple, char *why, size_t whysz)
{
	gnutls_datum_t	 d;
	unsigned int	 i;
	time_t		 now = (time_t)clock_wall();
	int		 none, ms;

	*must_staple = 0;
	for (i = 0; i < n; i++) {
		ms = trust_must_staple(chain[i]);
		*must_staple |= ms;
		none = 1;
		if (gnutls_ocsp_status_request_get2(s, i, &d) == 0 &&
		    trust_ocsp_one(t, chain, n, i, &d, now, &none, why,
		    whysz) == -1)
			return (-1);
		if (none && ms) {
			snprintf(why, whysz, "certificate %u demands a stapled "
			    "OCSP response (must-staple) and none came", i + 1);
			return (-1);
		}
	}
	return (0);
}

enum trust_verdict
trust_verify_session(struct trust *t, gnutls_session_t s, const char *host,
    char *why, size_t whysz)
{
	gnutls_x509_crt_t	 chain[TRUST_MAX_CHAIN];
	const gnutls_datum_t	*peers;
	gnutls_datum_t		 dn, out;
	gnutls_typed_vdata_st	 vd[2];
	struct trust_seen	*seen;
	unsigned char		 digest[TRUST_DIGEST_LEN];
	unsigned int		 n = 0, i, nchain = 0, status = 0;
	int			 ret, have_digest, must_staple = 0;
	time_t			 now = (time_t)clock_wall(), until, exp;
	enum trust_verdict	 rc = TRUST_UNVERIFIABLE;

	if (whysz > 0)
		why[0] = '\0';
	if (gnutls_auth_get_type(s) != GNUTLS_CRD_CERTIFICATE ||
	    gnutls_certificate_type_get2(s, GNUTLS_CTYPE_PEERS) !=
	    GNUTLS_CRT_X509 ||
	    (peers = gnutls_certificate_get_peers(s, &n)) == NULL || n == 0) {
		snprintf(why, whysz, "no X.509 peer certificate to verify");
		return (TRUST_UNVERIFIABLE);
	}
	if (n > TRUST_MAX_CHAIN) {
		/* what gnutls_certificate_verify_peers() refuses outright */
		snprintf(why, whysz, "a chain of %u certificates, more than "
		    "%d", n, TRUST_MAX_CHAIN);
		return (TRUST_UNVERIFIABLE);
	}
	have_digest = trust_chain_digest(peers, n, digest) == 0;
	if (have_digest && !trust_stapled(s, n) &&
	    (seen = trust_seen_find(t, digest, now)) != NULL) {
		/* the chain verified lately (with TRUST_PROFILE) and nothing
		 * was stapled: only the name and must-staple are left, as
		 * gnutls_x509_trust_list_verify_crt2 checks the name (RFC
		 * 6125) */
		if (seen->must_staple) {
			snprintf(why, whysz, "the certificate demands a "
			    "stapled OCSP response (must-staple) and none "
			    "came");
			return (TRUST_REJECTED);
		}
		if (gnutls_x509_crt_check_hostname2(seen->leaf, host, 0))
			return (TRUST_OK);
		snprintf(why, whysz, "The certificate is NOT trusted. The "
		    "name in the certificate does not match the expected. ");
		return (TRUST_REJECTED);
	}
	for (nchain = 0; nchain < n; nchain++) {
		if (gnutls_x509_crt_init(&chain[nchain]) < 0)
			break;
		if (gnutls_x509_crt_import(chain[nchain], &peers[nchain],
		    GNUTLS_X509_FMT_DER) < 0) {
			gnutls_x509_crt_deinit(chain[nchain]);
			break;
		}
	}
	if (nchain < n) {
		snprintf(why, whysz, "peer certificate %u cannot be parsed",
		    nchain + 1);
		goto out;
	}
	for (i = 0; i < nchain; i++) {
		if (gnutls_x509_crt_get_raw_issuer_dn(chain[i], &dn) >= 0) {
			trust_need(t, &dn);
			gnutls_free(dn.data);
		}
		if (gnutls_x509_crt_get_raw_dn(chain[i], &dn) >= 0) {
			trust_need(t, &dn);
			gnutls_free(dn.data);
		}
	}
	/* RFC 8461 §3.3: PKIX (RFC 5280) with the host name (RFC 6125) */
	memset(vd, 0, sizeof(vd));
	vd[0].type = GNUTLS_DT_DNS_HOSTNAME;
	vd[0].data = (unsigned char *)(uintptr_t)host;
	vd[1].type = GNUTLS_DT_KEY_PURPOSE_OID;
	vd[1].data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_SERVER;
	rc = TRUST_REJECTED;
	ret = gnutls_x509_trust_list_verify_crt2(t->tl, chain, nchain, vd, 2,
	    TRUST_VFLAGS, &status, NULL);
	if (ret < 0) {
		snprintf(why, whysz, "verification failed: %s",
		    gnutls_strerror(ret));
		goto out;
	}
	if (status != 0) {
		if (gnutls_certificate_verification_status_print(status,
		    GNUTLS_CRT_X509, &out, 0) >= 0) {
			snprintf(why, whysz, "%s", (const char *)out.data);
			gnutls_free(out.data);
		} else
			snprintf(why, whysz, "certificate not trusted "
			    "(status 0x%x)", status);
		goto out;
	}
	/* RFC 6066 / RFC 7633: the staples, as GnuTLS checks them */
	if (trust_ocsp(t, s, chain, nchain, &must_staple, why, whysz) == -1)
		goto out;
	rc = TRUST_OK;
	if (have_digest) {
		until = now + TRUST_SEEN_SECS;
		for (i = 0; i < nchain; i++) {
			exp = gnutls_x509_crt_get_expiration_time(chain[i]);
			if (exp != (time_t)-1 && exp < until)
				until = exp;
		}
		if (until > now) {
			trust_seen_add(t, digest, chain[0], must_staple,
			    until);
			chain[0] = NULL;
		}
	}
out:
	for (i = 0; i < nchain; i++)
		if (chain[i] != NULL)
			gnutls_x509_crt_deinit(chain[i]);
	return (rc);
}
