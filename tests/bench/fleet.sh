#!/usr/bin/env bash
# make bench, the fleet on Redis (issue 33, item 1): MACHINES "machines" (separate runtime and state
# directories, so separate local stores) x PROCS processes (bench_client, sequential requests on one libcurl
# handle) share 2 keys through one redis-server on 127.0.0.1 for SECONDS at the keys' full rate (each key
# RPM requests per WINDOW_MS at the mock, which enforces that exact sliding window; llmgate configured with
# the same limits), once with leases and once without. From Redis's INFO commandstats: script calls
# (EVALSHA + EVAL) per request and Redis CPU per request (the usec of the script calls and of the other
# commands clients send; usec is Redis's time in the command, which a loaded machine's preemption inflates);
# from the mock: provider 429s (% of the requests it saw) and the most requests arriving at one key in one
# window (refused ones too); the makespan against the quota minimum ((requests / (2 RPM) - 1) windows: the
# first window's worth goes at t = 0). 2 s windows: llmgate's margin (a fiftieth of the window, 40 ms) covers
# the lag between admission and arrival on a loaded machine.
# Goals (issue 33): <= 0.2 calls/request, <= 20 us/request, <= 1 % 429s, <= 1.05x; each line says met or not.
# Wall times on a loaded 2-core machine are noisy. FLEET_ONLY=lease / nolease runs one side.
# As a function library (FLEET_LIB=1, sourced by tests/integration/test_redis_lease.sh): fleet_run only.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
[ -n "${LG_TMP:-}" ] || source tests/lib.sh
MACHINES=${FLEET_MACHINES:-4}
PROCS=${FLEET_PROCS:-4}
SECONDS_=${FLEET_SECONDS:-60}
RPM=${FLEET_RPM:-200}
WINDOW_MS=${FLEET_WINDOW_MS:-2000}

# fleet_run CONFIG [EVEN_CONFIG]: one run of the fleet (the mock's and Redis's counters reset first), the
# even-numbered machines on EVEN_CONFIG when given; prints
# "requests makespan_ms host_failures calls usec provider_requests provider_429s max_arrived_in_window".
fleet_run() {
    local m p cfg pids=() start end total per
    total=$(( 2 * RPM * SECONDS_ * 1000 / WINDOW_MS ))
    per=$(( (total + MACHINES * PROCS - 1) / (MACHINES * PROCS) ))
    total=$(( per * MACHINES * PROCS ))
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    redis-cli -p "$REDIS_PORT" config resetstat >/dev/null
    rm -rf "$LG_TMP/fleet" && mkdir -p "$LG_TMP/fleet"
    start=$(( $(date +%s%N) / 1000000 ))
    for m in $(seq 1 "$MACHINES"); do
        mkdir -p "$LG_TMP/fleet/m$m/run" "$LG_TMP/fleet/m$m/state" && chmod -R 700 "$LG_TMP/fleet/m$m"
        cfg=$1
        [ -n "${2:-}" ] && [ $((m % 2)) = 0 ] && cfg=$2
        for p in $(seq 1 "$PROCS"); do
            XDG_RUNTIME_DIR=$LG_TMP/fleet/m$m/run XDG_STATE_HOME=$LG_TMP/fleet/m$m/state \
                LLMGATE_CONFIG=$LG_TMP/$cfg.json LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/bench_client" -n "$per" \
                -c "api.openai.com:80:127.0.0.1:$MOCK_PORT" -H 'Authorization: Bearer sk-host' -d "$BODY" "$URL" \
                >"$LG_TMP/fleet/out.$m.$p" 2>>"$LG_TMP/fleet/err" &
            pids+=($!)
        done
    done
    wait "${pids[@]}"
    end=$(( $(date +%s%N) / 1000000 ))
    local fails stats cmd
    fails=$(cat "$LG_TMP"/fleet/out.* | sed -n 's/.*failures=\([0-9]*\).*/\1/p' | awk '{s += $1; n++} END {print s + '"$MACHINES * $PROCS"' - n}')
    stats=$(lg_stats)
    # A script call's usec includes the commands it runs, which commandstats counts again under their own
    # names: those (the script's TIME HGETALL HGET HMGET HSET HDEL PEXPIRE HINCRBY) are left out, so the
    # few of them clients pipeline themselves (counters) are not counted.
    cmd=$(redis-cli -p "$REDIS_PORT" info commandstats | tr -d '\r' | awk -F'[:=,]' '
        /^cmdstat_(time|hgetall|hget|hmget|hset|hdel|pexpire|hincrby|info|config.*):/ { next }
        /^cmdstat_/ { usec += $5; if ($1 == "cmdstat_evalsha" || $1 == "cmdstat_eval") calls += $3 }
        END { print calls + 0, usec + 0 }')
    echo "$total $((end - start)) $fails $cmd $(lg_json "j['total']['requests'], j['total']['rate_limited'], \
max(k.get('max_arrived_in_window', 0) for k in j['keys'].values())" <<<"$stats" | tr -d '(),')"
}

[ -n "${FLEET_LIB:-}" ] && return 0

command -v redis-server >/dev/null || { echo "fleet bench: redis-server not installed (make deps)"; exit 1; }
lg_redis_fleet --quiet --rpm "$RPM" --window-ms "$WINDOW_MS"
LIMITS="\"rpm\": $RPM, \"window_ms\": $WINDOW_MS"
lg_fleet_config lease "$REDIS_URL" "$LIMITS" 600 '"leases": true'
lg_fleet_config nolease "$REDIS_URL" "$LIMITS" 600 '"leases": false'
echo "fleet on Redis: $MACHINES machines x $PROCS processes, 2 keys of $RPM requests per $WINDOW_MS ms, ${SECONDS_} s of requests (wall figures noisy: loaded machine)"
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g) ? "met" : "NOT met" }'; }
for side in ${FLEET_ONLY:-lease nolease}; do
    read -r total ms fails calls usec sent r429 maxw <<<"$(fleet_run "$side")"
    min=$(( (total / (2 * RPM) - 1) * WINDOW_MS ))
    cpr=$(awk -v c="$calls" -v n="$total" 'BEGIN { printf "%.3f", c / n }')
    upr=$(awk -v u="$usec" -v n="$total" 'BEGIN { printf "%.1f", u / n }')
    pct=$(awk -v q="$r429" -v s="$sent" 'BEGIN { printf "%.2f", s ? 100 * q / s : 0 }')
    ratio=$(awk -v ms="$ms" -v min="$min" 'BEGIN { printf "%.3f", ms / min }')
    printf 'fleet %-7s: %d requests, %d host failures, most arriving in one window at a key %d (limit %d)\n' \
        "$side" "$total" "$fails" "$maxw" "$RPM"
    printf '  script calls/request %s (goal <= 0.2: %s)   Redis CPU %s us/request (goal <= 20: %s)\n' \
        "$cpr" "$(verdict "$cpr" 0.2)" "$upr" "$(verdict "$upr" 20)"
    printf '  provider 429s %s %% of %d (goal <= 1: %s)   makespan %d ms, quota minimum %d ms, %sx (goal <= 1.05: %s)\n' \
        "$pct" "$sent" "$(verdict "$pct" 1)" "$ms" "$min" "$ratio" "$(verdict "$ratio" 1.05)"
    sleep "$(awk -v w="$WINDOW_MS" 'BEGIN { print 2 * w / 1000 }')"
done
