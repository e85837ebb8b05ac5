#!/bin/bash
# fd-exhaustion.sh - out of file descriptors: one client (fdclient.py)
# opens 200 connections to a daemon under "ulimit -n 64", and again at the
# lowest limit the daemon starts with (below it, it refuses to start and
# says why); then a worker's limit is cut under it (prlimit) so accept(2)
# itself fails with EMFILE.  Asserted each time:
#   answers  over the limit a connection gets EOF within 1 s (2 s when
#            accept(2) fails: one listener pause), none hangs; so does a
#            new lookup meanwhile (answered or refused); once the client
#            lets go a lookup is answered within 1 s (2 s)
#   log      at most 10 accept-error lines in all (the bound: one line a
#            minute per worker; the bug was 590,000 lines in 5 s), the
#            log under 100 KB
#   CPU      each worker spends < 10 % of a core over 3 s (no spin on a
#            failing accept), from /proc/PID/stat utime + stime
#   data     the metrics: no accept error while max_connections binds,
#            postsmtpsts_accept_errors_total{error="emfile"} when it fails
# About 30 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 prlimit

FDC="python3 $top_srcdir/tests/fault/fdclient.py"
TICKS=$(getconf CLK_TCK)
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"
PIN='domain "pinned.example" { level = "encrypt" }'
METRICS="metrics = \"inet:127.0.0.1:$MPORT\""
REAL_DAEMON=$DAEMON
DAEMON="$T/daemon-nofile"
export WORKERS=2 RESOLVERS=2

# nofile N - $DAEMON is the daemon under "ulimit -n N" (soft and hard)
nofile() {
	printf '#!/bin/sh\nulimit -n %s || exit 1\nexec "%s" "$@"\n' \
		"$1" "$REAL_DAEMON" >"$DAEMON"
	chmod 755 "$DAEMON"
}
# cpu_ticks PID - utime + stime of PID (fields 14 and 15 of its stat)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# accept_lines - accept-error lines in the daemon log
accept_lines() { grep -c -e 'accept: ' -e 'accept failed' "$DAEMON_LOG"; }
# ms - a monotonic-enough clock in milliseconds
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# metric SERIES - its value in a fresh scrape ('absent' if none)
metric() {
	$PROM fetch "$URL" "$T/scrape" >/dev/null
	$PROM get "$T/scrape" "$1"
}
# lowest_free PID - the lowest descriptor number PID has not open
lowest_free() {
	local n=0
	while [ -e "/proc/$1/fd/$n" ]; do n=$((n + 1)); done
	echo "$n"
}
# client N WAIT - fdclient.py holds N connections; its first line in $out
client() {
	rm -f "$T/release"
	: >"$T/client.out"
	$FDC hold "$SOCK" "$1" "$2" "$T/release" >"$T/client.out" 2>&1 &
	CLIENT=$!
	wait_until 30 '[ -s "$T/client.out" ]'
	out=$(head -n1 "$T/client.out")
	echo "# client: $out"
	eval "$(tr ' ' '\n' <<<"$out" | grep -E '^(opened|eof|reset|open|timeouts|eof_max_ms)=[0-9]+$')"
}
# release - the client closes its connections and exits
release() {
	touch "$T/release"
	wait "$CLIENT"
}
# no_spin WHAT - each worker's CPU over 3 s stays under 10 % of a core
no_spin() {
	local w p a b
	for w in 0 1; do
		p=$(worker_pid $w)
		a[$w]=$(cpu_ticks "$p")
	done
	sleep 3
	for w in 0 1; do
		p=$(worker_pid $w)
		b=$(cpu_ticks "$p")
		ok "$(( (b - a[w]) * 10 < 3 * TICKS ? 0 : 1 ))" \
		    "$1: worker $w used $(( (b - a[w]) * 1000 / TICKS )) ms of CPU in 3 s (< 300)"
	done
}
# lookup_within MS WHAT - a new lookup is answered within MS
lookup_within() {
	local t0 got dt
	t0=$(ms)
	got=$(timeout 10 postmap -c "$PF_DIR" -q pinned.example \
	    "socketmap:unix:$SOCK:postfix" 2>&1)
	dt=$(( $(ms) - t0 ))
	is "$got" "encrypt" "$2: a new lookup is answered"
	ok "$(( dt < $1 ? 0 : 1 ))" "$2: ... in $dt ms (< $1)"
}
# lookup_ends MS WHAT - while the connections are held, a new request
# (fdclient.py ask: postmap would add Postfix's retry a second later) ends
# within MS: answered, or refused with EOF; the bug left it waiting in the
# backlog
lookup_ends() {
	local got dt
	got=$($FDC ask "$SOCK" postfix pinned.example)
	dt=${got##*ms=}
	case $got in
	reply=OK*|eof*) ok "$(( dt < $1 ? 0 : 1 ))" \
	    "$2: a new request meanwhile: ${got% ms=*} in $dt ms (< $1)" ;;
	*) ok 1 "$2: a new request meanwhile: $got (answered or EOF)" ;;
	esac
}
# log_bounded WHAT - few accept-error lines, a small log
log_bounded() {
	local n size
	n=$(accept_lines)
	size=$(stat -c %s "$DAEMON_LOG")
	ok "$(( n <= 10 ? 0 : 1 ))" "$1: $n accept-error lines (<= 10)"
	ok "$(( size < 100000 ? 0 : 1 ))" "$1: daemon log $size bytes (< 100 KB)"
}

# flood LIMIT - 200 connections to the daemon under ulimit -n LIMIT:
# max_connections (derived from the limit) binds before accept(2) fails
flood() {
	local lim=$1 what="ulimit -n $1" max
	nofile "$lim"
	daemon_start "$PIN" "$METRICS" ||
		{ echo "Bail out! $what: daemon did not start"; exit 1; }
	max=$(sed -n "s/.*worker 0: open file limit $lim allows only \([0-9]*\) of max_connections.*/\1/p" \
	    "$DAEMON_LOG" | head -n1)
	echo "# $what: max_connections ${max:-?} a worker"
	[ -n "$max" ] || max=$lim
	client 200 3
	is "$opened:$timeouts:$((eof + reset + open))" "200:0:200" \
	    "$what: 200 connections made, none left in the backlog"
	ok "$(( open <= 2 * max ? 0 : 1 ))" \
	    "$what: $open held open (<= 2 x $max, max_connections binds)"
	ok "$(( eof + reset == 200 - open && eof_max_ms < 1000 ? 0 : 1 ))" \
	    "$what: the $((eof + reset)) others closed by the daemon, the slowest in $eof_max_ms ms (< 1000)"
	lookup_ends 1000 "$what"
	no_spin "$what"
	log_bounded "$what"
	is "$(metric 'postsmtpsts_accept_errors_total{error="emfile"}')" "0" \
	    "$what: no accept(2) failed (postsmtpsts_accept_errors_total)"
	release
	lookup_within 1000 "$what, the client gone"
	daemon_stop
	ok $? "$what: clean exit"
}

flood 64

# Below the minimum the daemon refuses to start and names the minimum.
nofile 16
daemon_config "$PIN" "$METRICS"
timeout -k 2 10 "$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1
rc=$?
min=$(sed -n 's/.*open file limit 16 is below the minimum \([0-9]*\).*/\1/p' \
    "$DAEMON_LOG" | head -n1)
ok "$(( rc != 0 && rc != 124 && rc != 137 ? 0 : 1 ))" \
    "ulimit -n 16: the daemon refuses to start (exit $rc)"
ok "$([ -n "$min" ]; echo $?)" \
    "ulimit -n 16: it says the minimum (${min:-none}): $(grep -m1 'open file limit' "$DAEMON_LOG")"
if [ -n "$min" ] && [ "$min" -gt 16 ] && [ "$min" -le 64 ]; then
	flood "$min"
else
	ok 1 "ulimit -n 16: a minimum between 17 and 64 to run at (${min:-none})"
fi

# accept(2) fails: each worker's limit cut to what it holds open, so the
# next descriptor is over it (EMFILE).  The worker pauses its listeners,
# and its spare descriptor lets it take and close each waiting connection.
what="accept(2) fails with EMFILE"
nofile 64
daemon_start "$PIN" "$METRICS" ||
	{ echo "Bail out! $what: daemon did not start"; exit 1; }
for w in 0 1; do
	p=$(worker_pid $w)
	prlimit --pid "$p" --nofile="$(lowest_free "$p")":64
done
for wave in 1 2; do
	client 50 3
	[ $wave = 2 ] && lookup_ends 2000 "$what"
	is "$opened:$timeouts:$((eof + reset))" "50:0:50" \
	    "$what, wave $wave: 50 connections, every one closed by the daemon"
	ok "$(( eof_max_ms < 2000 ? 0 : 1 ))" \
	    "$what, wave $wave: the slowest closed in $eof_max_ms ms (< 2000: one pause)"
	release
done
no_spin "$what"
log_bounded "$what"
ok "$(grep -q 'accept failed: .*errno=EMFILE' "$DAEMON_LOG"; echo $?)" \
    "$what: logged: $(grep -m1 'accept failed' "$DAEMON_LOG")"
n=$(metric 'postsmtpsts_accept_errors_total{error="emfile"}')
ok "$([ "$n" != absent ] && [ "$n" -ge 1 ]; echo $?)" \
    "$what: counted (postsmtpsts_accept_errors_total{error=\"emfile\"} $n)"
for w in 0 1; do
	prlimit --pid "$(worker_pid $w)" --nofile=64:64
done
lookup_within 2000 "$what, the limit raised again"
daemon_stop
ok $? "$what: clean exit"
done_testing
