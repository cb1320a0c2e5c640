#!/usr/bin/env bash
# LLMGATE_DEBUG=1 prints one "[Request]" line for every request llmgate gated (provider, account name,
# status, outcome, attempts, time waited), whatever front end carried it: curl (libcurl easy), curl -Z
# (libcurl multi), Python's http.client (the socket hooks); a retry, and an answer llmgate gives itself.
# The line never holds a key or the URL. Without LLMGATE_DEBUG nothing is printed.
source "$(dirname "$0")/../lib.sh"

KEY_OK=sk-secret-Q8wZ3rLm
KEY_BRIEF=sk-secret-brief-V6tN2pXc
KEY_LOCKED=sk-secret-locked-H9kD4sWe
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {
  "$KEY_BRIEF":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 200}]},
  "$KEY_LOCKED": {"sequence": [{"error": "rate_limit", "retry_after_ms": 3600000}], "repeat": true}
}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json"
export KEY_OK KEY_BRIEF KEY_LOCKED
HOST_KEY=sk-host-Z5cR1mYu
ALL_KEYS="$KEY_OK $KEY_BRIEF $KEY_LOCKED $HOST_KEY"

# write_config NAME ACCOUNT KEY-VAR: one openai account on the mock, small durations.
write_config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "$2", "key": "env:$3"}]}},
 "retry": {"same_key_retry_delay_ms": 20, "max_rate_limit_wait_seconds": 2},
 "backoff": {"single_account_base_ms": 100, "single_account_max_ms": 400, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
write_config ok a KEY_OK
write_config brief b KEY_BRIEF
write_config locked c KEY_LOCKED

BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
ERR=$LG_TMP/err
gated() { LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB "${@:2}"; }
# post CONFIG [CURL-ARGS...]: one request with curl; prints the status the host sees
post() { gated "$1" curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -o /dev/null -w '%{http_code}' "${@:2}" 2>"$ERR"; }
lines() { grep -a '\[Request\]' "$ERR"; }
count() { grep -a -c '\[Request\]' "$ERR"; }

# 1. curl, a plain success: one line naming the provider, the account, 200, one attempt, no wait
status=$(LLMGATE_DEBUG=1 post ok)
check_eq "easy success: host sees 200" 200 "$status"
check_eq "easy success: one request line" 1 "$(count)"
check_eq "easy success: the line" "llmgate: [Request] openai account=a status=200 outcome=SUCCESS attempts=1 waited_ms=0" "$(lines)"
lines >"$LG_TMP/line1"
check_absent "easy success: the line holds no URL" "$LG_TMP/line1" "api.openai.com" "/v1/" "127.0.0.1" "http:"
check_no_key "easy success: no key on stderr" "$ALL_KEYS" "$ERR"

# 2. a 429 first, then the retry succeeds on the same account: one line, two attempts, the backoff waited
status=$(LLMGATE_DEBUG=1 post brief)
check_eq "retry: host sees 200" 200 "$status"
check_eq "retry: one request line" 1 "$(count)"
check_match "retry: the line" "^llmgate: \[Request\] openai account=b status=200 outcome=SUCCESS attempts=2 waited_ms=[1-9][0-9]*$" "$(lines)"
check_no_key "retry: no key on stderr" "$ALL_KEYS" "$ERR"

# 3. an answer llmgate gives itself: the provider's 429 delivered, then a local refusal (nothing sent)
LLMGATE_DEBUG=1 post locked >/dev/null
check_match "provider's 429: the line" "^llmgate: \[Request\] openai account=c status=429 outcome=RETRYABLE_RATE_LIMIT attempts=1 waited_ms=0$" "$(lines)"
status=$(LLMGATE_DEBUG=1 post locked)
check_eq "local refusal: host sees 429" 429 "$status"
check_eq "local refusal: one request line" 1 "$(count)"
check_eq "local refusal: the line" "llmgate: [Request] openai account=- status=429 outcome=REFUSED attempts=0 waited_ms=0" "$(lines)"

# 4. curl -Z (libcurl multi): one line per request
LLMGATE_DEBUG=1 gated ok curl -s -Z "${CT[@]}" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -o /dev/null -o /dev/null \
    "$URL" "$URL" 2>"$ERR"
check_eq "multi: two request lines" 2 "$(count)"
check_eq "multi: both successes on account a" 2 "$(grep -a -c 'openai account=a status=200 outcome=SUCCESS attempts=1' "$ERR")"

# 5. Python's http.client (the socket hooks): one line
out=$(LLMGATE_DEBUG=1 LLMGATE_CONFIG=$LG_TMP/ok.json LD_PRELOAD=$LG_LIB timeout 30 /usr/bin/python3 \
    "$LG_ROOT/tests/clients/py/http_clients.py" http.client "$URL" 1 2>"$ERR")
check_match "http.client: the host gets 200" "^200 " "$out"
check_eq "http.client: one request line" 1 "$(count)"
check_eq "http.client: the line" "llmgate: [Request] openai account=a status=200 outcome=SUCCESS attempts=1 waited_ms=0" "$(lines)"
check_no_key "http.client: no key on stderr" "$ALL_KEYS sk-host" "$ERR"

# 6. without LLMGATE_DEBUG: nothing on stderr, from either front end
status=$(post ok)
check_eq "no debug: curl gets 200" 200 "$status"
check_eq "no debug: curl's stderr is empty" "" "$(cat "$ERR")"
LLMGATE_CONFIG=$LG_TMP/ok.json LD_PRELOAD=$LG_LIB timeout 30 /usr/bin/python3 \
    "$LG_ROOT/tests/clients/py/http_clients.py" http.client "$URL" 1 >/dev/null 2>"$ERR"
check_eq "no debug: http.client's stderr is empty" "" "$(cat "$ERR")"

lg_done
