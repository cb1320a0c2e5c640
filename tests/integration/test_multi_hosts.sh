#!/usr/bin/env bash
# Real hosts of libcurl's multi API under the preload, against the mock with a dead first key and a live
# second one: curl -Z --parallel-max 6 over http and https, HTTP/2 streams on one connection (nghttpd),
# a held stream retried on the multi API, pycurl's CurlMulti, and
# PHP (curl_exec and curl_multi_exec: PHP loads its curl extension with RTLD_DEEPBIND). Every transfer
# succeeds, on the live key, and the host's own key never reaches the mock.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
C=$LG_TMP/certs
F=$LG_ROOT/tests/fixtures/streams
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {"sk-dead": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-err-start": {"sequence": [{"fixture": "$F/anthropic_error_at_start.json"},
                                        {"fixture": "$F/anthropic_multibyte.json", "chunk": 5, "chunk_delay_ms": 1}]}}}
JSON
lg_start_mock --tls-port 0 --cert "$C/server.pem" --key "$C/server.key" --scenario "$LG_TMP/scenario.json"
export KEY_DEAD=sk-dead KEY_GOOD=sk-good
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
N=8
exec 2>"$LG_TMP/stderr" # curl -Z draws its progress meter on stderr even with -s

# config UPSTREAM: the openai provider on the mock, dead key first.
config() {
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$1",
   "accounts": [{"name": "dead", "key": "env:KEY_DEAD"}, {"name": "good", "key": "env:KEY_GOOD"}]}},
 "retry": {"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 20}}
JSON
    chmod 600 "$LG_TMP/config.json"
    export LLMGATE_CONFIG=$LG_TMP/config.json
}
fresh() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
# mock_saw WHAT: every request on the live key succeeded, the dead key was tried, the host's key never came.
mock_saw() {
    local reqs stats
    reqs=$(curl -s "$MOCK_URL/__requests")
    stats=$(lg_stats)
    check_eq "$1: $2 answered on the live key" "$2" "$(lg_json 'j["keys"].get("sk-good", {}).get("success", 0)' <<<"$stats")"
    check "$1: the dead key was tried first" test "$(lg_json 'j["keys"].get("sk-dead", {}).get("requests", 0)' <<<"$stats")" -ge 1
    check_eq "$1: the host's own key never reached the mock" "0" "$(lg_json 'sum(r["key"] == "sk-host" for r in j)' <<<"$reqs")"
}

# curl -Z: 8 provider transfers and one plain one, 6 at a time
curl_z() { # SCHEME-URL EXTRA-ARGS...
    local url=$1 args=() i
    shift
    for i in $(seq 1 $N); do
        args+=(-H 'Authorization: Bearer sk-host' -d "$BODY" -o "$LG_TMP/z$i" -w '%{http_code} %{exitcode}\n' "$@" "$url" --next)
    done
    LD_PRELOAD=$LG_LIB timeout 60 curl -s -Z --parallel-max 6 "${args[@]}" -o /dev/null -w 'plain %{http_code}\n' "$MOCK_URL/__stats"
}
config "$MOCK_URL"
fresh
out=$(curl_z "$URL")
check_eq "curl -Z http: every transfer 200 with exit code 0" "$N" "$(grep -c '^200 0$' <<<"$out")"
check_eq "curl -Z http: the plain transfer too" "plain 200" "$(grep plain <<<"$out")"
check_eq "curl -Z http: every body is a completion" "$N" "$(cat "$LG_TMP"/z* | grep -o '"object":"chat.completion"' | wc -l)"
mock_saw "curl -Z http" $N

config "https://127.0.0.1:$MOCK_TLS_PORT"
fresh
out=$(curl_z "https://api.openai.com/v1/chat/completions" --cacert "$C/ca.pem" --http2)
check_eq "curl -Z https: every transfer 200 with exit code 0" "$N" "$(grep -c '^200 0$' <<<"$out")"
mock_saw "curl -Z https" $N
# direct (no upstream): curl itself reaches the mock's TLS port and verifies the provider's certificate
# (curl offers HTTP/2; the mock, on libmicrohttpd, answers HTTP/1.1)
config_direct() {
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"accounts": [{"name": "dead", "key": "env:KEY_DEAD"}, {"name": "good", "key": "env:KEY_GOOD"}]}},
 "retry": {"switch_delay_ms": 20}}
JSON
}
config_direct
fresh
out=$(curl_z "https://api.openai.com:$MOCK_TLS_PORT/v1/chat/completions" --cacert "$C/ca.pem" \
      --resolve "api.openai.com:$MOCK_TLS_PORT:127.0.0.1" --http2)
check_eq "curl -Z https direct: every transfer 200" "$N" "$(grep -c '^200 0$' <<<"$out")"
mock_saw "curl -Z https direct" $N

# a request that cannot succeed: one DONE with the code one attempt would have had (-f: 22) and the
# normalized 429 (Retry-After, X-Llmgate-Reason) in its headers
cat >"$LG_TMP/dead.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "dead", "key": "env:KEY_DEAD"}]}},
 "retry": {"max_rate_limit_wait_seconds": 1}}
JSON
chmod 600 "$LG_TMP/dead.json"
fresh
out=$(LLMGATE_CONFIG=$LG_TMP/dead.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -Z -f -D "$LG_TMP/dead.hdr" -o /dev/null \
      -w '%{http_code} %{exitcode}\n' -H 'Authorization: Bearer sk-host' -d "$BODY" "$URL" --next -o /dev/null "$MOCK_URL/__stats")
check_eq "curl -Z -f, every key dead: 429 and curl's exit code 22" "429 22" "$out"
check_match "curl -Z -f, every key dead: normalized headers" 'X-Llmgate-Reason: QUOTA_EXHAUSTED' "$(cat "$LG_TMP/dead.hdr")"

# a stream on the multi API: its start is held, the error it opens with is retried invisibly, and the host
# gets exactly the bytes of the good stream
cat >"$LG_TMP/stream.json" <<JSON
{"providers": {"anthropic": {"upstream": "$MOCK_URL", "accounts": [{"name": "s", "key": "sk-err-start"}]}},
 "backoff": {"single_account_base_ms": 50}}
JSON
chmod 600 "$LG_TMP/stream.json"
fresh
LLMGATE_CONFIG=$LG_TMP/stream.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -Z -o "$LG_TMP/stream.out" \
    -H 'x-api-key: sk-host' -d '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[]}' \
    http://api.anthropic.com/v1/messages --next -o /dev/null "$MOCK_URL/__stats"
check_eq "curl -Z stream: the host got the good stream, byte for byte" \
    "$(/usr/bin/python3 -c "import json; print(json.load(open('$F/anthropic_multibyte.json'))['body'], end='')" | md5sum)" \
    "$(md5sum <"$LG_TMP/stream.out")"
check_eq "curl -Z stream: two attempts reached the mock" 2 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"

# HTTP/2 multiplexing: nghttpd (nghttp2-server) serves a completion over h2; curl -Z sends 6 provider
# transfers as streams of one connection, each its own exchange, each with the account's key
mkdir -p "$LG_TMP/h2/v1/chat"
printf '{"id":"chatcmpl-h2","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}' \
    >"$LG_TMP/h2/v1/chat/completions"
H2PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nghttpd -v -d "$LG_TMP/h2" "$H2PORT" "$C/server.key" "$C/server.pem" >>"$LG_TMP/h2.log" 2>&1 &
LG_MOCK_PIDS+=("$!")
for i in $(seq 1 100); do curl -s -o /dev/null --cacert "$C/ca.pem" --resolve "api.openai.com:$H2PORT:127.0.0.1" "https://api.openai.com:$H2PORT/" && break; sleep 0.05; done
cat >"$LG_TMP/h2.json" <<JSON
{"providers": {"openai": {"accounts": [{"name": "good", "key": "env:KEY_GOOD"}]}}}
JSON
chmod 600 "$LG_TMP/h2.json"
args=()
for i in 1 2 3 4 5 6; do
    args+=(-H 'Authorization: Bearer sk-host' -d "$BODY" -o /dev/null -w '%{http_code} %{http_version} %{exitcode} %{num_connects}\n'
           --cacert "$C/ca.pem" --resolve "api.openai.com:$H2PORT:127.0.0.1" "https://api.openai.com:$H2PORT/v1/chat/completions" --next)
done
: >"$LG_TMP/h2.log"
out=$(LLMGATE_CONFIG=$LG_TMP/h2.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -Z --http2 "${args[@]}" -o /dev/null "$MOCK_URL/__stats")
check_eq "curl -Z over HTTP/2: 6 streams answered 200 over h2" 6 "$(grep -c '^200 2 0 ' <<<"$out")"
check_eq "curl -Z over HTTP/2: multiplexed on one connection" 1 "$(awk '{n += $4} END {print n}' <<<"$out")"
check_eq "curl -Z over HTTP/2: every stream carried the account's key, none the host's" "6 0" \
    "$(grep -ci 'authorization: Bearer sk-good' "$LG_TMP/h2.log") $(grep -ci 'sk-host' "$LG_TMP/h2.log")"

# pycurl's CurlMulti (Debian's python3-pycurl, on libcurl's multi API)
config "$MOCK_URL"
fresh
out=$(LD_PRELOAD=$LG_LIB timeout 60 /usr/bin/python3 - "$URL" "$BODY" "$MOCK_URL/__stats" <<'PY'
import io, sys, pycurl
url, body, plain = sys.argv[1:4]
m = pycurl.CurlMulti()
handles = []
for i in range(5):
    c, buf = pycurl.Curl(), io.BytesIO()
    c.setopt(c.URL, plain if i == 4 else url)
    if i < 4:
        c.setopt(c.POSTFIELDS, body)
        c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-host", "Content-Type: application/json"])
    c.setopt(c.WRITEDATA, buf)
    m.add_handle(c)
    handles.append((c, buf))
done = []
while len(done) < len(handles):
    while m.perform()[0] == pycurl.E_CALL_MULTI_PERFORM:
        pass
    n, ok, err = m.info_read()
    done += [(c, 0) for c in ok] + [(c, e) for c, e, _ in err]
    if len(done) < len(handles):
        m.select(1.0)
for c, buf in handles:
    print(c.getinfo(c.RESPONSE_CODE), len(buf.getvalue()) > 0, "chat.completion" in buf.getvalue().decode())
print("errors", sum(1 for _, e in done if e))
PY
)
check_eq "pycurl CurlMulti: 4 completions and the plain transfer" "$(printf '200 True True\n%.0s' 1 2 3 4)
200 True False
errors 0" "$out"
mock_saw "pycurl CurlMulti" 4

# PHP: curl_exec and curl_multi_exec
fresh
cat >"$LG_TMP/t.php" <<'PHP'
<?php
[$url, $body] = [$argv[1], $argv[2]];
function mk($url, $body) {
    $c = curl_init($url);
    curl_setopt_array($c, [CURLOPT_RETURNTRANSFER => true, CURLOPT_POSTFIELDS => $body,
                           CURLOPT_HTTPHEADER => ["Authorization: Bearer sk-host", "Content-Type: application/json"]]);
    return $c;
}
$c = mk($url, $body);
$r = curl_exec($c);
echo "exec ", curl_getinfo($c, CURLINFO_RESPONSE_CODE), " ", json_decode($r)->object, "\n";
$m = curl_multi_init();
$hs = [];
for ($i = 0; $i < 4; $i++) { $hs[] = $h = mk($url, $body); curl_multi_add_handle($m, $h); }
do { $st = curl_multi_exec($m, $running); if ($running) curl_multi_select($m, 1.0); } while ($running && $st == CURLM_OK);
while ($info = curl_multi_info_read($m)) echo "done ", $info["result"], "\n";
foreach ($hs as $h) echo "multi ", curl_getinfo($h, CURLINFO_RESPONSE_CODE), " ", json_decode(curl_multi_getcontent($h))->object, "\n";
PHP
out=$(LD_PRELOAD=$LG_LIB timeout 60 php "$LG_TMP/t.php" "$URL" "$BODY" 2>&1)
# The dead key is out of credit (insufficient_quota): llmgate says so once, on stderr, before the answers.
credit='llmgate: openai: account dead is out of credit (billing), set aside for 240 min or until `llmgate reset openai/dead`'
check_eq "PHP: the dead key's credit line, once" "$credit" "$(grep '^llmgate: ' <<<"$out")"
out=$(grep -v '^llmgate: ' <<<"$out")
check_eq "PHP: curl_exec and curl_multi_exec gated, one DONE each" "exec 200 chat.completion
$(printf 'done 0\n%.0s' 1 2 3 4)
$(printf 'multi 200 chat.completion\n%.0s' 1 2 3)
multi 200 chat.completion" "$out"
mock_saw "PHP" 5
lg_done
