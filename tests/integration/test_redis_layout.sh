#!/usr/bin/env bash
# The Redis layout (issue 33, layout 2: an account's buckets in one field W, the layout in field qv): a hash
# of layout 1 (a field per bucket, q<epoch> k<epoch>) is folded into W by the next script call, its places
# kept; a hash of a layout this llmgate does not know is never written, and the process falls back to its
# machine's store with one line, the request served.
source "$(dirname "$0")/../lib.sh"
command -v redis-server >/dev/null || { not_ok "redis-server installed (make deps)"; exit 1; }

lg_redis_fleet --rpm 100 --window-ms 60000 --quiet
lg_fleet_config layout "$REDIS_URL" '"rpm": 100, "window_ms": 60000' 60 '"retry_ms": 60000'
CT=(--connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT")
rc() { redis-cli -u "$REDIS_URL" "$@"; }
request() { # one curl request through llmgate; prints its status code, its stderr to $LG_TMP/err
    LLMGATE_CONFIG=$LG_TMP/layout.json LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' "${CT[@]}" "$URL" \
        -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err"
}
places() { tr ' ' '\n' <<<"$(rc hget "$1" W)" | awk -F'[,*]' 'NF >= 3 {s += $2} END {print s + 0}'; }

check_eq "a first request" 200 "$(request)"
key=$(rc --scan --pattern 'llmgate:{openai}:a:*' | head -1)
for k in $(rc --scan --pattern 'llmgate:{openai}:a:*'); do check_eq "layout 2 written ($k)" 2 "$(rc hget "$k" qv)"; done

# 1. The hash made layout 1: its places as fields q<epoch>/k<epoch>, no W, no qv.
span=$(rc hget "$key" sp)
now=$(rc time | head -1)
epoch=$(( now * 1000 * 64 / span ))
rc hdel "$key" W qv >/dev/null
rc hset "$key" "q$epoch" 7 "k$epoch" 70 "q$((epoch - 1))" 2 "k$((epoch - 1))" 20 >/dev/null
for k in $(rc --scan --pattern 'llmgate:{openai}:a:*'); do rc hdel "$k" qv >/dev/null; done
check_eq "a request beside a layout-1 hash" 200 "$(request)"
check_eq "its bucket fields folded into W" "" "$(rc hkeys "$key" | grep -E '^[qkz]-?[0-9]+$')"
check_eq "the hash now of layout 2" 2 "$(rc hget "$key" qv)"
held=$(places "$key")
check "its 9 places kept in W ($held, with the request's own when it went there)" test "$held" -ge 9 -a "$held" -le 10

# 2. A layout this llmgate does not know: never written, one line, the request served from the machine's store.
for k in $(rc --scan --pattern 'llmgate:{openai}:a:*'); do rc hset "$k" qv 3 >/dev/null; done
before=$(rc hget "$key" W)
check_eq "a request beside a hash of layout 3 is served" 200 "$(request)"
check_eq "the layout-3 hash is left as it was" "3 $before" "$(rc hget "$key" qv) $(rc hget "$key" W)"
diag "stderr: $(cat "$LG_TMP/err")"
check_eq "one line says Redis is not used" 1 "$(grep -c "redis store .* unavailable" "$LG_TMP/err")"
lg_done
