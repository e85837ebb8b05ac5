#!/usr/bin/env bash
# tests/ci/debian13.sh - the Debian 13 (trixie) leg: build, unit and
# scenario tests, the package, and deliveries by trixie's own Postfix
#
# Debian 13 is what new installs run: Postfix 3.10.13 linked with
# libtlsrpt, libcurl 8.14, GnuTLS 3.8, libunbound 1.26, nettle 3.10, t64
# library names.  This leg proves the project there without a second
# machine:
#
#   1. tests/debian13/tree.sh makes a trixie tree (debootstrap minbase
#      plus the build and test packages; cached as a tarball after the
#      first run on a machine);
#   2. the source goes into the tree's /src (the files git knows, as they
#      are in the work tree, with .git for the package's date);
#   3. the tree gets a private /dev (a few nodes, never the host's), /proc,
#      an empty /tmp of its own, the host's loopback world at the same path
#      (tests/world: started here if it is not running) and the world's
#      resolver and CA;
#   4. tests/debian13/inside.sh runs there (chroot): the build, make
#      check-unit, tests/ci/deb.sh (every package check: nothing was
#      installed by hand in the tree, so none is skipped, as they are on a
#      host after contrib/quickstart.sh), and the end-to-end deliveries
#      with trixie's Postfix (its E2E13 list);
#   5. everything is unmounted whatever happened.
#
# Ends with "N passed, N failed[, N skipped]".  Measured on 2 cores: about
# 13 minutes with the tree made anew, 9 with the cached tree.
# DEBIAN13_DIR names the tree (default /var/tmp/postsmtpsts-debian13).
set -u
# shellcheck source=tests/ci/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || abort "running as root (debootstrap, chroot)"
TREE=${DEBIAN13_DIR:-/var/tmp/postsmtpsts-debian13}
WORLD_DIR=${WORLD_DIR:-/tmp/postsmtpsts-world}
export WORLD_DIR
WORLD_STARTED=
mounted=
cleanup() {
	local m
	for m in $mounted; do umount -l "$m" 2>/dev/null; done
	[ -n "$WORLD_STARTED" ] && tests/world/stop >/dev/null 2>&1
}
trap cleanup EXIT
t0=$SECONDS

# -- 1. the tree ---------------------------------------------------------------
# never remove a tree something is still mounted in (a killed earlier run:
# its bind mount of the world would be emptied with it)
awk -v t="$TREE" '$2 == t || index($2, t "/") == 1 { print $2 }' /proc/mounts |
    sort -r | while read -r m; do umount -l "$m"; done
awk -v t="$TREE" '$2 == t || index($2, t "/") == 1 { bad = 1 } END { exit bad }' \
    /proc/mounts || abort "nothing mounted in $TREE before it is made anew"
tests/debian13/tree.sh "$TREE" 2>&1 | sed 's/^/  /'
[ "${PIPESTATUS[0]}" -eq 0 ] || abort "a Debian 13 tree (tests/debian13/tree.sh)"
check "a Debian 13 tree: Debian $(cat "$TREE/etc/debian_version") ($((SECONDS - t0)) s)" 0

# -- 2. the source ---------------------------------------------------------------
rm -rf "$TREE/src"
mkdir -p "$TREE/src"
git ls-files -z --cached --others --exclude-standard |
    tar --null -T - -cf - | tar -C "$TREE/src" -xf - ||
	abort "the source copied into the tree"
[ -d .git ] && cp -a .git "$TREE/src/.git"

# -- 3. mounts, the world ------------------------------------------------------
world_alive() {
	[ -r "$WORLD_DIR/env.sh" ] && (. "$WORLD_DIR/env.sh" &&
	    dig +time=1 +tries=1 +short @"$WORLD_RESOLVER_ADDR" SOA pstest. | grep -q .)
}
if ! world_alive; then
	if WORLD_BULK=${WORLD_BULK:-200} tests/world/start >/tmp/debian13-world.out 2>&1; then
		WORLD_STARTED=1
	else
		tail -n 20 /tmp/debian13-world.out
		abort "the loopback world started"
	fi
fi
# shellcheck source=/dev/null
. "$WORLD_DIR/env.sh"
# mnt TYPE SOURCE TARGET [OPTIONS] - a mount, undone by cleanup
mnt() {
	mkdir -p "$3"
	mount -t "$1" ${4:+-o "$4"} "$2" "$3" || return 1
	mounted="$3 $mounted"
}
# /tmp: the tree's own, on disk (not a tmpfs: test_cache drops a file's
# pages from the page cache, which a tmpfs cannot)
rm -rf "${TREE:?}/tmp" && mkdir -m 1777 "$TREE/tmp"
ok=0
# the tree's root a mount point of its own: unshare --propagation private
# (tests/world/lib.sh world_in_ns) refuses a root that is not one
mount --bind "$TREE" "$TREE" && mounted="$TREE $mounted" || ok=1
[ "$ok" -eq 0 ] && mnt proc proc "$TREE/proc" &&
    mnt tmpfs tmpfs "$TREE/dev" mode=755,size=1m &&
    mnt tmpfs tmpfs "$TREE/run" mode=755 &&
    mkdir -p "$TREE/dev/pts" "$TREE/dev/shm" &&
    mnt devpts devpts "$TREE/dev/pts" newinstance,ptmxmode=0666 &&
    mnt tmpfs tmpfs "$TREE/dev/shm" mode=1777 &&
    mkdir -p "$TREE$WORLD_DIR" &&
    mount --bind "$WORLD_DIR" "$TREE$WORLD_DIR" && mounted="$TREE$WORLD_DIR $mounted" ||
	ok=1
# env.sh names the world's source (cases.tsv, policies/, in-world) by the
# host's path: the same files, read-only, at that path in the tree
if [ "$ok" -eq 0 ] && [ ! -e "$TREE$WORLD_SRC/cases.tsv" ]; then
	mkdir -p "$TREE$WORLD_SRC" &&
	    mount --bind -o ro "$WORLD_SRC" "$TREE$WORLD_SRC" &&
	    mounted="$TREE$WORLD_SRC $mounted" || ok=1
fi
if [ "$ok" -eq 0 ]; then
	for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		IFS=: read -r name maj min <<<"$n"
		mknod -m 666 "$TREE/dev/$name" c "$maj" "$min" || ok=1
	done
	ln -sf pts/ptmx "$TREE/dev/ptmx"
	ln -sf /proc/self/fd "$TREE/dev/fd"
fi
[ "$ok" -eq 0 ] || abort "the tree's /proc, /dev, /tmp and the world mounted"
echo "nameserver $WORLD_RESOLVER_ADDR" >"$TREE/etc/resolv.conf"
ca=$TREE/etc/ssl/certs/ca-certificates.crt
grep -q 'postsmtpsts world' "$ca" 2>/dev/null ||
	{ echo "# postsmtpsts world"; cat "$WORLD_CA"; } >>"$ca"
# the tree's own lock files beside the world (tests/e2e/lib.sh: flock)
cp /etc/hosts "$TREE/etc/hosts" 2>/dev/null

# -- 4. the leg, inside ----------------------------------------------------------
chroot "$TREE" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root TERM=dumb WORLD_DIR="$WORLD_DIR" WORLD_NET="${WORLD_NET:-127.0}" \
    /bin/bash /src/tests/debian13/inside.sh >/tmp/debian13-inside.out 2>&1
st=$?
while IFS= read -r l; do
	case $l in
	"ok: "*) check "${l#ok: }" 0 ;;
	"FAILED: "*) check "${l#FAILED: }" 1 ;;
	"skipped: "*) skip_check "${l#skipped: }" ;;
	*) printf '%s\n' "$l" ;;
	esac
done </tmp/debian13-inside.out
[ "$st" -eq 0 ] || check "tests/debian13/inside.sh exited $st" 1
echo "  (the Debian 13 leg: $((SECONDS - t0)) s)"
finish
