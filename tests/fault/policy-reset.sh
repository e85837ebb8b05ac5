#!/bin/bash
# policy-reset.sh - the policy host resets the TCP connection mid-body:
# mta-sts.enforce.pstest is pointed (a local-data override in the
# daemon's unbound_config) at resetserver.py, a TLS server with the
# world's certificate for that name, which first serves a good policy
# (max_age 100: with refresh_before 95 the daemon refreshes it every ~5 s),
# then sends the HTTP head (the full Content-Length) and half the policy
# and an RST (SO_LINGER 0, close).  Asserted:
#   data     the good policy is fetched and cached; after refreshes that hit
#            the reset, the domain still answers with the cached policy,
#            never one taken from the half body (its mx line is cut);
#            a never-cached domain (enforce-wild.pstest, a second server
#            resetting from its first request) gets no policy: NOTFOUND
#   log      a fetch-failure line for the domain; the log < 200 KB
#   crash    the daemon and its workers are alive at the end
# About 25 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3
world_up || { echo "Bail out! world did not start"; exit 1; }

SRV_ADDR=${WORLD_NET:-127.0}.250.45
D=enforce.pstest
MODE="$T/srv.mode"
COUNTS="$T/srv.counts"
PKI="$WORLD_DIR/cache/pki/certs"
printf 'version: STSv1\nmode: enforce\nmx: mx1.%s\nmax_age: 100\n' "$D" >"$T/policy.txt"
echo good >"$MODE"
python3 "$top_srcdir/tests/fault/resetserver.py" "$SRV_ADDR" 443 \
    "$PKI/https-enforce.pem" "$PKI/https-enforce.key" "$T/policy.txt" \
    "$MODE" "$COUNTS" >"$T/srv.out" 2>&1 &
SRV=$!
# a second policy host, resetting from its first request: never cached
D2=enforce-wild.pstest
SRV2_ADDR=${WORLD_NET:-127.0}.250.46
echo reset >"$T/srv2.mode"
python3 "$top_srcdir/tests/fault/resetserver.py" "$SRV2_ADDR" 443 \
    "$PKI/https-enforce-wild.pem" "$PKI/https-enforce-wild.key" "$T/policy.txt" \
    "$T/srv2.mode" "$T/srv2.counts" >"$T/srv2.out" 2>&1 &
SRV2=$!
trap 'kill "$SRV" "$SRV2" 2>/dev/null' EXIT
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 'grep -q ready "$T/srv.out" && grep -q ready "$T/srv2.out"' ||
	{ echo "Bail out! reset server did not start"; cat "$T/srv.out"; exit 1; }

cat >"$T/unbound.conf" <<EOF
server:
	do-not-query-localhost: no
	local-data: "mta-sts.$D. 60 IN A $SRV_ADDR"
	local-data: "mta-sts.$D2. 60 IN A $SRV2_ADDR"
forward-zone:
	name: "."
	forward-addr: $WORLD_RESOLVER_ADDR
EOF
CACHE_EXTRA="refresh_before = 95 refresh_interval = 1" daemon_start \
    "dns { trust_anchor_file = \"$WORLD_TRUST_ANCHOR\" unbound_config = \"$T/unbound.conf\" }" \
    "https { ca_file = \"$WORLD_CA\" connect_timeout = 3 timeout = 4 }" \
    "request_timeout = 3" "deadline_answer = temp" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
counter() { sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" "$COUNTS" 2>/dev/null; }
GOOD="secure match=mx1.$D servername=hostname"

pq "$D" >/dev/null 2>&1
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 15 '[ "$(pq "$D" 2>&1)" = "$GOOD" ]'
is "$(pq "$D" 2>&1)" "$GOOD" "good fetch: $D cached ($(counter good) good fetches)"

echo reset >"$MODE"
log_mark
since() { tail -n +"$((LOG_MARK + 1))" "$DAEMON_LOG"; }
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 15 'since | grep -q "domain=$D refresh=proactive discovery=failure failure=fetch-error.*kept_cached=yes"'
ok $? "refresh hits the reset ($(counter reset) reset fetches): fetch-error, kept_cached=yes within 15 s"
bad=0 n=0
for _ in 1 2 3 4 5 6; do
	out=$(timeout 5 postmap -c "$PF_DIR" -q "$D" "socketmap:unix:$SOCK:postfix" 2>&1)
	n=$((n + 1))
	[ "$out" = "$GOOD" ] || { bad=$((bad + 1)); echo "# during resets: $out"; }
	sleep 0.5
done
is "$bad" 0 "during resets: $n lookups, every one the cached policy"
fails=$(since | grep -ci "$D.*\(fail\|error\|reset\)")
ok "$(( fails > 0 ? 0 : 1 ))" "log: $fails fetch-failure lines for $D"
since | grep -i "$D.*\(fail\|error\|reset\)" | head -n 2 | sed 's/^/# /'
# the reset came mid-body: the head (200) and half the policy were read
since | grep -q "https: host=mta-sts.$D .*status=200 .*bytes=$(( $(wc -c <"$T/policy.txt") / 2 )) .*reset"
ok $? "the reset came mid-body: status=200, $(( $(wc -c <"$T/policy.txt") / 2 )) of $(wc -c <"$T/policy.txt") bytes read, then 'reset by peer'"

# never cached: the first fetch meets the reset
log_mark
pq "$D2" >/dev/null 2>&1
# shellcheck disable=SC2016 # wait_until evaluates it
WAIT_STEP=0.5 wait_until 15 'since | grep -q "domain=$D2 refresh=request discovery=failure failure=fetch-error"'
ok $? "never cached: $D2's first fetch meets the reset: fetch-error"
out=$(pq "$D2" 2>&1); rc=$?
is "$rc:$out" "1:" "never cached: $D2 gets no policy (NOTFOUND), none from the half body"
lines=$(wc -l <"$DAEMON_LOG")
ok "$(( lines < 400 ? 0 : 1 ))" "log: $lines lines (< 400)"
sz=$(stat -c %s "$DAEMON_LOG")
ok "$(( sz < 200000 ? 0 : 1 ))" "log: $sz bytes (< 200 KB)"
alive=0
for p in $DAEMON_PID $(worker_pids); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
ok "$(( alive >= 3 ? 0 : 1 ))" "no crash: $alive daemon processes alive (>= 3)"
daemon_stop
ok $? "clean exit"
done_testing
