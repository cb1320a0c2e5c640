#!/usr/bin/env bash
# make bench (tests/bench/run.sh [overhead]): the interposer's overhead, as ratios measured in one run against a
# baseline without the preload. The same libcurl client (one reused handle, N sequential requests on
# loopback) runs with and without libllmgate.so back to back, many short rounds, for what users run (two
# accounts configured, the host's key rewritten, limits learned from the rate-limit headers of every answer:
# tests/bench/setup.sh) over plain http and over TLS, for the bench's first case (no accounts, a mock without
# rate-limit headers: nothing learned) and for a non-provider host (pass-through); tests/bench/paired.py
# reports the median of the rounds' ratios with its confidence interval against the goal (1.03, 1.01 for the
# non-provider host), then tests/bench/footprint.sh the instructions and code lines per request
# (deterministic, with valgrind) against theirs (1.08).
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
source tests/bench/rounds.sh
N=${BENCH_REQUESTS:-1000}
ROUNDS=${BENCH_ROUNDS:-60}
source tests/bench/setup.sh
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {"sk-stream": {"sequence": [{"fixture": "$LG_ROOT/tests/fixtures/streams/openai_multibyte.json", "chunk": 200, "chunk_delay_ms": 2}], "repeat": true}}}
JSON
lg_start_mock --quiet --threads 1 --no-ratelimit-headers --scenario "$LG_TMP/scenario.json"
BODY=$BENCH_BODY
# No upstream: both sides send the same request to the same URL (CONNECT_TO takes api.openai.com:80 to the
# mock), as a real host does; an upstream would have libcurl on the gated side format another URL and Host.
echo '{"providers": {"openai": {}}}' >"$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json

# run_one PRELOAD URL CONNECT_TO [CONFIG [CA]]: prints "elapsed_us cpu_us" of one client run.
run_one() {
    local env=() ca=()
    [ "$1" = yes ] && env=(LD_PRELOAD="$LG_LIB")
    [ -n "${4:-}" ] && env+=(LLMGATE_CONFIG="$4")
    [ -n "${5:-}" ] && ca=(-C "$5")
    env "${env[@]}" "$LG_BUILD/clients/bench_client" -n "$N" -c "$3" "${ca[@]}" -H 'Authorization: Bearer sk-bench' \
        -d "$BODY" "$2" | sed -n 's/.*failures=0 elapsed_us=\([0-9]*\) cpu_us=\([0-9]*\).*/\1 \2/p'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# bench NAME URL CONNECT_TO GOAL [CONFIG [CA]]: the paired rounds of the client without and with the preload.
bench() { paired_rounds "$1" "$N" "$4" "run_one no '$2' '$3' '${5:-}' '${6:-}'" "run_one yes '$2' '$3' '${5:-}' '${6:-}'"; }

echo "interposer overhead: $ROUNDS rounds of $N requests per side, medians of the paired ratios"
bench "accounts, http" "http://api.openai.com/v1/chat/completions" "api.openai.com:80:127.0.0.1:$LIM_PORT" 1.03 \
    "$LG_TMP/accounts.json"
bench "accounts, TLS" "https://api.openai.com/v1/chat/completions" "api.openai.com:443:127.0.0.1:$LIM_TLS_PORT" 1.03 \
    "$LG_TMP/accounts.json" "$BENCH_CA"
bench "provider host" "http://api.openai.com/v1/chat/completions" "api.openai.com:80:127.0.0.1:$MOCK_PORT" 1.03
bench "non-provider host" "http://bench.example.invalid/v1/chat/completions" "bench.example.invalid:80:127.0.0.1:$MOCK_PORT" 1.01
bash tests/bench/footprint.sh

# ttfb: time to the first body byte of a healthy stream whose events arrive every 2 ms, with and without
# the preload (llmgate holds the start of a stream until its first complete event with content).
ttfb_runs() { # PRELOAD: prints the median ttfb in microseconds over 100 requests
    local env=() i
    [ "$1" = yes ] && env=(LD_PRELOAD="$LG_LIB")
    for i in $(seq 1 100); do
        env "${env[@]}" "$LG_BUILD/clients/stream_client" -H 'Authorization: Bearer sk-stream' \
            -c "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions 2>&1 >/dev/null | sed -n 's/.*ttfb_us=\([0-9]*\).*/\1/p'
    done | median
}
b=$(ttfb_runs no); p=$(ttfb_runs yes)
awk -v b="$b" -v p="$p" 'BEGIN { printf "stream ttfb         %.0f us -> %.0f us (+%.0f us)\n", b, p, p - b }'
bash tests/bench/socket.sh
[ "${1:-all}" = overhead ] || bash tests/bench/quota.sh
[ "${1:-all}" = overhead ] || bash tests/bench/chaos.sh
[ "${1:-all}" = overhead ] || bash tests/bench/redis.sh
[ "${1:-all}" = overhead ] || bash tests/bench/fleet.sh
