#!/usr/bin/env bash
# AWS Bedrock's streaming answers (200, application/vnd.amazon.eventstream: binary frames with CRCs) under
# the preload: a ConverseStream that opens with a throttlingException frame is retried invisibly (the host
# gets the healthy stream only, byte for byte; the provider saw two requests; curl, python's http.client,
# a libcurl client under the ASan preload), and the usage of the metadata event is what `llmgate usage`
# counts, also at the end of a stream longer than the tail the relay keeps; a stream whose first content
# frame comes before an exception passes through as it came; one throttled on every attempt ends as a JSON
# 429. The provider is a small python server on 127.0.0.1.
source "$(dirname "$0")/../lib.sh"
PORT=$(lg_free_port)
cat >"$LG_TMP/server.py" <<'PY'
import http.server, json, struct, sys, zlib

def header(name, value):
    n, v = name.encode(), value.encode()
    return bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v

def frame(mtype, etype, payload):
    kind = ":exception-type" if mtype == "exception" else ":event-type"
    h = header(":message-type", mtype) + header(kind, etype) + header(":content-type", "application/json")
    p = json.dumps(payload).encode()
    prelude = struct.pack(">II", 16 + len(h) + len(p), len(h))
    head = prelude + struct.pack(">I", zlib.crc32(prelude))
    return head + h + p + struct.pack(">I", zlib.crc32(head + h + p))

HEALTHY = (frame("event", "messageStart", {"role": "assistant"}) +
           frame("event", "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hello there"}}) +
           frame("event", "messageStop", {"stopReason": "end_turn"}) +
           frame("event", "metadata", {"usage": {"inputTokens": 12, "outputTokens": 7, "totalTokens": 19},
                                       "metrics": {"latencyMs": 310}}))
THROTTLE = frame("exception", "throttlingException", {"message": "Too many requests, please wait before trying again."})
LONG = (frame("event", "messageStart", {"role": "assistant"}) +
        b"".join(frame("event", "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "%04d " % i + "x" * 1000}})
                 for i in range(300)) + HEALTHY[-len(frame("event", "metadata", {"usage": {"inputTokens": 12,
                 "outputTokens": 7, "totalTokens": 19}, "metrics": {"latencyMs": 310}})):])
LATE = (frame("event", "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}) +
        frame("exception", "modelStreamErrorException", {"message": "The model stream failed."}))
seen = {}

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        self.reply(json.dumps(seen).encode(), "application/json")
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        seen[self.path] = seen.get(self.path, 0) + 1
        if "dry" in self.path:
            body = THROTTLE
        elif "late" in self.path:
            body = LATE
        elif "long" in self.path:
            body = LONG
        else:
            body = THROTTLE if seen[self.path] == 1 else HEALTHY
        self.reply(body, "application/vnd.amazon.eventstream")
    def reply(self, body, ctype):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

if sys.argv[2] == "healthy":
    sys.stdout.buffer.write(HEALTHY)
elif sys.argv[2] == "long":
    sys.stdout.buffer.write(LONG)
elif sys.argv[2] == "late":
    sys.stdout.buffer.write(LATE)
else:
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
/usr/bin/python3 "$LG_TMP/server.py" "$PORT" serve &
LG_MOCK_PIDS+=($!)
for _ in $(seq 100); do curl -s "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done
/usr/bin/python3 "$LG_TMP/server.py" 0 healthy >"$LG_TMP/healthy.expected"
/usr/bin/python3 "$LG_TMP/server.py" 0 late >"$LG_TMP/late.expected"
/usr/bin/python3 "$LG_TMP/server.py" 0 long >"$LG_TMP/long.expected"
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"bedrock": {"hosts": ["bedrock-runtime.us-east-1.amazonaws.com"], "dialect": "openai",
                           "upstream": "http://127.0.0.1:$PORT"}},
 "backoff": {"single_account_base_ms": 50}, "retry": {"max_attempts": 3}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
URL=http://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1:0

LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -w '%{http_code} %{content_type}' -H "Authorization: Bearer sk-aws" \
    "$URL/converse-stream" -d '{"messages":[{"role":"user","content":[{"text":"hi"}]}]}' >"$LG_TMP/status"
check_eq "throttlingException first: the host got 200 and the event stream" "200 application/vnd.amazon.eventstream" \
    "$(cat "$LG_TMP/status")"
check "throttlingException first: the host got the healthy stream only, byte for byte" \
    cmp -s "$LG_TMP/out" "$LG_TMP/healthy.expected"
check_eq "throttlingException first: the provider saw two requests" 2 \
    "$(curl -s "http://127.0.0.1:$PORT/" | lg_json 'j.get("/model/anthropic.claude-3-5-haiku-20241022-v1:0/converse-stream", 0)')"
# bedrock_usage: the bedrock row's input and output tokens and estimated requests so far
bedrock_usage() {
    "$LG_CLI" usage --json --by provider |
        lg_json '" ".join(str(r[k]) for r in j["rows"] if r["provider"] == "bedrock" for k in ("input_tokens", "output_tokens", "estimated"))'
}
check_eq "the metadata event's usage is counted, not estimated" "12 7 0" "$(bedrock_usage)"

# the same over the socket hooks: python's http.client
LD_PRELOAD=$LG_LIB /usr/bin/python3 -c '
import http.client, sys
c = http.client.HTTPConnection("bedrock-runtime.us-east-1.amazonaws.com")
c.request("POST", "/model/anthropic.claude-3-5-haiku-20241022-v1:0/py/converse-stream", b"{}", {"Authorization": "Bearer sk-aws"})
r = c.getresponse()
sys.stdout.buffer.write(r.read())
print(r.status, file=sys.stderr)' >"$LG_TMP/out" 2>"$LG_TMP/err"
check "http.client, throttlingException first: 200 and the healthy stream only" \
    bash -c "grep -qx 200 '$LG_TMP/err' && cmp -s '$LG_TMP/out' '$LG_TMP/healthy.expected'"
check_eq "http.client, throttlingException first: the provider saw two requests" 2 \
    "$(curl -s "http://127.0.0.1:$PORT/" | lg_json 'j.get("/model/anthropic.claude-3-5-haiku-20241022-v1:0/py/converse-stream", 0)')"

# the same under the preload built with AddressSanitizer and UBSan (make asan), in a client built with them
ASAN_LIB=$LG_BUILD/asan/libllmgate.so
if [ -f "$ASAN_LIB" ]; then
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
        LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so) $ASAN_LIB" \
        "$LG_BUILD/clients/asan_stream_client" -H "Authorization: Bearer sk-aws" -d '{}' "$URL/asan/converse-stream" \
        >"$LG_TMP/out" 2>"$LG_TMP/err"
    check "ASan preload, throttlingException first: the healthy stream only, no sanitizer report" \
        bash -c "cmp -s '$LG_TMP/out' '$LG_TMP/healthy.expected' && ! grep -q 'Sanitizer\|runtime error' '$LG_TMP/err'"
else
    skip "no ASan preload library (make asan; test_asan_preload requires it)" 1
fi

# a stream longer than the tail the relay keeps (300 KiB): the tail is cut at a frame, so the usage at its end is read
read -r in0 out0 _ <<<"$(bedrock_usage)"
LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -H "Authorization: Bearer sk-aws" "$URL/long/converse-stream" -d '{}'
check "a long stream reaches the host byte for byte" cmp -s "$LG_TMP/out" "$LG_TMP/long.expected"
read -r in1 out1 est1 <<<"$(bedrock_usage)"
check_eq "a long stream's usage is read from the tail kept" "12 7 0" "$((in1 - in0)) $((out1 - out0)) $est1"

LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -H "Authorization: Bearer sk-aws" "$URL/late/converse-stream" -d '{}'
check "content before the exception: the stream passes through as the provider sent it" \
    cmp -s "$LG_TMP/out" "$LG_TMP/late.expected"
check_eq "content before the exception: one request" 1 \
    "$(curl -s "http://127.0.0.1:$PORT/" | lg_json 'j.get("/model/anthropic.claude-3-5-haiku-20241022-v1:0/late/converse-stream", 0)')"

# throttled on every attempt: the host gets a real 429 with a JSON error carrying Bedrock's message, not frames
LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -w '%{http_code} %{content_type}' -H "Authorization: Bearer sk-aws" \
    "$URL/dry/converse-stream" -d '{}' >"$LG_TMP/status"
check_eq "throttled on every attempt: 429, typed JSON" "429 application/json" "$(cat "$LG_TMP/status")"
check_match "throttled on every attempt: the body carries Bedrock's message" 'Too many requests, please wait' \
    "$(cat "$LG_TMP/out")"
check_eq "throttled on every attempt: max_attempts requests" 3 \
    "$(curl -s "http://127.0.0.1:$PORT/" | lg_json 'j.get("/model/anthropic.claude-3-5-haiku-20241022-v1:0/dry/converse-stream", 0)')"
lg_done
