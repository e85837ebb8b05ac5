#!/bin/bash
# tls-floor.sh - the TLS floor of issue 38 in real Postfix deliveries: a
# map's tls_protocols reaches the policy table answer Postfix reads and
# Postfix's TLS session with the MX; a wrong value is refused at load.
#
#   1. load: tls_protocols = ">=TLSv1.4", a pin's protocols = "TLSv1,2":
#      postsmtpsts -t and the daemon exit 1 with file:line: message
#   2. floor ">=TLSv1.3": postmap -q shows protocols=>=TLSv1.3 on the
#      authenticated answers (an enforce policy, a pin at secure), not on a
#      testing policy's NOTFOUND, and not on a map without a floor;
#      tls-floor.pstest, whose MX (mxservers.tsv tls12) speaks at most
#      TLSv1.2, is deferred with OpenSSL's "alert protocol version" in
#      Postfix's log and nothing delivered; deliver-ok.pstest (MX good) is
#      delivered over TLSv1.3; postsmtpsts-query -c gives the same answer
#   3. floor ">=TLSv1.2", the same cache: the deferred message goes out
#      over TLSv1.2, Verified (the log shows the version)
#   4. a pin's own protocols = ">=TLSv1.2" under the ">=TLSv1.3" floor
#      replaces it for that domain: delivered over TLSv1.2
#
# Control: the world's check --mail delivers tls-floor.pstest with the
# default answer (no floor), so the deferral in 2 is the floor's doing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap postfix swaks flock
world_up || { echo "Bail out! world did not start"; exit 1; }
# shellcheck source=../world/lib.sh
. "$top_srcdir/tests/world/lib.sh"

# The world's one sending instance, for the whole test (as deliver.sh).
exec 8>"$WORLD_DIR.sender.lock"
flock -w 120 8 || { echo "Bail out! sender instance busy for 120 s"; exit 1; }
_floor_cleanup() {
	( sender_stop ) >/dev/null 2>&1
	_cleanup
}
trap _floor_cleanup EXIT

mapfile -t lines < <(world_daemon_lines)
D=tls-floor.pstest
MX="mx1.$D"
SECURE="secure match=$MX servername=hostname"
OK_SECURE="secure match=mx1.deliver-ok.pstest servername=hostname"

# floor_conf FLOOR [EXTRA LINE...] - the test configuration: map "postfix"
# with tls_protocols = FLOOR, map "plain" without a floor
floor_conf() {
	local floor=$1
	shift
	printf '%s\n' "${lines[@]}" "map \"postfix\" {" \
	    "	tls_protocols = \"$floor\"" "}" "map \"plain\" { }" "$@"
}

# 1. A wrong value is refused at load, at its line.
mapfile -t conf < <(floor_conf ">=TLSv1.4")
daemon_config "${conf[@]}"
n=$(grep -n 'tls_protocols' "$CONF" | cut -d: -f1)
out=$("$DAEMON" -t -c "$CONF" 2>&1)
is "$?" 1 "load: postsmtpsts -t refuses tls_protocols = \">=TLSv1.4\""
printf '%s\n' "$out" | grep -qF "$CONF:$n: map \"postfix\": tls_protocols \">=TLSv1.4\" has \"TLSv1.4\", no protocol"
ok $? "load: the message is file:line: map \"postfix\": tls_protocols ... no protocol"
timeout 10 "$DAEMON" -f -c "$CONF" >"$T/refused.log" 2>&1
is "$?" 1 "load: the daemon does not start with it"
mapfile -t conf < <(floor_conf ">=TLSv1.2" "domain \"$D\" {" \
    "	level = secure" "	protocols = \"TLSv1,2\"" "}")
daemon_config "${conf[@]}"
n=$(grep -n 'TLSv1,2' "$CONF" | cut -d: -f1)
out=$("$DAEMON" -t -c "$CONF" 2>&1)
is "$?" 1 "load: postsmtpsts -t refuses a pin's protocols = \"TLSv1,2\""
printf '%s\n' "$out" | grep -qF "$CONF:$n: domain \"$D\": protocols \"TLSv1,2\" has whitespace or ','"
ok $? "load: the message is file:line: domain ...: protocols ... has whitespace or ','"

# 2. The floor above what the MX speaks.
mapfile -t conf < <(floor_conf ">=TLSv1.3" "domain \"pin.$D\" {" \
    "	level = secure" "	match = \"$MX\"" "}")
daemon_start "${conf[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
WAIT_STEP=0.5 wait_until 30 '[ "$(pq "$D" postfix inet 2>&1)" != "" ]'
is "$(pq "$D" postfix inet 2>&1)" "$SECURE protocols=>=TLSv1.3" \
    "floor >=TLSv1.3: Postfix reads it on $D's secure answer"
WAIT_STEP=0.5 wait_until 30 '[ "$(pq deliver-ok.pstest postfix inet 2>&1)" != "" ]'
is "$(pq deliver-ok.pstest postfix inet 2>&1)" "$OK_SECURE protocols=>=TLSv1.3" \
    "floor >=TLSv1.3: and on deliver-ok.pstest's"
is "$(pq "pin.$D" postfix inet 2>&1)" \
    "secure match=$MX protocols=>=TLSv1.3" "floor >=TLSv1.3: and on a pin at secure"
is "$(pq "$D" plain inet 2>&1)" "$SECURE" "a map without a floor: the answer without it"
out=$(pq testing.pstest postfix inet 2>&1)
is "$?:$out" "1:" "a testing policy: NOTFOUND, no attribute"
# postsmtpsts-query decides as the daemon does: the same floor, -c
out=$(timeout 30 "$top_builddir/postsmtpsts-query" -c "$CONF" "$D" 2>&1)
is "$(printf '%s\n' "$out" | sed -n 's/^answer: //p')" \
    "OK $SECURE protocols=>=TLSv1.3" "postsmtpsts-query -c: the same answer"

start_sender() {
	( sender_stop ) >/dev/null 2>&1
	wait_until 5 '[ -z "$(ss -Hltn src "$WORLD_SENDER_ADDR:25" 2>/dev/null)" ]'
	out=$( (sender_start "$1") 2>&1)
	rc=$?
	ok $rc "sender started with smtp_tls_policy_maps = $1"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
}
start_sender "socketmap:inet:127.0.0.1:$PORT:postfix"

before=$(world_mx_count tls12 "$D")
q1=$(sender_send "user@$D" 2>&1) || q1=
q2=$(sender_send "user@deliver-ok.pstest" 2>&1) || q2=
ok "$([ -n "$q1" ] && [ -n "$q2" ]; echo $?)" "submitted ($q1 to $D, $q2 to deliver-ok.pstest)"
is "$(sender_wait "$q1" 30)" deferred "floor >=TLSv1.3: $D (MX at most TLSv1.2) deferred"
log1=$(sender_log_qid "$q1")
printf '%s\n' "$log1" | grep -q -E 'alert protocol version|unsupported protocol'
rc=$?
ok $rc "floor >=TLSv1.3: for the TLS protocol (Postfix's log)"
[ $rc -eq 0 ] || printf '%s\n' "$log1" | sed 's/^/#   /'
sender_queue | grep -q "^${q1}[* !]"
ok $? "floor >=TLSv1.3: still in the queue"
is "$(sender_wait "$q2" 30)" sent "floor >=TLSv1.3: deliver-ok.pstest (MX good) delivered"
sender_log_grep "Verified TLS connection established to mx1\.deliver-ok\.pstest\[[0-9.]+\]:25: TLSv1\.3 " >/dev/null
ok $? "floor >=TLSv1.3: over TLSv1.3, Verified"
sleep 1	# a (wrong) late delivery would show up now
is "$(world_mx_count tls12 "$D")" "$before" "floor >=TLSv1.3: nothing reached $D's MX"
daemon_stop
ok $? "daemon stopped"

# 3. The floor at what the MX speaks: the same cache, a new floor.
mapfile -t conf < <(floor_conf ">=TLSv1.2")
daemon_start "${conf[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
is "$(pq "$D" postfix inet 2>&1)" "$SECURE protocols=>=TLSv1.2" \
    "floor >=TLSv1.2: Postfix reads it on $D's answer"
# smtp(8) keeps the policies it looked up: new processes for the new floor
sender_postfix reload >/dev/null 2>&1
sleep 1
sender_flush
is "$(sender_wait "$q1" 30 2)" sent "floor >=TLSv1.2: the deferred message is delivered"
sender_log_qid "$q1" | grep -q -E "Verified TLS connection established to $MX\[[0-9.]+\]:25: TLSv1\.2 "
ok $? "floor >=TLSv1.2: over TLSv1.2, Verified (the log names the version)"
n=$(wait_until 10 '[ "$(world_mx_count tls12 "$D")" -gt "$before" ]'; world_mx_count tls12 "$D")
is "$n" $((before + 1)) "floor >=TLSv1.2: $D's MX stored it"
daemon_stop
ok $? "daemon stopped"

# 4. A pin's own protocols replace the floor for its domain.
mapfile -t conf < <(floor_conf ">=TLSv1.3" "domain \"$D\" {" \
    "	level = secure" "	match = \"$MX\"" "	protocols = \">=TLSv1.2\"" "}")
daemon_start "${conf[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
is "$(pq "$D" postfix inet 2>&1)" "secure match=$MX protocols=>=TLSv1.2" \
    "pin: its own protocols over the map's floor >=TLSv1.3"
sender_postfix reload >/dev/null 2>&1
sleep 1
q3=$(sender_send "user@$D" 2>&1) || q3=
is "$(sender_wait "$q3" 30)" sent "pin: $D delivered under the >=TLSv1.3 floor"
sender_log_qid "$q3" | grep -q -E "Verified TLS connection established to $MX\[[0-9.]+\]:25: TLSv1\.2 "
ok $? "pin: over TLSv1.2, Verified"

( sender_stop )
ok $? "sender stopped"
daemon_stop
ok $? "clean exit"
done_testing
