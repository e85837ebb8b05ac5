/*
 * cache_history.c - postsmtpsts-cache history DOMAIN [json]
 *
 * Interface: cache_history.h.  The files are read with zlib's gzread
 * family, which reads a plain file as it is and a gzip file
 * decompressed, so PATH.2.gz and PATH.1 (logrotate's delaycompress) go
 * through one loop.  Lines are at most HISTORY_LINE_MAX bytes
 * (policy/history.h); a longer one is skipped to its newline and
 * counted, as is any line history_parse() refuses.  Text output, one
 * line an event:
 *
 *	2026-12-07T11:00:00Z mode-downgraded source=fetch trigger=id-change
 *	    old_id=1 id=2 old_mode=enforce mode=none sha256=...
 *
 * (on one line; fields as the event has them, in the file's spelling).
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "lib/log.h"
#include "policy/dane.h"
#include "policy/history.h"
#include "tools/cache_history.h"

/* A pass over the files. */
struct cache_history {
	const char	*domain;
	int		 json;
	size_t		 printed;
	size_t		 bad;		/* lines not understood */
	struct history_event ev;
	char		 line[HISTORY_LINE_MAX + 2];
};

static const char *const cache_history_modes[] = {
	"none", "testing", "enforce"
};

/* cache_history_print - one event as a line of text */
static void
cache_history_print(const struct history_event *ev)
{
	char		 t[32];
	struct tm	 tm;
	time_t		 tt = (time_t)ev->time;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(t, sizeof(t), "@%lld", (long long)ev->time);
	printf("%s %s source=%s", t, history_kind_name(ev->kind),
	    history_source_name(ev->source));
	if (ev->trigger[0] != '\0')
		printf(" trigger=%s", ev->trigger);
	if (ev->old_id[0] != '\0' || ev->id[0] != '\0')
		printf(" old_id=%s id=%s", ev->old_id[0] != '\0' ?
		    ev->old_id : "-", ev->id[0] != '\0' ? ev->id : "-");
	if (ev->old_mode >= 0 || ev->mode >= 0)
		printf(" old_mode=%s mode=%s", ev->old_mode >= 0 ?
		    cache_history_modes[ev->old_mode] : "-", ev->mode >= 0 ?
		    cache_history_modes[ev->mode] : "-");
	if (ev->has_mx)
		printf(" old_mx=%s mx=%s", ev->old_mx[0] != '\0' ?
		    ev->old_mx : "-", ev->mx[0] != '\0' ? ev->mx : "-");
	else if (ev->mx_omitted)
		printf(" mx=(omitted: too long)");
	if (ev->old_dane >= 0 || ev->dane >= 0)
		printf(" old_dane=%s dane=%s", ev->old_dane >= 0 ?
		    dane_state_name((enum dane_state)ev->old_dane) : "-",
		    ev->dane >= 0 ? dane_state_name((enum dane_state)ev->dane) :
		    "-");
	if (ev->expired_at != 0)
		printf(" expired_at=%lld", (long long)ev->expired_at);
	if (ev->sha256[0] != '\0')
		printf(" sha256=%s", ev->sha256);
	if (ev->detail[0] != '\0')
		printf(" detail=\"%s\"", ev->detail);	/* printable ASCII */
	putchar('\n');
}

/* cache_history_file - the events of one file; -1 if it cannot be read */
static int
cache_history_file(struct cache_history *h, const char *path)
{
	const char	*why;
	gzFile		 gz;
	size_t		 len;
	int		 skipping = 0;

	if ((gz = gzopen(path, "rb")) == NULL) {
		log_warn("%s", path);
		return (-1);
	}
	while (gzgets(gz, h->line, (int)sizeof(h->line)) != NULL) {
		len = strlen(h->line);
		if (len == 0 || h->line[len - 1] != '\n') {
			/* too long (skipped to its newline), or a last line
			 * cut short: no writer leaves one */
			if (!skipping)
				h->bad++;
			skipping = !gzeof(gz);
			continue;
		}
		if (skipping) {
			skipping = 0;
			continue;
		}
		if (history_parse(h->line, len - 1, &h->ev, &why) == -1) {
			log_debug(1, "%s: not a history line: %s", path, why);
			h->bad++;
			continue;
		}
		if (strcmp(h->ev.domain, h->domain) != 0)
			continue;
		if (h->json)
			fwrite(h->line, 1, len, stdout);
		else
			cache_history_print(&h->ev);
		h->printed++;
	}
	if (!gzeof(gz)) {
		log_warnx("%s: read error", path);
		(void)gzclose(gz);
		return (-1);
	}
	(void)gzclose(gz);
	return (0);
}

/* cache_history_rotated - the name of copy n of path that exists (plain
 * or .gz) into out; 0 if found, -1 if neither */
static int
cache_history_rotated(const char *path, int n, char *out, size_t outsz)
{
	struct stat	 st;
	int		 k;

	k = snprintf(out, outsz, "%s.%d", path, n);
	if (k < 0 || (size_t)k >= outsz)
		return (-1);
	if (stat(out, &st) == 0)
		return (0);
	k = snprintf(out, outsz, "%s.%d.gz", path, n);
	if (k < 0 || (size_t)k >= outsz)
		return (-1);
	return (stat(out, &st) == 0 ? 0 : -1);
}

int
cache_history_run(const char *path, const char *domain, int json)
{
	static struct cache_history h;
	char		 name[4096];
	struct stat	 st;
	int		 n, last = 0, read = 0;

	memset(&h, 0, sizeof(h));
	h.domain = domain;
	h.json = json;
	while (last + 1 < CACHE_HISTORY_ROTATED_MAX &&
	    cache_history_rotated(path, last + 1, name, sizeof(name)) == 0)
		last++;
	for (n = last; n >= 1; n--)
		if (cache_history_rotated(path, n, name, sizeof(name)) == 0 &&
		    cache_history_file(&h, name) == 0)
			read++;
	if (stat(path, &st) == 0 || errno != ENOENT || read == 0) {
		if (cache_history_file(&h, path) == 0)
			read++;
	}
	if (h.bad > 0)
		log_warnx("%zu line%s of %s%s not understood (skipped)", h.bad,
		    h.bad == 1 ? "" : "s", path, last > 0 ? " and its rotated "
		    "copies" : "");
	if (read == 0)
		return (1);
	if (h.printed == 0) {
		log_warnx("%s: no events in %s%s", domain, path, last > 0 ?
		    " and its rotated copies" : "");
		return (1);
	}
	return (0);
}
