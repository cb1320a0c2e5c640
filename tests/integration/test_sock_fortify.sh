#!/usr/bin/env bash
# A program built with _FORTIFY_SOURCE (Ubuntu's gcc default) calls glibc's __poll_chk, __ppoll_chk,
# __recv_chk, __recvfrom_chk and __read_chk where its source says poll, ppoll, recv, recvfrom and read: llmgate
# interposes those too (src/hook/sock/fortify.c). A C client built so (tests/clients/fortified_client.c)
# under the preload over plain http: the mock gets the account's key (a 429 retried), the program its
# answer through the fortified waits and reads; a server that is no provider's is read untouched.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-once": {"sequence": [{"error": "rate_limit", "retry_after_ms": 300}, {}]},
          "sk-host": {"sequence": [{"status": 200, "body": {"fixed": "the program's own"}}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
CLIENT=$LG_BUILD/clients/fortified_client
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "backoff": {"single_account_base_ms": 50}}\n' "$MOCK_URL" >"$LG_TMP/config.json"
chmod 600 "$LG_TMP/config.json"
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }

calls=$(nm -D "$CLIENT" | awk '/ U __(poll|ppoll|recv|recvfrom|read)_chk@/ {sub(/@.*/, "", $2); print $2}' | sort | paste -sd' ')
check_eq "the client calls the fortified forms" "__poll_chk __ppoll_chk __read_chk __recv_chk __recvfrom_chk" "$calls"

out=$(K1=sk-once LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 "$CLIENT" api.openai.com 80 \
      /v1/chat/completions sk-host "$BODY" 2>"$LG_TMP/err")
check_eq "provider: exits 0" 0 "$?"
check_match "provider: the program got the 200 after the 429, to the account's key" \
    $'^HTTP/1\\.1 200.*"mock_key":"sk-once"' "$out"
check_eq "provider: the account asked twice, never the program's key" "sk-once sk-once" "$(reqkeys)"
[ -s "$LG_TMP/err" ] && diag "$(head -c 400 "$LG_TMP/err")"

curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(K1=sk-once LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 "$CLIENT" 127.0.0.1 "$MOCK_PORT" \
      /v1/chat/completions sk-host "$BODY" 2>"$LG_TMP/err")
check_match "no provider: the server's own answer" '"fixed":"the program.s own"' "$out"
check_eq "no provider: the program's key went out as it was" "sk-host" "$(reqkeys)"
lg_done
