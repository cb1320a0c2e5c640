#!/usr/bin/env bash
# Issue 37, item 5: a libcurl write callback that pauses (CURL_WRITEFUNC_PAUSE) is honoured in
# curl_easy_perform and in a multi handle: the rest of the answer is delivered once the program unpauses
# (curl_easy_pause(CURLPAUSE_CONT) from its progress callback), for a held answer and for a stream (easy), as
# libcurl does it without llmgate.
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
# run held|stream|multi [preload]: the client's first line; its body into $LG_TMP/body.
run() {
    local out
    if [ "${2:-}" = preload ]; then out=$(LD_PRELOAD=$LG_LIB timeout 20 "$CLIENT" "$URL" "$CT" "$1" 2>"$LG_TMP/err")
    else out=$(timeout 20 "$CLIENT" "$URL" "$CT" "$1" 2>"$LG_TMP/err"); fi
    tail -n +2 <<<"$out" >"$LG_TMP/body"
    head -n1 <<<"$out"
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
lg_done
