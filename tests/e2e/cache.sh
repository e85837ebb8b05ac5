#!/bin/bash
# cache.sh - the persistent cache and trust on first use (RFC 8461 §5.1,
# §10.2), end to end in the loopback world: cached enforce policies survive
# every downgrade the world can serve (no TXT, NXDOMAIN, HTTPS 404, no policy
# host, untrusted certificate, invalid policy, a weaker mode under the same
# id), a new id replaces, a same-id refresh extends max_age, a short-lived
# entry is rediscovered, long-expired entries are deleted, the resolver
# refreshes proactively (seen in the HTTPS access log), concurrent lookups
# are coalesced into one fetch, the cache answers after a restart, and a
# resolver killed with SIGKILL while it writes leaves a cache whose every
# entry decodes; garbage in data.mdb is moved aside (logged once, counted in
# the metrics) and a fresh cache learns again; and a small cache flooded
# with random non-existent names evicts negative entries, keeps the enforce
# policies it had, and still learns new ones.
#
# The world is shared and may have been started from another tree, so this
# test never changes it: it plants records in its own cache (mdb_load, the
# record format of cache_record.c) for catalogue domains whose live state is
# the downgrade to resist, and lets the daemon's resolver meet the real DNS
# and HTTPS servers.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap mdb_load python3
world_up || { echo "Bail out! world did not start"; exit 1; }

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
C="$T/cache"
mkdir -p "$C"

# seed DOMAIN MODE ID AGE EXPIRES_IN REFRESH_IN MX... - plant an STS record
# (mode enforce|testing|none, fetched AGE s ago) straight into the LMDB
seed() {
	python3 - "$@" <<'PY' | mdb_load -f /dev/stdin "$C"
import struct, sys, time
d, mode, id_, age, exp, ref = sys.argv[1:7]
mx = sys.argv[7:]
now = int(time.time())
m = {"none": 0, "testing": 1, "enforce": 2}[mode]
v = bytes([0xca, 1, 2, m, 1, 0, 0])
v += struct.pack("<Iqqqq", int(exp) + int(age), now - int(age),
                 now + int(exp), now + int(ref), 0)
v += bytes([len(id_)]) + id_.encode() + struct.pack("<H", len(mx))
for p in mx:
    v += bytes([len(p)]) + p.encode()
print("VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END")
print(" " + d.encode().hex())
print(" " + v.hex())
print("DATA=END")
PY
}
# fetches DOMAIN - policy fetches of DOMAIN in the access log since mark
fetches() {
	tail -c +$((MARK + 1)) "$WORLD_HTTPS_LOG" |
	    grep -c " host=mta-sts.$1 method=GET uri=/.well-known/mta-sts.txt "
}
mark() { MARK=$(stat -c %s "$WORLD_HTTPS_LOG"); }
sec() { echo "secure match=$1 servername=hostname"; }

# -- trust on first use: cached enforce policies, refresh due now
seed no-txt.pstest enforce seed1 100 3600 -1 mx1.no-txt.pstest
seed tofu-nx.pstest enforce seed1 100 3600 -1 mx1.tofu-nx.pstest
seed http-404.pstest enforce http4041 100 3600 -1 mx1.http-404.pstest
seed no-policy-host.pstest enforce nopolicyhost1 100 3600 -1 \
    mx1.no-policy-host.pstest
seed none.pstest enforce none1 100 3600 -1 mx1.none.pstest
seed cert-unknownca.pstest enforce certunknownca1 100 3600 -1 \
    mx1.cert-unknownca.pstest
seed mode-bad.pstest enforce modebad1 100 3600 -1 mx1.mode-bad.pstest
seed testing.pstest enforce testing1 100 3600 -1 mx1.testing.pstest
# a new id and a new policy: the proactive refresh replaces it
seed enforce-wild.pstest enforce old1 100 3600 -1 mx1.enforce-wild.pstest
# the same id and policy: a proactive refresh fetches and extends max_age
seed txt-split.pstest enforce 2024 100 3600 -1 mx1.txt-split.pstest
# expired two days ago (past the grace): deleted by the refresh walk
seed gone.tofu-nx.pstest enforce gone1 300000 -200000 -200000 mx.example
# a short max_age, no refresh before it runs out: rediscovered after expiry
seed enforce.pstest enforce enforce1 17 3 3600 mx9.enforce.pstest
ok $? "records planted in the cache"

mark
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" "cache { path = \"$C\" refresh_interval = 1 }" ||
    { echo "Bail out! daemon did not start"; exit 1; }
is "$(pq enforce.pstest)" "$(sec mx9.enforce.pstest)" \
    "a planted entry is answered from the cache"

# Wait for the refresh ticks: every due entry is tried once (enforce-wild's
# finds another id than the planted one: logged refresh=id-change).
wait_until 12 '[ "$(grep -c "refresh=\(proactive\|id-change\)" "$DAEMON_LOG")" -ge 10 ]'
is "$(grep -c 'refresh=\(proactive\|id-change\)' "$DAEMON_LOG")" 10 \
    "each due entry refreshed proactively once (then backed off)"
is "$(pq no-txt.pstest)" "$(sec mx1.no-txt.pstest)" "TOFU: TXT removed -> kept"
is "$(pq tofu-nx.pstest)" "$(sec mx1.tofu-nx.pstest)" "TOFU: NXDOMAIN -> kept"
is "$(pq http-404.pstest)" "$(sec mx1.http-404.pstest)" \
    "TOFU: HTTPS 404 -> kept"
is "$(pq no-policy-host.pstest)" "$(sec mx1.no-policy-host.pstest)" \
    "TOFU: policy host gone -> kept"
is "$(pq cert-unknownca.pstest)" "$(sec mx1.cert-unknownca.pstest)" \
    "TOFU: policy host certificate from an unknown CA -> kept"
is "$(pq mode-bad.pstest)" "$(sec mx1.mode-bad.pstest)" \
    "TOFU: invalid policy served -> kept"
is "$(pq none.pstest)" "$(sec mx1.none.pstest)" \
    "TOFU: mode none under the same id -> kept"
is "$(pq testing.pstest)" "$(sec mx1.testing.pstest)" \
    "TOFU: mode testing under the same id -> kept"
ok "$(grep 'domain=http-404.pstest refresh=proactive' "$DAEMON_LOG" |
    grep -q 'kept_cached=yes'; echo $?)" "the resolver logs kept_cached=yes"
# counted in this daemon's own fetch log: world-lookup.sh, which may run
# beside this script, looks up every catalogue case too, so the shared
# HTTPS access log may hold its fetches of these names as well
own_fetches() { grep -c "https: host=mta-sts.$1 " "$DAEMON_LOG"; }
is "$(own_fetches http-404.pstest)" 1 "the refresh did fetch (one fetch)"
ok "$([ "$(fetches http-404.pstest)" -ge 1 ]; echo $?)" \
    "... seen in the HTTPS access log"
is "$(own_fetches enforce-wild.pstest)" 1 \
    "proactive refresh of an unexpired entry: one fetch"
ok "$([ "$(fetches enforce-wild.pstest)" -ge 1 ]; echo $?)" \
    "... seen in the HTTPS access log"
grep -q 'domain=enforce-wild.pstest refresh=id-change old_id=old1 discovery=policy .*id=enforcewild1 ' \
    "$DAEMON_LOG"
ok $? "the decision log names the id change: old_id=old1 id=enforcewild1"
is "$(pq enforce-wild.pstest)" \
    "$(sec mx1.enforce-wild.pstest:.mail.enforce-wild.pstest)" \
    "new id, new policy -> new answer"

"$TOOL" -d "$C" show txt-split.pstest >"$T/show" 2>&1
fetched=$(date -d "$(sed -n 's/^fetched_at: //p' "$T/show")" +%s)
ok "$(grep -q '^max_age: 86400$' "$T/show" &&
    [ $(($(date +%s) - fetched)) -le 60 ]; echo $?)" \
    "same id: the refresh fetched and extended max_age"
is "$(pq txt-split.pstest)" "$(sec mx1.txt-split.pstest)" "... same answer"
"$TOOL" -d "$C" show gone.tofu-nx.pstest >/dev/null 2>&1
is $? 1 "an entry expired past the grace period was deleted"
ok "$(grep -q 'cache_expired_deleted=1 ' "$DAEMON_LOG"; echo $?)" \
    "... and the deletion logged"

# new id with mode none: the domain retires its policy
seed none.pstest enforce old0 100 3600 -1 mx1.none.pstest
wait_until 6 '[ "$(grep -c "domain=none.pstest refresh=proactive" \
    "$DAEMON_LOG")" -ge 2 ]'
out=$(pq none.pstest)
is "$?:$out" "1:" "new id with mode none -> NOTFOUND"

# expiry: the short-lived entry is rediscovered by the next request
sleep 1
mark
is "$(pq enforce.pstest)" "$(sec mx1.enforce.pstest)" \
    "expired entry -> rediscovered (the world's policy)"
is "$(fetches enforce.pstest)" 1 "... with one fetch"

# -- coalescing: 200 concurrent lookups of an uncached domain, 8 connections
mark
pids=
for _i in 1 2 3 4 5 6 7 8; do
	sm "unix:$SOCK" pipeline 25 ctype-charset.pstest >"$T/pipe.$_i" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
is "$(cat "$T"/pipe.* | sort | uniq -c | tr -s ' ')" " 8 ok 25" \
    "200 lookups over 8 connections all answered"
is "$(fetches ctype-charset.pstest)" 1 "... with exactly one HTTPS fetch"
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "... and the policy is cached"

# -- restart: the cache answers for a domain whose HTTPS is broken
daemon_stop
ok $? "clean stop"
is "$(grep -c -E 'Sanitizer|runtime error|panic' "$DAEMON_LOG")" 0 \
    "no sanitizer report or panic in the daemon log"
mark
daemon_start "${lines[@]}" "cache { path = \"$C\" refresh_interval = 1 }" ||
    { echo "Bail out! daemon did not restart"; exit 1; }
is "$(pq http-404.pstest)" "$(sec mx1.http-404.pstest)" \
    "after a restart: answered from the cache while HTTPS is broken"
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "after a restart: a discovered policy is still cached"
is "$(fetches ctype-charset.pstest)" 0 "... without a fetch"

# -- SIGKILL the resolver while it writes many entries
keys=
for i in $(seq 1 3000); do keys="$keys k$i.tofu-nx.pstest"; done
# shellcheck disable=SC2086
sm "unix:$SOCK" query $keys >/dev/null 2>&1 &
qpid=$!
WAIT_STEP=0.05 wait_until 5 \
    '[ "$(grep -c "tofu-nx.pstest refresh=request" "$DAEMON_LOG")" -ge 100 ]'
rpid=$(sed -n 's/^.*postsmtpsts\/resolver\[\([0-9]*\)\].*/\1/p' \
    "$DAEMON_LOG" | tail -n1)
ok "$([ -n "$rpid" ] && kill -KILL "$rpid"; echo $?)" \
    "resolver (pid ${rpid:-?}) killed with SIGKILL mid-writes ($(grep -c \
    'tofu-nx.pstest refresh=request' "$DAEMON_LOG") of 3000 written)"
wait "$qpid"
wait_until 10 '[ "$(grep -c "debug: resolver .* started" "$DAEMON_LOG")" -ge 2 ]'
is "$(pq enforce-wild.pstest)" \
    "$(sec mx1.enforce-wild.pstest:.mail.enforce-wild.pstest)" \
    "the master restarted the resolver; answers go on"
daemon_stop
ok $? "clean stop after the resolver was killed"
is "$(grep -c -E 'Sanitizer|runtime error|panic' "$DAEMON_LOG")" 0 \
    "no sanitizer report or panic in the daemon log"
"$TOOL" -d "$C" list >"$T/list" 2>"$T/list.err"
ok $? "postsmtpsts-cache list reads the cache"
n=$(grep -c '\.tofu-nx\.pstest ' "$T/list")
ok "$([ "$n" -ge 100 ]; echo $?)" "the written entries are there ($n)"
is "$(grep -c undecodable "$T/list")" 0 "every entry decodes"
is "$("$TOOL" -d "$C" stats | grep '^undecodable:')" "undecodable: 0" \
    "stats agrees"

# -- a damaged cache file: the resolver moves it aside and starts afresh
MPORT=$(free_port $((PORT + 1)))
URL="http://127.0.0.1:$MPORT/metrics"
# metric NAME - its value in a fresh scrape
metric() {
	$PROM fetch "$URL" "$T/scrape" >/dev/null && $PROM get "$T/scrape" "$1"
}
size=$(stat -c %s "$C/data.mdb")
head -c "$size" /dev/urandom >"$C/data.mdb"
mark
daemon_start "${lines[@]}" "cache { path = \"$C\" }" \
    "metrics = \"inet:127.0.0.1:$MPORT\"" ||
    { echo "Bail out! daemon did not start on a damaged cache"; exit 1; }
# the resolver opens the cache on its own: the worker may answer the
# readiness probe first (seen under ASan)
wait_until 10 grep -q 'cache .* was damaged (MDB_INVALID' "$DAEMON_LOG"
is "$(grep -c 'cache .* was damaged (MDB_INVALID' "$DAEMON_LOG")" 1 \
    "garbage in data.mdb: logged once, loudly"
is "$(grep -c 'cache disabled' "$DAEMON_LOG")" 0 "... the cache is not disabled"
aside=$(ls -d "$C".corrupt-* 2>/dev/null)
is "$(echo "$aside" | grep -c .)" 1 "... moved aside to $(basename "${aside:-none}")"
is "$(stat -c %s "${aside:-/nonexistent}/data.mdb" 2>/dev/null)" "$size" \
    "... with the damaged bytes kept"
is "$(metric postsmtpsts_cache_corrupt_total)" 1 \
    "... and counted (postsmtpsts_cache_corrupt_total 1)"
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "a lookup after the recovery is discovered"
"$TOOL" -d "$C" show ctype-charset.pstest >/dev/null 2>&1
ok $? "... and cached again in the fresh cache"
mark
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "... the next lookup answers"
is "$(fetches ctype-charset.pstest)" 0 "... from the cache"
daemon_stop
ok $? "clean stop"
daemon_start "${lines[@]}" "cache { path = \"$C\" }" ||
    { echo "Bail out! daemon did not restart"; exit 1; }
is "$(grep -c 'was damaged' "$DAEMON_LOG")" 0 \
    "a restart finds the fresh cache sound: nothing moved"
daemon_stop

# -- a full cache: a flood of non-existent names must not push out real
# policies, and new ones are still learned
LOAD="$top_builddir/bench/sm-load"
S="$T/small"
FLOOD=${CACHE_FLOOD:-5000}
daemon_start "${lines[@]}" \
    "cache { path = \"$S\" max_size = 1048576 negative_ttl = 3600 }" \
    "metrics = \"inet:127.0.0.1:$MPORT\"" ||
    { echo "Bail out! daemon did not start with a small cache"; exit 1; }
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "small cache: an enforce policy learned before the flood"
is "$(pq txt-split.pstest)" "$(sec mx1.txt-split.pstest)" "... and another"
"$LOAD" -c 16 -t 600 -n "$FLOOD" -P "r$$-" -N "$FLOOD" -S .tofu-nx.pstest \
    "unix:$SOCK" >"$T/flood" 2>&1
res=$(grep '^RESULT' "$T/flood")
ok "$(echo "$res" | grep -q " notfound=$FLOOD "; echo $?)" \
    "a flood of $FLOOD random non-existent names, all answered NOTFOUND"
ev=$(metric 'postsmtpsts_cache_evicted_total{class="negative"}')
ok "$([ "${ev:-0}" -gt 0 ]; echo $?)" \
    "the map filled up and negative entries were evicted ($ev)"
is "$(metric 'postsmtpsts_cache_evicted_total{class="enforce"}')" 0 \
    "... no enforce policy"
is "$(grep -c 'cache write for .* failed' "$DAEMON_LOG")" 0 \
    "... and no write failed"
mark
is "$(pq ctype-charset.pstest)" "$(sec mx1.ctype-charset.pstest)" \
    "after the flood: the enforce policy answers"
is "$(pq txt-split.pstest)" "$(sec mx1.txt-split.pstest)" "... the other too"
is "$(fetches ctype-charset.pstest)$(fetches txt-split.pstest)" 00 \
    "... from the cache"
is "$(pq enforce-wild.pstest)" \
    "$(sec mx1.enforce-wild.pstest:.mail.enforce-wild.pstest)" \
    "a new enforce domain after the flood is discovered"
# written after the answer (write-behind, at most 20 ms late)
WAIT_STEP=0.02 wait_until 2 "$TOOL" -d "$S" show enforce-wild.pstest \
    >/dev/null 2>&1
ok $? "... and learned (in the full cache)"
"$TOOL" -d "$S" stats >"$T/sstats" 2>/dev/null
# the contract (postsmtpsts.conf(5) max_size): at most 1/64, at least
# 64 KiB past max_size for each resolver (two here, lib.sh), when a full
# cache leaves no room even to delete (readers holding old pages under a
# flood can do that)
msize=$(sed -n 's/^map_size: //p' "$T/sstats")
ok "$([ "${msize:-0}" -ge 1048576 ] && [ "$msize" -le $((1048576 + 2 * 65536)) ]; echo $?)" \
    "the map stayed within max_size + 2 x 64 KiB (map_size $msize, $(grep '^pages_used' "$T/sstats"))"
daemon_stop
ok $? "clean stop"
done_testing
