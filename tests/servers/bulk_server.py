#!/usr/bin/python3
"""A loopback HTTP server for memory tests: POST /stream answers an endless 200 event stream
(OpenAI chunks with multi-byte text), POST /big answers a 200 JSON body of SIZE bytes (?size=N, default
200 MB; &status=S for another status) with a Content-Length; GET /__count answers how many POSTs came.
Usage: bulk_server.py PORTFILE; writes port=N to PORTFILE."""
import http.server, os, sys, urllib.parse

CHUNK = b'data: {"choices":[{"delta":{"content":"\xe4\xbd\xa0\xe5\xa5\xbd, \xe4\xb8\x96\xe7\x95\x8c"}}]}\n\n' * 64

posts = 0

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        body = str(posts).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        global posts
        posts += 1
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        u = urllib.parse.urlparse(self.path)
        try:
            if u.path.endswith("/stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                while True:
                    self.wfile.write(CHUNK)
            else:
                q = urllib.parse.parse_qs(u.query)
                size = int(q.get("size", ["200000000"])[0])
                self.send_response(int(q.get("status", ["200"])[0]))
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                head, tail = b'{"pad":"', b'"}'
                self.wfile.write(head)
                left = size - len(head) - len(tail)
                block = b"a" * (1 << 20)
                while left > 0:
                    self.wfile.write(block[:min(left, len(block))])
                    left -= len(block)
                self.wfile.write(tail)
        except (BrokenPipeError, ConnectionResetError):
            pass

s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
tmp = sys.argv[1] + ".tmp"
with open(tmp, "w") as f:
    f.write("port=%d\n" % s.server_address[1])
os.rename(tmp, sys.argv[1])
s.serve_forever()
