#!/bin/bash
# tlsrpt-fleet.sh - postsmtpsts-tlsrpt(8) on three hosts of one fleet (issue
# 39): each reporter its own state and its own datagram socket (Postfix's
# libtlsrpt format, written by python as tlsrpt-dgram.sh does), one real
# redis-server for all three; the reports go to the world's HTTPS
# collector (rua https:) and to a sendmail(1) that keeps each mail in a
# file (rua mailto:, the world's _smtp._tls records name both).
#
#   1. counting: every host's part of a domain's day reaches the fleet
#      (one hash field per host), and a repeated push changes nothing
#   2. Redis killed -9 and restarted empty mid-day, sessions counted while
#      it is down: every host's part is back, the later sessions in it
#   3. a host killed -9 in the middle of a flood of datagrams (its batches
#      and its pushes), then restarted: the fleet holds exactly what its
#      store committed
#   4. the day closed (--send today) with the collector holding every
#      answer: one host elected per domain; that host killed -9 in the
#      middle of its POST; another host takes over and sends the report
#      again with the same report-id (RFC 8460 5.3), the mail once; every
#      report's counts equal the sum of the three hosts' own counts (each
#      host's --dry-run) and pass the RFC 8460 schema fixture
#   5. Redis down all day (fleet_deadline = 0): each host sends its own
#      part, under a report-id of its own, with its own counts; a
#      read-only edge reports alone
#   6. a Sentinel-managed pair: the master killed -9 mid-day, the
#      replica promoted: the parts follow, one report, exact sums
# shellcheck disable=SC2016,SC2034 # wait_until evaluates its conditions
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need python3
[ "$(id -u)" = 0 ] || skip_all "not root (the datagrams' trusted user)"
python3 -c 'import jsonschema' 2>/dev/null ||
	skip_all "python3-jsonschema not installed"
getent group nogroup >/dev/null || skip_all "no group nogroup"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null
then
	echo "Bail out! redis-server/redis-cli not installed (contrib/install-deps.sh --test)"
	exit 1
fi
world_up || { echo "Bail out! world did not start"; exit 1; }
REPORTER="$top_builddir/postsmtpsts/postsmtpsts-tlsrpt"
SCHEMA="$top_srcdir/tests/unit/tlsrpt-report.schema.json"
CHECK="$top_srcdir/tests/unit/tlsrpt-check.py"

# Redis on an address of its own under WORLD_NET (fleet.sh has .63.79,
# the fault scripts .63.80-.82)
R_ADDR="${WORLD_NET:-127.0}.63.84"
R_PORT=$(( 17379 + ( $$ % 1000 ) ))
R_PID=
PREFIX="trf$$:"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/key"
echo "pw-$$-secret" >"$T/pw"
chmod 600 "$T/key" "$T/pw"
D1=tlsrpt-sts-ok.pstest
D2=tlsrpt-no-policy.pstest
DAY=$(date -u +%Y-%m-%d)
DAYN=$(date -u +%Y%m%d)
COLL=$WORLD_COLLECTOR_DIR
declare -A RPID

redis_start() {
	cat >"$T/redis.conf" <<-RC
	bind $R_ADDR
	port $R_PORT
	save ""
	appendonly no
	dir $T
	logfile $T/redis.log
	user default off
	user fleet on >$(cat "$T/pw") ~* &* +@all
	RC
	redis-server "$T/redis.conf" --daemonize no &
	R_PID=$!
	for _i in $(seq 1 100); do
		rc ping 2>/dev/null | grep -q PONG && return 0
		sleep 0.05
	done
	return 1
}
rc() { redis-cli -h "$R_ADDR" -p "$R_PORT" --user fleet --pass "$(cat "$T/pw")" \
    --no-auth-warning "$@"; }
redis_kill() { kill -KILL "$R_PID" 2>/dev/null; wait "$R_PID" 2>/dev/null; R_PID=; }

SOCKDIR=$(mktemp -d /tmp/tlsrpt-fleet.XXXXXX)
chgrp nogroup "$SOCKDIR"
chmod 2750 "$SOCKDIR"
_fleet_cleanup() {
	local h
	for h in "${!RPID[@]}"; do
		[ -n "${RPID[$h]}" ] && kill -KILL "${RPID[$h]}" 2>/dev/null
	done
	[ -n "$R_PID" ] && redis_kill
	rm -f "$COLL/delay"
	rm -rf "$SOCKDIR"
	if [ "$_tap_failed" -ne 0 ]; then
		for h in "$T"/h*.log; do
			[ -f "$h" ] || continue
			echo "# --- $h (last 25 lines) ---"
			tail -n 25 "$h" | sed 's/^/# /'
		done
	fi
	_cleanup
}
trap _fleet_cleanup EXIT

# the mail of a mailto: report: kept, one file each
cat >"$T/sendmail" <<EOF
#!/bin/sh
f=\$(mktemp "$T/mail/m.XXXXXX")
cat >"\$f"
EOF
chmod 755 "$T/sendmail"
mkdir -p "$T/mail"

# the datagram writer: send.py SOCKET DOMAIN OK FAILED - OK successful and
# FAILED certificate-host-mismatch sessions of an STS policy, one
# datagram each (libtlsrpt's format)
cat >"$T/send.py" <<'EOF'
import json, socket, sys
path, d, ok, bad = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
def dr(fail):
    p = {"policy-type": 2, "policy-domain": d,
         "policy-string": ["version: STSv1", "mode: enforce",
                           "mx: mx1." + d, "max_age: 86400"],
         "mx-host": ["mx1." + d], "t": 1 if fail else 0,
         "f": 1 if fail else 0}
    if fail:
        p["failure-details"] = [{"c": 202, "n": "mx1." + d,
            "r": "127.0.25.1", "f": "num=62"}]
    return json.dumps({"dpv": "1", "d": d, "pr": "v=TLSRPTv1;",
                       "policies": [p]}).encode()
for i in range(ok):
    s.sendto(dr(False), path)
for i in range(bad):
    s.sendto(dr(True), path)
print("sent")
EOF

mapfile -t wlines < <(world_daemon_lines)
# the reports are this run's by their organization: other tests' reporters
# post to the same world collector meanwhile (make check runs two at once)
ORG="postsmtpsts e2e tlsrpt-fleet $$"
# ours [FILE] - the collector's report bodies of this run (newer than FILE)
ours() {
	find "$COLL" -name '*.body' ${1:+-newer "$1"} |
	    python3 -c 'import gzip, json, sys
for f in sys.stdin.read().split():
    try:
        r = json.loads(gzip.decompress(open(f, "rb").read()))
    except Exception:
        continue
    if r.get("organization-name") == sys.argv[1]:
        print(f)' "$ORG"
}
# conf HOST SERVERS DEADLINE PREFIX - a reporter's configuration (SERVERS:
# the fleet's servers, or its sentinels and master name)
conf() {
	{
		printf '%s\n' "${wlines[@]}"
		echo "cache { path = \"$T/no-cache\" }"
		echo "fleet { $2 key_file = \"$T/key\" prefix = \"$4\" timeout = 0.5 lease = 5 }"
		tlsrpt_section 'input = "socket"' "socket = \"$SOCKDIR/$1.sock\"" \
		    'socket_group = "nogroup"' 'trusted_users = { "root" }' \
		    'log = ""' "state_dir = \"$T/$1-$4\"" 'send_delay = 0' \
		    'timeout = 5' "host_id = \"$1\"" "sendmail = \"$T/sendmail\"" \
		    "sending_mta_ip = \"${WORLD_NET:-127.0}.26.${1#h}\"" \
		    "fleet_deadline = $3" \
		    "report_allow_addresses = { \"$WORLD_COLLECTOR_ADDR/32\" }" |
		    sed "s/organization_name = \"postsmtpsts e2e\"/organization_name = \"$ORG\"/"
	} >"$T/$1.conf"
}
# start HOST [ARG...] - a reporter in the background
start() {
	local h=$1
	shift
	"$REPORTER" -f -vv -c "$T/$h.conf" "$@" >>"$T/$h.log" 2>&1 &
	RPID[$h]=$!
}
stop() {	# HOST: SIGTERM, wait
	kill -TERM "${RPID[$1]}" 2>/dev/null
	wait "${RPID[$1]}" 2>/dev/null
	RPID[$1]=
}
counter() {	# HOST NAME - 0 when not there
	"$REPORTER" -c "$T/$1.conf" --stats 2>/dev/null |
	    awk -v n="postsmtpsts_tlsrpt_$2_total" '$1 == n { v = $2 }
	    END { print v + 0 }'
}
# fleet_parts DOMAIN - how many hosts' parts the fleet holds for today
fleet_parts() { rc HLEN "${PREFIX}tlsrpt:p:$DAY:$1"; }
# local_sum DOMAIN - "ok failed" of the hosts' own counts, summed
local_sum() {
	local h
	for h in h1 h2 h3; do
		"$REPORTER" -c "$T/$h.conf" --dry-run today --domain "$1" 2>/dev/null
	done | python3 -c '
import json, sys
ok = bad = 0
for line in sys.stdin:
    for p in json.loads(line)["policies"]:
        ok += p["summary"]["total-successful-session-count"]
        bad += p["summary"]["total-failure-session-count"]
print(ok, bad)'
}

redis_start || { echo "Bail out! redis-server did not start"; exit 1; }
AUTH="user = fleet password_file = \"$T/pw\""
for h in h1 h2 h3; do
	conf "$h" "$AUTH servers = { \"$R_ADDR:$R_PORT\" }" 21600 "$PREFIX"
	"$REPORTER" -t -c "$T/$h.conf" 2>"$T/check.out"
	ok $? "$h: the configuration is valid (fleet, input socket)"
	start "$h"
done
for h in h1 h2 h3; do
	wait_until 10 "grep -qs 'counting into the fleet as host $h' '$T/$h.log' &&
	    [ -S '$SOCKDIR/$h.sock' ]"
	ok $? "$h counts into the fleet, on its socket"
done

# 1. counting
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D1" 3 2 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h2.sock" "$D1" 5 1 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h3.sock" "$D1" 7 3 >/dev/null
wait_until 15 '[ "$(fleet_parts $D1)" = 3 ]'
is "$(fleet_parts $D1)" 3 "1. $D1: a part from each of the three hosts in the fleet"
is "$(rc HGET "${PREFIX}tlsrpt:f:$DAY:$D1" h1)" "" "... none final while the day is open"
ttl=$(rc TTL "${PREFIX}tlsrpt:p:$DAY:$D1")
[ "${ttl:-0}" -gt 86400 ]
ok $? "... the parts expire, past the retry window (TTL $ttl s)"
seq1=$(rc HGET "${PREFIX}tlsrpt:q:$DAY:$D1" h1)
[ -n "$seq1" ] && [ "$seq1" -gt 0 ]
ok $? "... h1's part under its batch number ($seq1)"
# a push repeated (the same batch number): not applied twice
script='if redis.call("EXISTS", KEYS[4]) == 1 then return -1 end local cur = tonumber(redis.call("HGET", KEYS[2], ARGV[1]) or "0") if cur >= tonumber(ARGV[2]) then return 0 end return 1'
is "$(rc EVAL "$script" 4 "${PREFIX}tlsrpt:p:$DAY:$D1" "${PREFIX}tlsrpt:q:$DAY:$D1" x "${PREFIX}tlsrpt:s:$DAY:$D1" h1 "$seq1")" 0 \
    "... the same batch again is refused by its number"

# 2. Redis killed and restarted empty mid-day; sessions counted meanwhile
redis_kill
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D1" 2 0 >/dev/null
wait_until 10 '[ "$(counter h1 sessions)" = 7 ]'
is "$(counter h1 sessions)" 7 "2. Redis down: h1 counts locally (7 sessions)"
redis_start || { echo "Bail out! redis-server did not restart"; exit 1; }
wait_until 20 '[ "$(fleet_parts $D1)" = 3 ]'
is "$(fleet_parts $D1)" 3 "... restarted empty: every host's part is back"
[ "$(rc HGET "${PREFIX}tlsrpt:q:$DAY:$D1" h1)" -gt "$seq1" ]
ok $? "... h1's under a later batch (with the sessions counted while Redis was down)"

# 3. a host killed -9 in the middle of a flood (batches and pushes)
python3 "$T/send.py" "$SOCKDIR/h2.sock" "$D2" 3000 0 >/dev/null 2>&1 &
fpid=$!
wait_until 20 '[ "$(counter h2 datagrams)" -gt 1000 ]'
kill -KILL "${RPID[h2]}"
wait "${RPID[h2]}" 2>/dev/null
ok 0 "3. h2 killed -9 after $(counter h2 datagrams) datagrams of a flood"
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
start h2
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D2" 10 0 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h3.sock" "$D2" 20 0 >/dev/null
wait_until 20 '[ "$(fleet_parts $D2)" = 3 ]'
is "$(fleet_parts $D2)" 3 "... restarted: $D2 has all three parts"

# a value no reporter wrote (a cache record's version 2, unsigned):
# refused when the report is made, never parsed
printf '\002\000junk' | rc -x HSET "${PREFIX}tlsrpt:p:$DAY:$D2" h9 >/dev/null

# 4. the day closed, one sender; the sender killed -9 in its POST
for h in h1 h2 h3; do stop "$h"; done
want1=$(local_sum $D1)
want2=$(local_sum $D2)
is "$want1" "17 6" "$D1: the hosts' own counts add up to 17 successful, 6 failed"
echo "# $D2: the hosts' own counts: $want2"
before=$(ours | wc -l)
echo 60 >"$COLL/delay"
for h in h1 h2 h3; do start "$h" --send today; done
wait_until 90 '[ "$(ours | wc -l)" -gt "$before" ]'
ok $? "4. the day closed: a report POSTed (and held by the collector)"
f=$(ours "$T/h1.conf" | head -n 1)
dom=$(python3 -c 'import gzip,json,sys; print(json.loads(gzip.decompress(open(sys.argv[1],"rb").read()))["policies"][0]["policy"]["policy-domain"])' "$f")
holder=$(rc GET "${PREFIX}tlsrpt:l:$DAY:$dom")
case $holder in
h1 | h2 | h3) ok 0 "... $dom's sender elected: $holder" ;;
*) ok 1 "... $dom's sender elected: '$holder'" ;;
esac
kill -KILL "${RPID[$holder]}" 2>/dev/null
wait "${RPID[$holder]}" 2>/dev/null
RPID[$holder]=
rm -f "$COLL/delay"
ok 0 "... $holder killed -9 in the middle of the POST"
# settled: on each living host both reports ended (sent by it, or done
# by the fleet)
settled() {
	local h n=0
	for h in h1 h2 h3; do
		[ "$h" = "$holder" ] && continue
		n=$(( n + $(counter $h reports_sent) + $(counter $h reports_fleet_other) + $(counter $h reports_failed) ))
	done
	[ "$n" -ge 4 ]
}
wait_until 180 settled
ok $? "... both reports done on the living hosts"
for h in h1 h2 h3; do
	[ "$h" = "$holder" ] || stop "$h"
done
# the reports that came, by domain and report-id
ours "$T/h1.conf" >"$T/bodies"
python3 - "$T/bodies" >"$T/got" <<-'EOF'
import gzip, json, sys
for path in open(sys.argv[1]).read().split():
    r = json.loads(gzip.decompress(open(path, "rb").read()))
    for p in r["policies"]:
        ips = sorted({d.get("sending-mta-ip", "-") for d in p.get("failure-details", [])})
        print(p["policy"]["policy-domain"], r["report-id"],
              p["summary"]["total-successful-session-count"],
              p["summary"]["total-failure-session-count"], ",".join(ips) or "-")
EOF
sed 's/^/# got: /' "$T/got"
ids1=$(awk -v d=$D1 '$1 == d { print $2 }' "$T/got" | sort -u)
is "$ids1" "$DAYN.$D1@sender.pstest" "$D1: every copy at the collector has the one fleet report-id"
is "$(awk -v d=$D1 '$1 == d { print $3, $4 }' "$T/got" | sort -u)" "$want1" \
    "... its counts are the sum of the three hosts' ($want1)"
is "$(awk -v d=$D2 '$1 == d { print $2 }' "$T/got" | sort -u)" "$DAYN.$D2@sender.pstest" \
    "$D2: one fleet report-id"
is "$(awk -v d=$D2 '$1 == d { print $3, $4 }' "$T/got" | sort -u)" "$want2" \
    "... its counts are the sum of the three hosts' ($want2)"
n=$(awk -v d="$dom" '$1 == d' "$T/got" | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 2 ]
ok $? "$dom: $n POST(s) (the one cut by the kill, sent again by the host that took over)"
grep -q "fleet=takeover from=$holder" "$T"/h*.log
ok $? "... the takeover from $holder logged"
ips=$(awk -v d=$D1 '$1 == d { print $5 }' "$T/got" | sort -u)
W=${WORLD_NET:-127.0}
is "$ips" "$W.26.1,$W.26.2,$W.26.3" "$D1: the failure rows keep each host's sending-mta-ip"
for d in $D1 $D2; do
	is "$(grep -l "^Message-ID: <tlsrpt\.$DAYN\.0\.$d@sender.pstest>" "$T"/mail/m.* 2>/dev/null | wc -l)" 1 \
	    "$d: one report by mail"
done
mapfile -t bodies <"$T/bodies"
python3 "$CHECK" "$SCHEMA" "${bodies[@]}" >"$T/schema.out" 2>&1
ok $? "the reports pass the RFC 8460 schema fixture"
sed 's/^/# /' "$T/schema.out"
st=$(rc --raw GET "${PREFIX}tlsrpt:s:$DAY:$D1" | wc -c)
[ "$st" -gt 0 ]
ok $? "the delivery state is in the fleet ($st bytes)"
# the operator's view: the fleet's day in --stats
line=$("$REPORTER" -c "$T/h2.conf" --stats 2>&1 | grep "^# fleet day=$DAY domain=$D1 ")
echo "# $line"
echo "$line" | grep -Eq "sender=h[123] state=sent hosts=h1:7,h2:6,h3:10 final=3/3\$"
ok $? "--stats: $D1's day in the fleet: sent, each host's sessions, all final"
sum() {	# NAME - a counter summed over the three hosts
	echo $(( $(counter h1 "$1") + $(counter h2 "$1") + $(counter h3 "$1") ))
}
[ "$(sum fleet_elections_won)" -ge 3 ] && [ "$(sum fleet_takeovers)" -ge 1 ] &&
    [ "$(sum fleet_pushes)" -ge 6 ]
ok $? "metrics: elections $(sum fleet_elections_won) won / $(sum fleet_elections_lost) lost, $(sum fleet_takeovers) takeover(s), $(sum fleet_pushes) pushes"
[ "$(sum fleet_refused)" -ge 1 ] &&
    grep -q "fleet value p/$DAY/$D2/h9 refused: bad-version" "$T"/h*.log
ok $? "the planted value of another version: refused ($(sum fleet_refused)), logged, not counted"
# a restart of the killed host: the report is done, nothing sent again
b2=$(wc -l <"$T/bodies")
start "$holder" --once
wait "${RPID[$holder]}"
ok $? "$holder restarted (--once): exits 0"
RPID[$holder]=
is "$(ours "$T/h1.conf" | wc -l)" "$b2" "... and sends nothing again"

# 5. Redis down all day: each host its own part, under its own report-id
P5="down$$:"
for h in h1 h2 h3; do
	conf "$h" "$AUTH servers = { \"$R_ADDR:$((R_PORT + 1))\" }" 0 "$P5"
	start "$h"
done
sleep 2
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D1" 1 0 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h2.sock" "$D1" 2 0 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h3.sock" "$D1" 3 0 >/dev/null
wait_until 10 '[ "$(counter h3 sessions)" = 3 ]'
for h in h1 h2 h3; do stop "$h"; done
touch "$T/mark5"
sleep 1
for h in h1 h2 h3; do start "$h" --send today; done
wait_until 60 '[ "$(ours "$T/mark5" | wc -l)" -ge 3 ]'
ours "$T/mark5" >"$T/bodies5"
python3 - "$T/bodies5" <<-'EOF' | sort >"$T/got5"
import gzip, json, sys
for path in open(sys.argv[1]).read().split():
    r = json.loads(gzip.decompress(open(path, "rb").read()))
    print(r["report-id"], r["policies"][0]["summary"]["total-successful-session-count"])
EOF
is "$(tr '\n' ' ' <"$T/got5")" "$DAYN.$D1.h1@sender.pstest 1 $DAYN.$D1.h2@sender.pstest 2 $DAYN.$D1.h3@sender.pstest 3 " \
    "5. Redis down all day: each host sent its own part, its own report-id"
grep -q "fleet=unreachable: past fleet_deadline" "$T/h1.log"
ok $? "... logged"
is "$(counter h2 fleet_own_reports)" 1 "... and counted"
for h in h1 h2 h3; do stop "$h"; done

# 5b. a read-only edge: counts and reports only its own (its own
# report-id), never writes to the fleet
conf h4 "$AUTH servers = { \"$R_ADDR:$R_PORT\" } mode = \"read-only\"" 21600 "$PREFIX"
start h4
wait_until 10 "grep -qs 'fleet read-only: this host counts and reports its own' '$T/h4.log' &&
    [ -S '$SOCKDIR/h4.sock' ]"
ok $? "5b. a read-only edge starts: it reports alone"
python3 "$T/send.py" "$SOCKDIR/h4.sock" "$D1" 4 0 >/dev/null
wait_until 10 '[ "$(counter h4 sessions)" = 4 ]'
stop h4
touch "$T/mark5b"
sleep 1
start h4 --send today
wait_until 60 '[ -n "$(ours "$T/mark5b")" ]'
sleep 2
ours "$T/mark5b" >"$T/bodies5b"
python3 - "$T/bodies5b" >"$T/got5b" <<-'PY'
import gzip, json, sys
for path in open(sys.argv[1]).read().split():
    r = json.loads(gzip.decompress(open(path, "rb").read()))
    print(r["report-id"], r["policies"][0]["summary"]["total-successful-session-count"])
PY
is "$(cat "$T/got5b")" "$DAYN.$D1.h4@sender.pstest 4" \
    "... its own report, its own report-id, its own 4 sessions"
is "$(rc HEXISTS "${PREFIX}tlsrpt:p:$DAY:$D1" h4)" 0 "... nothing of it in the fleet"
stop h4

# 6. a Sentinel-managed pair: the master killed -9 mid-day, the replica
# promoted; the fleet follows the sentinel, the totals stay exact
S_ADDR="${WORLD_NET:-127.0}.63.85"
M_PORT=$(( 18379 + ( $$ % 1000 ) ))
P_PORT=$((M_PORT + 1))
S_PORT=$((M_PORT + 2))
SPIDS=()
sserver() {	# NAME PORT [ARGS...]
	local name=$1 port=$2
	shift 2
	mkdir -p "$T/$name"
	redis-server --bind "$S_ADDR" --port "$port" --save "" \
	    --appendonly no --dir "$T/$name" --logfile "$T/$name.log" \
	    --daemonize no "$@" &
	SPIDS+=($!)
}
src() { local p=$1; shift; redis-cli -h "$S_ADDR" -p "$p" "$@"; }
sserver master "$M_PORT"
WAIT_STEP=0.05 wait_until 5 'src $M_PORT ping 2>/dev/null | grep -q PONG'
sserver replica "$P_PORT" --replicaof "$S_ADDR" "$M_PORT" \
    --replica-announce-ip "$S_ADDR"
printf 'port %s\nbind %s\ndir %s\nsentinel monitor m %s %s 1\nsentinel down-after-milliseconds m 300\nsentinel failover-timeout m 2000\n' \
    "$S_PORT" "$S_ADDR" "$T" "$S_ADDR" "$M_PORT" >"$T/sentinel.conf"
redis-server "$T/sentinel.conf" --sentinel --logfile "$T/sentinel.log" --daemonize no &
SPIDS+=($!)
trap 'for p in "${SPIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; _fleet_cleanup' EXIT
WAIT_STEP=0.2 wait_until 15 'src $S_PORT sentinel replicas m 2>/dev/null | grep -q "$P_PORT"'
ok $? "6. a master, its replica, a sentinel that knows both"
P6="sent$$:"
for h in h1 h2 h3; do
	conf "$h" "sentinels = { \"$S_ADDR:$S_PORT\" } master_name = \"m\"" 21600 "$P6"
	start "$h"
done
wait_until 10 "grep -qs 'counting into the fleet as host h3' '$T/h3.log'"
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D1" 4 1 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h2.sock" "$D1" 2 0 >/dev/null
python3 "$T/send.py" "$SOCKDIR/h3.sock" "$D1" 1 1 >/dev/null
wait_until 20 '[ "$(src $M_PORT HLEN "${P6}tlsrpt:p:$DAY:$D1")" = 3 ]'
is "$(src $M_PORT HLEN "${P6}tlsrpt:p:$DAY:$D1")" 3 \
    "... the three parts on the master, found through the sentinel"
kill -KILL "${SPIDS[0]}"
python3 "$T/send.py" "$SOCKDIR/h1.sock" "$D1" 1 0 >/dev/null
WAIT_STEP=0.2 wait_until 15 'src $P_PORT info replication | grep -q "role:master"'
ok $? "... the master killed -9: the sentinel promoted the replica"
wait_until 30 '[ "$(src $P_PORT HLEN "${P6}tlsrpt:p:$DAY:$D1")" = 3 ] &&
    [ "$(counter h1 sessions)" = 6 ] && [ "$(counter h1 fleet_pushes)" -ge 2 ]'
ok $? "... the parts on the promoted replica, h1's later sessions pushed there"
for h in h1 h2 h3; do stop "$h"; done
want6=$(local_sum $D1)
is "$want6" "8 2" "... the hosts' own counts: 8 successful, 2 failed"
touch "$T/mark6"
sleep 1
for h in h1 h2 h3; do start "$h" --send today; done
wait_until 90 '[ -n "$(ours "$T/mark6")" ]'
sleep 5
ours "$T/mark6" >"$T/bodies6"
python3 - "$T/bodies6" >"$T/got6" <<-'PY'
import gzip, json, sys
for path in open(sys.argv[1]).read().split():
    r = json.loads(gzip.decompress(open(path, "rb").read()))
    p = r["policies"][0]
    print(r["report-id"], p["summary"]["total-successful-session-count"],
          p["summary"]["total-failure-session-count"])
PY
is "$(cat "$T/got6")" "$DAYN.$D1@sender.pstest $want6" \
    "... after the failover: one report, the sum of the three hosts' counts"
for h in h1 h2 h3; do stop "$h"; done
! grep -q 'ERROR: AddressSanitizer\|runtime error:' "$T"/h*.log
ok $? "no sanitizer report"
done_testing
