#!/usr/bin/env bash
# The preload library built with AddressSanitizer and UBSan (build/asan/libllmgate.so, `make asan`) in the
# ASan-built test clients: threads with random 429s and a host freeing its header list after each
# perform, streams cut into small chunks with an error at the start (retried) and mid-stream, and a
# forking host. Every answer is right and neither sanitizer reports anything.
source "$(dirname "$0")/../lib.sh"
ASAN_LIB=$LG_BUILD/asan/libllmgate.so
[ -f "$ASAN_LIB" ] || { not_ok "the ASan preload library is built (make asan)"; exit 1; }
RUNTIME="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
F=$LG_ROOT/tests/fixtures/streams
cat >"$LG_TMP/scenario.json" <<JSON
{"seed": 13, "keys": {"sk-a": {"probability": {"429": 0.3}}, "sk-b": {"probability": {"429": 0.1, "503": 0.05}},
  "sk-s": {"sequence": [{"fixture": "$F/anthropic_error_at_start.json"},
                        {"fixture": "$F/anthropic_multibyte.json", "chunk": 3, "chunk_delay_ms": 1}], "repeat": true},
  "sk-m": {"sequence": [{"fixture": "$F/openai_error_midstream.json", "chunk": 5, "chunk_delay_ms": 1}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json" --quiet
export KEY_A=sk-a KEY_B=sk-b
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "env:KEY_A"}, {"name": "b", "key": "env:KEY_B"}]},
               "anthropic": {"upstream": "$MOCK_URL"}, "deepseek": {"upstream": "$MOCK_URL"}},
 "retry": {"switch_delay_ms": 5, "max_attempts": 20, "max_rate_limit_wait_seconds": 60},
 "backoff": {"rate_limit_exceeded_ms": 30, "server_error_ms": 30, "dedup_window_ms": 5, "single_account_base_ms": 10}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
URL=http://api.openai.com/v1/chat/completions
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
HDR=(-H 'Authorization: Bearer sk-host' -H 'Content-Type: application/json')
C=$LG_BUILD/clients
asan() { LD_PRELOAD="$RUNTIME $ASAN_LIB" "$@"; }
clean() { ! grep -qE 'ERROR: AddressSanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$1"; }

out=$(asan "$C/asan_threaded_client" -t 4 -n 25 --free-headers "${HDR[@]}" -d "$BODY" "$URL" 2>"$LG_TMP/t.err")
check_match "threads under random 429s: every body once and intact" '^requests=100 ok=100 .*intact=100 unique_ids=100$' "$out"
check "the mock did send errors the host never saw" test "$(lg_stats | lg_json 'j["total"]["rate_limited"]')" -gt 0
check "threads: no sanitizer report" clean "$LG_TMP/t.err"

python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/anthropic_multibyte.json'))['body'])" >"$LG_TMP/s.expected"
asan "$C/asan_stream_client" -H "x-api-key: sk-s" http://api.anthropic.com/v1/messages >"$LG_TMP/s.out" 2>"$LG_TMP/s.err"
check "stream with an error at its start: the host got the healthy stream only" cmp -s "$LG_TMP/s.out" "$LG_TMP/s.expected"
check_match "stream: status 200, whole UTF-8 chunks" '^status=200 chunks=[0-9]+ bad_utf8=0 ' "$(tail -n1 "$LG_TMP/s.err")"
check "stream: no sanitizer report" clean "$LG_TMP/s.err"

python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/openai_error_midstream.json'))['body'])" >"$LG_TMP/m.expected"
asan "$C/asan_stream_client" -H "Authorization: Bearer sk-m" http://api.deepseek.com/chat/completions >"$LG_TMP/m.out" 2>"$LG_TMP/m.err"
check "mid-stream error: passed through as the provider sent it" cmp -s "$LG_TMP/m.out" "$LG_TMP/m.expected"
check "mid-stream error: no sanitizer report" clean "$LG_TMP/m.err"

out=$(asan "$C/asan_fork_client" -c 3 -n 5 "${HDR[@]}" -d "$BODY" "$URL" 2>"$LG_TMP/f.err")
check_eq "a forking host: parent and children served" "ok=17 failed=0" "$out"
check "fork: no sanitizer report" clean "$LG_TMP/f.err"
lg_done
