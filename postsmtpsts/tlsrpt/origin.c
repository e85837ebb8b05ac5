/*
 * origin.c - who may feed the reporter: Postfix, and nobody else
 *
 * Rules and why: origin.h.
 */
#include "autoconf.h"

#include <sys/types.h>

#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "lib/log.h"
#include "tlsrpt/origin.h"

#define ORIGIN_FIELD_MAX	256	/* a _COMM or _SYSTEMD_UNIT value */

/* origin_id - s a decimal id (no sign, no blank), into *id */
static int
origin_id(const char *s, size_t len, uid_t *id)
{
	uint64_t v = 0;
	size_t	 i;

	if (len == 0 || len > 10)
		return (-1);
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX - 1)		/* (uid_t)-1 is no user */
		return (-1);
	*id = (uid_t)v;
	return (0);
}

int
origin_init(struct origin *o, const struct config_tlsrpt *t, char *err,
    size_t errsz)
{
	struct passwd	*pw;
	size_t		 i;
	uid_t		 id;

	memset(o, 0, sizeof(*o));
	o->t = t;
	for (i = 0; i < t->ntrusted_users &&
	    o->nuids < CONFIG_MAX_TLSRPT_TRUSTED; i++) {
		if (origin_id(t->trusted_users[i],
		    strlen(t->trusted_users[i]), &id) == 0) {
			o->uids[o->nuids++] = id;
			continue;
		}
		errno = 0;
		if ((pw = getpwnam(t->trusted_users[i])) == NULL) {
			log_warnx("tlsrpt: trusted_users: no user \"%s\" "
			    "(skipped)", t->trusted_users[i]);
			continue;
		}
		o->uids[o->nuids++] = pw->pw_uid;
	}
	if (o->nuids == 0) {
		snprintf(err, errsz, "trusted_users: none of them is a user "
		    "of this system");
		return (-1);
	}
	return (0);
}

int
origin_uid_ok(const struct origin *o, uid_t uid)
{
	size_t	 i;

	for (i = 0; i < o->nuids; i++)
		if (o->uids[i] == uid)
			return (1);
	return (0);
}

/* origin_in - v[0..len) is one of the list's words (pattern: fnmatch) */
static int
origin_in(char *const *list, size_t n, const char *v, size_t len,
    int pattern)
{
	char	 s[ORIGIN_FIELD_MAX];
	size_t	 i;

	if (v == NULL || len >= sizeof(s))
		return (0);
	memcpy(s, v, len);
	s[len] = '\0';
	for (i = 0; i < n; i++)
		if (pattern ? fnmatch(list[i], s, 0) == 0 :
		    strcmp(list[i], s) == 0)
			return (1);
	return (0);
}

enum origin_verdict
origin_journal(const struct origin *o, const char *uid, size_t uidlen,
    const char *comm, size_t commlen, const char *unit, size_t unitlen)
{
	uid_t	 id;

	if (uid == NULL || origin_id(uid, uidlen, &id) == -1)
		return (ORIGIN_NO_UID);
	if (!origin_uid_ok(o, id))
		return (ORIGIN_UID);
	if (o->t->ntrusted_commands > 0 && !origin_in(o->t->trusted_commands,
	    o->t->ntrusted_commands, comm, commlen, 0))
		return (ORIGIN_COMM);
	if (o->t->ntrusted_units > 0 && !origin_in(o->t->trusted_units,
	    o->t->ntrusted_units, unit, unitlen, 1))
		return (ORIGIN_UNIT);
	return (ORIGIN_OK);
}

const char *
origin_verdict_name(enum origin_verdict v)
{
	switch (v) {
	case ORIGIN_OK: return ("ok");
	case ORIGIN_NO_UID: return ("no_uid");
	case ORIGIN_UID: return ("uid");
	case ORIGIN_COMM: return ("comm");
	case ORIGIN_UNIT: return ("unit");
	}
	return ("?");
}
