#!/bin/bash
# history.sh - the record of every policy seen (issue 38), end to end:
#  1. postsmtpsts-cache history on a history file and its rotated copies
#     (PATH.2.gz, PATH.1, PATH: oldest first, gzip read through zlib),
#     text and json, a line it does not understand, a domain without
#     events, history_file = none;
#  2. the real daemon in the loopback world: the first lookups of
#     enforce.pstest and enforce-wild.pstest are first-seen events, the
#     first's sha256 the served body's, counted in
#     postsmtpsts_policy_events_total and read back by the tool.  The
#     world's policy files are shared by every test running at once, so
#     nothing here changes them: the changes an operator is told about
#     (a refused downgrade, an mx set moved to another provider,
#     enforce -> none) are tests/scenario/history.scn's, in virtual time;
#  3. a preload list (a trusted local file, imported by the daemon's
#     child at start) names enforce-wild.pstest: its discovered policy is
#     stored over the list's entry, a preload-overridden event (the
#     list's mode and mx as old, the policy's id, mode and mx, the list
#     in the log line), counted, once.
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

mapfile -t lines < <(world_daemon_lines)
cat >"$T/list.json" <<LEOF
{"timestamp": "2026-12-01T00:00:00Z", "expires": "2099-01-01T00:00:00Z",
 "version": "0.1", "policies": {"$D2": {"mode": "enforce",
 "mxs": [".mx.example.net"]}}}
LEOF
daemon_start "${lines[@]}" "cache { refresh_before = 86398 refresh_interval = 1 }" \
    "preload { path = \"$T/preload\" list \"local\" { source = \"$T/list.json\" trusted = true } }" ||
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

# The world's domains are shared by every test running at once: this
# script changes none of them (the policy changes an operator is told
# about, a refused downgrade and an mx set moved to another provider, are
# proven by tests/scenario/history.scn, in virtual time).
wait_until 15 "grep -q 'preload: the configured lists imported' '$DAEMON_LOG'"
ok $? "the preload list naming $D2 imported at start"
pq_expect "$D2" "secure match=mx1.$D2:.mail.$D2 servername=hostname" "$D2: enforce"
wait_until 5 "grep -q '\"domain\":\"$D2\",\"event\":\"first-seen\"' '$HF'"
ok $? "first-seen of $D2 in the history file"
wait_until 5 "grep -q '\"domain\":\"$D2\",\"event\":\"preload-overridden\"' '$HF'"
po=$(grep "\"domain\":\"$D2\",\"event\":\"preload-overridden\"" "$HF")
ok "$(case $po in *'"source":"preload","trigger":"request","old_id":null,"id":"enforcewild1"'*'"old_mode":"enforce","mode":"enforce","old_mx":["*.mx.example.net"],"mx":["mx1.'"$D2"'","*.mail.'"$D2"'"]'*'"detail":"list=local timestamp=2026-12-01T00:00:00Z"'*) echo 0;; *) echo 1;; esac)" \
    "preload-overridden: the list's entry as old, the discovered policy as new, the list in detail (${po:0:300})"
is "$(grep -c "\"event\":\"preload-overridden\"" "$HF")" 1 "preload-overridden: once, for $D2 only"
grep -q "resolver\[[0-9]*\]: domain=$D2 policy_event=preload-overridden source=preload trigger=request old_id=- id=enforcewild1 old_mode=enforce mode=enforce .*detail=\"list=local timestamp=2026-12-01T00:00:00Z\"" "$DAEMON_LOG"
ok $? "preload-overridden: the log line, info (no notice: enforce overridden by enforce)"
"$TOOL" -c "$CONF" stats >"$T/stats.out" 2>&1
n=$(sed -n 's/^postsmtpsts_policy_events_total{kind="first-seen"} //p' "$T/stats.out")
is "${n:-missing}" 2 "postsmtpsts_policy_events_total{kind=\"first-seen\"}"
n=$(sed -n 's/^postsmtpsts_policy_events_total{kind="preload-overridden"} //p' "$T/stats.out")
is "${n:-missing}" 1 "postsmtpsts_policy_events_total{kind=\"preload-overridden\"}"
"$TOOL" -c "$CONF" history "$D" >"$T/out" 2>&1
is "$(cut -d' ' -f2 "$T/out" | sort -u | tr '\n' ' ')" "first-seen " \
    "postsmtpsts-cache history reads what the daemon wrote"
daemon_stop
ok $? "clean exit"
done_testing
