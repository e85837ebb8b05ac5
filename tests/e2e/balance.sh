#!/bin/bash
# balance.sh - Postfix connections spread over the workers (worker_conn.c,
# "Balance"), on a unix and on an inet listener:
#   - 64 connections opened at once and kept busy: each of the two workers
#     holds its share (within the slack, 1 + 1/16 of the other's count, and
#     one connection in flight), where the first worker to wake used to take
#     two thirds;
#   - postsmtpsts_connections_open counts them, and 0 once they are gone;
#   - kill -9 of a worker: new connections are not left waiting for it
#     (its gauges are cleared by the master), every lookup answered, and
#     the restarted worker takes the next connections.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
SM_LOAD=$top_builddir/bench/sm-load
PROM=$top_srcdir/tests/e2e/promtext.py
[ -x "$SM_LOAD" ] || skip_all "bench/sm-load is not built"
need python3 pgrep ss

MPORT=$(free_port $((PORT + 100)))
URL="http://127.0.0.1:$MPORT/metrics"
WORKERS=2 daemon_start 'domain "pinned.example" { level = "encrypt" }' \
    "metrics = \"inet:127.0.0.1:$MPORT\"" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
metric() { python3 "$PROM" fetch "$URL" "$T/m.prom" >/dev/null && python3 "$PROM" get "$T/m.prom" "$1"; }

W0=$(worker_pid 0)
W1=$(worker_pid 1)
# conns PID - the connections worker PID holds with the clients: sockets
# in its fd table, less the ones it had before the load (listeners, the
# resolvers, the log)
conns() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'socket:'; }
base0=$(conns "$W0")
base1=$(conns "$W1")

# spread ADDR LABEL - 64 busy connections; both workers' shares
spread() {
	"$SM_LOAD" -c 64 -n 3000000 -t 30 -k pinned.example "$1" >"$T/load.$2" 2>&1 &
	local load=$! a b i
	for i in $(seq 1 50); do
		a=$(($(conns "$W0") - base0))
		b=$(($(conns "$W1") - base1))
		[ $((a + b)) -ge 64 ] && break
		sleep 0.1
	done
	sleep 0.3
	a=$(($(conns "$W0") - base0))
	b=$(($(conns "$W1") - base1))
	is "$((a + b))" 64 "$2: 64 connections open ($a + $b)"
	local lo=$a hi=$b
	[ "$a" -gt "$b" ] && { lo=$b; hi=$a; }
	ok "$([ "$hi" -le $((lo + 2 + lo / 16)) ]; echo $?)" \
	    "$2: spread over the two workers: $a and $b"
	is "$(metric postsmtpsts_connections_open)" 64 \
	    "$2: postsmtpsts_connections_open 64"
	kill "$load" 2>/dev/null
	wait "$load" 2>/dev/null
	wait_until 5 '[ "$(metric postsmtpsts_connections_open)" = 0 ]'
	ok $? "$2: postsmtpsts_connections_open back to 0 once they closed"
}
spread "unix:$SOCK" unix
spread "inet:127.0.0.1:$PORT" inet

# kill -9 of worker 0 while worker 1 holds 20 connections: the next
# connections must not wait for worker 0 (a dead worker's count is 0, the
# least of all, but it is not running)
python3 - "$SOCK" 20 >"$T/hold.out" 2>&1 <<'PY' &
import socket, sys, time
conns = []
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    q = b"postfix pinned.example"
    s.sendall(str(len(q)).encode() + b":" + q + b",")
    s.recv(100)
    conns.append(s)
print("held", len(conns), flush=True)
time.sleep(20)
PY
hold=$!
wait_until 5 'grep -q held "$T/hold.out"'
kill -KILL "$W0"
t0=$(date +%s%N)
"$SM_LOAD" -c 10 -n 200 -t 10 -k pinned.example "unix:$SOCK" >"$T/afterkill" 2>&1
ms=$((($(date +%s%N) - t0) / 1000000))
res=$(grep '^RESULT' "$T/afterkill")
ok "$(echo "$res" | grep -q ' ok=200 '; echo $?)" \
    "worker 0 killed: 200 lookups on 10 new connections all answered"
ok "$([ "$ms" -lt 3000 ]; echo $?)" "... without waiting for its restart (${ms} ms)"
wait_until 10 '[ -n "$(worker_pid 0)" ] && [ "$(worker_pid 0)" != "$W0" ]'
ok $? "worker 0 restarted"
W0=$(worker_pid 0)
base0=$(conns "$W0")
sleep 0.3
# worker 1 still holds the 20: the restarted worker takes the new ones
"$SM_LOAD" -c 8 -n 2000000 -t 30 -k pinned.example "unix:$SOCK" >"$T/load.new" 2>&1 &
load=$!
sleep 1
a=$(($(conns "$W0") - base0))
ok "$([ "$a" -ge 7 ]; echo $?)" \
    "the restarted worker took the new connections: $a of 8 (worker 1 may take one before it looks)"
kill "$load" "$hold" 2>/dev/null
wait "$load" "$hold" 2>/dev/null

daemon_stop
ok $? "SIGTERM: exit status 0"
done_testing
