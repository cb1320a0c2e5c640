#!/usr/bin/env bash
# The attempt watch counts an answer's head as progress: an account that sends a 200's head and then stalls
# its body is abandoned after retry.idle_timeout_ms (something came), not after attempt_timeout_ms (nothing
# came). A libcurl program that takes no headers (the bench client: llmgate's capture keeps no raw lines
# for it) is where the head went unseen: the watch then waited for the attempt timeout. Here the attempt
# timeout is 25 s and the idle one 0.8 s: served within seconds means the idle timeout ruled.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-head": {"sequence": [{"body_delay_ms": 60000}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_HEAD=sk-head KEY_GOOD=sk-good
cat >"$LG_TMP/head.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "first", "key": "env:KEY_HEAD"}, {"name": "second", "key": "env:KEY_GOOD"}]}},
 "retry": {"attempt_timeout_ms": 25000, "idle_timeout_ms": 800}}
JSON
chmod 600 "$LG_TMP/head.json"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('requests', 0)"; }
B='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'

# The mock's head-then-stall answer itself (no preload): the head comes, the body does not within 2 s.
out=$(curl -s -D "$LG_TMP/head" -o /dev/null --max-time 2 -H 'Authorization: Bearer sk-head' -d "$B" \
    "$MOCK_URL/v1/chat/completions"; echo "rc=$?")
check_eq "mock: the stalled answer times out a plain curl" "rc=28" "$out"
check "mock: its 200 head came before the stall" grep -q '^HTTP/1.1 200' "$LG_TMP/head"

curl -s -X POST "$MOCK_URL/__reset" >/dev/null
start=$(now_ms)
out=$(LLMGATE_CONFIG=$LG_TMP/head.json LD_PRELOAD=$LG_LIB timeout 60 "$LG_BUILD/clients/bench_client" -n 1 \
    -c "api.openai.com:80:127.0.0.1:$MOCK_PORT" -H 'Authorization: Bearer sk-host' -d "$B" \
    http://api.openai.com/v1/chat/completions 2>"$LG_TMP/err")
ms=$(( $(now_ms) - start ))
check_match "head then a stalled body: the program (no header callback) gets a 200" '^requests=1 failures=0 ' "$out"
check "head then a stalled body: abandoned on the idle timeout, not the 25 s attempt one (${ms} ms)" \
    test "$ms" -lt 15000
check_eq "head then a stalled body: each account was sent the request once" "1 1" "$(stat_of sk-head) $(stat_of sk-good)"
[ -s "$LG_TMP/err" ] && diag "$(tail -c 600 "$LG_TMP/err")"

# The same through the socket path (Python's http.client, a blocking socket).
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
start=$(now_ms)
out=$(LLMGATE_CONFIG=$LG_TMP/head.json LD_PRELOAD=$LG_LIB timeout 60 /usr/bin/python3 -c '
import http.client, json, sys
c = http.client.HTTPConnection("api.openai.com", 80)
c.request("POST", "/v1/chat/completions", body=sys.argv[1],
          headers={"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
r = c.getresponse()
print(r.status, "choices" in json.loads(r.read()))' "$B" 2>"$LG_TMP/err")
ms=$(( $(now_ms) - start ))
check_eq "http.client, head then a stalled body: a 200 with a completion" "200 True" "$out"
check "http.client, head then a stalled body: abandoned on the idle timeout (${ms} ms)" test "$ms" -lt 15000
lg_done
