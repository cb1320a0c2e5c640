#!/usr/bin/env bash
# Two llmgate versions on one machine (issue 33, item 5): a store file of another layout version (the one
# before this build's and the one after) met by this build is never written: the request goes on (fail open), one line says what
# happened, the other version's file keeps its bytes (a process of that version that has it mapped reads
# what it wrote), and a file of this version takes its place.
source "$(dirname "$0")/../lib.sh"

lg_start_mock --quiet --no-ratelimit-headers
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "one", "key": "sk-ver-one"}],
                          "limits": {"rpm": 50, "window_ms": 60000}}}}
JSON
chmod 600 "$LG_TMP/config.json"
export LLMGATE_CONFIG=$LG_TMP/config.json
STORE=$XDG_RUNTIME_DIR/llmgate/state.shm
BODY='{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
ask() {
    LD_PRELOAD=$LG_LIB curl -s -o /dev/null -w '%{http_code}' --connect-to "api.openai.com:80:127.0.0.1:$MOCK_PORT" \
        http://api.openai.com/v1/chat/completions -H 'Authorization: Bearer sk-host' -d "$BODY" 2>"$LG_TMP/err"
}
# version_of FILE: the layout version in a store file's header.
version_of() { /usr/bin/python3 -c "import struct,sys; print(struct.unpack_from('<I', open(sys.argv[1],'rb').read(12), 8)[0])" "$1"; }
# set_version FILE V: writes V as a file's layout version (what a build of that version would have made).
set_version() { /usr/bin/python3 -c "
import struct,sys
with open(sys.argv[1], 'r+b') as f: f.seek(8); f.write(struct.pack('<I', int(sys.argv[2])))" "$1" "$2"; }

# this build's layout version, from the header that sets it
V=$(sed -n 's/^#define LG_STORE_VERSION \([0-9]*\)u.*/\1/p' "$LG_ROOT/src/store/layout.h")
check_eq "a first request makes the store" 200 "$(ask)"
check_eq "the store has this build's version ($V)" "$V" "$(version_of "$STORE")"
for other in $((V - 1)) $((V + 1)); do
    set_version "$STORE" "$other"
    ln -f "$STORE" "$LG_TMP/other.shm" # the other version's file, as its processes keep it mapped
    cp "$LG_TMP/other.shm" "$LG_TMP/other.before"
    check_eq "v$other file: the request goes on" 200 "$(ask)"
    check_eq "v$other file: one line" 1 "$(wc -l <"$LG_TMP/err")"
    check_match "v$other file: the line says which versions, and that limits are not shared" \
        "has layout version $other, this llmgate $V: replaced .*do not share limits" "$(cat "$LG_TMP/err")"
    check "v$other file: its bytes untouched" cmp -s "$LG_TMP/other.shm" "$LG_TMP/other.before"
    check_eq "v$other file: a file of this version in its place" "$V" "$(version_of "$STORE")"
    check_eq "v$other file: the next request says nothing" "200 0" "$(ask) $(wc -l <"$LG_TMP/err")"
done
lg_done
