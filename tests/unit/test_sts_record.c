/*
 * test_sts_record.c - unit tests for the MTA-STS TXT record (RFC 8461 §3.1)
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy/sts_record.h"

#define ID32	"abcdefghijklmnopqrstuvwxyz012345"
#define NAME32	"abcdefghijklmnopqrstuvwxyz_-.012"

struct join_case {
	const char	*name;
	const char	*rdata;
	size_t		 len;
	size_t		 outsz;		/* 0: 512 */
	const char	*want;		/* NULL: -1 expected */
	size_t		 wantlen;
};

static const struct join_case join_cases[] = {
	{ "join: one string", "\x0fv=STSv1; id=a1;", 16, 0,
	    "v=STSv1; id=a1;", 15 },
	{ "join: two strings, no space added",
	    "\x08v=STSv1;" "\x07 id=a1;", 17, 0, "v=STSv1; id=a1;", 15 },
	{ "join: split inside a token", "\x05v=STS" "\x09v1; id=a1", 16, 0,
	    "v=STSv1; id=a1", 14 },
	{ "join: empty string among others", "\x00" "\x03" "abc", 5, 0,
	    "abc", 3 },
	{ "join: one empty string", "\x00", 1, 0, "", 0 },
	{ "join: NUL byte kept as data", "\x03" "a\0b", 4, 0, "a\0b", 3 },
	{ "join: exactly fits with its NUL", "\x03" "abc", 4, 4, "abc", 3 },
	{ "join: no RDATA", "", 0, 0, NULL, 0 },
	{ "join: length octet past the end", "\x05" "abc", 4, 0, NULL, 0 },
	{ "join: dangling length octet", "\x03" "abc" "\x02", 5, 0, NULL, 0 },
	{ "join: lone length octet", "\x01", 1, 0, NULL, 0 },
	{ "join: no room for the NUL", "\x03" "abc", 4, 3, NULL, 0 },
	{ "join: second string does not fit", "\x02" "ab" "\x02" "cd", 6, 4,
	    NULL, 0 },
};

struct parse_case {
	const char		*name;
	const char		*text;
	size_t			 len;	/* 0: strlen(text) */
	enum sts_record_status	 want;
	const char		*id;
};

static const struct parse_case parse_cases[] = {
	{ "parse: RFC example", "v=STSv1; id=20160831085700Z;", 0,
	    STS_RECORD_OK, "20160831085700Z" },
	{ "parse: no trailing delimiter", "v=STSv1; id=20160831085700Z", 0,
	    STS_RECORD_OK, "20160831085700Z" },
	{ "parse: no whitespace", "v=STSv1;id=abc;", 0, STS_RECORD_OK,
	    "abc" },
	{ "parse: tabs around delimiters", "v=STSv1;\tid=abc\t;\t", 0,
	    STS_RECORD_OK, "abc" },
	{ "parse: many spaces around delimiters", "v=STSv1;   id=abc   ;   ",
	    0, STS_RECORD_OK, "abc" },
	{ "parse: space before a later delimiter", "v=STSv1; id=abc ; x=1", 0,
	    STS_RECORD_OK, "abc" },
	{ "parse: extension before id", "v=STSv1; ext=foo; id=abc", 0,
	    STS_RECORD_OK, "abc" },
	{ "parse: extension after id", "v=STSv1; id=abc; e_1.a-b=x!y:z", 0,
	    STS_RECORD_OK, "abc" },
	{ "parse: 32-byte extension name", "v=STSv1; id=abc; " NAME32 "=1", 0,
	    STS_RECORD_OK, "abc" },
	{ "parse: uppercase ID is an extension", "v=STSv1; ID=abc; id=xyz", 0,
	    STS_RECORD_OK, "xyz" },
	{ "parse: 32-byte id", "v=STSv1; id=" ID32, 0, STS_RECORD_OK, ID32 },
	{ "parse: 1-byte id", "v=STSv1; id=Z", 0, STS_RECORD_OK, "Z" },
	{ "parse: v=STSv10 is not STS", "v=STSv10; id=abc", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: space before first semicolon is not STS",
	    "v=STSv1 ; id=abc", 0, STS_RECORD_NOT_STS, NULL },
	{ "parse: leading space is not STS", " v=STSv1; id=abc", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: lowercase version is not STS", "v=stsv1; id=abc", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: version without semicolon is not STS", "v=STSv1", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: STSv2 is not STS", "v=STSv2; id=abc", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: SPF record is not STS", "v=spf1 -all", 0,
	    STS_RECORD_NOT_STS, NULL },
	{ "parse: empty record is not STS", "", 0, STS_RECORD_NOT_STS,
	    NULL },
	{ "parse: no field after version", "v=STSv1;", 0, STS_RECORD_INVALID,
	    NULL },
	{ "parse: only whitespace after version", "v=STSv1;  ", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: id missing", "v=STSv1; ext=1;", 0, STS_RECORD_INVALID,
	    NULL },
	{ "parse: 33-byte id", "v=STSv1; id=" ID32 "6", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: id with hyphen", "v=STSv1; id=abc-def", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: id with dot", "v=STSv1; id=abc.def", 0, STS_RECORD_INVALID,
	    NULL },
	{ "parse: id with underscore", "v=STSv1; id=abc_def", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: empty id", "v=STSv1; id=;", 0, STS_RECORD_INVALID, NULL },
	{ "parse: space inside id", "v=STSv1; id=abc def", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: two ids", "v=STSv1; id=abc; id=def", 0, STS_RECORD_INVALID,
	    NULL },
	{ "parse: empty field between delimiters", "v=STSv1; id=abc;; x=1", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: trailing whitespace without delimiter", "v=STSv1; id=abc ",
	    0, STS_RECORD_INVALID, NULL },
	{ "parse: extension without value", "v=STSv1; id=abc; ext=", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: extension without equals", "v=STSv1; id=abc; ext", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: equals inside extension value", "v=STSv1; id=abc; e=a=b", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: 33-byte extension name",
	    "v=STSv1; id=abc; " NAME32 "x=1", 0, STS_RECORD_INVALID, NULL },
	{ "parse: extension name starting with underscore",
	    "v=STSv1; id=abc; _e=1", 0, STS_RECORD_INVALID, NULL },
	{ "parse: non-ASCII extension value",
	    "v=STSv1; id=abc; e=caf\xc3\xa9", 0, STS_RECORD_INVALID, NULL },
	{ "parse: NUL inside id", "v=STSv1; id=ab\0c", 16,
	    STS_RECORD_INVALID, NULL },
	{ "parse: CRLF after the record", "v=STSv1; id=abc\r\n", 0,
	    STS_RECORD_INVALID, NULL },
	{ "parse: length excludes a bad tail", "v=STSv1; id=abc!!", 15,
	    STS_RECORD_OK, "abc" },
};

struct select_case {
	const char		*name;
	const char		*txt[4];
	size_t			 n;
	enum sts_record_status	 want;
	const char		*id;
};

static const struct select_case select_cases[] = {
	{ "select: no TXT records", { NULL }, 0, STS_RECORD_NOT_STS, NULL },
	{ "select: only a non-STS record", { "v=spf1 -all" }, 1,
	    STS_RECORD_NOT_STS, NULL },
	{ "select: one STS record among others",
	    { "hello", "v=STSv1; id=abc", "v=spf1 -all" }, 3, STS_RECORD_OK,
	    "abc" },
	{ "select: two valid STS records",
	    { "v=STSv1; id=abc", "v=STSv1; id=def" }, 2, STS_RECORD_MULTIPLE,
	    NULL },
	{ "select: two identical STS records",
	    { "v=STSv1; id=abc", "v=STSv1; id=abc" }, 2, STS_RECORD_MULTIPLE,
	    NULL },
	{ "select: one valid and one invalid STS record",
	    { "v=STSv1; id=abc", "v=STSv1; id=a-b" }, 2, STS_RECORD_MULTIPLE,
	    NULL },
	{ "select: the only STS record is invalid",
	    { "v=STSv1; id=a-b", "x" }, 2, STS_RECORD_INVALID, NULL },
	{ "select: v=STSv10 record is discarded",
	    { "v=STSv10; id=zzz", "v=STSv1; id=abc" }, 2, STS_RECORD_OK,
	    "abc" },
	{ "select: space before semicolon is discarded",
	    { "v=STSv1 ; id=zzz", "v=STSv1; id=abc" }, 2, STS_RECORD_OK,
	    "abc" },
};

static void
test_join(void **state)
{
	const struct join_case *c = *state;
	char	 out[512];
	size_t	 outlen, outsz;

	outsz = c->outsz ? c->outsz : sizeof(out);
	if (c->want == NULL) {
		assert_int_equal(sts_record_txt_join(
		    (const unsigned char *)c->rdata, c->len, out, outsz,
		    &outlen), -1);
		return;
	}
	assert_int_equal(sts_record_txt_join((const unsigned char *)c->rdata,
	    c->len, out, outsz, &outlen), 0);
	assert_int_equal(outlen, c->wantlen);
	assert_memory_equal(out, c->want, c->wantlen);
	assert_int_equal(out[outlen], '\0');
}

static void
test_parse(void **state)
{
	const struct parse_case *c = *state;
	struct sts_record rec;
	size_t	 len;

	len = c->len ? c->len : strlen(c->text);
	assert_int_equal(sts_record_parse(c->text, len, &rec), c->want);
	if (c->want == STS_RECORD_OK) {
		assert_string_equal(rec.id, c->id);
		assert_int_equal(rec.idlen, strlen(c->id));
	}
}

static void
test_select(void **state)
{
	const struct select_case *c = *state;
	struct sts_record_txt txts[4];
	struct sts_record rec;
	size_t	 i;

	for (i = 0; i < c->n; i++) {
		txts[i].p = c->txt[i];
		txts[i].len = strlen(c->txt[i]);
	}
	assert_int_equal(sts_record_select(txts, c->n, &rec), c->want);
	if (c->want == STS_RECORD_OK)
		assert_string_equal(rec.id, c->id);
}

static void
join_255_byte_strings(void **state)
{
	unsigned char	 rdata[2 * 256];
	char		 out[600];
	size_t		 outlen;

	(void)state;
	rdata[0] = 255;
	memset(rdata + 1, 'a', 255);
	rdata[256] = 255;
	memset(rdata + 257, 'b', 255);
	assert_int_equal(sts_record_txt_join(rdata, sizeof(rdata), out,
	    sizeof(out), &outlen), 0);
	assert_int_equal(outlen, 510);
	assert_int_equal(out[254], 'a');
	assert_int_equal(out[255], 'b');
}

static void
select_too_many_records(void **state)
{
	struct sts_record_txt txts[STS_RECORD_MAX_TXT + 1];
	struct sts_record rec;
	size_t	 i;

	(void)state;
	for (i = 0; i < STS_RECORD_MAX_TXT + 1; i++) {
		txts[i].p = "x";
		txts[i].len = 1;
	}
	txts[0].p = "v=STSv1; id=abc";
	txts[0].len = strlen(txts[0].p);
	assert_int_equal(sts_record_select(txts, STS_RECORD_MAX_TXT, &rec),
	    STS_RECORD_OK);
	assert_int_equal(sts_record_select(txts, STS_RECORD_MAX_TXT + 1,
	    &rec), STS_RECORD_MULTIPLE);
}

static void
status_names(void **state)
{
	(void)state;
	assert_string_equal(sts_record_status_name(STS_RECORD_OK), "ok");
	assert_string_equal(sts_record_status_name(STS_RECORD_NOT_STS),
	    "not-sts");
	assert_string_equal(sts_record_status_name(STS_RECORD_INVALID),
	    "invalid");
	assert_string_equal(sts_record_status_name(STS_RECORD_MULTIPLE),
	    "multiple");
}

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	static const struct CMUnitTest extra[] = {
		cmocka_unit_test(join_255_byte_strings),
		cmocka_unit_test(select_too_many_records),
		cmocka_unit_test(status_names),
	};
	struct CMUnitTest	*t;
	size_t			 n, i;
	int			 rc;

	t = calloc(NCASES(join_cases) + NCASES(parse_cases) +
	    NCASES(select_cases) + NCASES(extra), sizeof(*t));
	if (t == NULL)
		return (1);
	n = 0;
	for (i = 0; i < NCASES(join_cases); i++)
		t[n++] = (struct CMUnitTest){ join_cases[i].name, test_join,
		    NULL, NULL, (void *)&join_cases[i] };
	for (i = 0; i < NCASES(parse_cases); i++)
		t[n++] = (struct CMUnitTest){ parse_cases[i].name, test_parse,
		    NULL, NULL, (void *)&parse_cases[i] };
	for (i = 0; i < NCASES(select_cases); i++)
		t[n++] = (struct CMUnitTest){ select_cases[i].name,
		    test_select, NULL, NULL, (void *)&select_cases[i] };
	for (i = 0; i < NCASES(extra); i++)
		t[n++] = extra[i];
	rc = _cmocka_run_group_tests("sts_record", t, n, NULL, NULL);
	free(t);
	return (rc);
}
