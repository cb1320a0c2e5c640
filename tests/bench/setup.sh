# Sourced by the overhead benches (run.sh, footprint.sh, socket.sh) after tests/lib.sh: what users run.
# A mock answering like OpenAI (x-ratelimit-limit/-remaining/-reset-requests and -tokens on every answer,
# limits far above what a bench sends), over plain http and TLS: LIM_PORT, LIM_TLS_PORT, LIM_URL, BENCH_CA.
# Two accounts configured (the host's key rewritten to the first): $LG_TMP/accounts.json, and the same with
# the mock as upstream (the socket path's host names api.openai.com): $LG_TMP/accounts_upstream.json.
lg_gencerts
lg_start_mock --quiet --threads 1 --rpm 1000000000 --tpm 1000000000000 --window-ms 1000 \
    --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
LIM_PORT=$MOCK_PORT LIM_TLS_PORT=$MOCK_TLS_PORT LIM_URL=$MOCK_URL BENCH_CA=$LG_TMP/certs/ca.pem
export KEY_ONE=sk-bench-account-one KEY_TWO=sk-bench-account-two
ACCOUNTS='"accounts": [{"name": "one", "key": "env:KEY_ONE"}, {"name": "two", "key": "env:KEY_TWO"}]'
echo "{\"providers\": {\"openai\": {$ACCOUNTS}}}" >"$LG_TMP/accounts.json"
echo "{\"providers\": {\"openai\": {\"upstream\": \"$LIM_URL\", $ACCOUNTS}}}" >"$LG_TMP/accounts_upstream.json"
chmod 600 "$LG_TMP/accounts.json" "$LG_TMP/accounts_upstream.json"
BENCH_BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
