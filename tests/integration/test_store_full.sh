#!/usr/bin/env bash
# Issue 37, item 1: a full runtime disk never kills the host. The state file's space is reserved before it
# is mapped; when it cannot be, the program runs without the shared limiter, with one line on stderr.
# (a) a tmpfs of a few KB as the runtime directory: the store cannot even be created; (b) a tmpfs nearly
# full when a larger config first meets the small store file of a smaller one: fully reserved, so its new
# accounts land in reserved pages; (c) the same with a sparse store file (one written before the fix, its
# zero pages holes): the space cannot be reserved, so no store. Needs root (mount); skipped otherwise.
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ] || ! mkdir -p "$LG_TMP/probe" || ! mount -t tmpfs -o size=8k tmpfs "$LG_TMP/probe" 2>/dev/null; then
    echo "# skip: mounting a tmpfs needs root"
    skip "mounting a tmpfs needs root" 13
    lg_done; exit
fi
umount "$LG_TMP/probe"
MOUNTS=()
cleanup_mounts() { local m; for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done; lg_cleanup; }
trap cleanup_mounts EXIT
# tmpfs DIR SIZE: a private tmpfs of SIZE mounted on DIR (unmounted on exit).
tmpfs() { mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=700" tmpfs "$1" && MOUNTS+=("$1"); }

lg_start_mock --quiet
export KEY_A=sk-full-a KEY_B=sk-full-b KEY_C=sk-full-c
# config NAME N: a config with N accounts (a, b, c: KEY_A.. KEY_C; then more on KEY_A).
config() {
    local i accts='{"name": "a", "key": "env:KEY_A"}'
    for ((i = 2; i <= $2; i++)); do accts+=", {\"name\": \"n$i\", \"key\": \"env:KEY_$( ((i == 2)) && echo B || echo C)\"}"; done
    cat >"$LG_TMP/$1.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [$accts]}}}
JSON
    chmod 600 "$LG_TMP/$1.json"
}
config small 1
config large 40
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
# gated CONFIG: one curl under the preload with XDG_RUNTIME_DIR as set; prints "EXIT CODE BODYBYTES".
gated() {
    local code rc
    code=$(LLMGATE_CONFIG=$LG_TMP/$1.json LD_PRELOAD=$LG_LIB curl -s -o "$LG_TMP/out" -w '%{http_code}' \
        --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" http://api.openai.com/v1/chat/completions \
        -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err")
    rc=$?
    echo "$rc $code"
}
answered() { grep -q '"choices"' "$LG_TMP/out"; }

# (a) a runtime directory of 8 KB.
export XDG_RUNTIME_DIR=$LG_TMP/tiny
tmpfs "$XDG_RUNTIME_DIR" 8k
check_eq "8 KB runtime dir: curl exits 0 with the provider's 200" "0 200" "$(gated small)"
check "8 KB runtime dir: the provider's answer" answered
check_eq "8 KB runtime dir: one line on stderr" 1 "$(wc -l <"$LG_TMP/err")"
check_match "8 KB runtime dir: the line says the store is unavailable and why" 'state store .*(No space left|space)' "$(cat "$LG_TMP/err")"

# (b) a small config's store, then the disk filled to a few KB, then a larger config.
export XDG_RUNTIME_DIR=$LG_TMP/near
tmpfs "$XDG_RUNTIME_DIR" 4m
check_eq "nearly full: the small config's first request" "0 200" "$(gated small)"
STATE=$XDG_RUNTIME_DIR/llmgate/state.shm
check "nearly full: the store file is fully allocated" test "$(( $(stat -c %b "$STATE") * $(stat -c %B "$STATE") ))" -ge "$(stat -c %s "$STATE")"
dd if=/dev/zero of="$XDG_RUNTIME_DIR/filler" bs=4k 2>/dev/null
check_eq "nearly full: the 40-account config meets the small store: exit 0, 200" "0 200" "$(gated large)"
check_eq "nearly full: nothing on stderr (the store is in use)" 0 "$(wc -l <"$LG_TMP/err")"
check_eq "nearly full: llmgate status lists the 40 accounts" 40 \
    "$(LLMGATE_CONFIG=$LG_TMP/large.json "$LG_CLI" status --json | lg_json 'len(j["providers"]["openai"]["accounts"])')"

# (c) the store file made sparse, the disk full, the larger config.
rm -f "$XDG_RUNTIME_DIR/filler"
fallocate --dig-holes "$STATE"
dd if=/dev/zero of="$XDG_RUNTIME_DIR/filler" bs=4k 2>/dev/null
check_eq "sparse store on a full disk: exit 0, 200" "0 200" "$(gated large)"
check "sparse store on a full disk: the provider's answer" answered
check_eq "sparse store on a full disk: one line on stderr" 1 "$(wc -l <"$LG_TMP/err")"
check_match "sparse store on a full disk: the line names the store and the lack of space" 'state store .*No space left' "$(cat "$LG_TMP/err")"
lg_done
