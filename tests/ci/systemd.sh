#!/usr/bin/env bash
# tests/ci/systemd.sh - the systemd units and snippets, as installed
#
# Installs build/ into a scratch root (make install DESTDIR=), adds the
# host's own units (sysinit.target, ...) and /bin/kill to it, then:
#   - systemd-analyze verify --root on postsmtpsts.service and .socket:
#     exit 0 and not one line of output (unknown keys, bad values and a
#     missing ExecStart binary are only printed by verify, so any output
#     fails);
#   - systemd-analyze security --offline: exposure at most SECURITY_MAX;
#   - systemd-sysusers and systemd-tmpfiles --root with the snippets: the
#     user exists and the directories are created with its ownership.
# Ends with "N passed, N failed".
set -u
SECURITY_MAX=${SECURITY_MAX:-2.0}
. "$(dirname "$0")/lib.sh"	# check, finish; cd to the top directory

for c in systemd-analyze systemd-sysusers systemd-tmpfiles; do
	command -v "$c" >/dev/null || abort "$c missing (apt-get install systemd)"
done
[ -f build/Makefile ] || abort "build/ not configured"

root=$(mktemp -d /tmp/postsmtpsts-ci-systemd.XXXXXX)
trap 'rm -rf "$root"' EXIT
if ! make -C build -s install DESTDIR="$root" >"$root.install.log" 2>&1; then
	tail -n 20 "$root.install.log"; rm -f "$root.install.log"
	abort "make install DESTDIR"
fi
rm -f "$root.install.log"

service=$(find "$root" -name postsmtpsts.service -type f | head -n1)
socket=$(find "$root" -name postsmtpsts.socket -type f | head -n1)
tmpfiles=$(find "$root" -path '*tmpfiles.d/postsmtpsts.conf' -type f | head -n1)
sysusers=$(find "$root" -path '*sysusers.d/postsmtpsts.conf' -type f | head -n1)
check "units and snippets installed (service, socket, tmpfiles, sysusers)" \
	"$([ -n "$service" ] && [ -n "$socket" ] && [ -n "$tmpfiles" ] && [ -n "$sysusers" ]; echo $?)"
if [ -z "$service" ] || [ -z "$socket" ]; then finish; fi

# The root needs the units ours refer to and the commands they run that are
# not ours; copies of the host's, so the check is real.
unitdir=$(dirname "$service")
hostunits=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
for u in "$hostunits"/*; do
	[ -e "$unitdir/$(basename "$u")" ] || cp -a "$u" "$unitdir/"
done
mkdir -p "$root/bin" "$root/usr/bin"
cp /bin/kill "$root/bin/kill"
# verify runs man(1) on the host for each Documentation=man:... page, not
# in the root: show it the pages just installed, not whatever the host has.
MANPATH=$(find "$root" -path '*/share/man' -type d | head -n1)
export MANPATH

for u in "$service" "$socket"; do
	out=$(cd "$root" && systemd-analyze verify --root="$root" "$u" 2>&1)
	st=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
	check "systemd-analyze verify $(basename "$u")" \
		"$([ "$st" -eq 0 ] && [ -z "$out" ]; echo $?)"
done

# The socket unit with its commented-out unix socket (Postfix's chroot)
# turned on, as README and postsmtpsts(8) tell operators to do.
variant="$unitdir/postsmtpsts-chroot.socket"
sed -e 's/^#\(ListenStream=\/\)/\1/' -e 's/^#\(Socket[A-Za-z]*=\)/\1/' \
	"$socket" >"$variant"
cp "$service" "$unitdir/postsmtpsts-chroot.service"
out=$(cd "$root" && systemd-analyze verify --root="$root" "$variant" 2>&1)
st=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
check "systemd-analyze verify postsmtpsts.socket with the unix socket enabled" \
	"$([ "$st" -eq 0 ] && [ -z "$out" ] &&
	   grep -q '^ListenStream=/var/spool/postfix/private/postsmtpsts' "$variant" &&
	   grep -q '^SocketGroup=postfix' "$variant"; echo $?)"
rm -f "$variant" "$unitdir/postsmtpsts-chroot.service"

# Every binary the service runs exists in the root and is executable.
bad=0
while read -r bin; do
	[ -x "$root$bin" ] || { echo "  not installed: $bin"; bad=1; }
done < <(sed -n 's/^Exec[A-Za-z]*=[-@+!:]*\([^ ]*\).*/\1/p' "$service" | sort -u)
check "ExecStart=, ExecStartPre=, ExecReload= binaries installed" "$bad"

out=$(systemd-analyze security --offline=true --root="$root" "$service" 2>&1)
level=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for postsmtpsts.service: \([0-9.]*\).*/\1/p')
echo "  systemd-analyze security: exposure level $level (at most $SECURITY_MAX)"
check "systemd-analyze security exposure <= $SECURITY_MAX" \
	"$([ -n "$level" ] && awk -v l="$level" -v m="$SECURITY_MAX" 'BEGIN { exit !(l <= m) }'; echo $?)"

# sysusers then tmpfiles, inside the root
mkdir -p "$root/etc"
out=$(systemd-sysusers --root="$root" "$sysusers" 2>&1)
st=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
check "systemd-sysusers creates user _postsmtpsts" \
	"$([ "$st" -eq 0 ] && grep -q '^_postsmtpsts:' "$root/etc/passwd"; echo $?)"
out=$(systemd-tmpfiles --root="$root" --create "$tmpfiles" 2>&1)
st=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  /'
uid=$(awk -F: '$1 == "_postsmtpsts" { print $3 }' "$root/etc/passwd")
bad=0
while read -r _type path _mode _user _rest; do
	case "$_type" in d) ;; *) continue ;; esac
	if [ ! -d "$root$path" ] || [ "$(stat -c %u "$root$path")" != "$uid" ]; then
		echo "  not created as user _postsmtpsts: $path"; bad=1
	fi
done <"$tmpfiles"
check "systemd-tmpfiles creates the directories owned by _postsmtpsts" \
	"$([ "$st" -eq 0 ] && [ -n "$uid" ]; echo $?)"
check "tmpfiles directories exist with the right owner" "$bad"
finish
