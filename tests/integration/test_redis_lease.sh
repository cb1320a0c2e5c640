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

# 2. The lease op alone. lease_op [ACCOUNT_KEY] [MACHINE] [ASK] [LIMIT] [WINDOW_MS] prints Redis's time, the
# account granted (-1: none), the buckets of the grant, its first bucket (nothing granted: when to ask
# again), its span field (nothing granted: when the soonest place begins), then the places granted in all,
# the most in one bucket and those in its first bucket.
lease_op() {
    redis-cli -u "$REDIS_URL" --eval "$LG_BUILD/gen/redis_script.lua" lgt:prov "${1:-lgt:acct}" , \
        lease 600000 "${4:-20}" 0 "${5:-2000}" 0 0 0 60000 "${2:-m1}" 0 "${3:-20}" none 0,0,0 |
        awk 'NR <= 5 { printf "%s ", $1 } NR > 5 && NR <= 37 && NR % 2 == 0 { s += $1; if ($1 > m) m = $1; if (NR == 6) f = $1 }
             END { print s + 0, m + 0, f + 0 }'
}
# 2a. rpm 20 per 2 s (64 buckets): a grant holds at most an eighth of the limit (2 places; LEASE_SHARE) and
# at most 1 a bucket (three times the even share, rounded up: LEASE_DENSE); grants fill the window, and then
# the soonest place is a window ahead, beyond three leases' length (48 buckets), so Redis grants nothing and
# says when to ask again (between now and that place) and when the place begins.
grants=0 granted=0 most=0 over=0
for i in $(seq 1 12); do
    read -r now3 acct3 n3 again3 at3 sum3 max3 _ <<<"$(lease_op)"
    [ "$acct3" = -1 ] && break
    grants=$((grants + 1)) granted=$((granted + sum3))
    [ "$sum3" -gt 2 ] && over=$((over + 1))
    [ "$max3" -gt "$most" ] && most=$max3
done
diag "$grants grants of $granted places (at most $most a bucket); then account $acct3, $n3 buckets, ask again $((again3 - now3)) ms, place at $((at3 - now3)) ms"
check_eq "lease op: grants of at most 2 places fill the window's 20" "20 0" "$granted $over"
check_eq "lease op: at most one place a bucket" 1 "$most"
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

# 2c. Dense grants and fair shares (rpm 240 per 64 s, buckets of 1 s: a share of 30, at most 12 a bucket).
# Machine m1 alone is granted what it asks, densely: 25 places as 12, 12 and 1. Machine m2 comes in at m1's
# count; m1 asks twice more and leads, so its next grant shrinks (to a quarter of the share at least) while
# m2, behind, is granted more than the share. m1's exit (asking for nothing) drops its count.
op() { lease_op lgt:fair "$1" "$2" 240 64000; }
read -r _ _ _ _ _ s1 m1 f1 <<<"$(op m1 25)"
check_eq "dense grant: 25 places, 12 in its first bucket, 12 at most" "25 12 12" "$s1 $f1 $m1"
read -r _ _ _ _ _ s2 _ <<<"$(op m2 40)"
read -r _ _ _ _ _ s3 _ <<<"$(op m1 40)"
read -r _ _ _ _ _ s4 _ <<<"$(op m1 40)"
read -r _ _ _ _ _ s5 _ <<<"$(op m1 80)"
read -r _ _ _ _ _ s6 _ <<<"$(op m2 80)"
diag "m1 25, m2 $s2, m1 $s3, m1 $s4, m1 (leading) $s5, m2 (behind) $s6"
check_eq "fair share: a machine new to the account is granted the share" 30 "$s2"
check "fair share: the leading machine is granted less than the share ($s5 < 30), at least a quarter" test "$s5" -lt 30 -a "$s5" -ge 7
check "fair share: the machine behind is granted more than the share ($s6 > 30)" test "$s6" -gt 30
redis-cli -u "$REDIS_URL" --eval "$LG_BUILD/gen/redis_script.lua" lgt:prov lgt:fair , \
    lease 600000 240 0 64000 0 0 0 60000 m1 0 0 none 0,0,0 >/dev/null
check_eq "fair share: an exit drops the machine's count" "0 1" \
    "$(redis-cli -u "$REDIS_URL" hexists lgt:fair mm1) $(redis-cli -u "$REDIS_URL" hexists lgt:fair mm2)"

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
