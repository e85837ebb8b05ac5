#!/bin/bash
# cache-disk-full.sh - the cache's filesystem full: the daemon's cache
# directory on a small tmpfs of its own, 50 bulk domains cached, then the
# tmpfs filled up to its last block (a filler file) and
#   1. a cold burst of 100 new bulk domains (4 clients at once);
#   2. the daemon restarted on the full disk, its proactive refresh walk
#      (refresh_before makes every policy due 2 s after its fetch,
#      refresh_interval = 1) with 25 new domains asked meanwhile: a
#      refreshed entry rewritten in place may fit in the file's free
#      pages, the new ones make the walk's commits grow, and fail;
#   3. the disk coming back (the filler removed): new domains are stored
#      again, no restart.
# Asserted each time:
#   answers  every lookup gets its policy (a failed write never turns a
#            discovered policy into a failure), the cached ones from the
#            cache; each lookup within 5 s
#   log      at most 4 warnings a daemon run (one "cache write ... failed"
#            and one "history file ...: event not recorded" a minute per
#            resolver, the policy history sharing the full disk: the
#            bound; the bug was a warning a failed commit, 207 in 10 s)
#   metric   postsmtpsts_cache_write_errors_total > 0 while full;
#            postsmtpsts_cache_evicted_total stays 0 (a full disk is not
#            a full map: nothing committed is deleted to make room)
#   data     the 50 committed policies (100 entries with their DANE
#            ones) are all still there after the burst and the walk (a
#            commit that fits in the file's free pages still succeeds:
#            some new ones are stored too)
#   memory   each process' VmRSS < 64 MB (512 under ASan)
#   CPU      once the burst is over, each process < 10 % of a core over
#            3 s (no spin on a failing write); during the walk (about
#            50 refreshes a second) < 50 %
# About 20-25 s.  Needs root (mount).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 mount umount dd
[ "$(id -u)" = 0 ] || skip_all "needs root (mount -t tmpfs)"
world_up || { echo "Bail out! world did not start"; exit 1; }
[ "${WORLD_BULK:-0}" -ge 200 ] || skip_all "needs WORLD_BULK >= 200 (has ${WORLD_BULK:-0})"

CACHE_TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
TICKS=$(getconf CLK_TCK)
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"
FS=$(mktemp -d "${TMPDIR:-/tmp}/${WORLD_DIR##*/}-cachefs.XXXXXX")
mount -t tmpfs -o size=4m,mode=0755 tmpfs "$FS" ||
	{ echo "Bail out! mount -t tmpfs $FS failed"; exit 1; }
_fs_cleanup() {
	_cleanup
	umount "$FS" 2>/dev/null || umount -l "$FS"
	rmdir "$FS"
}
trap _fs_cleanup EXIT

# metric SERIES - its value in a fresh scrape ('absent' if none)
metric() {
	$PROM fetch "$URL" "$T/scrape" >/dev/null
	$PROM get "$T/scrape" "$1"
}
# cpu_ticks PID - utime + stime of PID (fields 14 and 15 of its stat)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# rss_kb PID - its VmRSS in kB
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
# the bound: 64 MB, 512 in an ASan build (its shadow memory and quarantine)
RSS_MAX_KB=65536
ldd "$DAEMON" 2>/dev/null | grep -q libasan && RSS_MAX_KB=524288
# cached - the number of entries in the cache (postsmtpsts-cache list)
cached() { "$CACHE_TOOL" -c "$CONF" list 2>/dev/null | grep -c 'bulk\.pstest'; }
# committed - how many of the first 50 policies' entries (b1..b50, each
# with its DANE entry) are in the cache
committed() {
	"$CACHE_TOOL" -c "$CONF" list 2>/dev/null |
	    grep -cE '^(dane:)?b([1-9]|[1-4][0-9]|50)\.bulk\.pstest[[:space:]]'
}
# warnings - the warnings in the daemon log since the mark
warnings() {
	tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep 'warning: ' |
	    grep -vc 'running as root'
}
# ask FIRST LAST - look up bI.bulk.pstest for I in FIRST..LAST, 4
# clients at once; each prints "I SECONDS ANSWER"
ask() {
	seq "$1" "$2" | xargs -P 4 -I{} sh -c '
	    t0=$(date +%s%N)
	    a=$(timeout 20 postmap -c "$0" -q b{}.bulk.pstest "socketmap:unix:$1:postfix" 2>&1)
	    echo "{} $(( ($(date +%s%N) - t0) / 1000000 )) $a"' "$PF_DIR" "$SOCK"
}
# answers_ok WHAT FIRST LAST - every bulk domain in the range got its policy
# within 5 s
answers_ok() {
	local what=$1 out bad slow n
	out=$(ask "$2" "$3")
	n=$(printf '%s\n' "$out" | grep -c .)
	bad=$(printf '%s\n' "$out" | awk '$3 != "secure" || $4 != "match=b" $1 ".mx.bulk.pstest"' | head -n 3)
	slow=$(printf '%s\n' "$out" | awk '$2 > max { max = $2 } END { print max + 0 }')
	is "$n:$bad" "$(( $3 - $2 + 1 )):" "$what: $n lookups, each answered with its policy"
	ok "$(( slow < 5000 ? 0 : 1 ))" "$what: the slowest in $slow ms (< 5000)"
}
# pids - the daemon and its children
pids() { echo "$DAEMON_PID $(pgrep -P "$DAEMON_PID" | tr '\n' ' ')"; }
# bounded WHAT MAXPCT - memory, log and CPU (each process under MAXPCT %
# of a core over 3 s)
bounded() {
	local p b what=$1 max=$2 n
	for p in $(pids); do
		ok "$(( $(rss_kb "$p") < RSS_MAX_KB ? 0 : 1 ))" \
		    "$what: pid $p ($(tr -d '\0' <"/proc/$p/comm")) VmRSS $(rss_kb "$p") kB (< $RSS_MAX_KB)"
	done
	declare -A a
	for p in $(pids); do a[$p]=$(cpu_ticks "$p"); done
	sleep 3
	for p in $(pids); do
		b=$(cpu_ticks "$p")
		ok "$(( (b - a[$p]) * 100 < 3 * TICKS * max ? 0 : 1 ))" \
		    "$what: pid $p used $(( (b - a[$p]) * 1000 / TICKS )) ms of CPU in 3 s (< $((30 * max)))"
	done
	n=$(warnings)
	ok "$(( n <= 4 ? 0 : 1 ))" "$what: $n warnings in the log (<= 4)"
}

mapfile -t lines < <(world_daemon_lines)
export WORKERS=2 RESOLVERS=2
# start CACHE-OPTIONS - the daemon, its cache on the tmpfs
start() {
	: >"$DAEMON_LOG"
	LOG_MARK=0
	daemon_start "${lines[@]}" "metrics = \"inet:127.0.0.1:$MPORT\"" \
	    "cache { path = \"$FS/cache\" $1 }" ||
		{ echo "Bail out! daemon did not start"; exit 1; }
}
start "refresh_interval = 3600 refresh_before = 86398"

# 50 policies learned and committed (each with its DANE entry)
answers_ok "disk free" 1 50
wait_until 10 '[ "$(cached)" -eq 100 ]'
is "$(cached)" 100 "disk free: 50 policies committed (100 entries)"

# the filesystem full to its last block
dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null
echo "# tmpfs: $(df -k --output=used,avail "$FS" | tail -n1) kB used, available; filler $(stat -c %s "$FS/filler") bytes"
ok "$( [ "$(df -k --output=avail "$FS" | tail -n1 | tr -d ' ')" -eq 0 ]; echo $?)" \
    "the cache's filesystem is full"

# 1. a cold burst of new domains
answers_ok "disk full, cold burst" 51 150
n=$(metric postsmtpsts_cache_write_errors_total)
ok "$([ "$n" != absent ] && [ "$n" -ge 1 ]; echo $?)" \
    "disk full: writes failing, counted (postsmtpsts_cache_write_errors_total $n)"
ok "$(grep -q 'cache write for .* failed' "$DAEMON_LOG"; echo $?)" \
    "disk full: logged: $(grep -m1 'cache write for' "$DAEMON_LOG" | sed 's/.*warning: //')"
bounded "disk full, cold burst" 10
# evicted - every class's evictions (postsmtpsts_cache_evicted_total)
evicted() {
	$PROM fetch "$URL" "$T/scrape" >/dev/null
	grep '^postsmtpsts_cache_evicted_total{' "$T/scrape" |
	    awk '{ n += $2 } END { print n + 0 }'
}
is "$(evicted)" 0 "disk full, cold burst: nothing evicted (postsmtpsts_cache_evicted_total)"
is "$(committed)" 100 "disk full, cold burst: the 100 committed entries are still there"
echo "# disk full, cold burst: $(cached) entries in all"
daemon_stop
ok $? "disk full, cold burst: clean exit"

# 2. restarted on the full disk; the refresh walk: every policy due 2 s
# after its fetch
start "refresh_interval = 1 refresh_before = 86398"
sleep 2
r0=$(metric postsmtpsts_refreshes_started_total)
answers_ok "disk full, refresh walk" 1 50
answers_ok "disk full, refresh walk, new domains" 151 175
bounded "disk full, refresh walk" 50
r1=$(metric postsmtpsts_refreshes_started_total)
ok "$(( r1 - r0 >= 25 ? 0 : 1 ))" \
    "disk full, refresh walk: $((r1 - r0)) refreshes started (>= 25)"
n=$(metric postsmtpsts_cache_write_errors_total)
ok "$([ "$n" != absent ] && [ "$n" -ge 1 ]; echo $?)" \
    "disk full, refresh walk: the refreshes' writes fail, counted (postsmtpsts_cache_write_errors_total $n)"
is "$(evicted)" 0 "disk full, refresh walk: nothing evicted"
is "$(committed)" 100 "disk full, refresh walk: the 100 committed entries are still there"
stored=$(cached)

# 3. the disk back: new policies are stored again, no restart
rm -f "$FS/filler"
e0=$(metric postsmtpsts_cache_write_errors_total)
answers_ok "disk back" 176 200
new() {
	"$CACHE_TOOL" -c "$CONF" list 2>/dev/null |
	    grep -cE '^(dane:)?b(17[6-9]|1[89][0-9]|200)\.bulk\.pstest[[:space:]]'
}
wait_until 10 '[ "$(new)" -ge 50 ]'
is "$(new):$(committed)" "50:100" "disk back: the 25 new policies stored (50 entries), the first 50's kept"
echo "# disk back: $(cached) entries in all ($stored before)"
is "$(metric postsmtpsts_cache_write_errors_total)" "$e0" \
    "disk back: no write failed since (postsmtpsts_cache_write_errors_total)"
is "$(pq b1.bulk.pstest)" "secure match=b1.mx.bulk.pstest servername=hostname" \
    "disk back: a cached policy is still answered"
daemon_stop
ok $? "clean exit"
done_testing
