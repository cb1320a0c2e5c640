#!/usr/bin/env bash
# make bench, socket path: a Python http.client host (N requests on one keep-alive connection) with and
# without the preload, alternately, in one run. Gated: the host names api.openai.com and llmgate sends it
# to the mock (upstream); its baseline is the same host talking to the mock directly. Non-provider: the
# host talks to the mock directly under the preload (no config), against the same without it. Reports
# the medians of the rounds' paired ratios of wall and host CPU time (tests/bench/paired.py).
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
source tests/bench/rounds.sh
N=${BENCH_SOCKET_REQUESTS:-500}
ROUNDS=${BENCH_SOCKET_ROUNDS:-15}
lg_start_mock --quiet --threads 1
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL"}}}
JSON
chmod 600 "$LG_TMP/config.json"
CLIENT=$LG_ROOT/tests/bench/socket_client.py

# run_one PRELOAD CONFIG URL: prints "wall_us cpu_us" of one host run.
run_one() {
    local env=()
    [ "$1" = yes ] && env+=(LD_PRELOAD="$LG_LIB")
    [ -n "$2" ] && env+=(LLMGATE_CONFIG="$2")
    env "${env[@]}" /usr/bin/python3 "$CLIENT" "$N" "$3" | sed -n 's/^failures=0 wall_us=\([0-9]*\) cpu_us=\([0-9]*\)$/\1 \2/p'
}
# bench NAME BASE_URL PRELOADED_CONFIG PRELOADED_URL GOAL: the paired rounds of the host without the preload
# (to BASE_URL) and with it (PRELOADED_CONFIG, to PRELOADED_URL), against GOAL (0: none).
bench() { paired_rounds "$1" "$N" "$5" "run_one no '' '$2'" "run_one yes '$3' '$4'"; }

echo "socket path (Python http.client, keep-alive): $ROUNDS rounds of $N requests per side"
bench "socket, provider" "$MOCK_URL/v1/chat/completions" "$LG_TMP/config.json" "http://api.openai.com/v1/chat/completions" 0
bench "socket, non-provider" "$MOCK_URL/v1/chat/completions" "" "$MOCK_URL/v1/chat/completions" 1.01
