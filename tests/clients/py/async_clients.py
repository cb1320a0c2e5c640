#!/usr/bin/python3
"""Event-loop hosts for the non-blocking tests. Usage: async_clients.py CLIENT URL [N [stream]]
CLIENT: streams (asyncio.open_connection, HTTP/1.1 written by hand, Connection: close), aiohttp, httpx
(httpx.AsyncClient). N requests at once (asyncio.gather) while a task on the same loop ticks every 50 ms;
with "stream" (aiohttp, httpx) each asks for an event stream and reads it piece by piece as it comes.
Prints, per request in the order they were started, "STATUS BODY" on one line; on stderr
"ticks=T max_late_ms=L", L the largest lateness of a tick. Exits 0 when every request got a response."""
import asyncio, json, sys, time, urllib.parse

client, url = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
stream = len(sys.argv) > 4 and sys.argv[4] == "stream"
u = urllib.parse.urlsplit(url)
BODY = json.dumps(dict({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]},
                        **({"stream": True} if stream else {}))).encode()
HDRS = {"Authorization": "Bearer sk-host", "Content-Type": "application/json"}
TICK = 0.05

async def streams_one():
    port = u.port or (443 if u.scheme == "https" else 80)
    r, w = await asyncio.open_connection(u.hostname, port, ssl=(u.scheme == "https") or None)
    head = "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\n" \
           "Content-Length: %d\r\nConnection: close\r\n\r\n" % (u.path, u.hostname, len(BODY))
    w.write(head.encode())
    w.write(BODY)
    await w.drain()
    data = await r.read()
    w.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body

async def run_all():
    if client == "streams":
        return await asyncio.gather(*[streams_one() for _ in range(n)])
    if client == "aiohttp":
        import aiohttp
        async with aiohttp.ClientSession() as s:
            async def one():
                async with s.post(url, data=BODY, headers=HDRS) as r:
                    if not stream:
                        return r.status, await r.read()
                    return r.status, b"".join([piece async for piece in r.content.iter_any()])
            return await asyncio.gather(*[one() for _ in range(n)])
    if client == "httpx":
        import httpx
        async with httpx.AsyncClient(timeout=30) as c:
            async def one():
                if not stream:
                    r = await c.post(url, content=BODY, headers=HDRS)
                    return r.status_code, r.content
                async with c.stream("POST", url, content=BODY, headers=HDRS) as r:
                    return r.status_code, b"".join([piece async for piece in r.aiter_raw()])
            return await asyncio.gather(*[one() for _ in range(n)])
    sys.exit("unknown client " + client)

async def main():
    stats = {"ticks": 0, "late": 0.0}
    async def ticker():
        last = time.monotonic()
        while True:
            await asyncio.sleep(TICK)
            now = time.monotonic()
            stats["late"] = max(stats["late"], now - last - TICK)
            stats["ticks"] += 1
            last = now
    t = asyncio.create_task(ticker())
    results = await run_all()
    t.cancel()
    for status, body in results:
        sys.stdout.write("%d %s\n" % (status, body.decode("utf-8").replace("\n", "\\n")))
    sys.stderr.write("ticks=%d max_late_ms=%d\n" % (stats["ticks"], int(stats["late"] * 1000)))

asyncio.run(main())
