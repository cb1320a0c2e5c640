#!/usr/bin/env bash
# HTTPS through the OpenSSL hooks (Python's ssl module, openssl s_client): the cases of socket_cases.sh
# over https, the provider named by SNI and reached at the upstream, whose certificate the host verifies
# against the name it asked for; an event stream over TLS read in small pieces arrives in whole UTF-8
# characters and byte for byte; openssl s_client piping a request.
source "$(dirname "$0")/../lib.sh"
SCHEME=https
source "$(dirname "$0")/socket_cases.sh"

# openssl s_client piping a request (SSL_write/SSL_read with select, SNI from -servername)
BODY_JSON='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
fresh
req=$(printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "${#BODY_JSON}" "$BODY_JSON")
out=$( (printf '%s' "$req"; sleep 3) | K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB \
      timeout 20 openssl s_client -quiet -connect api.openai.com:443 -servername api.openai.com -CAfile "$SSL_CERT_FILE" -verify_return_error 2>"$LG_TMP/sc.err")
check_match "openssl s_client: 200 from the live key" $'^HTTP/1\\.1 200.*"mock_key":"sk-good"' "$out"
keys=$(reqkeys)
check_eq "openssl s_client: dead key then live, never the host's" "sk-dead sk-good" "$keys"

# wget over https (GnuTLS): the provider by the server name wget set; a 429 that closes the connection is
# retried over a new session with wget's own credentials
for k1 in sk-dead sk-close; do
    fresh
    out=$(K1=$k1 K2=sk-good LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 30 wget -q -O - \
          --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' --header 'Content-Type: application/json' \
          --post-data "$BODY_JSON" "$URL" 2>"$LG_TMP/wget.err")
    check_eq "wget ($k1 first): exits 0" 0 "$?"
    check_match "wget ($k1 first): the live key's answer" '"mock_key":"sk-good"' "$out"
    check_eq "wget ($k1 first): $k1 then the live key, never the host's" "$k1 sk-good" "$(reqkeys)"
done
# a kept-alive connection idle on llmgate's own session (the provider closed the host's after its 429): the
# host's socket is neither readable (poll, epoll) nor at its end (a non-blocking read wants to read), as the
# session the host's reads go to says; it was, from the host's closed socket, and Ruby's Net::HTTP spun
# reading it (test_ruby_host.sh)
fresh
out=$(K1=sk-close K2=sk-good LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 30 $PY -c '
import http.client, json, select, ssl
c = http.client.HTTPSConnection("api.openai.com", timeout=20)
body, hdrs = json.dumps({"model": "gpt-4o-mini", "messages": []}), {"Authorization": "Bearer sk-host"}
def ask():
    c.request("POST", "/v1/chat/completions", body, hdrs)
    r = c.getresponse()
    return "%d %s" % (r.status, json.loads(r.read())["mock_key"])
print(ask())
s = c.sock
print("readable" if select.select([s], [], [], 0)[0] else "idle")
ep = select.epoll()
ep.register(s.fileno(), select.EPOLLIN)
print("epoll", "readable" if ep.poll(0) else "idle")
s.setblocking(False)
try:
    print("read", s.recv(1))
except ssl.SSLWantReadError:
    print("wants to read")
s.settimeout(20)
print(ask(), "same socket" if c.sock is s else "another socket")' 2>"$LG_TMP/err")
check_eq "idle on llmgate's own session after a 429 that closed the host's: not readable, not at its end, reused" \
    "200 sk-good|idle|epoll idle|wants to read|200 sk-good same socket" "$(paste -sd'|' <<<"$out")"
check_eq "idle on llmgate's own session: sk-close, then the live key twice" "sk-close sk-good sk-good" "$(reqkeys)"
[ -n "$out" ] || diag "$(head -c 600 "$LG_TMP/err")"

# wget pinned to the backup (socket_cases.sh's reroute.json): a new GnuTLS session of wget's credentials to
# the backup's upstream, verified for its name
fresh
out=$(K1=sk-good KB=sk-backup LLMGATE_CONFIG=$LG_TMP/reroute.json LD_PRELOAD=$LG_LIB timeout 30 wget -q -O - \
      --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' --header 'X-Llmgate-Pin: backup' \
      --header 'Content-Type: application/json' --post-data "$BODY_JSON" "$URL" 2>"$LG_TMP/wget.err")
check_match "wget pinned: the backup's answer" '"mock_key":"sk-backup"' "$out"
check_eq "wget pinned: only the backup, on its host, without the pin header" "sk-backup $BACKUP_HOST False" \
    "$(reqlog | lg_json '" ".join([r["key"] + " " + r["host"] + " " + str("x-llmgate-pin" in r["headers"]) for r in j])')"
fresh
plain=$(timeout 30 wget -q -O - --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' --post-data '{}' "$SERVER/v1/chat/completions")
pre=$(LD_PRELOAD=$LG_LIB timeout 30 wget -q -O - --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' --post-data '{}' "$SERVER/v1/chat/completions")
check_match "wget non-provider: answered" '"fixed"' "$plain"
check_eq "wget non-provider, no config: the same answer" "$plain" "$pre"

# an event stream, sent by the provider in pieces of 1..3 bytes, read by the host 64 bytes at a time
F=$LG_ROOT/tests/fixtures/streams
/usr/bin/python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/openai_multibyte.json'))['body'])" >"$LG_TMP/sse.expected"
for n in 1 2 3; do
    /usr/bin/python3 - "$LG_TMP/scenario.json" "$F/openai_multibyte.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["keys"]["sk-sse"] = {"sequence": [{"fixture": sys.argv[2], "chunk": int(sys.argv[3]), "chunk_delay_ms": 1}], "repeat": True}
d = sys.argv[2].rsplit("/", 1)[0]
s["keys"]["sk-errstart"] = {"sequence": [{"fixture": d + "/anthropic_error_at_start.json"},
                                         {"fixture": d + "/anthropic_multibyte.json", "chunk": 5, "chunk_delay_ms": 1}]}
json.dump(s, open(sys.argv[1] + ".sse", "w"))
PY
    kill "$MOCK_PID"; wait "$MOCK_PID" 2>/dev/null
    lg_start_mock --scenario "$LG_TMP/scenario.json.sse" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
    cat >"$LG_TMP/sse.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50}}
JSON
    chmod 600 "$LG_TMP/sse.json"
    fresh
    K1=sk-dead K2=sk-sse LLMGATE_CONFIG=$LG_TMP/sse.json LD_PRELOAD=$LG_LIB timeout 30 $PY "$CLIENT" sse "$URL" >"$LG_TMP/sse.out"
    read -r stats <"$LG_TMP/sse.out"
    tail -n +2 "$LG_TMP/sse.out" >"$LG_TMP/sse.body"
    check_match "SSE over TLS, provider pieces of $n: 200, every read whole UTF-8" '^status=200 pieces=[0-9]+ bad_utf8=0$' "$stats"
    check "SSE over TLS, provider pieces of $n: the host got the provider's stream byte for byte" cmp -s "$LG_TMP/sse.body" "$LG_TMP/sse.expected"
    check_eq "SSE over TLS, provider pieces of $n: dead key then live" "sk-dead sk-sse" "$(reqkeys)"
done

# a stream that opens with an error event is stopped, and retried over a new connection, invisibly
cat >"$LG_TMP/errstart.json" <<JSON
{"providers": {"anthropic": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "backoff": {"single_account_base_ms": 50, "rate_limit_exceeded_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/errstart.json"
fresh
/usr/bin/python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/anthropic_multibyte.json'))['body'])" >"$LG_TMP/errstart.expected"
K1=sk-errstart LLMGATE_CONFIG=$LG_TMP/errstart.json LD_PRELOAD=$LG_LIB timeout 30 $PY "$CLIENT" sse https://api.anthropic.com/v1/messages >"$LG_TMP/errstart.out"
read -r stats <"$LG_TMP/errstart.out"
tail -n +2 "$LG_TMP/errstart.out" >"$LG_TMP/errstart.body"
check_match "stream opening with an error: the host sees a 200 stream" '^status=200 ' "$stats"
check "stream opening with an error: the host got only the retried stream" cmp -s "$LG_TMP/errstart.body" "$LG_TMP/errstart.expected"
check_eq "stream opening with an error: two attempts" "sk-errstart sk-errstart" "$(reqkeys)"

lg_done
