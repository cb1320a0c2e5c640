#!/usr/bin/python3
"""Bench host for the socket path: N POSTs on one keep-alive http.client connection to URL (http).
Prints "failures=F wall_us=W cpu_us=C" (this process's CPU time, user + system). With RCVTIMEO_MS its
socket gets that SO_RCVTIMEO before it connects (as C programs set a read limit; Python's own timeouts
are poll-based). Usage: socket_client.py N URL [RCVTIMEO_MS]"""
import http.client, json, socket, struct, sys, time, urllib.parse

n, url = int(sys.argv[1]), urllib.parse.urlsplit(sys.argv[2])
rcvtimeo_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 0


class Conn(http.client.HTTPConnection):
    def connect(self):
        """http.client's connect, with SO_RCVTIMEO set on the socket first."""
        family, kind, proto, _, addr = socket.getaddrinfo(self.host, self.port, socket.AF_INET,
                                                          socket.SOCK_STREAM)[0]
        self.sock = socket.socket(family, kind, proto)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                             struct.pack("ll", rcvtimeo_ms // 1000, rcvtimeo_ms % 1000 * 1000))
        self.sock.connect(addr)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]})
hdrs = {"Authorization": "Bearer sk-bench", "Content-Type": "application/json"}
c = (Conn if rcvtimeo_ms else http.client.HTTPConnection)(url.hostname, url.port)
fail = 0
w0, c0 = time.monotonic(), time.process_time()
for _ in range(n):
    c.request("POST", url.path, body, hdrs)
    r = c.getresponse()
    r.read()
    fail += r.status != 200
print("failures=%d wall_us=%d cpu_us=%d" % (fail, (time.monotonic() - w0) * 1e6, (time.process_time() - c0) * 1e6))
