#!/usr/bin/env bash
# Issue 32: what system calls a gated request makes on the socket path. The bench's Python http.client host
# (tests/bench/socket_client.py: POSTs on one keep-alive connection, two accounts) under strace, with and
# without the preload; its calls cut into requests at each sendto of a request line (the first requests, the
# store's and the connection's set-up, left out), the allocator's own (mmap, brk...) aside. Without llmgate a
# request is sendto (head), sendto (body), recvfrom (blocking). Gated, the exchange runs in the host's sendto:
# one sendto of the whole request, then the answer read (recvfrom) when it is in, or waited for (recvfrom
# EAGAIN, poll; with SO_RCVTIMEO the write returns and the host's read waits); nothing else, and never a
# getsockopt nor an fcntl, also when the program set SO_RCVTIMEO before it connected (llmgate notes a socket's
# time limits and whether it is non-blocking when it follows the socket, and again after the program's own
# setsockopt, fcntl F_SETFL or ioctl FIONBIO, which it interposes, instead of asking the socket on each
# wait). Two
# mocks: one that answers at once (limits in rate-limit headers, as the bench's), one 20 ms late (every
# answer waited for).
source "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || { skip "strace not installed" 1; lg_done; exit; }
lg_start_mock --quiet --threads 1 --rpm 1000000000 --tpm 1000000000000 --window-ms 1000
FAST=$MOCK_URL
echo '{"keys": {"sk-sys-account-one": {"sequence": [{"delay_ms": 20}], "repeat": true},
               "sk-sys-account-two": {"sequence": [{"delay_ms": 20}], "repeat": true}}}' >"$LG_TMP/slow.json"
lg_start_mock --quiet --scenario "$LG_TMP/slow.json"
SLOW=$MOCK_URL
export KEY_ONE=sk-sys-account-one KEY_TWO=sk-sys-account-two
for m in FAST SLOW; do
    printf '{"providers": {"openai": {"upstream": "%s", "accounts": [{"name": "one", "key": "env:KEY_ONE"},
     {"name": "two", "key": "env:KEY_TWO"}]}}}\n' "${!m}" >"$LG_TMP/$m.json"
    chmod 600 "$LG_TMP/$m.json"
done
CLIENT=$LG_ROOT/tests/bench/socket_client.py
N=40

# requests SIDE MOCK RCVTIMEO_MS: one line per kind of request seen in a run of N requests, "COUNT CALLS..."
# (SIDE direct: to the mock's URL; gated: to api.openai.com under the preload, to MOCK as upstream); "failed"
# when the run failed.
requests() {
    local env=() url=${!2}/v1/chat/completions
    [ "$1" = gated ] && env=(LD_PRELOAD="$LG_LIB" LLMGATE_CONFIG="$LG_TMP/$2.json" KEY_ONE=sk-sys-account-one) &&
        url=http://api.openai.com/v1/chat/completions
    env "${env[@]}" strace -qq -o "$LG_TMP/trace" /usr/bin/python3 "$CLIENT" "$N" "$url" "$3" >"$LG_TMP/out" 2>&1
    grep -q '^failures=0 ' "$LG_TMP/out" || { echo failed; return; }
    /usr/bin/python3 - "$LG_TMP/trace" <<'PY'
import collections, re, sys
memory = {"mmap", "munmap", "mremap", "mprotect", "madvise", "brk"}
reqs, cur = [], None
for line in open(sys.argv[1]):
    m = re.match(r"(\w+)\((.*)", line)
    if not m or m.group(1) in memory:
        continue
    name, rest = m.groups()
    if name == "sendto" and re.match(r'\d+, "POST ', rest):
        cur = []
        reqs.append(cur)
    if cur is not None:
        cur.append(name + (":EAGAIN" if "EAGAIN" in rest else ""))
kinds = collections.Counter(" ".join(r) for r in reqs[5:-1])  # the set-up's requests and the exit's left out
for k, n in kinds.most_common():
    print(n, k)
PY
}
# count_of CALL KINDS: how many times CALL comes in each kind, one line per kind (unique).
count_of() { awk -v c="$1" '{n = 0; for (i = 2; i <= NF; i++) n += $i == c; print n}' <<<"$2" | sort -u | paste -sd' '; }

curl -s -o /dev/null -d '{}' "$FAST/v1/chat/completions" # the mock warm
for mock in FAST SLOW; do
    for ms in 0 5000; do
        what="$mock, $([ "$ms" = 0 ] && echo "no socket timeout" || echo "SO_RCVTIMEO $ms ms set before the connect")"
        direct=$(requests direct "$mock" "$ms")
        gated=$(requests gated "$mock" "$ms")
        diag "$what, without llmgate: $(paste -sd';' <<<"$direct")"
        diag "$what, gated: $(paste -sd';' <<<"$gated")"
        check "$what: both runs answered" test "$direct" != failed -a "$gated" != failed
        check_eq "$what: requests seen" $((N - 6)) "$(awk '{n += $1} END {print n}' <<<"$gated")"
        check_eq "$what: one sendto a request" 1 "$(count_of sendto "$gated")"
        check_eq "$what: one recvfrom with the answer a request" 1 "$(count_of recvfrom "$gated")"
        check_eq "$what: no other calls than sendto, recvfrom, poll" "" \
            "$(cut -d' ' -f2- <<<"$gated" | tr ' ' '\n' | grep -vx -e sendto -e recvfrom -e recvfrom:EAGAIN -e poll | sort -u)"
        check_eq "$what: no getsockopt" "" "$(grep getsockopt <<<"$gated")"
        check_eq "$what: no fcntl, also in a request waited for" "" "$(grep fcntl <<<"$gated")"
        if [ "$mock" = SLOW ]; then
            check_match "$what: the answers were waited for (recvfrom EAGAIN, poll)" "recvfrom:EAGAIN poll" "$gated"
        fi
        check_eq "$what: a request whose answer was in at once: sendto, recvfrom, nothing more" "" \
            "$(cut -d' ' -f2- <<<"$gated" | grep -v EAGAIN | grep -vx 'sendto recvfrom')"
    done
done
lg_done
