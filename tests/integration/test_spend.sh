#!/usr/bin/env bash
# Issue 36: what requests cost and budgets. curl under the preload against the mock: OpenAI, Anthropic (cache
# reads) and Gemini answers, streamed and not, priced from data/prices.json and checked against figures
# computed here by hand from the usage the program received; a stream without usage counted as estimated;
# `llmgate usage --json` equal to those sums; a budget of a few cents crossed by 4 processes at once (the
# requests after it refused locally as the provider's quota 429, none reaching the mock, one line on
# stderr); `reset --budget`; a fallback asking its own budgets before it is sent to; a malformed price
# file and a malformed budget refused in one line.
source "$(dirname "$0")/../lib.sh"

# The budget's key answers after 400 ms; OpenAI's first answer is a 429 (absorbed: retried out of sight): the four programs' requests are in flight together.
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-bu-Z9c2Nq5T": {"sequence": [{"delay_ms": 400}], "repeat": true},
          "sk-oa-7Q2x9LpW": {"sequence": [{"error": "rate_limit", "retry_after_ms": 200}]},
          "sk-dry-4TnV8c": {"sequence": [{"error": "quota"}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KO=sk-oa-7Q2x9LpW KA=sk-an-K3v8Wz1R KG=sk-ge-P0m4Rt6Y KB=sk-bu-Z9c2Nq5T
cat >"$LG_TMP/config.json" <<JSON
{"providers": {
   "openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KO"}]},
   "anthropic": {"upstream": "$MOCK_URL", "accounts": [{"name": "team", "key": "env:KA"}]},
   "gemini": {"upstream": "$MOCK_URL", "accounts": [{"name": "g1", "key": "env:KG"}]},
   "deepseek": {"upstream": "$MOCK_URL", "accounts": [{"name": "ds", "key": "env:KB"}]}},
 "prices": {"file": "$LG_ROOT/data/prices.json",
            "models": [{"provider": "deepseek", "model": "budget-model", "input": 1000, "output": 1000}]},
 "budgets": [{"name": "nightly", "match": {"provider": "deepseek", "program": "nightly-*"}, "per": "day", "usd": 0.1}],
 "ledger": {"path": "$LG_TMP/ledger/spend", "keep_days": 7}}
JSON
mkdir -p "$LG_TMP/ledger"
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json

# req NAME HOST PATH BODY [HEADER...]: one request under the preload; the answer in $LG_TMP/NAME.
req() {
    local name=$1 host=$2 path=$3 body=$4
    shift 4
    local h=() x
    for x in "$@"; do h+=(-H "$x"); done
    LD_PRELOAD=$LG_LIB curl -s -N -o "$LG_TMP/$name" --connect-to "$host:80:127.0.0.1:$MOCK_PORT" \
        "http://$host$path" "${h[@]}" -H 'content-type: application/json' -d "$body"
}
req o1 api.openai.com /v1/chat/completions \
    '{"model":"gpt-4o-mini","max_tokens":40,"messages":[{"role":"user","content":"how much is this one?"}]}'
req o2 api.openai.com /v1/chat/completions \
    '{"model":"gpt-4o-mini","max_tokens":30,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"and a stream"}]}'
req o3 api.openai.com /v1/chat/completions \
    '{"model":"gpt-4o","max_tokens":20,"stream":true,"messages":[{"role":"user","content":"a stream without usage"}]}'
req a1 api.anthropic.com /v1/messages \
    '{"model":"claude-3-5-haiku-latest","max_tokens":50,"system":"a long system prompt read from the cache","messages":[{"role":"user","content":"hello"}]}' \
    'anthropic-version: 2023-06-01' 'x-mock-cache-read: 12'
req a2 api.anthropic.com /v1/messages \
    '{"model":"claude-3-5-haiku-latest","max_tokens":25,"stream":true,"messages":[{"role":"user","content":"stream please"}]}' \
    'anthropic-version: 2023-06-01' 'x-mock-cache-read: 5'
req g1 generativelanguage.googleapis.com /v1beta/models/gemini-2.0-flash:generateContent \
    '{"contents":[{"parts":[{"text":"what does it cost"}]}],"generationConfig":{"maxOutputTokens":33}}'
req g2 generativelanguage.googleapis.com '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse' \
    '{"contents":[{"parts":[{"text":"streamed"}]}],"generationConfig":{"maxOutputTokens":21}}'

# The costs by hand: the usage each answer carried, at the prices of data/prices.json (USD per million
# tokens): gpt-4o-mini 0.15 in / 0.60 out; claude-3-5-haiku 0.80 in, 0.08 cache reads, 4.00 out;
# gemini-2.0-flash 0.10 in / 0.40 out.
expected=$(/usr/bin/python3 - "$LG_TMP" <<'PY'
import json, sys
d = sys.argv[1]
def events(name):
    out = []
    for line in open(f"{d}/{name}"):
        if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
            out.append(json.loads(line[5:]))
    return out
cost = {}
u = json.load(open(f"{d}/o1"))["usage"]
o = u["prompt_tokens"] * 0.15 + u["completion_tokens"] * 0.60
u = [e["usage"] for e in events("o2") if e.get("usage")][-1]
o += u["prompt_tokens"] * 0.15 + u["completion_tokens"] * 0.60
cost["openai/gpt-4o-mini"] = o / 1e6
u = json.load(open(f"{d}/a1"))["usage"]
a = (u["input_tokens"] + u["cache_creation_input_tokens"]) * 0.80 + u["cache_read_input_tokens"] * 0.08 + u["output_tokens"] * 4.00
ev = events("a2")
start = ev[0]["message"]["usage"]
out = [e["usage"]["output_tokens"] for e in ev if e.get("type") == "message_delta"][-1]
a += (start["input_tokens"] + start["cache_creation_input_tokens"]) * 0.80 + start["cache_read_input_tokens"] * 0.08 + out * 4.00
cost["anthropic/claude-3-5-haiku-latest"] = a / 1e6
u = json.load(open(f"{d}/g1"))["usageMetadata"]
g = u["promptTokenCount"] * 0.10 + u["candidatesTokenCount"] * 0.40
u = events("g2")[-1]["usageMetadata"]
g += u["promptTokenCount"] * 0.10 + u["candidatesTokenCount"] * 0.40
cost["gemini/gemini-2.0-flash"] = g / 1e6
print(json.dumps(cost))
PY
)
"$LG_CLI" usage --json --by provider,model >"$LG_TMP/usage.json"
got=$(/usr/bin/python3 - "$LG_TMP/usage.json" "$expected" <<'PY'
import json, sys
u = json.load(open(sys.argv[1])); exp = json.loads(sys.argv[2])
rows = {r["provider"] + "/" + r["model"]: r for r in u["rows"]}
for k, v in exp.items():
    r = rows.get(k)
    print(k, "ok" if r and abs(r["cost_usd"] - v) < 1e-9 and r["requests"] == 2 and r["estimated"] == 0 else f"got {r and r['cost_usd']} want {v}")
PY
)
check_eq "OpenAI, Anthropic (cache reads) and Gemini costs, streamed and not, as computed by hand" \
    "openai/gpt-4o-mini ok
anthropic/claude-3-5-haiku-latest ok
gemini/gemini-2.0-flash ok" "$got"
check_eq "a stream without usage is counted from its text, marked estimated and priced" "1 1 True True" \
    "$(lg_json '" ".join(str(x) for r in j["rows"] if r["model"]=="gpt-4o" for x in (r["requests"], r["estimated"], r["output_tokens"] > 0, r["cost_usd"] > 0))' <"$LG_TMP/usage.json")"
check_eq "usage --json: the total is the sum of the rows" "True True" \
    "$(lg_json 'str(abs(sum(r["cost_usd"] for r in j["rows"]) - j["total"]["cost_usd"]) < 1e-9) + " " + str(sum(r["requests"] for r in j["rows"]) == j["total"]["requests"] == 7)' <"$LG_TMP/usage.json")"
check_eq "the 429 absorbed is counted" 1 "$(lg_json '[r["rate_limited_absorbed"] for r in j["rows"] if r["model"]=="gpt-4o-mini"][0]' <"$LG_TMP/usage.json")"
table=$("$LG_CLI" usage --by provider,account)
check_match "the table has a header, a row per account and a total" \
    'provider +account +requests +input +cached +output +cost USD.*openai +main +3 .*total +7 ' "$(tr '\n' ' ' <<<"$table")"
check_eq "--csv: a header and a row per program" "program,requests
curl,7" "$("$LG_CLI" usage --csv --by program | cut -d, -f1,2)"
prom=$("$LG_CLI" status --prometheus)
check_match "status --prometheus: usage counters per provider and account" \
    $'\nllmgate_usage_requests_total\\{provider="openai",account="main"\\} 3\n.*\nllmgate_usage_cached_tokens_total\\{provider="anthropic",account="team"\\} 17\n' "$prom"
check_eq "status --prometheus: the cost counter is the usage's" "True" "$(/usr/bin/python3 -c '
import json, re, sys
u = json.load(open(sys.argv[1])); p = sys.argv[2]
got = sum(float(v) for v in re.findall(r"^llmgate_usage_cost_usd_total\{[^}]*\} (\S+)$", p, re.M))
print(abs(got - u["total"]["cost_usd"]) < 1e-8)' "$LG_TMP/usage.json" "$prom")"
dash_metrics=$(grep -oE 'llmgate_[a-z_]+' "$LG_ROOT/examples/grafana/llmgate-dashboard.json" | sort -u)
check_eq "the Grafana dashboard (examples/grafana) is JSON and uses only metrics status --prometheus exports" "" \
    "$(/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$LG_ROOT/examples/grafana/llmgate-dashboard.json" 2>&1)$(
      for m in $dash_metrics; do grep -q "^# TYPE $m " <<<"$prom" || echo "missing: $m"; done)"

# The budget: 4 programs named nightly-* at once, 5 requests each, at 1000 USD per million tokens.
cp "$(command -v curl)" "$LG_TMP/nightly-job"
BODY='{"model":"budget-model","max_tokens":16,"messages":[{"role":"user","content":"spend it"}]}'
pids=()
for i in 1 2 3 4; do
    (for j in 1 2 3 4 5; do
        LD_PRELOAD=$LG_LIB "$LG_TMP/nightly-job" -s -i -o "$LG_TMP/b.$i.$j" --connect-to "api.deepseek.com:80:127.0.0.1:$MOCK_PORT" \
            http://api.deepseek.com/chat/completions -H 'content-type: application/json' -d "$BODY"
    done) 2>"$LG_TMP/berr.$i" &
    pids+=($!)
done
wait "${pids[@]}"
verdict=$(/usr/bin/python3 - "$LG_TMP" "$(lg_stats | lg_json "j['keys']['$KB']['requests']")" <<'PY'
import glob, json, sys
d, reached = sys.argv[1], int(sys.argv[2])
ok = refused = 0; cost = None; bad = []
for f in sorted(glob.glob(f"{d}/b.*")):
    head, _, body = open(f, encoding="utf-8", newline="").read().partition("\r\n\r\n")
    status = int(head.split()[1]); hl = head.lower()
    if status == 200:
        u = json.loads(body)["usage"]; ok += 1
        cost = (u["prompt_tokens"] + u["completion_tokens"]) * 1000 / 1e6
    else:
        e = json.loads(body)["error"]  # what the OpenAI SDK reads of a 429
        if not (status == 429 and "x-should-retry: false" in hl and "x-llmgate-reason: budget" in hl
                and e["code"] == "insufficient_quota" and "nightly" in e["message"] and "resets at" in e["message"]):
            bad.append(f)
        refused += 1
print(ok, refused, reached == ok, not bad, cost is not None and (ok - 1) * cost < 0.1 <= ok * cost)
PY
)
check_match "the budget admits until it is spent, then refuses locally; none past it reaches the mock; refusals are the provider's quota 429" \
    '^[0-9]+ [0-9]+ True True True$' "$verdict"
check_eq "20 requests in all, some refused" "20 True" "$(awk '{print $1+$2, ($2 > 0 ? "True" : "False")}' <<<"$verdict")"
check_eq "one line on stderr for the budget between the four processes" 1 "$(cat "$LG_TMP"/berr.* | grep -c '^llmgate: budget nightly spent')"
check_eq "usage counts the refusals" "$(awk '{print $2}' <<<"$verdict")" \
    "$("$LG_CLI" usage --json --by program | lg_json '[r["refused_by_budget"] for r in j["rows"] if r["program"]=="nightly-job"][0]')"
check_eq "reset --budget lifts it" "budget nightly lifted until its period ends 200" \
    "$("$LG_CLI" reset --budget nightly) $(LD_PRELOAD=$LG_LIB "$LG_TMP/nightly-job" -s -o /dev/null -w '%{http_code}' \
        --connect-to "api.deepseek.com:80:127.0.0.1:$MOCK_PORT" http://api.deepseek.com/chat/completions -d "$BODY")"
check_eq "a program the budget does not match is not refused" 200 \
    "$(LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' --connect-to "api.deepseek.com:80:127.0.0.1:$MOCK_PORT" \
        http://api.deepseek.com/chat/completions -d "$BODY")"

# A budget of one account: the account a request is admitted on is the one its budgets see.
cat >"$LG_TMP/acct.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "first", "key": "env:KO"}, {"name": "second", "key": "env:KG"}]}},
 "prices": {"models": [{"provider": "openai", "model": "acct-model", "input": 1000, "output": 1000}]},
 "budgets": [{"name": "second-only", "match": {"account": "second"}, "usd": 0.000001},
             {"name": "first-only", "match": {"account": "first"}, "usd": 0.000001}]}
JSON
chmod 600 "$LG_TMP/acct.json"
codes=""
mkdir -m 700 "$LG_TMP/run2" # its own spend state: the figures above stay the first config's
for i in 1 2; do
    codes+=$(XDG_RUNTIME_DIR=$LG_TMP/run2 LLMGATE_CONFIG=$LG_TMP/acct.json LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/acct.$i" -w '%{http_code} ' \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -d '{"model":"acct-model","max_tokens":4,"messages":[{"role":"user","content":"x"}]}')
done
check_eq "a budget of one account applies to the requests admitted on it" "200 429 first-only" \
    "$codes$(lg_json 'j["error"]["message"].split(chr(34))[1]' <"$LG_TMP/acct.2")"

# A fallback asks its own budgets before the request is sent there: the primary's key is out of credit, the
# fallback's budget admits one request; the second is refused locally and never reaches the fallback.
export KD=sk-dry-4TnV8c KS=sk-fb-spare9W
cat >"$LG_TMP/fb.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "dry", "key": "env:KD"}], "fallback": ["backup"]},
   "backup": {"dialect": "openai", "upstream": "$MOCK_URL/", "accounts": [{"name": "spare", "key": "env:KS"}]}},
 "prices": {"models": [{"provider": "backup", "model": "fb-model", "input": 1000, "output": 1000}]},
 "budgets": [{"name": "backup-cap", "match": {"provider": "backup"}, "usd": 0.000001}]}
JSON
chmod 600 "$LG_TMP/fb.json"
codes=""
mkdir -m 700 "$LG_TMP/run3"
for i in 1 2; do
    codes+=$(XDG_RUNTIME_DIR=$LG_TMP/run3 LLMGATE_CONFIG=$LG_TMP/fb.json LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/fb.$i" -w '%{http_code} ' \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -d '{"model":"fb-model","max_tokens":4,"messages":[{"role":"user","content":"x"}]}' 2>/dev/null)
done
check_eq "a fallback's budget is asked before the request goes there; the one past it never reaches the fallback" \
    "200 429 backup-cap 1" \
    "$codes$(lg_json 'j["error"]["message"].split(chr(34))[1]' <"$LG_TMP/fb.2") $(curl -s "$MOCK_URL/__requests" | lg_json 'sum(r["key"] == "'$KS'" for r in j)')"

# Malformed price file and budget: refused in one line each.
printf '{"taken": "2026-12-06", "prices": [{"provider": "openai", "model": "x", "input": "cheap", "output": 1}]}' >"$LG_TMP/bad-prices.json"
printf '{"prices": {"file": "%s"}}' "$LG_TMP/bad-prices.json" >"$LG_TMP/c1.json"
err=$("$LG_CLI" check-config "$LG_TMP/c1.json" 2>&1 >/dev/null)
check_eq "a malformed price file is refused in one line naming it" "1 yes" \
    "$(wc -l <<<"$err") $(grep -q 'bad-prices.json: prices\[0\]\.input: expected a number' <<<"$err" && echo yes)"
printf '{"budgets": [{"name": "b", "match": {"provider": "openai"}, "per": "week", "usd": 5}]}' >"$LG_TMP/c2.json"
err=$("$LG_CLI" check-config "$LG_TMP/c2.json" 2>&1 >/dev/null)
check_eq "a malformed budget is refused in one line" "1 yes" \
    "$(wc -l <<<"$err") $(grep -q 'budgets\[0\]\.per: expected one of' <<<"$err" && echo yes)"
# The HTML page: its bars' figures are those of usage --json; opened in headless Chromium when installed.
"$LG_CLI" usage --html "$LG_TMP/usage.html"
"$LG_CLI" usage --json --by day >"$LG_TMP/day.json"
"$LG_CLI" usage --json --by provider,account >"$LG_TMP/acct.json"
check_eq "usage --html: the bars of cost and requests per day and per account equal usage --json" "True True True True" \
    "$(/usr/bin/python3 - "$LG_TMP" <<'PY'
import json, re, sys
d = sys.argv[1]
html = open(f"{d}/usage.html").read()
def bars(chart):
    svg = re.search(r'<svg id="%s".*?</svg>' % chart, html, re.S).group(0)
    return {m[0]: float(m[1]) for m in re.findall(r'data-label="([^"]*)" data-value="([^"]*)"', svg)}
day = json.load(open(f"{d}/day.json"))["rows"]; acct = json.load(open(f"{d}/acct.json"))["rows"]
same = lambda a, b: a.keys() == b.keys() and all(abs(a[k] - b[k]) < 1e-8 for k in a)
print(same(bars("cost-per-day"), {r["day"]: r["cost_usd"] for r in day}),
      same(bars("requests-per-day"), {r["day"]: r["requests"] for r in day}),
      same(bars("cost-per-account"), {r["provider"] + "/" + r["account"]: r["cost_usd"] for r in acct}),
      same(bars("requests-per-account"), {r["provider"] + "/" + r["account"]: r["requests"] for r in acct}))
PY
)"
chromium=$(command -v chromium chromium-browser 2>/dev/null | head -n 1)
if [ -n "$chromium" ]; then
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --window-size=900,1800 \
        --screenshot="$LG_TMP/usage.png" "file://$LG_TMP/usage.html" >/dev/null 2>&1
    check "the page renders in headless Chromium (a screenshot)" test -s "$LG_TMP/usage.png"
    # What Chromium drew: the DOM it built from the page, every bar's figure and height against usage --json
    # (a bar's height is its figure's share of the chart's largest, 150 px).
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom "file://$LG_TMP/usage.html" \
        >"$LG_TMP/usage.dom" 2>/dev/null
    check_eq "the bars Chromium drew are usage --json's figures, their heights in proportion" "True True True True" \
        "$(/usr/bin/python3 - "$LG_TMP" <<'PY'
import json, sys
from html.parser import HTMLParser
d = sys.argv[1]
class Bars(HTMLParser):
    def __init__(self):
        super().__init__(); self.svg = None; self.bars = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg": self.svg = a.get("id"); self.bars[self.svg] = {}
        if tag == "rect" and a.get("class") == "bar":
            self.bars[self.svg][a["data-label"]] = (float(a["data-value"]), float(a["height"]))
p = Bars(); p.feed(open(f"{d}/usage.dom").read())
day = json.load(open(f"{d}/day.json"))["rows"]; acct = json.load(open(f"{d}/acct.json"))["rows"]
def drawn(chart, want):
    b = p.bars.get(chart, {})
    top = max((v for v, _ in b.values()), default=0)
    return b.keys() == want.keys() and all(abs(v - want[k]) < 1e-8 and (top == 0 or abs(h - v / top * 150) < 0.06)
                                           for k, (v, h) in b.items())
print(drawn("cost-per-day", {r["day"]: r["cost_usd"] for r in day}),
      drawn("requests-per-day", {r["day"]: r["requests"] for r in day}),
      drawn("cost-per-account", {r["provider"] + "/" + r["account"]: r["cost_usd"] for r in acct}),
      drawn("requests-per-account", {r["provider"] + "/" + r["account"]: r["requests"] for r in acct}))
PY
)"
else
    skip "chromium is not installed (make deps installs Debian's chromium): the page is not rendered" 2
fi

# The ledger: one line per program request (29), its figures those of usage, no key, 0600.
ledger=$(ls "$LG_TMP"/ledger/spend-*.jsonl)
check_eq "the ledger is one file of the day, 0600" "1 600" "$(wc -l <<<"$ledger") $(stat -c %a $ledger)"
"$LG_CLI" usage --json --by program >"$LG_TMP/usage2.json"
check_eq "the ledger: a line per request, its costs and requests those of usage --json, the 429 retried in its attempts" \
    "29 True True True" "$(/usr/bin/python3 - "$ledger" "$LG_TMP/usage2.json" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
u = json.load(open(sys.argv[2]))["total"]
cost = sum(l["cost_usd"] or 0 for l in lines)
sent = sum(1 for l in lines if l["attempts"] > 0)
retried = [l for l in lines if l["model"] == "gpt-4o-mini" and l["attempts"] == 2 and l["status"] == 200]
print(len(lines), abs(cost - u["cost_usd"]) < 1e-8, sent == u["requests"], len(retried) == 1)
PY
)"
check_no_key "no key in the ledger" "$KO $KA $KG $KB" "$ledger"

printf '{"providers": {"openai": {"models": {"gpt-4o": "gpt-9-unknown", "x": "gpt-4o-mini"}}}, "prices": {"file": "%s"}}' \
    "$LG_ROOT/data/prices.json" >"$LG_TMP/c3.json"
err=$("$LG_CLI" check-config "$LG_TMP/c3.json" 2>&1 >/dev/null)
check_eq "check-config names the model it cannot price, only that one" \
    "1 yes" "$(wc -l <<<"$err") $(grep -q 'no price for model gpt-9-unknown at openai' <<<"$err" && echo yes)"

lg_done
