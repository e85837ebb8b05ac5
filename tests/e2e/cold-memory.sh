#!/bin/bash
# cold-memory.sh - the resolver's memory follows concurrency, not the number
# of cold lookups, and no connection to a policy host outlives its fetch
#
# A daemon with the cache disabled makes every lookup a cold discovery
# (DNSSEC-validated DNS, DANE, a policy fetch over HTTPS with certificate
# verification) of the world's good domains, trusting what a real
# deployment trusts: the system store (here with the world's CA added, as
# https.ca_file), so a trust store parsed per fetch would show.  bench/sm-load asks COLD1
# lookups at 32 connections, then COLD2 more; every reply must be the
# domain's expected answer.  Then:
#   - the resolver's RSS after COLD1 + COLD2 lookups is within 10 % of its
#     RSS after COLD1, and at most 32 MiB (issue 14: the trust store was
#     parsed for every fetch and ~100 idle TLS connections kept it alive:
#     hundreds of MiB);
#   - once the lookups are answered, the resolver holds no TCP connection
#     to port 443 (a policy host is contacted once per refresh);
#   - the lookups really were cold (discoveries logged).
# RSS says nothing under AddressSanitizer (its quarantine keeps freed
# memory): the whole test is skipped there.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap ss
SM_LOAD=$top_builddir/bench/sm-load
[ -x "$SM_LOAD" ] || skip_all "bench/sm-load is not built"
ldd "$DAEMON" 2>/dev/null | grep -q libasan &&
	skip_all "RSS is meaningless under AddressSanitizer"
world_up || { echo "Bail out! world did not start"; exit 1; }

COLD1=${COLD1:-500}
COLD2=${COLD2:-1500}
CONNS=32

# the world's good MTA-STS and DANE domains served by nginx, and their
# expected answers; none whose policy fetches cache.sh counts in the shared
# world's HTTPS log (tests may run at the same time)
CACHE_SH_COUNTS='^(enforce|enforce-wild|ctype-charset|txt-split|http-404)\.pstest$'
awk -F '\t' -v skip="$CACHE_SH_COUNTS" 'NR > 1 &&
	$3 ~ /^(secure |dane-only)/ && $8 == "A" && $2 !~ skip {
	print $2 "\t" $3 }' "$WORLD_CASES" >"$T/cases"
cut -f1 "$T/cases" >"$T/keys"
ok "$([ "$(wc -l <"$T/keys")" -ge 10 ]; echo $?)" \
	"the world has at least 10 good domains to look up ($(wc -l <"$T/keys"))"

[ -r /etc/ssl/certs/ca-certificates.crt ] ||
	skip_all "no system trust store (ca-certificates)"
cat /etc/ssl/certs/ca-certificates.crt "$WORLD_CA" >"$T/ca-bundle.pem"
mapfile -t lines < <(REQUEST_TIMEOUT=30 world_daemon_lines |
	sed "s|ca_file = \"$WORLD_CA\"|ca_file = \"$T/ca-bundle.pem\"|")
grep -q "ca_file = \"$T/ca-bundle.pem\"" <(printf '%s\n' "${lines[@]}") ||
	{ echo "Bail out! could not point https.ca_file at the bundle"; exit 1; }
# one resolver: the test follows one process's RSS over all the lookups
RESOLVERS=1 daemon_start "${lines[@]}" "cache { enabled = false }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
P_RES=$(sed -n 's/.*debug: resolver [0-9]* started, pid \([0-9]*\).*/\1/p' \
	"$DAEMON_LOG" | tail -n1)
[ -n "$P_RES" ] || { echo "Bail out! no resolver pid in the log"; exit 1; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# cold_run N - N lookups at CONNS connections; "ok" if every reply is the
# expected answer of some world domain and nothing failed, else what was
# wrong
cold_run() {
	"$SM_LOAD" -v -c "$CONNS" -n "$1" -t 600 -K "$T/keys" \
	    "unix:$SOCK" >"$T/run.out" 2>"$T/run.err"
	awk -F '\t' -v n="$1" '
	    FNR == NR { want["OK " $2] = 1; next }
	    /^reply: / { r = substr($0, 8); if (!(r in want)) bad[r]++; got++ }
	    /^RESULT / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		f[kv[1]] = kv[2] } }
	    END {
		for (r in bad) { printf "unexpected %d x \"%s\" ", bad[r], r; e = 1 }
		if (f["errors"] != 0 || got != n) {
			printf "replies=%d of %d errors=%s", got, n, f["errors"]; e = 1
		}
		if (!e) print "ok"
	    }' "$T/cases" "$T/run.out"
}

is "$(cold_run "$COLD1")" ok "$COLD1 cold lookups at $CONNS connections: every reply expected"
R1=$(rss "$P_RES")
is "$(cold_run "$COLD2")" ok "$COLD2 more: every reply expected"
R2=$(rss "$P_RES")
echo "# resolver rss: ${R1} kB after $COLD1, ${R2} kB after $((COLD1 + COLD2))"
ok "$([ $((R2 * 100)) -le $((R1 * 110)) ]; echo $?)" \
	"resolver RSS after $((COLD1 + COLD2)) within 10 % of after $COLD1 ($R1 -> $R2 kB)"
ok "$([ "$R2" -le 32768 ]; echo $?)" "resolver RSS at most 32 MiB ($R2 kB)"

n=$(grep -c 'refresh=request discovery=' "$DAEMON_LOG")
ok "$([ "$n" -ge $(((COLD1 + COLD2) / CONNS)) ]; echo $?)" \
	"the lookups were cold: $n discoveries logged"
ok "$(grep -c 'discovery=failure' "$DAEMON_LOG" | grep -qx 0; echo $?)" \
	"no discovery failed"

# no idle connection to a policy host once everything is answered
sleep 1
idle=$(ss -Htnp state established "( dport = :443 )" 2>/dev/null |
	grep -c "pid=$P_RES,")
is "$idle" 0 "the resolver keeps no connection to a policy host after its fetch"

daemon_stop
is "$?" 0 "daemon exits 0"
done_testing
