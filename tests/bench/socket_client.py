#!/usr/bin/python3
"""Bench host for the socket path: N POSTs on one keep-alive http.client connection to URL (http).
Prints "failures=F wall_us=W cpu_us=C" (this process's CPU time, user + system)."""
import http.client, json, sys, time, urllib.parse

n, url = int(sys.argv[1]), urllib.parse.urlsplit(sys.argv[2])
body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]})
hdrs = {"Authorization": "Bearer sk-bench", "Content-Type": "application/json"}
c = http.client.HTTPConnection(url.hostname, url.port)
fail = 0
w0, c0 = time.monotonic(), time.process_time()
for _ in range(n):
    c.request("POST", url.path, body, hdrs)
    r = c.getresponse()
    r.read()
    fail += r.status != 200
print("failures=%d wall_us=%d cpu_us=%d" % (fail, (time.monotonic() - w0) * 1e6, (time.process_time() - c0) * 1e6))
