#!/usr/bin/env bash
# tests/e2e/query-world.sh - postsmtpsts-query against the loopback world
#
# For every case of tests/world/cases.tsv, run postsmtpsts-query with the
# world's trust anchor, root hints and test CA, and compare the Postfix
# answer it prints ("answer: ...") with the catalogue's expect column
# (the reply data after "OK ", NOTFOUND, or TEMP for any "TEMP reason").
# TAP output; exit 77 (skip) when the world is not running.  Does not start
# or stop the world.  DANE cases included: the tool looks DANE up too.
#
# Environment: WORLD_DIR (default /tmp/postsmtpsts-world), WORLD_SRC (the
# tests/world directory, default $top_srcdir/tests/world), top_builddir
# (where postsmtpsts-query is), QUERY_TIMEOUT (seconds, default 5),
# QUERY_JOBS (cases run at once, default 4).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}
WORLD_SRC=${WORLD_SRC:-$top_srcdir/tests/world}
QUERY_TIMEOUT=${QUERY_TIMEOUT:-5}
QUERY_JOBS=${QUERY_JOBS:-4}
query=$top_builddir/postsmtpsts-query
cases=$WORLD_SRC/cases.tsv

skip() {
	echo "1..0 # SKIP $*"
	exit 77
}

[[ -x $query ]] || { echo "Bail out! $query not built"; exit 99; }
[[ -r $cases ]] || skip "no case catalogue at $cases"
[[ -r $WORLD_DIR/env.sh ]] ||
	skip "world not running ($WORLD_DIR/env.sh missing)"
# shellcheck source=/dev/null
. "$WORLD_DIR/env.sh"
for v in WORLD_TRUST_ANCHOR WORLD_ROOT_HINTS WORLD_CA; do
	[[ -n ${!v:-} && -r ${!v} ]] || skip "world env: $v unset or unreadable"
done
# the world's name server must answer, else it is stopped (or restarting)
if command -v dig >/dev/null && [[ -n ${WORLD_NS_ADDR:-} ]]; then
	dig +time=2 +tries=2 +norec "@$WORLD_NS_ADDR" . SOA >/dev/null 2>&1 ||
	    skip "world name server $WORLD_NS_ADDR does not answer"
fi

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# the data lines: no header, no comments, no blank lines
awk -F '\t' 'NR > 1 && !/^[[:space:]]*(#|$)/ { print $1 "\t" $2 "\t" $3 }' \
    "$cases" >"$tmp/cases"
n=$(wc -l <"$tmp/cases")
echo "1..$n"

# run_case I NAME DOMAIN - run one query, keep its output and status
run_case() {
	"$query" --trust-anchor "$WORLD_TRUST_ANCHOR" \
	    --root-hints "$WORLD_ROOT_HINTS" --ca-file "$WORLD_CA" \
	    --dns-timeout "$QUERY_TIMEOUT" --connect-timeout "$QUERY_TIMEOUT" \
	    --timeout "$QUERY_TIMEOUT" "$3" >"$tmp/$1.out" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
}

i=0
while IFS=$'\t' read -r name domain expect; do
	i=$((i + 1))
	run_case "$i" "$name" "$domain" &
	while (( $(jobs -rp | wc -l) >= QUERY_JOBS )); do
		wait -n
	done
done <"$tmp/cases"
wait

i=0
while IFS=$'\t' read -r name domain expect; do
	i=$((i + 1))
	got=$(sed -n 's/^answer: //p' "$tmp/$i.out")
	if [[ $expect == NOTFOUND ]]; then
		want=NOTFOUND
	elif [[ $expect == TEMP ]]; then
		want=TEMP
		[[ $got == "TEMP "* ]] && got=TEMP
	else
		want="OK $expect"
	fi
	# a NOTFOUND reached through a DNS deadline proves nothing: the world
	# (or the resolver) did not answer
	if grep -q '^detail: .*TXT: no answer before the deadline' \
	    "$tmp/$i.out"; then
		echo "not ok $i - $name # DNS timed out: is the world up?"
		echo "#   domain:   $domain"
	elif [[ $got == "$want" ]]; then
		echo "ok $i - $name"
	else
		echo "not ok $i - $name"
		echo "#   domain:   $domain"
		echo "#   expected: $want"
		echo "#   got:      ${got:-(no answer line)}" \
		    "(exit $(cat "$tmp/$i.rc"))"
		sed -n 's/^\(outcome\|detail\): /#   \1: /p' "$tmp/$i.out"
		sed 's/^/#   stderr: /' "$tmp/$i.err" | head -5
	fi
done <"$tmp/cases"
exit 0
