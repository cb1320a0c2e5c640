#!/usr/bin/env bash
# make bench, redis store: (a) the latency Redis on loopback adds per admitted request against the local
# (shm) store, measured in one run, alternating, as the median wall time per request of the same libcurl
# client under the preload; (b) a fleet of 2 "machines" (separate runtime directories) x 4 processes sharing
# 2 keys against the mock's exact window, each machine on its own local store versus all on Redis:
# makespan against the physical minimum, provider 429s, host failures.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
command -v redis-server >/dev/null || { echo "redis bench: redis-server not installed (make deps)"; exit 1; }
N=${BENCH_REQUESTS:-2000}
ROUNDS=${BENCH_ROUNDS:-7}
lg_start_redis
lg_start_mock --quiet --threads 1
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
export KEY_A=sk-fleet-a KEY_B=sk-fleet-b

# config NAME STORE-JSON LIMITS-JSON
config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "a", "key": "env:KEY_A"}, {"name": "b", "key": "env:KEY_B"}], "limits": {$3}}},
 "retry": {"max_rate_limit_wait_seconds": 600}, "store": {$2}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

config shm '"backend": "shm"' '"rpm": 100000000'
config redis "\"backend\": \"redis\", \"redis_url\": \"$REDIS_URL\"" '"rpm": 100000000'
one() { # CONFIG: elapsed microseconds of N requests
    LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/bench_client" -n "$N" \
        -c "api.openai.com:80:127.0.0.1:$MOCK_PORT" -H 'Authorization: Bearer sk-host' -d "$BODY" "$URL" |
        sed -n 's/.*failures=0 elapsed_us=\([0-9]*\).*/\1/p'
}
one shm >/dev/null; one redis >/dev/null
s=() r=()
for _ in $(seq 1 "$ROUNDS"); do s+=("$(one shm)"); r+=("$(one redis)"); done
awk -v n="$N" -v s="$(printf '%s\n' "${s[@]}" | median)" -v r="$(printf '%s\n' "${r[@]}" | median)" 'BEGIN {
    printf "redis store latency: %d requests x %s rounds, medians: shm %.1f us/req, redis %.1f us/req (+%.1f us per request, ratio %.3f)\n",
           n, "'"$ROUNDS"'", s / n, r / n, (r - s) / n, r / s }'

# (b) the fleet: 2 machines x 4 processes x 15 requests on 2 keys of RPM per WINDOW_MS at the mock.
RPM=${FLEET_RPM:-10} WINDOW_MS=${FLEET_WINDOW_MS:-2000}
lg_start_mock --quiet --rpm "$RPM" --window-ms "$WINDOW_MS"
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
config fleet-shm '"backend": "shm"' "\"rpm\": $RPM, \"window_ms\": $WINDOW_MS"
sed -i "s|\"upstream\": \"[^\"]*\"|\"upstream\": \"$MOCK_URL\"|" "$LG_TMP/fleet-shm.json"
config fleet-redis "\"backend\": \"redis\", \"redis_url\": \"$REDIS_URL\"" "\"rpm\": $RPM, \"window_ms\": $WINDOW_MS"
sed -i "s|\"upstream\": \"[^\"]*\"|\"upstream\": \"$MOCK_URL\"|" "$LG_TMP/fleet-redis.json"
fleet() { # CONFIG: prints "makespan_ms host_failures provider_429s"
    local m p pids=() start
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    rm -rf "$LG_TMP"/fleet-run && mkdir -p "$LG_TMP/fleet-run"
    start=$(( $(date +%s%N) / 1000000 ))
    for m in 1 2; do
        mkdir -p "$LG_TMP/fleet-run/m$m" && chmod 700 "$LG_TMP/fleet-run/m$m"
        for p in 1 2 3 4; do
            (for _ in $(seq 1 15); do
                XDG_RUNTIME_DIR=$LG_TMP/fleet-run/m$m LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB \
                    curl -s -o /dev/null -w '%{http_code}\n' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY"
            done) >"$LG_TMP/fleet-run/codes.$m.$p" 2>/dev/null &
            pids+=($!)
        done
    done
    wait "${pids[@]}"
    echo "$(( $(date +%s%N) / 1000000 - start )) $(cat "$LG_TMP"/fleet-run/codes.* | grep -vc '^200$') $(lg_stats | lg_json "j['total']['rate_limited']")"
}
min=$(( (120 / (2 * RPM) - 1) * WINDOW_MS ))
for store in shm redis; do
    read -r ms fails r429 <<<"$(fleet "fleet-$store")"
    awk -v s="$store" -v ms="$ms" -v f="$fails" -v q="$r429" -v min="$min" 'BEGIN {
        printf "fleet of 2 machines, %-5s stores: 120 requests in %6d ms (physical minimum %d ms, ratio %.2f), %3d provider 429s, %d host failures\n",
               s, ms, min, ms / min, q, f }'
done
