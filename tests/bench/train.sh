#!/usr/bin/env bash
# The training run of the library's profile feedback (Makefile, PGO): the instrumented library in DIR
# (DIR/libllmgate.so, DIR/llmgate-mock) serves the usual kinds of requests to the instrumented mock on
# loopback; the library writes its counts next to its objects in OBJ (OBJ/src/**/*.gcda, where
# -fprofile-use reads them; the instrumented objects name that place). The mock's own counts go apart.
# The mix: chat completions through libcurl in the OpenAI and Anthropic dialects with small and larger
# bodies (most of it: what a host does most), streams, and Python's urllib on the socket path.
# usage: tests/bench/train.sh DIR OBJ. Success leaves DIR/profile.ok; a failed run leaves no counts and no
# profile.ok: the library is then built without profile feedback (a warning, not an error).
set -u
cd "$(dirname "$0")/../.." || exit 2
dir=$1 obj=$2
tmp=$(mktemp -d /tmp/llmgate-train.XXXXXX)
chmod 700 "$tmp"
mock_pid=
cleanup() {
    [ -n "$mock_pid" ] && kill -TERM "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
forget() { find "$obj/src" -name '*.gcda' -delete 2>/dev/null; rm -f "$dir/profile.ok"; }
forget # counts add up across runs: each training starts from none
export XDG_RUNTIME_DIR=$tmp/run XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config HOME=$tmp
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
unset LLMGATE_DEBUG LLMGATE_LOG LD_PRELOAD

GCOV_PREFIX=$tmp/mock-counts "$dir/llmgate-mock" --port 0 --port-file "$tmp/ports" --quiet --threads 1 \
    >"$tmp/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 1 200); do grep -q '^port=' "$tmp/ports" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^port=//p' "$tmp/ports" 2>/dev/null)
[ -n "$port" ] || { echo "train: the mock did not start; the library is built without profile feedback" >&2; exit 0; }

echo '{"providers": {"openai": {}, "anthropic": {}}}' >"$tmp/config.json"
export LLMGATE_CONFIG=$tmp/config.json
bench=build/clients/bench_client stream=build/clients/stream_client
small='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
large='{"model":"gpt-4o","max_tokens":256,"temperature":0.2,"messages":[{"role":"system","content":"You are a careful assistant. Answer in one short paragraph."},{"role":"user","content":"Summarise the plot of a novel about a lighthouse keeper who finds a message in a bottle, in three sentences."}],"tools":[{"type":"function","function":{"name":"lookup","description":"Looks a word up","parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}}}]}'
claude='{"model":"claude-3-5-haiku-latest","max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"Say hello."}]}'
openai=(-c "api.openai.com:80:127.0.0.1:$port" http://api.openai.com/v1/chat/completions)
ok=true
run() { LD_PRELOAD=$PWD/$dir/libllmgate.so "$@" >/dev/null 2>&1 || ok=false; }
run "$bench" -n 1500 -H 'Authorization: Bearer sk-train' -d "$small" "${openai[@]}"
run "$bench" -n 300 -H 'Authorization: Bearer sk-train' -d "$large" "${openai[@]}"
run "$bench" -n 300 -H 'x-api-key: sk-ant-train' -H 'anthropic-version: 2023-06-01' -d "$claude" \
    -c "api.anthropic.com:80:127.0.0.1:$port" http://api.anthropic.com/v1/messages
for _ in $(seq 1 20); do
    run "$stream" -H 'Authorization: Bearer sk-train' \
        -d '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}' "${openai[@]}"
done
if [ -x /usr/bin/python3 ]; then # the socket path: the provider host, its upstream the mock
    echo "{\"providers\": {\"openai\": {\"upstream\": \"http://127.0.0.1:$port\"}}}" >"$tmp/socket.json"
    LLMGATE_CONFIG=$tmp/socket.json run /usr/bin/python3 tests/bench/socket_client.py 300 \
        http://api.openai.com/v1/chat/completions
fi
$ok || { echo "train: a training run failed; the library is built without profile feedback" >&2
         forget; exit 0; }
touch "$dir/profile.ok"
