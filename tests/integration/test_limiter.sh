#!/usr/bin/env bash
# The shared admission limiter, through curl under the preload against the mock provider: 8 processes
# hammering one key never send more than the limit in any window, counted on every request that reached
# the mock (the mock enforces no limit on that key, so only the limiter can keep the count down); limits learned from the provider's headers; another key with room is used at once; one
# provider at its limit never delays another; a wait past the maximum is answered locally at once; token
# limits, with estimates reconciled to the real usage.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-one": {"rpm": 0, "window_ms": 900},
          "sk-learn": {"rpm": 5, "window_ms": 900},
          "sk-tok": {"rpm": 0, "tpm": 200, "window_ms": 900},
          "sk-ref": {"rpm": 1, "window_ms": 60000},
          "sk-rec": {"rpm": 0, "tpm": 2000, "window_ms": 60000}}}
JSON
lg_start_mock --rpm 5 --window-ms 1000 --scenario "$LG_TMP/scenario.json" --quiet
export KEY_ONE=sk-one KEY_LEARN=sk-learn KEY_C1=sk-c1 KEY_C2=sk-c2 KEY_IND=sk-ind KEY_ANT=sk-ant KEY_REF=sk-ref \
       KEY_TOK=sk-tok KEY_REC=sk-rec

# write_config NAME PROVIDERS-JSON [RETRY-MEMBERS]: a 0600 config.
write_config() {
    local retry=${3:-'"max_rate_limit_wait_seconds": 30'}
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {$2}, "retry": {$retry}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
# openai ACCOUNTS-JSON [LIMITS-JSON]
openai() { echo "\"openai\": {\"upstream\": \"$MOCK_URL\", \"accounts\": [$1], \"limits\": {${2:-}}}"; }
acct() { echo "{\"name\": \"$1\", \"key\": \"env:$2\"}"; }

BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# stat_of KEY FIELD: a field of the mock's per-key stats (0 when the key sent nothing).
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('$2', 0)"; }
# hammer CONFIG PROCS REQUESTS [BODY]: PROCS processes each sending REQUESTS curl requests one after another;
# prints the status codes, one per line.
hammer() {
    local p pids=() body=${4:-$BODY}
    for p in $(seq 1 "$2"); do
        (for _ in $(seq 1 "$3"); do
            LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}\n' "${CT[@]}" \
                "$URL" -H 'Authorization: Bearer sk-host' -d "$body"
        done) >"$LG_TMP/codes.$p" &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$LG_TMP"/codes.*
    rm -f "$LG_TMP"/codes.*
}

# 1. 8 processes x 5 requests on one key limited to 5 per 1 s window, limits configured. The mock itself
# does not limit sk-one; it counts arrivals in any 900 ms (the 100 ms allow for the time between
# admission and arrival on a loaded machine).
write_config one "$(openai "$(acct one KEY_ONE)" '"rpm": 5, "window_ms": 1000')"
codes=$(hammer one 8 5)
check_eq "hammer: the host saw 40 successes" "40" "$(grep -c '^200$' <<<"$codes")"
check_eq "hammer: the provider received exactly 40 requests" 40 "$(stat_of sk-one requests)"
check "hammer: never more than 5 sent in any window (max_arrived_in_window=$(stat_of sk-one max_arrived_in_window))" \
    test "$(stat_of sk-one max_arrived_in_window)" -le 5
# 40 requests at 5 per window: the physical minimum from the first arrival to the last is 7 windows; a
# limiter that serialized the requests or waited a window too many would take far longer
span=$(lg_arrivals sk-one | awk 'NR == 1 { first = $1 } { last = $1 } END { print last - first }')
check "hammer: paced, not serialized (${span} ms from the first arrival to the last, minimum 7000)" \
    test "$span" -ge 6500 -a "$span" -le 14000

# 2. no configured limit (only the provider's window length): learned from the x-ratelimit-* headers. The
# mock enforces its 5 per window over 900 ms of the 1 s llmgate is told, as in 1.: on a loaded machine a
# request can reach the mock 100 ms after its admission, a real provider's clients see such jitter too.
write_config learn "$(openai "$(acct learner KEY_LEARN)" '"window_ms": 1000')"
codes=$(hammer learn 8 3)
check_eq "learned: the host saw 24 successes" "24" "$(grep -c '^200$' <<<"$codes")"
check "learned: at most the first burst was refused ($(stat_of sk-learn rate_limited) 429s)" \
    test "$(stat_of sk-learn rate_limited)" -le 8
check_eq "learned: the provider's limit is known" 5 \
    "$(LLMGATE_CONFIG=$LG_TMP/learn.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["learner"]["rpmLimit"]')"
before=$(stat_of sk-learn rate_limited)
codes=$(hammer learn 8 2)
check_eq "learned: then 16 more successes" "16" "$(grep -c '^200$' <<<"$codes")"
check_eq "learned: and no 429 once the limit is known" "$before" "$(stat_of sk-learn rate_limited)"

# 3. capacity decides the account: 10 requests at once, 5 per key per 20 s window, go at once on two keys
write_config two "$(openai "$(acct c1 KEY_C1), $(acct c2 KEY_C2)" '"rpm": 5, "window_ms": 20000')"
start=$(now_ms)
codes=$(hammer two 10 1)
ms=$(( $(now_ms) - start ))
check_eq "capacity: 10 successes" "10" "$(grep -c '^200$' <<<"$codes")"
check_eq "capacity: 5 went on each key" "5 5" "$(stat_of sk-c1 success) $(stat_of sk-c2 success)"
check "capacity: nobody waited for the full key's 20 s window (${ms} ms)" test "$ms" -lt 10000
check_eq "capacity: no 429" "0 0" "$(stat_of sk-c1 rate_limited) $(stat_of sk-c2 rate_limited)"

# 4. providers are independent: openai at its limit does not delay an anthropic request: the anthropic
# request reaches the mock before the waiting openai one
cat >"$LG_TMP/ind.json" <<JSON
{"providers": {
  "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "i", "key": "env:KEY_IND"}],
             "limits": {"rpm": 1, "window_ms": 3000}},
  "anthropic": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "env:KEY_ANT"}],
                "limits": {"rpm": 100, "window_ms": 3000}}},
 "retry": {"max_rate_limit_wait_seconds": 30}}
JSON
chmod 600 "$LG_TMP/ind.json"
IND=(env LLMGATE_CONFIG="$LG_TMP/ind.json" LD_PRELOAD="$LG_LIB")
"${IND[@]}" curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY"
start=$(now_ms)
("${IND[@]}" curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY" \
    >"$LG_TMP/waiting.code"; echo $(( $(now_ms) - start )) >"$LG_TMP/waiting.ms") &
waiter=$!
sleep 0.2
code=$("${IND[@]}" curl -s -o /dev/null -w '%{http_code}' --connect-to "api.anthropic.com:80:127.0.0.1:$MOCK_PORT" \
    http://api.anthropic.com/v1/messages -H 'x-api-key: x' -H 'anthropic-version: 2023-06-01' \
    -d '{"model":"claude-3-5-haiku-latest","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}')
check_eq "independence: anthropic served" 200 "$code"
wait "$waiter"
order=$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j if r["key"] in ("sk-ind", "sk-ant"))')
check_eq "independence: anthropic reached the provider before the waiting openai request" "sk-ind sk-ant sk-ind" "$order"
check_eq "independence: the waiting openai request then succeeded" 200 "$(cat "$LG_TMP/waiting.code")"
check "independence: it waited for its window ($(cat "$LG_TMP/waiting.ms") ms)" test "$(cat "$LG_TMP/waiting.ms")" -ge 2000
check_eq "independence: openai's key saw no 429" 0 "$(stat_of sk-ind rate_limited)"

# 5. a wait past max_rate_limit_wait_seconds is answered locally, at once, without contacting the provider
write_config ref "$(openai "$(acct r KEY_REF)" '"rpm": 1, "window_ms": 60000')" '"max_rate_limit_wait_seconds": 20'
REF=(env LLMGATE_CONFIG="$LG_TMP/ref.json" LD_PRELOAD="$LG_LIB")
"${REF[@]}" curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY"
start=$(now_ms)
out=$("${REF[@]}" curl -s -D - "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$BODY")
ms=$(( $(now_ms) - start ))
check_match "refusal: the host sees a 429" '^HTTP/1\.1 429' "$out"
check_match "refusal: Retry-After is the window's wait (about 60 s)" $'\n''[Rr]etry-[Aa]fter: (5[5-9]|6[0-3])'$'\r' "$out"
check_match "refusal: reason header" 'X-Llmgate-Reason: RATE_LIMIT_EXCEEDED' "$out"
check_match "refusal: body in openai's format" '"error": ?\{"message": ?"llmgate: ' "$out"
check "refusal: at once, not after the maximum wait of 20 s (${ms} ms)" test "$ms" -lt 10000
check_eq "refusal: the provider saw only the first request" 1 "$(stat_of sk-ref requests)"

# 6. token limits: 200 tokens per window, about 39 tokens a request: no 429 from the provider (which
# counts over 900 ms of the 1 s llmgate is told, as in 1. and 2.: it was seen to refuse one request on a
# loaded machine when it counted over the same 1 s, the arrivals jittering by tens of ms)
write_config tok "$(openai "$(acct t KEY_TOK)" '"tpm": 200, "window_ms": 1000')"
codes=$(hammer tok 8 2)
check_eq "tokens: 16 successes" "16" "$(grep -c '^200$' <<<"$codes")"
check_eq "tokens: the provider refused none" 0 "$(stat_of sk-tok rate_limited)"

# 7. reconciliation: without max_tokens the estimate assumes 1024 output tokens, so two requests would not
# fit 2000 tokens a minute; the real usage (about 40) replaces the estimate, and five go at once
NOMAX='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
write_config rec "$(openai "$(acct rec KEY_REC)" '"tpm": 2000, "window_ms": 60000')" '"max_rate_limit_wait_seconds": 20'
start=$(now_ms)
codes=$(for _ in 1 2 3 4 5; do LLMGATE_CONFIG=$LG_TMP/rec.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}\n' \
    "${CT[@]}" "$URL" -H 'Authorization: Bearer x' -d "$NOMAX"; done)
ms=$(( $(now_ms) - start ))
check_eq "reconcile: five successes in a row" "200 200 200 200 200" "$(echo $codes)"
check "reconcile: none waited for the 60 s window (${ms} ms)" test "$ms" -lt 15000
used=$(LLMGATE_CONFIG=$LG_TMP/rec.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["rec"]["tokensUsed"]')
check_eq "reconcile: the window holds the real usage the provider counted" "$(stat_of sk-rec tokens)" "$used"

# 8. a provider that counts max_tokens at admission and never refunds it (the mock's OpenAI accounting):
# 4 requests of 208 tokens fit 1000 a minute, the usage (16 each) would let a fifth through to a 429
lg_start_mock --quiet --accounting openai --tpm 1000 --window-ms 60000
MAXB='{"model":"gpt-4o-mini","max_tokens":200,"messages":[{"role":"user","content":"hi"}]}'
write_config oa "$(openai "$(acct oa KEY_OA)" '"tpm": 1000, "window_ms": 60000')" '"max_rate_limit_wait_seconds": 2'
codes=$(for _ in 1 2 3 4 5; do KEY_OA=sk-oa LLMGATE_CONFIG=$LG_TMP/oa.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null \
    -w '%{http_code}\n' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" "$URL" -H 'Authorization: Bearer x' \
    -d "$MAXB"; done)
check_eq "max_tokens kept: four successes, the fifth answered by llmgate" "200 200 200 200 429" "$(echo $codes)"
check_eq "max_tokens kept: the provider refused none" "0 4" "$(stat_of sk-oa rate_limited) $(stat_of sk-oa requests)"
used=$(KEY_OA=sk-oa LLMGATE_CONFIG=$LG_TMP/oa.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["oa"]["tokensUsed"]')
check_eq "max_tokens kept: the window holds what the provider counted" "$(stat_of sk-oa tokens)" "$used"

lg_done
