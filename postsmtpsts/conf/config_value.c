/*
 * config_value.c - option values as the section builders take them
 *
 * Each function reads one option of a libconfuse section and checks it:
 * an integer in its range, an absolute path, a user or group name.  A
 * value that fails is reported at the line it was read (config_error),
 * named "section: option" as the file spells it; the builders carry on,
 * so one run shows every error.  Interface: config_int.h.
 */
#include "autoconf.h"

#include <string.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

const char *
config_value_str(cfg_t *sec, const char *name)
{
	const char *s = cfg_getstr(sec, name);

	return (s != NULL ? s : "");
}

long
config_value_int(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name, long long min, long long max)
{
	long	 v = cfg_getint(sec, name);

	if (v < min || v > max)
		config_error(ctx, sec, name, 0,
		    "%s%s%s must be between %lld and %lld, not %ld",
		    secname ? secname : "", secname ? ": " : "", name,
		    min, max, v);
	return (v);
}

const char *
config_value_path_ok(const char *s)
{
	const unsigned char *p;

	if (s[0] != '/')
		return ("is not an absolute path");
	if (strlen(s) > CONFIG_MAX_PATH)
		return ("is too long");
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return ("contains a control character");
	return (NULL);
}

char *
config_value_path(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name, int empty_ok)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s = config_value_str(sec, name), *why;

	if (*s == '\0') {
		if (!empty_ok)
			config_error(ctx, sec, name, 0,
			    "%s%s%s must not be empty", secname ? secname : "",
			    secname ? ": " : "", name);
		return (NULL);
	}
	if ((why = config_value_path_ok(s)) != NULL) {
		config_error(ctx, sec, name, 0, "%s%s%s \"%s\" %s",
		    secname ? secname : "", secname ? ": " : "", name,
		    config_error_esc(esc, sizeof(esc), s), why);
		return (NULL);
	}
	return (xstrdup(s));
}

/* portable: letters, digits, '.', '_', '-', not starting with '-' */
int
config_value_name_ok(const char *s)
{
	size_t	 len = strlen(s);

	if (len == 0 || len > CONFIG_MAX_NAME || s[0] == '-')
		return (0);
	return (strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len);
}

char *
config_value_name(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s = config_value_str(sec, name);

	if (*s == '\0')
		return (NULL);
	if (!config_value_name_ok(s)) {
		config_error(ctx, sec, name, 0,
		    "%s%s%s \"%s\" is not a valid user or group name",
		    secname ? secname : "", secname ? ": " : "", name,
		    config_error_esc(esc, sizeof(esc), s));
		return (NULL);
	}
	return (xstrdup(s));
}
