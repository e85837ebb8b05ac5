#!/bin/sh
# warm.sh - postsmtpsts-cache warm through a running daemon, in the loopback
# world: 500 bulk enforce domains and 50 unknown ones (plus comments, a
# Postfix table line and keys that are skipped).
#   - the first warm, on a pty (script(1)): progress lines (done/total,
#     rate, ETA, policies found) ending at 550/550, then the summary;
#     every bulk policy fetched exactly once (nginx access log);
#   - every enforce domain then answers from the cache (postmap -q through
#     Postfix) with no further fetch and no discovery in the daemon's log;
#     the unknown domains are negative entries (postsmtpsts-cache list);
#   - a second warm of the same list, off a pty: exactly one summary line,
#     zero policy fetches, zero discoveries;
#   - exit 1 when the daemon cannot be reached, 2 on a bad -j.
# Lines: 553 list lines give 550 domains; the continuation line is no
# line of its own (Postfix tables), the other 3 keys are skipped.
# Needs the world started with WORLD_BULK >= 500 (tests/run-all does).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
need postmap script
world_up || exit 1
N=500
[ "${WORLD_BULK:-0}" -ge "$N" ] ||
	skip_all "the world has WORLD_BULK=${WORLD_BULK:-0} bulk domains, this test needs $N (WORLD_BULK=$N tests/world/start)"

# the list: comments, the 500 bulk domains (one as a Postfix table line,
# one upper case with a trailing dot), 50 unknown names, 3 skipped keys
L="$T/list"
{
	echo "# warm.sh: $N bulk domains, 50 unknown"
	echo "b1.bulk.pstest	secure match=b1.mx.bulk.pstest"
	echo "B2.Bulk.PSTEST."
	i=3
	while [ "$i" -le "$N" ]; do echo "b$i.bulk.pstest"; i=$((i + 1)); done
	echo
	echo "# unknown"
	i=1
	while [ "$i" -le 50 ]; do echo "u$i.unknown-warm.pstest"; i=$((i + 1)); done
	echo "[mx.example.com]:25"
	echo ".parent.example"
	echo "user@example.com"
	echo "	continuation of a Postfix table line"
} >"$L"

# fetches - policy fetches of the bulk domains so far (nginx access log)
fetches() {
	grep -c -E " host=mta-sts\.b[0-9]+\.bulk\.pstest method=GET uri=/\.well-known/mta-sts\.txt " \
	    "$WORLD_HTTPS_LOG"
}
# discoveries - MTA-STS discoveries the daemon ran so far
discoveries() { grep -c ' refresh=request discovery=' "$DAEMON_LOG"; }

# max_resolutions 64: warm's default -j is 16
daemon_start "$(world_daemon_lines)" "max_resolutions = 64" || exit 1

f0=$(fetches)
# -- 1. the first warm, on a pty
script -qec "'$TOOL' -c '$CONF' warm '$L'" /dev/null >"$T/pty.raw" 2>&1
ok $? "warm on a pty: exit 0"
tr '\r' '\n' <"$T/pty.raw" | sed 's/\x1b\[K//g' | grep -v '^$' >"$T/pty"
grep '^warm: [0-9]*/550 done' "$T/pty" >"$T/progress"
ok "$([ "$(wc -l <"$T/progress")" -ge 2 ]; echo $?)" \
    "pty: progress lines ($(wc -l <"$T/progress" | tr -d ' ') of them)"
ok "$(grep -q -E '^warm: [0-9]+/550 done, [0-9.]+/s, ETA ([0-9]+:)?[0-9]+:[0-9]{2}, [0-9]+ policies found, 0 failed$' "$T/progress"; echo $?)" \
    "pty: a progress line has done/total, rate, ETA, policies found"
ok "$(sed 's|^warm: \([0-9]*\)/.*|\1|' "$T/progress" | sort -n -c; echo $?)" \
    "pty: the done count only grows"
is "$(tail -n1 "$T/progress" | sed 's/, [0-9.]*\/s, ETA [-0-9:]*,/,/')" \
    "warm: 550/550 done, 500 policies found, 0 failed" \
    "pty: the last progress line: 550/550, 500 policies found"
summary1=$(grep '^warm: 550 of 550' "$T/pty")
is "$(echo "$summary1" | sed 's/ in [0-9.]* s ([0-9.]*\/s)//')" \
    "warm: 550 of 550 domains done: 500 policies found (500 MTA-STS enforce, 0 testing, 0 DANE), 50 without, 0 failed, 3 lines skipped" \
    "pty: the summary line"
ok "$(grep -c ": skipped$" "$T/pty" | grep -qx 3; echo $?)" \
    "the three keys without a policy of their own are named as skipped"

f1=$(fetches)
is "$((f1 - f0))" "$N" "warm fetched each of the $N bulk policies once"
d1=$(discoveries)
is "$d1" 550 "the daemon ran 550 discoveries (one per domain)"

# -- 2. the cache: 500 enforce entries, 50 negative ones
"$TOOL" -d "$T/cache" list >"$T/cachelist"
is "$(grep -c -E '^b[0-9]+\.bulk\.pstest sts enforce ' "$T/cachelist")" "$N" \
    "cache: $N MTA-STS enforce entries"
is "$(grep -c -E '^u[0-9]+\.unknown-warm\.pstest none ' "$T/cachelist")" 50 \
    "cache: the 50 unknown domains are negative entries"

# -- 3. every enforce domain answers from the cache: no fetch, no discovery
i=1
while [ "$i" -le "$N" ]; do echo "b$i.bulk.pstest"; i=$((i + 1)); done >"$T/keys"
i=1
while [ "$i" -le 50 ]; do echo "u$i.unknown-warm.pstest"; i=$((i + 1)); done >>"$T/keys"
postmap -c "$PF_DIR" -q - "socketmap:unix:$SOCK:postfix" <"$T/keys" >"$T/answers"
bad=$(awk -F'\t' '$1 ~ /^b[0-9]+\.bulk\.pstest$/ {
	d = $1; sub(/\.bulk\.pstest$/, "", d)
	if ($2 == "secure match=" d ".mx.bulk.pstest servername=hostname") good++
	else print
} END { if (good != '"$N"') print "good=" good }' "$T/answers")
is "$bad" "" "postmap -q: all $N enforce domains answer secure match=bN.mx.bulk.pstest"
is "$(grep -c unknown-warm "$T/answers")" 0 \
    "postmap -q: the unknown domains are not found"
is "$(fetches)" "$f1" "the $N+50 lookups made no policy fetch"
is "$(discoveries)" "$d1" "the $N+50 lookups ran no discovery"

# -- 4. the second warm, off a pty: one line, nothing fetched
"$TOOL" -c "$CONF" warm -j 4 - <"$L" >"$T/out2" 2>"$T/err2"
ok $? "second warm (-j 4 after the command, stdin, no pty): exit 0"
is "$(wc -l <"$T/out2" | tr -d ' ')" 1 "off a pty: exactly one line of output"
ok "$(grep -q -E '^warm: 550 of 550 domains done in [0-9.]+ s \([0-9.]+/s\): 500 policies found \(500 MTA-STS enforce, 0 testing, 0 DANE\), 50 without, 0 failed, 3 lines skipped$' "$T/out2"; echo $?)" \
    "off a pty: the summary line ($(cat "$T/out2"))"
ok "$(grep -q "$(printf '\r')" "$T/out2"; [ $? -eq 1 ]; echo $?)" \
    "off a pty: no carriage return (no progress line)"
is "$(fetches)" "$f1" "second warm: zero policy fetches"
is "$(discoveries)" "$d1" "second warm: zero discoveries (answered from the cache)"

# -- 5. errors
"$TOOL" -c "$CONF" warm -j 0 "$L" >/dev/null 2>"$T/err3"
is "$?" 2 "-j 0: usage error, exit 2"
daemon_stop
ok $? "daemon stops cleanly"
out=$("$TOOL" -c "$CONF" warm "$L" 2>&1)
rc=$?
ok "$([ $rc -eq 1 ] && echo "$out" | grep -q "cannot reach the daemon's resolver"; echo $?)" \
    "daemon not running: exit 1, 'cannot reach the daemon's resolver'"

done_testing
