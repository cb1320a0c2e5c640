#!/usr/bin/env bash
# HTTPS: the curl CLI verifies the mock's certificate against the test CA, with and without an upstream,
# and rotation works over TLS exactly as over plain HTTP.
source "$(dirname "$0")/../lib.sh"
lg_gencerts || { not_ok "test certificates created"; exit 1; }
C=$LG_TMP/certs
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-limited": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": true}}}
JSON
lg_start_mock --tls-port 0 --cert "$C/server.pem" --key "$C/server.key" --scenario "$LG_TMP/scenario.json"
check "mock listens on a TLS port" test -n "$MOCK_TLS_PORT"
export KEY_LIMITED=sk-limited KEY_GOOD=sk-good
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
reqlog() { curl -s "$MOCK_URL/__requests"; }

# 1. no upstream: the host reaches api.openai.com:PORT (resolved to 127.0.0.1) and verifies its cert
cat >"$LG_TMP/direct.json" <<JSON
{"providers": {"openai": {"accounts": [{"name": "main", "key": "env:KEY_LIMITED"}, {"name": "backup", "key": "env:KEY_GOOD"}]}},
 "retry": {"switch_delay_ms": 20}}
JSON
chmod 600 "$LG_TMP/direct.json"
out=$(LLMGATE_CONFIG=$LG_TMP/direct.json LD_PRELOAD=$LG_LIB curl -s --cacert "$C/ca.pem" \
      --resolve "api.openai.com:$MOCK_TLS_PORT:127.0.0.1" "https://api.openai.com:$MOCK_TLS_PORT/v1/chat/completions" \
      -H 'Authorization: Bearer sk-host' -d "$BODY" -w '\n%{http_code} %{ssl_verify_result}')
check_eq "TLS direct: 200 with a verified certificate" "200 0" "$(tail -n1 <<<"$out")"
check_match "TLS direct: served by the backup key after rotation" '"mock_key":"sk-good"' "$out"
check_eq "TLS direct: the provider saw both keys over TLS" "sk-limited sk-good" "$(reqlog | lg_json '" ".join(r["key"] for r in j)')"

# 2. upstream over TLS: the host calls https://api.openai.com, llmgate sends it to https://127.0.0.1:PORT
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
rm -rf "$XDG_RUNTIME_DIR/llmgate"
cat >"$LG_TMP/up.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT",
  "accounts": [{"name": "main", "key": "env:KEY_LIMITED"}, {"name": "backup", "key": "env:KEY_GOOD"}]}},
 "retry": {"switch_delay_ms": 20}}
JSON
chmod 600 "$LG_TMP/up.json"
out=$(LLMGATE_CONFIG=$LG_TMP/up.json LD_PRELOAD=$LG_LIB curl -s --cacert "$C/ca.pem" \
      https://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY" \
      -w '\n%{http_code} %{url_effective}')
check_eq "TLS upstream: 200, and curl reports the URL it was given" "200 https://api.openai.com/v1/chat/completions" "$(tail -n1 <<<"$out")"
check_match "TLS upstream: rotated to the backup key" '"mock_key":"sk-good"' "$out"

# 3. without the CA the host's verification still fails, exactly as without llmgate
LLMGATE_CONFIG=$LG_TMP/up.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null https://api.openai.com/v1/chat/completions -d "$BODY"
check_eq "TLS: an unverifiable certificate is the host's error (60)" 60 "$?"
lg_done
