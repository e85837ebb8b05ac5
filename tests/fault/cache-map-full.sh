#!/bin/bash
# cache-map-full.sh - LMDB's map full: cache.max_size at its minimum
# (1 MiB) and the cache filled to 96 % of it beforehand (tests/cache_fill:
# 6800 synthetic entries, 4080 of them fresh enforce policies, the rest
# testing, DANE, negative and expired ones), then a cold burst of 200 new
# bulk domains (4 clients at once, 400 entries with their DANE ones) that
# cannot fit without eviction.  Asserted:
#   answers  every lookup gets its policy, each within 5 s
#   data     the 200 new policies are stored; eviction takes negative,
#            expired, testing entries first (postsmtpsts_cache_evicted_total
#            {class} > 0), enforce policies only once none of those is
#            left (then with a warning; the fill's entries are interleaved,
#            so deleting the others empties few pages: it happens in some
#            runs); the file stays within max_size + 1/64 per resolver
#            (128 KiB)
#   metric   postsmtpsts_cache_write_errors_total 0 (room was made for
#            every write)
#   log      at most 4 warnings (the enforce eviction's, one a pass)
#   memory   each process' VmRSS < 64 MB (512 under ASan)
#   CPU      once the burst is over, each process < 10 % of a core over
#            3 s
# About 10-15 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap python3
world_up || { echo "Bail out! world did not start"; exit 1; }
[ "${WORLD_BULK:-0}" -ge 200 ] || skip_all "needs WORLD_BULK >= 200 (has ${WORLD_BULK:-0})"

CACHE_TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
FILL="$top_builddir/tests/cache_fill"
TICKS=$(getconf CLK_TCK)
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"
MAX=1048576

# metric SERIES - its value in a fresh scrape ('absent' if none)
metric() {
	$PROM fetch "$URL" "$T/scrape" >/dev/null
	$PROM get "$T/scrape" "$1"
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
# the bound: 64 MB, 512 in an ASan build (its shadow memory and quarantine)
RSS_MAX_KB=65536
ldd "$DAEMON" 2>/dev/null | grep -q libasan && RSS_MAX_KB=524288
pids() { echo "$DAEMON_PID $(pgrep -P "$DAEMON_PID" | tr '\n' ' ')"; }
listing() { "$CACHE_TOOL" -d "$T/cache" list 2>/dev/null; }
# fresh_enforce - the fill's fresh enforce policies in the cache (record
# i of shape i % 10 in 0..5)
fresh_enforce() {
	listing | awk '$1 ~ /^d[0-9]+\.fill\.example$/ && $2 == "sts" &&
	    $3 == "enforce" { i = substr($1, 2, 7) + 0; if (i % 10 <= 5) n++ }
	    END { print n + 0 }'
}
# new_policies - the burst's policies in the cache
new_policies() { listing | grep -cE '^b[0-9]+\.bulk\.pstest sts enforce '; }
# ask FIRST LAST - bI.bulk.pstest for I in FIRST..LAST, 4 clients at once;
# each prints "I MILLISECONDS ANSWER"
ask() {
	seq "$1" "$2" | xargs -P 4 -I{} sh -c '
	    t0=$(date +%s%N)
	    a=$(timeout 20 postmap -c "$0" -q b{}.bulk.pstest "socketmap:unix:$1:postfix" 2>&1)
	    echo "{} $(( ($(date +%s%N) - t0) / 1000000 )) $a"' "$PF_DIR" "$SOCK"
}

"$FILL" -m 1 "$T/cache" 6800 >/dev/null ||
	{ echo "Bail out! cache_fill failed"; exit 1; }
is "$(fresh_enforce)" 4080 "the fill: 4080 fresh enforce policies"
echo "# the fill: $("$CACHE_TOOL" -d "$T/cache" stats 2>/dev/null | grep pages_used)"

mapfile -t lines < <(world_daemon_lines)
export WORKERS=2 RESOLVERS=2
daemon_start "${lines[@]}" "metrics = \"inet:127.0.0.1:$MPORT\"" \
    "cache { max_size = $MAX }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

out=$(ask 1 200)
n=$(printf '%s\n' "$out" | grep -c .)
bad=$(printf '%s\n' "$out" | awk '$3 != "secure" || $4 != "match=b" $1 ".mx.bulk.pstest"' | head -n 3)
slow=$(printf '%s\n' "$out" | awk '$2 > max { max = $2 } END { print max + 0 }')
is "$n:$bad" "200:" "map full, cold burst: 200 lookups, each answered with its policy"
ok "$(( slow < 5000 ? 0 : 1 ))" "map full, cold burst: the slowest in $slow ms (< 5000)"

wait_until 10 '[ "$(new_policies)" -ge 200 ]'
is "$(new_policies)" 200 "map full: the 200 new policies are stored"
$PROM fetch "$URL" "$T/scrape" >/dev/null
others=$(grep -E '^postsmtpsts_cache_evicted_total\{class="(negative|expired|other)"\}' "$T/scrape" |
    awk '{ n += $2 } END { print n + 0 }')
ok "$(( others > 0 ? 0 : 1 ))" \
    "map full: room made by evicting $others negative, expired, testing entries (postsmtpsts_cache_evicted_total)"
echo "# $(grep '^postsmtpsts_cache_evicted_total' "$T/scrape" | tr '\n' ' ')"
# Enforce policies go only when nothing else is left: the fill's entries
# are interleaved (i % 10), so deleting the others empties no page, and a
# burst that needs new pages may have to take enforce ones too, least
# recently fetched first (the fill's, not the burst's), with a warning.
enf=$($PROM get "$T/scrape" 'postsmtpsts_cache_evicted_total{class="enforce"}')
fe=$(fresh_enforce)
left=$(listing | awk '$1 ~ /^d[0-9]+\.fill\.example$/ {
    i = substr($1, 2, 7) + 0; if (i % 10 == 6 || i % 10 == 7 || i % 10 == 9) n++ }
    END { print n + 0 }')
if [ "$enf" = 0 ]; then
	is "$fe" 4080 "map full: no enforce policy evicted, every fresh one of the fill still there"
else
	is "$left" 0 "map full: $enf enforce policies evicted ($fe of the fill's 4080 left), only once no negative, expired or testing entry was left"
	ok "$(grep -q 'full of unexpired enforce and DANE policies: evicted [0-9]* of them .*raise cache.max_size' "$DAEMON_LOG"; echo $?)" \
	    "map full: ... with the warning: $(grep -m1 'full of unexpired' "$DAEMON_LOG" | sed 's/.*warning: //')"
fi
is "$(metric postsmtpsts_cache_write_errors_total)" 0 \
    "map full: no write failed (postsmtpsts_cache_write_errors_total)"
size=$(stat -c %s "$T/cache/data.mdb")
ok "$(( size <= MAX + 2 * 65536 ? 0 : 1 ))" \
    "map full: data.mdb $size bytes (<= max_size + 128 KiB)"

n=$(grep 'warning: ' "$DAEMON_LOG" | grep -vc 'running as root')
ok "$(( n <= 4 ? 0 : 1 ))" "map full: $n warnings in the log (<= 4)"
for p in $(pids); do
	ok "$(( $(rss_kb "$p") < RSS_MAX_KB ? 0 : 1 ))" \
	    "map full: pid $p VmRSS $(rss_kb "$p") kB (< $RSS_MAX_KB)"
done
declare -A a
for p in $(pids); do a[$p]=$(cpu_ticks "$p"); done
sleep 3
for p in $(pids); do
	b=$(cpu_ticks "$p")
	ok "$(( (b - a[$p]) * 10 < 3 * TICKS ? 0 : 1 ))" \
	    "map full, after the burst: pid $p used $(( (b - a[$p]) * 1000 / TICKS )) ms of CPU in 3 s (< 300)"
done
is "$(pq b1.bulk.pstest)" "secure match=b1.mx.bulk.pstest servername=hostname" \
    "map full: a new policy is answered from the cache"
daemon_stop
ok $? "clean exit"
done_testing
