#!/usr/bin/env bash
# The host matrix against a server the project did not write: the mock behind Debian's nginx as a TLS 1.3
# terminator offering h2,http/1.1 by ALPN (lg_start_nginx_front; the shape of the real providers' fronts).
# Each host calls https://api.openai.com (resolved to the front) with its own key sk-host, a few requests
# each; the first account's key gets a 429 through the front, retried on the second, invisibly: every host
# gets the live key's answer, the provider never the host's key. curl and the libcurl C client speak HTTP/2
# to the front (libcurl's own, gated per transfer); the Python hosts (http.client, requests, httpx with
# HTTP/2 on, httpx.AsyncClient with HTTP/2 on), wget (GnuTLS), PHP's stream wrapper, Perl's HTTP::Tiny and
# Ruby's Net::HTTP speak HTTP/1.1 (their ALPN offer reduced to it where they offered h2).
# The socket front end's attempt timeouts against the provider emulation (tests/servers/emulation.py, not
# the mock: Python's http.server, TLS 1.3 from an ssl.SSLContext): its first account accepts and never
# answers, or stops midway through a 200; Python's http.client over https and http, blocking and with a
# timeout of its own, and wget over https (GnuTLS), get the second account's answer within seconds; each
# account asked once, never with the host's key.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/host_setup.sh"
lg_start_nginx_front "127.0.0.1:$MOCK_PORT"
cat >"$LG_TMP/front.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$NGINX_PORT", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/front.json"
U=https://api.openai.com/v1/chat/completions
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
PY=/usr/bin/python3
export REQUESTS_CA_BUNDLE=$SSL_CERT_FILE

# row LABEL N REGEX LINES CMD...: CMD sends N requests through the front: LINES lines of its output match
# REGEX, the mock answered N on the live key after the dead key's 429, and never saw the host's key
row() {
    local label=$1 n=$2 re=$3 lines=$4 keys
    shift 4
    gated front sk-dead sk-good "$@"
    keys=$(reqkeys)
    check_eq "$label: exits 0" 0 "$RC"
    check_eq "$label: the host got the live key's answers" "$lines" "$(count "$re")"
    check_eq "$label: the dead key first, then $n on the live key, never the host's" "sk-dead $n 0" \
        "${keys%% *} $(grep -o sk-good <<<"$keys" | wc -l) $(grep -o sk-host <<<"$keys" | wc -l)"
}

row "curl (HTTP/2)" 2 '^200 2$' 2 curl -s --cacert "$SSL_CERT_FILE" -H 'Authorization: Bearer sk-host' -d "$BODY" \
    -w '\n%{http_code} %{http_version}\n' "$U" "$U"
check_eq "curl (HTTP/2): both bodies the live key's" 2 "$(count "$GOOD")"
row "libcurl C client" 3 '^requests=3 failures=0 ' 1 "$LG_BUILD/clients/bench_client" -n 3 -C "$SSL_CERT_FILE" \
    -H 'Authorization: Bearer sk-host' -H 'Content-Type: application/json' -d "$BODY" "$U"
for c in http.client requests; do
    row "python $c" 2 "^200 .*$GOOD" 2 $PY "$LG_ROOT/tests/clients/py/http_clients.py" "$c" "$U" 2
done
row "httpx http2=True" 2 "^200 HTTP/1.1 http/1.1 .*$GOOD" 2 $PY "$LG_ROOT/tests/clients/py/h2_clients.py" sync "$U" 2
row "httpx.AsyncClient http2=True" 3 "^200 HTTP/1.1 http/1.1 .*$GOOD" 3 $PY "$LG_ROOT/tests/clients/py/h2_clients.py" async "$U" 3
row "wget (GnuTLS)" 1 "$GOOD" 1 wget -q -O - --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' \
    --header 'Content-Type: application/json' --post-data "$BODY" "$U"
if command -v php >/dev/null; then
    row "php stream" 2 "^200 .*$GOOD" 2 php "$CLIENTS/php/stream_client.php" "$U" 2 1.1
else
    skip "php not installed" 3
fi
if perl -MIO::Socket::SSL -e 1 2>/dev/null; then
    row "perl HTTP::Tiny" 2 "^200 - - .*$GOOD" 2 perl "$CLIENTS/perl/http_client.pl" tiny "$U" 2
else
    skip "perl IO::Socket::SSL not installed" 3
fi
if command -v ruby >/dev/null; then
    row "ruby Net::HTTP" 2 "^200 - - .*$GOOD" 2 ruby "$CLIENTS/ruby/http_client.rb" "$U" 2
else
    skip "ruby not installed" 3
fi
check_absent "the front never saw the host's key" "$NGINX_LOG" sk-host
check_eq "the front served gated requests over HTTP/2 (libcurl) and HTTP/1.1 (the others)" "yes yes" \
    "$(grep -q '^HTTP/2.0 200 Bearer sk-good$' "$NGINX_LOG" && echo yes) $(grep -q '^HTTP/1.1 200 Bearer sk-good$' "$NGINX_LOG" && echo yes)"

lg_start_emulation --hang sk-hung --stall sk-stall
hash() { printf %s "$1" | sha256sum | cut -c1-16; }
# emu EXPR: a Python expression over the emulation's log (r: its JSON lines)
emu() { $PY -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print($1)" "$EMU_LOG"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# timed WHAT FIRST SCHEME REGEX CMD...: CMD under the preload (the config of FIRST's account over SCHEME, a
# fresh store, an empty log) gets the second account's answer (its output matches REGEX) within seconds;
# the emulation was asked once on each account, the first, then the second
timed() {
    local what=$1 first=$2 scheme=$3 re=$4 start ms out
    shift 4
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
    : >"$EMU_LOG"
    start=$(now_ms)
    out=$(K1=sk-$first K2=sk-good LLMGATE_CONFIG=$LG_TMP/emu-$first-$scheme.json LD_PRELOAD=$LG_LIB timeout 30 "$@" 2>"$LG_TMP/err")
    ms=$(( $(now_ms) - start ))
    check_match "$what: the host got the second account's chat completion" "$re" "$out"
    check_eq "$what: each account asked once (the first, then the second), never the host's key" \
        "$(hash sk-$first) $(hash sk-good)" "$(emu "' '.join(x['key'] for x in r)")"
    check "$what: within seconds, not the minute the first account holds it (${ms} ms)" test "$ms" -lt 15000
    [ -n "$out" ] || diag "$(tail -c 600 "$LG_TMP/err")"
}
for scheme in https http; do
    port=$EMU_TLS_PORT
    [ $scheme = http ] && port=$EMU_PORT
    for first in hung stall; do
        cat >"$LG_TMP/emu-$first-$scheme.json" <<JSON
{"providers": {"openai": {"upstream": "$scheme://127.0.0.1:$port",
   "accounts": [{"name": "first", "key": "env:K1"}, {"name": "second", "key": "env:K2"}]}},
 "retry": {"attempt_timeout_ms": 800, "idle_timeout_ms": 800}}
JSON
        chmod 600 "$LG_TMP/emu-$first-$scheme.json"
        for T in "" 30; do
            LG_TIMEOUT=$T timed "emulation, $scheme http.client (timeout ${T:-none}), $first first account" $first $scheme \
                '^200 \{"id": "chatcmpl-emu' $PY "$CLIENTS/py/http_clients.py" http.client "$scheme://api.openai.com/v1/chat/completions" 1
        done
    done
done
for first in hung stall; do
    timed "emulation, https wget (GnuTLS), $first first account" $first https '^\{"id": "chatcmpl-emu' \
        wget -q -O - --tries=1 --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' \
        --header 'Content-Type: application/json' --post-data "$BODY" "$U"
done
lg_done
