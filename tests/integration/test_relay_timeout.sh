#!/usr/bin/env bash
# The relay never holds a program on a provider that does not answer: the request and the answer on the
# relay's own upstream connection are bounded by retry.attempt_timeout_ms / idle_timeout_ms, as the
# preload's are. A Go net/http client run through `llmgate run` (the relay as its HTTPS proxy) whose
# provider's upstream is a black hole, over http and over https: one that accepts and never answers, one
# that answers a 200's head and one byte and then stalls; the attempt times out and the request falls back
# to "spare" (the mock): the program gets spare's 200 within seconds, where it used to wait on the hole for
# as long as the hole kept the connection. Then the relay's gateway (curl, plain HTTP) with an 8 MB request
# whose fallback chain reaches a plain http target that never reads, or one slow to read it and then to
# answer (each within the attempt's time, together not): its send and the wait for the answer are bounded
# the same way, by one deadline from the attempt's start.
source "$(dirname "$0")/../lib.sh"
command -v go >/dev/null || { skip "no Go toolchain (golang-go)" 1; lg_done; exit; }
lg_gencerts || { not_ok "test certificates created"; exit 1; }
echo '{"keys": {"sk-dry": {"sequence": [{"error": "quota"}], "repeat": true}}}' >"$LG_TMP/scenario.json" # the gateway's primary
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
MOCK_TLS=https://127.0.0.1:$MOCK_TLS_PORT
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
export GOCACHE=$LG_BUILD/gocache GOPATH=$LG_TMP/gopath GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local
cp "$LG_ROOT/tests/clients/go/relay_client.go" "$LG_TMP/"
(cd "$LG_TMP" && go build -o gocgo relay_client.go) 2>"$LG_TMP/gobuild.err" \
    || { not_ok "the Go client builds"; diag "$(head -c 600 "$LG_TMP/gobuild.err")"; exit 1; }
# config NAME PRIMARY_URL FALLBACK...: openai's upstream at PRIMARY_URL (one account), then the chain
config() {
    local name=$1 up=$2 chain
    shift 2
    chain=$(printf '"%s",' "$@")
    cat >"$LG_TMP/$name.json" <<JSON
{"providers": {"openai": {"upstream": "$up", "accounts": [{"name": "main", "key": "env:K1"}], "fallback": [${chain%,}]},
               "deaf": {"dialect": "openai", "upstream": "http://127.0.0.1:$DEAF", "accounts": [{"name": "d", "key": "env:KD"}]},
               "slow": {"dialect": "openai", "upstream": "http://127.0.0.1:$SLOW", "accounts": [{"name": "w", "key": "env:KW"}]},
               "spare": {"dialect": "openai", "upstream": "$MOCK_TLS", "accounts": [{"name": "s", "key": "env:KS"}]}},
 "retry": {"attempt_timeout_ms": 1500, "idle_timeout_ms": 1500, "max_server_retries": 0, "max_rate_limit_wait_seconds": 5},
 "hold": {"max_body_bytes": 16777216}}
JSON
    chmod 600 "$LG_TMP/$name.json"
}
lg_hole deaf; DEAF=$HOLE_PORT
lg_hole slow; SLOW=$HOLE_PORT

for mode in silent head; do
    for scheme in http https; do
        if [ $scheme = https ]; then lg_hole $mode tls; else lg_hole $mode; fi
        name=$mode-$scheme
        config $name "$scheme://127.0.0.1:$HOLE_PORT" spare
        curl -s -X POST "$MOCK_URL/__reset" >/dev/null
        : >"$LG_TMP/hole.$mode.log"
        t0=$(date +%s%3N)
        out=$(K1=sk-main KD=sk-deaf KW=sk-slow KS=sk-spare timeout 60 "$LG_CLI" run --config "$LG_TMP/$name.json" -- \
            "$LG_TMP/gocgo" https://api.openai.com/v1/chat/completions 1 2>"$LG_TMP/err")
        took=$(($(date +%s%3N) - t0))
        what="relayed Go, primary upstream a $scheme hole ($mode)"
        diag "$what: ${out:0:60} in $took ms"
        check_match "$what: the program got spare's 200" '^200 HTTP/1.1 .*"mock_key":"sk-spare"' "$out"
        check "$what: within 20 s, not the hole's ($took ms)" test "$took" -lt 20000
        check "$what: the hole was reached" test -s "$LG_TMP/hole.$mode.log"
        check_eq "$what: the mock saw spare's key only" "sk-spare" "$(reqkeys)"
        [[ $out = 200* ]] || diag "$(tail -c 600 "$LG_TMP/err") $(tail -c 600 "$XDG_RUNTIME_DIR"/llmgate/relay-*.log 2>/dev/null)"
    done
done

# the gateway: an 8 MB request, openai dry, then a plain http target that never reads (or reads it in 1.2 s
# and answers 1 s after: slow), then spare
/usr/bin/python3 -c 'import json; print(json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x" * 8000000}]}))' >"$LG_TMP/big.json"
for hole in deaf slow; do
    config gw-$hole "$MOCK_URL" $hole spare
    PORT=$(lg_free_port)
    mkdir -m 700 "$LG_TMP/gw-$hole" # a store and state of its own (spare's learned limits, main set aside)
    XDG_RUNTIME_DIR=$LG_TMP/gw-$hole XDG_STATE_HOME=$LG_TMP/gw-$hole K1=sk-dry KD=sk-deaf KW=sk-slow KS=sk-spare "$LG_CLI" relay --config "$LG_TMP/gw-$hole.json" \
        --listen "127.0.0.1:$PORT" >"$LG_TMP/gw.out" 2>&1 &
    GW=$!
    for i in $(seq 1 100); do grep -q "gateway on" "$LG_TMP/gw.out" 2>/dev/null && break; sleep 0.05; done
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    : >"$LG_TMP/hole.$hole.log"
    t0=$(date +%s%3N)
    out=$(timeout 60 curl -s -w '\n%{http_code}' -H 'Content-Type: application/json' --data-binary @"$LG_TMP/big.json" \
        "http://127.0.0.1:$PORT/openai/v1/chat/completions")
    took=$(($(date +%s%3N) - t0))
    what="gateway, 8 MB request, a plain target that never reads"
    [ $hole = slow ] && what="gateway, 8 MB request, a plain target slow to read it and to answer"
    diag "$what: $(tail -n1 <<<"$out") in $took ms"
    check_eq "$what: the client got spare's 200" 200 "$(tail -n1 <<<"$out")"
    check_match "$what: ... from spare's key" '"mock_key": *"sk-spare"' "$out"
    check "$what: within 20 s, not the hole's ($took ms)" test "$took" -lt 20000
    check "$what: the hole was reached" test -s "$LG_TMP/hole.$hole.log"
    check_eq "$what: the mock saw the dry key then spare's" "sk-dry sk-spare" "$(reqkeys)"
    kill "$GW"; wait "$GW" 2>/dev/null
done
lg_done
