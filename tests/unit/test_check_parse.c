/*
 * test_check_parse.c - unit tests for postsmtpsts-check's pure parsers:
 * SMTP replies and EHLO keywords (RFC 5321 §4.2, RFC 3207), MX RDATA (RFC
 * 1035 §3.3.9) and TLSA usability (RFC 6698 §2.1, RFC 7672 §3.1)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/check_parse.h"

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

struct reply_case {
	const char	*name;
	const char	*in;
	enum check_parse_status want;
	int		 code;
	size_t		 nlines;
	int		 starttls;
	size_t		 used;		/* COMPLETE: bytes of the reply */
	const char	*first;		/* COMPLETE: the first line */
};

static const struct reply_case reply_cases[] = {
	{ "reply: one-line greeting", "220 mx.example ESMTP\r\n",
	    CHECK_PARSE_COMPLETE, 220, 1, 0, 22, "220 mx.example ESMTP" },
	{ "reply: bare LF accepted", "220 mx\n", CHECK_PARSE_COMPLETE, 220,
	    1, 0, 7, "220 mx" },
	{ "reply: code alone", "250\r\n", CHECK_PARSE_COMPLETE, 250, 1, 0, 5,
	    "250" },
	{ "reply: multi-line greeting", "220-mx.example\r\n220-more\r\n"
	    "220 done\r\n", CHECK_PARSE_COMPLETE, 220, 3, 0, 36,
	    "220-mx.example" },
	{ "ehlo: STARTTLS offered", "250-mx.example\r\n250-PIPELINING\r\n"
	    "250-STARTTLS\r\n250 8BITMIME\r\n", CHECK_PARSE_COMPLETE, 250, 4,
	    1, 60, "250-mx.example" },
	{ "ehlo: STARTTLS as the last line, lower case",
	    "250-mx\r\n250 starttls\r\n", CHECK_PARSE_COMPLETE, 250, 2, 1, 22,
	    "250-mx" },
	{ "ehlo: no STARTTLS", "250-mx\r\n250-PIPELINING\r\n250 SIZE 1000\r\n",
	    CHECK_PARSE_COMPLETE, 250, 3, 0, 39, "250-mx" },
	{ "ehlo: STARTTLS in the greeting line does not count",
	    "250-STARTTLS\r\n250 SIZE\r\n", CHECK_PARSE_COMPLETE, 250, 2, 0,
	    24, "250-STARTTLS" },
	{ "ehlo: STARTTLSX is another keyword", "250-mx\r\n250 STARTTLSX\r\n",
	    CHECK_PARSE_COMPLETE, 250, 2, 0, 23, "250-mx" },
	{ "ehlo: STARTTLS with a parameter", "250-mx\r\n250 STARTTLS x\r\n",
	    CHECK_PARSE_COMPLETE, 250, 2, 1, 24, "250-mx" },
	{ "reply: bytes after the reply are not consumed",
	    "220 go ahead\r\n\x16\x03\x01", CHECK_PARSE_COMPLETE, 220, 1, 0,
	    14, "220 go ahead" },
	{ "reply: incomplete line", "220 mx.exa", CHECK_PARSE_INCOMPLETE, 0, 0, 0, 0, NULL },
	{ "reply: incomplete multi-line", "250-mx\r\n250-PIPE",
	    CHECK_PARSE_INCOMPLETE, 0, 0, 0, 0, NULL },
	{ "reply: empty input", "", CHECK_PARSE_INCOMPLETE, 0, 0, 0, 0, NULL },
	{ "reply: not digits", "hello\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: short line", "22\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: wrong separator", "220:mx\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: code 000 out of range", "000 x\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: code 600 out of range", "600 x\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: mixed codes", "250-mx\r\n251 x\r\n", CHECK_PARSE_BAD, 0, 0, 0, 0, NULL },
	{ "reply: NUL in the text is just a byte", "220 a\0b\r\n",
	    CHECK_PARSE_COMPLETE, 220, 1, 0, 9, NULL },
};

/* test_reply - one reply_cases row; in may hold a NUL: its length is the
 * string length except for the NUL case */
static void
test_reply(void **state)
{
	const struct reply_case *c = *state;
	struct check_parse_reply r;
	size_t	 len = strlen(c->in);

	if (c->first == NULL && c->want == CHECK_PARSE_COMPLETE)
		len = c->used;	/* the NUL case */
	assert_int_equal(check_parse_reply(c->in, len, &r), c->want);
	if (c->want == CHECK_PARSE_BAD)
		assert_non_null(r.why);
	if (c->want != CHECK_PARSE_COMPLETE)
		return;
	assert_int_equal(r.code, c->code);
	assert_int_equal(r.nlines, c->nlines);
	assert_int_equal(r.starttls, c->starttls);
	assert_int_equal(r.used, c->used);
	if (c->first != NULL) {
		assert_int_equal(r.first_len, strlen(c->first));
		assert_memory_equal(c->in + r.first_off, c->first,
		    r.first_len);
	}
}

/* a line of CHECK_PARSE_LINE_MAX bytes without LF is refused, one byte
 * less is still incomplete */
static void
test_reply_long_line(void **state)
{
	struct check_parse_reply r;
	char	*p;

	(void)state;
	p = malloc(CHECK_PARSE_LINE_MAX + 2);
	assert_non_null(p);
	memset(p, 'x', CHECK_PARSE_LINE_MAX + 2);
	memcpy(p, "250 ", 4);
	assert_int_equal(check_parse_reply(p, CHECK_PARSE_LINE_MAX - 1, &r),
	    CHECK_PARSE_INCOMPLETE);
	assert_int_equal(check_parse_reply(p, CHECK_PARSE_LINE_MAX, &r),
	    CHECK_PARSE_BAD);
	/* a complete line just over the limit */
	p[CHECK_PARSE_LINE_MAX] = '\n';
	assert_int_equal(check_parse_reply(p, CHECK_PARSE_LINE_MAX + 1, &r),
	    CHECK_PARSE_BAD);
	/* and one exactly at it */
	p[CHECK_PARSE_LINE_MAX - 1] = '\n';
	assert_int_equal(check_parse_reply(p, CHECK_PARSE_LINE_MAX, &r),
	    CHECK_PARSE_COMPLETE);
	free(p);
}

/* more than CHECK_PARSE_MAX_LINES continuation lines are refused */
static void
test_reply_many_lines(void **state)
{
	struct check_parse_reply r;
	char	 buf[(CHECK_PARSE_MAX_LINES + 2) * 6];
	size_t	 i, len = 0;

	(void)state;
	for (i = 0; i < CHECK_PARSE_MAX_LINES; i++) {
		memcpy(buf + len, "250-x\n", 6);
		len += 6;
	}
	assert_int_equal(check_parse_reply(buf, len, &r),
	    CHECK_PARSE_INCOMPLETE);
	memcpy(buf + len, "250 x\n", 6);
	assert_int_equal(check_parse_reply(buf, len + 6, &r),
	    CHECK_PARSE_BAD);
	/* the same reply one line shorter is fine */
	memcpy(buf + len - 6, "250 x\n", 6);
	assert_int_equal(check_parse_reply(buf, len, &r),
	    CHECK_PARSE_COMPLETE);
	assert_int_equal(r.nlines, CHECK_PARSE_MAX_LINES);
}

struct mx_case {
	const char	*name;
	const char	*rdata;
	size_t		 len;
	int		 ret;
	unsigned	 pref;		/* ret 0 */
	const char	*host;		/* ret 0 */
};

static const struct mx_case mx_cases[] = {
	{ "mx: two labels", "\x00\x0a\x02mx\x07""example\x00", 14, 0, 10,
	    "mx.example" },
	{ "mx: upper case folded", "\x01\x00\x02MX\x03""COM\x00", 10, 0, 256,
	    "mx.com" },
	{ "mx: null MX is the root", "\x00\x00\x00", 3, 0, 0, "" },
	{ "mx: underscore and hyphen allowed", "\x00\x01\x04_a-b\x00", 8, 0,
	    1, "_a-b" },
	{ "mx: truncated name", "\x00\x0a\x05mx", 5, -1, 0, NULL },
	{ "mx: label longer than the rest", "\x00\x0a\x09mx\x00", 6, -1, 0, NULL },
	{ "mx: compression pointer refused", "\x00\x0a\xc0\x0c", 4, -1, 0, NULL },
	{ "mx: trailing garbage", "\x00\x0a\x02mx\x00x", 7, -1, 0, NULL },
	{ "mx: space in a label", "\x00\x0a\x03m x\x00", 7, -1, 0, NULL },
	{ "mx: dot in a label", "\x00\x0a\x03m.x\x00", 7, -1, 0, NULL },
	{ "mx: too short", "\x00\x0a", 2, -1, 0, NULL },
};

/* test_mx - one mx_cases row */
static void
test_mx(void **state)
{
	const struct mx_case *c = *state;
	char	 name[DOMAIN_BUFSZ];
	unsigned pref = 99999;

	assert_int_equal(check_parse_mx((const unsigned char *)c->rdata,
	    c->len, &pref, name), c->ret);
	if (c->ret == 0) {
		assert_int_equal(pref, c->pref);
		assert_string_equal(name, c->host);
	}
}

/* a name of more than DOMAIN_MAX_LEN characters is refused */
static void
test_mx_too_long(void **state)
{
	unsigned char rd[2 + 5 * 64 + 1];
	char	 name[DOMAIN_BUFSZ];
	unsigned pref;
	size_t	 i, pos = 2;

	(void)state;
	rd[0] = 0;
	rd[1] = 10;
	for (i = 0; i < 5; i++) {	/* 5 labels of 50: 254 characters */
		rd[pos++] = 50;
		memset(rd + pos, 'a', 50);
		pos += 50;
	}
	rd[pos++] = 0;
	assert_int_equal(check_parse_mx(rd, pos, &pref, name), -1);
}

struct tlsa_case {
	const char	*name;
	unsigned char	 usage, selector, mtype;
	size_t		 dlen;		/* association data length */
	enum check_parse_tlsa want;
};

static const struct tlsa_case tlsa_cases[] = {
	{ "tlsa: 3 1 1 usable", 3, 1, 1, 32, CHECK_PARSE_TLSA_USABLE },
	{ "tlsa: 2 0 1 usable", 2, 0, 1, 32, CHECK_PARSE_TLSA_USABLE },
	{ "tlsa: 3 0 0 full certificate usable", 3, 0, 0, 300,
	    CHECK_PARSE_TLSA_USABLE },
	{ "tlsa: 3 1 2 SHA-512 usable", 3, 1, 2, 64,
	    CHECK_PARSE_TLSA_USABLE },
	{ "tlsa: PKIX-TA(0) unusable for SMTP", 0, 0, 1, 32,
	    CHECK_PARSE_TLSA_UNUSABLE },
	{ "tlsa: PKIX-EE(1) unusable for SMTP", 1, 1, 1, 32,
	    CHECK_PARSE_TLSA_UNUSABLE },
	{ "tlsa: unknown usage 4", 4, 1, 1, 32, CHECK_PARSE_TLSA_UNUSABLE },
	{ "tlsa: unknown selector 2", 3, 2, 1, 32,
	    CHECK_PARSE_TLSA_UNUSABLE },
	{ "tlsa: unknown matching type 3", 3, 1, 3, 32,
	    CHECK_PARSE_TLSA_UNUSABLE },
	{ "tlsa: SHA-256 of 31 bytes malformed", 3, 1, 1, 31,
	    CHECK_PARSE_TLSA_MALFORMED },
	{ "tlsa: SHA-512 of 32 bytes malformed", 3, 1, 2, 32,
	    CHECK_PARSE_TLSA_MALFORMED },
	{ "tlsa: no association data malformed", 3, 1, 0, 0,
	    CHECK_PARSE_TLSA_MALFORMED },
};

/* test_tlsa - one tlsa_cases row */
static void
test_tlsa(void **state)
{
	const struct tlsa_case *c = *state;
	unsigned char rd[3 + 300];
	unsigned u, s, m;

	rd[0] = c->usage;
	rd[1] = c->selector;
	rd[2] = c->mtype;
	memset(rd + 3, 0xab, c->dlen);
	assert_int_equal(check_parse_tlsa(rd, 3 + c->dlen, &u, &s, &m),
	    c->want);
	assert_int_equal(u, c->usage);
	assert_int_equal(s, c->selector);
	assert_int_equal(m, c->mtype);
	assert_non_null(check_parse_tlsa_name(c->want));
}

/* fewer than 3 bytes: malformed, nothing read beyond len */
static void
test_tlsa_short(void **state)
{
	unsigned char rd[2] = { 3, 1 };
	unsigned u, s, m;

	(void)state;
	assert_int_equal(check_parse_tlsa(rd, 2, &u, &s, &m),
	    CHECK_PARSE_TLSA_MALFORMED);
}

int
main(void)
{
	struct CMUnitTest	*t;
	size_t			 n = 0, i;
	int			 rc;

	t = calloc(NCASES(reply_cases) + NCASES(mx_cases) +
	    NCASES(tlsa_cases) + 5, sizeof(*t));
	if (t == NULL)
		return (1);
	for (i = 0; i < NCASES(reply_cases); i++)
		t[n++] = (struct CMUnitTest){ reply_cases[i].name, test_reply,
		    NULL, NULL, (void *)&reply_cases[i] };
	for (i = 0; i < NCASES(mx_cases); i++)
		t[n++] = (struct CMUnitTest){ mx_cases[i].name, test_mx,
		    NULL, NULL, (void *)&mx_cases[i] };
	for (i = 0; i < NCASES(tlsa_cases); i++)
		t[n++] = (struct CMUnitTest){ tlsa_cases[i].name, test_tlsa,
		    NULL, NULL, (void *)&tlsa_cases[i] };
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_reply_long_line);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_reply_many_lines);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_mx_too_long);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_tlsa_short);
	rc = _cmocka_run_group_tests("check_parse", t, n, NULL, NULL);
	free(t);
	return (rc);
}
