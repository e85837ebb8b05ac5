#!/bin/sh
# cache-tool.sh - postsmtpsts-cache(8) on a cache filled by tests/cache_fill:
# list, show, purge, purge-all, export (checked through Postfix's postmap
# when it is installed), stats, usage errors, and use during writes
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
FILL="$top_builddir/tests/cache_fill"
[ -x "$TOOL" ] && [ -x "$FILL" ] || skip_all "postsmtpsts-cache or cache_fill not built"

C="$T/cache"
NOW=$(date +%s)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
tool() { "$TOOL" -d "$C" "$@"; }
# skip DESC - a TAP skip
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }

out=$("$FILL" -t "$NOW" "$C" 100)
ok $? "cache_fill writes 100 records ($out)"

# -- list
tool list >"$T/list" 2>"$T/err"
ok $? "list exits 0"
is "$(wc -l <"$T/list" | tr -d ' ')" 100 "list: one line per entry"
is "$(head -n1 "$T/list")" \
    "d0000000.fill.example sts enforce fill0 $(iso $((NOW + 86400))) $(iso $((NOW + 43200))) 0" \
    "list: domain kind mode id expires_at next_refresh last_error"
is "$(sed -n 10p "$T/list")" \
    "d0000009.fill.example none - - $(iso $((NOW + 3600))) $(iso $((NOW + 3600))) 0" \
    "list: a negative entry"
is "$(grep -c ' dane - - ' "$T/list")" 10 "list: DANE entries"
is "$(grep -c ' sts testing ' "$T/list")" 10 "list: STS testing entries"
ok "$(sort -c "$T/list"; echo $?)" "list: in domain order"
is "$(cat "$T/err")" "" "list: nothing on stderr"

# -- show
tool show d0000003.fill.example >"$T/show"
ok $? "show exits 0 for a cached domain"
is "$(cat "$T/show")" "domain: d0000003.fill.example
kind: sts
sts_mode: enforce
dnssec: insecure
dane: -
id: fill3
max_age: 86400
fetched_at: $(iso $((NOW - 60)))
expires_at: $(iso $((NOW + 86400))) (fresh)
next_refresh: $(iso $((NOW + 43200))) (not due)
last_error: 0
last_error_at: -
txt_ttl: 0 (re-check every 30 s)
txt_checked_at: -
txt_next_check: - (never checked: due at the next lookup)
nmx: 2
mx: mx1.d0000003.fill.example
mx: *.d0000003.fill.example" "show: every field"
is "$(tool show D0000003.FILL.Example.)" "$(cat "$T/show")" \
    "show: the name is lower-cased and one trailing dot dropped"
tool show d0000006.fill.example >"$T/show6"
ok "$(grep -q '^expires_at: .* (expired)$' "$T/show6" &&
    grep -q '^next_refresh: .* (due)$' "$T/show6" &&
    grep -q '^last_error: 2$' "$T/show6"; echo $?)" \
    "show: an expired entry with a failed refresh"
out=$(tool show nosuch.example 2>&1)
rc=$?
ok "$([ $rc -eq 1 ] && echo "$out" | grep -q 'nosuch.example: not in the cache'; echo $?)" \
    "show: exit 1 and a message for a domain not cached"
out=$(tool show 'bad domain' 2>&1)
ok "$([ $? -eq 1 ] && echo "$out" | grep -q 'not a domain name'; echo $?)" \
    "show: refuses a name that is not a domain"

# -- export
tool export >"$T/export"
ok $? "export exits 0"
grep -v '^#' "$T/export" >"$T/export.lines"
is "$(wc -l <"$T/export.lines" | tr -d ' ')" 60 \
    "export: only fresh enforce policies (not expired, testing, dane, none)"
is "$(head -n1 "$T/export.lines")" \
    "$(printf 'd0000000.fill.example\tsecure match=mx1.d0000000.fill.example:.d0000000.fill.example servername=hostname')" \
    "export: a Postfix policy line, *.x written .x"
ok "$(grep -q -E '^d00000[0-9][6-9]' "$T/export.lines"; [ $? -eq 1 ]; echo $?)" \
    "export: no line for the expired, testing, DANE and negative entries"
ok "$(grep -q '^# Postfix: postmap hash:' "$T/export"; echo $?)" \
    "export: default header for a hash table"
tool export texthash >"$T/export.txt"
ok "$(grep -q 'texthash:' "$T/export.txt" &&
    [ "$(grep -v '^#' "$T/export.txt")" = "$(cat "$T/export.lines")" ]; echo $?)" \
    "export texthash: same lines, texthash header"
if command -v postmap >/dev/null 2>&1; then
	# A minimal main.cf of our own: Postfix >= 3.4 refuses lib.sh's
	# maillog_file = /dev/stderr unless maillog_file_prefixes allows it.
	PF_DIR="$T/postfix-cache"
	mkdir -p "$PF_DIR"
	echo "compatibility_level = 3.6" >"$PF_DIR/main.cf"
	cp "$T/export" "$T/fallback"
	postmap -c "$PF_DIR" "hash:$T/fallback" 2>"$T/postmap.err"
	ok $? "postmap builds the exported table ($(head -c 200 "$T/postmap.err"))"
	is "$(postmap -c "$PF_DIR" -q d0000011.fill.example "hash:$T/fallback")" \
	    "secure match=mx1.d0000011.fill.example:.d0000011.fill.example servername=hostname" \
	    "Postfix finds the policy in the hash table"
	is "$(postmap -c "$PF_DIR" -q D0000012.FILL.EXAMPLE "texthash:$T/export.txt")" \
	    "secure match=mx1.d0000012.fill.example:.d0000012.fill.example servername=hostname" \
	    "Postfix reads the texthash export as is"
	postmap -c "$PF_DIR" -q d0000016.fill.example "hash:$T/fallback"
	is $? 1 "Postfix finds no policy for an expired entry"
else
	for d in "postmap builds the table" "hash lookup" "texthash lookup" \
	    "expired entry"; do
		skip "$d" "postmap not installed"
	done
fi

# -- stats
tool stats >"$T/stats"
ok $? "stats exits 0"
ok "$(grep -q '^entries: 100$' "$T/stats" &&
    grep -q '^sts: 80 (enforce 70, testing 10, none 0)$' "$T/stats" &&
    grep -q '^dane: 10$' "$T/stats" && grep -q '^negative: 10$' "$T/stats" &&
    grep -q '^fresh: 90$' "$T/stats" && grep -q '^expired: 10$' "$T/stats" &&
    grep -q '^undecodable: 0$' "$T/stats" &&
    grep -q -E '^map_size: [0-9]+$' "$T/stats" &&
    grep -q -E '^pages_used: [0-9]+ of [0-9]+' "$T/stats"; echo $?)" \
    "stats: entry counts by kind and state, map size, pages used"

# -- an entry another format version wrote (raw LMDB, behind the cache)
if command -v mdb_load >/dev/null 2>&1; then
	# key "d0000005.fill.example", value: magic, version 2, ...
	printf 'VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n %s\n %s\nDATA=END\n' \
	    "$(printf d0000005.fill.example | od -An -tx1 | tr -d ' \n')" \
	    ca0202020000 | mdb_load -f /dev/stdin "$C" 2>"$T/load.err"
	ok $? "mdb_load writes a value of format version 2 ($(head -c 200 "$T/load.err"))"
	is "$(tool list | grep '^d0000005')" \
	    "d0000005.fill.example undecodable - - - - -" \
	    "list: shows an entry of another version as undecodable"
	tool show d0000005.fill.example >/dev/null 2>&1
	is $? 1 "show: such an entry is a miss"
	is "$(tool stats | grep '^undecodable:')" "undecodable: 1" "stats counts it"
else
	for d in "mdb_load" "list undecodable" "show undecodable" "stats undecodable"; do
		skip "$d" "mdb_load (lmdb-utils) not installed"
	done
fi

# -- purge
tool purge d0000001.fill.example
ok $? "purge exits 0"
tool show d0000001.fill.example >/dev/null 2>&1
is $? 1 "purge: the entry is gone"
is "$(tool list | wc -l | tr -d ' ')" 99 "purge: the others stay"
out=$(tool purge d0000001.fill.example 2>&1)
ok "$([ $? -eq 1 ] && echo "$out" | grep -q 'not in the cache'; echo $?)" \
    "purge: exit 1 for a domain not cached"
"$TOOL" -d "$T/nocache" purge x.example >/dev/null 2>&1
ok "$([ $? -eq 1 ] && [ ! -e "$T/nocache" ]; echo $?)" \
    "purge: no cache is created in a wrong directory"
"$TOOL" -d "$T/nocache" list >/dev/null 2>&1
ok "$([ $? -eq 1 ] && [ ! -e "$T/nocache" ]; echo $?)" \
    "list: exit 1 where there is no cache"

# -- while another process writes
"$FILL" -t "$NOW" "$C" 300000 >/dev/null 2>&1 &
fill_pid=$!
fails=0 rounds=0
while kill -0 "$fill_pid" 2>/dev/null && [ $rounds -lt 200 ]; do
	tool stats >/dev/null 2>&1 || fails=$((fails + 1))
	tool show d0000002.fill.example >/dev/null 2>&1 || fails=$((fails + 1))
	tool purge d0000004.fill.example >/dev/null 2>&1
	[ $? -le 1 ] || fails=$((fails + 1))
	rounds=$((rounds + 1))
done
wait "$fill_pid"
ok $? "a writer fills 300000 records while the tool reads and purges"
is "$fails" 0 "no tool run failed during the writes ($rounds rounds)"
ok "$(tool stats | grep -q -E '^entries: (299999|300000)$'; echo $?)" \
    "all the writer's records are there"

# -- purge-all
tool purge-all
ok $? "purge-all exits 0"
is "$(tool list | wc -l | tr -d ' ')" 0 "purge-all: nothing left"
is "$(tool stats | grep '^entries:')" "entries: 0" "stats: zero entries"

# -- usage
"$TOOL" -d "$C" >/dev/null 2>&1
is $? 2 "no command: usage, exit 2"
"$TOOL" -d "$C" frobnicate >/dev/null 2>&1
is $? 2 "unknown command: usage, exit 2"
"$TOOL" -d "$C" export cdb >/dev/null 2>&1
is $? 2 "export of an unknown table type: usage, exit 2"
"$TOOL" -d "$C" show >/dev/null 2>&1
is $? 2 "show without a domain: usage, exit 2"
printf 'cache { path = "%s" }\n' "$C" >"$T/cfg.conf"
is "$("$TOOL" -c "$T/cfg.conf" list | wc -l | tr -d ' ')" \
    "$(tool list | wc -l | tr -d ' ')" "-c: the cache path comes from the configuration"
out=$("$TOOL" -c "$T/missing.conf" list 2>&1)
ok "$([ $? -eq 1 ] && [ -n "$out" ]; echo $?)" "-c with a missing file: error, exit 1"
printf 'cache { refresh_interval = 0 }\n' >"$T/bad.conf"
out=$("$TOOL" -c "$T/bad.conf" list 2>&1)
ok "$([ $? -eq 1 ] && echo "$out" | grep -q 'refresh_interval'; echo $?)" \
    "-c with an invalid file: its error, exit 1"
printf 'cache { path = "%s/nowhere" }\n' "$T" >"$T/cfg2.conf"
"$TOOL" -c "$T/cfg2.conf" -d "$C" list >/dev/null 2>&1
is $? 0 "-d overrides the configuration's path"

done_testing
