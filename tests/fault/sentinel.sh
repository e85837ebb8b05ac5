#!/bin/bash
# sentinel.sh - a Sentinel failover during the daemon's fleet writes: a
# master, its replica and one redis-sentinel (quorum 1, down after
# 300 ms); the daemon finds the master through the sentinel; during a
# burst of cold lookups (each a discovery and a fleet write) the master is
# killed with -9 and the sentinel promotes the replica.  Asserted:
#   answers  every lookup of the burst answered by its deadline (OK or
#            TEMP within 3.5 s: the failover never stalls a lookup); a
#            domain cached before from the local cache within 0.5 s
#   recovery the fleet follows the sentinel to the promoted replica: a
#            never-seen domain gets its policy and the new master gets
#            records (DBSIZE grows) within 20 s
#   log      at most 200 lines naming the fleet or Redis, the daemon log
#            under 200 KB (no reconnect loop while the sentinel fails over)
# About 20 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 redis-server redis-cli
world_up || { echo "Bail out! world did not start"; exit 1; }
if [ "${WORLD_BULK:-0}" -lt 200 ]; then
	echo "Bail out! the world has ${WORLD_BULK:-0} bulk domains, sentinel.sh needs 200 (WORLD_BULK=200 tests/world/start)"
	exit 1
fi
shopt -s extglob

FDC="python3 $top_srcdir/tests/fault/fdclient.py"
R_ADDR="${WORLD_NET:-127.0}.63.81"
M_PORT=$(( 18379 + ( $$ % 1000 ) ))
P_PORT=$((M_PORT + 1))
S_PORT=$((M_PORT + 2))
PIDS=()
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/key"
chmod 600 "$T/key"
trap 'for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; _cleanup' EXIT
# server NAME PORT [ARGS...] - a redis-server on R_ADDR:PORT, dir $T/NAME
server() {
	local name=$1 port=$2
	shift 2
	mkdir -p "$T/$name"
	redis-server --bind "$R_ADDR" --port "$port" --save "" \
	    --appendonly no --dir "$T/$name" --logfile "$T/$name.log" \
	    --daemonize no "$@" &
	PIDS+=($!)
}
rc() { local p=$1; shift; redis-cli -h "$R_ADDR" -p "$p" "$@"; }
server master "$M_PORT"
M_PID=${PIDS[0]}
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.05 wait_until 5 'rc $M_PORT ping 2>/dev/null | grep -q PONG'
server replica "$P_PORT" --replicaof "$R_ADDR" "$M_PORT" \
    --replica-announce-ip "$R_ADDR"
printf 'port %s\nbind %s\ndir %s\nsentinel monitor m %s %s 1\nsentinel down-after-milliseconds m 300\nsentinel failover-timeout m 2000\n' \
    "$S_PORT" "$R_ADDR" "$T" "$R_ADDR" "$M_PORT" >"$T/sentinel.conf"
redis-server "$T/sentinel.conf" --sentinel --logfile "$T/sentinel.log" --daemonize no &
PIDS+=($!)
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 10 'rc $P_PORT info replication | grep -q "master_link_status:up"'
ok $? "the replica is linked to its master"
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 15 'rc $S_PORT sentinel replicas m 2>/dev/null | grep -q "$P_PORT"'
ok $? "the sentinel knows the master and its replica"

# shellcheck disable=SC2034 # world_daemon_lines reads it
REQUEST_TIMEOUT=3
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "deadline_answer = temp" \
    "fleet { sentinels = { \"$R_ADDR:$S_PORT\" } master_name = \"m\" key_file = \"$T/key\" prefix = \"s$$:\" timeout = 0.5 lease = 20 lease_wait = 10 }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 10 'grep -q "fleet: connected" "$DAEMON_LOG"'
ok $? "the daemon connected to the master through the sentinel"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
N=150
CACHED=enforce.pstest
pq "$CACHED" >/dev/null 2>&1
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 15 'pq "$CACHED" 2>&1 | grep -q "^secure"'
CACHED_ANSWER=$(pq "$CACHED" 2>&1)
ok "$(case $CACHED_ANSWER in secure*) echo 0 ;; *) echo 1 ;; esac)" \
    "$CACHED gets its policy"
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 10 '[ "$(rc $M_PORT dbsize)" -gt 0 ]'
ok $? "the master holds the fleet's records ($(rc $M_PORT dbsize))"

# the burst: 16 never-seen domains, 4 at a time; the master killed after
# the first 4 were asked
bad=0 slow=0 max=0
for wave in 1 2 3 4; do
	pids=()
	for i in 1 2 3 4; do
		N=$((N + 1))
		( echo "b$N.bulk.pstest $($FDC ask "$SOCK" postfix "b$N.bulk.pstest")" >"$T/burst.$wave.$i" ) &
		pids+=($!)
	done
	if [ "$wave" = 1 ]; then
		sleep 0.05
		kill -KILL "$M_PID"
		echo "# $(date +%T.%N | cut -c1-12) master killed"
	fi
	wait "${pids[@]}"
	for i in 1 2 3 4; do
		read -r d out <"$T/burst.$wave.$i"
		dt=${out##*ms=}
		out=${out% ms=*}
		case $out in reply=@(OK|TEMP)) ;; *) bad=$((bad + 1)); echo "# $d: $out" ;; esac
		[ "$dt" -gt "$max" ] && max=$dt
		[ "$dt" -ge 3500 ] && { slow=$((slow + 1)); echo "# $d in $dt ms: $out"; }
	done
done
is "$bad" 0 "failover: 16 new domains, every reply OK or TEMP"
ok "$(( slow == 0 ? 0 : 1 ))" "failover: the slowest in $max ms (< 3500)"
t0=$(ms)
out=$(timeout 10 postmap -c "$PF_DIR" -q "$CACHED" "socketmap:unix:$SOCK:postfix" 2>&1)
dt=$(( $(ms) - t0 ))
is "$out" "$CACHED_ANSWER" "failover: $CACHED answered from the cache"
ok "$(( dt < 500 ? 0 : 1 ))" "failover: ... in $dt ms (< 500)"

# the sentinel promotes the replica; the fleet follows it
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 15 'rc $P_PORT info replication | grep -q "role:master"'
r=$?
ok $r "the sentinel promoted the replica"
[ "$r" = 0 ] || tail -n 30 "$T/sentinel.log" | sed 's/^/# sentinel: /'
n0=$(rc "$P_PORT" dbsize)
N=$((N + 1))
D="b$N.bulk.pstest"
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 20 'pq "$D" 2>&1 | grep -q "^secure"'
ok $? "after the failover $D gets its policy"
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 20 '[ "$(rc $P_PORT dbsize)" -gt "$n0" ]'
n1=$(rc "$P_PORT" dbsize)
ok "$(( n1 > n0 ? 0 : 1 ))" "the fleet writes to the new master (DBSIZE $n0 -> $n1)"
n=$(grep -ci 'fleet\|redis' "$DAEMON_LOG")
size=$(stat -c %s "$DAEMON_LOG")
grep -i 'fleet\|redis' "$DAEMON_LOG" | grep -v 'debug:' | sed 's/\[[0-9]*\]//' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/# /'
ok "$(( n <= 200 ? 0 : 1 ))" "$n daemon log lines name the fleet or Redis (<= 200)"
ok "$(( size < 200000 ? 0 : 1 ))" "daemon log $size bytes (< 200 KB)"
daemon_stop
ok $? "clean exit"
done_testing
