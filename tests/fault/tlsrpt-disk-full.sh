#!/bin/bash
# tlsrpt-disk-full.sh - the reporter's store full: postsmtpsts-tlsrpt's
# state_dir on a small tmpfs of its own, following a log file the test
# writes in Postfix's words (a Verified TLS line and its delivery line per
# session, to domains the daemon has cached):
#   A. disk free: 2 sessions to each of tlsrpt-sts-ok.pstest and 50 bulk
#      domains, counted;
#   B. the tmpfs filled to its last block, then 2 sessions to each of 150
#      more bulk domains (their counts are new keys: the store must grow)
#      and 2 more to tlsrpt-sts-ok: batches that cannot be committed;
#   C. still full: the reporter restarted with --send today (the day's
#      reports made now): no report can be made yet;
#   D. the space back: counting resumes from the committed log position,
#      the reports are made and sent, no restart.
# Asserted:
#   data     every session fed counted exactly once (the counters, and
#            --dry-run's report of every domain: 2 sessions each, 4 for
#            tlsrpt-sts-ok); tlsrpt-sts-ok's report reaches the HTTPS
#            collector and the mail hand-over once each, with its 4
#            sessions
#   log      while full, at most 6 warnings a run of the reporter (one a
#            minute per kind: the bound)
#   metric   postsmtpsts_tlsrpt_store_write_errors_total (the metrics file,
#            kept off the full disk) says commits fail; back to steady
#            once the space is back
#   memory   the reporter's VmRSS < 64 MB
#   CPU      while full, the reporter < 10 % of a core over 3 s
# About 30 s.  Needs root (mount).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3 mount umount dd
[ "$(id -u)" = 0 ] || skip_all "needs root (mount -t tmpfs)"
world_up || { echo "Bail out! world did not start"; exit 1; }
[ "${WORLD_BULK:-0}" -ge 200 ] || skip_all "needs WORLD_BULK >= 200 (has ${WORLD_BULK:-0})"

REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
TICKS=$(getconf CLK_TCK)
RLOG=$T/reporter.log
MAILLOG=$T/maillog
PROMF=$T/tlsrpt.prom
RPID=
ORG="postsmtpsts fault tlsrpt-disk-full $$"
FS=$(mktemp -d "${TMPDIR:-/tmp}/${WORLD_DIR##*/}-statefs.XXXXXX")
mount -t tmpfs -o size=1m,mode=0755 tmpfs "$FS" ||
	{ echo "Bail out! mount -t tmpfs $FS failed"; exit 1; }
_fs_cleanup() {
	[ -n "$RPID" ] && kill -KILL "$RPID" 2>/dev/null
	if [ "$_tap_failed" -ne 0 ] && [ -f "$RLOG" ]; then
		echo "# --- reporter log (last 30 lines) ---"
		tail -n 30 "$RLOG" | sed 's/^/# /'
	fi
	_cleanup
	umount "$FS" 2>/dev/null || umount -l "$FS"
	rmdir "$FS"
}
trap _fs_cleanup EXIT

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
# stat NAME - a counter of the reporter's store
stat() {
	"$REPORTER" -c "$RCONF" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$1_total" '$1 == n { print $2 }'
}
# prom NAME - a series in the metrics file the running reporter writes
prom() { awk -v n="$1" '$1 == n { print $2 }' "$PROMF" 2>/dev/null; }
# feed DOMAIN N - N sessions to DOMAIN (MX mx1.DOMAIN, or bI.mx.bulk.pstest
# for bI.bulk.pstest), Verified, delivered, appended to the log
FED=0
feed() {
	local d=$1 mx
	case $d in
	b*.bulk.pstest) mx=${d%%.*}.mx.bulk.pstest ;;
	*) mx=mx1.$d ;;
	esac
	awk -v d="$d" -v mx="$mx" -v n="$2" -v q="$FED" \
	    -v t="$(date '+%b %d %H:%M:%S')" 'BEGIN {
		for (i = 1; i <= n; i++) {
			pid = 2000 + (q + i) % 50
			printf "%s sender sender/smtp[%d]: Verified TLS connection established to %s[127.0.0.1]:25: TLSv1.3 with cipher x\n", t, pid, mx
			printf "%s sender sender/smtp[%d]: Q%09d: to=<u@%s>, relay=%s[127.0.0.1]:25, delay=1, dsn=2.0.0, status=sent (250 ok)\n", t, pid, q + i, d, mx
		}
	}' >>"$MAILLOG"
	FED=$((FED + $2))
}
# warnings - the reporter's warnings since the mark
RMARK=0
warnings() { tail -n "+$((RMARK + 1))" "$RLOG" | grep -c 'warning: '; }
reporter_start() {
	RMARK=$(wc -l <"$RLOG")
	"$REPORTER" -f -v -c "$RCONF" "$@" >>"$RLOG" 2>&1 &
	RPID=$!
	wait_until 10 "[ \$(tail -n +$((RMARK + 1)) \"\$RLOG\" | grep -c 'tlsrpt: started') -ge 1 ]"
}
reporter_stop() {
	kill -TERM "$RPID"
	wait "$RPID"
	_rc=$?
	RPID=
	return $_rc
}
# bounded WHAT - the running reporter: warnings, memory, CPU
bounded() {
	local a b n
	n=$(warnings)
	ok "$(( n <= 6 ? 0 : 1 ))" "$1: $n warnings from the reporter (<= 6)"
	ok "$(( $(rss_kb "$RPID") < 65536 ? 0 : 1 ))" \
	    "$1: the reporter's VmRSS $(rss_kb "$RPID") kB (< 65536)"
	a=$(cpu_ticks "$RPID")
	sleep 3
	b=$(cpu_ticks "$RPID")
	ok "$(( (b - a) * 10 < 3 * TICKS ? 0 : 1 ))" \
	    "$1: the reporter used $(( (b - a) * 1000 / TICKS )) ms of CPU in 3 s (< 300)"
}

# The daemon, with the policies cached that the reporter names sessions by.
mapfile -t lines < <(world_daemon_lines)
export WORKERS=2 RESOLVERS=2
daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }
is "$(pq tlsrpt-sts-ok.pstest)" "secure match=mx1.tlsrpt-sts-ok.pstest servername=hostname" \
    "the daemon has tlsrpt-sts-ok's policy"
out=$(seq 1 200 | xargs -P 4 -I{} postmap -c "$PF_DIR" -q b{}.bulk.pstest "socketmap:unix:$SOCK:postfix" 2>&1 |
    grep -c '^secure ')
is "$out" 200 "the daemon has 200 bulk policies"

# The reporter: its store on the tmpfs, its metrics file and its mail off
# it (a sendmail(1) that keeps each message: the fault is the store's, not
# the mail system's).
mkdir -p "$T/mails"
printf '#!/bin/sh\ncat >"%s/mails/mail.$$"\n' "$T" >"$T/sendmail"
chmod 755 "$T/sendmail"
: >"$MAILLOG"
: >"$RLOG"
RCONF=$T/reporter.conf
{
	cat "$CONF"
	# an organization of its own: the collector is the world's, other
	# tests' reports arrive there too
	cat <<-EOF
	tlsrpt {
		enable = true
		organization_name = "$ORG"
		contact_info = "mailto:postmaster@sender.pstest"
		submitter = "sender.pstest"
		sender = "tlsrpt-noreply@sender.pstest"
		log = "$MAILLOG"
		state_dir = "$FS/state"
		send_delay = 0
		metrics_file = "$PROMF"
		timeout = 10
		sendmail = "$T/sendmail"
		report_allow_addresses = { "$WORLD_COLLECTOR_ADDR/32" }
	}
	EOF
} >"$RCONF"
"$REPORTER" -t -c "$RCONF" 2>/dev/null
ok $? "the reporter's configuration is valid"
# ours - this test's reports at the collector, one line each: the file,
# the policy domain, its successful and failed session counts
ours() {
	find "$WORLD_COLLECTOR_DIR" -name '*.body' -newer "$RCONF" |
	    python3 -c 'import gzip, json, sys
for f in sys.stdin.read().split():
    try:
        r = json.loads(gzip.open(f).read())
    except Exception:
        continue
    if r.get("organization-name") != sys.argv[1]:
        continue
    for p in r["policies"]:
        s = p["summary"]
        print(f, p["policy"]["policy-domain"],
              s["total-successful-session-count"],
              s["total-failure-session-count"])' "$ORG"
}
collected() { ours | grep -c .; }

# A. disk free
reporter_start
feed tlsrpt-sts-ok.pstest 2
for i in $(seq 1 50); do feed "b$i.bulk.pstest" 2; done
wait_until 15 '[ "$(stat sessions)" = 102 ]'
is "$(stat sessions)" 102 "disk free: 102 sessions counted"

# B. the store's filesystem full, sessions to 150 new domains
dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null
ok "$( [ "$(df -k --output=avail "$FS" | tail -n1 | tr -d ' ')" -eq 0 ]; echo $?)" \
    "the store's filesystem is full ($(du -k "$FS/state" | cut -f1) kB of store)"
feed tlsrpt-sts-ok.pstest 2
for i in $(seq 51 200); do feed "b$i.bulk.pstest" 2; done
wait_until 10 '[ -n "$(prom postsmtpsts_tlsrpt_store_write_errors_total)" ] && [ "$(prom postsmtpsts_tlsrpt_store_write_errors_total)" -gt 0 ]'
n=$(prom postsmtpsts_tlsrpt_store_write_errors_total)
ok "$([ -n "$n" ] && [ "$n" -gt 0 ]; echo $?)" \
    "disk full: commits fail, counted (postsmtpsts_tlsrpt_store_write_errors_total ${n:-absent})"
s=$(stat sessions)
ok "$(( s < FED ? 0 : 1 ))" "disk full: $s of $FED sessions committed so far"
bounded "disk full, counting"
ok "$(kill -0 "$RPID"; echo $?)" "disk full: the reporter runs"
reporter_stop
echo "# stopped on the full disk: exit $_rc"

# C. still full: the day's reports asked for now
reporter_start --send today
sleep 3
is "$(collected):$(find "$T/mails" -type f | wc -l)" "0:0" \
    "disk full, --send today: no report made or sent yet"
bounded "disk full, sending"

# D. the space back: no restart
rm -f "$FS/filler"
wait_until 20 '[ "$(stat sessions)" = "$FED" ]'
is "$(stat sessions)" "$FED" "disk back: every session fed counted ($FED)"
wait_until 30 '[ "$(collected)" -ge 1 ] && [ "$(find "$T/mails" -type f | wc -l)" -ge 1 ]'
sleep 2
is "$(collected)" 1 "disk back: tlsrpt-sts-ok's report POSTed once"
is "$(find "$T/mails" -type f | wc -l)" 1 "disk back: ... and mailed once"
is "$(ours | cut -d' ' -f2-)" "tlsrpt-sts-ok.pstest 4 0" \
    "disk back: the report counts tlsrpt-sts-ok's 4 sessions"
"$REPORTER" -c "$RCONF" --dry-run today >"$T/dry.json" 2>/dev/null
got=$(python3 -c 'import json, sys
n = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    for p in r["policies"]:
        d = p["policy"]["policy-domain"]
        n[d] = n.get(d, 0) + p["summary"]["total-successful-session-count"] + p["summary"]["total-failure-session-count"]
bad = [d for d in n if n[d] != (4 if d == "tlsrpt-sts-ok.pstest" else 2)]
print(len(n), sum(n.values()), " ".join(sorted(bad)[:5]))' "$T/dry.json" 2>&1)
is "$got" "201 $FED " "disk back: 201 domains' reports, $FED sessions, each domain's exactly"
n=$(prom postsmtpsts_tlsrpt_store_write_errors_total)
sleep 2
is "$(prom postsmtpsts_tlsrpt_store_write_errors_total)" "$n" \
    "disk back: no commit fails any more (postsmtpsts_tlsrpt_store_write_errors_total $n)"
reporter_stop
ok $? "disk back: the reporter stops cleanly"
daemon_stop
ok $? "the daemon: clean exit"
done_testing
