/*
 * config_preload.c - the preload section: where the store is, the keyring,
 * the lists
 *
 * Interface: config_int.h (config_preload_build); the options:
 * config_load.c; their meaning: postsmtpsts.conf(5) and lib/config.h
 * (struct config_preload).  What is refused here, at its line, so that
 * "postsmtpsts -t" finds it before a reload does: a list name that is not
 * 1..32 letters, digits, '.', '_' or '-'; a source that is neither an
 * https:// URL nor an absolute path; "trusted" on a URL (issue 38: only a
 * list the operator holds locally may be read unsigned); a list that is
 * neither trusted nor has a keyring to check its signature with; a
 * fingerprint that is not 40 or 64 hex digits; a refresh_interval over
 * 48 hours (the EFF list's rule: "fetch updates at least once every 48
 * hours").
 */
#include "autoconf.h"

#include <string.h>

#include "conf/config_int.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

/* config_preload_name_ok - a list name: it is a key in the store and a
 * word in logs */
static int
config_preload_name_ok(const char *s)
{
	size_t	 i, n = strlen(s);

	if (n == 0 || n > CONFIG_MAX_PRELOAD_NAME)
		return (0);
	for (i = 0; i < n; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) == NULL)
			return (0);
	return (1);
}

/* config_preload_url_ok - an https URL of printable ASCII, no blank */
static int
config_preload_url_ok(const char *s)
{
	size_t	 i, n = strlen(s);

	if (n <= 8 || n > CONFIG_MAX_PRELOAD_URL ||
	    strncmp(s, "https://", 8) != 0 || s[8] == '/')
		return (0);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return (0);
	return (1);
}

/* config_preload_where - a source or signature: URL or absolute path */
static char *
config_preload_where(struct config_ctx *ctx, cfg_t *sec, const char *list,
    const char *name)
{
	const char	*s = config_value_str(sec, name), *why;
	char		 esc[LOG_ESCAPE_MAX + 8];

	if (*s == '\0')
		return (NULL);
	if (strncmp(s, "https://", 8) == 0) {
		if (!config_preload_url_ok(s)) {
			config_error(ctx, sec, name, 0, "preload list \"%s\": "
			    "%s: an https:// URL of at most %d printable "
			    "bytes", list, name, CONFIG_MAX_PRELOAD_URL);
			return (NULL);
		}
		return (xstrdup(s));
	}
	if ((why = config_value_path_ok(s)) != NULL) {
		config_error(ctx, sec, name, 0, "preload list \"%s\": %s "
		    "\"%s\": neither an https:// URL nor %s", list, name,
		    config_error_esc(esc, sizeof(esc), s), why);
		return (NULL);
	}
	return (xstrdup(s));
}

/* config_preload_fpr - 40 or 64 hex digits, blanks between allowed */
static char *
config_preload_fpr(struct config_ctx *ctx, cfg_t *sec, const char *list)
{
	const char	*s = config_value_str(sec, "fingerprint");
	char		 out[65];
	size_t		 i, n = 0;

	if (*s == '\0')
		return (NULL);
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == ' ')
			continue;
		if (strchr("0123456789abcdefABCDEF", s[i]) == NULL ||
		    n == 64) {
			n = 0;
			break;
		}
		out[n++] = (s[i] >= 'a' && s[i] <= 'f') ?
		    (char)(s[i] - 'a' + 'A') : s[i];
	}
	if (n != 40 && n != 64) {
		config_error(ctx, sec, "fingerprint", 0, "preload list \"%s\": "
		    "fingerprint: 40 or 64 hex digits", list);
		return (NULL);
	}
	out[n] = '\0';
	return (xstrdup(out));
}

void
config_preload_build(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	cfg_t		*sec = cfg_getsec(cfg, "preload"), *ls;
	struct config_preload *p = &cf->preload;
	struct config_preload_list *l;
	unsigned int	 i, n;
	char		 esc[LOG_ESCAPE_MAX + 8];
	const char	*title;

	p->path = config_value_path(ctx, sec, "preload", "path", 0);
	p->keyring = config_value_path(ctx, sec, "preload", "keyring", 1);
	p->refresh_interval = (int)config_value_int(ctx, sec, "preload",
	    "refresh_interval", 60, CONFIG_PRELOAD_MAX_REFRESH);
	p->timeout = (int)config_value_int(ctx, sec, "preload", "timeout", 1,
	    CONFIG_PRELOAD_MAX_TIMEOUT);
	n = cfg_size(sec, "list");
	if (n > CONFIG_MAX_PRELOAD_LISTS) {
		config_error(ctx, sec, NULL, 0, "preload: more than %d lists",
		    CONFIG_MAX_PRELOAD_LISTS);
		n = CONFIG_MAX_PRELOAD_LISTS;
	}
	p->lists = xcalloc(n > 0 ? n : 1, sizeof(*p->lists));
	for (i = 0; i < n; i++) {
		ls = cfg_getnsec(sec, "list", i);
		title = cfg_title(ls);
		l = &p->lists[p->nlists++];
		l->name = xstrdup(title);
		l->line = config_error_sec_line(ls);
		config_error_esc(esc, sizeof(esc), title);
		if (!config_preload_name_ok(title))
			config_error(ctx, ls, NULL, 0, "preload list \"%s\": a "
			    "list name is 1 to %d letters, digits, '.', '_' "
			    "or '-'", esc, CONFIG_MAX_PRELOAD_NAME);
		l->source = config_preload_where(ctx, ls, esc, "source");
		if (l->source == NULL && *config_value_str(ls, "source") ==
		    '\0')
			config_error(ctx, ls, NULL, 0, "preload list \"%s\": "
			    "no source", esc);
		l->signature = config_preload_where(ctx, ls, esc,
		    "signature");
		l->keyring = config_value_path(ctx, ls, "preload list",
		    "keyring", 1);
		l->fingerprint = config_preload_fpr(ctx, ls, esc);
		l->trusted = cfg_getbool(ls, "trusted") ? 1 : 0;
		if (l->trusted && l->source != NULL &&
		    strncmp(l->source, "https://", 8) == 0)
			config_error(ctx, ls, "trusted", 0, "preload list "
			    "\"%s\": trusted is for a local file; a list "
			    "fetched from a URL must be signed", esc);
		if (!l->trusted && l->keyring == NULL && p->keyring == NULL)
			config_error(ctx, ls, NULL, 0, "preload list \"%s\": "
			    "no keyring to check its signature with (keyring, "
			    "here or in preload), and not trusted", esc);
	}
}
