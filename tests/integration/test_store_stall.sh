#!/usr/bin/env bash
# A stuck shm store lock, through curl under the preload: a lock word naming a thread that no longer exists
# costs one lock timeout, once (the store is rebuilt); a stopped process holding the lock costs one timeout
# and then nothing during the pause, for new processes too; after the pause the store is rebuilt and used;
# garbage over the whole mutex (issue 37: pthread_mutex_timedlock says EINVAL) is a corrupted store, rebuilt
# at once with one line, and pacing holds after it.
source "$(dirname "$0")/../lib.sh"
lg_start_mock --quiet
export KEY_A=sk-stall-a
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "env:KEY_A"}]}},
 "store": {"lock_timeout_ms": 300, "pause_ms": 2000}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
STATE=$XDG_RUNTIME_DIR/llmgate/state.shm
URL=http://api.openai.com/v1/chat/completions
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# requests N: N curl processes one after another; prints their status codes on one line.
requests() {
    local i
    for i in $(seq 1 "$1"); do
        LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code} ' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
            "$URL" -H 'Authorization: Bearer sk-host' -d "$BODY" 2>>"$LG_TMP/err"
    done
}
LOCK_OFFSET=40 # offsetof(lg_store_layout, lock), pinned by tests/unit/test_store_layout.c
requests 1 >/dev/null
check "the store exists" test -s "$STATE"

# 1. A forged lock word: the TID of a process that has exited.
sh -c 'exit 0' & gone=$!; wait "$gone"
/usr/bin/python3 - "$STATE" "$LOCK_OFFSET" "$gone" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(struct.pack("<I", int(sys.argv[3])))
PY
ino=$(stat -c %i "$STATE")
: >"$LG_TMP/err"
start=$(now_ms)
codes=$(requests 5)
ms=$(( $(now_ms) - start ))
check_eq "forged lock word: 5 successes" "200 200 200 200 200 " "$codes"
check "forged lock word: one lock timeout in all, not one per lock call (${ms} ms; 15 timeouts would be 4500)" test "$ms" -lt 2500
check_eq "forged lock word: the store was rebuilt once" 1 "$(grep -c 'stayed locked; rebuilt it' "$LG_TMP/err")"
check "forged lock word: a new store file" test "$(stat -c %i "$STATE")" != "$ino"
counted=$("$LG_CLI" status --json | lg_json 'j["providers"]["openai"]["accounts"]["a"]["requests"]')
check_eq "forged lock word: the rebuilt store kept the first request and counted the 5 others" 6 "$counted"

# 2. A process holding the lock, stopped (python maps the store and takes its mutex, then SIGSTOPs itself).
/usr/bin/python3 - "$STATE" "$LOCK_OFFSET" <<'PY' &
import ctypes, mmap, os, signal, sys
libc = ctypes.CDLL(None)
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
addr = ctypes.addressof(ctypes.c_char.from_buffer(m, int(sys.argv[2])))
if libc.pthread_mutex_lock(ctypes.c_void_p(addr)) != 0:
    sys.exit(1)
os.kill(os.getpid(), signal.SIGSTOP)
PY
holder=$!
LG_MOCK_PIDS+=("$holder")
for _ in $(seq 1 100); do [ "$(ps -o stat= -p "$holder" | cut -c1)" = T ] && break; sleep 0.05; done
check_eq "the holder is stopped with the lock" T "$(ps -o stat= -p "$holder" | cut -c1)"
ino=$(stat -c %i "$STATE")
: >"$LG_TMP/err"
start=$(now_ms)
codes=$(requests 4)
ms=$(( $(now_ms) - start ))
check_eq "stopped holder: 4 successes" "200 200 200 200 " "$codes"
check "stopped holder: one lock timeout, then none during the pause (${ms} ms; 12 timeouts would be 3600)" test "$ms" -lt 2000
check_eq "stopped holder: one notice line per process" 4 "$(grep -c 'stayed locked for 300 ms' "$LG_TMP/err")"
check_eq "stopped holder: not rebuilt during the pause" "$ino" "$(stat -c %i "$STATE")"
sleep 2.1
: >"$LG_TMP/err"
codes=$(requests 2)
check_eq "after the pause: successes" "200 200 " "$codes"
check_eq "after the pause: the store was rebuilt" 1 "$(grep -c 'stayed locked; rebuilt it' "$LG_TMP/err")"
check "after the pause: a new store file" test "$(stat -c %i "$STATE")" != "$ino"
kill -KILL "$holder" 2>/dev/null

# 3. Garbage over the mutex (bytes 40-80), then a paced run: rpm 2 in a 1 s window.
cat >"$LG_TMP/paced.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "a", "key": "env:KEY_P"}],
               "limits": {"rpm": 2, "window_ms": 1000}}},
 "retry": {"max_rate_limit_wait_seconds": 30}, "store": {"lock_timeout_ms": 300, "pause_ms": 2000}}
JSON
chmod 600 "$LG_TMP/paced.json"
export LLMGATE_CONFIG=$LG_TMP/paced.json KEY_P=sk-stall-paced
requests 1 >/dev/null
/usr/bin/python3 - "$STATE" "$LOCK_OFFSET" <<'PY'
import random, sys
random.seed(37)
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(bytes(random.randrange(256) for _ in range(40)))
PY
ino=$(stat -c %i "$STATE")
: >"$LG_TMP/err"
codes=$(requests 6)
check_eq "garbage lock: 6 successes" "200 200 200 200 200 200 " "$codes"
check_eq "garbage lock: one line says the lock was corrupted and the store rebuilt" 1 \
    "$(grep -c 'has a corrupted lock (.*); rebuilt it' "$LG_TMP/err")"
check_eq "garbage lock: nothing else on stderr" 1 "$(wc -l <"$LG_TMP/err")"
check "garbage lock: a new store file" test "$(stat -c %i "$STATE")" != "$ino"
# The mock's arrivals of the 7 requests of sk-stall-paced: never 3 within 1 s (the limiter still paces).
arrivals=$(lg_arrivals sk-stall-paced | tr '\n' ' ')
check_eq "garbage lock: the provider received the 7 paced requests" 7 "$(wc -w <<<"$arrivals")"
check "garbage lock: never more than 2 in any 950 ms at the provider ($arrivals)" /usr/bin/python3 -c '
import sys; a = sorted(int(x) for x in sys.argv[1:]); sys.exit(any(a[i + 2] - a[i] < 950 for i in range(len(a) - 2)))' $arrivals
check "garbage lock: llmgate status works after" "$LG_CLI" status
lg_done
