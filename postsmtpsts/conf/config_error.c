/*
 * config_error.c - the configuration's errors, each at its line
 *
 * Every error is reported as "file:line: message" (an error of the whole
 * file as "file: message"), one line each, into the caller's buffer, at
 * most CONFIG_MAX_ERRORS and then "too many errors".  libconfuse 3.3 keeps
 * no line per option, so config_load.c's value callbacks note where each
 * value was read (ctx->lines) and every titled section carries a hidden
 * sub-section opened at its '{' (CONFIG_POS_OPT): config_error() names the
 * line of the value at fault, else of its section.  Interface:
 * config_int.h.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/log.h"

void
config_error_report(struct config_ctx *ctx, int line, const char *msg)
{
	char	 text[CONFIG_ERROR_LINE + PATH_MAX], clean[CONFIG_ERROR_LINE];
	size_t	 n, room, i;
	int	 len;

	/* one error, one line: libconfuse may quote a multi-line token */
	for (i = 0; msg[i] != '\0' && i + 1 < sizeof(clean); i++)
		clean[i] = (unsigned char)msg[i] < 0x20 ? '?' : msg[i];
	clean[i] = '\0';
	msg = clean;
	ctx->nerr++;
	if (ctx->errsz == 0 || ctx->nerr > CONFIG_MAX_ERRORS + 1)
		return;
	if (ctx->nfilelines > 0 && line > ctx->nfilelines)
		line = ctx->nfilelines;
	if (ctx->nerr == CONFIG_MAX_ERRORS + 1)
		len = snprintf(text, sizeof(text), "%s: too many errors\n",
		    ctx->file);
	else if (line > 0)
		len = snprintf(text, sizeof(text), "%s:%d: %s\n", ctx->file,
		    line, msg);
	else
		len = snprintf(text, sizeof(text), "%s: %s\n", ctx->file, msg);
	if (len < 0)
		return;
	n = (size_t)len < sizeof(text) ? (size_t)len : sizeof(text) - 1;
	room = ctx->errsz - 1 - ctx->errlen;
	if (n > room)
		n = room;
	memcpy(ctx->err + ctx->errlen, text, n);
	ctx->errlen += n;
	ctx->err[ctx->errlen] = '\0';
}

void
config_error_at(struct config_ctx *ctx, int line, const char *fmt, ...)
{
	char	 msg[CONFIG_ERROR_LINE];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	config_error_report(ctx, line, msg);
}

int
config_error_sec_line(cfg_t *sec)
{
	cfg_opt_t *o;

	if (sec == NULL)
		return (0);
	for (o = sec->opts; o->name != NULL; o++)
		if (strcmp(o->name, CONFIG_POS_OPT) == 0 && o->nvalues > 0 &&
		    o->values[0]->section != NULL)
			return (o->values[0]->section->line);
	return (0);
}

/* config_error_opt_line - where sec's option name, value idx, was read, or 0 */
static int
config_error_opt_line(struct config_ctx *ctx, cfg_t *sec, const char *name,
    unsigned int idx)
{
	cfg_opt_t *opt;
	size_t	 i;

	if ((opt = cfg_getopt(sec, name)) == NULL)
		return (0);
	for (i = ctx->nlines; i > 0; i--)
		if (ctx->lines[i - 1].opt == opt &&
		    ctx->lines[i - 1].idx == idx)
			return (ctx->lines[i - 1].line);
	return (0);
}

void
config_error(struct config_ctx *ctx, cfg_t *sec, const char *name,
    unsigned int idx, const char *fmt, ...)
{
	char	 msg[CONFIG_ERROR_LINE];
	va_list	 ap;
	int	 line = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (name != NULL)
		line = config_error_opt_line(ctx, sec, name, idx);
	if (line == 0)
		line = config_error_sec_line(sec);
	config_error_report(ctx, line, msg);
}

const char *
config_error_esc(char *out, size_t outsz, const char *s)
{
	return (log_escape(out, outsz, s, strlen(s)));
}
