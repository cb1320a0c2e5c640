#!/usr/bin/env bash
# Issue 31, item 4: no silent bypass. A provider request llmgate lets go out as the program wrote it (the
# program's own key, no limiter, no retry) is said on stderr without LLMGATE_DEBUG, in one line naming the
# provider and the cause (no URL, no key), once per provider and cause across processes, and counted per
# provider as "ungated" by llmgate status (text, JSON, Prometheus). Cases: a body over hold.max_body_bytes,
# a pipelined request, HTTP/2 with prior knowledge and by ALPN (over OpenSSL). wget2's Fast Open is gated now (test_wget2).
source "$(dirname "$0")/../lib.sh"

lg_start_mock --quiet
# a TLS server that offers only h2 by ALPN (the shape of a provider's front to an HTTP/2 client), for anthropic
lg_gencerts || { not_ok "test certificates created"; exit 1; }
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
/usr/bin/python3 -c '
import socket, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
ctx.set_alpn_protocols(["h2"])
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[3] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[3] + ".tmp", sys.argv[3])
while True:
    c, _ = s.accept()
    try:
        t = ctx.wrap_socket(c, server_side=True)
        t.settimeout(5)
        t.recv(65536)
        t.close()
    except Exception:
        c.close()
' "$LG_TMP/certs/server.pem" "$LG_TMP/certs/server.key" "$LG_TMP/h2.port" 2>/dev/null &
LG_MOCK_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$LG_TMP/h2.port" ] && break; sleep 0.05; done
H2_PORT=$(cat "$LG_TMP/h2.port")
export K1=sk-acct-ungated
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:K1"}]},
               "anthropic": {"upstream": "https://127.0.0.1:$H2_PORT", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "hold": {"max_body_bytes": 65536}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
PY=/usr/bin/python3
CLIENT='
import json, socket, sys
how = sys.argv[1]
s = socket.create_connection(("api.openai.com", 80), timeout=20)
def req(model, pad, last):
    b = json.dumps({"model": model, "messages": [], "pad": "x" * pad}).encode()
    return (("POST /v1/chat/completions?key=sk-query-host HTTP/1.1\r\nHost: api.openai.com\r\n"
             "Authorization: Bearer sk-host-ungated\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
             % (len(b), "Connection: close\r\n" if last else "")).encode() + b)
if how == "large":
    s.sendall(req("m-large", 200000, True))
elif how == "pipelined":
    s.sendall(req("m-1", 0, False) + req("m-2", 0, True))
else:
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
data = b""
while True:
    try:
        d = s.recv(65536)
    except OSError:
        break
    if not d:
        break
    data += d
print(data.count(b"HTTP/1.1 200"))
'
# run HOW N: the client N times in a row, each its own process; stderr of run i in err.HOW.i
run() {
    local i
    for ((i = 1; i <= $2; i++)); do
        LD_PRELOAD=$LG_LIB timeout 30 $PY -c "$CLIENT" "$1" >"$LG_TMP/out.$1.$i" 2>"$LG_TMP/err.$1.$i"
    done
}
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
# check_line HOW CAUSE: run 1 printed exactly one line, the ungated line for openai and CAUSE, with no URL
# and no key; runs 2.. printed nothing
check_line() {
    local how=$1 cause=$2 f=$LG_TMP/err.$1.1 rest
    check_eq "$how: one line on stderr" 1 "$(wc -l <"$f")"
    check_match "$how: it names the provider and the cause" "^llmgate: openai: ungated \\($cause\\): .*program's own key" "$(cat "$f")"
    check_absent "$how: the line holds no URL" "$f" "://" "/v1" "api.openai.com" "127.0.0.1" "?key"
    check_no_key "$how: the line holds no key" "sk-host-ungated sk-query-host $K1" "$f"
    rest=$(cat "$LG_TMP"/err."$how".{2,3,4})
    check_eq "$how: three more processes in a row print nothing more (once across processes)" "" "$rest"
}

# a body over hold.max_body_bytes (with its head room): the request goes out as the host wrote it
run large 4
check_eq "large: the host got the provider's answer each time" "1 1 1 1" "$(cat "$LG_TMP"/out.large.{1,2,3,4} | tr '\n' ' ' | sed 's/ $//')"
check_eq "large: the mock got the program's own key, four times" "sk-host-ungated sk-host-ungated sk-host-ungated sk-host-ungated" "$(reqkeys)"
check_line large too-large

# a second request written before the first answer was read: the first is gated, the second goes out as is
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
run pipelined 4
check_eq "pipelined: both answers each time" "2 2 2 2" "$(cat "$LG_TMP"/out.pipelined.{1,2,3,4} | tr '\n' ' ' | sed 's/ $//')"
check_match "pipelined: the first request gated with the account's key, the second with the program's" \
    "^($K1 sk-host-ungated ?){4}\$" "$(reqkeys)"
check_line pipelined pipelined

# HTTP/2 with prior knowledge (no ALPN, no Upgrade): the preface goes out untouched
run h2 4
check_line h2 http2

# an HTTP/2 client over TLS (ALPN h2 chosen by the server): the connection passes through untouched; the
# cause is the same word for anthropic as for openai, but the line is per provider
H2_CLIENT='
import socket, ssl
ctx = ssl.create_default_context()
ctx.set_alpn_protocols(["h2", "http/1.1"])
s = ctx.wrap_socket(socket.create_connection(("api.anthropic.com", 443), timeout=20), server_hostname="api.anthropic.com")
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
try:
    s.recv(100)
except OSError:
    pass
'
for i in 1 2 3 4; do
    LD_PRELOAD=$LG_LIB timeout 30 $PY -c "$H2_CLIENT" >/dev/null 2>"$LG_TMP/err.alpn.$i"
done
f=$LG_TMP/err.alpn.1
check_eq "alpn h2: one line on stderr" 1 "$(wc -l <"$f")"
check_match "alpn h2: it names anthropic and http2" "^llmgate: anthropic: ungated \(http2\): .*program's own key" "$(cat "$f")"
check_absent "alpn h2: the line holds no URL" "$f" "://" "api.anthropic.com" "127.0.0.1"
check_eq "alpn h2: three more processes in a row print nothing more" "" "$(cat "$LG_TMP"/err.alpn.{2,3,4})"

n=12

# llmgate status: 4 + 4 + 4 ungated for openai
status=$("$LG_CLI" status 2>&1)
check_match "status text: openai's provider line counts $n ungated" $'PROVIDER .* UNGATED\n(.*\n)*openai .* '"$n"'( |$)' "$status"
json=$("$LG_CLI" status --json 2>&1)
check_eq "status --json: providers.openai.ungated is $n" "$n" "$(lg_json "j['providers']['openai']['ungated']" <<<"$json")"
prom=$("$LG_CLI" status --prometheus 2>&1)
check_match "status --prometheus: llmgate_ungated_total for openai is $n" 'llmgate_ungated_total\{provider="openai"\} '"$n" "$prom"
check_eq "status --json: providers.anthropic.ungated is 4 (its own count)" 4 "$(lg_json "j['providers']['anthropic']['ungated']" <<<"$json")"
check_match "status --prometheus: llmgate_ungated_total is a counter" '# TYPE llmgate_ungated_total counter' "$prom"

lg_done
