#!/usr/bin/python3
"""A hand-written event-loop host on memory-BIO TLS (ssl.SSLObject, like asyncio's) that reads its socket
with one chosen call, for the placeholder byte of memory-BIO sessions. Usage: membio_client.py READ URL
READ: recv (libc recv), recvfrom, recvmsg, readv (os.readv), read (os.read). One POST over a non-blocking
socket waited on with epoll. Prints "STATUS BODY" on one line; exits 0 when it got a whole response."""
import json, os, select, socket, ssl, sys, urllib.parse

how, url = sys.argv[1], sys.argv[2]
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
ep = select.epoll()
ep.register(sock.fileno(), select.EPOLLIN)
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ssl.create_default_context().wrap_bio(inc, out, server_hostname=u.hostname)

def flush():
    data = out.read()
    if data:
        sock.sendall(data)

def pull():
    """Waits until the socket is readable and feeds what it reads into the incoming BIO."""
    if not ep.poll(30):
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
        "Content-Length: %d\r\n\r\n" % (u.path, u.hostname, len(BODY))).encode()
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
