#!/usr/bin/env bash
# A 429 storm on a single key, through curl under the preload against the mock: processes waiting for one
# shared cooldown do not retry in lockstep. When the cooldown ends one request probes the key alone while
# the others wait for its outcome (the provider answers slowly, 300 ms), so the attempts the provider sees
# grow with time, not with the number of processes.
source "$(dirname "$0")/../lib.sh"

cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-storm": {"sequence": [{"error": "rate_limit", "retry_after_ms": 1000, "delay_ms": 300}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_STORM=sk-storm
cat >"$LG_TMP/storm.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:KEY_STORM"}]}},
 "retry": {"max_rate_limit_wait_seconds": 4, "max_attempts": 50}}
JSON
chmod 600 "$LG_TMP/storm.json"
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'

# storm PROCS: PROCS curl processes, one request each, at once; prints their status codes.
storm() {
    local p pids=()
    for p in $(seq 1 "$1"); do
        LLMGATE_CONFIG=$LG_TMP/storm.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}\n' \
            --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
            -H 'Authorization: Bearer sk-host' -d "$BODY" >"$LG_TMP/code.$p" &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$LG_TMP"/code.*
    rm -f "$LG_TMP"/code.*
}
attempts() { lg_stats | lg_json "j['total']['requests']"; }

codes=$(storm 8)
check_eq "every host request ends with the provider's 429 after the maximum wait" "8" "$(grep -c '^429$' <<<"$codes")"
n8=$(attempts)
diag "8 processes: $n8 attempts at the provider"
# Each process sends its first attempt at most once before it sees the shared cooldown; after that one
# probe per 1 s cooldown within the 4 s maximum wait (5 at most), plus slack for a probe lease handover.
# Processes retrying in lockstep would send about 8 × 5 = 40.
check "8 processes in a 4 s storm: attempts bounded by the first wave plus one probe per cooldown (≤ 16)" \
    test "$n8" -le 16
check "the key was probed again after its cooldowns (at least two more attempts)" test "$n8" -ge 3
curl -s -X POST "$MOCK_URL/__reset" >/dev/null
rm -rf "$XDG_RUNTIME_DIR"/* "$XDG_STATE_HOME"/*
storm 2 >/dev/null
n2=$(attempts)
diag "2 processes: $n2 attempts at the provider"
check "4 times the processes cost at most the extra first attempts, not 4 times the retries" \
    test "$n8" -le $((n2 + 6 + 3))
lg_done
