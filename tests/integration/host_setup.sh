# Shared by test_other_hosts.sh and test_ruby_host.sh (sourced after lib.sh): the setting of a host that
# speaks HTTP/1.1 itself. The mock with its TLS port and the test certificates (SSL_CERT_FILE), a scenario
# of keys (sk-dead: a 429 with a long Retry-After; sk-close: a 429 that closes the connection; sk-dry: a
# quota error; sk-in200: a quota error inside a 200; sk-once: one 429 with Retry-After: 1, then a success;
# sk-sse: an event stream sent in pieces), configs http.json and https.json (openai at the mock over that
# scheme, accounts "dead" (K1) and "live" (K2)) and single.json (one account, K1), and the helpers below.
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
 "sk-dead":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
 "sk-close": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after": "20"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}], "repeat": true},
 "sk-dry":   {"sequence": [{"error": "quota"}], "repeat": true},
 "sk-in200": {"sequence": [{"status": 200, "body": {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                            "type": "insufficient_quota", "code": "insufficient_quota"}}}], "repeat": true},
 "sk-once":  {"sequence": [{"status": 429, "headers": {"retry-after": "1"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}, {}]},
 "sk-sse":   {"sequence": [{"chunk": 48, "chunk_delay_ms": 3}], "repeat": true}
}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
CLIENTS=$LG_ROOT/tests/clients
for scheme in http https; do
    server=$MOCK_URL
    [ "$scheme" = https ] && server=https://127.0.0.1:$MOCK_TLS_PORT
    cat >"$LG_TMP/$scheme.json" <<JSON
{"providers": {"openai": {"upstream": "$server", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 1}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
done
cat >"$LG_TMP/single.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP"/*.json

reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
# gated CONFIG K1 K2 CMD...: runs CMD under the preload with the accounts' keys K1 and K2 after a fresh
# start; sets OUT (stdout), RC, and the host's stderr in $LG_TMP/err
gated() {
    local cfg=$1 k1=$2 k2=$3
    shift 3
    fresh
    OUT=$(K1=$k1 K2=$k2 LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 30 "$@" 2>"$LG_TMP/err")
    RC=$?
    [ "$RC" = 0 ] || diag "exit $RC: $(head -c 400 "$LG_TMP/err")"
}
# count REGEX: the lines of OUT matching REGEX
count() { grep -c -E "$1" <<<"$OUT"; }
# the stream the mock sends without llmgate, as text
WANT_SSE=$(curl -s -H 'Authorization: Bearer sk-sse' -d '{"model":"gpt-4o-mini","stream":true,"messages":[]}' "$MOCK_URL/v1/chat/completions" | sse_text)
[[ $WANT_SSE == *"|DONE" ]] || diag "the mock's own stream: $WANT_SSE"
GOOD='"mock_key":"sk-good"'
# sk-dry answers OpenAI's insufficient_quota: out of credit, set aside for backoff.billing_ms (4 h), which
# the host's Retry-After says.
QUOTA_LINE='^429 14400 QUOTA_EXHAUSTED '
