#!/usr/bin/env bash
# make bench, footprint: instructions and distinct code lines per request of the bench client with and
# without the preload (tests/bench/footprint.py explains the lines), for what users run (two accounts, limits
# learned from every answer's rate-limit headers: tests/bench/setup.sh) over plain http and TLS, against the
# goal of 1.08x the direct client's instructions; for the bench's first case (no accounts, no rate-limit
# headers) and a non-provider host (within noise of direct: 1.01x). Then all a one-request process costs
# (`curl` in a cron job): loading the preload, its set-up, and what a first request does once.
# Deterministic (valgrind's callgrind, identical within a few instructions between runs), unlike the wall
# clock of a shared machine. Skipped without valgrind.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
command -v valgrind >/dev/null || { echo "footprint: valgrind not installed, skipped"; exit 0; }
SHORT=${BENCH_FOOTPRINT_SHORT:-300} LONG=${BENCH_FOOTPRINT_LONG:-600}
source tests/bench/setup.sh
lg_start_mock --quiet --threads 1 --no-ratelimit-headers # the first case learns nothing
echo '{"providers": {"openai": {}}}' >"$LG_TMP/config.json"

# profile PRELOAD N CONFIG URL CONNECT_TO [CA]: callgrind profile of N requests to URL in $LG_TMP/fp.PRELOAD.N,
# each run from a state of its own (a new store, nothing learned), so the two runs differ by requests alone.
profile() {
    local rt=$LG_TMP/fp.rt.$RANDOM$RANDOM
    mkdir -m 700 -p "$rt/run" "$rt/state"
    local env=(LLMGATE_CONFIG="$3" XDG_RUNTIME_DIR="$rt/run" XDG_STATE_HOME="$rt/state") ca=()
    [ "$1" = yes ] && env+=(LD_PRELOAD="$LG_LIB")
    [ -n "${6:-}" ] && ca=(-C "$6")
    env "${env[@]}" valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
        --callgrind-out-file="$LG_TMP/fp.$1.$2" "$LG_BUILD/clients/bench_client" -n "$2" -c "$5" "${ca[@]}" \
        -H 'Authorization: Bearer sk-bench' -d "$BENCH_BODY" "$4" >/dev/null 2>&1
}

# footprint NAME GOAL CONFIG URL CONNECT_TO [CA]: one line of figures without and with the preload, and the
# verdict on the instructions against GOAL.
footprint() {
    local side out=()
    for side in no yes; do
        profile "$side" "$SHORT" "${@:3}" && profile "$side" "$LONG" "${@:3}" || { echo "$1: a run failed"; return 1; }
        out+=("$(/usr/bin/python3 tests/bench/footprint.py "$LG_TMP/fp.$side.$SHORT" "$LG_TMP/fp.$side.$LONG" \
            $((LONG - SHORT)))")
    done
    awk -v n="$1" -v g="$2" -v b="${out[0]}" -v p="${out[1]}" 'BEGIN {
        split(b, x, /[ =]/); split(p, y, /[ =]/)
        printf "%-18s instructions %6d -> %6d /req (x%.3f, +%d; goal <= %.2fx: %s)   code lines %4d -> %4d /req (x%.3f, %d in llmgate on %d pages)\n",
               n, x[2], y[2], y[2] / x[2], y[2] - x[2], g, y[2] / x[2] <= g ? "met" : "missed",
               x[4], y[4], y[4] / x[4], y[6], y[8] }'
}

echo "footprint (callgrind, ($LONG - $SHORT requests) / $((LONG - SHORT))):"
footprint "accounts, http" 1.08 "$LG_TMP/accounts.json" http://api.openai.com/v1/chat/completions \
    "api.openai.com:80:127.0.0.1:$LIM_PORT"
footprint "accounts, TLS" 1.08 "$LG_TMP/accounts.json" https://api.openai.com/v1/chat/completions \
    "api.openai.com:443:127.0.0.1:$LIM_TLS_PORT" "$BENCH_CA"
footprint "provider host" 1.08 "$LG_TMP/config.json" http://api.openai.com/v1/chat/completions \
    "api.openai.com:80:127.0.0.1:$MOCK_PORT"
footprint "non-provider host" 1.01 "$LG_TMP/config.json" http://bench.example.invalid/v1/chat/completions \
    "bench.example.invalid:80:127.0.0.1:$MOCK_PORT"

# total PRELOAD: the instructions of one whole run of one request.
total() {
    profile "$1" 1 "$LG_TMP/config.json" http://api.openai.com/v1/chat/completions \
        "api.openai.com:80:127.0.0.1:$MOCK_PORT" && sed -n 's/^summary: //p' "$LG_TMP/fp.$1.1"
}
b=$(total no) && p=$(total yes) && awk -v b="$b" -v p="$p" 'BEGIN {
    printf "one-request process  instructions %.2f M -> %.2f M (+%.2f M: loading, set-up, first request)\n",
           b / 1e6, p / 1e6, (p - b) / 1e6 }'
