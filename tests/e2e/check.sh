#!/usr/bin/env bash
# tests/e2e/check.sh - postsmtpsts-check against the loopback world's MX
# hosts (tests/world): one case per kind of MX server and DNS set-up, the
# verdict and exit status each must get, --json, --warn-days, and the
# timeouts (a closed port, a server that never greets).  TAP output.
#
# The world's catalogue cases used (tests/world/cases.tsv):
#   enforce            enforce policy, MX "good"                 ok, 0
#   deliver-badcert    enforce, MX "wrongname"                    failure, 2
#   deliver-expired    enforce, MX "expired"                      failure, 2
#   deliver-unknownca  enforce, MX "unknownca"                    failure, 2
#   nostarttls         enforce, MX "nostarttls" (no STARTTLS)     failure, 2
#   deliver-testing    testing policy, MX "wrongname"             warning, 1
#   dane-ok            DANE-EE(3) TLSA matching the MX key        ok, 0
#   dane-mismatch      DANE-EE(3) TLSA matching nothing           failure, 2
#   no-txt             no MTA-STS, MX "good"                      ok, 0
#   dane-cname         MX host a CNAME, TLSA at the target        ok, 0
#   dane-pkix-ee       only a PKIX-EE(1) TLSA: TLS required        ok, 0
#   dane-malformed     a malformed DANE-EE digest: TLS required   ok, 0
#   dane-pkix-nostarttls  PKIX-EE TLSA, MX without STARTTLS     failure, 2
set -u
. "$(dirname "$0")/lib.sh"

CHECK="$top_builddir/postsmtpsts/postsmtpsts-check"
[ -x "$CHECK" ] || { echo "Bail out! $CHECK not built"; exit 99; }
need python3
world_up || { echo "Bail out! world not running"; exit 99; }

# run_check OUTFILE ARGS... - run the checker with the world's resolver
# settings and test CA; prints the exit status
run_check() {
	_out=$1
	shift
	"$CHECK" --trust-anchor "$WORLD_TRUST_ANCHOR" \
	    --root-hints "$WORLD_ROOT_HINTS" \
	    --unbound-option "do-not-query-localhost: no" \
	    --ca-file "$WORLD_CA" --timeout "${CHECK_TIMEOUT:-5}" "$@" \
	    >"$_out" 2>"$_out.err"
	echo $?
}

# has FILE ERE DESC - the output matches
has() {
	if grep -Eq -- "$2" "$1"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   no line matching '$2' in:"
		sed 's/^/#     /' "$1" "$1.err"
	fi
}

# verdict CASE DOMAIN WANT_EXIT WANT_VERDICT REASON_ERE [ARGS...]
verdict() {
	_case=$1 _dom=$2 _want=$3 _verdict=$4 _why=$5
	shift 5
	_rc=$(run_check "$T/$_case.out" "$@" "$_dom")
	is "$_rc" "$_want" "$_case: $_dom exits $_want"
	has "$T/$_case.out" "^  verdict: $_verdict" "$_case: host verdict $_verdict"
	[ -n "$_why" ] && has "$T/$_case.out" "$_why" "$_case: reason /$_why/"
	return 0
}

verdict enforce enforce.pstest 0 ok ""
has "$T/enforce.out" "^  STARTTLS: offered" "enforce: STARTTLS offered"
has "$T/enforce.out" "^  TLS: TLS1\.[23], TLS_" "enforce: TLS version and cipher"
has "$T/enforce.out" "^  certificate 0: subject CN=mx-good\.pstest" "enforce: the chain's leaf"
has "$T/enforce.out" "^  PKIX: valid" "enforce: PKIX valid"
has "$T/enforce.out" "^  name match: yes" "enforce: name matches the MX host"
has "$T/enforce.out" "^  policy mx match: yes" "enforce: the host matches the policy's mx"
has "$T/enforce.out" "^  requirement: sts-enforce" "enforce: requirement sts-enforce"
has "$T/enforce.out" "^  expires in: [0-9]+ days" "enforce: expiry in days"

verdict wrongname deliver-badcert.pstest 2 failure "does not name the MX host"
has "$T/wrongname.out" "^  name match: no" "wrongname: name match no"
verdict expired deliver-expired.pstest 2 failure "certificate expired [0-9]+ days ago"
has "$T/expired.out" "^  PKIX: .*expired" "expired: PKIX says expired"
verdict unknownca deliver-unknownca.pstest 2 failure "does not PKIX-validate"
has "$T/unknownca.out" "^  PKIX: .*issuer is unknown" "unknownca: PKIX says issuer unknown"
verdict nostarttls nostarttls.pstest 2 failure "STARTTLS not offered"
has "$T/nostarttls.out" "^  greeting: 220 mx-nostarttls\.pstest" "nostarttls: greeted by the nostarttls MX"
verdict testing deliver-testing.pstest 1 warning "does not name the MX host"
verdict dane-ok dane-ok.pstest 0 ok ""
has "$T/dane-ok.out" "^  requirement: dane" "dane-ok: requirement dane"
has "$T/dane-ok.out" "^  DANE: match \(matched by DANE-EE\(3\)\)" "dane-ok: DANE-EE match"
verdict dane-mismatch dane-mismatch.pstest 2 failure "matches no TLSA record"
has "$T/dane-mismatch.out" "^  DANE: mismatch" "dane-mismatch: DANE mismatch"
# dane-cname: the MX host is a CNAME; RFC 7672 §2.2.2 puts the TLSA
# records at the CNAME-expanded name.  The checker walks the MX hosts with
# the daemon's own code (dane.c), so it finds them there, and agrees with
# the daemon's answer for the domain.
verdict dane-cname dane-cname.pstest 0 ok ""
has "$T/dane-cname.out" "^  TLSA _25\._tcp\.real\.dane-cname\.pstest: DNSSEC secure, 1 usable" \
    "dane-cname: TLSA found at the CNAME target real.dane-cname.pstest"
has "$T/dane-cname.out" "^  requirement: dane" "dane-cname: requirement dane"
has "$T/dane-cname.out" "^  DANE: match" "dane-cname: the certificate matches the TLSA at the target"
# RFC 7672 §2.2: TLSA records none of which is usable still require TLS
# (requirement tls): STARTTLS and a handshake, the certificate unchecked
verdict dane-pkix-ee dane-pkix-ee.pstest 0 ok ""
has "$T/dane-pkix-ee.out" "^  requirement: tls" "dane-pkix-ee: requirement tls"
has "$T/dane-pkix-ee.out" "^  TLSA _25\._tcp\.mx1\.dane-pkix-ee\.pstest: DNSSEC secure, 0 usable" \
    "dane-pkix-ee: the TLSA record found, none usable"
verdict dane-malformed dane-malformed.pstest 0 ok ""
has "$T/dane-malformed.out" "^  requirement: tls" "dane-malformed: requirement tls"
verdict dane-pkix-nostarttls dane-pkix-nostarttls.pstest 2 failure "STARTTLS not offered"
has "$T/dane-pkix-nostarttls.out" "^  requirement: tls" "dane-pkix-nostarttls: requirement tls"
_rc=$(run_check "$T/dane-cname.json" --json dane-cname.pstest)
_rc=$(run_check "$T/dane-pkix-ee.json" --json dane-pkix-ee.pstest)
mapfile -t lines < <(world_daemon_lines)
if daemon_start "${lines[@]}"; then
	daemon_answer=$(pq dane-cname.pstest 2>&1)
	daemon_answer_tls=$(pq dane-pkix-ee.pstest 2>&1)
	daemon_stop
else
	daemon_answer="daemon did not start"
	daemon_answer_tls=$daemon_answer
fi
checker_tls=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["dane_state"], o["hosts"][0]["requirement"])' "$T/dane-pkix-ee.json" 2>&1)
is "$daemon_answer_tls / $checker_tls" "encrypt / tls-required tls" \
    "dane-pkix-ee: the daemon answers encrypt, the checker's DANE state is tls-required"
checker_state=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["dane_state"], o["hosts"][0]["tlsa_name"])' "$T/dane-cname.json" 2>&1)
is "$daemon_answer / $checker_state" "dane-only / all _25._tcp.real.dane-cname.pstest" \
    "dane-cname: the daemon answers dane-only, the checker's DANE state is all"

verdict no-policy no-txt.pstest 0 ok ""
has "$T/no-policy.out" "^  requirement: none" "no-policy: opportunistic requirement"

# -c: the resolver settings and the CA file (HTTPS and SMTP alike) from a
# postsmtpsts.conf(5) file, as the daemon's e2e tests write it
mapfile -t lines < <(world_daemon_lines)
daemon_config "${lines[@]}"
"$CHECK" -c "$CONF" enforce.pstest >"$T/conf.out" 2>"$T/conf.out.err"
is "$?" 0 "config: -c with the world's dns and https settings exits 0"
has "$T/conf.out" "^  PKIX: valid" "config: the https ca_file is the SMTP trust store too"

# --warn-days beyond the certificate's lifetime: a warning, exit 1
verdict warn-days enforce.pstest 1 warning "expires in [0-9]+ days \(warning at 100000\)" \
    --warn-days 100000

# a domain that does not exist: nothing to check
_rc=$(run_check "$T/nx.out" no-such-domain.pstest)
is "$_rc" 2 "nxdomain: exits 2"
has "$T/nx.out" "NXDOMAIN" "nxdomain: says so"
has "$T/nx.out" "^domain verdict: failure: .*nothing could be checked" "nxdomain: nothing could be checked"

# --json: one object that parses, with the per-host fields
for c in enforce dane-mismatch nostarttls; do
	case $c in
	enforce) d=enforce.pstest ;;
	dane-mismatch) d=dane-mismatch.pstest ;;
	nostarttls) d=nostarttls.pstest ;;
	esac
	_rc=$(run_check "$T/$c.json" --json "$d")
	python3 -m json.tool "$T/$c.json" >/dev/null 2>&1
	ok $? "json $c: parses with python3 -m json.tool"
	is "$_rc" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit"])' "$T/$c.json" 2>&1)" \
	    "json $c: \"exit\" is the exit status"
done
got=$(python3 - "$T/enforce.json" <<'PYEOF' 2>&1
import json, sys
o = json.load(open(sys.argv[1]))
h = o["hosts"][0]
print(o["domain"], o["sts"]["mode"], o["verdict"], h["host"], h["starttls"],
      h["tls"], h["tls_version"].startswith("TLS1."), h["pkix_valid"],
      h["name_match"], h["mx_match"], h["dane"], h["expiry_days"] > 0,
      h["chain"][0]["subject"], h["requirement"], h["verdict"])
PYEOF
)
is "$got" "enforce.pstest enforce ok mx1.enforce.pstest True True True True True True not-applicable True CN=mx-good.pstest sts-enforce ok" \
    "json enforce: per-host fields"
got=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"][0]; print(h["requirement"], h["tlsa_usable"], h["dane"], h["verdict"])' "$T/dane-mismatch.json" 2>&1)
is "$got" "dane 1 mismatch failure" "json dane-mismatch: DANE fields"
got=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"][0]; print(h["starttls"], h["tls"], h["tls_version"], h["chain"], h["verdict"])' "$T/nostarttls.json" 2>&1)
is "$got" "False False None [] failure" "json nostarttls: no TLS fields"

# A closed port: a failure that names the cause, well within the timeout.
start=$(date +%s%N)
verdict closed-port enforce.pstest 2 failure "port 2[0-9]+: Connection refused" \
    --port "$PORT"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $(( ms < 5000 ? 0 : 1 )) "closed-port: answered in ${ms} ms (timeout 5 s)"

# Broken and hostile servers on the MX's address, on a free port of the good
# MX address: one that never greets, one that injects plaintext after its
# 220 to STARTTLS, one that never starts the TLS handshake, one with an
# overlong reply line, one whose greeting holds bytes that need escaping.
# fake_mx MODE - listen on $WORLD_MX_GOOD_ADDR:$PORT in the background
fake_mx() {
	python3 - "$WORLD_MX_GOOD_ADDR" "$PORT" "$1" "$T/fake.ready" <<'PYEOF' &
import socket, sys, time
addr, port, mode, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port))
s.listen(1)
open(ready, "w").close()
s.settimeout(30)
c, _ = s.accept()
if mode == "silent":
    time.sleep(10)
elif mode in ("inject", "tls-silent"):
    c.sendall(b"220 fake ESMTP\r\n")
    c.recv(1000)
    c.sendall(b"250-fake\r\n250 STARTTLS\r\n")
    c.recv(1000)
    if mode == "inject":
        # CVE-2011-0411: plaintext after the 220 to STARTTLS
        c.sendall(b"220 go ahead\r\n250 injected\r\n")
        time.sleep(2)
    else:
        c.sendall(b"220 go ahead\r\n")
        time.sleep(10)
elif mode == "longline":
    c.sendall(b"220 " + b"x" * 5000 + b"\r\n")
    time.sleep(2)
else:
    # a greeting with a quote, a backslash, a control and a non-ASCII byte
    c.sendall(b'220 evil "q" \\b \x01 \xff\r\n')
    c.recv(1000)
    c.sendall(b"250-evil\r\n250 PIPELINING\r\n")
    c.recv(1000)
    c.sendall(b"221 bye\r\n")
    time.sleep(1)
c.close()
PYEOF
	FAKE_PID=$!
	for _i in $(seq 1 50); do
		[ -e "$T/fake.ready" ] && break
		sleep 0.1
	done
	rm -f "$T/fake.ready"
}

fake_mx silent
start=$(date +%s%N)
CHECK_TIMEOUT=2 verdict silent enforce.pstest 2 failure "greeting: no reply within the timeout" \
    --port "$PORT"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $(( ms >= 1900 && ms < 4500 ? 0 : 1 )) "silent: gave up after the 2 s timeout (${ms} ms)"
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null

fake_mx inject
CHECK_TIMEOUT=2 verdict inject enforce.pstest 2 failure "data after its 220 \(plaintext injection\)" \
    --port "$PORT"
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null

fake_mx tls-silent
start=$(date +%s%N)
CHECK_TIMEOUT=2 verdict tls-silent enforce.pstest 2 failure "TLS handshake: timed out" \
    --port "$PORT"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $(( ms >= 1900 && ms < 4500 ? 0 : 1 )) "tls-silent: gave up on the handshake after 2 s (${ms} ms)"
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null

fake_mx longline
CHECK_TIMEOUT=2 verdict longline enforce.pstest 2 failure "greeting: reply line too long" \
    --port "$PORT"
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null

fake_mx evil
_rc=$(run_check "$T/evil.json" --json --port "$PORT" enforce.pstest)
wait "$FAKE_PID" 2>/dev/null
is "$_rc" 2 "evil: no STARTTLS on an enforce domain exits 2"
got=$(python3 -c 'import json,sys; print(ascii(json.load(open(sys.argv[1]))["hosts"][0]["greeting"]))' "$T/evil.json" 2>&1)
is "$got" "'220 evil \"q\" \\\\b \\x01 \\xff'" "evil: the greeting is escaped in JSON and decodes to the bytes sent"
if grep -q $'\x01' "$T/evil.json"; then ok 1 "evil: no raw control byte in the output"; else ok 0 "evil: no raw control byte in the output"; fi

done_testing
