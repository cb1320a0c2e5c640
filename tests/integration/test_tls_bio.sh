#!/usr/bin/env bash
# OpenSSL hosts that build their connection from SSL BIOs (BIO_new_ssl_connect, BIO_new_buffer_ssl_connect,
# BIO_f_ssl pushed onto a connect BIO; the first non-blocking, BIO_set_nbio) and talk through BIO_write / BIO_puts / BIO_read / BIO_gets: libssl's
# SSL BIO reads and writes its session inside libssl, past the SSL_read / SSL_write interposers, so llmgate
# hands the host an SSL BIO method of its own (BIO_f_ssl, interposed) whose reads and writes go through them.
# A C client (tests/clients/bio_ssl_client.c) under the preload against the mock's TLS port: the mock gets the
# account's key, never the program's, and the host its answer, in each of the three ways; a 429 then a success
# (on one account, and a 429 that closes the connection before another account) is retried unseen; a host that
# is no provider's passes untouched, its own key and all. Then two ways again before nginx as a TLS front.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
 "sk-once":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 300}, {}]},
 "sk-close": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after": "20"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}], "repeat": true},
 "sk-host":  {"sequence": [{"status": 200, "body": {"fixed": "the program's own"}}], "repeat": true},
 "sk-rl":    {"sequence": [{"status": 200, "body": {"id": "chatcmpl-rl", "object": "chat.completion", "model": "gpt-4o-mini",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}},
                            "headers": {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499",
                                        "x-ratelimit-reset-requests": "120ms", "x-ratelimit-limit-tokens": "30000",
                                        "x-ratelimit-remaining-tokens": "29980", "x-ratelimit-reset-tokens": "40ms"}}], "repeat": true}
}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
CLIENT=$LG_BUILD/clients/bio_ssl_client
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT",
                         "accounts": [{"name": "first", "key": "env:K1"}, {"name": "second", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
sed 's/, {"name": "second", "key": "env:K2"}//' "$LG_TMP/config.json" >"$LG_TMP/one.json"
chmod 600 "$LG_TMP/config.json" "$LG_TMP/one.json"
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
# run WAY HOST PORT K1 [K2]: the client under the preload (one account without K2), its answer on stdout, its
# errors in $LG_TMP/err
run() {
    local cfg=config
    [ -n "${5:-}" ] || cfg=one
    K1=$4 K2=${5:-} LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 60 "$CLIENT" "$1" "$2" "$3" \
        /v1/chat/completions sk-host "$BODY" 2>"$LG_TMP/err"
}

for way in connect buffer fssl nbio; do
    # the account's key, the host's answer
    fresh
    out=$(run $way api.openai.com 443 sk-good sk-second)
    check_eq "$way: exits 0" 0 "$?"
    check_match "$way: the host got the provider's 200" $'^HTTP/1\\.1 200' "$out"
    check_match "$way: the answer to the account's key" '"mock_key":"sk-good"' "$out"
    check_eq "$way: the mock got the account's key, never the program's" "sk-good" "$(reqkeys)"
    [ -s "$LG_TMP/err" ] && diag "$(head -c 600 "$LG_TMP/err")"
    if [ $way = connect ]; then # what llmgate says of it holds no key
        fresh
        out=$(LLMGATE_DEBUG=1 run $way api.openai.com 443 sk-live-7f3a9c1e2b sk-spare-5d8e0a4c6f)
        check_match "$way, debug: gated" '\[Request\] openai' "$(cat "$LG_TMP/err")"
        check_no_key "$way, debug: no key in llmgate's lines" "sk-live-7f3a9c1e2b sk-spare-5d8e0a4c6f" "$LG_TMP/err"
    fi

    # a 429 on the one account, then its success: retried, the host sees the success only
    fresh
    out=$(run $way api.openai.com 443 sk-once)
    check_match "$way, 429 then 200: the host got the 200" $'^HTTP/1\\.1 200.*"mock_key":"sk-once"' "$out"
    check_eq "$way, 429 then 200: the account asked twice" "sk-once sk-once" "$(reqkeys)"

    # a 429 that closes the connection: the next account over a new session of the host's context
    fresh
    out=$(run $way api.openai.com 443 sk-close sk-good)
    check_match "$way, 429 and close: the second account's 200" $'^HTTP/1\\.1 200.*"mock_key":"sk-good"' "$out"
    check_eq "$way, 429 and close: the first account then the second" "sk-close sk-good" "$(reqkeys)"
done

# a host that is no provider's (the mock by its own name): untouched, the program's key and answer
for way in connect fssl nbio; do
    fresh
    out=$(run $way localhost "$MOCK_TLS_PORT" sk-good sk-second)
    check_match "$way, no provider: the server's own answer" '"fixed":"the program.s own"' "$out"
    check_eq "$way, no provider: the program's key went out as it was" "sk-host" "$(reqkeys)"
done
# the same hosts before another server: Debian's nginx as the provider's TLS front (h2,http/1.1 by ALPN, TLS
# 1.3) over the mock's plain port, answering with the rate-limit headers OpenAI sends on every answer
lg_start_nginx_front "127.0.0.1:$MOCK_PORT"
sed -i "s#https://127.0.0.1:$MOCK_TLS_PORT#https://127.0.0.1:$NGINX_PORT#" "$LG_TMP/config.json" "$LG_TMP/one.json"
for way in connect nbio; do
    fresh
    out=$(run $way api.openai.com 443 sk-rl sk-second)
    check_match "$way via nginx: the host got the 200 with its rate-limit headers" \
        $'^HTTP/1\\.1 200.*x-ratelimit-remaining-tokens: 29980.*"id":"chatcmpl-rl"' "$out"
    check_eq "$way via nginx: the provider got the account's key, never the program's" "HTTP/1.1 200 Bearer sk-rl" \
        "$(tail -n 1 "$NGINX_LOG")"
    fresh
    out=$(run $way api.openai.com 443 sk-once)
    check_match "$way via nginx, 429 then 200: the host got the 200" $'^HTTP/1\\.1 200.*"mock_key":"sk-once"' "$out"
    check_eq "$way via nginx, 429 then 200: the account asked twice" "sk-once sk-once" "$(reqkeys)"
done
lg_done
