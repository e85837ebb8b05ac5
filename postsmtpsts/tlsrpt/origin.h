/*
 * origin.h - who may feed the reporter: Postfix, and nobody else
 *
 * NAME
 *	origin - the trusted senders of log entries and datagrams
 * SYNOPSIS
 *	origin_init(&o, cf, err, errsz)
 *	origin_uid_ok(&o, uid)
 *	origin_journal(&o, uid, comm, unit)
 * DESCRIPTION
 *	Any local user can write a line that looks like Postfix's: syslog
 *	takes any identifier (logger -p mail.info -t postfix/smtp), and a
 *	datagram socket any process can reach takes any JSON.  Counting such
 *	a line lets a user make the reporter send a failure report for a
 *	domain of their choosing.  So only what the kernel or journald
 *	vouches for decides:
 *
 *	    a datagram	the sender's uid from SCM_CREDENTIALS (the kernel
 *			fills it in; a process cannot claim another's
 *			uid): one of tlsrpt.trusted_users;
 *	    a journal	its trusted fields, which journald sets and the
 *	    entry	sender cannot: _UID one of trusted_users, _COMM one
 *			of trusted_commands (if any are set), _SYSTEMD_UNIT
 *			matching one of trusted_units (fnmatch patterns; if
 *			any are set).  An entry without _UID is refused.
 *
 *	A log file carries none of this: a file's lines are taken as they
 *	are (the man page says so, and recommends the journal or the
 *	socket).
 *
 *	trusted_users are names (looked up once, at origin_init: Postfix's
 *	mail_owner "postfix", and root) or numeric ids; a name that does not
 *	exist is skipped with a warning (Postfix not installed yet), but at
 *	least one must resolve.
 */
#ifndef TLSRPT_ORIGIN_H
#define TLSRPT_ORIGIN_H

#include <sys/types.h>

#include <stddef.h>

#include "lib/config.h"

enum origin_verdict {
	ORIGIN_OK = 0,
	ORIGIN_NO_UID,		/* a journal entry without _UID */
	ORIGIN_UID,		/* a uid not in trusted_users */
	ORIGIN_COMM,		/* a _COMM not in trusted_commands */
	ORIGIN_UNIT,		/* a _SYSTEMD_UNIT no trusted_units match */
};

struct origin {
	const struct config_tlsrpt *t;
	uid_t		 uids[CONFIG_MAX_TLSRPT_TRUSTED];
	size_t		 nuids;
};

/* origin_init - resolve t's trusted_users: 0, or -1 with a message */
int	origin_init(struct origin *o, const struct config_tlsrpt *t,
	    char *err, size_t errsz);

/* origin_uid_ok - whether uid is a trusted user's */
int	origin_uid_ok(const struct origin *o, uid_t uid);

/*
 * origin_journal - a journal entry's trusted fields (NULL: absent; each
 * value [0..len), not NUL-terminated, as sd_journal_get_data gives it)
 */
enum origin_verdict origin_journal(const struct origin *o, const char *uid,
	    size_t uidlen, const char *comm, size_t commlen,
	    const char *unit, size_t unitlen);

/* origin_verdict_name - "ok", "no_uid", "uid", "comm", "unit" */
const char *origin_verdict_name(enum origin_verdict v);

#endif
