# shellcheck shell=bash
# lib.sh - helpers for the postsmtpsts loopback test world (source it, don't run it)
#
# Sourced by start, stop, check and sender, and meant to be sourced by e2e tests:
#
#   . tests/world/lib.sh
#   world_env                       # load $WORLD_DIR/env.sh written by start
#   world_cases | while IFS=$'\t' read -r name domain expect _; do ...; done
#   sender_start "socketmap:unix:/run/x.sock:postfix"
#   qid=$(sender_send user@deliver-ok.pstest)
#   sender_wait "$qid" 30           # prints sent / deferred / bounced / expired
#   sender_tls "$qid"               # prints Verified / Trusted / Untrusted / Anonymous
#   world_mx_count good deliver-ok.pstest
#
# Every function works with `set -eu`; functions that answer a question print the
# answer on stdout and use the exit status only for "could not find out".

WORLD_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}

# world_die MESSAGE... - print an error and exit (from scripts) with status 1
world_die() {
	echo "world: error: $*" >&2
	exit 1
}

# world_env - load the environment the running world exported
world_env() {
	[[ -r $WORLD_DIR/env.sh ]] ||
		world_die "$WORLD_DIR/env.sh missing: run tests/world/start first"
	# shellcheck source=/dev/null
	. "$WORLD_DIR/env.sh"
}

# world_table FILE - print the data lines of a tab-separated table: no header
# (line 1), no comments, no blank lines
world_table() {
	awk 'NR > 1 && !/^[[:space:]]*(#|$)/' "$1"
}

# world_cases - the data lines of the case catalogue (13 tab-separated fields:
# name domain expect description zone txt mx host cert http policy delivery rr)
world_cases() {
	world_table "$WORLD_SRC/cases.tsv"
}

# world_case NAME - the catalogue line of one case (exit 1 if unknown)
world_case() {
	world_cases | awk -F '\t' -v n="$1" '$1 == n { print; found = 1 }
		END { exit !found }'
}

# world_http_opt SPEC KEY - value of KEY=VALUE in an http column spec such as
# "status=404,ctype=text/html"; a bare KEY prints "yes"; nothing if absent
world_http_opt() {
	local spec=$1 key=$2 item
	local -a items
	[[ $spec == - ]] && return 0
	IFS=, read -ra items <<<"$spec"
	for item in "${items[@]}"; do
		if [[ $item == "$key" ]]; then
			echo yes
		elif [[ $item == "$key="* ]]; then
			echo "${item#*=}"
		fi
	done
}

# world_policy_body POLICY DOMAIN HTTPSPEC - the exact body the HTTPS server
# sends for a case: the policy file with {domain} replaced, CRLF line ends if
# eol=crlf, padded with extension lines up to pad=BYTES.
world_policy_body() {
	local policy=$1 domain=$2 spec=$3 pad eol
	pad=$(world_http_opt "$spec" pad)
	eol=$(world_http_opt "$spec" eol)
	{
		if [[ $policy != - ]]; then
			sed "s/{domain}/$domain/g" "$WORLD_SRC/policies/$policy"
		fi
		if [[ -n $pad ]]; then
			# RFC 8461 3.2 allows unknown "ext-name: value" lines, so the
			# padding keeps the policy valid: only its size is wrong.
			# 63 + newline = 64 bytes per line; the last line is cut to fit.
			local line
			line="x-padding: $(printf '%052d' 0)"
			yes "$line" | head -c "$pad"
		fi
	} | {
		if [[ $eol == crlf ]]; then sed 's/$/\r/'; else cat; fi
	} | {
		if [[ -n $pad ]]; then head -c "$pad"; else cat; fi
	}
}

# world_in_ns CMD [ARG...] - run CMD in a private mount namespace where
# /etc/resolv.conf is the world's (validating unbound, options trust-ad).
# Daemons started this way keep the namespace after CMD returns; nothing
# outside the namespace changes. Needs root (CAP_SYS_ADMIN).
world_in_ns() {
	[[ -n ${WORLD_RESOLV_CONF:-} ]] || world_env
	# --propagation private: the bind mount must not leak to the host.
	# shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
	unshare --mount --propagation private -- /bin/sh -c \
		'mount --bind "$0" /etc/resolv.conf && exec "$@"' \
		"$WORLD_RESOLV_CONF" "$@"
}

# world_mx_dir SERVER - the Maildir tree of an MX server (<domain>/<user>/)
world_mx_dir() {
	[[ -n ${WORLD_MX_SERVERS:-} ]] || world_env
	echo "$WORLD_DIR/mx/$1/mail"
}

# world_mx_count SERVER [DOMAIN] - number of messages SERVER has delivered
# (to DOMAIN only if given)
world_mx_count() {
	local dir
	dir=$(world_mx_dir "$1")${2:+/$2}
	if [[ -d $dir ]]; then
		find "$dir" -type f -path '*/new/*' | wc -l
	else
		echo 0
	fi
}

# ---------------------------------------------------------------------------
# The sending Postfix instance. It lives in $WORLD_SENDER_DIR (etc/ spool/
# data/), accepts mail on $WORLD_SENDER_ADDR:25 from 127/8, logs to
# $WORLD_SENDER_LOG, and runs in a private mount namespace whose
# /etc/resolv.conf points at the world's validating resolver, so its smtp(8)
# client finds the world's MX records with the AD bit (DANE-ready:
# smtp_dns_support_level = dnssec).

# sender_postfix ARG... - run postfix(1) for the sender instance
sender_postfix() {
	postfix -c "$WORLD_SENDER_DIR/etc" "$@"
}

# sender_master_pid - pid of the sender's master(8), exit 1 if not running
sender_master_pid() {
	local pid
	pid=$(tr -d ' \n' <"$WORLD_SENDER_DIR/spool/pid/master.pid" 2>/dev/null) || return 1
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# sender_stop - stop the sender instance if it runs (waits until it exited)
sender_stop() {
	[[ -n ${WORLD_SENDER_DIR:-} ]] || world_env
	local pid i
	pid=$(sender_master_pid) || return 0
	sender_postfix stop >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	world_die "sender master $pid did not stop"
}

# sender_start MAPS [PARAM=VALUE...] - (re)create and start the sender with
# smtp_tls_policy_maps = MAPS (e.g. socketmap:unix:/path/to/sock:postfix, or
# "" for none) and any extra main.cf settings. The log starts empty.
sender_start() {
	[[ $# -ge 1 ]] || world_die "usage: sender_start MAPS [PARAM=VALUE...]"
	local maps=$1 dir
	shift
	world_env
	sender_stop
	dir=$WORLD_SENDER_DIR
	rm -rf "$dir"
	mkdir -p "$dir/etc" "$dir/spool" "$dir/data"
	# Postfix insists on these owners: master.lock in data_directory is
	# created by the postfix user.
	chown postfix "$dir/data"
	: >"$WORLD_SENDER_LOG"
	cp "$WORLD_DIR/postfix/master.cf" "$dir/etc/master.cf"
	# The sender's own smtpd: master.cf binds it to one address (see start
	# for why inet_interfaces cannot name a 127.x address).
	# shellcheck disable=SC2153 # WORLD_SENDER_ADDR comes from env.sh
	sed -i "s/^smtp      inet/$WORLD_SENDER_ADDR:25 inet/" "$dir/etc/master.cf"
	cat >"$dir/etc/main.cf" <<-EOF
		# Generated by tests/world/lib.sh sender_start: the world's sending MTA.
		compatibility_level = 3.6
		queue_directory = $dir/spool
		data_directory = $dir/data
		myhostname = sender.pstest
		myorigin = sender.pstest
		mydestination =
		relayhost =
		alias_maps =
		alias_database =
		local_recipient_maps =
		inet_interfaces = loopback-only
		inet_protocols = ipv4
		mynetworks = 127.0.0.0/8
		smtpd_relay_restrictions = permit_mynetworks, reject
		biff = no
		syslog_name = sender
		maillog_file = $WORLD_SENDER_LOG
		maillog_file_prefixes = $WORLD_DIR
		# TLS client: the policy table under test, the world CA, log the
		# trust level of every session ("Verified TLS connection ...").
		smtp_tls_security_level = may
		smtp_tls_policy_maps = $maps
		smtp_tls_CAfile = $WORLD_CA
		smtp_tls_loglevel = 1
		smtp_tls_connection_reuse = no
		smtp_dns_support_level = dnssec
		smtp_address_preference = ipv4
		smtp_connect_timeout = 5s
		smtp_helo_timeout = 10s
		# Deferred mail waits for sender_flush instead of being retried on
		# its own in the middle of a test.
		minimal_backoff_time = 300s
		maximal_backoff_time = 600s
		queue_run_delay = 300s
		delay_warning_time = 0
	EOF
	local kv
	for kv in "$@"; do
		postconf -c "$dir/etc" -e "$kv"
	done
	world_in_ns postfix -c "$dir/etc" start >/dev/null 2>&1 || {
		tail -n 20 "$WORLD_SENDER_LOG" >&2
		world_die "sender postfix did not start (log: $WORLD_SENDER_LOG)"
	}
	# master -w returns once it is ready, but make sure smtpd answers.
	local i
	for ((i = 0; i < 50; i++)); do
		world_smtp_banner "$WORLD_SENDER_ADDR" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	world_die "sender smtpd on $WORLD_SENDER_ADDR:25 does not answer"
}

# sender_postconf PARAM=VALUE... - change the sender's main.cf and reload
sender_postconf() {
	world_env
	local kv
	for kv in "$@"; do
		postconf -c "$WORLD_SENDER_DIR/etc" -e "$kv"
	done
	sender_postfix reload >/dev/null 2>&1
}

# world_smtp_banner ADDR - print the 220 greeting of ADDR:25 (exit 1 if none)
world_smtp_banner() {
	local line
	exec 3<>"/dev/tcp/$1/25" || return 1
	IFS= read -r -t 5 line <&3 || line=
	printf 'QUIT\r\n' >&3 || true
	exec 3<&- 3>&-
	[[ $line == 220* ]] && echo "${line%$'\r'}"
}

# sender_send TO [FROM] [SUBJECT] - submit one message over SMTP to the
# sender's smtpd; prints its queue id
sender_send() {
	[[ $# -ge 1 ]] || world_die "usage: sender_send TO [FROM] [SUBJECT]"
	world_env
	local to=$1 from=${2:-tester@sender.pstest} subject=${3:-postsmtpsts world test} out qid
	out=$(swaks --server "$WORLD_SENDER_ADDR" --port 25 --helo sender.pstest \
		--from "$from" --to "$to" --header "Subject: $subject" \
		--body "test message for $to" 2>&1) ||
		world_die "swaks failed to submit to $to: $(tail -n 3 <<<"$out")"
	qid=$(sed -n 's/.*queued as \([0-9A-Za-z]*\).*/\1/p' <<<"$out" | tail -n 1)
	[[ -n $qid ]] || world_die "no queue id in the SMTP reply: $(tail -n 3 <<<"$out")"
	echo "$qid"
}

# sender_flush - attempt delivery of all deferred mail now
sender_flush() {
	world_env
	postqueue -c "$WORLD_SENDER_DIR/etc" -f
}

# sender_queue - the sender's queue listing (postqueue -p)
sender_queue() {
	world_env
	postqueue -c "$WORLD_SENDER_DIR/etc" -p
}

# sender_status QID [N] - the Nth (default: last) delivery status of QID so far:
# sent, deferred, bounced or expired; nothing if none yet
sender_status() {
	world_env
	grep -E " $1: to=<[^>]*>,.* status=[a-z]+" "$WORLD_SENDER_LOG" 2>/dev/null |
		sed 's/.* status=\([a-z]*\).*/\1/' |
		if [[ -n ${2:-} ]]; then sed -n "${2}p"; else tail -n 1; fi
}

# sender_wait QID [TIMEOUT] [N] - wait up to TIMEOUT seconds (default 30) for
# the Nth (default 1st) delivery attempt of QID; prints its status
# (sent/deferred/bounced/expired), exit 1 and prints "timeout" if none came
sender_wait() {
	local qid=$1 timeout=${2:-30} n=${3:-1} st i
	for ((i = 0; i < timeout * 10; i++)); do
		st=$(sender_status "$qid" "$n")
		if [[ -n $st ]]; then
			echo "$st"
			return 0
		fi
		sleep 0.1
	done
	echo timeout
	return 1
}

# sender_log_grep ERE - grep the sender's log (exit 1 if no line matches)
sender_log_grep() {
	world_env
	grep -E -- "$1" "$WORLD_SENDER_LOG"
}

# sender_log_qid QID - every log line about QID, plus the TLS lines of the
# smtp(8) process that handled it
sender_log_qid() {
	world_env
	local pids
	pids=$(grep -E " $1: to=" "$WORLD_SENDER_LOG" |
		sed -n 's/.*smtp\[\([0-9]*\)\]:.*/\1/p' | sort -u | paste -sd'|')
	grep -E -- " $1: |smtp\[(${pids:-none})\]: .*TLS" "$WORLD_SENDER_LOG"
}

# sender_tls QID - TLS trust of the last session that delivered or tried to
# deliver QID: Verified, Trusted, Untrusted or Anonymous; nothing if no TLS
# session was established (e.g. the certificate check failed, so the
# "... TLS connection established" line never came)
sender_tls() {
	world_env
	awk -v qid="$1" '
		match($0, /smtp\[[0-9]+\]/) {
			pid = substr($0, RSTART, RLENGTH)
			if ($0 ~ / TLS connection established to /) {
				for (i = 1; i <= NF; i++)
					if ($(i + 1) == "TLS" && $(i + 2) == "connection") {
						tls[pid] = $i
						break
					}
			} else if (index($0, " " qid ": to=") > 0) {
				last = (pid in tls) ? tls[pid] : ""
				delete tls[pid]
			}
		}
		END { if (last != "") print last }' "$WORLD_SENDER_LOG"
}
