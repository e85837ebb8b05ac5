#!/bin/bash
# cache-import.sh - postsmtpsts-cache import (issue 29, part 5): the caches
# of the other policy servers, written by their own code, read into ours
# with the same trust on first use
#
#   1. Debian's postfix-mta-sts-resolver, SQLite backend: its own cache
#      class fills a file (tests/e2e/peer_cache.py); the import keeps the
#      fetch time and max_age, skips the expired entry and the two
#      malformed ones (messages FILE:ROWID: ...), and the daemon answers
#      from the imported entries (postsmtpsts-query --socketmap).  A
#      second import keeps what is there; -n writes nothing.
#   2. The same peer, Redis backend (a redis-server of our own, TCP on the
#      world's network and a unix socket): an older entry does not replace
#      a newer one of ours, a newer one replaces ours; a key that is not
#      the peer's is a malformed row.
#   3. Half-bad sources write nothing: a SQLite file damaged in its middle
#      (thousands of rows read, then an error), a postfix-tlspol file cut
#      short: exit 1, the cache as it was.
#   4. postfix-tlspol: the cache files postfix-tlspol 1.13.0 and 1.8.18
#      wrote (tests/unit/data), imported at the time they were written
#      (faketime): every enforce policy, with their expiry.
#
# Needs Debian's postfix-mta-sts-resolver and python3-redis (its Redis
# backend, see peer_cache.py), redis-server, faketime; CI installs them
# (contrib/install-deps.sh --test): missing ones are a failure.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
QUERY="$top_builddir/postsmtpsts-query"
PEER="/usr/bin/python3 $top_srcdir/tests/e2e/peer_cache.py"
DATA="$top_srcdir/tests/unit/data"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
if ! /usr/bin/python3 -c 'import postfix_mta_sts_resolver, redis.asyncio' \
    2>/dev/null || ! command -v redis-server >/dev/null ||
    ! command -v redis-cli >/dev/null || ! command -v faketime >/dev/null
then
	echo "Bail out! postfix-mta-sts-resolver, python3-redis, redis-server or faketime not installed (contrib/install-deps.sh --test)"
	exit 1
fi

C="$T/cache"
NOW=$(date +%s)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
tool() { "$TOOL" -d "$C" "$@"; }
field() { tool show "$1" | sed -n "s/^$2: //p"; }
# summary OUT - the counts of an import's summary line, "I E M K P"
summary() {
	sed -n 's/.* entries read: \([0-9]*\) imported, \([0-9]*\) expired, \([0-9]*\) malformed, \([0-9]*\) kept .*, \([0-9]*\) without .*/\1 \2 \3 \4 \5/p' "$1"
}

# -- 1. postfix-mta-sts-resolver, SQLite
DB="$T/peer.db"
$PEER sqlite "$DB" "$NOW" 2>"$T/peer.err"
ok $? "the peer's SqliteCache writes its cache ($(tail -n1 "$T/peer.err"))"

tool -n import sqlite "$DB" >"$T/out" 2>"$T/err"
ok $? "import -n exits 0"
is "$(summary "$T/out")" "3 1 2 0 0" \
    "import -n: 3 to import, 1 expired, 2 malformed"
grep -q 'dry run: nothing written' "$T/out"
ok $? "import -n: says nothing was written"
is "$(tool list 2>&1)" "" "import -n: the cache holds nothing"

tool import sqlite "$DB" >"$T/out" 2>"$T/err"
ok $? "import exits 0"
is "$(summary "$T/out")" "3 1 2 0 0" \
    "import: 3 imported, 1 expired, 2 malformed, none kept"
is "$(cat "$T/err")" "$DB:5: badid.example: policy id is not 1-32 letters and digits (RFC 8461 section 3.1)
$DB:6: ipmx.example: policy: invalid mx pattern" \
    "import: one FILE:ROWID: DOMAIN: reason line per malformed row"
is "$(tool list | cut -d' ' -f1-4 | tr '\n' ' ')" \
    "enforce.example sts enforce enf1 none.example sts none none1 testing.example sts testing test1 " \
    "import: the three policies, with their mode and id; not the others"
is "$(field enforce.example fetched_at) $(field enforce.example expires_at)" \
    "$(iso $((NOW - 3600))) $(iso $((NOW - 3600 + 86400))) (fresh)" \
    "enforce: fetched when the peer fetched it, expires max_age later"
is "$(tool show enforce.example | grep -E '^(max_age|mx|nmx|dnssec):' | tr '\n' ' ')" \
    "dnssec: unknown max_age: 86400 nmx: 2 mx: mx1.enforce.example mx: *.mail.enforce.example " \
    "enforce: max_age and the patterns as published, DNSSEC status unknown"
is "$(field enforce.example txt_next_check)" \
    "$(iso $((NOW - 3600 + 30))) (due: at the next lookup)" \
    "enforce: its TXT id is re-checked at the first lookup"
is "$(field testing.example expires_at)" \
    "$(iso $((NOW - 60 + 604800))) (fresh)" "testing: a week from its fetch"
out=$(tool show expired.example 2>&1)
ok "$([ $? -eq 1 ] && echo "$out" | grep -q 'not in the cache'; echo $?)" \
    "the expired entry is not imported"

# the daemon answers from what was imported, at once: no DNS here, and
# with DANE on, its DANE part would be looked up first (and time out)
daemon_start 'map "postfix" { dane = no }' ||
    { echo "Bail out! daemon did not start"; exit 1; }
is "$("$QUERY" --socketmap "unix:$SOCK" enforce.example 2>&1 | sed -n 's/^reply: //p')" \
    "OK secure match=mx1.enforce.example:.mail.enforce.example servername=hostname" \
    "the daemon answers the imported enforce policy"
is "$(pq enforce.example)" \
    "secure match=mx1.enforce.example:.mail.enforce.example servername=hostname" \
    "... and Postfix reads it (postmap -q)"
daemon_stop
ok $? "the daemon stops cleanly"

tool import sqlite "$DB" >"$T/out" 2>/dev/null
is "$(summary "$T/out")" "0 1 2 3 0" \
    "a second import keeps the cache's entries (as new)"

# -- 2. postfix-mta-sts-resolver, Redis
R_ADDR="${WORLD_NET:-127.0}.63.81"
R_PORT=$(( 17379 + ( $$ % 1000 ) ))
R_SOCK="$T/redis.sock"
redis-server --bind "$R_ADDR" --port "$R_PORT" --unixsocket "$R_SOCK" \
    --save '' --appendonly no --dir "$T" --logfile "$T/redis.log" \
    --daemonize no &
R_PID=$!
cleanup_import() {
	kill "$R_PID" 2>/dev/null
	wait "$R_PID" 2>/dev/null
	_cleanup
}
trap cleanup_import EXIT
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 'redis-cli -s "$R_SOCK" ping 2>/dev/null | grep -q PONG'
ok $? "redis-server runs"
# the peer's Redis cache, written an hour earlier than its SQLite one
# (enforce.example fetched 2 h ago there: older than ours)
$PEER redis "redis://$R_ADDR:$R_PORT/3" "$((NOW - 3600)).25" 2>"$T/peer.err"
ok $? "the peer's RedisCache writes its cache"
# a newer fetch of testing.example (another id), and a key of another
# program in the same database
printf '%s' '["test2", {"mx": ["mx2.testing.example"], "version": "STSv1", "mode": "enforce", "max_age": 86400}]' |
    /usr/bin/python3 -c 'import sys, uuid, redis
r = redis.Redis(unix_socket_path=sys.argv[1], db=3)
r.delete("testing.example")
r.zadd("testing.example", {uuid.uuid4().bytes + sys.stdin.buffer.read(): float(sys.argv[2])})
r.set("other:key", "x")' "$R_SOCK" "$((NOW - 10))"
ok $? "a newer testing.example and a foreign key added to Redis"

tool import redis "redis://$R_ADDR:$R_PORT/3" >"$T/out" 2>"$T/err"
ok $? "import redis exits 0"
is "$(summary "$T/out")" "1 1 3 2 0" \
    "import redis: 1 imported (the newer one), 2 kept, 1 expired, 3 malformed"
is "$(sort "$T/err")" "redis://$R_ADDR:$R_PORT/3:badid.example: badid.example: policy id is not 1-32 letters and digits (RFC 8461 section 3.1)
redis://$R_ADDR:$R_PORT/3:ipmx.example: ipmx.example: policy: invalid mx pattern
redis://$R_ADDR:$R_PORT/3:other:key: other:key: not a sorted set (not an entry of the resolver)" \
    "import redis: URL:KEY: DOMAIN: reason per malformed key"
is "$(field enforce.example fetched_at)" "$(iso $((NOW - 3600)))" \
    "an older entry of the peer does not replace a newer one of ours"
is "$(tool list | grep '^testing.example' | cut -d' ' -f1-4) $(field testing.example fetched_at)" \
    "testing.example sts enforce test2 $(iso $((NOW - 10)))" \
    "a newer entry of the peer replaces ours"
tool import redis "unix:$R_SOCK?db=3" >"$T/out" 2>/dev/null
is "$(summary "$T/out")" "0 1 3 3 0" "import redis over the unix socket"
tool import redis "redis://$R_ADDR:1/0" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'nothing imported' "$T/err"; echo $?)" \
    "import redis: no server, exit 1"

# -- 3. half-bad sources write nothing
tool list >"$T/before"
BIG="$T/big.db"
$PEER sqlite "$BIG" "$NOW" 3000 2>/dev/null
ok $? "the peer writes 3006 rows"
# a page in the middle of the file overwritten: the rows before it are
# read, then SQLite reports the damage
/usr/bin/python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(4096 * 100); f.write(b"\xff" * 4096)' "$BIG"
tool import sqlite "$BIG" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'read stopped after [1-9][0-9]* rows' "$T/err" &&
    grep -q 'nothing imported' "$T/err"; echo $?)" \
    "a SQLite file damaged in the middle: read stops, exit 1, nothing imported"
tool list >"$T/after"
ok "$(cmp -s "$T/before" "$T/after"; echo $?)" \
    "... and the cache is as it was (no bulk entry)"
head -c 800 "$DATA/tlspol-1.13.0.cache.db" >"$T/cut.db"
tool import tlspol "$T/cut.db" >"$T/out" 2>"$T/err"
ok "$([ $? -eq 1 ] && grep -q 'nothing imported' "$T/err"; echo $?)" \
    "a postfix-tlspol file cut short: exit 1, nothing imported"
tool list >"$T/after"
ok "$(cmp -s "$T/before" "$T/after"; echo $?)" "... and the cache is as it was"

# -- 4. postfix-tlspol (its files were written on 2026-12-06 ~08:15Z)
# at TIME CMD... - CMD with the clock at TIME (libfaketime, preloaded: an
# ASan build, make check-asan, must not insist on coming first)
at() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    faketime "$@"
}
C="$T/cache-tlspol"
at '2026-12-06 08:20:00' "$TOOL" -d "$C" import tlspol \
    "$DATA/tlspol-1.13.0.cache.db" >"$T/out" 2>"$T/err"
ok $? "import tlspol (1.13.0) exits 0"
is "$(summary "$T/out")" "7 0 0 0 3" \
    "import tlspol: 7 enforce policies; testing, none and DANE-only are none"
is "$(tool list | cut -d' ' -f1-5 | tr '\n' ' ')" \
    "crlf.pstest sts enforce - 2026-12-07T08:14:43Z enforce-wild.pstest sts enforce - 2026-12-07T08:14:42Z enforce.pstest sts enforce - 2026-12-07T08:14:42Z id-32.pstest sts enforce - 2026-12-07T08:14:43Z max-age-huge.pstest sts enforce - 2027-01-05T08:14:43Z multi-mx.pstest sts enforce - 2026-12-13T08:14:42Z unknown-keys.pstest sts enforce - 2026-12-07T08:14:43Z " \
    "import tlspol: each expires when postfix-tlspol's copy did (no id kept)"
is "$(tool show multi-mx.pstest | grep -E '^(fetched_at|max_age|mx):' | tr '\n' ' ')" \
    "max_age: 604800 fetched_at: 2026-12-06T08:14:42Z mx: mx2.multi-mx.pstest mx: *.backup.multi-mx.pstest mx: mx1.multi-mx.pstest " \
    "import tlspol: fetched at ExpiresAt - TTL, \".x\" back to \"*.x\""
at '2026-12-06 08:20:00' "$TOOL" -d "$C" import tlspol \
    "$DATA/tlspol-1.8.18.cache.db" >"$T/out" 2>"$T/err"
is "$(summary "$T/out")" "4 0 0 0 3" \
    "import tlspol (1.8.18, one answer a domain): 4 newer policies"
at '2026-12-14 00:00:00' "$TOOL" -d "$T/cache-late" import tlspol \
    "$DATA/tlspol-1.13.0.cache.db" >"$T/out" 2>"$T/err"
is "$(summary "$T/out")" "1 6 0 0 3" \
    "import tlspol a week later: only the 30-day policy is left"

done_testing
