#!/usr/bin/env bash
# Python event-loop hosts (/usr/bin/python3, tests/clients/py/async_clients.py): 8 requests at once with a
# task on the same loop ticking every 50 ms. Plain HTTP (asyncio streams, aiohttp, httpx.AsyncClient: epoll,
# non-blocking sockets): the first account's key dead, the second live and limited to 4 requests a second,
# so half the requests wait for admission: all succeed with the live key, the mock never sees the host's
# key, and no tick is late by more than 200 ms beyond the same loop's lateness without llmgate (at most 350). httpx's URL has no port: it connects to port 80 of the
# address getaddrinfo answered, not to the upstream's port. HTTPS on asyncio's memory-BIO TLS (aiohttp,
# httpx.AsyncClient, its URL without a port and with the upstream's): gated the same way, with the same
# bound. Without a config, the same clients to a server that is no provider (http and https) see and send
# exactly what they do without llmgate. Over https the attempts themselves never block the loop either: a
# live key whose answers take 400 ms, and event streams whose pieces come 300 ms apart, keep the same bound.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
          "sk-host": {"sequence": [{"status": 200, "body": {"fixed": "你好, 世界"}}], "repeat": true},
          "sk-slow": {"sequence": [{"delay_ms": 400}], "repeat": true},
          "sk-stream": {"sequence": [{"chunk": 200, "chunk_delay_ms": 300}], "repeat": true}}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
CLIENT=$LG_ROOT/tests/clients/py/async_clients.py
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
config() {
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$1", "limits": {"rpm": 4, "window_ms": 1000},
                          "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/config.json"
}
LIVE=sk-good # the second account's key (gated below)
run() { K1=sk-dead K2=$LIVE LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 $PY "$CLIENT" "$@" 2>"$LG_TMP/err"; }

# gated LABEL CLIENT URL BOUND [stream]: 8 requests at once through CLIENT, the dead key then the live one
# ($LIVE); no tick may be later than BOUND ms beyond what the same client's loop shows without llmgate just
# before (lg_tick_bound)
gated() {
    local label=$1 c=$2 url=$3 bound=$4 mode=${5:-} out rc keys ticks late base
    fresh
    base=$(lg_loop_lateness "$c" "$MOCK_URL/v1/chat/completions" 8)
    bound=$(lg_tick_bound "$bound" "$base")
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    out=$(run "$c" "$url" 8 $mode)
    rc=$?
    keys=$(reqkeys)
    read -r ticks late <<<"$(sed -n 's/^ticks=\([0-9]*\) max_late_ms=\([0-9]*\)$/\1 \2/p' "$LG_TMP/err")"
    check_eq "$label: exits 0" 0 "$rc"
    check_eq "$label: 8 responses, all 200 from the live key" 8 "$(grep -c "^200 .*\"mock_key\":\"$LIVE\"" <<<"$out")"
    # the attempts of requests admitted together overlap: each of them may try the dead key before the
    # first 429 is back (at most 4 are admitted at once), none after
    local dead live
    dead=$(grep -o 'sk-dead' <<<"$keys" | wc -l) live=$(grep -o "$LIVE" <<<"$keys" | wc -l)
    check "$label: the dead key 1 to 4 times, the live one 8 times, nothing else ($keys)" \
        test "$dead" -ge 1 -a "$dead" -le 4 -a "$live" = 8 -a "$(wc -w <<<"$keys")" = $((dead + 8))
    [ "$mode" != stream ] || check_eq "$label: 8 whole event streams" 8 "$(grep -c 'data: \[DONE\]\\n\\n$' <<<"$out")"
    check "$label: the mock never saw the host's key" test "${keys/sk-host/}" == "$keys"
    check "$label: the loop ticked while requests waited for admission ($ticks ticks)" test "${ticks:-0}" -ge 10
    check "$label: no tick late by more than $bound ms (${late:-?} ms; $base ms without llmgate)" test "${late:-999}" -le "$bound"
    [ "$rc" = 0 ] || diag "$(tail -c 600 "$LG_TMP/err")"
}

# httpx (anyio) connects to the port in its URL (80, 443), not the one getaddrinfo answered (the upstream's):
# that connection is the provider's too, sent to the upstream's port
config "$MOCK_URL"
for c in streams aiohttp httpx; do
    gated "http $c" $c http://api.openai.com/v1/chat/completions 200
done

# asyncio's TLS on memory BIOs (aiohttp, httpx.AsyncClient over https): the request is taken from
# SSL_write_ex and sent over llmgate's own connection, the answer handed to the loop through its socket's
# readiness. httpx also with the upstream's port in its URL (the name is still api.openai.com: SNI,
# certificate and Host are the provider's). The asyncio streams client asks for Connection: close and
# reads until the connection ends.
config "https://127.0.0.1:$MOCK_TLS_PORT"
URL=https://api.openai.com/v1/chat/completions
PORT_URL=https://api.openai.com:$MOCK_TLS_PORT/v1/chat/completions
gated "https aiohttp (memory-BIO TLS)" aiohttp $URL 200
gated "https asyncio streams (memory-BIO TLS, read to the end of the connection)" streams $URL 200
gated "https httpx (memory-BIO TLS)" httpx $URL 200
gated "https httpx, the upstream's port in the URL" httpx "$PORT_URL" 200
LIVE=sk-slow
gated "https aiohttp, answers taking 400 ms" aiohttp $URL 200
gated "https httpx, answers taking 400 ms" httpx $URL 200
LIVE=sk-stream
gated "https aiohttp, streams in pieces 300 ms apart" aiohttp $URL 200 stream
gated "https httpx, streams in pieces 300 ms apart" httpx $URL 200 stream
LIVE=sk-good

# a hand-written SSLObject host: the placeholder byte that wakes it comes out of whichever call it reads its
# socket with, and its readiness wait (epoll, poll, select) also ends when llmgate's own connection has the
# live key's slow answer (else it would sleep through its 30 s timeout)
for pair in recv:epoll recvfrom:poll recvmsg:select readv:epoll read:poll recv:select; do
    how=${pair%:*} wait=${pair#*:}
    fresh
    out=$(K1=sk-dead K2=sk-slow LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 20 $PY \
          "$LG_ROOT/tests/clients/py/membio_client.py" $how $URL $wait 2>"$LG_TMP/err")
    check_match "memory-BIO host, $how and $wait: 200 from the live key" '^200 .*"mock_key":"sk-slow"' "$out"
    check_eq "memory-BIO host, $how and $wait: the dead key, then the live one" "sk-dead sk-slow" "$(reqkeys)"
done
# a request that is not the provider's (its Host is another name) is released: it goes out untouched over
# the host's own TLS connection, and the host reads the answer from there
fresh
out=$(MEMBIO_HOST=example.com K1=sk-dead K2=sk-slow LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 20 \
      $PY "$LG_ROOT/tests/clients/py/membio_client.py" recv $URL 2>"$LG_TMP/err")
check_match "memory-BIO host, another Host: answered untouched" '^200 \{"fixed":"你好, 世界"\}$' "$out"
check_eq "memory-BIO host, another Host: the server saw the host's own request only" "sk-host" "$(reqkeys)"

# no config, a server that is no provider: byte for byte what the clients see and send without llmgate
for target in "$MOCK_URL" "https://localhost:$MOCK_TLS_PORT"; do
    for c in streams aiohttp httpx; do
        curl -s -X POST "$MOCK_URL/__reset" >/dev/null
        plain=$(timeout 30 $PY "$CLIENT" $c "$target/v1/chat/completions" 3 2>/dev/null)
        sent_plain=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps(sorted(json.dumps(r["headers"]) for r in j)) + " " + " ".join(r["body_sha256"] for r in j)')
        curl -s -X POST "$MOCK_URL/__reset" >/dev/null
        pre=$(LD_PRELOAD=$LG_LIB timeout 30 $PY "$CLIENT" $c "$target/v1/chat/completions" 3 2>/dev/null)
        sent_pre=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps(sorted(json.dumps(r["headers"]) for r in j)) + " " + " ".join(r["body_sha256"] for r in j)')
        check_match "non-provider $c ${target%%:*}: answered" '^200 \{"fixed":"你好, 世界"\}' "$plain"
        check_eq "non-provider $c ${target%%:*}: the host sees the same bytes" "$plain" "$pre"
        check_eq "non-provider $c ${target%%:*}: the server receives the same requests" "$sent_plain" "$sent_pre"
    done
done
lg_done
