#!/bin/bash
# reload-burst.sh - SIGHUP during a burst, and a configuration that became
# invalid on disk before the SIGHUP, in the loopback world (two workers,
# two resolvers, request_timeout = 3).  burst.py (16 connections, Postfix's
# one retry of a broken connection) sends the master SIGHUP the moment the
# first answer is read, with the other lookups in flight:
#   1. a cold burst (40 new domains, 80 lookups): the whole generation,
#      workers and resolvers, is replaced while discoveries run;
#   2. a warm burst (2000 cache answers) with a changed pin, and one of
#      1000 lookups each on a connection of its own (BURST_FRESH): none
#      retried (the bug: an old worker accepted a connection just before
#      its drain and closed it under the request; twice in a row, a
#      failed lookup);
#   3. the file made invalid (a value of the wrong type on a known line)
#      before a SIGHUP in a cold burst of 40 more domains.
# Asserted each time:
#   answers  every lookup answered with its own domain's policy (the pin
#            once the reload took), none TEMP, PERM, late or failed, the
#            slowest under request_timeout + 500 ms (a retried one: its
#            retry's deadline, 2 x 3 s + 500 ms)
#   process  1, 2: "reloaded" logged, every child replaced, the old
#            generation gone within 5 s; 3: no process replaced
#   log      3: "reload failed, keeping the running configuration" with
#            the error at FILE:LINE of the bad value; at most 10 warning
#            lines in all (the two processes' deaths are not warnings:
#            none is killed), the log < 2 MB
#   data     3: the running configuration (its pin) still answered
# Needs the world with WORLD_BULK >= 120 (tests/run-all: 500).  About 20 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 pgrep
world_up || exit 1
[ "${WORLD_BULK:-0}" -ge 120 ] ||
	skip_all "the world has WORLD_BULK=${WORLD_BULK:-0} bulk domains, this test needs 120"

BURST="python3 $top_srcdir/tests/fault/burst.py"
export WORKERS=2 RESOLVERS=2 REQUEST_TIMEOUT=3
WORLD_LINES=$(world_daemon_lines)
PIN1='domain "pinned.example" { level = "encrypt" }'
PIN2='domain "pinned.example" { level = "secure" match = "mx.pinned.example" }'

# keys FIRST LAST - b$FIRST..b$LAST twice each, shuffled, into $T/keys
keys() {
	local i
	for i in $(seq "$1" "$2"); do echo "b$i.bulk.pstest"; done |
	    sed 'p' | shuf >"$T/keys"
}
# check_burst WHAT N PINNED [MIN] - burst.out: N lookups, all answered with
# their own policy (PINNED: what pinned.example must be answered), in
# time, the SIGHUP sent with MIN (default 4) in flight
check_burst() {
	local what=$1 n=$2 pinned=$3 min=${4:-4} sum bad
	sum=$(tail -n1 "$T/burst.out")
	echo "# $what: $sum"
	eval "$(tr ' ' '\n' <<<"$sum" | grep -E '^[a-z_]+=[0-9]+$')"
	is "$lookups:$ok:$notfound:$temp:$perm:$late:$failed" "$n:$n:0:0:0:0:0" \
	    "$what: $n lookups, every one answered OK (retried $retried)"
	bad=$(awk -v pin="OK $pinned" '$1 ~ /pstest$|example$/ {
		r = $5; for (i = 6; i <= NF; i++) r = r " " $i
		if ($1 == "pinned.example") want = pin
		else { split($1, l, "."); want = "OK secure match=" l[1] ".mx.bulk.pstest servername=hostname" }
		if (r != want) { n++; if (n <= 3) print "# " $0 > "/dev/stderr" } }
		END { print n + 0 }' "$T/burst.out")
	is "$bad" 0 "$what: each answered with its own domain's policy"
	bad=$(awk '$1 ~ /pstest$|example$/ && ($3 > 6500 || ($4 == 1 && $3 > 3500))' \
	    "$T/burst.out" | wc -l)
	is "$bad" 0 "$what: the slowest in $max_ms ms (< 3500, a retried one < 6500)"
	ok "$(( inflight_at_kill >= min ? 0 : 1 ))" \
	    "$what: SIGHUP with $inflight_at_kill lookups in flight (>= $min)"
}
# generation_replaced BEFORE - every child pid new, only the new ones left
generation_replaced() {
	local p
	[ "$(worker_pids | wc -l)" = 4 ] || return 1
	for p in $1; do
		worker_pids | grep -qx "$p" && return 1
	done
	return 0
}

daemon_start "$WORLD_LINES" "max_resolutions = 16" "$PIN1" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

# -- 1. SIGHUP in a cold burst: every process replaced mid-discovery
what="SIGHUP in a cold burst"
before=$(worker_pids | tr '\n' ' ')
keys 1 40
$BURST "$SOCK" postfix "$T/keys" 16 10000 "HUP:$DAEMON_PID" >"$T/burst.out"
check_burst "$what" 80 ""
wait_until 5 'generation_replaced "$before"'
ok $? "$what: every child replaced ($before-> $(worker_pids | tr '\n' ' '))"
is "$(grep -c 'reloaded ' "$DAEMON_LOG")" 1 "$what: logged: $(grep -m1 'reloaded ' "$DAEMON_LOG" | sed 's/.*: //')"

# -- 2. SIGHUP in a warm burst, with a changed pin
what="SIGHUP in a warm burst"
daemon_config "$WORLD_LINES" "max_resolutions = 16" "$PIN2"
before=$(worker_pids | tr '\n' ' ')
for _i in $(seq 1 50); do
	seq 1 40 | sed 's/^/b/; s/$/.bulk.pstest/'
done | shuf >"$T/keys"
$BURST "$SOCK" postfix "$T/keys" 16 10000 "HUP:$DAEMON_PID" >"$T/burst.out"
# a cache answer takes microseconds: few are in flight at any moment, but
# 1999 of them are still to come when SIGHUP is sent
check_burst "$what" 2000 "" 0
wait_until 5 'generation_replaced "$before"'
ok $? "$what: every child replaced"
wait_until 5 '[ "$(pq pinned.example)" = "secure match=mx.pinned.example" ]'
is "$(pq pinned.example)" "secure match=mx.pinned.example" "$what: the new pin answered"

# -- 2b. SIGHUP while every lookup opens a connection of its own: one
# accepted by an old worker just before its drain is answered, not closed
# under the request (with the retry's connection closed the same way, a
# failed lookup)
what="SIGHUP with a new connection a lookup"
before=$(worker_pids | tr '\n' ' ')
for _i in $(seq 1 25); do
	seq 1 40 | sed 's/^/b/; s/$/.bulk.pstest/'
done | shuf >"$T/keys"
BURST_FRESH=1 $BURST "$SOCK" postfix "$T/keys" 16 10000 "HUP:$DAEMON_PID" >"$T/burst.out"
check_burst "$what" 1000 "" 0
is "$retried" 0 "$what: no connection closed under its request (none retried)"
wait_until 5 'generation_replaced "$before"'
ok $? "$what: every child replaced"

# -- 3. the file invalid on disk before SIGHUP: the running config is kept
what="SIGHUP with an invalid file"
daemon_config "$WORLD_LINES" "max_resolutions = 16" "$PIN1" "request_timeout = \"soon\""
badline=$(grep -n '^request_timeout = "soon"' "$CONF" | cut -d: -f1)
before=$(worker_pids | tr '\n' ' ')
log_mark
keys 41 80
echo "pinned.example" >>"$T/keys"
$BURST "$SOCK" postfix "$T/keys" 16 10000 "HUP:$DAEMON_PID" >"$T/burst.out"
check_burst "$what" 81 "secure match=mx.pinned.example"
wait_until 5 'tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -q "reload failed"'
tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -A3 'reload failed' | sed 's/^/# log: /'
ok "$(tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -q "reload failed, keeping the running configuration"; echo $?)" \
    "$what: logged: reload failed, keeping the running configuration"
ok "$(tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -q "$CONF:$badline: .*request_timeout"; echo $?)" \
    "$what: the error at the file's line ($(basename "$CONF"):$badline, request_timeout)"
is "$(worker_pids | tr '\n' ' ')" "$before" "$what: no process replaced"
is "$(pq pinned.example)" "secure match=mx.pinned.example" "$what: the running pin still answered"
is "$(pq b120.bulk.pstest)" "secure match=b120.mx.bulk.pstest servername=hostname" \
    "$what: a new domain still discovered and answered"

is "$(grep -c -e 'killed by signal' -e 'exited with status' "$DAEMON_LOG")" 0 \
    "no process died (no crash, no sanitizer abort)"
nw=$(grep -c 'warning:' "$DAEMON_LOG")
ok "$(( nw <= 10 ? 0 : 1 ))" "$nw warning lines (<= 10)"
grep 'warning:' "$DAEMON_LOG" | grep -v 'running as root' | sed 's/^/# /' | head
size=$(stat -c %s "$DAEMON_LOG")
ok "$(( size < 2000000 ? 0 : 1 ))" "daemon log $size bytes (< 2 MB)"
daemon_stop
ok $? "clean exit"
done_testing
