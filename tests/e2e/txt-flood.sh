#!/bin/bash
# txt-flood.sh - a big cache whose MTA-STS ids are all due for their TXT
# re-check, and a DNS server that never answers: the re-checks stay
# background work (DESIGN.md "TXT id freshness", issue 40)
#
# tests/cache_fill -d writes N domains (fresh MTA-STS enforce policies with
# their DANE entries, no TXT check time: every id due, as after a stop
# longer than the TXT TTLs); the daemon's DNS goes to the world's
# dns-blackhole, so no re-check ever finishes.  bench/sm-load asks every
# fresh enforce domain twice at 8 connections.  Then:
#   - every lookup was answered OK from the cache;
#   - at most cache.refresh_concurrency (4) re-checks started in each
#     resolver (postsmtpsts_txt_checks_started_total <= 4 x 2), the others
#     deferred at once (the resolvers' debug lines), never queued: no
#     "discoveries running, ... queued: answered TEMP";
#   - after a deferral a worker asks that resolver no re-check for the
#     rest of the second: deferrals are at most 5 % of the lookups (before
#     the bound every further lookup of a due domain cost a refused
#     message);
#   - a lookup of a domain that is not cached still starts a discovery
#     (its TXT query reaches the blackhole), the slots were not all taken.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap
SM_LOAD=$top_builddir/bench/sm-load
[ -x "$SM_LOAD" ] || skip_all "bench/sm-load is not built"
world_up || { echo "Bail out! world did not start"; exit 1; }
plan 8

N=${N:-20000}
"$top_builddir/tests/cache_fill" -d "$T/cache" "$N" >/dev/null ||
	{ echo "Bail out! cache_fill failed"; exit 1; }
# the fresh enforce domains (cache_fill: i % 10 < 6), twice each
awk -v n="$N" 'BEGIN { for (r = 0; r < 2; r++) for (i = 0; i < n; i++)
	if (i % 10 < 6) printf "d%07u.fill.example\n", i }' >"$T/keys"
LOOKUPS=$(wc -l <"$T/keys")
BH_LINES=$(wc -l <"$WORLD_BLACKHOLE_LOG")
CACHE_EXTRA="refresh_interval = 3600 refresh_concurrency = 4 " \
	daemon_start "dns { forwarders = { \"$WORLD_BLACKHOLE_ADDR\" } }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

t0=$(date +%s%N)
"$SM_LOAD" -c 8 -n "$LOOKUPS" -t 120 -K "$T/keys" "unix:$SOCK" \
	>"$T/run.out" 2>"$T/run.err"
ms=$((($(date +%s%N) - t0) / 1000000))
res=$(grep '^RESULT' "$T/run.out")
field() { echo "$res" | grep -o " $1=[0-9]*" | cut -d= -f2; }
is "$(field ok)/$(field errors)" "$LOOKUPS/0" \
	"$LOOKUPS lookups of due domains all answered OK from the cache in $ms ms"

started=$("$top_builddir/postsmtpsts/postsmtpsts-cache" -c "$CONF" stats \
	2>&1 | awk '/^postsmtpsts_txt_checks_started_total / { print $2 }')
ok "$([ -n "$started" ] && [ "$started" -ge 1 ] && [ "$started" -le 8 ]
	echo $?)" "re-checks started: ${started:-none} (1 to 4 per resolver)"
deferred=$(grep -c 'refresh=txt-check deferred: ' "$DAEMON_LOG")
ok "$([ "$deferred" -ge 1 ]; echo $?)" \
	"the others deferred by the resolvers ($deferred times)"
ok "$(! grep -q 'discoveries running, .* queued: answered TEMP' \
	"$DAEMON_LOG"; echo $?)" "no lookup refused for a full queue"
# a deferral pauses a worker's re-checks for the rest of the second: what
# the workers sent before the first deferral came back, then about one a
# second for each of 2 workers x 2 resolvers; not one a lookup (before the
# bound, every lookup of a due domain after the queue filled was refused)
limit=$((LOOKUPS / 20))
ok "$([ "$deferred" -le "$limit" ]; echo $?)" \
	"deferrals bounded by the workers' pause: $deferred <= $limit (lookups: $LOOKUPS, in $ms ms)"

# a domain that is not cached is still discovered: its TXT query goes out
pq nocache.fill.example >/dev/null 2>&1 &
PQ=$!
wait_until 10 'tail -n +$((BH_LINES + 1)) "$WORLD_BLACKHOLE_LOG" |
	grep -q "_mta-sts.nocache.fill.example"'
ok $? "a lookup of a domain not cached still starts its discovery (its TXT query reached the blackhole)"
kill "$PQ" 2>/dev/null
wait "$PQ" 2>/dev/null
daemon_stop
ok $? "clean stop"
is "$(grep -c -E 'Sanitizer|runtime error|panic' "$DAEMON_LOG")" 0 \
    "no sanitizer report or panic in the daemon log"
