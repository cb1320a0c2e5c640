#!/usr/bin/env bash
# Issue 13: the notice line of a long wait is debounced per provider across processes: four programs
# backing off together on one key print one line between them (each printed its own before).
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-notice": {"sequence": [{"error": "rate_limit", "retry_after_ms": 4000}, {"error": "rate_limit", "retry_after_ms": 4000}]}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY=sk-notice
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:KEY"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
pids=()
for i in 1 2 3 4; do
    LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out.$i" -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
        http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY" \
        >"$LG_TMP/code.$i" 2>"$LG_TMP/err.$i" &
    pids+=($!)
done
wait "${pids[@]}"
# The first 429 cools the key down for 4 s; the others wait for it in admission (each would print its own
# notice); after it one request probes alone, gets the second 429, and after 4 s more all are served.
check_eq "four requests served after two 429s (one probe), in under the 10 s notice interval" "200200200200 6" \
    "$(cat "$LG_TMP"/code.{1,2,3,4}) $(lg_stats | lg_json "j['keys']['sk-notice']['requests']")"
notices=$(cat "$LG_TMP"/err.{1,2,3,4})
check_eq "one notice line between the four processes" 1 "$(grep -c '^llmgate: openai: ' <<<"$notices")"
check_match "the notice says why and how long" '^llmgate: openai: .*waiting [0-9]+s$' "$notices"

lg_done
