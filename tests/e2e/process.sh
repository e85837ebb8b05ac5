#!/bin/sh
# process.sh - the process model: worker restart, reload, shutdown
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 pgrep

WORKERS=2 daemon_start 'domain "pinned.example" { level = "encrypt" }' ||
	{ echo "Bail out! daemon did not start"; exit 1; }
A="unix:$SOCK"

is "$(worker_pids | wc -l)" "4" "two workers and two resolvers forked"
ok "$([ -s "$PID_FILE" ] && [ "$(cat "$PID_FILE")" = "$DAEMON_PID" ]; echo $?)" \
    "pid file holds the master's pid"

# kill -9 a worker while a load runs; every lookup must still be answered.
victim=$(worker_pid 0)
( for i in $(seq 1 20); do sm "$A" many 20 pinned.example; done ) >"$T/load.out" 2>&1 &
load=$!
sleep 0.2
kill -KILL "$victim"
wait $load
is "$(sort -u "$T/load.out")" "ok 20" \
    "kill -9 of a worker under load: every lookup answered (a broken connection tried again once, as Postfix does)"
for _i in $(seq 1 50); do
	[ "$(worker_pids | wc -l)" = 4 ] && ! worker_pids | grep -qx "$victim" && break
	sleep 0.1
done
ok "$([ "$(worker_pids | wc -l)" = 4 ] && ! worker_pids | grep -qx "$victim"; echo $?)" \
    "killed worker replaced"
grep -q "killed by signal 9" "$DAEMON_LOG"
ok $? "master logged the worker's death"
is "$(pq pinned.example)" "encrypt" "lookups succeed after the restart"

# SIGHUP with a changed static policy.
before=$(worker_pids | tr '\n' ' ')
daemon_config 'domain "pinned.example" { level = "secure" match = "mx.pinned.example" }' \
	'domain "new.example" { level = "may" }'
kill -HUP "$DAEMON_PID"
for _i in $(seq 1 50); do
	[ "$(pq pinned.example 2>/dev/null)" = "secure match=mx.pinned.example" ] && break
	sleep 0.1
done
is "$(pq pinned.example)" "secure match=mx.pinned.example" "SIGHUP: changed policy served"
is "$(pq new.example)" "may" "SIGHUP: added policy served"
sleep 0.5
after=$(worker_pids | tr '\n' ' ')
ok "$([ "$before" != "$after" ] && [ "$(worker_pids | wc -l)" = 4 ]; echo $?)" \
    "SIGHUP: workers rolled ($before -> $after)"

# A broken config on SIGHUP keeps the running one.
echo 'workers = "many"' >>"$CONF"
kill -HUP "$DAEMON_PID"
sleep 0.5
is "$(pq pinned.example)" "secure match=mx.pinned.example" "SIGHUP with a bad config: old config kept"
grep -q "reload failed" "$DAEMON_LOG"
ok $? "bad reload logged"
# ... and so does one whose CA file cannot be read (the resolver would die)
daemon_config 'domain "pinned.example" { level = "secure" match = "mx.pinned.example" }' \
	"https { ca_file = \"$T/no-such-ca.pem\" }"
before=$(worker_pids | tr '\n' ' ')
kill -HUP "$DAEMON_PID"
wait_until 5 "grep -q 'reload failed.*https: $T/no-such-ca.pem' \"\$DAEMON_LOG\""
ok $? "SIGHUP with an unreadable CA file: reload failed, the file named"
is "$(pq pinned.example)" "secure match=mx.pinned.example" \
    "SIGHUP with an unreadable CA file: old config kept"
is "$(worker_pids | tr '\n' ' ')" "$before" \
    "SIGHUP with an unreadable CA file: no process replaced"

# SIGTERM while a slow client holds a connection open: exit 0, cleanup.
sm "$A" stall '' 30 >/dev/null 2>&1 &
stall=$!
sleep 0.2
daemon_stop
ok $? "SIGTERM: exit status 0"
kill $stall 2>/dev/null
ok "$([ ! -e "$PID_FILE" ]; echo $?)" "SIGTERM: pid file removed"
ok "$([ -z "$(pgrep -f "postsmtpsts -f -c $CONF")" ]; echo $?)" "SIGTERM: no process left"

# An orderly stop is not a failure: a run with lookups through the
# resolver, a reload (the old generation drains) and SIGTERM while a lookup
# is still running (the workers drain and see the resolver go: expected,
# not a lost connection) logs no warning.  The one warning a test config
# causes (user = "": running as root) is not about stopping.
daemon_start || { echo "Bail out! daemon did not start"; exit 1; }
pq nowhere.invalid >/dev/null 2>&1
kill -HUP "$DAEMON_PID"
for _i in $(seq 1 50); do
	grep -q "reloaded" "$DAEMON_LOG" && break
	sleep 0.1
done
pq nowhere2.invalid >/dev/null 2>&1
sm "$A" stall '23:postfix pending.invalid,' 5 >/dev/null 2>&1 &
stall=$!
sleep 0.1
daemon_stop
ok $? "clean run: exit status 0"
kill $stall 2>/dev/null
grep -q "reloaded" "$DAEMON_LOG"
ok $? "clean run: reloaded"
grep 'warning:' "$DAEMON_LOG" | grep -v 'running as root' >"$T/warnings"
is "$(wc -l <"$T/warnings")" "0" "clean run (lookups, SIGHUP, SIGTERM mid-lookup): no warning logged"
sed 's/^/# /' "$T/warnings"
grep -E "pending|stopping|lost" "$DAEMON_LOG" | sed "s/^/# log: /"
done_testing
