#!/bin/sh
# preload.sh - postsmtpsts-cache preload (issue 38): EFF-format lists
# signed with a key the test makes (gpg in a private home), checked by
# gpgv against a keyring of that key alone: a good list imported, and
# every refusal with its message and the store left as it was: a tampered
# list, one signed by another key, an unsigned one (and the same one
# accepted when configured local and trusted), an older timestamp, an
# expired list, invalid JSON, a duplicate domain, a dangling alias, a
# 100 MB file; -n writes nothing; preloaded shows what is held;
# postsmtpsts-query's source line; export --preload -> preload on a second
# configuration; the daemon's imports at start and at SIGHUP
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
need gpg gpgv

export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
G="gpg --batch --quiet --pinentry-mode loopback --passphrase="
trap 'gpgconf --kill gpg-agent 2>/dev/null; _cleanup' EXIT INT TERM
$G --quick-gen-key "List A <a@example.org>" ed25519 sign never 2>/dev/null
ok $? "key A made"
$G --quick-gen-key "Other B <b@example.org>" ed25519 sign never 2>/dev/null
ok $? "key B made"
gpg --batch --export a@example.org >"$T/keyring.gpg" 2>/dev/null
FPR=$(gpg --batch --with-colons --list-keys a@example.org 2>/dev/null |
    awk -F: '$1 == "fpr" { print $10; exit }')
sign() { # sign KEY FILE: FILE.asc
	rm -f "$2.asc"
	$G -u "$1" --armor --detach-sign -o "$2.asc" "$2" 2>/dev/null
}
# list FILE TIMESTAMP EXPIRES [MODE]: an EFF-format list
list() {
	cat >"$1" <<LEOF
{
  "timestamp": "$2",
  "expires": "$3",
  "version": "0.1",
  "author": "preload.sh",
  "policy-aliases": {
    "shared": {"mode": "enforce", "mxs": [".mx.example.net"]}
  },
  "policies": {
    "a.example": {"policy-alias": "shared"},
    "b.example": {"policy-alias": "shared"},
    "t.example": {"mode": "${4:-testing}", "mxs": ["mx.t.example"]}
  }
}
LEOF
}
cat >"$CONF" <<CEOF
preload {
	path = "$T/store"
	keyring = "$T/keyring.gpg"
	list "eff" {
		source = "$T/policy.json"
		fingerprint = "$FPR"
	}
	list "ours" {
		source = "$T/ours.json"
		trusted = true
	}
}
CEOF
tool() { "$TOOL" -c "$CONF" "$@"; }
held() { tool preloaded 2>&1 | sed 's/ loaded=[^ ]*//'; }

list "$T/policy.json" 2026-12-01T00:00:00.000000+00:00 2099-01-01T00:00:00Z
sign a@example.org "$T/policy.json"
tool preload -n eff >"$T/out" 2>&1
ok $? "-n: a list signed by A checks"
is "$(cat "$T/out")" "preload eff: checked, not written: 3 domains (2 enforce, 1 testing), timestamp 2026-12-01T00:00:00Z, expires 2099-01-01T00:00:00Z, signed by $FPR" \
    "-n: what it would import"
ok "$([ ! -e "$T/store/data.mdb" ]; echo $?)" "-n: no store written"

tool preload eff >"$T/out" 2>&1
ok $? "a list signed by A is imported"
is "$(cat "$T/out")" "preload eff: 3 domains (2 enforce, 1 testing), timestamp 2026-12-01T00:00:00Z, expires 2099-01-01T00:00:00Z, signed by $FPR" \
    "the import's line: counts, times, signer"
is "$(tool preloaded b.example)" "domain: b.example
list: eff
mode: enforce
timestamp: 2026-12-01T00:00:00Z
expires: 2099-01-01T00:00:00Z
mx: *.mx.example.net" "preloaded DOMAIN: the alias resolved, .suffix as *."
HELD=$(held)
is "$HELD" "eff 3 timestamp=2026-12-01T00:00:00Z expires=2099-01-01T00:00:00Z signer=$FPR source=$T/policy.json" \
    "preloaded: the list held"

# refusals: each a message, exit 1, the store unchanged
refused() { # refused DESC WANT-IN-MESSAGE ARGS...
	d=$1 w=$2
	shift 2
	tool preload "$@" >"$T/out" 2>&1
	st=$?
	is "$st" 1 "$d: exit 1"
	ok "$(grep -qF -- "$w" "$T/out"; echo $?)" "$d: says \"$w\""
	if [ "$st" -ne 1 ] || ! grep -qF -- "$w" "$T/out"; then
		sed 's/^/# /' "$T/out"
	fi
	is "$(held)" "$HELD" "$d: the store as it was"
}
cp "$T/policy.json" "$T/good.json"
sed 's/"testing"/"enforce"/' "$T/good.json" >"$T/policy.json"
refused "a list changed after signing" "signature: does not verify with $T/keyring.gpg: gpgv says BADSIG" eff
cp "$T/good.json" "$T/policy.json"
sign b@example.org "$T/policy.json"
refused "a list signed by another key" "gpgv says ERRSIG" eff
rm -f "$T/policy.json.asc"
refused "an unsigned list" "signature: $T/policy.json.asc: No such file or directory" eff
# the keyring holds A and B: the configured fingerprint still wants A
gpg --batch --export a@example.org b@example.org >"$T/both.gpg" 2>/dev/null
sign b@example.org "$T/policy.json"
refused "a key of the keyring, not the configured fingerprint" "not the configured $FPR" -k "$T/both.gpg" eff

list "$T/policy.json" 2026-11-30T23:59:59Z 2099-01-01T00:00:00Z
sign a@example.org "$T/policy.json"
refused "a list older than the one held" "preload list eff: timestamp 1796083199 is older than the one held (1796083200): refused" eff
list "$T/policy.json" 2026-12-02T00:00:00Z 2026-12-03T00:00:00Z
sign a@example.org "$T/policy.json"
refused "an expired list" "expires: the list expired at 2026-12-03T00:00:00Z: not used" eff
printf '{"timestamp": 1, "expires": 4102444800, "version": "0.1", "policies": {' >"$T/policy.json"
sign a@example.org "$T/policy.json"
refused "not JSON" "$T/policy.json: list: not valid JSON" eff
printf '{"timestamp": 1, "expires": 4102444800, "version": "0.1", "policies": {"a.example": {"mode": "enforce", "mxs": ["mx.a.example"]}, "a.example": {"mode": "testing", "mxs": ["mx.a.example"]}}}' >"$T/policy.json"
sign a@example.org "$T/policy.json"
refused "a duplicate domain" "$T/policy.json: a.example: duplicate domain" eff
printf '{"timestamp": 1, "expires": 4102444800, "version": "0.1", "policies": {"a.example": {"policy-alias": "gone"}}}' >"$T/policy.json"
sign a@example.org "$T/policy.json"
refused "a dangling alias" "$T/policy.json: a.example: policy-alias \"gone\" is not defined" eff
head -c 100000000 /dev/zero >"$T/policy.json"
refused "a list of 100 MB" "$T/policy.json: list: 100000000 bytes, more than 8388608" eff

# a list the configuration holds local and trusted needs no signature
list "$T/ours.json" 2026-12-05T00:00:00Z 2099-01-01T00:00:00Z enforce
tool preload ours >"$T/out" 2>&1
ok $? "a trusted local list is imported unsigned"
is "$(cat "$T/out")" "preload ours: 3 domains (3 enforce, 0 testing), timestamp 2026-12-05T00:00:00Z, expires 2099-01-01T00:00:00Z, trusted, unsigned" \
    "its line says trusted, unsigned"
is "$(tool preloaded t.example | sed -n 's/^\(list\|mode\): //p' | tr '\n' ' ')" \
    "ours enforce " "its enforce entry wins over eff's testing one"
is "$(tool preloaded a.example | sed -n 's/^list: //p')" "eff" \
    "an enforce entry held by eff stays eff's"
is "$(held | sed -n 's/ timestamp=.*//p')" "eff 3
ours 1" "ours holds 1 entry: the other two stay eff's"
HELD=$(held)
# the same file given by path, not configured as trusted under another name
cp "$T/ours.json" "$T/other.json"
refused "an unsigned file the configuration does not trust" "signature: $T/other.json.asc: No such file or directory" "$T/other.json"

# postsmtpsts-query says where its answer came from.  A DNS server that
# answers SERVFAIL to everything: discovery fails, the list answers
QUERY="$top_builddir/postsmtpsts-query"
cat >"$T/servfail.py" <<'PYEOF'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
while True:
    q, a = s.recvfrom(4096)
    if len(q) >= 12:  # the question back, QR set, RCODE 2 (SERVFAIL)
        s.sendto(q[:2] + bytes([q[2] | 0x80, (q[3] & 0x70) | 0x82]) +
                 q[4:6] + bytes(6) + q[12:], a)
PYEOF
python3 "$T/servfail.py" >"$T/dnsport" &
DNS_PID=$!
wait_until 5 test -s "$T/dnsport"
cat >>"$CONF" <<CEOF
dns {
	forwarders = { "127.0.0.1@$(cat "$T/dnsport")" }
	trust_anchor_file = ""
}
map "x" { dane = no }
CEOF
"$QUERY" -c "$CONF" --map x b.example >"$T/q" 2>/dev/null
is "$(grep -E '^(outcome|preload|source|answer):' "$T/q")" "outcome: failure, failure dns-servfail (TLSRPT sts-policy-fetch-error)
preload: list eff, timestamp 2026-12-01T00:00:00Z, expires 2099-01-01T00:00:00Z, mode enforce
source: preload eff 2026-12-01T00:00:00Z
answer: OK secure match=.mx.example.net servername=hostname" \
    "query: a failed discovery answered from the list, and says so"
"$QUERY" -c "$CONF" --map x --json b.example 2>/dev/null |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["source"], d["preload"]["list"], d["preload"]["mode"], d["preload"]["expired"], d["answer"])' >"$T/qj"
is "$(cat "$T/qj")" "preload eff enforce False OK secure match=.mx.example.net servername=hostname" \
    "query --json: source and preload"
"$QUERY" -c "$CONF" --map x c.example >"$T/q" 2>/dev/null
is "$(grep -E '^(preload|source|answer):' "$T/q")" "source: sts
answer: NOTFOUND" "query: a domain in no list: no preload line"

# export --preload -> preload round trip: this host's observed enforce
# policies (a cache filled by tests/cache_fill), signed with A's key,
# preloaded by a second configuration that has discovered nothing
FILL="$top_builddir/tests/cache_fill"
"$FILL" -t "$(date +%s)" "$T/cache" 20 >/dev/null
"$TOOL" -d "$T/cache" export --preload --sign a@example.org \
    "$T/export.json" 2>"$T/err"
ok $? "export --preload --sign writes the list and its signature"
ok "$([ -s "$T/export.json.asc" ]; echo $?)" "export: FILE.asc written"
CONF2="$T/second.conf"
cat >"$CONF2" <<CEOF
preload {
	path = "$T/store2"
	keyring = "$T/keyring.gpg"
	list "peer" {
		source = "$T/export.json"
	}
}
dns {
	forwarders = { "127.0.0.1@$(cat "$T/dnsport")" }
	trust_anchor_file = ""
}
map "x" { dane = no }
CEOF
"$TOOL" -c "$CONF2" preload >"$T/out" 2>&1
ok $? "the second host preloads the signed export"
ok "$(grep -q '^preload peer: 12 domains (12 enforce, 0 testing), .* signed by '"$FPR"'$' "$T/out"; echo $?)" \
    "its line: the 12 fresh enforce policies of 20 records, signed by A"
"$QUERY" -c "$CONF2" --map x d0000003.fill.example >"$T/q" 2>/dev/null
is "$(sed -n 's/^answer: //p' "$T/q")" \
    "OK secure match=mx1.d0000003.fill.example:.d0000003.fill.example servername=hostname" \
    "round trip: the first host's policy answers on the second, nothing discovered"
ok "$(grep -q '^source: preload peer ' "$T/q"; echo $?)" "round trip: source: preload peer"

# the daemon imports the configured lists at start and again at SIGHUP
# (preload_run.h: postsmtpsts-cache beside the daemon, as its user)
if command -v postmap >/dev/null 2>&1; then
	list "$T/daemon.json" 2026-12-05T00:00:00Z 2099-01-01T00:00:00Z enforce
	PRE="preload {
	path = \"$T/store3\"
	keyring = \"$T/keyring.gpg\"
	list \"d\" {
		source = \"$T/daemon.json\"
		trusted = true
	}
	list \"peer\" {
		source = \"$T/export.json\"
	}
}"
	daemon_start "$PRE" "map \"postfix\" { }" "map \"x\" { dane = no }" "dns {
	forwarders = { \"127.0.0.1@$(cat "$T/dnsport")\" }
	trust_anchor_file = \"\"
}"
	ok $? "the daemon starts with a preload list"
	wait_until 15 '"$TOOL" -c "$CONF" preloaded 2>/dev/null | grep -q "^d 3 timestamp=2026-12-05T00:00:00Z" &&
	    "$TOOL" -c "$CONF" preloaded 2>/dev/null | grep -q "^peer 12 "'
	ok $? "at start: both lists imported by the daemon"
	ok "$(grep -q 'preload: the configured lists imported' "$DAEMON_LOG"; echo $?)" \
	    "the master logs the import's success"
	# a worker (seccomp and all) reads the store: discovery fails
	# (SERVFAIL), the list's enforce entry answers
	is "$(pq t.example x)" "secure match=mx.t.example servername=hostname" \
	    "the daemon's answer for a listed domain whose discovery failed"
	is "$(pq c.example x; echo "rc=$?")" "rc=1" \
	    "a domain in no list: NOTFOUND"
	# the first host's export, preloaded by this daemon, which has
	# discovered nothing (its cache is not the exporter's)
	is "$(pq d0000003.fill.example x)" \
	    "secure match=mx1.d0000003.fill.example:.d0000003.fill.example servername=hostname" \
	    "export -> preload round trip: the exported policy answers on a second daemon"
	list "$T/daemon.json" 2026-12-06T00:00:00Z 2099-01-01T00:00:00Z enforce
	kill -HUP "$DAEMON_PID"
	wait_until 15 '"$TOOL" -c "$CONF" preloaded 2>/dev/null | grep -q "^d 3 timestamp=2026-12-06T00:00:00Z"'
	ok $? "SIGHUP: the newer list imported"
	daemon_stop
	ok $? "the daemon stops cleanly"
	kill "$DNS_PID"
else
	kill "$DNS_PID"
	for _i in 1 2 3 4 5 6 7 8; do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n - the daemon's imports # SKIP no postmap"
	done
fi

done_testing
