#!/usr/bin/python3
"""A provider emulation written apart from the project's mock (src/mock): Python's http.server
(ThreadingHTTPServer: a thread per connection, HTTP/1.1 keep-alive) with an ssl.SSLContext (TLS 1.3 only,
OpenSSL's defaults otherwise: two NewSessionTickets after each handshake), answering OpenAI's chat
completions the way OpenAI does: a chat.completion object, x-request-id and the x-ratelimit-* headers on
every answer (429s too), a 429 in OpenAI's error shape with retry-after.

Usage: emulation.py DIR [--fail-first N] [--delay-ms MS] [--hang KEY] [--stall KEY]
  serves https on one port (DIR/cert.pem, DIR/key.pem) and plain http on another; writes
  "port=P\\ntls_port=T\\n" to DIR/ports once both listen. Every answer takes MS ms (default 0) after the
  request is read. The first N POSTs (over both ports together) are answered 429; so are the next N after
  a POST /__fail whose body is N. A POST whose bearer token is the --hang KEY is read and never answered
  (an account that accepts and goes quiet); one with the --stall KEY gets a 200's head and the first 8
  bytes of its body, then nothing (an answer that stops midway); both hold the connection for 60 s.
  Each POST appends one JSON line to DIR/requests.log: {"key": the Authorization's bearer token's
  sha256 (first 16 hex), "start": and "end": (time.monotonic(), s; start when the request line was
  read, end once the answer was written; null for a hung or stalled one, logged when it goes quiet),
  "status" (null when none was sent), "path", "tls"}.
  GET /__count answers the number of POSTs so far."""
import hashlib, http.server, json, os, ssl, sys, threading, time

DIR = sys.argv[1]
ARGS = sys.argv[2:]
FAIL_FIRST = int(ARGS[ARGS.index("--fail-first") + 1]) if "--fail-first" in ARGS else 0
DELAY = int(ARGS[ARGS.index("--delay-ms") + 1]) / 1000 if "--delay-ms" in ARGS else 0.0
HANG = ARGS[ARGS.index("--hang") + 1] if "--hang" in ARGS else None
STALL = ARGS[ARGS.index("--stall") + 1] if "--stall" in ARGS else None
QUIET_S = 60  # how long a hung or stalled request holds its connection
LIMIT = 10000  # requests a minute, as the emulated account's tier

lock = threading.Lock()
posts = 0
fail_left = FAIL_FIRST
window = []  # monotonic times of the requests of the last minute (for x-ratelimit-remaining-requests)


def token_of(auth):
    return auth[7:] if auth.startswith("Bearer ") else auth


def key_id(token):
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token else "-"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "emulation/1"

    def log_message(self, *a):
        pass

    def answer(self, status, obj, extra=()):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        self.answer(200, {"posts": posts})

    def do_POST(self):
        global posts, fail_left
        start = time.monotonic()
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/__fail":
            with lock:
                fail_left = int(body)
            return self.answer(200, {"fail": fail_left})
        token = token_of(self.headers.get("Authorization", ""))
        quiet = token in (HANG, STALL)
        with lock:
            posts += 1
            n = posts
            failing = fail_left > 0 and not quiet
            fail_left -= failing
            window[:] = [t for t in window if t > start - 60] + [start]
            remaining = max(LIMIT - len(window), 0)
        rl = [("x-request-id", "req_emu%06d" % n),
              ("x-ratelimit-limit-requests", str(LIMIT)),
              ("x-ratelimit-remaining-requests", str(remaining)),
              ("x-ratelimit-reset-requests", "6ms"),
              ("x-ratelimit-limit-tokens", "2000000"),
              ("x-ratelimit-remaining-tokens", "1999990"),
              ("x-ratelimit-reset-tokens", "0s")]
        if quiet:
            return self.go_quiet(start, token, rl)
        if DELAY:
            time.sleep(DELAY)
        if failing:
            status = 429
            self.answer(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                        "param": None, "code": "rate_limit_exceeded"}},
                        rl + [("retry-after", "1")])
        else:
            status = 200
            try:
                model = json.loads(body).get("model", "gpt-4o-mini")
            except ValueError:
                model = "gpt-4o-mini"
            self.answer(200, {"id": "chatcmpl-emu%06d" % n, "object": "chat.completion", "created": int(time.time()),
                              "model": model, "choices": [{"index": 0, "message": {"role": "assistant",
                              "content": "emulated answer %d" % n}, "logprobs": None, "finish_reason": "stop"}],
                              "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}, rl)
        self.log_post(token, start, time.monotonic(), status)

    def go_quiet(self, start, token, rl):
        """The --hang and --stall keys' requests: nothing, or a 200's head (rate-limit headers rl) and 8 bytes
        of its body; logged, then the connection held QUIET_S seconds and closed."""
        status = None
        if token == STALL:
            status = 200
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "200")
            for k, v in rl:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(b'{"id": "')
            self.wfile.flush()
        self.log_post(token, start, None, status)
        time.sleep(QUIET_S)
        self.close_connection = True

    def log_post(self, token, start, end, status):
        line = json.dumps({"key": key_id(token), "start": start, "end": end, "status": status, "path": self.path,
                           "tls": isinstance(self.connection, ssl.SSLSocket)})
        with lock, open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write(line + "\n")


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 64
    daemon_threads = True


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.load_cert_chain(os.path.join(DIR, "cert.pem"), os.path.join(DIR, "key.pem"))
tls = Server(("127.0.0.1", 0), Handler)
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
plain = Server(("127.0.0.1", 0), Handler)
threading.Thread(target=plain.serve_forever, daemon=True).start()
with open(os.path.join(DIR, "ports.tmp"), "w") as f:
    f.write("port=%d\ntls_port=%d\n" % (plain.server_address[1], tls.server_address[1]))
os.rename(os.path.join(DIR, "ports.tmp"), os.path.join(DIR, "ports"))
tls.serve_forever()
