/*
 * scn_text.c - the scenario language's words, and what a line that goes
 * wrong prints
 *
 * A line is split into words (scn_tokens: text in "..." keeps its blanks,
 * # ends the line); a word is read as a number, a duration ("250ms" ..
 * "3d"), a time ("@D", "now+D", Unix seconds), a condition "FIELD OP
 * VALUE" or a count with an operator (">=100"): tests/scenario/README.md,
 * "The language".  A word that does not read stops the file (scn_bail:
 * TAP "Bail out!", exit status 2); a failed expectation is scn_fail's
 * "# FILE:LINE: ...", which fails its scenario and lets it carry on.
 * Calls none of the runner's other files (scenario_int.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "scenario_int.h"

/* ---- reporting ---- */

void
scn_fail(const char *fmt, ...)
{
	va_list	 ap;

	printf("# %s:%d: ", S.file, S.line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	S.failed = 1;
}

void
scn_bail(const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("Bail out! %s:%d: %s\n", S.file, S.line, msg);
	fflush(stdout);
	exit(2);
}

/* ---- parsing helpers ---- */

int
scn_tokens(char *line, char **tok, int max)
{
	char	*p = line, *o;
	int	 n = 0, quoted;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || *p == '#')
			return (n);
		if (n >= max)
			scn_bail("more than %d words", max);
		tok[n++] = o = p;
		quoted = 0;
		while (*p != '\0' && (quoted || (*p != ' ' && *p != '\t' &&
		    *p != '\r' && *p != '\n'))) {
			if (*p == '"') {
				quoted = !quoted;
				p++;
			} else if (quoted && *p == '\\' && p[1] != '\0') {
				p++;
				*o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
				p++;
			} else
				*o++ = *p++;
		}
		if (quoted)
			scn_bail("unterminated string");
		if (*p != '\0')
			p++;
		*o = '\0';
	}
}

long long
scn_num(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		scn_bail("not a number: \"%s\"", s);
	return (v);
}

int64_t
scn_duration(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || v < 0)
		scn_bail("not a duration: \"%s\"", s);
	if (strcmp(end, "ms") == 0)
		return (v);
	if (*end == '\0' || strcmp(end, "s") == 0)
		return (v * 1000);
	if (strcmp(end, "m") == 0)
		return (v * 60000);
	if (strcmp(end, "h") == 0)
		return (v * 3600000);
	if (strcmp(end, "d") == 0)
		return (v * 86400000);
	scn_bail("not a duration: \"%s\"", s);
}

int64_t
scn_time(const char *s)
{
	if (s[0] == '@')
		return (SCN_T0 + scn_duration(s + 1) / 1000);
	if (strncmp(s, "now", 3) == 0) {
		if (s[3] == '\0')
			return (clock_wall());
		if (s[3] == '+')
			return (clock_wall() + scn_duration(s + 4) / 1000);
		if (s[3] == '-')
			return (clock_wall() - scn_duration(s + 4) / 1000);
	}
	return (scn_num(s));
}

const char *const scn_op_names[] = { "=", "!=", "<", "<=", ">",
	">=" };

char *
scn_split(char *w, enum scn_op *op, char **value)
{
	char	*p;

	for (p = w; *p != '\0'; p++) {
		if (p[0] == '!' && p[1] == '=') {
			*op = OP_NE;
			*p = '\0';
			*value = p + 2;
			return (w);
		}
		if (p[0] == '<' || p[0] == '>') {
			*op = p[1] == '=' ? (p[0] == '<' ? OP_LE : OP_GE) :
			    (p[0] == '<' ? OP_LT : OP_GT);
			*value = p + (p[1] == '=' ? 2 : 1);
			*p = '\0';
			return (w);
		}
		if (p[0] == '=') {
			*op = OP_EQ;
			*p = '\0';
			*value = p + 1;
			return (w);
		}
	}
	return (NULL);
}

int
scn_cmp(long long a, enum scn_op op, long long b)
{
	switch (op) {
	case OP_EQ:
		return (a == b);
	case OP_NE:
		return (a != b);
	case OP_LT:
		return (a < b);
	case OP_LE:
		return (a <= b);
	case OP_GT:
		return (a > b);
	case OP_GE:
		return (a >= b);
	}
	return (0);
}

long long
scn_count_expect(const char *s, enum scn_op *op)
{
	char	 buf[64], *f, *v;

	if (s[0] >= '0' && s[0] <= '9') {
		*op = OP_EQ;
		return (scn_num(s));
	}
	snprintf(buf, sizeof(buf), "x%s", s);
	if ((f = scn_split(buf, op, &v)) == NULL || strcmp(f, "x") != 0)
		scn_bail("not a count: \"%s\"", s);
	return (scn_num(v));
}

void
scn_wtime(char *buf, size_t bufsz, long long t)
{
	if (t == 0)
		snprintf(buf, bufsz, "0");
	else
		snprintf(buf, bufsz, "%lld (@%llds)", t, t - SCN_T0);
}
