#!/usr/bin/env bash
# HTTP/2-capable clients of a provider behind a front that offers h2 (Debian's nginx as a TLS 1.3 terminator
# offering h2,http/1.1 before the mock, lg_start_nginx_front): their ALPN offer is reduced to http/1.1 on
# the provider's connection, which is then gated (a 429 on the first key retried invisibly on the second,
# the account's key at the provider, never the host's): httpx.Client(http2=True), httpx.AsyncClient
# (http2=True, memory BIOs), gnutls-cli (GnuTLS) offering h2 and http/1.1. A server that is no provider
# still gets the program's own offer (h2 stays h2, in the same process); an offer of h2 alone is left as
# it is (passes through); libcurl's own HTTP/2 stays (curl -Z multiplexes its gated transfers on one
# connection). A retry's new session (the front closed the connection after the 429) offers http/1.1 too.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
C=$LG_TMP/certs
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json"
lg_start_nginx_front "127.0.0.1:$MOCK_PORT"
export SSL_CERT_FILE=$C/ca.pem
PY=/usr/bin/python3
H2C=$LG_ROOT/tests/clients/py/h2_clients.py
URL=https://api.openai.com/v1/chat/completions
OTHER=https://localhost:$NGINX_PORT/__stats # the same front, named as no provider
# config NAME ACCOUNTS: the openai provider at the nginx front
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$NGINX_PORT", "accounts": $2}},
 "retry": {"switch_delay_ms": 20}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
config rotate '[{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]'
config live '[{"name": "live", "key": "env:K2"}]'
export K1=sk-dead K2=sk-good
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; : >"$NGINX_LOG"; }
# run CONFIG CMD...: CMD under the preload after a fresh start; sets OUT, RC, stderr in $LG_TMP/err
run() {
    local cfg=$1
    shift
    fresh
    OUT=$(LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 60 "$@" 2>"$LG_TMP/err")
    RC=$?
    [ "$RC" = 0 ] || diag "exit $RC: $(head -c 600 "$LG_TMP/err")"
}
# front_lines REGEX: the nginx front's log lines ("PROTOCOL STATUS AUTHORIZATION") matching REGEX
front_lines() { grep -c -E "$1" "$NGINX_LOG"; }

# 1. httpx.Client(http2=True): three requests, then a GET of a server that is no provider on the same client
run rotate env LLMGATE_DEBUG=1 $PY "$H2C" sync "$URL" 3 "$OTHER"
check_eq "httpx http2 sync: exits 0" 0 "$RC"
check_eq "httpx http2 sync: 3 answers 200 over HTTP/1.1 (ALPN http/1.1) from the live key" 3 \
    "$(grep -c '^200 HTTP/1.1 http/1.1 .*"mock_key":"sk-good"' <<<"$OUT")"
check_eq "httpx http2 sync: the dead key's 429 retried invisibly, then the live key; never the host's" \
    "sk-dead sk-good sk-good sk-good" "$(reqkeys)"
check_eq "httpx http2 sync: the provider's front served HTTP/1.1 only (429, then 3 x 200)" "1 3 0" \
    "$(front_lines '^HTTP/1.1 429 Bearer sk-dead$') $(front_lines '^HTTP/1.1 200 Bearer sk-good$') $(front_lines '^HTTP/2.0 .* sk-(good|dead)')"
check_eq "httpx http2 sync: the server that is no provider still negotiated h2" "other 200 HTTP/2" "$(grep '^other' <<<"$OUT")"
check_eq "httpx http2 sync: ... and got the program's own request, untouched" 1 "$(front_lines '^HTTP/2.0 200 Bearer sk-host$')"
check_match "httpx http2 sync: LLMGATE_DEBUG says the offer was reduced" '\[openai\] ALPN offer reduced to http/1.1' "$(cat "$LG_TMP/err")"

# 2. httpx.AsyncClient(http2=True): three at once (asyncio, TLS on memory BIOs)
run rotate $PY "$H2C" async "$URL" 3 "$OTHER"
check_eq "httpx http2 async: exits 0" 0 "$RC"
check_eq "httpx http2 async: 3 answers 200 over HTTP/1.1 (ALPN http/1.1) from the live key" 3 \
    "$(grep -c '^200 HTTP/1.1 http/1.1 .*"mock_key":"sk-good"' <<<"$OUT")"
keys=$(reqkeys)
check_eq "httpx http2 async: 3 answered on the live key, the dead one tried, never the host's key" "3 yes 0" \
    "$(grep -o sk-good <<<"$keys" | wc -l) $(grep -q sk-dead <<<"$keys" && echo yes) $(grep -o sk-host <<<"$keys" | wc -l)"
check_eq "httpx http2 async: the provider's front served no HTTP/2 to the gated requests" 0 "$(front_lines '^HTTP/2.0 .* sk-(good|dead)')"
check_eq "httpx http2 async: the server that is no provider still negotiated h2" "other 200 HTTP/2" "$(grep '^other' <<<"$OUT")"

# 3. openssl s_client (SSL_CTX_set_alpn_protos; its handshake begun by a read): h2,http/1.1 to the provider
# is reduced; h2 alone is left as it is (the program speaks nothing else: passed through); h2,http/1.1 to
# a server that is no provider stays
sclient() { # ALPN NAME PORT
    LLMGATE_CONFIG=$LG_TMP/live.json LD_PRELOAD=$LG_LIB timeout 20 openssl s_client -alpn "$1" -connect "$2:$3" \
        -servername "$2" -CAfile "$C/ca.pem" -verify_return_error </dev/null 2>&1 | grep -a -o 'ALPN protocol: .*'
}
check_eq "openssl s_client: h2,http/1.1 to the provider agreed http/1.1" "ALPN protocol: http/1.1" "$(sclient h2,http/1.1 api.openai.com 443)"
check_eq "openssl s_client: h2 alone to the provider left as it is" "ALPN protocol: h2" "$(sclient h2 api.openai.com 443)"
check_eq "openssl s_client: h2,http/1.1 to no provider agreed h2" "ALPN protocol: h2" "$(sclient h2,http/1.1 localhost "$NGINX_PORT")"

# 4. GnuTLS: gnutls-cli offering h2 and http/1.1, a request piped in; and the same offer to no provider
if command -v gnutls-cli >/dev/null; then
    BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
    req=$(printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "${#BODY}" "$BODY")
    fresh
    OUT=$( (printf '%s' "$req"; sleep 3) | LLMGATE_CONFIG=$LG_TMP/rotate.json LD_PRELOAD=$LG_LIB timeout 30 \
        gnutls-cli --alpn=h2 --alpn=http/1.1 --x509cafile "$C/ca.pem" -p 443 api.openai.com 2>&1)
    check_match "gnutls-cli: the provider's connection agreed http/1.1" '- Application protocol: http/1\.1' "$OUT"
    check_match "gnutls-cli: 200 from the live key" $'HTTP/1\\.1 200 OK.*"mock_key":"sk-good"' "$OUT"
    check_eq "gnutls-cli: the dead key, then the live one, never the host's" "sk-dead sk-good" "$(reqkeys)"
    out=$(LLMGATE_CONFIG=$LG_TMP/rotate.json LD_PRELOAD=$LG_LIB timeout 30 gnutls-cli --alpn=h2 --alpn=http/1.1 \
          --x509cafile "$C/ca.pem" -p "$NGINX_PORT" localhost </dev/null 2>&1)
    check_match "gnutls-cli: a server that is no provider still agreed h2" '- Application protocol: h2' "$out"
else
    skip "gnutls-cli (gnutls-bin) is not installed" 4
fi

# 5. libcurl's own HTTP/2 (the curl hook gates each transfer): curl -Z multiplexes 3 on one connection
args=()
for i in 1 2 3; do
    args+=(-H 'Authorization: Bearer sk-host' -d '{"model":"gpt-4o-mini","messages":[]}' -o /dev/null
           -w '%{http_code} %{http_version} %{num_connects}\n' --cacert "$C/ca.pem" "$URL" --next)
done
run live curl -s -Z --http2 "${args[@]}" -o /dev/null "$MOCK_URL/__stats"
check_eq "curl -Z --http2: 3 transfers answered 200 over h2" 3 "$(grep -c '^200 2 ' <<<"$OUT")"
check_eq "curl -Z --http2: multiplexed on one connection" 1 "$(awk '$1 == 200 {n += $3} END {print n}' <<<"$OUT")"
check_eq "curl -Z --http2: the front saw 3 HTTP/2 requests with the account's key, none with the host's" "3 0" \
    "$(front_lines '^HTTP/2.0 200 Bearer sk-good$') $(front_lines 'sk-host')"
# 6. a front that closes every connection after one answer: the 429's retry goes over a new session llmgate
# makes from the host's SSL_CTX (which offers h2): it offers what the host's session agreed, http/1.1
lg_stop_nginx_front
lg_start_nginx_front "127.0.0.1:$MOCK_PORT" "keepalive_requests 1;"
config rotate '[{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]'
run rotate $PY "$H2C" sync "$URL" 2
check_eq "httpx http2 sync, a front that closes after each answer: 2 answers 200 over HTTP/1.1 from the live key" 2 \
    "$(grep -c '^200 HTTP/1.1 .*"mock_key":"sk-good"' <<<"$OUT")"
check_eq "httpx http2 sync, a front that closes after each answer: the retry on llmgate's own session spoke HTTP/1.1" \
    "sk-dead sk-good sk-good|1 2 0" "$(reqkeys)|$(front_lines '^HTTP/1.1 429 Bearer sk-dead$') $(front_lines '^HTTP/1.1 200 Bearer sk-good$') $(front_lines '^HTTP/2.0')"
lg_done
