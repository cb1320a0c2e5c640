#!/bin/sh
# Builds the binary packages of debian/control (llmgate, llmgate-mock-provider) from the built tree:
# `make install` into a staging root under build/deb, the mock moved into its own package, docs and man
# pages compressed as Debian does, dependencies computed by dpkg-shlibdeps, control files by
# dpkg-gencontrol, packages by dpkg-deb (owned by root, no fakeroot needed).
# Usage: sh debian/build-deb.sh OUTDIR FILES   (FILES: the debian/files list dpkg-gencontrol appends to)
set -eu
out=$1 files=$2
stage=$(pwd)/build/deb
rm -rf "$stage"
mkdir -p "$stage" "$out"
: >"$files.new"
make --no-print-directory install DESTDIR="$stage/llmgate" PREFIX=/usr >/dev/null

mock=$stage/llmgate-mock-provider
mkdir -p "$mock/usr/libexec"
mv "$stage/llmgate/usr/libexec/llmgate" "$mock/usr/libexec/llmgate"
rmdir "$stage/llmgate/usr/libexec"

for pkg in llmgate llmgate-mock-provider; do
    root=$stage/$pkg
    doc=$root/usr/share/doc/$pkg
    mkdir -p "$doc" "$root/DEBIAN"
    install -m 0644 debian/copyright "$doc/copyright"
    gzip -9nc debian/changelog >"$doc/changelog.Debian.gz"
    chmod 0644 "$doc/changelog.Debian.gz"
    find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} + 2>/dev/null || true
    elves=$(find "$root" -type f -perm -u+x -o -type f -name '*.so' | sort)
    case "${DEB_BUILD_OPTIONS:-}" in *nostrip*) ;; *) strip --strip-unneeded --remove-section=.comment $elves ;; esac
    dpkg-shlibdeps -T"$stage/$pkg.substvars" $elves
    dpkg-gencontrol -p"$pkg" -P"$root" -T"$stage/$pkg.substvars" -f"$files.new"
    (cd "$root" && find usr -type f -exec md5sum {} + | sort -k 2 >DEBIAN/md5sums)
    chmod 0644 "$root/DEBIAN/md5sums"
    dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
done
cat "$files.new" >>"$files"
rm -f "$files.new"
