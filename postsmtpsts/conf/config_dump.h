/*
 * config_dump.h - the configuration, written back in the file's syntax
 */
#ifndef CONFIG_DUMP_H
#define CONFIG_DUMP_H

#include <stdio.h>

#include "lib/config.h"

/*
 * config_dump - print cf to fp in the configuration file's own syntax
 *
 * Every option is printed with its effective value (defaults filled in,
 * workers resolved, domains sorted, each with its composed answer as a
 * comment), so the output loads again (config_load) to the same
 * configuration.
 */
void	config_dump(const struct config *cf, FILE *fp);

#endif
