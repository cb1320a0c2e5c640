#!/usr/bin/env bash
# Resilience (issue 10), through curl under the preload against the mock provider: during an outage the
# retry budget bounds the attempts of several processes and the circuit breaker answers at once, then one
# probe lets traffic resume; a provider whose keys are dry falls back to another provider of the same
# dialect; a pinned request never falls back and reaches only its pin (the suffix stripped, the header
# not forwarded); a provider's second pool is used only once the first is out of quota.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-down": {"sequence": [{"error": "overloaded"}], "repeat": true},
          "sk-flaky": {"sequence": [{"error": "overloaded"}, {"error": "overloaded"}, {"error": "overloaded"},
                                    {"error": "overloaded"}]},
          "sk-dry": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-revoked": {"sequence": [{"error": "auth"}], "repeat": true},
          "sk-p1": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-p2": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-r1": {"sequence": [{"error": "rate_limit", "retry_after_ms": 400}], "repeat": true},
          "sk-r2": {"sequence": [{"error": "rate_limit", "retry_after_ms": 400}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_DOWN=sk-down KEY_FLAKY=sk-flaky KEY_DRY=sk-dry KEY_BACKUP=sk-backup KEY_P1=sk-p1 KEY_P2=sk-p2 KEY_P3=sk-p3 \
       KEY_R1=sk-r1 KEY_R2=sk-r2
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
reqlog() { curl -s "$MOCK_URL/__requests"; }
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
# write_config NAME JSON-MEMBERS: a 0600 config.
write_config() { printf '{%s}\n' "$2" >"$LG_TMP/$1.json"; chmod 600 "$LG_TMP/$1.json"; }
# gated CONFIG CMD...: runs CMD under the preload with that config.
gated() { local c=$1; shift; LLMGATE_CONFIG=$LG_TMP/$c.json LD_PRELOAD=$LG_LIB "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. An outage: every answer a 503. 4 processes x 5 requests; the breaker opens after 5 failures in a row.
write_config outage "\"providers\": {\"openai\": {\"upstream\": \"$MOCK_URL\",
    \"accounts\": [{\"name\": \"main\", \"key\": \"env:KEY_DOWN\"}],
    \"breaker\": {\"open_ms\": 60000}}},
  \"retry\": {\"max_rate_limit_wait_seconds\": 20, \"max_attempts\": 10}"
pids=()
for p in 1 2 3 4; do
    (for _ in 1 2 3 4 5; do
        gated outage curl -s -o /dev/null -D - "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" |
            tr -d '\r' | sed -n 's/^X-Llmgate-Reason: //p;s/^HTTP\/1.1 \([0-9]*\).*/\1/p' | paste -sd' '
    done) >"$LG_TMP/outage.$p" &
    pids+=($!)
done
wait "${pids[@]}"
answers=$(cat "$LG_TMP"/outage.*)
attempts=$(reqlog | lg_json "len([r for r in j if r['key'] == 'sk-down'])")
diag "outage: 20 host requests, $attempts attempts at the provider"
check_eq "outage: every host request ends with a 503" 20 "$(grep -c '^503 ' <<<"$answers")"
check "outage: attempts stay within 1.2 x requests + a small constant (<= 29)" test "$attempts" -le 29
check "outage: the breaker opened and answered the rest itself" test "$(grep -c 'circuit_open' <<<"$answers")" -ge 10
t0=$(now_ms)
out=$(gated outage curl -s -i "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" | tr -d '\r')
t1=$(now_ms)
check "outage: an open breaker answers in milliseconds, not after backoffs (< 1 s)" test $((t1 - t0)) -lt 1000
check_match "outage: its 503 says circuit_open, with the time until the next probe" \
    'HTTP/1.1 503.*Retry-After: (5[0-9]|60).*X-Llmgate-Reason: circuit_open' "$(tr '\n' ' ' <<<"$out")"
check_match "outage: in the provider's own error format" '"error":\{"message":"llmgate: openai is failing' "$out"
status=$(LLMGATE_CONFIG=$LG_TMP/outage.json "$LG_CLI" status --json)
check_eq "outage: status shows the breaker open, opened once" "open 1" \
    "$(lg_json "j['providers']['openai']['breaker']['state'] + ' ' + str(j['providers']['openai']['breaker']['opened'])" <<<"$status")"
check_match "outage: and so does the Prometheus output" 'llmgate_breaker_open\{provider="openai"\} 1' \
    "$(LLMGATE_CONFIG=$LG_TMP/outage.json "$LG_CLI" status --prometheus)"
check_match "outage: and the text" 'openai +open +[0-9]+s +1 +0' "$(LLMGATE_CONFIG=$LG_TMP/outage.json "$LG_CLI" status)"

# 1b. The same outage with the breaker kept shut (never opens): the retry budget alone bounds the attempts,
# whatever max_attempts and max_server_retries allow (3 attempts per request without it).
fresh_store
reset_mock
write_config budget "\"providers\": {\"openai\": {\"upstream\": \"$MOCK_URL\",
    \"accounts\": [{\"name\": \"main\", \"key\": \"env:KEY_DOWN\"}],
    \"breaker\": {\"consecutive_failures\": 0, \"min_requests\": 1000000}}},
  \"retry\": {\"max_rate_limit_wait_seconds\": 20, \"max_attempts\": 10},
  \"backoff\": {\"single_account_base_ms\": 10, \"single_account_max_ms\": 20}"
pids=()
for p in 1 2 3 4; do
    (for _ in 1 2 3 4 5; do
        gated budget curl -s -o /dev/null -w '%{http_code}\n' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY"
    done) >"$LG_TMP/budget.$p" &
    pids+=($!)
done
wait "${pids[@]}"
attempts=$(reqlog | lg_json "len([r for r in j if r['key'] == 'sk-down'])")
diag "budget: 20 host requests, $attempts attempts at the provider"
check_eq "budget: every host request ends with the provider's 503" 20 "$(cat "$LG_TMP"/budget.* | grep -c '^503$')"
check "budget: attempts within 1.2 x requests + the floor of 5 (<= 29), not 3 per request" test "$attempts" -le 29

# 2. Recovery: 3 failures in a row open the breaker (open 1.5 s); after it one probe alone goes; a failed
# probe opens it again for twice as long; the provider recovers (its script ends) and the next probe closes
# the breaker: traffic resumes.
fresh_store
reset_mock
write_config recover "\"providers\": {\"openai\": {\"upstream\": \"$MOCK_URL\",
    \"accounts\": [{\"name\": \"main\", \"key\": \"env:KEY_FLAKY\"}],
    \"breaker\": {\"open_ms\": 1500, \"consecutive_failures\": 3}}},
  \"retry\": {\"max_rate_limit_wait_seconds\": 5, \"max_server_retries\": 0},
  \"backoff\": {\"single_account_base_ms\": 10, \"single_account_max_ms\": 20}"
for _ in 1 2 3 4 5; do gated recover curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY"; done
before=$(reqlog | lg_json "len(j)")
check_eq "recovery: the breaker opened after 3 failures in a row" 3 "$before"
sleep 1.6
codes=""
for _ in 1 2 3; do
    codes+=$(gated recover curl -s -o /dev/null -w '%{http_code} ' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
done
diag "recovery: after the open period: $codes"
check_eq "recovery: the probe failed (scripted) and the breaker opened again" "503 503 503 " "$codes"
check_eq "recovery: only the probe reached the provider" $((before + 1)) "$(reqlog | lg_json "len(j)")"
sleep 3.1
codes=""
for _ in 1 2 3; do
    codes+=$(gated recover curl -s -o /dev/null -w '%{http_code} ' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
done
check_eq "recovery: after the doubled open period the probe succeeds and traffic resumes" "200 200 200 " "$codes"
check_eq "recovery: one probe, then the rest" $((before + 4)) "$(reqlog | lg_json "len(j)")"

# 3a. Fallback after a refusal: the primary's only key is refused (401); the backup serves at once
fresh_store
reset_mock
write_config fallback_refused "\"providers\": {
    \"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [{\"name\": \"main\", \"key\": \"env:KEY_REVOKED\"}],
                 \"fallback\": [\"backup\"]},
    \"backup\": {\"dialect\": \"openai\", \"upstream\": \"$MOCK_URL/\",
                 \"accounts\": [{\"name\": \"spare\", \"key\": \"env:KEY_BACKUP\"}]}},
  \"retry\": {\"max_rate_limit_wait_seconds\": 5}"
out=$(KEY_REVOKED=sk-revoked gated fallback_refused curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code}')
check_eq "fallback after a refused key: the host gets a 200" 200 "$(tail -n1 <<<"$out")"
check_eq "fallback after a refused key: the refused key, then the backup's" "sk-revoked sk-backup" \
    "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 3. Fallback: every key of the primary is out of quota; the request is served by the backup provider.
fresh_store
reset_mock
write_config fallback "\"providers\": {
    \"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [{\"name\": \"main\", \"key\": \"env:KEY_DRY\"}],
                 \"fallback\": [\"backup\"]},
    \"backup\": {\"dialect\": \"openai\", \"upstream\": \"$MOCK_URL/\",
                 \"accounts\": [{\"name\": \"spare\", \"key\": \"env:KEY_BACKUP\"}],
                 \"models\": {\"gpt-4o-*\": \"gpt-4o-mini-2024-07-18\"}}},
  \"retry\": {\"max_rate_limit_wait_seconds\": 5}"
out=$(gated fallback curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code}')
check_eq "fallback: the host gets a 200" 200 "$(tail -n1 <<<"$out")"
check_eq "fallback: the primary's dry key, then the backup's" "sk-dry sk-backup" \
    "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
sent=$(printf '%s' "$BODY" | sed 's/"gpt-4o-mini"/"gpt-4o-mini-2024-07-18"/' | sha256sum | cut -d' ' -f1)
check_eq "fallback: the backup got the model its map names, every other byte the host's" "$sent" \
    "$(reqlog | lg_json 'j[-1]["body_sha256"]')"
status=$(LLMGATE_CONFIG=$LG_TMP/fallback.json "$LG_CLI" status --json)
check_eq "fallback: status shows where the request went" "1 1" \
    "$(lg_json "str(j['providers']['backup']['accounts']['spare']['requests']) + ' ' + str(j['providers']['openai']['fell_back'])" <<<"$status")"
out=$(gated fallback curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code}')
check_eq "fallback: the next request skips the locked key and goes to the backup at once" \
    "sk-dry sk-backup sk-backup" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 4. Pins: a model suffix or an X-Llmgate-Pin header sends the request only to the named provider.
fresh_store
reset_mock
pinned=$(printf '%s' "$BODY" | sed 's/"gpt-4o-mini"/"gpt-4o-mini:backup"/')
out=$(gated fallback curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$pinned" -w '\n%{http_code}')
check_eq "pin by suffix: served" 200 "$(tail -n1 <<<"$out")"
check_eq "pin by suffix: only the backup was asked" "sk-backup" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
check_eq "pin by suffix: the suffix stripped (then the backup's map applied)" "$sent" "$(reqlog | lg_json 'j[-1]["body_sha256"]')"
reset_mock
out=$(gated fallback curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -H 'X-Llmgate-Pin: openai' \
    -d "$BODY" -w '\n%{http_code}')
check_eq "pin by header to the dry primary: its error, no fallback" 429 "$(tail -n1 <<<"$out")"
check_eq "pin by header: only the primary was asked" "sk-dry" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
check_eq "pin by header: the header is never forwarded" "False" \
    "$(reqlog | lg_json "any('x-llmgate-pin' in r['headers'] for r in j)")"

# 5. Pools: pool "one" (two dry keys) is drained before pool "two" is touched, in account order otherwise.
fresh_store
reset_mock
write_config pools "\"providers\": {\"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [
    {\"name\": \"a1\", \"key\": \"env:KEY_P1\", \"pool\": \"one\"},
    {\"name\": \"b1\", \"key\": \"env:KEY_P3\", \"pool\": \"two\"},
    {\"name\": \"a2\", \"key\": \"env:KEY_P2\", \"pool\": \"one\"}]}},
  \"retry\": {\"pool_fallback\": true, \"max_rate_limit_wait_seconds\": 5}"
out=$(gated pools curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code}')
check_eq "pools: served" 200 "$(tail -n1 <<<"$out")"
check_eq "pools: both keys of pool one before pool two" "sk-p1 sk-p2 sk-p3" \
    "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
# Merely rate-limited keys of pool one do not spill over to pool two: it is not out of quota.
fresh_store
reset_mock
write_config pools2 "\"providers\": {\"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [
    {\"name\": \"a1\", \"key\": \"env:KEY_R1\", \"pool\": \"one\"},
    {\"name\": \"b1\", \"key\": \"env:KEY_P3\", \"pool\": \"two\"},
    {\"name\": \"a2\", \"key\": \"env:KEY_R2\", \"pool\": \"one\"}]}},
  \"retry\": {\"pool_fallback\": true, \"max_rate_limit_wait_seconds\": 3, \"switch_delay_ms\": 50}"
out=$(gated pools2 curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code}')
check_eq "pools: rate limits in pool one end in its 429, not in pool two" 429 "$(tail -n1 <<<"$out")"
check_eq "pools: pool two never asked" "False" "$(reqlog | lg_json "any(r['key'] == 'sk-p3' for r in j)")"
lg_done
