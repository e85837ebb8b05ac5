#!/bin/sh
# static.sh - pinned policies and key handling through real Postfix
# (postmap); timed exceptions (a pin's until: lapsed and in force, -t,
# the metrics gauge, SIGHUP); every program's --help and --version; the
# README's "Is it working?" commands, run verbatim against a daemon on
# 127.0.0.1:8461
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3

# --help/-h: the usage on stdout, exit 0; --version/-V: "NAME VERSION"
for prog in postsmtpsts/postsmtpsts postsmtpsts/postsmtpsts-cache \
    postsmtpsts/postsmtpsts-check postsmtpsts-query; do
	name=$(basename "$prog")
	for opt in --help -h; do
		out=$("$top_builddir/$prog" $opt 2>"$T/help.err")
		rc=$?
		ok "$([ $rc -eq 0 ] && [ ! -s "$T/help.err" ] &&
		    echo "$out" | head -n1 | grep -q "^usage: $name "; echo $?)" \
		    "$name $opt: usage on stdout, nothing on stderr, exit 0 (exit $rc)"
	done
	for opt in --version -V; do
		out=$("$top_builddir/$prog" $opt 2>"$T/help.err")
		rc=$?
		ok "$([ $rc -eq 0 ] && [ ! -s "$T/help.err" ] &&
		    echo "$out" | grep -Eqx "$name [0-9][0-9.]*.*"; echo $?)" \
		    "$name $opt: \"$out\" on stdout, exit 0 (exit $rc)"
	done
	"$top_builddir/$prog" --no-such-option >"$T/help.out" 2>&1
	is "$?" 2 "$name --no-such-option: usage error, exit 2"
done

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

# Timed exceptions: a pin whose until has passed answers as if the section
# were absent (discovery: no network here, so NOTFOUND, as for any
# unpinned domain), one whose until is ahead answers the pin.  No waiting
# for a lapse: the moment itself is test_pins' and test_worker_answer's,
# on the fake clock.
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"
past='domain "past.example" { level = "encrypt" until = "2001-02-03" }'
future='domain "future.example" { level = "may" until = "2099-12-31T23:59:59Z" }'
daemon_start "metrics = \"inet:127.0.0.1:$MPORT\"" "$past" "$future" ||
    { echo "Bail out! daemon did not start"; exit 1; }
is "$(pq future.example)" "may" "exception in force: the pin answers"
for i in 1 2 3 4; do
	out=$(pq past.example 2>&1)
	rc=$?
	is "$rc:$out" "1:" "exception lapsed: answered as unpinned, NOTFOUND (lookup $i)"
done
n=$(grep -c 'domain=past.example pin=lapsed until=2001-02-03: ' "$DAEMON_LOG")
ok "$([ "$n" -ge 1 ] && [ "$n" -le "${WORKERS:-2}" ]; echo $?)" \
    "the lapse is logged once per worker process ($n lines for 4 lookups)"
ok "$(! grep -q 'domain=future.example pin=lapsed' "$DAEMON_LOG"; echo $?)" \
    "an exception in force is not logged as lapsed"

# -t: a warning for the lapsed one, a note for the one in force, exit 0
# (the file's lines: 10 of daemon_config, metrics, past, future)
"$DAEMON" -t -c "$CONF" >"$T/except-t.out" 2>"$T/except-t.err"
is "$?" 0 "-t: a lapsed exception is no error (exit 0)"
grep -Fqx "$CONF:12: warning: domain \"past.example\": the exception lapsed at 2001-02-04T00:00:00Z (until 2001-02-03): the pin no longer applies, MTA-STS and DANE decide; remove the section" "$T/except-t.err"
ok $? "-t warns about the lapsed exception, at its line"
grep -Fqx "$CONF:13: note: domain \"future.example\": an exception, pinned until 2099-12-31T23:59:59Z" "$T/except-t.err"
ok $? "-t notes the exception in force with its end"

# the gauge, from the metrics process's configuration
gauge() {
	$PROM fetch "$URL" "$T/except.prom" >/dev/null &&
	    echo "$($PROM get "$T/except.prom" 'postsmtpsts_pin_exceptions{state="in-force"}')" \
	    "$($PROM get "$T/except.prom" 'postsmtpsts_pin_exceptions{state="lapsed"}')"
}
is "$(gauge)" "1 1" "metrics: one exception in force, one lapsed"

# SIGHUP re-reads the ends: past.example's moved ahead is a pin again
daemon_config "metrics = \"inet:127.0.0.1:$MPORT\"" \
    'domain "past.example" { level = "encrypt" until = "2099-01-01" }' \
    "$future"
kill -HUP "$DAEMON_PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(pq past.example 2>/dev/null)" = encrypt ]'
is "$(pq past.example)" "encrypt" "SIGHUP: the exception moved ahead answers the pin again"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(gauge)" = "2 0" ]'
is "$(gauge)" "2 0" "SIGHUP: the gauge counts the new file"
daemon_stop
ok $? "SIGTERM: daemon exits 0"

# The README's "Is it working?" commands, verbatim, against a daemon on the
# quickstart's address 127.0.0.1:8461 (example.com pinned: no outside DNS
# here), with this build's programs first on PATH and Postfix's
# configuration (MAIL_CONFIG) the test's own.  The daemon and the commands
# run in a network namespace of their own (unshare -n, as root), so the
# port is free whatever else runs on this machine; without one, the
# port must be free here.
readme_cmds=$(sed -n '/^## Is it working?/,/^## [^I]/p' "$top_srcdir/README.md" |
    grep -E '^(postsmtpsts-query|postmap) ')
is "$(echo "$readme_cmds" | awk '{ print $1 }' | tr '\n' ' ')" \
    "postsmtpsts-query postmap " "README: the two \"Is it working?\" commands found"
echo "$readme_cmds" >"$T/readme.cmds"
{
	echo "user = \"\""
	echo "pid_file = \"$T/readme.pid\""
	echo "runtime_dir = \"$T\""
	echo "workers = 1"
	echo "listen \"inet:127.0.0.1:8461\" { }"
	echo "cache { path = \"$T/readme-cache\" }"
	echo 'domain "example.com" { level = "may" }'
} >"$T/readme.conf"
cat >"$T/readme.sh" <<EOF
# start the daemon, wait until it answers, run each command, stop it
ip link set lo up 2>/dev/null
"$DAEMON" -f -c "$T/readme.conf" >"$T/readme.log" 2>&1 &
pid=\$!
i=0
while [ \$i -lt 100 ]; do
	"$top_builddir/postsmtpsts-query" --timeout 1 \\
	    --socketmap inet:127.0.0.1:8461 '[ready.invalid]' >/dev/null 2>&1
	[ \$? -eq 1 ] && break
	i=\$((i + 1))
	sleep 0.1
done
while IFS= read -r cmd; do
	out=\$(PATH="$top_builddir:$top_builddir/postsmtpsts:\$PATH" \\
	    MAIL_CONFIG="$PF_DIR" sh -c "\$cmd" 2>&1)
	echo "\$?:\$out"
done <"$T/readme.cmds"
kill -TERM \$pid
wait \$pid
echo "daemon:\$?"
EOF
if unshare -n true 2>/dev/null; then
	where="own network namespace"
	unshare -n sh "$T/readme.sh" >"$T/readme.out" 2>&1
elif ! ss -Htln 'sport = :8461' 2>/dev/null |
    grep -Eq '(127\.0\.0\.1|\*|0\.0\.0\.0|\[::\]):8461'; then
	where="this machine's loopback"
	sh "$T/readme.sh" >"$T/readme.out" 2>&1
else
	where=
fi
if [ -z "$where" ]; then
	ok 0 "README commands # SKIP no network namespace and 127.0.0.1:8461 is taken"
else
	n=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		case $cmd in
		postsmtpsts-query*) want="0:reply: OK may" ;;
		*) want="0:may" ;;
		esac
		is "$(sed -n "${n}p" "$T/readme.out")" "$want" \
		    "README command $n, verbatim ($where): $cmd"
	done <"$T/readme.cmds"
	is "$(sed -n 's/^daemon://p' "$T/readme.out")" 0 "README daemon: SIGTERM, exit 0"
fi
done_testing
