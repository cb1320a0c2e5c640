#!/usr/bin/python3
"""Writes the seed corpus of every fuzz harness into OUTDIR/<harness>/ from tests/fixtures (responses,
streams, translate), the config examples in README.md and the tests, and a few hand-picked hints and dates.
Usage: seeds.py FIXTURES_DIR OUTDIR"""
import hashlib, json, os, re, sys

DIALECTS = {"none": 0, "openai": 1, "anthropic": 2, "google": 3, "dashscope": 4, "baidu": 5}
PROVIDER_DIALECT = {"openai": 1, "azure": 1, "deepseek": 1, "groq": 1, "mistral": 1, "moonshot": 1, "openrouter": 1,
                    "ark": 1, "anthropic": 2, "gemini": 3, "cloudcode": 3, "dashscope": 4, "baidu": 5}

def put(outdir, harness, data):
    d = os.path.join(outdir, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)

def response_bytes(fx):
    dialect = PROVIDER_DIALECT.get(str(fx.get("provider", "openai")).split("_")[0], 1)
    status = int(fx.get("status", 200)) % 1000
    head = "".join("%s: %s\n" % (k, v) for k, v in (fx.get("headers") or {}).items())
    body = fx.get("body", "")
    if not isinstance(body, str):
        body = json.dumps(body)
    return bytes([dialect, 1 if fx.get("stream") else 0, status >> 8, status & 255]) + \
        (head + "\n").encode() + body.encode()

def http_responses(fx):
    """The fixture as a server sends it over HTTP/1.1: with a Content-Length, chunked, and ending with the
    connection (an event stream typed as one)."""
    status = int(fx.get("status", 200))
    headers = {k: v for k, v in (fx.get("headers") or {}).items() if k.lower() not in ("content-length", "transfer-encoding")}
    if fx.get("stream") and not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "text/event-stream"
    body = fx.get("body", "")
    body = (body if isinstance(body, str) else json.dumps(body)).encode()
    head = ("HTTP/1.1 %d X\r\n" % status + "".join("%s: %s\r\n" % (k, v) for k, v in headers.items())).encode()
    half = len(body) // 2
    return [head + b"Content-Length: %d\r\n\r\n" % len(body) + body,
            head + b"Transfer-Encoding: chunked\r\n\r\n" + b"".join(
                b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:half], body[half:]) if c) + b"0\r\n\r\n",
            head + b"Connection: close\r\n\r\n" + body]

def aws_frame(mtype, etype, payload):
    """An AWS event-stream frame (CRCs zero: the reader does not check them)."""
    def header(name, value):
        return bytes([len(name)]) + name.encode() + b"\x07" + len(value).to_bytes(2, "big") + value.encode()
    h = header(":message-type", mtype) + header(":exception-type" if mtype == "exception" else ":event-type", etype)
    p = json.dumps(payload).encode()
    return (16 + len(h) + len(p)).to_bytes(4, "big") + len(h).to_bytes(4, "big") + bytes(4) + h + p + bytes(4)

def main():
    fixtures, outdir = sys.argv[1], sys.argv[2]
    for sub in ("responses", "streams"):
        for name in sorted(os.listdir(os.path.join(fixtures, sub))):
            if not name.endswith(".json"):
                continue
            fx = json.load(open(os.path.join(fixtures, sub, name)))
            data = response_bytes(fx)
            put(outdir, "fuzz_classify", data)
            for i, wire in enumerate(http_responses(fx)):
                put(outdir, "fuzz_h1_response", bytes([i * 5 % 17, data[0] << 1 | i << 4 & 0x30]) + wire)
            if fx.get("stream") or sub == "streams":
                put(outdir, "fuzz_stream", data)
                body = data.split(b"\n\n", 1)[1] if b"\n\n" in data else b""
                put(outdir, "fuzz_sse", bytes([7]) + body)
    converse = (aws_frame("event", "messageStart", {"role": "assistant"}) +
                aws_frame("event", "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}) +
                aws_frame("event", "metadata", {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}}))
    for data in (converse, aws_frame("exception", "throttlingException", {"message": "Too many requests"}),
                 aws_frame("event", "chunk", {"bytes": "eyJhbWF6b24tYmVkcm9jay1pbnZvY2F0aW9uTWV0cmljcyI6eyJpbnB1dFRva2VuQ291bnQiOjJ9fQ=="})):
        put(outdir, "fuzz_aws_frames", bytes([1]) + data)
    names = {"openai": 1, "anthropic": 2, "gemini": 3}
    for name in sorted(os.listdir(os.path.join(fixtures, "translate"))):
        fx = json.load(open(os.path.join(fixtures, "translate", name)))
        src = names[fx.get("from", fx.get("target", "openai"))]
        dst = names[fx.get("to", fx.get("host", "openai"))]
        body = fx["in"] if isinstance(fx.get("in"), str) else json.dumps(fx.get("in", fx.get("in_text", "")))
        put(outdir, "fuzz_translate", bytes([src | dst << 2 | 0x70]) + body.encode())
    root = os.path.dirname(os.path.dirname(os.path.abspath(fixtures)))
    readme = open(os.path.join(root, "README.md")).read()
    for block in re.findall(r"```json\n(.*?)```", readme, re.S):
        put(outdir, "fuzz_config", block.encode())
    put(outdir, "fuzz_config", b'{"providers": {"webhook": {"hosts": ["hooks.example.com"], "limits": {"rpm": 30}}},'
        b' "store": {"backend": "redis", "redis_url": "redis://127.0.0.1:6379"}, "log": {"level": "debug"}}')
    put(outdir, "fuzz_config", b'{"providers": {"openai": {"limits": {"tier": "tier-2"}, "stream": {"boundary": "event"},'
        b' "accounts": [{"name": "a", "key": "host"}]}}, "backoff": {"max_hint_ms": 1000}}')
    body = b'{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
    for req in (b"POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer sk-x\r\n"
                b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body,
                b"POST /v1beta/models/g:generateContent?key=abc HTTP/1.1\r\nHost: g\r\nTransfer-Encoding: chunked\r\n"
                b"\r\n%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n",
                b"POST /v1/messages HTTP/1.1\r\nHost: a\r\nx-api-key: k\r\nExpect: 100-continue\r\n"
                b"Content-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n"):
        for split in (1, 5, 16):
            put(outdir, "fuzz_h1_request", bytes([split]) + req)
    for s in ("1s", "6m0s", "7.66s", "9m38.016s", "644ms", "1h2m", "20us", "40s", "33740.910400305s", "20", "1.5",
              "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
              "2024-03-26T20:00:00Z", "2024-03-27T04:00:00+08:00", "2024-03-26T20:00:00.0001Z", "30676070775",
              "Tue, 01 Jan 2999 00:00:00 GMT"):
        put(outdir, "fuzz_duration", s.encode())

main()
