#!/usr/bin/env bash
# A fallback whose host is black-holed does not hold the program: the connection llmgate opens itself for
# an attempt (a fallback's http target, an https target's new TLS session) has its connect, its handshake and
# the wait for its answer bounded by retry.attempt_timeout_ms, and the request fails over as after any
# attempt that timed out. Python's http.client under the preload, over http and https; the primary's only
# key is out of quota, the chain goes to "hole" (a listener that accepts and never answers, or one whose
# backlog is full, so that a connect never completes) and then to "spare" (the mock, a live key): the
# program gets spare's 200 within seconds, where it used to wait on the hole for as long as the kernel or
# the hole kept the connection. The connect, the send and the wait for the answer share one deadline,
# attempt_timeout_ms from the attempt's start.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true}}}
JSON
SCENARIO=$LG_TMP/scenario.json
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
PY=/usr/bin/python3
# The cases below run side by side in four groups (lg_branch), each with a mock and holes of its own: each
# attempt mostly waits for its 1.5 s time limit.
start_mock() { lg_start_mock --scenario "$SCENARIO" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
# config SCHEME HOLE_URL: the chain openai (dry) -> hole -> spare, over SCHEME to the mock
config() {
    local mock=$MOCK_URL
    [ "$1" = https ] && mock=https://127.0.0.1:$MOCK_TLS_PORT
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$mock", "accounts": [{"name": "main", "key": "env:K1"}], "fallback": ["hole", "spare"]},
               "hole": {"dialect": "openai", "upstream": "$2", "accounts": [{"name": "h", "key": "env:KH"}]},
               "spare": {"dialect": "openai", "upstream": "$mock", "accounts": [{"name": "s", "key": "env:KS"}]}},
 "retry": {"attempt_timeout_ms": 1500, "max_server_retries": 0, "max_rate_limit_wait_seconds": 5},
 "hold": {"max_body_bytes": 16777216}}
JSON
    chmod 600 "$LG_TMP/config.json"
}
# ask SCHEME [TIMEOUT [SIZE]]: one request of http.client (its own timeout, in s, default 60: a non-blocking
# socket under Python's waits; None: a blocking one; SIZE bytes more in its message) to
# api.openai.com; prints "STATUS KEY"
ask() {
    K1=sk-dry KH=sk-hole KS=sk-spare LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 30 $PY -c '
import http.client, json, sys
c = (http.client.HTTPSConnection if sys.argv[1] == "https" else http.client.HTTPConnection)("api.openai.com", timeout=eval(sys.argv[2]))
c.request("POST", "/v1/chat/completions", json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi" + "x" * int(sys.argv[3])}]}),
          {"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
r = c.getresponse()
print(r.status, json.loads(r.read()).get("mock_key"))' "$1" "${2:-60}" "${3:-0}" 2>"$LG_TMP/err"
}

# attempt SCHEME TIMEOUT HOLE_URL MODE WHAT [SIZE]: ask (SCHEME TIMEOUT SIZE) through the chain dry -> the
# MODE hole at HOLE_URL -> spare: spare's 200 within seconds, the hole reached (but a full one)
attempt() {
    local out took t0
    config "$1" "$3"
    fresh
    : >"$LG_TMP/hole.$4.log"
    t0=$(date +%s%3N)
    out=$(ask "$1" "$2" "${6:-0}")
    took=$(($(date +%s%3N) - t0))
    diag "$5: $out in $took ms"
    check_eq "$5: the program got spare's 200" "200 sk-spare" "$out"
    check "$5: within 20 s, not the hole's ($took ms)" test "$took" -lt 20000
    check_eq "$5: the mock saw the dry key then spare's, never the program's" "sk-dry sk-spare" "$(reqkeys)"
    [ "$4" = full ] || check "$5: the hole was reached" test -s "$LG_TMP/hole.$4.log"
    [ "$out" = "200 sk-spare" ] || diag "$(tail -c 600 "$LG_TMP/err")"
}

# holes SCHEME: a SCHEME host through a silent and a full SCHEME hole; an https host also through a plain
# http hole (llmgate's own plain connection beside its TLS)
holes() {
    local scheme=$1 mode port tmo SILENT FULL
    start_mock
    lg_hole silent; SILENT=$HOLE_PORT
    lg_hole full; FULL=$HOLE_PORT
    for mode in silent full silent-blocking full-blocking; do
        port=$SILENT; [[ $mode = full* ]] && port=$FULL
        tmo=60; [[ $mode = *-blocking ]] && tmo=None
        attempt $scheme $tmo "$scheme://127.0.0.1:$port" "${mode%-blocking}" "$scheme host, $scheme hole ($mode)"
    done
    [ "$scheme" = https ] || return 0
    for tmo in 60 None; do
        attempt https $tmo "http://127.0.0.1:$SILENT" silent "https host (timeout $tmo), http hole"
    done
}
# an 8 MB request to a plain http target that never reads (deaf, a tiny receive buffer): its send stops
# once the buffers are full; the attempt's time limit bounds the send as it bounds the wait for the answer.
# One that reads it slowly (1.2 s) and answers 1 s after it read it all (slow): the send and the wait for
# the answer each end within the attempt's 1.5 s, together not; one deadline from the attempt's start
# bounds both, so spare answers (the attempt timed out at 1.5 s), not the slow target (whose 200, sk-slow,
# came at 2.5 s when the wait for the answer had 1.5 s of its own after the send)
declare -A WHAT=([deaf]="never reads" [slow]="is slow to read it and to answer")
big() { # MODE
    local mode=$1 scheme tmo
    start_mock
    lg_hole $mode
    for scheme in http https; do
        for tmo in 60 None; do
            attempt $scheme $tmo "http://127.0.0.1:$HOLE_PORT" $mode \
                "$scheme host (timeout $tmo), 8 MB request, an http target that ${WHAT[$mode]}" 8000000
        done
    done
}
lg_branch holes http
lg_branch holes https
lg_branch big deaf
lg_branch big slow
lg_join
lg_done
