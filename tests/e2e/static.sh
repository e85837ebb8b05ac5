#!/bin/sh
# static.sh - pinned policies and key handling through real Postfix (postmap)
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3

daemon_start \
	'domain "pinned.example" { level = "secure" match = "mx1.pinned.example:.pinned.net" servername = "hostname" }' \
	'domain "may.example" { level = "may" }' \
	'domain "xn--bcher-kva.example" { level = "encrypt" }' \
	'map "postfix" { }' 'map "alt" { }' || { echo "Bail out! daemon did not start"; exit 1; }

for via in unix inet; do
	is "$(pq pinned.example postfix $via)" \
	    "secure match=mx1.pinned.example:.pinned.net servername=hostname" \
	    "static secure policy over $via"
	is "$(pq may.example postfix $via)" "may" "static may policy over $via"
done

is "$(pq PINNED.Example.)" \
    "secure match=mx1.pinned.example:.pinned.net servername=hostname" \
    "key is lower-cased and one trailing dot stripped"
is "$(pq 'bücher.example')" "encrypt" "U-label key converted to its A-label"
is "$(pq pinned.example alt)" \
    "secure match=mx1.pinned.example:.pinned.net servername=hostname" \
    "a second configured map name answers too"

for key in .pinned.example '[pinned.example]' '[pinned.example]:25' \
    pinned.example:25 '[192.0.2.1]' 192.0.2.1 '[ipv6:2001:db8::1]' \
    unknown.example 'a..b.example' localhost "$(printf 'a%.0s' $(seq 64)).example"; do
	out=$(pq "$key" 2>&1)
	rc=$?
	is "$rc:$out" "1:" "NOTFOUND for key '$key'"
done

out=$(pq pinned.example nosuchmap 2>&1)
rc=$?
ok "$([ $rc -ne 0 ] && echo "$out" | grep -q 'unknown map name'; echo $?)" \
    "unknown map name gets PERM (postmap reports: $(echo "$out" | tail -n1 | cut -c1-80))"

is "$(sm "unix:$SOCK" query pinned.example unknown.example may.example)" \
    "OK secure match=mx1.pinned.example:.pinned.net servername=hostname
NOTFOUND 
OK may" "pipelined requests answered in order, byte-exact replies"

daemon_stop
ok $? "SIGTERM: daemon exits 0"
ok "$([ ! -e "$PID_FILE" ]; echo $?)" "pid file removed at exit"
ok "$([ ! -e "$SOCK" ]; echo $?)" "unix socket removed at exit"
done_testing
