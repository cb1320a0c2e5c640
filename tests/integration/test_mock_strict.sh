#!/usr/bin/env bash
# The mock's --strict mode: the Anthropic endpoint refuses a system role inside messages, roles that do
# not alternate and a missing max_tokens with Anthropic's 400 invalid_request_error; the Gemini endpoint
# refuses OpenAI fields and roles with Gemini's 400 INVALID_ARGUMENT. Every translated request of the
# golden files (tests/fixtures/translate, equal to the translators' output by test_translate) passes.
source "$(dirname "$0")/../lib.sh"

[ -x "$LG_MOCK" ] || { not_ok "build/llmgate-mock is built"; exit 1; }
FX=$LG_ROOT/tests/fixtures/translate

# post PATH BODY: one request to the mock; prints the status, keeps the body in $LG_TMP/body.
post() {
    local hdr=(-H 'x-api-key: sk-ant-strict' -H 'anthropic-version: 2023-06-01' -H 'Host: api.anthropic.com')
    [[ $1 == /v1beta/* ]] && hdr=(-H 'x-goog-api-key: AIza-strict' -H 'Host: generativelanguage.googleapis.com')
    curl -s -o "$LG_TMP/body" -w '%{http_code}' "${hdr[@]}" -H 'Content-Type: application/json' \
        --data-binary "$2" "$MOCK_URL$1"
}
bjson() { lg_json "$1" <"$LG_TMP/body"; }
MSG=/v1/messages
GEN=/v1beta/models/gemini-2.0-flash:generateContent

lg_start_mock --quiet --strict
check_eq "anthropic: a valid body is answered" 200 \
    "$(post $MSG '{"model":"claude-x","max_tokens":10,"system":"s","messages":[{"role":"user","content":"hi"}]}')"
check_eq "anthropic: a system role in messages is a 400" 400 \
    "$(post $MSG '{"model":"claude-x","max_tokens":10,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}')"
check_eq "... of type invalid_request_error" "error invalid_request_error" "$(bjson "j['type'], j['error']['type']" | tr -d "(),'")"
check_match "... saying the role is unexpected" 'Unexpected role "system"' "$(bjson "j['error']['message']")"
check_eq "anthropic: two user turns in a row are a 400" 400 \
    "$(post $MSG '{"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}')"
check_match "... saying roles must alternate" 'roles must alternate' "$(bjson "j['error']['message']")"
check_eq "anthropic: no max_tokens is a 400" 400 \
    "$(post $MSG '{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}')"
check_eq "... saying max_tokens is required" "max_tokens: Field required" "$(bjson "j['error']['message']")"

OPENAI_BODY='{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":5}'
check_eq "gemini: an OpenAI body is a 400" 400 "$(post $GEN "$OPENAI_BODY")"
check_eq "... INVALID_ARGUMENT with code 400" "INVALID_ARGUMENT 400" "$(bjson "j['error']['status'], j['error']['code']" | tr -d "(),'")"
check_match "... naming the unknown field" 'Unknown name "(model|messages|max_tokens)": Cannot find field' "$(bjson "j['error']['message']")"
check_eq "... with a BadRequest detail" "type.googleapis.com/google.rpc.BadRequest" "$(bjson "j['error']['details'][0]['@type']")"
check_eq "gemini: an assistant role is a 400" 400 "$(post $GEN '{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}')"
check_eq "gemini: a valid body is answered" 200 "$(post $GEN '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}')"

# What the mock received and how it counted: the refused requests arrived and count as errors.
reqs=$(curl -s "$MOCK_URL/__requests")
check_eq "the mock logged every request (7)" 7 "$(lg_json 'len(j)' <<<"$reqs")"
check_eq "... on the Anthropic and Gemini dialects" "anthropic:4 google:3" \
    "$(lg_json "' '.join('%s:%d' % (d, sum(1 for r in j if r['dialect'] == d)) for d in ('anthropic', 'google'))" <<<"$reqs")"
check_eq "stats count 7 requests, 2 successes" "7 2" \
    "$(lg_stats | lg_json "'%d %d' % (j['total']['requests'], j['total']['success'])")"

# Every golden translated request passes the strict endpoints.
n=0 bad=""
for f in "$FX"/req_*.json; do
    read -r to body < <(/usr/bin/python3 -c '
import json, sys
fx = json.load(open(sys.argv[1]))
print(fx["to"], json.dumps(fx["out"]))' "$f")
    case $to in anthropic) path=$MSG ;; gemini) path=$GEN ;; *) continue ;; esac
    n=$((n + 1))
    st=$(post "$path" "$body")
    [ "$st" = 200 ] || bad="$bad $(basename "$f"):$st:$(head -c 200 "$LG_TMP/body")"
done
check "golden translations to Anthropic and Gemini found ($n)" test "$n" -ge 6
check_eq "every golden translation passes the strict mock" "" "$bad"

# Without --strict the same bodies are answered as before.
lg_start_mock --quiet
check_eq "without --strict an OpenAI body to Gemini is answered" 200 "$(post $GEN "$OPENAI_BODY")"
check_eq "without --strict a system role to Anthropic is answered" 200 \
    "$(post $MSG '{"model":"claude-x","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}')"
lg_done
