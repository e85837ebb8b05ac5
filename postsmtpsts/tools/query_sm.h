/*
 * query_sm.h - postsmtpsts-query --socketmap: ask a running daemon (or any
 * socketmap server) what it answers Postfix, without Postfix
 *
 * Speaks Postfix's socketmap protocol (socketmap_table(5)): one request,
 * the netstring "MAPNAME KEY", one netstring reply, "OK data",
 * "NOTFOUND ", "TEMP reason", "PERM reason" or "TIMEOUT reason".  The
 * reply is decoded with netstring_decode (at most SOCKMAP_MAX_REPLY
 * bytes) and printed escaped.
 */
#ifndef QUERY_SM_H
#define QUERY_SM_H

#define QUERY_SM_DEFAULT_MAP	"postfix"

/*
 * query_sm_run - connect to address ("unix:/path", "inet:HOST:PORT",
 * "inet:[IPv6]:PORT"), ask map for key, print "reply: ..." on stdout;
 * every step within timeout_ms.  Returns the exit status: 0 OK, 1
 * NOTFOUND, 2 anything else (with a message on stderr).
 */
int	query_sm_run(const char *address, const char *key, const char *map,
	    int timeout_ms);

#endif
