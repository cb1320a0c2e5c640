#!/usr/bin/python3
"""A hand-written event-loop host on memory-BIO TLS (ssl.SSLObject, like asyncio's) that reads its socket
with one chosen call and waits for it with one chosen readiness call. Usage: membio_client.py READ URL [WAIT]
READ: recv (libc recv), recvfrom, recvmsg, readv (os.readv), read (os.read); WAIT: epoll (default), poll,
select. One POST over a non-blocking socket (its Host header: $MEMBIO_HOST, else the URL's). Prints
"STATUS BODY" on one line; exits 0 when it got a whole response."""
import json, os, select, socket, ssl, sys, urllib.parse

how, url = sys.argv[1], sys.argv[2]
wait = sys.argv[3] if len(sys.argv) > 3 else "epoll"
u = urllib.parse.urlsplit(url)
BODY = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()
READS = {
    "recv": lambda s: s.recv(65536),
    "recvfrom": lambda s: s.recvfrom(65536)[0],
    "recvmsg": lambda s: s.recvmsg(65536)[0],
    "readv": lambda s: (lambda b: b[:os.readv(s.fileno(), [b])])(bytearray(65536)),
    "read": lambda s: os.read(s.fileno(), 65536),
}
read = READS[how]

sock = socket.create_connection((u.hostname, u.port or 443), timeout=10)
sock.setblocking(False)
if wait == "epoll":
    ep = select.epoll()
    ep.register(sock.fileno(), select.EPOLLIN)
    readable = lambda: ep.poll(30)
elif wait == "poll":
    pl = select.poll()
    pl.register(sock.fileno(), select.POLLIN)
    readable = lambda: pl.poll(30000)
else:
    readable = lambda: select.select([sock], [], [], 30)[0]
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ssl.create_default_context().wrap_bio(inc, out, server_hostname=u.hostname)

def flush():
    data = out.read()
    if data:
        sock.sendall(data)

def pull():
    """Waits until the socket is readable and feeds what it reads into the incoming BIO."""
    if not readable():
        sys.exit("timed out")
    data = read(sock)
    if not data:
        sys.exit("connection closed")
    inc.write(bytes(data))

while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        flush()
        pull()
flush()
head = ("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\n"
        "Content-Length: %d\r\n\r\n" % (u.path, os.environ.get("MEMBIO_HOST", u.hostname), len(BODY))).encode()
tls.write(head + BODY)
flush()
got = b""
while True:
    pull()
    try:
        while True:
            got += tls.read(65536)
    except ssl.SSLWantReadError:
        pass
    head, sep, body = got.partition(b"\r\n\r\n")
    if sep:
        length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
        if length and len(body) >= length[0]:
            break
sys.stdout.write("%s %s\n" % (head.split(b" ")[1].decode(), body.decode("utf-8")))
