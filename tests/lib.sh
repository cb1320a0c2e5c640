# Shared helpers for the integration tests (sourced). Output is TAP: "ok - ..." / "not ok - ...".
# Each test script gets its own temporary directory, its own XDG dirs (a fresh shared store) and a
# mock provider it starts with lg_start_mock; everything is stopped on exit.
set -u
LG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LG_BUILD=$LG_ROOT/build
LG_LIB=$LG_BUILD/libllmgate.so
LG_CLI=$LG_BUILD/llmgate
LG_MOCK=$LG_BUILD/llmgate-mock
LG_TMP=$(mktemp -d /tmp/llmgate-test.XXXXXX)
chmod 700 "$LG_TMP"
export XDG_RUNTIME_DIR=$LG_TMP/run XDG_STATE_HOME=$LG_TMP/state XDG_CONFIG_HOME=$LG_TMP/config
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
unset LLMGATE_CONFIG LLMGATE_DEBUG LLMGATE_LOG
LG_MOCK_PIDS=()
LG_BRANCH_PIDS=() LG_BRANCH_IDS=() LG_BRANCH_N=0 # cases beside the script (lg_branch)
LG_FAILS=0
LG_COUNT=0

lg_cleanup() {
    local p f
    for p in "${LG_BRANCH_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done # cases beside, unjoined
    for f in "$LG_TMP"/*/llmgate/relay-*.addr; do # relays `llmgate run` started for the test
        [ -f "$f" ] && read -r _ _ p <"$f" && kill -TERM "$p" 2>/dev/null
    done
    for p in $(pgrep -f 'llmgate relay' 2>/dev/null); do # ... and those whose files a fresh store removed
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -q "^XDG_RUNTIME_DIR=$LG_TMP/" && kill -TERM "$p" 2>/dev/null
    done
    for p in "${LG_MOCK_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${LG_MOCK_PIDS[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$LG_TMP"
}
trap lg_cleanup EXIT

ok()     { LG_COUNT=$((LG_COUNT + 1)); echo "ok $LG_COUNT - $*"; }
not_ok() { LG_COUNT=$((LG_COUNT + 1)); echo "not ok $LG_COUNT - $*"; LG_FAILS=$((LG_FAILS + 1)); }
diag()   { echo "# $*"; }

# skip REASON N: N checks skipped (TAP "ok N # skip REASON"), for a host that is not installed.
skip() { local i; for ((i = 0; i < $2; i++)); do LG_COUNT=$((LG_COUNT + 1)); echo "ok $LG_COUNT # skip $1"; done; }
# check DESC CMD...: passes when CMD exits 0.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# check_eq DESC EXPECTED ACTUAL
check_eq() {
    if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1"; diag "expected: $(printf %q "$2")"; diag "actual:   $(printf %q "$3")"; fi
}
# check_match DESC REGEX ACTUAL
check_match() {
    if [[ $3 =~ $2 ]]; then ok "$1"; else not_ok "$1"; diag "expected to match: $2"; diag "actual: $(printf %q "${3:0:400}")"; fi
}

# check_absent DESC FILE PATTERN...: passes when FILE exists and contains none of the (fixed-string)
# patterns; a missing file fails (a plain `! grep` would pass on it).
check_absent() {
    local d=$1 f=$2 p args=()
    shift 2
    for p in "$@"; do args+=(-e "$p"); done
    if [ ! -f "$f" ]; then not_ok "$d"; diag "missing file: $f"
    elif grep -a -q -F "${args[@]}" "$f"; then not_ok "$d"; diag "found in $f: $(grep -a -o -F "${args[@]}" "$f" | head -n 3 | tr '\n' ' ')"
    else ok "$d"; fi
}

# lg_key_slices KEY...: every 8-character slice of each key (the whole key when shorter), one a line.
lg_key_slices() {
    local k i
    for k in "$@"; do
        if [ "${#k}" -le 8 ]; then echo "$k"; continue; fi
        for ((i = 0; i + 8 <= ${#k}; i++)); do echo "${k:i:8}"; done
    done
}

# check_no_key DESC KEYS FILE...: passes when every FILE exists and none holds any 8-character slice of
# any key of the space-separated KEYS (text or binary). Directories are searched recursively.
check_no_key() {
    local d=$1 keys=$2 f hit="" slices
    shift 2
    # shellcheck disable=SC2086
    slices=$(lg_key_slices $keys)
    for f in "$@"; do
        if [ ! -e "$f" ]; then not_ok "$d"; diag "missing: $f"; return; fi
        if grep -r -a -q -F -f <(printf '%s\n' "$slices") "$f"; then
            hit+="$f: $(grep -r -a -h -o -F -f <(printf '%s\n' "$slices") "$f" | head -n 3 | tr '\n' ' ') "
        fi
    done
    if [ -z "$hit" ]; then ok "$d"; else not_ok "$d"; diag "key slices found: $hit"; fi
}

# lg_arrivals KEY: the mock's arrival times (ms, its monotonic clock) of KEY's requests still in its
# request log, one a line, oldest first.
lg_arrivals() { curl -s "$MOCK_URL/__requests" | lg_json "'\\n'.join(str(int(r['at_ms'])) for r in j if r['key'] == '$1')"; }

# lg_start_mock ARGS...: starts the mock provider on an ephemeral port; sets MOCK_PORT, MOCK_URL,
# MOCK_PID (and MOCK_TLS_PORT when --tls-port is given).
lg_start_mock() {
    local pf=$LG_TMP/mock.$RANDOM.ports i
    "$LG_MOCK" --port 0 --port-file "$pf" "$@" >"$LG_TMP/mock.$RANDOM.log" 2>&1 &
    MOCK_PID=$!
    LG_MOCK_PIDS+=("$MOCK_PID")
    for i in $(seq 1 200); do
        [ -s "$pf" ] && grep -q '^port=' "$pf" && break
        sleep 0.05
    done
    MOCK_PORT=$(sed -n 's/^port=//p' "$pf")
    MOCK_TLS_PORT=$(sed -n 's/^tls_port=//p' "$pf")
    MOCK_URL=http://127.0.0.1:$MOCK_PORT
    [ -n "$MOCK_PORT" ] || { not_ok "mock provider started"; exit 1; }
}

# lg_stats: prints the mock's /__stats JSON.
lg_stats() { curl -s "$MOCK_URL/__stats"; }

# lg_json EXPR: evaluates a Python expression (Debian's /usr/bin/python3) on the JSON read from stdin (bound to j).
lg_json() { /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

# lg_gencerts: creates a test CA and a server certificate for the provider hosts in $LG_TMP/certs.
lg_gencerts() { bash "$LG_ROOT/tests/gen-certs.sh" "$LG_TMP/certs" >/dev/null 2>&1; }

# lg_free_port: prints a free TCP port on 127.0.0.1.
# lg_loop_lateness CLIENT URL N: the largest lateness (ms) of the 50 ms tick of tests/clients/py/async_clients.py
# running CLIENT with N requests to URL WITHOUT llmgate: what the machine alone costs an event loop now.
lg_loop_lateness() {
    env -u LD_PRELOAD timeout 60 /usr/bin/python3 "$LG_ROOT/tests/clients/py/async_clients.py" "$@" 2>&1 >/dev/null |
        sed -n 's/^ticks=[0-9]* max_late_ms=\([0-9]*\)$/\1/p' | grep . || echo 0
}
# lg_tick_bound BOUND BASE: the bound on a tick's lateness under llmgate: BOUND ms beyond BASE (what the loop
# shows without llmgate in the same run, lg_loop_lateness), capped at 350 ms so that a loaded machine never
# hides a loop blocked for a whole answer.
lg_tick_bound() { local b=$(($1 + ${2:-0})); echo $((b < 350 ? b : 350)); }

# lg_hole MODE [tls]: a black-holed listener (tests/servers/black_hole.py: silent, head, deaf, full; with
# tls, speaking TLS with the test certificates), each accepted connection logged in $LG_TMP/hole.MODE.log;
# sets HOLE_PORT.
lg_hole() {
    local pf=$LG_TMP/hole.$1${2:+.$2}.port i
    /usr/bin/python3 "$LG_ROOT/tests/servers/black_hole.py" "$1" "$pf" "$LG_TMP/hole.$1.log" \
        ${2:+"$LG_TMP/certs/server.pem" "$LG_TMP/certs/server.key"} &
    LG_MOCK_PIDS+=($!)
    for i in $(seq 1 100); do [ -s "$pf" ] && break; sleep 0.05; done
    HOLE_PORT=$(cat "$pf")
}
lg_free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# lg_start_redis [PORT]: starts a redis-server of our own on 127.0.0.1 (a free port, or PORT), without
# persistence; sets REDIS_PORT, REDIS_PID, REDIS_URL. Stopped on exit with the mocks.
lg_start_redis() {
    local i
    REDIS_PORT=${1:-$(lg_free_port)}
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
        --dir "$LG_TMP" --logfile "$LG_TMP/redis.$REDIS_PORT.log" &
    REDIS_PID=$!
    LG_MOCK_PIDS+=("$REDIS_PID")
    REDIS_URL=redis://127.0.0.1:$REDIS_PORT
    for i in $(seq 1 200); do
        [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    not_ok "redis-server started"; exit 1
}

# lg_openai_sdk_ready: the official `openai` npm SDK is in tests/clients/node/node_modules (installed there
# once from the npm registry by its package-lock.json, `npm ci`); else prints why not and fails.
lg_openai_sdk_ready() {
    local dir=$LG_ROOT/tests/clients/node
    [ -f "$dir/node_modules/openai/package.json" ] && return 0
    command -v npm >/dev/null || { echo "no npm"; return 1; }
    timeout 300 npm ci --prefix "$dir" --no-audit --no-fund >"$LG_TMP/npm.log" 2>&1 ||
        { echo "npm ci failed (registry unreachable?): $(tail -n 2 "$LG_TMP/npm.log" | tr '\n' ' ')"; return 1; }
}

# lg_redis_fleet MOCK_ARGS...: what the redis tests and benches share: the mock provider (started with
# MOCK_ARGS), a redis-server of our own (lg_start_redis), the two keys KEY_A / KEY_B (exported), and BODY /
# URL, a small chat request to OpenAI's host (taken to the mock with --connect-to).
lg_redis_fleet() {
    lg_start_mock "$@"
    lg_start_redis
    export KEY_A=sk-fleet-a KEY_B=sk-fleet-b
    BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
    URL=http://api.openai.com/v1/chat/completions
}

# lg_fleet_config NAME REDIS_URL LIMITS WAIT_S [STORE]: writes $LG_TMP/NAME.json: provider openai at the mock
# with accounts a (KEY_A) and b (KEY_B) limited by LIMITS (JSON members, e.g. '"rpm": 5, "window_ms": 1000'),
# max_rate_limit_wait_seconds WAIT_S, the redis store at REDIS_URL with the STORE members added (e.g.
# '"retry_ms": 500, "leases": false').
lg_fleet_config() {
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL",
   "accounts": [{"name": "a", "key": "env:KEY_A"}, {"name": "b", "key": "env:KEY_B"}],
   "limits": {$3}}},
 "retry": {"max_rate_limit_wait_seconds": $4},
 "store": {"backend": "redis", "redis_url": "$2"${5:+, $5}}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}

# lg_start_emulation ARGS...: starts tests/servers/emulation.py (the provider emulation written apart from
# the mock: Python's http.server with a TLS 1.3 ssl.SSLContext) in $LG_TMP/emu with the certificates of
# lg_gencerts; ARGS go to it (--fail-first N, --delay-ms MS, --hang KEY, --stall KEY). Sets EMU_PORT (http), EMU_TLS_PORT (https),
# EMU_LOG (its request log, one JSON line a POST), EMU_PID. Stopped on exit with the mocks.
lg_start_emulation() {
    local d=$LG_TMP/emu i
    mkdir -p "$d"
    cp "$LG_TMP/certs/server.pem" "$d/cert.pem"
    cp "$LG_TMP/certs/server.key" "$d/key.pem"
    /usr/bin/python3 "$LG_ROOT/tests/servers/emulation.py" "$d" "$@" >"$d/server.log" 2>&1 &
    EMU_PID=$!
    LG_MOCK_PIDS+=("$EMU_PID")
    for i in $(seq 1 200); do
        [ -s "$d/ports" ] && break
        sleep 0.05
    done
    EMU_PORT=$(sed -n 's/^port=//p' "$d/ports" 2>/dev/null)
    EMU_TLS_PORT=$(sed -n 's/^tls_port=//p' "$d/ports" 2>/dev/null)
    EMU_LOG=$d/requests.log
    [ -n "$EMU_TLS_PORT" ] || { not_ok "provider emulation started"; exit 1; }
}

# sse_text: the text of an OpenAI event stream on stdin (newlines written as \n), "|DONE" after it when it
# ended with [DONE]
sse_text() {
    /usr/bin/python3 -c '
import json, sys
text, done = "", False
for line in sys.stdin.read().replace("\\n", "\n").splitlines():
    if line.startswith("data: [DONE]"):
        done = True
    elif line.startswith("data: "):
        for c in json.loads(line[6:]).get("choices", []):
            text += c.get("delta", {}).get("content") or ""
print(text + ("|DONE" if done else ""))'
}

# lg_branch FUNC ARG...: runs FUNC ARG... beside the script (in the background, a subshell) for cases
# independent of the others: in a scratch directory of its own standing in for $LG_TMP, with XDG dirs of its
# own (a fresh shared store) and the test certificates of lg_gencerts, if made, linked in; mocks, holes and
# relays it starts are its own and stopped when it ends. Its output (checks and all) is held back until
# lg_join. It shares what the script set up before (a mock started earlier, exported variables) but must
# not reset or count that mock's requests while other cases use it; variables it sets stay in it.
lg_branch() {
    local d=$LG_TMP/branch.$LG_BRANCH_N
    mkdir -m 700 "$d" "$d/run" "$d/state" "$d/config"
    [ -d "$LG_TMP/certs" ] && ln -s "$LG_TMP/certs" "$d/certs"
    (
        LG_TMP=$d LG_COUNT=0 LG_FAILS=0 LG_MOCK_PIDS=() LG_BRANCH_PIDS=() LG_BRANCH_IDS=()
        export XDG_RUNTIME_DIR=$d/run XDG_STATE_HOME=$d/state XDG_CONFIG_HOME=$d/config
        trap lg_cleanup EXIT
        "$@"
        echo "# lg_branch $*: ended"
    ) >"$LG_TMP/branch.$LG_BRANCH_N.out" 2>&1 </dev/null &
    LG_BRANCH_PIDS+=("$!") LG_BRANCH_IDS+=("$LG_BRANCH_N")
    LG_BRANCH_N=$((LG_BRANCH_N + 1))
}

# lg_join: waits for the cases of lg_branch, then prints their output in the order they were started, their
# checks numbered on from the script's own; a case that stopped before its end (exit, a failed start) is one
# more failed check.
lg_join() {
    local i id line ended
    for i in "${!LG_BRANCH_PIDS[@]}"; do
        id=${LG_BRANCH_IDS[$i]}
        wait "${LG_BRANCH_PIDS[$i]}"
        ended=""
        while IFS= read -r line; do
            if [[ $line =~ ^(not ok|ok)\ [0-9]+(.*)$ ]]; then
                LG_COUNT=$((LG_COUNT + 1))
                echo "${BASH_REMATCH[1]} $LG_COUNT${BASH_REMATCH[2]}"
                [ "${BASH_REMATCH[1]}" = ok ] || LG_FAILS=$((LG_FAILS + 1))
            elif [[ $line =~ ^#\ lg_branch\ (.*):\ ended$ ]]; then
                ended=${BASH_REMATCH[1]}
            else
                echo "$line"
            fi
        done <"$LG_TMP/branch.$id.out"
        [ -n "$ended" ] || not_ok "case $id beside the script ran to its end (stopped early; its output above)"
    done
    LG_BRANCH_PIDS=() LG_BRANCH_IDS=()
}

# lg_done: ends a script: prints the TAP plan (tests/run.sh counts a script that stopped before it as
# failed) and exits non-zero when a check failed.
lg_done() { echo "1..$LG_COUNT"; [ "$LG_FAILS" -eq 0 ]; }

# lg_start_nginx_front UPSTREAM [DIRECTIVES]: starts Debian's nginx on 127.0.0.1 (a free port) as a TLS 1.3 terminator
# offering h2,http/1.1 by ALPN (the shape of the real providers' fronts) with the test certificates
# (lg_gencerts first), passing every request on over HTTP/1.1 to UPSTREAM (host:port, e.g. the mock's)
# unbuffered; sets NGINX_PORT, NGINX_PID, NGINX_LOG (its access log: protocol, status, the request's
# Authorization header). DIRECTIVES go into its server block (e.g. "keepalive_requests 1;": it closes
# each connection after one answer). Stopped by lg_stop_nginx_front, or on exit with the mocks.
lg_start_nginx_front() {
    local d=$LG_TMP/nginx.$RANDOM i
    mkdir -p "$d"
    NGINX_PORT=$(lg_free_port)
    NGINX_LOG=$d/access.log
    cat >"$d/nginx.conf" <<NGINX
daemon off;
master_process off;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 256; }
http {
    log_format front '\$server_protocol \$status \$http_authorization';
    access_log $NGINX_LOG front;
    client_body_temp_path $d/body; proxy_temp_path $d/proxy; fastcgi_temp_path $d/fcgi;
    uwsgi_temp_path $d/uwsgi; scgi_temp_path $d/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        ssl_certificate $LG_TMP/certs/server.pem;
        ssl_certificate_key $LG_TMP/certs/server.key;
        ssl_protocols TLSv1.3;
        ${2:-}
        location / {
            proxy_pass http://$1;
            proxy_http_version 1.1;
            proxy_set_header Host \$host;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
        }
    }
}
NGINX
    "$(command -v nginx || echo /usr/sbin/nginx)" -p "$d" -c "$d/nginx.conf" -e "$d/error.log" >"$d/stdout" 2>&1 &
    NGINX_PID=$!
    LG_MOCK_PIDS+=("$NGINX_PID")
    for i in $(seq 1 200); do
        curl -s -o /dev/null --cacert "$LG_TMP/certs/ca.pem" "https://127.0.0.1:$NGINX_PORT/" && return 0
        sleep 0.05
    done
    not_ok "nginx front started"; diag "$(cat "$d/error.log" "$d/stdout" 2>/dev/null | head -c 600)"; exit 1
}

# lg_stop_nginx_front: stops the nginx of lg_start_nginx_front.
lg_stop_nginx_front() { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; }
