#!/usr/bin/env bash
# libcurl's multi API under the preload: an event-loop client (tests/clients/multi_client.c) on
# curl_multi_perform + curl_multi_poll, and on curl_multi_socket_action with epoll and a timer callback.
# Provider transfers rotate past a dead key and are paced by the limiter, while a plain transfer in the same
# multi finishes at once; no libcurl call blocks the loop and the loop wakes when llmgate's waits end.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-dead": {"sequence": [{"error": "quota"}], "repeat": true},
          "sk-once": {"sequence": [{"error": "rate_limit", "retry_after_ms": 600}]},
          "sk-slowpoke": {"sequence": [{"delay_ms": 3000}], "repeat": true}}}
JSON
lg_start_mock --rpm 3 --window-ms 1000 --scenario "$LG_TMP/scenario.json"
export KEY_DEAD=sk-dead KEY_GOOD=sk-good KEY_ONCE=sk-once KEY_SLOWPOKE=sk-slowpoke
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "dead", "key": "env:KEY_DEAD"}, {"name": "good", "key": "env:KEY_GOOD"}],
   "limits": {"rpm": 3, "window_ms": 1000}}},
 "retry": {"switch_delay_ms": 20, "max_rate_limit_wait_seconds": 20}}
JSON
chmod 600 "$LG_TMP/config.json"
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
N=6

cat >"$LG_TMP/once.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "once", "key": "env:KEY_ONCE"}]}},
 "retry": {"max_rate_limit_wait_seconds": 20}}
JSON
chmod 600 "$LG_TMP/once.json"

cat >"$LG_TMP/slow.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "good", "key": "env:KEY_GOOD"}],
   "limits": {"rpm": 1, "window_ms": 60000}}},
 "retry": {"max_rate_limit_wait_seconds": 300}}
JSON
chmod 600 "$LG_TMP/slow.json"

cat >"$LG_TMP/slowpoke.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "slowpoke", "key": "env:KEY_SLOWPOKE"}]}}}
JSON
chmod 600 "$LG_TMP/slowpoke.json"

# run_client MODE [CLIENT]: one run against a fresh store and mock state; output in $out.
run_client() {
    curl -s -X POST "$MOCK_URL/__reset" >/dev/null
    rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"
    out=$(ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 LLMGATE_CONFIG=${CONFIG:-$LG_TMP/config.json} LD_PRELOAD=${PRELOAD:-$LG_LIB} timeout 60 "$LG_BUILD/clients/${2:-multi_client}" -m "$1" \
          -n "$N" -T "${T:-5000}" ${CANCEL:+-X "$CANCEL"} ${RESET:+-R "$RESET"} -H 'Authorization: Bearer sk-host' -d "$BODY" -P "$MOCK_URL/__stats" \
          http://api.openai.com/v1/chat/completions 2>"$LG_TMP/err")
    rc=$?
}

for mode in poll socket; do
    run_client $mode
    check_eq "$mode: every transfer succeeded" "0" "$rc"
    [ "$rc" -eq 0 ] || { diag "$out"; diag "$(tail -5 "$LG_TMP/err")"; }
    check_eq "$mode: $N provider transfers answered 200 with a body" "$N" "$(grep -c 'kind=provider result=0 status=200 bytes=[1-9]' <<<"$out")"
    stats=$(lg_stats)
    check_eq "$mode: the dead key was tried, then all $N went to the live one" "True 6" \
        "$(lg_json 'str(j["keys"]["sk-dead"]["requests"] >= 1) + " " + str(j["keys"]["sk-good"]["success"])' <<<"$stats")"
    check_eq "$mode: paced within the live key's limit (no 429 from it, at most 3 in a window)" "0 True" \
        "$(lg_json 'str(j["keys"]["sk-good"]["rate_limited"]) + " " + str(j["keys"]["sk-good"]["max_in_window"] <= 3)' <<<"$stats")"
    check_eq "$mode: the host's own key never reached the provider" "0" \
        "$(curl -s "$MOCK_URL/__requests" | lg_json 'sum(r["key"] == "sk-host" for r in j)')"
    last=$(sed -n 's/.*kind=provider.*done_ms=\([0-9]*\).*/\1/p' <<<"$out" | sort -n | tail -1)
    plain=$(sed -n 's/.*kind=plain result=0 status=200 .*done_ms=\([0-9]*\).*/\1/p' <<<"$out")
    check "$mode: the limiter spread the provider transfers over more than one window (last at ${last}ms)" test "${last:-0}" -ge 900
    check "$mode: the plain transfer finished while they waited (${plain:-none}ms)" test -n "$plain" -a "${plain:-99999}" -lt "$((last - 500))"
    calls=$(sed -n 's/.*max_call_ms=\([0-9]*\).*/\1/p' <<<"$out")
    over=$(sed -n 's/.*wait_overrun_ms=\([0-9]*\).*/\1/p' <<<"$out")
    elapsed=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' <<<"$out")
    check "$mode: no libcurl call blocked the loop (longest ${calls}ms)" test "${calls:-99999}" -lt 400
    check "$mode: no wait overran its timeout (${over}ms)" test "${over:-99999}" -lt 400
    check "$mode: the loop woke when the limiter's waits ended, not at its 5 s poll timeout (${elapsed}ms)" test "${elapsed:-99999}" -lt 4500
done

# one transfer on a single key that answers one 429 with a 600 ms hint, nothing else in the multi to wake
# the loop: the backoff ends through the host's timer callback or the capped poll, not its 5 s timeout
for mode in poll socket; do
    N=1 CONFIG=$LG_TMP/once.json run_client $mode
    elapsed=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' <<<"$out")
    check "$mode, one key backing off: answered after the hint, woken in time (rc $rc, ${elapsed}ms)" \
        test "$rc" -eq 0 -a "${elapsed:-0}" -ge 550 -a "${elapsed:-99999}" -lt 4500
done

# removing transfers that wait for admission cancels them: the loop ends at once, nothing arrives for
# them later, their reserved places are given back
for mode in poll socket; do
    N=3 CANCEL=300 CONFIG=$LG_TMP/slow.json run_client $mode
    check_match "$mode, removed while waiting: one answered, two cancelled, nothing late" \
        'cancelled=2 late_bytes=0' "$(tail -1 <<<"$out")"
    check_eq "$mode, removed while waiting: the loop ended at once" 0 "$rc"
    check_eq "$mode, removed while waiting: the provider saw one request" 1 "$(curl -s "$MOCK_URL/__requests" | lg_json 'len(j)')"
    check_eq "$mode, removed while waiting: no place stays reserved" 0 \
        "$(LLMGATE_CONFIG=$LG_TMP/slow.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["good"]["requestsReserved"]')"
done

# curl_easy_reset of a handle still in the multi (libcurl allows it) ends llmgate's exchange at once: a
# transfer waiting for admission or with its attempt in flight gets its DONE with CURLE_URL_MALFORMAT, as
# libcurl ends a reset handle that had not started; a finished one reset before its removal keeps its
# answer. Nothing is freed under the multi (with the ASan library when built: no report), no place stays
# reserved, the attempt in flight is not waited for.
ASAN_LIB=$LG_BUILD/asan/libllmgate.so
RUNTIME="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
for lib in release asan; do
    [ "$lib" = release ] && preload=$LG_LIB || preload="$RUNTIME $ASAN_LIB"
    [ "$lib" = asan ] && [ ! -f "$ASAN_LIB" ] && { not_ok "the ASan preload library is built (make asan)"; continue; }
    for mode in poll socket; do
        N=3 T=100 RESET=300 PRELOAD=$preload CONFIG=$LG_TMP/slow.json run_client $mode
        check_eq "$lib $mode, reset while waiting: one answered, two ended by the reset, the loop ended" \
            "0 1 2" "$rc $(grep -c 'kind=provider result=0 status=200' <<<"$out") $(grep -c 'result=3 status=0' <<<"$out")"
        check_eq "$lib $mode, reset while waiting: no place stays reserved" 0 \
            "$(LLMGATE_CONFIG=$LG_TMP/slow.json "$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["good"]["requestsReserved"]')"
        check "$lib $mode, reset while waiting: no sanitizer report" bash -c "! grep -qE 'ERROR: AddressSanitizer|runtime error:' '$LG_TMP/err'"
        N=1 T=100 RESET=300 PRELOAD=$preload CONFIG=$LG_TMP/slowpoke.json run_client $mode
        elapsed=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' <<<"$out")
        check "$lib $mode, reset in flight: ended by the reset at once (rc $rc, ${elapsed}ms)" \
            test "$rc" -eq 0 -a "$(grep -c 'result=3 status=0' <<<"$out")" -eq 1 -a "${elapsed:-99999}" -lt 2000
        check "$lib $mode, reset in flight: no sanitizer report" bash -c "! grep -qE 'ERROR: AddressSanitizer|runtime error:' '$LG_TMP/err'"
    done
done

# the same under AddressSanitizer (the multi front end's bookkeeping, cancel on cleanup)
run_client poll asan_multi_client
check_eq "ASan client: every transfer succeeded" "0" "$rc"
check "ASan client: no report" bash -c "! grep -q 'ERROR: AddressSanitizer' '$LG_TMP/err'"
lg_done
