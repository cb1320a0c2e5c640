#!/usr/bin/env bash
# make bench, chaos: CHAOS_REQUESTS host requests (default 10000) from CHAOS_PROCS curl processes (default 4),
# half of them streamed, through llmgate (three accounts) to the mock provider, whose scripted sequences
# inject every error kind (quota, rate limit, overload, server error, auth), connection resets, truncated
# bodies, slow answers, streams in small chunks and errors inside 200 streams. Every duration of the
# policy is scaled down to the run's (the breaker opens for 100-400 ms, not 30 s-5 min: five failures in a
# row happen in such a run, and a 30 s breaker would answer most of it locally). Checked:
#  - no host request lost or duplicated: each one has exactly one outcome;
#  - every body delivered intact: its SHA-256 is the one the mock sent (x-mock-body-sha256), and no answer
#    of the mock reaches two host requests (x-request-id); every success the mock sent was delivered;
#  - attempts within the policy's bounds: at most retry.max_attempts per host request (x-mock-tag counts),
#    and every attempt reached the mock.
# Prints the figures; exits 1 on any violation. Usage: tests/bench/chaos.sh [REQUESTS [PROCS]]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
N=${1:-${CHAOS_REQUESTS:-10000}}
PROCS=${2:-${CHAOS_PROCS:-4}}
MAX_ATTEMPTS=10
/usr/bin/python3 - "$LG_TMP/scenario.json" <<'PY'
import json, random, sys
rng = random.Random(13)
def step():
    r = rng.random()
    for p, s in ((0.50, {}), (0.06, {"error": "rate_limit"}), (0.02, {"error": "quota"}),
                 (0.05, {"error": "overloaded"}), (0.04, {"error": "server_error"}), (0.01, {"error": "auth"}),
                 (0.05, {"reset": True}), (0.05, {"truncate": rng.randrange(0, 60)}),
                 (0.06, {"delay_ms": rng.randrange(5, 60)}), (0.06, {"chunk": rng.randrange(8, 64), "chunk_delay_ms": 1}),
                 (0.05, {"error_in_200": True}), (0.05, {"error": "rate_limit", "delay_ms": rng.randrange(5, 30)})):
        if r < p:
            return s
        r -= p
    return {}
keys = {"sk-chaos-%d" % k: {"sequence": [step() for _ in range(257)], "repeat": True} for k in (1, 2, 3)}
json.dump({"keys": keys}, open(sys.argv[1], "w"))
PY
lg_start_mock --quiet --threads 4 --scenario "$LG_TMP/scenario.json"
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "c1", "key": "sk-chaos-1"},
   {"name": "c2", "key": "sk-chaos-2"}, {"name": "c3", "key": "sk-chaos-3"}]}},
 "retry": {"switch_delay_ms": 2, "max_attempts": $MAX_ATTEMPTS, "max_rate_limit_wait_seconds": 30, "max_server_retries": 2},
 "breaker": {"open_ms": 100, "open_max_ms": 400},
 "backoff": {"quota_exhausted_ms": [100, 200], "rate_limit_exceeded_ms": 20, "model_capacity_exhausted_ms": 20,
             "server_error_ms": 20, "unknown_ms": 20, "dedup_window_ms": 5, "single_account_base_ms": 5,
             "single_account_max_ms": 40}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
[ -z "${CHAOS_LOG:-}" ] || export LLMGATE_LOG=$CHAOS_LOG   # llmgate's event log, to see where time went
OUT=$LG_TMP/out
mkdir -p "$OUT"
# One curl config per process: its share of the requests, each with its own tag, body file and header file.
for p in $(seq 0 $((PROCS - 1))); do
    for ((i = p; i < N; i += PROCS)); do
        stream=$([ $((i % 2)) -eq 1 ] && echo true || echo false)
        printf 'url = "http://api.openai.com/v1/chat/completions"\nheader = "Authorization: Bearer sk-host"\n'
        printf 'header = "X-Mock-Tag: chaos-%d"\ndata = "{\\"model\\":\\"gpt-4o-mini\\",\\"stream\\":%s,\\"n\\":%d}"\n' \
            "$i" "$stream" "$i"
        printf 'output = "%s/%d.body"\ndump-header = "%s/%d.hdr"\n' "$OUT" "$i" "$OUT" "$i"
        printf 'write-out = "%%{http_code} %%{exitcode} %d\\n"\nnext\n' "$i"
    done >"$LG_TMP/curl.$p"
done
start=$(date +%s%N)
pids=()
for p in $(seq 0 $((PROCS - 1))); do
    LD_PRELOAD=$LG_LIB curl -s --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" -K "$LG_TMP/curl.$p" \
        >"$LG_TMP/wo.$p" 2>"$LG_TMP/err.$p" &
    pids+=($!)
done
wait "${pids[@]}"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
lg_stats >"$LG_TMP/stats.json"
cat "$LG_TMP"/wo.* >"$LG_TMP/outcomes"
/usr/bin/python3 - "$N" "$MAX_ATTEMPTS" "$OUT" "$LG_TMP/outcomes" "$LG_TMP/stats.json" "$elapsed_ms" "$PROCS" <<'PY'
import collections, hashlib, json, sys
n, max_attempts, out, outcomes, stats, elapsed_ms, procs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], \
    sys.argv[4], json.load(open(sys.argv[5])), int(sys.argv[6]), int(sys.argv[7])
seen = collections.Counter()
result = {}
for line in open(outcomes):
    code, exitcode, i = line.split()
    seen[int(i)] += 1
    result[int(i)] = (int(code), int(exitcode))
lost = [i for i in range(n) if seen[i] == 0]
dup = [i for i, c in seen.items() if c > 1]
kinds = collections.Counter()
bad_sum, ids, clean_2xx = [], collections.Counter(), 0
for i in range(n):
    code, exitcode = result.get(i, (0, -1))
    if exitcode != 0:
        kinds["curl error %d" % exitcode] += 1
        continue
    hdr = {}
    for l in open("%s/%d.hdr" % (out, i), "rb").read().decode("latin-1").split("\r\n"):
        if ":" in l:
            k, v = l.split(":", 1)
            hdr[k.strip().lower()] = v.strip()
    body = open("%s/%d.body" % (out, i), "rb").read()
    kinds["%d%s" % (code, " synthesized" if "x-request-id" not in hdr else "")] += 1
    if "x-request-id" in hdr:
        ids[hdr["x-request-id"]] += 1
        if hashlib.sha256(body).hexdigest() != hdr.get("x-mock-body-sha256"):
            bad_sum.append(i)
    if 200 <= code < 300 and b'"error"' not in body:
        clean_2xx += 1
reused = [k for k, c in ids.items() if c > 1]
tags = stats.get("tags", {})
attempts = [tags.get("chaos-%d" % i, 0) for i in range(n)]
over = [i for i in range(n) if attempts[i] > max_attempts]
total = stats["total"]
fails = []
def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        fails.append(what)
print("chaos: %d requests from %d processes in %.1f s (%.0f requests/s)" % (n, procs, elapsed_ms / 1000, n * 1000 / max(elapsed_ms, 1)))
print("  outcomes at the host: " + ", ".join("%s: %d" % kv for kv in sorted(kinds.items())))
print("  mock: %d attempts (%.2f per request, max %d), %d successes, %d rate limited, %d server errors/resets/truncations, %d other" %
      (total["requests"], total["requests"] / n, max(attempts), total["success"], total["rate_limited"],
       total["server_error"], total["other_error"]))
check(not lost and not dup, "no host request lost (%d) or duplicated (%d)" % (len(lost), len(dup)))
check(not bad_sum, "every delivered body has the mock's checksum (%d mismatches of %d)" % (len(bad_sum), sum(ids.values())))
check(not reused, "no answer of the mock delivered twice (%d)" % len(reused))
check(clean_2xx == total["success"], "every success the mock sent was delivered, once (%d host, %d mock)" % (clean_2xx, total["success"]))
check(not over, "attempts per host request within retry.max_attempts = %d (%d over)" % (max_attempts, len(over)))
for i in over[:5]:
    print("  over: chaos-%d had %d attempts, host saw %s" % (i, attempts[i], result.get(i)))
check(sum(attempts) == total["requests"], "every attempt reached the mock (%d tagged, %d received)" % (sum(attempts), total["requests"]))
sys.exit(1 if fails else 0)
PY
