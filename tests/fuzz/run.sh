#!/usr/bin/env bash
# Runs every libFuzzer harness (build/fuzz/fuzz_*) for SECONDS each, on a seed corpus written from
# tests/fixtures, plus the regression inputs of tests/fuzz/regressions/<harness>/ (crashes found before).
# Prints each harness's executions per second. Exits non-zero when a harness found a crash.
# Logs and crash inputs go to OUT_DIR/logs and OUT_DIR/crashes.
# Usage: tests/fuzz/run.sh SECONDS [CORPUS_DIR [OUT_DIR]]   (FUZZ_RUNS=N: N inputs from seed 1 instead)
cd "$(dirname "$0")/../.." || exit 2
seconds=${1:-60}
corpus=${2:-build/fuzz/corpus}
out=${3:-build/fuzz}
/usr/bin/python3 tests/fuzz/seeds.py tests/fixtures "$corpus" || exit 2
rc=0
for bin in build/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    mkdir -p "$corpus/$name" "$out/crashes" "$out/logs"
    regress=tests/fuzz/regressions/$name
    if [ -d "$regress" ] && ls "$regress"/* >/dev/null 2>&1; then
        if ! "$bin" "$regress"/* >"$out/logs/$name.regress.log" 2>&1; then
            echo "$name: a regression input fails again ($out/logs/$name.regress.log)"; rc=1
        fi
    fi
    log=$out/logs/$name.log
    # FUZZ_RUNS (the suite's smoke): that many inputs from a fixed seed, the same every run, instead of a time
    budget=(-max_total_time="$seconds")
    [ -z "${FUZZ_RUNS:-}" ] || budget=(-runs="$FUZZ_RUNS" -seed=1)
    "$bin" "${budget[@]}" -timeout=10 -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$name-" "$corpus/$name" >"$log" 2>&1
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    printf '%-16s %10s execs %8s execs/s  %s\n' "$name" "${execs:-?}" "${rate:-?}" \
        "$([ "$status" -eq 0 ] && echo ok || echo "CRASH (see $log, $out/crashes/)")"
    [ "$status" -eq 0 ] || rc=1
done
exit $rc
