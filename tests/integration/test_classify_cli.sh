#!/usr/bin/env bash
# llmgate classify: every fixture file against its expectation, malformed files, and raw HTTP responses
# (CRLF / LF, chunked, interim 1xx, HTTP/2 status line, event streams) read from stdin with --provider.
source "$(dirname "$0")/../lib.sh"

FIX=$LG_ROOT/tests/fixtures/responses

# matches_expect FIXTURE LINE: the classify output line agrees with expect or one of its alternatives.
matches_expect() {
    /usr/bin/python3 - "$1" "$2" <<'EOF'
import json, sys
fx = json.load(open(sys.argv[1]))
out = json.loads(sys.argv[2])
exp = fx["expect"]
def ok(alt):
    get = lambda k: alt[k] if k in alt else exp.get(k)
    return (out["state"] == get("state") and out["reason"] == get("reason")
            and out["retry_after_ms"] == get("retry_after_ms") and out["retry_at"] == get("retry_at")
            and out["usage"] == get("usage") and isinstance(out["message"], str)
            and out["file"] == sys.argv[1])
sys.exit(0 if ok({}) or any(ok(a) for a in exp.get("alternatives", [])) else 1)
EOF
}

n=0
for f in "$FIX"/*.json; do
    line=$("$LG_CLI" classify "$f")
    rc=$?
    if [ $rc -eq 0 ] && matches_expect "$f" "$line"; then ok "fixture $(basename "$f")"; else
        not_ok "fixture $(basename "$f")"; diag "$line"; fi
    n=$((n + 1))
done

out=$("$LG_CLI" classify "$FIX"/*.json)
check_eq "one line per fixture file in a single run" "$n" "$(printf '%s\n' "$out" | grep -c '^{')"

printf '{"status": 429, "body": ' >"$LG_TMP/truncated.json"
printf '[1, 2]' >"$LG_TMP/array.json"
printf '{"status": "429", "body": "x"}' >"$LG_TMP/badtype.json"
out=$("$LG_CLI" classify "$LG_TMP/truncated.json" "$FIX/openai_03_tpm-try-again-644ms.json" "$LG_TMP/missing.json" \
      "$LG_TMP/array.json" "$LG_TMP/badtype.json")
rc=$?
check_eq "malformed files make the exit status 1" 1 "$rc"
check_eq "every file still gets a line" 5 "$(printf '%s\n' "$out" | grep -c '^{')"
check_eq "unreadable and malformed files print an error object" 4 \
    "$(printf '%s\n' "$out" | /usr/bin/python3 -c 'import json,sys; print(sum("error" in json.loads(l) for l in sys.stdin))')"
check_match "the good file in between is classified" '"retry_after_ms":644' "$out"

# raw PROVIDER < http-text: classifies a raw HTTP response read from stdin.
raw() { local p=$1; shift; printf "$@" | "$LG_CLI" classify --provider "$p"; }
field() { /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print(json.dumps(j$1))"; }

out=$(raw openai 'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nretry-after: 20\r\n\r\n{"error":{"message":"Rate limit reached for gpt-4o on requests per min (RPM).","type":"requests","code":"rate_limit_exceeded"}}')
check_eq "CRLF 429 with retry-after: state" '"RETRYABLE_RATE_LIMIT"' "$(field '["state"]' <<<"$out")"
check_eq "CRLF 429 with retry-after: reason" '"RATE_LIMIT_EXCEEDED"' "$(field '["reason"]' <<<"$out")"
check_eq "CRLF 429 with retry-after: hint" '20000' "$(field '["retry_after_ms"]' <<<"$out")"
check_eq "CRLF 429 with retry-after: file is -" '"-"' "$(field '["file"]' <<<"$out")"

out=$(raw anthropic 'HTTP/1.1 529 \ncontent-type: application/json\n\n{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
check_eq "LF-only 529 overloaded" "['PROVIDER_DOWN', 'MODEL_CAPACITY_EXHAUSTED', 'Overloaded']" \
    "$(lg_json '[j["state"], j["reason"], j["message"]]' <<<"$out")"

sse='event: message_start\r\ndata: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}\r\n\r\nevent: message_delta\r\ndata: {"type":"message_delta","usage":{"output_tokens":15}}\r\n\r\n'
body=$(printf "$sse")
len=${#body}
half=$((len / 2))
out=$( { printf 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n'
         printf '%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n' "$half" "${body:0:half}" "$((len - half))" "${body:half}"; } |
       "$LG_CLI" classify --provider anthropic)
check_eq "chunked event stream after 100 Continue: state" '"SUCCESS"' "$(field '["state"]' <<<"$out")"
check_eq "chunked event stream: usage" '{"prompt": 25, "completion": 15}' "$(field '["usage"]' <<<"$out")"
check_eq "success has a null reason" 'null' "$(field '["reason"]' <<<"$out")"

out=$(raw gemini 'HTTP/2 503\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. Please try again later.",\n    "status": "UNAVAILABLE"\n  }\n}\n')
check_eq "HTTP/2 status line, Gemini overload" '"MODEL_CAPACITY_EXHAUSTED"' "$(field '["reason"]' <<<"$out")"

out=$(raw anthropic 'HTTP/1.1 400 Bad Request\r\n\r\n{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."}}')
check_eq "absolute resume time without Date: retry_at" '"2026-04-01T00:00:00Z"' "$(field '["retry_at"]' <<<"$out")"
check_eq "absolute resume time without Date: no relative hint" 'null' "$(field '["retry_after_ms"]' <<<"$out")"

out=$(raw anthropic 'HTTP/1.1 400 Bad Request\r\nDate: Tue, 31 Mar 2026 23:59:00 GMT\r\n\r\n{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."}}')
check_eq "absolute resume time with Date: relative hint" '60000' "$(field '["retry_after_ms"]' <<<"$out")"

out=$(raw baidu 'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"error_code":18,"error_msg":"Open api qps request limit reached"}')
check_eq "Baidu error inside HTTP 200" '"RETRYABLE_RATE_LIMIT"' "$(field '["state"]' <<<"$out")"

out=$(printf 'not http at all' | "$LG_CLI" classify --provider openai)
check_eq "stdin without a status line exits 1" 1 $?
check_match "stdin without a status line prints an error object" '"error"' "$out"

# curl -i output keeps "Transfer-Encoding: chunked" but shows the body decoded
out=$(printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\ndata: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\ndata: [DONE]\n\n' |
      "$LG_CLI" classify --provider openai)
check_match "an already decoded body under a chunked header keeps its usage" '"usage":\{"prompt":3,"completion":4\}' "$out"

# The presets of issue 34 by name (and Ollama's alias of the OpenAI-compatible one): their answers as they
# send them.
out=$(raw zhipu 'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n{"error":{"code":"1113","message":"Insufficient balance or no resource package. Please recharge."}}')
check_eq "zhipu: out of balance is a quota" '"RETRYABLE_RATE_LIMIT" "QUOTA_EXHAUSTED"' "$(field '["state"]' <<<"$out") $(field '["reason"]' <<<"$out")"
out=$(raw xai 'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n"Too many tokens for team t and model grok-4-0709. Your team'"'"'s rate limit is \xe2\x80\x94 Tokens per Minute (actual/limit): 65605/16000."')
check_eq "xai: a bare string error naming a minute window" '"RATE_LIMIT_EXCEEDED"' "$(field '["reason"]' <<<"$out")"
out=$(raw cerebras 'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 86399\r\n\r\n{"message":"Tokens per day limit exceeded - too many tokens processed.","type":"too_many_tokens_error","param":"quota","code":"token_quota_exceeded"}')
check_eq "cerebras: the day decides over its shared code, the hint kept" '"QUOTA_EXHAUSTED" 86399000' "$(field '["reason"]' <<<"$out") $(field '["retry_after_ms"]' <<<"$out")"
out=$(raw ollama 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"model":"llama3.2","message":{"role":"assistant","content":"hi"},"done":true,"prompt_eval_count":26,"eval_count":298}')
check_match "ollama (openai-compatible): native counts are the usage" '"usage":\{"prompt":26,"completion":298\}' "$out"
out=$(raw together 'HTTP/1.1 402 Payment Required\r\n\r\n{"error":{"message":"Credit limit exceeded. Please navigate to https://api.together.xyz/settings/billing to add credit or upgrade your plan.","type":"credit_limit","param":null,"code":null}}')
check_eq "together: credit limit exceeded is a quota" '"QUOTA_EXHAUSTED"' "$(field '["reason"]' <<<"$out")"

"$LG_CLI" classify >/dev/null 2>&1
check_eq "no files and no provider is a usage error" 2 $?

lg_done
