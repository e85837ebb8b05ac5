#!/bin/bash
# freshness.sh - a changed TXT id is noticed within minutes, not at the next
# proactive refresh (issue 13 part 1, RFC 8461 §3.1/§3.3), end to end in the
# loopback world.
#
# The catalogue case id-change (expect -: no fixed answer) is the one this
# test changes at runtime: its own signed zone is re-signed with the
# _mta-sts TXT at TTL 30 s, the daemon (4 workers) caches the enforce
# policy (mx1), then the policy file gets a second mx line and the TXT id
# changes.  While lookups keep coming from parallel postmap clients, the
# answer must be the new policy within 75 s of the change, after exactly
# one more policy fetch (single flight across workers and lookups), with
# "refresh=id-change old_id=idchange1" in the decision log and the check
# times in `postsmtpsts-cache show`.  The zone and the policy file are put
# back at the end.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap dig ldns-signzone
world_up || { echo "Bail out! world did not start"; exit 1; }

D=id-change.pstest
ZF=$WORLD_DIR/dns/$D.zone
KEY=$WORLD_DIR/cache/dnskeys/$D
WWW=$WORLD_DIR/nginx/www/id-change.txt
TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
BOUND=${FRESHNESS_BOUND:-75}
for f in "$ZF" "$ZF.signed" "$KEY.private" "$WWW"; do
	[ -r "$f" ] || { echo "Bail out! world has no $f (case id-change)"; exit 1; }
done
cp "$ZF" "$T/orig.zone"
cp "$ZF.signed" "$T/orig.signed"
cp "$WWW" "$T/orig.txt"

nsd_reload() { kill -HUP "$(cat "$WORLD_DIR/dns/nsd.pid")"; }
restore() {
	cp "$T/orig.zone" "$ZF"
	cp "$T/orig.signed" "$ZF.signed"
	cp "$T/orig.txt" "$WWW"
	nsd_reload
}
trap 'restore; _cleanup' EXIT

# zone_set ID - the zone with "_mta-sts TXT v=STSv1; id=ID;" at TTL 30,
# re-signed with the world's key for the zone, served once nsd shows it
zone_set() {
	awk -v id="$1" -v owner="_mta-sts.$D." -v serial="$(date +%s)$2" '
		BEGIN { OFS = "\t" }
		$1 == owner && $4 == "TXT" {
			print owner, 30, "IN", "TXT", "\"v=STSv1; id=" id ";\""; next }
		$3 == "SOA" { $6 = serial }
		{ print }' "$T/orig.zone" >"$ZF"
	ldns-signzone -i 20240101000000 -e "$(($(date +%Y) + 10))0101000000" \
	    -f "$ZF.signed" "$ZF" "$KEY" || return 1
	nsd_reload
	for _i in $(seq 1 50); do
		dig +short +norec +time=1 @"$WORLD_NS_ADDR" TXT "_mta-sts.$D" |
		    grep -q "id=$1;" && return 0
		sleep 0.1
	done
	return 1
}
fetches() {
	grep -c " host=mta-sts.$D method=GET uri=/.well-known/mta-sts.txt " \
	    "$WORLD_HTTPS_LOG"
}
sec() { echo "secure match=$1 servername=hostname"; }
OLD=$(sec mx1.$D)
NEW=$(sec "mx1.$D:mx2.$D")

zone_set idchange1 0
ok $? "zone re-signed: TXT id=idchange1 at TTL 30"
is "$(dig +norec @"$WORLD_NS_ADDR" TXT "_mta-sts.$D" | awk '$4 == "TXT" { print $2 }')" \
    30 "nsd serves the TXT with TTL 30"

mapfile -t lines < <(world_daemon_lines)
WORKERS=4 daemon_start "${lines[@]}" || { echo "Bail out! daemon did not start"; exit 1; }

f0=$(fetches)
got=
for _i in $(seq 1 30); do
	got=$(pq "$D" 2>&1)
	[ "$got" = "$OLD" ] && break
	sleep 0.3
done
is "$got" "$OLD" "first answer: the policy with mx1"
is "$(($(fetches) - f0))" 1 "one fetch for the first answer"

show=$("$TOOL" -d "$T/cache" show "$D")
echo "$show" | grep -q '^txt_ttl: 30 ' ; ok $? "cache show: txt_ttl 30"
echo "$show" | grep -q '^txt_checked_at: 20' ; ok $? "cache show: txt_checked_at"
echo "$show" | grep -q '^txt_next_check: 20.* (not due)$'
ok $? "cache show: txt_next_check, not due yet"

# The change: a wider policy under a new id.
printf 'version: STSv1\nmode: enforce\nmx: mx1.%s\nmx: mx2.%s\nmax_age: 86400\n' \
    "$D" "$D" >"$WWW"
f1=$(fetches)
zone_set idchange2 1
ok $? "zone re-signed: TXT id=idchange2"
t0=$(date +%s)

# Lookups keep coming: 4 parallel clients every 0.5 s.
seen=
while [ $(($(date +%s) - t0)) -le $((BOUND + 15)) ]; do
	pids=
	for _c in 1 2 3 4; do
		pq "$D" >"$T/pq.$_c" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086 # not a bare wait: the daemon is a job too
	wait $pids
	for _c in 1 2 3 4; do
		if [ "$(cat "$T/pq.$_c")" = "$NEW" ] && [ -z "$seen" ]; then
			seen=$(($(date +%s) - t0))
		elif [ "$(cat "$T/pq.$_c")" != "$NEW" ] &&
		    [ "$(cat "$T/pq.$_c")" != "$OLD" ]; then
			echo "# unexpected answer: $(cat "$T/pq.$_c")"
		fi
	done
	[ -n "$seen" ] && [ $(($(date +%s) - t0)) -ge $((seen + 5)) ] && break
	sleep 0.5
done
echo "# new policy answered ${seen:-never} s after the id change"
ok "$([ -n "$seen" ] && [ "$seen" -le "$BOUND" ]; echo $?)" \
    "new policy (mx1:mx2) answered within ${BOUND} s of the id change"
is "$(pq "$D" 2>&1)" "$NEW" "the answer stays the new policy"
is "$(($(fetches) - f1))" 1 "exactly one policy fetch for the id change (4 workers, many lookups)"
grep -q "domain=$D refresh=id-change old_id=idchange1 discovery=policy .*id=idchange2 " \
    "$DAEMON_LOG"
ok $? "decision log: refresh=id-change old_id=idchange1 id=idchange2"
n=$(grep -c "domain=$D refresh=txt-check discovery=unchanged" "$DAEMON_LOG")
echo "# same-id re-checks before the change: $n"
show=$("$TOOL" -d "$T/cache" show "$D")
echo "$show" | grep -q '^id: idchange2$'; ok $? "cache show: id idchange2"
echo "$show" | grep -q "^mx: mx2.$D\$"; ok $? "cache show: the new mx line"

daemon_stop
ok $? "daemon stopped cleanly"
done_testing
