#!/usr/bin/env bash
# The state store against the size of the config (issue 33, item 4): 5 providers x 64 accounts (rpm 1 each)
# are more than the store holds, and check-config and the library refuse them in one line each (never a
# provider half enforced or silently unlimited); 4 x 58 accounts (the presets' host accounts beside them:
# 254 of 256) used in turn: every account served once, each provider limited as configured (its 59th
# request is refused locally at once: its wait, a whole window, is past the maximum), every account visible in `llmgate status`.
source "$(dirname "$0")/../lib.sh"

lg_start_mock --quiet --no-ratelimit-headers
WINDOW_MS=60000
# config NAME PROVIDERS ACCOUNTS: a 0600 config of custom openai-dialect providers p1..pN (hosts pN.example,
# upstream the mock), each with ACCOUNTS accounts aK of key sk-pN-aK, rpm 1 per WINDOW_MS.
config() {
    /usr/bin/python3 - "$LG_TMP/$1.json" "$2" "$3" "$MOCK_URL" "$WINDOW_MS" <<'PY'
import json, sys
path, np, na, url, win = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
prov = {f"p{p}": {"hosts": [f"p{p}.example"], "dialect": "openai", "upstream": url,
                  "accounts": [{"name": f"a{a}", "key": f"sk-p{p}-a{a}"} for a in range(1, na + 1)],
                  "limits": {"rpm": 1, "window_ms": win}} for p in range(1, np + 1)}
json.dump({"providers": prov, "retry": {"max_rate_limit_wait_seconds": 20}}, open(path, "w"))
PY
    chmod 600 "$LG_TMP/$1.json"
}
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
# ask CONFIG P: one request to provider pP under the preload; prints the status code.
ask() {
    LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}\n' \
        --connect-to "p$2.example:80:127.0.0.1:$MOCK_PORT" "http://p$2.example/v1/chat/completions" \
        -H 'Authorization: Bearer sk-host' -d "$BODY" 2>>"$LG_TMP/ask.err"
}

# 1. 5 x 64: refused, in one line, by check-config and by the library.
config big 5 64
"$LG_CLI" check-config "$LG_TMP/big.json" >"$LG_TMP/cc.out" 2>"$LG_TMP/cc.err"
check_eq "5x64: check-config refuses it" 1 "$?"
check_eq "5x64: in one line" 1 "$(wc -l <"$LG_TMP/cc.err")"
check_match "5x64: the line names the count and what the store holds" \
    '341 accounts in all .*the state store holds at most 64 providers and 256 accounts' "$(cat "$LG_TMP/cc.err")"
: >"$LG_TMP/ask.err"
check_eq "5x64: the library passes the request through" 200 "$(ask big 5)"
check_eq "5x64: the library says why in one line" 1 "$(grep -c 'configuration refused: .*the state store holds at most' "$LG_TMP/ask.err")"
check_eq "5x64: nothing else said" 1 "$(wc -l <"$LG_TMP/ask.err")"

# 2. 4 x 58 used in turn: each account once, then one more request per provider, which waits for room.
config fit 4 58
"$LG_CLI" check-config "$LG_TMP/fit.json" >/dev/null 2>"$LG_TMP/cc.err"
check_eq "4x58: check-config accepts it" "0 0" "$? $(wc -l <"$LG_TMP/cc.err")"
: >"$LG_TMP/ask.err"
codes=""
for p in 1 2 3 4; do
    for _ in $(seq 1 58); do codes+="$(ask fit "$p") "; done
done
check_eq "4x58: 232 successes" 232 "$(tr ' ' '\n' <<<"$codes" | grep -c '^200$')"
per_key=$(lg_stats | lg_json "str(len([k for k in j['keys'] if k.startswith('sk-p')])) + ' ' + str(max(v['requests'] for k, v in j['keys'].items() if k.startswith('sk-p')))")
check_eq "4x58: every account used once (keys seen, most requests on one key)" "232 1" "$per_key"
codes=""
for p in 1 2 3 4; do codes+="$(ask fit "$p") "; done
check_eq "4x58: each provider's 59th request refused locally (its window is full)" "429 429 429 429 " "$codes"
check_eq "4x58: the provider saw no more requests" 232 "$(lg_stats | lg_json "sum(v['requests'] for k, v in j['keys'].items() if k.startswith('sk-p'))")"
check_eq "4x58: the library said nothing" 0 "$(wc -l <"$LG_TMP/ask.err")"

json=$(LLMGATE_CONFIG=$LG_TMP/fit.json "$LG_CLI" status --json)
check_eq "status: the four providers with 58 accounts each, each limited to 1" "58 58 58 58 1" \
    "$(lg_json "' '.join(str(len(j['providers']['p%d' % p]['accounts'])) for p in range(1, 5)) + ' ' + str(max(a['rpmLimit'] for p in range(1, 5) for a in j['providers']['p%d' % p]['accounts'].values()))" <<<"$json")"

# 3. Another config sharing the store: 30 accounts more than the 26 entries left. Its provider goes on
# unlimited, and says so in one line (never silently).
/usr/bin/python3 - "$LG_TMP/other.json" "$MOCK_URL" <<'PY'
import json, sys
json.dump({"providers": {"p9": {"hosts": ["p9.example"], "dialect": "openai", "upstream": sys.argv[2],
                                "accounts": [{"name": f"a{a}", "key": f"sk-p9-a{a}"} for a in range(1, 31)],
                                "limits": {"rpm": 1, "window_ms": 60000}}}}, open(sys.argv[1], "w"))
PY
chmod 600 "$LG_TMP/other.json"
: >"$LG_TMP/ask.err"
check_eq "store full: the request goes on" 200 "$(ask other 9)"
check_eq "store full: one line says the provider is not limited" 1 \
    "$(grep -c 'the state store .* is full (64 providers, 256 accounts): p9 is not limited by it' "$LG_TMP/ask.err")"
check_eq "store full: nothing else said" 1 "$(wc -l <"$LG_TMP/ask.err")"
lg_done
