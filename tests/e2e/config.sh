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
done_testing
