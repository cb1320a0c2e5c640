#!/usr/bin/env bash
# llmgate status after real traffic: window usage against the limits (configured, tier preset), the cooldown
# with its reason and end, counters; --json with the Triggerfish snapshot fields, --prometheus, --watch;
# never a key nor a digest; a long cooldown kept on disk survives the loss of the shared memory file.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-stat-main": {"sequence": [{"error": "quota", "retry_after_ms": 7200000}], "repeat": true}}}
JSON
# without the mock's default rate-limit headers: the token limits below are the configured ones (none: "-")
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet --no-ratelimit-headers
export KEY_MAIN=sk-stat-main KEY_BACKUP=sk-stat-backup KEY_TIER=sk-stat-tier
cat >"$LG_TMP/config.json" <<JSON
{"providers": {
  "openai": {"upstream": "$MOCK_URL", "limits": {"rpm": 50, "window_ms": 60000},
             "accounts": [{"name": "main", "key": "env:KEY_MAIN"}, {"name": "backup", "key": "env:KEY_BACKUP"}]},
  "tiered": {"dialect": "openai", "hosts": ["tiered.example"], "upstream": "$MOCK_URL", "limits": {"tier": "tier-2"},
             "accounts": [{"name": "t", "key": "env:KEY_TIER"}]}},
 "retry": {"switch_delay_ms": 10, "max_rate_limit_wait_seconds": 5}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
gated() { LD_PRELOAD=$LG_LIB "$@"; }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('$2', 0)"; }
digest() { printf %s "$1" | sha256sum | cut -c1-16; }

check_eq "before any traffic: nothing recorded" "no llmgate state yet" "$("$LG_CLI" status)"

# traffic: main is out of credit (OpenAI's insufficient_quota), set aside for backoff.billing_ms (4 h: its
# 2 h hint is shorter), the switch to backup immediate; three successes on backup
for _ in 1 2 3; do
    gated curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY"
done
gated curl -s -o /dev/null --connect-to "tiered.example:80:127.0.0.1:$MOCK_PORT" http://tiered.example/v1/chat/completions \
    -H 'Authorization: Bearer x' -d '{"model":"o1-mini","max_completion_tokens":16,"messages":[]}'
check_eq "traffic: main was tried once, backup served three" "1 3" "$(stat_of sk-stat-main requests) $(stat_of sk-stat-backup success)"

# text
text=$("$LG_CLI" status)
check_match "text: provider with its window" $'(^|\n)openai \\(window 60s\\)\n' "$text"
check_match "text: backup's window usage against the limit" $'\n  backup +3/50 +[0-9]+/- +available' "$text"
check_match "text: main's cooldown, reason and billing detail, compact" $'\n  main +0/50 +0/- +(3h59m|4h00m) quota/billing ' "$text"
check "text: every line fits 120 columns" test "$(awk '{ if (length > m) m = length } END { print m }' <<<"$text")" -le 120
wide=$("$LG_CLI" status --wide)
check_match "text --wide: main's cooldown, reason, billing detail and end" $'\n  main +0/50 +0/- +(3h59m|4h00m) QUOTA_EXHAUSTED/billing until [0-9:-]+' "$wide"
check_match "text --wide: the counters' full names" 'FAILURES +REQUESTS +IMMEDIATE +WAITED +RATE_LIMITED +RETRIES +SWITCHES +GIVEN_UP' "$wide"
check_match "text: tier preset limits for the o1 family" $'\n  t +1/1000 +[0-9]+/100000 ' "$text"

# json
json=$("$LG_CLI" status --json)
acct() { lg_json "j['providers']['$1']['accounts']['$2']['$3']" <<<"$json"; }
check_eq "json: backup snapshot (requestsUsed rpmLimit tpmLimit windowMs)" "3 50 0 60000" \
    "$(acct openai backup requestsUsed) $(acct openai backup rpmLimit) $(acct openai backup tpmLimit) $(acct openai backup windowMs)"
check_eq "json: tokensUsed holds the real usage the provider counted" "$(stat_of sk-stat-backup tokens)" \
    "$(acct openai backup tokensUsed)"
check_eq "json: main is set aside for billing" "False QUOTA_EXHAUSTED billing None" \
    "$(acct openai main available) $(acct openai main reason) $(acct openai main detail) $(acct openai backup detail)"
check "json: main's cooldown ends in about four hours" test "$(acct openai main cooldown_remaining_ms | cut -d. -f1)" -gt 14000000
check_eq "json: counters (main: requests immediate rate_limited switches; backup: requests immediate)" "1 1 1 1 3 2" \
    "$(acct openai main requests) $(acct openai main immediate) $(acct openai main rate_limited) $(acct openai main switches) $(acct openai backup requests) $(acct openai backup immediate)"
check_eq "json: tier-2 limits of the o1 family" "1000 100000" "$(acct tiered t rpmLimit) $(acct tiered t tpmLimit)"

# prometheus
prom=$("$LG_CLI" status --prometheus)
check_match "prometheus: window gauge" $'\nllmgate_window_requests\\{provider="openai",account="backup"\\} 3\n' "$prom"
check_match "prometheus: limit gauge" $'\nllmgate_window_requests_limit\\{provider="openai",account="backup"\\} 50\n' "$prom"
check_match "prometheus: cooldown with reason and detail" $'\nllmgate_cooldown_remaining_seconds\\{provider="openai",account="main",reason="QUOTA_EXHAUSTED",detail="billing"\\} [0-9]+\\.[0-9]{3}\n' "$prom"
check_match "prometheus: no detail label without one" $'\nllmgate_cooldown_remaining_seconds\\{provider="openai",account="backup",reason="NONE"\\} 0\\.000\n' "$prom"
bad=$(grep -vE '^(# (HELP|TYPE) llmgate_[a-z_]+ .+|llmgate_[a-z_]+\{provider="[^"]*"(,account="[^"]*"(,reason="[A-Z_]+"(,detail="[a-z]+")?)?|,model="[^"]*")?\} [0-9]+(\.[0-9]+)?)$' <<<"$prom")
check_eq "prometheus: every line is in the exposition format" "" "$bad"

# watch: refreshes until interrupted (waits up to 30 s for the second refresh on a loaded machine)
"$LG_CLI" status --watch 1 >"$LG_TMP/watch.out" &
watcher=$!
for _ in $(seq 1 300); do
    [ "$(grep -c 'Every 1s: llmgate status' "$LG_TMP/watch.out")" -ge 2 ] && break
    sleep 0.1
done
kill -TERM "$watcher" 2>/dev/null
wait "$watcher"
check "watch: refreshed at least twice" test "$(grep -c 'Every 1s: llmgate status' "$LG_TMP/watch.out")" -ge 2
check "watch: each refresh shows the accounts" test "$(grep -c '^  backup ' "$LG_TMP/watch.out")" -ge 2

# never a key (nor an 8-character slice of one) nor a digest
printf '%s\n' "$text" "$json" "$prom" >"$LG_TMP/outputs"
cat "$LG_TMP/watch.out" >>"$LG_TMP/outputs"
KEYS="sk-stat-main sk-stat-backup sk-stat-tier sk-host"
check_no_key "no key in any output, the shared store or the state directory" "$KEYS" \
    "$LG_TMP/outputs" "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
check_absent "no key digest in any output" "$LG_TMP/outputs" $(for k in $KEYS; do digest "$k"; done)

# the long cooldown is on disk: private, digests only
state=$XDG_STATE_HOME/llmgate/cooldowns
check_eq "state file: mode 0600 in a 0700 directory" "600 700" "$(stat -c %a "$state" 2>/dev/null) $(stat -c %a "$(dirname "$state")" 2>/dev/null)"
check_match "state file: main's cooldown by digest, set aside for billing" "openai	main	$(digest sk-stat-main)	[0-9]+	QUOTA_EXHAUSTED	1	[0-9]+	billing" "$(cat "$state")"
check_absent "state file: short cooldowns are not kept" "$state" backup

# a reboot loses the shared memory: the cooldown comes back from the state file
rm -rf "$XDG_RUNTIME_DIR/llmgate"
json=$("$LG_CLI" status --json)
check_eq "after losing the store: main still set aside for billing" "False QUOTA_EXHAUSTED billing" \
    "$(acct openai main available) $(acct openai main reason) $(acct openai main detail)"
gated curl -s -o /dev/null "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY"
check_eq "after losing the store: main is not tried again" "1 4" "$(stat_of sk-stat-main requests) $(stat_of sk-stat-backup success)"

lg_done
