#!/usr/bin/env bash
# A socket host that makes its socket blocking and non-blocking between requests on one connection
# (tests/clients/py/nonblock_flip.py): with socket.setblocking (ioctl FIONBIO), os.set_blocking (fcntl F_SETFL)
# and os.set_blocking on a duplicate of the descriptor; then a socket made with SOCK_NONBLOCK, made blocking
# after its first request. llmgate notes whether a followed socket is
# non-blocking when it follows it and again only after the program changed a descriptor's flags (fcntl,
# fcntl64, ioctl, interposed): each request is gated as the socket now is. The mock answers 500 ms late, so a
# non-blocking request's send returns at once and its first recv ends in EAGAIN (a stale "blocking" would
# wait for the answer inside the send), and a blocking one's recv waits and gets the answer (a stale
# "non-blocking" would end it in EAGAIN: Python's BlockingIOError on a blocking socket). The same run without
# llmgate says the same. Then fcntl's commands of each argument kind and ioctl with a pointer, under the
# preload, give what they must.
source "$(dirname "$0")/../lib.sh"
echo '{"keys": {"sk-flip": {"sequence": [{"delay_ms": 500}], "repeat": true}}}' >"$LG_TMP/slow.json"
lg_start_mock --quiet --scenario "$LG_TMP/slow.json"
printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "only", "key": "env:K1"}]}}}\n' \
    "$MOCK_URL" >"$LG_TMP/cfg.json"
chmod 600 "$LG_TMP/cfg.json"
CLIENT=$LG_ROOT/tests/clients/py/nonblock_flip.py
# the lines every run must print: HOW MODE STATUS FIRST (the send's time aside)
want="ioctl block 200 data
ioctl nonblock 200 EAGAIN
ioctl block 200 data
fcntl block 200 data
fcntl nonblock 200 EAGAIN
fcntl block 200 data
dup block 200 data
dup nonblock 200 EAGAIN
dup block 200 data
created nonblock 200 EAGAIN
ioctl block 200 data
fcntl-args ok"

for side in direct gated; do
    if [ $side = direct ]; then
        timeout 60 /usr/bin/python3 "$CLIENT" "$MOCK_URL/v1/chat/completions" sk-flip >"$LG_TMP/$side" \
            2>"$LG_TMP/$side.err"
    else
        curl -s -X POST "$MOCK_URL/__reset" >/dev/null
        K1=sk-flip LLMGATE_CONFIG=$LG_TMP/cfg.json LD_PRELOAD=$LG_LIB timeout 60 /usr/bin/python3 "$CLIENT" \
            http://api.openai.com/v1/chat/completions sk-host >"$LG_TMP/$side" 2>"$LG_TMP/$side.err"
    fi
    diag "$side: $(paste -sd';' "$LG_TMP/$side") $(head -c 300 "$LG_TMP/$side.err")"
    check_eq "$side: each request answered as the socket's mode was then, fcntl's arguments right" "$want" \
        "$(awk 'NF == 5 {print $1, $2, $3, $4; next} {print}' "$LG_TMP/$side")"
    check_eq "$side: each non-blocking request's send returned before the answer (< 300 ms)" "" \
        "$(awk '$2 == "nonblock" && $5 >= 300' "$LG_TMP/$side")"
done
check_eq "gated: the eleven requests went to the provider with the account's key" "$(printf 'sk-flip %.0s' {1..11})" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json '"".join(r["key"] + " " for r in j)')"
lg_done
