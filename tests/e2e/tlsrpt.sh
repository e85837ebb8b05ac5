#!/bin/bash
# tlsrpt.sh - postsmtpsts-tlsrpt(8), the TLSRPT reporter (issue 30), end to
# end: real Postfix deliveries through the daemon's answers to the world's
# tlsrpt-* domains, the reporter following the sender's log, and the
# reports it sends by mail (sendmail(1) into the sender, which delivers
# them to the world's mailbox of tlsrpt-reports.pstest) and by HTTPS (to
# tlsrpt-collector), checked against the RFC 8460 schema and counted
# against the deliveries made:
#
#   tlsrpt-sts-ok          sts              3 successful sessions
#   tlsrpt-sts-badname     sts              2 x certificate-host-mismatch
#   tlsrpt-sts-expired     sts              1 x certificate-expired
#   tlsrpt-sts-nostarttls  sts              2 x starttls-not-supported
#   tlsrpt-dane-ok         tlsa             2 successful (TLSA records as
#                                             policy-string)
#   tlsrpt-dane-bad        tlsa             1 x certificate-not-trusted (no
#                                             TLSA record matched: what
#                                             Postfix's own event says)
#   tlsrpt-fetch-error     sts              2 x sts-policy-fetch-error
#                                             (no policy-string)
#   tlsrpt-no-policy       no-policy-found  1 successful
#   tlsrpt-hostile-rua     (counted, never sent: every rua URI refused)
#
# The collector is on loopback, which report POSTs may not reach unless
# report_allow_addresses lets it in: this configuration does; 14. runs
# without it (no connection, nothing at the collector, counted, logged).
#
# On the way: the sender's log is rotated under the running reporter
# ("postfix logrotate"), the reporter is killed (kill -9) and mail keeps
# going out while it is down, a malformed line is appended; every count
# must still be exact.  Then: the reports' own deliveries are not counted
# (no report on reports), a second send sends nothing again, and the
# counters say what happened.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap postfix swaks flock python3
python3 -c 'import jsonschema' 2>/dev/null ||
	skip_all "python3-jsonschema not installed"
world_up || { echo "Bail out! world did not start"; exit 1; }
# shellcheck source=../world/lib.sh
. "$top_srcdir/tests/world/lib.sh"
REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
SCHEMA="$top_srcdir/tests/unit/tlsrpt-report.schema.json"
RLOG=$T/reporter.log
RPID=

# The world's sending instance, for the whole test (deliver.sh's lock).
exec 8>"$WORLD_DIR.sender.lock"
flock -w 300 8 || { echo "Bail out! sender instance busy for 300 s"; exit 1; }
_tlsrpt_cleanup() {
	[ -n "$RPID" ] && kill -KILL "$RPID" 2>/dev/null
	( sender_stop ) >/dev/null 2>&1
	if [ "$_tap_failed" -ne 0 ] && [ -f "$RLOG" ]; then
		echo "# --- reporter log (last 40 lines) ---"
		tail -n 40 "$RLOG" | sed 's/^/# /'
	fi
	_cleanup
}
trap _tlsrpt_cleanup EXIT

mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }

cases="tlsrpt-sts-ok tlsrpt-sts-badname tlsrpt-sts-expired
    tlsrpt-sts-nostarttls tlsrpt-dane-ok tlsrpt-dane-bad tlsrpt-fetch-error
    tlsrpt-no-policy tlsrpt-hostile-rua"

# 1. The daemon answers as the catalogue says (and has the facts cached,
# which the reporter reads).
for c in $cases tlsrpt-reports; do
	pq_expect "$(world_case_field "$c" 2)" "$(world_case_field "$c" 3)" \
	    "$c: the daemon answers '$(world_case_field "$c" 3)'"
done

# 2. The sender, and the reporter following its log.
( sender_stop ) >/dev/null 2>&1
wait_until 5 '[ -z "$(ss -Hltn src "$WORLD_SENDER_ADDR:25" 2>/dev/null)" ]'
out=$( (sender_start "socketmap:inet:127.0.0.1:$PORT:postfix") 2>&1)
ok $? "sender started with the daemon as smtp_tls_policy_maps"
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'

RCONF=$T/reporter.conf
{
	cat "$CONF"
	cat <<-EOF
	tlsrpt {
		enable = true
		organization_name = "postsmtpsts e2e"
		contact_info = "mailto:postmaster@sender.pstest"
		submitter = "sender.pstest"
		sender = "tlsrpt-noreply@sender.pstest"
		log = "$WORLD_SENDER_LOG"
		state_dir = "$T/tlsrpt"
		send_delay = 0
		metrics_file = "$T/tlsrpt.prom"
		timeout = 30
		report_allow_addresses = { "$WORLD_COLLECTOR_ADDR/32" }
	}
	EOF
} >"$RCONF"
"$REPORTER" -t -c "$RCONF" 2>"$T/check.out"
ok $? "postsmtpsts-tlsrpt -t: the configuration is valid"

# reporter [ARG...] - run the reporter once, in the foreground; MAIL_CONFIG
# makes its sendmail(1) the world sender's
reporter() {
	MAIL_CONFIG=$WORLD_SENDER_DIR/etc "$REPORTER" -f -v -c "$RCONF" "$@" \
	    >>"$RLOG" 2>&1
}
# reporter_start [ARG...] - the reporter as a service, in the background
reporter_start() {
	MAIL_CONFIG=$WORLD_SENDER_DIR/etc "$REPORTER" -f -v -c "$RCONF" "$@" \
	    >>"$RLOG" 2>&1 &
	RPID=$!
}
# stat NAME - a counter of the reporter (postsmtpsts_tlsrpt_NAME_total)
stat() {
	"$REPORTER" -c "$RCONF" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}

reporter_start --from-start
wait_until 10 'grep -qs "tlsrpt: started" "$RLOG"'
ok $? "the reporter started, following $WORLD_SENDER_LOG"

declare -A sent
# send CASE... - one message to each case's domain, each waited for (sent
# or deferred: either way one TLS session)
send() {
	local c d q st
	for c in "$@"; do
		d=$(world_case_field "$c" 2)
		q=$(sender_send "user@$d" 2>&1) || q=
		st=$(sender_wait "$q" 30)
		sent[$c]=$(( ${sent[$c]:-0} + 1 ))
		case $st in
		sent | deferred) ;;
		*) echo "# $c: message $q: $st" ;;
		esac
	done
}

# 3. Round 1: one message to each domain, counted by the running reporter.
send $cases
wait_until 20 '[ "$(stat sessions)" = 9 ]'
is "$(stat sessions)" 9 "round 1: 9 sessions counted while the reporter runs"

# 4. The log rotated under the running reporter (Postfix's own logrotate:
# the file renamed, and gzip'd), then round 2a into the new file.
postfix -c "$WORLD_SENDER_DIR/etc" logrotate >/dev/null 2>&1
ok $? "postfix logrotate rotated the sender's log"
send tlsrpt-sts-ok tlsrpt-sts-badname tlsrpt-sts-nostarttls
wait_until 20 '[ "$(stat sessions)" = 12 ]'
is "$(stat sessions)" 12 "round 2a: 3 more sessions, read from the new log file"
[ "$(grep -c "following file $WORLD_SENDER_LOG" "$RLOG")" -ge 2 ]
ok $? "the reporter followed the rotation to the new file"

# 5. kill -9, round 2b while it is down, a malformed line, a restart: the
# sessions it missed are counted from the saved position, none twice.
kill -KILL "$RPID"
wait "$RPID" 2>/dev/null
RPID=
send tlsrpt-sts-ok tlsrpt-dane-ok tlsrpt-fetch-error
echo "$(date '+%b %d %H:%M:%S') sender sender/smtp[1]: Pinned TLS connection established to mx1.tlsrpt-sts-ok.pstest[127.0.0.1]:25: TLSv1.3" >>"$WORLD_SENDER_LOG"
reporter_start
wait_until 20 '[ "$(stat sessions)" = 15 ]'
is "$(stat sessions)" 15 "after kill -9 and a restart: 15 sessions, each once"
is "$(stat lines_malformed)" 1 "the malformed line is counted as such"
grep -q "does not parse (a newer Postfix?)" "$RLOG"
ok $? "... and logged"
kill -TERM "$RPID"
wait "$RPID"
ok $? "SIGTERM: the reporter stops cleanly"
RPID=

# 6. Today's reports, made and sent now (--send today: as if the day were
# over), one run to the end (--once).
mailbox=$(world_mx_dir good)/tlsrpt-reports.pstest
before_mail=$(world_mx_count good tlsrpt-reports.pstest)
before_https=$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)
reporter --once --send today
ok $? "postsmtpsts-tlsrpt --once --send today"
want=8	# every case but tlsrpt-hostile-rua
wait_until 60 "[ \$(world_mx_count good tlsrpt-reports.pstest) -ge $((before_mail + want)) ]"
n=$(world_mx_count good tlsrpt-reports.pstest)
is "$((n - before_mail))" "$want" "$want reports arrived by mail in the world's mailbox"
n=$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)
is "$((n - before_https))" "$want" "$want reports arrived by HTTPS at the collector"
is "$(stat reports_sent)" "$want" "the counter says $want reports sent"

# 7. Every report: RFC 8460 §5.3 mail (or POST), the schema, the counts.
# Only the reports of this run (the mailbox and the collector are the
# world's, shared): a copy of what arrived since.
mkdir -p "$T/mail/new" "$T/https"
find "$mailbox/new" -type f -newer "$RCONF" -exec cp {} "$T/mail/new/" \;
find "$WORLD_COLLECTOR_DIR" -name '*.body' -newer "$RCONF" | while read -r f; do
	cp "$f" "${f%.body}.meta" "$T/https/"
done
python3 "$top_srcdir/tests/e2e/tlsrpt_reports.py" "$SCHEMA" "$T/mail" \
    "$T/https" >"$T/reports.out" 2>&1
ok $? "every report is RFC 8460 mail or HTTPS and passes the schema"
grep FAIL "$T/reports.out" | sed 's/^/# /'
# expect VIA DOMAIN TYPE SUCCESS FAILURE PSTRING RESULTS
expect() {
	local line="$1 $2.pstest $3 $4 $5 policy-string=$6 $7"
	grep -qxF "$line" "$T/reports.out"
	ok $? "$1: $line"
	[ $? -eq 0 ] || grep " $2.pstest " "$T/reports.out" | sed 's/^/#   got: /'
}
for via in mail https; do
	expect $via tlsrpt-sts-ok sts 3 0 yes -
	expect $via tlsrpt-sts-badname sts 0 2 yes certificate-host-mismatch:2
	expect $via tlsrpt-sts-expired sts 0 1 yes certificate-expired:1
	expect $via tlsrpt-sts-nostarttls sts 0 2 yes starttls-not-supported:2
	expect $via tlsrpt-dane-ok tlsa 2 0 yes -
	expect $via tlsrpt-dane-bad tlsa 0 1 yes certificate-not-trusted:1
	expect $via tlsrpt-fetch-error sts 0 2 no sts-policy-fetch-error:2
	expect $via tlsrpt-no-policy no-policy-found 1 0 no -
done
grep -c . "$T/reports.out" >/dev/null
is "$(grep -c -e '^mail ' "$T/reports.out")" 8 "one policy per mail report, no more"
# the mail's own words
f=$(grep -l "TLS-Report-Domain: tlsrpt-sts-ok.pstest" "$T"/mail/new/* | head -n 1)
grep -q '^TLS-Required: No' "$f"
ok $? "a report mail says TLS-Required: No (RFC 8689: delivered despite TLS trouble)"
grep -qi '^Content-Type: multipart/report; report-type="tlsrpt";' "$f"
ok $? "a report mail is multipart/report; report-type=\"tlsrpt\""
grep -q 'filename="sender.pstest!tlsrpt-sts-ok.pstest![0-9]*![0-9]*.json.gz"' "$f"
ok $? "its attachment is named submitter!domain!begin!end.json.gz"

# 8. Bad rua: every URI of tlsrpt-hostile-rua refused, counted, logged.
is "$(stat rua_refused)" 5 "the 5 hostile rua URIs were refused"
is "$(stat reports_no_rua)" 1 "tlsrpt-hostile-rua: no report (no usable URI)"
grep -q "domain=tlsrpt-hostile-rua.pstest rua refused=5" "$RLOG"
ok $? "... and the refusal logged with its reason"

# 9. No report on reports: the report mails' own deliveries (in the
# sender's log now) are not sessions of any report.
wait_until 30 '[ "$(grep -c "from=<tlsrpt-noreply@sender.pstest>" "$WORLD_SENDER_LOG")" -ge 8 ]'
reporter --once
ok $? "postsmtpsts-tlsrpt --once read the report mails' deliveries"
is "$(stat sessions)" 15 "the report mails made no session"
is "$(stat sessions_late)" 0 "... none counted as a late session either"
"$REPORTER" -c "$RCONF" --dry-run today --domain tlsrpt-reports.pstest \
    >"$T/dry-reports.json" 2>&1
is "$(wc -c <"$T/dry-reports.json")" 0 "no counts for the reports' domain"

# 10. Each report once: another send sends nothing.
reporter --once --send today
sleep 2
is "$(world_mx_count good tlsrpt-reports.pstest)" "$((before_mail + want))" \
    "a second --send today mails nothing again"
is "$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)" \
    "$((before_https + want))" "... and posts nothing again"
is "$(stat reports_sent)" "$want" "reports sent: still $want"

# 11. The dry run prints the same reports, and the metrics file is there.
"$REPORTER" -c "$RCONF" --dry-run today >"$T/dry.json" 2>&1
is "$(wc -l <"$T/dry.json")" 9 "--dry-run today: a report per domain (9)"
split -l 1 "$T/dry.json" "$T/dry-"
python3 "$top_srcdir/tests/unit/tlsrpt-check.py" "$SCHEMA" "$T"/dry-a? \
    >"$T/dry.check" 2>&1
ok $? "the dry run's JSON passes the schema"
grep -q '^postsmtpsts_tlsrpt_sessions_total 15$' "$T/tlsrpt.prom"
ok $? "the metrics file has the session counter"
grep -q '^postsmtpsts_tlsrpt_reports{status="done"} 8$' "$T/tlsrpt.prom"
ok $? "... and 8 reports done"

# 12. kill -9 in the middle of batches: a log of 150000 sessions
# (synthetic lines in Postfix's words, to a domain the daemon has cached),
# a reporter of its own killed again and again while it counts (a few
# seconds of work), then left to finish: every session exactly once,
# whatever the kills hit.
N=150000
SYN=$T/synthetic.log
awk -v n=$N -v t="$(date '+%b %d %H:%M:%S')" 'BEGIN {
	for (i = 1; i <= n; i++) {
		pid = 1000 + i % 50
		printf "%s sender sender/smtp[%d]: Verified TLS connection established to mx1.tlsrpt-no-policy.pstest[127.0.0.1]:25: TLSv1.3 with cipher x\n", t, pid
		printf "%s sender sender/smtp[%d]: S%09d: to=<u@tlsrpt-no-policy.pstest>, relay=mx1.tlsrpt-no-policy.pstest[127.0.0.1]:25, delay=1, dsn=2.0.0, status=sent (250 ok)\n", t, pid, i
	}
}' >"$SYN"
sed -e "s|log = \"$WORLD_SENDER_LOG\"|log = \"$SYN\"|" \
    -e "s|state_dir = \"$T/tlsrpt\"|state_dir = \"$T/tlsrpt-kill\"|" \
    -e "/metrics_file/d" "$RCONF" >"$T/kill.conf"
kstat() {
	"$REPORTER" -c "$T/kill.conf" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}
mid=0
for i in 1 2 1 3 1 4 2 5; do
	"$REPORTER" -f -c "$T/kill.conf" --from-start >>"$T/kill.log" 2>&1 &
	kpid=$!
	sleep "0.$i"
	kill -KILL "$kpid" 2>/dev/null
	wait "$kpid" 2>/dev/null
	lines=$(kstat lines)
	[ "${lines:-0}" -lt $((2 * N)) ] && mid=$((mid + 1))
	echo "# kill -9 after 0.$i s: ${lines:-0} lines committed"
done
[ "$mid" -ge 2 ]
ok $? "$mid of the 8 kills hit the reporter in mid-count"
"$REPORTER" -f -c "$T/kill.conf" --once >>"$T/kill.log" 2>&1
ok $? "a last run counted to the end"
is "$(kstat sessions)" $N "$N sessions counted, none twice, none lost"
is "$(kstat lines)" $((2 * N)) "$((2 * N)) lines read, each once"
"$REPORTER" -c "$T/kill.conf" --dry-run today --domain tlsrpt-no-policy.pstest \
    >"$T/kill.json" 2>&1
grep -q "\"total-successful-session-count\":$N," "$T/kill.json"
ok $? "the day's report says $N"

# 13. A collector in trouble, and the rate limit: the same log counted
# into a state of its own, today's reports sent with rate_limit = 1 (one
# report an hour per destination) while the collector answers 503, and
# retry_for = 0 (what is not sent now is given up at once). The log is
# this run's whole log: the file rotated in 4. (gzip'd) and the current
# one, so that every domain has its sessions.
ALL=$T/all.log
find "$(dirname "$WORLD_SENDER_LOG")" -name "$(basename "$WORLD_SENDER_LOG").*" \
    -newer "$RCONF" -exec zcat -f {} + >"$ALL"
cat "$WORLD_SENDER_LOG" >>"$ALL"
sed -e "s|log = \"$WORLD_SENDER_LOG\"|log = \"$ALL\"|" \
    -e "s|state_dir = \"$T/tlsrpt\"|state_dir = \"$T/tlsrpt-rate\"|" \
    -e "/metrics_file/d" -e "s|send_delay = 0|send_delay = 0 rate_limit = 1 retry_for = 0|" \
    "$RCONF" >"$T/rate.conf"
rstat() {
	"$REPORTER" -c "$T/rate.conf" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}
echo 503 >"$WORLD_COLLECTOR_DIR/status"
b_mail=$(world_mx_count good tlsrpt-reports.pstest)
b_https=$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)
MAIL_CONFIG=$WORLD_SENDER_DIR/etc "$REPORTER" -f -v -c "$T/rate.conf" \
    --from-start --once --send today >>"$T/rate.log" 2>&1
rc=$?
rm -f "$WORLD_COLLECTOR_DIR/status"
ok $rc "a run with the collector at 503 and rate_limit = 1"
is "$(rstat reports_made)" 9 "9 reports made, one for each domain of the log"
is "$(rstat reports_no_rua)" 1 "... tlsrpt-hostile-rua's with nowhere to go"
is "$(rstat deliveries_rate_limited)" 14 "7 reports held back per destination by the rate limit (14)"
is "$(rstat deliveries)" 2 "one delivery per destination was tried"
is "$(rstat deliveries_failed)" 1 "... the POST failed (503)"
grep -q "report=deferred, again in 300 s: http-status: HTTP status 503" "$T/rate.log"
ok $? "the 503 was taken as temporary (the first retry in 5 minutes)"
is "$(rstat reports_sent)" 1 "one report sent (by mail), the rest given up (retry_for = 0)"
is "$(rstat reports_failed)" 7 "7 reports failed"
wait_until 30 "[ \$(world_mx_count good tlsrpt-reports.pstest) -ge $((b_mail + 1)) ]"
sleep 1
is "$(world_mx_count good tlsrpt-reports.pstest)" $((b_mail + 1)) "one more mail, no more"
is "$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)" $((b_https + 1)) \
    "one more POST (answered 503), no more"

# 14. The collector without report_allow_addresses: it is on loopback
# (not a global address), so no POST connects to it: nothing reaches it
# (no request in its log, no body), each of the 8 reports' HTTPS
# destinations is refused for good (counted and logged with the address
# and why), the reports go by mail; a second run does not try again.
sed -e "s|log = \"$WORLD_SENDER_LOG\"|log = \"$ALL\"|" \
    -e "s|state_dir = \"$T/tlsrpt\"|state_dir = \"$T/tlsrpt-private\"|" \
    -e "/metrics_file/d" -e "/report_allow_addresses/d" \
    "$RCONF" >"$T/private.conf"
pstat() {
	"$REPORTER" -c "$T/private.conf" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}
"$DAEMON" -t -v -c "$RCONF" 2>/dev/null |
    grep -qxF "	report_allow_addresses = { \"$WORLD_COLLECTOR_ADDR/32\" }"
ok $? "postsmtpsts -t -v: the allowance of the other runs, as read"
"$DAEMON" -t -v -c "$T/private.conf" 2>/dev/null |
    grep -qxF '	report_allow_addresses = {}'
ok $? "... and this run's: none (the default)"
b_mail=$(world_mx_count good tlsrpt-reports.pstest)
b_https=$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)
b_req=$(wc -l <"$WORLD_COLLECTOR_LOG")
MAIL_CONFIG=$WORLD_SENDER_DIR/etc "$REPORTER" -f -v -c "$T/private.conf" \
    --from-start --once --send today >>"$T/private.log" 2>&1
ok $? "a run without report_allow_addresses"
is "$(pstat reports_made)" 9 "9 reports made"
is "$(pstat deliveries_refused_address)" "$want" \
    "$want POSTs refused: the collector's address is not global"
is "$(pstat deliveries_failed)" "$want" "... each a failed delivery"
is "$(find "$WORLD_COLLECTOR_DIR" -name '*.body' | wc -l)" "$b_https" \
    "no report reached the collector"
is "$(wc -l <"$WORLD_COLLECTOR_LOG")" "$b_req" "... no request in its log"
n=$(grep -c "https: host=$WORLD_COLLECTOR_NAME addr=$WORLD_COLLECTOR_ADDR refused=address why=\"not global (127.0.0.0/8 loopback) and not in report_allow_addresses\"" "$T/private.log")
is "$n" "$want" "each refusal logged with the address and why, before any socket"
is "$(grep -c "report=refused: address: $WORLD_COLLECTOR_ADDR: not global" "$T/private.log")" \
    "$want" "each destination refused for good, not deferred"
! grep -q "report=deferred" "$T/private.log"
ok $? "... no retry planned"
is "$(pstat reports_sent)" "$want" "the reports went by mail"
wait_until 30 "[ \$(world_mx_count good tlsrpt-reports.pstest) -ge $((b_mail + want)) ]"
MAIL_CONFIG=$WORLD_SENDER_DIR/etc "$REPORTER" -f -v -c "$T/private.conf" \
    --once --send today >>"$T/private.log" 2>&1
is "$(pstat deliveries_refused_address)" "$want" \
    "a second run tries the refused destinations no more"
"$REPORTER" -c "$T/private.conf" --stats 2>/dev/null |
    grep -q "^postsmtpsts_tlsrpt_deliveries_refused_address_total $want\$"
ok $? "the counter is in --stats"

! grep -E "Sanitizer|runtime error|panic" "$RLOG" "$T/kill.log" "$T/rate.log" "$T/private.log" | sed 's/^/# /' | grep -q .
ok $? "no sanitizer report, no panic in the reporter's logs"

( sender_stop )
ok $? "sender stopped"
daemon_stop
ok $? "daemon: clean exit"
done_testing
