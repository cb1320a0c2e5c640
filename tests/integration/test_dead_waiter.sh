#!/usr/bin/env bash
# A waiter killed while it holds a reserved place (issue 33, item 3), in the local store and in Redis: one
# key limited to 1 request per 2 s; a first request goes; a second process reserves the place one window
# ahead and waits for it; it is killed with SIGKILL; a third process's request then goes on the dead one's
# place (about one window after the first), not a window later behind a reservation nobody will use. Then
# live waiters keep their places: a request arriving behind them goes a window after them. In Redis the place's
# owner is recorded on the account's hash, and no record is left.
source "$(dirname "$0")/../lib.sh"
command -v redis-server >/dev/null || { not_ok "redis-server installed (make deps)"; exit 1; }

lg_start_mock --quiet --no-ratelimit-headers
lg_start_redis
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
for backend in shm redis; do
    key=sk-dead-$backend
    store=""
    [ "$backend" = redis ] && store=", \"store\": {\"backend\": \"redis\", \"redis_url\": \"$REDIS_URL\"}"
    cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "one", "key": "$key"}],
                          "limits": {"rpm": 1, "window_ms": 2000}}},
 "retry": {"max_rate_limit_wait_seconds": 30}$store}
JSON
    chmod 600 "$LG_TMP/config.json"
    export LLMGATE_CONFIG=$LG_TMP/config.json
    ask() {
        LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
            http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY"
    }
    reserved() { "$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['one'].get('requestsReserved', 0)"; }
    wait_reserved() { # until a waiter holds its place
        for _ in $(seq 1 200); do [ "$(reserved)" = 1 ] && return; sleep 0.05; done
    }
    owners() { # the owner records of the account's hash in Redis
        redis-cli -p "$REDIS_PORT" hkeys "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'llmgate:{openai}:a:one:*')" | grep -c '^o'
    }

    check_eq "$backend: first request goes" 200 "$(ask)"
    LD_PRELOAD=$LG_LIB curl -s -o /dev/null --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
        http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY" &
    waiter=$! # curl itself, not a subshell
    wait_reserved
    check_eq "$backend: the waiter holds a reserved place" 1 "$(reserved)"
    [ "$backend" = redis ] && check_eq "redis: the place's owner is recorded" 1 "$(owners)"
    kill -KILL "$waiter"
    wait "$waiter" 2>/dev/null
    check_eq "$backend: third request goes" 200 "$(ask)"
    arrivals=$(lg_arrivals "$key")
    check_eq "$backend: the provider saw two requests (the killed waiter sent none)" 2 "$(wc -l <<<"$arrivals")"
    gap=$(( $(sed -n 2p <<<"$arrivals") - $(sed -n 1p <<<"$arrivals") ))
    diag "$backend: the third request arrived $gap ms after the first (a window: 2000 ms; behind the dead place: 4000)"
    check "$backend: the third request took the dead waiter's place, not the one after it ($gap ms)" \
        test "$gap" -ge 1900 -a "$gap" -lt 3000
    check_eq "$backend: nothing reserved is left" 0 "$(reserved)"

    # Two live waiters at once (so that one waits, however slowly they start), then a request behind them:
    # all three go, a window apart, none on a place given back as a dead owner's.
    ask >"$LG_TMP/live1.code" &
    live1=$!
    ask >"$LG_TMP/live2.code" &
    live2=$!
    for _ in $(seq 1 200); do [ "$(reserved)" -ge 1 ] && break; sleep 0.05; done
    check "$backend: a live waiter holds a reserved place" test "$(reserved)" -ge 1
    check_eq "$backend: the request behind the live waiters goes" 200 "$(ask)"
    wait "$live1" "$live2"
    check_eq "$backend: the live waiters' requests went" "200 200" "$(cat "$LG_TMP/live1.code") $(cat "$LG_TMP/live2.code")"
    arrivals=$(lg_arrivals "$key")
    check_eq "$backend: the provider saw five requests" 5 "$(wc -l <<<"$arrivals")"
    gaps=$(awk 'NR > 2 { printf "%s%d", (NR > 3 ? " " : ""), $1 - prev } { prev = $1 }' <<<"$arrivals")
    check "$backend: after the dead one's place, each request went a window after the one before ($gaps ms)" \
        bash -c 'for g in $0 $@; do [ "$g" -ge 1900 ] || exit 1; done' $gaps
    [ "$backend" = redis ] && check_eq "redis: no owner record is left" 0 "$(owners)"
done
lg_done
