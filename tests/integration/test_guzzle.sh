#!/usr/bin/env bash
# PHP's Guzzle (Debian's php-guzzlehttp-guzzle, the real library) under the preload against the mock, the
# way PHP sites call LLM APIs (tests/clients/php/guzzle_client.php): one Client with the site's key.
# 1. $client->post() (CurlHandler, curl_exec), over http and https: the host sees the success, the mock the
#    pool's key, never the site's; llmgate status counts what the mock counted. Without a configuration,
#    CURLOPT_CONNECT_TO in Guzzle's curl options: the site's own key.
# 2. A 429 retried on the other key, and on a single key after the configured backoff: one 200. Also with
#    a body over 1 MB, which Guzzle hands libcurl through a read callback: llmgate holds it to send again.
# 3. Every key dry or limited past the wait: one normalized 429 (ClientException with http_errors, the
#    response without, a RequestException from the promise), with Retry-After, the reason, the JSON error.
# 4. Pool (concurrency 6) and Promise\Utils::settle (8 at once) over CurlMultiHandler, with 429s on both
#    keys: each promise fulfilled once with its own request's answer, nothing lost or sent twice.
# 5. Streams: 'stream' => true (StreamHandler: PHP's http stream wrapper over sockets and TLS) read line by
#    line as the mock sends it; the curl handler with a sink, on_headers and progress: the success alone.
# 6. Guzzle's RetryMiddleware on top: its retries do not multiply llmgate's (no storm at the mock): keys
#    cooling down, the breaker open.
# 7. A host of no provider, through the same Client: untouched (its key, its 429, one request each).
source "$(dirname "$0")/../lib.sh"
CHECKS=53
if ! command -v php >/dev/null || ! php -r 'require "GuzzleHttp/autoload.php"; new GuzzleHttp\Client();' 2>/dev/null; then
    skip "php or Guzzle not installed (make deps: php-cli php-curl php-guzzlehttp-guzzle)" "$CHECKS"
    lg_done
    exit
fi
RL429='{"status": 429, "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}'
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {
 "sk-gz-dead":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
 "sk-gz-dry":   {"sequence": [{"error": "quota"}], "repeat": true},
 "sk-gz-once":  {"sequence": [$RL429, {}]},
 "sk-gz-flaky": {"sequence": [{"error": "server_error"}, {}]},
 "sk-gz-down":  {"sequence": [{"error": "server_error"}], "repeat": true},
 "sk-gz-pa":    {"sequence": [{}, {}, {"error": "rate_limit", "retry_after_ms": 300}], "repeat": true},
 "sk-gz-pb":    {"sequence": [{}, {}, {}, {"error": "rate_limit", "retry_after_ms": 300}], "repeat": true},
 "sk-gz-sse":   {"sequence": [{"chunk": 48, "chunk_delay_ms": 20}], "repeat": true},
 "sk-gz-plain": {"sequence": [$RL429], "repeat": true}
}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --quiet --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
GC=$LG_ROOT/tests/clients/php/guzzle_client.php
# config NAME UPSTREAM MAX_WAIT_S ACCOUNTS: the openai provider on UPSTREAM with the accounts (K1, K2)
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$2", "accounts": [$4]}},
 "retry": {"switch_delay_ms": 20, "max_rate_limit_wait_seconds": $3}, "breaker": {"consecutive_failures": 3},
 "backoff": {"single_account_base_ms": 300, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
PAIR='{"name": "a", "key": "env:K1"}, {"name": "b", "key": "env:K2"}'
config http "$MOCK_URL" 1 "$PAIR"
config https "https://127.0.0.1:$MOCK_TLS_PORT" 1 "$PAIR"
config pool "$MOCK_URL" 10 "$PAIR"
config single "$MOCK_URL" 5 '{"name": "only", "key": "env:K1"}'
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
# gated CONFIG K1 K2 MODE ARGS...: guzzle_client.php under the preload after a fresh start; sets OUT and RC
gated() {
    local cfg=$1 k1=$2 k2=$3
    shift 3
    fresh
    OUT=$(K1=$k1 K2=$k2 LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 30 php "$GC" "$@" 2>"$LG_TMP/err")
    RC=$?
    [ "$RC" = 0 ] || diag "exit $RC: $(head -c 600 "$LG_TMP/err")"
}
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('$2', 0)"; }
acct() { "$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['$1']['$2']"; }
URL=http://api.openai.com/v1/chat/completions

# 1. sync posts, http and https: a dead key then the live one
for scheme in http https; do
    gated "$scheme" sk-gz-dead sk-gz-good sync "$scheme://api.openai.com/v1/chat/completions" 3
    check_eq "1 sync $scheme: three 200s from the live key" "$(printf '200 sk-gz-good gpt-4o-mini\n%.0s' 1 2 3)" "$OUT"
    check_eq "1 sync $scheme: the mock got the dead key, then the live one; never the site's" \
        "sk-gz-dead sk-gz-good sk-gz-good sk-gz-good" "$(reqkeys)"
    check_eq "1 sync $scheme: status counts the live key's requests and tokens as the mock did" \
        "3 $(stat_of sk-gz-good tokens)" "$(acct b requestsUsed) $(acct b tokensUsed)"
done
OUT=$(fresh; HOST_KEY=sk-gz-own CONNECT_TO="api.openai.com:80:127.0.0.1:$MOCK_PORT" LD_PRELOAD=$LG_LIB timeout 30 php "$GC" sync "$URL" 2 2>"$LG_TMP/err")
check_eq "1 sync, no configuration, CURLOPT_CONNECT_TO: two 200s with the site's own key" \
    "$(printf '200 sk-gz-own gpt-4o-mini\n%.0s' 1 2)" "$OUT"
check_match "1 sync, no configuration: status shows the preset's requests" $'\n  [^ ]+ +2/' "$("$LG_CLI" status)"

# 2. a 429 retried: on the other key, then on the only key after its backoff (300 ms, no hint)
gated http sk-gz-once sk-gz-good sync "$URL" 1
check_eq "2 a 429 on the first key: Guzzle sees one 200, from the other" "200 sk-gz-good gpt-4o-mini" "$OUT"
check_eq "2 a 429 on the first key: the mock got it, then the other key" "sk-gz-once sk-gz-good" "$(reqkeys)"
gated single sk-gz-once - sync "$URL" 1
check_eq "2 a 429 on the only key: Guzzle sees one 200" "200 sk-gz-once gpt-4o-mini" "$OUT"
gap=$(lg_arrivals sk-gz-once | paste -sd' ' | awk '{ print NF == 2 ? $2 - $1 : -1 }')
check "2 a 429 on the only key: two attempts, the second after the 300 ms backoff (${gap} ms)" test "$gap" -ge 290

# 2b. a body of 1.5 MB, which Guzzle hands libcurl through a read callback (without a seek callback): held
# by llmgate, so that the 429 is retried on the other key as for a smaller body; the model pinned to the
# provider ("gpt-4o-mini:openai"): the pin taken off the held body, its length with it
reqbodies() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] + ":" + r["body_sha256"] for r in j)'; }
for how in sync async; do
    gated http sk-gz-once sk-gz-good big "$URL" 1500000 "$how"
    sha=$(awk '{ print $5 }' <<<"$OUT")
    check_eq "2b a 1.5 MB body ($how), a 429 on the first key: Guzzle sees one 200, from the other" \
        "big 200 sk-gz-good gpt-4o-mini $sha" "$OUT"
    check_eq "2b a 1.5 MB body ($how): both keys got it whole" "sk-gz-once:$sha sk-gz-good:$sha" "$(reqbodies)"
done
gated http sk-gz-once sk-gz-good big "$URL" 1500000 sync gpt-4o-mini:openai
sha=$(php -r 'echo hash("sha256", json_encode(["model" => "gpt-4o-mini", "max_tokens" => 16,
    "messages" => [["role" => "user", "content" => str_repeat("y", 1500000)]]]));')
check_match "2b a 1.5 MB body pinned to the provider: one 200, the pin taken off" '^big 200 sk-gz-good gpt-4o-mini ' "$OUT"
check_eq "2b a 1.5 MB body pinned to the provider: both keys got the body without the pin" \
    "sk-gz-once:$sha sk-gz-good:$sha" "$(reqbodies)"

# 3. the wait exhausted: every key out of credit (insufficient_quota: set aside for backoff.billing_ms, 4 h); every key limited for 20 s with 1 s allowed
gated http sk-gz-dry sk-gz-dry errors "$URL"
check_eq "3 quota: one normalized 429 each way, as exception and as response" \
    "on GuzzleHttp\\Exception\\ClientException 429 retry_after=14400 reason=QUOTA_EXHAUSTED type=insufficient_quota
off none 429 retry_after=14400 reason=QUOTA_EXHAUSTED type=insufficient_quota
async GuzzleHttp\\Exception\\ClientException 429 retry_after=14400 reason=QUOTA_EXHAUSTED type=insufficient_quota" "$OUT"
check_eq "3 quota: each key once, the later requests answered by llmgate" "sk-gz-dry sk-gz-dry" "$(reqkeys)"
gated http sk-gz-dead sk-gz-dead errors "$URL"
check_match "3 rate limited past the wait: a ClientException with the 429, its Retry-After and reason" \
    '^on GuzzleHttp\\Exception\\ClientException 429 retry_after=(19|20) reason=RATE_LIMIT_EXCEEDED type=requests$' "$(sed -n 1p <<<"$OUT")"
check_match "3 rate limited past the wait: the same response with http_errors off" \
    '^off none 429 retry_after=(19|20) reason=RATE_LIMIT_EXCEEDED type=requests$' "$(sed -n 2p <<<"$OUT")"
check_match "3 rate limited past the wait: the same through a promise" \
    '^async GuzzleHttp\\Exception\\ClientException 429 retry_after=(19|20) reason=RATE_LIMIT_EXCEEDED type=requests$' "$(sed -n 3p <<<"$OUT")"
check_eq "3 rate limited past the wait: each key once" "sk-gz-dead sk-gz-dead" "$(reqkeys)"

# 4. 20 requests through a Pool 6 at a time, then 6 at once through Promise\Utils::settle; both keys
# answer a 429 now and then
N=20 C=6
gated pool sk-gz-pa sk-gz-pb pool "$URL" $N $C
check_eq "4 pool: every promise fulfilled once, with a 200" "$(seq 0 $((N + C - 1)) | sed 's/$/ 200/')" \
    "$(awk '{ print $2, $3 }' <<<"$OUT" | sort -n)"
check_eq "4 pool: each answer is its own request's (the model it sent)" "" "$(awk '$4 != "gpt-4o-mini-r" $2' <<<"$OUT")"
check_eq "4 pool: the first $N through the Pool, the last $C through settle" "$N $C" \
    "$(grep -c '^pool ' <<<"$OUT") $(grep -c '^all ' <<<"$OUT")"
check "4 pool: the keys answered 429s ($(stat_of sk-gz-pa rate_limited) and $(stat_of sk-gz-pb rate_limited))" \
    test "$(stat_of sk-gz-pa rate_limited)" -ge 1 -a "$(stat_of sk-gz-pb rate_limited)" -ge 1
check_eq "4 pool: the mock served each request once (successes)" $((N + C)) "$(lg_stats | lg_json 'j["total"]["success"]')"
tags=$(lg_stats | lg_json '" ".join("%s:%d" % (t[4:], n) for t, n in sorted(j["tags"].items(), key=lambda t: int(t[0][4:])))')
check_eq "4 pool: each host got the answer to its request's last attempt (tag counts)" "$tags" \
    "$(awk '{ print $2 ":" $5 }' <<<"$OUT" | sort -n | paste -sd' ')"
check_eq "4 pool: only the pool's keys reached the mock" "sk-gz-pa sk-gz-pb" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(sorted(set(r["key"] for r in j)))')"

# 5. streams: the StreamHandler (http and https), the curl handler with sink, on_headers and progress; the
# first key's 429 is retried before anything reaches Guzzle
for scheme in http https; do
    gated "$scheme" sk-gz-dead sk-gz-sse stream "$scheme://api.openai.com/v1/chat/completions"
    check_match "5 stream $scheme: a 200 with the whole event stream, [DONE] last" \
        '^stream 200 lines=[0-9]+ spread_ms=[0-9]+ intact=yes body=data: \{.*"mock_key":"sk-gz-sse".*data: \[DONE\]\\n\\n$' "$OUT"
    spread=$(sed -n 's/.* spread_ms=\([0-9]*\) .*/\1/p' <<<"$OUT")
    check "5 stream $scheme: read as it came (${spread:-?} ms from the first data line to the last; the mock takes ~450)" \
        test "${spread:-0}" -ge 150
    check_eq "5 stream $scheme: the dead key, then the live one" "sk-gz-dead sk-gz-sse" "$(reqkeys)"
done
gated http sk-gz-dead sk-gz-sse sink "$URL"
check_match "5 sink: a 200, on_headers once for it (an event stream), the stream whole" \
    '^sink 200 writes=[0-9]+ on_headers=1:200:text/event-stream progress=[0-9]+ intact=yes body=data: .*data: \[DONE\]\\n\\n$' "$OUT"
check "5 sink: written as it came ($(sed -n 's/.* \(writes=[0-9]*\) .*/\1/p' <<<"$OUT"))" \
    test "$(sed -n 's/.* writes=\([0-9]*\) .*/\1/p' <<<"$OUT")" -ge 5
check "5 sink: the progress callback heard ($(sed -n 's/.* \(progress=[0-9]*\) .*/\1/p' <<<"$OUT"))" \
    test "$(sed -n 's/.* progress=\([0-9]*\) .*/\1/p' <<<"$OUT")" -ge 2
check_eq "5 sink: the dead key, then the live one" "sk-gz-dead sk-gz-sse" "$(reqkeys)"

# 6. Guzzle's RetryMiddleware over llmgate: retries on 429 and 5xx do not multiply at the mock
gated http sk-gz-dry sk-gz-dry retry "$URL"
check_eq "6 retry middleware, every key dry: Guzzle tries 4 times, gets the normalized 429" \
    "retry 429 tries=4 reason=QUOTA_EXHAUSTED" "$OUT"
check_eq "6 retry middleware, every key dry: the mock got each key once, not once per Guzzle try" 2 "$(stat_of sk-gz-dry requests)"
gated http sk-gz-dead sk-gz-dead retry "$URL"
check_eq "6 retry middleware, every key limited: Guzzle tries 4 times" "retry 429 tries=4 reason=RATE_LIMIT_EXCEEDED" "$OUT"
check_eq "6 retry middleware, every key limited: the mock got each key once" 2 "$(stat_of sk-gz-dead requests)"
gated single sk-gz-flaky - retry "$URL"
check_eq "6 retry middleware, a 500 llmgate retries itself: Guzzle sees a 200 at its first try" "retry 200 tries=1 reason=-" "$OUT"
check_eq "6 retry middleware, a 500: two requests at the mock" 2 "$(stat_of sk-gz-flaky requests)"
gated single sk-gz-down - retry "$URL"
check_eq "6 retry middleware, the provider down: Guzzle tries 4 times, the last answered by the open breaker" \
    "retry 503 tries=4 reason=circuit_open" "$OUT"
check_eq "6 retry middleware, the provider down: the mock got the breaker's 3 failures, not 4 times llmgate's retries" \
    3 "$(stat_of sk-gz-down requests)"

# 7. the same Client to a host of no provider (the mock's own address): the site's key, its 429 as sent
OUT=$(fresh; K1=sk-gz-good K2=sk-gz-good HOST_KEY=sk-gz-plain LLMGATE_CONFIG=$LG_TMP/http.json LD_PRELOAD=$LG_LIB timeout 30 \
      php "$GC" plain "$URL" "$MOCK_URL/v1/chat/completions" 2>"$LG_TMP/err")
check_eq "7 other host: the provider's request gated, the other host's 429s passed as sent" \
    "plain 200 sk-gz-good -
plain 429 sk-gz-plain -
plain 429 sk-gz-plain -" "$OUT"
check_eq "7 other host: one request each, with the site's own key" "sk-gz-good sk-gz-plain sk-gz-plain" "$(reqkeys)"
want=$(printf %s '{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}' | sha256sum | cut -d' ' -f1)
check_eq "7 other host: its requests' bodies and headers as Guzzle wrote them" \
    "$want Bearer sk-gz-plain 127.0.0.1:$MOCK_PORT
$want Bearer sk-gz-plain 127.0.0.1:$MOCK_PORT" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json '"\n".join(r["body_sha256"] + " " + r["headers"]["authorization"] + " " + r["headers"]["host"] for r in j[1:])')"

check_no_key "no key in the shared store or the state directory" "sk-gz-good sk-gz-plain" \
    "$XDG_RUNTIME_DIR/llmgate"
lg_done
