#!/usr/bin/env bash
# examples/: every configuration is accepted by llmgate check-config (installed mode 0644, the keys it names
# set in the environment) and means what examples/README.md says it does.
source "$(dirname "$0")/../lib.sh"
EX=$LG_ROOT/examples

n=0
for f in "$EX"/*.json; do
    name=$(basename "$f")
    n=$((n + 1))
    install -m 0644 "$f" "$LG_TMP/$name"
    vars=$(grep -o '"env:[A-Za-z_0-9]*"' "$f" | sed 's/"env:\(.*\)"/\1/' | sort -u)
    env_args=()
    for v in $vars; do env_args+=("$v=sk-example-$v"); done
    out=$(env "${env_args[@]}" "$LG_CLI" check-config "$LG_TMP/$name" 2>&1)
    rc=$?
    check "$name: accepted by check-config" test $rc -eq 0
    [ $rc -eq 0 ] || diag "$out"
    printf '%s' "$out" >"$LG_TMP/$name.out"
    check "$name: described in examples/README.md" grep -q "\`$name\`" "$EX/README.md"
    check "$name: no key shown in the effective configuration" bash -c "! grep -q sk-example '$LG_TMP/$name.out'"
done
check "there are examples" test "$n" -ge 5

q() { lg_json "$2" <"$LG_TMP/$1.out"; }
check_eq "several keys: three OpenAI accounts" "team-a team-b spare" \
    "$(q openai-several-keys.json '" ".join(a["name"] for a in j["providers"]["openai"]["accounts"])')"
check_eq "several keys: the tier's limits" "tier-2" "$(q openai-several-keys.json 'j["providers"]["openai"]["limits"]["tier"]')"
check_eq "fallback: anthropic configured beside openai" "anthropic fallback" \
    "$(q openai-with-anthropic-fallback.json 'j["providers"]["anthropic"]["dialect"] + " " + j["providers"]["anthropic"]["accounts"][0]["name"]')"
check_eq "fallback: gives up within 20 s" "20" \
    "$(q openai-with-anthropic-fallback.json 'j["retry"]["max_rate_limit_wait_seconds"]')"
check_eq "qwen/ernie: the aliases map to the DashScope and Qianfan dialects" "dashscope baidu" \
    "$(q qwen-ernie.json 'j["providers"]["qwen"]["dialect"] + " " + j["providers"]["ernie"]["dialect"]')"
check_eq "openrouter: the chain, to a provider without hosts" "openrouter-backup [] openai" \
    "$(q openai-fallback-openrouter.json '" ".join(j["providers"]["openai"]["fallback"]) + " " + str(j["providers"]["openrouter-backup"]["hosts"]) + " " + j["providers"]["openrouter-backup"]["dialect"]')"
check_eq "openrouter: pools in order, the models renamed" "paid paid trial openai/gpt-4o" \
    "$(q openai-fallback-openrouter.json '" ".join(a["pool"] for a in j["providers"]["openai"]["accounts"]) + " " + j["providers"]["openrouter-backup"]["models"]["gpt-4o*"]')"
check_eq "fleet: the redis store" "redis" "$(q fleet-redis.json 'j["store"]["backend"]')"
check_eq "webhook: plain host rules (no dialect), paced" "none 20 none 600" \
    "$(q webhook-host-rule.json '" ".join(str(x) for p in ("chat-webhook", "internal-api") for x in (j["providers"][p]["dialect"], j["providers"][p]["limits"]["rpm"]))')"
lg_done
