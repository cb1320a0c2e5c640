#!/usr/bin/env bash
# A Python host through pycurl (libcurl's easy interface) is gated like curl: under llmgate run, the
# request reaches the configured upstream with the account's key, and Python sees the provider's answer.
source "$(dirname "$0")/../lib.sh"
lg_start_mock --quiet
cat >"$LG_TMP/config.json" <<JSON
{"providers": {"openai": {"upstream": "$MOCK_URL", "accounts": [{"name": "main", "key": "env:KEY_MAIN"}]}}}
JSON
chmod 600 "$LG_TMP/config.json"
out=$(KEY_MAIN=sk-pycurl-account "$LG_CLI" run --config "$LG_TMP/config.json" -- /usr/bin/python3 -c '
import io, json, pycurl
body = io.BytesIO()
c = pycurl.Curl()
c.setopt(c.URL, "https://api.openai.com/v1/chat/completions")
c.setopt(c.HTTPHEADER, ["Authorization: Bearer sk-from-python", "Content-Type: application/json"])
c.setopt(c.POSTFIELDS, json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}))
c.setopt(c.WRITEDATA, body)
c.perform()
print(c.getinfo(c.RESPONSE_CODE), json.loads(body.getvalue())["object"])')
check_eq "python saw the provider's answer" "200 chat.completion" "$out"
check_eq "the mock got the account's key, not the script's" "sk-pycurl-account" \
    "$(curl -s "$MOCK_URL/__requests" | lg_json 'j[-1]["key"]')"
lg_done
