#!/usr/bin/env bash
# Memory per exchange stays bounded whatever the response (issue 13, item 1): an endless event stream
# and a 200 MB body pass through curl under the preload while its RSS is sampled; the peak stays within
# a margin of plain curl's on the same traffic, and the host receives the bytes as they come. A body over
# hold.max_body_bytes is not held, so not retried.
source "$(dirname "$0")/../lib.sh"
pf=$LG_TMP/bulk.port
/usr/bin/python3 "$LG_ROOT/tests/servers/bulk_server.py" "$pf" &
LG_MOCK_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$pf" ] && break; sleep 0.05; done
PORT=$(sed -n 's/^port=//p' "$pf")
[ -n "$PORT" ] || { not_ok "bulk server started"; exit 1; }
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "http://127.0.0.1:$PORT"}}}
JSON
chmod 600 "$LG_TMP/config.json"

# sampled NAME PRELOAD URL MAXTIME: runs curl (under PRELOAD when not empty) posting to URL, its body
# counted into $LG_TMP/NAME.n; samples curl's VmRSS every 0.1 s and prints the peak in kB.
sampled() {
    local name=$1 preload=$2 url=$3 t=$4 peak=0 rss
    LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$preload curl -s -N --max-time "$t" \
        -H 'Authorization: Bearer sk-host' -d '{"model":"m","stream":true}' "$url" \
        -o >(wc -c >"$LG_TMP/$name.n") &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
        [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
        sleep 0.1
    done
    wait "$pid"
    echo "$peak"
}
count() { for _ in $(seq 1 50); do [ -s "$LG_TMP/$1.n" ] && break; sleep 0.1; done; tr -d ' ' <"$LG_TMP/$1.n"; }

SLACK_KB=40000
base=$(sampled plain-stream "" "http://127.0.0.1:$PORT/v1/stream" 4)
peak=$(sampled gated-stream "$LG_LIB" "http://api.openai.com/v1/stream" 4)
n=$(count gated-stream)
diag "endless stream: peak RSS plain ${base} kB, gated ${peak} kB; gated host received $n bytes"
check "endless stream: the host received it as it came (> 50 MB in 4 s)" test "$n" -gt 50000000
check "endless stream: RSS within ${SLACK_KB} kB of plain curl" test "$peak" -lt $((base + SLACK_KB))

size=200000000
base=$(sampled plain-big "" "http://127.0.0.1:$PORT/v1/big?size=$size" 60)
peak=$(sampled gated-big "$LG_LIB" "http://api.openai.com/v1/big?size=$size" 60)
diag "200 MB body: peak RSS plain ${base} kB, gated ${peak} kB"
check_eq "200 MB body: the host received every byte" "$size" "$(count gated-big)"
check "200 MB body: RSS within ${SLACK_KB} kB of plain curl" test "$peak" -lt $((base + SLACK_KB))

# hold.max_body_bytes: a 3 MB server error over a 1 MiB hold goes to the host at once (one attempt); under
# the default hold the same error is retried
cat >"$LG_TMP/hold.json" <<JSON
{"providers": {"openai": {"upstream": "http://127.0.0.1:$PORT"}}, "hold": {"max_body_bytes": 1048576},
 "backoff": {"server_error_ms": 50, "single_account_base_ms": 50}}
JSON
sed 's/, "hold": {"max_body_bytes": 1048576}//' "$LG_TMP/hold.json" >"$LG_TMP/nohold.json"
chmod 600 "$LG_TMP/hold.json" "$LG_TMP/nohold.json"
posts() { curl -s "http://127.0.0.1:$PORT/__count"; }
before=$(posts)
n=$(LLMGATE_CONFIG=$LG_TMP/hold.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -H 'Authorization: Bearer sk-host' -d '{}' \
    "http://api.openai.com/v1/big?size=3000000&status=500" -w ' %{http_code}' | tail -c 4)
check_eq "hold 1 MiB: the host gets the 3 MB error" " 500" "$n"
check_eq "hold 1 MiB: not retried" 1 $(( $(posts) - before ))
before=$(posts)
LLMGATE_CONFIG=$LG_TMP/nohold.json LD_PRELOAD=$LG_LIB timeout 60 curl -s -H 'Authorization: Bearer sk-host' -d '{}' \
    "http://api.openai.com/v1/big?size=3000000&status=500" -o /dev/null
check "default hold: the same error is held and retried" test $(( $(posts) - before )) -gt 1
lg_done
