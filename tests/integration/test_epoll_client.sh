#!/usr/bin/env bash
# A C client on non-blocking sockets with edge-triggered epoll and a 50 ms timerfd on the same loop
# (tests/clients/epoll_client.c), plain HTTP and OpenSSL over a socket BIO: 3 requests at once, the first
# account's key dead, the second live. Each gets the live key's answer, the mock never sees the host's key,
# the account switch's wait (300 ms) is a parked exchange: the loop keeps ticking (no tick late by more
# than 200 ms) and is not woken in a spin (a bounded number of epoll_wait returns). Without a config, the
# same client to a server that is no provider sees and sends exactly what it does without the preload.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
          "sk-host": {"sequence": [{"status": 200, "body": {"fixed": "你好, 世界"}}], "repeat": true}}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
CLIENT=$LG_ROOT/build/clients/epoll_client
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }

for mode in plain tls; do
    port=80 up=$MOCK_URL
    [ $mode = tls ] && port=443 up=https://127.0.0.1:$MOCK_TLS_PORT
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$up", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 300}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/config.json"
    fresh
    out=$(K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 \
          "$CLIENT" api.openai.com $port /v1/chat/completions $mode 3 2>"$LG_TMP/err")
    rc=$?
    keys=$(reqkeys)
    read -r wakeups ticks late <<<"$(sed -n 's/^wakeups=\([0-9]*\) ticks=\([0-9]*\) max_late_ms=\([0-9]*\)$/\1 \2 \3/p' "$LG_TMP/err")"
    check_eq "epoll $mode: exits 0" 0 "$rc"
    check_eq "epoll $mode: 3 responses, all 200 from the live key" 3 "$(grep -c '^200 .*"mock_key":"sk-good"' <<<"$out")"
    check_match "epoll $mode: the dead key first, then the live one" '^sk-dead( sk-dead)* sk-good sk-good sk-good$' "$keys"
    check "epoll $mode: the mock never saw the host's key" test "${keys/sk-host/}" == "$keys"
    check "epoll $mode: the loop ticked through the wait ($ticks ticks)" test "${ticks:-0}" -ge 5
    check "epoll $mode: no tick late by more than 200 ms (${late:-?} ms)" test "${late:-999}" -le 200
    check "epoll $mode: no spinning ($wakeups epoll_wait returns for $ticks ticks)" test "${wakeups:-999}" -le $((ticks + 20))
    [ "$rc" = 0 ] || diag "$(head -c 600 "$LG_TMP/err")"

    # no config, a server that is no provider: the same bytes both ways
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    server=127.0.0.1 sport=$MOCK_PORT
    [ $mode = tls ] && server=localhost sport=$MOCK_TLS_PORT
    plain=$(timeout 30 "$CLIENT" $server $sport /v1/chat/completions $mode 2 2>/dev/null)
    sent_plain=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps([r["headers"] for r in j]) + " " + " ".join(r["body_sha256"] for r in j)')
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    pre=$(LD_PRELOAD=$LG_LIB timeout 30 "$CLIENT" $server $sport /v1/chat/completions $mode 2 2>/dev/null)
    sent_pre=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps([r["headers"] for r in j]) + " " + " ".join(r["body_sha256"] for r in j)')
    check_match "epoll $mode non-provider: answered" '^200 \{"fixed":"你好, 世界"\}' "$plain"
    check_eq "epoll $mode non-provider: the host sees the same bytes" "$plain" "$pre"
    check_eq "epoll $mode non-provider: the server receives the same requests" "$sent_plain" "$sent_pre"
done
lg_done
