#!/usr/bin/env bash
# The relay's gateway mode (llmgate relay --listen ADDR:PORT): plain HTTP to http://ADDR:PORT/PROVIDER/...,
# gated on the relay's engine. With gateway tokens configured a client without one is refused (401, in the
# provider's error format); with one, the account's key reaches the provider (the mock) and the token
# never does, a 429 is retried invisibly on the next account; a preloaded curl talking to the gateway is
# not gated a second time; on loopback without tokens only the user who runs it is admitted (another
# user's client gets a 403, the peer's uid read from the kernel's TCP table); check-config validates the
# gateway section.
source "$(dirname "$0")/../lib.sh"
/usr/bin/python3 - "$LG_TMP/scenario.json" <<'PY'
import json, sys
json.dump({"keys": {"sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": True}}},
          open(sys.argv[1], "w"))
PY
lg_start_mock --scenario "$LG_TMP/scenario.json"
TOKEN=gw-token-4f1c2a9e7d3b
SHA=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "http://127.0.0.1:$MOCK_PORT", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "gateway": {"tokens": [{"name": "ci", "sha256": "$SHA"}]},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/config.json"
PORT=$(lg_free_port)
K1=sk-dead K2=sk-live "$LG_CLI" relay --config "$LG_TMP/config.json" --listen "127.0.0.1:$PORT" >"$LG_TMP/gw.out" 2>&1 &
GW=$!
for i in $(seq 1 100); do grep -q "gateway on" "$LG_TMP/gw.out" 2>/dev/null && break; sleep 0.05; done
check_match "the gateway says where it listens" "^llmgate relay: gateway on 127\.0\.0\.1:$PORT " "$(cat "$LG_TMP/gw.out")"
URL=http://127.0.0.1:$PORT/openai/v1/chat/completions
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }

out=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer sk-client-own" -H 'Content-Type: application/json' -d "$BODY" "$URL")
check_eq "a client without a gateway token: 401" 401 "$(tail -n1 <<<"$out")"
check_match "... in the provider's error format" '"error": *\{.*"message": *"llmgate gateway: a gateway token is required' "$(head -n -1 <<<"$out")"
check_eq "... and nothing reached the provider" "" "$(reqkeys)"
out=$(curl -s -w '\n%{http_code}' -H 'Content-Type: application/json' -d "$BODY" "$URL")
check_eq "a client with no key at all: 401" 401 "$(tail -n1 <<<"$out")"

out=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$BODY" "$URL" "$URL")
check_eq "with the token: two requests on one connection, both 200" "2" "$(grep -c '"mock_key": *"sk-live"' <<<"$out")"
check_eq "the dead account's 429 retried invisibly, then the live account's key; the token never" "sk-dead sk-live sk-live" "$(reqkeys)"
curl -s "$MOCK_URL/__requests" >"$LG_TMP/requests.json"
check_no_key "the token is nowhere in what the provider received" "$TOKEN" "$LG_TMP/requests.json"
out=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/nosuch/v1/models")
check_eq "a provider the configuration does not have: 404" 404 "$(tail -n1 <<<"$out")"

# a preloaded program with the same configuration talking to the gateway: the gateway's address is no
# provider's, so the preload passes it by (one gating, the gateway's: the token still reaches it)
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(K1=sk-dead K2=sk-live LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB curl -s -w '\n%{http_code}' \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$BODY" "$URL")
check_eq "a preloaded curl through the gateway: 200" 200 "$(tail -n1 <<<"$out")"
check_match "... gated once (the dead account is still cooling: the live key at once)" '^sk-live$' "$(reqkeys)"

kill "$GW"; wait "$GW" 2>/dev/null

# on loopback without tokens: the user's own clients are admitted, another user's are not
grep -v '"gateway"' "$LG_TMP/config.json" >"$LG_TMP/notokens.json"; chmod 600 "$LG_TMP/notokens.json"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
K1=sk-dead K2=sk-live "$LG_CLI" relay --config "$LG_TMP/notokens.json" --listen "127.0.0.1:$PORT" >"$LG_TMP/gw2.out" 2>&1 &
GW=$!
for i in $(seq 1 200); do grep -q "gateway on" "$LG_TMP/gw2.out" 2>/dev/null && break; sleep 0.05; done
check_match "without tokens on loopback: it says only this user's clients are admitted" \
    "gateway on 127\.0\.0\.1:$PORT .*only local clients of this user are admitted" "$(cat "$LG_TMP/gw2.out")"
out=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer sk-client-own" -H 'Content-Type: application/json' -d "$BODY" "$URL")
check_eq "without tokens: the user's own client is admitted (200)" 200 "$(tail -n1 <<<"$out")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups curl -s -w '\n%{http_code}' \
        -H "Authorization: Bearer sk-client-own" -H 'Content-Type: application/json' -d "$BODY" "$URL")
    check_eq "without tokens: another user's client is refused (403)" 403 "$(tail -n1 <<<"$out")"
    check_match "... in the provider's error format, saying why" '"message": *"llmgate gateway: without gateway\.tokens only the user' "$(head -n -1 <<<"$out")"
    check_eq "... and nothing reached the provider" "" "$(reqkeys)"
else
    skip "not root or no setpriv: cannot run a client as another user" 3
fi
kill "$GW"; wait "$GW" 2>/dev/null

# off loopback without tokens the gateway does not start; check-config validates the section
out=$(K1=a K2=b timeout 5 "$LG_CLI" relay --config "$LG_TMP/notokens.json" --listen "0.0.0.0:$PORT" 2>&1)
check_match "off loopback without gateway tokens: refused" "needs gateway\.tokens" "$out"
K1=a K2=b "$LG_CLI" check-config "$LG_TMP/config.json" >/dev/null 2>&1
check_eq "check-config: the gateway section is valid" 0 "$?"
sed "s/\"sha256\": \"$SHA\"/\"sha256\": \"$TOKEN\"/" "$LG_TMP/config.json" >"$LG_TMP/bad.json"; chmod 600 "$LG_TMP/bad.json"
out=$(K1=a K2=b "$LG_CLI" check-config "$LG_TMP/bad.json" 2>&1)
check_match "check-config: a token where its digest belongs is refused" 'gateway\.tokens\[0\]\.sha256: expected 64 hexadecimal digits' "$out"
check_no_key "... and the message does not show it" "$TOKEN" <(printf %s "$out")
lg_done
