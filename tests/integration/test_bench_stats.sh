#!/usr/bin/env bash
# The statistics of `make bench` (tests/bench/paired.py, tests/bench/footprint.py) on inputs whose answer is
# known, and a short real run of the overhead bench (a few rounds, both hosts, figures present).
source "$(dirname "$0")/../lib.sh"
PAIRED=$LG_ROOT/tests/bench/paired.py

# rounds BASE GATED N: N rounds of 1000 requests; the machine drifts by up to +-9 % from round to round
# (both sides alike), the base side's wall is BASE us per request, the gated side's GATED x (1 - 2 %, -1 %,
# 0, +1 %, +2 %) in turn; the CPU half of each.
rounds() {
    /usr/bin/python3 -c "
import sys
b, g, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d, e = 1 + 0.03 * ((i * 3) % 7 - 3), 1 + 0.01 * (i % 5 - 2)
    print(i, 'base', round(b * 1000 * d), round(b * 500 * d))
    print(i, 'gated', round(g * 1000 * d * e), round(g * 500 * d * e))" "$@"
}

out=$(rounds 100 110 40 | /usr/bin/python3 "$PAIRED" provider 1000 1.03)
check_match "a 10 % slower side: ratio 1.100" "paired ratio 1.100 " "$out"
check_match "... its goal of 1.03 missed" "goal wall <= 1.03x over 40 rounds: missed" "$out"
out=$(rounds 100 101 40 | /usr/bin/python3 "$PAIRED" provider 1000 1.03)
check_match "a 1 % slower side: goal met" "goal wall <= 1.03x over 40 rounds: met" "$out"
check_match "... per-request figures from the medians" "wall 100.0 -> 10[01].[0-9] us/req" "$out"
out=$(rounds 100 103 40 | /usr/bin/python3 "$PAIRED" provider 1000 1.03)
check_match "3 % slower with 2 % noise against 1.03: undecided" "over 40 rounds: undecided" "$out"
out=$({ rounds 100 120 20; rounds 100 100 20 | sed 's/^/x/'; } | /usr/bin/python3 "$PAIRED" p 1000 0)
check_match "rounds pair by their number (20 near 1.2, 20 near 1.0: the median between)" "paired ratio 1.098 " "$out"
check "no goal: no verdict" test -z "$(grep goal <<<"$out")"
out=$(rounds 100 110 3 | /usr/bin/python3 "$PAIRED" p 1000 1.03)
check_match "fewer than five rounds: no figure" "too few complete rounds \\(3\\)" "$out"

# footprint.py on two hand-written profiles: libllmgate.so's lines 0x1000>>6 and 0x1040>>6 (one page) and
# 0x5000>>6 (another) run once per request, libc's line 0x2040>>6 twice, a call line's inclusive cost and
# start-up code (same count in both) do not count.
profile() { # REQUESTS
    printf 'events: Ir\nob=/x/libllmgate.so\nfn=f\n0x1000 1 %d\n0x1004 1 %d\ncalls=%d 0x3000\n0x1008 1 %d\n0x9000 1 5\n' \
        "$1" "$1" "$1" $(($1 * 50))
    printf '0x1040 1 %d\n0x5000 1 %d\n' "$1" "$1"
    printf 'ob=/x/libc.so.6\nfn=g\n0x2040 1 %d\n0x20c0 1 7\n' $(($1 * 2))
}
profile 300 >"$LG_TMP/s"; profile 600 >"$LG_TMP/l"
check_eq "footprint: instructions and lines per request" "instructions=6 lines=4 ours=3 pages=2" \
    "$(/usr/bin/python3 "$LG_ROOT/tests/bench/footprint.py" "$LG_TMP/s" "$LG_TMP/l" 300)"

# paired.py's goal on the wall time added per request: 12 us added against +10 (missed), 1 us (met).
out=$(rounds 100 112 40 | /usr/bin/python3 "$PAIRED" socket 1000 1.10 10)
check_match "12 us added per request against +10 us: missed" "wall added \\+12.0 us/req .*goal <= \\+10 us: missed" "$out"
out=$(rounds 100 101 40 | /usr/bin/python3 "$PAIRED" socket 1000 1.10 10)
check_match "1 us added per request against +10 us: met" "wall added \\+1.0 us/req .*goal <= \\+10 us: met" "$out"

# The real bench, short: every case gives its figures and a verdict line.
out=$(BENCH_REQUESTS=100 BENCH_ROUNDS=6 BENCH_SOCKET_REQUESTS=50 BENCH_SOCKET_ROUNDS=5 BENCH_FOOTPRINT_SHORT=30 \
    BENCH_FOOTPRINT_LONG=60 bash "$LG_ROOT/tests/bench/run.sh" overhead 2>&1)
check_match "bench: two accounts, learned limits, http" "accounts, http .*paired ratio [0-9.]+ \\(95 % CI" "$out"
check_match "bench: two accounts, learned limits, TLS" "accounts, TLS .*paired ratio [0-9.]+ \\(95 % CI" "$out"
check_match "bench: the provider host measured" "provider host .*paired ratio [0-9.]+ \\(95 % CI" "$out"
check_match "bench: the non-provider host measured" "non-provider host .*paired ratio" "$out"
check "bench: six verdicts (four libcurl cases, the socket path's two)" test "$(grep -c 'goal wall <= ' <<<"$out")" -eq 6
check_match "bench: the socket path's wall time added, with its goal" "wall added .* goal <= \\+10 us: " "$out"
if command -v valgrind >/dev/null; then
    check_match "bench: the footprint, provider host" "provider host +instructions +[0-9]+ -> +[0-9]+ /req .* in llmgate" "$out"
    check_match "bench: the footprint with accounts and learned limits, its goal" \
        "accounts, http +instructions +[0-9]+ -> +[0-9]+ /req .*goal <= 1.08x: (met|missed)" "$out"
    check_match "bench: the same over TLS" "accounts, TLS +instructions +[0-9]+ -> +[0-9]+ /req .*goal <= 1.08x: " "$out"
    check_match "bench: the socket path's instructions, its goal" \
        "socket, provider +instructions [0-9]+ -> [0-9]+ /req .*goal <= 1.05x: (met|missed)" "$out"
    check_match "bench: what a one-request process costs" "one-request process +instructions [0-9.]+ M -> [0-9.]+ M" "$out"
fi
lg_done
