#!/usr/bin/env bash
# A threaded libcurl program (8 threads x 50 requests) under the preload: every body delivered exactly
# once and intact while one key is randomly rate limited; handles reused after curl_easy_reset and
# duplicated with curl_easy_duphandle; and, under AddressSanitizer, a host that frees its header list
# right after each perform.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"seed": 7, "keys": {"sk-a": {"probability": {"429": 0.3}}, "sk-b": {"probability": {"429": 0.1}}}}
JSON
SCENARIO=$LG_TMP/scenario.json
export KEY_A=sk-a KEY_B=sk-b
# gated_mock: a mock with the scenario and $LG_TMP/config.json, the two accounts at it (LLMGATE_CONFIG)
gated_mock() {
    lg_start_mock --scenario "$SCENARIO"
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "a", "key": "env:KEY_A"}, {"name": "b", "key": "env:KEY_B"}]}},
 "retry": {"switch_delay_ms": 5, "max_attempts": 20, "max_rate_limit_wait_seconds": 60},
 "backoff": {"rate_limit_exceeded_ms": 30, "dedup_window_ms": 5, "single_account_base_ms": 10}}
JSON
    chmod 600 "$LG_TMP/config.json"
    export LLMGATE_CONFIG=$LG_TMP/config.json
}
URL=http://api.openai.com/v1/chat/completions
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
HDR=(-H 'Authorization: Bearer sk-host' -H 'Content-Type: application/json')
C=$LG_BUILD/clients

# The other hosts, each beside the 400 requests below (lg_branch) with a mock and a store of its own: the
# random 429s' cool-downs (1 s each) are mostly waiting.
reset_dup() { # MODE: --reset or --dup
    local out
    gated_mock
    out=$(LD_PRELOAD=$LG_LIB "$C/threaded_client" -t 2 -n 20 "$1" "${HDR[@]}" -d "$BODY" "$URL")
    if [ "$1" = --reset ]; then
        check_match "curl_easy_reset between requests" '^requests=40 ok=40 .*unique_ids=40$' "$out"
    else
        check_match "curl_easy_duphandle per request" '^requests=40 ok=40 .*unique_ids=40$' "$out"
    fi
}
asan_host() {
    local out
    gated_mock
    out=$(ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 LD_PRELOAD=$LG_LIB "$C/asan_threaded_client" \
          -t 4 -n 20 --free-headers "${HDR[@]}" -d "$BODY" "$URL" 2>"$LG_TMP/asan.err")
    check_match "ASan host freeing its header list after each perform" '^requests=80 ok=80 .*unique_ids=80$' "$out"
    check_absent "ASan: no report" "$LG_TMP/asan.err" 'ERROR: AddressSanitizer'
}
forking_host() {
    local out
    gated_mock
    out=$(LD_PRELOAD=$LG_LIB "$C/fork_client" -c 4 -n 10 "${HDR[@]}" -d "$BODY" "$URL")
    check_eq "a host that forks: parent and children all served through the gate" "ok=42 failed=0" "$out"
}
lg_branch reset_dup --reset
lg_branch reset_dup --dup
lg_branch asan_host
lg_branch forking_host

gated_mock
out=$(LD_PRELOAD=$LG_LIB "$C/threaded_client" -t 8 -n 50 "${HDR[@]}" -d "$BODY" "$URL")
check_eq "8 threads x 50: every body once and intact" \
    "requests=400 ok=400 status2xx=400 status429=0 other=0 curl_errors=0 intact=400 unique_ids=400" "$out"
stats=$(lg_stats)
check "the mock did send 429s that the host never saw" test "$(lg_json 'j["total"]["rate_limited"]' <<<"$stats")" -gt 0
check_eq "the mock served exactly 400 successes" 400 "$(lg_json 'j["total"]["success"]' <<<"$stats")"
lg_join
lg_done
