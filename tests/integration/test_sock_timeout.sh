#!/usr/bin/env bash
# Issue 37, item 5: a blocking socket's SO_RCVTIMEO / SO_SNDTIMEO bound llmgate's waits as the program's own
# deadline. A C client (tests/clients/timeo_client.c) under the preload against the mock, whose only key
# answers 429 with Retry-After: 30: with SO_RCVTIMEO of 1 s its send returns at once and its recv ends in
# EAGAIN after about its second (as without llmgate), never after 30 s; so when the program set the limit
# before its connect or through a duplicate of its descriptor (llmgate notes a socket's limits when it follows
# it and again after the program's setsockopt, interposed). A wait shorter than the timeout is waited and the
# answer comes. A provider that answers slower than the timeout: each read ends in EAGAIN after about the
# timeout (not a read blocked inside llmgate until the answer), a later one gets the answer; the same over
# https (OpenSSL on the blocking socket: llmgate's reads of the answer never wait in the kernel).
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-long-wait": {"sequence": [{"error": "rate_limit", "retry_after_ms": 30000}]},
          "sk-short-wait": {"sequence": [{"error": "rate_limit", "retry_after_ms": 800}]},
          "sk-slow": {"sequence": [{"delay_ms": 3500}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
TIMEO=$LG_BUILD/clients/timeo_client
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
keys_seen() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "retry": {"max_rate_limit_wait_seconds": 60}}\n' "$MOCK_URL" >"$LG_TMP/cfg.json"
sed "s#\"$MOCK_URL\"#\"https://127.0.0.1:$MOCK_TLS_PORT\"#" "$LG_TMP/cfg.json" >"$LG_TMP/cfg-tls.json"
chmod 600 "$LG_TMP/cfg.json" "$LG_TMP/cfg-tls.json"
# run KEY RCV_MS SND_MS [READS]: the client under the preload (over https with PORT=443: the mock's TLS port
# by cfg-tls.json); its lines on one line.
run() {
    local port=${PORT:-80} cfg=cfg
    [ "$port" = 443 ] && cfg=cfg-tls
    K1=$1 LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 40 "$TIMEO" api.openai.com "$port" \
        /v1/chat/completions sk-host "$BODY" "$2" "$3" ${4:-} 2>"$LG_TMP/err" | tr '\n' ' '
}
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' <<<"$2"; }

# 1. SO_RCVTIMEO 1 s, Retry-After 30 s: EAGAIN after about a second.
t0=$(date +%s%3N)
out=$(run sk-long-wait 1000 0)
took=$(($(date +%s%3N) - t0))
diag "SO_RCVTIMEO 1 s: $out (the process took $took ms)"
check "SO_RCVTIMEO 1 s: the send returned at once ($(field send "$out") ms)" test "$(field send "$out")" -lt 500
check "SO_RCVTIMEO 1 s: recv ended in EAGAIN" test -n "$(field EAGAIN "$out")"
check "SO_RCVTIMEO 1 s: after about its second ($(field EAGAIN "$out") ms)" \
    test "$(field EAGAIN "$out")" -ge 900 -a "$(field EAGAIN "$out")" -lt 5000
check "SO_RCVTIMEO 1 s: the process never waited the 30 s ($took ms)" test "$took" -lt 10000
check_eq "SO_RCVTIMEO 1 s: the provider asked once, with the account's key" "sk-long-wait" "$(keys_seen)"
check_absent "SO_RCVTIMEO 1 s: no error" "$LG_TMP/err" "timeo_client"

# 1b. The same limit set before the connect (before llmgate follows the descriptor), and set after it through
#     a duplicate of the descriptor (llmgate noted the socket's limits, none, when it connected): each is seen.
for when in before dup; do
    fresh_store
    reset_mock
    out=$(TIMEO_SET=$when run sk-long-wait 1000 0)
    diag "SO_RCVTIMEO 1 s set $when: $out"
    check "SO_RCVTIMEO 1 s set $when: the send returned at once ($(field send "$out") ms)" \
        test "$(field send "$out")" -lt 500
    check "SO_RCVTIMEO 1 s set $when: recv ended in EAGAIN after about its second ($(field EAGAIN "$out") ms)" \
        test -n "$(field EAGAIN "$out")" -a "$(field EAGAIN "$out")" -ge 900 -a "$(field EAGAIN "$out")" -lt 5000
done

# 2. SO_SNDTIMEO 1 s, no receive timeout, Retry-After 0.8 s: the send returns at once, the recv gets the answer
#    after the wait.
fresh_store
reset_mock
out=$(run sk-short-wait 0 1000)
diag "SO_SNDTIMEO 1 s: $out"
check "SO_SNDTIMEO 1 s: the send returned at once ($(field send "$out") ms)" test "$(field send "$out")" -lt 500
check_eq "SO_SNDTIMEO 1 s: the answer, a 200, after the wait" 200 "$(field status "$out")"
check_eq "SO_SNDTIMEO 1 s: the provider asked twice" "sk-short-wait sk-short-wait" "$(keys_seen)"

# 3. SO_RCVTIMEO 5 s, Retry-After 0.8 s: a wait shorter than the timeout is waited; the answer comes.
fresh_store
reset_mock
out=$(run sk-short-wait 5000 0)
diag "SO_RCVTIMEO 5 s: $out"
check_eq "SO_RCVTIMEO 5 s, a 0.8 s wait: the answer, a 200" 200 "$(field status "$out")"
check "SO_RCVTIMEO 5 s: after the wait ($(awk '{print $NF}' <<<"$out") ms)" test "$(awk '{print $NF}' <<<"$out")" -ge 700

# 4. SO_RCVTIMEO 1 s, an answer after 3.5 s (the default attempt timeouts): the send returns at once, each read
#    ends in EAGAIN after about a second, a later one gets the answer; over http, then over https.
for PORT in 80 443; do
    what="SO_RCVTIMEO 1 s over $([ $PORT = 443 ] && echo https || echo http)"
    fresh_store
    reset_mock
    t0=$(date +%s%3N)
    out=$(run sk-slow 1000 0 20)
    took=$(($(date +%s%3N) - t0))
    diag "$what, a 3.5 s answer: $out (the process took $took ms)"
    read -r -a f <<<"$out"
    check "$what: the send returned at once (${f[1]} ms)" test "${f[1]}" -lt 500
    check_eq "$what: the first read ended in EAGAIN" EAGAIN "${f[2]}"
    check "$what: after about its second (${f[3]} ms), not the answer's 3.5 s" \
        test "${f[3]}" -ge 900 -a "${f[3]}" -lt 3000
    check_match "$what: a later read got the answer, a 200" "EAGAIN [0-9]+ status 200 " "$out"
    check_eq "$what: the provider asked once" "sk-slow" "$(keys_seen)"
    check_absent "$what: no error" "$LG_TMP/err" "timeo_client"
done
lg_done
