#!/usr/bin/python3
"""HTTP/2-capable Python hosts (httpx with h2). Usage: h2_clients.py CLIENT URL N [OTHER_URL]
CLIENT: sync (httpx.Client(http2=True): N requests one after the other), async (httpx.AsyncClient(http2=True):
N requests at once).
Each request is a chat completion with the host's key sk-host. Prints, per request, "STATUS HTTP_VERSION ALPN
BODY" (ALPN: what the TLS connection that carried it agreed, read from its SSL object; "-" when httpx does
not tell, as over HTTP/2); with OTHER_URL (a server that is no provider), then one GET of it on the same
client, with the same key: "other STATUS HTTP_VERSION". Exits 0 when every request got a response."""
import asyncio, json, sys

import httpx

client, url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
other = sys.argv[4] if len(sys.argv) > 4 else None
BODY = {"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
HDRS = {"Authorization": "Bearer sk-host"}


def alpn(r):
    stream = r.extensions.get("network_stream")
    ssl_object = stream.get_extra_info("ssl_object") if stream else None
    return (ssl_object.selected_alpn_protocol() or "none") if ssl_object else "-"


def show(r):
    print(r.status_code, r.http_version, alpn(r), r.text.replace("\n", "\\n"), flush=True)


def show_other(r):
    print("other", r.status_code, r.http_version, flush=True)


if client == "sync":
    with httpx.Client(http2=True, timeout=30) as c:
        for _ in range(n):
            show(c.post(url, json=BODY, headers=HDRS))
        if other:
            show_other(c.get(other, headers=HDRS))
elif client == "async":
    async def main():
        async with httpx.AsyncClient(http2=True, timeout=30) as c:
            for r in await asyncio.gather(*[c.post(url, json=BODY, headers=HDRS) for _ in range(n)]):
                show(r)
            if other:
                show_other(await c.get(other, headers=HDRS))
    asyncio.run(main())
else:
    sys.exit("unknown client " + client)
