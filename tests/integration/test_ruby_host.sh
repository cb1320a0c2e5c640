#!/usr/bin/env bash
# Ruby's Net::HTTP (tests/clients/ruby/http_client.rb: one Net::HTTP.start session, kept alive), over
# plain http (Ruby's own non-blocking sockets: read_nonblock, then IO#wait_readable, i.e. poll, on EAGAIN)
# and https (the openssl extension on the system's libssl), with open/read/write timeouts set and without.
# For each: a success with the host's key replaced by the live account's; a 429 on the dead key rotated to
# the live one (the host sees one 200 each); a 429 that closes the connection (over https the session then
# goes on over llmgate's own connection: Ruby, which checks a kept-alive connection with wait_readable(0)
# and eof?, spun on its closed socket before h1_exchange.c's idle_elsewhere); a quota error every account
# gets, normalized (429, Retry-After, X-Llmgate-Reason, an OpenAI error body); an event stream read with
# read_body's block, piece by piece, arriving intact; several requests on the session's one connection.
# The mock as a server that is no provider (127.0.0.1) is left untouched: the host's key reaches it and the
# host sees what it sees without the preload. Ruby missing: every check skipped (TAP skip).
source "$(dirname "$0")/../lib.sh"
CHECKS=52
if ! command -v ruby >/dev/null || ! ruby -rnet/http -ropenssl -e 1 2>/dev/null; then
    skip "ruby (with net/http and openssl) not installed" "$CHECKS"
    lg_done; exit
fi
source "$(dirname "$0")/host_setup.sh"
RB=(ruby "$CLIENTS/ruby/http_client.rb")

for scheme in http https; do
    U=$scheme://api.openai.com/v1/chat/completions
    for t in timeouts notimeouts; do
        label="ruby $scheme ($t)"
        # the host's key replaced: a live first key, 3 requests on the session's one connection
        gated "$scheme" sk-good sk-dead "${RB[@]}" "$U" 3 "$t"
        check_eq "$label, a live key: 3 answers 200 from it" 3 "$(count "^200 - - .*$GOOD")"
        check_eq "$label, a live key: one connection for the session, kept alive" sockets=1 "$(tail -n 1 <<<"$OUT")"
        check_eq "$label, a live key: the account's key, never the host's" "sk-good sk-good sk-good" "$(reqkeys)"
        # a 429 on the first key (kept open, or closed with the answer) rotated to the other
        for k1 in sk-dead sk-close; do
            gated "$scheme" "$k1" sk-good "${RB[@]}" "$U" 2 "$t"
            check_eq "$label ($k1 first): 2 answers 200 from the live key, no 429" "2 0" "$(count "^200 - - .*$GOOD") $(count '^429')"
            check_eq "$label ($k1 first): $k1, then the live key; never the host's" "$k1 sk-good sk-good" "$(reqkeys)"
        done
        # every account out of quota: answered by llmgate, normalized
        gated "$scheme" sk-dry sk-dry "${RB[@]}" "$U" 2 "$t"
        check_eq "$label, every account out of quota: 2 normalized 429s (Retry-After, reason, OpenAI error body)" 2 \
            "$(count "$QUOTA_LINE"'.*"code": ?"insufficient_quota"')"
        check_eq "$label, every account out of quota: each key once, then answered by llmgate" "sk-dry sk-dry" "$(reqkeys)"
        # an event stream read piece by piece
        gated "$scheme" sk-dead sk-sse "${RB[@]}" "$U" 1 stream "$t"
        check_eq "$label, an event stream: the text and its end, as the mock sent them" "$WANT_SSE" "$(sed -n 1p <<<"$OUT" | sed 's/^200 - - //' | sse_text)"
        check_match "$label, an event stream: read in several pieces" '^pieces=([2-9]|[1-9][0-9]+)$' "$(sed -n 2p <<<"$OUT")"
        check_eq "$label, an event stream: the dead key, then the live one" "sk-dead sk-sse" "$(reqkeys)"
    done
done

# a server that is no provider (the mock by its address): untouched, the host's own key, the same answers
# as without the preload
for scheme in http https; do
    server=$MOCK_URL
    [ "$scheme" = https ] && server=https://127.0.0.1:$MOCK_TLS_PORT
    fresh
    bare=$(timeout 30 "${RB[@]}" "$server/v1/chat/completions" 2 2>&1 | sed 's/"id":"[^"]*"//; s/"created":[0-9]*//')
    gated "$scheme" sk-dead sk-good "${RB[@]}" "$server/v1/chat/completions" 2
    check_eq "ruby $scheme, no provider: the host sees what it sees without the preload" "$bare" \
        "$(sed 's/"id":"[^"]*"//; s/"created":[0-9]*//' <<<"$OUT")"
    check_eq "ruby $scheme, no provider: the host's key reached the server, on one connection" "sk-host sk-host sockets=1" \
        "$(reqkeys) $(tail -n 1 <<<"$OUT")"
done

lg_done
