#!/bin/bash
# kill-burst.sh - kill -9 of each resolver and each worker during a cold
# burst (the review's one manual check, made permanent), in the loopback
# world (two workers, two resolver shards, request_timeout = 3).  First 20
# domains are discovered and committed; then four bursts of 40 new domains
# (80 lookups, 16 connections of burst.py, which retries a broken
# connection once as Postfix does), one process killed with -9 in each
# by the client itself the moment the first answer is read, with the
# other connections' lookups in flight (>= 4 of them).  Asserted each time:
#   answers  every lookup answered with its domain's policy (a deadline
#            answer would be NOTFOUND), none TEMP, PERM or failed, none later than
#            request_timeout + 500 ms (a resolver killed: the workers
#            re-send to its successor) or, for a lookup whose worker was
#            killed, its retry's deadline: 2 x 3 s + 500 ms
#   process  the killed one logged ("killed by signal 9") and restarted
#            (a new pid) within 2 s; afterwards each of the 40 domains is
#            answered with its policy within 10 s
#   data     the 20 committed entries unchanged (postsmtpsts-cache show:
#            the same fetched_at and id) and answered from the cache (no
#            new discovery of them)
#   crash    no process died but the four killed
#   CPU, memory, log  each process < 10 % of a core over 3 s once idle,
#            RSS < 64 MiB (512 in an ASan build); the daemon log < 2 MB,
#            <= 20 warnings
# Needs the world with WORLD_BULK >= 180 (tests/run-all: 500).  About 35 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 pgrep
TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
world_up || exit 1
[ "${WORLD_BULK:-0}" -ge 180 ] ||
	skip_all "the world has WORLD_BULK=${WORLD_BULK:-0} bulk domains, this test needs 180"

BURST="python3 $top_srcdir/tests/fault/burst.py"
TICKS=$(getconf CLK_TCK)
export WORKERS=2 RESOLVERS=2 REQUEST_TIMEOUT=3
# RSS bound of each process, MiB: ASan's shadow memory and quarantine
# (make check-asan) take a few hundred more
RSS_MAX=64
ldd "$DAEMON" 2>/dev/null | grep -q libasan && RSS_MAX=512
sec() { echo "secure match=$1.mx.bulk.pstest servername=hostname"; }
# pid_of KIND N - the latest pid of worker/resolver N
pid_of() {
	sed -n "s/.*debug: $1 $2 started, pid \([0-9]*\).*/\1/p" \
	    "$DAEMON_LOG" | tail -n1
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# entries FIRST LAST - "domain fetched_at id" of each committed entry
entries() {
	local i
	for i in $(seq "$1" "$2"); do
		"$TOOL" -c "$CONF" show "b$i.bulk.pstest" 2>&1 |
		    awk -v d="b$i" '/^ *(fetched_at|id)[ :=]/ { v = v " " $0 }
			END { print d v }'
	done
}

daemon_start "$(world_daemon_lines)" "max_resolutions = 16" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

# -- the committed entries
seq 1 20 | sed 's/^/b/; s/$/.bulk.pstest/' >"$T/warm.keys"
$BURST "$SOCK" postfix "$T/warm.keys" 8 10000 >"$T/warm.out"
is "$(tail -n1 "$T/warm.out" | cut -d' ' -f1-2)" "lookups=20 ok=20" \
    "20 domains discovered: $(tail -n1 "$T/warm.out")"
wait_until 5 '[ "$("$TOOL" -c "$CONF" list 2>/dev/null | grep -c "bulk.pstest")" -ge 20 ]'
entries 1 20 >"$T/entries.before"
ok "$(grep -c 'fetched_at' "$T/entries.before" | grep -qx 20; echo $?)" \
    "20 entries committed ($(head -n1 "$T/entries.before"))"

# burst KIND N FIRST - a cold burst of b$FIRST..b$((FIRST+39)), twice each,
# with KIND N killed after the first answer
burst() {
	local kind=$1 n=$2 first=$3 last=$(( $3 + 39 )) what victim new
	local limit=3500 sum bad i
	what="kill -9 of $kind $n during a cold burst"
	[ "$kind" = worker ] && limit=6500
	for i in $(seq "$first" "$last"); do echo "b$i.bulk.pstest"; done |
	    sed 'p' | shuf >"$T/keys"
	victim=$(pid_of "$kind" "$n")
	$BURST "$SOCK" postfix "$T/keys" 16 10000 "$victim" >"$T/burst.out"
	sum=$(tail -n1 "$T/burst.out")
	echo "# $what: $sum"
	eval "$(tr ' ' '\n' <<<"$sum" | grep -E '^[a-z_]+=[0-9]+$')"
	is "$lookups:$((ok + notfound)):$temp:$perm:$late:$failed" "80:80:0:0:0:0" \
	    "$what: 80 lookups, every one answered (OK $ok, NOTFOUND $notfound, retried $retried)"
	bad=$(awk -v l="$limit" '$1 ~ /pstest$/ && ($3 > l || ($4 == 1 && $3 > 3500))' \
	    "$T/burst.out" | wc -l)
	is "$bad" 0 "$what: the slowest in $max_ms ms (< 3500, a retried one < $limit)"
	ok "$(( inflight_at_kill >= 4 ? 0 : 1 ))" \
	    "$what: killed with $inflight_at_kill lookups in flight (>= 4)"
	# the workers re-send what the dead resolver had (DESIGN "Resolver
	# shards"), and the master restarts it at once: policies, not deadlines
	bad=$(awk '$2 == "OK" { split($1, l, "."); want = "OK secure match=" l[1] ".mx.bulk.pstest servername=hostname"
		r = $5; for (i = 6; i <= NF; i++) r = r " " $i
		if (r != want) n++ } END { print n + 0 }' "$T/burst.out")
	is "$ok:$bad" "80:0" "$what: all 80 answered with their own domain's policy"
	wait_until 2 '[ -n "$(pid_of "$kind" "$n")" ] &&
	    [ "$(pid_of "$kind" "$n")" != "$victim" ] &&
	    kill -0 "$(pid_of "$kind" "$n")" 2>/dev/null'
	new=$(pid_of "$kind" "$n")
	ok "$([ "$new" != "$victim" ] && kill -0 "$new" 2>/dev/null; echo $?)" \
	    "$what: restarted within 2 s (pid $victim -> $new)"
	ok "$(grep -q "$kind $n (pid $victim) killed by signal 9" "$DAEMON_LOG"; echo $?)" \
	    "$what: logged: $(grep -m1 "(pid $victim) killed" "$DAEMON_LOG" | sed 's/.*: //')"
	bad=0
	for i in $(seq "$first" "$last"); do
		d=b$i.bulk.pstest
		# shellcheck disable=SC2016 # wait_until evaluates it
		WAIT_STEP=0.3 wait_until 10 '[ "$(pq "$d" 2>&1)" = "$(sec "b$i")" ]' \
		    2>/dev/null || { bad=$((bad + 1)); echo "# $d: $(pq "$d" 2>&1)"; }
	done
	is "$bad" 0 "$what: afterwards each of the 40 domains answered with its policy"
}

burst resolver 0 21
burst resolver 1 61
burst worker 0 101
burst worker 1 141

# -- the committed entries are intact, and answered from the cache
entries 1 20 >"$T/entries.after"
is "$(diff "$T/entries.before" "$T/entries.after" | wc -l)" 0 \
    "the 20 entries committed before the kills unchanged (fetched_at, id)"
log_mark
bad=0
for i in $(seq 1 20); do
	[ "$(pq "b$i.bulk.pstest")" = "$(sec "b$i")" ] || bad=$((bad + 1))
done
is "$bad" 0 "the 20 committed domains answered with their policies"
is "$(tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -c 'refresh=request discovery=')" 0 \
    "... from the cache: no discovery of them again"

# -- nothing spins or grows
declare -A a
pids=$(worker_pids)
for p in $pids; do a[$p]=$(cpu_ticks "$p"); done
sleep 3
for p in $pids; do
	b=$(cpu_ticks "$p")
	ok "$(( (b - a[$p]) * 10 < 3 * TICKS ? 0 : 1 ))" \
	    "idle after the kills: pid $p used $(( (b - a[$p]) * 1000 / TICKS )) ms of CPU in 3 s (< 300)"
	r=$(rss_kb "$p")
	ok "$(( r < RSS_MAX * 1024 ? 0 : 1 ))" "pid $p: RSS $((r / 1024)) MiB (< $RSS_MAX)"
done
is "$(grep -c 'killed by signal' "$DAEMON_LOG"):$(grep -c 'exited with status' "$DAEMON_LOG")" "4:0" \
    "no process died but the 4 killed (no crash, no sanitizer abort)"
size=$(stat -c %s "$DAEMON_LOG")
ok "$(( size < 2000000 ? 0 : 1 ))" "daemon log $size bytes (< 2 MB)"
nw=$(grep -c 'warning:' "$DAEMON_LOG")
ok "$(( nw <= 20 ? 0 : 1 ))" "$nw warning lines (<= 20)"
grep 'warning:' "$DAEMON_LOG" | grep -v 'running as root' | sort | uniq -c |
    sort -rn | head -n 8 | sed 's/^/# /'
daemon_stop
ok $? "clean exit"
done_testing
