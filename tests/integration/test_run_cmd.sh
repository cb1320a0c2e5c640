#!/usr/bin/env bash
# llmgate run: prepends the library to LD_PRELOAD (keeping what was there), passes the config on, warns
# about static binaries, refuses a bad config before running anything, and the host's exit status and
# output come through unchanged.
source "$(dirname "$0")/../lib.sh"
lg_start_mock
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL"}}}
JSON
chmod 600 "$LG_TMP/config.json"

out=$(LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 "$LG_CLI" run --config "$LG_TMP/config.json" -- sh -c 'echo "$LD_PRELOAD|$LLMGATE_CONFIG"')
check_eq "LD_PRELOAD: ours first, the old one kept" "$(readlink -f "$LG_LIB") /lib/x86_64-linux-gnu/libm.so.6|$LG_TMP/config.json" "$out"

out=$("$LG_CLI" run --config "$LG_TMP/config.json" -- curl -s http://api.openai.com/v1/chat/completions \
      -H 'Authorization: Bearer sk-run' -d '{"model":"m"}' -w '\n%{http_code}')
check_eq "the command's request went through the gate to the upstream" 200 "$(tail -n1 <<<"$out")"
check_eq "the mock saw the request on the upstream" "sk-run" "$(curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]')"

"$LG_CLI" run -- sh -c 'exit 7'
check_eq "the command's exit status comes through" 7 "$?"

static=""
for f in /sbin/ldconfig /usr/sbin/ldconfig; do
    [ -x "$f" ] && file "$f" 2>/dev/null | grep -qE 'statically linked|static-pie' && static=$f && break
done
if [ -n "$static" ]; then
    "$LG_CLI" run -- "$static" --version >/dev/null 2>"$LG_TMP/err"
    check_match "static binary: warned" 'statically linked; LD_PRELOAD cannot reach it' "$(cat "$LG_TMP/err")"
else
    gcc -static -o "$LG_TMP/static" -x c - <<<'int main(void){return 0;}' 2>/dev/null
    "$LG_CLI" run -- "$LG_TMP/static" 2>"$LG_TMP/err"
    check_match "static binary: warned" 'statically linked; LD_PRELOAD cannot reach it' "$(cat "$LG_TMP/err")"
fi
"$LG_CLI" run -- sh -c true 2>"$LG_TMP/err"
check_eq "dynamic binary: no warning" "" "$(cat "$LG_TMP/err")"

# a Go build (recognised by its .go.buildinfo section) and a program that carries its own TLS library (it
# defines SSL_read itself, as Node.js does) are named in one line, and still run
gcc -o "$LG_TMP/gobin" -x c - <<<'__attribute__((used, section(".go.buildinfo"))) static const char b[] = "\xff Go buildinf:"; int main(void){return 3;}'
"$LG_CLI" run -- "$LG_TMP/gobin" 2>"$LG_TMP/err"
check_eq "Go program: still run" 3 "$?"
check_match "Go program: named in one line" '^llmgate: warning: [^
]*gobin is a Go program [^
]*cannot reach it, it runs ungated$' "$(cat "$LG_TMP/err")"
gcc -rdynamic -o "$LG_TMP/owntls" -x c - <<<'int SSL_read(void *s, void *b, int n){return n;} int main(void){return 0;}'
"$LG_CLI" run -- "$LG_TMP/owntls" 2>"$LG_TMP/err"
check_match "own TLS library: named" 'owntls carries its own TLS library' "$(cat "$LG_TMP/err")"
check_match "own TLS library: only its https is out of reach, its plain http is gated" \
    'LD_PRELOAD cannot reach its https requests, they run ungated \(plain http is gated\)$' "$(cat "$LG_TMP/err")"
gcc -o "$LG_TMP/curlhost" -x c - -lcurl <<<'#include <curl/curl.h>
int main(void){return curl_easy_init() ? 0 : 1;}'
"$LG_CLI" run -- "$LG_TMP/curlhost" 2>"$LG_TMP/err"
check_eq "a libcurl program: no warning" "" "$(cat "$LG_TMP/err")"

echo '{"retry": {"max_attempts": 0}}' >"$LG_TMP/bad.json"
"$LG_CLI" run --config "$LG_TMP/bad.json" -- sh -c 'echo ran' >"$LG_TMP/out" 2>"$LG_TMP/err"
check_eq "bad config: refused with status 2" 2 "$?"
check_eq "bad config: the command did not run" "" "$(cat "$LG_TMP/out")"
check_match "bad config: the problem is named" 'retry\.max_attempts' "$(cat "$LG_TMP/err")"

"$LG_CLI" run -- /nonexistent/cmd 2>"$LG_TMP/err"
check_eq "missing command: 127" 127 "$?"
lg_done
