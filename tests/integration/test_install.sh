#!/usr/bin/env bash
# Installation as a new user gets it: `make install` under a PREFIX other than the build's (into a DESTDIR)
# puts every file in place and `llmgate run` there finds its library; `make uninstall` removes them all;
# `make deb` builds the Debian packages, which are unpacked into a scratch root (dpkg -x; the real system
# is not touched) and used from there: llmgate run -- curl against the packaged mock provider.
source "$(dirname "$0")/../lib.sh"
# mk TARGET VAR=VALUE...: make in the source tree, of the build under test: when the tree is built without
# profile feedback (make PGO=0, as the suite may have been), with PGO=0 too, so that installing and packaging
# do not rebuild the library (a training and every object again) under the other tests' feet.
mk() {
    local pgo=
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -q -C "$LG_ROOT" all PGO=0 2>/dev/null && pgo=PGO=0
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$LG_ROOT" $pgo "$@" >"$LG_TMP/make.log" 2>&1 || cat "$LG_TMP/make.log"
}
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
export KEY_MAIN=sk-installed-main

# gated_request BIN: llmgate run (installed at BIN) -- curl to OpenAI's host, sent to the mock by the
# config's upstream with the config's key. Prints the HTTP status, then the key the mock received.
gated_request() {
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_MAIN"}]}}}
JSON
    chmod 600 "$LG_TMP/config.json"
    "$1" run --config "$LG_TMP/config.json" -- curl -s -o /dev/null -w '%{http_code}\n' \
        https://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-from-the-script' -d "$BODY"
    curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]'
}

# make install with another PREFIX
dest=$LG_TMP/dest
prefix=/opt/elsewhere
mk install DESTDIR="$dest" PREFIX="$prefix"
p=$dest$prefix
for f in bin/llmgate:755 lib/llmgate/libllmgate.so:644 libexec/llmgate/llmgate-mock-provider:755 \
         share/man/man1/llmgate.1:644 share/man/man5/llmgate.json.5:644 share/bash-completion/completions/llmgate:644 \
         share/doc/llmgate/README.md:644 share/doc/llmgate/examples/README.md:644 \
         share/doc/llmgate/examples/openai-several-keys.json:644 share/llmgate/prices.json:644 \
         share/doc/llmgate/examples/grafana/llmgate-dashboard.json:644; do
    check_eq "make install: ${f%:*} (mode ${f#*:})" "${f#*:}" "$(stat -c %a "$p/${f%:*}" 2>&1)"
done
check_eq "make install: nothing outside PREFIX" "$prefix" "$(cd "$dest" && find . -mindepth 2 -maxdepth 2 | sed 's/^\.//')"
check_eq "installed llmgate finds the installed library" "library: $p/lib/llmgate/libllmgate.so" \
    "$("$p/bin/llmgate" --version | grep '^library:')"
LG_MOCK=$p/libexec/llmgate/llmgate-mock-provider lg_start_mock --quiet
check_eq "installed: llmgate run -- curl went through the gate (status, key the mock got)" \
    "200 sk-installed-main" "$(gated_request "$p/bin/llmgate" | tr '\n' ' ' | sed 's/ $//')"
check "installed man page renders" bash -c "man -l '$p/share/man/man1/llmgate.1' 2>/dev/null | grep -q 'EXIT STATUS'"
mk uninstall DESTDIR="$dest" PREFIX="$prefix"
check_eq "make uninstall: no file left" "" "$(find "$dest" -type f)"
check_eq "make uninstall: llmgate's own directories removed" "" "$(find "$dest" -name '*llmgate*')"

# make deb, unpacked into a scratch root
mk deb
version=$(head -n1 "$LG_ROOT/debian/changelog" | sed 's/^[^(]*(\([^)]*\)).*/\1/')
arch=$(dpkg --print-architecture)
main=$LG_ROOT/build/llmgate_${version}_$arch.deb
mock=$LG_ROOT/build/llmgate-mock-provider_${version}_$arch.deb
check "make deb: both packages built" test -f "$main" -a -f "$mock"
check_eq "deb: package and version" "llmgate $version" "$(dpkg-deb -f "$main" Package Version | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//')"
depends=$(dpkg-deb -f "$main" Depends)
check_match "deb: Depends computed from the binaries (libc, cJSON, OpenSSL)" 'libc6 .*libcjson1 .*libssl3 ' "$depends "
check "deb: llmgate does not pull the mock's HTTP server" bash -c "! grep -q microhttpd <<<'$depends'"
check_match "deb: the mock package depends on libmicrohttpd" 'libmicrohttpd12' "$(dpkg-deb -f "$mock" Depends)"
check_eq "deb: every path under /usr" "" "$( { dpkg-deb -c "$main"; dpkg-deb -c "$mock"; } | awk '{print $6}' | grep -vE '^\./(usr(/.*)?)?$')"
root=$LG_TMP/root
dpkg -x "$main" "$root"
dpkg -x "$mock" "$root"
dpkg-deb -e "$main" "$LG_TMP/control"
check "deb: md5sums match the unpacked files" bash -c "cd '$root' && md5sum --quiet -c '$LG_TMP/control/md5sums'"
check "deb: copyright and changelog in /usr/share/doc" test -f "$root/usr/share/doc/llmgate/copyright" -a \
    -f "$root/usr/share/doc/llmgate/changelog.Debian.gz" -a -f "$root/usr/share/doc/llmgate-mock-provider/copyright"
check "deb: man pages compressed and readable" bash -c "man -l '$root/usr/share/man/man5/llmgate.json.5.gz' 2>/dev/null | grep -q 'max_attempts'"
check_eq "deb: llmgate finds the packaged library" "library: $root/usr/lib/llmgate/libllmgate.so" \
    "$("$root/usr/bin/llmgate" --version | grep '^library:')"
LG_MOCK=$root/usr/libexec/llmgate/llmgate-mock-provider lg_start_mock --quiet
check_eq "deb: llmgate run -- curl against the packaged mock (status, key the mock got)" \
    "200 sk-installed-main" "$(gated_request "$root/usr/bin/llmgate" | tr '\n' ' ' | sed 's/ $//')"
lg_done
