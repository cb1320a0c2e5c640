#!/usr/bin/env bash
# A waiter killed while it holds a reserved place (issue 33, item 3): one key limited to 1 request per 2 s;
# a first request goes; a second process reserves the place one window ahead and waits for it; it is
# killed with SIGKILL; a third process's request then goes on the dead one's place (about one window after
# the first), not a window later behind a reservation nobody will use.
source "$(dirname "$0")/../lib.sh"

lg_start_mock --quiet --no-ratelimit-headers
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "one", "key": "sk-dead-one"}],
                          "limits": {"rpm": 1, "window_ms": 2000}}},
 "retry": {"max_rate_limit_wait_seconds": 30}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
ask() {
    LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
        http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY"
}

check_eq "first request goes" 200 "$(ask)"
LD_PRELOAD=$LG_LIB curl -s -o /dev/null --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
    http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY" &
waiter=$!
for _ in $(seq 1 100); do # until the waiter holds its place
    [ "$(LLMGATE_CONFIG=$LG_TMP/config.json "$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['one'].get('requestsReserved', 0)")" = 1 ] && break
    sleep 0.05
done
check_eq "the waiter holds a reserved place" 1 \
    "$("$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['one'].get('requestsReserved', 0)")"
kill -KILL "$waiter"
wait "$waiter" 2>/dev/null
check_eq "third request goes" 200 "$(ask)"
arrivals=$(lg_arrivals sk-dead-one)
check_eq "the provider saw two requests (the killed waiter sent none)" 2 "$(wc -l <<<"$arrivals")"
gap=$(( $(sed -n 2p <<<"$arrivals") - $(sed -n 1p <<<"$arrivals") ))
diag "the third request arrived $gap ms after the first (a window: 2000 ms; behind the dead place: 4000)"
check "the third request took the dead waiter's place, not the one after it ($gap ms)" \
    test "$gap" -ge 1900 -a "$gap" -lt 3000
check_eq "nothing reserved is left" 0 \
    "$("$LG_CLI" status --json | lg_json "j['providers']['openai']['accounts']['one'].get('requestsReserved', 0)")"
lg_done
