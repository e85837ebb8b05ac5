#!/bin/bash
# shellcheck disable=SC2016 # wait_until evaluates its single-quoted conditions
# preload-url.sh - preload lists by https:// (issue 38), in the loopback
# world: nginx serves a signed list and its .asc under the world's test CA
# (case preload-lists, http option files: $WORLD_FILES_DIR), the host's
# address from the world's DNSSEC resolver.
#  1. postsmtpsts-cache preload URL: imported, signed by the key the test
#     made; the signature at a configured URL of its own;
#  2. refusals, each with a message naming the URL, exit 1 and the store
#     as it was: a tampered list, one signed by another key, no .asc
#     (404), a missing list (404), a list over the 8 MiB cap (nginx, and
#     hostile-https's endless body: cut while receiving, not after 100
#     MB), a Content-Length of 9 MiB and of 1 GB (refused before the body
#     by curl's CURLOPT_MAXFILESIZE), a slow drip
#     (preload.timeout), a certificate of an unknown CA, a redirect;
#  3. the daemon imports the URL list at start (the master's child) and
#     answers for a domain whose TXT record is stripped (no-txt.pstest:
#     NOTFOUND without the list) with the list's policy; at SIGHUP a newer
#     list; a wrong-signature list at SIGHUP changes nothing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
need gpg gpgv postmap nsd unbound nginx ldns-signzone postfix

world_up || { echo "Bail out! world did not start"; exit 1; }
if [ -z "${WORLD_FILES_DIR:-}" ] || [ ! -d "$WORLD_FILES_DIR" ]; then
	echo "Bail out! the world has no WORLD_FILES_DIR (started from an older tree?)"
	exit 1
fi
# this script's own directory of the world's files, removed at exit
F=$WORLD_FILES_DIR/preload-url.$$
mkdir -p "$F"
chmod 755 "$F"
BASE=https://mta-sts.preload-lists.pstest/files/preload-url.$$

export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
G="gpg --batch --quiet --pinentry-mode loopback --passphrase="
trap 'gpgconf --kill gpg-agent 2>/dev/null; rm -rf "$F"; _cleanup' EXIT INT TERM
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
	chmod 644 "$2.asc"
}
# list FILE TIMESTAMP: an EFF-format list naming no-txt.pstest (its MX is
# the world's good server) in enforce mode
list() {
	cat >"$1" <<LEOF
{
  "timestamp": "$2",
  "expires": "2099-01-01T00:00:00Z",
  "version": "0.1",
  "author": "preload-url.sh",
  "policies": {
    "no-txt.pstest": {"mode": "enforce", "mxs": ["mx1.no-txt.pstest"]}
  }
}
LEOF
	chmod 644 "$1"
}

mapfile -t WL < <(world_daemon_lines)
pre() { # pre SOURCE [EXTRA]: the preload section
	printf 'preload {\n\tpath = "%s/store"\n\tkeyring = "%s/keyring.gpg"\n\ttimeout = %s\n\tlist "web" {\n\t\tsource = "%s"\n\t\tfingerprint = "%s"\n%s\t}\n}\n' \
	    "$T" "$T" "${PRE_TIMEOUT:-10}" "$1" "$FPR" "${2:-}"
}
conf() { # conf SOURCE [EXTRA]: the tool's configuration
	{ printf '%s\n' "${WL[@]}"; pre "$@"; } >"$CONF"
}
tool() { "$TOOL" -c "$CONF" "$@"; }
held() { tool preloaded 2>&1 | sed 's/ loaded=[^ ]*//'; }

# -- 1. imported by URL
list "$F/policy.json" 2026-12-01T00:00:00Z
sign a@example.org "$F/policy.json"
conf "$BASE/policy.json"
tool preload >"$T/out" 2>&1
ok $? "a signed list fetched by URL is imported"
is "$(cat "$T/out")" "preload web: 1 domains (1 enforce, 0 testing), timestamp 2026-12-01T00:00:00Z, expires 2099-01-01T00:00:00Z, signed by $FPR" \
    "the import's line"
HELD=$(held)
is "$HELD" "web 1 timestamp=2026-12-01T00:00:00Z expires=2099-01-01T00:00:00Z signer=$FPR source=$BASE/policy.json" \
    "preloaded: the list held, its URL as source"
n=$(grep -c "uri=/files/preload-url.$$/policy.json\(.asc\)\? status=200" "$WORLD_HTTPS_LOG")
is "$n" 2 "nginx served the list and its .asc once each"
is "$(find "$T" -maxdepth 1 -name '.postsmtpsts-preload.*' | wc -l)" 0 \
    "no private copy left beside the store"
# the signature at a URL of its own, the list given on the command line
cp "$F/policy.json.asc" "$F/detached.sig"
chmod 644 "$F/detached.sig"
conf "$BASE/policy.json" "		signature = \"$BASE/detached.sig\"
"
tool preload -n web >"$T/out" 2>&1
ok $? "-n: the signature from its configured URL"
grep -q "uri=/files/preload-url.$$/detached.sig status=200" "$WORLD_HTTPS_LOG"
ok $? "nginx served the configured signature URL"

# -- 2. refusals: exit 1, a message naming the URL, the store as it was
refused() { # refused DESC WANT-IN-MESSAGE [ARGS...]
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
conf "$BASE/policy.json"
cp "$F/policy.json" "$F/good.json"
list "$F/policy.json" 2026-12-02T00:00:00Z
refused "a list changed after signing" "$BASE/policy.json: signature: does not verify with $T/keyring.gpg: gpgv says BADSIG"
list "$F/policy.json" 2026-12-02T00:00:00Z
sign b@example.org "$F/policy.json"
refused "a list signed by another key" "$BASE/policy.json: signature: does not verify with $T/keyring.gpg: gpgv says ERRSIG"
rm -f "$F/policy.json.asc"
refused "no signature (404)" "$BASE/policy.json: signature: $BASE/policy.json.asc: http-status: HTTP status 404"
conf "$BASE/gone.json"
refused "no list (404)" "$BASE/gone.json: list: http-status: HTTP status 404"
# 9 MiB: over the cap, Content-Length known
head -c 9437184 /dev/zero | tr '\0' ' ' >"$F/big.json"
chmod 644 "$F/big.json"
conf "$BASE/big.json"
refused "a list of 9 MiB" "$BASE/big.json: list: too-large: Content-Length exceeds 8388608 bytes"
# hostile-https: an endless body without Content-Length at full speed
U=https://mta-sts.https-endless.pstest/.well-known/mta-sts.txt
conf "$U"
refused "an endless body" "$U: list: too-large: body exceeds 8388608 bytes"
wait_until 5 'grep -q "sni=mta-sts.https-endless.pstest " "$WORLD_HOSTILE_LOG"'
b=$(grep 'sni=mta-sts.https-endless.pstest ' "$WORLD_HOSTILE_LOG" | tail -n1 | sed -n 's/.* bytes=\([0-9]*\).*/\1/p')
ok "$([ "${b:-0}" -gt 8388608 ] && [ "${b:-0}" -lt 33554432 ]; echo $?)" \
    "an endless body: cut while receiving (the server sent ${b:-?} bytes: past 8 MiB, not 100 MB)"
U=https://mta-sts.https-huge-length.pstest/.well-known/mta-sts.txt
conf "$U"
refused "Content-Length 1 GB" "$U: list: too-large: Content-Length exceeds 8388608 bytes"
U=https://mta-sts.https-drip.pstest/.well-known/mta-sts.txt
PRE_TIMEOUT=3 conf "$U"
t0=$(date +%s)
refused "a slow drip" "$U: list: timeout: "
t=$(($(date +%s) - t0))
ok "$([ "$t" -ge 2 ] && [ "$t" -le 8 ]; echo $?)" "a slow drip: given up at preload.timeout = 3 s (${t} s)"
U=https://mta-sts.cert-unknownca.pstest/files/x.json
conf "$U"
refused "a certificate of an unknown CA" "$U: list: webpki: certificate rejected"
U=https://mta-sts.https-redirect-loop.pstest/.well-known/mta-sts.txt
conf "$U"
refused "a redirect" "$U: list: redirect: HTTP status 301 (redirects are not followed)"
U=https://no-such-host.pstest/list.json
conf "$U"
refused "a host without an address" "$U: list: dns: no-such-host.pstest: no address"
cp "$F/good.json" "$F/policy.json"
sign a@example.org "$F/policy.json"

# -- 3. the daemon: the master's child imports the URL list
rm -rf "$T/store"
daemon_start "${WL[@]}" "$(pre "$BASE/policy.json")" ||
    { echo "Bail out! daemon did not start"; exit 1; }
wait_until 20 '"$TOOL" -c "$CONF" preloaded 2>/dev/null | grep -q "^web 1 timestamp=2026-12-01T00:00:00Z"'
ok $? "at start: the daemon imported the list from its URL"
ok "$(grep -q 'preload: the configured lists imported' "$DAEMON_LOG"; echo $?)" \
    "the master logs the import's success"
is "$(pq no-txt.pstest)" "secure match=mx1.no-txt.pstest servername=hostname" \
    "no-txt.pstest (TXT stripped): the list's policy answers"
is "$(pq preload-lists.pstest; echo "rc=$?")" "rc=1" \
    "a domain without TXT that no list names: NOTFOUND"
HELD=$(held)
list "$F/policy.json" 2026-12-06T00:00:00Z
sign b@example.org "$F/policy.json"
log_mark
kill -HUP "$DAEMON_PID"
wait_until 20 'tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -q "preload: import exited with status 1"'
ok $? "SIGHUP with a list signed by another key: the import fails"
ok "$(tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" | grep -qF "$BASE/policy.json: signature: does not verify with $T/keyring.gpg: gpgv says ERRSIG"; echo $?)" \
    "... its message in the daemon's log, naming the URL"
is "$(held)" "$HELD" "SIGHUP with a list signed by another key: the held list stays"
is "$(pq no-txt.pstest)" "secure match=mx1.no-txt.pstest servername=hostname" \
    "... and still answers"
sign a@example.org "$F/policy.json"
kill -HUP "$DAEMON_PID"
wait_until 20 '"$TOOL" -c "$CONF" preloaded 2>/dev/null | grep -q "^web 1 timestamp=2026-12-06T00:00:00Z"'
ok $? "SIGHUP: the newer signed list imported from its URL"
daemon_stop
ok $? "the daemon stops cleanly"
done_testing
