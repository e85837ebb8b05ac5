/*
 * test_check_parse.c - unit tests for postsmtpsts-check's pure parser:
 * SMTP replies and EHLO keywords (RFC 5321 §4.2, RFC 3207); MX and TLSA
 * RDATA are dane.c's (tests/unit/test_dane.c)
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

int
main(void)
{
	struct CMUnitTest	*t;
	size_t			 n = 0, i;
	int			 rc;

	t = calloc(NCASES(reply_cases) + 2, sizeof(*t));
	if (t == NULL)
		return (1);
	for (i = 0; i < NCASES(reply_cases); i++)
		t[n++] = (struct CMUnitTest){ reply_cases[i].name, test_reply,
		    NULL, NULL, (void *)&reply_cases[i] };
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_reply_long_line);
	t[n++] = (struct CMUnitTest)cmocka_unit_test(test_reply_many_lines);
	rc = _cmocka_run_group_tests("check_parse", t, n, NULL, NULL);
	free(t);
	return (rc);
}
