# tests/e2e/lib.sh - shared helpers for the end-to-end tests (TAP output)
#
# Source it from a test script.  It gives:
#   plan N / ok COND DESC / is GOT WANT DESC / skip_all REASON / done_testing
#   daemon_start [EXTRA CONFIG LINES...]  start postsmtpsts -f in $T
#       with a unix listener $SOCK and an inet listener 127.0.0.1:$PORT
#   daemon_stop                            SIGTERM, wait, check exit 0
#   pq KEY [MAP] [unix|inet]               postmap -q through real Postfix
#   sm_raw BYTES                           send raw bytes, print the reply
#   wait_until TIMEOUT CMD...              poll CMD until it succeeds
# Every test runs in its own temp dir $T, removed at exit.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
DAEMON="$top_builddir/postsmtpsts/postsmtpsts"
SMCLIENT="$top_srcdir/tests/e2e/smclient.py"
# shellcheck disable=SC2034 # for the scripts: metrics text (fetch, get, ...)
PROM="python3 $top_srcdir/tests/e2e/promtext.py"

T=$(mktemp -d "${TMPDIR:-/tmp}/postsmtpsts-e2e.XXXXXX")
chmod 755 "$T"
SOCK="$T/socketmap"
CONF="$T/postsmtpsts.conf"
DAEMON_LOG="$T/daemon.log"
PID_FILE="$T/postsmtpsts.pid"
DAEMON_PID=
_tap_n=0
_tap_failed=0

# A port per test script, so scripts can run in parallel.
# Below the kernel's ephemeral range (32768+), skipping ports in use.
PORT=$(( 20000 + ( $$ % 10000 ) ))
while ss -Htln "sport = :$PORT" 2>/dev/null | grep -q .; do
	PORT=$(( PORT + 1 ))
done

_e2e_t0=$(date +%s)
_cleanup() {
	# the script's wall time, for tests/run-all's slowest-scripts list
	# (some scripts run under sh, which has no $SECONDS)
	echo "# e2e-seconds: $(($(date +%s) - _e2e_t0))"
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		kill -TERM "$DAEMON_PID" 2>/dev/null
		sleep 0.5
		kill -KILL "$DAEMON_PID" 2>/dev/null
	fi
	if [ "$_tap_failed" -ne 0 ] && [ -f "$DAEMON_LOG" ]; then
		echo "# --- daemon log (last 40 lines) ---"
		tail -n 40 "$DAEMON_LOG" | sed 's/^/# /'
	fi
	rm -rf "$T"
}
trap _cleanup EXIT

plan() { echo "1..$1"; }

# wait_until TIMEOUT CMD... - run CMD every $WAIT_STEP seconds (default
# 0.1) until it succeeds, for at most TIMEOUT seconds (decimals allowed).
# Returns 0 as soon as CMD succeeds; on timeout says so on stderr (the test
# log) and returns 1, and the test's next assertion reports what is wrong.
# One argument is a shell string, evaluated anew each time (conditions with
# $(...), pipes, ! or ||); more are a command and its arguments.  CMD runs
# in the test's own shell, so variables it sets stay set.
wait_until() {
	local _wu_timeout _wu_end
	_wu_timeout=$1
	shift
	_wu_end=$(( $(date +%s%N) / 1000000 +
	    $(awk -v t="$_wu_timeout" 'BEGIN { printf "%d", t * 1000 }') ))
	while :; do
		if [ $# -eq 1 ]; then
			eval "$1" && return 0
		else
			"$@" && return 0
		fi
		[ $(( $(date +%s%N) / 1000000 )) -lt "$_wu_end" ] || break
		sleep "${WAIT_STEP:-0.1}"
	done
	echo "# wait_until: still false after $_wu_timeout s: $*" >&2
	return 1
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

ok() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		# every line a TAP comment: a value of several lines (a client's
		# traceback, say) must not read as test lines
		printf '%s\n' "#   got:  '$1'" | sed '2,$s/^/#         /'
		printf '%s\n' "#   want: '$2'" | sed '2,$s/^/#         /'
	fi
}

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "$c not installed"
	done
}

# Postfix's own configuration for postmap: a private directory, so the
# tests never depend on (or touch) /etc/postfix.
PF_DIR="$T/postfix"
mkdir -p "$PF_DIR"
cat >"$PF_DIR/main.cf" <<PFEOF
compatibility_level = 3.6
maillog_file = /dev/stderr
maillog_file_prefixes = /var, /dev/stdout, /dev/stderr
PFEOF

# daemon_config [EXTRA LINES] - write the test configuration
daemon_config() {
	{
		echo "user = \"\""
		echo "pid_file = \"$PID_FILE\""
		echo "runtime_dir = \"$T\""
		echo "workers = ${WORKERS:-2}"
		# two resolver shards wherever the test does not say: the
		# sharded path everywhere, whatever the machine's cores
		echo "resolvers = ${RESOLVERS:-2}"
		echo "idle_timeout = ${IDLE_TIMEOUT:-30}"
		echo "verbose = 1"
		echo "listen \"unix:$SOCK\" { mode = \"0666\" }"
		echo "listen \"inet:127.0.0.1:$PORT\" { }"
		echo "cache { path = \"$T/cache\" ${CACHE_EXTRA:-}}"
		for line in "$@"; do
			echo "$line"
		done
	} >"$CONF"
}

# daemon_start [EXTRA LINES] - start in the foreground, wait for readiness
daemon_start() {
	daemon_config "$@"
	"$DAEMON" -f -c "$CONF" >"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	# Ready when Postfix gets a clean NOTFOUND for a key that needs no
	# lookup (a bracketed next hop); stop waiting if the daemon exits.
	# Probed once per try: tests count the probes (metrics.sh).
	_ready=no
	wait_until 15 'if daemon_ready; then _ready=yes; else
	    ! kill -0 "$DAEMON_PID" 2>/dev/null; fi'
	[ "$_ready" = yes ] && return 0
	echo "# daemon did not start:"
	sed 's/^/#   /' "$DAEMON_LOG"
	return 1
}

# daemon_ready - the daemon answers: Postfix gets a clean NOTFOUND for a
# key that needs no lookup (a bracketed next hop)
daemon_ready() {
	[ -S "$SOCK" ] || return 1
	_out=$(pq '[readiness.invalid]' 2>&1)
	[ $? -eq 1 ] && [ -z "$_out" ]
}

# daemon_stop - SIGTERM and wait; returns the daemon's exit status
daemon_stop() {
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID"
	_rc=$?
	DAEMON_PID=
	return $_rc
}

# worker_pid N - pid of front worker N (its latest incarnation)
worker_pid() {
	sed -n "s/.*debug: worker $1 started, pid \([0-9]*\).*/\1/p" \
	    "$DAEMON_LOG" | tail -n1
}

# worker_pids - pids of the daemon's children
worker_pids() {
	pgrep -P "$DAEMON_PID" | sort
}

# pq KEY [MAP] [unix|inet] - one lookup through Postfix's own client.
# Prints the value; exit 0 found, 1 not found, other = error.
pq() {
	_map=${2:-postfix}
	case "${3:-unix}" in
	unix) _tbl="socketmap:unix:$SOCK:$_map" ;;
	inet) _tbl="socketmap:inet:127.0.0.1:$PORT:$_map" ;;
	esac
	postmap -c "$PF_DIR" -q "$1" "$_tbl"
}

# free_port N - the first TCP port from N on that nothing listens on
free_port() {
	_fp=$1
	while ss -Htln "sport = :$_fp" 2>/dev/null | grep -q .; do
		_fp=$((_fp + 1))
	done
	echo "$_fp"
}

# sm - raw socketmap client (see smclient.py --help)
sm() {
	python3 "$SMCLIENT" "$@"
}

# log_mark - remember the end of the daemon log: discovery_line and
# wait_discovery look only at what comes after (the daemon keeps the file
# open: never rewrite it)
LOG_MARK=0
log_mark() { LOG_MARK=$(wc -l <"$DAEMON_LOG"); }
# discovery_line DOMAIN - the resolver's decision line since the mark
discovery_line() {
	tail -n "+$((LOG_MARK + 1))" "$DAEMON_LOG" |
		grep "domain=$1 refresh=request discovery=" | tail -n1
}
# wait_discovery DOMAIN - until the resolver logged the domain's discovery
wait_discovery() {
	local domain=$1
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ -n "$(discovery_line "$domain")" ]' && return 0
	echo "# no discovery logged for $1"
	return 1
}

# pq_expect DOMAIN EXPECT DESC - one lookup gives a catalogue answer
# (tests/world/cases.tsv): NOTFOUND, TEMP (postmap prints the TEMP reply
# as a warning and exits 1), or the policy.  A policy answer is asked
# again for up to 30 s: a discovery may outlast the deadline of a first
# round (dane-sts-tlsa-timeout: a TLSA lookup that times out).
pq_expect() {
	local domain=$1 expect=$2 desc=$3 out rc got
	out=$(pq "$domain" 2>&1)
	rc=$?
	case $expect in
	NOTFOUND) is "$rc:$out" "1:" "$desc" ;;
	TEMP)
		case $out in
		*"socketmap server temporary error"*) got=TEMP ;;
		*) got=$out ;;
		esac
		is "$rc:$got" "1:TEMP" "$desc" ;;
	*)
		if [ "$rc:$out" != "0:$expect" ]; then
			# shellcheck disable=SC2016 # wait_until evaluates it
			WAIT_STEP=0.5 wait_until 30 \
			    '[ "$(pq "$domain" 2>&1)" = "$expect" ]'
			out=$(pq "$domain" 2>&1)
			rc=$?
		fi
		is "$rc:$out" "0:$expect" "$desc" ;;
	esac
}

# --- the loopback test world (tests/world) ---------------------------------

# world_alive - the world's servers answer (DNS both, HTTPS port open)
world_alive() {
	[ -r "$WORLD_DIR/env.sh" ] || return 1
	(
		# shellcheck source=/dev/null
		. "$WORLD_DIR/env.sh"
		dig +time=1 +tries=1 +short @"$WORLD_NS_ADDR" SOA pstest. | grep -q . &&
		dig +time=1 +tries=1 +short @"$WORLD_RESOLVER_ADDR" SOA pstest. | grep -q . &&
		timeout 2 bash -c "exec 3<>/dev/tcp/$WORLD_HTTPS_ADDR/443" 2>/dev/null
	)
}

# world_up - make sure the world runs (start it once, shared by every test
# script; tests/run-all stops it at the end).  Skips the script if the
# world's components are not installed.
world_up() {
	need nsd unbound nginx ldns-signzone postfix
	WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}
	export WORLD_DIR
	mkdir -p "$(dirname "$WORLD_DIR")"
	(
		flock 9
		if ! world_alive; then
			# 200 bulk domains: tests/e2e/fleet.sh needs them
			WORLD_BULK=${WORLD_BULK:-200} \
			"$top_srcdir/tests/world/start" >"$T/world-start.log" 2>&1 9>&- || {
				echo "# world failed to start:"
				sed 's/^/#   /' "$T/world-start.log" | tail -n 30
				exit 1
			}
		fi
	) 9>"$WORLD_DIR.lock" || return 1
	# shellcheck source=/dev/null
	. "$WORLD_DIR/env.sh"
}

# world_daemon_lines - configuration lines that point the daemon at the world
world_daemon_lines() {
	printf '%s\n' \
		"dns { trust_anchor_file = \"$WORLD_TRUST_ANCHOR\" root_hints = \"$WORLD_ROOT_HINTS\" unbound_options = { \"do-not-query-localhost: no\" } }" \
		"https { ca_file = \"$WORLD_CA\" connect_timeout = 3 timeout = ${HTTPS_TIMEOUT:-4} }" \
		"request_timeout = ${REQUEST_TIMEOUT:-10}"
}

# tlsrpt_section LINE... - a postsmtpsts-tlsrpt section, on: the e2e
# reporter's identity (the world's sender.pstest), then each LINE
tlsrpt_section() {
	printf 'tlsrpt {\n\tenable = true\n'
	printf '\torganization_name = "postsmtpsts e2e"\n'
	printf '\tcontact_info = "mailto:postmaster@sender.pstest"\n'
	printf '\tsubmitter = "sender.pstest"\n'
	printf '\tsender = "tlsrpt-noreply@sender.pstest"\n'
	printf '\t%s\n' "$@"
	printf '}\n'
}
