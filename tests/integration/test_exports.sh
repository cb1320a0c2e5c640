#!/usr/bin/env bash
# The library's exported symbols and its version script agree: the dynamic symbols libllmgate.so defines
# are exactly the global list of src/hook/base/exports.map, and every function the source marks EXPORT
# (src/hook/base/export.h) is one of them, so no interposer is hidden by the script and nothing else leaks.
source "$(dirname "$0")/../lib.sh"
MAP=$LG_ROOT/src/hook/base/exports.map

# The names between "global:" and "local:" of the version script, one a line, sorted.
mapped=$(sed -n '/global:/,/local:/p' "$MAP" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' | sort)
check "the version script lists global symbols" test -n "$mapped"

defined=$(nm -D --defined-only "$LG_LIB" | awk '{ print $3 }' | sed 's/@.*//' | sort)
check_eq "libllmgate.so defines exactly the version script's global symbols" "$mapped" "$defined"

# Every "EXPORT <type> name(" of the source: the last identifier before the parameter list.
exported=$(grep -rh --include='*.c' '^EXPORT ' "$LG_ROOT/src" | sed 's/(.*//' |
    awk '{ n = $NF; sub(/^\**/, "", n); print n }' | sort -u)
check "the source marks functions EXPORT" test -n "$exported"
stray=$(comm -23 <(echo "$exported") <(echo "$mapped"))
check_eq "every EXPORT of the source is in the version script" "" "$stray"
unmarked=$(comm -13 <(echo "$exported") <(echo "$mapped"))
check_eq "every symbol of the version script is an EXPORT of the source" "" "$unmarked"
defines=$(grep -rl --include='*.[ch]' '#define EXPORT' "$LG_ROOT/src" | sed "s|^$LG_ROOT/||")
check_eq "EXPORT is defined once, in src/hook/base/export.h" "src/hook/base/export.h" "$defines"

lg_done
