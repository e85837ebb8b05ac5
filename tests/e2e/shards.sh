#!/bin/bash
# shards.sh - several resolver processes, each owning a shard of the domains
# (lib/ipc.h ipc_shard; DESIGN.md "Resolver shards"), in the loopback world:
#   - resolvers = 3: three resolver processes beside the workers, a socket
#     each (mode 0600) in runtime_dir;
#   - cold lookups of 60 bulk domains, each asked 4 times through both
#     workers at once: every answer is the domain's own policy, each policy
#     is fetched once, by the resolver that owns the domain (the one
#     ipc_shard names), and each resolver did part of the work;
#   - postsmtpsts-cache warm sends each domain of a list to its owner: one
#     fetch each, no domain discovered by two resolvers;
#   - kill -9 of one resolver: restarted as that shard; meanwhile the
#     others' new domains are answered with their policies, and the killed
#     one's domains are answered again once it is back;
#   - a reload that changes the count keeps it (a restart is needed) and
#     says so.
# Needs the world started with WORLD_BULK >= 160 (tests/run-all: 500).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"

TOOL="$top_builddir/postsmtpsts/postsmtpsts-cache"
SM_LOAD=$top_builddir/bench/sm-load
[ -x "$TOOL" ] || skip_all "postsmtpsts-cache not built"
[ -x "$SM_LOAD" ] || skip_all "bench/sm-load is not built"
need postmap python3 pgrep
world_up || exit 1
[ "${WORLD_BULK:-0}" -ge 160 ] ||
	skip_all "the world has WORLD_BULK=${WORLD_BULK:-0} bulk domains, this test needs 160"

# shard_of DOMAIN N - ipc_shard() of lib/ipc.c: 32-bit FNV-1a, high bits
shard_of() {
	python3 -c '
import sys
h = 2166136261
for c in sys.argv[1].encode():
    h = ((h ^ c) * 16777619) & 0xffffffff
print((h * int(sys.argv[2])) >> 32)' "$1" "$2"
}
sec() { echo "secure match=$1.mx.bulk.pstest servername=hostname"; }
# resolver_pid SHARD - the pid of resolver SHARD's latest incarnation
resolver_pid() {
	sed -n "s/.*debug: resolver $1 started, pid \([0-9]*\).*/\1/p" \
	    "$DAEMON_LOG" | tail -n1
}
# fetcher DOMAIN - the pids of the resolvers that fetched DOMAIN's policy
fetcher() {
	sed -n "s/.*postsmtpsts\/resolver\[\([0-9]*\)\]: .*https: host=mta-sts\.$1 .*/\1/p" \
	    "$DAEMON_LOG" | sort | tr '\n' ' '
}

RESOLVERS=3 daemon_start "$(world_daemon_lines)" "max_resolutions = 16" ||
	{ echo "Bail out! daemon did not start"; exit 1; }

# -- 1. the processes and their sockets
pids=
for s in 0 1 2; do
	pids="$pids $(resolver_pid $s)"
done
is "$(echo $pids | wc -w)" 3 "three resolvers started ($pids)"
is "$(worker_pids | wc -l)" 5 "two workers and three resolvers forked"
for s in 0 1 2; do
	f=$T/resolver.$s.sock
	[ "$s" = 0 ] && f=$T/resolver.sock
	is "$(stat -c %a "$f" 2>/dev/null)" 600 "resolver $s's socket $(basename "$f"), mode 0600"
done

# -- 2. cold lookups through both workers: each domain fetched once, by its
# resolver
K=$T/keys
for i in $(seq 101 160); do
	for _r in 1 2 3 4; do echo "b$i.bulk.pstest"; done
done | shuf >"$K"
"$SM_LOAD" -v -c 16 -n 240 -t 120 -K "$K" "unix:$SOCK" >"$T/cold.out" 2>&1
bad=0
for i in $(seq 101 160); do
	n=$(grep -c "^reply: OK $(sec "b$i")\$" "$T/cold.out")
	[ "$n" = 4 ] || { bad=$((bad + 1)); echo "# b$i: $n of 4 answers with its policy"; }
done
is "$bad" 0 "240 lookups of 60 new domains (4 each, 16 connections): all answered with their policies"
wrong=0 twice=0
declare -A did
for i in $(seq 101 160); do
	d=b$i.bulk.pstest
	f=$(fetcher "$d")
	[ "$(echo $f | wc -w)" = 1 ] || { twice=$((twice + 1)); echo "# $d fetched by: $f"; }
	owner=$(resolver_pid "$(shard_of "$d" 3)")
	[ "$(echo $f)" = "$owner" ] || { wrong=$((wrong + 1)); echo "# $d fetched by $f, owner $owner"; }
	did[$f]=1
done
is "$twice" 0 "each of the 60 policies fetched exactly once"
is "$wrong" 0 "each fetched by the resolver that owns the domain (ipc_shard)"
is "${#did[@]}" 3 "all three resolvers did part of the work"

# -- 3. postsmtpsts-cache warm routes each domain to its owner
seq 161 190 | sed 's/^/b/; s/$/.bulk.pstest/' >"$T/list"
"$TOOL" -c "$CONF" warm "$T/list" >"$T/warm.out" 2>&1
ok $? "warm through three resolvers: exit 0"
grep -q '^warm: 30 of 30 domains done.*: 30 policies found' "$T/warm.out"
ok $? "warm: 30 of 30 done, 30 policies found"
wrong=0
for i in $(seq 161 190); do
	d=b$i.bulk.pstest
	[ "$(echo $(fetcher "$d"))" = "$(resolver_pid "$(shard_of "$d" 3)")" ] ||
		{ wrong=$((wrong + 1)); echo "# $d fetched by $(fetcher "$d")"; }
done
is "$wrong" 0 "warm: each of the 30 fetched once, by its owner"

# -- 4. kill -9 of one resolver: only its domains wait for its restart
victim=$(resolver_pid 1)
mine= others=
for i in $(seq 191 230); do
	d=b$i.bulk.pstest
	if [ "$(shard_of "$d" 3)" = 1 ]; then mine="$mine $d"; else others="$others $d"; fi
done
kill -KILL "$victim"
# the others' new domains, while shard 1 is down or restarting
bad=0
for d in $(echo $others | cut -d' ' -f1-8); do
	[ "$(pq "$d")" = "$(sec "${d%%.*}")" ] || bad=$((bad + 1))
done
is "$bad" 0 "while resolver 1 restarts, 8 new domains of resolvers 0 and 2 answered with their policies"
wait_until 10 '[ -n "$(resolver_pid 1)" ] && [ "$(resolver_pid 1)" != "$victim" ]'
ok $? "resolver 1 restarted ($victim -> $(resolver_pid 1))"
grep -q "resolver 1 (pid $victim) killed by signal 9" "$DAEMON_LOG"
ok $? "the master logged resolver 1's death by its shard"
is "$(worker_pids | wc -l)" 5 "five children again"
d=$(echo $mine | cut -d' ' -f1)
WAIT_STEP=0.3 wait_until 15 '[ "$(pq "$d")" = "$(sec "${d%%.*}")" ]'
ok $? "a new domain of resolver 1 is answered with its policy again ($d)"
is "$(echo $(fetcher "$d"))" "$(resolver_pid 1)" "... fetched by the new resolver 1"

# -- 5. a reload cannot change the count
log_mark
RESOLVERS=2 daemon_config "$(world_daemon_lines)" "max_resolutions = 16"

kill -HUP "$DAEMON_PID"
wait_until 10 "grep -q 'resolvers changes need a restart: keeping 3' \"\$DAEMON_LOG\""
ok $? "SIGHUP with resolvers = 2: warned, three kept"
sleep 1
n=0
for s in 0 1 2; do
	p=$(resolver_pid $s)
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null && n=$((n + 1))
done
is "$n" 3 "three resolvers of the new generation run"
is "$(pq b101.bulk.pstest)" "$(sec b101)" "the cache still answers after the reload"

daemon_stop
ok $? "SIGTERM: exit status 0"
for s in 1 2; do
	ok "$([ ! -e "$T/resolver.$s.sock" ]; echo $?)" "resolver.$s.sock removed"
done
done_testing
