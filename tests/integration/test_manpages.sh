#!/usr/bin/env bash
# The man pages: they format without warnings; llmgate.json(5) documents exactly the fields the config
# parser accepts (asked of the parser itself through check-config's "unknown key (expected one of: ...)"
# message, section by section, so the page and src/conf cannot drift apart); llmgate(1) names every
# command and every LLMGATE_/XDG_ variable the code reads, and both carry the build's version.
source "$(dirname "$0")/../lib.sh"
MAN=$LG_ROOT/man
PY=/usr/bin/python3

for page in llmgate.1 llmgate.json.5; do
    warnings=$(groff -man -Tutf8 -ww -z "$MAN/$page" 2>&1)
    check_eq "$page formats without warnings" "" "$warnings"
    version=$("$LG_CLI" --version | sed -n '1s/^llmgate //p')
    check_match "$page carries the version $version" "^\\.TH [^ ]+ [0-9] [^ ]+ \"llmgate $version\"" \
        "$(grep '^\.TH' "$MAN/$page")"
done

# Fields documented: the tag of every ".TP" item in llmgate.json(5), e.g. providers.NAME.accounts[].key.
documented=$(awk 'prev == ".TP" && /^\.B [a-z_]/ { print $2 } { prev = $0 }' "$MAN/llmgate.json.5" | sort)

# What the parser says about a config with one unknown member placed at a documented path (NAME stands for
# a preset provider, [] for the first element): the names it accepts there, one per line, or nothing when
# the place takes no object of named fields.
accepted_at() { # path ("" for the top level)
    "$PY" - "$1" >"$LG_TMP/probe.json" <<'PY'
import json, sys
path = sys.argv[1]
node = {"zz_not_a_field": 1}
for seg in reversed(path.split(".") if path else []):
    if seg == "NAME":
        seg = "openai"
    if seg.endswith("[]"):
        node = {seg[:-2]: [node]}
    else:
        node = {seg: node}
print(json.dumps(node))
PY
    local where=${1//NAME/openai}
    where=${where//\[\]/[0]}
    "$LG_CLI" check-config "$LG_TMP/probe.json" 2>&1 |
        sed -n "s/^.*: ${where:+${where//[/\\[}.}zz_not_a_field: unknown key (expected one of: \\(.*\\))\$/\\1/p" |
        tr -d ' ' | tr ',' '\n'
}

sections=$(sed -n 's/\.[^.]*$//p' <<<"$documented" | sort -u)
parser=$( { for s in "" $sections; do accepted_at "$s" | sed "s/^/${s:+$s.}/"; done; } | sort)
check_eq "every field the parser accepts is in llmgate.json(5)" "" "$(comm -23 <(echo "$parser") <(echo "$documented"))"
check_eq "every field in llmgate.json(5) is accepted by the parser" "" "$(comm -13 <(echo "$parser") <(echo "$documented"))"
check "the probe found fields in every section ($(wc -l <<<"$parser") fields)" test "$(wc -l <<<"$parser")" -ge 30

# A documented field that is itself an object of named fields must have them documented too.
nested=""
for f in $documented; do
    members=$(awk -v p="$f." 'index($0, p) == 1' <<<"$documented")
    [ -n "$members" ] || [ -z "$(accepted_at "$f")" ] || nested="$nested $f"
done
check_eq "no documented field hides undocumented members" "" "$nested"

# llmgate(1): every command of the command line, every environment variable the code reads.
for cmd in run relay ca status check-config classify route usage help; do
    check "llmgate(1) documents '$cmd' and 'llmgate help $cmd' answers" \
        bash -c "grep -q '^\\.B llmgate $cmd' '$MAN/llmgate.1' && '$LG_CLI' help $cmd >/dev/null"
done
check "llmgate(1) documents --version" grep -q '^\.B llmgate \\-\\-version' "$MAN/llmgate.1"
env_section=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$MAN/llmgate.1")
for var in $(grep -rhoE 'getenv\("(LLMGATE|XDG)_[A-Z_]+"\)' "$LG_ROOT/src" | sed 's/.*("\(.*\)")/\1/' | sort -u); do
    check "llmgate(1) documents \$$var" grep -qx "\.B $var" <<<"$env_section"
done
lg_done
