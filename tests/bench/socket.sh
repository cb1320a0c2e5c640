#!/usr/bin/env bash
# make bench, socket path: a Python http.client host (N requests on one keep-alive connection) with and
# without the preload, alternately, in one run. Gated: the host names api.openai.com and llmgate sends it
# to the mock (upstream); its baseline is the same host talking to the mock directly. Non-provider: the
# host talks to the mock directly under the preload (no config), against the same without it. Reports
# the added CPU per request of the host process (medians) and the ratios.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
N=${BENCH_SOCKET_REQUESTS:-500}
ROUNDS=${BENCH_ROUNDS:-9}
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
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# bench NAME BASE_URL PRELOADED_CONFIG PRELOADED_URL
bench() {
    local bw=() bc=() pw=() pc=() i b p
    run_one no "" "$2" >/dev/null; run_one yes "$3" "$4" >/dev/null   # warm-up
    for i in $(seq 1 "$ROUNDS"); do
        b=$(run_one no "" "$2"); p=$(run_one yes "$3" "$4")
        [ -n "$b" ] && [ -n "$p" ] || { echo "$1: a run failed"; return 1; }
        bw+=("${b% *}"); bc+=("${b#* }"); pw+=("${p% *}"); pc+=("${p#* }")
    done
    awk -v n="$1" -v r="$N" -v bw="$(printf '%s\n' "${bw[@]}" | median)" -v pw="$(printf '%s\n' "${pw[@]}" | median)" \
        -v bc="$(printf '%s\n' "${bc[@]}" | median)" -v pc="$(printf '%s\n' "${pc[@]}" | median)" 'BEGIN {
        printf "%-22s wall %6.1f -> %6.1f us/req (ratio %.3f)   host cpu %5.1f -> %5.1f us/req (+%.1f us, ratio %.3f)\n",
               n, bw / r, pw / r, pw / bw, bc / r, pc / r, (pc - bc) / r, pc / bc }'
}

echo "socket path (Python http.client, keep-alive): $N requests x $ROUNDS rounds per side, medians"
bench "socket, provider" "$MOCK_URL/v1/chat/completions" "$LG_TMP/config.json" "http://api.openai.com/v1/chat/completions"
bench "socket, non-provider" "$MOCK_URL/v1/chat/completions" "" "$MOCK_URL/v1/chat/completions"
