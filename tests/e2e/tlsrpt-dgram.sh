#!/bin/bash
# tlsrpt-dgram.sh - postsmtpsts-tlsrpt(8) as Postfix's TLSRPT receiver
# (tlsrpt.input = socket, issue 36): libtlsrpt's datagrams on a unix
# socket, counted into the same store as log sessions.
#
# A. Any host (datagrams written as libtlsrpt writes them, by python):
#    good datagrams of every policy type from a trusted user are counted;
#    the same from nobody (who can reach the socket, being in its group)
#    are refused by their SCM_CREDENTIALS, counted, logged; a user outside
#    the socket's group cannot send at all; bad datagrams (an unknown
#    protocol version, truncated, invalid UTF-8, a field of the wrong
#    type, a domain that is not one, an unknown result code, too many
#    policies, over DGRAM_MAX bytes) each get a counter, one log line a
#    minute, and nothing counted, and the socket serves on; a flood of
#    20000 is counted exactly, in bounded memory; --dry-run's reports pass
#    the RFC 8460 schema fixture with the counts sent.
# B. Where the system's Postfix has smtp_tlsrpt_enable (3.10 with
#    libtlsrpt: Debian 13's), real deliveries through the postfix310 map
#    with smtp_tlsrpt_enable = yes, the socket at Postfix's
#    smtp_tlsrpt_socket_name = run/tlsrpt/tlsrpt.sock under the queue
#    directory: a good STS domain, a wrong-name certificate, a DANE domain
#    with a wrong TLSA record and a domain whose policy host fails.  One
#    reporter reads the datagrams, another the log of the same deliveries:
#    the reports of both pass the schema, their counts equal the
#    deliveries and each other's.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need python3 setpriv
[ "$(id -u)" = 0 ] || skip_all "not root (users, groups, setpriv)"
python3 -c 'import jsonschema' 2>/dev/null ||
	skip_all "python3-jsonschema not installed"
getent group nogroup >/dev/null || skip_all "no group nogroup"
REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
SCHEMA="$top_srcdir/tests/unit/tlsrpt-report.schema.json"
CHECK="$top_srcdir/tests/unit/tlsrpt-check.py"
PY=/usr/bin/python3	# Debian's: other users must be able to run it
RPIDS=

# The socket's directory: traversable by its group only (collect.h)
SOCKDIR=$(mktemp -d /tmp/tlsrpt-dgram.XXXXXX)
_dgram_cleanup() {
	local p
	for p in $RPIDS; do kill -KILL "$p" 2>/dev/null; done
	( sender_stop ) >/dev/null 2>&1
	rm -rf "$SOCKDIR"
	if [ "$_tap_failed" -ne 0 ]; then
		for p in "$T"/reporter*.log; do
			[ -f "$p" ] || continue
			echo "# --- $p (last 25 lines) ---"
			tail -n 25 "$p" | sed 's/^/# /'
		done
	fi
	_cleanup
}
trap _dgram_cleanup EXIT
chgrp nogroup "$SOCKDIR"
chmod 2750 "$SOCKDIR"
SOCKET=$SOCKDIR/tlsrpt.sock

# the datagram writer: libtlsrpt's format (libtlsrpt.c), one sendto each
cat >"$T/send.py" <<'EOF'
import json, socket, sys
path, what = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def dr(d, policies, dpv="1"):
    o = {"dpv": dpv} if dpv is not None else {}
    o.update({"d": d, "pr": "v=TLSRPTv1; rua=mailto:r@" + d,
              "policies": policies})
    return json.dumps(o).encode()
def sts(ok, fails=()):
    p = {"policy-type": 2, "policy-domain": "sts.dgram.pstest",
         "policy-string": ["version: STSv1", "mode: enforce",
                           "mx: mx1.sts.dgram.pstest", "max_age: 86400"],
         "mx-host": ["mx1.sts.dgram.pstest"]}
    if fails:
        p["failure-details"] = [{"c": c, "s": "127.0.26.1",
            "n": "mx1.sts.dgram.pstest", "h": "mx1", "r": "127.0.25.1",
            "a": "additional", "f": "num=62"} for c in fails]
    p["t"] = len(fails)
    p["f"] = 0 if ok else 1
    return p
good = [
    dr("sts.dgram.pstest", [sts(True)]),
    dr("sts.dgram.pstest", [sts(False, [202])]),
    dr("dane.dgram.pstest", [{"policy-type": 1, "policy-domain":
        "dane.dgram.pstest", "policy-string": ["3 1 1 " + "AB" * 32],
        "failure-details": [{"c": 304,
        "r": "127.0.25.2", "a": "all TLSA records unusable"}],
        "t": 1, "f": 1}], dpv=None),
    dr("none.dgram.pstest", [{"policy-type": 9, "t": 0, "f": 0}]),
]
bad = {
    "version": dr("sts.dgram.pstest", [sts(True)], dpv="2"),
    "truncated": dr("sts.dgram.pstest", [sts(True)])[:-7],
    "utf8": dr("sts.dgram.pstest", [sts(True)]).replace(b"STSv1", b"\xff\xfe"),
    "form": dr("sts.dgram.pstest", [{"policy-type": "2", "t": 0, "f": 0}]),
    "domain": dr("192.0.2.1", [sts(True)]),
    "code": dr("sts.dgram.pstest", [sts(False, [999])]),
    "limit": dr("sts.dgram.pstest", [sts(True)] * 5),
    "oversize": dr("sts.dgram.pstest", [dict(sts(True),
        **{"policy-string": ["x" * 8000] * 40})]),
}
try:
    if what == "good":
        for i in range(n):
            for d in good:
                s.sendto(d, path)
    elif what == "bad":
        # room for the oversize one (root only: SO_SNDBUFFORCE)
        s.setsockopt(socket.SOL_SOCKET, 32, 1 << 20)
        for k, d in bad.items():
            s.sendto(d, path)
        s.sendto(good[0], path)	# then a good one: still served
    print("sent")
except OSError as e:
    print("refused by the kernel: " + e.strerror)
EOF
# the good set: per round 4 datagrams, 4 sessions: sts 1 ok + 1 failed
# (certificate-host-mismatch), tlsa 1 failed (tlsa-invalid), none 1 ok

RCONF=$T/reporter.conf
{
	echo "cache { path = \"$T/no-cache\" }"
	tlsrpt_section 'input = "socket"' "socket = \"$SOCKET\"" \
	    'socket_group = "nogroup"' 'trusted_users = { "root" }' \
	    'log = ""' "state_dir = \"$T/state\"" 'send_delay = 0'
} >"$RCONF"
"$REPORTER" -t -c "$RCONF" 2>"$T/check.out"
ok $? "postsmtpsts-tlsrpt -t: input = socket, no log, is a valid configuration"

# counter CONF NAME - a counter of a reporter
counter() {
	"$REPORTER" -c "$1" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$2_total" '$1 == n { print $2 }'
}
"$REPORTER" -f -v -c "$RCONF" >"$T/reporter.log" 2>&1 &
RPID=$!
RPIDS="$RPIDS $RPID"
wait_until 10 'grep -qs "reading Postfix.s TLSRPT datagrams" "$T/reporter.log"'
ok $? "the reporter reads datagrams on $SOCKET"
is "$(stat -c '%a %G' "$SOCKET" 2>&1)" "620 nogroup" \
    "the socket: mode 0620, group socket_group"

# A1. good datagrams from a trusted user
is "$(python3 "$T/send.py" "$SOCKET" good 1)" sent "root sends 4 datagrams"
wait_until 10 '[ "$(counter "$RCONF" sessions)" = 4 ]'
is "$(counter "$RCONF" sessions)" 4 "4 sessions counted"
is "$(counter "$RCONF" sessions_failure)" 2 "... 2 of them failed"

# A2. the same from nobody, in the socket's group: refused per datagram
is "$(setpriv --reuid=65534 --regid=65534 --init-groups $PY "$T/send.py" \
    "$SOCKET" good 2)" sent "nobody (group nogroup) can send 8 datagrams"
wait_until 10 '[ "$(counter "$RCONF" datagrams_refused_sender)" = 8 ]'
is "$(counter "$RCONF" datagrams_refused_sender)" 8 \
    "... all 8 refused by their credentials, counted"
is "$(counter "$RCONF" sessions)" 4 "... and not one counted as a session"
grep -q "a datagram from uid 65534 (pid [0-9]*), not one of trusted_users: refused" \
    "$T/reporter.log"
ok $? "... logged with the sender's uid"
is "$(grep -c 'not one of trusted_users: refused' "$T/reporter.log")" 1 \
    "... once a minute, not once a datagram"
# a user outside the group cannot even reach it
out=$(setpriv --reuid="$(id -u postfix 2>/dev/null || echo 65534)" \
    --regid=65533 --clear-groups $PY "$T/send.py" "$SOCKET" good 1 2>&1)
case $out in
"refused by the kernel: "*) ok 0 "a user outside socket_group: $out" ;;
*) ok 1 "a user outside socket_group could send ($out)" ;;
esac

# A3. bad datagrams: each refused for what it is, the socket serves on
is "$(python3 "$T/send.py" "$SOCKET" bad)" sent "root sends 8 bad datagrams and a good one"
wait_until 10 '[ "$(counter "$RCONF" sessions)" = 5 ]'
is "$(counter "$RCONF" sessions)" 5 "the good one after them is counted"
for r in version json form domain code limit; do
	case $r in
	json) want=2 ;;		# truncated, invalid UTF-8
	limit) want=2 ;;	# five policies, over DGRAM_MAX
	*) want=1 ;;
	esac
	is "$(counter "$RCONF" "datagrams_refused_$r")" "$want" \
	    "refused as $r: $want, counted"
done
is "$(grep -c 'a datagram from pid [0-9]* refused (' "$T/reporter.log")" 1 \
    "the refusals: one log line a minute"
grep -q 'refused (version): protocol version (dpv) is not' "$T/reporter.log"
ok $? "... which says why"
kill -0 "$RPID" 2>/dev/null
ok $? "the reporter is still running"

# A4. a flood: 20000 datagrams as fast as one writer sends them (blocking
# sends: the kernel holds the writer while the queue is full, so none is
# lost and the count must be exact)
python3 "$T/send.py" "$SOCKET" good 5000 >/dev/null
wait_until 60 '[ "$(counter "$RCONF" sessions)" = 20005 ]'
is "$(counter "$RCONF" sessions)" 20005 "a flood of 20000: every one counted once"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$RPID/status")
# ASan keeps freed memory in quarantine (256 MB): the bound is the plain
# build's; under ASan only that the flood left no sanitizer report
lim=65536
ldd "$REPORTER" 2>/dev/null | grep -q libasan && lim=$((600 * 1024))
[ -n "$hwm" ] && [ "$hwm" -lt "$lim" ]
ok $? "... in bounded memory (peak RSS ${hwm:-?} kB < $((lim / 1024)) MB)"

# A5. the reports, from the counts
"$REPORTER" -c "$RCONF" --dry-run today >"$T/dry.json" 2>"$T/dry.err"
is "$(wc -l <"$T/dry.json")" 3 "--dry-run today: a report per domain (3)"
split -l 1 "$T/dry.json" "$T/dry-"
python3 "$CHECK" "$SCHEMA" "$T"/dry-?? >"$T/schema.out" 2>&1
ok $? "the reports pass the RFC 8460 schema fixture"
sed 's/^/# /' "$T/schema.out"
summary() {	# FILE DOMAIN - "type success failure result=count..."
	python3 - "$1" "$2" <<-'EOF'
	import json, sys
	for line in open(sys.argv[1]):
	    r = json.loads(line)
	    for p in r["policies"]:
	        if p["policy"]["policy-domain"] != sys.argv[2]:
	            continue
	        s = p["summary"]
	        rows = sorted("%s=%d" % (d["result-type"], d["failed-session-count"])
	                      for d in p.get("failure-details", []))
	        print(p["policy"]["policy-type"], s["total-successful-session-count"],
	              s["total-failure-session-count"], *rows)
	EOF
}
is "$(summary "$T/dry.json" sts.dgram.pstest)" \
    "sts 5002 5001 certificate-host-mismatch=5001" \
    "sts: 5002 successful, 5001 certificate-host-mismatch"
is "$(summary "$T/dry.json" dane.dgram.pstest)" "tlsa 0 5001 tlsa-invalid=5001" \
    "tlsa: 5001 tlsa-invalid"
is "$(summary "$T/dry.json" none.dgram.pstest)" "no-policy-found 5001 0" \
    "no-policy-found: 5001 successful"
grep -q '"policy-string":\["version: STSv1","mode: enforce","mx: mx1.sts.dgram.pstest","max_age: 86400"\]' \
    "$T/dry.json"
ok $? "the STS policy-string is the datagram's policy lines"

kill -TERM "$RPID"
wait "$RPID"
ok $? "SIGTERM: a clean stop"
! grep -q 'ERROR: AddressSanitizer\|runtime error:' "$T/reporter.log"
ok $? "no sanitizer report in the reporter's log"
RPIDS=
[ ! -e "$SOCKET" ]
ok $? "... and the socket is removed"

# --- B. real Postfix with libtlsrpt -------------------------------------------
if [ -z "$(postconf -d smtp_tlsrpt_enable 2>/dev/null)" ]; then
	echo "# B skipped: this Postfix ($(postconf -dh mail_version 2>/dev/null)) has no smtp_tlsrpt_enable (3.10 with libtlsrpt: Debian 13)"
	done_testing
	exit 0
fi
need postmap postfix swaks flock
world_up || { echo "Bail out! world did not start"; exit 1; }
# shellcheck source=../world/lib.sh
. "$top_srcdir/tests/world/lib.sh"
exec 8>"$WORLD_DIR.sender.lock"
flock -w 300 8 || { echo "Bail out! sender instance busy for 300 s"; exit 1; }
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
cases="tlsrpt-sts-ok tlsrpt-sts-badname tlsrpt-dane-bad tlsrpt-fetch-error"
for c in $cases; do
	pq_expect "$(world_case_field "$c" 2)" "$(world_case_field "$c" 3)" \
	    "$c: the daemon answers '$(world_case_field "$c" 3)'"
done
( sender_stop ) >/dev/null 2>&1
wait_until 5 '[ -z "$(ss -Hltn src "$WORLD_SENDER_ADDR:25" 2>/dev/null)" ]'
out=$( (sender_start "socketmap:inet:127.0.0.1:$PORT:postfix310" \
    smtp_tlsrpt_enable=yes smtp_tlsrpt_socket_name=run/tlsrpt/tlsrpt.sock) 2>&1)
ok $? "sender (Postfix $(postconf -dh mail_version)) with smtp_tlsrpt_enable = yes, the postfix310 map"
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
PSOCK=$WORLD_SENDER_DIR/spool/run/tlsrpt/tlsrpt.sock
mkdir -p "$(dirname "$(dirname "$PSOCK")")"
# reporter_conf NAME LINES... - a reporter of the daemon's cache
reporter_conf() {
	local name=$1
	shift
	{
		cat "$CONF"
		tlsrpt_section "state_dir = \"$T/$name\"" 'send_delay = 0' \
		    'map = "postfix310"' "$@"
	} >"$T/$name.conf"
}
reporter_conf rsock 'input = "socket"' "socket = \"$PSOCK\"" \
    'socket_group = "postfix"' 'trusted_users = { "postfix" }' 'log = ""'
reporter_conf rlog "log = \"$WORLD_SENDER_LOG\""
"$REPORTER" -c "$T/rsock.conf" --prepare-socket root 2>"$T/prepare.out"
ok $? "--prepare-socket makes the socket's directory"
is "$(stat -c '%a %U %G' "$(dirname "$PSOCK")")" "2750 root postfix" \
    "... mode 2750, group postfix"
"$REPORTER" -f -v -c "$T/rsock.conf" >"$T/reporter-sock.log" 2>&1 &
RPIDS="$RPIDS $!"
"$REPORTER" -f -v -c "$T/rlog.conf" --from-start >"$T/reporter-log.log" 2>&1 &
RPIDS="$RPIDS $!"
wait_until 10 'grep -qs "reading Postfix.s TLSRPT datagrams" "$T/reporter-sock.log" &&
    grep -qs "tlsrpt: started" "$T/reporter-log.log"'
ok $? "both reporters started: one on the socket, one on the log"

declare -A sent
total=0
for round in 1 2; do
	for c in $cases; do
		[ "$c" = tlsrpt-sts-ok ] || [ "$round" = 1 ] || continue
		d=$(world_case_field "$c" 2)
		q=$(sender_send "user@$d" 2>&1) || q=
		st=$(sender_wait "$q" 30)
		sent[$c]=$(( ${sent[$c]:-0} + 1 ))
		total=$((total + 1))
		case $st in
		sent | deferred) ;;
		*) echo "# $c: message $q: $st" ;;
		esac
	done
done
wait_until 30 '[ "$(counter "$T/rsock.conf" sessions)" = "$total" ] &&
    [ "$(counter "$T/rlog.conf" sessions)" = "$total" ]'
is "$(counter "$T/rsock.conf" sessions)" "$total" \
    "datagrams: $total sessions, one per delivery attempt"
is "$(counter "$T/rlog.conf" sessions)" "$total" "the log: the same $total"
is "$(counter "$T/rsock.conf" datagrams_refused_sender)" 0 \
    "no datagram of Postfix's smtp(8) refused"
for r in rsock rlog; do
	"$REPORTER" -c "$T/$r.conf" --dry-run today >"$T/$r.json" 2>"$T/$r.err"
	rm -f "$T"/"$r"-??
	split -l 1 "$T/$r.json" "$T/$r-"
	python3 "$CHECK" "$SCHEMA" "$T"/"$r"-?? >"$T/$r.schema" 2>&1
	ok $? "$r: the reports pass the RFC 8460 schema fixture"
done
for c in $cases; do
	d=$(world_case_field "$c" 2)
	a=$(summary "$T/rsock.json" "$d")
	b=$(summary "$T/rlog.json" "$d")
	is "$a" "$b" "$c: the datagrams' report counts what the log's does ($a)"
	n=$(printf '%s\n' "$a" | awk '{ s += $2 + $3 } END { print s + 0 }')
	is "$n" "${sent[$c]}" "$c: ${sent[$c]} deliveries, $n sessions"
done
done_testing
