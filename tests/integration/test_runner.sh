#!/usr/bin/env bash
# tests/run.sh itself, on a scratch tree of fake tests: a script that stops before its plan, a plan
# that does not match the results, a unit test never built and a pattern matching nothing all fail;
# a complete run passes.
source "$(dirname "$0")/../lib.sh"
T=$LG_TMP/tree
mkdir -p "$T/tests/unit" "$T/tests/integration" "$T/build/tests"
cp "$LG_ROOT/tests/run.sh" "$T/tests/run.sh"
fake_unit() { # NAME TAP-TEXT: a "built" unit test printing TAP-TEXT
    touch "$T/tests/unit/$1.c"
    printf '#!/bin/sh\nprintf "%s"\n' "$2" >"$T/build/tests/$1"
    chmod +x "$T/build/tests/$1"
}
fake_script() { printf '%s\n' "$2" >"$T/tests/integration/$1.sh"; }
fake_unit test_good '1..2\nok 1 - a\nok 2 - b\n'
fake_unit test_short '1..3\nok 1 - a\nok 2 - b\n'
touch "$T/tests/unit/test_unbuilt.c"
fake_script test_whole 'echo "ok 1 - a"; echo "1..1"'
fake_script test_early 'echo "ok 1 - a"; exit 0'
# run PATTERN: runs the scratch tree's run.sh; sets RC and LAST (its summary line)
run() { bash "$T/tests/run.sh" "$1" >"$LG_TMP/run.out" 2>&1; RC=$?; LAST=$(tail -n1 "$LG_TMP/run.out"); }

run test_good;  check_eq "a complete unit test passes" "0 2 passed, 0 failed" "$RC $LAST"
run test_whole; check_eq "a complete script passes" "0 1 passed, 0 failed" "$RC $LAST"
run test_short; check_eq "fewer results than the plan: a failure" "1 2 passed, 1 failed" "$RC $LAST"
run test_early; check_eq "a script that exits 0 before its plan: a failure" "1 1 passed, 1 failed" "$RC $LAST"
run test_unbuilt; check_eq "a unit test that is not built: a failure" "1 0 passed, 1 failed" "$RC $LAST"
check_match "... named as not built" 'build/tests/test_unbuilt is not built' "$(cat "$LG_TMP/run.out")"
run no_such_test; check_eq "a pattern matching nothing: a failure" "1 0 passed, 1 failed" "$RC $LAST"
# The unit tests run beside the scripts: a unit test that passes only once a script has started (within
# 30 s), a script of the same name as another unit test; all counted, the unit tests' lines first, in order,
# each program with a log of its own.
fake_unit test_twin '1..1\nok 1 - unit twin\n'
printf '#!/bin/sh\nfor i in $(seq 300); do [ -e "%s" ] && break; sleep 0.1; done\n[ -e "%s" ] && printf "1..1\\nok 1 - waited\\n"\n' \
    "$T/build/script-started" "$T/build/script-started" >"$T/build/tests/test_twin_waits"
chmod +x "$T/build/tests/test_twin_waits"
touch "$T/tests/unit/test_twin_waits.c"
fake_script test_twin 'touch "$(dirname "$0")/../../build/script-started"; echo "ok 1 - script twin"; echo "1..1"'
run twin; check_eq "unit tests beside the scripts: all counted" "0 3 passed, 0 failed" "$RC $LAST"
check_eq "... the unit tests' lines first, in order" "test_twin test_twin_waits test_twin" \
    "$(grep -E ' passed +[0-9]+ failed' "$LG_TMP/run.out" | awk '{print $1}' | paste -sd' ')"
check_eq "... a unit test and a script of one name, each with its own log" "ok 1 - unit twin|ok 1 - script twin" \
    "$(grep -h '^ok' "$T/build/test-logs/test_twin.unit.log" "$T/build/test-logs/test_twin.log" | paste -sd'|')"
lg_done
