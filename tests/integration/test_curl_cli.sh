#!/usr/bin/env bash
# The curl command line under the preload against the mock provider: rotation, single-key backoff,
# give-up with the normalized 429, errors inside 200 bodies, -i/-o/-w/-f/--retry, non-replayable bodies,
# non-provider traffic untouched, logs without keys. Plain HTTP; test_curl_tls.sh covers HTTPS.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
  "sk-limited-R7qZ2xWp":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
  "sk-locked":   {"sequence": [{"error": "rate_limit", "retry_after_ms": 3600000}], "repeat": true},
  "sk-locked2":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 3600000}], "repeat": true},
  "sk-flaky":    {"sequence": [{"status": 429, "body": "{\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"},
                               {"status": 429, "body": "{\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}]},
  "sk-baidu":    {"sequence": [{"error_in_200": true}], "repeat": true},
  "sk-e200":     {"sequence": [{"error_in_200": true}], "repeat": true},
  "sk-quota":    {"sequence": [{"error": "quota"}], "repeat": true},
  "sk-badreq":   {"sequence": [{"error": "bad_request"}], "repeat": true},
  "sk-slow":     {"sequence": [{"error": "rate_limit", "retry_after_ms": 3000}]},
  "sk-reset":    {"sequence": [{"reset": true}]},
  "sk-trunc":    {"sequence": [{"truncate": 10}]},
  "sk-deadconn": {"sequence": [{"reset": true}], "repeat": true},
  "sk-stale":    {"sequence": [{}, {"reset": true}, {}]},
  "sk-brief-T5mW8kQz": {"sequence": [{"error": "rate_limit", "retry_after_ms": 200}]},
  "sk-revoked":  {"sequence": [{"error": "auth"}], "repeat": true},
  "sk-revoked2": {"sequence": [{"error": "auth"}], "repeat": true}
}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json"
export KEY_STALE=sk-stale KEY_RESET=sk-reset KEY_TRUNC=sk-trunc KEY_DEAD=sk-deadconn KEY_SLOW=sk-slow KEY_LIMITED=sk-limited-R7qZ2xWp KEY_GOOD=sk-good-M4vK9tLc KEY_LOCKED=sk-locked KEY_LOCKED2=sk-locked2 KEY_FLAKY=sk-flaky \
       KEY_BAIDU=sk-baidu KEY_QUOTA=sk-quota KEY_BADREQ=sk-badreq KEY_BRIEF=sk-brief-T5mW8kQz KEY_REVOKED=sk-revoked \
       KEY_REVOKED2=sk-revoked2 KEY_E200=sk-e200
HOST_KEY=sk-host-J3nB8yQd
# every key of this test, for the leak checks
ALL_KEYS="$KEY_STALE $KEY_RESET $KEY_TRUNC $KEY_DEAD $KEY_SLOW $KEY_LIMITED $KEY_GOOD $KEY_LOCKED $KEY_LOCKED2 $KEY_FLAKY $KEY_BAIDU
          $KEY_QUOTA $KEY_BADREQ $KEY_BRIEF $KEY_REVOKED $KEY_REVOKED2 $KEY_E200 $HOST_KEY"

# write_config NAME JSON-PROVIDERS [JSON-RETRY-MEMBERS]: a 0600 config file with small durations.
write_config() {
    local retry=${3:-'"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 5'}
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {$2},
 "retry": {"same_key_retry_delay_ms": 20, "switch_after_retry_ms": 50, $retry},
 "backoff": {"single_account_base_ms": 100, "single_account_max_ms": 400, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
openai() { echo "\"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [$1]}"; }
acct() { echo "{\"name\": \"$1\", \"key\": \"env:$2\"}"; }

BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
gated() { LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB "${@:2}"; }
reqlog() { curl -s "$MOCK_URL/__requests"; }
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
# got_sizes CONFIG: one request with -D and -o files; prints the sizes of the two files, then curl -w's
# size_header, size_download (libcurl's HEADER_SIZE and SIZE_DOWNLOAD, which PHP's split of CURLOPT_HEADER
# output uses), the error buffer in brackets and the content type: "H B H B [] TYPE" when getinfo tells what
# the host got
got_sizes() {
    gated "$1" curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -D "$LG_TMP/h.txt" \
        -o "$LG_TMP/b.txt" -w '%{size_header} %{size_download} [%{errormsg}] %{content_type}' >"$LG_TMP/w.txt"
    echo "$(stat -c %s "$LG_TMP/h.txt") $(stat -c %s "$LG_TMP/b.txt") $(cat "$LG_TMP/w.txt")"
}
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
# provider_answered WHAT: the answer checked came from the provider, not from llmgate's store (the mock
# logged the request since its last reset)
provider_answered() {
    local n; n=$(reqlog | lg_json 'len(j)')
    check "$1: the answer is the provider's (the mock got ${n:-0} requests)" test "${n:-0}" -ge 1
}

# 1. rotation: the first key is rate limited, the second serves; curl prints the success and exits 0
write_config rotate "$(openai "$(acct main KEY_LIMITED), $(acct backup KEY_GOOD)")"
out=$(gated rotate curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}' 2>"$LG_TMP/err")
rc=$?
check_eq "rotation: curl exits 0" 0 "$rc"
check_eq "rotation: host sees 200" 200 "$(tail -n1 <<<"$out")"
check_match "rotation: body served by the backup key" "\"mock_key\":\"$KEY_GOOD\"" "$out"
check_eq "rotation: stderr untouched" "" "$(cat "$LG_TMP/err")"
keys=$(reqlog | lg_json '" ".join(r["key"] for r in j)')
check_eq "rotation: provider saw main then backup, never the host's key" "$KEY_LIMITED $KEY_GOOD" "$keys"
# the switch sticks: the next request goes straight to the backup
reset_mock
gated rotate curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -o /dev/null
check_eq "rotation: the next request starts on the backup (main still cools down)" "$KEY_GOOD" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 1b. stickiness: main is refused once with a short hint; after that cooldown has ended, the next request
# still starts on the backup, the provider's current account, not on the first account of the list
write_config sticky "$(openai "$(acct main KEY_BRIEF), $(acct backup KEY_GOOD)")"
reset_mock
fresh_store
code=$(gated sticky curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY")
check_eq "stickiness: the first request is served by the backup" 200 "$code"
main_free() { LLMGATE_CONFIG=$LG_TMP/sticky.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["main"]["available"]'; }
for _ in $(seq 1 100); do [ "$(main_free)" = True ] && break; sleep 0.1; done
check_eq "stickiness: main's cooldown (the mock's 1 s Retry-After) is over before the next request" True "$(main_free)"
gated sticky curl -s -o /dev/null "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY"
check_eq "stickiness: the next request stays on the backup" "$KEY_BRIEF $KEY_GOOD $KEY_GOOD" \
    "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 2. curl's own options: -i, -o, -w, -f
reset_mock
gated rotate curl -s -i "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" >"$LG_TMP/i.out"
check_match "-i: status line of the success" '^HTTP/1\.1 200' "$(head -n1 "$LG_TMP/i.out")"
check "-i: exactly one header block" test "$(grep -c '^HTTP/' "$LG_TMP/i.out")" = 1
gated rotate curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -o "$LG_TMP/o.json"
check_match "-o: file holds one intact body" '^\{"id":"chatcmpl-mock-[0-9]+".*\}$' "$(cat "$LG_TMP/o.json")"

# 3. give up at once when every key is locked past the maximum wait; then refuse without sending
write_config locked "$(openai "$(acct a KEY_LOCKED), $(acct b KEY_LOCKED2)")" '"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 20'
reset_mock
start=$(date +%s%N)
out=$(gated locked curl -s -i "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY")
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_match "give-up: host sees 429" '^HTTP/1\.1 429' "$out"
check_match "give-up: Retry-After is the keys' hour, in seconds" $'\n''[Rr]etry-[Aa]fter: (359[0-9]|3600)'$'\r' "$out"
check_match "give-up: X-Llmgate-Reason header" 'X-Llmgate-Reason: RATE_LIMIT_EXCEEDED' "$out"
check_match "give-up: body in the provider's format" '"code": ?"rate_limit_exceeded"' "$out"
check "give-up: at once, not after the maximum wait of 20 s (${ms} ms)" test "$ms" -lt 10000
reset_mock
fresh_store
read -r fh fb hs sd em ct <<<"$(got_sizes locked)"
check_eq "give-up: header_size and size_download are what the host got (the added headers too)" "$fh $fb []" "$hs $sd $em"
n1=$(reqlog | lg_json 'len(j)')
out=$(gated locked curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}')
check_eq "refused: host sees 429" 429 "$(tail -n1 <<<"$out")"
check_match "refused: openai error format" '"error":\{"message":"llmgate: every account of openai.*"code":"rate_limit_exceeded"' "$out"
check_eq "refused: the provider was not contacted" "$n1" "$(reqlog | lg_json 'len(j)')"
read -r fh fb hs sd em ct <<<"$(got_sizes locked)"
check_eq "refused: header_size, size_download, content type of llmgate's own answer" "$fh $fb [] application/json" "$hs $sd $em $ct"
out=$(gated locked curl -s -i "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY")
check_match "refused: curl -i shows llmgate's own header block" $'^HTTP/1\\.1 429 Too Many Requests\r\nContent-Type: application/json\r\n' "$out"
check_match "refused: Retry-After is the keys' hour, in seconds" $'\r\nRetry-After: (359[0-9]|3600)\r\n' "$out"
out=$(gated locked curl -s -f "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" 2>&1)
check_eq "-f: curl exits 22 as without llmgate" 22 "$?"
gated locked curl -sS -f "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" 2>"$LG_TMP/f.err" >"$LG_TMP/f.out"
check_eq "-f: no body on stdout" "" "$(cat "$LG_TMP/f.out")"
check_eq "-f: curl's own error line" "curl: (22) The requested URL returned error: 429" "$(cat "$LG_TMP/f.err")"

# 4. single key: exponential backoff 300 ms, 600 ms, then success; measured between the provider's arrivals
cat >"$LG_TMP/single.json" <<JSON
{"providers": {$(openai "$(acct only KEY_FLAKY)")},
 "retry": {"max_rate_limit_wait_seconds": 10},
 "backoff": {"single_account_base_ms": 300, "single_account_max_ms": 2000, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/single.json"
reset_mock
out=$(gated single curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}')
check_eq "single key: success after two 429s" 200 "$(tail -n1 <<<"$out")"
check_eq "single key: three requests reached the provider" 3 "$(reqlog | lg_json 'len(j)')"
read -r gap1 gap2 <<<"$(lg_arrivals "$KEY_FLAKY" | awk 'NR > 1 { printf "%d ", $1 - prev } { prev = $1 }')"
check "single key: first backoff at least 300 ms (${gap1:-?} ms)" test "${gap1:-0}" -ge 300
check "single key: second backoff doubled to at least 600 ms (${gap2:-?} ms)" test "${gap2:-0}" -ge 600

# 5. an error inside an HTTP 200 (Baidu error_code 18) reaches the host as a real 429
cat >"$LG_TMP/baidu.json" <<JSON
{"providers": {"baidu-qianfan": {"upstream": "$MOCK_URL", "accounts": [{"name": "b", "key": "env:KEY_BAIDU"}]}},
 "retry": {"max_rate_limit_wait_seconds": 0.3}, "backoff": {"single_account_base_ms": 100}}
JSON
chmod 600 "$LG_TMP/baidu.json"
# Each request of this section starts from a fresh store and a fresh mock log: the single account's backoff
# that a request leaves running would otherwise answer the next one locally (rightly, but then the answer
# checked here would be llmgate's refusal, not the provider's 200 read as a 429).
reset_mock
fresh_store
out=$(LLMGATE_CONFIG=$LG_TMP/baidu.json LD_PRELOAD=$LG_LIB curl -s -i \
      --connect-to "aip.baidubce.com:80:127.0.0.1:$MOCK_PORT" \
      "http://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions" -d "$BODY" -w '\n%{http_code}')
check_match "200-with-error: status line rewritten to 429" '^HTTP/1\.1 429' "$out"
check_eq "200-with-error: -w http_code says 429" 429 "$(tail -n1 <<<"$out")"
check_match "200-with-error: body kept in Baidu's format" '"error_code": ?18' "$out"
provider_answered "200-with-error"
# the same answer compressed (the mock gzips when asked, as providers do): a raw Accept-Encoding line of the
# host's is left out, so the provider answers plainly and the error is read; with --compressed libcurl
# asks and decodes itself, and the error is read from what it decoded
for enc in "-H Accept-Encoding:gzip" --compressed; do
    reset_mock
    fresh_store
    out=$(LLMGATE_CONFIG=$LG_TMP/baidu.json LD_PRELOAD=$LG_LIB curl -s -i $enc \
          --connect-to "aip.baidubce.com:80:127.0.0.1:$MOCK_PORT" \
          "http://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions" -d "$BODY" -w '\n%{http_code}')
    check_eq "200-with-error, curl $enc: -w http_code says 429" 429 "$(tail -n1 <<<"$out")"
    check_match "200-with-error, curl $enc: the body readable in Baidu's format" '"error_code": ?18' "$out"
    provider_answered "200-with-error, curl $enc"
    want='^-$'; [ "$enc" = --compressed ] && want='gzip'
    check_match "200-with-error, curl $enc: Accept-Encoding at the provider (- for none): $want" "$want" \
        "$(reqlog | lg_json 'j[0]["headers"].get("accept-encoding", "-")')"
done

# 5b. an error inside a 200 event stream (after a first chunk of content): llmgate stopped the attempt
# itself, the host gets a 429 whose body is a JSON error in the provider's format (not the stream's events),
# with the provider's message; getinfo tells the sizes and the type the host got, and the error buffer keeps
# nothing of llmgate's own abort ("Failure writing output to destination")
write_config e200 "$(openai "$(acct only KEY_E200)")" '"max_rate_limit_wait_seconds": 0.3'
reset_mock
fresh_store
read -r fh fb hs sd em ct <<<"$(got_sizes e200)"
check_eq "200-with-error stream: header_size, size_download as delivered, empty error buffer" "$fh $fb []" "$hs $sd $em"
check_match "200-with-error stream: the host got a 429 with a body" '^HTTP/1\.1 429 .* [1-9][0-9]*$' "$(head -n1 "$LG_TMP/h.txt") $fb"
check_eq "200-with-error stream: a JSON error with the provider's message, typed application/json" \
    "rate_limit_exceeded Rate limit reached for requests. Please try again in 1s. application/json application/json" \
    "$(lg_json 'j["error"]["code"] + " " + j["error"]["message"]' <"$LG_TMP/b.txt") $ct $(sed -n 's/^Content-Type: \([^;\r]*\).*/\1/ip' "$LG_TMP/h.txt")"

# 6. non-retryable errors are delivered at once, as they came
write_config badreq "$(openai "$(acct a KEY_BADREQ), $(acct b KEY_GOOD)")"
reset_mock
code=$(gated badreq curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
check_eq "non-retryable: 400 delivered" 400 "$code"
check_eq "non-retryable: one request only" 1 "$(reqlog | lg_json 'len(j)')"

# 6b. a key the provider refuses (401 invalid_api_key) among good ones: the request goes at once to the next
# account, and the next request starts there; every key refused: the provider's 401 as it came, each key
# tried once; a single refused key: its 401 at once. A refused key is set aside for every process (issue 37):
# a later request whose every key is set aside gets llmgate's own 401 at once, the provider not asked.
write_config revoked "$(openai "$(acct a KEY_REVOKED), $(acct b KEY_GOOD)")" '"max_rate_limit_wait_seconds": 60, "switch_delay_ms": 20000'
reset_mock
fresh_store
start=$(date +%s%N)
out=$(gated revoked curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}')
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "refused key: success from the next account" 200 "$(tail -n1 <<<"$out")"
check "refused key: switched without the 20 s switch delay (${ms} ms)" test "$ms" -lt 10000
gated revoked curl -s -o /dev/null "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY"
check_eq "refused key: the refused key once, then the good one for both requests" "$KEY_REVOKED $KEY_GOOD $KEY_GOOD" \
    "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
write_config revoked_all "$(openai "$(acct a KEY_REVOKED), $(acct b KEY_REVOKED2)")"
reset_mock
fresh_store
out=$(gated revoked_all curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}')
check_eq "every key refused: the provider's 401" 401 "$(tail -n1 <<<"$out")"
check_match "every key refused: its body as it came" '"code": ?"invalid_api_key"' "$out"
check_eq "every key refused: each key tried once" "$KEY_REVOKED $KEY_REVOKED2" "$(reqlog | lg_json '" ".join(sorted(r["key"] for r in j))')"
out=$(gated revoked_all curl -s "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" -w '\n%{http_code}')
check_eq "every key refused, the next process: llmgate's 401, the provider not asked again" "401 2" \
    "$(tail -n1 <<<"$out") $(reqlog | lg_json 'len(j)')"
check_match "every key refused, the next process: an invalid_api_key error naming the account set aside" \
    'refused the key of account [ab]; it is set aside for 240 min more or until `llmgate reset openai/[ab]`".*"code":"invalid_api_key"' "$out"
write_config revoked_one "$(openai "$(acct a KEY_REVOKED)")"
reset_mock
fresh_store
code=$(gated revoked_one curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY")
check_eq "one refused key: its 401 at once, one request" "401 1" "$code $(reqlog | lg_json 'len(j)')"

# 7. a body that cannot be sent again (stdin upload) is never retried
write_config rotate2 "$(openai "$(acct main KEY_LIMITED), $(acct backup KEY_GOOD)")"
reset_mock
fresh_store
code=$(echo "$BODY" | gated rotate2 curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" -X POST -T - "$URL" -H 'Authorization: Bearer x')
check_eq "non-replayable: first response delivered as it came" 429 "$code"
check_eq "non-replayable: one request only" 1 "$(reqlog | lg_json 'len(j)')"

# 8. curl --retry and llmgate do not multiply: every key locked for an hour; curl retries twice, a second
# apart; llmgate tries each key once, then answers curl's retries locally
fresh_store
reset_mock
code=$(gated locked curl -s -o /dev/null -w '%{http_code}' --retry 2 --retry-delay 1 --retry-max-time 10 "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
check_eq "--retry: host sees the 429" 429 "$code"
n=$(reqlog | lg_json "len(j)")
check_eq "--retry: one request per key, not one per key per curl retry" 2 "$n"

# 8b. the host's own time limit (curl -m: CURLOPT_TIMEOUT_MS) bounds llmgate's waits: a 20 s hint with 60 s
# allowed by the config and -m 2 is answered at once with the normalized 429, not after the config's minute
# (nor with curl's own timeout); a 3 s hint within -m 10 is waited for and served
write_config hostlimit "$(openai "$(acct only KEY_LIMITED)")" '"max_rate_limit_wait_seconds": 60'
fresh_store
reset_mock
start=$(date +%s%N)
out=$(gated hostlimit curl -s -m 2 "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '\n%{http_code} %{exitcode}')
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "host time limit: the normalized 429, curl exits 0" "429 0" "$(tail -n1 <<<"$out")"
check "host time limit: answered within the host's 2 s (${ms} ms)" test "$ms" -lt 2000
check_eq "host time limit: one request at the provider" 1 "$(reqlog | lg_json 'len(j)')"
write_config hostlimit_ok "$(openai "$(acct only KEY_SLOW)")" '"max_rate_limit_wait_seconds": 60'
fresh_store
reset_mock
code=$(gated hostlimit_ok curl -s -m 10 -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
check_eq "host time limit: a wait within it is waited for, then served" "200 2" "$code $(reqlog | lg_json 'len(j)')"

# 9. quota exhaustion rotates at once, without waiting
write_config quota "$(openai "$(acct a KEY_QUOTA), $(acct b KEY_GOOD)")" '"max_rate_limit_wait_seconds": 60, "switch_delay_ms": 20000'
reset_mock
fresh_store
start=$(date +%s%N)
code=$(gated quota curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "quota: success from the other key" 200 "$code"
check_eq "quota: the provider saw the exhausted key, then the other" "$KEY_QUOTA $KEY_GOOD" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
check "quota: rotated without the 20 s switch delay (${ms} ms)" test "$ms" -lt 10000

# 10. logs: one line per event with LLMGATE_DEBUG, never a key
fresh_store
reset_mock
LLMGATE_DEBUG=1 gated rotate curl -s -o /dev/null "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" 2>"$LG_TMP/debug.err"
check_match "debug: [RateLimit] line" '\[RateLimit\] 429 provider=openai account=main reason=RATE_LIMIT_EXCEEDED retry_after_ms=20000' "$(cat "$LG_TMP/debug.err")"
check_match "debug: [Account] line" '\[Account\] openai: main -> backup \(RATE_LIMIT_EXCEEDED\)' "$(cat "$LG_TMP/debug.err")"
fresh_store
LLMGATE_LOG=$LG_TMP/file.log gated rotate curl -s -o /dev/null "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" \
    2>"$LG_TMP/file.err"
check "LLMGATE_LOG: the file exists with mode 0600" test "$(stat -c %a "$LG_TMP/file.log" 2>/dev/null)" = 600
check_match "LLMGATE_LOG: the file holds the events" '\[Account\] openai: main -> backup' "$(cat "$LG_TMP/file.log" 2>/dev/null)"
check_eq "LLMGATE_LOG: nothing on stderr" "" "$(cat "$LG_TMP/file.err")"
check_no_key "no 8-character slice of any key in the debug log, the log file or the shared store" "$ALL_KEYS" \
    "$LG_TMP/debug.err" "$LG_TMP/file.log" "$XDG_RUNTIME_DIR/llmgate"
# the host's own verbose output (curl -v: its debug callback; PHP: libcurl's default output with
# CURLOPT_VERBOSE, and CURLINFO_HEADER_OUT, a debug callback of PHP's) shows the accounts' keys masked
fresh_store
gated rotate curl -sv -o /dev/null "${CT[@]}" "$URL" -H "Authorization: Bearer $HOST_KEY" -d "$BODY" 2>"$LG_TMP/verbose.err"
check_eq "curl -v: both attempts' keys shown masked" "> Authorization: Bearer sk-****|> Authorization: Bearer sk-****" \
    "$(grep -i '^> authorization' "$LG_TMP/verbose.err" | tr -d '\r' | paste -sd'|')"
cat >"$LG_TMP/verbose.php" <<'PHP'
<?php
foreach ([[CURLINFO_HEADER_OUT, true], [CURLOPT_VERBOSE, true]] as [$opt, $on]) {
    $ch = curl_init($argv[1]);
    curl_setopt_array($ch, [CURLOPT_POSTFIELDS => $argv[2], CURLOPT_RETURNTRANSFER => true, $opt => $on,
                            CURLOPT_HTTPHEADER => ['Authorization: Bearer ' . $argv[3]]]);
    curl_exec($ch);
    echo curl_getinfo($ch, CURLINFO_HTTP_CODE), "\n";
    if ($opt === CURLINFO_HEADER_OUT)
        echo curl_getinfo($ch, CURLINFO_HEADER_OUT);
}
PHP
fresh_store
gated rotate php "$LG_TMP/verbose.php" "$URL" "$BODY" "$HOST_KEY" \
    >"$LG_TMP/php_verbose.out" 2>"$LG_TMP/php_verbose.err"
check_eq "PHP: both requests served" "200 200" "$(grep -E '^[0-9]{3}$' "$LG_TMP/php_verbose.out" | paste -sd' ')"
check_match "PHP CURLINFO_HEADER_OUT: the key masked" 'Authorization: Bearer sk-\*\*\*\*' "$(cat "$LG_TMP/php_verbose.out")"
check_match "PHP CURLOPT_VERBOSE: libcurl's own output, the key masked" '> POST .*Authorization: Bearer sk-\*\*\*\*' \
    "$(tr -d '\r' <"$LG_TMP/php_verbose.err" | paste -sd' ')"
check_no_key "the host's verbose output: no 8-character slice of any account key" "$KEY_LIMITED $KEY_GOOD" \
    "$LG_TMP/verbose.err" "$LG_TMP/php_verbose.out" "$LG_TMP/php_verbose.err"

# 11. non-provider traffic is byte-identical with and without the preload
OTHER=(--connect-to "example.invalid:80:127.0.0.1:$MOCK_PORT" http://example.invalid/v1/chat/completions -H 'Authorization: Bearer sk-other' -d "$BODY")
reset_mock
curl -s "${OTHER[@]}" -o "$LG_TMP/plain.out" -w '%{http_code} %{size_download}\n' >"$LG_TMP/plain.w" 2>"$LG_TMP/plain.err"
gated rotate curl -s "${OTHER[@]}" -o "$LG_TMP/pre.out" -w '%{http_code} %{size_download}\n' >"$LG_TMP/pre.w" 2>"$LG_TMP/pre.err"
check_eq "non-provider: same status and size" "$(cat "$LG_TMP/plain.w")" "$(cat "$LG_TMP/pre.w")"
unvary() { sed -e 's/mock-[0-9]*//' -e 's/"created":[0-9]*//' "$1"; }
check_eq "non-provider: same bytes (ids and timestamps aside)" "$(unvary "$LG_TMP/plain.out")" "$(unvary "$LG_TMP/pre.out")"
check_eq "non-provider: same stderr" "$(cat "$LG_TMP/plain.err")" "$(cat "$LG_TMP/pre.err")"
hdrs=$(reqlog | lg_json '"\n".join(r["key"] + "," + str(r["body_len"]) + "," + r["body_sha256"] for r in j)')
check_eq "non-provider: the provider received two requests" 2 "$(wc -l <<<"$hdrs")"
check_eq "non-provider: the same request both times" "$(head -n1 <<<"$hdrs")" "$(sed -n 2p <<<"$hdrs")"
check_match "non-provider: the host's own key went out untouched" '^sk-other,' "$hdrs"

# 12. a wait of several seconds gets one notice line on stderr, even without debug logging
write_config slow "$(openai "$(acct only KEY_SLOW)")"
out=$(gated slow curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '\n%{http_code}' 2>"$LG_TMP/slow.err")
check_eq "notice: the request succeeded after the server's 3 s hint" 200 "$(tail -n1 <<<"$out")"
check_eq "notice: exactly one line on stderr" 1 "$(wc -l <"$LG_TMP/slow.err")"
check_match "notice: says who waits and how long" '^llmgate: openai: .*waiting 3s$' "$(cat "$LG_TMP/slow.err")"

# 13. a provider that drops the connection or truncates the body: retried, the host sees one clean answer
for k in RESET TRUNC; do
    write_config "t$k" "$(openai "$(acct only KEY_$k)")"
    out=$(gated "t$k" curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '\n%{http_code}')
    check_eq "transport failure ($k): retried to a 200" 200 "$(tail -n1 <<<"$out")"
    check_match "transport failure ($k): one intact body" '^\{"id":"chatcmpl-mock-[0-9]+".*\}$' "$(head -n1 <<<"$out")"
done
write_config tDEAD "$(openai "$(acct only KEY_DEAD)")"
reset_mock
fresh_store # the provider's retry budget that the sections above spent within 10 s does not carry over
gated tDEAD curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY"
check_eq "a connection that always drops: curl's own error (52) after bounded retries" 52 "$?"
check_eq "a connection that always drops: 1 + max_server_retries attempts" 3 "$(reqlog | lg_json 'len(j)')"

# 13b. a kept-alive connection that the provider closes after reading the second request: libcurl would
# send it again by itself, past the limiter and retry.max_attempts; llmgate refuses that second send and
# retries (or not) by its own policy. With max_attempts 1: exactly one request at the provider for each
# host request, and the host sees curl's error for an empty reply.
two() { gated "$1" curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '%{http_code} %{exitcode}\n' \
    --next -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '%{http_code} %{exitcode}\n'; }
write_config stale1 "$(openai "$(acct only KEY_STALE)")" '"max_attempts": 1'
reset_mock
fresh_store
check_eq "stale connection, max_attempts 1: the second request ends with curl's error 52" "200 0,000 52" "$(two stale1 | paste -sd,)"
check_eq "stale connection, max_attempts 1: one request at the provider per host request" 2 "$(reqlog | lg_json 'len(j)')"
write_config stale3 "$(openai "$(acct only KEY_STALE)")" '"max_attempts": 3'
reset_mock
fresh_store
check_eq "stale connection: sent again at once by llmgate, both host requests get 200" "200 0,200 0" "$(two stale3 | paste -sd,)"
check_eq "stale connection: three requests at the provider, all with the account's key" "$KEY_STALE,$KEY_STALE,$KEY_STALE" \
    "$(reqlog | lg_json '",".join(r["key"] for r in j)')"

# 14. a dead store (its file cannot be created): per-request state only, the host is served all the same
cat >"$LG_TMP/deadstore.json" <<JSON
{"providers": {$(openai "$(acct main KEY_LIMITED), $(acct backup KEY_GOOD)")},
 "retry": {"switch_delay_ms": 20}, "store": {"backend": "shm", "path": "/proc/llmgate-cannot-exist/state.shm"}}
JSON
chmod 600 "$LG_TMP/deadstore.json"
out=$(gated deadstore curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" -w '\n%{http_code}' 2>"$LG_TMP/dead.err")
check_eq "dead store: rotation still serves a 200" 200 "$(tail -n1 <<<"$out")"
check_eq "dead store: nothing on stderr without debug" "" "$(cat "$LG_TMP/dead.err")"

# 15. a broken config: traffic passes untouched, one line on stderr
echo '{"providers": {"openai": {"limits": {"rpm": "fast"}}}}' >"$LG_TMP/broken.json"
reset_mock
out=$(LLMGATE_CONFIG=$LG_TMP/broken.json LD_PRELOAD=$LG_LIB curl -s "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-good' -d "$BODY" -w '\n%{http_code}' 2>"$LG_TMP/broken.err")
check_eq "broken config: request passes untouched" 200 "$(tail -n1 <<<"$out")"
check_eq "broken config: one line on stderr" 1 "$(wc -l <"$LG_TMP/broken.err")"
check_match "broken config: names the problem" 'providers\.openai\.limits\.rpm' "$(cat "$LG_TMP/broken.err")"

lg_done
