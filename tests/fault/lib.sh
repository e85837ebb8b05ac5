# tests/fault/lib.sh - what the network fault cases share (dns-server.sh,
# redis.sh, redis-readonly.sh), sourced after tests/e2e/lib.sh.  The
# caller sets FDC (fdclient.py), CACHED and CACHED_ANSWER, and defines
# fresh() (the next never-seen domain in D).

# ms - the wall clock in milliseconds
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# burst WHAT EXPECT MS - 8 never-seen domains at once, each asked once
# over the socketmap protocol (fdclient.py ask: postmap would add
# Postfix's own retry a second after a TEMP); each reply must be EXPECT
# (reply=OK, reply=TEMP, reply=NOTFOUND, a glob) and come within MS
burst() {
	local i pids=() dt bad=0 slow=0 max=0 out d
	for i in 1 2 3 4 5 6 7 8; do
		fresh
		( echo "$D $($FDC ask "$SOCK" postfix "$D")" >"$T/burst.$i" ) &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in 1 2 3 4 5 6 7 8; do
		read -r d out <"$T/burst.$i"
		dt=${out##*ms=}
		out=${out% ms=*}
		# shellcheck disable=SC2254 # EXPECT is a glob
		case $out in $2) ;; *) bad=$((bad + 1)); echo "# $1: $d: $out" ;; esac
		[ "$dt" -gt "$max" ] && max=$dt
		[ "$dt" -ge "$3" ] && { slow=$((slow + 1)); echo "# $1: $d in $dt ms: $out"; }
	done
	is "$bad" 0 "$1: 8 new domains, every reply $2"
	ok "$(( slow == 0 ? 0 : 1 ))" "$1: the slowest in $max ms (< $3)"
}
# cached WHAT - the domain cached before the faults answered from the cache
cached() {
	local t0 out dt
	t0=$(ms)
	out=$(timeout 10 postmap -c "$PF_DIR" -q "$CACHED" "socketmap:unix:$SOCK:postfix" 2>&1)
	dt=$(( $(ms) - t0 ))
	is "$out" "$CACHED_ANSWER" "$1: $CACHED answered from the cache"
	ok "$(( dt < 500 ? 0 : 1 ))" "$1: ... in $dt ms (< 500)"
}
