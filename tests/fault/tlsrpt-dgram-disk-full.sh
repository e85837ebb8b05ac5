#!/bin/bash
# tlsrpt-dgram-disk-full.sh - the reporter's store full while it reads
# Postfix's TLSRPT datagrams (input = socket): state_dir on a 1 MB tmpfs of
# its own, datagrams in libtlsrpt's format sent by root (trusted_users):
#   A. disk free: one datagram to each of 50 policy domains, counted;
#   B. the tmpfs filled to its last block, then 2,000 datagrams to new
#      domains in 20 bursts (every burst its own batches, each of which
#      needs new pages): batches that cannot be committed;
#   C. the space back: 50 more datagrams, counted, no restart.
# A datagram read by a batch that cannot be committed is lost (the socket
# has no replay; DESIGN "Postfix's own events"): what is bounded is the
# noise and the cost of the loss, not the loss.  Asserted:
#   log      while full, at most 2 "were read but not committed" lines
#            (one a minute with the sum since the last; was one a failed
#            batch: about 20 here) and at most 6 warnings in all
#   data     every datagram of A and C counted, B at most once each
#            (sessions counter within [100, 2100]); the reporter runs
#   memory   the reporter's VmRSS < 64 MB
#   CPU      after the bursts, the reporter < 10 % of a core over 3 s
# About 15 s.  Needs root (mount, SCM_CREDENTIALS of root).  No world.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need python3 mount umount dd
[ "$(id -u)" = 0 ] || skip_all "needs root (mount -t tmpfs)"
getent group nogroup >/dev/null || skip_all "no group nogroup"

REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
TICKS=$(getconf CLK_TCK)
RLOG=$T/reporter.log
RPID=
FS=$(mktemp -d "${TMPDIR:-/tmp}/${WORLD_DIR##*/}-dgramfs.XXXXXX")
SOCKDIR=$(mktemp -d "${TMPDIR:-/tmp}/${WORLD_DIR##*/}-dgramsock.XXXXXX")
mount -t tmpfs -o size=1m,mode=0755 tmpfs "$FS" ||
	{ echo "Bail out! mount -t tmpfs $FS failed"; exit 1; }
_fs_cleanup() {
	[ -n "$RPID" ] && kill -KILL "$RPID" 2>/dev/null
	if [ "$_tap_failed" -ne 0 ] && [ -f "$RLOG" ]; then
		echo "# --- reporter log (last 30 lines) ---"
		tail -n 30 "$RLOG" | sed 's/^/# /'
	fi
	_cleanup
	umount "$FS" 2>/dev/null || umount -l "$FS"
	rmdir "$FS"
	rm -rf "$SOCKDIR"
}
trap _fs_cleanup EXIT
# the socket's directory: traversable by its group only (collect.h)
chgrp nogroup "$SOCKDIR"
chmod 2750 "$SOCKDIR"
SOCKET=$SOCKDIR/tlsrpt.sock

# send.py PATH FIRST N - N datagrams, one per policy domain dFIRST.. of
# dgram-full.pstest, an STS success each (libtlsrpt's format)
cat >"$T/send.py" <<'EOF'
import json, socket, sys
path, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for i in range(first, first + n):
    d = "d%d.dgram-full.pstest" % i
    s.sendto(json.dumps({"dpv": "1", "d": d,
        "pr": "v=TLSRPTv1; rua=mailto:r@" + d,
        "policies": [{"policy-type": 2, "policy-domain": d,
            "policy-string": ["version: STSv1", "mode: enforce",
                              "mx: mx1." + d, "max_age: 86400"],
            "mx-host": ["mx1." + d], "t": 0, "f": 0}]}).encode(), path)
print("sent")
EOF

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
# counter NAME - a counter of the reporter's store
counter() {
	"$REPORTER" -c "$RCONF" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}
RCONF=$T/reporter.conf
{
	echo "cache { path = \"$T/no-cache\" }"
	tlsrpt_section 'input = "socket"' "socket = \"$SOCKET\"" \
	    'socket_group = "nogroup"' 'trusted_users = { "root" }' \
	    'log = ""' "state_dir = \"$FS/state\"" 'send_delay = 0'
} >"$RCONF"
"$REPORTER" -t -c "$RCONF" 2>"$T/check.out"
ok $? "the reporter's configuration is valid"
"$REPORTER" -f -v -c "$RCONF" >"$RLOG" 2>&1 &
RPID=$!
wait_until 10 'grep -qs "reading Postfix.s TLSRPT datagrams" "$RLOG"'
ok $? "the reporter reads datagrams on $SOCKET"

# A. disk free
is "$(python3 "$T/send.py" "$SOCKET" 0 50)" sent "disk free: 50 datagrams sent"
wait_until 10 '[ "$(counter sessions)" = 50 ]'
is "$(counter sessions)" 50 "disk free: 50 sessions counted"

# B. full: 20 bursts of 100 datagrams to new domains
dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null
ok "$( [ "$(df -k --output=avail "$FS" | tail -n1 | tr -d ' ')" -eq 0 ]; echo $?)" \
    "the store's filesystem is full ($(du -k "$FS/state" | cut -f1) kB of store)"
MARK=$(wc -l <"$RLOG")
for b in $(seq 0 19); do
	python3 "$T/send.py" "$SOCKET" $((1000 + b * 100)) 100 >/dev/null
	sleep 0.2
done
wait_until 10 'tail -n "+$((MARK + 1))" "$RLOG" | grep -q "read but not committed"'
lost=$(tail -n "+$((MARK + 1))" "$RLOG" | grep -c "read but not committed")
ok "$(( lost >= 1 && lost <= 2 ? 0 : 1 ))" \
    "disk full: $lost 'read but not committed' lines for 20 bursts (1..2)"
w=$(tail -n "+$((MARK + 1))" "$RLOG" | grep -c 'warning: ')
ok "$(( w <= 6 ? 0 : 1 ))" "disk full: $w warnings from the reporter (<= 6)"
ok "$(kill -0 "$RPID"; echo $?)" "disk full: the reporter runs"
ok "$(( $(rss_kb "$RPID") < 65536 ? 0 : 1 ))" \
    "disk full: the reporter's VmRSS $(rss_kb "$RPID") kB (< 65536)"
a=$(cpu_ticks "$RPID")
sleep 3
c=$(cpu_ticks "$RPID")
ok "$(( (c - a) * 10 < 3 * TICKS ? 0 : 1 ))" \
    "disk full: the reporter used $(( (c - a) * 1000 / TICKS )) ms of CPU in 3 s (< 300)"

# C. the space back: counting resumes, no restart
rm -f "$FS/filler"
before=$(counter sessions)
is "$(python3 "$T/send.py" "$SOCKET" 5000 50)" sent "space back: 50 datagrams sent"
wait_until 10 '[ "$(counter sessions)" -ge $((before + 50)) ]'
n=$(counter sessions)
ok "$(( n >= before + 50 && n <= 2100 ? 0 : 1 ))" \
    "space back: sessions counted $before -> $n (the 50 new ones counted, none twice: <= 2100)"
ok "$(kill -0 "$RPID"; echo $?)" "space back: the reporter runs"
kill -TERM "$RPID"
wait "$RPID"
ok $? "the reporter stops cleanly (exit 0)"
RPID=
done_testing
