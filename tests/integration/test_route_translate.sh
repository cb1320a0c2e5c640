#!/usr/bin/env bash
# Routing rules and cross-dialect fallback (issue 11), through an unmodified curl script written for OpenAI under
# `llmgate run`, against the mock started with --strict: the OpenAI key is dry, so the request goes to the
# Anthropic endpoint translated (x-api-key, anthropic-version, /v1/messages, never the host's key), and
# the host gets OpenAI-format answers, streamed and not; an Anthropic error reaches the host in OpenAI's
# error format; a request Anthropic cannot take faithfully is not sent there. Routing rules: small requests
# go to a cheaper model (the mock sees it), a refuse rule answers locally in the host's format, a rule
# sends Claude models to Anthropic translated; `llmgate route` shows the same decisions without sending.
# A host written for Gemini falls back to OpenAI the same way, its model and streaming read from its URL.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-claude-down": {"sequence": [{"error": "overloaded"}], "repeat": true},
          "sk-claude-cut": {"sequence": [{"truncate": 30}], "repeat": true}}}
JSON
lg_start_mock --strict --scenario "$LG_TMP/scenario.json" --quiet
export OPENAI_API_KEY=sk-host-openai-1234 KEY_DRY=sk-dry KEY_CLAUDE=sk-claude KEY_CLAUDE_DOWN=sk-claude-down \
       KEY_CLAUDE_CUT=sk-claude-cut
reqlog() { curl -s "$MOCK_URL/__requests"; }
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
# write_config NAME CLAUDE-KEY-VAR: the dry OpenAI provider falling back to the Anthropic endpoint.
write_config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {
   "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_DRY"}],
              "fallback": ["anthropic"]},
   "anthropic": {"upstream": "$MOCK_URL", "accounts": [{"name": "claude", "key": "env:$2"}],
                 "models": {"gpt-4o*": "claude-3-5-haiku-latest"}}},
 "retry": {"max_rate_limit_wait_seconds": 5, "max_server_retries": 0},
 "log": {"level": "debug", "file": "$LG_TMP/gate.log"}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
write_config fb KEY_CLAUDE
write_config fbdown KEY_CLAUDE_DOWN
write_config fbcut KEY_CLAUDE_CUT

# The host: a script written for OpenAI, unaware of llmgate.
cat >"$LG_TMP/ask.sh" <<'SH'
#!/bin/sh
curl -sN https://api.openai.com/v1/chat/completions -H "Authorization: Bearer $OPENAI_API_KEY" \
     -H 'Content-Type: application/json' -d "$1"
SH
chmod +x "$LG_TMP/ask.sh"
ask() { local c=$1; shift; "$LG_CLI" run --config "$LG_TMP/$c.json" -- "$LG_TMP/ask.sh" "$@"; }
TEXT='你好，世界 — ok'

# 1. Not streamed.
BODY='{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}'
out=$(ask fb "$BODY")
check_eq "plain: the host gets an OpenAI chat.completion" "chat.completion" "$(lg_json 'j["object"]' <<<"$out")"
check_eq "plain: with the answer's text" "$TEXT" "$(lg_json 'j["choices"][0]["message"]["content"]' <<<"$out")"
check_eq "plain: finish reason and usage in OpenAI's names" "stop True" \
    "$(lg_json 'j["choices"][0]["finish_reason"], j["usage"]["total_tokens"] == j["usage"]["prompt_tokens"] + j["usage"]["completion_tokens"]' <<<"$out" | tr -d "(),'")"
log=$(reqlog)
check_eq "plain: the dry OpenAI key first, then the Anthropic endpoint" "/v1/chat/completions sk-dry 429|/v1/messages sk-claude" \
    "$(lg_json '"|".join(r["path"] + " " + r["key"] + (" 429" if r["dialect"] == "openai" else "") for r in j)' <<<"$log")"
check_eq "plain: a valid Anthropic request (x-api-key, anthropic-version; the strict mock answered)" \
    "x-api-key 2023-06-01 None 1" \
    "$(lg_json 'j[1]["auth_header_name"], j[1]["headers"].get("anthropic-version"), j[1]["headers"].get("authorization"), 1' <<<"$log" | tr -d "(),'")"
check_eq "plain: the mock counted one success for the Anthropic key" 1 \
    "$(lg_stats | lg_json 'j["keys"]["sk-claude"]["success"]')"
check "plain: the host's key never reached the mock" test -z "$(grep -o 'sk-host-openai' <<<"$log")"

# 2. Streamed: chat.completion.chunk events ending in data: [DONE], with the usage chunk asked for.
reset_mock
BODY='{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"max_tokens":64,"messages":[{"role":"user","content":"hi"}]}'
ask fb "$BODY" >"$LG_TMP/stream.out"
check_eq "stream: every event is a chat.completion.chunk, then data: [DONE]" "chat.completion.chunk [DONE]" \
    "$(sed -n 's/^data: //p' "$LG_TMP/stream.out" | /usr/bin/python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
kinds = sorted({json.loads(l)["object"] for l in lines[:-1]})
print(" ".join(kinds), lines[-1])')"
check_eq "stream: the deltas carry the whole text" "$TEXT" \
    "$(sed -n 's/^data: {/{/p' "$LG_TMP/stream.out" | /usr/bin/python3 -c '
import json, sys
print("".join((c.get("delta") or {}).get("content") or "" for l in sys.stdin for c in json.loads(l)["choices"]))')"
check_eq "stream: a final usage chunk" "1" \
    "$(sed -n 's/^data: {/{/p' "$LG_TMP/stream.out" | /usr/bin/python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l).get("usage")))')"
check_eq "stream: the Anthropic endpoint was asked for a stream, and answered it" "/v1/messages sk-claude 1" \
    "$(reqlog | lg_json 'j[-1]["path"], j[-1]["key"], 1' | tr -d "(),'")"

# 2b. The same with a Gemini fallback: x-goog-api-key, the mapped model in the path, streamed and not.
fresh_store
reset_mock
export KEY_GEMINI=sk-gemini
cat >"$LG_TMP/fbg.json" <<JSON
{"providers": {
   "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_DRY"}], "fallback": ["gemini"]},
   "gemini": {"upstream": "$MOCK_URL", "accounts": [{"name": "g", "key": "env:KEY_GEMINI"}],
              "models": {"gpt-4o*": "gemini-1.5-flash"}}},
 "retry": {"max_rate_limit_wait_seconds": 5}}
JSON
chmod 600 "$LG_TMP/fbg.json"
out=$(ask fbg '{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}')
check_eq "gemini: the host gets an OpenAI chat.completion with the text" "chat.completion $TEXT" \
    "$(lg_json 'j["object"] + " " + j["choices"][0]["message"]["content"]' <<<"$out")"
check_eq "gemini: a valid generateContent request with the target's key" \
    "/v1beta/models/gemini-1.5-flash:generateContent sk-gemini x-goog-api-key" \
    "$(reqlog | lg_json '" ".join([j[-1]["path"], j[-1]["key"], j[-1]["auth_header_name"]])')"
ask fbg '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}' >"$LG_TMP/gstream.out"
check_eq "gemini stream: chat.completion.chunk deltas with the whole text, then data: [DONE]" "$TEXT|[DONE]" \
    "$(sed -n 's/^data: //p' "$LG_TMP/gstream.out" | /usr/bin/python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
chunks = [json.loads(l) for l in lines[:-1]]
assert all(c["object"] == "chat.completion.chunk" for c in chunks)
print("".join((c.get("delta") or {}).get("content") or "" for k in chunks for c in k["choices"]) + "|" + lines[-1])')"
check_eq "gemini stream: the streaming endpoint, as SSE" ":streamGenerateContent alt=sse" \
    "$(reqlog | lg_json '"".join(j[-1]["path"].partition(":")[1:]) + " " + j[-1]["query"]')"
check "gemini: the host's key never reached the mock" test -z "$(reqlog | grep -o 'sk-host-openai')"

# 2c. A host written for Gemini (the model and the streaming in its URL, x-goog-api-key) whose key is dry
# gets Gemini-format answers from the OpenAI endpoint, streamed (alt=sse) and not; a Gemini stream that
# is one JSON array (no alt=sse) is not translated: the host gets Gemini's own failure.
fresh_store
reset_mock
export GEMINI_API_KEY=host-gemini-key-5678 KEY_OA=sk-oa
cat >"$LG_TMP/gem.json" <<JSON
{"providers": {
   "gemini": {"upstream": "$MOCK_URL", "accounts": [{"name": "dry", "key": "env:KEY_DRY"}], "fallback": ["openai"]},
   "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "oa", "key": "env:KEY_OA"}],
              "models": {"gemini-*": "gpt-4o-mini"}}},
 "retry": {"max_rate_limit_wait_seconds": 5}}
JSON
chmod 600 "$LG_TMP/gem.json"
cat >"$LG_TMP/gem.sh" <<'SH'
#!/bin/sh
curl -sN "https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:$1" \
     -H "x-goog-api-key: $GEMINI_API_KEY" -H 'Content-Type: application/json' -d "$2"
SH
chmod +x "$LG_TMP/gem.sh"
GBODY='{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}'
out=$("$LG_CLI" run --config "$LG_TMP/gem.json" -- "$LG_TMP/gem.sh" generateContent "$GBODY")
check_eq "gemini host: a Gemini answer with the text, from the OpenAI endpoint" "$TEXT|STOP" \
    "$(lg_json 'j["candidates"][0]["content"]["parts"][0]["text"] + "|" + j["candidates"][0]["finishReason"]' <<<"$out")"
check_eq "gemini host: the dry Gemini key first, then OpenAI's endpoint with its own key" \
    "/v1beta/models/gemini-1.5-flash:generateContent sk-dry|/v1/chat/completions sk-oa authorization" \
    "$(reqlog | lg_json '"|".join([j[0]["path"] + " " + j[0]["key"], " ".join([j[1]["path"], j[1]["key"], j[1]["auth_header_name"]])])')"
check_eq "gemini host: the strict mock took the OpenAI request (the mapped model)" "1" \
    "$(lg_stats | lg_json 'j["keys"]["sk-oa"]["success"]')"
"$LG_CLI" run --config "$LG_TMP/gem.json" -- "$LG_TMP/gem.sh" "streamGenerateContent?alt=sse" "$GBODY" >"$LG_TMP/gemstream.out"
check_eq "gemini host stream: Gemini SSE chunks carrying the whole text" "$TEXT" \
    "$(sed -n 's/^data: //p' "$LG_TMP/gemstream.out" | /usr/bin/python3 -c '
import json, sys
print("".join(p.get("text", "") for l in sys.stdin for c in json.loads(l).get("candidates", []) for p in c.get("content", {}).get("parts", [])))')"
check_eq "gemini host stream: OpenAI's endpoint was asked for a stream" "/v1/chat/completions" "$(reqlog | lg_json 'j[-1]["path"]')"
before=$(reqlog | lg_json 'len(j)')
out=$("$LG_CLI" run --config "$LG_TMP/gem.json" -- "$LG_TMP/gem.sh" streamGenerateContent "$GBODY")
check_match "gemini host, JSON-array stream: a Gemini quota failure" '"status": ?"RESOURCE_EXHAUSTED"' "$out"
check_eq "gemini host, JSON-array stream: not sent to OpenAI (nor to the dry key, known out of quota)" "$before" \
    "$(reqlog | lg_json 'len(j)')"
check "gemini host: the host's key never reached the mock" test -z "$(reqlog | grep -o 'host-gemini-key')"

# 2d. The multi front end (curl -Z: two transfers at once) translates the same way; curl -d without a
# content type still sends Anthropic JSON.
fresh_store
reset_mock
"$LG_CLI" run --config "$LG_TMP/fb.json" -- curl -s -Z -H "Authorization: Bearer $OPENAI_API_KEY" \
    -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"one"}]}' https://api.openai.com/v1/chat/completions \
    --next -s -H "Authorization: Bearer $OPENAI_API_KEY" \
    -d '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"two"}]}' \
    https://api.openai.com/v1/chat/completions >"$LG_TMP/multi.out"
check_eq "multi: a chat.completion and a stream ending in data: [DONE], both OpenAI" "1 1" \
    "$(grep -c '"object":"chat.completion"' "$LG_TMP/multi.out") $(grep -c '^data: \[DONE\]' "$LG_TMP/multi.out")"
check_eq "multi: both went to Anthropic as JSON" "2 application/json" \
    "$(reqlog | lg_json 'len([r for r in j if r["path"] == "/v1/messages"]), j[-1]["headers"]["content-type"]' | tr -d "(),'")"

# 3. An Anthropic error reaches the host in OpenAI's error format (status kept).
fresh_store
reset_mock
out=$(ask fbdown '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')
check_eq "error: the overloaded Anthropic answer becomes an OpenAI error object" "True" \
    "$(lg_json '"message" in j["error"] and "type" in j["error"]' <<<"$out")"
check_eq "error: the host sees no Anthropic envelope" "" "$(grep -o '"type":"error"' <<<"$out")"
# an Anthropic answer cut short (before the host had a byte): the host gets the answer before it, the dry
# key's quota error in OpenAI's format, never the target's raw bytes
fresh_store
reset_mock
out=$(ask fbcut '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')
check_eq "cut short: curl exits 0 with the dry key's OpenAI quota error" "0|insufficient_quota" \
    "$?|$(lg_json 'j["error"]["code"]' <<<"$out")"
check "cut short: nothing of Anthropic's bytes ($out)" bash -c "! grep -q 'msg_\|\"type\":\"message\"' <<<'$out'"
check_eq "cut short: it was the translated attempt that was cut" "sk-dry sk-claude-cut" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 4. A request Anthropic cannot take faithfully (temperature above 1) is not sent there: the host gets
# the primary's own failure, and the debug log says why.
fresh_store
reset_mock
out=$(ask fb '{"model":"gpt-4o-mini","temperature":1.7,"messages":[{"role":"user","content":"hi"}]}')
check_eq "refused translation: the primary's quota error" "insufficient_quota" "$(lg_json 'j["error"]["code"]' <<<"$out")"
check_eq "refused translation: nothing went to Anthropic" "sk-dry" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"
check_match "refused translation: the reason is in the debug log" '\[Translate\] openai -> anthropic: not sent there \(.*temperature' \
    "$(cat "$LG_TMP/gate.log")"
check_no_key "the log holds no key" "sk-host-openai-1234 sk-claude-down" "$LG_TMP/gate.log"

# 5. Routing rules.
fresh_store
reset_mock
export KEY_OK=sk-ok
cat >"$LG_TMP/routes.json" <<JSON
{"providers": {
   "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_OK"}]},
   "anthropic": {"upstream": "$MOCK_URL", "accounts": [{"name": "claude", "key": "env:KEY_CLAUDE"}]}},
 "routes": [
   {"match": {"model": "gpt-4o", "max_prompt_tokens": 50}, "set": {"model": "gpt-4o-mini"}},
   {"match": {"header": "X-Project-Secret"}, "refuse": "this project may not call models"},
   {"match": {"model": "claude-*", "program": "curl"}, "to": "anthropic"}]}
JSON
chmod 600 "$LG_TMP/routes.json"
ask_r() { "$LG_CLI" run --config "$LG_TMP/routes.json" -- curl -s -i https://api.openai.com/v1/chat/completions \
    -H "Authorization: Bearer $OPENAI_API_KEY" "$@" | tr -d '\r'; }
SMALL='{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}'
BIG=$(/usr/bin/python3 -c 'import json; print(json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "word " * 200}]}))')
out=$(ask_r -d "$SMALL")
check_match "route set: the small request is answered" '^HTTP/1.1 200' "$out"
check_match "route set: by the cheaper model" '"model":"gpt-4o-mini"' "$out"
sent=$(printf '%s' "$SMALL" | sed 's/"gpt-4o"/"gpt-4o-mini"/' | sha256sum | cut -d' ' -f1)
check_eq "route set: the mock received the rewritten model, every other byte the host's" "$sent" \
    "$(reqlog | lg_json 'j[-1]["body_sha256"]')"
out=$(ask_r -d "$BIG")
check_match "route set: a large prompt keeps its model" '"model":"gpt-4o"[,}]' "$out"
check_eq "route set: the mock received the large request as sent" "$(printf '%s' "$BIG" | sha256sum | cut -d' ' -f1)" \
    "$(reqlog | lg_json 'j[-1]["body_sha256"]')"
before=$(reqlog | lg_json 'len(j)')
out=$(ask_r -H 'X-Project-Secret: 1' -d '{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}')
check_match "route refuse: a local 403 with the reason header" '^HTTP/1.1 403.*X-Llmgate-Reason: route_refused' "$(tr '\n' ' ' <<<"$out")"
check_match "route refuse: an OpenAI error object saying why" '"error":\{"message":"llmgate: refused by routes\[1\]: this project may not call models","type":"invalid_request_error"' "$out"
check_eq "route refuse: nothing was sent" "$before" "$(reqlog | lg_json 'len(j)')"
check "route refuse: no Retry-After on a refusal for good" test -z "$(grep -i '^retry-after' <<<"$out")"
out=$(ask_r -d '{"model":"claude-3-5-haiku-latest","messages":[{"role":"user","content":"hi"}]}')
check_match "route to: a Claude model from an OpenAI script is answered in OpenAI's format" '"object":"chat.completion"' "$out"
check_eq "route to: it went to Anthropic's endpoint with Anthropic's key" "/v1/messages sk-claude" \
    "$(reqlog | lg_json 'j[-1]["path"], j[-1]["key"]' | tr -d "(),'")"

# 6. The dry run shows the same decisions and sends nothing.
before=$(reqlog | lg_json 'len(j)')
printf '%s' "$SMALL" >"$LG_TMP/small.json"
printf '%s' '{"model":"claude-3-5-haiku-latest","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}' >"$LG_TMP/claude.json"
dry=$("$LG_CLI" route --config "$LG_TMP/routes.json" "$LG_TMP/small.json")
check_match "route CLI: the rule and the rewritten body" 'rule: routes\[0\].*model: gpt-4o-mini.*body: \{"model":"gpt-4o-mini"' "$(tr '\n' ' ' <<<"$dry")"
dry=$("$LG_CLI" route --config "$LG_TMP/routes.json" --program curl "$LG_TMP/claude.json")
check_match "route CLI: a translated request, its URL and body" \
    "rule: routes\\[2\\].*send: POST $MOCK_URL/v1/messages .*translated openai -> anthropic.*\"system\":\"Be brief.\"" "$(tr '\n' ' ' <<<"$dry")"
dry=$("$LG_CLI" route --config "$LG_TMP/routes.json" --header x-project-secret "$LG_TMP/claude.json")
check_match "route CLI: a refusal" 'rule: routes\[1\].*answer: 403 llmgate: refused by routes\[1\]' "$(tr '\n' ' ' <<<"$dry")"
dry=$("$LG_CLI" route --config "$LG_TMP/routes.json" "$LG_TMP/claude.json")
check_match "route CLI: no rule (the program does not match)" 'rule: none' "$dry"
check_eq "route CLI: nothing was sent" "$before" "$(reqlog | lg_json 'len(j)')"

lg_done
