#!/usr/bin/env bash
# Issue 13, sane hints: a Retry-After date in 2999 is ignored, a 3-day hint is clamped to
# backoff.max_hint_ms (24 h) for the key, on disk and in the host's Retry-After, a cooldown restored from
# disk longer than that is cut; `llmgate reset [PROVIDER[/ACCOUNT]]` clears cooldowns in the store and on
# disk; `llmgate status` shows a slot with corrupt names as such, never its raw bytes.
source "$(dirname "$0")/../lib.sh"

# A per-day quota, not an account out of credit (whose set-aside, backoff.billing_ms, is no quota step).
QUOTA='{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-r on requests per day (RPD): Limit 200, Used 200, Requested 1.","type":"requests","code":"rate_limit_exceeded"}}'
cat >"$LG_TMP/scenario.json" <<JSON
{"keys": {
  "sk-r-main": {"sequence": [{"status": 429, "body": $QUOTA, "headers": {"retry-after": "Tue, 01 Jan 2999 00:00:00 GMT"}}], "repeat": true},
  "sk-r-long": {"sequence": [{"status": 429, "body": $QUOTA, "headers": {"retry-after": "259200"}}], "repeat": true},
  "sk-r-solo": {"sequence": [{"status": 429, "body": {"error": {"message": "slow down", "code": "rate_limit_exceeded"}},
                              "headers": {"retry-after": "259200"}}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_MAIN=sk-r-main KEY_LONG=sk-r-long KEY_BACKUP=sk-r-backup KEY_SOLO=sk-r-solo
cat >"$LG_TMP/config.json" <<JSON
{"providers": {
  "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_MAIN"},
             {"name": "long", "key": "env:KEY_LONG"}, {"name": "backup", "key": "env:KEY_BACKUP"}]},
  "solo": {"dialect": "openai", "hosts": ["solo.example"], "upstream": "$MOCK_URL",
           "accounts": [{"name": "only", "key": "env:KEY_SOLO"}]}},
 "retry": {"switch_delay_ms": 10, "max_rate_limit_wait_seconds": 2}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
gated() { LD_PRELOAD=$LG_LIB "$@"; }
openai() { gated curl -s -o /dev/null -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
    http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY"; }
stat_of() { lg_stats | lg_json "j['keys'].get('$1', {}).get('$2', 0)"; }
digest() { printf %s "$1" | sha256sum | cut -c1-16; }
acct() { "$LG_CLI" status --json | lg_json "j['providers']['$1']['accounts']['$2']['$3']"; }
state=$XDG_STATE_HOME/llmgate/cooldowns
day=86400000

check_eq "check-config renders backoff.max_hint_ms" "$day" "$("$LG_CLI" check-config | lg_json "j['backoff']['max_hint_ms']")"

check_eq "main (2999), then long (3 days), then backup served the request" "200 1 1 1" \
    "$(openai) $(stat_of sk-r-main requests) $(stat_of sk-r-long requests) $(stat_of sk-r-backup success)"
left_main=$(acct openai main cooldown_remaining_ms | cut -d. -f1)
left_long=$(acct openai long cooldown_remaining_ms | cut -d. -f1)
check "a date in 2999 is ignored: main waits the first quota step (60 s)" test "$left_main" -gt 0 -a "$left_main" -le 60000
check "a 3-day hint is clamped to 24 h" test "$left_long" -gt $((day - 60000)) -a "$left_long" -le "$day"
until_long=$(awk -F'\t' '$2 == "long" {print $4}' "$state")
check "on disk: long's cooldown ends within 24 h" test "${until_long:-0}" -gt 0 -a "${until_long:-0}" -le $(( $(date +%s%3N) + day ))

hdrs=$(gated curl -s -i -o - --connect-to "solo.example:80:127.0.0.1:$MOCK_PORT" http://solo.example/v1/chat/completions \
    -H 'Authorization: Bearer x' -d "$BODY" | tr -d '\r')
check_match "the host's Retry-After is clamped to 24 h" $'\n[Rr]etry-[Aa]fter: 86400\n' "$hdrs"

# reset one account: store and disk
check_eq "reset openai/long" "openai/long: cooldown cleared" "$("$LG_CLI" reset openai/long)"
check_eq "long is available again" "True 0" "$(acct openai long available) $(acct openai long failures)"
check_eq "main still cools down" "False" "$(acct openai main available)"
check "long is gone from the saved cooldowns" bash -c "! grep -q '	long	' '$state'"
"$LG_CLI" reset nobody >/dev/null 2>"$LG_TMP/reset.err"
check_eq "reset of an unknown provider fails" "1 llmgate: no account nobody in the state" "$? $(cat "$LG_TMP/reset.err")"

# on disk: a cooldown until 2999 is not restored; one of ten days (longer than any the policy sets) is,
# and is cut to 24 h when the account is next considered
now=$(date +%s%3N)
printf 'llmgate-cooldowns 1\nopenai\tlong\t%s\t%s\tQUOTA_EXHAUSTED\t1\t%s\nopenai\tbackup\t%s\t32472144000000\tQUOTA_EXHAUSTED\t1\t%s\n' \
    "$(digest sk-r-long)" $((now + 10 * day)) "$now" "$(digest sk-r-backup)" "$now" >"$state"
rm -rf "$XDG_RUNTIME_DIR/llmgate"
check_eq "restored from disk: the ten-day cooldown, not the one until 2999" "False False" \
    "$(acct openai long available) $("$LG_CLI" status --json | lg_json "'backup' in j['providers']['openai']['accounts']")"
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
check_eq "then a request: main is tried (its short cooldown was not kept), long is skipped" "200 1 0" \
    "$(openai) $(stat_of sk-r-main requests) $(stat_of sk-r-long requests)"
left_long=$(acct openai long cooldown_remaining_ms | cut -d. -f1)
check "the restored cooldown was cut to 24 h" test "$left_long" -le "$day" -a "$left_long" -gt $((day - 60000))

# reset everything
out=$("$LG_CLI" reset)
check_match "reset without argument clears every cooldown" "openai/long: cooldown cleared" "$out"
check_eq "every account is available" "True True True" \
    "$(acct openai main available) $(acct openai long available) $(acct openai backup available)"
check_eq "nothing left on disk" "llmgate-cooldowns 1" "$(cat "$state")"
check_eq "a second reset has nothing to do" "no cooldown to clear" "$("$LG_CLI" reset openai)"

# a slot whose name holds raw bytes (a corrupt store) is shown as corrupt, never printed
file=$XDG_RUNTIME_DIR/llmgate/state.shm
/usr/bin/python3 - "$file" <<'PY'
import sys
p = sys.argv[1]
data = bytearray(open(p, 'rb').read())
needle = b'openai' + b'\0' * 58 + b'long\0'
i = data.find(needle)
assert i > 0, 'slot not found'
evil = b'\x1b[31mEVIL\x07\xff'
data[i + 64:i + 128] = evil + b'\xfe' * (64 - len(evil))
open(p, 'r+b').write(data)
PY
text=$("$LG_CLI" status) json=$("$LG_CLI" status --json) prom=$("$LG_CLI" status --prometheus)
check_match "status: the corrupt slot is shown as such" $'\\(corrupt\\)\n  #1 ' "$text"
check_eq "json: the corrupt slot under (corrupt)" "#1" "$(lg_json "list(j['providers']['(corrupt)']['accounts'])[0]" <<<"$json")"
raw=$(printf '%s' "$text$json$prom" | LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f\x80-\xff]')
check_eq "no raw control or invalid bytes in any output" 0 "$raw"
check_eq "reset skips the corrupt slot" "no cooldown to clear" "$("$LG_CLI" reset)"

lg_done
