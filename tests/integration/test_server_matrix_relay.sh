#!/usr/bin/env bash
# The relay's upstream side against servers the project did not write, beside the mock of test_relay.sh:
# Debian's nginx as a TLS 1.3 front offering h2,http/1.1 (lg_start_nginx_front, the mock behind it) and the
# provider emulation (tests/servers/emulation.py: Python's http.server, TLS 1.3 from an ssl.SSLContext with
# two NewSessionTickets after each handshake, OpenAI's x-ratelimit-* headers on every answer). Programs with
# their own TLS run through `llmgate run` -> the relay -> the server: a Go net/http client (the relay as its
# HTTPS proxy), Node.js's fetch and https.request and the official `openai` npm SDK (led there by the
# preload's connect hook). Each run starts with the first account's 429; the program gets the second
# account's answers only, and the server received the accounts' keys, never the program's (sk-host); the
# relay spoke HTTP/1.1 to the front. The SDK's event stream through the front arrives byte for byte. The
# relay's gateway mode (plain HTTP in, a gateway token) in front of each server likewise: the accounts'
# keys at the server, never the token.
source "$(dirname "$0")/../lib.sh"
F=$LG_ROOT/tests/fixtures/streams
lg_gencerts || { not_ok "test certificates created"; exit 1; }
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {"sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
          "sk-sse": {"sequence": [{"fixture": "$F/openai_multibyte.json", "chunk": 3, "chunk_delay_ms": 1}], "repeat": true}}}
JSON
/usr/bin/python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/openai_multibyte.json'))['body'])" >"$LG_TMP/sse.expected"
lg_start_mock --scenario "$LG_TMP/scenario.json"
lg_start_nginx_front "127.0.0.1:$MOCK_PORT"
lg_start_emulation
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
URL=https://api.openai.com/v1/chat/completions
PY=/usr/bin/python3
# config NAME UPSTREAM [K2-VAR]: openai at UPSTREAM, accounts "dead" (K1) and "live" (K2-VAR, K2 unless given)
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$2", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:${3:-K2}"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
config front "https://127.0.0.1:$NGINX_PORT"
config front-sse "https://127.0.0.1:$NGINX_PORT" K_sse
config emu "https://127.0.0.1:$EMU_TLS_PORT"
hash() { printf %s "$1" | sha256sum | cut -c1-16; }
mock_keys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
# emu_seen: the emulation's log as "STATUS:KEY ..." (KEY sk-dead, sk-good or another key's digest)
emu_seen() {
    $PY -c "import json,sys; names = {sys.argv[2]: 'sk-dead', sys.argv[3]: 'sk-good'}
print(' '.join('%s:%s' % (x['status'], names.get(x['key'], x['key'])) for x in map(json.loads, open(sys.argv[1]))))" \
        "$EMU_LOG" "$(hash sk-dead)" "$(hash sk-good)"
}
NODE_DIR=$LG_ROOT/tests/clients/node
n=0

# relayed SERVER LABEL ANSWER CMD...: CMD (3 requests) through `llmgate run` with the dead key sk-dead and the
# live key sk-good, against SERVER (front: nginx before the mock, which answers sk-dead 429 with a 20 s
# Retry-After; emu: the emulation, told to answer its next request 429 with retry-after 1), in a runtime
# directory (a store, a relay) of its own: it exits 0, its answers match ANSWER 3 times, the server received
# the dead key's request first (its 429), then 3 answered on the accounts' keys (the front: the live key's,
# over HTTP/1.1; the emulation: either account's, the dead one's second may have passed), never the program's.
relayed() {
    local server=$1 label="$2 via the relay to the ${1/emu/emulation}" answer=$3 run=$LG_TMP/run$((++n)) out rc f
    shift 3
    mkdir -m 700 "$run"
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    : >"$EMU_LOG"
    : >"$NGINX_LOG"
    curl -s -d 1 "http://127.0.0.1:$EMU_PORT/__fail" >/dev/null
    out=$(XDG_RUNTIME_DIR=$run K1=sk-dead K2=sk-good timeout 120 "$LG_CLI" run --config "$LG_TMP/$server.json" -- "$@" 2>"$LG_TMP/err")
    rc=$?
    check_eq "$label: exits 0" 0 "$rc"
    check_eq "$label: 3 answers, each a 200 chat completion" 3 "$(grep -c "$answer" <<<"$out")"
    if [ "$server" = front ]; then
        check_eq "$label: the front saw the dead key, then the live key over HTTP/1.1, never the program's" \
            "HTTP/1.1 429 Bearer sk-dead|HTTP/1.1 200 Bearer sk-good|HTTP/1.1 200 Bearer sk-good|HTTP/1.1 200 Bearer sk-good" \
            "$(paste -sd'|' "$NGINX_LOG")"
        check_eq "$label: the mock behind it received the dead key, then 3 on the live key" \
            "sk-dead sk-good sk-good sk-good" "$(mock_keys)"
    else
        check_match "$label: the emulation received the dead key (429), then 3 answered on the accounts' keys, never the program's" \
            '^429:sk-dead( 200:sk-(dead|good)){3}$' "$(emu_seen)"
    fi
    check_match "$label: llmgate run says it is gated through the relay" 'gated through the relay on 127\.0\.0\.1:[0-9]+' "$(cat "$LG_TMP/err")"
    [ "$rc" = 0 ] || diag "$out $(head -c 600 "$LG_TMP/err") $(tail -c 400 "$run"/llmgate/relay-*.log 2>/dev/null)"
    for f in "$run"/llmgate/relay-*.addr; do kill "$(awk '{print $3}' "$f")" 2>/dev/null; done
}
MOCK_200='^200 .*"mock_key":"sk-good"'
EMU_200='^200 {"id": "chatcmpl-emu'

# Go (cgo build), the relay as its HTTPS proxy
if command -v go >/dev/null; then
    export GOCACHE=$LG_BUILD/gocache GOPATH=$LG_TMP/gopath GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local
    cp "$LG_ROOT/tests/clients/go/relay_client.go" "$LG_TMP/"
    if (cd "$LG_TMP" && go build -o goclient relay_client.go) 2>"$LG_TMP/gobuild.err"; then
        relayed front "Go" '^200 HTTP/1.1 .*"mock_key":"sk-good"' "$LG_TMP/goclient" "$URL" 3
        relayed emu "Go" '^200 HTTP/1.1 {"id": "chatcmpl-emu' "$LG_TMP/goclient" "$URL" 3
    else
        not_ok "the Go client builds"; diag "$(head -c 600 "$LG_TMP/gobuild.err")"
    fi
else
    skip "no Go toolchain (golang-go)" 9
fi

# Node.js (its own OpenSSL): fetch (undici) and https.request, led to the relay by the connect hook
if command -v node >/dev/null; then
    for mode in fetch https; do
        relayed front "Node $mode" "$MOCK_200" node "$NODE_DIR/relay_client.js" "$URL" $mode 3
        relayed emu "Node $mode" "$EMU_200" node "$NODE_DIR/relay_client.js" "$URL" $mode 3
    done
else
    skip "no node" 18
fi

# the official `openai` npm SDK (its default base URL, its retries off), from the npm registry
if ! command -v node >/dev/null; then
    skip "no node" 11
elif ! why=$(lg_openai_sdk_ready); then
    skip "the openai npm SDK cannot be installed: $why" 11
else
    relayed front "openai SDK" "$MOCK_200" node "$NODE_DIR/openai_sdk_client.js" - post 3
    relayed emu "openai SDK" "$EMU_200" node "$NODE_DIR/openai_sdk_client.js" - post 3
    # one streamed completion through the front: the dead key's 429, then the provider's stream byte for byte
    run=$LG_TMP/run-sse
    mkdir -m 700 "$run"
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    : >"$NGINX_LOG"
    XDG_RUNTIME_DIR=$run K1=sk-dead K_sse=sk-sse timeout 120 "$LG_CLI" run --config "$LG_TMP/front-sse.json" -- \
        node "$NODE_DIR/openai_sdk_client.js" - stream >"$LG_TMP/stream.body" 2>"$LG_TMP/err"
    check "openai SDK stream via the relay to the front: the provider's event stream byte for byte" cmp -s "$LG_TMP/stream.body" "$LG_TMP/sse.expected"
    check_eq "openai SDK stream via the relay to the front: the dead key, then the stream's, never the program's" \
        "HTTP/1.1 429 Bearer sk-dead|HTTP/1.1 200 Bearer sk-sse" "$(paste -sd'|' "$NGINX_LOG")"
    for f in "$run"/llmgate/relay-*.addr; do kill "$(awk '{print $3}' "$f")" 2>/dev/null; done
fi

# the relay's gateway mode (llmgate relay --listen, a gateway token) in front of each server: two requests
# on one connection with the token, the dead account's 429 retried; the server received the accounts' keys,
# never the token
TOKEN=gw-token-9b2e41d07c
SHA=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)
for server in front emu; do
    sed "s/^ \"retry\"/ \"gateway\": {\"tokens\": [{\"name\": \"ci\", \"sha256\": \"$SHA\"}]},\n \"retry\"/" \
        "$LG_TMP/$server.json" >"$LG_TMP/gw-$server.json"
    chmod 600 "$LG_TMP/gw-$server.json"
    label="the gateway to the ${server/emu/emulation}"
    run=$LG_TMP/run-gw-$server
    mkdir -m 700 "$run"
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    : >"$EMU_LOG"
    : >"$NGINX_LOG"
    curl -s -d 1 "http://127.0.0.1:$EMU_PORT/__fail" >/dev/null
    port=$(lg_free_port)
    XDG_RUNTIME_DIR=$run K1=sk-dead K2=sk-good "$LG_CLI" relay --config "$LG_TMP/gw-$server.json" --listen "127.0.0.1:$port" >"$run/gw.out" 2>&1 &
    gw=$!
    for _ in $(seq 1 200); do grep -q "gateway on" "$run/gw.out" 2>/dev/null && break; sleep 0.05; done
    url=http://127.0.0.1:$port/openai/v1/chat/completions
    out=$(curl -s -w '\n%{http_code}\n' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
        -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}' "$url" "$url")
    kill "$gw"; wait "$gw" 2>/dev/null
    check_eq "$label: two requests on one connection, both 200" "200 200" "$(grep -x '[0-9][0-9][0-9]' <<<"$out" | paste -sd' ')"
    if [ $server = front ]; then
        check_eq "$label: the front saw the dead key, then the live key over HTTP/1.1, never the token" \
            "HTTP/1.1 429 Bearer sk-dead|HTTP/1.1 200 Bearer sk-good|HTTP/1.1 200 Bearer sk-good" "$(paste -sd'|' "$NGINX_LOG")"
    else
        check_match "$label: the emulation received the dead key (429), then 2 answered on the accounts' keys, never the token" \
            '^429:sk-dead( 200:sk-(dead|good)){2}$' "$(emu_seen)"
    fi
    [ "$(grep -c . <<<"$out")" -ge 4 ] || diag "$out $(tail -c 400 "$run/gw.out")"
done
lg_done
