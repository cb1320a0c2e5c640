#!/usr/bin/env bash
# The demo: an unmodified legacy script (demo/legacy-report.sh) calls api.openai.com and
# api.anthropic.com with curl. Both are played by llmgate's mock provider on 127.0.0.1 (over TLS,
# verified against a test CA), which allows each key only a few requests per window.
# First run: plain (failures visible). Second run: under `llmgate run` with three OpenAI keys and two
# Anthropic keys (all succeed). Then: what happened.
set -u
cd "$(dirname "$0")/.." || exit 1
B=$PWD/build
work=$(mktemp -d /tmp/llmgate-demo.XXXXXX)
chmod 700 "$work"
trap 'kill $mock_pid 2>/dev/null; wait $mock_pid 2>/dev/null; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

bash tests/gen-certs.sh "$work/certs" >/dev/null 2>&1 || { echo "demo: could not create test certificates"; exit 1; }
"$B/llmgate-mock" --port 0 --tls-port 0 --cert "$work/certs/server.pem" --key "$work/certs/server.key" \
    --rpm 5 --window-ms 20000 --port-file "$work/ports" --quiet >"$work/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 1 100); do grep -q '^tls_port=' "$work/ports" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^port=//p' "$work/ports")
tls=$(sed -n 's/^tls_port=//p' "$work/ports")
[ -n "$tls" ] || { echo "demo: mock provider did not start"; cat "$work/mock.log"; exit 1; }

# The legacy script's curl calls reach the mock instead of the internet: curl reads $CURL_HOME/.curlrc.
mkdir -p "$work/curlhome"
cat >"$work/curlhome/.curlrc" <<RC
connect-to = "api.openai.com:443:127.0.0.1:$tls"
connect-to = "api.anthropic.com:443:127.0.0.1:$tls"
cacert = "$work/certs/ca.pem"
RC
export CURL_HOME=$work/curlhome
export OPENAI_API_KEY=demo-openai-1 ANTHROPIC_API_KEY=demo-anthropic-1
export DEMO_OPENAI_2=demo-openai-2 DEMO_OPENAI_3=demo-openai-3 DEMO_ANTHROPIC_2=demo-anthropic-2

cat >"$work/config.json" <<JSON
{
  "providers": {
    "openai": {
      "upstream": "https://127.0.0.1:$tls",
      "accounts": [{"name": "main", "key": "env:OPENAI_API_KEY"},
                   {"name": "second", "key": "env:DEMO_OPENAI_2"},
                   {"name": "third", "key": "env:DEMO_OPENAI_3"}],
      "limits": {"rpm": 5, "window_ms": 20000}
    },
    "anthropic": {
      "upstream": "https://127.0.0.1:$tls",
      "accounts": [{"name": "main", "key": "env:ANTHROPIC_API_KEY"},
                   {"name": "backup", "key": "env:DEMO_ANTHROPIC_2"}],
      "limits": {"rpm": 5, "window_ms": 20000}
    }
  },
  "retry": {"switch_delay_ms": 100, "max_rate_limit_wait_seconds": 30}
}
JSON
chmod 600 "$work/config.json"

stat() { curl -s "http://127.0.0.1:$port/__stats" | python3 -c "import json,sys; j=json.load(sys.stdin)['total']; print(j.get('$1', 0))"; }

echo "== 1. the legacy script, plain: each key allows 5 requests per 20 s"
demo/legacy-report.sh
plain_429=$(stat rate_limited)
curl -s -X POST "http://127.0.0.1:$port/__reset" >/dev/null
sleep 0.2

echo
echo "== 2. the same script, unmodified, under: llmgate run --config config.json -- demo/legacy-report.sh"
"$B/llmgate" run --config "$work/config.json" -- demo/legacy-report.sh
rc=$?

echo
echo "== 3. what happened"
echo "plain run: the provider answered $plain_429 requests with 429, and the script saw each of them"
echo "llmgate run: the provider answered $(stat rate_limited) requests with 429, and the script saw none"
"$B/llmgate" status
exit $rc
