/*
 * log.c - logging to stderr (foreground) or syslog (daemon)
 *
 * Messages are formatted into a bounded stack buffer with vsnprintf; an
 * overlong message is truncated, never overflowed.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "lib/log.h"

#define LOG_LINE_MAX	2048

static int	 log_stderr = 1;
static int	 log_verbose;
static char	 log_ident[64] = "postsmtpsts";
static log_hook_fn *log_hook;
static void	*log_hook_arg;

void
log_init(const char *ident, int to_stderr, int facility)
{
	log_set_ident(ident);
	log_stderr = to_stderr;
	if (!to_stderr)
		openlog(log_ident, LOG_PID | LOG_NDELAY, facility);
}

void
log_set_hook(log_hook_fn *fn, void *arg)
{
	log_hook = fn;
	log_hook_arg = arg;
}

void
log_set_ident(const char *ident)
{
	snprintf(log_ident, sizeof(log_ident), "%s", ident);
}

void
log_set_verbose(int level)
{
	log_verbose = level;
}

int
log_get_verbose(void)
{
	return (log_verbose);
}

/* log_emit - format and write one line at a syslog priority */
static void __attribute__((format(printf, 4, 0)))
log_emit(int pri, const char *tag, const char *errstr, const char *fmt,
    va_list ap)
{
	char	 line[LOG_LINE_MAX], full[LOG_LINE_MAX + 256];
	int	 n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		snprintf(line, sizeof(line), "(unformattable message)");
	if (log_hook != NULL) {
		/* a line too long for full is cut: the hook is for tests */
		(void)snprintf(full, sizeof(full), "%s%s%s%s", tag, line,
		    errstr != NULL ? ": " : "", errstr != NULL ? errstr : "");
		log_hook(pri, full, log_hook_arg);
	}
	if (log_stderr) {
		if (errstr != NULL)
			fprintf(stderr, "%s[%ld]: %s%s: %s\n", log_ident,
			    (long)getpid(), tag, line, errstr);
		else
			fprintf(stderr, "%s[%ld]: %s%s\n", log_ident,
			    (long)getpid(), tag, line);
	} else {
		if (errstr != NULL)
			syslog(pri, "%s%s: %s", tag, line, errstr);
		else
			syslog(pri, "%s%s", tag, line);
	}
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_emit(LOG_INFO, "", NULL, fmt, ap);
	va_end(ap);
}

void
log_notice(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_emit(LOG_NOTICE, "notice: ", NULL, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;

	va_start(ap, fmt);
	log_emit(LOG_WARNING, "warning: ", strerror(saved), fmt, ap);
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_emit(LOG_WARNING, "warning: ", NULL, fmt, ap);
	va_end(ap);
}

void
log_debug(int level, const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbose < level)
		return;
	va_start(ap, fmt);
	log_emit(LOG_DEBUG, "debug: ", NULL, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;

	va_start(ap, fmt);
	log_emit(LOG_CRIT, "fatal: ", strerror(saved), fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_emit(LOG_CRIT, "fatal: ", NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

void
panic(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_emit(LOG_CRIT, "panic: ", NULL, fmt, ap);
	va_end(ap);
	abort();
}

char *
log_escape(char *out, size_t outsz, const char *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, o = 0;
	int	 trunc = 0;

	if (outsz == 0)
		return (out);
	if (len > LOG_ESCAPE_MAX) {
		len = LOG_ESCAPE_MAX;
		trunc = 1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (o + 1 >= outsz)
				break;
			out[o++] = (char)c;
		} else {
			if (o + 4 >= outsz)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (i < len)
		trunc = 1;
	if (trunc && o + 3 < outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return (out);
}
