#!/usr/bin/env bash
# The host's connections as llmgate finds them, not as it left them. (1) A provider that closes a kept-alive
# connection after its 429 without saying so (Python's http.server does, when the request said
# "Connection: close"; so does any server's idle timeout): the retry with the next key finds the socket
# reset and opens a new connection to the same peer, over http and over TLS (whose reset socket no longer
# names its peer). (2) A provider connection closed without close() (close_range, as os.closerange does;
# fclose of an fdopen'ed socket): a new connection that gets the same number, to a server that speaks
# first, reads that server and nothing of ours. (3) A blocking host whose signal handler must run while
# llmgate waits out a cooldown or reads a slow answer (Python's alarm, Ctrl-C): the wait ends at the signal,
# the handler runs, and a handler that returns lets the request go on.
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
lg_gencerts || { not_ok "test certificates created"; exit 1; }
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
cat >"$LG_TMP/srv.py" <<'PY'
import os, ssl, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = self.headers.get("Authorization", "")[7:]
        with open(sys.argv[4], "a") as log:
            log.write(key + "\n")
        if key == "sk-dead":
            b = b'{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}'
            self.send_response(429); self.send_header("retry-after", "20")
            self.close_connection = True  # closes after the answer without a Connection: close header
        else:
            b = b'{"id":"x","object":"chat.completion","choices":[],"key":"%s"}' % key.encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b)))
        self.end_headers(); self.wfile.write(b)
class S(ThreadingHTTPServer):
    daemon_threads = True
plain, tls = S(("127.0.0.1", 0), H), S(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[2], sys.argv[3])
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
with open(sys.argv[1] + ".t", "w") as f:
    f.write("%d %d\n" % (plain.server_address[1], tls.server_address[1]))
os.rename(sys.argv[1] + ".t", sys.argv[1])
threading.Thread(target=tls.serve_forever, daemon=True).start()
plain.serve_forever()
PY
$PY "$LG_TMP/srv.py" "$LG_TMP/ports" "$LG_TMP/certs/server.pem" "$LG_TMP/certs/server.key" "$LG_TMP/keys.log" &
LG_MOCK_PIDS+=($!)
for _ in $(seq 100); do [ -s "$LG_TMP/ports" ] && break; sleep 0.05; done
read -r PORT TPORT <"$LG_TMP/ports"
cat >"$LG_TMP/client.py" <<'PY'
import http.client, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
c = C(u.hostname, timeout=20)
c.request("POST", u.path, '{"model":"gpt-4o-mini","messages":[]}',
          {"Authorization": "Bearer sk-host", "Content-Type": "application/json", "Connection": "close"})
r = c.getresponse()
print(r.status, r.read().decode())
PY
for scheme in http https; do
    up=http://127.0.0.1:$PORT; [ $scheme = https ] && up=https://127.0.0.1:$TPORT
    cat >"$LG_TMP/cfg.json" <<JSON
{"providers": {"openai": {"upstream": "$up", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}}
JSON
    chmod 600 "$LG_TMP/cfg.json"
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate" "$LG_TMP/keys.log"
    out=$(K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/cfg.json LD_PRELOAD=$LG_LIB timeout 60 $PY "$LG_TMP/client.py" \
          "$scheme://api.openai.com/v1/chat/completions" 2>"$LG_TMP/err")
    check_match "$scheme, provider closed after its 429 unannounced: 200 from the live key" '^200 .*"key":"sk-good"' "$out"
    check_eq "$scheme, provider closed after its 429 unannounced: the dead key, then the live one" "sk-dead sk-good" \
        "$(paste -sd' ' "$LG_TMP/keys.log")"
    [[ $out == 200* ]] || diag "$(tail -n 3 "$LG_TMP/err")"
done

lg_start_mock --quiet
printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "a", "key": "env:K1"}]}}}\n' "$MOCK_URL" >"$LG_TMP/cfg.json"
chmod 600 "$LG_TMP/cfg.json"
out=$(K1=sk-good LLMGATE_CONFIG=$LG_TMP/cfg.json LD_PRELOAD=$LG_LIB timeout 30 $PY - <<'PY' 2>&1
import os, socket, threading
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
def greeter():  # a server that speaks first
    while True:
        c, _ = l.accept(); c.sendall(b"220 hello\r\n"); c.close()
threading.Thread(target=greeter, daemon=True).start()
b = b'{"model":"gpt-4o-mini","messages":[]}'
s = socket.create_connection(("api.openai.com", 80))
s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer sk-host\r\n"
          b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(b), b))
resp = b""
while True:
    x = s.recv(65536)
    if not x:
        break
    resp += x
fd = s.detach()
os.closerange(fd, fd + 1)  # close_range(2): no close() call
t = socket.create_connection(l.getsockname())
t.settimeout(5)
print(resp.split(b"\r\n")[0].decode(), "| same fd:", t.fileno() == fd, "| greeting:", t.recv(100))
PY
)
check_match "a number closed by close_range, taken again by a server that speaks first: its greeting" \
    "^HTTP/1.1 200 .*same fd: True .*greeting: b'220 hello" "$out"
# (3) signals during a cooldown wait: one key, answered 429 with a 3 s wait first, then 200
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-once": {"sequence": [{"error": "rate_limit", "retry_after_ms": 3000}, {}]},
          "sk-slow": {"sequence": [{"delay_ms": 3000}], "repeat": true},
          "sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true}}}
JSON
lg_start_mock --quiet --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
cat >"$LG_TMP/alarm.py" <<'PY'
import http.client, os, signal, sys, time
raise_it = sys.argv[1] == "raise"
fired = []
def on_alarm(*a):
    fired.append(time.time() - t0)
    if raise_it:
        raise TimeoutError
signal.signal(signal.SIGALRM, on_alarm)
C = http.client.HTTPSConnection if sys.argv[2] == "https" else http.client.HTTPConnection
c = C("api.openai.com", timeout=None)
t0 = time.time()
signal.alarm(1)
try:
    c.request("POST", "/v1/chat/completions", '{"model":"gpt-4o-mini","messages":[]}', {"Authorization": "Bearer sk-host"})
    r = c.getresponse()
    print(r.status, "after %.1f" % (time.time() - t0), "handler at %.1f" % fired[0])
except TimeoutError:
    print("interrupted after %.1f" % (time.time() - t0))
PY
for case in "raise sk-dead http" "return sk-once http" "raise sk-dead https" "return sk-once https" \
            "raise sk-slow http" "return sk-slow http" "raise sk-slow https" "return sk-slow https"; do
    set -- $case
    up=$MOCK_URL; [ "$3" = https ] && up=https://127.0.0.1:$MOCK_TLS_PORT
    printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "a", "key": "env:K1"}]}}}\n' "$up" >"$LG_TMP/cfg.json"
    chmod 600 "$LG_TMP/cfg.json"
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    out=$(K1=$2 LLMGATE_CONFIG=$LG_TMP/cfg.json LD_PRELOAD=$LG_LIB timeout 60 $PY "$LG_TMP/alarm.py" "$1" "$3" 2>"$LG_TMP/err")
    what="a 20 s cooldown"; [ "$1" = return ] && what="a 3 s cooldown"; [ "$2" = sk-slow ] && what="a 3 s answer"
    if [ "$1" = raise ]; then
        check_match "$3, a signal during $what: the handler raises at once" '^interrupted after 1\.[0-9]$' "$out"
    else
        [[ $out == 200* ]] || diag "$(tail -n 5 "$LG_TMP/err")"
        check_match "$3, a signal during $what: the handler ran at once, the request went on to its 200" \
            '^200 after [3-5]\.[0-9] handler at 1\.[0-9]$' "$out"
    fi
done
lg_done
