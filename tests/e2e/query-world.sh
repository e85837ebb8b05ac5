#!/usr/bin/env bash
# tests/e2e/query-world.sh - postsmtpsts-query against the loopback world
#
# For every case of tests/world/cases.tsv, run postsmtpsts-query with the
# world's trust anchor, root hints and test CA, and compare the Postfix
# answer it prints ("answer: ...") with the catalogue's expect column
# (the reply data after "OK ", NOTFOUND, or TEMP for any "TEMP reason").
# DANE cases included: the tool looks DANE up too.  Then:
#   - a pinned domain (-c with a "domain" section): the tool prints the
#     pin's answer, as the daemon answers it (same decide_input: pins.c);
#   - timed exceptions (until): one in force is shown with its end, a
#     lapsed one as lapsed while discovery answers (text and --json);
#   - --socketmap: the tool asks the running daemon, as Postfix would;
#   - --timeout bounds the whole discovery: a resolver that never answers
#     gives up after --timeout seconds.
# TAP output through tests/e2e/lib.sh (skips with skip_all when the world's
# components are missing).
#
# Environment: WORLD_DIR, WORLD_NET (see tests/world/README.md),
# QUERY_TIMEOUT (seconds for one DNS query or HTTPS fetch, default 5),
# QUERY_JOBS (cases run at once, default 4).
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

QUERY_TIMEOUT=${QUERY_TIMEOUT:-5}
QUERY_JOBS=${QUERY_JOBS:-4}
query=$top_builddir/postsmtpsts-query
cases=$top_srcdir/tests/world/cases.tsv

[ -x "$query" ] || { echo "Bail out! $query not built"; exit 99; }
need python3 postmap
world_up || { echo "Bail out! world did not start"; exit 1; }

# the data lines: no header, no comments, no blank lines, no case whose
# answer a test changes at runtime (expect -)
awk -F '\t' 'NR > 1 && !/^[[:space:]]*(#|$)/ && $3 != "-" { print $1 "\t" $2 "\t" $3 }' \
    "$cases" >"$T/cases"

# world_query ARGS... - postsmtpsts-query with the world's resolver and CA
world_query() {
	"$query" --trust-anchor "$WORLD_TRUST_ANCHOR" \
	    --root-hints "$WORLD_ROOT_HINTS" --ca-file "$WORLD_CA" \
	    --dns-timeout "$QUERY_TIMEOUT" --connect-timeout "$QUERY_TIMEOUT" \
	    --https-timeout "$QUERY_TIMEOUT" --timeout $((QUERY_TIMEOUT * 4)) \
	    "$@"
}

# run_case I NAME DOMAIN - run one query, keep its output and status
run_case() {
	world_query "$3" >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}

i=0
while IFS=$'\t' read -r name domain expect; do
	i=$((i + 1))
	run_case "$i" "$name" "$domain" &
	while (( $(jobs -rp | wc -l) >= QUERY_JOBS )); do
		wait -n
	done
done <"$T/cases"
wait

i=0
while IFS=$'\t' read -r name domain expect; do
	i=$((i + 1))
	got=$(sed -n 's/^answer: //p' "$T/$i.out")
	if [[ $expect == NOTFOUND ]]; then
		want=NOTFOUND
	elif [[ $expect == TEMP ]]; then
		want=TEMP
		[[ $got == "TEMP "* ]] && got=TEMP
	else
		want="OK $expect"
	fi
	# a NOTFOUND reached through a DNS deadline proves nothing: the world
	# (or the resolver) did not answer
	if grep -q '^detail: .*TXT: no answer before the deadline' \
	    "$T/$i.out"; then
		ok 1 "$name # DNS timed out: is the world up?"
		echo "#   domain:   $domain"
	elif [[ $got == "$want" ]]; then
		ok 0 "$name"
	else
		ok 1 "$name"
		echo "#   domain:   $domain"
		echo "#   expected: $want"
		echo "#   got:      ${got:-(no answer line)}" \
		    "(exit $(cat "$T/$i.rc"))"
		sed -n 's/^\(outcome\|detail\): /#   \1: /p' "$T/$i.out"
		sed 's/^/#   stderr: /' "$T/$i.err" | head -5
	fi
done <"$T/cases"

# --- a pinned domain: the pin's answer, from the tool and the daemon -------
# enforce.pstest publishes an enforce policy ("secure match=..."); the pin
# says dane-only, and pins win (pin > DANE > MTA-STS, decide.h).
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" \
    'domain "enforce.pstest" { level = "dane-only" }' \
    'map "postfix" { }' || { echo "Bail out! daemon did not start"; exit 1; }
world_query -c "$CONF" enforce.pstest >"$T/pin.out" 2>"$T/pin.err"
rc=$?
is "$(sed -n 's/^answer: //p' "$T/pin.out")" "OK dane-only" \
    "pinned: postsmtpsts-query -c prints the pin's answer"
is "$rc" 0 "pinned: exit 0 (a policy applies)"
grep -q '^outcome: policy' "$T/pin.out"
ok $? "pinned: the discovery still ran and found the MTA-STS policy"
world_query --json -c "$CONF" enforce.pstest >"$T/pin.json" 2>&1
is "$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["pinned"], o["answer"])' "$T/pin.json" 2>&1)" \
    "True OK dane-only" "pinned: --json says pinned, same answer"
is "$(pq enforce.pstest)" "dane-only" "pinned: the daemon answers the same"
world_query enforce.pstest >"$T/nopin.out" 2>&1
grep -q '^answer: OK secure match=' "$T/nopin.out"
ok $? "pinned: without -c the same domain gets its MTA-STS answer"

# --- timed exceptions: shown in force with their end, or lapsed -----------
# The tool's -c only (no daemon): enforce.pstest's pin ended in 2001, so
# its MTA-STS policy answers; no-txt.pstest's runs through 2099.
{
	echo 'domain "enforce.pstest" { level = "may" until = "2001-01-01" }'
	echo 'domain "no-txt.pstest" { level = "encrypt" until = "2099-12-31" }'
} >"$T/except.conf"
world_query -c "$T/except.conf" enforce.pstest >"$T/lapsed.out" 2>&1
grep -q '^answer: OK secure match=' "$T/lapsed.out"
ok $? "exception lapsed: postsmtpsts-query answers by discovery"
grep -Fqx "pin: lapsed at 2001-01-02T00:00:00Z (until 2001-01-01, $T/except.conf:1): discovery decides; remove the domain section" "$T/lapsed.out"
ok $? "exception lapsed: the report says so, with its end and line"
world_query -c "$T/except.conf" no-txt.pstest >"$T/inforce.out" 2>&1
is "$?:$(sed -n 's/^answer: //p' "$T/inforce.out")" "0:OK encrypt" \
    "exception in force: the pin's answer, exit 0"
grep -Fqx "pinned: the configuration's domain section decides, an exception until 2099-12-31 (ends 2100-01-01T00:00:00Z)" "$T/inforce.out"
ok $? "exception in force: the report shows its end"
pyget='import json,sys; o=json.load(open(sys.argv[1])); p=o["pin"]; print(o["pinned"], p["state"], p["until"], p["ends"], o["answer"])'
world_query --json -c "$T/except.conf" no-txt.pstest >"$T/inforce.json" 2>&1
is "$(python3 -c "$pyget" "$T/inforce.json" 2>&1)" \
    "True in-force 2099-12-31 2100-01-01T00:00:00Z OK encrypt" \
    "exception in force: --json pin with state, until and end"
world_query --json -c "$T/except.conf" enforce.pstest >"$T/lapsed.json" 2>&1
is "$(python3 -c "$pyget" "$T/lapsed.json" 2>&1 | cut -d' ' -f1-5)" \
    "False lapsed 2001-01-01 2001-01-02T00:00:00Z OK" \
    "exception lapsed: --json pin lapsed, not pinned"
world_query --json -c "$T/except.conf" id-32.pstest >"$T/nopin.json" 2>&1
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pin"])' "$T/nopin.json" 2>&1)" \
    "None" "unpinned: --json pin is null"

# --- --socketmap: ask the running daemon ---------------------------------
out=$("$query" --socketmap "inet:127.0.0.1:$PORT" enforce.pstest)
rc=$?
is "$rc:$out" "0:reply: OK dane-only" "--socketmap inet: the daemon's reply for a pinned domain"
out=$("$query" --socketmap "unix:$SOCK" no-txt.pstest postfix)
is "$?:$out" "1:reply: NOTFOUND " "--socketmap unix with a map name: NOTFOUND, exit 1"
out=$("$query" --socketmap "unix:$SOCK" enforce.pstest nosuchmap)
is "$?:$out" "2:reply: PERM unknown map name" "--socketmap: an unknown map gets PERM, exit 2"
daemon_stop
out=$("$query" --timeout 2 --socketmap "inet:127.0.0.1:$PORT" enforce.pstest 2>&1)
rc=$?
ok "$([ "$rc" -eq 2 ] && echo "$out" | grep -q 'Connection refused'; echo $?)" \
    "--socketmap: nobody listening is an error, exit 2 ($out)"

# --- --timeout bounds the whole discovery ------------------------------------
# A "resolver" that reads every query and never answers.
python3 - "$T/blackhole.port" <<'PYEOF' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(30)
try:
    while True:
        s.recvfrom(4096)
except socket.timeout:
    pass
PYEOF
bh_pid=$!
for _i in $(seq 1 50); do [ -s "$T/blackhole.port" ] && break; sleep 0.1; done
start=$(date +%s%N)
"$query" --trust-anchor "" --forwarder "127.0.0.1@$(cat "$T/blackhole.port")" \
    --unbound-option "do-not-query-localhost: no" --timeout 2 \
    example.com >"$T/bh.out" 2>"$T/bh.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill "$bh_pid" 2>/dev/null
wait "$bh_pid" 2>/dev/null
ok $(( ms < 3000 ? 0 : 1 )) "--timeout 2 with DNS that never answers: gave up after ${ms} ms"
is "$rc" 2 "--timeout: exit 2"
grep -q 'no answer within the --timeout' "$T/bh.err"
ok $? "--timeout: says why on stderr"

done_testing
