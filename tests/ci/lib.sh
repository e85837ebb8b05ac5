# tests/ci/lib.sh - shared by every tests/ci/*.sh: counting and the summary
#
# Source it first thing:  . "$(dirname "$0")/lib.sh"
# It sets $top (the top source directory) and cd's there, and gives
#   check DESC STATUS   one result: "ok: DESC" if STATUS is 0, else
#                       "FAILED: DESC"; counted in $pass / $fail
#   skip_check DESC     one result not run, counted in $skip
#   finish              print the summary line tests/run-all adds up,
#                       "N passed, N failed[, N skipped]", and exit,
#                       non-zero if anything failed
#   abort DESC          check DESC 1, then finish (a step the rest needs)
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
pass=0 fail=0 skip=0

check() {
	if [ "$2" -eq 0 ]; then
		echo "ok: $1"; pass=$((pass + 1))
	else
		echo "FAILED: $1"; fail=$((fail + 1))
	fi
}

skip_check() {
	echo "skipped: $1"; skip=$((skip + 1))
}

finish() {
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
	exit $?
}

abort() {
	check "$1" 1
	finish
}
