#!/usr/bin/env bash
# git over smart HTTP under the preload (git-remote-http drives libcurl-gnutls through the multi API only):
# a clone and a fetch from a local repository served by git http-backend behind a tiny CGI server give
# the same output and the same repository with and without llmgate, both when the server's host is no
# provider and when a plain host rule paces it (then every request went through the gate's admission).
source "$(dirname "$0")/../lib.sh"
command -v git >/dev/null || { not_ok "git is installed (make deps)"; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 HOME=$LG_TMP/home GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME" "$LG_TMP/repos"
git config --global user.email t@example.invalid && git config --global user.name t
git init -q "$LG_TMP/src" && (cd "$LG_TMP/src" && for i in 1 2 3; do echo "line $i" >>f.txt; git add f.txt; git commit -qm "commit $i"; done)
git clone -q --bare "$LG_TMP/src" "$LG_TMP/repos/r.git"
# a tiny CGI server for git http-backend (Python's --cgi one runs scripts as nobody and drops Status:)
cat >"$LG_TMP/cgi.py" <<'PY'
import http.server, os, subprocess, sys
root = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def run(self):
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", REQUEST_METHOD=self.command,
                   PATH_INFO=path, QUERY_STRING=query, REMOTE_ADDR="127.0.0.1",
                   CONTENT_TYPE=self.headers.get("Content-Type", ""), GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        env["CONTENT_LENGTH"] = str(len(body))
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(": ")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value))
        self.send_response(status)
        for h in headers:
            self.send_header(*h)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
    do_GET = do_POST = run
    def log_message(self, *a):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
/usr/bin/python3 "$LG_TMP/cgi.py" "$LG_TMP/repos" >"$LG_TMP/port" 2>"$LG_TMP/http.log" &
LG_MOCK_PIDS+=("$!")
for i in $(seq 1 100); do [ -s "$LG_TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$LG_TMP/port")
REPO=http://127.0.0.1:$PORT/r.git

# clone_fetch DIR [PRELOAD]: clone, add a commit upstream, fetch; prints what git printed and the result.
clone_fetch() {
    local env=()
    [ -n "${2:-}" ] && env=(LD_PRELOAD="$2")
    rm -rf "$1"
    env "${env[@]}" git clone "$REPO" "$1" 2>&1 | sed "s|$1|DIR|"
    env "${env[@]}" git -C "$1" ls-remote origin 2>&1
    env "${env[@]}" git -C "$1" fetch origin 2>&1
    git -C "$1" log --format='%H %s' origin/HEAD
}
unset LLMGATE_CONFIG
want=$(clone_fetch "$LG_TMP/plain")
check_match "without llmgate: the clone worked" 'commit 3' "$want"
got=$(clone_fetch "$LG_TMP/pre" "$LG_LIB")
check_eq "under the preload, the server no provider: identical output" "$want" "$got"

cat >"$LG_TMP/paced.json" <<JSON
{"providers": {"gitserver": {"hosts": ["127.0.0.1"], "limits": {"rpm": 1000, "window_ms": 60000}}}}
JSON
chmod 600 "$LG_TMP/paced.json"
got=$(LLMGATE_CONFIG=$LG_TMP/paced.json clone_fetch "$LG_TMP/paced" "$LG_LIB")
check_eq "under a plain host rule for the server: identical output" "$want" "$got"
sent=$(LLMGATE_CONFIG=$LG_TMP/paced.json "$LG_CLI" status --json | lg_json 'j["providers"]["gitserver"]["accounts"]["host"]["requests"]' 2>/dev/null)
check "under a plain host rule: git's requests went through admission (${sent:-none})" test "${sent:-0}" -ge 3
lg_done
