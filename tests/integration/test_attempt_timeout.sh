#!/usr/bin/env bash
# Issue 37, item 4: llmgate's own attempt timeouts. A provider account that accepts and never answers
# (retry.attempt_timeout_ms), or stops in the middle of a held answer (retry.idle_timeout_ms), is abandoned
# and the request retried at once on the next account: a program without a timeout of its own gets the
# second account's answer; so does a socket program: Python's http.client without a timeout of its own (a
# blocking socket, its attempts waited inside its calls) and with one (a non-blocking socket polled by
# CPython: the attempt driven from its readiness waits). check-config shows both fields and their defaults.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-hung": {"sequence": [{"delay_ms": 60000}], "repeat": true},
          "sk-stall": {"sequence": [{"chunk": 8, "chunk_delay_ms": 4000}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_HUNG=sk-hung KEY_STALL=sk-stall KEY_GOOD=sk-good
# config NAME FIRST-KEY-VAR: the first account on FIRST-KEY-VAR, the second on KEY_GOOD.
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "first", "key": "env:$2"}, {"name": "second", "key": "env:KEY_GOOD"}]}},
 "retry": {"attempt_timeout_ms": 800, "idle_timeout_ms": 800}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
config hung KEY_HUNG
config stall KEY_STALL
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('requests', 0)"; }
# req CONFIG: one gated curl without a timeout of its own (the test's own limit: 30 s); prints "EXIT CODE".
req() {
    local code rc
    code=$(LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB timeout 30 curl -s -o "$LG_TMP/out" -w '%{http_code}' \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -H 'Authorization: Bearer sk-host' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}' \
        2>"$LG_TMP/err")
    rc=$?
    echo "$rc $code"
}

start=$(now_ms)
check_eq "hung first account: the program gets a 200" "0 200" "$(req hung)"
ms=$(( $(now_ms) - start ))
check "hung first account: the answer is the provider's" grep -q '"choices"' "$LG_TMP/out"
check_eq "hung first account: each account was sent the request once" "1 1" "$(stat_of sk-hung) $(stat_of sk-good)"
check "hung first account: served within seconds, not the minute the hung one would take (${ms} ms)" test "$ms" -lt 15000

check_eq "stalled answer: the program gets a 200" "0 200" "$(req stall)"
check "stalled answer: the whole answer is the second account's" /usr/bin/python3 -c '
import json, sys; json.load(open(sys.argv[1]))["choices"]' "$LG_TMP/out"
check_eq "stalled answer: each account was sent the request once" "1 2" "$(stat_of sk-stall) $(stat_of sk-good)"

# The multi interface (curl -Z: two transfers in one multi handle): the hung attempt is abandoned there too.
B='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
one=(-s -o /dev/null -w '%{http_code} ' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT"
     http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$B")
hung_before=$(stat_of sk-hung)
check_eq "curl -Z (multi): both transfers get a 200" "200 200 " \
    "$(LLMGATE_CONFIG=$LG_TMP/hung.json LD_PRELOAD=$LG_LIB timeout 30 curl -Z "${one[@]}" --next "${one[@]}")"
check "curl -Z (multi): the hung account was tried" test "$(stat_of sk-hung)" -gt "$hung_before"

# Socket programs (http.client over a plain socket): the same, in the socket front end.
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
req_keys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
# py CONFIG TIMEOUT: one http.client request (TIMEOUT none: a blocking socket) under the preload; prints
# "STATUS ANSWERED" (ANSWERED: the body is a completion).
py() {
    LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB timeout 30 /usr/bin/python3 -c '
import http.client, json, sys
kw = {} if sys.argv[1] == "none" else {"timeout": float(sys.argv[1])}
c = http.client.HTTPConnection("api.openai.com", 80, **kw)
c.request("POST", "/v1/chat/completions", body=json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}),
          headers={"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
r = c.getresponse()
body = r.read()
print(r.status, "choices" in json.loads(body))' "$2" 2>"$LG_TMP/err"
}

for T in none 30; do
    what="http.client (timeout $T)"
    fresh
    start=$(now_ms)
    check_eq "$what, hung first account: a 200 with a completion" "200 True" "$(py hung $T)"
    ms=$(( $(now_ms) - start ))
    check_eq "$what, hung first account: each account sent the request once" "sk-hung sk-good" "$(req_keys)"
    check "$what, hung first account: within seconds, not the minute the hung one takes (${ms} ms)" test "$ms" -lt 15000
    [ -s "$LG_TMP/err" ] && diag "$(tail -c 600 "$LG_TMP/err")"

    fresh
    check_eq "$what, stalled answer: a 200 with a completion" "200 True" "$(py stall $T)"
    check_eq "$what, stalled answer: each account sent the request once" "sk-stall sk-good" "$(req_keys)"
done

out=$("$LG_CLI" check-config "$LG_TMP/hung.json")
check_match "check-config shows attempt_timeout_ms" '"attempt_timeout_ms": *800' "$out"
cat >"$LG_TMP/defaults.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "env:KEY_GOOD"}]}}}
JSON
chmod 600 "$LG_TMP/defaults.json"
out=$("$LG_CLI" check-config "$LG_TMP/defaults.json")
check_match "check-config: the defaults never cut a slow model short (10 and 5 minutes)" \
    '"attempt_timeout_ms": *600000.*"idle_timeout_ms": *300000' "$(tr -d '\n' <<<"$out")"
lg_done
