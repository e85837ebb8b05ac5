#!/bin/sh
# badinput.sh - malformed and hostile socketmap clients; the server keeps
# serving everyone else after each.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3

IDLE_TIMEOUT=2 daemon_start \
	'domain "pinned.example" { level = "encrypt" }' ||
	{ echo "Bail out! daemon did not start"; exit 1; }
A="unix:$SOCK"

still_serving() {
	is "$(pq pinned.example)" "encrypt" "still serving after: $1"
}

# Each malformed frame gets a PERM reply, then the connection is closed.
check_perm() {
	out=$(sm "$A" send "$1")
	first=$(echo "$out" | head -n1)
	last=$(echo "$out" | tail -n1)
	case "$first" in
	PERM\ *) ok 0 "$2: PERM reply ($first)" ;;
	*) ok 1 "$2: PERM reply"; echo "#   got: $out" ;;
	esac
	is "$last" "<EOF>" "$2: connection closed after the reply"
	still_serving "$2"
}
check_perm 'x:postfix a.example,' "non-digit length"
check_perm '12postfix a.example,' "missing colon"
check_perm '16:postfix a.example;' "missing comma"
check_perm '99999999999999999999:x,' "length overflow"
check_perm '1000000:postfix ' "1 MB length prefix"
check_perm '10001:' "length one over the 10000-byte limit"
check_perm ':postfix a.example,' "empty length"

# Malformed requests inside good frames: PERM, connection stays usable.
out=$(sm "$A" send '7:nospace,22:postfix pinned.example,')
is "$out" "PERM missing space after map name
OK encrypt
<EOF>" "request without a space: PERM, next request on the same connection answered"

out=$(sm "$A" stall '30:postfix pinned' 4)
is "$out" "stalled" "half a request, then stall past the idle timeout"
still_serving "a stalled half request"

is "$(sm "$A" many 500 pinned.example)" "ok 500" "500 concurrent connections all answered"
still_serving "500 concurrent connections"

is "$(sm "$A" pipeline 10000 pinned.example)" "ok 10000" \
    "10000 pipelined requests sent before reading: all answered"

is "$(sm "$A" hangup pinned.example 2000)" "closed" \
    "client disconnects with 2000 replies pending"
still_serving "a client that disconnected mid-reply"

out=$(python3 -c 'import os,sys; sys.stdout.buffer.write(os.urandom(4096))' |
	od -An -tx1 | tr -d ' \n' | sed 's/\(..\)/\\x\1/g')
sm "$A" send "$out" >/dev/null
ok $? "random bytes: connection handled"
still_serving "random bytes"

ok "$(kill -0 "$DAEMON_PID"; echo $?)" "master still running"
daemon_stop
ok $? "clean exit"
done_testing
