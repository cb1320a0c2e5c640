#!/usr/bin/env bash
# The system calls of the TLS socket path: Python's http.client kept alive over https through the preload
# to the mock, two accounts (the first serves), strace -f -c of 100 and of 200 requests, the difference over
# 100 a request. llmgate's reads of an answer never wait in the kernel (ssl_transport.c, ssl_nowait.c) and
# ask nothing of the kernel beyond the reads themselves: the request's write, the answer's reads (each TLS
# record's header, then its body: four for the mock's two records), and, only when a read found nothing
# there yet (EAGAIN), the front's wait for the socket (a poll, after its getsockopt and fcntl). Whether the
# mock's answer is there at the first read is a race (the attempt reads right after its send): the checks
# hold either way. Before, a poll without a wait came before each record read: 7 a request when the answer
# was there, polls (2) more than the reads that found nothing (0).
source "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || { skip "strace not installed" 3; lg_done; exit; }
lg_gencerts || { not_ok "test certificates created"; exit 1; }
lg_start_mock --tls-port 0 --cert "$LG_TMP/certs/server.pem" --key "$LG_TMP/certs/server.key"
export SSL_CERT_FILE=$LG_TMP/certs/ca.pem
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "https://127.0.0.1:$MOCK_TLS_PORT",
                          "accounts": [{"name": "a", "key": "env:K1"}, {"name": "b", "key": "env:K2"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
cat >"$LG_TMP/client.py" <<'PY'
import http.client, json, sys
c = http.client.HTTPSConnection("api.openai.com")
body = json.dumps({"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]})
ok = 0
for _ in range(int(sys.argv[1])):
    c.request("POST", "/v1/chat/completions", body, {"Authorization": "Bearer sk-host", "Content-Type": "application/json"})
    r = c.getresponse()
    ok += r.status == 200 and b"sk-one" in r.read()
print(ok)
PY
# run N: N requests under strace -f -c (every system call of the host and llmgate); prints how many were answered.
run() {
    K1=sk-one K2=sk-two LLMGATE_CONFIG=$LG_TMP/config.json LD_PRELOAD=$LG_LIB timeout 60 \
        strace -f -c -o "$LG_TMP/strace.$1" /usr/bin/python3 "$LG_TMP/client.py" "$1" 2>"$LG_TMP/err.$1"
}
# per NAME [COL]: the calls named NAME (total: all; COL 5: those that failed) of 200 requests minus those of
# 100, i.e. a request x 100.
per() {
    awk -v n="$1" -v col="${2:-4}" 'FNR == 1 {f++} $NF == n {v = col == 5 && NF < 6 ? 0 : $col; c += (f == 2 ? v : -v)}
        END {print c + 0}' "$LG_TMP/strace.100" "$LG_TMP/strace.200"
}
check_eq "100 and 200 requests over https, all answered with the first account's key" "100 200" "$(run 100) $(run 200)"
total=$(per total) polls=$(per poll) reads=$(per recvfrom) empty=$(per recvfrom 5) writes=$(per write)
diag "system calls a request: $(awk -v d="$total" 'BEGIN {printf "%.2f", d / 100}'); by name: $(awk \
    'FNR == 1 {f++} $1 ~ /^[0-9.]+$/ && $NF != "total" {c[$NF] += (f == 2 ? $4 : -$4)}
     END {for (k in c) if (c[k]) printf "%s %.2f  ", k, c[k] / 100}' "$LG_TMP/strace.100" "$LG_TMP/strace.200")"
check_eq "a request over https: one write, four reads that got data (two records: header, body)" "100 400" \
    "$writes $((reads - empty))"
check_eq "a poll only after a read that found nothing (the front's wait): polls = empty reads" "$empty" "$polls"
lg_done
