#!/usr/bin/python3
"""Python hosts of tests/integration/test_python_edges.sh. Usage: edge_clients.py CASE URL [ARG]
Each prints one line per answer, "STATUS MOCK_KEY" (or what the case says), and exits 0 when it got them.
  sendfile   a raw socket: the request head with sendall, its body (40 KB, over several sendfile calls)
             with socket.sendfile from a file (os.sendfile over http; over https Python falls back to send)
  bodies     on one kept-alive connection (http.client): a chunked body (encode_chunked), an empty body,
             GET and HEAD of /v1/models, then requests with a generator body (chunked)
  timeout    CLIENT (ARG: requests, httpx, aiohttp, httpclient) with a 2 s timeout: prints "EXC NAME SECONDS"
             (its own timeout error and how long it took), or "answered SECONDS"
  epoll      three requests at once on non-blocking sockets under selectors.EpollSelector, each answer read
             until the server closes; prints the answers, then "ticks=N": selects that returned nothing
             (their timeout is 50 ms)
  aiohttp    one aiohttp request; prints the answer, then "cpu=SECONDS" (the process's CPU time)"""
import json, os, resource, socket, ssl, sys, tempfile, time, urllib.parse

case, url = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else ""
u = urllib.parse.urlsplit(url)
PORT = u.port or (443 if u.scheme == "https" else 80)
BODY = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}).encode()
HDRS = {"Authorization": "Bearer sk-host", "Content-Type": "application/json"}


def head(n, close=True):
    return ("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\n%s\r\n" % (u.path, u.hostname, n, "Connection: close\r\n" if close else "")).encode()


def connect(timeout=20):
    s = socket.create_connection((u.hostname, PORT), timeout=timeout)
    return ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname) if u.scheme == "https" else s


def answer(data):
    h, _, b = data.partition(b"\r\n\r\n")
    return "%s %s" % (h.split(b" ")[1].decode(), json.loads(b).get("mock_key", "-"))


def read_to_end(s):
    data = b""
    while True:
        try:
            d = s.recv(65536)
        except ssl.SSLEOFError:
            d = b""
        if not d:
            return data
        data += d


if case == "sendfile":
    body = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x" * 40000}]}).encode()
    with tempfile.TemporaryFile() as f:
        f.write(body)
        f.seek(0)
        s = connect()
        s.sendall(head(len(body)))
        s.sendfile(f)
        print(answer(read_to_end(s)))
elif case == "bodies":
    import http.client, requests
    C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    c = C(u.hostname, u.port, timeout=20)
    models = u.path.replace("/chat/completions", "/models")
    for method, path, body, extra in [("POST", u.path, iter([BODY[:10], BODY[10:]]), {}),
                                      ("POST", u.path, b"", {}), ("GET", models, None, {}), ("HEAD", models, None, {})]:
        c.request(method, path, body, dict(HDRS, **extra), encode_chunked=method == "POST" and body != b"")
        r = c.getresponse()
        data = r.read()
        print(method, r.status, r.getheader("x-mock-key"), "body" if data else "empty")
    r = requests.post(url, data=iter([BODY[:10], BODY[10:]]), headers=HDRS, timeout=20)
    print("generator", r.status_code, r.json().get("mock_key"))
elif case == "timeout":
    t0 = time.time()
    try:
        if arg == "requests":
            import requests
            requests.post(url, data=BODY, headers=HDRS, timeout=2)
        elif arg == "httpx":
            import httpx
            httpx.post(url, content=BODY, headers=HDRS, timeout=2)
        elif arg == "httpclient":
            import http.client
            C = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
            c = C(u.hostname, u.port, timeout=2)
            c.request("POST", u.path, body=BODY, headers=HDRS)
            c.getresponse().read()
        else:
            import aiohttp, asyncio

            async def go():
                async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as s:
                    async with s.post(url, data=BODY, headers=HDRS) as r:
                        await r.read()
            asyncio.run(go())
        print("answered %.1f" % (time.time() - t0))
    except Exception as e:
        print("EXC %s %.1f" % (type(e).__name__, time.time() - t0))
elif case == "epoll":
    import selectors
    sel = selectors.EpollSelector()
    for i in range(3):
        s = connect()
        s.sendall(head(len(BODY)) + BODY)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, [b""])
    left, ticks = 3, 0
    deadline = time.time() + 20
    while left and time.time() < deadline:
        events = sel.select(0.05)
        ticks += not events
        for key, _ in events:
            try:
                d = key.fileobj.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            except ssl.SSLEOFError:
                d = b""
            if d:
                key.data[0] += d
                continue
            sel.unregister(key.fileobj)
            key.fileobj.close()
            left -= 1
            print(answer(key.data[0]))
    print("ticks=%d" % ticks)
elif case == "aiohttp":
    import aiohttp, asyncio

    async def go():
        async with aiohttp.ClientSession() as s:
            async with s.post(url, data=BODY, headers=HDRS) as r:
                print(r.status, (await r.json()).get("mock_key"))
    asyncio.run(go())
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print("cpu=%.2f" % (ru.ru_utime + ru.ru_stime))
else:
    sys.exit("unknown case " + case)
