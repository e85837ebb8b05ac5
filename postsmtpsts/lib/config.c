/*
 * config.c - the configuration file: libconfuse schema and validation
 *
 * config_load() reads the file (at most CONFIG_MAX_FILE_SIZE bytes, a
 * regular file), hands it to libconfuse with the schema below, then checks
 * every value and copies it into a struct config that owes nothing to
 * libconfuse.  This is the only file that includes confuse.h.
 *
 * Every error is reported as "file:line: message".  libconfuse's own errors
 * (unknown options, wrong types, syntax) arrive through the error function
 * hook with its current line; for ours, libconfuse 3.3 keeps no line per
 * option, so the value parsing callbacks note the line of every value as
 * it is read, and a hidden sub-section records where each titled section
 * ("listen", "map", "domain") opens.  Semantic errors are collected, not
 * stopped at, so one run of "postsmtpsts -t" shows them all.
 *
 * libconfuse 3.3 counts three lines for each "#" or "//" comment and
 * rejects comments inside a list (libconfuse issue #150), so its scanner
 * never sees a comment: config_strip_comments() blanks them out first,
 * keeping the newlines.
 *
 * Pinned domains ("domain" sections): the name is checked here
 * (domain_check), the pin's grammar and the reply data it composes are
 * policy/pins.c's (pins_parse; the one call from lib/ into policy/: the
 * grammar is policy, the file syntax is ours).  They are sorted for
 * config_find_domain()'s binary search.
 */
#include "autoconf.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include <confuse.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/domain.h"
#include "lib/log.h"
#include "lib/xmalloc.h"
#include "policy/pins.h"

#define CONFIG_ERROR_LINE	512	/* one formatted error message */
#define CONFIG_UNIX_PATH_MAX	(sizeof(((struct sockaddr_un *)0)->sun_path))
#define CONFIG_MAX_PORT		65535
#define CONFIG_MAX_PROXY	1024	/* proxy URL, bytes */
#define CONFIG_MAX_UB_OPTION	1024	/* one unbound_options entry */

/*
 * The hidden sub-section of every titled section.  libconfuse creates it,
 * with the line of the enclosing section's '{', as it creates the section.
 * cfg_getopt() reads a name ending in '|' as the path of an option inside
 * a sub-section "line", which does not exist, so no file can name it.
 */
#define CONFIG_POS_OPT		"line|"

/* Where the value at index idx of opt was read. */
struct config_line {
	const cfg_opt_t *opt;
	unsigned int	 idx;
	int		 line;
};

/* The state of one config_load(): errors out, value lines in. */
struct config_ctx {
	const char	*file;
	int		 nfilelines;	/* errors at EOF name the last line */
	char		*err;
	size_t		 errsz;
	size_t		 errlen;
	int		 nerr;
	struct config_line *lines;
	size_t		 nlines;
	size_t		 linecap;
};

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
	CFG_SEC(CONFIG_POS_OPT, config_pos_opts, CFGF_NONE),
	CFG_END()
};

static cfg_opt_t config_domain_opts[] = {
	CFG_STR_CB("level", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("match", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("servername", "", CFGF_NONE, config_cb_str),
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
	CFG_INT_CB("max_size", 1073741824L, CFGF_NONE, config_cb_int),
	CFG_INT_CB("negative_ttl", 300, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_before", 0, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_interval", 60, CFGF_NONE, config_cb_int),
	CFG_INT_CB("refresh_concurrency", 0, CFGF_NONE, config_cb_int),
	CFG_BOOL_CB("enabled", cfg_true, CFGF_NONE, config_cb_bool),
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

#define CONFIG_TITLED	(CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES)

static cfg_opt_t config_opts[] = {
	CFG_STR_CB("user", CONFIG_DEFAULT_USER, CFGF_NONE, config_cb_str),
	CFG_STR_CB("group", "", CFGF_NONE, config_cb_str),
	CFG_STR_CB("pid_file", CONFIG_DEFAULT_PID_FILE, CFGF_NONE,
	    config_cb_str),
	CFG_STR_CB("runtime_dir", CONFIG_DEFAULT_RUNTIME_DIR, CFGF_NONE,
	    config_cb_str),
	CFG_INT_CB("workers", 0, CFGF_NONE, config_cb_int),
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
	CFG_END()
};

static const struct {
	const char	*name;
	int		 value;
} config_facilities[] = {
	{ "mail", LOG_MAIL },
	{ "daemon", LOG_DAEMON },
	{ "local0", LOG_LOCAL0 },
	{ "local1", LOG_LOCAL1 },
	{ "local2", LOG_LOCAL2 },
	{ "local3", LOG_LOCAL3 },
	{ "local4", LOG_LOCAL4 },
	{ "local5", LOG_LOCAL5 },
	{ "local6", LOG_LOCAL6 },
	{ "local7", LOG_LOCAL7 },
};

/* -- error reporting ------------------------------------------------ */

/* config_report - append "file:line: msg" (line 0: "file: msg") to errbuf */
static void
config_report(struct config_ctx *ctx, int line, const char *msg)
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

/* config_errorf - report a formatted error at a line */
static void __attribute__((format(printf, 3, 4)))
config_errorf(struct config_ctx *ctx, int line, const char *fmt, ...)
{
	char	 msg[CONFIG_ERROR_LINE];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	config_report(ctx, line, msg);
}

/* config_cb_error - libconfuse's error function: its message, its line */
static void __attribute__((format(printf, 2, 0)))
config_cb_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	char	 msg[CONFIG_ERROR_LINE];

	if (config_cur == NULL)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	config_report(config_cur, cfg != NULL ? cfg->line : 0, msg);
}

/* config_sec_line - the line of a titled section's '{', 0 for others */
static int
config_sec_line(cfg_t *sec)
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

/* config_opt_line - where sec's option name, value idx, was read, or 0 */
static int
config_opt_line(struct config_ctx *ctx, cfg_t *sec, const char *name,
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

/*
 * config_err - report an error about option name (value idx) of sec at the
 * line it was read, else at the section's line; name NULL: the section
 */
static void __attribute__((format(printf, 5, 6)))
config_err(struct config_ctx *ctx, cfg_t *sec, const char *name,
    unsigned int idx, const char *fmt, ...)
{
	char	 msg[CONFIG_ERROR_LINE];
	va_list	 ap;
	int	 line = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (name != NULL)
		line = config_opt_line(ctx, sec, name, idx);
	if (line == 0)
		line = config_sec_line(sec);
	config_report(ctx, line, msg);
}

/* config_esc - a configured value, escaped and bounded for a message */
static const char *
config_esc(char *out, size_t outsz, const char *s)
{
	return (log_escape(out, outsz, s, strlen(s)));
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
		config_errorf(ctx, line, "NUL byte in file");
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
			config_errorf(ctx, 0, "larger than %d bytes",
			    CONFIG_MAX_FILE_SIZE);
			return (NULL);
		}
		text = xmalloc(config_input_len + 2);
		memcpy(text, config_input, config_input_len);
		return (config_text(ctx, text, config_input_len, lenp));
	}
	if ((fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)) == -1) {
		config_errorf(ctx, 0, "cannot open: %s", strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) == -1) {
		config_errorf(ctx, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return (NULL);
	}
	if (!S_ISREG(st.st_mode)) {
		config_errorf(ctx, 0, "not a regular file");
		close(fd);
		return (NULL);
	}
	if (st.st_size > CONFIG_MAX_FILE_SIZE) {
		config_errorf(ctx, 0, "larger than %d bytes",
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
			config_errorf(ctx, 0, "cannot read: %s",
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > (size_t)st.st_size) {
		config_errorf(ctx, 0, "changed while being read");
		goto fail;
	}
	close(fd);
	return (config_text(ctx, text, len, lenp));
fail:
	close(fd);
	free(text);
	return (NULL);
}

/* -- value checks --------------------------------------------------- */

/* config_str - option name of sec as a string, never NULL */
static const char *
config_str(cfg_t *sec, const char *name)
{
	const char *s = cfg_getstr(sec, name);

	return (s != NULL ? s : "");
}

/* config_int - an integer option checked against [min, max] */
static long
config_int(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name, long long min, long long max)
{
	long	 v = cfg_getint(sec, name);

	if (v < min || v > max)
		config_err(ctx, sec, name, 0,
		    "%s%s%s must be between %lld and %lld, not %ld",
		    secname ? secname : "", secname ? ": " : "", name,
		    min, max, v);
	return (v);
}

/* config_path_ok - an absolute path of sane length, no control bytes */
static const char *
config_path_ok(const char *s)
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

/* config_path - a path option: "" allowed (NULL) when empty_ok */
static char *
config_path(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name, int empty_ok)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s = config_str(sec, name), *why;

	if (*s == '\0') {
		if (!empty_ok)
			config_err(ctx, sec, name, 0,
			    "%s%s%s must not be empty", secname ? secname : "",
			    secname ? ": " : "", name);
		return (NULL);
	}
	if ((why = config_path_ok(s)) != NULL) {
		config_err(ctx, sec, name, 0, "%s%s%s \"%s\" %s",
		    secname ? secname : "", secname ? ": " : "", name,
		    config_esc(esc, sizeof(esc), s), why);
		return (NULL);
	}
	return (xstrdup(s));
}

/*
 * config_name_ok - a user or group name (portable: letters, digits, '.',
 * '_', '-', not starting with '-') or a numeric id
 */
static int
config_name_ok(const char *s)
{
	size_t	 len = strlen(s);

	if (len == 0 || len > CONFIG_MAX_NAME || s[0] == '-')
		return (0);
	return (strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len);
}

/* config_name - a user/group name option, NULL for "" */
static char *
config_name(struct config_ctx *ctx, cfg_t *sec, const char *secname,
    const char *name)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s = config_str(sec, name);

	if (*s == '\0')
		return (NULL);
	if (!config_name_ok(s)) {
		config_err(ctx, sec, name, 0,
		    "%s%s%s \"%s\" is not a valid user or group name",
		    secname ? secname : "", secname ? ": " : "", name,
		    config_esc(esc, sizeof(esc), s));
		return (NULL);
	}
	return (xstrdup(s));
}

/*
 * config_listen_parse - "unix:/path", "inet:HOST:PORT", "inet:[IPv6]:PORT"
 * or "inet:*:PORT" into l (host and port in canonical form); NULL or why
 */
static const char *
config_listen_parse(const char *spec, struct config_listen *l)
{
	struct in6_addr a6;
	struct in_addr a4;
	char	 host[INET6_ADDRSTRLEN], canon[INET6_ADDRSTRLEN], *hp;
	const char *h, *hend, *port;
	size_t	 hlen;
	long	 pn;

	if (strncmp(spec, "unix:", 5) == 0) {
		if (config_path_ok(spec + 5) != NULL)
			return ("needs an absolute socket path");
		if (strlen(spec + 5) >= CONFIG_UNIX_PATH_MAX)
			return ("has a socket path too long for sun_path");
		if (spec[strlen(spec) - 1] == '/')
			return ("has a socket path that names a directory");
		l->kind = CONFIG_LISTEN_UNIX;
		l->path = xstrdup(spec + 5);
		l->mode = 0666;
		return (NULL);
	}
	if (strncmp(spec, "inet:", 5) != 0)
		return ("is neither unix:/path nor inet:host:port");
	h = spec + 5;
	if (*h == '[') {
		if ((hend = strchr(h, ']')) == NULL)
			return ("has no ']' after the IPv6 address");
		h++;
		port = hend + 1;
	} else {
		if ((port = strrchr(h, ':')) == NULL)
			return ("has no port");
		hend = port;
		if (memchr(h, ':', (size_t)(hend - h)) != NULL)
			return ("has an IPv6 address not in [brackets]");
	}
	if (*port != ':' || port[1] == '\0')
		return ("has no port");
	port++;
	hlen = (size_t)(hend - h);
	if (hlen == 0 || hlen >= sizeof(host))
		return ("has no valid host");
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (strcmp(host, "*") == 0 && spec[5] != '[')
		hp = host;
	else if (spec[5] == '[' && inet_pton(AF_INET6, host, &a6) == 1)
		hp = (char *)inet_ntop(AF_INET6, &a6, canon, sizeof(canon));
	else if (spec[5] != '[' && inet_pton(AF_INET, host, &a4) == 1)
		hp = (char *)inet_ntop(AF_INET, &a4, canon, sizeof(canon));
	else
		return ("has a host that is neither an IP address nor *");
	if (hp == NULL)
		return ("has a host that is neither an IP address nor *");
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5)
		return ("has a port that is not a number 1..65535");
	pn = strtol(port, NULL, 10);
	if (pn < 1 || pn > CONFIG_MAX_PORT)
		return ("has a port that is not a number 1..65535");
	l->kind = CONFIG_LISTEN_INET;
	l->host = xstrdup(hp);
	snprintf(canon, sizeof(canon), "%ld", pn);
	l->port = xstrdup(canon);
	return (NULL);
}

/* config_listen_conflict - whether a and b cannot both be bound */
static int
config_listen_conflict(const struct config_listen *a,
    const struct config_listen *b)
{
	if (a->kind != b->kind)
		return (0);
	if (a->kind == CONFIG_LISTEN_UNIX)
		return (strcmp(a->path, b->path) == 0);
	if (strcmp(a->port, b->port) != 0)
		return (0);
	/* "*" is every address: a second socket on its port cannot bind */
	return (strcmp(a->host, b->host) == 0 || strcmp(a->host, "*") == 0 ||
	    strcmp(b->host, "*") == 0);
}

/* config_mode - an octal socket mode string, 3 or 4 digits, <= 0777 */
static int
config_mode(const char *s, mode_t *mode)
{
	size_t	 len = strlen(s);
	long	 v;

	if (len < 3 || len > 4 || strspn(s, "01234567") != len)
		return (-1);
	v = strtol(s, NULL, 8);
	if (v > 0777)
		return (-1);
	*mode = (mode_t)v;
	return (0);
}

/* -- building the struct config ------------------------------------- */

/* config_build_listen - the listen sections, or the default listener */
static void
config_build_listen(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	static const char *const unix_only[] = { "mode", "owner", "group",
		NULL };
	char	 esc[LOG_ESCAPE_MAX + 8], what[LOG_ESCAPE_MAX + 32];
	struct config_listen *l;
	const char *spec, *why, *mode;
	const char *const *o;
	unsigned int i, n = cfg_size(cfg, "listen");
	cfg_t	*sec = NULL;
	size_t	 j;

	cf->listen = xcalloc(n > 0 ? n : 1, sizeof(*cf->listen));
	for (i = 0; i < n || (n == 0 && i == 0); i++) {
		if (n > 0) {
			sec = cfg_getnsec(cfg, "listen", i);
			spec = cfg_title(sec);
		} else
			spec = CONFIG_DEFAULT_LISTEN;
		l = &cf->listen[cf->nlisten];
		l->spec = xstrdup(spec);
		config_esc(esc, sizeof(esc), spec);
		snprintf(what, sizeof(what), "listen \"%s\"", esc);
		if ((why = config_listen_parse(spec, l)) != NULL) {
			config_err(ctx, sec, NULL, 0, "listen \"%s\" %s", esc,
			    why);
			cf->nlisten++;
			continue;
		}
		cf->nlisten++;
		if (sec == NULL)
			continue;
		if (l->kind == CONFIG_LISTEN_INET) {
			for (o = unix_only; *o != NULL; o++)
				if (cfg_getopt(sec, *o)->flags & CFGF_MODIFIED)
					config_err(ctx, sec, *o, 0, "%s: %s "
					    "applies to unix sockets only",
					    what, *o);
		} else {
			mode = config_str(sec, "mode");
			if (config_mode(mode, &l->mode) == -1)
				config_err(ctx, sec, "mode", 0, "%s: mode must "
				    "be an octal string like \"0660\"", what);
			l->owner = config_name(ctx, sec, what, "owner");
			l->group = config_name(ctx, sec, what, "group");
		}
		for (j = 0; j + 1 < cf->nlisten; j++) {
			if (cf->listen[j].kind == l->kind &&
			    (cf->listen[j].path != NULL ||
			    cf->listen[j].host != NULL) &&
			    config_listen_conflict(&cf->listen[j], l)) {
				config_err(ctx, sec, NULL, 0, "%s duplicates "
				    "listen \"%s\" at line %d", what,
				    config_esc(esc, sizeof(esc),
				    cf->listen[j].spec), config_sec_line(
				    cfg_getnsec(cfg, "listen", (unsigned)j)));
				break;
			}
		}
	}
}

/*
 * config_build_metrics - the optional metrics listener: an IP address and
 * port of its own ("" = off), never one of the socketmap listeners'
 */
static void
config_build_metrics(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *spec = config_str(cfg, "metrics"), *why;
	struct config_listen *l;
	size_t	 j;

	if (spec == NULL || *spec == '\0')
		return;
	config_esc(esc, sizeof(esc), spec);
	l = cf->metrics = xcalloc(1, sizeof(*cf->metrics));
	l->spec = xstrdup(spec);
	if ((why = config_listen_parse(spec, l)) != NULL) {
		config_err(ctx, cfg, "metrics", 0, "metrics \"%s\" %s", esc,
		    why);
		return;
	}
	if (l->kind != CONFIG_LISTEN_INET || strcmp(l->host, "*") == 0) {
		config_err(ctx, cfg, "metrics", 0, "metrics \"%s\" must be "
		    "inet:ADDRESS:PORT with an IP address (0.0.0.0 for all)",
		    esc);
		return;
	}
	for (j = 0; j < cf->nlisten; j++)
		if (cf->listen[j].host != NULL &&
		    config_listen_conflict(&cf->listen[j], l))
			config_err(ctx, cfg, "metrics", 0, "metrics \"%s\" "
			    "uses the address of a socketmap listener", esc);
}

/* config_map_name_ok - [A-Za-z0-9._-]{1,64} */
static int
config_map_name_ok(const char *s)
{
	size_t	 len = strlen(s);

	return (len >= 1 && len <= CONFIG_MAX_MAP_NAME &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == len);
}

/* config_build_maps - the map sections, or the default map */
static void
config_build_maps(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	struct config_map *m;
	const char *name, *ta;
	unsigned int i, n = cfg_size(cfg, "map");
	cfg_t	*sec;

	cf->maps = xcalloc(n > 0 ? n : 1, sizeof(*cf->maps));
	if (n == 0) {
		cf->maps[0].name = xstrdup(CONFIG_DEFAULT_MAP);
		cf->maps[0].testing_answer = CONFIG_ANSWER_NOTFOUND;
		cf->maps[0].dane = 1;
		cf->maps[0].dane_some = CONFIG_DANE_SOME_DANE;
		cf->maps[0].dane_lookup_failure = CONFIG_DANE_FAILURE_TEMP;
		cf->nmaps = 1;
		cf->dane = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		sec = cfg_getnsec(cfg, "map", i);
		name = cfg_title(sec);
		m = &cf->maps[cf->nmaps++];
		m->name = xstrdup(name);
		config_esc(esc, sizeof(esc), name);
		if (!config_map_name_ok(name))
			config_err(ctx, sec, NULL, 0, "map \"%s\": a map name "
			    "is 1 to %d letters, digits, '.', '_' or '-'", esc,
			    CONFIG_MAX_MAP_NAME);
		ta = config_str(sec, "testing_answer");
		if (strcasecmp(ta, "notfound") == 0)
			m->testing_answer = CONFIG_ANSWER_NOTFOUND;
		else if (strcasecmp(ta, "may") == 0)
			m->testing_answer = CONFIG_ANSWER_MAY;
		else
			config_err(ctx, sec, "testing_answer", 0, "map \"%s\": "
			    "testing_answer must be notfound or may", esc);
		m->tlsrpt = cfg_getbool(sec, "tlsrpt") ? 1 : 0;
		m->dane = cfg_getbool(sec, "dane") ? 1 : 0;
		if (m->dane)
			cf->dane = 1;
		ta = config_str(sec, "dane_some");
		if (strcasecmp(ta, "dane") == 0)
			m->dane_some = CONFIG_DANE_SOME_DANE;
		else if (strcasecmp(ta, "dane-only") == 0)
			m->dane_some = CONFIG_DANE_SOME_DANE_ONLY;
		else if (strcasecmp(ta, "ignore") == 0)
			m->dane_some = CONFIG_DANE_SOME_IGNORE;
		else
			config_err(ctx, sec, "dane_some", 0, "map \"%s\": "
			    "dane_some must be dane, dane-only or ignore", esc);
		ta = config_str(sec, "dane_lookup_failure");
		if (strcasecmp(ta, "temp") == 0)
			m->dane_lookup_failure = CONFIG_DANE_FAILURE_TEMP;
		else if (strcasecmp(ta, "ignore") == 0)
			m->dane_lookup_failure = CONFIG_DANE_FAILURE_IGNORE;
		else
			config_err(ctx, sec, "dane_lookup_failure", 0, "map "
			    "\"%s\": dane_lookup_failure must be temp or "
			    "ignore", esc);
	}
}

/* config_pin_err - pins_parse's errors, at the option's line */
struct config_pin_err {
	struct config_ctx *ctx;
	cfg_t		*sec;
};

static void
config_pin_err(void *arg, const char *field, const char *msg)
{
	struct config_pin_err *pe = arg;

	config_err(pe->ctx, pe->sec, field, 0, "%s", msg);
}

/* config_build_domain - one pinned domain: the name, then the pin's
 * grammar (policy/pins.c) */
static void
config_build_domain(struct config_ctx *ctx, cfg_t *sec,
    struct config_domain *d)
{
	char	 esc[LOG_ESCAPE_MAX + 8], name[DOMAIN_BUFSZ];
	const char *title = cfg_title(sec);
	struct config_pin_err pe = { ctx, sec };
	enum domain_check dc;

	dc = domain_check(title, strlen(title), DOMAIN_NAME_UNDERSCORE |
	    DOMAIN_NAME_DOT, 2, name);
	if (dc != DOMAIN_CHECK_OK) {
		config_err(ctx, sec, NULL, 0, "domain \"%s\" %s",
		    config_esc(esc, sizeof(esc), title),
		    domain_check_why(dc));
		d->domain = xstrdup(title);
	} else
		d->domain = xstrdup(name);
	(void)pins_parse(title, config_str(sec, "level"),
	    config_str(sec, "match"), config_str(sec, "servername"), d,
	    config_pin_err, &pe);
}

/* Sort key of a domain: its name, then its place in the file. */
struct config_domain_key {
	const char	*name;
	unsigned int	 idx;
};

/* config_domain_keycmp - qsort comparison of config_domain_key */
static int
config_domain_keycmp(const void *a, const void *b)
{
	const struct config_domain_key *ka = a, *kb = b;
	int	 c;

	if ((c = strcmp(ka->name, kb->name)) != 0)
		return (c);
	return (ka->idx < kb->idx ? -1 : ka->idx > kb->idx);
}

/* config_build_domains - all pinned domains, sorted, no duplicates */
static void
config_build_domains(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8], esc2[LOG_ESCAPE_MAX + 8];
	struct config_domain_key *keys;
	struct config_domain *sorted;
	unsigned int i, n = cfg_size(cfg, "domain");
	cfg_t	*sec, *first;

	if (n == 0)
		return;
	cf->domains = xcalloc(n, sizeof(*cf->domains));
	for (i = 0; i < n; i++) {
		config_build_domain(ctx, cfg_getnsec(cfg, "domain", i),
		    &cf->domains[i]);
		cf->ndomains++;
	}
	keys = xcalloc(n, sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].name = cf->domains[i].domain;
		keys[i].idx = i;
	}
	qsort(keys, n, sizeof(*keys), config_domain_keycmp);
	for (i = 1; i < n; i++) {
		if (strcmp(keys[i - 1].name, keys[i].name) != 0)
			continue;
		sec = cfg_getnsec(cfg, "domain", keys[i].idx);
		first = cfg_getnsec(cfg, "domain", keys[i - 1].idx);
		config_err(ctx, sec, NULL, 0, "domain \"%s\" duplicates domain "
		    "\"%s\" at line %d", config_esc(esc, sizeof(esc),
		    cfg_title(sec)), config_esc(esc2, sizeof(esc2),
		    cfg_title(first)), config_sec_line(first));
	}
	sorted = xcalloc(n, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = cf->domains[keys[i].idx];
	free(cf->domains);
	cf->domains = sorted;
	free(keys);
}

/* config_build_root - the top-level options */
static void
config_build_root(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	const char *s;
	double	 rt;
	long	 ncpu;
	size_t	 i;

	cf->user = config_name(ctx, cfg, NULL, "user");
	cf->group = config_name(ctx, cfg, NULL, "group");
	cf->pid_file = config_path(ctx, cfg, NULL, "pid_file", 1);
	cf->runtime_dir = config_path(ctx, cfg, NULL, "runtime_dir", 0);
	if (cf->runtime_dir != NULL &&
	    strlen(cf->runtime_dir) > CONFIG_MAX_RUNTIME_DIR)
		config_err(ctx, cfg, "runtime_dir", 0, "runtime_dir is longer "
		    "than %d bytes (its sockets must fit in sun_path)",
		    CONFIG_MAX_RUNTIME_DIR);

	cf->workers = (int)config_int(ctx, cfg, NULL, "workers", 0,
	    CONFIG_MAX_WORKERS);
	if (cf->workers == 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cf->workers = ncpu < 1 ? 1 : ncpu > CONFIG_MAX_WORKERS ?
		    CONFIG_MAX_WORKERS : (int)ncpu;
	}
	cf->max_connections = (int)config_int(ctx, cfg, NULL,
	    "max_connections", 1, CONFIG_MAX_CONNECTIONS);
	cf->idle_timeout = (int)config_int(ctx, cfg, NULL, "idle_timeout", 1,
	    CONFIG_MAX_IDLE_TIMEOUT);
	cf->max_inflight = (int)config_int(ctx, cfg, NULL, "max_inflight", 1,
	    CONFIG_MAX_INFLIGHT);
	cf->max_resolutions = (int)config_int(ctx, cfg, NULL,
	    "max_resolutions", 1, CONFIG_MAX_RESOLUTIONS);

	rt = cfg_getfloat(cfg, "request_timeout") * 1000.0;
	if (!(rt >= CONFIG_MIN_REQUEST_TIMEOUT_MS &&
	    rt <= CONFIG_MAX_REQUEST_TIMEOUT_MS))
		config_err(ctx, cfg, "request_timeout", 0, "request_timeout "
		    "must be between %g and %g seconds, not %g",
		    CONFIG_MIN_REQUEST_TIMEOUT_MS / 1000.0,
		    CONFIG_MAX_REQUEST_TIMEOUT_MS / 1000.0, rt / 1000.0);
	else
		cf->request_timeout_ms = (int)(rt + 0.5);

	s = config_str(cfg, "deadline_answer");
	if (strcasecmp(s, "notfound") == 0)
		cf->deadline_answer = CONFIG_ANSWER_NOTFOUND;
	else if (strcasecmp(s, "temp") == 0)
		cf->deadline_answer = CONFIG_ANSWER_TEMP;
	else
		config_err(ctx, cfg, "deadline_answer", 0,
		    "deadline_answer must be notfound or temp, not \"%s\"",
		    config_esc(esc, sizeof(esc), s));

	s = config_str(cfg, "syslog_facility");
	for (i = 0; i < sizeof(config_facilities) /
	    sizeof(config_facilities[0]); i++)
		if (strcasecmp(s, config_facilities[i].name) == 0)
			break;
	if (i < sizeof(config_facilities) / sizeof(config_facilities[0]))
		cf->syslog_facility = config_facilities[i].value;
	else {
		cf->syslog_facility = LOG_MAIL;
		config_err(ctx, cfg, "syslog_facility", 0, "syslog_facility "
		    "must be mail, daemon or local0..local7, not \"%s\"",
		    config_esc(esc, sizeof(esc), s));
	}
	cf->verbose = (int)config_int(ctx, cfg, NULL, "verbose", 0,
	    CONFIG_MAX_VERBOSE);
}

/*
 * config_addr_ok - an unbound forwarder: an IP address, optionally
 * followed by "@port"
 */
static int
config_addr_ok(const char *s)
{
	unsigned char addr[sizeof(struct in6_addr)];
	char	 host[INET6_ADDRSTRLEN];
	const char *at = strchr(s, '@');
	size_t	 hlen = at != NULL ? (size_t)(at - s) : strlen(s);
	long	 port;

	if (hlen == 0 || hlen >= sizeof(host))
		return (0);
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, addr) != 1 &&
	    inet_pton(AF_INET6, host, addr) != 1)
		return (0);
	if (at == NULL)
		return (1);
	if (at[1] == '\0' || strlen(at + 1) > 5 ||
	    strspn(at + 1, "0123456789") != strlen(at + 1))
		return (0);
	port = strtol(at + 1, NULL, 10);
	return (port >= 1 && port <= CONFIG_MAX_PORT);
}

/* config_ub_option_ok - "name: value" as unbound.conf(5) spells it */
static int
config_ub_option_ok(const char *s)
{
	size_t	 n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");

	if (n == 0 || s[n] != ':' || strlen(s) > CONFIG_MAX_UB_OPTION)
		return (0);
	s += n + 1;
	s += strspn(s, " \t");
	return (*s != '\0');
}

/* config_build_dns - the dns section */
static void
config_build_dns(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "dns");
	unsigned int i, j, n;
	const char *s;

	cf->dns.trust_anchor_file = config_path(ctx, sec, "dns",
	    "trust_anchor_file", 1);
	cf->dns.root_hints = config_path(ctx, sec, "dns", "root_hints", 1);
	cf->dns.unbound_config = config_path(ctx, sec, "dns",
	    "unbound_config", 1);
	cf->dns.use_resolv_conf = cfg_getbool(sec, "use_resolv_conf") ? 1 : 0;

	n = cfg_size(sec, "forwarders");
	cf->dns.forwarders = xcalloc((size_t)n + 1, sizeof(char *));
	for (i = j = 0; i < n; i++) {
		s = cfg_getnstr(sec, "forwarders", i);
		if (s == NULL || !config_addr_ok(s)) {
			config_err(ctx, sec, "forwarders", i, "dns: forwarder "
			    "\"%s\" is not an IP address (with optional @port)",
			    config_esc(esc, sizeof(esc), s ? s : ""));
			continue;
		}
		cf->dns.forwarders[j++] = xstrdup(s);
	}
	if (n > 0 && cf->dns.use_resolv_conf)
		config_err(ctx, sec, "use_resolv_conf", 0, "dns: forwarders "
		    "and use_resolv_conf = true exclude each other");

	n = cfg_size(sec, "unbound_options");
	cf->dns.unbound_options = xcalloc((size_t)n + 1, sizeof(char *));
	for (i = j = 0; i < n; i++) {
		s = cfg_getnstr(sec, "unbound_options", i);
		if (s == NULL || !config_ub_option_ok(s)) {
			config_err(ctx, sec, "unbound_options", i, "dns: "
			    "unbound option \"%s\" is not \"name: value\"",
			    config_esc(esc, sizeof(esc), s ? s : ""));
			continue;
		}
		cf->dns.unbound_options[j++] = xstrdup(s);
	}
}

/* config_build_https - the https section */
static void
config_build_https(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "https");
	const char *s;
	size_t	 i;

	cf->https.ca_file = config_path(ctx, sec, "https", "ca_file", 1);
	s = config_str(sec, "proxy");
	if (*s != '\0') {
		for (i = 0; s[i] != '\0'; i++)
			if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
				break;
		if (s[i] != '\0' || i > CONFIG_MAX_PROXY)
			config_err(ctx, sec, "proxy", 0, "https: proxy \"%s\" "
			    "is not a URL", config_esc(esc, sizeof(esc), s));
		else
			cf->https.proxy = xstrdup(s);
	}
	cf->https.connect_timeout = (int)config_int(ctx, sec, "https",
	    "connect_timeout", 1, CONFIG_MAX_HTTPS_TIMEOUT);
	cf->https.timeout = (int)config_int(ctx, sec, "https", "timeout", 1,
	    CONFIG_MAX_HTTPS_TIMEOUT);
	if (cf->https.connect_timeout > cf->https.timeout)
		config_err(ctx, sec, "connect_timeout", 0, "https: "
		    "connect_timeout (%d) is longer than timeout (%d)",
		    cf->https.connect_timeout, cf->https.timeout);
	/* RFC 8461 §3.3 lets a sender cap the policy size; the parser's
	 * limit (64 KiB) is the most it can take, so only lower is allowed */
	cf->https.max_policy_size = (size_t)config_int(ctx, sec, "https",
	    "max_policy_size", CONFIG_MIN_POLICY_SIZE, CONFIG_MAX_POLICY_SIZE);
}

/* config_build_cache - the cache section */
static void
config_build_cache(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	cfg_t	*sec = cfg_getsec(cfg, "cache");
	long	 v;

	cf->cache.path = config_path(ctx, sec, "cache", "path", 0);
	v = config_int(ctx, sec, "cache", "max_size", CONFIG_MIN_CACHE_SIZE,
	    CONFIG_MAX_CACHE_SIZE);
	cf->cache.max_size = v > 0 ? (size_t)v : 0;
	cf->cache.negative_ttl = (int)config_int(ctx, sec, "cache",
	    "negative_ttl", 1, CONFIG_MAX_NEGATIVE_TTL);
	cf->cache.refresh_before = (int)config_int(ctx, sec, "cache",
	    "refresh_before", 0, CONFIG_MAX_REFRESH_BEFORE);
	cf->cache.refresh_interval = (int)config_int(ctx, sec, "cache",
	    "refresh_interval", 1, CONFIG_MAX_REFRESH_INTERVAL);
	/* 0: a quarter of the discovery slots, the rest left to requests */
	v = config_int(ctx, sec, "cache", "refresh_concurrency", 0,
	    CONFIG_MAX_RESOLUTIONS);
	if (v > cf->max_resolutions && cf->max_resolutions > 0)
		config_err(ctx, sec, "refresh_concurrency", 0, "cache: "
		    "refresh_concurrency (%ld) is more than max_resolutions "
		    "(%d)", v, cf->max_resolutions);
	else if (v == 0)
		v = cf->max_resolutions > 4 ? cf->max_resolutions / 4 : 1;
	cf->cache.refresh_concurrency = (int)v;
	cf->cache.enabled = cfg_getbool(sec, "enabled") ? 1 : 0;
}

/* -- the fleet section ---------------------------------------------- */

/*
 * config_fleet_ms - a fleet time option in seconds (fraction allowed) as
 * milliseconds in [1, CONFIG_MAX_FLEET_TIMEOUT_MS]
 */
static int
config_fleet_ms(struct config_ctx *ctx, cfg_t *sec, const char *name)
{
	double	 v = cfg_getfloat(sec, name) * 1000.0;

	if (v < 1.0 || v > (double)CONFIG_MAX_FLEET_TIMEOUT_MS) {
		config_err(ctx, sec, name, 0, "fleet: %s must be between "
		    "0.001 and %d seconds", name,
		    CONFIG_MAX_FLEET_TIMEOUT_MS / 1000);
		return (1);
	}
	return ((int)(v + 0.5));
}

/*
 * config_fleet_server - parse "/path" (unix socket) or "host:port",
 * "[v6]:port" into *sv; NULL or why not
 */
static const char *
config_fleet_server(const char *spec, struct config_fleet_server *sv)
{
	const char *colon, *host;
	size_t	 hlen;
	long	 port;
	char	*end;
	unsigned char a[sizeof(struct in6_addr)];
	char	 hbuf[INET6_ADDRSTRLEN + 1];

	memset(sv, 0, sizeof(*sv));
	if (spec[0] == '/') {
		if (strlen(spec) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return ("is too long for a unix socket path");
		if (config_path_ok(spec) != NULL)
			return ("is not a usable path");
		sv->path = xstrdup(spec);
		sv->spec = xstrdup(spec);
		return (NULL);
	}
	if ((colon = strrchr(spec, ':')) == NULL)
		return ("is neither /path nor host:port");
	host = spec;
	hlen = (size_t)(colon - spec);
	if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(hbuf))
		return ("has no usable address");
	memcpy(hbuf, host, hlen);
	hbuf[hlen] = '\0';
	/* an address, not a name: the resolver resolves nothing in its
	 * start-up path, and a name would hide which server is meant */
	if (inet_pton(AF_INET, hbuf, a) != 1 &&
	    inet_pton(AF_INET6, hbuf, a) != 1)
		return ("has no IPv4 or IPv6 address before the port");
	if (!isdigit((unsigned char)colon[1]))
		return ("has no port");
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port < 1 || port > 65535)
		return ("has no valid port (1-65535)");
	sv->host = xstrdup(hbuf);
	sv->port = (int)port;
	sv->spec = xstrdup(spec);
	return (NULL);
}

/*
 * config_fleet_secret - read a secret file (password or key) into a new
 * buffer of *len bytes (NUL-terminated too), one trailing newline removed;
 * NULL with *why set
 */
static unsigned char *
config_fleet_secret(const char *path, size_t min, size_t max, size_t *len,
    const char **why)
{
	unsigned char *out;
	struct stat st;
	ssize_t	 n;
	size_t	 got = 0;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		*why = strerror(errno);
		return (NULL);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return (NULL);
	}
	if ((st.st_mode & (S_IRWXO)) != 0) {
		*why = "readable by others (chmod o-rwx)";
		close(fd);
		return (NULL);
	}
	out = xmalloc(max + 2);
	while (got < max + 1) {
		n = read(fd, out + got, max + 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got > 0 && out[got - 1] == '\n')
		got--;
	if (got > 0 && out[got - 1] == '\r')
		got--;
	if (got > max || got < min) {
		*why = got > max ? "is too long" : "is too short";
		explicit_bzero(out, max + 2);
		free(out);
		return (NULL);
	}
	out[got] = '\0';
	*len = got;
	return (out);
}

/* config_fleet_servers - the specs of list name (servers or sentinels):
 * an array (NULL if none) with *np of them valid, errors reported */
static struct config_fleet_server *
config_fleet_servers(struct config_ctx *ctx, cfg_t *sec, const char *name,
    size_t *np)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	struct config_fleet_server *v;
	const char *s, *why;
	unsigned int i, n = sec != NULL ? cfg_size(sec, name) : 0;

	*np = 0;
	if (n > CONFIG_MAX_FLEET_SERVERS) {
		config_err(ctx, sec, name, 0, "fleet: more than %d %s",
		    CONFIG_MAX_FLEET_SERVERS, name);
		return (NULL);
	}
	v = n ? xcalloc(n, sizeof(*v)) : NULL;
	for (i = 0; i < n; i++) {
		s = cfg_getnstr(sec, name, i);
		if ((why = config_fleet_server(s != NULL ? s : "",
		    &v[*np])) != NULL)
			config_err(ctx, sec, name, i, "fleet: %s \"%s\" %s",
			    strcmp(name, "servers") == 0 ? "server" :
			    "sentinel", config_esc(esc, sizeof(esc),
			    s != NULL ? s : ""), why);
		else
			(*np)++;
	}
	return (v);
}

/* config_fleet_servers_free - what config_fleet_servers made */
static void
config_fleet_servers_free(struct config_fleet_server *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(v[i].spec);
		free(v[i].path);
		free(v[i].host);
	}
	free(v);
}

/* config_build_fleet - the fleet section */
static void
config_build_fleet(struct config_ctx *ctx, cfg_t *cfg, struct config *cf)
{
	char	 esc[LOG_ESCAPE_MAX + 8];
	cfg_t	*sec = cfg_getsec(cfg, "fleet");
	struct config_fleet *fl = &cf->fleet;
	const char *s, *why;
	size_t	 len;
	char	*path;

	s = config_str(sec, "mode");
	if (strcmp(s, "read-write") == 0)
		fl->mode = CONFIG_FLEET_READ_WRITE;
	else if (strcmp(s, "read-only") == 0)
		fl->mode = CONFIG_FLEET_READ_ONLY;
	else
		config_err(ctx, sec, "mode", 0, "fleet: mode \"%s\" is not "
		    "read-write or read-only", config_esc(esc, sizeof(esc), s));
	s = config_str(sec, "prefix");
	if (strlen(s) > CONFIG_MAX_FLEET_PREFIX)
		config_err(ctx, sec, "prefix", 0, "fleet: prefix is longer "
		    "than %d bytes", CONFIG_MAX_FLEET_PREFIX);
	else if (strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-/") != strlen(s))
		config_err(ctx, sec, "prefix", 0, "fleet: prefix \"%s\" may "
		    "hold letters, digits and :._-/ only",
		    config_esc(esc, sizeof(esc), s));
	else
		fl->prefix = xstrdup(s);
	fl->timeout_ms = config_fleet_ms(ctx, sec, "timeout");
	fl->connect_timeout_ms = config_fleet_ms(ctx, sec, "connect_timeout");
	fl->lease_wait_ms = config_fleet_ms(ctx, sec, "lease_wait");
	fl->lease = (int)config_int(ctx, sec, "fleet", "lease", 1,
	    CONFIG_MAX_FLEET_LEASE);
	fl->grace = (int)config_int(ctx, sec, "fleet", "grace", 0,
	    CONFIG_MAX_FLEET_GRACE);
	if (fl->lease_wait_ms > fl->lease * 1000)
		config_err(ctx, sec, "lease_wait", 0, "fleet: lease_wait is "
		    "longer than the lease (%d s)", fl->lease);
	s = config_str(sec, "user");
	if (*s != '\0') {
		if (!config_name_ok(s))
			config_err(ctx, sec, "user", 0, "fleet: user \"%s\" "
			    "is not a valid user name",
			    config_esc(esc, sizeof(esc), s));
		else
			fl->user = xstrdup(s);
	}
	if ((path = config_path(ctx, sec, "fleet", "password_file", 1)) !=
	    NULL) {
		fl->password_file = xstrdup(path);
		fl->password = (char *)config_fleet_secret(path, 1,
		    CONFIG_MAX_FLEET_SECRET, &len, &why);
		if (fl->password == NULL)
			config_err(ctx, sec, "password_file", 0, "fleet: "
			    "password_file %s: %s", config_esc(esc,
			    sizeof(esc), path), why);
		else if (strlen(fl->password) != len ||
		    strchr(fl->password, '\n') != NULL)
			config_err(ctx, sec, "password_file", 0, "fleet: "
			    "password_file %s holds more than one line",
			    config_esc(esc, sizeof(esc), path));
		free(path);
	}
	if (fl->user != NULL && fl->password == NULL)
		config_err(ctx, sec, "user", 0, "fleet: user needs a "
		    "password_file");
	if ((fl->key_file = config_path(ctx, sec, "fleet", "key_file", 1)) !=
	    NULL) {
		fl->key = config_fleet_secret(fl->key_file,
		    CONFIG_MIN_FLEET_KEY, CONFIG_MAX_FLEET_KEY, &fl->keylen,
		    &why);
		if (fl->key == NULL)
			config_err(ctx, sec, "key_file", 0, "fleet: key_file "
			    "%s: %s (%d to %d bytes)", config_esc(esc,
			    sizeof(esc), fl->key_file), why,
			    CONFIG_MIN_FLEET_KEY, CONFIG_MAX_FLEET_KEY);
	}
	fl->servers = config_fleet_servers(ctx, sec, "servers",
	    &fl->nservers);
	fl->sentinels = config_fleet_servers(ctx, sec, "sentinels",
	    &fl->nsentinels);
	s = config_str(sec, "master_name");
	if (fl->nsentinels > 0 && fl->nservers > 0)
		config_err(ctx, sec, "sentinels", 0, "fleet: servers and "
		    "sentinels exclude each other (the sentinels name the "
		    "server)");
	else if (fl->nsentinels > 0 && *s == '\0')
		config_err(ctx, sec, "sentinels", 0, "fleet: sentinels need "
		    "master_name (the name in their \"sentinel monitor\" "
		    "line)");
	else if (*s != '\0' && fl->nsentinels == 0)
		config_err(ctx, sec, "master_name", 0, "fleet: master_name "
		    "without sentinels");
	else if (strlen(s) > CONFIG_MAX_FLEET_PREFIX || strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") != strlen(s))
		config_err(ctx, sec, "master_name", 0, "fleet: master_name "
		    "\"%s\" may hold up to %d letters, digits and ._- only",
		    config_esc(esc, sizeof(esc), s), CONFIG_MAX_FLEET_PREFIX);
	else if (*s != '\0')
		fl->master_name = xstrdup(s);
	fl->enabled = fl->nservers > 0 || fl->master_name != NULL;
#ifndef HAVE_FLEET
	if (fl->enabled)
		config_err(ctx, sec, "servers", 0, "fleet: this postsmtpsts "
		    "was built without the fleet tier (configure "
		    "--with-fleet, libhiredis-dev)");
#endif
}

/* -- interface ------------------------------------------------------ */

const struct config_fleet_server *
config_fleet_list(const struct config_fleet *fl, size_t *n, const char **what)
{
	if (what != NULL)
		*what = fl->nsentinels > 0 ? "sentinels" : "servers";
	*n = fl->nsentinels > 0 ? fl->nsentinels : fl->nservers;
	return (fl->nsentinels > 0 ? fl->sentinels : fl->servers);
}

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
		config_errorf(&ctx, line, "%s", what);
		free(text);
		return (NULL);
	}

	config_cur = &ctx;
	if ((cfg = cfg_init(config_opts, CFGF_NONE)) == NULL) {
		config_errorf(&ctx, 0, "out of memory");
		goto out;
	}
	cfg_set_error_function(cfg, config_cb_error);
	/* cfg_parse_fp() names what it reads "FILE" unless told */
	free(cfg->filename);
	if ((cfg->filename = strdup(path)) == NULL) {
		config_errorf(&ctx, 0, "out of memory");
		goto out;
	}
	if ((fp = fmemopen(text, len, "r")) == NULL) {
		config_errorf(&ctx, 0, "fmemopen: %s", strerror(errno));
		goto out;
	}
	rc = cfg_parse_fp(cfg, fp);
	fclose(fp);
	if (rc != CFG_SUCCESS) {
		if (ctx.nerr == 0)
			config_errorf(&ctx, 0, "syntax error");
		goto out;
	}

	cf = xcalloc(1, sizeof(*cf));
	cf->file = xstrdup(path);
	config_build_root(&ctx, cfg, cf);
	config_build_listen(&ctx, cfg, cf);
	config_build_metrics(&ctx, cfg, cf);
	config_build_maps(&ctx, cfg, cf);
	config_build_domains(&ctx, cfg, cf);
	config_build_dns(&ctx, cfg, cf);
	config_build_https(&ctx, cfg, cf);
	config_build_cache(&ctx, cfg, cf);
	config_build_fleet(&ctx, cfg, cf);
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

/* config_free_strv - free a NULL-terminated array of strings */
static void
config_free_strv(char **v)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
config_free(struct config *cf)
{
	size_t	 i;

	if (cf == NULL)
		return;
	for (i = 0; i < cf->nlisten; i++) {
		free(cf->listen[i].spec);
		free(cf->listen[i].path);
		free(cf->listen[i].host);
		free(cf->listen[i].port);
		free(cf->listen[i].owner);
		free(cf->listen[i].group);
	}
	free(cf->listen);
	if (cf->metrics != NULL) {
		free(cf->metrics->spec);
		free(cf->metrics->host);
		free(cf->metrics->port);
		free(cf->metrics->path);	/* a refused unix: spec */
		free(cf->metrics->owner);
		free(cf->metrics->group);
		free(cf->metrics);
	}
	for (i = 0; i < cf->nmaps; i++)
		free(cf->maps[i].name);
	free(cf->maps);
	for (i = 0; i < cf->ndomains; i++) {
		free(cf->domains[i].domain);
		free(cf->domains[i].level);
		free(cf->domains[i].match);
		free(cf->domains[i].servername);
		free(cf->domains[i].answer);
	}
	free(cf->domains);
	free(cf->user);
	free(cf->group);
	free(cf->pid_file);
	free(cf->runtime_dir);
	free(cf->dns.trust_anchor_file);
	free(cf->dns.root_hints);
	config_free_strv(cf->dns.forwarders);
	free(cf->dns.unbound_config);
	config_free_strv(cf->dns.unbound_options);
	free(cf->https.ca_file);
	free(cf->https.proxy);
	free(cf->cache.path);
	config_fleet_servers_free(cf->fleet.servers, cf->fleet.nservers);
	config_fleet_servers_free(cf->fleet.sentinels, cf->fleet.nsentinels);
	free(cf->fleet.master_name);
	free(cf->fleet.prefix);
	free(cf->fleet.user);
	if (cf->fleet.password != NULL) {
		explicit_bzero(cf->fleet.password, strlen(cf->fleet.password));
		free(cf->fleet.password);
	}
	if (cf->fleet.key != NULL) {
		explicit_bzero(cf->fleet.key, cf->fleet.keylen);
		free(cf->fleet.key);
	}
	free(cf->fleet.key_file);
	free(cf->fleet.password_file);
	free(cf->file);
	free(cf);
}

const struct config_map *
config_find_map(const struct config *cf, const char *name, size_t len)
{
	size_t	 i;

	if (cf == NULL)
		return (NULL);
	for (i = 0; i < cf->nmaps; i++)
		if (strlen(cf->maps[i].name) == len &&
		    memcmp(cf->maps[i].name, name, len) == 0)
			return (&cf->maps[i]);
	return (NULL);
}

/* config_domain_cmp - bsearch comparison: a name against a domain */
static int
config_domain_cmp(const void *key, const void *elem)
{
	const struct config_domain *d = elem;

	return (strcmp(key, d->domain));
}

const struct config_domain *
config_find_domain(const struct config *cf, const char *domain)
{
	if (cf == NULL || cf->ndomains == 0 || domain == NULL)
		return (NULL);
	return (bsearch(domain, cf->domains, cf->ndomains,
	    sizeof(cf->domains[0]), config_domain_cmp));
}

const char *
config_dane_some_name(enum config_dane_some d)
{
	switch (d) {
	case CONFIG_DANE_SOME_DANE:
		return ("dane");
	case CONFIG_DANE_SOME_DANE_ONLY:
		return ("dane-only");
	case CONFIG_DANE_SOME_IGNORE:
		return ("ignore");
	}
	return ("?");
}

const char *
config_answer_name(enum config_answer a)
{
	switch (a) {
	case CONFIG_ANSWER_NOTFOUND:
		return ("notfound");
	case CONFIG_ANSWER_TEMP:
		return ("temp");
	case CONFIG_ANSWER_MAY:
		return ("may");
	}
	return ("?");
}

/*
 * config_dump_str - s as a double-quoted libconfuse string: '"', '\\' and
 * '$' (which would start "${NAME}") escaped, control bytes as \xHH
 */
static void
config_dump_str(FILE *fp, const char *s)
{
	const unsigned char *p;

	putc('"', fp);
	for (p = (const unsigned char *)(s != NULL ? s : ""); *p != '\0';
	    p++) {
		if (*p == '"' || *p == '\\' || *p == '$')
			fprintf(fp, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(fp, "\\x%02x", *p);
		else
			putc(*p, fp);
	}
	putc('"', fp);
}

/* config_dump_kv - "indent name = "value"" */
static void
config_dump_kv(FILE *fp, const char *indent, const char *name, const char *s)
{
	fprintf(fp, "%s%s = ", indent, name);
	config_dump_str(fp, s);
	putc('\n', fp);
}

/* config_dump_list - "indent name = { "a", "b" }" */
static void
config_dump_list(FILE *fp, const char *indent, const char *name, char **v)
{
	size_t	 i;

	fprintf(fp, "%s%s = {", indent, name);
	for (i = 0; v != NULL && v[i] != NULL; i++) {
		fputs(i > 0 ? ", " : " ", fp);
		config_dump_str(fp, v[i]);
	}
	fputs(i > 0 ? " }\n" : "}\n", fp);
}

void
config_dump(const struct config *cf, FILE *fp)
{
	const struct config_listen *l;
	const struct config_fleet_server *sv;
	const char *facility = "?", *what;
	char	 mode[8];
	size_t	 i, n;
	int	 ms;

	for (i = 0; i < sizeof(config_facilities) /
	    sizeof(config_facilities[0]); i++)
		if (config_facilities[i].value == cf->syslog_facility)
			facility = config_facilities[i].name;
	fprintf(fp, "# effective configuration of %s\n", cf->file);
	config_dump_kv(fp, "", "user", cf->user);
	config_dump_kv(fp, "", "group", cf->group);
	config_dump_kv(fp, "", "pid_file", cf->pid_file);
	config_dump_kv(fp, "", "runtime_dir", cf->runtime_dir);
	fprintf(fp, "workers = %d\n", cf->workers);
	fprintf(fp, "max_connections = %d\n", cf->max_connections);
	fprintf(fp, "idle_timeout = %d\n", cf->idle_timeout);
	fprintf(fp, "max_inflight = %d\n", cf->max_inflight);
	fprintf(fp, "max_resolutions = %d\n", cf->max_resolutions);
	ms = cf->request_timeout_ms;
	if (ms % 1000 == 0)
		fprintf(fp, "request_timeout = %d\n", ms / 1000);
	else if (ms % 100 == 0)
		fprintf(fp, "request_timeout = %d.%d\n", ms / 1000,
		    ms % 1000 / 100);
	else if (ms % 10 == 0)
		fprintf(fp, "request_timeout = %d.%02d\n", ms / 1000,
		    ms % 1000 / 10);
	else
		fprintf(fp, "request_timeout = %d.%03d\n", ms / 1000,
		    ms % 1000);
	config_dump_kv(fp, "", "deadline_answer",
	    config_answer_name(cf->deadline_answer));
	config_dump_kv(fp, "", "syslog_facility", facility);
	fprintf(fp, "verbose = %d\n", cf->verbose);
	config_dump_kv(fp, "", "metrics", cf->metrics != NULL ?
	    cf->metrics->spec : "");

	for (i = 0; i < cf->nlisten; i++) {
		l = &cf->listen[i];
		fputs("\nlisten ", fp);
		config_dump_str(fp, l->spec);
		fputs(" {\n", fp);
		if (l->kind == CONFIG_LISTEN_UNIX) {
			snprintf(mode, sizeof(mode), "%04o",
			    (unsigned int)l->mode);
			config_dump_kv(fp, "\t", "mode", mode);
			config_dump_kv(fp, "\t", "owner", l->owner);
			config_dump_kv(fp, "\t", "group", l->group);
		}
		fputs("}\n", fp);
	}
	for (i = 0; i < cf->nmaps; i++) {
		fputs("\nmap ", fp);
		config_dump_str(fp, cf->maps[i].name);
		fputs(" {\n", fp);
		config_dump_kv(fp, "\t", "testing_answer",
		    config_answer_name(cf->maps[i].testing_answer));
		fprintf(fp, "\ttlsrpt = %s\n", cf->maps[i].tlsrpt ? "true" :
		    "false");
		fprintf(fp, "\tdane = %s\n", cf->maps[i].dane ? "true" :
		    "false");
		config_dump_kv(fp, "\t", "dane_some",
		    config_dane_some_name(cf->maps[i].dane_some));
		config_dump_kv(fp, "\t", "dane_lookup_failure",
		    cf->maps[i].dane_lookup_failure == CONFIG_DANE_FAILURE_TEMP ?
		    "temp" : "ignore");
		fputs("}\n", fp);
	}
	for (i = 0; i < cf->ndomains; i++) {
		fputs("\n# answer: ", fp);
		fputs(cf->domains[i].answer, fp);
		fputs("\ndomain ", fp);
		config_dump_str(fp, cf->domains[i].domain);
		fputs(" {\n", fp);
		config_dump_kv(fp, "\t", "level", cf->domains[i].level);
		if (cf->domains[i].match != NULL)
			config_dump_kv(fp, "\t", "match", cf->domains[i].match);
		if (cf->domains[i].servername != NULL)
			config_dump_kv(fp, "\t", "servername",
			    cf->domains[i].servername);
		fputs("}\n", fp);
	}

	fputs("\ndns {\n", fp);
	config_dump_kv(fp, "\t", "trust_anchor_file",
	    cf->dns.trust_anchor_file);
	config_dump_kv(fp, "\t", "root_hints", cf->dns.root_hints);
	config_dump_list(fp, "\t", "forwarders", cf->dns.forwarders);
	fprintf(fp, "\tuse_resolv_conf = %s\n", cf->dns.use_resolv_conf ?
	    "true" : "false");
	config_dump_kv(fp, "\t", "unbound_config", cf->dns.unbound_config);
	config_dump_list(fp, "\t", "unbound_options", cf->dns.unbound_options);
	fputs("}\n\nhttps {\n", fp);
	config_dump_kv(fp, "\t", "ca_file", cf->https.ca_file);
	config_dump_kv(fp, "\t", "proxy", cf->https.proxy);
	fprintf(fp, "\tconnect_timeout = %d\n", cf->https.connect_timeout);
	fprintf(fp, "\ttimeout = %d\n", cf->https.timeout);
	fprintf(fp, "\tmax_policy_size = %zu\n", cf->https.max_policy_size);
	fputs("}\n\ncache {\n", fp);
	config_dump_kv(fp, "\t", "path", cf->cache.path);
	fprintf(fp, "\tmax_size = %zu\n", cf->cache.max_size);
	fprintf(fp, "\tnegative_ttl = %d\n", cf->cache.negative_ttl);
	fprintf(fp, "\trefresh_before = %d\n", cf->cache.refresh_before);
	fprintf(fp, "\trefresh_interval = %d\n", cf->cache.refresh_interval);
	fprintf(fp, "\trefresh_concurrency = %d\n",
	    cf->cache.refresh_concurrency);
	fprintf(fp, "\tenabled = %s\n", cf->cache.enabled ? "true" : "false");
	fputs("}\n", fp);
	if (!cf->fleet.enabled)
		return;
	sv = config_fleet_list(&cf->fleet, &n, &what);
	fprintf(fp, "\nfleet {\n\t%s = {", what);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		config_dump_str(fp, sv[i].spec);
	}
	fputs("}\n", fp);
	if (cf->fleet.master_name != NULL)
		config_dump_kv(fp, "\t", "master_name",
		    cf->fleet.master_name);
	config_dump_kv(fp, "\t", "mode", cf->fleet.mode ==
	    CONFIG_FLEET_READ_ONLY ? "read-only" : "read-write");
	config_dump_kv(fp, "\t", "prefix", cf->fleet.prefix);
	fprintf(fp, "\ttimeout = %d.%03d\n", cf->fleet.timeout_ms / 1000,
	    cf->fleet.timeout_ms % 1000);
	fprintf(fp, "\tconnect_timeout = %d.%03d\n",
	    cf->fleet.connect_timeout_ms / 1000,
	    cf->fleet.connect_timeout_ms % 1000);
	fprintf(fp, "\tlease = %d\n", cf->fleet.lease);
	fprintf(fp, "\tlease_wait = %d.%03d\n", cf->fleet.lease_wait_ms / 1000,
	    cf->fleet.lease_wait_ms % 1000);
	fprintf(fp, "\tgrace = %d\n", cf->fleet.grace);
	config_dump_kv(fp, "\t", "user", cf->fleet.user);
	config_dump_kv(fp, "\t", "password_file", cf->fleet.password_file);
	config_dump_kv(fp, "\t", "key_file", cf->fleet.key_file);
	fputs("}\n", fp);
}
