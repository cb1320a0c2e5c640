#!/usr/bin/env bash
# The socket, TLS and asyncio cases against a second provider, written apart from the mock
# (tests/servers/emulation.py: Python's http.server, a thread per connection, TLS 1.3 from an
# ssl.SSLContext with OpenSSL's defaults, so two NewSessionTickets after each handshake; OpenAI's answers
# with x-ratelimit-* headers on every one; answers taking 400 ms). Each run starts with the emulation
# answering 429 a few times: the retry is invisible to the host, which gets 200s only. Blocking Python
# clients (http.client, requests, httpx, a raw socket) over https and http; 16 requests at once on one
# event loop (aiohttp, httpx.AsyncClient, asyncio streams) over https, with two accounts and with none
# (the host's own key): every request answered, never the host's key when accounts are set, the loop
# never late by more than 200 ms beyond what the same loop shows without llmgate in this run (capped at
# 350 ms, so a busy machine cannot hide a loop blocked for a whole answer), and the requests still concurrent at the server (its log of each
# request's start and end: at least 6 of the 16 answers in flight at once; a serialising gate makes it 1).
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_emulation --delay-ms 400
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem REQUESTS_CA_BUNDLE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
CLIENTS=$LG_ROOT/tests/clients/py
hash() { printf %s "$1" | sha256sum | cut -c1-16; }
H1=$(hash sk-emu-one) H2=$(hash sk-emu-two) HOST=$(hash sk-host)
# emu EXPR: a Python expression over the emulation's log since the last fresh (r: its JSON lines)
emu() { $PY -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; print($1)" "$EMU_LOG"; }
# fresh N: a new store, an empty log, the next N requests answered 429
fresh() {
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
    : >"$EMU_LOG"
    curl -s -d "$1" "http://127.0.0.1:$EMU_PORT/__fail" >/dev/null
}
config() { # config UPSTREAM [ACCOUNTS-JSON]
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$1"${2:+, \"accounts\": $2}}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    chmod 600 "$LG_TMP/config.json"
}
ACCOUNTS='[{"name": "one", "key": "env:K1"}, {"name": "two", "key": "env:K2"}]'
run() { K1=sk-emu-one K2=sk-emu-two LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 $PY "$@" 2>"$LG_TMP/err"; }
# keys_ok LABEL N429 N200 KEYS: the log holds N429 429s and N200 200s, every key one of KEYS
keys_ok() {
    check_eq "$1: the emulation answered $2 429s, then $3 200s" "$2 $3" \
        "$(emu "sum(x['status'] == 429 for x in r), sum(x['status'] == 200 for x in r)" | tr -d '(),')"
    check_eq "$1: only the keys $4 reached the emulation" True "$(emu "all(x['key'] in '$4'.split() for x in r)")"
}

# blocking clients over https and http (requests: two on one kept-alive connection): one 429, retried out
# of the host's sight
for scheme in https http; do
    port=$EMU_TLS_PORT
    [ $scheme = http ] && port=$EMU_PORT
    config "$scheme://127.0.0.1:$port" "$ACCOUNTS"
    for c in http.client requests httpx raw; do
        n=2
        [ $c = raw ] && n=1 # one request a connection
        fresh 1
        out=$(run "$CLIENTS/http_clients.py" $c "$scheme://api.openai.com/v1/chat/completions" $n)
        check_eq "$scheme $c: exits 0" 0 "$?"
        check_eq "$scheme $c: $n answers, all 200 chat completions" $n "$(grep -c '^200 {"id": "chatcmpl-emu' <<<"$out")"
        keys_ok "$scheme $c" 1 $n "$H1 $H2"
        [ -n "$out" ] || diag "$(tail -c 600 "$LG_TMP/err")"
    done
done

# 16 at once on one event loop over https (asyncio's memory-BIO TLS)
# async_case LABEL CLIENT ACCOUNTS KEYS: 3 429s first, then 16 200s
async_case() {
    local label=$1 c=$2 keys=$4 out rc ticks late
    config "https://127.0.0.1:$EMU_TLS_PORT" "$3"
    fresh 3
    out=$(run "$CLIENTS/async_clients.py" "$c" https://api.openai.com/v1/chat/completions 16)
    rc=$?
    read -r ticks late <<<"$(sed -n 's/^ticks=\([0-9]*\) max_late_ms=\([0-9]*\)$/\1 \2/p' "$LG_TMP/err")"
    check_eq "$label: exits 0" 0 "$rc"
    check_eq "$label: 16 answers, all 200 chat completions" 16 "$(grep -c '^200 {"id": "chatcmpl-emu' <<<"$out")"
    keys_ok "$label" 3 16 "$keys"
    # the most answers in flight at once at the emulation (a request's start to the end of its answer)
    local most
    most=$(emu "max(sum(1 for y in ok if y['start'] < x['end'] and x['start'] < y['end']) for x in ok) if (ok := [x for x in r if x['status'] == 200]) else 0")
    check "$label: the requests overlapped at the server ($most of 16 at once)" test "${most:-0}" -ge 6
    check "$label: the loop ticked meanwhile ($ticks ticks)" test "${ticks:-0}" -ge 5
    check "$label: no tick late by more than $TICK_BOUND ms (${late:-?} ms; ${BASE_LATE} ms without llmgate)" \
        test "${late:-999}" -le "$TICK_BOUND"
    [ "$rc" = 0 ] || diag "$(tail -c 600 "$LG_TMP/err")"
}
# the emulation itself, without llmgate: aiohttp's 16 at once all answered
fresh 0
out=$(timeout 60 $PY "$CLIENTS/async_clients.py" aiohttp "https://localhost:$EMU_TLS_PORT/v1/chat/completions" 16 2>"$LG_TMP/err")
check_eq "without llmgate, aiohttp 16 at once: 16 answers, all 200" 16 "$(grep -c '^200 {"id": "chatcmpl-emu' <<<"$out")"
# the machine's own lateness in this run: what the loop shows without llmgate
BASE_LATE=$(sed -n 's/^ticks=[0-9]* max_late_ms=\([0-9]*\)$/\1/p' "$LG_TMP/err")
TICK_BOUND=$(lg_tick_bound 200 "${BASE_LATE:-0}")
for c in aiohttp httpx streams; do
    async_case "https $c, 16 at once, two accounts" $c "$ACCOUNTS" "$H1 $H2"
done
async_case "https aiohttp, 16 at once, no account (the host's key)" aiohttp "" "$HOST"
lg_done
