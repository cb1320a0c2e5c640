#!/usr/bin/env bash
# A host that follows redirects (curl -L) while one of our keys is in its request: a redirect to the same
# provider is followed with the key, one to any other host is followed without any key (as curl keeps
# credentials from other hosts), and a host that does not follow gets the redirect itself.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-same": {"sequence": [{"status": 307, "headers": {"location": "/v1/chat/completions?hop=1"}}]},
          "sk-away": {"sequence": [{"status": 307, "headers": {"location": "http://elsewhere.example/v1/chat/completions?hop=2"}}]},
          "sk-plain": {"sequence": [{"status": 307, "headers": {"location": "/v1/chat/completions?hop=3"}}]},
          "sk-own": {"sequence": [{"status": 307, "headers": {"location": "/v1/chat/completions?hop=4"}}]}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_SAME=sk-same KEY_AWAY=sk-away KEY_PLAIN=sk-plain
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" --connect-to "elsewhere.example:80:127.0.0.1:$MOCK_PORT")
reqlog() { curl -s "$MOCK_URL/__requests"; }
# run KEYVAR CURL-ARGS...: one request under the preload with a config whose only account is KEYVAR.
run() {
    local k=$1
    shift
    printf '{"providers": {"openai": {"accounts": [{"name": "only", "key": "env:%s"}]}}}\n' "$k" >"$LG_TMP/$k.json"
    chmod 600 "$LG_TMP/$k.json"
    LLMGATE_CONFIG=$LG_TMP/$k.json LD_PRELOAD=$LG_LIB curl -s "${CT[@]}" -H 'Authorization: Bearer sk-host' \
        -d "$BODY" -w '\n%{http_code}' "$@" http://api.openai.com/v1/chat/completions
}
seen() { reqlog | lg_json "' '.join(r['key'] + '@' + r['host'].split(':')[0] + (('?' + r['query']) if r['query'] else '') for r in j)"; }

out=$(run KEY_SAME -L)
check_eq "same provider: the host gets the answer after the redirect" 200 "$(tail -n1 <<<"$out")"
check_eq "same provider: both hops carry the account's key" \
    "sk-same@api.openai.com sk-same@api.openai.com?hop=1" "$(seen)"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(run KEY_AWAY -L)
check_eq "another host: the host gets the answer after the redirect" 200 "$(tail -n1 <<<"$out")"
check_eq "another host: followed without any key" "sk-away@api.openai.com @elsewhere.example?hop=2" "$(seen)"
check_eq "another host: no auth header at all reached it" "" "$(reqlog | lg_json "j[-1]['auth_header_name']")"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(run KEY_PLAIN)
check_eq "without -L: the host gets the redirect itself" 307 "$(tail -n1 <<<"$out")"
check_eq "without -L: nothing followed" "sk-plain@api.openai.com" "$(seen)"
# The host's own key (a provider without accounts): libcurl follows the redirect itself, as without llmgate
# (a second request after an answer is a hop, not a re-send).
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
echo '{"providers": {"openai": {}}}' >"$LG_TMP/own.json"
out=$(LLMGATE_CONFIG=$LG_TMP/own.json LD_PRELOAD=$LG_LIB curl -s "${CT[@]}" -H 'Authorization: Bearer sk-own' \
    -d "$BODY" -w '\n%{http_code}' -L http://api.openai.com/v1/chat/completions)
check_eq "host's own key: the host gets the answer after the redirect" 200 "$(tail -n1 <<<"$out")"
check_eq "host's own key: libcurl followed with it" "sk-own@api.openai.com sk-own@api.openai.com?hop=4" "$(seen)"
# The multi interface (curl -Z) follows the same way.
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(run KEY_SAME -L -Z)
check_eq "curl -Z, same provider: the host gets the answer after the redirect" 200 "$(tail -n1 <<<"$out")"
check_eq "curl -Z, same provider: both hops carry the account's key" \
    "sk-same@api.openai.com sk-same@api.openai.com?hop=1" "$(seen)"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(run KEY_AWAY -L -Z)
check_eq "curl -Z, another host: followed without any key" "sk-away@api.openai.com @elsewhere.example?hop=2" "$(seen)"
lg_done
