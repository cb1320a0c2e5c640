#!/usr/bin/env bash
# make bench, quota efficiency: the mock provider enforces an exact sliding window per key (RPM requests per
# WINDOW_MS); 8 processes x 50 curl requests share 3 keys. For llmgate (the keys as accounts, limits
# configured) and for the same workload run plainly with `curl --retry 10` (each process on one of the keys):
# (a) makespan against the physical minimum (requests / total admitted rate), (b) 429s the mock sent,
# (c) failures the host saw. Then llmgate's throughput with 1, 2, 3 and 4 keys against k x one key.
# Targets for llmgate: makespan <= 1.05 x minimum, 429s <= 1 % of requests, 0 failures; throughput with
# k keys >= 0.95 k x one key.
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/lib.sh
PROCS=${QUOTA_PROCS:-8}
PER=${QUOTA_REQUESTS:-50}
RPM=${QUOTA_RPM:-12}
WINDOW_MS=${QUOTA_WINDOW_MS:-2000}
TPUT_WINDOWS=${QUOTA_TPUT_WINDOWS:-6}
lg_start_mock --quiet --rpm "$RPM" --window-ms "$WINDOW_MS"
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
URL=http://api.openai.com/v1/chat/completions
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# config K: llmgate with K accounts (sk-q1 ... sk-qK) limited to RPM per WINDOW_MS each.
config() {
    local i accts=""
    for i in $(seq 1 "$1"); do accts+="${accts:+, }{\"name\": \"q$i\", \"key\": \"sk-q$i\"}"; done
    cat >"$LG_TMP/quota$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [$accts],
  "limits": {"rpm": $RPM, "window_ms": $WINDOW_MS}}},
 "retry": {"max_rate_limit_wait_seconds": 600}}
JSON
    chmod 600 "$LG_TMP/quota$1.json"
}

# run MODE K PER: PROCS processes x PER sequential curl requests; MODE gated (llmgate, K accounts) or plain
# (curl --retry 10, process p on key sk-q((p % K) + 1)). Bodies go to a regular file: curl cannot truncate
# /dev/null before a retry. Prints "makespan_ms failures 429s"; a failure is any request without a final 200.
run() {
    local mode=$1 k=$2 per=$3 p pids=()
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
    config "$k"
    local start
    start=$(now_ms)
    for p in $(seq 0 $((PROCS - 1))); do
        (for _ in $(seq 1 "$per"); do
            if [ "$mode" = gated ]; then
                LLMGATE_CONFIG=$LG_TMP/quota$k.json LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/body.$p" -w '%{http_code}\n' \
                    "${CT[@]}" "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY"
            else
                curl -s -o "$LG_TMP/body.$p" -w '%{http_code}\n' --retry 10 "${CT[@]}" "$URL" \
                    -H "Authorization: Bearer sk-q$(( p % k + 1 ))" -d "$BODY"
            fi
        done) >"$LG_TMP/codes.$p" 2>/dev/null &
        pids+=($!)
    done
    wait "${pids[@]}"
    local end failures limited
    end=$(now_ms)
    failures=$((PROCS * per - $(cat "$LG_TMP"/codes.* | grep -c '^200$')))
    limited=$(curl -s "$MOCK_URL/__stats" | lg_json 'j["total"]["rate_limited"]')
    rm -f "$LG_TMP"/codes.* "$LG_TMP"/body.*
    echo "$((end - start)) $failures $limited"
}

N=$((PROCS * PER))
echo "quota efficiency: $PROCS processes x $PER curl requests, 3 keys, mock limit $RPM requests per ${WINDOW_MS} ms per key"
for mode in gated plain; do
    read -r ms failures limited < <(run "$mode" 3 "$PER")
    awk -v m="$mode" -v ms="$ms" -v f="$failures" -v l="$limited" -v n="$N" -v r="$RPM" -v w="$WINDOW_MS" 'BEGIN {
        min = n * w / (3 * r)
        name = m == "gated" ? "llmgate" : "curl --retry 10"
        printf "%-16s makespan %6.2f s = %.3f x minimum %.2f s   429s from the mock %4d (%.1f %%)   host failures %d\n",
               name, ms / 1000, ms / min, min / 1000, l, 100 * l / n, f }'
done

# Throughput with k keys: a workload of TPUT_WINDOWS windows' worth of requests for k keys (PROCS x
# k x RPM x TPUT_WINDOWS / PROCS), so that an ideal limiter needs the same makespan whatever k; requests per
# second of makespan, against k x the one-key figure.
per1=$(( RPM * TPUT_WINDOWS / PROCS ))
echo "llmgate throughput by number of keys ($PROCS processes x k x $per1 requests: $TPUT_WINDOWS windows' worth):"
one=""
for k in 1 2 3 4; do
    read -r ms failures limited < <(run gated "$k" $((k * per1)))
    rate=$(awk -v n=$((PROCS * k * per1)) -v ms="$ms" 'BEGIN { printf "%.3f", n / (ms / 1000) }')
    [ -n "$one" ] || one=$rate
    awk -v k="$k" -v rate="$rate" -v one="$one" -v ms="$ms" -v f="$failures" -v l="$limited" 'BEGIN {
        printf "  %d key(s): %6.2f req/s (makespan %5.2f s) = %.3f x one key (target >= %.2f)   429s %d   host failures %d\n",
               k, rate, ms / 1000, rate / one, 0.95 * k, l, f }'
done
