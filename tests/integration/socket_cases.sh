# Shared by test_socket_http.sh and test_socket_tls.sh (sourced after lib.sh, with SCHEME=http or https):
# Python hosts that speak HTTP/1.1 themselves under the preload (no libcurl): socket (request in several
# writes, response read byte by byte, plain and chunked request bodies, Expect: 100-continue, a host that
# half-closes), http.client and urllib (several
# requests), requests (one Session, keep-alive) and httpx. The first account's key is dead, the second
# live: each client gets the success and the mock never sees the host's key. Again with a provider that
# closes the connection after each 429 and with chunked answers. Without a config, the same clients
# talking to a local server that is no provider see and send exactly what they do without the preload.
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
 "sk-dead":    {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
 "sk-close":   {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after": "20"},
                              "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}], "repeat": true},
 "sk-chunked": {"sequence": [{"status": 200, "stream": true, "body": {"id": "chunked-1", "object": "chat.completion",
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": "你好"}, "finish_reason": "stop"}],
                              "mock_key": "sk-chunked"}}], "repeat": true},
 "sk-host":    {"sequence": [{"status": 200, "body": {"fixed": "你好, 世界"}}], "repeat": true},
 "sk-stale":   {"sequence": [{}, {"reset": true}, {}]},
 "sk-dry":     {"sequence": [{"error": "quota"}], "repeat": true},
 "sk-e200":    {"sequence": [{"error_in_200": true}], "repeat": true},
 "sk-in200":   {"sequence": [{"status": 200, "body": {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                              "type": "insufficient_quota", "code": "insufficient_quota"}}}], "repeat": true}
}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem REQUESTS_CA_BUNDLE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
CLIENT=$LG_ROOT/tests/clients/py/http_clients.py
URL=$SCHEME://api.openai.com/v1/chat/completions
SERVER=$MOCK_URL   # the mock as a server that is no provider
[ "$SCHEME" = https ] && SERVER=https://127.0.0.1:$MOCK_TLS_PORT
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$SERVER", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]},
               "gemini": {"upstream": "$SERVER", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/config.json"
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }

# gated_case LABEL K1 K2 BODY-REGEX CLIENT N: N requests through CLIENT with keys K1 (dead) and K2 (live)
gated_case() {
    local label=$1 k1=$2 k2=$3 want=$4 client=$5 n=$6 out rc keys
    fresh
    out=$(K1=$k1 K2=$k2 LG_TIMEOUT=${LG_TIMEOUT:-} timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- $PY "$CLIENT" "$client" "$URL" "$n" 2>"$LG_TMP/err")
    rc=$?
    keys=$(reqkeys)
    check_eq "$label $client: exits 0" 0 "$rc"
    check_eq "$label $client: $n responses, all 200" "$n" "$(grep -c "^200 .*$want" <<<"$out")"
    check_match "$label $client: the dead key first, then the live one" "^$k1 $k2( $k2)*\$" "$keys"
    check "$label $client: the mock never saw the host's key" test "${keys/sk-host/}" == "$keys"
    [ "$rc" = 0 ] || diag "$(head -c 600 "$LG_TMP/err")"
}
CLIENTS=(raw rawchunked rawexpect rawselect http.client urllib requests httpx)
[ "$SCHEME" = http ] && CLIENTS+=(rawhalfclose)   # Python's SSLSocket drops TLS on shutdown(SHUT_WR)
for c in "${CLIENTS[@]}"; do
    n=1; [[ $c == raw* ]] || n=3
    gated_case "$SCHEME rotation:" sk-dead sk-good '"mock_key":"sk-good"' "$c" "$n"
    gated_case "$SCHEME close after 429:" sk-close sk-good '"mock_key":"sk-good"' "$c" "$n"
    gated_case "$SCHEME chunked answer:" sk-dead sk-chunked '"id":"chunked-1"' "$c" "$n"
done
# compressed answers: requests, httpx and aiohttp ask for gzip, which providers (and the mock) honour. The
# request goes out without Accept-Encoding, so the quota error in the first key's 200 is read (compressed,
# it would reach the host as a success) and the live key answers
reqenc() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["headers"].get("accept-encoding", "-") for r in j)'; }
for c in requests httpx; do
    gated_case "$SCHEME compressible, quota in a 200:" sk-in200 sk-good '"mock_key":"sk-good"' "$c" 2
    check_eq "$SCHEME compressible $c: no Accept-Encoding reached the provider" "- - -" "$(reqenc)"
done
fresh
out=$(K1=sk-in200 K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- $PY "$LG_ROOT/tests/clients/py/async_clients.py" aiohttp "$URL" 2 2>"$LG_TMP/err")
check_eq "$SCHEME compressible asyncio aiohttp: 2 answers 200 from the live key" 2 "$(grep -c '^200 .*"mock_key":"sk-good"' <<<"$out")"
check_match "$SCHEME compressible asyncio aiohttp: no Accept-Encoding reached the provider" '^-( -)+$' "$(reqenc)"

# two providers behind one address (an upstream serving both APIs, as LiteLLM does): each request is gated
# as the provider its Host names, with its own accounts: a requests Session alternating them (a connection
# each), and over http one kept-alive connection carrying both, once both names are known to resolve there
# (over https its SNI decides). A provider that does not share the address (mistral: its own hosts) named
# on that connection is released untouched: its key never goes there
cat >"$LG_TMP/shared.json" <<JSON
{"providers": {"openai": {"upstream": "$SERVER", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]},
               "anthropic": {"upstream": "$SERVER", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]},
               "mistral": {"accounts": [{"name": "own", "key": "env:KM"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/shared.json"
TWO_PROVIDERS='
import http.client, json, socket, sys, requests
sch, how = sys.argv[1], sys.argv[2]
OPENAI = ("api.openai.com", "/v1/chat/completions", {"Authorization": "Bearer sk-host"}, {"model": "gpt-4o-mini", "messages": []})
ANTHROPIC = ("api.anthropic.com", "/v1/messages", {"x-api-key": "sk-host", "anthropic-version": "2023-06-01"},
             {"model": "claude-3-5-haiku-latest", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]})
MISTRAL = ("api.mistral.ai", "/v1/chat/completions", {"Authorization": "Bearer sk-host"}, {"model": "mistral-small", "messages": []})
if how == "session":
    s = requests.Session()
    for host, path, hdrs, body in [OPENAI, ANTHROPIC, OPENAI, ANTHROPIC]:
        r = s.post(sch + "://" + host + path, data=json.dumps(body), headers=hdrs, timeout=20)
        print(r.status_code, r.json().get("mock_key"))
else:
    socket.getaddrinfo("api.anthropic.com", 80)  # a client that pools connections by address has both names
    c, first = http.client.HTTPConnection("api.openai.com", timeout=20), None
    for host, path, hdrs, body in [OPENAI, ANTHROPIC, OPENAI, MISTRAL]:
        c.request("POST", path, json.dumps(body), dict(hdrs, Host=host))
        r = c.getresponse()
        print(r.status, json.loads(r.read()).get("mock_key", "-"))  # none in the answer to the host key
        first = first or c.sock
    print("same connection" if c.sock is first else "reconnected")
'
hostkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["host"] + ":" + r["key"] for r in j)'; }
fresh
out=$(K1=sk-dead K2=sk-good KM=sk-mistral timeout 60 "$LG_CLI" run --config "$LG_TMP/shared.json" -- $PY -c "$TWO_PROVIDERS" $SCHEME session 2>"$LG_TMP/err")
check_eq "$SCHEME one address, two providers, a Session alternating them: 4 answers from the live key" \
    "200 sk-good|200 sk-good|200 sk-good|200 sk-good" "$(paste -sd'|' <<<"$out")"
check_eq "$SCHEME one address, two providers, a Session: each provider's own rotation, never the host's key" \
    "api.openai.com:sk-dead api.openai.com:sk-good api.anthropic.com:sk-dead api.anthropic.com:sk-good api.openai.com:sk-good api.anthropic.com:sk-good" \
    "$(hostkeys)"
[ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"
if [ "$SCHEME" = http ]; then
    fresh
    out=$(K1=sk-dead K2=sk-good KM=sk-mistral timeout 60 "$LG_CLI" run --config "$LG_TMP/shared.json" -- $PY -c "$TWO_PROVIDERS" $SCHEME connection 2>"$LG_TMP/err")
    check_eq "http one address, two providers on one connection: openai, anthropic, openai gated, mistral's request untouched" \
        "200 sk-good|200 sk-good|200 sk-good|200 -|same connection" "$(paste -sd'|' <<<"$out")"
    check_eq "http one address, two providers on one connection: each its own keys, mistral's never sent" \
        "api.openai.com:sk-dead api.openai.com:sk-good api.anthropic.com:sk-dead api.anthropic.com:sk-good api.openai.com:sk-good api.mistral.ai:sk-host" \
        "$(hostkeys)"
    [ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"
fi

# an error inside a 200 event stream on every attempt: the host's final 429 has a JSON error body in the
# provider's format with the provider's message, not the stream's events (an SDK parses it)
cat >"$LG_TMP/e200.json" <<JSON
{"providers": {"openai": {"upstream": "$SERVER", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "retry": {"max_rate_limit_wait_seconds": 0.3}}
JSON
chmod 600 "$LG_TMP/e200.json"
fresh
out=$(K1=sk-e200 timeout 60 "$LG_CLI" run --config "$LG_TMP/e200.json" -- $PY -c '
import json, requests, sys
r = requests.post(sys.argv[1], data=json.dumps({"model": "m", "stream": True, "messages": []}), headers={"Authorization": "Bearer sk-host"}, timeout=30)
print(r.status_code, r.headers["Content-Type"], r.json()["error"]["code"], r.json()["error"]["message"])' "$URL" 2>"$LG_TMP/err")
check_eq "$SCHEME error in a 200 stream, normalized: a JSON error body with the provider's message" \
    "429 application/json rate_limit_exceeded Rate limit reached for requests. Please try again in 1s." "$out"
[ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"

# HTTP pipelining (a second request written before the first answer is read, here in one send): the
# connection is released, and the host still reads the answer llmgate holds for the first request before
# the second one's, in order (it was lost before)
fresh
out=$(K1=sk-good K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- $PY -c '
import json, socket, ssl, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
s = socket.create_connection((u.hostname, u.port or (443 if u.scheme == "https" else 80)), timeout=20)
if u.scheme == "https":
    s = ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname)
def req(i, last):
    b = json.dumps({"model": "m-%d" % i, "messages": []}).encode()
    return (("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-pipe\r\nContent-Length: %d\r\n%s\r\n"
             % (u.path, u.hostname, len(b), "Connection: close\r\n" if last else "")).encode() + b)
s.sendall(req(1, False) + req(2, True))
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
while data:
    head, _, rest = data.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    print(head.split(b" ")[1].decode(), json.loads(rest[:n])["model"])
    data = rest[n:]' "$URL" 2>"$LG_TMP/err")
check_eq "$SCHEME pipelining: both answers, in order" "200 m-1|200 m-2" "$(paste -sd'|' <<<"$out")"
[ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"

# the same clients with a timeout set (LG_TIMEOUT): CPython's socket is non-blocking and polled before
# each send and receive; the account switch's wait (switch_delay_ms) is an EAGAIN and a poll that reports
# the descriptor readable when the answer is there
for c in "${CLIENTS[@]}"; do
    n=1; [[ $c == raw* ]] || n=3
    LG_TIMEOUT=20 gated_case "$SCHEME with a timeout, rotation:" sk-dead sk-good '"mock_key":"sk-good"' "$c" "$n"
    LG_TIMEOUT=20 gated_case "$SCHEME with a timeout, close after 429:" sk-close sk-good '"mock_key":"sk-good"' "$c" "$n"
done

# a kept-alive connection that the provider closes after reading the second request: sent again at once
# over a new connection, as a stale connection, not as a server error (max_server_retries 0 would give up)
fresh
cat >"$LG_TMP/stale.json" <<JSON
{"providers": {"openai": {"upstream": "$SERVER", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "retry": {"max_server_retries": 0}}
JSON
chmod 600 "$LG_TMP/stale.json"
out=$(K1=sk-stale timeout 60 "$LG_CLI" run --config "$LG_TMP/stale.json" -- $PY "$CLIENT" http.client "$URL" 2 2>"$LG_TMP/err")
check_eq "$SCHEME stale keep-alive connection: both requests answered 200" "200 200" "$(cut -c1-3 <<<"$out" | paste -sd' ')"
check_eq "$SCHEME stale keep-alive connection: the second request sent again" "sk-stale sk-stale sk-stale" "$(reqkeys)"

# a key in the query (?key=, Gemini) is replaced there
fresh
out=$(K1=sk-dead K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- $PY -c '
import sys, urllib.request
r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], b"{\"contents\":[]}", {"Content-Type": "application/json"}))
print(r.status, r.read().decode())' "$SCHEME://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=sk-host")
check_match "$SCHEME ?key=: 200 from the live key" '^200 .*"mock_key": ?"sk-good"' "$(tr -d '\n' <<<"$out")"
check_eq "$SCHEME ?key=: the keys went in the query, never the host's" "key=sk-dead key=sk-good" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["query"] for r in j)')"

# reroutes: a primary whose only key is dry (quota) falls back to "backup", another upstream of the mock
# (another host name, a path prefix, another auth style, a models map) over llmgate's own connection
BACKUP=http://localhost:$MOCK_PORT/bk
[ "$SCHEME" = https ] && BACKUP=https://localhost:$MOCK_TLS_PORT/bk
BACKUP_HOST=${BACKUP#*://}; BACKUP_HOST=${BACKUP_HOST%%/*}
cat >"$LG_TMP/reroute.json" <<JSON
{"providers": {"openai": {"upstream": "$SERVER", "accounts": [{"name": "main", "key": "env:K1"}], "fallback": ["backup"]},
               "backup": {"dialect": "openai", "upstream": "$BACKUP", "auth": "x-api-key",
                          "accounts": [{"name": "spare", "key": "env:KB"}], "models": {"gpt-4o-*": "gpt-4o-mini-2024-07-18"}}},
 "retry": {"max_rate_limit_wait_seconds": 5}}
JSON
chmod 600 "$LG_TMP/reroute.json"
MAPPED_SHA=$($PY -c 'import json,hashlib; print(hashlib.sha256(json.dumps({"model": "gpt-4o-mini-2024-07-18", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}).encode()).hexdigest())')
reqlog() { curl -s "$MOCK_URL/__requests"; }
for c in raw rawselect http.client urllib requests httpx; do
    for t in "" 20; do
        n=1; [[ $c == raw* ]] || n=2
        fresh
        out=$(K1=sk-dry KB=sk-backup LG_TIMEOUT=$t timeout 60 "$LG_CLI" run --config "$LG_TMP/reroute.json" -- $PY "$CLIENT" "$c" "$URL" "$n" 2>"$LG_TMP/err")
        rc=$?
        label="$SCHEME fallback $c${t:+ (timeout)}"
        check_eq "$label: exits 0" 0 "$rc"
        check_eq "$label: $n answers 200 from the backup, with the mapped model" "$n" \
            "$(grep -c '^200 .*"model": *"gpt-4o-mini-2024-07-18".*"mock_key": *"sk-backup"' <<<"$out")"
        check_match "$label: the dry key, then the backup's" '^sk-dry sk-backup( sk-backup)?$' "$(reqkeys)"
        check_eq "$label: the backup's requests on its host, prefix and auth style, with the mapped body" \
            "$BACKUP_HOST /bk/v1/chat/completions x-api-key $MAPPED_SHA" \
            "$(reqlog | lg_json '" ".join(sorted(set(" ".join([r["host"], r["path"], r["auth_header_name"], r["body_sha256"]]) for r in j if r["key"] == "sk-backup")))')"
        check_eq "$label: the primary's request as before (its host, its path, bearer)" \
            "api.openai.com /v1/chat/completions authorization" \
            "$(reqlog | lg_json '" ".join([j[0]["host"], j[0]["path"], j[0]["auth_header_name"]])')"
        [ "$rc" = 0 ] || diag "$(head -c 600 "$LG_TMP/err")"
    done
done
# PHP's own stream wrapper (file_get_contents; over https PHP's OpenSSL stream, whose verify callback reads
# the stream from the SSL's application data and would crash on a new connection of ours without it):
# rotation over a new connection after a 429 that closes it, and a fallback to the backup's host
PHPC=$LG_ROOT/tests/clients/php/stream_client.php
for k1 in sk-dead sk-close; do
    fresh
    out=$(K1=$k1 K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- php "$PHPC" "$URL" 2 2>"$LG_TMP/err")
    check_eq "$SCHEME PHP stream ($k1 first): exits 0" 0 "$?"
    check_eq "$SCHEME PHP stream ($k1 first): 2 answers 200 from the live key" 2 "$(grep -c '^200 .*"mock_key":"sk-good"' <<<"$out")"
    check_match "$SCHEME PHP stream ($k1 first): $k1, then the live key" "^$k1 sk-good sk-good\$" "$(reqkeys)"
done
fresh
out=$(K1=sk-dry KB=sk-backup timeout 60 "$LG_CLI" run --config "$LG_TMP/reroute.json" -- php "$PHPC" "$URL" 1 2>"$LG_TMP/err")
check_match "$SCHEME PHP stream fallback: 200 from the backup" '^200 .*"mock_key":"sk-backup"' "$out"
check_eq "$SCHEME PHP stream fallback: the dry key, then the backup's on its host" "sk-dry sk-backup $BACKUP_HOST" \
    "$(reqlog | lg_json '" ".join([r["key"] for r in j] + [j[-1]["host"]])')"
# event-loop hosts (asyncio; over https its memory-BIO TLS): 2 requests at once, both served by the backup
for c in streams aiohttp; do
    fresh
    out=$(K1=sk-dry KB=sk-backup timeout 60 "$LG_CLI" run --config "$LG_TMP/reroute.json" -- $PY "$LG_ROOT/tests/clients/py/async_clients.py" "$c" "$URL" 2 2>"$LG_TMP/err")
    check_eq "$SCHEME fallback asyncio $c: 2 answers 200 from the backup" 2 \
        "$(grep -c '^200 .*"model": *"gpt-4o-mini-2024-07-18".*"mock_key": *"sk-backup"' <<<"$out")"
    check_eq "$SCHEME fallback asyncio $c: the backup got 2 requests, never the host's key" "2 0" \
        "$(reqlog | lg_json 'str(sum(r["key"] == "sk-backup" for r in j)) + " " + str(sum(r["key"] == "sk-host" for r in j))')"
    [ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"
done
# pins on one kept-alive connection (http.client): the header, then the model suffix, send the request
# only to "backup" (no fallback, header never forwarded, suffix stripped and the map applied); the next
# request without a pin goes to the primary again, on the host's same connection
fresh
pinned=$(K1=sk-good KB=sk-backup timeout 60 "$LG_CLI" run --config "$LG_TMP/reroute.json" -- $PY -c '
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
c = C(u.hostname, u.port, timeout=20)
def post(model, pin=None):
    h = {"Authorization": "Bearer sk-host", "Content-Type": "application/json"}
    if pin:
        h["X-Llmgate-Pin"] = pin
    c.request("POST", u.path, json.dumps({"model": model, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}), h)
    r = c.getresponse()
    print(r.status, json.loads(r.read())["model"])
post("gpt-4o-mini", "backup")
first = c.sock
post("gpt-4o-mini")
post("gpt-4o-mini:backup")
post("gpt-4o-mini")
print("same connection" if c.sock is first else "reconnected")' "$URL" 2>"$LG_TMP/err")
check_eq "$SCHEME pins: backup, primary, backup, primary as the host sees them" \
    "200 gpt-4o-mini-2024-07-18|200 gpt-4o-mini|200 gpt-4o-mini-2024-07-18|200 gpt-4o-mini|same connection" "$(paste -sd'|' <<<"$pinned")"
check_eq "$SCHEME pins: the mock saw the backup's key, the primary's, the backup's, the primary's" \
    "sk-backup sk-good sk-backup sk-good" "$(reqkeys)"
check_eq "$SCHEME pins: the pin header never reached the mock" "False" \
    "$(reqlog | lg_json "any('x-llmgate-pin' in r['headers'] for r in j)")"
check_eq "$SCHEME pins: each request where it belongs" "$BACKUP_HOST api.openai.com $BACKUP_HOST api.openai.com" \
    "$(reqlog | lg_json '" ".join(r["host"] for r in j)')"
[ -n "$pinned" ] || diag "$(head -c 600 "$LG_TMP/err")"

# the provider's header lines reach the host as they came, in their order (its framing aside: one
# Content-Length last), over two requests on one kept-alive connection
fresh
heads=$(K1=sk-good K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- $PY -c '
import http.client, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
c = C(u.hostname, u.port, timeout=20)
for _ in range(2):
    c.request("POST", u.path, "{\"model\": \"gpt-4o-mini\", \"messages\": []}", {"Authorization": "Bearer sk-host"})
    r = c.getresponse()
    body = r.read()
    print(" ".join(k for k, v in r.getheaders()), r.getheader("x-mock-key"), r.getheader("x-mock-host"),
          r.getheader("Content-Type"), r.getheader("Content-Length") == str(len(body)))' "$URL" 2>"$LG_TMP/err")
# (the mock states its rate limits, as OpenAI does, in x-ratelimit-* headers after Content-Type)
RL="x-ratelimit-limit-requests x-ratelimit-remaining-requests x-ratelimit-reset-requests x-ratelimit-limit-tokens x-ratelimit-remaining-tokens x-ratelimit-reset-tokens"
check_eq "$SCHEME the provider's headers as they came, twice on one connection" \
    "Date Content-Type $RL x-mock-key x-mock-host x-request-id x-mock-body-sha256 Content-Length sk-good api.openai.com application/json; charset=utf-8 True|Date Content-Type $RL x-mock-key x-mock-host x-request-id x-mock-body-sha256 Content-Length sk-good api.openai.com application/json; charset=utf-8 True" \
    "$(paste -sd'|' <<<"$heads")"
[ -n "$heads" ] || diag "$(head -c 600 "$LG_TMP/err")"

# no config, a server that is no provider: byte for byte what the clients see and send without llmgate
# (blocking, and with a timeout)
for c in "${CLIENTS[@]}" "${CLIENTS[@]/%/ 20}"; do
    read -r c LG_TIMEOUT <<<"$c"
    export LG_TIMEOUT
    [ -n "$LG_TIMEOUT" ] && c="$c (timeout)"
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    plain=$(timeout 30 $PY "$CLIENT" "${c% (timeout)}" "$SERVER/v1/chat/completions" 2 2>&1)
    sent_plain=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps([r["headers"] for r in j]) + " " + " ".join(r["body_sha256"] for r in j)')
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    pre=$(LD_PRELOAD=$LG_LIB timeout 30 $PY "$CLIENT" "${c% (timeout)}" "$SERVER/v1/chat/completions" 2 2>&1)
    sent_pre=$(curl -s "$MOCK_URL/__requests" | lg_json 'json.dumps([r["headers"] for r in j]) + " " + " ".join(r["body_sha256"] for r in j)')
    check_match "$SCHEME non-provider $c: answered" '^200 \{"fixed":"你好, 世界"\}' "$plain"
    check_eq "$SCHEME non-provider $c: the host sees the same bytes" "$plain" "$pre"
    check_eq "$SCHEME non-provider $c: the server receives the same requests" "$sent_plain" "$sent_pre"
done
unset LG_TIMEOUT
