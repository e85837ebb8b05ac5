#!/bin/bash
# big-policy.sh - a valid policy is never refused for its size (issue 13
# part 3), end to end in the loopback world.
#
# The catalogue case big-policy serves an enforce policy of 65500 bytes
# (just under RFC 8461's 64 KiB) with 2,700 mx lines.  Through a real
# Postfix client (postmap -q) on a plain map and on a tlsrpt map:
#  - the answer is "secure match=" with all 2,700 patterns in policy order
#    and servername=hostname, and fits Postfix's 100000-byte reply limit;
#  - on the tlsrpt map the TLSRPT attributes (policy_string repeats all
#    65500 bytes, mx_host_pattern every pattern: far over 100000 bytes)
#    are left out, all of them, never match=; a warning says so once per
#    domain and record, not at every lookup;
#  - answers from the cache (second lookups) are the same, and
#    postsmtpsts-cache show lists the 2,700 patterns.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap curl
world_up || { echo "Bail out! world did not start"; exit 1; }

D=big-policy.pstest
TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
C="$T/cache"
mkdir -p "$C"

# The expected answer, from the policy file the world serves.
want=$(sed -n "s/{domain}/$D/g; s/^mx: *//p" "$WORLD_SRC/policies/big-policy.txt" |
    sed 's/^\*\./\./' | paste -sd: -)
want="secure match=$want servername=hostname"
is "$(sed -n '/^mx:/p' "$WORLD_SRC/policies/big-policy.txt" | wc -l)" 2700 \
    "the policy has 2700 mx lines"
body=$(curl -s --cacert "$WORLD_CA" \
    --resolve "mta-sts.$D:443:$WORLD_HTTPS_ADDR" \
    "https://mta-sts.$D/.well-known/mta-sts.txt" | wc -c)
ok "$([ "$body" -gt 60000 ] && [ "$body" -le 65536 ]; echo $?)" \
    "the policy is just under 64 KiB ($body bytes)"

mapfile -t lines < <(world_daemon_lines)
WORKERS=1 daemon_start "${lines[@]}" \
    "cache { path = \"$C\" }" \
    'map postfix { }' \
    'map rpt { tlsrpt = true }' ||
	{ echo "Bail out! daemon did not start"; exit 1; }

# check_answer MAP WHEN - one lookup on MAP: exact answer, within the limit
check_answer() {
	local got rc
	got=$(pq "$D" "$1")
	rc=$?
	is "$rc" 0 "$1 map, $2: found"
	is "${#got}" "${#want}" "$1 map, $2: ${#got} bytes, as expected"
	ok "$([ $((${#got} + 3)) -le 100000 ]; echo $?)" \
	    "$1 map, $2: \"OK \" + answer within Postfix's 100000 bytes"
	[ "$got" = "$want" ]
	ok $? "$1 map, $2: secure match= with all 2700 patterns in order"
	echo "$got" | tr ':' '\n' | grep -c '\.pstest' >"$T/n"
	is "$(cat "$T/n")" 2700 "$1 map, $2: 2700 names in match="
	case $got in
	*policy_type* | *policy_string* | *mx_host_pattern*)
		ok 1 "$1 map, $2: no TLSRPT attribute" ;;
	*) ok 0 "$1 map, $2: no TLSRPT attribute" ;;
	esac
}

check_answer postfix "first lookup (discovery)"
check_answer rpt "first lookup"
check_answer rpt "from the cache"
check_answer postfix "from the cache"

grep -q "domain=$D .*kind=sts mode=2" "$DAEMON_LOG"
ok $? "resolver stored the policy (kind sts, enforce)"
grep -q "invalid policy\|too many mx" "$DAEMON_LOG"
ok $((! $?)) "no 'invalid policy' for it"
n=$(grep -c "warning: domain=$D map=rpt tlsrpt=dropped nmx=2700" "$DAEMON_LOG")
is "$n" 1 "one warning for the dropped TLSRPT attributes, not one per lookup"

"$TOOL" -d "$C" show "$D" >"$T/show" 2>&1
ok $? "postsmtpsts-cache show $D"
grep -q '^nmx: 2700$' "$T/show"
ok $? "the cache record holds 2700 patterns"
is "$(grep -c '^mx: ' "$T/show")" 2700 "show prints every pattern"
is "$(sed -n 's/^mx: //p' "$T/show" | sed -n '2700p')" m2699.bp.pstest \
    "the last pattern is the policy's last"

daemon_stop
ok $? "clean exit"
done_testing
