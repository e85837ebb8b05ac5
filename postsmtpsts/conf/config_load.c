/*
 * config_load.c - the configuration file through libconfuse: the schema,
 * the value callbacks, and the entry points config_load() and
 * config_load_buffer()
 *
 * config_load() reads the file (at most CONFIG_MAX_FILE_SIZE bytes, a
 * regular file), hands it to libconfuse with the schema below, then has
 * the section builders (config_sections.c, config_listen.c,
 * config_fleet.c) check every value and copy it into a struct config
 * (lib/config.h) that owes nothing to libconfuse.  Only the loader's files
 * include confuse.h, through config_int.h.
 *
 * Every error is reported as "file:line: message".  libconfuse's own errors
 * (unknown options, wrong types, syntax) arrive through the error function
 * hook with its current line; for ours, libconfuse 3.3 keeps no line per
 * option, so the value parsing callbacks note the line of every value as
 * it is read, and a hidden sub-section records where each titled section
 * ("listen", "map", "domain") opens (config_error.c looks both up).
 * Semantic errors are collected, not stopped at, so one run of
 * "postsmtpsts -t" shows them all.
 *
 * libconfuse 3.3 counts three lines for each "#" or "//" comment and
 * rejects comments inside a list (libconfuse issue #150), so its scanner
 * never sees a comment: config_strip_comments() blanks them out first,
 * keeping the newlines.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/config_int.h"
#include "conf/config_load.h"
#include "lib/config.h"
#include "lib/xmalloc.h"

/* libconfuse's callbacks carry no user pointer. */
static struct config_ctx *config_cur;

/* config_load_buffer()'s bytes, read instead of a file while set */
static const char *config_input;
static size_t	 config_input_len;

static int	config_cb_str(cfg_t *, cfg_opt_t *, const char *, void *);
static int	config_cb_int(cfg_t *, cfg_opt_t *, const char *, void *);
static int	config_cb_float(cfg_t *, cfg_opt_t *, const char *, void *);
static int	config_cb_bool(cfg_t *, cfg_opt_t *, const char *, void *);

static cfg_opt_t config_pos_opts[] = {
	CFG_END()
};

static cfg_opt_t config_listen_opts[] = {
	CFG_STR_CB("mode", "0666", CFGF_NONE, config_cb_str),
	CFG_STR_CB("owner", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("group", "", CFGF_NONE, config_cb_str),
	CFG_SEC(CONFIG_POS_OPT, config_pos_opts, CFGF_NONE),
	CFG_END()
};

static cfg_opt_t config_map_opts[] = {
	CFG_STR_CB("testing_answer", "notfound", CFGF_NONE, config_cb_str),
	CFG_BOOL_CB("tlsrpt", cfg_false, CFGF_NONE, config_cb_bool),
	CFG_BOOL_CB("dane", cfg_true, CFGF_NONE, config_cb_bool),
	CFG_STR_CB("dane_some", "dane", CFGF_NONE, config_cb_str),
	CFG_STR_CB("dane_lookup_failure", "temp", CFGF_NONE, config_cb_str),
	/* the floor of authenticated answers (policy/tlsattr.h) */
	CFG_STR_CB("tls_protocols", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("tls_ciphers", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("tls_exclude", "", CFGF_NONE, config_cb_str),
	CFG_SEC(CONFIG_POS_OPT, config_pos_opts, CFGF_NONE),
	CFG_END()
};

static cfg_opt_t config_domain_opts[] = {
	CFG_STR_CB("level", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("match", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("servername", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("until", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("protocols", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("ciphers", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("exclude", "", CFGF_NONE, config_cb_str),
	CFG_SEC(CONFIG_POS_OPT, config_pos_opts, CFGF_NONE),
	CFG_END()
};

static cfg_opt_t config_dns_opts[] = {
	CFG_STR_CB("trust_anchor_file", CONFIG_DEFAULT_TRUST_ANCHOR, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("root_hints", "", CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("forwarders", 0, CFGF_NONE, config_cb_str),
	CFG_BOOL_CB("use_resolv_conf", cfg_false, CFGF_NONE, config_cb_bool),
	CFG_STR_CB("unbound_config", "", CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("unbound_options", 0, CFGF_NONE, config_cb_str),
	CFG_END()
};

static cfg_opt_t config_https_opts[] = {
	CFG_STR_CB("ca_file", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("proxy", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("connect_timeout", 5, CFGF_NONE, config_cb_int),
	CFG_INT_CB("timeout", 10, CFGF_NONE, config_cb_int),
	CFG_INT_CB("max_policy_size", CONFIG_MAX_POLICY_SIZE, CFGF_NONE,
	    config_cb_int),
	CFG_END()
};

static cfg_opt_t config_cache_opts[] = {
	CFG_STR_CB("path", CONFIG_DEFAULT_CACHE_PATH, CFGF_NONE, config_cb_str),
	/* "": beside the cache (CONFIG_HISTORY_NAME), "none": off */
	CFG_STR_CB("history_file", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("max_size", 1073741824L, CFGF_NONE, config_cb_int),
	CFG_INT_CB("negative_ttl", 300, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_before", 0, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_interval", 60, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_concurrency", 0, CFGF_NONE, config_cb_int),
	CFG_BOOL_CB("enabled", cfg_true, CFGF_NONE, config_cb_bool),
	CFG_END()
};

/* preload lists (config_preload.c) */
static cfg_opt_t config_preload_list_opts[] = {
	CFG_STR_CB("source", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("signature", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("keyring", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("fingerprint", "", CFGF_NONE, config_cb_str),
	CFG_BOOL_CB("trusted", cfg_false, CFGF_NONE, config_cb_bool),
	CFG_SEC(CONFIG_POS_OPT, config_pos_opts, CFGF_NONE),
	CFG_END()
};

/* the fleet tier (fleet.h); disabled while servers is empty */
static cfg_opt_t config_fleet_opts[] = {
	CFG_STR_LIST_CB("servers", 0, CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("sentinels", 0, CFGF_NONE, config_cb_str),
	CFG_STR_CB("master_name", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("mode", "read-write", CFGF_NONE, config_cb_str),
	CFG_STR_CB("prefix", "postsmtpsts:", CFGF_NONE, config_cb_str),
	CFG_FLOAT_CB("timeout", 0.2, CFGF_NONE, config_cb_float),
	CFG_FLOAT_CB("connect_timeout", 1.0, CFGF_NONE, config_cb_float),
	CFG_INT_CB("lease", 10, CFGF_NONE, config_cb_int),
	CFG_FLOAT_CB("lease_wait", 3.0, CFGF_NONE, config_cb_float),
	CFG_INT_CB("grace", 86400, CFGF_NONE, config_cb_int),
	CFG_STR_CB("user", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("password_file", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("key_file", "", CFGF_NONE, config_cb_str),
	CFG_END()
};

/* the TLSRPT reporter, postsmtpsts-tlsrpt(8) (config_tlsrpt.c); the
 * daemon does not read it */
static cfg_opt_t config_tlsrpt_opts[] = {
	CFG_BOOL_CB("enable", cfg_false, CFGF_NONE, config_cb_bool),
	CFG_STR_CB("organization_name", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("contact_info", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("submitter", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("sender", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("log", "journal", CFGF_NONE, config_cb_str),
	CFG_STR_CB("input", "log", CFGF_NONE, config_cb_str),
	CFG_STR_CB("socket", CONFIG_DEFAULT_TLSRPT_SOCKET, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("socket_group", "postfix", CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("trusted_users", "{\"postfix\", \"root\"}",
	    CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("trusted_commands", CONFIG_DEFAULT_TLSRPT_COMMANDS,
	    CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("trusted_units", "{}", CFGF_NONE, config_cb_str),
	CFG_STR_CB("state_dir", CONFIG_DEFAULT_TLSRPT_DIR, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("map", CONFIG_DEFAULT_MAP, CFGF_NONE, config_cb_str),
	CFG_STR_LIST_CB("policy_types",
	    "{\"sts\", \"tlsa\", \"no-policy-found\"}", CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("sendmail", CONFIG_DEFAULT_SENDMAIL, CFGF_NONE,
	    config_cb_str),
	CFG_INT_CB("send_delay", 3600, CFGF_NONE, config_cb_int),
	CFG_INT_CB("retry_for", 86400, CFGF_NONE, config_cb_int),
	CFG_INT_CB("max_report_size", 1048576, CFGF_NONE, config_cb_int),
	CFG_INT_CB("rate_limit", 60, CFGF_NONE, config_cb_int),
	CFG_STR_CB("sending_mta_ip", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("keep_days", 7, CFGF_NONE, config_cb_int),
	CFG_STR_CB("host_id", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("fleet_deadline", 21600, CFGF_NONE, config_cb_int),
	CFG_STR_CB("metrics_file", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("timeout", 60, CFGF_NONE, config_cb_int),
	CFG_STR_LIST_CB("report_allow_addresses", "{}", CFGF_NONE,
	    config_cb_str),
	CFG_END()
};

#define CONFIG_TITLED	(CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES)

static cfg_opt_t config_preload_opts[] = {
	CFG_STR_CB("path", CONFIG_DEFAULT_PRELOAD_PATH, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("keyring", "", CFGF_NONE, config_cb_str),
	CFG_INT_CB("refresh_interval", 86400, CFGF_NONE, config_cb_int),
	CFG_INT_CB("timeout", CONFIG_PRELOAD_DEFAULT_TIMEOUT, CFGF_NONE,
	    config_cb_int),
	CFG_SEC("list", config_preload_list_opts, CONFIG_TITLED),
	CFG_END()
};

static cfg_opt_t config_opts[] = {
	CFG_STR_CB("user", CONFIG_DEFAULT_USER, CFGF_NONE, config_cb_str),
	CFG_STR_CB("group", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("pid_file", CONFIG_DEFAULT_PID_FILE, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("runtime_dir", CONFIG_DEFAULT_RUNTIME_DIR, CFGF_NONE,
	    config_cb_str),
	CFG_INT_CB("workers", 0, CFGF_NONE, config_cb_int),
	CFG_INT_CB("resolvers", 0, CFGF_NONE, config_cb_int),
	CFG_INT_CB("max_connections", 4096, CFGF_NONE, config_cb_int),
	CFG_INT_CB("max_inflight", 64, CFGF_NONE, config_cb_int),
	CFG_INT_CB("max_resolutions", 256, CFGF_NONE, config_cb_int),
	CFG_INT_CB("idle_timeout", 300, CFGF_NONE, config_cb_int),
	CFG_FLOAT_CB("request_timeout", 5.0, CFGF_NONE, config_cb_float),
	CFG_STR_CB("deadline_answer", "notfound", CFGF_NONE, config_cb_str),
	CFG_STR_CB("syslog_facility", "mail", CFGF_NONE, config_cb_str),
	CFG_INT_CB("verbose", 0, CFGF_NONE, config_cb_int),
	CFG_STR_CB("metrics", "", CFGF_NONE, config_cb_str),
	CFG_SEC("listen", config_listen_opts, CONFIG_TITLED),
	CFG_SEC("map", config_map_opts, CONFIG_TITLED),
	CFG_SEC("domain", config_domain_opts, CONFIG_TITLED),
	CFG_SEC("dns", config_dns_opts, CFGF_NONE),
	CFG_SEC("https", config_https_opts, CFGF_NONE),
	CFG_SEC("cache", config_cache_opts, CFGF_NONE),
	CFG_SEC("fleet", config_fleet_opts, CFGF_NONE),
	CFG_SEC("tlsrpt", config_tlsrpt_opts, CFGF_NONE),
	CFG_SEC("preload", config_preload_opts, CFGF_NONE),
	CFG_END()
};

/* -- libconfuse's errors ------------------------------------------- */

/* config_cb_error - libconfuse's error function: its message, its line */
static void __attribute__((format(printf, 2, 0)))
config_cb_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	char	 msg[CONFIG_ERROR_LINE];

	if (config_cur == NULL)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	config_error_report(config_cur, cfg != NULL ? cfg->line : 0, msg);
}

/* -- libconfuse value callbacks ------------------------------------- */

/* config_note - remember the line of the value just added to opt */
static void
config_note(cfg_t *cfg, cfg_opt_t *opt)
{
	struct config_ctx *ctx = config_cur;
	struct config_line *l;

	if (ctx == NULL || opt->nvalues == 0)
		return;
	if (ctx->nlines == ctx->linecap) {
		ctx->linecap = ctx->linecap ? ctx->linecap * 2 : 64;
		ctx->lines = xreallocarray(ctx->lines, ctx->linecap,
		    sizeof(*ctx->lines));
	}
	l = &ctx->lines[ctx->nlines++];
	l->opt = opt;
	l->idx = opt->nvalues - 1;
	l->line = cfg->line;
}

/* config_cb_str - take a string as it is; note its line */
static int
config_cb_str(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	config_note(cfg, opt);
	*(const char **)result = value;
	return (0);
}

/* config_cb_int - a decimal integer (no octal or hex surprises) */
static int
config_cb_int(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	const char *p = value;
	char	*end;
	long	 v;

	config_note(cfg, opt);
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		goto bad;
	errno = 0;
	v = strtol(value, &end, 10);
	if (*end != '\0')
		goto bad;
	if (errno == ERANGE) {
		cfg_error(cfg, "integer value for option '%s' is out of range",
		    opt->name);
		return (-1);
	}
	*(long *)result = v;
	return (0);
bad:
	cfg_error(cfg, "invalid integer value for option '%s'", opt->name);
	return (-1);
}

/* config_cb_float - a plain decimal number: digits, optional fraction */
static int
config_cb_float(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	const char *p;
	char	*end;
	double	 v;
	int	 digits = 0, dots = 0;

	config_note(cfg, opt);
	for (p = value; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p))
			digits++;
		else if (*p == '.' && dots++ == 0)
			continue;
		else
			goto bad;
	}
	if (digits == 0)
		goto bad;
	errno = 0;
	v = strtod(value, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(v))
		goto bad;
	*(double *)result = v;
	return (0);
bad:
	cfg_error(cfg, "invalid number for option '%s'", opt->name);
	return (-1);
}

/* config_cb_bool - true/false, yes/no, on/off */
static int
config_cb_bool(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	int	 b;

	config_note(cfg, opt);
	if ((b = cfg_parse_boolean(value)) < 0) {
		cfg_error(cfg, "invalid boolean value for option '%s'",
		    opt->name);
		return (-1);
	}
	*(int *)result = b;
	return (0);
}

/* -- reading the file ----------------------------------------------- */

/* config_word_char - whether c continues an unquoted word (lexer.l) */
static int
config_word_char(char c)
{
	return (c != '\0' && strchr(" #\"'\t\n\r={}()+,*", c) == NULL);
}

/*
 * config_strip_comments - blank out comments in p[0..len), keep newlines
 *
 * Mirrors libconfuse 3.3's scanner: quoted strings (with backslash escapes)
 * are kept whole, "${NAME}" is one token, '#' starts a comment anywhere
 * else, "//" and slash-star only where no unquoted word is in progress.
 * Returns 0, or -1 with *errline at the start of an unterminated comment
 * or string, and *what naming which.
 */
static int
config_strip_comments(char *p, size_t len, int *errline, const char **what)
{
	size_t	 i = 0;
	int	 line = 1, word = 0, start;
	char	 c;

	while (i < len) {
		c = p[i];
		if (c == '"' || c == '\'') {
			start = line;
			for (i++; i < len && p[i] != c; i++) {
				if (p[i] == '\\' && i + 1 < len)
					i++;
				if (p[i] == '\n')
					line++;
			}
			if (i >= len) {
				*errline = start;
				*what = "unterminated string";
				return (-1);
			}
			i++;
			word = 0;
		} else if (!word && c == '$' && i + 1 < len &&
		    p[i + 1] == '{') {
			for (i += 2; i < len && p[i] != '}'; i++)
				if (p[i] == '\n')
					line++;
			i++;
		} else if (c == '#' || (!word && c == '/' && i + 1 < len &&
		    p[i + 1] == '/')) {
			for (; i < len && p[i] != '\n'; i++)
				p[i] = ' ';
			word = 0;
		} else if (!word && c == '/' && i + 1 < len &&
		    p[i + 1] == '*') {
			start = line;
			p[i++] = ' ';
			p[i++] = ' ';
			for (;;) {
				if (i >= len) {
					*errline = start;
					*what = "unterminated comment";
					return (-1);
				}
				if (p[i] == '*' && i + 1 < len &&
				    p[i + 1] == '/') {
					p[i++] = ' ';
					p[i++] = ' ';
					break;
				}
				if (p[i] == '\n')
					line++;
				else
					p[i] = ' ';
				i++;
			}
			word = 0;
		} else {
			if (c == '\n')
				line++;
			word = config_word_char(c);
			i++;
		}
	}
	return (0);
}

/*
 * config_text - check text[0..len) (allocated with 2 spare bytes) for NUL
 * bytes, count its lines, NUL-terminate it; an empty text becomes one
 * newline (fmemopen(3) may refuse size 0).  Frees text and returns NULL on
 * error.
 */
static char *
config_text(struct config_ctx *ctx, char *text, size_t len, size_t *lenp)
{
	const char *nul;
	size_t	 i;
	int	 line;

	if ((nul = memchr(text, '\0', len)) != NULL) {
		line = 1;
		for (i = 0; i < (size_t)(nul - text); i++)
			if (text[i] == '\n')
				line++;
		config_error_at(ctx, line, "NUL byte in file");
		free(text);
		return (NULL);
	}
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			ctx->nfilelines++;
	if (len > 0 && text[len - 1] != '\n')
		ctx->nfilelines++;
	if (len == 0)
		text[len++] = '\n';
	text[len] = '\0';
	*lenp = len;
	return (text);
}

/*
 * config_read - the whole file (or config_load_buffer()'s bytes) through
 * config_text(); NULL on error
 */
static char *
config_read(struct config_ctx *ctx, const char *path, size_t *lenp)
{
	struct stat st;
	char	*text;
	size_t	 len = 0;
	ssize_t	 n;
	int	 fd;

	if (config_input != NULL) {
		if (config_input_len > CONFIG_MAX_FILE_SIZE) {
			config_error_at(ctx, 0, "larger than %d bytes",
			    CONFIG_MAX_FILE_SIZE);
			return (NULL);
		}
		text = xmalloc(config_input_len + 2);
		memcpy(text, config_input, config_input_len);
		return (config_text(ctx, text, config_input_len, lenp));
	}
	if ((fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)) == -1) {
		config_error_at(ctx, 0, "cannot open: %s", strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) == -1) {
		config_error_at(ctx, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return (NULL);
	}
	if (!S_ISREG(st.st_mode)) {
		config_error_at(ctx, 0, "not a regular file");
		close(fd);
		return (NULL);
	}
	if (st.st_size > CONFIG_MAX_FILE_SIZE) {
		config_error_at(ctx, 0, "larger than %d bytes",
		    CONFIG_MAX_FILE_SIZE);
		close(fd);
		return (NULL);
	}
	/* + 1: notice growth since fstat; + 2: a newline if empty, NUL */
	text = xmalloc((size_t)st.st_size + 3);
	while (len <= (size_t)st.st_size) {
		n = read(fd, text + len, (size_t)st.st_size + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			config_error_at(ctx, 0, "cannot read: %s",
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > (size_t)st.st_size) {
		config_error_at(ctx, 0, "changed while being read");
		goto fail;
	}
	close(fd);
	return (config_text(ctx, text, len, lenp));
fail:
	close(fd);
	free(text);
	return (NULL);
}

/* -- interface ------------------------------------------------------ */

struct config *
config_load(const char *path, char *errbuf, size_t errsz)
{
	struct config_ctx ctx;
	struct config *cf = NULL;
	cfg_t	*cfg = NULL;
	FILE	*fp;
	char	*text;
	const char *what;
	size_t	 len;
	int	 rc, line;

	if (path == NULL)
		path = CONFIG_DEFAULT_FILE;
	memset(&ctx, 0, sizeof(ctx));
	ctx.file = path;
	ctx.err = errbuf;
	ctx.errsz = errsz;
	if (errsz > 0)
		errbuf[0] = '\0';

	if ((text = config_read(&ctx, path, &len)) == NULL)
		return (NULL);
	if (config_strip_comments(text, len, &line, &what) == -1) {
		config_error_at(&ctx, line, "%s", what);
		free(text);
		return (NULL);
	}

	config_cur = &ctx;
	if ((cfg = cfg_init(config_opts, CFGF_NONE)) == NULL) {
		config_error_at(&ctx, 0, "out of memory");
		goto out;
	}
	cfg_set_error_function(cfg, config_cb_error);
	/* cfg_parse_fp() names what it reads "FILE" unless told */
	free(cfg->filename);
	if ((cfg->filename = strdup(path)) == NULL) {
		config_error_at(&ctx, 0, "out of memory");
		goto out;
	}
	if ((fp = fmemopen(text, len, "r")) == NULL) {
		config_error_at(&ctx, 0, "fmemopen: %s", strerror(errno));
		goto out;
	}
	rc = cfg_parse_fp(cfg, fp);
	fclose(fp);
	if (rc != CFG_SUCCESS) {
		if (ctx.nerr == 0)
			config_error_at(&ctx, 0, "syntax error");
		goto out;
	}

	cf = xcalloc(1, sizeof(*cf));
	cf->file = xstrdup(path);
	config_sections_root(&ctx, cfg, cf);
	config_listen_build(&ctx, cfg, cf);
	config_listen_metrics(&ctx, cfg, cf);
	config_sections_maps(&ctx, cfg, cf);
	config_sections_domains(&ctx, cfg, cf);
	config_sections_dns(&ctx, cfg, cf);
	config_sections_https(&ctx, cfg, cf);
	config_sections_cache(&ctx, cfg, cf);
	config_fleet_build(&ctx, cfg, cf);
	config_tlsrpt_build(&ctx, cfg, cf);
	config_preload_build(&ctx, cfg, cf);
	if (ctx.nerr > 0) {
		config_free(cf);
		cf = NULL;
	}
out:
	config_cur = NULL;
	if (cfg != NULL)
		cfg_free(cfg);
	free(ctx.lines);
	free(text);
	return (cf);
}

struct config *
config_load_buffer(const char *name, const char *data, size_t len,
    char *errbuf, size_t errsz)
{
	struct config *cf;

	config_input = data != NULL ? data : "";
	config_input_len = data != NULL ? len : 0;
	cf = config_load(name, errbuf, errsz);
	config_input = NULL;
	config_input_len = 0;
	return (cf);
}
