#!/usr/bin/env bash
# An epoll host whose loop waits with no timeout of its own (tests/clients/epoll_threads_client.c), over
# plain http: 4 requests at once on one account whose provider answers a 429 that closes the connection
# (retry-after 300 ms) every other time, each answer 100 ms late. A retry goes out on a new connection put
# on the host's descriptor (dup3), and an attempt in flight reads the host's own descriptor: it is armed in
# the host's instance after its registration is hidden (the other way round, the hide wrote over the arm
# and the loop slept through the provider's answer: aiohttp hung so). Then the same with a second thread
# that changes and removes the registrations of the loop's connections every millisecond while the loop
# thread waits (and llmgate's hooks in it hide, arm, put back and make again those registrations): every
# request answered 200 with the account's key, no event with data the host had replaced, none of the
# host's epoll_ctl calls failing; once more with the ASan builds of the client and of the library.
source "$(dirname "$0")/../lib.sh"
cat >"$LG_TMP/scenario.json" <<'JSON'
{"keys": {"sk-acct": {"sequence": [{"status": 429, "headers": {"Connection": "close", "retry-after-ms": "300"},
                                    "body": {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
                                    "delay_ms": 100},
                                   {"delay_ms": 100}], "repeat": true}}}
JSON
lg_start_mock --scenario "$LG_TMP/scenario.json"
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "only", "key": "env:K1"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/config.json"
export K1=sk-acct LLMGATE_CONFIG=$LG_TMP/config.json
ASAN_LIB=$LG_BUILD/asan/libllmgate.so
RUNTIME="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(sorted(set(r["key"] for r in j))) + " " + str(len(j))'; }
fresh() { rm -rf "$XDG_RUNTIME_DIR/llmgate" "$XDG_STATE_HOME/llmgate"; curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }

# run NAME PRELOAD CLIENT [churn]: 4 requests; sets rc, out, secs, stats
run() {
    local t0=$SECONDS
    fresh
    out=$(LD_PRELOAD=$2 timeout 20 "$LG_BUILD/clients/$3" api.openai.com 80 /v1/chat/completions 4 ${4:-} 2>"$LG_TMP/$1.err")
    rc=$? secs=$((SECONDS - t0))
    stats=$(sed -n 's/^stale=\([0-9]*\) ctl_errors=\([0-9]*\) changes=\([0-9]*\) wakeups=\([0-9]*\)$/\1 \2 \3 \4/p' "$LG_TMP/$1.err")
    check_eq "$1: exits 0, in time (${secs} s)" 0 "$rc"
    check_eq "$1: 4 answers, 200 with the account's key" 4 "$(grep -c '^200 .*"mock_key":"sk-acct"' <<<"$out")"
    check_match "$1: the provider saw only the account's key, the 429s retried ($(reqkeys))" '^sk-acct ([5-9]|1[0-9])$' "$(reqkeys)"
    [ "$rc" = 0 ] || diag "$(grep -v '^ *#' "$LG_TMP/$1.err" | head -c 800)"
}

run "no timer of its own" "$LG_LIB" epoll_threads_client
read -r stale errs changes wakeups <<<"$stats"
check "no timer of its own: woken by the answers, not spinning ($wakeups epoll_wait returns)" test "${wakeups:-999}" -le 40

run "a thread changing registrations" "$LG_LIB" epoll_threads_client churn
read -r stale errs changes wakeups <<<"$stats"
check_eq "a thread changing registrations: no event with data the host had replaced" 0 "${stale:-?}"
check_eq "a thread changing registrations: none of the host's epoll_ctl calls failed" 0 "${errs:-?}"
check "a thread changing registrations: it changed them throughout (${changes:-?} changes)" test "${changes:-0}" -ge 100

if [ -f "$ASAN_LIB" ]; then
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
    run "ASan, a thread changing registrations" "$RUNTIME $ASAN_LIB" asan_epoll_threads_client churn
    check "ASan: no sanitizer report" \
        bash -c "! grep -qE 'ERROR: AddressSanitizer|runtime error:' '$LG_TMP/ASan, a thread changing registrations.err'"
else
    not_ok "the ASan preload library is built (make asan)"
fi
lg_done
