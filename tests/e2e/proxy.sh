#!/bin/bash
# proxy.sh - policy fetches through an HTTP proxy (https.proxy), end to end
#
# Egress through a proxy is common where mail servers may not open HTTPS
# connections themselves.  A real proxy from Debian (tinyproxy, run in the
# world's resolver namespace: it resolves the policy host, as a proxy does)
# between the daemon and the world's nginx:
#  - an enforce domain's policy is fetched through the proxy: the answer is
#    the policy's, and the proxy logged the CONNECT to mta-sts.DOMAIN:443;
#  - the certificate is still checked, inside the tunnel: a policy host
#    whose certificate names another host gives no policy (webpki);
#  - a proxy that refuses the CONNECT (403) gives no policy and a fetch
#    error, not the proxy's error page as a policy;
#  - a proxy that answers the CONNECT and then serves a policy of its own
#    in clear text (tests/e2e/evil_proxy.py) gives no policy: the TLS
#    handshake inside the tunnel fails;
#  - a proxy that is not listening gives a connect error;
#  - the daemon keeps answering throughout.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap tinyproxy
world_up || { echo "Bail out! world did not start"; exit 1; }

IN_WORLD="$top_srcdir/tests/world/in-world"

# proxy_start NAME CONNECT-PORT - tinyproxy on 127.0.0.1, allowing CONNECT
# to CONNECT-PORT only; sets PROXY_PORT
proxy_start() {
	local name=$1 cport=$2
	PROXY_PORT=$(free_port $((PORT + 1000)))
	cat >"$T/$name.conf" <<EOF
Port $PROXY_PORT
Listen 127.0.0.1
Timeout 30
Allow 127.0.0.0/8
ConnectPort $cport
LogFile "$T/$name.log"
LogLevel Info
PidFile "$T/$name.pid"
MaxClients 20
EOF
	"$IN_WORLD" tinyproxy -d -c "$T/$name.conf" >"$T/$name.out" 2>&1 &
	wait_until 5 "ss -Htln 'sport = :$PROXY_PORT' | grep -q ." ||
		{ echo "# tinyproxy $name did not start:"; sed 's/^/#   /' "$T/$name.out"; }
}

# stop_proxies - tinyproxy runs under in-world's shell, not as our child:
# found by its configuration file, which names this test's directory
stop_proxies() {
	pkill -f "^tinyproxy -d -c $T/" 2>/dev/null
	[ -n "${evil_PID:-}" ] && kill "$evil_PID" 2>/dev/null
	:
}
trap 'stop_proxies; _cleanup' EXIT

# lookup_fails DOMAIN WHY - a fresh lookup answers NOTFOUND and the
# discovery logged failure WHY (a glob)
lookup_fails() {
	local d=$1 why=$2 out rc line
	log_mark
	out=$(pq "$d" 2>&1)
	rc=$?
	is "$rc:$out" "1:" "$3: $d NOTFOUND"
	wait_discovery "$d"
	line=$(discovery_line "$d")
	echo "# ${line#*: }"
	# shellcheck disable=SC2254 # why is a pattern
	case $line in
	*$why*) ok 0 "$3: $d discovery failed: $why" ;;
	*) ok 1 "$3: $d discovery failed: $why" ;;
	esac
}

# daemon_via URL - the world's daemon configuration, fetching through URL
daemon_via() {
	local l cf=()
	while IFS= read -r l; do
		case $l in
		https*) cf+=("https { ca_file = \"$WORLD_CA\" connect_timeout = 3 timeout = 4 proxy = \"$1\" }") ;;
		*) cf+=("$l") ;;
		esac
	done < <(world_daemon_lines)
	WORKERS=1 daemon_start "${cf[@]}"
}

KNOWN=enforce.pstest
KNOWN_ANSWER="secure match=mx1.enforce.pstest servername=hostname"

# -- a proxy that allows CONNECT to 443 -----------------------------------
proxy_start good 443
GOOD_URL="http://127.0.0.1:$PROXY_PORT"
daemon_via "$GOOD_URL" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

is "$(pq "$KNOWN" 2>&1)" "$KNOWN_ANSWER" "through the proxy: enforce policy"
grep -q 'Established connection to host "mta-sts.enforce.pstest"' \
    "$T/good.log"
ok $? "the proxy carried the fetch (CONNECT mta-sts.enforce.pstest:443)"
is "$(pq enforce-wild.pstest 2>&1)" \
    "secure match=mx1.enforce-wild.pstest:.mail.enforce-wild.pstest servername=hostname" \
    "through the proxy: a second domain"
lookup_fails cert-wrongname.pstest 'failure=webpki-invalid * webpki: *does not match' \
    "through the proxy, certificate of another name"
grep -q 'Established connection to host "mta-sts.cert-wrongname.pstest"' \
    "$T/good.log"
ok $? "the wrong-name host was reached through the proxy"
is "$(pq "$KNOWN" 2>&1)" "$KNOWN_ANSWER" "a cached lookup still answers"
daemon_stop
is $? 0 "daemon stopped cleanly"

# -- a proxy that refuses CONNECT to 443 ------------------------------------
proxy_start deny 8443
DENY_URL="http://127.0.0.1:$PROXY_PORT"
rm -rf "$T/cache"
daemon_via "$DENY_URL" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
lookup_fails "$KNOWN" 'failure=fetch-error * CONNECT tunnel failed, response 403' "CONNECT refused (403)"
grep -q 'Refused CONNECT method on port 443' "$T/deny.log"
ok $? "the proxy refused the CONNECT"
ok "$(kill -0 "$DAEMON_PID"; echo $?)" "daemon still running"
daemon_stop
is $? 0 "daemon stopped cleanly"

# -- a proxy that answers in clear text with a policy of its own ------------
EVIL_PORT=$(free_port $((PORT + 1500)))
python3 "$top_srcdir/tests/e2e/evil_proxy.py" "$EVIL_PORT" "$T/evil.log" &
evil_PID=$!
wait_until 5 "ss -Htln 'sport = :$EVIL_PORT' | grep -q ."
rm -rf "$T/cache"
daemon_via "http://127.0.0.1:$EVIL_PORT" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
lookup_fails "$KNOWN" 'failure=fetch-error * tls: ' "proxy injecting a clear-text policy"
grep -q '^CONNECT mta-sts.enforce.pstest:443 ' "$T/evil.log"
ok $? "the lying proxy got the CONNECT"
ok "$(! grep -q 'evil.example' "$DAEMON_LOG"; echo $?)" \
    "its policy is nowhere in the daemon's log"
daemon_stop
is $? 0 "daemon stopped cleanly"

# -- no proxy listening ------------------------------------------------------
DEAD_URL="http://127.0.0.1:$(free_port $((PORT + 2000)))"
rm -rf "$T/cache"
daemon_via "$DEAD_URL" ||
	{ echo "Bail out! daemon did not start"; exit 1; }
lookup_fails "$KNOWN" 'failure=fetch-error * connect: ' "proxy not listening"
daemon_stop
is $? 0 "daemon stopped cleanly"

done_testing
