#!/usr/bin/env bash
# Issue 37, item 6: messages that say what happened. A 500 is backed off as a server error, in the log and
# in the notice (not "rate limited"); a Redis that wants a password the URL does not give, or refuses the
# one it gives, is reported as such (not "no answer in time"); a config with 200 accounts is refused naming
# the limit and the count. (`llmgate status` in 120 columns: test_status.)
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-msg-500": {"sequence": [{"error": "server_error", "retry_after_ms": 3000}, {},
                                      {"error": "server_error", "retry_after_ms": 3000}]}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY=sk-msg-500
# config NAME [STORE-JSON]: a one-account config.
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:KEY"}]}}${2:+, \"store\": $2}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
# req CONFIG: one gated curl; prints its status code; its stderr goes to $LG_TMP/err.
req() {
    LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -H 'Authorization: Bearer sk-host' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}' \
        2>"$LG_TMP/err"
}

# 1. A 500 with a 3 s hint: the notice on stderr, then (the second 500) the log.
config plain
check_eq "500 then 200: the host gets the 200" 200 "$(req plain)"
check_match "500: the notice says server error" '^llmgate: openai: server error, backing off, waiting [0-9]+s$' "$(cat "$LG_TMP/err")"
check_absent "500: the notice does not say rate limited" "$LG_TMP/err" "rate limited"
export LLMGATE_LOG=$LG_TMP/log; req plain >/dev/null; unset LLMGATE_LOG
check_match "500: the log's wait line says server error" '\[Wait\] openai: server error, backing off' "$(cat "$LG_TMP/log")"
check_absent "500: the log does not say rate limited" "$LG_TMP/log" "rate limited"

# 2. Redis with a password.
lg_start_redis
redis-cli -p "$REDIS_PORT" config set requirepass s3cret-msg >/dev/null
config nopass "{\"backend\": \"redis\", \"redis_url\": \"redis://127.0.0.1:$REDIS_PORT\"}"
config wrongpass "{\"backend\": \"redis\", \"redis_url\": \"redis://:wrong@127.0.0.1:$REDIS_PORT\"}"
check_eq "redis without a password: served from this machine's store" 200 "$(req nopass)"
check_match "redis without a password: the line says it requires one" \
    '^llmgate: redis store 127.0.0.1:[0-9]+ unavailable \(authentication required: store.redis_url has no password\)' "$(cat "$LG_TMP/err")"
check_eq "redis without a password: one line" 1 "$(wc -l <"$LG_TMP/err")"
check_eq "redis with a wrong password: served" 200 "$(req wrongpass)"
check_match "redis with a wrong password: the line says authentication refused" \
    '^llmgate: redis store 127.0.0.1:[0-9]+ unavailable \(authentication refused\)' "$(cat "$LG_TMP/err")"
check_absent "redis with a wrong password: not 'no answer in time'" "$LG_TMP/err" "no answer"

# 3. 200 accounts.
accts=$(for i in $(seq 1 200); do printf '{"name": "a%d", "key": "env:KEY"},' "$i"; done)
cat >"$LG_TMP/many.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [${accts%,}]}}}
JSON
chmod 600 "$LG_TMP/many.json"
out=$("$LG_CLI" check-config "$LG_TMP/many.json" 2>&1)
check_match "200 accounts: check-config names the limit and the count" 'providers.openai.accounts: expected an array of at most 64 accounts, got 200' "$out"
lg_done
