#!/usr/bin/env bash
# Cross-dialect fallback through the socket/TLS front end (issue 11 for Python hosts): an OpenAI host
# (urllib, requests; /usr/bin/python3) whose OpenAI key is dry is answered by the Anthropic endpoint of the
# mock (--strict: it rejects anything that is not a valid Anthropic request), over http and https: the
# request goes translated (its path, x-api-key, anthropic-version, never the host's key), the host gets
# OpenAI-format answers, whole and streamed (chunk events ending in data: [DONE]; requests, and aiohttp two
# at once), and an Anthropic error
# in OpenAI's error format; the host's next request on its kept-alive connection goes to OpenAI again.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-claude-down": {"sequence": [{"error": "overloaded"}], "repeat": true}}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --strict --scenario "$LG_TMP/scenario.json" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem REQUESTS_CA_BUNDLE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
TEXT='你好，世界 — ok'
reqlog() { curl -s "$MOCK_URL/__requests"; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }

# The host: written for OpenAI. host.py URL MODE: plain (urllib), stream (requests, read line by line as it
# comes), twice (http.client: two requests on one connection, the first with an X-Claude header).
cat >"$LG_TMP/host.py" <<'PY'
import http.client, json, sys, urllib.error, urllib.parse, urllib.request
url, mode = sys.argv[1], sys.argv[2]
H = {"Authorization": "Bearer sk-host-openai-1234", "Content-Type": "application/json"}
msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
if mode == "plain":
    try:
        r = urllib.request.urlopen(urllib.request.Request(url, json.dumps({"model": "gpt-4o-mini", "messages": msgs}).encode(), H))
        print(r.status, r.read().decode())
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode())
elif mode == "stream":
    import requests
    body = {"model": "gpt-4o", "stream": True, "stream_options": {"include_usage": True}, "max_tokens": 64, "messages": msgs}
    with requests.post(url, json=body, headers=H, stream=True, timeout=20) as r:
        print(r.status_code)
        for line in r.iter_lines():
            if line:
                print(line.decode())
else:
    u = urllib.parse.urlsplit(url)
    C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    c = C(u.hostname, u.port, timeout=20)
    for claude in (True, False):
        h = dict(H, **({"X-Claude": "1"} if claude else {}))
        c.request("POST", u.path, json.dumps({"model": "gpt-4o-mini", "messages": msgs}), h)
        r = c.getresponse()
        print(r.status, json.loads(r.read())["object"])
PY

for SCHEME in http https; do
    UP=$MOCK_URL; [ "$SCHEME" = https ] && UP=https://localhost:$MOCK_TLS_PORT
    for k in sk-claude sk-claude-down; do
        cat >"$LG_TMP/$k.$SCHEME.json" <<JSON
{"providers": {
   "openai": {"upstream": "$UP", "accounts": [{"name": "main", "key": "env:KEY_DRY"}], "fallback": ["anthropic"]},
   "anthropic": {"upstream": "$UP", "accounts": [{"name": "claude", "key": "env:KEY_CLAUDE"}],
                 "models": {"gpt-4o*": "claude-3-5-haiku-latest"}}},
 "routes": [{"match": {"header": "X-Claude"}, "to": "anthropic"}],
 "retry": {"max_rate_limit_wait_seconds": 5, "max_server_retries": 0}}
JSON
        chmod 600 "$LG_TMP/$k.$SCHEME.json"
    done
    URL=$SCHEME://api.openai.com/v1/chat/completions
    ask() { KEY_DRY=${KEY_DRY:-sk-dry} KEY_CLAUDE=$1 timeout 60 "$LG_CLI" run --config "$LG_TMP/$1.$SCHEME.json" -- $PY "$LG_TMP/host.py" "$URL" "$2" 2>"$LG_TMP/err"; }

    # 1. Not streamed.
    fresh
    out=$(ask sk-claude plain)
    body=${out#* }
    check_eq "$SCHEME plain: 200, an OpenAI chat.completion with the answer's text" "200 chat.completion $TEXT" \
        "${out%% *} $(lg_json 'j["object"] + " " + j["choices"][0]["message"]["content"]' <<<"$body")"
    check_eq "$SCHEME plain: finish reason and usage in OpenAI's names" "stop True" \
        "$(lg_json 'j["choices"][0]["finish_reason"] + " " + str(j["usage"]["total_tokens"] == j["usage"]["prompt_tokens"] + j["usage"]["completion_tokens"])' <<<"$body")"
    log=$(reqlog)
    check_eq "$SCHEME plain: the dry OpenAI key, then the Anthropic endpoint" "/v1/chat/completions sk-dry|/v1/messages sk-claude" \
        "$(lg_json '"|".join(r["path"] + " " + r["key"] for r in j)' <<<"$log")"
    check_eq "$SCHEME plain: a valid Anthropic request (x-api-key, anthropic-version, no Authorization)" \
        "x-api-key 2023-06-01 None" \
        "$(lg_json '" ".join(str(x) for x in (j[1]["auth_header_name"], j[1]["headers"].get("anthropic-version"), j[1]["headers"].get("authorization")))' <<<"$log")"
    check_eq "$SCHEME plain: the strict mock answered it as a success" 1 "$(lg_stats | lg_json 'j["keys"]["sk-claude"]["success"]')"
    check "$SCHEME plain: the host's key never reached the mock" test -z "$(grep -o 'sk-host-openai' <<<"$log")"
    [ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"

    # 2. Streamed: chat.completion.chunk events ending in data: [DONE], the usage chunk asked for.
    fresh
    ask sk-claude stream >"$LG_TMP/stream.out"
    check_eq "$SCHEME stream: 200" 200 "$(head -n1 "$LG_TMP/stream.out")"
    check_eq "$SCHEME stream: every event a chat.completion.chunk, then data: [DONE]" "chat.completion.chunk [DONE]" \
        "$(sed -n 's/^data: //p' "$LG_TMP/stream.out" | $PY -c '
import json, sys
lines = sys.stdin.read().splitlines()
print(" ".join(sorted({json.loads(l)["object"] for l in lines[:-1]})), lines[-1] if lines else "")')"
    check_eq "$SCHEME stream: the deltas carry the whole text, and a usage chunk" "$TEXT True" \
        "$(sed -n 's/^data: {/{/p' "$LG_TMP/stream.out" | $PY -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
print("".join((c.get("delta") or {}).get("content") or "" for e in ev for c in e["choices"]), any(e.get("usage") for e in ev))')"
    check_eq "$SCHEME stream: the dry OpenAI key, then the Anthropic endpoint" "/v1/chat/completions sk-dry|/v1/messages sk-claude" \
        "$(reqlog | lg_json '"|".join(r["path"] + " " + r["key"] for r in j)')"
    [ -s "$LG_TMP/stream.out" ] || diag "$(head -c 600 "$LG_TMP/err")"

    # 2b. Two streams at once from an asyncio host (aiohttp; over https its memory-BIO TLS): each one the
    #     OpenAI chunks of the translated Anthropic stream, nothing of Anthropic's events
    fresh
    out=$(KEY_DRY=sk-dry KEY_CLAUDE=sk-claude timeout 60 "$LG_CLI" run --config "$LG_TMP/sk-claude.$SCHEME.json" -- \
          $PY "$LG_ROOT/tests/clients/py/async_clients.py" aiohttp "$URL" 2 stream 2>"$LG_TMP/err")
    check_eq "$SCHEME asyncio streams: 2 answers 200 in OpenAI chunks ending in data: [DONE]" 2 \
        "$(grep '^200 .*chat\.completion\.chunk.*data: \[DONE\]' <<<"$out" | grep -vc 'message_start\|content_block')"
    check_eq "$SCHEME asyncio streams: both went to the Anthropic endpoint" 2 \
        "$(reqlog | lg_json 'sum(r["path"] == "/v1/messages" and r["key"] == "sk-claude" for r in j)')"
    [ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"

    # 3. An Anthropic error reaches the host in OpenAI's error format, its status kept.
    fresh
    out=$(ask sk-claude-down plain)
    check_eq "$SCHEME error: an OpenAI error object, no Anthropic envelope" "True" \
        "$(lg_json '"message" in j["error"] and "type" in j["error"] and j.get("type") != "error"' <<<"${out#* }")"
    check_match "$SCHEME error: a server error status" '^5[0-9][0-9] ' "$out"

    # 4. A routing rule sends a request with an X-Claude header to Anthropic (translated); the next one, on
    #    the same connection, gets OpenAI's own answer (its key is live here).
    fresh
    out=$(KEY_DRY=sk-live ask sk-claude twice)
    check_eq "$SCHEME kept-alive: translated, then OpenAI's own" "200 chat.completion|200 chat.completion" "$(paste -sd'|' <<<"$out")"
    check_eq "$SCHEME kept-alive: Anthropic, then OpenAI" "/v1/messages sk-claude|/v1/chat/completions sk-live" \
        "$(reqlog | lg_json '"|".join(r["path"] + " " + r["key"] for r in j)')"
done
lg_done
