#!/bin/bash
# redis.sh - the fleet's Redis fails under a daemon that uses it (timeout
# 0.5 s, request_timeout 3 s): frozen (SIGSTOP) while the daemon holds
# refresh leases for a burst of discoveries, killed and restarted, and
# out of memory (CONFIG SET maxmemory 1, noeviction: every write an OOM
# error).  Asserted each time:
#   answers  a burst of 8 never-seen bulk domains, each asked once: every
#            reply OK or TEMP within 3.5 s (none hangs on Redis); a domain
#            cached before the fault answered from the local cache within
#            0.5 s
#   recovery Redis back, a never-seen domain gets its policy within 15 s
#            and the fleet has records again (DBSIZE grows)
#   log      the daemon log under 200 KB, at most 100 lines naming the fleet
#   CPU      the daemon's processes < 20 % of a core over the frozen burst
# About 45 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
. "$top_srcdir/tests/fault/lib.sh"
need postmap python3 redis-server redis-cli
world_up || { echo "Bail out! world did not start"; exit 1; }
if [ "${WORLD_BULK:-0}" -lt 200 ]; then
	echo "Bail out! the world has ${WORLD_BULK:-0} bulk domains, redis.sh needs 200 (WORLD_BULK=200 tests/world/start)"
	exit 1
fi
shopt -s extglob

TICKS=$(getconf CLK_TCK)
FDC="python3 $top_srcdir/tests/fault/fdclient.py"
R_ADDR="${WORLD_NET:-127.0}.63.80"
R_PORT=$(( 17379 + ( $$ % 1000 ) ))
R_SOCK="$T/redis.sock"
R_PID=
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/key"
echo "pw-$$-secret" >"$T/pw"
chmod 600 "$T/key" "$T/pw"
cat >"$T/redis.conf" <<RC
bind $R_ADDR
port $R_PORT
unixsocket $R_SOCK
unixsocketperm 700
save ""
appendonly no
dir $T
logfile $T/redis.log
user default off
user fleet on >$(cat "$T/pw") ~* &* +@all
RC
redis_start() {
	redis-server "$T/redis.conf" --daemonize no &
	R_PID=$!
	# shellcheck disable=SC2016 # wait_until evaluates it
	WAIT_STEP=0.05 wait_until 5 'rc ping 2>/dev/null | grep -q PONG'
}
rc() { redis-cli -s "$R_SOCK" --user fleet --pass "$(cat "$T/pw")" \
    --no-auth-warning "$@"; }
redis_kill() { kill -CONT "$R_PID" 2>/dev/null; kill -KILL "$R_PID" 2>/dev/null; wait "$R_PID" 2>/dev/null; R_PID=; }
trap '[ -n "$R_PID" ] && redis_kill; _cleanup' EXIT
redis_start || { echo "Bail out! redis-server did not start"; exit 1; }

REQUEST_TIMEOUT=3
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "deadline_answer = temp" \
    "fleet { servers = { \"$R_ADDR:$R_PORT\" } user = fleet password_file = \"$T/pw\" key_file = \"$T/key\" prefix = \"f$$:\" timeout = 0.5 lease = 20 lease_wait = 10 }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

cpu_ticks() {
	local p s=0
	for p in $DAEMON_PID $(pgrep -P "$DAEMON_PID"); do
		s=$(( s + $(sed 's/.*) //' "/proc/$p/stat" | awk '{ print $12 + $13 }') ))
	done
	echo "$s"
}
N=100
fresh() { N=$((N + 1)); D="b$N.bulk.pstest"; }
# recovers WHAT - Redis back: a new domain gets its policy, the fleet
# gets records again
recovers() {
	local n0 n1
	n0=$(rc dbsize)
	fresh
	# shellcheck disable=SC2016 # wait_until evaluates it
	WAIT_STEP=0.5 wait_until 15 'pq "$D" 2>&1 | grep -q "^secure"'
	ok $? "$1: Redis back, $D gets its policy within 15 s"
	# shellcheck disable=SC2016 # wait_until evaluates it
	WAIT_STEP=0.5 wait_until 15 '[ "$(rc dbsize)" -gt "$n0" ]'
	n1=$(rc dbsize)
	ok "$(( n1 > n0 ? 0 : 1 ))" "$1: the fleet written again (DBSIZE $n0 -> $n1)"
}
ANY="reply=@(OK|TEMP)"

CACHED=enforce.pstest
pq "$CACHED" >/dev/null 2>&1
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 15 'pq "$CACHED" 2>&1 | grep -q "^secure"'
CACHED_ANSWER=$(pq "$CACHED" 2>&1)
ok "$(case $CACHED_ANSWER in secure*) echo 0 ;; *) echo 1 ;; esac)" \
    "Redis up: $CACHED gets its policy"
burst "Redis up" "$ANY" 3500
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 10 '[ "$(rc dbsize)" -gt 0 ]'
ok $? "Redis up: the fleet holds $(rc dbsize) keys"

# -- frozen: SIGSTOP while discoveries hold leases -----------------------------
kill -STOP "$R_PID"
c0=$(cpu_ticks)
burst "Redis frozen" "$ANY" 3500
c1=$(cpu_ticks)
ok "$(( (c1 - c0) * 5 < 4 * TICKS ? 0 : 1 ))" \
    "Redis frozen: the daemon used $(( (c1 - c0) * 1000 / TICKS )) ms of CPU over the burst (< 800)"
cached "Redis frozen"
kill -CONT "$R_PID"
recovers "after SIGSTOP"

# -- killed, restarted empty ----------------------------------------------------
redis_kill
burst "Redis killed" "$ANY" 3500
cached "Redis killed"
redis_start || { echo "Bail out! redis-server did not restart"; exit 1; }
recovers "after the restart"

# -- out of memory: every write refused ----------------------------------------
rc config set maxmemory-policy noeviction >/dev/null
rc config set maxmemory 1 >/dev/null
burst "Redis OOM" "$ANY" 3500
cached "Redis OOM"
rc config set maxmemory 0 >/dev/null
recovers "after OOM"

n=$(grep -ci 'fleet\|redis' "$DAEMON_LOG")
size=$(stat -c %s "$DAEMON_LOG")
grep -i 'fleet\|redis' "$DAEMON_LOG" | grep -v 'debug:' | sed 's/\[[0-9]*\]//' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/# /'
ok "$(( n <= 100 ? 0 : 1 ))" "$n daemon log lines name the fleet or Redis (<= 100)"
ok "$(( size < 200000 ? 0 : 1 ))" "daemon log $size bytes (< 200 KB)"
daemon_stop
ok $? "clean exit"
done_testing
