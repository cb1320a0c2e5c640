#!/usr/bin/env bash
# One libcurl handle performed again and again (pycurl, the easy and the multi interface): llmgate keeps
# the handle shaped between performs of a provider request and shapes again only what the host changed.
# Every perform must still be what the host set: a new URL, header list, body or callback; a perform to
# another host right after a gated one (the host's own key and callbacks, nothing of ours); a duplicate
# handle and a reset handle; the same handle in a multi. Asserted on what Python saw and on what the
# mock received, request by request.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-reuse-limited": {"sequence": [{"error": "rate_limit", "retry_after_ms": 60000}], "repeat": true},
          "sk-reuse-e200": {"sequence": [{"error_in_200": true}]}}}
JSON
lg_start_mock --quiet --scenario "$LG_TMP/scenario.json"
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "one", "key": "env:KEY_ONE"}, {"name": "two", "key": "env:KEY_TWO"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
cat >"$LG_TMP/reuse.py" <<'PY'
import hashlib, io, json, sys, pycurl
provider = "https://api.openai.com/v1/chat/completions"
direct = sys.argv[1] + "/v1/chat/completions"  # the mock by its own address: no provider host
def body(model="gpt-4o-mini"):
    return json.dumps({"model": model, "messages": [{"role": "user", "content": "hi"}]})
out = []
def run(c, label, sink):
    before = len(sink.getvalue())
    c.perform()
    got = sink.getvalue()[before:]
    obj = json.loads(got).get("object", "?") if got else "-"
    out.append("%s %d %s" % (label, c.getinfo(c.RESPONSE_CODE), obj))
a, b, hdrs = io.BytesIO(), io.BytesIO(), io.BytesIO()
c = pycurl.Curl()
c.setopt(c.URL, provider)
c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host-own", "Content-Type: application/json"])
c.setopt(c.POSTFIELDS, body())
c.setopt(c.WRITEFUNCTION, a.write)
c.setopt(c.HEADERFUNCTION, hdrs.write)
run(c, "first", a)
run(c, "again", a)
c.setopt(c.URL, direct)
run(c, "direct", a)
c.setopt(c.URL, provider)
run(c, "back", a)
c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host-two", "Content-Type: application/json", "X-Reuse: 5"])
run(c, "headers", a)
c.setopt(c.POSTFIELDS, body("gpt-4o-mini:openai"))
run(c, "pinned", a)
c.setopt(c.POSTFIELDS, body("gpt-4o"))
run(c, "unpinned", a)
c.setopt(c.WRITEFUNCTION, b.write)
a_before = len(a.getvalue())
run(c, "writer", b)
out.append("old writer untouched %s" % (len(a.getvalue()) == a_before))
d = c.duphandle()
d.setopt(d.URL, direct)
run(d, "dup-direct", b)
d.close()
run(c, "after-dup", b)
c.reset()
c.setopt(c.URL, direct)
c.setopt(c.POSTFIELDS, body())
c.setopt(c.WRITEFUNCTION, b.write)
run(c, "reset-direct", b)
c.setopt(c.URL, provider)
c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host-own", "Content-Type: application/json"])
run(c, "reset-provider", b)
m = pycurl.CurlMulti()
def run_multi(label):
    m.add_handle(c)
    before = len(b.getvalue())
    while True:
        ret, active = m.perform()
        if not active:
            break
        m.select(1.0)
    m.remove_handle(c)
    got = b.getvalue()[before:]
    out.append("%s %d %s" % (label, c.getinfo(c.RESPONSE_CODE), json.loads(got).get("object", "?") if got else "-"))
run_multi("multi")
run_multi("multi-again")
c.setopt(c.URL, direct)
run_multi("multi-direct")
run(c, "easy-direct", b)
c.setopt(c.URL, provider)
run(c, "last", b)
out.append("headers seen %d, 429 seen %d" % (hdrs.getvalue().count(b"HTTP/1.1 200"), hdrs.getvalue().count(b" 429")))
print("sha", hashlib.sha256(body().encode()).hexdigest(), hashlib.sha256(body("gpt-4o").encode()).hexdigest(),
      file=sys.stderr)
print("\n".join(out))
PY
out=$(KEY_ONE=sk-reuse-limited KEY_TWO=sk-reuse-two "$LG_CLI" run --config "$LG_TMP/config.json" -- \
    /usr/bin/python3 "$LG_TMP/reuse.py" "$MOCK_URL" 2>"$LG_TMP/err")
expected="first 200 chat.completion
again 200 chat.completion
direct 200 chat.completion
back 200 chat.completion
headers 200 chat.completion
pinned 200 chat.completion
unpinned 200 chat.completion
writer 200 chat.completion
old writer untouched True
dup-direct 200 chat.completion
after-dup 200 chat.completion
reset-direct 200 chat.completion
reset-provider 200 chat.completion
multi 200 chat.completion
multi-again 200 chat.completion
multi-direct 200 chat.completion
easy-direct 200 chat.completion
last 200 chat.completion
headers seen 10, 429 seen 0"
check_eq "every perform on the reused handle answered as the host set it up" "$expected" "$out"
[ "$out" = "$expected" ] || diag "$(cat "$LG_TMP/err")"

# What the mock received, in order: account one is tried first and answers 429 (then it cools down for a
# minute), so each gated perform is one success of account two; each direct perform carries the host's
# own key (none after the reset).
reqs=$(curl -s "$MOCK_URL/__requests")
check_eq "the mock got each request once, with the right key" \
    "sk-reuse-limited sk-reuse-two sk-reuse-two sk-host-own sk-reuse-two sk-reuse-two sk-reuse-two sk-reuse-two sk-reuse-two sk-host-two sk-reuse-two (none) sk-reuse-two sk-reuse-two sk-reuse-two sk-host-own sk-host-own sk-reuse-two" \
    "$(printf '%s' "$reqs" | lg_json "' '.join(r['key'] or '(none)' for r in j)")"
check_eq "the host's extra header went with every request from when it was set until the reset" \
    "- - - - - 5 5 5 5 5 5 - - - - - - -" "$(printf '%s' "$reqs" | lg_json "' '.join(r['headers'].get('x-reuse', '-') for r in j)")"
read -r plain other < <(sed -n 's/^sha //p' "$LG_TMP/err")
shas=$(printf '%s' "$reqs" | lg_json "' '.join(r['body_sha256'] for r in j)")
read -r -a sha <<<"$shas"
check_eq "the pinned model went without its pin, every other byte the host's; then the host's next body" \
    "$plain $plain $other" "${sha[5]} ${sha[6]} ${sha[7]}"

# A C host that appends to the header list it set, without setting it again, between performs: the
# appended header goes with the next gated request as it would without llmgate.
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
out=$(KEY_ONE=sk-reuse-one KEY_TWO=sk-reuse-two LLMGATE_CONFIG="$LG_TMP/config.json" LD_PRELOAD="$LG_LIB" \
    "$LG_BUILD/clients/append_client" http://api.openai.com/v1/chat/completions "api.openai.com:80:127.0.0.1:$MOCK_PORT")
check_eq "the C host's three performs answered" "200 200 200" "$(echo $out)"
check_eq "the header appended to the host's list went from the second request on" "- yes yes" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json "' '.join(r['headers'].get('x-appended', '-') for r in j)")"

# A C host without accounts of ours (its own key goes out) that changes its key between performs of one
# handle: rewritten in place in the same string of the same list, the line rewritten in place to another
# auth header (whose value holds the first key where the old key began: the mock sees the whole value),
# then a new list with another key. The limiter counts each key for itself: the first key
# is rate-limited for a minute (its second perform refused without waiting), each new key goes out.
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
cat >"$LG_TMP/own.json" <<'JSON'
{"providers": {"openai": {}}, "retry": {"max_rate_limit_wait_seconds": 0}}
JSON
out=$(LLMGATE_CONFIG="$LG_TMP/own.json" LD_PRELOAD="$LG_LIB" "$LG_BUILD/clients/key_change_client" \
    http://api.openai.com/v1/chat/completions "api.openai.com:80:127.0.0.1:$MOCK_PORT")
check_eq "the host saw its limited key refused, then each new key answered" "429 429 200 200 200" "$(echo $out)"
check_eq "the mock got each new key as the host had it at that perform" \
    "sk-reuse-limited,sk-reuse-inplace,sk-reuse-t sk-reuse-limited,sk-change-newlist" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json "','.join(r['key'] or '(none)' for r in j)")"
# What getinfo tells of answers llmgate shaped, on one pycurl handle: an error inside a 200 event stream
# that llmgate stopped itself, given up as a 429 (a JSON error body of llmgate's in place of the events);
# at once a 429 of llmgate's own
# (the key cools down); then, once the key is free, a success. Each time HEADER_SIZE and SIZE_DOWNLOAD are
# the bytes the host got (PHP splits CURLOPT_HEADER output at header_size), the error buffer holds nothing of
# llmgate's abort, and CONTENT_TYPE is llmgate's only for its own answer (not the next one's).
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
cat >"$LG_TMP/e200.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "one", "key": "env:KEY_ONE"}]}},
 "retry": {"max_rate_limit_wait_seconds": 0}, "backoff": {"single_account_base_ms": 1000, "single_account_max_ms": 1000}}
JSON
chmod 600 "$LG_TMP/e200.json"
cat >"$LG_TMP/info.py" <<'PY'
import io, json, time, pycurl
c = pycurl.Curl()
c.setopt(c.URL, "https://api.openai.com/v1/chat/completions")
c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host-own", "Content-Type: application/json"])
def request(stream):
    return json.dumps({"model": "gpt-4o-mini", "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
c.setopt(c.POSTFIELDS, request(True))
for label in ("e200", "refused", "later"):
    if label == "later":  # a whole answer, not a stream: delivered by llmgate too
        time.sleep(1.5)
        c.setopt(c.POSTFIELDS, request(False))
    body, hdrs = io.BytesIO(), io.BytesIO()
    c.setopt(c.WRITEFUNCTION, body.write)
    c.setopt(c.HEADERFUNCTION, hdrs.write)
    c.perform()
    print(label, c.getinfo(c.RESPONSE_CODE), c.getinfo(c.HEADER_SIZE) == len(hdrs.getvalue()),
          c.getinfo(c.SIZE_DOWNLOAD) == len(body.getvalue()) > 0, repr(c.errstr()), c.getinfo(c.CONTENT_TYPE))
PY
out=$(KEY_ONE=sk-reuse-e200 LLMGATE_CONFIG="$LG_TMP/e200.json" LD_PRELOAD="$LG_LIB" /usr/bin/python3 "$LG_TMP/info.py" 2>&1)
check_eq "getinfo after shaped answers: sizes as delivered, no error text, llmgate's content type only for its own" \
"e200 429 True True '' application/json
refused 429 True True '' application/json
later 200 True True '' application/json; charset=utf-8" "$out"
lg_done
