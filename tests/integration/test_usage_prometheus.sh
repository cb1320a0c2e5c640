#!/usr/bin/env bash
# Issue 36: the Prometheus output's usage and cost counters per model, bounded: 23 models used by one
# program (curl, under the preload, one process): the 20 dearest keep their label, the other 3 count under
# their provider's model="other"; the per-model counters add up to the usage's totals.
source "$(dirname "$0")/../lib.sh"

lg_start_mock --quiet
export KO=sk-pm-3Vn8Qw2L
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KO"}]}},
 "prices": {"models": [{"provider": "openai", "model": "m0*", "input": 3, "output": 30},
                       {"provider": "openai", "model": "m*", "input": 1, "output": 10}]}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
mkdir -p "$LG_TMP/run" && chmod 700 "$LG_TMP/run"
export XDG_RUNTIME_DIR=$LG_TMP/run
args=()
for i in $(seq -w 1 23); do
    [ "$i" != 01 ] && args+=(--next)
    args+=(-o /dev/null -d "{\"model\":\"m$i\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
           http://api.openai.com/v1/chat/completions)
done
LD_PRELOAD=$LG_LIB curl -s --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" -H 'content-type: application/json' "${args[@]}"
check_eq "the mock saw 23 requests" 23 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"

prom=$("$LG_CLI" status --prometheus)
"$LG_CLI" usage --json --by provider >"$LG_TMP/usage.json"
models=$(grep -oE '^llmgate_usage_model_requests_total\{provider="openai",model="[^"]*"\}' <<<"$prom" |
    sed 's/.*model="\([^"]*\)".*/\1/' | sort | tr '\n' ' ')
# m01..m09 are priced dearer; then by cost and name: m10..m20 kept, m21..m23 "other"
check_eq "21 model labels: the 20 dearest and \"other\"" \
    "$(seq -f 'm%02g' 1 20 | tr '\n' ' ')other " "$models"
check_match "\"other\" counts the 3 cheapest models' requests" \
    $'\nllmgate_usage_model_requests_total\\{provider="openai",model="other"\\} 3\n' "$prom"
check_eq "the per-model counters add up to usage --json's totals" "True True True" "$(/usr/bin/python3 -c '
import json, re, sys
u = json.load(open(sys.argv[1]))["total"]; p = sys.argv[2]
s = lambda m: sum(float(v) for v in re.findall(r"^%s\{[^}]*\} (\S+)$" % m, p, re.M))
print(s("llmgate_usage_model_requests_total") == u["requests"] == 23,
      abs(s("llmgate_usage_model_cost_usd_total") - u["cost_usd"]) < 1e-8,
      s("llmgate_usage_model_output_tokens_total") == u["output_tokens"])' "$LG_TMP/usage.json" "$prom")"
check_eq "four model families, each a counter with its HELP" "4 4" \
    "$(grep -c '^# TYPE llmgate_usage_model_[a-z_]*_total counter$' <<<"$prom") $(grep -c '^# HELP llmgate_usage_model_' <<<"$prom")"
lg_done
