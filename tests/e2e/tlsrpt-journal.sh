#!/bin/bash
# tlsrpt-journal.sh - postsmtpsts-tlsrpt(8) following the systemd journal
# (log = "journal"): entries of the mail facility read by cursor, a kill -9
# and a restart that go on from the saved cursor, no entry read twice.
#
# A journald of its own: systemd-journald runs in a private mount
# namespace over empty /run/systemd and /run/log (nothing of the host's
# journal is touched or read), and the test writes Postfix's lines into it
# with the journal's native protocol, as syslog(3) through journald would
# record them (SYSLOG_IDENTIFIER postfix/smtp, the mail facility, one
# process: the same _PID for a handshake and its delivery).  No daemon:
# the sessions are read and joined, then not counted for want of a cache
# (sessions_unknown_policy), which is all this test needs to count.
#
# Forged entries (issue 36): journald's trusted fields say who wrote an
# entry, whatever it claims.  The writer stands in for Postfix as root
# (_UID 0) under trusted_commands = {"python3"}; then the same lines come
# from nobody through a copy of python named "smtp" (the _COMM fits, the
# _UID does not) and from root through a copy named "logger" (the _UID
# fits, the _COMM does not): none is counted, each refusal is.
# Skips where journald cannot run (no libsystemd build, not root, no
# systemd-journald binary).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need python3 unshare
JOURNALD=/lib/systemd/systemd-journald
[ -x "$JOURNALD" ] || skip_all "no $JOURNALD"
[ "$(id -u)" = 0 ] || skip_all "not root (a mount namespace, journald)"
grep -q '^#define HAVE_SYSTEMD 1' "$top_builddir/autoconf.h" ||
	skip_all "built without libsystemd"
REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"

{
	echo "cache { path = \"$T/no-cache\" }"
	tlsrpt_section 'log = "journal"' "state_dir = \"$T/state\"" \
	    'trusted_users = { "root" }' 'trusted_commands = { "python3" }'
} >"$T/tlsrpt.conf"

# the journal writer: N sessions (a handshake and its delivery each) in
# the native protocol, from this one process; it stays alive until the file
# HOLD exists (at most 30 s): journald reads _COMM and _SYSTEMD_UNIT from
# /proc when it gets to a datagram, and from a writer that exited before
# they are gone (under load: entries without _COMM, refused as forged)
cat >"$T/write.py" <<'EOF'
import os, socket, sys, time
n, start, hold = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def entry(msg):
    d = ("MESSAGE=%s\nSYSLOG_IDENTIFIER=postfix/smtp\nSYSLOG_FACILITY=2\n"
         "PRIORITY=6\n" % msg).encode()
    s.sendto(d, "/run/systemd/journal/socket")
for i in range(start, start + n):
    entry("Verified TLS connection established to mx1.j.example"
          "[192.0.2.1]:25: TLSv1.3 with cipher x")
    entry("J%09d: to=<u@j.example>, relay=mx1.j.example[192.0.2.1]:25, "
          "delay=1, dsn=2.0.0, status=sent (250 ok)" % i)
for _ in range(300):
    if os.path.exists(hold):
        break
    time.sleep(0.1)
EOF

# the forgers: Debian's python under other names, where nobody can run it
FORGE=$(mktemp -d /tmp/tlsrpt-forge.XXXXXX)
chmod 755 "$FORGE"
cp /usr/bin/python3 "$FORGE/smtp"
cp /usr/bin/python3 "$FORGE/logger"
_jcleanup() { rm -rf "$FORGE"; _cleanup; }
trap _jcleanup EXIT

# inside the namespace: TAP lines "ok"/"not ok" without numbers, counted
# outside
cat >"$T/inside.sh" <<EOF
set -u
mount -t tmpfs tmpfs /run/systemd 2>/dev/null || exit 3
mkdir -p /run/log && mount -t tmpfs tmpfs /run/log || exit 3
mkdir -p /run/systemd/journal
$JOURNALD >"$T/journald.log" 2>&1 &
jpid=\$!
for i in \$(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
R="$REPORTER -f -v -c $T/tlsrpt.conf"
lines() { \$R --stats 2>/dev/null | awk '\$1 == "postsmtpsts_tlsrpt_lines_total" { print \$2 }'; }
unknown() { \$R --stats 2>/dev/null | awk '\$1 == "postsmtpsts_tlsrpt_sessions_unknown_policy_total" { print \$2 }'; }
wait_for() { for i in \$(seq 100); do [ "\$(lines)" = "\$1" ] && return 0; sleep 0.1; done; return 1; }
res() { if [ "\$1" -eq 0 ]; then echo "ok - \$2"; else echo "not ok - \$2"; fi; }
# the writers' hold files: in the forgers' directory, where nobody may look
H=$FORGE/hold

python3 $T/write.py 3 1 \$H.1 &
\$R --from-start >>"$T/reporter.log" 2>&1 &
rpid=\$!
wait_for 6; res \$? "3 sessions of the journal read (6 entries), from its start"
touch \$H.1
res \$([ "\$(unknown)" = 3 ]; echo \$?) "... joined by _PID into 3 sessions"
grep -q "following journal" "$T/reporter.log"; res \$? "the reporter follows the journal"
python3 $T/write.py 2 4 \$H.2 &
wait_for 10; res \$? "2 more sessions, read as they come"
touch \$H.2
kill -KILL \$rpid; wait \$rpid 2>/dev/null
python3 $T/write.py 4 6 \$H.3 &
\$R >>"$T/reporter.log" 2>&1 &
rpid=\$!
wait_for 18; res \$? "after kill -9: the 4 sessions logged meanwhile, from the saved cursor"
touch \$H.3
sleep 1
res \$([ "\$(lines)" = 18 ] && [ "\$(unknown)" = 9 ]; echo \$?) "no entry read twice: 18 entries, 9 sessions"
refused() { \$R --stats 2>/dev/null | awk -v n="postsmtpsts_tlsrpt_lines_refused_\$1_total" '\$1 == n { print \$2 }'; }
setpriv --reuid=65534 --regid=65534 --clear-groups $FORGE/smtp - 3 30 \$H.4 <$T/write.py &
$FORGE/logger - 2 40 \$H.4 <$T/write.py &
wait_for 28; res \$? "10 forged entries read (6 from nobody's smtp, 4 from root's logger)"
touch \$H.4
res \$([ "\$(unknown)" = 9 ]; echo \$?) "... not one of them counted as a session"
res \$([ "\$(refused uid)" = 6 ] && [ "\$(refused comm)" = 4 ]; echo \$?) "... refused by _UID (6) and by _COMM (4), counted"
grep -q "not Postfix's (uid not in trusted_users), refused: _UID=65534 _COMM=smtp" "$T/reporter.log"; res \$? "... and logged with the trusted fields"
grep -q "not Postfix's (comm not in trusted_commands), refused: _UID=0 _COMM=logger" "$T/reporter.log"; res \$? "... each reason logged (one line a minute each: the two forgers race, neither hides the other)"
kill -TERM \$rpid; wait \$rpid; res \$? "SIGTERM: clean stop"
kill \$jpid
EOF

out=$(unshare --mount --propagation private bash "$T/inside.sh" 2>&1)
rc=$?
[ $rc -eq 3 ] && skip_all "cannot mount a private /run/systemd"
printf '%s\n' "$out" | grep -v '^\(not \)\?ok - ' | sed 's/^/# /'
printf '%s\n' "$out" | grep '^\(not \)\?ok - ' | while IFS= read -r l; do
	echo "$l"
done >"$T/results"
while IFS= read -r l; do
	case $l in
	"ok - "*) ok 0 "${l#ok - }" ;;
	*) ok 1 "${l#not ok - }" ;;
	esac
done <"$T/results"
[ "$_tap_n" -eq 12 ]
ok $? "every step ran"
[ "$_tap_failed" -ne 0 ] && sed 's/^/# /' "$T/reporter.log" | tail -n 20
done_testing
