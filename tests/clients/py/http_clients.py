#!/usr/bin/python3
"""Python HTTP hosts for the socket/TLS tests. Usage: http_clients.py CLIENT URL [N]
CLIENT: raw (socket, HTTP/1.1, response read in 1-byte pieces), rawchunked (socket, chunked request body),
rawexpect (socket, Expect: 100-continue: the body only after the interim answer), rawselect (a non-blocking
socket waited on with select(): the request in one send, the answer read until the end), rawhalfclose (socket,
shut down for writing after the request),
http.client, urllib, requests (one Session, N requests on one keep-alive connection), httpx.
With LG_TIMEOUT=SECONDS every client sets that timeout (CPython then makes the socket non-blocking and polls
it before each send and receive). Prints, per request, "STATUS BODY" on one line; exits 0 when every request got a response.
CLIENT sse: a streamed request on a raw socket whose answer is read in pieces of at most 64 bytes; prints
"pieces=N bad_utf8=M" (pieces that are not whole UTF-8), then the de-chunked body."""
import json, os, socket, ssl, sys, urllib.parse, urllib.request

client, url = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
u = urllib.parse.urlsplit(url)
BODY = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()
HDRS = {"Authorization": "Bearer sk-host", "Content-Type": "application/json"}
T = float(os.environ["LG_TIMEOUT"]) if os.environ.get("LG_TIMEOUT") else None

def out(status, body):
    sys.stdout.write("%d %s\n" % (status, body.decode("utf-8").replace("\n", "\\n")))

def dechunk(head, body):
    if b"transfer-encoding: chunked" not in head.lower():
        return body
    dec = b""
    while True:
        line, _, body = body.partition(b"\r\n")
        size = int(line, 16)
        if size == 0:
            return dec
        dec, body = dec + body[:size], body[size + 2:]

def raw(chunked, piece=1, body_bytes=BODY, expect=False, halfclose=False):
    port = u.port or (443 if u.scheme == "https" else 80)
    s = socket.create_connection((u.hostname, port), timeout=T)
    if u.scheme == "https":
        s = ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname)
    path = u.path + ("?" + u.query if u.query else "")
    head = "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\nConnection: close\r\n" % (path, u.hostname)
    if chunked:
        half = len(BODY) // 2
        req = (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, BODY[:half], len(BODY) - half, BODY[half:])
    else:
        req = (head + "Content-Length: %d\r\n\r\n" % len(body_bytes)).encode() + body_bytes
    if expect:
        head_end = req.index(b"\r\n\r\n")
        s.sendall(req[:head_end] + b"\r\nExpect: 100-continue\r\n\r\n")
        interim = b""
        while not interim.endswith(b"\r\n\r\n"):
            interim += s.recv(1)
        if not interim.startswith(b"HTTP/1.1 100"):
            sys.exit("no 100 Continue: %r" % interim)
        req = req[head_end + 4:]
    for i in range(0, len(req), 40):  # the request in several writes
        s.sendall(req[i:i + 40])
    if halfclose:
        s.shutdown(socket.SHUT_WR)
    data, pieces, bad = b"", 0, 0
    while True:
        try:
            d = s.recv(piece)
        except ssl.SSLEOFError:
            d = b""
        if not d:
            break
        pieces += 1
        try:
            d.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
        data += d
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), dechunk(head, body), pieces, bad

def rawselect():
    import select
    port = u.port or (443 if u.scheme == "https" else 80)
    s = socket.create_connection((u.hostname, port))
    if u.scheme == "https":
        s = ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname)
    s.setblocking(False)
    req = ("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\n"
           "Content-Length: %d\r\nConnection: close\r\n\r\n" % (u.path, u.hostname, len(BODY))).encode() + BODY
    while req:
        select.select([], [s], [], 20)
        try:
            req = req[s.send(req):]
        except (BlockingIOError, ssl.SSLWantWriteError, ssl.SSLWantReadError):
            pass
    data = b""
    while True:
        if not select.select([s], [], [], 20)[0]:
            sys.exit("select timed out")
        try:
            d = s.recv(65536)
        except (BlockingIOError, ssl.SSLWantReadError):
            continue
        except ssl.SSLEOFError:
            d = b""
        if not d:
            break
        data += d
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), dechunk(head, body)

if client == "rawselect":
    out(*rawselect())
elif client in ("raw", "rawchunked", "rawexpect", "rawhalfclose"):
    status, body, _, _ = raw(client == "rawchunked", expect=client == "rawexpect", halfclose=client == "rawhalfclose")
    out(status, body)
elif client == "sse":
    sb = json.dumps({"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "hi"}]}).encode()
    status, body, pieces, bad = raw(False, 64, sb)
    sys.stdout.write("status=%d pieces=%d bad_utf8=%d\n" % (status, pieces, bad))
    sys.stdout.buffer.write(body)
elif client == "http.client":
    import http.client
    C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    c = C(u.hostname, u.port, timeout=T)
    for _ in range(n):
        c.request("POST", u.path, BODY, HDRS)
        r = c.getresponse()
        out(r.status, r.read())
elif client == "urllib":
    for _ in range(n):
        try:
            r = urllib.request.urlopen(urllib.request.Request(url, BODY, HDRS), timeout=T)
            out(r.status, r.read())
        except urllib.error.HTTPError as e:
            out(e.code, e.read())
elif client == "requests":
    import requests
    with requests.Session() as s:
        for _ in range(n):
            r = s.post(url, data=BODY, headers=HDRS, timeout=T)
            out(r.status_code, r.content)
elif client == "httpx":
    import httpx
    with httpx.Client(timeout=T) as c:
        for _ in range(n):
            r = c.post(url, content=BODY, headers=HDRS)
            out(r.status_code, r.content)
else:
    sys.exit("unknown client " + client)
