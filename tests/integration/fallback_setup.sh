# Sourced by tests whose provider falls back (test_plain_tls_target, test_fallback_unreached), after lib.sh
# and the mock's start: fallback_config SPARE_URL SPARE_KEY_VAR writes $LG_TMP/config.json, openai (the
# mock, one account on $K1) falling back to "spare" (OpenAI's dialect at SPARE_URL, one account on the
# variable SPARE_KEY_VAR names); fresh empties the store and the mock's log; reqkeys prints the keys the
# mock was sent, in order.
fallback_config() {
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:K1"}], "fallback": ["spare"]},
               "spare": {"dialect": "openai", "upstream": "$1", "accounts": [{"name": "s", "key": "env:$2"}]}},
 "retry": {"attempt_timeout_ms": 5000, "max_server_retries": 0, "max_rate_limit_wait_seconds": 3}}
JSON
    chmod 600 "$LG_TMP/config.json"
}
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
