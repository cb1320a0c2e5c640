#!/usr/bin/env bash
# Hosts that speak HTTP/1.1 themselves, beyond Python: Node.js (http module and fetch over plain http: libuv,
# non-blocking sockets, epoll, writev), wget (plain http and GnuTLS), Perl (HTTP::Tiny, LWP; over https
# IO::Socket::SSL on the system's libssl) and PHP's own stream wrapper (sockets; OpenSSL over https). For
# each: a dead key then a live one (the host sees the live key's 200, the mock never sees the host's key),
# a 429 that closes the connection, an error inside a 200, a quota error every account gets (normalized:
# 429, Retry-After, X-Llmgate-Reason), a single account's 429 with Retry-After retried, an event stream
# relayed intact, and several requests on one kept-alive connection. A missing host is skipped (TAP skip).
# Node's https (its own static OpenSSL) is not reachable: it must still work, untouched. Last, a Python
# client that reads to the end after Connection: close gets llmgate's own answer, then the end.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/host_setup.sh"

# Node.js over plain http: gated through its sockets (its TLS is its own: https below passes by)
NODE_CHECKS=20
if command -v node >/dev/null; then
    NC=$CLIENTS/node/http_client.js
    U=http://api.openai.com/v1/chat/completions
    for k1 in sk-dead sk-close; do
        gated http "$k1" sk-good node "$NC" http "$U" 3
        check_eq "node http ($k1 first): 3 answers 200 from the live key" 3 "$(count "^200 - - .*$GOOD")"
        check_eq "node http ($k1 first): one connection for the host, kept alive" conns=1 "$(tail -n 1 <<<"$OUT")"
        check_eq "node http ($k1 first): $k1, then the live key; never the host's" "$k1 sk-good sk-good sk-good" "$(reqkeys)"
    done
    gated http sk-in200 sk-good node "$NC" fetch "$U" 2
    check_eq "node fetch, a quota error inside a 200: 2 answers 200 from the live key" 2 "$(count "^200 - - .*$GOOD")"
    check_eq "node fetch, a quota error inside a 200: sk-in200, then the live key" "sk-in200 sk-good sk-good" "$(reqkeys)"
    gated http sk-dry sk-dry node "$NC" http "$U" 2
    check_eq "node http, every account out of quota: 2 normalized 429s" 2 "$(count "$QUOTA_LINE")"
    check_eq "node http, every account out of quota: each key once, then answered by llmgate" "sk-dry sk-dry" "$(reqkeys)"
    gated single sk-once - node "$NC" fetch "$U" 1
    check_match "node fetch, a 429 with Retry-After: 1 on the only account: retried, 200" '^200 - - ' "$OUT"
    check_eq "node fetch, a 429 with Retry-After: two attempts" "sk-once sk-once" "$(reqkeys)"
    gated http sk-dead sk-sse node "$NC" stream "$U" 2
    check_eq "node fetch, event streams: 2 answers 200" 2 "$(count '^200 - - data: ')"
    check_eq "node fetch, event streams: the text and its end, as the mock sent them" "$WANT_SSE" "$(sed -n 2p <<<"$OUT" | sse_text)"
    check_eq "node fetch, event streams: the dead key, then the live one" "sk-dead sk-sse sk-sse" "$(reqkeys)"
    gated http sk-dead sk-good node "$NC" parallel "$U" 8
    check_eq "node http, 8 requests at once on 8 connections: 8 answers 200 from the live key" 8 "$(count "^200 - - .*$GOOD")"
    check_eq "node http, 8 at once: 8 from the live key, never the host's" "8 0" \
        "$(curl -s "$MOCK_URL/__requests" | lg_json 'str(sum(r["key"] == "sk-good" for r in j)) + " " + str(sum(r["key"] == "sk-host" for r in j))')"
    # https: Node's statically linked OpenSSL is out of the preload's reach: under `llmgate run` its provider
    # connections go to the relay (test_relay), which gates them; the CA file the user named in
    # NODE_EXTRA_CA_CERTS is kept beside the relay's
    fresh
    OUT=$(K1=sk-dead K2=sk-good NODE_EXTRA_CA_CERTS=$SSL_CERT_FILE timeout 30 "$LG_CLI" run --config "$LG_TMP/https.json" -- \
          node "$NC" fetch https://api.openai.com/v1/chat/completions 1 2>"$LG_TMP/err")
    check_match "node https (its own TLS) under llmgate run: gated through the relay, the live key's answer" '^200 - - .*"mock_key":"sk-good"' "$OUT"
    check_match "node https: llmgate run says its https goes through the relay" \
        'node carries its own TLS library \(as Node\.js does\): its https requests to providers are gated through the relay' "$(cat "$LG_TMP/err")"
    # under a bare LD_PRELOAD (no launcher, no relay) its https is out of reach: answered untouched, with
    # its own key
    fresh
    OUT=$(K1=sk-dead K2=sk-good NODE_EXTRA_CA_CERTS=$SSL_CERT_FILE LLMGATE_CONFIG=$LG_TMP/https.json LD_PRELOAD=$LG_LIB timeout 30 \
          node "$NC" fetch https://api.openai.com/v1/chat/completions 1 2>"$LG_TMP/err")
    check_match "node https (its own TLS) under a bare LD_PRELOAD: answered untouched, with the host's key" '^200 - - .*"mock_key":"sk-host"' "$OUT"
else
    skip "node not installed" "$NODE_CHECKS"
fi

# wget: plain http (blocking sockets; wget select()s before every read, with its read timeout) and https
# (GnuTLS); several URLs on one command line share one kept-alive connection
if command -v wget >/dev/null; then
    /usr/bin/python3 -c 'import json; print(json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "y" * 2000000}]}))' >"$LG_TMP/big.json"
    echo '{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}' >"$LG_TMP/body.json"
    echo '{"model":"gpt-4o-mini","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}' >"$LG_TMP/sse.json"
    W=(wget -O - --ca-certificate="$SSL_CERT_FILE" --header 'Authorization: Bearer sk-host' --header 'Content-Type: application/json')
    for scheme in http https; do
        U=$scheme://api.openai.com/v1/chat/completions
        for k1 in sk-dead sk-close sk-in200; do
            gated "$scheme" "$k1" sk-good "${W[@]}" --post-file "$LG_TMP/body.json" "$U" "$U" "$U"
            check_eq "wget $scheme ($k1 first), 3 URLs: exits 0" 0 "$RC"
            check_eq "wget $scheme ($k1 first), 3 URLs: 3 answers from the live key" 3 "$(grep -o "$GOOD" <<<"$OUT" | wc -l)"
            # over https the retry after a 429 that closed the connection runs on a TLS connection of
            # llmgate's, whose readiness wget's check of its idle socket sees (its own socket, which the
            # provider closed, is hidden): it reuses its connection as after any other answer
            check_eq "wget $scheme ($k1 first), 3 URLs: kept-alive connections reused 2 times" 2 "$(grep -c 'Reusing existing connection' "$LG_TMP/err")"
            check_eq "wget $scheme ($k1 first): $k1, then the live key; never the host's" "$k1 sk-good sk-good sk-good" "$(reqkeys)"
        done
        gated "$scheme" sk-dry sk-dry "${W[@]}" -S --content-on-error --post-file "$LG_TMP/body.json" "$U" "$U"
        check_eq "wget $scheme, every account out of quota: 2 answers 429 with the reason" 2 "$(grep -c 'X-Llmgate-Reason: QUOTA_EXHAUSTED' "$LG_TMP/err")"
        check_eq "wget $scheme, every account out of quota: and Retry-After" 2 "$(grep -c 'Retry-After: 14400' "$LG_TMP/err")"
        check_eq "wget $scheme, every account out of quota: each key once, then answered by llmgate" "sk-dry sk-dry" "$(reqkeys)"
        gated "$scheme" sk-dead sk-sse "${W[@]}" -q --post-file "$LG_TMP/sse.json" "$U"
        check_eq "wget $scheme, an event stream: the text and its end, as the mock sent them" "$WANT_SSE" "$(sse_text <<<"$OUT")"
    done
    U=http://api.openai.com/v1/chat/completions
    gated http sk-dead sk-good "${W[@]}" -q --post-file "$LG_TMP/big.json" "$U" "$U"
    check_eq "wget http, a 2 MB body twice: 2 answers from the live key" 2 "$(grep -o "$GOOD" <<<"$OUT" | wc -l)"
    check_eq "wget http, a 2 MB body: the live key got it whole" "$(stat -c %s "$LG_TMP/big.json") sk-good" \
        "$(curl -s "$MOCK_URL/__requests" | lg_json '" ".join(sorted(set(str(r["body_len"]) + " " + r["key"] for r in j if r["key"] != "sk-dead")))')"
    gated single sk-once - "${W[@]}" -q --post-file "$LG_TMP/body.json" "$U"
    check_match "wget http, a 429 with Retry-After: 1 on the only account: retried, 200" '"mock_key":"sk-once"' "$OUT"
    check_eq "wget http, a 429 with Retry-After: two attempts" "sk-once sk-once" "$(reqkeys)"
else
    skip "wget not installed" 36
fi

# Perl: HTTP::Tiny (core) and LWP, over plain http and over https (IO::Socket::SSL, Net::SSLeay on the
# system's libssl); both select() before their reads
PC=$CLIENTS/perl/http_client.pl
for client in tiny lwp; do
    for scheme in http https; do
        need=()
        [ "$client" = lwp ] && need+=(LWP::UserAgent)
        [ "$scheme" = https ] && need+=(IO::Socket::SSL)
        [ "$client$scheme" = lwphttps ] && need+=(LWP::Protocol::https)
        missing=""
        for m in "${need[@]}"; do perl -M"$m" -e 1 2>/dev/null || missing+=" $m"; done
        if [ -n "$missing" ]; then skip "perl:$missing not installed" 9; continue; fi
        U=$scheme://api.openai.com/v1/chat/completions
        for k1 in sk-dead sk-close sk-in200; do
            gated "$scheme" "$k1" sk-good perl "$PC" "$client" "$U" 2
            check_eq "perl $client $scheme ($k1 first): 2 answers 200 from the live key" 2 "$(count "^200 - - .*$GOOD")"
            check_eq "perl $client $scheme ($k1 first): $k1, then the live key" "$k1 sk-good sk-good" "$(reqkeys)"
        done
        gated "$scheme" sk-dry sk-dry perl "$PC" "$client" "$U" 2
        check_eq "perl $client $scheme, every account out of quota: 2 normalized 429s" 2 "$(count "$QUOTA_LINE")"
        check_eq "perl $client $scheme, every account out of quota: each key once" "sk-dry sk-dry" "$(reqkeys)"
        gated "$scheme" sk-dead sk-sse perl "$PC" "$client" "$U" 1 stream
        check_eq "perl $client $scheme, an event stream: the text and its end, as the mock sent them" "$WANT_SSE" "$(sse_text <<<"$OUT")"
    done
done
gated single sk-once - perl "$PC" tiny http://api.openai.com/v1/chat/completions 1
check_match "perl tiny http, a 429 with Retry-After: 1 on the only account: retried, 200" '^200 - - .*"mock_key":"sk-once"' "$OUT"

# PHP's own stream wrapper (not ext/curl), HTTP/1.0 (PHP's default: the answer is read up to the end of
# the connection) and 1.1, plain and https (PHP's OpenSSL stream)
if command -v php >/dev/null; then
    SC=$CLIENTS/php/stream_client.php
    for scheme in http https; do
        U=$scheme://api.openai.com/v1/chat/completions
        for proto in 1.0 1.1; do
            gated "$scheme" sk-dry sk-dry php "$SC" "$U" 3 "$proto"
            check_eq "php $scheme HTTP/$proto, every account out of quota: 3 normalized 429s, none hangs" 3 \
                "$(count '^429 .*reason=QUOTA_EXHAUSTED retry_after=14400$')"
            check_eq "php $scheme HTTP/$proto, every account out of quota: each key once" "sk-dry sk-dry" "$(reqkeys)"
        done
        gated "$scheme" sk-in200 sk-good php "$SC" "$U" 2 1.1
        check_eq "php $scheme, a quota error inside a 200: 2 answers 200 from the live key" 2 "$(count "^200 .*$GOOD")"
        gated "$scheme" sk-dead sk-sse php "$SC" "$U" 1 1.1 stream
        check_eq "php $scheme, an event stream: the text and its end, as the mock sent them" "$WANT_SSE" "$(sed 's/^200 //' <<<"$OUT" | sse_text)"
    done
    gated single sk-once - php "$SC" http://api.openai.com/v1/chat/completions 1
    check_match "php http, a 429 with Retry-After: 1 on the only account: retried, 200" '^200 .*"mock_key":"sk-once"' "$OUT"
else
    skip "php not installed" 13
fi

# a host that reads to the end after a request with Connection: close (tests/clients/py/http_clients.py
# raw), answered by llmgate itself: over https Python takes a 0 from SSL_read for the end only when the
# session says it received the server's close_notify
for scheme in http https; do
    gated "$scheme" sk-dry sk-dry /usr/bin/python3 "$CLIENTS/py/http_clients.py" raw "$scheme://api.openai.com/v1/chat/completions"
    first=$OUT
    OUT=$(K1=sk-dry K2=sk-dry LLMGATE_CONFIG=$LG_TMP/$scheme.json LD_PRELOAD=$LG_LIB timeout 30 /usr/bin/python3 \
          "$CLIENTS/py/http_clients.py" raw "$scheme://api.openai.com/v1/chat/completions" 2>"$LG_TMP/err")
    check_match "python raw $scheme, Connection: close, the provider's quota error, then llmgate's own: read to the end" \
        '^429 .*insufficient_quota.*\|429 .*llmgate: every account of openai' "$first|$OUT"
    check_eq "python raw $scheme, Connection: close: each key once" "sk-dry sk-dry" "$(reqkeys)"
done

lg_done
