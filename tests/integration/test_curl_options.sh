#!/usr/bin/env bash
# libcurl options the other scripts do not exercise, under the preload against the mock provider.
# 1-3: a host's progress callback (CURLOPT_XFERINFOFUNCTION, PHP's CURLOPT_PROGRESSFUNCTION) that asks to
# abort is heard while llmgate waits between attempts or for the limiter, on the easy and the multi API:
# the host gets CURLE_ABORTED_BY_CALLBACK within about a second, as from libcurl, not after the whole wait.
# 4: options whose answer must be what the host would get from the provider directly (tests/clients/
# options_client.c run gated and straight at the mock with the account's key).
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-opt-backoff": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}, {}]},
          "sk-opt-patient": {"sequence": [{"error": "rate_limit", "retry_after_ms": 2500}, {}]},
          "sk-opt-twice": {"sequence": [{"error": "rate_limit", "retry_after_ms": 1500},
                                        {"error": "rate_limit", "retry_after_ms": 1500}, {}]},
          "sk-opt-locked": {"sequence": [{"error": "rate_limit", "retry_after_ms": 3600000}], "repeat": true}}}
JSON
lg_start_mock --quiet --scenario "$LG_TMP/scenario.json"
export KEY_TWICE=sk-opt-twice KEY_BACKOFF=sk-opt-backoff KEY_PATIENT=sk-opt-patient KEY_LOCKED=sk-opt-locked KEY_GOOD=sk-opt-good
# config NAME KEYVAR [LIMITS]: one account, a minute of waiting allowed
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:$2"}]${3:+, \"limits\": $3}}},
 "retry": {"max_rate_limit_wait_seconds": 60}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
config backoff KEY_BACKOFF
config patient KEY_PATIENT
config locked KEY_LOCKED
config twice KEY_TWICE
config good KEY_GOOD
config paced KEY_GOOD '{"rpm": 1, "window_ms": 20000}'
gated() { LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB "${@:2}"; }
URL=http://api.openai.com/v1/chat/completions
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
reqlog() { curl -s "$MOCK_URL/__requests" | lg_json "$1"; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# options_client CONFIG CASE: the client gated, on the provider's URL with the host's own key
options() { gated "$1" "$LG_BUILD/clients/options_client" "$2" "$URL" "api.openai.com:80:127.0.0.1:$MOCK_PORT" sk-host-own 2>/dev/null; }

# 1. PHP, curl_exec: CURLOPT_PROGRESSFUNCTION returns 1 a second after the start, while llmgate backs off for
# the provider's 20 s hint
cat >"$LG_TMP/progress.php" <<'PHP'
<?php
[, $url, $body, $abort_after, $port] = $argv;
$t0 = microtime(true);
$calls = 0;
$ch = curl_init($url);
curl_setopt_array($ch, [CURLOPT_POSTFIELDS => $body, CURLOPT_RETURNTRANSFER => true,
    CURLOPT_CONNECT_TO => ["api.openai.com:80:127.0.0.1:$port"],
    CURLOPT_HTTPHEADER => ['Authorization: Bearer sk-host-own', 'Content-Type: application/json'],
    CURLOPT_NOPROGRESS => false,
    CURLOPT_PROGRESSFUNCTION => function ($c, $dt, $dn, $ut, $un) use ($t0, $abort_after, &$calls) {
        $calls++;
        return microtime(true) - $t0 > $abort_after ? 1 : 0;
    }]);
$out = curl_exec($ch);
printf("%d %s %d %s|%d\n", curl_errno($ch), curl_error($ch), curl_getinfo($ch, CURLINFO_HTTP_CODE),
       substr((string)$out, 0, 20), $calls);
PHP
fresh
start=$(date +%s%N)
out=$(gated backoff php "$LG_TMP/progress.php" "$URL" "$BODY" 1.0 "$MOCK_PORT" 2>/dev/null)
ms=$(ms_since "$start")
check_eq "PHP progress abort during a backoff: curl_errno 42, libcurl's message, no response" \
    "42 Callback aborted 0 " "${out%|*}"
check "PHP progress abort during a backoff: within a second of asking, not after the 20 s hint (${ms} ms)" test "$ms" -lt 3000
check_eq "PHP progress abort during a backoff: one request at the provider, with the account's key" "sk-opt-backoff" \
    "$(reqlog '" ".join(r["key"] for r in j)')"
# a callback that never aborts is called all through a 2.5 s backoff, and the host is served after it
fresh
out=$(gated patient php "$LG_TMP/progress.php" "$URL" "$BODY" 1000 "$MOCK_PORT" 2>/dev/null)
check_match "PHP progress callback that never aborts: served after the backoff" '^0  200 \{"id":"chatcmpl' "${out%|*}"
check "PHP progress callback that never aborts: asked during the wait (${out#*|} calls)" test "${out#*|}" -ge 5

# 2. pycurl, CURLOPT_XFERINFOFUNCTION: the second request waits for the limiter (1 request a minute); the
# callback aborts it after a second
cat >"$LG_TMP/xferinfo.py" <<'PY'
import io, sys, time, pycurl
url, body, port = sys.argv[1:4]
for i in range(2):
    c = pycurl.Curl()
    c.setopt(c.URL, url)
    c.setopt(c.CONNECT_TO, ["api.openai.com:80:127.0.0.1:" + port])
    c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host-own", "Content-Type: application/json"])
    c.setopt(c.POSTFIELDS, body)
    c.setopt(c.WRITEDATA, io.BytesIO())
    t0 = time.monotonic()
    c.setopt(c.NOPROGRESS, 0)
    c.setopt(c.XFERINFOFUNCTION, lambda *a: 1 if time.monotonic() - t0 > 1.0 else 0)
    try:
        c.perform()
        rc = 0
    except pycurl.error as e:
        rc = e.args[0]
    print(rc, c.getinfo(c.RESPONSE_CODE), int((time.monotonic() - t0) * 1000))
PY
fresh
out=$(gated paced /usr/bin/python3 "$LG_TMP/xferinfo.py" "$URL" "$BODY" "$MOCK_PORT" 2>/dev/null)
check_eq "pycurl xferinfo abort while the limiter holds the request: served, then 42 with no response" "0 200,42 0" \
    "$(cut -d' ' -f1-2 <<<"$out" | paste -sd,)"
ms=$(sed -n 2p <<<"$out" | cut -d' ' -f3)
check "pycurl xferinfo abort while the limiter holds the request: within a second of asking (${ms:-?} ms)" test "${ms:-99999}" -lt 2000
check_eq "pycurl xferinfo abort: only the first request reached the provider" 1 "$(reqlog 'len(j)')"

# 3. the multi API (tests/clients/multi_client.c -A): a transfer backing off is ended by its progress
# callback, through curl_multi_poll and through socket_action with a timer callback
for mode in poll socket; do
    fresh
    out=$(gated backoff "$LG_BUILD/clients/multi_client" -m "$mode" -n 1 -A 1000 -T 5000 \
        -H 'Authorization: Bearer sk-host-own' -H 'Content-Type: application/json' -d "$BODY" "$URL" 2>/dev/null)
    check_match "multi ($mode): progress abort during a backoff ends the transfer with 42 and no response" \
        'xfer=0 kind=provider result=42 status=0 bytes=0' "$out"
    done_ms=$(sed -n 's/.*done_ms=\([0-9]*\).*/\1/p' <<<"$out")
    check "multi ($mode): within a second of asking, not after the 20 s hint (${done_ms:-?} ms)" test "${done_ms:-99999}" -lt 2000
    check_eq "multi ($mode): one request at the provider" 1 "$(reqlog 'len(j)')"
done

# 4. options answered as the provider would: each case run gated (the host's own key on the provider's URL)
# and straight at the mock with the account's key; the lines (ids and dates aside) and what the mock
# received (method, body digest, key) must be the same (sizes aside: the mock's ids grow by one digit now
# and then; test_curl_cli checks what getinfo reports of sizes)
client() { # CONFIG CASE KEY URL
    local cmd=("$LG_BUILD/clients/options_client" "$2" "$4" "api.openai.com:80:127.0.0.1:$MOCK_PORT" "$3")
    fresh
    if [ "$1" = - ]; then "${cmd[@]}"; else gated "$1" "${cmd[@]}" 2>/dev/null; fi |
        sed -e 's/chatcmpl-mock-[0-9]*//' -e 's/"created":[0-9]*//' -e 's/\(body=.\{0,50\}\).*/\1/' -e 's/\(dl\|hdr\|got\)=[0-9]*/\1=N/g'
    reqlog '" ".join(r["method"] + ":" + r["body_sha256"][:8] + ":" + r["key"] for r in j)'
}
same() { # DESC CONFIG CASE KEY
    local got want
    got=$(client "$2" "$3" sk-host-own "$URL")
    want=$(client - "$3" "$4" "$MOCK_URL/v1/chat/completions")
    check_eq "$1" "$want" "$got"
}
same "POSTFIELDS rewritten in place between performs: the new body goes out" good mutate sk-opt-good
same "CURLOPT_HTTPGET after a POST on the same handle: a GET without a body" good httpget sk-opt-good
# a body from a read callback without a seek callback is held by llmgate (its reader on the handle); the
# handle then sent to no provider's host reads the body from the host's own callback again
fresh
out=$(options good readplain)
check_eq "read callback body, then the handle to another host: both served" "provider rc=0 code=200,plain rc=0 code=200" \
    "$(cut -d' ' -f1-3 <<<"$out" | paste -sd,)"
check_eq "read callback body, then the handle to another host: the whole body both times, each with its key" \
    "$(printf %s "$BODY" | sha256sum | cut -c1-8):sk-opt-good $(printf %s "$BODY" | sha256sum | cut -c1-8):sk-host-own" \
    "$(reqlog '" ".join(r["body_sha256"][:8] + ":" + r["key"] for r in j)')"
same "CURLOPT_NOBODY: a HEAD request" good nobody sk-opt-good
same "curl_easy_duphandle after a perform: the duplicate and the original are both served" good dup sk-opt-good
same "a body from a read callback, with and without a seek callback" good readfn sk-opt-good
same "a write callback that takes nothing: CURLE_WRITE_ERROR" good short sk-opt-good
same "CURLOPT_MAXFILESIZE below the answer: CURLE_FILESIZE_EXCEEDED" good maxfile sk-opt-good

# 5. curl_easy_duphandle of a handle whose multi transfer waits between attempts (429, 429, then 200): the
# transfer keeps llmgate's capture (its host gets the success alone, not the second 429's body before it),
# the duplicate gets the host's own options and is gated by itself
fresh
out=$(options twice dupwait)
check_match "duphandle while the multi transfer waits: the host gets the success alone" \
    '^multi rc=0 code=200 dl=([0-9]+) hdr=[0-9]+ type=application/json; charset=utf-8 err=\[\] got=\1 body=\{"id":"chatcmpl' \
    "$(sed -n 1p <<<"$out")"
check_match "duphandle while the multi transfer waits: the duplicate is served" '^dup rc=0 code=200 ' "$(sed -n 2p <<<"$out")"
check_eq "duphandle while the multi transfer waits: three attempts and the duplicate's request, all with the account's key" \
    "sk-opt-twice sk-opt-twice sk-opt-twice sk-opt-twice" "$(reqlog '" ".join(r["key"] for r in j)')"

lg_done
