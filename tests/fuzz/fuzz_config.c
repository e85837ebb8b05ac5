/*
 * fuzz_config.c - libFuzzer target for the configuration parser (conf/:
 * config_load.c, its section builders and the libconfuse scanner beneath)
 *
 * The input is a configuration file, fed through config_load_buffer().  A
 * file that fails must say why: a non-empty error text whose every line is
 * "name:..." and ends in a newline.  A file that loads must keep the
 * promises of config.h: at least one listener, workers resolved to >= 1,
 * pinned domains strictly sorted and found by config_find_domain(), maps
 * found by config_find_map(), and config_dump()'s output must load again
 * and dump to the same text (config.h: "the output loads again to the same
 * configuration").  A broken promise aborts.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "conf/config_dump.h"
#include "conf/config_load.h"
#include "fuzz.h"

#define FUZZ_CONFIG_NAME	"fuzz.conf"
#define FUZZ_CONFIG_ERRSZ	(64 * 1024)	/* > CONFIG_MAX_ERRORS lines */

/* fuzz_config_dump - config_dump() into a new heap string */
static char *
fuzz_config_dump(const struct config *cf, size_t *lenp)
{
	char	*text = NULL;
	FILE	*fp;

	fp = open_memstream(&text, lenp);
	FUZZ_CHECK(fp != NULL);
	config_dump(cf, fp);
	FUZZ_CHECK(fclose(fp) == 0);
	return (text);
}

/* fuzz_config_errors - the error text of a failed load */
static void
fuzz_config_errors(const char *err)
{
	size_t	 len = strlen(err);
	const char *p, *nl;

	FUZZ_CHECK(len > 0 && err[len - 1] == '\n');
	for (p = err; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		FUZZ_CHECK(nl != NULL);
		FUZZ_CHECK(strncmp(p, FUZZ_CONFIG_NAME ":",
		    sizeof(FUZZ_CONFIG_NAME)) == 0);
	}
}

/* fuzz_config_check - the promises of config.h for a loaded config */
static void
fuzz_config_check(const struct config *cf)
{
	size_t	 i;

	FUZZ_CHECK(cf->file != NULL && strcmp(cf->file, FUZZ_CONFIG_NAME) == 0);
	FUZZ_CHECK(cf->nlisten >= 1 && cf->listen != NULL);
	FUZZ_CHECK(cf->workers >= 1 && cf->workers <= CONFIG_MAX_WORKERS);
	FUZZ_CHECK(cf->verbose >= 0 && cf->verbose <= CONFIG_MAX_VERBOSE);
	for (i = 0; i < cf->nlisten; i++)
		FUZZ_CHECK(cf->listen[i].spec != NULL);
	for (i = 0; i < cf->nmaps; i++)
		FUZZ_CHECK(config_find_map(cf, cf->maps[i].name,
		    strlen(cf->maps[i].name)) == &cf->maps[i]);
	for (i = 0; i < cf->ndomains; i++) {
		FUZZ_CHECK(cf->domains[i].answer != NULL);
		FUZZ_CHECK(strchr(cf->domains[i].answer, '\n') == NULL);
		if (i > 0)
			FUZZ_CHECK(strcmp(cf->domains[i - 1].domain,
			    cf->domains[i].domain) < 0);
		FUZZ_CHECK(config_find_domain(cf, cf->domains[i].domain) ==
		    &cf->domains[i]);
		/* a timed exception: as written in one of the two forms, an
		 * end after 2000; none: no end */
		FUZZ_CHECK(cf->domains[i].until == NULL ?
		    cf->domains[i].end == 0 : cf->domains[i].end >
		    946684800 && (strlen(cf->domains[i].until) == 10 ||
		    strlen(cf->domains[i].until) == 20));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	 err[FUZZ_CONFIG_ERRSZ];
	struct config	*cf, *again;
	char		*dump1, *dump2;
	size_t		 len1, len2;

	cf = config_load_buffer(FUZZ_CONFIG_NAME, (const char *)data, size,
	    err, sizeof(err));
	if (cf == NULL) {
		fuzz_config_errors(err);
		return (0);
	}
	FUZZ_CHECK(err[0] == '\0');
	fuzz_config_check(cf);

	dump1 = fuzz_config_dump(cf, &len1);
	again = config_load_buffer(FUZZ_CONFIG_NAME, dump1, len1, err,
	    sizeof(err));
	if (again == NULL)
		fprintf(stderr, "dump does not load:\n%s---\n%s", dump1, err);
	FUZZ_CHECK(again != NULL);
	fuzz_config_check(again);
	dump2 = fuzz_config_dump(again, &len2);
	FUZZ_CHECK(len1 == len2 && memcmp(dump1, dump2, len1) == 0);

	free(dump2);
	free(dump1);
	config_free(again);
	config_free(cf);
	return (0);
}
