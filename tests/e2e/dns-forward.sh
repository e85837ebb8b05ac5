#!/bin/bash
# dns-forward.sh - the resolver's upstream as operators set it: the name
# servers of /etc/resolv.conf (dns.use_resolv_conf) or an unbound.conf(5)
# file of their own (dns.unbound_config), each pointing at the world's
# validating unbound, end to end through real Postfix.
#
# Neither configuration names root hints, so an answer at all shows that
# the setting took effect (libunbound's built-in hints name the real root
# servers, unreachable here).  For each, catalogue cases are asked and
# must give the catalogue's answers: MTA-STS enforce, DANE, a signed zone
# whose _mta-sts TXT alone is bogus (the TXT is not trusted: NOTFOUND, as
# with full recursion), a zone bogus throughout (TEMP).  (A missing
# unbound_config file is a start-up error: tests/e2e/config.sh.)
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap
world_up || { echo "Bail out! world did not start"; exit 1; }

IN_WORLD="$top_srcdir/tests/world/in-world"
CASES="enforce dane-ok dnssec-bogus-txt dnssec-bogus-ds"

# expect_case NAME WHAT - the lookup of catalogue case NAME gives the
# catalogue's answer
expect_case() {
	local domain expect
	IFS=$'\t' read -r _ domain expect _ < <(awk -F '\t' -v n="$1" \
	    '$1 == n' "$top_srcdir/tests/world/cases.tsv")
	# a first lookup may answer at the deadline; the second is the
	# discovered (cached) answer, as in world-lookup.sh
	pq "$domain" >/dev/null 2>&1
	pq_expect "$domain" "$expect" "$2: $1 -> $expect"
}

# common - the world's configuration without root hints or forwarders
common() {
	printf '%s\n' \
		"https { ca_file = \"$WORLD_CA\" connect_timeout = 3 timeout = 4 }" \
		"request_timeout = 10"
}

# -- use_resolv_conf, the daemon in the world's namespace ---------------------
# (/etc/resolv.conf there names the world's unbound: tests/world/in-world)
mapfile -t cf < <(common)
daemon_config "${cf[@]}" \
    "dns { trust_anchor_file = \"$WORLD_TRUST_ANCHOR\" use_resolv_conf = true unbound_options = { \"do-not-query-localhost: no\" } }"
"$IN_WORLD" "$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 15 'daemon_ready || ! kill -0 "$DAEMON_PID" 2>/dev/null'
ok "$(daemon_ready; echo $?)" "use_resolv_conf: daemon started"
for c in $CASES; do
	expect_case "$c" use_resolv_conf
done
# in-world's shell is our child; the daemon is its exec'd grandchild
pkill -TERM -f "^$DAEMON -f -c $CONF\$"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '! pgrep -f "^$DAEMON -f -c $CONF\$" >/dev/null'
ok $? "use_resolv_conf: daemon stopped"
DAEMON_PID=

# -- unbound_config: a forward zone in the operator's own file ---------------
cat >"$T/unbound.conf" <<EOF
server:
	do-not-query-localhost: no
forward-zone:
	name: "."
	forward-addr: $WORLD_RESOLVER_ADDR
EOF
rm -rf "$T/cache"
daemon_start "${cf[@]}" \
    "dns { trust_anchor_file = \"$WORLD_TRUST_ANCHOR\" unbound_config = \"$T/unbound.conf\" }" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
for c in $CASES; do
	expect_case "$c" unbound_config
done
daemon_stop
is $? 0 "unbound_config: daemon stopped cleanly"

done_testing
