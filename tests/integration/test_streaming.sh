#!/usr/bin/env bash
# Streams under the preload: the mock replays multi-byte streams of each dialect cut into chunks of 1..7
# bytes; the host (curl, and a libcurl client that checks every chunk) receives whole UTF-8 characters
# (or whole events) and exactly the bytes the provider sent. A stream that opens with an error is retried
# invisibly; an error after content passes through and still marks the account.
source "$(dirname "$0")/../lib.sh"
F=$LG_ROOT/tests/fixtures/streams
/usr/bin/python3 - "$F" >"$LG_TMP/scenario.json" <<'PY'
import json, sys
f = sys.argv[1]
keys = {}
for d in ["openai", "anthropic", "gemini", "dashscope"]:
    for n in range(1, 8):
        keys["sk-%s-%d" % (d, n)] = {"sequence": [{"fixture": "%s/%s_multibyte.json" % (f, d), "chunk": n, "chunk_delay_ms": 1}], "repeat": True}
keys["sk-err-start"] = {"sequence": [{"fixture": f + "/anthropic_error_at_start.json"},
                                     {"fixture": f + "/anthropic_multibyte.json", "chunk": 5, "chunk_delay_ms": 1}]}
keys["sk-err-mid"] = {"sequence": [{"fixture": f + "/openai_error_midstream.json", "chunk": 9, "chunk_delay_ms": 1}], "repeat": True}
print(json.dumps({"keys": keys}))
PY
lg_start_mock --scenario "$LG_TMP/scenario.json"
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL"}, "anthropic": {"upstream": "$MOCK_URL"},
               "gemini": {"upstream": "$MOCK_URL"}, "dashscope": {"upstream": "$MOCK_URL"}},
 "backoff": {"single_account_base_ms": 50}}
JSON
cat >"$LG_TMP/config-event.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "stream": {"boundary": "event"}},
               "anthropic": {"upstream": "$MOCK_URL", "stream": {"boundary": "event"}}}}
JSON
chmod 600 "$LG_TMP"/config*.json
export LLMGATE_CONFIG=$LG_TMP/config.json
declare -A URL=(
  [openai]=http://api.openai.com/v1/chat/completions
  [anthropic]=http://api.anthropic.com/v1/messages
  [gemini]="http://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
  [dashscope]=http://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation)
declare -A AUTH=([openai]=Authorization:\ Bearer [anthropic]=x-api-key: [gemini]=x-goog-api-key: [dashscope]=Authorization:\ Bearer)
expected() { /usr/bin/python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/$1'))['body'])"; }

# dialect D: its seven chunk sizes, by the C client and by curl at the same time (a case beside the others:
# keys of its own)
dialect() {
    local d=$1 bad=0 diff=0 split=0 n key status chunks bad_utf8 c
    expected "${d}_multibyte.json" >"$LG_TMP/$d.expected"
    for n in 1 2 3 4 5 6 7; do
        key=sk-$d-$n
        LD_PRELOAD=$LG_LIB curl -s -H "${AUTH[$d]} $key" "${URL[$d]}" -d '{"stream":true}' >"$LG_TMP/curl.out" &
        c=$!
        LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/stream_client" -H "${AUTH[$d]} $key" "${URL[$d]}" \
            >"$LG_TMP/out" 2>"$LG_TMP/err"
        wait "$c"
        read -r status chunks bad_utf8 _ <<<"$(sed 's/[a-z_0-9]*=//g' "$LG_TMP/err")"
        [ "$status" = 200 ] && [ "$bad_utf8" = 0 ] || bad=$((bad + 1))
        cmp -s "$LG_TMP/out" "$LG_TMP/$d.expected" || diff=$((diff + 1))
        [ "$chunks" -gt 1 ] && split=$((split + 1))
        cmp -s "$LG_TMP/curl.out" "$LG_TMP/$d.expected" || diff=$((diff + 1))
    done
    check_eq "$d: every chunk whole UTF-8, for chunk sizes 1..7" 0 "$bad"
    check_eq "$d: the host received exactly the provider's bytes (C client and curl)" 0 "$diff"
    check "$d: the stream really arrived in pieces" test "$split" -ge 5
}

# whole events only
events() {
    local bad=0 diff=0 n
    expected anthropic_multibyte.json >"$LG_TMP/anthropic.expected"
    for n in 1 3 7; do
        LLMGATE_CONFIG=$CONFIG_EVENT LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/stream_client" --event \
            -H "x-api-key: sk-anthropic-$n" "${URL[anthropic]}" >"$LG_TMP/out" 2>"$LG_TMP/err"
        grep -q 'bad_utf8=0 bad_event=0' "$LG_TMP/err" || bad=$((bad + 1))
        cmp -s "$LG_TMP/out" "$LG_TMP/anthropic.expected" || diff=$((diff + 1))
    done
    check_eq "event boundary: every chunk ends after a whole event" 0 "$bad"
    check_eq "event boundary: identical total" 0 "$diff"
}

# The streams are mostly waiting (a chunk every 1 ms): the dialects and the event case run side by side.
CONFIG_EVENT=$LG_TMP/config-event.json
for d in openai anthropic gemini dashscope; do lg_branch dialect "$d"; done
lg_branch events
lg_join
expected anthropic_multibyte.json >"$LG_TMP/anthropic.expected"

# an error at the start of a stream is retried invisibly
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/stream_client" -H "x-api-key: sk-err-start" "${URL[anthropic]}" \
    >"$LG_TMP/out" 2>"$LG_TMP/err"
check "error at start: the host got the healthy stream only" cmp -s "$LG_TMP/out" "$LG_TMP/anthropic.expected"
check_match "error at start: status 200" '^status=200 ' "$(cat "$LG_TMP/err")"
check_eq "error at start: the provider saw two requests" 2 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"

# an error after content passes through as the provider sent it, and the account learns of it
expected openai_error_midstream.json >"$LG_TMP/mid.expected"
LD_PRELOAD=$LG_LIB curl -s -H "Authorization: Bearer sk-err-mid" "${URL[openai]}" -d '{"stream":true}' >"$LG_TMP/out"
check "mid-stream error: passed through byte for byte" cmp -s "$LG_TMP/out" "$LG_TMP/mid.expected"
failures=$("$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["host"]["failures"]')
check_eq "mid-stream error: the account's failure is recorded" 1 "$failures"
# usage of a streamed call lands in the shared window, replacing the admission estimate
cat >"$LG_TMP/config-usage.json" <<JSON
{"providers": {"anthropic": {"upstream": "$MOCK_URL", "limits": {"rpm": 100, "tpm": 100000, "window_ms": 60000}}}}
JSON
chmod 600 "$LG_TMP/config-usage.json"
rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
LLMGATE_CONFIG=$LG_TMP/config-usage.json LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/stream_client" \
    -H "x-api-key: sk-anthropic-3" -d '{"stream":true,"max_tokens":4000,"messages":[]}' "${URL[anthropic]}" >/dev/null 2>&1
used=$(LLMGATE_CONFIG=$LG_TMP/config-usage.json "$LG_CLI" status --json |
       lg_json 'str(j["providers"]["anthropic"]["accounts"]["host"]["tokensUsed"]) + " " + str(j["providers"]["anthropic"]["accounts"]["host"]["requestsUsed"])')
check_eq "streamed usage (20 prompt + 41 completion) replaced the estimate in status" "61 1" "$used"
lg_done
