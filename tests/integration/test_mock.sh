#!/usr/bin/env bash
# The mock provider (build/llmgate-mock) driven with real curl calls: success and streams in every
# dialect with usage, exact sliding-window limits per key, every scenario step, /__stats, /__requests,
# /__reset, HTTPS verified against the test CA, the port file, throughput and SIGTERM.
source "$(dirname "$0")/../lib.sh"

[ -x "$LG_MOCK" ] || { not_ok "build/llmgate-mock is built"; exit 1; }
TEXT="你好，世界 — ok"

# call CURL-ARGS...: one request; prints the status, keeps the headers and body for hdr / body.
call() { curl -s -o "$LG_TMP/body" -D "$LG_TMP/head" -w '%{http_code}' "$@"; }
# hdr NAME: a header of the last call's answer.
hdr() { grep -i "^$1:" "$LG_TMP/head" | head -n 1 | cut -d' ' -f2- | tr -d '\r'; }
body() { cat "$LG_TMP/body"; }
bjson() { lg_json "$1" <"$LG_TMP/body"; }
# sse_data: prints the JSON list of the data payloads of the event stream on stdin ([DONE] skipped).
sse_data() {
    /usr/bin/python3 -c '
import json, sys
out = []
for block in sys.stdin.read().replace("\r\n", "\n").split("\n\n"):
    for line in block.split("\n"):
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            out.append(json.loads(line[5:].strip()))
print(json.dumps(out))'
}
sjson() { sse_data <"$LG_TMP/body" | lg_json "$1"; }
tokens_of() { echo $(((${#1} + 3) / 4)); } # the mock's prompt estimate for an ASCII body
# load_cfg N URL BODY KEY: a curl config for N keep-alive requests that print only their status.
load_cfg() {
    local i
    for ((i = 0; i < $1; i++)); do
        [ "$i" -eq 0 ] || echo next
        printf 'url = "%s"\ndata = "%s"\nheader = "Authorization: Bearer %s"\noutput = "/dev/null"\n' "$2" "${3//\"/\\\"}" "$4"
        printf 'write-out = "%%{http_code}\\n"\n'
    done
}

# --- port file, stdout, SIGTERM ---------------------------------------------------------------------
"$LG_MOCK" --port 0 --port-file "$LG_TMP/pf" --quiet >"$LG_TMP/pf.out" 2>&1 &
pf_pid=$!
for _ in $(seq 1 100); do [ -s "$LG_TMP/pf" ] && break; sleep 0.05; done
check_match "port file holds port=N" '^port=[0-9]+$' "$(cat "$LG_TMP/pf")"
check_eq "stdout prints the same port line" "$(cat "$LG_TMP/pf")" "$(cat "$LG_TMP/pf.out")"
pf_port=$(sed -n 's/^port=//p' "$LG_TMP/pf")
check_eq "the published port answers" 200 "$(call "http://127.0.0.1:$pf_port/__stats")"
kill -TERM "$pf_pid"
wait "$pf_pid"
check_eq "SIGTERM stops it with exit status 0" 0 "$?"
"$LG_MOCK" --port 0 --bogus >/dev/null 2>&1
check_eq "an unknown option exits with status 2" 2 "$?"

# --- success in every dialect -----------------------------------------------------------------------
lg_start_mock --quiet
U=$MOCK_URL
B='{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}],"max_tokens":5}'
check_eq "openai chat: 200" 200 "$(call -H 'Authorization: Bearer sk-one' -H 'Host: api.openai.com' -d "$B" "$U/v1/chat/completions")"
check_eq "openai chat: reply text is UTF-8" "$TEXT" "$(bjson "j['choices'][0]['message']['content']")"
check_eq "openai chat: usage" "$(tokens_of "$B") 5 $(($(tokens_of "$B") + 5))" \
    "$(bjson "'%d %d %d' % (j['usage']['prompt_tokens'], j['usage']['completion_tokens'], j['usage']['total_tokens'])")"
check_match "openai chat: id names the answer" '^chatcmpl-mock-[0-9]+$' "$(bjson "j['id']")"
check_eq "openai chat: x-mock-key header" "sk-one" "$(hdr x-mock-key)"
check_eq "openai chat: body names the key" "sk-one" "$(bjson "j['mock_key']")"
check_eq "openai chat: x-mock-host echoes Host" "api.openai.com" "$(hdr x-mock-host)"
check_eq "openai chat: model echoed" "gpt-4o" "$(bjson "j['model']")"

check_eq "openai completions: 200" 200 "$(call -H 'Authorization: Bearer sk-one' -d '{"prompt":"x","max_tokens":3}' "$U/v1/completions")"
check_eq "openai completions: text_completion with usage" "text_completion $TEXT 3" \
    "$(bjson "j['object'] + ' ' + j['choices'][0]['text'] + ' ' + str(j['usage']['completion_tokens'])")"
check_eq "openai embeddings: 200" 200 "$(call -H 'Authorization: Bearer sk-one' -d '{"input":"abcdefgh"}' "$U/v1/embeddings")"
check_eq "openai embeddings: list with prompt usage" "list 5 5" \
    "$(bjson "'%s %d %d' % (j['object'], j['usage']['prompt_tokens'], j['usage']['total_tokens'])")"
check_eq "openai responses: 200" 200 "$(call -H 'Authorization: Bearer sk-one' -d '{"input":"hi","max_output_tokens":11}' "$U/v1/responses")"
check_eq "openai responses: output_text and usage" "$TEXT 11" \
    "$(bjson "j['output'][0]['content'][0]['text'] + ' ' + str(j['usage']['output_tokens'])")"
check_eq "azure deployment path: 200 with api-key" 200 \
    "$(call -H 'api-key: az-key' -d '{}' "$U/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01")"
check_eq "azure: key from api-key, model from the deployment" "az-key gpt4o" "$(bjson "j['mock_key'] + ' ' + j['model']")"
check_eq "unknown path answers as openai" "chat.completion" "$(call -d '{}' "$U/whatever" >/dev/null; bjson "j['object']")"
check_eq "default completion tokens is 16" 16 "$(call -d '{}' "$U/v1/chat/completions" >/dev/null; bjson "j['usage']['completion_tokens']")"
check_eq "completion tokens are capped at 256" 256 \
    "$(call -d '{"max_completion_tokens":100000}' "$U/v1/chat/completions" >/dev/null; bjson "j['usage']['completion_tokens']")"

A='{"model":"claude-sonnet-4","max_tokens":7,"messages":[{"role":"user","content":"hi"}]}'
check_eq "anthropic: 200" 200 "$(call -H 'x-api-key: ak-one' -d "$A" "$U/v1/messages")"
check_eq "anthropic: message with usage" "message $TEXT $(tokens_of "$A") 7 ak-one" \
    "$(bjson "'%s %s %d %d %s' % (j['type'], j['content'][0]['text'], j['usage']['input_tokens'], j['usage']['output_tokens'], j['mock_key'])")"

G='{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":9}}'
check_eq "gemini: 200" 200 "$(call -H 'x-goog-api-key: gk-one' -d "$G" "$U/v1beta/models/gemini-2.5-flash:generateContent")"
check_eq "gemini: candidates and usageMetadata" "$TEXT $(tokens_of "$G") 9 gemini-2.5-flash gk-one" \
    "$(bjson "'%s %d %d %s %s' % (j['candidates'][0]['content']['parts'][0]['text'], j['usageMetadata']['promptTokenCount'], j['usageMetadata']['candidatesTokenCount'], j['modelVersion'], j['mock_key'])")"
check_eq "gemini: key from ?key=" "gk-query" \
    "$(call -d '{}' "$U/v1beta/models/gemini-2.0-flash:generateContent?key=gk-query" >/dev/null; bjson "j['mock_key']")"
check_eq "cloud code: 200" 200 "$(call -H 'Authorization: Bearer cc' -d '{"model":"gemini-2.5-pro","request":{"generationConfig":{"maxOutputTokens":4}}}' "$U/v1internal:generateContent")"
check_eq "cloud code: wrapped in response" "gemini-2.5-pro 4" \
    "$(bjson "j['response']['modelVersion'] + ' ' + str(j['response']['usageMetadata']['candidatesTokenCount'])")"

D='{"model":"qwen-plus","input":{"messages":[]},"parameters":{"max_tokens":6}}'
check_eq "dashscope: 200" 200 "$(call -H 'Authorization: Bearer ds-one' -d "$D" "$U/api/v1/services/aigc/text-generation/generation")"
check_eq "dashscope: output and usage" "$TEXT $(tokens_of "$D") 6" \
    "$(bjson "'%s %d %d' % (j['output']['choices'][0]['message']['content'], j['usage']['input_tokens'], j['usage']['output_tokens'])")"
check_eq "baidu: 200" 200 "$(call -d '{"messages":[],"max_output_tokens":3}' "$U/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=bd-one")"
check_eq "baidu: result and usage, key from access_token" "$TEXT 3 bd-one" \
    "$(bjson "'%s %d %s' % (j['result'], j['usage']['completion_tokens'], j['mock_key'])")"

# --- streams ----------------------------------------------------------------------------------------
S='{"stream":true,"stream_options":{"include_usage":true},"max_tokens":12}'
check_eq "openai stream: 200" 200 "$(call -H 'Authorization: Bearer sk-one' -d "$S" "$U/v1/chat/completions")"
check_match "openai stream: event-stream" '^text/event-stream' "$(hdr content-type)"
check_eq "openai stream: deltas join to the text" "$TEXT" \
    "$(sjson "''.join(c['choices'][0]['delta'].get('content','') for c in j if c['choices'])")"
check_eq "openai stream: final chunk has choices [] and usage" "[] 12" \
    "$(sjson "str(j[-1]['choices']) + ' ' + str(j[-1]['usage']['completion_tokens'])")"
check_match "openai stream: ends with [DONE]" 'data: \[DONE\]' "$(tail -n 2 "$LG_TMP/body")"
check_eq "openai stream without include_usage: no usage chunk" "0" \
    "$(call -d '{"stream":true}' "$U/v1/chat/completions" >/dev/null; sjson "sum(1 for c in j if c.get('usage'))")"
check_eq "responses stream: completed event with usage" "response.completed 16" \
    "$(call -d '{"stream":true}' "$U/v1/responses" >/dev/null; sjson "j[-1]['type'] + ' ' + str(j[-1]['response']['usage']['output_tokens'])")"
call -H 'x-api-key: ak-one' -d '{"stream":true,"max_tokens":20}' "$U/v1/messages" >/dev/null
check_eq "anthropic stream: message_start input, message_delta output" "$(tokens_of '{"stream":true,"max_tokens":20}') 20 $TEXT" \
    "$(sjson "'%d %d %s' % (j[0]['message']['usage']['input_tokens'], [e for e in j if e['type']=='message_delta'][0]['usage']['output_tokens'], ''.join(e['delta']['text'] for e in j if e['type']=='content_block_delta'))")"
check_match "anthropic stream: named events" 'event: message_stop' "$(body)"
call -H 'x-goog-api-key: gk-one' -d "$G" "$U/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" >/dev/null
check_eq "gemini sse: last chunk has STOP and the full usage" "STOP 9 $TEXT" \
    "$(sjson "'%s %d %s' % (j[-1]['candidates'][0]['finishReason'], j[-1]['usageMetadata']['candidatesTokenCount'], ''.join(c['candidates'][0]['content']['parts'][0]['text'] for c in j))")"
call -H 'x-goog-api-key: gk-one' -d "$G" "$U/v1beta/models/gemini-2.5-flash:streamGenerateContent" >/dev/null
check_eq "gemini stream without alt=sse: a JSON array" "3 9" "$(bjson "'%d %d' % (len(j), j[-1]['usageMetadata']['candidatesTokenCount'])")"
call -H 'Authorization: Bearer ds-one' -H 'X-DashScope-SSE: enable' -d "$D" "$U/api/v1/services/aigc/text-generation/generation" >/dev/null
check_match "dashscope sse: event:result with HTTP_STATUS comment" 'event:result' "$(body)"
check_eq "dashscope sse: last event carries usage" "stop 6" \
    "$(sjson "j[-1]['output']['choices'][0]['finish_reason'] + ' ' + str(j[-1]['usage']['output_tokens'])")"
call -d '{"stream":true}' "$U/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=bd-one" >/dev/null
check_eq "baidu stream: ends with is_end and usage" "True 16" "$(sjson "str(j[-1]['is_end']) + ' ' + str(j[-1]['usage']['completion_tokens'])")"

# --- robustness ---------------------------------------------------------------------------------------
check_eq "bad JSON: openai 400" "400 invalid_request_error" \
    "$(call -H 'Authorization: Bearer sk-bad' -d '{"model":' "$U/v1/chat/completions") $(bjson "j['error']['type']")"
check_eq "bad JSON: anthropic 400" "400 error" "$(call -H 'x-api-key: sk-bad' -d 'nope' "$U/v1/messages") $(bjson "j['type']")"
check_eq "bad JSON: gemini 400 INVALID_ARGUMENT" "400 INVALID_ARGUMENT" \
    "$(call -H 'x-goog-api-key: sk-bad' -d '[' "$U/v1beta/models/g:generateContent") $(bjson "j['error']['status']")"
head -c $((8 * 1024 * 1024 - 64)) /dev/zero | tr '\0' 'a' | sed 's/^/{"input":"/; s/$/"}/' >"$LG_TMP/big.json"
check_eq "a body just under 8 MiB is answered" 200 "$(call -H 'Authorization: Bearer sk-big' --data-binary @"$LG_TMP/big.json" "$U/v1/embeddings")"
head -c $((8 * 1024 * 1024 + 10)) /dev/zero | tr '\0' 'a' >"$LG_TMP/huge.bin"
check_eq "a body over 8 MiB gets 413" 413 "$(call -H 'Authorization: Bearer sk-big' --data-binary @"$LG_TMP/huge.bin" "$U/v1/chat/completions")"
check_eq "still alive after all that" 200 "$(call -d '{}' "$U/v1/chat/completions")"

# --- compression, as providers do: gzip when accepted, the body hash of the plain body -----------------
REQ='{"model":"m","messages":[{"role":"user","content":"hi"}]}'
for accept in "gzip" "deflate, gzip;q=0.5" "*" "gzip;q=0" "identity" "br"; do
    want=gzip; case $accept in *"q=0" | identity | br) want=- ;; esac
    call -H "Accept-Encoding: $accept" -H 'Authorization: Bearer sk-gz' -d "$REQ" "$U/v1/chat/completions" >/dev/null
    got=$(hdr content-encoding); [ -n "$got" ] || got=-
    check_eq "Accept-Encoding: $accept: Content-Encoding $want" "$want" "$got"
done
call -H 'Accept-Encoding: gzip' -H 'Authorization: Bearer sk-gz' -d "$REQ" "$U/v1/chat/completions" >/dev/null
check_eq "gzip: the body decodes to the answer its x-mock-body-sha256 names" "$(hdr x-mock-body-sha256) sk-gz" \
    "$(/usr/bin/python3 -c 'import gzip, hashlib, json, sys; b = gzip.decompress(open(sys.argv[1], "rb").read()); print(hashlib.sha256(b).hexdigest(), json.loads(b)["mock_key"])' "$LG_TMP/body")"

# --- /__stats, /__requests, /__reset ----------------------------------------------------------------
check_eq "POST /__reset" 200 "$(call -X POST "$U/__reset")"
check_eq "after reset: no requests counted" "0 0" "$(lg_stats | lg_json "'%d %d' % (j['total']['requests'], len(j['keys']))")"
check_eq "after reset: empty request log" "[]" "$(curl -s "$U/__requests")"
R='{"model":"gpt-4o","messages":[{"role":"user","content":"log me"}]}'
call -H 'Authorization: Bearer sk-log' -H 'X-Custom: one' -H 'Host: api.openai.com' -d "$R" "$U/v1/chat/completions?a=1&b=2" >/dev/null
call -d '{}' "$U/v1/chat/completions" >/dev/null
curl -s "$U/__stats" >/dev/null
curl -s "$U/__requests" >"$LG_TMP/log.json"
check_eq "/__requests: two provider requests, /__ paths not logged" 2 "$(lg_json "len(j)" <"$LG_TMP/log.json")"
check_eq "/__requests: what the provider received" "POST /v1/chat/completions a=1&b=2 api.openai.com sk-log authorization ${#R} one" \
    "$(lg_json "' '.join(str(j[0][k]) for k in ['method','path','query','host','key','auth_header_name','body_len']) + ' ' + j[0]['headers']['x-custom']" <"$LG_TMP/log.json")"
check_eq "/__requests: body_sha256" "$(printf %s "$R" | sha256sum | cut -d' ' -f1)" "$(lg_json "j[0]['body_sha256']" <"$LG_TMP/log.json")"
check_eq "/__requests: the authorization header as sent" "Bearer sk-log" "$(lg_json "j[0]['headers']['authorization']" <"$LG_TMP/log.json")"
check_eq "/__requests: no key is the empty key" "|" "$(lg_json "j[1]['key'] + '|' + j[1]['auth_header_name']" <"$LG_TMP/log.json")"
lg_stats >"$LG_TMP/stats.json"
check_eq "/__stats: per key counts, /__ paths not counted" "1 1 0 0 0 1" \
    "$(lg_json "' '.join(str(j['keys']['sk-log'][k]) for k in ['requests','success','rate_limited','server_error','other_error','max_in_window'])" <"$LG_TMP/stats.json")"
check_eq "/__stats: anonymous key and total" "1 2 2" \
    "$(lg_json "'%d %d %d' % (j['keys']['']['requests'], j['total']['requests'], j['total']['success'])" <"$LG_TMP/stats.json")"
check_eq "/__stats: tokens of the success" "$(($(tokens_of "$R") + 16))" "$(lg_json "j['keys']['sk-log']['tokens']" <"$LG_TMP/stats.json")"
check_eq "unknown /__ path: 404" 404 "$(call "$U/__nope")"
load_cfg 210 "$U/v1/chat/completions" '{}' sk-many >"$LG_TMP/many.cfg"
check_eq "210 requests in a row on one connection" 210 "$(curl -s -K "$LG_TMP/many.cfg" | grep -c '^200$')"
check_eq "/__requests keeps the last 200" 200 "$(curl -s "$U/__requests" | lg_json "len(j)")"

# --- exact sliding window -----------------------------------------------------------------------------
lg_start_mock --quiet --rpm 5 --window-ms 2000
L=$MOCK_URL
codes=""
for _ in 1 2 3 4 5 6; do codes="$codes $(call -H 'Authorization: Bearer sk-lim' -d '{}' "$L/v1/chat/completions")"; done
check_eq "rpm 5: five succeed, the sixth is 429" " 200 200 200 200 200 429" "$codes"
check_match "429 carries retry-after in whole seconds" '^[12]$' "$(hdr retry-after)"
check_eq "429 body is OpenAI's rate_limit_exceeded on requests" "rate_limit_exceeded requests None" \
    "$(bjson "'%s %s %s' % (j['error']['code'], j['error']['type'], j['error']['param'])")"
check_match "429 message quotes the limit and the wait" 'on requests per min \(RPM\): Limit 5, Used 5, Requested 1\. Please try again in [0-9.]+m?s\.' \
    "$(bjson "j['error']['message']")"
check_eq "429 x-ratelimit headers" "5 0" "$(hdr x-ratelimit-limit-requests) $(hdr x-ratelimit-remaining-requests)"
check_match "429 x-ratelimit-reset-requests is a duration" '^[0-9.]+m?s$' "$(hdr x-ratelimit-reset-requests)"
check_eq "another key is independent" 200 "$(call -H 'Authorization: Bearer sk-other' -d '{}' "$L/v1/chat/completions")"
check_eq "success carries remaining requests" "4" "$(hdr x-ratelimit-remaining-requests)"
for _ in 1 2 3 4 5; do call -H 'x-api-key: ak-lim' -d '{}' "$L/v1/messages" >/dev/null; done
check_eq "anthropic over the limit: 429 rate_limit_error" "429 rate_limit_error" \
    "$(call -H 'x-api-key: ak-lim' -d '{}' "$L/v1/messages") $(bjson "j['error']['type']")"
check_match "anthropic: retry-after and ratelimit headers" '^[12] 5 0 [0-9T:-]+Z$' \
    "$(hdr retry-after) $(hdr anthropic-ratelimit-requests-limit) $(hdr anthropic-ratelimit-requests-remaining) $(hdr anthropic-ratelimit-requests-reset)"
for _ in 1 2 3 4 5; do call -H 'x-goog-api-key: gk-lim' -d '{}' "$L/v1beta/models/g:generateContent" >/dev/null; done
check_eq "gemini over the limit: 429 RESOURCE_EXHAUSTED" "429 RESOURCE_EXHAUSTED" \
    "$(call -H 'x-goog-api-key: gk-lim' -d '{}' "$L/v1beta/models/g:generateContent") $(bjson "j['error']['status']")"
check_match "gemini: PerMinute quotaId and RetryInfo" 'PerMinute.* [0-9.]+s$' \
    "$(bjson "[d for d in j['error']['details'] if d['@type'].endswith('QuotaFailure')][0]['violations'][0]['quotaId'] + ' ' + [d for d in j['error']['details'] if d['@type'].endswith('RetryInfo')][0]['retryDelay']")"
for _ in 1 2 3 4 5; do call -H 'Authorization: Bearer ds-lim' -d '{}' "$L/api/v1/services/aigc/text-generation/generation" >/dev/null; done
check_eq "dashscope over the limit: 429 Throttling.RateQuota" "429 Throttling.RateQuota" \
    "$(call -H 'Authorization: Bearer ds-lim' -d '{}' "$L/api/v1/services/aigc/text-generation/generation") $(bjson "j['code']")"
for _ in 1 2 3 4 5; do call -d '{}' "$L/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=bd-lim" >/dev/null; done
check_eq "baidu over the limit: HTTP 200 error_code 18, no retry-after" "200 18 Open api qps request limit reached " \
    "$(call -d '{}' "$L/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=bd-lim") $(bjson "'%d %s' % (j['error_code'], j['error_msg'])") $(hdr retry-after)"
sleep 2.1
check_eq "after the window: success again" 200 "$(call -H 'Authorization: Bearer sk-lim' -d '{}' "$L/v1/chat/completions")"
check_eq "stats for the limited key" "7 6 1 5" \
    "$(lg_stats | lg_json "' '.join(str(j['keys']['sk-lim'][k]) for k in ['requests','success','rate_limited','max_in_window'])")"

# unlimited dimensions are stated as the providers state theirs: generous defaults, what remains decreasing
# (the tokens dimension beside the configured rpm 5 above; both with no limit below)
check_eq "rpm 5 and no tpm: the tokens dimension at its default limit" 2000000 "$(hdr x-ratelimit-limit-tokens)"
lg_start_mock --quiet
D=$MOCK_URL
call -H 'Authorization: Bearer sk-def' -d '{}' "$D/v1/chat/completions" >/dev/null
first="$(hdr x-ratelimit-limit-requests) $(hdr x-ratelimit-remaining-requests) $(hdr x-ratelimit-limit-tokens)"
tok1=$(hdr x-ratelimit-remaining-tokens)
call -H 'Authorization: Bearer sk-def' -d '{}' "$D/v1/chat/completions" >/dev/null
check_eq "no limits: default x-ratelimit limits, remaining requests counted down" "10000 9999 2000000|9998" \
    "$first|$(hdr x-ratelimit-remaining-requests)"
check "no limits: remaining tokens decrease with the window's use" test "$(hdr x-ratelimit-remaining-tokens)" -lt "$tok1"
check_match "no limits: x-ratelimit-reset-requests is a duration" '^[0-9.]+m?s$' "$(hdr x-ratelimit-reset-requests)"
call -H 'x-api-key: ak-def' -d '{}' "$D/v1/messages" >/dev/null
check_match "no limits: anthropic-ratelimit-* on Anthropic's answer" '^10000 9999 [0-9T:-]+Z 2000000 [0-9]+ [0-9T:-]+Z$' \
    "$(hdr anthropic-ratelimit-requests-limit) $(hdr anthropic-ratelimit-requests-remaining) $(hdr anthropic-ratelimit-requests-reset) $(hdr anthropic-ratelimit-tokens-limit) $(hdr anthropic-ratelimit-tokens-remaining) $(hdr anthropic-ratelimit-tokens-reset)"
lg_start_mock --quiet --no-ratelimit-headers
call -H 'Authorization: Bearer sk-def' -d '{}' "$MOCK_URL/v1/chat/completions" >/dev/null
check_eq "--no-ratelimit-headers: no rate-limit header at all" "" "$(grep -i ratelimit "$LG_TMP/head" || true)"

lg_start_mock --quiet --window-ms 1000
W=$MOCK_URL
for _ in 1 2 3; do call -H 'Authorization: Bearer sk-w' -d '{}' "$W/v1/chat/completions" >/dev/null; done
sleep 1.1
for _ in 1 2; do call -H 'Authorization: Bearer sk-w' -d '{}' "$W/v1/chat/completions" >/dev/null; done
check_eq "max_in_window counts one window, not the whole run" "5 3" \
    "$(lg_stats | lg_json "'%d %d' % (j['keys']['sk-w']['success'], j['keys']['sk-w']['max_in_window'])")"

lg_start_mock --quiet --tpm 100
T=$MOCK_URL
check_eq "tpm: a request that fits" 200 "$(call -H 'Authorization: Bearer sk-t' -d '{"max_tokens":60}' "$T/v1/chat/completions")"
check_eq "tpm: the next one does not fit: 429 on tokens" "429 tokens" \
    "$(call -H 'Authorization: Bearer sk-t' -d '{"max_tokens":60}' "$T/v1/chat/completions") $(bjson "j['error']['type']")"
check_match "tpm: message names TPM" 'on tokens per min \(TPM\): Limit 100' "$(bjson "j['error']['message']")"
check_eq "tpm: a smaller request still fits" 200 "$(call -H 'Authorization: Bearer sk-t' -d '{"max_tokens":1}' "$T/v1/chat/completions")"

# --- scenarios ----------------------------------------------------------------------------------------
mkdir -p "$LG_TMP/sc/fx"
cp "$LG_ROOT/tests/fixtures/responses/anthropic_05_529-overloaded.json" "$LG_TMP/sc/fx/overloaded.json"
cat >"$LG_TMP/sc/scenario.json" <<'EOF'
{
  "seed": 42,
  "keys": {
    "k-seq": {"rpm": 0, "sequence": [
      {"status": 429, "body": "{\"error\":\"literal\"}", "headers": {"retry-after": "7", "x-test": "yes"}},
      {"fixture": "fx/overloaded.json"},
      {"error": "quota"},
      {"error": "rate_limit", "retry_after_ms": 2500},
      {"error": "overloaded"},
      {"error": "server_error"},
      {"error": "auth"},
      {"delay_ms": 400},
      {"reset": true},
      {"truncate": 10},
      {"error_in_200": true},
      {"chunk": 64, "chunk_delay_ms": 10}
    ]},
    "k-rep": {"sequence": [{"error": "server_error"}, {}], "repeat": true},
    "k-ant": {"sequence": [{"error": "overloaded"}, {"error": "rate_limit"}, {"error_in_200": true}]},
    "k-bd": {"sequence": [{"error_in_200": true}]},
    "k-prob": {"probability": {"429": 0.5, "503": 0.25}},
    "k-own": {"rpm": 2},
    "*": {"rpm": 3, "window_ms": 60000}
  }
}
EOF
lg_start_mock --quiet --scenario "$LG_TMP/sc/scenario.json"
C=$MOCK_URL
seq_call() { call -H 'Authorization: Bearer k-seq' "$@" "$C/v1/chat/completions"; }
check_eq "literal step: status" 429 "$(seq_call -d '{}')"
check_eq "literal step: body and headers" '{"error":"literal"} 7 yes' "$(body) $(hdr retry-after) $(hdr x-test)"
check_eq "fixture step (relative path): status and body" "529 overloaded_error" "$(seq_call -d '{}') $(bjson "j['error']['type']")"
check_eq "fixture step: the fixture's headers" "true" "$(hdr x-should-retry)"
check_eq "error quota: openai insufficient_quota 429" "429 insufficient_quota" "$(seq_call -d '{}') $(bjson "j['error']['code']")"
check_eq "error rate_limit: 429 with the given wait" "429 rate_limit_exceeded 3" "$(seq_call -d '{}') $(bjson "j['error']['code']") $(hdr retry-after)"
check_eq "error overloaded: 503" 503 "$(seq_call -d '{}')"
check_eq "error server_error: 500" 500 "$(seq_call -d '{}')"
check_eq "error auth: 401 invalid_api_key" "401 invalid_api_key" "$(seq_call -d '{}') $(bjson "j['error']['code']")"
t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H 'Authorization: Bearer k-seq' -d '{}' "$C/v1/chat/completions")
check_match "delay step: normal answer after the delay" '^200 0*[0-9]*\.?[0-9]+$' "$t"
check "delay step: took at least 0.4 s" /usr/bin/python3 -c "import sys; sys.exit(0 if float('${t#* }') >= 0.4 else 1)"
curl -s -o /dev/null -H 'Authorization: Bearer k-seq' -d '{}' "$C/v1/chat/completions"
check_eq "reset step: connection closed without a reply (curl 52)" 52 "$?"
curl -s -o "$LG_TMP/trunc" -H 'Authorization: Bearer k-seq' -d '{}' "$C/v1/chat/completions"
check_eq "truncate step: transfer closed early (curl 18)" "18 10" "$? $(wc -c <"$LG_TMP/trunc")"
check_eq "error_in_200 step: 200 with an error event" "200 rate_limit_exceeded" \
    "$(seq_call -d '{"stream":true}') $(sjson "[e for e in j if 'error' in e][0]['error']['code']")"
curl -s --raw -o "$LG_TMP/raw" -H 'Authorization: Bearer k-seq' -d '{"stream":true}' "$C/v1/chat/completions"
check "chunk step: the body comes in 64-byte chunks" test "$(grep -c $'^40\r$' "$LG_TMP/raw")" -ge 5
check_eq "after the sequence: normal answers" "200 $TEXT" "$(seq_call -d '{}') $(bjson "j['choices'][0]['message']['content']")"
codes=""
for _ in 1 2 3 4 5; do codes="$codes $(call -H 'Authorization: Bearer k-rep' -d '{}' "$C/v1/chat/completions")"; done
check_eq "repeat: the sequence cycles" " 500 200 500 200 500" "$codes"
check_eq "anthropic overloaded: 529 overloaded_error" "529 overloaded_error" \
    "$(call -H 'x-api-key: k-ant' -d '{}' "$C/v1/messages") $(bjson "j['error']['type']")"
check_eq "anthropic rate_limit: 429 rate_limit_error" "429 rate_limit_error" "$(call -H 'x-api-key: k-ant' -d '{}' "$C/v1/messages") $(bjson "j['error']['type']")"
check_match "anthropic error_in_200: event: error in a 200 stream" '^200 .*event: error' "$(call -H 'x-api-key: k-ant' -d '{}' "$C/v1/messages") $(body | tr '\n' ' ')"
check_eq "baidu error_in_200: HTTP 200 error_code 18" "200 18" \
    "$(call -d '{}' "$C/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=k-bd") $(bjson "j['error_code']")"
prob_codes() { for _ in $(seq 40); do call -H 'Authorization: Bearer k-prob' -d '{}' "$C/v1/chat/completions"; echo; done | sort | uniq -c | tr -s ' \n' ' '; }
curl -s -X POST "$C/__reset" >/dev/null
first=$(prob_codes)
check_match "probability: 429s, 503s and successes" '429.*503|503.*429' "$first"
curl -s -X POST "$C/__reset" >/dev/null
check_eq "probability: the seed repeats the same draw" "$first" "$(prob_codes)"
codes=""
for _ in 1 2 3 4; do codes="$codes $(call -H 'Authorization: Bearer k-any' -d '{}' "$C/v1/chat/completions")"; done
check_eq "\"*\" limits apply to other keys" " 200 200 200 429" "$codes"
codes=""
for _ in 1 2 3; do codes="$codes $(call -H 'Authorization: Bearer k-own' -d '{}' "$C/v1/chat/completions")"; done
check_eq "a key's own limits win over \"*\"" " 200 200 429" "$codes"
echo '{"keys": {"x": {"sequence": [{"error": "nope"}]}}}' >"$LG_TMP/sc/bad.json"
msg=$(timeout 5 "$LG_MOCK" --port 0 --scenario "$LG_TMP/sc/bad.json" 2>&1)
check_eq "a bad scenario is refused with status 2" 2 "$?"
check_match "the refusal names the place" 'keys\.x\.sequence\[0\]: error' "$msg"

# --- HTTPS --------------------------------------------------------------------------------------------
if lg_gencerts; then
    lg_start_mock --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
    check_match "tls_port published" '^[0-9]+$' "$MOCK_TLS_PORT"
    code=$(call --cacert "$LG_TMP/certs/ca.pem" --resolve "api.openai.com:$MOCK_TLS_PORT:127.0.0.1" \
        -H 'Authorization: Bearer sk-tls' -d '{}' "https://api.openai.com:$MOCK_TLS_PORT/v1/chat/completions")
    check_eq "HTTPS verified for api.openai.com" 200 "$code"
    check_eq "HTTPS: key and host seen" "sk-tls api.openai.com:$MOCK_TLS_PORT" "$(hdr x-mock-key) $(hdr x-mock-host)"
    check_eq "HTTPS verified for an Azure resource host" 200 \
        "$(call --cacert "$LG_TMP/certs/ca.pem" --resolve "res.openai.azure.com:$MOCK_TLS_PORT:127.0.0.1" -H 'api-key: az' -d '{}' \
            "https://res.openai.azure.com:$MOCK_TLS_PORT/openai/deployments/d/chat/completions")"
    curl -s -o /dev/null --cacert "$LG_TMP/certs/ca.pem" --resolve "example.com:$MOCK_TLS_PORT:127.0.0.1" "https://example.com:$MOCK_TLS_PORT/"
    check_eq "HTTPS: a host outside the certificate fails verification" 60 "$?"
    check_eq "the plain port of the same process still answers" 200 "$(call -d '{}' "$MOCK_URL/v1/chat/completions")"
    check_eq "both listeners share one state" 3 "$(lg_stats | lg_json "j['total']['requests']")"
else
    not_ok "tests/gen-certs.sh creates the test certificates"
fi

# --- OpenAI accounting: prompt by the mock's tokenizer + the requested max_tokens, never refunded -------
lg_start_mock --quiet --accounting openai --tpm 1000 --window-ms 60000
O='{"model":"gpt-4o","max_tokens":400,"messages":[{"role":"system","content":"abcdef"},{"role":"user","content":"ghi"}]}'
check_eq "openai accounting: 200" 200 "$(call -H 'Authorization: Bearer sk-acct' -d "$O" "$MOCK_URL/v1/chat/completions")"
check_eq "openai accounting: usage is 3 + 4 per message + text/3, and the reply's 8 tokens" "14 8" \
    "$(bjson "'%d %d' % (j['usage']['prompt_tokens'], j['usage']['completion_tokens'])")"
check_eq "openai accounting: the window counted prompt + max_tokens (1000 - 414)" 586 "$(hdr x-ratelimit-remaining-tokens)"
call -H 'Authorization: Bearer sk-acct' -d "$O" "$MOCK_URL/v1/chat/completions" >/dev/null
check_eq "openai accounting: the third does not fit what is left (172)" 429 \
    "$(call -H 'Authorization: Bearer sk-acct' -d "$O" "$MOCK_URL/v1/chat/completions")"
check_match "openai accounting: refused on tokens" 'tokens per min \(TPM\): Limit 1000, Used 828, Requested 414' "$(body)"
check_eq "openai accounting: /__stats counts the charge" 828 "$(lg_stats | lg_json "j['keys']['sk-acct']['tokens']")"
"$LG_MOCK" --port 0 --accounting usage >/dev/null 2>&1
check_eq "an unknown accounting exits with status 2" 2 "$?"

# --- throughput ---------------------------------------------------------------------------------------
lg_start_mock --quiet
for w in 1 2 3 4; do load_cfg 500 "$MOCK_URL/v1/chat/completions" '{"max_tokens":4}' "sk-load-$w" >"$LG_TMP/load$w.cfg"; done
printf '%s\n' 1 2 3 4 | xargs -P 4 -I{} curl -s -K "$LG_TMP/load{}.cfg" >"$LG_TMP/load.codes"
check_eq "throughput: 2000 requests from 4 parallel clients, all 200" "2000" "$(grep -c '^200$' "$LG_TMP/load.codes")"
check_eq "throughput: the stats agree" "2000 2000" "$(lg_stats | lg_json "'%d %d' % (j['total']['requests'], j['total']['success'])")"

kill -TERM "$MOCK_PID"
wait "$MOCK_PID"
check_eq "SIGTERM after load: exit status 0" 0 "$?"
lg_done
