#!/bin/bash
# sandbox.sh - started as root, no process keeps root or can regain it:
# every process's ids and capability sets, no-new-privs, seccomp mode, the
# workers' limits, the unix listener's owner and mode, and lookups (pinned
# and discovered over the world's DNS and HTTPS) still answered.  That a
# worker cannot open an outbound socket is proven by test_sandbox (the
# filter in a forked child); here the filter must be in place (Seccomp: 2).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap pgrep
[ "$(id -u)" = 0 ] || skip_all "needs root (starts the daemon as root)"
RUN_USER=nobody
id -u "$RUN_USER" >/dev/null 2>&1 || skip_all "no user $RUN_USER"
RUN_UID=$(id -u "$RUN_USER")
RUN_GID=$(id -g "$RUN_USER")
world_up || { echo "Bail out! world did not start"; exit 1; }

# The daemon's user must reach the world's files (trust anchor, CA).
for f in "$WORLD_TRUST_ANCHOR" "$WORLD_ROOT_HINTS" "$WORLD_CA"; do
	setpriv --reuid="$RUN_UID" --regid="$RUN_GID" --clear-groups \
	    test -r "$f" || skip_all "$RUN_USER cannot read $f"
done

mapfile -t lines < <(world_daemon_lines)
daemon_config "${lines[@]}" 'domain "pinned.example" { level = "encrypt" }'
sed -i "s/^user = \"\"/user = \"$RUN_USER\"/" "$CONF"
sed -i "s|^listen \"unix:$SOCK\" { mode = \"0666\" }|listen \"unix:$SOCK\" { mode = \"0660\" owner = \"root\" group = \"$(id -gn "$RUN_USER")\" }|" "$CONF"
grep -q "user = \"$RUN_USER\"" "$CONF" || { echo "Bail out! config"; exit 1; }

# stderr through a pipe, as under systemd: a regular file as the log would
# (rightly) keep the workers' RLIMIT_FSIZE off.
mkfifo "$T/log.fifo"
cat "$T/log.fifo" >"$DAEMON_LOG" &
"$DAEMON" -f -c "$CONF" 2>"$T/log.fifo" &
DAEMON_PID=$!
# ready: the children started and Postfix gets NOTFOUND for a key that
# needs no lookup; stop waiting if the daemon exits
sandbox_ready() {
	[ -S "$SOCK" ] && [ "$(pgrep -P "$DAEMON_PID" | wc -l)" -ge 3 ] || return 1
	pq '[readiness.invalid]' >/dev/null 2>&1
	[ $? -eq 1 ]
}
wait_until 10 'sandbox_ready || ! kill -0 "$DAEMON_PID" 2>/dev/null'
kill -0 "$DAEMON_PID" 2>/dev/null ||
	{ echo "Bail out! daemon did not start"; sed 's/^/# /' "$DAEMON_LOG"; exit 1; }

# status_field PID NAME - a line of /proc/PID/status without its name
status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" | tr -s '\t ' ' ' | sed 's/ $//'
}

seccomp=0
grep -q '^#define HAVE_SECCOMP 1' "$top_builddir/autoconf.h" && seccomp=1

resolvers=$(sed -n 's/.*debug: resolver [0-9]* started, pid \([0-9]*\).*/\1/p' \
    "$DAEMON_LOG" | tr '\n' ' ')
is "$(echo "$resolvers" | wc -w)" "2" "two resolvers ($resolvers)"
workers=$(pgrep -P "$DAEMON_PID" | grep -vxF "$(echo $resolvers | tr ' ' '\n')" |
    tr '\n' ' ')
is "$(echo "$workers" | wc -w)" "2" "two workers besides the resolvers ($resolvers)"

for pid in "$DAEMON_PID" $workers $resolvers; do
	case " $resolvers " in
	*" $pid "*) kind=resolver ;;
	*) kind=worker ;;
	esac
	[ "$pid" = "$DAEMON_PID" ] && kind=master
	is "$(status_field "$pid" Uid)" "$RUN_UID $RUN_UID $RUN_UID $RUN_UID" \
	    "$kind $pid: real, effective, saved and fs uid are $RUN_USER"
	is "$(status_field "$pid" Gid)" "$RUN_GID $RUN_GID $RUN_GID $RUN_GID" \
	    "$kind $pid: every gid is $RUN_USER's group"
	is "$(status_field "$pid" Groups)" "$RUN_GID" \
	    "$kind $pid: no supplementary group but its own"
	for cap in CapInh CapPrm CapEff CapAmb; do
		is "$(status_field "$pid" $cap)" "0000000000000000" \
		    "$kind $pid: $cap empty"
	done
	is "$(status_field "$pid" NoNewPrivs)" "1" "$kind $pid: no new privileges"
	if [ "$kind" != master ] && [ $seccomp = 1 ]; then
		is "$(status_field "$pid" Seccomp)" "2" "$kind $pid: seccomp filter"
	fi
	is "$(awk '$1 == "Max" && $2 == "core" { print $5, $6 }' \
	    "/proc/$pid/limits")" "0 0" "$kind $pid: no core files"
done

for pid in $workers; do
	is "$(awk '$1 == "Max" && $2 == "processes" { print $3, $4 }' \
	    "/proc/$pid/limits")" "0 0" "worker $pid: RLIMIT_NPROC 0"
	is "$(awk '$1 == "Max" && $2 == "file" && $3 == "size" { print $4, $5 }' \
	    "/proc/$pid/limits")" "0 0" "worker $pid: RLIMIT_FSIZE 0"
done

# The unix listener: created with the configured owner, group and mode.
is "$(stat -c '%U %G %a' "$SOCK")" "root $(id -gn "$RUN_USER") 660" \
    "unix listener has the configured owner, group and mode"

# Lookups still work: pinned, and discovered over DNS + HTTPS by the
# sandboxed resolver, answered by a sandboxed worker (twice: the second
# from the worker's read-only cache).
is "$(pq pinned.example)" "encrypt" "pinned lookup answered"
want="secure match=mx1.enforce.pstest servername=hostname"
got=
WAIT_STEP=1 wait_until 2 'got=$(pq enforce.pstest 2>/dev/null) && [ "$got" = "$want" ]'
is "$got" "$want" "discovered MTA-STS policy answered"
is "$(pq enforce.pstest 2>/dev/null)" "$want" "answered again (cache)"
ok "$([ -z "$(find "$T/cache" ! -user "$RUN_USER" 2>/dev/null)" ] &&
    [ -d "$T/cache" ]; echo $?)" "cache files owned by $RUN_USER"
# The sandboxed resolver, as the daemon's user, writes the history file
# beside the cache (cache.history_file's default), mode 0640.
is "$(stat -c '%U %a' "$T/history.log" 2>&1)" "$RUN_USER 640" \
    "history file created by the resolver as $RUN_USER, mode 0640"
ok "$(grep -q '"domain":"enforce.pstest","event":"first-seen"' \
    "$T/history.log"; echo $?)" "history file: enforce.pstest first-seen"

# Every process still alive: no restriction killed one.
for pid in $workers $resolvers; do
	ok "$(kill -0 "$pid" 2>/dev/null; echo $?)" "process $pid still running"
done
ok "$(grep -c 'killed by signal' "$DAEMON_LOG" | grep -qx 0; echo $?)" \
    "no child died"

daemon_stop
ok $? "SIGTERM: exit status 0"
done_testing
