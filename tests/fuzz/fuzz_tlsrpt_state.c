/*
 * fuzz_tlsrpt_state.c - libFuzzer target for the reporter's state decoders
 *
 * postsmtpsts-tlsrpt keeps three kinds of value in its LMDB store
 * (tlsrpt/store.h): a domain's counts of a day ("c/DAY/DOMAIN",
 * agg_decode), where a report stands ("r/DAY/DOMAIN", rstate_decode) and
 * the pending session lines ("sessions", session_decode).  A damaged,
 * foreign or older file hands the decoders any bytes.  The first input
 * byte picks the codec (modulo 3: agg, rstate, session), the rest is the
 * value.  Checked besides "no crash":
 *   - a value that does not decode leaves the structure empty, as each
 *     header promises (agg: no policy; rstate: as rstate_init(r, 0);
 *     session: no process, no mark, report_sender kept);
 *   - a decoded one keeps the limits (AGG_MAX_*, RUA_MAX_DESTS,
 *     SESSION_MAX_*), its enums in range and its strings NUL-terminated
 *     inside their arrays;
 *   - the round trip is stable: decode -> encode gives bytes that decode
 *     again and encode to the same bytes (the review's harness: 8.6 M
 *     runs without a defect, kept as this target).
 * Seed corpus: tests/fuzz/corpus/tlsrpt_state/ (values as the reporter
 * writes them: tests/fuzz/seeds.py, from the codecs' unit tests' shapes).
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "lib/buf.h"
#include "tlsrpt/agg.h"
#include "tlsrpt/rstate.h"
#include "tlsrpt/session.h"

#define FUZZ_STATE_MAX	(4 * 1024 * 1024)

#define FUZZ_NUL_IN(a)	(memchr((a), '\0', sizeof(a)) != NULL)

static struct buf b1, b2;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	buf_init(&b1, FUZZ_STATE_MAX);
	buf_init(&b2, FUZZ_STATE_MAX);
	return (0);
}

/* fuzz_same - b1 and b2 hold the same bytes */
static int
fuzz_same(void)
{
	return (b1.len == b2.len && (b1.len == 0 ||
	    memcmp(b1.data, b2.data, b1.len) == 0));
}

/* fuzz_agg_ok - the promises of a decoded agg */
static void
fuzz_agg_ok(const struct agg *a)
{
	size_t	 i, j;

	FUZZ_CHECK(a->npolicies <= AGG_MAX_POLICIES);
	for (i = 0; i < a->npolicies; i++) {
		const struct agg_policy *p = &a->policies[i];

		FUZZ_CHECK((unsigned)p->type <= TLSRPT_POLICY_MAX);
		FUZZ_CHECK(p->strings.len <= AGG_MAX_TEXT &&
		    p->mx.len <= AGG_MAX_TEXT);
		FUZZ_CHECK(p->ndetails <= AGG_MAX_DETAILS);
		FUZZ_CHECK(p->ndetails == 0 || p->details != NULL);
		FUZZ_CHECK(p->nhosts <= AGG_MAX_HOSTS);
		for (j = 0; j < p->ndetails; j++) {
			FUZZ_CHECK((unsigned)p->details[j].result <=
			    TLSRPT_RESULT_MAX);
			FUZZ_CHECK(FUZZ_NUL_IN(p->details[j].host));
			FUZZ_CHECK(FUZZ_NUL_IN(p->details[j].addr));
			FUZZ_CHECK(FUZZ_NUL_IN(p->details[j].reason));
		}
		for (j = 0; j < p->nhosts; j++)
			FUZZ_CHECK(FUZZ_NUL_IN(p->hosts[j]));
	}
}

static void
fuzz_agg(const uint8_t *p, size_t len)
{
	static struct agg a;
	static int init;

	if (!init) {
		agg_init(&a);
		init = 1;
	}
	if (agg_decode(p, len, &a) == -1) {
		FUZZ_CHECK(a.npolicies == 0);
		return;
	}
	fuzz_agg_ok(&a);
	buf_reset(&b1);
	agg_encode(&a, &b1);
	FUZZ_CHECK(!b1.error);
	FUZZ_CHECK(agg_decode(b1.data, b1.len, &a) == 0);
	fuzz_agg_ok(&a);
	buf_reset(&b2);
	agg_encode(&a, &b2);
	FUZZ_CHECK(!b2.error && fuzz_same());
}

/* fuzz_rstate_ok - the promises of a decoded rstate */
static void
fuzz_rstate_ok(const struct rstate *r)
{
	size_t	 i;

	FUZZ_CHECK((unsigned)r->status <= RSTATE_FAILED);
	FUZZ_CHECK(r->ndest <= RUA_MAX_DESTS);
	FUZZ_CHECK(FUZZ_NUL_IN(r->why));
	for (i = 0; i < r->ndest; i++) {
		FUZZ_CHECK((unsigned)r->dest[i].state <= RDEST_FAILED);
		FUZZ_CHECK(FUZZ_NUL_IN(r->dest[i].uri));
		FUZZ_CHECK(FUZZ_NUL_IN(r->dest[i].why));
	}
}

static void
fuzz_rstate(const uint8_t *p, size_t len)
{
	static struct rstate r, empty;

	if (rstate_decode(p, len, &r) == -1) {
		rstate_init(&empty, 0);
		FUZZ_CHECK(memcmp(&r, &empty, sizeof(r)) == 0);
		return;
	}
	fuzz_rstate_ok(&r);
	buf_reset(&b1);
	rstate_encode(&r, &b1);
	FUZZ_CHECK(!b1.error);
	FUZZ_CHECK(rstate_decode(b1.data, b1.len, &r) == 0);
	fuzz_rstate_ok(&r);
	buf_reset(&b2);
	rstate_encode(&r, &b2);
	FUZZ_CHECK(!b2.error && fuzz_same());
}

/* fuzz_session_ok - the promises of a decoded session table */
static void
fuzz_session_ok(const struct session_table *t)
{
	size_t	 i, j;

	FUZZ_CHECK(strcmp(t->report_sender, "tlsrpt-noreply@example.com") ==
	    0);
	FUZZ_CHECK(t->nprocs <= SESSION_MAX_PROCS);
	FUZZ_CHECK(t->nmarks <= SESSION_MAX_MARKS);
	for (i = 0; i < t->nprocs; i++) {
		const struct session_proc *pr = &t->procs[i];

		FUZZ_CHECK(pr->npeers <= SESSION_MAX_PEERS);
		FUZZ_CHECK(FUZZ_NUL_IN(pr->text_qid));
		FUZZ_CHECK(FUZZ_NUL_IN(pr->text_addr));
		for (j = 0; j < pr->npeers; j++) {
			const struct session_peer *pe = &pr->peers[j];

			FUZZ_CHECK(FUZZ_NUL_IN(pe->host));
			FUZZ_CHECK(FUZZ_NUL_IN(pe->addr));
			FUZZ_CHECK(FUZZ_NUL_IN(pe->reason));
			FUZZ_CHECK((unsigned)pe->trust <=
			    MAILLOG_TRUST_VERIFIED);
			FUZZ_CHECK((unsigned)pe->result <= TLSRPT_RESULT_MAX);
		}
	}
	for (i = 0; i < t->nmarks; i++)
		FUZZ_CHECK(FUZZ_NUL_IN(t->marks[i].qid));
}

static void
fuzz_session(const uint8_t *p, size_t len)
{
	static struct session_table t;

	session_init(&t, "tlsrpt-noreply@example.com");
	if (session_decode(p, len, &t) == -1) {
		FUZZ_CHECK(t.nprocs == 0 && t.nmarks == 0);
		FUZZ_CHECK(strcmp(t.report_sender,
		    "tlsrpt-noreply@example.com") == 0);
		return;
	}
	fuzz_session_ok(&t);
	buf_reset(&b1);
	session_encode(&t, &b1);
	FUZZ_CHECK(!b1.error);
	FUZZ_CHECK(session_decode(b1.data, b1.len, &t) == 0);
	fuzz_session_ok(&t);
	buf_reset(&b2);
	session_encode(&t, &b2);
	FUZZ_CHECK(!b2.error && fuzz_same());
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return (0);
	switch (data[0] % 3) {
	case 0:
		fuzz_agg(data + 1, size - 1);
		break;
	case 1:
		fuzz_rstate(data + 1, size - 1);
		break;
	default:
		fuzz_session(data + 1, size - 1);
		break;
	}
	return (0);
}
