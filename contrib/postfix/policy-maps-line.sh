#!/bin/sh
# contrib/postfix/policy-maps-line.sh - print (never write) the main.cf line
# for the installed Postfix
#
#   sh contrib/postfix/policy-maps-line.sh [SOCKET]   (default inet:127.0.0.1:8461)
#
# Postfix 3.10 and later: the map "postfix310" (tlsrpt = true), whose
# MTA-STS answers carry the TLSRPT attributes: Postfix 3.10.5 and later
# enforce the policy's mx patterns exactly only with them
# (smtp_tls_enforce_sts_mx_patterns), TLSRPT collector or not.  Before
# 3.10: the plain map "postfix" (older Postfix refuses those attributes).
# Both maps are in the shipped postsmtpsts.conf and in the built-in
# defaults.  The version is mail_version as compiled in (postconf -d: it
# needs no main.cf).  Run by contrib/quickstart.sh and by the Debian
# package's postinst (installed as /usr/share/postsmtpsts/policy-maps-line).
#
# A Postfix built with libtlsrpt (Debian 13's 3.10: postconf -d knows
# smtp_tlsrpt_enable) can send its own TLSRPT events to
# postsmtpsts-tlsrpt's socket (tlsrpt { input = "socket" }): those lines
# are printed too.  The socket name is relative to the queue directory, so
# it is the same path whether smtp(8) runs chrooted (Debian's default) or
# not: /var/spool/postfix/run/tlsrpt/tlsrpt.sock, the reporter's default.
set -eu
sock=${1:-inet:127.0.0.1:8461}
v=$(postconf -dh mail_version 2>/dev/null) || v=
case $v in
"")
	echo "# no Postfix found (postconf): for Postfix 3.10 and later"
	map=postfix310 ;;
[0-2].* | 3.[0-9] | 3.[0-9].* | 3.[0-9]-*)
	echo "# Postfix $v (before 3.10): the plain map"
	map=postfix ;;
*)
	echo "# Postfix $v (3.10 or later): the map with the TLSRPT attributes"
	map=postfix310 ;;
esac
echo "smtp_tls_policy_maps = socketmap:$sock:$map"
[ -n "$v" ] ||
	echo "# before 3.10: smtp_tls_policy_maps = socketmap:$sock:postfix"
if [ -n "$(postconf -dh smtp_tlsrpt_enable 2>/dev/null)" ]; then
	echo "# this Postfix has libtlsrpt: its own TLSRPT events to postsmtpsts-tlsrpt"
	echo "# (postsmtpsts.conf: tlsrpt { enable = true  input = \"socket\" ... })"
	echo "smtp_tlsrpt_enable = yes"
	echo "smtp_tlsrpt_socket_name = run/tlsrpt/tlsrpt.sock"
fi
