/*
 * config_int.h - what the configuration loader's files share
 *
 * Private to the files that read the file through libconfuse:
 * config_load.c (the adapter: schema, value callbacks, the entry points),
 * config_error.c (file:line errors), config_value.c (option values,
 * checked), config_sections.c, config_listen.c, config_fleet.c and
 * config_tlsrpt.c (the section builders).  Calls run one way:
 * config_load.c calls the builders, the builders config_value.c, and all
 * of them config_error.c.  These are the only files that include
 * confuse.h, and they include it through this header; config_dump.c and
 * every module outside conf/ see the struct config of lib/config.h only.
 */
#ifndef CONFIG_INT_H
#define CONFIG_INT_H

#include <stddef.h>

#include <confuse.h>

#include "lib/config.h"
#include "lib/log.h"

#define CONFIG_MAX_PORT		65535
#define CONFIG_ERROR_LINE	512	/* one formatted error message */

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

/* -- config_error.c: errors, each at its line ----------------------- */

/* config_error_report - append "file:line: msg" (line 0: "file: msg") to
 * the error buffer; control bytes in msg become '?' */
void	config_error_report(struct config_ctx *ctx, int line,
	    const char *msg);

/* config_error_at - report a formatted error at a line (0: the file) */
void	config_error_at(struct config_ctx *ctx, int line, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

/*
 * config_error - report an error about option name (value idx) of sec at
 * the line it was read, else at the section's line; name NULL: the
 * section
 */
void	config_error(struct config_ctx *ctx, cfg_t *sec, const char *name,
	    unsigned int idx, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

/* config_error_sec_line - the line of a titled section's '{', 0 for
 * others */
int	config_error_sec_line(cfg_t *sec);

/* config_error_esc - a configured value, escaped and bounded for a
 * message (log_escape into out[outsz]) */
const char *config_error_esc(char *out, size_t outsz, const char *s);

/* -- config_value.c: option values, checked -------------------------- */

/* config_value_str - option name of sec as a string, never NULL */
const char *config_value_str(cfg_t *sec, const char *name);

/* config_value_int - an integer option checked against [min, max]; an
 * error names it "secname: name" (secname NULL: the top level) */
long	config_value_int(struct config_ctx *ctx, cfg_t *sec,
	    const char *secname, const char *name, long long min,
	    long long max);

/* config_value_path_ok - NULL if s is an absolute path of sane length with
 * no control bytes, else why not */
const char *config_value_path_ok(const char *s);

/* config_value_path - a path option, allocated; NULL for "" (an error
 * unless empty_ok) or after an error */
char   *config_value_path(struct config_ctx *ctx, cfg_t *sec,
	    const char *secname, const char *name, int empty_ok);

/* config_value_name_ok - whether s is a portable user or group name or a
 * numeric id */
int	config_value_name_ok(const char *s);

/* config_value_name - a user/group name option, allocated; NULL for "" or
 * after an error */
char   *config_value_name(struct config_ctx *ctx, cfg_t *sec,
	    const char *secname, const char *name);

/* -- the section builders: each fills its part of cf, errors to ctx ---- */

/* config_sections.c: the top-level options, maps, pinned domains (their
 * grammar is policy/pins.c's), dns, https, cache */
void	config_sections_root(struct config_ctx *, cfg_t *, struct config *);
void	config_sections_maps(struct config_ctx *, cfg_t *, struct config *);
void	config_sections_domains(struct config_ctx *, cfg_t *,
	    struct config *);
void	config_sections_dns(struct config_ctx *, cfg_t *, struct config *);
void	config_sections_https(struct config_ctx *, cfg_t *, struct config *);
void	config_sections_cache(struct config_ctx *, cfg_t *, struct config *);

/* config_listen.c: the listen sections (or the default listener), then the
 * metrics listener, which must not take one of theirs */
void	config_listen_build(struct config_ctx *, cfg_t *, struct config *);
void	config_listen_metrics(struct config_ctx *, cfg_t *, struct config *);

/* config_fleet.c: the fleet section, its secret files read */
void	config_fleet_build(struct config_ctx *, cfg_t *, struct config *);

/* config_tlsrpt.c: the tlsrpt section (postsmtpsts-tlsrpt(8)); after the
 * maps, whose names it checks */
void	config_tlsrpt_build(struct config_ctx *, cfg_t *, struct config *);

/* config_preload.c: the preload section and its lists */
void	config_preload_build(struct config_ctx *, cfg_t *, struct config *);

#endif
