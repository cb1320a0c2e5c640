#!/usr/bin/env bash
# The training run of the library's profile feedback (Makefile, PGO): the instrumented library in DIR
# (DIR/libllmgate.so, DIR/llmgate-mock) serves the usual kinds of requests to the instrumented mock on
# loopback; the library writes its counts next to its objects in OBJ (OBJ/src/**/*.gcda, where
# -fprofile-use reads them; the instrumented objects name that place). The mock's own counts go apart.
# The mix: chat completions through libcurl in the OpenAI and Anthropic dialects with small and larger
# bodies (most of it: what a host does most), streams, and Python's http.client on the socket path.
# usage: tests/bench/train.sh DIR OBJ. Success leaves DIR/profile.ok; a failed run exits non-zero and leaves
# no counts and no profile.ok: the Makefile then builds the library without profile feedback.
cd "$(dirname "$0")/../.." || exit 2
dir=$1 obj=$2
forget() { find "$obj/src" -name '*.gcda' -delete 2>/dev/null; rm -f "$dir/profile.ok"; }
forget # counts add up across runs: each training starts from none
source tests/lib.sh # a scratch directory, fresh state directories, the mock stopped on exit
unset LD_PRELOAD
LG_MOCK=$dir/llmgate-mock
GCOV_PREFIX=$LG_TMP/mock-counts lg_start_mock --quiet --threads 1 # the mock's own counts apart

echo '{"providers": {"openai": {}, "anthropic": {}}}' >"$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
bench=build/clients/bench_client stream=build/clients/stream_client
small='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
large='{"model":"gpt-4o","max_tokens":256,"temperature":0.2,"messages":[{"role":"system","content":"You are a careful assistant. Answer in one short paragraph."},{"role":"user","content":"Summarise the plot of a novel about a lighthouse keeper who finds a message in a bottle, in three sentences."}],"tools":[{"type":"function","function":{"name":"lookup","description":"Looks a word up","parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}}}]}'
claude='{"model":"claude-3-5-haiku-latest","max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"Say hello."}]}'
openai=(-c "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions)
ok=true
run() { LD_PRELOAD=$PWD/$dir/libllmgate.so "$@" >/dev/null 2>&1 || ok=false; }
run "$bench" -n 1500 -H 'Authorization: Bearer sk-train' -d "$small" "${openai[@]}"
run "$bench" -n 300 -H 'Authorization: Bearer sk-train' -d "$large" "${openai[@]}"
run "$bench" -n 300 -H 'x-api-key: sk-ant-train' -H 'anthropic-version: 2023-06-01' -d "$claude" \
    -c "api.anthropic.com:80:127.0.0.1:$MOCK_PORT" http://api.anthropic.com/v1/messages
for _ in $(seq 1 20); do
    run "$stream" -H 'Authorization: Bearer sk-train' \
        -d '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}' "${openai[@]}"
done
if [ -x /usr/bin/python3 ]; then # the socket path: the provider host, its upstream the mock
    echo "{\"providers\": {\"openai\": {\"upstream\": \"http://127.0.0.1:$MOCK_PORT\"}}}" >"$LG_TMP/socket.json"
    LLMGATE_CONFIG=$LG_TMP/socket.json run /usr/bin/python3 tests/bench/socket_client.py 300 \
        http://api.openai.com/v1/chat/completions
fi
$ok || { forget; exit 1; }
touch "$dir/profile.ok"
