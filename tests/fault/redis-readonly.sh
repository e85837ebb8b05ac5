#!/bin/bash
# redis-readonly.sh - the daemon's fleet server is a replica (redis-server
# --replicaof a master): every write answered READONLY.  Asserted:
#   answers  a burst of 8 never-seen bulk domains, each asked once: every
#            reply OK or TEMP within 3.5 s (READONLY does not stall a
#            lookup); a domain cached before answered from the local cache
#            within 0.5 s
#   recovery the replica promoted (REPLICAOF NO ONE, as a failover would),
#            a never-seen domain gets its policy within 15 s and the fleet
#            is written on it (DBSIZE grows)
#   log      at most 20 READONLY reconnects over ~6 s on the replica (the
#            backoff doubles: no loop), the daemon log under 200 KB, at
#            most 200 lines naming the fleet (before the fix: 107 reconnects,
#            1344 lines)
# About 15 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
. "$top_srcdir/tests/fault/lib.sh"
need postmap python3 redis-server redis-cli
world_up || { echo "Bail out! world did not start"; exit 1; }
if [ "${WORLD_BULK:-0}" -lt 200 ]; then
	echo "Bail out! the world has ${WORLD_BULK:-0} bulk domains, redis-readonly.sh needs 200 (WORLD_BULK=200 tests/world/start)"
	exit 1
fi
shopt -s extglob

FDC="python3 $top_srcdir/tests/fault/fdclient.py"
R_ADDR="${WORLD_NET:-127.0}.63.82"
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
M_PID=$R_PID
M_PORT=$R_PORT
R_PORT=$((M_PORT + 1))
R_SOCK="$T/replica.sock"
sed -e "s|^port .*|port $R_PORT|" -e "s|^unixsocket .*|unixsocket $R_SOCK|" \
    -e "s|^logfile .*|logfile $T/replica.log|" "$T/redis.conf" >"$T/replica.conf"
printf 'replicaof %s %s\nmasteruser fleet\nmasterauth %s\n' "$R_ADDR" "$M_PORT" \
    "$(cat "$T/pw")" >>"$T/replica.conf"
cp "$T/replica.conf" "$T/redis.conf"
redis_start || { echo "Bail out! the replica did not start"; exit 1; }
trap 'kill -KILL "$M_PID" 2>/dev/null; [ -n "$R_PID" ] && redis_kill; _cleanup' EXIT
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.2 wait_until 10 'rc info replication | grep -q "master_link_status:up"'
ok $? "the replica is linked to its master"

# shellcheck disable=SC2034 # world_daemon_lines reads it
REQUEST_TIMEOUT=3
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "deadline_answer = temp" \
    "fleet { servers = { \"$R_ADDR:$R_PORT\" } user = fleet password_file = \"$T/pw\" key_file = \"$T/key\" prefix = \"f$$:\" timeout = 0.5 lease = 20 lease_wait = 10 }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

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
    "replica: $CACHED gets its policy"
burst "replica (READONLY)" "$ANY" 3500
cached "replica (READONLY)"
# 5 s more on the replica: its resyncs are writes too; each refused one
# is a reconnect (3 log lines), which must back off, not loop every 100 ms
sleep 5
ro=$(grep -c "answers READONLY" "$DAEMON_LOG")
ok "$(( ro <= 20 ? 0 : 1 ))" "replica (READONLY): $ro READONLY reconnects over ~6 s (<= 20: the backoff doubles; 107 before the fix)"
echo "# DBSIZE on the replica $(rc dbsize)"
# -- promoted: the fleet writes again -------------------------------------------
rc replicaof no one >/dev/null
recovers "replica promoted"
n=$(grep -ci 'fleet\|redis' "$DAEMON_LOG")
size=$(stat -c %s "$DAEMON_LOG")
grep -i 'fleet\|redis' "$DAEMON_LOG" | grep -v 'debug:' | sed 's/\[[0-9]*\]//' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/# /'
ok "$(( n <= 200 ? 0 : 1 ))" "$n daemon log lines name the fleet or Redis (<= 200; 1344 before the backoff fix)"
ok "$(( size < 200000 ? 0 : 1 ))" "daemon log $size bytes (< 200 KB)"
daemon_stop
ok $? "clean exit"
done_testing
