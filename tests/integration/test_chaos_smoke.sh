#!/usr/bin/env bash
# A short smoke of the chaos test (tests/bench/chaos.sh, 10000 requests in `make bench`): 300 requests from
# three curl processes through a mock injecting every error kind, resets, truncations, delays and errors
# in streams; nothing lost or duplicated, every body intact, attempts within the policy's bounds.
source "$(dirname "$0")/../lib.sh"
out=$(bash "$LG_ROOT/tests/bench/chaos.sh" "${LG_CHAOS_SMOKE_REQUESTS:-300}" 3 2>&1)
rc=$?
while read -r verdict what; do
    if [ "$verdict" = ok ]; then ok "$what"; else not_ok "$what"; fi
done < <(grep -E '^(ok  |FAIL) ' <<<"$out")
check "the chaos run checked six properties" test "$(grep -cE '^(ok  |FAIL) ' <<<"$out")" -eq 6
check_eq "chaos.sh passed" 0 "$rc"
grep -E "^(chaos|  )" <<<"$out" | while read -r l; do diag "$l"; done
lg_done
