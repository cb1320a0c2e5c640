#!/usr/bin/env bash
# The redis store: several "machines" (separate runtime directories, so separate local stores) sharing one
# redis-server of our own and two keys, against the mock's exact sliding window: paced to the physical
# minimum with no provider 429s; `llmgate status` shows the fleet; Redis killed and restarted in the middle
# of a run, or stopped with SIGSTOP: no host request fails, nothing hangs, one notice line per process;
# credentials never shown.
source "$(dirname "$0")/../lib.sh"
command -v redis-server >/dev/null || { not_ok "redis-server installed (make deps)"; exit 1; }

# The mock's window is 800 ms against llmgate's 1000 ms: a request reaches the provider some time after
# llmgate admitted it (a process start, a connect), longer on a loaded machine; up to 200 ms of that lag
# is not a provider 429. A fleet that did not share its window (10 a second per key) still meets 429s.
lg_redis_fleet --rpm 5 --window-ms 800 --quiet
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('$2', 0)"; }

# write_config NAME REDIS_URL [TIMEOUT_FIELD]: two accounts at 5 requests per 1 s window each, the redis
# store. The runs that count requests give Redis 1 s to answer (default 50 ms): on a loaded machine a slow
# answer must not pass for an unavailable store, which would print a notice and count a request locally.
write_config() {
    lg_fleet_config "$1" "$2" '"rpm": 5, "window_ms": 1000' 60 "\"retry_ms\": 1000${3-, \"timeout_ms\": 1000}"
}
write_config fleet "$REDIS_URL"
write_config stopped "$REDIS_URL" ""

# fleet MACHINES PROCS REQUESTS: every machine runs PROCS processes of REQUESTS sequential curl requests;
# prints the host's status codes; each process's stderr goes to $LG_TMP/err.M.P.
fleet() {
    local m p pids=()
    for m in $(seq 1 "$1"); do
        mkdir -p "$LG_TMP/machine$m" && chmod 700 "$LG_TMP/machine$m"
        for p in $(seq 1 "$2"); do
            (for _ in $(seq 1 "$3"); do
                XDG_RUNTIME_DIR=$LG_TMP/machine$m LLMGATE_CONFIG=$LG_TMP/fleet.json LD_PRELOAD=$LG_LIB \
                    curl -s -o /dev/null -w '%{http_code}\n' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' \
                    -d "$BODY" 2>>"$LG_TMP/err.$m.$p"
            done) >"$LG_TMP/codes.$m.$p" &
            pids+=($!)
        done
    done
    wait "${pids[@]}"
    cat "$LG_TMP"/codes.*
    rm -f "$LG_TMP"/codes.*
}
total() { lg_json "j['total']['$1']"; }

# 1. Two machines x 4 processes x 5 requests: 40 requests on 2 keys of 5 per second: 10 at once, then 10
#    per window: the physical minimum is 3 windows.
start=$(now_ms)
codes=$(fleet 2 4 5)
ms=$(( $(now_ms) - start ))
check_eq "2 machines: the hosts saw 40 successes" 40 "$(grep -c '^200$' <<<"$codes")"
stats=$(lg_stats)
# A request admitted at a window's edge may reach the mock a little late on a loaded machine (the 20 ms
# margin of a 1 s window): allow two such refusals in 40.
check "2 machines: (almost) no 429 from the provider ($(total rate_limited <<<"$stats"))" \
    test "$(total rate_limited <<<"$stats")" -le 2
check "2 machines: never more than 5 in any window per key" \
    test "$(stat_of sk-fleet-a max_in_window)" -le 5 -a "$(stat_of sk-fleet-b max_in_window)" -le 5
check "2 machines: paced to the physical minimum (${ms} ms, minimum 3000)" test "$ms" -ge 2900 -a "$ms" -le 6500
diag "2 machines x 4 processes x 5 requests, 2 keys at 5/s: ${ms} ms, $(total rate_limited <<<"$stats") provider 429s"

# 2. Four machines x 2 processes x 5 requests: the same 40, the same minimum (the window is still full of
#    the first run's last requests for up to a second, so up to one window more).
sleep 1.1
before=$(lg_stats | total requests)
start=$(now_ms)
codes=$(fleet 4 2 5)
ms=$(( $(now_ms) - start ))
check_eq "4 machines: the hosts saw 40 successes" 40 "$(grep -c '^200$' <<<"$codes")"
check "4 machines: (almost) no 429 from the provider ($(lg_stats | total rate_limited) in both runs)" \
    test "$(lg_stats | total rate_limited)" -le 3
check "4 machines: the provider served 40 more, and at most the retries of two 429s" \
    test $(( $(lg_stats | total requests) - before - 40 )) -le 2 -a $(( $(lg_stats | total requests) - before )) -ge 40
check "4 machines: paced to the physical minimum (${ms} ms, minimum 3000)" test "$ms" -ge 2900 -a "$ms" -le 6500
diag "4 machines x 2 processes x 5 requests: ${ms} ms"
check_eq "no notice line on stderr while Redis is up" "" "$(cat "$LG_TMP"/err.* 2>/dev/null)"
rm -f "$LG_TMP"/err.*

# 3. `llmgate status` on any machine reads the fleet's counters from Redis; keys hold digests only.
sum=$(XDG_RUNTIME_DIR=$LG_TMP/machine3 LLMGATE_CONFIG=$LG_TMP/fleet.json "$LG_CLI" status --json |
      lg_json 'sum(a["requests"] for a in j["providers"]["openai"]["accounts"].values())')
check_eq "status on one machine shows every request of the fleet" "$(lg_stats | total requests)" "$sum"
keys=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'llmgate:*' | sort | tr '\n' ' ')
check_match "keys are namespaced with the provider as hash tag" 'llmgate:\{openai\}:a:a:[0-9a-f]+ ' "$keys"
check "no key material in Redis" bash -c "! redis-cli -p $REDIS_PORT --scan | grep -q sk-fleet &&
    ! redis-cli -p $REDIS_PORT hgetall \"\$(redis-cli -p $REDIS_PORT --scan --pattern 'llmgate:{openai}:a:a:*')\" | grep -q sk-"
ttl=$(redis-cli -p "$REDIS_PORT" pttl "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'llmgate:{openai}:a:a:*')")
check "account keys expire when abandoned (pttl $ttl ms)" test "$ttl" -gt 0

# 4. Redis killed in the middle of a run and restarted on the same port: no host request fails, nothing
#    hangs, and the processes are back on Redis within seconds of its return.
sleep 1.1
fleet 2 4 6 >"$LG_TMP/killed.codes" &
run=$!
sleep 0.8
kill -KILL "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null
sleep 1.5
lg_start_redis "$REDIS_PORT"
start=$(now_ms)
wait "$run"
check_eq "redis killed: the hosts saw 48 successes" 48 "$(grep -c '^200$' "$LG_TMP/killed.codes")"
check "redis killed: the run ended ($(( $(now_ms) - start )) ms after the restart)" test $(( $(now_ms) - start )) -le 30000
check_match "redis killed: one notice line says so" 'redis store 127.0.0.1:[0-9]+ unavailable' "$(cat "$LG_TMP"/err.*)"
n=$(XDG_RUNTIME_DIR=$LG_TMP/machine1 LLMGATE_CONFIG=$LG_TMP/fleet.json LD_PRELOAD=$LG_LIB \
    curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY")
check_eq "after the restart: a request succeeds" 200 "$n"
check "after the restart: the fleet is back on Redis" test -n "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'llmgate:{openai}:*')"
rm -f "$LG_TMP"/err.*

# 5. Redis stopped (SIGSTOP): it accepts connections but never answers. Requests proceed after the
#    timeout (the default 50 ms); one process sending 4 requests prints one notice line.
kill -STOP "$REDIS_PID"
sleep 1.1
start=$(now_ms)
codes=$(XDG_RUNTIME_DIR=$LG_TMP/machine1 LLMGATE_CONFIG=$LG_TMP/stopped.json LD_PRELOAD=$LG_LIB \
    curl -s -w '%{http_code}\n' "${CT[@]}" -H 'Authorization: Bearer sk-host' -d "$BODY" \
    -o /dev/null "$URL" -o /dev/null "$URL" -o /dev/null "$URL" -o /dev/null "$URL" 2>"$LG_TMP/err.stop")
ms=$(( $(now_ms) - start ))
check_eq "redis stopped: 4 successes" "200 200 200 200" "$(tr '\n' ' ' <<<"$codes" | sed 's/ $//')"
check "redis stopped: no hang (${ms} ms for 4 requests)" test "$ms" -le 5000
check_eq "redis stopped: one notice line" 1 "$(grep -c 'redis store .* unavailable (no answer in time)' "$LG_TMP/err.stop")"
kill -CONT "$REDIS_PID"

# 6. Credentials: a password in the URL works, is never printed (check-config, notice lines).
redis-cli -p "$REDIS_PORT" config set requirepass 'pw-s3cret-x' >/dev/null
write_config auth "redis://:pw-s3cret-x@127.0.0.1:$REDIS_PORT"
write_config badauth "redis://:wrong-s3cret-y@127.0.0.1:$REDIS_PORT"
shown=$(LLMGATE_CONFIG=$LG_TMP/auth.json "$LG_CLI" check-config 2>&1)
check "check-config hides the password" bash -c "! grep -q s3cret <<<'$shown'"
redis-cli -p "$REDIS_PORT" -a pw-s3cret-x --no-auth-warning flushall >/dev/null
code=$(XDG_RUNTIME_DIR=$LG_TMP/machine2 LLMGATE_CONFIG=$LG_TMP/auth.json LD_PRELOAD=$LG_LIB \
    curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err.auth")
check_eq "with the password: success" 200 "$code"
check "with the password: state in Redis" test -n "$(redis-cli -p "$REDIS_PORT" -a pw-s3cret-x --no-auth-warning --scan --pattern 'llmgate:*')"
code=$(XDG_RUNTIME_DIR=$LG_TMP/machine2 LLMGATE_CONFIG=$LG_TMP/badauth.json LD_PRELOAD=$LG_LIB \
    curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" 2>>"$LG_TMP/err.auth")
check_eq "with a wrong password: success on the local store" 200 "$code"
check_match "with a wrong password: the notice says so" 'authentication refused' "$(cat "$LG_TMP/err.auth")"
check "no password on stderr" bash -c "! grep -q s3cret '$LG_TMP/err.auth'"

# 7. A threaded host and a forking one (children open their own connections) against an unlimited mock:
#    every request counted once in Redis, no notice line (a shared connection would garble replies).
redis-cli -p "$REDIS_PORT" -a pw-s3cret-x --no-auth-warning config set requirepass '' >/dev/null
redis-cli -p "$REDIS_PORT" flushall >/dev/null
lg_start_mock --quiet
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
write_config fleet "$REDIS_URL"
sed -i 's/"rpm": 5, "window_ms": 1000/"rpm": 100000/' "$LG_TMP/fleet.json"
HDR=(-H 'Authorization: Bearer sk-host' -H 'Content-Type: application/json')
out=$(XDG_RUNTIME_DIR=$LG_TMP/machine1 LLMGATE_CONFIG=$LG_TMP/fleet.json LD_PRELOAD=$LG_LIB \
      "$LG_BUILD/clients/threaded_client" -t 4 -n 25 "${HDR[@]}" -d "$BODY" "$URL" 2>"$LG_TMP/err.threads")
check_match "threaded host: every body once" '^requests=100 ok=100 .*unique_ids=100$' "$out"
out=$(XDG_RUNTIME_DIR=$LG_TMP/machine2 LLMGATE_CONFIG=$LG_TMP/fleet.json LD_PRELOAD=$LG_LIB \
      "$LG_BUILD/clients/fork_client" -c 4 -n 10 "${HDR[@]}" -d "$BODY" "$URL" 2>"$LG_TMP/err.fork")
check_eq "forking host: parent and children served" "ok=42 failed=0" "$out"
check_eq "threads and forks: no notice line" "" "$(cat "$LG_TMP/err.threads" "$LG_TMP/err.fork")"
counted=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'llmgate:{openai}:a:*' |
          while read -r k; do redis-cli -p "$REDIS_PORT" hget "$k" n_requests; done | awk '{s += $1} END {print s}')
check_eq "threads and forks: Redis counted every attempt" "$(lg_stats | total requests)" "$counted"

lg_done
