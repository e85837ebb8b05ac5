#!/bin/bash
# dane.sh - DANE (RFC 7672) in the daemon, end to end in the loopback world:
#
#  - the map options, each setting against the catalogue's DANE cases:
#    dane_some = dane | dane-only | ignore, dane_lookup_failure = temp |
#    ignore, dane = no (two maps of one daemon, answers side by side);
#  - the DANE facts are cached as "dane:<domain>" entries of kind dane,
#    living by the DNS TTL (the world's 60 s) and due for a proactive
#    refresh at 3/4 of it (the refresh itself, in virtual time:
#    tests/scenario/dane.scn);
#  - the resolver logs one line per DANE lookup;
#  - TLSA records none of which is usable (RFC 7672 2.2): encrypt when every
#    MX host has them, dane when only some do or another host failed
#    (never dane-only: nothing would be left), secure with an enforce
#    policy; cached as tls-required / tls-some, counted in the metrics.
# Deliveries through the daemon's DANE answers are in deliver.sh.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap
world_up || { echo "Bail out! world did not start"; exit 1; }

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
C="$T/cache"
mkdir -p "$C"
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" \
    "cache { path = \"$C\" refresh_interval = 1 }" \
    'map postfix { }' \
    'map only { dane_some = dane-only }' \
    'map ignore { dane_some = ignore dane_lookup_failure = ignore }' \
    'map nodane { dane = no }' ||
	{ echo "Bail out! daemon did not start"; exit 1; }

# answer DOMAIN MAP - the reply as "OK value", NOTFOUND or TEMP
answer() {
	local out rc
	out=$(pq "$1" "$2" 2>&1)
	rc=$?
	case $rc:$out in
	0:*) echo "OK $out" ;;
	1:) echo NOTFOUND ;;
	1:*"temporary error"*) echo TEMP ;;
	*) echo "ERROR $rc $out" ;;
	esac
}

# dane-sts-tlsa-timeout: mx3's TLSA lookup goes to a name server that never
# answers, so its discovery lasts the DNS timeout (10 s): ask now, in the
# background (the worker answers at the request deadline meanwhile), and
# look at the outcome after the table below.
TO=dane-sts-tlsa-timeout.pstest
stst="OK secure match=mx1.$TO servername=hostname"
t0=$(date +%s)
answer "$TO" postfix >"$T/timeout-first" &
first_pid=$!

sts="OK secure match=mx1.dane-sts.pstest servername=hostname"
sts3="OK secure match=mx1.dane-sts-bogus-mx3.pstest servername=hostname"
stsf="OK secure match=mx1.dane-sts-tlsa-fail.pstest servername=hostname"
stsp="OK secure match=mx1.dane-pkix-sts.pstest servername=hostname"
# domain            postfix (defaults)   only            ignore        nodane
while IFS='|' read -r d def only ign nod; do
	# first lookups may meet the deadline while DANE is looked up: ask
	# until the resolver has answered (the entry is cached then)
	WAIT_STEP=0.5 wait_until 2.5 '[ "$(answer "$d" postfix)" = "$def" ]'
	is "$(answer "$d" postfix)" "$def" "$d: defaults -> $def"
	is "$(answer "$d" only)" "$only" "$d: dane_some = dane-only -> $only"
	is "$(answer "$d" ignore)" "$ign" \
	    "$d: dane_some = ignore, dane_lookup_failure = ignore -> $ign"
	is "$(answer "$d" nodane)" "$nod" "$d: dane = no -> $nod"
done <<EOT
dane-ok.pstest|OK dane-only|OK dane-only|OK dane-only|NOTFOUND
dane-some.pstest|OK dane|OK dane-only|NOTFOUND|NOTFOUND
dane-bogus.pstest|TEMP|TEMP|NOTFOUND|NOTFOUND
dane-servfail.pstest|TEMP|TEMP|NOTFOUND|NOTFOUND
dane-insecure.pstest|NOTFOUND|NOTFOUND|NOTFOUND|NOTFOUND
dane-pkix.pstest|OK encrypt|OK encrypt|OK encrypt|NOTFOUND
dane-pkix-ee.pstest|OK encrypt|OK encrypt|OK encrypt|NOTFOUND
dane-malformed.pstest|OK encrypt|OK encrypt|OK encrypt|NOTFOUND
dane-tls-some.pstest|OK dane|OK dane|NOTFOUND|NOTFOUND
dane-tls-fail.pstest|OK dane|OK dane|NOTFOUND|NOTFOUND
dane-pkix-sts.pstest|$stsp|$stsp|$stsp|$stsp
dane-sts.pstest|OK dane-only|OK dane-only|OK dane-only|$sts
dane-bogus-addr.pstest|OK dane-only|OK dane-only|OK dane-only|NOTFOUND
dane-sts-bogus-mx3.pstest|$sts3|$sts3|$sts3|$sts3
dane-sts-tlsa-fail.pstest|$stsf|$stsf|$stsf|$stsf
EOT

# The TLSA timeout (RFC 7672 2.2: the host is unusable, not the domain):
# while the lookup is pending the worker gives the deadline answer (the
# default deadline_answer, NOTFOUND: never TEMP); the discovered answer is
# MTA-STS's secure match=, in about the DNS timeout.
wait "$first_pid"
first=$(cat "$T/timeout-first")
ok "$(case $first in NOTFOUND | "$stst") echo 0 ;; *) echo 1 ;; esac)" \
    "dane-sts-tlsa-timeout: the first lookup gets the deadline answer or the final one, not TEMP ($first)"
WAIT_STEP=0.5 wait_until 30 '[ "$(answer "$TO" postfix)" = "$stst" ]'
is "$(answer "$TO" postfix)" "$stst" "dane-sts-tlsa-timeout: secure match= once the TLSA lookup timed out"
is "$(answer "$TO" only)" "$stst" "dane-sts-tlsa-timeout: the same with dane_some = dane-only"
is "$(answer "$TO" nodane)" "$stst" "dane-sts-tlsa-timeout: the same without DANE"
el=$(($(date +%s) - t0))
ok "$([ "$el" -le 30 ]; echo $?)" "dane-sts-tlsa-timeout: final answer within 30 s ($el s)"
grep -q "domain=$TO dane_host=mx3.$TO state=failure .*failed=timeout/TLSA " "$DAEMON_LOG"
ok $? "dane-sts-tlsa-timeout: mx3's TLSA timeout is logged, the host left to Postfix"
grep -q "domain=$TO refresh=request dane=none " "$DAEMON_LOG"
ok $? "dane-sts-tlsa-timeout: DANE state none over the hosts that resolved"
grep -q ' from ' "$WORLD_BLACKHOLE_LOG"
ok $? "dane-sts-tlsa-timeout: the query reached dns-blackhole"

# One MX host's DNS trouble is not the domain's (RFC 7672 2.2): the host is
# left to Postfix, the resolver logs why, the metrics count the failure by
# class and record type.
grep -q 'domain=dane-bogus-addr.pstest dane_host=mx-bad.dnssec-bogus-expired.pstest state=failure .*failed=bogus/A why="address records DNSSEC bogus: host left to Postfix"' "$DAEMON_LOG"
ok $? "dane-bogus-addr: the bogus host is logged as left to Postfix"
grep -q 'domain=dane-sts-tlsa-fail.pstest dane_host=mx3.dane-sts-tlsa-fail.pstest state=failure .*failed=bogus/TLSA ' "$DAEMON_LOG"
ok $? "dane-sts-tlsa-fail: the host whose TLSA lookup failed is logged"
"$TOOL" -c "$CONF" stats >"$T/metrics.txt" 2>&1
n_a=$(sed -n 's/^postsmtpsts_dane_dns_failures_total{class="bogus",type="a"} //p' "$T/metrics.txt")
n_tlsa=$(sed -n 's/^postsmtpsts_dane_dns_failures_total{class="bogus",type="tlsa"} //p' "$T/metrics.txt")
n_mx=$(sed -n 's/^postsmtpsts_dane_dns_failures_total{class="bogus",type="mx"} //p' "$T/metrics.txt")
ok "$([ "${n_a:-0}" -ge 2 ] && [ "${n_tlsa:-0}" -ge 2 ] && [ "${n_mx:-0}" -ge 1 ]; echo $?)" \
    "metrics: DANE DNS failures by class and type (bogus: a=${n_a:-} tlsa=${n_tlsa:-} mx=${n_mx:-})"

# TLSA first (dane.c): a signed MX host without TLSA records is decided by
# the denial alone (its NSEC record shows addresses and no CNAME), through
# libunbound's real answer packet; a CNAME'd MX host is not, and gets the
# TLSA records of the expanded name.
grep -q 'domain=dane-sts-bogus-mx3.pstest dane_host=mx1.dane-sts-bogus-mx3.pstest state=none .*why="no TLSA records (the MX name.s NSEC/NSEC3 record shows addresses and no CNAME: addresses not looked up)"' "$DAEMON_LOG"
ok $? "dane-sts-bogus-mx3: mx1 (signed, no TLSA) decided by the TLSA denial, A not asked"
is "$(answer dane-cname.pstest postfix)" "OK dane-only" \
    "dane-cname: dane-only, the TLSA records at the CNAME-expanded name"
grep -q 'domain=dane-cname.pstest dane_host=mx1.dane-cname.pstest state=all ' "$DAEMON_LOG"
ok $? "dane-cname: the CNAME'd MX host is asked on, DANE at the expanded name"

# The cache: one dane entry per domain, beside its MTA-STS entry.
"$TOOL" -d "$C" show dane:dane-ok.pstest >"$T/show" 2>&1
ok $? "postsmtpsts-cache show dane:dane-ok.pstest"
grep -q '^kind: dane$' "$T/show" && grep -q '^dane: all$' "$T/show" &&
    grep -q '^dnssec: secure$' "$T/show"
ok $? "dane-ok: cached as kind dane, state all, MX DNSSEC secure"
"$TOOL" -d "$C" show dane:dane-some.pstest | grep -q '^dane: some$'
ok $? "dane-some: cached state some"
"$TOOL" -d "$C" show dane:dane-bogus.pstest | grep -q '^dane: failure$'
ok $? "dane-bogus: cached state failure"
"$TOOL" -d "$C" show dane:dane-pkix-ee.pstest | grep -q '^dane: tls-required$'
ok $? "dane-pkix-ee: cached state tls-required"
"$TOOL" -d "$C" show dane:dane-tls-some.pstest | grep -q '^dane: tls-some$'
ok $? "dane-tls-some: cached state tls-some"
"$TOOL" -d "$C" show dane:dane-tls-fail.pstest | grep -q '^dane: tls-some$'
ok $? "dane-tls-fail: cached state tls-some (a failed host: not tls-required)"
grep -q 'domain=dane-malformed.pstest dane_host=mx1.dane-malformed.pstest state=tls-required .*why="TLSA records, none usable' "$DAEMON_LOG"
ok $? "dane-malformed: the host with a malformed digest logged as tls-required"
n_enc=$(sed -n 's/^postsmtpsts_dane_lookups_total{outcome="encrypt"} //p' "$T/metrics.txt")
ok "$([ "${n_enc:-0}" -ge 3 ]; echo $?)" \
    "metrics: DANE lookups with outcome encrypt (${n_enc:-})"
"$TOOL" -d "$C" show dane-sts.pstest | grep -q '^kind: sts$'
ok $? "dane-sts: its MTA-STS policy is cached too (a separate entry)"
# lifetime = the world's TTL (60 s, dane.c's lower clamp)
life=$("$TOOL" -d "$C" show dane:dane-ok.pstest | python3 -c '
import sys, datetime
f = {}
for l in sys.stdin:
    k, _, v = l.partition(": ")
    f[k] = v.split(" (")[0].strip()
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
print(int(t(f["expires_at"]) - t(f["fetched_at"])), int(t(f["next_refresh"]) - t(f["fetched_at"])))')
is "$life" "60 45" "dane-ok: expires after the TTL (60 s), refreshed at 3/4 of it"

# The resolver's log line for each DANE lookup.
grep -q 'domain=dane-ok.pstest refresh=request dane=all mx_dnssec=secure mx_hosts=1 dane_hosts=1' "$DAEMON_LOG"
ok $? "resolver logged the DANE lookup of dane-ok.pstest"
grep -q 'domain=dane-some.pstest refresh=request dane=some .*mx_hosts=2 dane_hosts=1' "$DAEMON_LOG"
ok $? "resolver logged dane-some.pstest: 2 MX hosts, 1 with DANE"

# Proactive refresh (due at 3/4 of the TTL, none for a domain without
# DANE, a failed refresh kept and retried) is proven in virtual time by
# tests/scenario/dane.scn; the wait for it here (up to 70 s, twice a CI
# run) is gone.  The lifetime above shows the daemon computes the times.

daemon_stop
ok $? "clean exit"
done_testing
