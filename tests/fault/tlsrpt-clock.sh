#!/bin/bash
# tlsrpt-clock.sh - the wall clock steps forward and back under a running
# postsmtpsts-tlsrpt (libfaketime: its CLOCK_REALTIME moved through a file
# it re-reads, the monotonic clock left alone, as an NTP step or
# settimeofday(2) would), while it holds a day open.  The daemon's cache
# knows tlsrpt-sts-ok.pstest (the world: an enforce policy, rua by mail and
# HTTPS); the log is a file the script writes, Postfix's lines with RFC 3339
# times of the reporter's clock; sendmail(1) is a script that records
# each report mail.  The reporter's clock starts at 21:00 UTC of a day D:
#   1. a session at D 21:00: counted into D;
#   2. a TLS line, then the clock +2 h, then its delivery line: one session
#      into D (the bug: the pending line was dropped as an hour old, the
#      session never counted);
#   3. the clock -1 h (D 22:00), a session: counted into D, no crash;
#   4. the clock +2 h (D+1 00:00): D's report made and mailed once, with
#      the three sessions; a session at D+1 00:00 into D+1;
#   5. the clock -2 h (D 22:00 again), a session of D: late (D's report is
#      made), counted nowhere else; no report made or sent again;
#   6. the clock +26 h (D+2 00:00): D+1's report made and mailed once, D's
#      not again;
#   7. a session of D+2, the clock +9 days (past keep_days): D+2's report
#      made and mailed once before the old days' state is deleted (the
#      bug: made and deleted in one step, never sent); a session of D then
#      is late (D's state deleted), not a second report of D.
# Asserted: the counters (sessions, sessions_late, reports_made,
# reports_sent), each day's report (--dry-run: its sessions), the mails
# sendmail got (one a day), the reporter alive, its log < 100 lines with
# no warning but the refused collector address.  About 25 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3
FT_LIB=
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
    /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
	[ -r "$f" ] && { FT_LIB=$f; break; }
done
[ -n "$FT_LIB" ] || skip_all "libfaketime not installed (apt-get install faketime)"
world_up || exit 1
REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
[ -x "$REPORTER" ] || skip_all "postsmtpsts-tlsrpt not built"
RLOG=$T/reporter.log
RPID=
_clock_cleanup() {
	[ -n "$RPID" ] && kill -KILL "$RPID" 2>/dev/null
	if [ "$_tap_failed" -ne 0 ] && [ -f "$RLOG" ]; then
		echo "# --- reporter log (last 30 lines) ---"
		tail -n 30 "$RLOG" | sed 's/^/# /'
	fi
	_cleanup
}
trap _clock_cleanup EXIT

DOM=tlsrpt-sts-ok.pstest
MX=mx1.tlsrpt-sts-ok.pstest
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
pq_expect "$DOM" "secure match=$MX servername=hostname" "the daemon knows $DOM (its cache)"
daemon_stop

# sendmail(1): one line a mail, its recipient and Message-ID
cat >"$T/sendmail" <<EOF
#!/bin/sh
id=\$(sed -n 's/^Message-ID: *//Ip' | head -n1)
echo "\$5 \$id" >>"$T/mails"
EOF
chmod 755 "$T/sendmail"
: >"$T/mails"
: >"$T/maillog"
RCONF=$T/reporter.conf
{
	cat "$CONF"
	tlsrpt_section "log = \"$T/maillog\"" "state_dir = \"$T/tlsrpt\"" \
	    "send_delay = 0" "sendmail = \"$T/sendmail\"" "timeout = 10"
} >"$RCONF"
"$REPORTER" -t -c "$RCONF" 2>"$T/check.out"
ok $? "postsmtpsts-tlsrpt -t: the configuration is valid $(head -n1 "$T/check.out")"

# The reporter's clock: the real one plus OFFSET seconds (the file is read
# at every clock call: FAKETIME_NO_CACHE)
now=$(date +%s)
D=$(( (now / 86400) * 86400 ))		# 00:00 UTC today
OFFSET=$(( D + 21 * 3600 - now ))	# the reporter starts at D 21:00
echo "$OFFSET" | sed 's/^[0-9]/+&/' >"$T/faketime"
# step SECONDS - the reporter's wall clock jumps
step() {
	OFFSET=$(( OFFSET + $1 ))
	echo "$OFFSET" | sed 's/^[0-9]/+&/' >"$T/faketime.new"
	mv "$T/faketime.new" "$T/faketime"
	echo "# clock ${1}s: the reporter reads $(date -u -d "@$(fnow)" '+%F %T')"
}
fnow() { echo $(( $(date +%s) + OFFSET )); }
# stamp - an RFC 3339 time of the reporter's clock (or of $AT)
stamp() { date -u -d "@${AT:-$(fnow)}" '+%Y-%m-%dT%H:%M:%S.000000+00:00'; }
day() { date -u -d "@$1" +%F; }
QN=0
tls_line() {
	echo "$(stamp) sender postfix/smtp[$1]: Verified TLS connection established to $MX[127.0.0.1]:25: TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits)" >>"$T/maillog"
}
delivery_line() {
	QN=$((QN + 1))
	echo "$(stamp) sender postfix/smtp[$1]: 4EC01A8C$(printf %03X "$QN"): to=<user@$DOM>, relay=$MX[127.0.0.1]:25, delay=0.2, delays=0.1/0/0.05/0.05, dsn=2.0.0, status=sent (250 2.0.0 Ok)" >>"$T/maillog"
}
session() { tls_line "$1"; delivery_line "$1"; }
stat() {
	"$REPORTER" -c "$RCONF" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { v = $2 } END { print v + 0 }'
}
# report_sessions DAY - the sessions in DAY's report (--dry-run)
report_sessions() {
	"$REPORTER" -c "$RCONF" --dry-run "$1" --domain "$DOM" 2>/dev/null |
	    python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    r = json.loads(line)
    for p in r.get("policies", []):
        s = p["summary"]
        n += s["total-successful-session-count"] + s["total-failure-session-count"]
print(n)'
}
mails() { grep -c . "$T/mails"; }

# (an ASan build, make check-asan: libfaketime before the ASan runtime)
LD_PRELOAD=$FT_LIB FAKETIME_TIMESTAMP_FILE=$T/faketime FAKETIME_NO_CACHE=1 \
    FAKETIME_DONT_FAKE_MONOTONIC=1 \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    "$REPORTER" -f -v -c "$RCONF" >>"$RLOG" 2>&1 &
RPID=$!
wait_until 10 'grep -qs "tlsrpt: started" "$RLOG"'
ok $? "the reporter started under libfaketime at $(date -u -d "@$(fnow)" '+%F %T')"

# 1. a session of D
session 100
wait_until 5 '[ "$(stat sessions)" = 1 ]'
is "$(stat sessions)" 1 "1. a session at D 21:00: counted"

# 2. a TLS line, the clock +2 h, its delivery line
tls_line 200
wait_until 5 '[ "$(stat lines)" = 3 ]'
step 7200
sleep 2.5		# two ticks of the reporter at D 23:00
delivery_line 200
wait_until 5 '[ "$(stat lines)" = 4 ]'
sleep 1.2
is "$(stat sessions)" 2 \
    "2. a TLS line, the clock +2 h, then its delivery line: the session counted (not dropped as an hour old)"
ok "$(grep -q 'tlsrpt: the wall clock stepped forward by 7[12][0-9][0-9] s: 1 pending' "$RLOG"; echo $?)" \
    "2. logged: $(grep -m1 'wall clock stepped' "$RLOG" | sed 's/.*tlsrpt: //')"

# 3. the clock -1 h
step -3600
session 300
wait_until 5 '[ "$(stat sessions)" = 3 ]'
is "$(stat sessions)" 3 "3. the clock -1 h (D 22:00): a session counted"
ok "$(kill -0 "$RPID" 2>/dev/null; echo $?)" "3. the reporter runs"

# 4. the clock +2 h: past midnight, D's report goes
step 7200
wait_until 10 '[ "$(mails)" -ge 1 ]'
sleep 1.5
is "$(stat reports_made):$(mails)" "1:1" "4. D+1 00:00: D's report made and mailed once: $(head -n1 "$T/mails")"
is "$(report_sessions "$(day "$D")")" 3 "4. D's report holds its 3 sessions"
session 400
wait_until 5 '[ "$(stat sessions)" = 4 ]'
is "$(stat sessions)" 4 "4. a session at D+1 00:00 counted"
is "$(report_sessions "$(day $((D + 86400)))")" 1 "4. ... into D+1"

# 5. the clock -2 h: D 22:00 again
step -7200
session 500
wait_until 5 '[ "$(stat sessions_late)" = 1 ]'
is "$(stat sessions):$(stat sessions_late)" "4:1" \
    "5. the clock -2 h (D 22:00): a session of D is late (its report made), counted nowhere else"
sleep 2
is "$(stat reports_made):$(mails)" "1:1" "5. no report made or sent again"
is "$(report_sessions "$(day "$D")")" 3 "5. D's report unchanged"

# 6. the clock +26 h: D+2 00:00
step 93600
wait_until 10 '[ "$(mails)" -ge 2 ]'
sleep 1.5
is "$(stat reports_made):$(mails)" "2:2" "6. D+2 00:00: D+1's report made and mailed once: $(sed -n 2p "$T/mails")"
is "$(cut -d' ' -f2 "$T/mails" | sort -u | wc -l)" 2 "6. two reports, two Message-IDs (none sent twice)"
is "$(stat reports_sent)" 2 "6. reports_sent 2"

# 7. a session of D+2, the clock +9 days (past keep_days = 7): D+2's
# report is made and sent before its day's state is deleted, not dropped
session 700
wait_until 5 '[ "$(stat sessions)" = 5 ]'
step $((9 * 86400))
wait_until 10 '[ "$(mails)" -ge 3 ]'
sleep 1.5
is "$(stat reports_made):$(mails)" "3:3" \
    "7. D+11: D+2's report made and mailed once, though its day is past keep_days: $(sed -n 3p "$T/mails")"
wait_until 5 'grep -q "entries older than 7 days deleted" "$RLOG"'
ok $? "7. then the old days' state deleted: $(grep 'older than' "$RLOG" | tail -n1 | sed 's/.*tlsrpt: //')"
# a session of D (11 days ago): its state is gone, it is late, not a
# second report of D
AT=$((D + 22 * 3600)) session 800
wait_until 5 '[ "$(stat sessions_late)" = 2 ]'
sleep 2
is "$(stat sessions):$(stat sessions_late):$(stat reports_made):$(mails)" "5:2:3:3" \
    "7. a session of D, past keep_days: late, no second report of D"

ok "$(kill -0 "$RPID" 2>/dev/null; echo $?)" "the reporter still runs"
n=$(wc -l <"$RLOG")
ok "$(( n < 100 ? 0 : 1 ))" "reporter log: $n lines (< 100)"
w=$(grep -c 'warning' "$RLOG")
grep 'warning' "$RLOG" | sed 's/^/# /' | head -n 5
ok "$(( w <= 6 ? 0 : 1 ))" "$w warning lines (<= 6: the collector's loopback address refused)"
kill -TERM "$RPID"
wait "$RPID"
ok $? "the reporter exits cleanly"
RPID=
done_testing
