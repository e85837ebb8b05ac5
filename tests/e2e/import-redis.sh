#!/bin/bash
# import-redis.sh - postsmtpsts-cache import redis (issue 37): the password
# off the command line, URLs %-decoded, and a hostile server's replies
# refused within bounds
#
#   1. A redis-server of our own with a password holding "@", "/" and ":"
#      and an ACL user: the password %-encoded in the URL works and warns
#      that ps shows it; from REDISCLI_AUTH or --password-file (0600) it
#      works without the warning (which a URL's password, even unused,
#      still gets); a file others may read, a wrong
#      password, a user without one: exit 1.
#   2. tests/e2e/hostile_redis.py answers the import's SCAN with a 600 MB
#      bulk string, a 2e9-element array, 70000 elements, 100 nested
#      arrays, an HTTP response, half a reply, a one-byte-a-0.2-s drip, a
#      10 MB line, a reply and more, a bad length: each import ends with
#      exit 1, "reply refused: ..." (or "no whole reply within 10 s",
#      "closed the connection"), within 12 s and 64 MB of memory; a
#      valid empty reply is the control (exit 0).
#
# Needs redis-server, redis-cli and /usr/bin/time (CI installs them).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
"$TOOL" import redis x 2>&1 | grep -q 'no hiredis' &&
    skip_all "built without the fleet tier (hiredis)"
if ! command -v redis-server >/dev/null || ! command -v redis-cli \
    >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "Bail out! redis-server, redis-cli or /usr/bin/time not installed"
	exit 1
fi

C="$T/cache"
tool() { "$TOOL" -d "$C" "$@"; }
R_ADDR="${WORLD_NET:-127.0}.63.82"
R_PORT=$(( 18379 + ( $$ % 1000 ) ))
H_PORT=$(( R_PORT + 1000 ))
PW='p@ss/w:rd%x'
PW_URL='p%40ss%2Fw%3Ard%25x'
R_PID=
H_PID=
cleanup_ir() {
	[ -n "$R_PID" ] && kill "$R_PID" 2>/dev/null && wait "$R_PID" 2>/dev/null
	[ -n "$H_PID" ] && kill "$H_PID" 2>/dev/null && wait "$H_PID" 2>/dev/null
	_cleanup
}
trap cleanup_ir EXIT

# -- 1. passwords
redis-server --bind "$R_ADDR" --port "$R_PORT" --save '' --appendonly no \
    --dir "$T" --logfile "$T/redis.log" --daemonize no \
    --requirepass "$PW" &
R_PID=$!
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 'REDISCLI_AUTH="$PW" redis-cli -h "$R_ADDR" -p "$R_PORT" ping 2>/dev/null | grep -q PONG'
ok $? "redis-server with a password runs"
REDISCLI_AUTH="$PW" redis-cli -h "$R_ADDR" -p "$R_PORT" ACL SETUSER alice \
    on '>al/ce@pw' '~*' '+@all' >/dev/null
ok $? "an ACL user alice"

tool import redis "redis://:$PW_URL@$R_ADDR:$R_PORT/3" >"$T/out" 2>"$T/err"
ok $? "the password %-decoded from the URL (@ / : %)"
grep -q 'every local user can read it in ps' "$T/err"
ok $? "a password in the URL warns that ps shows it"
REDISCLI_AUTH="$PW" tool import redis "redis://$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok $? "the password from REDISCLI_AUTH"
is "$(cat "$T/err")" "" "REDISCLI_AUTH: no warning"
REDISCLI_AUTH="$PW" tool import redis "redis://:ignored@$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok "$([ $? -eq 0 ] && grep -q 'every local user can read it in ps' "$T/err"; echo $?)" \
    "REDISCLI_AUTH wins over the URL's password, which still warns"
printf '%s\n' "$PW" >"$T/pw"
chmod 600 "$T/pw"
tool --password-file "$T/pw" import redis "redis://$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok $? "the password from --password-file"
grep -q '0 entries read' "$T/out"
ok $? "an import through it reads the (empty) database"
chmod 644 "$T/pw"
tool --password-file "$T/pw" import redis "redis://$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'readable by others' "$T/err"; echo $?)" \
    "a password file others may read: exit 1"
REDISCLI_AUTH=wrong tool import redis "redis://$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'redis: AUTH: ' "$T/err"; echo $?)" \
    "a wrong password: exit 1, AUTH's error"
tool import redis "redis://$R_ADDR:$R_PORT/3" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'nothing imported' "$T/err"; echo $?)" \
    "no password: exit 1 (the server refuses SCAN)"
tool import redis "redis://alice:al%2Fce%40pw@$R_ADDR:$R_PORT/3" \
    >"$T/out" 2>"$T/err"
ok $? "an ACL user and its %-encoded password (AUTH user pass)"
REDISCLI_AUTH='al/ce@pw' tool import redis \
    "redis://alice@$R_ADDR:$R_PORT/3" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'no :PASSWORD' "$T/err"; echo $?)" \
    "redis://user@host (no colon): refused as a URL"
tool import redis "redis://:p%4@$R_ADDR:$R_PORT/3" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'bad %-escape' "$T/err"; echo $?)" \
    "a bad %-escape: exit 1"
tool --password-file "$T/pw" import sqlite /nonexistent >/dev/null 2>&1
is $? 2 "--password-file with another source: usage"

# -- 2. a hostile server
# hostile MODE - run the import against hostile_redis.py MODE: its exit
# status, then seconds and peak RSS in KB in $T/res, messages in $T/err
hostile() {
	[ -n "$H_PID" ] && kill "$H_PID" 2>/dev/null && wait "$H_PID" 2>/dev/null
	rm -f "$T/ready"
	python3 "$top_srcdir/tests/e2e/hostile_redis.py" "$R_ADDR" "$H_PORT" \
	    "$1" "$T/ready" &
	H_PID=$!
	wait_until 5 '[ -f "$T/ready" ]'
	timeout 60 /usr/bin/time -f '%e %M' -o "$T/res" "$TOOL" -d "$C" \
	    import redis "redis://$R_ADDR:$H_PORT/0" >"$T/out" 2>"$T/err"
}
# bounded MODE WHAT - exit 1, the message WHAT, under 12 s and 64 MB
bounded() {
	hostile "$1"
	rc=$?
	# the last line: time(1) may write "Command exited ..." first
	secs=99 kb=0
	read -r secs kb < <(tail -n 1 "$T/res")
	ok "$([ "$rc" -eq 1 ] && grep -q -- "$2" "$T/err" &&
	    grep -q 'nothing imported' "$T/err" &&
	    awk -v s="$secs" -v k="$kb" 'BEGIN { exit !(s < 12 && k < 65536) }'
	    echo $?)" \
	    "$1: exit 1, \"$2\" ($secs s, $kb KB): $(head -n 1 "$T/err")"
}
hostile ok
is $? 0 "the control: a valid empty SCAN reply, exit 0"
bounded bigbulk 'reply refused: a bulk string of 600000000 bytes'
bounded hugearray 'reply refused: an array of 2000000000 elements'
bounded wide 'reply refused: an array of 70000 elements'
bounded deep 'reply refused: arrays nested deeper'
bounded garbage 'reply refused: not a RESP2 reply'
bounded truncated 'closed the connection in the middle of the reply'
bounded drip 'no whole reply within 10 s'
bounded longline 'reply refused: a line of more than'
bounded extra 'bytes after it'
bounded badlen 'not a decimal number'

done_testing
