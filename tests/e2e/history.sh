#!/bin/bash
# history.sh - the record of every policy seen (issue 38), end to end:
#  1. postsmtpsts-cache history on a history file and its rotated copies
#     (PATH.2.gz, PATH.1, PATH: oldest first, gzip read through zlib),
#     text and json, a line it does not understand, a domain without
#     events, history_file = none;
#  2. the real daemon in the loopback world: the first lookup of
#     enforce.pstest is a first-seen event whose sha256 is the served
#     body's; the policy host then serves mode testing under the same id
#     (a downgrade attempt): the proactive refresh (every 2 s here:
#     refresh_before = max_age - 2) refuses it, and it is recorded:
#     downgrade-refused in the file, a notice in the log, counted in
#     postsmtpsts_policy_events_total; enforce-wild.pstest's policy host
#     then moves its mx set to another provider (same id and mode:
#     accepted): mx-provider-changed, a notice, counted.  The policy
#     files are put back.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
# world_up's needs too, here: a skip must come before the first test line
need gzip sha256sum postmap nsd unbound nginx ldns-signzone postfix

# -- 1. the tool on hand-written files
H=$T/h
mkdir -p "$H"
line() {	# line TS DOMAIN EVENT [MEMBERS] - one history line
	printf '{"time":"%s","ts":%s,"domain":"%s","event":"%s","source":"fetch","old_id":null,"id":"1","sha256":null%s}\n' \
	    "$(date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2" "$3" "${4:-}"
}
line 1700000000 example.com first-seen ',"mode":"enforce","old_mx":[],"mx":["mx.example.com"]' |
    gzip >"$H/history.log.2.gz"
{
	line 1700000100 example.org first-seen
	echo 'not a history line'
	line 1700000200 example.com mode-downgraded ',"trigger":"id-change","old_mode":"enforce","mode":"none"'
} >"$H/history.log.1"
{
	line 1700000300 example.com mx-provider-changed ',"old_mx":["mx.example.com"],"mx":["*.mail.protection.outlook.com"]'
	# a line of 5000 bytes, then one cut short (no newline): both skipped
	printf '{"ts":1,"domain":"example.com","detail":"%05000d"}\n' 0
	line 1700000400 example.com first-seen | head -c 60
} >"$H/history.log"
printf 'user = ""\nruntime_dir = "%s"\ncache { path = "%s/cache" }\n' "$T" "$H" >"$T/h.conf"

"$TOOL" -c "$T/h.conf" history Example.COM. >"$T/out" 2>"$T/err"
ok $? "history exits 0 for a domain with events"
is "$(cat "$T/out")" "2023-11-14T22:13:20Z first-seen source=fetch old_id=- id=1 old_mode=- mode=enforce old_mx=- mx=mx.example.com
2023-11-14T22:16:40Z mode-downgraded source=fetch trigger=id-change old_id=- id=1 old_mode=enforce mode=none
2023-11-14T22:18:20Z mx-provider-changed source=fetch old_id=- id=1 old_mx=mx.example.com mx=*.mail.protection.outlook.com" \
    "history: the domain's events, oldest first, from .2.gz, .1 and the file"
is "$(sed 's/^postsmtpsts-cache\[[0-9]*\]/postsmtpsts-cache/' "$T/err")" "postsmtpsts-cache: warning: 3 lines of $H/history.log and its rotated copies not understood (skipped)" \
    "history: lines it does not understand (not JSON, too long, cut short) are counted on stderr"
"$TOOL" -c "$T/h.conf" history example.com json >"$T/json" 2>/dev/null
is "$(cat "$T/json")" "$( (gzip -dc "$H/history.log.2.gz"; cat "$H/history.log.1" "$H/history.log") |
    grep '"domain":"example.com","event"' | grep '}$')" "history json: the file's own lines"
"$TOOL" -c "$T/h.conf" history example.net >/dev/null 2>"$T/err"
is "$?:$(sed -n 's/^postsmtpsts-cache\[[0-9]*\]/postsmtpsts-cache/; /no events/p' "$T/err")" "1:postsmtpsts-cache: warning: example.net: no events in $H/history.log and its rotated copies" \
    "history: no events, exit 1"
"$TOOL" -d "$H/cache" history example.org >"$T/out" 2>/dev/null
is "$?:$(cat "$T/out")" "0:2023-11-14T22:15:00Z first-seen source=fetch old_id=- id=1" \
    "history -d: the file beside the cache directory"
printf 'user = ""\ncache { path = "%s/cache" history_file = none }\n' "$H" >"$T/none.conf"
"$TOOL" -c "$T/none.conf" history example.com >/dev/null 2>"$T/err"
is "$?:$(sed 's/^postsmtpsts-cache\[[0-9]*\]/postsmtpsts-cache/' "$T/err")" "1:postsmtpsts-cache: warning: no history file: cache.history_file is \"none\" in $T/none.conf" \
    "history with history_file = none"
"$TOOL" -c "$T/h.conf" history >/dev/null 2>&1
is $? 2 "history without a domain: usage"
"$TOOL" -c "$T/h.conf" history example.com xml >/dev/null 2>&1
is $? 2 "history DOMAIN xml: usage"

# -- 2. the daemon in the world
world_up || { echo "Bail out! world did not start"; exit 1; }
D=enforce.pstest
WWW=$WORLD_DIR/nginx/www/enforce.txt
D2=enforce-wild.pstest
WWW2=$WORLD_DIR/nginx/www/enforce-wild.txt
for f in "$WWW" "$WWW2"; do
	[ -r "$f" ] || { echo "Bail out! world has no $f"; exit 1; }
done
cp "$WWW" "$T/orig.txt"
cp "$WWW2" "$T/orig2.txt"
trap 'cp "$T/orig.txt" "$WWW"; cp "$T/orig2.txt" "$WWW2"; _cleanup' EXIT

mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "cache { refresh_before = 86398 refresh_interval = 1 }" ||
    { echo "Bail out! daemon did not start"; exit 1; }
HF=$T/history.log
pq_expect "$D" "secure match=mx1.$D servername=hostname" "$D: enforce"
wait_until 5 "grep -q '\"domain\":\"$D\"' '$HF' 2>/dev/null"
first=$(grep "\"domain\":\"$D\",\"event\":\"first-seen\"" "$HF")
ok "$(case $first in *'"source":"fetch","trigger":"request","old_id":null,"id":"enforce1"'*'"mode":"enforce","old_mx":[],"mx":["mx1.enforce.pstest"]'*) echo 0;; *) echo 1;; esac)" \
    "first-seen: id, mode and mx list in the file (${first:0:200})"
sum=$(sha256sum <"$WWW" | cut -d' ' -f1)
case $first in *"\"sha256\":\"$sum\""*) r=0 ;; *) r=1 ;; esac
ok $r "first-seen: sha256 is the served body's ($sum)"
grep -q "domain=$D policy_event=first-seen source=fetch trigger=request old_id=- id=enforce1 old_mode=- mode=enforce" "$DAEMON_LOG"
ok $? "first-seen: the log line (info)"

# the same id, mode testing: refused at the next proactive refresh
sed 's/^mode: enforce/mode: testing/' "$T/orig.txt" >"$WWW"
wait_until 15 "grep -q '\"domain\":\"$D\",\"event\":\"downgrade-refused\"' '$HF'"
ok $? "downgrade-refused in the history file within 15 s"
cp "$T/orig.txt" "$WWW"
ref=$(grep "\"event\":\"downgrade-refused\"" "$HF" | head -n1)
case $ref in *'"trigger":"proactive","old_id":"enforce1","id":"enforce1"'*'"old_mode":"enforce","mode":"testing"'*) r=0 ;; *) r=1 ;; esac
ok $r "downgrade-refused: old and new id and mode (${ref:0:200})"
grep -q "notice: domain=$D policy_event=downgrade-refused source=fetch trigger=proactive old_id=enforce1 id=enforce1 old_mode=enforce mode=testing" "$DAEMON_LOG"
ok $? "downgrade-refused: a notice in the log"
pq_expect "$D" "secure match=mx1.$D servername=hostname" "$D: still enforce"

# the mx set moved to another provider, same id and mode: accepted, and
# on record as the alarm it is
pq_expect "$D2" "secure match=mx1.$D2:.mail.$D2 servername=hostname" "$D2: enforce"
sed -e '/^mx: /d' -e 's/^mode: enforce/&\nmx: *.mail.protection.outlook.com/' \
    "$T/orig2.txt" >"$WWW2"
wait_until 15 "grep -q '\"domain\":\"$D2\",\"event\":\"mx-provider-changed\"' '$HF'"
ok $? "mx-provider-changed in the history file within 15 s"
cp "$T/orig2.txt" "$WWW2"
mv=$(grep "\"domain\":\"$D2\",\"event\":\"mx-provider-changed\"" "$HF" | head -n1)
case $mv in *'"old_id":"enforcewild1","id":"enforcewild1"'*'"old_mx":["mx1.enforce-wild.pstest","*.mail.enforce-wild.pstest"],"mx":["*.mail.protection.outlook.com"]'*) r=0 ;; *) r=1 ;; esac
ok $r "mx-provider-changed: the old and the new mx set (${mv:0:300})"
grep -q "notice: domain=$D2 policy_event=mx-provider-changed source=fetch trigger=proactive old_id=enforcewild1 id=enforcewild1 old_mode=enforce mode=enforce old_mx=\"mx1.enforce-wild.pstest,\*.mail.enforce-wild.pstest\" mx=\"\*.mail.protection.outlook.com\"" "$DAEMON_LOG"
ok $? "mx-provider-changed: a notice in the log"
"$TOOL" -c "$CONF" stats >"$T/stats.out" 2>&1
n=$(sed -n 's/^postsmtpsts_policy_events_total{kind="downgrade-refused"} //p' "$T/stats.out")
ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "postsmtpsts_policy_events_total{kind=\"downgrade-refused\"} ${n:-missing}"
n=$(sed -n 's/^postsmtpsts_policy_events_total{kind="mx-provider-changed"} //p' "$T/stats.out")
ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "postsmtpsts_policy_events_total{kind=\"mx-provider-changed\"} ${n:-missing}"
n=$(sed -n 's/^postsmtpsts_policy_events_total{kind="first-seen"} //p' "$T/stats.out")
is "${n:-missing}" 2 "postsmtpsts_policy_events_total{kind=\"first-seen\"}"
"$TOOL" -c "$CONF" history "$D" >"$T/out" 2>&1
is "$(cut -d' ' -f2 "$T/out" | sort -u | tr '\n' ' ')" "downgrade-refused first-seen " \
    "postsmtpsts-cache history reads what the daemon wrote"
daemon_stop
ok $? "clean exit"
done_testing
