#!/bin/sh
# contrib/debian/build.sh - build the Debian binary packages from a clean tree
#
#   contrib/debian/build.sh [OUTDIR]        (what "make deb" runs)
#
# Copies the source tree (a git checkout: the files git knows, as they are
# in the work tree; an unpacked release tarball: all of it) into a scratch
# directory, copies contrib/debian/ to debian/ there, and runs
# "dpkg-buildpackage -us -uc -b".  The .deb files (postsmtpsts and
# postsmtpsts-dbgsym), .buildinfo and .changes land in OUTDIR (default
# ./deb).  Needs the build dependencies of contrib/debian/control plus
# debhelper, dpkg-dev and fakeroot (contrib/install-deps.sh --test).
#
# Environment: DEB_BUILD_OPTIONS (e.g. nocheck, parallel=2) and
# SOURCE_DATE_EPOCH (default: the date of debian/changelog's entry) pass
# through; two builds of the same tree with the same SOURCE_DATE_EPOCH give
# byte-identical .deb files (tests/ci/deb.sh checks that).
# KEEP_SCRATCH=1 keeps the scratch directory.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

upstream=$(sed -n 's/^AC_INIT(\[postsmtpsts\], *\[\([^]]*\)\].*/\1/p' \
    "$top/configure.ac")
debver=$(dpkg-parsechangelog -l "$top/contrib/debian/changelog" -S Version)
case "$debver" in
"$upstream"-*) ;;
*)
	echo "build.sh: contrib/debian/changelog has $debver," \
	    "configure.ac says $upstream: add a changelog entry (dch)" >&2
	exit 1 ;;
esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/postsmtpsts-deb.XXXXXX")
[ "${KEEP_SCRATCH:-0}" = 1 ] || trap 'rm -rf "$scratch"' EXIT
src=$scratch/postsmtpsts-$upstream
mkdir -p "$src"

if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked and untracked-but-not-ignored files, as in the work tree;
	# nothing a build left behind (build*/, configure, ...)
	git -C "$top" ls-files -z --cached --others --exclude-standard |
	    (cd "$top" && xargs -0 sh -c 'for f; do
		[ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
	    tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
elif [ -f "$top/config.status" ]; then
	echo "build.sh: $top was configured in place; build out of tree" \
	    "(mkdir build && cd build && ../configure) or unpack afresh" >&2
	exit 1
else
	tar -C "$top" --exclude=./debian -cf - . | tar -C "$src" -xf -
fi
rm -rf "$src/debian"
cp -R "$top/contrib/debian" "$src/debian"

echo "build.sh: dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$scratch/build.log" 2>&1 || {
	tail -n 60 "$scratch/build.log" >&2
	echo "build.sh: dpkg-buildpackage failed (log: $scratch/build.log)" >&2
	trap - EXIT
	exit 1
}
for f in "$scratch"/*.deb "$scratch"/*.ddeb "$scratch"/*.buildinfo \
    "$scratch"/*.changes; do
	[ -e "$f" ] && cp "$f" "$out/"
done
cp "$scratch/build.log" "$out/build.log"
ls "$out"/*.deb
