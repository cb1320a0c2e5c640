#!/usr/bin/env bash
# Issue 37, item 5: a key the provider refuses (401) is set aside for every process on the machine
# (backoff.key_refused_ms, detail key-refused, in the shared store), shown by `llmgate status` and lifted by
# `llmgate reset`, with one line on stderr across processes naming the account, never the key. Four curl
# processes under the preload, in turn and then at once, against the mock: the refused key reaches the
# mock once, every process gets the second account's answer.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-zq81vx": {"sequence": [{"error": "auth"}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_BAD=sk-zq81vx KEY_GOOD=sk-mw27pk
KEYS="sk-zq81vx sk-mw27pk sk-host"
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
keys_seen() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "first", "key": "env:KEY_BAD"},
  {"name": "second", "key": "env:KEY_GOOD"}]}}}\n' "$MOCK_URL" >"$LG_TMP/cfg.json"
chmod 600 "$LG_TMP/cfg.json"
export LLMGATE_CONFIG=$LG_TMP/cfg.json
# ask N: one curl process under the preload; its status code (stdout), stderr in $LG_TMP/err.N.
ask() {
    LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' \
        -d "$BODY" 2>"$LG_TMP/err.$1"
}
LINE='^llmgate: openai: account first has its key refused by the provider \(key-refused\), set aside for 240 min or until `llmgate reset openai/first`$'
acct() { "$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['first']['$1']"; }

# 1. Four processes in turn: the refused key once, the second account's answer for all four.
check_eq "in turn: all four get the second account's answer" "200 200 200 200" "$(ask 1) $(ask 2) $(ask 3) $(ask 4)"
check_eq "in turn: the mock saw the refused key once, then only the second's" \
    "sk-zq81vx sk-mw27pk sk-mw27pk sk-mw27pk sk-mw27pk" "$(keys_seen)"
check_match "in turn: the first process says the account is set aside" "$LINE" "$(cat "$LG_TMP/err.1")"
check_eq "in turn: one line in all, the first process's" 1 "$(cat "$LG_TMP"/err.{1,2,3,4} | wc -l)"
check_eq "status --json: set aside, with the detail key-refused" "False key-refused" "$(acct available) $(acct detail)"
check "status --json: for about backoff.key_refused_ms (4 h)" test "$(acct cooldown_remaining_ms | cut -d. -f1)" -gt 14000000
check_match "status (text): the detail beside the reason" '/key-refused' "$("$LG_CLI" status)"
check_match "status (Prometheus): the detail label" 'account="first".*detail="key-refused"' \
    "$("$LG_CLI" status --prometheus | grep cooldown)"
check_eq "llmgate reset lifts it" "openai/first: cooldown cleared" "$("$LG_CLI" reset openai/first)"
check_eq "after the reset: available again, no detail" "True None" \
    "$(acct available) $("$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['first'].get('detail')")"

# 2. Four processes at once on a fresh store: one of them tries the refused key; one line between them.
#    (A limit of 1 request per 0.3 s window on each account spaces two attempts on one key, so the refusal
#    is recorded before another process may choose that key: without the shared set-aside they would all
#    try it in turn.)
fresh_store
reset_mock
printf '{"providers": {"openai": {"upstream": "%s", "limits": {"rpm": 1, "window_ms": 300},
  "accounts": [{"name": "first", "key": "env:KEY_BAD"}, {"name": "second", "key": "env:KEY_GOOD"}]}}}\n' \
    "$MOCK_URL" >"$LG_TMP/cfg.json"
pids=()
for i in 11 12 13 14; do
    ask "$i" >"$LG_TMP/code.$i" &
    pids+=($!)
done
wait "${pids[@]}"
check_eq "at once: all four get the second account's answer" "200200200200" "$(cat "$LG_TMP"/code.{11,12,13,14})"
check_eq "at once: the mock saw the refused key once" 1 "$(keys_seen | tr ' ' '\n' | grep -c '^sk-zq81vx$')"
check_eq "at once: one line between them" 1 "$(cat "$LG_TMP"/err.{11,12,13,14} | grep -cE "$LINE")"
check_eq "at once: nothing else on stderr" 1 "$(cat "$LG_TMP"/err.{11,12,13,14} | wc -l)"
check_no_key "no key on stderr, in the store or the state directory" "$KEYS" \
    "$LG_TMP"/err.* "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"

# 3. The fleet: with the redis store, a process on a second machine (its own runtime directory, so its own
#    local store) skips the key a process of the first machine met refused.
if command -v redis-server >/dev/null; then
    fresh_store
    reset_mock
    lg_start_redis
    printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "first", "key": "env:KEY_BAD"},
  {"name": "second", "key": "env:KEY_GOOD"}]}}, "store": {"backend": "redis", "redis_url": "%s"}}\n' \
        "$MOCK_URL" "$REDIS_URL" >"$LG_TMP/cfg.json"
    mkdir -p "$LG_TMP/machine1" "$LG_TMP/machine2" && chmod 700 "$LG_TMP/machine1" "$LG_TMP/machine2"
    codes="$(XDG_RUNTIME_DIR=$LG_TMP/machine1 ask 21) $(XDG_RUNTIME_DIR=$LG_TMP/machine2 ask 22)"
    check_eq "redis: both machines get the second account's answer" "200 200" "$codes"
    check_eq "redis: the second machine never tried the refused key" "sk-zq81vx sk-mw27pk sk-mw27pk" "$(keys_seen)"
    check_eq "redis: status on the second machine shows the set-aside" "False key-refused" \
        "$(XDG_RUNTIME_DIR=$LG_TMP/machine2 acct available) $(XDG_RUNTIME_DIR=$LG_TMP/machine2 acct detail)"
    check_no_key "redis: no key on stderr or in either machine's store" "$KEYS" \
        "$LG_TMP"/err.2[12] "$LG_TMP/machine1" "$LG_TMP/machine2"
else
    skip "redis-server not installed" 4
fi
lg_done
