#!/usr/bin/env bash
# A plain host rule (a chat webhook, an internal API): only hosts and limits. Its requests are paced to
# the limit across processes, never classified or rotated, and the host's bytes pass untouched.
source "$(dirname "$0")/../lib.sh"
# the receiver enforces no limit: it counts arrivals in any 900 ms (100 ms for the time between admission
# and arrival), so only llmgate can keep that count at 3
lg_start_mock --window-ms 900
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"webhook": {"hosts": ["hooks.example.invalid"], "limits": {"rpm": 3, "window_ms": 1000}}},
 "retry": {"max_rate_limit_wait_seconds": 10}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
CT=(--connect-to "hooks.example.invalid:80:127.0.0.1:$MOCK_PORT")
post() { LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}\n' "${CT[@]}" http://hooks.example.invalid/v1/chat/completions \
         -H 'Authorization: Bearer hook-token' -d '{"text":"deploy done"}'; }

start=$(date +%s%N)
codes=$(for i in 1 2 3 4 5 6 7 8 9; do post & done; wait)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "9 parallel posts all succeed" "200 200 200 200 200 200 200 200 200" "$(echo $codes)"
stats=$(lg_stats)
check_eq "the receiver got the 9 posts" 9 "$(lg_json 'j["keys"]["hook-token"]["requests"]' <<<"$stats")"
check_eq "never more than 3 sent in any window" 3 "$(lg_json 'j["keys"]["hook-token"]["max_arrived_in_window"]' <<<"$stats")"
check "pacing took at least two windows (${ms} ms)" test "$ms" -ge 2000
check_eq "the host's own token went out" "hook-token" "$(curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]')"

# beyond the maximum wait the request is refused locally with a 429, without contacting the receiver
cat >"$LG_TMP/tight.json" <<JSON
{"providers": {"webhook": {"hosts": ["hooks.example.invalid"], "limits": {"rpm": 1, "window_ms": 60000}}},
 "retry": {"max_rate_limit_wait_seconds": 1}}
JSON
chmod 600 "$LG_TMP/tight.json"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
rm -rf "$XDG_RUNTIME_DIR/llmgate"
first=$(LLMGATE_CONFIG=$LG_TMP/tight.json post)
out=$(LLMGATE_CONFIG=$LG_TMP/tight.json LD_PRELOAD=$LG_LIB curl -s -i "${CT[@]}" http://hooks.example.invalid/x -d '{}')
check_eq "tight limit: the first request goes" 200 "$first"
check_match "tight limit: the second is answered 429 locally" '^HTTP/1\.1 429' "$out"
check_match "tight limit: with Retry-After, the window's wait in seconds" $'\r\nRetry-After: (5[5-9]|6[0-3])\r\n' "$out"
check_eq "tight limit: the receiver saw one request" 1 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"
lg_done
