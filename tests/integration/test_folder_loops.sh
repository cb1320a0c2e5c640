#!/usr/bin/env bash
# The house's shape, on the built objects of libllmgate.so (tests/tools/folder_deps.py, nm on each):
# no loop between folders, at the level of the symbols each folder's objects define and use (an arrow
# made by an interposed symbol of exports.map, a core file's read or close binding to our own hook, is
# what interposition forces and is not counted), and no folder of src/ holds more than 20 .c files.
source "$(dirname "$0")/../lib.sh"

out=$(/usr/bin/python3 "$LG_ROOT/tests/tools/folder_deps.py" --dot "$LG_TMP/folders.dot" 2>&1)
rc=$?
if [ "$rc" -eq 2 ]; then
    not_ok "the library's objects are built"
    diag "$out"
    lg_done
    exit
fi
# Loops, each with the arrows and symbols that make it, and the folders over the count, in the diagnostics.
if grep -q '^no loop between folders$' <<<"$out"; then ok "no loop between folders"
else not_ok "no loop between folders"; sed -n '/^loop /,$p' <<<"$out" | grep -v '^crowded:' | sed 's/^/# /'; fi
if grep -q '^no folder holds more than 20 .c files$' <<<"$out"; then ok "no folder holds more than 20 .c"
else not_ok "no folder holds more than 20 .c"; grep '^crowded:' <<<"$out" | sed 's/^/# /'; fi
check "the folder graph is written" test -s "$LG_TMP/folders.dot"
lg_done
