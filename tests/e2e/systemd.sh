#!/bin/sh
# systemd.sh - the daemon started as systemd would start it
#
# Readiness: NOTIFY_SOCKET points at a unix datagram socket this test reads
# (python3); READY=1 must come only once every worker and the resolver run
# and the socket answers; SIGHUP gives RELOADING=1 then READY=1 (also when
# the new configuration is broken); SIGTERM gives STOPPING=1.
# As the unit runs it: an unprivileged user without any capability and with
# no_new_privs (setpriv), READY=1 and answers all the same.
# Socket activation: systemd-socket-activate binds the sockets and passes
# them (LISTEN_FDS/LISTEN_PID); Postfix's postmap is answered through them,
# and a passed socket matching no listener stops the start.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3

grep -q '^#define HAVE_SYSTEMD 1' "$top_builddir/autoconf.h" 2>/dev/null ||
	skip_all "built without libsystemd (configure --with-systemd)"

NOTIFY_SOCK="$T/notify.sock"
NOTIFY_LOG="$T/notify.log"
NOTIFY_PID=

# notify_listen - receive datagrams on $NOTIFY_SOCK; one line each in
# $NOTIFY_LOG with the newlines of the message turned into "|", followed by
# " children=N": how many children had logged entering their event loop
# (the daemon log, read the moment the message arrived)
notify_listen() {
	python3 - "$NOTIFY_SOCK" "$NOTIFY_LOG" "$DAEMON_LOG" <<'PYEOF' &
import re, socket, sys
path, log, daemon_log = sys.argv[1:4]
started = re.compile(r"debug: (worker [0-9]+|resolver) started$")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(log, "a", buffering=1) as f:
    while True:
        msg = s.recv(4096).decode("utf-8", "replace")
        try:
            with open(daemon_log, errors="replace") as d:
                n = sum(1 for line in d if started.search(line.rstrip("\n")))
        except OSError:
            n = 0
        f.write(msg.strip("\n").replace("\n", "|") + " children=%d\n" % n)
PYEOF
	NOTIFY_PID=$!
	wait_until 15 test -S "$NOTIFY_SOCK"	# python3 starting, under load
}

# wait_notify N PATTERN - wait until line N or later of the log matches
wait_notify() {
	local from=$1 pattern=$2
	WAIT_STEP=0.05 wait_until 15 \
	    'tail -n "+$from" "$NOTIFY_LOG" 2>/dev/null | grep -q -- "$pattern"'
}

: >"$NOTIFY_LOG"
notify_listen || { echo "Bail out! notify listener did not start"; exit 1; }
trap 'kill "$NOTIFY_PID" 2>/dev/null; _cleanup' EXIT

# -- readiness ---------------------------------------------------------------
WORKERS=3
daemon_config 'domain "pinned.example" { level = "encrypt" }'
NOTIFY_SOCKET="$NOTIFY_SOCK" "$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
wait_notify 1 'READY=1'
ok $? "READY=1 received"
# When READY=1 arrived, everything must already have run.
children_at_ready=$(grep 'READY=1' "$NOTIFY_LOG" | head -n1 | sed 's/.* children=//')
is "$(pq pinned.example 2>&1)" "encrypt" "the socket answers once READY=1 arrived"
is "$children_at_ready" "5" "READY=1 only after 3 workers and 2 resolvers started"
grep -q 'STATUS=starting' "$NOTIFY_LOG"
ok $? "STATUS= sent while starting"
grep 'READY=1' "$NOTIFY_LOG" | grep -q 'STATUS=serving'
ok $? "READY=1 carries a STATUS= line"
is "$(grep -c 'READY=1' "$NOTIFY_LOG")" "1" "READY=1 sent once"

# -- reload --------------------------------------------------------------------
n=$(($(wc -l <"$NOTIFY_LOG") + 1))
daemon_config 'domain "pinned.example" { level = "secure" match = "mx.pinned.example" }'
kill -HUP "$DAEMON_PID"
wait_notify "$n" 'READY=1'
ok $? "SIGHUP: READY=1 again"
tail -n "+$n" "$NOTIFY_LOG" | grep -o -E 'RELOADING=1|READY=1' | tr '\n' ' ' >"$T/order"
is "$(cat "$T/order")" "RELOADING=1 READY=1 " "SIGHUP: RELOADING=1, then READY=1"
is "$(tail -n "+$n" "$NOTIFY_LOG" | grep 'READY=1' | head -n1 | sed 's/.* children=//')" "10" \
	"second READY=1 after the new generation started"
is "$(pq pinned.example 2>&1)" "secure match=mx.pinned.example" \
	"the new configuration answers"

# A broken configuration: RELOADING=1, then READY=1 with the old one kept.
n=$(($(wc -l <"$NOTIFY_LOG") + 1))
echo 'workers = "many"' >>"$CONF"
kill -HUP "$DAEMON_PID"
wait_notify "$n" 'READY=1'
ok $? "broken reload: READY=1 again"
tail -n "+$n" "$NOTIFY_LOG" | grep 'READY=1' | grep -q 'reload failed'
ok $? "broken reload: STATUS= says the reload failed"
is "$(pq pinned.example 2>&1)" "secure match=mx.pinned.example" \
	"broken reload: the running configuration still answers"

# -- stop ------------------------------------------------------------------------
n=$(($(wc -l <"$NOTIFY_LOG") + 1))
daemon_stop
is "$?" "0" "SIGTERM: exit status 0"
wait_notify "$n" 'STOPPING=1'
ok $? "SIGTERM: STOPPING=1 sent"

# -- as postsmtpsts.service runs it: User=, no capabilities, NoNewPrivileges --
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	U="$T/unpriv"
	mkdir -p "$U/run" "$U/lib"
	chown nobody "$U/run" "$U/lib"
	chmod 666 "$NOTIFY_SOCK"
	cat >"$U/postsmtpsts.conf" <<-EOF
		user = "_postsmtpsts"
		pid_file = "$U/run/postsmtpsts.pid"
		runtime_dir = "$U/run"
		workers = 2
		verbose = 1
		listen "inet:127.0.0.1:$PORT" { }
		cache { path = "$U/lib/cache" }
		domain "pinned.example" { level = "encrypt" }
	EOF
	n=$(($(wc -l <"$NOTIFY_LOG") + 1))
	NOTIFY_SOCKET="$NOTIFY_SOCK" setpriv --reuid=nobody --regid=nogroup \
		--clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all \
		"$DAEMON" -f -c "$U/postsmtpsts.conf" >"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	wait_notify "$n" 'READY=1'
	ok $? "unprivileged, no capabilities, no_new_privs: READY=1"
	is "$(pq pinned.example postfix inet 2>&1)" "encrypt" \
		"unprivileged: the socket answers"
	grep -q 'not started as root' "$DAEMON_LOG"
	ok $? "unprivileged: the user option is ignored, as documented"
	daemon_stop
	is "$?" "0" "unprivileged: clean exit"
else
	for _i in 1 2 3 4; do
		ok 0 "# SKIP setpriv or user nobody missing"
	done
fi

# -- socket activation -------------------------------------------------------------
if ! command -v systemd-socket-activate >/dev/null 2>&1; then
	for _i in 1 2 3 4 5 6; do
		ok 0 "# SKIP systemd-socket-activate not installed"
	done
	done_testing
	exit $?
fi

: >"$NOTIFY_LOG"
WORKERS=2
daemon_config 'domain "pinned.example" { level = "encrypt" }'
rm -f "$SOCK"
# systemd-socket-activate binds, then execs the daemon at the first
# connection, with LISTEN_FDS=2 and LISTEN_PID set: as systemd does.
NOTIFY_SOCKET="$NOTIFY_SOCK" systemd-socket-activate -l "$SOCK" \
	-l "127.0.0.1:$PORT" "$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
wait_until 5 test -S "$SOCK"
inode_before=$(stat -c %i "$SOCK" 2>/dev/null)
# The first lookup makes systemd-socket-activate start the daemon; it waits
# in the passed socket's backlog until a worker accepts it.
is "$(pq pinned.example postfix unix 2>&1)" "encrypt" \
	"socket activation: postmap answered through the passed unix socket"
is "$(pq pinned.example postfix inet 2>&1)" "encrypt" \
	"socket activation: postmap answered through the passed inet socket"
is "$(grep -c 'socket from the service manager' "$DAEMON_LOG")" "2" \
	"socket activation: both listeners taken from the passed sockets"
is "$(stat -c %i "$SOCK" 2>/dev/null)" "$inode_before" \
	"socket activation: the unix socket is the one passed, not re-created"
daemon_stop
ok "$([ -S "$SOCK" ]; echo $?)" \
	"socket activation: the passed unix socket is left in place at exit"

# A passed socket that matches no listen section: a clear start-up error.
OTHER=$((PORT + 1))
systemd-socket-activate -l "127.0.0.1:$PORT" -l "127.0.0.1:$OTHER" \
	"$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
# A connection makes it exec the daemon; retry until it listens.
wait_until 5 python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 2)" \
	"$PORT" 2>/dev/null
wait_until 10 '! kill -0 "$DAEMON_PID" 2>/dev/null'
kill -KILL "$DAEMON_PID" 2>/dev/null
wait "$DAEMON_PID"
rc=$?
DAEMON_PID=
ok "$([ "$rc" -eq 1 ] && grep -q 'matches no listen section' "$DAEMON_LOG"; echo $?)" \
	"socket activation: a passed socket without a listener stops the start (exit $rc)"

done_testing
