#!/usr/bin/env bash
# make bench, footprint: instructions and distinct code lines per request of the bench client with and
# without the preload, for a provider and a non-provider host (tests/bench/footprint.py explains the lines).
# Then all a one-request process costs (`curl` in a cron job): loading the preload, its set-up, and what
# a first request does once.
# Deterministic (valgrind's callgrind, identical within a few instructions between runs), unlike the wall
# clock of a shared machine. Skipped without valgrind.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
command -v valgrind >/dev/null || { echo "footprint: valgrind not installed, skipped"; exit 0; }
SHORT=300 LONG=600
lg_start_mock --quiet --threads 1
echo '{"providers": {"openai": {}}}' >"$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'

# profile PRELOAD HOST N: callgrind profile of N requests to http://HOST/ (CONNECT_TO the mock) in $LG_TMP.
profile() {
    local env=()
    [ "$1" = yes ] && env=(LD_PRELOAD="$LG_LIB")
    env "${env[@]}" valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
        --callgrind-out-file="$LG_TMP/fp.$1.$3" "$LG_BUILD/clients/bench_client" -n "$3" \
        -c "$2:80:127.0.0.1:$MOCK_PORT" -H 'Authorization: Bearer sk-bench' -d "$BODY" \
        "http://$2/v1/chat/completions" >/dev/null 2>&1
}

# footprint NAME HOST: one line of figures without and with the preload.
footprint() {
    local side out=()
    for side in no yes; do
        profile "$side" "$2" "$SHORT" && profile "$side" "$2" "$LONG" || { echo "$1: a run failed"; return 1; }
        out+=("$(/usr/bin/python3 tests/bench/footprint.py "$LG_TMP/fp.$side.$SHORT" "$LG_TMP/fp.$side.$LONG" \
            $((LONG - SHORT)))")
    done
    awk -v n="$1" -v b="${out[0]}" -v p="${out[1]}" 'BEGIN {
        split(b, x, /[ =]/); split(p, y, /[ =]/)
        printf "%-18s instructions %6d -> %6d /req (x%.3f)   code lines %4d -> %4d /req (x%.3f, %d in llmgate on %d pages)\n",
               n, x[2], y[2], y[2] / x[2], x[4], y[4], y[4] / x[4], y[6], y[8] }'
}

echo "footprint (callgrind, ($LONG - $SHORT requests) / $((LONG - SHORT))):"
footprint "provider host" api.openai.com
footprint "non-provider host" bench.example.invalid

# total PRELOAD: the instructions of one whole run of one request.
total() {
    profile "$1" api.openai.com 1 && sed -n 's/^summary: //p' "$LG_TMP/fp.$1.1"
}
b=$(total no) && p=$(total yes) && awk -v b="$b" -v p="$p" 'BEGIN {
    printf "one-request process  instructions %.2f M -> %.2f M (+%.2f M: loading, set-up, first request)\n",
           b / 1e6, p / 1e6, (p - b) / 1e6 }'
