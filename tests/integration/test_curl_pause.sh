#!/usr/bin/env bash
# Issue 37, item 5: a libcurl write callback that pauses (CURL_WRITEFUNC_PAUSE) is honoured in
# curl_easy_perform and in a multi handle: the rest of the answer is delivered once the program unpauses
# (curl_easy_pause(CURLPAUSE_CONT) from its progress callback), for a held answer and for a stream (easy), as
# libcurl does it without llmgate; and a pause during an event stream in a multi handle (unpaused from the
# program's multi loop): the program gets the provider's stream byte for byte.
source "$(dirname "$0")/../lib.sh"
lg_start_mock --quiet
export KEY=sk-pause
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:KEY"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
CLIENT=$LG_BUILD/clients/pause_client
URL=http://api.openai.com/v1/chat/completions
CT="api.openai.com:80:127.0.0.1:$MOCK_PORT"
# run held|stream|multi|multistream [preload]: the client's first line; its body (byte for byte) into
# $LG_TMP/body.
run() {
    if [ "${2:-}" = preload ]; then LD_PRELOAD=$LG_LIB timeout 20 "$CLIENT" "$URL" "$CT" "$1" >"$LG_TMP/out" 2>"$LG_TMP/err"
    else timeout 20 "$CLIENT" "$URL" "$CT" "$1" >"$LG_TMP/out" 2>"$LG_TMP/err"; fi
    tail -n +2 "$LG_TMP/out" >"$LG_TMP/body"
    head -n1 "$LG_TMP/out"
}
PAUSED='^rc=0 status=200 bytes=[1-9][0-9]* pauses=([1-9][0-9]*) unpauses=\1$'
# held_checks WHAT MODE: the client in MODE under the preload gets the whole held answer, every pause unpaused.
held_checks() {
    check_match "$1: rc 0, 200, every pause unpaused" "$PAUSED" "$(run "$2" preload)"
    check "$1: the whole answer, after the pause" /usr/bin/python3 -c '
import json, sys; json.load(open(sys.argv[1]))["choices"]' "$LG_TMP/body"
    check_eq "$1: nothing on stderr" "" "$(cat "$LG_TMP/err")"
}
check_match "without llmgate: libcurl honours the pause (held answer)" "$PAUSED" "$(run held)"
held_checks "held answer" held
check_match "stream: rc 0, 200, every pause unpaused" "$PAUSED" "$(run stream preload)"
check "stream: the whole event stream, [DONE] last" grep -q 'data: \[DONE\]' "$LG_TMP/body"
check_match "without llmgate: libcurl honours the pause in a multi handle" "$PAUSED" "$(run multi)"
held_checks "multi handle, held answer" multi
check_eq "the provider was sent each gated request once" 3 "$(lg_stats | lg_json "j['keys']['sk-pause']['requests']")"

# A stream in 37-byte pieces (UTF-8 characters cut), many write calls: the client pauses every other one.
/usr/bin/python3 - "$LG_TMP/stream.txt" "$LG_TMP/scenario.json" <<'PY'
import json, sys
events = ''.join('data: ' + json.dumps({"id": "c1", "object": "chat.completion.chunk", "choices": [
    {"index": 0, "delta": {"content": "ü日本 piece %d " % i}, "finish_reason": None}]}, ensure_ascii=False) + '\n\n'
    for i in range(40)) + 'data: [DONE]\n\n'
open(sys.argv[1], 'w', encoding='utf-8').write(events)
json.dump({"keys": {"*": {"sequence": [{"status": 200, "headers": {"content-type": "text/event-stream"},
    "body": events, "stream": True, "chunk": 37, "chunk_delay_ms": 3}], "repeat": True}}},
    open(sys.argv[2], 'w'), ensure_ascii=False)
PY
lg_start_mock --quiet --scenario "$LG_TMP/scenario.json"
sed -i "s|\"upstream\": \"[^\"]*\"|\"upstream\": \"$MOCK_URL\"|" "$LG_TMP/config.json"
CT="api.openai.com:80:127.0.0.1:$MOCK_PORT"
MANY='^rc=0 status=200 bytes=[0-9]+ pauses=([1-9][0-9]+) unpauses=\1$' # ten pauses or more
check_match "without llmgate: libcurl honours pauses during a stream in a multi handle" "$MANY" "$(run multistream)"
check "without llmgate: the stream byte for byte" cmp "$LG_TMP/stream.txt" "$LG_TMP/body"
check_match "multi handle, stream paused mid-way many times: rc 0, 200, every pause unpaused" "$MANY" \
    "$(run multistream preload)"
check "multi handle, paused stream: the provider's stream byte for byte" cmp "$LG_TMP/stream.txt" "$LG_TMP/body"
check_eq "multi handle, paused stream: nothing on stderr" "" "$(cat "$LG_TMP/err")"
check_eq "the paused stream was sent once" 1 "$(lg_stats | lg_json "j['keys']['sk-pause']['requests']")"
# The handle removed while its stream is paused, then performed again: nothing of the paused one is left.
REUSED='^rc=0 status=200 bytes=5964 pauses=1 unpauses=0$'
check_match "without llmgate: a handle removed while paused runs again" "$REUSED" "$(run multiremove)"
check_match "a handle removed while its stream was paused runs again with curl_easy_perform" "$REUSED" \
    "$(run multiremove preload)"
check "the handle run again: the provider's stream byte for byte" cmp "$LG_TMP/stream.txt" "$LG_TMP/body"
lg_done
