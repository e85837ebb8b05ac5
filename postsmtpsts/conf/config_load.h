/*
 * config_load.h - read and validate the configuration file
 *
 * conf/ is the layer of the configuration file: above policy/, whose pin
 * grammar (policy/pins.h) checks every "domain" section, and below the
 * daemon and the tools, which load the file.  What it builds is the
 * struct config of lib/config.h, which every layer reads; config_free()
 * releases it.  The result is immutable: a reload builds a new struct
 * config and the old one is freed afterwards.
 */
#ifndef CONFIG_LOAD_H
#define CONFIG_LOAD_H

#include <stddef.h>

#include "lib/config.h"

/*
 * config_load - read and validate path
 *
 * Returns a new config, or NULL after writing "file:line: message" lines to
 * errbuf (size errsz, always NUL-terminated) for the caller to print.
 *
 * Each error line ends in a newline; an error not tied to a line (the file
 * cannot be read) is written as "file: message".  Up to CONFIG_MAX_ERRORS
 * are reported; what does not fit in errbuf is cut off.  path NULL means
 * CONFIG_DEFAULT_FILE.  Nothing is allocated after a failure and the
 * process never exits, except when out of memory (xmalloc).  Not
 * reentrant: libconfuse's scanner is global state.
 */
struct config *config_load(const char *path, char *errbuf, size_t errsz);

/*
 * config_load_buffer - config_load() of data[0..len) instead of a file
 *
 * name stands for the file in error messages and cf->file (NULL:
 * CONFIG_DEFAULT_FILE).  Same limits, errors and ownership as
 * config_load(); data need not be NUL-terminated.  For the fuzz target
 * and tests.
 */
struct config *config_load_buffer(const char *name, const char *data,
	    size_t len, char *errbuf, size_t errsz);

#endif
