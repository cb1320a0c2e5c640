#!/usr/bin/env bash
# wget2 and TCP Fast Open. wget2 runs every connection on a non-blocking socket (connect's EINPROGRESS, then
# poll), over https with GnuTLS, and opens its connections with TCP Fast Open: over plain http
# sendto(MSG_FASTOPEN, address) carries the request on a socket never connected; over https its GnuTLS
# push function sends the ClientHello with sendmsg(MSG_FASTOPEN, msg_name). Both used to reach the
# provider untouched, with the program's own key. The mock sits behind nginx here, whose
# "Connection: keep-alive" wget2 needs before it reuses a connection (libmicrohttpd never sends it): three
# URLs with --max-threads=1 then share one connection, which nginx's log shows. For each scheme: a dead
# key then the live one (the host gets the live key's answers, the mock never the host's key), an event
# stream relayed whole after a 429 (its pieces read as the host polls), a single
# account's 429 with Retry-After retried invisibly, and a non-provider server answered untouched. Then
# tests/clients/tfo_client.c: sendto(MSG_FASTOPEN) on a blocking socket, sendmsg(MSG_FASTOPEN) on a
# non-blocking one, and setsockopt(TCP_FASTOPEN_CONNECT) + connect + write. Loopback Fast Open needs a
# cookie the kernel only has once a server offered one; without it the kernel makes a plain connect, and
# the test holds either way (llmgate follows the socket whatever the kernel does). And gnutls-cli
# --fastopen over https: GnuTLS's own Fast Open transport.
source "$(dirname "$0")/../lib.sh"

WGET2_CHECKS=22
HAVE_WGET2=false
command -v wget2 >/dev/null && [ -x /usr/sbin/nginx ] && HAVE_WGET2=true
diag "net.ipv4.tcp_fastopen=$(cat /proc/sys/net/ipv4/tcp_fastopen 2>/dev/null)"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {
 "sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true},
 "sk-sse":  {"sequence": [{"chunk": 48, "chunk_delay_ms": 3}], "repeat": true},
 "sk-once": {"sequence": [{"status": 429, "headers": {"retry-after": "1"},
                           "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}}, {}]}
}}
JSON
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --scenario "$LG_TMP/scenario.json"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
HOSTKEY=sk-host-wget2-4f1c9a7e2b
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; : >"$LG_TMP/nginx/access.log"; }
cat >"$LG_TMP/tfo.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"dedup_window_ms": 10}}
JSON

# nginx before the mock: plain http on NGX_HTTP, TLS on NGX_TLS; its log names each request's connection
mkdir -p "$LG_TMP/nginx/tmp"
NGX_HTTP=$(lg_free_port)
NGX_TLS=$(lg_free_port)
cat >"$LG_TMP/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
pid $LG_TMP/nginx/nginx.pid;
error_log $LG_TMP/nginx/error.log;
events { worker_connections 64; }
http {
    log_format conn '\$connection \$status';
    access_log $LG_TMP/nginx/access.log conn;
    client_body_temp_path $LG_TMP/nginx/tmp;
    proxy_temp_path $LG_TMP/nginx/tmp;
    fastcgi_temp_path $LG_TMP/nginx/tmp;
    uwsgi_temp_path $LG_TMP/nginx/tmp;
    scgi_temp_path $LG_TMP/nginx/tmp;
    server {
        listen 127.0.0.1:$NGX_HTTP;
        listen 127.0.0.1:$NGX_TLS ssl;
        ssl_certificate $LG_TMP/certs/server.pem;
        ssl_certificate_key $LG_TMP/certs/server.key;
        location / { proxy_pass http://127.0.0.1:$MOCK_PORT; proxy_set_header Host \$host; }
    }
}
CONF
if $HAVE_WGET2; then
    /usr/sbin/nginx -p "$LG_TMP/nginx" -c "$LG_TMP/nginx/nginx.conf" 2>"$LG_TMP/nginx/start.err" &
    LG_MOCK_PIDS+=($!)
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$NGX_HTTP/" && break; sleep 0.05; done
fi
for scheme in http https; do
    port=$NGX_HTTP
    [ "$scheme" = https ] && port=$NGX_TLS
    cat >"$LG_TMP/$scheme.json" <<JSON
{"providers": {"openai": {"upstream": "$scheme://127.0.0.1:$port", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 2}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
    cat >"$LG_TMP/single-$scheme.json" <<JSON
{"providers": {"openai": {"upstream": "$scheme://127.0.0.1:$port", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "retry": {"max_rate_limit_wait_seconds": 2}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
done
chmod 600 "$LG_TMP"/*.json

SSE_BODY='{"model":"gpt-4o-mini","stream":true,"messages":[]}'
WANT_SSE=$(curl -s -H 'Authorization: Bearer sk-sse' -d "$SSE_BODY" "$MOCK_URL/v1/chat/completions" | sse_text)
[[ $WANT_SSE == ?*"|DONE" ]] || WANT_SSE="(the mock's own stream had no text or no end: $WANT_SSE)"

# wget2 K1 K2 CONFIG ARGS...: wget2 under the preload (one thread, no HTTP/2, the program's own key), after
# a fresh start; sets OUT, RC and $LG_TMP/err
wget2_gated() {
    local k1=$1 k2=$2 cfg=$3
    shift 3
    fresh
    OUT=$(K1=$k1 K2=$k2 LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB timeout 30 wget2 -O - --max-threads=1 \
          --no-http2 --tries=1 --ca-certificate="$SSL_CERT_FILE" --header "Authorization: Bearer $HOSTKEY" \
          --header 'Content-Type: application/json' "$@" 2>"$LG_TMP/err")
    RC=$?
    [ "$RC" = 0 ] || diag "exit $RC: $(head -c 600 "$LG_TMP/err")"
}

if $HAVE_WGET2; then
    for scheme in http https; do
        U=$scheme://api.openai.com/v1/chat/completions
        wget2_gated sk-dead sk-good "$scheme" --post-data "$BODY" "$U?n=1" "$U?n=2" "$U?n=3"
        check_eq "wget2 $scheme, 3 URLs: exits 0" 0 "$RC"
        check_eq "wget2 $scheme, 3 URLs: 3 answers from the live key" 3 "$(grep -o '"mock_key":"sk-good"' <<<"$OUT" | wc -l)"
        check_eq "wget2 $scheme, 3 URLs: the dead key, then the live one three times; never the program's" \
            "sk-dead sk-good sk-good sk-good" "$(reqkeys)"
        check_eq "wget2 $scheme, 3 URLs: all on one connection (nginx's log: 4 requests, one connection)" "4 1" \
            "$(wc -l <"$LG_TMP/nginx/access.log") $(cut -d' ' -f1 "$LG_TMP/nginx/access.log" | sort -u | wc -l)"
        check_absent "wget2 $scheme: the 429 never reached the program" "$LG_TMP/err" "429" "Too Many"
        curl -s "$MOCK_URL/__requests" >"$LG_TMP/mock-requests.json"
        check_no_key "wget2 $scheme: the program's key never reached the mock" "$HOSTKEY" "$LG_TMP/mock-requests.json"

        wget2_gated sk-dead sk-sse "$scheme" --post-data "$SSE_BODY" "$U"
        check_eq "wget2 $scheme, an event stream after a 429: the text and its end, as the mock sent them" \
            "$WANT_SSE" "$(sse_text <<<"$OUT")"

        start=$(date +%s%N)
        echo "$BODY" >"$LG_TMP/body.json"
        wget2_gated sk-once - "single-$scheme" --post-file "$LG_TMP/body.json" "$U"
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        check_match "wget2 $scheme, a 429 with Retry-After: 1 on the only account: retried, the answer" '"mock_key":"sk-once"' "$OUT"
        check_eq "wget2 $scheme, a 429 with Retry-After: two attempts, the program saw none" "sk-once sk-once|0" \
            "$(reqkeys)|$(grep -c '429' "$LG_TMP/err")"
        check "wget2 $scheme, a 429 with Retry-After: 1: waited it out (${ms} ms)" test "$ms" -ge 900
    done
    # a server that is no provider's: wget2's Fast Open connection reaches it untouched
    fresh
    OUT=$(K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/http.json LD_PRELOAD=$LG_LIB timeout 30 wget2 -q -O - --no-http2 \
          --header "Authorization: Bearer sk-other" --post-data "$BODY" "http://127.0.0.1:$MOCK_PORT/v1/chat/completions" 2>"$LG_TMP/err")
    check_match "wget2 to a server no provider names: answered with the program's own key" '"mock_key":"sk-other"' "$OUT"
    check_eq "wget2 to a server no provider names: the mock saw only that key" "sk-other" "$(reqkeys)"
else
    skip "wget2 or nginx not installed" "$WGET2_CHECKS"
fi

# gnutls-cli --fastopen: GnuTLS's own Fast Open transport (gnutls_transport_set_fastopen: its transport
# pointer is no descriptor, the socket is the one it was given), piping a request
if $HAVE_WGET2 && command -v gnutls-cli >/dev/null; then
    fresh
    req=$(printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "$HOSTKEY" "${#BODY}" "$BODY")
    OUT=$( (printf '%s' "$req"; sleep 2) | K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/https.json LD_PRELOAD=$LG_LIB \
          timeout 20 gnutls-cli --fastopen --logfile=/dev/null --x509cafile "$SSL_CERT_FILE" -p 443 api.openai.com 2>"$LG_TMP/err")
    check_match "gnutls-cli --fastopen: the live key's answer" '"mock_key":"sk-good"' "$OUT"
    check_eq "gnutls-cli --fastopen: the dead key, then the live one; never the program's" "sk-dead sk-good" "$(reqkeys)"
else
    skip "gnutls-cli or nginx not installed" 2
fi

# TCP Fast Open from a C client: each way of opening the connection is followed like connect() and a send
TFO=$LG_BUILD/clients/tfo_client
for mode in sendto sendmsg connectopt; do
    fresh
    OUT=$(K1=sk-dead K2=sk-good LLMGATE_CONFIG=$LG_TMP/tfo.json LD_PRELOAD=$LG_LIB timeout 30 "$TFO" "$mode" \
          api.openai.com 80 /v1/chat/completions "$HOSTKEY" "$BODY" 2>"$LG_TMP/err")
    check_match "tfo_client $mode: 200 with the live key's answer" $'^HTTP/1\\.1 200.*"mock_key":"sk-good"' "$OUT"
    check_eq "tfo_client $mode: the dead key, then the live one; never the program's" "sk-dead sk-good" "$(reqkeys)"
    check_absent "tfo_client $mode: no error" "$LG_TMP/err" "tfo_client"
done
lg_done
