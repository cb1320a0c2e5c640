#!/usr/bin/env bash
# Issue 37, item 3: an attempt the program abandons on its own timeout (curl --max-time: libcurl's
# CURLOPT_TIMEOUT) says nothing to the circuit breaker: ten such timeouts against a slow provider, then a
# request with time to wait still reaches the provider (no 503 circuit_open).
source "$(dirname "$0")/../lib.sh"
steps=$(printf '{"delay_ms": 1500},%.0s' $(seq 1 10))
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {"sk-slow": {"sequence": [${steps%,}]}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY=sk-slow
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:KEY"}]}},
 "breaker": {"consecutive_failures": 3, "open_ms": 30000}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
# req MAXTIME: one gated curl; prints "EXIT CODE".
req() {
    local code rc
    code=$(LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -w '%{http_code}' --max-time "$1" \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -H 'Authorization: Bearer sk-host' -d "$BODY" 2>>"$LG_TMP/err")
    rc=$?
    echo "$rc $code"
}
: >"$LG_TMP/err"
outs=""
for _ in $(seq 1 10); do outs+="$(req 0.3)|"; done
check_eq "ten programs time out on their own (curl exit 28)" \
    "$(printf '28 000|%.0s' $(seq 1 10))" "$outs"
check_eq "the provider received the ten attempts" 10 "$(lg_stats | lg_json "j['keys']['sk-slow']['requests']")"
check_eq "then a request with time to wait: the provider's 200" "0 200" "$(req 20)"
check "the answer is the provider's, not a circuit_open 503" grep -q '"choices"' "$LG_TMP/out"
check_eq "the provider received it" 11 "$(lg_stats | lg_json "j['keys']['sk-slow']['requests']")"
check_eq "the breaker stayed closed" closed \
    "$("$LG_CLI" status --json | lg_json 'j["providers"]["openai"].get("breaker", {}).get("state", "closed")')"
lg_done
