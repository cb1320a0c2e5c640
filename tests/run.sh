#!/usr/bin/env bash
# Runs every unit test binary (cmocka, TAP output) and every integration script (TAP via tests/lib.sh),
# then prints one line: "N passed, N failed". Exits non-zero when anything failed.
# Usage: tests/run.sh [PATTERN]   (only tests whose file name contains PATTERN)
cd "$(dirname "$0")/.." || exit 2
pattern=${1:-}
passed=0 failed=0
logdir=build/test-logs
mkdir -p "$logdir"

# Counts the TAP lines of one test program's output; a crash without a "not ok" line counts as a failure.
tally() { # name rc logfile
    local name=$1 rc=$2 log=$3 ok nok
    ok=$(grep -cE '^ok [0-9]*' "$log")
    nok=$(grep -cE '^not ok' "$log")
    if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; echo "not ok - $name exited with status $rc" >>"$log"; fi
    if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then nok=1; echo "not ok - $name ran no test" >>"$log"; fi
    passed=$((passed + ok)); failed=$((failed + nok))
    printf '%-45s %4d passed %4d failed\n' "$name" "$ok" "$nok"
    [ "$nok" -eq 0 ] || grep -E '^not ok|^#' "$log" | head -n 40 | sed 's/^/    /'
}

for t in build/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    [ -z "$pattern" ] || [[ $name == *"$pattern"* ]] || continue
    log=$logdir/$name.log
    CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" >"$log" 2>&1
    tally "$name" $? "$log"
done

for t in tests/integration/test_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    [ -z "$pattern" ] || [[ $name == *"$pattern"* ]] || continue
    log=$logdir/$name.log
    timeout 600 bash "$t" >"$log" 2>&1
    tally "$name" $? "$log"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
