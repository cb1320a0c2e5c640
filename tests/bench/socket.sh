#!/usr/bin/env bash
# make bench, socket path: a Python http.client host (N requests on one keep-alive connection) with and
# without the preload, alternately, in one run. Gated: the host names api.openai.com and llmgate sends it,
# with the first of two accounts' keys, to the mock that answers like OpenAI (rate-limit headers on every
# answer: tests/bench/setup.sh; its upstream); its baseline is the same host talking to that mock directly.
# Non-provider: the host talks to the mock directly under the preload (no config), against the same without
# it. Reports the medians of the rounds' paired ratios of wall and host CPU time (tests/bench/paired.py)
# against the goals (provider: 1.10x and +10 us a request; non-provider: 1.01x), then, with valgrind, the
# host's instructions per request (callgrind, (600 - 300 requests) / 300) against 1.05x.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
source tests/bench/rounds.sh
source tests/bench/setup.sh
N=${BENCH_SOCKET_REQUESTS:-500}
ROUNDS=${BENCH_SOCKET_ROUNDS:-15}
CLIENT=$LG_ROOT/tests/bench/socket_client.py
URL=$LIM_URL/v1/chat/completions
SHORT=${BENCH_FOOTPRINT_SHORT:-300} LONG=${BENCH_FOOTPRINT_LONG:-600}

# run_one PRELOAD CONFIG URL: prints "wall_us cpu_us" of one host run.
run_one() {
    local env=()
    [ "$1" = yes ] && env+=(LD_PRELOAD="$LG_LIB")
    [ -n "$2" ] && env+=(LLMGATE_CONFIG="$2")
    env "${env[@]}" /usr/bin/python3 "$CLIENT" "$N" "$3" | sed -n 's/^failures=0 wall_us=\([0-9]*\) cpu_us=\([0-9]*\)$/\1 \2/p'
}
# bench NAME BASE_URL PRELOADED_CONFIG PRELOADED_URL GOAL [GOAL_US]: the paired rounds of the host without the
# preload (to BASE_URL) and with it (PRELOADED_CONFIG, to PRELOADED_URL), against GOAL (0: none) and GOAL_US.
bench() { paired_rounds "$1" "$N" "$5" "run_one no '' '$2'" "run_one yes '$3' '$4'" "${6:-0}"; }

echo "socket path (Python http.client, keep-alive): $ROUNDS rounds of $N requests per side"
bench "socket, provider" "$URL" "$LG_TMP/accounts_upstream.json" "http://api.openai.com/v1/chat/completions" 1.10 10
bench "socket, non-provider" "$URL" "" "$URL" 1.01

command -v valgrind >/dev/null || { echo "socket footprint: valgrind not installed, skipped"; exit 0; }
# instructions PRELOAD CONFIG URL: the host's instructions per request.
instructions() {
    local env=() n
    [ "$1" = yes ] && env+=(LD_PRELOAD="$LG_LIB")
    [ -n "$2" ] && env+=(LLMGATE_CONFIG="$2")
    for n in "$SHORT" "$LONG"; do
        env "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$LG_TMP/sock.$1.$n" /usr/bin/python3 \
            "$CLIENT" "$n" "$3" >/dev/null 2>&1 || return 1
    done
    echo $((($(sed -n 's/^summary: //p' "$LG_TMP/sock.$1.$LONG") - $(sed -n 's/^summary: //p' "$LG_TMP/sock.$1.$SHORT")) /
        (LONG - SHORT)))
}
# footprint NAME GOAL PRELOADED_CONFIG PRELOADED_URL
footprint() {
    local b p
    b=$(instructions no "" "$URL") && p=$(instructions yes "$3" "$4") || { echo "$1: a run failed"; return 1; }
    awk -v n="$1" -v g="$2" -v b="$b" -v p="$p" 'BEGIN {
        printf "%-20s instructions %d -> %d /req (x%.3f, %+d; goal <= %.2fx: %s)\n", n, b, p, p / b, p - b, g,
               p / b <= g ? "met" : "missed" }'
}
echo "socket footprint (callgrind, ($LONG - $SHORT requests) / $((LONG - SHORT))):"
footprint "socket, provider" 1.05 "$LG_TMP/accounts_upstream.json" "http://api.openai.com/v1/chat/completions"
footprint "socket, non-provider" 1.01 "" "$URL"
