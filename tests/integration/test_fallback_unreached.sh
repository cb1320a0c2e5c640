#!/usr/bin/env bash
# A request whose fallbacks cannot be reached gets the answer of the provider it fell back from, not the
# fallback's connection failure: the primary's only key is out of quota (a 429 insufficient_quota), its
# fallback "spare" listens nowhere (a closed port). curl (libcurl) and Python's http.client (the socket
# front end) get the primary's 429 in OpenAI's format, with its message and a word that the fallback gave
# no answer, where curl used to exit "couldn't connect" and Python to see its connection reset. A
# fallback that answers with an error of its own still gives that answer (the last provider's).
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-busy": {"sequence": [{"error": "overloaded"}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
CLOSED=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
source "$(dirname "$0")/fallback_setup.sh"
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
export K1=sk-dry KS=sk-spare KB=sk-busy

fallback_config "http://127.0.0.1:$CLOSED" KS
fresh
code=$(LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -o "$LG_TMP/out" -w '%{http_code}' \
    --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
    -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err")
check_eq "curl, fallback at a closed port: exits 0 with the primary's 429" "0 429" "$? $code"
check_eq "curl: the body is the primary's quota error" "insufficient_quota" \
    "$(lg_json 'j["error"]["code"]' <"$LG_TMP/out")"
check "curl: the message says the fallback gave no answer" grep -q 'its fallback spare gave no answer' "$LG_TMP/out"
check_eq "curl: only the dry key was sent anything" "sk-dry" "$(reqkeys)"

fresh
out=$(LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 /usr/bin/python3 -c '
import http.client, json, sys
c = http.client.HTTPConnection("api.openai.com", timeout=60)
c.request("POST", "/v1/chat/completions", sys.argv[1], {"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
r = c.getresponse()
print(r.status, json.loads(r.read())["error"]["code"], r.getheader("Retry-After") is not None)' "$BODY" 2>"$LG_TMP/err")
check_eq "http.client, fallback at a closed port: the primary's 429 insufficient_quota" "429 insufficient_quota" \
    "${out% *}"
check_eq "http.client: only the dry key was sent anything" "sk-dry" "$(reqkeys)"

# A fallback that answers (an overload of its own): its answer is the host's, as before.
fallback_config "$MOCK_URL" KB
fresh
code=$(LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -o "$LG_TMP/out" -w '%{http_code}' \
    --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
    -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err")
check "curl, fallback answering an overload: its own error, not the primary's ($code)" \
    bash -c "! grep -q insufficient_quota '$LG_TMP/out' && test '$code' -ge 500"
check_eq "curl: the dry key, then the busy one" "sk-dry sk-busy" "$(reqkeys | tr ' ' '\n' | awk '!s[$0]++' | tr '\n' ' ' | sed 's/ $//')"
lg_done
