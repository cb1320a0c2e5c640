#!/usr/bin/env bash
# Python hosts (/usr/bin/python3, tests/clients/py/edge_clients.py) doing what the other socket tests do not,
# over http and https: a request body sent with socket.sendfile (os.sendfile over http: the body used to reach
# the provider ahead of the head llmgate held, and the host hung); chunked, empty, GET and HEAD requests on
# one kept-alive connection; the host's own 2 s timeout while llmgate waits 20 s for a rate-limited account
# (requests, httpx, aiohttp: their own timeout error in about 2 s); event loops on epoll (a hand-written
# selectors.EpollSelector client, aiohttp) while the exchange backs off after a 429 that closed the
# connection: the descriptor, readable in the kernel (the provider's end), used to end every epoll_wait at
# once, the loop spinning for the whole backoff; a provider slow to answer, the host's own 2 s timeout (the
# attempt used to be read inside the host's write, unbounded).
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
 "sk-dead":  {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
 "sk-close": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after": "2"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}]},
 "sk-slow":  {"sequence": [{"status": 200, "body": {"id": "late", "choices": []}, "delay_ms": 6000}], "repeat": true},
 "sk-quick": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after-ms": "300"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}]},
 "sk-later": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after-ms": "300"},
                            "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}},
                           {"status": 200, "body": {"id": "late", "choices": []}, "delay_ms": 6000}]}
}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
SCENARIO=$LG_TMP/scenario.json
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem REQUESTS_CA_BUNDLE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
CLIENT=$LG_ROOT/tests/clients/py/edge_clients.py
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
# config NAME SERVER ACCOUNTS: a config file with openai's upstream at SERVER and the accounts given (JSON)
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$2", "accounts": $3}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
# run CONFIG ARGS...: the client under llmgate run with CONFIG
run() { timeout 60 "$LG_CLI" run --config "$LG_TMP/$1.json" -- $PY "$CLIENT" "${@:2}" 2>"$LG_TMP/err"; }

# cases SCHEME PART: the cases over SCHEME, in two parts (1: up to the slow answers of requests and httpx;
# 2: the rest), each against a mock of its own (the four side by side: each case mostly waits for a timeout
# or a backoff)
cases() {
    local SCHEME=$1 part=$2 SERVER URL out c
    lg_start_mock --scenario "$SCENARIO" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
    SERVER=$MOCK_URL
    [ "$SCHEME" = https ] && SERVER=https://127.0.0.1:$MOCK_TLS_PORT
    URL=$SCHEME://api.openai.com/v1/chat/completions
    config two "$SERVER" '[{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]'
    config one "$SERVER" '[{"name": "only", "key": "env:K1"}]'
    export K1=sk-dead K2=sk-good
    [ "$part" = 1 ] || { slow aiohttp httpclient; rest; return; }

    fresh
    out=$(run two sendfile "$URL")
    check_eq "$SCHEME sendfile: 200 from the live key" "200 sk-good" "$out"
    check_eq "$SCHEME sendfile: the dead key, then the live one, with the whole body" "sk-dead:40071 sk-good:40071" \
        "$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] + ":" + str(r["body_len"]) for r in j)')"
    [ -n "$out" ] || diag "$(tail -c 600 "$LG_TMP/err")"

    fresh
    out=$(run two bodies "$URL")
    check_eq "$SCHEME chunked, empty, GET, HEAD on one connection, then a generator body: each gated" \
        "POST 200 sk-good body|POST 200 sk-good body|GET 200 sk-good body|HEAD 200 sk-good empty|generator 200 sk-good" \
        "$(paste -sd'|' <<<"$out")"
    check_eq "$SCHEME chunked, empty, GET, HEAD: the methods and bodies the mock got, never the host's key" \
        "POST:sk-dead:73 POST:sk-good:73 POST:sk-good:0 GET:sk-good:0 HEAD:sk-good:0 POST:sk-good:73" \
        "$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["method"] + ":" + r["key"] + ":" + str(r["body_len"]) for r in j)')"
    [ -n "$out" ] || diag "$(tail -c 600 "$LG_TMP/err")"

    # one account, rate limited for 20 s: the host's own 2 s timeout ends its wait
    for c in requests httpx aiohttp; do
        fresh
        out=$(run one timeout "$URL" "$c")
        check_match "$SCHEME host timeout $c: its own timeout error in about 2 s ($out)" \
            '^EXC (ReadTimeout|TimeoutError) (1\.[89]|2\.[0-9]|3\.[0-5])$' "$out"
        check_eq "$SCHEME host timeout $c: one attempt, with the account's key" "sk-dead" "$(reqkeys)"
    done

    slow requests httpx
}
# slow CLIENT...: a provider slow to answer (6 s), the host's own 2 s timeout: its timeout error in about 2 s
# (the attempt in flight is read from the host's readiness waits, not inside its write)
slow() {
    local c out
    for c in "$@"; do
        fresh
        out=$(K1=sk-slow run one timeout "$URL" "$c")
        check_match "$SCHEME slow answer, $c: its own timeout error in about 2 s ($out)" \
            '^EXC (ReadTimeout|TimeoutError|timeout) (1\.[89]|2\.[0-9]|3\.[0-5])$' "$out"
        check_eq "$SCHEME slow answer, $c: one attempt, with the account's key" "sk-slow" "$(reqkeys)"
    done
}
# rest: the slow answer also when it is the retry, on a new connection after a 429 that closed the first;
# the loops through a backoff
rest() {
    local out ticks cpu
    fresh
    out=$(K1=sk-later run one timeout "$URL" requests)
    check_match "$SCHEME slow retry after a 429 that closed: the host's timeout in about 2 s ($out)" \
        '^EXC ReadTimeout (1\.[89]|2\.[0-9]|3\.[0-5])$' "$out"
    check_eq "$SCHEME slow retry after a 429 that closed: two attempts" "sk-later sk-later" "$(reqkeys)"
    fresh
    out=$(K1=sk-quick run one timeout "$URL" requests)
    check_match "$SCHEME quick retry after a 429 that closed: answered within the host's 2 s ($out)" \
        '^answered (0\.[3-9]|1\.[0-9])$' "$out"
    check_eq "$SCHEME quick retry after a 429 that closed: two attempts" "sk-quick sk-quick" "$(reqkeys)"

    # a 429 that closes the connection, then 2 s of backoff on the only account: the loop sleeps meanwhile
    export K1=sk-close
    fresh
    out=$(run one epoll "$URL")
    check_eq "$SCHEME epoll selector, backoff after a 429 that closed: 3 answers 200" \
        "200 sk-close|200 sk-close|200 sk-close" "$(grep -v ticks <<<"$out" | paste -sd'|')"
    ticks=$(sed -n 's/^ticks=//p' <<<"$out")
    check "$SCHEME epoll selector: the loop slept through the backoff (${ticks:-?} empty selects of 50 ms)" \
        test "${ticks:-999999}" -le 200
    fresh
    out=$(run one aiohttp "$URL")
    check_eq "$SCHEME aiohttp, backoff after a 429 that closed: 200" "200 sk-close" "$(head -n1 <<<"$out")"
    cpu=$(sed -n 's/^cpu=//p' <<<"$out")
    check "$SCHEME aiohttp: the loop slept through the 2 s backoff (${cpu:-?} s of CPU)" \
        awk -v c="${cpu:-9}" 'BEGIN { exit !(c < 1.0) }'
    check_eq "$SCHEME aiohttp: the 429, then the retry on the same account" "sk-close sk-close" "$(reqkeys)"
    [ -n "$out" ] || diag "$(tail -c 600 "$LG_TMP/err")"
}
lg_branch cases http 1
lg_branch cases http 2
lg_branch cases https 1
lg_branch cases https 2
lg_join
lg_done
