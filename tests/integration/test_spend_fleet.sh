#!/usr/bin/env bash
# Issue 36, spend across a fleet: two "machines" (separate runtime directories, so separate spend files)
# sharing one redis-server of our own. Each machine pushes what it counted in batches (spend.flush_requests
# requests, and at a process's exit), never a Redis call per request; `llmgate usage --json` on either
# machine shows the sum of both, each request counted once, its cost the hand-computed one; a budget crossed
# on one machine refuses the other machine's requests once that machine's push brought the fleet's total
# back (as far as a batch allows).
source "$(dirname "$0")/../lib.sh"
command -v redis-server >/dev/null || { not_ok "redis-server installed (make deps)"; exit 1; }

lg_start_mock --quiet
lg_start_redis
export KO=sk-fl-8Qm2Vx4T
cat >"$LG_TMP/fleet.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KO"}]}},
 "prices": {"models": [{"provider": "openai", "model": "fleet-model", "input": 1000, "output": 2000}]},
 "store": {"backend": "redis", "redis_url": "$REDIS_URL"},
 "spend": {"flush_requests": 3, "flush_ms": 600000}}
JSON
chmod 600 "$LG_TMP/fleet.json"
export LLMGATE_CONFIG=$LG_TMP/fleet.json
mkdir -p "$LG_TMP/m1" "$LG_TMP/m2" && chmod 700 "$LG_TMP/m1" "$LG_TMP/m2"
URL=http://api.openai.com/v1/chat/completions
body() { echo "{\"model\":\"$1\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"fleet $2\"}]}"; }
execs() { redis-cli -p "$REDIS_PORT" info commandstats | sed -n 's/^cmdstat_exec:calls=\([0-9]*\),.*/\1/p' | grep . || echo 0; }

# Machine 1: one process, five requests (curl's URLs one after the other): a push after the third, the
# other two at its exit. Machine 2: three processes of one request each (each pushes at its exit).
e0=$(execs)
args=()
for i in 1 2 3 4 5; do args+=(-o "$LG_TMP/m1.$i" -d "$(body fleet-model $i)" "$URL"); [ $i -lt 5 ] && args+=(--next); done
XDG_RUNTIME_DIR=$LG_TMP/m1 LD_PRELOAD=$LG_LIB curl -s --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
    -H 'content-type: application/json' "${args[@]}"
e1=$(execs)
check_eq "machine 1: five requests pushed in two transactions (after the third, at exit)" 2 $((e1 - e0))
for i in 1 2 3; do
    XDG_RUNTIME_DIR=$LG_TMP/m2 LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/m2.$i" \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" -H 'content-type: application/json' \
        -d "$(body fleet-model m2-$i)" "$URL"
done
diag "an answer's usage: $(lg_json 'j["usage"]' <"$LG_TMP/m1.1")"
check_eq "the mock saw 8 requests" 8 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"

# The cost by hand: 1000 USD per million input tokens, 2000 per million output, from each answer's usage.
expected=$(/usr/bin/python3 - "$LG_TMP" <<'PY'
import glob, json, sys
c = 0.0
for f in glob.glob(sys.argv[1] + "/m[12].[0-9]"):
    u = json.load(open(f))["usage"]
    c += u["prompt_tokens"] * 1000 / 1e6 + u["completion_tokens"] * 2000 / 1e6
print(f"{c:.9f}")
PY
)
for m in m1 m2; do
    got=$(XDG_RUNTIME_DIR=$LG_TMP/$m "$LG_CLI" usage --json --by provider,model 2>"$LG_TMP/usage.$m.err" |
        lg_json '"%d %.9f" % (j["total"]["requests"], j["total"]["cost_usd"])')
    check_eq "usage --json on $m: the fleet's 8 requests and their cost" "8 $expected" "$got"
    check_eq "usage on $m: nothing on stderr" "" "$(cat "$LG_TMP/usage.$m.err")"
done
check "no key in Redis" bash -c "! redis-cli -p $REDIS_PORT --scan | xargs -r -n1 redis-cli -p $REDIS_PORT dump | grep -aq sk-fl"
ttl=$(redis-cli -p "$REDIS_PORT" ttl "llmgate:{spend}:d:$(( $(date +%s) / 86400 ))")
check "the day's totals expire (TTL $ttl s, about 41 days)" test "$ttl" -gt 3500000

# A budget crossed on machine 1 refuses on machine 2 once machine 2's push learned the fleet's total.
cat >"$LG_TMP/budget.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KO"}]}},
 "prices": {"models": [{"provider": "openai", "model": "fleet-model", "input": 500, "output": 1000}]},
 "store": {"backend": "redis", "redis_url": "$REDIS_URL"},
 "spend": {"flush_requests": 1, "flush_ms": 600000},
 "budgets": [{"name": "fleetwide", "match": {"model": "fleet-model"}, "per": "day", "usd": 0.05}]}
JSON
chmod 600 "$LG_TMP/budget.json"
code() {
    XDG_RUNTIME_DIR=$LG_TMP/$1 LLMGATE_CONFIG=$LG_TMP/budget.json LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/b.out" \
        -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
        -H 'content-type: application/json' -d "$(body fleet-model budget)" "$URL" 2>>"$LG_TMP/b.err"
}
rm -rf "$LG_TMP/m3" "$LG_TMP/m4" && mkdir -p "$LG_TMP/m3" "$LG_TMP/m4" && chmod 700 "$LG_TMP/m3" "$LG_TMP/m4"
m3=""
for _ in 1 2 3 4 5 6 7 8 9 10; do c=$(code m3); m3+="$c "; [ "$c" = 429 ] && break; done
check_match "machine 3 spends the budget (a request costs about 0.03 USD)" '^200 200 429 $' "$m3"
check_eq "machine 4: its first request starts (it has not heard of the fleet's spend yet)" 200 "$(code m4)"
check_eq "machine 4: after its push the budget spent across the fleet refuses it" 429 "$(code m4)"
check_match "the refusal names the budget" 'budget' "$(cat "$LG_TMP/b.out")"
lg_done
