/*
 * log.h - logging in Postfix's style, to stderr or syslog
 *
 * log_init() chooses the sink: foreground mode writes "postsmtpsts[pid]:
 * level: message" to stderr, daemon mode uses syslog(3) with the configured
 * facility.  log_warn() appends strerror(errno); log_warnx() does not.
 * fatal()/fatalx() log and exit(1): start-up, configuration and resource
 * failures only.  panic() logs and abort()s: a broken invariant.
 * log_debug(level, ...) prints only when the verbosity is >= level.
 *
 * Untrusted text must go through log_escape() first.
 */
#ifndef LOG_H
#define LOG_H

#include <stdarg.h>
#include <stddef.h>

#define LOG_ESCAPE_MAX	256	/* untrusted text logged at most this long */

void	log_init(const char *ident, int to_stderr, int facility);

/*
 * log_set_hook - tests only (tests/scenario): every line logged from now
 * on is also handed to fn(pri, line, arg), pri a syslog priority and line
 * as written after the "ident[pid]: " prefix ("warning: ..." included,
 * debug lines only at the verbosity set); fn NULL removes the hook.
 */
typedef void	log_hook_fn(int pri, const char *line, void *arg);
void	log_set_hook(log_hook_fn *fn, void *arg);
void	log_set_verbose(int level);
int	log_get_verbose(void);
void	log_set_ident(const char *ident);

void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_notice - LOG_NOTICE, "notice: " (Postfix's tag): what an operator
 * wants to be told about, short of a warning */
void	log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	fatal(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	panic(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/*
 * log_escape - copy at most LOG_ESCAPE_MAX bytes of untrusted p[0..len) into
 * out (size outsz >= 1), replacing control, non-ASCII and backslash bytes by
 * \xHH, marking truncation with "...".  Returns out.
 */
char	*log_escape(char *out, size_t outsz, const char *p, size_t len);

#endif
