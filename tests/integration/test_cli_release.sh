#!/usr/bin/env bash
# The llmgate command as a new user meets it: --version/-V (version from debian/changelog, library and
# config in effect), help COMMAND and COMMAND --help, status --textfile (atomic node-exporter file after
# real traffic through the mock), and the bash completion (every command and option the help names).
source "$(dirname "$0")/../lib.sh"

# --version
version=$(head -n1 "$LG_ROOT/debian/changelog" | sed 's/^[^(]*(\([^-)]*\).*/\1/')
out=$("$LG_CLI" --version)
check_eq "--version: first line is the changelog's version" "llmgate $version" "$(head -n1 <<<"$out")"
check_eq "-V and version say the same" "$out$out" "$("$LG_CLI" -V)$("$LG_CLI" version)"
check_match "--version: built against libcurl and OpenSSL" 'built against: libcurl [0-9.]+.*OpenSSL [0-9]' "$out"
check_eq "--version: the library run preloads" "library: $(readlink -f "$LG_LIB")" "$(grep '^library:' <<<"$out")"
check_eq "--version: no config file: the presets" "config: (defaults)" "$(grep '^config:' <<<"$out")"
echo '{"retry": {"max_attempts": 3}}' >"$LG_TMP/ok.json"
check_eq "--version: the config file in effect" "config: $LG_TMP/ok.json" \
    "$(LLMGATE_CONFIG=$LG_TMP/ok.json "$LG_CLI" --version | grep '^config:')"
echo '{"retry": {"max_attempts": 0}}' >"$LG_TMP/bad.json"
check_match "--version: a broken config is pointed at check-config" '^config: has problems.*check-config' \
    "$(LLMGATE_CONFIG=$LG_TMP/bad.json "$LG_CLI" --version | grep '^config:')"
check_eq "--version: LLMGATE_LIB to nowhere: said" "library: not found (set LLMGATE_LIB)" \
    "$(LLMGATE_LIB=/nonexistent "$LG_CLI" --version | grep '^library:')"

# help
for cmd in run status check-config classify; do
    h=$("$LG_CLI" help "$cmd")
    check_match "help $cmd: usage and exit status" "^usage: llmgate $cmd.*exit status:" "$(tr '\n' ' ' <<<"$h")"
    check_eq "$cmd --help is help $cmd" "$h" "$("$LG_CLI" "$cmd" --help)"
done
"$LG_CLI" help frobnicate >/dev/null 2>"$LG_TMP/err"
check_eq "help of an unknown command: status 2" 2 $?
check_match "help of an unknown command: named" "no command 'frobnicate'" "$(cat "$LG_TMP/err")"

# status --textfile after real traffic
lg_start_mock --quiet
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "limits": {"rpm": 50},
  "accounts": [{"name": "main", "key": "env:KEY_MAIN"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
export KEY_MAIN=sk-textfile LLMGATE_CONFIG=$LG_TMP/config.json
LD_PRELOAD=$LG_LIB curl -s -o /dev/null http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer x' \
    -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
mkdir -p "$LG_TMP/textfiles"
prom=$LG_TMP/textfiles/llmgate.prom
"$LG_CLI" status --textfile "$prom"
check_eq "textfile: written, status 0" 0 $?
check_eq "textfile: the Prometheus exposition" "$("$LG_CLI" status --prometheus)" "$(cat "$prom")"
check_match "textfile: holds the account's requests" 'llmgate_requests_total\{provider="openai",account="main"\} 1' "$(cat "$prom")"
check_eq "textfile: mode 0644 for the collector" 644 "$(stat -c %a "$prom")"
check_eq "textfile: nothing else left in the directory" "llmgate.prom" "$(ls -A "$LG_TMP/textfiles")"
check "textfile: no key in it" bash -c "! grep -q sk-textfile '$prom'"
old=$(cat "$prom")
mkdir -m 0700 "$LG_TMP/a-directory" # a state "file" that cannot be opened
echo "{\"store\": {\"path\": \"$LG_TMP/a-directory\"}}" >"$LG_TMP/badstore.json"
"$LG_CLI" status --config "$LG_TMP/badstore.json" --textfile "$prom" 2>/dev/null
check_eq "textfile: the state cannot be read: status 1" 1 $?
check_eq "textfile: then the old file is kept whole" "$old" "$(cat "$prom")"
check_eq "textfile: and no temporary file is left" "llmgate.prom" "$(ls -A "$LG_TMP/textfiles")"
"$LG_CLI" status --textfile "$LG_TMP/missing-dir/x.prom" 2>/dev/null
check_eq "textfile: a directory that does not exist: status 1" 1 $?
"$LG_CLI" status --json --textfile "$prom" 2>/dev/null
check_eq "textfile with --json: usage error" 2 $?
unset LLMGATE_CONFIG

# bash completion, without the bash-completion package
complete_words() { # words of the command line being completed (the last one is the current word)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _llmgate; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$LG_ROOT/completions/llmgate.bash" "$@" | sort | tr '\n' ' '
}
for cmd in $("$LG_CLI" help | sed -n 's/^  \([a-z-]*\) .*/\1/p'); do
    check_match "completion: the command $cmd" "(^| )$cmd " "$(complete_words llmgate "")"
done
for cmd in run status check-config classify; do
    for opt in $("$LG_CLI" help "$cmd" | grep -oE '(^| |\[)--[a-z]+' | tr -d ' [' | sort -u); do
        check_match "completion: $cmd $opt" "(^| )$opt " "$(complete_words llmgate "$cmd" "--")"
    done
done
check_eq "completion: st -> status" "status " "$(complete_words llmgate st)"
check_eq "completion: a file after --config" "ok.json " "$(cd "$LG_TMP" && complete_words llmgate run --config ok)"
check_match "completion: a command after run --" '(^| )true ' "$(complete_words llmgate run -- tru)"
check_eq "completion: help takes a command" "ca check-config classify " "$(complete_words llmgate help c)"
lg_done
