#!/usr/bin/env bash
# llmgate check-config: prints the effective configuration (keys only as references) or every problem.
source "$(dirname "$0")/../lib.sh"

D=$LG_TMP/cfg
mkdir -p "$D"

# run_cc ARGS...: runs check-config; sets RC, OUT, ERR.
run_cc() {
    "$LG_CLI" check-config "$@" >"$D/out" 2>"$D/err"
    RC=$?
    OUT=$(cat "$D/out")
    ERR=$(cat "$D/err")
}

# A good config: env, file and literal keys, a custom provider, a plain host rule.
export LGT_OPENAI_KEY=sk-env-secret-111
printf 'sk-file-secret-222\n' >"$D/openai-2.key"
chmod 600 "$D/openai-2.key"
cat >"$D/good.json" <<JSON
{
  "providers": {
    "openai": {
      "upstream": "http://127.0.0.1:18080",
      "accounts": [ {"name": "main", "key": "env:LGT_OPENAI_KEY"},
                    {"name": "backup", "key": "file:$D/openai-2.key"},
                    {"name": "lit", "key": "sk-literal-secret-333"} ],
      "limits": {"rpm": 500, "tpm": 30000, "window_ms": 60000}
    },
    "corp": {"hosts": ["*.corp.example"], "dialect": "anthropic", "accounts": [{"name": "a", "key": "host"}]},
    "search": {"hosts": ["api.search.example"], "limits": {"rpm": 60}}
  },
  "retry": {"switch_on_first_rate_limit": true, "max_rate_limit_wait_seconds": 0.5, "max_attempts": 4},
  "store": {"backend": "shm"},
  "log": {"level": "debug", "file": null}
}
JSON
chmod 600 "$D/good.json"
run_cc "$D/good.json"
check_eq "good config exits 0" 0 "$RC"
check_eq "nothing on stderr for a good config" "" "$ERR"
check "output is JSON" /usr/bin/python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$D/out"
check_eq "source is the file" "$D/good.json" "$(lg_json 'j["source"]' <"$D/out")"
check_eq "account keys shown as references" \
    "['env:LGT_OPENAI_KEY', 'file:$D/openai-2.key', 'literal:$(printf %s sk-literal-secret-333 | sha256sum | cut -c1-16)']" \
    "$(lg_json '[a["key"] for a in j["providers"]["openai"]["accounts"]]' <"$D/out")"
check_eq "upstream kept" "http://127.0.0.1:18080" "$(lg_json 'j["providers"]["openai"]["upstream"]' <"$D/out")"
check_eq "custom provider speaks its dialect with its auth" "anthropic x-api-key" \
    "$(lg_json 'j["providers"]["corp"]["dialect"]+" "+j["providers"]["corp"]["auth"]' <"$D/out")"
check_eq "plain host rule has dialect none and the host's key" "none host" \
    "$(lg_json 'j["providers"]["search"]["dialect"]+" "+j["providers"]["search"]["accounts"][0]["key"]' <"$D/out")"
check_eq "fractional wait seconds kept" "0.5" "$(lg_json 'j["retry"]["max_rate_limit_wait_seconds"]' <"$D/out")"
check_eq "presets not listed stay active after the listed ones" \
    "openai corp search azure-openai anthropic gemini google-cloudcode dashscope deepseek volcengine-ark baidu-qianfan mistral groq openrouter moonshot xai together fireworks cerebras perplexity zhipu minimax siliconflow" \
    "$(lg_json '" ".join(j["providers"])' <"$D/out")"
check_no_key "no key (nor an 8-character slice of one) appears in the output" \
    "sk-env-secret-111 sk-file-secret-222 sk-literal-secret-333" "$D/out" "$D/err"

# Resilience: breaker (top level, overridden per provider), retry budget, pools, pin separator, a fallback
# chain to a provider reached only through it (no hosts), model maps.
export LGT_BACKUP_KEY=sk-backup-secret-555
cat >"$D/resilience.json" <<'JSON'
{
  "breaker": {"failure_ratio": 0.4, "open_ms": 2000, "open_max_ms": 16000},
  "retry": {"budget_ratio": 0.1, "budget_min_per_s": 1, "pool_fallback": true, "pin_separator": "::"},
  "providers": {
    "openai": {
      "accounts": [ {"name": "ag1", "key": "env:LGT_OPENAI_KEY", "pool": "antigravity"},
                    {"name": "cli1", "key": "env:LGT_OPENAI_KEY", "pool": "cli"},
                    {"name": "plain", "key": "env:LGT_OPENAI_KEY"} ],
      "breaker": {"consecutive_failures": 0},
      "fallback": ["backup"],
      "models": {"gpt-4o": "gpt-4o-2024-11-20", "gpt-4*": "gpt-4.1", "*": "gpt-4o-mini"}
    },
    "backup": {"dialect": "openai", "upstream": "http://127.0.0.1:18081",
               "accounts": [{"name": "b", "key": "env:LGT_BACKUP_KEY"}]}
  }
}
JSON
chmod 600 "$D/resilience.json"
run_cc "$D/resilience.json"
check_eq "resilience config exits 0" "0 " "$RC $ERR"
check_eq "top-level breaker: given members and defaults" "0.4 10 30000 5 2000 16000" \
    "$(lg_json '" ".join(str(j["breaker"][k]) for k in ("failure_ratio", "min_requests", "window_ms", "consecutive_failures", "open_ms", "open_max_ms"))' <"$D/out")"
check_eq "provider breaker: its own member, the rest from the top level" "0.4 0 2000" \
    "$(lg_json '" ".join(str(j["providers"]["openai"]["breaker"][k]) for k in ("failure_ratio", "consecutive_failures", "open_ms"))' <"$D/out")"
check_eq "a preset not listed has the top-level breaker" "0.4 5" \
    "$(lg_json '" ".join(str(j["providers"]["anthropic"]["breaker"][k]) for k in ("failure_ratio", "consecutive_failures"))' <"$D/out")"
check_eq "retry budget, pools, pin separator" "0.1 1 True ::" \
    "$(lg_json '" ".join(str(j["retry"][k]) for k in ("budget_ratio", "budget_min_per_s", "pool_fallback", "pin_separator"))' <"$D/out")"
check_eq "pool_fallback: default pool first, then pools by first appearance" "plain:None ag1:antigravity cli1:cli" \
    "$(lg_json '" ".join(a["name"]+":"+str(a["pool"]) for a in j["providers"]["openai"]["accounts"])' <"$D/out")"
check_eq "fallback chain and model map in config order" "['backup'] gpt-4o=gpt-4o-2024-11-20 gpt-4*=gpt-4.1 *=gpt-4o-mini" \
    "$(lg_json 'str(j["providers"]["openai"]["fallback"])+" "+" ".join(k+"="+v for k, v in j["providers"]["openai"]["models"].items())' <"$D/out")"
check_eq "a fallback-only provider: no hosts, its dialect and upstream" "[] openai http://127.0.0.1:18081" \
    "$(lg_json 'str(j["providers"]["backup"]["hosts"])+" "+j["providers"]["backup"]["dialect"]+" "+j["providers"]["backup"]["upstream"]' <"$D/out")"
check_no_key "resilience config: no key in the output" "sk-env-secret-111 sk-backup-secret-555" "$D/out" "$D/err"

# Every resilience problem at once, each with its path.
cat >"$D/resilience-bad.json" <<'JSON'
{
  "breaker": {"failure_ratio": 0, "open_ms": 5000, "open_max_ms": 4000},
  "retry": {"budget_ratio": -1, "pin_separator": "a b"},
  "providers": {
    "openai": {"fallback": ["dashscope", "nowhere", "openai", "deepseek", "hook"],
               "accounts": [{"key": "env:LGT_OPENAI_KEY", "pool": "no pool"}],
               "models": {"*": "gpt-4o", "gpt-4o": "x"}},
    "dashscope": {"accounts": [{"key": "env:LGT_BACKUP_KEY"}]},
    "hook": {"hosts": ["hooks.example"], "fallback": ["openai"]},
    "lonely": {"dialect": "openai"}
  }
}
JSON
chmod 600 "$D/resilience-bad.json"
run_cc "$D/resilience-bad.json"
F=$D/resilience-bad.json
check_eq "resilience problems: exit 1, one line each" "1
$F: retry.budget_ratio: expected a non-negative number (0.2 = 20 %), got -1
$F: retry.pin_separator: expected 1 to 7 printable ASCII characters without spaces
$F: breaker.failure_ratio: expected a number greater than 0 and at most 1, got 0
$F: breaker.open_ms: 5000 exceeds open_max_ms (4000)
$F: providers.openai.accounts[0].pool: expected 1 to 63 characters from A-Z a-z 0-9 . _ - @ + :
$F: providers.openai.fallback[2]: \"openai\" names this provider itself
$F: providers.openai.models.gpt-4o: never used: \"*\" before it matches every model
$F: providers.hook.fallback: only for a provider with a dialect: a plain host rule's responses are not read
$F: providers.lonely: \"lonely\" has no \"hosts\"; a provider reached only through a fallback or a pin needs \"upstream\"
$F: providers.openai.fallback[0]: \"dashscope\" speaks the dashscope dialect and \"openai\" the openai one: requests are translated only between the openai, anthropic and google dialects
$F: providers.openai.fallback[1]: no provider named \"nowhere\" (neither in \"providers\" nor a preset)
$F: providers.openai.fallback[3]: \"deepseek\" has an account (\"host\") using the key the program sent, which belongs to \"openai\" and never goes to another provider; give \"deepseek\" accounts with keys of its own
$F: providers.openai.fallback[4]: \"hook\" is a plain host rule (dialect \"none\"); it cannot serve another provider's requests" \
    "$RC
$ERR"
check_eq "nothing on stdout when refused" "" "$OUT"

# A literal key in a file others can read is refused; the same file at 0600 is accepted.
cat >"$D/literal.json" <<'JSON'
{"providers": {"anthropic": {"accounts": [{"name": "only", "key": "sk-ant-literal-secret-444"}]}}}
JSON
chmod 644 "$D/literal.json"
run_cc "$D/literal.json"
check_eq "literal key in a 0644 config exits 1" 1 "$RC"
check_eq "literal key in a 0644 config: the problem, with the fix" \
    "$D/literal.json: providers.anthropic.accounts[0].key: literal API key in a config readable by others (mode 0644); use env:NAME or file:PATH, or chmod 600 $D/literal.json" \
    "$ERR"
check_eq "nothing on stdout when refused" "" "$OUT"
chmod 600 "$D/literal.json"
run_cc "$D/literal.json"
check_eq "literal key in a 0600 config exits 0" 0 "$RC"
check_match "literal key shown as a digest" "\"key\":[[:space:]]*\"literal:$(printf %s sk-ant-literal-secret-444 | sha256sum | cut -c1-16)\"" "$OUT"
check_no_key "literal key never printed, not even in part" sk-ant-literal-secret-444 "$D/out" "$D/err"

# The presets of issue 34: each is accepted with accounts of its own; the OpenAI-compatible servers that run
# anywhere (Ollama, vLLM) take the hosts the config gives them, and are refused without.
export LGT_NEW_KEY=sk-new-preset-secret-777
{
    printf '{"providers": {\n'
    for p in xai together fireworks cerebras perplexity zhipu minimax siliconflow; do
        printf '  "%s": {"accounts": [{"name": "a", "key": "env:LGT_NEW_KEY"}]},\n' "$p"
    done
    printf '  "ollama": {"hosts": ["localhost"]},\n'
    printf '  "gpu": {"preset": "vllm", "hosts": ["vllm.lan"], "accounts": [{"key": "env:LGT_NEW_KEY"}]}\n}}\n'
} >"$D/presets.json"
chmod 600 "$D/presets.json"
run_cc "$D/presets.json"
check_eq "new presets: exit 0, nothing on stderr" "0 " "$RC $ERR"
check_eq "new presets: first host, dialect and auth of each" \
    "xai:api.x.ai:openai:bearer together:api.together.xyz:openai:bearer fireworks:api.fireworks.ai:openai:bearer cerebras:api.cerebras.ai:openai:bearer perplexity:api.perplexity.ai:openai:bearer zhipu:open.bigmodel.cn:openai:bearer minimax:api.minimax.io:openai:bearer siliconflow:api.siliconflow.cn:openai:bearer ollama:localhost:openai:bearer gpu:vllm.lan:openai:bearer" \
    "$(lg_json '" ".join(n+":"+p["hosts"][0]+":"+p["dialect"]+":"+p["auth"] for n, p in j["providers"].items() if n in ("xai","together","fireworks","cerebras","perplexity","zhipu","minimax","siliconflow","ollama","gpu"))' <"$D/out")"
check_eq "the OpenAI-compatible preset has no default entry" "False" "$(lg_json '"openai-compatible" in j["providers"]' <"$D/out")"
check_no_key "new presets: no key in the output" sk-new-preset-secret-777 "$D/out" "$D/err"
printf '{"providers": {"ollama": {}}}\n' >"$D/ollama-nohost.json"
run_cc "$D/ollama-nohost.json"
check_eq "an OpenAI-compatible server without hosts is refused" "1
$D/ollama-nohost.json: providers.ollama: \"ollama\" runs on any host: give its \"hosts\" (such as [\"localhost\"]), or \"upstream\" for a provider reached only through a fallback or a pin" \
    "$RC
$ERR"

# Every problem is reported, one per line, each with the file name and the JSON path.
unset OPENAI_KEY2
cat >"$D/bad.json" <<'JSON'
{
  "providers": {
    "openai": {"limits": {"rpm": "fast"},
               "accounts": [{"name": "a", "key": "host"}, {"name": "b", "key": "env:OPENAI_KEY2"}]},
    "foo": {"preset": "fooo"}
  },
  "retry": {"max_atempts": 3},
  "backoff": {"server_error_ms": -1}
}
JSON
chmod 600 "$D/bad.json"
run_cc "$D/bad.json"
check_eq "bad config exits 1" 1 "$RC"
check_eq "bad config: one line per problem" \
    "$D/bad.json: retry.max_atempts: unknown key (did you mean \"max_attempts\"?)
$D/bad.json: backoff.server_error_ms: expected a non-negative integer (milliseconds), got -1
$D/bad.json: providers.openai.accounts[1].key: environment variable OPENAI_KEY2 is not set
$D/bad.json: providers.openai.limits.rpm: expected a positive integer, got \"fast\"
$D/bad.json: providers.foo: unknown preset \"fooo\"" \
    "$ERR"

printf '{"providers": {"openai": {"limits": {"rpm": 5,}}}}\n' >"$D/syntax.json"
run_cc "$D/syntax.json"
check_eq "invalid JSON exits 1" 1 "$RC"
check_match "invalid JSON: where (cJSON's position is approximate)" "^$D/syntax.json: invalid JSON near line 1, column 4[6-8]\$" "$ERR"

run_cc "$D/missing.json"
check_eq "missing explicit file exits 1" 1 "$RC"
check_eq "missing explicit file: says so" "$D/missing.json: cannot open: No such file or directory" "$ERR"

run_cc a.json b.json
check_eq "two files is a usage error" 2 "$RC"

# Without FILE: $LLMGATE_CONFIG, then $XDG_CONFIG_HOME/llmgate/config.json, then defaults.
# /etc/llmgate/config.json cannot be moved aside here: where it exists, the fallback must find it instead
run_cc
if [ ! -e /etc/llmgate/config.json ]; then
    check_eq "no config anywhere: exits 0" 0 "$RC"
    check_eq "no config anywhere: defaults" "(defaults)" "$(lg_json 'j["source"]' <"$D/out")"
    check_eq "defaults: every preset with hosts of its own, with the host's key" "21 host" \
        "$(lg_json 'str(len(j["providers"]))+" "+j["providers"]["gemini"]["accounts"][0]["key"]' <"$D/out")"
else
    diag "/etc/llmgate/config.json exists: checking that it is used instead of the defaults"
    check_match "no user config: /etc/llmgate/config.json is used" '/etc/llmgate/config\.json' "$OUT$ERR"
fi
mkdir -p "$XDG_CONFIG_HOME/llmgate"
printf '{"log": {"level": "warn"}}\n' >"$XDG_CONFIG_HOME/llmgate/config.json"
run_cc
check_eq "XDG config found" "$XDG_CONFIG_HOME/llmgate/config.json warn" \
    "$(lg_json 'j["source"]+" "+j["log"]["level"]' <"$D/out")"
LLMGATE_CONFIG=$D/literal.json run_cc
check_eq "LLMGATE_CONFIG wins" "$D/literal.json" "$(lg_json 'j["source"]' <"$D/out")"
LLMGATE_CONFIG=$D/nope.json run_cc
check_eq "LLMGATE_CONFIG naming a missing file is a problem" "1 $D/nope.json: cannot open: No such file or directory" \
    "$RC $ERR"

# a config that others can write must not name keys: they could point its upstream elsewhere
printf '{"providers": {"openai": {"accounts": [{"name": "a", "key": "env:HOME"}]}}}\n' >"$D/writable.json"
chmod 664 "$D/writable.json"
"$LG_CLI" check-config "$D/writable.json" >/dev/null 2>"$D/werr"
check_eq "group-writable config with keys: refused" 1 "$?"
check_match "group-writable config: the message says why and how" 'writable by others \(mode 0664\).*chmod go-w' "$(cat "$D/werr")"
chmod 644 "$D/writable.json"
check "the same config at 0644 is accepted" "$LG_CLI" check-config "$D/writable.json"

lg_done
