#!/bin/sh
# contrib/quickstart.sh - build, install and run postsmtpsts on Debian 12
#
#   sh contrib/quickstart.sh               build, install, run
#   sh contrib/quickstart.sh --build-only  only the build step
#   sh contrib/quickstart.sh --postfix-map only print the main.cf line for
#                                          the installed Postfix
#
# Installs the build dependencies if missing, builds in build-quickstart/
# (its own directory: tests/run-all builds build/ and build-asan/ with the
# default directories, and the two must not share a build), installs under
# /usr/local with /etc, /var and /run as the system directories, creates
# the "_postsmtpsts" system user, and starts the daemon in the foreground
# with the default configuration (Ctrl-C stops it).  README.md ("What the
# two commands do to the machine") lists what it leaves and how to remove it.
# It prints, never writes, the smtp_tls_policy_maps line for the installed
# Postfix (contrib/postfix/policy-maps-line.sh: the map "postfix310" from
# Postfix 3.10 on, "postfix" before); /etc/postfix is never touched.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# The quickstart's build directory and its configure arguments.
QS_BUILD=build-quickstart

# quickstart_build - dependencies, configure (once) and make in $QS_BUILD
quickstart_build() {
	contrib/install-deps.sh
	[ -x configure ] || autoreconf -fi
	mkdir -p "$QS_BUILD"
	[ -f "$QS_BUILD/Makefile" ] ||
		(cd "$QS_BUILD" && ../configure -q --sysconfdir=/etc \
			--localstatedir=/var --runstatedir=/run)
	make -C "$QS_BUILD" -j"$(nproc)"
}

# quickstart_postfix_map - the main.cf line for the installed Postfix
quickstart_postfix_map() {
	sh contrib/postfix/policy-maps-line.sh | sed 's/^/quickstart: /'
}

case "${1:-}" in
"") ;;
--build-only) quickstart_build; exit 0 ;;
--postfix-map) quickstart_postfix_map; exit 0 ;;
*) echo "usage: sh contrib/quickstart.sh [--build-only|--postfix-map]" >&2
	exit 2 ;;
esac

quickstart_build
make -C "$QS_BUILD" install >/dev/null
id _postsmtpsts >/dev/null 2>&1 ||
	useradd --system --home-dir /var/lib/postsmtpsts --no-create-home \
		--shell /usr/sbin/nologin _postsmtpsts
install -d -o _postsmtpsts -g _postsmtpsts -m 0750 /var/lib/postsmtpsts
echo "quickstart: config /etc/postsmtpsts/postsmtpsts.conf," \
	"socketmap inet:127.0.0.1:8461 (maps postfix and postfix310)," \
	"cache /var/lib/postsmtpsts/cache"
echo "quickstart: for /etc/postfix/main.cf (not written; then \"postfix reload\"):"
quickstart_postfix_map
# The daemon in the foreground (Ctrl-C stops it); once it answers, the
# README's "Is it working?" commands, taken from README.md itself.
/usr/local/sbin/postsmtpsts -f -c /etc/postsmtpsts/postsmtpsts.conf &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' INT TERM
i=0
while [ "$i" -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
	# a bracketed next hop needs no lookup: NOTFOUND (exit 1) at once
	rc=0
	/usr/local/bin/postsmtpsts-query --timeout 1 \
		--socketmap inet:127.0.0.1:8461 '[localhost]' >/dev/null 2>&1 || rc=$?
	if [ "$rc" -eq 1 ]; then
		echo "quickstart: listening. Is it working? In another terminal:"
		sed -n '/^## Is it working?/,/^## [^I]/p' "$top/README.md" |
			grep -E '^(postsmtpsts-query|postmap) ' | sed 's/^/  /'
		break
	fi
	i=$((i + 1))
	sleep 0.2
done
wait "$pid"
