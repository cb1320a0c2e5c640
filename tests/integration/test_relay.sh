#!/usr/bin/env bash
# The relay (llmgate relay) for programs with their own TLS: a Go net/http client (cgo and static builds)
# run through `llmgate run` reaches api.openai.com (the mock, by the config's upstream) through the relay as
# its HTTPS proxy: every request succeeds, the mock never sees the program's key, a 429 is retried
# invisibly, a stream arrives byte for byte; the same for Node.js (fetch, https, the official `openai` npm
# SDK), Java's HttpClient and a rustls client (system roots), led there by the preload's connect hook, and
# a rustls child of a relayed Node.js program (its trust inherited), a Java child without the relay's
# trust store left alone and announced; a rustls client with compiled-in roots
# named and left ungated; the relay's local CA (key 0600, name constraints that refuse a
# certificate for another name), a non-provider https site tunnelled untouched, the proxy refused without
# the relay's secret and to another user, a relay killed mid-request and its replacement.
source "$(dirname "$0")/../lib.sh"
command -v go >/dev/null || { skip "no Go toolchain (golang-go)" 1; lg_done; exit; }
F=$LG_ROOT/tests/fixtures/streams
lg_gencerts || { not_ok "test certificates created"; exit 1; }
# The rustls client of the cases below, built offline from Debian's crates in the background from the start
# (its first build, in a clean build directory, takes longer than the cases before it); RUST_BUILD: its pid
RUST_REG=/usr/share/cargo/registry
RUST_BUILD=
if command -v cargo >/dev/null && compgen -G "$RUST_REG/rustls-0.20*" >/dev/null && compgen -G "$RUST_REG/rustls-native-certs-*" >/dev/null; then
    cp -r "$LG_ROOT/tests/clients/rust" "$LG_TMP/rust"
    mkdir -p "$LG_TMP/rust/.cargo"
    printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "%s"\n[net]\noffline = true\n' "$RUST_REG" >"$LG_TMP/rust/.cargo/config.toml"
    (export CARGO_TARGET_DIR=$LG_BUILD/rust-target
     cd "$LG_TMP/rust" && timeout 900 cargo build -q --release --offline && cp "$CARGO_TARGET_DIR/release/rustls_client" "$LG_TMP/rustls_client" &&
        timeout 900 cargo build -q --release --offline --features fake-webpki-roots && cp "$CARGO_TARGET_DIR/release/rustls_client" "$LG_TMP/rustls_webpki") \
        2>"$LG_TMP/cargo.err" </dev/null &
    RUST_BUILD=$!
    LG_MOCK_PIDS+=("$RUST_BUILD")
fi
/usr/bin/python3 - "$LG_TMP/scenario.json" "$F/openai_multibyte.json" <<'PY'
import json, sys
json.dump({"keys": {
    "sk-dead": {"sequence": [{"error": "rate_limit", "retry_after_ms": 20000}], "repeat": True},
    "sk-sse": {"sequence": [{"fixture": sys.argv[2], "chunk": 3, "chunk_delay_ms": 1}], "repeat": True},
    "sk-slow": {"sequence": [{"fixture": sys.argv[2], "chunk": 16, "chunk_delay_ms": 300}, {}]},
}}, open(sys.argv[1], "w"))
PY
/usr/bin/python3 -c "import json,sys; sys.stdout.write(json.load(open('$F/openai_multibyte.json'))['body'])" >"$LG_TMP/sse.expected"
lg_start_mock --scenario "$LG_TMP/scenario.json" --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT", "accounts": [{"name": "dead", "key": "env:K1"}, {"name": "live", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
# a relay reads the accounts' keys when it starts, from the environment of the `llmgate run` that started
# it: each set of keys below has a config (and so a relay) of its own
for k in sse slow; do
    sed "s/env:K2/env:K_$k/" "$LG_TMP/config.json" >"$LG_TMP/$k.json"
done
chmod 600 "$LG_TMP"/*.json
URL=https://api.openai.com/v1/chat/completions
reqkeys() { curl -s "$MOCK_URL/__requests" | lg_json '" ".join(r["key"] for r in j)'; }
fresh() { curl -s -X POST "$MOCK_URL/__reset" >/dev/null; }
addr_of() { echo "$XDG_RUNTIME_DIR/llmgate/relay-$("$LG_CLI" relay --config "$LG_TMP/$1.json" --name).addr"; }
relay_pid() { awk '{print $3}' "$(addr_of "$1")" 2>/dev/null; }
stop_relays() { local p; for p in $(cat "$XDG_RUNTIME_DIR"/llmgate/relay-*.addr 2>/dev/null | awk '{print $3}'); do kill "$p"; done; sleep 0.3; }

# the Go client, built twice: with cgo (the default: dynamically linked) and static (CGO_ENABLED=0)
export GOCACHE=$LG_BUILD/gocache GOPATH=$LG_TMP/gopath GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local
cp "$LG_ROOT/tests/clients/go/relay_client.go" "$LG_TMP/"
(cd "$LG_TMP" && go build -o gocgo relay_client.go && CGO_ENABLED=0 go build -o gostatic relay_client.go) 2>"$LG_TMP/gobuild.err" \
    || { not_ok "the Go client builds"; diag "$(head -c 600 "$LG_TMP/gobuild.err")"; exit 1; }

for build in gocgo gostatic; do
    fresh
    out=$(K1=sk-dead K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- "$LG_TMP/$build" "$URL" 3 2>"$LG_TMP/err")
    rc=$?
    check_eq "Go $build: exits 0" 0 "$rc"
    check_eq "Go $build: 3 answers, all 200 over HTTP/1.1 from the live key" 3 "$(grep -c '^200 HTTP/1.1 .*"mock_key":"sk-good"' <<<"$out")"
    if [ $build = gocgo ]; then
        check_match "Go $build: the dead key's 429 retried invisibly, then the live key; never the program's" '^sk-dead sk-good( sk-good)*$' "$(reqkeys)"
    else # the dead account cools down for 20 s, in the store the relay shares with every run
        check_eq "Go $build: the dead account, still cooling from the first run, skipped; never the program's key" "sk-good sk-good sk-good" "$(reqkeys)"
    fi
    check_match "Go $build: llmgate run says in one line how it reaches the program" \
        "^llmgate: [^ ]*$build is a Go program \(its own HTTP and TLS\): gated through the relay on 127\.0\.0\.1:[0-9]+ as its HTTPS proxy$" "$(cat "$LG_TMP/err")"
    [ "$rc" = 0 ] || diag "$(head -c 600 "$LG_TMP/err") $(tail -c 400 "$XDG_RUNTIME_DIR"/llmgate/relay-*.log 2>/dev/null)"
done
check_eq "one relay for both runs of one config" 1 "$(ls "$XDG_RUNTIME_DIR"/llmgate/relay-*.addr | wc -l)"
check_eq "the relay's address file (its secret) is 0600" 600 "$(stat -c %a "$(addr_of config)")"

fresh
mkdir -m 700 "$LG_TMP/run2" # a store of its own: the dead account cools down in the first one
XDG_RUNTIME_DIR=$LG_TMP/run2 K1=sk-dead K_sse=sk-sse timeout 60 "$LG_CLI" run --config "$LG_TMP/sse.json" -- "$LG_TMP/gocgo" "$URL" stream >"$LG_TMP/sse.body" 2>"$LG_TMP/err"
check "Go stream: the provider's event stream byte for byte" cmp -s "$LG_TMP/sse.body" "$LG_TMP/sse.expected"
check_eq "Go stream: dead key then live" "sk-dead sk-sse" "$(reqkeys)"
kill "$(awk '{print $3}' "$LG_TMP"/run2/llmgate/relay-*.addr)"

# Programs led to the relay by the preload's connect hook (LLMGATE_RELAY, a PROXY protocol preamble), each
# with a runtime directory (a store, a relay) of its own: the dead key meets its 429 in each.
cat >"$LG_TMP/node.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT", "accounts": [{"name": "ndead", "key": "env:K1"}, {"name": "nlive", "key": "env:K2"}]}},
 "retry": {"switch_delay_ms": 20}, "backoff": {"single_account_base_ms": 50, "dedup_window_ms": 10}}
JSON
chmod 600 "$LG_TMP/node.json"
# relayed LABEL RUN ANSWER LINE CMD...: CMD (3 requests) through `llmgate run` with the dead and the live
# key, in the runtime directory $LG_TMP/RUN: it exits 0, its answers match ANSWER 3 times, the mock saw the
# dead key then the live one (never the program's), and its stderr matches LINE (how it is reached)
relayed() {
    local label=$1 run=$LG_TMP/$2 answer=$3 line=$4 out rc
    shift 4
    fresh
    mkdir -p -m 700 "$run"
    out=$(XDG_RUNTIME_DIR=$run K1=sk-dead K2=sk-good timeout 120 "$LG_CLI" run --config "$LG_TMP/node.json" -- "$@" 2>"$LG_TMP/err")
    rc=$?
    check_eq "$label: exits 0" 0 "$rc"
    check_eq "$label: 3 answers, all 200 from the live key" 3 "$(grep -c "$answer" <<<"$out")"
    check_match "$label: the dead key's 429 retried invisibly, then the live key; never the program's" '^sk-dead sk-good sk-good sk-good$' "$(reqkeys)"
    check_match "$label: llmgate run says in one line how it reaches the program" "$line" "$(cat "$LG_TMP/err")"
    [ "$rc" = 0 ] || diag "$out $(head -c 600 "$LG_TMP/err") $(tail -c 400 "$run"/llmgate/relay-*.log 2>/dev/null)"
}
# relayed_stream LABEL RUN CMD...: one streamed request of CMD, in $LG_TMP/RUN, arrives byte for byte
relayed_stream() {
    local label=$1 run=$LG_TMP/$2
    shift 2
    fresh
    XDG_RUNTIME_DIR=$run K1=sk-dead K_sse=sk-sse timeout 120 "$LG_CLI" run --config "$LG_TMP/sse.json" -- "$@" >"$LG_TMP/stream.body" 2>"$LG_TMP/err"
    check "$label stream: the provider's event stream byte for byte" cmp -s "$LG_TMP/stream.body" "$LG_TMP/sse.expected"
    for f in "$run"/llmgate/relay-*.addr; do kill "$(awk '{print $3}' "$f")"; done
}
NODE_LINE='^llmgate: [^ ]*node carries its own TLS library \(as Node\.js does\): its https requests to providers are gated through the relay on 127\.0\.0\.1:[0-9]+$'

# Node.js (its own OpenSSL, linked in): fetch and https.request, trusting the local CA through
# NODE_EXTRA_CA_CERTS
NODE_CLIENT=$LG_ROOT/tests/clients/node/relay_client.js
if command -v node >/dev/null; then
    for mode in fetch https; do
        relayed "Node $mode" run-$mode '^200 .*"mock_key":"sk-good"' "$NODE_LINE" node "$NODE_CLIENT" "$URL" $mode 3
    done
    relayed_stream "Node" run-https node "$NODE_CLIENT" "$URL" stream
    # a relay that is gone (its port closed) while the program still names it: the program's https goes
    # out ungated (its own key), said in one line
    fresh
    dead=$(lg_free_port)
    OUT=$(LLMGATE_RELAY=$dead:0123456789abcdef0123456789abcdef NODE_EXTRA_CA_CERTS=$SSL_CERT_FILE LLMGATE_CONFIG=$LG_TMP/node.json \
          K1=sk-dead K2=sk-good LD_PRELOAD=$LG_LIB timeout 30 node "$NODE_CLIENT" "$URL" fetch 1 2>"$LG_TMP/err")
    check_match "Node, the relay gone: answered ungated, with its own key" '^200 .*"mock_key":"sk-host"' "$OUT"
    check_eq "Node, the relay gone: said in one line" \
        "llmgate: the relay on 127.0.0.1:$dead cannot be reached: this program's https requests to providers go out ungated" "$(cat "$LG_TMP/err")"
    for f in "$LG_TMP"/run-*/llmgate/relay-*.addr; do kill "$(awk '{print $3}' "$f")"; done
else
    skip "no node" 11
fi

# the official `openai` npm SDK (its own fetch, the SDK's retries off: a 429 must be absorbed here), from
# the npm registry (lg_openai_sdk_ready)
NODE_DIR=$LG_ROOT/tests/clients/node
if ! command -v node >/dev/null; then
    skip "no node" 5
elif ! why=$(lg_openai_sdk_ready); then
    skip "the openai npm SDK cannot be installed: $why" 5
else
    relayed "openai SDK" run-sdk '^200 .*"mock_key":"sk-good"' "$NODE_LINE" node "$NODE_DIR/openai_sdk_client.js" - post 3
    relayed_stream "openai SDK" run-sdk node "$NODE_DIR/openai_sdk_client.js" - stream
fi

# Java's HttpClient (its own TLS, JSSE; HTTP/2 preferred): led to the relay like Node.js (from a dual-stack
# socket: an IPv4-mapped address), trusting the local CA through a copy of the JDK's trust store named in
# JAVA_TOOL_OPTIONS after the user's own options (kept); ALPN gives HTTP/1.1
if command -v java >/dev/null && command -v javac >/dev/null; then
    mkdir -p "$LG_TMP/java"
    if javac -d "$LG_TMP/java" "$LG_ROOT/tests/clients/java/RelayClient.java" 2>"$LG_TMP/javac.err"; then
        JAVA_TOOL_OPTIONS=-Dllmgate.test=kept relayed "Java" run-java '^200 HTTP/1.1 .*"mock_key":"sk-good"' \
            $'(^|\n)llmgate: [^ ]*java is a Java runtime \\(its own TLS, JSSE\\): its https requests to providers are gated through the relay on 127\\.0\\.0\\.1:[0-9]+(\n|$)' \
            java -cp "$LG_TMP/java" RelayClient "$URL" post 3
        check_match "Java: its trust store added after the user's JAVA_TOOL_OPTIONS, which are kept" \
            'Picked up JAVA_TOOL_OPTIONS: -Dllmgate\.test=kept -Djavax\.net\.ssl\.trustStore=[^ ]*/relay-ca\.pem\.java-[0-9a-f]+' "$(cat "$LG_TMP/err")"
        relayed_stream "Java" run-java java -cp "$LG_TMP/java" RelayClient "$URL" stream
        # a Java child of a relayed Node.js program inherits LLMGATE_RELAY but not the relay's trust store (its
        # JAVA_TOOL_OPTIONS name the user's own, which trusts the test CA): left alone and said in one line,
        # never led to a relay whose certificate it would refuse
        if command -v node >/dev/null && keytool -importcert -noprompt -alias test-ca -file "$SSL_CERT_FILE" \
            -keystore "$LG_TMP/user-trust.p12" -storetype PKCS12 -storepass changeit >/dev/null 2>&1; then
            fresh
            mkdir -p -m 700 "$LG_TMP/run-java-child"
            out=$(XDG_RUNTIME_DIR=$LG_TMP/run-java-child K1=sk-dead K2=sk-good \
                  JAVA_TOOL_OPTIONS="-Djavax.net.ssl.trustStore=$LG_TMP/user-trust.p12 -Djavax.net.ssl.trustStorePassword=changeit" \
                  timeout 120 "$LG_CLI" run --config "$LG_TMP/node.json" -- \
                  node -e 'require("child_process").execFileSync(process.argv[1], process.argv.slice(2), {stdio: "inherit"})' \
                  java -cp "$LG_TMP/java" RelayClient "$URL" post 2 2>"$LG_TMP/err")
            check_match "Java child of Node.js without the relay's trust: answered ungated, with its own key, as said" \
                '^200 HTTP/[0-9.]+ .*"mock_key":"sk-host"' "$out"
            check_eq "Java child of Node.js without the relay's trust: said once, in one line" 1 \
                "$(grep -c "^llmgate: java is a Java runtime under the relay without the relay's trust store (JAVA_TOOL_OPTIONS): its https requests to providers go out ungated; run it with llmgate run to gate them$" "$LG_TMP/err")"
            [ -n "$out" ] || diag "$(head -c 800 "$LG_TMP/err")"
            for f in "$LG_TMP"/run-java-child/llmgate/relay-*.addr; do kill "$(awk '{print $3}' "$f")"; done
        else
            skip "no node or no keytool" 2
        fi
    else
        not_ok "the Java client compiles"; diag "$(head -c 600 "$LG_TMP/javac.err")"
    fi
else
    skip "no JDK (java, javac)" 8
fi

# a rustls client (std's sockets, the system's roots through rustls-native-certs), built offline from
# Debian's crates: led to the relay like Node.js, trusting the local CA through SSL_CERT_FILE in the form
# its verifier (webpki 0.22) reads; one whose roots are compiled in (webpki-roots) named and left ungated
if [ -n "$RUST_BUILD" ]; then
    export CARGO_TARGET_DIR=$LG_BUILD/rust-target
    if wait "$RUST_BUILD"; then
        relayed "rustls" run-rustls '^200 .*"mock_key":"sk-good"' \
            '^llmgate: [^ ]*rustls_client is a Rust program with rustls \(its own TLS\): its https requests to providers are gated through the relay on 127\.0\.0\.1:[0-9]+$' \
            "$LG_TMP/rustls_client" api.openai.com /v1/chat/completions post 3
        relayed_stream "rustls" run-rustls "$LG_TMP/rustls_client" api.openai.com /v1/chat/completions stream
        # a rustls child of a relayed Node.js program: it inherits LLMGATE_RELAY and, with it, the trust in
        # the CA's webpki form (SSL_CERT_FILE), so it is gated too
        if command -v node >/dev/null; then
            relayed "rustls child of Node.js" run-rustls-child '^200 .*"mock_key":"sk-good"' "$NODE_LINE" \
                node -e 'require("child_process").execFileSync(process.argv[1], process.argv.slice(2), {stdio: "inherit"})' \
                "$LG_TMP/rustls_client" api.openai.com /v1/chat/completions post 3
        else
            skip "no node" 4
        fi
        K1=sk-dead K2=sk-good timeout 90 "$LG_CLI" run --config "$LG_TMP/node.json" -- "$LG_TMP/rustls_webpki" api.openai.com /v1/chat/completions post 1 >/dev/null 2>"$LG_TMP/err"
        check_eq "rustls with compiled-in roots: named in one line, left ungated" \
            "llmgate: warning: $LG_TMP/rustls_webpki is a Rust program with rustls and compiled-in roots (webpki-roots): it cannot be made to trust the relay, it runs ungated" "$(cat "$LG_TMP/err")"
    else
        not_ok "the rustls client builds offline from Debian's crates"; diag "$(head -c 600 "$LG_TMP/cargo.err")"
    fi
else
    skip "no cargo or no Debian rustls crates (librust-rustls-dev, librust-rustls-native-certs-dev)" 10
fi

# the local CA: key 0600, constrained to the providers' names
CA=$XDG_STATE_HOME/llmgate/relay-ca.pem
KEY=$XDG_STATE_HOME/llmgate/relay-ca.key
check_eq "CA key file is 0600" 600 "$(stat -c %a "$KEY")"
show=$("$LG_CLI" ca show)
check_match "llmgate ca show: the permitted names" $'permitted names:\n  api\\.openai\\.com' "$show"
issue() { # issue NAME: a leaf for NAME signed with the CA's key (as a thief of the key would)
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" -keyout "$LG_TMP/leaf.key" -out "$LG_TMP/leaf.csr" 2>/dev/null
    printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$1" >"$LG_TMP/leaf.ext"
    openssl x509 -req -in "$LG_TMP/leaf.csr" -CA "$CA" -CAkey "$KEY" -days 1 -extfile "$LG_TMP/leaf.ext" -out "$LG_TMP/leaf.pem" 2>/dev/null
}
issue api.openai.com
verifies() { openssl verify -CAfile "$CA" "$LG_TMP/leaf.pem" >/dev/null 2>&1; }
check "openssl verify: a leaf for a provider's name is accepted" verifies
issue www.example.com
if openssl verify -CAfile "$CA" "$LG_TMP/leaf.pem" >"$LG_TMP/verify.out" 2>&1; then
    not_ok "openssl verify: a leaf for another name is refused"
else
    check_match "openssl verify: a leaf for another name is refused (name constraints)" 'permitted subtree violation|name constraint' "$(cat "$LG_TMP/verify.out")"
fi

# the proxy: a non-provider https site tunnelled (its own certificate), the secret required
read -r port secret _ <"$(addr_of config)"
cert=$(curl -s -v --proxy "http://llmgate:$secret@127.0.0.1:$port" --cacert "$SSL_CERT_FILE" "https://localhost:$MOCK_TLS_PORT/v1/models" -o /dev/null 2>&1 | grep -i 'issuer:')
check_match "a non-provider https site through the relay presents its own certificate" 'llmgate test CA' "$cert"
code=$(curl -s -o /dev/null -w '%{http_connect}' --proxy "http://llmgate:wrong@127.0.0.1:$port" --cacert "$CA" "$URL")
check_eq "the relay refuses a client without its secret (407)" 407 "$code"
code=$(curl -s -o /dev/null -w '%{http_connect}' --proxy "http://127.0.0.1:$port" --cacert "$CA" "$URL")
check_eq "the relay refuses a client without proxy credentials (407)" 407 "$code"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # another user cannot read the relay's address file (the secret), nor reach the relay without it
    other=$(setpriv --reuid=nobody --regid=nogroup --clear-groups cat "$XDG_RUNTIME_DIR"/llmgate/relay-*.addr 2>&1)
    check_match "another user cannot read the relay's secret" 'Permission denied' "$other"
    code=$(setpriv --reuid=nobody --regid=nogroup --clear-groups curl -s -o /dev/null -w '%{http_connect}' --proxy "http://127.0.0.1:$port" -k "$URL")
    check_eq "another user's client is refused by the relay" 407 "$code"
else
    skip "not root or no setpriv: cannot run a client as another user" 2
fi

# a relay killed mid-request: the program gets a connection error; the next run starts a new relay; a
# stale address file is replaced
fresh
K1=sk-dead K_slow=sk-slow timeout 60 "$LG_CLI" run --config "$LG_TMP/slow.json" -- "$LG_TMP/gocgo" "$URL" stream >"$LG_TMP/killed.out" 2>"$LG_TMP/err" &
cpid=$!
for _ in $(seq 1 100); do [[ $(reqkeys) == *sk-slow* ]] && break; sleep 0.05; done
old=$(relay_pid slow)
pkill -KILL -P "$old" 2>/dev/null; kill -KILL "$old" 2>/dev/null
wait "$cpid"
rc=$?
check "relay killed mid-request: the program fails (exit $rc)" test "$rc" != 0
check_match "relay killed mid-request: a connection error" '^error .*(EOF|reset|closed|unexpected)' "$(cat "$LG_TMP/killed.out")"
check "relay killed: its address file stays behind (stale)" test -s "$(addr_of slow)"
out=$(K1=sk-dead K_slow=sk-slow timeout 60 "$LG_CLI" run --config "$LG_TMP/slow.json" -- "$LG_TMP/gocgo" "$URL" 1 2>"$LG_TMP/err")
check_match "after the kill: the next run is gated" '^200 HTTP/1.1 .*"mock_key":"sk-slow"' "$out"
new=$(relay_pid slow)
check "after the kill: a new relay replaced the stale file" test -n "$new" -a "$new" != "$old"

# a relay started by hand, idle: it exits after --idle seconds and takes its files with it
K1=sk-dead K2=sk-good "$LG_CLI" relay --config "$LG_TMP/config.json" --addr-file "$LG_TMP/idle.addr" --idle 1 2>"$LG_TMP/idle.err" &
ipid=$!
for _ in $(seq 1 100); do [ -s "$LG_TMP/idle.addr" ] && break; sleep 0.05; done
check "a relay in the foreground writes its address file and its CA beside it" test -s "$LG_TMP/idle.addr" -a -s "$LG_TMP/idle.addr.ca.pem" -a -s "$LG_TMP/idle.addr.webpki.pem"
issue api.openai.com
check "openssl refuses the CA's form for rustls (webpki's reading of name constraints): it only narrows trust" \
    bash -c '! openssl verify -CAfile "$1" "$2" >/dev/null 2>&1' - "$LG_TMP/idle.addr.webpki.pem" "$LG_TMP/leaf.pem"
for _ in $(seq 1 100); do kill -0 "$ipid" 2>/dev/null || break; sleep 0.1; done
check "an idle relay exits after --idle, its files removed" test ! -e "/proc/$ipid" -a ! -e "$LG_TMP/idle.addr" -a ! -e "$LG_TMP/idle.addr.ca.pem" -a ! -e "$LG_TMP/idle.addr.webpki.pem"

# two runs at once share one relay
stop_relays
fresh
pids=()
for i in 1 2; do
    K1=sk-dead K2=sk-good timeout 60 "$LG_CLI" run --config "$LG_TMP/config.json" -- "$LG_TMP/gocgo" "$URL" 1 >"$LG_TMP/both.$i" 2>&1 &
    pids+=($!)
done
wait "${pids[@]}"
check_eq "two runs at once: both answered" 2 "$(cat "$LG_TMP"/both.? | grep -c '^200 HTTP/1.1')"
check_eq "two runs at once: one relay (both name the same port)" 1 \
    "$(cat "$LG_TMP"/both.? | sed -n 's/.*gated through the relay on 127\.0\.0\.1:\([0-9]*\).*/\1/p' | sort -u | wc -l)"
lg_done
