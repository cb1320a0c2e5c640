#!/usr/bin/env bash
# A short smoke of every libFuzzer harness (build/fuzz/fuzz_*, `make fuzz-build`): each runs 4000 inputs
# from a fixed seed on the seed corpus from tests/fixtures, after replaying the crashes found before
# (tests/fuzz/regressions/<harness>/). `make fuzz` runs them longer.
source "$(dirname "$0")/../lib.sh"
bins=$(find "$LG_BUILD/fuzz" -maxdepth 1 -name "fuzz_*" -type f -executable 2>/dev/null)
[ -n "$bins" ] || { not_ok "fuzz harnesses are built (make fuzz-build)"; exit 1; }
# A fixed number of inputs from a fixed seed: the smoke is the same in every run (make fuzz explores).
out=$(FUZZ_RUNS=${LG_FUZZ_SMOKE_RUNS:-4000} bash "$LG_ROOT/tests/fuzz/run.sh" 3 "$LG_TMP/corpus" "$LG_BUILD/fuzz/smoke" 2>&1)
rc=$?
while read -r name execs _ rate _ verdict; do
    check_eq "$name: no crash, no regression ($execs execs, $rate execs/s)" ok "$verdict"
done < <(grep '^fuzz_' <<<"$out")
check_eq "every harness ran" "$(wc -w <<<"$bins")" "$(grep -c '^fuzz_.* execs ' <<<"$out")"
check_eq "run.sh passed" 0 "$rc"
[ "$rc" -eq 0 ] || diag "$out"
lg_done
