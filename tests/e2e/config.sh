#!/bin/sh
# config.sh - postsmtpsts -t: configuration check with file:line errors
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

printf 'workers = 2\nlisten "inet:127.0.0.1:1" { }\n' >"$T/good.conf"
out=$("$DAEMON" -t -c "$T/good.conf" 2>&1)
ok $? "-t accepts a valid file"
echo "$out" | grep -q "configuration OK"
ok $? "-t says the configuration is OK"

printf 'workers = 2\n\nbogus_option = 1\n' >"$T/bad1.conf"
out=$("$DAEMON" -t -c "$T/bad1.conf" 2>&1)
rc=$?
is "$rc" 1 "-t: unknown option exits 1"
echo "$out" | grep -q "^$T/bad1.conf:3: "
ok $? "-t: unknown option reported as file:line ($(echo "$out" | head -n1))"

printf 'listen "inet:127.0.0.1:99999" { }\n' >"$T/bad2.conf"
out=$("$DAEMON" -t -c "$T/bad2.conf" 2>&1)
rc=$?
is "$rc" 1 "-t: bad port exits 1"
echo "$out" | grep -q "^$T/bad2.conf:1: "
ok $? "-t: bad port reported as file:line ($(echo "$out" | head -n1))"

printf 'domain "x.example" {\n  level = "sekure"\n}\n' >"$T/bad3.conf"
out=$("$DAEMON" -f -c "$T/bad3.conf" 2>&1)
rc=$?
is "$rc" 1 "daemon refuses to start with a bad policy level"
echo "$out" | grep -q "^$T/bad3.conf:2: .*level must be one of"
ok $? "bad level reported as file:line ($(echo "$out" | head -n1))"

out=$("$DAEMON" -t -c "$T/nonexistent.conf" 2>&1)
is "$?" 1 "missing config file exits 1"

"$DAEMON" -t -c "$top_srcdir/contrib/postsmtpsts.conf" >/dev/null 2>&1
ok $? "the shipped example configuration is valid"

# Files the resolver reads at its start are read by -t and before the start
# too: one that cannot be read, or an option libunbound refuses, is an
# error with its name and exit 1 - not a resolver restarted again and again.
printf 'user = ""\npid_file = "%s/pid"\nruntime_dir = "%s"\nlisten "unix:%s/sock" { }\ncache { enabled = false }\n' \
    "$T" "$T" "$T" >"$T/base.conf"
while IFS='|' read -r what line want; do
	{ cat "$T/base.conf"; echo "$line"; } >"$T/res.conf"
	out=$("$DAEMON" -t -c "$T/res.conf" 2>&1)
	rc=$?
	is "$rc" 1 "-t: $what exits 1"
	case $out in
	*"$T/res.conf: $want"*) ok 0 "-t: $what named ($(echo "$out" | head -n1))" ;;
	*) ok 1 "-t: $what named"; echo "# $out" ;;
	esac
	out=$(timeout 20 "$DAEMON" -f -c "$T/res.conf" 2>&1)
	rc=$?
	is "$rc" 1 "start: $what exits 1 at once"
	case $out in
	*"$T/res.conf: $want"*) ok 0 "start: $what named" ;;
	*) ok 1 "start: $what named"; echo "$out" | head -n 3 | sed 's/^/# /' ;;
	esac
done <<EOF
a missing trust anchor|dns { trust_anchor_file = "$T/none/root.key" }|dns: trust anchor $T/none/root.key: No such file
missing root hints|dns { root_hints = "$T/none/root.hints" }|dns: root hints $T/none/root.hints: No such file
a missing unbound.conf|dns { unbound_config = "$T/none/unbound.conf" }|dns: unbound config $T/none/unbound.conf: No such file
an unknown unbound option|dns { unbound_options = { "no-such-option: 1" } }|dns: unbound option "no-such-option: 1"
a missing CA file|https { ca_file = "$T/none/ca.pem" }|https: $T/none/ca.pem: cannot read
EOF
done_testing
