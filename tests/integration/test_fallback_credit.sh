#!/usr/bin/env bash
# Issue 34: a configured fallback serves while the primary cannot (retry.fallback_after_ms), and an account
# out of credit is set aside (QUOTA_EXHAUSTED, detail billing) for backoff.billing_ms with one line on
# stderr across processes. Real curl processes under the preload against the mock.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dry-credit": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-short-rl": {"sequence": [{"error": "rate_limit", "retry_after_ms": 1000}]}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_DRY=sk-dry-credit KEY_RL=sk-short-rl KEY_BACKUP=sk-backup-credit
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
KEYS="sk-dry-credit sk-short-rl sk-backup-credit sk-host"
reset_mock() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
fresh_store() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; }
keys_seen() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
# write_config NAME PRIMARY-KEY-VAR FALLBACK-MEMBER RETRY-MEMBERS: openai with one account, maybe a fallback.
write_config() {
    printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "%s", "key": "env:%s"}]%s},
  "backup": {"dialect": "openai", "upstream": "%s/", "accounts": [{"name": "spare", "key": "env:KEY_BACKUP"}]}},
 "retry": {%s}}\n' "$MOCK_URL" "$2" "$3" "$4" "$MOCK_URL" "$5" >"$LG_TMP/$1.json"
    chmod 600 "$LG_TMP/$1.json"
}
# ask CONFIG N: one curl process under the preload; its status code (stdout), stderr in $LG_TMP/err.N,
# wall time in ms in $LG_TMP/ms.N.
ask() {
    local t0 t1 code
    t0=$(date +%s%3N)
    code=$(LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" \
        -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err.$2")
    t1=$(date +%s%3N)
    echo $((t1 - t0)) >"$LG_TMP/ms.$2"
    echo "$code"
}
FB='"fallback": ["backup"]'
CREDIT='^llmgate: openai: account dry is out of credit \(billing\), set aside for 240 min or until `llmgate reset openai/dry`$'

# 1. The primary's only key is out of credit: the fallback serves at once, the dry key is tried once and
#    not again within its set-aside (three processes), and one line says so.
write_config dry dry KEY_DRY ", $FB" '"max_rate_limit_wait_seconds": 300'
check_eq "dry: the host gets the fallback's answer" 200 "$(ask dry 1)"
check "dry: in under 2 s (took $(cat "$LG_TMP/ms.1") ms)" test "$(cat "$LG_TMP/ms.1")" -lt 2000
check_eq "dry: the dry key once, then the fallback's" "sk-dry-credit sk-backup-credit" "$(keys_seen)"
check_match "dry: one line on stderr names the account out of credit" "$CREDIT" "$(cat "$LG_TMP/err.1")"
check_eq "dry: only that line" 1 "$(wc -l <"$LG_TMP/err.1")"
check_eq "dry: a second and a third process are served" "200 200" "$(ask dry 2) $(ask dry 3)"
check "dry: each in under 2 s ($(cat "$LG_TMP/ms.2") and $(cat "$LG_TMP/ms.3") ms)" \
    test "$(cat "$LG_TMP/ms.2")" -lt 2000 -a "$(cat "$LG_TMP/ms.3")" -lt 2000
check_eq "dry: the mock saw no second request on the dry key" \
    "sk-dry-credit sk-backup-credit sk-backup-credit sk-backup-credit" "$(keys_seen)"
check_eq "dry: no more credit lines from the later processes" "" "$(cat "$LG_TMP/err.2" "$LG_TMP/err.3")"
acct() { LLMGATE_CONFIG=$LG_TMP/dry.json "$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['dry']['$1']"; }
check_eq "dry: status shows the set-aside (reason, detail)" "False QUOTA_EXHAUSTED billing" \
    "$(acct available) $(acct reason) $(acct detail)"
check "dry: set aside for about backoff.billing_ms (4 h)" test "$(acct cooldown_remaining_ms | cut -d. -f1)" -gt 14000000
check_match "dry: classify says billing" '"reason":"QUOTA_EXHAUSTED","detail":"billing"' \
    "$(printf 'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}' |
        "$LG_CLI" classify --provider openai)"
check_eq "dry: llmgate reset lifts it" "openai/dry: cooldown cleared" "$(LLMGATE_CONFIG=$LG_TMP/dry.json "$LG_CLI" reset openai/dry)"
check_eq "dry: after the reset the dry key is tried again, then the fallback" "200 sk-dry-credit sk-backup-credit" \
    "$(reset_mock; ask dry 4) $(keys_seen)"
check_match "dry: its new set-aside is said again" "$CREDIT" "$(cat "$LG_TMP/err.4")"

# 2. Four processes at once on the dry key: one credit line between them, never a key.
fresh_store
reset_mock
pids=()
for i in 11 12 13 14; do
    ask dry "$i" >"$LG_TMP/code.$i" &
    pids+=($!)
done
wait "${pids[@]}"
check_eq "four processes: all served" "200200200200" "$(cat "$LG_TMP"/code.{11,12,13,14} | tr -d '\n')"
check_eq "four processes: one credit line between them" 1 "$(cat "$LG_TMP"/err.{11,12,13,14} | grep -cE "$CREDIT")"
check_eq "four processes: nothing else on stderr" 1 "$(cat "$LG_TMP"/err.{11,12,13,14} | wc -l)"
check_no_key "no key on stderr, in the store or the state directory" "$KEYS" \
    "$LG_TMP"/err.* "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"

# 3. A short rate limit (429, Retry-After: 1) with fallback_after_ms above it: the request waits, the
#    primary serves.
fresh_store
reset_mock
write_config above rl KEY_RL ", $FB" '"fallback_after_ms": 3000'
check_eq "Retry-After 1 s, fallback_after_ms 3 s: served" 200 "$(ask above 21)"
check_eq "Retry-After 1 s, fallback_after_ms 3 s: the primary waited and served, no fallback" \
    "sk-short-rl sk-short-rl" "$(keys_seen)"
gap=$(lg_arrivals sk-short-rl | awk 'NR == 1 {a = $1} NR == 2 {print $1 - a}')
check "Retry-After 1 s: the retry came after the second (${gap} ms)" test "${gap:-0}" -ge 900

# 4. The same with fallback_after_ms below it: the fallback at once, the next request too while the primary
#    cools down, the primary again once its cooldown ended.
fresh_store
reset_mock
write_config below rl KEY_RL ", $FB" '"fallback_after_ms": 200'
check_eq "Retry-After 1 s, fallback_after_ms 200 ms: served" 200 "$(ask below 31)"
check_eq "Retry-After 1 s, fallback_after_ms 200 ms: the fallback served, the primary not waited for" \
    "sk-short-rl sk-backup-credit" "$(keys_seen)"
check "fallback_after_ms 200 ms: served before the primary's second was over ($(cat "$LG_TMP/ms.31") ms)" \
    test "$(cat "$LG_TMP/ms.31")" -lt 1000
check_eq "fallback_after_ms 200 ms: the next request, within the cooldown, goes to the fallback at once" \
    "200 sk-short-rl sk-backup-credit sk-backup-credit" "$(ask below 32) $(keys_seen)"
sleep 1.5
check_eq "fallback_after_ms 200 ms: after the cooldown the primary is probed again and serves" \
    "200 sk-short-rl sk-backup-credit sk-backup-credit sk-short-rl" "$(ask below 33) $(keys_seen)"

# 5. Without a fallback, today's behaviour: the request waits for the primary whatever fallback_after_ms says.
fresh_store
reset_mock
write_config alone rl KEY_RL "" '"fallback_after_ms": 200'
check_eq "no fallback: the primary waited for and served" "200 sk-short-rl sk-short-rl" "$(ask alone 41) $(keys_seen)"

lg_done
