#!/usr/bin/env bash
# Runs every unit test binary (cmocka, TAP output) and every integration script (TAP via tests/lib.sh),
# each with its wall time in seconds, then the five slowest, then one line: "N passed, N failed". Exits
# non-zero when anything failed.
# A test program fails as a whole when it exits non-zero without a "not ok" line, prints no TAP plan
# ("1..N"), or runs another number of tests than its plans announce; a unit test source without its
# built binary, and a PATTERN that selects nothing, are failures too.
# The unit tests (one at a time) run beside the integration scripts (one at a time): each unit test works in
# its own temporary directories on free ports, each script in its own (tests/lib.sh), so neither sees the
# other. The unit tests run at a slightly lower priority (nice 2): they keep a fake clock, while the scripts' hosts
# and servers work against the wall clock. The results are printed in the same order as when they ran one
# after the other, each with its own wall time. Logs: build/test-logs/NAME.log (a unit test whose name a script shares:
# NAME.unit.log).
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

# The selected unit tests and scripts, by name, in the order of their files.
units=() scripts=()
for src in tests/unit/test_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    selected "$name" && units+=("$name")
done
for t in tests/integration/test_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    selected "$name" && scripts+=("$name")
done
selected=$((${#units[@]} + ${#scripts[@]}))
rm -rf "$logdir/done"
mkdir -p "$logdir/done/unit" "$logdir/done/integration"

unit_log() { if [ -f "tests/integration/$1.sh" ]; then echo "$logdir/$1.unit.log"; else echo "$logdir/$1.log"; fi; }

# run_units / run_scripts: run their tests one after the other, each leaving "STATUS SECONDS" in
# $logdir/done/KIND/NAME when it ended ("missing" for a unit test that is not built).
run_units() {
    local name t start rc
    for name in "${units[@]}"; do
        t=build/tests/$name
        if [ ! -x "$t" ]; then echo missing >"$logdir/done/unit/$name"; continue; fi
        start=$SECONDS
        CMOCKA_MESSAGE_OUTPUT=TAP nice -n 2 timeout 300 "$t" >"$(unit_log "$name")" 2>&1
        rc=$?
        echo "$rc $((SECONDS - start))" >"$logdir/done/unit/$name"
    done
}
run_scripts() {
    local name start rc
    for name in "${scripts[@]}"; do
        start=$SECONDS
        timeout 600 bash "tests/integration/$name.sh" >"$logdir/$name.log" 2>&1
        rc=$?
        echo "$rc $((SECONDS - start))" >"$logdir/done/integration/$name"
    done
}

# result KIND NAME RUNNER: waits for the test's end (or its runner's, pid RUNNER) and prints its line.
result() {
    local f=$logdir/done/$1/$2 rc secs
    while [ ! -s "$f" ] && kill -0 "$3" 2>/dev/null; do sleep 0.2; done
    [ -s "$f" ] || { missing "$2" "its runner ended before it did"; return; }
    read -r rc secs <"$f"
    if [ "$rc" = missing ]; then missing "$2" "build/tests/$2 is not built (make unit)"; return; fi
    if [ "$1" = unit ]; then tally "$2" "$rc" "$(unit_log "$2")" "$secs"; else tally "$2" "$rc" "$logdir/$2.log" "$secs"; fi
}

run_units &
unit_runner=$!
run_scripts &
script_runner=$!
trap 'kill "$unit_runner" "$script_runner" 2>/dev/null' EXIT
for name in "${units[@]}"; do result unit "$name" "$unit_runner"; done
for name in "${scripts[@]}"; do result integration "$name" "$script_runner"; done
wait "$unit_runner" "$script_runner"
trap - EXIT

[ "$selected" -lt 6 ] || echo "slowest: $(sort -rn "$logdir/durations" | head -n 5 | awk '{ printf "%s%s %ds", (NR > 1 ? ", " : ""), $2, $1 }'); all ${SECONDS}s"
[ "$selected" -gt 0 ] || missing "${pattern:-(all)}" "no test matches '$pattern'"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
