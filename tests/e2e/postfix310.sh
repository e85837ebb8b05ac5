#!/bin/bash
# postfix310.sh - both maps through both Postfix versions (issue 29): real
# deliveries through Postfix >= 3.10 on the map with the TLSRPT attributes
# (tlsrpt = true) and through the system's Postfix 3.7 on the plain map.
#
# Postfix 3.10 reads the attributes policy_type=sts, policy_domain,
# mx_host_pattern and { policy_string = ... } after "secure" or "may"
# (3.10.5 and later need them to enforce the policy's mx patterns exactly:
# smtp_tls_enforce_sts_mx_patterns, set here where Postfix knows it), and
# 3.10.0 to 3.10.4 crashed on policy_type=sts without policy_string or
# mx_host_pattern; Postfix before 3.10 refuses them all.  So:
#
#   1. every answer form, by map: the plain map carries no attribute; the
#      tlsrpt map carries them, whole, on STS answers only (enforce, enforce
#      with a wildcard-only policy, testing as "may"); DANE answers and
#      NOTFOUND carry none; the 43 KB big-policy gets its policy without
#      them (they would pass Postfix's 100000 bytes);
#   2. Postfix >= 3.10 (the system's if it is that new, else Debian 12's
#      bookworm-backports package, unpacked into a prefix of its own: the
#      other tests need the system's 3.7) delivers through the tlsrpt map:
#      every catalogue delivery as the catalogue says, its smtp(8) logged
#      each answer with its attributes (smtp -v: maps_find), and not one
#      warning about the policy (malformed, invalid, unexpected attribute)
#      nor a crashed process;
#   3. Postfix 3.7 delivers the same through the plain map, and its smtp(8)
#      got none of the attributes;
#   4. control: Postfix 3.7 on the tlsrpt map refuses the attributes and
#      defers the mail (client TLS configuration problem), so the checks of
#      2 would have seen a Postfix that did not accept them.
#
# Skips only when no Postfix >= 3.10 can be had: contrib/install-deps.sh
# --test downloads the backports package into /var/cache/postsmtpsts-tests
# (POSTFIX310_DEB names another .deb).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/lib.sh"
need postmap postfix postconf swaks flock dpkg-deb
PF310_CACHE=/var/cache/postsmtpsts-tests

# version_ge A B - Postfix version A (3.10.3) is at least B
version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

# Postfix >= 3.10: the system's, else the .deb unpacked under $T/pf310.
sys_version=$(postconf -dh mail_version 2>/dev/null)
PF310_ROOT=
if version_ge "$sys_version" 3.10; then
	PF310_ROOT=/
else
	deb=${POSTFIX310_DEB:-}
	if [ -z "$deb" ]; then
		deb=$(ls "$PF310_CACHE"/postfix_3.1[0-9]*.deb 2>/dev/null |
		    sort -V | tail -n 1)
	fi
	if [ -z "$deb" ] && apt-cache policy postfix 2>/dev/null |
	    grep -q 'bookworm-backports'; then
		mkdir -p "$T/deb" && chown _apt "$T/deb" 2>/dev/null
		(cd "$T/deb" && apt-get download -q postfix/bookworm-backports) \
		    >/dev/null 2>&1
		deb=$(ls "$T"/deb/postfix_3.1[0-9]*.deb 2>/dev/null | tail -n 1)
	fi
	[ -n "$deb" ] && [ -r "$deb" ] ||
		skip_all "no Postfix >= 3.10 (system: $sys_version; contrib/install-deps.sh --test downloads it)"
	dpkg-deb -x "$deb" "$T/pf310" ||
		{ echo "Bail out! cannot unpack $deb"; exit 1; }
	# no set-id bits: a set-gid postdrop or postqueue would ignore
	# LD_LIBRARY_PATH and load the system's libpostfix-*.so
	chmod -R u-s,g-s "$T/pf310"
	PF310_ROOT=$T/pf310
fi
world_up || { echo "Bail out! world did not start"; exit 1; }
# shellcheck source=../world/lib.sh
. "$top_srcdir/tests/world/lib.sh"

# pf_env ROOT - the environment a Postfix under ROOT runs in: its own
# libpostfix-*.so (the binaries' RUNPATH names /usr/lib/postfix, 3.7's)
pf_env() {
	if [ "$1" = / ]; then
		echo "PF_ENV_NONE=1"
	else
		echo "LD_LIBRARY_PATH=$1/usr/lib/postfix"
	fi
}

# pf ROOT PROGRAM ARG... - run a Postfix command of the installation ROOT
pf() {
	local root=$1 prog=$2
	shift 2
	if [ "$root" = / ]; then
		"$prog" "$@"
	else
		env "$(pf_env "$root")" "$root/usr/sbin/$prog" "$@"
	fi
}

PF310_VERSION=$(pf "$PF310_ROOT" postconf -dh mail_version 2>/dev/null)
echo "# Postfix >= 3.10: $PF310_VERSION (${PF310_ROOT}), system: $sys_version"
version_ge "$PF310_VERSION" 3.10
ok $? "Postfix $PF310_VERSION runs from its prefix (libpostfix of its own)"

# The world's sender lock (tests/e2e/deliver.sh's): deliveries to the same
# MX mailboxes one test at a time, since both count the messages there;
# and the instances' addresses are fixed.
exec 8>"$WORLD_DIR.sender.lock"
flock -w 300 8 || { echo "Bail out! world's senders busy for 300 s"; exit 1; }

# The instances: NAME -> directory, address, installation
declare -A inst_dir inst_addr inst_root
inst_dir[new]=$T/i310 inst_addr[new]=$(world_net_addr 127.0.26.10)
inst_root[new]=$PF310_ROOT
inst_dir[old]=$T/i37 inst_addr[old]=$(world_net_addr 127.0.26.11)
inst_root[old]=/

# inst_master NAME - pid of the instance's master(8), exit 1 if none
inst_master() {
	local pid
	pid=$(tr -dc '0-9' 2>/dev/null <"${inst_dir[$1]}/spool/pid/master.pid") ||
		return 1
	[ -n "$pid" ] && world_pid_is "$pid" master && echo "$pid"
}

# inst_stop NAME - stop the instance if it runs
inst_stop() {
	local pid i
	pid=$(inst_master "$1") || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		world_pid_is "$pid" master || return 0
		sleep 0.1
	done
	return 1
}

# inst_start NAME MAPS [PARAM=VALUE...] - (re)create and start an instance
# like the world's sender (lib.sh sender_start), with its smtpd on its own
# address, smtp(8) verbose (its maps_find lines show each answer), and
# Postfix's own directories when it is not the system's
inst_start() {
	local name=$1 maps=$2 dir root kv i
	shift 2
	dir=${inst_dir[$name]} root=${inst_root[$name]}
	inst_stop "$name"
	rm -rf "$dir"
	world_postfix_instance "$dir"
	: >"$dir/maillog"
	sed -e "s/^smtp      inet/${inst_addr[$name]}:25 inet/" \
	    -e 's/^\(smtp      unix .*smtp\)$/\1 -v/' \
	    "$WORLD_DIR/postfix/master.cf" >"$dir/etc/master.cf"
	{
		echo "compatibility_level = 3.6"
		echo "queue_directory = $dir/spool"
		echo "data_directory = $dir/data"
		if [ "$root" != / ]; then
			echo "command_directory = $root/usr/sbin"
			echo "daemon_directory = $root/usr/lib/postfix/sbin"
			echo "shlib_directory = $root/usr/lib/postfix"
			echo "meta_directory = $root/etc/postfix"
			# master(8) passes only these to its children
			echo "import_environment = MAIL_CONFIG MAIL_DEBUG" \
			    "MAIL_LOGTAG TZ LANG=C POSTLOG_SERVICE" \
			    "POSTLOG_HOSTNAME $(pf_env "$root")"
		fi
		echo "myhostname = $name.sender.pstest"
		echo "myorigin = sender.pstest"
		echo "mydestination ="
		echo "relayhost ="
		echo "alias_maps ="
		echo "alias_database ="
		echo "local_recipient_maps ="
		echo "inet_interfaces = loopback-only"
		echo "inet_protocols = ipv4"
		echo "mynetworks = 127.0.0.0/8"
		echo "smtpd_relay_restrictions = permit_mynetworks, reject"
		echo "biff = no"
		echo "syslog_name = pf-$name"
		echo "maillog_file = $dir/maillog"
		echo "maillog_file_prefixes = $dir"
		echo "smtp_tls_security_level = may"
		echo "smtp_tls_policy_maps = $maps"
		echo "smtp_tls_CAfile = $WORLD_CA"
		echo "smtp_tls_loglevel = 1"
		echo "smtp_tls_connection_reuse = no"
		echo "smtp_dns_support_level = dnssec"
		echo "smtp_address_preference = ipv4"
		echo "smtp_connect_timeout = 5s"
		echo "smtp_helo_timeout = 10s"
		echo "minimal_backoff_time = 300s"
		echo "maximal_backoff_time = 600s"
		echo "queue_run_delay = 300s"
		echo "delay_warning_time = 0"
		for kv in "$@"; do
			echo "$kv"
		done
	} >"$dir/etc/main.cf"
	chmod -R a+rX "$dir/etc"
	world_postfix_cool "$dir/etc"
	if ! env "$(pf_env "$root")" "$WORLD_SRC/in-world" \
	    "$([ "$root" = / ] && echo postfix || echo "$root/usr/sbin/postfix")" \
	    -c "$dir/etc" start >"$dir/start.log" 2>&1; then
		echo "# $name: postfix start failed:"
		sed 's/^/#   /' "$dir/start.log" "$dir/maillog" | tail -n 20
		return 1
	fi
	for ((i = 0; i < 50; i++)); do
		world_smtp_banner "${inst_addr[$name]}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "# $name: no smtpd on ${inst_addr[$name]}:25"
	return 1
}

# inst_send NAME TO - submit one message; prints its queue id
inst_send() {
	local out
	out=$(swaks --server "${inst_addr[$1]}" --port 25 --helo sender.pstest \
	    --from tester@sender.pstest --to "$2" \
	    --header "Subject: postfix310.sh" --body "test for $2" 2>&1) ||
		return 1
	sed -n 's/.* queued as \([0-9A-Za-z]*\).*/\1/p' <<<"$out" | tail -n 1
}

# inst_status NAME QID - the first delivery status of QID so far
inst_status() {
	grep -E " $2: to=<[^>]*>,.* status=[a-z]+" "${inst_dir[$1]}/maillog" |
		sed 's/.* status=\([a-z]*\).*/\1/' | head -n 1
}

# inst_wait NAME QID - wait up to 30 s for the first delivery status
inst_wait() {
	local st i
	for ((i = 0; i < 300; i++)); do
		st=$(inst_status "$1" "$2")
		[ -n "$st" ] && { echo "$st"; return 0; }
		sleep 0.1
	done
	echo timeout
	return 1
}

# inst_answer NAME DOMAIN - the answer the instance's smtp(8) got for
# DOMAIN, as maps_find logs it (its first 100 bytes, "..." if longer)
inst_answer() {
	sed -n "s/.*maps_find: smtp_tls_policy_maps: socketmap:[^ ]*: $2 = //p" \
	    "${inst_dir[$1]}/maillog" | head -n 1
}

# policy_trouble NAME - the log lines that say Postfix did not take an
# answer, or that a process crashed: warnings and errors only ("-v" logs
# every attribute value, and a catalogue domain may be named
# dane-malformed.pstest), the word not inside a name
policy_trouble() {
	grep -E '(warning|error): .*((^|[^-.[:alnum:]])malformed|invalid attribute|unexpected attribute|has an unexpected value|specified multiple times|invalid security level|policy table lookup error|client TLS configuration problem|TLSRPT)|killed by signal|terminated with signal|fatal:|panic:' \
	    "${inst_dir[$1]}/maillog"
}

# POSTFIX310_LOGS=DIR keeps the instances' logs (DIR/new.maillog,
# DIR/old.maillog; the control run's log replaces old's)
_pf310_cleanup() {
	inst_stop new >/dev/null 2>&1
	inst_stop old >/dev/null 2>&1
	if [ -n "${POSTFIX310_LOGS:-}" ]; then
		mkdir -p "$POSTFIX310_LOGS"
		cp "${inst_dir[new]}/maillog" "$POSTFIX310_LOGS/new.maillog"
		cp "${inst_dir[old]}/maillog" "$POSTFIX310_LOGS/old.maillog"
		cp "$DAEMON_LOG" "$POSTFIX310_LOGS/daemon.log"
	fi 2>/dev/null
	_cleanup
}
trap _pf310_cleanup EXIT

# Both maps: plain for Postfix < 3.10, tlsrpt for >= 3.10 (testing as
# "may" there, the one testing answer that carries attributes).
mapfile -t lines < <(world_daemon_lines)
daemon_start "${lines[@]}" 'map "postfix" { }' \
    'map "postfix310" { tlsrpt = true testing_answer = "may" }' ||
	{ echo "Bail out! daemon did not start"; exit 1; }

dane_cases=$(world_cases | awk -F '\t' '$1 ~ /^dane-/ && $12 != "-" { print $1 }' |
	tr '\n' ' ')
# big-policy: no delivery column (its answer is too long for one), but its
# MX is the good server: delivered, Verified
cases="deliver-ok deliver-wild deliver-badcert deliver-testing nostarttls big-policy $dane_cases"

# delivery NAME - what the catalogue says a delivery must get
delivery() {
	if [ "$1" = big-policy ]; then
		echo sent:Verified
	else
		world_case_field "$1" 12
	fi
}

# 1. Every answer form on both maps (Postfix 3.7's postmap; it only prints).
declare -A plain rpt
for c in $cases; do
	d=$(world_case_field "$c" 2)
	want=$(world_case_field "$c" 3)
	if [ "$want" != NOTFOUND ] && [ "$want" != - ]; then
		WAIT_STEP=0.5 wait_until 30 '[ "$(pq "$d" postfix inet 2>&1)" = "$want" ]'
	elif [ "$want" = - ]; then
		WAIT_STEP=0.5 wait_until 30 '[[ "$(pq "$d" postfix inet 2>&1)" == secure* ]]'
	fi
	plain[$c]=$(pq "$d" postfix inet 2>&1)
	rpt[$c]=$(pq "$d" postfix310 inet 2>&1)
	case ${plain[$c]} in
	*policy_type* | *policy_string* | *mx_host_pattern* | *policy_domain*)
		ok 1 "$c: plain map answer carries no TLSRPT attribute" ;;
	*) ok 0 "$c: plain map answer carries no TLSRPT attribute" ;;
	esac
	case $c:$want in
	big-policy:*)
		is "${rpt[$c]}" "${plain[$c]}" \
		    "$c: tlsrpt map: the policy without any attribute (${#plain[$c]} bytes)"
		;;
	deliver-testing:*)
		case ${rpt[$c]} in
		"may policy_type=sts policy_domain=$d mx_host_pattern="*"{ policy_string = mode: testing }"*)
			ok 0 "$c: tlsrpt map: may with policy_type=sts, mx_host_pattern, policy_string" ;;
		*) ok 1 "$c: tlsrpt map: may with the attributes"
		   echo "#   got: '${rpt[$c]}'" ;;
		esac
		;;
	*:secure*)
		case ${rpt[$c]} in
		"$want policy_type=sts policy_domain=$d mx_host_pattern="*"{ policy_string = mode: enforce }"*)
			ok 0 "$c: tlsrpt map: '$want' with policy_type=sts, mx_host_pattern, policy_string" ;;
		*) ok 1 "$c: tlsrpt map: '$want' with the attributes"
		   echo "#   got: '${rpt[$c]}'" ;;
		esac
		;;
	*)
		is "${rpt[$c]}" "${plain[$c]}" "$c: tlsrpt map: '${plain[$c]}' as the plain map, no attribute"
		;;
	esac
done
# wildcard-only: the pattern as Postfix's match= and as the policy's
case ${rpt[deliver-wild]} in
"secure match=.mail.deliver-wild.pstest servername=hostname policy_type=sts policy_domain=deliver-wild.pstest mx_host_pattern=*.mail.deliver-wild.pstest {"*)
	ok 0 "deliver-wild: the wildcard as match=.mail... and mx_host_pattern=*.mail..." ;;
*) ok 1 "deliver-wild: the wildcard as match=.mail... and mx_host_pattern=*.mail..." ;;
esac
grep -q "domain=big-policy.pstest map=postfix310 tlsrpt=dropped" "$DAEMON_LOG"
ok $? "big-policy: the daemon says the attributes were left out"

# deliver_all NAME - submit every case through instance NAME, then check
# each status against the catalogue and the MX's mailbox
deliver_all() {
	local name=$1 c d want st n
	declare -A qid before server
	for c in $cases; do
		d=$(world_case_field "$c" 2)
		server[$c]=$(world_case_mx_server "$c")
		before[$c]=$(world_mx_count "${server[$c]}" "$d")
		qid[$c]=$(inst_send "$name" "user@$d") || qid[$c]=
		[ -n "${qid[$c]}" ]
		ok $? "$name: $c submitted (${qid[$c]})"
	done
	for c in $cases; do
		d=$(world_case_field "$c" 2)
		want=$(delivery "$c")
		st=$(inst_wait "$name" "${qid[$c]}")
		is "$st" "${want%%:*}" "$name: $c: ${want%%:*}"
		if [ "${want%%:*}" = sent ]; then
			wait_until 10 'n=$(world_mx_count "${server[$c]}" "$d"); [ "$n" -gt "${before[$c]}" ]'
			n=$(world_mx_count "${server[$c]}" "$d")
			is "$n" $((before[$c] + 1)) "$name: $c: MX ${server[$c]} received it"
		fi
	done
}

# 2. Postfix >= 3.10 on the tlsrpt map.
extra=()
if pf "$PF310_ROOT" postconf -d 2>/dev/null | grep -q '^smtp_tls_enforce_sts_mx_patterns '; then
	extra=(smtp_tls_enforce_sts_mx_patterns=yes)
	echo "# $PF310_VERSION: smtp_tls_enforce_sts_mx_patterns = yes"
else
	echo "# $PF310_VERSION has no smtp_tls_enforce_sts_mx_patterns (3.10.5 and later): the attributes are parsed, not enforced"
fi
inst_start new "socketmap:inet:127.0.0.1:$PORT:postfix310" "${extra[@]}"
ok $? "Postfix $PF310_VERSION started on the tlsrpt map"
# postlogd writes the line a moment later
wait_until 10 grep -q "daemon started -- version $PF310_VERSION," "${inst_dir[new]}/maillog"
ok $? "new: its master(8) says version $PF310_VERSION"
deliver_all new
for c in $cases; do
	d=$(world_case_field "$c" 2)
	got=$(inst_answer new "$d")
	want=${rpt[$c]}
	[ ${#want} -gt 100 ] && want="${want:0:100}..."
	is "$got" "$want" "new: $c: smtp(8) got the tlsrpt map's answer"
done
grep -q 'maps_find: .*policy_type=sts' "${inst_dir[new]}/maillog"
ok $? "new: smtp(8) logged answers with policy_type=sts"
trouble=$(policy_trouble new)
is "$trouble" "" "new: Postfix $PF310_VERSION took every answer: no policy warning, no crash"

# 3. Postfix 3.7 on the plain map.
inst_start old "socketmap:inet:127.0.0.1:$PORT:postfix"
ok $? "Postfix $sys_version started on the plain map"
wait_until 10 grep -q "daemon started -- version $sys_version," "${inst_dir[old]}/maillog"
ok $? "old: its master(8) says version $sys_version"
deliver_all old
for c in $cases; do
	d=$(world_case_field "$c" 2)
	got=$(inst_answer old "$d")
	want=${plain[$c]}
	[ ${#want} -gt 100 ] && want="${want:0:100}..."
	is "$got" "$want" "old: $c: smtp(8) got the plain map's answer"
done
! grep -q -E 'maps_find: .*(policy_type|policy_string|mx_host_pattern)' \
    "${inst_dir[old]}/maillog"
ok $? "old: smtp(8) got no TLSRPT attribute"
trouble=$(policy_trouble old)
is "$trouble" "" "old: Postfix $sys_version: no policy warning, no crash"

# 4. Control: Postfix 3.7 on the tlsrpt map refuses the attributes.
if ! version_ge "$sys_version" 3.10; then
	inst_start old "socketmap:inet:127.0.0.1:$PORT:postfix310"
	ok $? "control: Postfix $sys_version started on the tlsrpt map"
	q=$(inst_send old user@deliver-ok.pstest) || q=
	is "$(inst_wait old "$q")" deferred "control: deliver-ok deferred"
	grep -q 'invalid attribute name: "policy_type"' "${inst_dir[old]}/maillog"
	ok $? "control: Postfix $sys_version: invalid attribute name \"policy_type\""
fi

inst_stop new
ok $? "Postfix $PF310_VERSION stopped"
inst_stop old
ok $? "Postfix $sys_version stopped"
daemon_stop
ok $? "clean exit"
done_testing
