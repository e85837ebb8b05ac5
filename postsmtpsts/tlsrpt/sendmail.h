/*
 * sendmail.h - hand a mail to Postfix's sendmail(1)
 *
 * sendmail_run() runs "SENDMAIL -i -f FROM -- TO" (execv: no shell, the
 * recipient after "--" so no address can pass for an option), writes the
 * message to its standard input and waits for it, at most timeout
 * seconds (then SIGKILL).  Its environment is the reporter's (MAIL_CONFIG
 * names another Postfix instance).  The first bytes of what it writes to
 * stderr go into why.  Returns 0 if it exited 0 (Postfix's postdrop has
 * the message), else -1; *temporary is 0 only for an exit status
 * sendmail(1) uses for a permanent refusal (EX_NOUSER, EX_DATAERR,
 * EX_USAGE, EX_NOHOST).
 */
#ifndef TLSRPT_SENDMAIL_H
#define TLSRPT_SENDMAIL_H

#include <stddef.h>

int	sendmail_run(const char *sendmail, const char *from, const char *to,
	    const void *msg, size_t len, int timeout, int *temporary,
	    char *why, size_t whysz);

#endif
