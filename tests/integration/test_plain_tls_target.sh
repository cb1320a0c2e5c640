#!/usr/bin/env bash
# A plain http host whose request goes to an https provider (a fallback, as from a local model server to a
# cloud provider): llmgate opens a TLS session of its own to the target, verified against the system's
# trust store (SSL_CERT_FILE here) for the target's name, where the attempt used to fail as fatal. Python's
# http.client over plain http, blocking and with a timeout of its own (a non-blocking socket; spare named
# localhost), asks api.openai.com, whose provider (the mock over http) has one key out of quota and the
# fallback "spare" at the mock's https port: the program gets spare's 200, twice on one kept-alive
# connection (aiohttp: six requests at once; Ruby's Net::HTTP, which has no libssl loaded; spare named by its
# address; and before nginx as a TLS front with OpenAI's rate-limit headers); spare saw its own key, nobody
# the program's. Without the trust (SSL_CERT_FILE naming no file) the session is refused before anything
# is sent: the program gets the primary's answer (its quota error, as a 429 in OpenAI's format) and spare is
# never sent anything.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-front": {"sequence": [{"status": 200, "body": {"id": "chatcmpl-front", "object": "chat.completion", "model": "gpt-4o-mini",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}},
                       "headers": {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499",
                                   "x-ratelimit-reset-requests": "120ms", "x-ratelimit-limit-tokens": "30000",
                                   "x-ratelimit-remaining-tokens": "29980", "x-ratelimit-reset-tokens": "40ms"}}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
PY=/usr/bin/python3
source "$(dirname "$0")/fallback_setup.sh"
# config HOST: spare at https://HOST (a name: verified for it and sent as SNI; an address: verified as one)
config() { fallback_config "https://$1:$MOCK_TLS_PORT" KS; }
config localhost
# ask TIMEOUT N: N requests of http.client (its own timeout in s; None: a blocking socket) on one plain
# connection to api.openai.com; prints "STATUS KEY" for each
ask() {
    K1=sk-dry KS=sk-spare LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 $PY -c '
import http.client, json, sys
c = http.client.HTTPConnection("api.openai.com", timeout=eval(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    c.request("POST", "/v1/chat/completions", json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}),
              {"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
    r = c.getresponse()
    body = r.read()
    try:
        j = json.loads(body)
        key = j.get("mock_key") or (j.get("error") or {}).get("code")
    except ValueError:
        key = None
    print(r.status, key)' "$1" "$2" 2>"$LG_TMP/err"
}

for tmo in None 60; do
    fresh
    out=$(SSL_CERT_FILE=$LG_TMP/certs/ca.pem ask "$tmo" 2 | tr '\n' ' ')
    check_eq "plain host (timeout $tmo): both requests get spare's 200 over https" "200 sk-spare 200 sk-spare " "$out"
    keys=$(reqkeys)
    check "plain host (timeout $tmo): spare was sent its own key, twice" test "$(grep -o sk-spare <<<"$keys" | wc -l)" = 2
    check "plain host (timeout $tmo): the dry key was tried first" test "${keys%% *}" = sk-dry
    check "plain host (timeout $tmo): nobody saw the program's key" bash -c "! grep -q sk-host <<<'$keys'"
    [ "$out" = "200 sk-spare 200 sk-spare " ] || diag "$(tail -c 800 "$LG_TMP/err")"
done

# aiohttp (asyncio, one session, six requests at once over plain http): each attempt at spare over a session
# of llmgate's own, driven from the event loop's waits; spare named by its address from here on.
config 127.0.0.1
fresh
out=$(SSL_CERT_FILE=$LG_TMP/certs/ca.pem K1=sk-dry KS=sk-spare LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB \
    timeout 60 $PY -c '
import asyncio, aiohttp
async def one(s, i):
    async with s.post("http://api.openai.com/v1/chat/completions", headers={"Authorization": "Bearer sk-host"},
                      json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi %d" % i}]}) as r:
        return "%d %s" % (r.status, (await r.json()).get("mock_key"))
async def main():
    async with aiohttp.ClientSession() as s:
        print(" ".join(await asyncio.gather(*[one(s, i) for i in range(6)])))
asyncio.run(main())' 2>"$LG_TMP/err")
check_eq "aiohttp, six at once: each gets spare's 200 over https" "$(printf '200 sk-spare %.0s' 1 2 3 4 5 6 | sed 's/ $//')" "$out"
keys=$(reqkeys)
check_eq "aiohttp: spare was sent its own key six times, nobody the program's" "6 0" \
    "$(grep -o sk-spare <<<"$keys" | wc -l) $(grep -o sk-host <<<"$keys" | wc -l)"

# Ruby's Net::HTTP over plain http: a program that has no libssl loaded (OpenSSL is only required for
# https), so llmgate loads the system's libssl itself for the session.
fresh
out=$(SSL_CERT_FILE=$LG_TMP/certs/ca.pem K1=sk-dry KS=sk-spare LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB \
    timeout 60 ruby -rnet/http -rjson -e '
abort "openssl loaded" unless $LOADED_FEATURES.grep(/openssl/).empty?
r = Net::HTTP.start("api.openai.com", 80) { |h|
  h.post("/v1/chat/completions", %q({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}),
         "Authorization" => "Bearer sk-host", "Content-Type" => "application/json") }
puts "#{r.code} #{JSON.parse(r.body)["mock_key"]}"' 2>"$LG_TMP/err")
check_eq "ruby Net::HTTP, no libssl of its own: spare's 200 over https" "200 sk-spare" "$out"
check_eq "ruby: the dry key, then spare's; never the program's" "sk-dry sk-spare" "$(reqkeys)"
[ "$out" = "200 sk-spare" ] || diag "$(tail -c 600 "$LG_TMP/err")"

# Before Debian's nginx as the provider's TLS front (TLS 1.3, h2 and http/1.1 by ALPN; llmgate offers
# http/1.1), answering with OpenAI's six rate-limit headers: http.client gets spare's 200 with them.
lg_start_nginx_front "127.0.0.1:$MOCK_PORT"
fallback_config "https://localhost:$NGINX_PORT" KF
fresh
: >"$NGINX_LOG"
out=$(SSL_CERT_FILE=$LG_TMP/certs/ca.pem K1=sk-dry KF=sk-front LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB \
    timeout 60 $PY -c '
import http.client, json
c = http.client.HTTPConnection("api.openai.com", timeout=60)
c.request("POST", "/v1/chat/completions", json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}),
          {"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
r = c.getresponse()
print(r.status, json.loads(r.read())["id"], r.getheader("x-ratelimit-remaining-tokens"))' 2>"$LG_TMP/err")
check_eq "nginx front: spare's 200 through it, its rate-limit headers to the program" "200 chatcmpl-front 29980" "$out"
check_eq "nginx front: one request over HTTP/1.1 on spare's key, never the program's" "HTTP/1.1 200 Bearer sk-front" \
    "$(cat "$NGINX_LOG")"
lg_stop_nginx_front
config 127.0.0.1

# Without the trust: the session is refused before anything is sent.
fresh
out=$(unset SSL_CERT_DIR; SSL_CERT_FILE=/nonexistent ask 60 1)
check_eq "untrusted https target: the program gets the primary's quota error" "429 insufficient_quota" \
    "$(sed -n 's/^\([0-9]*\) .*/\1/p' <<<"$out") $(grep -o insufficient_quota <<<"$out" | head -1)"
keys=$(reqkeys)
check_eq "untrusted https target: only the dry key was sent anything" "sk-dry" "$keys"
lg_done
