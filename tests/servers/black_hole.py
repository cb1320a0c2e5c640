#!/usr/bin/python3
"""A black-holed listener on 127.0.0.1 for the attempt-timeout tests. MODE:
  silent: accepts, reads, never answers;
  head:   accepts, reads the request's head, answers a 200's head with a Content-Length and one byte of
          its body, then nothing more (a stalled body);
  deaf:   accepts and never reads, with a tiny receive buffer (a large request's send stalls);
  slow:   accepts, reads its request slowly for 1.2 s (4 KB every 300 ms, with a small receive buffer: a
          large request's send stalls meanwhile), then the rest of it at once, and answers a 200 (its
          "mock_key" sk-slow) 1 s after: the send and the wait for the answer each take less than 1.5 s,
          together more;
  full:   never accepts, its backlog filled, so that a connect never completes.
Each accepted connection appends "accepted" to LOG. With CERT and KEY, accepted connections speak TLS.
Usage: black_hole.py MODE PORTFILE LOG [CERT KEY]; writes the port to PORTFILE once it listens."""
import os, socket, ssl, sys, threading, time

mode, pf, log = sys.argv[1:4]
tls = None
if len(sys.argv) > 5:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(sys.argv[4], sys.argv[5])
s = socket.socket()
if mode in ("deaf", "slow"):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024 if mode == "deaf" else 65536)
s.bind(("127.0.0.1", 0))
s.listen(0 if mode == "full" else 16)
port, keep = s.getsockname()[1], []
if mode == "full":
    for _ in range(4):
        c = socket.socket(); c.setblocking(False)
        try: c.connect(("127.0.0.1", port))
        except BlockingIOError: pass
        keep.append(c)
    time.sleep(0.3)
open(pf + ".tmp", "w").write(str(port)); os.rename(pf + ".tmp", pf)
if mode == "full":
    time.sleep(600)

def serve(c):
    try:
        if tls:
            c = tls.wrap_socket(c, server_side=True)
        keep.append(c)
        if mode == "deaf":
            return
        got = b""
        while b"\r\n\r\n" not in got:
            d = c.recv(65536)
            if not d: return
            got += d
        if mode == "head":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        if mode == "slow":
            head, _, body = got.partition(b"\r\n\r\n")
            size = next(int(l.split(b":")[1]) for l in head.lower().split(b"\r\n") if l.startswith(b"content-length:"))
            left = size - len(body)
            for _ in range(4):
                time.sleep(0.3)
                left -= len(c.recv(min(4096, left)))
            while left > 0:
                d = c.recv(min(65536, left))
                if not d: return
                left -= len(d)
            time.sleep(1.0)
            answer = b'{"id": "slow", "object": "chat.completion", "model": "gpt-4o-mini", "mock_key": "sk-slow", ' \
                     b'"choices": [{"index": 0, "message": {"role": "assistant", "content": "slow"}, "finish_reason": "stop"}]}'
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(answer) + answer)
        while c.recv(65536): pass
    except (OSError, ssl.SSLError):
        pass

while True:
    c, _ = s.accept(); keep.append(c)
    open(log, "a").write("accepted\n")
    threading.Thread(target=serve, args=(c,), daemon=True).start()
