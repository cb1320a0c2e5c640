#!/usr/bin/env bash
# Redis leases: a short run of the fleet bench (tests/bench/fleet.sh): three "machines" (separate runtime
# and state directories, so separate local stores, each holding its leases) of three processes share one
# redis-server of our own and two keys for a few seconds at the keys' full rate, against the mock's exact
# sliding window. With leases: no host failure, no provider 429, never more requests arriving in one window
# at a key than its limit, and fewer script calls per request than the same run with "leases": false; nor
# when machines with and without leases share the keys. Then
# Redis is killed in the middle of a leased run: the machines go on with what they hold and then their own
# stores, and no host request fails.
source "$(dirname "$0")/../lib.sh"
command -v redis-server >/dev/null || { not_ok "redis-server installed (make deps)"; exit 1; }

# llmgate's window is 2000 ms, the mock's 1600 ms: up to 400 ms between admission and arrival is not a 429.
lg_redis_fleet --rpm 20 --window-ms 1600 --quiet
LIMITS='"rpm": 20, "window_ms": 2000'
lg_fleet_config lease "$REDIS_URL" "$LIMITS" 120 '"retry_ms": 500, "leases": true'
lg_fleet_config nolease "$REDIS_URL" "$LIMITS" 120 '"retry_ms": 500, "leases": false'
FLEET_LIB=1 FLEET_MACHINES=3 FLEET_PROCS=3 FLEET_SECONDS=${LEASE_SMOKE_SECONDS:-6} FLEET_RPM=20 FLEET_WINDOW_MS=2000
source "$LG_ROOT/tests/bench/fleet.sh"

# 1. With leases, then without.
read -r total ms fails calls usec sent r429 arrived <<<"$(fleet_run lease)"
diag "leases: $total requests in $ms ms, $calls script calls, $usec us of Redis CPU, $r429 provider 429s of $sent, at most $arrived arriving in a window at a key"
check_eq "leases: 9 processes, no host failure" 0 "$fails"
check_eq "leases: no provider 429" 0 "$r429"
check "leases: never more than 20 arriving at a key in one window ($arrived)" test "$arrived" -le 20
sleep 2.2
read -r total2 ms2 fails2 calls2 usec2 sent2 r4292 arrived2 <<<"$(fleet_run nolease)"
diag "leases off: $total2 requests in $ms2 ms, $calls2 script calls, $usec2 us of Redis CPU, $r4292 provider 429s"
check_eq "leases off: no host failure" 0 "$fails2"
check "fewer script calls a request with leases ($calls / $total) than without ($calls2 / $total2)" \
    test $(( calls * total2 )) -lt $(( calls2 * total ))

# 1b. Leased and direct admission in one window: machines 1 and 3 admit from leases, machine 2 each request
# through Redis's ordinary admission; both are counted in the same buckets of each key's window, so together
# never more than the limit arrives at a key in one window, and no provider 429.
sleep 2.2
read -r total5 ms5 fails5 calls5 usec5 sent5 r4295 arrived5 <<<"$(fleet_run lease nolease)"
diag "mixed: $total5 requests in $ms5 ms, $calls5 script calls, $r4295 provider 429s of $sent5, at most $arrived5 arriving in a window at a key"
check_eq "mixed: no host failure" 0 "$fails5"
check_eq "mixed: no provider 429" 0 "$r4295"
check "mixed: never more than 20 arriving at a key in one window ($arrived5)" test "$arrived5" -le 20

# 2. The lease op alone (rpm 20 per 2 s, 64 buckets: a grant is at most 1 a bucket): two grants fill the
# window; the third's soonest place is a window ahead, beyond a lease's length (16 buckets), so Redis grants
# nothing and says when to ask again (between now and that place) and when the place begins.
lease_op() { # [ACCOUNT_KEY]
    redis-cli -u "$REDIS_URL" --eval "$LG_ROOT/src/store/redis_script.lua" lgt:prov "${1:-lgt:acct}" , \
        lease 600000 20 0 2000 0 0 0 60000 0 20 none 0,0,0 | head -5 | tr '\n' ' '
}
read -r _ acct1 n1 _ <<<"$(lease_op)"
read -r _ acct2 n2 _ <<<"$(lease_op)"
read -r now3 acct3 n3 again3 at3 <<<"$(lease_op)"
diag "grants: $n1 then $n2 buckets; third: account $acct3, $n3 buckets, ask again $((again3 - now3)) ms, place at $((at3 - now3)) ms"
check "lease op: the first two calls grant (${acct1}:${n1}, ${acct2}:${n2})" test "$acct1" = 0 -a "$n1" -gt 0 -a "$acct2" = 0 -a "$n2" -gt 0
check_eq "lease op: a place a window ahead is not granted" "-1 0" "$acct3 $n3"
check "lease op: ask again after now, before the place ($now3 < $again3 < $at3)" test "$again3" -gt "$now3" -a "$again3" -lt "$at3"
check "lease op: the place is more than a lease's length ahead ($((at3 - now3)) ms > 500 ms)" test $((at3 - now3)) -gt 500

# 2b. A soonest place between two and three leases' length ahead is granted (at a fleet's saturation that is
# where the window's past places leave it; refusing it was half the fleet's calls): the window (span 2000
# ms, 64 buckets) holds its 20 places in the bucket 24 before now's, so the soonest place for one more is the
# bucket 41 after now's (the first whose runs of 65 buckets leave that one out); granted from there.
read -r sec usec <<<"$(redis-cli -u "$REDIS_URL" time | tr '\n' ' ')"
k_now=$(( (sec * 1000 + usec / 1000) * 64 / 2000 ))
redis-cli -u "$REDIS_URL" hset lgt:acct2 qv 2 sp 2000 W "$((k_now - 24)),20,0" >/dev/null
read -r _ acct4 n4 e4 _ <<<"$(lease_op lgt:acct2)"
diag "a place 41 buckets ahead: account $acct4, $n4 buckets from bucket now+$((e4 - k_now))"
check "lease op: a place 41 buckets ahead is granted from there (${acct4}:${n4} from now+$((e4 - k_now)))" \
    test "$acct4" = 0 -a "$n4" -gt 0 -a $((e4 - k_now)) -ge 40 -a $((e4 - k_now)) -le 42

# 3. A process's exit gives its machine's unused leased places back: one process (a machine of its own) sends
# 3 requests under 2000 per 60 s (a grant: a place in each of 16 buckets of ~1 s) and exits; then Redis's
# windows of the two accounts hold the 3 places used and no more (without the give-back: the whole grant).
lg_fleet_config exitcfg "$REDIS_URL" '"rpm": 2000, "window_ms": 60000' 120 '"leases": true'
redis-cli -u "$REDIS_URL" flushall >/dev/null
mkdir -p "$LG_TMP/exitm/run" "$LG_TMP/exitm/state" && chmod -R 700 "$LG_TMP/exitm"
XDG_RUNTIME_DIR=$LG_TMP/exitm/run XDG_STATE_HOME=$LG_TMP/exitm/state LLMGATE_CONFIG=$LG_TMP/exitcfg.json \
    LD_PRELOAD=$LG_LIB "$LG_BUILD/clients/bench_client" -n 3 -c "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
    -H 'Authorization: Bearer sk-host' -d "$BODY" "$URL" >"$LG_TMP/exitm/out" 2>&1
held=0
for k in $(redis-cli -u "$REDIS_URL" --scan --pattern 'llmgate:{openai}:a:*'); do
    w=$(redis-cli -u "$REDIS_URL" hget "$k" W)
    held=$(( held + $(tr ' ' '\n' <<<"$w" | awk -F'[,*]' 'NF >= 3 {s += $2} END {print s + 0}') ))
done
diag "after the exit: $held places in Redis's windows ($(cat "$LG_TMP/exitm/out"))"
check_eq "a leased process's exit: only the 3 places used stay counted in Redis" 3 "$held"

# 4. Redis killed in the middle of a leased run: nothing fails, nothing hangs.
sleep 2.2
fleet_run lease >"$LG_TMP/run3" &
fpid=$!
sleep 1.5
kill "$REDIS_PID"
wait "$fpid"
read -r _ _ fails3 _ <"$LG_TMP/run3"
check_eq "Redis killed during a leased run: no host request failed" 0 "${fails3:-missing}"
lg_done
