#!/usr/bin/env bash
# Runs every unit test binary (cmocka, TAP output) and every integration script (TAP via tests/lib.sh),
# each with its wall time in seconds, then the five slowest, then one line: "N passed, N failed". Exits
# non-zero when anything failed.
# A test program fails as a whole when it exits non-zero without a "not ok" line, prints no TAP plan
# ("1..N"), or runs another number of tests than its plans announce; a unit test source without its
# built binary, and a PATTERN that selects nothing, are failures too.
# Usage: tests/run.sh [PATTERN]   (only tests whose file name contains PATTERN)
cd "$(dirname "$0")/.." || exit 2
pattern=${1:-}
passed=0 failed=0 selected=0
logdir=build/test-logs
mkdir -p "$logdir"
: >"$logdir/durations"

# Counts the TAP lines of one test program's output and checks them against its plans.
tally() { # name rc logfile seconds
    local name=$1 rc=$2 log=$3 secs=$4 ok nok plan
    ok=$(grep -cE '^ok( |$)' "$log")
    nok=$(grep -cE '^not ok( |$)' "$log")
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | awk '{ s += $1; n++ } END { print n ? s : -1 }')
    if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; echo "not ok - $name exited with status $rc" >>"$log"; fi
    if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then nok=1; echo "not ok - $name ran no test" >>"$log"; fi
    if [ "$plan" -lt 0 ]; then
        nok=$((nok + 1)); echo "not ok - $name printed no TAP plan (stopped early?)" >>"$log"
    elif [ "$plan" -ne $((ok + nok)) ]; then
        echo "not ok - $name planned $plan tests but reported $((ok + nok))" >>"$log"; nok=$((nok + 1))
    fi
    passed=$((passed + ok)); failed=$((failed + nok))
    printf '%-45s %4d passed %4d failed %4ds\n' "$name" "$ok" "$nok" "$secs"
    echo "$secs $name" >>"$logdir/durations"
    [ "$nok" -eq 0 ] || grep -E '^not ok|^#' "$log" | head -n 40 | sed 's/^/    /'
}

# missing NAME WHY: one failure for a test that could not run at all.
missing() {
    failed=$((failed + 1))
    printf '%-45s %4d passed %4d failed\n    not ok - %s\n' "$1" 0 1 "$2"
}

selected() { [ -z "$pattern" ] || [[ $1 == *"$pattern"* ]]; }

for src in tests/unit/test_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    selected "$name" || continue
    selected=$((selected + 1))
    t=build/tests/$name
    if [ ! -x "$t" ]; then missing "$name" "$t is not built (make unit)"; continue; fi
    log=$logdir/$name.log
    start=$SECONDS
    CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" >"$log" 2>&1
    tally "$name" $? "$log" $((SECONDS - start))
done

for t in tests/integration/test_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    selected "$name" || continue
    selected=$((selected + 1))
    log=$logdir/$name.log
    start=$SECONDS
    timeout 600 bash "$t" >"$log" 2>&1
    tally "$name" $? "$log" $((SECONDS - start))
done

[ "$selected" -lt 6 ] || echo "slowest: $(sort -rn "$logdir/durations" | head -n 5 | awk '{ printf "%s%s %ds", (NR > 1 ? ", " : ""), $2, $1 }'); all ${SECONDS}s"
[ "$selected" -gt 0 ] || missing "${pattern:-(all)}" "no test matches '$pattern'"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
